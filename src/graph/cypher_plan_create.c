/* The Cypher planner's CREATE (memory graphs only): a CreateExec per path
 * of the pattern, after the new nodes the pattern names more than once. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "graph/cypher_plan_int.h"

static bool is_hoisted(const qvg_node *el, const qvg_node *const *hoisted, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    if (hoisted[i] == el) return true;
  return false;
}

/* One CreateExec for a path's elements (node, rel, node, ...); path_name
 * names the path when given. */
static qv_status create_path(qvg_planner *p, qvg_scope *s, const qvg_node *const *elems, int32_t n,
                             const char *path_name, const qvg_node *const *hoisted, int32_t n_hoisted) {
  qvg_create_item *items = qvg_arena_alloc(p->arena, (size_t)n * sizeof *items);
  const char **cols = qvg_arena_alloc(p->arena, (size_t)n * sizeof *cols);
  qvg_colkind k[QVG_MAX_COLS];
  int32_t nk = 0;
  if (!items || !cols) return QVG_NOMEM(p);
  if (n > QVG_MAX_COLS)
    return qvg_plan_fail(p, elems[0], QV_ERR_UNSUPPORTED, "a path of more than %d elements", QVG_MAX_COLS);
  memset(items, 0, (size_t)n * sizeof *items);
  for (int32_t i = 0; i < n; i++) {
    const qvg_node *el = elems[i];
    qvg_create_item *ci = &items[i];
    ci->is_rel = el->kind == QVG_REL;
    ci->bound_col = -1;
    const qvg_pvar *v = el->str ? qvg_scope_var(s, el->str) : NULL;
    if (v) {
      if (ci->is_rel || ((el->kids[0] || el->kids[1]) && !is_hoisted(el, hoisted, n_hoisted)))
        return qvg_plan_fail(p, el, QV_ERR_INVALID, "variable `%s` is already declared", el->str);
      const char *col;
      QV_RETURN_NOT_OK(qvg_node_col(p, s, el->str, &col));
      ci->bound_col = qvg_scope_col(s, col);
      cols[i] = col;
      continue;
    }
    ci->name = el->str ? el->str : qvg_hidden_name(p);
    cols[i] = ci->name;
    const qvg_node *labels = el->kids[0];
    ci->n_labels = labels ? labels->n_kids : 0;
    if (ci->n_labels) {
      ci->labels = qvg_arena_alloc(p->arena, (size_t)ci->n_labels * sizeof *ci->labels);
      if (!ci->labels) return QVG_NOMEM(p);
      for (int32_t j = 0; j < ci->n_labels; j++) ci->labels[j] = labels->kids[j]->str;
    }
    if (el->kids[1]) {
      qvg_cx *c;
      QV_RETURN_NOT_OK(qvg_compile_full(p, s, el->kids[1], &c));
      ci->props = c;
    }
    ci->dir = el->op;
    k[nk++] = ci->is_rel ? QVG_COL_REL : QVG_COL_NODE;
  }
  qv_exec_op *child = s->op, *op;
  s->op = NULL;
  QV_RETURN_NOT_OK(qvg_op_create(p->ctx, child, p->st, s->kinds, items, n, p->max_locals, &op, p->err));
  QV_RETURN_NOT_OK(qvg_adopt(p, s, op, k, nk));
  for (int32_t i = 0; i < n; i++)
    if (items[i].name) QV_RETURN_NOT_OK(qvg_add_var(p, s, items[i].name, items[i].name, -1));
  if (path_name) {
    uint8_t *dirs = qvg_arena_alloc(p->arena, (size_t)(n / 2 + 1));
    if (!dirs) return QVG_NOMEM(p);
    for (int32_t i = 1; i < n; i += 2) dirs[i / 2] = (uint8_t)elems[i]->op;
    QV_RETURN_NOT_OK(qvg_add_var(p, s, path_name, NULL, -1));
    qvg_pvar *v = &s->vars[s->n_vars - 1];
    v->path_cols = cols;
    v->n_path = n;
    v->path_dirs = dirs;
  }
  return QV_OK;
}

qv_status qvg_plan_create(qvg_planner *p, qvg_scope *s, const qvg_node *cl) {
  if (!p->st->mem)
    return qvg_plan_fail(p, cl, QV_ERR_INVALID, "the graph is read-only (it is declared over datasets): CREATE");
  QV_RETURN_NOT_OK(qvg_ensure_op(p, s));
  const qvg_node *pattern = cl->kids[0];
  /* a new node named twice in the pattern ((a)-[:R]->(a)) is created
   * first, on its own, so every mention finds it bound */
  const qvg_node *hoisted[QVG_MAX_COLS];
  int32_t n_hoisted = 0;
  for (int32_t pi = 0; pi < pattern->n_kids; pi++) {
    const qvg_node *path = pattern->kids[pi];
    for (int32_t i = 0; i < path->n_kids; i += 2) {
      const qvg_node *el = path->kids[i];
      if (!el->str || qvg_scope_var(s, el->str) || n_hoisted == QVG_MAX_COLS) continue;
      int32_t uses = 0;
      for (int32_t pj = 0; pj < pattern->n_kids; pj++)
        for (int32_t j = 0; j < pattern->kids[pj]->n_kids; j += 2)
          uses += pattern->kids[pj]->kids[j]->str && strcmp(pattern->kids[pj]->kids[j]->str, el->str) == 0;
      if (uses < 2) continue;
      QV_RETURN_NOT_OK(create_path(p, s, &el, 1, NULL, hoisted, 0));
      hoisted[n_hoisted++] = el;
    }
  }
  for (int32_t pi = 0; pi < pattern->n_kids; pi++) {
    const qvg_node *path = pattern->kids[pi];
    QV_RETURN_NOT_OK(
        create_path(p, s, (const qvg_node *const *)path->kids, path->n_kids, path->str, hoisted, n_hoisted));
  }
  return QV_OK;
}
