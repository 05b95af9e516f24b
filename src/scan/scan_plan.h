/* The scan plan: what a scan will read and how, decided once when a
 * scanner opens (scan_plan.c), and read by the executor (scanner.c) and
 * explain (explain.c).  Immutable after qvsc_plan_make, so lanes share it. */
#ifndef QUIVER_SCAN_SCAN_PLAN_H
#define QUIVER_SCAN_SCAN_PLAN_H

#include "scan/scan_int.h"

typedef struct qvsc_plan {
  int64_t limit, offset, batch_size;
  bool with_row_id, pushdown;

  qv_schema out_schema;
  int32_t n_proj;
  int32_t *proj; /* dataset column of each projected output column */

  qv_expr *filter;       /* bound against the dataset schema (pruning, explain) */
  qv_expr *filter_local; /* bound against filter_schema (evaluation) */
  qv_schema filter_schema;
  int32_t n_fcols;
  int32_t *fcols; /* dataset columns the filter reads, ascending: decoded first */
  const qv_expr **conjuncts;
  int32_t n_conjuncts;
  /* conjuncts pruned through a non-decreasing function (prune_monotone.c) */
  qvsc_mono_probe *probes;
  int32_t n_probes;
  /* The first conjunct that can fail on a value (qv_eval_may_fail), or
   * NULL.  Polars evaluates a filter on the whole column and raises for a
   * bad value in any row, so then no row is skipped before the filter
   * runs: no page pruning, no index (the evaluator runs such conjuncts on
   * every row too). */
  const qv_expr *may_fail;
  /* scalar indices: the plan (NULL: none in the version, or not used),
   * whether they answer any conjunct, and the conjuncts left once they do */
  bool use_index;
  qvsc_index_plan *iplan;
  bool by_index;
  qvsc_filter_prog refine;
} qvsc_plan;

/* Checks the options and plans a scan of ds with them: the projection, the
 * filter (parsed, bound, checked, split into conjuncts), page pruning and
 * index use.  On failure *p is reset. */
qv_status qvsc_plan_make(const qv_dataset *ds, const qv_scan_options *o, qvsc_plan *p, qv_error *err);
void qvsc_plan_reset(qvsc_plan *p);

/* True when the page's statistics (per dataset column; rows its rows)
 * prove that the filter keeps none of its rows. */
bool qvsc_plan_prunes_page(const qvsc_plan *p, const qv_page_stats *const *stats, int64_t rows);

/* The filter to evaluate over a page range: what the indices left
 * (refine_only, on a fragment they fully cover) or the whole filter, with
 * its narrow schema and the dataset columns it reads.  *expr is NULL when
 * nothing is left to evaluate. */
typedef struct qvsc_plan_filter {
  const qv_expr *expr;
  const qv_schema *schema;
  int32_t n_cols;
  const int32_t *cols;
} qvsc_plan_filter;
qvsc_plan_filter qvsc_plan_filter_for(const qvsc_plan *p, bool refine_only);

/* What explain reads of a scanner (scanner.c). */
const qv_dataset *qvsc_scanner_dataset_(const qv_scanner *s);
const qvsc_plan *qvsc_scanner_plan_(const qv_scanner *s);
/* The scanner's vector search, or NULL (then the plan runs). */
const struct qvsc_nearest *qvsc_scanner_nearest_(const qv_scanner *s);

#endif
