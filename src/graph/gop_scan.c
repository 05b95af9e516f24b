/* The graph plan's sources: NodeScanExec (node ids of a label),
 * RelScanExec (every relationship of some types with its two ends: the
 * hash-join plan's side of a hop) and UnitExec (one row, for queries that
 * start with RETURN or UNWIND).  Each holds one output batch at a time.
 *
 * A scan of a memory store stops at the ids that existed when it opened:
 * a CREATE downstream in the same pipeline must not feed the scan its own
 * nodes (MATCH (n) CREATE () would never end). */
#include <string.h>

#include "graph/cypher_ops.h"

typedef struct scan_state {
  const qvg_store *st;
  bool rels;
  int32_t label;  /* nodes */
  int32_t *types; /* rels: n_types of them (0: every type) */
  int32_t n_types, at_type;
  char *name, *src_name, *dst_name;
  int64_t cursor;
  int64_t bound; /* memory store: ids below this (fixed at open) */
} scan_state;

static qv_status int64_array(int64_t *vals, int64_t n, qv_array **out, qv_error *err) {
  qv_bytes *b = qv_bytes_alloc_uninit(n * 8);
  if (!b) return qv_error_nomem(err, "graph scan");
  memcpy(qv_bytes_mutable(b), vals, (size_t)n * 8);
  qv_datatype t = qv_datatype_simple(QV_TYPE_INT64);
  return qv_array_from_buffers(&t, n, NULL, b, NULL, out, err);
}

static qv_status scan_open(qv_exec_op *op, qv_error *err) {
  scan_state *s = op->state;
  (void)err;
  s->cursor = 0;
  s->at_type = 0;
  s->bound = INT64_MAX;
  if (s->st && s->st->mem) s->bound = s->rels ? qvg_store_rel_count(s->st, -1) : qvg_store_node_count(s->st, -1);
  return QV_OK;
}

static qv_status node_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  scan_state *s = op->state;
  int64_t cap = op->ctx->batch_size;
  int64_t *ids = qv_malloc((size_t)cap * 8);
  if (!ids) return qv_error_nomem(err, "NodeScanExec");
  int64_t n = qvg_store_nodes(s->st, s->label, &s->cursor, ids, cap);
  while (n > 0 && ids[n - 1] >= s->bound) n--;
  qv_status rc = QV_OK;
  if (n > 0) {
    qv_array *a = NULL;
    if ((rc = int64_array(ids, n, &a, err)) == QV_OK) rc = qv_batch_make(&op->schema, &a, n, out, err);
  }
  qv_free(ids);
  return rc;
}

static qv_status rel_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  scan_state *s = op->state;
  int64_t cap = op->ctx->batch_size;
  int64_t *ids = qv_malloc((size_t)cap * 8 * 3);
  if (!ids) return qv_error_nomem(err, "RelScanExec");
  int64_t n = 0;
  int32_t nt = s->n_types ? s->n_types : 1;
  while (n == 0 && s->at_type < nt) {
    int32_t t = s->n_types ? s->types[s->at_type] : -1;
    n = t >= -1 && t < s->st->n_types ? qvg_store_rels(s->st, t, &s->cursor, ids, cap) : 0;
    while (n > 0 && ids[n - 1] >= s->bound) n--;
    if (n == 0) {
      s->at_type++;
      s->cursor = 0;
    }
  }
  qv_status rc = QV_OK;
  if (n > 0) {
    int64_t *src = ids + cap, *dst = ids + 2 * cap;
    for (int64_t i = 0; i < n; i++) {
      src[i] = qvg_store_rel_src(s->st, ids[i]);
      dst[i] = qvg_store_rel_dst(s->st, ids[i]);
    }
    qv_array *a[3] = {NULL, NULL, NULL};
    for (int k = 0; k < 3 && rc == QV_OK; k++) rc = int64_array(ids + k * cap, n, &a[k], err);
    if (rc == QV_OK) rc = qv_batch_make(&op->schema, a, n, out, err);
    else
      for (int k = 0; k < 3; k++) qv_array_release(a[k]);
  }
  qv_free(ids);
  return rc;
}

static qv_status unit_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  scan_state *s = op->state;
  if (s->cursor++ > 0) return QV_OK;
  qv_array *a = NULL;
  QV_RETURN_NOT_OK(qv_array_make_null(&op->schema.fields[0].type, 1, &a, err));
  return qv_batch_make(&op->schema, &a, 1, out, err);
}

static void scan_free(qv_exec_op *op) {
  scan_state *s = op->state;
  if (!s) return;
  qv_free(s->types);
  qv_free(s->name);
  qv_free(s->src_name);
  qv_free(s->dst_name);
  qv_free(s);
}

static void node_explain(const qv_exec_op *op, qvb_text *t) {
  const scan_state *s = op->state;
  qvb_text_s(t, s->name);
  if (s->label >= 0) qvb_text_f(t, ":%s", s->st->labels[s->label]);
  qvb_text_f(t, ", rows=%lld", (long long)qvg_store_node_count(s->st, s->label));
}

static void rel_explain(const qv_exec_op *op, qvb_text *t) {
  const scan_state *s = op->state;
  qvb_text_f(t, "(%s)-[%s", s->src_name, s->name);
  int64_t rows = 0;
  for (int32_t i = 0; i < s->n_types; i++) {
    int32_t ty = s->types[i];
    qvb_text_f(t, "%s%s", i ? "|" : ":", ty >= 0 && ty < s->st->n_types ? s->st->types[ty] : "?");
    rows += qvg_store_rel_count(s->st, ty);
  }
  if (!s->n_types) rows = qvg_store_rel_count(s->st, -1);
  qvb_text_f(t, "]->(%s), rows=%lld", s->dst_name, (long long)rows);
}

static void unit_explain(const qv_exec_op *op, qvb_text *t) {
  const scan_state *s = op->state;
  qvb_text_f(t, "%s, rows=1", s->name);
}

static const qvx_op_vt node_vt = {"NodeScanExec", scan_open, node_next, NULL, scan_free, node_explain, NULL};
static const qvx_op_vt rel_vt = {"RelScanExec", scan_open, rel_next, NULL, scan_free, rel_explain, NULL};
static const qvx_op_vt unit_vt = {"UnitExec", scan_open, unit_next, NULL, scan_free, unit_explain, NULL};

/* Adds a column named name of type id to op's schema. */
static qv_status add_col(qv_exec_op *op, const char *name, qv_type_id id, qv_error *err) {
  qv_field f = {(char *)(uintptr_t)name, qv_datatype_simple(id), true};
  if (qv_schema_add(&op->schema, &f, err) != QV_OK) return qv_error_nomem(err, op->vt->name);
  return QV_OK;
}

static qv_status make(const qvx_op_vt *vt, qv_exec_ctx *ctx, scan_state *s, qv_exec_op **out, qv_error *err) {
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(vt, ctx, NULL, 0, s, &op, err));
  qv_status rc = QV_OK;
  if (vt == &node_vt) rc = add_col(op, s->name, QV_TYPE_INT64, err);
  else if (vt == &unit_vt) rc = add_col(op, s->name, QV_TYPE_BINARY, err);
  else if ((rc = add_col(op, s->name, QV_TYPE_INT64, err)) == QV_OK &&
           (rc = add_col(op, s->src_name, QV_TYPE_INT64, err)) == QV_OK)
    rc = add_col(op, s->dst_name, QV_TYPE_INT64, err);
  if (rc != QV_OK) {
    qv_exec_destroy(op);
    return rc;
  }
  *out = op;
  return QV_OK;
}

qv_status qvg_op_node_scan(qv_exec_ctx *ctx, const qvg_store *st, int32_t label, const char *name, qv_exec_op **out,
                           qv_error *err) {
  *out = NULL;
  if (!name) return qv_error_set(err, QV_ERR_INVALID, "NodeScanExec: the column needs a name");
  scan_state *s = qv_calloc(1, sizeof *s);
  if (!s || !(s->name = qv_strdup(name))) {
    qv_free(s);
    return qv_error_nomem(err, "NodeScanExec");
  }
  s->st = st;
  s->label = label;
  QV_RETURN_NOT_OK(make(&node_vt, ctx, s, out, err));
  (*out)->estimate_rows = qvg_store_node_count(st, label);
  return QV_OK;
}

qv_status qvg_op_rel_scan(qv_exec_ctx *ctx, const qvg_store *st, const int32_t *types, int32_t n_types,
                          const char *rel_name, const char *src_name, const char *dst_name, qv_exec_op **out,
                          qv_error *err) {
  *out = NULL;
  if (!rel_name || !src_name || !dst_name)
    return qv_error_set(err, QV_ERR_INVALID, "RelScanExec: every column needs a name");
  scan_state *s = qv_calloc(1, sizeof *s);
  if (!s) return qv_error_nomem(err, "RelScanExec");
  s->st = st;
  s->rels = true;
  s->n_types = n_types > 0 ? n_types : 0;
  s->types = qv_calloc((size_t)s->n_types + 1, sizeof *s->types);
  s->name = qv_strdup(rel_name);
  s->src_name = qv_strdup(src_name);
  s->dst_name = qv_strdup(dst_name);
  if (!s->types || !s->name || !s->src_name || !s->dst_name) {
    scan_free(&(qv_exec_op){.state = s});
    return qv_error_nomem(err, "RelScanExec");
  }
  if (s->n_types) memcpy(s->types, types, (size_t)s->n_types * sizeof *types);
  QV_RETURN_NOT_OK(make(&rel_vt, ctx, s, out, err));
  int64_t rows = 0;
  for (int32_t i = 0; i < s->n_types; i++) rows += qvg_store_rel_count(st, s->types[i]);
  (*out)->estimate_rows = s->n_types ? rows : qvg_store_rel_count(st, -1);
  return QV_OK;
}

qv_status qvg_op_unit(qv_exec_ctx *ctx, const char *name, qv_exec_op **out, qv_error *err) {
  *out = NULL;
  if (!name) return qv_error_set(err, QV_ERR_INVALID, "UnitExec: the column needs a name");
  scan_state *s = qv_calloc(1, sizeof *s);
  if (!s || !(s->name = qv_strdup(name))) {
    qv_free(s);
    return qv_error_nomem(err, "UnitExec");
  }
  QV_RETURN_NOT_OK(make(&unit_vt, ctx, s, out, err));
  (*out)->estimate_rows = 1;
  return QV_OK;
}
