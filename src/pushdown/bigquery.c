/* Polars IR -> BigQuery Storage Read API row_restriction (docs/ARCHITECTURE.md,
 * decisions 2 and 3).
 *
 * Two contexts.  In filter context (pos) a translation keeps at least the
 * rows Polars keeps: AND may drop a conjunct that does not translate (the
 * result is then inexact, a superset), ~(a | b) becomes (~a) & (~b) by De
 * Morgan so that rule still applies, and when/then/otherwise becomes the
 * null-safe conditional ((p AND t) OR ((NOT COALESCE(p, FALSE)) AND f)),
 * whose TRUE rows are exactly Polars' when p, t and f keep exactly Polars'
 * TRUE rows.  In value context (val: under NOT, comparison operands,
 * function arguments, IF branches) a translation must give the same
 * TRUE/FALSE/NULL as Polars on every row, or it declines.
 *
 * Floats: BigQuery compares by IEEE rules (NaN is unordered, never equal),
 * Polars orders NaN above everything and equal to itself.  So x > c,
 * x >= c and x != c against a number get a guard `OR IS_NAN(x)` when x may
 * be a float, and two expressions of which one is a float compare through
 * IS_NAN guards that keep Polars' order and NULLs (float_pair); without
 * known numeric types they do not push.
 * Arithmetic and casts do not translate: BigQuery raises on division by
 * zero, overflow and bad strict casts where Polars gives null or wraps.
 *
 * The limits of the Storage Read API (node budget, 1 MB) and the public
 * entry points are in bigquery_restriction.c. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr_lit.h"
#include "expr/op_info.h"
#include "pushdown/bigquery_int.h"
#include "pushdown/pushdown_int.h"

/* The context and piece types (qvp_bq, qvp_bq_res) live in bigquery_int.h,
 * shared with bigquery_restriction.c, which owns the budget and the whole
 * restriction. */
typedef qvp_bq bq;
typedef qvp_bq_res res;

void qvp_bq_res_free(res *r) {
  qvb_text_free(&r->sql);
  for (int32_t i = 0; i < r->n_extra; i++) qv_free(r->extra[i]);
  qv_free(r->extra);
  memset(r, 0, sizeof *r);
}

static void add_extra(bq *t, res *r, const char *s) {
  for (int32_t i = 0; i < r->n_extra; i++)
    if (strcmp(r->extra[i], s) == 0) return;
  if (r->n_extra == r->cap_extra) {
    int32_t cap = r->cap_extra ? r->cap_extra * 2 : 4;
    char **v = qv_realloc(r->extra, (size_t)cap * sizeof *v);
    if (!v) {
      t->oom = true;
      return;
    }
    r->extra = v;
    r->cap_extra = cap;
  }
  char *c = qv_strdup(s);
  if (!c) {
    t->oom = true;
    return;
  }
  r->extra[r->n_extra++] = c;
}

/* Moves src's extras into dst. */
void qvp_bq_take_extras(bq *t, res *dst, res *src) {
  for (int32_t i = 0; i < src->n_extra; i++) add_extra(t, dst, src->extra[i]);
}

/* Records why e declines (pushdown/decline.c spells the line); returns
 * false so callers can `return decline(...)`.  The subtree of a node the
 * budget degraded may be as deep and wide as the caller could build, so it
 * is not printed; long trees (an is_in of 10,000 values) are cut. */
static bool decline(bq *t, const qv_expr *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static bool decline(bq *t, const qv_expr *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  qvp_pd_vdecline(&t->why, &t->oom, e, !qvp_bq_is_over(t, e), 300, fmt, ap);
  va_end(ap);
  return false;
}

/* ---- types ------------------------------------------------------------ */

static const qv_datatype *column_type(const bq *t, const qv_expr *e) {
  if (!t->schema || e->kind != QV_EXPR_COLUMN) return NULL;
  int32_t i = qv_schema_find(t->schema, e->name);
  return i < 0 ? NULL : &t->schema->fields[i].type;
}

/* A node's type where it can be told without binding; QV_TYPE_NULL when
 * unknown (schema-less columns and what is built from them, and anything
 * more than 64 levels down: the answer only ever makes a check stricter). */
static qv_type_id type_of_d(const bq *t, const qv_expr *e, int depth);
static qv_type_id type_of(const bq *t, const qv_expr *e) { return type_of_d(t, e, 0); }

static qv_type_id type_of_d(const bq *t, const qv_expr *e, int depth) {
  if (depth > 64) return QV_TYPE_NULL;
  if (e->kind == QV_EXPR_LITERAL) return e->value.type.id;
  if (e->kind == QV_EXPR_COLUMN) {
    const qv_datatype *d = column_type(t, e);
    return d ? d->id : QV_TYPE_NULL;
  }
  switch (e->op) {
    case QV_OP_EQ:
    case QV_OP_NE:
    case QV_OP_LT:
    case QV_OP_LE:
    case QV_OP_GT:
    case QV_OP_GE:
    case QV_OP_IS_NULL:
    case QV_OP_IS_NOT_NULL:
    case QV_OP_IN:
    case QV_OP_STARTS_WITH:
    case QV_OP_ENDS_WITH:
    case QV_OP_CONTAINS:
    case QV_OP_REGEXP_MATCH:
    case QV_OP_ISNAN:
    case QV_OP_IS_NOT_NAN:
    case QV_OP_IS_FINITE:
    case QV_OP_IS_INFINITE:
    case QV_OP_EQ_MISSING:
    case QV_OP_NE_MISSING: return QV_TYPE_BOOL;
    case QV_OP_AND:
    case QV_OP_OR:
    case QV_OP_XOR:
    case QV_OP_NOT:
      for (int32_t i = 0; i < e->n_args; i++)
        if (type_of_d(t, e->args[i], depth + 1) != QV_TYPE_BOOL) return QV_TYPE_NULL;
      return QV_TYPE_BOOL;
    case QV_OP_LOWER:
    case QV_OP_UPPER: return QV_TYPE_STRING;
    case QV_OP_WHEN:
    case QV_OP_COALESCE:
    case QV_OP_FILL_NULL:
    case QV_OP_DROP_NULLS:
    case QV_OP_ALL_HORIZONTAL:
    case QV_OP_ANY_HORIZONTAL: break;
    default: return QV_TYPE_NULL;
  }
  /* The common type of the results (when: t1, t2, ..., otherwise): one
   * type, or int with float; dynamic (Python) literals take the other
   * side's type; null literals fit any. */
  qv_type_id r = QV_TYPE_NULL;
  bool dyn_float = false;
  for (int32_t i = 0; i < e->n_args; i++) {
    if (e->op == QV_OP_WHEN && i % 2 == 0 && i != e->n_args - 1) continue; /* a predicate */
    const qv_expr *a = e->args[i];
    if (qve_is_null_lit(a)) continue;
    if (qve_is_lit(a) && (a->flags & QV_EXPR_F_DYNAMIC)) {
      dyn_float = dyn_float || qv_type_is_floating(a->value.type.id);
      continue;
    }
    qv_type_id ai = type_of_d(t, a, depth + 1);
    if (ai == QV_TYPE_NULL) return QV_TYPE_NULL;
    if (r == QV_TYPE_NULL) {
      r = ai;
    } else if (r != ai) {
      bool num =
          (qv_type_is_integer(r) || qv_type_is_floating(r)) && (qv_type_is_integer(ai) || qv_type_is_floating(ai));
      if (!num) return QV_TYPE_NULL;
      r = QV_TYPE_FLOAT64;
    }
  }
  if (dyn_float && r != QV_TYPE_NULL && qv_type_is_integer(r)) r = QV_TYPE_FLOAT64;
  return r;
}

/* 1 date, 2 naive timestamp (DATETIME), 3 zoned timestamp (TIMESTAMP), 0
 * anything else or unknown.  BigQuery compares these kinds only with
 * themselves, where Polars converts a date to midnight. */
static int temporal_kind(const bq *t, const qv_expr *e) {
  const qv_datatype *d = e->kind == QV_EXPR_LITERAL ? &e->value.type : column_type(t, e);
  if (!d || qve_is_null_lit(e)) return 0;
  if (d->id == QV_TYPE_DATE32) return 1;
  if (d->id == QV_TYPE_TIMESTAMP) return d->timezone ? 3 : 2;
  return 0;
}

static bool temporal_clash(const bq *t, const qv_expr *x, const qv_expr *y) {
  int kx = temporal_kind(t, x), ky = temporal_kind(t, y);
  return kx && ky && kx != ky;
}

/* Could the value be a float (NaN)?  Unknown types could. */
static bool maybe_float(const bq *t, const qv_expr *e) {
  qv_type_id id = type_of(t, e);
  return id == QV_TYPE_NULL || qv_type_is_floating(id);
}
/* Known not to be a boolean (Polars' & | ~ are then bitwise). */
bool qvp_bq_known_non_bool(const bq *t, const qv_expr *e) {
  qv_type_id id = type_of(t, e);
  return id != QV_TYPE_NULL && id != QV_TYPE_BOOL;
}

/* ---- value context ---------------------------------------------------- */

static bool val(bq *t, const qv_expr *e, res *r);

/* Appends c's SQL to r and takes its extras. */
static void put(bq *t, res *r, res *c) {
  qvb_text_add(&r->sql, c->sql.p ? c->sql.p : "", c->sql.n);
  if (c->sql.oom) r->sql.oom = true;
  qvp_bq_take_extras(t, r, c);
}

static bool column(bq *t, const qv_expr *e, res *r) {
  if (t->schema && qv_schema_find(t->schema, e->name) < 0)
    return decline(t, e, "no column `%s` in the table schema", e->name);
  qvb_text_s(&r->sql, "`");
  qvb_text_s(&r->sql, e->name);
  qvb_text_s(&r->sql, "`");
  return true;
}

/* Translates args[from..n) of e in value context into parts (all of them,
 * so explain sees every decline); true when all did. */
static bool val_args(bq *t, const qv_expr *e, int32_t from, res *parts) {
  bool ok = true;
  for (int32_t i = from; i < e->n_args; i++)
    if (!val(t, e->args[i], &parts[i])) ok = false;
  return ok;
}

/* fn(a, b, ...) over every argument of e. */
static bool call_fn(bq *t, const qv_expr *e, const char *fn, res *r) {
  if (e->n_args > 64) return decline(t, e, "too many arguments");
  res parts[64];
  memset(parts, 0, sizeof(res) * (size_t)e->n_args);
  bool ok = val_args(t, e, 0, parts);
  if (ok) {
    qvb_text_s(&r->sql, fn);
    qvb_text_s(&r->sql, "(");
    for (int32_t i = 0; i < e->n_args; i++) {
      if (i) qvb_text_s(&r->sql, ", ");
      put(t, r, &parts[i]);
    }
    qvb_text_s(&r->sql, ")");
  }
  for (int32_t i = 0; i < e->n_args; i++) qvp_bq_res_free(&parts[i]);
  return ok;
}

/* Every argument is something other than a bare NULL literal. */
static bool no_null_args(bq *t, const qv_expr *e) {
  for (int32_t i = 0; i < e->n_args; i++)
    if (qve_is_null_lit(e->args[i]))
      return decline(t, e, "a bare NULL literal operand (use is_null / is_not_null for NULL checks)");
  return true;
}

static bool is_number_type(qv_type_id id) { return qv_type_is_integer(id) || id == QV_TYPE_FLOAT64; }

/* Two expressions, at least one a float, compared with Polars' order (NaN
 * equal to NaN and above every number) in IEEE BigQuery.  Each form gives
 * Polars' TRUE/FALSE/NULL on every row (a NULL side keeps the result NULL):
 *   x = y   ((x = y) OR (IS_NAN(x) AND IS_NAN(y)))
 *   x != y  ((x != y) AND (NOT (IS_NAN(x) AND IS_NAN(y))))
 *   x > y   ((x > y) OR (IS_NAN(x) AND (NOT IS_NAN(y))))
 *   x >= y  ((x >= y) OR (IS_NAN(x) AND (y IS NOT NULL)))
 * and x < y, x <= y as y > x, y >= x in the guard.  Both types must be known
 * numbers: IS_NAN of anything else is an error in BigQuery. */
static bool float_pair(bq *t, const qv_expr *e, res *a, res *b, res *r) {
  qv_type_id xt = type_of(t, e->args[0]), yt = type_of(t, e->args[1]);
  if (!is_number_type(xt) || !is_number_type(yt))
    return decline(t, e,
                   xt == QV_TYPE_FLOAT32 || yt == QV_TYPE_FLOAT32
                       ? "a float32 side: BigQuery has only FLOAT64"
                       : "two sides that may be floats and are not both known numbers: NaN is ordered "
                         "differently by Polars and BigQuery, and IS_NAN needs numbers");
  const char *x = a->sql.p, *y = b->sql.p;
  bool swap = e->op == QV_OP_LT || e->op == QV_OP_LE;
  const char *p = swap ? y : x, *q = swap ? x : y; /* the side that is greater when NaN */
  const char *op = qvp_pd_cmp_sql(e->op);
  switch (e->op) {
    case QV_OP_EQ: qvb_text_f(&r->sql, "((%s = %s) OR (IS_NAN(%s) AND IS_NAN(%s)))", x, y, x, y); break;
    case QV_OP_NE: qvb_text_f(&r->sql, "((%s != %s) AND (NOT (IS_NAN(%s) AND IS_NAN(%s))))", x, y, x, y); break;
    case QV_OP_GT:
    case QV_OP_LT: qvb_text_f(&r->sql, "((%s %s %s) OR (IS_NAN(%s) AND (NOT IS_NAN(%s))))", x, op, y, p, q); break;
    default: qvb_text_f(&r->sql, "((%s %s %s) OR (IS_NAN(%s) AND (%s IS NOT NULL)))", x, op, y, p, q); break;
  }
  qvp_bq_take_extras(t, r, a);
  qvp_bq_take_extras(t, r, b);
  return true;
}

static bool bq_compare(bq *t, const qv_expr *e, res *r) {
  const qv_expr *x = e->args[0], *y = e->args[1];
  if (!no_null_args(t, e)) return false;
  res a = {0}, b = {0};
  bool ok = val(t, x, &a);
  ok = val(t, y, &b) && ok;
  if (!ok) goto cleanup;
  const char *op = qvp_pd_cmp_sql(e->op);
  if (temporal_clash(t, x, y)) {
    ok = decline(t, e, "a date, a DATETIME and a TIMESTAMP compare only with their own kind in BigQuery");
    goto cleanup;
  }
  if (!qve_is_lit(x) && !qve_is_lit(y)) {
    if (maybe_float(t, x) || maybe_float(t, y)) {
      ok = float_pair(t, e, &a, &b, r);
      goto cleanup;
    }
  } else if (qve_is_lit(x) != qve_is_lit(y)) {
    const qv_expr *side = qve_is_lit(x) ? y : x, *lit = qve_is_lit(x) ? x : y;
    qv_type_id st = type_of(t, side);
    if (st == QV_TYPE_FLOAT32) {
      ok = decline(t, e, "a float32 side: Polars rounds the literal to float32, BigQuery has only FLOAT64");
      goto cleanup;
    }
    qv_op eff = qve_is_lit(x) ? qv_op_mirror(e->op) : e->op;
    if (qve_is_num_lit(lit) && maybe_float(t, side) && (eff == QV_OP_GT || eff == QV_OP_GE || eff == QV_OP_NE)) {
      /* Polars keeps NaN rows here (NaN is above everything and unequal
       * to every number); BigQuery's IEEE comparison would drop them. */
      qvb_text_f(&r->sql, "((%s %s %s) OR IS_NAN(%s))", a.sql.p, op, b.sql.p, qve_is_lit(x) ? b.sql.p : a.sql.p);
      qvp_bq_take_extras(t, r, &a);
      qvp_bq_take_extras(t, r, &b);
      goto cleanup;
    }
  }
  qvb_text_f(&r->sql, "(%s %s %s)", a.sql.p, op, b.sql.p);
  qvp_bq_take_extras(t, r, &a);
  qvp_bq_take_extras(t, r, &b);
cleanup:
  qvp_bq_res_free(&a);
  qvp_bq_res_free(&b);
  return ok;
}

/* NOT x in value context: (NOT x), with ~(a | b) as ((NOT a) AND (NOT b)). */
static bool val_not(bq *t, const qv_expr *x, res *r) {
  if (qve_is_null_lit(x)) return decline(t, x, "NOT of a bare NULL literal");
  if (qvp_bq_known_non_bool(t, x)) return decline(t, x, "~ of a non-boolean is bitwise in Polars");
  if (x->kind == QV_EXPR_CALL && x->op == QV_OP_OR && x->n_args == 2 && !qvp_bq_is_over(t, x)) {
    res a = {0}, b = {0};
    bool ok = val_not(t, x->args[0], &a);
    ok = val_not(t, x->args[1], &b) && ok;
    if (ok) {
      qvb_text_f(&r->sql, "(%s AND %s)", a.sql.p, b.sql.p);
      qvp_bq_take_extras(t, r, &a);
      qvp_bq_take_extras(t, r, &b);
    }
    qvp_bq_res_free(&a);
    qvp_bq_res_free(&b);
    return ok;
  }
  res a = {0};
  bool ok = val(t, x, &a);
  if (ok) {
    qvb_text_f(&r->sql, "(NOT %s)", a.sql.p);
    qvp_bq_take_extras(t, r, &a);
  }
  qvp_bq_res_free(&a);
  return ok;
}

static bool bq_logic(bq *t, const qv_expr *e, res *r) {
  for (int32_t i = 0; i < e->n_args; i++)
    if (qvp_bq_known_non_bool(t, e->args[i]))
      return decline(t, e, "on non-booleans Polars' %s is bitwise", qv_op_name(e->op));
  if (e->op == QV_OP_NOT) return val_not(t, e->args[0], r);
  res a = {0}, b = {0};
  bool ok = val(t, e->args[0], &a);
  ok = val(t, e->args[1], &b) && ok;
  if (ok) {
    qvb_text_f(&r->sql, "(%s %s %s)", a.sql.p, e->op == QV_OP_AND ? "AND" : "OR", b.sql.p);
    qvp_bq_take_extras(t, r, &a);
    qvp_bq_take_extras(t, r, &b);
  } else {
    qvb_text_f(&t->why, "declined %s: an operand does not translate exactly\n", qv_op_name(e->op));
  }
  qvp_bq_res_free(&a);
  qvp_bq_res_free(&b);
  return ok;
}

/* when/then/otherwise producing a value: IF(p, t, f) or CASE WHEN ... END.
 * IF and CASE take a NULL condition as not true, as Polars does, so a
 * predicate needs only an exact filter translation. */
static bool bq_when(bq *t, const qv_expr *e, res *r) {
  int32_t n = e->n_args, pairs = (n - 1) / 2;
  bool any_value = false;
  for (int32_t i = 0; i < pairs; i++) {
    if (qve_is_null_lit(e->args[2 * i])) return decline(t, e, "a NULL predicate");
    if (!qve_is_null_lit(e->args[2 * i + 1])) any_value = true;
  }
  if (!qve_is_null_lit(e->args[n - 1])) any_value = true;
  if (!any_value) return decline(t, e, "every result is NULL");
  res *parts = qv_calloc((size_t)n, sizeof *parts);
  if (!parts) {
    t->oom = true;
    return false;
  }
  bool ok = true;
  for (int32_t i = 0; i < n; i++) {
    bool pred = i < n - 1 && i % 2 == 0;
    if (pred) {
      if (!qvp_bq_pos(t, e->args[i], false, &parts[i])) ok = false;
      else if (!parts[i].exact) ok = decline(t, e->args[i], "a when predicate that translates only as a superset");
    } else if (!val(t, e->args[i], &parts[i])) {
      ok = false;
    }
  }
  if (ok && pairs == 1) {
    qvb_text_s(&r->sql, "IF(");
    put(t, r, &parts[0]);
    qvb_text_s(&r->sql, ", ");
    put(t, r, &parts[1]);
    qvb_text_s(&r->sql, ", ");
    put(t, r, &parts[2]);
    qvb_text_s(&r->sql, ")");
  } else if (ok) {
    qvb_text_s(&r->sql, "CASE");
    for (int32_t i = 0; i < pairs; i++) {
      qvb_text_s(&r->sql, " WHEN ");
      put(t, r, &parts[2 * i]);
      qvb_text_s(&r->sql, " THEN ");
      put(t, r, &parts[2 * i + 1]);
    }
    if (!qve_is_null_lit(e->args[n - 1])) {
      qvb_text_s(&r->sql, " ELSE ");
      put(t, r, &parts[n - 1]);
    }
    qvb_text_s(&r->sql, " END");
  }
  for (int32_t i = 0; i < n; i++) qvp_bq_res_free(&parts[i]);
  qv_free(parts);
  return ok;
}

static bool bq_in_list(bq *t, const qv_expr *e, res *r) {
  if (e->sem.in_nulls_equal) return decline(t, e, "is_in(nulls_equal=True): SQL IN never matches NULL");
  if (qve_is_null_lit(e->args[0])) return decline(t, e, "is_in of a bare NULL literal");
  if (e->n_args > 1 && temporal_clash(t, e->args[0], e->args[1]))
    return decline(t, e, "a date, a DATETIME and a TIMESTAMP compare only with their own kind in BigQuery");
  res a = {0};
  if (!val(t, e->args[0], &a)) {
    qvp_bq_res_free(&a);
    return false;
  }
  char why[200];
  bool oom = false;
  qvb_text items = {0};
  bool ok = qvp_bq_in_items((const qv_expr *const *)e->args + 1, e->n_args - 1, &items, why, sizeof why, &oom);
  if (oom) t->oom = true;
  if (ok) {
    qvb_text_f(&r->sql, "(%s IN (%s))", a.sql.p, items.p);
    qvp_bq_take_extras(t, r, &a);
  } else {
    decline(t, e, "%s", why);
  }
  qvb_text_free(&items);
  qvp_bq_res_free(&a);
  return ok;
}

static bool bq_nan_test(bq *t, const qv_expr *e, res *r) {
  qv_type_id id = type_of(t, e->args[0]);
  if (!no_null_args(t, e)) return false;
  if (id != QV_TYPE_NULL && !qv_type_is_integer(id) && !qv_type_is_floating(id))
    return decline(t, e, "the NaN tests apply to numbers");
  res a = {0};
  bool ok = val(t, e->args[0], &a);
  if (ok) {
    const char *x = a.sql.p;
    switch (e->op) {
      case QV_OP_ISNAN: qvb_text_f(&r->sql, "IS_NAN(%s)", x); break;
      case QV_OP_IS_NOT_NAN: qvb_text_f(&r->sql, "(NOT IS_NAN(%s))", x); break;
      case QV_OP_IS_INFINITE: qvb_text_f(&r->sql, "IS_INF(%s)", x); break;
      default: qvb_text_f(&r->sql, "(NOT IS_INF(%s) AND NOT IS_NAN(%s))", x, x); break;
    }
    qvp_bq_take_extras(t, r, &a);
  }
  qvp_bq_res_free(&a);
  return ok;
}

/* The string functions need a string subject (and pattern). */
static bool strings_only(bq *t, const qv_expr *e) {
  if (!no_null_args(t, e)) return false;
  for (int32_t i = 0; i < e->n_args; i++) {
    qv_type_id id = type_of(t, e->args[i]);
    if (id != QV_TYPE_NULL && id != QV_TYPE_STRING) return decline(t, e, "%s of a non-string", qv_op_name(e->op));
  }
  return true;
}

static bool bq_fill_null(bq *t, const qv_expr *e, res *r) {
  if (e->n_args == 2) return call_fn(t, e, "IFNULL", r);
  const char *s = e->name ? e->name : "";
  const char *v = strcmp(s, "zero") == 0 ? "0" : strcmp(s, "one") == 0 ? "1" : NULL;
  if (!v) return decline(t, e, "fill_null(strategy='%s') looks at other rows", s);
  qv_type_id id = type_of(t, e->args[0]);
  if (id != QV_TYPE_NULL && !qv_type_is_integer(id) && !qv_type_is_floating(id))
    return decline(t, e, "fill_null(strategy='%s') of a non-number", s);
  res a = {0};
  bool ok = val(t, e->args[0], &a);
  if (ok) {
    qvb_text_f(&r->sql, "IFNULL(%s, %s)", a.sql.p, v);
    qvp_bq_take_extras(t, r, &a);
  }
  qvp_bq_res_free(&a);
  return ok;
}

/* all_horizontal / any_horizontal of one argument: the argument */
static bool bq_bool_horizontal(bq *t, const qv_expr *e, res *r) {
  if (e->n_args != 1) return decline(t, e, "an empty horizontal");
  return val(t, e->args[0], r);
}

static bool bq_null_test(bq *t, const qv_expr *e, res *r) {
  if (!no_null_args(t, e)) return false;
  res a = {0};
  bool ok = val(t, e->args[0], &a);
  if (ok) {
    qvb_text_f(&r->sql, "(%s %s)", a.sql.p, qv_op_name(e->op));
    qvp_bq_take_extras(t, r, &a);
  }
  qvp_bq_res_free(&a);
  return ok;
}

static bool bq_drop_nulls(bq *t, const qv_expr *e, res *r) {
  if (!no_null_args(t, e)) return false;
  res a = {0};
  bool ok = val(t, e->args[0], &a);
  if (ok) {
    /* drop_nulls shortens the column; BigQuery drops those rows
     * first, so the local re-filter sees no nulls left to drop. */
    put(t, r, &a);
    qvb_text c = {0};
    qvb_text_f(&c, "(%s IS NOT NULL)", a.sql.p);
    if (c.oom) t->oom = true;
    else add_extra(t, r, c.p);
    qvb_text_free(&c);
  }
  qvp_bq_res_free(&a);
  return ok;
}

static bool bq_contains(bq *t, const qv_expr *e, res *r) {
  if (!strings_only(t, e)) return false;
  const qv_expr *p = e->args[1];
  if (!qve_is_str_lit(p) || p->value.len == 0)
    return decline(t, e,
                   "str.contains(literal=True) with a computed or empty pattern (STRPOS of '' is not "
                   "pinned down here)");
  res a = {0}, b = {0};
  bool ok = val(t, e->args[0], &a) && val(t, p, &b);
  if (ok) {
    qvb_text_f(&r->sql, "(STRPOS(%s, %s) > 0)", a.sql.p, b.sql.p);
    qvp_bq_take_extras(t, r, &a);
  }
  qvp_bq_res_free(&a);
  qvp_bq_res_free(&b);
  return ok;
}

static bool bq_regexp_match(bq *t, const qv_expr *e, res *r) {
  if (e->flags & QV_EXPR_F_LENIENT)
    return decline(t, e, "str.contains(strict=False): an invalid regex is null in Polars, an error in BigQuery");
  if (e->n_args != 2 || !strings_only(t, e)) return e->n_args != 2 ? decline(t, e, "regex flags") : false;
  const qv_expr *p = e->args[1];
  if (!qve_is_str_lit(p)) return decline(t, e, "a computed regex: whether RE2 reads it as Polars does is unknown");
  const char *why = qvp_bq_regex_incompatible((const char *)p->value.bytes, (size_t)p->value.len);
  if (why) return decline(t, e, "%s", why);
  return call_fn(t, e, "REGEXP_CONTAINS", r);
}

/* The BQ column of expr/ops.def: a same-arguments function (over strings
 * only, for BQ_STRING_FN), a reason to decline, or a bq_<x> above. */
typedef struct lowering {
  bool (*custom)(bq *t, const qv_expr *e, res *r);
  const char *fn;
  bool strings;
  const char *why;
} lowering;
#define QV_BQ_ARITH_WHY \
  "arithmetic does not push: BigQuery raises on division by zero and overflow where Polars gives null or wraps"
#define BQ_FN(f) \
  { NULL, f, false, NULL }
#define BQ_STRING_FN(f) \
  { NULL, f, true, NULL }
#define BQ_DECLINE(w) \
  { NULL, NULL, false, w }
#define BQ_UNSUPPORTED \
  { NULL, NULL, false, NULL }
#define BQ_CUSTOM(x) \
  { bq_##x, NULL, false, NULL }
#define QV_OP_ROW(id, name, lo, hi, cls, mirror, sql, print, bind, kernel, lance, bq) bq,
static const lowering lowerings[QV_OP__COUNT] = {
#include "expr/ops.def"
};
#undef QV_OP_ROW

static bool val_call(bq *t, const qv_expr *e, res *r) {
  static const lowering none = BQ_UNSUPPORTED;
  const lowering *l = (unsigned)e->op < (unsigned)QV_OP__COUNT ? &lowerings[e->op] : &none;
  if (l->custom) return l->custom(t, e, r);
  if (l->fn) return (!l->strings || strings_only(t, e)) && call_fn(t, e, l->fn, r);
  if (l->why) return decline(t, e, "%s", l->why);
  return decline(t, e, "%s is not in the BigQuery translation set", qv_op_name(e->op));
}

static bool val(bq *t, const qv_expr *e, res *r) {
  r->exact = true;
  if (qvp_bq_is_over(t, e))
    return decline(t, e, "past the budget of %d nodes or %d levels: filtered locally", QV_BQ_MAX_NODES,
                   QV_BQ_MAX_DEPTH);
  bool ok;
  if (e->kind == QV_EXPR_COLUMN) {
    ok = column(t, e, r);
  } else if (e->kind == QV_EXPR_LITERAL) {
    const char *why = NULL;
    if (e->value.is_null) {
      qvb_text_s(&r->sql, "NULL"); /* where a NULL is no comparison operand: when branches, coalesce */
      ok = true;
    } else {
      ok = qvp_bq_literal(&e->value, &r->sql, &why) || decline(t, e, "%s", why);
    }
  } else {
    ok = val_call(t, e, r);
  }
  if (ok && r->sql.n > QV_BQ_MAX_SQL) {
    qvp_bq_res_free(r);
    return decline(t, e, "longer than the %d-byte row_restriction limit", QV_BQ_MAX_SQL);
  }
  return ok;
}

/* ---- filter context --------------------------------------------------- */

enum { W_FAIL, W_NEVER, W_OK };

/* Joins two filter pieces with AND, dropping a missing one (a superset). */
static int and_pieces(bq *t, bool oka, res *a, bool okb, res *b, res *r, const char *what) {
  if (oka && okb) {
    qvb_text_f(&r->sql, "(%s AND %s)", a->sql.p, b->sql.p);
    r->exact = a->exact && b->exact;
    qvp_bq_take_extras(t, r, a);
    qvp_bq_take_extras(t, r, b);
    return W_OK;
  }
  if (!oka && !okb) return W_FAIL;
  res *one = oka ? a : b;
  put(t, r, one);
  r->exact = false;
  qvb_text_f(&t->why, "dropped %s: the filter keeps a superset\n", what);
  return W_OK;
}

/* when(args[i], args[i+1], ..., otherwise) from pair i on, as a filter:
 * ((p AND t) OR ((NOT COALESCE(p, FALSE)) AND rest)).  A NULL or FALSE
 * result can never be true, so its arm is left out (W_NEVER). */
static int pos_when(bq *t, const qv_expr *e, int32_t i, res *r) {
  int32_t n = e->n_args;
  r->exact = true;
  if (i == n - 1) {
    const qv_expr *f = e->args[i];
    if (qve_is_null_lit(f) || qve_is_false_lit(f)) return W_NEVER;
    return qvp_bq_pos(t, f, false, r) ? W_OK : W_FAIL;
  }
  const qv_expr *p = e->args[i], *th = e->args[i + 1];
  if (qve_is_null_lit(p)) {
    decline(t, e, "a NULL predicate");
    return W_FAIL;
  }
  res pr = {0}, tr = {0}, rest = {0}, arm1 = {0}, arm2 = {0};
  bool okp = qvp_bq_pos(t, p, false, &pr);
  int ts = (qve_is_null_lit(th) || qve_is_false_lit(th)) ? W_NEVER : (qvp_bq_pos(t, th, false, &tr) ? W_OK : W_FAIL);
  int rs = pos_when(t, e, i + 2, &rest);
  int a1 = W_NEVER, a2 = W_NEVER, out = W_FAIL;
  arm1.exact = arm2.exact = true;
  if (ts != W_NEVER) a1 = and_pieces(t, okp, &pr, ts == W_OK, &tr, &arm1, "a condition of when/then");
  if (rs != W_NEVER) {
    /* The negated predicate must be exact: a superset negated is a subset. */
    bool guard = okp && pr.exact;
    res g = {0};
    g.exact = true;
    if (guard) qvb_text_f(&g.sql, "(NOT COALESCE(%s, FALSE))", pr.sql.p);
    a2 = and_pieces(t, guard, &g, rs == W_OK, &rest, &arm2, "a condition of when/otherwise");
    qvp_bq_res_free(&g);
  }
  if (a1 == W_FAIL || a2 == W_FAIL) {
    decline(t, e, "a branch of when/then/otherwise has nothing to push");
  } else if (a1 == W_NEVER && a2 == W_NEVER) {
    out = W_NEVER;
  } else if (a1 == W_NEVER || a2 == W_NEVER) {
    res *one = a1 == W_NEVER ? &arm2 : &arm1;
    put(t, r, one);
    r->exact = one->exact;
    out = W_OK;
  } else {
    qvb_text_f(&r->sql, "(%s OR %s)", arm1.sql.p, arm2.sql.p);
    r->exact = arm1.exact && arm2.exact;
    qvp_bq_take_extras(t, r, &arm1);
    qvp_bq_take_extras(t, r, &arm2);
    out = W_OK;
  }
  if (out == W_OK && r->sql.n > QV_BQ_MAX_SQL) {
    decline(t, e, "longer than the %d-byte row_restriction limit", QV_BQ_MAX_SQL);
    out = W_FAIL;
  }
  qvp_bq_res_free(&pr);
  qvp_bq_res_free(&tr);
  qvp_bq_res_free(&rest);
  qvp_bq_res_free(&arm1);
  qvp_bq_res_free(&arm2);
  return out;
}

/* e (or NOT e when neg) as a filter: r keeps at least Polars' rows;
 * r->exact when exactly them. */
bool qvp_bq_pos(bq *t, const qv_expr *e, bool neg, res *r) {
  r->exact = true;
  if (qvp_bq_is_over(t, e))
    return decline(t, e, "past the budget of %d nodes or %d levels: filtered locally", QV_BQ_MAX_NODES,
                   QV_BQ_MAX_DEPTH);
  if (e->kind == QV_EXPR_CALL) {
    bool and_like = (e->op == QV_OP_AND && !neg) || (e->op == QV_OP_OR && neg);
    if (and_like && e->n_args == 2) {
      if (qvp_bq_known_non_bool(t, e->args[0]) || qvp_bq_known_non_bool(t, e->args[1]))
        return decline(t, e, "on non-booleans Polars' %s is bitwise", qv_op_name(e->op));
      res a = {0}, b = {0};
      bool oka = qvp_bq_pos(t, e->args[0], neg, &a);
      bool okb = qvp_bq_pos(t, e->args[1], neg, &b);
      int st = and_pieces(t, oka, &a, okb, &b, r, "a conjunct of AND");
      qvp_bq_res_free(&a);
      qvp_bq_res_free(&b);
      return st == W_OK;
    }
    if (e->op == QV_OP_OR && !neg && e->n_args == 2) {
      if (qvp_bq_known_non_bool(t, e->args[0]) || qvp_bq_known_non_bool(t, e->args[1]))
        return decline(t, e, "on non-booleans Polars' | is bitwise");
      res a = {0}, b = {0};
      bool oka = qvp_bq_pos(t, e->args[0], false, &a);
      bool okb = qvp_bq_pos(t, e->args[1], false, &b);
      bool ok = oka && okb && a.exact && b.exact;
      if (ok) {
        qvb_text_f(&r->sql, "(%s OR %s)", a.sql.p, b.sql.p);
        qvp_bq_take_extras(t, r, &a);
        qvp_bq_take_extras(t, r, &b);
      } else {
        qvb_text_s(&t->why, "declined OR: every branch must translate exactly\n");
      }
      qvp_bq_res_free(&a);
      qvp_bq_res_free(&b);
      return ok;
    }
    if (e->op == QV_OP_NOT && !neg && e->n_args == 1) {
      if (qvp_bq_known_non_bool(t, e->args[0])) return decline(t, e, "~ of a non-boolean is bitwise in Polars");
      return qvp_bq_pos(t, e->args[0], true, r);
    }
    if ((e->op == QV_OP_ALL_HORIZONTAL || e->op == QV_OP_ANY_HORIZONTAL) && e->n_args == 1)
      return qvp_bq_pos(t, e->args[0], neg, r);
    if (e->op == QV_OP_WHEN && !neg && e->n_args >= 3 && e->n_args % 2 == 1) {
      int st = pos_when(t, e, 0, r);
      if (st == W_NEVER) return decline(t, e, "no branch can be true");
      return st == W_OK;
    }
  }
  if (qve_is_null_lit(e)) return decline(t, e, "a bare NULL literal as a filter");
  return neg ? val_not(t, e, r) : val(t, e, r);
}
