/* The Cypher syntax tree's storage: an arena of chunks, so that a tree of
 * any shape is freed in one call and no walk over it is needed. */
#include "graph/cypher_ast.h"

#include <string.h>

typedef struct chunk {
  struct chunk *next;
  size_t used, cap;
  /* data follows, aligned for any node field */
} chunk;

struct qvg_ast {
  chunk *head;
  qvg_node *root;
};

#define CHUNK_MIN 4096
#define ALIGN 16

qvg_ast *qvg_ast_create(void) { return qv_calloc(1, sizeof(qvg_ast)); }

void *qvg_ast_alloc(qvg_ast *ast, size_t size) {
  size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
  if (size == 0) size = ALIGN;
  chunk *c = ast->head;
  if (!c || c->cap - c->used < size) {
    /* Grow geometrically with the tree; a large request gets its own chunk. */
    size_t cap = c ? c->cap * 2 : CHUNK_MIN;
    if (cap > 1u << 20) cap = 1u << 20;
    if (cap < size) cap = size;
    size_t header = (sizeof(chunk) + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    chunk *n = qv_malloc(header + cap);
    if (!n) return NULL;
    n->next = c;
    n->used = header;
    n->cap = header + cap;
    ast->head = c = n;
  }
  void *p = (char *)c + c->used;
  c->used += size;
  memset(p, 0, size);
  return p;
}

void qvg_ast_set_root(qvg_ast *ast, qvg_node *root) { ast->root = root; }

const qvg_node *qvg_ast_root(const qvg_ast *ast) { return ast ? ast->root : NULL; }

void qvg_ast_destroy(qvg_ast *ast) {
  if (!ast) return;
  chunk *c = ast->head;
  while (c) {
    chunk *next = c->next;
    qv_free(c);
    c = next;
  }
  qv_free(ast);
}

const char *qvg_kind_name(int kind) {
  static const char *const names[QVG_KIND_END] = {
      [QVG_QUERY] = "QUERY",
      [QVG_UNION] = "UNION",
      [QVG_MATCH] = "MATCH",
      [QVG_UNWIND] = "UNWIND",
      [QVG_WITH] = "WITH",
      [QVG_RETURN] = "RETURN",
      [QVG_CREATE] = "CREATE",
      [QVG_MERGE] = "MERGE",
      [QVG_MERGE_ON] = "MERGE_ON",
      [QVG_SET] = "SET",
      [QVG_DELETE] = "DELETE",
      [QVG_REMOVE] = "REMOVE",
      [QVG_CALL] = "CALL",
      [QVG_YIELD] = "YIELD",
      [QVG_CALL_SUB] = "CALL_SUB",
      [QVG_ITEMS] = "ITEMS",
      [QVG_ITEM] = "ITEM",
      [QVG_ORDER] = "ORDER",
      [QVG_SORT] = "SORT",
      [QVG_SET_PROP] = "SET_PROP",
      [QVG_SET_ALL] = "SET_ALL",
      [QVG_SET_LABELS] = "SET_LABELS",
      [QVG_PATTERN] = "PATTERN",
      [QVG_PATH] = "PATH",
      [QVG_NODE] = "NODE",
      [QVG_REL] = "REL",
      [QVG_LABELS] = "LABELS",
      [QVG_NAME] = "NAME",
      [QVG_OR] = "OR",
      [QVG_XOR] = "XOR",
      [QVG_AND] = "AND",
      [QVG_NOT] = "NOT",
      [QVG_COMPARE] = "COMPARE",
      [QVG_BINARY] = "BINARY",
      [QVG_NEG] = "NEG",
      [QVG_POS] = "POS",
      [QVG_IS_NULL] = "IS_NULL",
      [QVG_PROP] = "PROP",
      [QVG_INDEX] = "INDEX",
      [QVG_SLICE] = "SLICE",
      [QVG_LABEL_TEST] = "LABEL_TEST",
      [QVG_INT] = "INT",
      [QVG_FLOAT] = "FLOAT",
      [QVG_STRING] = "STRING",
      [QVG_LIT_TRUE] = "TRUE",
      [QVG_LIT_FALSE] = "FALSE",
      [QVG_NULL] = "NULL",
      [QVG_PARAM] = "PARAM",
      [QVG_VAR] = "VAR",
      [QVG_LIST] = "LIST",
      [QVG_MAP] = "MAP",
      [QVG_ENTRY] = "ENTRY",
      [QVG_MAP_PROJ] = "MAP_PROJ",
      [QVG_PROP_SEL] = "PROP_SEL",
      [QVG_ALL_SEL] = "ALL_SEL",
      [QVG_CALL_FN] = "CALL_FN",
      [QVG_COUNT_STAR] = "COUNT_STAR",
      [QVG_CASE] = "CASE",
      [QVG_WHEN] = "WHEN",
      [QVG_LIST_COMP] = "LIST_COMP",
      [QVG_QUANT] = "QUANT",
      [QVG_REDUCE] = "REDUCE",
      [QVG_PAT_COMP] = "PAT_COMP",
      [QVG_PAT_PRED] = "PAT_PRED",
      [QVG_EXISTS] = "EXISTS",
      [QVG_COUNT_SUB] = "COUNT_SUB",
  };
  if (kind <= 0 || kind >= QVG_KIND_END || !names[kind]) return "?";
  return names[kind];
}
