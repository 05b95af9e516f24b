/* DataSourceExec: the leaves of a plan.  Over a dataset it is the scanner,
 * opened through the public scan API with the caller's options, so
 * projection, filter pushdown, page pruning and index use are exactly the
 * scanner's; over batches in memory or any batch reader it passes the
 * batches through.  Holds what the scanner or reader holds. */
#include <string.h>

#include "exec/exec_int.h"

typedef struct source_state {
  qv_scanner *scanner; /* or */
  qv_batch_reader *reader;
  char *label;  /* reader: explain text */
  char *path;   /* scanner over a path */
  char *filter; /* the filter as the scanner was given it */
  int32_t n_batches;
  int64_t limit, offset;
  bool pushdown, use_index;
} source_state;

static qv_status source_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  source_state *s = op->state;
  if (s->scanner) return qv_scanner_next(s->scanner, out, err);
  return s->reader->next(s->reader, out, err);
}

static void source_free(qv_exec_op *op) {
  source_state *s = op->state;
  if (!s) return;
  qv_scanner_destroy(s->scanner);
  qv_batch_reader_destroy(s->reader);
  qv_free(s->label);
  qv_free(s->path);
  qv_free(s->filter);
  qv_free(s);
}

static void explain_columns(const qv_schema *sc, qvb_text *t) {
  qvb_text_s(t, "projection=[");
  for (int32_t i = 0; i < sc->n_fields; i++) qvb_text_f(t, "%s%s", i ? ", " : "", sc->fields[i].name);
  qvb_text_s(t, "]");
}

static void source_explain(const qv_exec_op *op, qvb_text *t) {
  const source_state *s = op->state;
  if (s->scanner) {
    qvb_text_f(t, "dataset=%s, ", s->path ? s->path : "(open dataset)");
    explain_columns(&op->schema, t);
    if (s->filter) qvb_text_f(t, ", filter=%s", s->filter);
    if (s->offset > 0) qvb_text_f(t, ", skip=%lld", (long long)s->offset);
    if (s->limit >= 0) qvb_text_f(t, ", limit=%lld", (long long)s->limit);
    if (!s->pushdown) qvb_text_s(t, ", predicate_pushdown=false");
    else if (!s->use_index) qvb_text_s(t, ", use_scalar_index=false");
    return;
  }
  if (s->label) qvb_text_f(t, "%s, ", s->label);
  else if (s->n_batches >= 0) qvb_text_f(t, "batches=%d, rows=%lld, ", (int)s->n_batches, (long long)op->estimate_rows);
  else qvb_text_s(t, "reader, ");
  explain_columns(&op->schema, t);
}

/* what the scanner did: fragments read, page ranges pruned, filter work */
static void source_metrics(const qv_exec_op *op, qvb_text *t) {
  const source_state *s = op->state;
  if (!s->scanner) return;
  qv_scan_counters c;
  qv_scanner_counters(s->scanner, &c);
  qvb_text_f(t, ", fragments=%lld, pages_pruned=%lld/%lld, rows_scanned=%lld, rows_selected=%lld",
             (long long)c.fragments, (long long)c.pages_pruned, (long long)c.pages_total, (long long)c.rows_scanned,
             (long long)c.rows_selected);
}

static const qvx_op_vt source_vt = {"DataSourceExec", NULL,           source_next,   NULL,
                                    source_free,      source_explain, source_metrics};

static qv_status finish(qv_exec_ctx *ctx, source_state *s, const qv_schema *schema, int64_t estimate, qv_exec_op **out,
                        qv_error *err) {
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(&source_vt, ctx, NULL, 0, s, &op, err));
  op->estimate_rows = estimate;
  if (qv_schema_copy(schema, &op->schema) != QV_OK) {
    qv_exec_destroy(op);
    return qv_error_nomem(err, "DataSourceExec");
  }
  *out = op;
  return QV_OK;
}

static qv_status open_scan(qv_exec_ctx *ctx, const char *path, const qv_dataset *ds, const qv_scan_options *opts,
                           qv_exec_op **out, qv_error *err) {
  *out = NULL;
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  if (opts) o = *opts;
  source_state *s = qv_calloc(1, sizeof *s);
  if (!s) return qv_error_nomem(err, "DataSourceExec");
  s->n_batches = -1;
  s->limit = o.limit;
  s->offset = o.offset;
  s->pushdown = o.predicate_pushdown;
  s->use_index = o.use_scalar_index;
  qv_status st = path ? qv_scanner_open(path, &o, &s->scanner, err) : qv_scanner_open_dataset(ds, &o, &s->scanner, err);
  if (st != QV_OK) {
    qv_free(s);
    return qv_error_prefix(err, st, "DataSourceExec");
  }
  if (path) s->path = qv_strdup(path);
  if (o.filter) s->filter = qv_strdup(o.filter);
  else if (o.filter_expr) s->filter = qv_expr_to_string(o.filter_expr);
  if ((path && !s->path) || ((o.filter || o.filter_expr) && !s->filter)) {
    qv_exec_op tmp = {.state = s};
    source_free(&tmp);
    return qv_error_nomem(err, "DataSourceExec");
  }
  /* the row count is known only for an unfiltered scan of an open dataset */
  int64_t estimate = -1;
  if (ds && !o.filter && !o.filter_expr) {
    estimate = qv_dataset_count_rows(ds) - (o.offset > 0 ? o.offset : 0);
    if (estimate < 0) estimate = 0;
    if (o.limit >= 0 && o.limit < estimate) estimate = o.limit;
  }
  return finish(ctx, s, qv_scanner_schema(s->scanner), estimate, out, err);
}

qv_status qv_exec_scan(qv_exec_ctx *ctx, const char *path, const qv_scan_options *opts, qv_exec_op **out,
                       qv_error *err) {
  return open_scan(ctx, path, NULL, opts, out, err);
}

qv_status qv_exec_scan_dataset(qv_exec_ctx *ctx, const qv_dataset *ds, const qv_scan_options *opts, qv_exec_op **out,
                               qv_error *err) {
  return open_scan(ctx, NULL, ds, opts, out, err);
}

qv_status qv_exec_batches(qv_exec_ctx *ctx, const qv_schema *schema, qv_batch *const *batches, int32_t n,
                          qv_exec_op **out, qv_error *err) {
  *out = NULL;
  int64_t rows = 0;
  for (int32_t i = 0; i < n; i++) {
    if (batches[i]->schema.n_fields != schema->n_fields)
      return qv_error_set(err, QV_ERR_INVALID, "DataSourceExec: batch %d has %d columns, the schema %d", (int)i,
                          (int)batches[i]->schema.n_fields, (int)schema->n_fields);
    rows += batches[i]->num_rows;
  }
  source_state *s = qv_calloc(1, sizeof *s);
  if (!s) return qv_error_nomem(err, "DataSourceExec");
  s->n_batches = n;
  qv_status st = qv_batch_reader_from_batches(schema, batches, n, &s->reader, err);
  if (st != QV_OK) {
    qv_free(s);
    return st;
  }
  return finish(ctx, s, schema, rows, out, err);
}

qv_status qv_exec_source(qv_exec_ctx *ctx, qv_batch_reader *reader, const char *label, qv_exec_op **out,
                         qv_error *err) {
  *out = NULL;
  source_state *s = qv_calloc(1, sizeof *s);
  if (!s) {
    qv_batch_reader_destroy(reader);
    return qv_error_nomem(err, "DataSourceExec");
  }
  s->n_batches = -1;
  s->reader = reader;
  if (label && !(s->label = qv_strdup(label))) {
    qv_exec_op tmp = {.state = s};
    source_free(&tmp);
    return qv_error_nomem(err, "DataSourceExec");
  }
  return finish(ctx, s, reader->schema(reader), -1, out, err);
}
