/* Calendar fields of many instants at once, for the dt namespace
 * (polars_temporal.c): days and time of day split off int64 timestamps,
 * and year / month / day / quarter / ISO weekday / ordinal day of those
 * days, each a loop over a block of values with no call and no branch per
 * row, so that the compiler vectorizes the 32-bit parts.
 *
 * Days to civil dates is Howard Hinnant's civil_from_days (as in
 * src/base/calendar.c, which converts one value), rearranged so that every
 * step is unsigned 32-bit arithmetic: the day count is biased by a whole
 * number of 400-year eras (146,097 days each) so that it is never
 * negative, which turns the floor division by an era into a plain unsigned
 * one, and the bias is taken off the year at the end.  That holds for
 * |days| <= QVK_CIVIL_DAYS_MAX (2^30 - 1, about 2.9 million years); the
 * callers check the range per block and convert a block holding anything
 * beyond it (possible only for second and millisecond timestamps near the
 * ends of int64) one value at a time through the exact 64-bit path.
 *
 * Splitting a timestamp into days and time of day is a floor division by
 * the day's length in the column's unit; each unit has its own copy of the
 * loop so that the divisor is a constant (a multiply, not a 64-bit idiv). */
#include "compute/compute_int.h"

/* Eras added to the day count before the unsigned arithmetic: the least
 * that keeps -QVK_CIVIL_DAYS_MAX + 719468 (days from 0000-03-01 to
 * 1970-01-01) non-negative; the largest biased count, 2^30 - 1 + 719468 +
 * 7350 * 146097 = 2,148,274,241, is below 2^32. */
#define ERA_BIAS 7350u
#define DAY_BIAS (719468u + ERA_BIAS * 146097u)
/* A multiple of 7 above QVK_CIVIL_DAYS_MAX: weekdays of biased days. */
#define WEEK_BIAS (7u * 153391690u)

typedef struct civil32 {
  int32_t year;
  uint32_t month, day, doy; /* doy: days since 1 March of the year that holds it */
  uint32_t yoe;             /* year of the era, 0..399, counted from March */
} civil32;

static inline civil32 civil_of(int32_t days) {
  civil32 c;
  uint32_t z = (uint32_t)days + DAY_BIAS; /* wraps into range: |days| <= QVK_CIVIL_DAYS_MAX */
  uint32_t era = z / 146097u;
  uint32_t doe = z - era * 146097u;
  uint32_t yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u;
  uint32_t doy = doe - (365u * yoe + yoe / 4u - yoe / 100u);
  uint32_t mp = (5u * doy + 2u) / 153u;
  c.day = doy - (153u * mp + 2u) / 5u + 1u;
  c.month = mp < 10u ? mp + 3u : mp - 9u;
  c.year = (int32_t)yoe + ((int32_t)era - (int32_t)ERA_BIAS) * 400 + (c.month <= 2u);
  c.doy = doy;
  c.yoe = yoe;
  return c;
}

/* Day of the civil year, 1..366.  The year that starts in March holds the
 * civil year's March..December and the next civil year's January and
 * February; a leap day falls in it when its March..December year is leap
 * (yoe counts from a year divisible by 400). */
static inline uint32_t ordinal_of(civil32 c) {
  uint32_t leap = (c.yoe % 4u == 0u && c.yoe % 100u != 0u) || c.yoe == 0u;
  return c.doy >= 306u ? c.doy - 305u : c.doy + 60u + leap;
}

QVK_MULTIVERSION static void civil_fields(qvk_civil_field f, const int32_t *restrict days, int64_t n,
                                          int32_t *restrict out) {
  switch (f) {
    case QVK_CF_YEAR:
      for (int64_t i = 0; i < n; i++) out[i] = civil_of(days[i]).year;
      break;
    case QVK_CF_MONTH:
      for (int64_t i = 0; i < n; i++) out[i] = (int32_t)civil_of(days[i]).month;
      break;
    case QVK_CF_DAY:
      for (int64_t i = 0; i < n; i++) out[i] = (int32_t)civil_of(days[i]).day;
      break;
    case QVK_CF_QUARTER:
      for (int64_t i = 0; i < n; i++) out[i] = (int32_t)((civil_of(days[i]).month - 1u) / 3u + 1u);
      break;
    case QVK_CF_ORDINAL:
      for (int64_t i = 0; i < n; i++) out[i] = (int32_t)ordinal_of(civil_of(days[i]));
      break;
    case QVK_CF_WEEKDAY: /* ISO: Monday 1 .. Sunday 7; 1970-01-01 was a Thursday */
      for (int64_t i = 0; i < n; i++) out[i] = (int32_t)(((uint32_t)days[i] + 3u + WEEK_BIAS) % 7u + 1u);
      break;
  }
}

/* Eras added to a year before month_start's unsigned arithmetic: years
 * down to -4,000,000 (a day in range truncated by up to
 * QVK_CIVIL_MONTHS_MAX months) stay non-negative, and the largest biased
 * year's era times 146,097 stays below 2^32. */
#define YEAR_ERAS 10000u

/* Days from 1970-01-01 of the first day of month m (1..12) of year y
 * (-4,000,000 < y < 3,000,000): Hinnant's days_from_civil in biased
 * unsigned arithmetic; the result fits int32, so the wrap-around of the
 * final subtraction gives it exactly. */
static inline int32_t month_start(int32_t y, uint32_t m) {
  uint32_t yb = (uint32_t)(y - (m <= 2u)) + YEAR_ERAS * 400u;
  uint32_t era = yb / 400u;
  uint32_t yoe = yb - era * 400u;
  uint32_t doy = (153u * (m > 2u ? m - 3u : m + 9u) + 2u) / 5u;
  uint32_t doe = yoe * 365u + yoe / 4u - yoe / 100u + doy;
  return (int32_t)(era * 146097u + doe - 719468u - YEAR_ERAS * 146097u);
}

QVK_MULTIVERSION static void civil_month_floor(const int32_t *restrict days, int64_t n, int32_t every,
                                               int32_t *restrict out) {
  /* months since 1970-01 stay within +-2^26 for days in range, and every
   * is at most QVK_CIVIL_MONTHS_MAX: nothing below leaves int32 */
  for (int64_t i = 0; i < n; i++) {
    civil32 c = civil_of(days[i]);
    int32_t mi = (c.year - 1970) * 12 + (int32_t)c.month - 1;
    int32_t r = mi % every;
    mi -= r + (r < 0 ? every : 0);
    int32_t q = mi / 12, mm = mi % 12;
    q -= mm < 0;
    mm += mm < 0 ? 12 : 0;
    out[i] = month_start(q + 1970, (uint32_t)mm + 1u);
  }
}

/* ---- days and time of day ------------------------------------------------ */

/* Floors each v[i] + shift to days (when within +-QVK_CIVIL_DAYS_MAX) and
 * time of day; false when a value is out of that range or the shift
 * overflows (the block then goes the exact way). */
__attribute__((always_inline)) static inline bool split_rows(const int64_t *v, int64_t n, int64_t shift,
                                                             const int64_t day, int32_t *days, int64_t *tod) {
  bool ok = true;
  for (int64_t i = 0; i < n; i++) {
    int64_t local;
    ok &= !__builtin_add_overflow(v[i], shift, &local);
    int64_t q = local / day, t = local - q * day;
    q -= t < 0;
    t += t < 0 ? day : 0;
    ok &= q >= -QVK_CIVIL_DAYS_MAX && q <= QVK_CIVIL_DAYS_MAX;
    days[i] = (int32_t)q;
    tod[i] = t;
  }
  return ok;
}

/* One copy per unit, so that the day's length is a constant (see the top). */
#define SPLIT_UNIT(NAME, PER)                                                                           \
  static __attribute__((noinline)) bool NAME(const int64_t *v, int64_t n, int64_t shift, int32_t *days, \
                                             int64_t *tod) {                                            \
    return split_rows(v, n, shift, INT64_C(86400) * (PER), days, tod);                                  \
  }
SPLIT_UNIT(split_s, 1)
SPLIT_UNIT(split_ms, 1000)
SPLIT_UNIT(split_us, 1000000)
SPLIT_UNIT(split_ns, 1000000000)

bool qvk_civil_split(const int64_t *v, int64_t n, int64_t per, int64_t shift, int32_t *days, int64_t *tod) {
  switch (per) {
    case 1: return split_s(v, n, shift, days, tod);
    case 1000: return split_ms(v, n, shift, days, tod);
    case 1000000: return split_us(v, n, shift, days, tod);
    case 1000000000: return split_ns(v, n, shift, days, tod);
    default: return false;
  }
}

/* Time-of-day fields of v[i] + shift (units of PER a second), in one pass:
 * the floor modulo by the day and the field's division both by constants. */
__attribute__((always_inline)) static inline bool tod_rows(qvk_tod_field f, const int64_t *v, int64_t n, int64_t shift,
                                                           const int64_t per, int w, uint8_t *out) {
  const int64_t day = 86400 * per;
  bool ok = true;
#define TOD_LOOP(EXPR)                                  \
  for (int64_t i = 0; i < n; i++) {                     \
    int64_t local;                                      \
    ok &= !__builtin_add_overflow(v[i], shift, &local); \
    int64_t t = local % day;                            \
    t += t < 0 ? day : 0;                               \
    int64_t r_ = (EXPR);                                \
    if (w == 1) out[i] = (uint8_t)r_;                   \
    else memcpy(out + i * w, &r_, (size_t)w);           \
  }
  switch (f) {
    case QVK_TF_HOUR: TOD_LOOP(t / (3600 * per)); break;
    case QVK_TF_MINUTE: TOD_LOOP(t / (60 * per) % 60); break;
    case QVK_TF_SECOND: TOD_LOOP(t / per % 60); break;
    case QVK_TF_MILLI: TOD_LOOP(t % per * 1000 / per); break;
    case QVK_TF_MICRO: TOD_LOOP(t % per * 1000000 / per); break;
    case QVK_TF_NANO: TOD_LOOP(t % per * (1000000000 / per)); break;
  }
#undef TOD_LOOP
  return ok;
}

#define TOD_UNIT(NAME, PER)                                                                                      \
  static __attribute__((noinline)) bool NAME(qvk_tod_field f, const int64_t *v, int64_t n, int64_t shift, int w, \
                                             uint8_t *out) {                                                     \
    return tod_rows(f, v, n, shift, (PER), w, out);                                                              \
  }
TOD_UNIT(tod_s, 1)
TOD_UNIT(tod_ms, 1000)
TOD_UNIT(tod_us, 1000000)
TOD_UNIT(tod_ns, 1000000000)

bool qvk_tod_fields(qvk_tod_field f, const int64_t *v, int64_t n, int64_t per, int64_t shift, int w, uint8_t *out) {
  switch (per) {
    case 1: return tod_s(f, v, n, shift, w, out);
    case 1000: return tod_ms(f, v, n, shift, w, out);
    case 1000000: return tod_us(f, v, n, shift, w, out);
    case 1000000000: return tod_ns(f, v, n, shift, w, out);
    default: return false;
  }
}

QVK_MULTIVERSION static void narrow_i32(const int32_t *restrict v, int64_t n, int width, uint8_t *restrict dst) {
  switch (width) {
    case 1:
      for (int64_t i = 0; i < n; i++) dst[i] = (uint8_t)v[i];
      break;
    case 2:
      for (int64_t i = 0; i < n; i++) {
        int16_t x = (int16_t)v[i];
        memcpy(dst + 2 * i, &x, 2);
      }
      break;
    case 4: memcpy(dst, v, (size_t)n * 4); break;
    default:
      for (int64_t i = 0; i < n; i++) {
        int64_t x = v[i];
        memcpy(dst + 8 * i, &x, 8);
      }
      break;
  }
}

/* The multiversioned loops are static: an ifunc's symbols would be
 * exported from libquiver.so whatever the visibility preset. */
void qvk_civil_fields(qvk_civil_field f, const int32_t *days, int64_t n, int32_t *out) {
  civil_fields(f, days, n, out);
}
void qvk_civil_month_floor(const int32_t *days, int64_t n, int32_t every, int32_t *out) {
  civil_month_floor(days, n, every, out);
}
void qvk_narrow_i32(const int32_t *v, int64_t n, int width, uint8_t *dst) { narrow_i32(v, n, width, dst); }
