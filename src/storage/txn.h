/* The one commit path (txn.c): every writer (write, append, overwrite,
 * delete, merge, compaction, index commits, restore) begins a transaction
 * from the version it read, records its changes, and commits.  Commit
 * publishes read_version + 1; when another writer published that number
 * first, the winner's changes are compared with ours and, when they are
 * compatible, ours are replayed on top of the winner (a rebase) and the
 * next number is tried.  docs/writes.md "Commits and conflicts" lists the
 * rules; they are written out in txn_conflict() below. */
#ifndef QUIVER_STORAGE_TXN_H
#define QUIVER_STORAGE_TXN_H

#include "storage/manifest.h"

/* What a change replaces when it commits. */
typedef enum qvs_txn_kind {
  QVS_TXN_UPDATE = 0, /* fragments added, rows deleted, fragments removed, indices set: rebases */
  QVS_TXN_CREATE,     /* the first version; never rebases (a dataset appeared: conflict) */
  QVS_TXN_OVERWRITE,  /* new schema and fragments; rebases over anything that reads */
  QVS_TXN_RESTORE     /* an older version's contents; never rebases */
} qvs_txn_kind;

/* A fragment whose deletions this transaction changes. */
typedef struct qvs_txn_delete {
  int64_t fragment_id;
  char *deletion_file; /* the new file, relative to the dataset */
  int64_t num_deleted;
  bool drop; /* every row deleted: the fragment leaves the version */
} qvs_txn_delete;

typedef struct qvs_txn {
  char *path;
  int64_t read_version; /* 0: no dataset yet */
  qvs_manifest base;    /* the version read (empty when read_version is 0) */
  qvs_txn_kind kind;
  bool create_or_append; /* CREATE that becomes an append when a dataset appears with the same schema */
  char operation[32];
  qv_schema schema; /* CREATE / OVERWRITE / RESTORE: the new schema */
  int64_t fragment_id_floor;
  qvs_fragment_meta *added; /* new fragments (ids assigned at commit) */
  int32_t n_added, cap_added;
  qvs_fragment_meta *kept; /* RESTORE: the restored fragments, ids kept */
  int32_t n_kept;
  qvs_txn_delete *dels;
  int32_t n_dels, cap_dels;
  int64_t *removed; /* fragment ids removed (compaction) */
  int32_t n_removed, cap_removed;
  bool set_indices; /* indices below replace the list; else the base's are carried */
  qvs_index_meta *indices;
  int32_t n_indices;
  char **written; /* full paths of files this transaction wrote: removed unless committed */
  int32_t n_written, cap_written;
  bool committed;
  bool keep_files; /* the files were written by someone else: never removed on abort */
  bool replay_ok;  /* a winner holding every added data file is this commit, replayed: success */
} qvs_txn;

/* Begins from version `version` of the dataset at path (0 = the latest;
 * when there is no dataset, read_version is 0 and base empty).  A latest
 * version that does not read is refused (qvs_manifest_read_latest). */
qv_status qvs_txn_begin(qvs_txn *t, const char *path, int64_t version, const char *operation, qv_error *err);
/* Begins from an open dataset's manifest (copied). */
qv_status qvs_txn_begin_from(qvs_txn *t, const qv_dataset *ds, const char *operation, qv_error *err);
/* Begins above `latest` without reading it (RESTORE: the way back from a
 * damaged latest version). */
qv_status qvs_txn_begin_blind(qvs_txn *t, const char *path, int64_t latest, const char *operation, qv_error *err);
/* Aborts unless committed: every file the transaction wrote is removed. */
void qvs_txn_reset(qvs_txn *t);

/* CREATE / OVERWRITE / RESTORE with the given schema (copied). */
qv_status qvs_txn_replace(qvs_txn *t, qvs_txn_kind kind, const qv_schema *schema, qv_error *err);
/* A data file this transaction wrote ("data/<hex>.qvf", fsynced): listed
 * as a new fragment, removed if the transaction does not commit. */
qv_status qvs_txn_add_fragment(qvs_txn *t, const char *data_file, int64_t num_rows, qv_error *err);
/* RESTORE: a fragment carried with its id and deletion file. */
qv_status qvs_txn_keep_fragment(qvs_txn *t, const qvs_fragment_meta *f, qv_error *err);
/* Marks rows of base fragment i deleted: bits (num_rows bits) are merged
 * with the fragment's existing deletions and a new deletion file is
 * written now (fsynced; its directory at commit).  Nothing new: no-op. */
qv_status qvs_txn_delete_rows(qvs_txn *t, int32_t fragment, const uint8_t *bits, qv_error *err);
/* Removes base fragment `id` from the new version (compaction). */
qv_status qvs_txn_remove_fragment(qvs_txn *t, int64_t id, qv_error *err);
/* The new version's complete index list (copied; built/updated version 0
 * = the version this commit creates; checked as the manifest will be). */
qv_status qvs_txn_set_indices(qvs_txn *t, const qv_index_entry *entries, int32_t n, qv_error *err);
/* Whether the transaction changes anything. */
bool qvs_txn_empty(const qvs_txn *t);
/* Publishes the new version (rebasing as the rules allow); *out_version
 * (nullable) receives its number.  QV_ERR_CONFLICT names the winning
 * version and why it conflicts. */
qv_status qvs_txn_commit(qvs_txn *t, int64_t *out_version, qv_error *err);

/* Deep copy of a manifest (used by begin_from and by tests). */
qv_status qvs_manifest_copy(const qvs_manifest *src, qvs_manifest *dst, qv_error *err);

#endif
