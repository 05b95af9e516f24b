/* Opening a version of a dataset and answering questions about it from its
 * manifest alone (no data file is touched until a fragment is opened). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "storage/manifest.h"

qv_status qv_dataset_open(const char *path, int64_t version, qv_dataset **out, qv_error *err) {
  *out = NULL;
  if (!path) return qv_error_set(err, QV_ERR_INVALID, "dataset path is NULL");
  if (version < 0) return qv_error_set(err, QV_ERR_INVALID, "%s: version %lld is negative", path, (long long)version);
  bool latest = version == 0;
  if (latest) {
    QV_RETURN_NOT_OK(qvs_latest_version(path, &version, err));
    if (version == 0) return qv_error_set(err, QV_ERR_NOT_FOUND, "%s: no dataset here (no _versions/*.manifest)", path);
  }
  qv_dataset *ds = qv_calloc(1, sizeof *ds);
  if (!ds) return qv_error_nomem(err, NULL);
  qvs_manifest_init(&ds->manifest);
  ds->path = qv_strdup(path);
  if (!ds->path) {
    qv_free(ds);
    return qv_error_nomem(err, NULL);
  }
  qv_status st = latest ? qvs_manifest_read_latest(path, version, &ds->manifest, err)
                        : qvs_manifest_read(path, version, &ds->manifest, err);
  if (st != QV_OK) {
    qv_dataset_close(ds);
    return st;
  }
  *out = ds;
  return QV_OK;
}

void qv_dataset_close(qv_dataset *ds) {
  if (!ds) return;
  qvs_manifest_reset(&ds->manifest);
  qv_free(ds->path);
  qv_free(ds);
}

const char *qv_dataset_path(const qv_dataset *ds) { return ds->path; }
int64_t qv_dataset_version(const qv_dataset *ds) { return ds->manifest.version; }
const qv_schema *qv_dataset_schema(const qv_dataset *ds) { return &ds->manifest.schema; }
int32_t qv_dataset_num_fragments(const qv_dataset *ds) { return ds->manifest.n_fragments; }

static int64_t live_rows(const qvs_manifest *m) {
  int64_t n = 0;
  for (int32_t i = 0; i < m->n_fragments; i++) n += m->fragments[i].num_rows - m->fragments[i].num_deleted;
  return n;
}

int64_t qv_dataset_count_rows(const qv_dataset *ds) { return live_rows(&ds->manifest); }

void qv_dataset_fragment(const qv_dataset *ds, int32_t i, qv_fragment_info *out) {
  memset(out, 0, sizeof *out);
  if (i < 0 || i >= ds->manifest.n_fragments) return;
  const qvs_fragment_meta *f = &ds->manifest.fragments[i];
  out->id = f->id;
  out->num_rows = f->num_rows;
  out->num_deleted = f->num_deleted;
  out->path = f->data_file;
}

qv_status qv_dataset_versions(const char *path, qv_version_info **out, int64_t *count, qv_error *err) {
  *out = NULL;
  *count = 0;
  int64_t *v = NULL, n = 0;
  QV_RETURN_NOT_OK(qvs_list_versions(path, &v, &n, err));
  if (n == 0) return qv_error_set(err, QV_ERR_NOT_FOUND, "%s: no dataset here (no _versions/*.manifest)", path);
  qv_version_info *info = qv_calloc((size_t)n, sizeof *info);
  if (!info) {
    qv_free(v);
    return qv_error_nomem(err, NULL);
  }
  for (int64_t i = 0; i < n; i++) {
    qvs_manifest m;
    qv_status st = qvs_manifest_read(path, v[i], &m, err);
    if (st != QV_OK) {
      qv_free(v);
      qv_free(info);
      return st;
    }
    info[i].version = m.version;
    info[i].timestamp_ms = m.timestamp_ms;
    info[i].num_rows = live_rows(&m);
    info[i].num_fragments = m.n_fragments;
    snprintf(info[i].operation, sizeof info[i].operation, "%s", m.operation);
    qvs_manifest_reset(&m);
  }
  qv_free(v);
  *out = info;
  *count = n;
  return QV_OK;
}

qv_status qv_dataset_list_versions(const char *path, qv_version_entry **out, int64_t *count, qv_error *err) {
  *out = NULL;
  *count = 0;
  if (!path) return qv_error_set(err, QV_ERR_INVALID, "dataset path is NULL");
  int64_t *v = NULL, n = 0;
  QV_RETURN_NOT_OK(qvs_list_versions(path, &v, &n, err));
  if (n == 0) return qv_error_set(err, QV_ERR_NOT_FOUND, "%s: no dataset here (no _versions/*.manifest)", path);
  qv_version_entry *list = qv_calloc((size_t)n, sizeof *list);
  if (!list) {
    qv_free(v);
    return qv_error_nomem(err, NULL);
  }
  for (int64_t i = 0; i < n; i++) {
    qv_version_entry *e = &list[i];
    qvs_manifest m;
    qv_error why = {0};
    qv_status st = qvs_manifest_read(path, v[i], &m, &why);
    e->info.version = v[i];
    if (st == QV_ERR_NOMEM) {
      qv_free(v);
      qv_free(list);
      return qv_error_nomem(err, NULL);
    }
    if (st != QV_OK) {
      /* A damaged version is what this call reports, not a failure of it. */
      e->state = QV_VERSION_DAMAGED;
      e->error = st;
      snprintf(e->message, sizeof e->message, "%s", why.message);
      continue;
    }
    e->info.timestamp_ms = m.timestamp_ms;
    e->info.num_rows = live_rows(&m);
    e->info.num_fragments = m.n_fragments;
    snprintf(e->info.operation, sizeof e->info.operation, "%s", m.operation);
    qvs_manifest_reset(&m);
  }
  qv_free(v);
  *out = list;
  *count = n;
  return QV_OK;
}
