/* The diagnostics of the expr layer's front ends (the Lance filter parser,
 * the Polars text parser, the JSON reader and the Polars JSON reader): the
 * first error wins, and it says where, "WHAT: MESSAGE at UNIT N".
 *
 * A parser fails deep in a recursion and then unwinds through callers that
 * may fail again on the way out (a NULL child, a missing ')'); only the
 * first report describes the input, so every later one is dropped here,
 * and the callers need not check before reporting. */
#ifndef QUIVER_EXPR_DIAG_H
#define QUIVER_EXPR_DIAG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "quiver/base.h"

/* Bytes of MESSAGE, before "WHAT: " and " at UNIT N" are added, unless a
 * diag says otherwise (msg_max). */
#define QV_DIAG_MSG_MAX 512

typedef struct qve_diag {
  qv_error *err;    /* the caller's; may be NULL */
  const char *what; /* the prefix: "filter", "expression", "polars json" */
  const char *unit; /* what a position counts: "column" (1-based, in characters) or "byte" (0-based) */
  size_t msg_max;   /* 0: QV_DIAG_MSG_MAX; longer messages are cut */
  qv_status st;     /* QV_OK until the first error, then its code */
} qve_diag;

#define QV_DIAG_INIT(err, what, unit) \
  { (err), (what), (unit), 0, QV_OK }

/* Records code with "WHAT: MESSAGE at UNIT pos" (printf-style MESSAGE)
 * unless an error was recorded already; returns d->st either way. */
qv_status qve_diag_fail(qve_diag *d, qv_status code, int64_t pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
qv_status qve_diag_vfail(qve_diag *d, qv_status code, int64_t pos, const char *fmt, va_list ap);

/* Records code with the whole message as given (printf-style), for
 * messages that place the position elsewhere, unless an error was
 * recorded already; returns d->st either way. */
qv_status qve_diag_set(qve_diag *d, qv_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Records QV_ERR_NOMEM, "WHAT: out of memory", unless an error was
 * recorded already; returns d->st.  Needs no memory. */
qv_status qve_diag_nomem(qve_diag *d);

static inline bool qve_diag_failed(const qve_diag *d) { return d->st != QV_OK; }

#endif
