/* Filter programs: a subset of a bound filter's conjuncts, ANDed and
 * renumbered onto the narrow batch of just the columns they read.  The
 * scanner keeps two: the whole filter, and the refine part left once the
 * indices have answered the rest. */
#include <string.h>

#include "scan/scan_int.h"

void qvsc_filter_prog_reset(qvsc_filter_prog *p) {
  qv_expr_destroy(p->expr);
  qv_schema_reset(&p->schema);
  qv_free(p->cols);
  memset(p, 0, sizeof *p);
}

static void renumber(qv_expr *e, const int32_t *cols, int32_t n) {
  if (e->kind == QV_EXPR_COLUMN)
    for (int32_t i = 0; i < n; i++)
      if (cols[i] == e->column) {
        e->column = i;
        break;
      }
  for (int32_t i = 0; i < e->n_args; i++) renumber(e->args[i], cols, n);
}

qv_status qvsc_filter_columns(const qv_expr *e, int32_t **out_cols, int32_t *out_n, qv_error *err) {
  *out_cols = NULL;
  *out_n = 0;
  int32_t cols[1024];
  int32_t n = qv_expr_columns(e, cols, 1024);
  if (n > 1024) return qv_error_set(err, QV_ERR_UNSUPPORTED, "filter: reads more than 1024 columns");
  for (int32_t i = 1; i < n; i++)
    for (int32_t j = i; j > 0 && cols[j - 1] > cols[j]; j--) {
      int32_t t = cols[j];
      cols[j] = cols[j - 1];
      cols[j - 1] = t;
    }
  *out_cols = qv_calloc((size_t)(n > 0 ? n : 1), sizeof **out_cols);
  if (!*out_cols) return qv_error_nomem(err, NULL);
  memcpy(*out_cols, cols, (size_t)n * sizeof *cols);
  *out_n = n;
  return QV_OK;
}

qv_status qvsc_filter_prog_build(const qv_schema *ds, const qv_expr *const *conjuncts, int32_t n, qvsc_filter_prog *out,
                                 qv_error *err) {
  memset(out, 0, sizeof *out);
  qv_expr *all = NULL;
  for (int32_t i = 0; i < n; i++) {
    qv_expr *c = qv_expr_clone(conjuncts[i]);
    if (!c) goto nomem;
    if (!all) {
      all = c;
      continue;
    }
    qv_expr *and = qv_expr_binary(QV_OP_AND, all, c);
    if (!and) {
      all = NULL;
      goto nomem;
    }
    and->type = qv_datatype_simple(QV_TYPE_BOOL);
    all = and;
  }
  if (!all) return QV_OK;
  qv_status st = qvsc_filter_columns(all, &out->cols, &out->n_cols, err);
  if (st != QV_OK) {
    qv_expr_destroy(all);
    return st;
  }
  for (int32_t i = 0; i < out->n_cols; i++)
    if (qv_schema_add(&out->schema, &ds->fields[out->cols[i]], err) != QV_OK) {
      qv_expr_destroy(all);
      qvsc_filter_prog_reset(out);
      return QV_ERR_NOMEM;
    }
  renumber(all, out->cols, out->n_cols);
  out->expr = all;
  return QV_OK;
nomem:
  qv_expr_destroy(all);
  qvsc_filter_prog_reset(out);
  return qv_error_nomem(err, NULL);
}
