/* The Polars text front end.  The main property: for every "both" case in
 * tests/data/polars/cases.txt, parsing the Python text gives exactly the
 * tree that qv_polars_from_json gives for the JSON the real Polars wrote
 * for it (tests/expr/gen_polars_fixtures.py): same canonical text, and the
 * same nodes field by field (literal types, dynamic flags, semantics,
 * options).  Then errors with their columns, literal details, and limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr_test_util.h"
#include "quiver/expr.h"

static char *read_data(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/polars/%s", QV_TEST_DATA_DIR, name);
  return tu_read_file(path);
}

static bool scalar_equal(const qv_scalar *a, const qv_scalar *b) {
  if (!qv_datatype_equal(&a->type, &b->type) || a->is_null != b->is_null) return false;
  if (a->is_null) return true;
  switch (a->type.id) {
    case QV_TYPE_BOOL: return a->v.b == b->v.b;
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64: return memcmp(&a->v.f, &b->v.f, sizeof a->v.f) == 0; /* -0.0 and NaN bits too */
    case QV_TYPE_DECIMAL128: return a->v.dec.lo == b->v.dec.lo && a->v.dec.hi == b->v.dec.hi;
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: return a->len == b->len && memcmp(a->bytes, b->bytes, (size_t)a->len) == 0;
    default: return a->v.i == b->v.i;
  }
}

/* NULL when equal, else what differs (static buffer). */
static const char *tree_diff(const qv_expr *a, const qv_expr *b) {
  static char why[256];
  if (a->kind != b->kind || a->op != b->op || a->n_args != b->n_args) {
    snprintf(why, sizeof why, "kind/op/args %d/%s/%d vs %d/%s/%d", a->kind, qv_op_name(a->op), a->n_args, b->kind,
             qv_op_name(b->op), b->n_args);
    return why;
  }
  if ((a->name == NULL) != (b->name == NULL) || (a->name && strcmp(a->name, b->name) != 0)) return "name";
  if (a->kind == QV_EXPR_LITERAL && !scalar_equal(&a->value, &b->value)) return "literal value";
  if (!qv_datatype_equal(&a->type, &b->type)) return "type";
  if (memcmp(&a->sem, &b->sem, sizeof a->sem) != 0) return "semantics";
  if (a->flags != b->flags) return "flags";
  if (a->param != b->param) return "param";
  for (int32_t i = 0; i < a->n_args; i++) {
    const char *w = tree_diff(a->args[i], b->args[i]);
    if (w) return w;
  }
  return NULL;
}

/* Every node carries Polars semantics. */
static bool polars_semantics(const qv_expr *e) {
  if (e->sem.float_order != QV_FLOAT_POLARS || e->sem.int_div != QV_DIV_FLOOR || e->sem.overflow != QV_OVERFLOW_WRAP)
    return false;
  for (int32_t i = 0; i < e->n_args; i++)
    if (!polars_semantics(e->args[i])) return false;
  return true;
}

static void test_same_tree_as_polars_json(void **state) {
  (void)state;
  char *version = read_data("POLARS_VERSION");
  assert_non_null(version);
  assert_string_equal(version, "2.1.0\n");
  free(version);
  char *cases = read_data("cases.txt");
  assert_non_null(cases);
  int n_both = 0, n_json = 0;
  tu_text golden = {0};
  for (char *line = cases; *line;) {
    char *end = strchr(line, '\n');
    if (end) *end = '\0';
    if (*line && *line != '#') {
      char *mode = strchr(line, '\t');
      assert_non_null(mode);
      *mode++ = '\0';
      char *text = strchr(mode, '\t');
      assert_non_null(text);
      *text++ = '\0';
      char fname[256];
      snprintf(fname, sizeof fname, "%s.json", line);
      char *json = read_data(fname);
      assert_non_null(json);
      qv_expr *j = NULL, *t = NULL;
      qv_error err;
      if (qv_polars_from_json(json, strlen(json), &j, &err) != QV_OK) fail_msg("%s: json: %s", line, err.message);
      assert_true(polars_semantics(j));
      char *sj = qv_expr_to_string(j);
      tu_put(&golden, line);
      tu_put(&golden, ": ");
      tu_put(&golden, sj);
      tu_put(&golden, "\n");
      if (strcmp(mode, "both") == 0) {
        n_both++;
        if (qv_polars_parse(text, &t, &err) != QV_OK) fail_msg("%s: text %s: %s", line, text, err.message);
        char *st = qv_expr_to_string(t);
        if (strcmp(sj, st) != 0) fail_msg("%s: %s\n  json: %s\n  text: %s", line, text, sj, st);
        const char *why = tree_diff(j, t);
        if (why) fail_msg("%s: %s: trees differ in %s", line, text, why);
        /* A clone is the same tree. */
        qv_expr *c = qv_expr_clone(t);
        assert_null(tree_diff(c, t));
        qv_expr_destroy(c);
        qv_free(st);
      } else {
        n_json++;
      }
      qv_free(sj);
      qv_expr_destroy(j);
      qv_expr_destroy(t);
      free(json);
    }
    if (!end) break;
    line = end + 1;
  }
  assert_true(n_both >= 100);
  assert_true(n_json >= 5);
  /* The canonical text of every fixture, pinned. */
  assert_int_equal(tu_golden("../polars/expected.txt", golden.s), 0);
  free(golden.s);
  free(cases);
}

static qv_expr *parse_ok(const char *text) {
  qv_expr *e = NULL;
  qv_error err;
  if (qv_polars_parse(text, &e, &err) != QV_OK) fail_msg("%s: %s", text, err.message);
  return e;
}

static void expect_error(const char *text, const char *message) {
  qv_expr *e = (qv_expr *)1;
  qv_error err;
  assert_int_equal(qv_polars_parse(text, &e, &err), QV_ERR_PARSE);
  assert_null(e);
  assert_int_equal(err.code, QV_ERR_PARSE);
  if (strcmp(err.message, message) != 0) fail_msg("%s\n  want: %s\n  got:  %s", text, message, err.message);
}

/* A syntactically valid method or pl.* function the front end does not
 * know is an unknown node (translators decline it, the binder names it), as
 * the JSON front end keeps an unknown Polars function; a syntax error in
 * its arguments is still an error. */
static const qv_expr *first_unknown(const qv_expr *e) {
  if (e->op == QV_OP_UNKNOWN) return e;
  for (int32_t i = 0; i < e->n_args; i++) {
    const qv_expr *u = first_unknown(e->args[i]);
    if (u) return u;
  }
  return NULL;
}

static void expect_unknown(const char *text, const char *tree, int32_t pos) {
  qv_expr *e = parse_ok(text);
  char *s = qv_expr_to_string(e);
  assert_non_null(s);
  if (strcmp(s, tree) != 0) fail_msg("%s\n  want: %s\n  got:  %s", text, tree, s);
  assert_int_equal(first_unknown(e)->pos, pos);
  qv_free(s);
  qv_expr_destroy(e);
}

static void test_unknown_methods_and_functions(void **state) {
  (void)state;
  expect_unknown("pl.col(\"x\").sum() > 3", "(unknown<.sum()>(x) > 3)", 13);
  expect_unknown("pl.col(\"a\").foo()", "unknown<.foo()>(a)", 13);
  expect_unknown("pl.col(\"a\").str.foo(1, x=\"y\")", "unknown<.str.foo()>(a)", 17);
  expect_unknown("pl.col(\"a\").bin.contains(b\"a\")", "unknown<.bin.contains()>(a)", 17);
  expect_unknown("pl.col(\"a\") > pl.col(\"a\").mean().over(\"g\")", "(a > unknown<.over()>(unknown<.mean()>(a)))", 34);
  expect_unknown("pl.col(\"st\").struct.field(\"x\", \"y\")", "unknown<.struct.field()>(st)", 21);
  expect_unknown("pl.column(\"a\")", "unknown<pl.column()>()", 1);
  expect_unknown("pl.len() > 3", "(unknown<pl.len()>() > 3)", 1);
  /* Polars makes these function calls, not literals: unknown nodes too. */
  expect_unknown("pl.date(pl.col(\"y\"), 1, 1) < pl.col(\"d\")", "(unknown<pl.date()>() < d)", 1);
  expect_unknown("pl.col(\"t\") < pl.datetime(2024, 1, 1, time_zone=\"UTC\")", "(t < unknown<pl.datetime()>())", 15);
  expect_error("pl.col(\"a\").foo(1 +)", "expression: expected an expression, found ')' at column 20");
  expect_error("pl.col(\"a\").foo", "expression: expected '(' after .foo at column 16");
  expect_error("col(\"a\").foo()", "expression: unknown function col() at column 1");
}

static void test_errors(void **state) {
  (void)state;
  expect_error("", "expression: expected an expression, found end of input at column 1");
  expect_error("pl.col(\"a\") >", "expression: expected an expression, found end of input at column 14");
  /* Brackets are paired first, and reported where they open. */
  expect_error("pl.col(\"a\"", "expression: the '(' at column 7 is not closed (expected ')')");
  expect_error("pl.col(\"id\" > 3", "expression: the '(' at column 7 is not closed (expected ')')");
  expect_error("(pl.col(\"a\") > 1) & (pl.col(\"b\").is_in([1, 2) | x",
               "expression: ')' at column 45 does not close the '[' at column 40");
  expect_error("pl.col(\"a\").is_in([1, 2", "expression: the '[' at column 19 is not closed (expected ']')");
  expect_error("(pl.col(\"a\") > (1)", "expression: the '(' at column 1 is not closed (expected ')')");
  expect_error(
      "pl.col(\"a\" > 1)",
      "expression: operator between two Python values (write pl.lit(...) for a literal expression) at column 12");
  expect_error("pl.col(\"a\")) ", "expression: expected an operator or end of input, found ')' at column 12");
  expect_error("pl.col(1)", "expression: expected a string at column 8");
  expect_error("pl.col()", "expression: pl.col() expects a column name at column 7");
  expect_error("pl.Foo", "expression: unknown attribute pl.Foo at column 4");
  expect_error("col(\"a\")", "expression: unknown function col() at column 1");
  expect_error("x > 1", "expression: unknown name 'x' (expressions start with pl.) at column 1");
  expect_error("pl.col(\"a\").is_null", "expression: expected '(' after .is_null at column 20");
  expect_error("pl.col(\"a\").is_null(1)", "expression: .is_null() got too many arguments at column 21");
  expect_error("pl.col(\"a\").is_in([1], nulls_equal=1)", "expression: expected True or False at column 36");
  expect_error("pl.col(\"a\").is_in([1], foo=True)",
               "expression: .is_in() got an unexpected argument 'foo' at column 24");
  expect_error("pl.col(\"a\").cast(1)", "expression: cast() expects a data type such as pl.Int32 at column 17");
  expect_error(
      "1 + 2",
      "expression: operator between two Python values (write pl.lit(...) for a literal expression) at column 3");
  expect_error("5", "expression: expected an expression, found a Python value (write pl.lit(...)) at column 1");
  expect_error("pl.col(\"a\") < 1 < 2",
               "expression: chained comparisons are not supported; use & between them at column 17");
  /* x > 1 & y < 5 is Python's chain x > (1 & y) < 5: the message says why and how to write it. */
  expect_error("pl.col(\"a\") > 1 & pl.col(\"b\") < 5",
               "expression: `&` binds tighter than `>` in Python: write (pl.col(\"a\") > 1) & (pl.col(\"b\") < 5) "
               "at column 17");
  expect_error("pl.col(\"a\").is_in([1]) == (2 | pl.col(\"b\")) ^ pl.col(\"c\") != 0",
               "expression: `^` binds tighter than `==` in Python: write (pl.col(\"a\").is_in([1]) == (2 | "
               "pl.col(\"b\"))) ^ (pl.col(\"c\") != 0) at column 45");
  expect_error("pl.col(\"a\") > 1 & pl.col(\"b\") <",
               "expression: expected an expression, found end of input at column 32");
  expect_error("pl.when(pl.col(\"a\"))", "expression: expected .then(...) after pl.when(...) at column 1");
  expect_error("pl.when(pl.col(\"a\")).otherwise(1)", "expression: expected .then(...) after .when(...) at column 22");
  expect_error("pl.col(\"a\") == 'x", "expression: unterminated string at column 16");
  expect_error("pl.col(\"a\") == 01", "expression: leading zeros in an integer at column 16");
  expect_error("pl.col(\"a\") == 1_", "expression: invalid number at column 16");
  expect_error("pl.col(\"a\") == 1x", "expression: invalid number at column 16");
  expect_error("pl.col(\"a\") $ 1", "expression: unexpected character '$' at column 13");
  expect_error("pl.col(\"é\") == 'x\\u0000'", "expression: NUL character in string at column 16");
  expect_error("pl.col(\"a\") == \xff", "expression: invalid UTF-8 at column 16");
  expect_error("pl.col(\"a\") == date(2024, 2, 30)", "expression: date() out of range at column 16");
  expect_error("pl.col(\"a\") == pl.lit(300, dtype=pl.Int8)",
               "expression: integer out of range for the dtype at column 23");
  expect_error("pl.col(\"a\") == pl.lit(\"x\", dtype=pl.Int8)",
               "expression: cannot make a literal of this dtype from this value at column 23");
  expect_error("pl.col(\"a\").is_in([1, \"x\"])", "expression: cannot mix these types in a list at column 19");
  expect_error("pl.col(\"a\").fill_null()", "expression: fill_null() expects a value or strategy= at column 22");
  expect_error("pl.col(\"a\").fill_null(strategy=\"up\")", "expression: unknown fill_null strategy 'up' at column 32");
  expect_error("pl.col(\"a\").round(1, mode=\"up\")", "expression: unknown rounding mode 'up' at column 27");
  expect_error("pl.col(\"a\").dt.epoch(\"h\")",
               "expression: unknown time unit 'h' (expected 'ns', 'us', 'ms', 's' or 'd') at column 22");
  expect_error("pl.col(\"a\", x=1)", "expression: pl.col() got an unexpected argument 'x' at column 13");
  expect_error("pl.col(x=1, \"a\")", "expression: positional argument after a keyword argument at column 13");
  expect_error("pl.lit(pl.col(\"a\"))", "expression: pl.lit() of an expression at column 8");
  expect_error(
      "pl.col(\"a\") == pl.lit(datetime(2024, 1, 1), dtype=pl.Datetime(\"us\", \"Europe/Paris\"))",
      "expression: pl.lit of a naive datetime with time zone 'Europe/Paris' is not supported (only UTC) at column 51");
  expect_error("pl.col(\"d\") > pl.date(2022, 2, 30)", "expression: pl.date() out of range at column 18");
  expect_error("pl.col(\"t\") < pl.datetime(2024, 1, 1, 0, 0, 0, 7, time_unit=\"ms\")",
               "expression: pl.datetime() with microseconds and time_unit='ms' is not supported at column 18");
  expect_error("pl.col(\"t\") < pl.datetime(2024, 1, 1, time_unit=\"h\")",
               "expression: expected a time unit 'ns', 'us' or 'ms' at column 49");
  expect_error("pl.col(\"d\") > pl.date(2022, 1, 1, 5)", "expression: pl.date() got too many arguments at column 35");
  expect_error("pl.lit(pl.date(2022, 1, 1))", "expression: pl.lit() of an expression at column 8");
  /* Columns count characters, not bytes. */
  expect_error("pl.col(\"日本\") >", "expression: expected an expression, found end of input at column 15");
}

static void test_literals(void **state) {
  (void)state;
  qv_expr *e = parse_ok("pl.col(\"a\") > 5");
  assert_int_equal(e->op, QV_OP_GT);
  assert_int_equal(e->pos, 13);
  assert_int_equal(e->args[0]->pos, 1);
  assert_string_equal(e->args[0]->name, "a");
  const qv_expr *lit = e->args[1];
  assert_int_equal(lit->kind, QV_EXPR_LITERAL);
  assert_int_equal(lit->value.type.id, QV_TYPE_INT64);
  assert_true(lit->flags & QV_EXPR_F_DYNAMIC);
  assert_int_equal(lit->sem.float_order, QV_FLOAT_POLARS);
  qv_expr_destroy(e);

  e = parse_ok("pl.col(\"a\") == pl.lit(5, dtype=pl.Int32)");
  assert_int_equal(e->args[1]->value.type.id, QV_TYPE_INT32);
  assert_false(e->args[1]->flags & QV_EXPR_F_DYNAMIC);
  qv_expr_destroy(e);

  e = parse_ok("pl.col(\"a\") / 2");
  assert_int_equal(e->op, QV_OP_DIV);
  assert_true(e->flags & QV_EXPR_F_TRUE_DIV);
  assert_int_equal(e->sem.int_div, QV_DIV_FLOOR);
  assert_int_equal(e->sem.overflow, QV_OVERFLOW_WRAP);
  qv_expr_destroy(e);

  e = parse_ok("pl.col(\"a\").cast(pl.Int32, strict=False)");
  assert_int_equal(e->op, QV_OP_CAST);
  assert_false(e->sem.cast_strict);
  assert_int_equal(e->type.id, QV_TYPE_INT32);
  qv_expr_destroy(e);

  e = parse_ok("pl.col(\"a\").is_in([1, None], nulls_equal=True)");
  assert_int_equal(e->op, QV_OP_IN);
  assert_true(e->sem.in_nulls_equal);
  assert_int_equal(e->n_args, 3);
  assert_false(e->args[1]->flags & QV_EXPR_F_DYNAMIC); /* a Series is typed */
  assert_true(e->args[2]->value.is_null);
  assert_int_equal(e->args[2]->value.type.id, QV_TYPE_INT64);
  qv_expr_destroy(e);

  e = parse_ok("pl.col(\"ts\") < pl.lit(datetime(2024, 1, 2, 3, 4, 5), dtype=pl.Datetime(\"ms\", \"UTC\"))");
  assert_int_equal(e->args[1]->value.type.unit, QV_UNIT_MILLI);
  assert_string_equal(e->args[1]->value.type.timezone, "UTC");
  assert_int_equal(e->args[1]->value.v.i, INT64_C(1704164645000));
  qv_expr_destroy(e);

  /* Aware datetimes in UTC (issue 19): every spelling of the UTC tzinfo. */
  static const char *const utc[] = {
      "pl.col(\"ts\") < datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc)",
      "pl.col(\"ts\") < datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)",
      "pl.col(\"ts\") < datetime(2024, 1, 2, 3, 4, 5, 0, timezone.utc)",
      "pl.col(\"ts\") < datetime(2024, 1, 2, 3, 4, 5, tzinfo=ZoneInfo(\"UTC\"))",
      "pl.col(\"ts\") < datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=zoneinfo.ZoneInfo(\"UTC\"))",
      "pl.col(\"ts\").is_in([datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc)])",
  };
  for (size_t k = 0; k < sizeof utc / sizeof utc[0]; k++) {
    e = parse_ok(utc[k]);
    assert_int_equal(e->args[1]->value.type.id, QV_TYPE_TIMESTAMP);
    assert_string_equal(e->args[1]->value.type.timezone, "UTC");
    assert_int_equal(e->args[1]->value.v.i, INT64_C(1704164645000000));
    qv_expr_destroy(e);
  }
  e = parse_ok("pl.col(\"ts\") < datetime(2024, 1, 2, tzinfo=None)");
  assert_null(e->args[1]->value.type.timezone);
  qv_expr_destroy(e);
  expect_error("pl.col(\"ts\") < datetime(2024, 1, 2, tzinfo=ZoneInfo(\"Europe/Berlin\"))",
               "expression: time zone 'Europe/Berlin' is not supported (only UTC; named zones need a tz database) at "
               "column 53");
  expect_error("pl.col(\"ts\") < datetime(2024, 1, 2, tzinfo=1)",
               "expression: datetime() expects a tzinfo at column 44");
  expect_error("pl.col(\"ts\") < timezone.utc", "expression: a tzinfo is not an expression at column 16");

  e = parse_ok("pl.col(\"f\") > float('nan')");
  assert_true(isnan(e->args[1]->value.v.f));
  qv_expr_destroy(e);

  e = parse_ok("pl.col(\"f\") > -float('inf')");
  assert_true(isinf(e->args[1]->value.v.f) && e->args[1]->value.v.f < 0); /* Python computes it */
  qv_expr_destroy(e);

  e = parse_ok("pl.col(\"x\") == b'\\x00\\xff'");
  assert_int_equal(e->args[1]->value.type.id, QV_TYPE_BINARY);
  assert_int_equal(e->args[1]->value.len, 2);
  assert_int_equal(e->args[1]->value.bytes[1], 0xff);
  qv_expr_destroy(e);

  e = parse_ok("pl.col('a') == r'\\d' 'x'"); /* raw and adjacent strings */
  assert_string_equal((const char *)e->args[1]->value.bytes, "\\dx");
  qv_expr_destroy(e);

  e = parse_ok("polars.col('a') > pl.lit(1.5)");
  assert_true(e->args[1]->flags & QV_EXPR_F_DYNAMIC);
  qv_expr_destroy(e);
}

static void test_limits(void **state) {
  (void)state;
  qv_error err;
  qv_expr *e = NULL;
  /* Deep parentheses are refused, never a stack overflow. */
  size_t n = 100000;
  char *s = malloc(n * 2 + 32);
  memset(s, '(', n);
  strcpy(s + n, "pl.col(\"a\")");
  memset(s + n + 11, ')', n);
  s[2 * n + 11] = '\0';
  assert_int_equal(qv_polars_parse(s, &e, &err), QV_ERR_PARSE);
  assert_null(e);
  /* A long left-deep chain is refused at the depth limit. */
  tu_text t = {0};
  tu_put(&t, "pl.col(\"a\")");
  for (int i = 0; i < 600; i++) tu_put(&t, " + 1");
  assert_int_equal(qv_polars_parse(t.s, &e, &err), QV_ERR_PARSE);
  assert_string_equal(err.message, "expression: expression nested deeper than 512 levels at column 2057");
  free(t.s);
  /* Under the limit it parses. */
  t = (tu_text){0};
  tu_put(&t, "pl.col(\"a\")");
  for (int i = 0; i < 500; i++) tu_put(&t, " + 1");
  e = parse_ok(t.s);
  qv_expr_destroy(e);
  free(t.s);
  /* Many unary minus signs on an expression. */
  memset(s, '-', n);
  strcpy(s + n, "pl.col(\"a\")");
  assert_int_equal(qv_polars_parse(s, &e, &err), QV_ERR_PARSE);
  /* ...and on a number, folded by Python. */
  memset(s, '-', 1000);
  strcpy(s + 1000, "1 < pl.col(\"a\")");
  e = parse_ok(s);
  assert_int_equal(e->args[1]->value.v.i, 1);
  qv_expr_destroy(e);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_tree_as_polars_json),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_unknown_methods_and_functions),
      cmocka_unit_test(test_literals),
      cmocka_unit_test(test_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
