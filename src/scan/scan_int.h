/* Internals shared by the scan layer's files. */
#ifndef QUIVER_SCAN_INT_H
#define QUIVER_SCAN_INT_H

#include "quiver/scan.h"

/* Three-way order of two non-null scalars of comparable types: integers of
 * any width and signedness, floats (total order, zeros as given), strings
 * and binary (bytewise), bool, and temporal/decimal values of identical
 * type.  Returns false when the pair cannot be ordered. */
bool qv_scalar_order(const qv_scalar *a, const qv_scalar *b, int *out);

/* True when statistics prove that no row of a page satisfies the bound
 * conjunct: the page can be skipped.  stats[c] are the page's statistics of
 * dataset column c; row_count its rows.  Conservative: false whenever the
 * conjunct's shape or types are not understood. */
bool qv_prune_page(const qv_expr *conjunct, const qv_page_stats *const *stats, int64_t row_count);

/* Whether qv_prune_page can ever prune with this conjunct (for explain). */
bool qv_prune_applicable(const qv_expr *conjunct);

/* What explain needs to see of a scanner's plan (pointers into it). */
typedef struct qv_scan_plan_view {
  int32_t n_proj;
  const int32_t *proj;
  int32_t n_fcols;
  const int32_t *fcols;
  const qv_expr *const *conjuncts;
  int32_t n_conjuncts;
  int64_t limit, offset, batch_size;
  bool pushdown, with_row_id;
} qv_scan_plan_view;

const qv_dataset *qv_scanner_dataset_(const qv_scanner *s);
const qv_expr *qv_scanner_filter_(const qv_scanner *s);
void qv_scanner_plan_(const qv_scanner *s, qv_scan_plan_view *v);

#endif
