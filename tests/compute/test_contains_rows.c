/* qvk_contains_rows (one memmem over a whole string column) against a
 * memmem per row: random short values over a small alphabet, so that
 * needles match often, straddle value boundaries, overlap themselves
 * ("aa" in "aaa") and sit at the very end of the data; empty values; and
 * column views that start past offset 0 (sliced arrays).  Then through the
 * evaluator: contains and LIKE '%..%' over a column with nulls, with and
 * without a selection (which takes the per-row loop). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include <string.h>

#include "compute/compute_int.h"
#include "compute/compute_test.h"

enum { ROWS = 3000, MAX_LEN = 9 };

static uint64_t rng_step(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void test_against_per_row(void **state) {
  (void)state;
  static int32_t off[ROWS + 1];
  static uint8_t chars[ROWS * MAX_LEN + 1];
  static uint64_t got[(ROWS + 63) / 64];
  const char *needles[] = {"a", "ab", "aa", "aba", "bab", "abcab", "c", "zz"};
  uint64_t seed = 42;
  for (int trial = 0; trial < 40; trial++) {
    int64_t pos = 0;
    off[0] = 0;
    for (int r = 0; r < ROWS; r++) {
      int len = (int)(rng_step(&seed) % (MAX_LEN + 1));
      for (int k = 0; k < len; k++) chars[pos++] = (uint8_t)("abc"[rng_step(&seed) % 3]);
      off[r + 1] = (int32_t)pos;
    }
    for (size_t ni = 0; ni < sizeof needles / sizeof *needles; ni++) {
      const uint8_t *s = (const uint8_t *)needles[ni];
      int64_t ls = (int64_t)strlen(needles[ni]);
      for (int start = 0; start < 3; start++) { /* a view from row `start` on */
        int64_t n = ROWS - start;
        memset(got, 0, sizeof got);
        qvk_contains_rows(off + start, chars, n, s, ls, got);
        for (int64_t r = 0; r < n; r++) {
          int64_t a = off[start + r], l = off[start + r + 1] - a;
          bool want = l >= ls && memmem(chars + a, (size_t)l, s, (size_t)ls) != NULL;
          bool have = (got[r >> 6] >> (r & 63)) & 1;
          if (want != have)
            fail_msg("trial %d needle '%s' view from %d: row %lld: got %d, want %d", trial, needles[ni], start,
                     (long long)r, have, want);
        }
      }
    }
  }
}

/* A match that ends exactly at the end of the data, one that starts in the
 * last byte of a value, and no data at all. */
static void test_edges(void **state) {
  (void)state;
  const int32_t off[] = {0, 2, 2, 5, 7};
  const uint8_t *chars = (const uint8_t *)"xaayxaxa"; /* "xa" "" "ayx" "ax" + spare */
  uint64_t got = 0;
  qvk_contains_rows(off, chars, 4, (const uint8_t *)"ax", 2, &got);
  assert_int_equal(got, 0x8); /* "xa"+"ayx" straddles, "ax" (row 3) at the end */
  got = 0;
  qvk_contains_rows(off, chars, 4, (const uint8_t *)"xa", 2, &got);
  assert_int_equal(got, 0x1); /* row 2 "ayx" ends in x, row 3 "ax": "xa" only across */
  const int32_t none[] = {0, 0, 0};
  got = 0;
  qvk_contains_rows(none, (const uint8_t *)"", 2, (const uint8_t *)"a", 1, &got);
  assert_int_equal(got, 0);
}

/* contains(c0, 'needle') and c0 LIKE '%needle%' over values with nulls,
 * on every row and through a selection (the per-row loop). */
static void test_through_filters(void **state) {
  (void)state;
  const tval v[] = {TS("needle"), TN(), TS("haystack needle"), TS(""), TS("nee"), TS("dle"), TN(), TS("xneedlex")};
  qv_array *a = t_arr("string", v, 8);
  qv_batch *b = t_batch(&a, 1);
  qv_expr *contains = t_call2(QV_OP_CONTAINS, "bool", t_col(b, 0), t_lit("string", TS("needle")));
  qv_expr *like = t_call2(QV_OP_LIKE, "bool", t_col(b, 0), t_lit("string", TS("%needle%")));
  t_filter(contains, b, NULL, "0,2,7");
  t_filter(like, b, NULL, "0,2,7");
  qv_selection some = QV_SELECTION_INIT;
  assert_int_equal(qv_selection_reserve(&some, 4), QV_OK);
  const uint32_t pick[] = {1, 2, 5, 7};
  memcpy(some.rows, pick, sizeof pick);
  some.count = 4;
  t_filter(contains, b, &some, "2,7");
  t_filter(like, b, &some, "2,7");
  qv_selection_reset(&some);
  qv_expr_destroy(contains);
  qv_expr_destroy(like);
  qv_batch_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_against_per_row),
      cmocka_unit_test(test_edges),
      cmocka_unit_test(test_through_filters),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
