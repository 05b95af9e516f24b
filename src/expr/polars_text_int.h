/* Internals of the Polars text front end: tokens, Python values, the
 * parser state shared by polars_text.c (expressions and operators) and
 * polars_text_fn.c (the pl.* functions and the methods). */
#ifndef QUIVER_EXPR_POLARS_TEXT_INT_H
#define QUIVER_EXPR_POLARS_TEXT_INT_H

#include "expr/diag.h"
#include "expr/polars_int.h"

typedef enum pt_kind {
  PT_EOF = 0,
  PT_NAME,
  PT_INT, /* decimal digits (underscores removed in text) */
  PT_FLOAT,
  PT_STRING, /* '...' or "..." (r prefix allowed); decoded in text */
  PT_BYTES,  /* b'...' */
  PT_LPAREN,
  PT_RPAREN,
  PT_LBRACKET,
  PT_RBRACKET,
  PT_COMMA,
  PT_DOT,
  PT_ASSIGN,
  PT_EQ,
  PT_NE,
  PT_LT,
  PT_LE,
  PT_GT,
  PT_GE,
  PT_PLUS,
  PT_MINUS,
  PT_STAR,
  PT_SLASH,
  PT_DSLASH,
  PT_PERCENT,
  PT_POW,
  PT_AMP,
  PT_PIPE,
  PT_CARET,
  PT_TILDE
} pt_kind;

typedef struct pt_token {
  pt_kind kind;
  int32_t start, len; /* source bytes */
  int32_t col;        /* 1-based, in characters */
  char *text;         /* NAME, INT, FLOAT, STRING, BYTES: decoded; qv_malloc'd */
  int64_t text_len;
} pt_token;

/* Tokenises text (valid UTF-8 checked first); *out ends with PT_EOF.
 * Free with qve_pt_free_tokens.  Errors: QV_ERR_PARSE "expression: ...
 * at column N". */
qv_status qve_pt_lex(const char *text, pt_token **out, int32_t *n_out, qv_error *err);
void qve_pt_free_tokens(pt_token *t, int32_t n);

/* ---- Python values ------------------------------------------------------- */

typedef enum pv_kind {
  PV_EXPR = 0, /* a Polars expression */
  PV_THEN,     /* pl.when(...).then(...) chain: an expression until .when/.otherwise */
  PV_WHEN,     /* pl.when(...) or ...then(...).when(...): needs .then */
  PV_INT,
  PV_FLOAT,
  PV_STR,
  PV_BYTES,
  PV_BOOL,
  PV_NONE,
  PV_LIST,
  PV_DATE,      /* i: days */
  PV_DATETIME,  /* i: microseconds, naive */
  PV_TIMEDELTA, /* i: microseconds */
  PV_TIME,      /* i: nanoseconds since midnight */
  PV_DECIMAL,   /* dec: unscaled; scale */
  PV_DTYPE,     /* type (a qv_datatype); dtype_ok false: a Polars dtype quiver lacks */
  PV_TZ         /* a tzinfo: timezone.utc, ZoneInfo("UTC") (named zones are refused) */
} pv_kind;

typedef struct pv {
  pv_kind kind;
  int32_t col;   /* where it started */
  int32_t depth; /* expression depth of expr (0 for plain values) */
  qv_expr *expr; /* EXPR; THEN/WHEN: the pending (pred, then) pairs in a WHEN call */
  char *s;       /* STR, BYTES (qv_malloc'd), INT digits */
  int64_t n;     /* length of s */
  int64_t i;     /* BOOL, DATE, DATETIME, TIMEDELTA, TIME */
  double f;      /* FLOAT */
  qve_i128 dec;
  int32_t scale;
  struct pv *items; /* LIST */
  int32_t n_items;
  qv_datatype type; /* DTYPE */
  bool dtype_ok;
  bool utc; /* DATETIME: aware (tzinfo UTC), i is the instant */
} pv;

void qve_pv_reset(pv *v);

typedef struct pt_arg {
  const pt_token *kw; /* keyword name, or NULL */
  pv v;
  bool used; /* taken by the function (the rest are reported) */
} pt_arg;

typedef struct pt_args {
  pt_arg *a;
  int32_t n;
  int32_t col; /* of the '(' */
} pt_args;

void qve_pt_args_reset(pt_args *a);

typedef struct pt {
  const char *text;
  pt_token *toks;
  int32_t n, i;
  int32_t nesting;
  qve_diag d; /* the first error: "expression: ... at column N" */
} pt;

/* Records the first error (QV_ERR_PARSE "expression: <msg> at column N");
 * returns false. */
bool qve_pt_fail(pt *p, int32_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
bool qve_pt_nomem(pt *p);

/* A value as an expression (moved out of v, which is reset also on
 * failure).  Strings are column names
 * unless str_as_lit.  Fails on values that are not expressions (dtypes,
 * a when without then). */
bool qve_pt_to_expr(pt *p, pv *v, bool str_as_lit, qv_expr **out, int32_t *depth);
/* Wraps e with its depth into v (checking the depth limit). */
bool qve_pt_set_expr(pt *p, pv *v, qv_expr *e, int32_t depth, int32_t col);

/* pl.<name>(args) and pl.<name> (dtypes) — polars_text_fn.c. */
bool qve_pt_pl_attr(pt *p, const pt_token *name, pt_args *args, bool called, pv *out);
/* date(...), datetime(...), timedelta(...), time(...), Decimal(...), float(...). */
bool qve_pt_builtin(pt *p, const pt_token *name, pt_args *args, pv *out);
/* recv.<ns>.<name>(args) with ns NULL for plain methods; consumes recv. */
bool qve_pt_method(pt *p, pv *recv, const pt_token *ns, const pt_token *name, pt_args *args, pv *out);

/* Call arguments (polars_text_fn.c), shared by functions and methods. */
pv *qve_pt_arg(pt_args *a, int pos, const char *kw);
bool qve_pt_all_used(pt *p, pt_args *a, const char *dot, const char *fn);
bool qve_pt_get_int(pt *p, pv *v, int64_t *out);
bool qve_pt_get_str(pt *p, pv *v, const char **out);

/* Call arguments (polars_text_fn.c), shared by functions and methods. */
pv *qve_pt_arg(pt_args *a, int pos, const char *kw);
bool qve_pt_all_used(pt *p, pt_args *a, const char *dot, const char *fn);
bool qve_pt_get_int(pt *p, pv *v, int64_t *out);
bool qve_pt_get_str(pt *p, pv *v, const char **out);

#endif
