/* The expression IR: building, cloning, freeing (operator names and
 * classes come from the registry: expr/ops.def, op_info.c). */
#include "quiver/expr.h"

#include <string.h>

static qv_expr *expr_new(qv_expr_kind kind) {
  qv_expr *e = qv_calloc(1, sizeof *e);
  if (!e) return NULL;
  e->kind = kind;
  e->column = -1;
  e->value.is_null = true;
  qv_semantics lance = QV_SEMANTICS_LANCE;
  e->sem = lance;
  return e;
}

qv_expr *qv_expr_column(const char *name) {
  qv_expr *e = expr_new(QV_EXPR_COLUMN);
  if (!e) return NULL;
  e->name = qv_strdup(name);
  if (!e->name) {
    qv_free(e);
    return NULL;
  }
  return e;
}

qv_expr *qv_expr_literal(qv_scalar *value) {
  qv_expr *e = expr_new(QV_EXPR_LITERAL);
  if (!e) {
    qv_scalar_reset(value);
    return NULL;
  }
  e->value = *value;
  memset(value, 0, sizeof *value);
  value->is_null = true;
  if (qv_datatype_copy(&e->value.type, &e->type) != QV_OK) {
    qv_expr_destroy(e);
    return NULL;
  }
  return e;
}

qv_expr *qv_expr_call(qv_op op, qv_expr **args, int32_t n_args) {
  qv_expr *e = expr_new(QV_EXPR_CALL);
  if (e && n_args > 0) e->args = qv_calloc((size_t)n_args, sizeof *e->args);
  if (!e || (n_args > 0 && !e->args)) {
    for (int32_t i = 0; i < n_args; i++) qv_expr_destroy(args[i]);
    if (e) qv_free(e);
    return NULL;
  }
  e->op = op;
  e->n_args = n_args;
  bool missing = false;
  for (int32_t i = 0; i < n_args; i++) {
    e->args[i] = args[i];
    if (!args[i]) missing = true;
  }
  if (missing) { /* a failed inner builder propagates as NULL */
    qv_expr_destroy(e);
    return NULL;
  }
  return e;
}

qv_expr *qv_expr_unary(qv_op op, qv_expr *a) { return qv_expr_call(op, &a, 1); }

qv_expr *qv_expr_binary(qv_op op, qv_expr *a, qv_expr *b) {
  qv_expr *args[2] = {a, b};
  return qv_expr_call(op, args, 2);
}

qv_expr *qv_expr_clone(const qv_expr *src) {
  if (!src) return NULL;
  qv_expr *e = expr_new(src->kind);
  if (!e) return NULL;
  e->op = src->op;
  e->column = src->column;
  e->sem = src->sem;
  e->pos = src->pos;
  e->flags = src->flags;
  e->param = src->param;
  if ((src->name && !(e->name = qv_strdup(src->name))) || qv_scalar_copy(&src->value, &e->value) != QV_OK ||
      qv_datatype_copy(&src->type, &e->type) != QV_OK)
    goto cleanup;
  if (src->n_args) {
    e->args = qv_calloc((size_t)src->n_args, sizeof *e->args);
    if (!e->args) goto cleanup;
    e->n_args = src->n_args;
    for (int32_t i = 0; i < src->n_args; i++)
      if (!(e->args[i] = qv_expr_clone(src->args[i]))) goto cleanup;
  }
  return e;
cleanup:
  qv_expr_destroy(e);
  return NULL;
}

void qv_expr_destroy(qv_expr *e) {
  if (!e) return;
  for (int32_t i = 0; i < e->n_args; i++) qv_expr_destroy(e->args[i]);
  qv_free(e->args);
  qv_free(e->name);
  qv_scalar_reset(&e->value);
  qv_datatype_reset(&e->type);
  qv_free(e);
}

static void collect_columns(const qv_expr *e, int32_t *out, int32_t cap, int32_t *n) {
  if (e->kind == QV_EXPR_COLUMN && e->column >= 0) {
    for (int32_t i = 0; i < *n && i < cap; i++)
      if (out[i] == e->column) return;
    if (*n < cap) out[*n] = e->column;
    (*n)++;
  }
  for (int32_t i = 0; i < e->n_args; i++) collect_columns(e->args[i], out, cap, n);
}

int32_t qv_expr_columns(const qv_expr *e, int32_t *out, int32_t cap) {
  int32_t n = 0;
  collect_columns(e, out, cap, &n);
  return n;
}

int32_t qv_expr_conjuncts(const qv_expr *e, const qv_expr **out, int32_t cap) {
  if (e->kind == QV_EXPR_CALL && e->op == QV_OP_AND) {
    int32_t n = qv_expr_conjuncts(e->args[0], out, cap);
    return n + qv_expr_conjuncts(e->args[1], n < cap ? out + n : out + cap, cap > n ? cap - n : 0);
  }
  if (cap > 0) out[0] = e;
  return 1;
}
