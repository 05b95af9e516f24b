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
#include "expr/op_info.h"

/* Ops whose answer for a row depends only on that row's value and that
 * cannot fail because of a value. */
static bool per_value(qv_op op) {
  if (qve_op_is_compare(op) || qve_op_is_test(op)) return true;
  switch (op) {
    case QV_OP_IN:
    case QV_OP_BETWEEN:
    case QV_OP_LIKE:
    case QV_OP_STARTS_WITH:
    case QV_OP_ENDS_WITH:
    case QV_OP_CONTAINS:
    case QV_OP_REGEXP_LIKE:
    case QV_OP_REGEXP_MATCH:
    case QV_OP_ISNAN: return true;
    default: return false;
  }
}

static bool is_dict(const qvk_datum *d) { return !d->scalar && d->array->type.id == QV_TYPE_DICTIONARY; }

/* The dictionary entry of rows [start, start + n) of d, or null_key for a
 * null row.  qv_array_dictionary checked every non-null index against the
 * dictionary, so no index is out of range here. */
#define KEYS(T)                                                                      \
  do {                                                                               \
    const T *ix = (const T *)a->buffers[1]->data + a->offset;                        \
    if (!vb && !d->idx) {                                                            \
      for (int64_t i = 0; i < n; i++) keys[i] = (uint32_t)ix[start + i];             \
    } else {                                                                         \
      for (int64_t i = 0; i < n; i++) {                                              \
        int64_t r = qvk_row(d, start + i);                                           \
        keys[i] = vb && !qv_bit_get(vb, a->offset + r) ? null_key : (uint32_t)ix[r]; \
      }                                                                              \
    }                                                                                \
  } while (0)
static void row_keys(const qvk_datum *d, int64_t start, int64_t n, uint32_t null_key, uint32_t *keys) {
  const qv_array *a = d->array;
  const uint8_t *vb = a->buffers[0] && a->null_count != 0 ? a->buffers[0]->data : NULL;
  switch (a->type.children[0].type.id) {
    case QV_TYPE_INT8: KEYS(int8_t); break;
    case QV_TYPE_UINT8: KEYS(uint8_t); break;
    case QV_TYPE_INT16: KEYS(int16_t); break;
    case QV_TYPE_UINT16: KEYS(uint16_t); break;
    case QV_TYPE_INT32: KEYS(int32_t); break;
    case QV_TYPE_UINT32: KEYS(uint32_t); break;
    default: KEYS(int64_t); break; /* int64, uint64 */
  }
}
#undef KEYS

#define MAP_BLOCK 2048 /* rows per block of keys on the stack: a multiple of 64 */

/* A bool answer per entry (r) to a bool array for the n rows of d: one
 * byte table (bit 0 the value, bit 1 validity), small enough to stay in
 * cache, looked up by the rows' keys a block at a time; no validity bitmap
 * when no entry is null. */
static qv_status map_bool(const qv_array *r, const qvk_datum *d, int64_t n, uint32_t null_key, qv_array **out,
                          qv_error *err) {
  int64_t nd = r->length, nb = qvk_words(n) * 8;
  uint8_t *tab = qv_malloc((size_t)(nd > 0 ? nd : 1));
  if (!tab) return qv_error_nomem(err, "eval");
  bool nulls = false;
  const uint8_t *bits = r->buffers[1]->data;
  for (int64_t k = 0; k < nd; k++) {
    bool valid = qv_array_is_valid(r, k);
    nulls |= !valid;
    tab[k] = (uint8_t)((valid ? 2 : 0) | (valid && qv_bit_get(bits, r->offset + k)));
  }
  qv_bytes *values = qvk_bytes(nb, err), *validity = values && nulls ? qvk_bytes(nb, err) : NULL;
  if (!values || (nulls && !validity)) {
    qv_free(tab);
    qv_bytes_release(values);
    return QV_ERR_NOMEM;
  }
  uint64_t *vw = (uint64_t *)qv_bytes_mutable(values);
  uint64_t *mw = validity ? (uint64_t *)qv_bytes_mutable(validity) : NULL;
  uint32_t keys[MAP_BLOCK];
  uint8_t tv[64], tm[64];
  for (int64_t start = 0; start < n; start += MAP_BLOCK) {
    int64_t m = n - start < MAP_BLOCK ? n - start : MAP_BLOCK;
    row_keys(d, start, m, null_key, keys);
    for (int64_t base = 0; base < m; base += 64) {
      int64_t q = m - base < 64 ? m - base : 64;
      memset(tv, 0, sizeof tv);
      memset(tm, 0, sizeof tm);
      for (int64_t j = 0; j < q; j++) {
        uint8_t t = tab[keys[base + j]];
        tv[j] = t & 1;
        tm[j] = t >> 1;
      }
      vw[(start + base) >> 6] = qvk_pack64(tv);
      if (mw) mw[(start + base) >> 6] = qvk_pack64(tm);
    }
  }
  qv_free(tab);
  return qvk_bool_result(n, values, validity, out, err);
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
    st = qv_error_nomem(c->err, "eval");
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
  qv_array *mapped = NULL;
  st = qvk_datum_dense(&one, &r); /* results are dense already; keeps the contract */
  if (st != QV_OK) goto cleanup;
  if (r.array->type.id == QV_TYPE_BOOL) {
    st = map_bool(r.array, &args[pos], c->n, (uint32_t)dict->length, &mapped, c->err);
  } else { /* no such op today (they all answer bool); kept general */
    keys = qv_malloc((size_t)(c->n > 0 ? c->n : 1) * sizeof *keys);
    if (!keys) {
      st = qv_error_set(c->err, QV_ERR_NOMEM, "eval: out of memory for %lld rows", (long long)c->n);
      goto cleanup;
    }
    row_keys(&args[pos], 0, c->n, (uint32_t)dict->length, keys);
    st = qv_array_take(r.array, keys, c->n, &mapped, c->err);
  }
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
  bool position_ok = pos == 0 || (pos == 1 && qve_op_is_compare(e->op));
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
