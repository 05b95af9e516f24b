/* Cypher expressions, by precedence from loosest to tightest (openCypher 9):
 *
 *   OR, XOR, AND, NOT (prefix),
 *   comparison (= <> < > <= >=; a chain a < b < c is one QVG_COMPARE),
 *   predicates (IN, STARTS WITH, ENDS WITH, CONTAINS, =~, IS [NOT] NULL),
 *   + -, * / %, ^ (left-associative, as in the grammar),
 *   unary + - (tighter than ^: -2^2 is (-2)^2),
 *   postfix (.key, [i], [a..b], then :Label tests), atoms.
 *
 * A minus sign directly before an integer literal with no postfix after it
 * is folded into the literal, which is how -9223372036854775808 is read;
 * so the tree never holds NEG over a plain integer, and the printer's
 * negative literals read back as the same literal. */
#include <string.h>

#include "graph/cypher_int.h"

static bool enter(qvg_parser *p) {
  if (++p->depth > QVG_CYPHER_MAX_NESTING) {
    const qvg_token *t = qvg_peek(p, 0);
    qvg_fail_at(p, t->line, t->col, "query nested too deeply (limit %d)", QVG_CYPHER_MAX_NESTING);
    return false;
  }
  return true;
}

static qvg_node *mk2(qvg_parser *p, int kind, int op, const qvg_token *at, qvg_node *a, qvg_node *b) {
  if (!a || !b) return NULL;
  qvg_node *kids[2] = {a, b};
  qvg_node *x = qvg_mk(p, kind, at, kids, 2);
  if (x) x->op = (uint16_t)op;
  return x;
}

static qvg_node *mk_vec(qvg_parser *p, int kind, const qvg_token *t, qvg_vec *v) {
  qvg_node *x = qvg_failed(p) ? NULL : qvg_mk(p, kind, t, v->v, v->n);
  qvg_vec_free(v);
  return x;
}

static void set_name(qvg_node *x, const qvg_token *t) {
  if (!x) return;
  x->str = t->str;
  x->len = t->slen;
}

static qvg_node *parse_unary(qvg_parser *p);
static qvg_node *parse_not(qvg_parser *p);

/* ---- atoms ---- */

static const qvg_token *expect_var(qvg_parser *p, const char *what) {
  const qvg_token *t = qvg_peek(p, 0);
  if (!qvg_is_name_token(t)) return qvg_expected(p, t, what);
  return qvg_next(p);
}

static const qvg_token *expect_symbol(qvg_parser *p, const char *what) {
  const qvg_token *t = qvg_peek(p, 0);
  if (t->kind != QVG_T_WORD && t->kind != QVG_T_QWORD) return qvg_expected(p, t, what);
  return qvg_next(p);
}

/* '{' (key ':' expr (',' ...)*)? '}' */
static qvg_node *parse_map(qvg_parser *p) {
  const qvg_token *at = qvg_next(p);
  qvg_vec v = {0};
  if (!qvg_at(p, '}')) {
    do {
      const qvg_token *k = expect_symbol(p, "a map key");
      if (!k || !qvg_expect(p, ':', NULL)) break;
      qvg_node *val = qvg_parse_expr(p);
      qvg_node *e = val ? qvg_mk(p, QVG_ENTRY, k, &val, 1) : NULL;
      set_name(e, k);
      if (!qvg_vec_push(p, &v, e)) break;
    } while (qvg_accept(p, ','));
  }
  if (!qvg_failed(p)) qvg_expect(p, '}', "',' or '}' in a map");
  return mk_vec(p, QVG_MAP, at, &v);
}

/* var '{' selectors '}' */
static qvg_node *parse_map_proj(qvg_parser *p, qvg_node *var) {
  const qvg_token *at = qvg_next(p);
  qvg_vec v = {0};
  qvg_vec_push(p, &v, var);
  if (!qvg_at(p, '}')) {
    do {
      const qvg_token *t = qvg_peek(p, 0);
      qvg_node *sel = NULL;
      if (qvg_accept(p, '.')) {
        if (qvg_accept(p, '*')) {
          sel = qvg_mk(p, QVG_ALL_SEL, t, NULL, 0);
        } else {
          const qvg_token *k = expect_symbol(p, "a property key or '*' after '.'");
          if (k) set_name(sel = qvg_mk(p, QVG_PROP_SEL, t, NULL, 0), k);
        }
      } else if ((t->kind == QVG_T_WORD || t->kind == QVG_T_QWORD) && qvg_peek(p, 1)->kind == ':') {
        qvg_next(p);
        qvg_next(p);
        qvg_node *val = qvg_parse_expr(p);
        if (val) set_name(sel = qvg_mk(p, QVG_ENTRY, t, &val, 1), t);
      } else {
        const qvg_token *k = expect_var(p, "'.key', 'key: value' or a variable in a map projection");
        if (k) set_name(sel = qvg_mk(p, QVG_VAR, k, NULL, 0), k);
      }
      if (!qvg_vec_push(p, &v, sel)) break;
    } while (qvg_accept(p, ','));
  }
  if (!qvg_failed(p)) qvg_expect(p, '}', "',' or '}' in a map projection");
  return mk_vec(p, QVG_MAP_PROJ, at, &v);
}

/* [x IN list WHERE pred | expr], the '[' already taken. */
static qvg_node *parse_list_comp(qvg_parser *p, const qvg_token *at) {
  const qvg_token *var = qvg_next(p);
  qvg_next(p); /* IN */
  qvg_node *kids[3] = {qvg_parse_expr(p), NULL, NULL};
  if (!kids[0]) return NULL;
  if (qvg_accept_kw(p, "WHERE") && !(kids[1] = qvg_parse_expr(p))) return NULL;
  if (qvg_accept(p, '|') && !(kids[2] = qvg_parse_expr(p))) return NULL;
  if (!qvg_expect(p, ']', "']' closing a list comprehension")) return NULL;
  qvg_node *x = qvg_mk(p, QVG_LIST_COMP, at, kids, 3);
  set_name(x, var);
  return x;
}

/* [p = (a)-->(b) WHERE pred | expr], the '[' already taken. */
static qvg_node *parse_pattern_comp(qvg_parser *p, const qvg_token *at) {
  qvg_node *kids[3] = {qvg_parse_path(p, true), NULL, NULL};
  if (!kids[0]) return NULL;
  if (qvg_accept_kw(p, "WHERE") && !(kids[1] = qvg_parse_expr(p))) return NULL;
  if (!qvg_expect(p, '|', "'|' in a pattern comprehension")) return NULL;
  if (!(kids[2] = qvg_parse_expr(p))) return NULL;
  if (!qvg_expect(p, ']', "']' closing a pattern comprehension")) return NULL;
  return qvg_mk(p, QVG_PAT_COMP, at, kids, 3);
}

static qvg_node *parse_bracket(qvg_parser *p) {
  const qvg_token *at = qvg_next(p);
  const qvg_token *a = qvg_peek(p, 0), *b = qvg_peek(p, 1);
  if (qvg_is_name_token(a) && qvg_is_kw(b, "IN")) return parse_list_comp(p, at);
  if ((qvg_is_name_token(a) && b->kind == '=' && qvg_looks_like_pattern(p, 2)) || qvg_looks_like_pattern(p, 0))
    return parse_pattern_comp(p, at);
  qvg_vec v = {0};
  if (!qvg_at(p, ']')) {
    do {
      if (!qvg_vec_push(p, &v, qvg_parse_expr(p))) break;
    } while (qvg_accept(p, ','));
  }
  if (!qvg_failed(p)) qvg_expect(p, ']', "',' or ']' in a list");
  return mk_vec(p, QVG_LIST, at, &v);
}

static qvg_node *parse_case(qvg_parser *p) {
  const qvg_token *at = qvg_next(p);
  qvg_vec v = {0};
  qvg_node *subject = NULL, *other = NULL;
  if (!qvg_at_kw(p, "WHEN") && !(subject = qvg_parse_expr(p))) return NULL;
  /* Slots 0 and 1 are the subject and ELSE, filled in at the end. */
  qvg_node *dummy = qvg_mk(p, QVG_NULL, at, NULL, 0);
  if (!qvg_vec_push(p, &v, dummy) || !qvg_vec_push(p, &v, dummy)) goto fail;
  if (!qvg_at_kw(p, "WHEN")) {
    qvg_expected(p, qvg_peek(p, 0), "WHEN");
    goto fail;
  }
  while (qvg_at_kw(p, "WHEN")) {
    const qvg_token *w = qvg_next(p);
    qvg_node *kids[2] = {qvg_parse_expr(p), NULL};
    if (!kids[0] || !qvg_expect_kw(p, "THEN") || !(kids[1] = qvg_parse_expr(p))) goto fail;
    if (!qvg_vec_push(p, &v, qvg_mk(p, QVG_WHEN, w, kids, 2))) goto fail;
  }
  if (qvg_accept_kw(p, "ELSE") && !(other = qvg_parse_expr(p))) goto fail;
  if (!qvg_expect_kw(p, "END")) goto fail;
  v.v[0] = subject;
  v.v[1] = other;
  return mk_vec(p, QVG_CASE, at, &v);
fail:
  qvg_vec_free(&v);
  return NULL;
}

/* EXISTS { ... } and COUNT { ... }: a query, or a pattern with an optional
 * WHERE. */
static qvg_node *parse_subquery(qvg_parser *p, int kind) {
  const qvg_token *at = qvg_next(p);
  qvg_next(p); /* { */
  qvg_node *kids[2] = {NULL, NULL};
  static const char *const starts[] = {"MATCH", "OPTIONAL", "WITH", "UNWIND", "RETURN", "CALL"};
  bool query = false;
  for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) query |= qvg_at_kw(p, starts[k]);
  int saved = p->pat_ctx;
  p->pat_ctx = 0;
  if (query) {
    kids[0] = qvg_parse_query(p);
    const qvg_node *u = kids[0] ? qvg_first_update(kids[0]) : NULL;
    if (u)
      qvg_fail_at(p, u->line, u->col, "a subquery in an expression cannot update the graph (%s)",
                  qvg_kind_name(u->kind));
    p->pat_ctx = saved;
    if (qvg_failed(p)) return NULL;
  } else {
    p->pat_ctx = saved;
    if (!(kids[0] = qvg_parse_pattern(p))) return NULL;
    if (qvg_accept_kw(p, "WHERE") && !(kids[1] = qvg_parse_expr(p))) return NULL;
  }
  if (!qvg_expect(p, '}', "'}' closing a subquery")) return NULL;
  return qvg_mk(p, kind, at, kids, 2);
}

/* all/any/none/single(x IN list WHERE pred) */
static qvg_node *parse_quantifier(qvg_parser *p, int q) {
  const qvg_token *at = qvg_next(p);
  qvg_next(p); /* ( */
  const qvg_token *var = qvg_next(p);
  qvg_next(p); /* IN */
  qvg_node *kids[2] = {qvg_parse_expr(p), NULL};
  if (!kids[0]) return NULL;
  if (qvg_accept_kw(p, "WHERE") && !(kids[1] = qvg_parse_expr(p))) return NULL;
  if (!qvg_expect(p, ')', NULL)) return NULL;
  qvg_node *x = qvg_mk(p, QVG_QUANT, at, kids, 2);
  if (x) x->op = (uint16_t)q;
  set_name(x, var);
  return x;
}

/* reduce(acc = init, x IN list | expr) */
static qvg_node *parse_reduce(qvg_parser *p) {
  const qvg_token *at = qvg_next(p);
  qvg_next(p); /* ( */
  const qvg_token *acc = expect_var(p, "an accumulator name");
  if (!acc || !qvg_expect(p, '=', NULL)) return NULL;
  qvg_node *kids[4] = {qvg_parse_expr(p), NULL, NULL, NULL};
  if (!kids[0] || !qvg_expect(p, ',', NULL)) return NULL;
  const qvg_token *var = expect_var(p, "a variable");
  if (!var || !qvg_expect_kw(p, "IN")) return NULL;
  set_name(kids[1] = qvg_mk(p, QVG_VAR, var, NULL, 0), var);
  if (!kids[1] || !(kids[2] = qvg_parse_expr(p)) || !qvg_expect(p, '|', NULL)) return NULL;
  if (!(kids[3] = qvg_parse_expr(p)) || !qvg_expect(p, ')', NULL)) return NULL;
  qvg_node *x = qvg_mk(p, QVG_REDUCE, at, kids, 4);
  set_name(x, acc);
  return x;
}

/* name(.name)* '(' [DISTINCT] args ')'; the caller checked the shape. */
static qvg_node *parse_call(qvg_parser *p) {
  const qvg_token *at = qvg_peek(p, 0);
  char name[512];
  size_t n = 0;
  for (;;) {
    const qvg_token *t = qvg_next(p);
    if (n + (size_t)t->slen + 2 > sizeof name) return qvg_fail_at(p, t->line, t->col, "function name too long");
    memcpy(name + n, t->str, (size_t)t->slen);
    n += (size_t)t->slen;
    if (!qvg_accept(p, '.')) break;
    name[n++] = '.';
  }
  qvg_next(p); /* ( */
  if (n == 5 && qvg_is_kw(at, "COUNT") && qvg_at(p, '*') && qvg_peek(p, 1)->kind == ')') {
    qvg_next(p);
    qvg_next(p);
    return qvg_mk(p, QVG_COUNT_STAR, at, NULL, 0);
  }
  uint32_t flags = qvg_accept_kw(p, "DISTINCT") ? QVG_F_DISTINCT : 0;
  qvg_vec v = {0};
  if (!qvg_at(p, ')')) {
    do {
      if (!qvg_vec_push(p, &v, qvg_parse_expr(p))) break;
    } while (qvg_accept(p, ','));
  }
  if (!qvg_failed(p)) qvg_expect(p, ')', "',' or ')' after a function argument");
  qvg_node *x = mk_vec(p, QVG_CALL_FN, at, &v);
  if (x) {
    x->flags = flags;
    x->str = qvg_strdup(p, name, n);
    x->len = (int32_t)n;
  }
  return x;
}

/* Is a (dotted) function name followed by '(' at the cursor? */
static bool at_call(const qvg_parser *p) {
  int32_t i = 0;
  for (;;) {
    int k = qvg_peek(p, i)->kind;
    if (k != QVG_T_WORD && k != QVG_T_QWORD) return false;
    if (qvg_peek(p, i + 1)->kind == '(') return true;
    if (qvg_peek(p, i + 1)->kind != '.') return false;
    i += 2;
  }
}

qvg_node *qvg_parse_atom(qvg_parser *p) {
  const qvg_token *t = qvg_peek(p, 0);
  switch (t->kind) {
    case QVG_T_INT: {
      if (t->big || t->u > (uint64_t)INT64_MAX)
        return qvg_fail_at(p, t->line, t->col, "integer literal out of range (integer overflow)");
      qvg_node *x = qvg_mk(p, QVG_INT, qvg_next(p), NULL, 0);
      if (x) x->i0 = (int64_t)t->u;
      return x;
    }
    case QVG_T_FLOAT: {
      qvg_node *x = qvg_mk(p, QVG_FLOAT, qvg_next(p), NULL, 0);
      if (x) x->f = t->f;
      return x;
    }
    case QVG_T_STRING: {
      qvg_node *x = qvg_mk(p, QVG_STRING, qvg_next(p), NULL, 0);
      set_name(x, t);
      return x;
    }
    case QVG_T_PARAM: {
      qvg_node *x = qvg_mk(p, QVG_PARAM, qvg_next(p), NULL, 0);
      set_name(x, t);
      return x;
    }
    case '[': return parse_bracket(p);
    case '{': return parse_map(p);
    case '(': {
      if (qvg_looks_like_pattern(p, 0)) {
        qvg_node *path = qvg_parse_path(p, false);
        return path ? qvg_mk(p, QVG_PAT_PRED, t, &path, 1) : NULL;
      }
      qvg_next(p);
      qvg_node *x = qvg_parse_expr(p);
      if (x && !qvg_expect(p, ')', NULL)) return NULL;
      return x;
    }
    case QVG_T_WORD:
    case QVG_T_QWORD: break;
    default: return qvg_expected(p, t, "an expression");
  }
  int next = qvg_peek(p, 1)->kind;
  if (t->kind == QVG_T_WORD) {
    if (qvg_is_kw(t, "TRUE")) return qvg_mk(p, QVG_LIT_TRUE, qvg_next(p), NULL, 0);
    if (qvg_is_kw(t, "FALSE")) return qvg_mk(p, QVG_LIT_FALSE, qvg_next(p), NULL, 0);
    if (qvg_is_kw(t, "NULL")) return qvg_mk(p, QVG_NULL, qvg_next(p), NULL, 0);
    if (qvg_is_kw(t, "CASE")) return parse_case(p);
    if (next == '{' && qvg_is_kw(t, "EXISTS")) return parse_subquery(p, QVG_EXISTS);
    if (next == '{' && qvg_is_kw(t, "COUNT")) return parse_subquery(p, QVG_COUNT_SUB);
    if (next == '(' && qvg_is_name_token(qvg_peek(p, 2)) && qvg_is_kw(qvg_peek(p, 3), "IN")) {
      static const char *const qs[] = {"ALL", "ANY", "NONE", "SINGLE"};
      for (int k = 0; k < 4; k++)
        if (qvg_is_kw(t, qs[k])) return parse_quantifier(p, k);
    }
    if (next == '(' && qvg_is_kw(t, "REDUCE")) return parse_reduce(p);
    if (next == '(' && qvg_is_kw(t, "EXISTS")) {
      /* exists((a)-->(b)) is a pattern predicate; exists(n.k) a function. */
      if (qvg_looks_like_pattern(p, 2)) {
        qvg_next(p);
        qvg_next(p);
        qvg_node *path = qvg_parse_path(p, false);
        qvg_node *pred = path ? qvg_mk(p, QVG_PAT_PRED, t, &path, 1) : NULL;
        if (!pred || !qvg_expect(p, ')', NULL)) return NULL;
        qvg_node *x = qvg_mk(p, QVG_CALL_FN, t, &pred, 1);
        set_name(x, t);
        return x;
      }
      return parse_call(p);
    }
  }
  if (at_call(p) && (t->kind == QVG_T_QWORD || !qvg_is_reserved(t->str, (size_t)t->slen) || next == '.'))
    return parse_call(p);
  if (!qvg_is_name_token(t)) return qvg_expected(p, t, "an expression");
  qvg_node *var = qvg_mk(p, QVG_VAR, qvg_next(p), NULL, 0);
  set_name(var, t);
  if (var && qvg_at(p, '{')) return parse_map_proj(p, var);
  return var;
}

/* ---- operators ---- */

qvg_node *qvg_parse_postfix(qvg_parser *p, bool labels) {
  qvg_node *x = qvg_parse_atom(p);
  while (x) {
    const qvg_token *t = qvg_peek(p, 0);
    if (t->kind == '.') {
      qvg_next(p);
      const qvg_token *k = expect_symbol(p, "a property key after '.'");
      if (!k) return NULL;
      x = qvg_mk(p, QVG_PROP, t, &x, 1);
      set_name(x, k);
    } else if (t->kind == '[') {
      qvg_next(p);
      qvg_node *a = NULL, *b = NULL;
      if (!qvg_at(p, QVG_T_DOTDOT) && !(a = qvg_parse_expr(p))) return NULL;
      if (qvg_accept(p, QVG_T_DOTDOT)) {
        if (!qvg_at(p, ']') && !(b = qvg_parse_expr(p))) return NULL;
        if (!qvg_expect(p, ']', NULL)) return NULL;
        qvg_node *kids[3] = {x, a, b};
        x = qvg_mk(p, QVG_SLICE, t, kids, 3);
      } else {
        if (!a || !qvg_expect(p, ']', "']' or '..' in a subscript")) return NULL;
        x = mk2(p, QVG_INDEX, 0, t, x, a);
      }
    } else if (t->kind == ':' && labels) {
      qvg_node *l = qvg_parse_labels_expr(p);
      return mk2(p, QVG_LABEL_TEST, 0, t, x, l);
    } else {
      break;
    }
  }
  return x;
}

static qvg_node *parse_unary(qvg_parser *p) {
  const qvg_token *t = qvg_peek(p, 0);
  if (t->kind != '-' && t->kind != '+') return qvg_parse_postfix(p, true);
  if (!enter(p)) return NULL;
  qvg_next(p);
  qvg_node *x = NULL;
  const qvg_token *n = qvg_peek(p, 0);
  int after = qvg_peek(p, 1)->kind;
  if (t->kind == '-' && n->kind == QVG_T_INT && after != '.' && after != '[' && after != ':') {
    qvg_next(p);
    if (n->big || n->u > (uint64_t)INT64_MAX + 1) {
      x = qvg_fail_at(p, n->line, n->col, "integer literal out of range (integer overflow)");
    } else if ((x = qvg_mk(p, QVG_INT, t, NULL, 0))) {
      x->i0 = n->u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)n->u;
    }
  } else {
    qvg_node *a = parse_unary(p);
    if (a && t->kind == '-' && a->kind == QVG_INT && a->i0 != INT64_MIN) {
      /* -(5) is the literal -5 too, so NEG never sits over an integer. */
      a->i0 = -a->i0;
      a->line = t->line;
      a->col = t->col;
      x = a;
    } else {
      x = a ? qvg_mk(p, t->kind == '-' ? QVG_NEG : QVG_POS, t, &a, 1) : NULL;
    }
  }
  p->depth--;
  return x;
}

static qvg_node *parse_pow(qvg_parser *p) {
  qvg_node *x = parse_unary(p);
  while (x && qvg_at(p, '^')) {
    const qvg_token *t = qvg_next(p);
    x = mk2(p, QVG_BINARY, QVG_OP_POW, t, x, parse_unary(p));
  }
  return x;
}

static qvg_node *parse_mul(qvg_parser *p) {
  qvg_node *x = parse_pow(p);
  for (;;) {
    const qvg_token *t = qvg_peek(p, 0);
    int op = t->kind == '*' ? QVG_OP_MUL : t->kind == '/' ? QVG_OP_DIV : t->kind == '%' ? QVG_OP_MOD : -1;
    if (!x || op < 0) return x;
    qvg_next(p);
    x = mk2(p, QVG_BINARY, op, t, x, parse_pow(p));
  }
}

static qvg_node *parse_add(qvg_parser *p) {
  qvg_node *x = parse_mul(p);
  for (;;) {
    const qvg_token *t = qvg_peek(p, 0);
    int op = t->kind == '+' ? QVG_OP_ADD : t->kind == '-' ? QVG_OP_SUB : -1;
    if (!x || op < 0) return x;
    qvg_next(p);
    x = mk2(p, QVG_BINARY, op, t, x, parse_mul(p));
  }
}

static qvg_node *parse_predicate(qvg_parser *p) {
  qvg_node *x = parse_add(p);
  while (x) {
    const qvg_token *t = qvg_peek(p, 0);
    int op = -1;
    if (qvg_is_kw(t, "IN")) {
      qvg_next(p);
      op = QVG_OP_IN;
    } else if (qvg_is_kw(t, "STARTS") || qvg_is_kw(t, "ENDS")) {
      op = qvg_is_kw(t, "STARTS") ? QVG_OP_STARTS_WITH : QVG_OP_ENDS_WITH;
      qvg_next(p);
      if (!qvg_expect_kw(p, "WITH")) return NULL;
    } else if (qvg_is_kw(t, "CONTAINS")) {
      qvg_next(p);
      op = QVG_OP_CONTAINS;
    } else if (t->kind == QVG_T_REGEX) {
      qvg_next(p);
      op = QVG_OP_REGEX;
    } else if (qvg_is_kw(t, "IS")) {
      qvg_next(p);
      bool neg = qvg_accept_kw(p, "NOT");
      if (!qvg_expect_kw(p, "NULL")) return NULL;
      x = qvg_mk(p, QVG_IS_NULL, t, &x, 1);
      if (x && neg) x->flags |= QVG_F_NOT;
      continue;
    } else {
      break;
    }
    x = mk2(p, QVG_BINARY, op, t, x, parse_add(p));
  }
  return x;
}

static int cmp_op(const qvg_token *t) {
  switch (t->kind) {
    case '=': return QVG_CMP_EQ;
    case QVG_T_NE: return QVG_CMP_NE;
    case '<': return QVG_CMP_LT;
    case QVG_T_LE: return QVG_CMP_LE;
    case '>': return QVG_CMP_GT;
    case QVG_T_GE: return QVG_CMP_GE;
    default: return -1;
  }
}

static qvg_node *parse_compare(qvg_parser *p) {
  qvg_node *first = parse_predicate(p);
  if (!first || cmp_op(qvg_peek(p, 0)) < 0) return first;
  const qvg_token *at = qvg_peek(p, 0);
  qvg_vec v = {0};
  uint8_t ops_buf[64];
  uint8_t *ops = ops_buf;
  int32_t cap = 64;
  qvg_vec_push(p, &v, first);
  int op;
  while ((op = cmp_op(qvg_peek(p, 0))) >= 0) {
    qvg_next(p);
    if (v.n - 1 == cap) {
      uint8_t *n = qv_malloc((size_t)cap * 2);
      if (!n) {
        qvg_nomem(p);
        break;
      }
      memcpy(n, ops, (size_t)cap);
      if (ops != ops_buf) qv_free(ops);
      ops = n;
      cap *= 2;
    }
    ops[v.n - 1] = (uint8_t)op;
    if (!qvg_vec_push(p, &v, parse_predicate(p))) break;
  }
  int32_t n_ops = v.n - 1;
  qvg_node *x = mk_vec(p, QVG_COMPARE, at, &v);
  if (x) {
    uint8_t *o = qvg_ast_alloc(p->ast, (size_t)n_ops);
    if (o) {
      memcpy(o, ops, (size_t)n_ops);
      x->ops = o;
    } else {
      x = qvg_nomem(p);
    }
  }
  if (ops != ops_buf) qv_free(ops);
  return x;
}

static qvg_node *parse_not(qvg_parser *p) {
  if (!qvg_at_kw(p, "NOT")) return parse_compare(p);
  if (!enter(p)) return NULL;
  const qvg_token *t = qvg_next(p);
  qvg_node *a = parse_not(p);
  qvg_node *x = a ? qvg_mk(p, QVG_NOT, t, &a, 1) : NULL;
  p->depth--;
  return x;
}

static qvg_node *parse_and(qvg_parser *p) {
  qvg_node *x = parse_not(p);
  while (x && qvg_at_kw(p, "AND")) {
    const qvg_token *t = qvg_next(p);
    x = mk2(p, QVG_AND, 0, t, x, parse_not(p));
  }
  return x;
}

static qvg_node *parse_xor(qvg_parser *p) {
  qvg_node *x = parse_and(p);
  while (x && qvg_at_kw(p, "XOR")) {
    const qvg_token *t = qvg_next(p);
    x = mk2(p, QVG_XOR, 0, t, x, parse_and(p));
  }
  return x;
}

qvg_node *qvg_parse_expr(qvg_parser *p) {
  if (!enter(p)) return NULL;
  qvg_node *x = parse_xor(p);
  while (x && qvg_at_kw(p, "OR")) {
    const qvg_token *t = qvg_next(p);
    x = mk2(p, QVG_OR, 0, t, x, parse_xor(p));
  }
  p->depth--;
  return x;
}
