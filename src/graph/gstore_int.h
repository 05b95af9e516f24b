/* The two stores behind graph/gstore.h, internal to gstore*.c: the
 * dispatcher (gstore.c) calls the dataset store's (gstore_dataset.c,
 * qvg_ds_*) or the memory store's (gstore_mem.c, qvg_mem_*) version of
 * each lookup, by which of st->g and st->mem is set.  Arguments and
 * results are gstore.h's; ids reaching these functions are not checked
 * beyond what each says. */
#ifndef QUIVER_GRAPH_GSTORE_INT_H
#define QUIVER_GRAPH_GSTORE_INT_H

#include "graph/gstore.h"

/* ---- dataset store ---- */
qv_status qvg_ds_open(qv_graph *g, qvg_store **out, qv_error *err);
void qvg_ds_free(qvg_store *st);
int32_t qvg_ds_label_keys(const qvg_store *st, int32_t label, const char *const **out);
int32_t qvg_ds_type_keys(const qvg_store *st, int32_t type, const char *const **out);
int64_t qvg_ds_node_count(const qvg_store *st, int32_t label);
int64_t qvg_ds_nodes(const qvg_store *st, int32_t label, int64_t *cursor, int64_t *ids, int64_t cap);
bool qvg_ds_node_valid(const qvg_store *st, int64_t node);
qv_status qvg_ds_node_prop(const qvg_store *st, int64_t node, const char *key, int32_t klen, qvg_arena *a, qvg_val *out,
                           qv_error *err);
qv_status qvg_ds_node_props(const qvg_store *st, int64_t node, qvg_arena *a, qvg_val *out, qv_error *err);
int64_t qvg_ds_rel_count(const qvg_store *st, int32_t type);
int64_t qvg_ds_rels(const qvg_store *st, int32_t type, int64_t *cursor, int64_t *ids, int64_t cap);
/* The rel's source and destination node ids; false when it is no rel. */
bool qvg_ds_rel_ends(const qvg_store *st, int64_t rel, int64_t *src, int64_t *dst);
qv_status qvg_ds_rel_prop(const qvg_store *st, int64_t rel, const char *key, int32_t klen, qvg_arena *a, qvg_val *out,
                          qv_error *err);
qv_status qvg_ds_prop_column(const qvg_store *st, bool rel, int32_t owner, const char *key, const qv_array **out,
                             qv_error *err);
qv_status qvg_ds_rel_props(const qvg_store *st, int64_t rel, qvg_arena *a, qvg_val *out, qv_error *err);
qvg_adj qvg_ds_adj(const qvg_store *st, int32_t type, qvg_direction dir, int64_t node);
qv_status qvg_ds_prepare(qvg_store *st, qv_error *err);
double qvg_ds_selectivity(const qvg_store *st, int32_t label, const qv_expr *filter, double dflt);

/* ---- memory store ---- */
qv_status qvg_mem_open(qvg_store **out, qv_error *err);
void qvg_mem_free(qvg_store *st);
int32_t qvg_mem_label_keys(const qvg_store *st, int32_t label, const char *const **out);
int32_t qvg_mem_type_keys(const qvg_store *st, int32_t type, const char *const **out);
int64_t qvg_mem_node_count(const qvg_store *st, int32_t label);
int64_t qvg_mem_nodes(const qvg_store *st, int32_t label, int64_t *cursor, int64_t *ids, int64_t cap);
bool qvg_mem_node_has_label(const qvg_store *st, int64_t node, int32_t label);
int32_t qvg_mem_node_labels(const qvg_store *st, int64_t node, int32_t *out, int32_t cap);
qv_status qvg_mem_node_prop(const qvg_store *st, int64_t node, const char *key, int32_t klen, qvg_arena *a,
                            qvg_val *out, qv_error *err);
qv_status qvg_mem_node_props(const qvg_store *st, int64_t node, qvg_arena *a, qvg_val *out, qv_error *err);
int64_t qvg_mem_rel_count(const qvg_store *st, int32_t type);
int64_t qvg_mem_rels(const qvg_store *st, int32_t type, int64_t *cursor, int64_t *ids, int64_t cap);
int32_t qvg_mem_rel_type(const qvg_store *st, int64_t rel);
bool qvg_mem_rel_ends(const qvg_store *st, int64_t rel, int64_t *src, int64_t *dst);
qv_status qvg_mem_rel_prop(const qvg_store *st, int64_t rel, const char *key, int32_t klen, qvg_arena *a, qvg_val *out,
                           qv_error *err);
qv_status qvg_mem_rel_props(const qvg_store *st, int64_t rel, qvg_arena *a, qvg_val *out, qv_error *err);
qvg_adj qvg_mem_adj(const qvg_store *st, int32_t type, qvg_direction dir, int64_t node);
qv_status qvg_mem_prepare(qvg_store *st, qv_error *err);
/* Relationships of the type per distinct node they leave (its CSR as of
 * the last prepare). */
double qvg_mem_fanout(const qvg_store *st, int32_t type, qvg_direction dir);
qv_status qvg_mem_create_node(qvg_store *st, const char *const *labels, int32_t n_labels, const qvg_val *props,
                              int64_t *out_id, qv_error *err);
qv_status qvg_mem_create_rel(qvg_store *st, const char *type, int64_t src, int64_t dst, const qvg_val *props,
                             int64_t *out_id, qv_error *err);

#endif
