/* quiver exec layer: relational operators over batch streams.  A plan is a
 * tree of qv_exec_op handles; each pulls Arrow-layout batches from its
 * children and yields batches of its own.  Operators share a qv_exec_ctx
 * (memory limit, threads, batch size); every operator that holds data
 * counts its bytes against the context's limit and fails with an error
 * naming itself and the limit instead of growing without bound.  Knows
 * nothing about graphs. */
#ifndef QUIVER_EXEC_H
#define QUIVER_EXEC_H

#include "quiver/base.h"
#include "quiver/columnar.h"
#include "quiver/expr.h"
#include "quiver/scan.h"
#include "quiver/storage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- context ---------------------------------------------------------- */

typedef struct qv_exec_options {
  int version; /* QV_EXEC_OPTIONS_VERSION */
  /* Bytes the operators of one plan may hold at once, all together (hash
   * tables, buffered input).  0: half of the machine's physical memory. */
  int64_t memory_limit;
  /* Threads the parallel operators use (capped by qv_threads()); 0: qv_threads(). */
  int threads;
  int64_t batch_size; /* rows per output batch where an operator chooses (default 8192) */
  /* Version 2: when non-NULL and *cancel becomes nonzero (set from any
   * thread or a signal handler), the plan stops: the next batch any
   * operator asks for fails with QV_ERR_CANCELLED "cancelled", and long
   * loops inside one operator (a shortest-path search) check it too. */
  const volatile int *cancel;
} qv_exec_options;

#define QV_EXEC_OPTIONS_VERSION 2
#define QV_EXEC_OPTIONS_INIT \
  { QV_EXEC_OPTIONS_VERSION, 0, 0, 8192, NULL }

/* Shared by the operators of a plan: each operator keeps a reference, so
 * the caller may release its own as soon as the plan is built.  Reference
 * counted; safe to share between threads. */
typedef struct qv_exec_ctx qv_exec_ctx;

/* opts may be NULL (defaults).  Errors: QV_ERR_INVALID for a negative
 * limit or batch size. */
QV_API qv_status qv_exec_ctx_create(const qv_exec_options *opts, qv_exec_ctx **out, qv_error *err);
QV_API void qv_exec_ctx_release(qv_exec_ctx *ctx); /* NULL-safe */
/* Bytes the context's operators hold now / held at most. */
QV_API int64_t qv_exec_ctx_held_bytes(const qv_exec_ctx *ctx);
QV_API int64_t qv_exec_ctx_peak_bytes(const qv_exec_ctx *ctx);

/* ---- operators --------------------------------------------------------- */

/* One operator and, through it, its subtree.  Constructors take ownership
 * of the children they are given, also when they fail (the children are
 * then destroyed), and copy the expressions and names they are given
 * (expressions unbound: they are bound against the child's schema, and a
 * binding error is the constructor's). */
typedef struct qv_exec_op qv_exec_op;

/* The next batch (caller releases) or *out = NULL at the end.  After an
 * error the operator returns that error again. */
QV_API qv_status qv_exec_next(qv_exec_op *op, qv_batch **out, qv_error *err);
/* Output schema (owned by op). */
QV_API const qv_schema *qv_exec_schema(const qv_exec_op *op);
/* Destroys op and its subtree, releasing what they hold.  NULL-safe. */
QV_API void qv_exec_destroy(qv_exec_op *op);
/* The plan as an indented tree, one operator a line, two spaces per level:
 * "NameExec: arguments\n".  With analyze, each line ends with
 * ", metrics=[rows_in=N, rows_out=N, batches=N, time=Xms, peak_bytes=N]"
 * (the counters so far; time is the operator's own, its children's
 * excluded), some operators adding their own before the "]"
 * (DataSourceExec over a dataset: fragments, pages_pruned=P/T,
 * rows_scanned, rows_selected; HashJoinExec: build_rows).  *text is
 * qv_malloc'd (qv_free). */
QV_API qv_status qv_exec_explain(const qv_exec_op *op, bool analyze, char **text, qv_error *err);
/* The tree as a batch reader (takes ownership of op; the reader's destroy
 * destroys it), e.g. for qv_export_stream. */
QV_API qv_status qv_exec_reader(qv_exec_op *op, qv_batch_reader **out, qv_error *err);

/* DataSourceExec over a dataset: qv_scanner_open with opts (NULL: defaults)
 * unchanged, so projection, filter pushdown, page pruning and index use are
 * the scanner's.  Holds what the scanner holds (bounded readahead). */
QV_API qv_status qv_exec_scan(qv_exec_ctx *ctx, const char *path, const qv_scan_options *opts, qv_exec_op **out,
                              qv_error *err);
/* The same over an open dataset (not owned; must outlive the operator). */
QV_API qv_status qv_exec_scan_dataset(qv_exec_ctx *ctx, const qv_dataset *ds, const qv_scan_options *opts,
                                      qv_exec_op **out, qv_error *err);
/* DataSourceExec over batches in memory (each retained; same schema, which
 * is copied).  Its row count is known, so joins can size by it. */
QV_API qv_status qv_exec_batches(qv_exec_ctx *ctx, const qv_schema *schema, qv_batch *const *batches, int32_t n,
                                 qv_exec_op **out, qv_error *err);
/* DataSourceExec over any batch reader (takes ownership of reader, also on
 * failure).  label (nullable, copied) names it in explain. */
QV_API qv_status qv_exec_source(qv_exec_ctx *ctx, qv_batch_reader *reader, const char *label, qv_exec_op **out,
                                qv_error *err);

/* FilterExec: the rows where predicate (boolean) is TRUE; null and false
 * drop the row.  Holds one batch. */
QV_API qv_status qv_exec_filter(qv_exec_ctx *ctx, qv_exec_op *child, const qv_expr *predicate, qv_exec_op **out,
                                qv_error *err);

/* ProjectionExec: one output column per expression, named names[i].
 * Holds one batch. */
QV_API qv_status qv_exec_project(qv_exec_ctx *ctx, qv_exec_op *child, const qv_expr *const *exprs,
                                 const char *const *names, int32_t n, qv_exec_op **out, qv_error *err);

/* LimitExec: skips `skip` rows, then yields at most `limit` (-1: all).
 * Stops pulling its child once the limit is reached.  Holds nothing. */
QV_API qv_status qv_exec_limit(qv_exec_ctx *ctx, qv_exec_op *child, int64_t skip, int64_t limit, qv_exec_op **out,
                               qv_error *err);

/* UnionExec (UNION ALL): the children's batches one child after another.
 * Column types must match position by position (QV_ERR_TYPE names the
 * first that does not); names come from the first child. */
QV_API qv_status qv_exec_union(qv_exec_ctx *ctx, qv_exec_op **children, int32_t n, qv_exec_op **out, qv_error *err);

/* ---- aggregation ------------------------------------------------------ */

typedef enum qv_agg_fn {
  QV_AGG_COUNT_STAR = 0, /* rows (arg unused) */
  QV_AGG_COUNT,          /* non-null values */
  QV_AGG_SUM,
  QV_AGG_AVG,
  QV_AGG_MIN,
  QV_AGG_MAX,
  QV_AGG_COLLECT /* the non-null values, as a list, in input order */
} qv_agg_fn;

/* One aggregate: fn over arg (unbound; NULL for count(*)), output column
 * name.  distinct: each distinct non-null value once per group.
 *
 * Null and NaN rules (SQL and Cypher agree): nulls are skipped by every
 * function but count(*).  Over no rows (or only nulls) count and count(*)
 * give 0, collect an empty list, and sum, avg, min and max null.  sum of
 * integers is int64 and fails with QV_ERR_OVERFLOW when it leaves int64;
 * of floats float64 (a NaN makes it NaN).  avg is float64.  count and
 * collect take values of any type.  min and max
 * keep the input type (integers, floats, bool, strings by bytes, temporal);
 * NaN is greater than every number, so max is NaN when a NaN was seen and
 * min is NaN only when every value was.  DISTINCT and group keys treat NaN
 * as one value, -0.0 as 0.0, and null as one group key. */
typedef struct qv_exec_agg {
  qv_agg_fn fn;
  const qv_expr *arg;
  bool distinct;
  const char *name;
} qv_exec_agg;

/* HashAggregateExec: groups its input by the key expressions (n_keys may
 * be 0: one row, also over no input) and yields the keys (named
 * key_names[i]) then the aggregates.  Holds its group table and the
 * aggregates' state (the values of collect, the distinct sets), counted
 * against the memory limit; yields only after its input ended.  With
 * threads > 1, the rows of each round of input batches are split by key
 * hash and each part aggregated on its own worker: the groups are the same
 * at any thread count, their order is not. */
QV_API qv_status qv_exec_aggregate(qv_exec_ctx *ctx, qv_exec_op *child, const qv_expr *const *keys,
                                   const char *const *key_names, int32_t n_keys, const qv_exec_agg *aggs,
                                   int32_t n_aggs, qv_exec_op **out, qv_error *err);

/* ---- joins ------------------------------------------------------------- */

typedef enum qv_join_type {
  QV_JOIN_INNER = 0,
  QV_JOIN_LEFT, /* left outer: unmatched left rows once, right columns null */
  QV_JOIN_SEMI, /* left rows with a match, once each; left columns only */
  QV_JOIN_ANTI  /* left rows without a match; left columns only */
} qv_join_type;

/* HashJoinExec: equi-join of left and right on left_keys[i] = right_keys[i]
 * (column names, n_keys >= 1; integer keys of any width compare by value,
 * as do floats of either width; strings and binary by bytes).  Null keys
 * never match, nor does NaN.  Output: the left columns then the right ones
 * (right ones only for inner and left).  The build side (hashed and held,
 * counted against the memory limit) is the right one unless both sizes are
 * known and the left's is smaller.  Building the right, the output follows
 * the left's order (each left row's matches in right order).  Building the
 * left, inner and left joins yield the matches in the right's order (a left
 * join then its unmatched left rows, in left order), semi and anti joins
 * the left rows in left order.  With threads > 1 the probe batches of a
 * round are probed in parallel and yielded in order, so the output is the
 * same at any thread count.  The matches of one probe batch (8 bytes each)
 * must also stay within the memory limit, else the join fails saying so. */
QV_API qv_status qv_exec_hash_join(qv_exec_ctx *ctx, qv_exec_op *left, qv_exec_op *right, const char *const *left_keys,
                                   const char *const *right_keys, int32_t n_keys, qv_join_type type, qv_exec_op **out,
                                   qv_error *err);

/* CrossJoinExec: every left row with every right row (left-major order).
 * Holds the right side (counted against the memory limit). */
QV_API qv_status qv_exec_cross_join(qv_exec_ctx *ctx, qv_exec_op *left, qv_exec_op *right, qv_exec_op **out,
                                    qv_error *err);

/* ---- ordering ---------------------------------------------------------- */

/* One sort key: a column by name, ascending unless descending, nulls after
 * the values unless nulls_first.  Floats order NaN above every number. */
typedef struct qv_sort_key {
  const char *column;
  bool descending;
  bool nulls_first;
} qv_sort_key;

/* SortExec: a stable sort on the keys.  Holds its whole input (counted
 * against the memory limit) and yields once the input ended. */
QV_API qv_status qv_exec_sort(qv_exec_ctx *ctx, qv_exec_op *child, const qv_sort_key *keys, int32_t n_keys,
                              qv_exec_op **out, qv_error *err);

/* TopKExec: the first k rows of the stable sort (SortExec + LimitExec) in
 * bounded memory: a heap of k rows plus one input batch. */
QV_API qv_status qv_exec_topk(qv_exec_ctx *ctx, qv_exec_op *child, const qv_sort_key *keys, int32_t n_keys, int64_t k,
                              qv_exec_op **out, qv_error *err);

/* ---- unwind ------------------------------------------------------------ */

/* UnwindExec: one row per element of the list column `column`: the input's
 * columns, then the element (named as_name), then, when ordinality_name is
 * given, the element's 1-based position (int64).  A null or empty list
 * yields no row.  Holds one input batch. */
QV_API qv_status qv_exec_unwind(qv_exec_ctx *ctx, qv_exec_op *child, const char *column, const char *as_name,
                                const char *ordinality_name, qv_exec_op **out, qv_error *err);

#ifdef __cplusplus
}
#endif
#endif
