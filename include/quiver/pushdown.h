/* quiver pushdown layer: translators from the expression IR to the filter
 * languages of other engines (DESIGN.md decisions 2 and 3).  Evaluates no
 * data. */
#ifndef QUIVER_PUSHDOWN_H
#define QUIVER_PUSHDOWN_H

#include <stdbool.h>

#include "quiver/base.h"
#include "quiver/columnar.h"
#include "quiver/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A Lance SQL filter: exact is true when it keeps exactly the rows the
 * expression keeps, false when it keeps a superset (conjuncts dropped). */
typedef struct qv_lance_filter {
  char *sql; /* owned (qv_malloc) */
  bool exact;
} qv_lance_filter;

/* Translates a Polars-front-end tree into a Lance SQL filter.  schema gives
 * the column types; NULL means schema-less: only what is safe for every
 * column type translates.  *out gets a new filter (free it with
 * qv_lance_filter_free), or NULL when nothing translates.  Errors:
 * QV_ERR_INVALID for NULL e/out, QV_ERR_NOMEM. */
qv_status qv_to_lance_filter(const qv_expr *e, const qv_schema *schema, qv_lance_filter **out, qv_error *err);

/* NULL-safe. */
void qv_lance_filter_free(qv_lance_filter *f);

/* The same translation, explained: one line per node that declined (or
 * conjunct that was dropped) with the reason, or "nothing declined".
 * Returns qv_malloc'd text (qv_free), NULL on allocation failure. */
char *qv_lance_filter_explain(const qv_expr *e, const qv_schema *schema);

#ifdef __cplusplus
}
#endif
#endif
