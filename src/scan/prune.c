/* Page pruning: deciding from a page's min/max/null/NaN statistics that no
 * row in it can satisfy a conjunct of the filter.
 *
 * Statistics hold min and max over the non-null, non-NaN values.  A float
 * page containing NaN is never pruned (NaN is the greatest value in the
 * total order Lance uses, and IEEE makes it unordered: either way it breaks
 * interval reasoning), and a zero bound is widened to both zeros so that
 * every float order agrees with the interval test.
 *
 * Null rows: a comparison, BETWEEN and IN (but IN with nulls_equal and a
 * null in its list) are null on them, IS NOT NULL false, IS NULL true;
 * every other node (eq_missing, fill_null, coalesce, when/then, NOT) is
 * never used to prune, since it can be true on a null row. */
#include <math.h>
#include <string.h>

#include "expr/expr_lit.h"
#include "scan/scan_int.h"
#include "expr/op_info.h"

static int cmp3(qv_int128 a, qv_int128 b) { return (a > b) - (a < b); }

/* Total order on doubles: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < NaN. */
static int64_t total_key(double d) {
  int64_t k;
  memcpy(&k, &d, 8);
  return k ^ (int64_t)((uint64_t)(k >> 63) >> 1);
}

static bool as_int128(const qv_scalar *s, qv_int128 *out) {
  qv_type_id id = s->type.id;
  if (!qv_type_is_integer(id)) return false;
  *out = qv_type_is_signed(id) ? (qv_int128)s->v.i : (qv_int128)s->v.u;
  return true;
}

bool qvsc_scalar_order(const qv_scalar *a, const qv_scalar *b, int *out) {
  qv_int128 x, y;
  if (as_int128(a, &x) && as_int128(b, &y)) {
    *out = cmp3(x, y);
    return true;
  }
  if (qv_type_is_floating(a->type.id) && qv_type_is_floating(b->type.id)) {
    int64_t ka = total_key(a->v.f), kb = total_key(b->v.f);
    *out = (ka > kb) - (ka < kb);
    return true;
  }
  if (!qv_datatype_equal(&a->type, &b->type)) return false;
  switch (a->type.id) {
    case QV_TYPE_BOOL: *out = (int)a->v.b - (int)b->v.b; return true;
    case QV_TYPE_DATE32:
    case QV_TYPE_TIMESTAMP:
    case QV_TYPE_TIME64:
    case QV_TYPE_DURATION: *out = (a->v.i > b->v.i) - (a->v.i < b->v.i); return true;
    case QV_TYPE_DECIMAL128: {
      qv_int128 p = (qv_int128)(((qv_uint128)(uint64_t)a->v.dec.hi << 64) | a->v.dec.lo);
      qv_int128 q = (qv_int128)(((qv_uint128)(uint64_t)b->v.dec.hi << 64) | b->v.dec.lo);
      *out = cmp3(p, q);
      return true;
    }
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: {
      int64_t n = a->len < b->len ? a->len : b->len;
      int c = n ? memcmp(a->bytes, b->bytes, (size_t)n) : 0;
      *out = c ? (c > 0) - (c < 0) : (a->len > b->len) - (a->len < b->len);
      return true;
    }
    default: return false;
  }
}

/* The column a conjunct side reads, seeing through integer widening casts
 * (the binder inserts those); -1 when the side is something else. */
static bool widens(qv_type_id from, qv_type_id to) {
  if (!qv_type_is_integer(from) || !qv_type_is_integer(to)) return false;
  int wf = qv_type_byte_width(from), wt = qv_type_byte_width(to);
  if (qv_type_is_signed(from) == qv_type_is_signed(to)) return wt >= wf;
  return !qv_type_is_signed(from) && wt > wf; /* unsigned into a wider signed type */
}

static int32_t column_of(const qv_expr *e) {
  if (e->kind == QV_EXPR_COLUMN) return e->column;
  if (e->kind == QV_EXPR_CALL && e->op == QV_OP_CAST && e->args[0]->kind == QV_EXPR_COLUMN &&
      widens(e->args[0]->type.id, e->type.id))
    return e->args[0]->column;
  return -1;
}

/* A page's value interval, with zeros widened (see the file comment). */
typedef struct interval {
  qv_scalar lo, hi; /* shallow copies of the stats; only v.f may differ */
  bool usable;
} interval;

static interval page_interval(const qv_page_stats *st, const qv_expr *lit) {
  interval iv = {st->min, st->max, false};
  if (st->min.is_null || st->max.is_null) return iv;
  if (qv_type_is_floating(st->min.type.id)) {
    if (st->nan_count > 0 || !qv_type_is_floating(lit->value.type.id) || isnan(lit->value.v.f)) return iv;
    if (iv.lo.v.f == 0.0) iv.lo.v.f = -0.0;
    if (iv.hi.v.f == 0.0) iv.hi.v.f = 0.0;
  }
  iv.usable = true;
  return iv;
}

/* True when `column op v` is false or null for every value in iv. */
static bool cmp_excludes(qv_op op, const interval *iv, const qv_scalar *v) {
  int vs_lo, vs_hi;
  if (!qvsc_scalar_order(v, &iv->lo, &vs_lo) || !qvsc_scalar_order(v, &iv->hi, &vs_hi)) return false;
  switch (op) {
    case QV_OP_EQ: return vs_lo < 0 || vs_hi > 0;
    case QV_OP_NE: {
      int lo_hi;
      return vs_lo == 0 && vs_hi == 0 && qvsc_scalar_order(&iv->lo, &iv->hi, &lo_hi) && lo_hi == 0 &&
             !qv_type_is_floating(v->type.id); /* -0.0 vs +0.0 differ in some orders */
    }
    case QV_OP_LT: return vs_lo <= 0; /* lo >= v */
    case QV_OP_LE: return vs_lo < 0;  /* lo > v */
    case QV_OP_GT: return vs_hi >= 0; /* hi <= v */
    case QV_OP_GE: return vs_hi > 0;  /* hi < v */
    default: return false;
  }
}

bool qvsc_interval_excludes(qv_op op, const qv_scalar *lo, const qv_scalar *hi, const qv_scalar *v) {
  interval iv = {*lo, *hi, true};
  return cmp_excludes(op, &iv, v);
}

static bool all_null(const qv_page_stats *st, int64_t rows) { return st->null_count >= rows; }

bool qvsc_prune_page(const qv_expr *e, const qv_page_stats *const *stats, int64_t rows) {
  if (e->kind != QV_EXPR_CALL) return false;
  if (qve_op_is_compare(e->op)) {
    const qv_expr *col = e->args[0], *lit = e->args[1];
    qv_op op = e->op;
    if (column_of(col) < 0) {
      col = e->args[1];
      lit = e->args[0];
      op = qv_op_mirror(op);
    }
    int32_t c = column_of(col);
    if (c < 0 || !qve_is_value_lit(lit)) return false;
    if (all_null(stats[c], rows)) return true;
    interval iv = page_interval(stats[c], lit);
    return iv.usable && cmp_excludes(op, &iv, &lit->value);
  }
  switch (e->op) {
    case QV_OP_BETWEEN: {
      int32_t c = column_of(e->args[0]);
      if (c < 0 || !qve_is_value_lit(e->args[1]) || !qve_is_value_lit(e->args[2])) return false;
      if (all_null(stats[c], rows)) return true;
      interval iv = page_interval(stats[c], e->args[1]);
      interval iv2 = page_interval(stats[c], e->args[2]);
      return iv.usable && iv2.usable &&
             (cmp_excludes(QV_OP_GE, &iv, &e->args[1]->value) || cmp_excludes(QV_OP_LE, &iv, &e->args[2]->value));
    }
    case QV_OP_IN: {
      int32_t c = column_of(e->args[0]);
      if (c < 0) return false;
      /* Under nulls_equal (Polars is_in(..., nulls_equal=True)) a null row
       * is found when the list holds a null: such a page keeps every row. */
      bool finds_null = false;
      for (int32_t i = 1; i < e->n_args; i++) finds_null |= e->sem.in_nulls_equal && qve_is_null_lit(e->args[i]);
      if (all_null(stats[c], rows)) return !finds_null;
      for (int32_t i = 1; i < e->n_args; i++) {
        if (!qve_is_value_lit(e->args[i])) return false;
        interval iv = page_interval(stats[c], e->args[i]);
        if (!iv.usable || !cmp_excludes(QV_OP_EQ, &iv, &e->args[i]->value)) return false;
      }
      return true;
    }
    case QV_OP_IS_NULL: {
      int32_t c = column_of(e->args[0]);
      return c >= 0 && stats[c]->null_count == 0;
    }
    case QV_OP_IS_NOT_NULL: {
      int32_t c = column_of(e->args[0]);
      return c >= 0 && all_null(stats[c], rows);
    }
    case QV_OP_OR: return qvsc_prune_page(e->args[0], stats, rows) && qvsc_prune_page(e->args[1], stats, rows);
    case QV_OP_AND: return qvsc_prune_page(e->args[0], stats, rows) || qvsc_prune_page(e->args[1], stats, rows);
    default: return false;
  }
}

bool qvsc_prune_applicable(const qv_expr *e) {
  if (e->kind != QV_EXPR_CALL) return false;
  if (qvsc_mono_applicable(e)) return true;
  if (qve_op_is_compare(e->op))
    return (column_of(e->args[0]) >= 0 && qve_is_value_lit(e->args[1])) ||
           (column_of(e->args[1]) >= 0 && qve_is_value_lit(e->args[0]));
  switch (e->op) {
    case QV_OP_BETWEEN:
    case QV_OP_IN:
    case QV_OP_IS_NULL:
    case QV_OP_IS_NOT_NULL: return column_of(e->args[0]) >= 0;
    case QV_OP_OR: return qvsc_prune_applicable(e->args[0]) && qvsc_prune_applicable(e->args[1]);
    case QV_OP_AND: return qvsc_prune_applicable(e->args[0]) || qvsc_prune_applicable(e->args[1]);
    default: return false;
  }
}
