/* Fuzz target for the FSST codec (storage/fsst.c).  The first input byte
 * picks the mode:
 *   even: the rest is values (each a length byte, then that many bytes, the
 *         last one cut short by the input's end); a table is built for
 *         them, each value encoded and decoded, singly and as a page, and
 *         must come back byte for byte;
 *   odd:  the rest is a stored table (a count byte, then 9 bytes per
 *         symbol) followed by codes from a hostile file; loading either
 *         refuses the table or gives one whose decoders agree: decode fails
 *         exactly where qvs_fsst_decoded_len says -1, and otherwise writes
 *         that many bytes within its room.
 * Any violation aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/fsst.h"

static void check(bool ok, const char *what) {
  if (ok) return;
  fprintf(stderr, "fuzz_fsst: %s\n", what);
  abort();
}

static void round_trip(const uint8_t *data, size_t size) {
  int32_t *off = malloc((size + 2) * sizeof *off);
  uint8_t *chars = malloc(size + 1);
  int64_t n = 0;
  off[0] = 0;
  for (size_t i = 0; i < size;) {
    size_t len = data[i++];
    if (len > size - i) len = size - i;
    memcpy(chars + off[n], data + i, len);
    off[n + 1] = off[n] + (int32_t)len;
    n++;
    i += len;
  }
  uint8_t *codes = malloc(2 * (size_t)off[n] + 1), *co = malloc(4 * ((size_t)n + 1));
  uint8_t *back = malloc(8 * 2 * (size_t)off[n] + 8);
  int32_t *o = malloc(((size_t)n + 1) * sizeof *o);
  /* one scratch for every input, as a writer keeps one for every page
   * (its 1 MB of pair counts must come back zeroed after each build) */
  static qvs_fsst_scratch s;
  qvs_fsst_table t;
  check(qvs_fsst_build(&s, chars, off, NULL, 0, n, &t, NULL) == QV_OK, "build failed");
  check(t.n >= 0 && t.n <= QVS_FSST_SYMBOLS, "table size");
  uint8_t stored[9 * 255];
  qvs_fsst_store(&t, stored);
  qvs_fsst_table u;
  check(qvs_fsst_load(&u, stored, t.n), "a built table does not load");
  int64_t pos = 0;
  qv_store_u32le(co, 0);
  for (int64_t i = 0; i < n; i++) {
    int64_t len = off[i + 1] - off[i];
    int64_t got = qvs_fsst_encode(&t, chars + off[i], len, codes + pos);
    check(got <= 2 * len, "more than two code bytes per byte");
    uint8_t *end = qvs_fsst_decode(&u, codes + pos, codes + pos + got, back);
    check(end && end - back == len && memcmp(back, chars + off[i], (size_t)len) == 0, "value differs");
    pos += got;
    qv_store_u32le(co + 4 * (i + 1), (uint32_t)pos);
  }
  check(qvs_fsst_decode_rows(&u, codes, co, n, back, o) == -1, "page does not decode");
  check(memcmp(o, off, ((size_t)n + 1) * sizeof *o) == 0 && memcmp(back, chars, (size_t)off[n]) == 0, "page differs");
  free(off);
  free(chars);
  free(codes);
  free(co);
  free(back);
  free(o);
}

static void hostile(const uint8_t *data, size_t size) {
  if (size < 1) return;
  int64_t n = data[0];
  data++, size--;
  if ((size_t)(9 * n) > size) return;
  qvs_fsst_table t;
  if (!qvs_fsst_load(&t, data, n)) return;
  const uint8_t *codes = data + 9 * n, *end = data + size;
  size_t clen = (size_t)(end - codes);
  /* exactly the room the contract asks for, so ASan sees any overrun */
  uint8_t *out = malloc(8 * clen + 1);
  int64_t want = qvs_fsst_decoded_len(&t, codes, end);
  uint8_t *got = qvs_fsst_decode(&t, codes, end, out);
  check(want < 0 ? got == NULL : (got != NULL && got - out == want), "decoders disagree");
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  if (data[0] & 1) hostile(data + 1, size - 1);
  else round_trip(data + 1, size - 1);
  return 0;
}
