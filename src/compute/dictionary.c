/* Dictionary-encoded arguments in the evaluator.
 *
 * A predicate of one dictionary column against constants (x op s, x IN
 * (...), x BETWEEN lo AND hi, LIKE, starts_with, regex, IS NULL, isnan,
 * ...) is evaluated once per dictionary entry, by the ordinary kernel on
 * the dictionary's values, and the per-entry answers are then mapped to
 * the rows through the indices: the work on values is proportional to the
 * dictionary, not to the rows.  The dictionary is given one extra null
 * entry that every null row maps to, so a null row gets exactly what the
 * kernel answers for a null (null for a comparison, TRUE for IS NULL, the
 * list's null for IN with nulls_equal) and a row whose dictionary entry is
 * null is null because the kernel saw a null, never an empty value that
 * happens to match.
 *
 * Everything else that receives a dictionary argument (column against
 * column, arithmetic, casts, which could fail on an entry no row uses)
 * gets the column decoded to plain values first. */
#include "compute/compute_int.h"

/* Ops whose answer for a row depends only on that row's value and that
 * cannot fail because of a value. */
static bool per_value(qv_op op) {
  switch (op) {
    case QV_OP_EQ: case QV_OP_NE: case QV_OP_LT: case QV_OP_LE: case QV_OP_GT: case QV_OP_GE:
    case QV_OP_IN: case QV_OP_BETWEEN:
    case QV_OP_IS_NULL: case QV_OP_IS_NOT_NULL: case QV_OP_IS_TRUE: case QV_OP_IS_NOT_TRUE:
    case QV_OP_IS_FALSE: case QV_OP_IS_NOT_FALSE:
    case QV_OP_LIKE: case QV_OP_STARTS_WITH: case QV_OP_ENDS_WITH: case QV_OP_CONTAINS:
    case QV_OP_REGEXP_LIKE: case QV_OP_REGEXP_MATCH: case QV_OP_ISNAN:
      return true;
    default: return false;
  }
}

static bool is_dict(const qvk_datum *d) { return !d->scalar && d->array->type.id == QV_TYPE_DICTIONARY; }

/* Index of element j of a dictionary array's indices, for a valid row. */
static inline int64_t index_of(const qv_array *a, int64_t j) {
  const uint8_t *p = a->buffers[1]->data;
  switch (a->type.children[0].type.id) {
    case QV_TYPE_INT8: return ((const int8_t *)p)[j];
    case QV_TYPE_UINT8: return p[j];
    case QV_TYPE_INT16: return ((const int16_t *)p)[j];
    case QV_TYPE_UINT16: return ((const uint16_t *)p)[j];
    case QV_TYPE_INT32: return ((const int32_t *)p)[j];
    case QV_TYPE_UINT32: return ((const uint32_t *)p)[j];
    default: return ((const int64_t *)p)[j]; /* int64, uint64: checked in range at construction */
  }
}

/* The dictionary entry of each of the n rows of d, or null_key for a null
 * row.  qv_array_dictionary checked every non-null index against the
 * dictionary, so no index is out of range here. */
static void row_keys(const qvk_datum *d, int64_t n, uint32_t null_key, uint32_t *keys) {
  const qv_array *a = d->array;
  const uint8_t *vb = a->buffers[0] && a->null_count != 0 ? a->buffers[0]->data : NULL;
  for (int64_t i = 0; i < n; i++) {
    int64_t r = qvk_row(d, i);
    keys[i] = vb && !qv_bit_get(vb, a->offset + r) ? null_key : (uint32_t)index_of(a, a->offset + r);
  }
}

/* e over the entries of the dictionary of args[pos] (plus one null entry),
 * then mapped to the rows. */
static qv_status per_entry(qvk_ctx *c, const qv_expr *e, qvk_datum *args, int32_t pos, qvk_datum *out,
                           qvk_op_fn dispatch) {
  const qv_array *dict = args[pos].array->children[0];
  if (dict->length >= UINT32_MAX)
    return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "eval: a dictionary of %lld values", (long long)dict->length);
  qv_array *null1 = NULL, *ext = NULL;
  qvk_datum stack[4], *sub = stack, r = QVK_DATUM_INIT, entries = QVK_DATUM_INIT;
  uint32_t *keys = NULL;
  qv_status st = qv_array_make_null(&dict->type, 1, &null1, c->err);
  if (st == QV_OK) {
    qv_array *parts[2] = {(qv_array *)dict, null1};
    st = qv_array_concat(parts, 2, &ext, c->err);
  }
  if (st == QV_OK && e->n_args > 4 && !(sub = qv_malloc((size_t)e->n_args * sizeof *sub)))
    st = qv_error_set(c->err, QV_ERR_NOMEM, "eval: out of memory");
  if (st != QV_OK) goto cleanup;
  /* The other arguments are scalars: shallow copies read the same values
   * (a copy's scalar points at the original's storage, so resetting the
   * copy, which drops whatever array a kernel put there, frees nothing of
   * the original). */
  for (int32_t k = 0; k < e->n_args; k++) sub[k] = args[k];
  qvk_datum_set_array(&entries, ext);
  ext = NULL;
  sub[pos] = (qvk_datum)QVK_DATUM_INIT;
  qvk_datum_set_array(&sub[pos], qv_array_retain(entries.array));
  qvk_ctx one = {c->batch, NULL, entries.array->length, NULL, 0, c->err};
  st = dispatch(&one, e, sub, &r);
  for (int32_t k = 0; k < e->n_args; k++) qvk_datum_reset(&sub[k]);
  if (st != QV_OK) goto cleanup;
  if (r.scalar) { /* the same answer for every entry, so for every row */
    qvk_datum_move(out, &r);
    goto cleanup;
  }
  keys = qv_malloc((size_t)(c->n > 0 ? c->n : 1) * sizeof *keys);
  if (!keys) {
    st = qv_error_set(c->err, QV_ERR_NOMEM, "eval: out of memory for %lld rows", (long long)c->n);
    goto cleanup;
  }
  row_keys(&args[pos], c->n, (uint32_t)dict->length, keys);
  qv_array *mapped = NULL;
  st = qvk_datum_dense(&one, &r); /* results are dense already; keeps the contract */
  if (st == QV_OK) st = qv_array_take(r.array, keys, c->n, &mapped, c->err);
  if (st == QV_OK) qvk_datum_set_array(out, mapped);
cleanup:
  qvk_datum_reset(&r);
  qvk_datum_reset(&entries);
  qv_array_release(null1);
  qv_array_release(ext);
  qv_free(keys);
  if (sub != stack) qv_free(sub);
  return st;
}

qv_status qvk_dict_call(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out, qvk_op_fn dispatch,
                        bool *handled) {
  *handled = false;
  int32_t nd = 0, pos = -1, arrays = 0;
  for (int32_t k = 0; k < e->n_args; k++) {
    if (!args[k].scalar) arrays++;
    if (!args[k].scalar && is_dict(&args[k])) {
      nd++;
      pos = k;
    }
  }
  if (nd == 0) return QV_OK;
  bool position_ok = pos == 0 || (pos == 1 && e->op >= QV_OP_EQ && e->op <= QV_OP_GE);
  if (nd == 1 && arrays == 1 && position_ok && per_value(e->op)) {
    *handled = true;
    return per_entry(c, e, args, pos, out, dispatch);
  }
  for (int32_t k = 0; k < e->n_args; k++) {
    if (!is_dict(&args[k])) continue;
    qv_array *plain = NULL;
    QV_RETURN_NOT_OK(qv_array_dictionary_decode(args[k].array, &plain, c->err));
    qv_array_release(args[k].array);
    args[k].array = plain;
    args[k].column = -1; /* not the batch's column any more: never cached as its gather */
  }
  return QV_OK;
}
