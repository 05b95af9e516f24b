/* Helpers the Polars string kernels share (polars_text.c, polars_case.c):
 * reading a string datum row by row through its selection, and building a
 * string result in one growing buffer (no allocation per row). */
#ifndef QUIVER_COMPUTE_POLARS_STR_INT_H
#define QUIVER_COMPUTE_POLARS_STR_INT_H

#include "base/utf8.h"
#include "compute/compute_int.h"

/* A string datum seen row by row: a scalar, or an array through idx. */
typedef struct qvk_sview {
  const qv_scalar *s;
  const qv_array *a;
  const int32_t *off;
  const uint8_t *data;
  const uint32_t *idx;
  bool all_null;
} qvk_sview;

static inline void qvk_sview_init(qvk_sview *v, const qvk_datum *d) {
  memset(v, 0, sizeof *v);
  v->all_null = qvk_datum_all_null(d);
  if (d->scalar) {
    v->s = d->scalar;
    return;
  }
  v->a = d->array;
  v->idx = d->idx;
  if (v->all_null) return;
  v->off = qv_array_offsets(d->array);
  v->data = d->array->buffers[2] ? d->array->buffers[2]->data : (const uint8_t *)"";
}

/* Row i's bytes; false when it is null. */
static inline bool qvk_sview_get(const qvk_sview *v, int64_t i, const uint8_t **p, int64_t *len) {
  if (v->all_null) return false;
  if (v->s) {
    *p = v->s->bytes ? v->s->bytes : (const uint8_t *)"";
    *len = v->s->len;
    return true;
  }
  int64_t r = v->idx ? v->idx[i] : i;
  if (!qv_array_is_valid(v->a, r)) return false;
  *p = v->data + v->off[r];
  *len = v->off[r + 1] - v->off[r];
  return true;
}

/* A string result under construction: row i is begun by
 * qvk_sout_row(o, i) and is valid once qvk_sout_valid(o, i) is called. */
typedef struct qvk_sout {
  qv_buffer data;
  qv_bytes *offsets, *validity;
  int32_t *o;
  uint8_t *vbits;
  int64_t n;
} qvk_sout;

qv_status qvk_sout_init(qvk_sout *o, int64_t n, qv_error *err);
static inline void qvk_sout_row(qvk_sout *o, int64_t i) { o->o[i] = (int32_t)o->data.size; }
static inline void qvk_sout_valid(qvk_sout *o, int64_t i) { qv_bit_set(o->vbits, i); }
/* Appends bytes to the current row ("what" names the kernel in errors). */
qv_status qvk_sout_add(qvk_sout *o, const void *p, int64_t n, const char *what, qv_error *err);
/* Ensures room for n more bytes; returns where they go (NULL on error). */
uint8_t *qvk_sout_room(qvk_sout *o, int64_t n, const char *what, qv_error *err);
/* Finishes the array (string type) into *out; releases o on every path.
 * A kernel that failed passes its st (not QV_OK): o is only released and
 * st returned. */
qv_status qvk_sout_finish(qvk_sout *o, qv_status st, qvk_datum *out, const char *what, qv_error *err);
void qvk_sout_reset(qvk_sout *o);

/* Decodes one UTF-8 code point at p (n bytes left, n > 0; the input is
 * valid UTF-8); *used gets its length. */
static inline int32_t qvk_utf8_next(const uint8_t *p, int64_t n, int *used) {
  uint8_t c = p[0];
  if (c < 0x80 || n < 2) {
    *used = 1;
    return c;
  }
  if (c < 0xE0 || n < 3) {
    *used = 2;
    return ((c & 0x1F) << 6) | (p[1] & 0x3F);
  }
  if (c < 0xF0 || n < 4) {
    *used = 3;
    return ((c & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
  }
  *used = 4;
  return ((c & 0x07) << 18) | ((p[1] & 0x3F) << 12) | ((p[2] & 0x3F) << 6) | (p[3] & 0x3F);
}

/* Start of the code point that ends just before p (p > begin). */
static inline const uint8_t *qvk_utf8_prev(const uint8_t *begin, const uint8_t *p) {
  do p--;
  while (p > begin && (*p & 0xC0) == 0x80);
  return p;
}

/* Rust's char::is_whitespace (the White_Space property). */
static inline bool qvk_is_white_space(int32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* polars_case.c: Rust's full case mappings (str::to_lowercase with the
 * final sigma rule, str::to_uppercase) and Polars' to_titlecase. */
qv_status qvk_polars_case(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);

#endif
