/* Buffers that the IPC reader and the C Data importer share: foreign
 * layouts, dictionary decoding, and IPC body decompression (zero-copy views
 * of foreign memory are qv_bytes_view, quiver/base.h). */
#include <lz4frame.h>
#include <string.h>
#include <zstd.h>

#include "columnar/ipc_int.h"

/* ---- foreign layouts ---------------------------------------------------- */

qv_status qvc_bitmap_rebase(const uint8_t *bits, int64_t offset, int64_t length, qv_bytes **out, qv_error *err) {
  *out = qv_bytes_alloc(qv_bitmap_bytes(length));
  if (!*out) return qv_error_nomem(err, NULL);
  qv_bitmap_copy(qv_bytes_mutable(*out), 0, bits, offset, length);
  return QV_OK;
}

static int64_t ld64(const uint8_t *p) {
  int64_t v;
  memcpy(&v, p, 8);
  return v;
}

qv_status qvc_offsets_narrow(const uint8_t *o, int64_t offset, int64_t length, int64_t data_size, qv_bytes **out,
                             int64_t *first, int64_t *last, const char *where, qv_error *err) {
  *out = NULL;
  *first = ld64(o + 8 * offset);
  *last = ld64(o + 8 * (offset + length));
  if (*first < 0 || *last < *first || (data_size >= 0 && *last > data_size))
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: 64-bit offsets %lld..%lld are out of range", where, (long long)*first,
                        (long long)*last);
  if (*last - *first > INT32_MAX)
    return qv_error_set(err, QV_ERR_OVERFLOW, "%s: %lld bytes/items do not fit quiver's 32-bit offsets", where,
                        (long long)(*last - *first));
  qv_bytes *b = qv_bytes_alloc((length + 1) * 4);
  if (!b) return qv_error_nomem(err, NULL);
  int32_t *d = (int32_t *)qv_bytes_mutable(b);
  int64_t prev = *first;
  for (int64_t i = 0; i <= length; i++) {
    int64_t v = ld64(o + 8 * (offset + i));
    if (v < prev || v > *last) {
      qv_bytes_release(b);
      return qv_error_set(err, QV_ERR_CORRUPT, "%s: 64-bit offset %lld (%lld) is out of order", where,
                          (long long)(offset + i), (long long)v);
    }
    d[i] = (int32_t)(v - *first);
    prev = v;
  }
  *out = b;
  return QV_OK;
}

qv_status qvc_views_materialize(const uint8_t *views, int64_t offset, int64_t length, const uint8_t *bits,
                                const uint8_t *const *bufs, const int64_t *sizes, int64_t n_bufs, qv_bytes **offsets,
                                qv_bytes **data, const char *where, qv_error *err) {
  int64_t total = 0;
  *offsets = *data = NULL;
  /* Pass 1 checks every view and sizes the output; pass 2 copies. */
  for (int64_t i = 0; i < length; i++) {
    if (bits && !qv_bit_get(bits, offset + i)) continue;
    const uint8_t *v = views + 16 * (offset + i);
    int32_t len = (int32_t)qv_load_u32le(v);
    if (len < 0) return qv_error_set(err, QV_ERR_CORRUPT, "%s: view %lld has a negative length", where, (long long)i);
    if (len > 12) {
      int32_t buf = (int32_t)qv_load_u32le(v + 8), off = (int32_t)qv_load_u32le(v + 12);
      if (buf < 0 || buf >= n_bufs || off < 0 || !bufs[buf] || (sizes && (int64_t)off + len > sizes[buf]))
        return qv_error_set(err, QV_ERR_CORRUPT, "%s: view %lld points outside its data buffers", where, (long long)i);
    }
    total += len;
    if (total > INT32_MAX)
      return qv_error_set(err, QV_ERR_OVERFLOW, "%s: more than 2 GiB of strings for quiver's 32-bit offsets", where);
  }
  qv_bytes *ob = qv_bytes_alloc((length + 1) * 4), *db = qv_bytes_alloc(total);
  if (!ob || !db) {
    qv_bytes_release(ob);
    qv_bytes_release(db);
    return qv_error_nomem(err, NULL);
  }
  int32_t *o = (int32_t *)qv_bytes_mutable(ob);
  uint8_t *d = qv_bytes_mutable(db);
  int32_t pos = 0;
  for (int64_t i = 0; i < length; i++) {
    o[i] = pos;
    if (bits && !qv_bit_get(bits, offset + i)) continue;
    const uint8_t *v = views + 16 * (offset + i);
    int32_t len = (int32_t)qv_load_u32le(v);
    const uint8_t *src = len <= 12 ? v + 4 : bufs[qv_load_u32le(v + 8)] + qv_load_u32le(v + 12);
    if (len) memcpy(d + pos, src, (size_t)len);
    pos += len;
  }
  o[length] = pos;
  *offsets = ob;
  *data = db;
  return QV_OK;
}

/* ---- dictionaries -------------------------------------------------------- */

static int64_t load_index(const qv_array *a, int64_t i) {
  const uint8_t *p = (const uint8_t *)qv_array_values(a);
  switch (a->type.id) {
    case QV_TYPE_INT8: return ((const int8_t *)p)[i];
    case QV_TYPE_UINT8: return p[i];
    case QV_TYPE_INT16: return ((const int16_t *)p)[i];
    case QV_TYPE_UINT16: return ((const uint16_t *)p)[i];
    case QV_TYPE_INT32: return ((const int32_t *)p)[i];
    case QV_TYPE_UINT32: return ((const uint32_t *)p)[i];
    case QV_TYPE_INT64: return ((const int64_t *)p)[i];
    default: {
      uint64_t u = ((const uint64_t *)p)[i];
      return u > INT64_MAX ? -1 : (int64_t)u;
    }
  }
}

qv_status qvc_dictionary_decode(const qv_array *indices, qv_array *dict, qv_array **out, const char *where,
                                qv_error *err) {
  qv_status st = QV_OK;
  int64_t n = indices->length;
  uint32_t *rows = NULL;
  qv_array *taken = NULL, *r = NULL;
  if (!qv_type_is_integer(indices->type.id))
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: dictionary indices are not integers", where);
  if (n > 0 && indices->null_count == n && dict->length == 0) return qv_array_make_null(&dict->type, n, out, err);
  rows = qv_malloc(n > 0 ? (size_t)n * sizeof *rows : 1);
  if (!rows) return qv_error_nomem(err, NULL);
  for (int64_t i = 0; i < n; i++) {
    if (!qv_array_is_valid(indices, i)) {
      rows[i] = 0;
      continue;
    }
    int64_t v = load_index(indices, i);
    if (v < 0 || v >= dict->length || v > UINT32_MAX) {
      st = qv_error_set(err, QV_ERR_CORRUPT,
                        "%s: dictionary index %lld at row %lld is outside a dictionary of %lld values", where,
                        (long long)v, (long long)i, (long long)dict->length);
      goto cleanup;
    }
    rows[i] = (uint32_t)v;
  }
  if ((st = qv_array_take(dict, rows, n, &taken, err)) != QV_OK) goto cleanup;
  if (indices->null_count == 0 || !indices->buffers[0]) {
    *out = taken;
    taken = NULL;
    goto cleanup;
  }
  /* Null indices became row 0 of the dictionary; mask them back out. */
  r = qvc_array_new(&taken->type, n);
  qv_bytes *bits = qv_bytes_alloc(qv_bitmap_bytes(taken->offset + n));
  if (!r || !bits || qvc_array_alloc_children(r, taken->n_children) != QV_OK) {
    qv_bytes_release(bits);
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  r->buffers[0] = bits;
  uint8_t *w = qv_bytes_mutable(bits);
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; i++) {
    if (qv_array_is_valid(indices, i) && qv_array_is_valid(taken, i)) qv_bit_set(w, taken->offset + i);
    else nulls++;
  }
  /* Sharing the taken array's buffers needs its offset, which applies to
   * them and (Arrow's rule) to struct children alike. */
  r->offset = taken->offset;
  r->null_count = nulls;
  for (int k = 1; k < 3; k++) r->buffers[k] = qv_bytes_retain(taken->buffers[k]);
  for (int32_t c = 0; c < taken->n_children; c++) r->children[c] = qv_array_retain(taken->children[c]);
  *out = r;
  r = NULL;
cleanup:
  qv_array_release(r);
  qv_array_release(taken);
  qv_free(rows);
  return st;
}

/* ---- decompression ------------------------------------------------------- */

/* Output grows with what the decoder actually produces (never straight to
 * the claimed size), so a hostile length cannot force a huge allocation. */
static qv_status grow(qv_buffer *o, int64_t want, qv_error *err) {
  int64_t cap = o->capacity ? o->capacity * 2 : 65536;
  if (cap > want + 1) cap = want + 1;
  if (qv_buffer_reserve(o, cap - o->size) != QV_OK) return qv_error_nomem(err, NULL);
  return QV_OK;
}

static qv_status unzstd(const uint8_t *src, int64_t n, int64_t want, qv_buffer *o, int64_t where, qv_error *err) {
  qv_status st = QV_OK;
  ZSTD_DCtx *z = ZSTD_createDCtx();
  if (!z) return qv_error_nomem(err, NULL);
  ZSTD_inBuffer in = {src, (size_t)n, 0};
  size_t ret = 1;
  while (ret != 0) {
    if (o->size == o->capacity && (st = grow(o, want, err)) != QV_OK) break;
    ZSTD_outBuffer ob = {o->data, (size_t)o->capacity, (size_t)o->size};
    ret = ZSTD_decompressStream(z, &ob, &in);
    if (ZSTD_isError(ret)) {
      st = qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: zstd: %s", (long long)where, ZSTD_getErrorName(ret));
      break;
    }
    o->size = (int64_t)ob.pos;
    if (o->size > want) break;
    if (ret != 0 && in.pos == in.size && ob.pos < ob.size) {
      st = qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: zstd frame is truncated", (long long)where);
      break;
    }
  }
  ZSTD_freeDCtx(z);
  return st;
}

static qv_status unlz4(const uint8_t *src, int64_t n, int64_t want, qv_buffer *o, int64_t where, qv_error *err) {
  qv_status st = QV_OK;
  LZ4F_dctx *z = NULL;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&z, LZ4F_VERSION))) return qv_error_nomem(err, NULL);
  size_t pos = 0, ret = 1;
  while (ret != 0) {
    if (o->size == o->capacity && (st = grow(o, want, err)) != QV_OK) break;
    size_t out_n = (size_t)(o->capacity - o->size), in_n = (size_t)n - pos;
    ret = LZ4F_decompress(z, o->data + o->size, &out_n, src + pos, &in_n, NULL);
    if (LZ4F_isError(ret)) {
      st = qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: lz4: %s", (long long)where, LZ4F_getErrorName(ret));
      break;
    }
    pos += in_n;
    o->size += (int64_t)out_n;
    if (o->size > want) break;
    if (ret != 0 && out_n == 0 && in_n == 0) {
      st = qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: lz4 frame is truncated", (long long)where);
      break;
    }
  }
  LZ4F_freeDecompressionContext(z);
  return st;
}

qv_status qvc_ipc_decompress(int codec, const uint8_t *src, int64_t n, int64_t want, qv_bytes **out, int64_t where,
                             qv_error *err) {
  qv_buffer o = QV_BUFFER_INIT;
  qv_status st;
  if (want < 0 || want > INT64_MAX / 4)
    return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: invalid uncompressed length %lld", (long long)where,
                        (long long)want);
  if (codec == 0) st = unlz4(src, n, want, &o, where, err);
  else if (codec == 1) st = unzstd(src, n, want, &o, where, err);
  else st = qv_error_set(err, QV_ERR_UNSUPPORTED, "byte %lld: unknown compression codec %d", (long long)where, codec);
  if (st == QV_OK && o.size != want)
    st = qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: buffer decompressed to %s%lld bytes, header says %lld",
                      (long long)where, o.size > want ? "more than " : "", (long long)o.size, (long long)want);
  if (st == QV_OK && qv_buffer_finish(&o, out) != QV_OK) st = qv_error_nomem(err, NULL);
  qv_buffer_reset(&o);
  return st;
}
