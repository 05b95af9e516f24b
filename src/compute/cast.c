/* CAST between numeric types (integers, floats, decimals, bool) and between
 * temporal types; strings go through cast_string.c.
 *
 * Numeric casts run in blocks: the source is loaded into a canonical block
 * (int128 at the source's decimal scale, or double), converted, and stored
 * with a range check, each step a loop specialised by type.  Rules:
 * - integer / decimal -> integer: exact, truncating any decimal fraction
 *   toward zero (as arrow-rs);
 * - -> decimal(p, s): rescaled exactly; a lower scale rounds half away from
 *   zero; more than p digits is out of range;
 * - float -> integer truncates toward zero; NaN, +-inf and values outside
 *   the type are out of range; float -> decimal rounds half away from zero;
 * - -> float: the nearest value (float64 -> float32 may give +-inf);
 * - bool -> number is 0 / 1; number -> bool is x != 0 (NaN is true).
 * Out of range: strict casts fail with QV_ERR_INVALID naming the value and
 * the row; TRY_CAST (sem.cast_strict false) makes the row null.
 * Temporal: date32 -> timestamp is midnight UTC (whatever the zone, as
 * arrow-rs); timestamp -> date32 is the date in the timestamp's zone;
 * timestamp unit changes (finer: exact or out of
 * range; coarser: floor, so instants before 1970 stay in their second /
 * day), naive <-> zoned timestamps (the naive value is wall-clock time in
 * the zone), timestamp -> time64 (time of day), time64 and duration unit
 * changes, and integers <-> temporals as their raw values.  Zones: UTC and
 * fixed offsets; named zones are QV_ERR_UNSUPPORTED. */
#include <math.h>
#include <stdio.h>

#include "compute/compute_int.h"

#define CHUNK 512

static bool int_like(qv_type_id id) { return qv_type_is_integer(id) || id == QV_TYPE_DECIMAL128 || id == QV_TYPE_BOOL; }

static int scale_of(const qv_datatype *t) { return t->id == QV_TYPE_DECIMAL128 ? t->scale : 0; }

static qv_status cast_type_error(const qv_datatype *from, const qv_datatype *to, qv_error *err) {
  char a[64], b[64];
  return qv_error_set(err, QV_ERR_TYPE, "CAST: cannot cast %s to %s", qvk_type_name(from, a, sizeof a),
                      qvk_type_name(to, b, sizeof b));
}

/* Error or null for the bad rows of one block.  valid: the result's
 * validity words (bits cleared for bad rows when not strict). */
static qv_status settle(const qv_array *a, const qv_datatype *to, bool strict, int64_t start, int64_t m,
                        const uint8_t *bad, uint8_t *valid, qv_error *err) {
  for (int64_t j = 0; j < m; j++) {
    if (!bad[j] || !qv_array_is_valid(a, start + j)) continue;
    if (strict) {
      char v[96], t[64];
      qv_array_format_value(a, start + j, v, sizeof v);
      return qv_error_set(err, QV_ERR_INVALID, "CAST: value %s is out of range for %s (row %lld)", v,
                          qvk_type_name(to, t, sizeof t), (long long)(start + j));
    }
    qv_bit_clear(valid, start + j);
  }
  return QV_OK;
}

/* ---- loading blocks ---------------------------------------------------------- */

#define LOAD_CASE(ID, T)                                     \
  case ID: {                                                 \
    const T *v = (const T *)qv_array_values(a) + start;      \
    for (int64_t j = 0; j < m; j++) dst[j] = (qvk_i128)v[j]; \
    break;                                                   \
  }
static void load_i128(const qv_array *a, int64_t start, int64_t m, qvk_i128 *dst) {
  switch (a->type.id) {
    LOAD_CASE(QV_TYPE_INT8, int8_t)
    LOAD_CASE(QV_TYPE_INT16, int16_t)
    LOAD_CASE(QV_TYPE_INT32, int32_t)
    LOAD_CASE(QV_TYPE_DATE32, int32_t)
    LOAD_CASE(QV_TYPE_UINT8, uint8_t)
    LOAD_CASE(QV_TYPE_UINT16, uint16_t)
    LOAD_CASE(QV_TYPE_UINT32, uint32_t)
    LOAD_CASE(QV_TYPE_UINT64, uint64_t)
    case QV_TYPE_BOOL:
      for (int64_t j = 0; j < m; j++) dst[j] = qv_bit_get(a->buffers[1]->data, a->offset + start + j);
      break;
    case QV_TYPE_DECIMAL128: {
      const uint8_t *p = (const uint8_t *)qv_array_values(a) + 16 * start;
      for (int64_t j = 0; j < m; j++) dst[j] = qvk_dec_get(p + 16 * j);
      break;
    }
    default: LOAD_CASE(0, int64_t) /* int64 and 64-bit temporals */
  }
}
#undef LOAD_CASE

static void load_f64(const qv_array *a, int64_t start, int64_t m, double *dst) {
  if (a->type.id == QV_TYPE_FLOAT64) {
    memcpy(dst, (const double *)qv_array_values(a) + start, (size_t)m * sizeof *dst);
  } else {
    const float *v = (const float *)qv_array_values(a) + start;
    for (int64_t j = 0; j < m; j++) dst[j] = v[j];
  }
}

/* ---- storing blocks ----------------------------------------------------------- */

/* decimal128 holds precision digits here; a bool target takes any value
 * (nonzero is true); the rest are their type's range. */
static void range_of(const qv_datatype *t, qvk_i128 *lo, qvk_i128 *hi) {
  if (t->id == QV_TYPE_DECIMAL128) {
    int p = t->precision < 1 || t->precision > 38 ? 38 : t->precision;
    *hi = qvk_pow10_i128[p] - 1;
    *lo = -*hi;
  } else if (t->id == QV_TYPE_BOOL) {
    *lo = QVK_I128_MIN;
    *hi = QVK_I128_MAX;
  } else {
    qvk_int_range(t->id, lo, hi);
  }
}

#define STORE_CASE(ID, T)                             \
  case ID: {                                          \
    T *d = (T *)dst + start;                          \
    for (int64_t j = 0; j < m; j++) d[j] = (T)src[j]; \
    break;                                            \
  }
/* Stores src (already range-checked) into the values of type t. */
static void store_i128(const qv_datatype *t, uint8_t *dst, int64_t start, int64_t m, const qvk_i128 *src) {
  switch (t->id) {
    STORE_CASE(QV_TYPE_INT8, int8_t)
    STORE_CASE(QV_TYPE_INT16, int16_t)
    STORE_CASE(QV_TYPE_INT32, int32_t)
    STORE_CASE(QV_TYPE_DATE32, int32_t)
    STORE_CASE(QV_TYPE_UINT8, uint8_t)
    STORE_CASE(QV_TYPE_UINT16, uint16_t)
    STORE_CASE(QV_TYPE_UINT32, uint32_t)
    STORE_CASE(QV_TYPE_UINT64, uint64_t)
    case QV_TYPE_BOOL:
      for (int64_t j = 0; j < m; j++)
        if (src[j] != 0) qv_bit_set(dst, start + j);
      break;
    case QV_TYPE_DECIMAL128:
      for (int64_t j = 0; j < m; j++) qvk_dec_put(dst + 16 * (start + j), src[j]);
      break;
    default: STORE_CASE(0, int64_t)
  }
}
#undef STORE_CASE

static void check_range(const qv_datatype *t, const qvk_i128 *v, int64_t m, uint8_t *bad) {
  qvk_i128 lo, hi;
  range_of(t, &lo, &hi);
  for (int64_t j = 0; j < m; j++) bad[j] |= (v[j] < lo) | (v[j] > hi);
}

/* v * 10^d exactly (d > 0), or v / 10^-d truncated or rounded half away
 * from zero (d < 0); sets bad on overflow. */
static void rescale(qvk_i128 *v, int64_t m, int d, bool round, uint8_t *bad) {
  if (d == 0) return;
  if (d > 38) {
    for (int64_t j = 0; j < m; j++) bad[j] |= v[j] != 0;
    return;
  }
  if (d < -38) {
    for (int64_t j = 0; j < m; j++) v[j] = 0;
    return;
  }
  if (d > 0) {
    qvk_i128 f = qvk_pow10_i128[d];
    for (int64_t j = 0; j < m; j++) bad[j] |= __builtin_mul_overflow(v[j], f, &v[j]);
    return;
  }
  qvk_i128 f = qvk_pow10_i128[-d];
  for (int64_t j = 0; j < m; j++) {
    qvk_i128 q = v[j] / f, r = v[j] % f;
    if (round && (r >= f - r || -r >= f + r)) q += v[j] < 0 ? -1 : 1; /* |r| >= f/2 */
    v[j] = q;
  }
}

/* A fixed-width result of type to for a's rows, its validity a's (all
 * ones when a has none) for settle() to clear the rows that go null. */
static qv_status result_for(const qv_array *a, const qv_datatype *to, qv_array **out, uint8_t **valid, qv_error *err) {
  int64_t n = a->length;
  QV_RETURN_NOT_OK(qvk_fixed_result(to, n, true, out, err));
  *valid = qv_bytes_mutable((*out)->buffers[0]);
  qvk_datum src = QVK_DATUM_INIT;
  src.array = (qv_array *)a;
  if (!qvk_validity_words(&src, n, (uint64_t *)*valid)) memset(*valid, 0xff, (size_t)qv_bitmap_bytes(n));
  return QV_OK;
}

/* The end of a cast that built r (result_for): r, its bitmap dropped when
 * every row is valid, goes to *out; r is released when st failed. */
static qv_status result_done(qv_status st, qv_array *r, qv_array **out) {
  if (st != QV_OK) {
    qv_array_release(r);
    return st;
  }
  qvk_finish_validity(r);
  *out = r;
  return QV_OK;
}

/* ---- numeric -> numeric ------------------------------------------------------- */

static qv_status num_cast(const qv_array *a, const qv_datatype *to, bool strict, qv_array **out, qv_error *err) {
  int64_t n = a->length;
  qv_array *r = NULL;
  uint8_t *valid;
  QV_RETURN_NOT_OK(result_for(a, to, &r, &valid, err));
  uint8_t *dst = qv_bytes_mutable(r->buffers[1]);
  qvk_i128 *ib = qv_malloc(CHUNK * sizeof *ib);
  double *fb = qv_malloc(CHUNK * sizeof *fb);
  uint8_t bad[CHUNK];
  qv_status st = (ib && fb) ? QV_OK : qv_error_nomem(err, "CAST");
  bool from_int = int_like(a->type.id), to_int = int_like(to->id);
  int ss = scale_of(&a->type), ds = scale_of(to);
  bool to_dec = to->id == QV_TYPE_DECIMAL128;
  for (int64_t start = 0; start < n && st == QV_OK; start += CHUNK) {
    int64_t m = n - start < CHUNK ? n - start : CHUNK;
    memset(bad, 0, (size_t)m);
    if (from_int) {
      load_i128(a, start, m, ib);
      if (to_int) {
        if (to->id == QV_TYPE_BOOL) {
          /* nonzero is true, whatever the scale */
        } else {
          rescale(ib, m, ds - ss, to_dec, bad);
          check_range(to, ib, m, bad);
        }
        store_i128(to, dst, start, m, ib);
      } else {
        double f = (double)qvk_pow10_i128[ss];
        for (int64_t j = 0; j < m; j++) fb[j] = ss ? (double)ib[j] / f : (double)ib[j];
        if (to->id == QV_TYPE_FLOAT64) memcpy((double *)dst + start, fb, (size_t)m * sizeof *fb);
        else
          for (int64_t j = 0; j < m; j++) ((float *)dst)[start + j] = (float)fb[j];
      }
    } else {
      load_f64(a, start, m, fb);
      if (to->id == QV_TYPE_FLOAT64) {
        memcpy((double *)dst + start, fb, (size_t)m * sizeof *fb);
      } else if (to->id == QV_TYPE_FLOAT32) {
        for (int64_t j = 0; j < m; j++) ((float *)dst)[start + j] = (float)fb[j];
      } else if (to->id == QV_TYPE_BOOL) {
        for (int64_t j = 0; j < m; j++) ib[j] = fb[j] != 0.0;
        store_i128(to, dst, start, m, ib);
      } else {
        double mul = to_dec ? (double)qvk_pow10_i128[ds] : 1.0;
        for (int64_t j = 0; j < m; j++) {
          double x = fb[j] * mul;
          x = to_dec ? round(x) : trunc(x);
          /* |x| < 2^127 fits int128; the range check does the rest */
          bool ok = x > -1.7014118346046923e38 && x < 1.7014118346046923e38;
          bad[j] |= !ok;
          ib[j] = ok ? (qvk_i128)x : 0;
        }
        check_range(to, ib, m, bad);
        for (int64_t j = 0; j < m; j++)
          if (bad[j]) ib[j] = 0;
        store_i128(to, dst, start, m, ib);
      }
    }
    st = settle(a, to, strict, start, m, bad, valid, err);
  }
  qv_free(ib);
  qv_free(fb);
  return result_done(st, r, out);
}

/* ---- temporal ------------------------------------------------------------------- */

/* Converts each valid value with f(x, &y) -> ok; bad rows error or go null. */
typedef enum { T_MUL, T_FLOORDIV, T_FLOORMOD_DIV, T_RAW } t_kind;

static qv_status temporal_map(const qv_array *a, const qv_datatype *to, bool strict, t_kind kind, int64_t add,
                              int64_t f, int64_t g, qv_array **out, qv_error *err) {
  /* y = kind(x + add) where MUL: x * f; FLOORDIV: floor(x / f);
   * FLOORMOD_DIV: floor_mod(x, f) / g; RAW: x */
  int64_t n = a->length;
  qv_array *r = NULL;
  uint8_t *valid;
  QV_RETURN_NOT_OK(result_for(a, to, &r, &valid, err));
  uint8_t *dst = qv_bytes_mutable(r->buffers[1]);
  qvk_i128 ib[CHUNK];
  uint8_t bad[CHUNK];
  qv_status st = QV_OK;
  for (int64_t start = 0; start < n && st == QV_OK; start += CHUNK) {
    int64_t m = n - start < CHUNK ? n - start : CHUNK;
    memset(bad, 0, (size_t)m);
    load_i128(a, start, m, ib);
    for (int64_t j = 0; j < m; j++) {
      qvk_i128 x = ib[j] + add;
      switch (kind) {
        case T_MUL: x *= f; break;
        case T_FLOORDIV: x = (x - (((x % f) + f) % f)) / f; break;
        case T_FLOORMOD_DIV: x = (((x % f) + f) % f) / g; break;
        default: break;
      }
      ib[j] = x;
    }
    check_range(to, ib, m, bad);
    for (int64_t j = 0; j < m; j++)
      if (bad[j]) ib[j] = 0;
    store_i128(to, dst, start, m, ib);
    st = settle(a, to, strict, start, m, bad, valid, err);
  }
  return result_done(st, r, out);
}

static qv_status temporal_cast(const qv_array *a, const qv_datatype *to, bool strict, qv_array **out, qv_error *err) {
  const qv_datatype *from = &a->type;
  qv_type_id x = from->id, y = to->id;
  int64_t off_from = 0, off_to = 0;
  if (x == QV_TYPE_TIMESTAMP && from->timezone) QV_RETURN_NOT_OK(qvk_tz_offset(from->timezone, &off_from, err));
  if (y == QV_TYPE_TIMESTAMP && to->timezone) QV_RETURN_NOT_OK(qvk_tz_offset(to->timezone, &off_to, err));
  /* integers <-> temporals: the raw value */
  if (qv_type_is_integer(x) || qv_type_is_integer(y)) return temporal_map(a, to, strict, T_RAW, 0, 1, 1, out, err);
  if (x == QV_TYPE_DATE32 && y == QV_TYPE_TIMESTAMP) {
    /* midnight UTC whatever the zone (arrow-rs, and the binder's contract
     * for date-vs-timestamp comparisons) */
    return temporal_map(a, to, strict, T_MUL, 0, 86400 * qvk_unit_per_second(to->unit), 1, out, err);
  }
  if (x == QV_TYPE_TIMESTAMP && y == QV_TYPE_DATE32) {
    int64_t per = qvk_unit_per_second(from->unit);
    return temporal_map(a, to, strict, T_FLOORDIV, off_from * per, 86400 * per, 1, out, err);
  }
  if (x == QV_TYPE_TIMESTAMP && y == QV_TYPE_TIME64) {
    int64_t pf = qvk_unit_per_second(from->unit), pt = qvk_unit_per_second(to->unit);
    if (pt >= pf) {
      qv_array *tmp = NULL;
      QV_RETURN_NOT_OK(temporal_map(a, to, strict, T_FLOORMOD_DIV, off_from * pf, 86400 * pf, 1, &tmp, err));
      qv_status st = temporal_map(tmp, to, strict, T_MUL, 0, pt / pf, 1, out, err);
      qv_array_release(tmp);
      return st;
    }
    return temporal_map(a, to, strict, T_FLOORMOD_DIV, off_from * pf, 86400 * pf, pf / pt, out, err);
  }
  if (x == y && (x == QV_TYPE_TIMESTAMP || x == QV_TYPE_TIME64 || x == QV_TYPE_DURATION)) {
    int64_t pf = qvk_unit_per_second(from->unit), pt = qvk_unit_per_second(to->unit);
    /* zone change: a naive value is wall-clock time in the other zone */
    int64_t shift = 0;
    if (x == QV_TYPE_TIMESTAMP && (from->timezone == NULL) != (to->timezone == NULL))
      shift = from->timezone ? off_from : -off_to;
    if (pt >= pf) return temporal_map(a, to, strict, T_MUL, shift * pf, pt / pf, 1, out, err);
    return temporal_map(a, to, strict, T_FLOORDIV, shift * pf, pf / pt, 1, out, err);
  }
  return cast_type_error(from, to, err);
}

/* ---- lists ----------------------------------------------------------------------- */

/* The same lists with their items cast: offsets and validity shared. */
static qv_status list_cast(qv_array *a, const qv_datatype *to, bool strict, qv_array **out, qv_error *err) {
  qv_array *child = NULL, *r = NULL;
  QV_RETURN_NOT_OK(qvk_cast_array(a->children[0], &to->children[0].type, strict, &child, err));
  qv_status st = qvk_array_new(to, a->length, &r, err);
  if (st == QV_OK) {
    r->children = qv_calloc(1, sizeof *r->children);
    if (!r->children) st = qv_error_nomem(err, "CAST");
  }
  if (st != QV_OK) {
    qv_array_release(child);
    qv_array_release(r);
    return st;
  }
  r->n_children = 1;
  r->children[0] = child;
  r->offset = a->offset;
  r->null_count = a->null_count;
  for (int k = 0; k < 3; k++) r->buffers[k] = qv_bytes_retain(a->buffers[k]);
  *out = r;
  return QV_OK;
}

/* ---- entry points ---------------------------------------------------------------- */

qv_status qvk_cast_array(qv_array *a, const qv_datatype *to, bool strict, qv_array **out, qv_error *err) {
  const qv_datatype *from = &a->type;
  if (qv_datatype_equal(from, to)) {
    *out = qv_array_retain(a);
    return QV_OK;
  }
  if (from->id == QV_TYPE_NULL) return qvk_null_result(to, a->length, out, err);
  bool sf = from->id == QV_TYPE_STRING || from->id == QV_TYPE_BINARY;
  bool st = to->id == QV_TYPE_STRING || to->id == QV_TYPE_BINARY;
  if (st) return qvk_cast_to_string(a, to, strict, out, err);
  if (sf) return qvk_cast_from_string(a, to, strict, out, err);
  if ((from->id == QV_TYPE_LIST || from->id == QV_TYPE_FIXED_SIZE_LIST) && from->id == to->id &&
      from->list_size == to->list_size && a->n_children == 1 && to->n_children == 1)
    return list_cast(a, to, strict, out, err);
  bool nf = int_like(from->id) || qv_type_is_floating(from->id);
  bool nt = int_like(to->id) || qv_type_is_floating(to->id);
  if (nf && nt) return num_cast(a, to, strict, out, err);
  bool tf = qv_type_is_temporal(from->id), tt = qv_type_is_temporal(to->id);
  if ((tf || qv_type_is_integer(from->id)) && (tt || qv_type_is_integer(to->id)) && (tf || tt))
    return temporal_cast(a, to, strict, out, err);
  return cast_type_error(from, to, err);
}

/* Integer to integer, wrapping around (two's complement truncation), as
 * Polars' wrap_numerical / "Overflowing" casts do. */
static qv_status wrap_int_cast(const qv_array *a, const qv_datatype *to, qv_array **out, qv_error *err) {
  int64_t n = a->length;
  qv_array *r = NULL;
  uint8_t *valid;
  QV_RETURN_NOT_OK(result_for(a, to, &r, &valid, err));
  uint8_t *dst = qv_bytes_mutable(r->buffers[1]);
  int w = qv_type_byte_width(to->id);
  qvk_i128 ib[CHUNK];
  for (int64_t start = 0; start < n; start += CHUNK) {
    int64_t m = n - start < CHUNK ? n - start : CHUNK;
    load_i128(a, start, m, ib);
    for (int64_t j = 0; j < m; j++) {
      uint64_t bits = (uint64_t)ib[j]; /* the low 64 bits; stored little-endian, the low w bytes */
      memcpy(dst + (start + j) * w, &bits, (size_t)w);
    }
  }
  return result_done(QV_OK, r, out);
}

qv_status qvk_op_cast(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 1) return qv_error_set(c->err, QV_ERR_INVALID, "CAST takes 1 argument, got %d", (int)e->n_args);
  if (e->type.id == QV_TYPE_NULL && qvk_datum_type(&args[0])->id != QV_TYPE_NULL)
    return qv_error_set(c->err, QV_ERR_INVALID, "CAST: the node has no target type");
  QV_RETURN_NOT_OK(qvk_datum_array(c, &args[0]));
  qv_array *r = NULL;
  qv_type_id from = args[0].array->type.id;
  if ((e->flags & QV_EXPR_F_WRAP) && qv_type_is_integer(from) && qv_type_is_integer(e->type.id))
    QV_RETURN_NOT_OK(wrap_int_cast(args[0].array, &e->type, &r, c->err));
  else if (qvk_polars_node(e) && qv_type_is_floating(from) && e->type.id == QV_TYPE_STRING)
    QV_RETURN_NOT_OK(qvk_cast_to_string_polars(args[0].array, &e->type, e->sem.cast_strict, &r, c->err));
  else QV_RETURN_NOT_OK(qvk_cast_array(args[0].array, &e->type, e->sem.cast_strict, &r, c->err));
  qvk_datum_set_array(out, r);
  return QV_OK;
}

qv_status qvk_coerce(qvk_ctx *c, qvk_datum *d, const qv_datatype *to) {
  if (qv_datatype_equal(qvk_datum_type(d), to)) return QV_OK;
  bool scalar = d->scalar != NULL;
  qvk_ctx one = *c;
  if (scalar) one.n = 1;
  QV_RETURN_NOT_OK(qvk_datum_array(&one, d));
  qv_array *r = NULL;
  QV_RETURN_NOT_OK(qvk_cast_array(d->array, to, true, &r, c->err));
  if (!scalar) {
    qvk_datum_set_array(d, r);
    return QV_OK;
  }
  qv_scalar s = QV_SCALAR_INIT;
  qv_status st = qv_scalar_from_array(r, 0, &s, c->err);
  qv_array_release(r);
  if (st == QV_OK) qvk_datum_set_scalar(d, &s);
  return st;
}
