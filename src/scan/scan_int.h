/* Internals shared by the scan layer's files. */
#ifndef QUIVER_SCAN_SCAN_INT_H
#define QUIVER_SCAN_SCAN_INT_H

#include "quiver/index_bitmap.h"
#include "quiver/scan.h"

/* Three-way order of two non-null scalars of comparable types: integers of
 * any width and signedness, floats (total order, zeros as given), strings
 * and binary (bytewise), bool, and temporal/decimal values of identical
 * type.  Returns false when the pair cannot be ordered. */
bool qvsc_scalar_order(const qv_scalar *a, const qv_scalar *b, int *out);

/* True when statistics prove that no row of a page satisfies the bound
 * conjunct: the page can be skipped.  stats[c] are the page's statistics of
 * dataset column c; row_count its rows.  Conservative: false whenever the
 * conjunct's shape or types are not understood. */
bool qvsc_prune_page(const qv_expr *conjunct, const qv_page_stats *const *stats, int64_t row_count);

/* Whether qvsc_prune_page (or a monotone probe) can ever prune with this
 * conjunct (for explain). */
bool qvsc_prune_applicable(const qv_expr *conjunct);

/* True when `x op v` is false or null for every x in [lo, hi] (non-null,
 * ordered scalars; op a comparison). */
bool qvsc_interval_excludes(qv_op op, const qv_scalar *lo, const qv_scalar *hi, const qv_scalar *v);

/* ---- pruning through non-decreasing functions (prune_monotone.c) ---------- */

/* A top-level conjunct `f(column) op literal` or `f(column) BETWEEN a AND
 * b` whose f never decreases (dt.year, dt.date, dt.truncate, dt.epoch,
 * date_part('year'), date_trunc): f of a page's min and max bounds it on
 * the page.  Immutable once made, so lanes share it. */
typedef struct qvsc_mono_probe {
  int32_t column;              /* dataset column */
  qv_expr *fn;                 /* the f side, cloned, reading column 0 of schema */
  qv_schema schema;            /* that column alone */
  qv_op op;                    /* f(column) op lit, or QV_OP_BETWEEN lit AND lit2 */
  const qv_scalar *lit, *lit2; /* in the conjunct, which outlives the probe */
} qvsc_mono_probe;

/* The probes of the conjuncts that have that shape (bound against ds). */
qv_status qvsc_mono_probes_make(const qv_expr *const *conjuncts, int32_t n, const qv_schema *ds, qvsc_mono_probe **out,
                                int32_t *n_out, qv_error *err);
void qvsc_mono_probes_free(qvsc_mono_probe *p, int32_t n);
/* True when the page (statistics per dataset column, rows) holds no row
 * the probe's conjunct keeps; false when unsure (f fails or is null). */
bool qvsc_mono_prune(const qvsc_mono_probe *p, const qv_page_stats *const *stats, int64_t rows);
/* Whether a probe would be made for this conjunct. */
bool qvsc_mono_applicable(const qv_expr *conjunct);

/* ---- scalar indices (index_plan.c) ---------------------------------------- */

/* A conjunct expected to keep more than this fraction of the rows its
 * indices cover is scanned instead (see index_plan.c). */
#define QV_INDEX_MAX_FRACTION 0.05
/* ... nor one whose lookup reads more index entries than this fraction of
 * those rows, unless it reads few (see pays() in index_plan.c). */
#define QV_INDEX_MAX_READ 0.25
#define QV_INDEX_SMALL_READ 65536

typedef struct qvsc_index_use {
  bool candidate; /* some index (or combination) can answer the conjunct */
  bool used;      /* ... and the estimate says it pays */
  bool exact;
  int64_t estimate;     /* rows */
  int64_t covered_rows; /* rows of the fragments its indices cover */
  int64_t entries_read; /* index entries the lookup reads (estimated) */
  char how[256];        /* "cat_idx (bitmap)", "union(a (btree), b (bitmap))" */
} qvsc_index_use;

typedef struct qvsc_index_plan qvsc_index_plan;

/* Plans index use for the conjuncts (bound against ds's schema); *out is
 * NULL when ds has no index.  Opens the indices (their footers). */
qv_status qvsc_index_plan_make(const qv_dataset *ds, const qv_expr *const *conjuncts, int32_t n, qvsc_index_plan **out,
                               qv_error *err);
void qvsc_index_plan_destroy(qvsc_index_plan *p);
const qvsc_index_use *qvsc_index_plan_use(const qvsc_index_plan *p, int32_t conjunct);
bool qvsc_index_plan_any(const qvsc_index_plan *p);
/* The rows of fragment frag the used indices keep (intersected) into rows;
 * *active false when no used index covers the fragment; *full true when
 * every used one does (only the refine conjuncts remain to evaluate). */
qv_status qvsc_index_plan_fragment(const qvsc_index_plan *p, int64_t frag, roaring_bitmap_t *rows, bool *active,
                                   bool *full, qv_error *err);

/* Adds the index files found damaged so far (per index) to out's
 * index_fallback fields. */
void qvsc_index_plan_damage(const qvsc_index_plan *p, qv_scan_counters *out);

/* Bytes and chunks read from the plan's index files so far. */
void qvsc_index_plan_io(const qvsc_index_plan *p, qv_io_counters *out);

/* ---- filter programs (refine.c) ------------------------------------------- */

/* A filter over a narrow batch: the conjuncts' AND, its columns renumbered
 * to the batch of the dataset columns cols (ascending). */
typedef struct qvsc_filter_prog {
  qv_expr *expr; /* NULL: nothing to evaluate (every row passes) */
  qv_schema schema;
  int32_t n_cols;
  int32_t *cols;
} qvsc_filter_prog;

qv_status qvsc_filter_prog_build(const qv_schema *ds, const qv_expr *const *conjuncts, int32_t n, qvsc_filter_prog *out,
                                 qv_error *err);
/* The columns e reads, ascending, in a new array *out_cols (qv_free; at
 * least one element's room even when *out_n is 0).  A filter reading
 * more than 1,024 columns is QV_ERR_UNSUPPORTED. */
qv_status qvsc_filter_columns(const qv_expr *e, int32_t **out_cols, int32_t *out_n, qv_error *err);
void qvsc_filter_prog_reset(qvsc_filter_prog *p);

#endif
