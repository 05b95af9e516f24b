/* FSST encoding of strings and binary: [validity, symbol table (9 bytes
 * per symbol, fsst.c), code offsets (row_count + 1 u32 from 0), codes].
 * Each value's codes decode on their own, so a take reads and decodes only
 * its rows' codes (plus the table, at most 2295 bytes); the page is stored
 * raw, read by checksum block (1 KiB).  Null rows have no codes.  The writer
 * chooses it (datafile_write.c); docs/format.md says when. */
#include "storage/datafile.h"
#include "storage/encoding.h"
#include "storage/format.h"
#include "storage/fsst.h"
#include "storage/gather.h"

qv_status qvs_encode_fsst(const qv_array *a, int64_t start, int64_t n, int64_t null_count, qvs_fsst_scratch *s,
                          qvs_page_out *po, bool *used, qv_error *err) {
  *used = false;
  const int32_t *off = (const int32_t *)a->buffers[1]->data + a->offset + start;
  const uint8_t *chars = a->buffers[2] ? a->buffers[2]->data : (const uint8_t *)"";
  const uint8_t *vb = null_count && a->buffers[0] ? a->buffers[0]->data : NULL;
  int64_t vbit = a->offset + start;
  qvs_fsst_table t;
  QV_RETURN_NOT_OK(qvs_fsst_build(s, chars, off, vb, vbit, n, &t, err));
  if (s->sample_coded > s->sample_bytes - s->sample_bytes / 8) return QV_OK; /* random bytes, say */
  *used = true;
  po->encoding = QV_ENCODING_FSST;
  po->dict_count = t.n;
  int64_t at, offs;
  if (qvs_page_add_validity(po, a, start, n, null_count > 0) != QV_OK) return qv_error_nomem(err, NULL);
  if (qvs_page_begin_buffer(po, &at) != QV_OK || qv_buffer_reserve(&po->raw, 9 * (int64_t)t.n) != QV_OK)
    return qv_error_nomem(err, NULL);
  qvs_fsst_store(&t, po->raw.data + at);
  po->raw.size += 9 * (int64_t)t.n;
  if (qvs_page_end_buffer(po, at) != QV_OK) return qv_error_nomem(err, NULL);
  if (qvs_page_begin_buffer(po, &offs) != QV_OK || qv_buffer_reserve(&po->raw, (n + 1) * 4) != QV_OK)
    return qv_error_nomem(err, NULL);
  po->raw.size += (n + 1) * 4;
  if (qvs_page_end_buffer(po, offs) != QV_OK) return qv_error_nomem(err, NULL);
  /* codes: at most two bytes per input byte (all escapes) */
  if (qvs_page_begin_buffer(po, &at) != QV_OK || qv_buffer_reserve(&po->raw, 2 * (int64_t)(off[n] - off[0])) != QV_OK)
    return qv_error_nomem(err, NULL);
  uint8_t *codes = po->raw.data + at, *o = po->raw.data + offs;
  int64_t pos = 0;
  qv_store_u32le(o, 0);
  for (int64_t i = 0; i < n; i++) {
    if (!vb || qv_bit_get(vb, vbit + i)) pos += qvs_fsst_encode(&t, chars + off[i], off[i + 1] - off[i], codes + pos);
    qv_store_u32le(o + 4 * (i + 1), (uint32_t)pos);
  }
  po->raw.size += pos;
  if (qvs_page_end_buffer(po, at) != QV_OK) return qv_error_nomem(err, NULL);
  return QV_OK;
}

static qv_status load_table(const qvs_view *v, qvs_fsst_table *t, qv_error *err) {
  if (!qvs_fsst_load(t, qvs_view_buf(v, 1), v->pg->dict_count))
    return qvs_page_error(v->df, v->col, v->page, QV_ERR_CORRUPT, err,
                          "FSST symbol table: a symbol length is "
                          "not 1..8");
  return QV_OK;
}

static qv_status bad_offsets(const qvs_view *v, int64_t row, uint32_t s, uint32_t e, qv_error *err) {
  return qvs_page_error(v->df, v->col, v->page, QV_ERR_CORRUPT, err,
                        "row %lld: code offsets %u..%u are outside the %lld code bytes", (long long)row, s, e,
                        (long long)qvs_view_len(v, 3));
}

static qv_status bad_codes(const qvs_view *v, int64_t row, qv_error *err) {
  return qvs_page_error(v->df, v->col, v->page, QV_ERR_CORRUPT, err,
                        "row %lld: a code the symbol table lacks, or an escape without its byte", (long long)row);
}

static qv_status too_long(const qvs_view *v, int64_t total, qv_error *err) {
  return qvs_page_error(v->df, v->col, v->page, QV_ERR_OVERFLOW, err, "%lld bytes of strings exceed 2 GiB",
                        (long long)total);
}

/* Row i's codes [*s, *e), checked against the codes buffer. */
static qv_status code_span(const qvs_view *v, const uint8_t *co, int64_t i, uint32_t *s, uint32_t *e, qv_error *err) {
  *s = qv_load_u32le(co + 4 * i);
  *e = qv_load_u32le(co + 4 * i + 4);
  if (*e < *s || *e > qvs_view_len(v, 3)) return bad_offsets(v, i, *s, *e, err);
  return QV_OK;
}

qv_status qvs_decode_fsst(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err) {
  *out = NULL;
  const qvs_page *pg = v->pg;
  int64_t n = pg->row_count, clen = qvs_view_len(v, 3);
  qvs_fsst_table t;
  QV_RETURN_NOT_OK(load_table(v, &t, err));
  const uint8_t *co = qvs_view_buf(v, 2), *codes = qvs_view_buf(v, 3);
  /* offsets from 0, never decreasing, ending at the codes' end: then each
   * row's codes follow the previous row's */
  uint32_t prev = qv_load_u32le(co);
  if (prev != 0) return bad_offsets(v, 0, prev, prev, err);
  for (int64_t i = 0; i < n; i++) {
    uint32_t e = qv_load_u32le(co + 4 * (i + 1));
    if (e < prev || e > clen) return bad_offsets(v, i, prev, e, err);
    prev = e;
  }
  if (prev != clen) return bad_offsets(v, n - 1, prev, prev, err);
  /* Room for the bytes: a code decodes to at most 8, so one pass decodes
   * and checks; only a bound past 2 GiB sizes the bytes exactly first. */
  int64_t room = 8 * clen + 8;
  if (room > QVS_MAX_PAGE_BYTES) {
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
      int64_t len = qvs_fsst_decoded_len(&t, codes + qv_load_u32le(co + 4 * i), codes + qv_load_u32le(co + 4 * i + 4));
      if (len < 0) return bad_codes(v, i, err);
      if ((total += len) > INT32_MAX) return too_long(v, total, err);
    }
    room = total + 8;
  }
  qv_bytes *validity = NULL, *offs = NULL, *data = NULL;
  qv_array *a = NULL;
  int64_t nulls = 0;
  qv_status st = qvs_decode_validity(v, 0, n, pg->null_count, &validity, &nulls, err);
  if (st != QV_OK) return st;
  if (!(offs = qv_bytes_alloc_uninit((n + 1) * 4)) || !(data = qv_bytes_alloc_uninit(room))) goto nomem;
  int32_t *o = (int32_t *)qv_bytes_mutable(offs);
  int64_t bad = qvs_fsst_decode_rows(&t, codes, co, n, qv_bytes_mutable(data), o);
  if (bad >= 0) {
    st = bad_codes(v, bad, err);
    goto cleanup;
  }
  data->size = o[n];
  if (!(a = qv_array_alloc(type, n, 0))) goto nomem;
  a->buffers[0] = validity;
  a->buffers[1] = offs;
  a->buffers[2] = data;
  a->null_count = nulls;
  *out = a;
  return QV_OK;
nomem:
  st = qv_error_nomem(err, NULL);
cleanup:
  qv_bytes_release(validity);
  qv_bytes_release(offs);
  qv_bytes_release(data);
  return st;
}

qv_status qvs_take_fsst(qvs_view *v, const qv_datatype *type, const uint32_t *rows, int64_t n, qvs_acc *acc,
                        qv_error *err) {
  (void)type;
  bool has_validity = qvs_view_len(v, 0) > 0;
  qvs_view_want(v, 1, 0, qvs_view_len(v, 1));
  for (int64_t k = 0; k < n; k++) {
    int64_t r = rows[k];
    if (has_validity) qvs_view_want(v, 0, r >> 3, 1);
    qvs_view_want(v, 2, r * 4, 8);
  }
  QV_RETURN_NOT_OK(qvs_view_fetch(v, err));
  qvs_fsst_table t;
  QV_RETURN_NOT_OK(load_table(v, &t, err));
  const uint8_t *vb = has_validity ? qvs_view_buf(v, 0) : NULL, *co = qvs_view_buf(v, 2);
  uint32_t s, e;
  int64_t room = 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t r = rows[k];
    if (vb && !qv_bit_get(vb, r)) continue;
    QV_RETURN_NOT_OK(code_span(v, co, r, &s, &e, err));
    qvs_view_want(v, 3, s, e - s);
    room += 8 * (int64_t)(e - s);
  }
  QV_RETURN_NOT_OK(qvs_view_fetch(v, err));
  const uint8_t *codes = qvs_view_buf(v, 3);
  /* room for all at once while that bound is modest (it is up to 8 times
   * the bytes); each value still makes sure of its own */
  if (room <= (INT64_C(64) << 20)) QV_RETURN_NOT_OK(qvs_acc_reserve_bytes(acc, room, err));
  for (int64_t k = 0; k < n; k++) {
    int64_t r = rows[k];
    if (vb && !qv_bit_get(vb, r)) {
      QV_RETURN_NOT_OK(qvs_acc_null(acc, err));
      continue;
    }
    s = qv_load_u32le(co + 4 * r);
    e = qv_load_u32le(co + 4 * r + 4);
    if (s == e) { /* empty (and maybe nothing allocated yet) */
      qvs_acc_bytes_written(acc, 0);
      continue;
    }
    QV_RETURN_NOT_OK(qvs_acc_reserve_bytes(acc, 8 * (int64_t)(e - s), err));
    uint8_t *at = acc->data.data + acc->data.size;
    uint8_t *end = qvs_fsst_decode(&t, codes + s, codes + e, at);
    if (!end) return bad_codes(v, r, err);
    qvs_acc_bytes_written(acc, end - at);
  }
  return QV_OK;
}
