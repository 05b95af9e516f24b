/* Comparisons between scaled integers of different scales or units:
 * decimal128 against decimal128 of another scale or against an integer,
 * timestamps / time64 / durations of different units, and date32 against
 * timestamp.  Exact, in 128-bit integer arithmetic:
 * - Each side is raw * factor in the finer of the two units (one factor is
 *   1, the other a power of ten, or 86400 * 10^k for dates).
 * - A scalar is moved into the column's unit once: multiplied up when the
 *   column is finer (an overflow means it is beyond every value), or floor-
 *   divided when the column is coarser, turning `x op s` for a fractional
 *   s into an equivalent comparison with floor(s) (x = s is then false).
 * - Two columns are widened block by block to int128 and multiplied up; a
 *   product that overflows int128 saturates, which is exact because the
 *   unscaled side stays far inside the range (|decimal| < 10^38). */
#include "compute/compute_int.h"

enum { DOM_NONE, DOM_NUM, DOM_INSTANT, DOM_TIME, DOM_DURATION };

static int domain(const qv_datatype *t) {
  switch (t->id) {
    case QV_TYPE_DECIMAL128: return DOM_NUM;
    case QV_TYPE_TIMESTAMP:
    case QV_TYPE_DATE32: return DOM_INSTANT;
    case QV_TYPE_TIME64: return DOM_TIME;
    case QV_TYPE_DURATION: return DOM_DURATION;
    default: return qv_type_is_integer(t->id) ? DOM_NUM : DOM_NONE;
  }
}

bool qvk_is_scaled(const qv_datatype *t) { return domain(t) != DOM_NONE; }

/* log10 of the unit's size relative to the finest unit of its domain
 * (decimal: 10^-38; time: 1 ns); dates add the factor 86400 separately. */
static int exponent(const qv_datatype *t) {
  switch (t->id) {
    case QV_TYPE_DECIMAL128: return 38 - t->scale;
    case QV_TYPE_TIMESTAMP:
    case QV_TYPE_TIME64:
    case QV_TYPE_DURATION: return 9 - 3 * (int)t->unit;
    case QV_TYPE_DATE32: return 9;
    default: return 38; /* integers: scale 0 */
  }
}

/* Factors bringing a and b to the finer of their units. */
static void factors(const qv_datatype *a, const qv_datatype *b, qvk_i128 *fa, qvk_i128 *fb) {
  int ea = exponent(a), eb = exponent(b);
  qvk_i128 da = a->id == QV_TYPE_DATE32 ? 86400 : 1, db = b->id == QV_TYPE_DATE32 ? 86400 : 1;
  /* dates are 86400 * 10^9 ns; at most one side can need the day factor
   * beyond what the other has, so reduce the pair */
  if (ea >= eb) {
    *fa = qvk_pow10_i128[ea - eb] * da;
    *fb = db;
  } else {
    *fa = da;
    *fb = qvk_pow10_i128[eb - ea] * db;
  }
  if (*fa % *fb == 0) {
    *fa /= *fb;
    *fb = 1;
  } else if (*fb % *fa == 0) {
    *fb /= *fa;
    *fa = 1;
  }
}

static inline qvk_i128 sat_mul(qvk_i128 x, qvk_i128 f) {
  qvk_i128 r;
  if (__builtin_mul_overflow(x, f, &r)) return (x < 0) ? QVK_I128_MIN : QVK_I128_MAX;
  return r;
}

/* Floor division for 128-bit integers (d > 0). */
static inline qvk_i128 floor_div(qvk_i128 a, qvk_i128 d) {
  qvk_i128 q = a / d;
  return (a % d != 0 && a < 0) ? q - 1 : q;
}

#define WIDEN(T)                                                                           \
  do {                                                                                     \
    const T *v = vals;                                                                     \
    if (d->idx)                                                                            \
      for (int64_t j = 0; j < m; j++) dst[j] = sat_mul((qvk_i128)v[d->idx[start + j]], f); \
    else                                                                                   \
      for (int64_t j = 0; j < m; j++) dst[j] = sat_mul((qvk_i128)v[start + j], f);         \
  } while (0)

static void widen128(const qvk_datum *d, qvk_i128 f, int64_t start, int64_t m, qvk_i128 *dst) {
  const void *vals = qv_array_values(d->array);
  switch (d->array->type.id) {
    case QV_TYPE_INT8: WIDEN(int8_t); break;
    case QV_TYPE_INT16: WIDEN(int16_t); break;
    case QV_TYPE_INT32:
    case QV_TYPE_DATE32: WIDEN(int32_t); break;
    case QV_TYPE_UINT8: WIDEN(uint8_t); break;
    case QV_TYPE_UINT16: WIDEN(uint16_t); break;
    case QV_TYPE_UINT32: WIDEN(uint32_t); break;
    case QV_TYPE_UINT64: WIDEN(uint64_t); break;
    case QV_TYPE_DECIMAL128: {
      const uint8_t *p = vals;
      for (int64_t j = 0; j < m; j++) {
        int64_t r = d->idx ? d->idx[start + j] : start + j;
        dst[j] = sat_mul(qvk_dec_get(p + 16 * r), f);
      }
      break;
    }
    default: WIDEN(int64_t); break;
  }
}
#undef WIDEN

#define CHUNK 512

qv_status qvk_compare_scaled(qv_op op, const qvk_datum *a, const qvk_datum *b, int64_t n, uint64_t *out,
                             qv_error *err) {
  const qv_datatype *ta = qvk_datum_type(a), *tb = qvk_datum_type(b);
  int da = domain(ta), db = domain(tb);
  if (da != db || da == DOM_NONE) return QV_ERR_TYPE;
  if (da == DOM_NUM && ta->id != QV_TYPE_DECIMAL128 && tb->id != QV_TYPE_DECIMAL128)
    return QV_ERR_TYPE; /* integers alone go through compare.c */
  bool tz_a = ta->id == QV_TYPE_TIMESTAMP && ta->timezone;
  bool tz_b = tb->id == QV_TYPE_TIMESTAMP && tb->timezone;
  if (tz_a != tz_b) return QV_ERR_TYPE; /* a date is naive */
  qvk_i128 fa, fb;
  factors(ta, tb, &fa, &fb);
  const void *va = qv_array_values(a->array);
  if (b->scalar) {
    qvk_i128 s = qvk_scalar_i128(b->scalar);
    if (fa == 1) {
      qvk_i128 t;
      if (__builtin_mul_overflow(s, fb, &t)) { /* beyond every column value */
        bool above = s < 0;                    /* x > s */
        bool v = op == QV_OP_NE || (above ? (op == QV_OP_GT || op == QV_OP_GE) : (op == QV_OP_LT || op == QV_OP_LE));
        qvk_fill(out, n, v);
        return QV_OK;
      }
      qvk_cmp_int_vs(ta->id, op, va, a->idx, t, n, out);
      return QV_OK;
    }
    qvk_i128 q = floor_div(s, fa);
    if (q * fa != s) { /* s lies strictly between q and q + 1 column units */
      switch (op) {
        case QV_OP_EQ: qvk_fill(out, n, false); return QV_OK;
        case QV_OP_NE: qvk_fill(out, n, true); return QV_OK;
        case QV_OP_LT:
        case QV_OP_LE: op = QV_OP_LE; break;
        default: op = QV_OP_GT; break;
      }
    }
    qvk_cmp_int_vs(ta->id, op, va, a->idx, q, n, out);
    return QV_OK;
  }
  qvk_i128 *buf = qv_malloc(2 * CHUNK * sizeof *buf);
  if (!buf) return qv_error_nomem(err, "compare");
  for (int64_t start = 0; start < n; start += CHUNK) {
    int64_t m = n - start < CHUNK ? n - start : CHUNK;
    widen128(a, fa, start, m, buf);
    widen128(b, fb, start, m, buf + CHUNK);
    qvk_cmp_i128_vv(op, buf, buf + CHUNK, m, out + (start >> 6));
  }
  qv_free(buf);
  return QV_OK;
}
