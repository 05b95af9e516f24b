/* ApplyExec: a subplan run per input batch (graph/cypher_ops.h), for
 * OPTIONAL MATCH, pattern predicates / EXISTS, COUNT { } and pattern
 * comprehensions.
 *
 * Each input batch gets a hidden column "  row" numbering its rows and
 * becomes the source of a fresh subplan (the planner's build callback);
 * the subplan's output, which carries "  row" through, is gathered whole
 * and combined with the batch by row number.  So ApplyExec holds one
 * input batch and the subplan's output for it.  The subplan built once
 * over an empty source at construction gives the output schema and is
 * kept as the operator's second child for explain; it never runs. */
#include <string.h>

#include "graph/cypher_ops.h"

#define ROW_COL "  row"

typedef struct apply_state {
  qvg_apply_mode mode;
  qvg_subplan_fn build;
  void *arg;
  char *name;
  int32_t value_col;
  qv_schema in_schema; /* the child's columns and "  row" */
  int32_t sub_row;     /* "  row" in the subplan's output */
} apply_state;

/* The subplan over batch b (NULL: no rows). */
static qv_status subplan(qv_exec_op *op, qv_batch *b, qv_exec_op **out, qv_error *err) {
  apply_state *s = op->state;
  qv_exec_op *src = NULL;
  qv_batch *ib = NULL;
  qv_status rc = QV_OK;
  if (b) {
    int32_t nc = b->schema.n_fields;
    qv_array **cols = qv_calloc((size_t)nc + 1, sizeof *cols);
    qv_bytes *rb = qv_bytes_alloc(b->num_rows * 8);
    if (!cols || !rb) {
      qv_free(cols);
      qv_bytes_release(rb);
      return qv_error_nomem(err, "ApplyExec");
    }
    int64_t *r = (int64_t *)qv_bytes_mutable(rb);
    for (int64_t i = 0; i < b->num_rows; i++) r[i] = i;
    for (int32_t c = 0; c < nc; c++) cols[c] = qv_array_retain(b->columns[c]);
    qv_datatype t = qv_datatype_simple(QV_TYPE_INT64);
    rc = qv_array_from_buffers(&t, b->num_rows, NULL, rb, NULL, &cols[nc], err);
    if (rc == QV_OK) rc = qv_batch_make(&s->in_schema, cols, b->num_rows, &ib, err);
    else
      for (int32_t c = 0; c < nc; c++) qv_array_release(cols[c]);
    qv_free(cols);
    if (rc != QV_OK) return rc;
  }
  rc = qv_exec_batches(op->ctx, &s->in_schema, &ib, ib ? 1 : 0, &src, err);
  qv_batch_release(ib);
  if (rc != QV_OK) return rc;
  rc = s->build(s->arg, src, out, err);
  if (rc != QV_OK) qv_error_prefix(err, rc, "ApplyExec: building the subplan");
  return rc;
}

/* Runs the subplan over b and gathers its output in one batch. */
static qv_status run_sub(qv_exec_op *op, qv_batch *b, qv_batch **out, qv_error *err) {
  *out = NULL;
  qv_exec_op *sub;
  QV_RETURN_NOT_OK(subplan(op, b, &sub, err));
  qv_batch **parts = NULL;
  int32_t n = 0, cap = 0;
  int64_t bytes = 0;
  qv_status rc = QV_OK;
  for (;;) {
    qv_batch *x = NULL;
    if ((rc = qv_exec_next(sub, &x, err)) != QV_OK || !x) break;
    if ((rc = qvx_reserve(op, qvx_batch_bytes(x), "the subplan's output", err)) != QV_OK) {
      qv_batch_release(x);
      break;
    }
    bytes += qvx_batch_bytes(x);
    if (n == cap) {
      cap = cap ? cap * 2 : 8;
      qv_batch **np = qv_realloc(parts, (size_t)cap * sizeof *np);
      if (!np) {
        qv_batch_release(x);
        rc = qv_error_nomem(err, "ApplyExec");
        break;
      }
      parts = np;
    }
    parts[n++] = x;
  }
  if (rc == QV_OK) rc = qvx_batch_concat(qv_exec_schema(sub), parts, n, out, err);
  for (int32_t i = 0; i < n; i++) qv_batch_release(parts[i]);
  qv_free(parts);
  qvx_reserve(op, -bytes, "the subplan's output", err);
  qv_exec_destroy(sub);
  return rc;
}

/* Sub rows grouped by input row, stable: rows of input row i are
 * order[start[i] .. start[i + 1]). */
static qv_status group(const qv_batch *sb, int32_t row_col, int64_t n_in, int64_t **start, uint32_t **order,
                       qv_error *err) {
  int64_t n = sb->num_rows;
  *start = qv_calloc((size_t)n_in + 2, sizeof **start);
  *order = qv_malloc((size_t)(n ? n : 1) * sizeof **order);
  if (!*start || !*order) return qv_error_nomem(err, "ApplyExec");
  const qv_array *rc = sb->columns[row_col];
  const int64_t *r = qv_array_values(rc);
  for (int64_t i = 0; i < n; i++) {
    if (!qv_array_is_valid(rc, i) || r[i] < 0 || r[i] >= n_in)
      return qv_error_set(err, QV_ERR_INVALID, "ApplyExec: the subplan lost or changed its \"  row\" column");
    (*start)[r[i] + 1]++;
  }
  for (int64_t i = 0; i < n_in; i++) (*start)[i + 1] += (*start)[i];
  int64_t *at = qv_malloc((size_t)(n_in ? n_in : 1) * sizeof *at);
  if (!at) return qv_error_nomem(err, "ApplyExec");
  memcpy(at, *start, (size_t)n_in * sizeof *at);
  for (int64_t i = 0; i < n; i++) (*order)[at[r[i]]++] = (uint32_t)i;
  qv_free(at);
  return QV_OK;
}

/* OPTIONAL: the sub rows, and each input row without any once with the
 * new columns null, in input order. */
static qv_status combine_optional(qv_exec_op *op, qv_batch *b, qv_batch *sb, const int64_t *start,
                                  const uint32_t *order, qv_batch **out, qv_error *err) {
  apply_state *s = op->state;
  int32_t nc = op->schema.n_fields, n_in = b->schema.n_fields;
  int64_t unmatched = 0;
  for (int64_t i = 0; i < b->num_rows; i++) unmatched += start[i + 1] == start[i];
  qv_array **cols = qv_calloc((size_t)nc + 1, sizeof *cols);
  uint32_t *urows = qv_malloc((size_t)(unmatched ? unmatched : 1) * sizeof *urows);
  uint32_t *idx = qv_malloc((size_t)(sb->num_rows + unmatched + 1) * sizeof *idx);
  qv_batch *sp = NULL, *ub = NULL, *all = NULL;
  qv_status rc = QV_OK;
  if (!cols || !urows || !idx) {
    rc = qv_error_nomem(err, "ApplyExec");
    goto cleanup;
  }
  int64_t k = 0, u = 0;
  for (int64_t i = 0; i < b->num_rows; i++) {
    if (start[i + 1] == start[i]) {
      urows[u] = (uint32_t)i;
      idx[k++] = (uint32_t)(sb->num_rows + u++);
    }
    for (int64_t j = start[i]; j < start[i + 1]; j++) idx[k++] = order[j];
  }
  /* the sub rows without "  row" */
  int32_t *keep = qv_malloc((size_t)nc * sizeof *keep);
  if (!keep) {
    rc = qv_error_nomem(err, "ApplyExec");
    goto cleanup;
  }
  for (int32_t c = 0, o = 0; c < sb->schema.n_fields; c++)
    if (c != s->sub_row) keep[o++] = c;
  rc = qv_batch_project(sb, keep, nc, &sp, err);
  qv_free(keep);
  /* the unmatched rows, null-extended */
  for (int32_t c = 0; c < nc && rc == QV_OK; c++)
    rc = c < n_in ? qv_array_take(b->columns[c], urows, unmatched, &cols[c], err)
                  : qv_array_make_null(&op->schema.fields[c].type, unmatched, &cols[c], err);
  if (rc == QV_OK) rc = qv_batch_make(&op->schema, cols, unmatched, &ub, err);
  else
    for (int32_t c = 0; c < nc; c++) qv_array_release(cols[c]);
  if (rc == QV_OK) {
    /* the subplan's batch carries its own schema (names may differ in nullability): take op's */
    qv_batch *sp2 = NULL;
    qv_array **sc = qv_calloc((size_t)nc + 1, sizeof *sc);
    if (!sc) rc = qv_error_nomem(err, "ApplyExec");
    for (int32_t c = 0; c < nc && rc == QV_OK; c++) sc[c] = qv_array_retain(sp->columns[c]);
    if (rc == QV_OK) rc = qv_batch_make(&op->schema, sc, sp->num_rows, &sp2, err);
    qv_free(sc);
    qv_batch *two[2] = {sp2, ub};
    if (rc == QV_OK) rc = qvx_batch_concat(&op->schema, two, 2, &all, err);
    qv_batch_release(sp2);
  }
  if (rc == QV_OK) rc = qvx_batch_take(all, idx, k, out, err);
cleanup:
  qv_batch_release(sp);
  qv_batch_release(ub);
  qv_batch_release(all);
  qv_free(cols);
  qv_free(urows);
  qv_free(idx);
  return rc;
}

/* EXISTS, COUNT, COLLECT: the input and one VALUE column. */
static qv_status combine_value(qv_exec_op *op, qv_batch *b, qv_batch *sb, const int64_t *start, const uint32_t *order,
                               qv_batch **out, qv_error *err) {
  apply_state *s = op->state;
  int32_t n_in = b->schema.n_fields;
  qv_builder bl;
  qv_datatype bin = qv_datatype_simple(QV_TYPE_BINARY);
  QV_RETURN_NOT_OK(qv_builder_init(&bl, &bin, err));
  qvg_arena arena = QVG_ARENA_INIT;
  qvg_val *items = NULL;
  qv_status rc = QV_OK;
  const qv_array *vc = s->mode == QVG_APPLY_COLLECT ? sb->columns[s->value_col] : NULL;
  qvg_colkind vk = vc && vc->type.id == QV_TYPE_INT64 ? QVG_COL_NODE : QVG_COL_VALUE;
  for (int64_t i = 0; i < b->num_rows && rc == QV_OK; i++) {
    int64_t n = start[i + 1] - start[i];
    qvg_val v;
    if (s->mode == QVG_APPLY_EXISTS) v = qvg_bool(n > 0);
    else if (s->mode == QVG_APPLY_COUNT) v = qvg_int(n);
    else {
      qvg_arena_clear(&arena);
      items = n ? qvg_arena_alloc(&arena, (size_t)n * sizeof *items) : NULL;
      if (n && !items) {
        rc = qv_error_nomem(err, "ApplyExec");
        break;
      }
      for (int64_t j = 0; j < n && rc == QV_OK; j++)
        rc = qvg_val_from_array(vc, vk, order[start[i] + j], &arena, &items[j], err);
      v.t = QVG_V_LIST;
      v.n = (int32_t)n;
      v.u.l = items;
    }
    if (rc == QV_OK) rc = qvg_val_append(&bl, QVG_COL_VALUE, &v, err);
  }
  qvg_arena_free(&arena);
  qv_array **cols = qv_calloc((size_t)n_in + 1, sizeof *cols);
  if (!cols && rc == QV_OK) rc = qv_error_nomem(err, "ApplyExec");
  if (rc == QV_OK) rc = qv_builder_finish(&bl, &cols[n_in], err);
  else qv_builder_reset(&bl);
  if (rc == QV_OK) {
    for (int32_t c = 0; c < n_in; c++) cols[c] = qv_array_retain(b->columns[c]);
    rc = qv_batch_make(&op->schema, cols, b->num_rows, out, err);
  }
  qv_free(cols);
  return rc;
}

static qv_status apply_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  apply_state *s = op->state;
  for (;;) {
    qv_batch *b = NULL, *sb = NULL;
    QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &b, err));
    if (!b) return QV_OK;
    int64_t *start = NULL;
    uint32_t *order = NULL;
    qv_status rc = run_sub(op, b, &sb, err);
    if (rc == QV_OK) rc = group(sb, s->sub_row, b->num_rows, &start, &order, err);
    if (rc == QV_OK) {
      if (s->mode == QVG_APPLY_OPTIONAL) rc = combine_optional(op, b, sb, start, order, out, err);
      else rc = combine_value(op, b, sb, start, order, out, err);
    }
    qv_free(start);
    qv_free(order);
    qv_batch_release(sb);
    qv_batch_release(b);
    if (rc != QV_OK || *out) return rc;
  }
}

static void apply_free(qv_exec_op *op) {
  apply_state *s = op->state;
  if (!s) return;
  qv_free(s->name);
  qv_schema_reset(&s->in_schema);
  qv_free(s);
}

static const char *mode_name(qvg_apply_mode m) {
  switch (m) {
    case QVG_APPLY_OPTIONAL: return "optional";
    case QVG_APPLY_EXISTS: return "exists";
    case QVG_APPLY_COUNT: return "count";
    default: return "collect";
  }
}

static void apply_explain(const qv_exec_op *op, qvb_text *t) {
  const apply_state *s = op->state;
  qvb_text_f(t, "mode=%s", mode_name(s->mode));
  if (s->mode != QVG_APPLY_OPTIONAL) qvb_text_f(t, ", as=%s", s->name);
  if (s->mode == QVG_APPLY_COLLECT) qvb_text_f(t, ", value=%s", op->children[1]->schema.fields[s->value_col].name);
}

/* The template subplan runs never: only explain reads it. */
static const qvx_op_vt apply_vt = {"ApplyExec", NULL, apply_next, NULL, apply_free, apply_explain, NULL};

qv_status qvg_op_apply(qv_exec_ctx *ctx, qv_exec_op *child, qvg_apply_mode mode, qvg_subplan_fn build, void *arg,
                       const char *name, int32_t value_col, qv_exec_op **out, qv_error *err) {
  *out = NULL;
  if (!build || (mode != QVG_APPLY_OPTIONAL && !name)) {
    qv_exec_destroy(child);
    return qv_error_set(err, QV_ERR_INVALID, "ApplyExec: needs a subplan and, but for OPTIONAL, a column name");
  }
  apply_state *s = qv_calloc(1, sizeof *s);
  if (!s) {
    qv_exec_destroy(child);
    return qv_error_nomem(err, "ApplyExec");
  }
  s->mode = mode;
  s->build = build;
  s->arg = arg;
  s->value_col = value_col;
  qv_field rf = {ROW_COL, qv_datatype_simple(QV_TYPE_INT64), false};
  if ((name && !(s->name = qv_strdup(name))) || qv_schema_copy(&child->schema, &s->in_schema) != QV_OK ||
      qv_schema_add(&s->in_schema, &rf, err) != QV_OK) {
    qv_exec_destroy(child);
    apply_free(&(qv_exec_op){.state = s});
    return qv_error_nomem(err, "ApplyExec");
  }
  /* the template: the same subplan over no rows */
  qv_exec_op tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.ctx = ctx;
  tmp.state = s;
  qv_exec_op *tmpl = NULL;
  qv_status rc = subplan(&tmp, NULL, &tmpl, err);
  if (rc != QV_OK) {
    qv_exec_destroy(child);
    apply_free(&tmp);
    return rc;
  }
  qv_exec_op *kids[2] = {child, tmpl}, *op;
  QV_RETURN_NOT_OK(qvx_op_new(&apply_vt, ctx, kids, 2, s, &op, err));
  const qv_schema *ts = &tmpl->schema;
  int32_t n_in = child->schema.n_fields;
  s->sub_row = qv_schema_find(ts, ROW_COL);
  if (s->sub_row < 0) {
    rc = qv_error_set(err, QV_ERR_INVALID, "ApplyExec: the subplan's output lacks the \"  row\" column");
  } else if (mode == QVG_APPLY_OPTIONAL) {
    for (int32_t c = 0; c < ts->n_fields && rc == QV_OK; c++) {
      if (c == s->sub_row) continue;
      int32_t o = op->schema.n_fields;
      if (o < n_in && !qv_datatype_equal(&ts->fields[c].type, &child->schema.fields[o].type))
        rc = qv_error_set(err, QV_ERR_INVALID, "ApplyExec: the subplan's column %d is not the input's", o);
      else {
        /* a new column is null for the rows the subplan had none for */
        qv_field f = o < n_in ? child->schema.fields[o] : ts->fields[c];
        if (o >= n_in) f.nullable = true;
        if (qv_schema_add(&op->schema, &f, err) != QV_OK) rc = qv_error_nomem(err, "ApplyExec");
      }
    }
    if (rc == QV_OK && op->schema.n_fields < n_in)
      rc = qv_error_set(err, QV_ERR_INVALID, "ApplyExec: the subplan dropped input columns");
  } else if (mode == QVG_APPLY_COLLECT && (value_col < 0 || value_col >= ts->n_fields || value_col == s->sub_row)) {
    rc = qv_error_set(err, QV_ERR_INVALID, "ApplyExec: the collected column %d is not a subplan column", value_col);
  } else {
    qv_field vf = {s->name, qv_datatype_simple(QV_TYPE_BINARY), true};
    if (qv_schema_copy(&child->schema, &op->schema) != QV_OK || qv_schema_add(&op->schema, &vf, err) != QV_OK)
      rc = qv_error_nomem(err, "ApplyExec");
  }
  if (rc != QV_OK) {
    qv_exec_destroy(op);
    return rc;
  }
  op->estimate_rows = mode == QVG_APPLY_OPTIONAL ? -1 : child->estimate_rows;
  *out = op;
  return QV_OK;
}
