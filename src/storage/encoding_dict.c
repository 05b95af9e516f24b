/* Dictionary encoding of strings and binary: [validity, dictionary offsets
 * (d+1 int32 from 0), dictionary bytes, indices bit-packed in
 * w = bits(d-1) bits + QVS_PACK_PAD].  Chosen when the page's distinct
 * values number at most half its rows and at most QVS_MAX_DICT; entries
 * are in order of first appearance.  Null rows carry index 0. */
#include <string.h>

#include "storage/datafile.h"
#include "storage/encoding.h"
#include "storage/format.h"
#include "storage/gather.h"

void qvs_dict_scratch_reset(qvs_dict_scratch *s) {
  qv_free(s->slots);
  qv_free(s->codes);
  qv_free(s->entries);
  memset(s, 0, sizeof *s);
}

static qv_status reserve(qvs_dict_scratch *s, int64_t n, int64_t slots, qv_error *err) {
  if (s->n_slots < slots) {
    qv_free(s->slots);
    s->slots = qv_malloc((size_t)slots * sizeof *s->slots);
    s->n_slots = s->slots ? slots : 0;
    if (!s->slots) return qv_error_nomem(err, NULL);
  }
  if (s->codes_cap < n) {
    qv_free(s->codes);
    s->codes = qv_malloc((size_t)n * sizeof *s->codes);
    s->codes_cap = s->codes ? n : 0;
    if (!s->codes) return qv_error_nomem(err, NULL);
  }
  if (!s->entries && !(s->entries = qv_malloc(QVS_MAX_DICT * sizeof *s->entries))) return qv_error_nomem(err, NULL);
  return QV_OK;
}

qv_status qvs_encode_dict(const qv_array *a, int64_t start, int64_t n, int64_t null_count, qvs_dict_scratch *s,
                          qvs_page_out *po, bool *used, qv_error *err) {
  *used = false;
  if ((a->type.id != QV_TYPE_STRING && a->type.id != QV_TYPE_BINARY) || n < 2 || null_count == n) return QV_OK;
  int64_t limit = n / 2 < QVS_MAX_DICT ? n / 2 : QVS_MAX_DICT;
  int64_t slots = 16;
  while (slots < 2 * limit) slots *= 2;
  QV_RETURN_NOT_OK(reserve(s, n, slots, err));
  memset(s->slots, 0, (size_t)slots * sizeof *s->slots);
  const int32_t *off = (const int32_t *)a->buffers[1]->data + a->offset + start;
  const uint8_t *chars = a->buffers[2] ? a->buffers[2]->data : (const uint8_t *)"";
  const uint8_t *vb = null_count && a->buffers[0] ? a->buffers[0]->data : NULL;
  int64_t d = 0;
  uint64_t mask = (uint64_t)slots - 1;
  for (int64_t i = 0; i < n; i++) {
    if (vb && !qv_bit_get(vb, a->offset + start + i)) {
      s->codes[i] = 0;
      continue;
    }
    const uint8_t *p = chars + off[i];
    int32_t len = off[i + 1] - off[i];
    uint64_t h = qv_hash64(p, (size_t)len, 0) & mask;
    for (;;) {
      uint32_t e = s->slots[h];
      if (e == 0) {
        if (d == limit) return QV_OK; /* too many distinct values: plain is better */
        s->entries[d] = (int32_t)i;
        s->slots[h] = (uint32_t)(++d);
        s->codes[i] = (uint32_t)(d - 1);
        break;
      }
      int32_t r = s->entries[e - 1];
      if (off[r + 1] - off[r] == len && memcmp(chars + off[r], p, (size_t)len) == 0) {
        s->codes[i] = e - 1;
        break;
      }
      h = (h + 1) & mask;
    }
  }
  *used = true;
  po->encoding = QV_ENCODING_DICTIONARY;
  po->dict_count = d;
  int w = qvs_bits_needed((uint64_t)(d - 1));
  po->bit_width = (uint8_t)w;
  int64_t at;
  if (qvs_page_add_validity(po, a, start, n, null_count > 0) != QV_OK) return qv_error_nomem(err, NULL);
  /* dictionary offsets and bytes */
  if (qvs_page_begin_buffer(po, &at) != QV_OK || qv_buffer_reserve(&po->raw, (d + 1) * 4) != QV_OK)
    return qv_error_nomem(err, NULL);
  int64_t total = 0;
  for (int64_t e = 0; e <= d; e++) {
    qv_store_u32le(po->raw.data + at + 4 * e, (uint32_t)total);
    if (e < d) total += off[s->entries[e] + 1] - off[s->entries[e]];
  }
  po->raw.size += (d + 1) * 4;
  if (qvs_page_end_buffer(po, at) != QV_OK) return qv_error_nomem(err, NULL);
  if (qvs_page_begin_buffer(po, &at) != QV_OK || qv_buffer_reserve(&po->raw, total) != QV_OK)
    return qv_error_nomem(err, NULL);
  for (int64_t e = 0; e < d; e++) {
    int32_t r = s->entries[e], len = off[r + 1] - off[r];
    memcpy(po->raw.data + po->raw.size, chars + off[r], (size_t)len);
    po->raw.size += len;
  }
  if (qvs_page_end_buffer(po, at) != QV_OK) return qv_error_nomem(err, NULL);
  /* indices */
  if (qvs_page_begin_buffer(po, &at) != QV_OK || qvs_zeros(&po->raw, qvs_packed_len(n, w)) != QV_OK)
    return qv_error_nomem(err, NULL);
  uint8_t *out = po->raw.data + at;
  uint64_t acc = 0;
  int nb = 0;
  for (int64_t i = 0; i < n; i++) {
    acc |= (uint64_t)s->codes[i] << nb;
    nb += w;
    while (nb >= 8) {
      *out++ = (uint8_t)acc;
      acc >>= 8;
      nb -= 8;
    }
  }
  if (nb > 0) *out = (uint8_t)acc;
  if (qvs_page_end_buffer(po, at) != QV_OK) return qv_error_nomem(err, NULL);
  return QV_OK;
}

static qv_status bad_index(const qvs_view *v, int64_t row, uint64_t idx, qv_error *err) {
  return qvs_page_error(v->df, v->col, v->page, QV_ERR_CORRUPT, err,
                        "row %lld: dictionary index %llu is not below the %lld entries", (long long)row,
                        (unsigned long long)idx, (long long)v->pg->dict_count);
}

static qv_status bad_entry(const qvs_view *v, int64_t e, int32_t s, int32_t t, int64_t dlen, qv_error *err) {
  return qvs_page_error(v->df, v->col, v->page, QV_ERR_CORRUPT, err,
                        "dictionary entry %lld: offsets %d..%d are outside the %lld bytes", (long long)e, s, t,
                        (long long)dlen);
}

/* Validates the page's dictionary offsets (from 0, non-decreasing, ending
 * at the bytes) and unpacks its row codes into codes[0..n), checking that
 * every valid row's code is an entry. */
static qv_status dict_codes(const qvs_view *v, uint32_t *codes, qv_bytes **validity_out, int64_t *nulls_out,
                            qv_error *err) {
  const qvs_page *pg = v->pg;
  int64_t n = pg->row_count, d = pg->dict_count;
  int w = pg->bit_width;
  /* buffers start 8-aligned in 64-aligned memory: int32 loads are aligned */
  const int32_t *doff = (const int32_t *)qvs_view_buf(v, 1);
  const uint8_t *idx = qvs_view_buf(v, 3);
  int64_t dlen = qvs_view_len(v, 2);
  int32_t prev = 0;
  for (int64_t e = 0; e <= d; e++) {
    int32_t o = doff[e];
    if ((e == 0 && o != 0) || o < prev || o > dlen) return bad_entry(v, e, prev, o, dlen, err);
    prev = o;
  }
  if (prev != dlen) return bad_entry(v, d, prev, prev, dlen, err);
  qv_bytes *validity = NULL;
  int64_t nulls = 0;
  QV_RETURN_NOT_OK(qvs_decode_validity(v, 0, n, pg->null_count, &validity, &nulls, err));
  const uint8_t *vb = validity ? validity->data : NULL;
  /* indices unpacked once; only valid rows must index the dictionary */
  qvs_unpack(idx, w, 0, n, codes, 4);
  uint32_t worst = 0;
  for (int64_t i = 0; i < n; i++) worst = codes[i] > worst ? codes[i] : worst;
  if (worst >= (uint64_t)d) {
    for (int64_t i = 0; i < n; i++)
      if (codes[i] >= (uint64_t)d && (!vb || qv_bit_get(vb, i))) {
        qv_status st = bad_index(v, i, codes[i], err);
        qv_bytes_release(validity);
        return st;
      }
  }
  *validity_out = validity;
  *nulls_out = nulls;
  return QV_OK;
}

qv_status qvs_decode_dict(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err) {
  *out = NULL;
  const qvs_page *pg = v->pg;
  int64_t n = pg->row_count;
  const int32_t *doff = (const int32_t *)qvs_view_buf(v, 1);
  const uint8_t *ddata = qvs_view_buf(v, 2);
  uint32_t *codes = qv_malloc((size_t)n * sizeof *codes + 1);
  if (!codes) return qv_error_nomem(err, NULL);
  qv_bytes *validity = NULL;
  int64_t nulls = 0;
  qv_status st = dict_codes(v, codes, &validity, &nulls, err);
  if (st != QV_OK) {
    qv_free(codes);
    return st;
  }
  const uint8_t *vb = validity ? validity->data : NULL;
  qv_array *a = NULL;
  qv_bytes *offs = qv_bytes_alloc_uninit((n + 1) * 4), *data = NULL;
  if (!offs) goto nomem;
  int64_t total = 0;
  if (vb) {
    for (int64_t i = 0; i < n; i++)
      if (qv_bit_get(vb, i)) total += doff[codes[i] + 1] - doff[codes[i]];
  } else {
    for (int64_t i = 0; i < n; i++) total += doff[codes[i] + 1] - doff[codes[i]];
  }
  if (total > INT32_MAX) {
    st = qvs_page_error(v->df, v->col, v->page, QV_ERR_OVERFLOW, err, "%lld bytes of strings exceed 2 GiB",
                        (long long)total);
    goto cleanup;
  }
  /* 16 bytes of slack: short entries are copied as one 16-byte move (the
   * page scratch has QVS_SLACK bytes after its end, so the source side may
   * over-read too) */
  if (!(data = qv_bytes_alloc_uninit(total + 16))) goto nomem;
  data->size = total;
  uint8_t *dp = qv_bytes_mutable(data);
  int32_t *o = (int32_t *)qv_bytes_mutable(offs);
  int32_t pos = 0;
  o[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!vb || qv_bit_get(vb, i)) {
      int32_t s = doff[codes[i]], len = doff[codes[i] + 1] - s;
      if (len <= 16) memcpy(dp + pos, ddata + s, 16);
      else memcpy(dp + pos, ddata + s, (size_t)len);
      pos += len;
    }
    o[i + 1] = pos;
  }
  if (!(a = qv_array_alloc(type, n, 0))) goto nomem;
  a->buffers[0] = validity;
  a->buffers[1] = offs;
  a->buffers[2] = data;
  a->null_count = nulls;
  qv_free(codes);
  *out = a;
  return QV_OK;
nomem:
  st = qv_error_nomem(err, NULL);
cleanup:
  qv_free(codes);
  qv_bytes_release(validity);
  qv_bytes_release(offs);
  qv_bytes_release(data);
  return st;
}

/* The page as a dictionary array: int32 indices (null rows null) into its
 * entries, which the evaluator compares once each (compute/dictionary.c)
 * instead of once per row. */
qv_status qvs_decode_dict_encoded(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err) {
  *out = NULL;
  const qvs_page *pg = v->pg;
  int64_t n = pg->row_count, d = pg->dict_count;
  const int32_t *doff = (const int32_t *)qvs_view_buf(v, 1);
  const uint8_t *ddata = qvs_view_buf(v, 2);
  /* the codes go straight into the indices; null rows' are set to 0, so
   * that every index lies in the dictionary whatever the file held there */
  qv_bytes *ix = qv_bytes_alloc_uninit(n * 4 + 4), *eoff = qv_bytes_alloc_uninit((d + 1) * 4);
  qv_bytes *edata = qv_bytes_alloc_uninit(doff[d] > 0 ? doff[d] : 0), *validity = NULL;
  qv_array *indices = NULL, *values = NULL;
  qv_datatype i32 = qv_datatype_simple(QV_TYPE_INT32);
  int64_t nulls = 0;
  qv_status st = QV_OK;
  if (!ix || !eoff || !edata || !(indices = qv_array_alloc(&i32, n, 0)) || !(values = qv_array_alloc(type, d, 0)))
    st = qv_error_nomem(err, NULL);
  if (st == QV_OK) st = dict_codes(v, (uint32_t *)(void *)qv_bytes_mutable(ix), &validity, &nulls, err);
  if (st != QV_OK) {
    qv_bytes_release(ix);
    qv_bytes_release(eoff);
    qv_bytes_release(edata);
    qv_array_release(indices);
    qv_array_release(values);
    return st;
  }
  if (validity) {
    int32_t *iv = (int32_t *)(void *)qv_bytes_mutable(ix);
    for (int64_t i = 0; i < n; i++)
      if (!qv_bit_get(validity->data, i)) iv[i] = 0;
  }
  memcpy(qv_bytes_mutable(eoff), doff, (size_t)(d + 1) * 4);
  if (doff[d] > 0) memcpy(qv_bytes_mutable(edata), ddata, (size_t)doff[d]);
  indices->buffers[0] = validity;
  indices->buffers[1] = ix;
  indices->null_count = nulls;
  values->buffers[1] = eoff;
  values->buffers[2] = edata;
  return qv_array_dictionary(indices, values, out, err);
}

qv_status qvs_take_dict(qvs_view *v, const qv_datatype *type, const uint32_t *rows, int64_t n, qvs_acc *acc,
                        qv_error *err) {
  (void)type;
  const qvs_page *pg = v->pg;
  int w = pg->bit_width;
  int64_t d = pg->dict_count, dlen = qvs_view_len(v, 2);
  bool has_validity = qvs_view_len(v, 0) > 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t r = rows[k];
    if (has_validity) qvs_view_want(v, 0, r >> 3, 1);
    qvs_view_want(v, 3, (r * w) >> 3, 8);
  }
  QV_RETURN_NOT_OK(qvs_view_fetch(v, err));
  const uint8_t *vb = has_validity ? qvs_view_buf(v, 0) : NULL, *idx = qvs_view_buf(v, 3);
  for (int64_t k = 0; k < n; k++) {
    int64_t r = rows[k];
    if (vb && !qv_bit_get(vb, r)) continue;
    uint64_t e = qvs_unpack_one(idx, w, r);
    if (e >= (uint64_t)d) return bad_index(v, r, e, err);
    qvs_view_want(v, 1, (int64_t)e * 4, 8);
  }
  QV_RETURN_NOT_OK(qvs_view_fetch(v, err));
  const uint8_t *doff = qvs_view_buf(v, 1);
  for (int64_t k = 0; k < n; k++) {
    int64_t r = rows[k];
    if (vb && !qv_bit_get(vb, r)) continue;
    uint64_t e = qvs_unpack_one(idx, w, r);
    int32_t s = (int32_t)qv_load_u32le(doff + 4 * e), t = (int32_t)qv_load_u32le(doff + 4 * e + 4);
    if (s < 0 || t < s || t > dlen) return bad_entry(v, (int64_t)e, s, t, dlen, err);
    qvs_view_want(v, 2, s, t - s);
  }
  QV_RETURN_NOT_OK(qvs_view_fetch(v, err));
  const uint8_t *ddata = qvs_view_buf(v, 2);
  for (int64_t k = 0; k < n; k++) {
    int64_t r = rows[k];
    if (vb && !qv_bit_get(vb, r)) {
      QV_RETURN_NOT_OK(qvs_acc_null(acc, err));
      continue;
    }
    uint64_t e = qvs_unpack_one(idx, w, r);
    int32_t s = (int32_t)qv_load_u32le(doff + 4 * e), t = (int32_t)qv_load_u32le(doff + 4 * e + 4);
    QV_RETURN_NOT_OK(qvs_acc_bytes(acc, ddata + s, t - s, err));
  }
  return QV_OK;
}
