/* The compile-time semantic checks of a Cypher query: one walk over the
 * syntax tree after parsing and before planning, raising the errors the
 * openCypher TCK expects "at compile time" whatever the planner supports
 * (so a MERGE or SET the planner cannot run yet still gets its undefined
 * variable reported, and `RETURN 123 AND true` fails before a row is read).
 *
 * The walk keeps the variables in scope clause by clause, each with what it
 * is known to hold: a node, a relationship, a variable-length hop's list of
 * relationships, a path, or a value whose type a literal made known (WITH
 * 123 AS n).  Unknown is always allowed: a check fires only when the type is
 * certain, so no query that can succeed is refused here.  Where the walk
 * meets something it does not model (CALL without YIELD, CALL { }, a
 * subquery's clauses) the scope becomes open: names it does not know are
 * then taken as unknown values rather than undefined.
 *
 * Error codes: QV_ERR_INVALID (CK_ERR), which include/quiver/graph.h
 * promises for semantic errors and the binder gives for the same mistakes
 * (the TCK files them under SyntaxError: undefined variables, type
 * conflicts, misplaced aggregates and patterns, literal argument types);
 * QV_ERR_TYPE for a property read from or written as a value that cannot
 * hold one (the TCK's TypeError).  Messages read "cypher: WHAT at line L,
 * column C", as the planner's do. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "graph/cypher_plan_int.h"

/* The status of a semantic error (see above). */
#define CK_ERR QV_ERR_INVALID

/* What a variable or expression is known to be; T_ANY: not known. */
enum {
  T_ANY = 0,
  T_NULL,
  T_BOOL,
  T_INT,
  T_FLOAT,
  T_STRING,
  T_LIST,
  T_MAP,
  T_NODE,
  T_REL,
  T_RELS, /* the relationships of a variable-length hop */
  T_PATH
};

typedef struct ck_ty {
  uint8_t t;
  uint8_t elem; /* T_LIST: its elements' type when all are the same */
} ck_ty;

typedef struct ck_var {
  const char *name;
  ck_ty ty;
} ck_var;

typedef struct ck {
  ck_var *v; /* the visible variables, innermost last */
  int32_t n, cap;
  int32_t base; /* where the current clause scope starts (below: an enclosing query's) */
  bool open;    /* names not in v may exist */
  /* after WITH DISTINCT or an aggregating projection: the projected
   * expressions, which ORDER BY and WHERE may repeat */
  const qvg_node *const *proj;
  int32_t n_proj;
  const char *constant; /* "SKIP" or "LIMIT" while checking one: no variable may be read */
  qv_error *err;
} ck;

/* Expression contexts. */
#define X_AGG 0x1u    /* an aggregate may appear here */
#define X_IN_AGG 0x2u /* inside an aggregate's arguments */
#define X_LIST 0x4u   /* inside an expression run per list element */
#define X_NOPAT 0x8u  /* a pattern predicate may not appear here */

static const char *tname(int t) {
  switch (t) {
    case T_NULL: return "null";
    case T_BOOL: return "a boolean";
    case T_INT: return "an integer";
    case T_FLOAT: return "a float";
    case T_STRING: return "a string";
    case T_LIST: return "a list";
    case T_MAP: return "a map";
    case T_NODE: return "a node";
    case T_REL: return "a relationship";
    case T_RELS: return "a list of relationships";
    case T_PATH: return "a path";
    default: return "a value";
  }
}

static ck_ty ty(int t) {
  ck_ty r = {(uint8_t)t, T_ANY};
  return r;
}

static qv_status fail(ck *c, const qvg_node *at, qv_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static qv_status fail(ck *c, const qvg_node *at, qv_status code, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (at && at->line > 0)
    return qv_error_set(c->err, code, "cypher: %s at line %d, column %d", msg, (int)at->line, (int)at->col);
  return qv_error_set(c->err, code, "cypher: %s", msg);
}

/* ---- the scope ---------------------------------------------------------------- */

static int32_t find(const ck *c, const char *name) {
  for (int32_t i = c->n - 1; i >= 0; i--)
    if (strcmp(c->v[i].name, name) == 0) return i;
  return -1;
}

static qv_status push(ck *c, const char *name, ck_ty t) {
  if (c->n == c->cap) {
    int32_t cap = c->cap ? 2 * c->cap : 32;
    ck_var *v = qv_realloc(c->v, (size_t)cap * sizeof *v);
    if (!v) return qv_error_nomem(c->err, "cypher check");
    c->v = v;
    c->cap = cap;
  }
  c->v[c->n].name = name;
  c->v[c->n].ty = t;
  c->n++;
  return QV_OK;
}

/* ---- expressions ------------------------------------------------------------- */

static bool same_expr(const qvg_node *a, const qvg_node *b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind || a->op != b->op || a->flags != b->flags || a->n_kids != b->n_kids || a->i0 != b->i0 ||
      a->i1 != b->i1 || memcmp(&a->f, &b->f, sizeof a->f) != 0 || a->len != b->len)
    return false;
  if ((a->str == NULL) != (b->str == NULL) || (a->str && memcmp(a->str, b->str, (size_t)a->len) != 0)) return false;
  if (a->kind == QVG_COMPARE && a->n_kids > 1 && memcmp(a->ops, b->ops, (size_t)a->n_kids - 1) != 0) return false;
  for (int32_t i = 0; i < a->n_kids; i++)
    if (!same_expr(a->kids[i], b->kids[i])) return false;
  return true;
}

static bool fn_is(const qvg_node *e, const char *name) {
  return e->kind == QVG_CALL_FN && e->str && strcasecmp(e->str, name) == 0;
}

/* Types that are certainly not booleans (null and unknown may be). */
static bool not_bool(int t) { return t >= T_INT; }
/* Types that are certainly not numbers. */
static bool not_number(int t) { return t == T_BOOL || t >= T_STRING; }

static qv_status expr(ck *c, const qvg_node *e, unsigned fl, ck_ty *out);
static qv_status pattern_path(ck *c, const qvg_node *path, int mode, int32_t first_new);

/* Pattern modes. */
enum { P_MATCH, P_CREATE, P_MERGE, P_PRED, P_LOCAL };

static qv_status expr_ignore(ck *c, const qvg_node *e, unsigned fl) {
  ck_ty t;
  return e ? expr(c, e, fl, &t) : QV_OK;
}

static qv_status aggregate(ck *c, const qvg_node *e, unsigned fl, ck_ty *out) {
  const char *name = e->kind == QVG_COUNT_STAR ? "count" : e->str;
  if (fl & X_IN_AGG) return fail(c, e, CK_ERR, "an aggregate cannot contain another aggregate");
  if (fl & X_LIST)
    return fail(c, e, CK_ERR, "aggregate %s(%s) is not allowed in an expression over a list's elements", name,
                e->kind == QVG_COUNT_STAR ? "*" : "...");
  if (!(fl & X_AGG))
    return fail(c, e, CK_ERR, "aggregate %s(%s) is not allowed here", name, e->kind == QVG_COUNT_STAR ? "*" : "...");
  unsigned in = (fl & ~(unsigned)X_AGG) | X_IN_AGG | X_NOPAT;
  for (int32_t i = 0; i < e->n_kids; i++) QV_RETURN_NOT_OK(expr_ignore(c, e->kids[i], in));
  *out = ty(e->kind == QVG_COUNT_STAR || strcasecmp(name, "count") == 0 ? T_INT
            : strcasecmp(name, "collect") == 0                          ? T_LIST
                                                                        : T_ANY);
  return QV_OK;
}

/* Functions whose argument types the TCK checks at compile time. */
static qv_status function(ck *c, const qvg_node *e, unsigned fl, ck_ty *out) {
  if (fn_is(e, "rand") && (fl & X_IN_AGG))
    return fail(c, e, CK_ERR, "rand() is not allowed inside an aggregate (its value is not constant)");
  bool exists = fn_is(e, "exists");
  ck_ty a0 = ty(T_ANY);
  for (int32_t i = 0; i < e->n_kids; i++) {
    ck_ty t;
    QV_RETURN_NOT_OK(expr(c, e->kids[i], exists ? fl & ~(unsigned)X_NOPAT : fl | X_NOPAT, &t));
    if (i == 0) a0 = t;
  }
  *out = ty(T_ANY);
  if (e->n_kids == 1) {
    int t = a0.t;
    if (fn_is(e, "type") && t >= T_BOOL && t != T_REL)
      return fail(c, e, CK_ERR, "type() expects a relationship, not %s", tname(t));
    if (fn_is(e, "length") && (t == T_NODE || t == T_REL))
      return fail(c, e, CK_ERR, "length() expects a path, not %s", tname(t));
    if (fn_is(e, "size") && t == T_PATH)
      return fail(c, e, CK_ERR, "size() expects a string or a list, not %s", tname(t));
    if (fn_is(e, "labels") && t == T_PATH) return fail(c, e, CK_ERR, "labels() expects a node, not %s", tname(t));
    if (fn_is(e, "properties") && t >= T_BOOL && t <= T_LIST)
      return fail(c, e, CK_ERR, "properties() expects a node, a relationship or a map, not %s", tname(t));
  }
  if (fn_is(e, "size") || fn_is(e, "length")) *out = ty(T_INT);
  else if (fn_is(e, "nodes") || fn_is(e, "relationships") || fn_is(e, "labels") || fn_is(e, "keys") ||
           fn_is(e, "range"))
    *out = ty(T_LIST);
  return QV_OK;
}

/* The element type of a list expression's type. */
static ck_ty elem_of(ck_ty t) {
  if (t.t == T_LIST) return ty(t.elem);
  if (t.t == T_RELS) return ty(T_REL);
  return ty(T_ANY);
}

/* [x IN list WHERE p | e], all(x IN list WHERE p): k0 the list, then the
 * parts run per element with x in scope. */
static qv_status per_element(ck *c, const qvg_node *e, const char *var, const qvg_node *list,
                             const qvg_node *const *parts, int32_t n_parts, unsigned fl) {
  ck_ty lt;
  QV_RETURN_NOT_OK(expr(c, list, fl, &lt));
  int32_t mark = c->n;
  QV_RETURN_NOT_OK(push(c, var, elem_of(lt)));
  unsigned in = (fl & ~(unsigned)(X_AGG | X_NOPAT)) | X_LIST;
  qv_status st = QV_OK;
  for (int32_t i = 0; i < n_parts && st == QV_OK; i++) st = expr_ignore(c, parts[i], in);
  c->n = mark;
  (void)e;
  return st;
}

static qv_status pattern_expr(ck *c, const qvg_node *e, unsigned fl, ck_ty *out) {
  int32_t mark = c->n;
  qv_status st = QV_OK;
  if (e->kind == QVG_PAT_PRED) {
    if (fl & X_NOPAT)
      return fail(c, e, CK_ERR,
                  "a pattern can only be used as a predicate here (use COUNT { } or a "
                  "pattern comprehension)");
    st = pattern_path(c, e->kids[0], P_PRED, mark);
    *out = ty(T_BOOL);
  } else if (e->kind == QVG_PAT_COMP) {
    st = pattern_path(c, e->kids[0], P_LOCAL, mark);
    unsigned in = (fl & ~(unsigned)(X_AGG | X_NOPAT)) | X_LIST;
    if (st == QV_OK) st = expr_ignore(c, e->kids[1], in);
    if (st == QV_OK && e->n_kids > 2) st = expr_ignore(c, e->kids[2], in);
    *out = ty(T_LIST);
  } else { /* EXISTS / COUNT { pattern WHERE ... } */
    const qvg_node *pat = e->kids[0];
    unsigned in = (fl & ~(unsigned)(X_AGG | X_NOPAT)) | X_LIST;
    for (int32_t i = 0; i < pat->n_kids && st == QV_OK; i++) st = pattern_path(c, pat->kids[i], P_LOCAL, mark);
    if (st == QV_OK && e->n_kids > 1) st = expr_ignore(c, e->kids[1], in);
    *out = ty(e->kind == QVG_EXISTS ? T_BOOL : T_INT);
  }
  c->n = mark;
  return st;
}

static qv_status boolean_operand(ck *c, const qvg_node *op, const qvg_node *e, const char *what, unsigned fl) {
  ck_ty t;
  QV_RETURN_NOT_OK(expr(c, e, fl & ~(unsigned)X_NOPAT, &t));
  if (not_bool(t.t)) return fail(c, op, CK_ERR, "%s expects a boolean, not %s", what, tname(t.t));
  return QV_OK;
}

static qv_status expr(ck *c, const qvg_node *e, unsigned fl, ck_ty *out) {
  *out = ty(T_ANY);
  if (!e) return QV_OK;
  for (int32_t i = 0; i < c->n_proj; i++)
    if (same_expr(e, c->proj[i])) return QV_OK;
  ck_ty a, b;
  switch (e->kind) {
    case QVG_INT: *out = ty(T_INT); return QV_OK;
    case QVG_FLOAT: *out = ty(T_FLOAT); return QV_OK;
    case QVG_STRING: *out = ty(T_STRING); return QV_OK;
    case QVG_LIT_TRUE:
    case QVG_LIT_FALSE: *out = ty(T_BOOL); return QV_OK;
    case QVG_NULL: *out = ty(T_NULL); return QV_OK;
    case QVG_PARAM: return QV_OK;
    case QVG_VAR: {
      int32_t i = find(c, e->str);
      if (i < 0) {
        if (c->constant)
          return fail(c, e, CK_ERR, "%s must be a constant (it cannot read variable `%s`)", c->constant, e->str);
        if (c->open) return QV_OK;
        return fail(c, e, CK_ERR, "variable `%s` not defined", e->str);
      }
      *out = c->v[i].ty;
      return QV_OK;
    }
    case QVG_AND:
    case QVG_OR:
    case QVG_XOR: {
      const char *what = e->kind == QVG_AND ? "AND" : e->kind == QVG_OR ? "OR" : "XOR";
      QV_RETURN_NOT_OK(boolean_operand(c, e, e->kids[0], what, fl));
      QV_RETURN_NOT_OK(boolean_operand(c, e, e->kids[1], what, fl));
      *out = ty(T_BOOL);
      return QV_OK;
    }
    case QVG_NOT:
      QV_RETURN_NOT_OK(boolean_operand(c, e, e->kids[0], "NOT", fl));
      *out = ty(T_BOOL);
      return QV_OK;
    case QVG_COMPARE:
    case QVG_IS_NULL:
      for (int32_t i = 0; i < e->n_kids; i++) QV_RETURN_NOT_OK(expr_ignore(c, e->kids[i], fl));
      *out = ty(T_BOOL);
      return QV_OK;
    case QVG_LABEL_TEST:
      QV_RETURN_NOT_OK(expr_ignore(c, e->kids[0], fl));
      *out = ty(T_BOOL);
      return QV_OK;
    case QVG_BINARY: {
      QV_RETURN_NOT_OK(expr(c, e->kids[0], fl, &a));
      QV_RETURN_NOT_OK(expr(c, e->kids[1], fl, &b));
      static const char *const ops[] = {"+", "-", "*", "/", "%", "^"};
      switch (e->op) {
        case QVG_OP_IN:
          if (b.t != T_ANY && b.t != T_NULL && b.t != T_LIST && b.t != T_RELS)
            return fail(c, e, CK_ERR, "IN expects a list, not %s", tname(b.t));
          *out = ty(T_BOOL);
          return QV_OK;
        case QVG_OP_STARTS_WITH:
        case QVG_OP_ENDS_WITH:
        case QVG_OP_CONTAINS:
        case QVG_OP_REGEX: *out = ty(T_BOOL); return QV_OK;
        case QVG_OP_ADD:
          if (a.t == T_LIST || b.t == T_LIST) *out = ty(T_LIST);
          else if (a.t == T_INT && b.t == T_INT) *out = ty(T_INT);
          else if ((a.t == T_INT || a.t == T_FLOAT) && (b.t == T_INT || b.t == T_FLOAT)) *out = ty(T_FLOAT);
          else if (a.t == T_STRING && b.t == T_STRING) *out = ty(T_STRING);
          return QV_OK;
        default:
          if (e->op <= QVG_OP_POW && (not_number(a.t) || not_number(b.t)))
            return fail(c, e, CK_ERR, "%s expects numbers, not %s", ops[e->op], tname(not_number(a.t) ? a.t : b.t));
          if (a.t == T_INT && b.t == T_INT && e->op != QVG_OP_POW) *out = ty(T_INT);
          else if ((a.t == T_INT || a.t == T_FLOAT) && (b.t == T_INT || b.t == T_FLOAT)) *out = ty(T_FLOAT);
          return QV_OK;
      }
    }
    case QVG_NEG:
    case QVG_POS:
      QV_RETURN_NOT_OK(expr(c, e->kids[0], fl, &a));
      if (a.t == T_INT || a.t == T_FLOAT) *out = a;
      return QV_OK;
    case QVG_PROP:
      QV_RETURN_NOT_OK(expr(c, e->kids[0], fl, &a));
      if (a.t == T_PATH) return fail(c, e, CK_ERR, "cannot read property `%s` of %s", e->str, tname(a.t));
      if ((a.t >= T_BOOL && a.t <= T_LIST) || a.t == T_RELS)
        return fail(c, e, QV_ERR_TYPE, "cannot read property `%s` of %s", e->str, tname(a.t));
      return QV_OK;
    case QVG_INDEX: QV_RETURN_NOT_OK(expr_ignore(c, e->kids[0], fl)); return expr_ignore(c, e->kids[1], fl);
    case QVG_SLICE:
      QV_RETURN_NOT_OK(expr(c, e->kids[0], fl, &a));
      QV_RETURN_NOT_OK(expr_ignore(c, e->kids[1], fl));
      QV_RETURN_NOT_OK(expr_ignore(c, e->kids[2], fl));
      if (a.t == T_LIST) *out = a;
      return QV_OK;
    case QVG_LIST: {
      int elem = -1;
      for (int32_t i = 0; i < e->n_kids; i++) {
        QV_RETURN_NOT_OK(expr(c, e->kids[i], fl, &a));
        elem = elem < 0 || elem == a.t ? a.t : T_ANY;
      }
      out->t = T_LIST;
      out->elem = (uint8_t)(elem < 0 ? T_ANY : elem);
      return QV_OK;
    }
    case QVG_MAP:
      for (int32_t i = 0; i < e->n_kids; i++) QV_RETURN_NOT_OK(expr_ignore(c, e->kids[i]->kids[0], fl));
      *out = ty(T_MAP);
      return QV_OK;
    case QVG_MAP_PROJ:
      QV_RETURN_NOT_OK(expr_ignore(c, e->kids[0], fl));
      for (int32_t i = 1; i < e->n_kids; i++) {
        const qvg_node *k = e->kids[i];
        if (k->kind == QVG_ENTRY) QV_RETURN_NOT_OK(expr_ignore(c, k->kids[0], fl));
        else if (k->kind == QVG_VAR) QV_RETURN_NOT_OK(expr_ignore(c, k, fl));
      }
      *out = ty(T_MAP);
      return QV_OK;
    case QVG_CALL_FN:
      if (qvg_is_aggregate(e->str)) return aggregate(c, e, fl, out);
      return function(c, e, fl, out);
    case QVG_COUNT_STAR: return aggregate(c, e, fl, out);
    case QVG_CASE:
      QV_RETURN_NOT_OK(expr_ignore(c, e->kids[0], fl));
      QV_RETURN_NOT_OK(expr_ignore(c, e->kids[1], fl));
      for (int32_t i = 2; i < e->n_kids; i++) {
        const qvg_node *w = e->kids[i];
        QV_RETURN_NOT_OK(expr_ignore(c, w->kids[0], e->kids[0] ? fl : fl & ~(unsigned)X_NOPAT));
        QV_RETURN_NOT_OK(expr_ignore(c, w->kids[1], fl));
      }
      return QV_OK;
    case QVG_LIST_COMP: {
      const qvg_node *parts[2] = {e->kids[1], e->kids[2]};
      QV_RETURN_NOT_OK(per_element(c, e, e->str, e->kids[0], parts, 2, fl));
      *out = ty(T_LIST);
      return QV_OK;
    }
    case QVG_QUANT: {
      const qvg_node *parts[1] = {e->kids[1]};
      QV_RETURN_NOT_OK(per_element(c, e, e->str, e->kids[0], parts, 1, fl));
      *out = ty(T_BOOL);
      return QV_OK;
    }
    case QVG_REDUCE: {
      QV_RETURN_NOT_OK(expr_ignore(c, e->kids[0], fl));
      QV_RETURN_NOT_OK(expr(c, e->kids[2], fl, &a));
      int32_t mark = c->n;
      qv_status st = push(c, e->str, ty(T_ANY));
      if (st == QV_OK) st = push(c, e->kids[1]->str, elem_of(a));
      if (st == QV_OK) st = expr_ignore(c, e->kids[3], (fl & ~(unsigned)(X_AGG | X_NOPAT)) | X_LIST);
      c->n = mark;
      return st;
    }
    case QVG_PAT_PRED:
    case QVG_PAT_COMP: return pattern_expr(c, e, fl, out);
    case QVG_EXISTS:
    case QVG_COUNT_SUB:
      *out = ty(e->kind == QVG_EXISTS ? T_BOOL : T_INT);
      /* a subquery's own clauses are not modelled: nothing to check in them */
      if (e->kids[0] && e->kids[0]->kind == QVG_PATTERN) return pattern_expr(c, e, fl, out);
      return QV_OK;
    default: return QV_OK;
  }
}

/* ---- patterns ------------------------------------------------------------------ */

static bool node_ok(int t) { return t == T_ANY || t == T_NULL || t == T_NODE; }

static qv_status props(ck *c, const qvg_node *el) {
  if (el->n_kids > 1 && el->kids[1]) return expr_ignore(c, el->kids[1], X_NOPAT);
  return QV_OK;
}

static bool has_labels_or_props(const qvg_node *el) {
  return (el->n_kids > 0 && el->kids[0] && el->kids[0]->n_kids > 0) || (el->n_kids > 1 && el->kids[1]);
}

static qv_status pattern_node(ck *c, const qvg_node *path, const qvg_node *el, int mode) {
  if (!el->str) return QV_OK;
  int32_t i = find(c, el->str);
  if (i < 0) {
    if (mode == P_PRED) {
      if (c->open) return QV_OK;
      return fail(c, el, CK_ERR, "variable `%s` not defined (a pattern predicate cannot introduce variables)", el->str);
    }
    return push(c, el->str, ty(T_NODE));
  }
  int t = c->v[i].ty.t;
  if (!node_ok(t)) return fail(c, el, CK_ERR, "variable `%s` is %s, not a node", el->str, tname(t));
  if (mode == P_CREATE || mode == P_MERGE) {
    if (has_labels_or_props(el))
      return fail(c, el, CK_ERR, "variable `%s` is already declared (%s cannot add labels or properties to it)",
                  el->str, mode == P_CREATE ? "CREATE" : "MERGE");
    if (path->n_kids == 1)
      return fail(c, el, CK_ERR, "variable `%s` is already declared (%s of a bound node)", el->str,
                  mode == P_CREATE ? "CREATE" : "MERGE");
  }
  return QV_OK;
}

static qv_status pattern_rel(ck *c, const qvg_node *el, int mode, int32_t first_new) {
  bool varlen = (el->flags & QVG_F_VARLEN) != 0;
  /* (the parser has checked a CREATE or MERGE relationship's type, direction and length) */
  if (!el->str) return QV_OK;
  int32_t i = find(c, el->str);
  if (i < 0) {
    if (mode == P_PRED) {
      if (c->open) return QV_OK;
      return fail(c, el, CK_ERR, "variable `%s` not defined (a pattern predicate cannot introduce variables)", el->str);
    }
    return push(c, el->str, ty(varlen ? T_RELS : T_REL));
  }
  int t = c->v[i].ty.t;
  if ((mode == P_CREATE || mode == P_MERGE) && (t == T_ANY || t == T_NULL || t == T_REL))
    return fail(c, el, CK_ERR, "variable `%s` is already declared (%s of a bound relationship)", el->str,
                mode == P_CREATE ? "CREATE" : "MERGE");
  if (i >= first_new && mode == P_MATCH && (t == T_REL || t == T_RELS))
    return fail(c, el, CK_ERR, "relationship variable `%s` is used twice in one pattern", el->str);
  bool ok = t == T_ANY || t == T_NULL || (varlen ? t == T_RELS || t == T_LIST : t == T_REL);
  if (!ok)
    return fail(c, el, CK_ERR, "variable `%s` is %s, not %s", el->str, tname(t),
                varlen ? "a list of relationships" : "a relationship");
  return QV_OK;
}

/* One comma-separated part of a pattern: its elements, then its path
 * variable (so `p = (p)-->()` finds p bound).  Variables declared at or
 * after first_new belong to this pattern. */
static qv_status pattern_path(ck *c, const qvg_node *path, int mode, int32_t first_new) {
  if (path->kind != QVG_PATH) return QV_OK;
  for (int32_t k = 0; k < path->n_kids; k++) {
    const qvg_node *el = path->kids[k];
    if (el->kind == QVG_NODE) QV_RETURN_NOT_OK(pattern_node(c, path, el, mode));
    else if (el->kind == QVG_REL) QV_RETURN_NOT_OK(pattern_rel(c, el, mode, first_new));
  }
  if (path->str) {
    if (find(c, path->str) >= 0)
      return fail(c, path, CK_ERR, "variable `%s` is already declared (a path variable must be new)", path->str);
    QV_RETURN_NOT_OK(push(c, path->str, ty(T_PATH)));
  }
  /* property maps see every variable of the pattern */
  if (mode == P_PRED || mode == P_LOCAL)
    for (int32_t k = 0; k < path->n_kids; k++) QV_RETURN_NOT_OK(props(c, path->kids[k]));
  return QV_OK;
}

static qv_status pattern(ck *c, const qvg_node *pat, int mode) {
  int32_t first_new = c->n;
  for (int32_t i = 0; i < pat->n_kids; i++) QV_RETURN_NOT_OK(pattern_path(c, pat->kids[i], mode, first_new));
  for (int32_t i = 0; i < pat->n_kids; i++) {
    const qvg_node *path = pat->kids[i];
    if (path->kind != QVG_PATH) continue;
    for (int32_t k = 0; k < path->n_kids; k++) QV_RETURN_NOT_OK(props(c, path->kids[k]));
  }
  return QV_OK;
}

/* ---- clauses ------------------------------------------------------------------- */

static qv_status where(ck *c, const qvg_node *w) {
  if (!w) return QV_OK;
  ck_ty t;
  QV_RETURN_NOT_OK(expr(c, w, 0, &t));
  if (not_bool(t.t)) return fail(c, w, CK_ERR, "WHERE expects a boolean, not %s", tname(t.t));
  return QV_OK;
}

/* SKIP and LIMIT: constants, checked with the scope hidden, so that only
 * a comprehension's own variable resolves. */
static qv_status skip_limit(ck *c, const qvg_node *e, const char *what) {
  if (!e) return QV_OK;
  if (e->kind == QVG_FLOAT) return fail(c, e, CK_ERR, "%s must be an integer, not a float", what);
  if ((e->kind == QVG_NEG && e->kids[0]->kind == QVG_INT && e->kids[0]->i0 > 0) || (e->kind == QVG_INT && e->i0 < 0))
    return fail(c, e, CK_ERR, "%s must not be negative", what);
  int32_t n = c->n;
  bool open = c->open;
  c->n = 0;
  c->open = false;
  c->constant = what;
  qv_status st = expr_ignore(c, e, X_NOPAT);
  c->n = n;
  c->open = open;
  c->constant = NULL;
  return st;
}

/* WITH and RETURN: the items, then ORDER BY and WHERE, then the scope
 * becomes the projected names. */
static qv_status projection(ck *c, const qvg_node *cl) {
  bool is_with = cl->kind == QVG_WITH;
  const qvg_node *items = cl->kids[0], *order = cl->kids[1];
  const qvg_node *wh = is_with && cl->n_kids > 4 ? cl->kids[4] : NULL;
  bool star = (items->flags & QVG_F_STAR) != 0;
  int32_t n_star = star ? c->n - c->base : 0;
  int32_t n_out = n_star + items->n_kids;
  ck_var *pv = qv_malloc((size_t)(n_out > 0 ? n_out : 1) * sizeof *pv);
  const qvg_node **pe = qv_malloc((size_t)(items->n_kids > 0 ? items->n_kids : 1) * sizeof *pe);
  qv_status st = QV_OK;
  if (!pv || !pe) {
    st = qv_error_nomem(c->err, "cypher check");
    goto cleanup;
  }
  for (int32_t i = 0; i < n_star; i++) pv[i] = c->v[c->base + i];
  bool aggregating = false;
  int32_t np = n_star;
  for (int32_t i = 0; i < items->n_kids; i++) {
    const qvg_node *it = items->kids[i], *x = it->kids[0];
    pe[i] = x;
    aggregating = aggregating || qvg_has_aggregate(x);
    ck_ty t;
    if ((st = expr(c, x, X_AGG | X_NOPAT, &t)) != QV_OK) goto cleanup;
    /* (the parser has made sure a WITH item is a variable or has a name) */
    const char *name = it->str ? it->str : x->kind == QVG_VAR ? x->str : NULL;
    if (!name) continue;
    for (int32_t j = 0; j < np; j++)
      if (strcmp(pv[j].name, name) == 0) {
        st = fail(c, x, CK_ERR, "multiple result columns with the same name `%s`", name);
        goto cleanup;
      }
    pv[np].name = name;
    pv[np].ty = t;
    np++;
  }
  bool distinct = (cl->flags & QVG_F_DISTINCT) != 0;
  if (distinct || aggregating) {
    /* only the projected names and expressions remain */
    c->n = c->base;
    for (int32_t i = 0; i < np && st == QV_OK; i++) st = push(c, pv[i].name, pv[i].ty);
    c->proj = pe;
    c->n_proj = items->n_kids;
    for (int32_t i = 0; order && i < order->n_kids && st == QV_OK; i++)
      st = expr_ignore(c, order->kids[i]->kids[0], aggregating ? X_AGG | X_NOPAT : X_NOPAT);
    if (st == QV_OK) st = where(c, wh);
    c->proj = NULL;
    c->n_proj = 0;
  } else {
    /* the projected names over the incoming ones */
    for (int32_t i = 0; i < np && st == QV_OK; i++) st = push(c, pv[i].name, pv[i].ty);
    for (int32_t i = 0; order && i < order->n_kids && st == QV_OK; i++)
      st = expr_ignore(c, order->kids[i]->kids[0], X_NOPAT);
    if (st == QV_OK) st = where(c, wh);
    c->n = c->base;
    for (int32_t i = 0; i < np && st == QV_OK; i++) st = push(c, pv[i].name, pv[i].ty);
  }
  if (st == QV_OK) st = skip_limit(c, cl->kids[2], "SKIP");
  if (st == QV_OK) st = skip_limit(c, cl->kids[3], "LIMIT");
cleanup:
  qv_free(pv);
  qv_free(pe);
  return st;
}

static qv_status set_item(ck *c, const qvg_node *it) {
  switch (it->kind) {
    case QVG_SET_PROP: {
      QV_RETURN_NOT_OK(expr_ignore(c, it->kids[0]->kids[0], X_NOPAT));
      ck_ty t;
      QV_RETURN_NOT_OK(expr(c, it->kids[1], X_NOPAT, &t));
      /* a property holds a value or a list of simple values, never a map */
      if (t.t == T_MAP || (t.t == T_LIST && t.elem == T_MAP))
        return fail(c, it->kids[1], QV_ERR_TYPE, "a property cannot hold %s",
                    t.t == T_MAP ? "a map" : "a list of maps");
      return QV_OK;
    }
    case QVG_SET_ALL:
      QV_RETURN_NOT_OK(expr_ignore(c, it->kids[0], X_NOPAT));
      return expr_ignore(c, it->kids[1], X_NOPAT);
    case QVG_SET_LABELS: return expr_ignore(c, it->kids[0], X_NOPAT);
    default: return QV_OK;
  }
}

static qv_status query(ck *c, const qvg_node *q);

static qv_status clause(ck *c, const qvg_node *cl) {
  switch (cl->kind) {
    case QVG_MATCH: QV_RETURN_NOT_OK(pattern(c, cl->kids[0], P_MATCH)); return where(c, cl->kids[1]);
    case QVG_CREATE: return pattern(c, cl->kids[0], P_CREATE);
    case QVG_MERGE: {
      int32_t first_new = c->n;
      QV_RETURN_NOT_OK(pattern_path(c, cl->kids[0], P_MERGE, first_new));
      for (int32_t k = 0; k < cl->kids[0]->n_kids; k++) QV_RETURN_NOT_OK(props(c, cl->kids[0]->kids[k]));
      for (int32_t i = 1; i < cl->n_kids; i++)
        for (int32_t j = 0; j < cl->kids[i]->n_kids; j++) QV_RETURN_NOT_OK(set_item(c, cl->kids[i]->kids[j]));
      return QV_OK;
    }
    case QVG_UNWIND: {
      ck_ty t;
      QV_RETURN_NOT_OK(expr(c, cl->kids[0], X_NOPAT, &t));
      if (find(c, cl->str) >= c->base)
        return fail(c, cl, CK_ERR, "variable `%s` is already declared (UNWIND ... AS needs a new name)", cl->str);
      return push(c, cl->str, elem_of(t));
    }
    case QVG_WITH:
    case QVG_RETURN: return projection(c, cl);
    case QVG_SET:
      for (int32_t i = 0; i < cl->n_kids; i++) QV_RETURN_NOT_OK(set_item(c, cl->kids[i]));
      return QV_OK;
    case QVG_DELETE:
      for (int32_t i = 0; i < cl->n_kids; i++) {
        const qvg_node *x = cl->kids[i];
        ck_ty t;
        QV_RETURN_NOT_OK(expr(c, x, X_NOPAT, &t));
        if ((t.t >= T_BOOL && t.t <= T_STRING) || t.t == T_MAP)
          return fail(c, x, CK_ERR, "DELETE expects a node, a relationship or a path, not %s", tname(t.t));
      }
      return QV_OK;
    case QVG_REMOVE:
      for (int32_t i = 0; i < cl->n_kids; i++) QV_RETURN_NOT_OK(expr_ignore(c, cl->kids[i]->kids[0], X_NOPAT));
      return QV_OK;
    case QVG_CALL: {
      const qvg_node *args = cl->kids[0], *y = cl->n_kids > 1 ? cl->kids[1] : NULL;
      for (int32_t i = 0; args && i < args->n_kids; i++) QV_RETURN_NOT_OK(expr_ignore(c, args->kids[i], X_NOPAT));
      if (!y || (y->flags & QVG_F_STAR)) {
        c->open = true; /* the procedure's outputs are not known here */
        return QV_OK;
      }
      for (int32_t i = 1; i < y->n_kids; i++) {
        const qvg_node *it = y->kids[i];
        const char *name = it->str ? it->str : it->kids[0]->str;
        if (find(c, name) >= 0)
          return fail(c, it, CK_ERR, "variable `%s` is already declared (YIELD needs a new name)", name);
        QV_RETURN_NOT_OK(push(c, name, ty(T_ANY)));
      }
      return where(c, y->kids[0]);
    }
    case QVG_CALL_SUB: c->open = true; return QV_OK;
    default: c->open = true; return QV_OK;
  }
}

static qv_status query(ck *c, const qvg_node *q) {
  if (q->kind == QVG_UNION) {
    int32_t base = c->n;
    bool open = c->open;
    QV_RETURN_NOT_OK(query(c, q->kids[0]));
    c->n = base;
    c->open = open;
    QV_RETURN_NOT_OK(query(c, q->kids[1]));
    c->n = base;
    return QV_OK;
  }
  if (q->kind != QVG_QUERY) return QV_OK;
  for (int32_t i = 0; i < q->n_kids; i++) QV_RETURN_NOT_OK(clause(c, q->kids[i]));
  return QV_OK;
}

qv_status qvg_cypher_check(const qvg_node *root, qv_error *err) {
  if (!root) return QV_OK;
  ck c;
  memset(&c, 0, sizeof c);
  c.err = err;
  qv_status st = query(&c, root);
  qv_free(c.v);
  return st;
}
