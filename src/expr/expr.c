/* The expression IR: building, cloning, freeing, operator names. */
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
  if ((src->name && !(e->name = qv_strdup(src->name))) ||
      qv_scalar_copy(&src->value, &e->value) != QV_OK ||
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

qv_op qv_op_mirror(qv_op op) {
  switch (op) {
    case QV_OP_LT: return QV_OP_GT;
    case QV_OP_LE: return QV_OP_GE;
    case QV_OP_GT: return QV_OP_LT;
    case QV_OP_GE: return QV_OP_LE;
    default: return op;
  }
}

const char *qv_op_name(qv_op op) {
  switch (op) {
    case QV_OP_NONE: return "?";
    case QV_OP_EQ: return "=";
    case QV_OP_NE: return "!=";
    case QV_OP_LT: return "<";
    case QV_OP_LE: return "<=";
    case QV_OP_GT: return ">";
    case QV_OP_GE: return ">=";
    case QV_OP_AND: return "AND";
    case QV_OP_OR: return "OR";
    case QV_OP_XOR: return "XOR";
    case QV_OP_NOT: return "NOT";
    case QV_OP_IS_NULL: return "IS NULL";
    case QV_OP_IS_NOT_NULL: return "IS NOT NULL";
    case QV_OP_IS_TRUE: return "IS TRUE";
    case QV_OP_IS_NOT_TRUE: return "IS NOT TRUE";
    case QV_OP_IS_FALSE: return "IS FALSE";
    case QV_OP_IS_NOT_FALSE: return "IS NOT FALSE";
    case QV_OP_IN: return "IN";
    case QV_OP_BETWEEN: return "BETWEEN";
    case QV_OP_LIKE: return "LIKE";
    case QV_OP_CAST: return "CAST";
    case QV_OP_ADD: return "+";
    case QV_OP_SUB: return "-";
    case QV_OP_MUL: return "*";
    case QV_OP_DIV: return "/";
    case QV_OP_MOD: return "%";
    case QV_OP_NEG: return "-";
    case QV_OP_FIELD: return ".";
    case QV_OP_STARTS_WITH: return "starts_with";
    case QV_OP_ENDS_WITH: return "ends_with";
    case QV_OP_CONTAINS: return "contains";
    case QV_OP_REGEXP_LIKE: return "regexp_like";
    case QV_OP_REGEXP_MATCH: return "regexp_match";
    case QV_OP_LOWER: return "lower";
    case QV_OP_UPPER: return "upper";
    case QV_OP_LENGTH: return "length";
    case QV_OP_ABS: return "abs";
    case QV_OP_COALESCE: return "coalesce";
    case QV_OP_ISNAN: return "isnan";
    case QV_OP_ARRAY_HAS: return "array_has";
    case QV_OP_ARRAY_HAS_ANY: return "array_has_any";
    case QV_OP_ARRAY_HAS_ALL: return "array_has_all";
    case QV_OP_ARRAY_LENGTH: return "array_length";
    case QV_OP_DATE_PART: return "date_part";
    case QV_OP_DATE_TRUNC: return "date_trunc";
    case QV_OP_LIST: return "list";
    case QV_OP_FLOORDIV: return "//";
    case QV_OP_POW: return "**";
    case QV_OP_ROUND: return "round";
    case QV_OP_SQRT: return "sqrt";
    case QV_OP_LN: return "ln";
    case QV_OP_LOG10: return "log10";
    case QV_OP_CBRT: return "cbrt";
    case QV_OP_LOG: return "log";
    case QV_OP_IS_NOT_NAN: return "is_not_nan";
    case QV_OP_IS_FINITE: return "is_finite";
    case QV_OP_IS_INFINITE: return "is_infinite";
    case QV_OP_EQ_MISSING: return "eq_missing";
    case QV_OP_NE_MISSING: return "ne_missing";
    case QV_OP_FILL_NULL: return "fill_null";
    case QV_OP_WHEN: return "when";
    case QV_OP_MIN_HORIZONTAL: return "min_horizontal";
    case QV_OP_MAX_HORIZONTAL: return "max_horizontal";
    case QV_OP_ALL_HORIZONTAL: return "all_horizontal";
    case QV_OP_ANY_HORIZONTAL: return "any_horizontal";
    case QV_OP_CONCAT_STR: return "concat_str";
    case QV_OP_STR_SLICE: return "str.slice";
    case QV_OP_STRIP_CHARS: return "str.strip_chars";
    case QV_OP_REPLACE: return "str.replace";
    case QV_OP_CONTAINS_ANY: return "str.contains_any";
    case QV_OP_TITLECASE: return "str.to_titlecase";
    case QV_OP_LEN_BYTES: return "str.len_bytes";
    case QV_OP_DT_PART: return "dt.part";
    case QV_OP_DT_EPOCH: return "dt.epoch";
    case QV_OP_DT_TRUNCATE: return "dt.truncate";
    case QV_OP_DT_DATE: return "dt.date";
    case QV_OP_LIST_GET: return "list.get";
    case QV_OP_DROP_NULLS: return "drop_nulls";
    case QV_OP_UNKNOWN: return "unknown";
    case QV_OP__COUNT: break;
  }
  return "?";
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
