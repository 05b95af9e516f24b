/* BTREE and BITMAP indices on float64 and float32 columns answer
 * comparisons under the Polars and IEEE float orders exactly: over data
 * holding NaNs of both signs (with and without payloads), infinities,
 * signed zeros, extremes, nulls and ordinary values, for every comparison
 * operator, IN and BETWEEN against literals at and around each of those
 * values, plain and negated, the rows an index returns are the rows the
 * evaluator keeps.  NaN literals and the Java order are declined.  Scans
 * with the indices on and off return the same rows, and selective ones do
 * use an index (explain and counters). */
#include <float.h>

#include "index/index_test_util.h"
#include "quiver/scan.h"

enum { ROWS = 6000, CYCLE = 200, N_EDGE = 14 };

static char *g_path;
/* What the data holds, per column (0 = d, 1 = s), for absolute checks. */
static int64_t g_nan[2], g_zero[2], g_nonnull[2];

static double from_bits(uint64_t b) {
  double d;
  memcpy(&d, &b, 8);
  return d;
}

/* The edge values, one of each every CYCLE rows (so each is 0.5% of the
 * rows and a query for one of them is selective). */
static double edge(int k, bool single) {
  switch (k) {
    case 0: return from_bits(UINT64_C(0x7ff8000000000000)); /* +NaN */
    case 1: return from_bits(UINT64_C(0xfff8000000000000)); /* -NaN */
    case 2: return from_bits(UINT64_C(0x7ff4000000000001)); /* +NaN, payload */
    case 3: return from_bits(UINT64_C(0xfffc00000000abcd)); /* -NaN, payload */
    case 4: return INFINITY;
    case 5: return -INFINITY;
    case 6: return 0.0;
    case 7: return -0.0;
    case 8: return single ? FLT_MAX : DBL_MAX;
    case 9: return single ? -FLT_MAX : -DBL_MAX;
    case 10: return single ? FLT_TRUE_MIN : DBL_TRUE_MIN;
    case 11: return 1.5;
    case 12: return single ? (double)0.1f : 0.1;
    default: return -2.5;
  }
}

static void write_data(void) {
  qv_schema s = QV_SCHEMA_INIT;
  add_col(&s, "id", "int64");
  add_col(&s, "d", "float64");
  add_col(&s, "s", "float32");
  qv_builder b[3];
  for (int i = 0; i < 3; i++) assert_int_equal(qv_builder_init(&b[i], &s.fields[i].type, NULL), QV_OK);
  for (int64_t r = 0; r < ROWS; r++) {
    qv_builder_append_int(&b[0], r);
    for (int c = 0; c < 2; c++) {
      int k = (int)(r % CYCLE);
      if (r % (c ? 89 : 97) == 5) {
        qv_builder_append_null(&b[1 + c]);
        continue;
      }
      /* ordinary values: -5.00 .. 4.99 in steps of 0.01 (0.0 among them) */
      double x = k < N_EDGE ? edge(k, c == 1) : (double)((r * 37) % 1000) / 100.0 - 5.0;
      if (c == 1) x = (double)(float)x;
      g_nonnull[c]++;
      g_nan[c] += isnan(x);
      g_zero[c] += x == 0;
      qv_builder_append_double(&b[1 + c], x);
    }
  }
  qv_array *cols[3];
  for (int i = 0; i < 3; i++) assert_int_equal(qv_builder_finish(&b[i], &cols[i], NULL), QV_OK);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&s, cols, ROWS, &batch, NULL), QV_OK);
  qv_batch_reader *rd;
  assert_int_equal(qv_batch_reader_from_batches(&s, &batch, 1, &rd, NULL), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  wo.page_rows = 250;
  wo.max_rows_per_file = 2500;
  qv_error err;
  if (qv_dataset_write(g_path, rd, &wo, NULL, &err) != QV_OK) fail_msg("write: %s", err.message);
  qv_batch_reader_destroy(rd);
  qv_batch_release(batch);
  qv_schema_reset(&s);
}

static int setup(void **state) {
  (void)state;
  g_path = make_dir();
  write_data();
  create_index(g_path, "d", QV_INDEX_BTREE, "d_btree", 64);
  create_index(g_path, "d", QV_INDEX_BITMAP, "d_bitmap", 4096);
  create_index(g_path, "s", QV_INDEX_BTREE, "s_btree", 64);
  create_index(g_path, "s", QV_INDEX_BITMAP, "s_bitmap", 4096);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  drop_dir(g_path);
  return 0;
}

/* Which front end and which float order a case is read with. */
typedef enum lang { POLARS, IEEE_PL, IEEE_SQL, POLARS_SQL, JAVA_PL } lang;

static const char *lang_name(lang l) {
  static const char *const n[] = {"polars", "ieee (polars text)", "ieee (sql)", "polars order (sql)", "java"};
  return n[l];
}

static void set_order(qv_expr *e, uint8_t order) {
  e->sem.float_order = order;
  for (int32_t i = 0; i < e->n_args; i++) set_order(e->args[i], order);
}

/* The text parsed and bound.  IEEE_PL binds the Polars tree as Polars does
 * and then reads its floats in the IEEE order, IEEE_SQL and POLARS_SQL
 * bind Lance SQL (a real BETWEEN node) and then change the order. */
static qv_expr *parse_bound(const qv_schema *schema, const char *text, lang l) {
  qv_expr *e = NULL;
  qv_error err;
  bool sql = l == IEEE_SQL || l == POLARS_SQL;
  qv_status st = sql ? qv_lance_filter_parse(text, &e, &err) : qv_polars_parse(text, &e, &err);
  if (st != QV_OK) fail_msg("%s: %s", text, err.message);
  if (qv_expr_bind(e, schema, &err) != QV_OK) fail_msg("%s: %s", text, err.message);
  if (l == IEEE_PL || l == IEEE_SQL) set_order(e, QV_FLOAT_IEEE);
  if (l == POLARS_SQL) set_order(e, QV_FLOAT_POLARS);
  if (l == JAVA_PL) set_order(e, QV_FLOAT_JAVA);
  return e;
}

static const char *const g_indices[] = {"d_btree", "d_bitmap", "s_btree", "s_bitmap"};

/* Every index on the case's column answers it (want_exact) or declines,
 * and an exact answer equals the evaluator's rows in every fragment.
 * Returns the evaluator's row count. */
static int64_t check(qv_dataset *ds, qv_index **ix, const char *text, lang l, bool want_exact) {
  qv_expr *e = parse_bound(qv_dataset_schema(ds), text, l);
  int32_t col = -1;
  if (qv_expr_columns(e, &col, 1) != 1) col = -1; /* two columns: every index declines */
  int64_t truth = 0;
  roaring_bitmap_t *got = roaring_bitmap_create();
  for (int k = 0; k < 4; k++) {
    if (col >= 0 && qv_index_column(ix[k]) != col) continue;
    qv_error err;
    qv_index_estimate est;
    if (qv_index_estimate_rows(ix[k], e, &est, &err) != QV_OK) fail_msg("%s: %s", text, err.message);
    if (est.answer != (want_exact ? QV_INDEX_EXACT : QV_INDEX_NO))
      fail_msg("%s [%s] on %s: answer %d, expected %s", text, lang_name(l), g_indices[k], est.answer,
               want_exact ? "exact" : "none");
    if (!want_exact) continue;
    assert_true(est.rows >= 0 && est.rows <= est.covered_rows);
    truth = 0;
    for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
      qv_fragment_info fi;
      qv_dataset_fragment(ds, f, &fi);
      roaring_bitmap_t *want = brute(ds, f, e);
      truth += (int64_t)roaring_bitmap_get_cardinality(want);
      bool exact = false;
      if (qv_index_query(ix[k], e, fi.id, got, &exact, &err) != QV_OK) fail_msg("%s: %s", text, err.message);
      assert_true(exact);
      if (!roaring_bitmap_equals(got, want))
        fail_msg("%s [%s] on %s, fragment %lld: index %llu rows, evaluator %llu rows", text, lang_name(l), g_indices[k],
                 (long long)fi.id, (unsigned long long)roaring_bitmap_get_cardinality(got),
                 (unsigned long long)roaring_bitmap_get_cardinality(want));
      roaring_bitmap_free(want);
    }
    /* The estimate reads the same ranges: BITMAP counts are exact; a BTREE
     * interpolates at most one 64-entry page per range end and fragment
     * (3 fragments, at most 6 ends here). */
    bool bitmap = strstr(g_indices[k], "bitmap") != NULL;
    if (bitmap ? est.rows != truth : llabs(est.rows - truth) > 6 * 64 * 3)
      fail_msg("%s [%s] on %s: estimate %lld, true %lld", text, lang_name(l), g_indices[k], (long long)est.rows,
               (long long)truth);
  }
  roaring_bitmap_free(got);
  qv_expr_destroy(e);
  return truth;
}

static void open_all(qv_dataset **ds, qv_index **ix) {
  assert_int_equal(qv_dataset_open(g_path, 0, ds, NULL), QV_OK);
  for (int k = 0; k < 4; k++) ix[k] = open_named(*ds, g_indices[k]);
}

static void close_all(qv_dataset *ds, qv_index **ix) {
  for (int k = 0; k < 4; k++) qv_index_close(ix[k]);
  qv_dataset_close(ds);
}

/* Literals at every edge and between them, as Polars text. */
static const char *const g_lits[] = {
    "0.0",   "-0.0",   "1.5",    "1.2345",  "-2.5",   "0.1",   "4.99", "-5.0", "float(\"inf\")", "float(\"-inf\")",
    "1e308", "-1e308", "5e-324", "-5e-324", "3.4e38", "1e-45", "2",    "-3",
};

static void test_comparisons(void **state) {
  (void)state;
  qv_dataset *ds;
  qv_index *ix[4];
  open_all(&ds, ix);
  static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
  static const char *const cols[] = {"d", "s"};
  int64_t cases = 0;
  for (int c = 0; c < 2; c++)
    for (size_t o = 0; o < 6; o++)
      for (size_t k = 0; k < sizeof g_lits / sizeof g_lits[0]; k++)
        for (int l = POLARS; l <= IEEE_PL; l++) {
          char text[160];
          snprintf(text, sizeof text, "pl.col(\"%s\") %s %s", cols[c], ops[o], g_lits[k]);
          check(ds, ix, text, (lang)l, true);
          snprintf(text, sizeof text, "~(pl.col(\"%s\") %s %s)", cols[c], ops[o], g_lits[k]);
          check(ds, ix, text, (lang)l, true);
          snprintf(text, sizeof text, "%s %s pl.col(\"%s\")", g_lits[k], ops[o], cols[c]); /* literal first */
          check(ds, ix, text, (lang)l, true);
          cases += 3;
        }
  assert_int_equal(cases, 2 * 6 * 18 * 2 * 3);
  close_all(ds, ix);
}

static void test_between_in(void **state) {
  (void)state;
  qv_dataset *ds;
  qv_index *ix[4];
  open_all(&ds, ix);
  static const char *const sql[] = {
      "%s BETWEEN -0.0 AND 0.0",
      "%s BETWEEN 0.0 AND -0.0",
      "%s BETWEEN 0.0 AND 0.0",
      "%s BETWEEN -2.5 AND 1.5",
      "%s BETWEEN 1.5 AND -2.5",
      "%s BETWEEN -1e999 AND 1e999",
      "%s BETWEEN 1e999 AND 1e999",
      "%s BETWEEN -1 AND 2",
      "%s BETWEEN 0.1 AND 0.2",
      "NOT (%s BETWEEN -0.0 AND 1.5)",
      "NOT (%s BETWEEN -1e999 AND 1e999)",
      "%s IN (0.0)",
      "%s IN (-0.0, 1.5, 1e999)",
      "NOT (%s IN (-0.0, 1.5, -1e999))",
      "%s IN (1.2345)",
      "%s = 1",
      "%s > -1",
      "NOT (%s <= 0)",
      "%s IN (1.5, NULL)",
      "NOT (%s IN (1.5, NULL))",
  };
  static const char *const pl[] = {
      "pl.col(\"%s\").is_in([0.0])",
      "pl.col(\"%s\").is_in([-0.0, 1.5, float(\"inf\")])",
      "~pl.col(\"%s\").is_in([-0.0, 1.5, float(\"-inf\")])",
      "pl.col(\"%s\").is_in([1.5, None])",
      "~pl.col(\"%s\").is_in([1.5, None])",
      "pl.col(\"%s\").is_in([1.5, None], nulls_equal=True)",
      "pl.col(\"%s\").is_in([0.1, 1e308, 5e-324])",
      "pl.col(\"%s\").is_in([0.0, -0.0, 1.5, 0.0, -2.5, 1.5])", /* one point each (the estimate too) */
      "~(pl.col(\"%s\") == 0.0)",
      "~~(pl.col(\"%s\") > 0.0)",
      /* is_between and other ANDs on the column: one intersected answer */
      "pl.col(\"%s\").is_between(-0.0, 1.5)",
      "pl.col(\"%s\").is_between(0.0, 0.0, closed=\"none\")",
      "pl.col(\"%s\").is_between(-2.5, 0.0, closed=\"left\")",
      "pl.col(\"%s\").is_between(0.0, float(\"inf\"), closed=\"right\")",
      "pl.col(\"%s\").is_between(float(\"-inf\"), float(\"inf\"))",
      "~pl.col(\"%s\").is_between(-1.0, 1.0)",
      "(pl.col(\"%1$s\") > 1.0) & (pl.col(\"%1$s\") >= 1.5)",
      "(pl.col(\"%1$s\") > 2.0) & (pl.col(\"%1$s\") < 1.0)",
      "(pl.col(\"%1$s\") >= float(\"inf\")) & pl.col(\"%1$s\").is_in([0.0, float(\"inf\")])",
  };
  static const char *const cols[] = {"d", "s"};
  for (int c = 0; c < 2; c++) {
    char text[160];
    for (size_t k = 0; k < sizeof sql / sizeof sql[0]; k++) {
      snprintf(text, sizeof text, sql[k], cols[c]);
      /* SQL: x IN (.., NULL) is null where not found, so its NOT is no index answer */
      bool negatable = !(strncmp(text, "NOT", 3) == 0 && strstr(text, "NULL"));
      check(ds, ix, text, IEEE_SQL, negatable);
      check(ds, ix, text, POLARS_SQL, negatable);
    }
    for (size_t k = 0; k < sizeof pl / sizeof pl[0]; k++) {
      snprintf(text, sizeof text, pl[k], cols[c]);
      check(ds, ix, text, POLARS, true);
      check(ds, ix, text, IEEE_PL, true);
    }
  }
  close_all(ds, ix);
}

/* The answers hold what the data says they must (so the comparisons with
 * the evaluator above are not comparisons of two empty sets). */
static void test_counts(void **state) {
  (void)state;
  qv_dataset *ds;
  qv_index *ix[4];
  open_all(&ds, ix);
  for (int c = 0; c < 2; c++) {
    char text[128];
    const char *col = c ? "s" : "d";
    assert_true(g_nan[c] > 0 && g_zero[c] > 0);
    snprintf(text, sizeof text, "pl.col(\"%s\") > float(\"inf\")", col); /* every NaN, both signs */
    assert_int_equal(check(ds, ix, text, POLARS, true), g_nan[c]);
    assert_int_equal(check(ds, ix, text, IEEE_PL, true), 0);
    snprintf(text, sizeof text, "~(pl.col(\"%s\") <= float(\"inf\"))", col);
    assert_int_equal(check(ds, ix, text, POLARS, true), g_nan[c]);
    assert_int_equal(check(ds, ix, text, IEEE_PL, true), g_nan[c]);
    snprintf(text, sizeof text, "pl.col(\"%s\") == -0.0", col);
    assert_int_equal(check(ds, ix, text, POLARS, true), g_zero[c]);
    assert_int_equal(check(ds, ix, text, IEEE_PL, true), g_zero[c]);
    snprintf(text, sizeof text, "pl.col(\"%s\") != 1.2345", col); /* absent: every non-null row, NaN too */
    assert_int_equal(check(ds, ix, text, POLARS, true), g_nonnull[c]);
    assert_int_equal(check(ds, ix, text, IEEE_PL, true), g_nonnull[c]);
    snprintf(text, sizeof text, "~(pl.col(\"%s\") > -0.0)", col); /* IEEE: NaN rows too */
    assert_int_equal(check(ds, ix, text, IEEE_PL, true) - check(ds, ix, text, POLARS, true), g_nan[c]);
  }
  close_all(ds, ix);
}

static void test_declined(void **state) {
  (void)state;
  qv_dataset *ds;
  qv_index *ix[4];
  open_all(&ds, ix);
  static const char *const texts[] = {
      "pl.col(\"d\") > float(\"nan\")",  "pl.col(\"s\") == float(\"nan\")",
      "pl.col(\"d\") != float(\"nan\")", "pl.col(\"d\").is_in([1.5, float(\"nan\")])",
      "pl.col(\"d\") > pl.col(\"s\")",   "pl.col(\"d\") + 1.0 > 2.0",
  };
  for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
    check(ds, ix, texts[k], POLARS, false);
    check(ds, ix, texts[k], IEEE_PL, false);
  }
  check(ds, ix, "pl.col(\"d\") > 1.5", JAVA_PL, false);
  check(ds, ix, "(pl.col(\"d\") > 1.5) & (pl.col(\"s\") > 1.5)", POLARS, false);
  check(ds, ix, "(pl.col(\"d\") > 1.5) & (pl.col(\"d\") != 3.0)", POLARS, false);
  check(ds, ix, "(pl.col(\"d\") > 1.5) & (pl.col(\"d\") < float(\"nan\"))", IEEE_PL, false);
  check(ds, ix, "d BETWEEN 1e999 AND CAST('NaN' AS double)", IEEE_SQL, false);
  check(ds, ix, "d BETWEEN CAST('NaN' AS double) AND 1.0", POLARS_SQL, false);
  close_all(ds, ix);
}

/* ---- scans ---------------------------------------------------------------- */

static char *scan_ids(const char *text, lang l, bool use_index, qv_scan_counters *ctr, char **explain) {
  qv_expr *e = NULL;
  qv_error err;
  if (qv_polars_parse(text, &e, &err) != QV_OK) fail_msg("%s: %s", text, err.message);
  if (l == IEEE_PL) set_order(e, QV_FLOAT_IEEE); /* before binding: bound as SQL is */
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  const char *cols[] = {"id"};
  o.columns = cols;
  o.n_columns = 1;
  o.filter_expr = e;
  o.use_scalar_index = use_index;
  o.batch_size = 700;
  qv_scanner *sc;
  if (qv_scanner_open(g_path, &o, &sc, &err) != QV_OK) fail_msg("%s: %s", text, err.message);
  qv_expr_destroy(e);
  if (explain) *explain = qv_scanner_explain(sc, false);
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  for (;;) {
    qv_batch *b;
    if (qv_scanner_next(sc, &b, &err) != QV_OK) fail_msg("%s: %s", text, err.message);
    if (!b) break;
    for (int64_t r = 0; r < b->num_rows; r++) {
      char cell[64];
      qv_array_format_value(b->columns[0], r, cell, sizeof cell);
      fprintf(f, "%s\n", cell);
    }
    qv_batch_release(b);
  }
  fclose(f);
  qv_scanner_counters(sc, ctr);
  qv_scanner_destroy(sc);
  return out;
}

static void same_scan(const char *text, lang l, bool want_index) {
  qv_scan_counters with, without;
  char *ex = NULL;
  char *a = scan_ids(text, l, true, &with, &ex);
  char *b = scan_ids(text, l, false, &without, NULL);
  if (strcmp(a, b) != 0) fail_msg("%s [%s]: rows differ with and without indices", text, lang_name(l));
  assert_int_equal(without.index_rows, 0);
  bool used = strstr(ex, "exact, estimate") && with.index_rows > 0;
  if (want_index && (!used || with.rows_returned == 0))
    fail_msg("%s [%s]: no index used (%lld rows):\n%s", text, lang_name(l), (long long)with.rows_returned, ex);
  if (!want_index && with.index_rows != 0) fail_msg("%s [%s]: an index was used", text, lang_name(l));
  if (want_index && strstr(ex, "refine after the index lookup: nothing"))
    assert_int_equal(with.rows_scanned, 0); /* exact: the filter column is never read */
  qv_free(ex);
  free(a);
  free(b);
}

static void test_scans(void **state) {
  (void)state;
  static const struct {
    const char *text;
    bool index;
  } cases[] = {
      {"pl.col(\"d\") == 0.0", true},
      {"pl.col(\"d\") == -0.0", true},
      {"pl.col(\"s\") == 0.1", true},
      {"pl.col(\"d\") > 4.95", true},
      {"pl.col(\"s\") > 4.95", true},
      {"pl.col(\"d\") >= float(\"inf\")", true},
      {"pl.col(\"d\") < -4.96", true},
      {"pl.col(\"s\") <= float(\"-inf\")", true},
      {"pl.col(\"d\").is_in([1.5, -2.5])", true},
      {"pl.col(\"d\") > float(\"nan\")", false},
      {"pl.col(\"d\") > 0.0", false}, /* half the rows: scanned */
      {"~(pl.col(\"d\") > 0.0)", false},
      {"pl.col(\"d\").is_between(4.9, 5.0)", true},
      {"pl.col(\"d\").is_between(0.5, 0.6)", true}, /* neither half alone */
      {"pl.col(\"s\").is_between(-0.0, 0.05)", true},
      {"(pl.col(\"d\") < 0.6) & (pl.col(\"s\") > 0.5)", false}, /* two columns: no pair */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    same_scan(cases[k].text, POLARS, cases[k].index);
    same_scan(cases[k].text, IEEE_PL, cases[k].index);
  }
}

/* Polars' is_between reaches the planner as two conjuncts; neither alone
 * is selective, their AND is one lookup of the intersected range. */
static void test_between_pair(void **state) {
  (void)state;
  qv_scan_counters c;
  char *ex = NULL;
  char *rows = scan_ids("pl.col(\"d\").is_between(0.5, 0.6)", POLARS, true, &c, &ex);
  assert_non_null(
      strstr(ex, "    index d_btree (btree) together with (d <= 0.6) answers (d >= 0.5): exact, estimate "));
  assert_non_null(
      strstr(ex, "    index d_btree (btree) together with (d >= 0.5) answers (d <= 0.6): exact, estimate "));
  assert_non_null(strstr(ex, "    refine after the index lookup: nothing (the indices answer the filter exactly)\n"));
  assert_null(strstr(ex, "not used"));
  assert_int_equal(c.rows_scanned, 0);
  assert_true(c.rows_returned > 0 && c.index_rows == c.rows_returned);
  qv_free(ex);
  free(rows);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_comparisons), cmocka_unit_test(test_between_in), cmocka_unit_test(test_counts),
      cmocka_unit_test(test_declined),    cmocka_unit_test(test_scans),      cmocka_unit_test(test_between_pair),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
