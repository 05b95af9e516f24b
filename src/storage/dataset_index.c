/* Index entries of a version: reading them and committing a new list.  The
 * index layer writes the files; this publishes the version naming them,
 * through the same atomic path as every other commit. */
#include <stdio.h>
#include <string.h>

#include "base/wire.h"
#include "storage/format.h"
#include "storage/txn.h"

int32_t qv_dataset_num_indices(const qv_dataset *ds) { return ds->manifest.n_indices; }

void qv_dataset_index(const qv_dataset *ds, int32_t i, qv_index_entry *out) {
  memset(out, 0, sizeof *out);
  if (i < 0 || i >= ds->manifest.n_indices) return;
  const qvs_index_meta *x = &ds->manifest.indices[i];
  out->name = x->name;
  out->column = x->column;
  out->type = x->type;
  out->built_version = x->built_version;
  out->updated_version = x->updated_version;
  out->n_files = x->n_files;
  out->files = x->files;
}

/* The checks the manifest reader will make, made before anything is
 * published, so that a bad entry is an INVALID argument, not a version no
 * one can open. */
static qv_status check_entry(const qvs_manifest *m, const qv_index_entry *e, int32_t i, const qv_index_entry *all,
                             qv_error *err) {
  if (!e->name || !qvs_valid_index_name(e->name))
    return qv_error_set(err, QV_ERR_INVALID, "index name \"%s\" is not 1..%d of [A-Za-z0-9_.-]", e->name ? e->name : "",
                        QVS_MAX_INDEX_NAME);
  for (int32_t k = 0; k < i; k++)
    if (strcmp(all[k].name, e->name) == 0)
      return qv_error_set(err, QV_ERR_INVALID, "index `%s` is listed twice", e->name);
  if (!e->column || qv_schema_find(&m->schema, e->column) < 0)
    return qv_error_set(err, QV_ERR_INVALID, "index `%s`: no column `%s`", e->name, e->column ? e->column : "");
  if (e->type < QV_INDEX_TYPE_MIN || e->type > QV_INDEX_TYPE_MAX)
    return qv_error_set(err, QV_ERR_INVALID, "index `%s`: unknown type %d", e->name, e->type);
  if (e->built_version < 1 || e->updated_version < e->built_version || e->updated_version > m->version)
    return qv_error_set(err, QV_ERR_INVALID, "index `%s`: versions %lld..%lld are not within 1..%lld", e->name,
                        (long long)e->built_version, (long long)e->updated_version, (long long)m->version);
  for (int32_t k = 0; k < e->n_files; k++) {
    const qv_index_file *f = &e->files[k];
    if (!f->path || !qvs_valid_index_file_name(f->path) || f->size < 36 || f->size > QVS_MAX_INDEX_FILE ||
        (k && f->fragment_id <= e->files[k - 1].fragment_id))
      return qv_error_set(err, QV_ERR_INVALID, "index `%s`: file %d is not a valid entry", e->name, k);
  }
  return QV_OK;
}

qv_status qv_dataset_commit_indices(const qv_dataset *ds, const qv_index_entry *indices, int32_t n,
                                    const char *operation, int64_t *out_version, qv_error *err) {
  if (!ds || (n > 0 && !indices) || n < 0 || !operation || strlen(operation) > 31)
    return qv_error_set(err, QV_ERR_INVALID, "commit indices: dataset, indices and an operation name are required");
  qvs_txn t;
  QV_RETURN_NOT_OK(qvs_txn_begin_from(&t, ds, operation, err));
  /* Checked against the version this commit first tries; a rebase only
   * raises the number, which the checks allow. */
  qvs_manifest next;
  qvs_manifest_init(&next);
  next.version = ds->manifest.version + 1;
  qv_status st = qv_schema_copy(&ds->manifest.schema, &next.schema) == QV_OK ? QV_OK : qv_error_nomem(err, NULL);
  for (int32_t i = 0; i < n && st == QV_OK; i++) {
    qv_index_entry e = indices[i];
    if (e.built_version == 0) e.built_version = next.version; /* 0: this commit */
    if (e.updated_version == 0) e.updated_version = next.version;
    st = check_entry(&next, &e, i, indices, err);
  }
  qvs_manifest_reset(&next);
  if (st == QV_OK) st = qvs_txn_set_indices(&t, indices, n, err);
  if (st == QV_OK) st = qvs_txn_commit(&t, out_version, err);
  qvs_txn_reset(&t);
  return st;
}
