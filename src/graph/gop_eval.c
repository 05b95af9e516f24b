/* The graph operators that evaluate Cypher expressions row by row:
 * CypherProjectExec (new columns from expressions), CypherFilterExec (rows
 * where a predicate is TRUE) and CypherUnwindExec (one row per list
 * element).  Each holds one input batch at a time; the values an
 * evaluation makes live in an arena cleared per batch (and sooner when one
 * batch's values pass a few MiB: every value is encoded into its output
 * column as soon as it is made, so nothing points into the arena across
 * rows).  The arena's bytes are counted with qvx_reserve. */
#include <string.h>

#include "graph/cypher_ops.h"

/* An arena grown past this within a batch is cleared between rows. */
#define ROW_ARENA_LIMIT (4 << 20)

typedef struct eval_common {
  const qvg_store *st;
  qvg_colkind *in_kinds;
  int32_t n_in;
  qvg_val *locals;
  int32_t n_locals;
  qvg_arena arena;
  int64_t reserved; /* bytes counted for the arena */
} eval_common;

static qv_status common_init(eval_common *c, const qvg_store *st, const qvg_colkind *in_kinds, int32_t n_in,
                             int32_t n_locals, qv_error *err, const char *who) {
  c->st = st;
  c->n_in = n_in;
  c->n_locals = n_locals > 0 ? n_locals : 0;
  c->in_kinds = qv_calloc((size_t)(n_in > 0 ? n_in : 1), sizeof *c->in_kinds);
  c->locals = qv_calloc((size_t)(c->n_locals > 0 ? c->n_locals : 1), sizeof *c->locals);
  if (!c->in_kinds || !c->locals) return qv_error_nomem(err, who);
  for (int32_t i = 0; i < n_in; i++) c->in_kinds[i] = in_kinds ? in_kinds[i] : QVG_COL_VALUE;
  return QV_OK;
}

static void common_free(eval_common *c) {
  qv_free(c->in_kinds);
  qv_free(c->locals);
  qvg_arena_free(&c->arena);
}

static qvg_evalctx common_ctx(eval_common *c, const qv_batch *in) {
  qvg_evalctx cx = {c->st, in, c->in_kinds, c->locals, c->n_locals, &c->arena};
  return cx;
}

/* Counts the arena's growth, then clears it for the next batch. */
static qv_status common_account(qv_exec_op *op, eval_common *c, qv_error *err) {
  int64_t delta = c->arena.bytes - c->reserved;
  qv_status st = QV_OK;
  if (delta > 0) {
    st = qvx_reserve(op, delta, "expression values", err);
    if (st == QV_OK) c->reserved += delta;
  }
  qvg_arena_clear(&c->arena);
  if (c->arena.bytes < c->reserved) {
    qvx_reserve(op, c->arena.bytes - c->reserved, "expression values", NULL);
    c->reserved = c->arena.bytes;
  }
  return st;
}

static void common_close(qv_exec_op *op, eval_common *c) {
  if (c->reserved) qvx_reserve(op, -c->reserved, "expression values", NULL);
  c->reserved = 0;
  qvg_arena_free(&c->arena);
}

/* The column names of the child for EXPLAIN text. */
static const char **child_names(const qv_exec_op *op) {
  const qv_schema *s = &op->children[0]->schema;
  const char **names = qv_calloc((size_t)(s->n_fields > 0 ? s->n_fields : 1), sizeof *names);
  if (names)
    for (int32_t i = 0; i < s->n_fields; i++) names[i] = s->fields[i].name;
  return names;
}

static qv_datatype out_type(qvg_out_mode m) {
  return qv_datatype_simple(m == QVG_OUT_NODE || m == QVG_OUT_REL ? QV_TYPE_INT64 : QV_TYPE_BINARY);
}

/* ---- CypherProjectExec --------------------------------------------------------- */

typedef struct project_state {
  eval_common c;
  const qvg_cx **exprs;
  qvg_out_mode *modes;
  int32_t n;
  bool keep_input;
  qv_buffer key; /* sort key scratch */
} project_state;

static qv_status project_column(qv_exec_op *op, project_state *s, const qv_batch *in, int32_t i, qv_array **out,
                                qv_error *err) {
  qv_datatype t = out_type(s->modes[i]);
  qv_builder b;
  QV_RETURN_NOT_OK(qv_builder_init(&b, &t, err));
  qv_status st = qv_builder_reserve(&b, in->num_rows) == QV_OK ? QV_OK : qv_error_nomem(err, op->vt->name);
  qvg_evalctx cx = common_ctx(&s->c, in);
  for (int64_t r = 0; r < in->num_rows && st == QV_OK; r++) {
    if (s->c.arena.bytes > ROW_ARENA_LIMIT) st = common_account(op, &s->c, err);
    /* one row's value can be a long list: the batch can take a while */
    if ((r & 0x3FF) == 0x3FF && st == QV_OK) st = qvx_check_cancel(op, err);
    qvg_val v;
    if (st == QV_OK) st = qvg_eval(s->exprs[i], &cx, r, &v, err);
    if (st != QV_OK) break;
    switch (s->modes[i]) {
      case QVG_OUT_VALUE: st = qvg_val_append(&b, QVG_COL_VALUE, &v, err); break;
      case QVG_OUT_NODE: st = qvg_val_append(&b, QVG_COL_NODE, &v, err); break;
      case QVG_OUT_REL: st = qvg_val_append(&b, QVG_COL_REL, &v, err); break;
      default:
        s->key.size = 0;
        st = qvg_val_sortkey(&v, &s->key, err);
        if (st == QV_OK && qv_builder_append_bytes(&b, s->key.data, s->key.size) != QV_OK)
          st = qv_error_nomem(err, op->vt->name);
        break;
    }
  }
  if (st == QV_OK) st = qv_builder_finish(&b, out, err);
  else qv_builder_reset(&b);
  return st;
}

static qv_status project_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  project_state *s = op->state;
  qv_batch *in = NULL;
  QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &in, err));
  if (!in) return QV_OK;
  int32_t base = s->keep_input ? in->schema.n_fields : 0, n = base + s->n;
  qv_array **cols = qv_calloc((size_t)(n > 0 ? n : 1), sizeof *cols);
  qv_status st = cols ? QV_OK : qv_error_nomem(err, op->vt->name);
  for (int32_t i = 0; i < base && st == QV_OK; i++) cols[i] = qv_array_retain(in->columns[i]);
  for (int32_t i = 0; i < s->n && st == QV_OK; i++) {
    st = project_column(op, s, in, i, &cols[base + i], err);
    if (st != QV_OK) qv_error_prefix(err, st, "%s: %s", op->vt->name, op->schema.fields[base + i].name);
  }
  if (st == QV_OK) st = common_account(op, &s->c, err);
  if (st == QV_OK) {
    st = qv_batch_make(&op->schema, cols, in->num_rows, out, err); /* takes the columns */
  } else if (cols) {
    for (int32_t i = 0; i < n; i++) qv_array_release(cols[i]);
  }
  qv_free(cols);
  qv_batch_release(in);
  return st;
}

static void project_close(qv_exec_op *op) {
  project_state *s = op->state;
  common_close(op, &s->c);
  qv_buffer_reset(&s->key);
}

static void project_free(qv_exec_op *op) {
  project_state *s = op->state;
  if (!s) return;
  common_free(&s->c);
  qv_buffer_reset(&s->key);
  qv_free(s->exprs);
  qv_free(s->modes);
  qv_free(s);
}

static void project_explain(const qv_exec_op *op, qvb_text *t) {
  const project_state *s = op->state;
  const char **names = child_names(op);
  int32_t base = s->keep_input ? op->children[0]->schema.n_fields : 0;
  qvb_text_s(t, "exprs=[");
  for (int32_t i = 0; i < s->n; i++) {
    if (i) qvb_text_s(t, ", ");
    qvg_cx_text(s->exprs[i], names, t);
    qvb_text_f(t, " AS %s", op->schema.fields[base + i].name);
    if (s->modes[i] == QVG_OUT_SORTKEY) qvb_text_s(t, " (sort key)");
  }
  qvb_text_s(t, "]");
  qv_free(names);
}

static const qvx_op_vt project_vt = {"CypherProjectExec", NULL, project_next, project_close, project_free,
                                     project_explain,     NULL};

qv_status qvg_op_eval(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_store *st, const qvg_colkind *in_kinds,
                      const qvg_cx *const *exprs, const char *const *names, const qvg_out_mode *modes, int32_t n,
                      int32_t n_locals, bool keep_input, qv_exec_op **out, qv_error *err) {
  *out = NULL;
  project_state *s = qv_calloc(1, sizeof *s);
  if (!s) {
    qv_exec_destroy(child);
    return qv_error_nomem(err, "CypherProjectExec");
  }
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(&project_vt, ctx, &child, 1, s, &op, err));
  qv_status rc = common_init(&s->c, st, in_kinds, child->schema.n_fields, n_locals, err, "CypherProjectExec");
  if (rc == QV_OK && n < 0) rc = qv_error_set(err, QV_ERR_INVALID, "CypherProjectExec: %d expressions", (int)n);
  if (rc == QV_OK) {
    s->exprs = qv_calloc((size_t)(n > 0 ? n : 1), sizeof *s->exprs);
    s->modes = qv_calloc((size_t)(n > 0 ? n : 1), sizeof *s->modes);
    if (!s->exprs || !s->modes) rc = qv_error_nomem(err, "CypherProjectExec");
  }
  if (rc == QV_OK && keep_input && qv_schema_copy(&child->schema, &op->schema) != QV_OK)
    rc = qv_error_nomem(err, "CypherProjectExec");
  s->keep_input = keep_input;
  for (int32_t i = 0; i < n && rc == QV_OK; i++) {
    if (!exprs[i] || !names || !names[i]) {
      rc = qv_error_set(err, QV_ERR_INVALID, "CypherProjectExec: expression %d has no %s", (int)i,
                        exprs[i] ? "name" : "tree");
      break;
    }
    s->exprs[i] = exprs[i];
    s->modes[i] = modes ? modes[i] : QVG_OUT_VALUE;
    s->n = i + 1;
    qv_field f = {(char *)names[i], out_type(s->modes[i]), s->modes[i] != QVG_OUT_SORTKEY};
    if (qv_schema_add(&op->schema, &f, err) != QV_OK) rc = qv_error_nomem(err, "CypherProjectExec");
  }
  op->estimate_rows = child->estimate_rows;
  if (rc != QV_OK) {
    qv_exec_destroy(op);
    return rc;
  }
  *out = op;
  return QV_OK;
}

/* ---- CypherFilterExec ------------------------------------------------------------- */

typedef struct filter_state {
  eval_common c;
  const qvg_cx *pred;
} filter_state;

static qv_status filter_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  filter_state *s = op->state;
  qv_status st = QV_OK;
  uint32_t *rows = NULL;
  int64_t cap = 0;
  for (;;) {
    qv_batch *in = NULL;
    st = qv_exec_next(op->children[0], &in, err);
    if (st != QV_OK || !in) break;
    if (in->num_rows > cap) {
      qv_free(rows);
      cap = in->num_rows;
      rows = qv_malloc((size_t)cap * sizeof *rows);
      if (!rows) st = qv_error_nomem(err, op->vt->name);
    }
    int64_t k = 0;
    qvg_evalctx cx = common_ctx(&s->c, in);
    for (int64_t r = 0; r < in->num_rows && st == QV_OK; r++) {
      if (s->c.arena.bytes > ROW_ARENA_LIMIT) st = common_account(op, &s->c, err);
      qvg_tri t;
      if (st == QV_OK) st = qvg_eval_pred(s->pred, &cx, r, &t, err);
      if (st == QV_OK && t == QVG_TRUE) rows[k++] = (uint32_t)r;
    }
    if (st == QV_OK) st = common_account(op, &s->c, err);
    if (st == QV_OK && k == in->num_rows) *out = qv_batch_retain(in);
    else if (st == QV_OK && k > 0) st = qvx_batch_take(in, rows, k, out, err);
    qv_batch_release(in);
    if (st != QV_OK || *out) break;
  }
  qv_free(rows);
  if (st != QV_OK) qv_error_prefix(err, st, "CypherFilterExec");
  return st;
}

static void filter_close(qv_exec_op *op) {
  filter_state *s = op->state;
  common_close(op, &s->c);
}

static void filter_free(qv_exec_op *op) {
  filter_state *s = op->state;
  if (!s) return;
  common_free(&s->c);
  qv_free(s);
}

static void filter_explain(const qv_exec_op *op, qvb_text *t) {
  const filter_state *s = op->state;
  const char **names = child_names(op);
  qvb_text_s(t, "predicate=");
  qvg_cx_text(s->pred, names, t);
  qv_free(names);
}

static const qvx_op_vt filter_vt = {"CypherFilterExec", NULL,           filter_next, filter_close,
                                    filter_free,        filter_explain, NULL};

qv_status qvg_op_filter(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_store *st, const qvg_colkind *in_kinds,
                        const qvg_cx *pred, int32_t n_locals, qv_exec_op **out, qv_error *err) {
  *out = NULL;
  filter_state *s = qv_calloc(1, sizeof *s);
  if (!s) {
    qv_exec_destroy(child);
    return qv_error_nomem(err, "CypherFilterExec");
  }
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(&filter_vt, ctx, &child, 1, s, &op, err));
  s->pred = pred;
  qv_status rc = common_init(&s->c, st, in_kinds, child->schema.n_fields, n_locals, err, "CypherFilterExec");
  if (rc == QV_OK && !pred) rc = qv_error_set(err, QV_ERR_INVALID, "CypherFilterExec: no predicate");
  if (rc == QV_OK && qv_schema_copy(&child->schema, &op->schema) != QV_OK) rc = qv_error_nomem(err, "CypherFilterExec");
  op->estimate_rows = child->estimate_rows;
  if (rc != QV_OK) {
    qv_exec_destroy(op);
    return rc;
  }
  *out = op;
  return QV_OK;
}

/* ---- CypherUnwindExec ---------------------------------------------------------------- */

typedef struct unwind_state {
  eval_common c;
  int32_t col;
  int32_t *keep; /* the input's columns but col */
  char *name;
  qv_batch *in;
  int64_t row, elem; /* where the next output starts */
} unwind_state;

static qv_status unwind_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  unwind_state *s = op->state;
  int64_t cap = op->ctx->batch_size > 0 ? op->ctx->batch_size : 8192;
  for (;;) {
    if (!s->in || s->row >= s->in->num_rows) {
      qv_batch_release(s->in);
      s->in = NULL;
      s->row = s->elem = 0;
      QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &s->in, err));
      if (!s->in) return QV_OK;
      continue;
    }
    qv_datatype bin = qv_datatype_simple(QV_TYPE_BINARY);
    qv_builder b;
    QV_RETURN_NOT_OK(qv_builder_init(&b, &bin, err));
    uint32_t *rows = qv_malloc((size_t)cap * sizeof *rows);
    qv_status st = rows ? QV_OK : qv_error_nomem(err, op->vt->name);
    int64_t k = 0;
    const qv_array *a = s->in->columns[s->col];
    while (st == QV_OK && s->row < s->in->num_rows && k < cap) {
      qvg_val v;
      st = qvg_val_from_array(a, s->c.in_kinds[s->col], s->row, &s->c.arena, &v, err);
      if (st != QV_OK) break;
      if (v.t == QVG_V_LIST) {
        while (s->elem < v.n && k < cap && st == QV_OK) {
          st = qvg_val_append(&b, QVG_COL_VALUE, &v.u.l[s->elem], err);
          rows[k++] = (uint32_t)s->row;
          s->elem++;
        }
        if (s->elem < v.n) break; /* the output is full: go on from here next time */
      } else if (v.t != QVG_V_NULL) {
        st = qvg_val_append(&b, QVG_COL_VALUE, &v, err); /* UNWIND of a scalar: the value itself */
        rows[k++] = (uint32_t)s->row;
      }
      s->row++;
      s->elem = 0;
      if (s->c.arena.bytes > ROW_ARENA_LIMIT && st == QV_OK) st = common_account(op, &s->c, err);
    }
    if (st == QV_OK) st = common_account(op, &s->c, err);
    qv_array *elems = NULL;
    qv_batch *taken = NULL;
    if (st == QV_OK && k == 0) {
      qv_builder_reset(&b);
      qv_free(rows);
      continue;
    }
    if (st == QV_OK) st = qv_builder_finish(&b, &elems, err);
    else qv_builder_reset(&b);
    /* every column but the list itself, which a long list would repeat once per element */
    qv_batch *rest = NULL;
    if (st == QV_OK) st = qv_batch_project(s->in, s->keep, s->in->schema.n_fields - 1, &rest, err);
    if (st == QV_OK) st = qvx_batch_take(rest, rows, k, &taken, err);
    qv_batch_release(rest);
    qv_free(rows);
    if (st == QV_OK) {
      int32_t n = taken->schema.n_fields;
      qv_array **cols = qv_calloc((size_t)n + 1, sizeof *cols);
      if (!cols) {
        st = qv_error_nomem(err, op->vt->name);
      } else {
        for (int32_t i = 0; i < n; i++) cols[i] = qv_array_retain(taken->columns[i]);
        cols[n] = elems;
        elems = NULL;
        st = qv_batch_make(&op->schema, cols, k, out, err);
        qv_free(cols);
      }
    }
    qv_array_release(elems);
    qv_batch_release(taken);
    if (st != QV_OK) qv_error_prefix(err, st, "CypherUnwindExec");
    return st;
  }
}

static void unwind_close(qv_exec_op *op) {
  unwind_state *s = op->state;
  qv_batch_release(s->in);
  s->in = NULL;
  common_close(op, &s->c);
}

static void unwind_free(qv_exec_op *op) {
  unwind_state *s = op->state;
  if (!s) return;
  qv_batch_release(s->in);
  common_free(&s->c);
  qv_free(s->name);
  qv_free(s->keep);
  qv_free(s);
}

static void unwind_explain(const qv_exec_op *op, qvb_text *t) {
  const unwind_state *s = op->state;
  qvb_text_f(t, "list=%s, as=%s", op->children[0]->schema.fields[s->col].name, s->name);
}

static const qvx_op_vt unwind_vt = {"CypherUnwindExec", NULL,           unwind_next, unwind_close,
                                    unwind_free,        unwind_explain, NULL};

qv_status qvg_op_unwind(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_colkind *in_kinds, int32_t col, const char *name,
                        qv_exec_op **out, qv_error *err) {
  *out = NULL;
  unwind_state *s = qv_calloc(1, sizeof *s);
  if (!s) {
    qv_exec_destroy(child);
    return qv_error_nomem(err, "CypherUnwindExec");
  }
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(&unwind_vt, ctx, &child, 1, s, &op, err));
  s->col = col;
  qv_status rc = common_init(&s->c, NULL, in_kinds, child->schema.n_fields, 0, err, "CypherUnwindExec");
  if (rc == QV_OK && (col < 0 || col >= child->schema.n_fields))
    rc = qv_error_set(err, QV_ERR_INVALID, "CypherUnwindExec: column %d of %d", (int)col, (int)child->schema.n_fields);
  if (rc == QV_OK && !name) rc = qv_error_set(err, QV_ERR_INVALID, "CypherUnwindExec: the element needs a name");
  if (rc == QV_OK && !(s->name = qv_strdup(name))) rc = qv_error_nomem(err, "CypherUnwindExec");
  if (rc == QV_OK && !(s->keep = qv_calloc((size_t)child->schema.n_fields, sizeof *s->keep)))
    rc = qv_error_nomem(err, "CypherUnwindExec");
  for (int32_t i = 0, m = 0; rc == QV_OK && i < child->schema.n_fields; i++) {
    if (i == col) continue;
    s->keep[m++] = i;
    if (qv_schema_add(&op->schema, &child->schema.fields[i], err) != QV_OK)
      rc = qv_error_nomem(err, "CypherUnwindExec");
  }
  if (rc == QV_OK) {
    qv_field f = {s->name, qv_datatype_simple(QV_TYPE_BINARY), true};
    if (qv_schema_add(&op->schema, &f, err) != QV_OK) rc = qv_error_nomem(err, "CypherUnwindExec");
  }
  if (rc != QV_OK) {
    qv_exec_destroy(op);
    return rc;
  }
  *out = op;
  return QV_OK;
}
