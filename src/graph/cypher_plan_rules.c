/* The rewrite rules over a logical MATCH (cypher_plan_int.h), each a
 * function of its own, run in order by qvg_lmatch_plan:
 *
 *   choose_roots       where each path starts: at its first bound node,
 *                      else at the node whose start makes the fewest rows
 *                      over the whole path (estimated: label size x the
 *                      selectivity of the node's own filters, then per hop
 *                      the CSR's fan-out x the new node's filters); the
 *                      steps follow (hops to the right, then to the left).
 *   place_conjuncts    each WHERE conjunct at the earliest step whose
 *                      output binds what it reads: inside the start's scan
 *                      when it reads only that node, inside a hop when it
 *                      reads the new node (with bound variables) or only
 *                      the new relationship, else a filter right after the
 *                      first step that binds its last variable.
 *   push_scan_filters  a start scan whose unique id equals a constant
 *                      becomes a lookup in the node index; else its
 *                      conjuncts (and property map entries) that translate
 *                      exactly into quiver's expression IR go to the
 *                      dataset scanner, which prunes pages by statistics
 *                      and asks scalar indices.
 *   prune_columns      the property keys of each variable that later
 *                      expressions read (the scan then decodes no other
 *                      column; docs/cypher.md).
 */
#include <string.h>

#include "graph/cypher_plan_int.h"

/* ---- choose_roots ---- */

static bool elem_bound(const qvg_planner *p, const qvg_scope *s, const qvg_lmatch *m, const qvg_node *el) {
  return el->str && qvg_lmatch_bound(p, s, m, m->n_steps - 1, el->str);
}

/* The label-size rule (the planner's first): the node whose label has the
 * fewest nodes, a property map dividing by 10. */
static int64_t size_cost(qvg_planner *p, const qvg_node *el) {
  int32_t label = -1;
  if (el->kids[0] && el->kids[0]->n_kids) {
    label = qvg_store_label(p->st, el->kids[0]->kids[0]->str);
    if (label < 0) return 0; /* matches nothing: cheapest */
  }
  int64_t n = qvg_store_node_count(p->st, label);
  if (el->kids[1]) n = n / 10 + 1;
  return n;
}

/* Rows over the path's hops when it starts at element r: the start's
 * rows, then each hop's (the rows before x fan-out x the share of the far
 * ends the new node's pattern and own conjuncts keep), summed. */
static double path_cost(qvg_planner *p, qvg_lmatch *m, int32_t path, int32_t r) {
  const qvg_node *pa = m->paths[path].ast;
  int32_t n = pa->n_kids;
  double rows = qvg_estimate_nodes(p, pa->kids[r]) * qvg_estimate_elem_sel(p, m, path, r), cost = rows;
  for (int pass = 0; pass < 2; pass++) {
    double at = rows;
    int32_t step = pass ? -2 : 2;
    for (int32_t i = r; pass ? i - 2 >= 0 : i + 2 < n; i += step) {
      const qvg_node *rel = pa->kids[i + step / 2], *to = pa->kids[i + step];
      int dir = rel->op;
      if (pass && dir != QVG_DIR_BOTH) dir = dir == QVG_DIR_LEFT ? QVG_DIR_RIGHT : QVG_DIR_LEFT;
      at *= qvg_estimate_fanout(p, rel, dir) * qvg_estimate_label_frac(p, rel, dir, to) *
            qvg_estimate_elem_sel(p, m, path, i + step);
      cost += at;
    }
    if (!pass) rows = at; /* the left hops go on from the right ones' rows */
  }
  return cost;
}

static qv_status add_step(qvg_planner *p, qvg_lmatch *m, qvg_lstep st) {
  (void)p;
  m->steps[m->n_steps++] = st;
  return QV_OK;
}

/* The steps of path `path` started at its root. */
static qv_status make_steps(qvg_planner *p, const qvg_scope *s, qvg_lmatch *m, int32_t path) {
  qvg_lpath *pa = &m->paths[path];
  const qvg_node *ast = pa->ast;
  int32_t n = ast->n_kids, r = pa->root;
  pa->first_step = m->n_steps;
  const qvg_node *root = ast->kids[r];
  qvg_lstep st;
  memset(&st, 0, sizeof st);
  st.path = path;
  st.node = r;
  st.rel = st.from = -1;
  st.rows = st.sel = 1;
  if (elem_bound(p, s, m, root)) {
    st.kind = QVG_STEP_BOUND;
  } else {
    st.kind = QVG_STEP_SCAN;
    st.checks = true;
    st.node_var = root->str;
  }
  QV_RETURN_NOT_OK(add_step(p, m, st));
  for (int pass = 0; pass < 2; pass++) {
    int32_t step = pass ? -2 : 2;
    for (int32_t i = r; pass ? i - 2 >= 0 : i + 2 < n; i += step) {
      const qvg_node *rel = ast->kids[i + step / 2], *to = ast->kids[i + step];
      memset(&st, 0, sizeof st);
      st.kind = QVG_STEP_HOP;
      st.path = path;
      st.from = i;
      st.rel = i + step / 2;
      st.node = i + step;
      st.reverse = pass == 1;
      st.varlen = (rel->flags & QVG_F_VARLEN) != 0;
      st.checks = true;
      st.into = elem_bound(p, s, m, to);
      st.node_var = st.into ? NULL : to->str;
      st.rel_var = rel->str && !elem_bound(p, s, m, rel) ? rel->str : NULL;
      QV_RETURN_NOT_OK(add_step(p, m, st));
    }
  }
  pa->n_steps = m->n_steps - pa->first_step;
  return QV_OK;
}

qv_status qvg_rule_choose_roots(qvg_planner *p, const qvg_scope *s, qvg_lmatch *m) {
  for (int32_t j = 0; j < m->n_paths; j++) {
    qvg_lpath *pa = &m->paths[j];
    const qvg_node *ast = pa->ast;
    int32_t n = ast->n_kids;
    pa->root = -1;
    for (int32_t i = 0; i < n && pa->root < 0; i += 2)
      if (elem_bound(p, s, m, ast->kids[i])) pa->root = i;
    if (pa->root < 0) {
      int64_t best = -1;
      for (int32_t i = 0; i < n; i += 2) {
        int64_t c = size_cost(p, ast->kids[i]);
        if (best < 0 || c < best) best = c, pa->size_root = i;
      }
      pa->root = pa->size_root;
      if (n > 1) {
        pa->costs = qvg_arena_alloc(p->arena, (size_t)n * sizeof *pa->costs);
        if (!pa->costs) return QVG_NOMEM(p);
        for (int32_t i = 0; i < n; i += 2) pa->costs[i] = path_cost(p, m, j, i);
        /* another root only when clearly cheaper (estimates are rough) */
        int32_t pick = pa->size_root;
        for (int32_t i = 0; i < n; i += 2)
          if (pa->costs[i] < pa->costs[pick] * 0.9) pick = i;
        pa->decided = pick != pa->size_root;
        pa->root = pick;
      }
    }
    QV_RETURN_NOT_OK(make_steps(p, s, m, j));
  }
  return QV_OK;
}

/* ---- place_conjuncts ---- */

static bool conj_ready(const qvg_planner *p, const qvg_scope *s, const qvg_lmatch *m, const qvg_lconj *c, int32_t k) {
  for (int32_t i = 0; i < c->n_vars; i++)
    if (!qvg_lmatch_bound(p, s, m, k, c->vars[i])) return false;
  return true;
}

static bool reads(const qvg_lconj *c, const char *var) {
  for (int32_t i = 0; var && i < c->n_vars; i++)
    if (strcmp(c->vars[i], var) == 0) return true;
  return false;
}

static bool only(const qvg_lconj *c, const char *var) {
  return var && !c->sub && c->n_vars == 1 && strcmp(c->vars[0], var) == 0;
}

static void place(qvg_lconj *c, qvg_conj_at at, int32_t k, int32_t *seq) {
  c->at = at;
  c->step = k;
  c->seq = (*seq)++;
}

qv_status qvg_rule_place_conjuncts(qvg_planner *p, const qvg_scope *s, qvg_lmatch *m) {
  int32_t seq = 0;
  for (int32_t k = 0; k < m->n_steps; k++) {
    const qvg_lstep *st = &m->steps[k];
    const qvg_node *node = qvg_lmatch_elem(m, st->path, st->node);
    if (st->kind == QVG_STEP_SCAN) {
      for (int32_t i = 0; i < m->n_conj; i++)
        if (!m->conj[i].at && only(&m->conj[i], node->str)) place(&m->conj[i], QVG_AT_SCAN, k, &seq);
    } else if (st->kind == QVG_STEP_HOP) {
      const qvg_node *rel = qvg_lmatch_elem(m, st->path, st->rel);
      if (!st->into) {
        /* on the new node alone, then joining it with what is bound
         * (a <> c): evaluated per candidate inside the hop */
        for (int32_t i = 0; i < m->n_conj; i++)
          if (!m->conj[i].at && only(&m->conj[i], node->str)) place(&m->conj[i], QVG_AT_TARGET, k, &seq);
        for (int32_t i = 0; i < m->n_conj; i++) {
          qvg_lconj *c = &m->conj[i];
          if (c->at || c->sub || !node->str || !reads(c, node->str) || (st->varlen && reads(c, rel->str)) ||
              !conj_ready(p, s, m, c, k))
            continue;
          place(c, QVG_AT_TARGET, k, &seq);
        }
      }
      if (!st->varlen)
        for (int32_t i = 0; i < m->n_conj; i++)
          if (!m->conj[i].at && only(&m->conj[i], rel->str)) place(&m->conj[i], QVG_AT_EDGE, k, &seq);
    }
    if (!st->checks) continue;
    for (int32_t i = 0; i < m->n_conj; i++)
      if (!m->conj[i].at && conj_ready(p, s, m, &m->conj[i], k)) place(&m->conj[i], QVG_AT_AFTER, k, &seq);
  }
  for (int32_t i = 0; i < m->n_conj; i++)
    if (!m->conj[i].at) place(&m->conj[i], QVG_AT_END, -1, &seq);
  return QV_OK;
}

/* ---- push_scan_filters ---- */

static qv_status and_into(qvg_planner *p, qv_expr **all, qv_expr *x) {
  if (!*all) {
    *all = x;
    return QV_OK;
  }
  qv_expr *a = qv_expr_binary(QV_OP_AND, *all, x);
  *all = a;
  return a ? QV_OK : QVG_NOMEM(p);
}

qv_status qvg_rule_push_scan_filters(qvg_planner *p, const qvg_scope *s, qvg_lmatch *m) {
  (void)s;
  if (!p->st->g || p->st->no_pushdown) return QV_OK;
  for (int32_t k = 0; k < m->n_steps; k++) {
    qvg_lstep *st = &m->steps[k];
    if (st->kind != QVG_STEP_SCAN) continue;
    const qvg_node *el = qvg_lmatch_elem(m, st->path, st->node);
    const qvg_node *labels = el->kids[0];
    /* one label (a node of a dataset store has exactly one) */
    if (!labels || labels->n_kids != 1) continue;
    int32_t label = qvg_store_label(p->st, labels->kids[0]->str);
    if (label < 0) continue;
    qv_status rc = QV_OK;
    const qvg_node *props = el->kids[1];
    /* a unique id equal to a constant: the node index finds the node */
    const char *idcol = p->st->g->cat.labels[label].id_column;
    qvg_val v;
    for (int32_t i = 0; props && props->kind == QVG_MAP && i < props->n_kids && i < 64 && !st->by_id; i++)
      if (strcmp(props->kids[i]->str, idcol) == 0 && qvg_push_const(p, props->kids[i]->kids[0], &v) &&
          v.t == QVG_V_INT) {
        st->by_id = true;
        st->id = v.u.i;
        st->pushed_entries |= UINT64_C(1) << i;
      }
    for (int32_t i = 0; el->str && i < m->n_conj && !st->by_id; i++) {
      qvg_lconj *c = &m->conj[i];
      if (c->at == QVG_AT_SCAN && c->step == k && qvg_push_id_equality(p, c->e, el->str, label, &st->id))
        st->by_id = c->pushed = true;
    }
    if (st->by_id) continue; /* the rest filters one node: a CypherFilterExec */
    for (int32_t i = 0; props && props->kind == QVG_MAP && i < props->n_kids && i < 64; i++) {
      qv_expr *x = qvg_push_translate_entry(p, props->kids[i], label, &rc);
      if (rc != QV_OK) return rc;
      if (!x) continue;
      QV_RETURN_NOT_OK(and_into(p, &st->pushed, x));
      st->pushed_entries |= UINT64_C(1) << i;
    }
    for (int32_t i = 0; el->str && i < m->n_conj; i++) {
      qvg_lconj *c = &m->conj[i];
      if (c->at != QVG_AT_SCAN || c->step != k) continue;
      qv_expr *x = qvg_push_translate(p, c->e, el->str, label, &rc);
      if (rc != QV_OK) return rc;
      if (!x) continue;
      QV_RETURN_NOT_OK(and_into(p, &st->pushed, x));
      c->pushed = true;
    }
  }
  return QV_OK;
}

/* ---- prune_columns ---- */

static struct qvg_lreads *reads_of(qvg_lmatch *m, const char *var) {
  for (int32_t i = 0; i < m->n_reads; i++)
    if (strcmp(m->reads[i].var, var) == 0) return &m->reads[i];
  if (m->n_reads == (int32_t)(sizeof m->reads / sizeof *m->reads)) return NULL;
  struct qvg_lreads *r = &m->reads[m->n_reads++];
  memset(r, 0, sizeof *r);
  r->var = var;
  return r;
}

static void note_key(qvg_lmatch *m, const char *var, const char *key) {
  struct qvg_lreads *r = reads_of(m, var);
  if (!r || r->whole) return;
  for (int32_t i = 0; i < r->n_keys; i++)
    if (strcmp(r->keys[i], key) == 0) return;
  if (r->n_keys == (int32_t)(sizeof r->keys / sizeof *r->keys)) r->whole = true;
  else r->keys[r->n_keys++] = key;
}

/* The keys e reads of the MATCH's variables: `v.key` notes a key, any
 * other use of v (returned, passed to a function, compared whole) makes
 * it whole. */
static void note_reads(qvg_lmatch *m, const qvg_node *e) {
  if (!e) return;
  if (e->kind == QVG_PROP && e->kids[0] && e->kids[0]->kind == QVG_VAR) {
    note_key(m, e->kids[0]->str, e->str);
    return;
  }
  if (e->kind == QVG_VAR) {
    struct qvg_lreads *r = reads_of(m, e->str);
    if (r) r->whole = true;
    return;
  }
  for (int32_t i = 0; i < e->n_kids; i++) note_reads(m, e->kids[i]);
}

qv_status qvg_rule_prune_columns(qvg_planner *p, const qvg_scope *s, qvg_lmatch *m) {
  (void)s;
  m->n_reads = 0;
  /* this MATCH's conjuncts the scanner does not take */
  for (int32_t i = 0; i < m->n_conj; i++)
    if (!m->conj[i].pushed) note_reads(m, m->conj[i].e);
  /* the rest of the query, when the planner knows it (not in a subquery:
   * everything counts as read there) */
  if (!p->rest) {
    for (int32_t k = 0; k < m->n_steps; k++) {
      const qvg_lstep *st = &m->steps[k];
      struct qvg_lreads *r = st->node_var ? reads_of(m, st->node_var) : NULL;
      if (r) r->whole = true;
    }
    return QV_OK;
  }
  for (int32_t i = 0; i < p->n_rest; i++) note_reads(m, p->rest[i]);
  return QV_OK;
}

/* The keys of var later expressions read, or -1 when it is used whole. */
int32_t qvg_lmatch_reads(const qvg_lmatch *m, const char *var, const char *const **keys) {
  for (int32_t i = 0; i < m->n_reads; i++)
    if (strcmp(m->reads[i].var, var) == 0) {
      *keys = m->reads[i].keys;
      return m->reads[i].whole ? -1 : m->reads[i].n_keys;
    }
  *keys = NULL;
  return 0;
}

qv_status qvg_lmatch_plan(qvg_planner *p, const qvg_scope *s, qvg_lmatch *m) {
  QV_RETURN_NOT_OK(qvg_rule_choose_roots(p, s, m));
  QV_RETURN_NOT_OK(qvg_rule_place_conjuncts(p, s, m));
  QV_RETURN_NOT_OK(qvg_rule_push_scan_filters(p, s, m));
  return qvg_rule_prune_columns(p, s, m);
}
