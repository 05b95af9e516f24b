/* Polars IR -> Lance SQL filter (docs/ARCHITECTURE.md, decisions 2 and 3).
 *
 * A node translates only when Lance (DataFusion) keeps the same rows as
 * Polars; otherwise it declines with a reason.  AND in positive position
 * may drop a declining conjunct (the result is then a superset, exact =
 * false); OR, NOT, XOR and anything under them translate exactly or not
 * at all (DESIGN.md decision 3).
 *
 * Float policy.  Polars orders floats with -0.0 == +0.0 and every NaN
 * equal and greatest; Lance uses the total order (-NaN < -inf < ... <
 * -0.0 < +0.0 < ... < +inf < +NaN).  With a schema that says a side is a
 * float: a zero literal is rewritten so both zeros match (`x = 0` ->
 * `((x = 0.0) OR (x = -0.0))`, `x >= 0` -> `(x >= -0.0)` ...), ordered
 * comparisons get an isnan() guard so NaN of either sign sorts greatest,
 * and float-vs-float comparisons of two expressions decline.  Without a
 * schema, a comparison that would differ for a float column with
 * -0.0 declines (zero literals with = != < >=, float literals, two
 * expressions), and NaN is assumed to be the positive, canonical NaN
 * (for which the total order agrees with Polars against a non-NaN
 * literal).  A computed value (arithmetic, negation) may be a NaN of either
 * sign even then, so schema-less ordered comparisons of one decline.
 *
 * Integer policy.  Both engines wrap on overflow, but Polars in the
 * operands' type and DataFusion in the type it coerces to (Int64 for a
 * narrow column against a literal), so literals are cast to the column's
 * type and unknown or mixed-signedness operands decline; abs of a signed
 * integer declines (Lance fails the whole query on the most negative
 * value).  These rules come from tests/peers/, which runs every generated
 * translation through pylance against Polars' rows. */
#include "lance_int.h"

/* Records why e declines (pushdown/decline.c spells the line); returns
 * false so callers can `return qvp_lsql_decline(...)`. */
bool qvp_lsql_decline(tr *t, const qv_expr *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  qvp_pd_vdecline(&t->why, &t->oom, e, true, 0, fmt, ap);
  va_end(ap);
  return false;
}

/* ---- the translator ------------------------------------------------- */

static bool emit_column(tr *t, const qv_expr *e, qvb_text *o) {
  if (strchr(e->name, '`')) return qvp_lsql_decline(t, e, "column name contains a backtick");
  /* Lance would fail the whole query; locally the binder says what is wrong */
  if (t->schema && qv_schema_find(t->schema, e->name) < 0)
    return qvp_lsql_decline(t, e, "no column `%s` in the schema", e->name);
  qvb_text_s(o, "`");
  qvb_text_s(o, e->name);
  qvb_text_s(o, "`");
  return true;
}

/* Translates every argument (so explain sees all of them) into parts;
 * true when all did. */
static bool args_into(tr *t, const qv_expr *e, int32_t from, qvb_text *parts) {
  bool ok = true;
  for (int32_t i = from; i < e->n_args; i++)
    if (!qvp_lsql_value(t, e->args[i], &parts[i])) ok = false;
  return ok;
}

static bool call_fn(tr *t, const qv_expr *e, const char *fn, qvb_text *o) {
  qvb_text parts[8] = {{0}};
  if (e->n_args > 8) return qvp_lsql_decline(t, e, "too many arguments");
  bool ok = args_into(t, e, 0, parts);
  if (ok) {
    qvb_text_s(o, fn);
    qvb_text_s(o, "(");
    for (int32_t i = 0; i < e->n_args; i++) {
      if (i) qvb_text_s(o, ", ");
      qvb_text_s(o, parts[i].p);
    }
    qvb_text_s(o, ")");
  }
  for (int32_t i = 0; i < e->n_args; i++) qvb_text_free(&parts[i]);
  return ok;
}

/* e's arguments, each cast to Polars' numeric result type r where Lance's
 * type for it differs (arith_operand), as fn(a, b, ...). */
static bool arith_operand(tr *t, const qv_expr *x, qv_type_id r, qvb_text *o);
static bool typed_call(tr *t, const qv_expr *e, const char *fn, qv_type_id r, qvb_text *o) {
  if (e->n_args > 8) return qvp_lsql_decline(t, e, "too many arguments");
  qvb_text parts[8] = {{0}};
  bool ok = true;
  for (int32_t i = 0; i < e->n_args; i++) ok = arith_operand(t, e->args[i], r, &parts[i]) && ok;
  if (ok) {
    qvb_text_f(o, "%s(", fn);
    for (int32_t i = 0; i < e->n_args; i++) qvb_text_f(o, "%s%s", i ? ", " : "", parts[i].p);
    qvb_text_s(o, ")");
  }
  for (int32_t i = 0; i < e->n_args; i++) qvb_text_free(&parts[i]);
  return ok;
}

/* coalesce / fill_null.  DataFusion computes coalesce in the widest
 * argument type, which for a Python number is Int64 or Float64 where
 * Polars keeps the column's type (i8.fill_null(2) stays Int8 and wraps
 * under arithmetic; f32.fill_null(0.1) is the Float32 0.1), so with a
 * numeric result type every argument is cast to it. */
static bool lance_coalesce(tr *t, const qv_expr *e, qvb_text *o) {
  qv_type_id r = qvp_lsql_type_of(t, e);
  if (qvp_lsql_sql_type(r)) return typed_call(t, e, "coalesce", r, o);
  return call_fn(t, e, "coalesce", o);
}

bool qvp_lsql_binop(tr *t, const qv_expr *e, const char *op, qvb_text *o) {
  qvb_text a = {0}, b = {0};
  bool ok = qvp_lsql_value(t, e->args[0], &a);
  ok = qvp_lsql_value(t, e->args[1], &b) && ok;
  if (ok) qvb_text_f(o, "(%s %s %s)", a.p, op, b.p);
  qvb_text_free(&a);
  qvb_text_free(&b);
  return ok;
}

static bool boolean_operand(tr *t, const qv_expr *e) {
  qv_type_id id = qvp_lsql_type_of(t, e);
  return id == QV_TYPE_BOOL || id == QV_TYPE_NULL;
}

static bool boolean_value(tr *t, const qv_expr *e, qvb_text *o);

static bool lance_logic(tr *t, const qv_expr *e, qvb_text *o) {
  for (int32_t i = 0; i < e->n_args; i++)
    if (!boolean_operand(t, e->args[i]))
      return qvp_lsql_decline(t, e, "on integers Polars' %s is bitwise", qv_op_name(e->op));
  qvb_text a = {0}, b = {0};
  bool ok = boolean_value(t, e->args[0], &a);
  if (e->n_args == 2) ok = boolean_value(t, e->args[1], &b) && ok;
  if (ok) {
    switch (e->op) {
      case QV_OP_AND: qvb_text_f(o, "(%s AND %s)", a.p, b.p); break;
      case QV_OP_OR: qvb_text_f(o, "(%s OR %s)", a.p, b.p); break;
      case QV_OP_XOR: qvb_text_f(o, "((%s OR %s) AND (NOT (%s AND %s)))", a.p, b.p, a.p, b.p); break;
      default: qvb_text_f(o, "(NOT %s)", a.p); break;
    }
  } else {
    qvb_text_f(&t->why, "declined %s%s: an operand does not translate exactly\n", qv_op_name(e->op),
               e->op == QV_OP_NOT ? "" : " (every branch must be exact)");
  }
  qvb_text_free(&a);
  qvb_text_free(&b);
  return ok;
}

/* Widening: every value of from is a value of to. */
static bool widening(qv_type_id from, qv_type_id to) {
  if (from == to) return true;
  if (qv_type_is_integer(from) && qv_type_is_integer(to)) {
    bool fs = qv_type_is_signed(from), ts = qv_type_is_signed(to);
    if (fs && !ts) return false;
    if (fs == ts) return qvp_lsql_int_rank(to) >= qvp_lsql_int_rank(from);
    return qvp_lsql_int_rank(to) > qvp_lsql_int_rank(from); /* unsigned -> wider signed */
  }
  if (qv_type_is_integer(from) && to == QV_TYPE_FLOAT64) return qvp_lsql_int_rank(from) <= 3;
  if (qv_type_is_integer(from) && to == QV_TYPE_FLOAT32) return qvp_lsql_int_rank(from) <= 2;
  return from == QV_TYPE_FLOAT32 && to == QV_TYPE_FLOAT64;
}

/* Float64 -> Float32 rounds to nearest in both engines (out of range is
 * infinite, NaN stays NaN), strict or not. */
static bool float_narrowing(qv_type_id from, qv_type_id to) { return from == QV_TYPE_FLOAT64 && to == QV_TYPE_FLOAT32; }

static bool lance_cast(tr *t, const qv_expr *e, qvb_text *o) {
  qv_type_id from = qvp_lsql_type_of(t, e->args[0]), to = e->type.id;
  const char *name = qvp_lsql_sql_type(to);
  if (to == QV_TYPE_STRING && qv_type_is_integer(from)) {
    /* integers print the same in both: decimal digits after an optional
     * '-' (checked in pylance on every width's extremes); no failure */
    qvb_text a = {0};
    bool ok = qvp_lsql_value(t, e->args[0], &a);
    if (ok) qvb_text_f(o, "CAST(%s AS STRING)", a.p);
    qvb_text_free(&a);
    return ok;
  }
  if (!name) return qvp_lsql_decline(t, e, "casts to this type format or parse differently in Lance");
  if (from == QV_TYPE_NULL) return qvp_lsql_decline(t, e, "the source type is unknown, so the cast may narrow");
  /* Polars' non-strict cast to an integer nulls what does not fit, is not
   * finite or does not parse, as TRY_CAST does, truncating fractions the
   * same (pylance 14.0.2 against Polars 2.1.0: every integer width's
   * extremes into every integer type; Float64 and Float32 NaN, infinities,
   * fractions and each type's edges; strings with signs, blanks, leading
   * zeros, exponents, '_', non-ASCII digits).  A string into an unsigned
   * type differs: Lance reads '-0' as 0, Polars as null.  Between integers
   * the TRY_CAST hides in nullif(.., NULL): DataFusion rewrites a bare
   * `TRY_CAST(i32 AS SMALLINT) >= -1` into `i32 >= -1`, which keeps the
   * rows the cast nulls (pylance 14.0.2). */
  bool lenient = !e->sem.cast_strict && !(e->flags & QV_EXPR_F_WRAP);
  if (lenient && qv_type_is_integer(to) && !widening(from, to) &&
      (qv_type_is_integer(from) || is_float(from) || (from == QV_TYPE_STRING && qv_type_is_signed(to)))) {
    qvb_text a = {0};
    bool ok = qvp_lsql_value(t, e->args[0], &a);
    if (ok && qv_type_is_integer(from)) qvb_text_f(o, "nullif(TRY_CAST(%s AS %s), NULL)", a.p, name);
    else if (ok) qvb_text_f(o, "TRY_CAST(%s AS %s)", a.p, name);
    qvb_text_free(&a);
    return ok;
  }
  if (!qv_type_is_numeric(from) || from == QV_TYPE_DECIMAL128)
    return qvp_lsql_decline(t, e, "only numeric casts translate");
  bool wide = widening(from, to) || float_narrowing(from, to);
  if (!wide && qv_type_is_integer(from) && qv_type_is_integer(to))
    return qvp_lsql_decline(t, e, "narrowing integer cast: out-of-range values differ");
  if (!wide && !e->sem.cast_strict)
    return qvp_lsql_decline(t, e, "a non-strict cast that is not widening nulls values Lance rejects");
  if (!wide && !(qv_type_is_integer(from) && is_float(to)))
    return qvp_lsql_decline(t, e, "float to integer casts round or fail differently");
  qvb_text a = {0};
  bool ok = qvp_lsql_value(t, e->args[0], &a);
  if (ok) qvb_text_f(o, "CAST(%s AS %s)", a.p, name);
  qvb_text_free(&a);
  return ok;
}

static bool lance_dt_part(tr *t, const qv_expr *e, qvb_text *o) {
  static const struct {
    const char *pl, *sql;
  } parts[] = {
      {"year", "year"},     {"month", "month"},     {"day", "day"},   {"hour", "hour"},
      {"minute", "minute"}, {"quarter", "quarter"}, {"week", "week"}, {"ordinal_day", "doy"},
      {"weekday", NULL},    {"second", "second"}, /* whole seconds in both (Lance's date_part gives an integer) */
  };
  const char *sql = NULL;
  bool found = false;
  for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
    if (e->name && strcmp(e->name, parts[k].pl) == 0) {
      sql = parts[k].sql;
      found = true;
    }
  if (!found) return qvp_lsql_decline(t, e, "dt.%s has no date_part with the same values", e->name ? e->name : "?");
  qv_type_id at = qvp_lsql_type_of(t, e->args[0]);
  if (at == QV_TYPE_NULL)
    return qvp_lsql_decline(t, e,
                            "the type is unknown: a zoned timestamp's parts are local time in Polars, UTC in Lance");
  if (at != QV_TYPE_DATE32 && at != QV_TYPE_TIMESTAMP)
    return qvp_lsql_decline(t, e, "dt.%s of a value that is not a date or datetime", e->name ? e->name : "?");
  /* A zoned timestamp's parts are local time in both: Lance's date_part
   * converts with the column's zone (every part, and weekday, equal to
   * Polars' on 60,000 instants of 1811..2286 in each of UTC, Europe/Berlin,
   * America/New_York, Asia/Kolkata, Australia/Lord_Howe, America/Sao_Paulo,
   * Africa/Casablanca, Asia/Tehran, Pacific/Apia, Europe/Dublin and -03:00,
   * and on every hour of the DST change days of 1900..2100 in Berlin). */
  qvb_text a = {0};
  bool ok = qvp_lsql_value(t, e->args[0], &a);
  if (ok && sql) qvb_text_f(o, "date_part('%s', %s)", sql, a.p);
  else if (ok) qvb_text_f(o, "(((date_part('dow', %s) + 6) %% 7) + 1)", a.p); /* ISO: Monday 1 .. Sunday 7 */
  qvb_text_free(&a);
  return ok;
}

static bool lance_dt_truncate(tr *t, const qv_expr *e, qvb_text *o) {
  static const struct {
    const char *every, *unit;
  } units[] = {
      {"1y", "year"}, {"1q", "quarter"}, {"1mo", "month"}, {"1w", "week"},
      {"1d", "day"},  {"1h", "hour"},    {"1m", "minute"}, {"1s", "second"},
  };
  const qv_expr *ev = e->args[1];
  if (!qve_is_str_lit(ev)) return qvp_lsql_decline(t, e, "dt.truncate with a computed interval");
  const char *unit = NULL;
  for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
    if (strcmp((const char *)ev->value.bytes, units[k].every) == 0) unit = units[k].unit;
  if (!unit)
    return qvp_lsql_decline(t, e, "dt.truncate(\"%s\"): only single units map to date_trunc",
                            (const char *)ev->value.bytes);
  if (qvp_lsql_type_of(t, e->args[0]) == QV_TYPE_NULL)
    return qvp_lsql_decline(t, e, "the type is unknown: a zoned timestamp truncates in local time in Polars");
  const qv_datatype *d = qvp_lsql_col_type(t, e->args[0]);
  if (d && d->id == QV_TYPE_TIMESTAMP && d->timezone)
    return qvp_lsql_decline(t, e, "a time-zone-aware timestamp: the local-time rules may differ");
  qvb_text a = {0};
  bool ok = qvp_lsql_value(t, e->args[0], &a);
  if (ok) qvb_text_f(o, "date_trunc('%s', %s)", unit, a.p);
  qvb_text_free(&a);
  return ok;
}

static bool lance_field_ref(tr *t, const qv_expr *e, qvb_text *o) {
  const qv_expr *base = e->args[0];
  if (base->kind != QV_EXPR_COLUMN && !(base->kind == QV_EXPR_CALL && base->op == QV_OP_FIELD))
    return qvp_lsql_decline(t, e, "struct.field of a computed struct");
  if (strchr(e->name, '`')) return qvp_lsql_decline(t, e, "field name contains a backtick");
  const qv_datatype *st = qvp_lsql_col_type(t, base);
  if (t->schema && (!st || st->id != QV_TYPE_STRUCT || !qvp_lsql_col_type(t, e)))
    return qvp_lsql_decline(t, e, "no struct field `%s` in the schema", e->name);
  qvb_text a = {0};
  bool ok = qvp_lsql_value(t, base, &a);
  if (ok) qvb_text_f(o, "%s.`%s`", a.p, e->name);
  qvb_text_free(&a);
  return ok;
}

/* + - * .  Polars computes in the operands' supertype and wraps integers
 * on overflow; DataFusion wraps too, but in the type it coerces to: Int64
 * for a narrow column against a literal (Polars keeps i8 + 100 an i8),
 * Float32 for an Int32 times a Float32 (Polars: Float64), and its own type
 * for a lowered function (date_part is Int32 where dt.month() is Int8).
 * So the result type R is Polars' (qvp_lsql_numeric_type), every operand
 * whose Lance type is not R is cast to R, and a literal is cast to R
 * unless Lance already reads it so (Int64, Float64). */
static bool arith_operand(tr *t, const qv_expr *x, qv_type_id r, qvb_text *o) {
  qvb_text a = {0};
  bool ok = qvp_lsql_value(t, x, &a);
  bool lit = qve_is_value_lit(x);
  bool same =
      lit ? (qv_type_is_integer(x->value.type.id) ? r == QV_TYPE_INT64 || r == QV_TYPE_FLOAT64 : r == QV_TYPE_FLOAT64)
          : qvp_lsql_lance_type(t, x) == r;
  if (ok && same) qvb_text_s(o, a.p);
  else if (ok) qvb_text_f(o, "CAST(%s AS %s)", a.p, qvp_lsql_sql_type(r));
  qvb_text_free(&a);
  return ok;
}

static bool arith_binop(tr *t, const qv_expr *e, const char *op, qvb_text *o) {
  const qv_expr *x = e->args[0], *y = e->args[1];
  qv_type_id tx = qvp_lsql_type_of(t, x), ty = qvp_lsql_type_of(t, y);
  bool lx = qve_is_lit(x), ly = qve_is_lit(y);
  /* string + string is Polars' concatenation, null if either is: Lance's
   * || is the same (checked in pylance with nulls and non-ASCII text) */
  if (e->op == QV_OP_ADD && tx == QV_TYPE_STRING && ty == QV_TYPE_STRING && !qve_is_null_lit(x) && !qve_is_null_lit(y))
    return qvp_lsql_binop(t, e, "||", o);
  if (lx && ly) return qvp_lsql_binop(t, e, op, o);
  if ((!lx && tx == QV_TYPE_NULL) || (!ly && ty == QV_TYPE_NULL))
    return qvp_lsql_decline(t, e,
                            "an operand of unknown type: integer overflow wraps in Polars' type and in a wider "
                            "type in Lance");
  for (int i = 0; i < 2; i++) {
    const qv_expr *v = i ? y : x;
    qv_type_id vt = i ? ty : tx;
    if (qve_is_null_lit(v)) continue;
    if (!qv_type_is_numeric(vt) || vt == QV_TYPE_DECIMAL128)
      return qvp_lsql_decline(t, e, "arithmetic on non-numeric or decimal values");
  }
  qv_type_id r = qvp_lsql_numeric_type(t, e);
  if (r == QV_TYPE_NULL || !qvp_lsql_sql_type(r))
    return qvp_lsql_decline(t, e,
                            "Polars' result type has no Lance spelling (a UInt64 with a signed integer is "
                            "Int128 in Polars)");
  /* An integer literal outside the other side's type widens Polars' type
   * (Int8 + 255 is Int16, UInt32 + -1 Int64): both sides are cast to it.
   * Only UInt64 + a negative literal narrows (to Int64), which Lance's
   * CAST fails on for values past 2**63. */
  for (int i = 0; i < 2; i++) {
    qv_type_id vt = i ? ty : tx;
    if (!qve_is_lit(i ? y : x) && qv_type_is_integer(vt) && qv_type_is_integer(r) && !widening(vt, r))
      return qvp_lsql_decline(t, e, "Polars computes it in a type narrower than an operand's (UInt64 + -1 is Int64)");
  }
  qvb_text a = {0}, b = {0};
  bool ok = arith_operand(t, x, r, &a);
  ok = arith_operand(t, y, r, &b) && ok;
  if (ok) qvb_text_f(o, "(%s %s %s)", a.p, op, b.p);
  qvb_text_free(&a);
  qvb_text_free(&b);
  return ok;
}

static bool lance_arith(tr *t, const qv_expr *e, qvb_text *o) {
  switch (e->op) {
    case QV_OP_ADD: return arith_binop(t, e, "+", o);
    case QV_OP_SUB: return arith_binop(t, e, "-", o);
    case QV_OP_MUL: return arith_binop(t, e, "*", o);
    case QV_OP_DIV: {
      if (!(e->flags & QV_EXPR_F_TRUE_DIV)) return qvp_lsql_binop(t, e, "/", o);
      int f32 = qvp_lsql_div_float32(t, e);
      if (f32 < 0) return qvp_lsql_decline(t, e, "/ of a Float32 and another type: the result type is not pinned down");
      /* Polars divides by a scalar as a product with its reciprocal (0.3 /
       * 0.1 is 3.0 there, 2.9999999999999996 as a quotient): the same
       * product, with the reciprocal computed here in Polars' float type,
       * is what Lance must compute to keep Polars' rows exactly. */
      double c;
      bool recip = e->sem.float_order == QV_FLOAT_POLARS && !qve_is_lit(e->args[0]) && lit_number(e->args[1], &c);
      double r = recip ? (f32 ? (double)(1.0f / (float)c) : 1.0 / c) : 0;
      /* x / 0 and x * (1 / 0) agree (IEEE: inf, NaN for 0), so a divisor
       * without a finite, nonzero reciprocal stays a quotient. */
      /* Without the dividend's type the float type of the product is not
       * known (Float32 or Float64), and only a power of two gives the same
       * bits either way, as a product or a quotient. */
      int exp2;
      bool pow2 = recip && fabs(frexp(c, &exp2)) == 0.5;
      if (recip && !pow2 && qvp_lsql_type_of(t, e->args[0]) == QV_TYPE_NULL)
        return qvp_lsql_decline(t, e,
                                "/ by a constant is a product with its reciprocal in Polars' float type, which is "
                                "not known without a schema");
      if (recip && !pow2 && isfinite(r) && r != 0) {
        qvb_text a = {0};
        char buf[64];
        bool ok = qvp_lsql_value(t, e->args[0], &a);
        qvp_lsql_fmt_double(r, buf, sizeof buf);
        if (ok && f32) qvb_text_f(o, "(%s * CAST(%s AS FLOAT))", a.p, buf);
        else if (ok && qvp_lsql_type_of(t, e->args[0]) == QV_TYPE_FLOAT64) qvb_text_f(o, "(%s * %s)", a.p, buf);
        else if (ok) qvb_text_f(o, "(CAST(%s AS DOUBLE) * %s)", a.p, buf);
        qvb_text_free(&a);
        return ok;
      }
      qvb_text a = {0}, b = {0};
      bool ok = qvp_lsql_value(t, e->args[0], &a);
      ok = qvp_lsql_value(t, e->args[1], &b) && ok;
      if (ok) {
        qvb_text_s(o, "(");
        for (int i = 0; i < 2; i++) {
          const qv_expr *x = e->args[i];
          double v;
          char buf[64];
          if (i) qvb_text_s(o, " / ");
          if (f32 && lit_number(x, &v)) {
            qvb_text_f(o, "CAST(%s AS FLOAT)", i ? b.p : a.p); /* Polars divides a Float32 in Float32 */
          } else if (f32) {
            qvb_text_s(o, i ? b.p : a.p);
          } else if (lit_number(x, &v) && isfinite(v) && fabs(v) < 9.0e15) {
            qvp_lsql_fmt_double(v, buf, sizeof buf); /* a float literal: Lance divides as double */
            qvb_text_s(o, buf);
          } else if (qvp_lsql_type_of(t, x) == QV_TYPE_FLOAT64) {
            qvb_text_s(o, i ? b.p : a.p);
          } else {
            qvb_text_f(o, "CAST(%s AS DOUBLE)", i ? b.p : a.p);
          }
        }
        qvb_text_s(o, ")");
      }
      qvb_text_free(&a);
      qvb_text_free(&b);
      return ok;
    }
    case QV_OP_FLOORDIV: {
      /* Floor division of an integer by an integer literal from Lance's
       * truncating one: x / k, one less where the remainder is nonzero and
       * of the other sign than k.  |x / k| <= |x| for |k| >= 2, so nothing
       * leaves x's type; k = -1 is left out (i64::MIN / -1 overflows in
       * Lance and wraps in Polars), and so is 0 (null in Polars). */
      int64_t k;
      qv_type_id xt = qvp_lsql_type_of(t, e->args[0]);
      if (!int_lit(e->args[1], &k) || !qv_type_is_integer(xt) || k == 0 || k == -1 || k > ((int64_t)1 << 62) ||
          k < -((int64_t)1 << 62) || (k < 0 && !qv_type_is_signed(xt)))
        return qvp_lsql_decline(t, e,
                                "// floors in Polars and truncates in Lance; only an integer divided by an integer "
                                "literal other than 0 and -1 is rewritten (a negative one for signed integers)");
      qvb_text a = {0};
      bool ok = qvp_lsql_value(t, e->args[0], &a);
      if (ok && !qv_type_is_signed(xt)) qvb_text_f(o, "(%s / %lld)", a.p, (long long)k);
      else if (ok)
        qvb_text_f(o, "((%s / %lld) - CAST(((%s %% %lld) %s 0) AS BIGINT))", a.p, (long long)k, a.p, (long long)k,
                   k > 0 ? "<" : ">");
      qvb_text_free(&a);
      return ok;
    }
    case QV_OP_MOD: {
      int64_t k;
      qv_type_id xt = qvp_lsql_type_of(t, e->args[0]);
      /* Floor modulo from Lance's truncating one: ((x % k) + k) % k, for a
       * divisor of either sign (|x % k| < |k|, so the sum cannot overflow;
       * k = -1 is left out: i64::MIN % -1 overflows in Lance, 0 in Polars). */
      if (!int_lit(e->args[1], &k) || !qv_type_is_integer(xt) || k > ((int64_t)1 << 62) ||
          (k <= 0 && !(qv_type_is_signed(xt) && k < -1 && k >= -((int64_t)1 << 62))))
        return qvp_lsql_decline(t, e,
                                "%% follows the divisor in Polars and the dividend in Lance; only an integer modulo "
                                "an integer literal other than 0 and -1 is rewritten (a negative one for signed "
                                "integers)");
      qvb_text a = {0};
      bool ok = qvp_lsql_value(t, e->args[0], &a);
      if (ok && !qv_type_is_signed(xt)) qvb_text_f(o, "(%s %% %lld)", a.p, (long long)k);
      else if (ok) qvb_text_f(o, "(((%s %% %lld) + %lld) %% %lld)", a.p, (long long)k, (long long)k, (long long)k);
      qvb_text_free(&a);
      return ok;
    }
    case QV_OP_NEG: {
      qvb_text a = {0};
      bool ok = qvp_lsql_value(t, e->args[0], &a);
      if (ok) qvb_text_f(o, "(-%s)", a.p);
      qvb_text_free(&a);
      return ok;
    }
    case QV_OP_POW: {
      int64_t k;
      const qv_expr *y = e->args[1];
      double f;
      qv_type_id bt = qvp_lsql_type_of(t, e->args[0]);
      bool float_exp = false;
      if (!int_lit(y, &k)) {
        if (lit_number(y, &f) && f == floor(f) && f >= 1 && f <= 8) k = (int64_t)f;
        else return qvp_lsql_decline(t, e, "** with a fractional, negative or computed exponent");
        float_exp = true;
      }
      if (k < 1 || k > 8)
        return qvp_lsql_decline(t, e, "** with exponent %lld: only 1..8 become multiplication", (long long)k);
      /* Polars raises a float to a whole exponent 2..9 by repeated
       * multiplication, ((x * x) * x) ..., not pow() (bit for bit on
       * 400,000 Float64 and Float32 values, random bit patterns included,
       * Polars 2.1.0): Lance's products round the same.  An integer to a
       * float exponent is a Float64 in Polars, so its base is cast. */
      if (float_exp && bt == QV_TYPE_NULL)
        return qvp_lsql_decline(t, e, "** with a float exponent on a value of unknown type (Float64 or not)");
      qvb_text a = {0};
      bool ok = qvp_lsql_value(t, e->args[0], &a);
      if (ok && float_exp && qv_type_is_integer(bt)) {
        qvb_text c = {0};
        qvb_text_f(&c, "CAST(%s AS DOUBLE)", a.p);
        qvb_text_free(&a);
        a = c;
      }
      if (ok) {
        qvb_text_s(o, "(");
        for (int64_t i = 0; i < k; i++) {
          if (i) qvb_text_s(o, " * ");
          qvb_text_s(o, a.p);
        }
        qvb_text_s(o, ")");
      }
      qvb_text_free(&a);
      return ok;
    }
    default: return false;
  }
}

/* str.contains_any(["a", "b"]): any pattern occurs as a substring, an
 * empty pattern always; the same as an OR of contains(). */
static bool lance_contains_any(tr *t, const qv_expr *e, qvb_text *o) {
  if (e->flags & QV_EXPR_F_ASCII_CI)
    return qvp_lsql_decline(t, e, "contains_any(ascii_case_insensitive=True) has no exact Lance spelling");
  const qv_expr *l = e->args[1];
  bool ok = l->kind == QV_EXPR_CALL && l->op == QV_OP_LIST && l->n_args >= 1 && l->n_args <= 256;
  for (int32_t i = 0; ok && i < l->n_args; i++) ok = qve_is_str_lit(l->args[i]);
  if (!ok) return qvp_lsql_decline(t, e, "contains_any needs a literal list of 1..256 strings without nulls");
  qvb_text a = {0}, parts = {0};
  ok = qvp_lsql_value(t, e->args[0], &a);
  for (int32_t i = 0; ok && i < l->n_args; i++) {
    qvb_text p = {0};
    ok = qvp_lsql_emit_string(t, l->args[i], l->args[i]->value.bytes, l->args[i]->value.len, &p);
    if (ok) qvb_text_f(&parts, "%scontains(%s, %s)", i ? " OR " : "", a.p, p.p);
    qvb_text_free(&p);
  }
  if (ok) qvb_text_f(o, l->n_args > 1 ? "(%s)" : "%s", parts.p);
  qvb_text_free(&a);
  qvb_text_free(&parts);
  return ok;
}

static bool lance_compare(tr *t, const qv_expr *e, qvb_text *o) { return qvp_lsql_compare(t, e, o); }

static bool lance_in_list(tr *t, const qv_expr *e, qvb_text *o) { return qvp_lsql_in_list(t, e, o); }

static bool lance_null_test(tr *t, const qv_expr *e, qvb_text *o) {
  qvb_text a = {0};
  bool ok = qvp_lsql_value(t, e->args[0], &a);
  if (ok) qvb_text_f(o, "(%s %s)", a.p, qv_op_name(e->op));
  qvb_text_free(&a);
  return ok;
}

static bool lance_regexp_match(tr *t, const qv_expr *e, qvb_text *o) {
  if (e->flags & QV_EXPR_F_LENIENT)
    return qvp_lsql_decline(t, e, "str.contains(strict=False): an invalid regex is null in Polars, an error in Lance");
  if (e->n_args != 2) return qvp_lsql_decline(t, e, "regex flags");
  return call_fn(t, e, "regexp_like", o);
}

static bool lance_abs(tr *t, const qv_expr *e, qvb_text *o) {
  qv_type_id id = qvp_lsql_type_of(t, e->args[0]);
  if (id == QV_TYPE_NULL || (qv_type_is_integer(id) && qv_type_is_signed(id)))
    return qvp_lsql_decline(t, e, "abs of the most negative integer wraps in Polars and fails the whole Lance query");
  return call_fn(t, e, "abs", o);
}

/* sqrt, ln, log10, cbrt of a Float64: Lance computes them with the same
 * Rust functions as Polars (bit for bit on 40,008 values, random bit
 * patterns included, in pylance 14.0.2) and gives NaN outside the domain
 * as Polars does (a comparison over the result carries the NaN guards of
 * any float).  log10 is Polars' ln(x) / ln(10): Lance's own log10 differs
 * in the last bit on half the values.  Float32 (computed in Float32 by
 * both, not checked) declines. */
static bool lance_float_fn(tr *t, const qv_expr *e, qvb_text *o) {
  if (e->n_args != 1 || qvp_lsql_type_of(t, e->args[0]) != QV_TYPE_FLOAT64)
    return qvp_lsql_decline(t, e, "%s pushes for Float64 only (Float32 is not checked against Lance)",
                            qv_op_name(e->op));
  if (e->op != QV_OP_LOG10) return call_fn(t, e, qv_op_name(e->op), o); /* sqrt, ln, cbrt: the same names in Lance */
  qvb_text a = {0};
  bool ok = qvp_lsql_value(t, e->args[0], &a);
  if (ok) qvb_text_f(o, "(ln(%s) / ln(10.0))", a.p);
  qvb_text_free(&a);
  return ok;
}

static bool lance_fill_null(tr *t, const qv_expr *e, qvb_text *o) {
  if (e->n_args != 2) return qvp_lsql_decline(t, e, "fill_null(strategy=...) looks at other rows");
  return lance_coalesce(t, e, o);
}

/* isnan, is_not_nan, is_finite, is_infinite */
static bool lance_nan_test(tr *t, const qv_expr *e, qvb_text *o) {
  qv_type_id id = qvp_lsql_type_of(t, e->args[0]);
  if (id != QV_TYPE_NULL && !is_float(id) && !qv_type_is_integer(id))
    return qvp_lsql_decline(t, e, "the NaN tests apply to numbers only");
  qvb_text a = {0};
  bool ok = qvp_lsql_value(t, e->args[0], &a);
  bool nan_like = e->op == QV_OP_ISNAN || e->op == QV_OP_IS_INFINITE;
  if (ok && qv_type_is_integer(id)) {
    /* an integer is never NaN nor infinite; a null stays null in Polars */
    if (nan_like) qvb_text_f(o, "((%s IS NULL) AND CAST(NULL AS BOOLEAN))", a.p);
    else qvb_text_f(o, "((%s IS NOT NULL) OR CAST(NULL AS BOOLEAN))", a.p);
  } else if (ok) {
    if (e->op == QV_OP_ISNAN) qvb_text_f(o, "isnan(%s)", a.p);
    else if (e->op == QV_OP_IS_NOT_NAN) qvb_text_f(o, "(NOT isnan(%s))", a.p);
    /* abs() clears NaN's sign, and +NaN sorts above +inf in the total order. */
    else if (e->op == QV_OP_IS_FINITE) qvb_text_f(o, "(abs(%s) < CAST('inf' AS DOUBLE))", a.p);
    else qvb_text_f(o, "(abs(%s) = CAST('inf' AS DOUBLE))", a.p);
  }
  qvb_text_free(&a);
  return ok;
}

/* min/max_horizontal of floats, directly under a comparison: Polars skips
 * NaN unless every input is NaN or null (min(inf, NaN) is inf), where
 * Lance's least/greatest order NaN by sign; nanvl(x, NULL) hides NaN from
 * them, and the coalesce brings a NaN back where nothing else is left.
 * The result can still differ from Polars' in the sign of a zero
 * (min(-0.0, 0.0) is 0.0 in Polars, -0.0 in Lance) or of a NaN, which a
 * comparison as quiver spells it cannot see (checked in pylance on every
 * pair of NaN of both signs, infinities, zeros, nulls and ordinary values,
 * also under NOT). */
static bool float_horizontal(tr *t, const qv_expr *e, const char *fn, qv_type_id r, qvb_text *o) {
  if (e->n_args > 8) return qvp_lsql_decline(t, e, "too many arguments");
  qvb_text parts[8] = {{0}};
  bool ok = true;
  for (int32_t i = 0; i < e->n_args; i++) ok = arith_operand(t, e->args[i], r, &parts[i]) && ok;
  if (ok) {
    qvb_text_f(o, "coalesce(%s(", fn);
    for (int32_t i = 0; i < e->n_args; i++) qvb_text_f(o, "%snanvl(%s, NULL)", i ? ", " : "", parts[i].p);
    qvb_text_s(o, ")");
    for (int32_t i = 0; i < e->n_args; i++) qvb_text_f(o, ", %s", parts[i].p);
    qvb_text_s(o, ")");
  }
  for (int32_t i = 0; i < e->n_args; i++) qvb_text_free(&parts[i]);
  return ok;
}

/* min_horizontal / max_horizontal: least / greatest */
static bool lance_horizontal(tr *t, const qv_expr *e, qvb_text *o) {
  /* Polars compares in the inputs' supertype; cast to it, Lance's type is
   * then Polars' (a literal compared with the result fits both). */
  qv_type_id r = qvp_lsql_type_of(t, e);
  const char *fn = e->op == QV_OP_MIN_HORIZONTAL ? "least" : "greatest";
  if (is_float(r) && t->sign_free == e) return float_horizontal(t, e, fn, r, o);
  for (int32_t i = 0; i < e->n_args; i++)
    if (!qve_is_lit(e->args[i]) && maybe_float(t, e->args[i]))
      return qvp_lsql_decline(t, e,
                              "an input may be a float: Polars and Lance order -0.0 and NaN differently (only a "
                              "comparison of the result, which cannot tell them apart, translates)");
  if (qvp_lsql_sql_type(r)) return typed_call(t, e, fn, r, o);
  if (r == QV_TYPE_DECIMAL128 && qvp_lsql_int128(t, e)) {
    /* Int128 in Polars: DECIMAL(20, 0) holds every Int64 and UInt64 value
     * (checked in pylance with both types' extremes, against literals up
     * to 2**64 - 1 and down to -2**63, also under NOT) */
    if (e->n_args > 8) return qvp_lsql_decline(t, e, "too many arguments");
    qvb_text parts[8] = {{0}};
    bool ok = args_into(t, e, 0, parts);
    if (ok) {
      qvb_text_f(o, "%s(", fn);
      for (int32_t i = 0; i < e->n_args; i++) qvb_text_f(o, "%sCAST(%s AS DECIMAL(20, 0))", i ? ", " : "", parts[i].p);
      qvb_text_s(o, ")");
    }
    for (int32_t i = 0; i < e->n_args; i++) qvb_text_free(&parts[i]);
    return ok;
  }
  if (r == QV_TYPE_NULL && t->schema)
    return qvp_lsql_decline(t, e, "the inputs' supertype is not known or has no Lance type (Int128)");
  return call_fn(t, e, fn, o);
}

/* all_horizontal / any_horizontal of one argument: the argument */
static bool lance_bool_horizontal(tr *t, const qv_expr *e, qvb_text *o) {
  if (e->n_args != 1) return qvp_lsql_decline(t, e, "empty horizontal");
  return qvp_lsql_value(t, e->args[0], o);
}

/* concat_str: || (null if any part is), concat_ws with ignore_nulls.  An
 * integer part is cast to text first, as Polars does: both print decimal
 * digits after an optional '-' (lance_cast); other types print
 * differently (floats, bools, dates). */
static bool lance_concat_str(tr *t, const qv_expr *e, qvb_text *o) {
  for (int32_t i = 0; i < e->n_args; i++) {
    qv_type_id id = qvp_lsql_type_of(t, e->args[i]);
    if (id != QV_TYPE_STRING && !qv_type_is_integer(id))
      return qvp_lsql_decline(t, e,
                              "concat_str of a value not known to be a string or an integer (number formats differ)");
  }
  if (e->n_args < 1 || e->n_args > 7) return qvp_lsql_decline(t, e, "concat_str arity");
  qvb_text parts[8] = {{0}};
  bool ok = args_into(t, e, 0, parts);
  for (int32_t i = 0; ok && i < e->n_args; i++)
    if (qv_type_is_integer(qvp_lsql_type_of(t, e->args[i]))) {
      qvb_text c = {0};
      qvb_text_f(&c, "CAST(%s AS STRING)", parts[i].p);
      qvb_text_free(&parts[i]);
      parts[i] = c;
    }
  qvb_text sep = {0};
  const char *sn = e->name ? e->name : "";
  ok = ok && qvp_lsql_emit_string(t, e, (const uint8_t *)sn, (int64_t)strlen(sn), &sep);
  if (ok && (e->flags & QV_EXPR_F_IGNORE_NULLS)) {
    qvb_text_f(o, "concat_ws(%s", sep.p);
    for (int32_t i = 0; i < e->n_args; i++) qvb_text_f(o, ", %s", parts[i].p);
    qvb_text_s(o, ")");
  } else if (ok) {
    qvb_text_s(o, "(");
    for (int32_t i = 0; i < e->n_args; i++) {
      if (i) qvb_text_f(o, " || %s || ", sep.p);
      qvb_text_s(o, parts[i].p);
    }
    qvb_text_s(o, ")");
  }
  for (int32_t i = 0; i < e->n_args; i++) qvb_text_free(&parts[i]);
  qvb_text_free(&sep);
  return ok;
}

static bool lance_strip_chars(tr *t, const qv_expr *e, qvb_text *o) {
  if (qve_is_null_lit(e->args[1]))
    return qvp_lsql_decline(t, e, "str.strip_chars() strips Unicode whitespace, btrim only spaces");
  return call_fn(t, e, "btrim", o);
}

static bool lance_replace(tr *t, const qv_expr *e, qvb_text *o) {
  if (e->flags & QV_EXPR_F_LITERAL)
    return qvp_lsql_decline(t, e, "str.replace(literal=True) has no exact Lance spelling");
  const qv_expr *v = e->args[2];
  if (!qve_is_str_lit(v) || strpbrk((const char *)v->value.bytes, "$\\"))
    return qvp_lsql_decline(t, e, "a replacement that is computed or holds $ or \\ (group references differ)");
  if (e->param != 1 && e->param != -1) return qvp_lsql_decline(t, e, "str.replace with n=%lld", (long long)e->param);
  qvb_text parts[3] = {{0}};
  bool ok = args_into(t, e, 0, parts);
  if (ok)
    qvb_text_f(o, "regexp_replace(%s, %s, %s%s)", parts[0].p, parts[1].p, parts[2].p, e->param == -1 ? ", 'g'" : "");
  for (int i = 0; i < 3; i++) qvb_text_free(&parts[i]);
  return ok;
}

/* dt.date: CAST AS DATE, the local date for a zoned timestamp in both
 * (checked as dt parts are, lance_dt_part). */
static bool lance_dt_date(tr *t, const qv_expr *e, qvb_text *o) {
  const qv_datatype *d = qvp_lsql_col_type(t, e->args[0]);
  if (!d || d->id != QV_TYPE_TIMESTAMP) return qvp_lsql_decline(t, e, "dt.date needs a value known to be a timestamp");
  qvb_text a = {0};
  bool ok = qvp_lsql_value(t, e->args[0], &a);
  if (ok) qvb_text_f(o, "CAST(%s AS DATE)", a.p);
  qvb_text_free(&a);
  return ok;
}

/* list.contains(item).  Polars: a null item is found where the list holds a
 * null; Lance's array_has(l, NULL) is NULL.  array_position finds a null
 * element, and nullif(l IS NULL, TRUE) keeps a null list null.  An item
 * that may be null (not a literal) declines. */
static bool lance_array_has(tr *t, const qv_expr *e, qvb_text *o) {
  const qv_expr *item = e->args[1];
  if (qve_is_null_lit(item)) {
    qvb_text a = {0};
    bool ok = qvp_lsql_value(t, e->args[0], &a);
    if (ok) qvb_text_f(o, "((array_position(%s, NULL) IS NOT NULL) OR nullif(%s IS NULL, TRUE))", a.p, a.p);
    qvb_text_free(&a);
    return ok;
  }
  if (!qve_is_value_lit(item))
    return qvp_lsql_decline(t, e,
                            "list.contains of an item that may be null: Polars finds a null element, Lance's "
                            "array_has gives NULL");
  return call_fn(t, e, "array_has", o);
}

static bool lance_list_get(tr *t, const qv_expr *e, qvb_text *o) {
  int64_t k;
  if (!(e->flags & QV_EXPR_F_NULL_ON_OOB))
    return qvp_lsql_decline(t, e, "list.get without null_on_oob fails in Polars, gives NULL in Lance");
  if (!int_lit(e->args[1], &k) || k == INT64_MAX) return qvp_lsql_decline(t, e, "list.get with a computed index");
  qvb_text a = {0};
  bool ok = qvp_lsql_value(t, e->args[0], &a);
  if (ok) qvb_text_f(o, "array_element(%s, %lld)", a.p, (long long)(k >= 0 ? k + 1 : k));
  qvb_text_free(&a);
  return ok;
}

/* The LANCE column of expr/ops.def: a same-arguments function, a reason
 * to decline, or a lance_<x> above. */
typedef struct lowering {
  bool (*custom)(tr *t, const qv_expr *e, qvb_text *o);
  const char *fn;
  const char *why;
} lowering;
#define LANCE_FN(f) \
  { NULL, f, NULL }
#define LANCE_DECLINE(w) \
  { NULL, NULL, w }
#define LANCE_UNSUPPORTED \
  { NULL, NULL, NULL }
#define LANCE_CUSTOM(x) \
  { lance_##x, NULL, NULL }
#define QV_OP_ROW(id, name, lo, hi, cls, mirror, sql, print, bind, kernel, lance, ...) lance,
static const lowering lowerings[QV_OP__COUNT] = {
#include "expr/ops.def"
};
#undef QV_OP_ROW

static bool is_logic(const qv_expr *e) { return e->kind == QV_EXPR_CALL && qve_op_is_logic(e->op); }

/* A null literal in boolean position (the filter itself, an operand of
 * AND/OR/NOT): Lance rejects a bare NULL there ("does not return a
 * boolean"), a typed one it reads as unknown. */
static bool boolean_value(tr *t, const qv_expr *e, qvb_text *o) {
  if (qve_is_null_lit(e) && (e->value.type.id == QV_TYPE_BOOL || e->value.type.id == QV_TYPE_NULL)) {
    qvb_text_s(o, "CAST(NULL AS BOOLEAN)");
    return true;
  }
  return qvp_lsql_value(t, e, o);
}

bool qvp_lsql_value(tr *t, const qv_expr *e, qvb_text *o) {
  if (e->kind == QV_EXPR_COLUMN) return emit_column(t, e, o);
  if (e->kind == QV_EXPR_LITERAL) return qvp_lsql_emit_literal(t, e, o);
  /* Under anything but another logic operator, & | ^ ~ of operands not
   * known to be boolean may be Polars' bitwise integer operators. */
  if (!is_logic(e))
    for (int32_t i = 0; i < e->n_args; i++)
      if (is_logic(e->args[i]) && qvp_lsql_type_of(t, e->args[i]) != QV_TYPE_BOOL)
        return qvp_lsql_decline(t, e->args[i], "an operand not known to be boolean: Polars' %s may be bitwise",
                                qv_op_name(e->args[i]->op));
  static const lowering none = LANCE_UNSUPPORTED;
  const lowering *l = (unsigned)e->op < (unsigned)QV_OP__COUNT ? &lowerings[e->op] : &none;
  if (l->custom) return l->custom(t, e, o);
  if (l->fn) return call_fn(t, e, l->fn, o);
  if (l->why) return qvp_lsql_decline(t, e, "%s", l->why);
  return qvp_lsql_decline(t, e, "%s is not produced by the Polars front ends", qv_op_name(e->op));
}

/* Tree depth, giving up past limit (the translator recurses per level). */
#define QV_LANCE_MAX_DEPTH 512
static int32_t depth(const qv_expr *e, int32_t limit) {
  if (limit < 0) return 1;
  int32_t best = 0;
  for (int32_t i = 0; i < e->n_args && best <= limit; i++) {
    int32_t d = depth(e->args[i], limit - 1);
    if (d > best) best = d;
  }
  return best + 1;
}

/* Positive position: an AND may drop a side (a superset of it is a
 * superset of the AND).  OR, NOT and XOR translate exactly or not at all
 * (DESIGN.md decision 3), so they stay with boolean_value. */
static bool positive(tr *t, const qv_expr *e, qvb_text *o, bool *exact) {
  if (depth(e, QV_LANCE_MAX_DEPTH) > QV_LANCE_MAX_DEPTH) {
    qvb_text_f(&t->why, "declined the expression: nested more than %d levels deep\n", QV_LANCE_MAX_DEPTH);
    *exact = false;
    return false;
  }
  if (e->kind == QV_EXPR_CALL && e->op == QV_OP_AND && e->n_args == 2 && boolean_operand(t, e->args[0]) &&
      boolean_operand(t, e->args[1])) {
    qvb_text a = {0}, b = {0};
    bool ea = true, eb = true;
    bool oka = positive(t, e->args[0], &a, &ea);
    bool okb = positive(t, e->args[1], &b, &eb);
    if (oka && okb) qvb_text_f(o, "(%s AND %s)", a.p, b.p);
    else if (oka) qvb_text_s(o, a.p);
    else if (okb) qvb_text_s(o, b.p);
    if (oka != okb) qvb_text_s(&t->why, "dropped a conjunct of AND: the filter keeps a superset\n");
    *exact = oka && okb && ea && eb;
    qvb_text_free(&a);
    qvb_text_free(&b);
    return oka || okb;
  }
  *exact = true;
  /* With a schema, a conjunct that quiver's binder refuses (types Polars
   * cannot compare, a missing field...) would only fail in Lance too: it
   * is left to local evaluation, which reports it. */
  if (t->schema) {
    qv_expr *c = qv_expr_clone(e);
    qv_error err;
    if (!c) {
      t->oom = true;
      return false;
    }
    qv_status st = qv_expr_bind(c, t->schema, &err);
    qv_type_id ty = c->type.id;
    qv_expr_destroy(c);
    if (st == QV_ERR_NOMEM) {
      t->oom = true;
      return false;
    }
    if (st != QV_OK) return qvp_lsql_decline(t, e, "it does not bind against the schema (%s)", err.message);
    if (ty != QV_TYPE_BOOL && ty != QV_TYPE_NULL)
      return qvp_lsql_decline(t, e, "a filter conjunct that is not boolean");
  }
  t->conjunct = e;
  t->superset = false;
  bool ok = boolean_value(t, e, o);
  if (t->superset) *exact = false;
  t->conjunct = NULL;
  return ok;
}

qv_status qv_to_lance_filter(const qv_expr *e, const qv_schema *schema, qv_lance_filter **out, qv_error *err) {
  if (!out || !e) return qv_error_set(err, QV_ERR_INVALID, "to_lance_filter: NULL expression or output");
  *out = NULL;
  tr t = {schema, {0}, false, NULL, false, NULL};
  qvb_text o = {0};
  bool exact = true;
  bool ok = positive(&t, e, &o, &exact);
  qv_status st = QV_OK;
  if (o.oom || t.why.oom || t.oom) {
    st = qv_error_nomem(err, "to_lance_filter");
  } else if (ok) {
    qv_lance_filter *f = qv_calloc(1, sizeof *f);
    if (!f) {
      st = qv_error_nomem(err, "to_lance_filter");
    } else {
      f->sql = o.p;
      f->exact = exact;
      o.p = NULL;
      *out = f;
    }
  }
  qvb_text_free(&o);
  qvb_text_free(&t.why);
  return st;
}

void qv_lance_filter_free(qv_lance_filter *f) {
  if (!f) return;
  qv_free(f->sql);
  qv_free(f);
}

qv_status qv_lance_filter_explain(const qv_expr *e, const qv_schema *schema, char **out, qv_error *err) {
  if (!out || !e) return qv_error_set(err, QV_ERR_INVALID, "lance_filter_explain: NULL expression or output");
  *out = NULL;
  tr t = {schema, {0}, false, NULL, false, NULL};
  qvb_text o = {0};
  bool exact = true;
  (void)positive(&t, e, &o, &exact);
  qvb_text_free(&o);
  if (!t.why.p && !t.why.oom) qvb_text_s(&t.why, "nothing declined\n");
  if (t.why.oom || t.oom) {
    qvb_text_free(&t.why);
    return qv_error_nomem(err, "lance_filter_explain");
  }
  *out = t.why.p;
  return QV_OK;
}
