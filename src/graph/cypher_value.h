/* Cypher values, internal to the graph layer (users: the evaluator, the
 * graph operators, the planner's constant folding, the result renderer).
 *
 * A Cypher column in a batch is one of three things (qvg_colkind): a NODE
 * or REL column (int64 graph-global ids, see graph/gstore.h), or a VALUE
 * column: Arrow BINARY whose every non-null slot is one encoded qvg_val
 * (qvg_val_encode).  A null slot is Cypher null.  Encoded values are
 * canonical: two values are equivalent in openCypher's sense (the
 * equivalence DISTINCT, grouping and UNION use: null equivalent to null,
 * NaN to NaN, 1 not equivalent to 1.0) exactly when their encodings are
 * byte-equal, so exec's hash operators group and join VALUE columns by
 * bytes.  (1 vs 1.0: no TCK scenario groups an Integer with an equal
 * Float -- the DISTINCT ones, clauses/return/Return5, clauses/with/With5,
 * expressions/aggregation/Aggregation8, use one type -- and an encoding
 * that merged them could not give back the type it was given, so they
 * stay apart.  -0.0 encodes as 0.0: the TCK's `RETURN -0.0` is 0.0,
 * expressions/literals/Literals5 [9].)
 *
 * A qvg_val is a small struct pointing into memory it does not own: a
 * string may point into a column's buffer (decoding is zero-copy) and
 * lists, maps and paths into a qvg_arena that the caller resets per batch.
 * No value is freed on its own. */
#ifndef QUIVER_GRAPH_CYPHER_VALUE_H
#define QUIVER_GRAPH_CYPHER_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/text.h"
#include "quiver/columnar.h"

/* ---- arena ------------------------------------------------------------- */

/* Chunks of memory freed all at once.  qvg_arena_alloc returns NULL when
 * memory ran out (the caller reports qv_error_nomem). */
typedef struct qvg_arena_chunk qvg_arena_chunk;
typedef struct qvg_arena {
  qvg_arena_chunk *head;
  size_t used_in_head;
  int64_t bytes; /* allocated in all chunks, for memory accounting */
} qvg_arena;

#define QVG_ARENA_INIT \
  { NULL, 0, 0 }
void *qvg_arena_alloc(qvg_arena *a, size_t size); /* 8-byte aligned; NULL on OOM */
/* Forgets everything allocated but keeps the first chunk for reuse. */
void qvg_arena_clear(qvg_arena *a);
void qvg_arena_free(qvg_arena *a);

/* ---- values ------------------------------------------------------------ */

typedef enum qvg_vtype {
  QVG_V_NULL = 0,
  QVG_V_BOOL,
  QVG_V_INT,    /* int64 */
  QVG_V_FLOAT,  /* double */
  QVG_V_STRING, /* UTF-8 bytes */
  QVG_V_LIST,
  QVG_V_MAP,
  QVG_V_NODE, /* graph-global node id */
  QVG_V_REL,  /* graph-global relationship id */
  QVG_V_PATH  /* items: node, rel, node, ..., node (n odd, >= 1) */
} qvg_vtype;

typedef struct qvg_entry qvg_entry;

typedef struct qvg_val {
  uint8_t t; /* qvg_vtype */
  int32_t n; /* STRING: bytes; LIST, PATH: items; MAP: entries */
  union {
    bool b;
    int64_t i; /* INT; NODE and REL: the id */
    double f;
    const char *s;           /* STRING: n bytes, not NUL-terminated */
    const struct qvg_val *l; /* LIST, PATH */
    const qvg_entry *m;      /* MAP: n entries sorted by key bytes, keys unique */
  } u;
} qvg_val;

struct qvg_entry {
  const char *key;
  int32_t klen;
  qvg_val v;
};

static inline qvg_val qvg_null(void) {
  qvg_val v = {QVG_V_NULL, 0, {0}};
  return v;
}
static inline qvg_val qvg_bool(bool b) {
  qvg_val v = {QVG_V_BOOL, 0, {0}};
  v.u.b = b;
  return v;
}
static inline qvg_val qvg_int(int64_t i) {
  qvg_val v = {QVG_V_INT, 0, {0}};
  v.u.i = i;
  return v;
}
static inline qvg_val qvg_float(double f) {
  qvg_val v = {QVG_V_FLOAT, 0, {0}};
  v.u.f = f;
  return v;
}
static inline qvg_val qvg_string(const char *s, int32_t n) {
  qvg_val v = {QVG_V_STRING, n, {0}};
  v.u.s = s;
  return v;
}
static inline qvg_val qvg_node_val(int64_t id) {
  qvg_val v = {QVG_V_NODE, 0, {0}};
  v.u.i = id;
  return v;
}
static inline qvg_val qvg_rel_val(int64_t id) {
  qvg_val v = {QVG_V_REL, 0, {0}};
  v.u.i = id;
  return v;
}

/* A map from n entries in any order (copied into a, sorted; a later
 * duplicate key replaces an earlier one). */
qv_status qvg_map_make(qvg_arena *a, const qvg_entry *entries, int32_t n, qvg_val *out, qv_error *err);
/* The entry's value, or NULL when the map has no such key. */
const qvg_val *qvg_map_get(const qvg_val *map, const char *key, int32_t klen);

/* ---- encoding (VALUE columns) ------------------------------------------ */

/* Appends the canonical encoding of v (not null at top level: a null slot
 * is a null in the column) to out. */
qv_status qvg_val_encode(const qvg_val *v, qv_buffer *out, qv_error *err);
/* Decodes bytes[0..n) (one value, as encoded); strings point into bytes,
 * nested parts are allocated in a.  A malformed encoding is QV_ERR_CORRUPT. */
qv_status qvg_val_decode(const uint8_t *bytes, int64_t n, qvg_arena *a, qvg_val *out, qv_error *err);

/* Column kinds of a Cypher batch. */
typedef enum qvg_colkind { QVG_COL_VALUE = 0, QVG_COL_NODE, QVG_COL_REL } qvg_colkind;

/* Row i of column a of kind k: a VALUE column decodes (BINARY); a NODE or
 * REL column (int64) gives a node or rel value.  Any other Arrow type
 * (ints of any width, floats, bool, string, list) converts to the Cypher
 * value it holds, so typed columns may appear too.  Null slots are null. */
qv_status qvg_val_from_array(const qv_array *a, qvg_colkind k, int64_t i, qvg_arena *arena, qvg_val *out,
                             qv_error *err);
/* Appends v to a builder of a column of kind k: VALUE (BINARY builder,
 * encoded; null appends a null), NODE or REL (int64 builder; v must be a
 * node / rel or null, else QV_ERR_TYPE). */
qv_status qvg_val_append(qv_builder *b, qvg_colkind k, const qvg_val *v, qv_error *err);

/* ---- comparison ---------------------------------------------------------- */

/* Ternary results of Cypher's comparisons. */
typedef enum qvg_tri { QVG_FALSE = 0, QVG_TRUE = 1, QVG_UNKNOWN = 2 } qvg_tri;

/* a = b with Cypher's rules: null on either side is unknown; numbers
 * compare by value across int and float (1 = 1.0); NaN = NaN is false;
 * lists element-wise (unknown when some pair is unknown and none is
 * false); maps by keys then values; nodes and rels by id; values of
 * different types are false. */
qvg_tri qvg_val_equals(const qvg_val *a, const qvg_val *b);
/* a < b (op '<'), <=, >, >= with Cypher's comparability rules: numbers
 * with numbers, strings with strings (by code point, i.e. UTF-8 bytes),
 * booleans (false < true), lists lexicographically; anything else
 * (including null and NaN) unknown. */
qvg_tri qvg_val_less(const qvg_val *a, const qvg_val *b, bool or_equal);
/* The total order ORDER BY uses (openCypher orderability): ascending
 * MAP < NODE < REL < LIST < PATH < STRING < BOOL < numbers < null, NaN above
 * every other number.  Returns <0, 0, >0. */
int qvg_val_order(const qvg_val *a, const qvg_val *b);
/* Appends a memcomparable key of v: for any values x, y,
 * memcmp-order(key(x), key(y)) == qvg_val_order(x, y) (shorter prefix first),
 * null included (it sorts last).  exec's SortExec and TopKExec sort BINARY
 * columns of these keys (descending gives Cypher's DESC, nulls first). */
qv_status qvg_val_sortkey(const qvg_val *v, qv_buffer *out, qv_error *err);

/* ---- text ------------------------------------------------------------------ */

/* The value as the openCypher TCK writes it: null, true, 1, 1.5, 'text'
 * (with \' and \\ escaped), [1, 2], {a: 1, b: 'x'} (keys sorted),
 * (:A:B {name: 'x'}), [:T {k: 1}], <(:A)-[:T]->(:B)> for paths, floats
 * as qvg_format_float.  Nodes, rels and paths need the store
 * (graph/gstore.h) for their labels and properties. */
typedef struct qvg_store qvg_store;
qv_status qvg_val_render(const qvg_val *v, const qvg_store *st, qvb_text *out, qv_error *err);
/* A float as Cypher prints it (toString and the renderer agree): the
 * shortest digits that read back exactly, always with a '.' ("1.0"), the
 * exponent style the TCK's expected results use for large and small
 * magnitudes, "NaN", "Infinity", "-Infinity". */
void qvg_format_float(double f, qvb_text *out);

/* The type's name for messages: "Integer", "Float", "String", "Boolean",
 * "List", "Map", "Node", "Relationship", "Path", "Null". */
const char *qvg_vtype_name(int t);

#endif
