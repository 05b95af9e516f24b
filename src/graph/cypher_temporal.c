/* Temporal values: the calendar, time zones, construction and ISO text.
 *
 * Dates are days since 1970-01-01 in the proleptic Gregorian calendar
 * (Howard Hinnant's civil-day algorithms, exact over the whole int64
 * range the values use).  Named zones come from the system's tz database
 * through the C library: the zone is put in TZ and localtime_r gives the
 * offset at an instant.  TZ is process state, so one lock serialises
 * those calls and TZ is put back as it was after each; another thread
 * that reads local time without the lock may see the zone for that
 * moment.  (The repository has no tz library: compute/ handles fixed
 * offsets only.) */

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "graph/cypher_eval_int.h"
#include "graph/cypher_temporal.h"

/* ---- calendar ---------------------------------------------------------------- */

int64_t qvg_days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = qvg_floordiv(y, 400);
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void qvg_civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
  z += 719468;
  int64_t era = qvg_floordiv(z, 146097);
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int qvg_month_days(int64_t y, int m) {
  static const int md[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : md[(m - 1) % 12];
}

int qvg_weekday(int64_t days) { return (int)qvg_floormod(days + 3, 7) + 1; /* 1970-01-01 was a Thursday */ }

int64_t qvg_week1_monday(int64_t wy) {
  int64_t jan4 = qvg_days_from_civil(wy, 1, 4);
  return jan4 - (qvg_weekday(jan4) - 1);
}

void qvg_week_date(int64_t days, int64_t *wyear, int *week, int *dow) {
  int64_t y;
  int m, d;
  qvg_civil_from_days(days, &y, &m, &d);
  int64_t wy = y + 1;
  if (days < qvg_week1_monday(wy)) wy = y;
  if (days < qvg_week1_monday(wy)) wy = y - 1;
  *wyear = wy;
  *week = (int)((days - qvg_week1_monday(wy)) / 7 + 1);
  *dow = qvg_weekday(days);
}

/* ---- zones -------------------------------------------------------------------- */

static pthread_mutex_t g_tz_lock = PTHREAD_MUTEX_INITIALIZER;

static bool zone_name_ok(const char *z, int32_t n) {
  if (n <= 0 || n > 200 || !isalpha((unsigned char)z[0])) return false;
  for (int32_t i = 0; i < n; i++) {
    char c = z[i];
    if (!(isalnum((unsigned char)c) || c == '/' || c == '_' || c == '-' || c == '+')) return false;
    if (c == '/' && i + 1 < n && z[i + 1] == '.') return false;
  }
  return true;
}

qv_status qvg_zone_check(const char *zone, int32_t zlen, qv_error *err) {
  if (!zone_name_ok(zone, zlen)) return qvg_arg_error(err, "unknown time zone '%.*s'", (int)zlen, zone);
  const char *dir = getenv("TZDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/%.*s", dir && *dir ? dir : "/usr/share/zoneinfo", (int)zlen, zone);
  if (access(path, R_OK) != 0) return qvg_arg_error(err, "unknown time zone '%.*s'", (int)zlen, zone);
  return QV_OK;
}

qv_status qvg_zone_offset_at(const char *zone, int32_t zlen, int64_t utc_secs, int32_t *off, qv_error *err) {
  *off = 0;
  QV_RETURN_NOT_OK(qvg_zone_check(zone, zlen, err));
  char tz[208];
  snprintf(tz, sizeof tz, ":%.*s", (int)zlen, zone);
  /* beyond what struct tm's int year holds the zone's rules are those of its last year */
  const int64_t lim = INT64_C(60000000000000);
  if (utc_secs > lim) utc_secs = lim;
  if (utc_secs < -lim) utc_secs = -lim;
  pthread_mutex_lock(&g_tz_lock);
  const char *old = getenv("TZ");
  char *saved = old ? strdup(old) : NULL;
  bool ok = setenv("TZ", tz, 1) == 0;
  struct tm tm;
  if (ok) {
    tzset();
    time_t t = (time_t)utc_secs;
    ok = localtime_r(&t, &tm) != NULL;
  }
  if (saved) setenv("TZ", saved, 1);
  else unsetenv("TZ");
  tzset();
  pthread_mutex_unlock(&g_tz_lock);
  free(saved);
  if (!ok) return qvg_arg_error(err, "no offset of time zone '%.*s' at %lld", (int)zlen, zone, (long long)utc_secs);
  *off = (int32_t)tm.tm_gmtoff;
  return QV_OK;
}

qv_status qvg_zone_resolve(const char *zone, int32_t zlen, int64_t local_secs, int32_t prefer, int32_t *off,
                           int64_t *shift, qv_error *err) {
  *shift = 0;
  int32_t before, after;
  /* the offsets a day either side: zones change offset far less often */
  QV_RETURN_NOT_OK(qvg_zone_offset_at(zone, zlen, local_secs - 86400, &before, err));
  QV_RETURN_NOT_OK(qvg_zone_offset_at(zone, zlen, local_secs + 86400, &after, err));
  if (before == after) {
    *off = before;
    return QV_OK;
  }
  int32_t a, b;
  QV_RETURN_NOT_OK(qvg_zone_offset_at(zone, zlen, local_secs - before, &a, err));
  QV_RETURN_NOT_OK(qvg_zone_offset_at(zone, zlen, local_secs - after, &b, err));
  bool va = a == before, vb = b == after;
  if (va && vb) *off = prefer == after ? after : before; /* overlap */
  else if (va) *off = before;
  else if (vb) *off = after;
  else { /* gap: the instant the earlier offset gives, shown with the later one */ *off = after;
    *shift = (int64_t)after - before;
  }
  return QV_OK;
}

/* ---- values ----------------------------------------------------------------------- */

qvg_temporal *qvg_temporal_new(qvg_arena *a, int t, qvg_val *out) {
  qvg_temporal *p = qvg_arena_alloc(a, sizeof *p);
  if (!p) return NULL;
  memset(p, 0, sizeof *p);
  out->t = (uint8_t)t;
  out->n = 0;
  out->u.tm = p;
  return p;
}

static qv_status range_check(int64_t days, qv_error *err) {
  int64_t lo = qvg_days_from_civil(-QVG_YEAR_MAX, 1, 1), hi = qvg_days_from_civil(QVG_YEAR_MAX, 12, 31);
  if (days < lo || days > hi) return qvg_arg_error(err, "date outside years -999999999 .. 999999999");
  return QV_OK;
}

qv_status qvg_datetime_local(qvg_arena *a, int64_t days, int64_t nanos, int32_t offset, const char *zone, int32_t zlen,
                             int32_t prefer, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  if (zlen > 0) {
    int64_t shift;
    int64_t local = days * 86400 + nanos / QVG_NS_PER_SEC;
    QV_RETURN_NOT_OK(qvg_zone_resolve(zone, zlen, local, prefer, &offset, &shift, err));
    if (shift) {
      nanos += shift * QVG_NS_PER_SEC;
      days += qvg_floordiv(nanos, QVG_NS_PER_DAY);
      nanos = qvg_floormod(nanos, QVG_NS_PER_DAY);
    }
  }
  QV_RETURN_NOT_OK(range_check(days, err));
  qvg_temporal *t = qvg_temporal_new(a, QVG_V_DATETIME, out);
  char *z = zlen > 0 ? qvg_arena_alloc(a, (size_t)zlen) : NULL;
  if (!t || (zlen > 0 && !z)) return qv_error_nomem(err, "cypher: datetime");
  if (zlen > 0) memcpy(z, zone, (size_t)zlen);
  t->days = days;
  t->nanos = nanos;
  t->offset = offset;
  t->zone = z;
  t->zlen = zlen > 0 ? zlen : 0;
  return QV_OK;
}

qv_status qvg_datetime_instant(qvg_arena *a, int64_t secs, int64_t nanos, int32_t offset, const char *zone,
                               int32_t zlen, qvg_val *out, qv_error *err) {
  secs += qvg_floordiv(nanos, QVG_NS_PER_SEC);
  nanos = qvg_floormod(nanos, QVG_NS_PER_SEC);
  if (zlen > 0) QV_RETURN_NOT_OK(qvg_zone_offset_at(zone, zlen, secs, &offset, err));
  int64_t local = secs + offset;
  int64_t days = qvg_floordiv(local, 86400);
  int64_t tod = (local - days * 86400) * QVG_NS_PER_SEC + nanos;
  QV_RETURN_NOT_OK(qvg_datetime_local(a, days, tod, offset, NULL, 0, INT32_MIN, out, err));
  if (zlen > 0) {
    char *z = qvg_arena_alloc(a, (size_t)zlen);
    if (!z) return qv_error_nomem(err, "cypher: datetime");
    memcpy(z, zone, (size_t)zlen);
    qvg_temporal *t = (qvg_temporal *)out->u.tm;
    t->zone = z;
    t->zlen = zlen;
  }
  return QV_OK;
}

void qvg_datetime_epoch(const qvg_temporal *t, int64_t *secs, int64_t *nanos) {
  *secs = t->days * 86400 + t->nanos / QVG_NS_PER_SEC - t->offset;
  *nanos = t->nanos % QVG_NS_PER_SEC;
}

qv_status qvg_duration_make(qvg_arena *a, int64_t months, int64_t days, int64_t secs, int64_t nanos, qvg_val *out,
                            qv_error *err) {
  *out = qvg_null();
  int64_t carry = qvg_floordiv(nanos, QVG_NS_PER_SEC);
  if (__builtin_add_overflow(secs, carry, &secs)) return qvg_overflow(err, "duration");
  qvg_temporal *t = qvg_temporal_new(a, QVG_V_DURATION, out);
  if (!t) return qv_error_nomem(err, "cypher: duration");
  t->months = months;
  t->days = days;
  t->secs = secs;
  t->nanos = qvg_floormod(nanos, QVG_NS_PER_SEC);
  return QV_OK;
}

static bool fits(long double x) { return x > -9.2e18L && x < 9.2e18L; }

qv_status qvg_duration_frac(qvg_arena *a, long double months, long double days, long double secs, long double nanos,
                            qvg_val *out, qv_error *err) {
  *out = qvg_null();
  if (!isfinite(months) || !isfinite(days) || !isfinite(secs) || !isfinite(nanos))
    return qvg_arg_error(err, "a duration of a non-finite amount");
  long double m = truncl(months);
  days += (months - m) * 30.436875L;
  long double d = truncl(days);
  secs += (days - d) * 86400.0L;
  long double s = truncl(secs);
  nanos += (secs - s) * 1e9L;
  long double n = roundl(nanos);
  if (!fits(m) || !fits(d) || !fits(s) || !fits(n)) return qvg_overflow(err, "duration");
  return qvg_duration_make(a, (int64_t)m, (int64_t)d, (int64_t)s, (int64_t)n, out, err);
}

/* ---- text ------------------------------------------------------------------------- */

static void text_date(int64_t days, qvb_text *out) {
  int64_t y;
  int m, d;
  qvg_civil_from_days(days, &y, &m, &d);
  if (y > 9999) qvb_text_f(out, "+%lld", (long long)y);
  else if (y < 0) qvb_text_f(out, "-%04lld", (long long)-y);
  else qvb_text_f(out, "%04lld", (long long)y);
  qvb_text_f(out, "-%02d-%02d", m, d);
}

/* java.time's LocalTime text: HH:mm, then :ss when there are seconds or
 * nanoseconds, then 3, 6 or 9 fraction digits. */
static void text_time(int64_t nanos, qvb_text *out) {
  int64_t s = nanos / QVG_NS_PER_SEC, ns = nanos % QVG_NS_PER_SEC;
  qvb_text_f(out, "%02d:%02d", (int)(s / 3600), (int)(s / 60 % 60));
  if (s % 60 || ns) qvb_text_f(out, ":%02d", (int)(s % 60));
  if (!ns) return;
  if (ns % 1000000 == 0) qvb_text_f(out, ".%03d", (int)(ns / 1000000));
  else if (ns % 1000 == 0) qvb_text_f(out, ".%06d", (int)(ns / 1000));
  else qvb_text_f(out, ".%09d", (int)ns);
}

static void text_offset(int32_t off, qvb_text *out) {
  if (off == 0) {
    qvb_text_s(out, "Z");
    return;
  }
  int32_t a = off < 0 ? -off : off;
  qvb_text_f(out, "%c%02d:%02d", off < 0 ? '-' : '+', (int)(a / 3600), (int)(a / 60 % 60));
  if (a % 60) qvb_text_f(out, ":%02d", (int)(a % 60));
}

static void text_unit(qvb_text *out, int64_t v, char unit) {
  if (v) qvb_text_f(out, "%lld%c", (long long)v, unit);
}

/* java.time's Duration-like text, as Neo4j prints a Cypher duration:
 * P, years and months from the months, days, then T with hours, minutes
 * and seconds from the seconds (each with its own sign), the fraction
 * without trailing zeros; PT0S when all is zero. */
static void text_duration(const qvg_temporal *t, qvb_text *out) {
  if (!t->months && !t->days && !t->secs && !t->nanos) {
    qvb_text_s(out, "PT0S");
    return;
  }
  qvb_text_s(out, "P");
  text_unit(out, t->months / 12, 'Y');
  text_unit(out, t->months % 12, 'M');
  text_unit(out, t->days, 'D');
  if (!t->secs && !t->nanos) return;
  qvb_text_s(out, "T");
  bool neg = t->secs < 0;
  int64_t s = t->secs, n = t->nanos;
  if (neg && n) { /* -1.4 s is secs -2, nanos 0.6e9 */
    s++;
    n = QVG_NS_PER_SEC - n;
  }
  text_unit(out, s / 3600, 'H');
  s %= 3600;
  text_unit(out, s / 60, 'M');
  s %= 60;
  if (!s && !n) return;
  if (s) qvb_text_f(out, "%lld", (long long)s);
  else qvb_text_s(out, neg ? "-0" : "0");
  if (n) {
    char f[16];
    snprintf(f, sizeof f, "%09lld", (long long)n);
    int k = 9;
    while (k > 0 && f[k - 1] == '0') k--;
    qvb_text_f(out, ".%.*s", k, f);
  }
  qvb_text_s(out, "S");
}

void qvg_temporal_text(const qvg_val *v, qvb_text *out) {
  const qvg_temporal *t = v->u.tm;
  switch (v->t) {
    case QVG_V_DATE: text_date(t->days, out); break;
    case QVG_V_LOCALTIME: text_time(t->nanos, out); break;
    case QVG_V_TIME:
      text_time(t->nanos, out);
      text_offset(t->offset, out);
      break;
    case QVG_V_LOCALDATETIME:
      text_date(t->days, out);
      qvb_text_s(out, "T");
      text_time(t->nanos, out);
      break;
    case QVG_V_DATETIME:
      text_date(t->days, out);
      qvb_text_s(out, "T");
      text_time(t->nanos, out);
      text_offset(t->offset, out);
      if (t->zlen > 0) qvb_text_f(out, "[%.*s]", (int)t->zlen, t->zone);
      break;
    case QVG_V_DURATION: text_duration(t, out); break;
    default: break;
  }
}

/* ---- parsing ---------------------------------------------------------------------- */

typedef struct cur {
  const char *p, *end;
} cur;

static int digits(cur *c, int max, int64_t *v) {
  int n = 0;
  int64_t x = 0;
  while (c->p < c->end && n < max && isdigit((unsigned char)*c->p)) {
    x = x * 10 + (*c->p++ - '0');
    n++;
  }
  *v = x;
  return n;
}
static int digit_run(const cur *c) {
  int n = 0;
  while (c->p + n < c->end && isdigit((unsigned char)c->p[n])) n++;
  return n;
}
static bool eat(cur *c, char ch) {
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return true;
  }
  return false;
}

static qv_status bad_text(int t, const char *s, int32_t n, qv_error *err) {
  return qvg_arg_error(err, "text cannot be parsed to a %s: '%.*s'", qvg_vtype_name(t), (int)(n > 200 ? 200 : n), s);
}

/* date: [+-]Y{4,}(-MM(-DD)?|-Www(-D)?|-DDD)? or the same without dashes */
static bool parse_date(cur *c, int64_t *days) {
  int sign = 1;
  bool signed_ = false;
  if (c->p < c->end && (*c->p == '+' || *c->p == '-')) {
    sign = *c->p == '-' ? -1 : 1;
    signed_ = true;
    c->p++;
  }
  int run = digit_run(c);
  if (run < 4) return false;
  /* a year of other than four digits needs a sign or a dash after it */
  int ylen = signed_ || (c->p + run < c->end && c->p[run] == '-') ? run : 4;
  if (ylen == 4 && run != 4 && run != 6 && run != 7 && run != 8) return false;
  int64_t y;
  if (ylen > 10) return false;
  digits(c, ylen, &y);
  y *= sign;
  if (y > QVG_YEAR_MAX || y < -QVG_YEAR_MAX) return false;
  bool dash = eat(c, '-');
  int64_t a = 1, b = 1;
  if (c->p < c->end && *c->p == 'W') {
    c->p++;
    if (digits(c, 2, &a) != 2) return false;
    bool d2 = eat(c, '-');
    if (d2 && !dash) return false;
    if (digit_run(c) >= 1) digits(c, 1, &b);
    else if (d2) return false;
    if (a < 1 || a > 53 || b < 1 || b > 7) return false;
    int64_t wy, d = qvg_week1_monday(y) + (a - 1) * 7 + (b - 1);
    int w, dw;
    qvg_week_date(d, &wy, &w, &dw);
    if (wy != y) return false;
    *days = d;
    return true;
  }
  int r = digit_run(c);
  if (r == 3 && !(c->p + 3 < c->end && c->p[3] == '-')) { /* ordinal day */
    digits(c, 3, &a);
    if (a < 1 || a > (is_leap(y) ? 366 : 365)) return false;
    *days = qvg_days_from_civil(y, 1, 1) + a - 1;
    return true;
  }
  if (r >= 2) {
    digits(c, 2, &a);
    bool d2 = eat(c, '-');
    if (d2 && !dash) return false;
    if (digit_run(c) >= 2) digits(c, 2, &b);
    else if (d2) return false;
  } else if (dash) {
    return false;
  }
  if (a < 1 || a > 12 || b < 1 || b > qvg_month_days(y, (int)a)) return false;
  *days = qvg_days_from_civil(y, (int)a, (int)b);
  return true;
}

/* time: HH(:?MM(:?SS([.,]f{1,9})?)?)? */
static bool parse_time(cur *c, int64_t *nanos) {
  int64_t h, m = 0, s = 0, f = 0;
  if (digits(c, 2, &h) != 2) return false;
  bool colon = eat(c, ':');
  if (digit_run(c) >= 2) {
    digits(c, 2, &m);
    bool c2 = eat(c, ':');
    if (c2 && !colon) return false;
    if (digit_run(c) >= 2) {
      digits(c, 2, &s);
      if (eat(c, '.') || eat(c, ',')) {
        int k = digit_run(c);
        if (k < 1 || k > 9) return false;
        digits(c, 9, &f);
        for (int i = k; i < 9; i++) f *= 10;
      }
    } else if (c2) {
      return false;
    }
  } else if (colon) {
    return false;
  }
  if (h > 23 || m > 59 || s > 59) return false;
  *nanos = ((h * 60 + m) * 60 + s) * QVG_NS_PER_SEC + f;
  return true;
}

/* offset: Z | [+-]HH(:?MM(:?SS)?)? */
static bool parse_offset(cur *c, int32_t *off) {
  if (eat(c, 'Z') || eat(c, 'z')) {
    *off = 0;
    return true;
  }
  if (c->p >= c->end || (*c->p != '+' && *c->p != '-')) return false;
  int sign = *c->p++ == '-' ? -1 : 1;
  int64_t h, m = 0, s = 0;
  if (digits(c, 2, &h) != 2) return false;
  bool colon = eat(c, ':');
  if (digit_run(c) >= 2) {
    digits(c, 2, &m);
    bool c2 = eat(c, ':');
    if (c2 && !colon) return false;
    if (digit_run(c) >= 2) digits(c, 2, &s);
    else if (c2) return false;
  } else if (colon) {
    return false;
  }
  if (m > 59 || s > 59) return false;
  int64_t o = h * 3600 + m * 60 + s;
  if (o > QVG_OFFSET_MAX) return false;
  *off = (int32_t)(sign * o);
  return true;
}

qv_status qvg_parse_zone(const char *s, int32_t n, int32_t *offset, const char **zone, int32_t *zlen, qv_error *err) {
  *offset = 0;
  *zone = NULL;
  *zlen = 0;
  cur c = {s, s + n};
  if (parse_offset(&c, offset) && c.p == c.end) return QV_OK;
  QV_RETURN_NOT_OK(qvg_zone_check(s, n, err));
  *zone = s;
  *zlen = n;
  return QV_OK;
}

typedef struct num {
  bool frac;
  int64_t i;
  long double f;
} num;

/* [-]digits[.digits] */
static bool parse_num(cur *c, num *v) {
  const char *s = c->p;
  bool neg = eat(c, '-');
  if (!neg) eat(c, '+');
  int k = digit_run(c);
  if (k < 1 || k > 18) return false;
  int64_t i;
  digits(c, 18, &i);
  v->frac = false;
  v->i = neg ? -i : i;
  v->f = (long double)v->i;
  if (eat(c, '.') || eat(c, ',')) {
    int fk = digit_run(c);
    if (fk < 1) return false;
    long double f = 0, scale = 1;
    for (int j = 0; j < fk; j++) {
      f = f * 10 + (c->p[j] - '0');
      scale *= 10;
    }
    c->p += fk;
    v->frac = true;
    v->f = (long double)i + f / scale;
    if (neg) v->f = -v->f;
  }
  (void)s;
  return true;
}

static qv_status parse_duration(const char *s, int32_t n, qvg_arena *a, qvg_val *out, qv_error *err) {
  cur c = {s, s + n};
  bool neg = eat(&c, '-');
  if (!neg) eat(&c, '+');
  if (!eat(&c, 'P') && !eat(&c, 'p')) return bad_text(QVG_V_DURATION, s, n, err);
  /* the alternative form PYYYY-MM-DDTHH:MM:SS(.f) */
  if (digit_run(&c) == 4 && c.p + 4 < c.end && c.p[4] == '-') {
    int64_t y, mo, d, h = 0, mi = 0, sec = 0, f = 0;
    digits(&c, 4, &y);
    eat(&c, '-');
    if (digits(&c, 2, &mo) != 2 || !eat(&c, '-') || digits(&c, 2, &d) != 2) return bad_text(QVG_V_DURATION, s, n, err);
    if (eat(&c, 'T')) {
      int64_t tn;
      if (!parse_time(&c, &tn)) return bad_text(QVG_V_DURATION, s, n, err);
      sec = tn / QVG_NS_PER_SEC;
      f = tn % QVG_NS_PER_SEC;
    }
    if (c.p != c.end) return bad_text(QVG_V_DURATION, s, n, err);
    int sg = neg ? -1 : 1;
    return qvg_duration_make(a, sg * (y * 12 + mo), sg * d, sg * (h * 3600 + mi * 60 + sec), sg * f, out, err);
  }
  long double M = 0, D = 0, S = 0;
  int64_t mi = 0, di = 0, si = 0, nsi = 0;
  bool any_frac = false, any = false, in_time = false;
  const char *order = "YMWD";
  const char *torder = "HMS";
  int pos = 0, tpos = 0;
  while (c.p < c.end) {
    if (!in_time && eat(&c, 'T')) {
      in_time = true;
      continue;
    }
    num v;
    if (!parse_num(&c, &v) || c.p >= c.end) return bad_text(QVG_V_DURATION, s, n, err);
    char u = (char)toupper((unsigned char)*c.p++);
    const char *ord = in_time ? torder : order;
    int *pp = in_time ? &tpos : &pos;
    const char *at = strchr(ord + *pp, u);
    if (!at || !u) return bad_text(QVG_V_DURATION, s, n, err);
    *pp = (int)(at - ord) + 1;
    any = true;
    any_frac |= v.frac;
    if (!in_time) {
      switch (u) {
        case 'Y': M += v.f * 12, mi += v.i * 12; break;
        case 'M': M += v.f, mi += v.i; break;
        case 'W': D += v.f * 7, di += v.i * 7; break;
        default: D += v.f, di += v.i; break;
      }
    } else {
      switch (u) {
        case 'H': S += v.f * 3600, si += v.i * 3600; break;
        case 'M': S += v.f * 60, si += v.i * 60; break;
        default:
          S += v.f;
          si += v.i;
          if (v.frac) { /* seconds' fraction exact to the nanosecond */
            any_frac = false;
            long double fr = (v.f - (long double)v.i) * 1e9L;
            nsi += (int64_t)roundl(fr);
            S -= v.f - (long double)v.i;
          }
          break;
      }
    }
  }
  if (!any) return bad_text(QVG_V_DURATION, s, n, err);
  int sg = neg ? -1 : 1;
  if (any_frac) return qvg_duration_frac(a, sg * M, sg * D, sg * S, sg * (long double)nsi, out, err);
  return qvg_duration_make(a, sg * mi, sg * di, sg * si, sg * nsi, out, err);
}

qv_status qvg_temporal_parse(int t, const char *s, int32_t n, qvg_arena *a, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  if (t == QVG_V_DURATION) return parse_duration(s, n, a, out, err);
  cur c = {s, s + n};
  int64_t days = 0, nanos = 0;
  int32_t off = 0;
  const char *zone = NULL;
  int32_t zlen = 0;
  bool has_off = false;
  if (qvg_has_date(t)) {
    if (!parse_date(&c, &days)) return bad_text(t, s, n, err);
    if (t != QVG_V_DATE && (eat(&c, 'T') || eat(&c, 't'))) {
      if (!parse_time(&c, &nanos)) return bad_text(t, s, n, err);
    } else if (t != QVG_V_DATE && c.p != c.end) {
      return bad_text(t, s, n, err);
    }
  } else {
    if (!parse_time(&c, &nanos)) return bad_text(t, s, n, err);
  }
  if (qvg_has_zone(t) || c.p < c.end) {
    if (c.p < c.end && *c.p != '[') {
      if (!parse_offset(&c, &off)) return bad_text(t, s, n, err);
      has_off = true;
    }
    if (t == QVG_V_DATETIME && eat(&c, '[')) {
      const char *z = c.p;
      while (c.p < c.end && *c.p != ']') c.p++;
      if (!eat(&c, ']')) return bad_text(t, s, n, err);
      zone = z;
      zlen = (int32_t)(c.p - 1 - z);
      QV_RETURN_NOT_OK(qvg_zone_check(zone, zlen, err));
    }
  }
  if (c.p != c.end) return bad_text(t, s, n, err);
  if (!qvg_has_zone(t) && (has_off || zlen)) return bad_text(t, s, n, err);
  qvg_temporal *p;
  switch (t) {
    case QVG_V_DATE:
      QV_RETURN_NOT_OK(range_check(days, err));
      if (!(p = qvg_temporal_new(a, t, out))) return qv_error_nomem(err, "cypher: date");
      p->days = days;
      return QV_OK;
    case QVG_V_LOCALTIME:
    case QVG_V_TIME:
      if (!(p = qvg_temporal_new(a, t, out))) return qv_error_nomem(err, "cypher: time");
      p->nanos = nanos;
      p->offset = off;
      return QV_OK;
    case QVG_V_LOCALDATETIME:
      QV_RETURN_NOT_OK(range_check(days, err));
      if (!(p = qvg_temporal_new(a, t, out))) return qv_error_nomem(err, "cypher: localdatetime");
      p->days = days;
      p->nanos = nanos;
      return QV_OK;
    default: return qvg_datetime_local(a, days, nanos, off, zone, zlen, has_off ? off : INT32_MIN, out, err);
  }
}
