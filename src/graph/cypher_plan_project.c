/* The Cypher planner's WITH, RETURN and UNWIND: projection
 * (CypherProjectExec), aggregation (CypherAggregateExec, or the count
 * modes of the last hops when only counts are asked for), DISTINCT
 * (HashAggregateExec on the encoded values), ORDER BY (SortExec or TopKExec
 * on memcomparable keys), SKIP / LIMIT (LimitExec), and UNWIND
 * (CypherUnwindExec). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "graph/cypher_plan_int.h"

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
qv_status qvg_plan_projection(qvg_planner *p, qvg_scope *s, const qvg_node *cl, bool is_return, qv_type_id **types) {
  QV_RETURN_NOT_OK(qvg_ensure_op(p, s));
  const qvg_node *items = cl->kids[0], *order = cl->kids[1], *skip = cl->kids[2], *limit = cl->kids[3];
  const qvg_node *where = cl->kind == QVG_WITH ? cl->kids[4] : NULL;
  bool distinct = (cl->flags & QVG_F_DISTINCT) != 0;
  int32_t n_star = 0;
  if (items->flags & QVG_F_STAR)
    for (int32_t i = 0; i < s->n_vars; i++) n_star += !qvg_is_hidden(s->vars[i].name);
  int32_t n = n_star + items->n_kids;
  if (n == 0)
    return qvg_plan_fail(p, cl, QV_ERR_INVALID, "%s * with no variables in scope", is_return ? "RETURN" : "WITH");
  if (n > QVG_MAX_COLS) return qvg_plan_fail(p, cl, QV_ERR_UNSUPPORTED, "more than %d items", QVG_MAX_COLS);
  item *it = qv_calloc((size_t)n, sizeof *it);
  if (!it) return QVG_NOMEM(p);
  qv_status st = QV_OK;
  int32_t k = 0;
  if (items->flags & QVG_F_STAR) {
    for (int32_t i = 0; i < s->n_vars; i++) {
      const char *nm = s->vars[i].name;
      if (qvg_is_hidden(nm)) continue;
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
      st = QVG_NOMEM(p);
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
    if (!*types) st = QVG_NOMEM(p);
    for (int32_t i = 0; i < n && st == QV_OK; i++) (*types)[i] = it[i].type;
  }
  /* without ORDER BY or WHERE the last projection makes the items under
   * their aliases at once (no renaming projection after it) */
  bool direct = !order && !where;
  qvg_scope os = *s; /* where ORDER BY is compiled */
  char *key_texts[QVG_MAX_COLS];
  const char *key_names[QVG_MAX_COLS];
  int32_t n_kt = 0;
  if (st == QV_OK && !any_agg) {
    const qvg_cx *cx[QVG_MAX_COLS];
    const char *names[QVG_MAX_COLS];
    qvg_out_mode modes[QVG_MAX_COLS];
    for (int32_t i = 0; i < n && st == QV_OK; i++) {
      qvg_cx *c;
      st = qvg_compile_full(p, s, it[i].e, &c);
      cx[i] = c;
      names[i] = it[i].col;
      modes[i] = it[i].mode;
    }
    if (st == QV_OK && direct) {
      for (int32_t i = 0; i < n; i++) names[i] = it[i].col = it[i].alias;
      st = qvg_eval_only(p, s, cx, names, modes, n);
    } else if (st == QV_OK) {
      st = qvg_add_eval(p, s, cx, names, modes, n);
    }
    if (st == QV_OK && distinct) {
      if (!direct) st = qvg_select_cols(p, s, names, names, n);
      if (st == QV_OK) st = qvg_add_distinct(p, s);
      os = *s;
      os.n_vars = 0;
      os.vars = NULL;
    } else {
      os = *s;
    }
  } else if (st == QV_OK) {
    /* grouping keys and aggregate arguments, then the aggregate */
    const qvg_node *aggs[QVG_MAX_COLS];
    int32_t n_aggs = 0;
    for (int32_t i = 0; i < n; i++)
      if (it[i].agg) collect_aggs(it[i].e, aggs, &n_aggs, QVG_MAX_COLS);
    if (order)
      for (int32_t i = 0; i < order->n_kids; i++) collect_aggs(order->kids[i]->kids[0], aggs, &n_aggs, QVG_MAX_COLS);
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
      if (st == QV_OK) st = qvg_adopt(p, s, s->op, &wk, 1);
    }
    const qvg_cx *cx[QVG_MAX_COLS];
    const char *names[QVG_MAX_COLS];
    qvg_out_mode modes[QVG_MAX_COLS];
    qvg_agg_spec specs[QVG_MAX_COLS];
    int32_t ne = 0;
    for (int32_t i = 0; i < n && st == QV_OK; i++) {
      if (it[i].agg) continue;
      qvg_cx *c;
      st = qvg_compile_full(p, s, it[i].e, &c);
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
        st = qvg_compile_full(p, s, aggs[a]->kids[0], &c);
        cx[ne] = c;
        names[ne] = qvg_hidden_name(p);
        modes[ne++] = QVG_OUT_VALUE;
      }
    }
    if (st == QV_OK && ne > 0) st = qvg_add_eval(p, s, cx, names, modes, ne);
    int32_t key_cols[QVG_MAX_COLS];
    qvg_colkind kk[QVG_MAX_COLS];
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
    if (st == QV_OK) st = qvg_adopt_all(p, s, agg, kk, n_keys + n_aggs);
    /* after grouping: the keys' variables, the aggregates bound */
    qvg_scope gs = *s;
    gs.n_vars = 0;
    gs.vars = NULL;
    for (int32_t i = 0; i < n && st == QV_OK; i++)
      if (!it[i].agg && it[i].e->kind == QVG_VAR) st = qvg_add_var(p, &gs, it[i].e->str, it[i].col, it[i].label);
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
        if (!(c = qvg_cx_col(p, qvg_scope_col(&gs, it[i].col)))) st = QVG_NOMEM(p);
        modes[ne] = it[i].mode;
      } else {
        st = qvg_compile_full(p, &gs, it[i].e, &c);
        modes[ne] = QVG_OUT_VALUE;
      }
      cx[ne] = c;
      names[ne++] = direct ? it[i].alias : it[i].col;
    }
    if (st == QV_OK && direct) {
      st = qvg_eval_only(p, &gs, cx, names, modes, ne);
      for (int32_t i = 0; i < n; i++) it[i].col = it[i].alias;
    } else if (st == QV_OK && ne) {
      st = qvg_add_eval(p, &gs, cx, names, modes, ne);
    }
    if (st == QV_OK) *s = gs;
    if (st == QV_OK && distinct) {
      const char *cols[QVG_MAX_COLS];
      for (int32_t i = 0; i < n; i++) cols[i] = it[i].col;
      if (!direct) st = qvg_select_cols(p, s, cols, cols, n);
      if (st == QV_OK) st = qvg_add_distinct(p, s);
    }
    os = *s;
  }
  /* aliases are visible to ORDER BY */
  for (int32_t i = 0; i < n && st == QV_OK; i++) st = qvg_add_var(p, &os, it[i].alias, it[i].col, it[i].label);
  if (st == QV_OK && order) {
    const qvg_cx *cx[QVG_MAX_COLS];
    const char *names[QVG_MAX_COLS];
    qvg_out_mode modes[QVG_MAX_COLS];
    qv_sort_key keys[QVG_MAX_COLS];
    int32_t no = order->n_kids < QVG_MAX_COLS ? order->n_kids : QVG_MAX_COLS;
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
      if (st == QV_OK) st = qvg_compile_full(p, &os, e, &c);
      cx[i] = c;
      names[i] = qvg_hidden_name(p);
      modes[i] = QVG_OUT_SORTKEY;
      keys[i].column = names[i];
      keys[i].descending = (order->kids[i]->flags & QVG_F_DESC) != 0;
      keys[i].nulls_first = false;
    }
    if (st == QV_OK) {
      st = qvg_add_eval(p, &os, cx, names, modes, no);
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
    if (st == QV_OK) st = qvg_adopt(p, s, sorted, NULL, 0);
    if (st == QV_OK) st = qvg_add_limit(p, s, sk, lim);
  } else if (st == QV_OK && (skip || limit)) {
    int64_t sk = 0, lim = -1;
    if (skip) st = const_count(p, skip, "SKIP", &sk);
    if (st == QV_OK && limit) st = const_count(p, limit, "LIMIT", &lim);
    if (st == QV_OK) st = qvg_add_limit(p, s, sk, lim);
  }
  /* WITH's WHERE sees what ORDER BY sees (the variables before the
   * projection too), after SKIP and LIMIT */
  if (st == QV_OK && where) {
    qvg_scope ws = *s;
    ws.vars = os.vars;
    ws.n_vars = os.n_vars;
    qvg_cx *c;
    st = qvg_compile_full(p, &ws, where, &c);
    if (st == QV_OK) st = qvg_add_filter(p, &ws, c);
    s->op = ws.op;
    s->n_cols = ws.n_cols;
    s->kinds = ws.kinds;
    s->names = ws.names;
  }
  p->n_key_texts = 0;
  /* exactly the items, under their aliases */
  if (st == QV_OK) {
    const char *cols[QVG_MAX_COLS], *aliases[QVG_MAX_COLS];
    for (int32_t i = 0; i < n; i++) cols[i] = it[i].col, aliases[i] = it[i].alias;
    if (!direct) st = qvg_select_cols(p, s, cols, aliases, n);
    s->n_vars = 0;
    s->vars = NULL;
    for (int32_t i = 0; i < n && st == QV_OK; i++) {
      st = qvg_add_var(p, s, it[i].alias, it[i].alias, it[i].label);
      if (st == QV_OK) s->vars[s->n_vars - 1].type = it[i].type;
    }
  }
  p->n_key_texts = 0;
  free_items(it, n);
  return st;
}

/* ---- UNWIND ---- */

qv_status qvg_plan_unwind(qvg_planner *p, qvg_scope *s, const qvg_node *cl) {
  QV_RETURN_NOT_OK(qvg_ensure_op(p, s));
  if (qvg_scope_var(s, cl->str))
    return qvg_plan_fail(p, cl, QV_ERR_INVALID, "variable `%s` is already declared", cl->str);
  qvg_cx *c;
  QV_RETURN_NOT_OK(qvg_compile_full(p, s, cl->kids[0], &c));
  const char *col = qvg_hidden_name(p);
  QV_RETURN_NOT_OK(qvg_add_eval1(p, s, c, col, QVG_OUT_VALUE));
  qv_exec_op *child = s->op, *op;
  s->op = NULL;
  QV_RETURN_NOT_OK(qvg_op_unwind(p->ctx, child, s->kinds, qvg_scope_col(s, col), cl->str, &op, p->err));
  qvg_colkind k = QVG_COL_VALUE;
  QV_RETURN_NOT_OK(qvg_adopt(p, s, op, &k, 1));
  return qvg_add_var(p, s, cl->str, cl->str, -1);
}
