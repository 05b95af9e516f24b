/* ResultExec: a Cypher plan's columns as the user gets them.  A column
 * the binder proved to hold one simple type becomes that Arrow type; any
 * other column (nodes, relationships, paths, lists, maps, or values of
 * mixed types) becomes a string of each value's Cypher text.  The TCK view
 * (render_all) makes every column text, null included. */
#include <string.h>

#include "graph/cypher_ops.h"

typedef struct result_state {
  const qvg_store *st;
  int32_t n;
  qvg_colkind *kinds;
  qv_type_id *types; /* per output column: INT64, FLOAT64, BOOL, STRING (typed) or QV_TYPE_NULL (text) */
  bool render_all;
  qvg_arena arena;
  qvb_text text;
} result_state;

static qv_status put(result_state *s, qv_builder *b, qv_type_id t, const qvg_val *v, const char *col, qv_error *err) {
  if (v->t == QVG_V_NULL && !s->render_all) return qv_builder_append_null(b);
  switch (t) {
    case QV_TYPE_INT64:
      if (v->t == QVG_V_INT) return qv_builder_append_int(b, v->u.i);
      break;
    case QV_TYPE_FLOAT64:
      if (v->t == QVG_V_FLOAT) return qv_builder_append_double(b, v->u.f);
      if (v->t == QVG_V_INT) return qv_builder_append_double(b, (double)v->u.i);
      break;
    case QV_TYPE_BOOL:
      if (v->t == QVG_V_BOOL) return qv_builder_append_bool(b, v->u.b);
      break;
    case QV_TYPE_STRING:
      if (v->t == QVG_V_STRING) return qv_builder_append_bytes(b, v->u.s, v->n);
      break;
    default: {
      s->text.n = 0;
      if (s->text.p) s->text.p[0] = '\0';
      QV_RETURN_NOT_OK(qvg_val_render(v, s->st, &s->text, err));
      if (s->text.oom) return qv_error_nomem(err, "ResultExec");
      return qv_builder_append_bytes(b, s->text.p ? s->text.p : "", (int64_t)s->text.n);
    }
  }
  return qv_error_set(err, QV_ERR_INVALID, "ResultExec: column %s was typed but holds a %s", col, qvg_vtype_name(v->t));
}

static qv_status result_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  result_state *s = op->state;
  qv_batch *in = NULL;
  QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &in, err));
  if (!in) return QV_OK;
  qv_array **cols = qv_calloc((size_t)(s->n ? s->n : 1), sizeof *cols);
  qv_status st = cols ? QV_OK : qv_error_nomem(err, "ResultExec");
  for (int32_t c = 0; c < s->n && st == QV_OK; c++) {
    qv_builder b;
    if ((st = qv_builder_init(&b, &op->schema.fields[c].type, err)) != QV_OK) break;
    qv_type_id t = s->types[c];
    for (int64_t r = 0; r < in->num_rows && st == QV_OK; r++) {
      qvg_val v;
      st = qvg_val_from_array(in->columns[c], s->kinds[c], r, &s->arena, &v, err);
      if (st == QV_OK) st = put(s, &b, t, &v, op->schema.fields[c].name, err);
      if ((r & 255) == 255) qvg_arena_clear(&s->arena);
    }
    if (st == QV_OK) st = qv_builder_finish(&b, &cols[c], err);
    else qv_builder_reset(&b);
    qvg_arena_clear(&s->arena);
  }
  if (st == QV_OK) st = qv_batch_make(&op->schema, cols, in->num_rows, out, err);
  else if (cols)
    for (int32_t c = 0; c < s->n; c++) qv_array_release(cols[c]);
  qv_free(cols);
  qv_batch_release(in);
  return st;
}

static void result_free(qv_exec_op *op) {
  result_state *s = op->state;
  if (!s) return;
  qvg_arena_free(&s->arena);
  qvb_text_free(&s->text);
  qv_free(s->kinds);
  qv_free(s->types);
  qv_free(s);
}

static void result_explain(const qv_exec_op *op, qvb_text *t) {
  qvb_text_s(t, "columns=[");
  for (int32_t i = 0; i < op->schema.n_fields; i++) {
    char ty[64];
    qv_datatype_format(&op->schema.fields[i].type, ty, sizeof ty);
    qvb_text_f(t, "%s%s: %s", i ? ", " : "", op->schema.fields[i].name, ty);
  }
  qvb_text_s(t, "]");
}

static const qvx_op_vt result_vt = {"ResultExec", NULL, result_next, NULL, result_free, result_explain, NULL};

qv_status qvg_op_result(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_store *st, const qvg_colkind *in_kinds,
                        const qv_type_id *static_types, bool render_all, qv_exec_op **out, qv_error *err) {
  *out = NULL;
  const qv_schema *in = qv_exec_schema(child);
  int32_t n = in->n_fields;
  result_state *s = qv_calloc(1, sizeof *s);
  if (s) {
    s->kinds = qv_calloc((size_t)(n ? n : 1), sizeof *s->kinds);
    s->types = qv_calloc((size_t)(n ? n : 1), sizeof *s->types);
  }
  if (!s || !s->kinds || !s->types) {
    if (s) qv_free(s->kinds), qv_free(s->types);
    qv_free(s);
    qv_exec_destroy(child);
    return qv_error_nomem(err, "ResultExec");
  }
  s->st = st;
  s->n = n;
  s->render_all = render_all;
  s->arena = (qvg_arena)QVG_ARENA_INIT;
  for (int32_t i = 0; i < n; i++) {
    s->kinds[i] = in_kinds[i];
    qv_type_id t = static_types ? static_types[i] : QV_TYPE_NULL;
    if (render_all || in_kinds[i] != QVG_COL_VALUE ||
        (t != QV_TYPE_INT64 && t != QV_TYPE_FLOAT64 && t != QV_TYPE_BOOL && t != QV_TYPE_STRING))
      t = QV_TYPE_NULL;
    s->types[i] = t;
  }
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(&result_vt, ctx, &child, 1, s, &op, err));
  qv_status stt = QV_OK;
  for (int32_t i = 0; i < n && stt == QV_OK; i++) {
    qv_datatype dt = qv_datatype_simple(s->types[i] == QV_TYPE_NULL ? QV_TYPE_STRING : s->types[i]);
    qv_field f;
    stt = qv_field_init(&f, in->fields[i].name, &dt, true, err);
    if (stt == QV_OK) {
      stt = qv_schema_add(&op->schema, &f, err);
      qv_field_reset(&f);
    }
  }
  if (stt != QV_OK) {
    qv_exec_destroy(op);
    return stt;
  }
  op->estimate_rows = op->children[0]->estimate_rows;
  *out = op;
  return QV_OK;
}
