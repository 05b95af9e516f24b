/* Expression methods of the Polars text front end (expr.method(...),
 * expr.str.method(...), ... and the when/then/otherwise chain).  Each
 * builds what the Polars Python API builds, with its defaults. */
#include <stdio.h>
#include <string.h>

#include "expr/polars_text_int.h"

/* Unlike the functions' flags, a method flag given as None is an error
 * (Polars' methods take True/False there). */
static bool get_bool(pt *p, pv *v, bool dflt, bool *out) {
  *out = dflt;
  if (!v) {
    *out = dflt;
    return true;
  }
  if (v->kind != PV_BOOL) return qve_pt_fail(p, v->col, "expected True or False");
  *out = v->i != 0;
  return true;
}

/* An argument as an expression; absent gives a Null literal when
 * null_if_absent (Polars passes lit(None) for optional inputs), else an
 * error naming what is missing. */
static bool in_expr(pt *p, pt_args *a, pv *v, bool str_as_lit, bool null_if_absent, const char *what, qv_expr **e,
                    int32_t *d) {
  if (!v || (null_if_absent && v->kind == PV_NONE)) {
    if (!null_if_absent) return qve_pt_fail(p, a->col, "expected %s", what);
    *d = 1;
    *e = qve_pl_null(QV_TYPE_NULL);
    return *e ? true : qve_pt_nomem(p);
  }
  return qve_pt_to_expr(p, v, str_as_lit, e, d);
}

static bool named(pt *p, qv_expr *e, const char *name) {
  if (e && !qve_pl_set_name(e, name, strlen(name))) {
    qv_expr_destroy(e);
    return qve_pt_nomem(p);
  }
  return e ? true : qve_pt_nomem(p);
}

typedef struct unary_method {
  const char *ns, *name;
  qv_op op;
} unary_method;

static const unary_method unary_methods[] = {
    {NULL, "is_null", QV_OP_IS_NULL},
    {NULL, "is_not_null", QV_OP_IS_NOT_NULL},
    {NULL, "is_nan", QV_OP_ISNAN},
    {NULL, "is_not_nan", QV_OP_IS_NOT_NAN},
    {NULL, "is_finite", QV_OP_IS_FINITE},
    {NULL, "is_infinite", QV_OP_IS_INFINITE},
    {NULL, "abs", QV_OP_ABS},
    {NULL, "sqrt", QV_OP_SQRT},
    {NULL, "cbrt", QV_OP_CBRT},
    {NULL, "drop_nulls", QV_OP_DROP_NULLS},
    {NULL, "not_", QV_OP_NOT},
    {"str", "to_lowercase", QV_OP_LOWER},
    {"str", "to_uppercase", QV_OP_UPPER},
    {"str", "to_titlecase", QV_OP_TITLECASE},
    {"str", "len_chars", QV_OP_LENGTH},
    {"str", "len_bytes", QV_OP_LEN_BYTES},
    {"dt", "date", QV_OP_DT_DATE},
    {"list", "len", QV_OP_ARRAY_LENGTH},
};

static const unary_method binary_methods[] = {
    {NULL, "eq_missing", QV_OP_EQ_MISSING},
    {NULL, "ne_missing", QV_OP_NE_MISSING},
    {NULL, "eq", QV_OP_EQ},
    {NULL, "ne", QV_OP_NE},
    {NULL, "lt", QV_OP_LT},
    {NULL, "le", QV_OP_LE},
    {NULL, "gt", QV_OP_GT},
    {NULL, "ge", QV_OP_GE},
    {NULL, "pow", QV_OP_POW},
    {"str", "starts_with", QV_OP_STARTS_WITH},
    {"str", "ends_with", QV_OP_ENDS_WITH},
    {NULL, "xor", QV_OP_XOR},
    {NULL, "and_", QV_OP_AND},
    {NULL, "or_", QV_OP_OR},
    {NULL, "add", QV_OP_ADD},
    {NULL, "sub", QV_OP_SUB},
    {NULL, "mul", QV_OP_MUL},
    {NULL, "truediv", QV_OP_DIV},
    {NULL, "floordiv", QV_OP_FLOORDIV},
    {NULL, "mod", QV_OP_MOD},
};

static const char *const dt_parts[] = {"year",        "month",       "day",         "hour",    "minute",
                                       "second",      "weekday",     "ordinal_day", "quarter", "week",
                                       "millisecond", "microsecond", "nanosecond"};

static bool ns_is(const pt_token *ns, const char *want) {
  return want ? (ns && strcmp(ns->text, want) == 0) : ns == NULL;
}

/* Appends a to the WHEN-pairs node w. */
static bool pairs_append(pt *p, qv_expr *w, qv_expr *a) {
  qv_expr **na = qv_realloc(w->args, (size_t)(w->n_args + 1) * sizeof *na);
  if (!na) {
    qv_expr_destroy(a);
    return qve_pt_nomem(p);
  }
  w->args = na;
  w->args[w->n_args++] = a;
  return true;
}

/* .then / .when / .otherwise on a when chain.  *done false: not one of those. */
static bool when_chain(pt *p, pv *recv, const pt_token *name, pt_args *a, pv *out, bool *done) {
  const char *n = name->text;
  *done = true;
  bool then = recv->kind == PV_WHEN && strcmp(n, "then") == 0;
  bool when = recv->kind == PV_THEN && strcmp(n, "when") == 0;
  bool other = recv->kind == PV_THEN && strcmp(n, "otherwise") == 0;
  if (!then && !when && !other) {
    *done = false;
    if (recv->kind == PV_WHEN) return qve_pt_fail(p, name->col, "expected .then(...) after .when(...)");
    return false;
  }
  qv_expr *e;
  int32_t d;
  if (when && a->n > 1) { /* .when(p1, p2, ...): Polars combines them with all_horizontal */
    qv_expr **in = qv_calloc((size_t)a->n, sizeof *in);
    if (!in) return qve_pt_nomem(p);
    int32_t k = 0, dk;
    d = 0;
    for (; k < a->n; k++) {
      pv *v = qve_pt_arg(a, k, NULL);
      if (!v || !qve_pt_to_expr(p, v, false, &in[k], &dk)) break;
      if (dk > d) d = dk;
    }
    if (k < a->n || !qve_pt_all_used(p, a, ".", n)) {
      for (int32_t i = 0; i < k; i++) qv_expr_destroy(in[i]);
      qv_free(in);
      return qve_diag_failed(&p->d) ? false
                                    : qve_pt_fail(p, a->col, ".when() takes predicates as positional arguments");
    }
    e = qve_pl_horizontal(true, in, a->n);
    qv_free(in);
    if (!e) return qve_pt_nomem(p);
    d += a->n;
  } else {
    pv *v = qve_pt_arg(a, 0, then ? "statement" : when ? "predicate" : "statement");
    if (!v) return qve_pt_fail(p, a->col, ".%s() expects an argument", n);
    if (!qve_pt_all_used(p, a, ".", n) || !qve_pt_to_expr(p, v, false, &e, &d)) return false;
  }
  int32_t depth = (recv->depth > d ? recv->depth : d) + 1;
  qv_expr *pairs = recv->expr;
  recv->expr = NULL;
  if (other) {
    /* finish: rebuild as Polars' nested ternaries, flattened */
    qv_expr *acc = e;
    for (int32_t i = pairs->n_args - 2; i >= 0 && acc; i -= 2) {
      acc = qve_pl_when(pairs->args[i], pairs->args[i + 1], acc);
      pairs->args[i] = pairs->args[i + 1] = NULL;
    }
    pairs->n_args = 0;
    qv_expr_destroy(pairs);
    return qve_pt_set_expr(p, out, acc, depth, recv->col);
  }
  if (!pairs_append(p, pairs, e)) {
    qv_expr_destroy(pairs);
    return false;
  }
  memset(out, 0, sizeof *out);
  out->kind = then ? PV_THEN : PV_WHEN;
  out->expr = pairs;
  out->depth = depth;
  out->col = recv->col;
  if (depth > QV_EXPR_MAX_DEPTH)
    return qve_pt_fail(p, name->col, "expression nested deeper than %d levels", QV_EXPR_MAX_DEPTH);
  return true;
}

static bool fill_null(pt *p, qv_expr *x, int32_t dx, pt_args *a, int32_t col, pv *out) {
  pv *val = qve_pt_arg(a, 0, "value"), *strat = qve_pt_arg(a, 1, "strategy"), *lim = qve_pt_arg(a, 2, "limit");
  if (!qve_pt_all_used(p, a, ".", "fill_null")) goto cleanup;
  if (strat && strat->kind != PV_NONE) {
    static const char *const names[] = {"zero", "one", "min", "max", "mean", "forward", "backward"};
    const char *s;
    int64_t limit = -1;
    if (val && val->kind != PV_NONE) {
      qve_pt_fail(p, val->col, "fill_null() takes a value or a strategy, not both");
      goto cleanup;
    }
    if (!qve_pt_get_str(p, strat, &s) || (lim && lim->kind != PV_NONE && !qve_pt_get_int(p, lim, &limit))) goto cleanup;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
      if (strcmp(s, names[k]) != 0) continue;
      if (k < 5 && limit >= 0) {
        qve_pt_fail(p, lim->col, "fill_null(limit=) needs strategy 'forward' or 'backward'");
        goto cleanup;
      }
      if (limit < -1) {
        qve_pt_fail(p, lim->col, "fill_null(limit=) must not be negative");
        goto cleanup;
      }
      return qve_pt_set_expr(p, out, qve_pl_fill_strategy(x, names[k], limit), dx + 1, col);
    }
    qve_pt_fail(p, strat->col, "unknown fill_null strategy '%s'", s);
    goto cleanup;
  }
  if (!val || val->kind == PV_NONE) {
    qve_pt_fail(p, a->col, "fill_null() expects a value or strategy=");
    goto cleanup;
  }
  if (lim && lim->kind != PV_NONE) {
    qve_pt_fail(p, lim->col, "fill_null(limit=) needs a strategy");
    goto cleanup;
  }
  qv_expr *v;
  int32_t dv;
  if (!qve_pt_to_expr(p, val, true, &v, &dv)) goto cleanup;
  return qve_pt_set_expr(p, out, qve_pl_call2(QV_OP_FILL_NULL, x, v), (dx > dv ? dx : dv) + 1, col);
cleanup:
  qv_expr_destroy(x);
  return false;
}

static bool epoch(pt *p, qv_expr *x, int32_t dx, pt_args *a, int32_t col, pv *out) {
  pv *u = qve_pt_arg(a, 0, "time_unit");
  const char *unit = "us";
  if (!qve_pt_all_used(p, a, ".", "epoch") || (u && !qve_pt_get_str(p, u, &unit))) {
    qv_expr_destroy(x);
    return false;
  }
  qv_time_unit tu;
  if (qve_pl_unit_short(unit, strlen(unit), &tu)) {
    qv_expr *e = qve_pl_call1(QV_OP_DT_EPOCH, x);
    return named(p, e, unit) && qve_pt_set_expr(p, out, e, dx + 1, col);
  }
  if (strcmp(unit, "s") == 0) {
    /* Polars: epoch("ms") // lit(1000, Int64) */
    qv_expr *e = qve_pl_call1(QV_OP_DT_EPOCH, x);
    if (!named(p, e, "ms")) return false;
    qv_scalar k = qv_scalar_int(QV_TYPE_INT64, 1000);
    return qve_pt_set_expr(p, out, qve_pl_call2(QV_OP_FLOORDIV, e, qve_pl_literal(&k, false)), dx + 2, col);
  }
  if (strcmp(unit, "d") == 0) {
    /* Polars: cast(Date).cast(Int32) */
    qv_expr *c1 = qve_pl_call1(QV_OP_CAST, x);
    if (c1) c1->type = qv_datatype_simple(QV_TYPE_DATE32);
    qv_expr *c2 = qve_pl_call1(QV_OP_CAST, c1);
    if (c2) c2->type = qv_datatype_simple(QV_TYPE_INT32);
    return qve_pt_set_expr(p, out, c2, dx + 2, col);
  }
  qv_expr_destroy(x);
  return qve_pt_fail(p, u->col, "unknown time unit '%s' (expected 'ns', 'us', 'ms', 's' or 'd')", unit);
}

static bool cast(pt *p, qv_expr *x, int32_t dx, pt_args *a, int32_t col, pv *out) {
  pv *dt = qve_pt_arg(a, 0, "dtype");
  bool strict, wrap;
  if (!dt || dt->kind != PV_DTYPE || !get_bool(p, qve_pt_arg(a, 1, "strict"), true, &strict) ||
      !get_bool(p, qve_pt_arg(a, 2, "wrap_numerical"), false, &wrap) || !qve_pt_all_used(p, a, ".", "cast")) {
    qv_expr_destroy(x);
    return qve_diag_failed(&p->d) ? false : qve_pt_fail(p, a->col, "cast() expects a data type such as pl.Int32");
  }
  if (!dt->dtype_ok) return qve_pt_set_expr(p, out, qve_pl_unknown("Cast", &x, 1), dx + 1, col);
  qv_expr *e = qve_pl_call1(QV_OP_CAST, x);
  if (e) {
    e->type = dt->type;
    memset(&dt->type, 0, sizeof dt->type);
    /* Polars: wrap_numerical wins over strict (its JSON says "Overflowing") */
    e->sem.cast_strict = strict || wrap;
    if (wrap) e->flags |= QV_EXPR_F_WRAP;
  }
  return qve_pt_set_expr(p, out, e, dx + 1, col);
}

bool qve_pt_method(pt *p, pv *recv, const pt_token *ns, const pt_token *name, pt_args *a, pv *out) {
  const char *n = name->text;
  int32_t col = name->col;
  memset(out, 0, sizeof *out);
  if (!ns && (recv->kind == PV_WHEN || recv->kind == PV_THEN)) {
    bool done;
    bool ok = when_chain(p, recv, name, a, out, &done);
    if (done || qve_diag_failed(&p->d)) return ok;
  }
  if (recv->kind != PV_EXPR && recv->kind != PV_THEN)
    return qve_pt_fail(p, col, "method .%s() on a Python value (write pl.lit(...))", n);
  qv_expr *x, *y = NULL, *z = NULL;
  int32_t dx, dy = 0, dz = 0;
  if (!qve_pt_to_expr(p, recv, true, &x, &dx)) return false;
#define MAXD(a_, b_) ((a_) > (b_) ? (a_) : (b_))
  for (size_t k = 0; k < sizeof unary_methods / sizeof unary_methods[0]; k++)
    if (ns_is(ns, unary_methods[k].ns) && strcmp(n, unary_methods[k].name) == 0) {
      if (!qve_pt_all_used(p, a, ".", n)) goto cleanup;
      return qve_pt_set_expr(p, out, qve_pl_call1(unary_methods[k].op, x), dx + 1, col);
    }
  for (size_t k = 0; k < sizeof binary_methods / sizeof binary_methods[0]; k++)
    if (ns_is(ns, binary_methods[k].ns) && strcmp(n, binary_methods[k].name) == 0) {
      if (!in_expr(p, a, qve_pt_arg(a, 0, NULL), true, false, "an argument", &y, &dy) || !qve_pt_all_used(p, a, ".", n))
        goto cleanup;
      return qve_pt_set_expr(p, out, qve_pl_call2(binary_methods[k].op, x, y), MAXD(dx, dy) + 1, col);
    }
  if (ns_is(ns, "dt"))
    for (size_t k = 0; k < sizeof dt_parts / sizeof dt_parts[0]; k++)
      if (strcmp(n, dt_parts[k]) == 0) {
        if (!qve_pt_all_used(p, a, ".", n)) goto cleanup;
        qv_expr *e = qve_pl_call1(QV_OP_DT_PART, x);
        return named(p, e, dt_parts[k]) && qve_pt_set_expr(p, out, e, dx + 1, col);
      }
  if (!ns) {
    if (strcmp(n, "cast") == 0) return cast(p, x, dx, a, col, out);
    if (strcmp(n, "fill_null") == 0) return fill_null(p, x, dx, a, col, out);
    if (strcmp(n, "is_in") == 0) {
      bool ne;
      if (!in_expr(p, a, qve_pt_arg(a, 0, "other"), true, false, "a list", &y, &dy) ||
          !get_bool(p, qve_pt_arg(a, 1, "nulls_equal"), false, &ne) || !qve_pt_all_used(p, a, ".", n))
        goto cleanup;
      return qve_pt_set_expr(p, out, qve_pl_is_in(x, y, ne), MAXD(dx, dy) + 1, col);
    }
    if (strcmp(n, "is_between") == 0) {
      const char *closed = "both";
      pv *cl = qve_pt_arg(a, 2, "closed");
      if (!in_expr(p, a, qve_pt_arg(a, 0, "lower_bound"), false, false, "a lower bound", &y, &dy) ||
          !in_expr(p, a, qve_pt_arg(a, 1, "upper_bound"), false, false, "an upper bound", &z, &dz) ||
          (cl && !qve_pt_get_str(p, cl, &closed)) || !qve_pt_all_used(p, a, ".", n))
        goto cleanup;
      if (strcmp(closed, "both") != 0 && strcmp(closed, "left") != 0 && strcmp(closed, "right") != 0 &&
          strcmp(closed, "none") != 0) {
        qve_pt_fail(p, cl->col, "closed must be 'both', 'left', 'right' or 'none', not '%s'", closed);
        goto cleanup;
      }
      return qve_pt_set_expr(p, out, qve_pl_is_between(x, y, z, closed), MAXD(dx, MAXD(dy, dz)) + 2, col);
    }
    if (strcmp(n, "round") == 0) {
      int64_t dec = 0;
      const char *mode = "half_to_even";
      pv *d = qve_pt_arg(a, 0, "decimals"), *m = qve_pt_arg(a, 1, "mode");
      if ((d && !qve_pt_get_int(p, d, &dec)) || (m && !qve_pt_get_str(p, m, &mode)) || !qve_pt_all_used(p, a, ".", n))
        goto cleanup;
      if (strcmp(mode, "half_to_even") != 0 && strcmp(mode, "half_away_from_zero") != 0) {
        qve_pt_fail(p, m->col, "unknown rounding mode '%s'", mode);
        goto cleanup;
      }
      if (dec < 0 || dec > 255) {
        qve_pt_fail(p, d->col, "round() decimals must be 0..255");
        goto cleanup;
      }
      return qve_pt_set_expr(p, out, qve_pl_round(x, dec, mode), dx + 1, col);
    }
    if (strcmp(n, "log") == 0 || strcmp(n, "log10") == 0) {
      pv *b = n[3] ? NULL : qve_pt_arg(a, 0, "base");
      if (!qve_pt_all_used(p, a, ".", n)) goto cleanup;
      if (b) {
        if (!qve_pt_to_expr(p, b, true, &y, &dy)) goto cleanup;
      } else {
        y = qve_pl_dyn_float(n[3] ? 10.0 : 2.718281828459045);
      }
      return qve_pt_set_expr(p, out, qve_pl_log(x, y), MAXD(dx, dy) + 1, col);
    }
    if (strcmp(n, "alias") == 0) {
      const char *s;
      if (!qve_pt_get_str(p, qve_pt_arg(a, 0, "name"), &s) || !qve_pt_all_used(p, a, ".", n)) goto cleanup;
      /* a name for the output column, which a filter's value does not
       * depend on (the JSON front end reads Alias the same way) */
      return qve_pt_set_expr(p, out, x, dx, col);
    }
  } else if (ns_is(ns, "str")) {
    if (strcmp(n, "contains") == 0) {
      bool lit, strict;
      if (!in_expr(p, a, qve_pt_arg(a, 0, "pattern"), true, false, "a pattern", &y, &dy) ||
          !get_bool(p, qve_pt_arg(a, 1, "literal"), false, &lit) ||
          !get_bool(p, qve_pt_arg(a, 2, "strict"), true, &strict) || !qve_pt_all_used(p, a, ".", n))
        goto cleanup;
      qv_expr *e = lit ? qve_pl_call2(QV_OP_CONTAINS, x, y)
                       : qve_pl_flags(qve_pl_call2(QV_OP_REGEXP_MATCH, x, y), strict ? 0 : QV_EXPR_F_LENIENT, 0);
      return qve_pt_set_expr(p, out, e, MAXD(dx, dy) + 1, col);
    }
    if (strcmp(n, "slice") == 0 || strcmp(n, "strip_chars") == 0) {
      bool slice = n[1] == 'l';
      if (slice ? !in_expr(p, a, qve_pt_arg(a, 0, "offset"), true, false, "an offset", &y, &dy) : false) goto cleanup;
      if (!in_expr(p, a, qve_pt_arg(a, slice ? 1 : 0, slice ? "length" : "characters"), true, true, "", &z, &dz) ||
          !qve_pt_all_used(p, a, ".", n))
        goto cleanup;
      qv_expr *e =
          slice ? qve_pl_call(QV_OP_STR_SLICE, (qv_expr *[]){x, y, z}, 3) : qve_pl_call2(QV_OP_STRIP_CHARS, x, z);
      return qve_pt_set_expr(p, out, e, MAXD(MAXD(dx, dy), dz) + 1, col);
    }
    if (strcmp(n, "replace") == 0 || strcmp(n, "replace_all") == 0) {
      bool lit;
      int64_t cnt = n[7] ? -1 : 1;
      pv *c = n[7] ? NULL : qve_pt_arg(a, 3, "n");
      if (!in_expr(p, a, qve_pt_arg(a, 0, "pattern"), true, false, "a pattern", &y, &dy) ||
          !in_expr(p, a, qve_pt_arg(a, 1, "value"), true, false, "a replacement", &z, &dz) ||
          !get_bool(p, qve_pt_arg(a, 2, "literal"), false, &lit) || (c && !qve_pt_get_int(p, c, &cnt)) ||
          !qve_pt_all_used(p, a, ".", n))
        goto cleanup;
      qv_expr *e =
          qve_pl_flags(qve_pl_call(QV_OP_REPLACE, (qv_expr *[]){x, y, z}, 3), lit ? QV_EXPR_F_LITERAL : 0, cnt);
      return qve_pt_set_expr(p, out, e, MAXD(MAXD(dx, dy), dz) + 1, col);
    }
    if (strcmp(n, "contains_any") == 0) {
      bool ci;
      if (!in_expr(p, a, qve_pt_arg(a, 0, "patterns"), true, false, "a list of patterns", &y, &dy) ||
          !get_bool(p, qve_pt_arg(a, 1, "ascii_case_insensitive"), false, &ci) || !qve_pt_all_used(p, a, ".", n))
        goto cleanup;
      qv_expr *e = qve_pl_flags(qve_pl_call2(QV_OP_CONTAINS_ANY, x, y), ci ? QV_EXPR_F_ASCII_CI : 0, 0);
      return qve_pt_set_expr(p, out, e, MAXD(dx, dy) + 1, col);
    }
  } else if (ns_is(ns, "dt")) {
    if (strcmp(n, "epoch") == 0) return epoch(p, x, dx, a, col, out);
    if (strcmp(n, "truncate") == 0) {
      if (!in_expr(p, a, qve_pt_arg(a, 0, "every"), true, false, "an interval such as '1d'", &y, &dy) ||
          !qve_pt_all_used(p, a, ".", n))
        goto cleanup;
      return qve_pt_set_expr(p, out, qve_pl_call2(QV_OP_DT_TRUNCATE, x, y), MAXD(dx, dy) + 1, col);
    }
  } else if (ns_is(ns, "list")) {
    if (strcmp(n, "contains") == 0) {
      bool ne;
      if (!in_expr(p, a, qve_pt_arg(a, 0, "item"), true, false, "an item", &y, &dy) ||
          !get_bool(p, qve_pt_arg(a, 1, "nulls_equal"), true, &ne) || !qve_pt_all_used(p, a, ".", n))
        goto cleanup;
      return qve_pt_set_expr(p, out, qve_pl_list_contains(x, y, ne), MAXD(dx, dy) + 1, col);
    }
    if (strcmp(n, "get") == 0) {
      bool oob;
      if (!in_expr(p, a, qve_pt_arg(a, 0, "index"), true, false, "an index", &y, &dy) ||
          !get_bool(p, qve_pt_arg(a, 1, "null_on_oob"), false, &oob) || !qve_pt_all_used(p, a, ".", n))
        goto cleanup;
      qv_expr *e = qve_pl_flags(qve_pl_call2(QV_OP_LIST_GET, x, y), oob ? QV_EXPR_F_NULL_ON_OOB : 0, 0);
      return qve_pt_set_expr(p, out, e, MAXD(dx, dy) + 1, col);
    }
  } else if (ns_is(ns, "struct")) {
    bool several = a->n > 1; /* .struct.field("x", "y"): a selection of fields, unknown here */
    for (int32_t k = 0; k < a->n; k++) several = several && !a->a[k].kw;
    if (strcmp(n, "field") == 0 && !several) {
      const char *s;
      if (!qve_pt_get_str(p, qve_pt_arg(a, 0, "name"), &s) || !qve_pt_all_used(p, a, ".", n)) goto cleanup;
      qv_expr *e = qve_pl_call1(QV_OP_FIELD, x);
      return named(p, e, s) && qve_pt_set_expr(p, out, e, dx + 1, col);
    }
  }
  /* A method this front end does not know (an aggregation such as .sum(), a
   * window, a newer Polars' method): an unknown node over its receiver, as
   * the JSON front end keeps a function it does not know, so translators
   * decline it and the binder names it.  The arguments parsed as Python
   * values and are not kept. */
  char label[160];
  snprintf(label, sizeof label, ".%s%s%s()", ns ? ns->text : "", ns ? "." : "", n);
  return qve_pt_set_expr(p, out, qve_pl_unknown(label, &x, 1), dx + 1, col);
cleanup:
  qv_expr_destroy(x);
  qv_expr_destroy(y);
  qv_expr_destroy(z);
  return false;
#undef MAXD
}
