/* The fragment sink (sink.h): batches in, data files out.  Rows are cut
 * into pages of page_rows (row-aligned across columns, also when a page
 * spans batches) and fragments of max_rows_per_file (or max_bytes_per_file);
 * each finished data file goes to the transaction, which removes it unless
 * it commits.  Memory: the queued batches (less than one page of rows past
 * what the caller pushed) and the open data file's writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/datafile.h"
#include "storage/format.h"
#include "storage/gather.h"
#include "storage/sink.h"

static qv_status finish_fragment(qvs_sink *ws, qv_error *err) {
  if (!ws->cur) return QV_OK;
  QV_RETURN_NOT_OK(qvs_file_writer_finish(ws->cur, err));
  /* From here the transaction owns the file (removes it unless committed). */
  qv_status st = qvs_txn_add_fragment(ws->txn, qvs_file_writer_name(ws->cur), qvs_file_writer_rows(ws->cur), err);
  if (st != QV_OK) return st;
  ws->files_written++;
  qvs_commit_step("fragment-written");
  qvs_file_writer_destroy(ws->cur, true);
  ws->cur = NULL;
  ws->cur_rows = 0;
  return QV_OK;
}

/* Column col's rows for the next page of k rows: the first queued batch
 * directly when it holds them all, else the pieces gathered into one. */
static qv_status page_source(qvs_sink *ws, int32_t col, int64_t k, qv_array **out, int64_t *start, qv_error *err) {
  qvs_sink_pending *p = &ws->queue[0];
  if (p->batch->num_rows - p->start >= k) {
    *out = qv_array_retain(p->batch->columns[col]);
    *start = p->start;
    return QV_OK;
  }
  *start = 0;
  const qv_datatype *t = &ws->schema->fields[col].type;
  if (!qvs_is_nested(t->id)) {
    qvs_acc acc;
    QV_RETURN_NOT_OK(qvs_acc_init(&acc, t, k, err));
    int64_t left = k;
    for (int32_t i = 0; left > 0; i++) {
      qvs_sink_pending *q = &ws->queue[i];
      int64_t take = q->batch->num_rows - q->start < left ? q->batch->num_rows - q->start : left;
      qv_status st = qvs_acc_append(&acc, q->batch->columns[col], NULL, q->start, take, err);
      if (st != QV_OK) {
        qvs_acc_reset(&acc);
        return st;
      }
      left -= take;
    }
    return qvs_acc_finish(&acc, out, err);
  }
  /* nested: slices concatenated (the builder's slower path) */
  qv_array **parts = qv_calloc((size_t)ws->q_len, sizeof *parts);
  if (!parts) return qv_error_nomem(err, NULL);
  int32_t n = 0;
  qv_status st = QV_OK;
  int64_t left = k;
  for (int32_t i = 0; left > 0; i++) {
    qvs_sink_pending *q = &ws->queue[i];
    int64_t take = q->batch->num_rows - q->start < left ? q->batch->num_rows - q->start : left;
    if ((st = qv_array_slice(q->batch->columns[col], q->start, take, &parts[n], err)) != QV_OK) goto cleanup;
    n++;
    left -= take;
  }
  st = qv_array_concat(parts, n, out, err);
cleanup:
  for (int32_t j = 0; j < n; j++) qv_array_release(parts[j]);
  qv_free(parts);
  return st;
}

static qv_status emit_page(qvs_sink *ws, int64_t k, qv_error *err) {
  if (!ws->cur) QV_RETURN_NOT_OK(qvs_file_writer_open(ws->path, ws->schema, &ws->opts, &ws->cur, err));
  for (int32_t c = 0; c < ws->schema->n_fields; c++) {
    qv_array *a = NULL;
    int64_t start = 0;
    QV_RETURN_NOT_OK(page_source(ws, c, k, &a, &start, err));
    qv_status st = qvs_file_writer_page(ws->cur, c, a, start, k, err);
    qv_array_release(a);
    QV_RETURN_NOT_OK(st);
  }
  /* consume k rows from the queue */
  int64_t left = k;
  while (left > 0) {
    qvs_sink_pending *q = &ws->queue[0];
    int64_t avail = q->batch->num_rows - q->start;
    if (avail > left) {
      q->start += left;
      left = 0;
    } else {
      left -= avail;
      qv_batch_release(q->batch);
      memmove(ws->queue, ws->queue + 1, (size_t)(ws->q_len - 1) * sizeof *ws->queue);
      ws->q_len--;
    }
  }
  ws->queued_rows -= k;
  ws->cur_rows += k;
  ws->rows_written += k;
  if (ws->cur_rows == ws->opts.max_rows_per_file ||
      (ws->opts.max_bytes_per_file > 0 && qvs_file_writer_bytes(ws->cur) >= ws->opts.max_bytes_per_file))
    QV_RETURN_NOT_OK(finish_fragment(ws, err));
  return QV_OK;
}

/* Writes pages while a full one is queued (all remaining rows when flush). */
static qv_status drain(qvs_sink *ws, bool flush, qv_error *err) {
  for (;;) {
    int64_t room = ws->opts.max_rows_per_file - ws->cur_rows;
    int64_t k = ws->opts.page_rows < room ? ws->opts.page_rows : room;
    if (ws->queued_rows < k) {
      if (!flush || ws->queued_rows == 0) return QV_OK;
      k = ws->queued_rows;
    }
    QV_RETURN_NOT_OK(emit_page(ws, k, err));
  }
}

static qv_status enqueue(qvs_sink *ws, qv_batch *b, qv_error *err) {
  if (ws->q_len == ws->q_cap) {
    int32_t cap = ws->q_cap ? ws->q_cap * 2 : 8;
    qvs_sink_pending *q = qv_realloc(ws->queue, (size_t)cap * sizeof *q);
    if (!q) return qv_error_nomem(err, NULL);
    ws->queue = q;
    ws->q_cap = cap;
  }
  ws->queue[ws->q_len].batch = b;
  ws->queue[ws->q_len].start = 0;
  ws->q_len++;
  ws->queued_rows += b->num_rows;
  return QV_OK;
}

void qvs_sink_init(qvs_sink *s, const char *path, const qv_schema *schema, const qv_write_options *opts, qvs_txn *txn) {
  memset(s, 0, sizeof *s);
  s->path = path;
  s->schema = schema;
  s->opts = *opts;
  s->txn = txn;
}

qv_status qvs_sink_push(qvs_sink *s, qv_batch *b, qv_error *err) {
  if (b->num_rows == 0) {
    qv_batch_release(b);
    return QV_OK;
  }
  qv_status st = enqueue(s, b, err);
  if (st != QV_OK) {
    qv_batch_release(b);
    return st;
  }
  return drain(s, false, err);
}

qv_status qvs_sink_finish(qvs_sink *s, qv_error *err) {
  QV_RETURN_NOT_OK(drain(s, true, err));
  return finish_fragment(s, err);
}

void qvs_sink_reset(qvs_sink *s) {
  qvs_file_writer_destroy(s->cur, false);
  s->cur = NULL;
  for (int32_t i = 0; i < s->q_len; i++) qv_batch_release(s->queue[i].batch);
  qv_free(s->queue);
  s->queue = NULL;
  s->q_len = s->q_cap = 0;
}
