/* The store a Cypher query reads (graph/gstore.h): one interface, two
 * implementations.  This file dispatches each call to the dataset store
 * (gstore_dataset.c) or the memory store (gstore_mem.c) and answers what
 * both share: names by index.  Ids that belong to no node or rel give the
 * empty answer (no labels, null properties, no neighbours), never a crash:
 * an id can come from a user's parameter. */
#include <string.h>

#include "graph/gstore_int.h"

qv_status qvg_store_memory(qvg_store **out, qv_error *err) { return qvg_mem_open(out, err); }

qv_status qvg_store_dataset(qv_graph *g, qvg_store **out, qv_error *err) {
  *out = NULL;
  if (!g) return qv_error_set(err, QV_ERR_INVALID, "graph store: no graph given");
  return qvg_ds_open(g, out, err);
}

void qvg_store_free(qvg_store *st) {
  if (!st) return;
  if (st->mem) qvg_mem_free(st);
  else qvg_ds_free(st);
}

int32_t qvg_store_label(const qvg_store *st, const char *name) {
  for (int32_t i = 0; name && i < st->n_labels; i++)
    if (!strcmp(st->labels[i], name)) return i;
  return -1;
}

int32_t qvg_store_type(const qvg_store *st, const char *name) {
  for (int32_t i = 0; name && i < st->n_types; i++)
    if (!strcmp(st->types[i], name)) return i;
  return -1;
}

int32_t qvg_store_label_keys(const qvg_store *st, int32_t label, const char *const **out) {
  *out = NULL;
  if (label < 0 || label >= st->n_labels) return 0;
  return st->mem ? qvg_mem_label_keys(st, label, out) : qvg_ds_label_keys(st, label, out);
}

int32_t qvg_store_type_keys(const qvg_store *st, int32_t type, const char *const **out) {
  *out = NULL;
  if (type < 0 || type >= st->n_types) return 0;
  return st->mem ? qvg_mem_type_keys(st, type, out) : qvg_ds_type_keys(st, type, out);
}

/* ---- nodes ---- */

int64_t qvg_store_node_count(const qvg_store *st, int32_t label) {
  if (label < -1 || label >= st->n_labels) return 0;
  return st->mem ? qvg_mem_node_count(st, label) : qvg_ds_node_count(st, label);
}

int64_t qvg_store_nodes(const qvg_store *st, int32_t label, int64_t *cursor, int64_t *ids, int64_t cap) {
  if (label < -1 || label >= st->n_labels || cap <= 0 || *cursor < 0) return 0;
  return st->mem ? qvg_mem_nodes(st, label, cursor, ids, cap) : qvg_ds_nodes(st, label, cursor, ids, cap);
}

bool qvg_store_node_has_label(const qvg_store *st, int64_t node, int32_t label) {
  if (label < 0 || label >= st->n_labels) return false;
  if (st->mem) return qvg_mem_node_has_label(st, node, label);
  return qvg_ds_node_valid(st, node) && (node >> QVG_ID_SHIFT) == label;
}

int32_t qvg_store_node_labels(const qvg_store *st, int64_t node, int32_t *out, int32_t cap) {
  if (st->mem) return qvg_mem_node_labels(st, node, out, cap);
  if (!qvg_ds_node_valid(st, node)) return 0;
  if (cap > 0) out[0] = (int32_t)(node >> QVG_ID_SHIFT);
  return 1;
}

qv_status qvg_store_node_prop(const qvg_store *st, int64_t node, const char *key, int32_t klen, qvg_arena *a,
                              qvg_val *out, qv_error *err) {
  *out = qvg_null();
  return st->mem ? qvg_mem_node_prop(st, node, key, klen, a, out, err)
                 : qvg_ds_node_prop(st, node, key, klen, a, out, err);
}

qv_status qvg_store_node_props(const qvg_store *st, int64_t node, qvg_arena *a, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  return st->mem ? qvg_mem_node_props(st, node, a, out, err) : qvg_ds_node_props(st, node, a, out, err);
}

/* ---- relationships ---- */

int64_t qvg_store_rel_count(const qvg_store *st, int32_t type) {
  if (type < -1 || type >= st->n_types) return 0;
  return st->mem ? qvg_mem_rel_count(st, type) : qvg_ds_rel_count(st, type);
}

int64_t qvg_store_rels(const qvg_store *st, int32_t type, int64_t *cursor, int64_t *ids, int64_t cap) {
  if (type < -1 || type >= st->n_types || cap <= 0 || *cursor < 0) return 0;
  return st->mem ? qvg_mem_rels(st, type, cursor, ids, cap) : qvg_ds_rels(st, type, cursor, ids, cap);
}

int32_t qvg_store_rel_type(const qvg_store *st, int64_t rel) {
  if (st->mem) return qvg_mem_rel_type(st, rel);
  int64_t s, d;
  return qvg_ds_rel_ends(st, rel, &s, &d) ? (int32_t)(rel >> QVG_ID_SHIFT) : -1;
}

int64_t qvg_store_rel_src(const qvg_store *st, int64_t rel) {
  int64_t s = -1, d = -1;
  bool ok = st->mem ? qvg_mem_rel_ends(st, rel, &s, &d) : qvg_ds_rel_ends(st, rel, &s, &d);
  return ok ? s : -1;
}

int64_t qvg_store_rel_dst(const qvg_store *st, int64_t rel) {
  int64_t s = -1, d = -1;
  bool ok = st->mem ? qvg_mem_rel_ends(st, rel, &s, &d) : qvg_ds_rel_ends(st, rel, &s, &d);
  return ok ? d : -1;
}

qv_status qvg_store_rel_prop(const qvg_store *st, int64_t rel, const char *key, int32_t klen, qvg_arena *a,
                             qvg_val *out, qv_error *err) {
  *out = qvg_null();
  return st->mem ? qvg_mem_rel_prop(st, rel, key, klen, a, out, err) : qvg_ds_rel_prop(st, rel, key, klen, a, out, err);
}

qv_status qvg_store_rel_props(const qvg_store *st, int64_t rel, qvg_arena *a, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  return st->mem ? qvg_mem_rel_props(st, rel, a, out, err) : qvg_ds_rel_props(st, rel, a, out, err);
}

int32_t qvg_store_id_parts(const qvg_store *st, bool rel) { return st->mem ? 1 : rel ? st->n_types : st->n_labels; }

int64_t qvg_store_id_positions(const qvg_store *st, bool rel, int32_t part) {
  if (part < 0 || part >= qvg_store_id_parts(st, rel)) return 0;
  if (st->mem) return rel ? qvg_store_rel_count(st, -1) : qvg_store_node_count(st, -1);
  return rel ? st->g->cat.types[part].n_edge_rows : st->g->cat.labels[part].n_rows;
}

qv_status qvg_store_prop_column(const qvg_store *st, bool rel, int32_t owner, const char *key, const qv_array **out,
                                qv_error *err) {
  *out = NULL;
  return st->mem ? QV_OK : qvg_ds_prop_column(st, rel, owner, key, out, err);
}

/* ---- adjacency ---- */

qvg_adj qvg_store_adj(const qvg_store *st, int32_t type, qvg_direction dir, int64_t node) {
  qvg_adj none = {NULL, NULL, 0, 0, 0};
  if (type < 0 || type >= st->n_types || node < 0) return none;
  return st->mem ? qvg_mem_adj(st, type, dir, node) : qvg_ds_adj(st, type, dir, node);
}

bool qvg_store_degrees(const qvg_store *st, int32_t type, qvg_direction dir, qvg_degrees *out) {
  if (st->mem || type < 0 || type >= st->n_types) return false;
  const qvg_type *t = &st->g->cat.types[type];
  const qvg_csr *c = &t->csr[dir];
  out->offsets = c->offsets;
  out->n_nodes = c->n_nodes;
  out->base = (int64_t)(dir == QVG_IN ? t->dst_label : t->src_label) << QVG_ID_SHIFT;
  return c->offsets != NULL;
}

/* ---- statistics ---- */

double qvg_store_fanout(const qvg_store *st, int32_t type, qvg_direction dir) {
  if (type < 0 || type >= st->n_types) return 0;
  if (st->g) {
    qvg_degree_stats d;
    qvg_degree(st->g, type, dir, &d);
    int64_t edges = qvg_type_count(st->g, type);
    return d.with_edges > 0 ? (double)edges / (double)d.with_edges : 0;
  }
  return qvg_mem_fanout(st, type, dir);
}

double qvg_store_selectivity(const qvg_store *st, int32_t label, const qv_expr *filter, double dflt) {
  if (!filter) return 1;
  if (st->g && label >= 0 && label < st->n_labels) return qvg_ds_selectivity(st, label, filter, dflt);
  const qv_expr *conj[64];
  int32_t n = qv_expr_conjuncts(filter, conj, 64);
  double s = 1;
  for (int32_t i = 0; i < n; i++) s *= dflt;
  return s;
}

qv_status qvg_store_prepare(qvg_store *st, qv_error *err) {
  return st->mem ? qvg_mem_prepare(st, err) : qvg_ds_prepare(st, err);
}

/* ---- changes ---- */

qv_status qvg_store_create_node(qvg_store *st, const char *const *labels, int32_t n_labels, const qvg_val *props,
                                int64_t *out_id, qv_error *err) {
  *out_id = -1;
  if (!st->mem) return qv_error_set(err, QV_ERR_UNSUPPORTED, "cypher: CREATE: a graph over datasets is read-only");
  return qvg_mem_create_node(st, labels, n_labels, props, out_id, err);
}

qv_status qvg_store_create_rel(qvg_store *st, const char *type, int64_t src, int64_t dst, const qvg_val *props,
                               int64_t *out_id, qv_error *err) {
  *out_id = -1;
  if (!st->mem) return qv_error_set(err, QV_ERR_UNSUPPORTED, "cypher: CREATE: a graph over datasets is read-only");
  return qvg_mem_create_rel(st, type, src, dst, props, out_id, err);
}
