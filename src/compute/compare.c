/* Comparison kernels: = != < <= > >= for bool, integers of every width and
 * signedness, date32 and same-unit temporals, strings and binary; the
 * dispatcher that also routes floats (compare_float.c) and decimals /
 * mixed units (compare_scaled.c); and BETWEEN.
 *
 * Every loop is specialised per physical type and operator by macros, reads
 * contiguous values (or values through the selection), and writes result
 * bits a word at a time.  Mixed integer types are compared exactly: a
 * scalar outside the column's range gives a constant answer, and mixed
 * columns are widened block by block to 64 bits, with int64 vs uint64
 * compared by sign first. */
#include "compute/compute_int.h"

/* ---- integer loops ------------------------------------------------------ */

#define CMP_OPS QVK_CMP_OPS

/* LD(p, i) loads element i: plain indexing, or memcpy for int128 (whose
 * buffers from the C Data Interface may be only 8-byte aligned). */
#define LD_PLAIN(p, i) ((p)[i])
static inline qvk_i128 ld128(const qvk_i128 *p, int64_t i) {
  qvk_i128 v;
  memcpy(&v, (const uint8_t *)p + 16 * i, 16);
  return v;
}
#define LD_128(p, i) ld128(p, i)

#define DEF_INT_VS(T, NAME, LD)                                                                                      \
  QVK_MULTIVERSION static void vs_##NAME(qv_op op, const T *a, const uint32_t *idx, T s, int64_t n, uint64_t *out) { \
    if (idx) {                                                                                                       \
      CMP_OPS(LD(a, idx[i]), s)                                                                                      \
    } else {                                                                                                         \
      CMP_OPS(LD(a, i), s)                                                                                           \
    }                                                                                                                \
  }
#define DEF_INT_VV(T, NAME, LD)                                                                                    \
  QVK_MULTIVERSION static void vv_##NAME(qv_op op, const T *a, const uint32_t *ia, const T *b, const uint32_t *ib, \
                                         int64_t n, uint64_t *out) {                                               \
    if (ia && ib) {                                                                                                \
      CMP_OPS(LD(a, ia[i]), LD(b, ib[i]))                                                                          \
    } else {                                                                                                       \
      CMP_OPS(LD(a, i), LD(b, i))                                                                                  \
    }                                                                                                              \
  }
#define DEF_INT_CMP(T, NAME, LD) DEF_INT_VS(T, NAME, LD) DEF_INT_VV(T, NAME, LD)

DEF_INT_CMP(int8_t, i8, LD_PLAIN)
DEF_INT_CMP(int16_t, i16, LD_PLAIN)
DEF_INT_CMP(int32_t, i32, LD_PLAIN)
DEF_INT_CMP(int64_t, i64, LD_PLAIN)
DEF_INT_CMP(uint8_t, u8, LD_PLAIN)
DEF_INT_CMP(uint16_t, u16, LD_PLAIN)
DEF_INT_CMP(uint32_t, u32, LD_PLAIN)
DEF_INT_CMP(uint64_t, u64, LD_PLAIN)
DEF_INT_VV(qvk_i128, i128, LD_128) /* against a scalar: vs_dec below */

/* decimal128 column against a scalar on the two 64-bit halves of each
 * value (QVK_DEC_*): the 128-bit loop above runs one value at a time.
 * Dense columns go in blocks of 1,024 values with the next block
 * prefetched: at 16 bytes a value the loop is bound by memory, and the
 * hardware prefetcher alone left it at about 0.7 of memcpy's speed. */
#define DEC_OPS(H, L)                                                 \
  switch (op) {                                                       \
    case QV_OP_EQ: QVK_LOOP(n, out, QVK_DEC_EQ(H, L, sh, sl)); break; \
    case QV_OP_NE: QVK_LOOP(n, out, QVK_DEC_NE(H, L, sh, sl)); break; \
    case QV_OP_LT: QVK_LOOP(n, out, QVK_DEC_LT(H, L, sh, sl)); break; \
    case QV_OP_LE: QVK_LOOP(n, out, QVK_DEC_LE(H, L, sh, sl)); break; \
    case QV_OP_GT: QVK_LOOP(n, out, QVK_DEC_GT(H, L, sh, sl)); break; \
    case QV_OP_GE: QVK_LOOP(n, out, QVK_DEC_GE(H, L, sh, sl)); break; \
    default: break;                                                   \
  }
QVK_MULTIVERSION static void dec_block(qv_op op, const uint8_t *a, const uint32_t *idx, int64_t sh, uint64_t sl,
                                       int64_t n, uint64_t *out) {
  if (idx) {
    DEC_OPS(qvk_dec_hi(a, idx[i]), qvk_dec_lo(a, idx[i]))
  } else {
    DEC_OPS(qvk_dec_hi(a, i), qvk_dec_lo(a, i))
  }
}

#define DEC_BLOCK 1024 /* values: a multiple of 64 */

static void vs_dec(qv_op op, const uint8_t *a, const uint32_t *idx, qvk_i128 s, int64_t n, uint64_t *out) {
  int64_t sh = (int64_t)(s >> 64);
  uint64_t sl = (uint64_t)s;
  if (idx) {
    dec_block(op, a, idx, sh, sl, n, out);
    return;
  }
  for (int64_t b = 0; b < n; b += DEC_BLOCK) {
    int64_t m = n - b < DEC_BLOCK ? n - b : DEC_BLOCK;
    if (b + 2 * DEC_BLOCK <= n) /* never past the end of the column */
      for (int64_t q = 0; q < 16 * DEC_BLOCK; q += 64) __builtin_prefetch(a + 16 * (b + DEC_BLOCK) + q);
    dec_block(op, a + 16 * b, NULL, sh, sl, m, out + (b >> 6));
  }
}
#undef DEC_OPS

void qvk_cmp_i128_vv(qv_op op, const qvk_i128 *a, const qvk_i128 *b, int64_t n, uint64_t *out) {
  vv_i128(op, a, NULL, b, NULL, n, out);
}

/* int64 (a) against uint64 (b): a negative a is below every b. */
QVK_MULTIVERSION static void vv_i64_u64(qv_op op, const int64_t *a, const uint64_t *b, int64_t n, uint64_t *out) {
  switch (op) {
    case QV_OP_EQ: QVK_LOOP(n, out, (a[i] >= 0) & ((uint64_t)a[i] == b[i])); break;
    case QV_OP_NE: QVK_LOOP(n, out, (a[i] < 0) | ((uint64_t)a[i] != b[i])); break;
    case QV_OP_LT: QVK_LOOP(n, out, (a[i] < 0) | ((uint64_t)a[i] < b[i])); break;
    case QV_OP_LE: QVK_LOOP(n, out, (a[i] < 0) | ((uint64_t)a[i] <= b[i])); break;
    case QV_OP_GT: QVK_LOOP(n, out, (a[i] >= 0) & ((uint64_t)a[i] > b[i])); break;
    case QV_OP_GE: QVK_LOOP(n, out, (a[i] >= 0) & ((uint64_t)a[i] >= b[i])); break;
    default: break;
  }
}

#define flip qv_op_mirror

void qvk_cmp_int_vs(qv_type_id id, qv_op op, const void *vals, const uint32_t *idx, qvk_i128 s, int64_t n,
                    uint64_t *out) {
  bool all;
  if (qvk_int_outside(id, op, s, &all)) {
    qvk_fill(out, n, all);
    return;
  }
  switch (id) {
    case QV_TYPE_INT8: vs_i8(op, vals, idx, (int8_t)s, n, out); break;
    case QV_TYPE_INT16: vs_i16(op, vals, idx, (int16_t)s, n, out); break;
    case QV_TYPE_INT32:
    case QV_TYPE_DATE32: vs_i32(op, vals, idx, (int32_t)s, n, out); break;
    case QV_TYPE_UINT8: vs_u8(op, vals, idx, (uint8_t)s, n, out); break;
    case QV_TYPE_UINT16: vs_u16(op, vals, idx, (uint16_t)s, n, out); break;
    case QV_TYPE_UINT32: vs_u32(op, vals, idx, (uint32_t)s, n, out); break;
    case QV_TYPE_UINT64: vs_u64(op, vals, idx, (uint64_t)s, n, out); break;
    case QV_TYPE_DECIMAL128: vs_dec(op, vals, idx, s, n, out); break;
    default: vs_i64(op, vals, idx, (int64_t)s, n, out); break;
  }
}

/* Same physical type on both sides. */
static void int_vv_same(qv_type_id id, qv_op op, const void *a, const uint32_t *ia, const void *b, const uint32_t *ib,
                        int64_t n, uint64_t *out) {
  switch (id) {
    case QV_TYPE_INT8: vv_i8(op, a, ia, b, ib, n, out); break;
    case QV_TYPE_INT16: vv_i16(op, a, ia, b, ib, n, out); break;
    case QV_TYPE_INT32:
    case QV_TYPE_DATE32: vv_i32(op, a, ia, b, ib, n, out); break;
    case QV_TYPE_UINT8: vv_u8(op, a, ia, b, ib, n, out); break;
    case QV_TYPE_UINT16: vv_u16(op, a, ia, b, ib, n, out); break;
    case QV_TYPE_UINT32: vv_u32(op, a, ia, b, ib, n, out); break;
    case QV_TYPE_UINT64: vv_u64(op, a, ia, b, ib, n, out); break;
    case QV_TYPE_DECIMAL128: vv_i128(op, a, ia, b, ib, n, out); break;
    default: vv_i64(op, a, ia, b, ib, n, out); break;
  }
}

/* Widens m values starting at row start to 64-bit (sign- or zero-extended
 * by the source type; the bits are read as int64 or uint64 by the caller). */
#define WIDEN_CASE(ID, T)                                                            \
  case ID: {                                                                         \
    const T *v = vals;                                                               \
    if (idx)                                                                         \
      for (int64_t j = 0; j < m; j++) dst[j] = (uint64_t)(int64_t)v[idx[start + j]]; \
    else                                                                             \
      for (int64_t j = 0; j < m; j++) dst[j] = (uint64_t)(int64_t)v[start + j];      \
    break;                                                                           \
  }
static void widen64(qv_type_id id, const void *vals, const uint32_t *idx, int64_t start, int64_t m, uint64_t *dst) {
  switch (id) {
    WIDEN_CASE(QV_TYPE_INT8, int8_t)
    WIDEN_CASE(QV_TYPE_INT16, int16_t)
    WIDEN_CASE(QV_TYPE_INT32, int32_t)
    WIDEN_CASE(QV_TYPE_DATE32, int32_t)
    WIDEN_CASE(QV_TYPE_UINT8, uint8_t)
    WIDEN_CASE(QV_TYPE_UINT16, uint16_t)
    WIDEN_CASE(QV_TYPE_UINT32, uint32_t)
    case QV_TYPE_UINT64: {
      const uint64_t *v = vals;
      if (idx)
        for (int64_t j = 0; j < m; j++) dst[j] = v[idx[start + j]];
      else memcpy(dst, v + start, (size_t)m * 8);
      break;
    }
    default: {
      const int64_t *v = vals;
      if (idx)
        for (int64_t j = 0; j < m; j++) dst[j] = (uint64_t)v[idx[start + j]];
      else memcpy(dst, v + start, (size_t)m * 8);
      break;
    }
  }
}
#undef WIDEN_CASE

#define QVK_CHUNK 1024 /* rows per widening block: a multiple of 64 */

static void int_vv_mixed(qv_type_id ta, qv_op op, const void *a, const uint32_t *ia, qv_type_id tb, const void *b,
                         const uint32_t *ib, int64_t n, uint64_t *out) {
  bool sa = qv_type_is_signed(ta) || ta == QV_TYPE_DATE32;
  bool sb = qv_type_is_signed(tb) || tb == QV_TYPE_DATE32;
  /* as int64 unless one side is uint64 */
  int mode; /* 0 both int64, 1 both uint64, 2 a int64 / b uint64, 3 a uint64 / b int64 */
  if (sa == sb) mode = sa ? 0 : 1;
  else if (sa) mode = tb == QV_TYPE_UINT64 ? 2 : 0;
  else mode = ta == QV_TYPE_UINT64 ? 3 : 0;
  uint64_t wa[QVK_CHUNK], wb[QVK_CHUNK];
  for (int64_t start = 0; start < n; start += QVK_CHUNK) {
    int64_t m = n - start < QVK_CHUNK ? n - start : QVK_CHUNK;
    widen64(ta, a, ia, start, m, wa);
    widen64(tb, b, ib, start, m, wb);
    uint64_t *o = out + (start >> 6);
    switch (mode) {
      case 0: vv_i64(op, (const int64_t *)wa, NULL, (const int64_t *)wb, NULL, m, o); break;
      case 1: vv_u64(op, wa, NULL, wb, NULL, m, o); break;
      case 2: vv_i64_u64(op, (const int64_t *)wa, wb, m, o); break;
      default: vv_i64_u64(flip(op), (const int64_t *)wb, wa, m, o); break;
    }
  }
}

/* ---- bool ------------------------------------------------------------------ */

static void bool_cmp(qv_op op, const qvk_datum *a, const qvk_datum *b, int64_t n, uint64_t *out, uint64_t *tmp) {
  qvk_bool_words(a, n, out);
  qvk_bool_words(b, n, tmp);
  for (int64_t w = 0; w < qvk_words(n); w++) {
    uint64_t x = out[w], y = tmp[w];
    switch (op) { /* false < true */
      case QV_OP_EQ: x = ~(x ^ y); break;
      case QV_OP_NE: x = x ^ y; break;
      case QV_OP_LT: x = ~x & y; break;
      case QV_OP_LE: x = ~x | y; break;
      case QV_OP_GT: x = x & ~y; break;
      default: x = x | ~y; break;
    }
    out[w] = x;
  }
  if (n & 63) out[qvk_words(n) - 1] &= ((uint64_t)1 << (n & 63)) - 1;
}

/* ---- strings and binary ------------------------------------------------------ */

static inline int bytes_cmp(const uint8_t *a, int32_t la, const uint8_t *b, int32_t lb) {
  int c = memcmp(a, b, (size_t)(la < lb ? la : lb));
  return c != 0 ? c : (la > lb) - (la < lb);
}

/* Column against a string scalar, row by row through qvk_str_test. */
static void str_vs(qv_op op, const qvk_datum *a, const uint8_t *s, int32_t ls, int64_t n, uint64_t *out) {
  const int32_t *oa = qv_array_offsets(a->array);
  const uint8_t *da = a->array->buffers[2] ? a->array->buffers[2]->data : (const uint8_t *)"";
  const uint8_t *end = qvk_chars_end(a->array);
  const uint32_t *idx = a->idx;
  qvk_str_key k;
  qvk_str_key_init(&k, op, s, ls);
  uint8_t tmp[64];
  int64_t avail = a->array->length; /* rows that may be read ahead (a block may be a view) */
  for (int64_t base = 0; base < n; base += 64) {
    int64_t m = n - base < 64 ? n - base : 64;
    if (!idx) qvk_str_prefetch(oa, da, base, avail);
    memset(tmp, 0, sizeof tmp);
    for (int64_t j = 0; j < m; j++) {
      int64_t r = idx ? idx[base + j] : base + j;
      tmp[j] = qvk_str_test(&k, da + oa[r], oa[r + 1] - oa[r], end);
    }
    out[base >> 6] = qvk_pack64(tmp);
  }
}

static void str_vv(qv_op op, const qvk_datum *a, const qvk_datum *b, int64_t n, uint64_t *out) {
  const int32_t *oa = qv_array_offsets(a->array), *ob = qv_array_offsets(b->array);
  const uint8_t *da = a->array->buffers[2] ? a->array->buffers[2]->data : (const uint8_t *)"";
  const uint8_t *db = b->array->buffers[2] ? b->array->buffers[2]->data : (const uint8_t *)"";
  uint8_t tmp[64];
  for (int64_t base = 0; base < n; base += 64) {
    int64_t m = n - base < 64 ? n - base : 64;
    memset(tmp, 0, sizeof tmp);
    for (int64_t j = 0; j < m; j++) {
      int64_t r = qvk_row(a, base + j), q = qvk_row(b, base + j);
      int c = bytes_cmp(da + oa[r], oa[r + 1] - oa[r], db + ob[q], ob[q + 1] - ob[q]);
      bool v;
      switch (op) {
        case QV_OP_EQ: v = c == 0; break;
        case QV_OP_NE: v = c != 0; break;
        case QV_OP_LT: v = c < 0; break;
        case QV_OP_LE: v = c <= 0; break;
        case QV_OP_GT: v = c > 0; break;
        default: v = c >= 0; break;
      }
      tmp[j] = v;
    }
    out[base >> 6] = qvk_pack64(tmp);
  }
}

/* ---- dispatch ---------------------------------------------------------------- */

static bool is_bytes(qv_type_id id) { return id == QV_TYPE_STRING || id == QV_TYPE_BINARY; }

static qv_status type_error(const qv_datatype *ta, const qv_datatype *tb, qv_error *err) {
  char x[64], y[64];
  return qv_error_set(err, QV_ERR_TYPE, "compare: cannot compare %s with %s", qvk_type_name(ta, x, sizeof x),
                      qvk_type_name(tb, y, sizeof y));
}

/* Values of a (array datum) at element 0, as a typed pointer. */
static const void *vals(const qvk_datum *d) { return qv_array_values(d->array); }

qv_status qvk_compare_words(qv_op op, uint8_t order, const qvk_datum *a, const qvk_datum *b, int64_t n, uint64_t *out,
                            uint64_t *tmp, qv_error *err) {
  const qv_datatype *ta = qvk_datum_type(a), *tb = qvk_datum_type(b);
  qv_type_id x = ta->id, y = tb->id;
  if (x == QV_TYPE_BOOL && y == QV_TYPE_BOOL) {
    bool_cmp(op, a, b, n, out, tmp);
    return QV_OK;
  }
  if (is_bytes(x) && is_bytes(y)) {
    if (b->scalar)
      str_vs(op, a, b->scalar->bytes ? b->scalar->bytes : (const uint8_t *)"", (int32_t)b->scalar->len, n, out);
    else str_vv(op, a, b, n, out);
    return QV_OK;
  }
  if (qv_type_is_floating(x) && qv_type_is_floating(y)) return qvk_compare_float(op, order, a, b, n, out, err);
  if (qv_type_is_integer(x) && qv_type_is_integer(y)) {
    if (b->scalar) {
      qvk_cmp_int_vs(x, op, vals(a), a->idx, qvk_scalar_i128(b->scalar), n, out);
    } else if (x == y) {
      int_vv_same(x, op, vals(a), a->idx, vals(b), b->idx, n, out);
    } else {
      int_vv_mixed(x, op, vals(a), a->idx, y, vals(b), b->idx, n, out);
    }
    return QV_OK;
  }
  if (x == QV_TYPE_DATE32 && y == QV_TYPE_DATE32) {
    if (b->scalar) qvk_cmp_int_vs(x, op, vals(a), a->idx, b->scalar->v.i, n, out);
    else int_vv_same(x, op, vals(a), a->idx, vals(b), b->idx, n, out);
    return QV_OK;
  }
  if (x == QV_TYPE_TIMESTAMP && y == QV_TYPE_TIMESTAMP && ((ta->timezone == NULL) != (tb->timezone == NULL))) {
    char s1[64], s2[64];
    return qv_error_set(err, QV_ERR_TYPE,
                        "compare: cannot compare %s with %s (one has a time zone, the other is naive)",
                        qvk_type_name(ta, s1, sizeof s1), qvk_type_name(tb, s2, sizeof s2));
  }
  if ((x == QV_TYPE_TIMESTAMP || x == QV_TYPE_TIME64 || x == QV_TYPE_DURATION) && x == y && ta->unit == tb->unit) {
    if (b->scalar) qvk_cmp_int_vs(x, op, vals(a), a->idx, b->scalar->v.i, n, out);
    else int_vv_same(x, op, vals(a), a->idx, vals(b), b->idx, n, out);
    return QV_OK;
  }
  if (x == QV_TYPE_DECIMAL128 && y == x && ta->scale == tb->scale && !b->scalar) {
    int_vv_same(x, op, vals(a), a->idx, vals(b), b->idx, n, out);
    return QV_OK;
  }
  if (qvk_is_scaled(ta) && qvk_is_scaled(tb)) {
    qv_status st = qvk_compare_scaled(op, a, b, n, out, err);
    if (st != QV_ERR_TYPE) return st;
  }
  return type_error(ta, tb, err);
}

qv_status qvk_compare(qv_op op, uint8_t float_order, const qvk_datum *a, const qvk_datum *b, int64_t n, qv_array **out,
                      qv_error *err) {
  if (op < QV_OP_EQ || op > QV_OP_GE)
    return qv_error_set(err, QV_ERR_INVALID, "compare: %s is not a comparison", qv_op_name(op));
  qvk_datum tmpd = QVK_DATUM_INIT, view;
  qv_bytes *values = NULL, *validity = NULL, *scratch = NULL;
  uint32_t *ident = NULL;
  qv_status st = QV_OK;
  int64_t nb = qvk_words(n) * 8;
  if (a->scalar && !b->scalar) { /* column on the left */
    const qvk_datum *t = a;
    a = b;
    b = t;
    op = flip(op);
  }
  if (qvk_datum_all_null(a) || qvk_datum_all_null(b)) {
    /* a null on either side is null whatever the types */
    qv_datatype bt = qv_datatype_simple(QV_TYPE_BOOL);
    return qvk_null_result(&bt, n, out, err);
  }
  if (a->scalar) { /* two scalars (constant folding): broadcast the left */
    qv_array *arr = NULL;
    QV_RETURN_NOT_OK(qvk_broadcast(a->scalar, n, &arr, err));
    qvk_datum_set_array(&tmpd, arr);
    a = &tmpd;
  }
  /* The loops read both sides through one index or none: give the dense
   * side an identity index when only one is read through the selection. */
  if (!b->scalar && (a->idx == NULL) != (b->idx == NULL)) {
    ident = qv_malloc((size_t)(n > 0 ? n : 1) * sizeof *ident);
    if (!ident) {
      st = qv_error_nomem(err, "compare");
      goto cleanup;
    }
    for (int64_t i = 0; i < n; i++) ident[i] = (uint32_t)i;
    view = a->idx ? *b : *a;
    view.idx = ident;
    if (a->idx) b = &view;
    else a = &view;
  }
  values = qvk_bytes(nb, err);
  scratch = values ? qvk_bytes(nb, err) : NULL;
  if (!scratch) {
    st = QV_ERR_NOMEM;
    goto cleanup;
  }
  st = qvk_compare_words(op, float_order, a, b, n, (uint64_t *)qv_bytes_mutable(values),
                         (uint64_t *)qv_bytes_mutable(scratch), err);
  if (st != QV_OK) goto cleanup;
  {
    uint64_t *mw = (uint64_t *)qv_bytes_mutable(scratch);
    bool has_nulls = qvk_validity_words(a, n, mw);
    if (has_nulls) qvk_and_validity(b, n, mw);
    else has_nulls = qvk_validity_words(b, n, mw);
    if (has_nulls) {
      validity = scratch;
      scratch = NULL;
    }
  }
  st = qvk_bool_result(n, values, validity, out, err);
  values = validity = NULL;
cleanup:
  qv_bytes_release(values);
  qv_bytes_release(validity);
  qv_bytes_release(scratch);
  qv_free(ident);
  qvk_datum_reset(&tmpd);
  return st;
}

qv_status qvk_op_compare(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 2)
    return qv_error_set(c->err, QV_ERR_INVALID, "compare: %s takes 2 arguments, got %d", qv_op_name(e->op),
                        (int)e->n_args);
  qv_array *r = NULL;
  QV_RETURN_NOT_OK(qvk_compare(e->op, e->sem.float_order, &args[0], &args[1], c->n, &r, c->err));
  qvk_datum_set_array(out, r);
  return QV_OK;
}

/* ---- BETWEEN ------------------------------------------------------------------- */

#define DEF_BETWEEN(T, NAME)                                                                                           \
  QVK_MULTIVERSION static void between_##NAME(const T *a, const uint32_t *idx, T lo, T hi, int64_t n, uint64_t *out) { \
    if (idx) QVK_LOOP(n, out, (int)(lo <= a[idx[i]]) & (int)(a[idx[i]] <= hi));                                        \
    else QVK_LOOP(n, out, (int)(lo <= a[i]) & (int)(a[i] <= hi));                                                      \
  }
DEF_BETWEEN(int8_t, i8)
DEF_BETWEEN(int16_t, i16)
DEF_BETWEEN(int32_t, i32)
DEF_BETWEEN(int64_t, i64)
DEF_BETWEEN(uint8_t, u8)
DEF_BETWEEN(uint16_t, u16)
DEF_BETWEEN(uint32_t, u32)
DEF_BETWEEN(uint64_t, u64)

/* One pass lo <= x AND x <= hi for an integer-like column and two non-null
 * scalar bounds of a compatible type.  Returns false when not applicable. */
static bool between_int(const qvk_datum *x, const qv_scalar *lo, const qv_scalar *hi, int64_t n, uint64_t *out) {
  qv_type_id id = x->array->type.id;
  bool same_kind = (qv_type_is_integer(id) && qv_type_is_integer(lo->type.id) && qv_type_is_integer(hi->type.id)) ||
                   (id == QV_TYPE_DATE32 && lo->type.id == id && hi->type.id == id);
  if (!same_kind) return false;
  qvk_i128 l = qvk_scalar_i128(lo), h = qvk_scalar_i128(hi), tl, th;
  qvk_int_range(id, &tl, &th);
  if (l < tl) l = tl; /* clamping a bound to the type's range keeps the answer */
  if (h > th) h = th;
  if (l > h) {
    qvk_fill(out, n, false);
    return true;
  }
  const void *v = qv_array_values(x->array);
  switch (id) {
    case QV_TYPE_INT8: between_i8(v, x->idx, (int8_t)l, (int8_t)h, n, out); break;
    case QV_TYPE_INT16: between_i16(v, x->idx, (int16_t)l, (int16_t)h, n, out); break;
    case QV_TYPE_INT32:
    case QV_TYPE_DATE32: between_i32(v, x->idx, (int32_t)l, (int32_t)h, n, out); break;
    case QV_TYPE_UINT8: between_u8(v, x->idx, (uint8_t)l, (uint8_t)h, n, out); break;
    case QV_TYPE_UINT16: between_u16(v, x->idx, (uint16_t)l, (uint16_t)h, n, out); break;
    case QV_TYPE_UINT32: between_u32(v, x->idx, (uint32_t)l, (uint32_t)h, n, out); break;
    case QV_TYPE_UINT64: between_u64(v, x->idx, (uint64_t)l, (uint64_t)h, n, out); break;
    default: between_i64(v, x->idx, (int64_t)l, (int64_t)h, n, out); break;
  }
  return true;
}

static bool same_temporal(const qv_datatype *a, const qv_datatype *b) {
  if (a->id != b->id || a->unit != b->unit) return false;
  if (a->id == QV_TYPE_TIMESTAMP) return (a->timezone == NULL) == (b->timezone == NULL);
  return a->id == QV_TYPE_TIME64 || a->id == QV_TYPE_DURATION;
}

qv_status qvk_op_between(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 3) return qv_error_set(c->err, QV_ERR_INVALID, "BETWEEN takes 3 arguments, got %d", (int)e->n_args);
  qvk_datum *x = &args[0], *lo = &args[1], *hi = &args[2];
  if (!x->scalar && lo->scalar && hi->scalar && !lo->scalar->is_null && !hi->scalar->is_null) {
    const qv_datatype *tx = &x->array->type;
    int64_t nb = qvk_words(c->n) * 8;
    qv_bytes *values = qvk_bytes(nb, c->err);
    if (!values) return QV_ERR_NOMEM;
    uint64_t *vw = (uint64_t *)qv_bytes_mutable(values);
    bool done = between_int(x, lo->scalar, hi->scalar, c->n, vw);
    if (!done && qv_type_is_floating(tx->id) && qv_type_is_floating(lo->scalar->type.id) &&
        qv_type_is_floating(hi->scalar->type.id)) {
      qv_status st = qvk_between_float(e->sem.float_order, x, lo->scalar->v.f, hi->scalar->v.f, c->n, vw);
      if (st != QV_OK) {
        qv_bytes_release(values);
        return qv_error_set(c->err, st, "BETWEEN: out of memory");
      }
      done = true;
    }
    if (!done && same_temporal(tx, &lo->scalar->type) && same_temporal(tx, &hi->scalar->type)) {
      int64_t l = lo->scalar->v.i, h = hi->scalar->v.i;
      if (l > h) qvk_fill(vw, c->n, false);
      else between_i64(qv_array_values(x->array), x->idx, l, h, c->n, vw);
      done = true;
    }
    if (done) {
      qv_bytes *validity = NULL;
      qv_status st = qvk_validity_of(x, NULL, c->n, &validity, c->err);
      return qvk_bool_out(st, c->n, values, validity, out, c->err);
    }
    qv_bytes_release(values);
  }
  /* General case: Kleene AND of the two comparisons, so that a null bound
   * still yields false where the other comparison is false. */
  if (!x->scalar && ((!lo->scalar && (lo->idx == NULL) != (x->idx == NULL)) ||
                     (!hi->scalar && (hi->idx == NULL) != (x->idx == NULL)))) {
    for (int k = 0; k < 3; k++) QV_RETURN_NOT_OK(qvk_datum_dense(c, &args[k]));
  }
  qv_array *r1 = NULL, *r2 = NULL, *r = NULL;
  qv_status st = qvk_compare(QV_OP_LE, e->sem.float_order, lo, x, c->n, &r1, c->err);
  if (st == QV_OK) st = qvk_compare(QV_OP_LE, e->sem.float_order, x, hi, c->n, &r2, c->err);
  if (st == QV_OK) {
    qvk_datum d1 = QVK_DATUM_INIT, d2 = QVK_DATUM_INIT;
    d1.array = r1;
    d2.array = r2;
    st = qvk_kleene(QV_OP_AND, &d1, &d2, c->n, &r, c->err);
  }
  qv_array_release(r1);
  qv_array_release(r2);
  if (st == QV_OK) qvk_datum_set_array(out, r);
  return st;
}
