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
} qv_exec_options;

#define QV_EXEC_OPTIONS_VERSION 1
#define QV_EXEC_OPTIONS_INIT \
  { QV_EXEC_OPTIONS_VERSION, 0, 0, 8192 }

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
 * excluded).  *text is qv_malloc'd (qv_free). */
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

#ifdef __cplusplus
}
#endif
#endif
