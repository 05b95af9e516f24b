/* Errors as Polars raises them (issue 19 item 2): a strict cast fails on
 * the whole column under AND / OR / fill_null / is_in, but inside
 * when/then/otherwise only on the rows that take its branch; constants fail
 * whatever the rows.  Expected outcomes are Polars 2.1.0's (df.filter on
 * the same values), written down here. */
#include "compute_test.h"

/* c0 int32 [-5, 3, 10, null, 300, 7], c1 string ["1", "x", "3", null, "7", "8"],
 * c2 bool [null, false, null, true, true, false] as columns i, s, b */
static qv_batch *table(void) {
  tval i[] = {TI(-5), TI(3), TI(10), TN(), TI(300), TI(7)};
  tval s[] = {TS("1"), TS("x"), TS("3"), TN(), TS("7"), TS("8")};
  tval b[] = {TN(), TI(0), TN(), TI(1), TI(1), TI(0)};
  qv_array *cols[3] = {t_arr("int32", i, 6), t_arr("string", s, 6), t_arr("bool", b, 6)};
  return t_batch(cols, 3);
}

static qv_expr *parse(const qv_batch *b, const char *text) {
  qv_expr *e = NULL;
  qv_error err = {0};
  if (qv_polars_parse(text, &e, &err) != QV_OK) fail_msg("%s: %s", text, err.message);
  if (qv_expr_bind(e, &b->schema, &err) != QV_OK) fail_msg("%s: %s", text, err.message);
  return e;
}

/* text over table(): the rows kept ("1,2") or, want_error set, a failure
 * whose message holds want_error; the filter and qv_eval agree. */
static void outcome(const char *text, const char *rows, const char *want_error) {
  qv_batch *b = table();
  qv_expr *e = parse(b, text);
  if (want_error) {
    qv_selection out = QV_SELECTION_INIT;
    qv_error err = {0};
    qv_status st = qv_eval_filter(e, b, NULL, &out, &err);
    if (st == QV_OK) fail_msg("%s: kept %lld rows, Polars raises", text, (long long)out.count);
    if (!strstr(err.message, want_error)) fail_msg("%s: %s", text, err.message);
    qv_selection_reset(&out);
  } else {
    t_filter(e, b, NULL, rows);
  }
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_when_branches(void **state) {
  (void)state;
  /* the branch runs only where taken (Polars keeps rows) */
  outcome("pl.when(pl.col(\"c0\") >= 0).then(pl.col(\"c0\").cast(pl.UInt32)).otherwise(0) > 1", "1,2,4,5", NULL);
  outcome("pl.when(pl.col(\"c0\") < 0).then(0).otherwise(pl.col(\"c0\").cast(pl.UInt32)) > 1", "1,2,4,5", NULL);
  /* a null condition takes the otherwise branch */
  outcome("pl.when(pl.col(\"c2\")).then(pl.col(\"c0\").cast(pl.UInt32)).otherwise(0) > 1", "4", NULL);
  /* chained: a later condition only on the rows no earlier one took */
  outcome("pl.when(pl.col(\"c0\") < 0).then(0).when(pl.col(\"c0\").cast(pl.UInt16) > 100).then(1).otherwise(2) > 0",
          "1,2,3,4,5", NULL);
  outcome(
      "pl.when(pl.col(\"c0\") > 100).then(0).when(pl.col(\"c0\") >= 0).then(pl.col(\"c0\").cast(pl.UInt8))"
      ".otherwise(5) > 1",
      "0,1,2,3,5", NULL);
  /* nested, and a string branch */
  outcome(
      "pl.when(pl.col(\"c0\") >= 0).then(pl.when(pl.col(\"c0\") < 100).then(pl.col(\"c0\").cast(pl.UInt8))"
      ".otherwise(1)).otherwise(0) > 1",
      "1,2,5", NULL);
  outcome("pl.when(pl.col(\"c1\") != \"x\").then(pl.col(\"c1\").cast(pl.Int64)).otherwise(0) > 0", "0,2,4,5", NULL);
  outcome("pl.when(pl.col(\"c1\") != \"x\").then(pl.col(\"c1\").cast(pl.Int32) > 0).otherwise(False)", "0,2,4,5", NULL);
  /* the branch is taken where it fails: Polars raises */
  outcome("pl.when(pl.col(\"c0\") >= 0).then(pl.col(\"c0\").cast(pl.UInt8)).otherwise(0) > 1", NULL, "300");
  outcome(
      "pl.when(pl.col(\"c0\") < 0).then(0).when(pl.col(\"c0\").is_null()).then(1)"
      ".otherwise(pl.col(\"c0\").cast(pl.UInt8)) > 1",
      NULL, "300");
  outcome("pl.when(pl.col(\"c0\").cast(pl.UInt32) > 1).then(1).otherwise(0) > 0", NULL, "-5");
  /* a failing literal fails even in a branch no row takes (Polars folds it) */
  outcome("pl.when(pl.col(\"c0\") > 1000).then(pl.lit(-1).cast(pl.UInt8)).otherwise(0) > 1", NULL, "-1");
}

static void test_whole_column(void **state) {
  (void)state;
  /* AND: the other conjunct dropping the row does not spare it (either order) */
  outcome("(pl.col(\"c0\") >= 0) & (pl.col(\"c0\").cast(pl.UInt32) > 1)", NULL, "-5");
  outcome("(pl.col(\"c0\").cast(pl.UInt32) > 1) & (pl.col(\"c0\") >= 0)", NULL, "-5");
  outcome("(pl.col(\"c0\") > 1000) & (pl.col(\"c1\").cast(pl.Int32) > 0)", NULL, "'x'");
  outcome("(pl.col(\"c0\") > 0) & (pl.col(\"c0\") < 100) & (pl.col(\"c1\").cast(pl.Int32) > 0)", NULL, "'x'");
  /* OR, fill_null, coalesce, is_in: whole column too */
  outcome("(pl.col(\"c0\") > -10) | (pl.col(\"c0\").cast(pl.UInt32) > 1)", NULL, "-5");
  outcome("pl.col(\"c0\").fill_null(pl.col(\"c1\").cast(pl.Int32)) > 0", NULL, "'x'");
  outcome("pl.coalesce(pl.col(\"c0\"), pl.col(\"c1\").cast(pl.Int32)) > 0", NULL, "'x'");
  outcome("(pl.col(\"c0\") > 0) & pl.col(\"c0\").cast(pl.UInt32).is_in([1, 3])", NULL, "-5");
  /* casts that cannot fail keep the filter-first order and its rows */
  outcome("(pl.col(\"c0\") > 0) & (pl.col(\"c0\").cast(pl.Int64) > 5)", "2,4,5", NULL);
  outcome("(pl.col(\"c0\") >= 0) & (pl.col(\"c0\").cast(pl.UInt32, strict=False) > 1)", "1,2,4,5", NULL);
}

static void test_may_fail(void **state) {
  (void)state;
  qv_batch *b = table();
  struct {
    const char *text;
    bool may_fail;
  } cases[] = {
      {"pl.col(\"c0\").cast(pl.Int64) > 0", false},
      {"pl.col(\"c0\").cast(pl.Float32) > 0", false},
      {"pl.col(\"c0\").cast(pl.String) == \"1\"", false},
      {"pl.col(\"c0\").cast(pl.UInt32) > 0", true},
      {"pl.col(\"c0\").cast(pl.Int16) > 0", true},
      {"pl.col(\"c0\").cast(pl.Int16, strict=False) > 0", false},
      {"pl.col(\"c0\").cast(pl.Int16, wrap_numerical=True) > 0", false},
      {"pl.col(\"c1\").cast(pl.Int64) > 0", true},
      {"pl.col(\"c0\").cast(pl.Float64).cast(pl.Int64) > 0", true},
      {"pl.lit(-1).cast(pl.UInt8) > 0", false}, /* a constant: folded when the scan opens */
      {"pl.when(pl.col(\"c2\")).then(pl.col(\"c0\").cast(pl.UInt8)).otherwise(0) > 0", true},
      {"pl.col(\"c0\") + 1 > 0", false}, /* Polars wraps */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    qv_expr *e = parse(b, cases[k].text);
    if (qv_eval_may_fail(e) != cases[k].may_fail)
      fail_msg("%s: may_fail should be %d", cases[k].text, cases[k].may_fail);
    qv_expr_destroy(e);
  }
  /* a Lance filter keeps its guard order: never "may fail" */
  qv_expr *e = NULL;
  qv_error err = {0};
  assert_int_equal(qv_lance_filter_parse("c0 != 0 AND 10 / c0 > 1", &e, &err), QV_OK);
  assert_int_equal(qv_expr_bind(e, &b->schema, &err), QV_OK);
  assert_false(qv_eval_may_fail(e));
  assert_false(qv_eval_may_fail(NULL));
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_check_folds_constants(void **state) {
  (void)state;
  qv_batch *b = table();
  qv_expr *e = parse(b, "(pl.col(\"c0\") > 1000) & (pl.lit(-1).cast(pl.UInt8) > 1)");
  qv_error err = {0};
  assert_int_not_equal(qv_eval_check(e, &err), QV_OK);
  assert_non_null(strstr(err.message, "-1"));
  qv_expr_destroy(e);
  e = parse(b, "(pl.col(\"c0\") > 1000) & (pl.lit(1).cast(pl.UInt8) > 0)");
  assert_int_equal(qv_eval_check(e, &err), QV_OK);
  qv_expr_destroy(e);
  qv_batch_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_when_branches),
      cmocka_unit_test(test_whole_column),
      cmocka_unit_test(test_may_fail),
      cmocka_unit_test(test_check_folds_constants),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
