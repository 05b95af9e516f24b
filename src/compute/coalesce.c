/* coalesce(a, b, ...): per row the first argument that is not null.
 * Arguments are cast to the node's type (or the first non-null argument's
 * type).  One pass per argument over validity words decides each row's
 * source; a second pass copies values (fixed width, bits or strings) from
 * a table of sources, a scalar being a source with stride 0. */
#include "compute/compute_int.h"

#define MAX_ARGS 255

qv_status qvk_op_coalesce(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  int32_t na = e->n_args;
  if (na < 1) return qv_error_set(c->err, QV_ERR_INVALID, "coalesce needs at least one argument");
  if (na > MAX_ARGS) return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "coalesce of more than %d arguments", MAX_ARGS);
  const qv_datatype *rt = qvk_bound_type(e);
  for (int32_t k = 0; k < na && !rt; k++)
    if (qvk_datum_type(&args[k])->id != QV_TYPE_NULL) rt = qvk_datum_type(&args[k]);
  int64_t n = c->n;
  qv_array *r = NULL;
  if (!rt) {
    qv_datatype nt = qv_datatype_simple(QV_TYPE_NULL);
    QV_RETURN_NOT_OK(qvk_null_result(&nt, n, &r, c->err));
    qvk_datum_set_array(out, r);
    return QV_OK;
  }
  qv_datatype rtype = QV_DATATYPE_INIT;
  if (qv_datatype_copy(rt, &rtype) != QV_OK) return qv_error_set(c->err, QV_ERR_NOMEM, "out of memory");
  int w = qv_type_byte_width(rtype.id);
  bool bytes = rtype.id == QV_TYPE_STRING || rtype.id == QV_TYPE_BINARY;
  qv_status st = QV_OK;
  if (w < 0 && !bytes) {
    char tb[64];
    st = qv_error_set(c->err, QV_ERR_UNSUPPORTED, "coalesce of %s", qvk_type_name(&rtype, tb, sizeof tb));
  }
  for (int32_t k = 0; k < na && st == QV_OK; k++) {
    if (qvk_datum_all_null(&args[k]) && args[k].scalar) continue; /* never chosen */
    st = qvk_coerce(c, &args[k], &rtype);
    if (st == QV_OK) st = qvk_datum_dense(c, &args[k]);
  }
  int64_t nw = qvk_words(n);
  uint8_t *src = st == QV_OK ? qv_malloc((size_t)(n ? n : 1)) : NULL;
  uint64_t *todo = src ? qv_malloc((size_t)(nw ? nw : 1) * 16) : NULL;
  if (st == QV_OK && !todo) st = qv_error_set(c->err, QV_ERR_NOMEM, "coalesce: out of memory");
  if (st != QV_OK) goto cleanup;
  {
    uint64_t *vk = todo + (nw ? nw : 1);
    memset(src, MAX_ARGS, (size_t)n);
    qvk_fill(todo, n, true);
    for (int32_t k = 0; k < na; k++) {
      if (!qvk_validity_words(&args[k], n, vk)) qvk_fill(vk, n, true);
      for (int64_t wi = 0; wi < nw; wi++) {
        uint64_t take = todo[wi] & vk[wi];
        todo[wi] &= ~take;
        while (take) {
          src[(wi << 6) + __builtin_ctzll(take)] = (uint8_t)k;
          take &= take - 1;
        }
      }
    }
    /* sources: base pointers and strides */
    const uint8_t *base[MAX_ARGS + 1];
    int64_t stride[MAX_ARGS + 1];
    uint8_t lit[MAX_ARGS][16];
    for (int32_t k = 0; k < na; k++) {
      stride[k] = 1;
      base[k] = NULL;
      if (args[k].scalar) {
        stride[k] = 0;
        if (!args[k].scalar->is_null && w > 0) {
          qv_array *one = NULL;
          st = qvk_broadcast(args[k].scalar, 1, &one, c->err);
          if (st != QV_OK) goto cleanup;
          memcpy(lit[k], qv_array_values(one), (size_t)w);
          qv_array_release(one);
          base[k] = lit[k];
        }
      } else if (w > 0) {
        base[k] = qv_array_values(args[k].array);
      }
    }
    if (bytes) {
      st = qvk_array_new(&rtype, n, &r, c->err);
      if (st != QV_OK) goto cleanup;
      int64_t total = 0;
      for (int64_t i = 0; i < n; i++) {
        uint8_t k = src[i];
        if (k == MAX_ARGS) continue;
        if (args[k].scalar) total += args[k].scalar->len;
        else {
          const int32_t *o = qv_array_offsets(args[k].array);
          total += o[i + 1] - o[i];
        }
      }
      if (total > INT32_MAX) {
        st = qv_error_set(c->err, QV_ERR_OVERFLOW, "coalesce: strings exceed 2 GiB");
        goto cleanup;
      }
      r->buffers[1] = qvk_bytes((n + 1) * 4, c->err);
      r->buffers[2] = r->buffers[1] ? qvk_bytes(total, c->err) : NULL;
      if (!r->buffers[2]) {
        st = QV_ERR_NOMEM;
        goto cleanup;
      }
      int32_t *oo = (int32_t *)qv_bytes_mutable(r->buffers[1]);
      uint8_t *dd = qv_bytes_mutable(r->buffers[2]);
      int32_t pos = 0;
      for (int64_t i = 0; i < n; i++) {
        oo[i] = pos;
        uint8_t k = src[i];
        if (k == MAX_ARGS) continue;
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
    } else {
      st = qvk_fixed_result(&rtype, n, false, &r, c->err);
      if (st != QV_OK) goto cleanup;
      uint8_t *dst = qv_bytes_mutable(r->buffers[1]);
      if (w == 0) {
        for (int64_t i = 0; i < n; i++) {
          uint8_t k = src[i];
          if (k == MAX_ARGS) continue;
          bool v = args[k].scalar ? args[k].scalar->v.b
                                  : qv_bit_get(args[k].array->buffers[1]->data, args[k].array->offset + i);
          if (v) qv_bit_set(dst, i);
        }
      } else {
        for (int64_t i = 0; i < n; i++) {
          uint8_t k = src[i];
          if (k == MAX_ARGS) continue;
          memcpy(dst + w * i, base[k] + w * i * stride[k], (size_t)w);
        }
      }
    }
    /* valid where some argument was */
    qv_bytes *validity = qvk_bytes(nw * 8, c->err);
    if (!validity) {
      st = QV_ERR_NOMEM;
      goto cleanup;
    }
    uint64_t *m = (uint64_t *)qv_bytes_mutable(validity);
    for (int64_t wi = 0; wi < nw; wi++) m[wi] = ~todo[wi];
    if (n & 63) m[nw - 1] &= ((uint64_t)1 << (n & 63)) - 1;
    qvk_set_validity(r, validity);
  }
cleanup:
  qv_free(src);
  qv_free(todo);
  qv_datatype_reset(&rtype);
  if (st != QV_OK) {
    qv_array_release(r);
    return st;
  }
  qvk_datum_set_array(out, r);
  return QV_OK;
}
