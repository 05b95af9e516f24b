/* The graph plan's sources: NodeScanExec (node ids of a label; over a
 * dataset store with a filter, the ids of the rows qv_scanner keeps),
 * RelScanExec (every relationship of some types with its two ends: the
 * hash-join plan's side of a hop) and UnitExec (one row, for queries that
 * start with RETURN or UNWIND).  Each holds one output batch at a time.
 *
 * A scan of a memory store stops at the ids that existed when it opened:
 * a CREATE downstream in the same pipeline must not feed the scan its own
 * nodes (MATCH (n) CREATE () would never end). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/cypher_ops.h"
#include "quiver/scan.h"

typedef struct scan_state {
  const qvg_store *st;
  bool rels;
  int32_t label;  /* nodes */
  int32_t *types; /* rels: n_types of them (0: every type) */
  int32_t n_types, at_type;
  char *name, *src_name, *dst_name;
  int64_t cursor;
  int64_t bound; /* memory store: ids below this (fixed at open) */
  /* a filtered scan of a dataset store's label */
  qv_expr *filter;
  char *filter_text, *note;
  double est;
  qv_scanner *sc;    /* while open */
  int64_t *frag_ids; /* (fragment id, fragment index) pairs by id */
  int32_t n_frags;
  qv_scan_counters counters; /* of the last scan, for analyze */
  bool by_id;                /* the one node of this id (node index) */
  int64_t id;
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
  s->cursor = 0;
  s->at_type = 0;
  s->bound = INT64_MAX;
  if (s->st && s->st->mem) s->bound = s->rels ? qvg_store_rel_count(s->st, -1) : qvg_store_node_count(s->st, -1);
  if (!s->filter) return QV_OK;
  /* the filter's columns only, and each kept row's _rowid */
  const qvg_label *l = &s->st->g->cat.labels[s->label];
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  static const char *const none[1] = {NULL};
  o.columns = none;
  o.n_columns = 0;
  o.filter_expr = s->filter;
  o.with_row_id = true;
  o.batch_size = op->ctx->batch_size;
  qv_scanner_destroy(s->sc);
  s->sc = NULL;
  qv_status st = qv_scanner_open_dataset(l->ds, &o, &s->sc, err);
  if (st != QV_OK) return qv_error_prefix(err, st, "NodeScanExec: %s:%s", s->name, l->name);
  return QV_OK;
}

/* The fragment index of a fragment id, or -1. */
static int32_t frag_index(const scan_state *s, int64_t id) {
  int32_t lo = 0, hi = s->n_frags - 1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (s->frag_ids[2 * mid] == id) return (int32_t)s->frag_ids[2 * mid + 1];
    if (s->frag_ids[2 * mid] < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

static int cmp_pair(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Node ids of the rows the scanner keeps: row position = the first
 * position of the row's fragment + its row in the fragment; rows the node
 * index does not name (a null id) are no nodes. */
static qv_status filtered_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  scan_state *s = op->state;
  const qvg_label *l = &s->st->g->cat.labels[s->label];
  for (;;) {
    qv_batch *b = NULL;
    QV_RETURN_NOT_OK(qv_scanner_next(s->sc, &b, err));
    if (!b) {
      qv_scanner_counters(s->sc, &s->counters);
      return QV_OK;
    }
    int64_t n = b->num_rows;
    const qv_array *rid = b->schema.n_fields > 0 ? b->columns[b->schema.n_fields - 1] : NULL;
    int64_t *ids = n > 0 ? qv_malloc((size_t)n * 8) : NULL;
    if (n > 0 && (!ids || !rid)) {
      qv_batch_release(b);
      qv_free(ids);
      return ids ? qv_error_set(err, QV_ERR_INVALID, "NodeScanExec: the scan gave no _rowid")
                 : qv_error_nomem(err, "NodeScanExec");
    }
    const uint64_t *r = n > 0 ? qv_array_values(rid) : NULL;
    int64_t m = 0, base = (int64_t)s->label << QVG_ID_SHIFT;
    for (int64_t i = 0; i < n; i++) {
      int32_t f = frag_index(s, (int64_t)(r[i] >> 32));
      if (f < 0) continue;
      int64_t id = base | (l->frag_start[f] + (int64_t)(r[i] & UINT32_MAX));
      if (qvg_store_node_has_label(s->st, id, s->label)) ids[m++] = id;
    }
    qv_batch_release(b);
    qv_status rc = QV_OK;
    if (m > 0) {
      qv_array *a = NULL;
      if ((rc = int64_array(ids, m, &a, err)) == QV_OK) rc = qv_batch_make(&op->schema, &a, m, out, err);
    }
    qv_free(ids);
    if (rc != QV_OK || m > 0) return rc;
  }
}

static qv_status by_id_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  scan_state *s = op->state;
  if (s->cursor++ > 0) return QV_OK;
  int64_t pos = qvg_node_position(s->st->g, s->label, s->id);
  int64_t node = ((int64_t)s->label << QVG_ID_SHIFT) | pos;
  if (pos < 0 || !qvg_store_node_has_label(s->st, node, s->label)) return QV_OK;
  qv_array *a = NULL;
  QV_RETURN_NOT_OK(int64_array(&node, 1, &a, err));
  return qv_batch_make(&op->schema, &a, 1, out, err);
}

static void scan_close(qv_exec_op *op) {
  scan_state *s = op->state;
  if (s->sc) qv_scanner_counters(s->sc, &s->counters);
  qv_scanner_destroy(s->sc);
  s->sc = NULL;
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
  qv_scanner_destroy(s->sc);
  qv_expr_destroy(s->filter);
  qv_free(s->filter_text);
  qv_free(s->note);
  qv_free(s->frag_ids);
  qv_free(s);
}

static void node_explain(const qv_exec_op *op, qvb_text *t) {
  const scan_state *s = op->state;
  qvb_text_s(t, s->name);
  if (s->label >= 0) qvb_text_f(t, ":%s", s->st->labels[s->label]);
  qvb_text_f(t, ", rows=%lld", (long long)qvg_store_node_count(s->st, s->label));
  if (s->filter_text) qvb_text_f(t, ", filter=%s", s->filter_text);
  if (s->by_id) qvb_text_f(t, ", id=%lld (node index)", (long long)s->id);
  if (s->est >= 100) qvb_text_f(t, ", est=%.0f", s->est);
  else if (s->est >= 0) qvb_text_f(t, ", est=%.3g", s->est);
  if (s->note) qvb_text_f(t, ", %s", s->note);
}

static void node_metrics(const qv_exec_op *op, qvb_text *t) {
  const scan_state *s = op->state;
  if (!s->filter) return;
  const qv_scan_counters *c = &s->counters;
  qvb_text_f(t, ", pages=%lld, pages_pruned=%lld, rows_scanned=%lld", (long long)c->pages_total,
             (long long)c->pages_pruned, (long long)c->rows_scanned);
  if (c->index_rows || c->pages_index_skipped)
    qvb_text_f(t, ", index_rows=%lld, pages_index_skipped=%lld", (long long)c->index_rows,
               (long long)c->pages_index_skipped);
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
static const qvx_op_vt by_id_vt = {"NodeScanExec", scan_open, by_id_next, NULL, scan_free, node_explain, NULL};
static const qvx_op_vt filtered_vt = {"NodeScanExec", scan_open,    filtered_next, scan_close,
                                      scan_free,      node_explain, node_metrics};
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
  if (vt == &node_vt || vt == &filtered_vt || vt == &by_id_vt) rc = add_col(op, s->name, QV_TYPE_INT64, err);
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
  s->est = -1;
  QV_RETURN_NOT_OK(make(&node_vt, ctx, s, out, err));
  (*out)->estimate_rows = qvg_store_node_count(st, label);
  return QV_OK;
}

qv_status qvg_op_node_scan_spec(qv_exec_ctx *ctx, const qvg_store *st, const qvg_node_scan_spec *spec, qv_exec_op **out,
                                qv_error *err) {
  *out = NULL;
  if (!spec->name) return qv_error_set(err, QV_ERR_INVALID, "NodeScanExec: the column needs a name");
  if ((spec->filter || spec->by_id) && (!st->g || spec->label < 0 || spec->label >= st->n_labels))
    return qv_error_set(err, QV_ERR_INVALID, "NodeScanExec: a filter needs a label of a graph over datasets");
  scan_state *s = qv_calloc(1, sizeof *s);
  if (!s) return qv_error_nomem(err, "NodeScanExec");
  s->st = st;
  s->label = spec->label;
  s->est = spec->est;
  s->by_id = spec->by_id && !spec->filter;
  s->id = spec->id;
  bool ok = (s->name = qv_strdup(spec->name)) != NULL;
  if (ok && spec->note) ok = (s->note = qv_strdup(spec->note)) != NULL;
  if (ok && spec->filter) {
    const qv_dataset *ds = st->g->cat.labels[spec->label].ds;
    s->n_frags = qv_dataset_num_fragments(ds);
    s->frag_ids = qv_calloc((size_t)s->n_frags * 2 + 2, sizeof *s->frag_ids);
    ok = s->frag_ids && (s->filter = qv_expr_clone(spec->filter)) && (s->filter_text = qv_expr_to_string(s->filter));
    for (int32_t i = 0; ok && i < s->n_frags; i++) {
      qv_fragment_info fi;
      qv_dataset_fragment(ds, i, &fi);
      s->frag_ids[2 * i] = fi.id;
      s->frag_ids[2 * i + 1] = i;
    }
    if (ok) qsort(s->frag_ids, (size_t)s->n_frags, 2 * sizeof *s->frag_ids, cmp_pair);
  }
  if (!ok) {
    scan_free(&(qv_exec_op){.state = s});
    return qv_error_nomem(err, "NodeScanExec");
  }
  QV_RETURN_NOT_OK(make(s->by_id ? &by_id_vt : spec->filter ? &filtered_vt : &node_vt, ctx, s, out, err));
  int64_t n = qvg_store_node_count(st, spec->label);
  (*out)->estimate_rows = spec->est >= 0 && spec->est < (double)n ? (int64_t)(spec->est + 0.5) : n;
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
