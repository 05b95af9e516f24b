/* qv_eval_check: the constant arguments of a bound tree judged before any
 * batch, so that a bad regex fails the scan's open rather than its first
 * batch (after a header has been printed).  Each check lives beside its
 * kernel and reuses the kernel's parsing and messages; this file only
 * walks the tree. */
#include "compute/compute_int.h"

static qv_status check_node(const qv_expr *e, int depth, qv_error *err) {
  if (!e || e->kind != QV_EXPR_CALL) return QV_OK;
  /* Bound trees are bounded in depth by the binder; this is a backstop. */
  if (depth > 4096) return QV_OK;
  for (int32_t i = 0; i < e->n_args; i++) QV_RETURN_NOT_OK(check_node(e->args[i], depth + 1, err));
  switch (e->op) {
    case QV_OP_REGEXP_LIKE:
    case QV_OP_REGEXP_MATCH: return qvk_regex_check(e, err);
    case QV_OP_REPLACE: return qvk_replace_check(e, err);
    case QV_OP_LIKE: return qvk_like_check(e, err);
    case QV_OP_DT_TRUNCATE: return qvk_dt_truncate_check(e, err);
    default: return QV_OK;
  }
}

qv_status qv_eval_check(const qv_expr *e, qv_error *err) {
  QV_RETURN_NOT_OK(check_node(e, 0, err));
  /* Polars folds constants when it plans, so `pl.lit(-1).cast(pl.UInt8)`
   * fails even where no row is read (all pages pruned, an empty dataset,
   * a when/then branch no row takes). */
  return e ? qvk_fold_constants(e, err) : QV_OK;
}
