/* Page encodings: plain, dictionary, bit-packed frame of reference and
 * FSST, each an encoder for the writer, a whole-page decoder and a take of
 * some rows; and the page being built (page_buffers.c). */
#ifndef QUIVER_STORAGE_ENCODING_H
#define QUIVER_STORAGE_ENCODING_H

#include "storage/datafile.h"
#include "storage/format.h"
#include "storage/fsst.h"
#include "storage/gather.h"
#include "storage/page_stats.h"

/* ---- encodings ------------------------------------------------------------- */

/* A page being built by the writer. */
typedef struct qvs_page_out {
  qv_buffer raw;  /* buffers, each starting at a multiple of 8 */
  qv_buffer bufs; /* qvs_buf entries */
  int32_t n_buffers;
  uint8_t encoding;
  uint8_t bit_width;
  uint64_t reference;
  int64_t dict_count;
} qvs_page_out;

/* qv_buffer_append_zeros that is a no-op for n == 0 (the base version
 * passes a NULL pointer to memset for an empty buffer). */
static inline qv_status qvs_zeros(qv_buffer *b, int64_t n) { return n > 0 ? qv_buffer_append_zeros(b, n) : QV_OK; }

void qvs_page_out_clear(qvs_page_out *po);
void qvs_page_out_reset(qvs_page_out *po);
/* Starts a new buffer in the page (8-aligned) and returns where it starts. */
qv_status qvs_page_begin_buffer(qvs_page_out *po, int64_t *start);
qv_status qvs_page_end_buffer(qvs_page_out *po, int64_t start);
/* Appends a whole buffer. */
qv_status qvs_page_add_buffer(qvs_page_out *po, const void *p, int64_t n);
/* The validity bits of rows [start, start+n) of a (empty when no nulls). */
qv_status qvs_page_add_validity(qvs_page_out *po, const qv_array *a, int64_t start, int64_t n, bool any_nulls);

/* plain (encoding_plain.c): every type; nested ones as preorder buffers. */
qv_status qvs_encode_plain(const qv_array *a, int64_t start, int64_t n, int64_t null_count, qvs_page_out *po,
                           qv_error *err);
/* Decodes a whole plain page. */
qv_status qvs_decode_plain(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err);
/* Appends rows[0..n) (page-relative) of a raw plain flat page. */
qv_status qvs_take_plain(qvs_view *v, const qv_datatype *type, const uint32_t *rows, int64_t n, qvs_acc *acc,
                         qv_error *err);

/* dictionary (encoding_dict.c): *used false when the page does not qualify. */
typedef struct qvs_dict_scratch {
  uint32_t *slots; /* hash table of entry index + 1 */
  int64_t n_slots;
  uint32_t *codes; /* per row */
  int64_t codes_cap;
  int32_t *entries; /* row of each entry's first occurrence */
} qvs_dict_scratch;
void qvs_dict_scratch_reset(qvs_dict_scratch *s);
qv_status qvs_encode_dict(const qv_array *a, int64_t start, int64_t n, int64_t null_count, qvs_dict_scratch *s,
                          qvs_page_out *po, bool *used, qv_error *err);
qv_status qvs_decode_dict(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err);
/* The same page as a dictionary array (int32 indices into its entries). */
qv_status qvs_decode_dict_encoded(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err);
qv_status qvs_take_dict(qvs_view *v, const qv_datatype *type, const uint32_t *rows, int64_t n, qvs_acc *acc,
                        qv_error *err);

/* bit-packed frame of reference (encoding_bitpack.c). */
int qvs_bits_needed(uint64_t range);
static inline int64_t qvs_packed_len(int64_t n, int w) { return (n * w + 7) / 8 + QVS_PACK_PAD; }
/* Packs n values (already minus the reference) of w bits. */
void qvs_pack(const uint64_t *vals, int64_t n, int w, uint8_t *out);
static inline uint64_t qvs_unpack_one(const uint8_t *packed, int w, int64_t i) {
  int64_t bit = i * w;
  uint64_t word = qv_load_u64le(packed + (bit >> 3));
  return w == 0 ? 0 : (word >> (bit & 7)) & (w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1);
}
/* Unpacks values 0..n-1 of w bits (w <= QVS_MAX_BITS, w < 8 * bw) into dst
 * as ref + value, bw (1, 2, 4 or 8) bytes each. */
void qvs_unpack(const uint8_t *packed, int w, uint64_t ref, int64_t n, void *dst, int bw);
qv_status qvs_encode_bitpack(const qv_array *a, int64_t start, int64_t n, int64_t null_count, const qvs_stats *st,
                             qvs_page_out *po, bool *used, qv_error *err);
qv_status qvs_decode_bitpack(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err);
qv_status qvs_take_bitpack(qvs_view *v, const qv_datatype *type, const uint32_t *rows, int64_t n, qvs_acc *acc,
                           qv_error *err);

/* *used false (po untouched) when the table saves less than an eighth of
 * its own sample: the page would not be kept, so it is not encoded. */
qv_status qvs_encode_fsst(const qv_array *a, int64_t start, int64_t n, int64_t null_count, qvs_fsst_scratch *s,
                          qvs_page_out *po, bool *used, qv_error *err);
qv_status qvs_decode_fsst(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err);
qv_status qvs_take_fsst(qvs_view *v, const qv_datatype *type, const uint32_t *rows, int64_t n, qvs_acc *acc,
                        qv_error *err);

/* Validity of a page being decoded whole: a fresh copy of the bits (NULL
 * when the page has none) after checking their count of nulls. */
qv_status qvs_decode_validity(const qvs_view *v, int32_t b, int64_t n, int64_t expect_nulls, qv_bytes **out,
                              int64_t *nulls, qv_error *err);

#endif
