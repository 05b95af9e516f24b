/* Cypher predicates over one node's or relationship's own properties,
 * lowered to quiver's expression IR and evaluated over the whole property
 * table at once by the compute kernels (graph/cypher_lower.c).
 *
 * A hop's edge filter such as `k.since > 2015` reads nothing but the
 * relationship; evaluated per relationship through the Cypher evaluator it
 * costs a value conversion and a tree walk each time.  Lowered, the same
 * predicate is one vectorized comparison over the `since` column, and the
 * answer for every relationship of the type is known before the walk.
 *
 * Only what means exactly the same in both languages is lowered, so the
 * lowered predicate is TRUE on a row exactly where the Cypher one is TRUE
 * for that entity: comparisons of a property with a literal (or another
 * property) of the same kind (integers of at most 32 bits and int64 with
 * integer literals, float64 with float literals and integers of at most
 * 2^53, strings, booleans for = and <>), IS [NOT] NULL, IN a list of such
 * literals, STARTS WITH / ENDS WITH / CONTAINS with a string literal, a
 * boolean property alone, and AND / OR / XOR / NOT of these (both are
 * three-valued).  Floats compare as IEEE (NaN unequal to everything,
 * -0.0 = 0.0), as Cypher's do.  Anything else (functions, arithmetic,
 * float32 columns, temporal values, uint64 columns, whose values past
 * int64 fail in Cypher) is declined and stays with the evaluator. */
#ifndef QUIVER_GRAPH_CYPHER_LOWER_H
#define QUIVER_GRAPH_CYPHER_LOWER_H

#include "graph/cypher_eval.h"
#include "quiver/compute.h"

typedef struct qvg_lowered qvg_lowered;

/* Lowers e, a predicate that reads nothing but the entity in input column
 * col, over the property columns of owner (a relationship type when rel,
 * else a node label) in store st.  *out is NULL (and QV_OK) when e cannot
 * be lowered exactly or the store has no property tables (memory store):
 * the caller keeps evaluating e per entity.  Loads the columns e reads. */
qv_status qvg_lower_pred(const qvg_store *st, const qvg_cx *e, int32_t col, bool rel, int32_t owner, qvg_lowered **out,
                         qv_error *err);
/* Evaluates the lowered predicate at every row position [0, n) of the
 * owner's table: out[pos] = if_true where it is TRUE, otherwise (false or
 * null). */
qv_status qvg_lowered_eval(const qvg_lowered *lw, int64_t n, uint8_t *out, uint8_t if_true, uint8_t otherwise,
                           qv_error *err);
/* The lowered expression's text (quiver's expression syntax), for EXPLAIN. */
const qv_expr *qvg_lowered_expr(const qvg_lowered *lw);
void qvg_lowered_free(qvg_lowered *lw); /* NULL-safe */

#endif
