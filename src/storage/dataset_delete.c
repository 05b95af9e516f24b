/* qv_dataset_delete_rows: a new version whose fragments carry merged
 * deletion files, committed through the one transaction path (txn.c).
 * Fragments left with no live row are dropped from the new version (older
 * versions still list them).  Deletion files are named by fragment and
 * version, so a new one never replaces an old one. */
#include "storage/txn.h"

qv_status qv_dataset_delete_rows(qv_dataset *ds, const uint8_t *const *deleted, int64_t *out_version, qv_error *err) {
  if (!ds || !deleted) return qv_error_set(err, QV_ERR_INVALID, "delete: dataset and bitmaps are required");
  qvs_txn t;
  QV_RETURN_NOT_OK(qvs_txn_begin_from(&t, ds, "delete", err));
  qv_status st = QV_OK;
  for (int32_t i = 0; i < ds->manifest.n_fragments && st == QV_OK; i++)
    if (deleted[i]) st = qvs_txn_delete_rows(&t, i, deleted[i], err);
  if (st == QV_OK) st = qvs_txn_commit(&t, out_version, err);
  qvs_txn_reset(&t);
  return st;
}
