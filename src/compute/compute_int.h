/* compute layer internals shared by its files: the datum that flows through
 * the evaluator, bitmap helpers, result-array construction, and the kernel
 * entry points eval.c dispatches to.
 *
 * Conventions every kernel follows:
 * - An evaluation has one row count n.  A datum is a scalar (broadcast to all
 *   n rows) or an array; an array datum either has n elements (idx == NULL)
 *   or is a batch column seen through the evaluation's selection (row i is
 *   element idx[i]).  Kernels that can read through idx do so; the others
 *   call qvk_datum_dense, which gathers once per column per evaluation.
 * - Boolean results are Arrow bool arrays whose value bits are 0 wherever
 *   the validity bit is 0 ("canonical"), so Kleene logic and filters can
 *   work on words without re-masking.
 * - quiver assumes a little-endian host: bitmaps are read as uint64 words. */
#ifndef QUIVER_COMPUTE_COMPUTE_INT_H
#define QUIVER_COMPUTE_COMPUTE_INT_H

#include <string.h>

#include "quiver/compute.h"

typedef qv_int128 qvk_i128;
typedef qv_uint128 qvk_u128;

#define QVK_I128_MAX ((qvk_i128)(((qvk_u128)1 << 127) - 1))
#define QVK_I128_MIN (-QVK_I128_MAX - 1)

/* Hot loops are compiled twice, for AVX2 and for the baseline, and the
 * loader picks one per process (GCC/Clang function multiversioning via
 * ifunc): baseline x86-64 (SSE2) has no 64-bit vector compares, so int64
 * and float keys only vectorize with the AVX2 copy.  Called once per
 * kernel invocation, never per row. */
#if defined(__x86_64__) && defined(__ELF__) && !defined(QV_NO_MULTIVERSION) && \
    ((defined(__clang__) && __clang_major__ >= 14) || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 8))
#define QVK_MULTIVERSION __attribute__((target_clones("avx2", "default")))
#else
#define QVK_MULTIVERSION
#endif

/* ---- datums ------------------------------------------------------------ */

typedef struct qvk_datum {
  const qv_scalar *scalar; /* non-NULL: this scalar on every row */
  qv_scalar own;           /* storage when scalar points here (owned) */
  qv_array *array;         /* otherwise: one reference */
  const uint32_t *idx;     /* NULL: row i is array[i]; else array[idx[i]] */
  int32_t column;          /* batch column this came from, -1 if computed */
} qvk_datum;

#define QVK_DATUM_INIT \
  { NULL, QV_SCALAR_INIT, NULL, NULL, -1 }

/* One evaluation: the batch, the rows it runs over, per-column gathers. */
typedef struct qvk_ctx {
  const qv_batch *batch; /* NULL while folding constants */
  const uint32_t *sel;   /* rows of batch, or NULL for all of them */
  int64_t n;             /* rows in this evaluation */
  qv_array **gathered;   /* per column: the column taken at sel (lazily) */
  int32_t n_gathered;
  qv_error *err;
} qvk_ctx;

void qvk_datum_reset(qvk_datum *d);
/* Moves src into dst (dst must be reset or fresh); src becomes empty. */
void qvk_datum_move(qvk_datum *dst, qvk_datum *src);
void qvk_datum_set_array(qvk_datum *d, qv_array *a); /* takes the reference */
/* Takes ownership of *s (moved; *s reset). */
void qvk_datum_set_scalar(qvk_datum *d, qv_scalar *s);
static inline bool qvk_is_scalar(const qvk_datum *d) { return d->scalar != NULL; }
static inline const qv_datatype *qvk_datum_type(const qvk_datum *d) {
  return d->scalar ? &d->scalar->type : &d->array->type;
}
/* True when the datum is a null scalar or of the null type. */
bool qvk_datum_all_null(const qvk_datum *d);
/* Makes an array datum dense (gathers through idx, cached per column). */
qv_status qvk_datum_dense(qvk_ctx *c, qvk_datum *d);
/* Makes any datum an n-element dense array (broadcasting a scalar).  For
 * kernels with no scalar-specialised loop. */
qv_status qvk_datum_array(qvk_ctx *c, qvk_datum *d);
/* Row i's position in d->array (no offset): idx[i] or i. */
static inline int64_t qvk_row(const qvk_datum *d, int64_t i) { return d->idx ? d->idx[i] : i; }
static inline bool qvk_datum_valid(const qvk_datum *d, int64_t i) {
  if (d->scalar) return !d->scalar->is_null;
  return qv_array_is_valid(d->array, qvk_row(d, i));
}

/* ---- bitmaps ----------------------------------------------------------- */

static inline int64_t qvk_words(int64_t n) { return (n + 63) >> 6; }

/* nbits (1..64) bits of bits starting at bit pos, in the low bits of the
 * result.  Reads only the bytes that hold those bits. */
static inline uint64_t qvk_bits_load(const uint8_t *bits, int64_t pos, int64_t nbits) {
  const uint8_t *p = bits + (pos >> 3);
  int sh = (int)(pos & 7);
  int64_t nbytes = (sh + nbits + 7) >> 3;
  uint64_t w = 0;
  memcpy(&w, p, (size_t)(nbytes < 8 ? nbytes : 8));
  w >>= sh;
  if (nbytes > 8) w |= (uint64_t)p[8] << (64 - sh);
  if (nbits < 64) w &= ((uint64_t)1 << nbits) - 1;
  return w;
}

/* Packs 64 bytes holding 0 or 1 into one word (byte j -> bit j).  The
 * multiply gathers the low bit of each of 8 bytes into the top byte; the
 * exponents it adds are all distinct, so nothing carries. */
static inline uint64_t qvk_pack64(const uint8_t *b) {
  uint64_t w = 0;
  for (int k = 0; k < 8; k++) {
    uint64_t x;
    memcpy(&x, b + 8 * k, 8);
    w |= ((x * UINT64_C(0x0102040810204080)) >> 56) << (8 * k);
  }
  return w;
}

/* Runs EXPR (an expression of the row number i giving 0 or 1) for rows
 * [0, n) and stores the results as bits in out[] words.  Results go through
 * a 64-byte staging block so the comparison loop vectorizes; bits past n in
 * the last word are 0. */
#define QVK_LOOP(n, out, EXPR)                                              \
  do {                                                                      \
    uint8_t qtmp_[64];                                                      \
    int64_t qfull_ = (n) >> 6;                                              \
    for (int64_t qw_ = 0; qw_ < qfull_; qw_++) {                            \
      int64_t qb_ = qw_ << 6;                                               \
      for (int64_t qj_ = 0; qj_ < 64; qj_++) {                              \
        int64_t i = qb_ + qj_;                                              \
        qtmp_[qj_] = (uint8_t)(EXPR);                                       \
      }                                                                     \
      (out)[qw_] = qvk_pack64(qtmp_);                                       \
    }                                                                       \
    int64_t qb_ = qfull_ << 6;                                              \
    if (qb_ < (n)) {                                                        \
      memset(qtmp_, 0, sizeof qtmp_);                                       \
      for (int64_t i = qb_; i < (n); i++) qtmp_[i - qb_] = (uint8_t)(EXPR); \
      (out)[qfull_] = qvk_pack64(qtmp_);                                    \
    }                                                                       \
  } while (0)

/* The six comparisons of LA against LB through QVK_LOOP (uses op, n, out). */
#define QVK_CMP_OPS(LA, LB)                               \
  switch (op) {                                           \
    case QV_OP_EQ: QVK_LOOP(n, out, (LA) == (LB)); break; \
    case QV_OP_NE: QVK_LOOP(n, out, (LA) != (LB)); break; \
    case QV_OP_LT: QVK_LOOP(n, out, (LA) < (LB)); break;  \
    case QV_OP_LE: QVK_LOOP(n, out, (LA) <= (LB)); break; \
    case QV_OP_GT: QVK_LOOP(n, out, (LA) > (LB)); break;  \
    case QV_OP_GE: QVK_LOOP(n, out, (LA) >= (LB)); break; \
    default: break;                                       \
  }

/* Sets words [0, n) to all ones (v) or zeros, leaving bits past n 0. */
static inline void qvk_fill(uint64_t *out, int64_t n, bool v) {
  int64_t nw = qvk_words(n);
  for (int64_t w = 0; w < nw; w++) out[w] = v ? ~(uint64_t)0 : 0;
  if (v && (n & 63)) out[nw - 1] = ((uint64_t)1 << (n & 63)) - 1;
}

/* A short byte string compared with masked 8-byte loads instead of a
 * memcmp call, when 16 bytes can be read at the subject without passing
 * the end of its buffer. */
typedef struct qvk_needle {
  const uint8_t *p;
  int64_t n;
  uint64_t w[2], m[2];
  bool small; /* n <= 16 */
} qvk_needle;

static inline void qvk_needle_init(qvk_needle *nd, const uint8_t *p, int64_t n) {
  nd->p = p;
  nd->n = n;
  nd->small = n <= 16;
  nd->w[0] = nd->w[1] = nd->m[0] = nd->m[1] = 0;
  if (!nd->small) return;
  uint8_t buf[16] = {0}, mask[16] = {0};
  memcpy(buf, p, (size_t)n);
  memset(mask, 0xff, (size_t)n);
  memcpy(nd->w, buf, 16);
  memcpy(nd->m, mask, 16);
}

/* s[0..nd->n) == the needle; end is the end of s's buffer. */
static inline bool qvk_needle_eq(const qvk_needle *nd, const uint8_t *s, const uint8_t *end) {
  if (nd->small && end - s >= 16) {
    uint64_t a, b;
    memcpy(&a, s, 8);
    memcpy(&b, s + 8, 8);
    return (((a ^ nd->w[0]) & nd->m[0]) | ((b ^ nd->w[1]) & nd->m[1])) == 0;
  }
  return memcmp(s, nd->p, (size_t)nd->n) == 0;
}

/* Sets bit r of out (n bits, zeroed by the caller) for each row r of a
 * string array (offsets o, characters d; rows [0, n), no selection)
 * whose value contains s[0..ls), ls > 0.  One memmem runs over all the
 * rows' characters together: a call per row costs more than the search
 * on short values (2M values of 20 bytes: 5x). */
void qvk_contains_rows(const int32_t *o, const uint8_t *d, int64_t n, const uint8_t *s, int64_t ls, uint64_t *out);

/* A string / binary scalar prepared for `value op scalar` row by row.
 * Equality checks the length first and then compares with masked word
 * loads (qvk_needle); ordering decides on the first 8 bytes as a
 * big-endian integer when both strings have them, and falls back to
 * memcmp only on a tie. */
typedef struct qvk_str_key {
  qv_op op;
  qvk_needle nd;
  uint64_t s8; /* first 8 bytes, big-endian, when the scalar has them */
} qvk_str_key;

static inline void qvk_str_key_init(qvk_str_key *k, qv_op op, const uint8_t *s, int32_t ls) {
  k->op = op;
  qvk_needle_init(&k->nd, s, ls);
  k->s8 = 0;
  if (ls >= 8) {
    memcpy(&k->s8, s, 8);
    k->s8 = __builtin_bswap64(k->s8);
  }
}

/* p[0..l) op the key's string; end is the end of p's buffer. */
static inline bool qvk_str_test(const qvk_str_key *k, const uint8_t *p, int32_t l, const uint8_t *end) {
  int64_t ls = k->nd.n;
  if (k->op == QV_OP_EQ || k->op == QV_OP_NE) return (l == ls && qvk_needle_eq(&k->nd, p, end)) == (k->op == QV_OP_EQ);
  int c;
  uint64_t p8;
  if (ls >= 8 && l >= 8 && (memcpy(&p8, p, 8), (p8 = __builtin_bswap64(p8)) != k->s8)) {
    c = p8 < k->s8 ? -1 : 1;
  } else {
    c = memcmp(p, k->nd.p, (size_t)(l < ls ? l : ls));
    if (c == 0) c = (l > ls) - (l < ls);
  }
  switch (k->op) {
    case QV_OP_LT: return c < 0;
    case QV_OP_LE: return c <= 0;
    case QV_OP_GT: return c > 0;
    default: return c >= 0;
  }
}

/* Reads ahead of row base of a dense string column with avail rows: the
 * offsets 1,024 rows on, and the characters of rows 256 to 320 on (whose
 * offsets were prefetched earlier); the hardware does not follow the
 * characters through the offsets. */
static inline void qvk_str_prefetch(const int32_t *oa, const uint8_t *da, int64_t base, int64_t avail) {
  if (base + 320 > avail) return;
  __builtin_prefetch(oa + base + 1024);
  for (int32_t q = oa[base + 256]; q < oa[base + 320]; q += 64) __builtin_prefetch(da + q);
}

/* End of the character data of a string / binary array. */
static inline const uint8_t *qvk_chars_end(const qv_array *a) {
  return a->buffers[2] ? a->buffers[2]->data + a->buffers[2]->size : (const uint8_t *)"";
}

/* Writes the validity of d for rows [0, n) into words (all ones when it
 * has none); returns false when every row is valid (words untouched). */
bool qvk_validity_words(const qvk_datum *d, int64_t n, uint64_t *words);
/* words &= validity of d (no-op when d has no nulls). */
void qvk_and_validity(const qvk_datum *d, int64_t n, uint64_t *words);
/* Value bits of a bool datum for rows [0, n) (scalars broadcast). */
void qvk_bool_words(const qvk_datum *d, int64_t n, uint64_t *words);

/* ---- results ----------------------------------------------------------- */

/* A new array of the given type and length, refcount 1, no buffers. */
qv_status qvk_array_new(const qv_datatype *type, int64_t length, qv_array **out, qv_error *err);
/* A zeroed 64-byte aligned buffer of size bytes; NULL after setting err. */
qv_bytes *qvk_bytes(int64_t size, qv_error *err);
/* Bool array from value words (taken) and validity words (taken; may be
 * NULL).  Makes values canonical and drops an all-valid bitmap. */
qv_status qvk_bool_result(int64_t n, qv_bytes *values, qv_bytes *validity, qv_array **out, qv_error *err);
/* Sets a's validity from words (taken; NULL = none), counting nulls; drops
 * an all-valid bitmap. */
void qvk_set_validity(qv_array *a, qv_bytes *validity);
/* For a result whose validity bitmap was written in place in buffers[0]
 * (qvk_fixed_result with_validity): counts its nulls and drops it when
 * every row is valid. */
void qvk_finish_validity(qv_array *a);
/* The validity of the n rows where a and b (NULL: a alone) are both valid,
 * as a new bitmap in *out; *out is NULL when every row is valid.  Fails
 * (*out NULL, err set) only when the bitmap cannot be allocated. */
qv_status qvk_validity_of(const qvk_datum *a, const qvk_datum *b, int64_t n, qv_bytes **out, qv_error *err);
/* The end of a kernel that built r: when st is QV_OK r becomes *out,
 * otherwise r is released (NULL is fine); returns st. */
qv_status qvk_array_out(qv_status st, qv_array *r, qvk_datum *out);
/* qvk_array_out for a result whose validity was written in place
 * (qvk_fixed_result with_validity): qvk_finish_validity first. */
qv_status qvk_fixed_out(qv_status st, qv_array *r, qvk_datum *out);
/* The end of a kernel that wrote r's n values and whose rows are null
 * where x's are: r gets x's validity (qvk_validity_of) and becomes *out;
 * r is released on failure. */
qv_status qvk_array_out_valid(qv_array *r, const qvk_datum *x, int64_t n, qvk_datum *out, qv_error *err);
/* The end of a bool kernel: when st is QV_OK the bool array of values and
 * validity (qvk_bool_result) becomes *out; values and validity are taken
 * on every path; returns st or the failure of building the array. */
qv_status qvk_bool_out(qv_status st, int64_t n, qv_bytes *values, qv_bytes *validity, qvk_datum *out, qv_error *err);
/* Fixed-width array of type with n elements: allocates values (zeroed) and,
 * if with_validity, an all-zero validity bitmap the caller fills. */
qv_status qvk_fixed_result(const qv_datatype *type, int64_t n, bool with_validity, qv_array **out, qv_error *err);
/* All-null array of type with n rows. */
qv_status qvk_null_result(const qv_datatype *type, int64_t n, qv_array **out, qv_error *err);
/* The same as the result *out of a kernel. */
qv_status qvk_null_out(const qv_datatype *type, int64_t n, qvk_datum *out, qv_error *err);
/* An n-row array repeating scalar s. */
qv_status qvk_broadcast(const qv_scalar *s, int64_t n, qv_array **out, qv_error *err);
/* Type-check helpers for error messages. */
const char *qvk_type_name(const qv_datatype *t, char *buf, size_t size);

/* Byte width of a fixed-width physical type, 0 for bool, -1 otherwise. */

/* ---- scalar helpers ---------------------------------------------------- */

/* Integer value of an integer/temporal scalar as 128-bit. */
qvk_i128 qvk_scalar_i128(const qv_scalar *s);
qvk_i128 qvk_dec_get(const void *p); /* 16 little-endian bytes */
void qvk_dec_put(void *p, qvk_i128 v);
extern const qvk_i128 qvk_pow10_i128[39];

/* ---- kernels (eval.c dispatches to these) ------------------------------ */

/* Every op kernel reads the evaluated args of node e and sets *out. */
typedef qv_status (*qvk_op_fn)(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);

/* compare.c: a op b over n rows -> bool array.  a and b are scalars or
 * arrays (dense or read through their idx). */
qv_status qvk_compare(qv_op op, uint8_t float_order, const qvk_datum *a, const qvk_datum *b, int64_t n, qv_array **out,
                      qv_error *err);
/* Value words only: out[] gets a op b for rows [0, n) (bits past n 0), with
 * a an array datum and b a non-null scalar or an array read through the
 * same kind of index as a; tmp is scratch of the same size.  Nulls are
 * not looked at: the caller masks with the validity of both sides. */
qv_status qvk_compare_words(qv_op op, uint8_t order, const qvk_datum *a, const qvk_datum *b, int64_t n, uint64_t *out,
                            uint64_t *tmp, qv_error *err);
/* compare_select.c: the filter's fused path.  a op b for the n rows of an
 * evaluation straight into the selection sel (rows[i], or i when rows is
 * NULL, for every row where it is TRUE), without a result bitmap: 2,048
 * rows at a time, each 64-row word appended as soon as it is computed
 * (fused kernels for numbers and temporals against a scalar; the others
 * through qvk_compare_words into words on the stack).  *handled is false
 * (and sel untouched) unless the operands are an array and a scalar, or
 * two arrays read through the same index; the caller then takes the
 * bitmap path. */
qv_status qvk_compare_select(qv_op op, uint8_t order, const qvk_datum *a, const qvk_datum *b, const uint32_t *rows,
                             int64_t n, qv_selection *sel, bool *handled, qv_error *err);
qv_status qvk_op_compare(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
qv_status qvk_op_between(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);

/* compare_float.c: float32/float64 columns (and widened float32). */
qv_status qvk_compare_float(qv_op op, uint8_t order, const qvk_datum *a, const qvk_datum *b, int64_t n, uint64_t *out,
                            qv_error *err);
qv_status qvk_between_float(uint8_t order, const qvk_datum *x, double lo, double hi, int64_t n, uint64_t *out);
qv_status qvk_op_isnan(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
/* Key whose signed integer order is the float order (TOTAL/POLARS/JAVA). */
int64_t qvk_float_key(double x, uint8_t order);

/* Keys whose signed integer order is a float order (see compare_float.c). */
static inline int64_t qvk_total64(double x) {
  int64_t k;
  memcpy(&k, &x, 8);
  return k ^ (int64_t)((uint64_t)(k >> 63) >> 1);
}
static inline int32_t qvk_total32(float x) {
  int32_t k;
  memcpy(&k, &x, 4);
  return k ^ (int32_t)((uint32_t)(k >> 31) >> 1);
}
static inline int64_t qvk_polars64(double x) { return x != x ? INT64_MAX : qvk_total64(x + 0.0); }
static inline int32_t qvk_polars32(float x) { return x != x ? INT32_MAX : qvk_total32(x + 0.0f); }
static inline int64_t qvk_java64(double x) { return x != x ? INT64_MAX : qvk_total64(x); }
static inline int32_t qvk_java32(float x) { return x != x ? INT32_MAX : qvk_total32(x); }
/* Whether a float64 scalar compares the same in float32 (compare_float.c). */
bool qvk_fits_f32(double s, uint8_t order);

/* decimal128 compares on the two 64-bit halves of each value (high word
 * signed, low word unsigned): two vectorizable 64-bit comparisons per row
 * instead of a 128-bit one, which x86 has no vector instruction for.  H and
 * L are the halves of the value, SH and SL those of the scalar. */
#define QVK_DEC_EQ(H, L, SH, SL) ((int)((H) == (SH)) & (int)((L) == (SL)))
#define QVK_DEC_NE(H, L, SH, SL) ((int)((H) != (SH)) | (int)((L) != (SL)))
#define QVK_DEC_LT(H, L, SH, SL) ((int)((H) < (SH)) | ((int)((H) == (SH)) & (int)((L) < (SL))))
#define QVK_DEC_LE(H, L, SH, SL) ((int)((H) < (SH)) | ((int)((H) == (SH)) & (int)((L) <= (SL))))
#define QVK_DEC_GT(H, L, SH, SL) ((int)((H) > (SH)) | ((int)((H) == (SH)) & (int)((L) > (SL))))
#define QVK_DEC_GE(H, L, SH, SL) ((int)((H) > (SH)) | ((int)((H) == (SH)) & (int)((L) >= (SL))))
static inline uint64_t qvk_dec_lo(const uint8_t *p, int64_t r) {
  uint64_t v;
  memcpy(&v, p + 16 * r, 8);
  return v;
}
static inline int64_t qvk_dec_hi(const uint8_t *p, int64_t r) {
  int64_t v;
  memcpy(&v, p + 16 * r + 8, 8);
  return v;
}

/* compare_scaled.c: decimal and temporal comparisons across scales/units. */
qv_status qvk_compare_scaled(qv_op op, const qvk_datum *a, const qvk_datum *b, int64_t n, uint64_t *out, qv_error *err);
bool qvk_is_scaled(const qv_datatype *t);
/* The value range of an integer-like physical type: compare, cast and IN
 * clamp or reject values against it.  decimal128 gets the whole int128
 * range (cast narrows it to the precision itself). */
static inline void qvk_int_range(qv_type_id id, qvk_i128 *lo, qvk_i128 *hi) {
  switch (id) {
    case QV_TYPE_INT8:
      *lo = INT8_MIN;
      *hi = INT8_MAX;
      return;
    case QV_TYPE_INT16:
      *lo = INT16_MIN;
      *hi = INT16_MAX;
      return;
    case QV_TYPE_INT32:
    case QV_TYPE_DATE32:
      *lo = INT32_MIN;
      *hi = INT32_MAX;
      return;
    case QV_TYPE_UINT8:
      *lo = 0;
      *hi = UINT8_MAX;
      return;
    case QV_TYPE_UINT16:
      *lo = 0;
      *hi = UINT16_MAX;
      return;
    case QV_TYPE_UINT32:
      *lo = 0;
      *hi = UINT32_MAX;
      return;
    case QV_TYPE_UINT64:
      *lo = 0;
      *hi = UINT64_MAX;
      return;
    case QV_TYPE_DECIMAL128:
      *lo = QVK_I128_MIN;
      *hi = QVK_I128_MAX;
      return;
    default:
      *lo = INT64_MIN;
      *hi = INT64_MAX;
      return; /* int64 and 64-bit temporals */
  }
}

/* Whether s lies outside the range of integer-like type id; then every
 * value is on one side of s and *all is `x op s` for each of them. */
static inline bool qvk_int_outside(qv_type_id id, qv_op op, qvk_i128 s, bool *all) {
  qvk_i128 lo, hi;
  qvk_int_range(id, &lo, &hi);
  if (s >= lo && s <= hi) return false;
  bool above = s < lo; /* x > s for all x */
  *all = op == QV_OP_NE || (above ? (op == QV_OP_GT || op == QV_OP_GE) : (op == QV_OP_LT || op == QV_OP_LE));
  return true;
}
/* Internal: integer compare of one type, exposed to compare_scaled.c. */
void qvk_cmp_int_vs(qv_type_id id, qv_op op, const void *vals, const uint32_t *idx, qvk_i128 s, int64_t n,
                    uint64_t *out);
void qvk_cmp_i128_vv(qv_op op, const qvk_i128 *a, const qvk_i128 *b, int64_t n, uint64_t *out);

/* dictionary.c: dictionary-encoded arguments of node e, before its kernel
 * runs.  A per-value predicate of one dictionary argument against
 * constants is evaluated on the dictionary's entries through dispatch and
 * mapped to the rows (*handled set, *out filled); otherwise dictionary
 * arguments are decoded in place and the caller runs the kernel. */
qv_status qvk_dict_call(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out, qvk_op_fn dispatch,
                        bool *handled);

/* boolean.c */
qv_status qvk_op_logic(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
qv_status qvk_op_truth(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
/* Kleene AND/OR of two bool datums (n rows) into a new bool array. */
qv_status qvk_kleene(qv_op op, const qvk_datum *a, const qvk_datum *b, int64_t n, qv_array **out, qv_error *err);

/* in.c */
qv_status qvk_op_in(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
/* A hash set of the non-null values among items, for IN and array_has_any. */
typedef struct qvk_set qvk_set;
qv_status qvk_set_build(const qv_datatype *probe_type, uint8_t float_order, const qv_scalar *const *items,
                        int64_t n_items, qvk_set **out, qv_error *err);
/* Sets bit i of out when row i of probe (non-null) is in the set. */
qv_status qvk_set_probe(const qvk_set *s, const qvk_datum *probe, int64_t n, uint64_t *out, qv_error *err);
bool qvk_set_has_null(const qvk_set *s);
void qvk_set_destroy(qvk_set *s);

/* string.c, like.c, regex.c */
qv_status qvk_op_str_match(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
qv_status qvk_op_case(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
qv_status qvk_op_length(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
qv_status qvk_op_like(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
qv_status qvk_op_regex(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);

/* arith.c, arith_decimal.c */
qv_status qvk_op_arith(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
qv_status qvk_op_neg_abs(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
qv_status qvk_decimal_arith(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);

/* cast.c, cast_string.c */
qv_status qvk_op_cast(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
/* Casts a dense array to type (strict: errors name the value; else null). */
qv_status qvk_cast_array(qv_array *a, const qv_datatype *to, bool strict, qv_array **out, qv_error *err);
qv_status qvk_cast_to_string(qv_array *a, const qv_datatype *to, bool strict, qv_array **out, qv_error *err);
/* The same with Polars' text for floats (1e-7, 0.00001, 1.5e+16). */
qv_status qvk_cast_to_string_polars(qv_array *a, const qv_datatype *to, bool strict, qv_array **out, qv_error *err);
qv_status qvk_cast_from_string(qv_array *a, const qv_datatype *to, bool strict, qv_array **out, qv_error *err);

/* Casts d to type `to` (strict) unless it already has it; scalars stay
 * scalars. */
qv_status qvk_coerce(qvk_ctx *c, qvk_datum *d, const qv_datatype *to);

/* temporal.c */
qv_status qvk_op_date_part(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
qv_status qvk_op_date_trunc(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
/* Offset east of UTC, in seconds, of a timestamp zone we handle (UTC or a
 * fixed offset); QV_ERR_UNSUPPORTED for named zones. */
qv_status qvk_tz_offset(const char *tz, int64_t *seconds, qv_error *err);
/* Units per second of a time unit (1, 1e3, 1e6, 1e9). */
int64_t qvk_unit_per_second(qv_time_unit u);
static inline int64_t qvk_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* civil.c: calendar fields of blocks of values, vectorized (see its top
 * comment).  Days must lie within +-QVK_CIVIL_DAYS_MAX. */
#define QVK_CIVIL_DAYS_MAX ((INT32_C(1) << 30) - 1)
/* The longest calendar step qvk_civil_month_floor takes (100,000 years). */
#define QVK_CIVIL_MONTHS_MAX 1200000
typedef enum { QVK_CF_YEAR, QVK_CF_MONTH, QVK_CF_DAY, QVK_CF_QUARTER, QVK_CF_WEEKDAY, QVK_CF_ORDINAL } qvk_civil_field;
typedef enum { QVK_TF_HOUR, QVK_TF_MINUTE, QVK_TF_SECOND, QVK_TF_MILLI, QVK_TF_MICRO, QVK_TF_NANO } qvk_tod_field;
/* out[i] = field f of days[i] (Monday 1 for the weekday). */
void qvk_civil_fields(qvk_civil_field f, const int32_t *days, int64_t n, int32_t *out);
/* out[i] = the first day of days[i]'s step of `every` months counted from
 * January 1970 (1 <= every <= QVK_CIVIL_MONTHS_MAX). */
void qvk_civil_month_floor(const int32_t *days, int64_t n, int32_t every, int32_t *out);
/* Splits v[i] + shift (units of per a second: 1, 1e3, 1e6 or 1e9) into
 * floored days and time of day; false when a shift overflows or a day is
 * beyond +-QVK_CIVIL_DAYS_MAX (days and tod are then not all meaningful). */
bool qvk_civil_split(const int64_t *v, int64_t n, int64_t per, int64_t shift, int32_t *days, int64_t *tod);
/* Field f of the time of day of v[i] + shift (units of per a second),
 * stored as an integer of w bytes (1, 2, 4 or 8) at out + i * w; false
 * when a shift overflows (the block then goes the exact way). */
bool qvk_tod_fields(qvk_tod_field f, const int64_t *v, int64_t n, int64_t per, int64_t shift, int w, uint8_t *out);
/* Stores v[0..n) as integers of width bytes (1, 2, 4 or 8), truncating. */
void qvk_narrow_i32(const int32_t *v, int64_t n, int width, uint8_t *dst);

/* list.c */
qv_status qvk_op_array(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
qv_status qvk_op_field(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
qv_status qvk_op_list_literal(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);

/* coalesce.c: rt may be NULL (the first non-null argument's type) */
qv_status qvk_op_coalesce(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
qv_status qvk_coalesce(qvk_ctx *c, qvk_datum *args, int32_t na, const qv_datatype *rt, qvk_datum *out);

/* pick.c: row i of *out is row i of args[src[i]] cast to rt, null where
 * src[i] is QVK_PICK_NONE or that row is null.  Makes args dense. */
#define QVK_PICK_NONE 255
#define QVK_PICK_MAX 254
qv_status qvk_pick(qvk_ctx *c, qvk_datum *args, int32_t na, const uint8_t *src, const qv_datatype *rt, qv_array **out);

/* The result type of e: its bound type, or NULL when unbound. */
static inline const qv_datatype *qvk_bound_type(const qv_expr *e) {
  return e->type.id == QV_TYPE_NULL ? NULL : &e->type;
}

/* Whether e came from a Polars front end (its semantics are Polars'): the
 * operators it shares with Lance (lower, upper, contains...) then follow
 * Polars where the two differ. */
static inline bool qvk_polars_node(const qv_expr *e) { return e->sem.float_order == QV_FLOAT_POLARS; }

/* ---- checks before evaluation (check.c, qv_eval_check) ---- */

/* e's value when it is a non-null literal of type id, else NULL. */
static inline const qv_scalar *qvk_check_literal(const qv_expr *e, qv_type_id id) {
  return e && e->kind == QV_EXPR_LITERAL && !e->value.is_null && e->value.type.id == id ? &e->value : NULL;
}
/* The constant arguments of one bound node, judged as its kernel judges
 * them when it runs, with the kernel's messages: regexp_like/regexp_match
 * patterns and flags (regex.c), str.replace patterns (regex.c), LIKE
 * patterns and escapes (like.c), dt.truncate intervals (polars_temporal.c).
 * QV_OK for arguments that are not literals: they are judged per row. */
qv_status qvk_regex_check(const qv_expr *e, qv_error *err);
qv_status qvk_replace_check(const qv_expr *e, qv_error *err);
qv_status qvk_like_check(const qv_expr *e, qv_error *err);
qv_status qvk_dt_truncate_check(const qv_expr *e, qv_error *err);
/* Evaluates every constant subtree of e once, for its errors (eval.c). */
qv_status qvk_fold_constants(const qv_expr *e, qv_error *err);

/* Every kernel the registry names: KERNEL(x) in expr/ops.def is
 * qvk_op_x, declared here from the row (eval.c dispatches to it).  Those
 * of the operators only the Polars front ends produce live in
 * polars_math.c (numbers, logic, when/then), polars_text.c (strings),
 * polars_temporal.c (dt.<part>, dt.epoch, dt.truncate, dt.date) and
 * polars_list.c (list.get). */
#define KERNEL(k) qv_status qvk_op_##k(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out);
#define NO_KERNEL
#define QV_OP_ROW(id, name, lo, hi, cls, mirror, sql, print, bind, kernel, ...) kernel
#include "expr/ops.def"
#undef QV_OP_ROW
#undef NO_KERNEL
#undef KERNEL

#endif
