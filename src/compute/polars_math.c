/* Kernels for the numeric and logical operators only the Polars front ends
 * produce, with Polars 2.1.0 semantics (each checked against it in
 * tests/compute/test_polars_math.c); the rest go to polars_text.c.
 *
 * - ** on integers wraps in the base's type (127i8 ** 2 == 1) with a UInt32
 *   exponent; on floats it is pow().
 * - round(n): integers unchanged; floats round x * 10^n to an integer
 *   (ties to even, or away from zero) and divide back, as Polars does.
 * - log10(x) and log(x, b) are ln(x) / ln(b), as Rust's f64::log computes
 *   them (so log10(1000) is 2.9999999999999996, as in Polars).
 * - min/max_horizontal skip nulls and NaN (NaN only when every value is
 *   NaN); between equal values the later argument wins, so -0.0 vs 0.0
 *   gives the later one.  The same operators from Lance (least, greatest)
 *   skip nulls and order floats totally (NaN greatest, -0.0 < 0.0).
 * - eq_missing / ne_missing: null equals null, never null.
 * - when/then/otherwise: the first branch whose predicate is true (a null
 *   predicate is false), else otherwise. */
#include <math.h>
#include <string.h>

#include "compute/compute_int.h"

/* ---- helpers ---------------------------------------------------------------------------- */

/* Makes d a dense array of type rt (casting scalars and other types). */
static qv_status dense_as(qvk_ctx *c, qvk_datum *d, const qv_datatype *rt) {
  QV_RETURN_NOT_OK(qvk_coerce(c, d, rt));
  QV_RETURN_NOT_OK(qvk_datum_array(c, d));
  return qvk_datum_dense(c, d);
}

/* A fixed-width result of rt with the validity of `like` (NULL: all valid). */
static qv_status result_like(qvk_ctx *c, const qv_datatype *rt, const qvk_datum *like, qv_array **out) {
  QV_RETURN_NOT_OK(qvk_fixed_result(rt, c->n, true, out, c->err));
  uint64_t *valid = (uint64_t *)qv_bytes_mutable((*out)->buffers[0]);
  if (!like || !qvk_validity_words(like, c->n, valid)) qvk_fill(valid, c->n, true);
  qv_bytes *v = (*out)->buffers[0];
  (*out)->buffers[0] = NULL;
  qvk_set_validity(*out, v);
  return QV_OK;
}

/* ---- ** ---------------------------------------------------------------------------------- */

static uint64_t wrapping_pow(uint64_t base, uint32_t exp) {
  uint64_t r = 1;
  while (exp) {
    if (exp & 1) r *= base;
    base *= base;
    exp >>= 1;
  }
  return r;
}

qv_status qvk_op_pow(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  const qv_datatype *rt = qvk_bound_type(e);
  if (!rt) return qv_error_set(c->err, QV_ERR_INVALID, "**: unbound node");
  qv_datatype et = qv_type_is_integer(rt->id) ? qv_datatype_simple(QV_TYPE_UINT32) : *rt;
  QV_RETURN_NOT_OK(dense_as(c, &args[0], rt));
  QV_RETURN_NOT_OK(dense_as(c, &args[1], &et));
  qv_array *r = NULL;
  QV_RETURN_NOT_OK(qvk_fixed_result(rt, c->n, true, &r, c->err));
  uint64_t *valid = (uint64_t *)qv_bytes_mutable(r->buffers[0]);
  if (!qvk_validity_words(&args[0], c->n, valid)) qvk_fill(valid, c->n, true);
  qvk_and_validity(&args[1], c->n, valid);
  qvk_finish_validity(r);
  const void *pa = qv_array_values(args[0].array), *pb = qv_array_values(args[1].array);
  void *d = qv_bytes_mutable(r->buffers[1]);
  int64_t n = c->n;
  switch (rt->id) {
#define INT_POW(T)                                                                          \
  for (int64_t i = 0; i < n; i++)                                                           \
    ((T *)d)[i] = (T)wrapping_pow((uint64_t)((const T *)pa)[i], ((const uint32_t *)pb)[i]); \
  break;
    case QV_TYPE_INT8: INT_POW(int8_t)
    case QV_TYPE_INT16: INT_POW(int16_t)
    case QV_TYPE_INT32: INT_POW(int32_t)
    case QV_TYPE_INT64: INT_POW(int64_t)
    case QV_TYPE_UINT8: INT_POW(uint8_t)
    case QV_TYPE_UINT16: INT_POW(uint16_t)
    case QV_TYPE_UINT32: INT_POW(uint32_t)
    case QV_TYPE_UINT64: INT_POW(uint64_t)
#undef INT_POW
    case QV_TYPE_FLOAT32:
      for (int64_t i = 0; i < n; i++) ((float *)d)[i] = powf(((const float *)pa)[i], ((const float *)pb)[i]);
      break;
    case QV_TYPE_FLOAT64:
      for (int64_t i = 0; i < n; i++) ((double *)d)[i] = pow(((const double *)pa)[i], ((const double *)pb)[i]);
      break;
    default: {
      char tb[64];
      qv_array_release(r);
      return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "** on %s is not supported", qvk_type_name(rt, tb, sizeof tb));
    }
  }
  qvk_datum_set_array(out, r);
  return QV_OK;
}

/* ---- one-argument float maps --------------------------------------------------------------- */

typedef enum { M_ROUND_EVEN, M_ROUND_AWAY, M_SQRT, M_LN, M_LOG10, M_CBRT, M_LOG } float_map;

static double map64(float_map m, double x, double k) {
  switch (m) {
    case M_ROUND_EVEN: return k == 1.0 ? nearbyint(x) : nearbyint(x * k) / k;
    case M_ROUND_AWAY: return k == 1.0 ? round(x) : round(x * k) / k;
    case M_SQRT: return sqrt(x);
    case M_LN: return log(x);
    case M_LOG10: return log(x) / log(10.0);
    case M_CBRT: return cbrt(x);
    default: return log(x) / log(k);
  }
}

static float map32(float_map m, float x, float k) {
  switch (m) {
    case M_ROUND_EVEN: return k == 1.0f ? nearbyintf(x) : nearbyintf(x * k) / k;
    case M_ROUND_AWAY: return k == 1.0f ? roundf(x) : roundf(x * k) / k;
    case M_SQRT: return sqrtf(x);
    case M_LN: return logf(x);
    case M_LOG10: return logf(x) / logf(10.0f);
    case M_CBRT: return cbrtf(x);
    default: return logf(x) / logf(k);
  }
}

qv_status qvk_op_float_map(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  const qv_datatype *rt = qvk_bound_type(e);
  if (!rt) return qv_error_set(c->err, QV_ERR_INVALID, "%s: unbound node", qv_op_name(e->op));
  if (e->op == QV_OP_ROUND && !qv_type_is_floating(rt->id)) { /* integers round to themselves */
    qvk_datum_move(out, &args[0]);
    return QV_OK;
  }
  float_map m;
  double k = 1.0;
  switch (e->op) {
    case QV_OP_ROUND:
      m = e->name && strcmp(e->name, "half_away_from_zero") == 0 ? M_ROUND_AWAY : M_ROUND_EVEN;
      k = pow(10.0, (double)e->param);
      break;
    case QV_OP_SQRT: m = M_SQRT; break;
    case QV_OP_LN: m = M_LN; break;
    case QV_OP_LOG10: m = M_LOG10; break;
    case QV_OP_CBRT: m = M_CBRT; break;
    default: m = M_LOG; break;
  }
  QV_RETURN_NOT_OK(dense_as(c, &args[0], rt));
  if (m == M_LOG) {
    if (!args[1].scalar) return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "log: the base must be a constant");
    if (args[1].scalar->is_null) return qvk_null_out(rt, c->n, out, c->err);
    QV_RETURN_NOT_OK(qvk_coerce(c, &args[1], rt));
    k = rt->id == QV_TYPE_FLOAT32 ? (double)args[1].scalar->v.f : args[1].scalar->v.f;
  }
  qv_array *r = NULL;
  QV_RETURN_NOT_OK(result_like(c, rt, &args[0], &r));
  int64_t n = c->n;
  if (rt->id == QV_TYPE_FLOAT32) {
    const float *x = qv_array_values(args[0].array);
    float *y = (float *)(void *)qv_bytes_mutable(r->buffers[1]);
    for (int64_t i = 0; i < n; i++) y[i] = map32(m, x[i], (float)k);
  } else {
    const double *x = qv_array_values(args[0].array);
    double *y = (double *)(void *)qv_bytes_mutable(r->buffers[1]);
    for (int64_t i = 0; i < n; i++) y[i] = map64(m, x[i], k);
  }
  qvk_datum_set_array(out, r);
  return QV_OK;
}

/* ---- is_not_nan / is_finite / is_infinite -------------------------------------------------- */

qv_status qvk_op_float_class(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  int64_t n = c->n, nw = qvk_words(n);
  qv_bytes *vals = qvk_bytes(nw * 8, c->err);
  qv_bytes *valid = vals ? qvk_bytes(nw * 8, c->err) : NULL;
  if (!valid) {
    qv_bytes_release(vals);
    return QV_ERR_NOMEM;
  }
  uint64_t *vw = (uint64_t *)qv_bytes_mutable(valid);
  if (!qvk_validity_words(&args[0], n, vw)) qvk_fill(vw, n, true);
  uint8_t *bits = qv_bytes_mutable(vals);
  qv_type_id id = qvk_datum_type(&args[0])->id;
  if (!qv_type_is_floating(id)) { /* integers: never NaN, always finite */
    if (e->op != QV_OP_IS_INFINITE) qvk_fill((uint64_t *)bits, n, true);
  } else {
    qv_status st = qvk_datum_array(c, &args[0]);
    if (st == QV_OK) st = qvk_datum_dense(c, &args[0]);
    if (st != QV_OK) {
      qv_bytes_release(vals);
      qv_bytes_release(valid);
      return st;
    }
    const void *x = qv_array_values(args[0].array);
    for (int64_t i = 0; i < n; i++) {
      double v = id == QV_TYPE_FLOAT32 ? (double)((const float *)x)[i] : ((const double *)x)[i];
      bool r = e->op == QV_OP_IS_NOT_NAN ? !isnan(v) : e->op == QV_OP_IS_FINITE ? isfinite(v) : isinf(v);
      if (r) qv_bit_set(bits, i);
    }
  }
  return qvk_bool_out(QV_OK, n, vals, valid, out, c->err);
}

/* ---- eq_missing / ne_missing ---------------------------------------------------------------- */

qv_status qvk_op_eq_missing(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  int64_t n = c->n, nw = qvk_words(n);
  qv_array *eq = NULL;
  QV_RETURN_NOT_OK(qvk_compare(QV_OP_EQ, e->sem.float_order, &args[0], &args[1], n, &eq, c->err));
  qvk_datum ed = QVK_DATUM_INIT;
  qvk_datum_set_array(&ed, eq);
  qv_bytes *vals = qvk_bytes(nw * 8, c->err);
  uint64_t *tmp = vals ? qv_malloc((size_t)(nw ? nw : 1) * 16) : NULL;
  if (!tmp) {
    qv_bytes_release(vals);
    qvk_datum_reset(&ed);
    return vals ? qv_error_nomem(c->err, NULL) : QV_ERR_NOMEM;
  }
  uint64_t *va = tmp, *vb = tmp + (nw ? nw : 1), *w = (uint64_t *)qv_bytes_mutable(vals);
  if (!qvk_validity_words(&args[0], n, va)) qvk_fill(va, n, true);
  if (!qvk_validity_words(&args[1], n, vb)) qvk_fill(vb, n, true);
  qvk_bool_words(&ed, n, w);
  bool ne = e->op == QV_OP_NE_MISSING;
  for (int64_t i = 0; i < nw; i++) {
    uint64_t r = (va[i] & vb[i] & w[i]) | (~va[i] & ~vb[i]);
    w[i] = ne ? ~r : r;
  }
  if (n & 63) w[nw - 1] &= ((uint64_t)1 << (n & 63)) - 1;
  qv_free(tmp);
  qvk_datum_reset(&ed);
  return qvk_bool_out(QV_OK, n, vals, NULL, out, c->err);
}

/* ---- fill_null ----------------------------------------------------------------------------- */

qv_status qvk_op_fill_null(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  const qv_datatype *rt = qvk_bound_type(e);
  if (e->n_args == 2) return qvk_coalesce(c, args, 2, rt, out);
  /* strategy "zero" or "one" (the binder refuses the others) */
  if (!rt) return qv_error_set(c->err, QV_ERR_INVALID, "fill_null: unbound node");
  bool one = e->name && strcmp(e->name, "one") == 0;
  qv_scalar s = QV_SCALAR_INIT;
  if (rt->id == QV_TYPE_BOOL) s = qv_scalar_bool(one);
  else if (qv_type_is_floating(rt->id)) s = qv_scalar_double(one ? 1.0 : 0.0);
  else s = qv_scalar_int(QV_TYPE_INT64, one ? 1 : 0);
  qvk_datum both[2] = {QVK_DATUM_INIT, QVK_DATUM_INIT};
  qvk_datum_move(&both[0], &args[0]);
  qvk_datum_set_scalar(&both[1], &s);
  qv_status st = qvk_coalesce(c, both, 2, rt, out);
  qvk_datum_reset(&both[0]);
  qvk_datum_reset(&both[1]);
  return st;
}

/* ---- when / then / otherwise ------------------------------------------------------------------ */

qv_status qvk_op_when(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  int32_t na = e->n_args, nv = na / 2 + 1;
  if (na < 3 || na % 2 == 0) return qv_error_set(c->err, QV_ERR_INVALID, "when: malformed node");
  if (nv > QVK_PICK_MAX)
    return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "when/then with more than %d branches", QVK_PICK_MAX - 1);
  /* a when whose every value is None is of the null type: null rows */
  const qv_datatype *rt = &e->type;
  int64_t n = c->n, nw = qvk_words(n);
  uint8_t *src = qv_malloc((size_t)(n ? n : 1));
  uint64_t *todo = src ? qv_malloc((size_t)(nw ? nw : 1) * 24) : NULL;
  qvk_datum *vals = todo ? qv_malloc((size_t)nv * sizeof *vals) : NULL;
  if (!vals) {
    qv_free(src);
    qv_free(todo);
    return qv_error_nomem(c->err, "when");
  }
  uint64_t *p = todo + (nw ? nw : 1), *pv = p + (nw ? nw : 1);
  if (n > 0) memset(src, nv - 1, (size_t)n); /* otherwise */
  qvk_fill(todo, n, true);
  for (int32_t k = 0; k + 1 < na; k += 2) {
    qvk_bool_words(&args[k], n, p);
    if (qvk_validity_words(&args[k], n, pv))
      for (int64_t wi = 0; wi < nw; wi++) p[wi] &= pv[wi];
    for (int64_t wi = 0; wi < nw; wi++) {
      uint64_t take = todo[wi] & p[wi];
      todo[wi] &= ~take;
      while (take) {
        src[(wi << 6) + __builtin_ctzll(take)] = (uint8_t)(k / 2);
        take &= take - 1;
      }
    }
  }
  qvk_datum init = QVK_DATUM_INIT;
  for (int32_t k = 0; k < nv; k++) {
    vals[k] = init;
    qvk_datum_move(&vals[k], &args[k < nv - 1 ? 2 * k + 1 : na - 1]);
  }
  qv_array *r = NULL;
  qv_status st = qvk_pick(c, vals, nv, src, rt, &r);
  for (int32_t k = 0; k < nv; k++) qvk_datum_reset(&vals[k]);
  qv_free(vals);
  qv_free(src);
  qv_free(todo);
  if (st == QV_OK) qvk_datum_set_array(out, r);
  return st;
}

/* ---- min/max_horizontal --------------------------------------------------------------------- */

/* Folds argument k into (acc, have) for rows [0, n). */
#define HFOLD(T, ISNAN)                                    \
  for (int64_t i = 0; i < n; i++) {                        \
    if (!qvk_datum_valid(a, i)) continue;                  \
    T v = ((const T *)x)[i], *s = (T *)acc + i;            \
    if (!qv_bit_get(have, i)) {                            \
      *s = v;                                              \
      qv_bit_set(have, i);                                 \
    } else if (ISNAN(*s)) {                                \
      *s = v;                                              \
    } else if (!ISNAN(v)) {                                \
      *s = is_max ? (*s > v ? *s : v) : (*s < v ? *s : v); \
    }                                                      \
  }
#define NO_NAN(v) 0
/* The same under a total order (Lance's least/greatest): NaN sorts
 * greatest and -0.0 below 0.0, through the comparison keys. */
#define HFOLD_KEYED(T)                                                                     \
  for (int64_t i = 0; i < n; i++) {                                                        \
    if (!qvk_datum_valid(a, i)) continue;                                                  \
    T v = ((const T *)x)[i], *s = (T *)acc + i;                                            \
    if (!qv_bit_get(have, i)) {                                                            \
      *s = v;                                                                              \
      qv_bit_set(have, i);                                                                 \
    } else {                                                                               \
      int64_t ks = qvk_float_key((double)*s, order), kv = qvk_float_key((double)v, order); \
      if (is_max ? kv > ks : kv < ks) *s = v;                                              \
    }                                                                                      \
  }

qv_status qvk_op_horizontal(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  const qv_datatype *rt = qvk_bound_type(e);
  if (!rt) return qv_error_set(c->err, QV_ERR_INVALID, "%s: unbound node", qv_op_name(e->op));
  int64_t n = c->n;
  int w = qv_type_byte_width(rt->id);
  if (rt->id == QV_TYPE_NULL || w <= 0) {
    if (rt->id != QV_TYPE_NULL) {
      char tb[64];
      return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "%s of %s is not supported", qv_op_name(e->op),
                          qvk_type_name(rt, tb, sizeof tb));
    }
    return qvk_null_out(rt, n, out, c->err);
  }
  qv_array *r = NULL;
  QV_RETURN_NOT_OK(qvk_fixed_result(rt, n, true, &r, c->err));
  uint8_t *have = qv_bytes_mutable(r->buffers[0]);
  void *acc = (void *)qv_bytes_mutable(r->buffers[1]);
  bool is_max = e->op == QV_OP_MAX_HORIZONTAL;
  uint8_t order = e->sem.float_order;
  bool total = order != QV_FLOAT_POLARS;
  qv_status st = QV_OK;
  for (int32_t k = 0; k < e->n_args && st == QV_OK; k++) {
    qvk_datum *a = &args[k];
    if (qvk_datum_all_null(a)) continue;
    st = dense_as(c, a, rt);
    if (st != QV_OK) break;
    const void *x = qv_array_values(a->array);
    switch (rt->id) {
      case QV_TYPE_INT8: HFOLD(int8_t, NO_NAN) break;
      case QV_TYPE_INT16: HFOLD(int16_t, NO_NAN) break;
      case QV_TYPE_INT32:
      case QV_TYPE_DATE32: HFOLD(int32_t, NO_NAN) break;
      case QV_TYPE_UINT8: HFOLD(uint8_t, NO_NAN) break;
      case QV_TYPE_UINT16: HFOLD(uint16_t, NO_NAN) break;
      case QV_TYPE_UINT32: HFOLD(uint32_t, NO_NAN) break;
      case QV_TYPE_UINT64: HFOLD(uint64_t, NO_NAN) break;
      case QV_TYPE_FLOAT32:
        if (total) HFOLD_KEYED(float) else HFOLD(float, isnan) break;
      case QV_TYPE_FLOAT64:
        if (total) HFOLD_KEYED(double) else HFOLD(double, isnan) break;
      case QV_TYPE_DECIMAL128: HFOLD(qvk_i128, NO_NAN) break; /* Polars' Int128 */
      default: HFOLD(int64_t, NO_NAN) break;                  /* int64, timestamps */
    }
  }
  return qvk_fixed_out(st, r, out);
}
#undef HFOLD
#undef HFOLD_KEYED
#undef NO_NAN

/* all_horizontal / any_horizontal of one argument: the argument itself. */
qv_status qvk_op_passthrough(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  (void)c;
  (void)e;
  qvk_datum_move(out, &args[0]);
  return QV_OK;
}
