/* The streaming operators, one input batch in, at most one out, nothing
 * held between calls: FilterExec, ProjectionExec, LimitExec, UnionExec. */
#include <string.h>

#include "exec/exec_int.h"
#include "quiver/compute.h"

static qv_status copy_child_schema(qv_exec_op *op, qv_error *err) {
  if (qv_schema_copy(&op->children[0]->schema, &op->schema) != QV_OK) return qv_error_nomem(err, op->vt->name);
  op->estimate_rows = op->children[0]->estimate_rows;
  return QV_OK;
}

/* ---- FilterExec ---------------------------------------------------------- */

static qv_status filter_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  qv_expr *pred = op->state;
  qv_selection sel = QV_SELECTION_INIT;
  qv_status st = QV_OK;
  for (;;) {
    qv_batch *in = NULL;
    st = qv_exec_next(op->children[0], &in, err);
    if (st != QV_OK || !in) break;
    st = qv_eval_filter(pred, in, NULL, &sel, err);
    if (st == QV_OK && sel.count == in->num_rows) *out = qv_batch_retain(in);
    else if (st == QV_OK && sel.count > 0) st = qvx_batch_take(in, sel.rows, sel.count, out, err);
    qv_batch_release(in);
    if (st != QV_OK || *out) break;
  }
  qv_selection_reset(&sel);
  if (st != QV_OK) qv_error_prefix(err, st, "FilterExec");
  return st;
}

static void filter_free(qv_exec_op *op) { qv_expr_destroy(op->state); }
static void filter_explain(const qv_exec_op *op, qvb_text *t) { qvx_text_expr(t, op->state); }

static const qvx_op_vt filter_vt = {"FilterExec", NULL, filter_next, NULL, filter_free, filter_explain, NULL};

qv_status qv_exec_filter(qv_exec_ctx *ctx, qv_exec_op *child, const qv_expr *predicate, qv_exec_op **out,
                         qv_error *err) {
  *out = NULL;
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(&filter_vt, ctx, &child, 1, NULL, &op, err));
  qv_expr *pred = NULL;
  qv_status st = copy_child_schema(op, err);
  if (st == QV_OK) st = qvx_bind_copy("FilterExec", predicate, &child->schema, &pred, err);
  if (st == QV_OK && pred->type.id != QV_TYPE_BOOL && pred->type.id != QV_TYPE_NULL)
    st = qv_error_set(err, QV_ERR_TYPE, "FilterExec: the predicate is not boolean");
  op->state = pred;
  if (st != QV_OK) {
    qv_exec_destroy(op);
    return st;
  }
  *out = op;
  return QV_OK;
}

/* ---- ProjectionExec ------------------------------------------------------ */

typedef struct project_state {
  int32_t n;
  qv_expr **exprs;
} project_state;

static qv_status project_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  project_state *s = op->state;
  qv_batch *in = NULL;
  QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &in, err));
  if (!in) return QV_OK;
  qv_array **cols = qv_calloc((size_t)(s->n > 0 ? s->n : 1), sizeof *cols);
  qv_status st = cols ? QV_OK : qv_error_nomem(err, "ProjectionExec");
  for (int32_t i = 0; i < s->n && st == QV_OK; i++) {
    st = qv_eval(s->exprs[i], in, NULL, &cols[i], err);
    if (st != QV_OK) qv_error_prefix(err, st, "ProjectionExec: %s", op->schema.fields[i].name);
  }
  if (st == QV_OK) st = qv_batch_make(&op->schema, cols, in->num_rows, out, err);
  else if (cols)
    for (int32_t i = 0; i < s->n; i++) qv_array_release(cols[i]);
  qv_free(cols);
  qv_batch_release(in);
  return st;
}

static void project_free(qv_exec_op *op) {
  project_state *s = op->state;
  if (!s) return;
  for (int32_t i = 0; i < s->n; i++) qv_expr_destroy(s->exprs[i]);
  qv_free(s->exprs);
  qv_free(s);
}

static void project_explain(const qv_exec_op *op, qvb_text *t) {
  const project_state *s = op->state;
  qvb_text_s(t, "expr=[");
  for (int32_t i = 0; i < s->n; i++) {
    if (i) qvb_text_s(t, ", ");
    qvx_text_expr(t, s->exprs[i]);
    qvb_text_f(t, " AS %s", op->schema.fields[i].name);
  }
  qvb_text_s(t, "]");
}

static const qvx_op_vt project_vt = {"ProjectionExec", NULL, project_next, NULL, project_free, project_explain, NULL};

qv_status qv_exec_project(qv_exec_ctx *ctx, qv_exec_op *child, const qv_expr *const *exprs, const char *const *names,
                          int32_t n, qv_exec_op **out, qv_error *err) {
  *out = NULL;
  project_state *s = qv_calloc(1, sizeof *s);
  if (!s) {
    qv_exec_destroy(child);
    return qv_error_nomem(err, "ProjectionExec");
  }
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(&project_vt, ctx, &child, 1, s, &op, err));
  qv_status st = QV_OK;
  s->exprs = qv_calloc((size_t)(n > 0 ? n : 1), sizeof *s->exprs);
  if (!s->exprs) st = qv_error_nomem(err, "ProjectionExec");
  for (int32_t i = 0; i < n && st == QV_OK; i++) {
    st = qvx_bind_copy("ProjectionExec", exprs[i], &child->schema, &s->exprs[i], err);
    if (st != QV_OK) break;
    s->n = i + 1;
    qv_field f = {(char *)(names && names[i] ? names[i] : "?"), s->exprs[i]->type, true};
    if (!names || !names[i]) st = qv_error_set(err, QV_ERR_INVALID, "ProjectionExec: expression %d has no name", i);
    else if (qv_schema_add(&op->schema, &f, err) != QV_OK) st = qv_error_nomem(err, "ProjectionExec");
  }
  op->estimate_rows = child->estimate_rows;
  if (st != QV_OK) {
    qv_exec_destroy(op);
    return st;
  }
  *out = op;
  return QV_OK;
}

/* ---- LimitExec ------------------------------------------------------------ */

typedef struct limit_state {
  int64_t skip, limit;
  int64_t skipped, returned;
} limit_state;

static qv_status limit_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  limit_state *s = op->state;
  while (s->limit < 0 || s->returned < s->limit) {
    qv_batch *in = NULL;
    QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &in, err));
    if (!in) return QV_OK;
    int64_t from = 0, n = in->num_rows;
    if (s->skipped < s->skip) {
      int64_t k = s->skip - s->skipped < n ? s->skip - s->skipped : n;
      s->skipped += k;
      from = k;
      n -= k;
    }
    if (s->limit >= 0 && n > s->limit - s->returned) n = s->limit - s->returned;
    qv_status st = QV_OK;
    if (n > 0) {
      if (from == 0 && n == in->num_rows) *out = qv_batch_retain(in);
      else st = qv_batch_slice(in, from, n, out, err);
      s->returned += n;
    }
    qv_batch_release(in);
    if (st != QV_OK || *out) return st;
  }
  return QV_OK;
}

static void limit_free(qv_exec_op *op) { qv_free(op->state); }
static void limit_explain(const qv_exec_op *op, qvb_text *t) {
  const limit_state *s = op->state;
  qvb_text_f(t, "skip=%lld, fetch=", (long long)s->skip);
  if (s->limit < 0) qvb_text_s(t, "None");
  else qvb_text_f(t, "%lld", (long long)s->limit);
}

static const qvx_op_vt limit_vt = {"LimitExec", NULL, limit_next, NULL, limit_free, limit_explain, NULL};

qv_status qv_exec_limit(qv_exec_ctx *ctx, qv_exec_op *child, int64_t skip, int64_t limit, qv_exec_op **out,
                        qv_error *err) {
  *out = NULL;
  limit_state *s = qv_calloc(1, sizeof *s);
  if (!s) {
    qv_exec_destroy(child);
    return qv_error_nomem(err, "LimitExec");
  }
  s->skip = skip > 0 ? skip : 0;
  s->limit = limit < 0 ? -1 : limit;
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(&limit_vt, ctx, &child, 1, s, &op, err));
  qv_status st = copy_child_schema(op, err);
  if (st != QV_OK) {
    qv_exec_destroy(op);
    return st;
  }
  if (op->estimate_rows >= 0) {
    op->estimate_rows = op->estimate_rows > s->skip ? op->estimate_rows - s->skip : 0;
    if (s->limit >= 0 && s->limit < op->estimate_rows) op->estimate_rows = s->limit;
  }
  *out = op;
  return QV_OK;
}

/* ---- UnionExec ------------------------------------------------------------ */

static qv_status union_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  int32_t *at = op->state;
  while (*at < op->n_children) {
    qv_batch *in = NULL;
    QV_RETURN_NOT_OK(qv_exec_next(op->children[*at], &in, err));
    if (!in) {
      (*at)++;
      continue;
    }
    /* the first child's names on every batch */
    for (int32_t c = 0; c < in->schema.n_fields; c++) qv_array_retain(in->columns[c]);
    qv_status st = qv_batch_make(&op->schema, in->columns, in->num_rows, out, err); /* takes them, also on failure */
    qv_batch_release(in);
    return st;
  }
  return QV_OK;
}

static void union_free(qv_exec_op *op) { qv_free(op->state); }
static void union_explain(const qv_exec_op *op, qvb_text *t) { qvb_text_f(t, "inputs=%d", (int)op->n_children); }

static const qvx_op_vt union_vt = {"UnionExec", NULL, union_next, NULL, union_free, union_explain, NULL};

qv_status qv_exec_union(qv_exec_ctx *ctx, qv_exec_op **children, int32_t n, qv_exec_op **out, qv_error *err) {
  *out = NULL;
  int32_t *at = qv_calloc(1, sizeof *at);
  if (!at || n < 1) {
    qv_free(at);
    for (int32_t i = 0; i < n; i++) qv_exec_destroy(children[i]);
    return at ? qv_error_set(err, QV_ERR_INVALID, "UnionExec: needs at least one input")
              : qv_error_nomem(err, "UnionExec");
  }
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(&union_vt, ctx, children, n, at, &op, err));
  qv_status st = copy_child_schema(op, err);
  const qv_schema *first = &op->children[0]->schema;
  int64_t est = 0;
  for (int32_t i = 0; i < n && st == QV_OK; i++) {
    const qv_schema *s = &op->children[i]->schema;
    if (s->n_fields != first->n_fields) {
      st = qv_error_set(err, QV_ERR_TYPE, "UnionExec: input %d has %d columns, input 0 has %d", (int)i,
                        (int)s->n_fields, (int)first->n_fields);
      break;
    }
    for (int32_t c = 0; c < s->n_fields; c++) {
      if (!qv_datatype_equal(&s->fields[c].type, &first->fields[c].type)) {
        char a[64], b[64];
        qv_datatype_format(&s->fields[c].type, a, sizeof a);
        qv_datatype_format(&first->fields[c].type, b, sizeof b);
        st = qv_error_set(err, QV_ERR_TYPE, "UnionExec: column %d (`%s`) of input %d is %s, of input 0 %s", (int)c,
                          first->fields[c].name, (int)i, a, b);
        break;
      }
      if (s->fields[c].nullable) op->schema.fields[c].nullable = true;
    }
    int64_t e = op->children[i]->estimate_rows;
    est = est < 0 || e < 0 ? -1 : est + e;
  }
  if (st != QV_OK) {
    qv_exec_destroy(op);
    return st;
  }
  op->estimate_rows = est;
  *out = op;
  return QV_OK;
}
