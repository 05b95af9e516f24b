/* Float comparisons under the four orders of qv_float_order, and isnan.
 *
 * IEEE compares the floats themselves (NaN: every comparison false except
 * !=, -0.0 == +0.0).  The other three map each float to an integer key whose
 * signed order is the wanted order, so every loop is a branch-free integer
 * comparison the compiler vectorizes:
 *   TOTAL   bits ^ (sign ? 0x7fff... : 0): IEEE 754 totalOrder, as Rust's
 *           f64::total_cmp and so arrow-rs / Lance: -NaN < -inf < -0.0 <
 *           +0.0 < +inf < +NaN; NaNs equal only when their bits are.
 *   POLARS  -0.0 folded into +0.0 (x + 0.0), every NaN the largest key.
 *   JAVA    total order of non-NaNs (-0.0 < +0.0), every NaN the largest key.
 * float32 against float64 compares in float64 (widening is exact). */
#include <math.h>

#include "compute/compute_int.h"

#define total64 qvk_total64
#define total32 qvk_total32
#define polars64 qvk_polars64
#define polars32 qvk_polars32
#define java64 qvk_java64
#define java32 qvk_java32
#define ieee(x) (x)

int64_t qvk_float_key(double x, uint8_t order) {
  switch (order) {
    case QV_FLOAT_POLARS: return polars64(x);
    case QV_FLOAT_JAVA: return java64(x);
    default: return total64(x);
  }
}

#define DEF_FCMP(T, KT, NAME, KEY)                                                                                    \
  QVK_MULTIVERSION static void vs_##NAME(qv_op op, const T *a, const uint32_t *idx, KT s, int64_t n, uint64_t *out) { \
    if (idx) {                                                                                                        \
      QVK_CMP_OPS(KEY(a[idx[i]]), s)                                                                                  \
    } else {                                                                                                          \
      QVK_CMP_OPS(KEY(a[i]), s)                                                                                       \
    }                                                                                                                 \
  }                                                                                                                   \
  QVK_MULTIVERSION static void vv_##NAME(qv_op op, const T *a, const uint32_t *ia, const T *b, const uint32_t *ib,    \
                                         int64_t n, uint64_t *out) {                                                  \
    if (ia) {                                                                                                         \
      QVK_CMP_OPS(KEY(a[ia[i]]), KEY(b[ib[i]]))                                                                       \
    } else {                                                                                                          \
      QVK_CMP_OPS(KEY(a[i]), KEY(b[i]))                                                                               \
    }                                                                                                                 \
  }                                                                                                                   \
  QVK_MULTIVERSION static void bt_##NAME(const T *a, const uint32_t *idx, KT lo, KT hi, int64_t n, uint64_t *out) {   \
    if (idx) QVK_LOOP(n, out, (int)(lo <= KEY(a[idx[i]])) & (int)(KEY(a[idx[i]]) <= hi));                             \
    else QVK_LOOP(n, out, (int)(lo <= KEY(a[i])) & (int)(KEY(a[i]) <= hi));                                           \
  }

DEF_FCMP(double, double, f64_ieee, ieee)
DEF_FCMP(double, int64_t, f64_total, total64)
DEF_FCMP(double, int64_t, f64_polars, polars64)
DEF_FCMP(double, int64_t, f64_java, java64)
DEF_FCMP(float, float, f32_ieee, ieee)
DEF_FCMP(float, int32_t, f32_total, total32)
DEF_FCMP(float, int32_t, f32_polars, polars32)
DEF_FCMP(float, int32_t, f32_java, java32)

static void f64_vs(qv_op op, uint8_t order, const double *a, const uint32_t *idx, double s, int64_t n, uint64_t *out) {
  switch (order) {
    case QV_FLOAT_IEEE: vs_f64_ieee(op, a, idx, s, n, out); break;
    case QV_FLOAT_POLARS: vs_f64_polars(op, a, idx, polars64(s), n, out); break;
    case QV_FLOAT_JAVA: vs_f64_java(op, a, idx, java64(s), n, out); break;
    default: vs_f64_total(op, a, idx, total64(s), n, out); break;
  }
}
static void f32_vs(qv_op op, uint8_t order, const float *a, const uint32_t *idx, float s, int64_t n, uint64_t *out) {
  switch (order) {
    case QV_FLOAT_IEEE: vs_f32_ieee(op, a, idx, s, n, out); break;
    case QV_FLOAT_POLARS: vs_f32_polars(op, a, idx, polars32(s), n, out); break;
    case QV_FLOAT_JAVA: vs_f32_java(op, a, idx, java32(s), n, out); break;
    default: vs_f32_total(op, a, idx, total32(s), n, out); break;
  }
}
static void f64_vv(qv_op op, uint8_t order, const double *a, const uint32_t *ia, const double *b, const uint32_t *ib,
                   int64_t n, uint64_t *out) {
  switch (order) {
    case QV_FLOAT_IEEE: vv_f64_ieee(op, a, ia, b, ib, n, out); break;
    case QV_FLOAT_POLARS: vv_f64_polars(op, a, ia, b, ib, n, out); break;
    case QV_FLOAT_JAVA: vv_f64_java(op, a, ia, b, ib, n, out); break;
    default: vv_f64_total(op, a, ia, b, ib, n, out); break;
  }
}
static void f32_vv(qv_op op, uint8_t order, const float *a, const uint32_t *ia, const float *b, const uint32_t *ib,
                   int64_t n, uint64_t *out) {
  switch (order) {
    case QV_FLOAT_IEEE: vv_f32_ieee(op, a, ia, b, ib, n, out); break;
    case QV_FLOAT_POLARS: vv_f32_polars(op, a, ia, b, ib, n, out); break;
    case QV_FLOAT_JAVA: vv_f32_java(op, a, ia, b, ib, n, out); break;
    default: vv_f32_total(op, a, ia, b, ib, n, out); break;
  }
}

#define CHUNK 1024 /* rows per widening block, a multiple of 64 */

/* m rows of a float column from row start, as double. */
static void widen(const qvk_datum *d, int64_t start, int64_t m, double *dst) {
  if (d->array->type.id == QV_TYPE_FLOAT64) {
    const double *v = qv_array_values(d->array);
    if (d->idx)
      for (int64_t j = 0; j < m; j++) dst[j] = v[d->idx[start + j]];
    else memcpy(dst, v + start, (size_t)m * sizeof *dst);
    return;
  }
  const float *v = qv_array_values(d->array);
  if (d->idx)
    for (int64_t j = 0; j < m; j++) dst[j] = v[d->idx[start + j]];
  else
    for (int64_t j = 0; j < m; j++) dst[j] = v[start + j];
}

/* Whether a float64 scalar can be compared in float32 without changing any
 * answer: exactly representable, or a NaN under an order where all NaNs
 * are alike. */
bool qvk_fits_f32(double s, uint8_t order) {
  if (isnan(s)) return order != QV_FLOAT_TOTAL;
  return (double)(float)s == s;
}

qv_status qvk_compare_float(qv_op op, uint8_t order, const qvk_datum *a, const qvk_datum *b, int64_t n, uint64_t *out,
                            qv_error *err) {
  qv_type_id ta = a->array->type.id;
  if (b->scalar) {
    double s = b->scalar->v.f;
    if (ta == QV_TYPE_FLOAT64) {
      f64_vs(op, order, qv_array_values(a->array), a->idx, s, n, out);
    } else if (qvk_fits_f32(s, order)) {
      f32_vs(op, order, qv_array_values(a->array), a->idx, (float)s, n, out);
    } else {
      double buf[CHUNK];
      for (int64_t start = 0; start < n; start += CHUNK) {
        int64_t m = n - start < CHUNK ? n - start : CHUNK;
        widen(a, start, m, buf);
        f64_vs(op, order, buf, NULL, s, m, out + (start >> 6));
      }
    }
    return QV_OK;
  }
  qv_type_id tb = b->array->type.id;
  if (ta == tb) {
    if (ta == QV_TYPE_FLOAT64)
      f64_vv(op, order, qv_array_values(a->array), a->idx, qv_array_values(b->array), b->idx, n, out);
    else f32_vv(op, order, qv_array_values(a->array), a->idx, qv_array_values(b->array), b->idx, n, out);
    return QV_OK;
  }
  double *wa = qv_malloc(2 * CHUNK * sizeof(double));
  if (!wa) return qv_error_nomem(err, "compare");
  double *wb = wa + CHUNK;
  for (int64_t start = 0; start < n; start += CHUNK) {
    int64_t m = n - start < CHUNK ? n - start : CHUNK;
    widen(a, start, m, wa);
    widen(b, start, m, wb);
    f64_vv(op, order, wa, NULL, wb, NULL, m, out + (start >> 6));
  }
  qv_free(wa);
  return QV_OK;
}

static void f64_between(uint8_t order, const double *a, const uint32_t *idx, double lo, double hi, int64_t n,
                        uint64_t *out) {
  switch (order) {
    case QV_FLOAT_IEEE: bt_f64_ieee(a, idx, lo, hi, n, out); break;
    case QV_FLOAT_POLARS: bt_f64_polars(a, idx, polars64(lo), polars64(hi), n, out); break;
    case QV_FLOAT_JAVA: bt_f64_java(a, idx, java64(lo), java64(hi), n, out); break;
    default: bt_f64_total(a, idx, total64(lo), total64(hi), n, out); break;
  }
}

qv_status qvk_between_float(uint8_t order, const qvk_datum *x, double lo, double hi, int64_t n, uint64_t *out) {
  if (x->array->type.id == QV_TYPE_FLOAT64) {
    f64_between(order, qv_array_values(x->array), x->idx, lo, hi, n, out);
    return QV_OK;
  }
  if (qvk_fits_f32(lo, order) && qvk_fits_f32(hi, order)) {
    const float *a = qv_array_values(x->array);
    float l = (float)lo, h = (float)hi;
    switch (order) {
      case QV_FLOAT_IEEE: bt_f32_ieee(a, x->idx, l, h, n, out); break;
      case QV_FLOAT_POLARS: bt_f32_polars(a, x->idx, polars32(l), polars32(h), n, out); break;
      case QV_FLOAT_JAVA: bt_f32_java(a, x->idx, java32(l), java32(h), n, out); break;
      default: bt_f32_total(a, x->idx, total32(l), total32(h), n, out); break;
    }
    return QV_OK;
  }
  double *buf = qv_malloc(CHUNK * sizeof(double));
  if (!buf) return QV_ERR_NOMEM;
  for (int64_t start = 0; start < n; start += CHUNK) {
    int64_t m = n - start < CHUNK ? n - start : CHUNK;
    widen(x, start, m, buf);
    f64_between(order, buf, NULL, lo, hi, m, out + (start >> 6));
  }
  qv_free(buf);
  return QV_OK;
}

/* isnan(x): true for every NaN whatever the order; integers are never NaN. */
qv_status qvk_op_isnan(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 1) return qv_error_set(c->err, QV_ERR_INVALID, "isnan takes 1 argument, got %d", (int)e->n_args);
  qvk_datum *x = &args[0];
  const qv_datatype *t = qvk_datum_type(x);
  if (!qv_type_is_numeric(t->id) && t->id != QV_TYPE_NULL) {
    char tb[64];
    return qv_error_set(c->err, QV_ERR_TYPE, "isnan: expected a number, got %s", qvk_type_name(t, tb, sizeof tb));
  }
  int64_t n = c->n, nb = qvk_words(n) * 8;
  if (x->scalar) {
    qv_scalar r = qv_scalar_bool(!x->scalar->is_null && qv_type_is_floating(t->id) && isnan(x->scalar->v.f));
    r.is_null = x->scalar->is_null;
    qvk_datum_set_scalar(out, &r);
    return QV_OK;
  }
  qv_bytes *values = qvk_bytes(nb, c->err), *validity = NULL;
  if (!values) return QV_ERR_NOMEM;
  uint64_t *o = (uint64_t *)qv_bytes_mutable(values);
  const uint32_t *idx = x->idx;
  if (t->id == QV_TYPE_FLOAT64) {
    const double *a = qv_array_values(x->array);
    if (idx) QVK_LOOP(n, o, a[idx[i]] != a[idx[i]]);
    else QVK_LOOP(n, o, a[i] != a[i]);
  } else if (t->id == QV_TYPE_FLOAT32) {
    const float *a = qv_array_values(x->array);
    if (idx) QVK_LOOP(n, o, a[idx[i]] != a[idx[i]]);
    else QVK_LOOP(n, o, a[i] != a[i]);
  }
  qv_status st = qvk_validity_of(x, NULL, n, &validity, c->err);
  return qvk_bool_out(st, n, values, validity, out, c->err);
}
