/* quiver expr layer: the expression IR, its builders, printer and binder, and
 * the front ends that produce it (the Lance SQL filter language, Polars
 * expressions as Python text and as Polars' JSON).  Touches no storage. */
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
  QV_OP_EQ,
  QV_OP_NE,
  QV_OP_LT,
  QV_OP_LE,
  QV_OP_GT,
  QV_OP_GE,
  /* logic (Kleene): AND/OR/XOR 2 args, NOT 1 */
  QV_OP_AND,
  QV_OP_OR,
  QV_OP_XOR,
  QV_OP_NOT,
  /* null / truth tests: 1 arg, never null */
  QV_OP_IS_NULL,
  QV_OP_IS_NOT_NULL,
  QV_OP_IS_TRUE,
  QV_OP_IS_NOT_TRUE,
  QV_OP_IS_FALSE,
  QV_OP_IS_NOT_FALSE,
  /* args[0] IN (args[1..n)) ; NOT IN is NOT(IN) */
  QV_OP_IN,
  /* args[0] BETWEEN args[1] AND args[2] (inclusive) */
  QV_OP_BETWEEN,
  /* args[0] LIKE args[1] [ESCAPE args[2]]; flags.case_insensitive for ILIKE */
  QV_OP_LIKE,
  /* CAST(args[0] AS type); flags.cast_strict false for TRY_CAST */
  QV_OP_CAST,
  /* arithmetic: 2 args (NEG 1) */
  QV_OP_ADD,
  QV_OP_SUB,
  QV_OP_MUL,
  QV_OP_DIV,
  QV_OP_MOD,
  QV_OP_NEG,
  /* struct field access: args[0] is a struct, name is the field */
  QV_OP_FIELD,
  /* functions (argument counts as in the Lance filter language) */
  QV_OP_STARTS_WITH,
  QV_OP_ENDS_WITH,
  QV_OP_CONTAINS,
  QV_OP_REGEXP_LIKE,  /* (string, pattern[, flags]) -> bool */
  QV_OP_REGEXP_MATCH, /* (string, pattern[, flags]) -> bool (match exists) */
  QV_OP_LOWER,
  QV_OP_UPPER,
  QV_OP_LENGTH, /* LENGTH counts characters */
  QV_OP_ABS,
  QV_OP_COALESCE,
  QV_OP_ISNAN,
  QV_OP_ARRAY_HAS,
  QV_OP_ARRAY_HAS_ANY,
  QV_OP_ARRAY_HAS_ALL,
  QV_OP_ARRAY_LENGTH,
  QV_OP_DATE_PART,  /* (part string literal, temporal) -> int64 */
  QV_OP_DATE_TRUNC, /* (part string literal, temporal) -> same type */
  QV_OP_LIST,       /* list literal built from args (all literals) */
  /* ---- Polars operators (qv_polars_parse / qv_polars_from_json) ----
   * Appended so that the values above never change.  Where a Polars
   * construct means exactly what an op above means it reuses that op (NOT,
   * IS_NULL, IN, CAST, ABS, COALESCE, ISNAN, STARTS_WITH, LOWER, LENGTH for
   * str.len_chars, CONTAINS for str.contains(literal=True), REGEXP_MATCH
   * for the regex form, ARRAY_HAS for list.contains, ARRAY_LENGTH for
   * list.len, FIELD for struct.field); Polars nodes carry Polars semantics
   * in sem, and DIV from Polars is true division (QV_EXPR_F_TRUE_DIV). */
  QV_OP_FLOORDIV, /* a // b */
  QV_OP_POW,      /* a ** b */
  QV_OP_ROUND,    /* (x); param = decimals; name = mode ("half_to_even", "half_away_from_zero") */
  QV_OP_SQRT,
  QV_OP_LN,
  QV_OP_LOG10,
  QV_OP_CBRT, /* 1 arg */
  QV_OP_LOG,  /* (x, base): a base other than e or 10 */
  QV_OP_IS_NOT_NAN,
  QV_OP_IS_FINITE,
  QV_OP_IS_INFINITE, /* 1 arg (is_nan is ISNAN) */
  QV_OP_EQ_MISSING,
  QV_OP_NE_MISSING, /* 2 args; null == null is true, never null */
  QV_OP_FILL_NULL,  /* (x, value), or (x) with name = strategy and param = limit (-1: none) */
  QV_OP_WHEN,       /* (p1, t1, p2, t2, ..., otherwise): always an odd count >= 3 */
  QV_OP_MIN_HORIZONTAL,
  QV_OP_MAX_HORIZONTAL, /* n args */
  QV_OP_ALL_HORIZONTAL,
  QV_OP_ANY_HORIZONTAL, /* 1 arg only; 2 or more become AND / OR */
  QV_OP_CONCAT_STR,     /* n args; name = separator; QV_EXPR_F_IGNORE_NULLS */
  QV_OP_STR_SLICE,      /* (s, offset, length or null literal) */
  QV_OP_STRIP_CHARS,    /* (s, chars or null literal: whitespace) */
  QV_OP_REPLACE,        /* (s, pattern, value); param = n; QV_EXPR_F_LITERAL */
  QV_OP_CONTAINS_ANY,   /* (s, patterns list literal); QV_EXPR_F_ASCII_CI */
  QV_OP_TITLECASE,
  QV_OP_LEN_BYTES,   /* 1 arg */
  QV_OP_DT_PART,     /* (temporal); name = Polars part: year month day hour minute second
                       weekday (ISO, Monday 1) ordinal_day ... */
  QV_OP_DT_EPOCH,    /* (temporal); name = "ns" | "us" | "ms" */
  QV_OP_DT_TRUNCATE, /* (temporal, every: string literal such as "1d") */
  QV_OP_DT_DATE,     /* (temporal) -> date32 */
  QV_OP_LIST_GET,    /* (list, index); QV_EXPR_F_NULL_ON_OOB */
  QV_OP_DROP_NULLS,  /* 1 arg */
  /* A construct this front end does not know (another Polars version, an
   * aggregation, an alias...): name holds the Polars node or function name,
   * args whatever inputs could be read.  Never evaluated by translation:
   * the engine evaluates such a tree locally or reports it unsupported. */
  QV_OP_UNKNOWN,
  QV_OP__COUNT
} qv_op;

/* How a node treats floats when comparing (docs/ARCHITECTURE.md, decision 2). */
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
  uint8_t float_order;   /* qv_float_order */
  uint8_t int_div;       /* qv_int_div */
  uint8_t overflow;      /* qv_overflow */
  bool in_nulls_equal;   /* IN: a NULL value matches a NULL in the list */
  bool cast_strict;      /* CAST fails on a bad value (else the row is null) */
  bool case_insensitive; /* LIKE -> ILIKE */
  /* IN without in_nulls_equal: false (SQL) makes a value not found in a
   * list holding a NULL unknown (NULL); true (Polars is_in) ignores the
   * NULL in the list, so the value is simply not found (false). */
  bool in_list_nulls_ignored;
} qv_semantics;

/* The semantics of the Lance SQL filter language (DataFusion). */
#define QV_SEMANTICS_LANCE \
  { QV_FLOAT_TOTAL, QV_DIV_TRUNC, QV_OVERFLOW_ERROR, false, true, false, false }
/* The semantics of Polars expressions (cast_strict and in_nulls_equal are
 * then set per expression). */
#define QV_SEMANTICS_POLARS \
  { QV_FLOAT_POLARS, QV_DIV_FLOOR, QV_OVERFLOW_WRAP, false, true, false, true }

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
  int32_t pos; /* 1-based source column of the node, 0 if unknown */
  /* Added with the Polars front ends; zero for every Lance node. */
  uint32_t flags; /* QV_EXPR_F_* */
  int64_t param;  /* an integer option of the op (see the op) */
} qv_expr;

/* qv_expr.flags */
#define QV_EXPR_F_DYNAMIC 0x1u       /* literal: a Polars "dynamic" Python int/float that takes the other side's type */
#define QV_EXPR_F_TRUE_DIV 0x2u      /* DIV: true division (the result is float for integers) */
#define QV_EXPR_F_LITERAL 0x4u       /* REPLACE: the pattern is plain text, not a regex */
#define QV_EXPR_F_LENIENT 0x8u       /* REGEXP_MATCH: an invalid regex gives null (Polars strict=False) */
#define QV_EXPR_F_NULL_ON_OOB 0x10u  /* LIST_GET: an index out of bounds gives null (else an error) */
#define QV_EXPR_F_ASCII_CI 0x20u     /* CONTAINS_ANY: ASCII case-insensitive */
#define QV_EXPR_F_IGNORE_NULLS 0x40u /* CONCAT_STR: nulls are skipped (else a null makes the row null) */
#define QV_EXPR_F_SQL_FORM \
  0x100u /* from a Lance filter: CONCAT_STR is `a || b` (a string on one side), WHEN(isnan(x), y, x) is
            nanvl(x, y); both print so */
#define QV_EXPR_F_WRAP \
  0x80u /* CAST: integers wrap around instead of failing (Polars wrap_numerical,
                                       the "Overflowing" casts Polars' optimizer inserts) */

/* ---- building and freeing ------------------------------------------- */

/* All builders return NULL on allocation failure.  Call builders take
 * ownership of their argument nodes (also on failure). */
QV_API qv_expr *qv_expr_column(const char *name);
QV_API qv_expr *qv_expr_literal(qv_scalar *value); /* moves *value (reset on return) */
QV_API qv_expr *qv_expr_call(qv_op op, qv_expr **args, int32_t n_args);
QV_API qv_expr *qv_expr_unary(qv_op op, qv_expr *a);
QV_API qv_expr *qv_expr_binary(qv_op op, qv_expr *a, qv_expr *b);
QV_API qv_expr *qv_expr_clone(const qv_expr *e);
QV_API void qv_expr_destroy(qv_expr *e); /* NULL-safe, recursive */

/* The operator's canonical name ("=", "AND", "starts_with", ...). */
QV_API const char *qv_op_name(qv_op op);

/* The comparison with its operands swapped (a < b is b > a); any other
 * operator unchanged. */
QV_API qv_op qv_op_mirror(qv_op op);

/* Canonical text of the tree, fully parenthesised, in the Lance SQL
 * spelling; stable for golden tests.  Returns a qv_malloc'd string
 * (qv_free) or NULL on allocation failure. */
QV_API char *qv_expr_to_string(const qv_expr *e);

/* ---- binding --------------------------------------------------------- */

/* Resolves column names against schema, infers every node's type, and
 * inserts implicit casts where the language widens (int32 vs int64 literal,
 * integer vs float, date vs timestamp, string literal vs date...).  Errors
 * say which node and why ("no column `x`", "cannot compare string with
 * int64 at column 7"). */
QV_API qv_status qv_expr_bind(qv_expr *e, const qv_schema *schema, qv_error *err);

/* Appends the distinct bound column indices e reads to out (capacity cap);
 * returns how many there are (may exceed cap). */
QV_API int32_t qv_expr_columns(const qv_expr *e, int32_t *out, int32_t cap);

/* Splits a tree into its top-level AND conjuncts (pointers into e). */
QV_API int32_t qv_expr_conjuncts(const qv_expr *e, const qv_expr **out, int32_t cap);

/* ---- front ends ------------------------------------------------------ */

/* Parses the Lance SQL filter language into an unbound tree.  Errors:
 * QV_ERR_PARSE with "filter: expected X at column N" (1-based). */
QV_API qv_status qv_lance_filter_parse(const char *text, qv_expr **out, qv_error *err);

/* Parses a Polars expression written as in Python (`pl.col("a") > 1`,
 * `pl.when(...).then(...).otherwise(...)`, method chains with the .str,
 * .dt, .list and .struct namespaces) into an unbound tree with Polars
 * semantics.  The tree is the one qv_polars_from_json builds from the
 * JSON Polars serializes for the same expression.  Errors: QV_ERR_PARSE
 * with "expression: expected X at column N" (1-based, in characters). */
QV_API qv_status qv_polars_parse(const char *text, qv_expr **out, qv_error *err);

/* Reads the JSON that Polars writes with Expr.meta.serialize(format="json")
 * (pinned Polars 2.1.0) into an unbound tree.  json need not be
 * NUL-terminated.  Node kinds and functions it does not know become
 * QV_OP_UNKNOWN nodes (so the tree can still be evaluated locally where
 * possible), not errors.  Errors: QV_ERR_PARSE "polars json: ... at byte N"
 * for malformed or over-deep JSON, and for known nodes whose contents do
 * not have the expected shape. */
QV_API qv_status qv_polars_from_json(const char *json, size_t len, qv_expr **out, qv_error *err);

#ifdef __cplusplus
}
#endif
#endif
