/* The logical MATCH: a MATCH clause as its pattern graph (the paths'
 * node and relationship elements, with their labels, types and property
 * maps in the syntax tree), the WHERE's conjuncts with the variables each
 * reads, and the steps the lowering takes: per path a start (a scan of a
 * node not bound, or a bound node) and then its hops, first to the right
 * of the start, then to its left.  The rewrite rules (cypher_plan_rules.c)
 * fill in the decisions; cypher_plan_match.c lowers the result. */
#include <string.h>

#include "graph/cypher_plan_int.h"

static void split_where(qvg_lmatch *m, const qvg_node *e) {
  if (!e) return;
  if (e->kind == QVG_AND && m->n_conj < QVG_MAX_CONJ - 1) {
    split_where(m, e->kids[0]);
    split_where(m, e->kids[1]);
    return;
  }
  qvg_lconj *c = &m->conj[m->n_conj++];
  memset(c, 0, sizeof *c);
  c->e = e;
  c->step = -1;
  qvg_vars_of(e, c->vars, &c->n_vars, QVG_MAX_CONJ_VARS);
  c->sub = qvg_has_subquery(e);
}

qv_status qvg_lmatch_build(qvg_planner *p, const qvg_scope *s, const qvg_node *const *paths, int32_t n_paths,
                           const qvg_node *where, qvg_lmatch **out) {
  (void)s;
  *out = NULL;
  qvg_lmatch *m = qv_calloc(1, sizeof *m);
  if (!m) return QVG_NOMEM(p);
  split_where(m, where);
  int32_t n_steps = 0;
  for (int32_t i = 0; i < n_paths; i++) n_steps += paths[i]->n_kids / 2 + 1;
  m->paths = qv_calloc((size_t)(n_paths ? n_paths : 1), sizeof *m->paths);
  m->steps = qv_calloc((size_t)(n_steps ? n_steps : 1), sizeof *m->steps);
  if (!m->paths || !m->steps) {
    qvg_lmatch_free(m);
    return QVG_NOMEM(p);
  }
  m->n_paths = n_paths;
  for (int32_t i = 0; i < n_paths; i++) {
    m->paths[i].ast = paths[i];
    m->paths[i].root = -1;
    m->paths[i].size_root = -1;
  }
  *out = m;
  return QV_OK;
}

void qvg_lmatch_free(qvg_lmatch *m) {
  if (!m) return;
  for (int32_t i = 0; i < m->n_steps; i++) qv_expr_destroy(m->steps[i].pushed);
  qv_free(m->paths);
  qv_free(m->steps);
  qv_free(m);
}

const qvg_node *qvg_lmatch_elem(const qvg_lmatch *m, int32_t path, int32_t i) { return m->paths[path].ast->kids[i]; }

bool qvg_lmatch_bound(const qvg_planner *p, const qvg_scope *s, const qvg_lmatch *m, int32_t k, const char *var) {
  (void)p;
  if (qvg_scope_var(s, var)) return true;
  for (int32_t i = 0; i <= k && i < m->n_steps; i++) {
    const qvg_lstep *st = &m->steps[i];
    if ((st->node_var && strcmp(st->node_var, var) == 0) || (st->rel_var && strcmp(st->rel_var, var) == 0)) return true;
    /* a path variable: from the step after its path's last (the lowering
     * names the path once its hops are planned) */
    const qvg_lpath *pa = &m->paths[st->path];
    if (i < k && i == pa->first_step + pa->n_steps - 1 && pa->ast->str && strcmp(pa->ast->str, var) == 0) return true;
  }
  return false;
}
