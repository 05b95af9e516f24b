/* Which bound trees can fail because of a value (qv_eval_may_fail).
 *
 * Polars evaluates a filter on the whole column: a strict cast that fails
 * on any row raises, whatever the other conjuncts say about that row, and
 * only when/then/otherwise evaluates a branch on the rows that take it.
 * quiver's evaluator and scanner skip rows (filter-first conjuncts, page
 * pruning, index lookups), so they need to know where skipping a row
 * could hide an error: here.  The answer errs on the side of "may fail"
 * (that only costs the skipping); it must never say "cannot fail" of a
 * node whose kernel can raise on a value.  Failures that are not about a
 * value (out of memory, a batch's strings past 2 GiB, a regex engine's
 * match limits) are not counted.  Constant subtrees fail or not whatever
 * the rows are; qv_eval_check folds them before a scan starts.  Lance SQL
 * trees never count (see qv_eval_may_fail). */
#include "compute/compute_int.h"

/* integer-like raw values of a type, for casts that copy them */
static qv_type_id raw_int(const qv_datatype *t) {
  switch (t->id) {
    case QV_TYPE_DATE32: return QV_TYPE_INT32;
    case QV_TYPE_TIMESTAMP:
    case QV_TYPE_TIME64:
    case QV_TYPE_DURATION: return QV_TYPE_INT64;
    default: return qv_type_is_integer(t->id) ? t->id : QV_TYPE_NULL;
  }
}

/* Every value of integer type `from` fits integer type `to`. */
static bool int_fits(qv_type_id from, qv_type_id to) {
  qvk_i128 flo, fhi, tlo, thi;
  qvk_int_range(from, &flo, &fhi);
  qvk_int_range(to, &tlo, &thi);
  return tlo <= flo && fhi <= thi;
}

/* A strict CAST from -> to can fail on some value (cast.c, cast_string.c). */
static bool cast_may_fail(const qv_datatype *from, const qv_datatype *to) {
  qv_type_id f = from->id, t = to->id;
  if (f == QV_TYPE_NULL || qv_datatype_equal(from, to)) return false;
  if (t == QV_TYPE_STRING) return f == QV_TYPE_BINARY; /* formatting never fails; binary must be UTF-8 */
  if (f == QV_TYPE_BOOL) return !(qv_type_is_integer(t) || qv_type_is_floating(t));
  if (t == QV_TYPE_BOOL) return !(qv_type_is_integer(f) || qv_type_is_floating(f));
  if (qv_type_is_floating(t)) return !(qv_type_is_integer(f) || qv_type_is_floating(f) || f == QV_TYPE_DECIMAL128);
  if (qv_type_is_floating(f)) return true; /* NaN, inf and big values have no integer */
  if (f == QV_TYPE_TIMESTAMP && (t == QV_TYPE_DATE32 || t == QV_TYPE_TIME64)) return false; /* floor, time of day */
  /* coarser units floor; a zone change shifts the raw value and can leave the range */
  if (f == t && (f == QV_TYPE_TIMESTAMP || f == QV_TYPE_DURATION || f == QV_TYPE_TIME64))
    return to->unit > from->unit || (f == QV_TYPE_TIMESTAMP && (!from->timezone) != (!to->timezone));
  qv_type_id rf = raw_int(from), rt = raw_int(to);
  /* integers and temporals as raw integers (integer <-> temporal copies them) */
  if (rf != QV_TYPE_NULL && rt != QV_TYPE_NULL && (qv_type_is_integer(f) || qv_type_is_integer(t)))
    return !int_fits(rf, rt) || t == QV_TYPE_TIME64; /* a time of day has a range of its own */
  return true; /* strings to anything, decimals, date <-> timestamp ranges, nested types */
}

/* The node itself (its arguments aside) can fail on a value. */
static bool node_may_fail(const qv_expr *e) {
  switch (e->op) {
    case QV_OP_CAST:
      if (!e->sem.cast_strict || e->n_args != 1) return false;
      if ((e->flags & QV_EXPR_F_WRAP) && qv_type_is_integer(e->type.id) && qv_type_is_integer(e->args[0]->type.id))
        return false;
      return cast_may_fail(&e->args[0]->type, &e->type);
    case QV_OP_ADD:
    case QV_OP_SUB:
    case QV_OP_MUL:
    case QV_OP_DIV:
    case QV_OP_MOD:
    case QV_OP_NEG:
    case QV_OP_ABS:
    case QV_OP_FLOORDIV:
    case QV_OP_POW:
      /* Polars wraps; the Lance language's checked integers fail on overflow and division by zero */
      return e->sem.overflow == QV_OVERFLOW_ERROR && !qv_type_is_floating(e->type.id);
    case QV_OP_LIST_GET: return !(e->flags & QV_EXPR_F_NULL_ON_OOB);
    case QV_OP_STR_SLICE: return true;                                             /* a negative length from a column */
    case QV_OP_LIKE: return e->n_args >= 2 && e->args[1]->kind != QV_EXPR_LITERAL; /* a pattern per row */
    case QV_OP_DT_TRUNCATE:
    case QV_OP_DATE_TRUNC: return true; /* can truncate outside the type's range */
    default: return false;
  }
}

static bool constant(const qv_expr *e) {
  if (e->kind == QV_EXPR_COLUMN) return false;
  for (int32_t i = 0; i < e->n_args; i++)
    if (e->args[i] && !constant(e->args[i])) return false;
  return true;
}

static bool may_fail(const qv_expr *e, int depth) {
  if (!e || e->kind != QV_EXPR_CALL) return false;
  if (depth > 4096) return true; /* the binder bounds depth; a backstop that errs safe */
  if (constant(e)) return false;
  if (node_may_fail(e)) return true;
  for (int32_t i = 0; i < e->n_args; i++)
    if (may_fail(e->args[i], depth + 1)) return true;
  return false;
}

static bool has_polars_node(const qv_expr *e, int depth) {
  if (!e || e->kind != QV_EXPR_CALL || depth > 4096) return false;
  if (qvk_polars_node(e)) return true;
  for (int32_t i = 0; i < e->n_args; i++)
    if (has_polars_node(e->args[i], depth + 1)) return true;
  return false;
}

/* Only trees of the Polars front ends: the Lance language keeps its
 * filter-first AND (`x != 0 AND 10 / x > 1` never divides by zero), which
 * its users write as a guard. */
bool qv_eval_may_fail(const qv_expr *e) { return has_polars_node(e, 0) && may_fail(e, 0); }
