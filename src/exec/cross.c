/* CrossJoinExec and UnwindExec, the two operators that turn one input row
 * into many.  CrossJoinExec holds the right side joined into one batch
 * (counted against the memory limit) and one left batch; UnwindExec holds
 * one input batch.  Both yield output in pieces of about batch_size rows
 * (at least one input row's worth), built with take. */
#include <string.h>

#include "exec/exec_int.h"

typedef struct cross_state {
  qv_batch *right;
  qv_batch *left; /* the current left batch */
  int64_t at;     /* its next row */
  /* UnwindExec */
  int32_t column;
  char *as_name, *ord_name;
} cross_state;

static qv_status emit(qv_exec_op *op, const qv_batch *a, const uint32_t *ai, const qv_array *extra, const uint32_t *ei,
                      const qv_batch *b, const uint32_t *bi, int64_t n, qv_array *ord, qv_batch **out, qv_error *err) {
  int32_t nc = op->schema.n_fields, c = 0;
  qv_array **cols = qv_calloc((size_t)nc + 1, sizeof *cols);
  if (!cols) {
    qv_array_release(ord);
    return qv_error_nomem(err, op->vt->name);
  }
  qv_status st = QV_OK;
  for (int32_t i = 0; i < a->schema.n_fields && st == QV_OK; i++)
    st = qv_array_take(a->columns[i], ai, n, &cols[c++], err);
  if (extra && st == QV_OK) st = qv_array_take(extra, ei, n, &cols[c++], err);
  for (int32_t i = 0; b && i < b->schema.n_fields && st == QV_OK; i++)
    st = qv_array_take(b->columns[i], bi, n, &cols[c++], err);
  if (ord) cols[c++] = ord;
  if (st == QV_OK) st = qv_batch_make(&op->schema, cols, n, out, err);
  else
    for (int32_t i = 0; i < nc; i++) qv_array_release(cols[i]);
  qv_free(cols);
  return st;
}

/* ---- CrossJoinExec ---------------------------------------------------------- */

static qv_status cross_open(qv_exec_op *op, qv_error *err) {
  cross_state *s = op->state;
  qv_exec_op *r = op->children[1];
  qv_batch **parts = NULL;
  int32_t n = 0, cap = 0;
  qv_status st = QV_OK;
  int64_t bytes = 0;
  for (;;) {
    qv_batch *b = NULL;
    st = qv_exec_next(r, &b, err);
    if (st != QV_OK || !b) break;
    st = qvx_reserve(op, qvx_batch_bytes(b), "right side", err);
    if (st == QV_OK && n == cap) {
      cap = cap ? cap * 2 : 16;
      qv_batch **np = qv_realloc(parts, (size_t)cap * sizeof *np);
      if (!np) st = qv_error_nomem(err, "CrossJoinExec");
      else parts = np;
    }
    if (st != QV_OK) {
      qv_batch_release(b);
      break;
    }
    bytes += qvx_batch_bytes(b);
    parts[n++] = b;
  }
  if (st == QV_OK) st = qvx_batch_concat(&r->schema, parts, n, &s->right, err);
  for (int32_t i = 0; i < n; i++) qv_batch_release(parts[i]);
  qv_free(parts);
  if (st == QV_OK) st = qvx_reserve(op, qvx_batch_bytes(s->right) - bytes, "right side", err);
  return st;
}

static qv_status cross_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  cross_state *s = op->state;
  int64_t nr = s->right->num_rows;
  if (nr == 0) return QV_OK; /* nothing to pair with: the left is not read */
  while (!s->left || s->at >= s->left->num_rows) {
    qv_batch_release(s->left);
    s->left = NULL;
    s->at = 0;
    QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &s->left, err));
    if (!s->left) return QV_OK;
  }
  int64_t m = op->ctx->batch_size / nr;
  if (m < 1) m = 1;
  if (m > s->left->num_rows - s->at) m = s->left->num_rows - s->at;
  int64_t n = m * nr;
  if (n > UINT32_MAX) return qv_error_set(err, QV_ERR_UNSUPPORTED, "CrossJoinExec: over 2^32 rows in one piece");
  uint32_t *li = qv_malloc((size_t)n * sizeof *li), *ri = qv_malloc((size_t)n * sizeof *ri);
  qv_status st = QV_OK;
  if (!li || !ri) st = qv_error_nomem(err, "CrossJoinExec");
  for (int64_t i = 0, o = 0; st == QV_OK && i < m; i++)
    for (int64_t j = 0; j < nr; j++, o++) {
      li[o] = (uint32_t)(s->at + i);
      ri[o] = (uint32_t)j;
    }
  if (st == QV_OK) st = emit(op, s->left, li, NULL, NULL, s->right, ri, n, NULL, out, err);
  s->at += m;
  qv_free(li);
  qv_free(ri);
  return st;
}

static void cross_close(qv_exec_op *op) {
  cross_state *s = op->state;
  qv_batch_release(s->right);
  qv_batch_release(s->left);
  s->right = s->left = NULL;
}

static void cross_free(qv_exec_op *op) {
  cross_state *s = op->state;
  if (!s) return;
  cross_close(op);
  qv_free(s->as_name);
  qv_free(s->ord_name);
  qv_free(s);
}

static void cross_explain(const qv_exec_op *op, qvb_text *t) {
  (void)op;
  qvb_text_s(t, "left-major");
}

static const qvx_op_vt cross_vt = {"CrossJoinExec", cross_open,    cross_next, cross_close,
                                   cross_free,      cross_explain, NULL};

qv_status qv_exec_cross_join(qv_exec_ctx *ctx, qv_exec_op *left, qv_exec_op *right, qv_exec_op **out, qv_error *err) {
  *out = NULL;
  cross_state *s = qv_calloc(1, sizeof *s);
  qv_exec_op *kids[2] = {left, right};
  if (!s) {
    qv_exec_destroy(left);
    qv_exec_destroy(right);
    return qv_error_nomem(err, "CrossJoinExec");
  }
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(&cross_vt, ctx, kids, 2, s, &op, err));
  qv_status st = qv_schema_copy(&left->schema, &op->schema) == QV_OK ? QV_OK : qv_error_nomem(err, "CrossJoinExec");
  for (int32_t c = 0; c < right->schema.n_fields && st == QV_OK; c++)
    if (qv_schema_add(&op->schema, &right->schema.fields[c], err) != QV_OK) st = qv_error_nomem(err, "CrossJoinExec");
  if (st != QV_OK) {
    qv_exec_destroy(op);
    return st;
  }
  if (left->estimate_rows >= 0 && right->estimate_rows >= 0)
    op->estimate_rows = left->estimate_rows * right->estimate_rows;
  *out = op;
  return QV_OK;
}

/* ---- UnwindExec --------------------------------------------------------------- */

static qv_status unwind_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  cross_state *s = op->state;
  for (;;) {
    while (!s->left || s->at >= s->left->num_rows) {
      qv_batch_release(s->left);
      s->left = NULL;
      s->at = 0;
      QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &s->left, err));
      if (!s->left) return QV_OK;
    }
    const qv_array *list = s->left->columns[s->column];
    if (list->type.id == QV_TYPE_NULL) {
      s->at = s->left->num_rows;
      continue;
    }
    const int32_t *o = qv_array_offsets(list);
    /* rows [at, end) whose elements come to about batch_size */
    int64_t end = s->at, n = 0;
    while (end < s->left->num_rows && (n == 0 || n + (o[end + 1] - o[end]) <= op->ctx->batch_size)) {
      if (qv_array_is_valid(list, end)) n += o[end + 1] - o[end];
      end++;
    }
    if (n == 0) {
      s->at = end;
      continue;
    }
    uint32_t *pi = qv_malloc((size_t)n * sizeof *pi), *ei = qv_malloc((size_t)n * sizeof *ei);
    qv_bytes *ordb = s->ord_name ? qv_bytes_alloc(n * 8) : NULL;
    qv_status st = QV_OK;
    if (!pi || !ei || (s->ord_name && !ordb)) st = qv_error_nomem(err, "UnwindExec");
    int64_t k = 0;
    for (int64_t r = s->at; st == QV_OK && r < end; r++) {
      if (!qv_array_is_valid(list, r)) continue;
      for (int32_t e = o[r]; e < o[r + 1]; e++, k++) {
        pi[k] = (uint32_t)r;
        ei[k] = (uint32_t)e;
        if (ordb) ((int64_t *)qv_bytes_mutable(ordb))[k] = e - o[r] + 1;
      }
    }
    qv_array *ord = NULL;
    if (st == QV_OK && ordb) {
      qv_datatype i64 = qv_datatype_simple(QV_TYPE_INT64);
      st = qv_array_from_buffers(&i64, n, NULL, ordb, NULL, &ord, err);
      ordb = NULL;
    }
    if (st == QV_OK) st = emit(op, s->left, pi, list->children[0], ei, NULL, NULL, n, ord, out, err);
    qv_bytes_release(ordb);
    qv_free(pi);
    qv_free(ei);
    s->at = end;
    return st;
  }
}

static void unwind_explain(const qv_exec_op *op, qvb_text *t) {
  const cross_state *s = op->state;
  qvb_text_f(t, "list=%s, as=%s", op->children[0]->schema.fields[s->column].name, s->as_name);
  if (s->ord_name) qvb_text_f(t, ", ordinality=%s", s->ord_name);
}

static const qvx_op_vt unwind_vt = {"UnwindExec", NULL, unwind_next, cross_close, cross_free, unwind_explain, NULL};

qv_status qv_exec_unwind(qv_exec_ctx *ctx, qv_exec_op *child, const char *column, const char *as_name,
                         const char *ordinality_name, qv_exec_op **out, qv_error *err) {
  *out = NULL;
  cross_state *s = qv_calloc(1, sizeof *s);
  if (!s) {
    qv_exec_destroy(child);
    return qv_error_nomem(err, "UnwindExec");
  }
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(&unwind_vt, ctx, &child, 1, s, &op, err));
  qv_status st = QV_OK;
  s->column = column ? qv_schema_find(&child->schema, column) : -1;
  const qv_field *lf = s->column >= 0 ? &child->schema.fields[s->column] : NULL;
  if (!lf) st = qv_error_set(err, QV_ERR_NOT_FOUND, "UnwindExec: no column `%s`", column ? column : "(null)");
  else if (lf->type.id != QV_TYPE_LIST && lf->type.id != QV_TYPE_NULL)
    st = qv_error_set(err, QV_ERR_TYPE, "UnwindExec: column `%s` is not a list", column);
  else if (!as_name) st = qv_error_set(err, QV_ERR_INVALID, "UnwindExec: the element needs a name");
  if (st == QV_OK) {
    s->as_name = qv_strdup(as_name);
    s->ord_name = ordinality_name ? qv_strdup(ordinality_name) : NULL;
    if (!s->as_name || (ordinality_name && !s->ord_name) || qv_schema_copy(&child->schema, &op->schema) != QV_OK)
      st = qv_error_nomem(err, "UnwindExec");
  }
  if (st == QV_OK) {
    qv_field f = {s->as_name, QV_DATATYPE_INIT, true};
    if (lf->type.id == QV_TYPE_LIST) f.type = lf->type.children[0].type;
    if (qv_schema_add(&op->schema, &f, err) != QV_OK) st = qv_error_nomem(err, "UnwindExec");
    qv_field g = {s->ord_name, qv_datatype_simple(QV_TYPE_INT64), false};
    if (st == QV_OK && s->ord_name && qv_schema_add(&op->schema, &g, err) != QV_OK)
      st = qv_error_nomem(err, "UnwindExec");
  }
  if (st != QV_OK) {
    qv_exec_destroy(op);
    return st;
  }
  *out = op;
  return QV_OK;
}
