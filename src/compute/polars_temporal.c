/* Polars' dt namespace: dt.<part>, dt.epoch, dt.truncate and dt.date on
 * Date and Datetime (and Time for the time-of-day parts), with Polars
 * 2.1.0's answers and result types (bind_polars_text.c sets them).
 *
 * Parts: year, iso_year, quarter, month, week (ISO), day, weekday (ISO,
 * Monday 1), ordinal_day, hour, minute, second, millisecond, microsecond
 * and nanosecond (the fraction of the second in that unit, without the
 * whole seconds: 12.345 s -> 345 ms).  dt.epoch(unit) is the instant
 * since 1970-01-01 UTC in ns/us/ms, floored when the column is finer (a
 * date is its midnight), null where it does not fit int64.  dt.date is the calendar day in the column's
 * zone.
 *
 * dt.truncate(every): every is Polars' duration text, integer + unit
 * repeated ("1d", "2h30m"): ns us ms s m h d w mo q y.  Fixed durations
 * (no w/mo/q/y) truncate on the grid of multiples counted from
 * 1970-01-01 00:00; weeks on the grid counted from Monday 1970-01-05;
 * months, quarters and years on the calendar (n months counted from
 * January 1970).  Months cannot be mixed with other units, nor weeks
 * with days or smaller units ("1d2h" is one 26-hour step), as Polars.  A
 * Date is a midnight: sub-daily steps leave it unchanged and mixing days
 * with sub-daily units is an error there.  Zoned timestamps truncate in
 * wall-clock time for UTC and fixed offsets; named zones are
 * QV_ERR_UNSUPPORTED (no tz database). */
#include <stdio.h>

#include "compute/compute_int.h"

enum {
  DP_YEAR,
  DP_ISO_YEAR,
  DP_QUARTER,
  DP_MONTH,
  DP_WEEK,
  DP_DAY,
  DP_WEEKDAY,
  DP_ORDINAL,
  DP_HOUR,
  DP_MINUTE,
  DP_SECOND,
  DP_MILLI,
  DP_MICRO,
  DP_NANO,
  DP__COUNT
};

static const char *const part_names[DP__COUNT] = {"year",   "iso_year",    "quarter",     "month",     "week",
                                                  "day",    "weekday",     "ordinal_day", "hour",      "minute",
                                                  "second", "millisecond", "microsecond", "nanosecond"};

/* The column's values as local units since the epoch, for any temporal
 * type: per = units per second, off = zone offset in seconds. */
static qv_status temporal_in(qvk_ctx *c, const char *what, const qvk_datum *x, int64_t *per, int64_t *off) {
  const qv_datatype *t = qvk_datum_type(x);
  *per = 1;
  *off = 0;
  switch (t->id) {
    case QV_TYPE_DATE32: return QV_OK;
    case QV_TYPE_TIMESTAMP:
      *per = qvk_unit_per_second(t->unit);
      return t->timezone ? qvk_tz_offset(t->timezone, off, c->err) : QV_OK;
    case QV_TYPE_TIME64: *per = qvk_unit_per_second(t->unit); return QV_OK;
    default: {
      char tb[64];
      return qv_error_set(c->err, QV_ERR_TYPE, "%s: expected a date or datetime, got %s", what,
                          qvk_type_name(t, tb, sizeof tb));
    }
  }
}

/* Value of row i (dense or through idx) as int64 (date32 widened). */
static inline int64_t tval(const qv_array *a, const uint32_t *idx, int64_t i, bool date) {
  int64_t r = idx ? idx[i] : i;
  return date ? ((const int32_t *)qv_array_values(a))[r] : ((const int64_t *)qv_array_values(a))[r];
}

static inline int64_t floor_mod(int64_t a, int64_t b) { return ((a % b) + b) % b; }

static int64_t iso_weekday(int64_t days) { return floor_mod(days + 3, 7) + 1; }

/* ISO week number and its year. */
static void iso_week(int64_t days, int64_t *week, int64_t *year) {
  int64_t thursday = days - iso_weekday(days) + 4, y;
  unsigned m, d;
  qv_civil_from_days(thursday, &y, &m, &d);
  *week = (thursday - qv_days_from_civil(y, 1, 1)) / 7 + 1;
  *year = y;
}

static int64_t part_value(int part, int64_t days, int64_t tod, int64_t per) {
  int64_t y = 0, w, iy;
  unsigned m = 1, d = 1;
  if (part <= DP_ORDINAL) qv_civil_from_days(days, &y, &m, &d);
  int64_t secs = tod / per, frac = tod % per;
  switch (part) {
    case DP_YEAR: return y;
    case DP_ISO_YEAR: iso_week(days, &w, &iy); return iy;
    case DP_QUARTER: return (m - 1) / 3 + 1;
    case DP_MONTH: return m;
    case DP_WEEK: iso_week(days, &w, &iy); return w;
    case DP_DAY: return d;
    case DP_WEEKDAY: return iso_weekday(days);
    case DP_ORDINAL: return days - qv_days_from_civil(y, 1, 1) + 1;
    case DP_HOUR: return secs / 3600;
    case DP_MINUTE: return secs / 60 % 60;
    case DP_SECOND: return secs % 60;
    case DP_MILLI: return frac * 1000 / per;
    case DP_MICRO: return frac * 1000000 / per;
    default: return frac * (1000000000 / per);
  }
}

/* Splits local value v (units of per) into days and time of day. */
static inline void split_day(int64_t v, int64_t off, int64_t per, bool date, int64_t *days, int64_t *tod) {
  if (date) {
    *days = v;
    *tod = 0;
    return;
  }
  int64_t day = 86400 * per, local;
  /* int64 arithmetic unless the zone offset pushes v past its range (128-bit
   * division costs several times more per row) */
  if (!__builtin_add_overflow(v, off * per, &local)) {
    int64_t t = local % day, q = local / day;
    if (t < 0) {
      t += day;
      q -= 1;
    }
    *tod = t;
    *days = q;
    return;
  }
  qvk_i128 wide = (qvk_i128)v + (qvk_i128)off * per;
  qvk_i128 t = ((wide % day) + day) % day;
  *tod = (int64_t)t;
  *days = (int64_t)((wide - t) / day);
}

/* Rows are converted a block at a time through civil.c's vectorized loops
 * (days and time of day split off with the unit a constant, then the
 * field); a block holding a value those loops do not take (a zone shift
 * past int64, a day beyond +-QVK_CIVIL_DAYS_MAX, an ISO week) goes row by
 * row through the exact 64/128-bit path above. */
enum { BLOCK = 512 };

/* The civil.c field of a part, or -1 (ISO week and year go row by row). */
static int civil_field(int part) {
  switch (part) {
    case DP_YEAR: return QVK_CF_YEAR;
    case DP_QUARTER: return QVK_CF_QUARTER;
    case DP_MONTH: return QVK_CF_MONTH;
    case DP_DAY: return QVK_CF_DAY;
    case DP_WEEKDAY: return QVK_CF_WEEKDAY;
    case DP_ORDINAL: return QVK_CF_ORDINAL;
    default: return -1;
  }
}

/* Days (and time of day) of rows [i0, i0 + m) of a (through idx), local
 * time; false when the block must go row by row. */
static bool block_days(const qv_array *a, const uint32_t *idx, int64_t i0, int64_t m, bool date, int64_t per,
                       int64_t shift, int32_t *days, int64_t *tod, int64_t *scratch) {
  if (date) {
    const int32_t *v = (const int32_t *)qv_array_values(a);
    bool ok = true;
    for (int64_t k = 0; k < m; k++) {
      int32_t d = idx ? v[idx[i0 + k]] : v[i0 + k];
      ok &= d >= -QVK_CIVIL_DAYS_MAX && d <= QVK_CIVIL_DAYS_MAX;
      days[k] = d;
      tod[k] = 0;
    }
    return ok;
  }
  const int64_t *v = (const int64_t *)qv_array_values(a), *src = v + i0;
  if (idx) {
    for (int64_t k = 0; k < m; k++) scratch[k] = v[idx[i0 + k]];
    src = scratch;
  }
  return qvk_civil_split(src, m, per, shift, days, tod);
}

/* Part `part` of rows [i0, i0 + m) into dst (width w); false when the block
 * must go row by row. */
static bool block_part(const qv_array *a, const uint32_t *idx, int64_t i0, int64_t m, bool date, int64_t per,
                       int64_t shift, int part, int w, uint8_t *dst) {
  int32_t days[BLOCK], res[BLOCK];
  int64_t tod[BLOCK], scratch[BLOCK];
  if (part >= DP_HOUR) { /* timestamps and times only (dt_part refuses dates) */
    const int64_t *v = (const int64_t *)qv_array_values(a), *src = v + i0;
    if (idx) {
      for (int64_t k = 0; k < m; k++) scratch[k] = v[idx[i0 + k]];
      src = scratch;
    }
    /* stored at the result's width in the same pass */
    return qvk_tod_fields((qvk_tod_field)(part - DP_HOUR), src, m, per, shift, w, dst);
  } else {
    int cf = civil_field(part);
    if (cf < 0 || !block_days(a, idx, i0, m, date, per, shift, days, tod, scratch)) return false;
    qvk_civil_fields((qvk_civil_field)cf, days, m, res);
  }
  qvk_narrow_i32(res, m, w, dst);
  return true;
}

static qv_status dt_part(qvk_ctx *c, const qv_expr *e, qvk_datum *x, qvk_datum *out) {
  int part = -1;
  for (int k = 0; k < DP__COUNT && part < 0; k++)
    if (e->name && strcmp(e->name, part_names[k]) == 0) part = k;
  if (part < 0) return qv_error_set(c->err, QV_ERR_INVALID, "dt: unknown part '%s'", e->name ? e->name : "");
  char what[32];
  snprintf(what, sizeof what, "dt.%s", part_names[part]);
  int64_t per, off;
  QV_RETURN_NOT_OK(temporal_in(c, what, x, &per, &off));
  qv_type_id id = qvk_datum_type(x)->id;
  if ((id == QV_TYPE_DATE32 && part >= DP_HOUR) || (id == QV_TYPE_TIME64 && part < DP_HOUR))
    return qv_error_set(c->err, QV_ERR_TYPE, "%s is not defined for %s", what,
                        id == QV_TYPE_DATE32 ? "date32" : "time64");
  const qv_datatype *rt = qvk_bound_type(e);
  qv_datatype i64 = qv_datatype_simple(QV_TYPE_INT64);
  if (!rt || !qv_type_is_integer(rt->id)) rt = &i64;
  if (x->scalar) QV_RETURN_NOT_OK(qvk_datum_array(c, x));
  qv_array *r = NULL;
  if (x->array->type.id == QV_TYPE_NULL) return qvk_null_out(rt, c->n, out, c->err);
  QV_RETURN_NOT_OK(qvk_fixed_result(rt, c->n, false, &r, c->err));
  uint8_t *dst = qv_bytes_mutable(r->buffers[1]);
  int w = qv_type_byte_width(rt->id);
  bool date = id == QV_TYPE_DATE32;
  const qv_array *a = x->array;
  if (id == QV_TYPE_TIME64) off = 0;
  for (int64_t i0 = 0; i0 < c->n; i0 += BLOCK) {
    int64_t m = c->n - i0 < BLOCK ? c->n - i0 : BLOCK;
    if (block_part(a, x->idx, i0, m, date, per, off * per, part, w, dst + i0 * w)) continue;
    for (int64_t i = i0; i < i0 + m; i++) {
      int64_t days, tod;
      split_day(tval(a, x->idx, i, date), off, per, date, &days, &tod);
      int64_t v = part_value(part, days, tod, per);
      memcpy(dst + i * w, &v, (size_t)w); /* every part fits its type's low bytes */
    }
  }
  return qvk_array_out_valid(r, x, c->n, out, c->err);
}

static qv_status dt_epoch(qvk_ctx *c, const qv_expr *e, qvk_datum *x, qvk_datum *out) {
  const char *u = e->name ? e->name : "";
  int64_t want = !strcmp(u, "ns") ? 1000000000 : !strcmp(u, "us") ? 1000000 : !strcmp(u, "ms") ? 1000 : 0;
  if (!want) return qv_error_set(c->err, QV_ERR_INVALID, "dt.epoch: unknown time unit '%s'", u);
  int64_t per, off;
  QV_RETURN_NOT_OK(temporal_in(c, "dt.epoch", x, &per, &off));
  qv_type_id id = qvk_datum_type(x)->id;
  if (id == QV_TYPE_TIME64) return qv_error_set(c->err, QV_ERR_TYPE, "dt.epoch is not defined for time64");
  if (x->scalar) QV_RETURN_NOT_OK(qvk_datum_array(c, x));
  qv_datatype i64 = qv_datatype_simple(QV_TYPE_INT64);
  qv_array *r = NULL;
  if (x->array->type.id == QV_TYPE_NULL) return qvk_null_out(&i64, c->n, out, c->err);
  QV_RETURN_NOT_OK(qvk_fixed_result(&i64, c->n, false, &r, c->err));
  int64_t *dst = (int64_t *)qv_bytes_mutable(r->buffers[1]);
  bool date = id == QV_TYPE_DATE32;
  const qv_array *a = x->array;
  /* a date is units of 86400 s */
  qvk_i128 mul = 1, div = 1;
  if (date) mul = (qvk_i128)86400 * want;
  else if (want >= per) mul = want / per;
  else div = per / want;
  /* A value that does not fit int64 in the unit becomes null, as Polars'
   * cast does. */
  qv_bytes *validity = qvk_bytes(qvk_words(c->n) * 8, c->err);
  if (!validity) {
    qv_array_release(r);
    return QV_ERR_NOMEM;
  }
  uint64_t *vw = (uint64_t *)qv_bytes_mutable(validity);
  if (!qvk_validity_words(x, c->n, vw)) qvk_fill(vw, c->n, true);
  for (int64_t i = 0; i < c->n; i++) {
    int64_t v = tval(a, x->idx, i, date);
    qvk_i128 t = (qvk_i128)v * mul;
    if (div > 1) t = (t - (((t % div) + div) % div)) / div;
    if (t > INT64_MAX || t < INT64_MIN) {
      vw[i >> 6] &= ~((uint64_t)1 << (i & 63));
      t = 0;
    }
    dst[i] = (int64_t)t;
  }
  qvk_set_validity(r, validity);
  qvk_datum_set_array(out, r);
  return QV_OK;
}

/* ---- dt.truncate ---------------------------------------------------------------------- */

typedef struct every {
  int64_t months; /* calendar part (mo, q, y) */
  int64_t weeks;
  int64_t days;
  qvk_i128 nanos; /* sub-daily part */
} every;

/* Parses Polars duration text; false with a message in why. */
static bool parse_every(const uint8_t *s, int64_t n, every *ev, char *why, size_t wsize) {
  memset(ev, 0, sizeof *ev);
  int64_t k = 0;
  if (n == 0) {
    snprintf(why, wsize, "it is empty");
    return false;
  }
  while (k < n) {
    int64_t v = 0, d0 = k;
    while (k < n && s[k] >= '0' && s[k] <= '9') {
      if (v > INT64_MAX / 10 - 10) {
        snprintf(why, wsize, "the number is too large");
        return false;
      }
      v = v * 10 + (s[k++] - '0');
    }
    if (k == d0) {
      snprintf(why, wsize, "expected a number at offset %lld", (long long)k);
      return false;
    }
    int64_t u0 = k;
    while (k < n && s[k] >= 'a' && s[k] <= 'z') k++;
    int64_t ul = k - u0;
    const char *u = (const char *)s + u0;
#define IS(lit) (ul == (int64_t)sizeof(lit) - 1 && memcmp(u, lit, sizeof(lit) - 1) == 0)
    int64_t *part = NULL, times = 1; /* a calendar part, or (part NULL) nanoseconds times `times` */
    if (IS("ns")) times = 1;
    else if (IS("us")) times = 1000;
    else if (IS("ms")) times = 1000000;
    else if (IS("s")) times = 1000000000;
    else if (IS("m")) times = 60000000000;
    else if (IS("h")) times = 3600000000000;
    else if (IS("d")) part = &ev->days;
    else if (IS("w")) part = &ev->weeks;
    else if (IS("mo")) part = &ev->months;
    else if (IS("q")) part = &ev->months, times = 3;
    else if (IS("y")) part = &ev->months, times = 12;
    else {
      snprintf(why, wsize, "unknown unit '%.*s' (expected ns, us, ms, s, m, h, d, w, mo, q or y)",
               (int)(ul > 8 ? 8 : ul), u);
      return false;
    }
#undef IS
    /* each part stays within int64 (and the nanoseconds within int64
     * seconds), so the steps computed from them in 128 bits cannot wrap */
    int64_t add;
    bool over = part ? __builtin_mul_overflow(v, times, &add) || __builtin_add_overflow(*part, add, part)
                     : (ev->nanos += (qvk_i128)v * times) > (qvk_i128)INT64_MAX * 1000000000;
    if (over) {
      snprintf(why, wsize, "the interval is too large");
      return false;
    }
  }
  int kinds = (ev->months != 0) + (ev->weeks != 0) + (ev->days != 0 || ev->nanos != 0);
  if (kinds > 1) {
    snprintf(why, wsize, "cannot mix months, weeks and days or smaller units");
    return false;
  }
  if (ev->months == 0 && ev->weeks == 0 && ev->days == 0 && ev->nanos == 0) {
    snprintf(why, wsize, "the interval is zero");
    return false;
  }
  return true;
}

/* Weeks are counted from Monday 1970-01-05 (days since the epoch), as
 * Polars counts them. */
#define WEEK_ORIGIN 4

qv_status qvk_dt_truncate_check(const qv_expr *e, qv_error *err) {
  const qv_scalar *es = e->n_args == 2 ? qvk_check_literal(e->args[1], QV_TYPE_STRING) : NULL;
  if (!es) return QV_OK;
  every ev;
  char why[160];
  if (!parse_every(es->bytes, es->len, &ev, why, sizeof why))
    return qv_error_set(err, QV_ERR_INVALID, "dt.truncate: invalid interval '%.*s': %s",
                        (int)(es->len > 40 ? 40 : es->len), (const char *)es->bytes, why);
  if (e->args[0]->type.id == QV_TYPE_DATE32 && ev.days && ev.nanos)
    return qv_error_set(err, QV_ERR_INVALID,
                        "dt.truncate: a date cannot be truncated by '%.*s' (days and smaller units mixed)",
                        (int)(es->len > 40 ? 40 : es->len), (const char *)es->bytes);
  return QV_OK;
}

/* dt.truncate of rows [i0, i0 + m) into dst: fixed steps in 64-bit
 * arithmetic, calendar steps through civil.c; false when a value or a step
 * needs the exact 128-bit path (which also reports the row that overflows).
 * shift is the zone offset in the column's units (0 for dates), o the
 * grid's origin, step the grid's step (0: values unchanged). */
static bool block_truncate(const qv_array *a, const uint32_t *idx, int64_t i0, int64_t m, bool date, int64_t per,
                           int64_t shift, int64_t months, qvk_i128 step, int64_t o, int64_t day, uint8_t *dst) {
  int64_t vals[BLOCK], res[BLOCK];
  bool ok = true;
  if (months) {
    int32_t days[BLOCK], first[BLOCK];
    if (months > QVK_CIVIL_MONTHS_MAX || !block_days(a, idx, i0, m, date, per, shift, days, vals, res)) return false;
    qvk_civil_month_floor(days, m, (int32_t)months, first);
    if (date) {
      memcpy(dst, first, (size_t)m * 4);
      return true;
    }
    for (int64_t k = 0; k < m; k++) {
      int64_t t;
      ok &= !__builtin_mul_overflow((int64_t)first[k], day, &t);
      ok &= !__builtin_sub_overflow(t, shift, &t);
      res[k] = t;
    }
    memcpy(dst, res, (size_t)m * 8);
    return ok;
  }
  if (step > INT64_MAX) return false;
  for (int64_t k = 0; k < m; k++) {
    int64_t r = idx ? idx[i0 + k] : i0 + k;
    vals[k] = date ? ((const int32_t *)qv_array_values(a))[r] : ((const int64_t *)qv_array_values(a))[r];
  }
  int64_t st = (int64_t)step;
  if (st == 0) {
    memcpy(res, vals, (size_t)m * 8);
  } else {
    for (int64_t k = 0; k < m; k++) {
      int64_t local, rel, t;
      ok &= !__builtin_add_overflow(vals[k], shift, &local);
      ok &= !__builtin_sub_overflow(local, o, &rel);
      int64_t rem = rel % st;
      rem += rem < 0 ? st : 0;
      ok &= !__builtin_sub_overflow(local, rem, &t);
      ok &= !__builtin_sub_overflow(t, shift, &t);
      res[k] = t;
    }
  }
  if (!date) {
    memcpy(dst, res, (size_t)m * 8);
    return ok;
  }
  for (int64_t k = 0; k < m; k++) {
    ok &= res[k] >= INT32_MIN && res[k] <= INT32_MAX;
    int32_t d32 = (int32_t)res[k];
    memcpy(dst + 4 * k, &d32, 4);
  }
  return ok;
}

static qv_status dt_truncate(qvk_ctx *c, qvk_datum *x, const qvk_datum *ed, qvk_datum *out) {
  if (!ed->scalar || ed->scalar->type.id != QV_TYPE_STRING || ed->scalar->is_null)
    return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "dt.truncate: the interval must be a constant string");
  const qv_scalar *es = ed->scalar;
  every ev;
  char why[160];
  if (!parse_every(es->bytes, es->len, &ev, why, sizeof why))
    return qv_error_set(c->err, QV_ERR_INVALID, "dt.truncate: invalid interval '%.*s': %s",
                        (int)(es->len > 40 ? 40 : es->len), (const char *)es->bytes, why);
  int64_t per, off;
  QV_RETURN_NOT_OK(temporal_in(c, "dt.truncate", x, &per, &off));
  qv_type_id id = qvk_datum_type(x)->id;
  if (id == QV_TYPE_TIME64) return qv_error_set(c->err, QV_ERR_TYPE, "dt.truncate is not defined for time64");
  bool date = id == QV_TYPE_DATE32;
  if (date && ev.days && ev.nanos)
    return qv_error_set(c->err, QV_ERR_INVALID,
                        "dt.truncate: a date cannot be truncated by '%.*s' (days and smaller units mixed)",
                        (int)(es->len > 40 ? 40 : es->len), (const char *)es->bytes);
  if (x->scalar) QV_RETURN_NOT_OK(qvk_datum_array(c, x));
  const qv_array *a = x->array;
  qv_array *r = NULL;
  if (a->type.id == QV_TYPE_NULL) return qvk_null_out(&a->type, c->n, out, c->err);
  QV_RETURN_NOT_OK(qvk_fixed_result(&a->type, c->n, false, &r, c->err));
  uint8_t *dst = qv_bytes_mutable(r->buffers[1]);
  int64_t day = date ? 1 : 86400 * per;
  /* the step of a fixed grid in the column's units (0: calendar) */
  qvk_i128 step = 0;
  int64_t origin = 0;
  if (ev.weeks) {
    step = (qvk_i128)ev.weeks * 7 * day;
    origin = WEEK_ORIGIN;
  } else if (!ev.months) {
    if (date) step = ev.days ? (qvk_i128)ev.days : 0; /* sub-daily: unchanged */
    else step = (qvk_i128)ev.days * day + ev.nanos * per / 1000000000;
  }
  bool unchanged = !ev.months && step == 0;
  int64_t shift = date ? 0 : off * per;
  for (int64_t i0 = 0; i0 < c->n; i0 += BLOCK) {
    int64_t nb = c->n - i0 < BLOCK ? c->n - i0 : BLOCK;
    if (block_truncate(a, x->idx, i0, nb, date, per, shift, ev.months, step, origin * day, day,
                       dst + i0 * (date ? 4 : 8)))
      continue;
    for (int64_t i = i0; i < i0 + nb; i++) {
      int64_t v = tval(a, x->idx, i, date);
      qvk_i128 t = v;
      if (!unchanged) {
        qvk_i128 local = (qvk_i128)v + (date ? 0 : (qvk_i128)off * per);
        if (ev.months) {
          int64_t days, tod, y;
          unsigned m, d;
          split_day(v, off, per, date, &days, &tod);
          qv_civil_from_days(days, &y, &m, &d);
          qvk_i128 mi = (qvk_i128)(y - 1970) * 12 + (m - 1); /* months since 1970-01 */
          mi -= ((mi % ev.months) + ev.months) % ev.months;
          int64_t ty = (int64_t)(mi >= 0 ? mi / 12 : (mi - 11) / 12);
          unsigned tm = (unsigned)(mi - (qvk_i128)ty * 12) + 1;
          ty += 1970;
          t = (qvk_i128)qv_days_from_civil(ty, tm, 1) * day;
        } else {
          qvk_i128 o = (qvk_i128)origin * day;
          qvk_i128 rel = local - o;
          t = local - (((rel % step) + step) % step);
        }
        if (!date) t -= (qvk_i128)off * per;
      }
      bool valid = qv_array_is_valid(a, x->idx ? x->idx[i] : i);
      if (date) {
        if ((t > INT32_MAX || t < INT32_MIN) && valid) goto overflow;
        int32_t d32 = (int32_t)t;
        memcpy(dst + 4 * i, &d32, 4);
      } else {
        if ((t > INT64_MAX || t < INT64_MIN) && valid) goto overflow;
        int64_t d64 = (int64_t)t;
        memcpy(dst + 8 * i, &d64, 8);
      }
      continue;
    overflow:
      qv_array_release(r);
      return qv_error_set(c->err, QV_ERR_OVERFLOW, "dt.truncate: row %lld truncates outside the representable range",
                          (long long)i);
    }
  }
  return qvk_array_out_valid(r, x, c->n, out, c->err);
}

static qv_status dt_date(qvk_ctx *c, qvk_datum *x, qvk_datum *out) {
  int64_t per, off;
  QV_RETURN_NOT_OK(temporal_in(c, "dt.date", x, &per, &off));
  qv_type_id id = qvk_datum_type(x)->id;
  if (id == QV_TYPE_TIME64) return qv_error_set(c->err, QV_ERR_TYPE, "dt.date is not defined for time64");
  if (x->scalar) QV_RETURN_NOT_OK(qvk_datum_array(c, x));
  qv_datatype dt = qv_datatype_simple(QV_TYPE_DATE32);
  qv_array *r = NULL;
  if (x->array->type.id == QV_TYPE_NULL) return qvk_null_out(&dt, c->n, out, c->err);
  QV_RETURN_NOT_OK(qvk_fixed_result(&dt, c->n, false, &r, c->err));
  int32_t *dst = (int32_t *)qv_bytes_mutable(r->buffers[1]);
  bool date = id == QV_TYPE_DATE32;
  int64_t tod_scratch[BLOCK], scratch[BLOCK];
  for (int64_t i0 = 0; i0 < c->n; i0 += BLOCK) {
    int64_t m = c->n - i0 < BLOCK ? c->n - i0 : BLOCK;
    if (block_days(x->array, x->idx, i0, m, date, per, off * per, dst + i0, tod_scratch, scratch)) continue;
    for (int64_t i = i0; i < i0 + m; i++) {
      int64_t days, tod;
      split_day(tval(x->array, x->idx, i, date), off, per, date, &days, &tod);
      /* every int64 timestamp's day fits int32 (2^63 ns is 106752 days) except
       * seconds-resolution extremes, which Polars cannot hold either */
      dst[i] = (int32_t)days;
    }
  }
  return qvk_array_out_valid(r, x, c->n, out, c->err);
}

qv_status qvk_op_polars_temporal(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  int32_t want = e->op == QV_OP_DT_TRUNCATE ? 2 : 1;
  if (e->n_args != want)
    return qv_error_set(c->err, QV_ERR_INVALID, "%s takes %d argument%s, got %d", qv_op_name(e->op), (int)want,
                        want == 1 ? "" : "s", (int)e->n_args);
  switch (e->op) {
    case QV_OP_DT_PART: return dt_part(c, e, &args[0], out);
    case QV_OP_DT_EPOCH: return dt_epoch(c, e, &args[0], out);
    case QV_OP_DT_TRUNCATE: return dt_truncate(c, &args[0], &args[1], out);
    default: return dt_date(c, &args[0], out);
  }
}
