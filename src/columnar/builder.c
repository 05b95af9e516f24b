/* Builders: append values of any type, then finish into an immutable array. */
#include "quiver/columnar.h"

#include <math.h>
#include <string.h>

#include "columnar/columnar_int.h"

static bool is_offset_type(qv_type_id id) { return id == QV_TYPE_STRING || id == QV_TYPE_BINARY || id == QV_TYPE_LIST; }

qv_status qv_builder_init(qv_builder *b, const qv_datatype *type, qv_error *err) {
  memset(b, 0, sizeof *b);
  if (type->id == QV_TYPE_DICTIONARY) /* built from its parts: qv_array_dictionary */
    return qv_error_set(err, QV_ERR_UNSUPPORTED, "builder: build the indices and values, then qv_array_dictionary");
  if (qv_datatype_copy(type, &b->type) != QV_OK) goto nomem;
  if (is_offset_type(type->id)) {
    int32_t zero = 0;
    if (qv_buffer_append(&b->values, &zero, 4) != QV_OK) goto nomem;
  }
  if (type->n_children > 0) {
    b->children = qv_calloc((size_t)type->n_children, sizeof *b->children);
    if (!b->children) goto nomem;
    b->n_children = type->n_children;
    for (int32_t i = 0; i < type->n_children; i++) {
      qv_status st = qv_builder_init(&b->children[i], &type->children[i].type, err);
      if (st != QV_OK) {
        qv_builder_reset(b);
        return st;
      }
    }
  }
  return QV_OK;
nomem:
  qv_builder_reset(b);
  return qv_error_nomem(err, NULL);
}

void qv_builder_reset(qv_builder *b) {
  qv_datatype_reset(&b->type);
  qv_buffer_reset(&b->validity);
  qv_buffer_reset(&b->values);
  qv_buffer_reset(&b->data);
  for (int32_t i = 0; i < b->n_children; i++) qv_builder_reset(&b->children[i]);
  qv_free(b->children);
  memset(b, 0, sizeof *b);
}

qv_status qv_builder_reserve(qv_builder *b, int64_t additional) {
  int w = qv_type_byte_width(b->type.id);
  if (w > 0) return qv_buffer_reserve(&b->values, additional * w);
  if (w == 0) return qv_buffer_reserve(&b->values, qv_bitmap_bytes(b->length + additional) - b->values.size);
  if (is_offset_type(b->type.id)) return qv_buffer_reserve(&b->values, additional * 4);
  return QV_OK;
}

/* Marks the slot about to be appended valid (or not) in the validity bitmap,
 * creating the bitmap (all previous slots valid) on the first null. */
static qv_status mark(qv_builder *b, bool valid) {
  int64_t need = qv_bitmap_bytes(b->length + 1);
  if (!valid && b->validity.data == NULL) {
    QV_RETURN_NOT_OK(qv_buffer_reserve(&b->validity, need > 64 ? need : 64));
    memset(b->validity.data, 0xFF, (size_t)qv_bitmap_bytes(b->length));
    b->validity.size = qv_bitmap_bytes(b->length);
  }
  if (b->validity.data) {
    if (b->validity.size < need) QV_RETURN_NOT_OK(qv_buffer_append_zeros(&b->validity, need - b->validity.size));
    qv_bit_put(b->validity.data, b->length, valid);
  }
  if (!valid) b->null_count++;
  return QV_OK;
}

static qv_status put_fixed(qv_builder *b, const void *v, int w) {
  QV_RETURN_NOT_OK(mark(b, true));
  QV_RETURN_NOT_OK(qv_buffer_append(&b->values, v, w));
  b->length++;
  return QV_OK;
}

static qv_status push_offset(qv_builder *b, int64_t end) {
  if (end > INT32_MAX) return QV_ERR_OVERFLOW;
  int32_t o = (int32_t)end;
  return qv_buffer_append(&b->values, &o, 4);
}

qv_status qv_builder_append_null(qv_builder *b) {
  QV_RETURN_NOT_OK(mark(b, false));
  int w = qv_type_byte_width(b->type.id);
  switch (b->type.id) {
    case QV_TYPE_NULL: break;
    case QV_TYPE_BOOL: {
      int64_t need = qv_bitmap_bytes(b->length + 1);
      if (b->values.size < need) QV_RETURN_NOT_OK(qv_buffer_append_zeros(&b->values, need - b->values.size));
      break;
    }
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: QV_RETURN_NOT_OK(push_offset(b, b->data.size)); break;
    case QV_TYPE_LIST: QV_RETURN_NOT_OK(push_offset(b, b->children[0].length)); break;
    case QV_TYPE_STRUCT:
      for (int32_t i = 0; i < b->n_children; i++) QV_RETURN_NOT_OK(qv_builder_append_null(&b->children[i]));
      break;
    case QV_TYPE_FIXED_SIZE_LIST: QV_RETURN_NOT_OK(qv_builder_append_nulls(&b->children[0], b->type.list_size)); break;
    default: QV_RETURN_NOT_OK(qv_buffer_append_zeros(&b->values, w)); break;
  }
  b->length++;
  return QV_OK;
}

qv_status qv_builder_append_nulls(qv_builder *b, int64_t n) {
  for (int64_t i = 0; i < n; i++) QV_RETURN_NOT_OK(qv_builder_append_null(b));
  return QV_OK;
}

qv_status qv_builder_append_bool(qv_builder *b, bool v) {
  if (b->type.id != QV_TYPE_BOOL) return QV_ERR_TYPE;
  QV_RETURN_NOT_OK(mark(b, true));
  int64_t need = qv_bitmap_bytes(b->length + 1);
  if (b->values.size < need) QV_RETURN_NOT_OK(qv_buffer_append_zeros(&b->values, need - b->values.size));
  qv_bit_put(b->values.data, b->length, v);
  b->length++;
  return QV_OK;
}

qv_status qv_builder_append_int(qv_builder *b, int64_t v) {
  switch (b->type.id) {
    case QV_TYPE_INT8: {
      if (v < INT8_MIN || v > INT8_MAX) return QV_ERR_OVERFLOW;
      int8_t x = (int8_t)v;
      return put_fixed(b, &x, 1);
    }
    case QV_TYPE_INT16: {
      if (v < INT16_MIN || v > INT16_MAX) return QV_ERR_OVERFLOW;
      int16_t x = (int16_t)v;
      return put_fixed(b, &x, 2);
    }
    case QV_TYPE_INT32:
    case QV_TYPE_DATE32: {
      if (v < INT32_MIN || v > INT32_MAX) return QV_ERR_OVERFLOW;
      int32_t x = (int32_t)v;
      return put_fixed(b, &x, 4);
    }
    case QV_TYPE_INT64:
    case QV_TYPE_TIMESTAMP:
    case QV_TYPE_TIME64:
    case QV_TYPE_DURATION: return put_fixed(b, &v, 8);
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32:
    case QV_TYPE_UINT64:
      if (v < 0) return QV_ERR_OVERFLOW;
      return qv_builder_append_uint(b, (uint64_t)v);
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64: return qv_builder_append_double(b, (double)v);
    case QV_TYPE_DECIMAL128: return qv_builder_append_decimal(b, (uint64_t)v, v < 0 ? -1 : 0);
    default: return QV_ERR_TYPE;
  }
}

qv_status qv_builder_append_uint(qv_builder *b, uint64_t v) {
  switch (b->type.id) {
    case QV_TYPE_UINT8: {
      if (v > UINT8_MAX) return QV_ERR_OVERFLOW;
      uint8_t x = (uint8_t)v;
      return put_fixed(b, &x, 1);
    }
    case QV_TYPE_UINT16: {
      if (v > UINT16_MAX) return QV_ERR_OVERFLOW;
      uint16_t x = (uint16_t)v;
      return put_fixed(b, &x, 2);
    }
    case QV_TYPE_UINT32: {
      if (v > UINT32_MAX) return QV_ERR_OVERFLOW;
      uint32_t x = (uint32_t)v;
      return put_fixed(b, &x, 4);
    }
    case QV_TYPE_UINT64: return put_fixed(b, &v, 8);
    default:
      if (v > INT64_MAX) return QV_ERR_OVERFLOW;
      return qv_builder_append_int(b, (int64_t)v);
  }
}

qv_status qv_builder_append_double(qv_builder *b, double v) {
  if (b->type.id == QV_TYPE_FLOAT64) return put_fixed(b, &v, 8);
  if (b->type.id == QV_TYPE_FLOAT32) {
    float f = (float)v;
    return put_fixed(b, &f, 4);
  }
  return QV_ERR_TYPE;
}

qv_status qv_builder_append_decimal(qv_builder *b, uint64_t lo, int64_t hi) {
  if (b->type.id != QV_TYPE_DECIMAL128) return QV_ERR_TYPE;
  uint8_t v[16];
  memcpy(v, &lo, 8);
  memcpy(v + 8, &hi, 8);
  return put_fixed(b, v, 16);
}

qv_status qv_builder_append_bytes(qv_builder *b, const void *data, int64_t len) {
  if (b->type.id != QV_TYPE_STRING && b->type.id != QV_TYPE_BINARY) return QV_ERR_TYPE;
  if (len < 0 || b->data.size + len > INT32_MAX) return QV_ERR_OVERFLOW;
  QV_RETURN_NOT_OK(mark(b, true));
  QV_RETURN_NOT_OK(qv_buffer_append(&b->data, data, len));
  QV_RETURN_NOT_OK(push_offset(b, b->data.size));
  b->length++;
  return QV_OK;
}

qv_status qv_builder_append_valid(qv_builder *b) {
  switch (b->type.id) {
    case QV_TYPE_LIST:
      QV_RETURN_NOT_OK(mark(b, true));
      QV_RETURN_NOT_OK(push_offset(b, b->children[0].length));
      break;
    case QV_TYPE_STRUCT:
      for (int32_t i = 0; i < b->n_children; i++)
        if (b->children[i].length != b->length + 1) return QV_ERR_INVALID;
      QV_RETURN_NOT_OK(mark(b, true));
      break;
    case QV_TYPE_FIXED_SIZE_LIST:
      if (b->children[0].length != (b->length + 1) * b->type.list_size) return QV_ERR_INVALID;
      QV_RETURN_NOT_OK(mark(b, true));
      break;
    default: return QV_ERR_TYPE;
  }
  b->length++;
  return QV_OK;
}

qv_status qv_builder_append_from(qv_builder *b, const qv_array *a, int64_t i) {
  if (!qv_array_is_valid(a, i) || a->type.id == QV_TYPE_NULL) return qv_builder_append_null(b);
  int64_t j = a->offset + i;
  const uint8_t *v = a->buffers[1] ? a->buffers[1]->data : NULL;
  switch (a->type.id) {
    case QV_TYPE_BOOL: return qv_builder_append_bool(b, qv_bit_get(v, j));
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: {
      int32_t len;
      const uint8_t *s = qv_array_str(a, i, &len);
      return qv_builder_append_bytes(b, s, len);
    }
    case QV_TYPE_LIST: {
      const int32_t *o = (const int32_t *)v;
      for (int64_t k = o[j]; k < o[j + 1]; k++)
        QV_RETURN_NOT_OK(qv_builder_append_from(&b->children[0], a->children[0], k));
      return qv_builder_append_valid(b);
    }
    case QV_TYPE_FIXED_SIZE_LIST: {
      int64_t n = a->type.list_size;
      for (int64_t k = j * n; k < (j + 1) * n; k++)
        QV_RETURN_NOT_OK(qv_builder_append_from(&b->children[0], a->children[0], k));
      return qv_builder_append_valid(b);
    }
    case QV_TYPE_STRUCT:
      /* Struct children are indexed with the parent's offset (Arrow rule). */
      for (int32_t c = 0; c < a->n_children; c++)
        QV_RETURN_NOT_OK(qv_builder_append_from(&b->children[c], a->children[c], j));
      return qv_builder_append_valid(b);
    default: {
      int w = qv_type_byte_width(a->type.id);
      if (w <= 0 || b->type.id != a->type.id) return QV_ERR_TYPE;
      return put_fixed(b, v + j * w, w);
    }
  }
}

qv_status qv_builder_finish(qv_builder *b, qv_array **out, qv_error *err) {
  qv_array *a = qvc_array_new(&b->type, b->length);
  qv_status st = QV_OK;
  if (!a || qvc_array_alloc_children(a, b->n_children) != QV_OK) goto nomem;
  a->null_count = b->null_count;
  if (b->null_count > 0 && qv_buffer_finish(&b->validity, &a->buffers[0]) != QV_OK) goto nomem;
  if (b->type.id != QV_TYPE_NULL && b->type.id != QV_TYPE_STRUCT && b->type.id != QV_TYPE_FIXED_SIZE_LIST) {
    if (b->type.id == QV_TYPE_BOOL && b->values.size < qv_bitmap_bytes(b->length))
      if (qv_buffer_append_zeros(&b->values, qv_bitmap_bytes(b->length) - b->values.size) != QV_OK) goto nomem;
    if (qv_buffer_finish(&b->values, &a->buffers[1]) != QV_OK) goto nomem;
  }
  if (b->type.id == QV_TYPE_STRING || b->type.id == QV_TYPE_BINARY)
    if (qv_buffer_finish(&b->data, &a->buffers[2]) != QV_OK) goto nomem;
  for (int32_t i = 0; i < b->n_children; i++) {
    st = qv_builder_finish(&b->children[i], &a->children[i], err);
    if (st != QV_OK) goto cleanup;
  }
  qv_builder_reset(b);
  *out = a;
  return QV_OK;
nomem:
  st = qv_error_nomem(err, NULL);
cleanup:
  qv_array_release(a);
  qv_builder_reset(b);
  return st;
}
