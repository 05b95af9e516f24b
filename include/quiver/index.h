/* quiver index layer: scalar indices over a dataset column (docs/ARCHITECTURE.md,
 * decision 7).  An index is one file per covered fragment under _indices/,
 * recorded in the manifest and versioned with the dataset.
 *
 *   BTREE       sorted (value, row) pages plus a page lookup: = != < <= > >=
 *               BETWEEN IN IS [NOT] NULL starts_with LIKE 'prefix%' (exact)
 *   BITMAP      a roaring bitmap of rows per distinct value: = != IN IS [NOT]
 *               NULL (exact); ranges and prefixes too, costed per value
 *   NGRAM       trigram posting lists: contains, LIKE '%abc%', regexes with a
 *               literal run of >= 3 bytes (a superset to re-check)
 *   LABEL_LIST  a bitmap per list element value: array_has, array_has_any,
 *               array_has_all (exact)
 *   IVF_FLAT    vector index on fixed_size_list<float32, N>: k-means
 *               partitions of the vectors (docs/vector.md); a search probes
 *               the partitions nearest the query
 *   IVF_PQ      the same partitions holding product-quantized codes: distances
 *               are estimates, re-ranked by the scan (refine_factor)
 *
 * On float columns BTREE and BITMAP answer under Lance's total order, the
 * IEEE (SQL) order and Polars' (NaN greatest, -0.0 == 0.0) alike, each with
 * its own key ranges; a NaN literal is left to the scan.
 *
 * Row ids are fragment id << 32 | row; a query answers one fragment at a
 * time with a roaring bitmap of its rows (quiver/index_bitmap.h).  An index never decides whether it
 * is used: the scan layer asks qv_index_estimate and chooses. */
#ifndef QUIVER_INDEX_H
#define QUIVER_INDEX_H

#include "quiver/base.h"
#include "quiver/columnar.h"
#include "quiver/compute.h"
#include "quiver/expr.h"
#include "quiver/storage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum qv_index_type {
  QV_INDEX_BTREE = 1,
  QV_INDEX_BITMAP = 2,
  QV_INDEX_NGRAM = 3,
  QV_INDEX_LABEL_LIST = 4,
  QV_INDEX_IVF_FLAT = 5,
  QV_INDEX_IVF_PQ = 6
} qv_index_type;

/* "btree", "bitmap", "ngram", "label_list", "ivf_flat", "ivf_pq"
 * ("unknown" otherwise). */
QV_API const char *qv_index_type_name(int type);
/* Parses those names; false when s is none of them. */
QV_API bool qv_index_type_parse(const char *s, qv_index_type *out);

typedef struct qv_index_options {
  int version;             /* QV_INDEX_OPTIONS_VERSION */
  const char *name;        /* NULL: "<column>_idx" */
  int64_t btree_page_rows; /* entries per BTREE page (default 4096) */
  /* (version 2) vector kinds; 0 means the default */
  qv_metric metric;        /* the metric searches use (default l2) */
  int32_t num_partitions;  /* IVF partitions (default sqrt(rows), 1..65536) */
  int32_t num_sub_vectors; /* IVF_PQ sub-vectors, dividing the dimension (default dim / 8) */
  int64_t sample_rows;     /* k-means sample (default 256 per partition) */
  int32_t max_iterations;  /* k-means rounds (default 10) */
  uint64_t seed;           /* of the sample and the initial centroids (default 42) */
} qv_index_options;

#define QV_INDEX_OPTIONS_VERSION 2
#define QV_INDEX_OPTIONS_INIT \
  { QV_INDEX_OPTIONS_VERSION, NULL, 4096, QV_METRIC_L2, 0, 0, 0, 0, 0 }

/* Builds an index of `type` on `column` over every fragment of the latest
 * version and commits it as a new version (*out_version, nullable).
 * QV_ERR_EXISTS: the name is taken; QV_ERR_TYPE: the column's type cannot
 * have this index; QV_ERR_CONFLICT: another writer committed first.  On
 * any error nothing is published and the files written are removed. */
QV_API qv_status qv_index_create(const char *path, const char *column, qv_index_type type, const qv_index_options *opts,
                                 int64_t *out_version, qv_error *err);
/* Commits a version without the index `name` (QV_ERR_NOT_FOUND if absent).
 * Its files stay: older versions still use them. */
QV_API qv_status qv_index_drop(const char *path, const char *name, int64_t *out_version, qv_error *err);
/* Builds files for the fragments the index (NULL: every index) does not
 * cover yet, such as appended ones, and commits.  *out_version (nullable)
 * is 0 when every index already covered every fragment (nothing committed). */
QV_API qv_status qv_index_optimize(const char *path, const char *name, int64_t *out_version, qv_error *err);

/* ---- reading ----------------------------------------------------------- */

typedef struct qv_index qv_index;

/* Opens index entry i of ds (see qv_dataset_num_indices).  Files are opened
 * lazily, when a fragment is first asked about.  ds must outlive it. */
QV_API qv_status qv_index_open(const qv_dataset *ds, int32_t i, qv_index **out, qv_error *err);
QV_API void qv_index_close(qv_index *ix); /* NULL-safe */

QV_API const char *qv_index_name(const qv_index *ix);
QV_API qv_index_type qv_index_kind(const qv_index *ix);
QV_API int32_t qv_index_column(const qv_index *ix); /* dataset column index */
QV_API bool qv_index_covers(const qv_index *ix, int64_t fragment_id);

/* Statistics kept with the index, summed over its files. */
typedef struct qv_index_stats {
  int64_t fragments;  /* covered */
  int64_t rows;       /* rows of the covered fragments (deleted ones included) */
  int64_t null_count; /* rows whose value is null */
  int64_t entries;    /* BTREE: (value, row) entries; others: posting entries */
  int64_t distinct;   /* distinct keys (values, trigrams, labels), summed per file */
  int64_t bytes;      /* file bytes */
} qv_index_stats;

QV_API qv_status qv_index_stats_get(qv_index *ix, qv_index_stats *out, qv_error *err);

typedef enum qv_index_answer {
  QV_INDEX_NO = 0,  /* this index cannot answer the conjunct */
  QV_INDEX_EXACT,   /* the rows returned are exactly the matching ones */
  QV_INDEX_SUPERSET /* every matching row is returned; re-check them */
} qv_index_answer;

typedef struct qv_index_estimate {
  qv_index_answer answer;
  int64_t rows;         /* estimated rows returned over the covered fragments */
  int64_t covered_rows; /* rows of the covered fragments */
  int64_t entries_read; /* index entries the lookup reads: every entry of the BTREE
                         * pages its ranges touch, the posting lists it reads */
} qv_index_estimate;

/* Whether the index can answer a conjunct (bound against the dataset's
 * schema) and how many rows it would return, from its statistics alone
 * (the page lookup, value counts; no posting list or page is read). */
QV_API qv_status qv_index_estimate_rows(qv_index *ix, const qv_expr *conjunct, qv_index_estimate *out, qv_error *err);

/* ---- vector search ----------------------------------------------------- */

/* What a vector index is: its metric, dimension, partitions, PQ layout. */
typedef struct qv_index_vector_info {
  qv_metric metric;
  int32_t dim;
  int32_t num_partitions;
  int32_t num_sub_vectors; /* 0 for IVF_FLAT */
} qv_index_vector_info;

/* QV_ERR_INVALID when ix is not a vector index; reads a file's footer. */
QV_API qv_status qv_index_vector_info_get(qv_index *ix, qv_index_vector_info *out, qv_error *err);

typedef struct qv_index_search_args {
  const float *q; /* n_queries x dim */
  int32_t dim;
  int32_t n_queries;
  qv_metric metric;    /* must be the index's */
  int32_t nprobes;     /* partitions probed per query (clamped to 1..partitions) */
  int64_t k;           /* candidates per query at most */
  const uint8_t *skip; /* a bit per fragment row, 1: never a candidate (deleted, filtered out); or NULL */
} qv_index_search_args;

typedef struct qv_index_candidate {
  float distance; /* exact (IVF_FLAT) or estimated (IVF_PQ) */
  uint32_t row;   /* within the fragment */
} qv_index_candidate;

typedef struct qv_index_search_stats {
  int64_t partitions_probed; /* summed over queries */
  int64_t candidates;        /* rows scored */
  int64_t distances;         /* distance computations (centroids included) */
} qv_index_search_stats;

/* The best a->k candidates of fragment fragment_id for each query, best
 * first: query q's are out[q * k .. q * k + n_out[q]).  stats (nullable)
 * are added to.  QV_ERR_INVALID when the index does not cover the
 * fragment, is not a vector index, or a->metric or a->dim are not its;
 * QV_ERR_CORRUPT (recorded as damage) when a file is damaged. */
QV_API qv_status qv_index_search(qv_index *ix, int64_t fragment_id, const qv_index_search_args *a,
                                 qv_index_candidate *out, int64_t *n_out, qv_index_search_stats *stats, qv_error *err);

/* The rows a conjunct keeps, fragment by fragment, come back as a roaring
 * bitmap: qv_index_query in quiver/index_bitmap.h, the one header of the
 * layer that needs CRoaring's. */

/* ---- damaged files -------------------------------------------------------
 *
 * An index is derived data: every row is still in the data files.  A file
 * that cannot be read (damaged, cut short, missing, a newer format) need
 * not make the dataset unreadable: a reader that can do without the index
 * (the scanner) treats its fragment as not covered and filters it in full.
 * Every call that reads a file records such a failure on the handle; from
 * then on the file is not read again and calls on its fragment fail with
 * the first error. */

/* Whether st, from reading an index file, means the file is unusable
 * (QV_ERR_CORRUPT, QV_ERR_IO, QV_ERR_NOT_FOUND, QV_ERR_UNSUPPORTED) rather
 * than a failure of the machine (QV_ERR_NOMEM) or of the caller. */
QV_API bool qv_index_damage_status(qv_status st);
/* Tolerant (off by default): qv_index_estimate_rows and qv_index_stats_get
 * leave damaged files out, as fragments the index does not cover, instead
 * of failing.  qv_index_query still fails on a damaged file's fragment. */
QV_API void qv_index_set_tolerant(qv_index *ix, bool on);
/* Files found damaged so far and the first one's error ("FILE: offset N:
 * what"; NULL when none; valid until qv_index_close). */
QV_API int32_t qv_index_damaged(const qv_index *ix, const char **first_error);
/* Whether the file of fragment_id was found damaged. */
QV_API bool qv_index_fragment_damaged(const qv_index *ix, int64_t fragment_id);
/* Opens every file and reads every chunk, checking its CRC32C; damage is
 * recorded (see qv_index_damaged), not returned: *damaged (nullable) gets
 * the count.  Fails only for other errors (QV_ERR_NOMEM). */
QV_API qv_status qv_index_verify(qv_index *ix, int32_t *damaged, qv_error *err);
/* Rewrites, from the data files, the files of index `name` (NULL: every
 * index) that qv_index_verify finds damaged, and commits.  *rebuilt
 * (nullable) gets the count of files rewritten; *out_version (nullable)
 * is 0 when nothing was damaged (nothing committed).  The damaged files
 * stay: older versions still name them. */
QV_API qv_status qv_index_rebuild(const char *path, const char *name, int32_t *rebuilt, int64_t *out_version,
                                  qv_error *err);

/* Chunks (pages, posting lists, dictionaries, null rows) and bytes read
 * from the index's files so far, over every open file. */
QV_API void qv_index_counters(const qv_index *ix, qv_io_counters *out);

#ifdef __cplusplus
}
#endif
#endif
