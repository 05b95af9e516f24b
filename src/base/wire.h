/* Bytes on the wire and on disk, internal to libquiver: a bounded
 * little-endian cursor over untrusted bytes, a little-endian writer, and
 * the file kit the formats are written and read with (whole reads and
 * writes, durable creation, random names).  None of it knows what the
 * bytes mean: the storage layer's data files, manifests and deletion files
 * and the index layer's index files are all read and written through it.
 * wire.c holds the cursor and the writer, file.c the file kit. */
#ifndef QUIVER_BASE_WIRE_H
#define QUIVER_BASE_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "quiver/base.h"

/* ---- bounded little-endian cursor over untrusted bytes ------------------ */

/* Reads advance pos; the first failure sets status and a message naming the
 * file and the absolute file offset, and every later read fails too, so a
 * parser may check once at the end of a group of reads. */
typedef struct qvb_cursor {
  const uint8_t *data;
  int64_t size;
  int64_t pos;
  int64_t base;     /* file offset of data[0], for messages */
  const char *file; /* for messages */
  qv_error *err;
  qv_status status;
} qvb_cursor;

void qvb_cursor_init(qvb_cursor *c, const uint8_t *data, int64_t size, int64_t base, const char *file, qv_error *err);
/* Sets a CORRUPT error at the cursor's position (first failure wins). */
bool qvb_cursor_fail(qvb_cursor *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static inline bool qvb_wire_get_bytes(qvb_cursor *c, int64_t n, const uint8_t **out, const char *what) {
  *out = NULL;
  if (c->status != QV_OK) return false;
  if (n < 0 || n > c->size - c->pos)
    return qvb_cursor_fail(c, "truncated %s (%lld bytes needed, %lld left)", what, (long long)n,
                           (long long)(c->size - c->pos));
  *out = c->data + c->pos;
  c->pos += n;
  return true;
}
static inline bool qvb_wire_get_u8(qvb_cursor *c, uint8_t *v, const char *what) {
  const uint8_t *p;
  if (!qvb_wire_get_bytes(c, 1, &p, what)) return false;
  *v = p[0];
  return true;
}
static inline bool qvb_wire_get_u32(qvb_cursor *c, uint32_t *v, const char *what) {
  const uint8_t *p;
  if (!qvb_wire_get_bytes(c, 4, &p, what)) return false;
  *v = qv_load_u32le(p);
  return true;
}
static inline bool qvb_wire_get_u64(qvb_cursor *c, uint64_t *v, const char *what) {
  const uint8_t *p;
  if (!qvb_wire_get_bytes(c, 8, &p, what)) return false;
  *v = qv_load_u64le(p);
  return true;
}
/* A u64 that must lie in [lo, hi] (as a signed count or offset). */
bool qvb_wire_get_range(qvb_cursor *c, int64_t lo, int64_t hi, int64_t *v, const char *what);
/* u32 length + bytes (at most max_len); *out is a qv_malloc'd NUL-terminated
 * copy; embedded NUL bytes are refused (names are C strings). */
bool qvb_wire_get_string(qvb_cursor *c, int64_t max_len, char **out, const char *what);

/* ---- writing little-endian bytes ---------------------------------------- */

/* Appends to a qv_buffer; the status is sticky like the cursor's. */
typedef struct qvb_wbuf {
  qv_buffer buf;
  qv_status status;
} qvb_wbuf;

void qvb_wire_put_bytes(qvb_wbuf *w, const void *p, int64_t n);
void qvb_wire_put_u8(qvb_wbuf *w, uint8_t v);
void qvb_wire_put_u32(qvb_wbuf *w, uint32_t v);
void qvb_wire_put_u64(qvb_wbuf *w, uint64_t v);
void qvb_wire_put_string(qvb_wbuf *w, const char *s);

/* ---- files (file.c) -------------------------------------------------------- */

/* Messages name the file by `name` (what the user knows it as, e.g.
 * "data/<hex>.qvf"), not by the full path. */

char *qvb_path_join(const char *a, const char *b); /* qv_malloc'd "a/b"; NULL on OOM */
/* Exactly n bytes at off, retrying short reads and EINTR; a file that ends
 * first is QV_ERR_CORRUPT. */
qv_status qvb_file_pread_full(int fd, void *buf, int64_t n, int64_t off, const char *name, qv_error *err);
qv_status qvb_file_write_full(int fd, const void *buf, int64_t n, const char *name, qv_error *err);
/* Whole file into a qv_malloc'd buffer; QV_ERR_CORRUPT when larger than
 * max_size (a hostile or wrong file), QV_ERR_NOT_FOUND when absent. */
qv_status qvb_file_read(const char *path, const char *name, int64_t max_size, uint8_t **out, int64_t *size,
                        qv_error *err);
/* Writes bytes to path (O_EXCL), fsyncs it; removes it again on failure. */
qv_status qvb_file_write_new(const char *path, const char *name, const void *data, int64_t size, qv_error *err);
qv_status qvb_file_fsync_dir(const char *dir, qv_error *err);
qv_status qvb_file_mkdir(const char *path, qv_error *err); /* ok when it exists */
/* n random bytes as 2n lowercase hex characters + NUL into out. */
qv_status qvb_random_hex(char *out, int n, qv_error *err);

#endif
