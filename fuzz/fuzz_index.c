/* Fuzz target: an index file (.qvi).  The first input byte picks whether
 * checksums are verified (bit 0 clear) or skipped (bit 0 set, so mutations
 * reach the footer, dictionary, page and roaring validation); the rest is
 * the file.  Everything reachable is read: the null rows, the dictionary
 * and every posting list, every BTREE page, and queries of each shape over
 * all keys (ranges, a prefix, every key, negated, with nulls added).
 * Seeds: tests/index/test_corruption writes real index files to the
 * directory in QV_INDEX_SEEDS (prefixed with a 0 byte). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "index/index_int.h"
#include "storage/format.h"

static void ask(qvi_file *f, qvi_mode mode, bool negate, bool add_nulls, qvi_range *r, int32_t n) {
  qvi_ask a = {mode, negate, add_nulls, true, false, n, r};
  roaring_bitmap_t *out = roaring_bitmap_create();
  qv_error err;
  int64_t est;
  if (!out) return;
  (void)qvi_file_query(f, &a, out, &err);
  int64_t read;
  (void)qvi_file_estimate(f, &a, &est, &read, &err);
  roaring_bitmap_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  qvs_verify_checksums = !(data[0] & 1);
  int fd = fuzz_file_of("qvi", data + 1, size - 1);
  if (fd < 0) return 0;
  qvi_file *f = NULL;
  qv_error err;
  if (qvi_file_open_fd(fd, "fuzz.qvi", -1, -1, &f, &err) != QV_OK) {
    qvs_verify_checksums = true;
    return 0;
  }
  const roaring_bitmap_t *nulls;
  (void)qvi_file_nulls(f, &nulls, &err);
  if (f->type == QV_INDEX_BTREE) {
    for (int32_t p = 0; p < f->n_pages; p++) {
      qvi_page pg;
      if (qvi_file_page(f, p, &pg, &err) == QV_OK) qv_free(pg.bytes);
    }
  } else if (qvi_file_dict(f, &err) == QV_OK) {
    for (int64_t k = 0; k < f->n_keys; k++) {
      roaring_bitmap_t *r = NULL;
      if (qvi_file_posting(f, k, &r, &err) == QV_OK) roaring_bitmap_free(r);
    }
  }
  uint8_t lo[3] = {'a', 'b', 'c'}, hi[9] = {1, 0, 0, 0, 0, 0, 0, 0, 9};
  qvi_range all = {false, false, false, false, false, 0, 0, NULL, NULL};
  qvi_range some[2] = {{true, true, true, false, false, 3, 9, lo, hi},
                       {true, true, false, false, true, 1, 0, lo, NULL}};
  ask(f, QVI_RANGES, false, false, &all, 1);
  ask(f, QVI_RANGES, true, true, some, 2);
  ask(f, QVI_NULLS, true, false, NULL, 0);
  ask(f, QVI_ALL_KEYS, false, false, some, 1);
  ask(f, QVI_ANY_KEY, true, false, some, 2);
  qvi_file_close(f);
  qvs_verify_checksums = true;
  return 0;
}
