/* qv_dataset_compact: rewrites small fragments and fragments with many
 * deleted rows into new data files, as one transaction (operation
 * "compact").  The live rows of the chosen fragments are read in fragment
 * order, a chunk at a time, and pushed through the fragment sink; the
 * chosen fragments are removed from the new version.  Index files of the
 * removed fragments leave with them (storage keeps only files whose
 * fragment is in the version), so an index never points at rows of a file
 * that is gone; the new fragments are uncovered until the indices are
 * optimized (quiver optimize does both). */
#include <string.h>

#include "storage/sink.h"

/* Rows read and pushed at a time: bounds memory by chunk, not fragment. */
#define COMPACT_CHUNK 65536

static qv_status check_compact_options(const qv_compact_options *o, qv_error *err) {
  if (o->version != QV_COMPACT_OPTIONS_VERSION)
    return qv_error_set(err, QV_ERR_INVALID, "compact options: version %d is not %d", o->version,
                        QV_COMPACT_OPTIONS_VERSION);
  if (o->target_rows_per_file < 1)
    return qv_error_set(err, QV_ERR_INVALID, "compact: target_rows_per_file must be at least 1");
  if (!(o->max_deleted_fraction >= 0 && o->max_deleted_fraction <= 1))
    return qv_error_set(err, QV_ERR_INVALID, "compact: max_deleted_fraction must be within 0..1");
  return QV_OK;
}

/* The live rows of fragment r, in order, pushed in chunks. */
static qv_status copy_live(qv_fragment_reader *r, const qv_schema *schema, qvs_sink *sink, uint32_t *rows,
                           qv_error *err) {
  int64_t n = qv_fragment_num_rows(r);
  const uint8_t *gone = qv_fragment_deleted(r);
  qv_array **cols = qv_calloc((size_t)schema->n_fields, sizeof *cols);
  if (!cols) return qv_error_nomem(err, "compact");
  qv_status st = QV_OK;
  for (int64_t start = 0; start < n && st == QV_OK; start += COMPACT_CHUNK) {
    int64_t len = n - start < COMPACT_CHUNK ? n - start : COMPACT_CHUNK, live = 0;
    for (int64_t i = 0; i < len; i++)
      if (!gone || !qv_bit_get(gone, start + i)) rows[live++] = (uint32_t)i;
    if (live == 0) continue;
    for (int32_t c = 0; c < schema->n_fields && st == QV_OK; c++) {
      qv_array *a = NULL;
      st = qv_fragment_read(r, c, start, len, &a, err);
      if (st == QV_OK && live < len) {
        qv_array *t = NULL;
        st = qv_array_take(a, rows, live, &t, err);
        qv_array_release(a);
        a = t;
      }
      cols[c] = a;
    }
    qv_batch *b = NULL;
    if (st == QV_OK) st = qv_batch_make(schema, cols, live, &b, err);
    else
      for (int32_t c = 0; c < schema->n_fields; c++) qv_array_release(cols[c]);
    memset(cols, 0, (size_t)schema->n_fields * sizeof *cols);
    if (st == QV_OK) st = qvs_sink_push(sink, b, err);
  }
  qv_free(cols);
  return st;
}

qv_status qv_dataset_compact(const char *path, const qv_compact_options *opts, qv_compact_result *out, qv_error *err) {
  qv_compact_options defaults = QV_COMPACT_OPTIONS_INIT;
  if (!opts) opts = &defaults;
  if (out) memset(out, 0, sizeof *out);
  if (!path) return qv_error_set(err, QV_ERR_INVALID, "compact: dataset path is NULL");
  QV_RETURN_NOT_OK(check_compact_options(opts, err));
  qv_write_options wo;
  QV_RETURN_NOT_OK(qvs_write_options_get(&opts->write, &wo, err));
  wo.max_rows_per_file = opts->target_rows_per_file;
  qvs_txn t;
  QV_RETURN_NOT_OK(qvs_txn_begin(&t, path, 0, "compact", err));
  qvs_sink sink;
  qvs_sink_init(&sink, path, &t.base.schema, &wo, &t);
  qv_compact_result res = {0};
  uint32_t *rows = NULL;
  bool *pick = NULL;
  qv_status st = QV_OK;
  if (t.read_version == 0) {
    st = qv_error_set(err, QV_ERR_NOT_FOUND, "%s: no dataset here (no _versions/*.manifest)", path);
    goto cleanup;
  }
  const qvs_manifest *m = &t.base;
  pick = qv_calloc((size_t)m->n_fragments + 1, sizeof *pick);
  rows = qv_malloc(COMPACT_CHUNK * sizeof *rows);
  if (!pick || !rows) {
    st = qv_error_nomem(err, "compact");
    goto cleanup;
  }
  /* Small: fewer live rows than half the target.  Deletion-heavy: more than
   * max_deleted_fraction of the rows deleted.  One small fragment alone is
   * left as it is (rewriting it gains nothing). */
  int32_t n_small = 0, n_pick = 0;
  for (int32_t i = 0; i < m->n_fragments; i++) {
    const qvs_fragment_meta *f = &m->fragments[i];
    int64_t live = f->num_rows - f->num_deleted;
    bool heavy = f->num_rows > 0 && (double)f->num_deleted > opts->max_deleted_fraction * (double)f->num_rows;
    bool small = live * 2 < opts->target_rows_per_file;
    if (heavy || small) pick[i] = true;
    n_small += small && !heavy;
    n_pick += pick[i];
  }
  if (n_pick == 1 && n_small == 1) n_pick = 0;
  if (n_pick == 0) {
    res.version = t.read_version;
    goto cleanup;
  }
  qv_dataset view = {t.path, t.base}; /* borrowed by the readers, never closed */
  for (int32_t i = 0; i < m->n_fragments && st == QV_OK; i++) {
    if (!pick[i]) continue;
    qv_fragment_reader *r = NULL;
    if ((st = qv_fragment_open(&view, i, &r, err)) == QV_OK) st = copy_live(r, &m->schema, &sink, rows, err);
    qv_fragment_close(r);
    if (st == QV_OK) st = qvs_txn_remove_fragment(&t, m->fragments[i].id, err);
    res.fragments_removed++;
    res.rows_dropped += m->fragments[i].num_deleted;
  }
  if (st == QV_OK) st = qvs_sink_finish(&sink, err);
  res.fragments_added = (int32_t)sink.files_written;
  res.rows_rewritten = sink.rows_written;
  if (st == QV_OK) st = qvs_txn_commit(&t, &res.version, err);
cleanup:
  if (st == QV_OK && out) *out = res;
  qvs_sink_reset(&sink);
  qv_free(rows);
  qv_free(pick);
  qvs_txn_reset(&t);
  return st;
}
