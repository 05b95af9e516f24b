/* The Cypher planner's subqueries: OPTIONAL MATCH, pattern predicates,
 * EXISTS / COUNT subqueries and pattern comprehensions, each an ApplyExec
 * whose subplan is planned against the outer scope (once at plan time for
 * its columns and explain, then per input batch). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "graph/cypher_plan_int.h"

#define APPLY_ROW "  row"

/* ---- subqueries (ApplyExec) ------------------------------------------------------ */

typedef struct sub_arg {
  qvg_planner *p;
  qvg_scope scope; /* the scope the subquery starts from; op unused */
  const qvg_node *const *paths;
  int32_t n_paths;
  const qvg_node *where, *proj;
  /* Plan-time builds (the dry run, ApplyExec's template) compile into the
   * plan's arena and keep their scope; the builds per input batch compile
   * into arena, cleared by the next (ApplyExec destroys a subplan before it
   * builds the next).  Every build names its hidden columns from
   * hidden_base, so all builds agree on the columns' names. */
  bool dry;
  qvg_scope result; /* the dry run's scope */
  qvg_arena arena;
  int64_t hidden_base;
} sub_arg;

static qv_status sub_build(void *argp, qv_exec_op *input, qv_exec_op **out, qv_error *err) {
  sub_arg *a = argp;
  qvg_planner *p = a->p;
  qvg_arena *saved_arena = p->arena;
  qv_error *saved_err = p->err;
  int32_t saved_bound = p->n_bound;
  int64_t saved_hidden = p->hidden;
  const qvg_node *const *saved_rest = p->rest;
  int32_t saved_n_rest = p->n_rest;
  p->rest = NULL; /* a subquery's later uses are not known here */
  p->hidden = a->hidden_base;
  *out = NULL;
  if (!a->dry) {
    qvg_arena_clear(&a->arena);
    p->arena = &a->arena;
  }
  p->err = err;
  qvg_scope s = a->scope;
  s.op = NULL;
  qvg_colkind rowk = QVG_COL_NODE;
  qv_status st = qvg_adopt(p, &s, input, &rowk, 1);
  if (st == QV_OK) st = qvg_plan_match(p, &s, a->paths, a->n_paths, a->where);
  if (st == QV_OK && a->proj) {
    qvg_cx *c;
    st = qvg_compile_full(p, &s, a->proj, &c);
    if (st == QV_OK) st = qvg_add_eval1(p, &s, c, qvg_hidden_name(p), QVG_OUT_VALUE);
  }
  p->arena = saved_arena;
  p->err = saved_err;
  p->n_bound = saved_bound;
  p->rest = saved_rest;
  p->n_rest = saved_n_rest;
  if (p->hidden < saved_hidden) p->hidden = saved_hidden;
  if (st != QV_OK) {
    qv_exec_destroy(s.op);
    return st;
  }
  if (a->dry) a->result = s;
  *out = s.op;
  return QV_OK;
}

static void sub_free(void *argp) {
  sub_arg *a = argp;
  qvg_arena_free(&a->arena);
  qv_free(a);
}

/* Plans an ApplyExec over the scope's plan.  OPTIONAL: the scope becomes
 * the subplan's (its new variables and columns); other modes add one
 * VALUE column, whose name goes to *out_col. */
qv_status qvg_plan_apply(qvg_planner *p, qvg_scope *s, qvg_apply_mode mode, const qvg_node *const *paths,
                         int32_t n_paths, const qvg_node *where, const qvg_node *proj, const char **out_col) {
  QV_RETURN_NOT_OK(qvg_ensure_op(p, s));
  /* malloc'd: a subplan's own ApplyExecs are planned per batch, in an
   * arena the next batch clears, but released with the plan */
  sub_arg *a = qv_calloc(1, sizeof *a);
  if (!a) return QVG_NOMEM(p);
  a->p = p;
  a->hidden_base = p->hidden;
  a->scope = *s;
  a->scope.op = NULL;
  a->paths = paths;
  a->n_paths = n_paths;
  a->where = where;
  a->proj = proj;
  QV_RETURN_NOT_OK(qvg_plan_on_release(p, sub_free, a));
  /* the dry run over no rows tells the columns the subplan makes */
  qv_schema in = QV_SCHEMA_INIT;
  qv_status st = qv_schema_copy(qv_exec_schema(s->op), &in);
  if (st != QV_OK) return QVG_NOMEM(p);
  qv_field f;
  qv_datatype i64 = qv_datatype_simple(QV_TYPE_INT64);
  st = qv_field_init(&f, APPLY_ROW, &i64, false, p->err);
  if (st == QV_OK) {
    st = qv_schema_add(&in, &f, p->err);
    qv_field_reset(&f);
  }
  qv_exec_op *empty = NULL, *dry = NULL;
  if (st == QV_OK) st = qv_exec_batches(p->ctx, &in, NULL, 0, &empty, p->err);
  qv_schema_reset(&in);
  if (st != QV_OK) return st;
  a->dry = true;
  qvg_scope in_scope = *s;
  s->op = NULL;
  st = sub_build(a, empty, &dry, p->err);
  a->dry = false;
  s->op = in_scope.op;
  qv_exec_destroy(dry);
  if (st != QV_OK) return st;
  const char *name = mode == QVG_APPLY_OPTIONAL ? NULL : qvg_hidden_name(p);
  int32_t value_col = mode == QVG_APPLY_COLLECT ? a->result.n_cols - 1 : -1;
  qv_exec_op *child = s->op, *op;
  s->op = NULL;
  a->dry = true; /* the template ApplyExec builds and keeps for explain */
  st = qvg_op_apply(p->ctx, child, mode, sub_build, a, name, value_col, &op, p->err);
  a->dry = false;
  QV_RETURN_NOT_OK(st);
  if (mode != QVG_APPLY_OPTIONAL) {
    qvg_colkind k = QVG_COL_VALUE;
    *out_col = name;
    return qvg_adopt(p, s, op, &k, 1);
  }
  /* the subplan's columns but "  row" (right after the input's) */
  qvg_colkind k[QVG_MAX_COLS];
  int32_t n = 0;
  for (int32_t i = 0; i < a->result.n_cols && n < QVG_MAX_COLS; i++)
    if (i != in_scope.n_cols) k[n++] = a->result.kinds[i];
  QV_RETURN_NOT_OK(qvg_adopt_all(p, s, op, k, n));
  s->vars = a->result.vars;
  s->n_vars = a->result.n_vars;
  return QV_OK;
}

/* The paths and WHERE of an EXISTS / COUNT body. */
static qv_status sub_body(qvg_planner *p, const qvg_node *e, const qvg_node *const **paths, int32_t *n_paths,
                          const qvg_node **where) {
  const qvg_node *b = e->kids[0];
  if (b->kind == QVG_PATTERN) {
    *paths = (const qvg_node *const *)b->kids;
    *n_paths = b->n_kids;
    *where = e->n_kids > 1 ? e->kids[1] : NULL;
    return QV_OK;
  }
  if (b->kind == QVG_QUERY && b->n_kids >= 1 && b->kids[0]->kind == QVG_MATCH &&
      !(b->kids[0]->flags & QVG_F_OPTIONAL) && (b->n_kids == 1 || (b->n_kids == 2 && b->kids[1]->kind == QVG_RETURN))) {
    *paths = (const qvg_node *const *)b->kids[0]->kids[0]->kids;
    *n_paths = b->kids[0]->kids[0]->n_kids;
    *where = b->kids[0]->kids[1];
    return QV_OK;
  }
  return qvg_plan_fail(p, e, QV_ERR_UNSUPPORTED, "this form of subquery is not supported yet (only MATCH ... WHERE)");
}

/* ---- pattern predicates over the CSR (PathExistsExec) --------------------------- */

/* The NODE column of a bound node element with no labels or properties,
 * or -1. */
static int32_t bound_end(const qvg_scope *s, const qvg_node *el) {
  if (!el->str || el->kids[0] || el->kids[1]) return -1;
  const qvg_pvar *v = qvg_scope_var(s, el->str);
  int32_t c = v && v->col ? qvg_scope_col(s, v->col) : -1;
  return c >= 0 && s->kinds[c] == QVG_COL_NODE ? c : -1;
}

/* Whether the anonymous node element at path->kids[i] asks nothing its
 * neighbouring hops do not already imply: no properties, and no label or
 * the one label an adjacent hop's type gives that end (dataset stores:
 * each type declares the labels of its ends). */
static bool implied_node(const qvg_planner *p, const qvg_node *path, int32_t i) {
  const qvg_node *el = path->kids[i];
  if (el->str || el->kids[1]) return false;
  if (!el->kids[0] || el->kids[0]->n_kids == 0) return true;
  if (!p->st->g || el->kids[0]->n_kids != 1) return false;
  int32_t label = qvg_store_label(p->st, el->kids[0]->kids[0]->str);
  for (int32_t r = i - 1; r <= i + 1; r += 2) {
    if (r < 1 || r >= path->n_kids) continue;
    const qvg_node *rel = path->kids[r];
    int32_t t = qvg_store_type(p->st, rel->kids[0]->kids[0]->str);
    const qvg_type *ty = &p->st->g->cat.types[t];
    /* the node is the rel's right end as written when the rel is left of it */
    bool right = r < i;
    int32_t want_src = rel->op == QVG_DIR_RIGHT ? !right : rel->op == QVG_DIR_LEFT ? right : -1;
    if (want_src == 1 && ty->src_label == label) return true;
    if (want_src == 0 && ty->dst_label == label) return true;
    if (want_src == -1 && ty->src_label == label && ty->dst_label == label) return true;
  }
  return false;
}

/* A pattern predicate that qualifies for PathExistsExec (issue 17's
 * rule): it starts at a bound node, passes through anonymous nodes with
 * only the implied label, uses anonymous relationships of one type each,
 * none var-length and with no properties, and ends at an anonymous node or
 * another bound node; the CSR plan only.  *out_col is the mark's column,
 * or NULL when the pattern does not qualify (ApplyExec answers it). */
static qv_status plan_path_exists(qvg_planner *p, qvg_scope *s, const qvg_node *path, const char **out_col) {
  *out_col = NULL;
  int32_t n = path->n_kids;
  if (!p->use_csr || path->kind != QVG_PATH || path->op != QVG_PATH_PLAIN || path->str || n < 3 || n % 2 == 0 ||
      n / 2 > 8)
    return QV_OK;
  qvg_path_hop hops[8];
  for (int32_t i = 1; i < n; i += 2) {
    const qvg_node *rel = path->kids[i];
    if (rel->str || rel->kids[1] || (rel->flags & QVG_F_VARLEN) || !rel->kids[0] || rel->kids[0]->n_kids != 1)
      return QV_OK;
    int32_t t = qvg_store_type(p->st, rel->kids[0]->kids[0]->str);
    if (t < 0) return QV_OK;
    hops[i / 2] = (qvg_path_hop){t, rel->op};
  }
  QV_RETURN_NOT_OK(qvg_ensure_op(p, s));
  int32_t first = bound_end(s, path->kids[0]), last = bound_end(s, path->kids[n - 1]);
  for (int32_t i = 0; i < n; i += 2)
    if (!((i == 0 && first >= 0) || (i == n - 1 && last >= 0) || implied_node(p, path, i))) return QV_OK;
  if (first < 0 && last < 0) return QV_OK;
  int32_t nh = n / 2;
  if (first < 0) { /* walk from the bound end: the hops reversed, each turned round */
    for (int32_t i = 0; i < nh / 2; i++) {
      qvg_path_hop t = hops[i];
      hops[i] = hops[nh - 1 - i];
      hops[nh - 1 - i] = t;
    }
    for (int32_t i = 0; i < nh; i++)
      if (hops[i].dir != QVG_DIR_BOTH) hops[i].dir = hops[i].dir == QVG_DIR_RIGHT ? QVG_DIR_LEFT : QVG_DIR_RIGHT;
    first = last;
    last = -1;
  }
  const char *name = qvg_hidden_name(p);
  if (!name) return QVG_NOMEM(p);
  qv_exec_op *op = NULL;
  qv_exec_op *child = s->op;
  s->op = NULL;
  QV_RETURN_NOT_OK(qvg_op_path_exists(p->ctx, child, p->st, first, last, hops, nh, name, &op, p->err));
  qvg_colkind k = QVG_COL_VALUE;
  QV_RETURN_NOT_OK(qvg_adopt(p, s, op, &k, 1));
  *out_col = name;
  return QV_OK;
}

/* Plans the subqueries inside e (not those nested in them) as ApplyExecs
 * and binds each to its column. */
static qv_status prepare_subqueries(qvg_planner *p, qvg_scope *s, const qvg_node *e) {
  if (!e) return QV_OK;
  const char *col = NULL;
  switch (e->kind) {
    case QVG_PAT_PRED:
      QV_RETURN_NOT_OK(plan_path_exists(p, s, e->kids[0], &col));
      if (!col)
        QV_RETURN_NOT_OK(qvg_plan_apply(p, s, QVG_APPLY_EXISTS, (const qvg_node *const *)e->kids, 1, NULL, NULL, &col));
      return qvg_bind_expr(p, e, col);
    case QVG_EXISTS:
    case QVG_COUNT_SUB: {
      const qvg_node *const *paths = NULL;
      int32_t n = 0;
      const qvg_node *where = NULL;
      QV_RETURN_NOT_OK(sub_body(p, e, &paths, &n, &where));
      if (e->kind == QVG_EXISTS && n == 1 && !where) QV_RETURN_NOT_OK(plan_path_exists(p, s, paths[0], &col));
      if (!col)
        QV_RETURN_NOT_OK(qvg_plan_apply(p, s, e->kind == QVG_EXISTS ? QVG_APPLY_EXISTS : QVG_APPLY_COUNT, paths, n,
                                        where, NULL, &col));
      return qvg_bind_expr(p, e, col);
    }
    case QVG_PAT_COMP:
      QV_RETURN_NOT_OK(
          qvg_plan_apply(p, s, QVG_APPLY_COLLECT, (const qvg_node *const *)e->kids, 1, e->kids[1], e->kids[2], &col));
      return qvg_bind_expr(p, e, col);
    default: break;
  }
  for (int32_t i = 0; i < e->n_kids; i++) QV_RETURN_NOT_OK(prepare_subqueries(p, s, e->kids[i]));
  return QV_OK;
}

bool qvg_has_subquery(const qvg_node *e) {
  if (!e) return false;
  if (e->kind == QVG_PAT_PRED || e->kind == QVG_EXISTS || e->kind == QVG_COUNT_SUB || e->kind == QVG_PAT_COMP)
    return true;
  for (int32_t i = 0; i < e->n_kids; i++)
    if (qvg_has_subquery(e->kids[i])) return true;
  return false;
}

qv_status qvg_compile_full(qvg_planner *p, qvg_scope *s, const qvg_node *e, qvg_cx **out) {
  QV_RETURN_NOT_OK(prepare_subqueries(p, s, e));
  return qvg_compile(p, s, e, out);
}
