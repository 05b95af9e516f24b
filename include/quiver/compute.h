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
 * row.  AND chains evaluate each conjunct only on the rows still alive.
 * out is cleared first; it must not alias sel. */
QV_API qv_status qv_eval_filter(const qv_expr *e, const qv_batch *batch, const qv_selection *sel, qv_selection *out,
                                qv_error *err);

/* Checks the constant arguments of a bound expression that its kernels
 * would otherwise judge only when they first run: regex patterns and
 * flags, LIKE patterns and escape characters, str.replace patterns,
 * dt.truncate intervals.  QV_OK when none is refused; else the error
 * evaluation would give (e.g. QV_ERR_INVALID "regexp_match: invalid
 * pattern at offset 1: missing closing parenthesis"), so that a scan can
 * refuse its filter before producing a batch.  Nodes marked
 * QV_EXPR_F_LENIENT keep their leniency (a bad pattern is null per row),
 * and arguments that are not literals are left to evaluation.  e must be
 * bound (qv_expr_bind); NULL is QV_OK. */
QV_API qv_status qv_eval_check(const qv_expr *e, qv_error *err);

#ifdef __cplusplus
}
#endif
#endif
