/* date_part and date_trunc on date32 and timestamps (and time64 for the
 * time-of-day parts), plus the time-zone and unit helpers casts share.
 *
 * Zones: a timestamp's values are UTC instants; its fields are read in its
 * zone.  UTC ("UTC", "Z", "+00:00", "Etc/UTC", "GMT") and fixed offsets
 * ("+05:30", "-0800", "+02") are exact; named zones (with daylight saving
 * rules) are QV_ERR_UNSUPPORTED for now.
 * date_part (result int64): year, quarter, month, week (ISO 8601 week
 * number), day, dow (0 = Sunday, as PostgreSQL and DataFusion), isodow
 * (1 = Monday .. 7), doy (1..366), hour, minute, second (whole seconds),
 * millisecond / microsecond / nanosecond (the seconds field in that unit,
 * fraction included: 12.345 s -> 12345 ms, as PostgreSQL), epoch (whole
 * seconds since 1970-01-01, floored).  Plural spellings are accepted.
 * date_trunc: year, quarter, month, week (to Monday),
 * day, hour, minute, second, millisecond, microsecond; the result keeps the
 * input type (a date truncated below a day is unchanged). */
#include <ctype.h>
#include <stdio.h>
#include <strings.h>

#include "compute/compute_int.h"

int64_t qvk_unit_per_second(qv_time_unit u) {
  static const int64_t f[] = {1, 1000, 1000000, 1000000000};
  return f[(unsigned)u & 3];
}

qv_status qvk_tz_offset(const char *tz, int64_t *seconds, qv_error *err) {
  static const char *utc[] = {"UTC", "Z", "Etc/UTC", "GMT", "Etc/GMT", "UCT", "Zulu", "Universal"};
  *seconds = 0;
  for (size_t k = 0; k < sizeof utc / sizeof *utc; k++)
    if (strcasecmp(tz, utc[k]) == 0) return QV_OK;
  const char *p = tz;
  if (*p == '+' || *p == '-') {
    int sign = *p == '-' ? -1 : 1;
    p++;
    int digits[4], nd = 0;
    while (*p && nd < 4) {
      if (*p == ':' && nd == 2) {
        p++;
        continue;
      }
      if (!isdigit((unsigned char)*p)) break;
      digits[nd++] = *p++ - '0';
    }
    if (*p == '\0' && (nd == 2 || nd == 4)) {
      int h = digits[0] * 10 + digits[1], m = nd == 4 ? digits[2] * 10 + digits[3] : 0;
      if (h <= 23 && m <= 59) {
        *seconds = sign * (h * 3600 + m * 60);
        return QV_OK;
      }
    }
  }
  return qv_error_set(err, QV_ERR_UNSUPPORTED,
                      "time zone '%s' is not supported (only UTC and fixed offsets such as +05:30)", tz);
}

enum {
  P_YEAR,
  P_QUARTER,
  P_MONTH,
  P_WEEK,
  P_DAY,
  P_DOW,
  P_ISODOW,
  P_DOY,
  P_HOUR,
  P_MINUTE,
  P_SECOND,
  P_MILLI,
  P_MICRO,
  P_NANO,
  P_EPOCH,
  P__COUNT
};

static int part_of(const qv_scalar *s) {
  static const char *names[][2] = {{"year", "years"},
                                   {"quarter", "quarters"},
                                   {"month", "months"},
                                   {"week", "weeks"},
                                   {"day", "days"},
                                   {"dow", "dayofweek"},
                                   {"isodow", "isodow"},
                                   {"doy", "dayofyear"},
                                   {"hour", "hours"},
                                   {"minute", "minutes"},
                                   {"second", "seconds"},
                                   {"millisecond", "milliseconds"},
                                   {"microsecond", "microseconds"},
                                   {"nanosecond", "nanoseconds"},
                                   {"epoch", "epoch"}};
  if (s->is_null || s->type.id != QV_TYPE_STRING) return -1;
  for (int k = 0; k < P__COUNT; k++)
    for (int v = 0; v < 2; v++)
      if ((int64_t)strlen(names[k][v]) == s->len &&
          strncasecmp((const char *)s->bytes, names[k][v], (size_t)s->len) == 0)
        return k;
  return -1;
}

/* Reads the temporal argument: units per day and the zone offset. */
static qv_status temporal_arg(const char *fn, const qvk_datum *x, int64_t *per_sec, int64_t *offset, qv_error *err) {
  const qv_datatype *t = qvk_datum_type(x);
  *offset = 0;
  *per_sec = 1;
  switch (t->id) {
    case QV_TYPE_DATE32: return QV_OK;
    case QV_TYPE_TIMESTAMP:
      *per_sec = qvk_unit_per_second(t->unit);
      return t->timezone ? qvk_tz_offset(t->timezone, offset, err) : QV_OK;
    case QV_TYPE_TIME64: *per_sec = qvk_unit_per_second(t->unit); return QV_OK;
    default: {
      char tb[64];
      return qv_error_set(err, QV_ERR_TYPE, "%s: expected a date, timestamp or time, got %s", fn,
                          qvk_type_name(t, tb, sizeof tb));
    }
  }
}

static int64_t iso_week(int64_t days) {
  /* ISO weekday 1..7 (Monday = 1); the week holding Thursday decides. */
  int64_t wd = ((days + 3) % 7 + 7) % 7 + 1;
  int64_t thursday = days - wd + 4;
  int64_t ty;
  unsigned tm, td;
  qv_civil_from_days(thursday, &ty, &tm, &td);
  return (thursday - qv_days_from_civil(ty, 1, 1)) / 7 + 1;
}

static int64_t field(int part, int64_t days, int64_t tod, int64_t per, bool has_date) {
  /* tod: units since midnight, 0 <= tod < 86400 * per */
  int64_t y = 0;
  unsigned m = 1, d = 1;
  if (has_date && part <= P_DOY) qv_civil_from_days(days, &y, &m, &d);
  int64_t secs = tod / per, frac = tod % per;
  switch (part) {
    case P_YEAR: return y;
    case P_QUARTER: return (m - 1) / 3 + 1;
    case P_MONTH: return m;
    case P_WEEK: return iso_week(days);
    case P_DAY: return d;
    case P_DOW: return ((days + 4) % 7 + 7) % 7; /* 1970-01-01 was a Thursday */
    case P_ISODOW: return ((days + 3) % 7 + 7) % 7 + 1;
    case P_DOY: return days - qv_days_from_civil(y, 1, 1) + 1;
    case P_HOUR: return secs / 3600;
    case P_MINUTE: return secs / 60 % 60;
    case P_SECOND: return secs % 60;
    case P_MILLI: return (secs % 60) * 1000 + frac * 1000 / per;
    case P_MICRO: return (secs % 60) * 1000000 + frac * 1000000 / per;
    case P_NANO: return (secs % 60) * 1000000000 + frac * (1000000000 / per);
    default: return days * 86400 + secs; /* epoch */
  }
}

qv_status qvk_op_date_part(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 2)
    return qv_error_set(c->err, QV_ERR_INVALID, "date_part takes 2 arguments, got %d", (int)e->n_args);
  if (!args[0].scalar) return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "date_part: the part must be a constant");
  qvk_datum *x = &args[1];
  int part = part_of(args[0].scalar);
  if (part < 0) {
    const qv_scalar *s = args[0].scalar;
    return qv_error_set(c->err, QV_ERR_INVALID, "date_part: unknown part '%.*s'", (int)(s->len > 40 ? 40 : s->len),
                        s->bytes ? (const char *)s->bytes : "");
  }
  int64_t per, off;
  QV_RETURN_NOT_OK(temporal_arg("date_part", x, &per, &off, c->err));
  qv_type_id id = qvk_datum_type(x)->id;
  if (id == QV_TYPE_TIME64 && part <= P_DOY)
    return qv_error_set(c->err, QV_ERR_INVALID, "date_part: a time has no date parts");
  QV_RETURN_NOT_OK(qvk_datum_array(c, x));
  const qv_datatype *rt = qvk_bound_type(e);
  qv_datatype i64 = qv_datatype_simple(QV_TYPE_INT64);
  if (!rt || rt->id != QV_TYPE_INT64) rt = &i64;
  int64_t n = c->n;
  qv_array *r = NULL;
  QV_RETURN_NOT_OK(qvk_fixed_result(rt, n, false, &r, c->err));
  int64_t *dst = (int64_t *)qv_bytes_mutable(r->buffers[1]);
  const qv_array *a = x->array;
  int64_t day = 86400 * per;
  if (id == QV_TYPE_DATE32) {
    const int32_t *v = qv_array_values(a);
    for (int64_t i = 0; i < n; i++) dst[i] = field(part, v[i], 0, 1, true);
  } else {
    const int64_t *v = qv_array_values(a);
    bool has_date = id == QV_TYPE_TIMESTAMP;
    for (int64_t i = 0; i < n; i++) {
      /* local time in the zone; the i128 keeps extreme values from wrapping */
      qvk_i128 local = (qvk_i128)v[i] + (qvk_i128)off * per;
      int64_t days = (int64_t)((local - (((local % day) + day) % day)) / day);
      int64_t tod = (int64_t)(((local % day) + day) % day);
      dst[i] = field(part, days, tod, per, has_date);
    }
  }
  return qvk_array_out_valid(r, x, n, out, c->err);
}

/* Days of the first day of the period holding `days`. */
static int64_t trunc_days(int part, int64_t days) {
  int64_t y;
  unsigned m, d;
  switch (part) {
    case P_YEAR: qv_civil_from_days(days, &y, &m, &d); return qv_days_from_civil(y, 1, 1);
    case P_QUARTER: qv_civil_from_days(days, &y, &m, &d); return qv_days_from_civil(y, (m - 1) / 3 * 3 + 1, 1);
    case P_MONTH: qv_civil_from_days(days, &y, &m, &d); return qv_days_from_civil(y, m, 1);
    case P_WEEK: return days - (((days + 3) % 7 + 7) % 7); /* back to Monday */
    default: return days;
  }
}

qv_status qvk_op_date_trunc(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 2)
    return qv_error_set(c->err, QV_ERR_INVALID, "date_trunc takes 2 arguments, got %d", (int)e->n_args);
  if (!args[0].scalar) return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "date_trunc: the part must be a constant");
  int part = part_of(args[0].scalar);
  if (part < 0 || part == P_DOW || part == P_ISODOW || part == P_DOY || part == P_NANO || part == P_EPOCH) {
    const qv_scalar *s = args[0].scalar;
    return qv_error_set(c->err, QV_ERR_INVALID, "date_trunc: cannot truncate to '%.*s'",
                        (int)(s->len > 40 ? 40 : s->len), s->bytes ? (const char *)s->bytes : "");
  }
  qvk_datum *x = &args[1];
  int64_t per, off;
  QV_RETURN_NOT_OK(temporal_arg("date_trunc", x, &per, &off, c->err));
  qv_type_id id = qvk_datum_type(x)->id;
  if (id == QV_TYPE_TIME64) return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "date_trunc: time64 is not supported");
  QV_RETURN_NOT_OK(qvk_datum_array(c, x));
  const qv_array *a = x->array;
  int64_t n = c->n;
  qv_array *r = NULL;
  QV_RETURN_NOT_OK(qvk_fixed_result(&a->type, n, false, &r, c->err));
  if (id == QV_TYPE_DATE32) {
    const int32_t *v = qv_array_values(a);
    int32_t *dst = (int32_t *)qv_bytes_mutable(r->buffers[1]);
    for (int64_t i = 0; i < n; i++) dst[i] = (int32_t)trunc_days(part, v[i]);
  } else {
    const int64_t *v = qv_array_values(a);
    int64_t *dst = (int64_t *)qv_bytes_mutable(r->buffers[1]);
    int64_t day = 86400 * per, step = 0;
    switch (part) {
      case P_HOUR: step = 3600 * per; break;
      case P_MINUTE: step = 60 * per; break;
      case P_SECOND: step = per; break;
      case P_MILLI: step = per >= 1000 ? per / 1000 : 1; break;
      case P_MICRO: step = per >= 1000000 ? per / 1000000 : 1; break;
      default: step = 0; break; /* day or longer */
    }
    for (int64_t i = 0; i < n; i++) {
      qvk_i128 local = (qvk_i128)v[i] + (qvk_i128)off * per, t;
      if (step) {
        t = local - (((local % step) + step) % step);
      } else {
        qvk_i128 days = (local - (((local % day) + day) % day)) / day;
        t = (qvk_i128)trunc_days(part, (int64_t)days) * day;
      }
      t -= (qvk_i128)off * per;
      if ((t < INT64_MIN || t > INT64_MAX) && qv_array_is_valid(a, i)) {
        qv_array_release(r);
        return qv_error_set(c->err, QV_ERR_OVERFLOW, "date_trunc: row %lld truncates outside the timestamp range",
                            (long long)i);
      }
      dst[i] = (int64_t)t;
    }
  }
  return qvk_array_out_valid(r, x, n, out, c->err);
}
