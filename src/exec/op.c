/* The operator interface: the context, the life cycle every operator goes
 * through (open on the first next, close at the end), counters, memory
 * accounting, explain, and the batch reader over a tree. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "exec/exec_int.h"

/* ---- context ------------------------------------------------------------ */

qv_status qv_exec_ctx_create(const qv_exec_options *opts, qv_exec_ctx **out, qv_error *err) {
  *out = NULL;
  qv_exec_options o = QV_EXEC_OPTIONS_INIT;
  if (opts && opts->version >= 2) o = *opts;
  else if (opts) { /* version 1 callers' struct ends before cancel */ o.memory_limit = opts->memory_limit;
    o.threads = opts->threads;
    o.batch_size = opts->batch_size;
  }
  if (o.memory_limit < 0) return qv_error_set(err, QV_ERR_INVALID, "exec: memory_limit must be >= 0");
  if (o.batch_size < 0) return qv_error_set(err, QV_ERR_INVALID, "exec: batch_size must be >= 0");
  qv_exec_ctx *c = qv_calloc(1, sizeof *c);
  if (!c) return qv_error_nomem(err, "exec context");
  c->memory_limit = o.memory_limit;
  if (c->memory_limit == 0) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    c->memory_limit = pages > 0 && page > 0 ? (int64_t)pages * page / 2 : (int64_t)4 << 30;
  }
  int max = qv_threads();
  c->threads = o.threads <= 0 || o.threads > max ? max : o.threads;
  c->batch_size = o.batch_size > 0 ? o.batch_size : 8192;
  c->cancel = o.cancel;
  atomic_init(&c->held, 0);
  atomic_init(&c->peak, 0);
  atomic_init(&c->refcount, 1);
  *out = c;
  return QV_OK;
}

static qv_exec_ctx *ctx_retain(qv_exec_ctx *c) {
  atomic_fetch_add(&c->refcount, 1);
  return c;
}

void qv_exec_ctx_release(qv_exec_ctx *c) {
  if (c && atomic_fetch_sub(&c->refcount, 1) == 1) qv_free(c);
}

int64_t qv_exec_ctx_held_bytes(const qv_exec_ctx *c) { return atomic_load(&((qv_exec_ctx *)c)->held); }
int64_t qv_exec_ctx_peak_bytes(const qv_exec_ctx *c) { return atomic_load(&((qv_exec_ctx *)c)->peak); }

/* ---- memory --------------------------------------------------------------- */

void qvx_format_bytes(int64_t n, char *buf, size_t size) {
  if (n % ((int64_t)1 << 30) == 0) snprintf(buf, size, "%lld GiB", (long long)(n >> 30));
  else if (n % ((int64_t)1 << 20) == 0) snprintf(buf, size, "%lld MiB", (long long)(n >> 20));
  else if (n % 1024 == 0) snprintf(buf, size, "%lld KiB", (long long)(n >> 10));
  else snprintf(buf, size, "%lld bytes", (long long)n);
}

qv_status qvx_reserve(qv_exec_op *op, int64_t bytes, const char *what, qv_error *err) {
  qv_exec_ctx *c = op->ctx;
  int64_t now = atomic_fetch_add(&c->held, bytes) + bytes;
  if (bytes > 0 && now > c->memory_limit) {
    atomic_fetch_sub(&c->held, bytes);
    char lim[64];
    qvx_format_bytes(c->memory_limit, lim, sizeof lim);
    return qv_error_set(err, QV_ERR_NOMEM, "%s: %s passed the memory limit of %s (set qv_exec_options.memory_limit)",
                        op->vt->name, what, lim);
  }
  int64_t peak = atomic_load(&c->peak);
  while (now > peak && !atomic_compare_exchange_weak(&c->peak, &peak, now)) {}
  /* op->held is touched only by the thread driving op's next */
  op->held += bytes;
  if (op->held > op->peak) op->peak = op->held;
  return QV_OK;
}

void qvx_release_all(qv_exec_op *op) {
  if (op->held) atomic_fetch_sub(&op->ctx->held, op->held);
  op->held = 0;
}

int64_t qvx_array_bytes(const qv_array *a) {
  if (!a) return 0;
  int64_t n = 0;
  for (int i = 0; i < 3; i++)
    if (a->buffers[i]) n += a->buffers[i]->size;
  for (int32_t i = 0; i < a->n_children; i++) n += qvx_array_bytes(a->children[i]);
  return n;
}

int64_t qvx_batch_bytes(const qv_batch *b) {
  int64_t n = 0;
  for (int32_t i = 0; i < b->schema.n_fields; i++) n += qvx_array_bytes(b->columns[i]);
  return n;
}

/* ---- helpers -------------------------------------------------------------- */

qv_status qvx_bind_copy(const char *opname, const qv_expr *e, const qv_schema *schema, qv_expr **out, qv_error *err) {
  *out = NULL;
  if (!e) return qv_error_set(err, QV_ERR_INVALID, "%s: missing expression", opname);
  qv_expr *c = qv_expr_clone(e);
  if (!c) return qv_error_nomem(err, opname);
  qv_status st = qv_expr_bind(c, schema, err);
  if (st != QV_OK) {
    qv_expr_destroy(c);
    return qv_error_prefix(err, st, "%s", opname);
  }
  *out = c;
  return QV_OK;
}

void qvx_text_expr(qvb_text *t, const qv_expr *e) {
  char *s = qv_expr_to_string(e);
  if (!s) {
    t->oom = true;
    return;
  }
  qvb_text_s(t, s);
  qv_free(s);
}

qv_status qvx_batch_take(const qv_batch *b, const uint32_t *rows, int64_t n, qv_batch **out, qv_error *err) {
  *out = NULL;
  int32_t nc = b->schema.n_fields;
  qv_array **cols = qv_calloc((size_t)(nc > 0 ? nc : 1), sizeof *cols);
  if (!cols) return qv_error_nomem(err, "exec: take");
  qv_status st = QV_OK;
  for (int32_t c = 0; c < nc && st == QV_OK; c++) st = qv_array_take(b->columns[c], rows, n, &cols[c], err);
  if (st == QV_OK) st = qv_batch_make(&b->schema, cols, n, out, err);
  else
    for (int32_t c = 0; c < nc; c++) qv_array_release(cols[c]);
  qv_free(cols);
  return st;
}

qv_status qvx_batch_concat(const qv_schema *schema, qv_batch *const *batches, int32_t n, qv_batch **out,
                           qv_error *err) {
  *out = NULL;
  if (n == 1) {
    *out = qv_batch_retain(batches[0]);
    return QV_OK;
  }
  int32_t nc = schema->n_fields;
  qv_array **cols = qv_calloc((size_t)(nc > 0 ? nc : 1), sizeof *cols);
  qv_array **parts = qv_calloc((size_t)(n > 0 ? n : 1), sizeof *parts);
  qv_status st = QV_OK;
  int64_t rows = 0;
  if (!cols || !parts) {
    st = qv_error_nomem(err, "exec: concat");
    goto cleanup;
  }
  for (int32_t i = 0; i < n; i++) rows += batches[i]->num_rows;
  for (int32_t c = 0; c < nc && st == QV_OK; c++) {
    if (n == 0) {
      st = qv_array_make_null(&schema->fields[c].type, 0, &cols[c], err);
      if (st != QV_OK) {
        /* a type with no null form: build an empty one */
        qv_builder bl;
        st = qv_builder_init(&bl, &schema->fields[c].type, err);
        if (st == QV_OK) st = qv_builder_finish(&bl, &cols[c], err);
      }
      continue;
    }
    for (int32_t i = 0; i < n; i++) parts[i] = batches[i]->columns[c];
    st = qv_array_concat(parts, n, &cols[c], err);
  }
  if (st == QV_OK) st = qv_batch_make(schema, cols, rows, out, err);
  else
    for (int32_t c = 0; c < nc; c++) qv_array_release(cols[c]);
cleanup:
  qv_free(cols);
  qv_free(parts);
  return st;
}

qv_status qvx_plain(qv_array *a, qv_array **out, qv_error *err) {
  if (a->type.id == QV_TYPE_DICTIONARY) return qv_array_dictionary_decode(a, out, err);
  *out = qv_array_retain(a);
  return QV_OK;
}

/* ---- life cycle ------------------------------------------------------------ */

qv_status qvx_op_new(const qvx_op_vt *vt, qv_exec_ctx *ctx, qv_exec_op **children, int32_t n_children, void *state,
                     qv_exec_op **out, qv_error *err) {
  *out = NULL;
  qv_exec_op *op = qv_calloc(1, sizeof *op);
  qv_exec_op **kids = n_children ? qv_calloc((size_t)n_children, sizeof *kids) : NULL;
  if (!op || (n_children && !kids)) {
    qv_free(op);
    qv_free(kids);
    for (int32_t i = 0; i < n_children; i++) qv_exec_destroy(children[i]);
    if (vt->free && state) {
      qv_exec_op tmp;
      memset(&tmp, 0, sizeof tmp);
      tmp.vt = vt;
      tmp.ctx = ctx;
      tmp.state = state;
      vt->free(&tmp);
    }
    return qv_error_nomem(err, vt->name);
  }
  for (int32_t i = 0; i < n_children; i++) kids[i] = children[i];
  op->vt = vt;
  op->ctx = ctx_retain(ctx);
  op->children = kids;
  op->n_children = n_children;
  op->estimate_rows = -1;
  op->state = state;
  *out = op;
  return QV_OK;
}

static void op_close(qv_exec_op *op) {
  if (op->closed) return;
  op->closed = true;
  if (op->opened && op->vt->close) op->vt->close(op);
  qvx_release_all(op);
}

qv_status qv_exec_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  *out = NULL;
  if (op->failed != QV_OK) return qv_error_set(err, op->failed, "%s", op->failed_msg);
  if (op->done) return QV_OK;
  qv_error local;
  local.code = QV_OK;
  local.message[0] = '\0';
  double t0 = qv_now_seconds();
  qv_status st = qvx_check_cancel(op, &local);
  if (st == QV_OK && !op->opened) {
    op->opened = true;
    if (op->vt->open) st = op->vt->open(op, &local);
  }
  qv_batch *b = NULL;
  /* operators never yield empty batches: a consumer can take NULL as the end */
  while (st == QV_OK) {
    st = op->vt->next(op, &b, &local);
    if (st != QV_OK || !b || b->num_rows > 0) break;
    qv_batch_release(b);
    b = NULL;
  }
  op->seconds += qv_now_seconds() - t0;
  if (st != QV_OK) {
    if (local.message[0] == '\0') snprintf(local.message, sizeof local.message, "%s failed", op->vt->name);
    op->failed = st;
    memcpy(op->failed_msg, local.message, sizeof op->failed_msg);
    op_close(op);
    return qv_error_set(err, st, "%s", local.message);
  }
  if (!b) {
    op->done = true;
    op_close(op);
    return QV_OK;
  }
  op->rows_out += b->num_rows;
  op->batches++;
  *out = b;
  return QV_OK;
}

const qv_schema *qv_exec_schema(const qv_exec_op *op) { return &op->schema; }

void qv_exec_destroy(qv_exec_op *op) {
  if (!op) return;
  op_close(op);
  if (op->vt->free) op->vt->free(op);
  for (int32_t i = 0; i < op->n_children; i++) qv_exec_destroy(op->children[i]);
  qv_free(op->children);
  qv_schema_reset(&op->schema);
  qv_exec_ctx_release(op->ctx);
  qv_free(op);
}

/* ---- explain -------------------------------------------------------------- */

static void explain_op(const qv_exec_op *op, int depth, bool analyze, qvb_text *t) {
  for (int i = 0; i < depth; i++) qvb_text_s(t, "  ");
  qvb_text_f(t, "%s: ", op->vt->name);
  op->vt->explain(op, t);
  if (analyze) {
    int64_t rows_in = 0;
    double own = op->seconds;
    for (int32_t i = 0; i < op->n_children; i++) {
      rows_in += op->children[i]->rows_out;
      own -= op->children[i]->seconds;
    }
    if (op->n_children == 0) rows_in = op->rows_out;
    if (own < 0) own = 0;
    qvb_text_f(t, ", metrics=[rows_in=%lld, rows_out=%lld, batches=%lld, time=%.3fms, peak_bytes=%lld",
               (long long)rows_in, (long long)op->rows_out, (long long)op->batches, own * 1e3, (long long)op->peak);
    if (op->vt->metrics) op->vt->metrics(op, t);
    qvb_text_s(t, "]");
  }
  qvb_text_s(t, "\n");
  for (int32_t i = 0; i < op->n_children; i++) explain_op(op->children[i], depth + 1, analyze, t);
}

qv_status qv_exec_explain(const qv_exec_op *op, bool analyze, char **text, qv_error *err) {
  *text = NULL;
  qvb_text t = {0};
  explain_op(op, 0, analyze, &t);
  if (t.oom) {
    qvb_text_free(&t);
    return qv_error_nomem(err, "explain");
  }
  *text = t.p;
  return QV_OK;
}

/* ---- reader ---------------------------------------------------------------- */

static qv_status reader_next(qv_batch_reader *r, qv_batch **out, qv_error *err) {
  return qv_exec_next(r->private_data, out, err);
}
static const qv_schema *reader_schema(qv_batch_reader *r) { return qv_exec_schema(r->private_data); }
static void reader_destroy(qv_batch_reader *r) {
  qv_exec_destroy(r->private_data);
  qv_free(r);
}

qv_status qv_exec_reader(qv_exec_op *op, qv_batch_reader **out, qv_error *err) {
  *out = NULL;
  qv_batch_reader *r = qv_calloc(1, sizeof *r);
  if (!r) {
    qv_exec_destroy(op);
    return qv_error_nomem(err, "exec reader");
  }
  r->next = reader_next;
  r->schema = reader_schema;
  r->destroy = reader_destroy;
  r->private_data = op;
  *out = r;
  return QV_OK;
}
