/* quiver scan layer: planning and running a scan of a dataset — projection,
 * filter, limit/offset, page pruning from statistics, filter-first
 * evaluation, late materialization of projected columns, bounded streaming,
 * and the counters explain prints.  Parses no text itself: a filter string
 * goes through the expr layer's front end. */
#ifndef QUIVER_SCAN_H
#define QUIVER_SCAN_H

#include "quiver/base.h"
#include "quiver/columnar.h"
#include "quiver/compute.h"
#include "quiver/expr.h"
#include "quiver/storage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A vector search: the k rows nearest to each query vector (docs/vector.md).
 * The column is fixed_size_list<float32, dim>.  With it on the scan
 * options, the scan's filter is the prefilter: the k rows are chosen among
 * the rows it keeps (it runs first, with the scalar indices and page
 * statistics; it is evaluated by quiver itself, so exactly).  The result
 * is the projection plus `_distance` (float32; `_query` int32 first when
 * n_queries > 1), ordered by query then distance then row id; postfilter
 * (Lance SQL over the result's columns) then drops ranked rows, so fewer
 * than k may remain.  limit and offset apply to the ranked rows. */
typedef struct qv_scan_nearest {
  const char *column;
  const float *q;    /* n_queries x dim values, row by row (copied at open) */
  int32_t dim;       /* must be the column's */
  int32_t n_queries; /* >= 1 */
  int64_t k;         /* 1 .. the version's live rows */
  qv_metric metric;
  bool use_index;        /* a vector index on the column when there is one (false: flat) */
  int32_t nprobes;       /* IVF partitions probed per query (default 20) */
  int32_t refine_factor; /* IVF_PQ: refine_factor * k candidates re-ranked by exact distance (default 10; 0: none) */
  int32_t ef;            /* HNSW search breadth (reserved) */
  const char *postfilter;
} qv_scan_nearest;

#define QV_SCAN_NEAREST_INIT \
  { NULL, NULL, 0, 1, 10, QV_METRIC_L2, true, 20, 10, 64, NULL }

typedef struct qv_scan_options {
  int version;                /* QV_SCAN_OPTIONS_VERSION */
  const char *const *columns; /* projection by name; NULL = every column */
  int32_t n_columns;
  const char *filter;         /* Lance SQL filter text, or NULL */
  const qv_expr *filter_expr; /* or an unbound expression (copied); not both */
  int64_t limit;              /* -1 = no limit */
  int64_t offset;             /* rows to skip after filtering */
  int64_t batch_size;         /* rows per output batch (default 8192) */
  bool with_row_id;           /* append `_rowid` uint64: fragment id << 32 | row */
  /* On: prune pages by statistics, evaluate the filter first and decode the
   * projected columns only for surviving rows.  Off: decode every needed
   * column in full and filter afterwards, as an engine handed all rows
   * would (kept for measurement and as a cross-check). */
  bool predicate_pushdown;
  /* On (with pushdown): conjuncts the dataset's scalar indices answer are
   * looked up there when the estimate says it pays (explain shows which). */
  bool use_scalar_index;
  int64_t dataset_version; /* 0 = latest */
  /* (version 2) On (the default): every batch but the last holds exactly
   * batch_size rows, so the pieces page ranges leave after filtering are
   * joined, which copies their values.  Off: batches are those pieces as
   * they come (at most batch_size rows each), for a consumer that takes
   * its table in chunks anyway, such as Polars; only pieces of fewer than
   * batch_size / 16 rows (a selective filter's few rows per page) are
   * joined with the pieces next to them, up to batch_size rows.
   * Options of version 1 (without this field) keep exact batches. */
  bool exact_batches;
  /* (version 3) A vector search (copied at open), or NULL. */
  const qv_scan_nearest *nearest;
} qv_scan_options;

#define QV_SCAN_OPTIONS_VERSION 3
#define QV_SCAN_OPTIONS_INIT \
  { QV_SCAN_OPTIONS_VERSION, NULL, 0, NULL, NULL, -1, 0, 8192, false, true, true, 0, true, NULL }

/* What a scan did, for explain --analyze and the benchmarks. */
typedef struct qv_scan_column_counters {
  char name[64];
  int64_t bytes_read;    /* bytes read from the data files */
  int64_t bytes_decoded; /* bytes of decoded values produced */
  int64_t pages_read;
} qv_scan_column_counters;

/* An index whose files a scan could not read (damaged, cut short, missing,
 * a newer format).  The scan did not fail: an index is derived data, so
 * the fragments of those files were filtered in full from the data files,
 * as fragments appended after the index was built are.  Repair with
 * qv_index_rebuild (or drop and create the index). */
typedef struct qv_scan_index_fallback {
  char index[64];    /* the index's name */
  int64_t fragments; /* its files (one per fragment) found unusable */
  char error[512];   /* the first one's error: "FILE: offset N: what" */
} qv_scan_index_fallback;

#define QV_SCAN_MAX_INDEX_FALLBACKS 8

typedef struct qv_scan_counters {
  int64_t fragments;     /* opened and read (see fragments_index_skipped) */
  int64_t pages_total;   /* page ranges considered */
  int64_t pages_pruned;  /* skipped by statistics */
  int64_t rows_scanned;  /* rows whose filter columns were evaluated */
  int64_t rows_selected; /* rows that passed the filter (before offset/limit) */
  int64_t rows_returned;
  int32_t n_columns;
  qv_scan_column_counters columns[64]; /* per dataset column, first 64 */
  int64_t index_rows;                  /* rows the scalar indices kept (before deletes) */
  int64_t pages_index_skipped;         /* page ranges with no row the indices kept */
  int64_t index_bytes_read;            /* from index files (footers not counted) */
  /* Added after the fields above (which keep their offsets): index files
   * found unusable, over every index, and which indices they belong to
   * (the first QV_SCAN_MAX_INDEX_FALLBACKS).  0 and 0 when all were read. */
  int64_t index_fallback_fragments;
  int32_t n_index_fallbacks;
  qv_scan_index_fallback index_fallbacks[QV_SCAN_MAX_INDEX_FALLBACKS];
  /* Added last: fragments not even opened, the indices keeping no row of
   * them (`fragments` counts the ones read) */
  int64_t fragments_index_skipped;
  /* Added last: a vector search's work (0 without one).  prefilter rows:
   * the rows the prefilter kept (-1: no prefilter) */
  int64_t nearest_prefilter_rows;
  int64_t nearest_distances;
  int64_t nearest_partitions_probed;
  int64_t nearest_candidates; /* rows the index scored */
  int64_t nearest_refined;    /* IVF_PQ candidates re-ranked by exact distance */
  int64_t nearest_fragments_index, nearest_fragments_flat;
} qv_scan_counters;

typedef struct qv_scanner qv_scanner;

/* Opens a scan of the dataset at path.  Parses and binds the filter; errors
 * (bad filter, unknown column, version) are reported here, before any data
 * is read. */
QV_API qv_status qv_scanner_open(const char *path, const qv_scan_options *opts, qv_scanner **out, qv_error *err);
/* The same over an already open dataset (not owned; must outlive the scanner). */
QV_API qv_status qv_scanner_open_dataset(const qv_dataset *ds, const qv_scan_options *opts, qv_scanner **out,
                                         qv_error *err);
QV_API void qv_scanner_destroy(qv_scanner *s); /* NULL-safe */

/* Output schema (projection, plus _rowid when asked).  An empty projection
 * (columns non-NULL, n_columns 0) is allowed: batches then have no
 * columns, only num_rows. */
QV_API const qv_schema *qv_scanner_schema(const qv_scanner *s);
/* Next batch (caller releases) or NULL at the end. */
QV_API qv_status qv_scanner_next(qv_scanner *s, qv_batch **out, qv_error *err);
QV_API void qv_scanner_counters(const qv_scanner *s, qv_scan_counters *out);
/* The plan as indented text (qv_malloc'd; qv_free).  With counters = true,
 * the counters gathered so far are appended. */
QV_API char *qv_scanner_explain(const qv_scanner *s, bool counters);
/* Counts the rows the scan has still to return (after filter, offset and
 * limit) into *out_count, without materializing any projected column, and
 * ends the scan (qv_scanner_next returns NULL after it).  With a filter
 * only the filter's columns are read (and not even those where an exact
 * index answers); without one the count is the manifest's row counts less
 * its deleted rows, and no data file is opened (the counters' `fragments`
 * stay 0).  Rows of batches already pending count too, so a count after
 * some qv_scanner_next calls gives the rest.  Errors are those of
 * qv_scanner_next (a damaged file, a cast that fails on a row). */
QV_API qv_status qv_scanner_count(qv_scanner *s, int64_t *out_count, qv_error *err);
/* The scanner as a batch reader (takes ownership of s). */
QV_API qv_status qv_scanner_reader(qv_scanner *s, qv_batch_reader **out, qv_error *err);

/* Deletes the rows matching a Lance SQL filter from the latest version by
 * committing deletion files.  *deleted (nullable) gets the row count,
 * *new_version (nullable) the version (unchanged when nothing matched). */
QV_API qv_status qv_dataset_delete_where(const char *path, const char *filter, int64_t *deleted, int64_t *new_version,
                                         qv_error *err);
/* The same for an expression (unbound; copied), e.g. from qv_polars_parse
 * or qv_polars_from_json: the rows it keeps as a filter, evaluated with
 * the semantics it was built with, are deleted. */
QV_API qv_status qv_dataset_delete_matching(const char *path, const qv_expr *filter, int64_t *deleted,
                                            int64_t *new_version, qv_error *err);

#ifdef __cplusplus
}
#endif
#endif
