/* What the files of Cypher values share (cypher_value.c, cypher_order.c,
 * cypher_text.c); users outside them go through cypher_value.h. */
#ifndef QUIVER_GRAPH_CYPHER_VALUE_INT_H
#define QUIVER_GRAPH_CYPHER_VALUE_INT_H

#include "graph/cypher_value.h"

/* Deepest nesting an encoding, a decoding or a column conversion accepts:
 * keeps hostile bytes from exhausting the stack. */
#define QVG_VAL_MAX_DEPTH 1000

/* Byte order of map keys (code point order for UTF-8), shorter first. */
int qvg_key_cmp(const char *a, int32_t na, const char *b, int32_t nb);
/* The bits of f as encoded: -0.0 as 0.0, one NaN. */
uint64_t qvg_float_bits(double f);

#endif
