/* quiver expr layer: the expression IR, its builders, printer and binder, and
 * the front ends that produce it (the Lance SQL filter language; Polars
 * expressions come later).  Touches no storage. */
#ifndef QUIVER_EXPR_H
#define QUIVER_EXPR_H

#include "quiver/base.h"
#include "quiver/columnar.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum qv_expr_kind {
  QV_EXPR_COLUMN = 0, /* name (a top-level column; nested access is QV_OP_FIELD) */
  QV_EXPR_LITERAL,    /* value */
  QV_EXPR_CALL        /* op over args */
} qv_expr_kind;

typedef enum qv_op {
  QV_OP_NONE = 0,
  /* comparison: 2 args */
  QV_OP_EQ, QV_OP_NE, QV_OP_LT, QV_OP_LE, QV_OP_GT, QV_OP_GE,
  /* logic (Kleene): AND/OR/XOR 2 args, NOT 1 */
  QV_OP_AND, QV_OP_OR, QV_OP_XOR, QV_OP_NOT,
  /* null / truth tests: 1 arg, never null */
  QV_OP_IS_NULL, QV_OP_IS_NOT_NULL,
  QV_OP_IS_TRUE, QV_OP_IS_NOT_TRUE, QV_OP_IS_FALSE, QV_OP_IS_NOT_FALSE,
  /* args[0] IN (args[1..n)) ; NOT IN is NOT(IN) */
  QV_OP_IN,
  /* args[0] BETWEEN args[1] AND args[2] (inclusive) */
  QV_OP_BETWEEN,
  /* args[0] LIKE args[1] [ESCAPE args[2]]; flags.case_insensitive for ILIKE */
  QV_OP_LIKE,
  /* CAST(args[0] AS type); flags.cast_strict false for TRY_CAST */
  QV_OP_CAST,
  /* arithmetic: 2 args (NEG 1) */
  QV_OP_ADD, QV_OP_SUB, QV_OP_MUL, QV_OP_DIV, QV_OP_MOD, QV_OP_NEG,
  /* struct field access: args[0] is a struct, name is the field */
  QV_OP_FIELD,
  /* functions (argument counts as in the Lance filter language) */
  QV_OP_STARTS_WITH, QV_OP_ENDS_WITH, QV_OP_CONTAINS,
  QV_OP_REGEXP_LIKE,  /* (string, pattern[, flags]) -> bool */
  QV_OP_REGEXP_MATCH, /* (string, pattern[, flags]) -> bool (match exists) */
  QV_OP_LOWER, QV_OP_UPPER, QV_OP_LENGTH, /* LENGTH counts characters */
  QV_OP_ABS, QV_OP_COALESCE, QV_OP_ISNAN,
  QV_OP_ARRAY_HAS, QV_OP_ARRAY_HAS_ANY, QV_OP_ARRAY_HAS_ALL, QV_OP_ARRAY_LENGTH,
  QV_OP_DATE_PART,  /* (part string literal, temporal) -> int64 */
  QV_OP_DATE_TRUNC, /* (part string literal, temporal) -> same type */
  QV_OP_LIST,       /* list literal built from args (all literals) */
  QV_OP__COUNT
} qv_op;

/* How a node treats floats when comparing (DESIGN.md decision 2). */
typedef enum qv_float_order {
  QV_FLOAT_IEEE = 0, /* SQL/IEEE: NaN compares false (!= true), -0.0 == +0.0 */
  QV_FLOAT_TOTAL,    /* Arrow/Lance: total order, -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < NaN, NaN == NaN */
  QV_FLOAT_POLARS,   /* NaN == NaN and greatest, -0.0 == +0.0 */
  QV_FLOAT_JAVA      /* -0.0 < +0.0, every NaN equal and greatest */
} qv_float_order;

typedef enum qv_int_div {
  QV_DIV_TRUNC = 0, /* SQL/C: truncate toward zero; % takes the dividend's sign */
  QV_DIV_FLOOR      /* Polars/Python: floor; % takes the divisor's sign */
} qv_int_div;

typedef enum qv_overflow {
  QV_OVERFLOW_WRAP = 0, /* two's complement wrap */
  QV_OVERFLOW_ERROR,    /* the evaluation fails with QV_ERR_OVERFLOW */
  QV_OVERFLOW_NULL      /* the row becomes null */
} qv_overflow;

/* The semantics a node carries.  Front ends set them; kernels obey them;
 * translators emit a node only where the target agrees. */
typedef struct qv_semantics {
  uint8_t float_order;      /* qv_float_order */
  uint8_t int_div;          /* qv_int_div */
  uint8_t overflow;         /* qv_overflow */
  bool in_nulls_equal;      /* IN: a NULL value matches a NULL in the list */
  bool cast_strict;         /* CAST fails on a bad value (else the row is null) */
  bool case_insensitive;    /* LIKE -> ILIKE */
} qv_semantics;

/* The semantics of the Lance SQL filter language (DataFusion). */
#define QV_SEMANTICS_LANCE {QV_FLOAT_TOTAL, QV_DIV_TRUNC, QV_OVERFLOW_ERROR, false, true, false}

typedef struct qv_expr {
  qv_expr_kind kind;
  qv_op op;
  int32_t n_args;
  struct qv_expr **args; /* owned */
  char *name;            /* column name, or field name for QV_OP_FIELD; owned */
  qv_scalar value;       /* literal */
  qv_datatype type;      /* result type once bound; the target type of CAST */
  int32_t column;        /* bound column index, -1 until bound */
  qv_semantics sem;
  int32_t pos;           /* 1-based source column of the node, 0 if unknown */
} qv_expr;

/* ---- building and freeing ------------------------------------------- */

/* All builders return NULL on allocation failure.  Call builders take
 * ownership of their argument nodes (also on failure). */
qv_expr *qv_expr_column(const char *name);
qv_expr *qv_expr_literal(qv_scalar *value); /* moves *value (reset on return) */
qv_expr *qv_expr_call(qv_op op, qv_expr **args, int32_t n_args);
qv_expr *qv_expr_unary(qv_op op, qv_expr *a);
qv_expr *qv_expr_binary(qv_op op, qv_expr *a, qv_expr *b);
qv_expr *qv_expr_clone(const qv_expr *e);
void qv_expr_destroy(qv_expr *e); /* NULL-safe, recursive */

/* The operator's canonical name ("=", "AND", "starts_with", ...). */
const char *qv_op_name(qv_op op);

/* Canonical text of the tree, fully parenthesised, in the Lance SQL
 * spelling; stable for golden tests.  Returns a qv_malloc'd string
 * (qv_free) or NULL on allocation failure. */
char *qv_expr_to_string(const qv_expr *e);

/* ---- binding --------------------------------------------------------- */

/* Resolves column names against schema, infers every node's type, and
 * inserts implicit casts where the language widens (int32 vs int64 literal,
 * integer vs float, date vs timestamp, string literal vs date...).  Errors
 * say which node and why ("no column `x`", "cannot compare string with
 * int64 at column 7"). */
qv_status qv_expr_bind(qv_expr *e, const qv_schema *schema, qv_error *err);

/* Appends the distinct bound column indices e reads to out (capacity cap);
 * returns how many there are (may exceed cap). */
int32_t qv_expr_columns(const qv_expr *e, int32_t *out, int32_t cap);

/* Splits a tree into its top-level AND conjuncts (pointers into e). */
int32_t qv_expr_conjuncts(const qv_expr *e, const qv_expr **out, int32_t cap);

/* ---- front ends ------------------------------------------------------ */

/* Parses the Lance SQL filter language into an unbound tree.  Errors:
 * QV_ERR_PARSE with "filter: expected X at column N" (1-based). */
qv_status qv_lance_filter_parse(const char *text, qv_expr **out, qv_error *err);

#ifdef __cplusplus
}
#endif
#endif
