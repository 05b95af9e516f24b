/* The front ends' first-error diagnostics (diag.h). */
#include "expr/diag.h"

#include <stdio.h>

qv_status qve_diag_vfail(qve_diag *d, qv_status code, int64_t pos, const char *fmt, va_list ap) {
  if (d->st != QV_OK) return d->st;
  char msg[1024];
  size_t max = d->msg_max && d->msg_max < sizeof msg ? d->msg_max : QV_DIAG_MSG_MAX;
  vsnprintf(msg, max, fmt, ap);
  d->st = qv_error_set(d->err, code, "%s: %s at %s %lld", d->what, msg, d->unit, (long long)pos);
  return d->st;
}

qv_status qve_diag_fail(qve_diag *d, qv_status code, int64_t pos, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  qv_status st = qve_diag_vfail(d, code, pos, fmt, ap);
  va_end(ap);
  return st;
}

qv_status qve_diag_set(qve_diag *d, qv_status code, const char *fmt, ...) {
  if (d->st != QV_OK) return d->st;
  d->st = code;
  if (d->err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err->message, sizeof d->err->message, fmt, ap);
    va_end(ap);
    d->err->code = code;
  }
  return code;
}

qv_status qve_diag_nomem(qve_diag *d) {
  if (d->st == QV_OK) d->st = qv_error_nomem(d->err, d->what);
  return d->st;
}
