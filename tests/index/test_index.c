/* Every index type against a brute-force evaluation of the same rows:
 * random data with nulls, NaN, signed zeros, integer extremes, LIKE
 * wildcards inside values, empty strings and lists, null list elements.
 * Exact answers must equal the evaluator's rows; superset answers must
 * contain them; conjuncts an index cannot answer must say so.  Also: the
 * estimates, versioning (append, optimize, delete, overwrite, drop). */
#include "index_test_util.h"

typedef struct tcase {
  const char *filter;
  qv_index_answer want; /* QV_INDEX_NO: the index must decline */
} tcase;

static char *g_path;
static int64_t g_rows = 5000;

static int setup(void **state) {
  (void)state;
  g_path = make_dir();
  write_random(g_path, g_rows, 42, QV_WRITE_CREATE);
  create_index(g_path, "i", QV_INDEX_BTREE, "i_btree", 64);
  create_index(g_path, "i", QV_INDEX_BITMAP, "i_bitmap", 0 + 4096);
  create_index(g_path, "u", QV_INDEX_BTREE, "u_btree", 100);
  create_index(g_path, "f", QV_INDEX_BTREE, "f_btree", 50);
  create_index(g_path, "f32", QV_INDEX_BITMAP, "f32_bitmap", 4096);
  create_index(g_path, "s", QV_INDEX_BTREE, "s_btree", 33);
  create_index(g_path, "s", QV_INDEX_NGRAM, "s_ngram", 4096);
  create_index(g_path, "cat", QV_INDEX_BITMAP, NULL, 4096);
  create_index(g_path, "b", QV_INDEX_BITMAP, "b_bitmap", 4096);
  create_index(g_path, "tags", QV_INDEX_LABEL_LIST, NULL, 4096);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  drop_dir(g_path);
  return 0;
}

/* Checks every case against every fragment of ds. */
static void check_cases(const qv_dataset *ds, const char *index, const tcase *cases, size_t n) {
  qv_index *ix = open_named(ds, index);
  qv_error err;
  roaring_bitmap_t *got = roaring_bitmap_create();
  for (size_t k = 0; k < n; k++) {
    qv_expr *e = bound(ds, cases[k].filter);
    qv_index_estimate est;
    if (qv_index_estimate_rows(ix, e, &est, &err) != QV_OK) fail_msg("%s: %s", cases[k].filter, err.message);
    if (est.answer != cases[k].want)
      fail_msg("%s on %s: answer %d, expected %d", cases[k].filter, index, est.answer, cases[k].want);
    int64_t truth = 0;
    for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
      qv_fragment_info fi;
      qv_dataset_fragment(ds, f, &fi);
      roaring_bitmap_t *want = brute(ds, f, e);
      truth += (int64_t)roaring_bitmap_get_cardinality(want);
      bool exact = false;
      qv_status st = qv_index_query(ix, e, fi.id, got, &exact, &err);
      if (cases[k].want == QV_INDEX_NO) {
        assert_int_equal(st, QV_ERR_INVALID);
        roaring_bitmap_free(want);
        continue;
      }
      if (st != QV_OK) fail_msg("%s: %s", cases[k].filter, err.message);
      assert_int_equal(exact, cases[k].want == QV_INDEX_EXACT);
      bool ok = exact ? roaring_bitmap_equals(got, want) : roaring_bitmap_is_subset(want, got);
      if (!ok)
        fail_msg("%s on %s, fragment %lld: index %llu rows, evaluator %llu rows", cases[k].filter, index,
                 (long long)fi.id, (unsigned long long)roaring_bitmap_get_cardinality(got),
                 (unsigned long long)roaring_bitmap_get_cardinality(want));
      roaring_bitmap_free(want);
    }
    /* estimates: within the covered rows; posting counts are exact for
     * one value, an upper bound for a union (array_has_all multiplies
     * fractions, so it may fall below; estimates of BTREE ranges are
     * checked in test_stats) */
    if (cases[k].want != QV_INDEX_NO) {
      assert_true(est.rows >= 0 && est.rows <= est.covered_rows);
      if (cases[k].want == QV_INDEX_EXACT && strchr(index, '_') && strstr(index, "btree") == NULL &&
          strstr(cases[k].filter, "NOT") == NULL && !strstr(cases[k].filter, "has_all") && est.rows < truth)
        fail_msg("%s on %s: estimate %lld is below the true count %lld", cases[k].filter, index, (long long)est.rows,
                 (long long)truth);
    }
    qv_expr_destroy(e);
  }
  roaring_bitmap_free(got);
  qv_index_close(ix);
}

#define CHECK(ds, index, cases) check_cases(ds, index, cases, sizeof cases / sizeof cases[0])

static const tcase int_cases[] = {
    {"i = 5", QV_INDEX_EXACT},
    {"i = -200", QV_INDEX_EXACT},
    {"i != 5", QV_INDEX_EXACT},
    {"i < 0", QV_INDEX_EXACT},
    {"i <= -3", QV_INDEX_EXACT},
    {"i > 100", QV_INDEX_EXACT},
    {"5 < i", QV_INDEX_EXACT},
    {"i >= 2147483647", QV_INDEX_EXACT},
    {"i <= -2147483648", QV_INDEX_EXACT},
    {"i = 3000000000", QV_INDEX_EXACT},
    {"i > -3000000000", QV_INDEX_EXACT},
    {"i BETWEEN -10 AND 10", QV_INDEX_EXACT},
    {"i BETWEEN 10 AND -10", QV_INDEX_EXACT},
    {"i IN (1, 2, 3, 99999999999)", QV_INDEX_EXACT},
    {"i IN (1, NULL)", QV_INDEX_EXACT},
    {"i IN (7, 3, 7, 3, -200)", QV_INDEX_EXACT},
    {"i IS NULL", QV_INDEX_EXACT},
    {"i IS NOT NULL", QV_INDEX_EXACT},
    {"NOT (i = 5)", QV_INDEX_EXACT},
    {"NOT (i < 3)", QV_INDEX_EXACT},
    {"NOT (i IS NULL)", QV_INDEX_EXACT},
    {"NOT (i IN (1, 2))", QV_INDEX_EXACT},
    {"NOT (i IN (1, NULL))", QV_INDEX_NO},    /* NULL where i is not 1: not "the other rows" */
    {"i > 3 AND i < 10", QV_INDEX_EXACT},     /* one range: the intersection */
    {"i >= 10 AND i <= -10", QV_INDEX_EXACT}, /* empty */
    {"(i >= -10 AND i < 0) AND i IN (-5, -3, 0, 7)", QV_INDEX_EXACT},
    {"NOT (i >= -10 AND i <= 10)", QV_INDEX_EXACT},
    {"i IN (1, 2, NULL) AND i > 1", QV_INDEX_EXACT},
    {"NOT (i IN (1, 2, NULL) AND i > 1)", QV_INDEX_NO},
    {"i > 3 AND i != 5", QV_INDEX_NO}, /* a negated side */
    {"i > 3 AND i IS NOT NULL", QV_INDEX_NO},
    {"i > 3 AND u < 10", QV_INDEX_NO},
    {"i + 1 = 5", QV_INDEX_NO},
    {"i = u", QV_INDEX_NO},
    {"cat = 'c1'", QV_INDEX_NO},
};

static void test_btree_int(void **state) {
  (void)state;
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, NULL), QV_OK);
  CHECK(ds, "i_btree", int_cases);
  qv_dataset_close(ds);
}

static void test_bitmap_int(void **state) {
  (void)state;
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, NULL), QV_OK);
  CHECK(ds, "i_bitmap", int_cases);
  qv_dataset_close(ds);
}

static void test_btree_uint_float(void **state) {
  (void)state;
  static const tcase u_cases[] = {
      {"u > 9223372036854775807", QV_INDEX_EXACT},
      {"u = 18446744073709551615", QV_INDEX_EXACT},
      {"u < 10", QV_INDEX_EXACT},
      {"u >= -1", QV_INDEX_EXACT},
      {"u IN (0, 5, 9223372036854775808)", QV_INDEX_EXACT},
  };
  /* Lance compares floats in total order: -0.0 < 0.0, NaN greatest. */
  static const tcase f_cases[] = {
      {"f = 0.0", QV_INDEX_EXACT},
      {"f = -0.0", QV_INDEX_EXACT},
      {"f > 0.5", QV_INDEX_EXACT},
      {"f < 0", QV_INDEX_EXACT},
      {"f >= 1", QV_INDEX_EXACT},
      {"f IS NULL", QV_INDEX_EXACT},
      {"f BETWEEN -0.25 AND 0.25", QV_INDEX_EXACT},
      {"f IN (0.25, 0.5, 1)", QV_INDEX_EXACT},
      {"NOT (f > 0.5)", QV_INDEX_EXACT},
      {"isnan(f)", QV_INDEX_NO},
  };
  static const tcase f32_cases[] = {
      {"f32 = 1.5", QV_INDEX_EXACT},
      {"f32 > 0.1", QV_INDEX_EXACT},
      {"f32 < -4.5", QV_INDEX_EXACT},
      {"f32 IS NOT NULL", QV_INDEX_EXACT},
  };
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, NULL), QV_OK);
  CHECK(ds, "u_btree", u_cases);
  CHECK(ds, "f_btree", f_cases);
  CHECK(ds, "f32_bitmap", f32_cases);
  qv_dataset_close(ds);
}

static const tcase str_cases[] = {
    {"s = 'abc'", QV_INDEX_EXACT},
    {"s = ''", QV_INDEX_EXACT},
    {"s > 'c'", QV_INDEX_EXACT},
    {"s <= 'ab'", QV_INDEX_EXACT},
    {"starts_with(s, 'ab')", QV_INDEX_EXACT},
    {"starts_with(s, '')", QV_INDEX_EXACT},
    {"starts_with(s, '\xc3\xa9')", QV_INDEX_EXACT},
    {"s LIKE 'ab%'", QV_INDEX_EXACT},
    {"s LIKE 'abc'", QV_INDEX_EXACT},
    {"s LIKE 'a\\%%'", QV_INDEX_EXACT},
    {"s LIKE 'ab_'", QV_INDEX_SUPERSET},
    {"s LIKE 'ab%c'", QV_INDEX_SUPERSET},
    {"s LIKE '%ab'", QV_INDEX_NO},
    {"s ILIKE 'ab%'", QV_INDEX_NO},
    {"s IN ('abc', 'x', 'zzzz')", QV_INDEX_EXACT},
    {"NOT starts_with(s, 'ab')", QV_INDEX_EXACT},
    {"NOT (s LIKE 'ab%c')", QV_INDEX_NO},
    {"lower(s) = 'abc'", QV_INDEX_NO},
};

static void test_btree_string(void **state) {
  (void)state;
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, NULL), QV_OK);
  CHECK(ds, "s_btree", str_cases);
  qv_dataset_close(ds);
}

static void test_bitmap_string_bool(void **state) {
  (void)state;
  static const tcase cat_cases[] = {
      {"cat = 'c3'", QV_INDEX_EXACT},       {"cat IN ('c1', 'c5', 'nope')", QV_INDEX_EXACT},
      {"cat != 'c2'", QV_INDEX_EXACT},      {"cat IS NULL", QV_INDEX_EXACT},
      {"cat > 'c5'", QV_INDEX_EXACT},       {"starts_with(cat, 'c1')", QV_INDEX_EXACT},
      {"NOT (cat = 'c3')", QV_INDEX_EXACT}, {"cat LIKE 'c%'", QV_INDEX_EXACT},
  };
  static const tcase b_cases[] = {
      {"b = true", QV_INDEX_EXACT},
      {"b = false", QV_INDEX_EXACT},
      {"b IS NULL", QV_INDEX_EXACT},
      {"NOT (b = true)", QV_INDEX_EXACT},
      {"b", QV_INDEX_NO},
  };
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, NULL), QV_OK);
  CHECK(ds, "cat_idx", cat_cases);
  CHECK(ds, "b_bitmap", b_cases);
  qv_dataset_close(ds);
}

static void test_ngram(void **state) {
  (void)state;
  static const tcase cases[] = {
      {"contains(s, 'abc')", QV_INDEX_EXACT}, /* one trigram: its postings are the answer */
      {"contains(s, 'bcda')", QV_INDEX_SUPERSET},
      {"contains(s, 'ab')", QV_INDEX_NO},
      {"contains(s, '\xc3\xa9x')", QV_INDEX_EXACT},
      {"s LIKE '%bcd%'", QV_INDEX_SUPERSET},
      {"s LIKE '%bc%dab%'", QV_INDEX_SUPERSET},
      {"s LIKE '%_%'", QV_INDEX_NO},
      {"s LIKE '%a\\%b%'", QV_INDEX_SUPERSET},
      {"regexp_match(s, 'abc+d')", QV_INDEX_SUPERSET},
      {"regexp_match(s, 'ab+cd')", QV_INDEX_NO}, /* runs "ab" and "cd": no trigram */
      {"regexp_match(s, 'abcd?')", QV_INDEX_SUPERSET},
      {"regexp_match(s, 'x[ab]cab')", QV_INDEX_SUPERSET},
      {"regexp_match(s, 'a\\.bc')", QV_INDEX_SUPERSET}, /* an escaped '.' is literal */
      {"regexp_match(s, 'zzab|abc')", QV_INDEX_NO},
      {"regexp_match(s, '(?i)abc')", QV_INDEX_NO},
      {"regexp_match(s, 'abc', 'i')", QV_INDEX_NO},
      {"starts_with(s, 'abcd')", QV_INDEX_SUPERSET},
      {"NOT contains(s, 'abc')", QV_INDEX_EXACT},
      {"NOT contains(s, 'abcd')", QV_INDEX_NO},
      {"s = 'abc'", QV_INDEX_NO},
  };
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, NULL), QV_OK);
  CHECK(ds, "s_ngram", cases);
  qv_dataset_close(ds);
}

static void test_label_list(void **state) {
  (void)state;
  static const tcase cases[] = {
      {"array_has(tags, 't1')", QV_INDEX_EXACT},
      {"array_has(tags, 'nope')", QV_INDEX_EXACT},
      {"array_has_any(tags, ['t1', 't2'])", QV_INDEX_EXACT},
      {"array_has_all(tags, ['t1', 't2'])", QV_INDEX_EXACT},
      {"array_has_all(tags, ['t3', NULL])", QV_INDEX_EXACT},
      {"array_has_any(tags, ['t3', NULL])", QV_INDEX_EXACT},
      {"NOT array_has(tags, 't3')", QV_INDEX_EXACT},
      {"tags IS NULL", QV_INDEX_NO},
      {"array_length(tags) = 2", QV_INDEX_NO},
  };
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, NULL), QV_OK);
  CHECK(ds, "tags_idx", cases);
  qv_dataset_close(ds);
}

/* A point or narrow range lookup reads a page or two of one BTREE file,
 * not the file: count the chunks read. */
static void test_btree_reads_few_pages(void **state) {
  (void)state;
  qv_dataset *ds;
  qv_error err;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, NULL), QV_OK);
  qv_index *ix = open_named(ds, "i_btree");
  qv_index_stats st;
  assert_int_equal(qv_index_stats_get(ix, &st, &err), QV_OK);
  qv_io_counters io;
  qv_index_counters(ix, &io);
  assert_int_equal(io.pages_read, 0); /* footers only so far */
  roaring_bitmap_t *got = roaring_bitmap_create();
  bool exact;
  static const char *const filters[] = {"i = 17", "i BETWEEN 17 AND 18", "i = 2147483647"};
  for (size_t k = 0; k < 3; k++) {
    qv_expr *e = bound(ds, filters[k]);
    qv_io_counters before, after;
    qv_index_counters(ix, &before);
    assert_int_equal(qv_index_query(ix, e, 0, got, &exact, &err), QV_OK);
    qv_index_counters(ix, &after);
    int64_t pages = after.pages_read - before.pages_read;
    if (pages < 1 || pages > 2)
      fail_msg("%s read %lld pages of a file of %lld entries in pages of 64", filters[k], (long long)pages,
               (long long)(st.entries / 3));
    qv_expr_destroy(e);
  }
  roaring_bitmap_free(got);
  qv_index_close(ix);
  qv_dataset_close(ds);
}

static void test_stats(void **state) {
  (void)state;
  qv_dataset *ds;
  qv_error err;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, NULL), QV_OK);
  qv_index *ix = open_named(ds, "cat_idx");
  qv_index_stats st;
  assert_int_equal(qv_index_stats_get(ix, &st, &err), QV_OK);
  assert_int_equal(st.fragments, 3);
  assert_int_equal(st.rows, g_rows);
  assert_int_equal(st.distinct, 8 * 3); /* c0..c7 in each of 3 files */
  assert_int_equal(st.entries + st.null_count, g_rows);
  /* one value, IN over distinct values, nulls: counts are exact */
  static const char *const exact_est[] = {"cat = 'c3'", "cat IN ('c1', 'c5')", "cat IS NULL", "cat IS NOT NULL",
                                          "NOT (cat = 'c3')"};
  for (size_t k = 0; k < sizeof exact_est / sizeof exact_est[0]; k++) {
    qv_expr *e = bound(ds, exact_est[k]);
    qv_index_estimate est;
    assert_int_equal(qv_index_estimate_rows(ix, e, &est, &err), QV_OK);
    int64_t truth = 0;
    for (int32_t f = 0; f < 3; f++) {
      roaring_bitmap_t *w = brute(ds, f, e);
      truth += (int64_t)roaring_bitmap_get_cardinality(w);
      roaring_bitmap_free(w);
    }
    if (est.rows != truth)
      fail_msg("%s: estimate %lld, true %lld", exact_est[k], (long long)est.rows, (long long)truth);
    assert_int_equal(est.covered_rows, g_rows);
    qv_expr_destroy(e);
  }
  qv_index_close(ix);
  ix = open_named(ds, "i_btree");
  assert_int_equal(qv_index_stats_get(ix, &st, &err), QV_OK);
  assert_int_equal(st.entries + st.null_count, g_rows);
  assert_true(st.distinct > 3 * 300 && st.distinct <= 3 * 405);
  /* a range over the page lookup: within a page per bound of the truth */
  qv_expr *e = bound(ds, "i < 0");
  qv_index_estimate est;
  assert_int_equal(qv_index_estimate_rows(ix, e, &est, &err), QV_OK);
  int64_t truth = 0;
  for (int32_t f = 0; f < 3; f++) {
    roaring_bitmap_t *w = brute(ds, f, e);
    truth += (int64_t)roaring_bitmap_get_cardinality(w);
    roaring_bitmap_free(w);
  }
  assert_true(llabs(est.rows - truth) <= 3 * 64);
  qv_expr_destroy(e);
  qv_index_close(ix);
  qv_dataset_close(ds);
}

/* Appended fragments are uncovered until optimize; deletes keep indices
 * (minus gone fragments); overwrite drops them; drop keeps older versions'. */
static void test_versions(void **state) {
  (void)state;
  char *path = make_dir();
  qv_error err;
  write_random(path, 3000, 7, QV_WRITE_CREATE);
  create_index(path, "i", QV_INDEX_BTREE, NULL, 64);
  int64_t v_indexed = 2;
  write_random(path, 1500, 8, QV_WRITE_APPEND);
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 0, &ds, NULL), QV_OK);
  assert_int_equal(qv_dataset_num_fragments(ds), 3);
  qv_index *ix = open_named(ds, "i_idx");
  assert_true(qv_index_covers(ix, 0) && qv_index_covers(ix, 1) && !qv_index_covers(ix, 2));
  qv_expr *e = bound(ds, "i = 7");
  roaring_bitmap_t *got = roaring_bitmap_create();
  bool exact;
  assert_int_equal(qv_index_query(ix, e, 2, got, &exact, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, "index `i_idx` does not cover fragment 2");
  qv_expr_destroy(e);
  qv_index_close(ix);
  qv_dataset_close(ds);

  int64_t v = -1;
  assert_int_equal(qv_index_optimize(path, NULL, &v, &err), QV_OK);
  assert_int_equal(v, 4);
  assert_int_equal(qv_index_optimize(path, "i_idx", &v, &err), QV_OK);
  assert_int_equal(v, 0);
  assert_int_equal(qv_index_optimize(path, "nope", &v, &err), QV_ERR_NOT_FOUND);
  assert_int_equal(qv_dataset_open(path, 0, &ds, NULL), QV_OK);
  ix = open_named(ds, "i_idx");
  assert_true(qv_index_covers(ix, 2));
  e = bound(ds, "i BETWEEN -5 AND 5");
  for (int32_t f = 0; f < 3; f++) {
    roaring_bitmap_t *want = brute(ds, f, e);
    assert_int_equal(qv_index_query(ix, e, f, got, &exact, &err), QV_OK);
    assert_true(exact && roaring_bitmap_equals(got, want));
    roaring_bitmap_free(want);
  }
  qv_expr_destroy(e);
  qv_index_close(ix);

  /* delete every row of fragment 1: its index file leaves the manifest */
  uint8_t *all = calloc(1, 2000 / 8 + 1);
  memset(all, 0xFF, 1500 / 8 + 1);
  qv_fragment_info fi;
  qv_dataset_fragment(ds, 1, &fi);
  assert_int_equal(fi.num_rows, 1000);
  memset(all, 0, 2000 / 8 + 1);
  memset(all, 0xFF, 1000 / 8);
  const uint8_t *dels[3] = {NULL, all, NULL};
  assert_int_equal(qv_dataset_delete_rows(ds, dels, &v, &err), QV_OK);
  free(all);
  qv_dataset_close(ds);
  assert_int_equal(qv_dataset_open(path, 0, &ds, NULL), QV_OK);
  assert_int_equal(qv_dataset_num_fragments(ds), 2);
  qv_index_entry ent;
  qv_dataset_index(ds, 0, &ent);
  assert_int_equal(ent.n_files, 2);
  assert_int_equal(ent.files[0].fragment_id, 0);
  assert_int_equal(ent.files[1].fragment_id, 2);
  qv_dataset_close(ds);

  /* drop: gone from the latest, still in the version it was built at */
  assert_int_equal(qv_index_drop(path, "i_idx", &v, &err), QV_OK);
  assert_int_equal(qv_index_drop(path, "i_idx", &v, &err), QV_ERR_NOT_FOUND);
  assert_string_equal(strstr(err.message, "no index"), "no index named `i_idx`");
  assert_int_equal(qv_dataset_open(path, 0, &ds, NULL), QV_OK);
  assert_int_equal(qv_dataset_num_indices(ds), 0);
  qv_dataset_close(ds);
  assert_int_equal(qv_dataset_open(path, v_indexed, &ds, NULL), QV_OK);
  assert_int_equal(qv_dataset_num_indices(ds), 1);
  ix = open_named(ds, "i_idx");
  e = bound(ds, "i = 7");
  assert_int_equal(qv_index_query(ix, e, 0, got, &exact, &err), QV_OK);
  qv_expr_destroy(e);
  qv_index_close(ix);
  qv_dataset_close(ds);

  /* overwrite starts without indices */
  create_index(path, "cat", QV_INDEX_BITMAP, NULL, 4096);
  write_random(path, 100, 9, QV_WRITE_OVERWRITE);
  assert_int_equal(qv_dataset_open(path, 0, &ds, NULL), QV_OK);
  assert_int_equal(qv_dataset_num_indices(ds), 0);
  qv_dataset_close(ds);
  roaring_bitmap_free(got);
  drop_dir(path);
}

static void test_create_errors(void **state) {
  (void)state;
  qv_error err;
  qv_index_options o = QV_INDEX_OPTIONS_INIT;
  assert_int_equal(qv_index_create(g_path, "tags", QV_INDEX_BTREE, NULL, NULL, &err), QV_ERR_TYPE);
  assert_string_equal(strstr(err.message, "column"), "column `tags` (list<string>) cannot have an index of type btree");
  assert_int_equal(qv_index_create(g_path, "nope", QV_INDEX_BTREE, NULL, NULL, &err), QV_ERR_NOT_FOUND);
  assert_int_equal(qv_index_create(g_path, "cat", QV_INDEX_BITMAP, NULL, NULL, &err), QV_ERR_EXISTS);
  o.name = "bad name";
  assert_int_equal(qv_index_create(g_path, "cat", QV_INDEX_BITMAP, &o, NULL, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, "index name \"bad name\" is not 1..64 of [A-Za-z0-9_.-]");
  o.name = NULL;
  o.btree_page_rows = 0;
  assert_int_equal(qv_index_create(g_path, "i", QV_INDEX_BTREE, &o, NULL, &err), QV_ERR_INVALID);
  assert_int_equal(qv_index_create("/nonexistent/qv", "i", QV_INDEX_BTREE, NULL, NULL, &err), QV_ERR_NOT_FOUND);
  qv_index_type t;
  assert_true(qv_index_type_parse("label_list", &t) && t == QV_INDEX_LABEL_LIST);
  assert_false(qv_index_type_parse("hash", &t));
  assert_string_equal(qv_index_type_name(QV_INDEX_NGRAM), "ngram");
  assert_string_equal(qv_index_type_name(9), "unknown");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_btree_int),
      cmocka_unit_test(test_bitmap_int),
      cmocka_unit_test(test_btree_uint_float),
      cmocka_unit_test(test_btree_string),
      cmocka_unit_test(test_bitmap_string_bool),
      cmocka_unit_test(test_ngram),
      cmocka_unit_test(test_label_list),
      cmocka_unit_test(test_stats),
      cmocka_unit_test(test_btree_reads_few_pages),
      cmocka_unit_test(test_versions),
      cmocka_unit_test(test_create_errors),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
