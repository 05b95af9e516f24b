/* A dataset's versions: the manifest (its fragments and indices), the open
 * dataset, publishing a version, and the deletion files fragments point
 * to. */
#ifndef QUIVER_STORAGE_MANIFEST_H
#define QUIVER_STORAGE_MANIFEST_H

#include "base/wire.h"

#include "quiver/storage.h"

/* ---- manifest (manifest.c) ------------------------------------------------ */

typedef struct qvs_fragment_meta {
  int64_t id;
  char *data_file; /* "data/<hex>.qvf", relative to the dataset */
  int64_t num_rows;
  char *deletion_file; /* "_deletions/<id>-<version>.del" or NULL */
  int64_t num_deleted;
} qvs_fragment_meta;

typedef struct qvs_index_meta {
  char *name;
  char *column;
  int type;
  int64_t built_version, updated_version;
  int32_t n_files;
  qv_index_file *files; /* paths owned (qv_malloc'd) */
} qvs_index_meta;

/* Manifest format versions: 1 has no indices; 2 lists them.  A manifest
 * without indices is written as 1, so older builds still read it. */
#define QVS_MANIFEST_VERSION_INDICES 2
#define QVS_MAX_INDEX_NAME 64
#define QVS_MAX_INDEX_FILE (INT64_C(1) << 40)

typedef struct qvs_manifest {
  uint32_t format_version;
  int64_t version;
  int64_t timestamp_ms;
  char operation[32];
  qv_schema schema;
  int64_t next_fragment_id;
  int32_t n_fragments;
  qvs_fragment_meta *fragments;
  int32_t n_indices;
  qvs_index_meta *indices;
} qvs_manifest;

void qvs_manifest_init(qvs_manifest *m);
void qvs_manifest_reset(qvs_manifest *m);
qv_status qvs_manifest_encode(const qvs_manifest *m, qv_buffer *out, qv_error *err);
/* Validates everything (checksum, names, counts, schema); name is used in
 * messages. */
qv_status qvs_manifest_decode(const uint8_t *data, int64_t size, const char *name, qvs_manifest *out, qv_error *err);
/* Reads _versions/<version>.manifest of the dataset at path. */
qv_status qvs_manifest_read(const char *path, int64_t version, qvs_manifest *out, qv_error *err);
/* Appends a deep copy of f. */
qv_status qvs_manifest_add_fragment(qvs_manifest *m, const qvs_fragment_meta *f, qv_error *err);
bool qvs_valid_data_file_name(const char *s);
bool qvs_valid_index_file_name(const char *s); /* "_indices/<1..64 hex>.qvi" */
bool qvs_valid_index_name(const char *s);
/* Appends a deep copy of e keeping only the files whose fragment is in m
 * (an entry left without files is still kept: it covers nothing yet). */
qv_status qvs_manifest_add_index(qvs_manifest *m, const qv_index_entry *e, qv_error *err);
/* The index entries of base carried into m (call after m's fragments are
 * in place): what appends and deletes do. */
qv_status qvs_manifest_carry_indices(qvs_manifest *m, const qvs_manifest *base, qv_error *err);
void qvs_index_meta_reset(qvs_index_meta *x);
/* Index entries on disk (manifest_index.c). */
void qvs_put_indices(qvb_wbuf *w, const qvs_manifest *m);
bool qvs_get_indices(qvb_cursor *c, qvs_manifest *m, uint32_t n);
bool qvs_valid_deletion_file_name(const char *s);

/* An open version of a dataset (dataset.c). */
struct qv_dataset {
  char *path;
  qvs_manifest manifest;
};

/* ---- versions and commits (commit.c) ------------------------------------- */

/* Published version numbers of the dataset, ascending (qv_malloc'd; may be
 * NULL with *n == 0).  A missing _versions directory gives zero versions. */
qv_status qvs_list_versions(const char *path, int64_t **out, int64_t *n, qv_error *err);
qv_status qvs_latest_version(const char *path, int64_t *out, qv_error *err); /* 0 when none */
int64_t qvs_now_ms(void); /* wall clock, for a manifest's timestamp */
/* Creates the dataset's directories (those that are missing). */
qv_status qvs_ensure_layout(const char *path, qv_error *err);
/* Publishes m as _versions/<m->version>.manifest: temp file, fsync, link
 * (never replaces), fsync the directory.  QV_ERR_CONFLICT when that version
 * was published by someone else first. */
qv_status qvs_publish_manifest(const char *path, const qvs_manifest *m, qv_error *err);
/* A latest version whose manifest does not read (see commit.c): sets err
 * to code with "<path>: <lead>version <latest> is damaged (<why>)" and the
 * way back, a restore of the newest version that reads. */
qv_status qvs_damaged_latest(const char *path, int64_t latest, const char *lead, qv_status code, const char *why,
                             qv_error *err);
/* Reads version `latest` (the latest), as qvs_manifest_read; when it does
 * not read, the error is qvs_damaged_latest's with the reader's code. */
qv_status qvs_manifest_read_latest(const char *path, int64_t latest, qvs_manifest *out, qv_error *err);

/* ---- deletion files (deletion.c) ----------------------------------------- */

qv_status qvs_deletion_encode(int64_t fragment_id, int64_t num_rows, const uint8_t *bits, int64_t count, qv_buffer *out,
                              qv_error *err);
/* Decodes into a qv_malloc'd bitmap of num_rows bits; checks the fragment id,
 * row count and deleted count against what the manifest says. */
qv_status qvs_deletion_decode(const uint8_t *data, int64_t size, const char *name, int64_t fragment_id,
                              int64_t num_rows, int64_t num_deleted, uint8_t **out_bits, qv_error *err);
qv_status qvs_deletion_load(const char *path, const qvs_fragment_meta *f, uint8_t **out_bits, qv_error *err);

#endif
