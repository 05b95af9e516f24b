/* What Cypher does with temporal values: the constructors date(),
 * localtime(), time(), localdatetime(), datetime() and duration() (from
 * text, a map of components, another temporal value, or the statement's
 * clock), X.truncate, datetime.fromepoch[millis], duration.between /
 * inMonths / inDays / inSeconds, + and - with durations, duration * and /
 * numbers, and components (d.year, dt.timezone, dur.days, ...).
 *
 * A map selects: {date: d, time: t, datetime: x} give the parts the
 * other keys do not override ({date: d, day: 28} keeps d's year and month;
 * {date: d, week: 1} keeps d's week year and day of week; {date: d,
 * quarter: 3} keeps d's day of the quarter).  A timezone key attaches a
 * zone to a value without one and converts (same instant) a value with
 * one.  The default zone is UTC. */
#include <math.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "graph/cypher_eval_int.h"
#include "graph/cypher_temporal.h"

static const char *tname(const qvg_val *v) { return qvg_vtype_name(v->t); }

/* ---- the clock ---------------------------------------------------------------- */

static _Thread_local struct {
  const void *key;
  int64_t ns, at;
} g_clock;

static int64_t real_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * QVG_NS_PER_SEC + ts.tv_nsec;
}

/* The statement's clock.  The context carries no statement time, so one
 * reading serves the evaluations that use this arena within a second:
 * the calls of one row, or one batch, of a statement see one instant
 * (date() = date() holds), a later statement a later one. */
static int64_t statement_now(const qvg_evalctx *cx) {
  int64_t now = real_now();
  if (g_clock.key != cx->arena || now - g_clock.at > QVG_NS_PER_SEC || now < g_clock.at) {
    g_clock.key = cx->arena;
    g_clock.ns = now;
    g_clock.at = now;
  }
  return g_clock.ns;
}

/* ---- components of a value --------------------------------------------------- */

typedef struct parts {
  int64_t days, nanos; /* local */
  int32_t offset;
  const char *zone;
  int32_t zlen;
  bool zoned;
} parts;

static parts parts_of(const qvg_val *v) {
  parts p = {0, 0, 0, NULL, 0, false};
  const qvg_temporal *t = v->u.tm;
  if (qvg_has_date(v->t)) p.days = t->days;
  if (qvg_has_time(v->t)) p.nanos = t->nanos;
  if (qvg_has_zone(v->t)) {
    p.zoned = true;
    p.offset = t->offset;
    if (v->t == QVG_V_DATETIME) p.zone = t->zone, p.zlen = t->zlen;
  }
  return p;
}

/* A value of kind type from local parts (zone from p when the kind has one). */
static qv_status make(qvg_arena *a, int type, int64_t days, int64_t nanos, const parts *z, int32_t prefer, qvg_val *out,
                      qv_error *err) {
  if (type == QVG_V_DATETIME)
    return qvg_datetime_local(a, days, nanos, z ? z->offset : 0, z ? z->zone : NULL, z ? z->zlen : 0, prefer, out, err);
  qvg_temporal *t = qvg_temporal_new(a, type, out);
  if (!t) return qv_error_nomem(err, "cypher: temporal value");
  t->days = qvg_has_date(type) ? days : 0;
  t->nanos = qvg_has_time(type) ? nanos : 0;
  t->offset = type == QVG_V_TIME && z ? z->offset : 0;
  if (qvg_has_date(type)) {
    int64_t lo = qvg_days_from_civil(-QVG_YEAR_MAX, 1, 1), hi = qvg_days_from_civil(QVG_YEAR_MAX, 12, 31);
    if (days < lo || days > hi) return qvg_arg_error(err, "date outside years -999999999 .. 999999999");
  }
  return QV_OK;
}

/* The zone's offset now (a TIME in a named zone takes today's offset). */
static qv_status zone_offset_now(const qvg_evalctx *cx, const parts *z, int32_t *off, qv_error *err) {
  if (!z->zlen) {
    *off = z->offset;
    return QV_OK;
  }
  return qvg_zone_offset_at(z->zone, z->zlen, qvg_floordiv(statement_now(cx), QVG_NS_PER_SEC), off, err);
}

/* ---- selection from a map ---------------------------------------------------- */

enum {
  F_YEAR,
  F_MONTH,
  F_DAY,
  F_WEEK,
  F_DOW,
  F_QUARTER,
  F_DOQ,
  F_ORDINAL,
  F_HOUR,
  F_MINUTE,
  F_SECOND,
  F_MS,
  F_US,
  F_NS,
  F_EPOCHS,
  F_EPOCHMS,
  F__N
};
static const char *const fnames[F__N] = {
    "year", "month",  "day",    "week",        "dayOfWeek",   "quarter",    "dayOfQuarter", "ordinalDay",
    "hour", "minute", "second", "millisecond", "microsecond", "nanosecond", "epochSeconds", "epochMillis"};

typedef struct sel {
  bool has[F__N];
  int64_t v[F__N];
  const qvg_val *date, *time; /* bases, or NULL */
  bool has_tz;
  parts tz; /* zone, offset when zlen is 0 */
} sel;

static bool has_any(const sel *s, int from, int to) {
  for (int f = from; f <= to; f++)
    if (s->has[f]) return true;
  return false;
}

static qv_status read_map(int type, const qvg_val *m, sel *s, qv_error *err) {
  memset(s, 0, sizeof *s);
  for (int32_t i = 0; i < m->n; i++) {
    const qvg_entry *e = &m->u.m[i];
    const qvg_val *v = &e->v;
    if (v->t == QVG_V_NULL) continue;
    int f = -1;
    for (int k = 0; k < F__N; k++)
      if ((int32_t)strlen(fnames[k]) == e->klen && strncasecmp(fnames[k], e->key, (size_t)e->klen) == 0) f = k;
    if (f >= 0 && type != QVG_V_DURATION) {
      if (v->t != QVG_V_INT)
        return qvg_type_error(err, "%s() component `%s` must be an Integer, not %s", qvg_vtype_name(type), fnames[f],
                              tname(v));
      s->has[f] = true;
      s->v[f] = v->u.i;
      continue;
    }
    bool is_date = e->klen == 4 && strncasecmp(e->key, "date", 4) == 0;
    bool is_time = e->klen == 4 && strncasecmp(e->key, "time", 4) == 0;
    bool is_dt = e->klen == 8 && strncasecmp(e->key, "datetime", 8) == 0;
    if (is_date || is_time || is_dt) {
      if (!qvg_is_temporal(v->t) || v->t == QVG_V_DURATION || (is_date && !qvg_has_date(v->t)) ||
          (is_time && !qvg_has_time(v->t)))
        return qvg_type_error(err, "%s() cannot select `%.*s` from %s", qvg_vtype_name(type), (int)e->klen, e->key,
                              tname(v));
      if ((is_date || is_dt) && qvg_has_date(v->t)) s->date = v;
      if ((is_time || is_dt) && qvg_has_time(v->t)) s->time = v;
      continue;
    }
    if (e->klen == 8 && strncasecmp(e->key, "timezone", 8) == 0) {
      if (v->t != QVG_V_STRING) return qvg_type_error(err, "a timezone must be a String, not %s", tname(v));
      QV_RETURN_NOT_OK(qvg_parse_zone(v->u.s, v->n, &s->tz.offset, &s->tz.zone, &s->tz.zlen, err));
      s->has_tz = true;
      s->tz.zoned = true;
      continue;
    }
    return qvg_arg_error(err, "%s() has no component `%.*s`", qvg_vtype_name(type), (int)e->klen, e->key);
  }
  return QV_OK;
}

static qv_status out_of_range(int type, const char *what, int64_t v, qv_error *err) {
  return qvg_arg_error(err, "%s() with %s %lld out of range", qvg_vtype_name(type), what, (long long)v);
}

/* The local date of a selection. */
static qv_status sel_date(int type, const sel *s, const parts *base, bool have_base, int64_t *days, qv_error *err) {
  int64_t by = 0;
  int bm = 1, bd = 1;
  if (have_base) qvg_civil_from_days(base->days, &by, &bm, &bd);
  if (!s->has[F_YEAR] && !have_base) return qvg_arg_error(err, "%s() needs a year", qvg_vtype_name(type));
  int64_t y = s->has[F_YEAR] ? s->v[F_YEAR] : by;
  if (y < -QVG_YEAR_MAX || y > QVG_YEAR_MAX) return out_of_range(type, "year", y, err);
  if (s->has[F_WEEK] || s->has[F_DOW]) {
    int64_t wy = y;
    int bw = 1, bdow = 1;
    if (have_base) {
      int64_t bwy;
      qvg_week_date(base->days, &bwy, &bw, &bdow);
      if (!s->has[F_YEAR]) wy = bwy;
    }
    int64_t w = s->has[F_WEEK] ? s->v[F_WEEK] : bw, dw = s->has[F_DOW] ? s->v[F_DOW] : (have_base ? bdow : 1);
    int64_t first = qvg_week1_monday(wy), next = qvg_week1_monday(wy + 1);
    if (w < 1 || w > (next - first) / 7) return out_of_range(type, "week", w, err);
    if (dw < 1 || dw > 7) return out_of_range(type, "dayOfWeek", dw, err);
    *days = first + (w - 1) * 7 + dw - 1;
    return QV_OK;
  }
  if (s->has[F_ORDINAL]) {
    int64_t o = s->v[F_ORDINAL], len = qvg_days_from_civil(y + 1, 1, 1) - qvg_days_from_civil(y, 1, 1);
    if (o < 1 || o > len) return out_of_range(type, "ordinalDay", o, err);
    *days = qvg_days_from_civil(y, 1, 1) + o - 1;
    return QV_OK;
  }
  if (s->has[F_QUARTER] || s->has[F_DOQ]) {
    int bq = (bm - 1) / 3 + 1;
    int64_t bdoq = have_base ? base->days - qvg_days_from_civil(by, (bq - 1) * 3 + 1, 1) + 1 : 1;
    int64_t q = s->has[F_QUARTER] ? s->v[F_QUARTER] : bq, dq = s->has[F_DOQ] ? s->v[F_DOQ] : bdoq;
    if (q < 1 || q > 4) return out_of_range(type, "quarter", q, err);
    int64_t start = qvg_days_from_civil(y, (int)(q - 1) * 3 + 1, 1),
            end = qvg_days_from_civil(y + (q == 4), q == 4 ? 1 : (int)q * 3 + 1, 1);
    if (dq < 1 || dq > end - start) return out_of_range(type, "dayOfQuarter", dq, err);
    *days = start + dq - 1;
    return QV_OK;
  }
  int64_t m = s->has[F_MONTH] ? s->v[F_MONTH] : bm, d = s->has[F_DAY] ? s->v[F_DAY] : bd;
  if (m < 1 || m > 12) return out_of_range(type, "month", m, err);
  if (d < 1 || d > qvg_month_days(y, (int)m)) return out_of_range(type, "day", d, err);
  *days = qvg_days_from_civil(y, (int)m, (int)d);
  return QV_OK;
}

/* The local time of a selection. */
static qv_status sel_time(int type, const sel *s, const parts *base, bool have_base, int64_t *nanos, qv_error *err) {
  int64_t b = have_base ? base->nanos : 0, bs = b / QVG_NS_PER_SEC;
  int64_t h = s->has[F_HOUR] ? s->v[F_HOUR] : bs / 3600, mi = s->has[F_MINUTE] ? s->v[F_MINUTE] : bs / 60 % 60,
          sec = s->has[F_SECOND] ? s->v[F_SECOND] : bs % 60;
  if (h < 0 || h > 23) return out_of_range(type, "hour", h, err);
  if (mi < 0 || mi > 59) return out_of_range(type, "minute", mi, err);
  if (sec < 0 || sec > 59) return out_of_range(type, "second", sec, err);
  int64_t frac = b % QVG_NS_PER_SEC;
  if (has_any(s, F_MS, F_NS)) {
    int64_t ms = s->has[F_MS] ? s->v[F_MS] : 0, us = s->has[F_US] ? s->v[F_US] : 0, ns = s->has[F_NS] ? s->v[F_NS] : 0;
    if (ms < 0 || ms > 999) return out_of_range(type, "millisecond", ms, err);
    if (us < 0 || us > (s->has[F_MS] ? 999 : 999999)) return out_of_range(type, "microsecond", us, err);
    if (ns < 0 || ns > (s->has[F_MS] || s->has[F_US] ? 999 : 999999999))
      return out_of_range(type, "nanosecond", ns, err);
    frac = ms * 1000000 + us * 1000 + ns;
  }
  *nanos = ((h * 60 + mi) * 60 + sec) * QVG_NS_PER_SEC + frac;
  return QV_OK;
}

/* Converts a zoned value's local parts to another zone, same instant. */
static qv_status convert_zone(const qvg_evalctx *cx, int type, parts *p, const parts *to, qv_error *err) {
  if (type == QVG_V_DATETIME) {
    int64_t secs = p->days * 86400 + p->nanos / QVG_NS_PER_SEC - p->offset;
    int32_t off = to->offset;
    if (to->zlen) QV_RETURN_NOT_OK(qvg_zone_offset_at(to->zone, to->zlen, secs, &off, err));
    int64_t local = secs + off;
    int64_t ns = p->nanos % QVG_NS_PER_SEC;
    p->days = qvg_floordiv(local, 86400);
    p->nanos = (local - p->days * 86400) * QVG_NS_PER_SEC + ns;
    p->offset = off;
  } else {
    int32_t off;
    QV_RETURN_NOT_OK(zone_offset_now(cx, to, &off, err));
    p->nanos = qvg_floormod(p->nanos + ((int64_t)off - p->offset) * QVG_NS_PER_SEC, QVG_NS_PER_DAY);
    p->offset = off;
  }
  p->zone = to->zone;
  p->zlen = to->zlen;
  p->zoned = true;
  return QV_OK;
}

static qv_status build(qvg_evalctx *cx, int type, const sel *s, qvg_val *out, qv_error *err) {
  qvg_arena *a = cx->arena;
  parts dp = {0}, tp = {0};
  bool have_date = s->date != NULL, have_time = s->time != NULL;
  if (have_date) dp = parts_of(s->date);
  if (have_time) tp = parts_of(s->time);
  int64_t days = 0, nanos = 0;
  /* epoch components give an instant */
  if (type == QVG_V_DATETIME && (s->has[F_EPOCHS] || s->has[F_EPOCHMS])) {
    int64_t secs = s->has[F_EPOCHS] ? s->v[F_EPOCHS] : qvg_floordiv(s->v[F_EPOCHMS], 1000);
    int64_t ns = s->has[F_EPOCHS] ? 0 : qvg_floormod(s->v[F_EPOCHMS], 1000) * 1000000;
    ns += (s->has[F_MS] ? s->v[F_MS] * 1000000 : 0) + (s->has[F_US] ? s->v[F_US] * 1000 : 0) +
          (s->has[F_NS] ? s->v[F_NS] : 0);
    const parts *z = s->has_tz ? &s->tz : NULL;
    return qvg_datetime_instant(a, secs, ns, z ? z->offset : 0, z ? z->zone : NULL, z ? z->zlen : 0, out, err);
  }
  bool any_date = has_any(s, F_YEAR, F_ORDINAL), any_time = has_any(s, F_HOUR, F_NS);
  /* nothing to build from but a zone: now, there */
  if (!have_date && !have_time && !any_date && !any_time && s->has_tz) {
    int64_t now = statement_now(cx);
    qvg_val dt;
    QV_RETURN_NOT_OK(qvg_datetime_instant(a, qvg_floordiv(now, QVG_NS_PER_SEC), qvg_floormod(now, QVG_NS_PER_SEC),
                                          s->tz.offset, s->tz.zone, s->tz.zlen, &dt, err));
    parts p = parts_of(&dt);
    return make(a, type, p.days, p.nanos, &p, p.offset, out, err);
  }
  if (qvg_has_date(type)) QV_RETURN_NOT_OK(sel_date(type, s, &dp, have_date, &days, err));
  if (qvg_has_time(type)) {
    QV_RETURN_NOT_OK(sel_time(type, s, &tp, have_time, &nanos, err));
  } else if (any_time) {
    return qvg_arg_error(err, "%s() cannot take time components", qvg_vtype_name(type));
  }
  if (!qvg_has_date(type) && any_date)
    return qvg_arg_error(err, "%s() cannot take date components", qvg_vtype_name(type));
  if (!qvg_has_zone(type)) {
    if (s->has_tz) return qvg_arg_error(err, "%s() cannot take a timezone", qvg_vtype_name(type));
    return make(a, type, days, nanos, NULL, INT32_MIN, out, err);
  }
  /* the zone: the time base's, converted to the timezone key's when both are there; else the
   * key's; else UTC (a date base gives only its date) */
  parts src = {0};
  src.zoned = true;
  if (have_time && tp.zoned) src = tp;
  else if (s->has_tz) src = s->tz;
  parts p = src;
  p.days = days;
  p.nanos = nanos;
  if (type == QVG_V_DATETIME && p.zlen) {
    /* a named zone's offset for this local time */
    qvg_val dt;
    QV_RETURN_NOT_OK(qvg_datetime_local(a, days, nanos, p.offset, p.zone, p.zlen, src.offset, &dt, err));
    p = parts_of(&dt);
  } else if (type == QVG_V_TIME && p.zlen) {
    QV_RETURN_NOT_OK(zone_offset_now(cx, &p, &p.offset, err));
    p.zone = NULL, p.zlen = 0;
  }
  bool converted = have_time && tp.zoned;
  if (s->has_tz && converted) QV_RETURN_NOT_OK(convert_zone(cx, type, &p, &s->tz, err));
  if (type == QVG_V_TIME) {
    p.zone = NULL;
    p.zlen = 0;
  }
  return make(a, type, p.days, p.nanos, &p, p.offset, out, err);
}

/* ---- constructors ------------------------------------------------------------ */

static qv_status now_value(qvg_evalctx *cx, int type, int64_t now, const qvg_val *tz, qvg_val *out, qv_error *err) {
  parts z = {0};
  z.zoned = true;
  if (tz) {
    if (tz->t != QVG_V_STRING) return qvg_type_error(err, "a timezone must be a String, not %s", tname(tz));
    QV_RETURN_NOT_OK(qvg_parse_zone(tz->u.s, tz->n, &z.offset, &z.zone, &z.zlen, err));
  }
  qvg_val dt;
  QV_RETURN_NOT_OK(qvg_datetime_instant(cx->arena, qvg_floordiv(now, QVG_NS_PER_SEC), qvg_floormod(now, QVG_NS_PER_SEC),
                                        z.offset, z.zone, z.zlen, &dt, err));
  parts p = parts_of(&dt);
  if (type == QVG_V_TIME) p.zone = NULL, p.zlen = 0;
  return make(cx->arena, type, p.days, p.nanos, &p, p.offset, out, err);
}

qv_status qvg_temporal_construct(qvg_evalctx *cx, int type, const qvg_val *args, int32_t n, qvg_val *out,
                                 qv_error *err) {
  *out = qvg_null();
  if (n == 0) {
    if (type == QVG_V_DURATION) return qvg_arg_error(err, "duration() needs an argument");
    return now_value(cx, type, statement_now(cx), NULL, out, err);
  }
  const qvg_val *v = &args[0];
  if (v->t == QVG_V_NULL) return QV_OK;
  if (v->t == QVG_V_STRING) return qvg_temporal_parse(type, v->u.s, v->n, cx->arena, out, err);
  if (type == QVG_V_DURATION) {
    if (v->t == QVG_V_DURATION) {
      *out = *v;
      return QV_OK;
    }
    if (v->t != QVG_V_MAP) return qvg_type_error(err, "duration() cannot take %s", tname(v));
    static const char *const keys[] = {"years",   "quarters", "months",       "weeks",        "days",       "hours",
                                       "minutes", "seconds",  "milliseconds", "microseconds", "nanoseconds"};
    static const long double scale[] = {12, 3, 1, 7, 1, 3600, 60, 1, 1e6L, 1e3L, 1};
    long double f[4] = {0, 0, 0, 0}; /* months, days, seconds, nanoseconds */
    int64_t i[4] = {0, 0, 0, 0};
    bool frac = false, over = false;
    for (int32_t k = 0; k < v->n; k++) {
      const qvg_entry *e = &v->u.m[k];
      int f_ = -1;
      for (int j = 0; j < 11; j++)
        if ((int32_t)strlen(keys[j]) == e->klen && strncasecmp(keys[j], e->key, (size_t)e->klen) == 0) f_ = j;
      if (f_ < 0) return qvg_arg_error(err, "duration() has no component `%.*s`", (int)e->klen, e->key);
      if (e->v.t == QVG_V_NULL) continue;
      if (e->v.t != QVG_V_INT && e->v.t != QVG_V_FLOAT)
        return qvg_type_error(err, "duration() component `%s` must be a number, not %s", keys[f_], tname(&e->v));
      int slot = f_ <= 2 ? 0 : f_ <= 4 ? 1 : f_ <= 7 ? 2 : 3;
      long double x = e->v.t == QVG_V_INT ? (long double)e->v.u.i : (long double)e->v.u.f;
      f[slot] += x * scale[f_];
      if (e->v.t == QVG_V_FLOAT) frac = true;
      else {
        int64_t prod;
        over |= __builtin_mul_overflow(e->v.u.i, (int64_t)scale[f_], &prod) ||
                __builtin_add_overflow(i[slot], prod, &i[slot]);
      }
    }
    if (frac) return qvg_duration_frac(cx->arena, f[0], f[1], f[2], f[3], out, err);
    if (over) return qvg_overflow(err, "duration()");
    return qvg_duration_make(cx->arena, i[0], i[1], i[2], i[3], out, err);
  }
  sel s;
  if (v->t == QVG_V_MAP) {
    QV_RETURN_NOT_OK(read_map(type, v, &s, err));
  } else if (qvg_is_temporal(v->t) && v->t != QVG_V_DURATION) {
    memset(&s, 0, sizeof s);
    if (qvg_has_date(v->t)) s.date = v;
    if (qvg_has_time(v->t)) s.time = v;
    if (qvg_has_date(type) && !s.date)
      return qvg_type_error(err, "%s() cannot take %s", qvg_vtype_name(type), tname(v));
  } else {
    return qvg_type_error(err, "%s() cannot take %s", qvg_vtype_name(type), tname(v));
  }
  return build(cx, type, &s, out, err);
}

qv_status qvg_temporal_clock(qvg_evalctx *cx, int type, bool real, const qvg_val *args, int32_t n, qvg_val *out,
                             qv_error *err) {
  *out = qvg_null();
  if (n > 0 && args[0].t == QVG_V_NULL) return QV_OK;
  return now_value(cx, type, real ? real_now() : statement_now(cx), n > 0 ? &args[0] : NULL, out, err);
}

qv_status qvg_temporal_fromepoch(qvg_evalctx *cx, bool millis, const qvg_val *args, int32_t n, qvg_val *out,
                                 qv_error *err) {
  *out = qvg_null();
  for (int32_t i = 0; i < n; i++) {
    if (args[i].t == QVG_V_NULL) return QV_OK;
    if (args[i].t != QVG_V_INT)
      return qvg_type_error(err, "datetime.fromepoch%s() takes Integers, not %s", millis ? "millis" : "",
                            tname(&args[i]));
  }
  int64_t s = millis ? qvg_floordiv(args[0].u.i, 1000) : args[0].u.i;
  int64_t ns = millis ? qvg_floormod(args[0].u.i, 1000) * 1000000 : n > 1 ? args[1].u.i : 0;
  return qvg_datetime_instant(cx->arena, s, ns, 0, NULL, 0, out, err);
}

/* ---- truncation ---------------------------------------------------------------- */

qv_status qvg_temporal_truncate(qvg_evalctx *cx, int type, const qvg_val *args, int32_t n, qvg_val *out,
                                qv_error *err) {
  *out = qvg_null();
  const qvg_val *unit = &args[0], *v = &args[1];
  if (unit->t == QVG_V_NULL || v->t == QVG_V_NULL) return QV_OK;
  if (unit->t != QVG_V_STRING) return qvg_type_error(err, "truncate() needs a String unit, not %s", tname(unit));
  if (!qvg_is_temporal(v->t) || v->t == QVG_V_DURATION)
    return qvg_type_error(err, "%s.truncate() cannot take %s", qvg_vtype_name(type), tname(v));
  static const char *const units[] = {"millennium", "century", "decade",      "year",       "weekYear",
                                      "quarter",    "month",   "week",        "day",        "hour",
                                      "minute",     "second",  "millisecond", "microsecond"};
  int u = -1;
  for (int i = 0; i < 14; i++)
    if ((int32_t)strlen(units[i]) == unit->n && strncasecmp(units[i], unit->u.s, (size_t)unit->n) == 0) u = i;
  if (u < 0) return qvg_arg_error(err, "truncate() has no unit '%.*s'", (int)unit->n, unit->u.s);
  if (u <= 8 && !qvg_has_date(v->t)) return qvg_arg_error(err, "cannot truncate %s to %s", tname(v), units[u]);
  if (u > 8 && !qvg_has_time(type))
    return qvg_arg_error(err, "cannot truncate to %s in %s.truncate()", units[u], qvg_vtype_name(type));
  parts p = parts_of(v);
  if (u <= 8) {
    int64_t y;
    int m, d;
    qvg_civil_from_days(p.days, &y, &m, &d);
    int64_t dd = p.days;
    switch (u) {
      case 0: dd = qvg_days_from_civil(qvg_floordiv(y, 1000) * 1000, 1, 1); break;
      case 1: dd = qvg_days_from_civil(qvg_floordiv(y, 100) * 100, 1, 1); break;
      case 2: dd = qvg_days_from_civil(qvg_floordiv(y, 10) * 10, 1, 1); break;
      case 3: dd = qvg_days_from_civil(y, 1, 1); break;
      case 4: {
        int64_t wy;
        int w, dw;
        qvg_week_date(p.days, &wy, &w, &dw);
        dd = qvg_week1_monday(wy);
        break;
      }
      case 5: dd = qvg_days_from_civil(y, (m - 1) / 3 * 3 + 1, 1); break;
      case 6: dd = qvg_days_from_civil(y, m, 1); break;
      case 7: dd = p.days - (qvg_weekday(p.days) - 1); break;
      default: break;
    }
    p.days = dd;
    p.nanos = 0;
  } else {
    static const int64_t step[] = {3600 * QVG_NS_PER_SEC, 60 * QVG_NS_PER_SEC, QVG_NS_PER_SEC, 1000000, 1000};
    p.nanos -= p.nanos % step[u - 9];
  }
  /* the truncated value, as the kind asked for, is the base the map's components select from */
  qvg_val base;
  int bt =
      qvg_has_date(v->t) ? (p.zoned ? QVG_V_DATETIME : QVG_V_LOCALDATETIME) : (p.zoned ? QVG_V_TIME : QVG_V_LOCALTIME);
  if (bt == QVG_V_DATETIME) {
    qvg_temporal *t = qvg_temporal_new(cx->arena, bt, &base);
    if (!t) return qv_error_nomem(err, "cypher: truncate");
    t->days = p.days, t->nanos = p.nanos, t->offset = p.offset, t->zone = p.zone, t->zlen = p.zlen;
    if (p.zlen) {
      qvg_val r;
      QV_RETURN_NOT_OK(qvg_datetime_local(cx->arena, p.days, p.nanos, p.offset, p.zone, p.zlen, p.offset, &r, err));
      base = r;
    }
  } else {
    QV_RETURN_NOT_OK(make(cx->arena, bt, p.days, p.nanos, &p, p.offset, &base, err));
  }
  sel s;
  memset(&s, 0, sizeof s);
  if (n > 2 && args[2].t != QVG_V_NULL) {
    if (args[2].t != QVG_V_MAP)
      return qvg_type_error(err, "truncate() takes a Map of components, not %s", tname(&args[2]));
    QV_RETURN_NOT_OK(read_map(type, &args[2], &s, err));
  }
  if (qvg_has_date(base.t)) s.date = &base;
  if (qvg_has_time(base.t)) s.time = &base;
  /* sub-second components below the unit add to what the truncation kept (java.time's
   * with(): 12:31:14.645 truncated to milliseconds, with nanosecond 2, is 12:31:14.645000002) */
  int64_t frac = p.nanos % QVG_NS_PER_SEC;
  if (u == 12 && !s.has[F_MS]) {
    if (s.has[F_US]) s.v[F_US] += frac / 1000000 * 1000;
    else if (s.has[F_NS]) s.v[F_NS] += frac / 1000000 * 1000000;
  } else if (u == 13 && !s.has[F_MS] && !s.has[F_US] && s.has[F_NS]) {
    s.v[F_NS] += frac / 1000 * 1000;
  }
  /* a timezone key puts the truncated local time in that zone */
  if (s.has_tz && p.zoned) {
    qvg_val local;
    int lt = qvg_has_date(base.t) ? QVG_V_LOCALDATETIME : QVG_V_LOCALTIME;
    QV_RETURN_NOT_OK(make(cx->arena, lt, p.days, p.nanos, NULL, INT32_MIN, &local, err));
    base = local;
    s.date = qvg_has_date(base.t) ? &base : NULL;
    s.time = &base;
  }
  return build(cx, type, &s, out, err);
}

/* ---- durations between ------------------------------------------------------------ */

/* months from local (d1, n1) to (d2, n2), java.time's LocalDateTime.until(MONTHS) */
static int64_t months_until(int64_t d1, int64_t n1, int64_t d2, int64_t n2) {
  if (d2 > d1 && n2 < n1) d2--;
  else if (d2 < d1 && n2 > n1) d2++;
  int64_t y1, y2;
  int m1, m2, a, b;
  qvg_civil_from_days(d1, &y1, &m1, &a);
  qvg_civil_from_days(d2, &y2, &m2, &b);
  int64_t p1 = (y1 * 12 + m1 - 1) * 32 + a, p2 = (y2 * 12 + m2 - 1) * 32 + b;
  return (p2 - p1) / 32;
}

static int64_t days_until(int64_t d1, int64_t n1, int64_t d2, int64_t n2) {
  if (d2 > d1 && n2 < n1) d2--;
  else if (d2 < d1 && n2 > n1) d2++;
  return d2 - d1;
}

static int64_t add_months(int64_t days, int64_t months) {
  int64_t y;
  int m, d;
  qvg_civil_from_days(days, &y, &m, &d);
  int64_t pm = y * 12 + (m - 1) + months;
  int64_t ny = qvg_floordiv(pm, 12);
  int nm = (int)qvg_floormod(pm, 12) + 1;
  int md = qvg_month_days(ny, nm);
  return qvg_days_from_civil(ny, nm, d > md ? md : d);
}

/* which: 0 between, 1 inMonths, 2 inDays, 3 inSeconds */
qv_status qvg_duration_between(qvg_evalctx *cx, int which, const qvg_val *a, const qvg_val *b, qvg_val *out,
                               qv_error *err) {
  *out = qvg_null();
  if (a->t == QVG_V_NULL || b->t == QVG_V_NULL) return QV_OK;
  static const char *const names[] = {"between", "inMonths", "inDays", "inSeconds"};
  if (!qvg_is_temporal(a->t) || a->t == QVG_V_DURATION || !qvg_is_temporal(b->t) || b->t == QVG_V_DURATION)
    return qvg_type_error(err, "duration.%s() cannot take %s and %s", names[which], tname(a), tname(b));
  parts x = parts_of(a), y = parts_of(b);
  bool dates = qvg_has_date(a->t) && qvg_has_date(b->t);
  if (!dates && (which == 1 || which == 2)) return qvg_duration_make(cx->arena, 0, 0, 0, 0, out, err);
  /* a time of day against a value with a date is that time on the same day (so a zone's
   * transition that day counts) */
  if (qvg_has_date(a->t) != qvg_has_date(b->t)) {
    parts *t = qvg_has_date(a->t) ? &y : &x, *d = qvg_has_date(a->t) ? &x : &y;
    t->days = d->days;
    dates = true;
  }
  /* one side without a zone takes the other's; zoned sides meet in the first one's zone */
  if (x.zoned && !y.zoned) {
    parts z = x;
    if (dates && x.zlen) {
      qvg_val r;
      QV_RETURN_NOT_OK(qvg_datetime_local(cx->arena, y.days, y.nanos, 0, x.zone, x.zlen, INT32_MIN, &r, err));
      y = parts_of(&r);
    } else {
      y.offset = z.offset;
    }
    y.zoned = true;
  } else if (y.zoned && !x.zoned) {
    if (dates && y.zlen) {
      qvg_val r;
      QV_RETURN_NOT_OK(qvg_datetime_local(cx->arena, x.days, x.nanos, 0, y.zone, y.zlen, INT32_MIN, &r, err));
      x = parts_of(&r);
    } else {
      x.offset = y.offset;
    }
    x.zoned = true;
  }
  if (!dates) {
    int64_t d = (y.nanos - (int64_t)y.offset * QVG_NS_PER_SEC) - (x.nanos - (int64_t)x.offset * QVG_NS_PER_SEC);
    if (!x.zoned) d = y.nanos - x.nanos;
    return qvg_duration_make(cx->arena, 0, 0, 0, d, out, err);
  }
  if (x.zoned && y.offset != x.offset) { /* y at x's offset (x's zone for its dates) */
    parts to = x;
    QV_RETURN_NOT_OK(convert_zone(cx, QVG_V_DATETIME, &y, &to, err));
  }
  int64_t months = 0, days = 0;
  int64_t d1 = x.days, n1 = x.nanos;
  if (which == 0 || which == 1) {
    months = months_until(d1, n1, y.days, y.nanos);
    if (which == 1) return qvg_duration_make(cx->arena, months, 0, 0, 0, out, err);
    d1 = add_months(d1, months);
  }
  if (which == 0 || which == 2) {
    days = days_until(d1, n1, y.days, y.nanos);
    if (which == 2) return qvg_duration_make(cx->arena, 0, days, 0, 0, out, err);
    d1 += days;
  }
  /* the rest by instants: offsets can differ across a transition */
  qv_int128 t1 = (qv_int128)d1 * QVG_NS_PER_DAY + n1 - (qv_int128)x.offset * QVG_NS_PER_SEC;
  qv_int128 t2 = (qv_int128)y.days * QVG_NS_PER_DAY + y.nanos - (qv_int128)y.offset * QVG_NS_PER_SEC;
  if (x.zlen && d1 != x.days) { /* the moved start's offset in its zone */
    qvg_val r;
    QV_RETURN_NOT_OK(qvg_datetime_local(cx->arena, d1, n1, x.offset, x.zone, x.zlen, x.offset, &r, err));
    t1 = (qv_int128)r.u.tm->days * QVG_NS_PER_DAY + r.u.tm->nanos - (qv_int128)r.u.tm->offset * QVG_NS_PER_SEC;
  }
  qv_int128 diff = t2 - t1;
  qv_int128 secs = diff / QVG_NS_PER_SEC, ns = diff % QVG_NS_PER_SEC;
  if (secs > INT64_MAX || secs < INT64_MIN) return qvg_overflow(err, "duration.between()");
  return qvg_duration_make(cx->arena, months, days, (int64_t)secs, (int64_t)ns, out, err);
}

/* ---- arithmetic ---------------------------------------------------------------------- */

static qv_status add_duration(qvg_evalctx *cx, const qvg_val *v, const qvg_temporal *d, int sign, qvg_val *out,
                              qv_error *err) {
  parts p = parts_of(v);
  int64_t months = sign * d->months, days = sign * d->days;
  qv_int128 ns = ((qv_int128)d->secs * QVG_NS_PER_SEC + d->nanos) * sign;
  switch (v->t) {
    case QVG_V_DATE: {
      int64_t dd = add_months(p.days, months) + days + (int64_t)(ns / QVG_NS_PER_DAY);
      return make(cx->arena, v->t, dd, 0, NULL, INT32_MIN, out, err);
    }
    case QVG_V_LOCALTIME:
    case QVG_V_TIME: {
      int64_t n = (int64_t)(((qv_int128)p.nanos + ns % QVG_NS_PER_DAY + QVG_NS_PER_DAY) % QVG_NS_PER_DAY);
      return make(cx->arena, v->t, 0, n, &p, p.offset, out, err);
    }
    default: {
      int64_t dd = add_months(p.days, months) + days;
      if (v->t == QVG_V_DATETIME && p.zlen) { /* months and days on the local time line, the rest on the instant */
        qvg_val mid;
        QV_RETURN_NOT_OK(qvg_datetime_local(cx->arena, dd, p.nanos, p.offset, p.zone, p.zlen, p.offset, &mid, err));
        int64_t s, n;
        qvg_datetime_epoch(mid.u.tm, &s, &n);
        qv_int128 t = (qv_int128)s * QVG_NS_PER_SEC + n + ns;
        return qvg_datetime_instant(cx->arena, (int64_t)(t / QVG_NS_PER_SEC) - (t % QVG_NS_PER_SEC < 0),
                                    (int64_t)(t % QVG_NS_PER_SEC + (t % QVG_NS_PER_SEC < 0 ? QVG_NS_PER_SEC : 0)), 0,
                                    p.zone, p.zlen, out, err);
      }
      qv_int128 t = (qv_int128)dd * QVG_NS_PER_DAY + p.nanos + ns;
      qv_int128 q = t / QVG_NS_PER_DAY, r = t % QVG_NS_PER_DAY;
      if (r < 0) r += QVG_NS_PER_DAY, q--;
      if (q > INT64_MAX / 2 || q < INT64_MIN / 2) return qvg_overflow(err, "temporal arithmetic");
      return make(cx->arena, v->t, (int64_t)q, (int64_t)r, &p, p.offset, out, err);
    }
  }
}

qv_status qvg_temporal_arith(qvg_evalctx *cx, int op, const qvg_val *a, const qvg_val *b, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  bool da = a->t == QVG_V_DURATION, db = b->t == QVG_V_DURATION;
  if (da && db && (op == QVG_OP_ADD || op == QVG_OP_SUB)) {
    const qvg_temporal *x = a->u.tm, *y = b->u.tm;
    int s = op == QVG_OP_ADD ? 1 : -1;
    int64_t m, d, sec;
    if (__builtin_add_overflow(x->months, s * y->months, &m) || __builtin_add_overflow(x->days, s * y->days, &d) ||
        __builtin_add_overflow(x->secs, s * y->secs, &sec))
      return qvg_overflow(err, op == QVG_OP_ADD ? "+" : "-");
    return qvg_duration_make(cx->arena, m, d, sec, x->nanos + s * y->nanos, out, err);
  }
  if (db && !da && qvg_is_temporal(a->t) && (op == QVG_OP_ADD || op == QVG_OP_SUB))
    return add_duration(cx, a, b->u.tm, op == QVG_OP_ADD ? 1 : -1, out, err);
  if (da && !db && qvg_is_temporal(b->t) && op == QVG_OP_ADD) return add_duration(cx, b, a->u.tm, 1, out, err);
  const qvg_val *d = da ? a : b, *k = da ? b : a;
  bool num = k->t == QVG_V_INT || k->t == QVG_V_FLOAT;
  if ((da || db) && num && (op == QVG_OP_MUL || (op == QVG_OP_DIV && da))) {
    const qvg_temporal *t = d->u.tm;
    long double f = k->t == QVG_V_INT ? (long double)k->u.i : (long double)k->u.f;
    if (op == QVG_OP_DIV) {
      if (f == 0) return qvg_arg_error(err, "division of a duration by zero");
      f = 1.0L / f;
      if (k->t == QVG_V_INT) { /* exact where it can be: months / 2 keeps its half-month as days */
        return qvg_duration_frac(cx->arena, (long double)t->months / k->u.i, (long double)t->days / k->u.i,
                                 (long double)t->secs / k->u.i, (long double)t->nanos / k->u.i, out, err);
      }
    }
    if (k->t == QVG_V_INT) {
      int64_t m, dd, s, n;
      if (!__builtin_mul_overflow(t->months, k->u.i, &m) && !__builtin_mul_overflow(t->days, k->u.i, &dd) &&
          !__builtin_mul_overflow(t->secs, k->u.i, &s) && !__builtin_mul_overflow(t->nanos, k->u.i, &n))
        return qvg_duration_make(cx->arena, m, dd, s, n, out, err);
      return qvg_overflow(err, "*");
    }
    return qvg_duration_frac(cx->arena, t->months * f, t->days * f, t->secs * f, t->nanos * f, out, err);
  }
  static const char *ops[] = {"+", "-", "*", "/", "%", "^"};
  return qvg_type_error(err, "cannot apply %s to %s and %s", op >= 0 && op <= QVG_OP_POW ? ops[op] : "?", tname(a),
                        tname(b));
}

/* ---- components ------------------------------------------------------------------------ */

static bool key_is(const char *k, int32_t n, const char *name) {
  return (int32_t)strlen(name) == n && strncasecmp(k, name, (size_t)n) == 0;
}

qv_status qvg_temporal_prop(qvg_evalctx *cx, const qvg_val *v, const char *key, int32_t klen, qvg_val *out,
                            qv_error *err) {
  *out = qvg_null();
  const qvg_temporal *t = v->u.tm;
  if (v->t == QVG_V_DURATION) {
    static const char *const names[] = {"years",
                                        "quarters",
                                        "months",
                                        "weeks",
                                        "days",
                                        "hours",
                                        "minutes",
                                        "seconds",
                                        "milliseconds",
                                        "microseconds",
                                        "nanoseconds",
                                        "quartersOfYear",
                                        "monthsOfQuarter",
                                        "monthsOfYear",
                                        "daysOfWeek",
                                        "minutesOfHour",
                                        "secondsOfMinute",
                                        "millisecondsOfSecond",
                                        "microsecondsOfSecond",
                                        "nanosecondsOfSecond"};
    int64_t s = t->secs, ns = t->nanos;
    qv_int128 total = (qv_int128)s * QVG_NS_PER_SEC + ns;
    const int64_t vals[] = {t->months / 12,
                            t->months / 3,
                            t->months,
                            t->days / 7,
                            t->days,
                            s / 3600,
                            s / 60,
                            s,
                            (int64_t)(total / 1000000),
                            (int64_t)(total / 1000),
                            (int64_t)total,
                            t->months % 12 / 3,
                            t->months % 3,
                            t->months % 12,
                            t->days % 7,
                            s / 60 % 60,
                            s % 60,
                            ns / 1000000,
                            ns / 1000,
                            ns};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
      if (key_is(key, klen, names[i])) {
        if (i == 10 && (total > INT64_MAX || total < INT64_MIN)) return qvg_overflow(err, "duration.nanoseconds");
        *out = qvg_int(vals[i]);
        return QV_OK;
      }
    return qvg_arg_error(err, "a Duration has no component `%.*s`", (int)klen, key);
  }
  if (qvg_has_date(v->t)) {
    int64_t y, wy;
    int m, d, w, dw;
    qvg_civil_from_days(t->days, &y, &m, &d);
    qvg_week_date(t->days, &wy, &w, &dw);
    int q = (m - 1) / 3 + 1;
    int64_t r = INT64_MIN;
    if (key_is(key, klen, "year")) r = y;
    else if (key_is(key, klen, "quarter")) r = q;
    else if (key_is(key, klen, "month")) r = m;
    else if (key_is(key, klen, "week")) r = w;
    else if (key_is(key, klen, "weekYear")) r = wy;
    else if (key_is(key, klen, "day")) r = d;
    else if (key_is(key, klen, "ordinalDay")) r = t->days - qvg_days_from_civil(y, 1, 1) + 1;
    else if (key_is(key, klen, "weekDay") || key_is(key, klen, "dayOfWeek")) r = dw;
    else if (key_is(key, klen, "dayOfQuarter")) r = t->days - qvg_days_from_civil(y, (q - 1) * 3 + 1, 1) + 1;
    if (r != INT64_MIN) {
      *out = qvg_int(r);
      return QV_OK;
    }
  }
  if (qvg_has_time(v->t)) {
    int64_t s = t->nanos / QVG_NS_PER_SEC, ns = t->nanos % QVG_NS_PER_SEC, r = INT64_MIN;
    if (key_is(key, klen, "hour")) r = s / 3600;
    else if (key_is(key, klen, "minute")) r = s / 60 % 60;
    else if (key_is(key, klen, "second")) r = s % 60;
    else if (key_is(key, klen, "millisecond")) r = ns / 1000000;
    else if (key_is(key, klen, "microsecond")) r = ns / 1000;
    else if (key_is(key, klen, "nanosecond")) r = ns;
    if (r != INT64_MIN) {
      *out = qvg_int(r);
      return QV_OK;
    }
  }
  if (qvg_has_zone(v->t)) {
    qvb_text tx = {0};
    qv_status st = QV_OK;
    if (key_is(key, klen, "timezone") || key_is(key, klen, "offset")) {
      if (key_is(key, klen, "timezone") && t->zlen > 0) {
        qvb_text_add(&tx, t->zone, (size_t)t->zlen);
      } else {
        int32_t o = t->offset < 0 ? -t->offset : t->offset;
        qvb_text_f(&tx, "%c%02d:%02d", t->offset < 0 ? '-' : '+', (int)(o / 3600), (int)(o / 60 % 60));
        if (o % 60) qvb_text_f(&tx, ":%02d", (int)(o % 60));
        if (t->offset == 0 && key_is(key, klen, "timezone")) {
          tx.n = 0;
          qvb_text_s(&tx, "Z");
        }
      }
      st = tx.oom ? qv_error_nomem(err, "cypher: timezone") : qvg_new_string(cx->arena, tx.p, tx.n, out, err);
      qvb_text_free(&tx);
      return st;
    }
    if (key_is(key, klen, "offsetMinutes")) {
      *out = qvg_int(t->offset / 60);
      return QV_OK;
    }
    if (key_is(key, klen, "offsetSeconds")) {
      *out = qvg_int(t->offset);
      return QV_OK;
    }
  }
  if (v->t == QVG_V_DATETIME) {
    int64_t s, ns;
    qvg_datetime_epoch(t, &s, &ns);
    if (key_is(key, klen, "epochSeconds")) {
      *out = qvg_int(s);
      return QV_OK;
    }
    if (key_is(key, klen, "epochMillis")) {
      *out = qvg_int(s * 1000 + ns / 1000000);
      return QV_OK;
    }
  }
  return qvg_arg_error(err, "a %s has no component `%.*s`", tname(v), (int)klen, key);
}
