/* Datums (the values flowing through the evaluator) and the helpers kernels
 * share to read validity and bool bits and to build result arrays. */
#include "compute/compute_int.h"

#include <stdio.h>

void qvk_datum_reset(qvk_datum *d) {
  if (d->scalar == &d->own) qv_scalar_reset(&d->own);
  qv_array_release(d->array);
  d->scalar = NULL;
  d->array = NULL;
  d->idx = NULL;
  d->column = -1;
}

void qvk_datum_move(qvk_datum *dst, qvk_datum *src) {
  *dst = *src;
  if (src->scalar == &src->own) dst->scalar = &dst->own;
  memset(&src->own, 0, sizeof src->own);
  src->own.is_null = true;
  src->scalar = NULL;
  src->array = NULL;
  src->idx = NULL;
  src->column = -1;
}

void qvk_datum_set_array(qvk_datum *d, qv_array *a) {
  qvk_datum_reset(d);
  d->array = a;
}

void qvk_datum_set_scalar(qvk_datum *d, qv_scalar *s) {
  qvk_datum_reset(d);
  d->own = *s;
  d->scalar = &d->own;
  memset(s, 0, sizeof *s);
  s->is_null = true;
}

bool qvk_datum_all_null(const qvk_datum *d) {
  if (d->scalar) return d->scalar->is_null || d->scalar->type.id == QV_TYPE_NULL;
  return d->array->type.id == QV_TYPE_NULL || (d->array->length > 0 && d->array->null_count == d->array->length);
}

qv_status qvk_datum_dense(qvk_ctx *c, qvk_datum *d) {
  if (d->scalar || !d->idx) return QV_OK;
  qv_array *g = NULL;
  bool cache = d->column >= 0 && d->column < c->n_gathered && c->gathered;
  if (cache && c->gathered[d->column]) {
    g = qv_array_retain(c->gathered[d->column]);
  } else {
    QV_RETURN_NOT_OK(qv_array_take(d->array, d->idx, c->n, &g, c->err));
    if (cache) c->gathered[d->column] = qv_array_retain(g);
  }
  qv_array_release(d->array);
  d->array = g;
  d->idx = NULL;
  return QV_OK;
}

qv_status qvk_datum_array(qvk_ctx *c, qvk_datum *d) {
  if (!d->scalar) return qvk_datum_dense(c, d);
  qv_array *a = NULL;
  QV_RETURN_NOT_OK(qvk_broadcast(d->scalar, c->n, &a, c->err));
  qvk_datum_set_array(d, a);
  return QV_OK;
}

/* ---- bits ---------------------------------------------------------------- */

static void fill_words(uint64_t *words, int64_t n, uint64_t v) {
  for (int64_t w = 0; w < qvk_words(n); w++) words[w] = v;
}

/* Bits [0, n) of bitmap `bits` read at bit offset off, through idx. */
static void gather_bits(const uint8_t *bits, int64_t off, const uint32_t *idx, int64_t n, uint64_t *words,
                        bool and_into) {
  int64_t nw = qvk_words(n);
  for (int64_t w = 0; w < nw; w++) {
    int64_t base = w * 64, m = n - base < 64 ? n - base : 64;
    uint64_t x = 0;
    if (idx) {
      const uint32_t *ix = idx + base;
      for (int64_t j = 0; j < m; j++) x |= (uint64_t)qv_bit_get(bits, off + ix[j]) << j;
    } else {
      x = qvk_bits_load(bits, off + base, m);
    }
    words[w] = and_into ? words[w] & x : x;
  }
}

bool qvk_validity_words(const qvk_datum *d, int64_t n, uint64_t *words) {
  if (d->scalar) {
    if (!qvk_datum_all_null(d)) return false;
    fill_words(words, n, 0);
    return true;
  }
  const qv_array *a = d->array;
  if (a->type.id == QV_TYPE_NULL) {
    fill_words(words, n, 0);
    return true;
  }
  if (!a->buffers[0] || a->null_count == 0) return false;
  gather_bits(a->buffers[0]->data, a->offset, d->idx, n, words, false);
  return true;
}

void qvk_and_validity(const qvk_datum *d, int64_t n, uint64_t *words) {
  if (d->scalar) {
    if (qvk_datum_all_null(d)) fill_words(words, n, 0);
    return;
  }
  const qv_array *a = d->array;
  if (a->type.id == QV_TYPE_NULL) {
    fill_words(words, n, 0);
    return;
  }
  if (!a->buffers[0] || a->null_count == 0) return;
  gather_bits(a->buffers[0]->data, a->offset, d->idx, n, words, true);
}

void qvk_bool_words(const qvk_datum *d, int64_t n, uint64_t *words) {
  if (d->scalar) {
    fill_words(words, n, (!d->scalar->is_null && d->scalar->v.b) ? ~(uint64_t)0 : 0);
    return;
  }
  if (d->array->type.id != QV_TYPE_BOOL) {
    fill_words(words, n, 0);
    return;
  }
  gather_bits(d->array->buffers[1]->data, d->array->offset, d->idx, n, words, false);
}

/* ---- results -------------------------------------------------------------- */

qv_status qvk_array_new(const qv_datatype *type, int64_t length, qv_array **out, qv_error *err) {
  qv_array *a = qv_calloc(1, sizeof *a);
  if (!a) return qv_error_set(err, QV_ERR_NOMEM, "compute: out of memory for a result array");
  if (qv_datatype_copy(type, &a->type) != QV_OK) {
    qv_free(a);
    return qv_error_set(err, QV_ERR_NOMEM, "compute: out of memory for a result type");
  }
  a->length = length;
  a->refcount = 1;
  *out = a;
  return QV_OK;
}

qv_bytes *qvk_bytes(int64_t size, qv_error *err) {
  qv_bytes *b = qv_bytes_alloc(size);
  if (!b) qv_error_set(err, QV_ERR_NOMEM, "compute: cannot allocate %lld bytes", (long long)size);
  return b;
}

void qvk_set_validity(qv_array *a, qv_bytes *validity) {
  qv_bytes_release(a->buffers[0]);
  a->buffers[0] = NULL;
  a->null_count = 0;
  if (!validity) return;
  int64_t valid = qv_bitmap_count(validity->data, a->offset, a->length);
  if (valid == a->length) {
    qv_bytes_release(validity);
    return;
  }
  a->buffers[0] = validity;
  a->null_count = a->length - valid;
}

void qvk_finish_validity(qv_array *a) {
  qv_bytes *v = a->buffers[0];
  a->buffers[0] = NULL;
  qvk_set_validity(a, v);
}

qv_status qvk_bool_result(int64_t n, qv_bytes *values, qv_bytes *validity, qv_array **out, qv_error *err) {
  qv_datatype t = qv_datatype_simple(QV_TYPE_BOOL);
  qv_array *a = NULL;
  qv_status st = qvk_array_new(&t, n, &a, err);
  if (st != QV_OK) {
    qv_bytes_release(values);
    qv_bytes_release(validity);
    return st;
  }
  if (validity) {
    uint64_t *v = (uint64_t *)qv_bytes_mutable(values);
    const uint64_t *m = (const uint64_t *)validity->data;
    for (int64_t w = 0; w < qvk_words(n); w++) v[w] &= m[w];
  }
  a->buffers[1] = values;
  qvk_set_validity(a, validity);
  *out = a;
  return QV_OK;
}

qv_status qvk_validity_of(const qvk_datum *a, const qvk_datum *b, int64_t n, qv_bytes **out, qv_error *err) {
  *out = NULL;
  qv_bytes *v = qvk_bytes(qvk_words(n) * 8, err);
  if (!v) return QV_ERR_NOMEM;
  uint64_t *m = (uint64_t *)qv_bytes_mutable(v);
  bool nulls = qvk_validity_words(a, n, m);
  if (b) {
    if (nulls) qvk_and_validity(b, n, m);
    else nulls = qvk_validity_words(b, n, m);
  }
  if (nulls) *out = v;
  else qv_bytes_release(v);
  return QV_OK;
}

qv_status qvk_array_out(qv_status st, qv_array *r, qvk_datum *out) {
  if (st != QV_OK) {
    qv_array_release(r);
    return st;
  }
  qvk_datum_set_array(out, r);
  return QV_OK;
}

qv_status qvk_fixed_out(qv_status st, qv_array *r, qvk_datum *out) {
  if (st == QV_OK) qvk_finish_validity(r);
  return qvk_array_out(st, r, out);
}

qv_status qvk_array_out_valid(qv_array *r, const qvk_datum *x, int64_t n, qvk_datum *out, qv_error *err) {
  qv_bytes *validity = NULL;
  qv_status st = qvk_validity_of(x, NULL, n, &validity, err);
  if (st == QV_OK) qvk_set_validity(r, validity);
  return qvk_array_out(st, r, out);
}

qv_status qvk_bool_out(qv_status st, int64_t n, qv_bytes *values, qv_bytes *validity, qvk_datum *out, qv_error *err) {
  qv_array *r = NULL;
  if (st == QV_OK) st = qvk_bool_result(n, values, validity, &r, err);
  else {
    qv_bytes_release(values);
    qv_bytes_release(validity);
  }
  if (st == QV_OK) qvk_datum_set_array(out, r);
  return st;
}

qv_status qvk_fixed_result(const qv_datatype *type, int64_t n, bool with_validity, qv_array **out, qv_error *err) {
  int w = qv_type_byte_width(type->id);
  if (w < 0) return qv_error_set(err, QV_ERR_UNSUPPORTED, "compute: not a fixed-width type");
  qv_array *a = NULL;
  QV_RETURN_NOT_OK(qvk_array_new(type, n, &a, err));
  a->buffers[1] = qvk_bytes(w == 0 ? qv_bitmap_bytes(n) : n * w, err);
  if (a->buffers[1] && with_validity) a->buffers[0] = qvk_bytes(qv_bitmap_bytes(n), err);
  if (!a->buffers[1] || (with_validity && !a->buffers[0])) {
    qv_array_release(a);
    return QV_ERR_NOMEM;
  }
  *out = a;
  return QV_OK;
}

qv_status qvk_null_result(const qv_datatype *type, int64_t n, qv_array **out, qv_error *err) {
  return qv_array_make_null(type, n, out, err);
}

qv_status qvk_null_out(const qv_datatype *type, int64_t n, qvk_datum *out, qv_error *err) {
  qv_array *r = NULL;
  QV_RETURN_NOT_OK(qvk_null_result(type, n, &r, err));
  qvk_datum_set_array(out, r);
  return QV_OK;
}

static void put_fixed(uint8_t *dst, int w, const qv_scalar *s) {
  switch (s->type.id) {
    case QV_TYPE_FLOAT32: {
      float f = (float)s->v.f;
      memcpy(dst, &f, 4);
      return;
    }
    case QV_TYPE_FLOAT64: memcpy(dst, &s->v.f, 8); return;
    case QV_TYPE_DECIMAL128: {
      memcpy(dst, &s->v.dec.lo, 8);
      memcpy(dst + 8, &s->v.dec.hi, 8);
      return;
    }
    default: break;
  }
  /* integers and temporals: the low w bytes of the 64-bit value (LE) */
  uint64_t u = qv_type_is_integer(s->type.id) && !qv_type_is_signed(s->type.id) ? s->v.u : (uint64_t)s->v.i;
  memcpy(dst, &u, (size_t)w);
}

qv_status qvk_broadcast(const qv_scalar *s, int64_t n, qv_array **out, qv_error *err) {
  if (s->is_null || s->type.id == QV_TYPE_NULL) return qvk_null_result(&s->type, n, out, err);
  qv_type_id id = s->type.id;
  int w = qv_type_byte_width(id);
  qv_array *a = NULL;
  if (w == 0) {
    QV_RETURN_NOT_OK(qvk_fixed_result(&s->type, n, false, &a, err));
    if (s->v.b) memset(qv_bytes_mutable(a->buffers[1]), 0xff, (size_t)qv_bitmap_bytes(n));
    *out = a;
    return QV_OK;
  }
  if (w > 0) {
    QV_RETURN_NOT_OK(qvk_fixed_result(&s->type, n, false, &a, err));
    uint8_t *dst = qv_bytes_mutable(a->buffers[1]);
    uint8_t one[16];
    put_fixed(one, w, s);
    for (int64_t i = 0; i < n; i++) memcpy(dst + i * w, one, (size_t)w);
    *out = a;
    return QV_OK;
  }
  if (id == QV_TYPE_STRING || id == QV_TYPE_BINARY) {
    if (s->len > 0 && n > (int64_t)INT32_MAX / s->len)
      return qv_error_set(err, QV_ERR_OVERFLOW, "compute: %lld copies of a %lld-byte string exceed 2 GiB", (long long)n,
                          (long long)s->len);
    QV_RETURN_NOT_OK(qvk_array_new(&s->type, n, &a, err));
    a->buffers[1] = qvk_bytes((n + 1) * 4, err);
    a->buffers[2] = a->buffers[1] ? qvk_bytes(n * s->len, err) : NULL;
    if (!a->buffers[2]) {
      qv_array_release(a);
      return QV_ERR_NOMEM;
    }
    int32_t *off = (int32_t *)qv_bytes_mutable(a->buffers[1]);
    uint8_t *data = qv_bytes_mutable(a->buffers[2]);
    for (int64_t i = 0; i < n; i++) {
      off[i] = (int32_t)(i * s->len);
      if (s->len) memcpy(data + i * s->len, s->bytes, (size_t)s->len);
    }
    off[n] = (int32_t)(n * s->len);
    *out = a;
    return QV_OK;
  }
  char tb[64];
  return qv_error_set(err, QV_ERR_UNSUPPORTED, "compute: cannot broadcast a %s literal",
                      qvk_type_name(&s->type, tb, sizeof tb));
}

const char *qvk_type_name(const qv_datatype *t, char *buf, size_t size) {
  if (qv_datatype_format(t, buf, size) < 0) snprintf(buf, size, "?");
  return buf;
}

/* ---- decimals ------------------------------------------------------------- */

qvk_i128 qvk_dec_get(const void *p) {
  uint64_t lo;
  int64_t hi;
  memcpy(&lo, p, 8);
  memcpy(&hi, (const uint8_t *)p + 8, 8);
  return (qvk_i128)(((qvk_u128)(uint64_t)hi << 64) | lo);
}

void qvk_dec_put(void *p, qvk_i128 v) {
  uint64_t lo = (uint64_t)v;
  int64_t hi = (int64_t)(v >> 64);
  memcpy(p, &lo, 8);
  memcpy((uint8_t *)p + 8, &hi, 8);
}

const qvk_i128 qvk_pow10_i128[39] = {
    1,
    10,
    100,
    1000,
    10000,
    100000,
    1000000,
    10000000,
    100000000,
    1000000000,
    (qvk_i128)10000000000LL,
    (qvk_i128)100000000000LL,
    (qvk_i128)1000000000000LL,
    (qvk_i128)10000000000000LL,
    (qvk_i128)100000000000000LL,
    (qvk_i128)1000000000000000LL,
    (qvk_i128)10000000000000000LL,
    (qvk_i128)100000000000000000LL,
    (qvk_i128)1000000000000000000LL,
    (qvk_i128)1000000000000000000LL * 10,
    (qvk_i128)1000000000000000000LL * 100,
    (qvk_i128)1000000000000000000LL * 1000,
    (qvk_i128)1000000000000000000LL * 10000,
    (qvk_i128)1000000000000000000LL * 100000,
    (qvk_i128)1000000000000000000LL * 1000000,
    (qvk_i128)1000000000000000000LL * 10000000,
    (qvk_i128)1000000000000000000LL * 100000000,
    (qvk_i128)1000000000000000000LL * 1000000000,
    (qvk_i128)1000000000000000000LL * 10000000000LL,
    (qvk_i128)1000000000000000000LL * 100000000000LL,
    (qvk_i128)1000000000000000000LL * 1000000000000LL,
    (qvk_i128)1000000000000000000LL * 10000000000000LL,
    (qvk_i128)1000000000000000000LL * 100000000000000LL,
    (qvk_i128)1000000000000000000LL * 1000000000000000LL,
    (qvk_i128)1000000000000000000LL * 10000000000000000LL,
    (qvk_i128)1000000000000000000LL * 100000000000000000LL,
    (qvk_i128)1000000000000000000LL * 1000000000000000000LL,
    (qvk_i128)1000000000000000000LL * 1000000000000000000LL * 10,
    (qvk_i128)1000000000000000000LL * 1000000000000000000LL * 100,
};

qvk_i128 qvk_scalar_i128(const qv_scalar *s) {
  switch (s->type.id) {
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32:
    case QV_TYPE_UINT64: return (qvk_i128)s->v.u;
    case QV_TYPE_DECIMAL128: return (qvk_i128)(((qvk_u128)(uint64_t)s->v.dec.hi << 64) | s->v.dec.lo);
    case QV_TYPE_BOOL: return s->v.b ? 1 : 0;
    default: return (qvk_i128)s->v.i;
  }
}
