/* Scans with scalar indices return exactly the rows of scans without
 * them: on random data with nulls and edge values, over fragments the
 * indices cover and one appended after they were built, with deleted rows,
 * for conjuncts answered exactly, as supersets, combined with AND and OR,
 * negated, and skipped by the cost rule; with limits and offsets.  The
 * counters show that indices were used where they pay. */
#include "index/index_test_util.h"
#include "quiver/scan.h"

static char *g_path;

static int setup(void **state) {
  (void)state;
  g_path = make_dir();
  write_random(g_path, 6000, 99, QV_WRITE_CREATE);
  create_index(g_path, "i", QV_INDEX_BTREE, NULL, 64);
  create_index(g_path, "u", QV_INDEX_BITMAP, NULL, 4096);
  create_index(g_path, "s", QV_INDEX_NGRAM, NULL, 4096);
  create_index(g_path, "cat", QV_INDEX_BITMAP, NULL, 4096);
  create_index(g_path, "tags", QV_INDEX_LABEL_LIST, NULL, 4096);
  write_random(g_path, 1500, 100, QV_WRITE_APPEND); /* not covered */
  qv_error err;
  int64_t deleted;
  if (qv_dataset_delete_where(g_path, "i = 7 OR i = 11", &deleted, NULL, &err) != QV_OK) fail_msg("%s", err.message);
  assert_true(deleted > 0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  drop_dir(g_path);
  return 0;
}

static char *scan_text(const char *filter, bool use_index, int64_t limit, int64_t offset, qv_scan_counters *ctr) {
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  const char *cols[] = {"i", "s", "cat", "tags"};
  o.columns = cols;
  o.n_columns = 4;
  o.filter = filter;
  o.with_row_id = true;
  o.use_scalar_index = use_index;
  o.limit = limit;
  o.offset = offset;
  o.batch_size = 1000;
  qv_scanner *sc;
  qv_error err;
  if (qv_scanner_open(g_path, &o, &sc, &err) != QV_OK) fail_msg("%s: %s", filter, err.message);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  for (;;) {
    qv_batch *b;
    if (qv_scanner_next(sc, &b, &err) != QV_OK) fail_msg("%s: %s", filter, err.message);
    if (!b) break;
    for (int64_t r = 0; r < b->num_rows; r++) {
      for (int32_t c = 0; c < b->schema.n_fields; c++) {
        char cell[256];
        qv_array_format_value(b->columns[c], r, cell, sizeof cell);
        fprintf(f, "%s%s", c ? "|" : "", cell);
      }
      fputc('\n', f);
    }
    qv_batch_release(b);
  }
  fclose(f);
  if (ctr) qv_scanner_counters(sc, ctr);
  qv_scanner_destroy(sc);
  return text;
}

static void same_rows(const char *filter, int64_t limit, int64_t offset, bool want_index) {
  qv_scan_counters with, without;
  char *a = scan_text(filter, true, limit, offset, &with);
  char *b = scan_text(filter, false, limit, offset, &without);
  if (strcmp(a, b) != 0) fail_msg("%s: rows differ with and without indices", filter);
  assert_int_equal(without.index_rows, 0);
  if (want_index && with.index_rows == 0 && with.rows_returned > 0)
    fail_msg("%s: no index was used (%lld rows kept)", filter, (long long)with.index_rows);
  if (!want_index && with.index_rows != 0) fail_msg("%s: an index was used", filter);
  free(a);
  free(b);
}

static void test_same_rows(void **state) {
  (void)state;
  static const struct {
    const char *filter;
    bool index;
  } cases[] = {
      {"i = 5", true},
      {"i = 7", true}, /* every such row deleted */
      {"i IN (1, 2, 3, 2147483647)", true},
      {"i BETWEEN -3 AND 3", true},
      {"i >= -3 AND i <= 3", true}, /* half the rows each: one lookup of their intersection */
      {"i >= -3 AND cat = 'c3' AND i <= 3", true},
      {"i > 195 AND i > 190", true},
      {"i = 5 AND cat = 'c3'", true},
      {"i = 5 OR i = -5", true},
      {"i = 5 OR cat = 'c3'", false}, /* exact on both sides, but over 5% */
      {"(i = 5 OR i = 9) AND contains(s, 'abc')", true},
      {"i < -195 AND s LIKE '%bcd%'", true},
      {"i < -150 AND s LIKE '%bcd%'", false}, /* 12.5% of i, and bcd is common */
      {"i IS NULL AND u = 18446744073709551615", true},
      {"u = 3 OR u = 4", true},
      {"array_has(tags, 't1') AND i > 190", true},
      {"array_has_all(tags, ['t1', 't2', 't3'])", true},
      {"cat = 'c3'", false},  /* 12.5% of the rows: scanned */
      {"NOT (i = 5)", false}, /* almost every row */
      {"i + 0 = 5", false},   /* no index answers it */
      {"i = 5 AND i + 0 = 5", true},
      {"contains(s, 'zzabc') OR i = 3", false}, /* a superset side: OR needs exact sides */
      {"regexp_match(s, 'zzx\xc3\xa9')", true},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) same_rows(cases[k].filter, -1, 0, cases[k].index);
  same_rows("i BETWEEN 2 AND 9", 7, 3, true);
  same_rows("i BETWEEN 2 AND 9", 1000, 40, true);
  /* a superset re-checked on a projected column, cut by offset and limit */
  same_rows("i < -195 AND s LIKE '%bcd%'", 2, 1, true);
  same_rows("(i = 5 OR i = 9) AND contains(s, 'abc')", 3, 2, true);
  same_rows("(i = 5 OR i = 9) AND contains(s, 'abc')", 1000, 1, true);
}

/* Bytes a scan with the indices reads of column col, projecting cols. */
static int64_t bytes_of(const char *filter, const char **cols, int32_t n, int32_t col) {
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  o.columns = cols;
  o.n_columns = n;
  o.filter = filter;
  qv_scanner *sc;
  qv_error err;
  if (qv_scanner_open(g_path, &o, &sc, &err) != QV_OK) fail_msg("%s: %s", filter, err.message);
  qv_batch *b;
  int64_t rows = 0;
  while (qv_scanner_next(sc, &b, &err) == QV_OK && b) {
    rows += b->num_rows;
    qv_batch_release(b);
  }
  assert_true(rows > 0);
  qv_scan_counters c;
  qv_scanner_counters(sc, &c);
  qv_scanner_destroy(sc);
  return c.columns[col].bytes_read;
}

/* A column the refine step fetched for the index's candidates is not
 * fetched again for the output: showing it costs no more bytes. */
static void test_refined_column_read_once(void **state) {
  (void)state;
  const char *filter = "(i = 5 OR i = 9 OR i = 13) AND contains(s, 'b')";
  const char *with_s[] = {"i", "s"}, *without_s[] = {"i"};
  qv_dataset *ds;
  qv_error err;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, &err), QV_OK);
  int32_t col_s = qv_schema_find(qv_dataset_schema(ds), "s");
  qv_dataset_close(ds);
  assert_true(col_s >= 0);
  int64_t shown = bytes_of(filter, with_s, 2, col_s), hidden = bytes_of(filter, without_s, 1, col_s);
  assert_true(hidden > 0);
  assert_int_equal(shown, hidden);
}

static void test_counters_and_explain(void **state) {
  (void)state;
  qv_scan_counters c;
  char *t = scan_text("i = 5 AND cat = 'c3'", true, -1, 0, &c);
  free(t);
  /* the index kept the i = 5 rows of the covered fragments; only the
   * appended fragment and the refine (cat) were evaluated */
  assert_true(c.index_rows > 0 && c.index_rows < 100);
  assert_true(c.pages_index_skipped > 0);
  assert_true(c.rows_scanned < 1500 + 100);
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  o.filter = "i = 5 AND cat = 'c3' AND contains(s, 'abcd')";
  qv_scanner *sc;
  qv_error err;
  assert_int_equal(qv_scanner_open(g_path, &o, &sc, &err), QV_OK);
  char *ex = qv_scanner_explain(sc, false);
  assert_non_null(strstr(ex, "    index i_idx (btree) answers (i = 5): exact, estimate "));
  assert_non_null(strstr(ex, "    index cat_idx (bitmap) answers (cat = 'c3'): exact, estimate "));
  assert_non_null(strstr(ex, "-> not used: over 5% of the rows, scanned instead\n"));
  assert_non_null(strstr(ex, "    index s_idx (ngram) answers contains(s, 'abcd'): superset (re-checked)"));
  assert_non_null(strstr(ex, "    refine after the index lookup: (cat = 'c3') AND contains(s, 'abcd')\n"));
  qv_free(ex);
  qv_scanner_destroy(sc);
  o.use_scalar_index = false;
  assert_int_equal(qv_scanner_open(g_path, &o, &sc, &err), QV_OK);
  ex = qv_scanner_explain(sc, false);
  assert_non_null(strstr(ex, "    scalar indices: off (use_scalar_index is false)\n"));
  qv_free(ex);
  qv_scanner_destroy(sc);
}

/* The lookup's own cost counts: an IN of 100 ids spread over 300,000
 * rows touches 73 of the 74 BTREE pages of 4,096 entries (299,008 entries,
 * nearly every row), so the column is scanned; three ids read three pages
 * and use the index.  Both give the right rows. */
static void test_lookup_cost(void **state) {
  (void)state;
  char *path = make_dir();
  qv_schema s = QV_SCHEMA_INIT;
  add_col(&s, "id", "int64");
  qv_builder b;
  qv_error err;
  assert_int_equal(qv_builder_init(&b, &s.fields[0].type, &err), QV_OK);
  for (int64_t i = 0; i < 300000; i++) assert_int_equal(qv_builder_append_int(&b, i), QV_OK);
  qv_array *col;
  assert_int_equal(qv_builder_finish(&b, &col, &err), QV_OK);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&s, &col, 300000, &batch, &err), QV_OK);
  qv_batch_reader *r;
  assert_int_equal(qv_batch_reader_from_batches(&s, &batch, 1, &r, &err), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  wo.max_rows_per_file = 300000;
  assert_int_equal(qv_dataset_write(path, r, &wo, NULL, &err), QV_OK);
  qv_batch_reader_destroy(r);
  qv_batch_release(batch);
  qv_schema_reset(&s);
  create_index(path, "id", QV_INDEX_BTREE, NULL, 4096);
  char many[2048] = "id IN (";
  for (int k = 0; k < 100; k++) {
    size_t n = strlen(many);
    snprintf(many + n, sizeof many - n, "%s%d", k ? ", " : "", k * 3000);
  }
  strcat(many, ")");
  const char *filters[2] = {many, "id IN (5, 150000, 299999)"};
  const int64_t rows[2] = {100, 3};
  for (int f = 0; f < 2; f++) {
    qv_scan_options o = QV_SCAN_OPTIONS_INIT;
    o.filter = filters[f];
    qv_scanner *sc;
    assert_int_equal(qv_scanner_open(path, &o, &sc, &err), QV_OK);
    char *ex = qv_scanner_explain(sc, false);
    if (f == 0)
      assert_non_null(strstr(ex,
                             "exact, estimate 100 of 300000 rows -> not used: the lookup reads 299008 index entries "
                             "(over 25% of the rows), scanned instead\n"));
    else assert_non_null(strstr(ex, "exact, estimate 3 of 300000 rows\n"));
    qv_free(ex);
    int64_t n = 0;
    for (qv_batch *out; qv_scanner_next(sc, &out, &err) == QV_OK && out; qv_batch_release(out)) n += out->num_rows;
    assert_int_equal(n, rows[f]);
    qv_scan_counters c;
    qv_scanner_counters(sc, &c);
    assert_int_equal(c.rows_scanned, f == 0 ? 300000 : 0); /* scanned, or answered by the index alone */
    qv_scanner_destroy(sc);
  }
  drop_dir(path);
}

/* Writes rows [first, first + n) of `id` (= row number) and `s` ("row
 * <id>") to path as fragments of `per` rows, in the given mode. */
static void write_ids(const char *path, int64_t first, int64_t n, int64_t per, qv_write_mode mode) {
  qv_schema s = QV_SCHEMA_INIT;
  add_col(&s, "id", "int64");
  add_col(&s, "s", "string");
  qv_builder b[2];
  qv_error err;
  for (int c = 0; c < 2; c++) assert_int_equal(qv_builder_init(&b[c], &s.fields[c].type, &err), QV_OK);
  for (int64_t i = first; i < first + n; i++) {
    char text[32];
    snprintf(text, sizeof text, "row %lld", (long long)i);
    assert_int_equal(qv_builder_append_int(&b[0], i), QV_OK);
    assert_int_equal(qv_builder_append_cstr(&b[1], text), QV_OK);
  }
  qv_array *col[2];
  for (int c = 0; c < 2; c++) assert_int_equal(qv_builder_finish(&b[c], &col[c], &err), QV_OK);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&s, col, n, &batch, &err), QV_OK);
  qv_batch_reader *r;
  assert_int_equal(qv_batch_reader_from_batches(&s, &batch, 1, &r, &err), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  wo.max_rows_per_file = per;
  wo.mode = mode;
  assert_int_equal(qv_dataset_write(path, r, &wo, NULL, &err), QV_OK);
  qv_batch_reader_destroy(r);
  qv_batch_release(batch);
  qv_schema_reset(&s);
}

/* The ids a scan of path returns (as "a,b,c"), and its counters. */
static void ids_of(const char *path, const char *filter, bool use_index, char *out, size_t cap, qv_scan_counters *c) {
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  o.filter = filter;
  o.use_scalar_index = use_index;
  qv_scanner *sc;
  qv_error err;
  if (qv_scanner_open(path, &o, &sc, &err) != QV_OK) fail_msg("%s: %s", filter, err.message);
  out[0] = 0;
  for (;;) {
    qv_batch *b;
    if (qv_scanner_next(sc, &b, &err) != QV_OK) fail_msg("%s: %s", filter, err.message);
    if (!b) break;
    const int64_t *ids = qv_array_values(b->columns[0]);
    for (int64_t r = 0; r < b->num_rows; r++) {
      size_t len = strlen(out);
      snprintf(out + len, cap - len, "%s%lld", len ? "," : "", (long long)ids[r]);
    }
    qv_batch_release(b);
  }
  qv_scanner_counters(sc, c);
  qv_scanner_destroy(sc);
}

/* A fragment the indices keep no row of is not opened: a point lookup in
 * five indexed fragments reads one, a substring no row has (the NGRAM
 * index, a superset, has no candidate) none; deleted rows still count as
 * kept (the deletion files are read with the fragment); a fragment
 * appended after the indices (not covered) is read and filtered.  The
 * rows are those of a scan without indices, which reads every fragment. */
static void test_fragments_skipped(void **state) {
  (void)state;
  char *path = make_dir();
  write_ids(path, 0, 5000, 1000, QV_WRITE_CREATE);
  create_index(path, "id", QV_INDEX_BTREE, NULL, 4096);
  create_index(path, "s", QV_INDEX_NGRAM, NULL, 4096);
  qv_error err;
  if (qv_dataset_delete_where(path, "id = 3001", NULL, NULL, &err) != QV_OK) fail_msg("%s", err.message);
  static const struct {
    const char *filter, *rows;
    int64_t read;
  } cases[] = {
      {"id = 2500", "2500", 1},      {"id = 2500 OR id = 4999", "2500,4999", 2},
      {"id = 99999", "", 0},         {"id >= 999 AND id <= 1000", "999,1000", 2},
      {"contains(s, 'zzz')", "", 0}, {"contains(s, 'row 4321')", "4321", 1},
      {"id = 3001", "", 1},
  };
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) write_ids(path, 5000, 10, 1000, QV_WRITE_APPEND);
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
      char with[256], without[256];
      qv_scan_counters c, plain;
      ids_of(path, cases[k].filter, true, with, sizeof with, &c);
      ids_of(path, cases[k].filter, false, without, sizeof without, &plain);
      assert_string_equal(with, cases[k].rows);
      assert_string_equal(without, cases[k].rows);
      assert_int_equal(c.fragments, cases[k].read + pass);
      assert_int_equal(c.fragments_index_skipped, 5 - cases[k].read);
      assert_int_equal(plain.fragments, 5 + pass);
      assert_int_equal(plain.fragments_index_skipped, 0);
    }
  }
  drop_dir(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fragments_skipped),    cmocka_unit_test(test_same_rows),
      cmocka_unit_test(test_counters_and_explain), cmocka_unit_test(test_refined_column_read_once),
      cmocka_unit_test(test_lookup_cost),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
