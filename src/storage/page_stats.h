/* A page's statistics as the writer computes them and the footer keeps
 * them (min, max, null and NaN counts). */
#ifndef QUIVER_STORAGE_PAGE_STATS_H
#define QUIVER_STORAGE_PAGE_STATS_H

#include "base/wire.h"
#include "storage/format.h"

#include "quiver/columnar.h"

/* ---- statistics values (page_stats.c) ------------------------------------ */

/* A min or max kept without allocation: numbers in the union, strings as a
 * (truncated) prefix. */
typedef struct qvs_stat_value {
  union {
    int64_t i;
    uint64_t u;
    double f;
    bool b;
    struct {
      uint64_t lo;
      int64_t hi;
    } dec;
  } v;
  int32_t len; /* string / binary */
  uint8_t bytes[QVS_STAT_PREFIX + 8];
} qvs_stat_value;

typedef struct qvs_stats {
  int64_t null_count;
  int64_t nan_count;
  bool has_minmax;
  qvs_stat_value min, max;
} qvs_stats;

/* Statistics of rows [start, start+n) of a (offset applied). */
void qvs_stats_compute(const qv_array *a, int64_t start, int64_t n, qvs_stats *out);
bool qvs_type_has_minmax(qv_type_id id);
void qvs_put_stat_value(qvb_wbuf *w, qv_type_id id, const qvs_stat_value *v);
bool qvs_get_stat_value(qvb_cursor *c, qv_type_id id, qvs_stat_value *v);
/* The value as a scalar of the given type (type copied). */
qv_status qvs_stat_to_scalar(const qv_datatype *type, const qvs_stat_value *v, qv_scalar *out);

#endif
