/* Arrays: reference counting, slicing, gathering rows, validation. */
#include "quiver/columnar.h"

#include <string.h>

#include "columnar/columnar_int.h"

qv_array *qvc_array_new(const qv_datatype *type, int64_t length) {
  qv_array *a = qv_calloc(1, sizeof *a);
  if (!a) return NULL;
  if (qv_datatype_copy(type, &a->type) != QV_OK) {
    qv_free(a);
    return NULL;
  }
  a->length = length;
  a->refcount = 1;
  return a;
}

qv_status qvc_array_alloc_children(qv_array *a, int32_t n) {
  if (n == 0) return QV_OK;
  a->children = qv_calloc((size_t)n, sizeof *a->children);
  if (!a->children) return QV_ERR_NOMEM;
  a->n_children = n;
  return QV_OK;
}

qv_array *qv_array_alloc(const qv_datatype *type, int64_t length, int32_t n_children) {
  qv_array *a = qvc_array_new(type, length);
  if (a && qvc_array_alloc_children(a, n_children) != QV_OK) {
    qv_array_release(a);
    return NULL;
  }
  return a;
}

qv_status qv_array_from_buffers(const qv_datatype *type, int64_t length, qv_bytes *validity, qv_bytes *values,
                                qv_bytes *data, qv_array **out, qv_error *err) {
  qv_array *a = type->n_children == 0 ? qvc_array_new(type, length) : NULL;
  if (!a) {
    qv_bytes_release(validity);
    qv_bytes_release(values);
    qv_bytes_release(data);
    return type->n_children ? qv_error_set(err, QV_ERR_INVALID, "array: nested types need children")
                            : qv_error_nomem(err, NULL);
  }
  a->buffers[0] = validity;
  a->buffers[1] = values;
  a->buffers[2] = data;
  a->null_count = validity ? length - qv_bitmap_count(validity->data, 0, length) : 0;
  *out = a;
  return QV_OK;
}

const void *qv_array_values(const qv_array *a) {
  int w = qv_type_byte_width(a->type.id); /* bool (bits) and variable width: no element offset */
  return a->buffers[1]->data + a->offset * (w > 0 ? w : 0);
}

qv_array *qv_array_retain(qv_array *a) {
  if (a) __atomic_fetch_add(&a->refcount, 1, __ATOMIC_RELAXED); /* see qv_bytes_retain */
  return a;
}

void qv_array_release(qv_array *a) {
  if (!a || __atomic_sub_fetch(&a->refcount, 1, __ATOMIC_ACQ_REL) > 0) return;
  for (int i = 0; i < 3; i++) qv_bytes_release(a->buffers[i]);
  for (int32_t i = 0; i < a->n_children; i++) qv_array_release(a->children[i]);
  qv_free(a->children);
  qv_datatype_reset(&a->type);
  qv_free(a);
}

qv_status qv_array_slice(qv_array *a, int64_t offset, int64_t length, qv_array **out, qv_error *err) {
  if (offset < 0 || length < 0 || offset > a->length || length > a->length - offset)
    return qv_error_set(err, QV_ERR_INVALID, "slice [%lld, +%lld) is outside an array of %lld rows", (long long)offset,
                        (long long)length, (long long)a->length);
  qv_array *s = qvc_array_new(&a->type, length);
  if (!s || qvc_array_alloc_children(s, a->n_children) != QV_OK) {
    qv_array_release(s);
    return qv_error_nomem(err, NULL);
  }
  s->offset = a->offset + offset;
  for (int i = 0; i < 3; i++) s->buffers[i] = qv_bytes_retain(a->buffers[i]);
  for (int32_t i = 0; i < a->n_children; i++) s->children[i] = qv_array_retain(a->children[i]);
  if (a->null_count == 0) s->null_count = 0;
  else if (a->buffers[0]) s->null_count = length - qv_bitmap_count(a->buffers[0]->data, s->offset, length);
  else s->null_count = 0;
  *out = s;
  return QV_OK;
}

qv_status qv_array_make_null(const qv_datatype *type, int64_t length, qv_array **out, qv_error *err) {
  qv_builder b;
  QV_RETURN_NOT_OK(qv_builder_init(&b, type, err));
  qv_status st = qv_builder_append_nulls(&b, length);
  if (st != QV_OK) {
    qv_builder_reset(&b);
    return qv_error_set(err, st, "cannot build a null array of %lld rows", (long long)length);
  }
  return qv_builder_finish(&b, out, err);
}

/* Gathers rows of a fixed-width or string array without a builder. */
static qv_status take_flat(const qv_array *a, const uint32_t *rows, int64_t n, qv_array **out, qv_error *err) {
  qv_array *r = qvc_array_new(&a->type, n);
  if (!r) return qv_error_nomem(err, NULL);
  qv_status st = QV_OK;
  if (a->null_count != 0 && a->buffers[0]) {
    qv_bytes *v = qv_bytes_alloc(qv_bitmap_bytes(n));
    if (!v) goto nomem;
    r->buffers[0] = v;
    uint8_t *bits = qv_bytes_mutable(v);
    const uint8_t *src = a->buffers[0]->data;
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++) {
      bool ok = qv_bit_get(src, a->offset + rows[i]);
      if (ok) qv_bit_set(bits, i);
      else nulls++;
    }
    r->null_count = nulls;
    if (nulls == 0) {
      qv_bytes_release(v);
      r->buffers[0] = NULL;
    }
  }
  int w = qv_type_byte_width(a->type.id);
  if (w == 0) {
    qv_bytes *v = qv_bytes_alloc(qv_bitmap_bytes(n));
    if (!v) goto nomem;
    r->buffers[1] = v;
    uint8_t *bits = qv_bytes_mutable(v);
    for (int64_t i = 0; i < n; i++)
      if (qv_bit_get(a->buffers[1]->data, a->offset + rows[i])) qv_bit_set(bits, i);
  } else if (w > 0) {
    qv_bytes *v = qv_bytes_alloc(n * w);
    if (!v) goto nomem;
    r->buffers[1] = v;
    uint8_t *dst = qv_bytes_mutable(v);
    const uint8_t *src = a->buffers[1]->data + a->offset * w;
    switch (w) {
      case 1:
        for (int64_t i = 0; i < n; i++) dst[i] = src[rows[i]];
        break;
      case 2:
        for (int64_t i = 0; i < n; i++) memcpy(dst + 2 * i, src + 2 * (int64_t)rows[i], 2);
        break;
      case 4:
        for (int64_t i = 0; i < n; i++) memcpy(dst + 4 * i, src + 4 * (int64_t)rows[i], 4);
        break;
      case 8:
        for (int64_t i = 0; i < n; i++) memcpy(dst + 8 * i, src + 8 * (int64_t)rows[i], 8);
        break;
      default:
        for (int64_t i = 0; i < n; i++) memcpy(dst + w * i, src + w * (int64_t)rows[i], (size_t)w);
        break;
    }
  } else { /* string / binary */
    const int32_t *off = qv_array_offsets(a);
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) total += off[rows[i] + 1] - off[rows[i]];
    if (total > INT32_MAX) {
      st = qv_error_set(err, QV_ERR_OVERFLOW, "take: %lld bytes of strings exceed one array's 2 GiB", (long long)total);
      goto cleanup;
    }
    qv_bytes *ob = qv_bytes_alloc((n + 1) * 4);
    qv_bytes *db = qv_bytes_alloc(total);
    r->buffers[1] = ob;
    r->buffers[2] = db;
    if (!ob || !db) goto nomem;
    int32_t *o = (int32_t *)qv_bytes_mutable(ob);
    uint8_t *d = qv_bytes_mutable(db);
    int32_t pos = 0;
    o[0] = 0;
    const uint8_t *chars = a->buffers[2]->data;
    for (int64_t i = 0; i < n; i++) {
      int32_t len = off[rows[i] + 1] - off[rows[i]];
      memcpy(d + pos, chars + off[rows[i]], (size_t)len);
      pos += len;
      o[i + 1] = pos;
    }
  }
  *out = r;
  return QV_OK;
nomem:
  st = qv_error_nomem(err, NULL);
cleanup:
  qv_array_release(r);
  return st;
}

qv_status qv_array_take(const qv_array *a, const uint32_t *rows, int64_t n, qv_array **out, qv_error *err) {
  for (int64_t i = 0; i < n; i++)
    if ((int64_t)rows[i] >= a->length)
      return qv_error_set(err, QV_ERR_INVALID, "take: row %u is outside an array of %lld rows", rows[i],
                          (long long)a->length);
  if (a->type.id == QV_TYPE_DICTIONARY) return qvc_dictionary_take(a, rows, n, out, err);
  if (a->type.id != QV_TYPE_LIST && a->type.id != QV_TYPE_STRUCT && a->type.id != QV_TYPE_FIXED_SIZE_LIST &&
      a->type.id != QV_TYPE_NULL)
    return take_flat(a, rows, n, out, err);
  qv_builder b;
  QV_RETURN_NOT_OK(qv_builder_init(&b, &a->type, err));
  for (int64_t i = 0; i < n; i++) {
    qv_status st = qv_builder_append_from(&b, a, rows[i]);
    if (st != QV_OK) {
      qv_builder_reset(&b);
      return qv_error_set(err, st, "take: cannot copy row %u", rows[i]);
    }
  }
  return qv_builder_finish(&b, out, err);
}

/* Concatenation of flat arrays by whole buffers: values copied with memcpy,
 * bits with qv_bitmap_copy, string offsets rebased. */
static qv_status concat_flat(qv_array *const *arrays, int32_t n, int64_t total, qv_array **out, qv_error *err) {
  const qv_datatype *type = &arrays[0]->type;
  int w = qv_type_byte_width(type->id);
  bool nulls = false;
  int64_t chars = 0;
  for (int32_t k = 0; k < n; k++) {
    if (arrays[k]->null_count != 0 && arrays[k]->buffers[0]) nulls = true;
    if (w < 0) chars += qv_array_offsets(arrays[k])[arrays[k]->length] - qv_array_offsets(arrays[k])[0];
  }
  if (chars > INT32_MAX)
    return qv_error_set(err, QV_ERR_OVERFLOW, "concat: %lld bytes of strings exceed one array's 2 GiB",
                        (long long)chars);
  qv_bytes *validity = nulls ? qv_bytes_alloc(qv_bitmap_bytes(total)) : NULL;
  /* values, offsets and string bytes are all written below; bits are copied into zeros */
  qv_bytes *values =
      w == 0 ? qv_bytes_alloc(qv_bitmap_bytes(total)) : qv_bytes_alloc_uninit(w > 0 ? total * w : (total + 1) * 4);
  qv_bytes *data = w < 0 ? qv_bytes_alloc_uninit(chars) : NULL;
  if ((nulls && !validity) || !values || (w < 0 && !data)) {
    qv_bytes_release(validity);
    qv_bytes_release(values);
    qv_bytes_release(data);
    return qv_error_nomem(err, NULL);
  }
  int64_t at = 0, pos = 0;
  for (int32_t k = 0; k < n; k++) {
    const qv_array *a = arrays[k];
    if (nulls) {
      if (a->buffers[0]) qv_bitmap_copy(qv_bytes_mutable(validity), at, a->buffers[0]->data, a->offset, a->length);
      else
        for (int64_t i = 0; i < a->length; i++) qv_bit_set(qv_bytes_mutable(validity), at + i);
    }
    if (w > 0) {
      memcpy(qv_bytes_mutable(values) + at * w, a->buffers[1]->data + a->offset * w, (size_t)(a->length * w));
    } else if (w == 0) {
      qv_bitmap_copy(qv_bytes_mutable(values), at, a->buffers[1]->data, a->offset, a->length);
    } else {
      const int32_t *o = qv_array_offsets(a);
      int32_t *dst = (int32_t *)qv_bytes_mutable(values);
      int32_t len = o[a->length] - o[0];
      for (int64_t i = 0; i < a->length; i++) dst[at + i] = (int32_t)pos + (o[i] - o[0]);
      if (len) memcpy(qv_bytes_mutable(data) + pos, a->buffers[2]->data + o[0], (size_t)len);
      pos += len;
    }
    at += a->length;
  }
  if (w < 0) ((int32_t *)qv_bytes_mutable(values))[total] = (int32_t)pos;
  return qv_array_from_buffers(type, total, validity, values, data, out, err);
}

qv_status qv_array_concat(qv_array *const *arrays, int32_t n, qv_array **out, qv_error *err) {
  if (n <= 0) return qv_error_set(err, QV_ERR_INVALID, "concat of no arrays");
  if (n == 1) {
    *out = qv_array_retain(arrays[0]);
    return QV_OK;
  }
  int64_t total = 0;
  for (int32_t k = 0; k < n; k++) {
    if (!qv_datatype_equal(&arrays[k]->type, &arrays[0]->type))
      return qv_error_set(err, QV_ERR_TYPE, "concat: array %d has a different type", k);
    total += arrays[k]->length;
  }
  qv_type_id id = arrays[0]->type.id;
  if (id == QV_TYPE_DICTIONARY) /* each array may have its own dictionary */
    return qv_error_set(err, QV_ERR_UNSUPPORTED, "concat: dictionary arrays must be decoded first");
  if (id != QV_TYPE_NULL && id != QV_TYPE_LIST && id != QV_TYPE_STRUCT && id != QV_TYPE_FIXED_SIZE_LIST)
    return concat_flat(arrays, n, total, out, err);
  /* Nested types (and null) go value by value through a builder. */
  qv_builder b;
  QV_RETURN_NOT_OK(qv_builder_init(&b, &arrays[0]->type, err));
  for (int32_t k = 0; k < n; k++) {
    for (int64_t i = 0; i < arrays[k]->length; i++) {
      qv_status st = qv_builder_append_from(&b, arrays[k], i);
      if (st != QV_OK) {
        qv_builder_reset(&b);
        return qv_error_set(err, st, "concat: cannot copy row %lld of array %d", (long long)i, k);
      }
    }
  }
  return qv_builder_finish(&b, out, err);
}

static qv_status need(const qv_bytes *b, int64_t bytes, const char *what, qv_error *err) {
  if (!b) return qv_error_set(err, QV_ERR_CORRUPT, "array: missing %s buffer", what);
  if (b->size < bytes)
    return qv_error_set(err, QV_ERR_CORRUPT, "array: %s buffer has %lld bytes, needs %lld", what, (long long)b->size,
                        (long long)bytes);
  return QV_OK;
}

qv_status qv_array_validate(const qv_array *a, qv_error *err) {
  if (a->length < 0 || a->offset < 0 || a->length > INT64_MAX / 16 - a->offset)
    return qv_error_set(err, QV_ERR_CORRUPT, "array: invalid length %lld or offset %lld", (long long)a->length,
                        (long long)a->offset);
  int64_t end = a->offset + a->length;
  if (a->buffers[0]) QV_RETURN_NOT_OK(need(a->buffers[0], qv_bitmap_bytes(end), "validity", err));
  int w = qv_type_byte_width(a->type.id);
  switch (a->type.id) {
    case QV_TYPE_NULL: return QV_OK;
    case QV_TYPE_BOOL: return need(a->buffers[1], qv_bitmap_bytes(end), "values", err);
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY:
    case QV_TYPE_LIST: {
      QV_RETURN_NOT_OK(need(a->buffers[1], (end + 1) * 4, "offsets", err));
      const int32_t *o = (const int32_t *)a->buffers[1]->data;
      int64_t limit = a->type.id == QV_TYPE_LIST ? (a->n_children == 1 ? a->children[0]->length : -1)
                                                 : (a->buffers[2] ? a->buffers[2]->size : -1);
      if (limit < 0) return qv_error_set(err, QV_ERR_CORRUPT, "array: missing data");
      for (int64_t i = a->offset; i < end; i++)
        if (o[i] < 0 || o[i] > o[i + 1] || o[i + 1] > limit)
          return qv_error_set(err, QV_ERR_CORRUPT, "array: offset %lld (%d..%d) is out of range 0..%lld", (long long)i,
                              o[i], o[i + 1], (long long)limit);
      if (a->type.id == QV_TYPE_STRING) return qvc_utf8_validate_offsets(a, err);
      if (a->type.id == QV_TYPE_LIST) return qv_array_validate(a->children[0], err);
      return QV_OK;
    }
    case QV_TYPE_STRUCT:
      if (a->n_children != a->type.n_children)
        return qv_error_set(err, QV_ERR_CORRUPT, "array: struct has %d children, type says %d", a->n_children,
                            a->type.n_children);
      for (int32_t i = 0; i < a->n_children; i++) {
        if (a->children[i]->length < end)
          return qv_error_set(err, QV_ERR_CORRUPT, "array: struct child %d is too short", i);
        QV_RETURN_NOT_OK(qv_array_validate(a->children[i], err));
      }
      return QV_OK;
    case QV_TYPE_DICTIONARY: return qvc_dictionary_validate(a, err);
    case QV_TYPE_FIXED_SIZE_LIST:
      if (a->n_children != 1 || a->children[0]->length < end * a->type.list_size)
        return qv_error_set(err, QV_ERR_CORRUPT, "array: fixed_size_list child is too short");
      return qv_array_validate(a->children[0], err);
    default: return need(a->buffers[1], end * w, "values", err);
  }
}

qv_status qvc_utf8_validate_offsets(const qv_array *a, qv_error *err) {
  const int32_t *o = qv_array_offsets(a);
  const uint8_t *d = a->buffers[2]->data;
  /* Offsets are validated and monotonic, so the whole covered range can be
   * checked at once as long as no character straddles a boundary; check
   * per string, which also locates the bad row for the message. */
  for (int64_t i = 0; i < a->length; i++) {
    if (!qv_array_is_valid(a, i)) continue;
    int64_t len = o[i + 1] - o[i];
    int64_t ok = qv_utf8_valid_prefix(d + o[i], len);
    if (ok != len)
      return qv_error_set(err, QV_ERR_CORRUPT, "array: row %lld is not valid UTF-8 (byte %lld)", (long long)i,
                          (long long)ok);
  }
  return QV_OK;
}
