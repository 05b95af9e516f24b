/* The Cypher planner: clauses and patterns into a tree of operators.
 *
 * This file: the planner's lifetime, the scope helpers every clause uses,
 * small expression builders, and the query entry (clauses in order,
 * UNION).  MATCH is cypher_plan_match.c, WITH / RETURN / UNWIND
 * cypher_plan_project.c, subqueries cypher_plan_sub.c, CREATE
 * cypher_plan_create.c.
 *
 * MATCH starts each path at a bound node, or else at the node whose label
 * has the fewest nodes, and walks the path outwards one hop at a time:
 * CsrExpandExec when the CSR can take the hop, or (use_csr=false) a
 * HashJoinExec against a RelScanExec of the relationship table; both
 * produce the same columns and rows.  A WHERE is split into conjuncts and
 * each runs as soon as the variables it reads are bound, inside the
 * expansion when it reads only the new node or only the new relationship.
 * OPTIONAL MATCH, pattern predicates, EXISTS / COUNT subqueries and
 * pattern comprehensions run as ApplyExec subplans.  WITH and RETURN
 * project (CypherProjectExec), aggregate (CypherAggregateExec),
 * deduplicate (HashAggregateExec on the encoded values), order (SortExec
 * or TopKExec on memcomparable keys) and cut (LimitExec). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "graph/cypher_plan_int.h"

/* ---- the planner's lifetime ---- */

qv_status qvg_plan_on_release(qvg_planner *p, void (*fn)(void *), void *arg) {
  qvg_cleanup *c = qv_malloc(sizeof *c);
  if (!c) {
    fn(arg);
    return qv_error_nomem(p->err, "cypher planner");
  }
  c->fn = fn;
  c->arg = arg;
  c->next = p->cleanups;
  p->cleanups = c;
  return QV_OK;
}

void qvg_planner_release(qvg_planner *p) {
  while (p->cleanups) {
    qvg_cleanup *c = p->cleanups;
    p->cleanups = c->next;
    c->fn(c->arg);
    qv_free(c);
  }
  qv_free(p->bound);
  p->bound = NULL;
  p->n_bound = p->cap_bound = 0;
  qv_free(p->sel_memo);
  p->sel_memo = NULL;
  p->n_sel_memo = p->cap_sel_memo = 0;
}

/* ---- scope ---------------------------------------------------------------- */

/* Takes op as the scope's plan: its first s->n_cols columns keep their
 * kinds, the rest get add[0..n_add). */
qv_status qvg_adopt(qvg_planner *p, qvg_scope *s, qv_exec_op *op, const qvg_colkind *add, int32_t n_add) {
  const qv_schema *sc = qv_exec_schema(op);
  int32_t n = sc->n_fields;
  qvg_colkind *k = qvg_arena_alloc(p->arena, (size_t)(n ? n : 1) * sizeof *k);
  const char **names = qvg_arena_alloc(p->arena, (size_t)(n ? n : 1) * sizeof *names);
  if (!k || !names) {
    qv_exec_destroy(op);
    s->op = NULL;
    return QVG_NOMEM(p);
  }
  int32_t keep = s->n_cols < n ? s->n_cols : n;
  if (keep) memcpy(k, s->kinds, (size_t)keep * sizeof *k);
  for (int32_t i = keep; i < n; i++) k[i] = i - keep < n_add ? add[i - keep] : QVG_COL_VALUE;
  for (int32_t i = 0; i < n; i++) {
    names[i] = qvg_pstrdup(p, sc->fields[i].name, strlen(sc->fields[i].name));
    if (!names[i]) {
      qv_exec_destroy(op);
      s->op = NULL;
      return QVG_NOMEM(p);
    }
  }
  s->op = op;
  s->kinds = k;
  s->names = names;
  s->n_cols = n;
  return QV_OK;
}

qv_status qvg_adopt_all(qvg_planner *p, qvg_scope *s, qv_exec_op *op, const qvg_colkind *k, int32_t n) {
  s->n_cols = 0;
  return qvg_adopt(p, s, op, k, n);
}

qv_status qvg_add_var(qvg_planner *p, qvg_scope *s, const char *name, const char *col, int32_t label) {
  qvg_pvar *v = qvg_arena_alloc(p->arena, (size_t)(s->n_vars + 1) * sizeof *v);
  if (!v) return QVG_NOMEM(p);
  if (s->n_vars) memcpy(v, s->vars, (size_t)s->n_vars * sizeof *v);
  memset(&v[s->n_vars], 0, sizeof *v);
  v[s->n_vars].name = name;
  v[s->n_vars].col = col;
  v[s->n_vars].label = label;
  s->vars = v;
  s->n_vars++;
  return QV_OK;
}

bool qvg_is_hidden(const char *name) { return name[0] == '#'; }

qv_status qvg_ensure_op(qvg_planner *p, qvg_scope *s) {
  if (s->op) return QV_OK;
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvg_op_unit(p->ctx, qvg_hidden_name(p), &op, p->err));
  qvg_colkind k = QVG_COL_VALUE;
  return qvg_adopt_all(p, s, op, &k, 1);
}

qv_status qvg_add_filter(qvg_planner *p, qvg_scope *s, const qvg_cx *pred) {
  qv_exec_op *child = s->op, *op;
  s->op = NULL;
  QV_RETURN_NOT_OK(qvg_op_filter(p->ctx, child, p->st, s->kinds, pred, p->max_locals, &op, p->err));
  s->op = op;
  return QV_OK;
}

static qvg_colkind kind_of_mode(qvg_out_mode m) {
  return m == QVG_OUT_NODE ? QVG_COL_NODE : m == QVG_OUT_REL ? QVG_COL_REL : QVG_COL_VALUE;
}

/* Appends columns computed by exprs (names, modes) to the scope's plan. */
qv_status qvg_add_eval(qvg_planner *p, qvg_scope *s, const qvg_cx *const *exprs, const char *const *names,
                       const qvg_out_mode *modes, int32_t n) {
  if (n > QVG_MAX_COLS) return qvg_plan_fail(p, NULL, QV_ERR_UNSUPPORTED, "more than %d columns", QVG_MAX_COLS);
  qv_exec_op *child = s->op, *op;
  s->op = NULL;
  QV_RETURN_NOT_OK(
      qvg_op_eval(p->ctx, child, p->st, s->kinds, exprs, names, modes, n, p->max_locals, true, &op, p->err));
  qvg_colkind k[QVG_MAX_COLS];
  for (int32_t i = 0; i < n; i++) k[i] = kind_of_mode(modes[i]);
  return qvg_adopt(p, s, op, k, n);
}

/* The scope's plan replaced by exactly the columns exprs compute. */
qv_status qvg_eval_only(qvg_planner *p, qvg_scope *s, const qvg_cx *const *exprs, const char *const *names,
                        const qvg_out_mode *modes, int32_t n) {
  if (n > QVG_MAX_COLS) return qvg_plan_fail(p, NULL, QV_ERR_UNSUPPORTED, "more than %d columns", QVG_MAX_COLS);
  qv_exec_op *child = s->op, *op;
  s->op = NULL;
  QV_RETURN_NOT_OK(
      qvg_op_eval(p->ctx, child, p->st, s->kinds, exprs, names, modes, n, p->max_locals, false, &op, p->err));
  qvg_colkind k[QVG_MAX_COLS];
  for (int32_t i = 0; i < n; i++) k[i] = kind_of_mode(modes[i]);
  return qvg_adopt_all(p, s, op, k, n);
}

qv_status qvg_add_eval1(qvg_planner *p, qvg_scope *s, const qvg_cx *e, const char *name, qvg_out_mode m) {
  return qvg_add_eval(p, s, &e, &name, &m, 1);
}

/* The scope's plan projected to the columns cols renamed to names. */
qv_status qvg_select_cols(qvg_planner *p, qvg_scope *s, const char *const *cols, const char *const *names, int32_t n) {
  if (n > QVG_MAX_COLS) return qvg_plan_fail(p, NULL, QV_ERR_UNSUPPORTED, "more than %d columns", QVG_MAX_COLS);
  qv_expr *ex[QVG_MAX_COLS] = {NULL};
  qvg_colkind k[QVG_MAX_COLS];
  qv_status st = QV_OK;
  int32_t made = 0;
  for (; made < n; made++) {
    int32_t c = qvg_scope_col(s, cols[made]);
    if (c < 0) {
      st = qvg_plan_fail(p, NULL, QV_ERR_INVALID, "column %s lost", cols[made]);
      break;
    }
    k[made] = s->kinds[c];
    if (!(ex[made] = qv_expr_column(cols[made]))) {
      st = QVG_NOMEM(p);
      break;
    }
  }
  qv_exec_op *op = NULL;
  if (st == QV_OK) {
    qv_exec_op *child = s->op;
    s->op = NULL;
    st = qv_exec_project(p->ctx, child, (const qv_expr *const *)ex, names, n, &op, p->err);
  }
  for (int32_t i = 0; i < made; i++) qv_expr_destroy(ex[i]);
  if (st != QV_OK) return st;
  return qvg_adopt_all(p, s, op, k, n);
}

/* DISTINCT over every column of the scope's plan (exec's HashAggregateExec
 * on the encoded values, no aggregates). */
qv_status qvg_add_distinct(qvg_planner *p, qvg_scope *s) {
  if (s->n_cols > QVG_MAX_COLS) return qvg_plan_fail(p, NULL, QV_ERR_UNSUPPORTED, "more than %d columns", QVG_MAX_COLS);
  qv_expr *keys[QVG_MAX_COLS] = {NULL};
  qv_status st = QV_OK;
  int32_t made = 0;
  for (; made < s->n_cols && st == QV_OK; made++)
    if (!(keys[made] = qv_expr_column(s->names[made]))) st = QVG_NOMEM(p);
  qv_exec_op *d = NULL;
  if (st == QV_OK) {
    qv_exec_op *child = s->op;
    s->op = NULL;
    st = qv_exec_aggregate(p->ctx, child, (const qv_expr *const *)keys, s->names, s->n_cols, NULL, 0, &d, p->err);
  }
  for (int32_t i = 0; i < made; i++) qv_expr_destroy(keys[i]);
  return st == QV_OK ? qvg_adopt(p, s, d, NULL, 0) : st;
}

/* SKIP sk, LIMIT lim (-1: none) over the scope's plan, when there is one. */
qv_status qvg_add_limit(qvg_planner *p, qvg_scope *s, int64_t sk, int64_t lim) {
  if (sk <= 0 && lim < 0) return QV_OK;
  qv_exec_op *child = s->op, *l;
  s->op = NULL;
  QV_RETURN_NOT_OK(qv_exec_limit(p->ctx, child, sk, lim, &l, p->err));
  return qvg_adopt(p, s, l, NULL, 0);
}

/* ---- small expression builders ------------------------------------------------ */

qvg_cx *qvg_cx_col(qvg_planner *p, int32_t col) {
  qvg_cx *c = qvg_cx_new(p, QVG_CX_COL, NULL, 0);
  if (c) c->col = col;
  return c;
}

qvg_cx *qvg_cx_lit(qvg_planner *p, qvg_val v) {
  qvg_cx *c = qvg_cx_new(p, QVG_CX_LIT, NULL, 0);
  if (c) c->lit = v;
  return c;
}

qvg_cx *qvg_cx_bin(qvg_planner *p, int kind, qvg_cx *a, qvg_cx *b) {
  if (!a) return b;
  if (!b) return a;
  qvg_cx *c = qvg_cx_new(p, kind, NULL, 2);
  if (!c) return NULL;
  c->kids[0] = a;
  c->kids[1] = b;
  return c;
}

qvg_cx *qvg_cx_not(qvg_planner *p, qvg_cx *a) {
  qvg_cx *c = a ? qvg_cx_new(p, QVG_CX_NOT, NULL, 1) : NULL;
  if (c) c->kids[0] = a;
  return c;
}

const uint8_t qvg_cmp_eq[1] = {QVG_CMP_EQ};
const uint8_t qvg_cmp_ne[1] = {QVG_CMP_NE};

qvg_cx *qvg_cx_cmp(qvg_planner *p, const uint8_t *op, qvg_cx *a, qvg_cx *b) {
  if (!a || !b) return NULL;
  qvg_cx *c = qvg_cx_new(p, QVG_CX_CMP, NULL, 2);
  if (!c) return NULL;
  c->kids[0] = a;
  c->kids[1] = b;
  c->ops = op;
  return c;
}

/* {k: v, ...} of a pattern element as "col.k = v AND ...". */
qv_status qvg_props_cx_skip(qvg_planner *p, const qvg_scope *s, const char *col, const qvg_node *props, uint64_t skip,
                            qvg_cx **out) {
  *out = NULL;
  if (!props) return QV_OK;
  int32_t c = qvg_scope_col(s, col);
  if (props->kind != QVG_MAP)
    return qvg_plan_fail(p, props, QV_ERR_UNSUPPORTED, "a property map parameter in a pattern is not supported");
  qvg_cx *all = NULL;
  for (int32_t i = 0; i < props->n_kids; i++) {
    if (i < 64 && (skip >> i) & 1) continue;
    const qvg_node *en = props->kids[i];
    qvg_cx *prop = qvg_cx_new(p, QVG_CX_PROP, en, 1), *val;
    if (!prop) return QVG_NOMEM(p);
    prop->kids[0] = qvg_cx_col(p, c);
    prop->name = en->str;
    prop->nlen = en->len;
    QV_RETURN_NOT_OK(qvg_compile(p, s, en->kids[0], &val));
    qvg_cx *eq = qvg_cx_cmp(p, qvg_cmp_eq, prop, val);
    if (!eq || !prop->kids[0]) return QVG_NOMEM(p);
    all = qvg_cx_bin(p, QVG_CX_AND, all, eq);
    if (!all) return QVG_NOMEM(p);
  }
  *out = all;
  return QV_OK;
}

qv_status qvg_props_cx(qvg_planner *p, const qvg_scope *s, const char *col, const qvg_node *props, qvg_cx **out) {
  return qvg_props_cx_skip(p, s, col, props, 0, out);
}

/* The labels of a node pattern from index `from` on, as a LABELS test of col. */
qv_status qvg_labels_cx(qvg_planner *p, const qvg_scope *s, const char *col, const qvg_node *labels, int32_t from,
                        qvg_cx **out) {
  *out = NULL;
  if (!labels || labels->n_kids <= from) return QV_OK;
  int32_t n = labels->n_kids - from;
  int32_t *ix = qvg_arena_alloc(p->arena, (size_t)n * sizeof *ix);
  qvg_cx *c = qvg_cx_new(p, QVG_CX_LABELS, labels, 1);
  if (!ix || !c) return QVG_NOMEM(p);
  for (int32_t i = 0; i < n; i++) ix[i] = qvg_store_label(p->st, labels->kids[from + i]->str);
  c->labels = ix;
  c->n_labels = n;
  c->kids[0] = qvg_cx_col(p, qvg_scope_col(s, col));
  if (!c->kids[0]) return QVG_NOMEM(p);
  *out = c;
  return QV_OK;
}

/* ---- queries ---------------------------------------------------------------------------------- */

static qv_status plan_single(qvg_planner *p, const qvg_node *q, qvg_scope *s, qv_type_id **types) {
  bool returned = false, updated = false;
  *types = NULL;
  for (int32_t i = 0; i < q->n_kids; i++) {
    const qvg_node *cl = q->kids[i];
    if (returned) return qvg_plan_fail(p, cl, QV_ERR_INVALID, "RETURN can only be the last clause");
    p->rest = (const qvg_node *const *)q->kids + i + 1; /* column pruning reads what comes after */
    p->n_rest = q->n_kids - i - 1;
    switch (cl->kind) {
      case QVG_MATCH:
        if (cl->flags & QVG_F_OPTIONAL) {
          const char *unused;
          QV_RETURN_NOT_OK(qvg_plan_apply(p, s, QVG_APPLY_OPTIONAL, (const qvg_node *const *)cl->kids[0]->kids,
                                          cl->kids[0]->n_kids, cl->kids[1], NULL, &unused));
        } else {
          QV_RETURN_NOT_OK(
              qvg_plan_match(p, s, (const qvg_node *const *)cl->kids[0]->kids, cl->kids[0]->n_kids, cl->kids[1]));
        }
        break;
      case QVG_UNWIND: QV_RETURN_NOT_OK(qvg_plan_unwind(p, s, cl)); break;
      case QVG_WITH: QV_RETURN_NOT_OK(qvg_plan_projection(p, s, cl, false, NULL)); break;
      case QVG_RETURN:
        QV_RETURN_NOT_OK(qvg_plan_projection(p, s, cl, true, types));
        returned = true;
        break;
      case QVG_CREATE:
        QV_RETURN_NOT_OK(qvg_plan_create(p, s, cl));
        updated = true;
        break;
      default:
        if (!p->st->mem)
          return qvg_plan_fail(p, cl, QV_ERR_INVALID, "the graph is read-only (it is declared over datasets): %s",
                               qvg_kind_name(cl->kind));
        return qvg_plan_fail(p, cl, QV_ERR_UNSUPPORTED, "%s is not supported yet", qvg_kind_name(cl->kind));
    }
  }
  if (returned) return QV_OK;
  if (!updated) {
    const qvg_node *last = q->kids[q->n_kids - 1];
    return qvg_plan_fail(p, last, QV_ERR_INVALID, "a query cannot end with %s (add RETURN)", qvg_kind_name(last->kind));
  }
  /* an update without RETURN: run it, yield nothing */
  QV_RETURN_NOT_OK(qvg_add_filter(p, s, qvg_cx_lit(p, qvg_bool(false))));
  QV_RETURN_NOT_OK(qvg_select_cols(p, s, NULL, NULL, 0));
  s->n_vars = 0;
  return QV_OK;
}

static qv_status plan_union(qvg_planner *p, const qvg_node *q, qvg_scope *s, qv_type_id **types) {
  if (q->kind != QVG_UNION) return plan_single(p, q, s, types);
  qvg_scope l, r;
  memset(&l, 0, sizeof l);
  memset(&r, 0, sizeof r);
  qv_type_id *lt, *rt;
  QV_RETURN_NOT_OK(plan_union(p, q->kids[0], &l, &lt));
  qv_status st = plan_single(p, q->kids[1], &r, &rt);
  if (st == QV_OK && l.n_cols != r.n_cols)
    st = qvg_plan_fail(p, q, QV_ERR_INVALID, "all sub queries in a UNION must have the same column names");
  const char *cols[QVG_MAX_COLS];
  for (int32_t i = 0; i < l.n_cols && st == QV_OK; i++) {
    if (qvg_scope_col(&r, l.names[i]) < 0)
      st = qvg_plan_fail(p, q, QV_ERR_INVALID, "all sub queries in a UNION must have the same column names");
    cols[i] = l.names[i];
  }
  /* one kind per column on both sides: differing ones become values */
  for (int32_t side = 0; side < 2 && st == QV_OK; side++) {
    qvg_scope *x = side ? &r : &l, *o = side ? &l : &r;
    const qvg_cx *cx[QVG_MAX_COLS];
    const char *names[QVG_MAX_COLS], *sel[QVG_MAX_COLS];
    qvg_out_mode modes[QVG_MAX_COLS];
    int32_t ne = 0;
    for (int32_t i = 0; i < l.n_cols; i++) {
      int32_t c = qvg_scope_col(x, cols[i]), oc = qvg_scope_col(o, cols[i]);
      sel[i] = cols[i];
      if (x->kinds[c] != o->kinds[oc] && x->kinds[c] != QVG_COL_VALUE) {
        cx[ne] = qvg_cx_col(p, c);
        names[ne] = qvg_hidden_name(p);
        sel[i] = names[ne];
        modes[ne++] = QVG_OUT_VALUE;
      }
    }
    if (ne) st = qvg_add_eval(p, x, cx, names, modes, ne);
    if (st == QV_OK && (ne || side)) st = qvg_select_cols(p, x, sel, cols, l.n_cols);
  }
  qv_exec_op *u = NULL;
  if (st == QV_OK) {
    qv_exec_op *kids[2] = {l.op, r.op};
    l.op = r.op = NULL;
    st = qv_exec_union(p->ctx, kids, 2, &u, p->err);
  }
  if (st != QV_OK) {
    qv_exec_destroy(l.op);
    qv_exec_destroy(r.op);
    return st;
  }
  *s = l;
  s->op = NULL;
  QV_RETURN_NOT_OK(qvg_adopt(p, s, u, NULL, 0));
  if (!(q->flags & QVG_F_ALL)) st = qvg_add_distinct(p, s);
  qv_type_id *t = qvg_arena_alloc(p->arena, (size_t)(s->n_cols ? s->n_cols : 1) * sizeof *t);
  if (!t) return QVG_NOMEM(p);
  for (int32_t i = 0; i < s->n_cols; i++) {
    int32_t rc = qvg_scope_col(&r, cols[i]);
    t[i] = lt && rt && rc >= 0 && lt[i] == rt[rc] ? lt[i] : QV_TYPE_NULL;
  }
  *types = t;
  return st;
}

qv_status qvg_plan_query(qvg_planner *p, const qvg_node *q, qv_exec_op **out, qvg_colkind **kinds, qv_type_id **types,
                         int32_t *n_cols) {
  *out = NULL;
  qvg_scope s;
  memset(&s, 0, sizeof s);
  qv_type_id *t = NULL;
  qv_status st = plan_union(p, q, &s, &t);
  if (st != QV_OK) {
    qv_exec_destroy(s.op);
    return st;
  }
  *out = s.op;
  *kinds = s.kinds;
  *types = t;
  *n_cols = s.n_cols;
  return QV_OK;
}
