/* Index entries of a version: reading them and committing a new list.  The
 * index layer writes the files; this publishes the version naming them,
 * through the same atomic path as every other commit. */
#include <stdio.h>
#include <string.h>

#include "base/wire.h"
#include "storage/format.h"
#include "storage/manifest.h"

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
  const qvs_manifest *m = &ds->manifest;
  QV_RETURN_NOT_OK(qvs_check_latest(ds->path, m->version, err));
  qvs_manifest next;
  qvs_manifest_init(&next);
  qv_status st = QV_OK;
  next.version = m->version + 1;
  next.timestamp_ms = qvs_now_ms();
  snprintf(next.operation, sizeof next.operation, "%s", operation);
  next.next_fragment_id = m->next_fragment_id;
  if (qv_schema_copy(&m->schema, &next.schema) != QV_OK) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  for (int32_t i = 0; i < m->n_fragments && st == QV_OK; i++)
    st = qvs_manifest_add_fragment(&next, &m->fragments[i], err);
  for (int32_t i = 0; i < n && st == QV_OK; i++) {
    qv_index_entry e = indices[i];
    if (e.built_version == 0) e.built_version = next.version; /* 0: this commit */
    if (e.updated_version == 0) e.updated_version = next.version;
    st = check_entry(&next, &e, i, indices, err);
    if (st == QV_OK) st = qvs_manifest_add_index(&next, &e, err);
  }
  if (st != QV_OK) goto cleanup;
  /* The index files must be durable before a manifest names them. */
  char *dir = qvb_path_join(ds->path, "_indices");
  if (!dir) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  st = qvb_file_fsync_dir(dir, err);
  qv_free(dir);
  if (st != QV_OK) goto cleanup;
  qvs_commit_step("data-written");
  if ((st = qvs_publish_manifest(ds->path, &next, err)) != QV_OK) goto cleanup;
  if (out_version) *out_version = next.version;
cleanup:
  qvs_manifest_reset(&next);
  return st;
}
