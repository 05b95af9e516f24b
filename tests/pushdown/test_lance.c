/* The Lance SQL translator.  Every case in tests/data/pushdown/lance_cases.txt
 * is parsed with the Polars text front end, translated against its schema
 * (or schema-less), and the results are compared byte for byte with
 * lance_expected.txt (name, exactness, SQL) and lance_explain.txt (the
 * explain text).  Set QV_UPDATE_GOLDEN=1 to rewrite both files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/quiver.h"
#include "pushdown_test_util.h"

static void test_golden_cases(void **state) {
  (void)state;
  char path[1024];
  data_path(path, sizeof path, "lance_cases.txt");
  char *cases = read_text(path);
  assert_non_null(cases);
  grow results = {0}, explains = {0};
  int n = 0, translated = 0, declined = 0, inexact = 0;
  char *save = NULL;
  for (char *line = strtok_r(cases, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#' || !line[0]) continue;
    char *t1 = strchr(line, '\t');
    assert_non_null(t1);
    char *t2 = strchr(t1 + 1, '\t');
    assert_non_null(t2);
    *t1 = *t2 = 0;
    const char *name = line, *schema_text = t1 + 1, *expr_text = t2 + 1;
    qv_schema schema = QV_SCHEMA_INIT;
    bool has_schema = strcmp(schema_text, "-") != 0;
    if (has_schema) parse_schema(schema_text, &schema);
    qv_expr *e = NULL;
    qv_error err = {0};
    if (qv_polars_parse(expr_text, &e, &err) != QV_OK) fail_msg("%s: %s", name, err.message);
    qv_lance_filter *f = NULL;
    assert_int_equal(qv_to_lance_filter(e, has_schema ? &schema : NULL, &f, &err), QV_OK);
    put(&results, name);
    if (f) {
      put(&results, f->exact ? "\tTrue\t" : "\tFalse\t");
      put(&results, f->sql);
      translated++;
      if (!f->exact) inexact++;
    } else {
      put(&results, "\tNone");
      declined++;
    }
    put(&results, "\n");
    char *why = NULL;
    assert_int_equal(qv_lance_filter_explain(e, has_schema ? &schema : NULL, &why, &err), QV_OK);
    assert_non_null(why);
    /* Nothing declined exactly when the result is exact. */
    assert_int_equal(strcmp(why, "nothing declined\n") == 0, f != NULL && f->exact);
    put(&explains, "== ");
    put(&explains, name);
    put(&explains, "\n");
    put(&explains, why);
    qv_free(why);
    qv_lance_filter_free(f);
    qv_expr_destroy(e);
    qv_schema_reset(&schema);
    n++;
  }
  assert_true(n >= 60);
  assert_true(translated > 0 && declined > 0 && inexact > 0);
  check_golden("lance_expected.txt", results.p);
  check_golden("lance_explain.txt", explains.p);
  free(results.p);
  free(explains.p);
  free(cases);
}

/* The three examples of the issue, spelled out here as well. */
static void check(const char *text, const char *sql, bool exact) {
  qv_expr *e = NULL;
  qv_error err = {0};
  assert_int_equal(qv_polars_parse(text, &e, &err), QV_OK);
  qv_lance_filter *f = NULL;
  assert_int_equal(qv_to_lance_filter(e, NULL, &f, &err), QV_OK);
  if (!sql) {
    assert_null(f);
  } else {
    assert_non_null(f);
    assert_string_equal(f->sql, sql);
    assert_int_equal(f->exact, exact);
  }
  qv_lance_filter_free(f);
  qv_expr_destroy(e);
}

static void test_issue_examples(void **state) {
  (void)state;
  check("pl.col(\"cat\").str.starts_with(\"b\") & pl.col(\"id\").is_in([1, 2])",
        "(starts_with(`cat`, 'b') AND (`id` IN (1, 2)))", true);
  check("pl.col(\"text\").str.slice(0, 2) == \"xy\"", NULL, false);
  check("(pl.col(\"id\") > 5) & (pl.col(\"text\").str.slice(0, 2) == \"xy\")", "(`id` > 5)", false);
}

/* The JSON front end gives the same translation as the text one. */
static void test_json_input(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/polars/issue_example.json", QV_TEST_DATA_DIR);
  char *json = read_text(path);
  assert_non_null(json);
  qv_expr *e = NULL;
  qv_error err = {0};
  assert_int_equal(qv_polars_from_json(json, strlen(json), &e, &err), QV_OK);
  qv_lance_filter *f = NULL;
  assert_int_equal(qv_to_lance_filter(e, NULL, &f, &err), QV_OK);
  assert_non_null(f);
  assert_string_equal(f->sql, "(starts_with(`cat`, 'b') AND (`id` IN (1, 2)))");
  assert_true(f->exact);
  qv_lance_filter_free(f);
  qv_expr_destroy(e);
  free(json);
}

static void test_arguments(void **state) {
  (void)state;
  qv_error err = {0};
  qv_lance_filter *f = (qv_lance_filter *)&err; /* must be reset */
  assert_int_equal(qv_to_lance_filter(NULL, NULL, &f, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "NULL"));
  qv_lance_filter_free(NULL);
  char *why = (char *)&err; /* must be reset */
  assert_int_equal(qv_lance_filter_explain(NULL, NULL, &why, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "NULL"));
  assert_int_equal(qv_lance_filter_explain(NULL, NULL, NULL, NULL), QV_ERR_INVALID);
}

/* A hostile, deep tree declines instead of exhausting the stack; a long
 * AND chain of translatable conjuncts stays exact. */
static void test_depth(void **state) {
  (void)state;
  qv_scalar one = qv_scalar_int(QV_TYPE_INT64, 1);
  qv_expr *e = qv_expr_binary(QV_OP_GT, qv_expr_column("a"), qv_expr_literal(&one));
  for (int i = 0; i < 5000; i++) e = qv_expr_unary(QV_OP_NOT, e);
  assert_non_null(e);
  qv_lance_filter *f = NULL;
  qv_error err = {0};
  assert_int_equal(qv_to_lance_filter(e, NULL, &f, &err), QV_OK);
  assert_null(f);
  char *why = NULL;
  assert_int_equal(qv_lance_filter_explain(e, NULL, &why, &err), QV_OK);
  assert_non_null(why);
  assert_non_null(strstr(why, "nested more than"));
  qv_free(why);
  qv_expr_destroy(e);

  /* a = 7: a schema-less a > 7 is inexact since issue 19 (a float column's
   * NaN orders by sign in Lance), and this checks depth, not that. */
  qv_scalar zero = qv_scalar_int(QV_TYPE_INT64, 7);
  e = qv_expr_binary(QV_OP_EQ, qv_expr_column("a"), qv_expr_literal(&zero));
  for (int i = 0; i < 100; i++) {
    qv_scalar k = qv_scalar_int(QV_TYPE_INT64, i + 1);
    e = qv_expr_binary(QV_OP_AND, e, qv_expr_binary(QV_OP_NE, qv_expr_column("b"), qv_expr_literal(&k)));
  }
  assert_int_equal(qv_to_lance_filter(e, NULL, &f, &err), QV_OK);
  assert_non_null(f);
  assert_true(f->exact);
  assert_non_null(strstr(f->sql, "(`b` != 100))"));
  qv_lance_filter_free(f);
  qv_expr_destroy(e);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_golden_cases), cmocka_unit_test(test_issue_examples), cmocka_unit_test(test_json_input),
      cmocka_unit_test(test_arguments),    cmocka_unit_test(test_depth),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
