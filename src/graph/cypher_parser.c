/* The Cypher parser: queries, clauses and patterns (expressions are in
 * cypher_parse_expr.c), the shared token helpers and diagnostics, and the
 * entry point qvg_cypher_parse.
 *
 * Recursive descent over the token array; every failure goes through
 * qvg_fail_at, which keeps the first report only, so callers unwind by
 * returning NULL without reporting again. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "graph/cypher_int.h"

/* ---- diagnostics ---- */

void *qvg_fail_at(qvg_parser *p, int32_t line, int32_t col, const char *fmt, ...) {
  if (p->st != QV_OK) return NULL;
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  p->st = qv_error_set(p->err, QV_ERR_PARSE, "cypher: %s at line %d, column %d", msg, (int)line, (int)col);
  return NULL;
}

/* The text of token t for "found '...'", cut at 40 bytes and one line. */
static void token_text(const qvg_parser *p, const qvg_token *t, char *out, size_t cap) {
  if (t->kind == QVG_T_EOF) {
    snprintf(out, cap, "end of input");
    return;
  }
  int32_t len = t->len;
  const char *s = p->src + t->start;
  for (int32_t i = 0; i < len; i++)
    if (s[i] == '\n') len = i;
  bool cut = len > 40;
  if (cut) len = 40;
  snprintf(out, cap, "'%.*s%s'", (int)len, s, cut ? "..." : "");
}

void *qvg_expected(qvg_parser *p, const qvg_token *t, const char *what) {
  if (p->st != QV_OK) return NULL;
  char found[64];
  token_text(p, t, found, sizeof found);
  p->st = qv_error_set(p->err, QV_ERR_PARSE, "cypher: expected %s at line %d, column %d, found %s", what, (int)t->line,
                       (int)t->col, found);
  return NULL;
}

void *qvg_nomem(qvg_parser *p) {
  if (p->st == QV_OK) p->st = qv_error_nomem(p->err, "cypher");
  return NULL;
}

/* ---- tokens ---- */

bool qvg_is_kw(const qvg_token *t, const char *kw) {
  size_t n = strlen(kw);
  return t->kind == QVG_T_WORD && (size_t)t->slen == n && strncasecmp(t->str, kw, n) == 0;
}

bool qvg_accept_kw(qvg_parser *p, const char *kw) {
  if (!qvg_at_kw(p, kw)) return false;
  qvg_next(p);
  return true;
}

bool qvg_accept(qvg_parser *p, int kind) {
  if (!qvg_at(p, kind)) return false;
  qvg_next(p);
  return true;
}

static const char *kind_text(int kind, char *buf) {
  switch (kind) {
    case QVG_T_LE: return "'<='";
    case QVG_T_GE: return "'>='";
    case QVG_T_NE: return "'<>'";
    case QVG_T_REGEX: return "'=~'";
    case QVG_T_PLUSEQ: return "'+='";
    case QVG_T_DOTDOT: return "'..'";
    case QVG_T_EOF: return "end of input";
    default:
      if (kind < 256) {
        buf[0] = '\'';
        buf[1] = (char)kind;
        buf[2] = '\'';
        buf[3] = '\0';
        return buf;
      }
      return "a token";
  }
}

bool qvg_expect(qvg_parser *p, int kind, const char *what) {
  if (qvg_accept(p, kind)) return true;
  char buf[8];
  qvg_expected(p, qvg_peek(p, 0), what ? what : kind_text(kind, buf));
  return false;
}

bool qvg_expect_kw(qvg_parser *p, const char *kw) {
  if (qvg_accept_kw(p, kw)) return true;
  qvg_expected(p, qvg_peek(p, 0), kw);
  return false;
}

static const char *const reserved[] = {
    "ALL",    "AND",      "AS",    "ASC",        "ASCENDING", "BY",       "CALL",  "CASE", "CONTAINS",
    "CREATE", "DELETE",   "DESC",  "DESCENDING", "DETACH",    "DISTINCT", "ELSE",  "END",  "ENDS",
    "EXISTS", "FALSE",    "IN",    "IS",         "LIMIT",     "MATCH",    "MERGE", "NOT",  "NULL",
    "ON",     "OPTIONAL", "OR",    "ORDER",      "REMOVE",    "RETURN",   "SET",   "SKIP", "STARTS",
    "THEN",   "TRUE",     "UNION", "UNWIND",     "WHEN",      "WHERE",    "WITH",  "XOR",  "YIELD",
};

bool qvg_is_reserved(const char *s, size_t n) {
  for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; k++)
    if (strlen(reserved[k]) == n && strncasecmp(reserved[k], s, n) == 0) return true;
  return false;
}

bool qvg_is_name_token(const qvg_token *t) {
  if (t->kind == QVG_T_QWORD) return true;
  return t->kind == QVG_T_WORD && !qvg_is_reserved(t->str, (size_t)t->slen);
}

/* ---- nodes ---- */

const char *qvg_strdup(qvg_parser *p, const char *s, size_t n) {
  char *c = qvg_ast_alloc(p->ast, n + 1);
  if (!c) return qvg_nomem(p);
  memcpy(c, s, n);
  c[n] = '\0';
  return c;
}

qvg_node *qvg_mk(qvg_parser *p, int kind, const qvg_token *t, qvg_node *const *kids, int32_t n_kids) {
  if (p->st != QV_OK) return NULL;
  qvg_node *x = qvg_ast_alloc(p->ast, sizeof *x);
  if (!x) return qvg_nomem(p);
  x->kind = (uint16_t)kind;
  x->line = t->line;
  x->col = t->col;
  int height = 0;
  if (n_kids > 0) {
    x->kids = qvg_ast_alloc(p->ast, (size_t)n_kids * sizeof *x->kids);
    if (!x->kids) return qvg_nomem(p);
    for (int32_t i = 0; i < n_kids; i++) {
      x->kids[i] = kids[i];
      if (kids[i] && kids[i]->height > height) height = kids[i]->height;
    }
    x->n_kids = n_kids;
  }
  if (height + 1 > QVG_CYPHER_MAX_DEPTH)
    return qvg_fail_at(p, t->line, t->col, "query nested too deeply (limit %d)", QVG_CYPHER_MAX_DEPTH);
  x->height = (uint16_t)(height + 1);
  return x;
}

bool qvg_vec_push(qvg_parser *p, qvg_vec *v, qvg_node *x) {
  if (!x) return false;
  if (v->n == v->cap) {
    int32_t cap = v->cap ? v->cap * 2 : 8;
    qvg_node **n = qv_realloc(v->v, (size_t)cap * sizeof *n);
    if (!n) return qvg_nomem(p) != NULL;
    v->v = n;
    v->cap = cap;
  }
  v->v[v->n++] = x;
  return true;
}

/* A node from a vector, which is freed either way. */
static qvg_node *mk_vec(qvg_parser *p, int kind, const qvg_token *t, qvg_vec *v) {
  qvg_node *x = qvg_failed(p) ? NULL : qvg_mk(p, kind, t, v->v, v->n);
  qvg_vec_free(v);
  return x;
}

static qvg_node *mk_name(qvg_parser *p, int kind, const qvg_token *t) {
  qvg_node *x = qvg_mk(p, kind, t, NULL, 0);
  if (!x) return NULL;
  x->str = t->str;
  x->len = t->slen;
  return x;
}

/* Nesting guard for every recursive entry. */
static bool enter(qvg_parser *p) {
  if (++p->depth > QVG_CYPHER_MAX_NESTING) {
    const qvg_token *t = qvg_peek(p, 0);
    qvg_fail_at(p, t->line, t->col, "query nested too deeply (limit %d)", QVG_CYPHER_MAX_NESTING);
    return false;
  }
  return true;
}

/* ---- patterns ---- */

/* A variable name token (not a reserved word unless quoted). */
static const qvg_token *take_var(qvg_parser *p) {
  const qvg_token *t = qvg_peek(p, 0);
  if (!qvg_is_name_token(t)) return NULL;
  return qvg_next(p);
}

/* A label, type or key: any word. */
static const qvg_token *take_symbol(qvg_parser *p, const char *what) {
  const qvg_token *t = qvg_peek(p, 0);
  if (t->kind != QVG_T_WORD && t->kind != QVG_T_QWORD) return qvg_expected(p, t, what);
  return qvg_next(p);
}

/* (':' name)+ when the next token is ':'; NULL (and no error) otherwise. */
static qvg_node *parse_labels(qvg_parser *p, const char *what) {
  if (!qvg_at(p, ':')) return NULL;
  const qvg_token *at = qvg_peek(p, 0);
  qvg_vec v = {0};
  while (qvg_accept(p, ':')) {
    const qvg_token *n = take_symbol(p, what);
    if (!n || !qvg_vec_push(p, &v, mk_name(p, QVG_NAME, n))) break;
  }
  return mk_vec(p, QVG_LABELS, at, &v);
}

qvg_node *qvg_parse_labels_expr(qvg_parser *p) { return parse_labels(p, "a label"); }

/* MATCH and MERGE compare properties one by one, so a whole map given as a
 * parameter has no meaning there (the TCK's InvalidParameterUse). */
static bool check_props(qvg_parser *p, const qvg_node *props) {
  if (!props || props->kind != QVG_PARAM || (p->pat_ctx != 'M' && p->pat_ctx != 'G')) return true;
  qvg_fail_at(p, props->line, props->col, "a parameter cannot stand for the properties of a %s pattern (use a map)",
              p->pat_ctx == 'M' ? "MATCH" : "MERGE");
  return false;
}

/* A map literal or a parameter, when one follows. */
static qvg_node *parse_props(qvg_parser *p, bool *bad) {
  if (qvg_at(p, '{') || qvg_at(p, QVG_T_PARAM)) {
    int saved = p->pat_ctx;
    p->pat_ctx = 0;
    qvg_node *x = qvg_parse_atom(p);
    p->pat_ctx = saved;
    if (!x) *bad = true;
    return x;
  }
  return NULL;
}

static qvg_node *parse_node(qvg_parser *p) {
  const qvg_token *at = qvg_peek(p, 0);
  if (!qvg_expect(p, '(', "'(' (a node pattern)")) return NULL;
  const qvg_token *var = take_var(p);
  qvg_node *labels = parse_labels(p, "a label");
  if (qvg_failed(p)) return NULL;
  bool bad = false;
  qvg_node *props = parse_props(p, &bad);
  if (bad || !check_props(p, props) || !qvg_expect(p, ')', NULL)) return NULL;
  qvg_node *kids[2] = {labels, props};
  qvg_node *x = qvg_mk(p, QVG_NODE, at, kids, 2);
  if (x && var) {
    x->str = var->str;
    x->len = var->slen;
  }
  return x;
}

static bool parse_range_int(qvg_parser *p, int64_t *out) {
  const qvg_token *t = qvg_peek(p, 0);
  if (t->kind != QVG_T_INT) return true;
  if (t->big || t->u > (uint64_t)INT32_MAX) {
    qvg_fail_at(p, t->line, t->col, "variable length bound too large");
    return false;
  }
  *out = (int64_t)t->u;
  qvg_next(p);
  return true;
}

static qvg_node *parse_rel(qvg_parser *p) {
  const qvg_token *at = qvg_peek(p, 0);
  bool left = qvg_accept(p, '<');
  if (!qvg_expect(p, '-', "'-' (a relationship pattern)")) return NULL;
  const qvg_token *var = NULL;
  qvg_node *types = NULL, *props = NULL;
  uint32_t flags = 0;
  int64_t lo = -1, hi = -1;
  if (qvg_accept(p, '[')) {
    var = take_var(p);
    if (qvg_at(p, ':')) {
      const qvg_token *tat = qvg_peek(p, 0);
      qvg_vec v = {0};
      qvg_next(p);
      for (;;) {
        const qvg_token *n = take_symbol(p, "a relationship type");
        if (!n || !qvg_vec_push(p, &v, mk_name(p, QVG_NAME, n))) break;
        if (!qvg_accept(p, '|')) break;
        qvg_accept(p, ':');
      }
      types = mk_vec(p, QVG_LABELS, tat, &v);
      if (!types) return NULL;
    }
    if (qvg_accept(p, '*')) {
      flags |= QVG_F_VARLEN;
      if (!parse_range_int(p, &lo)) return NULL;
      if (qvg_accept(p, QVG_T_DOTDOT)) {
        if (!parse_range_int(p, &hi)) return NULL;
      } else {
        hi = lo;
      }
    }
    bool bad = false;
    props = parse_props(p, &bad);
    if (bad || !check_props(p, props) || !qvg_expect(p, ']', NULL)) return NULL;
  }
  if (!qvg_expect(p, '-', "'-' (a relationship pattern)")) return NULL;
  bool right = qvg_accept(p, '>');
  if (p->pat_ctx == 'C' || p->pat_ctx == 'G') {
    /* A relationship to create has one type and one length, and, for
     * CREATE, a direction (MERGE matches either way). */
    const char *clause = p->pat_ctx == 'C' ? "CREATE" : "MERGE";
    if (flags & QVG_F_VARLEN)
      return qvg_fail_at(p, at->line, at->col, "%s cannot create a variable length relationship", clause);
    if (!types || types->n_kids != 1)
      return qvg_fail_at(p, at->line, at->col, "a relationship in %s needs exactly one type", clause);
    if (p->pat_ctx == 'C' && left == right)
      return qvg_fail_at(p, at->line, at->col, "a relationship in CREATE needs a direction (-> or <-)");
  }
  qvg_node *kids[2] = {types, props};
  qvg_node *x = qvg_mk(p, QVG_REL, at, kids, 2);
  if (!x) return NULL;
  if (var) {
    x->str = var->str;
    x->len = var->slen;
  }
  x->op = (uint16_t)(left && !right ? QVG_DIR_LEFT : right && !left ? QVG_DIR_RIGHT : QVG_DIR_BOTH);
  x->flags = flags;
  x->i0 = lo;
  x->i1 = hi;
  return x;
}

static bool at_rel(const qvg_parser *p) {
  const qvg_token *a = qvg_peek(p, 0), *b = qvg_peek(p, 1);
  return (a->kind == '-' && (b->kind == '[' || b->kind == '-')) || (a->kind == '<' && b->kind == '-');
}

/* node (rel node)* into v. */
static bool parse_chain(qvg_parser *p, qvg_vec *v) {
  if (!qvg_vec_push(p, v, parse_node(p))) return false;
  while (at_rel(p)) {
    if (!qvg_vec_push(p, v, parse_rel(p))) return false;
    if (!qvg_vec_push(p, v, parse_node(p))) return false;
  }
  return true;
}

qvg_node *qvg_parse_path(qvg_parser *p, bool allow_name) {
  if (!enter(p)) return NULL;
  qvg_node *x = NULL;
  const qvg_token *at = qvg_peek(p, 0), *name = NULL;
  if (allow_name && qvg_is_name_token(at) && qvg_peek(p, 1)->kind == '=') {
    name = qvg_next(p);
    qvg_next(p);
  }
  int kind = QVG_PATH_PLAIN;
  const qvg_token *t = qvg_peek(p, 0);
  if (qvg_peek(p, 1)->kind == '(' && (qvg_is_kw(t, "SHORTESTPATH") || qvg_is_kw(t, "ALLSHORTESTPATHS"))) {
    kind = qvg_is_kw(t, "SHORTESTPATH") ? QVG_PATH_SHORTEST : QVG_PATH_ALL_SHORTEST;
    qvg_next(p);
    qvg_next(p);
  }
  qvg_vec v = {0};
  if (parse_chain(p, &v) && (kind == QVG_PATH_PLAIN || qvg_expect(p, ')', NULL))) x = mk_vec(p, QVG_PATH, at, &v);
  qvg_vec_free(&v);
  if (x) {
    x->op = (uint16_t)kind;
    if (name) {
      x->str = name->str;
      x->len = name->slen;
    }
  }
  p->depth--;
  return x;
}

qvg_node *qvg_parse_pattern(qvg_parser *p) {
  const qvg_token *at = qvg_peek(p, 0);
  qvg_vec v = {0};
  do {
    if (!qvg_vec_push(p, &v, qvg_parse_path(p, true))) break;
  } while (qvg_accept(p, ','));
  return mk_vec(p, QVG_PATTERN, at, &v);
}

/* Skips a balanced bracket run starting at token offset i; returns the
 * offset after it, or -1. */
static int32_t skip_balanced(const qvg_parser *p, int32_t i) {
  int32_t depth = 0;
  for (;; i++) {
    int k = qvg_peek(p, i)->kind;
    if (k == QVG_T_EOF) return -1;
    if (k == '(' || k == '[' || k == '{') depth++;
    if (k == ')' || k == ']' || k == '}') {
      if (--depth == 0) return i + 1;
    }
  }
}

bool qvg_looks_like_pattern(const qvg_parser *p, int32_t i) {
  if (qvg_peek(p, i)->kind != '(') return false;
  i++;
  if (qvg_is_name_token(qvg_peek(p, i))) i++;
  while (qvg_peek(p, i)->kind == ':') {
    int k = qvg_peek(p, i + 1)->kind;
    if (k != QVG_T_WORD && k != QVG_T_QWORD) return false;
    i += 2;
  }
  if (qvg_peek(p, i)->kind == '{') {
    i = skip_balanced(p, i);
    if (i < 0) return false;
  } else if (qvg_peek(p, i)->kind == QVG_T_PARAM) {
    i++;
  }
  if (qvg_peek(p, i)->kind != ')') return false;
  const qvg_token *a = qvg_peek(p, i + 1), *b = qvg_peek(p, i + 2);
  return (a->kind == '-' && (b->kind == '[' || b->kind == '-')) || (a->kind == '<' && b->kind == '-');
}

/* ---- clauses ---- */

static qvg_node *parse_where(qvg_parser *p) {
  if (!qvg_accept_kw(p, "WHERE")) return NULL;
  return qvg_parse_expr(p);
}

/* A pattern read for clause ctx ('M', 'C', 'G'). */
static qvg_node *clause_pattern(qvg_parser *p, int ctx, bool whole) {
  int saved = p->pat_ctx;
  p->pat_ctx = ctx;
  qvg_node *x = whole ? qvg_parse_pattern(p) : qvg_parse_path(p, true);
  p->pat_ctx = saved;
  return x;
}

static qvg_node *parse_match(qvg_parser *p, const qvg_token *at, bool optional) {
  qvg_node *kids[2] = {clause_pattern(p, 'M', true), NULL};
  if (!kids[0]) return NULL;
  if (qvg_at_kw(p, "WHERE") && !(kids[1] = parse_where(p))) return NULL;
  qvg_node *x = qvg_mk(p, QVG_MATCH, at, kids, 2);
  if (x && optional) x->flags |= QVG_F_OPTIONAL;
  return x;
}

/* Projection items: '*' [, item]* | item (, item)*.  An item without an
 * alias keeps its source text in k1 (a QVG_NAME), the column's name. */
static qvg_node *parse_items(qvg_parser *p) {
  const qvg_token *at = qvg_peek(p, 0);
  qvg_vec v = {0};
  uint32_t flags = 0;
  bool more = true;
  if (qvg_accept(p, '*')) {
    flags |= QVG_F_STAR;
    more = qvg_accept(p, ',');
  }
  while (more) {
    const qvg_token *first = qvg_peek(p, 0);
    qvg_node *e = qvg_parse_expr(p);
    if (!e) break;
    const qvg_token *last = &p->toks[p->pos - 1];
    qvg_node *kids[2] = {e, NULL};
    const qvg_token *alias = NULL;
    if (qvg_accept_kw(p, "AS")) {
      alias = take_var(p);
      if (!alias) {
        qvg_expected(p, qvg_peek(p, 0), "a name after AS");
        break;
      }
    } else if (p->pat_ctx == 'W' && e->kind != QVG_VAR) {
      qvg_fail_at(p, e->line, e->col, "an expression in WITH needs a name (add AS ...)");
      break;
    } else {
      qvg_node *src = qvg_mk(p, QVG_NAME, first, NULL, 0);
      if (!src) break;
      int32_t len = last->start + last->len - first->start;
      src->str = qvg_strdup(p, p->src + first->start, (size_t)len);
      src->len = len;
      kids[1] = src;
    }
    qvg_node *item = qvg_mk(p, QVG_ITEM, first, kids, 2);
    if (item && alias) {
      item->str = alias->str;
      item->len = alias->slen;
    }
    if (!qvg_vec_push(p, &v, item)) break;
    more = qvg_accept(p, ',');
  }
  qvg_node *x = mk_vec(p, QVG_ITEMS, at, &v);
  if (x) x->flags |= flags;
  return x;
}

static qvg_node *parse_order(qvg_parser *p) {
  const qvg_token *at = qvg_peek(p, 0);
  if (!qvg_at_kw(p, "ORDER")) return NULL;
  qvg_next(p);
  if (!qvg_expect_kw(p, "BY")) return NULL;
  qvg_vec v = {0};
  do {
    const qvg_token *st = qvg_peek(p, 0);
    qvg_node *e = qvg_parse_expr(p);
    if (!e) break;
    uint32_t flags = 0;
    if (qvg_accept_kw(p, "DESC") || qvg_accept_kw(p, "DESCENDING")) flags = QVG_F_DESC;
    else if (!qvg_accept_kw(p, "ASC")) qvg_accept_kw(p, "ASCENDING");
    qvg_node *s = qvg_mk(p, QVG_SORT, st, &e, 1);
    if (s) s->flags = flags;
    if (!qvg_vec_push(p, &v, s)) break;
  } while (qvg_accept(p, ','));
  return mk_vec(p, QVG_ORDER, at, &v);
}

/* WITH and RETURN: [DISTINCT] items [ORDER BY] [SKIP] [LIMIT] (WITH: [WHERE]). */
static qvg_node *parse_projection(qvg_parser *p, const qvg_token *at, int kind) {
  uint32_t flags = qvg_accept_kw(p, "DISTINCT") ? QVG_F_DISTINCT : 0;
  qvg_node *kids[5] = {NULL};
  int saved = p->pat_ctx;
  p->pat_ctx = kind == QVG_WITH ? 'W' : 0;
  kids[0] = parse_items(p);
  p->pat_ctx = saved;
  if (!kids[0]) return NULL;
  if (qvg_at_kw(p, "ORDER") && !(kids[1] = parse_order(p))) return NULL;
  if (qvg_accept_kw(p, "SKIP") && !(kids[2] = qvg_parse_expr(p))) return NULL;
  if (qvg_accept_kw(p, "LIMIT") && !(kids[3] = qvg_parse_expr(p))) return NULL;
  if (kind == QVG_WITH && qvg_at_kw(p, "WHERE") && !(kids[4] = parse_where(p))) return NULL;
  qvg_node *x = qvg_mk(p, kind, at, kids, kind == QVG_WITH ? 5 : 4);
  if (x) x->flags = flags;
  return x;
}

static qvg_node *parse_unwind(qvg_parser *p, const qvg_token *at) {
  qvg_node *e = qvg_parse_expr(p);
  if (!e || !qvg_expect_kw(p, "AS")) return NULL;
  const qvg_token *v = take_var(p);
  if (!v) return qvg_expected(p, qvg_peek(p, 0), "a variable after AS");
  qvg_node *x = qvg_mk(p, QVG_UNWIND, at, &e, 1);
  if (x) {
    x->str = v->str;
    x->len = v->slen;
  }
  return x;
}

/* One SET item: n.k = e | n = e | n += e | n:A:B. */
static qvg_node *parse_set_item(qvg_parser *p) {
  const qvg_token *at = qvg_peek(p, 0);
  int next = qvg_peek(p, 1)->kind;
  if (qvg_is_name_token(at) && (next == '=' || next == QVG_T_PLUSEQ || next == ':')) {
    qvg_node *var = mk_name(p, QVG_VAR, qvg_next(p));
    if (!var) return NULL;
    if (next == ':') {
      qvg_node *labels = parse_labels(p, "a label");
      if (!labels) return NULL;
      qvg_node *kids[2] = {var, labels};
      return qvg_mk(p, QVG_SET_LABELS, at, kids, 2);
    }
    qvg_next(p);
    qvg_node *kids[2] = {var, qvg_parse_expr(p)};
    if (!kids[1]) return NULL;
    qvg_node *x = qvg_mk(p, QVG_SET_ALL, at, kids, 2);
    if (x && next == QVG_T_PLUSEQ) x->flags |= QVG_F_MERGE;
    return x;
  }
  qvg_node *target = qvg_parse_postfix(p, false);
  if (!target) return NULL;
  if (target->kind != QVG_PROP) return qvg_expected(p, qvg_peek(p, 0), "a property (n.key) to set");
  if (!qvg_expect(p, '=', NULL)) return NULL;
  qvg_node *kids[2] = {target, qvg_parse_expr(p)};
  if (!kids[1]) return NULL;
  return qvg_mk(p, QVG_SET_PROP, at, kids, 2);
}

static qvg_node *parse_set(qvg_parser *p, const qvg_token *at) {
  qvg_vec v = {0};
  do {
    if (!qvg_vec_push(p, &v, parse_set_item(p))) break;
  } while (qvg_accept(p, ','));
  return mk_vec(p, QVG_SET, at, &v);
}

static qvg_node *parse_merge(qvg_parser *p, const qvg_token *at) {
  qvg_vec v = {0};
  if (!qvg_vec_push(p, &v, clause_pattern(p, 'G', false))) goto done;
  while (qvg_at_kw(p, "ON")) {
    const qvg_token *on = qvg_next(p);
    bool create = qvg_accept_kw(p, "CREATE");
    if (!create && !qvg_accept_kw(p, "MATCH")) {
      qvg_expected(p, qvg_peek(p, 0), "CREATE or MATCH after ON");
      break;
    }
    const qvg_token *set = qvg_peek(p, 0);
    if (!qvg_expect_kw(p, "SET")) break;
    qvg_node *s = parse_set(p, set);
    if (!s) break;
    s->kind = QVG_MERGE_ON;
    s->line = on->line;
    s->col = on->col;
    if (create) s->flags |= QVG_F_ON_CREATE;
    if (!qvg_vec_push(p, &v, s)) break;
  }
done:
  return mk_vec(p, QVG_MERGE, at, &v);
}

static qvg_node *parse_delete(qvg_parser *p, const qvg_token *at, bool detach) {
  qvg_vec v = {0};
  do {
    qvg_node *e = qvg_parse_expr(p);
    if (e && e->kind == QVG_LABEL_TEST) {
      qvg_fail_at(p, e->line, e->col, "DELETE takes nodes, relationships or paths, not labels (use REMOVE n:Label)");
      break;
    }
    if (!qvg_vec_push(p, &v, e)) break;
  } while (qvg_accept(p, ','));
  qvg_node *x = mk_vec(p, QVG_DELETE, at, &v);
  if (x && detach) x->flags |= QVG_F_DETACH;
  return x;
}

static qvg_node *parse_remove(qvg_parser *p, const qvg_token *at) {
  qvg_vec v = {0};
  do {
    qvg_node *e = qvg_parse_postfix(p, true);
    if (e && e->kind != QVG_PROP && e->kind != QVG_LABEL_TEST) {
      qvg_expected(p, qvg_peek(p, 0), "a property (n.key) or labels (n:Label) to remove");
      break;
    }
    if (!qvg_vec_push(p, &v, e)) break;
  } while (qvg_accept(p, ','));
  return mk_vec(p, QVG_REMOVE, at, &v);
}

/* CALL ns.proc(args) [YIELD ...] or CALL { query }. */
static qvg_node *parse_call(qvg_parser *p, const qvg_token *at) {
  if (qvg_accept(p, '{')) {
    qvg_node *q = qvg_parse_query(p);
    if (!q || !qvg_expect(p, '}', "'}' closing CALL { ... }")) return NULL;
    return qvg_mk(p, QVG_CALL_SUB, at, &q, 1);
  }
  char name[512];
  size_t n = 0;
  for (;;) {
    const qvg_token *t = take_symbol(p, "a procedure name");
    if (!t) return NULL;
    if (n + (size_t)t->slen + 2 > sizeof name) return qvg_fail_at(p, t->line, t->col, "procedure name too long");
    memcpy(name + n, t->str, (size_t)t->slen);
    n += (size_t)t->slen;
    if (!qvg_accept(p, '.')) break;
    name[n++] = '.';
  }
  qvg_node *kids[2] = {NULL, NULL};
  if (qvg_at(p, '(')) {
    const qvg_token *lp = qvg_next(p);
    qvg_vec v = {0};
    if (!qvg_at(p, ')')) {
      do {
        if (!qvg_vec_push(p, &v, qvg_parse_expr(p))) break;
      } while (qvg_accept(p, ','));
    }
    if (qvg_failed(p) || !qvg_expect(p, ')', NULL)) {
      qvg_vec_free(&v);
      return NULL;
    }
    if (!(kids[0] = mk_vec(p, QVG_LIST, lp, &v))) return NULL;
  }
  if (qvg_at_kw(p, "YIELD")) {
    const qvg_token *y = qvg_next(p);
    qvg_vec v = {0};
    uint32_t flags = 0;
    if (!qvg_vec_push(p, &v, qvg_mk(p, QVG_NAME, y, NULL, 0))) return NULL; /* slot for WHERE, below */
    v.v[0] = NULL;
    if (qvg_accept(p, '*')) {
      flags |= QVG_F_STAR;
    } else {
      do {
        const qvg_token *f = take_symbol(p, "a field to yield");
        if (!f) break;
        qvg_node *var = mk_name(p, QVG_VAR, f);
        qvg_node *item = qvg_mk(p, QVG_ITEM, f, &var, 1);
        if (item && qvg_accept_kw(p, "AS")) {
          const qvg_token *alias = take_var(p);
          if (!alias) {
            qvg_expected(p, qvg_peek(p, 0), "a name after AS");
            break;
          }
          item->str = alias->str;
          item->len = alias->slen;
        }
        if (!qvg_vec_push(p, &v, item)) break;
      } while (qvg_accept(p, ','));
    }
    if (!qvg_failed(p) && qvg_at_kw(p, "WHERE")) v.v[0] = parse_where(p);
    if (!(kids[1] = mk_vec(p, QVG_YIELD, y, &v))) return NULL;
    kids[1]->flags = flags;
  }
  qvg_node *x = qvg_mk(p, QVG_CALL, at, kids, 2);
  if (x) {
    x->str = qvg_strdup(p, name, n);
    x->len = (int32_t)n;
  }
  return x;
}

static bool at_clause(const qvg_parser *p) {
  static const char *const kws[] = {"MATCH", "OPTIONAL", "UNWIND", "WITH",   "RETURN", "CREATE",
                                    "MERGE", "SET",      "DELETE", "DETACH", "REMOVE", "CALL"};
  for (size_t k = 0; k < sizeof kws / sizeof kws[0]; k++)
    if (qvg_at_kw(p, kws[k])) return true;
  return false;
}

static qvg_node *parse_clause(qvg_parser *p) {
  const qvg_token *at = qvg_peek(p, 0);
  if (qvg_accept_kw(p, "OPTIONAL")) {
    if (!qvg_expect_kw(p, "MATCH")) return NULL;
    return parse_match(p, at, true);
  }
  if (qvg_accept_kw(p, "MATCH")) return parse_match(p, at, false);
  if (qvg_accept_kw(p, "UNWIND")) return parse_unwind(p, at);
  if (qvg_accept_kw(p, "WITH")) return parse_projection(p, at, QVG_WITH);
  if (qvg_accept_kw(p, "RETURN")) return parse_projection(p, at, QVG_RETURN);
  if (qvg_accept_kw(p, "CREATE")) {
    qvg_node *pat = clause_pattern(p, 'C', true);
    return pat ? qvg_mk(p, QVG_CREATE, at, &pat, 1) : NULL;
  }
  if (qvg_accept_kw(p, "MERGE")) return parse_merge(p, at);
  if (qvg_accept_kw(p, "SET")) return parse_set(p, at);
  if (qvg_accept_kw(p, "DELETE")) return parse_delete(p, at, false);
  if (qvg_accept_kw(p, "DETACH")) {
    if (!qvg_expect_kw(p, "DELETE")) return NULL;
    return parse_delete(p, at, true);
  }
  if (qvg_accept_kw(p, "REMOVE")) return parse_remove(p, at);
  if (qvg_accept_kw(p, "CALL")) return parse_call(p, at);
  return qvg_expected(p, at, "a clause (MATCH, OPTIONAL MATCH, UNWIND, WITH, RETURN, CREATE, MERGE, SET, DELETE, ...)");
}

static qvg_node *parse_single(qvg_parser *p) {
  const qvg_token *at = qvg_peek(p, 0);
  qvg_vec v = {0};
  do {
    if (!qvg_vec_push(p, &v, parse_clause(p))) break;
  } while (at_clause(p));
  return mk_vec(p, QVG_QUERY, at, &v);
}

qvg_node *qvg_parse_query(qvg_parser *p) {
  if (!enter(p)) return NULL;
  qvg_node *q = parse_single(p);
  int first_all = -1;
  while (q && qvg_at_kw(p, "UNION")) {
    const qvg_token *u = qvg_next(p);
    bool all = qvg_accept_kw(p, "ALL");
    if (first_all >= 0 && first_all != (int)all) {
      q = qvg_fail_at(p, u->line, u->col, "UNION and UNION ALL cannot be mixed in one query");
      break;
    }
    first_all = all;
    qvg_node *kids[2] = {q, parse_single(p)};
    q = kids[1] ? qvg_mk(p, QVG_UNION, u, kids, 2) : NULL;
    if (q && all) q->flags |= QVG_F_ALL;
  }
  p->depth--;
  return q;
}

const qvg_node *qvg_first_update(const qvg_node *q) {
  if (q->kind == QVG_UNION) {
    const qvg_node *l = qvg_first_update(q->kids[0]);
    return l ? l : qvg_first_update(q->kids[1]);
  }
  for (int32_t i = 0; i < q->n_kids; i++) {
    int k = q->kids[i]->kind;
    if (k == QVG_CREATE || k == QVG_MERGE || k == QVG_SET || k == QVG_DELETE || k == QVG_REMOVE) return q->kids[i];
  }
  return NULL;
}

qv_status qvg_cypher_parse(const char *text, size_t len, qvg_ast **out, qv_error *err) {
  *out = NULL;
  if (!text) return qv_error_set(err, QV_ERR_INVALID, "cypher: no query text");
  if (len > QVG_CYPHER_MAX_TEXT)
    return qv_error_set(err, QV_ERR_PARSE, "cypher: query of %zu bytes is longer than the limit of %d", len,
                        QVG_CYPHER_MAX_TEXT);
  qvg_parser p;
  memset(&p, 0, sizeof p);
  p.src = text;
  p.n = (int32_t)len;
  p.err = err;
  p.ast = qvg_ast_create();
  if (!p.ast) return qv_error_nomem(err, "cypher");
  const char *nul = memchr(text, '\0', len);
  if (nul) {
    qvg_fail_at(&p, 1, 1, "query contains a NUL byte at offset %zu", (size_t)(nul - text));
    goto cleanup;
  }
  if (qvg_cypher_lex(&p) != QV_OK) goto cleanup;
  qvg_node *root = qvg_parse_query(&p);
  if (root) {
    qvg_accept(&p, ';');
    if (!qvg_at(&p, QVG_T_EOF))
      qvg_expected(&p, qvg_peek(&p, 0), at_clause(&p) ? "end of input" : "a clause or end of input");
  }
  if (!qvg_failed(&p)) {
    qvg_ast_set_root(p.ast, root);
    *out = p.ast;
    p.ast = NULL;
  }
cleanup:
  qv_free(p.toks);
  qvg_ast_destroy(p.ast);
  return p.st;
}
