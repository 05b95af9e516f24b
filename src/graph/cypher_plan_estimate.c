/* The planner's cardinality estimates, for the root rule
 * (cypher_plan_rules.c): how many nodes a start keeps and how many
 * relationships a hop adds per row.
 *
 *   start   nodes of the label x the selectivity of the node's own
 *           filters: a unique id (the label's id column) equal to a
 *           constant keeps one node; a conjunct that translates into the
 *           expression IR is estimated by the store from the dataset's
 *           scalar indices or page statistics; the rest count a fixed
 *           selectivity (= 0.1, a range 1/3, IS NULL 0.1, IS NOT NULL 0.9,
 *           STARTS WITH 0.1, anything else 0.5).
 *   hop     relationships / distinct nodes they leave (the CSR's degree
 *           statistics), per type and direction; a var-length hop sums
 *           the powers over its lengths (at most four of them). */
#include <math.h>
#include <string.h>

#include "graph/cypher_plan_int.h"

static int32_t first_label(qvg_planner *p, const qvg_node *el, bool *unknown) {
  *unknown = false;
  if (!el->kids[0] || !el->kids[0]->n_kids) return -1;
  int32_t l = qvg_store_label(p->st, el->kids[0]->kids[0]->str);
  *unknown = l < 0;
  return l;
}

double qvg_estimate_nodes(qvg_planner *p, const qvg_node *el) {
  bool unknown;
  int32_t l = first_label(p, el, &unknown);
  return unknown ? 0 : (double)qvg_store_node_count(p->st, l);
}

/* The fixed selectivity of a conjunct nothing better estimates. */
static double fixed_sel(const qvg_node *e) {
  switch (e->kind) {
    case QVG_COMPARE: return e->n_kids == 2 && e->ops[0] == QVG_CMP_EQ ? 0.1 : e->ops[0] == QVG_CMP_NE ? 0.9 : 1.0 / 3;
    case QVG_IS_NULL: return e->flags & QVG_F_NOT ? 0.9 : 0.1;
    case QVG_BINARY: return e->op == QVG_OP_STARTS_WITH || e->op == QVG_OP_IN ? 0.1 : 0.5;
    default: return 0.5;
  }
}

static bool id_equality(qvg_planner *p, const qvg_node *e, const char *var, int32_t label) {
  int64_t id;
  return qvg_push_id_equality(p, e, var, label, &id);
}

/* One filter's selectivity: x the IR translation (owned; NULL when there
 * is none), e its syntax (NULL for a map entry). */
static double one_sel(qvg_planner *p, int32_t label, qv_expr *x, const qvg_node *e) {
  double dflt = e ? fixed_sel(e) : 0.1;
  double s = x ? qvg_store_selectivity(p->st, label, x, dflt) : dflt;
  qv_expr_destroy(x);
  return s;
}

double qvg_estimate_own_sel(qvg_planner *p, const qvg_lmatch *m, const qvg_node *el) {
  bool unknown;
  int32_t label = first_label(p, el, &unknown);
  if (unknown) return 0;
  double n = (double)qvg_store_node_count(p->st, label), sel = 1, one = n > 0 ? 1 / n : 1;
  qv_status st;
  const qvg_node *props = el->kids[1];
  const char *id = p->st->g && label >= 0 ? p->st->g->cat.labels[label].id_column : NULL;
  for (int32_t i = 0; props && props->kind == QVG_MAP && i < props->n_kids; i++) {
    const qvg_node *en = props->kids[i];
    if (id && strcmp(en->str, id) == 0 && (en->kids[0]->kind == QVG_INT || en->kids[0]->kind == QVG_PARAM)) sel *= one;
    else sel *= one_sel(p, label, qvg_push_translate_entry(p, en, label, &st), NULL);
  }
  for (int32_t i = 0; el->str && i < m->n_conj; i++) {
    const qvg_lconj *c = &m->conj[i];
    if (c->sub || c->n_vars != 1 || strcmp(c->vars[0], el->str) != 0) continue;
    if (id_equality(p, c->e, el->str, label)) sel *= one;
    else sel *= one_sel(p, label, qvg_push_translate(p, c->e, el->str, label, &st), c->e);
  }
  return sel;
}

double qvg_estimate_elem_sel(qvg_planner *p, qvg_lmatch *m, int32_t j, int32_t i) {
  const qvg_node *el = m->paths[j].ast->kids[i];
  for (int32_t k = 0; k < p->n_sel_memo; k++)
    if (p->sel_memo[k].el == el) return p->sel_memo[k].sel;
  double s = qvg_estimate_own_sel(p, m, el);
  if (p->n_sel_memo == p->cap_sel_memo) {
    int32_t cap = p->cap_sel_memo ? 2 * p->cap_sel_memo : 16;
    struct qvg_sel_memo *mm = qv_realloc(p->sel_memo, (size_t)cap * sizeof *mm);
    if (!mm) return s; /* not kept: estimated again next time */
    p->sel_memo = mm;
    p->cap_sel_memo = cap;
  }
  p->sel_memo[p->n_sel_memo++] = (struct qvg_sel_memo){el, s};
  return s;
}

double qvg_estimate_fanout(qvg_planner *p, const qvg_node *rel, int dir) {
  const qvg_node *t = rel->kids[0];
  double f = 0;
  int32_t n = t && t->n_kids ? t->n_kids : p->st->n_types;
  for (int32_t i = 0; i < n; i++) {
    int32_t ty = t && t->n_kids ? qvg_store_type(p->st, t->kids[i]->str) : i;
    if (ty < 0) continue;
    if (dir != QVG_DIR_LEFT) f += qvg_store_fanout(p->st, ty, QVG_OUT);
    if (dir != QVG_DIR_RIGHT) f += qvg_store_fanout(p->st, ty, QVG_IN);
  }
  if (rel->flags & QVG_F_VARLEN) {
    int64_t lo = rel->i0 < 0 ? 1 : rel->i0, hi = rel->i1 < 0 ? lo + 3 : rel->i1;
    if (hi > lo + 3) hi = lo + 3;
    double sum = 0;
    for (int64_t k = lo; k <= hi; k++) sum += pow(f, (double)k);
    f = sum;
  }
  return f;
}

double qvg_estimate_label_frac(qvg_planner *p, const qvg_node *rel, int dir, const qvg_node *to) {
  bool unknown;
  int32_t label = first_label(p, to, &unknown);
  if (unknown) return 0;
  if (label < 0) return 1;
  const qvg_node *t = rel->kids[0];
  if (p->st->g && t && t->n_kids == 1 && !(rel->flags & QVG_F_VARLEN)) {
    int32_t ty = qvg_store_type(p->st, t->kids[0]->str);
    if (ty < 0) return 0;
    const qvg_type *tt = &p->st->g->cat.types[ty];
    int32_t far = dir == QVG_DIR_RIGHT ? tt->dst_label : dir == QVG_DIR_LEFT ? tt->src_label : -1;
    if (far >= 0) return far == label ? 1 : 0;
  }
  double all = (double)qvg_store_node_count(p->st, -1);
  return all > 0 ? (double)qvg_store_node_count(p->st, label) / all : 0;
}
