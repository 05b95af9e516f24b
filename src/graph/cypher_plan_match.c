/* The Cypher planner's MATCH: the lowering of a logical MATCH
 * (cypher_plan_logical.c, after the rules of cypher_plan_rules.c) to
 * operators.  Each path starts at the root the rules chose, a scan of its
 * label (NodeScanExec, with the filter the dataset scanner takes) or a
 * bound node, and walks outwards one hop at a time: CsrExpandExec when the
 * CSR can take the hop, or (use_csr=false) a HashJoinExec against a
 * RelScanExec of the relationship table (one branch per length over a
 * SpoolExec for a var-length hop); both produce the same columns and rows.
 * Each WHERE conjunct runs where the rules placed it: inside the scan,
 * inside a hop (on the new node or relationship), or as a CypherFilterExec
 * after a step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "graph/cypher_plan_int.h"

/* ---- the conjuncts the rules placed ---- */

/* AND of the conjuncts placed at step k as `at`, compiled against s,
 * marked done (those the scanner takes only marked). */
static qv_status take(qvg_planner *p, const qvg_scope *s, qvg_lmatch *m, int32_t k, qvg_conj_at at, qvg_cx **out) {
  for (int32_t seq = 0;; seq++) {
    qvg_lconj *c = NULL;
    for (int32_t i = 0; i < m->n_conj && !c; i++)
      if (m->conj[i].seq == seq && m->conj[i].at) c = &m->conj[i];
    if (!c) return QV_OK;
    if (c->done || c->at != at || c->step != k) continue;
    if (c->pushed) { /* in the scan's filter */
      c->done = true;
      continue;
    }
    qvg_cx *x;
    QV_RETURN_NOT_OK(qvg_compile(p, s, c->e, &x));
    c->done = true;
    if (!(*out = qvg_cx_bin(p, QVG_CX_AND, *out, x))) return QVG_NOMEM(p);
  }
}

static bool in_scope(const qvg_scope *s, const qvg_lconj *c) {
  for (int32_t i = 0; i < c->n_vars; i++)
    if (!qvg_scope_var(s, c->vars[i])) return false;
  return true;
}

/* The conjuncts placed after step k, each a CypherFilterExec (one the
 * scope cannot compile yet waits for the next step: the rules and the
 * lowering agree on what is bound, this only keeps a disagreement from
 * failing the query). */
static qv_status after(qvg_planner *p, qvg_scope *s, qvg_lmatch *m, int32_t k) {
  for (int32_t seq = 0;; seq++) {
    qvg_lconj *c = NULL;
    for (int32_t i = 0; i < m->n_conj && !c; i++)
      if (m->conj[i].seq == seq && m->conj[i].at) c = &m->conj[i];
    if (!c) return QV_OK;
    if (c->done || c->at != QVG_AT_AFTER || c->step != k) continue;
    if (!in_scope(s, c)) {
      c->step = k + 1 < m->n_steps ? k + 1 : -1;
      if (c->step < 0) c->at = QVG_AT_END;
      continue;
    }
    c->done = true;
    qvg_cx *x;
    QV_RETURN_NOT_OK(qvg_compile_full(p, s, c->e, &x));
    QV_RETURN_NOT_OK(qvg_add_filter(p, s, x));
  }
}

/* A pattern element's column: its variable's name, or a hidden one when
 * it has none (or is a relationship bound before: the hop then checks it). */
static const char *elem_name(qvg_planner *p, const qvg_scope *s, const qvg_node *el) {
  if (el->str && !(el->kind == QVG_REL && qvg_scope_var(s, el->str))) return el->str;
  return qvg_hidden_name(p);
}

static qv_status label_index(qvg_planner *p, const qvg_node *labels, int32_t i, int32_t *out) {
  *out = -1;
  if (!labels || labels->n_kids <= i) return QV_OK;
  const char *name = labels->kids[i]->str;
  *out = qvg_store_label(p->st, name);
  if (*out < 0 && p->st->g) {
    char hint[128];
    return qvg_plan_fail(p, labels->kids[i], QV_ERR_INVALID, "unknown label `%s`%s", name,
                         qvg_suggest(name, (const char *const *)p->st->labels, p->st->n_labels, hint, sizeof hint));
  }
  return QV_OK;
}

/* Relationship types of a pattern; *impossible when none of them exists
 * (a memory graph without such relationships yet). */
static qv_status rel_types(qvg_planner *p, const qvg_node *rel, int32_t **out, int32_t *n, bool *impossible) {
  const qvg_node *t = rel->kids[0];
  *out = NULL;
  *n = 0;
  *impossible = false;
  if (!t || !t->n_kids) return QV_OK;
  int32_t *ix = qvg_arena_alloc(p->arena, (size_t)t->n_kids * sizeof *ix);
  if (!ix) return QVG_NOMEM(p);
  for (int32_t i = 0; i < t->n_kids; i++) {
    int32_t k = qvg_store_type(p->st, t->kids[i]->str);
    if (k < 0 && p->st->g) {
      char hint[128];
      return qvg_plan_fail(
          p, t->kids[i], QV_ERR_INVALID, "unknown relationship type `%s`%s", t->kids[i]->str,
          qvg_suggest(t->kids[i]->str, (const char *const *)p->st->types, p->st->n_types, hint, sizeof hint));
    }
    if (k >= 0) ix[(*n)++] = k;
  }
  if (*n == 0) *impossible = true;
  *out = ix;
  return QV_OK;
}

/* A bound node variable held as a VALUE (from UNWIND or a list) gets a
 * NODE column of its own before a hop leaves it. */
qv_status qvg_node_col(qvg_planner *p, qvg_scope *s, const char *var, const char **col) {
  const qvg_pvar *v = qvg_scope_var(s, var);
  int32_t c = qvg_scope_col(s, v->col ? v->col : "");
  if (c >= 0 && s->kinds[c] == QVG_COL_NODE) {
    *col = v->col;
    return QV_OK;
  }
  if (c < 0) return qvg_plan_fail(p, NULL, QV_ERR_INVALID, "variable `%s` is not a node", var);
  const char *name = qvg_hidden_name(p);
  QV_RETURN_NOT_OK(qvg_add_eval1(p, s, qvg_cx_col(p, c), name, QVG_OUT_NODE));
  QV_RETURN_NOT_OK(qvg_add_var(p, s, var, name, v->label));
  *col = name;
  return QV_OK;
}

/* Uniqueness of the relationship column rel against the MATCH's others. */
static qv_status unique_cx(qvg_planner *p, const qvg_scope *s, const qvg_lmatch *m, int32_t rel, qvg_cx **out) {
  for (int32_t i = 0; i < m->n_rels; i++) {
    int32_t c = qvg_scope_col(s, m->rels[i]);
    if (c < 0 || c == rel) continue;
    qvg_cx *t;
    if (s->kinds[c] == QVG_COL_REL) t = qvg_cx_cmp(p, qvg_cmp_ne, qvg_cx_col(p, rel), qvg_cx_col(p, c));
    else {
      qvg_cx *in = qvg_cx_new(p, QVG_CX_BINARY, NULL, 2);
      if (!in) return QVG_NOMEM(p);
      in->op = QVG_OP_IN;
      in->kids[0] = qvg_cx_col(p, rel);
      in->kids[1] = qvg_cx_col(p, c);
      t = qvg_cx_not(p, in);
    }
    if (!t || !(*out = qvg_cx_bin(p, QVG_CX_AND, *out, t))) return QVG_NOMEM(p);
  }
  return QV_OK;
}

typedef struct hop {
  int32_t k; /* its step */
  const qvg_node *rel, *to;
  const char *from_col; /* NODE column the hop leaves */
  const char *rel_name, *to_name;
  int dir; /* as traversed */
  int32_t *types;
  int32_t n_types;
  bool impossible;
  bool varlen;
  int64_t lo, hi;
  bool into; /* the target is bound: to_col */
  const char *to_col;
  int32_t to_label;
  int32_t implied; /* the label every far end has (a dataset store's type), or -1 */
  int shortest;    /* shortestPath / allShortestPaths: QVG_PATH_*, or 0 */
} hop;

/* A scope with the columns a hop's operator will append. */
static qv_status scope_plus(qvg_planner *p, const qvg_scope *s, const char *const *names, const qvg_colkind *kinds,
                            int32_t n, qvg_scope *out) {
  *out = *s;
  const char **nm = qvg_arena_alloc(p->arena, (size_t)(s->n_cols + n) * sizeof *nm);
  qvg_colkind *k = qvg_arena_alloc(p->arena, (size_t)(s->n_cols + n) * sizeof *k);
  if (!nm || !k) return QVG_NOMEM(p);
  if (s->n_cols) {
    memcpy(nm, s->names, (size_t)s->n_cols * sizeof *nm);
    memcpy(k, s->kinds, (size_t)s->n_cols * sizeof *k);
  }
  for (int32_t i = 0; i < n; i++) nm[s->n_cols + i] = names[i], k[s->n_cols + i] = kinds[i];
  out->names = nm;
  out->kinds = k;
  out->n_cols = s->n_cols + n;
  return QV_OK;
}

/* The filters a hop takes along: on the new node (extra labels, its
 * property map, the conjuncts placed on it) and on the relationship (its
 * map, the conjuncts placed on it). */
static qv_status hop_filters(qvg_planner *p, const qvg_scope *t, qvg_lmatch *m, const hop *h, qvg_cx **target,
                             qvg_cx **edge) {
  *target = *edge = NULL;
  if (!h->into) {
    qvg_cx *x = NULL;
    QV_RETURN_NOT_OK(qvg_labels_cx(p, t, h->to_name, h->to->kids[0], 1, &x));
    *target = x;
    QV_RETURN_NOT_OK(qvg_props_cx(p, t, h->to_name, h->to->kids[1], &x));
    if (x && !(*target = qvg_cx_bin(p, QVG_CX_AND, *target, x))) return QVG_NOMEM(p);
    QV_RETURN_NOT_OK(take(p, t, m, h->k, QVG_AT_TARGET, target));
  }
  qvg_cx *x = NULL;
  QV_RETURN_NOT_OK(qvg_props_cx(p, t, h->rel_name, h->rel->kids[1], &x));
  *edge = x;
  return take(p, t, m, h->k, QVG_AT_EDGE, edge);
}

/* A hop over adjacency: CsrExpandExec, or for shortestPath /
 * allShortestPaths a ShortestPathExec (over the CSR, or without it over an
 * adjacency it builds from the relationships).  A shortest path takes the
 * end's conditions as a filter above it (each pair's shortest paths do not
 * depend on which ends are kept); conditions on its relationships would
 * change which paths are shortest, and are refused for now. */
static qv_status hop_adjacency(qvg_planner *p, qvg_scope *s, qvg_lmatch *m, hop *h) {
  const char *names[2] = {h->rel_name, h->to_name};
  qvg_colkind kinds[2] = {h->varlen ? QVG_COL_VALUE : QVG_COL_REL, QVG_COL_NODE};
  qvg_scope t;
  QV_RETURN_NOT_OK(scope_plus(p, s, names, kinds, h->into ? 1 : 2, &t));
  QV_RETURN_NOT_OK(qvg_add_var(p, &t, h->rel_name, h->rel_name, h->n_types == 1 ? h->types[0] : -1));
  if (!h->into) QV_RETURN_NOT_OK(qvg_add_var(p, &t, h->to_name, h->to_name, h->to_label));
  /* the edge filter sees the relationship as one REL, also for var-length */
  qvg_colkind saved = t.kinds[s->n_cols];
  t.kinds[s->n_cols] = QVG_COL_REL;
  qvg_cx *target, *edge;
  QV_RETURN_NOT_OK(hop_filters(p, &t, m, h, &target, &edge));
  t.kinds[s->n_cols] = saved;
  if (h->shortest && edge)
    return qvg_plan_fail(p, h->rel, QV_ERR_UNSUPPORTED,
                         "a shortest path with conditions on its relationships is not supported yet");
  int32_t uniq[QVG_MAX_COLS], n_uniq = 0;
  for (int32_t i = 0; i < m->n_rels; i++) {
    int32_t c = qvg_scope_col(s, m->rels[i]);
    if (c >= 0) uniq[n_uniq++] = c;
  }
  qvg_expand_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.from_col = qvg_scope_col(s, h->from_col);
  sp.types = h->types;
  sp.n_types = h->n_types;
  sp.dir = h->dir;
  sp.varlen = h->varlen;
  sp.min_hops = h->lo;
  sp.max_hops = h->hi;
  sp.into_col = h->into ? qvg_scope_col(s, h->to_col) : -1;
  sp.to_label = h->into ? -1 : h->to_label;
  sp.to_name = h->to_name;
  sp.rel_name = h->rel_name;
  sp.unique_cols = uniq;
  sp.n_unique = n_uniq;
  qv_exec_op *child = s->op, *op;
  s->op = NULL;
  if (h->shortest) {
    QV_RETURN_NOT_OK(
        qvg_op_shortest(p->ctx, child, p->st, &sp, h->shortest == QVG_PATH_ALL_SHORTEST, !p->use_csr, &op, p->err));
  } else {
    sp.target_filter = target;
    sp.edge_filter = edge;
    QV_RETURN_NOT_OK(qvg_op_expand(p->ctx, child, p->st, s->kinds, &sp, &op, p->err));
  }
  QV_RETURN_NOT_OK(qvg_adopt(p, s, op, kinds, h->into ? 1 : 2));
  s->vars = t.vars;
  s->n_vars = t.n_vars;
  if (h->shortest && target) QV_RETURN_NOT_OK(qvg_add_filter(p, s, target));
  return QV_OK;
}

/* One fixed-length hop as a hash join of the scope's plan with the
 * relationship table; the new relationship is rel_name and the far end
 * to_name (or checked against to_col when into). */
static qv_status join_one(qvg_planner *p, qvg_scope *s, const hop *h, const char *from, const char *rel_name,
                          const char *to_name, bool into, const char *to_col) {
  const char *sn = qvg_hidden_name(p), *dn = qvg_hidden_name(p);
  qv_exec_op *right;
  QV_RETURN_NOT_OK(qvg_op_rel_scan(p->ctx, p->st, h->types, h->n_types, rel_name, sn, dn, &right, p->err));
  if (h->dir == QVG_DIR_BOTH) {
    /* both orientations: the table again with its ends swapped, self-loops
     * once */
    qv_exec_op *r2, *kids[2];
    qv_status st = qvg_op_rel_scan(p->ctx, p->st, h->types, h->n_types, rel_name, dn, sn, &r2, p->err);
    if (st != QV_OK) {
      qv_exec_destroy(right);
      return st;
    }
    qvg_scope rs;
    memset(&rs, 0, sizeof rs);
    qvg_colkind rk[3] = {QVG_COL_REL, QVG_COL_NODE, QVG_COL_NODE};
    if ((st = qvg_adopt_all(p, &rs, r2, rk, 3)) != QV_OK ||
        (st = qvg_add_filter(p, &rs, qvg_cx_cmp(p, qvg_cmp_ne, qvg_cx_col(p, 1), qvg_cx_col(p, 2)))) != QV_OK) {
      qv_exec_destroy(rs.op);
      qv_exec_destroy(right);
      return st;
    }
    const char *cols[3] = {rel_name, sn, dn};
    if ((st = qvg_select_cols(p, &rs, cols, cols, 3)) != QV_OK) {
      qv_exec_destroy(right);
      return st;
    }
    kids[0] = right;
    kids[1] = rs.op;
    QV_RETURN_NOT_OK(qv_exec_union(p->ctx, kids, 2, &right, p->err));
  }
  const char *lk[2], *rk2[2];
  int32_t nk = 1;
  lk[0] = from;
  rk2[0] = h->dir == QVG_DIR_LEFT ? dn : sn;
  if (into) {
    lk[1] = to_col;
    rk2[1] = h->dir == QVG_DIR_LEFT ? sn : dn;
    nk = 2;
  }
  qv_exec_op *left = s->op, *j;
  s->op = NULL;
  QV_RETURN_NOT_OK(qv_exec_hash_join(p->ctx, left, right, lk, rk2, nk, QV_JOIN_INNER, &j, p->err));
  qvg_colkind k3[3] = {QVG_COL_REL, QVG_COL_NODE, QVG_COL_NODE};
  int32_t n_in = s->n_cols;
  QV_RETURN_NOT_OK(qvg_adopt(p, s, j, k3, 3));
  /* keep the input, the relationship and (unless into) the far end */
  const char *cols[QVG_MAX_COLS], *names[QVG_MAX_COLS];
  int32_t n = 0;
  for (int32_t i = 0; i < n_in; i++) cols[n] = names[n] = s->names[i], n++;
  cols[n] = names[n] = rel_name, n++;
  if (!into) {
    cols[n] = h->dir == QVG_DIR_LEFT ? sn : dn;
    names[n++] = to_name;
  }
  return qvg_select_cols(p, s, cols, names, n);
}

static qv_status hop_join(qvg_planner *p, qvg_scope *s, qvg_lmatch *m, hop *h) {
  int32_t n_in = s->n_cols;
  if (!h->varlen) {
    QV_RETURN_NOT_OK(join_one(p, s, h, h->from_col, h->rel_name, h->to_name, h->into, h->to_col));
    QV_RETURN_NOT_OK(qvg_add_var(p, s, h->rel_name, h->rel_name, h->n_types == 1 ? h->types[0] : -1));
    if (!h->into) QV_RETURN_NOT_OK(qvg_add_var(p, s, h->to_name, h->to_name, h->to_label));
    qvg_cx *f = NULL, *target, *edge;
    if (!h->into && h->to_label >= 0 && h->to_label != h->implied) {
      int32_t *ix = qvg_arena_alloc(p->arena, sizeof *ix);
      qvg_cx *l = qvg_cx_new(p, QVG_CX_LABELS, NULL, 1);
      if (!ix || !l) return QVG_NOMEM(p);
      *ix = h->to_label;
      l->labels = ix;
      l->n_labels = 1;
      l->kids[0] = qvg_cx_col(p, qvg_scope_col(s, h->to_name));
      f = l;
    }
    QV_RETURN_NOT_OK(hop_filters(p, s, m, h, &target, &edge));
    f = qvg_cx_bin(p, QVG_CX_AND, f, target);
    f = qvg_cx_bin(p, QVG_CX_AND, f, edge);
    QV_RETURN_NOT_OK(unique_cx(p, s, m, qvg_scope_col(s, h->rel_name), &f));
    if (f) QV_RETURN_NOT_OK(qvg_add_filter(p, s, f));
    return QV_OK;
  }
  /* var-length: one branch per length lo..hi over a spool of the input */
  int32_t nb = (int32_t)(h->hi - h->lo + 1);
  if (nb < 1) nb = 1;
  qv_exec_op **readers = qvg_arena_alloc(p->arena, (size_t)nb * sizeof *readers);
  if (!readers) return QVG_NOMEM(p);
  qv_exec_op *child = s->op;
  s->op = NULL;
  QV_RETURN_NOT_OK(qvg_op_spool(p->ctx, child, nb, readers, p->err));
  qv_status st = QV_OK;
  int32_t made = 0;
  for (int32_t b = 0; b < nb && st == QV_OK; b++) {
    int64_t len = h->lo + b;
    qvg_scope bs = *s;
    bs.op = readers[b];
    readers[b] = NULL;
    const char *end = h->from_col;
    const char *rels[64];
    int32_t n_r = 0;
    if (len > 64) len = 64;
    for (int64_t k = 0; k < len && st == QV_OK; k++) {
      bool last = k == len - 1;
      const char *rn = qvg_hidden_name(p);
      const char *tn = last && !h->into ? h->to_name : qvg_hidden_name(p);
      st = join_one(p, &bs, h, end, rn, tn, last && h->into, h->to_col);
      if (st != QV_OK) break;
      int32_t rc = qvg_scope_col(&bs, rn);
      qvg_cx *f = NULL;
      st = qvg_props_cx(p, &bs, rn, h->rel->kids[1], &f);
      for (int32_t q = 0; q < n_r && st == QV_OK; q++)
        f = qvg_cx_bin(p, QVG_CX_AND, f,
                       qvg_cx_cmp(p, qvg_cmp_ne, qvg_cx_col(p, rc), qvg_cx_col(p, qvg_scope_col(&bs, rels[q]))));
      if (st == QV_OK) st = unique_cx(p, &bs, m, rc, &f);
      if (st == QV_OK && f) st = qvg_add_filter(p, &bs, f);
      rels[n_r++] = rn;
      if (!(last && h->into)) end = tn;
    }
    if (st != QV_OK) {
      qv_exec_destroy(bs.op);
      break;
    }
    if (len == 0) {
      if (h->into) {
        st = qvg_add_filter(p, &bs,
                            qvg_cx_cmp(p, qvg_cmp_eq, qvg_cx_col(p, qvg_scope_col(&bs, h->from_col)),
                                       qvg_cx_col(p, qvg_scope_col(&bs, h->to_col))));
      } else {
        st = qvg_add_eval1(p, &bs, qvg_cx_col(p, qvg_scope_col(&bs, h->from_col)), h->to_name, QVG_OUT_NODE);
      }
    }
    /* the relationships as one list */
    qvg_cx *list = st == QV_OK ? qvg_cx_new(p, QVG_CX_LIST, NULL, n_r) : NULL;
    if (st == QV_OK && !list) st = QVG_NOMEM(p);
    for (int32_t q = 0; q < n_r && st == QV_OK; q++) list->kids[q] = qvg_cx_col(p, qvg_scope_col(&bs, rels[q]));
    if (st == QV_OK) st = qvg_add_eval1(p, &bs, list, h->rel_name, QVG_OUT_VALUE);
    const char *cols[QVG_MAX_COLS];
    int32_t n = 0;
    for (int32_t i = 0; i < n_in; i++) cols[n++] = s->names[i];
    cols[n++] = h->rel_name;
    if (!h->into) cols[n++] = h->to_name;
    if (st == QV_OK) st = qvg_select_cols(p, &bs, cols, cols, n);
    if (st != QV_OK) {
      qv_exec_destroy(bs.op);
      break;
    }
    readers[made++] = bs.op;
  }
  if (st != QV_OK) {
    for (int32_t b = 0; b < nb; b++) qv_exec_destroy(readers[b]);
    return st;
  }
  qv_exec_op *u;
  if (made == 1) u = readers[0];
  else QV_RETURN_NOT_OK(qv_exec_union(p->ctx, readers, made, &u, p->err));
  qvg_colkind k2[2] = {QVG_COL_VALUE, QVG_COL_NODE};
  QV_RETURN_NOT_OK(qvg_adopt(p, s, u, k2, h->into ? 1 : 2));
  QV_RETURN_NOT_OK(qvg_add_var(p, s, h->rel_name, h->rel_name, -1));
  if (!h->into) QV_RETURN_NOT_OK(qvg_add_var(p, s, h->to_name, h->to_name, h->to_label));
  qvg_cx *f = NULL, *target, *edge;
  if (!h->into && h->to_label >= 0 && h->to_label != h->implied)
    QV_RETURN_NOT_OK(qvg_labels_cx(p, s, h->to_name, h->to->kids[0], 0, &f));
  QV_RETURN_NOT_OK(hop_filters(p, s, m, h, &target, &edge)); /* edge: applied per hop above */
  f = qvg_cx_bin(p, QVG_CX_AND, f, target);
  if (f) QV_RETURN_NOT_OK(qvg_add_filter(p, s, f));
  return QV_OK;
}

/* The hop over rel from the node column from_col to the node pattern to
 * (shortest: the path's QVG_PATH_* kind when it is a shortest path). */
static qv_status plan_hop(qvg_planner *p, qvg_scope *s, qvg_lmatch *m, int32_t k, const qvg_node *rel,
                          const char *rel_name, const char *from_col, const qvg_node *to, const char *to_name,
                          bool reverse, int shortest) {
  hop h;
  memset(&h, 0, sizeof h);
  h.k = k;
  h.rel = rel;
  h.to = to;
  h.from_col = from_col;
  h.rel_name = rel_name;
  h.to_name = to_name;
  h.dir = rel->op;
  if (reverse && h.dir != QVG_DIR_BOTH) h.dir = h.dir == QVG_DIR_LEFT ? QVG_DIR_RIGHT : QVG_DIR_LEFT;
  /* a relationship variable bound before: the hop makes its own and must
   * find the same relationship (or list of them) */
  const char *bound_rel = NULL;
  const qvg_pvar *rv = rel->str ? qvg_scope_var(s, rel->str) : NULL;
  if (rv) {
    int32_t c = rv->col ? qvg_scope_col(s, rv->col) : -1;
    if (c < 0 || s->kinds[c] == QVG_COL_NODE)
      return qvg_plan_fail(p, rel, QV_ERR_INVALID, "variable `%s` is not a relationship", rel->str);
    bound_rel = rv->col;
  }
  QV_RETURN_NOT_OK(rel_types(p, rel, &h.types, &h.n_types, &h.impossible));
  h.varlen = (rel->flags & QVG_F_VARLEN) != 0;
  h.shortest = shortest;
  if (h.shortest) {
    /* a shortest path is a list of relationships, *1.. unless written */
    h.lo = !h.varlen ? 1 : rel->i0 < 0 ? 1 : rel->i0;
    h.hi = !h.varlen ? 1 : rel->i1 < 0 ? INT32_MAX : rel->i1;
    h.varlen = true;
    if (h.lo > 1)
      return qvg_plan_fail(p, rel, QV_ERR_INVALID, "a shortest path's lower bound must be 0 or 1, not %lld",
                           (long long)h.lo);
  } else if (h.varlen) {
    h.lo = rel->i0 < 0 ? 1 : rel->i0;
    h.hi = rel->i1 < 0 ? (h.lo > QVG_VARLEN_DEFAULT_MAX ? h.lo : QVG_VARLEN_DEFAULT_MAX) : rel->i1;
    if (h.hi < h.lo) h.impossible = true, h.hi = h.lo;
  }
  const qvg_pvar *tv = to->str ? qvg_scope_var(s, to->str) : NULL;
  bool to_has_extra = false;
  if (tv) {
    h.into = true;
    QV_RETURN_NOT_OK(qvg_node_col(p, s, to->str, &h.to_col));
    to_has_extra = to->kids[0] || to->kids[1];
  } else {
    QV_RETURN_NOT_OK(label_index(p, to->kids[0], 0, &h.to_label));
    if (to->kids[0] && h.to_label < 0) h.impossible = true;
  }
  /* over datasets a type's far end has one label: the new node has it
   * (for property checks and typed results; no filter needed) */
  int32_t implied = -1;
  if (!h.into && p->st->g && h.n_types == 1) {
    const qvg_type *ty = &p->st->g->cat.types[h.types[0]];
    if (h.dir == QVG_DIR_RIGHT) implied = ty->dst_label;
    else if (h.dir == QVG_DIR_LEFT) implied = ty->src_label;
    else if (ty->src_label == ty->dst_label) implied = ty->src_label;
  }
  h.implied = implied;
  if (to->kids[0]) implied = -1; /* a label written in the pattern is the variable's already */
  if (h.impossible) h.n_types = 0;
  if (h.shortest || p->use_csr) QV_RETURN_NOT_OK(hop_adjacency(p, s, m, &h));
  else QV_RETURN_NOT_OK(hop_join(p, s, m, &h));
  if (h.impossible) QV_RETURN_NOT_OK(qvg_add_filter(p, s, qvg_cx_lit(p, qvg_bool(false))));
  const char *rel_col = rel_name;
  if (reverse && h.varlen) {
    /* walked right to left: the list in the pattern's order */
    qvg_cx *rev = qvg_cx_new(p, QVG_CX_FN, rel, 1);
    if (!rev) return QVG_NOMEM(p);
    rev->fn = QVG_FN_REVERSE;
    rev->kids[0] = qvg_cx_col(p, qvg_scope_col(s, rel_name));
    rel_col = qvg_hidden_name(p);
    QV_RETURN_NOT_OK(qvg_add_eval1(p, s, rev, rel_col, QVG_OUT_VALUE));
    QV_RETURN_NOT_OK(qvg_add_var(p, s, rel_name, rel_col, -1));
  }
  if (bound_rel)
    QV_RETURN_NOT_OK(qvg_add_filter(p, s,
                                    qvg_cx_cmp(p, qvg_cmp_eq, qvg_cx_col(p, qvg_scope_col(s, rel_col)),
                                               qvg_cx_col(p, qvg_scope_col(s, bound_rel)))));
  for (int32_t i = s->n_vars - 1; implied >= 0 && i >= 0; i--)
    if (strcmp(s->vars[i].name, to_name) == 0) {
      if (s->vars[i].label < 0) s->vars[i].label = implied;
      break;
    }
  if (to_has_extra) {
    qvg_cx *f = NULL, *x = NULL;
    QV_RETURN_NOT_OK(qvg_labels_cx(p, s, h.to_col, to->kids[0], 0, &f));
    QV_RETURN_NOT_OK(qvg_props_cx(p, s, h.to_col, to->kids[1], &x));
    if ((f = qvg_cx_bin(p, QVG_CX_AND, f, x))) QV_RETURN_NOT_OK(qvg_add_filter(p, s, f));
  }
  if (m->n_rels < QVG_MAX_COLS) m->rels[m->n_rels++] = rel_name;
  return after(p, s, m, k);
}

/* Estimated rows as explain prints them: 3 digits, whole numbers from 100. */
static void fmt_rows(char *buf, size_t size, double v) {
  if (v >= 100) snprintf(buf, size, "%.0f", v);
  else snprintf(buf, size, "%.3g", v);
}

/* What explain says of a scan the estimates decided: its rows, and the
 * path's estimated rows against those of the label-size rule's root. */
static qv_status scan_note(qvg_planner *p, qvg_lmatch *m, const qvg_lstep *st, qvg_node_scan_spec *sp) {
  const qvg_lpath *pa = &m->paths[st->path];
  const qvg_node *el = qvg_lmatch_elem(m, st->path, st->node);
  if (!st->pushed && !st->by_id && !pa->decided) return QV_OK;
  sp->est = qvg_estimate_nodes(p, el) * qvg_estimate_elem_sel(p, m, st->path, st->node);
  if (!pa->decided) return QV_OK;
  const qvg_node *other = qvg_lmatch_elem(m, st->path, pa->size_root);
  char buf[256], here[32], there[32];
  fmt_rows(here, sizeof here, pa->costs[st->node]);
  fmt_rows(there, sizeof there, pa->costs[pa->size_root]);
  snprintf(buf, sizeof buf, "root by estimate: path rows %s < %s from %s", here, there,
           other->str ? other->str : "its anonymous node");
  if (!(sp->note = qvg_pstrdup(p, buf, strlen(buf)))) return QVG_NOMEM(p);
  return QV_OK;
}

/* Starts a path at node el (not bound), step k: a scan of its label with
 * its own filters (what the rules pushed into the scan, the rest as a
 * CypherFilterExec right above), crossed with what came before. */
static qv_status plan_start(qvg_planner *p, qvg_scope *s, qvg_lmatch *m, int32_t k, const qvg_node *el,
                            const char *name) {
  const qvg_lstep *step = &m->steps[k];
  int32_t label;
  QV_RETURN_NOT_OK(label_index(p, el->kids[0], 0, &label));
  bool impossible = el->kids[0] && label < 0;
  qvg_scope ns;
  memset(&ns, 0, sizeof ns);
  qv_exec_op *scan;
  qvg_node_scan_spec sp = {
      impossible ? -1 : label,    name,    impossible || step->by_id ? NULL : step->pushed, -1, NULL,
      !impossible && step->by_id, step->id};
  QV_RETURN_NOT_OK(scan_note(p, m, step, &sp));
  QV_RETURN_NOT_OK(qvg_op_node_scan_spec(p->ctx, p->st, &sp, &scan, p->err));
  qvg_colkind nk = QVG_COL_NODE;
  QV_RETURN_NOT_OK(qvg_adopt_all(p, &ns, scan, &nk, 1));
  QV_RETURN_NOT_OK(qvg_add_var(p, &ns, name, name, label));
  qvg_cx *f = impossible ? qvg_cx_lit(p, qvg_bool(false)) : NULL, *x = NULL;
  QV_RETURN_NOT_OK(qvg_labels_cx(p, &ns, name, el->kids[0], 1, &x));
  f = qvg_cx_bin(p, QVG_CX_AND, f, x);
  x = NULL;
  /* a property map that reads other variables ({year: event.year}) waits
   * for the cross join (its constant entries may be in the scan) */
  const char *reads[32];
  int32_t n_reads = 0;
  qvg_vars_of(el->kids[1], reads, &n_reads, 32);
  bool own = n_reads == 0 || (n_reads == 1 && el->str && strcmp(reads[0], el->str) == 0);
  uint64_t skip = impossible ? 0 : step->pushed_entries;
  qv_status st = own ? qvg_props_cx_skip(p, &ns, name, el->kids[1], skip, &x) : QV_OK;
  if (st == QV_OK) {
    f = qvg_cx_bin(p, QVG_CX_AND, f, x);
    st = take(p, &ns, m, k, QVG_AT_SCAN, &f);
  }
  if (st == QV_OK && f) st = qvg_add_filter(p, &ns, f);
  if (st != QV_OK) {
    qv_exec_destroy(ns.op);
    return st;
  }
  if (!s->op) {
    *s = (qvg_scope){ns.op, ns.n_cols, ns.kinds, ns.names, s->n_vars, s->vars};
  } else {
    qv_exec_op *left = s->op, *cross;
    s->op = NULL;
    QV_RETURN_NOT_OK(qv_exec_cross_join(p->ctx, left, ns.op, &cross, p->err));
    QV_RETURN_NOT_OK(qvg_adopt(p, s, cross, &nk, 1));
  }
  QV_RETURN_NOT_OK(qvg_add_var(p, s, name, name, label));
  if (!own) {
    x = NULL;
    QV_RETURN_NOT_OK(qvg_props_cx_skip(p, s, name, el->kids[1], skip, &x));
    if (x) QV_RETURN_NOT_OK(qvg_add_filter(p, s, x));
  }
  return QV_OK;
}

static qv_status plan_path(qvg_planner *p, qvg_scope *s, qvg_lmatch *m, int32_t j) {
  const qvg_lpath *pa = &m->paths[j];
  const qvg_node *path = pa->ast;
  int32_t n = path->n_kids;
  const char **names = qvg_arena_alloc(p->arena, (size_t)n * sizeof *names);
  if (!names) return QVG_NOMEM(p);
  for (int32_t i = 0; i < n; i++)
    if (!(names[i] = elem_name(p, s, path->kids[i]))) return QVG_NOMEM(p);
  if (path->op != QVG_PATH_PLAIN && n != 3)
    return qvg_plan_fail(p, path, QV_ERR_INVALID, "%s needs a pattern of one relationship between two nodes",
                         path->op == QVG_PATH_SHORTEST ? "shortestPath" : "allShortestPaths");
  /* the root the rules chose, then the hops in their order */
  int32_t k = pa->first_step, start = pa->root;
  if (m->steps[k].kind == QVG_STEP_SCAN) {
    QV_RETURN_NOT_OK(plan_start(p, s, m, k, path->kids[start], names[start]));
    QV_RETURN_NOT_OK(after(p, s, m, k));
  } else {
    const qvg_node *el = path->kids[start];
    const char *col;
    QV_RETURN_NOT_OK(qvg_node_col(p, s, el->str, &col));
    if (el->kids[0] || el->kids[1]) {
      qvg_cx *f = NULL, *x = NULL;
      QV_RETURN_NOT_OK(qvg_labels_cx(p, s, col, el->kids[0], 0, &f));
      QV_RETURN_NOT_OK(qvg_props_cx(p, s, col, el->kids[1], &x));
      if ((f = qvg_cx_bin(p, QVG_CX_AND, f, x))) QV_RETURN_NOT_OK(qvg_add_filter(p, s, f));
    }
  }
  /* node columns by element (bound ones may live under another name) */
  const char **cols = qvg_arena_alloc(p->arena, (size_t)n * sizeof *cols);
  if (!cols) return QVG_NOMEM(p);
  for (int32_t i = 0; i < n; i++) cols[i] = names[i];
  for (k = pa->first_step + 1; k < pa->first_step + pa->n_steps; k++) {
    const qvg_lstep *st = &m->steps[k];
    const qvg_node *from_el = path->kids[st->from];
    const char *from;
    QV_RETURN_NOT_OK(qvg_node_col(p, s, from_el->str ? from_el->str : names[st->from], &from));
    QV_RETURN_NOT_OK(plan_hop(p, s, m, k, path->kids[st->rel], names[st->rel], from, path->kids[st->node],
                              names[st->node], st->reverse, path->op));
  }
  for (int32_t i = 0; i < n; i++) {
    const qvg_pvar *v = qvg_scope_var(s, path->kids[i]->str ? path->kids[i]->str : names[i]);
    if (v && v->col) cols[i] = v->col;
  }
  if (path->str) {
    if (qvg_scope_var(s, path->str))
      return qvg_plan_fail(p, path, QV_ERR_INVALID, "variable `%s` is already declared", path->str);
    uint8_t *dirs = qvg_arena_alloc(p->arena, (size_t)(n / 2 + 1));
    if (!dirs) return QVG_NOMEM(p);
    for (int32_t i = 1; i < n; i += 2) dirs[i / 2] = (uint8_t)path->kids[i]->op;
    QV_RETURN_NOT_OK(qvg_add_var(p, s, path->str, NULL, -1));
    qvg_pvar *v = &s->vars[s->n_vars - 1];
    v->path_cols = cols;
    v->n_path = n;
    v->path_dirs = dirs;
  }
  return QV_OK;
}

qv_status qvg_plan_match(qvg_planner *p, qvg_scope *s, const qvg_node *const *paths, int32_t n_paths,
                         const qvg_node *where) {
  qvg_lmatch *m;
  QV_RETURN_NOT_OK(qvg_lmatch_build(p, s, paths, n_paths, where, &m));
  qv_status st = qvg_lmatch_plan(p, s, m);
  for (int32_t j = 0; j < n_paths && st == QV_OK; j++) st = plan_path(p, s, m, j);
  /* what is left reads variables from nowhere in this MATCH: compile
   * errors name them */
  for (int32_t i = 0; i < m->n_conj && st == QV_OK; i++) {
    if (m->conj[i].done) continue;
    m->conj[i].done = true;
    qvg_cx *x;
    if (st == QV_OK) st = qvg_ensure_op(p, s);
    if (st == QV_OK) st = qvg_compile_full(p, s, m->conj[i].e, &x);
    if (st == QV_OK) st = qvg_add_filter(p, s, x);
  }
  qvg_lmatch_free(m);
  return st;
}
