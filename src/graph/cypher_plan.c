/* The Cypher planner: clauses and patterns into a tree of operators.
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

#define NOMEM(p) qv_error_nomem((p)->err, "cypher planner")
#define MAX_COLS 512
#define MAX_CONJ 128
#define APPLY_ROW "  row"

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
}

/* ---- scope ---------------------------------------------------------------- */

/* Takes op as the scope's plan: its first s->n_cols columns keep their
 * kinds, the rest get add[0..n_add). */
static qv_status adopt(qvg_planner *p, qvg_scope *s, qv_exec_op *op, const qvg_colkind *add, int32_t n_add) {
  const qv_schema *sc = qv_exec_schema(op);
  int32_t n = sc->n_fields;
  qvg_colkind *k = qvg_arena_alloc(p->arena, (size_t)(n ? n : 1) * sizeof *k);
  const char **names = qvg_arena_alloc(p->arena, (size_t)(n ? n : 1) * sizeof *names);
  if (!k || !names) {
    qv_exec_destroy(op);
    s->op = NULL;
    return NOMEM(p);
  }
  int32_t keep = s->n_cols < n ? s->n_cols : n;
  if (keep) memcpy(k, s->kinds, (size_t)keep * sizeof *k);
  for (int32_t i = keep; i < n; i++) k[i] = i - keep < n_add ? add[i - keep] : QVG_COL_VALUE;
  for (int32_t i = 0; i < n; i++) {
    names[i] = qvg_pstrdup(p, sc->fields[i].name, strlen(sc->fields[i].name));
    if (!names[i]) {
      qv_exec_destroy(op);
      s->op = NULL;
      return NOMEM(p);
    }
  }
  s->op = op;
  s->kinds = k;
  s->names = names;
  s->n_cols = n;
  return QV_OK;
}

static qv_status adopt_all(qvg_planner *p, qvg_scope *s, qv_exec_op *op, const qvg_colkind *k, int32_t n) {
  s->n_cols = 0;
  return adopt(p, s, op, k, n);
}

static qv_status add_var(qvg_planner *p, qvg_scope *s, const char *name, const char *col, int32_t label) {
  qvg_pvar *v = qvg_arena_alloc(p->arena, (size_t)(s->n_vars + 1) * sizeof *v);
  if (!v) return NOMEM(p);
  if (s->n_vars) memcpy(v, s->vars, (size_t)s->n_vars * sizeof *v);
  memset(&v[s->n_vars], 0, sizeof *v);
  v[s->n_vars].name = name;
  v[s->n_vars].col = col;
  v[s->n_vars].label = label;
  s->vars = v;
  s->n_vars++;
  return QV_OK;
}

static bool is_hidden(const char *name) { return name[0] == '#'; }

static qv_status ensure_op(qvg_planner *p, qvg_scope *s) {
  if (s->op) return QV_OK;
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvg_op_unit(p->ctx, qvg_hidden_name(p), &op, p->err));
  qvg_colkind k = QVG_COL_VALUE;
  return adopt_all(p, s, op, &k, 1);
}

static qv_status add_filter(qvg_planner *p, qvg_scope *s, const qvg_cx *pred) {
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
static qv_status add_eval(qvg_planner *p, qvg_scope *s, const qvg_cx *const *exprs, const char *const *names,
                          const qvg_out_mode *modes, int32_t n) {
  if (n > MAX_COLS) return qvg_plan_fail(p, NULL, QV_ERR_UNSUPPORTED, "more than %d columns", MAX_COLS);
  qv_exec_op *child = s->op, *op;
  s->op = NULL;
  QV_RETURN_NOT_OK(
      qvg_op_eval(p->ctx, child, p->st, s->kinds, exprs, names, modes, n, p->max_locals, true, &op, p->err));
  qvg_colkind k[MAX_COLS];
  for (int32_t i = 0; i < n; i++) k[i] = kind_of_mode(modes[i]);
  return adopt(p, s, op, k, n);
}

/* The scope's plan replaced by exactly the columns exprs compute. */
static qv_status eval_only(qvg_planner *p, qvg_scope *s, const qvg_cx *const *exprs, const char *const *names,
                           const qvg_out_mode *modes, int32_t n) {
  if (n > MAX_COLS) return qvg_plan_fail(p, NULL, QV_ERR_UNSUPPORTED, "more than %d columns", MAX_COLS);
  qv_exec_op *child = s->op, *op;
  s->op = NULL;
  QV_RETURN_NOT_OK(
      qvg_op_eval(p->ctx, child, p->st, s->kinds, exprs, names, modes, n, p->max_locals, false, &op, p->err));
  qvg_colkind k[MAX_COLS];
  for (int32_t i = 0; i < n; i++) k[i] = kind_of_mode(modes[i]);
  return adopt_all(p, s, op, k, n);
}

static qv_status add_eval1(qvg_planner *p, qvg_scope *s, const qvg_cx *e, const char *name, qvg_out_mode m) {
  return add_eval(p, s, &e, &name, &m, 1);
}

/* The scope's plan projected to the columns cols renamed to names. */
static qv_status select_cols(qvg_planner *p, qvg_scope *s, const char *const *cols, const char *const *names,
                             int32_t n) {
  if (n > MAX_COLS) return qvg_plan_fail(p, NULL, QV_ERR_UNSUPPORTED, "more than %d columns", MAX_COLS);
  qv_expr *ex[MAX_COLS] = {NULL};
  qvg_colkind k[MAX_COLS];
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
      st = NOMEM(p);
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
  return adopt_all(p, s, op, k, n);
}

/* DISTINCT over every column of the scope's plan (exec's HashAggregateExec
 * on the encoded values, no aggregates). */
static qv_status add_distinct(qvg_planner *p, qvg_scope *s) {
  if (s->n_cols > MAX_COLS) return qvg_plan_fail(p, NULL, QV_ERR_UNSUPPORTED, "more than %d columns", MAX_COLS);
  qv_expr *keys[MAX_COLS] = {NULL};
  qv_status st = QV_OK;
  int32_t made = 0;
  for (; made < s->n_cols && st == QV_OK; made++)
    if (!(keys[made] = qv_expr_column(s->names[made]))) st = NOMEM(p);
  qv_exec_op *d = NULL;
  if (st == QV_OK) {
    qv_exec_op *child = s->op;
    s->op = NULL;
    st = qv_exec_aggregate(p->ctx, child, (const qv_expr *const *)keys, s->names, s->n_cols, NULL, 0, &d, p->err);
  }
  for (int32_t i = 0; i < made; i++) qv_expr_destroy(keys[i]);
  return st == QV_OK ? adopt(p, s, d, NULL, 0) : st;
}

/* SKIP sk, LIMIT lim (-1: none) over the scope's plan, when there is one. */
static qv_status add_limit(qvg_planner *p, qvg_scope *s, int64_t sk, int64_t lim) {
  if (sk <= 0 && lim < 0) return QV_OK;
  qv_exec_op *child = s->op, *l;
  s->op = NULL;
  QV_RETURN_NOT_OK(qv_exec_limit(p->ctx, child, sk, lim, &l, p->err));
  return adopt(p, s, l, NULL, 0);
}

/* ---- small expression builders ------------------------------------------------ */

static qvg_cx *cx_col(qvg_planner *p, int32_t col) {
  qvg_cx *c = qvg_cx_new(p, QVG_CX_COL, NULL, 0);
  if (c) c->col = col;
  return c;
}

static qvg_cx *cx_lit(qvg_planner *p, qvg_val v) {
  qvg_cx *c = qvg_cx_new(p, QVG_CX_LIT, NULL, 0);
  if (c) c->lit = v;
  return c;
}

static qvg_cx *cx_bin(qvg_planner *p, int kind, qvg_cx *a, qvg_cx *b) {
  if (!a) return b;
  if (!b) return a;
  qvg_cx *c = qvg_cx_new(p, kind, NULL, 2);
  if (!c) return NULL;
  c->kids[0] = a;
  c->kids[1] = b;
  return c;
}

static qvg_cx *cx_not(qvg_planner *p, qvg_cx *a) {
  qvg_cx *c = a ? qvg_cx_new(p, QVG_CX_NOT, NULL, 1) : NULL;
  if (c) c->kids[0] = a;
  return c;
}

static const uint8_t cmp_eq[1] = {QVG_CMP_EQ};
static const uint8_t cmp_ne[1] = {QVG_CMP_NE};

static qvg_cx *cx_cmp(qvg_planner *p, const uint8_t *op, qvg_cx *a, qvg_cx *b) {
  if (!a || !b) return NULL;
  qvg_cx *c = qvg_cx_new(p, QVG_CX_CMP, NULL, 2);
  if (!c) return NULL;
  c->kids[0] = a;
  c->kids[1] = b;
  c->ops = op;
  return c;
}

/* {k: v, ...} of a pattern element as "col.k = v AND ...". */
static qv_status props_cx(qvg_planner *p, const qvg_scope *s, const char *col, const qvg_node *props, qvg_cx **out) {
  *out = NULL;
  if (!props) return QV_OK;
  int32_t c = qvg_scope_col(s, col);
  if (props->kind != QVG_MAP)
    return qvg_plan_fail(p, props, QV_ERR_UNSUPPORTED, "a property map parameter in a pattern is not supported");
  qvg_cx *all = NULL;
  for (int32_t i = 0; i < props->n_kids; i++) {
    const qvg_node *en = props->kids[i];
    qvg_cx *prop = qvg_cx_new(p, QVG_CX_PROP, en, 1), *val;
    if (!prop) return NOMEM(p);
    prop->kids[0] = cx_col(p, c);
    prop->name = en->str;
    prop->nlen = en->len;
    QV_RETURN_NOT_OK(qvg_compile(p, s, en->kids[0], &val));
    qvg_cx *eq = cx_cmp(p, cmp_eq, prop, val);
    if (!eq || !prop->kids[0]) return NOMEM(p);
    all = cx_bin(p, QVG_CX_AND, all, eq);
    if (!all) return NOMEM(p);
  }
  *out = all;
  return QV_OK;
}

/* The labels of a node pattern from index `from` on, as a LABELS test of col. */
static qv_status labels_cx(qvg_planner *p, const qvg_scope *s, const char *col, const qvg_node *labels, int32_t from,
                           qvg_cx **out) {
  *out = NULL;
  if (!labels || labels->n_kids <= from) return QV_OK;
  int32_t n = labels->n_kids - from;
  int32_t *ix = qvg_arena_alloc(p->arena, (size_t)n * sizeof *ix);
  qvg_cx *c = qvg_cx_new(p, QVG_CX_LABELS, labels, 1);
  if (!ix || !c) return NOMEM(p);
  for (int32_t i = 0; i < n; i++) ix[i] = qvg_store_label(p->st, labels->kids[from + i]->str);
  c->labels = ix;
  c->n_labels = n;
  c->kids[0] = cx_col(p, qvg_scope_col(s, col));
  if (!c->kids[0]) return NOMEM(p);
  *out = c;
  return QV_OK;
}

/* ---- subqueries (ApplyExec) ------------------------------------------------------ */

static qv_status plan_match(qvg_planner *p, qvg_scope *s, const qvg_node *const *paths, int32_t n_paths,
                            const qvg_node *where);
static qv_status compile_full(qvg_planner *p, qvg_scope *s, const qvg_node *e, qvg_cx **out);

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
  qv_status st = adopt(p, &s, input, &rowk, 1);
  if (st == QV_OK) st = plan_match(p, &s, a->paths, a->n_paths, a->where);
  if (st == QV_OK && a->proj) {
    qvg_cx *c;
    st = compile_full(p, &s, a->proj, &c);
    if (st == QV_OK) st = add_eval1(p, &s, c, qvg_hidden_name(p), QVG_OUT_VALUE);
  }
  p->arena = saved_arena;
  p->err = saved_err;
  p->n_bound = saved_bound;
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
static qv_status plan_apply(qvg_planner *p, qvg_scope *s, qvg_apply_mode mode, const qvg_node *const *paths,
                            int32_t n_paths, const qvg_node *where, const qvg_node *proj, const char **out_col) {
  QV_RETURN_NOT_OK(ensure_op(p, s));
  /* malloc'd: a subplan's own ApplyExecs are planned per batch, in an
   * arena the next batch clears, but released with the plan */
  sub_arg *a = qv_calloc(1, sizeof *a);
  if (!a) return NOMEM(p);
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
  if (st != QV_OK) return NOMEM(p);
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
    return adopt(p, s, op, &k, 1);
  }
  /* the subplan's columns but "  row" (right after the input's) */
  qvg_colkind k[MAX_COLS];
  int32_t n = 0;
  for (int32_t i = 0; i < a->result.n_cols && n < MAX_COLS; i++)
    if (i != in_scope.n_cols) k[n++] = a->result.kinds[i];
  QV_RETURN_NOT_OK(adopt_all(p, s, op, k, n));
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

/* Plans the subqueries inside e (not those nested in them) as ApplyExecs
 * and binds each to its column. */
static qv_status prepare_subqueries(qvg_planner *p, qvg_scope *s, const qvg_node *e) {
  if (!e) return QV_OK;
  const char *col = NULL;
  switch (e->kind) {
    case QVG_PAT_PRED:
      QV_RETURN_NOT_OK(plan_apply(p, s, QVG_APPLY_EXISTS, (const qvg_node *const *)e->kids, 1, NULL, NULL, &col));
      return qvg_bind_expr(p, e, col);
    case QVG_EXISTS:
    case QVG_COUNT_SUB: {
      const qvg_node *const *paths = NULL;
      int32_t n = 0;
      const qvg_node *where = NULL;
      QV_RETURN_NOT_OK(sub_body(p, e, &paths, &n, &where));
      QV_RETURN_NOT_OK(
          plan_apply(p, s, e->kind == QVG_EXISTS ? QVG_APPLY_EXISTS : QVG_APPLY_COUNT, paths, n, where, NULL, &col));
      return qvg_bind_expr(p, e, col);
    }
    case QVG_PAT_COMP:
      QV_RETURN_NOT_OK(
          plan_apply(p, s, QVG_APPLY_COLLECT, (const qvg_node *const *)e->kids, 1, e->kids[1], e->kids[2], &col));
      return qvg_bind_expr(p, e, col);
    default: break;
  }
  for (int32_t i = 0; i < e->n_kids; i++) QV_RETURN_NOT_OK(prepare_subqueries(p, s, e->kids[i]));
  return QV_OK;
}

static bool has_subquery(const qvg_node *e) {
  if (!e) return false;
  if (e->kind == QVG_PAT_PRED || e->kind == QVG_EXISTS || e->kind == QVG_COUNT_SUB || e->kind == QVG_PAT_COMP)
    return true;
  for (int32_t i = 0; i < e->n_kids; i++)
    if (has_subquery(e->kids[i])) return true;
  return false;
}

static qv_status compile_full(qvg_planner *p, qvg_scope *s, const qvg_node *e, qvg_cx **out) {
  QV_RETURN_NOT_OK(prepare_subqueries(p, s, e));
  return qvg_compile(p, s, e, out);
}

/* ---- MATCH ------------------------------------------------------------------------- */

typedef struct conj {
  const qvg_node *e;
  const char *vars[32];
  int32_t n_vars;
  bool done, sub;
} conj;

typedef struct match_state {
  conj c[MAX_CONJ];
  int32_t n;
  const char *rels[MAX_COLS]; /* relationship columns bound by this MATCH (uniqueness) */
  int32_t n_rels;
} match_state;

static void split_where(match_state *m, const qvg_node *e) {
  if (!e) return;
  if (e->kind == QVG_AND && m->n < MAX_CONJ - 1) {
    split_where(m, e->kids[0]);
    split_where(m, e->kids[1]);
    return;
  }
  conj *c = &m->c[m->n++];
  memset(c, 0, sizeof *c);
  c->e = e;
  qvg_vars_of(e, c->vars, &c->n_vars, 32);
  c->sub = has_subquery(e);
}

static bool conj_ready(const conj *c, const qvg_scope *s) {
  for (int32_t i = 0; i < c->n_vars; i++)
    if (!qvg_scope_var(s, c->vars[i])) return false;
  return true;
}

static qv_status apply_ready(qvg_planner *p, qvg_scope *s, match_state *m) {
  for (int32_t i = 0; i < m->n; i++) {
    conj *c = &m->c[i];
    if (c->done || !conj_ready(c, s)) continue;
    c->done = true;
    qvg_cx *x;
    QV_RETURN_NOT_OK(compile_full(p, s, c->e, &x));
    QV_RETURN_NOT_OK(add_filter(p, s, x));
  }
  return QV_OK;
}

/* AND of the conjuncts that read only the variable `var` (and no
 * subquery), marked done; compiled against s. */
static qv_status conj_only(qvg_planner *p, const qvg_scope *s, match_state *m, const char *var, qvg_cx **out) {
  for (int32_t i = 0; i < m->n; i++) {
    conj *c = &m->c[i];
    if (c->done || c->sub || c->n_vars != 1 || strcmp(c->vars[0], var) != 0) continue;
    qvg_cx *x;
    QV_RETURN_NOT_OK(qvg_compile(p, s, c->e, &x));
    c->done = true;
    if (!(*out = cx_bin(p, QVG_CX_AND, *out, x))) return NOMEM(p);
  }
  return QV_OK;
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
  if (!ix) return NOMEM(p);
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
static qv_status node_col(qvg_planner *p, qvg_scope *s, const char *var, const char **col) {
  const qvg_pvar *v = qvg_scope_var(s, var);
  int32_t c = qvg_scope_col(s, v->col ? v->col : "");
  if (c >= 0 && s->kinds[c] == QVG_COL_NODE) {
    *col = v->col;
    return QV_OK;
  }
  if (c < 0) return qvg_plan_fail(p, NULL, QV_ERR_INVALID, "variable `%s` is not a node", var);
  const char *name = qvg_hidden_name(p);
  QV_RETURN_NOT_OK(add_eval1(p, s, cx_col(p, c), name, QVG_OUT_NODE));
  QV_RETURN_NOT_OK(add_var(p, s, var, name, v->label));
  *col = name;
  return QV_OK;
}

/* Uniqueness of the relationship column rel against the MATCH's others. */
static qv_status unique_cx(qvg_planner *p, const qvg_scope *s, const match_state *m, int32_t rel, qvg_cx **out) {
  for (int32_t i = 0; i < m->n_rels; i++) {
    int32_t c = qvg_scope_col(s, m->rels[i]);
    if (c < 0 || c == rel) continue;
    qvg_cx *t;
    if (s->kinds[c] == QVG_COL_REL) t = cx_cmp(p, cmp_ne, cx_col(p, rel), cx_col(p, c));
    else {
      qvg_cx *in = qvg_cx_new(p, QVG_CX_BINARY, NULL, 2);
      if (!in) return NOMEM(p);
      in->op = QVG_OP_IN;
      in->kids[0] = cx_col(p, rel);
      in->kids[1] = cx_col(p, c);
      t = cx_not(p, in);
    }
    if (!t || !(*out = cx_bin(p, QVG_CX_AND, *out, t))) return NOMEM(p);
  }
  return QV_OK;
}

typedef struct hop {
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
} hop;

/* A scope with the columns a hop's operator will append. */
static qv_status scope_plus(qvg_planner *p, const qvg_scope *s, const char *const *names, const qvg_colkind *kinds,
                            int32_t n, qvg_scope *out) {
  *out = *s;
  const char **nm = qvg_arena_alloc(p->arena, (size_t)(s->n_cols + n) * sizeof *nm);
  qvg_colkind *k = qvg_arena_alloc(p->arena, (size_t)(s->n_cols + n) * sizeof *k);
  if (!nm || !k) return NOMEM(p);
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

/* The filters a hop can take along: on the new node (extra labels, its
 * property map, conjuncts on it alone) and on the relationship (its map,
 * conjuncts on it alone unless var-length). */
static qv_status hop_filters(qvg_planner *p, const qvg_scope *t, match_state *m, const hop *h, qvg_cx **target,
                             qvg_cx **edge) {
  *target = *edge = NULL;
  if (!h->into) {
    qvg_cx *x = NULL;
    QV_RETURN_NOT_OK(labels_cx(p, t, h->to_name, h->to->kids[0], 1, &x));
    *target = x;
    QV_RETURN_NOT_OK(props_cx(p, t, h->to_name, h->to->kids[1], &x));
    if (x && !(*target = cx_bin(p, QVG_CX_AND, *target, x))) return NOMEM(p);
    if (h->to->str) QV_RETURN_NOT_OK(conj_only(p, t, m, h->to->str, target));
    /* and conjuncts that join it with what is bound (a <> c): evaluated per
     * candidate inside the hop instead of on every row after it */
    for (int32_t i = 0; i < m->n; i++) {
      conj *c = &m->c[i];
      if (c->done || c->sub || !conj_ready(c, t)) continue;
      bool reads_new = false, reads_list = false;
      for (int32_t v = 0; v < c->n_vars; v++) {
        reads_new |= h->to->str && strcmp(c->vars[v], h->to->str) == 0;
        reads_list |= h->varlen && h->rel->str && strcmp(c->vars[v], h->rel->str) == 0;
      }
      if (!reads_new || reads_list) continue;
      qvg_cx *cj;
      QV_RETURN_NOT_OK(qvg_compile(p, t, c->e, &cj));
      c->done = true;
      if (!(*target = cx_bin(p, QVG_CX_AND, *target, cj))) return NOMEM(p);
    }
  }
  qvg_cx *x = NULL;
  QV_RETURN_NOT_OK(props_cx(p, t, h->rel_name, h->rel->kids[1], &x));
  *edge = x;
  if (!h->varlen && h->rel->str) QV_RETURN_NOT_OK(conj_only(p, t, m, h->rel->str, edge));
  return QV_OK;
}

static qv_status hop_csr(qvg_planner *p, qvg_scope *s, match_state *m, hop *h) {
  const char *names[2] = {h->rel_name, h->to_name};
  qvg_colkind kinds[2] = {h->varlen ? QVG_COL_VALUE : QVG_COL_REL, QVG_COL_NODE};
  qvg_scope t;
  QV_RETURN_NOT_OK(scope_plus(p, s, names, kinds, h->into ? 1 : 2, &t));
  QV_RETURN_NOT_OK(add_var(p, &t, h->rel_name, h->rel_name, h->n_types == 1 ? h->types[0] : -1));
  if (!h->into) QV_RETURN_NOT_OK(add_var(p, &t, h->to_name, h->to_name, h->to_label));
  /* the edge filter sees the relationship as one REL, also for var-length */
  qvg_colkind saved = t.kinds[s->n_cols];
  t.kinds[s->n_cols] = QVG_COL_REL;
  qvg_cx *target, *edge;
  QV_RETURN_NOT_OK(hop_filters(p, &t, m, h, &target, &edge));
  t.kinds[s->n_cols] = saved;
  int32_t uniq[MAX_COLS], n_uniq = 0;
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
  sp.target_filter = target;
  sp.edge_filter = edge;
  sp.unique_cols = uniq;
  sp.n_unique = n_uniq;
  qv_exec_op *child = s->op, *op;
  s->op = NULL;
  QV_RETURN_NOT_OK(qvg_op_expand(p->ctx, child, p->st, s->kinds, &sp, &op, p->err));
  QV_RETURN_NOT_OK(adopt(p, s, op, kinds, h->into ? 1 : 2));
  s->vars = t.vars;
  s->n_vars = t.n_vars;
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
    if ((st = adopt_all(p, &rs, r2, rk, 3)) != QV_OK ||
        (st = add_filter(p, &rs, cx_cmp(p, cmp_ne, cx_col(p, 1), cx_col(p, 2)))) != QV_OK) {
      qv_exec_destroy(rs.op);
      qv_exec_destroy(right);
      return st;
    }
    const char *cols[3] = {rel_name, sn, dn};
    if ((st = select_cols(p, &rs, cols, cols, 3)) != QV_OK) {
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
  QV_RETURN_NOT_OK(adopt(p, s, j, k3, 3));
  /* keep the input, the relationship and (unless into) the far end */
  const char *cols[MAX_COLS], *names[MAX_COLS];
  int32_t n = 0;
  for (int32_t i = 0; i < n_in; i++) cols[n] = names[n] = s->names[i], n++;
  cols[n] = names[n] = rel_name, n++;
  if (!into) {
    cols[n] = h->dir == QVG_DIR_LEFT ? sn : dn;
    names[n++] = to_name;
  }
  return select_cols(p, s, cols, names, n);
}

static qv_status hop_join(qvg_planner *p, qvg_scope *s, match_state *m, hop *h) {
  int32_t n_in = s->n_cols;
  if (!h->varlen) {
    QV_RETURN_NOT_OK(join_one(p, s, h, h->from_col, h->rel_name, h->to_name, h->into, h->to_col));
    QV_RETURN_NOT_OK(add_var(p, s, h->rel_name, h->rel_name, h->n_types == 1 ? h->types[0] : -1));
    if (!h->into) QV_RETURN_NOT_OK(add_var(p, s, h->to_name, h->to_name, h->to_label));
    qvg_cx *f = NULL, *target, *edge;
    if (!h->into && h->to_label >= 0 && h->to_label != h->implied) {
      int32_t *ix = qvg_arena_alloc(p->arena, sizeof *ix);
      qvg_cx *l = qvg_cx_new(p, QVG_CX_LABELS, NULL, 1);
      if (!ix || !l) return NOMEM(p);
      *ix = h->to_label;
      l->labels = ix;
      l->n_labels = 1;
      l->kids[0] = cx_col(p, qvg_scope_col(s, h->to_name));
      f = l;
    }
    QV_RETURN_NOT_OK(hop_filters(p, s, m, h, &target, &edge));
    f = cx_bin(p, QVG_CX_AND, f, target);
    f = cx_bin(p, QVG_CX_AND, f, edge);
    QV_RETURN_NOT_OK(unique_cx(p, s, m, qvg_scope_col(s, h->rel_name), &f));
    if (f) QV_RETURN_NOT_OK(add_filter(p, s, f));
    return QV_OK;
  }
  /* var-length: one branch per length lo..hi over a spool of the input */
  int32_t nb = (int32_t)(h->hi - h->lo + 1);
  if (nb < 1) nb = 1;
  qv_exec_op **readers = qvg_arena_alloc(p->arena, (size_t)nb * sizeof *readers);
  if (!readers) return NOMEM(p);
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
      st = props_cx(p, &bs, rn, h->rel->kids[1], &f);
      for (int32_t q = 0; q < n_r && st == QV_OK; q++)
        f = cx_bin(p, QVG_CX_AND, f, cx_cmp(p, cmp_ne, cx_col(p, rc), cx_col(p, qvg_scope_col(&bs, rels[q]))));
      if (st == QV_OK) st = unique_cx(p, &bs, m, rc, &f);
      if (st == QV_OK && f) st = add_filter(p, &bs, f);
      rels[n_r++] = rn;
      if (!(last && h->into)) end = tn;
    }
    if (st != QV_OK) {
      qv_exec_destroy(bs.op);
      break;
    }
    if (len == 0) {
      if (h->into) {
        st = add_filter(
            p, &bs,
            cx_cmp(p, cmp_eq, cx_col(p, qvg_scope_col(&bs, h->from_col)), cx_col(p, qvg_scope_col(&bs, h->to_col))));
      } else {
        st = add_eval1(p, &bs, cx_col(p, qvg_scope_col(&bs, h->from_col)), h->to_name, QVG_OUT_NODE);
      }
    }
    /* the relationships as one list */
    qvg_cx *list = st == QV_OK ? qvg_cx_new(p, QVG_CX_LIST, NULL, n_r) : NULL;
    if (st == QV_OK && !list) st = NOMEM(p);
    for (int32_t q = 0; q < n_r && st == QV_OK; q++) list->kids[q] = cx_col(p, qvg_scope_col(&bs, rels[q]));
    if (st == QV_OK) st = add_eval1(p, &bs, list, h->rel_name, QVG_OUT_VALUE);
    const char *cols[MAX_COLS];
    int32_t n = 0;
    for (int32_t i = 0; i < n_in; i++) cols[n++] = s->names[i];
    cols[n++] = h->rel_name;
    if (!h->into) cols[n++] = h->to_name;
    if (st == QV_OK) st = select_cols(p, &bs, cols, cols, n);
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
  QV_RETURN_NOT_OK(adopt(p, s, u, k2, h->into ? 1 : 2));
  QV_RETURN_NOT_OK(add_var(p, s, h->rel_name, h->rel_name, -1));
  if (!h->into) QV_RETURN_NOT_OK(add_var(p, s, h->to_name, h->to_name, h->to_label));
  qvg_cx *f = NULL, *target, *edge;
  if (!h->into && h->to_label >= 0 && h->to_label != h->implied)
    QV_RETURN_NOT_OK(labels_cx(p, s, h->to_name, h->to->kids[0], 0, &f));
  QV_RETURN_NOT_OK(hop_filters(p, s, m, h, &target, &edge)); /* edge: applied per hop above */
  f = cx_bin(p, QVG_CX_AND, f, target);
  if (f) QV_RETURN_NOT_OK(add_filter(p, s, f));
  return QV_OK;
}

/* The hop over rel from the node column from_col to the node pattern to. */
static qv_status plan_hop(qvg_planner *p, qvg_scope *s, match_state *m, const qvg_node *rel, const char *rel_name,
                          const char *from_col, const qvg_node *to, const char *to_name, bool reverse) {
  hop h;
  memset(&h, 0, sizeof h);
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
  if (h.varlen) {
    h.lo = rel->i0 < 0 ? 1 : rel->i0;
    h.hi = rel->i1 < 0 ? (h.lo > QVG_VARLEN_DEFAULT_MAX ? h.lo : QVG_VARLEN_DEFAULT_MAX) : rel->i1;
    if (h.hi < h.lo) h.impossible = true, h.hi = h.lo;
  }
  const qvg_pvar *tv = to->str ? qvg_scope_var(s, to->str) : NULL;
  bool to_has_extra = false;
  if (tv) {
    h.into = true;
    QV_RETURN_NOT_OK(node_col(p, s, to->str, &h.to_col));
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
  if (p->use_csr) QV_RETURN_NOT_OK(hop_csr(p, s, m, &h));
  else QV_RETURN_NOT_OK(hop_join(p, s, m, &h));
  if (h.impossible) QV_RETURN_NOT_OK(add_filter(p, s, cx_lit(p, qvg_bool(false))));
  const char *rel_col = rel_name;
  if (reverse && h.varlen) {
    /* walked right to left: the list in the pattern's order */
    qvg_cx *rev = qvg_cx_new(p, QVG_CX_FN, rel, 1);
    if (!rev) return NOMEM(p);
    rev->fn = QVG_FN_REVERSE;
    rev->kids[0] = cx_col(p, qvg_scope_col(s, rel_name));
    rel_col = qvg_hidden_name(p);
    QV_RETURN_NOT_OK(add_eval1(p, s, rev, rel_col, QVG_OUT_VALUE));
    QV_RETURN_NOT_OK(add_var(p, s, rel_name, rel_col, -1));
  }
  if (bound_rel)
    QV_RETURN_NOT_OK(add_filter(
        p, s, cx_cmp(p, cmp_eq, cx_col(p, qvg_scope_col(s, rel_col)), cx_col(p, qvg_scope_col(s, bound_rel)))));
  for (int32_t i = s->n_vars - 1; implied >= 0 && i >= 0; i--)
    if (strcmp(s->vars[i].name, to_name) == 0) {
      if (s->vars[i].label < 0) s->vars[i].label = implied;
      break;
    }
  if (to_has_extra) {
    qvg_cx *f = NULL, *x = NULL;
    QV_RETURN_NOT_OK(labels_cx(p, s, h.to_col, to->kids[0], 0, &f));
    QV_RETURN_NOT_OK(props_cx(p, s, h.to_col, to->kids[1], &x));
    if ((f = cx_bin(p, QVG_CX_AND, f, x))) QV_RETURN_NOT_OK(add_filter(p, s, f));
  }
  if (m->n_rels < MAX_COLS) m->rels[m->n_rels++] = rel_name;
  return apply_ready(p, s, m);
}

/* Starts a path at node el (not bound): a scan of its label with its own
 * filters, crossed with what came before. */
static qv_status plan_start(qvg_planner *p, qvg_scope *s, match_state *m, const qvg_node *el, const char *name) {
  int32_t label;
  QV_RETURN_NOT_OK(label_index(p, el->kids[0], 0, &label));
  bool impossible = el->kids[0] && label < 0;
  qvg_scope ns;
  memset(&ns, 0, sizeof ns);
  qv_exec_op *scan;
  QV_RETURN_NOT_OK(qvg_op_node_scan(p->ctx, p->st, impossible ? -1 : label, name, &scan, p->err));
  qvg_colkind nk = QVG_COL_NODE;
  QV_RETURN_NOT_OK(adopt_all(p, &ns, scan, &nk, 1));
  QV_RETURN_NOT_OK(add_var(p, &ns, name, name, label));
  qvg_cx *f = impossible ? cx_lit(p, qvg_bool(false)) : NULL, *x = NULL;
  QV_RETURN_NOT_OK(labels_cx(p, &ns, name, el->kids[0], 1, &x));
  f = cx_bin(p, QVG_CX_AND, f, x);
  x = NULL;
  /* a property map that reads other variables ({year: event.year}) waits
   * for the cross join */
  const char *reads[32];
  int32_t n_reads = 0;
  qvg_vars_of(el->kids[1], reads, &n_reads, 32);
  bool own = n_reads == 0 || (n_reads == 1 && el->str && strcmp(reads[0], el->str) == 0);
  qv_status st = own ? props_cx(p, &ns, name, el->kids[1], &x) : QV_OK;
  if (st == QV_OK) {
    f = cx_bin(p, QVG_CX_AND, f, x);
    if (el->str) st = conj_only(p, &ns, m, el->str, &f);
  }
  if (st == QV_OK && f) st = add_filter(p, &ns, f);
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
    QV_RETURN_NOT_OK(adopt(p, s, cross, &nk, 1));
  }
  QV_RETURN_NOT_OK(add_var(p, s, name, name, label));
  if (!own) {
    x = NULL;
    QV_RETURN_NOT_OK(props_cx(p, s, name, el->kids[1], &x));
    if (x) QV_RETURN_NOT_OK(add_filter(p, s, x));
  }
  return QV_OK;
}

static int64_t start_cost(qvg_planner *p, const qvg_node *el) {
  int32_t label = -1;
  if (el->kids[0] && el->kids[0]->n_kids) {
    label = qvg_store_label(p->st, el->kids[0]->kids[0]->str);
    if (label < 0) return 0; /* matches nothing: cheapest */
  }
  int64_t n = qvg_store_node_count(p->st, label);
  if (el->kids[1]) n = n / 10 + 1;
  return n;
}

static qv_status plan_path(qvg_planner *p, qvg_scope *s, match_state *m, const qvg_node *path) {
  int32_t n = path->n_kids;
  const char **names = qvg_arena_alloc(p->arena, (size_t)n * sizeof *names);
  if (!names) return NOMEM(p);
  for (int32_t i = 0; i < n; i++)
    if (!(names[i] = elem_name(p, s, path->kids[i]))) return NOMEM(p);
  if (path->op != QVG_PATH_PLAIN)
    return qvg_plan_fail(p, path, QV_ERR_UNSUPPORTED, "shortestPath is not supported yet");
  /* start at the first bound node, else at the cheapest */
  int32_t start = -1;
  for (int32_t i = 0; i < n && start < 0; i += 2)
    if (path->kids[i]->str && qvg_scope_var(s, path->kids[i]->str)) start = i;
  if (start < 0) {
    int64_t best = -1;
    for (int32_t i = 0; i < n; i += 2) {
      int64_t c = start_cost(p, path->kids[i]);
      if (best < 0 || c < best) best = c, start = i;
    }
    QV_RETURN_NOT_OK(plan_start(p, s, m, path->kids[start], names[start]));
    QV_RETURN_NOT_OK(apply_ready(p, s, m));
  } else {
    const qvg_node *el = path->kids[start];
    const char *col;
    QV_RETURN_NOT_OK(node_col(p, s, el->str, &col));
    if (el->kids[0] || el->kids[1]) {
      qvg_cx *f = NULL, *x = NULL;
      QV_RETURN_NOT_OK(labels_cx(p, s, col, el->kids[0], 0, &f));
      QV_RETURN_NOT_OK(props_cx(p, s, col, el->kids[1], &x));
      if ((f = cx_bin(p, QVG_CX_AND, f, x))) QV_RETURN_NOT_OK(add_filter(p, s, f));
    }
  }
  /* node columns by element (bound ones may live under another name) */
  const char **cols = qvg_arena_alloc(p->arena, (size_t)n * sizeof *cols);
  if (!cols) return NOMEM(p);
  for (int32_t i = 0; i < n; i++) cols[i] = names[i];
  for (int32_t i = start; i + 2 < n; i += 2) {
    const qvg_node *to = path->kids[i + 2];
    const char *from;
    QV_RETURN_NOT_OK(node_col(p, s, path->kids[i]->str ? path->kids[i]->str : names[i], &from));
    QV_RETURN_NOT_OK(plan_hop(p, s, m, path->kids[i + 1], names[i + 1], from, to, names[i + 2], false));
  }
  for (int32_t i = start; i - 2 >= 0; i -= 2) {
    const qvg_node *to = path->kids[i - 2];
    const char *from;
    QV_RETURN_NOT_OK(node_col(p, s, path->kids[i]->str ? path->kids[i]->str : names[i], &from));
    QV_RETURN_NOT_OK(plan_hop(p, s, m, path->kids[i - 1], names[i - 1], from, to, names[i - 2], true));
  }
  for (int32_t i = 0; i < n; i++) {
    const qvg_pvar *v = qvg_scope_var(s, path->kids[i]->str ? path->kids[i]->str : names[i]);
    if (v && v->col) cols[i] = v->col;
  }
  if (path->str) {
    if (qvg_scope_var(s, path->str))
      return qvg_plan_fail(p, path, QV_ERR_INVALID, "variable `%s` is already declared", path->str);
    uint8_t *dirs = qvg_arena_alloc(p->arena, (size_t)(n / 2 + 1));
    if (!dirs) return NOMEM(p);
    for (int32_t i = 1; i < n; i += 2) dirs[i / 2] = (uint8_t)path->kids[i]->op;
    QV_RETURN_NOT_OK(add_var(p, s, path->str, NULL, -1));
    qvg_pvar *v = &s->vars[s->n_vars - 1];
    v->path_cols = cols;
    v->n_path = n;
    v->path_dirs = dirs;
  }
  return QV_OK;
}

static qv_status plan_match(qvg_planner *p, qvg_scope *s, const qvg_node *const *paths, int32_t n_paths,
                            const qvg_node *where) {
  match_state *m = qv_calloc(1, sizeof *m);
  if (!m) return NOMEM(p);
  split_where(m, where);
  qv_status st = QV_OK;
  for (int32_t i = 0; i < n_paths && st == QV_OK; i++) st = plan_path(p, s, m, paths[i]);
  /* what is left reads variables from nowhere in this MATCH: compile
   * errors name them */
  for (int32_t i = 0; i < m->n && st == QV_OK; i++) {
    if (m->c[i].done) continue;
    m->c[i].done = true;
    qvg_cx *x;
    if (st == QV_OK) st = ensure_op(p, s);
    if (st == QV_OK) st = compile_full(p, s, m->c[i].e, &x);
    if (st == QV_OK) st = add_filter(p, s, x);
  }
  qv_free(m);
  return st;
}

/* ---- WITH and RETURN ----------------------------------------------------------------- */

typedef struct item {
  const qvg_node *e;
  const char *alias;
  const char *col; /* hidden column holding it */
  char *text;      /* canonical text, for ORDER BY matching (qv_malloc) */
  bool agg;
  qvg_out_mode mode;
  int32_t label;
  qv_type_id type;
} item;

static int cmp_name(const void *a, const void *b) { return strcmp(((const item *)a)->alias, ((const item *)b)->alias); }

static qvg_node *synth_var(qvg_planner *p, const char *name) {
  qvg_node *n = qvg_arena_alloc(p->arena, sizeof *n);
  if (!n) return NULL;
  memset(n, 0, sizeof *n);
  n->kind = QVG_VAR;
  n->str = name;
  n->len = (int32_t)strlen(name);
  n->height = 1;
  return n;
}

/* How an item's column is made: a bare node or relationship variable stays
 * one (so later hops and id() see it). */
static qvg_out_mode item_mode(const qvg_scope *s, const qvg_node *e, int32_t *label) {
  *label = -1;
  if (e->kind != QVG_VAR) return QVG_OUT_VALUE;
  const qvg_pvar *v = qvg_scope_var(s, e->str);
  if (!v || !v->col) return QVG_OUT_VALUE;
  int32_t c = qvg_scope_col(s, v->col);
  if (c < 0) return QVG_OUT_VALUE;
  *label = v->label;
  return s->kinds[c] == QVG_COL_NODE ? QVG_OUT_NODE : s->kinds[c] == QVG_COL_REL ? QVG_OUT_REL : QVG_OUT_VALUE;
}

static qv_status const_count(qvg_planner *p, const qvg_node *e, const char *what, int64_t *out) {
  qvg_val v;
  QV_RETURN_NOT_OK(qvg_eval_const(p, e, &v));
  if (v.t != QVG_V_INT)
    return qvg_plan_fail(p, e, QV_ERR_INVALID, "%s must be an integer, not %s", what, qvg_vtype_name(v.t));
  if (v.u.i < 0) return qvg_plan_fail(p, e, QV_ERR_INVALID, "%s must not be negative (%lld)", what, (long long)v.u.i);
  *out = v.u.i;
  return QV_OK;
}

static void collect_aggs(const qvg_node *e, const qvg_node **out, int32_t *n, int32_t cap) {
  if (!e) return;
  if (qvg_is_agg_call(e)) {
    for (int32_t i = 0; i < *n; i++)
      if (out[i] == e) return;
    if (*n < cap) out[(*n)++] = e;
    return;
  }
  if (e->kind == QVG_EXISTS || e->kind == QVG_COUNT_SUB || e->kind == QVG_PAT_COMP || e->kind == QVG_PAT_PRED) return;
  for (int32_t i = 0; i < e->n_kids; i++) collect_aggs(e->kids[i], out, n, cap);
}

static bool only_count_star(const qvg_node *const *aggs, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    if (aggs[i]->kind != QVG_COUNT_STAR) return false;
  return n > 0;
}

/* Whether the plan ends in an expansion whose new columns nothing in the
 * projection reads (its items and ORDER BY, directly or through a path):
 * count(*) then needs only how many rows each input row would make. */
/* Whether the projection (items, ORDER BY) reads any of the scope's
 * columns [from, to), directly or through a path. */
static bool reads_cols(const qvg_scope *s, const item *it, int32_t n, const qvg_node *order, int32_t from, int32_t to) {
  const char *names[64];
  int32_t nn = 0;
  for (int32_t i = 0; i < n; i++) qvg_vars_of(it[i].e, names, &nn, 64);
  for (int32_t i = 0; order && i < order->n_kids; i++) qvg_vars_of(order->kids[i]->kids[0], names, &nn, 64);
  if (nn == 64) return true;
  for (int32_t v = 0; v < nn; v++) {
    const qvg_pvar *var = qvg_scope_var(s, names[v]);
    if (!var) continue; /* an alias */
    for (int32_t c = from; c < to; c++) {
      if (var->col && strcmp(var->col, s->names[c]) == 0) return true;
      for (int32_t k = 0; k < var->n_path; k++)
        if (strcmp(var->path_cols[k], s->names[c]) == 0) return true;
    }
  }
  return false;
}

static bool counts_last_hop(const qvg_scope *s, const item *it, int32_t n, const qvg_node *order) {
  if (!s->op || strcmp(s->op->vt->name, "CsrExpandExec") != 0 || s->op->opened) return false;
  int32_t n_in = qv_exec_schema(s->op->children[0])->n_fields;
  return !reads_cols(s, it, n, order, n_in, s->n_cols);
}

/* count(DISTINCT c) where c is the new node of the plan's last hop, that
 * hop leaves the node b an earlier hop reached from a, that earlier hop
 * expands a scan of a's label (so the rows of one a come together), and
 * the grouping keys are a, or a's id property, and other properties of a
 * (one group per a): then the last hop can count each a's distinct c by
 * itself.  Returns a's column in the last hop's input, or -1. */
static int32_t distinct_reach_key(qvg_planner *p, const qvg_scope *s, const item *it, int32_t n, const qvg_node *agg,
                                  const qvg_node *order) {
  if (agg->kind != QVG_CALL_FN || strcasecmp(agg->str, "count") != 0 || !(agg->flags & QVG_F_DISTINCT) ||
      agg->n_kids != 1 || agg->kids[0]->kind != QVG_VAR)
    return -1;
  qv_exec_op *e2 = s->op;
  if (!e2 || strcmp(e2->vt->name, "CsrExpandExec") != 0 || e2->opened) return -1;
  int32_t n_in = qv_exec_schema(e2->children[0])->n_fields;
  if (s->n_cols != n_in + 2) return -1; /* a new rel and a new node */
  const qvg_pvar *c = qvg_scope_var(s, agg->kids[0]->str);
  if (!c || !c->col || strcmp(c->col, s->names[n_in + 1]) != 0) return -1;
  qv_exec_op *e1 = e2->children[0];
  if (strcmp(e1->vt->name, "CsrExpandExec") != 0) return -1;
  qv_exec_op *src = e1->children[0];
  while (strcmp(src->vt->name, "CypherFilterExec") == 0) src = src->children[0];
  if (strcmp(src->vt->name, "NodeScanExec") != 0 || qv_exec_schema(src)->n_fields != 1) return -1;
  const char *a_col = qv_exec_schema(src)->fields[0].name;
  /* every key reads a alone; one is a itself or its id */
  bool identity = false;
  const qvg_pvar *a = NULL;
  for (int32_t i = 0; i < n; i++) {
    if (it[i].agg) continue;
    const char *vars[8];
    int32_t nv = 0;
    qvg_vars_of(it[i].e, vars, &nv, 8);
    if (nv != 1) return -1;
    const qvg_pvar *v = qvg_scope_var(s, vars[0]);
    if (!v || !v->col || strcmp(v->col, a_col) != 0) return -1;
    a = v;
    const qvg_node *e = it[i].e;
    if (e->kind == QVG_VAR) identity = true;
    else if (e->kind == QVG_PROP && e->kids[0]->kind == QVG_VAR && p->st->g && v->label >= 0 &&
             v->label < p->st->g->cat.n_labels && strcmp(e->str, p->st->g->cat.labels[v->label].id_column) == 0)
      identity = true;
  }
  if (!identity || !a) return -1;
  for (int32_t i = 0; order && i < order->n_kids; i++) {
    const char *vars[8];
    int32_t nv = 0;
    qvg_vars_of(order->kids[i]->kids[0], vars, &nv, 8);
    for (int32_t v = 0; v < nv; v++) {
      const qvg_pvar *ov = qvg_scope_var(s, vars[v]); /* NULL: an alias */
      if (ov && (!ov->col || strcmp(ov->col, a_col) != 0)) return -1;
    }
  }
  return qvg_scope_col(s, a_col);
}

static qv_status agg_spec(qvg_planner *p, const qvg_node *e, qvg_agg_spec *a) {
  memset(a, 0, sizeof *a);
  a->arg_col = -1;
  a->weight_col = -1;
  a->distinct = (e->flags & QVG_F_DISTINCT) != 0;
  if (e->kind == QVG_COUNT_STAR) {
    a->fn = QVG_AGG_COUNT_STAR;
    return QV_OK;
  }
  static const struct {
    const char *name;
    qvg_agg fn;
    int32_t args;
  } fns[] = {{"count", QVG_AGG_COUNT, 1},
             {"sum", QVG_AGG_SUM, 1},
             {"avg", QVG_AGG_AVG, 1},
             {"min", QVG_AGG_MIN, 1},
             {"max", QVG_AGG_MAX, 1},
             {"collect", QVG_AGG_COLLECT, 1},
             {"stDev", QVG_AGG_STDEV, 1},
             {"stDevP", QVG_AGG_STDEVP, 1},
             {"percentileCont", QVG_AGG_PERCENTILE_CONT, 2},
             {"percentileDisc", QVG_AGG_PERCENTILE_DISC, 2}};
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
    if (strcasecmp(fns[i].name, e->str) != 0) continue;
    if (e->n_kids != fns[i].args)
      return qvg_plan_fail(p, e, QV_ERR_INVALID, "%s() takes %d argument%s", fns[i].name, (int)fns[i].args,
                           fns[i].args == 1 ? "" : "s");
    if (qvg_has_aggregate(e->kids[0]))
      return qvg_plan_fail(p, e, QV_ERR_INVALID, "an aggregate cannot contain another aggregate");
    a->fn = fns[i].fn;
    if (fns[i].args == 2) {
      qvg_val v;
      QV_RETURN_NOT_OK(qvg_eval_const(p, e->kids[1], &v));
      double f = v.t == QVG_V_INT ? (double)v.u.i : v.t == QVG_V_FLOAT ? v.u.f : -1;
      if (!(f >= 0 && f <= 1))
        return qvg_plan_fail(p, e->kids[1], QV_ERR_INVALID, "the percentile must be a number between 0.0 and 1.0");
      a->percentile = f;
    }
    return QV_OK;
  }
  return qvg_plan_fail(p, e, QV_ERR_INVALID, "unknown aggregate %s()", e->str);
}

static void free_items(item *it, int32_t n) {
  for (int32_t i = 0; i < n; i++) qv_free(it[i].text);
  qv_free(it);
}

/* WITH or RETURN.  On return the scope holds exactly the items (named by
 * their aliases); *types (nullable) gets each item's static type. */
static qv_status plan_projection(qvg_planner *p, qvg_scope *s, const qvg_node *cl, bool is_return, qv_type_id **types) {
  QV_RETURN_NOT_OK(ensure_op(p, s));
  const qvg_node *items = cl->kids[0], *order = cl->kids[1], *skip = cl->kids[2], *limit = cl->kids[3];
  const qvg_node *where = cl->kind == QVG_WITH ? cl->kids[4] : NULL;
  bool distinct = (cl->flags & QVG_F_DISTINCT) != 0;
  int32_t n_star = 0;
  if (items->flags & QVG_F_STAR)
    for (int32_t i = 0; i < s->n_vars; i++) n_star += !is_hidden(s->vars[i].name);
  int32_t n = n_star + items->n_kids;
  if (n == 0)
    return qvg_plan_fail(p, cl, QV_ERR_INVALID, "%s * with no variables in scope", is_return ? "RETURN" : "WITH");
  if (n > MAX_COLS) return qvg_plan_fail(p, cl, QV_ERR_UNSUPPORTED, "more than %d items", MAX_COLS);
  item *it = qv_calloc((size_t)n, sizeof *it);
  if (!it) return NOMEM(p);
  qv_status st = QV_OK;
  int32_t k = 0;
  if (items->flags & QVG_F_STAR) {
    for (int32_t i = 0; i < s->n_vars; i++) {
      const char *nm = s->vars[i].name;
      if (is_hidden(nm)) continue;
      bool dup = false;
      for (int32_t j = 0; j < k; j++) dup |= strcmp(it[j].alias, nm) == 0;
      if (dup) continue;
      it[k].e = synth_var(p, nm);
      it[k].alias = nm;
      k++;
    }
    qsort(it, (size_t)k, sizeof *it, cmp_name);
  }
  for (int32_t i = 0; i < items->n_kids; i++) {
    const qvg_node *x = items->kids[i];
    it[k].e = x->kids[0];
    it[k].alias = x->str ? x->str : x->kids[1]->str;
    k++;
  }
  n = k;
  bool any_agg = false;
  for (int32_t i = 0; i < n && st == QV_OK; i++) {
    if (!it[i].e) {
      st = NOMEM(p);
      break;
    }
    for (int32_t j = 0; j < i; j++)
      if (strcmp(it[i].alias, it[j].alias) == 0) {
        st = qvg_plan_fail(p, it[i].e, QV_ERR_INVALID, "multiple result columns with the same name `%s`", it[i].alias);
        break;
      }
    it[i].agg = qvg_has_aggregate(it[i].e);
    any_agg |= it[i].agg;
    it[i].text = qvg_cypher_print(it[i].e);
    it[i].mode = item_mode(s, it[i].e, &it[i].label);
    it[i].col = qvg_hidden_name(p);
  }
  for (int32_t i = 0; i < n && st == QV_OK; i++) it[i].type = qvg_static_type(p, s, it[i].e);
  if (st == QV_OK && types) {
    *types = qvg_arena_alloc(p->arena, (size_t)n * sizeof **types);
    if (!*types) st = NOMEM(p);
    for (int32_t i = 0; i < n && st == QV_OK; i++) (*types)[i] = it[i].type;
  }
  /* without ORDER BY or WHERE the last projection makes the items under
   * their aliases at once (no renaming projection after it) */
  bool direct = !order && !where;
  qvg_scope os = *s; /* where ORDER BY is compiled */
  char *key_texts[MAX_COLS];
  const char *key_names[MAX_COLS];
  int32_t n_kt = 0;
  if (st == QV_OK && !any_agg) {
    const qvg_cx *cx[MAX_COLS];
    const char *names[MAX_COLS];
    qvg_out_mode modes[MAX_COLS];
    for (int32_t i = 0; i < n && st == QV_OK; i++) {
      qvg_cx *c;
      st = compile_full(p, s, it[i].e, &c);
      cx[i] = c;
      names[i] = it[i].col;
      modes[i] = it[i].mode;
    }
    if (st == QV_OK && direct) {
      for (int32_t i = 0; i < n; i++) names[i] = it[i].col = it[i].alias;
      st = eval_only(p, s, cx, names, modes, n);
    } else if (st == QV_OK) {
      st = add_eval(p, s, cx, names, modes, n);
    }
    if (st == QV_OK && distinct) {
      if (!direct) st = select_cols(p, s, names, names, n);
      if (st == QV_OK) st = add_distinct(p, s);
      os = *s;
      os.n_vars = 0;
      os.vars = NULL;
    } else {
      os = *s;
    }
  } else if (st == QV_OK) {
    /* grouping keys and aggregate arguments, then the aggregate */
    const qvg_node *aggs[MAX_COLS];
    int32_t n_aggs = 0;
    for (int32_t i = 0; i < n; i++)
      if (it[i].agg) collect_aggs(it[i].e, aggs, &n_aggs, MAX_COLS);
    if (order)
      for (int32_t i = 0; i < order->n_kids; i++) collect_aggs(order->kids[i]->kids[0], aggs, &n_aggs, MAX_COLS);
    const char *weight = NULL;
    int32_t dkey = -1;
    bool distinct_rewrite = n_aggs == 1 && (dkey = distinct_reach_key(p, s, it, n, aggs[0], order)) >= 0;
    if (distinct_rewrite || (only_count_star(aggs, n_aggs) && counts_last_hop(s, it, n, order))) {
      weight = qvg_hidden_name(p);
      st = distinct_rewrite ? qvg_expand_count_distinct(s->op, weight, dkey, p->err)
                            : qvg_expand_count(s->op, weight, p->err);
      /* a plain count over two hops whose middle nothing reads: the first
       * counts the second's spans */
      qv_exec_op *root = NULL;
      qv_exec_op *first = s->op->children[0];
      if (st == QV_OK && !distinct_rewrite && strcmp(first->vt->name, "CsrExpandExec") == 0 &&
          !reads_cols(s, it, n, order, qv_exec_schema(first->children[0])->n_fields, qv_exec_schema(first)->n_fields))
        st = qvg_expand_count_chain(s->op, &root, p->err);
      if (root) s->op = root;
      qvg_colkind wk = QVG_COL_NODE; /* a plain int64 column */
      int32_t n_in = qv_exec_schema(s->op->children[0])->n_fields;
      s->n_cols = n_in;
      if (st == QV_OK) st = adopt(p, s, s->op, &wk, 1);
    }
    const qvg_cx *cx[MAX_COLS];
    const char *names[MAX_COLS];
    qvg_out_mode modes[MAX_COLS];
    qvg_agg_spec specs[MAX_COLS];
    int32_t ne = 0;
    for (int32_t i = 0; i < n && st == QV_OK; i++) {
      if (it[i].agg) continue;
      qvg_cx *c;
      st = compile_full(p, s, it[i].e, &c);
      cx[ne] = c;
      names[ne] = it[i].col;
      modes[ne++] = it[i].mode;
    }
    int32_t n_keys = ne;
    for (int32_t a = 0; a < n_aggs && st == QV_OK; a++) {
      st = agg_spec(p, aggs[a], &specs[a]);
      specs[a].name = qvg_hidden_name(p);
      if (distinct_rewrite) { /* counted by the hop: a sum of its counts */
        specs[a].fn = QVG_AGG_COUNT_STAR;
        specs[a].distinct = false;
        continue;
      }
      if (st == QV_OK && aggs[a]->kind != QVG_COUNT_STAR) {
        qvg_cx *c;
        st = compile_full(p, s, aggs[a]->kids[0], &c);
        cx[ne] = c;
        names[ne] = qvg_hidden_name(p);
        modes[ne++] = QVG_OUT_VALUE;
      }
    }
    if (st == QV_OK && ne > 0) st = add_eval(p, s, cx, names, modes, ne);
    int32_t key_cols[MAX_COLS];
    qvg_colkind kk[MAX_COLS];
    for (int32_t i = 0; i < n_keys && st == QV_OK; i++) {
      key_cols[i] = qvg_scope_col(s, names[i]);
      kk[i] = s->kinds[key_cols[i]];
    }
    for (int32_t a = 0, arg = n_keys; a < n_aggs && st == QV_OK; a++) {
      if (aggs[a]->kind != QVG_COUNT_STAR && !distinct_rewrite) specs[a].arg_col = qvg_scope_col(s, names[arg++]);
      else if (weight) specs[a].weight_col = qvg_scope_col(s, weight);
    }
    qv_exec_op *agg = NULL;
    if (st == QV_OK) {
      qv_exec_op *child = s->op;
      s->op = NULL;
      st = qvg_op_aggregate(p->ctx, child, s->kinds, key_cols, n_keys, specs, n_aggs, &agg, p->err);
    }
    for (int32_t a = n_keys; a < n_keys + n_aggs; a++) kk[a] = QVG_COL_VALUE;
    if (st == QV_OK) st = adopt_all(p, s, agg, kk, n_keys + n_aggs);
    /* after grouping: the keys' variables, the aggregates bound */
    qvg_scope gs = *s;
    gs.n_vars = 0;
    gs.vars = NULL;
    for (int32_t i = 0; i < n && st == QV_OK; i++)
      if (!it[i].agg && it[i].e->kind == QVG_VAR) st = add_var(p, &gs, it[i].e->str, it[i].col, it[i].label);
    for (int32_t a = 0; a < n_aggs && st == QV_OK; a++) st = qvg_bind_expr(p, aggs[a], specs[a].name);
    /* the keys' expressions read their columns from here on */
    for (int32_t i = 0; i < n; i++)
      if (!it[i].agg) key_texts[n_kt] = it[i].text, key_names[n_kt++] = it[i].col;
    p->n_key_texts = n_kt;
    p->key_texts = key_texts;
    p->key_cols = key_names;
    /* items over aggregates (direct: every item, under its alias) */
    ne = 0;
    for (int32_t i = 0; i < n && st == QV_OK; i++) {
      qvg_cx *c;
      if (!it[i].agg) {
        if (!direct) continue;
        if (!(c = cx_col(p, qvg_scope_col(&gs, it[i].col)))) st = NOMEM(p);
        modes[ne] = it[i].mode;
      } else {
        st = compile_full(p, &gs, it[i].e, &c);
        modes[ne] = QVG_OUT_VALUE;
      }
      cx[ne] = c;
      names[ne++] = direct ? it[i].alias : it[i].col;
    }
    if (st == QV_OK && direct) {
      st = eval_only(p, &gs, cx, names, modes, ne);
      for (int32_t i = 0; i < n; i++) it[i].col = it[i].alias;
    } else if (st == QV_OK && ne) {
      st = add_eval(p, &gs, cx, names, modes, ne);
    }
    if (st == QV_OK) *s = gs;
    if (st == QV_OK && distinct) {
      const char *cols[MAX_COLS];
      for (int32_t i = 0; i < n; i++) cols[i] = it[i].col;
      if (!direct) st = select_cols(p, s, cols, cols, n);
      if (st == QV_OK) st = add_distinct(p, s);
    }
    os = *s;
  }
  /* aliases are visible to ORDER BY */
  for (int32_t i = 0; i < n && st == QV_OK; i++) st = add_var(p, &os, it[i].alias, it[i].col, it[i].label);
  if (st == QV_OK && order) {
    const qvg_cx *cx[MAX_COLS];
    const char *names[MAX_COLS];
    qvg_out_mode modes[MAX_COLS];
    qv_sort_key keys[MAX_COLS];
    int32_t no = order->n_kids < MAX_COLS ? order->n_kids : MAX_COLS;
    for (int32_t i = 0; i < no && st == QV_OK; i++) {
      const qvg_node *e = order->kids[i]->kids[0];
      char *t = qvg_cypher_print(e);
      for (int32_t j = 0; t && j < n; j++)
        if (it[j].text && strcmp(t, it[j].text) == 0) {
          st = qvg_bind_expr(p, e, it[j].col);
          break;
        }
      qv_free(t);
      qvg_cx *c = NULL;
      if (st == QV_OK) st = compile_full(p, &os, e, &c);
      cx[i] = c;
      names[i] = qvg_hidden_name(p);
      modes[i] = QVG_OUT_SORTKEY;
      keys[i].column = names[i];
      keys[i].descending = (order->kids[i]->flags & QVG_F_DESC) != 0;
      keys[i].nulls_first = false;
    }
    if (st == QV_OK) {
      st = add_eval(p, &os, cx, names, modes, no);
      *s = os;
    }
    int64_t sk = 0, lim = -1;
    if (st == QV_OK && skip) st = const_count(p, skip, "SKIP", &sk);
    if (st == QV_OK && limit) st = const_count(p, limit, "LIMIT", &lim);
    qv_exec_op *sorted = NULL;
    if (st == QV_OK) {
      qv_exec_op *child = s->op;
      s->op = NULL;
      st = lim >= 0 ? qv_exec_topk(p->ctx, child, keys, no, sk + lim, &sorted, p->err)
                    : qv_exec_sort(p->ctx, child, keys, no, &sorted, p->err);
    }
    if (st == QV_OK) st = adopt(p, s, sorted, NULL, 0);
    if (st == QV_OK) st = add_limit(p, s, sk, lim);
  } else if (st == QV_OK && (skip || limit)) {
    int64_t sk = 0, lim = -1;
    if (skip) st = const_count(p, skip, "SKIP", &sk);
    if (st == QV_OK && limit) st = const_count(p, limit, "LIMIT", &lim);
    if (st == QV_OK) st = add_limit(p, s, sk, lim);
  }
  /* WITH's WHERE sees what ORDER BY sees (the variables before the
   * projection too), after SKIP and LIMIT */
  if (st == QV_OK && where) {
    qvg_scope ws = *s;
    ws.vars = os.vars;
    ws.n_vars = os.n_vars;
    qvg_cx *c;
    st = compile_full(p, &ws, where, &c);
    if (st == QV_OK) st = add_filter(p, &ws, c);
    s->op = ws.op;
    s->n_cols = ws.n_cols;
    s->kinds = ws.kinds;
    s->names = ws.names;
  }
  p->n_key_texts = 0;
  /* exactly the items, under their aliases */
  if (st == QV_OK) {
    const char *cols[MAX_COLS], *aliases[MAX_COLS];
    for (int32_t i = 0; i < n; i++) cols[i] = it[i].col, aliases[i] = it[i].alias;
    if (!direct) st = select_cols(p, s, cols, aliases, n);
    s->n_vars = 0;
    s->vars = NULL;
    for (int32_t i = 0; i < n && st == QV_OK; i++) {
      st = add_var(p, s, it[i].alias, it[i].alias, it[i].label);
      if (st == QV_OK) s->vars[s->n_vars - 1].type = it[i].type;
    }
  }
  p->n_key_texts = 0;
  free_items(it, n);
  return st;
}

/* ---- UNWIND and CREATE ------------------------------------------------------------------- */

static qv_status plan_unwind(qvg_planner *p, qvg_scope *s, const qvg_node *cl) {
  QV_RETURN_NOT_OK(ensure_op(p, s));
  if (qvg_scope_var(s, cl->str))
    return qvg_plan_fail(p, cl, QV_ERR_INVALID, "variable `%s` is already declared", cl->str);
  qvg_cx *c;
  QV_RETURN_NOT_OK(compile_full(p, s, cl->kids[0], &c));
  const char *col = qvg_hidden_name(p);
  QV_RETURN_NOT_OK(add_eval1(p, s, c, col, QVG_OUT_VALUE));
  qv_exec_op *child = s->op, *op;
  s->op = NULL;
  QV_RETURN_NOT_OK(qvg_op_unwind(p->ctx, child, s->kinds, qvg_scope_col(s, col), cl->str, &op, p->err));
  qvg_colkind k = QVG_COL_VALUE;
  QV_RETURN_NOT_OK(adopt(p, s, op, &k, 1));
  return add_var(p, s, cl->str, cl->str, -1);
}

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
  qvg_colkind k[MAX_COLS];
  int32_t nk = 0;
  if (!items || !cols) return NOMEM(p);
  if (n > MAX_COLS) return qvg_plan_fail(p, elems[0], QV_ERR_UNSUPPORTED, "a path of more than %d elements", MAX_COLS);
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
      QV_RETURN_NOT_OK(node_col(p, s, el->str, &col));
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
      if (!ci->labels) return NOMEM(p);
      for (int32_t j = 0; j < ci->n_labels; j++) ci->labels[j] = labels->kids[j]->str;
    }
    if (el->kids[1]) {
      qvg_cx *c;
      QV_RETURN_NOT_OK(compile_full(p, s, el->kids[1], &c));
      ci->props = c;
    }
    ci->dir = el->op;
    k[nk++] = ci->is_rel ? QVG_COL_REL : QVG_COL_NODE;
  }
  qv_exec_op *child = s->op, *op;
  s->op = NULL;
  QV_RETURN_NOT_OK(qvg_op_create(p->ctx, child, p->st, s->kinds, items, n, p->max_locals, &op, p->err));
  QV_RETURN_NOT_OK(adopt(p, s, op, k, nk));
  for (int32_t i = 0; i < n; i++)
    if (items[i].name) QV_RETURN_NOT_OK(add_var(p, s, items[i].name, items[i].name, -1));
  if (path_name) {
    uint8_t *dirs = qvg_arena_alloc(p->arena, (size_t)(n / 2 + 1));
    if (!dirs) return NOMEM(p);
    for (int32_t i = 1; i < n; i += 2) dirs[i / 2] = (uint8_t)elems[i]->op;
    QV_RETURN_NOT_OK(add_var(p, s, path_name, NULL, -1));
    qvg_pvar *v = &s->vars[s->n_vars - 1];
    v->path_cols = cols;
    v->n_path = n;
    v->path_dirs = dirs;
  }
  return QV_OK;
}

static qv_status plan_create(qvg_planner *p, qvg_scope *s, const qvg_node *cl) {
  if (!p->st->mem)
    return qvg_plan_fail(p, cl, QV_ERR_INVALID, "the graph is read-only (it is declared over datasets): CREATE");
  QV_RETURN_NOT_OK(ensure_op(p, s));
  const qvg_node *pattern = cl->kids[0];
  /* a new node named twice in the pattern ((a)-[:R]->(a)) is created
   * first, on its own, so every mention finds it bound */
  const qvg_node *hoisted[MAX_COLS];
  int32_t n_hoisted = 0;
  for (int32_t pi = 0; pi < pattern->n_kids; pi++) {
    const qvg_node *path = pattern->kids[pi];
    for (int32_t i = 0; i < path->n_kids; i += 2) {
      const qvg_node *el = path->kids[i];
      if (!el->str || qvg_scope_var(s, el->str) || n_hoisted == MAX_COLS) continue;
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

/* ---- queries ---------------------------------------------------------------------------------- */

static qv_status plan_single(qvg_planner *p, const qvg_node *q, qvg_scope *s, qv_type_id **types) {
  bool returned = false, updated = false;
  *types = NULL;
  for (int32_t i = 0; i < q->n_kids; i++) {
    const qvg_node *cl = q->kids[i];
    if (returned) return qvg_plan_fail(p, cl, QV_ERR_INVALID, "RETURN can only be the last clause");
    switch (cl->kind) {
      case QVG_MATCH:
        if (cl->flags & QVG_F_OPTIONAL) {
          const char *unused;
          QV_RETURN_NOT_OK(plan_apply(p, s, QVG_APPLY_OPTIONAL, (const qvg_node *const *)cl->kids[0]->kids,
                                      cl->kids[0]->n_kids, cl->kids[1], NULL, &unused));
        } else {
          QV_RETURN_NOT_OK(
              plan_match(p, s, (const qvg_node *const *)cl->kids[0]->kids, cl->kids[0]->n_kids, cl->kids[1]));
        }
        break;
      case QVG_UNWIND: QV_RETURN_NOT_OK(plan_unwind(p, s, cl)); break;
      case QVG_WITH: QV_RETURN_NOT_OK(plan_projection(p, s, cl, false, NULL)); break;
      case QVG_RETURN:
        QV_RETURN_NOT_OK(plan_projection(p, s, cl, true, types));
        returned = true;
        break;
      case QVG_CREATE:
        QV_RETURN_NOT_OK(plan_create(p, s, cl));
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
  QV_RETURN_NOT_OK(add_filter(p, s, cx_lit(p, qvg_bool(false))));
  QV_RETURN_NOT_OK(select_cols(p, s, NULL, NULL, 0));
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
  const char *cols[MAX_COLS];
  for (int32_t i = 0; i < l.n_cols && st == QV_OK; i++) {
    if (qvg_scope_col(&r, l.names[i]) < 0)
      st = qvg_plan_fail(p, q, QV_ERR_INVALID, "all sub queries in a UNION must have the same column names");
    cols[i] = l.names[i];
  }
  /* one kind per column on both sides: differing ones become values */
  for (int32_t side = 0; side < 2 && st == QV_OK; side++) {
    qvg_scope *x = side ? &r : &l, *o = side ? &l : &r;
    const qvg_cx *cx[MAX_COLS];
    const char *names[MAX_COLS], *sel[MAX_COLS];
    qvg_out_mode modes[MAX_COLS];
    int32_t ne = 0;
    for (int32_t i = 0; i < l.n_cols; i++) {
      int32_t c = qvg_scope_col(x, cols[i]), oc = qvg_scope_col(o, cols[i]);
      sel[i] = cols[i];
      if (x->kinds[c] != o->kinds[oc] && x->kinds[c] != QVG_COL_VALUE) {
        cx[ne] = cx_col(p, c);
        names[ne] = qvg_hidden_name(p);
        sel[i] = names[ne];
        modes[ne++] = QVG_OUT_VALUE;
      }
    }
    if (ne) st = add_eval(p, x, cx, names, modes, ne);
    if (st == QV_OK && (ne || side)) st = select_cols(p, x, sel, cols, l.n_cols);
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
  QV_RETURN_NOT_OK(adopt(p, s, u, NULL, 0));
  if (!(q->flags & QVG_F_ALL)) st = add_distinct(p, s);
  qv_type_id *t = qvg_arena_alloc(p->arena, (size_t)(s->n_cols ? s->n_cols : 1) * sizeof *t);
  if (!t) return NOMEM(p);
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
