/* Internals the Cypher front end's files share (cypher_lexer.c,
 * cypher_parser.c, cypher_parse_expr.c): tokens, the parser's state and
 * its first-error diagnostics, and the node builders. */
#ifndef QUIVER_GRAPH_CYPHER_INT_H
#define QUIVER_GRAPH_CYPHER_INT_H

#include "graph/cypher_ast.h"

/* Token kinds: a single punctuation character is its own code; the rest
 * are above 255. */
enum {
  QVG_T_EOF = 256,
  QVG_T_WORD,   /* unquoted identifier or keyword (keywords are case-insensitive) */
  QVG_T_QWORD,  /* `quoted` identifier: never a keyword */
  QVG_T_INT,    /* u: its magnitude; big: it exceeds 2^63 */
  QVG_T_FLOAT,  /* f */
  QVG_T_STRING, /* str, slen: decoded */
  QVG_T_PARAM,  /* str: the name after '$' */
  QVG_T_LE,     /* <= */
  QVG_T_GE,     /* >= */
  QVG_T_NE,     /* <> */
  QVG_T_REGEX,  /* =~ */
  QVG_T_PLUSEQ, /* += */
  QVG_T_DOTDOT  /* .. */
};

typedef struct qvg_token {
  int kind;
  int32_t start, len; /* bytes of the source */
  int32_t line, col;
  bool space_before; /* whitespace or a comment precedes it */
  bool big;          /* QVG_T_INT: magnitude above 2^63 */
  uint64_t u;
  double f;
  const char *str; /* arena copy: WORD/QWORD name, STRING value, PARAM name */
  int32_t slen;
} qvg_token;

/* The first error wins (a parser that fails deep in a recursion reports
 * again on the way out; only the first describes the input), mirroring
 * src/expr/diag.h with line and column. */
typedef struct qvg_parser {
  const char *src;
  int32_t n;
  qvg_ast *ast;
  qvg_token *toks;
  int32_t n_toks, cap_toks;
  int32_t pos;   /* next token */
  int32_t depth; /* recursion, bounded by QVG_CYPHER_MAX_NESTING */
  int pat_ctx; /* the clause whose pattern is being read: 'M' MATCH, 'C' CREATE, 'G' MERGE; 'W' while reading WITH's items; 0 otherwise */
  qv_error *err;
  qv_status st;
} qvg_parser;

/* Records "cypher: MESSAGE at line L, column C" unless an error was
 * recorded already; returns NULL so that builders can return it. */
void *qvg_fail_at(qvg_parser *p, int32_t line, int32_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* "cypher: expected WHAT at line L, column C, found 'TOKEN'" at token t. */
void *qvg_expected(qvg_parser *p, const qvg_token *t, const char *what);
void *qvg_nomem(qvg_parser *p);
static inline bool qvg_failed(const qvg_parser *p) { return p->st != QV_OK; }

/* Lexes p->src into p->toks (ending with QVG_T_EOF). */
qv_status qvg_cypher_lex(qvg_parser *p);

/* ---- token helpers ---- */
static inline const qvg_token *qvg_peek(const qvg_parser *p, int32_t ahead) {
  int32_t i = p->pos + ahead;
  return &p->toks[i < p->n_toks ? i : p->n_toks - 1];
}
static inline const qvg_token *qvg_next(qvg_parser *p) {
  const qvg_token *t = qvg_peek(p, 0);
  if (p->pos < p->n_toks - 1) p->pos++;
  return t;
}
/* An unquoted word equal to kw (upper case) ignoring case. */
bool qvg_is_kw(const qvg_token *t, const char *kw);
static inline bool qvg_at_kw(const qvg_parser *p, const char *kw) { return qvg_is_kw(qvg_peek(p, 0), kw); }
static inline bool qvg_at(const qvg_parser *p, int kind) { return qvg_peek(p, 0)->kind == kind; }
bool qvg_accept_kw(qvg_parser *p, const char *kw);
bool qvg_accept(qvg_parser *p, int kind);
/* Consumes a token of the kind or fails with "expected WHAT". */
bool qvg_expect(qvg_parser *p, int kind, const char *what);
bool qvg_expect_kw(qvg_parser *p, const char *kw);
/* A word usable as a name (variable, label, key): any unquoted word that
 * is not reserved, or any quoted one. */
bool qvg_is_name_token(const qvg_token *t);
/* Reserved words cannot be variables unquoted; the printer quotes names
 * that are. */
bool qvg_is_reserved(const char *s, size_t n);

/* ---- node builders ---- */
/* A node of the kind at token t's position, with n_kids children (copied
 * from kids, NULLs allowed); checks the height limit.  NULL on failure. */
qvg_node *qvg_mk(qvg_parser *p, int kind, const qvg_token *t, qvg_node *const *kids, int32_t n_kids);
/* Copies n bytes into the arena, NUL-terminated. */
const char *qvg_strdup(qvg_parser *p, const char *s, size_t n);

/* A growing list of children, kept in qv_malloc'd memory until qvg_mk
 * copies it into the arena. */
typedef struct qvg_vec {
  qvg_node **v;
  int32_t n, cap;
} qvg_vec;
bool qvg_vec_push(qvg_parser *p, qvg_vec *v, qvg_node *x);
static inline void qvg_vec_free(qvg_vec *v) {
  qv_free(v->v);
  v->v = NULL;
  v->n = v->cap = 0;
}

/* ---- the grammar, split over two files ---- */
qvg_node *qvg_parse_expr(qvg_parser *p);
/* A pattern part, optionally "name = ..." (named paths). */
qvg_node *qvg_parse_path(qvg_parser *p, bool allow_name);
/* A relationship chain starting at '(' (for pattern predicates and
 * comprehensions); the caller has checked qvg_looks_like_pattern. */
bool qvg_looks_like_pattern(const qvg_parser *p, int32_t ahead);
/* A whole query (clauses and UNIONs) up to a token that cannot continue
 * it; used by EXISTS { } and CALL { } as well as the top level. */
qvg_node *qvg_parse_query(qvg_parser *p);
/* The first updating clause (CREATE, MERGE, SET, DELETE, REMOVE) at the
 * top level of a query, or NULL. */
const qvg_node *qvg_first_update(const qvg_node *query);
/* A comma-separated pattern list. */
qvg_node *qvg_parse_pattern(qvg_parser *p);
/* An atom alone (a node's property map or parameter). */
qvg_node *qvg_parse_atom(qvg_parser *p);
/* An atom with its postfix operators (.key, [i], and :Label when labels):
 * the targets of SET and REMOVE. */
qvg_node *qvg_parse_postfix(qvg_parser *p, bool labels);
/* (':' name)+ at a ':' (NULL, no error, elsewhere). */
qvg_node *qvg_parse_labels_expr(qvg_parser *p);

#endif
