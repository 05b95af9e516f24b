/* Reading a bound conjunct as a question an index can answer: which
 * column, which values (as key ranges, trigrams or labels), negated or
 * not, exact or a superset.  Anything not understood is "cannot answer";
 * the scanner then evaluates the conjunct itself.
 *
 * Nulls: every comparison, IN, BETWEEN, LIKE, starts_with and array_has*
 * is null (so not kept) where the column is null, and is true or false
 * elsewhere.  That is what lets NOT be answered as "the non-null rows not
 * in the answer" -- and why IN with a null in its list is not negated
 * unless the null is ignored (Polars is_in): under nulls-equal semantics
 * null rows are kept, and in SQL a value not found is null, not false.
 *
 * Floats: the keys are in total order (key.c).  Under that order (Lance)
 * a comparison is one key range.  Under the IEEE and Polars orders see
 * "floats" below; the Java order is not answered. */
#include <math.h>

#include "expr/expr_lit.h"
#include "expr/op_info.h"
#include "index/index_int.h"

void qvi_ask_reset(qvi_ask *a) {
  for (int32_t i = 0; i < a->n; i++) {
    qv_free(a->ranges[i].lo);
    qv_free(a->ranges[i].hi);
  }
  qv_free(a->ranges);
  memset(a, 0, sizeof *a);
}

qvi_range *qvi_add_range(qvi_ask *a, qv_error *err) {
  qvi_range *r = qv_realloc(a->ranges, (size_t)(a->n + 1) * sizeof *r);
  if (!r) {
    qv_error_nomem(err, NULL);
    return NULL;
  }
  a->ranges = r;
  memset(&r[a->n], 0, sizeof *r);
  return &r[a->n++];
}

static bool widens(const qv_datatype *from, const qv_datatype *to) {
  if (from->id == QV_TYPE_FLOAT32 && to->id == QV_TYPE_FLOAT64) return true;
  if (!qv_type_is_integer(from->id) || !qv_type_is_integer(to->id)) return false;
  int wf = qv_type_byte_width(from->id), wt = qv_type_byte_width(to->id);
  if (qv_type_is_signed(from->id) == qv_type_is_signed(to->id)) return wt >= wf;
  return !qv_type_is_signed(from->id) && wt > wf;
}

int32_t qvi_column_of(const qv_expr *e) {
  if (e->kind == QV_EXPR_COLUMN) return e->column;
  if (e->kind == QV_EXPR_CALL && e->op == QV_OP_CAST && e->args[0]->kind == QV_EXPR_COLUMN &&
      widens(&e->args[0]->type, &e->type))
    return e->args[0]->column;
  return -1;
}

typedef qvi_match_ctx ctx;

/* A key for a literal; false when it does not compare in key order. */
static bool key_of(ctx *c, const qv_scalar *s, uint8_t **key, int32_t *len) {
  bool ok;
  *key = qvi_key_of_scalar(s, c->ctype, len, &ok);
  if (!ok && *len < 0) c->st = qv_error_nomem(c->err, NULL);
  return ok;
}

bool qvi_floats_total(const ctx *c, const qv_expr *e) {
  return c->ctype->id != QV_TYPE_FLOAT32 && c->ctype->id != QV_TYPE_FLOAT64 ? true
                                                                            : e->sem.float_order == QV_FLOAT_TOTAL;
}

/* ---- floats under the IEEE and Polars orders ------------------------------
 *
 * Both orders make -0.0 and +0.0 one value, and the key order has -0.0
 * just below +0.0, so a bound at zero takes whichever zero keeps or drops
 * both: "above 0" starts past +0.0, "at least 0" at -0.0, "below 0" ends
 * before -0.0, "at most 0" at +0.0.  NaN keys sit at both ends of the key
 * order (-NaN below -inf, +NaN above +inf).  IEEE: a NaN row is never
 * kept by = < <= > >= BETWEEN IN, so their ranges stop at -inf and +inf.
 * Polars: every NaN is greater than everything, so > and >= also take both
 * NaN ends (an open upper end, and a range below -inf).  != is "not =" in
 * both (NaN rows kept).  Every answer is then exactly the rows where the
 * comparison is true and the other non-null rows are exactly those where
 * it is false (IEEE NOT (x > c) is true on NaN, Polars' false, and the
 * answers of x > c differ the same way), so NOT stays "the non-null rows
 * not in the answer".  A NaN literal is not answered: the scan evaluates
 * it. */

static double zero_low_inc(double x) { return x == 0 ? -0.0 : x; }
static double zero_low_exc(double x) { return x == 0 ? +0.0 : x; }
static double zero_high_inc(double x) { return x == 0 ? +0.0 : x; }
static double zero_high_exc(double x) { return x == 0 ? -0.0 : x; }

/* The float value of a literal operand; false for null, NaN or non-float
 * literals (the binder turns integer literals next to a float column into
 * floats of the column's type, so none is expected). */
static bool float_lit(const qv_expr *e, double *out) {
  if (!qve_is_value_lit(e) || !qv_type_is_floating(e->value.type.id) || isnan(e->value.v.f)) return false;
  *out = e->value.v.f;
  return true;
}

/* Adds the range of keys between lo and hi (NULL: open end). */
static bool float_range(ctx *c, qvi_ask *a, const double *lo, bool lo_inc, const double *hi, bool hi_inc) {
  qvi_range *r = qvi_add_range(a, c->err);
  if (!r) {
    c->st = QV_ERR_NOMEM;
    return false;
  }
  if ((lo && !(r->lo = qv_malloc(8))) || (hi && !(r->hi = qv_malloc(8)))) {
    c->st = qv_error_nomem(c->err, NULL);
    return false;
  }
  if (lo) {
    r->has_lo = true;
    r->lo_inc = lo_inc;
    r->lo_len = qvi_key_of_double(*lo, r->lo);
  }
  if (hi) {
    r->has_hi = true;
    r->hi_inc = hi_inc;
    r->hi_len = qvi_key_of_double(*hi, r->hi);
  }
  return true;
}

static bool float_point(ctx *c, qvi_ask *a, double x) {
  double lo = zero_low_inc(x), hi = zero_high_inc(x);
  return float_range(c, a, &lo, true, &hi, true);
}

/* x op v for a non-NaN v (op already mirrored to put the column left). */
static bool float_compare(ctx *c, qvi_ask *a, qv_op op, double v, bool polars) {
  static const double ninf = -INFINITY, pinf = INFINITY;
  double b;
  switch (op) {
    case QV_OP_EQ:
    case QV_OP_NE: a->negate = op == QV_OP_NE; return float_point(c, a, v);
    case QV_OP_LT: b = zero_high_exc(v); return float_range(c, a, &ninf, true, &b, false);
    case QV_OP_LE: b = zero_high_inc(v); return float_range(c, a, &ninf, true, &b, true);
    case QV_OP_GT:
    case QV_OP_GE:
      b = op == QV_OP_GT ? zero_low_exc(v) : zero_low_inc(v);
      if (!polars) return float_range(c, a, &b, op == QV_OP_GE, &pinf, true);
      /* up to and with +NaN, and the -NaN keys below -inf */
      return float_range(c, a, &b, op == QV_OP_GE, NULL, false) && float_range(c, a, NULL, false, &ninf, false);
    default: return false;
  }
}

static int cmp_points(const void *x, const void *y) {
  const qvi_range *a = x, *b = y;
  return qvi_key_cmp(a->lo, a->lo_len, b->lo, b->lo_len);
}

/* The points of an IN list in key order, each once (0.0 and -0.0 are one
 * point under IEEE and Polars; lists repeat values): the union is the same,
 * and the estimate counts every value once. */
static bool unique_points(qvi_ask *a) {
  if (a->n > 1) qsort(a->ranges, (size_t)a->n, sizeof *a->ranges, cmp_points);
  int32_t n = 0;
  for (int32_t i = 0; i < a->n; i++) {
    if (n > 0 && cmp_points(&a->ranges[n - 1], &a->ranges[i]) == 0) {
      qv_free(a->ranges[i].lo);
      qv_free(a->ranges[i].hi);
      continue;
    }
    a->ranges[n++] = a->ranges[i];
  }
  a->n = n;
  return true;
}

/* The float order a conjunct on the context's column is read under: -1
 * when the column is not a float (the key order is then the value order). */
static int float_order(const ctx *c, const qv_expr *e) {
  return c->ctype->id == QV_TYPE_FLOAT32 || c->ctype->id == QV_TYPE_FLOAT64 ? e->sem.float_order : -1;
}

/* The comparisons, BETWEEN and IN of match_value under IEEE or Polars. */
static bool match_float(ctx *c, const qv_expr *e, qvi_ask *a) {
  bool polars = e->sem.float_order == QV_FLOAT_POLARS;
  double v, w;
  if (qve_op_is_compare(e->op)) {
    if (e->n_args != 2) return false;
    if (qvi_column_of(e->args[0]) == c->column && float_lit(e->args[1], &v))
      return float_compare(c, a, e->op, v, polars);
    if (qvi_column_of(e->args[1]) == c->column && float_lit(e->args[0], &v))
      return float_compare(c, a, qv_op_mirror(e->op), v, polars);
    return false;
  }
  switch (e->op) {
    case QV_OP_BETWEEN: {
      if (e->n_args != 3 || qvi_column_of(e->args[0]) != c->column || !float_lit(e->args[1], &v) ||
          !float_lit(e->args[2], &w))
        return false;
      double lo = zero_low_inc(v), hi = zero_high_inc(w);
      return float_range(c, a, &lo, true, &hi, true);
    }
    case QV_OP_IN:
      if (qvi_column_of(e->args[0]) != c->column) return false;
      for (int32_t i = 1; i < e->n_args; i++) {
        if (qve_is_null_lit(e->args[i])) {
          a->add_nulls |= e->sem.in_nulls_equal;
          a->no_negate |= !e->sem.in_list_nulls_ignored;
          continue;
        }
        if (!float_lit(e->args[i], &v) || !float_point(c, a, v)) return false;
      }
      return unique_points(a);
    default: return false;
  }
}

bool qvi_match_point(ctx *c, qvi_ask *a, const qv_scalar *s) {
  uint8_t *k;
  int32_t len;
  if (!key_of(c, s, &k, &len)) return false;
  qvi_range *r = qvi_add_range(a, c->err);
  if (!r) {
    qv_free(k);
    c->st = QV_ERR_NOMEM;
    return false;
  }
  r->has_lo = r->has_hi = r->lo_inc = r->hi_inc = true;
  r->lo = k;
  r->lo_len = len;
  r->hi = qv_malloc((size_t)len + 1);
  if (!r->hi) {
    c->st = qv_error_nomem(c->err, NULL);
    return false;
  }
  if (len) memcpy(r->hi, k, (size_t)len);
  r->hi_len = len;
  return true;
}

static bool bound(ctx *c, qvi_ask *a, qv_op op, const qv_scalar *s) {
  uint8_t *k;
  int32_t len;
  if (!key_of(c, s, &k, &len)) return false;
  qvi_range *r = qvi_add_range(a, c->err);
  if (!r) {
    qv_free(k);
    c->st = QV_ERR_NOMEM;
    return false;
  }
  if (op == QV_OP_LT || op == QV_OP_LE) {
    r->has_hi = true;
    r->hi_inc = op == QV_OP_LE;
    r->hi = k;
    r->hi_len = len;
  } else {
    r->has_lo = true;
    r->lo_inc = op == QV_OP_GE;
    r->lo = k;
    r->lo_len = len;
  }
  return true;
}

static bool prefix(ctx *c, qvi_ask *a, const uint8_t *p, int64_t n) {
  if (c->ctype->id != QV_TYPE_STRING && c->ctype->id != QV_TYPE_BINARY) return false;
  qvi_range *r = qvi_add_range(a, c->err);
  if (!r || !(r->lo = qv_malloc((size_t)n + 1))) {
    c->st = qv_error_nomem(c->err, NULL);
    return false;
  }
  if (n) memcpy(r->lo, p, (size_t)n);
  r->lo_len = (int32_t)n;
  r->has_lo = r->lo_inc = r->prefix = true;
  return true;
}

bool qvi_like_escape(const qv_expr *e, int *esc) {
  *esc = '\\';
  if (e->n_args < 3) return true;
  if (!qve_is_bytes_lit(e->args[2]) || e->args[2]->value.len > 1) return false;
  *esc = e->args[2]->value.len ? e->args[2]->value.bytes[0] : -1;
  return true;
}

bool qvi_match_value(ctx *c, const qv_expr *e, qvi_ask *a) {
  if (e->kind != QV_EXPR_CALL || e->n_args < 1) return false;
  a->mode = QVI_RANGES;
  a->exact = true;
  int order = float_order(c, e);
  if ((order == QV_FLOAT_IEEE || order == QV_FLOAT_POLARS) && e->op != QV_OP_IS_NULL && e->op != QV_OP_IS_NOT_NULL)
    return match_float(c, e, a);
  if (qve_op_is_compare(e->op)) {
    const qv_expr *col = e->args[0], *lit = e->args[1];
    qv_op op = e->op;
    if (qvi_column_of(col) != c->column) {
      col = e->args[1];
      lit = e->args[0];
      op = qv_op_mirror(op);
    }
    if (qvi_column_of(col) != c->column || !qve_is_value_lit(lit) || !qvi_floats_total(c, e)) return false;
    if (op == QV_OP_EQ || op == QV_OP_NE) {
      a->negate = op == QV_OP_NE;
      return qvi_match_point(c, a, &lit->value);
    }
    return bound(c, a, op, &lit->value);
  }
  switch (e->op) {
    case QV_OP_BETWEEN: {
      if (e->n_args != 3 || qvi_column_of(e->args[0]) != c->column || !qve_is_value_lit(e->args[1]) ||
          !qve_is_value_lit(e->args[2]) || !qvi_floats_total(c, e))
        return false;
      uint8_t *lo, *hi;
      int32_t ll, hl;
      if (!key_of(c, &e->args[1]->value, &lo, &ll)) return false;
      if (!key_of(c, &e->args[2]->value, &hi, &hl)) {
        qv_free(lo);
        return false;
      }
      qvi_range *r = qvi_add_range(a, c->err);
      if (!r) {
        qv_free(lo);
        qv_free(hi);
        c->st = QV_ERR_NOMEM;
        return false;
      }
      *r = (qvi_range){true, true, true, true, false, ll, hl, lo, hi};
      return true;
    }
    case QV_OP_IN: {
      if (qvi_column_of(e->args[0]) != c->column || !qvi_floats_total(c, e)) return false;
      for (int32_t i = 1; i < e->n_args; i++) {
        if (!qve_is_lit(e->args[i])) return false;
        if (e->args[i]->value.is_null) {
          a->add_nulls |= e->sem.in_nulls_equal;
          a->no_negate |= !e->sem.in_list_nulls_ignored;
          continue;
        }
        if (!qvi_match_point(c, a, &e->args[i]->value)) return false;
      }
      return unique_points(a);
    }
    case QV_OP_IS_NULL:
    case QV_OP_IS_NOT_NULL:
      if (qvi_column_of(e->args[0]) != c->column) return false;
      a->mode = QVI_NULLS;
      a->negate = e->op == QV_OP_IS_NOT_NULL;
      return true;
    case QV_OP_STARTS_WITH:
      if (e->n_args != 2 || qvi_column_of(e->args[0]) != c->column || !qve_is_bytes_lit(e->args[1])) return false;
      return prefix(c, a, e->args[1]->value.bytes, e->args[1]->value.len);
    case QV_OP_LIKE: {
      int esc;
      qvi_runs runs;
      if (e->n_args < 2 || qvi_column_of(e->args[0]) != c->column || !qve_is_bytes_lit(e->args[1]) ||
          e->sem.case_insensitive || !qvi_like_escape(e, &esc) ||
          !qvi_like_runs(e->args[1]->value.bytes, e->args[1]->value.len, esc, &runs))
        return false;
      bool ok = false;
      if (runs.literal) { /* no wildcard: equality with the unescaped text */
        qv_scalar s = QV_SCALAR_INIT;
        s.type =
            c->ctype->id == QV_TYPE_BINARY ? qv_datatype_simple(QV_TYPE_BINARY) : qv_datatype_simple(QV_TYPE_STRING);
        s.is_null = false;
        s.bytes = runs.text.data;
        s.len = runs.text.size;
        ok = c->ctype->id == s.type.id && qvi_match_point(c, a, &s);
      } else if (runs.starts && runs.n >= 1) {
        ok = prefix(c, a, runs.text.data + runs.off[0], runs.len[0]);
        a->exact = runs.only_prefix;
      }
      qvi_runs_reset(&runs);
      return ok;
    }
    default: return false;
  }
}

/* The larger lower bound of x and y (on equal keys the exclusive one) into
 * r, likewise the smaller upper bound; false when nothing is left. */
static bool intersect(const qvi_range *x, const qvi_range *y, qvi_range *r) {
  int cl = x->has_lo && y->has_lo ? qvi_key_cmp(x->lo, x->lo_len, y->lo, y->lo_len) : 0;
  const qvi_range *l = !y->has_lo || (x->has_lo && (cl > 0 || (cl == 0 && !x->lo_inc))) ? x : y;
  int ch = x->has_hi && y->has_hi ? qvi_key_cmp(x->hi, x->hi_len, y->hi, y->hi_len) : 0;
  const qvi_range *h = !y->has_hi || (x->has_hi && (ch < 0 || (ch == 0 && !x->hi_inc))) ? x : y;
  *r = (qvi_range){l->has_lo, l->lo_inc, h->has_hi, h->hi_inc, false, l->lo_len, h->hi_len, l->lo, h->hi};
  if (!r->has_lo || !r->has_hi) return true;
  int c = qvi_key_cmp(r->lo, r->lo_len, r->hi, r->hi_len);
  return c < 0 || (c == 0 && r->lo_inc && r->hi_inc);
}

static bool match(ctx *c, const qv_expr *e, qvi_ask *a);

/* x AND y on the one column, each side a union of key ranges (Polars'
 * is_between is x >= lo AND x <= hi): the pairwise intersections, so that
 * one lookup reads only the rows of both.  Kleene AND of two answers that
 * are null exactly on the null rows is again true or false elsewhere, so
 * NOT of it stays answerable. */
static bool match_and(ctx *c, const qv_expr *e, qvi_ask *a) {
  if (!qvi_kind_of(c->type)->and_ranges || e->n_args != 2) return false;
  qvi_ask x, y;
  memset(&x, 0, sizeof x);
  memset(&y, 0, sizeof y);
  bool ok = match(c, e->args[0], &x) && match(c, e->args[1], &y);
  for (int k = 0; k < 2 && ok; k++) {
    const qvi_ask *s = k ? &y : &x;
    ok = s->mode == QVI_RANGES && s->exact && !s->negate && !s->add_nulls;
    for (int32_t i = 0; i < s->n && ok; i++) ok = !s->ranges[i].prefix;
  }
  ok = ok && (int64_t)x.n * y.n <= 65536; /* two long IN lists: not worth the pairs */
  a->mode = QVI_RANGES;
  a->exact = true;
  a->no_negate = x.no_negate || y.no_negate;
  for (int32_t i = 0; i < x.n && ok; i++)
    for (int32_t j = 0; j < y.n && ok; j++) {
      qvi_range r;
      if (!intersect(&x.ranges[i], &y.ranges[j], &r)) continue;
      qvi_range *out = qvi_add_range(a, c->err);
      uint8_t *lo = r.has_lo ? qv_malloc((size_t)r.lo_len + 1) : NULL;
      uint8_t *hi = r.has_hi ? qv_malloc((size_t)r.hi_len + 1) : NULL;
      if (!out || (r.has_lo && !lo) || (r.has_hi && !hi)) {
        qv_free(lo);
        qv_free(hi);
        c->st = qv_error_nomem(c->err, NULL);
        ok = false;
        break;
      }
      if (r.lo_len) memcpy(lo, r.lo, (size_t)r.lo_len);
      if (r.hi_len) memcpy(hi, r.hi, (size_t)r.hi_len);
      r.lo = lo;
      r.hi = hi;
      *out = r;
    }
  qvi_ask_reset(&x);
  qvi_ask_reset(&y);
  return ok;
}

static bool match(ctx *c, const qv_expr *e, qvi_ask *a) {
  if (e->kind == QV_EXPR_CALL && e->op == QV_OP_AND) return match_and(c, e, a);
  if (e->kind == QV_EXPR_CALL && e->op == QV_OP_NOT && e->n_args == 1) {
    /* NOT only of an exact answer whose nulls are the column's nulls */
    if (!match(c, e->args[0], a) || !a->exact || a->add_nulls || a->no_negate) return false;
    a->negate = !a->negate;
    return true;
  }
  const qvi_kind *k = qvi_kind_of(c->type);
  return k && k->match && k->match(c, e, a);
}

qv_status qvi_match(qv_index_type type, int32_t column, const qv_datatype *ctype, const qv_expr *e, qvi_ask *out,
                    bool *ok, qv_error *err) {
  memset(out, 0, sizeof *out);
  const qvi_kind *k = qvi_kind_of(type);
  *ok = false;
  if (!k || !k->match) return QV_OK;
  ctx c = {type, column, k->key_type(ctype), err, QV_OK};
  *ok = match(&c, e, out);
  if (!*ok || c.st != QV_OK) {
    *ok = false;
    qvi_ask_reset(out);
  }
  return c.st;
}
