/* qv_dataset_delete_rows: a new version whose fragments carry merged
 * deletion files.  Fragments left with no live row are dropped from the
 * new version (older versions still list them).  Deletion files are named
 * by fragment and version, so a new one never replaces an old one. */
#include <stdio.h>

#include "base/wire.h"
#include "storage/manifest.h"

qv_status qv_dataset_delete_rows(qv_dataset *ds, const uint8_t *const *deleted, int64_t *out_version, qv_error *err) {
  if (!ds || !deleted) return qv_error_set(err, QV_ERR_INVALID, "delete: dataset and bitmaps are required");
  const qvs_manifest *m = &ds->manifest;
  QV_RETURN_NOT_OK(qvs_check_latest(ds->path, m->version, err));
  qvs_manifest next;
  qvs_manifest_init(&next);
  char **written = qv_calloc((size_t)m->n_fragments + 1, sizeof *written);
  int32_t n_written = 0;
  uint8_t *bits = NULL;
  qv_buffer bytes = QV_BUFFER_INIT;
  qv_status st = QV_OK;
  if (!written) return qv_error_nomem(err, NULL);
  next.version = m->version + 1;
  next.timestamp_ms = qvs_now_ms();
  snprintf(next.operation, sizeof next.operation, "delete");
  next.next_fragment_id = m->next_fragment_id;
  if (qv_schema_copy(&m->schema, &next.schema) != QV_OK) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  if ((st = qvs_ensure_layout(ds->path, err)) != QV_OK) goto cleanup;
  for (int32_t i = 0; i < m->n_fragments; i++) {
    const qvs_fragment_meta *f = &m->fragments[i];
    if (!deleted[i]) {
      if ((st = qvs_manifest_add_fragment(&next, f, err)) != QV_OK) goto cleanup;
      continue;
    }
    if ((st = qvs_deletion_load(ds->path, f, &bits, err)) != QV_OK) goto cleanup;
    int64_t nbytes = qv_bitmap_bytes(f->num_rows);
    if (!bits && !(bits = qv_calloc(1, (size_t)nbytes + 1))) {
      st = qv_error_nomem(err, NULL);
      goto cleanup;
    }
    for (int64_t b = 0; b < nbytes; b++) bits[b] |= deleted[i][b];
    if (f->num_rows & 7) bits[nbytes - 1] &= (uint8_t)((1u << (f->num_rows & 7)) - 1);
    int64_t count = qv_bitmap_count(bits, 0, f->num_rows);
    if (count == f->num_deleted) { /* nothing new here */
      if ((st = qvs_manifest_add_fragment(&next, f, err)) != QV_OK) goto cleanup;
    } else if (count < f->num_rows) {
      char name[96];
      snprintf(name, sizeof name, "_deletions/%lld-%lld.del", (long long)f->id, (long long)next.version);
      char *full = qvb_path_join(ds->path, name);
      if (!full) {
        st = qv_error_nomem(err, NULL);
        goto cleanup;
      }
      if ((st = qvs_deletion_encode(f->id, f->num_rows, bits, count, &bytes, err)) == QV_OK)
        st = qvb_file_write_new(full, name, bytes.data, bytes.size, err);
      qv_buffer_reset(&bytes);
      if (st != QV_OK) {
        qv_free(full);
        goto cleanup;
      }
      written[n_written++] = full;
      qvs_fragment_meta nf = *f;
      nf.deletion_file = name;
      nf.num_deleted = count;
      if ((st = qvs_manifest_add_fragment(&next, &nf, err)) != QV_OK) goto cleanup;
    }
    qv_free(bits);
    bits = NULL;
  }
  /* Index files of fragments that are gone are dropped with them; the
   * others stay valid (the scanner skips deleted rows in any case). */
  if ((st = qvs_manifest_carry_indices(&next, m, err)) != QV_OK) goto cleanup;
  if (n_written) {
    char *dir = qvb_path_join(ds->path, "_deletions");
    if (!dir) {
      st = qv_error_nomem(err, NULL);
      goto cleanup;
    }
    st = qvb_file_fsync_dir(dir, err);
    qv_free(dir);
    if (st != QV_OK) goto cleanup;
  }
  if ((st = qvs_publish_manifest(ds->path, &next, err)) != QV_OK) goto cleanup;
  if (out_version) *out_version = next.version;
cleanup:
  for (int32_t i = 0; i < n_written; i++) {
    if (st != QV_OK) remove(written[i]);
    qv_free(written[i]);
  }
  qv_free(written);
  qv_free(bits);
  qvs_manifest_reset(&next);
  return st;
}
