/* Damaged index files: every byte of each file has a bit flipped in turn,
 * and the file is cut at many lengths.  Each time the index must either
 * fail with QV_ERR_CORRUPT (UNSUPPORTED for a damaged format version) naming the file and an offset, or (when the
 * damage lies in a chunk the query does not read) return exactly the
 * undamaged answer.  With checksums off (as the fuzz target runs) the
 * validation alone must keep every read in bounds: no crash, no hang.
 * The index API reports damage as errors; tests/scan/test_index_damage.c
 * checks that a scan over the same damage still answers (an index is
 * derived data) and says so.  Here: a handle remembers a damaged file,
 * and a tolerant one leaves it out of its statistics. */
#include <fcntl.h>
#include <unistd.h>

#include "index/index_int.h"
#include "index_test_util.h"
#include "storage/format.h"

static char *g_path;

typedef struct probe {
  const char *index;
  const char *filters[3];
} probe;

/* Queries that together read every chunk kind: nulls, pages or dictionary
 * and postings. */
static const probe probes[] = {
    {"i_idx", {"i > -3000000000", "i IS NULL", "i = 5"}},
    {"cat_idx", {"cat >= ''", "cat IS NOT NULL", "cat = 'c3'"}},
    {"s_idx", {"contains(s, 'abc')", "s LIKE '%bcd%'", "NOT contains(s, 'x\xc3\xa9')"}},
    {"tags_idx", {"array_has_any(tags, ['t0', 't1', 't2', 't3', 't4', 't5'])", "array_has(tags, 't1')", NULL}},
};

static char *file_of(const char *index);
static uint8_t *slurp(const char *path, long *n);

/* QV_INDEX_SEEDS=<dir>: the index files, each behind a 0 byte (checksums
 * on), as seeds of fuzz/fuzz_index.c. */
static void write_seeds(void) {
  const char *dir = getenv("QV_INDEX_SEEDS");
  if (!dir) return;
  static const char *const names[] = {"i_idx", "cat_idx", "s_idx", "tags_idx"};
  for (int k = 0; k < 4; k++) {
    char *path = file_of(names[k]), out[512];
    long n;
    uint8_t *b = slurp(path, &n);
    snprintf(out, sizeof out, "%s/seed-%s", dir, names[k]);
    FILE *f = fopen(out, "wb");
    assert_non_null(f);
    fputc(0, f);
    assert_int_equal(fwrite(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    free(b);
    free(path);
  }
}

static int setup(void **state) {
  (void)state;
  g_path = make_dir();
  write_random(g_path, 1500, 3, QV_WRITE_CREATE);
  create_index(g_path, "i", QV_INDEX_BTREE, NULL, 40);
  create_index(g_path, "cat", QV_INDEX_BITMAP, NULL, 4096);
  create_index(g_path, "s", QV_INDEX_NGRAM, NULL, 4096);
  create_index(g_path, "tags", QV_INDEX_LABEL_LIST, NULL, 4096);
  write_seeds();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  drop_dir(g_path);
  return 0;
}

/* Runs the probe's queries; QV_OK and the answers, or the first error. */
static qv_status run_probe(const probe *p, roaring_bitmap_t **answers, qv_error *err) {
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, NULL), QV_OK);
  qv_index *ix = open_named(ds, p->index);
  qv_status st = QV_OK;
  qv_index_stats stats;
  st = qv_index_stats_get(ix, &stats, err);
  for (int k = 0; k < 3 && p->filters[k] && st == QV_OK; k++) {
    qv_expr *e = bound(ds, p->filters[k]);
    qv_index_estimate est;
    bool exact;
    st = qv_index_estimate_rows(ix, e, &est, err);
    if (st == QV_OK) st = qv_index_query(ix, e, 0, answers[k], &exact, err);
    qv_expr_destroy(e);
  }
  qv_index_close(ix);
  qv_dataset_close(ds);
  return st;
}

static char *file_of(const char *index) {
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, NULL), QV_OK);
  char *out = NULL;
  for (int32_t i = 0; i < qv_dataset_num_indices(ds); i++) {
    qv_index_entry e;
    qv_dataset_index(ds, i, &e);
    if (strcmp(e.name, index) == 0) {
      size_t n = strlen(g_path) + strlen(e.files[0].path) + 2;
      out = malloc(n);
      snprintf(out, n, "%s/%s", g_path, e.files[0].path);
    }
  }
  qv_dataset_close(ds);
  assert_non_null(out);
  return out;
}

static uint8_t *slurp(const char *path, long *n) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  *n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)*n);
  assert_int_equal(fread(b, 1, (size_t)*n, f), (size_t)*n);
  fclose(f);
  return b;
}

static void put(const char *path, const uint8_t *b, long n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b, 1, (size_t)n, f), (size_t)n);
  fclose(f);
}

/* Damaged files qv_index_verify finds in the probe's index. */
static int32_t verify(const probe *p) {
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, NULL), QV_OK);
  qv_index *ix = open_named(ds, p->index);
  int32_t bad = -1;
  qv_error err;
  if (qv_index_verify(ix, &bad, &err) != QV_OK) fail_msg("verify: %s", err.message);
  qv_index_close(ix);
  qv_dataset_close(ds);
  return bad;
}

static void expect_same_or_corrupt(const probe *p, roaring_bitmap_t **base, const char *rel, const char *what,
                                   long at) {
  roaring_bitmap_t *got[3] = {roaring_bitmap_create(), roaring_bitmap_create(), roaring_bitmap_create()};
  qv_error err;
  qv_status st = run_probe(p, got, &err);
  if (st == QV_OK) {
    for (int k = 0; k < 3 && p->filters[k]; k++)
      if (!roaring_bitmap_equals(got[k], base[k]))
        fail_msg("%s: %s at %ld: `%s` answered wrongly instead of failing", p->index, what, at, p->filters[k]);
  } else {
    /* a damaged format version reads as a newer format */
    if (st != QV_ERR_CORRUPT && !(st == QV_ERR_UNSUPPORTED && at >= 4 && at < 8))
      fail_msg("%s: %s at %ld: status %d: %s", p->index, what, at, st, err.message);
    if (strncmp(err.message, rel, strlen(rel)) != 0 || !strstr(err.message, "offset"))
      fail_msg("%s: %s at %ld: message does not name the file and offset: %s", p->index, what, at, err.message);
  }
  for (int k = 0; k < 3; k++) roaring_bitmap_free(got[k]);
}

static void test_bit_flips_and_truncation(void **state) {
  (void)state;
  for (size_t pi = 0; pi < sizeof probes / sizeof probes[0]; pi++) {
    const probe *p = &probes[pi];
    roaring_bitmap_t *base[3] = {roaring_bitmap_create(), roaring_bitmap_create(), roaring_bitmap_create()};
    qv_error err;
    assert_int_equal(run_probe(p, base, &err), QV_OK);
    char *path = file_of(p->index);
    const char *rel = strstr(path, "_indices/");
    long n;
    uint8_t *orig = slurp(path, &n);
    uint8_t *copy = malloc((size_t)n);
    /* every byte of small files, 400 spread over larger ones, and
     * every byte of the last 256 (the footer and trailer) */
    long step = n > 400 ? n / 400 : 1;
    for (long at = 0; at < n; at += (at >= n - 256 ? 1 : step)) {
      memcpy(copy, orig, (size_t)n);
      copy[at] ^= (uint8_t)(1u << (at % 8));
      put(path, copy, n);
      expect_same_or_corrupt(p, base, rel, "bit flip", at);
      /* every byte is under a check: verify (what `quiver index list` runs) finds any flip */
      if (verify(p) != 1) fail_msg("%s: bit flip at %ld: qv_index_verify does not find it", p->index, at);
      qvs_verify_checksums = false; /* the structure checks alone */
      roaring_bitmap_t *junk[3] = {roaring_bitmap_create(), roaring_bitmap_create(), roaring_bitmap_create()};
      (void)run_probe(p, junk, &err);
      for (int k = 0; k < 3; k++) roaring_bitmap_free(junk[k]);
      qvs_verify_checksums = true;
    }
    for (long len = 0; len < n; len += (len < 64 || len > n - 64) ? 1 : n / 97 + 1) {
      put(path, orig, len);
      roaring_bitmap_t *got[3] = {roaring_bitmap_create(), roaring_bitmap_create(), roaring_bitmap_create()};
      qv_status st = run_probe(p, got, &err);
      if (st != QV_ERR_CORRUPT) fail_msg("%s cut to %ld bytes: status %d", p->index, len, st);
      assert_int_equal(verify(p), 1);
      for (int k = 0; k < 3; k++) roaring_bitmap_free(got[k]);
    }
    put(path, orig, n);
    for (int k = 0; k < 3; k++) roaring_bitmap_free(base[k]);
    free(orig);
    free(copy);
    free(path);
  }
}

static void test_missing_file(void **state) {
  (void)state;
  char *path = file_of("cat_idx");
  long n;
  uint8_t *orig = slurp(path, &n);
  assert_int_equal(unlink(path), 0);
  roaring_bitmap_t *got[3] = {roaring_bitmap_create(), roaring_bitmap_create(), roaring_bitmap_create()};
  qv_error err;
  assert_int_equal(run_probe(&probes[1], got, &err), QV_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, ".qvi: cannot open: No such file or directory"));
  {
    qv_dataset *ds;
    assert_int_equal(qv_dataset_open(g_path, 0, &ds, NULL), QV_OK);
    qv_index *ix = open_named(ds, "cat_idx");
    qv_index_stats stats;
    const char *first = NULL;
    assert_int_equal(qv_index_damaged(ix, &first), 0);
    assert_null(first);
    assert_int_equal(qv_index_stats_get(ix, &stats, &err), QV_ERR_NOT_FOUND);
    assert_int_equal(qv_index_damaged(ix, &first), 1);
    assert_string_equal(first, err.message);
    /* remembered: the file comes back, the handle does not read it again */
    put(path, orig, n);
    assert_int_equal(qv_index_stats_get(ix, &stats, &err), QV_ERR_NOT_FOUND);
    assert_string_equal(first, err.message);
    qv_index_set_tolerant(ix, true);
    assert_int_equal(qv_index_stats_get(ix, &stats, &err), QV_OK);
    assert_int_equal(stats.fragments, 0);
    qv_index_estimate est;
    qv_expr *e = bound(ds, "cat = 'c3'");
    assert_int_equal(qv_index_estimate_rows(ix, e, &est, &err), QV_OK);
    assert_int_equal(est.covered_rows, 0);
    bool exact;
    assert_int_equal(qv_index_query(ix, e, 0, got[0], &exact, &err), QV_ERR_NOT_FOUND);
    qv_expr_destroy(e);
    qv_index_close(ix);
    /* a fresh handle reads the restored file */
    ix = open_named(ds, "cat_idx");
    int32_t bad = -1;
    assert_int_equal(qv_index_verify(ix, &bad, &err), QV_OK);
    assert_int_equal(bad, 0);
    qv_index_close(ix);
    qv_dataset_close(ds);
  }
  put(path, orig, n);
  /* a valid file of another index in its place: the manifest pins size and footer */
  char *other = file_of("i_idx");
  long m;
  uint8_t *ob = slurp(other, &m);
  put(path, ob, m);
  assert_int_equal(run_probe(&probes[1], got, &err), QV_ERR_CORRUPT);
  put(path, orig, n);
  assert_int_equal(run_probe(&probes[1], got, &err), QV_OK);
  for (int k = 0; k < 3; k++) roaring_bitmap_free(got[k]);
  free(ob);
  free(other);
  free(orig);
  free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bit_flips_and_truncation),
      cmocka_unit_test(test_missing_file),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
