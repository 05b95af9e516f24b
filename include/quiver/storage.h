/* quiver storage layer: the on-disk dataset (docs/ARCHITECTURE.md, decision 4).
 *
 *   DATASET/_versions/<n>.manifest   schema, fragments, deletion files, indices
 *   DATASET/data/<uuid>.qvf          one file per fragment: every column as pages
 *   DATASET/_deletions/<...>.del     deleted row offsets of one fragment
 *   DATASET/_indices/                scalar indices (index layer)
 *
 * Commits write new files, then publish a manifest atomically (temp file,
 * fsync, rename, fsync directory).  Every page, manifest and footer carries
 * CRC32C checksums; every offset and length read from disk is validated
 * before use.  Knows nothing about SQL. */
#ifndef QUIVER_STORAGE_H
#define QUIVER_STORAGE_H

#include "quiver/base.h"
#include "quiver/columnar.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QV_FORMAT_VERSION 1

typedef enum qv_compression {
  QV_COMPRESSION_AUTO = 0, /* lz4 (zstd where it saves another 1/4 of the page) if that saves 1/4, else raw */
  QV_COMPRESSION_NONE,
  QV_COMPRESSION_ZSTD,
  QV_COMPRESSION_LZ4
} qv_compression;

typedef enum qv_write_mode {
  QV_WRITE_CREATE = 0, /* fails with QV_ERR_EXISTS if the dataset exists */
  QV_WRITE_APPEND,     /* adds fragments; creates when absent */
  QV_WRITE_OVERWRITE   /* a new version with only the new data */
} qv_write_mode;

typedef struct qv_write_options {
  int version; /* QV_WRITE_OPTIONS_VERSION */
  qv_write_mode mode;
  int64_t page_rows;         /* rows per page (default 8192) */
  int64_t max_rows_per_file; /* rows per fragment (default 1048576) */
  qv_compression compression;
  int compression_level; /* 0 = library default */
  bool dictionary;       /* dictionary-encode low-cardinality strings (default true) */
  /* Called after each batch with the rows written so far; may be NULL. */
  void (*progress)(void *ctx, int64_t rows_done);
  void *progress_ctx;
  /* Version 2: a data file is finished once it holds this many bytes
   * (checked after each page, so a file ends within one page of it; 0 =
   * no limit, files cut by max_rows_per_file only). */
  int64_t max_bytes_per_file;
} qv_write_options;

#define QV_WRITE_OPTIONS_VERSION 2
#define QV_WRITE_OPTIONS_INIT \
  { QV_WRITE_OPTIONS_VERSION, QV_WRITE_CREATE, 8192, 1048576, QV_COMPRESSION_AUTO, 0, true, NULL, NULL, 0 }

/* Writes every batch of reader as a new version of the dataset at path
 * (mode as in opts; opts NULL = defaults).  The reader is read to its end,
 * not destroyed (the caller still owns it).  All or nothing: on any error
 * no version is published and files already written for it are removed.
 * QV_ERR_EXISTS: CREATE where a dataset is; QV_ERR_TYPE: APPEND with
 * another schema; QV_ERR_CONFLICT: another writer's version conflicts
 * (an append after a concurrent overwrite; a create after a concurrent
 * create); compatible concurrent commits (appends, deletes) are rebased
 * over (docs/writes.md "Commits and conflicts").  *out_version (nullable) receives the new
 * version number. */
QV_API qv_status qv_dataset_write(const char *path, qv_batch_reader *reader, const qv_write_options *opts,
                                  int64_t *out_version, qv_error *err);

/* qv_dataset_write from an Arrow C stream (takes ownership of stream,
 * released also on failure).  Batches are read one at a time and written
 * as they come: memory does not grow with the stream's length (the queued
 * rows are less than one page beyond the batch being written; measured in
 * docs/writes.md "Streaming writes"). */
QV_API qv_status qv_dataset_write_stream(const char *path, struct ArrowArrayStream *stream,
                                         const qv_write_options *opts, int64_t *out_version, qv_error *err);

/* Whether qv_dataset_write accepts schema (it checks it the same way, before
 * it reads a batch or creates anything, prefixing its message "write: "): at
 * least one column, types the format holds, and no two columns, nor two
 * fields of one struct, with the same name (compared byte for byte; names
 * differing in case are distinct).  The message names the columns by their
 * 1-based positions: "column 3 `a` has the same name as column 1", "field 2
 * `s.x` has the same name as field 1 of struct `s`"; callers prefix their
 * source.  QV_ERR_INVALID (names, no columns) or QV_ERR_UNSUPPORTED (a type);
 * QV_ERR_NOMEM. */
QV_API qv_status qv_dataset_check_schema(const qv_schema *schema, qv_error *err);

typedef struct qv_dataset qv_dataset;

/* Opens version `version` (0 = latest).  A latest version whose manifest
 * does not read is an error (the reader's code), never a silent fallback
 * to an older one: its message names the version and the way back
 * ("... restore an earlier one with 'quiver restore DS --version N'"). */
QV_API qv_status qv_dataset_open(const char *path, int64_t version, qv_dataset **out, qv_error *err);
QV_API void qv_dataset_close(qv_dataset *ds); /* NULL-safe */

QV_API const char *qv_dataset_path(const qv_dataset *ds);
QV_API int64_t qv_dataset_version(const qv_dataset *ds);
QV_API const qv_schema *qv_dataset_schema(const qv_dataset *ds);
QV_API int64_t qv_dataset_count_rows(const qv_dataset *ds); /* excluding deleted rows */
QV_API int32_t qv_dataset_num_fragments(const qv_dataset *ds);

typedef struct qv_version_info {
  int64_t version;
  int64_t timestamp_ms; /* commit time, ms since the epoch */
  int64_t num_rows;     /* live rows */
  int32_t num_fragments;
  char operation[32]; /* "create", "append", "overwrite", "delete", "restore", "index-add", ... */
} qv_version_info;

/* All versions, oldest first; *out is qv_malloc'd (qv_free).  Fails on the
 * first manifest that does not read (qv_dataset_list_versions lists it). */
QV_API qv_status qv_dataset_versions(const char *path, qv_version_info **out, int64_t *count, qv_error *err);

typedef enum qv_version_state {
  QV_VERSION_OK = 0,     /* its manifest reads and passes every check */
  QV_VERSION_DAMAGED = 1 /* it does not: unreadable, truncated, bad magic, checksum mismatch, ... */
} qv_version_state;

typedef struct qv_version_entry {
  qv_version_info info;   /* info.version always; the other fields only when ok (zero otherwise) */
  qv_version_state state; /* QV_VERSION_OK or QV_VERSION_DAMAGED */
  qv_status error;        /* QV_OK, or the reader's code (QV_ERR_CORRUPT, QV_ERR_IO, QV_ERR_UNSUPPORTED, ...) */
  char message[1024];     /* "", or the reader's message ("_versions/7.manifest: checksum mismatch ...") */
} qv_version_entry;

/* Every version, oldest first, each with its state: a manifest that does
 * not read is an entry (QV_VERSION_DAMAGED, with the reader's message),
 * not a failure.  *out is qv_malloc'd (qv_free).  QV_ERR_NOT_FOUND when
 * there is no version at all; QV_ERR_IO when _versions cannot be listed;
 * QV_ERR_NOMEM. */
QV_API qv_status qv_dataset_list_versions(const char *path, qv_version_entry **out, int64_t *count, qv_error *err);

/* Commits a new version (the latest + 1, operation "restore") whose
 * contents are version `version`'s: its schema, fragments, deletion files
 * and indices, the files shared (nothing is copied or rewritten).  History
 * is kept: no manifest is replaced or removed, a damaged latest one
 * included, so this is the way back from a damaged latest version (every
 * other commit refuses while the latest is damaged).  Before committing it
 * opens each fragment (data file footer and deletion file checked against
 * the manifest).  QV_ERR_INVALID: version < 1; QV_ERR_NOT_FOUND: no such
 * version; the reader's code (QV_ERR_CORRUPT, ...) when version itself or
 * one of its files is damaged; QV_ERR_CONFLICT: another writer published
 * the new version number first (retry).  *out_version (nullable) receives
 * the new version number. */
QV_API qv_status qv_dataset_restore(const char *path, int64_t version, int64_t *out_version, qv_error *err);

/* ---- merge (upsert) -------------------------------------------------- */

typedef enum qv_merge_matched {
  QV_MERGE_UPDATE = 0,     /* a matched target row is replaced by its source row (update_columns: only those) */
  QV_MERGE_DO_NOTHING = 1, /* matched target rows stay as they are */
  QV_MERGE_DELETE = 2      /* matched target rows are deleted */
} qv_merge_matched;

typedef struct qv_merge_options {
  int version;           /* QV_MERGE_OPTIONS_VERSION */
  const char *const *on; /* key columns (1..64), present in the dataset and the source */
  int32_t n_on;
  qv_merge_matched when_matched;     /* default QV_MERGE_UPDATE */
  const char *const *update_columns; /* QV_MERGE_UPDATE: the columns taken from the source (0 = all) */
  int32_t n_update_columns;
  bool insert_not_matched;           /* source rows matching no target row are inserted (default true) */
  bool delete_not_matched_by_source; /* target rows matching no source row are deleted (default false) */
  qv_write_options write;            /* page and file sizes of the new fragments (mode is ignored) */
} qv_merge_options;

#define QV_MERGE_OPTIONS_VERSION 1
#define QV_MERGE_OPTIONS_INIT \
  { QV_MERGE_OPTIONS_VERSION, NULL, 0, QV_MERGE_UPDATE, NULL, 0, true, false, QV_WRITE_OPTIONS_INIT }

typedef struct qv_merge_result {
  int64_t version;  /* the version committed (the latest one when nothing changed) */
  int64_t inserted; /* source rows inserted */
  int64_t updated;  /* target rows replaced */
  int64_t deleted;  /* target rows deleted (matched, or not matched by the source) */
} qv_merge_result;

/* Merges (upserts) source into the dataset at path on the key columns
 * opts->on, as one new version (operation "merge"): a target row whose key
 * equals a source row's is matched; matched rows are updated (marked in
 * a deletion file, their replacement written to a new fragment), kept or
 * deleted per when_matched; unmatched source rows are inserted; unmatched
 * target rows are optionally deleted.  A key with a null in any of its
 * columns matches nothing (it is inserted).  The source must have the
 * dataset's schema; it is read whole (its keys are hashed in memory), the
 * target fragment by fragment (key columns only, plus the rows an update
 * of some columns keeps).  Nothing changes: no version is committed.
 * QV_ERR_INVALID: two source rows with the same non-null key (the message
 * names the rows and the key: "merge: source rows 2 and 5 have the same
 * key (id=7)"); QV_ERR_NOT_FOUND: no dataset, no such key or update
 * column; QV_ERR_TYPE: the source's schema differs; QV_ERR_CONFLICT: a
 * concurrent commit replaced the contents or changed the deletions of a
 * fragment this merge changes (docs/writes.md).  *out (nullable) gets the
 * counts and the version. */
QV_API qv_status qv_dataset_merge(const char *path, qv_batch_reader *source, const qv_merge_options *opts,
                                  qv_merge_result *out, qv_error *err);

/* ---- fragments written elsewhere (distributed writers) ----------------- */

/* Writes the reader's rows as data files of the dataset at path (its
 * directories created when missing) without committing anything; *out
 * (qv_malloc'd, qv_free) gets a small text value describing them, the
 * "fragment set": the schema and each data file with its rows.  Sets from
 * any number of writers are committed together by
 * qv_dataset_commit_fragments.  Files never committed are orphans that
 * qv_dataset_cleanup removes.  On error no file is left. */
QV_API qv_status qv_dataset_write_fragments(const char *path, qv_batch_reader *reader, const qv_write_options *opts,
                                            char **out, qv_error *err);
/* Commits the fragments of sets[0..n) (from qv_dataset_write_fragments,
 * on this machine or another writing to the same directory) as one new
 * version: QV_WRITE_APPEND adds them (creating the dataset when absent),
 * QV_WRITE_OVERWRITE replaces the contents, QV_WRITE_CREATE requires no
 * dataset.  Each set is checked (its lines, names and counts) and each
 * data file's footer against it before anything is published.  Commits of
 * other writers in between are rebased over (docs/writes.md).  Idempotent:
 * when the latest version (or a concurrent winner) already holds every
 * data file of the sets, nothing is committed and *out_version is that
 * version.  A failed commit leaves the files (retry, or cleanup).
 * QV_ERR_INVALID: a malformed set; QV_ERR_TYPE: schemas differ; the
 * reader's code when a file does not match. */
QV_API qv_status qv_dataset_commit_fragments(const char *path, const char *const *sets, int32_t n, qv_write_mode mode,
                                             int64_t *out_version, qv_error *err);
/* Opens version `version` (0 = latest) with only the fragments whose ids
 * are ids[0..n) (in the version's order; its indices kept for them): a
 * scanner over it (qv_scanner_open_dataset) reads just those fragments,
 * with the same pushdown and indices.  QV_ERR_NOT_FOUND names an id the
 * version lacks. */
QV_API qv_status qv_dataset_open_fragments(const char *path, int64_t version, const int64_t *ids, int32_t n,
                                           qv_dataset **out, qv_error *err);

/* ---- maintenance: compaction, cleanup, tags ---------------------------- */

typedef struct qv_compact_options {
  int version; /* QV_COMPACT_OPTIONS_VERSION */
  int64_t
      target_rows_per_file; /* rows per new data file; fragments with fewer than half this many live rows are small */
  double max_deleted_fraction; /* fragments with more of their rows deleted are rewritten (0..1) */
  qv_write_options write;      /* page size, compression of the new files (mode, max_rows_per_file ignored) */
} qv_compact_options;

#define QV_COMPACT_OPTIONS_VERSION 1
#define QV_COMPACT_OPTIONS_INIT \
  { QV_COMPACT_OPTIONS_VERSION, 1048576, 0.1, QV_WRITE_OPTIONS_INIT }

typedef struct qv_compact_result {
  int64_t version;           /* the version committed (the latest when nothing was worth rewriting) */
  int32_t fragments_removed; /* fragments rewritten */
  int32_t fragments_added;   /* data files written */
  int64_t rows_rewritten;    /* live rows copied */
  int64_t rows_dropped;      /* deleted rows no longer stored */
} qv_compact_result;

/* Rewrites the small and the deletion-heavy fragments of the latest
 * version into new data files of target_rows_per_file rows, as one new
 * version (operation "compact"); a lone small fragment without deletions
 * is left alone.  Every live row is kept (the rewritten ones move after
 * the untouched fragments); deleted rows are dropped.  Index files of the
 * rewritten fragments are dropped with them, so an index never points at
 * a file that is gone: the new fragments are scanned in full until the
 * indices are optimized (qv_index_optimize; quiver optimize does both).
 * QV_ERR_NOT_FOUND: no dataset; QV_ERR_CONFLICT: a concurrent commit
 * replaced the contents or changed a rewritten fragment.  *out nullable. */
QV_API qv_status qv_dataset_compact(const char *path, const qv_compact_options *opts, qv_compact_result *out,
                                    qv_error *err);

typedef struct qv_cleanup_options {
  int version;             /* QV_CLEANUP_OPTIONS_VERSION */
  int64_t older_than_ms;   /* versions committed longer ago are removed; < 0: age removes none (default 7 days) */
  int64_t keep_versions;   /* > 0: versions older than the newest keep_versions are removed too (default 0) */
  int64_t orphan_grace_ms; /* files no version names are removed once this old (default 1 hour) */
  bool dry_run;            /* count what would go, remove nothing */
} qv_cleanup_options;

#define QV_CLEANUP_OPTIONS_VERSION 1
#define QV_CLEANUP_OPTIONS_INIT \
  { QV_CLEANUP_OPTIONS_VERSION, INT64_C(7) * 24 * 3600 * 1000, 0, INT64_C(3600) * 1000, false }

typedef struct qv_cleanup_result {
  int64_t versions_removed;
  int64_t files_removed;   /* data, deletion, index and temp files */
  int64_t orphans_removed; /* of those, the ones no version named */
  int64_t bytes_removed;
  bool files_kept_for_damaged; /* a kept version does not read: no file was removed */
} qv_cleanup_result;

/* Removes old versions (by age or count, as opts says) and the files only
 * they name, and orphaned files (named by no version: left by a writer
 * that crashed or lost a conflict) older than orphan_grace_ms.  Never
 * removes the latest version, a tagged one (qv_dataset_tag) or a damaged
 * one, nor a file a kept version names; when a kept version is damaged no
 * file is removed (what it names is unknown).  Manifests go first, so a
 * cleanup killed part way leaves files that the next one removes.  Only
 * names of the shapes quiver writes are touched.  A restore of a version
 * being removed, running at the same time, can lose its files: do not run
 * the two together.  *out nullable. */
QV_API qv_status qv_dataset_cleanup(const char *path, const qv_cleanup_options *opts, qv_cleanup_result *out,
                                    qv_error *err);

typedef struct qv_tag {
  char name[65]; /* 1..64 of [A-Za-z0-9_.-] */
  int64_t version;
} qv_tag;

/* Names version `version` (which must read) `name`: _tags/<name>.tag.
 * Cleanup keeps tagged versions.  QV_ERR_EXISTS: the tag exists (untag
 * first); QV_ERR_NOT_FOUND: no such version; QV_ERR_INVALID: a bad name. */
QV_API qv_status qv_dataset_tag(const char *path, const char *name, int64_t version, qv_error *err);
/* Removes a tag (the version stays).  QV_ERR_NOT_FOUND: no such tag. */
QV_API qv_status qv_dataset_untag(const char *path, const char *name, qv_error *err);
/* Every tag, by name; *out qv_malloc'd (qv_free), NULL with *n 0 when none. */
QV_API qv_status qv_dataset_tags(const char *path, qv_tag **out, int64_t *n, qv_error *err);

/* ---- fragments, pages, statistics (what the scanner reads) ----------- */

typedef struct qv_fragment_info {
  int64_t id;
  int64_t num_rows; /* physical rows in the data file */
  int64_t num_deleted;
  const char *path; /* data file, relative to the dataset */
} qv_fragment_info;

QV_API void qv_dataset_fragment(const qv_dataset *ds, int32_t i, qv_fragment_info *out);

/* Statistics of one page of one column.  min/max are null scalars when
 * unknown (all values null, or a type without order). */
typedef struct qv_page_stats {
  int64_t null_count;
  int64_t nan_count;
  qv_scalar min;
  qv_scalar max;
} qv_page_stats;

typedef struct qv_page_info {
  int64_t row_start; /* first row of the page within the fragment */
  int64_t row_count;
  int64_t byte_size; /* stored (compressed) size */
  int encoding;      /* internal code, for explain */
  int compression;   /* qv_compression */
  const qv_page_stats *stats;
} qv_page_info;

typedef struct qv_fragment_reader qv_fragment_reader;

/* Opens fragment i of ds (checked against the manifest: schema, rows,
 * deletion file); it does not refer to ds afterwards.  A reader keeps per-column
 * state (the last decoded page, scratch, counters): use one per thread. */
QV_API qv_status qv_fragment_open(const qv_dataset *ds, int32_t fragment, qv_fragment_reader **out, qv_error *err);
QV_API void qv_fragment_close(qv_fragment_reader *r); /* NULL-safe */
/* A second reader of r's fragment, for another thread: it shares r's
 * parsed footer and descriptor and copies its deletions, so nothing is
 * read again (a footer is 0.1-1% of its file and is checked on open); its
 * own per-column state starts empty.  Either may be closed first. */
QV_API qv_status qv_fragment_open_shared(const qv_fragment_reader *r, qv_fragment_reader **out, qv_error *err);

QV_API int64_t qv_fragment_num_rows(const qv_fragment_reader *r);
QV_API int32_t qv_fragment_num_pages(const qv_fragment_reader *r, int32_t column);
QV_API void qv_fragment_page(const qv_fragment_reader *r, int32_t column, int32_t page, qv_page_info *out);
/* Encoding codes of qv_page_info.encoding (stable: they are on disk). */
enum {
  QV_ENCODING_PLAIN = 0,       /* fixed width as is, bool as bits, strings as offsets + bytes, nested */
  QV_ENCODING_DICTIONARY = 1,  /* strings: distinct values + bit-packed indices */
  QV_ENCODING_BITPACK_FOR = 2, /* integers / temporal: reference + bit-packed deltas */
  QV_ENCODING_FSST = 3         /* strings: each value compressed alone with a symbol table (FSST) */
};
/* Name of an encoding code ("plain", "dictionary", "bitpack-for", "fsst";
 * "unknown" for anything else). */
QV_API const char *qv_encoding_name(int encoding);

/* Decodes rows [row_start, row_start+row_count) of a top-level column. */
QV_API qv_status qv_fragment_read(qv_fragment_reader *r, int32_t column, int64_t row_start, int64_t row_count,
                                  qv_array **out, qv_error *err);
/* As qv_fragment_read, but when [row_start, row_start + row_count) is
 * exactly one page and that page is dictionary-encoded, the rows come back
 * as a dictionary array (int32 indices into the page's distinct values, of
 * the column's type): the evaluator then compares each distinct value once
 * (QV_TYPE_DICTIONARY; qv_array_dictionary_decode gives the plain rows). */
QV_API qv_status qv_fragment_read_encoded(qv_fragment_reader *r, int32_t column, int64_t row_start, int64_t row_count,
                                          qv_array **out, qv_error *err);
/* Decodes only rows[0..n) (sorted, fragment-relative) of a column, reading
 * and decoding no more than those rows need where the encoding allows. */
QV_API qv_status qv_fragment_take(qv_fragment_reader *r, int32_t column, const int64_t *rows, int64_t n, qv_array **out,
                                  qv_error *err);
/* As qv_fragment_take, for the rows base + sel[k] (k < n): a selection
 * vector (qv_selection) evaluated on the rows from base on, sorted.  A
 * scanner takes a page's selected rows this way with base the page's first
 * row: the selection is used as it is, not copied or widened. */
QV_API qv_status qv_fragment_take_selection(qv_fragment_reader *r, int32_t column, int64_t base, const uint32_t *sel,
                                            int64_t n, qv_array **out, qv_error *err);

/* Deleted rows of the fragment as a bitmap of num_rows bits (1 = deleted),
 * or NULL when none are deleted.  Owned by the reader. */
QV_API const uint8_t *qv_fragment_deleted(const qv_fragment_reader *r);

/* Per-reader I/O counters, for explain --analyze. */
typedef struct qv_io_counters {
  int64_t bytes_read;
  int64_t bytes_decoded;
  int64_t pages_read;
} qv_io_counters;
QV_API void qv_fragment_counters(const qv_fragment_reader *r, int32_t column, qv_io_counters *out);

/* ---- indices recorded in the manifest ----------------------------------
 *
 * The index layer builds the files; storage records them, versions them
 * with the dataset and checks their names, sizes and fragments.  An index
 * covers the fragments it has a file for; the others are scanned. */

/* Index type codes as stored in manifests (index.h names them). */
enum { QV_INDEX_TYPE_MIN = 1, QV_INDEX_TYPE_MAX = 6 };

typedef struct qv_index_file {
  int64_t fragment_id; /* the one fragment the file covers */
  const char *path;    /* "_indices/<hex>.qvi", relative to the dataset */
  int64_t size;        /* bytes of the file */
  uint32_t footer_crc; /* the CRC32C of the file's footer: pins the exact file */
} qv_index_file;

typedef struct qv_index_entry {
  const char *name;        /* 1..64 of [A-Za-z0-9_.-], unique in a version */
  const char *column;      /* a top-level column of the schema */
  int type;                /* QV_INDEX_TYPE_MIN..MAX */
  int64_t built_version;   /* dataset version the index was created at */
  int64_t updated_version; /* version of its last change (create or optimize) */
  int32_t n_files;
  const qv_index_file *files; /* fragment ids strictly increasing */
} qv_index_entry;

QV_API int32_t qv_dataset_num_indices(const qv_dataset *ds);
/* Entry i (pointers into ds, valid while it is open); zeroed when out of range. */
QV_API void qv_dataset_index(const qv_dataset *ds, int32_t i, qv_index_entry *out);
/* Commits a new version with the fragments of ds (or of the versions
 * committed after it) and `indices` as its complete index list (copied; their files must already be written and fsynced
 * under _indices/).  operation is the version's operation name (<= 31
 * bytes).  A built_version or updated_version of 0 means the version this
 * commit creates.  QV_ERR_CONFLICT when a version committed after ds changed
 * the index list (other changes are rebased over); QV_ERR_INVALID
 * when an entry would not pass the manifest's checks. */
QV_API qv_status qv_dataset_commit_indices(const qv_dataset *ds, const qv_index_entry *indices, int32_t n,
                                           const char *operation, int64_t *out_version, qv_error *err);

/* ---- deletes --------------------------------------------------------- */

/* Commits a new version marking rows deleted.  deleted[i] is a bitmap of
 * fragment i's rows (NULL = no new deletes there); merged with existing
 * deletions.  ds may be an older version: commits since are rebased over
 * unless one of them replaced the contents, removed one of these
 * fragments or changed its deletions (QV_ERR_CONFLICT naming it; retry).
 * A fragment left with no live row is not part of the new version. */
QV_API qv_status qv_dataset_delete_rows(qv_dataset *ds, const uint8_t *const *deleted, int64_t *out_version,
                                        qv_error *err);

#ifdef __cplusplus
}
#endif
#endif
