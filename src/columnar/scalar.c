/* Scalars: one typed value, for literals, statistics and index keys. */
#include "quiver/columnar.h"
#include "columnar/columnar_int.h"

#include <stdio.h>
#include <string.h>

void qv_scalar_reset(qv_scalar *s) {
  if (!s) return;
  qv_datatype_reset(&s->type);
  qv_free(s->bytes);
  qv_array_release(s->list);
  memset(s, 0, sizeof *s);
  s->is_null = true;
}

qv_status qv_scalar_copy(const qv_scalar *src, qv_scalar *out) {
  *out = *src;
  out->bytes = NULL;
  out->list = NULL;
  if (qv_datatype_copy(&src->type, &out->type) != QV_OK) return QV_ERR_NOMEM;
  if (src->bytes) {
    out->bytes = qv_malloc((size_t)src->len + 1);
    if (!out->bytes) {
      qv_datatype_reset(&out->type);
      return QV_ERR_NOMEM;
    }
    memcpy(out->bytes, src->bytes, (size_t)src->len);
    out->bytes[src->len] = '\0';
  }
  out->list = qv_array_retain(src->list);
  return QV_OK;
}

qv_scalar qv_scalar_int(qv_type_id id, int64_t v) {
  qv_scalar s = QV_SCALAR_INIT;
  s.type = qv_datatype_simple(id);
  s.is_null = false;
  if (qv_type_is_integer(id) && !qv_type_is_signed(id)) s.v.u = (uint64_t)v;
  else s.v.i = v;
  return s;
}

qv_scalar qv_scalar_double(double v) {
  qv_scalar s = QV_SCALAR_INIT;
  s.type = qv_datatype_simple(QV_TYPE_FLOAT64);
  s.is_null = false;
  s.v.f = v;
  return s;
}

qv_scalar qv_scalar_bool(bool v) {
  qv_scalar s = QV_SCALAR_INIT;
  s.type = qv_datatype_simple(QV_TYPE_BOOL);
  s.is_null = false;
  s.v.b = v;
  return s;
}

qv_status qv_scalar_string(const char *data, int64_t len, qv_scalar *out) {
  qv_scalar s = QV_SCALAR_INIT;
  s.type = qv_datatype_simple(QV_TYPE_STRING);
  s.bytes = qv_malloc((size_t)len + 1);
  if (!s.bytes) return QV_ERR_NOMEM;
  memcpy(s.bytes, data, (size_t)len);
  s.bytes[len] = '\0';
  s.len = len;
  s.is_null = false;
  *out = s;
  return QV_OK;
}

qv_status qv_scalar_from_array(const qv_array *a, int64_t i, qv_scalar *out, qv_error *err) {
  if (a->type.id == QV_TYPE_DICTIONARY) { /* the entry's value, as a scalar of the values type */
    if (qv_array_is_valid(a, i)) return qv_scalar_from_array(a->children[0], qvc_dictionary_index(a, i), out, err);
    qv_scalar n = QV_SCALAR_INIT;
    if (qv_datatype_copy(&a->children[0]->type, &n.type) != QV_OK) return qv_error_nomem(err, NULL);
    *out = n;
    return QV_OK;
  }
  qv_scalar s = QV_SCALAR_INIT;
  if (qv_datatype_copy(&a->type, &s.type) != QV_OK) return qv_error_nomem(err, NULL);
  s.is_null = !qv_array_is_valid(a, i) || a->type.id == QV_TYPE_NULL;
  if (!s.is_null) {
    int64_t j = a->offset + i;
    const uint8_t *v = a->buffers[1] ? a->buffers[1]->data : NULL;
    switch (a->type.id) {
      case QV_TYPE_BOOL: s.v.b = qv_bit_get(v, j); break;
      case QV_TYPE_INT8: s.v.i = ((const int8_t *)v)[j]; break;
      case QV_TYPE_INT16: s.v.i = ((const int16_t *)v)[j]; break;
      case QV_TYPE_INT32:
      case QV_TYPE_DATE32: s.v.i = ((const int32_t *)v)[j]; break;
      case QV_TYPE_INT64:
      case QV_TYPE_TIMESTAMP:
      case QV_TYPE_TIME64:
      case QV_TYPE_DURATION: s.v.i = ((const int64_t *)v)[j]; break;
      case QV_TYPE_UINT8: s.v.u = v[j]; break;
      case QV_TYPE_UINT16: s.v.u = ((const uint16_t *)v)[j]; break;
      case QV_TYPE_UINT32: s.v.u = ((const uint32_t *)v)[j]; break;
      case QV_TYPE_UINT64: s.v.u = ((const uint64_t *)v)[j]; break;
      case QV_TYPE_FLOAT32: s.v.f = ((const float *)v)[j]; break;
      case QV_TYPE_FLOAT64: s.v.f = ((const double *)v)[j]; break;
      case QV_TYPE_DECIMAL128:
        memcpy(&s.v.dec.lo, v + 16 * j, 8);
        memcpy(&s.v.dec.hi, v + 16 * j + 8, 8);
        break;
      case QV_TYPE_STRING:
      case QV_TYPE_BINARY: {
        int32_t len;
        const uint8_t *p = qv_array_str(a, i, &len);
        s.bytes = qv_malloc((size_t)len + 1);
        if (!s.bytes) goto nomem;
        memcpy(s.bytes, p, (size_t)len);
        s.bytes[len] = '\0';
        s.len = len;
        break;
      }
      case QV_TYPE_LIST: {
        const int32_t *o = (const int32_t *)v;
        if (qv_array_slice(a->children[0], o[j], o[j + 1] - o[j], &s.list, err) != QV_OK) goto cleanup;
        break;
      }
      case QV_TYPE_FIXED_SIZE_LIST: {
        int64_t n = a->type.list_size;
        if (qv_array_slice(a->children[0], j * n, n, &s.list, err) != QV_OK) goto cleanup;
        break;
      }
      default: qv_scalar_reset(&s); return qv_error_set(err, QV_ERR_UNSUPPORTED, "no scalar form for this type");
    }
  }
  *out = s;
  return QV_OK;
nomem:
  qv_error_nomem(err, NULL);
cleanup:
  qv_scalar_reset(&s);
  return err ? err->code : QV_ERR_NOMEM;
}

int qv_scalar_format(const qv_scalar *s, char *buf, size_t size) {
  if (s->is_null) return snprintf(buf, size, "null");
  /* Build a one-element array view so scalars and arrays print the same way. */
  qv_builder b;
  qv_array *a = NULL;
  int n = -1;
  if (qv_builder_init(&b, &s->type, NULL) != QV_OK) return snprintf(buf, size, "?");
  qv_status st;
  switch (s->type.id) {
    case QV_TYPE_BOOL: st = qv_builder_append_bool(&b, s->v.b); break;
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32:
    case QV_TYPE_UINT64: st = qv_builder_append_uint(&b, s->v.u); break;
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64: st = qv_builder_append_double(&b, s->v.f); break;
    case QV_TYPE_DECIMAL128: st = qv_builder_append_decimal(&b, s->v.dec.lo, s->v.dec.hi); break;
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: st = qv_builder_append_bytes(&b, s->bytes, s->len); break;
    case QV_TYPE_LIST:
    case QV_TYPE_FIXED_SIZE_LIST: {
      st = QV_OK;
      for (int64_t i = 0; s->list && i < s->list->length && st == QV_OK; i++)
        st = qv_builder_append_from(&b.children[0], s->list, i);
      if (st == QV_OK) st = qv_builder_append_valid(&b);
      break;
    }
    default: st = qv_builder_append_int(&b, s->v.i); break;
  }
  if (st == QV_OK && qv_builder_finish(&b, &a, NULL) == QV_OK) {
    n = qv_array_format_value(a, 0, buf, size);
    qv_array_release(a);
  } else {
    qv_builder_reset(&b);
    n = snprintf(buf, size, "?");
  }
  return n;
}
