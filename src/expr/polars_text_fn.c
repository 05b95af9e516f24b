/* The functions and methods of the Polars text front end: pl.col, pl.lit,
 * pl.when, the horizontal functions, dtypes, Python's date/datetime/
 * timedelta/time/Decimal constructors, and the expression methods with
 * their .str .dt .list .struct namespaces.  Each desugars as the Polars
 * Python API does, so the IR is the one polars_json.c builds. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "expr/polars_text_int.h"

/* ---- arguments ------------------------------------------------------------ */

/* The argument at positional index pos, or named kw; NULL when absent. */
pv *qve_pt_arg(pt_args *a, int pos, const char *kw) {
  int k = 0;
  for (int32_t i = 0; i < a->n; i++) {
    if (a->a[i].kw) {
      if (kw && strcmp(a->a[i].kw->text, kw) == 0) {
        a->a[i].used = true;
        return &a->a[i].v;
      }
      continue;
    }
    if (k++ == pos && pos >= 0) {
      a->a[i].used = true;
      return &a->a[i].v;
    }
  }
  return NULL;
}

/* Every argument was taken, else an error naming the first that was not
 * (dot is "." for methods, "" for functions). */
bool qve_pt_all_used(pt *p, pt_args *a, const char *dot, const char *fn) {
  for (int32_t i = 0; i < a->n; i++) {
    if (a->a[i].used) continue;
    if (a->a[i].kw)
      return qve_pt_fail(p, a->a[i].kw->col, "%s%s() got an unexpected argument '%s'", dot, fn, a->a[i].kw->text);
    return qve_pt_fail(p, a->a[i].v.col, "%s%s() got too many arguments", dot, fn);
  }
  return true;
}

static bool need(pt *p, pv *v, pt_args *a, const char *fn, const char *what) {
  if (v) return true;
  return qve_pt_fail(p, a->col, "%s() expects %s", fn, what);
}

static bool get_bool(pt *p, pv *v, bool dflt, bool *out) {
  *out = dflt;
  if (!v || v->kind == PV_NONE) {
    *out = dflt;
    return true;
  }
  if (v->kind != PV_BOOL) return qve_pt_fail(p, v->col, "expected True or False");
  *out = v->i != 0;
  return true;
}

bool qve_pt_get_int(pt *p, pv *v, int64_t *out) {
  *out = 0;
  if (!v || v->kind != PV_INT) return qve_pt_fail(p, v ? v->col : 0, "expected an integer");
  qv_expr *e = qve_pl_dyn_int_text(v->s, (size_t)v->n);
  bool ok = e && e->kind == QV_EXPR_LITERAL && e->value.type.id == QV_TYPE_INT64;
  if (ok) *out = e->value.v.i;
  qv_expr_destroy(e);
  return ok ? true : qve_pt_fail(p, v->col, "integer out of range");
}

bool qve_pt_get_str(pt *p, pv *v, const char **out) {
  *out = "";
  if (!v || v->kind != PV_STR) return qve_pt_fail(p, v ? v->col : 0, "expected a string");
  *out = v->s;
  return true;
}

static bool is_exprish_kind(pv_kind k) { return k == PV_EXPR || k == PV_THEN || k == PV_WHEN; }

static bool to_expr(pt *p, pv *v, bool str_as_lit, qv_expr **e, int32_t *d) {
  return qve_pt_to_expr(p, v, str_as_lit, e, d);
}

/* ---- calendar ----------------------------------------------------------- */

static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static bool valid_date(int64_t y, int64_t m, int64_t d) {
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 1 || y > 9999 || m < 1 || m > 12 || d < 1) return false;
  int64_t md = mdays[m - 1] + (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
  return d <= md;
}

/* ---- pl.* ------------------------------------------------------------------ */

static bool set_dtype(pt *p, pv *out, qv_datatype *t, bool ok, int32_t col) {
  memset(out, 0, sizeof *out);
  out->kind = PV_DTYPE;
  out->col = col;
  out->type = *t;
  out->dtype_ok = ok;
  (void)p;
  return true;
}

static bool unit_arg(pt *p, pv *v, qv_time_unit *u) {
  *u = QV_UNIT_MICRO;
  if (!v) return true;
  const char *s;
  if (!qve_pt_get_str(p, v, &s)) return false;
  if (!qve_pl_unit_short(s, strlen(s), u)) return qve_pt_fail(p, v->col, "expected a time unit 'ns', 'us' or 'ms'");
  return true;
}

static bool dtype_attr(pt *p, const pt_token *name, pt_args *a, bool called, pv *out, bool *matched) {
  qv_datatype t = QV_DATATYPE_INIT;
  qv_error e2;
  const char *n = name->text;
  *matched = true;
  if (!called && qve_pl_simple_dtype(n, strlen(n), &t)) return set_dtype(p, out, &t, true, name->col);
  if (strcmp(n, "Datetime") == 0) {
    qv_time_unit u;
    pv *z = called ? qve_pt_arg(a, 1, "time_zone") : NULL;
    const char *tz = NULL;
    if (!unit_arg(p, called ? qve_pt_arg(a, 0, "time_unit") : NULL, &u)) return false;
    if (z && z->kind != PV_NONE && !qve_pt_get_str(p, z, &tz)) return false;
    if (called && !qve_pt_all_used(p, a, "", "pl.Datetime")) return false;
    if (qv_datatype_timestamp(u, tz, &t, &e2) != QV_OK) return qve_pt_nomem(p);
    return set_dtype(p, out, &t, true, name->col);
  }
  if (strcmp(n, "Duration") == 0) {
    qv_time_unit u;
    if (!unit_arg(p, called ? qve_pt_arg(a, 0, "time_unit") : NULL, &u)) return false;
    if (called && !qve_pt_all_used(p, a, "", "pl.Duration")) return false;
    t = qv_datatype_duration(u);
    return set_dtype(p, out, &t, true, name->col);
  }
  if (strcmp(n, "Decimal") == 0 && called) {
    int64_t prec = 38, scale = 0;
    pv *pp = qve_pt_arg(a, 0, "precision"), *ps = qve_pt_arg(a, 1, "scale");
    if ((pp && pp->kind != PV_NONE && !qve_pt_get_int(p, pp, &prec)) || (ps && !qve_pt_get_int(p, ps, &scale)))
      return false;
    if (!qve_pt_all_used(p, a, "", "pl.Decimal")) return false;
    if (prec < 1 || prec > 38 || scale < 0 || scale > prec)
      return qve_pt_fail(p, a->col, "decimal precision must be 1..38 and scale 0..precision");
    if (qv_datatype_decimal((int32_t)prec, (int32_t)scale, &t, &e2) != QV_OK) return qve_pt_nomem(p);
    return set_dtype(p, out, &t, true, name->col);
  }
  if (strcmp(n, "List") == 0 && called) {
    pv *inner = qve_pt_arg(a, 0, "inner");
    if (!need(p, inner, a, "pl.List", "an inner type") || !qve_pt_all_used(p, a, "", "pl.List")) return false;
    if (inner->kind != PV_DTYPE) return qve_pt_fail(p, inner->col, "expected a data type");
    bool ok = inner->dtype_ok;
    if (ok) {
      qv_datatype item = inner->type;
      memset(&inner->type, 0, sizeof inner->type);
      if (qv_datatype_list(&item, &t, &e2) != QV_OK) {
        qv_datatype_reset(&item);
        return qve_pt_nomem(p);
      }
    }
    return set_dtype(p, out, &t, ok, name->col);
  }
  static const char *const other[] = {"Categorical", "Enum", "Struct", "Array", "Int128", "UInt128", "Object"};
  for (size_t k = 0; k < sizeof other / sizeof other[0]; k++)
    if (strcmp(n, other[k]) == 0) return set_dtype(p, out, &t, false, name->col); /* casts to it are UNKNOWN */
  *matched = false;
  return false;
}

/* Inputs of a horizontal function: positional args, lists flattened one
 * level (Polars takes *exprs or an iterable), strings as column names. */
static bool collect_inputs(pt *p, pt_args *a, qv_expr ***out, int32_t *n_out, int32_t *depth) {
  int32_t cap = 0, n = 0;
  qv_expr **v = NULL;
  *depth = 0;
  for (int32_t i = 0; i < a->n; i++) {
    if (a->a[i].kw) continue;
    a->a[i].used = true;
    pv *x = &a->a[i].v;
    int32_t m = x->kind == PV_LIST ? x->n_items : 1;
    for (int32_t k = 0; k < m; k++) {
      pv *item = x->kind == PV_LIST ? &x->items[k] : x;
      if (n == cap) {
        cap = cap ? cap * 2 : 4;
        qv_expr **nv = qv_realloc(v, (size_t)cap * sizeof *nv);
        if (!nv) goto fail_nomem;
        v = nv;
      }
      int32_t d;
      if (!to_expr(p, item, false, &v[n], &d)) goto cleanup;
      n++;
      if (d > *depth) *depth = d;
    }
  }
  *out = v;
  *n_out = n;
  return true;
fail_nomem:
  qve_pt_nomem(p);
cleanup:
  for (int32_t k = 0; k < n; k++) qv_expr_destroy(v[k]);
  qv_free(v);
  return false;
}

static bool horizontal(pt *p, const char *fn, pt_args *a, int32_t col, pv *out) {
  qv_expr **in;
  int32_t n, d;
  if (!collect_inputs(p, a, &in, &n, &d)) return false;
  const char *sep = "";
  bool ignore = false;
  bool concat = strcmp(fn, "concat_str") == 0;
  if (concat) {
    pv *s = qve_pt_arg(a, -1, "separator");
    if ((s && !qve_pt_get_str(p, s, &sep)) || !get_bool(p, qve_pt_arg(a, -1, "ignore_nulls"), false, &ignore))
      n = -n - 1;
  }
  if (n < 0 || !qve_pt_all_used(p, a, "", fn) || n == 0) {
    if (n < 0) n = -n - 1;
    for (int32_t k = 0; k < n; k++) qv_expr_destroy(in[k]);
    qv_free(in);
    return qve_diag_failed(&p->d) ? false : qve_pt_fail(p, a->col, "%s() expects at least one input", fn);
  }
  qv_expr *e;
  if (concat) e = qve_pl_concat_str(in, n, sep, strlen(sep), ignore);
  else if (strcmp(fn, "all_horizontal") == 0 || strcmp(fn, "any_horizontal") == 0)
    e = qve_pl_horizontal(fn[1] == 'l', in, n);
  else
    e = qve_pl_call(strcmp(fn, "coalesce") == 0         ? QV_OP_COALESCE
                    : strcmp(fn, "min_horizontal") == 0 ? QV_OP_MIN_HORIZONTAL
                                                        : QV_OP_MAX_HORIZONTAL,
                    in, n);
  qv_free(in);
  return qve_pt_set_expr(p, out, e, d + n, col); /* an AND chain is n deep at most */
}

static bool lit_typed(pt *p, pv *v, pv *dt, int32_t col, pv *out);
static bool date_value(pt *p, const char *fn, bool dt, pt_args *a, int32_t col, pv *out);

/* pl.date(y, m, d) and pl.datetime(y, m, d, h, mi, s, us, time_unit=):
 * with integer arguments Polars makes them literal expressions (a naive
 * datetime in time_unit; a date is that datetime cast strictly to Date,
 * which polars_json.c reads back as the date), so they are the literals
 * date(...) and datetime(...) make, but expressions: 1 < pl.date(...) is
 * not swapped.  Other arguments (columns, a time zone) make a Polars
 * function quiver does not evaluate: an unknown node. */
static bool pl_date(pt *p, const pt_token *name, pt_args *a, pv *out) {
  bool dt = name->text[4] == 't';
  const char *fn = dt ? "pl.datetime" : "pl.date";
  qv_time_unit unit = QV_UNIT_MICRO;
  if (dt) {
    pv *z = qve_pt_arg(a, -1, "time_zone");
    if (z && z->kind != PV_NONE) return qve_pt_set_expr(p, out, qve_pl_unknown("pl.datetime()", NULL, 0), 1, name->col);
    if (!unit_arg(p, qve_pt_arg(a, -1, "time_unit"), &unit)) return false;
  }
  for (int32_t i = 0; i < a->n; i++) {
    const pt_arg *x = &a->a[i];
    bool option = x->kw && (strcmp(x->kw->text, "time_unit") == 0 || strcmp(x->kw->text, "time_zone") == 0);
    if (!option && x->v.kind != PV_INT && !(x->kw && x->v.kind == PV_NONE)) {
      /* Columns or expressions: a Polars function, not a literal.  Like any
       * function quiver does not evaluate, an unknown node (translators
       * decline it; a scan names it), not a syntax error. */
      char label[32];
      snprintf(label, sizeof label, "%s()", fn);
      return qve_pt_set_expr(p, out, qve_pl_unknown(label, NULL, 0), 1, name->col);
    }
  }
  pv v;
  if (!date_value(p, fn, dt, a, name->col, &v)) return false;
  qv_scalar s = QV_SCALAR_INIT;
  if (dt) {
    /* From microseconds, as Polars converts the Python datetime. */
    int64_t x = v.i;
    if (unit == QV_UNIT_NANO && (x > INT64_MAX / 1000 || x < INT64_MIN / 1000))
      return qve_pt_fail(p, name->col, "%s() out of range for time_unit='ns'", fn);
    if (unit == QV_UNIT_MILLI && x % 1000 != 0)
      return qve_pt_fail(p, name->col, "%s() with microseconds and time_unit='ms' is not supported", fn);
    qv_error e2;
    if (qv_datatype_timestamp(unit, NULL, &s.type, &e2) != QV_OK) return qve_pt_nomem(p);
    s.is_null = false;
    s.v.i = unit == QV_UNIT_NANO ? x * 1000 : unit == QV_UNIT_MILLI ? x / 1000 : x;
  } else {
    s = qv_scalar_int(QV_TYPE_DATE32, v.i);
  }
  return qve_pt_set_expr(p, out, qve_pl_literal(&s, false), 1, name->col);
}

bool qve_pt_pl_attr(pt *p, const pt_token *name, pt_args *a, bool called, pv *out) {
  const char *n = name->text;
  bool matched;
  memset(out, 0, sizeof *out);
  if (dtype_attr(p, name, a, called, out, &matched) || matched) return !qve_diag_failed(&p->d);
  if (!called) return qve_pt_fail(p, name->col, "unknown attribute pl.%s", n);
  if (strcmp(n, "col") == 0) {
    pv *c = qve_pt_arg(a, 0, "name");
    const char *s;
    if (!need(p, c, a, "pl.col", "a column name") || !qve_pt_get_str(p, c, &s) || !qve_pt_all_used(p, a, "", "pl.col"))
      return false;
    return qve_pt_set_expr(p, out, qve_pl_mark(qv_expr_column(s)), 1, name->col);
  }
  if (strcmp(n, "lit") == 0) {
    pv *v = qve_pt_arg(a, 0, "value"), *dt = qve_pt_arg(a, 1, "dtype");
    if (!need(p, v, a, "pl.lit", "a value") || !qve_pt_all_used(p, a, "", "pl.lit")) return false;
    if (dt && dt->kind != PV_NONE) return lit_typed(p, v, dt, name->col, out);
    if (is_exprish_kind(v->kind)) return qve_pt_fail(p, v->col, "pl.lit() of an expression");
    qv_expr *e;
    int32_t d;
    return to_expr(p, v, true, &e, &d) && qve_pt_set_expr(p, out, e, d, name->col);
  }
  if (strcmp(n, "when") == 0) {
    qv_expr *e;
    int32_t d;
    if (a->n > 1) { /* pl.when(p1, p2, ...): Polars combines them with all_horizontal */
      pv all;
      if (!horizontal(p, "all_horizontal", a, name->col, &all)) return false;
      e = all.expr;
      d = all.depth;
    } else {
      pv *c = qve_pt_arg(a, 0, "predicate");
      if (!need(p, c, a, "pl.when", "a predicate") || !qve_pt_all_used(p, a, "", "pl.when") ||
          !to_expr(p, c, false, &e, &d))
        return false;
    }
    qv_expr *pairs = qve_pl_call1(QV_OP_WHEN, e);
    if (!pairs) return qve_pt_nomem(p);
    out->kind = PV_WHEN;
    out->expr = pairs;
    out->depth = d;
    out->col = name->col;
    return true;
  }
  if (strcmp(n, "date") == 0 || strcmp(n, "datetime") == 0) return pl_date(p, name, a, out);
  static const char *const hz[] = {"all_horizontal", "any_horizontal", "min_horizontal",
                                   "max_horizontal", "coalesce",       "concat_str"};
  for (size_t k = 0; k < sizeof hz / sizeof hz[0]; k++)
    if (strcmp(n, hz[k]) == 0) return horizontal(p, hz[k], a, name->col, out);
  /* A pl.* function this front end does not know (pl.len(), pl.sum(...), a
   * newer Polars' function): an unknown node, as for an unknown method. */
  char label[160];
  snprintf(label, sizeof label, "pl.%s()", n);
  return qve_pt_set_expr(p, out, qve_pl_unknown(label, NULL, 0), 1, name->col);
}

/* ---- pl.lit(value, dtype) ------------------------------------------------ */

static int bits_of(qv_type_id id) {
  switch (id) {
    case QV_TYPE_INT8:
    case QV_TYPE_UINT8: return 8;
    case QV_TYPE_INT16:
    case QV_TYPE_UINT16: return 16;
    case QV_TYPE_INT32:
    case QV_TYPE_UINT32: return 32;
    default: return 64;
  }
}

/* A Python value converted to an explicit dtype, as pl.lit(v, dtype=T)
 * makes it (a typed Scalar, never dynamic). */
static bool lit_typed(pt *p, pv *v, pv *dt, int32_t col, pv *out) {
  if (dt->kind != PV_DTYPE) return qve_pt_fail(p, dt->col, "expected a data type for dtype=");
  qv_scalar s = QV_SCALAR_INIT;
  qv_error e2;
  if (!dt->dtype_ok) {
    /* Polars has the type, quiver does not: as the JSON reader does. */
    return qve_pt_set_expr(p, out, qve_pl_unknown("Literal", NULL, 0), 1, col);
  }
  qv_type_id id = dt->type.id;
  if (v->kind == PV_NONE) {
    if (dt->type.id == QV_TYPE_TIMESTAMP || dt->type.id == QV_TYPE_DURATION || dt->type.id == QV_TYPE_DECIMAL128 ||
        dt->type.id == QV_TYPE_LIST || dt->type.id == QV_TYPE_TIME64)
      return qve_pt_set_expr(p, out, qve_pl_unknown("Literal", NULL, 0), 1, col); /* Null of a parametric dtype */
    return qve_pt_set_expr(p, out, qve_pl_null(id), 1, col);
  }
  if (qv_datatype_copy(&dt->type, &s.type) != QV_OK) return qve_pt_nomem(p);
  s.is_null = false;
  bool ok = true;
  if (qve_is_int(id) && v->kind == PV_INT) {
    bool neg = v->s[0] == '-';
    qv_expr *e = qve_pl_dyn_int_text(v->s, (size_t)v->n);
    ok = e && e->kind == QV_EXPR_LITERAL;
    if (ok && qve_is_sint(id)) {
      int b = bits_of(id);
      ok = e->value.type.id == QV_TYPE_INT64 &&
           (b == 64 || (e->value.v.i >= -(INT64_C(1) << (b - 1)) && e->value.v.i < (INT64_C(1) << (b - 1))));
      if (ok) s.v.i = e->value.v.i;
    } else if (ok) {
      int b = bits_of(id);
      uint64_t u = e->value.v.u;
      ok = !neg && (b == 64 || u < (UINT64_C(1) << b));
      if (ok) s.v.u = u;
    }
    qv_expr_destroy(e);
    if (!ok) {
      qv_scalar_reset(&s);
      return qve_pt_fail(p, v->col, "integer out of range for the dtype");
    }
  } else if (qve_is_float(id) && (v->kind == PV_INT || v->kind == PV_FLOAT)) {
    double f = v->f;
    if (v->kind == PV_INT && !qve_expr_parse_double(v->s, (size_t)v->n, &f)) ok = false;
    s.v.f = id == QV_TYPE_FLOAT32 ? (double)(float)f : f;
  } else if (id == QV_TYPE_BOOL && v->kind == PV_BOOL) {
    s.v.b = v->i != 0;
  } else if ((id == QV_TYPE_STRING && v->kind == PV_STR) || (id == QV_TYPE_BINARY && v->kind == PV_BYTES)) {
    s.bytes = (uint8_t *)v->s;
    s.len = v->n;
    v->s = NULL;
  } else if (id == QV_TYPE_DATE32 && v->kind == PV_DATE) {
    s.v.i = v->i;
  } else if (id == QV_TYPE_TIME64 && v->kind == PV_TIME) {
    s.v.i = v->i;
  } else if ((id == QV_TYPE_TIMESTAMP && v->kind == PV_DATETIME) ||
             (id == QV_TYPE_DURATION && v->kind == PV_TIMEDELTA)) {
    /* From microseconds; a naive datetime read as UTC wall time, which
     * is what Polars does for a UTC dtype (other zones need the zone
     * database, which the front end does not carry). */
    if (id == QV_TYPE_TIMESTAMP && s.type.timezone && strcmp(s.type.timezone, "UTC") != 0) {
      qv_scalar_reset(&s);
      return qve_pt_fail(p, dt->col, "pl.lit of a naive datetime with time zone '%s' is not supported (only UTC)",
                         dt->type.timezone);
    }
    int64_t x = v->i;
    switch (s.type.unit) {
      case QV_UNIT_NANO:
        ok = x <= INT64_MAX / 1000 && x >= INT64_MIN / 1000;
        s.v.i = ok ? x * 1000 : 0;
        break;
      case QV_UNIT_MILLI:
        ok = x % 1000 == 0;
        s.v.i = x / 1000;
        break;
      case QV_UNIT_SECOND:
        ok = x % 1000000 == 0;
        s.v.i = x / 1000000;
        break;
      default: s.v.i = x; break;
    }
  } else if (id == QV_TYPE_DECIMAL128 && (v->kind == PV_INT || v->kind == PV_DECIMAL)) {
    qve_i128 val = 0;
    int32_t from = 0;
    if (v->kind == PV_INT) ok = qve_expr_parse_decimal(v->s, (size_t)v->n, 38, 0, &val);
    else {
      val = v->dec;
      from = v->scale;
    }
    int32_t to = s.type.scale;
    if (ok && to >= from) {
      /* val has at most 38 digits; scaling must stay within them. */
      qve_i128 room = qve_expr_pow10(38 - (to - from));
      ok = val < room && val > -room;
      if (ok) val *= qve_expr_pow10(to - from);
    } else if (ok) ok = val % qve_expr_pow10(from - to) == 0, val /= qve_expr_pow10(from - to);
    qve_i128 lim = qve_expr_pow10(s.type.precision);
    ok = ok && val < lim && val > -lim;
    qve_dec_store(&s, val);
  } else {
    ok = false;
  }
  if (!ok) {
    qv_scalar_reset(&s);
    return qve_pt_fail(p, v->col, "cannot make a literal of this dtype from this value");
  }
  (void)e2;
  return qve_pt_set_expr(p, out, qve_pl_literal(&s, false), 1, col);
}

/* ---- Python constructors ------------------------------------------------- */

static bool int_arg(pt *p, pt_args *a, int pos, const char *kw, int64_t dflt, bool required, int64_t *out) {
  pv *v = qve_pt_arg(a, pos, kw);
  if (!v || (!required && v->kind == PV_NONE)) { /* pl.datetime(..., hour=None) */
    if (required) return qve_pt_fail(p, a->col, "missing argument '%s'", kw);
    *out = dflt;
    return true;
  }
  return qve_pt_get_int(p, v, out);
}

/* date(y, m, d) / datetime(y, m, d, h, mi, s, us) as a PV_DATE (days) or
 * PV_DATETIME (microseconds); fn names the function in messages. */
static bool date_value(pt *p, const char *fn, bool dt, pt_args *a, int32_t col, pv *out) {
  int64_t y, m, d, h = 0, mi = 0, s = 0, us = 0;
  memset(out, 0, sizeof *out);
  out->col = col;
  if (!int_arg(p, a, 0, "year", 0, true, &y) || !int_arg(p, a, 1, "month", 0, true, &m) ||
      !int_arg(p, a, 2, "day", 0, true, &d))
    return false;
  if (dt && (!int_arg(p, a, 3, "hour", 0, false, &h) || !int_arg(p, a, 4, "minute", 0, false, &mi) ||
             !int_arg(p, a, 5, "second", 0, false, &s) || !int_arg(p, a, 6, "microsecond", 0, false, &us)))
    return false;
  pv *tz = dt ? qve_pt_arg(a, 7, "tzinfo") : NULL;
  if (tz && tz->kind != PV_NONE && tz->kind != PV_TZ) return qve_pt_fail(p, tz->col, "%s() expects a tzinfo", fn);
  if (!qve_pt_all_used(p, a, "", fn)) return false;
  if (!valid_date(y, m, d) || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 || us < 0 || us > 999999)
    return qve_pt_fail(p, col, "%s() out of range", fn);
  int64_t days = days_from_civil(y, m, d);
  out->kind = dt ? PV_DATETIME : PV_DATE;
  out->i = dt ? ((days * 86400 + h * 3600 + mi * 60 + s) * 1000000 + us) : days;
  out->utc = tz && tz->kind == PV_TZ;
  return true;
}

bool qve_pt_builtin(pt *p, const pt_token *name, pt_args *a, pv *out) {
  const char *n = name->text;
  memset(out, 0, sizeof *out);
  out->col = name->col;
  if (strcmp(n, "date") == 0 || strcmp(n, "datetime") == 0) return date_value(p, n, n[4] == 't', a, name->col, out);
  if (strcmp(n, "ZoneInfo") == 0) {
    pv *v = qve_pt_arg(a, 0, "key");
    if (!need(p, v, a, n, "a zone name") || !qve_pt_all_used(p, a, "", n)) return false;
    if (v->kind != PV_STR) return qve_pt_fail(p, v->col, "ZoneInfo() expects a zone name");
    if (strcmp(v->s, "UTC") != 0 && strcmp(v->s, "Etc/UTC") != 0)
      return qve_pt_fail(p, v->col, "time zone '%s' is not supported (only UTC; named zones need a tz database)", v->s);
    out->kind = PV_TZ;
    return true;
  }
  if (strcmp(n, "time") == 0) {
    int64_t h, mi, s, us;
    if (!int_arg(p, a, 0, "hour", 0, false, &h) || !int_arg(p, a, 1, "minute", 0, false, &mi) ||
        !int_arg(p, a, 2, "second", 0, false, &s) || !int_arg(p, a, 3, "microsecond", 0, false, &us) ||
        !qve_pt_all_used(p, a, "", n))
      return false;
    if (h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 || us < 0 || us > 999999)
      return qve_pt_fail(p, name->col, "time() out of range");
    out->kind = PV_TIME;
    out->i = ((h * 3600 + mi * 60 + s) * 1000000 + us) * 1000;
    return true;
  }
  if (strcmp(n, "timedelta") == 0) {
    static const char *const kw[] = {"days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks"};
    static const int64_t us_per[] = {86400000000, 1000000, 1, 1000, 60000000, 3600000000, 604800000000};
    qve_i128 total = 0;
    for (int k = 0; k < 7; k++) {
      int64_t x;
      if (!int_arg(p, a, k, kw[k], 0, false, &x)) return false;
      total += (qve_i128)x * us_per[k];
      if (total > INT64_MAX || total < INT64_MIN) return qve_pt_fail(p, name->col, "timedelta() out of range");
    }
    if (!qve_pt_all_used(p, a, "", n)) return false;
    out->kind = PV_TIMEDELTA;
    out->i = (int64_t)total;
    return true;
  }
  if (strcmp(n, "Decimal") == 0) {
    pv *v = qve_pt_arg(a, 0, "value");
    if (!need(p, v, a, n, "a value") || !qve_pt_all_used(p, a, "", n)) return false;
    const char *s = v->s;
    if (v->kind == PV_INT || v->kind == PV_STR) {
      /* digits with an optional sign and point; the scale is the number of fraction digits */
      const char *dot = v->kind == PV_STR ? strchr(s, '.') : NULL;
      int32_t scale = dot ? (int32_t)strlen(dot + 1) : 0;
      qve_i128 val;
      if (scale > 38 || !qve_expr_parse_decimal(s, (size_t)v->n, 38, scale, &val))
        return qve_pt_fail(p, v->col, "Decimal() expects plain decimal digits");
      out->kind = PV_DECIMAL;
      out->dec = val;
      out->scale = scale;
      return true;
    }
    return qve_pt_fail(p, v->col, "Decimal() expects a string or an integer");
  }
  if (strcmp(n, "float") == 0) {
    pv *v = qve_pt_arg(a, 0, NULL);
    if (!need(p, v, a, n, "a value") || !qve_pt_all_used(p, a, "", n)) return false;
    out->kind = PV_FLOAT;
    if (v->kind == PV_FLOAT) out->f = v->f;
    else if ((v->kind == PV_STR || v->kind == PV_INT) && qve_expr_parse_double(v->s, (size_t)v->n, &out->f)) {
    } else if (v->kind == PV_STR && (strcmp(v->s, "nan") == 0 || strcmp(v->s, "NaN") == 0)) out->f = NAN;
    else if (v->kind == PV_STR && (strcmp(v->s, "inf") == 0 || strcmp(v->s, "+inf") == 0)) out->f = INFINITY;
    else if (v->kind == PV_STR && strcmp(v->s, "-inf") == 0) out->f = -INFINITY;
    else return qve_pt_fail(p, v->col, "float() of this value is not supported");
    return true;
  }
  return qve_pt_fail(p, name->col, "unknown function %s()", n);
}
