/* The FSST string codec (fsst.c): symbol tables, their bytes on disk,
 * encoding and decoding; encoding.h has the page encoding built on it. */
#ifndef QUIVER_STORAGE_FSST_H
#define QUIVER_STORAGE_FSST_H

#include <stdbool.h>
#include <stdint.h>

#include "quiver/base.h"

/* FSST (fsst.c: the codec; encoding_fsst.c: the page encoding).  A value
 * is a run of codes: c < n stands for symbol c, QVS_FSST_ESCAPE for the
 * byte after it. */
#define QVS_FSST_SYMBOLS 255
#define QVS_FSST_ESCAPE 255
typedef struct qvs_fsst_match {
  uint64_t sym, mask; /* the symbol's bytes and a mask of its length */
  uint8_t len, code;
} qvs_fsst_match;
typedef struct qvs_fsst_table {
  int32_t n;
  uint64_t sym[256];            /* symbol c's bytes, little-endian, zero above len[c] */
  uint8_t len[256];             /* 1..8; 0 for codes the table lacks (and the escape) */
  uint16_t first[257];          /* encoder: by_first[first[b] .. first[b+1]) start with byte b, */
  qvs_fsst_match by_first[256]; /* ... longest first */
} qvs_fsst_table;
typedef struct qvs_fsst_scratch {
  uint32_t *pair_count;               /* 512 x 512 counts of adjacent symbol ids, zero between uses */
  uint32_t *touched;                  /* the pairs counted in this generation */
  const uint8_t **spans;              /* the sample: [start, end) pointer pairs */
  void *cand;                         /* the candidates' hash set */
  uint32_t *cand_used;                /* its slots in use, */
  int32_t n_used;                     /* ... how many */
  int64_t sample_bytes, sample_coded; /* the last build's sample, and its codes with the table built */
} qvs_fsst_scratch;
void qvs_fsst_scratch_reset(qvs_fsst_scratch *s);
/* A table for the n values off[0..n] into chars (rows whose validity bit,
 * at vbit + i, is clear are left out; validity may be NULL). */
qv_status qvs_fsst_build(qvs_fsst_scratch *s, const uint8_t *chars, const int32_t *off, const uint8_t *validity,
                         int64_t vbit, int64_t n, qvs_fsst_table *t, qv_error *err);
/* Encodes len bytes into out (room for 2 * len); returns the codes' length. */
int64_t qvs_fsst_encode(const qvs_fsst_table *t, const uint8_t *in, int64_t len, uint8_t *out);
/* The table on disk: 8 bytes per symbol (little-endian), then 1 length
 * byte per symbol (9 * n bytes in all). */
void qvs_fsst_store(const qvs_fsst_table *t, uint8_t *out);
/* Loads n symbols stored as above; false when n > 255 or a length is not
 * 1..8.  Fills the decoder's fields only (sym, len, n). */
bool qvs_fsst_load(qvs_fsst_table *t, const uint8_t *buf, int64_t n);
/* Bytes the codes [p, end) decode to; -1 when one is not in the table or
 * the run ends in an escape. */
int64_t qvs_fsst_decoded_len(const qvs_fsst_table *t, const uint8_t *p, const uint8_t *end);
/* Decodes the codes [p, end) into out, which needs 8 * (end - p) bytes of
 * room (a symbol is stored as a word); returns the end of what it wrote,
 * or NULL where qvs_fsst_decoded_len returns -1. */
uint8_t *qvs_fsst_decode(const qvs_fsst_table *t, const uint8_t *p, const uint8_t *end, uint8_t *out);
/* Decodes n rows whose codes are [co[i], co[i+1]) of codes (co: n + 1
 * u32 LE offsets, already checked to run from 0 without decreasing) into
 * out, their ends into o[0..n] (o[0] = 0); out needs 8 * co[n] bytes of
 * room and the result fits int32 offsets.  Returns -1, or the first row
 * whose codes do not decode (as qvs_fsst_decoded_len's -1). */
int64_t qvs_fsst_decode_rows(const qvs_fsst_table *t, const uint8_t *codes, const uint8_t *co, int64_t n, uint8_t *out,
                             int32_t *o);

#endif
