/* Dictionary-encoded arrays: construction (indices range-checked once, so
 * readers can trust them), decoding to a plain array, and the views the
 * generic array operations use (take keeps the dictionary, concat refuses,
 * validate checks the indices against the dictionary).
 *
 * Nothing in quiver produces these yet (IPC and C Data imports decode
 * dictionaries, storage decodes its dictionary pages); they exist so that
 * compute can evaluate a predicate once per dictionary entry instead of
 * once per row (src/compute/dictionary.c). */
#include <string.h>

#include "columnar/columnar_int.h"
#include "columnar/ipc_int.h"

static int64_t index_at(const qv_array *a, int64_t j) {
  const uint8_t *p = a->buffers[1]->data;
  switch (a->type.children[0].type.id) {
    case QV_TYPE_INT8: return ((const int8_t *)p)[j];
    case QV_TYPE_UINT8: return p[j];
    case QV_TYPE_INT16: return ((const int16_t *)p)[j];
    case QV_TYPE_UINT16: return ((const uint16_t *)p)[j];
    case QV_TYPE_INT32: return ((const int32_t *)p)[j];
    case QV_TYPE_UINT32: return ((const uint32_t *)p)[j];
    case QV_TYPE_INT64: return ((const int64_t *)p)[j];
    default: {
      uint64_t u = ((const uint64_t *)p)[j];
      return u > INT64_MAX ? -1 : (int64_t)u;
    }
  }
}

qv_status qvc_dictionary_indices_view(const qv_array *a, qv_array **out, qv_error *err) {
  qv_array *v = qvc_array_new(&a->type.children[0].type, a->length);
  if (!v) return qv_error_nomem(err, NULL);
  v->offset = a->offset;
  v->null_count = a->null_count;
  v->buffers[0] = qv_bytes_retain(a->buffers[0]);
  v->buffers[1] = qv_bytes_retain(a->buffers[1]);
  *out = v;
  return QV_OK;
}

/* Whether every int32 index, null rows' included, lies in [0, d): one
 * pass the compiler vectorizes, for the common case (a scan's dictionary
 * pages) before the row-by-row check that names a bad one. */
static bool int32_indices_in_range(const qv_array *a, int64_t d) {
  if (a->type.children[0].type.id != QV_TYPE_INT32) return false;
  const int32_t *ix = (const int32_t *)(const void *)a->buffers[1]->data + a->offset;
  int32_t lo = 0, hi = 0;
  for (int64_t i = 0; i < a->length; i++) {
    lo = ix[i] < lo ? ix[i] : lo;
    hi = ix[i] > hi ? ix[i] : hi;
  }
  return lo >= 0 && (int64_t)hi < d;
}

/* Every non-null index of a lies in its dictionary. */
static qv_status check_indices(const qv_array *a, const char *where, qv_error *err) {
  int64_t d = a->children[0]->length;
  if (a->length > 0 && d > 0 && int32_indices_in_range(a, d)) return QV_OK;
  for (int64_t i = 0; i < a->length; i++) {
    if (!qv_array_is_valid(a, i)) continue;
    int64_t k = index_at(a, a->offset + i);
    if (k < 0 || k >= d)
      return qv_error_set(err, QV_ERR_INVALID, "%s: index %lld at row %lld is outside a dictionary of %lld values",
                          where, (long long)k, (long long)i, (long long)d);
  }
  return QV_OK;
}

qv_status qv_array_dictionary(qv_array *indices, qv_array *values, qv_array **out, qv_error *err) {
  qv_status st = QV_OK;
  qv_datatype vt = QV_DATATYPE_INIT, t = QV_DATATYPE_INIT;
  qv_array *a = NULL;
  if (!qv_type_is_integer(indices->type.id) || indices->n_children != 0) {
    st = qv_error_set(err, QV_ERR_TYPE, "dictionary: indices must be integers");
    goto cleanup;
  }
  if (qv_datatype_copy(&values->type, &vt) != QV_OK) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  if ((st = qv_datatype_dictionary(indices->type.id, &vt, &t, err)) != QV_OK) goto cleanup;
  a = qvc_array_new(&t, indices->length);
  if (!a || qvc_array_alloc_children(a, 1) != QV_OK) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  a->offset = indices->offset;
  a->null_count = indices->buffers[0] ? indices->null_count : 0;
  a->buffers[0] = qv_bytes_retain(indices->buffers[0]);
  a->buffers[1] = qv_bytes_retain(indices->buffers[1]);
  a->children[0] = values;
  values = NULL;
  if ((st = check_indices(a, "dictionary", err)) != QV_OK) goto cleanup;
  *out = a;
  a = NULL;
cleanup:
  qv_array_release(a);
  qv_array_release(indices);
  qv_array_release(values);
  qv_datatype_reset(&vt);
  qv_datatype_reset(&t);
  return st;
}

qv_status qv_array_dictionary_decode(const qv_array *a, qv_array **out, qv_error *err) {
  if (a->type.id != QV_TYPE_DICTIONARY || a->n_children != 1)
    return qv_error_set(err, QV_ERR_TYPE, "dictionary: not a dictionary array");
  qv_array *idx = NULL;
  QV_RETURN_NOT_OK(qvc_dictionary_indices_view(a, &idx, err));
  qv_status st = qvc_dictionary_decode(idx, a->children[0], out, "dictionary", err);
  qv_array_release(idx);
  return st;
}

qv_status qvc_dictionary_take(const qv_array *a, const uint32_t *rows, int64_t n, qv_array **out, qv_error *err) {
  qv_array *idx = NULL, *taken = NULL;
  QV_RETURN_NOT_OK(qvc_dictionary_indices_view(a, &idx, err));
  qv_status st = qv_array_take(idx, rows, n, &taken, err);
  qv_array_release(idx);
  if (st != QV_OK) return st;
  return qv_array_dictionary(taken, qv_array_retain(a->children[0]), out, err);
}

qv_status qvc_dictionary_validate(const qv_array *a, qv_error *err) {
  if (a->n_children != 1 || a->type.n_children != 2 || !a->children[0])
    return qv_error_set(err, QV_ERR_CORRUPT, "array: a dictionary needs one dictionary child");
  int w = qv_type_byte_width(a->type.children[0].type.id);
  if (!qv_type_is_integer(a->type.children[0].type.id) ||
      !qv_datatype_equal(&a->children[0]->type, &a->type.children[1].type))
    return qv_error_set(err, QV_ERR_CORRUPT, "array: dictionary child does not match the type");
  if (!a->buffers[1] || a->buffers[1]->size < (a->offset + a->length) * w)
    return qv_error_set(err, QV_ERR_CORRUPT, "array: dictionary indices buffer is too short");
  QV_RETURN_NOT_OK(qv_array_validate(a->children[0], err));
  return check_indices(a, "array", err);
}

int64_t qvc_dictionary_index(const qv_array *a, int64_t i) { return index_at(a, a->offset + i); }
