/* The graph layer's physical operators, internal: each is a qv_exec_op
 * (exec/exec_int.h's interface), so graph plans mix them freely with
 * exec's relational operators (HashJoinExec, SortExec, LimitExec, ...).
 *
 * Column conventions of a Cypher batch (cypher_value.h): NODE and REL
 * columns are int64 ids, every other column a VALUE column (BINARY of
 * encoded values).  An operator that evaluates expressions is given the
 * kinds of its input's columns; its output's kinds are the input's
 * followed by those of the columns it adds (stated per operator).
 * Constructors take ownership of the child (destroyed on failure too) and
 * copy what they are given, except the store and compiled expressions,
 * which belong to the plan and must outlive the operator. */
#ifndef QUIVER_GRAPH_CYPHER_OPS_H
#define QUIVER_GRAPH_CYPHER_OPS_H

#include "exec/exec_int.h"
#include "graph/cypher_eval.h"
#include "graph/gstore.h"

/* ---- sources (gop_scan.c) ---- */

/* NodeScanExec: the ids of the nodes with the label (-1: all), one NODE
 * column named `name`.  explain: "NodeScanExec: a:Person, rows=4". */
qv_status qvg_op_node_scan(qv_exec_ctx *ctx, const qvg_store *st, int32_t label, const char *name, qv_exec_op **out,
                           qv_error *err);
/* NodeScanExec over a dataset store with a filter the dataset scanner
 * evaluates (qv_scanner: page statistics prune, scalar indices answer):
 * the ids of the label's nodes whose rows it keeps, in row order.  filter
 * is quiver's expression IR over the label's dataset columns, unbound
 * (copied).  est >= 0 (estimated rows) and note (copied; nullable) are
 * for explain: "NodeScanExec: a:Person, rows=4, filter=(age > 35),
 * est=1.3"; by id: "NodeScanExec: a:Person, rows=4, id=2 (node index)". */
typedef struct qvg_node_scan_spec {
  int32_t label; /* -1: every node (no filter then) */
  const char *name;
  const qv_expr *filter; /* nullable; dataset stores only */
  double est;            /* < 0: not shown */
  const char *note;
  /* dataset stores: only the node whose id (the label's id column) is id,
   * found in the node index (no filter then) */
  bool by_id;
  int64_t id;
} qvg_node_scan_spec;
qv_status qvg_op_node_scan_spec(qv_exec_ctx *ctx, const qvg_store *st, const qvg_node_scan_spec *spec, qv_exec_op **out,
                                qv_error *err);
/* RelScanExec: every relationship of the types (n_types 0: all types):
 * REL column rel_name, NODE columns src_name and dst_name.  The hash-join
 * plan's side of a hop. */
qv_status qvg_op_rel_scan(qv_exec_ctx *ctx, const qvg_store *st, const int32_t *types, int32_t n_types,
                          const char *rel_name, const char *src_name, const char *dst_name, qv_exec_op **out,
                          qv_error *err);
/* One row and no columns' worth of input: a single VALUE column named
 * name, null (the start of a query that begins with RETURN or UNWIND). */
qv_status qvg_op_unit(qv_exec_ctx *ctx, const char *name, qv_exec_op **out, qv_error *err);

/* ---- expansion (gop_expand.c) ---- */

typedef struct qvg_expand_spec {
  int32_t from_col;     /* NODE column of the input the hop leaves */
  const int32_t *types; /* relationship types (alternatives); n_types 0: every type */
  int32_t n_types;
  int dir;              /* QVG_DIR_RIGHT (->), QVG_DIR_LEFT (<-), QVG_DIR_BOTH (-) */
  bool varlen;          /* a *min..max hop */
  int64_t min_hops;     /* varlen: >= 0 */
  int64_t max_hops;     /* varlen: >= min_hops */
  int32_t into_col;     /* >= 0: the target is this bound NODE column (the hop checks it); -1: a new node */
  int32_t to_label;     /* new node: its label (-1: any); extra labels go to target_filter */
  const char *to_name;  /* new node's column name */
  const char *rel_name; /* column for the relationship: REL (one hop) or VALUE list of rels (varlen) */
  /* Conditions evaluated on the candidate output row (input columns,
   * then the rel column, then the node column, as the output): rows where
   * they are not TRUE are not produced.  target_filter reads only the new
   * node (the operator may memoize it per node), edge_filter only the rel. */
  const qvg_cx *target_filter; /* nullable */
  const qvg_cx *edge_filter;   /* nullable; varlen: every relationship of the path must pass it */
  /* Relationship uniqueness within a MATCH: REL columns (or VALUE lists of
   * rels) of the input the new relationships must differ from. */
  const int32_t *unique_cols;
  int32_t n_unique;
  bool optional; /* an input row with no match yields once, rel and node null */
} qvg_expand_spec;

/* CsrExpandExec.  Output: the input's columns, then rel_name (REL, or
 * VALUE for varlen), then to_name (NODE) unless into_col >= 0.  A varlen
 * hop is one operator iterating depth by depth (trail semantics: no rel
 * twice on one path); every operator yields partway through a
 * high-degree node, holding one input batch and one output chunk. */
qv_status qvg_op_expand(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_store *st, const qvg_colkind *in_kinds,
                        const qvg_expand_spec *spec, qv_exec_op **out, qv_error *err);

/* Turns an expansion not yet run into its count mode: instead of a row
 * per match, one row per input row that matched, its columns then an
 * int64 column `name` holding how many rows it would have made (the rel
 * and node columns are gone).  Without filters, a bound target or a
 * var-length hop, and with every far end of the label the hop asks for,
 * the counts are the CSR spans' lengths (less the relationships the row
 * may not reuse): no neighbour is visited.  For count(*) over a MATCH
 * whose last hop's variables nothing else reads.  QV_ERR_INVALID when op
 * is not such an expansion. */
qv_status qvg_expand_count(qv_exec_op *op, const char *name, qv_error *err);
/* The same for count(DISTINCT new node) grouped by the NODE column
 * key_col: the count is of the new nodes not yet seen since key_col last
 * changed (a stamp per node), so summing the counts per key gives the
 * distinct count only when the input's rows with one key come together
 * (the caller proves it: e.g. the rows an expansion of a node scan makes). */
/* A count-mode expansion without filters (`last`) right over another
 * expansion that feeds it only its new node (and may not reuse its
 * relationship) folds into that one: it counts, per match, the span
 * lengths the last hop would have walked.  *out is the new root (`last`
 * destroyed), or NULL when the shapes do not allow it (nothing changed). */
qv_status qvg_expand_count_chain(qv_exec_op *last, qv_exec_op **out, qv_error *err);
qv_status qvg_expand_count_distinct(qv_exec_op *op, const char *name, int32_t key_col, qv_error *err);

/* ---- shortest paths (gop_shortest.c) ---- */

/* ShortestPathExec: shortestPath (all false: one path per start and end)
 * or allShortestPaths (every shortest path) by breadth-first search from
 * the NODE column spec->from_col, over spec's types and direction, with
 * spec->min_hops 0 or 1 and at most spec->max_hops hops; to the bound end
 * spec->into_col (bidirectional), or to every node reached (of
 * spec->to_label when >= 0) as the new NODE column spec->to_name.  The
 * relationships in spec->unique_cols' columns are not used.  No filters
 * (the planner puts the end's above).  Output as a var-length
 * CsrExpandExec's: the input's columns, the VALUE list of relationships
 * spec->rel_name, then the new end.  own_adjacency: build the adjacency
 * from the relationships' ends once (use_csr=false) instead of reading the
 * store's CSR.  explain: "ShortestPathExec: a -> b, types=[KNOWS], dir=-,
 * hops 1.., one, adjacency=csr". */
qv_status qvg_op_shortest(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_store *st, const qvg_expand_spec *spec,
                          bool all, bool own_adjacency, qv_exec_op **out, qv_error *err);

/* ---- pattern predicates (gop_path_exists.c) ---- */

typedef struct qvg_path_hop {
  int32_t type; /* one relationship type of the store */
  int dir;      /* QVG_DIR_RIGHT, QVG_DIR_LEFT or QVG_DIR_BOTH, as written */
} qvg_path_hop;

/* PathExistsExec: whether a path of the hops leaves the NODE column
 * start_col and, when match_col >= 0, ends at that NODE column's node
 * (through any nodes; no relationship twice on one path).  Output: the
 * input's columns, then a VALUE column `name`, true or false (false for a
 * null start or end), as ApplyExec's exists mode.  The rows of one start
 * should come together: a one-hop check marks the start's neighbours once
 * per run of rows with that start.  explain: "PathExistsExec: start=a,
 * hops=1 (-KNOWS->), match=c, as=#5". */
qv_status qvg_op_path_exists(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_store *st, int32_t start_col,
                             int32_t match_col, const qvg_path_hop *hops, int32_t n_hops, const char *name,
                             qv_exec_op **out, qv_error *err);

/* ---- expressions (gop_eval.c) ---- */

typedef enum qvg_out_mode {
  QVG_OUT_VALUE = 0, /* a VALUE column */
  QVG_OUT_NODE,      /* the value must be a node or null: a NODE column */
  QVG_OUT_REL,       /* a REL column */
  QVG_OUT_SORTKEY    /* qvg_val_sortkey bytes, never null (a BINARY column for SortExec) */
} qvg_out_mode;

/* CypherProjectExec: the input's columns when keep_input (else none), then
 * one column per expression named names[i], made as modes[i] says.
 * n_locals: slots the expressions' comprehensions need. */
qv_status qvg_op_eval(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_store *st, const qvg_colkind *in_kinds,
                      const qvg_cx *const *exprs, const char *const *names, const qvg_out_mode *modes, int32_t n,
                      int32_t n_locals, bool keep_input, qv_exec_op **out, qv_error *err);
/* CypherFilterExec: the rows where pred is TRUE. */
qv_status qvg_op_filter(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_store *st, const qvg_colkind *in_kinds,
                        const qvg_cx *pred, int32_t n_locals, qv_exec_op **out, qv_error *err);
/* CypherUnwindExec: one row per element of the list value in column col
 * (a null list: no row; a non-list value: one row of itself, as Cypher's
 * UNWIND of a scalar): the input's columns but col (a long list is not
 * repeated once per element), then the element as a VALUE column named
 * name. */
qv_status qvg_op_unwind(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_colkind *in_kinds, int32_t col, const char *name,
                        qv_exec_op **out, qv_error *err);

/* ---- aggregation (gop_aggregate.c) ---- */

typedef enum qvg_agg {
  QVG_AGG_COUNT_STAR = 0,
  QVG_AGG_COUNT,
  QVG_AGG_SUM,
  QVG_AGG_AVG,
  QVG_AGG_MIN,
  QVG_AGG_MAX,
  QVG_AGG_COLLECT,
  QVG_AGG_STDEV,
  QVG_AGG_STDEVP,
  QVG_AGG_PERCENTILE_CONT,
  QVG_AGG_PERCENTILE_DISC
} qvg_agg;

typedef struct qvg_agg_spec {
  qvg_agg fn;
  int32_t arg_col;    /* input column (-1 for count(*)) */
  int32_t weight_col; /* count(*) only: an int64 column of row weights (an expansion's count mode), or -1 */
  bool distinct;
  double percentile; /* percentileCont / percentileDisc */
  const char *name;
} qvg_agg_spec;

/* CypherAggregateExec: groups by the key columns (equivalence: equal
 * encodings; NODE and REL by id) and yields the keys (same kinds), then
 * one VALUE column per aggregate.  With no keys, one row even over no
 * input.  Cypher's rules: nulls skipped; sum of integers fails on
 * overflow, of mixed numbers is a float; avg a float; min and max by
 * qvg_val_order among non-null values; collect a list. */
qv_status qvg_op_aggregate(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_colkind *in_kinds, const int32_t *key_cols,
                           int32_t n_keys, const qvg_agg_spec *aggs, int32_t n_aggs, qv_exec_op **out, qv_error *err);

/* ---- subqueries (gop_apply.c) ---- */

typedef enum qvg_apply_mode {
  QVG_APPLY_OPTIONAL = 0, /* OPTIONAL MATCH: the subplan's rows; input rows it had none for, once, new columns null */
  QVG_APPLY_EXISTS,       /* pattern predicate / EXISTS: input + VALUE column, true or false */
  QVG_APPLY_COUNT,        /* COUNT { }: input + VALUE column, the count */
  QVG_APPLY_COLLECT       /* pattern comprehension: input + VALUE column, list of the subplan's column value_col */
} qvg_apply_mode;

/* Builds the subplan over `input`, a source of some input rows with their
 * columns and, last, a NODE-kind int64 column "  row" numbering them (the
 * subplan must carry it through to its output, anywhere). */
typedef qv_status (*qvg_subplan_fn)(void *arg, qv_exec_op *input, qv_exec_op **out, qv_error *err);

/* ApplyExec: for each input batch, runs the subplan over it and combines
 * as mode says.  OPTIONAL's output: the subplan's columns except "  row"
 * (which must start with the input's own, in order).  Other modes: the
 * input's columns and one VALUE column named name; value_col is the
 * subplan output column COLLECT gathers.  explain shows the subplan as a
 * child. */
qv_status qvg_op_apply(qv_exec_ctx *ctx, qv_exec_op *child, qvg_apply_mode mode, qvg_subplan_fn build, void *arg,
                       const char *name, int32_t value_col, qv_exec_op **out, qv_error *err);

/* ---- writes to a memory store (gop_create.c) ---- */

/* One element of a CREATE path: a node (created, or the bound NODE column
 * bound_col) or a relationship from the node before it to the node after
 * it (dir QVG_DIR_RIGHT) or back (QVG_DIR_LEFT). */
typedef struct qvg_create_item {
  bool is_rel;
  int32_t bound_col;   /* node: >= 0 reuse that NODE column; -1 create */
  const char *name;    /* output column of a new node / rel (a hidden name when anonymous) */
  const char **labels; /* node labels, or the rel's one type in labels[0] */
  int32_t n_labels;
  const qvg_cx *props; /* nullable: a map expression over the input row */
  int dir;             /* rel: QVG_DIR_RIGHT or QVG_DIR_LEFT */
} qvg_create_item;

/* CreateExec: for each input row, creates one path (items: node, rel,
 * node, ..., n odd) and yields the row followed by a column for each
 * created node (NODE) and rel (REL), in item order.  A property map value
 * that is not a map, or a relationship without exactly one type, is
 * QV_ERR_INVALID; null property values are not stored. */
qv_status qvg_op_create(qv_exec_ctx *ctx, qv_exec_op *child, qvg_store *st, const qvg_colkind *in_kinds,
                        const qvg_create_item *items, int32_t n_items, int32_t n_locals, qv_exec_op **out,
                        qv_error *err);

/* ---- sharing an input (gop_spool.c) ---- */

/* SpoolExec: n readers of one child.  The first reader pulled drains the
 * child into memory (counted against the limit); every reader then yields
 * all its batches.  Each reader is an operator of its own (the first
 * shows the child in explain, the others "SpoolReadExec: spool=N");
 * destroying all of them destroys the child.  Readers must be pulled in
 * order (the first before the others), as UnionExec does. */
qv_status qvg_op_spool(qv_exec_ctx *ctx, qv_exec_op *child, int32_t n, qv_exec_op **readers, qv_error *err);

/* ---- output (gop_result.c) ---- */

/* ResultExec: the user's columns.  A VALUE column becomes a typed Arrow
 * column where static_types[i] says what the binder proved every value is
 * (QV_TYPE_INT64, FLOAT64, BOOL or STRING; a value of another type is then
 * QV_ERR_INVALID), and otherwise (QV_TYPE_NULL) a string column of each
 * value's Cypher text (qvg_val_render); NODE and REL columns become their
 * text too.  With render_all every column is text, null as "null": the
 * TCK harness's view. */
qv_status qvg_op_result(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_store *st, const qvg_colkind *in_kinds,
                        const qv_type_id *static_types, bool render_all, qv_exec_op **out, qv_error *err);

#endif
