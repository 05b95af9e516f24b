/* Vector search inside the scan layer (docs/vector.md): the k rows nearest
 * to each query among those the prefilter (the scan's filter) keeps.
 * nearest.c plans it when a scanner opens (checks, the prefilter scanner,
 * the index choice, the output schema, the postfilter) and hands out the
 * ranked rows; nearest_search.c finds them (flat over the vectors, or
 * through a vector index fragment by fragment) with one bounded top-k
 * heap per worker and query. */
#ifndef QUIVER_SCAN_NEAREST_H
#define QUIVER_SCAN_NEAREST_H

#include "scan/scan_int.h"

typedef struct qvsc_nearest qvsc_nearest;

/* One ranked row: its distance and row id (fragment id << 32 | row). */
typedef struct qvsc_hit {
  float dist;
  uint64_t row;
} qvsc_hit;

/* The total order of hits: distance, then row id, so that the k best are
 * the same whichever worker found them. */
static inline bool qvsc_hit_before(qvsc_hit a, qvsc_hit b) {
  return a.dist < b.dist || (a.dist == b.dist && a.row < b.row);
}

/* A bounded max-heap of the best cap hits seen. */
typedef struct qvsc_topk {
  qvsc_hit *h;
  int64_t n, cap;
} qvsc_topk;

void qvsc_topk_push(qvsc_topk *t, qvsc_hit x);
/* Sorts the heap's hits best first (the heap is spent). */
void qvsc_topk_sort(qvsc_topk *t);

/* What a search is asked and what it found (nearest_search.c). */
typedef struct qvsc_search {
  const qv_dataset *ds;
  int32_t column, dim, n_queries;
  int64_t k;
  qv_metric metric;
  const float *q;     /* n_queries x dim */
  const float *qnorm; /* per query: its norm (cosine) */
  /* the rows the prefilter keeps, sorted (NULL: every live row) */
  const uint64_t *admitted;
  int64_t n_admitted;
  /* a vector index to use (NULL: flat everywhere) and its parameters */
  qv_index *ix;
  bool approx; /* its distances are estimates (IVF_PQ): re-rank */
  int32_t nprobes, refine_factor;
  /* fragments whose admitted rows are fewer than this are searched flat
   * even where the index covers them (the cost rule, see nearest.c) */
  double flat_below_fraction;
  /* results: per query, its hits best first (at most k) */
  qvsc_hit **hits;
  int64_t *n_hits;
  /* counters */
  int64_t distances, fragments_flat, fragments_index, fragments_flat_by_cost, partitions_probed, candidates, refined;
} qvsc_search;

qv_status qvsc_search_run(qvsc_search *s, qv_error *err);
void qvsc_search_reset(qvsc_search *s);

/* ---- the scanner's face (nearest.c) --------------------------------------- */

qv_status qvsc_nearest_open(const qv_dataset *ds, const qv_scan_options *o, qvsc_nearest **out, qv_error *err);
void qvsc_nearest_destroy(qvsc_nearest *n);
const qv_schema *qvsc_nearest_schema(const qvsc_nearest *n);
qv_status qvsc_nearest_next(qvsc_nearest *n, qv_batch **out, qv_error *err);
qv_status qvsc_nearest_count(qvsc_nearest *n, int64_t *out, qv_error *err);
char *qvsc_nearest_explain(const qvsc_nearest *n, bool counters);
void qvsc_nearest_counters(const qvsc_nearest *n, qv_scan_counters *out);

#endif
