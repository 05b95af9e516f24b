/* The Cypher front end's syntax tree, internal to the graph layer (users:
 * the parser, the printer, the tests, the TCK harness and later the binder).
 *
 * One node type for everything: a kind, an operator or flags, the line and
 * column where it starts, a name or string, two integers, a float and an
 * array of children.  Every node, child array and string lives in the
 * tree's arena, so qvg_ast_destroy frees the whole tree in one call and no
 * walk is needed to free it.  Which child sits in which slot is fixed per
 * kind (the table below); an absent optional part is a NULL child.
 *
 * Hostile input is bounded: text over QVG_CYPHER_MAX_TEXT bytes is refused
 * before lexing; a tree taller than QVG_CYPHER_MAX_DEPTH is refused (chains
 * such as a OR b OR ... are built by a loop, so each node's height is
 * checked when it is made); recursion in the parser is limited to
 * QVG_CYPHER_MAX_NESTING, twice the height, because the printer
 * parenthesises every operator and reading that back costs up to two levels
 * per node, so whatever parses prints to text that parses again.  The
 * printer recurses once per level of height. */
#ifndef QUIVER_GRAPH_CYPHER_AST_H
#define QUIVER_GRAPH_CYPHER_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quiver/base.h"

#define QVG_CYPHER_MAX_TEXT (4 * 1024 * 1024)
#define QVG_CYPHER_MAX_DEPTH 256
#define QVG_CYPHER_MAX_NESTING (2 * QVG_CYPHER_MAX_DEPTH + 16)

/* Node kinds.  Children by slot ("k0" is kids[0]); "..." is a variable
 * count; "name" is the str field. */
typedef enum qvg_kind {
  /* ---- queries and clauses ---- */
  QVG_QUERY = 1,  /* a single query: ... clauses */
  QVG_UNION,      /* k0 left query, k1 right query; flag QVG_F_ALL */
  QVG_MATCH,      /* k0 QVG_PATTERN, k1 where; flag QVG_F_OPTIONAL */
  QVG_UNWIND,     /* k0 list expression; name the variable */
  QVG_WITH,       /* k0 QVG_ITEMS, k1 QVG_ORDER, k2 skip, k3 limit, k4 where; flags DISTINCT */
  QVG_RETURN,     /* k0 QVG_ITEMS, k1 QVG_ORDER, k2 skip, k3 limit; flags DISTINCT */
  QVG_CREATE,     /* k0 QVG_PATTERN */
  QVG_MERGE,      /* k0 QVG_PATH, ... QVG_MERGE_ON */
  QVG_MERGE_ON,   /* ... set items; flag QVG_F_ON_CREATE (else ON MATCH) */
  QVG_SET,        /* ... set items */
  QVG_DELETE,     /* ... expressions; flag QVG_F_DETACH */
  QVG_REMOVE,     /* ... QVG_PROP expressions or QVG_LABEL_TEST */
  QVG_CALL,       /* procedure call: name the dotted name, k0 QVG_ARGS or NULL (no parentheses), k1 QVG_YIELD or NULL */
  QVG_YIELD,      /* k0 where, ... QVG_ITEM (expression a QVG_VAR); flag QVG_F_STAR for YIELD * */
  QVG_CALL_SUB,   /* CALL { query }: k0 the query */
  QVG_ITEMS,      /* ... QVG_ITEM; flag QVG_F_STAR when it starts with '*' */
  QVG_ITEM,       /* k0 expression; name the alias (NULL without AS) */
  QVG_ORDER,      /* ... QVG_SORT */
  QVG_SORT,       /* k0 expression; flag QVG_F_DESC */
  QVG_SET_PROP,   /* k0 QVG_PROP target, k1 value */
  QVG_SET_ALL,    /* k0 variable, k1 value: n = {map}; flag QVG_F_MERGE for += */
  QVG_SET_LABELS, /* k0 variable, ... QVG_NAME labels */
  /* ---- patterns ---- */
  QVG_PATTERN, /* ... QVG_PATH: comma-separated parts */
  QVG_PATH, /* name the path variable (or NULL), op QVG_PATH_* (plain, shortest, all shortest), ... node, rel, node, ... */
  QVG_NODE,   /* name the variable (or NULL); k0 QVG_LABELS or NULL, k1 properties (QVG_MAP or QVG_PARAM) or NULL */
  QVG_REL,    /* name the variable; op QVG_DIR_*; k0 QVG_LABELS (types, alternatives) or NULL, k1 properties;
                * flag QVG_F_VARLEN with i0 the lower bound and i1 the upper (-1: not given) */
  QVG_LABELS, /* ... QVG_NAME */
  QVG_NAME,   /* name */
  /* ---- expressions ---- */
  QVG_OR,         /* k0, k1 */
  QVG_XOR,        /* k0, k1 */
  QVG_AND,        /* k0, k1 */
  QVG_NOT,        /* k0 */
  QVG_COMPARE,    /* ... operands, ops[i] the QVG_CMP_* between operand i and i+1 (a chain a < b < c) */
  QVG_BINARY,     /* op QVG_OP_*, k0, k1 */
  QVG_NEG,        /* k0: unary minus */
  QVG_POS,        /* k0: unary plus */
  QVG_IS_NULL,    /* k0; flag QVG_F_NOT for IS NOT NULL */
  QVG_PROP,       /* k0 object; name the key */
  QVG_INDEX,      /* k0 list or map, k1 index */
  QVG_SLICE,      /* k0 list, k1 from or NULL, k2 to or NULL */
  QVG_LABEL_TEST, /* k0 expression, k1 QVG_LABELS: n:A:B */
  QVG_INT,        /* i0 */
  QVG_FLOAT,      /* f */
  QVG_STRING,     /* name the decoded bytes (len may include NUL bytes) */
  QVG_LIT_TRUE,
  QVG_LIT_FALSE,
  QVG_NULL,
  QVG_PARAM,    /* name the parameter ("0" for $0) */
  QVG_VAR,      /* name */
  QVG_LIST,     /* ... elements */
  QVG_MAP,      /* ... QVG_ENTRY */
  QVG_ENTRY,    /* name the key, k0 value */
  QVG_MAP_PROJ, /* k0 QVG_VAR, ... QVG_ENTRY (key: value), QVG_PROP_SEL (.key), QVG_ALL_SEL (.*), QVG_VAR (a variable) */
  QVG_PROP_SEL, /* name: .key in a map projection */
  QVG_ALL_SEL,  /* .* in a map projection */
  QVG_CALL_FN,  /* name the function, dotted for namespaces; ... arguments; flag QVG_F_DISTINCT */
  QVG_COUNT_STAR,
  QVG_CASE,      /* k0 subject or NULL (searched CASE), k1 else or NULL, ... QVG_WHEN */
  QVG_WHEN,      /* k0 condition (or value for the simple form), k1 result */
  QVG_LIST_COMP, /* name the variable, k0 list, k1 where or NULL, k2 projection or NULL */
  QVG_QUANT,     /* op QVG_Q_*, name the variable, k0 list, k1 where or NULL */
  QVG_REDUCE,    /* name the accumulator, k0 its initial value, k1 QVG_VAR the element, k2 list, k3 expression */
  QVG_PAT_COMP,  /* k0 QVG_PATH, k1 where or NULL, k2 projection */
  QVG_PAT_PRED,  /* k0 QVG_PATH: a pattern used as an expression */
  QVG_EXISTS,    /* EXISTS { ... }: k0 a QVG_QUERY or QVG_UNION, or QVG_PATTERN with k1 where */
  QVG_COUNT_SUB, /* COUNT { ... }: as QVG_EXISTS */
  QVG_KIND_END
} qvg_kind;

/* Flags. */
#define QVG_F_ALL 0x01u
#define QVG_F_OPTIONAL 0x02u
#define QVG_F_DISTINCT 0x04u
#define QVG_F_STAR 0x08u
#define QVG_F_DESC 0x10u
#define QVG_F_DETACH 0x20u
#define QVG_F_ON_CREATE 0x40u
#define QVG_F_MERGE 0x80u
#define QVG_F_VARLEN 0x100u
#define QVG_F_NOT 0x200u

/* Relationship directions. */
enum { QVG_DIR_BOTH = 0, QVG_DIR_LEFT = 1, QVG_DIR_RIGHT = 2 };
/* Path kinds. */
enum { QVG_PATH_PLAIN = 0, QVG_PATH_SHORTEST = 1, QVG_PATH_ALL_SHORTEST = 2 };
/* Comparison operators of a QVG_COMPARE chain. */
enum { QVG_CMP_EQ = 0, QVG_CMP_NE, QVG_CMP_LT, QVG_CMP_LE, QVG_CMP_GT, QVG_CMP_GE };
/* QVG_BINARY operators. */
enum {
  QVG_OP_ADD = 0,
  QVG_OP_SUB,
  QVG_OP_MUL,
  QVG_OP_DIV,
  QVG_OP_MOD,
  QVG_OP_POW,
  QVG_OP_IN,
  QVG_OP_STARTS_WITH,
  QVG_OP_ENDS_WITH,
  QVG_OP_CONTAINS,
  QVG_OP_REGEX
};
/* Quantifiers. */
enum { QVG_Q_ALL = 0, QVG_Q_ANY, QVG_Q_NONE, QVG_Q_SINGLE };

typedef struct qvg_node {
  uint16_t kind;   /* qvg_kind */
  uint16_t op;     /* the operator, direction or quantifier, per kind */
  uint16_t height; /* 1 for a leaf; bounded by QVG_CYPHER_MAX_DEPTH */
  uint32_t flags;  /* QVG_F_* */
  int32_t line;    /* 1-based */
  int32_t col;     /* 1-based, in characters */
  const char *str; /* name, key or string value; NUL-terminated, len bytes */
  int32_t len;
  int32_t n_kids;
  struct qvg_node **kids;
  const uint8_t *ops; /* QVG_COMPARE: n_kids - 1 QVG_CMP_* codes */
  int64_t i0, i1;
  double f;
} qvg_node;

typedef struct qvg_ast qvg_ast;

/* Parses Cypher text (len bytes; NUL bytes inside are an error) into a
 * tree.  On success *out is a tree to free with qvg_ast_destroy; on
 * failure *out is NULL and err says what was expected where
 * ("cypher: expected ')' at line 2, column 14, found 'RETURN'"), with
 * QV_ERR_PARSE (QV_ERR_NOMEM when memory ran out). */
qv_status qvg_cypher_parse(const char *text, size_t len, qvg_ast **out, qv_error *err);

/* The root: a QVG_QUERY or QVG_UNION.  Valid until the tree is destroyed. */
const qvg_node *qvg_ast_root(const qvg_ast *ast);

/* Frees the tree and everything in it; NULL is a no-op. */
void qvg_ast_destroy(qvg_ast *ast);

/* The canonical text of a tree (a query, or any expression node): one clause per line, every operator in
 * parentheses, names backtick-quoted where needed, strings single-quoted.
 * Parsing it gives a tree that prints the same.  Returns a qv_malloc'd
 * string for qv_free, or NULL when memory ran out. */
char *qvg_cypher_print(const qvg_node *root);

/* The kind's name ("MATCH", "NODE"), for messages and tests. */
const char *qvg_kind_name(int kind);

/* ---- building (the parser's side) ---- */

/* Arena-backed allocation in the tree; NULL when memory ran out. */
void *qvg_ast_alloc(qvg_ast *ast, size_t size);
qvg_ast *qvg_ast_create(void);
void qvg_ast_set_root(qvg_ast *ast, qvg_node *root);

#endif
