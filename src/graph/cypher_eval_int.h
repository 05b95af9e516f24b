/* What the evaluator (cypher_eval.c) and the scalar functions
 * (cypher_fn.c) share. */
#ifndef QUIVER_GRAPH_CYPHER_EVAL_INT_H
#define QUIVER_GRAPH_CYPHER_EVAL_INT_H

#include "graph/cypher_eval.h"

/* fn over its evaluated arguments args[0..n) (coalesce is the
 * evaluator's: it is lazy).  Results go to cx->arena. */
qv_status qvg_fn_call(int fn, const qvg_val *args, int32_t n, qvg_evalctx *cx, qvg_val *out, qv_error *err);

/* "cypher: type error: WHAT" (QV_ERR_TYPE) / "cypher: invalid argument:
 * WHAT" (QV_ERR_INVALID) / "cypher: integer overflow in WHAT". */
qv_status qvg_type_error(qv_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
qv_status qvg_arg_error(qv_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
qv_status qvg_overflow(qv_error *err, const char *what);

/* A list of n values in the arena (items uninitialised), or NULL. */
qvg_val *qvg_new_list(qvg_arena *a, int32_t n, qvg_val *out);
/* A string copy of n bytes in the arena. */
qv_status qvg_new_string(qvg_arena *a, const char *s, size_t n, qvg_val *out, qv_error *err);

#endif
