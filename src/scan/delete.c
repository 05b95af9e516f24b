/* Deleting rows by filter (Lance SQL text or an expression): a scan for the
 * matching row ids, then one commit of deletion files through the storage
 * layer. */
#include <string.h>

#include "scan/scan_int.h"

/* The rows a scan with filter (Lance SQL) or expr (one of them) returns. */
static qv_status delete_matching(const char *path, const char *filter, const qv_expr *expr, int64_t *deleted,
                                 int64_t *new_version, qv_error *err) {
  qv_dataset *ds = NULL;
  qv_scanner *sc = NULL;
  uint8_t **bitmaps = NULL;
  int32_t nf = 0;
  int64_t count = 0;
  int32_t last = 0;
  qv_status st = qv_dataset_open(path, 0, &ds, err);
  if (st != QV_OK) return st;
  if ((!filter || !*filter) && !expr) {
    st = qv_error_set(err, QV_ERR_INVALID, "delete: a filter is required (use 'true' to delete every row)");
    goto cleanup;
  }
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  static const char *const none[1] = {NULL};
  o.columns = none;
  o.n_columns = 0;
  o.filter = expr ? NULL : filter;
  o.filter_expr = expr;
  o.with_row_id = true;
  if ((st = qv_scanner_open_dataset(ds, &o, &sc, err)) != QV_OK) goto cleanup;
  nf = qv_dataset_num_fragments(ds);
  bitmaps = qv_calloc((size_t)(nf > 0 ? nf : 1), sizeof *bitmaps);
  if (!bitmaps) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  for (;;) {
    qv_batch *b;
    if ((st = qv_scanner_next(sc, &b, err)) != QV_OK) goto cleanup;
    if (!b) break;
    const uint64_t *ids = qv_array_values(b->columns[0]);
    for (int64_t i = 0; i < b->num_rows; i++) {
      int64_t fid = (int64_t)(ids[i] >> 32), row = (int64_t)(ids[i] & 0xffffffffu);
      /* Row ids arrive fragment by fragment: start looking where the last was. */
      for (int32_t j = 0; j < nf; j++) {
        int32_t k = (last + j) % nf;
        qv_fragment_info fi;
        qv_dataset_fragment(ds, k, &fi);
        if (fi.id != fid) continue;
        if (!bitmaps[k] && !(bitmaps[k] = qv_calloc(1, (size_t)qv_bitmap_bytes(fi.num_rows)))) {
          qv_batch_release(b);
          st = qv_error_nomem(err, NULL);
          goto cleanup;
        }
        qv_bit_set(bitmaps[k], row);
        count++;
        last = k;
        break;
      }
    }
    qv_batch_release(b);
  }
  if (new_version) *new_version = qv_dataset_version(ds);
  if (count > 0) st = qv_dataset_delete_rows(ds, (const uint8_t *const *)bitmaps, new_version, err);
cleanup:
  if (st == QV_OK && deleted) *deleted = count;
  for (int32_t k = 0; bitmaps && k < nf; k++) qv_free(bitmaps[k]);
  qv_free(bitmaps);
  qv_scanner_destroy(sc);
  qv_dataset_close(ds);
  return st;
}

qv_status qv_dataset_delete_where(const char *path, const char *filter, int64_t *deleted, int64_t *new_version,
                                  qv_error *err) {
  return delete_matching(path, filter, NULL, deleted, new_version, err);
}

qv_status qv_dataset_delete_matching(const char *path, const qv_expr *filter, int64_t *deleted, int64_t *new_version,
                                     qv_error *err) {
  return delete_matching(path, NULL, filter, deleted, new_version, err);
}
