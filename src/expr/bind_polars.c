/* Binding of the numeric and logical operators only the Polars front ends
 * produce, and Polars' arithmetic typing for + - * / // %.
 *
 * Result types follow Polars 2.1.0 (measured with it, see
 * tests/expr/test_bind_polars.c), because in Polars the type decides the
 * rows: integer arithmetic wraps in the result type, so `i8 * 100 > 50`
 * keeps a row with i8 = 2 only if the product is computed in Int8.
 * - Two typed operands take Polars' supertype: the wider of two same-sign
 *   integers; a signed and an unsigned integer the signed type wider than
 *   the unsigned one (Int128 for UInt64, computed here as decimal(38, 0):
 *   + - * and comparisons only); Float32 with an integer of at most 16 bits,
 *   else Float64.
 * - A Python int or float literal ("dynamic") takes the other side's type
 *   when its value fits, else the smallest wider type of the same family
 *   (Int8 + 1000 is Int16, UInt8 + 1000 UInt16, UInt8 + -1 Int16, UInt64 +
 *   -1 Int64); a float literal makes integers Float64.  Literals alone are
 *   Int32 when they fit, else Int64, and Float64.
 * Anything else goes on to bind_polars_text.c. */
#include <math.h>
#include <string.h>

#include "expr/bind_int.h"
#include "expr/expr_lit.h"

/* ---- Polars numeric typing --------------------------------------------------------------- */

static int int_bits(qv_type_id id) {
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

static qv_type_id int_of(bool is_signed, int bits) {
  static const qv_type_id s[] = {QV_TYPE_INT8, QV_TYPE_INT16, QV_TYPE_INT32, QV_TYPE_INT64};
  static const qv_type_id u[] = {QV_TYPE_UINT8, QV_TYPE_UINT16, QV_TYPE_UINT32, QV_TYPE_UINT64};
  int k = bits <= 8 ? 0 : bits <= 16 ? 1 : bits <= 32 ? 2 : 3;
  return is_signed ? s[k] : u[k];
}

/* Polars' Int128 (a signed integer with a UInt64) is computed here as
 * decimal(38, 0): exact for every sum, difference and comparison of 64-bit
 * integers and for products up to 10^38. */
static qv_datatype pl_int128(void) {
  qv_datatype t = qv_datatype_simple(QV_TYPE_DECIMAL128);
  t.precision = 38;
  t.scale = 0;
  return t;
}

/* Polars' supertype of two numeric types (QV_TYPE_DECIMAL128 standing for
 * Int128). */
static bool pl_supertype(qv_type_id a, qv_type_id b, qv_type_id *out) {
  if (a == b) {
    *out = a;
  } else if (a == QV_TYPE_DECIMAL128 || b == QV_TYPE_DECIMAL128) {
    *out = qve_is_float(a) || qve_is_float(b) ? QV_TYPE_FLOAT64 : QV_TYPE_DECIMAL128;
  } else if (qve_is_float(a) || qve_is_float(b)) {
    qv_type_id other = qve_is_float(a) ? b : a;
    bool f32 = (a == QV_TYPE_FLOAT32 || b == QV_TYPE_FLOAT32) && a != QV_TYPE_FLOAT64 && b != QV_TYPE_FLOAT64;
    *out = f32 && (qve_is_float(other) || int_bits(other) <= 16) ? QV_TYPE_FLOAT32 : QV_TYPE_FLOAT64;
  } else if (qve_is_sint(a) == qve_is_sint(b)) {
    *out = int_bits(a) >= int_bits(b) ? a : b;
  } else {
    qv_type_id s = qve_is_sint(a) ? a : b, u = qve_is_sint(a) ? b : a;
    if (int_bits(u) < int_bits(s)) *out = s;
    else if (int_bits(u) == 64) *out = QV_TYPE_DECIMAL128;
    else *out = int_of(true, 2 * int_bits(u));
  }
  return true;
}

static bool is_dynamic(const qv_expr *e) {
  return e->kind == QV_EXPR_LITERAL && (e->flags & QV_EXPR_F_DYNAMIC) && !e->value.is_null &&
         (qve_is_int(e->value.type.id) || qve_is_float(e->value.type.id));
}

static bool fits(qv_type_id id, bool neg, uint64_t mag) {
  int bits = int_bits(id);
  if (qve_is_uint(id)) return !neg && (bits == 64 || mag < ((uint64_t)1 << bits));
  uint64_t lim = (uint64_t)1 << (bits - 1); /* -lim .. lim - 1 */
  return neg ? mag <= lim : mag < lim;
}

/* The type a dynamic literal takes next to an operand of type `other`
 * (QV_TYPE_NULL: next to nothing typed); Int128 is QV_TYPE_DECIMAL128.
 * Declared in expr/expr_lit.h: the Lance translator types arithmetic the
 * same way. */
bool qve_polars_dynamic_type(const qv_scalar *v, qv_type_id other, qv_type_id *out) {
  if (qve_is_float(v->type.id)) {
    *out = qve_is_float(other) ? other : QV_TYPE_FLOAT64;
    return true;
  }
  /* (a literal already bound holds its value in the type it was given) */
  bool neg = qve_is_sint(v->type.id) && v->v.i < 0;
  uint64_t mag = neg ? 0 - (uint64_t)v->v.i : qve_is_uint(v->type.id) ? v->v.u : (uint64_t)v->v.i;
  if (qve_is_float(other) || other == QV_TYPE_DECIMAL128) {
    *out = other;
    return true;
  }
  if (!qve_is_int(other)) { /* alone: Int32, else Int64, else UInt64 */
    *out = fits(QV_TYPE_INT32, neg, mag)   ? QV_TYPE_INT32
           : fits(QV_TYPE_INT64, neg, mag) ? QV_TYPE_INT64
                                           : QV_TYPE_UINT64;
    return true;
  }
  bool is_signed = qve_is_sint(other) || neg;
  int bits = qve_is_sint(other) || !neg ? int_bits(other) : 2 * int_bits(other);
  for (; bits <= 64; bits *= 2) {
    qv_type_id t = int_of(is_signed, bits);
    if (fits(t, neg, mag)) {
      *out = t;
      return true;
    }
  }
  if (neg && !qve_is_sint(other)) { /* UInt64 next to a negative literal: Int64 */
    *out = QV_TYPE_INT64;
    return true;
  }
  *out = QV_TYPE_DECIMAL128; /* a literal past Int64 next to a signed integer: Int128 */
  return true;
}

/* Makes *slot / e of Polars numeric type id (Int128 as decimal(38, 0)). */
static qv_status pl_coerce(qve_binder *b, qv_expr **slot, qv_type_id id) {
  if (id != QV_TYPE_DECIMAL128) return qve_bind_coerce_simple(b, slot, id);
  qv_datatype t = pl_int128();
  return qve_bind_coerce_to(b, slot, &t);
}

static qv_status pl_set_type(qve_binder *b, qv_expr *e, qv_type_id id) {
  if (id != QV_TYPE_DECIMAL128) {
    qve_bind_set_simple(e, id);
    return QV_OK;
  }
  qv_datatype t = pl_int128();
  return qve_bind_set_type(b, e, &t);
}

static bool is_null_literal(const qv_expr *e) {
  return e->kind == QV_EXPR_LITERAL && (e->value.is_null || e->value.type.id == QV_TYPE_NULL);
}

/* Binds n numeric operands to Polars' common type (typed operands first,
 * then each dynamic literal next to it), coercing them; *out gets it
 * (QV_TYPE_NULL when every operand is a null literal).  *numeric is false,
 * and nothing changed, when some operand is not a number. */
static qv_status pl_unify_numeric(qve_binder *b, qv_expr *e, qv_expr **slots, int32_t n, bool *numeric,
                                  qv_type_id *out) {
  qv_type_id t = QV_TYPE_NULL;
  *numeric = false;
  for (int32_t i = 0; i < n; i++) {
    qv_type_id id = slots[i]->type.id;
    if (!qve_is_int(id) && !qve_is_float(id) && id != QV_TYPE_NULL && !is_null_literal(slots[i])) return QV_OK;
  }
  *numeric = true;
  for (int32_t i = 0; i < n; i++) {
    qv_expr *s = slots[i];
    if (is_null_literal(s) || is_dynamic(s)) continue;
    qv_type_id id = s->type.id;
    if (id == QV_TYPE_NULL) continue;
    if (t == QV_TYPE_NULL) t = id;
    else pl_supertype(t, id, &t);
  }
  /* Literals alone: floats win, then the widest integer. */
  qv_type_id alone = QV_TYPE_NULL;
  for (int32_t i = 0; i < n; i++) {
    if (!is_dynamic(slots[i])) continue;
    qv_type_id d;
    if (t != QV_TYPE_NULL) {
      qve_polars_dynamic_type(&slots[i]->value, t, &d);
      t = d;
    } else {
      qve_polars_dynamic_type(&slots[i]->value, QV_TYPE_NULL, &d);
      if (alone == QV_TYPE_NULL || qve_is_float(d) || (!qve_is_float(alone) && int_bits(d) > int_bits(alone)))
        alone = d;
    }
  }
  if (t == QV_TYPE_NULL) t = alone;
  for (int32_t i = 0; i < n && t != QV_TYPE_NULL; i++) QV_RETURN_NOT_OK(pl_coerce(b, &slots[i], t));
  *out = t;
  return QV_OK;
}

/* Polars' supertype of String with a bool, a number or a date is String:
 * those operands are cast to text ("true", "1.5", "2024-01-01").  *done
 * false, nothing changed, unless some operand is a string and every
 * other one is of those types. */
qv_status qve_bind_polars_string_union(qve_binder *b, qv_expr *e, qv_expr **slots, int32_t n, bool *done) {
  bool str = false;
  *done = false;
  for (int32_t i = 0; i < n; i++) {
    qv_type_id id = slots[i]->type.id;
    if (id == QV_TYPE_STRING) str = true;
    else if (id != QV_TYPE_BOOL && id != QV_TYPE_NULL && id != QV_TYPE_DATE32 && !qve_is_int(id) && !qve_is_float(id))
      return QV_OK;
  }
  if (!str) return QV_OK;
  for (int32_t i = 0; i < n; i++) QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, &slots[i], QV_TYPE_STRING));
  qve_bind_set_simple(e, QV_TYPE_STRING);
  *done = true;
  return QV_OK;
}

/* Common type of n value operands (when/then branches, fill_null,
 * coalesce, min/max_horizontal): Polars' numeric typing, else String with
 * bools, numbers and dates, else the union rule. */
static qv_status pl_unify(qve_binder *b, qv_expr *e, qv_expr **slots, int32_t n, const char *what) {
  qv_type_id t;
  bool numeric, done;
  QV_RETURN_NOT_OK(pl_unify_numeric(b, e, slots, n, &numeric, &t));
  if (numeric) return pl_set_type(b, e, t);
  if (e->op != QV_OP_MIN_HORIZONTAL && e->op != QV_OP_MAX_HORIZONTAL) {
    QV_RETURN_NOT_OK(qve_bind_polars_string_union(b, e, slots, n, &done));
    if (done) return QV_OK;
  }
  qv_datatype c;
  QV_RETURN_NOT_OK(qve_bind_unify(b, slots, n, QV_COMMON_UNION, what, e->pos, &c));
  qv_datatype_reset(&e->type);
  e->type = c;
  return QV_OK;
}

qv_status qve_bind_polars_unify(qve_binder *b, qv_expr *e, qv_expr **slots, int32_t n, const char *what) {
  return pl_unify(b, e, slots, n, what);
}

qv_status qve_bind_polars_arith(qve_binder *b, qv_expr *e, bool *numeric) {
  qv_type_id t;
  const qv_expr *before[2] = {e->args[0], e->args[1]};
  QV_RETURN_NOT_OK(pl_unify_numeric(b, e, e->args, 2, numeric, &t));
  if (!*numeric) return QV_OK;
  /* Polars casts an operand to the common type non-strictly
   * (`col("u").cast(Int64) + -1`): a UInt64 past Int64 becomes null there,
   * it does not fail.  Only such an inserted cast, never the user's. */
  for (int32_t i = 0; i < 2; i++) {
    qv_expr *a = e->args[i];
    if (a == before[i] || a->kind != QV_EXPR_CALL || a->op != QV_OP_CAST || a->n_args != 1 || a->args[0] != before[i])
      continue;
    qv_type_id from = before[i]->type.id, to = a->type.id;
    bool narrows =
        qve_is_int(from) && qve_is_int(to) &&
        (int_bits(to) < int_bits(from) || (qve_is_uint(from) && !qve_is_uint(to) && int_bits(to) <= int_bits(from)));
    if (narrows) a->sem.cast_strict = false; /* UInt64 + -1: Int64 */
  }
  if (t == QV_TYPE_NULL) { /* null op null */
    t = QV_TYPE_INT32;
    for (int32_t i = 0; i < 2; i++) QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, &e->args[i], t));
  }
  if (e->op == QV_OP_DIV && (e->flags & QV_EXPR_F_TRUE_DIV) && !qve_is_float(t)) {
    t = QV_TYPE_FLOAT64;
    for (int32_t i = 0; i < 2; i++) QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, &e->args[i], t));
  }
  if (t == QV_TYPE_DECIMAL128 && e->op != QV_OP_ADD && e->op != QV_OP_SUB && e->op != QV_OP_MUL)
    return qve_bind_error(b, QV_ERR_UNSUPPORTED, e->pos,
                          "%s of a signed integer and a UInt64 is computed in Polars' Int128, which quiver has only "
                          "for + - *",
                          qv_op_name(e->op));
  return pl_set_type(b, e, t);
}

/* Polars' `+` of a string with a string, a bool or a null is a
 * concatenation (a null nulls the row, a bool reads "true" / "false");
 * with a number it is refused, as Polars refuses it.  *done is false, and
 * nothing changed, when neither operand is a string. */
qv_status qve_bind_polars_string_add(qve_binder *b, qv_expr *e, bool *done) {
  qv_type_id l = e->args[0]->type.id, r = e->args[1]->type.id;
  *done = false;
  if (e->op != QV_OP_ADD || (l != QV_TYPE_STRING && r != QV_TYPE_STRING)) return QV_OK;
  qv_type_id o = l == QV_TYPE_STRING ? r : l;
  if (o != QV_TYPE_STRING && o != QV_TYPE_BOOL && o != QV_TYPE_NULL)
    return qve_bind_error(b, QV_ERR_TYPE, e->pos, "cannot apply + to %s and %s", TN(&e->args[0]->type),
                          TN(&e->args[1]->type));
  char *sep = qv_strdup("");
  if (!sep) return qve_bind_nomem(b);
  qv_free(e->name);
  e->name = sep;
  e->op = QV_OP_CONCAT_STR;
  e->flags &= ~(uint32_t)QV_EXPR_F_IGNORE_NULLS;
  *done = true;
  return qve_bind_rule_concat_str(b, e);
}

/* The nearest float32 of x as Rust's `as f32` rounds it: past the float32
 * range (from FLT_MAX plus half an ulp on) it is infinite. */
static double to_f32(double x) {
  if (isfinite(x) && fabs(x) >= 0x1.ffffffp127) return x < 0 ? -INFINITY : INFINITY;
  return (double)(float)x;
}

/* Comparisons of numbers run in Polars' supertype (pl_supertype): an
 * integer of more than 16 bits against a Float32 compares in Float64
 * (i32 16777217 > f32 16777216.0 holds), and a Python float literal
 * compared with Float32 operands is rounded to Float32 first, so 1e39 is
 * inf.  Integer pairs keep the exact comparison the binder gives them
 * (Polars' integer supertypes hold both values exactly). */
qv_status qve_bind_polars_compare_types(qve_binder *b, qv_expr *e) {
  qv_type_id t = QV_TYPE_NULL;
  int32_t n = e->op == QV_OP_IN ? 1 : e->n_args;
  for (int32_t i = 0; i < n; i++) {
    const qv_expr *a = e->args[i];
    if (is_null_literal(a) || is_dynamic(a)) continue;
    qv_type_id id = a->type.id;
    if (!qve_is_int(id) && !qve_is_float(id)) return QV_OK;
    if (t == QV_TYPE_NULL) t = id;
    else pl_supertype(t, id, &t);
  }
  if (!qve_is_float(t)) return QV_OK;
  for (int32_t i = 0; i < n; i++) {
    qv_expr *a = e->args[i];
    if (is_null_literal(a)) continue;
    if (is_dynamic(a)) {
      if (t == QV_TYPE_FLOAT32 && qve_is_float(a->value.type.id)) a->value.v.f = to_f32(a->value.v.f);
      continue;
    }
    QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, &e->args[i], t));
  }
  return QV_OK;
}

qv_status qve_bind_polars_compare_check(qve_binder *b, const qv_expr *e) {
  const qv_datatype *x = &e->args[0]->type;
  for (int32_t i = 1; i < e->n_args; i++) {
    const qv_expr *a = e->args[i];
    const qv_datatype *y = &a->type;
    if (e->op == QV_OP_IN && a->kind == QV_EXPR_LITERAL && !a->value.is_null &&
        ((qve_is_int(x->id) && qve_is_float(y->id)) || (qve_is_float(x->id) && qve_is_int(y->id))))
      return qve_bind_error(b, QV_ERR_TYPE, e->pos,
                            "is_in cannot check for %s values in a list of %s (Polars 2 refuses it)", TN(x), TN(y));
    if (x->id == QV_TYPE_TIMESTAMP && y->id == QV_TYPE_TIMESTAMP && !x->timezone != !y->timezone)
      return qve_bind_error(b, QV_ERR_TYPE, e->pos,
                            "cannot compare %s with %s: Polars does not compare a naive datetime with a zoned one",
                            TN(x), TN(y));
    if (x->id == QV_TYPE_TIMESTAMP && y->id == QV_TYPE_TIMESTAMP && x->timezone && y->timezone &&
        strcmp(x->timezone, y->timezone) != 0)
      return qve_bind_error(b, QV_ERR_TYPE, e->pos,
                            "cannot compare %s with %s: Polars compares datetimes only in one time zone", TN(x), TN(y));
  }
  return QV_OK;
}

/* ---- operators --------------------------------------------------------------------------- */

static qv_status want_number(qve_binder *b, qv_expr *e, int32_t i) {
  qv_type_id id = e->args[i]->type.id;
  if (qve_is_int(id) || qve_is_float(id)) return QV_OK;
  if (id == QV_TYPE_NULL) return qve_bind_coerce_simple(b, &e->args[i], QV_TYPE_FLOAT64);
  return qve_bind_error(b, QV_ERR_TYPE, e->pos, "%s expects a number, got %s", qv_op_name(e->op),
                        TN(&e->args[i]->type));
}

static qv_status arity(qve_binder *b, const qv_expr *e, int32_t lo, int32_t hi) {
  if (e->n_args >= lo && e->n_args <= hi) return QV_OK;
  return qve_bind_error(b, QV_ERR_INVALID, e->pos, "%s has %d arguments", qv_op_name(e->op), (int)e->n_args);
}

/* a ** b: integers stay in the base's type (wrapping) with the exponent
 * read as UInt32; otherwise the floats' common type. */
qv_status qve_bind_rule_pow(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(arity(b, e, 2, 2));
  QV_RETURN_NOT_OK(want_number(b, e, 0));
  QV_RETURN_NOT_OK(want_number(b, e, 1));
  qv_expr *x = e->args[0], *y = e->args[1];
  bool int_base = qve_is_int(x->type.id) && !(is_dynamic(x) && qve_is_float(x->value.type.id));
  bool int_exp = qve_is_int(y->type.id) && !(is_dynamic(y) && qve_is_float(y->value.type.id));
  if (!int_base || !int_exp) {
    QV_RETURN_NOT_OK(pl_unify(b, e, e->args, 2, "**"));
    return QV_OK;
  }
  if (y->kind == QV_EXPR_LITERAL && !y->value.is_null &&
      ((y->value.type.id == QV_TYPE_UINT64 && y->value.v.u > UINT32_MAX) ||
       (y->value.type.id != QV_TYPE_UINT64 && (y->value.v.i < 0 || y->value.v.i > UINT32_MAX))))
    return qve_bind_error(b, QV_ERR_INVALID, y->pos, "an integer power needs an exponent in 0..4294967295");
  qv_type_id base = x->type.id;
  if (is_dynamic(x)) qve_polars_dynamic_type(&x->value, QV_TYPE_NULL, &base);
  QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, &e->args[0], base));
  QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, &e->args[1], QV_TYPE_UINT32));
  qve_bind_set_simple(e, base);
  return QV_OK;
}

/* sqrt, ln, log10, cbrt, log(x, base): integers become Float64. */
qv_status qve_bind_rule_float_fn(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(arity(b, e, e->op == QV_OP_LOG ? 2 : 1, e->op == QV_OP_LOG ? 2 : 1));
  for (int32_t i = 0; i < e->n_args; i++) QV_RETURN_NOT_OK(want_number(b, e, i));
  qv_type_id t = e->args[0]->type.id == QV_TYPE_FLOAT32 ? QV_TYPE_FLOAT32 : QV_TYPE_FLOAT64;
  for (int32_t i = 0; i < e->n_args; i++) QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, &e->args[i], t));
  qve_bind_set_simple(e, t);
  return QV_OK;
}

qv_status qve_bind_rule_fill_null(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(arity(b, e, 1, 2));
  if (e->n_args == 2) return pl_unify(b, e, e->args, 2, "fill_null");
  const char *s = e->name ? e->name : "";
  if (strcmp(s, "zero") != 0 && strcmp(s, "one") != 0)
    return qve_bind_error(b, QV_ERR_UNSUPPORTED, e->pos,
                          "fill_null(strategy='%s') reads the whole column, and quiver evaluates a filter batch by "
                          "batch",
                          s);
  qv_type_id id = e->args[0]->type.id;
  if (!qve_is_int(id) && !qve_is_float(id) && id != QV_TYPE_BOOL && id != QV_TYPE_NULL)
    return qve_bind_error(b, QV_ERR_TYPE, e->pos, "fill_null(strategy='%s') expects a number, got %s", s,
                          TN(&e->args[0]->type));
  return qve_bind_set_type(b, e, &e->args[0]->type);
}

/* when(p1).then(t1)...otherwise(f): predicates boolean, values unified. */
qv_status qve_bind_rule_when(qve_binder *b, qv_expr *e) {
  int32_t n = e->n_args;
  if (n < 3 || n % 2 == 0) return arity(b, e, 3, 2);
  for (int32_t i = 0; i + 1 < n; i += 2) QV_RETURN_NOT_OK(qve_bind_want_bool(b, e, i, "when"));
  qv_expr **vals = qv_malloc((size_t)(n / 2 + 1) * sizeof *vals);
  if (!vals) return qve_bind_nomem(b);
  int32_t nv = 0;
  for (int32_t i = 1; i < n; i += 2) vals[nv++] = e->args[i];
  vals[nv++] = e->args[n - 1];
  qv_status st = pl_unify(b, e, vals, nv, "when/then");
  /* pl_unify may have wrapped values in casts (or, failing, left them
   * detached): put them back either way. */
  nv = 0;
  for (int32_t i = 1; i < n; i += 2) e->args[i] = vals[nv++];
  e->args[n - 1] = vals[nv];
  qv_free(vals);
  return st;
}

/* min_horizontal, max_horizontal (and least / greatest from a Lance filter) */
qv_status qve_bind_rule_horizontal(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(arity(b, e, 1, INT32_MAX));
  if (qve_bind_is_polars(e)) {
    QV_RETURN_NOT_OK(pl_unify(b, e, e->args, e->n_args, qv_op_name(e->op)));
  } else { /* least / greatest from a Lance filter */
    qv_datatype c;
    QV_RETURN_NOT_OK(qve_bind_unify(b, e->args, e->n_args, QV_COMMON_UNION, qv_op_name(e->op), e->pos, &c));
    qv_datatype_reset(&e->type);
    e->type = c;
  }
  qv_type_id id = e->type.id;
  if (qve_is_int(id) || qve_is_float(id) || qve_is_datetime(id) || id == QV_TYPE_DECIMAL128 || id == QV_TYPE_NULL)
    return QV_OK;
  const char *name = qve_bind_is_polars(e) ? qv_op_name(e->op) : e->op == QV_OP_MIN_HORIZONTAL ? "least" : "greatest";
  return qve_bind_error(b, QV_ERR_UNSUPPORTED, e->pos, "%s of %s is not supported", name, TN(&e->type));
}

qv_status qve_bind_rule_floordiv(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(arity(b, e, 2, 2));
  bool numeric;
  QV_RETURN_NOT_OK(qve_bind_polars_arith(b, e, &numeric));
  if (numeric) return QV_OK;
  return qve_bind_error(b, QV_ERR_TYPE, e->pos, "cannot apply // to %s and %s", TN(&e->args[0]->type),
                        TN(&e->args[1]->type));
}

qv_status qve_bind_rule_round(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(arity(b, e, 1, 1));
  QV_RETURN_NOT_OK(want_number(b, e, 0));
  return qve_bind_set_type(b, e, &e->args[0]->type);
}

/* is_not_nan, is_finite, is_infinite */
qv_status qve_bind_rule_float_class(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(arity(b, e, 1, 1));
  QV_RETURN_NOT_OK(want_number(b, e, 0));
  qve_bind_set_simple(e, QV_TYPE_BOOL);
  return QV_OK;
}

/* eq_missing, ne_missing */
qv_status qve_bind_rule_eq_missing(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(arity(b, e, 2, 2));
  qv_datatype c;
  QV_RETURN_NOT_OK(qve_bind_unify(b, e->args, 2, QV_COMMON_COMPARE, "compare", e->pos, &c));
  qv_datatype_reset(&c);
  qve_bind_set_simple(e, QV_TYPE_BOOL);
  return QV_OK;
}

/* all_horizontal, any_horizontal of one argument */
qv_status qve_bind_rule_bool_horizontal(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(arity(b, e, 1, 1));
  QV_RETURN_NOT_OK(qve_bind_want_bool(b, e, 0, qv_op_name(e->op)));
  qve_bind_set_simple(e, QV_TYPE_BOOL);
  return QV_OK;
}

qv_status qve_bind_rule_drop_nulls(qve_binder *b, qv_expr *e) {
  return qve_bind_error(b, QV_ERR_UNSUPPORTED, e->pos,
                        "drop_nulls changes the number of rows, so it cannot be part of a filter");
}

qv_status qve_bind_rule_unknown(qve_binder *b, qv_expr *e) {
  return qve_bind_error(b, QV_ERR_UNSUPPORTED, e->pos, "the Polars construct %s is not supported by quiver",
                        e->name ? e->name : "?");
}

/* ---- the precedence hint ------------------------------------------------------------------ */

/* Python text for a column or a simple literal, as the user may have
 * written it; false for anything else (or what does not fit). */
static bool py_text(const qv_expr *e, char *buf, size_t size) {
  int n = -1;
  if (e->kind == QV_EXPR_COLUMN && e->name && !strpbrk(e->name, "\"\\\n"))
    n = snprintf(buf, size, "pl.col(\"%s\")", e->name);
  else if (e->kind == QV_EXPR_LITERAL && !e->value.is_null) {
    const qv_scalar *v = &e->value;
    if (qve_is_sint(v->type.id)) n = snprintf(buf, size, "%lld", (long long)v->v.i);
    else if (qve_is_uint(v->type.id)) n = snprintf(buf, size, "%llu", (unsigned long long)v->v.u);
    else if (qve_is_float(v->type.id)) n = snprintf(buf, size, "%.17g", v->v.f);
    else if (v->type.id == QV_TYPE_BOOL) n = snprintf(buf, size, "%s", v->v.b ? "True" : "False");
    else if (v->type.id == QV_TYPE_STRING && !memchr(v->bytes, '"', (size_t)v->len) &&
             !memchr(v->bytes, '\\', (size_t)v->len) && !memchr(v->bytes, '\n', (size_t)v->len))
      n = snprintf(buf, size, "\"%.*s\"", (int)v->len, (const char *)v->bytes);
  }
  return n >= 0 && (size_t)n < size;
}

static const char *py_cmp(qv_op op) {
  switch (op) {
    case QV_OP_EQ: return "==";
    case QV_OP_NE: return "!=";
    case QV_OP_LT: return "<";
    case QV_OP_LE: return "<=";
    case QV_OP_GT: return ">";
    case QV_OP_GE: return ">=";
    default: return NULL;
  }
}

/* The (lit & y) under a comparison's right operand, past the casts
 * Polars' optimizer puts there (the tree a Polars scan hands over reads
 * score > (2 & age).cast(Float64)). */
static const qv_expr *right_bits(const qv_expr *e) {
  const qv_expr *r = e->args[1];
  while (r->kind == QV_EXPR_CALL && r->op == QV_OP_CAST && r->n_args == 1 && r->args[0]) r = r->args[0];
  return r;
}

/* The first comparison x OP (lit & y) (or | ^) whose literal is not a
 * boolean: Python's reading of `x > 2 & y`. */
static const qv_expr *find_shape(const qv_expr *e, int depth) {
  if (depth > QV_EXPR_MAX_DEPTH) return NULL;
  if (py_cmp(e->op) && e->kind == QV_EXPR_CALL && e->n_args == 2 && e->args[0] && e->args[1]) {
    const qv_expr *r = right_bits(e);
    if (r->kind == QV_EXPR_CALL && (r->op == QV_OP_AND || r->op == QV_OP_OR || r->op == QV_OP_XOR) && r->n_args == 2 &&
        r->args[0] && r->args[1] && r->args[0]->kind == QV_EXPR_LITERAL && !r->args[0]->value.is_null &&
        r->args[0]->value.type.id != QV_TYPE_BOOL)
      return e;
  }
  for (int32_t i = 0; e->kind == QV_EXPR_CALL && i < e->n_args; i++) {
    const qv_expr *f = e->args[i] ? find_shape(e->args[i], depth + 1) : NULL;
    if (f) return f;
  }
  return NULL;
}

void qve_bind_polars_hint(qve_binder *b, const qv_expr *root) {
  qv_error *err = b->err;
  if (!err || err->code != QV_ERR_TYPE || !strstr(err->message, "expects boolean operands")) return;
  const qv_expr *c = find_shape(root, 0);
  if (!c) return;
  const qv_expr *r = right_bits(c);
  const char *op = r->op == QV_OP_AND ? "&" : r->op == QV_OP_OR ? "|" : "^";
  char x[160], lit[80], y[160], hint[512];
  /* What cannot be spelled back (a method chain, say) shows as "...". */
  if (!py_text(c->args[0], x, sizeof x)) snprintf(x, sizeof x, "...");
  if (!py_text(r->args[0], lit, sizeof lit)) snprintf(lit, sizeof lit, "...");
  if (!py_text(r->args[1], y, sizeof y)) snprintf(y, sizeof y, "...");
  snprintf(hint, sizeof hint, "`%s` binds tighter than `%s` in Python: write (%s %s %s) %s %s", op, py_cmp(c->op), x,
           py_cmp(c->op), lit, op, y);
  size_t len = strlen(err->message);
  snprintf(err->message + len, sizeof err->message - len, " (%s)", hint);
}
