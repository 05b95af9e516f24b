/* Row-wise choice among several inputs: row i of the result is row i of
 * args[src[i]].  coalesce, when/then/otherwise and fill_null decide src
 * their own way and share this copy: one pass over the rows for fixed
 * width values, bits or strings, a scalar being a source with stride 0. */
#include <string.h>

#include "compute/compute_int.h"

/* Validity: chosen and valid in the chosen input. */
static qv_status pick_validity(qvk_ctx *c, qvk_datum *args, const uint8_t *src, qv_array *r) {
  int64_t n = c->n;
  qv_bytes *validity = qvk_bytes(qvk_words(n) * 8, c->err);
  if (!validity) return QV_ERR_NOMEM;
  uint8_t *m = qv_bytes_mutable(validity);
  memset(m, 0, (size_t)qvk_words(n) * 8);
  for (int64_t i = 0; i < n; i++) {
    uint8_t k = src[i];
    if (k != QVK_PICK_NONE && qvk_datum_valid(&args[k], i)) qv_bit_set(m, i);
  }
  qvk_set_validity(r, validity);
  return QV_OK;
}

static qv_status pick_bytes(qvk_ctx *c, qvk_datum *args, const uint8_t *src, qv_array *r) {
  int64_t n = c->n, total = 0;
  for (int64_t i = 0; i < n; i++) {
    uint8_t k = src[i];
    if (k == QVK_PICK_NONE) continue;
    if (args[k].scalar) total += args[k].scalar->len;
    else {
      const int32_t *o = qv_array_offsets(args[k].array);
      total += o[i + 1] - o[i];
    }
  }
  if (total > INT32_MAX) return qv_error_set(c->err, QV_ERR_OVERFLOW, "strings of one batch exceed 2 GiB");
  r->buffers[1] = qvk_bytes((n + 1) * 4, c->err);
  r->buffers[2] = r->buffers[1] ? qvk_bytes(total, c->err) : NULL;
  if (!r->buffers[2]) return QV_ERR_NOMEM;
  int32_t *oo = (int32_t *)qv_bytes_mutable(r->buffers[1]);
  uint8_t *dd = qv_bytes_mutable(r->buffers[2]);
  int32_t pos = 0;
  for (int64_t i = 0; i < n; i++) {
    oo[i] = pos;
    uint8_t k = src[i];
    if (k == QVK_PICK_NONE) continue;
    const uint8_t *p;
    int64_t len;
    if (args[k].scalar) {
      p = args[k].scalar->bytes;
      len = args[k].scalar->len;
    } else {
      int32_t l32;
      p = qv_array_str(args[k].array, i, &l32);
      len = l32;
    }
    if (len) memcpy(dd + pos, p, (size_t)len);
    pos += (int32_t)len;
  }
  oo[n] = pos;
  return QV_OK;
}

static qv_status pick_fixed(qvk_ctx *c, qvk_datum *args, int32_t na, const uint8_t *src, int w, qv_array *r) {
  int64_t n = c->n;
  uint8_t *dst = qv_bytes_mutable(r->buffers[1]);
  if (w == 0) { /* booleans */
    for (int64_t i = 0; i < n; i++) {
      uint8_t k = src[i];
      if (k == QVK_PICK_NONE) continue;
      bool v =
          args[k].scalar ? args[k].scalar->v.b : qv_bit_get(args[k].array->buffers[1]->data, args[k].array->offset + i);
      if (v) qv_bit_set(dst, i);
    }
    return QV_OK;
  }
  const uint8_t *base[QVK_PICK_NONE];
  int64_t stride[QVK_PICK_NONE];
  uint8_t lit[QVK_PICK_NONE][16];
  for (int32_t k = 0; k < na; k++) {
    stride[k] = 1;
    base[k] = lit[k];
    memset(lit[k], 0, sizeof lit[k]);
    if (args[k].scalar) {
      stride[k] = 0;
      if (!args[k].scalar->is_null) {
        qv_array *one = NULL;
        QV_RETURN_NOT_OK(qvk_broadcast(args[k].scalar, 1, &one, c->err));
        memcpy(lit[k], qv_array_values(one), (size_t)w);
        qv_array_release(one);
      }
    } else {
      base[k] = qv_array_values(args[k].array);
    }
  }
  for (int64_t i = 0; i < n; i++) {
    uint8_t k = src[i];
    if (k == QVK_PICK_NONE) continue;
    memcpy(dst + w * i, base[k] + w * i * stride[k], (size_t)w);
  }
  return QV_OK;
}

qv_status qvk_pick(qvk_ctx *c, qvk_datum *args, int32_t na, const uint8_t *src, const qv_datatype *rt, qv_array **out) {
  *out = NULL;
  if (na > QVK_PICK_MAX)
    return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "more than %d alternatives in one expression", QVK_PICK_MAX);
  if (rt->id == QV_TYPE_NULL) return qvk_null_result(rt, c->n, out, c->err);
  int w = qv_type_byte_width(rt->id);
  bool bytes = rt->id == QV_TYPE_STRING || rt->id == QV_TYPE_BINARY;
  if (w < 0 && !bytes) {
    char tb[64];
    return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "choosing values of type %s row by row is not supported",
                        qvk_type_name(rt, tb, sizeof tb));
  }
  for (int32_t k = 0; k < na; k++) {
    if (qvk_datum_all_null(&args[k]) && args[k].scalar) continue; /* reads as null whatever its type */
    QV_RETURN_NOT_OK(qvk_coerce(c, &args[k], rt));
    QV_RETURN_NOT_OK(qvk_datum_dense(c, &args[k]));
  }
  qv_array *r = NULL;
  qv_status st = bytes ? qvk_array_new(rt, c->n, &r, c->err) : qvk_fixed_result(rt, c->n, false, &r, c->err);
  if (st == QV_OK) st = bytes ? pick_bytes(c, args, src, r) : pick_fixed(c, args, na, src, w, r);
  if (st == QV_OK) st = pick_validity(c, args, src, r);
  if (st != QV_OK) {
    qv_array_release(r);
    return st;
  }
  *out = r;
  return QV_OK;
}
