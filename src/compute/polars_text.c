/* Kernels for the string, temporal and list operators only the Polars
 * front ends produce, with Polars 2.1.0 semantics. */
#include "compute/compute_int.h"

qv_status qvk_op_polars_text(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  (void)args;
  (void)out;
  switch (e->op) {
    default: break;
  }
  return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "eval: operator %s is not supported", qv_op_name(e->op));
}
