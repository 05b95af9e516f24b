/* The filter's fused comparison: `x op s` (or `x op y`) straight into a
 * selection vector.
 *
 * The bitmap path (qvk_compare, then keep_true in eval.c) allocates and
 * zeroes a value bitmap and a validity bitmap of the whole batch, fills
 * them, and reads them twice more (count, then extract).  Here the same
 * type-specialised loops (qvk_compare_words) run over 2,048 rows at a
 * time into words on the stack, the validity of both sides is ANDed into
 * them, and the set bits are appended to the selection at once, so the
 * only memory written is the selection itself.  The answer is the rows
 * where the bitmap path gives TRUE, in the same order (tested against it
 * and against the row-at-a-time oracle in tests/compute/test_compare.c). */
#include "compute/bit_positions.h"
#include "compute/compute_int.h"
#include "expr/op_info.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define SEL_CHUNK 2048 /* rows per block: a multiple of 64 */

/* Rows from start on of d as a datum of their own: through its index
 * when d has one, else a view of the array from a later offset (a copy of
 * the array header in *hdr; the kernels read only its type, offset,
 * buffers, length and whether it has nulls, never its reference count). */
static void chunk_of(const qvk_datum *d, int64_t start, qvk_datum *out, qv_array *hdr) {
  *out = *d;
  if (d->scalar) return;
  if (d->idx) {
    out->idx = d->idx + start;
    return;
  }
  *hdr = *d->array;
  hdr->offset += start;
  hdr->length -= start; /* the rest of the array: kernels may read ahead */
  out->array = hdr;
}

/* Slots past the selection's end that append_bits may write (stores whose
 * count does not advance, overwritten later). */
#define SEL_SPARE 8

/* Appends i (or rows[i]) for every set bit i - base of w.  Selective
 * filters leave most words with no bit or one, so the first two bits are
 * stored without a branch and only words with more bits loop.  A dense
 * word of row numbers (its first and last bytes hold 6 or more set bits)
 * is expanded a byte at a time from a table instead: 8 stores and a count
 * per 8 rows, where the loop takes a bit at a time and mispredicts its
 * end once per word (a filter keeping half the rows spent 13% of a count
 * query there). */
__attribute__((always_inline)) static inline int64_t append_bits(uint64_t w, int64_t base, const uint32_t *rows,
                                                                 uint32_t *dst, int64_t k) {
  if (!rows && qvk_bit_count[w & 0xFF] + qvk_bit_count[w >> 56] >= 6) {
    for (int b = 0; b < 8; b++, w >>= 8) {
      const uint8_t *p = qvk_bit_positions[w & 0xFF];
      uint32_t at = (uint32_t)(base + 8 * b);
      for (int j = 0; j < 8; j++) dst[k + j] = at + p[j];
      k += qvk_bit_count[w & 0xFF];
    }
    return k;
  }
  for (int r = 0; r < 2; r++) {
    int64_t i = base + __builtin_ctzll(w | (w == 0)); /* base itself when w is 0 */
    dst[k] = rows ? rows[i] : (uint32_t)i;
    k += w != 0;
    w &= w - 1;
  }
  while (w) {
    int64_t i = base + __builtin_ctzll(w);
    dst[k++] = rows ? rows[i] : (uint32_t)i;
    w &= w - 1;
  }
  return k;
}

/* ---- fused kernels: a column against a scalar ------------------------------ */

/* Where a block's rows go: the validity words of the block (NULL: no
 * nulls), the evaluation's rows (NULL: row numbers), the first row's
 * number, and the selection being appended to. */
typedef struct sel_out {
  const uint64_t *valid;
  const uint32_t *rows;
  int64_t base;
  uint32_t *dst;
  int64_t k;
  int64_t avail; /* rows from this block's first to the evaluation's last */
} sel_out;

/* 64 bytes of 0x00 / 0xff as one word (byte j -> bit j): the sign bits
 * gathered 16 at a time by SSE2's movemask (every x86-64 has it), which
 * is about half the instructions of qvk_pack64's multiplies. */
static inline uint64_t pack_msb64(const uint8_t *b) {
#if defined(__SSE2__)
  uint64_t w = 0;
  for (int k = 0; k < 4; k++)
    w |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)(b + 16 * k)))
         << (16 * k);
  return w;
#else
  uint8_t one[64];
  for (int k = 0; k < 64; k++) one[k] = b[k] & 1;
  return qvk_pack64(one);
#endif
}

/* QVK_LOOP with each 64-row word masked by validity and appended to the
 * selection as soon as it is packed, so that appending overlaps the loads
 * of the next rows instead of waiting for a whole block (the comparisons
 * are memory-bound: a separate pass over a block's words stalls them). */
#define SEL_WORDS(EXPR) SEL_WORDS_PF(EXPR, (void)0)
#define SEL_WORDS_PF(EXPR, PF)                                                    \
  do {                                                                            \
    const uint64_t *qv_ = o->valid;                                               \
    const uint32_t *qr_ = o->rows;                                                \
    uint32_t *qd_ = o->dst;                                                       \
    int64_t qk_ = o->k, qbase_ = o->base;                                         \
    uint8_t qt_[64];                                                              \
    for (int64_t qb_ = 0; qb_ < n; qb_ += 64) {                                   \
      PF;                                                                         \
      if (n - qb_ >= 64) {                                                        \
        for (int64_t qj_ = 0; qj_ < 64; qj_++) {                                  \
          int64_t i = qb_ + qj_;                                                  \
          qt_[qj_] = (uint8_t) - (int)(EXPR);                                     \
        }                                                                         \
      } else {                                                                    \
        memset(qt_, 0, sizeof qt_);                                               \
        for (int64_t i = qb_; i < n; i++) qt_[i - qb_] = (uint8_t) - (int)(EXPR); \
      }                                                                           \
      uint64_t w_ = pack_msb64(qt_);                                              \
      if (qv_) w_ &= qv_[qb_ >> 6];                                               \
      qk_ = append_bits(w_, qbase_ + qb_, qr_, qd_, qk_);                         \
    }                                                                             \
    o->k = qk_;                                                                   \
  } while (0)

#define SEL_OPS(LA, LB)                            \
  switch (op) {                                    \
    case QV_OP_EQ: SEL_WORDS((LA) == (LB)); break; \
    case QV_OP_NE: SEL_WORDS((LA) != (LB)); break; \
    case QV_OP_LT: SEL_WORDS((LA) < (LB)); break;  \
    case QV_OP_LE: SEL_WORDS((LA) <= (LB)); break; \
    case QV_OP_GT: SEL_WORDS((LA) > (LB)); break;  \
    case QV_OP_GE: SEL_WORDS((LA) >= (LB)); break; \
    default: break;                                \
  }

#define SEL_OPS_PF(LA, LB, PF)                            \
  switch (op) {                                           \
    case QV_OP_EQ: SEL_WORDS_PF((LA) == (LB), PF); break; \
    case QV_OP_NE: SEL_WORDS_PF((LA) != (LB), PF); break; \
    case QV_OP_LT: SEL_WORDS_PF((LA) < (LB), PF); break;  \
    case QV_OP_LE: SEL_WORDS_PF((LA) <= (LB), PF); break; \
    case QV_OP_GT: SEL_WORDS_PF((LA) > (LB), PF); break;  \
    case QV_OP_GE: SEL_WORDS_PF((LA) >= (LB), PF); break; \
    default: break;                                       \
  }
/* Dense columns are read ahead: the data is streamed once, and the
 * prefetch lets the loads of later rows overlap the appending. */
#define PF_DIST 1024 /* elements ahead */
/* Prefetches the bytes cache lines at p (never faults, even past the end). */
#define PREFETCH(p, bytes)                                                                      \
  do {                                                                                          \
    for (size_t qp_ = 0; qp_ < (bytes); qp_ += 64) __builtin_prefetch((const char *)(p) + qp_); \
  } while (0)
/* Through a selection: the values of the rows PF_ROWS on, one prefetch
 * per cache line's worth of rows (a dense selection reads the column
 * nearly in order; a sparse one gets a line per row it will read). */
#define PF_ROWS 256
#define PREFETCH_IDX(a, idx, qb, avail)                                   \
  do {                                                                    \
    if ((qb) + PF_ROWS + 64 <= (avail))                                   \
      for (int64_t qp_ = 0; qp_ < 64; qp_ += (int64_t)(64 / sizeof *(a))) \
        __builtin_prefetch((a) + (idx)[(qb) + PF_ROWS + qp_]);            \
  } while (0)
#define PLAIN(x) (x)
#define DEF_SEL(T, KT, NAME, KEY)                                                                                   \
  QVK_MULTIVERSION static void sel_##NAME(qv_op op, const T *a, const uint32_t *idx, KT s, int64_t n, sel_out *o) { \
    if (idx) {                                                                                                      \
      SEL_OPS_PF(KEY(a[idx[i]]), s, PREFETCH_IDX(a, idx, qb_, o->avail))                                            \
    } else {                                                                                                        \
      SEL_OPS_PF(KEY(a[i]), s, PREFETCH(a + qb_ + PF_DIST, 64 * sizeof(T)))                                         \
    }                                                                                                               \
  }
DEF_SEL(int8_t, int8_t, i8, PLAIN)
DEF_SEL(int16_t, int16_t, i16, PLAIN)
DEF_SEL(int32_t, int32_t, i32, PLAIN)
DEF_SEL(int64_t, int64_t, i64, PLAIN)
DEF_SEL(uint8_t, uint8_t, u8, PLAIN)
DEF_SEL(uint16_t, uint16_t, u16, PLAIN)
DEF_SEL(uint32_t, uint32_t, u32, PLAIN)
DEF_SEL(uint64_t, uint64_t, u64, PLAIN)
DEF_SEL(double, double, f64_ieee, PLAIN)
DEF_SEL(double, int64_t, f64_total, qvk_total64)
DEF_SEL(double, int64_t, f64_polars, qvk_polars64)
DEF_SEL(double, int64_t, f64_java, qvk_java64)
DEF_SEL(float, float, f32_ieee, PLAIN)
DEF_SEL(float, int32_t, f32_total, qvk_total32)
DEF_SEL(float, int32_t, f32_polars, qvk_polars32)
DEF_SEL(float, int32_t, f32_java, qvk_java32)

/* Polars' float order against a number (not NaN) is IEEE's, with NaN above
 * every number: -0.0 and 0.0 are equal in both.  Comparing the floats
 * themselves vectorizes, where the order's integer key (qvk_polars64)
 * costs a branch per row (a count over `val > 0.5` spent 12% there). */
#define NAN_HIGH_OPS(X, S, PF)                                           \
  switch (op) {                                                          \
    case QV_OP_EQ: SEL_WORDS_PF((X) == (S), PF); break;                  \
    case QV_OP_NE: SEL_WORDS_PF((X) != (S), PF); break;                  \
    case QV_OP_LT: SEL_WORDS_PF((X) < (S), PF); break;                   \
    case QV_OP_LE: SEL_WORDS_PF((X) <= (S), PF); break;                  \
    case QV_OP_GT: SEL_WORDS_PF(((X) > (S)) | ((X) != (X)), PF); break;  \
    case QV_OP_GE: SEL_WORDS_PF(((X) >= (S)) | ((X) != (X)), PF); break; \
    default: break;                                                      \
  }
#define DEF_SEL_NAN_HIGH(T, NAME)                                                                                  \
  QVK_MULTIVERSION static void sel_##NAME(qv_op op, const T *a, const uint32_t *idx, T s, int64_t n, sel_out *o) { \
    if (idx) {                                                                                                     \
      NAN_HIGH_OPS(a[idx[i]], s, PREFETCH_IDX(a, idx, qb_, o->avail))                                              \
    } else {                                                                                                       \
      NAN_HIGH_OPS(a[i], s, PREFETCH(a + qb_ + PF_DIST, 64 * sizeof(T)))                                           \
    }                                                                                                              \
  }
DEF_SEL_NAN_HIGH(double, f64_polars_number)
DEF_SEL_NAN_HIGH(float, f32_polars_number)

#define DEC_SEL_OPS(H, L)                                      \
  switch (op) {                                                \
    case QV_OP_EQ: SEL_WORDS(QVK_DEC_EQ(H, L, sh, sl)); break; \
    case QV_OP_NE: SEL_WORDS(QVK_DEC_NE(H, L, sh, sl)); break; \
    case QV_OP_LT: SEL_WORDS(QVK_DEC_LT(H, L, sh, sl)); break; \
    case QV_OP_LE: SEL_WORDS(QVK_DEC_LE(H, L, sh, sl)); break; \
    case QV_OP_GT: SEL_WORDS(QVK_DEC_GT(H, L, sh, sl)); break; \
    case QV_OP_GE: SEL_WORDS(QVK_DEC_GE(H, L, sh, sl)); break; \
    default: break;                                            \
  }
#define PREFETCH_DEC_IDX(a, idx, qb, avail)                                                                 \
  do {                                                                                                      \
    if ((qb) + PF_ROWS + 64 <= (avail))                                                                     \
      for (int64_t qp_ = 0; qp_ < 64; qp_ += 4) __builtin_prefetch((a) + 16 * (idx)[(qb) + PF_ROWS + qp_]); \
  } while (0)
#define DEC_SEL_OPS_PF(H, L, PF)                                      \
  switch (op) {                                                       \
    case QV_OP_EQ: SEL_WORDS_PF(QVK_DEC_EQ(H, L, sh, sl), PF); break; \
    case QV_OP_NE: SEL_WORDS_PF(QVK_DEC_NE(H, L, sh, sl), PF); break; \
    case QV_OP_LT: SEL_WORDS_PF(QVK_DEC_LT(H, L, sh, sl), PF); break; \
    case QV_OP_LE: SEL_WORDS_PF(QVK_DEC_LE(H, L, sh, sl), PF); break; \
    case QV_OP_GT: SEL_WORDS_PF(QVK_DEC_GT(H, L, sh, sl), PF); break; \
    case QV_OP_GE: SEL_WORDS_PF(QVK_DEC_GE(H, L, sh, sl), PF); break; \
    default: break;                                                   \
  }
QVK_MULTIVERSION static void sel_dec(qv_op op, const uint8_t *a, const uint32_t *idx, qvk_i128 s, int64_t n,
                                     sel_out *o) {
  int64_t sh = (int64_t)(s >> 64);
  uint64_t sl = (uint64_t)s;
  if (idx) {
    DEC_SEL_OPS_PF(qvk_dec_hi(a, idx[i]), qvk_dec_lo(a, idx[i]), PREFETCH_DEC_IDX(a, idx, qb_, o->avail))
  } else {
    DEC_SEL_OPS_PF(qvk_dec_hi(a, i), qvk_dec_lo(a, i), PREFETCH(a + 16 * (qb_ + PF_DIST), 64 * 16))
  }
}

/* Appends every valid row (a comparison that holds for every value). */
static void sel_all(int64_t n, sel_out *o) {
  for (int64_t b = 0; b < n; b += 64) {
    uint64_t w = n - b >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << (n - b)) - 1;
    if (o->valid) w &= o->valid[b >> 6];
    o->k = append_bits(w, o->base + b, o->rows, o->dst, o->k);
  }
}

/* An integer-like column (physical type id) against s, exactly as
 * qvk_cmp_int_vs: a scalar outside the type's range answers for all. */
static void sel_int(qv_type_id id, qv_op op, const void *v, const uint32_t *idx, qvk_i128 s, int64_t n, sel_out *o) {
  bool all;
  if (qvk_int_outside(id, op, s, &all)) {
    if (all) sel_all(n, o);
    return;
  }
  switch (id) {
    case QV_TYPE_INT8: sel_i8(op, v, idx, (int8_t)s, n, o); break;
    case QV_TYPE_INT16: sel_i16(op, v, idx, (int16_t)s, n, o); break;
    case QV_TYPE_INT32:
    case QV_TYPE_DATE32: sel_i32(op, v, idx, (int32_t)s, n, o); break;
    case QV_TYPE_UINT8: sel_u8(op, v, idx, (uint8_t)s, n, o); break;
    case QV_TYPE_UINT16: sel_u16(op, v, idx, (uint16_t)s, n, o); break;
    case QV_TYPE_UINT32: sel_u32(op, v, idx, (uint32_t)s, n, o); break;
    case QV_TYPE_UINT64: sel_u64(op, v, idx, (uint64_t)s, n, o); break;
    case QV_TYPE_DECIMAL128: sel_dec(op, v, idx, s, n, o); break;
    default: sel_i64(op, v, idx, (int64_t)s, n, o); break;
  }
}

/* A string / binary column against a string / binary scalar. */
static void sel_str(qv_op op, const qvk_datum *a, const qv_scalar *s, int64_t n, sel_out *o) {
  const int32_t *oa = qv_array_offsets(a->array);
  const uint8_t *da = a->array->buffers[2] ? a->array->buffers[2]->data : (const uint8_t *)"";
  const uint8_t *end = qvk_chars_end(a->array);
  const uint32_t *idx = a->idx;
  qvk_str_key key;
  qvk_str_key_init(&key, op, s->bytes ? s->bytes : (const uint8_t *)"", (int32_t)s->len);
  int64_t avail = a->array->length;
  if (idx) {
    SEL_WORDS(qvk_str_test(&key, da + oa[idx[i]], oa[idx[i] + 1] - oa[idx[i]], end));
  } else {
    SEL_WORDS_PF(qvk_str_test(&key, da + oa[i], oa[i + 1] - oa[i], end), qvk_str_prefetch(oa, da, qb_, avail));
  }
}

/* Column a (rows [0, n) of a block) against the non-null scalar s through
 * a fused kernel; false when the pair has none (strings, bool, mixed
 * scales and units, float32 against a float64 it cannot hold), and the
 * caller takes the general block path. */
static bool sel_fast(qv_op op, uint8_t order, const qvk_datum *a, const qv_scalar *s, int64_t n, sel_out *o) {
  const qv_datatype *ta = &a->array->type, *ts = &s->type;
  const void *v = qv_array_values(a->array);
  qv_type_id x = ta->id, y = ts->id;
  if (qv_type_is_integer(x) && qv_type_is_integer(y)) {
    sel_int(x, op, v, a->idx, qvk_scalar_i128(s), n, o);
    return true;
  }
  if ((x == QV_TYPE_DATE32 && y == x) ||
      ((x == QV_TYPE_TIME64 || x == QV_TYPE_DURATION) && y == x && ta->unit == ts->unit) ||
      (x == QV_TYPE_TIMESTAMP && y == x && ta->unit == ts->unit && (ta->timezone == NULL) == (ts->timezone == NULL))) {
    sel_int(x, op, v, a->idx, s->v.i, n, o);
    return true;
  }
  if (x == QV_TYPE_DECIMAL128 && y == x && ta->scale == ts->scale) {
    sel_dec(op, v, a->idx, qvk_scalar_i128(s), n, o);
    return true;
  }
  if ((x == QV_TYPE_STRING || x == QV_TYPE_BINARY) && (y == QV_TYPE_STRING || y == QV_TYPE_BINARY)) {
    sel_str(op, a, s, n, o);
    return true;
  }
  if (!qv_type_is_floating(x) || !qv_type_is_floating(y)) return false;
  double f = s->v.f;
  if (x == QV_TYPE_FLOAT64) {
    switch (order) {
      case QV_FLOAT_IEEE: sel_f64_ieee(op, v, a->idx, f, n, o); break;
      case QV_FLOAT_POLARS:
        if (f == f) sel_f64_polars_number(op, v, a->idx, f, n, o);
        else sel_f64_polars(op, v, a->idx, qvk_polars64(f), n, o);
        break;
      case QV_FLOAT_JAVA: sel_f64_java(op, v, a->idx, qvk_java64(f), n, o); break;
      default: sel_f64_total(op, v, a->idx, qvk_total64(f), n, o); break;
    }
    return true;
  }
  if (!qvk_fits_f32(f, order)) return false;
  float g = (float)f;
  switch (order) {
    case QV_FLOAT_IEEE: sel_f32_ieee(op, v, a->idx, g, n, o); break;
    case QV_FLOAT_POLARS:
      if (g == g) sel_f32_polars_number(op, v, a->idx, g, n, o);
      else sel_f32_polars(op, v, a->idx, qvk_polars32(g), n, o);
      break;
    case QV_FLOAT_JAVA: sel_f32_java(op, v, a->idx, qvk_java32(g), n, o); break;
    default: sel_f32_total(op, v, a->idx, qvk_total32(g), n, o); break;
  }
  return true;
}

/* Room in sel for need rows, after kept of the first done rows of n were
 * kept.  Reserving all n up front would be simpler, but a selective
 * filter would then map (and fault in) fresh pages of a buffer sized for
 * every row on each call: glibc serves blocks above its mmap threshold
 * with mmap, and a 10M-row selection is 40 MB.  Growing from what the
 * rows so far predict (with a quarter to spare) keeps it to one or two
 * allocations, without copying through a chain of doublings. */
static qv_status make_room(qv_selection *sel, int64_t need, int64_t kept, int64_t done, int64_t n, qv_error *err) {
  if (need <= sel->capacity) return QV_OK;
  int64_t max = n + SEL_SPARE;
  int64_t cap = sel->capacity * 2 > 4096 ? sel->capacity * 2 : 4096;
  if (done > 0) {
    double predicted = (double)kept * ((double)n / (double)done) * 1.25 + SEL_CHUNK + SEL_SPARE;
    if (predicted > (double)cap) cap = predicted < (double)max ? (int64_t)predicted : max;
  }
  if (cap > max) cap = max;
  if (cap < need) cap = need;
  if (qv_selection_reserve(sel, cap) != QV_OK)
    return qv_error_set(err, QV_ERR_NOMEM, "filter: out of memory for %lld rows", (long long)cap);
  return QV_OK;
}

qv_status qvk_compare_select(qv_op op, uint8_t order, const qvk_datum *a, const qvk_datum *b, const uint32_t *rows,
                             int64_t n, qv_selection *sel, bool *handled, qv_error *err) {
  *handled = false;
  if (!qve_op_is_compare(op)) return QV_OK;
  if (a->scalar && !b->scalar) { /* column on the left */
    const qvk_datum *t = a;
    a = b;
    b = t;
    op = qv_op_mirror(op);
  }
  if (a->scalar) return QV_OK;                                          /* constants: the bitmap path folds them */
  if (!b->scalar && (a->idx == NULL) != (b->idx == NULL)) return QV_OK; /* needs an identity index */
  if (a->array->type.id == QV_TYPE_DICTIONARY || (!b->scalar && b->array->type.id == QV_TYPE_DICTIONARY))
    return QV_OK; /* per dictionary entry first (dictionary.c) */
  *handled = true;
  sel->count = 0;
  /* a null on either side is null, which a filter drops, whatever the types */
  if (qvk_datum_all_null(a) || qvk_datum_all_null(b) || n == 0) return QV_OK;
  uint64_t words[SEL_CHUNK / 64], tmp[SEL_CHUNK / 64], valid[SEL_CHUNK / 64];
  int64_t k = 0;
  for (int64_t start = 0; start < n; start += SEL_CHUNK) {
    int64_t m = n - start < SEL_CHUNK ? n - start : SEL_CHUNK, nw = qvk_words(m);
    QV_RETURN_NOT_OK(make_room(sel, k + m + SEL_SPARE, k, start, n, err));
    uint32_t *dst = sel->rows;
    qvk_datum ca, cb;
    qv_array ha, hb;
    chunk_of(a, start, &ca, &ha);
    chunk_of(b, start, &cb, &hb);
    bool masked = qvk_validity_words(&ca, m, valid);
    if (masked) qvk_and_validity(&cb, m, valid);
    else masked = qvk_validity_words(&cb, m, valid);
    sel_out o = {masked ? valid : NULL, rows, start, dst, k, n - start};
    if (cb.scalar && sel_fast(op, order, &ca, cb.scalar, m, &o)) {
      k = o.k;
      continue;
    }
    QV_RETURN_NOT_OK(qvk_compare_words(op, order, &ca, &cb, m, words, tmp, err));
    if (masked)
      for (int64_t w = 0; w < nw; w++) words[w] &= valid[w];
    for (int64_t w = 0; w < nw; w++) k = append_bits(words[w], start + (w << 6), rows, dst, k);
  }
  sel->count = k;
  return QV_OK;
}
