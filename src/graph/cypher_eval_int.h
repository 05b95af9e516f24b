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

/* Temporal functions (cypher_temporal_fn.c); type is the kind made
 * (QVG_V_DATE ... QVG_V_DURATION).  The no-argument forms read the
 * statement clock (see statement_now in cypher_temporal_fn.c). */
qv_status qvg_temporal_construct(qvg_evalctx *cx, int type, const qvg_val *args, int32_t n, qvg_val *out,
                                 qv_error *err);
qv_status qvg_temporal_clock(qvg_evalctx *cx, int type, bool real, const qvg_val *args, int32_t n, qvg_val *out,
                             qv_error *err);
qv_status qvg_temporal_truncate(qvg_evalctx *cx, int type, const qvg_val *args, int32_t n, qvg_val *out, qv_error *err);
qv_status qvg_temporal_fromepoch(qvg_evalctx *cx, bool millis, const qvg_val *args, int32_t n, qvg_val *out,
                                 qv_error *err);
/* which: 0 between, 1 inMonths, 2 inDays, 3 inSeconds */
qv_status qvg_duration_between(qvg_evalctx *cx, int which, const qvg_val *a, const qvg_val *b, qvg_val *out,
                               qv_error *err);
/* a op b where one side is a temporal value (neither null): temporal +/- duration, duration +/- duration,
 * duration * number, number * duration, duration / number; other pairs are QV_ERR_TYPE. */
qv_status qvg_temporal_arith(qvg_evalctx *cx, int op, const qvg_val *a, const qvg_val *b, qvg_val *out, qv_error *err);
/* A component of a temporal value (d.year, t.timezone, dur.days); an unknown one is QV_ERR_INVALID. */
qv_status qvg_temporal_prop(qvg_evalctx *cx, const qvg_val *v, const char *key, int32_t klen, qvg_val *out,
                            qv_error *err);

#endif
