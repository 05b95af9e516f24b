/* CsrExpandExec: a hop over the store's adjacency (graph/cypher_ops.h).
 *
 * One operator for both kinds of hop.  A one-hop expansion walks each
 * input row's adjacency spans (one per relationship type and direction);
 * a var-length one (*min..max) walks them depth first with an explicit
 * stack of frames, one per node of the current path, so it iterates
 * depths 1..max holding only the path it is on (max frames), not a
 * frontier.  Both keep their place (the frame's span and offset) across
 * calls: an output chunk fills up to batch_size rows and the operator
 * yields, partway through a high-degree node if need be, holding one input
 * batch and one output chunk.
 *
 * Semantics (openCypher, checked against the TCK's match features):
 *   - relationship uniqueness: a path never uses a relationship twice
 *     (trail: var-length paths are checked against their own stack), nor
 *     one bound in the MATCH's earlier hops (spec->unique_cols);
 *   - an undirected hop (-) walks both directions of each type, and a
 *     self-loop, which both directions hold, counts once: its copy in the
 *     incoming span is skipped (MATCH ()-[r]-() gives a loop once);
 *   - a *0.. hop's zero-length path is the start node itself;
 *   - optional: an input row with no match yields once, nulls added.
 *
 * Filters are evaluated on a one-row probe batch shaped like the output
 * (input columns sliced from the current row only when a filter reads
 * them), so a rejected candidate costs no output row.  A target filter
 * reading nothing but the new node is memoized per node, an edge filter
 * reading nothing but the relationship per relationship (a byte each:
 * unknown, passes, fails). */
#include <string.h>

#include "graph/cypher_lower.h"
#include "graph/cypher_ops.h"

typedef struct hop_src {
  int32_t type;
  qvg_direction dir;
} hop_src;

typedef struct frame {
  int64_t node;
  int64_t rel; /* the relationship that reached node (-1 for the start) */
  int32_t h;   /* which hop_src the span is of */
  int64_t i;   /* next entry of the span */
  qvg_adj adj;
} frame;

/* Tri-state memo over ids (label or type << 40 | position): one array
 * per high part, allocated on first use.  Once a part has cost enough
 * evaluations one by one, the filter lowered to the compute kernels
 * (graph/cypher_lower.h) answers the whole part at once, where it lowers. */
typedef struct memo {
  int32_t n_parts;
  int64_t *sizes;
  uint8_t **parts;
  int64_t *misses;  /* per part: evaluations so far */
  uint8_t *lowered; /* per part: LOWER_* */
} memo;

enum { MEMO_UNKNOWN = 0, MEMO_PASS = 1, MEMO_FAIL = 2 };
enum { LOWER_UNTRIED = 0, LOWER_DONE, LOWER_DECLINED };

typedef struct expand_state {
  const qvg_store *st;
  qvg_expand_spec sp; /* types, unique_cols and names point into this state */
  int32_t *types, *unique;
  char *to_name, *rel_name;
  qvg_colkind *kinds;       /* output columns' kinds */
  qvg_colkind *probe_kinds; /* the probe's: the rel column is one REL */
  int32_t n_in, rel_col, node_col;
  hop_src *hops;
  int32_t n_hops;
  int32_t n_locals;
  /* filters */
  bool t_memo_ok, e_memo_ok, need_input, t_reads_list;
  /* `c <> a` conjuncts of the target filter between the new node and
   * NODE columns of the input, taken out of it and checked as ids (the
   * rest of the filter then often reads the new node alone, and memoizes) */
  int32_t ne_cols[4], n_ne;
  int64_t ne_vals[4]; /* the current row's (-1: null) */
  qvg_cx *rest_and;   /* AND nodes of what the filter keeps, when rebuilt */
  const qvg_cx **rest_kids;
  memo tmemo, ememo;
  qv_batch *probe;
  int64_t *probe_rel, *probe_node;
  int64_t probe_row;
  qvg_arena arena;
  qvg_val *locals;
  /* input */
  qv_batch *in;
  int64_t row;
  bool row_open, row_matched;
  int64_t into_node;
  int64_t *forbid;
  int32_t n_forbid, cap_forbid;
  /* the walk */
  frame *stack;
  int32_t depth, cap_stack;
  /* the output chunk */
  int64_t o_n, o_cap;
  uint32_t *o_row;
  int64_t *o_rel, *o_node; /* -1: null */
  qv_builder o_paths;      /* varlen: the rel lists */
  qvg_val *path_buf;
  int32_t cap_path;
  /* count mode (qvg_expand_count): one row per input row that matched,
   * with how many rows it would have made */
  bool count_mode, fast_count;
  char *count_name;
  /* count(DISTINCT target) per run of input rows with one key (the
   * planner proves such rows come together): a stamp per node, the key's
   * epoch when it was last counted */
  int32_t distinct_key; /* input NODE column, or -1 */
  /* a count chained over a following hop (qvg_expand_count_chain): each
   * match counts the next hop's span lengths at its node, less this
   * match's relationship when that hop must not reuse it */
  hop_src *next_hops;
  int32_t n_next;
  bool next_unique;
  bool chain_fast;       /* no filter on this hop either: one loop over its spans */
  qvg_degrees *next_deg; /* the next hops' degrees straight from the CSR (dataset stores) */
  bool next_deg_ok;
  /* a filtered next hop: its operator, kept (detached, no child) for its
   * spans and filters, and each node's filtered degree, counted the first
   * time a match reaches the node (degree + 1; 0: not yet counted) */
  qv_exec_op *next_op;
  memo fdeg_sizes; /* the parts' sizes (its uint8 parts unused) */
  int64_t **fdeg;
  memo stamp_sizes; /* the parts' sizes (its uint8 parts unused) */
  uint32_t **stamps;
  uint32_t epoch;
  int64_t cur_key;
  qv_schema full; /* the columns before count mode replaced rel and node (explain names them) */
  int64_t cur_count;
  int64_t *o_count;
  /* counters */
  int64_t edges, memo_hits, evals, lowered_rows;
  uint32_t ticks; /* walk steps, for the cancel check */
} expand_state;

/* ---- helpers ---- */

/* The columns the walk works with: the output's, or in count mode the
 * ones the rel and node columns had before the count replaced them. */
static const qv_schema *walk_schema(const qv_exec_op *op) {
  const expand_state *s = op->state;
  return s->count_mode ? &s->full : &op->schema;
}

static int32_t max_slot(const qvg_cx *e) {
  if (!e) return -1;
  int32_t m = -1;
  switch (e->kind) {
    case QVG_CX_LOCAL:
    case QVG_CX_LIST_COMP:
    case QVG_CX_QUANT: m = e->slot; break;
    case QVG_CX_REDUCE: m = e->slot > e->slot2 ? e->slot : e->slot2; break;
    default: break;
  }
  for (int32_t i = 0; i < e->n_kids; i++) {
    int32_t k = max_slot(e->kids[i]);
    if (k > m) m = k;
  }
  int32_t k = max_slot(e->else_ex);
  return k > m ? k : m;
}

static bool reads_other(const qvg_cx *e, int32_t n_cols, int32_t except) {
  for (int32_t c = 0; c < n_cols; c++)
    if (c != except && qvg_cx_uses_col(e, c)) return true;
  return false;
}

static uint8_t *memo_slot(expand_state *s, memo *m, int64_t id) {
  int64_t part = id >> QVG_ID_SHIFT, pos = id & QVG_ID_MASK;
  if (id < 0 || part >= m->n_parts || pos >= m->sizes[part]) return NULL;
  if (!m->parts[part]) {
    m->parts[part] = qv_calloc((size_t)m->sizes[part] + 1, 1);
    if (!m->parts[part]) return NULL; /* evaluate without memo */
  }
  (void)s;
  return &m->parts[part][pos];
}

static void memo_free(memo *m) {
  for (int32_t i = 0; i < m->n_parts; i++) qv_free(m->parts[i]);
  qv_free(m->parts);
  qv_free(m->sizes);
  qv_free(m->misses);
  qv_free(m->lowered);
  memset(m, 0, sizeof *m);
}

/* Called before evaluating filter f for entity id one by one: after
 * size/32 such evaluations in id's part, the whole part is evaluated at
 * once by f lowered (col: the column f reads the entity from), which
 * costs about as much as those evaluations did and leaves the memo
 * holding every answer. */
static qv_status memo_lower(expand_state *s, memo *m, const qvg_cx *f, int32_t col, bool rel, int64_t id,
                            qv_error *err) {
  int64_t part = id >> QVG_ID_SHIFT;
  if (!m->lowered || m->lowered[part] != LOWER_UNTRIED || ++m->misses[part] < m->sizes[part] / 32 + 16) return QV_OK;
  m->lowered[part] = LOWER_DECLINED;
  qvg_lowered *lw = NULL;
  QV_RETURN_NOT_OK(qvg_lower_pred(s->st, f, col, rel, (int32_t)part, &lw, err));
  if (!lw) return QV_OK;
  qv_status rc = qvg_lowered_eval(lw, m->sizes[part], m->parts[part], MEMO_PASS, MEMO_FAIL, err);
  qvg_lowered_free(lw);
  if (rc == QV_OK) {
    m->lowered[part] = LOWER_DONE;
    s->lowered_rows += m->sizes[part];
  }
  return rc;
}

/* Sizes the memo's parts: per label (nodes) or type (rels) of a dataset
 * store; one part of the current count for a memory store. */
static qv_status memo_init(expand_state *s, memo *m, bool rels, qv_error *err) {
  const qvg_store *st = s->st;
  int32_t n = qvg_store_id_parts(st, rels);
  m->n_parts = n;
  m->sizes = qv_calloc((size_t)n + 1, sizeof *m->sizes);
  m->parts = qv_calloc((size_t)n + 1, sizeof *m->parts);
  m->misses = qv_calloc((size_t)n + 1, sizeof *m->misses);
  m->lowered = qv_calloc((size_t)n + 1, sizeof *m->lowered);
  if (!m->sizes || !m->parts || !m->misses || !m->lowered) return qv_error_nomem(err, "CsrExpandExec");
  for (int32_t i = 0; i < n; i++) m->sizes[i] = qvg_store_id_positions(st, rels, i);
  return QV_OK;
}

static qv_status int64_col(int64_t n, int64_t **data, qv_array **out, qv_error *err) {
  qv_bytes *b = qv_bytes_alloc(n * 8);
  if (!b) return qv_error_nomem(err, "CsrExpandExec");
  *data = (int64_t *)qv_bytes_mutable(b);
  qv_datatype t = qv_datatype_simple(QV_TYPE_INT64);
  return qv_array_from_buffers(&t, n, NULL, b, NULL, out, err);
}

/* ---- the probe ---- */

static qv_status probe_make(qv_exec_op *op, qv_error *err) {
  expand_state *s = op->state;
  int32_t nc = walk_schema(op)->n_fields;
  qv_schema ps = QV_SCHEMA_INIT;
  qv_array **cols = qv_calloc((size_t)nc, sizeof *cols);
  qv_status rc = cols ? qv_schema_copy(walk_schema(op), &ps) : qv_error_nomem(err, "CsrExpandExec");
  if (rc != QV_OK) {
    qv_free(cols);
    return rc == QV_OK ? rc : qv_error_nomem(err, "CsrExpandExec");
  }
  /* the probe's rel column is one REL (a var-length hop's edge filter
   * sees one relationship at a time) */
  if (s->rel_col >= 0) ps.fields[s->rel_col].type = qv_datatype_simple(QV_TYPE_INT64);
  for (int32_t c = 0; c < nc && rc == QV_OK; c++) {
    if (c == s->rel_col) rc = int64_col(1, &s->probe_rel, &cols[c], err);
    else if (c == s->node_col) rc = int64_col(1, &s->probe_node, &cols[c], err);
    else rc = qv_array_make_null(&ps.fields[c].type, 1, &cols[c], err);
  }
  if (rc == QV_OK) rc = qv_batch_make(&ps, cols, 1, &s->probe, err);
  else
    for (int32_t c = 0; c < nc; c++) qv_array_release(cols[c]);
  qv_free(cols);
  qv_schema_reset(&ps);
  s->probe_row = -1;
  return rc;
}

/* The probe's input columns become the current row's (once per row). */
static qv_status probe_row(expand_state *s, qv_error *err) {
  if (!s->need_input || s->probe_row == s->row) return QV_OK;
  for (int32_t c = 0; c < s->n_in; c++) {
    qv_array *a = NULL;
    QV_RETURN_NOT_OK(qv_array_slice(s->in->columns[c], s->row, 1, &a, err));
    qv_array_release(s->probe->columns[c]);
    s->probe->columns[c] = a;
  }
  s->probe_row = s->row;
  return QV_OK;
}

static qv_status eval(expand_state *s, const qvg_cx *e, qv_batch *b, const qvg_colkind *kinds, bool *pass,
                      qv_error *err) {
  qvg_evalctx cx = {s->st, b, kinds, s->locals, s->n_locals, &s->arena};
  qvg_tri t;
  s->evals++;
  qv_status rc = qvg_eval_pred(e, &cx, 0, &t, err);
  if (s->arena.bytes > (1 << 20)) qvg_arena_clear(&s->arena);
  *pass = t == QVG_TRUE;
  return rc;
}

static qv_status edge_ok(expand_state *s, int64_t rel, bool *pass, qv_error *err) {
  *pass = true;
  const qvg_cx *f = s->sp.edge_filter;
  if (!f) return QV_OK;
  uint8_t *m = s->e_memo_ok ? memo_slot(s, &s->ememo, rel) : NULL;
  if (m && *m == MEMO_UNKNOWN) QV_RETURN_NOT_OK(memo_lower(s, &s->ememo, f, s->rel_col, true, rel, err));
  if (m && *m != MEMO_UNKNOWN) {
    s->memo_hits++;
    *pass = *m == MEMO_PASS;
    return QV_OK;
  }
  QV_RETURN_NOT_OK(probe_row(s, err));
  *s->probe_rel = rel;
  QV_RETURN_NOT_OK(eval(s, f, s->probe, s->probe_kinds, pass, err));
  if (m) *m = *pass ? MEMO_PASS : MEMO_FAIL;
  return QV_OK;
}

/* A var-length hop's target filter that reads the path's rel list: a
 * probe of its own with that list, made per evaluation (rare). */
static qv_status target_with_list(qv_exec_op *op, int64_t node, bool *pass, qv_error *err) {
  expand_state *s = op->state;
  int32_t nc = walk_schema(op)->n_fields, n = s->depth - 1;
  qv_array **cols = qv_calloc((size_t)nc, sizeof *cols);
  if (!cols) return qv_error_nomem(err, "CsrExpandExec");
  qv_status rc = QV_OK;
  for (int32_t c = 0; c < nc && rc == QV_OK; c++) {
    if (c == s->rel_col) {
      qv_builder b;
      qvg_val v = {QVG_V_LIST, n, {0}};
      v.u.l = s->path_buf;
      for (int32_t i = 0; i < n; i++) s->path_buf[i] = qvg_rel_val(s->stack[i + 1].rel);
      if ((rc = qv_builder_init(&b, &walk_schema(op)->fields[c].type, err)) == QV_OK) {
        rc = qvg_val_append(&b, QVG_COL_VALUE, &v, err);
        if (rc == QV_OK) rc = qv_builder_finish(&b, &cols[c], err);
        else qv_builder_reset(&b);
      }
    } else if (c == s->node_col) {
      int64_t *d = NULL;
      if ((rc = int64_col(1, &d, &cols[c], err)) == QV_OK) *d = node;
    } else {
      cols[c] = qv_array_retain(s->probe->columns[c]);
    }
  }
  qv_batch *b = NULL;
  if (rc == QV_OK) rc = qv_batch_make(walk_schema(op), cols, 1, &b, err);
  else
    for (int32_t c = 0; c < nc; c++) qv_array_release(cols[c]);
  qv_free(cols);
  if (rc == QV_OK) rc = eval(s, s->sp.target_filter, b, s->kinds, pass, err);
  qv_batch_release(b);
  return rc;
}

/* Whether node is an acceptable end of the hop (rel: the last rel, for a
 * one-hop target filter that reads it). */
static qv_status target_ok(qv_exec_op *op, int64_t node, int64_t rel, bool *pass, qv_error *err) {
  expand_state *s = op->state;
  *pass = false;
  if (s->sp.into_col >= 0) {
    if (node != s->into_node) return QV_OK;
  } else if (s->sp.to_label >= 0 && !qvg_store_node_has_label(s->st, node, s->sp.to_label)) {
    return QV_OK;
  }
  for (int32_t k = 0; k < s->n_ne; k++)
    if (s->ne_vals[k] < 0 || s->ne_vals[k] == node) return QV_OK;
  *pass = true;
  const qvg_cx *f = s->sp.target_filter;
  if (!f) return QV_OK;
  uint8_t *m = s->t_memo_ok ? memo_slot(s, &s->tmemo, node) : NULL;
  if (m && *m == MEMO_UNKNOWN) QV_RETURN_NOT_OK(memo_lower(s, &s->tmemo, f, s->node_col, false, node, err));
  if (m && *m != MEMO_UNKNOWN) {
    s->memo_hits++;
    *pass = *m == MEMO_PASS;
    return QV_OK;
  }
  QV_RETURN_NOT_OK(probe_row(s, err));
  if (s->sp.varlen && s->t_reads_list) return target_with_list(op, node, pass, err);
  if (s->probe_rel) *s->probe_rel = rel;
  if (s->probe_node) *s->probe_node = node;
  QV_RETURN_NOT_OK(eval(s, f, s->probe, s->probe_kinds, pass, err));
  if (m) *m = *pass ? MEMO_PASS : MEMO_FAIL;
  return QV_OK;
}

static bool forbidden(const expand_state *s, int64_t rel) {
  for (int32_t i = 0; i < s->n_forbid; i++)
    if (s->forbid[i] == rel) return true;
  return false;
}

static bool on_path(const expand_state *s, int64_t rel) {
  for (int32_t i = 1; i < s->depth; i++)
    if (s->stack[i].rel == rel) return true;
  return false;
}

/* ---- output ---- */

static qv_status next_count(expand_state *s, int64_t node, int64_t rel, int32_t rtype, int64_t src, int64_t dst,
                            qv_error *err);

static qv_status emit(expand_state *s, int64_t rel, int64_t node, bool null_row, qv_error *err) {
  if (s->count_mode && s->distinct_key >= 0) {
    int64_t part = node >> QVG_ID_SHIFT, pos = node & QVG_ID_MASK;
    memo *m = &s->stamp_sizes;
    if (node < 0 || part >= m->n_parts || pos >= m->sizes[part])
      return qv_error_set(err, QV_ERR_INVALID, "CsrExpandExec: node id %lld out of range", (long long)node);
    if (!s->stamps[part] && !(s->stamps[part] = qv_calloc((size_t)m->sizes[part] + 1, sizeof **s->stamps)))
      return qv_error_nomem(err, "CsrExpandExec");
    if (s->stamps[part][pos] != s->epoch) {
      s->stamps[part][pos] = s->epoch;
      s->cur_count++;
    }
    return QV_OK;
  }
  if (s->count_mode && s->n_next) {
    const frame *f = &s->stack[s->depth - 1];
    int64_t from = s->stack[0].node, c = 0;
    /* rel's ends as this hop walked it */
    bool out = s->hops[f->h].dir == QVG_OUT;
    int64_t src = out ? from : node, dst = out ? node : from;
    int32_t rtype = s->hops[f->h].type;
    if (s->next_op) return next_count(s, node, rel, rtype, src, dst, err);
    for (int32_t h = 0; h < s->n_next; h++) {
      c += qvg_store_adj(s->st, s->next_hops[h].type, s->next_hops[h].dir, node).n;
      if (s->next_unique && s->next_hops[h].type == rtype && (s->next_hops[h].dir == QVG_OUT ? src : dst) == node) c--;
    }
    s->cur_count += c;
    return QV_OK;
  }
  if (s->count_mode) {
    s->cur_count++;
    return QV_OK;
  }
  int64_t k = s->o_n++;
  s->o_row[k] = (uint32_t)s->row;
  s->o_node[k] = null_row ? -1 : node;
  if (!s->sp.varlen) {
    s->o_rel[k] = null_row ? -1 : rel;
    return QV_OK;
  }
  if (null_row) return qv_builder_append_null(&s->o_paths) == QV_OK ? QV_OK : qv_error_nomem(err, "CsrExpandExec");
  int32_t n = s->depth - 1;
  for (int32_t i = 0; i < n; i++) s->path_buf[i] = qvg_rel_val(s->stack[i + 1].rel);
  qvg_val v = {QVG_V_LIST, n, {0}};
  v.u.l = s->path_buf;
  return qvg_val_append(&s->o_paths, QVG_COL_VALUE, &v, err);
}

static qv_status nullable_int64(const int64_t *vals, int64_t n, qv_array **out, qv_error *err) {
  qv_bytes *v = qv_bytes_alloc(n * 8), *valid = NULL;
  if (!v) return qv_error_nomem(err, "CsrExpandExec");
  int64_t *d = (int64_t *)qv_bytes_mutable(v);
  for (int64_t i = 0; i < n; i++) {
    d[i] = vals[i] < 0 ? 0 : vals[i];
    if (vals[i] < 0 && !valid) {
      if (!(valid = qv_bytes_alloc(qv_bitmap_bytes(n)))) {
        qv_bytes_release(v);
        return qv_error_nomem(err, "CsrExpandExec");
      }
      memset(qv_bytes_mutable(valid), 0xff, (size_t)qv_bitmap_bytes(n));
    }
    if (vals[i] < 0) qv_bit_clear(qv_bytes_mutable(valid), i);
  }
  qv_datatype t = qv_datatype_simple(QV_TYPE_INT64);
  return qv_array_from_buffers(&t, n, valid, v, NULL, out, err);
}

static qv_status flush(qv_exec_op *op, qv_batch **out, qv_error *err) {
  expand_state *s = op->state;
  int64_t n = s->o_n;
  int32_t nc = op->schema.n_fields;
  qv_array **cols = qv_calloc((size_t)nc, sizeof *cols);
  if (!cols) return qv_error_nomem(err, "CsrExpandExec");
  qv_status rc = QV_OK;
  for (int32_t c = 0; c < s->n_in && rc == QV_OK; c++)
    rc = qv_array_take(s->in->columns[c], s->o_row, n, &cols[c], err);
  if (rc == QV_OK && s->count_mode) {
    rc = nullable_int64(s->o_count, n, &cols[s->n_in], err);
  } else if (rc == QV_OK) {
    if (s->sp.varlen) {
      rc = qv_builder_finish(&s->o_paths, &cols[s->rel_col], err);
      qv_status r2 = qv_builder_init(&s->o_paths, &walk_schema(op)->fields[s->rel_col].type, err);
      if (rc == QV_OK) rc = r2;
    } else {
      rc = nullable_int64(s->o_rel, n, &cols[s->rel_col], err);
    }
  }
  if (rc == QV_OK && !s->count_mode && s->node_col >= 0) rc = nullable_int64(s->o_node, n, &cols[s->node_col], err);
  if (rc == QV_OK) rc = qv_batch_make(&op->schema, cols, n, out, err);
  else
    for (int32_t c = 0; c < nc; c++) qv_array_release(cols[c]);
  qv_free(cols);
  s->o_n = 0;
  return rc;
}

/* ---- the walk ---- */

static qvg_adj adj_of(const expand_state *s, int64_t node, int32_t h) {
  qvg_adj none = {NULL, NULL, 0, 0, 0};
  if (h >= s->n_hops) return none;
  return qvg_store_adj(s->st, s->hops[h].type, s->hops[h].dir, node);
}

static qv_status push(expand_state *s, int64_t node, int64_t rel, qv_error *err) {
  if (s->depth == s->cap_stack) {
    int32_t nc = s->cap_stack ? s->cap_stack * 2 : 16;
    frame *nf = qv_realloc(s->stack, (size_t)nc * sizeof *nf);
    qvg_val *np = qv_realloc(s->path_buf, (size_t)nc * sizeof *np);
    if (nf) s->stack = nf;
    if (np) s->path_buf = np;
    if (!nf || !np) return qv_error_nomem(err, "CsrExpandExec");
    s->cap_stack = nc;
  }
  frame *f = &s->stack[s->depth++];
  f->node = node;
  f->rel = rel;
  f->h = 0;
  f->i = 0;
  /* a frame at the last depth is popped before it is walked */
  int64_t max = s->sp.varlen ? s->sp.max_hops : 1;
  qvg_adj none = {NULL, NULL, 0, 0, 0};
  f->adj = s->depth - 1 >= max ? none : adj_of(s, node, 0);
  return QV_OK;
}

/* The next usable relationship out of the top frame, or false when it has
 * none left.  Advances the frame past it. */
static qv_status next_edge(expand_state *s, int64_t *rel, int64_t *nbr, bool *found, qv_error *err) {
  frame *f = &s->stack[s->depth - 1];
  *found = false;
  for (;;) {
    while (f->i >= f->adj.n) {
      if (++f->h >= s->n_hops) return QV_OK;
      f->i = 0;
      f->adj = adj_of(s, f->node, f->h);
    }
    int64_t i = f->i++;
    int64_t r = f->adj.rel_base + f->adj.rels[i], v = f->adj.nbr_base + f->adj.nbrs[i];
    s->edges++;
    /* an undirected hop meets a self-loop in both spans: keep the outgoing */
    if (s->sp.dir == QVG_DIR_BOTH && s->hops[f->h].dir == QVG_IN && v == f->node) continue;
    if (s->n_forbid && forbidden(s, r)) continue;
    if (s->sp.varlen && on_path(s, r)) continue;
    bool pass;
    QV_RETURN_NOT_OK(edge_ok(s, r, &pass, err));
    if (!pass) continue;
    *rel = r;
    *nbr = v;
    *found = true;
    return QV_OK;
  }
}

/* The memo part of a filter fully answered by its lowered form, or NULL
 * (also for no filter: *none then says so). */
static const uint8_t *lowered_part(const memo *m, const qvg_cx *f, int64_t part, bool *none) {
  *none = !f;
  if (!f || !m->lowered || part < 0 || part >= m->n_parts || m->lowered[part] != LOWER_DONE) return NULL;
  return m->parts[part];
}

/* A node's degree through the hop's filters in one tight loop over its
 * spans, when every filter the spans meet is answered by its lowered
 * memo (and the far ends need no label check): *deg = degree + 1.  False
 * when some part is not lowered yet: the walk then counts. */
static bool lowered_degree(expand_state *n, int64_t node, int64_t *deg) {
  if (n->n_forbid || n->n_ne || n->sp.varlen || n->sp.into_col >= 0) return false;
  int64_t c = 0;
  for (int32_t h = 0; h < n->n_hops; h++) {
    qvg_adj a = adj_of(n, node, h);
    if (a.n == 0) continue;
    bool no_e, no_t;
    const uint8_t *em = lowered_part(&n->ememo, n->sp.edge_filter, a.rel_base >> QVG_ID_SHIFT, &no_e);
    const uint8_t *tm = lowered_part(&n->tmemo, n->sp.target_filter, a.nbr_base >> QVG_ID_SHIFT, &no_t);
    if ((!em && !no_e) || (!tm && !no_t) || !n->st->g) return false;
    int32_t want = n->sp.to_label;
    if (want >= 0 && (a.nbr_base >> QVG_ID_SHIFT) != want) continue; /* the far ends all have one label */
    bool skip_loops = n->sp.dir == QVG_DIR_BOTH && n->hops[h].dir == QVG_IN;
    int64_t self = node - a.nbr_base;
    n->edges += a.n;
    for (int64_t i = 0; i < a.n; i++) {
      bool pass = (no_e || em[a.rels[i]] == MEMO_PASS) && (no_t || tm[a.nbrs[i]] == MEMO_PASS);
      c += pass && !(skip_loops && (int64_t)a.nbrs[i] == self);
    }
  }
  *deg = c + 1;
  return true;
}

/* A chained count over a filtered next hop (qvg_expand_count_chain): the
 * rows the next hop makes from node, less rel (of type ty, from src to
 * dst) when that hop may not reuse it.  The next hop's own walk counts node's degree through its filters
 * once per node; rel is then checked alone (it is in node's spans only when
 * it leaves or enters node the way the next hop walks). */
static qv_status next_count(expand_state *s, int64_t node, int64_t rel, int32_t ty, int64_t src, int64_t dst,
                            qv_error *err) {
  expand_state *n = s->next_op->state;
  int64_t part = node >> QVG_ID_SHIFT, pos = node & QVG_ID_MASK;
  memo *m = &s->fdeg_sizes;
  if (node < 0 || part >= m->n_parts || pos >= m->sizes[part])
    return qv_error_set(err, QV_ERR_INVALID, "CsrExpandExec: node id %lld out of range", (long long)node);
  if (!s->fdeg[part] && !(s->fdeg[part] = qv_calloc((size_t)m->sizes[part] + 1, sizeof **s->fdeg)))
    return qv_error_nomem(err, "CsrExpandExec");
  int64_t *deg = &s->fdeg[part][pos];
  if (*deg == 0 && !lowered_degree(n, node, deg)) {
    int64_t c = 0, r, v;
    bool found, pass;
    n->depth = 0;
    QV_RETURN_NOT_OK(push(n, node, -1, err));
    for (;;) {
      QV_RETURN_NOT_OK(next_edge(n, &r, &v, &found, err));
      if (!found) break;
      QV_RETURN_NOT_OK(target_ok(s->next_op, v, r, &pass, err));
      c += pass;
    }
    n->depth = 0;
    *deg = c + 1;
  }
  int64_t c = *deg - 1;
  if (n->sp.n_unique) {
    for (int32_t h = 0; h < n->n_hops; h++) {
      bool out = n->hops[h].dir == QVG_OUT;
      if (n->hops[h].type != ty || (out ? src : dst) != node) continue;
      /* an undirected hop walks a self-loop once, in its outgoing span */
      if (n->sp.dir == QVG_DIR_BOTH && !out && src == dst) continue;
      bool pass;
      QV_RETURN_NOT_OK(edge_ok(n, rel, &pass, err));
      if (pass) QV_RETURN_NOT_OK(target_ok(s->next_op, out ? dst : src, rel, &pass, err));
      c -= pass;
    }
  }
  s->cur_count += c;
  return QV_OK;
}

/* Count mode without filters: the spans' lengths, less the relationships
 * the row may not reuse and an undirected hop's second sight of a
 * self-loop.  The row is then done (empty stack). */
static qv_status fast_count(expand_state *s, int64_t from) {
  int64_t c = 0;
  for (int32_t h = 0; h < s->n_hops; h++) {
    qvg_adj a = adj_of(s, from, h);
    c += a.n;
    if (s->sp.dir == QVG_DIR_BOTH && s->hops[h].dir == QVG_IN)
      for (int64_t i = 0; i < a.n; i++) c -= a.nbr_base + a.nbrs[i] == from;
  }
  for (int32_t f = 0; f < s->n_forbid; f++) {
    int64_t r = s->forbid[f];
    int32_t ty = qvg_store_rel_type(s->st, r);
    int64_t src = qvg_store_rel_src(s->st, r), dst = qvg_store_rel_dst(s->st, r);
    for (int32_t h = 0; h < s->n_hops; h++) {
      if (s->hops[h].type != ty) continue;
      int64_t end = s->hops[h].dir == QVG_OUT ? src : dst;
      /* an undirected hop counted a self-loop once, in its outgoing span */
      bool loop_seen_out = s->sp.dir == QVG_DIR_BOTH && s->hops[h].dir == QVG_IN && src == dst;
      if (end == from && !loop_seen_out) c--;
    }
  }
  s->edges += c;
  s->cur_count = c;
  s->depth = 0;
  return QV_OK;
}

/* A chained count without filters: the next hop's span lengths at every
 * neighbour, in one loop (fast_count one level down). */
static qv_status chain_count(expand_state *s, int64_t from) {
  int64_t c = 0;
  for (int32_t h = 0; h < s->n_hops; h++) {
    qvg_adj a = adj_of(s, from, h);
    bool out = s->hops[h].dir == QVG_OUT;
    int32_t rtype = s->hops[h].type;
    s->edges += a.n;
    for (int64_t i = 0; i < a.n; i++) {
      int64_t node = a.nbr_base + a.nbrs[i];
      if (s->sp.dir == QVG_DIR_BOTH && !out && node == from) continue; /* a self-loop seen twice */
      int64_t src = out ? from : node, dst = out ? node : from;
      for (int32_t k = 0; k < s->n_next; k++) {
        c += s->next_deg_ok ? qvg_degree_of(&s->next_deg[k], node)
                            : qvg_store_adj(s->st, s->next_hops[k].type, s->next_hops[k].dir, node).n;
        if (s->next_unique && s->next_hops[k].type == rtype && (s->next_hops[k].dir == QVG_OUT ? src : dst) == node)
          c--;
      }
    }
  }
  s->cur_count = c;
  s->depth = 0;
  return QV_OK;
}

/* Starts the current input row: its start node, into node and the
 * relationships it must not reuse, and a *0.. hop's zero-length path.  A
 * row without a start (null) is left with an empty stack. */
static qv_status row_start(qv_exec_op *op, qv_error *err) {
  expand_state *s = op->state;
  s->row_open = true;
  s->row_matched = false;
  s->depth = 0;
  s->n_forbid = 0;
  qvg_arena_clear(&s->arena);
  const qv_array *fa = s->in->columns[s->sp.from_col];
  if (!qv_array_is_valid(fa, s->row)) return QV_OK;
  int64_t from = ((const int64_t *)qv_array_values(fa))[s->row];
  if (s->sp.into_col >= 0) {
    const qv_array *ia = s->in->columns[s->sp.into_col];
    if (!qv_array_is_valid(ia, s->row)) return QV_OK;
    s->into_node = ((const int64_t *)qv_array_values(ia))[s->row];
  }
  for (int32_t u = 0; u < s->sp.n_unique; u++) {
    int32_t c = s->sp.unique_cols[u];
    const qv_array *a = s->in->columns[c];
    if (!qv_array_is_valid(a, s->row)) continue;
    qvg_val v;
    QV_RETURN_NOT_OK(qvg_val_from_array(a, s->kinds[c], s->row, &s->arena, &v, err));
    int32_t n = v.t == QVG_V_LIST ? v.n : 1;
    if (s->n_forbid + n > s->cap_forbid) {
      int32_t nc = (s->n_forbid + n) * 2;
      int64_t *nf = qv_realloc(s->forbid, (size_t)nc * sizeof *nf);
      if (!nf) return qv_error_nomem(err, "CsrExpandExec");
      s->forbid = nf;
      s->cap_forbid = nc;
    }
    for (int32_t i = 0; i < n; i++) {
      const qvg_val *x = v.t == QVG_V_LIST ? &v.u.l[i] : &v;
      if (x->t == QVG_V_REL) s->forbid[s->n_forbid++] = x->u.i;
    }
  }
  for (int32_t k = 0; k < s->n_ne; k++) {
    const qv_array *a = s->in->columns[s->ne_cols[k]];
    s->ne_vals[k] = qv_array_is_valid(a, s->row) ? ((const int64_t *)qv_array_values(a))[s->row] : -1;
  }
  s->cur_count = 0;
  if (s->distinct_key >= 0) {
    const qv_array *ka = s->in->columns[s->distinct_key];
    int64_t key = qv_array_is_valid(ka, s->row) ? ((const int64_t *)qv_array_values(ka))[s->row] : -1;
    if (key != s->cur_key || s->epoch == 0) {
      s->cur_key = key;
      if (++s->epoch == 0) { /* wrapped: forget every stamp */
        for (int32_t i = 0; i < s->stamp_sizes.n_parts; i++)
          if (s->stamps[i]) memset(s->stamps[i], 0, (size_t)(s->stamp_sizes.sizes[i] + 1) * sizeof **s->stamps);
        s->epoch = 1;
      }
    }
  }
  if (s->fast_count) return fast_count(s, from);
  if (s->chain_fast && s->n_forbid == 0) return chain_count(s, from);
  QV_RETURN_NOT_OK(push(s, from, -1, err));
  if (s->sp.varlen && s->sp.min_hops == 0) {
    bool pass;
    QV_RETURN_NOT_OK(target_ok(op, from, -1, &pass, err));
    if (pass) {
      s->row_matched = true;
      QV_RETURN_NOT_OK(emit(s, -1, from, false, err));
    }
  }
  return QV_OK;
}

/* Walks the current input batch until the chunk is full or the batch is
 * done.  Each turn of the loop emits at most one row, so checking for room
 * at its top is enough. */
static qv_status walk(qv_exec_op *op, qv_error *err) {
  expand_state *s = op->state;
  int64_t max_hops = s->sp.varlen ? s->sp.max_hops : 1;
  while (s->o_n < s->o_cap) {
    /* a deep var-length walk can stay in one call a long time */
    if ((++s->ticks & 0xFFFF) == 0) QV_RETURN_NOT_OK(qvx_check_cancel(op, err));
    if (!s->row_open) {
      if (s->row >= s->in->num_rows) return QV_OK;
      QV_RETURN_NOT_OK(row_start(op, err));
      continue;
    }
    if (s->depth == 0) { /* the row is done */
      if (s->count_mode && s->cur_count > 0) {
        s->o_row[s->o_n] = (uint32_t)s->row;
        s->o_count[s->o_n++] = s->cur_count;
      }
      if (!s->row_matched && s->sp.optional) QV_RETURN_NOT_OK(emit(s, -1, -1, true, err));
      s->row_open = false;
      s->row++;
      continue;
    }
    if (s->depth - 1 >= max_hops) {
      s->depth--;
      continue;
    }
    int64_t rel, nbr;
    bool found, pass;
    QV_RETURN_NOT_OK(next_edge(s, &rel, &nbr, &found, err));
    if (!found) {
      s->depth--;
      continue;
    }
    if (s->sp.varlen) {
      QV_RETURN_NOT_OK(push(s, nbr, rel, err));
      if (s->depth - 1 < s->sp.min_hops) continue;
    }
    QV_RETURN_NOT_OK(target_ok(op, nbr, rel, &pass, err));
    if (!pass) continue;
    s->row_matched = true;
    QV_RETURN_NOT_OK(emit(s, rel, nbr, false, err));
  }
  return QV_OK;
}

/* ---- the operator ---- */

static qv_status expand_open(qv_exec_op *op, qv_error *err) {
  expand_state *s = op->state;
  s->o_cap = op->ctx->batch_size;
  s->o_row = qv_malloc((size_t)s->o_cap * sizeof *s->o_row);
  s->o_rel = qv_malloc((size_t)s->o_cap * sizeof *s->o_rel);
  s->o_node = qv_malloc((size_t)s->o_cap * sizeof *s->o_node);
  if (s->count_mode) s->o_count = qv_malloc((size_t)s->o_cap * sizeof *s->o_count);
  if (!s->o_row || !s->o_rel || !s->o_node || (s->count_mode && !s->o_count))
    return qv_error_nomem(err, "CsrExpandExec");
  QV_RETURN_NOT_OK(qvx_reserve(op, s->o_cap * 20, "the output chunk", err));
  if (s->sp.varlen) QV_RETURN_NOT_OK(qv_builder_init(&s->o_paths, &walk_schema(op)->fields[s->rel_col].type, err));
  if (s->sp.target_filter || s->sp.edge_filter) QV_RETURN_NOT_OK(probe_make(op, err));
  if (s->t_memo_ok) {
    QV_RETURN_NOT_OK(memo_init(s, &s->tmemo, false, err));
    int64_t b = 0;
    for (int32_t i = 0; i < s->tmemo.n_parts; i++) b += s->tmemo.sizes[i];
    QV_RETURN_NOT_OK(qvx_reserve(op, b, "the target filter's memo", err));
  }
  if (s->e_memo_ok) {
    QV_RETURN_NOT_OK(memo_init(s, &s->ememo, true, err));
    int64_t b = 0;
    for (int32_t i = 0; i < s->ememo.n_parts; i++) b += s->ememo.sizes[i];
    QV_RETURN_NOT_OK(qvx_reserve(op, b, "the edge filter's memo", err));
  }
  if (s->next_op) {
    s->next_op->opened = true;
    QV_RETURN_NOT_OK(expand_open(s->next_op, err));
    int64_t b = 0;
    for (int32_t i = 0; i < s->fdeg_sizes.n_parts; i++) b += s->fdeg_sizes.sizes[i] * 8;
    QV_RETURN_NOT_OK(qvx_reserve(op, b, "the next hop's filtered degrees", err));
  }
  return QV_OK;
}

static qv_status expand_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  expand_state *s = op->state;
  for (;;) {
    if (!s->in) {
      QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &s->in, err));
      if (!s->in) return QV_OK;
      s->row = 0;
      s->row_open = false;
      s->probe_row = -1;
    }
    QV_RETURN_NOT_OK(walk(op, err));
    bool batch_done = !s->row_open && s->row >= s->in->num_rows;
    if (s->o_n > 0 && (s->o_n >= s->o_cap || batch_done)) {
      qv_status rc = flush(op, out, err);
      if (batch_done) {
        qv_batch_release(s->in);
        s->in = NULL;
      }
      return rc;
    }
    if (batch_done) {
      qv_batch_release(s->in);
      s->in = NULL;
    }
  }
}

static void expand_close(qv_exec_op *op) {
  expand_state *s = op->state;
  qv_batch_release(s->in);
  qv_batch_release(s->probe);
  s->in = s->probe = NULL;
  s->probe_rel = s->probe_node = NULL;
  qv_free(s->o_row);
  qv_free(s->o_rel);
  qv_free(s->o_node);
  s->o_row = NULL;
  s->o_rel = s->o_node = NULL;
  qv_builder_reset(&s->o_paths);
  memo_free(&s->tmemo);
  memo_free(&s->ememo);
  qvg_arena_free(&s->arena);
  for (int32_t i = 0; s->fdeg && i < s->fdeg_sizes.n_parts; i++) {
    qv_free(s->fdeg[i]);
    s->fdeg[i] = NULL;
  }
}

static void expand_free(qv_exec_op *op) {
  expand_state *s = op->state;
  if (!s) return;
  expand_close(op);
  qv_free(s->types);
  qv_free(s->unique);
  qv_free(s->to_name);
  qv_free(s->count_name);
  qv_free(s->next_hops);
  qv_free(s->next_deg);
  qv_exec_destroy(s->next_op);
  qv_free(s->fdeg);
  memo_free(&s->fdeg_sizes);
  for (int32_t i = 0; s->stamps && i < s->stamp_sizes.n_parts; i++) qv_free(s->stamps[i]);
  qv_free(s->stamps);
  memo_free(&s->stamp_sizes);
  qv_free(s->o_count);
  qv_schema_reset(&s->full);
  qv_free(s->rel_name);
  qv_free(s->kinds);
  qv_free(s->probe_kinds);
  qv_free(s->hops);
  qv_free(s->locals);
  qv_free(s->forbid);
  qv_free(s->stack);
  qv_free(s->path_buf);
  qv_free(s->rest_and);
  qv_free(s->rest_kids);
  qv_free(s);
}

static void explain_filters(const expand_state *s, const qv_schema *sc, qvb_text *t) {
  const char **names = qv_calloc((size_t)sc->n_fields + 1, sizeof *names);
  if (!names) {
    t->oom = true;
    return;
  }
  for (int32_t c = 0; c < sc->n_fields; c++) names[c] = sc->fields[c].name;
  if (s->sp.target_filter) {
    qvb_text_s(t, ", filter=");
    qvg_cx_text(s->sp.target_filter, names, t);
  }
  if (s->sp.edge_filter) {
    qvb_text_s(t, ", edge_filter=");
    qvg_cx_text(s->sp.edge_filter, names, t);
  }
  qv_free(names);
}

static void expand_explain(const qv_exec_op *op, qvb_text *t) {
  const expand_state *s = op->state;
  const qv_schema *sc = s->count_mode ? &s->full : &op->schema;
  qvb_text_f(t, "key=%s, types=[", sc->fields[s->sp.from_col].name);
  for (int32_t i = 0; i < s->sp.n_types; i++) {
    int32_t ty = s->sp.types[i];
    qvb_text_f(t, "%s%s", i ? "|" : "", ty >= 0 && ty < s->st->n_types ? s->st->types[ty] : "?");
  }
  qvb_text_f(t, "], dir=%s", s->sp.dir == QVG_DIR_RIGHT ? "->" : s->sp.dir == QVG_DIR_LEFT ? "<-" : "-");
  if (s->sp.into_col >= 0) qvb_text_f(t, ", into=%s", sc->fields[s->sp.into_col].name);
  else {
    qvb_text_f(t, ", to=%s", s->sp.to_name);
    if (s->sp.to_label >= 0 && s->sp.to_label < s->st->n_labels) qvb_text_f(t, ":%s", s->st->labels[s->sp.to_label]);
  }
  explain_filters(s, sc, t);
  if (s->n_ne) {
    qvb_text_f(t, ", differs_from=[");
    for (int32_t k = 0; k < s->n_ne; k++) qvb_text_f(t, "%s%s", k ? ", " : "", sc->fields[s->ne_cols[k]].name);
    qvb_text_s(t, "]");
  }
  if (s->sp.n_unique) {
    qvb_text_s(t, ", unique=[");
    for (int32_t i = 0; i < s->sp.n_unique; i++)
      qvb_text_f(t, "%s%s", i ? ", " : "", sc->fields[s->sp.unique_cols[i]].name);
    qvb_text_s(t, "]");
  }
  if (s->sp.optional) qvb_text_s(t, ", optional");
  if (s->sp.varlen) {
    qvb_text_f(t, ", iterative hops=%lld..", (long long)s->sp.min_hops);
    if (s->sp.max_hops < INT32_MAX) qvb_text_f(t, "%lld", (long long)s->sp.max_hops);
  }
  if (s->count_mode && s->distinct_key >= 0)
    qvb_text_f(t, ", count=%s (distinct %s per %s)", s->count_name, s->sp.to_name, sc->fields[s->distinct_key].name);
  else if (s->count_mode && s->n_next) {
    qvb_text_f(t, ", count=%s (then ", s->count_name);
    for (int32_t h = 0; h < s->n_next; h++) {
      int32_t ty = s->next_hops[h].type;
      qvb_text_f(t, "%s%s%s", h ? "|" : "", s->next_hops[h].dir == QVG_OUT ? "->" : "<-",
                 ty >= 0 && ty < s->st->n_types ? s->st->types[ty] : "?");
    }
    if (s->next_op) {
      const expand_state *n = s->next_op->state;
      qvb_text_f(t, " to %s", n->sp.to_name);
      if (n->sp.to_label >= 0 && n->sp.to_label < s->st->n_labels) qvb_text_f(t, ":%s", s->st->labels[n->sp.to_label]);
      qvb_text_s(t, " degrees");
      explain_filters(n, &n->full, t);
      qvb_text_s(t, ")");
    } else {
      qvb_text_s(t, " degrees)");
    }
  } else if (s->count_mode) qvb_text_f(t, ", count=%s%s", s->count_name, s->fast_count ? " (degrees)" : "");
}

static void expand_metrics(const qv_exec_op *op, qvb_text *t) {
  const expand_state *s = op->state, *n = s->next_op ? s->next_op->state : NULL;
  /* a folded next hop's walks count here, where they ran */
  qvb_text_f(t, ", edges=%lld, filter_evals=%lld, memo_hits=%lld", (long long)(s->edges + (n ? n->edges : 0)),
             (long long)(s->evals + (n ? n->evals : 0)), (long long)(s->memo_hits + (n ? n->memo_hits : 0)));
  int64_t lowered = s->lowered_rows + (n ? n->lowered_rows : 0);
  if (lowered) qvb_text_f(t, ", lowered_rows=%lld", (long long)lowered);
}

static const qvx_op_vt expand_vt = {"CsrExpandExec", expand_open,    expand_next,   expand_close,
                                    expand_free,     expand_explain, expand_metrics};

/* The input NODE column x of a conjunct `new node <> x` (either way
 * round), or -1. */
static int32_t differs_col(const expand_state *s, const qvg_cx *e, const qvg_colkind *in_kinds) {
  if (!e || e->kind != QVG_CX_CMP || e->n_kids != 2 || e->ops[0] != QVG_CMP_NE) return -1;
  const qvg_cx *x = e->kids[0], *y = e->kids[1];
  if (!x || !y || x->kind != QVG_CX_COL || y->kind != QVG_CX_COL) return -1;
  if (y->col == s->node_col) {
    const qvg_cx *t = x;
    x = y;
    y = t;
  }
  if (x->col != s->node_col || y->col < 0 || y->col >= s->n_in || in_kinds[y->col] != QVG_COL_NODE) return -1;
  return y->col;
}

static void flatten_and(const qvg_cx *e, const qvg_cx **out, int32_t *n, int32_t cap) {
  if (e->kind == QVG_CX_AND && e->n_kids == 2 && e->kids[0] && e->kids[1]) {
    flatten_and(e->kids[0], out, n, cap);
    flatten_and(e->kids[1], out, n, cap);
  } else if (*n < cap) {
    out[(*n)++] = e;
  }
}

/* Takes the target filter's `new node <> input node` conjuncts out (up to
 * four) and keeps the others, in their order, as the filter: the same
 * tree when nothing was taken, one conjunct, or an AND chain this
 * operator owns. */
static qv_status take_differs(expand_state *s, const qvg_colkind *in_kinds) {
  const qvg_cx *f = s->sp.target_filter;
  if (!f) return QV_OK;
  enum { CAP = 64 };
  const qvg_cx *conj[CAP], *keep[CAP];
  int32_t n = 0, n_keep = 0;
  flatten_and(f, conj, &n, CAP);
  if (n == CAP) return QV_OK; /* too many to say: leave it whole */
  for (int32_t i = 0; i < n; i++) {
    int32_t c = differs_col(s, conj[i], in_kinds);
    if (c >= 0 && s->n_ne < 4) s->ne_cols[s->n_ne++] = c;
    else keep[n_keep++] = conj[i];
  }
  if (s->n_ne == 0) return QV_OK;
  if (n_keep <= 1) {
    s->sp.target_filter = n_keep ? keep[0] : NULL;
    return QV_OK;
  }
  s->rest_and = qv_calloc((size_t)n_keep - 1, sizeof *s->rest_and);
  s->rest_kids = qv_calloc((size_t)(n_keep - 1) * 2, sizeof *s->rest_kids);
  if (!s->rest_and || !s->rest_kids) return QV_ERR_NOMEM;
  const qvg_cx *acc = keep[0];
  for (int32_t i = 1; i < n_keep; i++) {
    qvg_cx *a = &s->rest_and[i - 1];
    const qvg_cx **k = &s->rest_kids[(i - 1) * 2];
    k[0] = acc;
    k[1] = keep[i];
    a->kind = QVG_CX_AND;
    a->n_kids = 2;
    a->kids = (qvg_cx **)(uintptr_t)k;
    a->line = keep[i]->line;
    a->col0 = keep[i]->col0;
    acc = a;
  }
  s->sp.target_filter = acc;
  return QV_OK;
}

static qv_status bad(qv_exec_op *child, qv_error *err, const char *what) {
  qv_exec_destroy(child);
  return qv_error_set(err, QV_ERR_INVALID, "CsrExpandExec: %s", what);
}

qv_status qvg_op_expand(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_store *st, const qvg_colkind *in_kinds,
                        const qvg_expand_spec *spec, qv_exec_op **out, qv_error *err) {
  *out = NULL;
  int32_t n_in = child->schema.n_fields;
  if (spec->from_col < 0 || spec->from_col >= n_in || in_kinds[spec->from_col] != QVG_COL_NODE)
    return bad(child, err, "the hop must leave a NODE column of the input");
  if (spec->into_col >= n_in || (spec->into_col >= 0 && in_kinds[spec->into_col] != QVG_COL_NODE))
    return bad(child, err, "the bound target must be a NODE column of the input");
  if (!spec->rel_name || (spec->into_col < 0 && !spec->to_name)) return bad(child, err, "the new columns need names");
  if (spec->varlen && (spec->min_hops < 0 || spec->max_hops < spec->min_hops))
    return bad(child, err, "var-length bounds must satisfy 0 <= min <= max");
  if (spec->dir != QVG_DIR_RIGHT && spec->dir != QVG_DIR_LEFT && spec->dir != QVG_DIR_BOTH)
    return bad(child, err, "unknown direction");
  for (int32_t i = 0; i < spec->n_unique; i++)
    if (spec->unique_cols[i] < 0 || spec->unique_cols[i] >= n_in)
      return bad(child, err, "a uniqueness column is out of range");
  expand_state *s = qv_calloc(1, sizeof *s);
  if (!s) {
    qv_exec_destroy(child);
    return qv_error_nomem(err, "CsrExpandExec");
  }
  s->st = st;
  s->sp = *spec;
  s->n_in = n_in;
  s->rel_col = n_in;
  s->node_col = spec->into_col >= 0 ? -1 : n_in + 1;
  s->distinct_key = -1;
  s->cur_key = -1;
  int32_t n_out = n_in + 1 + (s->node_col >= 0);
  int32_t nt = spec->n_types > 0 ? spec->n_types : st->n_types;
  s->types = qv_calloc((size_t)nt + 1, sizeof *s->types);
  s->unique = qv_calloc((size_t)spec->n_unique + 1, sizeof *s->unique);
  s->to_name = spec->to_name ? qv_strdup(spec->to_name) : NULL;
  s->rel_name = qv_strdup(spec->rel_name);
  s->kinds = qv_calloc((size_t)n_out, sizeof *s->kinds);
  s->probe_kinds = qv_calloc((size_t)n_out, sizeof *s->probe_kinds);
  s->hops = qv_calloc((size_t)nt * 2 + 1, sizeof *s->hops);
  qv_exec_op *op = NULL;
  qv_status rc = qvx_op_new(&expand_vt, ctx, &child, 1, s, &op, err);
  if (rc != QV_OK) return rc;
  if (!s->types || !s->unique || (spec->to_name && !s->to_name) || !s->rel_name || !s->kinds || !s->probe_kinds ||
      !s->hops)
    goto nomem;
  for (int32_t i = 0; i < nt; i++) s->types[i] = spec->n_types > 0 ? spec->types[i] : i;
  s->sp.types = s->types;
  s->sp.n_types = nt;
  if (spec->n_unique) memcpy(s->unique, spec->unique_cols, (size_t)spec->n_unique * sizeof *s->unique);
  s->sp.unique_cols = s->unique;
  s->sp.to_name = s->to_name;
  s->sp.rel_name = s->rel_name;
  for (int32_t i = 0; i < nt; i++) {
    int32_t ty = s->types[i];
    if (ty < 0 || ty >= st->n_types) continue; /* a type the store lacks matches nothing */
    if (spec->dir != QVG_DIR_LEFT) s->hops[s->n_hops++] = (hop_src){ty, QVG_OUT};
    if (spec->dir != QVG_DIR_RIGHT) s->hops[s->n_hops++] = (hop_src){ty, QVG_IN};
  }
  memcpy(s->kinds, in_kinds, (size_t)n_in * sizeof *s->kinds);
  s->kinds[s->rel_col] = spec->varlen ? QVG_COL_VALUE : QVG_COL_REL;
  if (s->node_col >= 0) s->kinds[s->node_col] = QVG_COL_NODE;
  memcpy(s->probe_kinds, s->kinds, (size_t)n_out * sizeof *s->kinds);
  s->probe_kinds[s->rel_col] = QVG_COL_REL;
  if (qv_schema_copy(&op->children[0]->schema, &op->schema) != QV_OK) goto nomem;
  qv_field rf = {s->rel_name, qv_datatype_simple(spec->varlen ? QV_TYPE_BINARY : QV_TYPE_INT64), true};
  if (qv_schema_add(&op->schema, &rf, err) != QV_OK) goto nomem;
  if (s->node_col >= 0) {
    qv_field nf = {s->to_name, qv_datatype_simple(QV_TYPE_INT64), true};
    if (qv_schema_add(&op->schema, &nf, err) != QV_OK) goto nomem;
  }
  /* which filters read what */
  if (s->node_col >= 0 && take_differs(s, in_kinds) != QV_OK) goto nomem;
  const qvg_cx *tf = s->sp.target_filter, *ef = spec->edge_filter;
  if (tf) {
    s->t_memo_ok = s->node_col >= 0 && !reads_other(tf, n_out, s->node_col);
    s->t_reads_list = spec->varlen && qvg_cx_uses_col(tf, s->rel_col);
    s->need_input |= reads_other(tf, n_in, -1);
  }
  if (ef) {
    s->e_memo_ok = !reads_other(ef, n_out, s->rel_col);
    s->need_input |= reads_other(ef, n_in, -1);
  }
  int32_t ms = max_slot(tf), me = max_slot(ef);
  s->n_locals = (ms > me ? ms : me) + 1;
  if (s->n_locals > 0 && !(s->locals = qv_calloc((size_t)s->n_locals, sizeof *s->locals))) goto nomem;
  op->estimate_rows = -1;
  *out = op;
  return QV_OK;
nomem:
  qv_exec_destroy(op);
  return qv_error_nomem(err, "CsrExpandExec");
}

qv_status qvg_expand_count(qv_exec_op *op, const char *name, qv_error *err) {
  if (!op || op->vt != &expand_vt || op->opened)
    return qv_error_set(err, QV_ERR_INVALID, "CsrExpandExec: count mode needs an expansion not yet run");
  expand_state *s = op->state;
  if (s->count_mode || s->sp.optional)
    return qv_error_set(err, QV_ERR_INVALID, "CsrExpandExec: count mode does not take an optional hop");
  if (!(s->count_name = qv_strdup(name))) return qv_error_nomem(err, "CsrExpandExec");
  if (qv_schema_copy(&op->schema, &s->full) != QV_OK) return qv_error_nomem(err, "CsrExpandExec");
  /* the new columns give way to the count */
  qv_schema cut = QV_SCHEMA_INIT;
  qv_status rc = QV_OK;
  for (int32_t c = 0; c < s->n_in && rc == QV_OK; c++) rc = qv_schema_add(&cut, &op->schema.fields[c], err);
  qv_field cf = {s->count_name, qv_datatype_simple(QV_TYPE_INT64), false};
  if (rc == QV_OK) rc = qv_schema_add(&cut, &cf, err);
  if (rc != QV_OK) {
    qv_schema_reset(&cut);
    return rc;
  }
  qv_schema_reset(&op->schema);
  op->schema = cut;
  s->count_mode = true;
  /* no filter and every far end acceptable: the spans' lengths are the counts */
  bool label_ok = s->sp.to_label < 0;
  if (!label_ok && s->st->g) {
    label_ok = true;
    for (int32_t h = 0; h < s->n_hops; h++) {
      const qvg_type *ty = &s->st->g->cat.types[s->hops[h].type];
      label_ok &= (s->hops[h].dir == QVG_OUT ? ty->dst_label : ty->src_label) == s->sp.to_label;
    }
  }
  s->fast_count =
      !s->sp.varlen && !s->sp.target_filter && !s->sp.edge_filter && s->sp.into_col < 0 && s->n_ne == 0 && label_ok;
  return QV_OK;
}

qv_status qvg_expand_count_distinct(qv_exec_op *op, const char *name, int32_t key_col, qv_error *err) {
  if (!op || op->vt != &expand_vt || op->opened)
    return qv_error_set(err, QV_ERR_INVALID, "CsrExpandExec: count mode needs an expansion not yet run");
  expand_state *s = op->state;
  if (key_col < 0 || key_col >= s->n_in || s->kinds[key_col] != QVG_COL_NODE || s->node_col < 0)
    return qv_error_set(err, QV_ERR_INVALID, "CsrExpandExec: a distinct count needs a NODE key and a new node");
  QV_RETURN_NOT_OK(memo_init(s, &s->stamp_sizes, false, err));
  if (!(s->stamps = qv_calloc((size_t)s->stamp_sizes.n_parts + 1, sizeof *s->stamps)))
    return qv_error_nomem(err, "CsrExpandExec");
  QV_RETURN_NOT_OK(qvg_expand_count(op, name, err));
  s->distinct_key = key_col;
  s->fast_count = false;
  return QV_OK;
}

qv_status qvg_expand_count_chain(qv_exec_op *last, qv_exec_op **out, qv_error *err) {
  *out = NULL;
  if (!last || last->vt != &expand_vt || last->opened) return QV_OK;
  expand_state *s2 = last->state;
  qv_exec_op *first = last->children[0];
  if (!s2->count_mode || s2->distinct_key >= 0 || !first || first->vt != &expand_vt || first->opened) return QV_OK;
  /* the spans' lengths serve an unfiltered directed hop; a filtered (or
   * undirected) one walks its spans once per node, so its filters may
   * read nothing but its own relationship and node */
  bool by_lengths = s2->fast_count && s2->sp.dir != QVG_DIR_BOTH;
  bool by_walk = !s2->sp.varlen && s2->sp.into_col < 0 && !s2->need_input && s2->n_ne == 0 && !s2->t_reads_list &&
                 (!s2->sp.target_filter || s2->t_memo_ok) && (!s2->sp.edge_filter || s2->e_memo_ok);
  if (!by_lengths && !by_walk) return QV_OK;
  expand_state *s1 = first->state;
  if (s1->count_mode || s1->sp.varlen || s1->sp.optional || s1->node_col < 0 || s2->sp.from_col != s1->node_col)
    return QV_OK;
  /* the second hop may not reuse the first's relationship, and nothing else */
  if (s2->sp.n_unique > 1 || (s2->sp.n_unique == 1 && s2->sp.unique_cols[0] != s1->rel_col)) return QV_OK;
  if (!(s1->next_hops = qv_calloc((size_t)s2->n_hops + 1, sizeof *s1->next_hops)))
    return qv_error_nomem(err, "CsrExpandExec");
  memcpy(s1->next_hops, s2->hops, (size_t)s2->n_hops * sizeof *s1->next_hops);
  s1->n_next = s2->n_hops;
  s1->next_unique = s2->sp.n_unique == 1;
  if (!by_lengths) {
    QV_RETURN_NOT_OK(memo_init(s1, &s1->fdeg_sizes, false, err));
    if (!(s1->fdeg = qv_calloc((size_t)s1->fdeg_sizes.n_parts + 1, sizeof *s1->fdeg)))
      return qv_error_nomem(err, "CsrExpandExec");
  }
  qv_status rc = qvg_expand_count(first, s2->count_name, err);
  if (rc != QV_OK) return rc;
  s1->chain_fast = s1->fast_count && by_lengths;
  if (by_lengths && (s1->next_deg = qv_calloc((size_t)s1->n_next + 1, sizeof *s1->next_deg))) {
    s1->next_deg_ok = true;
    for (int32_t k = 0; k < s1->n_next; k++)
      s1->next_deg_ok &= qvg_store_degrees(s1->st, s1->next_hops[k].type, s1->next_hops[k].dir, &s1->next_deg[k]);
  }
  s1->fast_count = false;
  /* the second hop's shell leaves the tree; its child is the first, now
   * the root.  A filtered one stays with the first, for its walks. */
  last->children[0] = NULL;
  last->n_children = 0;
  if (by_lengths) qv_exec_destroy(last);
  else s1->next_op = last;
  *out = first;
  return QV_OK;
}
