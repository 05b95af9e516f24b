/* The Cypher binder: expressions of the syntax tree compiled into qvg_cx
 * trees against a scope (variables -> columns, comprehension variables ->
 * local slots, parameters and literals -> values, names -> function ids),
 * with the semantic errors a user meets first: unknown variables,
 * functions, labels and properties (with the closest names offered),
 * aggregates where none may be. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "graph/cypher_plan_int.h"

const char *qvg_hidden_name(qvg_planner *p) {
  char buf[32];
  int n = snprintf(buf, sizeof buf, QVG_HIDDEN "%lld", (long long)++p->hidden);
  return qvg_pstrdup(p, buf, (size_t)n);
}

char *qvg_pstrdup(qvg_planner *p, const char *s, size_t n) {
  char *d = qvg_arena_alloc(p->arena, n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

qv_status qvg_plan_fail(qvg_planner *p, const qvg_node *at, qv_status code, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (at && at->line > 0)
    return qv_error_set(p->err, code, "cypher: %s at line %d, column %d", msg, (int)at->line, (int)at->col);
  return qv_error_set(p->err, code, "cypher: %s", msg);
}

const qvg_pvar *qvg_scope_var(const qvg_scope *s, const char *name) {
  for (int32_t i = s->n_vars - 1; i >= 0; i--)
    if (strcmp(s->vars[i].name, name) == 0) return &s->vars[i];
  return NULL;
}

int32_t qvg_scope_col(const qvg_scope *s, const char *name) {
  for (int32_t i = s->n_cols - 1; i >= 0; i--)
    if (strcmp(s->names[i], name) == 0) return i;
  return -1;
}

qv_status qvg_bind_expr(qvg_planner *p, const qvg_node *ast, const char *col) {
  if (p->n_bound == p->cap_bound) {
    int32_t cap = p->cap_bound ? 2 * p->cap_bound : 16;
    qvg_bound_expr *b = qv_realloc(p->bound, (size_t)cap * sizeof *b);
    if (!b) return qv_error_nomem(p->err, "cypher planner");
    p->bound = b;
    p->cap_bound = cap;
  }
  p->bound[p->n_bound].ast = ast;
  p->bound[p->n_bound].col = col;
  p->n_bound++;
  return QV_OK;
}

static const char *bound_col(const qvg_planner *p, const qvg_node *e) {
  for (int32_t i = p->n_bound - 1; i >= 0; i--)
    if (p->bound[i].ast == e) return p->bound[i].col;
  return NULL;
}

bool qvg_is_agg_call(const qvg_node *e) {
  return e->kind == QVG_COUNT_STAR || (e->kind == QVG_CALL_FN && qvg_is_aggregate(e->str));
}

bool qvg_has_aggregate(const qvg_node *e) {
  if (!e) return false;
  if (qvg_is_agg_call(e)) return true;
  /* subqueries aggregate on their own */
  if (e->kind == QVG_EXISTS || e->kind == QVG_COUNT_SUB || e->kind == QVG_PAT_COMP || e->kind == QVG_PAT_PRED)
    return false;
  for (int32_t i = 0; i < e->n_kids; i++)
    if (qvg_has_aggregate(e->kids[i])) return true;
  return false;
}

static bool name_in(const char *const *names, int32_t n, const char *s) {
  for (int32_t i = 0; i < n; i++)
    if (strcmp(names[i], s) == 0) return true;
  return false;
}

/* Variables read by e; locals collects the comprehension variables in
 * force so that they are not counted. */
static void vars_rec(const qvg_node *e, const char **names, int32_t *n, int32_t cap, const char **locals,
                     int32_t n_locals) {
  if (!e) return;
  switch (e->kind) {
    case QVG_VAR:
      if (!name_in(locals, n_locals, e->str) && !name_in(names, *n, e->str) && *n < cap) names[(*n)++] = e->str;
      return;
    case QVG_LIST_COMP:
    case QVG_QUANT: {
      vars_rec(e->kids[0], names, n, cap, locals, n_locals);
      if (n_locals < QVG_CYPHER_MAX_DEPTH) locals[n_locals++] = e->str;
      for (int32_t i = 1; i < e->n_kids; i++) vars_rec(e->kids[i], names, n, cap, locals, n_locals);
      return;
    }
    case QVG_REDUCE: {
      vars_rec(e->kids[0], names, n, cap, locals, n_locals);
      vars_rec(e->kids[2], names, n, cap, locals, n_locals);
      if (n_locals + 2 <= QVG_CYPHER_MAX_DEPTH) {
        locals[n_locals++] = e->str;
        locals[n_locals++] = e->kids[1]->str;
      }
      vars_rec(e->kids[3], names, n, cap, locals, n_locals);
      return;
    }
    case QVG_NODE:
    case QVG_REL:
      if (e->str && !name_in(locals, n_locals, e->str) && !name_in(names, *n, e->str) && *n < cap)
        names[(*n)++] = e->str;
      break;
    default: break;
  }
  for (int32_t i = 0; i < e->n_kids; i++) vars_rec(e->kids[i], names, n, cap, locals, n_locals);
}

void qvg_vars_of(const qvg_node *e, const char **names, int32_t *n, int32_t cap) {
  const char *locals[QVG_CYPHER_MAX_DEPTH];
  vars_rec(e, names, n, cap, locals, 0);
}

/* ---- close matches ---- */

static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return 99;
  size_t row[65];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t cost = (a[i - 1] | 32) == (b[j - 1] | 32) ? 0 : 1;
      size_t best = diag + cost;
      if (row[j] + 1 < best) best = row[j] + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

/* Offered within an edit distance of a third of the name. */
const char *qvg_suggest(const char *name, const char *const *cands, int32_t n, char *buf, size_t size) {
  size_t best = 99;
  const char *pick = NULL;
  for (int32_t i = 0; i < n; i++) {
    size_t d = edit_distance(name, cands[i]);
    if (d < best) best = d, pick = cands[i];
  }
  size_t limit = strlen(name) / 3 + 1;
  if (pick && best <= limit) snprintf(buf, size, " (did you mean `%s`?)", pick);
  else buf[0] = '\0';
  return buf;
}

/* ---- compiling ---- */

qvg_cx *qvg_cx_new(qvg_planner *p, int kind, const qvg_node *at, int32_t n_kids) {
  qvg_cx *c = qvg_arena_alloc(p->arena, sizeof *c);
  if (!c) return NULL;
  memset(c, 0, sizeof *c);
  c->kind = (uint16_t)kind;
  c->col = -1;
  c->slot = c->slot2 = -1;
  if (at) {
    c->line = at->line;
    c->col0 = at->col;
  }
  if (n_kids > 0) {
    c->kids = qvg_arena_alloc(p->arena, (size_t)n_kids * sizeof *c->kids);
    if (!c->kids) return NULL;
    memset(c->kids, 0, (size_t)n_kids * sizeof *c->kids);
  }
  c->n_kids = n_kids;
  return c;
}

static qv_status compile(qvg_planner *p, const qvg_scope *s, const qvg_node *e, qvg_cx **out);

static qv_status compile_kids(qvg_planner *p, const qvg_scope *s, const qvg_node *e, qvg_cx *c, int32_t from) {
  for (int32_t i = from; i < e->n_kids; i++) {
    if (!e->kids[i]) continue;
    qv_status st = compile(p, s, e->kids[i], &c->kids[i - from]);
    if (st != QV_OK) return st;
  }
  return QV_OK;
}

static int32_t local_slot(const qvg_planner *p, const char *name) {
  for (int32_t i = p->n_locals - 1; i >= 0; i--)
    if (strcmp(p->locals[i], name) == 0) return i;
  return -1;
}

static qv_status push_local(qvg_planner *p, const qvg_node *at, const char *name, int32_t *slot) {
  if (p->n_locals >= QVG_CYPHER_MAX_DEPTH)
    return qvg_plan_fail(p, at, QV_ERR_INVALID, "comprehensions nested too deeply");
  *slot = p->n_locals;
  p->locals[p->n_locals++] = name;
  if (p->n_locals > p->max_locals) p->max_locals = p->n_locals;
  return QV_OK;
}

/* A column reference, or a path variable compiled from its columns. */
static qv_status compile_var(qvg_planner *p, const qvg_scope *s, const qvg_node *e, qvg_cx **out) {
  int32_t slot = local_slot(p, e->str);
  if (slot >= 0) {
    qvg_cx *c = qvg_cx_new(p, QVG_CX_LOCAL, e, 0);
    if (!c) return qv_error_nomem(p->err, "cypher planner");
    c->slot = slot;
    *out = c;
    return QV_OK;
  }
  const qvg_pvar *v = qvg_scope_var(s, e->str);
  if (!v) {
    const char *names[64];
    int32_t n = 0;
    for (int32_t i = 0; i < s->n_vars && n < 64; i++)
      if (s->vars[i].name[0] != '#') names[n++] = s->vars[i].name;
    char hint[128];
    return qvg_plan_fail(p, e, QV_ERR_INVALID, "variable `%s` not defined%s", e->str,
                         qvg_suggest(e->str, names, n, hint, sizeof hint));
  }
  if (v->col) {
    int32_t col = qvg_scope_col(s, v->col);
    if (col < 0) return qvg_plan_fail(p, e, QV_ERR_INVALID, "variable `%s` lost its column", e->str);
    qvg_cx *c = qvg_cx_new(p, QVG_CX_COL, e, 0);
    if (!c) return qv_error_nomem(p->err, "cypher planner");
    c->col = col;
    *out = c;
    return QV_OK;
  }
  qvg_cx *c = qvg_cx_new(p, QVG_CX_PATH, e, v->n_path);
  if (!c) return qv_error_nomem(p->err, "cypher planner");
  c->dirs = v->path_dirs;
  for (int32_t i = 0; i < v->n_path; i++) {
    qvg_cx *k = qvg_cx_new(p, QVG_CX_COL, e, 0);
    if (!k) return qv_error_nomem(p->err, "cypher planner");
    k->col = qvg_scope_col(s, v->path_cols[i]);
    if (k->col < 0) return qvg_plan_fail(p, e, QV_ERR_INVALID, "path `%s` lost a column", e->str);
    c->kids[i] = k;
  }
  *out = c;
  return QV_OK;
}

/* n.key where n's label is known on a store with a schema: the key must
 * be one of the label's properties. */
static qv_status check_property(qvg_planner *p, const qvg_scope *s, const qvg_node *e) {
  if (!p->st->g || e->kids[0]->kind != QVG_VAR) return QV_OK;
  const qvg_pvar *v = qvg_scope_var(s, e->kids[0]->str);
  if (!v || v->label < 0 || !v->col) return QV_OK;
  int32_t col = qvg_scope_col(s, v->col);
  if (col < 0) return QV_OK;
  const char *const *keys = NULL;
  int32_t n;
  if (s->kinds[col] == QVG_COL_NODE) n = qvg_store_label_keys(p->st, v->label, &keys);
  else if (s->kinds[col] == QVG_COL_REL) n = qvg_store_type_keys(p->st, v->label, &keys);
  else return QV_OK;
  for (int32_t i = 0; i < n; i++)
    if (strcmp(keys[i], e->str) == 0) return QV_OK;
  char hint[128];
  const char *owner = s->kinds[col] == QVG_COL_NODE ? p->st->labels[v->label] : p->st->types[v->label];
  return qvg_plan_fail(p, e, QV_ERR_INVALID, "unknown property `%s` of %s `%s`%s", e->str,
                       s->kinds[col] == QVG_COL_NODE ? "label" : "relationship type", owner,
                       qvg_suggest(e->str, keys, n, hint, sizeof hint));
}

static qv_status compile_fn(qvg_planner *p, const qvg_scope *s, const qvg_node *e, qvg_cx **out) {
  if (qvg_is_aggregate(e->str))
    return qvg_plan_fail(p, e, QV_ERR_INVALID, "aggregate %s(...) is not allowed here", e->str);
  int32_t lo, hi;
  int fn = qvg_fn_lookup(e->str, &lo, &hi);
  if (!fn) {
    static const char *const known[] = {"id",        "labels",  "type",    "properties",    "keys",      "coalesce",
                                        "size",      "length",  "nodes",   "relationships", "head",      "last",
                                        "tail",      "range",   "reverse", "toInteger",     "toFloat",   "toString",
                                        "toBoolean", "abs",     "ceil",    "floor",         "round",     "sqrt",
                                        "toUpper",   "toLower", "trim",    "replace",       "substring", "split",
                                        "startNode", "endNode", "sign",    "exp",           "log",       "rand"};
    char hint[128];
    return qvg_plan_fail(p, e, QV_ERR_INVALID, "unknown function %s()%s", e->str,
                         qvg_suggest(e->str, known, (int32_t)(sizeof known / sizeof *known), hint, sizeof hint));
  }
  if (e->n_kids < lo || (hi >= 0 && e->n_kids > hi))
    return qvg_plan_fail(p, e, QV_ERR_INVALID, "%s() takes %d%s%s argument%s, not %d", qvg_fn_name(fn), (int)lo,
                         hi == lo ? "" : " to ", hi == lo ? "" : (hi < 0 ? "any number of" : ""),
                         lo == 1 && hi == 1 ? "" : "s", (int)e->n_kids);
  qvg_cx *c = qvg_cx_new(p, QVG_CX_FN, e, e->n_kids);
  if (!c) return qv_error_nomem(p->err, "cypher planner");
  c->fn = fn;
  qv_status st = compile_kids(p, s, e, c, 0);
  *out = c;
  return st;
}

static qv_status compile_labels(qvg_planner *p, const qvg_node *labels, const qvg_node *at, int32_t **out, int32_t *n) {
  *n = labels ? labels->n_kids : 0;
  *out = NULL;
  if (!*n) return QV_OK;
  int32_t *ix = qvg_arena_alloc(p->arena, (size_t)*n * sizeof *ix);
  if (!ix) return qv_error_nomem(p->err, "cypher planner");
  for (int32_t i = 0; i < *n; i++) {
    ix[i] = qvg_store_label(p->st, labels->kids[i]->str);
    if (ix[i] < 0 && p->st->g) {
      char hint[128];
      return qvg_plan_fail(
          p, at, QV_ERR_INVALID, "unknown label `%s`%s", labels->kids[i]->str,
          qvg_suggest(labels->kids[i]->str, (const char *const *)p->st->labels, p->st->n_labels, hint, sizeof hint));
    }
  }
  *out = ix;
  return QV_OK;
}

static qv_status compile(qvg_planner *p, const qvg_scope *s, const qvg_node *e, qvg_cx **out) {
  *out = NULL;
  const char *col = bound_col(p, e);
  if (col) {
    qvg_cx *c = qvg_cx_new(p, QVG_CX_COL, e, 0);
    if (!c) return qv_error_nomem(p->err, "cypher planner");
    c->col = qvg_scope_col(s, col);
    if (c->col < 0) return qvg_plan_fail(p, e, QV_ERR_INVALID, "this expression is not available here");
    *out = c;
    return QV_OK;
  }
  /* only a grouping key's property access (a.name) is read back: a more
   * complex key expression inside an aggregate item is ambiguous (openCypher) */
  if (p->n_key_texts && e->kind == QVG_PROP && e->kids[0]->kind == QVG_VAR) {
    char *t = qvg_cypher_print(e);
    if (!t) return qv_error_nomem(p->err, "cypher planner");
    int32_t hit = -1;
    for (int32_t i = 0; i < p->n_key_texts && hit < 0; i++)
      if (p->key_texts[i] && strcmp(p->key_texts[i], t) == 0) hit = i;
    qv_free(t);
    if (hit >= 0 && qvg_scope_col(s, p->key_cols[hit]) >= 0) {
      qvg_cx *c = qvg_cx_new(p, QVG_CX_COL, e, 0);
      if (!c) return qv_error_nomem(p->err, "cypher planner");
      c->col = qvg_scope_col(s, p->key_cols[hit]);
      *out = c;
      return QV_OK;
    }
  }
  qvg_cx *c = NULL;
  qv_status st = QV_OK;
  switch (e->kind) {
    case QVG_VAR: return compile_var(p, s, e, out);
    case QVG_PARAM: {
      for (int32_t i = 0; i < p->n_params; i++)
        if (strcmp(p->param_names[i], e->str) == 0) {
          c = qvg_cx_new(p, QVG_CX_LIT, e, 0);
          if (!c) return qv_error_nomem(p->err, "cypher planner");
          c->lit = p->param_values[i];
          *out = c;
          return QV_OK;
        }
      return qvg_plan_fail(p, e, QV_ERR_INVALID, "parameter $%s was not given", e->str);
    }
    case QVG_INT:
    case QVG_FLOAT:
    case QVG_STRING:
    case QVG_LIT_TRUE:
    case QVG_LIT_FALSE:
    case QVG_NULL: {
      c = qvg_cx_new(p, QVG_CX_LIT, e, 0);
      if (!c) return qv_error_nomem(p->err, "cypher planner");
      if (e->kind == QVG_INT) c->lit = qvg_int(e->i0);
      else if (e->kind == QVG_FLOAT) c->lit = qvg_float(e->f);
      else if (e->kind == QVG_STRING) c->lit = qvg_string(e->str, e->len);
      else if (e->kind == QVG_NULL) c->lit = qvg_null();
      else c->lit = qvg_bool(e->kind == QVG_LIT_TRUE);
      break;
    }
    case QVG_LIST:
      if (!(c = qvg_cx_new(p, QVG_CX_LIST, e, e->n_kids))) return qv_error_nomem(p->err, "cypher planner");
      st = compile_kids(p, s, e, c, 0);
      break;
    case QVG_MAP: {
      if (!(c = qvg_cx_new(p, QVG_CX_MAP, e, e->n_kids))) return qv_error_nomem(p->err, "cypher planner");
      const char **names = qvg_arena_alloc(p->arena, (size_t)(e->n_kids ? e->n_kids : 1) * sizeof *names);
      if (!names) return qv_error_nomem(p->err, "cypher planner");
      for (int32_t i = 0; i < e->n_kids && st == QV_OK; i++) {
        names[i] = e->kids[i]->str;
        st = compile(p, s, e->kids[i]->kids[0], &c->kids[i]);
      }
      c->names = names;
      break;
    }
    case QVG_PROP:
      if ((st = check_property(p, s, e)) != QV_OK) return st;
      if (!(c = qvg_cx_new(p, QVG_CX_PROP, e, 1))) return qv_error_nomem(p->err, "cypher planner");
      c->name = e->str;
      c->nlen = e->len;
      st = compile_kids(p, s, e, c, 0);
      break;
    case QVG_INDEX:
    case QVG_SLICE:
      if (!(c = qvg_cx_new(p, e->kind == QVG_INDEX ? QVG_CX_INDEX : QVG_CX_SLICE, e, e->n_kids)))
        return qv_error_nomem(p->err, "cypher planner");
      st = compile_kids(p, s, e, c, 0);
      break;
    case QVG_AND:
    case QVG_OR:
    case QVG_XOR:
    case QVG_NOT:
    case QVG_NEG: {
      int k = e->kind == QVG_AND   ? QVG_CX_AND
              : e->kind == QVG_OR  ? QVG_CX_OR
              : e->kind == QVG_XOR ? QVG_CX_XOR
              : e->kind == QVG_NOT ? QVG_CX_NOT
                                   : QVG_CX_NEG;
      if (!(c = qvg_cx_new(p, k, e, e->n_kids))) return qv_error_nomem(p->err, "cypher planner");
      st = compile_kids(p, s, e, c, 0);
      break;
    }
    case QVG_POS: return compile(p, s, e->kids[0], out);
    case QVG_IS_NULL:
      if (!(c = qvg_cx_new(p, QVG_CX_IS_NULL, e, 1))) return qv_error_nomem(p->err, "cypher planner");
      c->op = (e->flags & QVG_F_NOT) ? 1 : 0;
      st = compile_kids(p, s, e, c, 0);
      break;
    case QVG_COMPARE:
      if (!(c = qvg_cx_new(p, QVG_CX_CMP, e, e->n_kids))) return qv_error_nomem(p->err, "cypher planner");
      c->ops = e->ops;
      st = compile_kids(p, s, e, c, 0);
      break;
    case QVG_BINARY:
      if (!(c = qvg_cx_new(p, QVG_CX_BINARY, e, 2))) return qv_error_nomem(p->err, "cypher planner");
      c->op = e->op;
      st = compile_kids(p, s, e, c, 0);
      break;
    case QVG_LABEL_TEST: {
      if (!(c = qvg_cx_new(p, QVG_CX_LABELS, e, 1))) return qv_error_nomem(p->err, "cypher planner");
      int32_t *ix, n;
      if ((st = compile_labels(p, e->kids[1], e, &ix, &n)) != QV_OK) return st;
      c->labels = ix;
      c->n_labels = n;
      st = compile(p, s, e->kids[0], &c->kids[0]);
      break;
    }
    case QVG_CALL_FN: return compile_fn(p, s, e, out);
    case QVG_COUNT_STAR: return qvg_plan_fail(p, e, QV_ERR_INVALID, "aggregate count(*) is not allowed here");
    case QVG_CASE: {
      int32_t n_when = e->n_kids - 2;
      if (!(c = qvg_cx_new(p, QVG_CX_CASE, e, 1 + 2 * n_when))) return qv_error_nomem(p->err, "cypher planner");
      if (e->kids[0] && (st = compile(p, s, e->kids[0], &c->kids[0])) != QV_OK) return st;
      for (int32_t i = 0; i < n_when && st == QV_OK; i++) {
        const qvg_node *w = e->kids[2 + i];
        st = compile(p, s, w->kids[0], &c->kids[1 + 2 * i]);
        if (st == QV_OK) st = compile(p, s, w->kids[1], &c->kids[2 + 2 * i]);
      }
      if (st == QV_OK && e->kids[1]) st = compile(p, s, e->kids[1], &c->else_ex);
      break;
    }
    case QVG_LIST_COMP:
    case QVG_QUANT: {
      bool comp = e->kind == QVG_LIST_COMP;
      if (!(c = qvg_cx_new(p, comp ? QVG_CX_LIST_COMP : QVG_CX_QUANT, e, comp ? 3 : 2)))
        return qv_error_nomem(p->err, "cypher planner");
      c->op = e->op;
      if ((st = compile(p, s, e->kids[0], &c->kids[0])) != QV_OK) return st;
      int32_t saved = p->n_locals;
      if ((st = push_local(p, e, e->str, &c->slot)) != QV_OK) return st;
      for (int32_t i = 1; i < e->n_kids && st == QV_OK; i++)
        if (e->kids[i]) st = compile(p, s, e->kids[i], &c->kids[i]);
      p->n_locals = saved;
      break;
    }
    case QVG_REDUCE: {
      if (!(c = qvg_cx_new(p, QVG_CX_REDUCE, e, 3))) return qv_error_nomem(p->err, "cypher planner");
      if ((st = compile(p, s, e->kids[0], &c->kids[0])) != QV_OK) return st;
      if ((st = compile(p, s, e->kids[2], &c->kids[1])) != QV_OK) return st;
      int32_t saved = p->n_locals;
      if ((st = push_local(p, e, e->str, &c->slot)) != QV_OK) return st;
      if ((st = push_local(p, e, e->kids[1]->str, &c->slot2)) != QV_OK) return st;
      st = compile(p, s, e->kids[3], &c->kids[2]);
      p->n_locals = saved;
      break;
    }
    case QVG_MAP_PROJ: {
      int32_t n = e->n_kids - 1;
      if (!(c = qvg_cx_new(p, QVG_CX_MAP_PROJ, e, 1 + n))) return qv_error_nomem(p->err, "cypher planner");
      const char **names = qvg_arena_alloc(p->arena, (size_t)(n ? n : 1) * sizeof *names);
      if (!names) return qv_error_nomem(p->err, "cypher planner");
      if ((st = compile(p, s, e->kids[0], &c->kids[0])) != QV_OK) return st;
      for (int32_t i = 0; i < n && st == QV_OK; i++) {
        const qvg_node *k = e->kids[1 + i];
        names[i] = k->str;
        if (k->kind == QVG_ENTRY) st = compile(p, s, k->kids[0], &c->kids[1 + i]);
        else if (k->kind == QVG_VAR) st = compile(p, s, k, &c->kids[1 + i]);
        else if (k->kind == QVG_ALL_SEL) c->all_props = true, names[i] = NULL;
      }
      c->names = names;
      break;
    }
    case QVG_PAT_PRED:
    case QVG_EXISTS:
    case QVG_COUNT_SUB:
    case QVG_PAT_COMP: return qvg_plan_fail(p, e, QV_ERR_UNSUPPORTED, "a pattern expression is not supported here");
    default:
      return qvg_plan_fail(p, e, QV_ERR_UNSUPPORTED, "%s is not supported in an expression", qvg_kind_name(e->kind));
  }
  if (st != QV_OK) return st;
  *out = c;
  return QV_OK;
}

qv_status qvg_compile(qvg_planner *p, const qvg_scope *s, const qvg_node *e, qvg_cx **out) {
  return compile(p, s, e, out);
}

qv_status qvg_eval_const(qvg_planner *p, const qvg_node *e, qvg_val *out) {
  qvg_scope empty;
  memset(&empty, 0, sizeof empty);
  qvg_cx *c;
  qv_status st = compile(p, &empty, e, &c);
  if (st != QV_OK) return st;
  qvg_val locals[QVG_CYPHER_MAX_DEPTH];
  qvg_evalctx cx = {p->st, NULL, NULL, locals, QVG_CYPHER_MAX_DEPTH, p->arena};
  return qvg_eval(c, &cx, 0, out, p->err);
}

/* ---- static types ---- */

static qv_type_id arrow_to_static(qv_type_id t) {
  if (qv_type_is_integer(t) && t != QV_TYPE_UINT64) return QV_TYPE_INT64;
  if (qv_type_is_floating(t)) return QV_TYPE_FLOAT64;
  if (t == QV_TYPE_BOOL || t == QV_TYPE_STRING) return t;
  return QV_TYPE_NULL;
}

/* The type of n.key for a node of a known label on a dataset store. */
static qv_type_id prop_type(qvg_planner *p, const qvg_scope *s, const qvg_node *e) {
  if (!p->st->g || e->kids[0]->kind != QVG_VAR) return QV_TYPE_NULL;
  const qvg_pvar *v = qvg_scope_var(s, e->kids[0]->str);
  if (!v || v->label < 0 || !v->col) return QV_TYPE_NULL;
  int32_t col = qvg_scope_col(s, v->col);
  if (col < 0) return QV_TYPE_NULL;
  const qv_dataset *ds = NULL;
  if (s->kinds[col] == QVG_COL_NODE && v->label < p->st->g->cat.n_labels) ds = p->st->g->cat.labels[v->label].ds;
  else if (s->kinds[col] == QVG_COL_REL && v->label < p->st->g->cat.n_types) ds = p->st->g->cat.types[v->label].ds;
  if (!ds) return QV_TYPE_NULL;
  const qv_schema *sc = qv_dataset_schema(ds);
  int32_t i = qv_schema_find(sc, e->str);
  return i < 0 ? QV_TYPE_NULL : arrow_to_static(sc->fields[i].type.id);
}

qv_type_id qvg_static_type(qvg_planner *p, const qvg_scope *s, const qvg_node *e) {
  switch (e->kind) {
    case QVG_INT: return QV_TYPE_INT64;
    case QVG_FLOAT: return QV_TYPE_FLOAT64;
    case QVG_STRING: return QV_TYPE_STRING;
    case QVG_LIT_TRUE:
    case QVG_LIT_FALSE:
    case QVG_COMPARE:
    case QVG_AND:
    case QVG_OR:
    case QVG_XOR:
    case QVG_NOT:
    case QVG_IS_NULL:
    case QVG_LABEL_TEST: return QV_TYPE_BOOL;
    case QVG_COUNT_STAR: return QV_TYPE_INT64;
    case QVG_PROP: return prop_type(p, s, e);
    case QVG_VAR: {
      const qvg_pvar *v = qvg_scope_var(s, e->str);
      return v ? v->type : QV_TYPE_NULL;
    }
    case QVG_BINARY: {
      if (e->op >= QVG_OP_IN) return QV_TYPE_BOOL;
      if (e->op == QVG_OP_POW) return QV_TYPE_FLOAT64;
      qv_type_id a = qvg_static_type(p, s, e->kids[0]), b = qvg_static_type(p, s, e->kids[1]);
      if (a == QV_TYPE_INT64 && b == QV_TYPE_INT64) return QV_TYPE_INT64;
      if ((a == QV_TYPE_FLOAT64 || a == QV_TYPE_INT64) && (b == QV_TYPE_FLOAT64 || b == QV_TYPE_INT64))
        return QV_TYPE_FLOAT64;
      if (e->op == QVG_OP_ADD && a == QV_TYPE_STRING && b == QV_TYPE_STRING) return QV_TYPE_STRING;
      return QV_TYPE_NULL;
    }
    case QVG_NEG: {
      qv_type_id a = qvg_static_type(p, s, e->kids[0]);
      return a == QV_TYPE_INT64 || a == QV_TYPE_FLOAT64 ? a : QV_TYPE_NULL;
    }
    case QVG_CASE: {
      /* The branches' one type, when every THEN and the ELSE have it or are the null literal (a
         missing ELSE is null too): `CASE WHEN p IS NULL THEN -1 ELSE length(p) END` is an int64
         column, not Cypher text. */
      qv_type_id t = QV_TYPE_NULL;
      for (int32_t i = 1; i < e->n_kids; i++) {
        const qvg_node *b = i == 1 ? e->kids[1] : e->kids[i] ? e->kids[i]->kids[1] : NULL;
        if (!b || b->kind == QVG_NULL) continue;
        qv_type_id bt = qvg_static_type(p, s, b);
        if (bt == QV_TYPE_NULL || (t != QV_TYPE_NULL && bt != t)) return QV_TYPE_NULL;
        t = bt;
      }
      return t;
    }
    case QVG_CALL_FN: {
      const char *f = e->str;
      if (!strcasecmp(f, "count") || !strcasecmp(f, "id") || !strcasecmp(f, "size") || !strcasecmp(f, "length") ||
          !strcasecmp(f, "toInteger"))
        return QV_TYPE_INT64;
      if (!strcasecmp(f, "toFloat") || !strcasecmp(f, "stDev") || !strcasecmp(f, "stDevP")) return QV_TYPE_FLOAT64;
      if (!strcasecmp(f, "toString") || !strcasecmp(f, "type") || !strcasecmp(f, "toUpper") ||
          !strcasecmp(f, "toLower"))
        return QV_TYPE_STRING;
      if (e->n_kids == 1 && (!strcasecmp(f, "min") || !strcasecmp(f, "max") || !strcasecmp(f, "sum")))
        return qvg_static_type(p, s, e->kids[0]);
      if (e->n_kids == 1 && !strcasecmp(f, "avg")) {
        qv_type_id a = qvg_static_type(p, s, e->kids[0]);
        return a == QV_TYPE_INT64 || a == QV_TYPE_FLOAT64 ? QV_TYPE_FLOAT64 : QV_TYPE_NULL;
      }
      return QV_TYPE_NULL;
    }
    default: return QV_TYPE_NULL;
  }
}
