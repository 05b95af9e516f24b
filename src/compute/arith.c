/* Arithmetic on integers and floats: + - * / // %, unary minus and abs.
 *
 * Integers (both operands are first cast to the node's result type):
 * - overflow follows sem.overflow: WRAP gives the two's complement result,
 *   ERROR fails the evaluation with QV_ERR_OVERFLOW naming the operands,
 *   NULL makes the row null.  INT_MIN / -1 and -INT_MIN overflow;
 *   INT_MIN % -1 is 0.  Negating a non-zero unsigned value overflows.
 * - division by zero (/ and %): with overflow = ERROR (the Lance /
 *   DataFusion semantics) the evaluation fails with QV_ERR_INVALID
 *   "division by zero"; otherwise (Polars) the row is null.
 * - sem.int_div: TRUNC rounds the quotient toward zero and % takes the
 *   dividend's sign (SQL, C); FLOOR rounds toward -inf and % takes the
 *   divisor's sign (Python, Polars).
 * - // (Polars) is / with FLOOR.
 * Floats: IEEE 754 (x / 0 is +-inf or NaN, never an error); % is fmod
 * under TRUNC and, under FLOOR, x - y * floor(x / y) as Polars computes it
 * (so 0.5 % inf is NaN, not 0.5); // is floor(x / y).  Polars nodes
 * (float order POLARS) divide by a scalar y as Polars' kernels do: x *
 * (1 / y), floor(x * (1 / y)) and x - y * floor(x * (1 / y)), bit for bit.
 * Only rows where both operands are valid can fail.  Decimals are in
 * arith_decimal.c. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "compute/compute_int.h"

enum { F_OVF = 1, F_DIV0 = 2 };

/* One loop per operator over rows [0, n); LA / LB read the operands. */
#define INT_ARITH(T, SIGNED, TMIN, NEG, LA, LB)                                               \
  switch (op) {                                                                               \
    case QV_OP_ADD:                                                                           \
      for (int64_t i = 0; i < n; i++) fl[i] = (uint8_t)__builtin_add_overflow(LA, LB, &d[i]); \
      break;                                                                                  \
    case QV_OP_SUB:                                                                           \
      for (int64_t i = 0; i < n; i++) fl[i] = (uint8_t)__builtin_sub_overflow(LA, LB, &d[i]); \
      break;                                                                                  \
    case QV_OP_MUL:                                                                           \
      for (int64_t i = 0; i < n; i++) fl[i] = (uint8_t)__builtin_mul_overflow(LA, LB, &d[i]); \
      break;                                                                                  \
    case QV_OP_DIV:                                                                           \
    case QV_OP_FLOORDIV:                                                                      \
      for (int64_t i = 0; i < n; i++) {                                                       \
        T x = LA, y = LB;                                                                     \
        bool z = y == 0, o = SIGNED && x == TMIN && y == (T)-1;                               \
        T ys = (z | o) ? (T)1 : y;                                                            \
        T q = (T)(x / ys);                                                                    \
        if (floor_div && SIGNED) q = (T)(q - (T)((x % ys != 0) & (NEG(x) != NEG(ys))));       \
        d[i] = o ? x : q; /* MIN / -1 wraps to MIN */                                         \
        fl[i] = (uint8_t)(o | (z << 1));                                                      \
      }                                                                                       \
      break;                                                                                  \
    default: /* MOD */                                                                        \
      for (int64_t i = 0; i < n; i++) {                                                       \
        T x = LA, y = LB;                                                                     \
        bool z = y == 0, o = SIGNED && y == (T)-1;                                            \
        T ys = (z | o) ? (T)1 : y;                                                            \
        T r = (T)(x % ys);                                                                    \
        if (floor_div && SIGNED && r != 0 && (NEG(r) != NEG(ys))) r = (T)(r + ys);            \
        d[i] = o ? (T)0 : r;                                                                  \
        fl[i] = (uint8_t)(z << 1);                                                            \
      }                                                                                       \
      break;                                                                                  \
  }

#define DEF_INT_ARITH(T, NAME, SIGNED, TMIN, NEG)                                                                    \
  static void arith_##NAME(qv_op op, bool floor_div, const T *a, const T *b, T sa, T sb, int shape, int64_t n, T *d, \
                           uint8_t *fl) {                                                                            \
    if (shape == 0) {                                                                                                \
      INT_ARITH(T, SIGNED, TMIN, NEG, a[i], b[i])                                                                    \
    } else if (shape == 1) {                                                                                         \
      INT_ARITH(T, SIGNED, TMIN, NEG, a[i], sb)                                                                      \
    } else {                                                                                                         \
      INT_ARITH(T, SIGNED, TMIN, NEG, sa, b[i])                                                                      \
    }                                                                                                                \
  }

/* NEG(x): x < 0, spelled so unsigned instantiations do not compare. */
#define NEG_S(x) ((x) < 0)
#define NEG_U(x) 0
DEF_INT_ARITH(int8_t, i8, 1, INT8_MIN, NEG_S)
DEF_INT_ARITH(int16_t, i16, 1, INT16_MIN, NEG_S)
DEF_INT_ARITH(int32_t, i32, 1, INT32_MIN, NEG_S)
DEF_INT_ARITH(int64_t, i64, 1, INT64_MIN, NEG_S)
DEF_INT_ARITH(uint8_t, u8, 0, 0, NEG_U)
DEF_INT_ARITH(uint16_t, u16, 0, 0, NEG_U)
DEF_INT_ARITH(uint32_t, u32, 0, 0, NEG_U)
DEF_INT_ARITH(uint64_t, u64, 0, 0, NEG_U)

#define FLT_ARITH(T, FMOD, FLOOR, LA, LB)                        \
  switch (op) {                                                  \
    case QV_OP_ADD:                                              \
      for (int64_t i = 0; i < n; i++) d[i] = (LA) + (LB);        \
      break;                                                     \
    case QV_OP_SUB:                                              \
      for (int64_t i = 0; i < n; i++) d[i] = (LA) - (LB);        \
      break;                                                     \
    case QV_OP_MUL:                                              \
      for (int64_t i = 0; i < n; i++) d[i] = (LA) * (LB);        \
      break;                                                     \
    case QV_OP_DIV:                                              \
      for (int64_t i = 0; i < n; i++) d[i] = (LA) / (LB);        \
      break;                                                     \
    case QV_OP_FLOORDIV:                                         \
      for (int64_t i = 0; i < n; i++) d[i] = FLOOR((LA) / (LB)); \
      break;                                                     \
    default:                                                     \
      if (floor_div) {                                           \
        for (int64_t i = 0; i < n; i++) {                        \
          T x = LA, y = LB;                                      \
          d[i] = x - y * FLOOR(x / y);                           \
        }                                                        \
      } else {                                                   \
        for (int64_t i = 0; i < n; i++) d[i] = FMOD(LA, LB);     \
      }                                                          \
      break;                                                     \
  }

/* Polars divides by a scalar as a multiplication by its reciprocal
 * (0.3 / 0.1 is 3.0, not 2.9999999999999996), and // and % by a scalar
 * through the same product. */
#define FLT_RECIP(T, FLOOR)                                               \
  do {                                                                    \
    T r = (T)1 / sb;                                                      \
    if (op == QV_OP_DIV)                                                  \
      for (int64_t i = 0; i < n; i++) d[i] = a[i] * r;                    \
    else if (op == QV_OP_FLOORDIV)                                        \
      for (int64_t i = 0; i < n; i++) d[i] = FLOOR(a[i] * r);             \
    else                                                                  \
      for (int64_t i = 0; i < n; i++) d[i] = a[i] - sb * FLOOR(a[i] * r); \
  } while (0)

#define DEF_FLT_ARITH(T, NAME, FMOD, FLOOR)                                                                          \
  static void arith_##NAME(qv_op op, bool floor_div, bool recip, const T *a, const T *b, T sa, T sb, int shape,      \
                           int64_t n, T *d) {                                                                        \
    if (shape == 0) {                                                                                                \
      FLT_ARITH(T, FMOD, FLOOR, a[i], b[i])                                                                          \
    } else if (shape == 1 && recip && (op == QV_OP_DIV || op == QV_OP_FLOORDIV || (op == QV_OP_MOD && floor_div))) { \
      FLT_RECIP(T, FLOOR);                                                                                           \
    } else if (shape == 1) {                                                                                         \
      FLT_ARITH(T, FMOD, FLOOR, a[i], sb)                                                                            \
    } else {                                                                                                         \
      FLT_ARITH(T, FMOD, FLOOR, sa, b[i])                                                                            \
    }                                                                                                                \
  }
DEF_FLT_ARITH(float, f32, fmodf, floorf)
DEF_FLT_ARITH(double, f64, fmod, floor)

static const char *op_sym(qv_op op) { return qv_op_name(op); }

/* Text of operand row i (for error messages). */
static void operand_text(const qvk_datum *d, int64_t i, char *buf, size_t size) {
  if (d->scalar) qv_scalar_format(d->scalar, buf, size);
  else qv_array_format_value(d->array, i, buf, size);
}

/* Applies the overflow / division-by-zero rules to the flagged rows:
 * clears their validity bits or fails. */
static qv_status settle(qvk_ctx *c, const qv_expr *e, const qvk_datum *a, const qvk_datum *b, const uint8_t *fl,
                        uint64_t *valid, const qv_datatype *rt) {
  int64_t n = c->n;
  uint8_t any = 0;
  for (int64_t i = 0; i < n; i++) any |= fl[i];
  if (!any) return QV_OK;
  for (int64_t i = 0; i < n; i++) {
    if (!fl[i] || !((valid[i >> 6] >> (i & 63)) & 1)) continue;
    if ((fl[i] & F_DIV0) && e->sem.overflow == QV_OVERFLOW_ERROR)
      return qv_error_set(c->err, QV_ERR_INVALID, "division by zero (row %lld)", (long long)i);
    if ((fl[i] & F_OVF) && e->sem.overflow == QV_OVERFLOW_WRAP) continue;
    if ((fl[i] & F_OVF) && e->sem.overflow == QV_OVERFLOW_ERROR) {
      char x[64], y[64], t[64];
      operand_text(a, i, x, sizeof x);
      if (b) operand_text(b, i, y, sizeof y);
      if (b)
        return qv_error_set(c->err, QV_ERR_OVERFLOW, "integer overflow: %s %s %s does not fit %s (row %lld)", x,
                            op_sym(e->op), y, qvk_type_name(rt, t, sizeof t), (long long)i);
      return qv_error_set(c->err, QV_ERR_OVERFLOW, "integer overflow: %s(%s) does not fit %s (row %lld)",
                          e->op == QV_OP_NEG ? "-" : "abs", x, qvk_type_name(rt, t, sizeof t), (long long)i);
    }
    valid[i >> 6] &= ~((uint64_t)1 << (i & 63));
  }
  return QV_OK;
}

static qv_status result_validity(const qvk_datum *a, const qvk_datum *b, int64_t n, uint64_t *m) {
  if (!qvk_validity_words(a, n, m)) qvk_fill(m, n, true);
  if (b) qvk_and_validity(b, n, m);
  return QV_OK;
}

/* Shared ending of the arithmetic kernels: the result's validity is the
 * inputs' (b may be NULL), then settle() applies the overflow / division
 * flags fl (freed here); r is released on failure. */
static qv_status finish(qvk_ctx *c, const qv_expr *e, const qvk_datum *a, const qvk_datum *b, uint8_t *fl, qv_array *r,
                        const qv_datatype *rt, qvk_datum *out) {
  uint64_t *valid = (uint64_t *)qv_bytes_mutable(r->buffers[0]);
  result_validity(a, b, c->n, valid);
  qv_status st = settle(c, e, a, b, fl, valid, rt);
  qv_free(fl);
  return qvk_fixed_out(st, r, out);
}

static bool is_dec(const qv_datatype *t) { return t->id == QV_TYPE_DECIMAL128; }

qv_status qvk_op_arith(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 2)
    return qv_error_set(c->err, QV_ERR_INVALID, "%s takes 2 arguments, got %d", qv_op_name(e->op), (int)e->n_args);
  qvk_datum *a = &args[0], *b = &args[1];
  const qv_datatype *ta = qvk_datum_type(a), *tb = qvk_datum_type(b);
  const qv_datatype *rt = qvk_bound_type(e);
  if (is_dec(ta) || is_dec(tb) || (rt && is_dec(rt))) return qvk_decimal_arith(c, e, args, out);
  if (!rt) {
    if (!qv_datatype_equal(ta, tb) && ta->id != QV_TYPE_NULL && tb->id != QV_TYPE_NULL) {
      char x[64], y[64];
      return qv_error_set(c->err, QV_ERR_TYPE, "%s: unbound node mixes %s and %s", qv_op_name(e->op),
                          qvk_type_name(ta, x, sizeof x), qvk_type_name(tb, y, sizeof y));
    }
    rt = ta->id == QV_TYPE_NULL ? tb : ta;
  }
  if (!qv_type_is_integer(rt->id) && !qv_type_is_floating(rt->id)) {
    char t[64];
    return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "%s: arithmetic on %s is not supported", qv_op_name(e->op),
                        qvk_type_name(rt, t, sizeof t));
  }
  int64_t n = c->n;
  qv_array *r = NULL;
  if (qvk_datum_all_null(a) || qvk_datum_all_null(b)) return qvk_null_out(rt, n, out, c->err);
  QV_RETURN_NOT_OK(qvk_coerce(c, a, rt));
  QV_RETURN_NOT_OK(qvk_coerce(c, b, rt));
  QV_RETURN_NOT_OK(qvk_datum_dense(c, a));
  QV_RETURN_NOT_OK(qvk_datum_dense(c, b));
  if (a->scalar && b->scalar) QV_RETURN_NOT_OK(qvk_datum_array(c, a));
  int shape = a->scalar ? 2 : b->scalar ? 1 : 0;
  QV_RETURN_NOT_OK(qvk_fixed_result(rt, n, true, &r, c->err));
  uint8_t *fl = qv_calloc((size_t)(n > 0 ? n : 1), 1);
  if (!fl) {
    qv_array_release(r);
    return qv_error_nomem(c->err, qv_op_name(e->op));
  }
  void *d = qv_bytes_mutable(r->buffers[1]);
  const void *pa = a->scalar ? NULL : qv_array_values(a->array);
  const void *pb = b->scalar ? NULL : qv_array_values(b->array);
  const qv_scalar *sa = a->scalar, *sb = b->scalar;
  bool fd = e->sem.int_div == QV_DIV_FLOOR;
  bool recip = e->sem.float_order == QV_FLOAT_POLARS;
  qv_op op = e->op;
#define SV(s, F) ((s) ? (s)->v.F : 0)
  switch (rt->id) {
    case QV_TYPE_INT8: arith_i8(op, fd, pa, pb, (int8_t)SV(sa, i), (int8_t)SV(sb, i), shape, n, d, fl); break;
    case QV_TYPE_INT16: arith_i16(op, fd, pa, pb, (int16_t)SV(sa, i), (int16_t)SV(sb, i), shape, n, d, fl); break;
    case QV_TYPE_INT32: arith_i32(op, fd, pa, pb, (int32_t)SV(sa, i), (int32_t)SV(sb, i), shape, n, d, fl); break;
    case QV_TYPE_INT64: arith_i64(op, fd, pa, pb, SV(sa, i), SV(sb, i), shape, n, d, fl); break;
    case QV_TYPE_UINT8: arith_u8(op, fd, pa, pb, (uint8_t)SV(sa, u), (uint8_t)SV(sb, u), shape, n, d, fl); break;
    case QV_TYPE_UINT16: arith_u16(op, fd, pa, pb, (uint16_t)SV(sa, u), (uint16_t)SV(sb, u), shape, n, d, fl); break;
    case QV_TYPE_UINT32: arith_u32(op, fd, pa, pb, (uint32_t)SV(sa, u), (uint32_t)SV(sb, u), shape, n, d, fl); break;
    case QV_TYPE_UINT64: arith_u64(op, fd, pa, pb, SV(sa, u), SV(sb, u), shape, n, d, fl); break;
    case QV_TYPE_FLOAT32: arith_f32(op, fd, recip, pa, pb, (float)SV(sa, f), (float)SV(sb, f), shape, n, d); break;
    default: arith_f64(op, fd, recip, pa, pb, SV(sa, f), SV(sb, f), shape, n, d); break;
  }
#undef SV
  return finish(c, e, a, b, fl, r, rt, out);
}

/* ---- unary minus and abs -------------------------------------------------------- */

#define DEF_UNARY(T, NAME, SIGNED, TMIN, NEG)                                                     \
  static void unary_##NAME(bool neg, const T *a, int64_t n, T *d, uint8_t *fl) {                  \
    if (neg) {                                                                                    \
      for (int64_t i = 0; i < n; i++) fl[i] = (uint8_t)__builtin_sub_overflow((T)0, a[i], &d[i]); \
    } else {                                                                                      \
      for (int64_t i = 0; i < n; i++) {                                                           \
        T x = a[i];                                                                               \
        bool o = SIGNED && x == TMIN;                                                             \
        d[i] = (NEG(x) && !o) ? (T)-x : x;                                                        \
        fl[i] = o;                                                                                \
      }                                                                                           \
    }                                                                                             \
  }
DEF_UNARY(int8_t, i8, 1, INT8_MIN, NEG_S)
DEF_UNARY(int16_t, i16, 1, INT16_MIN, NEG_S)
DEF_UNARY(int32_t, i32, 1, INT32_MIN, NEG_S)
DEF_UNARY(int64_t, i64, 1, INT64_MIN, NEG_S)
DEF_UNARY(uint8_t, u8, 0, 0, NEG_U)
DEF_UNARY(uint16_t, u16, 0, 0, NEG_U)
DEF_UNARY(uint32_t, u32, 0, 0, NEG_U)
DEF_UNARY(uint64_t, u64, 0, 0, NEG_U)

qv_status qvk_op_neg_abs(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 1)
    return qv_error_set(c->err, QV_ERR_INVALID, "%s takes 1 argument, got %d", e->op == QV_OP_NEG ? "unary -" : "abs",
                        (int)e->n_args);
  qvk_datum *a = &args[0];
  QV_RETURN_NOT_OK(qvk_datum_array(c, a));
  const qv_datatype *t = &a->array->type;
  int64_t n = c->n;
  bool neg = e->op == QV_OP_NEG;
  qv_array *r = NULL;
  if (t->id == QV_TYPE_NULL) return qvk_null_out(t, n, out, c->err);
  if (!qv_type_is_numeric(t->id)) {
    char tb[64];
    return qv_error_set(c->err, QV_ERR_TYPE, "%s: expected a number, got %s", neg ? "unary -" : "abs",
                        qvk_type_name(t, tb, sizeof tb));
  }
  QV_RETURN_NOT_OK(qvk_fixed_result(t, n, true, &r, c->err));
  uint8_t *fl = qv_calloc((size_t)(n > 0 ? n : 1), 1);
  if (!fl) {
    qv_array_release(r);
    return qv_error_nomem(c->err, NULL);
  }
  void *d = qv_bytes_mutable(r->buffers[1]);
  const void *pa = qv_array_values(a->array);
  switch (t->id) {
    case QV_TYPE_INT8: unary_i8(neg, pa, n, d, fl); break;
    case QV_TYPE_INT16: unary_i16(neg, pa, n, d, fl); break;
    case QV_TYPE_INT32: unary_i32(neg, pa, n, d, fl); break;
    case QV_TYPE_INT64: unary_i64(neg, pa, n, d, fl); break;
    case QV_TYPE_UINT8: unary_u8(neg, pa, n, d, fl); break;
    case QV_TYPE_UINT16: unary_u16(neg, pa, n, d, fl); break;
    case QV_TYPE_UINT32: unary_u32(neg, pa, n, d, fl); break;
    case QV_TYPE_UINT64: unary_u64(neg, pa, n, d, fl); break;
    case QV_TYPE_FLOAT32: {
      const float *x = pa;
      float *y = d;
      for (int64_t i = 0; i < n; i++) y[i] = neg ? -x[i] : fabsf(x[i]);
      break;
    }
    case QV_TYPE_FLOAT64: {
      const double *x = pa;
      double *y = d;
      for (int64_t i = 0; i < n; i++) y[i] = neg ? -x[i] : fabs(x[i]);
      break;
    }
    default: { /* decimal: |v| < 10^38, so neither can overflow */
      const uint8_t *x = pa;
      uint8_t *y = d;
      for (int64_t i = 0; i < n; i++) {
        qvk_i128 v = qvk_dec_get(x + 16 * i);
        qvk_dec_put(y + 16 * i, (neg || v < 0) ? -v : v);
      }
      break;
    }
  }
  return finish(c, e, a, NULL, fl, r, t, out);
}
