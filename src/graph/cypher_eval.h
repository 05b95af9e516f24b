/* Cypher expressions, compiled and evaluated, internal to the graph layer.
 *
 * The binder (cypher_bind.c) turns the syntax tree's expressions into
 * qvg_cx trees: variables resolved to input columns or local slots,
 * parameters and literals to values, function names to ids, aggregates
 * and pattern predicates replaced by the columns the plan computes for
 * them.  The evaluator then computes a qvg_cx for one row of a batch.
 *
 * Semantics are openCypher's (the TCK is the test): three-valued logic,
 * null propagation, integer arithmetic that fails on overflow
 * (QV_ERR_OVERFLOW "integer overflow"), integer division truncating and by
 * zero failing, float division IEEE, string comparison by code point, list
 * and string concatenation with +, type errors at run time as QV_ERR_TYPE
 * with a message naming the operator or function and the types ("cypher:
 * type error: cannot apply - to String and Integer"), bad arguments as
 * QV_ERR_INVALID ("cypher: invalid argument: ..."). */
#ifndef QUIVER_GRAPH_CYPHER_EVAL_H
#define QUIVER_GRAPH_CYPHER_EVAL_H

#include "graph/cypher_ast.h"
#include "graph/cypher_value.h"
#include "graph/gstore.h"

typedef enum qvg_cx_kind {
  QVG_CX_LIT = 1, /* lit */
  QVG_CX_COL,     /* input column col (its kind from the context) */
  QVG_CX_LOCAL,   /* local slot `slot` (comprehension / quantifier / reduce variables) */
  QVG_CX_PROP,    /* k0 . name (node, rel or map; null gives null) */
  QVG_CX_INDEX,   /* k0 [k1]: list by int (negative from the end), map by string */
  QVG_CX_SLICE,   /* k0 [k1 .. k2], either bound NULL */
  QVG_CX_LIST,    /* [... kids] */
  QVG_CX_MAP,     /* {names[i]: kids[i]} */
  QVG_CX_AND,     /* k0 AND k1 (three-valued) */
  QVG_CX_OR,
  QVG_CX_XOR,
  QVG_CX_NOT,
  QVG_CX_CMP,       /* chain: kids[0] ops[0] kids[1] ops[1] ... (QVG_CMP_*), the AND of each pair */
  QVG_CX_BINARY,    /* op QVG_OP_*: + - * / % ^ IN STARTS WITH, ENDS WITH, CONTAINS, =~ */
  QVG_CX_NEG,       /* - k0 */
  QVG_CX_IS_NULL,   /* k0 IS NULL; op 1: IS NOT NULL */
  QVG_CX_LABELS,    /* k0 has every label in labels[0..n_labels) (label indices; -1: a label the store lacks: false) */
  QVG_CX_CASE,      /* k0 subject or NULL; then pairs kids[1+2i] when, kids[2+2i] then; else_ex or NULL */
  QVG_CX_FN,        /* scalar function fn (qvg_fn) over kids */
  QVG_CX_LIST_COMP, /* [x IN k0 WHERE k1 | k2]: slot the variable; k1, k2 nullable */
  QVG_CX_QUANT,     /* op QVG_Q_*: all/any/none/single(x IN k0 WHERE k1); slot the variable */
  QVG_CX_REDUCE,    /* reduce(acc = k0, x IN k1 | k2): slot acc, slot2 x */
  QVG_CX_PATH,      /* a path from kids: node, rel-or-rel-list, node, ... (a var-length hop's rels are a list);
                     * dirs[i] per hop: QVG_DIR_* as written, for the path's orientation */
  QVG_CX_MAP_PROJ   /* k0 the map / node / rel; entries: names[i] with kids[1+i] a value, or NULL kids[1+i] meaning
                     * ".name" (a property) ; all_props: .* */
} qvg_cx_kind;

/* Scalar functions (case-insensitive names in Cypher). */
typedef enum qvg_fn {
  QVG_FN_ID = 1,
  QVG_FN_LABELS,
  QVG_FN_TYPE,
  QVG_FN_PROPERTIES,
  QVG_FN_KEYS,
  QVG_FN_COALESCE,
  QVG_FN_SIZE,
  QVG_FN_LENGTH,
  QVG_FN_NODES,
  QVG_FN_RELATIONSHIPS,
  QVG_FN_STARTNODE,
  QVG_FN_ENDNODE,
  QVG_FN_HEAD,
  QVG_FN_LAST,
  QVG_FN_TAIL,
  QVG_FN_RANGE,
  QVG_FN_REVERSE,
  QVG_FN_TOINTEGER,
  QVG_FN_TOFLOAT,
  QVG_FN_TOSTRING,
  QVG_FN_TOBOOLEAN,
  QVG_FN_ABS,
  QVG_FN_SIGN,
  QVG_FN_CEIL,
  QVG_FN_FLOOR,
  QVG_FN_ROUND,
  QVG_FN_SQRT,
  QVG_FN_EXP,
  QVG_FN_LOG,
  QVG_FN_LOG10,
  QVG_FN_SIN,
  QVG_FN_COS,
  QVG_FN_TAN,
  QVG_FN_ASIN,
  QVG_FN_ACOS,
  QVG_FN_ATAN,
  QVG_FN_ATAN2,
  QVG_FN_PI,
  QVG_FN_E,
  QVG_FN_RAND,
  QVG_FN_TOUPPER,
  QVG_FN_TOLOWER,
  QVG_FN_TRIM,
  QVG_FN_LTRIM,
  QVG_FN_RTRIM,
  QVG_FN_REPLACE,
  QVG_FN_SUBSTRING,
  QVG_FN_LEFT,
  QVG_FN_RIGHT,
  QVG_FN_SPLIT,
  QVG_FN_EXISTS, /* exists(n.prop): not null */
  /* temporal functions, in blocks of five kinds in qvg_vtype's order (date, localtime, time,
   * localdatetime, datetime): fn - block start + QVG_V_DATE is the kind */
  QVG_FN_DATE,
  QVG_FN_LOCALTIME,
  QVG_FN_TIME,
  QVG_FN_LOCALDATETIME,
  QVG_FN_DATETIME,
  QVG_FN_DATE_TRUNCATE,
  QVG_FN_LOCALTIME_TRUNCATE,
  QVG_FN_TIME_TRUNCATE,
  QVG_FN_LOCALDATETIME_TRUNCATE,
  QVG_FN_DATETIME_TRUNCATE,
  QVG_FN_DATE_REALTIME,
  QVG_FN_LOCALTIME_REALTIME,
  QVG_FN_TIME_REALTIME,
  QVG_FN_LOCALDATETIME_REALTIME,
  QVG_FN_DATETIME_REALTIME,
  QVG_FN_DATE_STATEMENT,
  QVG_FN_LOCALTIME_STATEMENT,
  QVG_FN_TIME_STATEMENT,
  QVG_FN_LOCALDATETIME_STATEMENT,
  QVG_FN_DATETIME_STATEMENT,
  QVG_FN_DATE_TRANSACTION,
  QVG_FN_LOCALTIME_TRANSACTION,
  QVG_FN_TIME_TRANSACTION,
  QVG_FN_LOCALDATETIME_TRANSACTION,
  QVG_FN_DATETIME_TRANSACTION,
  QVG_FN_DATETIME_FROMEPOCH,
  QVG_FN_DATETIME_FROMEPOCHMILLIS,
  QVG_FN_DURATION,
  QVG_FN_DURATION_BETWEEN,
  QVG_FN_DURATION_INMONTHS,
  QVG_FN_DURATION_INDAYS,
  QVG_FN_DURATION_INSECONDS,
  QVG_FN__COUNT
} qvg_fn;

/* The function id of a (case-insensitive) name and its arity bounds, or 0
 * when there is no such scalar function. */
int qvg_fn_lookup(const char *name, int32_t *min_args, int32_t *max_args);
const char *qvg_fn_name(int fn);
/* Whether name is an aggregate (count, sum, avg, min, max, collect,
 * stDev, stDevP, percentileCont, percentileDisc), case-insensitive. */
bool qvg_is_aggregate(const char *name);

typedef struct qvg_cx {
  uint16_t kind; /* qvg_cx_kind */
  uint16_t op;
  int32_t n_kids;
  struct qvg_cx **kids; /* nullable entries where a kind says so */
  int32_t col;          /* COL */
  int32_t slot, slot2;  /* LOCAL, comprehensions, reduce */
  int32_t fn;           /* FN */
  qvg_val lit;          /* LIT (its memory in the plan's arena) */
  const char *name;     /* PROP key; NUL-terminated, nlen bytes */
  int32_t nlen;
  const char **names; /* MAP / MAP_PROJ keys (n_kids or n_kids - 1) */
  const uint8_t *ops; /* CMP: n_kids - 1 QVG_CMP_* */
  const int32_t *labels;
  int32_t n_labels;
  const uint8_t *dirs; /* PATH */
  struct qvg_cx *else_ex;
  bool all_props;     /* MAP_PROJ .* */
  int32_t line, col0; /* source position for run-time messages */
} qvg_cx;

/* What an evaluation reads: the store, the input batch's columns and their
 * kinds, local slots, and an arena for results (the caller clears it per
 * batch, or per row on long batches).  The evaluator never keeps pointers
 * past the call beyond what it put in the arena. */
typedef struct qvg_evalctx {
  const qvg_store *st;
  const qv_batch *batch;
  const qvg_colkind *kinds; /* batch->schema.n_fields */
  qvg_val *locals;          /* n_locals slots */
  int32_t n_locals;
  qvg_arena *arena;
} qvg_evalctx;

/* Evaluates e at row of the context's batch into *out. */
qv_status qvg_eval(const qvg_cx *e, qvg_evalctx *cx, int64_t row, qvg_val *out, qv_error *err);
/* As a predicate: TRUE, FALSE or UNKNOWN (null); a value that is not a
 * boolean or null is QV_ERR_TYPE. */
qv_status qvg_eval_pred(const qvg_cx *e, qvg_evalctx *cx, int64_t row, qvg_tri *out, qv_error *err);

/* Whether e reads input column col (anywhere in it). */
bool qvg_cx_uses_col(const qvg_cx *e, int32_t col);
/* Appends e's text for EXPLAIN (columns by name from the schema: "age@0"
 * style is the caller's choice: names[col] is printed). */
void qvg_cx_text(const qvg_cx *e, const char *const *col_names, qvb_text *t);

#endif
