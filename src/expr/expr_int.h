/* Internals shared by the expr layer's files: the Lance filter lexer's
 * tokens, the SQL spelling of types and literals (shared by the parser and
 * the printer so that what one prints the other reads back), and the
 * literal conversions the binder and the parser both need. */
#ifndef QUIVER_EXPR_EXPR_INT_H
#define QUIVER_EXPR_EXPR_INT_H

#include "quiver/expr.h"

/* Hostile input must not exhaust the stack.  The parser refuses trees
 * deeper than QV_EXPR_MAX_DEPTH (left-deep chains such as a OR b OR ... are
 * built by a loop, so recursion alone does not bound them) and recursion
 * (parentheses, prefix operators, arguments) deeper than
 * QV_EXPR_MAX_NESTING.  The printer parenthesises every operator, and an
 * operand on the right costs two levels of recursion when read back, so
 * the nesting limit is twice the depth limit: whatever parses prints to
 * text that parses again.  The printer and binder recurse once per level. */
#define QV_EXPR_MAX_DEPTH 512
#define QV_EXPR_MAX_NESTING (2 * QV_EXPR_MAX_DEPTH + 8)
/* Filters longer than this are refused before lexing (columns are int32). */
#define QV_EXPR_MAX_TEXT (16 * 1024 * 1024)

__extension__ typedef __int128 qve_i128;
__extension__ typedef unsigned __int128 qve_u128;

/* ---- tokens ------------------------------------------------------------ */

typedef enum lance_tok_kind {
  LT_EOF = 0,
  LT_IDENT,   /* unquoted word: identifier or keyword (case-insensitive) */
  LT_QIDENT,  /* `backtick quoted` identifier, never a keyword */
  LT_STRING,  /* 'single quoted' */
  LT_DSTRING, /* "double quoted": a string in Lance, see lance_lexer.c */
  LT_HEX,     /* X'0aFF' or 0x0aFF */
  LT_NUMBER,  /* 12, 1.5, .5, 1e-3 (never signed) */
  LT_LPAREN,
  LT_RPAREN,
  LT_LBRACKET,
  LT_RBRACKET,
  LT_COMMA,
  LT_DOT,
  LT_PLUS,
  LT_MINUS,
  LT_STAR,
  LT_SLASH,
  LT_PERCENT,
  LT_EQ,
  LT_NE,
  LT_LT,
  LT_LE,
  LT_GT,
  LT_GE,
  LT_CONCAT /* || : valid SQL, no IR operator; the parser reports it */
} lance_tok_kind;

typedef struct lance_token {
  lance_tok_kind kind;
  int32_t start; /* byte offset into the text */
  int32_t len;   /* bytes of source text, quotes included */
  int32_t col;   /* 1-based column, counted in characters (code points) */
} lance_token;

/* Splits text into tokens ending with one LT_EOF.  *out is qv_malloc'd
 * (qv_free).  Errors: QV_ERR_PARSE with the column of the bad character. */
qv_status qve_lance_lex(const char *text, lance_token **out, int32_t *n_out, qv_error *err);

/* The body of a quoted token (string, double-quoted string, backtick
 * identifier) with doubled quotes collapsed; qv_malloc'd,
 * NUL-terminated; *len excludes the NUL.  NULL on allocation failure. */
char *qve_lance_unquote(const char *text, const lance_token *t, int64_t *len);

/* Short printable description of a token for messages ("end of input",
 * "'AND'"), written to buf. */
const char *qve_lance_describe(const char *text, const lance_token *t, char *buf, size_t size);

/* At most 60 bytes of s (whole UTF-8 characters), "..." when cut; for
 * quoting user text in messages. */
const char *qve_expr_clip(const char *s, size_t n, char *buf, size_t size);

/* ---- SQL words --------------------------------------------------------- */

/* True when an unquoted identifier must be backtick-quoted to read back as
 * the same column name: it is not [A-Za-z_][A-Za-z0-9_]* or it is a word
 * the Lance parser (ours or sqlparser's) treats specially. */
bool qve_sql_ident_needs_quotes(const char *name);
bool qve_sql_is_keyword(const char *word, size_t len);

/* Canonical SQL spelling of a type Lance's CAST accepts ("int", "bigint
 * unsigned", "decimal(10,2)", "timestamp(3)"), or NULL when the type has
 * none (time zones, lists, structs...).  buf holds at least 32 bytes. */
const char *qve_sql_type_name(const qv_datatype *t, char *buf, size_t size);

/* ---- numbers and literal text ----------------------------------------- */

/* Locale-independent strtod over exactly n bytes; false if not all used. */
bool qve_expr_parse_double(const char *s, size_t n, double *out);
/* Shortest text that reads back as exactly v (as float32 when single),
 * always with '.', 'e', "inf" or "nan" so it reads back as a float. */
int qve_expr_format_double(double v, bool single, char *buf, size_t size);

/* Decimal text ("-12.340", "1e3" not accepted) to an unscaled int128 at
 * scale, rounding half away from zero past scale digits.  false when the
 * text is malformed or the value needs more than precision digits. */
bool qve_expr_parse_decimal(const char *s, size_t n, int32_t precision, int32_t scale, qve_i128 *out);
/* Unscaled value at scale as text with exactly scale fraction digits. */
int qve_expr_format_decimal(qve_i128 v, int32_t scale, char *buf, size_t size);
qve_i128 qve_expr_pow10(int32_t k); /* 0 <= k <= 38 */
static inline qve_i128 qve_dec_value(const qv_scalar *s) {
  return (qve_i128)(((qve_u128)(uint64_t)s->v.dec.hi << 64) | s->v.dec.lo);
}
static inline void qve_dec_store(qv_scalar *s, qve_i128 v) {
  s->v.dec.lo = (uint64_t)v;
  s->v.dec.hi = (int64_t)(v >> 64);
}

/* Values per second of a time unit (1, 1e3, 1e6, 1e9). */
int64_t qve_unit_per_second(qv_time_unit u);
/* Timestamp text ("2024-01-02 03:04:05.123") to a value in unit.  With a
 * zone designator in the text the instant is UTC.  Returns false when the
 * text is malformed; sets *inexact when the text has digits finer than the
 * unit (they are dropped, as Arrow's cast does) and *overflow when the
 * value does not fit. */
bool qve_expr_parse_timestamp(const char *s, size_t n, qv_time_unit unit, int64_t *out, bool *inexact, bool *overflow);
/* "YYYY-MM-DD HH:MM:SS[.f]" with the fraction trimmed of trailing zeros. */
int qve_expr_format_timestamp(int64_t v, qv_time_unit unit, char *buf, size_t size);
int qve_expr_format_date(int64_t days, char *buf, size_t size);

/* ---- functions of the filter language ---------------------------------- */

typedef struct lance_function {
  const char *name; /* lower case */
  qv_op op;
  int8_t min_args;
  int8_t max_args; /* -1: any number */
} lance_function;

/* Case-insensitive lookup (aliases included); NULL when unknown. */
const lance_function *qve_lance_function(const char *name, size_t len);
/* Canonical lower-case part name for date_part / date_trunc, or NULL. */
const char *qve_lance_date_part(const char *s, size_t n, bool trunc);

/* ---- binding helpers (bind_coerce.c) ----------------------------------- */

typedef enum qve_common_mode {
  QV_COMMON_COMPARE, /* =, <, IN, BETWEEN: int64 vs uint64 stay apart (*mixed) */
  QV_COMMON_UNION    /* coalesce, list elements, arithmetic: one type for all */
} qve_common_mode;

/* The type both a and b widen to (*out, to be reset by the caller in every
 * case).  In compare mode a signed integer against uint64 sets *mixed (out
 * is then int64). */
typedef enum qve_common_result { QV_COMMON_NOMEM = -1, QV_COMMON_NONE = 0, QV_COMMON_FOUND = 1 } qve_common_result;
qve_common_result qve_bind_common_type(const qv_datatype *a, const qv_datatype *b, qve_common_mode mode,
                                       qv_datatype *out, bool *mixed);

/* Converts a literal value to type `to` without changing what it means
 * (see bind.c for the exact rules).  *ok is false when it cannot (out is
 * then untouched); errors are for text that cannot be read as the target
 * (QV_ERR_TYPE "cannot read 'x' as date32 at column N"), time zones
 * without a fixed offset (QV_ERR_UNSUPPORTED) and memory. */
qv_status qve_bind_convert_scalar(const qv_scalar *v, const qv_datatype *to, int32_t pos, qv_scalar *out, bool *ok,
                                  qv_error *err);

/* A string literal compared with a date or timestamp, read as that kind of
 * value: date32, or a timestamp in target's zone at target's unit when the
 * text fits it, else at nanoseconds (so that no digit is lost). */
qv_status qve_bind_read_temporal(const qv_scalar *v, const qv_datatype *target, int32_t pos, qv_scalar *out,
                                 qv_error *err);

/* Whether CAST(from AS to) can be evaluated at all. */
bool qve_bind_castable(const qv_datatype *from, const qv_datatype *to);

/* list<elem> with a nullable "item" child. */
qv_status qve_bind_list_of(const qv_datatype *elem, qv_datatype *out);

/* Arrow's decimal arithmetic result type for op over l and r (both
 * decimal128).  false when the scale would pass 38 (multiplication). */
bool qve_bind_decimal_result(qv_op op, const qv_datatype *l, const qv_datatype *r, qv_datatype *out);

/* decimal(3|5|10|20, 0): the decimal that holds every value of an integer type. */
qv_datatype qve_bind_int_as_decimal(qv_type_id id);

static inline bool qve_is_int(qv_type_id id) { return id >= QV_TYPE_INT8 && id <= QV_TYPE_UINT64; }
static inline bool qve_is_uint(qv_type_id id) { return id >= QV_TYPE_UINT8 && id <= QV_TYPE_UINT64; }
static inline bool qve_is_sint(qv_type_id id) { return id >= QV_TYPE_INT8 && id <= QV_TYPE_INT64; }
static inline bool qve_is_float(qv_type_id id) { return id == QV_TYPE_FLOAT32 || id == QV_TYPE_FLOAT64; }
static inline bool qve_is_num(qv_type_id id) { return qve_is_int(id) || qve_is_float(id) || id == QV_TYPE_DECIMAL128; }
static inline bool qve_is_listlike(qv_type_id id) { return id == QV_TYPE_LIST || id == QV_TYPE_FIXED_SIZE_LIST; }
static inline bool qve_is_datetime(qv_type_id id) { return id == QV_TYPE_DATE32 || id == QV_TYPE_TIMESTAMP; }

#endif
