/* String kernels: starts_with, ends_with, contains (memmem), lower and upper
 * (utf8proc's simple per-code-point case mappings, with an ASCII fast
 * path; Polars nodes take Rust's full mappings in polars_case.c), and
 * length in characters (bytes for binary). */
#include <utf8proc.h>

#include "compute/polars_str_int.h"

static bool is_bytes_type(qv_type_id id) { return id == QV_TYPE_STRING || id == QV_TYPE_BINARY; }

static qv_status want_string(const qv_expr *e, const qvk_datum *d, int k, qv_error *err) {
  qv_type_id id = qvk_datum_type(d)->id;
  if (is_bytes_type(id) || id == QV_TYPE_NULL) return QV_OK;
  char tb[64];
  return qv_error_set(err, QV_ERR_TYPE, "%s: argument %d must be a string, got %s", qv_op_name(e->op), k + 1,
                      qvk_type_name(qvk_datum_type(d), tb, sizeof tb));
}

static inline const uint8_t *chars_of(const qv_array *a) {
  return a->buffers[2] ? a->buffers[2]->data : (const uint8_t *)"";
}

void qvk_contains_rows(const int32_t *o, const uint8_t *d, int64_t n, const uint8_t *s, int64_t ls, uint64_t *out) {
  int64_t pos = o[0], end = o[n], r = 0;
  while (end - pos >= ls) {
    const uint8_t *hit = memmem(d + pos, (size_t)(end - pos), s, (size_t)ls);
    if (!hit) break;
    int64_t q = hit - d;
    while (o[r + 1] <= q) r++; /* the row holding the match's first byte */
    if (q + ls <= o[r + 1]) {  /* inside it: that row matches; go on with the next */
      out[r >> 6] |= (uint64_t)1 << (r & 63);
      pos = o[++r];
    } else { /* across a value boundary: not a match */
      pos = q + 1;
    }
  }
}

static inline bool match_one(qv_op op, const uint8_t *p, int32_t l, const uint8_t *s, int64_t ls) {
  if (op == QV_OP_CONTAINS) return ls == 0 || (l >= ls && memmem(p, (size_t)l, s, (size_t)ls) != NULL);
  if (l < ls) return false;
  return memcmp(op == QV_OP_STARTS_WITH ? p : p + l - ls, s, (size_t)ls) == 0;
}

qv_status qvk_op_str_match(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 2)
    return qv_error_set(c->err, QV_ERR_INVALID, "%s takes 2 arguments, got %d", qv_op_name(e->op), (int)e->n_args);
  for (int k = 0; k < 2; k++) QV_RETURN_NOT_OK(want_string(e, &args[k], k, c->err));
  qvk_datum *x = &args[0], *y = &args[1];
  int64_t n = c->n;
  qv_datatype bt = qv_datatype_simple(QV_TYPE_BOOL);
  if (qvk_datum_all_null(x) || qvk_datum_all_null(y)) return qvk_null_out(&bt, n, out, c->err);
  /* A scalar needle reads the column through the selection; a column
   * needle is matched row by row on dense arrays. */
  if (x->scalar || !y->scalar) QV_RETURN_NOT_OK(qvk_datum_array(c, x));
  if (!y->scalar) QV_RETURN_NOT_OK(qvk_datum_array(c, y));
  qv_bytes *values = qvk_bytes(qvk_words(n) * 8, c->err), *validity = NULL;
  if (!values) return QV_ERR_NOMEM;
  uint64_t *o = (uint64_t *)qv_bytes_mutable(values);
  const int32_t *ox = qv_array_offsets(x->array);
  const uint8_t *dx = chars_of(x->array);
  qv_op op = e->op;
  uint8_t tmp[64];
  if (y->scalar) {
    const uint8_t *s = y->scalar->bytes ? y->scalar->bytes : (const uint8_t *)"";
    int64_t ls = y->scalar->len;
    const uint8_t *end = qvk_chars_end(x->array);
    qvk_needle nd;
    qvk_needle_init(&nd, s, ls);
    bool bulk = op == QV_OP_CONTAINS && ls > 0 && !x->idx;
    if (bulk) qvk_contains_rows(ox, dx, n, s, ls, o);
    for (int64_t base = 0; base < n && !bulk; base += 64) {
      int64_t m = n - base < 64 ? n - base : 64;
      memset(tmp, 0, sizeof tmp);
      for (int64_t j = 0; j < m; j++) {
        int64_t r = qvk_row(x, base + j);
        const uint8_t *p = dx + ox[r];
        int32_t l = ox[r + 1] - ox[r];
        if (op == QV_OP_CONTAINS) tmp[j] = match_one(op, p, l, s, ls);
        else tmp[j] = l >= ls && qvk_needle_eq(&nd, op == QV_OP_STARTS_WITH ? p : p + l - ls, end);
      }
      o[base >> 6] = qvk_pack64(tmp);
    }
  } else {
    const int32_t *oy = qv_array_offsets(y->array);
    const uint8_t *dy = chars_of(y->array);
    for (int64_t base = 0; base < n; base += 64) {
      int64_t m = n - base < 64 ? n - base : 64;
      memset(tmp, 0, sizeof tmp);
      for (int64_t j = 0; j < m; j++) {
        int64_t r = qvk_row(x, base + j), q = base + j;
        tmp[j] = match_one(op, dx + ox[r], ox[r + 1] - ox[r], dy + oy[q], oy[q + 1] - oy[q]);
      }
      o[base >> 6] = qvk_pack64(tmp);
    }
  }
  qv_status st = qvk_validity_of(&args[0], &args[1], n, &validity, c->err);
  return qvk_bool_out(st, n, values, validity, out, c->err);
}

/* ---- lower / upper --------------------------------------------------------- */

static bool ascii_only(const uint8_t *p, int64_t n) {
  uint8_t acc = 0;
  for (int64_t i = 0; i < n; i++) acc |= p[i];
  return acc < 0x80;
}

qv_status qvk_op_case(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 1)
    return qv_error_set(c->err, QV_ERR_INVALID, "%s takes 1 argument, got %d", qv_op_name(e->op), (int)e->n_args);
  QV_RETURN_NOT_OK(want_string(e, &args[0], 0, c->err));
  qvk_datum *x = &args[0];
  /* Polars maps case fully (Rust's str::to_uppercase: 'ß' -> "SS") */
  if (qvk_polars_node(e) && qvk_datum_type(x)->id != QV_TYPE_BINARY) return qvk_polars_case(c, e, args, out);
  QV_RETURN_NOT_OK(qvk_datum_array(c, x));
  const qv_array *a = x->array;
  int64_t n = c->n;
  if (a->type.id == QV_TYPE_NULL) {
    qv_datatype st = qv_datatype_simple(QV_TYPE_STRING);
    return qvk_null_out(&st, n, out, c->err);
  }
  bool upper = e->op == QV_OP_UPPER, binary = a->type.id == QV_TYPE_BINARY;
  const int32_t *off = qv_array_offsets(a);
  const uint8_t *d = chars_of(a);
  qv_buffer data = QV_BUFFER_INIT;
  qv_bytes *offsets = qvk_bytes((n + 1) * 4, c->err), *validity = NULL;
  qv_array *r = NULL;
  qv_status st = offsets ? QV_OK : QV_ERR_NOMEM;
  int32_t *oo = offsets ? (int32_t *)qv_bytes_mutable(offsets) : NULL;
  for (int64_t i = 0; i < n && st == QV_OK; i++) {
    oo[i] = (int32_t)data.size;
    if (!qv_array_is_valid(a, i)) continue;
    const uint8_t *p = d + off[i];
    int32_t len = off[i + 1] - off[i];
    /* a code point's mapping is at most 3/2 its encoded length */
    if (qv_buffer_reserve(&data, (int64_t)len * 2) != QV_OK) {
      st = qv_error_nomem(c->err, qv_op_name(e->op));
      break;
    }
    uint8_t *w = data.data + data.size;
    if (binary || ascii_only(p, len)) {
      for (int32_t k = 0; k < len; k++) {
        uint8_t ch = p[k];
        if (upper && ch >= 'a' && ch <= 'z') ch = (uint8_t)(ch - 32);
        else if (!upper && ch >= 'A' && ch <= 'Z') ch = (uint8_t)(ch + 32);
        w[k] = ch;
      }
      data.size += len;
    } else {
      int64_t k = 0, wrote = 0;
      while (k < len) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t used = utf8proc_iterate(p + k, len - k, &cp);
        if (used <= 0) {
          st = qv_error_set(c->err, QV_ERR_INVALID, "%s: row %lld is not valid UTF-8 (byte %lld)", qv_op_name(e->op),
                            (long long)i, (long long)k);
          break;
        }
        k += used;
        cp = upper ? utf8proc_toupper(cp) : utf8proc_tolower(cp);
        wrote += utf8proc_encode_char(cp, w + wrote);
      }
      data.size += wrote;
    }
    if (data.size > INT32_MAX)
      st = qv_error_set(c->err, QV_ERR_OVERFLOW, "%s: result exceeds 2 GiB", qv_op_name(e->op));
  }
  if (st == QV_OK) {
    oo[n] = (int32_t)data.size;
    st = qvk_validity_of(x, NULL, n, &validity, c->err);
  }
  if (st == QV_OK) st = qvk_array_new(&a->type, n, &r, c->err);
  if (st == QV_OK) {
    r->buffers[1] = offsets;
    offsets = NULL;
    st = qv_buffer_finish(&data, &r->buffers[2]) == QV_OK ? QV_OK : qv_error_nomem(c->err, NULL);
    qvk_set_validity(r, validity);
    validity = NULL;
  }
  qv_buffer_reset(&data);
  qv_bytes_release(offsets);
  qv_bytes_release(validity);
  return qvk_array_out(st, r, out);
}

/* ---- length ------------------------------------------------------------------ */

qv_status qvk_op_length(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 1) return qv_error_set(c->err, QV_ERR_INVALID, "length takes 1 argument, got %d", (int)e->n_args);
  QV_RETURN_NOT_OK(want_string(e, &args[0], 0, c->err));
  qvk_datum *x = &args[0];
  if (x->scalar) QV_RETURN_NOT_OK(qvk_datum_array(c, x));
  int64_t n = c->n;
  const qv_datatype *rt = qvk_bound_type(e);
  qv_datatype i64 = qv_datatype_simple(QV_TYPE_INT64);
  if (!rt || !qv_type_is_integer(rt->id)) rt = &i64;
  qv_array *r = NULL;
  if (x->array->type.id == QV_TYPE_NULL) return qvk_null_out(rt, n, out, c->err);
  QV_RETURN_NOT_OK(qvk_fixed_result(rt, n, false, &r, c->err));
  const qv_array *a = x->array;
  const int32_t *off = qv_array_offsets(a);
  const uint8_t *d = chars_of(a);
  bool chars = a->type.id == QV_TYPE_STRING;
  int w = qv_type_byte_width(rt->id);
  uint8_t *dst = qv_bytes_mutable(r->buffers[1]);
  for (int64_t i = 0; i < n; i++) {
    int64_t row = qvk_row(x, i), len = off[row + 1] - off[row], count = len;
    if (chars) { /* characters = bytes that do not continue a sequence */
      const uint8_t *p = d + off[row];
      count = 0;
      for (int64_t k = 0; k < len; k++) count += (p[k] & 0xC0) != 0x80;
    }
    memcpy(dst + i * w, &count, (size_t)w); /* lengths fit every integer type's low bytes */
  }
  return qvk_array_out_valid(r, x, n, out, c->err);
}
