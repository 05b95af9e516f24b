/* ShortestPathExec: shortestPath / allShortestPaths as breadth-first
 * search (graph/cypher_ops.h).
 *
 * Per input row, the search runs from the row's start node:
 *   - to a bound end (`into`): bidirectional, each turn expanding the side
 *     with the smaller frontier by one whole layer; when a layer reaches
 *     nodes the other side has seen, the shortest total over them is the
 *     length, and every shortest path goes through one of those nodes at
 *     that total (finished layers keep every predecessor), so the paths are
 *     the forward halves to each meeting node times its backward halves.
 *     Rows that share a start in a run get one forward search instead,
 *     run to the end once and read for each row's end.
 *   - to every node (a new end variable): one forward search; each node
 *     reached (of the end's label) is a match.
 * Predecessors are (node, relationship) pairs, one per edge that reached
 * the node in its layer, so parallel edges make distinct paths.  `one`
 * (shortestPath) takes the first path of each pair, `all` every one.
 *
 * Adjacency: the store's CSR spans, or (use_csr=false) an adjacency this
 * operator builds once from the relationships' endpoints, the same
 * layout.  Memory: the per-node marks and the predecessor lists are
 * counted against the query's limit, so a search that outgrows it fails
 * naming the limit. */
#include <string.h>

#include "graph/cypher_ops.h"

typedef struct sp_adj { /* one (type, direction): per node part, offsets into nbrs/rels */
  int64_t **offsets;    /* [part][pos + 1] */
  uint32_t **nbrs, **rels;
  int64_t *nbr_base; /* per part: the neighbours' base id (their label << 40) */
  int64_t rel_base;
} sp_adj;

typedef struct sp_side { /* one direction of the search */
  uint32_t **mark;       /* per node: the search's epoch when seen */
  int32_t **dist;
  int64_t **head; /* first predecessor entry + 1 (0: none) */
  int64_t *frontier, *next;
  int64_t n_front, n_next, cap;
  int64_t *seen; /* every node seen, in the order seen */
  int64_t n_seen, cap_seen;
  int32_t depth;
} sp_side;

typedef struct sp_state {
  const qvg_store *st;
  qvg_expand_spec sp;
  int32_t *types;
  char *to_name, *rel_name;
  bool all, own;
  int32_t n_in, n_parts;
  int64_t *positions; /* per part, fixed on first use (-1: not yet): every per-node array's size */
  int64_t max_hops;
  /* directions of the forward walk per type (dir as written, from the start) */
  int32_t n_types;
  sp_adj *own_out, *own_in; /* n_types, when own */
  sp_side fw, bw;
  uint32_t epoch;
  /* predecessor entries: node, rel, next entry + 1 */
  int64_t *p_node, *p_rel, *p_next;
  int64_t n_pred, cap_pred;
  /* a forward search kept for the rows that share its start */
  int64_t kept_start;
  bool kept;
  /* forbidden relationships of the current row */
  int64_t *forbid;
  int32_t n_forbid, cap_forbid;
  qvg_arena arena;
  /* output: grows by a row's paths at a time */
  qv_batch *in;
  int64_t row;
  int64_t o_n, o_cap;
  uint32_t *o_row;
  int64_t *o_node;
  qv_builder o_paths;
  qvg_val *path_buf;
  int64_t cap_path;
  /* the bidirectional search's meeting nodes and length */
  int64_t *meets;
  int64_t n_meets, cap_meets;
  int64_t total;
  int64_t out_bytes; /* reserved for the output not yet flushed */
  int64_t edges;
} sp_state;

/* ---- per-node arrays ---- */

/* How many positions part has, asked of the store once: every array of
 * the part is sized by it, and a lookup per edge stays a load. */
static int64_t part_positions(sp_state *s, int64_t part) {
  if (s->positions[part] < 0) s->positions[part] = qvg_store_id_positions(s->st, false, (int32_t)part);
  return s->positions[part];
}

static qv_status part_alloc(qv_exec_op *op, void ***slot, int64_t part, size_t elem, qv_error *err) {
  sp_state *s = op->state;
  if ((*slot)[part]) return QV_OK;
  int64_t n = part_positions(s, part) + 1;
  QV_RETURN_NOT_OK(qvx_reserve(op, n * (int64_t)elem, "the search's per-node marks", err));
  if (!((*slot)[part] = qv_calloc((size_t)n, elem))) return qv_error_nomem(err, "ShortestPathExec");
  return QV_OK;
}

static bool node_ok(sp_state *s, int64_t node, int64_t *part, int64_t *pos) {
  *part = node >> QVG_ID_SHIFT;
  *pos = node & QVG_ID_MASK;
  return node >= 0 && *part < s->n_parts && *pos < part_positions(s, *part);
}

/* Marks node seen by side at dist; false when it was seen already. */
static qv_status side_see(qv_exec_op *op, sp_side *d, int64_t node, int32_t dist, bool *fresh, qv_error *err) {
  sp_state *s = op->state;
  int64_t part, pos;
  *fresh = false;
  if (!node_ok(s, node, &part, &pos)) return QV_OK;
  QV_RETURN_NOT_OK(part_alloc(op, (void ***)&d->mark, part, sizeof **d->mark, err));
  QV_RETURN_NOT_OK(part_alloc(op, (void ***)&d->dist, part, sizeof **d->dist, err));
  QV_RETURN_NOT_OK(part_alloc(op, (void ***)&d->head, part, sizeof **d->head, err));
  if (d->mark[part][pos] == s->epoch) return QV_OK;
  d->mark[part][pos] = s->epoch;
  d->dist[part][pos] = dist;
  d->head[part][pos] = 0;
  *fresh = true;
  return QV_OK;
}

/* The side's distance of node, or -1 when it has not seen it. */
static int32_t side_dist(sp_state *s, const sp_side *d, int64_t node) {
  int64_t part, pos;
  if (!node_ok(s, node, &part, &pos) || !d->mark[part] || d->mark[part][pos] != s->epoch) return -1;
  return d->dist[part][pos];
}

static int64_t *side_head(const sp_side *d, int64_t node) { return &d->head[node >> QVG_ID_SHIFT][node & QVG_ID_MASK]; }

static qv_status add_pred(qv_exec_op *op, sp_side *d, int64_t node, int64_t from, int64_t rel, qv_error *err) {
  sp_state *s = op->state;
  if (s->n_pred == s->cap_pred) {
    int64_t nc = s->cap_pred ? s->cap_pred * 2 : 1024;
    QV_RETURN_NOT_OK(qvx_reserve(op, (nc - s->cap_pred) * 24, "the search's predecessors", err));
    int64_t *a = qv_realloc(s->p_node, (size_t)nc * sizeof *a), *b = NULL, *c = NULL;
    if (a) s->p_node = a;
    if (a && (b = qv_realloc(s->p_rel, (size_t)nc * sizeof *b))) s->p_rel = b;
    if (b && (c = qv_realloc(s->p_next, (size_t)nc * sizeof *c))) s->p_next = c;
    if (!c) return qv_error_nomem(err, "ShortestPathExec");
    s->cap_pred = nc;
  }
  int64_t *h = side_head(d, node), k = s->n_pred++;
  s->p_node[k] = from;
  s->p_rel[k] = rel;
  s->p_next[k] = *h;
  *h = k + 1;
  return QV_OK;
}

static qv_status push_next(qv_exec_op *op, sp_side *d, int64_t node, qv_error *err) {
  if (d->n_seen == d->cap_seen) {
    int64_t nc = d->cap_seen ? d->cap_seen * 2 : 1024;
    QV_RETURN_NOT_OK(qvx_reserve(op, (nc - d->cap_seen) * 8, "the search's frontiers", err));
    int64_t *a = qv_realloc(d->seen, (size_t)nc * sizeof *a);
    if (!a) return qv_error_nomem(err, "ShortestPathExec");
    d->seen = a;
    d->cap_seen = nc;
  }
  d->seen[d->n_seen++] = node;
  if (d->n_next == d->cap) {
    int64_t nc = d->cap ? d->cap * 2 : 1024;
    QV_RETURN_NOT_OK(qvx_reserve(op, (nc - d->cap) * 16, "the search's frontiers", err));
    int64_t *a = qv_realloc(d->frontier, (size_t)nc * sizeof *a), *b = NULL;
    if (a) d->frontier = a;
    if (a && (b = qv_realloc(d->next, (size_t)nc * sizeof *b))) d->next = b;
    if (!b) return qv_error_nomem(err, "ShortestPathExec");
    d->cap = nc;
  }
  d->next[d->n_next++] = node;
  return QV_OK;
}

/* ---- adjacency ---- */

/* The span of one type leaving node one way (out: along the relationship). */
static qvg_adj span(sp_state *s, int32_t t, bool out, int64_t node) {
  qvg_adj none = {NULL, NULL, 0, 0, 0};
  if (!s->own) return qvg_store_adj(s->st, s->types[t], out ? QVG_OUT : QVG_IN, node);
  const sp_adj *a = out ? &s->own_out[t] : &s->own_in[t];
  int64_t part = node >> QVG_ID_SHIFT, pos = node & QVG_ID_MASK;
  if (node < 0 || part >= s->n_parts || !a->offsets[part] || pos >= part_positions(s, part)) return none;
  int64_t lo = a->offsets[part][pos], hi = a->offsets[part][pos + 1];
  qvg_adj r = {a->nbrs[part] + lo, a->rels[part] + lo, hi - lo, a->nbr_base[part], a->rel_base};
  return r;
}

/* Builds one type's adjacency both ways from its relationships' ends
 * (a counting sort per node part, as the CSR build does). */
static qv_status build_own(qv_exec_op *op, int32_t t, qv_error *err) {
  sp_state *s = op->state;
  int32_t type = s->types[t];
  int64_t n = qvg_store_rel_count(s->st, type), cursor = 0, got;
  int64_t *ids = qv_malloc((size_t)(n > 0 ? n : 1) * sizeof *ids);
  if (!ids) return qv_error_nomem(err, "ShortestPathExec");
  int64_t k = 0;
  while (k < n && (got = qvg_store_rels(s->st, type, &cursor, ids + k, n - k)) > 0) k += got;
  qv_status rc = qvx_reserve(op, k * 32, "the adjacency built from the relationships", err);
  for (int side = 0; side < 2 && rc == QV_OK; side++) {
    sp_adj *a = side ? &s->own_in[t] : &s->own_out[t];
    for (int64_t i = 0; i < k && rc == QV_OK; i++) {
      int64_t from = side ? qvg_store_rel_dst(s->st, ids[i]) : qvg_store_rel_src(s->st, ids[i]);
      int64_t to = side ? qvg_store_rel_src(s->st, ids[i]) : qvg_store_rel_dst(s->st, ids[i]);
      int64_t part, pos;
      if (!node_ok(s, from, &part, &pos)) continue;
      if (!a->offsets[part]) {
        int64_t np = part_positions(s, part);
        a->offsets[part] = qv_calloc((size_t)np + 2, sizeof **a->offsets);
        if (!a->offsets[part]) rc = qv_error_nomem(err, "ShortestPathExec");
        a->nbr_base[part] = to & ~QVG_ID_MASK;
      }
      if (rc == QV_OK) a->offsets[part][pos + 2]++;
    }
    for (int32_t part = 0; part < s->n_parts && rc == QV_OK; part++) {
      if (!a->offsets[part]) continue;
      int64_t np = part_positions(s, part);
      for (int64_t i = 2; i <= np + 1; i++) a->offsets[part][i] += a->offsets[part][i - 1];
      int64_t m = a->offsets[part][np + 1];
      a->nbrs[part] = qv_malloc((size_t)(m > 0 ? m : 1) * sizeof **a->nbrs);
      a->rels[part] = qv_malloc((size_t)(m > 0 ? m : 1) * sizeof **a->rels);
      if (!a->nbrs[part] || !a->rels[part]) rc = qv_error_nomem(err, "ShortestPathExec");
    }
    a->rel_base = (int64_t)type << QVG_ID_SHIFT;
    for (int64_t i = 0; i < k && rc == QV_OK; i++) {
      int64_t from = side ? qvg_store_rel_dst(s->st, ids[i]) : qvg_store_rel_src(s->st, ids[i]);
      int64_t to = side ? qvg_store_rel_src(s->st, ids[i]) : qvg_store_rel_dst(s->st, ids[i]);
      int64_t part, pos;
      if (!node_ok(s, from, &part, &pos)) continue;
      int64_t at = a->offsets[part][pos + 1]++;
      a->nbrs[part][at] = (uint32_t)(to & QVG_ID_MASK);
      a->rels[part][at] = (uint32_t)(ids[i] - a->rel_base);
    }
  }
  qv_free(ids);
  return rc;
}

/* ---- the search ---- */

static bool forbidden(const sp_state *s, int64_t rel) {
  for (int32_t i = 0; i < s->n_forbid; i++)
    if (s->forbid[i] == rel) return true;
  return false;
}

/* Expands side d by one layer: forward follows the pattern's direction,
 * backward goes against it. */
static qv_status expand_layer(qv_exec_op *op, sp_side *d, bool forward, qv_error *err) {
  sp_state *s = op->state;
  d->n_next = 0;
  int32_t nd = d->depth + 1;
  for (int64_t f = 0; f < d->n_front; f++) {
    if ((f & 0xFFF) == 0xFFF) QV_RETURN_NOT_OK(qvx_check_cancel(op, err));
    int64_t u = d->frontier[f];
    for (int32_t t = 0; t < s->n_types; t++) {
      for (int way = 0; way < 2; way++) {
        /* way 0: along the relationship (->), 1: against it */
        bool along = way == 0;
        bool want = s->sp.dir == QVG_DIR_BOTH || (s->sp.dir == QVG_DIR_RIGHT) == (along == forward);
        if (!want) continue;
        qvg_adj a = span(s, t, along, u);
        s->edges += a.n;
        for (int64_t i = 0; i < a.n; i++) {
          int64_t v = a.nbr_base + a.nbrs[i], r = a.rel_base + a.rels[i];
          /* an undirected search meets a self-loop both ways: once is enough */
          if (s->sp.dir == QVG_DIR_BOTH && !along && v == u) continue;
          if (s->n_forbid && forbidden(s, r)) continue;
          bool fresh;
          QV_RETURN_NOT_OK(side_see(op, d, v, nd, &fresh, err));
          if (fresh) QV_RETURN_NOT_OK(push_next(op, d, v, err));
          if (side_dist(s, d, v) == nd) QV_RETURN_NOT_OK(add_pred(op, d, v, u, r, err));
        }
      }
    }
  }
  int64_t *t = d->frontier;
  d->frontier = d->next;
  d->next = t;
  d->n_front = d->n_next;
  d->depth = nd;
  return QV_OK;
}

static qv_status side_start(qv_exec_op *op, sp_side *d, int64_t node, qv_error *err) {
  bool fresh;
  d->n_front = d->n_next = d->n_seen = 0;
  d->depth = 0;
  QV_RETURN_NOT_OK(side_see(op, d, node, 0, &fresh, err));
  QV_RETURN_NOT_OK(push_next(op, d, node, err));
  int64_t *t = d->frontier;
  d->frontier = d->next;
  d->next = t;
  d->n_front = 1;
  d->n_next = 0;
  return QV_OK;
}

static void new_search(sp_state *s) {
  if (++s->epoch == 0) { /* wrapped: forget every mark */
    for (int32_t p = 0; p < s->n_parts; p++) {
      int64_t n = part_positions(s, p) + 1;
      if (s->fw.mark[p]) memset(s->fw.mark[p], 0, (size_t)n * sizeof **s->fw.mark);
      if (s->bw.mark[p]) memset(s->bw.mark[p], 0, (size_t)n * sizeof **s->bw.mark);
    }
    s->epoch = 1;
  }
  s->n_pred = 0;
  s->kept = false;
}

/* One forward search from start to the end (or max hops). */
static qv_status forward_all(qv_exec_op *op, int64_t start, qv_error *err) {
  sp_state *s = op->state;
  new_search(s);
  QV_RETURN_NOT_OK(side_start(op, &s->fw, start, err));
  while (s->fw.n_front > 0 && s->fw.depth < s->max_hops) QV_RETURN_NOT_OK(expand_layer(op, &s->fw, true, err));
  s->kept = true;
  s->kept_start = start;
  return QV_OK;
}

/* Bidirectional search from start to end: the meeting nodes and the
 * length, or n_meets 0. */
static qv_status between(qv_exec_op *op, int64_t start, int64_t end, qv_error *err) {
  sp_state *s = op->state;
  new_search(s);
  s->n_meets = 0;
  QV_RETURN_NOT_OK(side_start(op, &s->fw, start, err));
  QV_RETURN_NOT_OK(side_start(op, &s->bw, end, err));
  while (s->fw.n_front > 0 && s->bw.n_front > 0 && s->fw.depth + s->bw.depth < s->max_hops) {
    bool fwd = s->fw.n_front <= s->bw.n_front;
    sp_side *d = fwd ? &s->fw : &s->bw, *o = fwd ? &s->bw : &s->fw;
    QV_RETURN_NOT_OK(expand_layer(op, d, fwd, err));
    int64_t best = -1;
    for (int64_t i = 0; i < d->n_front; i++) {
      int32_t od = side_dist(s, o, d->frontier[i]);
      if (od >= 0 && (best < 0 || d->depth + od < best)) best = d->depth + od;
    }
    if (best < 0) continue;
    for (int64_t i = 0; i < d->n_front; i++) {
      int32_t od = side_dist(s, o, d->frontier[i]);
      if (od < 0 || d->depth + od != best) continue;
      if (s->n_meets == s->cap_meets) {
        int64_t nc = s->cap_meets ? s->cap_meets * 2 : 64;
        int64_t *m = qv_realloc(s->meets, (size_t)nc * sizeof *m);
        if (!m) return qv_error_nomem(err, "ShortestPathExec");
        s->meets = m;
        s->cap_meets = nc;
      }
      s->meets[s->n_meets++] = d->frontier[i];
    }
    s->total = best;
    return QV_OK;
  }
  return QV_OK;
}

/* ---- paths out ---- */

static qv_status out_room(qv_exec_op *op, qv_error *err) {
  sp_state *s = op->state;
  if (s->o_n < s->o_cap) return QV_OK;
  int64_t nc = s->o_cap * 2;
  QV_RETURN_NOT_OK(qvx_reserve(op, (nc - s->o_cap) * 12, "the paths of a row", err));
  uint32_t *r = qv_realloc(s->o_row, (size_t)nc * sizeof *r);
  int64_t *n = r ? qv_realloc(s->o_node, (size_t)nc * sizeof *n) : NULL;
  if (r) s->o_row = r;
  if (n) s->o_node = n;
  if (!n) return qv_error_nomem(err, "ShortestPathExec");
  s->o_cap = nc;
  return QV_OK;
}

static qv_status emit_path(qv_exec_op *op, int64_t end, int64_t len, qv_error *err) {
  sp_state *s = op->state;
  QV_RETURN_NOT_OK(out_room(op, err));
  int64_t k = s->o_n++;
  s->o_row[k] = (uint32_t)s->row;
  s->o_node[k] = end;
  qvg_val v = {QVG_V_LIST, (int32_t)len, {0}};
  v.u.l = s->path_buf;
  QV_RETURN_NOT_OK(qvg_val_append(&s->o_paths, QVG_COL_VALUE, &v, err));
  /* about what the encoded list takes: a tag and an id per relationship */
  int64_t bytes = 16 + len * 10;
  s->out_bytes += bytes;
  return qvx_reserve(op, bytes, "the paths of a row", err);
}

static qv_status path_room(sp_state *s, int64_t len, qv_error *err) {
  if (len <= s->cap_path) return QV_OK;
  qvg_val *b = qv_realloc(s->path_buf, (size_t)len * sizeof *b);
  if (!b) return qv_error_nomem(err, "ShortestPathExec");
  s->path_buf = b;
  s->cap_path = len;
  return QV_OK;
}

/* The paths from node back to its side's root through every combination
 * of predecessors (the first only for shortestPath), their relationships
 * written into path_buf: the forward side's at positions depth-1 down to
 * 0, the backward side's from `at` up.  then_back: after the forward half,
 * the backward half from meet. */
static qv_status chains(qv_exec_op *op, bool forward, int64_t node, int64_t depth, int64_t at, int64_t end, int64_t len,
                        bool then_back, int64_t meet, bool *done, qv_error *err) {
  sp_state *s = op->state;
  if (depth == 0) {
    if (then_back) return chains(op, false, meet, side_dist(s, &s->bw, meet), at, end, len, false, meet, done, err);
    QV_RETURN_NOT_OK(emit_path(op, end, len, err));
    *done = !s->all;
    return QV_OK;
  }
  sp_side *d = forward ? &s->fw : &s->bw;
  for (int64_t e = *side_head(d, node); e && !*done; e = s->p_next[e - 1]) {
    int64_t k = e - 1;
    s->path_buf[forward ? depth - 1 : at] = qvg_rel_val(s->p_rel[k]);
    QV_RETURN_NOT_OK(
        chains(op, forward, s->p_node[k], depth - 1, forward ? at : at + 1, end, len, then_back, meet, done, err));
  }
  return QV_OK;
}

/* The paths of a one-sided search from its root to end. */
static qv_status paths_to(qv_exec_op *op, int64_t end, qv_error *err) {
  sp_state *s = op->state;
  int32_t d = side_dist(s, &s->fw, end);
  if (d < 0 || d < s->sp.min_hops) return QV_OK;
  QV_RETURN_NOT_OK(path_room(s, d + 1, err));
  bool done = false;
  return chains(op, true, end, d, d, end, d, false, -1, &done, err);
}

static int64_t node_at(const qv_array *a, int64_t i) {
  return qv_array_is_valid(a, i) ? ((const int64_t *)qv_array_values(a))[i] : -1;
}

/* The relationships the row's path may not use (those bound by the
 * MATCH's other hops). */
static qv_status row_forbid(sp_state *s, qv_error *err) {
  s->n_forbid = 0;
  qvg_arena_clear(&s->arena);
  for (int32_t u = 0; u < s->sp.n_unique; u++) {
    const qv_array *a = s->in->columns[s->sp.unique_cols[u]];
    if (!qv_array_is_valid(a, s->row)) continue;
    qvg_val v;
    qvg_colkind k = a->type.id == QV_TYPE_INT64 ? QVG_COL_REL : QVG_COL_VALUE;
    QV_RETURN_NOT_OK(qvg_val_from_array(a, k, s->row, &s->arena, &v, err));
    int32_t n = v.t == QVG_V_LIST ? v.n : 1;
    if (s->n_forbid + n > s->cap_forbid) {
      int32_t nc = (s->n_forbid + n) * 2;
      int64_t *nf = qv_realloc(s->forbid, (size_t)nc * sizeof *nf);
      if (!nf) return qv_error_nomem(err, "ShortestPathExec");
      s->forbid = nf;
      s->cap_forbid = nc;
    }
    for (int32_t i = 0; i < n; i++) {
      const qvg_val *x = v.t == QVG_V_LIST ? &v.u.l[i] : &v;
      if (x->t == QVG_V_REL) s->forbid[s->n_forbid++] = x->u.i;
    }
  }
  return QV_OK;
}

/* The current row's paths into the output. */
static qv_status run_row(qv_exec_op *op, qv_error *err) {
  sp_state *s = op->state;
  int64_t start = node_at(s->in->columns[s->sp.from_col], s->row);
  if (start < 0) return QV_OK;
  QV_RETURN_NOT_OK(row_forbid(s, err));
  /* a forward search kept from the last row serves this one when it has
   * the same start (and nothing to avoid) */
  bool reuse = s->kept && s->kept_start == start && s->n_forbid == 0;
  if (s->sp.into_col < 0) { /* every node reached is an end */
    if (!reuse) QV_RETURN_NOT_OK(forward_all(op, start, err));
    if (s->n_forbid) s->kept = false;
    for (int64_t i = 0; i < s->fw.n_seen; i++) {
      int64_t v = s->fw.seen[i];
      if (s->sp.to_label >= 0 && !qvg_store_node_has_label(s->st, v, s->sp.to_label)) continue;
      QV_RETURN_NOT_OK(paths_to(op, v, err));
    }
    return QV_OK;
  }
  int64_t end = node_at(s->in->columns[s->sp.into_col], s->row);
  if (end < 0) return QV_OK;
  if (start == end) { /* the zero-length path, where *0.. allows it */
    if (s->sp.min_hops == 0) QV_RETURN_NOT_OK(emit_path(op, end, 0, err));
    return QV_OK;
  }
  const qv_array *fa = s->in->columns[s->sp.from_col];
  bool shared = s->row + 1 < s->in->num_rows && node_at(fa, s->row + 1) == start;
  if (reuse || (shared && s->n_forbid == 0)) {
    if (!reuse) QV_RETURN_NOT_OK(forward_all(op, start, err));
    return paths_to(op, end, err);
  }
  QV_RETURN_NOT_OK(between(op, start, end, err));
  if (s->n_meets == 0 || s->total < s->sp.min_hops) return QV_OK;
  QV_RETURN_NOT_OK(path_room(s, s->total + 1, err));
  bool done = false;
  for (int64_t m = 0; m < s->n_meets && !done; m++) {
    int64_t meet = s->meets[m];
    int32_t d = side_dist(s, &s->fw, meet);
    QV_RETURN_NOT_OK(chains(op, true, meet, d, d, end, s->total, true, meet, &done, err));
  }
  return QV_OK;
}

static qv_status nullable_node(const int64_t *vals, int64_t n, qv_array **out, qv_error *err) {
  qv_bytes *v = qv_bytes_alloc(n * 8);
  if (!v) return qv_error_nomem(err, "ShortestPathExec");
  memcpy(qv_bytes_mutable(v), vals, (size_t)n * 8);
  qv_datatype t = qv_datatype_simple(QV_TYPE_INT64);
  return qv_array_from_buffers(&t, n, NULL, v, NULL, out, err);
}

static qv_status flush(qv_exec_op *op, qv_batch **out, qv_error *err) {
  sp_state *s = op->state;
  int64_t n = s->o_n;
  int32_t nc = op->schema.n_fields;
  qv_array **cols = qv_calloc((size_t)nc, sizeof *cols);
  if (!cols) return qv_error_nomem(err, "ShortestPathExec");
  qv_status rc = QV_OK;
  for (int32_t c = 0; c < s->n_in && rc == QV_OK; c++)
    rc = qv_array_take(s->in->columns[c], s->o_row, n, &cols[c], err);
  if (rc == QV_OK) rc = qv_builder_finish(&s->o_paths, &cols[s->n_in], err);
  qv_datatype bin = qv_datatype_simple(QV_TYPE_BINARY);
  qv_status r2 = qv_builder_init(&s->o_paths, &bin, err);
  if (rc == QV_OK) rc = r2;
  if (rc == QV_OK && s->sp.into_col < 0) rc = nullable_node(s->o_node, n, &cols[s->n_in + 1], err);
  if (rc == QV_OK) rc = qv_batch_make(&op->schema, cols, n, out, err);
  else
    for (int32_t c = 0; c < nc; c++) qv_array_release(cols[c]);
  qv_free(cols);
  qvx_reserve(op, -s->out_bytes, "the paths of a row", err); /* they went out with the batch */
  s->out_bytes = 0;
  s->o_n = 0;
  return rc;
}

static qv_status sp_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  sp_state *s = op->state;
  for (;;) {
    if (!s->in) {
      QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &s->in, err));
      if (!s->in) return QV_OK;
      s->row = 0;
    }
    while (s->row < s->in->num_rows && s->o_n < op->ctx->batch_size) {
      QV_RETURN_NOT_OK(run_row(op, err));
      s->row++;
    }
    bool batch_done = s->row >= s->in->num_rows;
    qv_status rc = QV_OK;
    if (s->o_n > 0) rc = flush(op, out, err);
    if (batch_done) {
      qv_batch_release(s->in);
      s->in = NULL;
    }
    if (rc != QV_OK || *out) return rc;
  }
}

static qv_status sp_open(qv_exec_op *op, qv_error *err) {
  sp_state *s = op->state;
  s->o_cap = op->ctx->batch_size > 0 ? op->ctx->batch_size : 1024;
  s->o_row = qv_malloc((size_t)s->o_cap * sizeof *s->o_row);
  s->o_node = qv_malloc((size_t)s->o_cap * sizeof *s->o_node);
  if (!s->o_row || !s->o_node) return qv_error_nomem(err, "ShortestPathExec");
  qv_datatype bin = qv_datatype_simple(QV_TYPE_BINARY);
  QV_RETURN_NOT_OK(qv_builder_init(&s->o_paths, &bin, err));
  if (s->own)
    for (int32_t t = 0; t < s->n_types; t++) QV_RETURN_NOT_OK(build_own(op, t, err));
  return QV_OK;
}

static void side_free(sp_side *d, int32_t n_parts) {
  for (int32_t p = 0; p < n_parts; p++) {
    if (d->mark) qv_free(d->mark[p]);
    if (d->dist) qv_free(d->dist[p]);
    if (d->head) qv_free(d->head[p]);
  }
  qv_free(d->mark);
  qv_free(d->dist);
  qv_free(d->head);
  qv_free(d->frontier);
  qv_free(d->next);
  qv_free(d->seen);
  memset(d, 0, sizeof *d);
}

static void adj_free(sp_adj *a, int32_t n_parts) {
  for (int32_t p = 0; p < n_parts; p++) {
    if (a->offsets) qv_free(a->offsets[p]);
    if (a->nbrs) qv_free(a->nbrs[p]);
    if (a->rels) qv_free(a->rels[p]);
  }
  qv_free(a->offsets);
  qv_free(a->nbrs);
  qv_free(a->rels);
  qv_free(a->nbr_base);
}

static void sp_close(qv_exec_op *op) {
  sp_state *s = op->state;
  qv_batch_release(s->in);
  s->in = NULL;
  qv_builder_reset(&s->o_paths);
  qvg_arena_free(&s->arena);
}

static void sp_free(qv_exec_op *op) {
  sp_state *s = op->state;
  if (!s) return;
  sp_close(op);
  side_free(&s->fw, s->n_parts);
  side_free(&s->bw, s->n_parts);
  for (int32_t t = 0; t < s->n_types; t++) {
    if (s->own_out) adj_free(&s->own_out[t], s->n_parts);
    if (s->own_in) adj_free(&s->own_in[t], s->n_parts);
  }
  qv_free(s->own_out);
  qv_free(s->own_in);
  qv_free(s->p_node);
  qv_free(s->p_rel);
  qv_free(s->p_next);
  qv_free(s->forbid);
  qv_free(s->o_row);
  qv_free(s->o_node);
  qv_free(s->path_buf);
  qv_free(s->meets);
  qv_free(s->positions);
  qv_free(s->types);
  qv_free((int32_t *)(uintptr_t)s->sp.unique_cols);
  qv_free(s->to_name);
  qv_free(s->rel_name);
  qv_free(s);
}

static void sp_explain(const qv_exec_op *op, qvb_text *t) {
  const sp_state *s = op->state;
  const qv_schema *in = &op->children[0]->schema;
  qvb_text_f(t, "%s -> %s, types=[", in->fields[s->sp.from_col].name,
             s->sp.into_col >= 0 ? in->fields[s->sp.into_col].name : s->to_name);
  for (int32_t i = 0; i < s->n_types; i++) {
    int32_t ty = s->types[i];
    qvb_text_f(t, "%s%s", i ? "|" : "", ty >= 0 && ty < s->st->n_types ? s->st->types[ty] : "?");
  }
  qvb_text_f(t, "], dir=%s, hops %lld..",
             s->sp.dir == QVG_DIR_RIGHT  ? "->"
             : s->sp.dir == QVG_DIR_LEFT ? "<-"
                                         : "-",
             (long long)s->sp.min_hops);
  if (s->max_hops < INT32_MAX) qvb_text_f(t, "%lld", (long long)s->max_hops);
  qvb_text_f(t, ", %s, adjacency=%s", s->all ? "all" : "one", s->own ? "built" : "csr");
  if (s->sp.into_col < 0 && s->sp.to_label >= 0 && s->sp.to_label < s->st->n_labels)
    qvb_text_f(t, ", to=%s:%s", s->to_name, s->st->labels[s->sp.to_label]);
}

static void sp_metrics(const qv_exec_op *op, qvb_text *t) {
  const sp_state *s = op->state;
  qvb_text_f(t, ", edges=%lld", (long long)s->edges);
}

static const qvx_op_vt sp_vt = {"ShortestPathExec", sp_open, sp_next, sp_close, sp_free, sp_explain, sp_metrics};

qv_status qvg_op_shortest(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_store *st, const qvg_expand_spec *spec,
                          bool all, bool own_adjacency, qv_exec_op **out, qv_error *err) {
  *out = NULL;
  int32_t n_in = child->schema.n_fields;
  const char *bad = NULL;
  if (spec->from_col < 0 || spec->from_col >= n_in) bad = "the search must leave a NODE column of the input";
  else if (spec->into_col >= n_in) bad = "the bound end must be a column of the input";
  else if (spec->min_hops < 0 || spec->min_hops > 1 || spec->max_hops < spec->min_hops)
    bad = "a shortest path's hops are *0.. or *1.. with an upper bound not below them";
  else if (spec->target_filter || spec->edge_filter) bad = "filters are evaluated above the search";
  else if (!spec->rel_name || (spec->into_col < 0 && !spec->to_name)) bad = "the new columns need names";
  if (bad) {
    qv_exec_destroy(child);
    return qv_error_set(err, QV_ERR_INVALID, "ShortestPathExec: %s", bad);
  }
  sp_state *s = qv_calloc(1, sizeof *s);
  if (!s) {
    qv_exec_destroy(child);
    return qv_error_nomem(err, "ShortestPathExec");
  }
  s->st = st;
  s->sp = *spec;
  s->all = all;
  s->own = own_adjacency;
  s->n_in = n_in;
  s->n_parts = qvg_store_id_parts(st, false);
  s->max_hops = spec->max_hops;
  int32_t nt = spec->n_types > 0 ? spec->n_types : st->n_types;
  s->types = qv_calloc((size_t)nt + 1, sizeof *s->types);
  s->positions = qv_malloc(((size_t)s->n_parts + 1) * sizeof *s->positions);
  for (int32_t i = 0; s->positions && i <= s->n_parts; i++) s->positions[i] = -1;
  s->sp.unique_cols = NULL;
  qv_exec_op *op = NULL;
  QV_RETURN_NOT_OK(qvx_op_new(&sp_vt, ctx, &child, 1, s, &op, err));
  if (!s->types || !s->positions) goto nomem;
  for (int32_t i = 0; i < nt; i++) {
    int32_t ty = spec->n_types > 0 ? spec->types[i] : i;
    if (ty >= 0 && ty < st->n_types) s->types[s->n_types++] = ty; /* a type the store lacks matches nothing */
  }
  s->sp.types = s->types;
  if (spec->n_unique) {
    int32_t *u = qv_calloc((size_t)spec->n_unique, sizeof *u);
    if (!u) goto nomem;
    memcpy(u, spec->unique_cols, (size_t)spec->n_unique * sizeof *u);
    s->sp.unique_cols = u;
  }
  s->to_name = spec->to_name ? qv_strdup(spec->to_name) : NULL;
  s->rel_name = qv_strdup(spec->rel_name);
  s->fw.mark = qv_calloc((size_t)s->n_parts + 1, sizeof *s->fw.mark);
  s->fw.dist = qv_calloc((size_t)s->n_parts + 1, sizeof *s->fw.dist);
  s->fw.head = qv_calloc((size_t)s->n_parts + 1, sizeof *s->fw.head);
  s->bw.mark = qv_calloc((size_t)s->n_parts + 1, sizeof *s->bw.mark);
  s->bw.dist = qv_calloc((size_t)s->n_parts + 1, sizeof *s->bw.dist);
  s->bw.head = qv_calloc((size_t)s->n_parts + 1, sizeof *s->bw.head);
  if (!s->rel_name || (spec->to_name && !s->to_name) || !s->fw.mark || !s->fw.dist || !s->fw.head || !s->bw.mark ||
      !s->bw.dist || !s->bw.head)
    goto nomem;
  if (s->own) {
    s->own_out = qv_calloc((size_t)s->n_types + 1, sizeof *s->own_out);
    s->own_in = qv_calloc((size_t)s->n_types + 1, sizeof *s->own_in);
    if (!s->own_out || !s->own_in) goto nomem;
    for (int32_t t = 0; t < s->n_types; t++)
      for (int side = 0; side < 2; side++) {
        sp_adj *a = side ? &s->own_in[t] : &s->own_out[t];
        a->offsets = qv_calloc((size_t)s->n_parts + 1, sizeof *a->offsets);
        a->nbrs = qv_calloc((size_t)s->n_parts + 1, sizeof *a->nbrs);
        a->rels = qv_calloc((size_t)s->n_parts + 1, sizeof *a->rels);
        a->nbr_base = qv_calloc((size_t)s->n_parts + 1, sizeof *a->nbr_base);
        if (!a->offsets || !a->nbrs || !a->rels || !a->nbr_base) goto nomem;
      }
  }
  if (qv_schema_copy(&op->children[0]->schema, &op->schema) != QV_OK) goto nomem;
  qv_field rf = {s->rel_name, qv_datatype_simple(QV_TYPE_BINARY), true};
  if (qv_schema_add(&op->schema, &rf, err) != QV_OK) goto nomem;
  if (spec->into_col < 0) {
    qv_field nf = {s->to_name, qv_datatype_simple(QV_TYPE_INT64), true};
    if (qv_schema_add(&op->schema, &nf, err) != QV_OK) goto nomem;
  }
  op->estimate_rows = -1;
  *out = op;
  return QV_OK;
nomem:
  qv_exec_destroy(op);
  return qv_error_nomem(err, "ShortestPathExec");
}
