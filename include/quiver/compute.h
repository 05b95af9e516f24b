/* quiver compute layer: vectorized kernels and the evaluator that runs a
 * bound expression over a record batch, honouring a selection vector.
 * Kernels are type-specialized loops; nothing allocates per row. */
#ifndef QUIVER_COMPUTE_H
#define QUIVER_COMPUTE_H

#include "quiver/base.h"
#include "quiver/columnar.h"
#include "quiver/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Evaluates a bound expression over batch.  With sel == NULL the result has
 * batch->num_rows elements; otherwise it has sel->count elements, the value
 * for rows sel->rows[0..count) in that order (other rows are not computed).
 * The caller releases *out. */
QV_API qv_status qv_eval(const qv_expr *e, const qv_batch *batch, const qv_selection *sel, qv_array **out,
                         qv_error *err);

/* Evaluates a bound boolean predicate and writes to out the rows (of
 * batch, or of sel when given) where it is TRUE; null and false drop the
 * row.  Errors are Polars' (the whole column): the conjuncts of an AND
 * chain that can fail on a value (qv_eval_may_fail: Polars trees only) run
 * first, each on every row given, so a strict cast fails on a row another
 * conjunct drops; the others then run only on the rows still alive.  Inside
 * when/then/otherwise a branch that can fail runs only on the rows that
 * take it, as in Polars.  out is cleared first; it must not alias sel. */
QV_API qv_status qv_eval_filter(const qv_expr *e, const qv_batch *batch, const qv_selection *sel, qv_selection *out,
                                qv_error *err);

/* Checks the constant arguments of a bound expression that its kernels
 * would otherwise judge only when they first run: regex patterns and
 * flags, LIKE patterns and escape characters, str.replace patterns,
 * dt.truncate intervals.  QV_OK when none is refused; else the error
 * evaluation would give (e.g. QV_ERR_INVALID "regexp_match: invalid
 * pattern at offset 1: missing closing parenthesis"), so that a scan can
 * refuse its filter before producing a batch.  Constant subtrees are
 * evaluated once too (Polars folds `pl.lit(-1).cast(pl.UInt8)` and raises
 * whatever the rows, even in a when/then branch no row takes).  Nodes marked
 * QV_EXPR_F_LENIENT keep their leniency (a bad pattern is null per row),
 * and arguments that are not literals are left to evaluation.  e must be
 * bound (qv_expr_bind); NULL is QV_OK. */
QV_API qv_status qv_eval_check(const qv_expr *e, qv_error *err);

/* True when evaluating the bound tree e could fail because of a value
 * (a strict cast out of range or unparsable, list.get out of bounds, a
 * checked integer overflow, ...), so that skipping rows (page pruning, an
 * index, an earlier conjunct) could hide an error Polars raises.  Errs
 * towards true; constant subtrees do not count (qv_eval_check folds
 * them).  Only trees from the Polars front ends count: a Lance SQL filter
 * keeps its left-to-right AND, where `x != 0 AND 10 / x > 1` guards the
 * division.  NULL is false. */
QV_API bool qv_eval_may_fail(const qv_expr *e);

/* ---- vector distances ---------------------------------------------------
 *
 * The metrics of vector search, as Lance defines them: l2 is the squared
 * Euclidean distance, cosine is 1 - cos(q, x), dot is 1 - q . x.  Smaller
 * is nearer in all three. */
typedef enum qv_metric { QV_METRIC_L2 = 1, QV_METRIC_COSINE = 2, QV_METRIC_DOT = 3 } qv_metric;

/* "l2", "cosine", "dot" ("unknown" otherwise). */
QV_API const char *qv_metric_name(int metric);
/* Parses those names (and "euclidean" for l2); false when s is none. */
QV_API bool qv_metric_parse(const char *s, qv_metric *out);
/* The instruction set the distance kernels use on this machine: "avx512",
 * "avx2" (with FMA) or "portable" (for explain and benchmarks). */
QV_API const char *qv_distance_kernels(void);

#ifdef __cplusplus
}
#endif
#endif
