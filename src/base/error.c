/* Errors: the caller owns a qv_error; we fill its message. */
#include "quiver/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

qv_status qv_error_set(qv_error *err, qv_status code, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->code = code;
  }
  return code;
}

qv_status qv_error_prefix(qv_error *err, qv_status code, const char *fmt, ...) {
  if (!err) return code;
  char prefix[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  char old[sizeof err->message];
  memcpy(old, err->message, sizeof old);
  old[sizeof old - 1] = '\0';
  snprintf(err->message, sizeof err->message, "%.500s: %.520s", prefix, old);
  if (err->code == QV_OK) err->code = code;
  return err->code;
}

qv_status qv_error_nomem(qv_error *err, const char *where) {
  if (where) return qv_error_set(err, QV_ERR_NOMEM, "%s: out of memory", where);
  return qv_error_set(err, QV_ERR_NOMEM, "out of memory");
}

const char *qv_status_string(qv_status code) {
  switch (code) {
    case QV_OK: return "ok";
    case QV_ERR_INVALID: return "invalid argument";
    case QV_ERR_NOMEM: return "out of memory";
    case QV_ERR_IO: return "I/O error";
    case QV_ERR_CORRUPT: return "corrupt data";
    case QV_ERR_PARSE: return "parse error";
    case QV_ERR_TYPE: return "type error";
    case QV_ERR_NOT_FOUND: return "not found";
    case QV_ERR_UNSUPPORTED: return "unsupported";
    case QV_ERR_OVERFLOW: return "overflow";
    case QV_ERR_EXISTS: return "already exists";
    case QV_ERR_CONFLICT: return "conflict";
    case QV_ERR_CANCELLED: return "cancelled";
  }
  return "unknown error";
}
