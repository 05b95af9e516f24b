/* The index layer's answers as roaring bitmaps: the rows of one fragment a
 * conjunct keeps.  Apart from quiver/index.h so that a client of the index
 * layer that does not answer conjuncts itself (the command, the Python
 * extension, a vector search) needs no CRoaring header. */
#ifndef QUIVER_INDEX_BITMAP_H
#define QUIVER_INDEX_BITMAP_H

#include <roaring/roaring.h>

#include "quiver/index.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rows of fragment `fragment_id` the conjunct keeps (row numbers within
 * the fragment; deleted rows are not removed) into out (cleared first),
 * and whether that is exact.  QV_ERR_INVALID when the index cannot answer
 * the conjunct or does not cover the fragment; QV_ERR_CORRUPT with the
 * file, offset and problem when a file is damaged. */
QV_API qv_status qv_index_query(qv_index *ix, const qv_expr *conjunct, int64_t fragment_id, roaring_bitmap_t *out,
                                bool *exact, qv_error *err);

#ifdef __cplusplus
}
#endif
#endif
