/* Bit-packed frame of reference for integers and temporal types: the page
 * stores its minimum (the reference) and every value minus it in w bits,
 * LSB first, followed by QVS_PACK_PAD zero bytes.  Value i sits at bit i*w,
 * so one unaligned 64-bit load fetches it (w <= 56) and rows can be read
 * at random.  Null slots hold 0 (the reference).  Chosen when w is smaller
 * than the type's width. */
#include <string.h>

#include "storage/datafile.h"
#include "storage/encoding.h"
#include "storage/format.h"
#include "storage/gather.h"
#include "storage/page_stats.h"

int qvs_bits_needed(uint64_t range) { return range ? 64 - __builtin_clzll(range) : 0; }

void qvs_pack(const uint64_t *vals, int64_t n, int w, uint8_t *out) {
  uint64_t acc = 0;
  int nb = 0;
  for (int64_t i = 0; i < n; i++) {
    acc |= vals[i] << nb;
    nb += w;
    while (nb >= 8) {
      *out++ = (uint8_t)acc;
      acc >>= 8;
      nb -= 8;
    }
  }
  if (nb > 0) *out++ = (uint8_t)acc;
  memset(out, 0, QVS_PACK_PAD);
}

static bool packable(qv_type_id id) { return qv_type_is_integer(id) || qv_type_is_temporal(id); }

/* Packs values of C type T (valid ones minus ref; nulls as 0). */
#define PACK_LOOP(T)                                                                                     \
  do {                                                                                                   \
    const T *src = (const T *)a->buffers[1]->data + a->offset + start;                                   \
    for (int64_t i = 0; i < n; i++) {                                                                    \
      uint64_t d = (vb && !qv_bit_get(vb, a->offset + start + i)) ? 0 : (uint64_t)(int64_t)src[i] - ref; \
      acc |= d << nb;                                                                                    \
      nb += w;                                                                                           \
      while (nb >= 8) {                                                                                  \
        *out++ = (uint8_t)acc;                                                                           \
        acc >>= 8;                                                                                       \
        nb -= 8;                                                                                         \
      }                                                                                                  \
    }                                                                                                    \
  } while (0)

qv_status qvs_encode_bitpack(const qv_array *a, int64_t start, int64_t n, int64_t null_count, const qvs_stats *st,
                             qvs_page_out *po, bool *used, qv_error *err) {
  *used = false;
  qv_type_id id = a->type.id;
  if (!packable(id) || n == 0) return QV_OK;
  int bw = qv_type_byte_width(id);
  bool is_signed = !(id >= QV_TYPE_UINT8 && id <= QV_TYPE_UINT64);
  uint64_t ref = 0, range = 0;
  if (st->has_minmax) {
    ref = is_signed ? (uint64_t)st->min.v.i : st->min.v.u;
    range = (is_signed ? (uint64_t)st->max.v.i : st->max.v.u) - ref;
  }
  int w = qvs_bits_needed(range);
  if (w > QVS_MAX_BITS || w >= bw * 8) return QV_OK;
  *used = true;
  po->encoding = QV_ENCODING_BITPACK_FOR;
  po->bit_width = (uint8_t)w;
  po->reference = ref;
  const uint8_t *vb = null_count && a->buffers[0] ? a->buffers[0]->data : NULL;
  if (qvs_page_add_validity(po, a, start, n, null_count > 0) != QV_OK) goto nomem;
  int64_t at;
  if (qvs_page_begin_buffer(po, &at) != QV_OK || qvs_zeros(&po->raw, qvs_packed_len(n, w)) != QV_OK) goto nomem;
  uint8_t *out = po->raw.data + at;
  uint64_t acc = 0;
  int nb = 0;
  /* Unsigned types read through their unsigned C type (no sign extension). */
  switch (id) {
    case QV_TYPE_INT8: PACK_LOOP(int8_t); break;
    case QV_TYPE_INT16: PACK_LOOP(int16_t); break;
    case QV_TYPE_INT32:
    case QV_TYPE_DATE32: PACK_LOOP(int32_t); break;
    case QV_TYPE_UINT8: PACK_LOOP(uint8_t); break;
    case QV_TYPE_UINT16: PACK_LOOP(uint16_t); break;
    case QV_TYPE_UINT32: PACK_LOOP(uint32_t); break;
    case QV_TYPE_UINT64: {
      const uint64_t *src = (const uint64_t *)a->buffers[1]->data + a->offset + start;
      for (int64_t i = 0; i < n; i++) {
        uint64_t d = (vb && !qv_bit_get(vb, a->offset + start + i)) ? 0 : src[i] - ref;
        acc |= d << nb;
        nb += w;
        while (nb >= 8) {
          *out++ = (uint8_t)acc;
          acc >>= 8;
          nb -= 8;
        }
      }
      break;
    }
    default: PACK_LOOP(int64_t); break;
  }
  if (nb > 0) *out = (uint8_t)acc;
  if (qvs_page_end_buffer(po, at) != QV_OK) goto nomem;
  return QV_OK;
nomem:
  return qv_error_nomem(err, NULL);
}

/* Unpacking.  For 32- and 64-bit values each width W up to the type's gets
 * its own loop, W a constant in it: values go 8 at a time, and 8 values
 * take exactly W bytes, so every load's offset and shift is a constant too.
 * That made it twice as fast as one loop over any width (0.85 -> 0.42 ns a
 * value).  8- and 16-bit values (narrow widths only) take the one loop. */
#define UNPACK_LOOP(T, W)                                                               \
  do {                                                                                  \
    T *o = (T *)dst;                                                                    \
    const uint64_t mask = (W) ? (((uint64_t)1 << (W)) - 1) : 0;                         \
    int64_t i = 0;                                                                      \
    for (; i + 8 <= n; i += 8) {                                                        \
      const uint8_t *g = p + (i >> 3) * (W);                                            \
      _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++) o[i + k] =                    \
          (T)(ref + ((qv_load_u64le(g + ((k * (W)) >> 3)) >> ((k * (W)) & 7)) & mask)); \
    }                                                                                   \
    for (; i < n; i++) {                                                                \
      int64_t bit = i * (W);                                                            \
      o[i] = (T)(ref + ((qv_load_u64le(p + (bit >> 3)) >> (bit & 7)) & mask));          \
    }                                                                                   \
  } while (0)

static inline __attribute__((always_inline)) void unpack_u64(const uint8_t *p, const int W, uint64_t ref, int64_t n,
                                                             void *dst) {
  UNPACK_LOOP(uint64_t, W);
}

static inline __attribute__((always_inline)) void unpack_u32(const uint8_t *p, const int W, uint64_t ref, int64_t n,
                                                             void *dst) {
  UNPACK_LOOP(uint32_t, W);
}

#define CASE(F, W)        \
  case W:                 \
    F(p, W, ref, n, dst); \
    return;
#define CASES8(F, b) \
  CASE(F, b) CASE(F, b + 1) CASE(F, b + 2) CASE(F, b + 3) CASE(F, b + 4) CASE(F, b + 5) CASE(F, b + 6) CASE(F, b + 7)

/* The macro-made case labels read best in rows. */
/* clang-format off */
void qvs_unpack(const uint8_t *p, int w, uint64_t ref, int64_t n, void *dst, int bw) {
  _Static_assert(QVS_MAX_BITS == 56, "qvs_unpack has a case for every width up to QVS_MAX_BITS");
  /* widths beyond a case (refused where pages are read: qvs_check_layout)
   * take the one loop too */
  if (bw == 8) switch (w) {
      CASES8(unpack_u64, 0) CASES8(unpack_u64, 8) CASES8(unpack_u64, 16) CASES8(unpack_u64, 24)
      CASES8(unpack_u64, 32) CASES8(unpack_u64, 40) CASES8(unpack_u64, 48) CASE(unpack_u64, 56)
      default: UNPACK_LOOP(uint64_t, w); return;
    }
  if (bw == 4) switch (w) {
      CASES8(unpack_u32, 0) CASES8(unpack_u32, 8) CASES8(unpack_u32, 16) CASES8(unpack_u32, 24)
      default: UNPACK_LOOP(uint32_t, w); return;
    }
  if (bw == 2) UNPACK_LOOP(uint16_t, w);
  else UNPACK_LOOP(uint8_t, w);
}
/* clang-format on */

#undef CASES8
#undef CASE

qv_status qvs_decode_bitpack(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err) {
  *out = NULL;
  const qvs_page *pg = v->pg;
  int64_t n = pg->row_count;
  int bw = qv_type_byte_width(type->id);
  qv_bytes *validity = NULL;
  int64_t nulls = 0;
  QV_RETURN_NOT_OK(qvs_decode_validity(v, 0, n, pg->null_count, &validity, &nulls, err));
  qv_array *a = qv_array_alloc(type, n, 0);
  qv_bytes *vals = qv_bytes_alloc_uninit(n * bw);
  if (!a || !vals) {
    qv_bytes_release(validity);
    qv_bytes_release(vals);
    qv_array_release(a);
    return qv_error_nomem(err, NULL);
  }
  qvs_unpack(qvs_view_buf(v, 1), pg->bit_width, pg->reference, n, qv_bytes_mutable(vals), bw);
  a->buffers[0] = validity;
  a->buffers[1] = vals;
  a->null_count = nulls;
  *out = a;
  return QV_OK;
}

qv_status qvs_take_bitpack(qvs_view *v, const qv_datatype *type, const uint32_t *rows, int64_t n, qvs_acc *acc,
                           qv_error *err) {
  const qvs_page *pg = v->pg;
  int w = pg->bit_width;
  int bw = qv_type_byte_width(type->id);
  bool has_validity = qvs_view_len(v, 0) > 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t r = rows[k];
    if (has_validity) qvs_view_want(v, 0, r >> 3, 1);
    qvs_view_want(v, 1, (r * w) >> 3, 8);
  }
  QV_RETURN_NOT_OK(qvs_view_fetch(v, err));
  const uint8_t *vb = has_validity ? qvs_view_buf(v, 0) : NULL;
  const uint8_t *p = qvs_view_buf(v, 1);
  uint8_t *dst = qv_bytes_mutable(acc->values);
  for (int64_t k = 0; k < n; k++) {
    int64_t r = rows[k];
    if (vb && !qv_bit_get(vb, r)) {
      QV_RETURN_NOT_OK(qvs_acc_null(acc, err));
      continue;
    }
    uint64_t x = pg->reference + qvs_unpack_one(p, w, r);
    uint8_t le[8];
    qv_store_u64le(le, x);
    memcpy(dst + acc->pos * bw, le, (size_t)bw); /* little-endian host: the low bytes */
    if (acc->validity) qv_bit_set(qv_bytes_mutable(acc->validity), acc->pos);
    acc->pos++;
  }
  return QV_OK;
}
