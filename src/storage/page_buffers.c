/* A page's buffers: appending them while writing (each starts at a
 * multiple of 8 so decoders may load words), and the validity bitmap both
 * ways. */
#include <string.h>

#include "storage/datafile.h"
#include "storage/encoding.h"

void qvs_page_out_clear(qvs_page_out *po) {
  po->raw.size = 0;
  po->bufs.size = 0;
  po->n_buffers = 0;
  po->encoding = QV_ENCODING_PLAIN;
  po->bit_width = 0;
  po->reference = 0;
  po->dict_count = 0;
}

void qvs_page_out_reset(qvs_page_out *po) {
  qv_buffer_reset(&po->raw);
  qv_buffer_reset(&po->bufs);
  qvs_page_out_clear(po);
}

qv_status qvs_page_begin_buffer(qvs_page_out *po, int64_t *start) {
  int64_t pad = (8 - (po->raw.size & 7)) & 7;
  QV_RETURN_NOT_OK(qvs_zeros(&po->raw, pad));
  *start = po->raw.size;
  return QV_OK;
}

qv_status qvs_page_end_buffer(qvs_page_out *po, int64_t start) {
  qvs_buf b = {start, po->raw.size - start};
  QV_RETURN_NOT_OK(qv_buffer_append(&po->bufs, &b, sizeof b));
  po->n_buffers++;
  return QV_OK;
}

qv_status qvs_page_add_buffer(qvs_page_out *po, const void *p, int64_t n) {
  int64_t start;
  QV_RETURN_NOT_OK(qvs_page_begin_buffer(po, &start));
  QV_RETURN_NOT_OK(qv_buffer_append(&po->raw, p, n));
  return qvs_page_end_buffer(po, start);
}

qv_status qvs_page_add_validity(qvs_page_out *po, const qv_array *a, int64_t start, int64_t n, bool any_nulls) {
  int64_t at;
  QV_RETURN_NOT_OK(qvs_page_begin_buffer(po, &at));
  if (any_nulls) {
    int64_t bytes = qv_bitmap_bytes(n);
    QV_RETURN_NOT_OK(qvs_zeros(&po->raw, bytes));
    uint8_t *dst = po->raw.data + at;
    if (a->buffers[0] && a->null_count != 0) qv_bitmap_copy(dst, 0, a->buffers[0]->data, a->offset + start, n);
    /* else: a type without a validity buffer that is all null (null type): zeros */
  }
  return qvs_page_end_buffer(po, at);
}

qv_status qvs_decode_validity(const qvs_view *v, int32_t b, int64_t n, int64_t expect_nulls, qv_bytes **out,
                              int64_t *nulls, qv_error *err) {
  *out = NULL;
  *nulls = 0;
  int64_t len = qvs_view_len(v, b);
  if (len == 0) {
    if (expect_nulls > 0)
      return qvs_page_error(v->df, v->col, v->page, QV_ERR_CORRUPT, err, "%lld nulls declared but no validity bitmap",
                            (long long)expect_nulls);
    return QV_OK;
  }
  if (len != qv_bitmap_bytes(n))
    return qvs_page_error(v->df, v->col, v->page, QV_ERR_CORRUPT, err, "validity bitmap of %lld bytes for %lld rows",
                          (long long)len, (long long)n);
  int64_t count = n - qv_bitmap_count(qvs_view_buf(v, b), 0, n);
  if (expect_nulls >= 0 && count != expect_nulls)
    return qvs_page_error(v->df, v->col, v->page, QV_ERR_CORRUPT, err,
                          "validity bitmap has %lld nulls, the footer says %lld", (long long)count,
                          (long long)expect_nulls);
  *nulls = count;
  if (count == 0) return QV_OK;
  qv_bytes *bits = qv_bytes_alloc_uninit(len);
  if (!bits) return qv_error_nomem(err, NULL);
  memcpy(qv_bytes_mutable(bits), qvs_view_buf(v, b), (size_t)len);
  *out = bits;
  return QV_OK;
}
