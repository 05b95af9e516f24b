/* CreateExec: CREATE of one path per input row into a memory store
 * (graph/cypher_ops.h).  Per row: the property maps are evaluated, the
 * new nodes created in item order, then the relationships (each joins the
 * node items either side of it, which may come later in the path), and
 * the row goes out with a column per created node and relationship.
 * Holds one input batch.  A dataset store refuses (QV_ERR_UNSUPPORTED,
 * from qvg_store_create_*). */
#include <string.h>

#include "graph/cypher_ops.h"

typedef struct create_item {
  bool is_rel;
  int32_t bound_col;
  char *name;
  char **labels;
  int32_t n_labels;
  const qvg_cx *props;
  int dir;
  int32_t out_col; /* its output column, or -1 (a bound node) */
} create_item;

typedef struct create_state {
  qvg_store *st;
  create_item *items;
  int32_t n_items, n_new;
  qvg_colkind *kinds;
  int32_t n_in, n_locals;
  qvg_val *locals;
  qvg_arena arena;
  int64_t *ids; /* per item, the current row's node or rel */
  int64_t created_nodes, created_rels;
} create_state;

static qv_status create_row(qv_exec_op *op, const qv_batch *b, int64_t row, int64_t **cols, qv_error *err) {
  create_state *s = op->state;
  qvg_evalctx cx = {s->st, b, s->kinds, s->locals, s->n_locals, &s->arena};
  qvg_arena_clear(&s->arena);
  for (int pass = 0; pass < 2; pass++)
    for (int32_t i = 0; i < s->n_items; i++) {
      create_item *it = &s->items[i];
      if (it->is_rel != (pass == 1)) continue;
      if (!it->is_rel && it->bound_col >= 0) {
        const qv_array *a = b->columns[it->bound_col];
        if (!qv_array_is_valid(a, row))
          return qv_error_set(err, QV_ERR_INVALID,
                              "cypher: CREATE: node `%s` is null: cannot create a relationship to it",
                              op->children[0]->schema.fields[it->bound_col].name);
        s->ids[i] = ((const int64_t *)qv_array_values(a))[row];
        continue;
      }
      qvg_val props = qvg_null();
      if (it->props) QV_RETURN_NOT_OK(qvg_eval(it->props, &cx, row, &props, err));
      if (props.t != QVG_V_NULL && props.t != QVG_V_MAP)
        return qv_error_set(err, QV_ERR_INVALID, "cypher: CREATE: the properties of `%s` must be a map, not %s",
                            it->name, qvg_vtype_name(props.t));
      if (it->is_rel) {
        int64_t a = s->ids[i - 1], z = s->ids[i + 1];
        int64_t src = it->dir == QVG_DIR_LEFT ? z : a, dst = it->dir == QVG_DIR_LEFT ? a : z;
        QV_RETURN_NOT_OK(qvg_store_create_rel(s->st, it->labels[0], src, dst, &props, &s->ids[i], err));
        s->created_rels++;
      } else {
        QV_RETURN_NOT_OK(
            qvg_store_create_node(s->st, (const char *const *)it->labels, it->n_labels, &props, &s->ids[i], err));
        s->created_nodes++;
      }
      cols[it->out_col - s->n_in][row] = s->ids[i];
    }
  return QV_OK;
}

static qv_status create_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  create_state *s = op->state;
  qv_batch *b = NULL;
  QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &b, err));
  if (!b) return QV_OK;
  int32_t nc = op->schema.n_fields;
  qv_array **cols = qv_calloc((size_t)nc + 1, sizeof *cols);
  int64_t **vals = qv_calloc((size_t)s->n_new + 1, sizeof *vals);
  qv_status rc = cols && vals ? QV_OK : qv_error_nomem(err, "CreateExec");
  qv_datatype i64 = qv_datatype_simple(QV_TYPE_INT64);
  for (int32_t k = 0; k < s->n_new && rc == QV_OK; k++) {
    qv_bytes *bb = qv_bytes_alloc(b->num_rows * 8);
    if (!bb) rc = qv_error_nomem(err, "CreateExec");
    else {
      vals[k] = (int64_t *)qv_bytes_mutable(bb);
      rc = qv_array_from_buffers(&i64, b->num_rows, NULL, bb, NULL, &cols[s->n_in + k], err);
    }
  }
  for (int64_t r = 0; r < b->num_rows && rc == QV_OK; r++) rc = create_row(op, b, r, vals, err);
  if (rc == QV_OK) {
    for (int32_t c = 0; c < s->n_in; c++) cols[c] = qv_array_retain(b->columns[c]);
    rc = qv_batch_make(&op->schema, cols, b->num_rows, out, err);
  } else if (cols) {
    for (int32_t c = 0; c < nc; c++) qv_array_release(cols[c]);
  }
  qv_free(cols);
  qv_free(vals);
  qv_batch_release(b);
  return rc;
}

static void create_free(qv_exec_op *op) {
  create_state *s = op->state;
  if (!s) return;
  for (int32_t i = 0; s->items && i < s->n_items; i++) {
    qv_free(s->items[i].name);
    for (int32_t k = 0; s->items[i].labels && k < s->items[i].n_labels; k++) qv_free(s->items[i].labels[k]);
    qv_free(s->items[i].labels);
  }
  qv_free(s->items);
  qv_free(s->kinds);
  qv_free(s->locals);
  qv_free(s->ids);
  qvg_arena_free(&s->arena);
  qv_free(s);
}

static void create_explain(const qv_exec_op *op, qvb_text *t) {
  const create_state *s = op->state;
  for (int32_t i = 0; i < s->n_items; i++) {
    const create_item *it = &s->items[i];
    if (it->is_rel) {
      qvb_text_f(t, "%s[%s:%s]%s", it->dir == QVG_DIR_LEFT ? "<-" : "-", it->name, it->labels[0],
                 it->dir == QVG_DIR_LEFT ? "-" : "->");
      continue;
    }
    qvb_text_f(t, "(%s", it->bound_col >= 0 ? op->children[0]->schema.fields[it->bound_col].name : it->name);
    for (int32_t k = 0; k < it->n_labels; k++) qvb_text_f(t, ":%s", it->labels[k]);
    qvb_text_s(t, ")");
  }
}

static void create_metrics(const qv_exec_op *op, qvb_text *t) {
  const create_state *s = op->state;
  qvb_text_f(t, ", nodes_created=%lld, relationships_created=%lld", (long long)s->created_nodes,
             (long long)s->created_rels);
}

static const qvx_op_vt create_vt = {"CreateExec", NULL, create_next, NULL, create_free, create_explain, create_metrics};

static qv_status check_items(const qv_exec_op *child, const qvg_colkind *in_kinds, const qvg_create_item *items,
                             int32_t n, qv_error *err) {
  if (n < 1 || n % 2 == 0)
    return qv_error_set(err, QV_ERR_INVALID, "CreateExec: a path is node, rel, node, ... (%d items)", n);
  for (int32_t i = 0; i < n; i++) {
    const qvg_create_item *it = &items[i];
    if (it->is_rel != (i % 2 == 1))
      return qv_error_set(err, QV_ERR_INVALID, "CreateExec: item %d should be a %s", i,
                          i % 2 ? "relationship" : "node");
    if (it->is_rel && (it->n_labels != 1 || !it->labels || !it->labels[0]))
      return qv_error_set(err, QV_ERR_INVALID, "cypher: CREATE: a relationship needs exactly one type (`%s` has %d)",
                          it->name ? it->name : "", it->n_labels);
    if (it->is_rel && it->dir != QVG_DIR_LEFT && it->dir != QVG_DIR_RIGHT)
      return qv_error_set(err, QV_ERR_INVALID, "cypher: CREATE: a relationship needs a direction");
    if (!it->is_rel && it->bound_col >= 0 &&
        (it->bound_col >= child->schema.n_fields || in_kinds[it->bound_col] != QVG_COL_NODE))
      return qv_error_set(err, QV_ERR_INVALID, "CreateExec: item %d's bound column is not a NODE column", i);
    if ((it->is_rel || it->bound_col < 0) && !it->name)
      return qv_error_set(err, QV_ERR_INVALID, "CreateExec: item %d needs a column name", i);
  }
  return QV_OK;
}

qv_status qvg_op_create(qv_exec_ctx *ctx, qv_exec_op *child, qvg_store *st, const qvg_colkind *in_kinds,
                        const qvg_create_item *items, int32_t n_items, int32_t n_locals, qv_exec_op **out,
                        qv_error *err) {
  *out = NULL;
  qv_status rc = check_items(child, in_kinds, items, n_items, err);
  if (rc != QV_OK) {
    qv_exec_destroy(child);
    return rc;
  }
  create_state *s = qv_calloc(1, sizeof *s);
  if (!s) {
    qv_exec_destroy(child);
    return qv_error_nomem(err, "CreateExec");
  }
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(&create_vt, ctx, &child, 1, s, &op, err));
  s->st = st;
  s->n_in = op->children[0]->schema.n_fields;
  s->n_items = n_items;
  s->n_locals = n_locals > 0 ? n_locals : 0;
  s->items = qv_calloc((size_t)n_items, sizeof *s->items);
  s->ids = qv_calloc((size_t)n_items, sizeof *s->ids);
  s->kinds = qv_calloc((size_t)s->n_in + 1, sizeof *s->kinds);
  s->locals = qv_calloc((size_t)s->n_locals + 1, sizeof *s->locals);
  if (!s->items || !s->ids || !s->kinds || !s->locals) goto nomem;
  memcpy(s->kinds, in_kinds, (size_t)s->n_in * sizeof *s->kinds);
  if (qv_schema_copy(&op->children[0]->schema, &op->schema) != QV_OK) goto nomem;
  for (int32_t i = 0; i < n_items; i++) {
    const qvg_create_item *it = &items[i];
    create_item *c = &s->items[i];
    c->is_rel = it->is_rel;
    c->bound_col = it->is_rel ? -1 : it->bound_col;
    c->props = it->props;
    c->dir = it->dir;
    c->out_col = -1;
    c->n_labels = it->n_labels > 0 ? it->n_labels : 0;
    if ((it->name && !(c->name = qv_strdup(it->name))) ||
        !(c->labels = qv_calloc((size_t)c->n_labels + 1, sizeof *c->labels)))
      goto nomem;
    for (int32_t k = 0; k < c->n_labels; k++)
      if (!(c->labels[k] = qv_strdup(it->labels[k]))) goto nomem;
    if (c->is_rel || c->bound_col < 0) {
      c->out_col = s->n_in + s->n_new++;
      qv_field f = {c->name, qv_datatype_simple(QV_TYPE_INT64), false};
      if (qv_schema_add(&op->schema, &f, err) != QV_OK) goto nomem;
    }
  }
  op->estimate_rows = op->children[0]->estimate_rows;
  *out = op;
  return QV_OK;
nomem:
  qv_exec_destroy(op);
  return qv_error_nomem(err, "CreateExec");
}
