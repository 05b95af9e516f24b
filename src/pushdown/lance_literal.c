/* Lance SQL for literals and for comparisons with one: the float policy
 * (-0.0, NaN, Float32), the integer literal rules (outside the column's
 * type, against floats) and IN lists.  See lance.c for the policies. */
#include "lance_int.h"

/* Lance converts an integer literal to the other side's integer type and
 * fails the whole query when it does not fit (`i8 = 200`, `u8 > -1`).
 * Polars widens instead.  With the type known, a literal outside it makes
 * the column compare as BIGINT (*cast_out); without a type only 0..127
 * fits every integer type.  Returns false (declined) when neither works. */
static bool int_lit_range(tr *t, const qv_expr *e, const qv_expr *x, qv_type_id xt, const qv_expr *l, bool *cast_out) {
  *cast_out = false;
  if (!qve_is_value_lit(l) || !qv_type_is_integer(l->value.type.id)) return true;
  if (xt == QV_TYPE_NULL) {
    if (qvp_lsql_lit_fits(l, QV_TYPE_INT8) && !(qv_type_is_signed(l->value.type.id) && l->value.v.i < 0)) return true;
    return qvp_lsql_decline(t, e,
                            "without a schema an integer literal outside 0..127 may not fit the column's type "
                            "(Lance then fails the query)");
  }
  if (!qv_type_is_integer(xt)) return true;
  /* Lance converts the literal to its own type for x, which for a lowered
   * function is not Polars' (character_length is Int32 where len_chars()
   * is UInt32): a literal that fits only Polars' type compares as BIGINT. */
  qv_type_id lt = qvp_lsql_lance_type(t, x);
  if (qvp_lsql_lit_fits(l, xt)) {
    *cast_out = qv_type_is_integer(lt) && !qvp_lsql_lit_fits(l, lt) && qvp_lsql_lit_fits(l, QV_TYPE_INT64);
    return true;
  }
  if (xt == QV_TYPE_UINT64 || !qvp_lsql_lit_fits(l, QV_TYPE_INT64))
    return qvp_lsql_decline(t, e, "an integer literal outside the column's type and outside BIGINT");
  *cast_out = true;
  return true;
}

/* Python repr of a finite double: the shortest digits that round-trip,
 * positional for 1e-4 <= |v| < 1e16 ("300.0", "0.001"), else scientific
 * with a two-digit exponent ("1e+19", "5e-324"). */
void qvp_lsql_fmt_double(double v, char *buf, size_t size) {
  char e[40];
  for (int prec = 0; prec <= 16; prec++) {
    snprintf(e, sizeof e, "%.*e", prec, v);
    if (strtod(e, NULL) == v) break;
  }
  /* e is [-]d[.ddd]e[+-]XX: split into sign, digits and exponent. */
  const char *p = e;
  bool neg = *p == '-';
  if (neg) p++;
  char digits[24];
  size_t nd = 0;
  for (; *p && *p != 'e'; p++)
    if (*p != '.' && nd + 1 < sizeof digits) digits[nd++] = *p;
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  digits[nd] = 0;
  int exp10 = atoi(p + 1);
  size_t n = 0;
  char out[64];
  if (neg) out[n++] = '-';
  if (exp10 >= -4 && exp10 < 16) {
    if (exp10 < 0) {
      out[n++] = '0';
      out[n++] = '.';
      for (int i = -1; i > exp10; i--) out[n++] = '0';
      for (size_t i = 0; i < nd; i++) out[n++] = digits[i];
    } else {
      for (int i = 0; i <= exp10; i++) out[n++] = (size_t)i < nd ? digits[i] : '0';
      out[n++] = '.';
      if ((size_t)exp10 + 1 < nd)
        for (size_t i = (size_t)exp10 + 1; i < nd; i++) out[n++] = digits[i];
      else out[n++] = '0';
    }
    out[n] = 0;
  } else {
    out[n++] = digits[0];
    if (nd > 1) {
      out[n++] = '.';
      for (size_t i = 1; i < nd; i++) out[n++] = digits[i];
    }
    snprintf(out + n, sizeof out - n, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
  }
  snprintf(buf, size, "%s", out);
}

bool qvp_lsql_emit_string(tr *t, const qv_expr *e, const uint8_t *s, int64_t n, qvb_text *o) {
  if (memchr(s, 0, (size_t)n)) return qvp_lsql_decline(t, e, "a NUL character has no Lance SQL string spelling");
  /* A backslash is a plain character in Lance's strings ('\\n' is a
   * backslash and an n, '\\' one backslash: pylance 14.0.2), as quiver's
   * own Lance parser reads them; only the quote doubles. */
  qvb_text_s(o, "'");
  for (int64_t i = 0; i < n; i++) {
    if (s[i] == '\'') qvb_text_s(o, "''");
    else qvb_text_add(o, (const char *)s + i, 1);
  }
  qvb_text_s(o, "'");
  return true;
}

bool qvp_lsql_emit_literal(tr *t, const qv_expr *e, qvb_text *o) {
  const qv_scalar *v = &e->value;
  if (v->is_null) {
    if (v->type.id == QV_TYPE_TIME64 || v->type.id == QV_TYPE_DURATION)
      return qvp_lsql_decline(t, e, "Time and Duration literals have no Lance SQL spelling with Polars' meaning");
    qvb_text_s(o, "NULL");
    return true;
  }
  char buf[64];
  switch (v->type.id) {
    case QV_TYPE_BOOL: qvb_text_s(o, v->v.b ? "TRUE" : "FALSE"); return true;
    case QV_TYPE_INT8:
    case QV_TYPE_INT16:
    case QV_TYPE_INT32:
    case QV_TYPE_INT64:
      /* Lance reads -9223372036854775808 as minus a float; spell it as a sum. */
      if (v->v.i == INT64_MIN) qvb_text_s(o, "(-9223372036854775807 - 1)");
      else qvb_text_f(o, "%lld", (long long)v->v.i);
      return true;
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32:
    case QV_TYPE_UINT64: qvb_text_f(o, "%llu", (unsigned long long)v->v.u); return true;
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64:
      if (!isfinite(v->v.f)) return qvp_lsql_decline(t, e, "NaN and infinite literals have no Lance SQL spelling");
      qvp_lsql_fmt_double(v->v.f, buf, sizeof buf);
      qvb_text_s(o, buf);
      return true;
    case QV_TYPE_STRING: return qvp_lsql_emit_string(t, e, v->bytes, v->len, o);
    case QV_TYPE_DATE32: {
      int64_t y;
      unsigned m, d;
      qv_civil_from_days(v->v.i, &y, &m, &d);
      if (y < 1 || y > 9999) return qvp_lsql_decline(t, e, "date outside years 1..9999");
      qvb_text_f(o, "date '%04lld-%02u-%02u'", (long long)y, m, d);
      return true;
    }
    case QV_TYPE_TIME64:
    case QV_TYPE_DURATION:
      return qvp_lsql_decline(t, e, "Time and Duration literals have no Lance SQL spelling with Polars' meaning");
    case QV_TYPE_TIMESTAMP:
      return qvp_lsql_decline(t, e,
                              "timestamp literals are not translated yet (unit and time zone must match the column)");
    case QV_TYPE_DECIMAL128: return qvp_lsql_decline(t, e, "Lance reads a decimal literal as a float");
    default: return qvp_lsql_decline(t, e, "no Lance SQL spelling for a literal of this type");
  }
}

/* x OP timestamp literal: only a naive literal against a column known to
 * be a naive timestamp, within Lance's nanosecond timestamp range.  Lance
 * reads `timestamp '...'` as wall-clock time without a zone, which is what
 * Polars compares a naive column with. */
static bool timestamp_lit(tr *t, const qv_expr *e, const qv_expr *x, const qv_expr *l, const qvb_text *a, const char *s,
                          qvb_text *o) {
  static const int64_t per_second[] = {1, 1000, 1000000, 1000000000};
  const qv_datatype *d = qvp_lsql_col_type(t, x);
  if (!d || d->id != QV_TYPE_TIMESTAMP || d->timezone || l->value.type.timezone)
    return qvp_lsql_decline(t, e, "a timestamp literal translates only against a column known to be a naive timestamp");
  int unit = (int)l->value.type.unit;
  if (unit < 0 || unit > 3) return qvp_lsql_decline(t, e, "timestamp unit");
  int64_t ps = per_second[unit], v = l->value.v.i;
  int64_t secs = v / ps, frac = v % ps;
  if (frac < 0) {
    frac += ps;
    secs -= 1;
  }
  /* Against a nanosecond column Lance converts the literal to nanoseconds;
   * against a coarser one pylance 14.0.2 reads years 1..9999. */
  if (d->unit == QV_UNIT_NANO &&
      (secs < qv_days_from_civil(1678, 1, 1) * 86400 || secs >= qv_days_from_civil(2262, 1, 1) * 86400))
    return qvp_lsql_decline(t, e, "a timestamp outside Lance's nanosecond range (years 1678..2261)");
  if (secs < qv_days_from_civil(1, 1, 1) * 86400 || secs >= qv_days_from_civil(10000, 1, 1) * 86400)
    return qvp_lsql_decline(t, e, "a timestamp outside years 1..9999");
  /* the fraction only when there is one, in the unit's digits */
  char when[48];
  qv_format_datetime(secs, (int32_t)(frac * (1000000000 / ps)), frac ? 3 * unit : 0, when, sizeof when);
  qvb_text_f(o, "(%s %s timestamp '%s')", a->p, s, when);
  return true;
}

/* The literal compared with a value of type xt.  Polars compares a Float32
 * with a Python number in Float32; DataFusion's coercion of a Float64
 * literal against a Float32 column is not the same under every rewrite (a
 * NOT turns it into a Float64 comparison), so the literal is cast to FLOAT
 * explicitly.  A literal typed Float64 (pl.lit(x, dtype=pl.Float64))
 * makes Polars compare in Float64: that declines. */
static bool float_side_lit(tr *t, const qv_expr *e, qv_type_id xt, const qv_expr *l, qvb_text *b) {
  bool numeric = !l->value.is_null && (is_float(l->value.type.id) || qv_type_is_integer(l->value.type.id));
  if (xt != QV_TYPE_FLOAT32 || !numeric) return qvp_lsql_emit_literal(t, l, b);
  if (!(l->flags & QV_EXPR_F_DYNAMIC) && l->value.type.id != QV_TYPE_FLOAT32)
    return qvp_lsql_decline(t, e, "a typed literal against a Float32 compares in its own type in Polars");
  qvb_text v = {0};
  bool ok = qvp_lsql_emit_literal(t, l, &v);
  if (ok) qvb_text_f(b, "CAST(%s AS FLOAT)", v.p);
  qvb_text_free(&v);
  return ok;
}

/* A schema-less ordered comparison kept bare as a whole conjunct: the
 * translation is then inexact, and explain says why. */
static void superset_line(tr *t, const qv_expr *e) {
  t->superset = true;
  (void)qvp_lsql_decline(t, e,
                         "without a schema the column may be a float whose NaN Lance orders by sign: kept as a "
                         "superset (exact=False), assuming stored NaNs are positive");
}

/* x OP lit for an integer x and a literal outside x's type that BIGINT
 * cannot hold for both (a negative one against UInt64, one past 2**63
 * against a signed type): Polars compares in a wider type, so the answer
 * is the same for every value of x, and null where x is (eq_missing and
 * ne_missing: never null).  Lance would fail the query on the literal, so
 * the constant is spelled out (checked in pylance, also under NOT). */
static bool out_of_range(qv_op op, bool below, const qvb_text *a, qvb_text *o) {
  bool truth;
  switch (op) {
    case QV_OP_EQ:
    case QV_OP_EQ_MISSING: truth = false; break;
    case QV_OP_NE:
    case QV_OP_NE_MISSING: truth = true; break;
    case QV_OP_LT:
    case QV_OP_LE: truth = !below; break;
    default: truth = below; break; /* > >= */
  }
  if (op == QV_OP_EQ_MISSING || op == QV_OP_NE_MISSING) qvb_text_s(o, truth ? "TRUE" : "FALSE");
  else if (truth) qvb_text_f(o, "((%s IS NOT NULL) OR CAST(NULL AS BOOLEAN))", a->p);
  else qvb_text_f(o, "((%s IS NULL) AND CAST(NULL AS BOOLEAN))", a->p);
  return true;
}

/* x OP NaN, +inf or -inf.  Polars orders every NaN equal and above +inf;
 * Lance by the total order (-NaN below -inf), so isnan() guards every
 * ordered comparison and NaN itself is a test for NaN.  Against an integer
 * the answer is the same for every value (NaN and +inf above, -inf below:
 * Polars compares in Float64).  Checked in pylance on NaN of both signs,
 * both infinities, zeros and nulls, also under NOT. */
static bool nonfinite_cmp(tr *t, const qv_expr *e, qv_op op, qv_type_id xt, const qv_expr *l, double v,
                          const qvb_text *a, qvb_text *o) {
  if (qv_type_is_integer(xt)) return out_of_range(op, v < 0, a, o);
  if (!is_float(xt))
    return qvp_lsql_decline(t, e, "a NaN or infinite literal against a value not known to be a number");
  if (xt == QV_TYPE_FLOAT32 && !(l->flags & QV_EXPR_F_DYNAMIC) && l->value.type.id != QV_TYPE_FLOAT32)
    return qvp_lsql_decline(t, e, "a typed literal against a Float32 compares in its own type in Polars");
  const char *p = a->p;
  if (isnan(v)) {
    switch (op) {
      case QV_OP_EQ:
      case QV_OP_GE: qvb_text_f(o, "isnan(%s)", p); break;
      case QV_OP_NE:
      case QV_OP_LT: qvb_text_f(o, "(NOT isnan(%s))", p); break;
      case QV_OP_LE: return out_of_range(QV_OP_NE, false, a, o); /* true where not null */
      case QV_OP_GT: return out_of_range(QV_OP_EQ, false, a, o); /* false where not null */
      case QV_OP_EQ_MISSING: qvb_text_f(o, "(isnan(%s) IS TRUE)", p); break;
      default: qvb_text_f(o, "(isnan(%s) IS NOT TRUE)", p); break; /* ne_missing */
    }
    return true;
  }
  char lit[40];
  snprintf(lit, sizeof lit, "CAST('%s' AS %s)", v > 0 ? "inf" : "-inf", xt == QV_TYPE_FLOAT32 ? "FLOAT" : "DOUBLE");
  switch (op) {
    case QV_OP_EQ: qvb_text_f(o, "(%s = %s)", p, lit); break;
    case QV_OP_NE: qvb_text_f(o, "(%s != %s)", p, lit); break;
    case QV_OP_LT:
    case QV_OP_LE: qvb_text_f(o, "((%s %s %s) AND (NOT isnan(%s)))", p, qvp_pd_cmp_sql(op), lit, p); break;
    case QV_OP_GT:
    case QV_OP_GE: qvb_text_f(o, "((%s %s %s) OR isnan(%s))", p, qvp_pd_cmp_sql(op), lit, p); break;
    case QV_OP_EQ_MISSING: qvb_text_f(o, "((%s = %s) IS TRUE)", p, lit); break;
    default: qvb_text_f(o, "((%s = %s) IS NOT TRUE)", p, lit); break; /* ne_missing */
  }
  return true;
}

/* x OP lit, with x not a literal (op already flipped so x is left). */
static bool compare_lit(tr *t, const qv_expr *e, qv_op op, const qv_expr *x, const qv_expr *l, qvb_text *o) {
  qvb_text a = {0};
  const qv_expr *outer = t->sign_free;
  t->sign_free = x;
  bool ok = qvp_lsql_value(t, x, &a);
  t->sign_free = outer;
  qv_type_id xt = qvp_lsql_type_of(t, x);
  double v = 0;
  bool num = lit_number(l, &v);
  const char *s = qvp_pd_cmp_sql(op);
  bool missing = op == QV_OP_EQ_MISSING || op == QV_OP_NE_MISSING;
  if (!ok) goto cleanup;
  if (xt == QV_TYPE_LIST || xt == QV_TYPE_FIXED_SIZE_LIST || xt == QV_TYPE_STRUCT) {
    ok = qvp_lsql_decline(t, e, "a list or struct compared with a single value");
    goto cleanup;
  }
  /* A string against a number (or a number against a string): Polars
   * refuses to compare them, Lance would coerce or fail the query. */
  if (xt != QV_TYPE_NULL && !l->value.is_null &&
      ((l->value.type.id == QV_TYPE_STRING && (qv_type_is_numeric(xt) || xt == QV_TYPE_BOOL)) ||
       (num && (xt == QV_TYPE_STRING || xt == QV_TYPE_BINARY)))) {
    ok = qvp_lsql_decline(t, e, "a string compared with a number: Polars refuses it");
    goto cleanup;
  }
  if (xt == QV_TYPE_DECIMAL128 && !(qve_is_value_lit(l) && qv_type_is_integer(l->value.type.id))) {
    ok = qvp_lsql_decline(t, e, "an Int128 value (DECIMAL in Lance) compared with a literal that is not an integer");
    goto cleanup;
  }
  if (num && !isfinite(v)) {
    ok = nonfinite_cmp(t, e, op, xt, l, v, &a, o);
    goto cleanup;
  }
  if (qv_type_is_integer(xt) && qve_is_value_lit(l) && qv_type_is_integer(l->value.type.id) &&
      !qvp_lsql_lit_fits(l, xt) && (xt == QV_TYPE_UINT64 || !qvp_lsql_lit_fits(l, QV_TYPE_INT64))) {
    ok = out_of_range(op, qv_type_is_signed(l->value.type.id) && l->value.v.i < 0, &a, o);
    goto cleanup;
  }
  bool widen = false;
  if (!int_lit_range(t, e, x, xt, l, &widen)) {
    ok = false;
    goto cleanup;
  }
  if (widen) {
    qvb_text b = {0};
    ok = qvp_lsql_emit_literal(t, l, &b);
    if (ok) qvb_text_f(o, "(CAST(%s AS BIGINT) %s %s)", a.p, s, b.p);
    qvb_text_free(&b);
    goto cleanup;
  }
  if (num && qv_type_is_integer(xt) && is_float(l->value.type.id)) {
    /* Polars compares an integer with a float literal as Float64; Lance
     * rejects the mixed comparison.  Below 2**53 an integral literal, or
     * the nearest integer for an ordered comparison, keeps the column bare
     * (an index can serve it) and means the same; otherwise the column is
     * cast to DOUBLE exactly as Polars does. */
    const double exact_ints = 9007199254740992.0; /* 2**53 */
    double k = op == QV_OP_GT || op == QV_OP_GE ? ceil(v) : floor(v);
    qv_expr kl = *l; /* the integer the literal becomes, to ask whether the column's type holds it */
    kl.value.type.id = QV_TYPE_INT64;
    kl.value.v.i = (int64_t)(fabs(k) < exact_ints ? k : 0);
    if (fabs(k) < exact_ints && !qvp_lsql_lit_fits(&kl, xt)) v = exact_ints; /* outside the type: compare as DOUBLE */
    if (fabs(v) < exact_ints && v == floor(v)) {
      qvb_text_f(o, "(%s %s %lld)", a.p, s, (long long)v);
    } else if (fabs(v) < exact_ints && (op == QV_OP_GT || op == QV_OP_GE)) {
      qvb_text_f(o, "(%s >= %lld)", a.p, (long long)ceil(v));
    } else if (fabs(v) < exact_ints && (op == QV_OP_LT || op == QV_OP_LE)) {
      qvb_text_f(o, "(%s <= %lld)", a.p, (long long)floor(v));
    } else {
      qvb_text b = {0};
      ok = qvp_lsql_emit_literal(t, l, &b);
      if (ok) qvb_text_f(o, "(CAST(%s AS DOUBLE) %s %s)", a.p, s, b.p);
      qvb_text_free(&b);
    }
    goto cleanup;
  }
  /* A date against a timestamp: Lance casts the date to Timestamp(ns),
   * and fails the query for days outside +-106751 (1677-09-22 ..
   * 2262-04-11, found with pylance 14.0.2). */
  if (qve_is_value_lit(l) && l->value.type.id == QV_TYPE_DATE32 && (xt == QV_TYPE_TIMESTAMP || xt == QV_TYPE_NULL) &&
      (l->value.v.i < -106751 || l->value.v.i > 106751)) {
    ok = qvp_lsql_decline(t, e,
                          "a date that Lance cannot cast to a nanosecond timestamp (outside 1677-09-22 .. "
                          "2262-04-11) against a value that may be a timestamp");
    goto cleanup;
  }
  if (qve_is_value_lit(l) && l->value.type.id == QV_TYPE_TIMESTAMP) {
    ok = timestamp_lit(t, e, x, l, &a, s, o);
    goto cleanup;
  }
  if (num && (is_float(xt) || xt == QV_TYPE_NULL)) {
    bool known = is_float(xt);
    bool ordered = op != QV_OP_EQ && op != QV_OP_NE && !missing;
    bool stored =
        x->kind == QV_EXPR_COLUMN || (x->kind == QV_EXPR_CALL && (x->op == QV_OP_FIELD || x->op == QV_OP_LIST_GET));
    if (!known && is_float(l->value.type.id)) {
      ok = qvp_lsql_decline(t, e,
                            "without a schema a float literal may meet an integer column (Lance rejects it) or "
                            "a float column's -0.0/NaN (ordered differently)");
      goto cleanup;
    }
    if (v == 0) {
      if (!known && op != QV_OP_GT && op != QV_OP_LE) {
        ok = qvp_lsql_decline(t, e,
                              "without a schema the column may be a float where Polars has -0.0 == 0.0 and Lance "
                              "-0.0 < 0.0");
        goto cleanup;
      }
      if (!known && stored && t->conjunct == e) {
        superset_line(t, e);
        qvb_text_f(o, "(%s %s 0)", a.p, s);
        goto cleanup;
      }
      if (!known) {
        /* The value may be a float NaN, of either sign (Lance sorts -NaN
         * below -inf, Polars every NaN greatest): isnan() settles it, and
         * Lance's isnan takes every integer type too. */
        if (op == QV_OP_GT) qvb_text_f(o, "((%s > 0) OR isnan(%s))", a.p, a.p);
        else qvb_text_f(o, "((%s <= 0) AND (NOT isnan(%s)))", a.p, a.p);
        goto cleanup;
      }
      switch (op) {
        case QV_OP_EQ: qvb_text_f(o, "((%s = 0.0) OR (%s = -0.0))", a.p, a.p); break;
        case QV_OP_NE: qvb_text_f(o, "((%s != 0.0) AND (%s != -0.0))", a.p, a.p); break;
        case QV_OP_LT: qvb_text_f(o, "((%s < -0.0) AND (NOT isnan(%s)))", a.p, a.p); break;
        case QV_OP_LE: qvb_text_f(o, "((%s <= 0.0) AND (NOT isnan(%s)))", a.p, a.p); break;
        case QV_OP_GT: qvb_text_f(o, "((%s > 0.0) OR isnan(%s))", a.p, a.p); break;
        case QV_OP_GE: qvb_text_f(o, "((%s >= -0.0) OR isnan(%s))", a.p, a.p); break;
        /* IS TRUE: a null row is false (eq_missing) or true (ne_missing), never null. */
        case QV_OP_EQ_MISSING: qvb_text_f(o, "(((%s = 0.0) OR (%s = -0.0)) IS TRUE)", a.p, a.p); break;
        case QV_OP_NE_MISSING: qvb_text_f(o, "(((%s = 0.0) OR (%s = -0.0)) IS NOT TRUE)", a.p, a.p); break;
        default: ok = qvp_lsql_decline(t, e, "eq_missing against zero on a float: -0.0 and 0.0 differ in Lance"); break;
      }
      goto cleanup;
    }
    if (!known && ordered && stored && t->conjunct == e) {
      /* A whole conjunct, schema-less: the bare comparison (what an index
       * serves, and the reference's spelling), marked inexact because a
       * float column's NaN orders differently; like every inexact
       * translation it assumes stored NaNs are positive. */
      superset_line(t, e);
      qvb_text b = {0};
      ok = qvp_lsql_emit_literal(t, l, &b);
      if (ok) qvb_text_f(o, "(%s %s %s)", a.p, s, b.p);
      qvb_text_free(&b);
      goto cleanup;
    }
    if (ordered) { /* known float, or schema-less (a NaN of either sign: the isnan guard) */
      qvb_text b = {0};
      if (!float_side_lit(t, e, xt, l, &b)) {
        qvb_text_free(&b);
        ok = false;
        goto cleanup;
      }
      if (op == QV_OP_GT || op == QV_OP_GE) qvb_text_f(o, "((%s %s %s) OR isnan(%s))", a.p, s, b.p, a.p);
      else qvb_text_f(o, "((%s %s %s) AND (NOT isnan(%s)))", a.p, s, b.p, a.p);
      qvb_text_free(&b);
      goto cleanup;
    }
  }
  {
    qvb_text b = {0};
    ok = float_side_lit(t, e, xt, l, &b);
    if (ok) qvb_text_f(o, "(%s %s %s)", a.p, s, b.p);
    qvb_text_free(&b);
  }
cleanup:
  qvb_text_free(&a);
  return ok;
}

bool qvp_lsql_compare(tr *t, const qv_expr *e, qvb_text *o) {
  const qv_expr *x = e->args[0], *y = e->args[1];
  if (!qve_is_lit(x) && qve_is_lit(y)) return compare_lit(t, e, e->op, x, y, o);
  if (qve_is_lit(x) && !qve_is_lit(y)) return compare_lit(t, e, qv_op_mirror(e->op), y, x, o);
  if (!qve_is_lit(x) && !qve_is_lit(y) && (maybe_float(t, x) || maybe_float(t, y))) {
    qvb_text a = {0}, b = {0};
    const qv_expr *outer = t->sign_free;
    t->sign_free = x;
    bool ok = qvp_lsql_value(t, x, &a);
    t->sign_free = y;
    ok = qvp_lsql_value(t, y, &b) && ok;
    t->sign_free = outer;
    bool f64 = qvp_lsql_type_of(t, x) == QV_TYPE_FLOAT64 && qvp_lsql_type_of(t, y) == QV_TYPE_FLOAT64;
    if (ok && f64 && e->sem.float_order == QV_FLOAT_POLARS) {
      /* Two Float64s in Polars' order (NaN equal to NaN and greatest, -0.0
       * equal to 0.0) from Lance's total order: nanvl makes every NaN the
       * same positive one, and the two zeros are told apart only where both
       * sides are zeros (checked in pylance on every pair of edge values,
       * also under NOT) */
      bool with_zeros = e->op == QV_OP_EQ || e->op == QV_OP_LE || e->op == QV_OP_GE;
      qvb_text_f(o,
                 "((nanvl(%s, CAST('NaN' AS DOUBLE)) %s nanvl(%s, CAST('NaN' AS DOUBLE))) %s (%s IN (-0.0, 0.0) AND "
                 "%s IN (-0.0, 0.0)))",
                 a.p, qvp_pd_cmp_sql(e->op), b.p, with_zeros ? "OR" : "AND NOT", a.p, b.p);
    }
    qvb_text_free(&a);
    qvb_text_free(&b);
    if (!ok) return false;
    if (f64 && e->sem.float_order == QV_FLOAT_POLARS) return true;
    return qvp_lsql_decline(t, e, "two sides that may be floats: Lance orders -0.0 < 0.0 and NaN by sign");
  }
  return qvp_lsql_binop(t, e, qvp_pd_cmp_sql(e->op), o);
}

bool qvp_lsql_in_list(tr *t, const qv_expr *e, qvb_text *o) {
  bool has_null = false;
  for (int32_t i = 1; i < e->n_args; i++) has_null = has_null || (qve_is_lit(e->args[i]) && e->args[i]->value.is_null);
  qvb_text a = {0};
  if (!qvp_lsql_value(t, e->args[0], &a)) return false;
  qv_type_id xt = qvp_lsql_type_of(t, e->args[0]);
  qvb_text items = {0};
  int32_t n = 0;
  bool ok = true, widen = false;
  for (int32_t i = 1; i < e->n_args && ok; i++) {
    bool w;
    ok = int_lit_range(t, e, e->args[0], xt, e->args[i], &w);
    widen = widen || w;
  }
  for (int32_t i = 1; i < e->n_args && ok; i++) {
    const qv_expr *l = e->args[i];
    double v;
    if (l->value.is_null) continue; /* with nulls_equal=False a NULL item never matches (and must not make IN null) */
    bool num = lit_number(l, &v);
    if (num && !isfinite(v)) {
      ok = qvp_lsql_decline(t, l, "NaN and infinite literals have no Lance SQL spelling");
      break;
    }
    if (num && qv_type_is_integer(xt) && is_float(l->value.type.id) && fabs(v) > 9.0e18) {
      ok = qvp_lsql_decline(t, l, "a float item beyond the int64 range against an integer");
      break;
    }
    if (num && qv_type_is_integer(xt) && is_float(l->value.type.id) && v != floor(v)) continue; /* never equal */
    if (num && xt == QV_TYPE_NULL && is_float(l->value.type.id)) {
      ok = qvp_lsql_decline(t, e, "without a schema a float item may meet an integer column (Lance rejects it)");
      break;
    }
    if (num && v == 0 && !qv_type_is_integer(xt) && !is_float(xt)) {
      ok = qvp_lsql_decline(t, e, "without a schema a zero item may meet a float column's -0.0");
      break;
    }
    if (n++) qvb_text_s(&items, ", ");
    if (num && qv_type_is_integer(xt) && is_float(l->value.type.id)) qvb_text_f(&items, "%lld", (long long)v);
    else ok = qvp_lsql_emit_literal(t, l, &items);
    if (ok && num && v == 0 && is_float(xt)) qvb_text_s(&items, ", -0.0");
  }
  /* Nothing can match (is_in([]), is_in([None])): Polars gives NULL for a
   * null value and FALSE otherwise; SQL has no empty IN, so that truth
   * table is spelled out (checked in pylance, also under NOT). */
  /* is_in(nulls_equal=True) is never null: a null value is found exactly
   * when the list holds a null (checked in pylance, also under NOT) */
  if (ok && e->sem.in_nulls_equal && n == 0) {
    if (has_null) qvb_text_f(o, "(%s IS NULL)", a.p);
    else qvb_text_s(o, "FALSE"); /* nothing is found, a null value neither: false on every row (Polars 2.1.0) */
  } else if (ok && n == 0) {
    qvb_text_f(o, "((%s IS NULL) AND CAST(NULL AS BOOLEAN))", a.p);
  } else if (ok) {
    if (e->sem.in_nulls_equal) qvb_text_s(o, "(");
    if (widen) qvb_text_f(o, "(CAST(%s AS BIGINT) IN (%s))", a.p, items.p);
    else if (xt == QV_TYPE_FLOAT32) qvb_text_f(o, "(CAST(%s AS DOUBLE) IN (%s))", a.p, items.p); /* Polars: Float64 */
    else qvb_text_f(o, "(%s IN (%s))", a.p, items.p);
    if (e->sem.in_nulls_equal) qvb_text_f(o, has_null ? " OR (%s IS NULL))" : " AND (%s IS NOT NULL))", a.p);
  }
  qvb_text_free(&a);
  qvb_text_free(&items);
  return ok;
}

int qvp_lsql_int_rank(qv_type_id id) {
  switch (id) {
    case QV_TYPE_INT8:
    case QV_TYPE_UINT8: return 1;
    case QV_TYPE_INT16:
    case QV_TYPE_UINT16: return 2;
    case QV_TYPE_INT32:
    case QV_TYPE_UINT32: return 3;
    case QV_TYPE_INT64:
    case QV_TYPE_UINT64: return 4;
    default: return 0;
  }
}

/* Does the integer literal l hold a value of type id? */
bool qvp_lsql_lit_fits(const qv_expr *l, qv_type_id id) {
  static const int64_t smin[] = {INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN};
  static const int64_t smax[] = {INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX};
  static const uint64_t umax[] = {UINT8_MAX, UINT16_MAX, UINT32_MAX, UINT64_MAX};
  int r = qvp_lsql_int_rank(id) - 1;
  if (r < 0 || !qve_is_value_lit(l) || !qv_type_is_integer(l->value.type.id)) return false;
  bool neg = qv_type_is_signed(l->value.type.id) && l->value.v.i < 0;
  if (qv_type_is_signed(id)) {
    if (neg) return l->value.v.i >= smin[r];
    uint64_t u = qv_type_is_signed(l->value.type.id) ? (uint64_t)l->value.v.i : l->value.v.u;
    return u <= (uint64_t)smax[r];
  }
  if (neg) return false;
  uint64_t u = qv_type_is_signed(l->value.type.id) ? (uint64_t)l->value.v.i : l->value.v.u;
  return u <= umax[r];
}
