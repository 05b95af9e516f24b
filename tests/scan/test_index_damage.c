/* Scans over damaged index files.  An index is derived data: every row is
 * still in the data files, so a scan whose index file is damaged (bits
 * flipped anywhere, cut at any length, a bad format version, deleted,
 * replaced by another index's file) must return exactly the undamaged
 * rows, filtering that fragment in full, and must say so: the counters
 * name the index, count the fragments and carry the first error, which
 * names the file.  The fallback is reported exactly when the index layer,
 * asked the same questions, finds damage the scan reads.  With checksums
 * off (as the fuzz targets run) nothing may crash.  A damaged data file
 * still fails the scan: that is real loss.  qv_index_verify finds the
 * damage and qv_index_rebuild repairs it. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "failing_alloc.h"
#include "index/index_test_util.h"
#include "quiver/scan.h"
#include "storage/format.h"

static char *g_path;

typedef struct probe {
  const char *index;
  const char *filters[3];
} probe;

/* Filters the plan answers through each index (the point lookups pay) or
 * only estimates with it (the wide ones are scanned instead). */
static const probe probes[] = {
    {"i_idx", {"i = 5", "i IS NULL", "i > -3000000000"}},
    {"cat_idx", {"cat = 'c9'", "cat IS NULL", "cat = 'c3'"}},
    {"s_idx", {"s LIKE '%zzx%'", "contains(s, 'abc')", "NOT contains(s, 'x\xc3\xa9')"}},
    {"tags_idx", {"array_has_all(tags, ['t1', 't2', 't3'])", "array_has(tags, 't1')", NULL}},
};

static int setup(void **state) {
  (void)state;
  g_path = make_dir();
  write_random(g_path, 1500, 3, QV_WRITE_CREATE);
  create_index(g_path, "i", QV_INDEX_BTREE, NULL, 40);
  create_index(g_path, "cat", QV_INDEX_BITMAP, NULL, 4096);
  create_index(g_path, "s", QV_INDEX_NGRAM, NULL, 4096);
  create_index(g_path, "tags", QV_INDEX_LABEL_LIST, NULL, 4096);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  drop_dir(g_path);
  return 0;
}

/* The file of index `index` for the fragment at position frag. */
static char *file_of(const char *path, const char *index, int32_t frag) {
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 0, &ds, NULL), QV_OK);
  char *out = NULL;
  qv_fragment_info fi;
  qv_dataset_fragment(ds, frag, &fi);
  for (int32_t i = 0; i < qv_dataset_num_indices(ds); i++) {
    qv_index_entry e;
    qv_dataset_index(ds, i, &e);
    for (int32_t k = 0; k < e.n_files && strcmp(e.name, index) == 0; k++) {
      if (e.files[k].fragment_id != fi.id) continue;
      size_t n = strlen(path) + strlen(e.files[k].path) + 2;
      out = malloc(n);
      snprintf(out, n, "%s/%s", path, e.files[k].path);
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
  uint8_t *b = malloc((size_t)(*n > 0 ? *n : 1));
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

/* ---- scans over a damaged index ------------------------------------------ */

/* The rows (ids and values of i, as text) a scan of path with filter
 * returns; its counters in *c, whether the plan uses an index in *used.
 * NULL with *st set when the scan fails. */
static char *scan_rows(const char *path, const char *filter, bool use_index, qv_scan_counters *c, bool *used,
                       qv_status *st, qv_error *err) {
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  const char *cols[] = {"i"};
  o.columns = cols;
  o.n_columns = 1;
  o.filter = filter;
  o.with_row_id = true;
  o.use_scalar_index = use_index;
  qv_scanner *sc;
  if ((*st = qv_scanner_open(path, &o, &sc, err)) != QV_OK) return NULL;
  if (used) {
    char *ex = qv_scanner_explain(sc, false);
    *used = strstr(ex, " answers ") && !strstr(ex, "not used");
    qv_free(ex);
  }
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  for (;;) {
    qv_batch *b;
    if ((*st = qv_scanner_next(sc, &b, err)) != QV_OK) break;
    if (!b) break;
    for (int64_t r = 0; r < b->num_rows; r++) {
      char a[64], id[64];
      qv_array_format_value(b->columns[0], r, a, sizeof a);
      qv_array_format_value(b->columns[1], r, id, sizeof id);
      fprintf(f, "%s|%s\n", id, a);
    }
    qv_batch_release(b);
  }
  fclose(f);
  qv_scanner_counters(sc, c);
  qv_scanner_destroy(sc);
  if (*st != QV_OK) {
    free(text);
    return NULL;
  }
  return text;
}

/* The undamaged rows of each probe filter, and whether its scan uses the index. */
typedef struct baseline {
  char *rows[3];
  bool used[3];
} baseline;

static void baseline_make(const probe *p, baseline *b) {
  for (int k = 0; k < 3 && p->filters[k]; k++) {
    qv_scan_counters c;
    qv_status st;
    qv_error err;
    b->rows[k] = scan_rows(g_path, p->filters[k], true, &c, &b->used[k], &st, &err);
    if (!b->rows[k]) fail_msg("%s: %s", p->filters[k], err.message);
    assert_int_equal(c.index_fallback_fragments, 0);
    char *plain = scan_rows(g_path, p->filters[k], false, &c, NULL, &st, &err);
    assert_string_equal(plain, b->rows[k]);
    free(plain);
  }
}

static void baseline_reset(baseline *b) {
  for (int k = 0; k < 3; k++) free(b->rows[k]);
}

/* What the index layer finds, each question asked of a fresh handle (a
 * handle remembers damage): the file's footer (open), and per filter the
 * estimate and the lookup. */
typedef struct findings {
  qv_status open, estimate[3], query[3];
} findings;

static void find_damage(const probe *p, findings *out) {
  memset(out, 0, sizeof *out);
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, NULL), QV_OK);
  qv_index *ix = open_named(ds, p->index);
  qv_index_stats stats;
  out->open = qv_index_stats_get(ix, &stats, NULL);
  qv_index_close(ix);
  for (int k = 0; k < 3 && p->filters[k] && out->open == QV_OK; k++) {
    qv_expr *e = bound(ds, p->filters[k]);
    qv_index_estimate est;
    bool exact;
    roaring_bitmap_t *r = roaring_bitmap_create();
    ix = open_named(ds, p->index);
    out->estimate[k] = qv_index_estimate_rows(ix, e, &est, NULL);
    qv_index_close(ix);
    ix = open_named(ds, p->index);
    out->query[k] = qv_index_query(ix, e, 0, r, &exact, NULL);
    qv_index_close(ix);
    roaring_bitmap_free(r);
    qv_expr_destroy(e);
  }
  qv_dataset_close(ds);
}

/* Each probe filter's scan returns the undamaged rows and reports the
 * fallback when (and only when) the index layer finds damage the scan
 * reads: the footer (every plan opens it), the estimate's chunks, or the
 * lookup's chunks when the plan uses the index.  why_part: a piece of the
 * expected first error ("offset", "cannot open"). */
static void expect_scan_falls_back(const probe *p, const baseline *b, const char *rel, const char *what, long at,
                                   const char *why_part) {
  findings fd;
  find_damage(p, &fd);
  for (int k = 0; k < 3 && p->filters[k]; k++) {
    qv_scan_counters c;
    qv_status st;
    qv_error err;
    char *rows = scan_rows(g_path, p->filters[k], true, &c, NULL, &st, &err);
    if (!rows) fail_msg("%s: %s at %ld: `%s`: the scan failed: %s", p->index, what, at, p->filters[k], err.message);
    if (strcmp(rows, b->rows[k]) != 0)
      fail_msg("%s: %s at %ld: `%s` answered wrongly over a damaged index", p->index, what, at, p->filters[k]);
    free(rows);
    bool found = fd.open != QV_OK || fd.estimate[k] != QV_OK || (fd.query[k] != QV_OK && b->used[k]);
    if (!found) {
      if (c.index_fallback_fragments != 0)
        fail_msg("%s: %s at %ld: `%s`: fallback reported (%s) where the index reads fine", p->index, what, at,
                 p->filters[k], c.index_fallbacks[0].error);
      continue;
    }
    if (c.index_fallback_fragments != 1 || c.n_index_fallbacks != 1 || c.index_fallbacks[0].fragments != 1)
      fail_msg("%s: %s at %ld: `%s`: %lld fallback fragments reported, expected 1", p->index, what, at, p->filters[k],
               (long long)c.index_fallback_fragments);
    assert_string_equal(c.index_fallbacks[0].index, p->index);
    const char *e = c.index_fallbacks[0].error;
    if (strncmp(e, rel, strlen(rel)) != 0 || !strstr(e, why_part))
      fail_msg("%s: %s at %ld: `%s`: the fallback's error does not name the file and %s: %s", p->index, what, at,
               p->filters[k], why_part, e);
  }
}

/* With checksums off a damaged index may answer wrongly, but a scan must
 * not crash or read out of bounds. */
static void scan_unchecked(const probe *p) {
  for (int k = 0; k < 3 && p->filters[k]; k++) {
    qv_scan_counters c;
    qv_status st;
    qv_error err;
    free(scan_rows(g_path, p->filters[k], true, &c, NULL, &st, &err));
  }
}

/* Every damage the index tests produce, at the scan level. */
static void test_bit_flips_and_truncation(void **state) {
  (void)state;
  for (size_t pi = 0; pi < sizeof probes / sizeof probes[0]; pi++) {
    const probe *p = &probes[pi];
    baseline bl;
    memset(&bl, 0, sizeof bl);
    baseline_make(p, &bl);
    if (!bl.used[0]) fail_msg("%s: the plan of `%s` does not use the index", p->index, p->filters[0]);
    char *path = file_of(g_path, p->index, 0);
    const char *rel = strstr(path, "_indices/");
    long n;
    uint8_t *orig = slurp(path, &n);
    uint8_t *copy = malloc((size_t)n);
    /* as tests/index/test_corruption.c: 400 bytes spread over the file,
     * every byte of the first 16 (header, format version) and of the
     * last 256 (footer and trailer) */
    long step = n > 400 ? n / 400 : 1;
    for (long at = 0; at < n; at += (at < 16 || at >= n - 256 ? 1 : step)) {
      memcpy(copy, orig, (size_t)n);
      copy[at] ^= (uint8_t)(1u << (at % 8));
      put(path, copy, n);
      expect_scan_falls_back(p, &bl, rel, "bit flip", at, "offset");
      qvs_verify_checksums = false; /* the structure checks alone */
      scan_unchecked(p);
      qvs_verify_checksums = true;
    }
    /* a newer format version */
    memcpy(copy, orig, (size_t)n);
    copy[4] = 2;
    put(path, copy, n);
    expect_scan_falls_back(p, &bl, rel, "format version 2", 4, "offset");
    for (long len = 0; len < n; len += (len < 64 || len > n - 64) ? 1 : n / 97 + 1) {
      put(path, orig, len);
      expect_scan_falls_back(p, &bl, rel, "cut", len, ""); /* "N bytes is too short" has none */
    }
    put(path, orig, n);
    baseline_reset(&bl);
    free(orig);
    free(copy);
    free(path);
  }
}

static void test_missing_and_replaced_file(void **state) {
  (void)state;
  char *path = file_of(g_path, "cat_idx", 0);
  const char *rel = strstr(path, "_indices/");
  baseline bl;
  memset(&bl, 0, sizeof bl);
  baseline_make(&probes[1], &bl);
  long n;
  uint8_t *orig = slurp(path, &n);
  assert_int_equal(unlink(path), 0);
  expect_scan_falls_back(&probes[1], &bl, rel, "deleted", 0, ".qvi: cannot open: No such file or directory");
  /* a valid file of another index in its place: the manifest pins size and footer */
  char *other = file_of(g_path, "i_idx", 0);
  long m;
  uint8_t *ob = slurp(other, &m);
  put(path, ob, m);
  expect_scan_falls_back(&probes[1], &bl, rel, "replaced", 0, "offset");
  put(path, orig, n);
  expect_scan_falls_back(&probes[1], &bl, rel, "restored", 0, "offset");
  baseline_reset(&bl);
  free(ob);
  free(other);
  free(orig);
  free(path);
}

/* Two indices damaged at once: each is reported, in index order. */
static void test_two_indices_damaged(void **state) {
  (void)state;
  const char *filter = "i = 5 AND cat = 'c9'";
  qv_scan_counters c;
  qv_status st;
  qv_error err;
  char *want = scan_rows(g_path, filter, false, &c, NULL, &st, &err);
  assert_non_null(want);
  char *pi = file_of(g_path, "i_idx", 0), *pc = file_of(g_path, "cat_idx", 0);
  long ni, nc;
  uint8_t *oi = slurp(pi, &ni), *oc = slurp(pc, &nc);
  put(pi, oi, ni - 3);
  assert_int_equal(unlink(pc), 0);
  char *got = scan_rows(g_path, filter, true, &c, NULL, &st, &err);
  if (!got) fail_msg("%s", err.message);
  assert_string_equal(got, want);
  assert_int_equal(c.index_fallback_fragments, 2);
  assert_int_equal(c.n_index_fallbacks, 2);
  assert_string_equal(c.index_fallbacks[0].index, "i_idx");
  assert_string_equal(c.index_fallbacks[1].index, "cat_idx");
  const char *rel = strstr(pi, "_indices/");
  assert_int_equal(strncmp(c.index_fallbacks[0].error, rel, strlen(rel)), 0);
  assert_non_null(strstr(c.index_fallbacks[1].error, ".qvi: cannot open: No such file or directory"));
  put(pi, oi, ni);
  put(pc, oc, nc);
  free(got);
  free(want);
  free(oi);
  free(oc);
  free(pi);
  free(pc);
}

/* Two fragments, the index file of the second damaged: the first is still
 * answered by the index, the second filtered in full; explain says so;
 * verify finds it, rebuild repairs it; a damaged data file still fails. */
static void test_one_fragment_of_two(void **state) {
  (void)state;
  char *dir = make_dir();
  write_random(dir, 1500, 7, QV_WRITE_CREATE);
  write_random(dir, 1500, 8, QV_WRITE_APPEND);
  create_index(dir, "i", QV_INDEX_BTREE, NULL, 64);
  const char *filter = "i = 5 OR i = -5";
  qv_scan_counters c;
  qv_status st;
  qv_error err;
  bool used;
  char *want = scan_rows(dir, filter, false, &c, NULL, &st, &err);
  assert_non_null(want);
  assert_true(strlen(want) > 0);
  char *path = file_of(dir, "i_idx", 1);
  const char *rel = strstr(path, "_indices/");
  long n;
  uint8_t *orig = slurp(path, &n);
  put(path, orig, n - 1);

  char *got = scan_rows(dir, filter, true, &c, &used, &st, &err);
  if (!got) fail_msg("%s", err.message);
  assert_string_equal(got, want);
  free(got);
  assert_true(used);
  assert_true(c.index_rows > 0); /* the first fragment's lookup */
  assert_int_equal(c.index_fallback_fragments, 1);
  assert_int_equal(c.n_index_fallbacks, 1);
  assert_string_equal(c.index_fallbacks[0].index, "i_idx");
  assert_int_equal(c.index_fallbacks[0].fragments, 1);
  assert_int_equal(strncmp(c.index_fallbacks[0].error, rel, strlen(rel)), 0);

  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  o.filter = filter;
  qv_scanner *sc;
  assert_int_equal(qv_scanner_open(dir, &o, &sc, &err), QV_OK);
  char *ex = qv_scanner_explain(sc, false);
  char line[512];
  snprintf(line, sizeof line, "    index i_idx unusable for 1 fragment(s), those filtered in full: %s: offset ", rel);
  if (!strstr(ex, line)) fail_msg("explain lacks `%s`:\n%s", line, ex);
  qv_free(ex);
  qv_batch *b;
  while (qv_scanner_next(sc, &b, &err) == QV_OK && b) qv_batch_release(b);
  ex = qv_scanner_explain(sc, true);
  assert_non_null(strstr(ex, "  index fallback: 1 fragment(s) filtered in full (index files unusable, see above)\n"));
  qv_free(ex);
  qv_scanner_destroy(sc);

  /* the index layer: verify counts the damaged file, rebuild rewrites it */
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(dir, 0, &ds, NULL), QV_OK);
  qv_index *ix = open_named(ds, "i_idx");
  int32_t bad = -1;
  const char *first;
  assert_int_equal(qv_index_verify(ix, &bad, &err), QV_OK);
  assert_int_equal(bad, 1);
  assert_int_equal(qv_index_damaged(ix, &first), 1);
  assert_int_equal(strncmp(first, rel, strlen(rel)), 0);
  qv_fragment_info f0, f1;
  qv_dataset_fragment(ds, 0, &f0);
  qv_dataset_fragment(ds, 1, &f1);
  assert_false(qv_index_fragment_damaged(ix, f0.id));
  assert_true(qv_index_fragment_damaged(ix, f1.id));
  qv_index_stats stats;
  assert_int_equal(qv_index_stats_get(ix, &stats, &err), QV_ERR_CORRUPT); /* strict by default */
  qv_index_set_tolerant(ix, true);
  assert_int_equal(qv_index_stats_get(ix, &stats, &err), QV_OK);
  assert_int_equal(stats.fragments, 1);
  qv_index_close(ix);
  qv_dataset_close(ds);

  int32_t rebuilt = -1;
  int64_t version = 0;
  if (qv_index_rebuild(dir, "i_idx", &rebuilt, &version, &err) != QV_OK) fail_msg("%s", err.message);
  assert_int_equal(rebuilt, 1);
  assert_true(version > 0);
  got = scan_rows(dir, filter, true, &c, NULL, &st, &err);
  assert_non_null(got);
  assert_string_equal(got, want);
  free(got);
  assert_int_equal(c.index_fallback_fragments, 0);
  assert_int_equal(qv_index_rebuild(dir, NULL, &rebuilt, &version, &err), QV_OK);
  assert_int_equal(rebuilt, 0);
  assert_int_equal(version, 0);
  assert_int_equal(qv_index_rebuild(dir, "nope", &rebuilt, &version, &err), QV_ERR_NOT_FOUND);
  /* the previous version still names the damaged file, and still scans */
  put(path, orig, n - 1);

  /* a damaged data file is real loss: the scan fails as before */
  assert_int_equal(qv_dataset_open(dir, 0, &ds, NULL), QV_OK);
  qv_dataset_fragment(ds, 1, &f1);
  size_t dn = strlen(dir) + strlen(f1.path) + 2;
  char *data = malloc(dn);
  snprintf(data, dn, "%s/%s", dir, f1.path);
  qv_dataset_close(ds);
  long dl;
  uint8_t *dorig = slurp(data, &dl);
  put(data, dorig, dl / 2);
  got = scan_rows(dir, filter, true, &c, NULL, &st, &err);
  assert_null(got);
  assert_int_equal(st, QV_ERR_CORRUPT);
  put(data, dorig, dl);
  free(dorig);
  free(data);
  free(orig);
  free(path);
  free(want);
  drop_dir(dir);
}

/* Running out of memory is not damage: with every allocation failing in
 * turn, a scan over intact indices either fails (QV_ERR_NOMEM) or returns
 * the right rows, and never reports an index fallback. */
static void test_out_of_memory_is_not_damage(void **state) {
  (void)state;
  const char *filter = "i = 5 AND cat = 'c9'";
  qv_scan_counters c;
  qv_status st;
  qv_error err;
  char *want = scan_rows(g_path, filter, false, &c, NULL, &st, &err);
  assert_non_null(want);
  int successes = 0, failures = 0;
  int threads_before = qv_set_threads(1); /* one thread: the n-th allocation is the same one every run */
  for (long n = 0; n < 100000 && successes < 3; n++) {
    failing_alloc_budget = n;
    qv_set_allocator(failing_alloc, NULL);
    char *got = scan_rows(g_path, filter, true, &c, NULL, &st, &err);
    qv_set_allocator(NULL, NULL);
    failing_alloc_budget = -1;
    if (st != QV_OK && st != QV_ERR_NOMEM) fail_msg("budget %ld: status %d: %s", n, st, err.message);
    if (c.index_fallback_fragments != 0)
      fail_msg("budget %ld: out of memory reported as a damaged index: %s", n, c.index_fallbacks[0].error);
    if (st == QV_OK) {
      assert_string_equal(got, want);
      successes++;
    } else {
      failures++;
    }
    free(got);
  }
  qv_set_threads(threads_before);
  assert_int_equal(successes, 3);
  assert_true(failures > 10);
  free(want);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bit_flips_and_truncation),    cmocka_unit_test(test_missing_and_replaced_file),
      cmocka_unit_test(test_two_indices_damaged),         cmocka_unit_test(test_one_fragment_of_two),
      cmocka_unit_test(test_out_of_memory_is_not_damage),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
