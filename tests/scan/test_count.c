/* qv_scanner_count: the number of rows a scan returns, counted without
 * materializing a projected column.  On random data with nulls in the
 * filter columns, scalar indices, a fragment appended after them and
 * deleted rows, every count equals the rows the same scan returns batch by
 * batch (pushdown on and off, indices on and off, one and two threads,
 * limits and offsets); a count without a filter opens no data file; an
 * empty projection returns batches of no columns whose rows add up to the
 * count. */
#include "index/index_test_util.h"
#include "quiver/scan.h"

static char *g_path;

static int setup(void **state) {
  (void)state;
  g_path = make_dir();
  write_random(g_path, 6000, 7, QV_WRITE_CREATE);
  create_index(g_path, "i", QV_INDEX_BTREE, NULL, 64);
  create_index(g_path, "cat", QV_INDEX_BITMAP, NULL, 4096);
  create_index(g_path, "s", QV_INDEX_NGRAM, NULL, 4096);
  write_random(g_path, 1500, 8, QV_WRITE_APPEND); /* not covered by the indices */
  qv_error err;
  int64_t deleted;
  if (qv_dataset_delete_where(g_path, "i = 7 OR i = 11 OR cat = 'c5' AND i < 0", &deleted, NULL, &err) != QV_OK)
    fail_msg("%s", err.message);
  assert_true(deleted > 0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  drop_dir(g_path);
  return 0;
}

static qv_scan_options options(const char *filter, bool pushdown, bool index, int64_t limit, int64_t offset) {
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  static const char *cols[] = {"i", "s", "tags"};
  o.columns = cols;
  o.n_columns = 3;
  o.filter = filter;
  o.predicate_pushdown = pushdown;
  o.use_scalar_index = index;
  o.limit = limit;
  o.offset = offset;
  o.batch_size = 700;
  return o;
}

/* The rows the scan returns through qv_scanner_next. */
static int64_t rows_returned(const qv_scan_options *o) {
  qv_scanner *sc;
  qv_error err;
  if (qv_scanner_open(g_path, o, &sc, &err) != QV_OK) fail_msg("%s: %s", o->filter, err.message);
  int64_t n = 0;
  for (;;) {
    qv_batch *b;
    if (qv_scanner_next(sc, &b, &err) != QV_OK) fail_msg("%s: %s", o->filter, err.message);
    if (!b) break;
    assert_int_equal(b->schema.n_fields, o->n_columns);
    n += b->num_rows;
    qv_batch_release(b);
  }
  qv_scanner_destroy(sc);
  return n;
}

static int64_t counted(const qv_scan_options *o, qv_scan_counters *ctr) {
  qv_scanner *sc;
  qv_error err;
  if (qv_scanner_open(g_path, o, &sc, &err) != QV_OK) fail_msg("%s: %s", o->filter, err.message);
  int64_t n = -1;
  if (qv_scanner_count(sc, &n, &err) != QV_OK) fail_msg("count %s: %s", o->filter, err.message);
  /* the count ends the scan */
  qv_batch *b;
  assert_int_equal(qv_scanner_next(sc, &b, &err), QV_OK);
  assert_null(b);
  if (ctr) qv_scanner_counters(sc, ctr);
  qv_scanner_destroy(sc);
  return n;
}

static const char *const filters[] = {
    NULL,
    "i > 0",
    "i IS NULL",
    "i IS NOT NULL",
    "i BETWEEN -5 AND 5",
    "i = 3",
    "cat = 'c3'",
    "cat = 'c3' AND i < 100",
    "cat IS NULL OR f > 0.5",
    "NOT (f < 0.25)",
    "contains(s, 'ab')",
    "i IN (1, 2, 3, 200, -200)",
    "u > 500 AND b",
    "i > 1000000",
};

static void test_counts_equal_scans(void **state) {
  (void)state;
  int before = qv_set_threads(2);
  for (int threads = 1; threads <= 2; threads++) {
    qv_set_threads(threads);
    for (size_t k = 0; k < sizeof filters / sizeof filters[0]; k++)
      for (int pd = 0; pd < 2; pd++)
        for (int ix = 0; ix < 2; ix++) {
          qv_scan_options o = options(filters[k], pd, ix, -1, 0);
          int64_t want = rows_returned(&o);
          qv_scan_counters ctr;
          int64_t got = counted(&o, &ctr);
          if (got != want)
            fail_msg("%s (pushdown %d, index %d, %d threads): count %lld, scan %lld", filters[k] ? filters[k] : "-", pd,
                     ix, threads, (long long)got, (long long)want);
          assert_int_equal(ctr.rows_returned, want);
          /* a count reads no projected column that is not a filter column */
          for (int32_t c = 0; c < ctr.n_columns; c++)
            if (!strcmp(ctr.columns[c].name, "tags")) assert_int_equal(ctr.columns[c].bytes_read, 0);
        }
  }
  qv_set_threads(before);
}

static void test_counts_with_limit_and_offset(void **state) {
  (void)state;
  static const int64_t limits[] = {-1, 0, 1, 699, 5000, 100000};
  static const int64_t offsets[] = {0, 1, 3000, 100000};
  for (size_t k = 0; k < sizeof filters / sizeof filters[0]; k++)
    for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++)
      for (size_t f = 0; f < sizeof offsets / sizeof offsets[0]; f++) {
        qv_scan_options o = options(filters[k], true, true, limits[l], offsets[f]);
        int64_t want = rows_returned(&o), got = counted(&o, NULL);
        if (got != want)
          fail_msg("%s limit %lld offset %lld: count %lld, scan %lld", filters[k] ? filters[k] : "-",
                   (long long)limits[l], (long long)offsets[f], (long long)got, (long long)want);
      }
}

/* Without a filter the manifest answers: live rows, no data file opened. */
static void test_count_without_filter_opens_nothing(void **state) {
  (void)state;
  qv_dataset *ds;
  qv_error err;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, &err), QV_OK);
  int64_t live = qv_dataset_count_rows(ds);
  qv_dataset_close(ds);
  assert_true(live < 7500);
  qv_scan_options o = options(NULL, true, true, -1, 0);
  assert_int_equal(rows_returned(&o), live);
  qv_scan_counters ctr;
  assert_int_equal(counted(&o, &ctr), live);
  assert_int_equal(ctr.fragments, 0);
  assert_int_equal(ctr.pages_total, 0);
  assert_int_equal(ctr.rows_scanned, 0);
  for (int32_t c = 0; c < ctr.n_columns; c++) assert_int_equal(ctr.columns[c].bytes_read, 0);
  /* an empty filter text is no filter */
  o.filter = "  ";
  assert_int_equal(counted(&o, &ctr), live);
  assert_int_equal(ctr.fragments, 0);
  /* an older version counts its own rows (nothing deleted in version 1) */
  o.dataset_version = 1;
  assert_int_equal(counted(&o, &ctr), 6000);
  assert_int_equal(ctr.fragments, 0);
}

/* A count after some batches counts the rest, the pending rows included. */
static void test_count_after_batches(void **state) {
  (void)state;
  for (size_t k = 0; k < sizeof filters / sizeof filters[0]; k++) {
    qv_scan_options o = options(filters[k], true, true, -1, 0);
    o.batch_size = 300;
    int64_t total = rows_returned(&o);
    qv_scanner *sc;
    qv_error err;
    assert_int_equal(qv_scanner_open(g_path, &o, &sc, &err), QV_OK);
    qv_batch *b;
    assert_int_equal(qv_scanner_next(sc, &b, &err), QV_OK);
    int64_t first = b ? b->num_rows : 0;
    qv_batch_release(b);
    int64_t rest = -1;
    assert_int_equal(qv_scanner_count(sc, &rest, &err), QV_OK);
    assert_int_equal(first + rest, total);
    qv_scanner_destroy(sc);
  }
}

/* An empty projection: batches without columns, their rows the count. */
static void test_empty_projection(void **state) {
  (void)state;
  for (size_t k = 0; k < sizeof filters / sizeof filters[0]; k++) {
    qv_scan_options o = options(filters[k], true, true, -1, 0);
    int64_t want = rows_returned(&o);
    static const char *none[] = {NULL};
    o.columns = none;
    o.n_columns = 0;
    assert_int_equal(rows_returned(&o), want);
    assert_int_equal(counted(&o, NULL), want);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_counts_equal_scans),
      cmocka_unit_test(test_counts_with_limit_and_offset),
      cmocka_unit_test(test_count_without_filter_opens_nothing),
      cmocka_unit_test(test_count_after_batches),
      cmocka_unit_test(test_empty_projection),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
