/* qv_dataset_restore: a new version equal to an older one.  The way back
 * from a damaged latest manifest (every other commit refuses to build on
 * it), and an undo in general.  Only a manifest is written: the restored
 * version's data, deletion and index files are named again, as an append
 * names the fragments it carries over.  Nothing is replaced or removed, so
 * the damaged manifest stays for whoever wants to look at it. */
#include <stdio.h>
#include <string.h>

#include "storage/txn.h"

/* The highest next_fragment_id of any version that reads: a fragment id is
 * never handed out twice, even when the restored version is older than
 * fragments added after it. */
static int64_t next_fragment_id(const char *path, const int64_t *v, int64_t n, int64_t floor) {
  int64_t next = floor;
  for (int64_t i = 0; i < n; i++) {
    qvs_manifest m;
    if (qvs_manifest_read(path, v[i], &m, NULL) == QV_OK && m.next_fragment_id > next) next = m.next_fragment_id;
    qvs_manifest_reset(&m);
  }
  return next;
}

/* Every fragment of ds opens: its data file's footer and its deletion file
 * agree with the manifest.  A restore must not make an unreadable version
 * the latest. */
static qv_status check_fragments(const qv_dataset *ds, qv_error *err) {
  for (int32_t i = 0; i < qv_dataset_num_fragments(ds); i++) {
    qv_fragment_reader *r = NULL;
    qv_status st = qv_fragment_open(ds, i, &r, err);
    qv_fragment_close(r);
    QV_RETURN_NOT_OK(st);
  }
  return QV_OK;
}

qv_status qv_dataset_restore(const char *path, int64_t version, int64_t *out_version, qv_error *err) {
  if (!path) return qv_error_set(err, QV_ERR_INVALID, "restore: dataset path is NULL");
  if (version < 1)
    return qv_error_set(err, QV_ERR_INVALID, "%s: cannot restore version %lld: versions start at 1", path,
                        (long long)version);
  int64_t *v = NULL, n = 0;
  QV_RETURN_NOT_OK(qvs_list_versions(path, &v, &n, err));
  qv_dataset *ds = NULL;
  qvs_txn t;
  memset(&t, 0, sizeof t);
  qv_index_entry *entries = NULL;
  qv_error why = {0};
  qv_status st = QV_OK;
  int64_t latest = n ? v[n - 1] : 0;
  const qvs_manifest *m = NULL;
  if (n == 0) {
    st = qv_error_set(err, QV_ERR_NOT_FOUND, "%s: no dataset here (no _versions/*.manifest)", path);
    goto cleanup;
  }
  if ((st = qv_dataset_open(path, version, &ds, &why)) != QV_OK) {
    if (st == QV_ERR_NOMEM) st = qv_error_nomem(err, NULL);
    else if (st == QV_ERR_NOT_FOUND)
      st = qv_error_set(err, st, "%s: cannot restore version %lld: it does not exist (the latest is %lld)", path,
                        (long long)version, (long long)latest);
    else
      st = qv_error_set(err, st, "%s: cannot restore version %lld: it is damaged (%.800s)", path, (long long)version,
                        why.message);
    goto cleanup;
  }
  if ((st = check_fragments(ds, &why)) != QV_OK) {
    if (st == QV_ERR_NOMEM) st = qv_error_nomem(err, NULL);
    else st = qv_error_set(err, st, "%s: cannot restore version %lld: %.800s", path, (long long)version, why.message);
    goto cleanup;
  }

  m = &ds->manifest;
  /* Above the latest without reading it: this is the way back from a
   * damaged latest version.  It never rebases (another writer's version
   * above ours would be hidden by the restored contents). */
  if ((st = qvs_txn_begin_blind(&t, path, latest, "restore", err)) != QV_OK) goto cleanup;
  t.fragment_id_floor = next_fragment_id(path, v, n, m->next_fragment_id);
  if ((st = qvs_txn_replace(&t, QVS_TXN_RESTORE, &m->schema, err)) != QV_OK) goto cleanup;
  for (int32_t i = 0; i < m->n_fragments && st == QV_OK; i++) st = qvs_txn_keep_fragment(&t, &m->fragments[i], err);
  /* The indices as they were, built and updated versions included: their
   * files pin the exact bytes they were built from, which are unchanged. */
  if (st == QV_OK && m->n_indices > 0 && !(entries = qv_calloc((size_t)m->n_indices, sizeof *entries)))
    st = qv_error_nomem(err, NULL);
  for (int32_t i = 0; i < m->n_indices && st == QV_OK; i++) qv_dataset_index(ds, i, &entries[i]);
  if (st == QV_OK) st = qvs_txn_set_indices(&t, entries, m->n_indices, err);
  if (st != QV_OK) goto cleanup;
  st = qvs_txn_commit(&t, out_version, err);
cleanup:
  qv_free(entries);
  qvs_txn_reset(&t);
  qv_dataset_close(ds);
  qv_free(v);
  return st;
}
