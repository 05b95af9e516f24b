/* Little-endian reading and writing of the on-disk formats (base/wire.h).
 * The cursor is the one place untrusted bytes are read from: every read is
 * bounded by the bytes actually present, and the first failure names the
 * file and offset. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/wire.h"

void qvb_cursor_init(qvb_cursor *c, const uint8_t *data, int64_t size, int64_t base, const char *file, qv_error *err) {
  c->data = data;
  c->size = size;
  c->pos = 0;
  c->base = base;
  c->file = file;
  c->err = err;
  c->status = QV_OK;
}

bool qvb_cursor_fail(qvb_cursor *c, const char *fmt, ...) {
  if (c->status != QV_OK) return false;
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  c->status = qv_error_set(c->err, QV_ERR_CORRUPT, "%s: offset %lld: %s", c->file, (long long)(c->base + c->pos), what);
  return false;
}

bool qvb_wire_get_range(qvb_cursor *c, int64_t lo, int64_t hi, int64_t *v, const char *what) {
  int64_t at = c->pos;
  uint64_t u;
  if (!qvb_wire_get_u64(c, &u, what)) return false;
  if (u > (uint64_t)INT64_MAX || (int64_t)u < lo || (int64_t)u > hi) {
    c->pos = at; /* report the offset of the bad value itself */
    return qvb_cursor_fail(c, "%s %llu is outside %lld..%lld", what, (unsigned long long)u, (long long)lo,
                           (long long)hi);
  }
  *v = (int64_t)u;
  return true;
}

bool qvb_wire_get_string(qvb_cursor *c, int64_t max_len, char **out, const char *what) {
  *out = NULL;
  int64_t at = c->pos;
  uint32_t n;
  const uint8_t *p;
  if (!qvb_wire_get_u32(c, &n, what)) return false;
  if ((int64_t)n > max_len) {
    c->pos = at;
    return qvb_cursor_fail(c, "%s is %u bytes long (at most %lld allowed)", what, n, (long long)max_len);
  }
  if (!qvb_wire_get_bytes(c, n, &p, what)) return false;
  if (memchr(p, 0, n)) {
    c->pos = at;
    return qvb_cursor_fail(c, "%s contains a NUL byte", what);
  }
  *out = qv_strndup((const char *)p, n);
  if (!*out) {
    c->status = qv_error_nomem(c->err, c->file);
    return false;
  }
  return true;
}

void qvb_wire_put_bytes(qvb_wbuf *w, const void *p, int64_t n) {
  if (w->status != QV_OK) return;
  w->status = qv_buffer_append(&w->buf, p, n);
}

void qvb_wire_put_u8(qvb_wbuf *w, uint8_t v) { qvb_wire_put_bytes(w, &v, 1); }

void qvb_wire_put_u32(qvb_wbuf *w, uint32_t v) {
  uint8_t b[4];
  qv_store_u32le(b, v);
  qvb_wire_put_bytes(w, b, 4);
}

void qvb_wire_put_u64(qvb_wbuf *w, uint64_t v) {
  uint8_t b[8];
  qv_store_u64le(b, v);
  qvb_wire_put_bytes(w, b, 8);
}

void qvb_wire_put_string(qvb_wbuf *w, const char *s) {
  size_t n = s ? strlen(s) : 0;
  qvb_wire_put_u32(w, (uint32_t)n);
  qvb_wire_put_bytes(w, s, (int64_t)n);
}
