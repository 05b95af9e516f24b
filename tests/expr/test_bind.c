/* qv_expr_bind: name resolution, the type of every node, implicit casts
 * and literal conversions (golden file: bound text plus a typed rendering
 * of the tree), exact errors, and the values literals are converted to. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "failing_alloc.h"
#include "expr/bound_check.h"
#include "expr/expr_test_util.h"
#include "quiver/expr.h"

static qv_schema schema = QV_SCHEMA_INIT;

static int setup(void **state) {
  (void)state;
  tu_schema(&schema);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  qv_schema_reset(&schema);
  return 0;
}

/* The front end of the golden file being read: the Lance filter language,
 * or Polars expressions (bind_polars_*.txt: Polars' result types, each
 * checked against Polars 2.1.0 by `df.select(e).dtypes`). */
static bool polars_input;

static void bind_line(const char *line, void *ud) {
  tu_text *out = ud;
  qv_expr *e = NULL;
  qv_error err;
  tu_put(out, "in:    ");
  tu_put(out, line);
  tu_put(out, "\n");
  qv_status ps = polars_input ? qv_polars_parse(line, &e, &err) : qv_lance_filter_parse(line, &e, &err);
  if (ps != QV_OK) fail_msg("%s: %s", line, err.message);
  qv_status st = qv_expr_bind(e, &schema, &err);
  if (st != QV_OK) {
    char buf[1200];
    snprintf(buf, sizeof buf, "err:   %s: %s\n", qv_status_string(st), err.message);
    tu_put(out, buf);
  } else {
    /* (the contract checker knows the Lance operators) */
    const char *why = polars_input ? NULL : bc_check(e, &schema);
    if (why) fail_msg("%s: %s", line, why);
    char *s = qv_expr_to_string(e);
    tu_put(out, "out:   ");
    tu_put(out, s);
    tu_put(out, "\ntypes: ");
    tu_typed(out, e);
    tu_put(out, "\n");
    /* Binding is idempotent: a bound tree binds to itself. */
    if (qv_expr_bind(e, &schema, &err) != QV_OK) fail_msg("%s: binding again: %s", line, err.message);
    char *s2 = qv_expr_to_string(e);
    assert_string_equal(s, s2);
    qv_free(s2);
    qv_free(s);
  }
  qv_expr_destroy(e);
}

static void test_golden(void **state) {
  (void)state;
  tu_text out = {0};
  polars_input = false;
  assert_true(tu_each_line("bind_input.txt", bind_line, &out) > 150);
  assert_int_equal(tu_golden("bind_expected.txt", out.s), 0);
  free(out.s);
}

static void test_golden_polars(void **state) {
  (void)state;
  tu_text out = {0};
  polars_input = true;
  assert_true(tu_each_line("bind_polars_input.txt", bind_line, &out) > 40);
  polars_input = false;
  assert_int_equal(tu_golden("bind_polars_expected.txt", out.s), 0);
  free(out.s);
}

static qv_expr *bound(const char *text) {
  qv_expr *e = NULL;
  qv_error err;
  if (qv_lance_filter_parse(text, &e, &err) != QV_OK) fail_msg("%s: %s", text, err.message);
  if (qv_expr_bind(e, &schema, &err) != QV_OK) fail_msg("%s: %s", text, err.message);
  return e;
}

static void expect_error(const char *text, qv_status code, const char *message) {
  qv_expr *e = NULL;
  qv_error err;
  assert_int_equal(qv_lance_filter_parse(text, &e, &err), QV_OK);
  assert_int_equal(qv_expr_bind(e, &schema, &err), code);
  assert_int_equal(err.code, code);
  assert_string_equal(err.message, message);
  qv_expr_destroy(e);
}

static void test_errors(void **state) {
  (void)state;
  expect_error("s = 5", QV_ERR_TYPE, "filter: cannot compare string with int64 at column 3");
  expect_error("flag AND a = 1 AND s > 5", QV_ERR_TYPE, "filter: cannot compare string with int64 at column 22");
  expect_error("a + s > 1", QV_ERR_TYPE, "filter: cannot apply + to int32 and string at column 3");
  expect_error("flag AND a", QV_ERR_TYPE, "filter: AND expects boolean operands, got int32 at column 6");
  expect_error("a LIKE 'x'", QV_ERR_TYPE, "filter: LIKE expects string arguments, got int32 (argument 1) at column 3");
  expect_error("d = '2024-13-01'", QV_ERR_TYPE, "filter: cannot read '2024-13-01' as a date (YYYY-MM-DD) at column 5");
  expect_error("tny > '2024-01-02'", QV_ERR_UNSUPPORTED,
               "filter: a timestamp without an offset cannot be compared with time zone America/New_York "
               "(write the offset, e.g. '2024-01-02 03:04:05+01:00') at column 7");
  expect_error("CAST(l AS int) = 1", QV_ERR_TYPE, "filter: cannot cast list<int32> to int32 at column 1");
  expect_error("-u = 1", QV_ERR_TYPE, "filter: cannot negate uint64 at column 1");
  expect_error("st.nope = 1", QV_ERR_NOT_FOUND,
               "filter: struct has no field `nope` (fields: x, y, inner, Cased, cased) at column 4");
  expect_error("a.x = 1", QV_ERR_TYPE, "filter: cannot read field `x` of int32 at column 3");
  expect_error("dUp = 1", QV_ERR_INVALID,
               "filter: column name `dUp` is ambiguous (it matches several columns when case is ignored; "
               "quote the exact spelling) at column 1");
  expect_error("nosuch = 1", QV_ERR_NOT_FOUND,
               "filter: no column `nosuch` (columns: a, b, c, i16, u, u8, u16, u32, f, g, s, t, x, d, ts, tms, "
               "tn, tz, tny, tof, dec, big, flag, l, ls, fl, st, Name, dup, DUP, tm, du, my col, date)");
  expect_error("coalesce(a, s) = 1", QV_ERR_TYPE, "filter: coalesce cannot combine int32 with string at column 1");
  expect_error("array_has(l, 'x')", QV_ERR_TYPE, "filter: array_has cannot look for string in list<int32> at column 1");
}

static void test_long_column_list(void **state) {
  (void)state;
  qv_schema wide = QV_SCHEMA_INIT;
  char name[64];
  for (int i = 0; i < 300; i++) {
    snprintf(name, sizeof name, "column_number_%03d", i);
    tu_add_field(&wide, name, "int32");
  }
  qv_expr *e = NULL;
  qv_error err;
  assert_int_equal(qv_lance_filter_parse("x = 1", &e, &err), QV_OK);
  assert_int_equal(qv_expr_bind(e, &wide, &err), QV_ERR_NOT_FOUND);
  assert_true(strlen(err.message) < sizeof err.message - 1);
  assert_non_null(strstr(err.message, "column_number_000, "));
  assert_non_null(strstr(err.message, "...)"));
  qv_expr_destroy(e);
  qv_schema_reset(&wide);
}

static void test_columns_and_names(void **state) {
  (void)state;
  qv_expr *e = bound("NAME = 'x' AND st.Y = 'y' AND `my col` > A");
  int32_t cols[8];
  assert_int_equal(qv_expr_columns(e, cols, 8), 4);
  assert_int_equal(cols[0], qv_schema_find(&schema, "Name"));
  assert_int_equal(cols[1], qv_schema_find(&schema, "st"));
  assert_int_equal(cols[2], qv_schema_find(&schema, "my col"));
  assert_int_equal(cols[3], qv_schema_find(&schema, "a"));
  /* Names take the schema's spelling. */
  assert_string_equal(e->args[0]->args[0]->args[0]->name, "Name");
  assert_string_equal(e->args[0]->args[1]->args[0]->name, "y");
  qv_expr_destroy(e);
}

static void test_literal_conversions(void **state) {
  (void)state;
  qv_expr *e = bound("c = -5");
  assert_int_equal(e->args[1]->type.id, QV_TYPE_INT8);
  assert_int_equal(e->args[1]->value.type.id, QV_TYPE_INT8);
  assert_int_equal(e->args[1]->value.v.i, -5);
  qv_expr_destroy(e);

  e = bound("u = 7");
  assert_int_equal(e->args[1]->value.type.id, QV_TYPE_UINT64);
  assert_true(e->args[1]->value.v.u == 7);
  qv_expr_destroy(e);

  e = bound("g = 0.1");
  assert_int_equal(e->args[1]->value.type.id, QV_TYPE_FLOAT32);
  assert_true((float)e->args[1]->value.v.f == 0.1f);
  qv_expr_destroy(e);

  e = bound("dec = 1.5");
  assert_int_equal(e->args[1]->value.type.id, QV_TYPE_DECIMAL128);
  assert_true(e->args[1]->value.v.dec.lo == 150 && e->args[1]->value.v.dec.hi == 0);
  qv_expr_destroy(e);

  e = bound("d = '1970-01-11'");
  assert_int_equal(e->args[1]->value.type.id, QV_TYPE_DATE32);
  assert_int_equal(e->args[1]->value.v.i, 10);
  qv_expr_destroy(e);

  e = bound("tz > '1970-01-01 01:00:00+01:00'");
  assert_int_equal(e->args[1]->value.type.id, QV_TYPE_TIMESTAMP);
  assert_int_equal(e->args[1]->value.type.unit, QV_UNIT_MILLI);
  assert_string_equal(e->args[1]->value.type.timezone, "UTC");
  assert_int_equal(e->args[1]->value.v.i, 0);
  qv_expr_destroy(e);

  e = bound("tof > '1970-01-01 05:30:00'"); /* wall clock in +05:30 is the epoch */
  assert_int_equal(e->args[1]->value.v.i, 0);
  qv_expr_destroy(e);

  e = bound("ts > date '1970-01-02'");
  assert_int_equal(e->args[1]->value.type.id, QV_TYPE_TIMESTAMP);
  assert_true(e->args[1]->value.v.i == 86400000000LL);
  qv_expr_destroy(e);

  e = bound("x = 'ab'");
  assert_int_equal(e->args[1]->value.type.id, QV_TYPE_BINARY);
  assert_int_equal(e->args[1]->value.len, 2);
  qv_expr_destroy(e);

  e = bound("a = NULL");
  assert_true(e->args[1]->value.is_null);
  assert_int_equal(e->args[1]->type.id, QV_TYPE_INT32);
  qv_expr_destroy(e);
}

static void test_implicit_casts(void **state) {
  (void)state;
  qv_expr *e = bound("c = 300");
  const qv_expr *cast = e->args[0];
  assert_int_equal(cast->op, QV_OP_CAST);
  assert_true(cast->sem.cast_strict);
  assert_int_equal(cast->pos, 1);
  assert_int_equal(cast->type.id, QV_TYPE_INT64);
  assert_int_equal(cast->args[0]->kind, QV_EXPR_COLUMN);
  qv_expr_destroy(e);

  /* int64 against uint64 stays mixed: no cast, the kernel compares values. */
  e = bound("b < u");
  assert_int_equal(e->args[0]->type.id, QV_TYPE_INT64);
  assert_int_equal(e->args[1]->type.id, QV_TYPE_UINT64);
  assert_int_equal(e->args[0]->kind, QV_EXPR_COLUMN);
  assert_int_equal(e->args[1]->kind, QV_EXPR_COLUMN);
  qv_expr_destroy(e);
}

static void test_bad_input(void **state) {
  (void)state;
  qv_error err;
  assert_int_equal(qv_expr_bind(NULL, &schema, &err), QV_ERR_INVALID);
  qv_expr *e = qv_expr_column("a");
  assert_int_equal(qv_expr_bind(e, NULL, &err), QV_ERR_INVALID);
  qv_expr_destroy(e);
  /* Deeper than the binder goes: refused, not a stack overflow. */
  e = qv_expr_column("flag");
  for (int i = 0; i < 5000; i++) e = qv_expr_unary(QV_OP_NOT, e);
  assert_int_equal(qv_expr_bind(e, &schema, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "nested too deeply"));
  /* Free it iteratively: destroy recursion is the caller's concern here. */
  while (e) {
    qv_expr *inner = e->n_args ? e->args[0] : NULL;
    if (e->n_args) e->args[0] = NULL;
    qv_expr_destroy(e);
    e = inner;
  }
}

/* Every allocation failing in turn: each call reports QV_ERR_NOMEM (or
 * succeeds), nothing crashes, and under ASan nothing leaks. */
static void test_out_of_memory(void **state) {
  (void)state;
  const char *text =
      "(a = 1 OR b IN (1, 2.5, 3)) AND st.x > 5 AND s LIKE 'x%' ESCAPE '!' AND ts > '2024-01-01' AND "
      "coalesce(c, 300) = 1 AND array_has(l, b) AND dec + 1 > 2 AND date_part('year', d) = 2024 AND "
      "l = [1, 2] AND fl = [1, 2, 3] AND tz > '2024-01-01' AND CAST(s AS decimal(10,2)) < 1.5 AND "
      "`my col` BETWEEN -1 AND 1e3 AND x = X'00ff' AND NOT flag AND starts_with(lower(s), \"a\")";
  int successes = 0;
  for (long n = 0; n < 100000 && successes < 3; n++) {
    qv_expr *e = NULL;
    qv_error err;
    failing_alloc_budget = n;
    qv_set_allocator(failing_alloc, NULL);
    qv_status st = qv_lance_filter_parse(text, &e, &err);
    char *s = NULL;
    if (st == QV_OK) {
      s = qv_expr_to_string(e);
      st = qv_expr_bind(e, &schema, &err);
    }
    char *s2 = st == QV_OK ? qv_expr_to_string(e) : NULL;
    qv_expr *c = st == QV_OK ? qv_expr_clone(e) : NULL;
    qv_set_allocator(NULL, NULL);
    failing_alloc_budget = -1;
    if (st != QV_OK) {
      if (st != QV_ERR_NOMEM) fail_msg("budget %ld: %s", n, err.message);
      assert_string_equal(err.message, "filter: out of memory");
    } else if (s && s2 && c) {
      successes++;
    }
    qv_expr_destroy(c);
    qv_free(s2);
    qv_free(s);
    qv_expr_destroy(e);
  }
  assert_int_equal(successes, 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_golden),
      cmocka_unit_test(test_golden_polars),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_long_column_list),
      cmocka_unit_test(test_columns_and_names),
      cmocka_unit_test(test_literal_conversions),
      cmocka_unit_test(test_implicit_casts),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_out_of_memory),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
