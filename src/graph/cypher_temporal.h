/* Cypher's temporal values (DATE, LOCALTIME, TIME, LOCALDATETIME,
 * DATETIME, DURATION), internal to the graph layer: the proleptic
 * Gregorian calendar and ISO weeks, time zones from the system's tz
 * database, ISO 8601 text both ways, and what the evaluator does with
 * them (constructors, truncation, durations between, arithmetic,
 * components).  Semantics follow openCypher's temporal CIP as the TCK
 * tests it (expressions/temporal), which are those of java.time. */
#ifndef QUIVER_GRAPH_CYPHER_TEMPORAL_H
#define QUIVER_GRAPH_CYPHER_TEMPORAL_H

#include "graph/cypher_value.h"

#define QVG_NS_PER_SEC INT64_C(1000000000)
#define QVG_NS_PER_DAY INT64_C(86400000000000)
/* java.time's LocalDate range: years -999999999 .. 999999999 */
#define QVG_YEAR_MAX INT64_C(999999999)
/* the longest offset a zone may have, in seconds (java.time's 18 hours) */
#define QVG_OFFSET_MAX (18 * 3600)

static inline bool qvg_is_temporal(int t) { return t >= QVG_V_DATE && t <= QVG_V_DURATION; }
static inline bool qvg_has_date(int t) { return t == QVG_V_DATE || t == QVG_V_LOCALDATETIME || t == QVG_V_DATETIME; }
static inline bool qvg_has_time(int t) {
  return t == QVG_V_LOCALTIME || t == QVG_V_TIME || t == QVG_V_LOCALDATETIME || t == QVG_V_DATETIME;
}
static inline bool qvg_has_zone(int t) { return t == QVG_V_TIME || t == QVG_V_DATETIME; }

/* ---- calendar ---- */

int64_t qvg_days_from_civil(int64_t y, int m, int d);
void qvg_civil_from_days(int64_t days, int64_t *y, int *m, int *d);
int qvg_month_days(int64_t y, int m);
int qvg_weekday(int64_t days); /* 1 Monday .. 7 Sunday */
/* The ISO week date of a day: week-based year, week 1..53, day of week 1..7. */
void qvg_week_date(int64_t days, int64_t *wyear, int *week, int *dow);
/* Monday of ISO week 1 of week-based year wy. */
int64_t qvg_week1_monday(int64_t wy);
static inline int64_t qvg_floordiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
static inline int64_t qvg_floormod(int64_t a, int64_t b) { return a - qvg_floordiv(a, b) * b; }

/* ---- zones ---- */

/* Whether zone names a zone of the system tz database; QV_ERR_INVALID
 * ("cypher: invalid argument: unknown time zone 'X'") when not. */
qv_status qvg_zone_check(const char *zone, int32_t zlen, qv_error *err);
/* The zone's offset (seconds east of UTC) at an instant (seconds since the epoch, UTC). */
qv_status qvg_zone_offset_at(const char *zone, int32_t zlen, int64_t utc_secs, int32_t *off, qv_error *err);
/* The offset of local time local_secs (days * 86400 + seconds of day) in
 * zone, as java.time resolves it: in an overlap the earlier offset (or
 * prefer when it is one of the two), in a gap the offset after it with
 * the local time moved later by the gap's length (*shift seconds). */
qv_status qvg_zone_resolve(const char *zone, int32_t zlen, int64_t local_secs, int32_t prefer, int32_t *off,
                           int64_t *shift, qv_error *err);

/* ---- values ---- */

/* A zeroed payload of kind t in a, out made to point at it; NULL on OOM. */
qvg_temporal *qvg_temporal_new(qvg_arena *a, int t, qvg_val *out);
/* A DATETIME from its local fields and a zone (zlen > 0: named, the
 * offset is resolved and the local time moved out of a gap; prefer: an
 * offset to keep when it is valid, or INT32_MIN), copying the zone name into a. */
qv_status qvg_datetime_local(qvg_arena *a, int64_t days, int64_t nanos, int32_t offset, const char *zone, int32_t zlen,
                             int32_t prefer, qvg_val *out, qv_error *err);
/* A DATETIME at an instant (seconds since the epoch and nanoseconds) in a zone. */
qv_status qvg_datetime_instant(qvg_arena *a, int64_t secs, int64_t nanos, int32_t offset, const char *zone,
                               int32_t zlen, qvg_val *out, qv_error *err);
/* A DURATION from months, days, seconds and nanoseconds (any sign, nanoseconds carried into seconds). */
qv_status qvg_duration_make(qvg_arena *a, int64_t months, int64_t days, int64_t secs, int64_t nanos, qvg_val *out,
                            qv_error *err);
/* A DURATION from fractional amounts, java.time's way: the fraction of a
 * month is 30.436875 days, of a day 86400 seconds, of a second nanoseconds. */
qv_status qvg_duration_frac(qvg_arena *a, long double months, long double days, long double secs, long double nanos,
                            qvg_val *out, qv_error *err);

/* A DATETIME's instant: seconds since the epoch (UTC) and nanoseconds of the second. */
void qvg_datetime_epoch(const qvg_temporal *t, int64_t *secs, int64_t *nanos);

/* ---- text ---- */

/* The ISO text of a temporal value, as toString gives it ("2015-07-21",
 * "12:31:14.645876123+01:00", "P1Y2M10DT12H45M30.5S",
 * "1984-10-11T12:31+01:00[Europe/Stockholm]"). */
void qvg_temporal_text(const qvg_val *v, qvb_text *out);
/* Parses ISO 8601 text as a value of kind t (the forms java.time and the
 * TCK accept: 2015-07-21, 20150721, 2015-W30-2, 2015-202, 21:40:32.142,
 * 214032-0100, ...T...+01:00[Europe/Stockholm], P1Y2M.5DT3H, P2012-02-02T14:37:21.545).
 * Text that does not parse is QV_ERR_INVALID. */
qv_status qvg_temporal_parse(int t, const char *s, int32_t n, qvg_arena *a, qvg_val *out, qv_error *err);
/* A time zone's text: "Z", "+01:00", "-0130", "+01", "+02:05:59" (an
 * offset: *zlen 0) or a zone name (checked; *zone points into s). */
qv_status qvg_parse_zone(const char *s, int32_t n, int32_t *offset, const char **zone, int32_t *zlen, qv_error *err);

/* ---- comparison (cypher_order.c) ---- */

/* Same-kind temporal values: -1 / 0 / 1 by Cypher's comparison (TIME and
 * DATETIME by instant), or 2 when they are not comparable (durations). */
int qvg_temporal_compare(const qvg_val *a, const qvg_val *b);
/* Same kind: the total order of ORDER BY (instant, then offset, then zone). */
int qvg_temporal_order(const qvg_val *a, const qvg_val *b);
bool qvg_temporal_equal(const qvg_val *a, const qvg_val *b);

#endif
