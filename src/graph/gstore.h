/* The graph a Cypher query runs against, internal to the graph layer: one
 * interface over two kinds of store.
 *
 *   dataset store   an open qv_graph (graph_int.h): node labels and
 *                   relationship types over datasets, CSR adjacency from
 *                   its files, properties read from the datasets' columns
 *                   (each column read once, on first use, whole; positions
 *                   are physical row positions, as the CSR's).  Read-only.
 *   memory store    nodes and relationships made by CREATE (the TCK's
 *                   graphs and qv_graph_open_memory): any number of labels
 *                   per node, properties of any Cypher value, adjacency
 *                   rebuilt lazily after a change.
 *
 * Ids are graph-global int64.  Dataset store: node id = (label << 40) |
 * row position, rel id = (type << 40) | edge row.  Memory store: the index
 * of the node or relationship in creation order.  Ids are only meaningful
 * inside one store. */
#ifndef QUIVER_GRAPH_GSTORE_H
#define QUIVER_GRAPH_GSTORE_H

#include "graph/cypher_value.h"
#include "graph/graph_int.h"
#include "quiver/expr.h"

#define QVG_ID_SHIFT 40
#define QVG_ID_MASK ((INT64_C(1) << QVG_ID_SHIFT) - 1)

typedef struct qvg_mem qvg_mem; /* the memory store's contents (gstore_mem.c) */

struct qvg_store {
  qv_graph *g;  /* dataset store, or NULL */
  qvg_mem *mem; /* memory store, or NULL */
  /* Names by index: labels and relationship types known to the store (the
   * catalog's, or those CREATE has used so far). */
  int32_t n_labels;
  char **labels;
  int32_t n_types;
  char **types;
  /* Tests and measurements: node filters stay in CypherFilterExec instead
   * of going to the dataset scanner (false: the planner pushes them). */
  bool no_pushdown;
};

/* Creates an empty memory store / a store over an open graph (borrowed:
 * it must outlive the store).  Free with qvg_store_free. */
qv_status qvg_store_memory(qvg_store **out, qv_error *err);
qv_status qvg_store_dataset(qv_graph *g, qvg_store **out, qv_error *err);
void qvg_store_free(qvg_store *st); /* NULL-safe */

/* Label / type index by name, or -1. */
int32_t qvg_store_label(const qvg_store *st, const char *name);
int32_t qvg_store_type(const qvg_store *st, const char *name);
/* Property keys the schema declares for a label / type (dataset store:
 * the dataset's columns; memory store: every key seen so far on nodes of
 * that label / rels of that type).  *out is borrowed. */
int32_t qvg_store_label_keys(const qvg_store *st, int32_t label, const char *const **out);
int32_t qvg_store_type_keys(const qvg_store *st, int32_t type, const char *const **out);

/* Ids as dense positions: an id is (part << 40) | position, where the
 * parts are the labels (nodes) or types (rels) of a dataset store and one
 * part of a memory store.  How many parts there are, and how many
 * positions a part has, so that an array per part indexed by position
 * holds a value for every id of it. */
int32_t qvg_store_id_parts(const qvg_store *st, bool rel);
int64_t qvg_store_id_positions(const qvg_store *st, bool rel, int32_t part);

/* ---- nodes ---- */

/* Nodes with the label (label -1: every node), and an upper bound of the
 * ids for iteration: qvg_store_nodes fills ids[0..cap) from *cursor
 * (start at 0) and returns how many it wrote (0: done). */
int64_t qvg_store_node_count(const qvg_store *st, int32_t label);
int64_t qvg_store_nodes(const qvg_store *st, int32_t label, int64_t *cursor, int64_t *ids, int64_t cap);
bool qvg_store_node_has_label(const qvg_store *st, int64_t node, int32_t label);
/* The node's labels, in label index order; returns how many (writes at
 * most cap). */
int32_t qvg_store_node_labels(const qvg_store *st, int64_t node, int32_t *out, int32_t cap);
/* The property key of node (null when absent).  Strings may point into
 * the store (valid while it lives); nested parts go to a. */
qv_status qvg_store_node_prop(const qvg_store *st, int64_t node, const char *key, int32_t klen, qvg_arena *a,
                              qvg_val *out, qv_error *err);
/* Every non-null property as a map. */
qv_status qvg_store_node_props(const qvg_store *st, int64_t node, qvg_arena *a, qvg_val *out, qv_error *err);

/* ---- relationships ---- */

int64_t qvg_store_rel_count(const qvg_store *st, int32_t type); /* type -1: all */
int64_t qvg_store_rels(const qvg_store *st, int32_t type, int64_t *cursor, int64_t *ids, int64_t cap);
int32_t qvg_store_rel_type(const qvg_store *st, int64_t rel);
int64_t qvg_store_rel_src(const qvg_store *st, int64_t rel);
int64_t qvg_store_rel_dst(const qvg_store *st, int64_t rel);
qv_status qvg_store_rel_prop(const qvg_store *st, int64_t rel, const char *key, int32_t klen, qvg_arena *a,
                             qvg_val *out, qv_error *err);
qv_status qvg_store_rel_props(const qvg_store *st, int64_t rel, qvg_arena *a, qvg_val *out, qv_error *err);

/* Dataset stores: the whole column of property key of a type's (rel) or
 * a label's dataset, indexed by row position (deleted rows included),
 * loaded once and kept by the store.  *out is NULL for a memory store or
 * a key the dataset lacks. */
qv_status qvg_store_prop_column(const qvg_store *st, bool rel, int32_t owner, const char *key, const qv_array **out,
                                qv_error *err);

/* ---- adjacency ---- */

/* The relationships of one type leaving (QVG_OUT) or entering (QVG_IN)
 * node: neighbour ids nbr_base + nbrs[i] reached over rel ids
 * rel_base + rels[i].  Dataset store: the CSR span, no copy.  Memory
 * store: its lazily built CSR.  A node the type cannot touch has n = 0. */
typedef struct qvg_adj {
  const uint32_t *nbrs;
  const uint32_t *rels;
  int64_t n;
  int64_t nbr_base, rel_base;
} qvg_adj;

qvg_adj qvg_store_adj(const qvg_store *st, int32_t type, qvg_direction dir, int64_t node);
/* A type's degrees in one direction as the CSR's offsets, for loops that
 * need only span lengths: node ids from base (the leaving label << 40)
 * at positions below n_nodes have offsets[pos + 1] - offsets[pos]
 * relationships; every other node none.  Dataset stores only (false
 * otherwise: use qvg_store_adj). */
typedef struct qvg_degrees {
  const uint64_t *offsets;
  int64_t n_nodes;
  int64_t base;
} qvg_degrees;
bool qvg_store_degrees(const qvg_store *st, int32_t type, qvg_direction dir, qvg_degrees *out);
static inline int64_t qvg_degree_of(const qvg_degrees *d, int64_t node) {
  int64_t pos = node - d->base;
  return pos >= 0 && pos < d->n_nodes ? (int64_t)(d->offsets[pos + 1] - d->offsets[pos]) : 0;
}
/* ---- statistics, for the planner's estimates ---- */

/* Relationships of the type per distinct node they leave in direction dir
 * (the expected fan-out of a hop; 0 when the type has none).  Dataset
 * store: the catalog's degree statistics; memory store: counted when its
 * CSR is built (qvg_store_prepare). */
double qvg_store_fanout(const qvg_store *st, int32_t type, qvg_direction dir);
/* The share of the label's nodes the filter (quiver's expression IR over
 * the label's dataset columns, unbound) keeps, estimated per conjunct from
 * the dataset's scalar indices (their value counts: qv_index_estimate_rows)
 * or else its page statistics (min / max / null counts, values taken as
 * spread evenly between a page's bounds); a conjunct neither answers
 * counts `dflt`.  Dataset stores only (memory stores: dflt per conjunct). */
double qvg_store_selectivity(const qvg_store *st, int32_t label, const qv_expr *filter, double dflt);

/* Prepares adjacency for queries (memory store: rebuilds the CSR of every
 * type after changes).  Called by the planner before a query runs; the
 * lookups above are then read-only and safe from several threads. */
qv_status qvg_store_prepare(qvg_store *st, qv_error *err);

/* ---- changes (memory store only; QV_ERR_UNSUPPORTED on a dataset store) ---- */

/* A new node with labels (names; new ones are added to st->labels) and
 * properties (a map value; null entries are not stored). */
qv_status qvg_store_create_node(qvg_store *st, const char *const *labels, int32_t n_labels, const qvg_val *props,
                                int64_t *out_id, qv_error *err);
qv_status qvg_store_create_rel(qvg_store *st, const char *type, int64_t src, int64_t dst, const qvg_val *props,
                               int64_t *out_id, qv_error *err);

#endif
