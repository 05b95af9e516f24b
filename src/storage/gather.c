/* Building flat arrays row by row without a per-value builder: the output
 * of take, of reads that span pages, and of writer pages that span
 * batches.  Buffers are sized once from the known row count. */
#include <string.h>

#include "storage/gather.h"

qv_status qvs_acc_init(qvs_acc *acc, const qv_datatype *type, int64_t cap, qv_error *err) {
  memset(acc, 0, sizeof *acc);
  acc->type = type;
  acc->cap = cap;
  qv_type_id id = type->id;
  if (qvs_is_nested(id)) return qv_error_set(err, QV_ERR_INVALID, "gather: nested type");
  if (id == QV_TYPE_NULL) {
    acc->width = -2;
    return QV_OK;
  }
  acc->width = qv_type_byte_width(id);
  /* every value or offset is written as rows arrive (a null's value as
   * zero), so only bits, which are set one at a time, start zeroed */
  int64_t bytes = acc->width > 0 ? cap * acc->width : acc->width == 0 ? qv_bitmap_bytes(cap) : (cap + 1) * 4;
  acc->values = acc->width == 0 ? qv_bytes_alloc(bytes) : qv_bytes_alloc_uninit(bytes);
  if (!acc->values) return qv_error_nomem(err, NULL);
  if (acc->width == -1) ((int32_t *)qv_bytes_mutable(acc->values))[0] = 0;
  return QV_OK;
}

void qvs_acc_reset(qvs_acc *acc) {
  qv_bytes_release(acc->validity);
  qv_bytes_release(acc->values);
  qv_buffer_reset(&acc->data);
  memset(acc, 0, sizeof *acc);
}

static qv_status ensure_validity(qvs_acc *acc, qv_error *err) {
  if (acc->validity) return QV_OK;
  acc->validity = qv_bytes_alloc(qv_bitmap_bytes(acc->cap));
  if (!acc->validity) return qv_error_nomem(err, NULL);
  uint8_t *bits = qv_bytes_mutable(acc->validity);
  memset(bits, 0xFF, (size_t)(acc->pos >> 3));
  for (int64_t i = acc->pos & ~(int64_t)7; i < acc->pos; i++) qv_bit_set(bits, i);
  return QV_OK;
}

qv_status qvs_acc_null(qvs_acc *acc, qv_error *err) {
  if (acc->width != -2) QV_RETURN_NOT_OK(ensure_validity(acc, err));
  if (acc->width == -1) {
    int32_t *o = (int32_t *)qv_bytes_mutable(acc->values);
    o[acc->pos + 1] = o[acc->pos];
  } else if (acc->width > 0) {
    memset(qv_bytes_mutable(acc->values) + acc->pos * acc->width, 0, (size_t)acc->width);
  }
  acc->pos++;
  acc->null_count++;
  return QV_OK;
}

qv_status qvs_acc_reserve_bytes(qvs_acc *acc, int64_t n, qv_error *err) {
  qv_buffer *b = &acc->data;
  if (b->size + n > INT32_MAX)
    return qv_error_set(err, QV_ERR_OVERFLOW, "%lld bytes of strings exceed one array's 2 GiB",
                        (long long)(b->size + n));
  if (b->size + n <= b->capacity) return QV_OK;
  int64_t cap = b->capacity * 2 > b->size + n ? b->capacity * 2 : b->size + n;
  cap = (cap + 63) & ~(int64_t)63;
  uint8_t *d = qv_realloc(b->data, (size_t)cap);
  if (!d) return qv_error_nomem(err, NULL);
  b->data = d;
  b->capacity = cap; /* [size, cap) is not zeroed: qvs_acc_finish zeroes what stays unused */
  return QV_OK;
}

qv_status qvs_acc_bytes(qvs_acc *acc, const uint8_t *p, int64_t len, qv_error *err) {
  QV_RETURN_NOT_OK(qvs_acc_reserve_bytes(acc, len, err)); /* no-op when the take reserved its bytes */
  if (len) memcpy(acc->data.data + acc->data.size, p, (size_t)len);
  qvs_acc_bytes_written(acc, len);
  return QV_OK;
}

void qvs_acc_bytes_written(qvs_acc *acc, int64_t len) {
  acc->data.size += len;
  int32_t *o = (int32_t *)qv_bytes_mutable(acc->values);
  o[acc->pos + 1] = (int32_t)acc->data.size;
  if (acc->validity) qv_bit_set(qv_bytes_mutable(acc->validity), acc->pos);
  acc->pos++;
}

qv_status qvs_acc_append(qvs_acc *acc, const qv_array *a, const uint32_t *rows, int64_t start, int64_t n,
                         qv_error *err) {
  if (acc->pos + n > acc->cap) return qv_error_set(err, QV_ERR_INVALID, "gather: more rows than reserved");
  if (acc->width == -2) {
    acc->pos += n;
    acc->null_count += n;
    return QV_OK;
  }
  const uint8_t *vb = a->null_count && a->buffers[0] ? a->buffers[0]->data : NULL;
  int64_t base = a->offset;
  int64_t p0 = acc->pos;
  /* validity first: the value loops below then ignore it */
  if (vb) {
    QV_RETURN_NOT_OK(ensure_validity(acc, err));
    uint8_t *dst = qv_bytes_mutable(acc->validity);
    int64_t nulls = 0;
    if (rows) {
      for (int64_t k = 0; k < n; k++) {
        bool ok = qv_bit_get(vb, base + rows[k]);
        qv_bit_put(dst, p0 + k, ok);
        nulls += !ok;
      }
    } else {
      qv_bitmap_copy(dst, p0, vb, base + start, n);
      nulls = n - qv_bitmap_count(vb, base + start, n);
    }
    acc->null_count += nulls;
  } else if (acc->validity) {
    uint8_t *dst = qv_bytes_mutable(acc->validity);
    for (int64_t k = 0; k < n; k++) qv_bit_set(dst, p0 + k);
  }
  int w = acc->width;
  if (w > 0) {
    uint8_t *dst = qv_bytes_mutable(acc->values) + p0 * w;
    const uint8_t *src = a->buffers[1]->data + base * w;
    if (!rows) {
      memcpy(dst, src + start * w, (size_t)(n * w));
    } else {
      switch (w) {
        case 1:
          for (int64_t k = 0; k < n; k++) dst[k] = src[rows[k]];
          break;
        case 2:
          for (int64_t k = 0; k < n; k++) memcpy(dst + 2 * k, src + 2 * (int64_t)rows[k], 2);
          break;
        case 4:
          for (int64_t k = 0; k < n; k++) memcpy(dst + 4 * k, src + 4 * (int64_t)rows[k], 4);
          break;
        case 8:
          for (int64_t k = 0; k < n; k++) memcpy(dst + 8 * k, src + 8 * (int64_t)rows[k], 8);
          break;
        default:
          for (int64_t k = 0; k < n; k++) memcpy(dst + w * k, src + w * (int64_t)rows[k], (size_t)w);
          break;
      }
    }
  } else if (w == 0) {
    uint8_t *dst = qv_bytes_mutable(acc->values);
    const uint8_t *src = a->buffers[1]->data;
    if (!rows) qv_bitmap_copy(dst, p0, src, base + start, n);
    else
      for (int64_t k = 0; k < n; k++) qv_bit_put(dst, p0 + k, qv_bit_get(src, base + rows[k]));
  } else {
    const int32_t *off = (const int32_t *)a->buffers[1]->data + base;
    const uint8_t *chars = a->buffers[2] ? a->buffers[2]->data : NULL;
    int32_t *o = (int32_t *)qv_bytes_mutable(acc->values);
    int64_t total = 0;
    if (rows)
      for (int64_t k = 0; k < n; k++) total += off[rows[k] + 1] - off[rows[k]];
    else total = off[start + n] - off[start];
    QV_RETURN_NOT_OK(qvs_acc_reserve_bytes(acc, total, err));
    uint8_t *d = acc->data.data;
    int32_t pos = (int32_t)acc->data.size;
    if (rows) {
      for (int64_t k = 0; k < n; k++) {
        int32_t s = off[rows[k]], len = off[rows[k] + 1] - s;
        if (len) memcpy(d + pos, chars + s, (size_t)len); /* d and chars are NULL when every string is empty */
        pos += len;
        o[p0 + k + 1] = pos;
      }
    } else {
      int32_t s0 = off[start];
      if (total) memcpy(d + pos, chars + s0, (size_t)total);
      for (int64_t k = 0; k < n; k++) o[p0 + k + 1] = pos + (off[start + k + 1] - s0);
      pos += (int32_t)total;
    }
    acc->data.size = pos;
  }
  acc->pos += n;
  return QV_OK;
}

qv_status qvs_acc_finish(qvs_acc *acc, qv_array **out, qv_error *err) {
  *out = NULL;
  if (acc->width == -2) {
    qv_status st = qv_array_make_null(acc->type, acc->pos, out, err);
    qvs_acc_reset(acc);
    return st;
  }
  qv_array *a = qv_array_alloc(acc->type, acc->pos, 0);
  if (!a) {
    qvs_acc_reset(acc);
    return qv_error_nomem(err, NULL);
  }
  if (acc->width == -1) {
    qv_bytes *d = NULL;
    if (acc->data.data) memset(acc->data.data + acc->data.size, 0, (size_t)(acc->data.capacity - acc->data.size));
    if (qv_buffer_finish(&acc->data, &d) != QV_OK) {
      qv_array_release(a);
      qvs_acc_reset(acc);
      return qv_error_nomem(err, NULL);
    }
    a->buffers[2] = d;
  }
  a->null_count = acc->null_count;
  if (acc->null_count) {
    a->buffers[0] = acc->validity;
    acc->validity = NULL;
  }
  a->buffers[1] = acc->values;
  acc->values = NULL;
  qvs_acc_reset(acc);
  *out = a;
  return QV_OK;
}
