/* Kernels for the numeric and logical operators only the Polars front ends
 * produce, with Polars 2.1.0 semantics; the rest go to polars_text.c. */
#include "compute/compute_int.h"

qv_status qvk_op_polars(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  switch (e->op) {
    default: break;
  }
  return qvk_op_polars_text(c, e, args, out);
}
