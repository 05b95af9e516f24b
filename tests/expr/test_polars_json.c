/* The Polars JSON front end.  Every fixture written by the real Polars is
 * read (test_polars_text.c compares them with the text front end and pins
 * their canonical text); here: node details, unknown constructs that
 * degrade to QV_OP_UNKNOWN, malformed input with byte offsets, and limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr_test_util.h"
#include "quiver/expr.h"

static qv_expr *from_json(const char *json) {
  qv_expr *e = NULL;
  qv_error err;
  if (qv_polars_from_json(json, strlen(json), &e, &err) != QV_OK) fail_msg("%s: %s", json, err.message);
  return e;
}

static char *print(const char *json) {
  qv_expr *e = from_json(json);
  char *s = qv_expr_to_string(e);
  qv_expr_destroy(e);
  return s;
}

static void expect_print(const char *json, const char *want) {
  char *s = print(json);
  if (strcmp(s, want) != 0) fail_msg("%s\n  want: %s\n  got:  %s", json, want, s);
  qv_free(s);
}

static void expect_error(const char *json, qv_status code, const char *message) {
  qv_expr *e = (qv_expr *)1;
  qv_error err;
  assert_int_equal(qv_polars_from_json(json, strlen(json), &e, &err), code);
  assert_null(e);
  if (strcmp(err.message, message) != 0) fail_msg("%s\n  want: %s\n  got:  %s", json, message, err.message);
}

static void test_nodes(void **state) {
  (void)state;
  qv_expr *e = from_json(
      "{\"BinaryExpr\":{\"left\":{\"Column\":\"val\"},\"op\":\"Gt\",\"right\":{\"Literal\":{\"Dyn\":{\"Float\":0.999}}}}}");
  assert_int_equal(e->op, QV_OP_GT);
  assert_string_equal(e->args[0]->name, "val");
  assert_int_equal(e->args[1]->value.type.id, QV_TYPE_FLOAT64);
  assert_true(e->args[1]->value.v.f == 0.999);
  assert_true(e->args[1]->flags & QV_EXPR_F_DYNAMIC);
  assert_int_equal(e->sem.float_order, QV_FLOAT_POLARS);
  qv_expr_destroy(e);

  e = from_json("{\"Cast\":{\"expr\":{\"Column\":\"a\"},\"dtype\":{\"Literal\":\"Int32\"},\"options\":\"NonStrict\"}}");
  assert_int_equal(e->op, QV_OP_CAST);
  assert_false(e->sem.cast_strict);
  assert_int_equal(e->type.id, QV_TYPE_INT32);
  qv_expr_destroy(e);

  /* The casts Polars' optimizer inserts wrap instead of failing. */
  e = from_json(
      "{\"Cast\":{\"expr\":{\"Column\":\"a\"},\"dtype\":{\"Literal\":\"Int8\"},\"options\":\"Overflowing\"}}");
  assert_int_equal(e->op, QV_OP_CAST);
  assert_true(e->flags & QV_EXPR_F_WRAP);
  qv_expr_destroy(e);
  /* Polars' Int128 (a signed integer with a UInt64) is decimal(38, 0) here. */
  expect_print("{\"Cast\":{\"expr\":{\"Column\":\"a\"},\"dtype\":{\"Literal\":\"Int128\"},\"options\":\"NonStrict\"}}",
               "TRY_CAST(a AS decimal(38,0))");
  expect_print("{\"Literal\":{\"Scalar\":{\"Int128\":-1180591620717411303424}}}",
               "decimal(38,0) '-1180591620717411303424'");

  /* Whitespace and member order do not matter. */
  expect_print(
      " { \"BinaryExpr\" : { \"right\" : {\"Literal\":{\"Scalar\":{\"Int16\":-3}}}, \"op\" : \"Eq\", \"left\" : {\"Column\":\"a b\"} } } ",
      "(`a b` = -3)");
  expect_print("{\"Literal\":{\"Scalar\":{\"Datetime\":[1704164645000006,\"Microseconds\",null]}}}",
               "timestamp '2024-01-02 03:04:05.000006'");
  expect_print("{\"Literal\":{\"Scalar\":{\"Decimal\":[-125,10,3]}}}", "decimal(10,3) '-0.125'");
  expect_print("{\"Literal\":{\"Scalar\":{\"UInt64\":18446744073709551615}}}", "18446744073709551615");
  expect_print("{\"Literal\":{\"Dyn\":{\"Int\":-9223372036854775809}}}", "unknown<Literal>()");
  expect_print("{\"Literal\":{\"Dyn\":{\"Str\":\"s\"}}}", "'s'");
  expect_print(
      "{\"Function\":{\"input\":[{\"Column\":\"a\"}],\"function\":{\"FillNullWithStrategy\":{\"Forward\":null}}}}",
      "fill_null(a, strategy='forward')");
}

static void test_unknown(void **state) {
  (void)state;
  /* Other Polars versions: new node kinds, functions, ops, dtypes. */
  expect_print("{\"Wildcard\":null}", "unknown<Wildcard>()");
  expect_print("\"Len\"", "unknown<Len>()");
  expect_print("{\"Function\":{\"input\":[{\"Column\":\"a\"}],\"function\":{\"StringExpr\":\"Reverse\"}}}",
               "unknown<StringExpr.Reverse>(a)");
  expect_print("{\"Function\":{\"input\":[{\"Column\":\"a\"}],\"function\":{\"NewGroup\":{\"Thing\":{\"x\":1}}}}}",
               "unknown<NewGroup.Thing>(a)");
  expect_print("{\"Function\":{\"input\":[{\"Column\":\"a\"}],\"function\":\"Frobnicate\"}}", "unknown<Frobnicate>(a)");
  expect_print("{\"BinaryExpr\":{\"left\":{\"Column\":\"a\"},\"op\":\"Spaceship\",\"right\":{\"Column\":\"b\"}}}",
               "unknown<BinaryExpr.Spaceship>(a, b)");
  expect_print("{\"Cast\":{\"expr\":{\"Column\":\"a\"},\"dtype\":{\"Literal\":\"Object\"},\"options\":\"Strict\"}}",
               "unknown<Cast>(a)");
  /* NaN and infinities serialize as null: the value is lost */
  expect_print("{\"Literal\":{\"Scalar\":{\"Float64\":null}}}", "unknown<Literal>()");
  /* Int128 literals past 38 digits (quiver computes Int128 as decimal(38, 0)) */
  expect_print("{\"Literal\":{\"Scalar\":{\"Int128\":123456789012345678901234567890123456789}}}", "unknown<Literal>()");
  expect_print("{\"Literal\":{\"Series\":[1,2,3]}}", "unknown<Literal>()");
  /* A known function with an unexpected number of inputs. */
  expect_print("{\"Function\":{\"input\":[{\"Column\":\"a\"},{\"Column\":\"b\"}],\"function\":\"Abs\"}}",
               "unknown<Abs>(a, b)");
  /* List bytes that are not an Arrow IPC stream: untranslatable, not an error. */
  expect_print(
      "{\"Function\":{\"input\":[{\"Column\":\"a\"},{\"Literal\":{\"Scalar\":{\"List\":[1,2,3]}}}],"
      "\"function\":{\"Boolean\":{\"IsIn\":{\"nulls_equal\":false}}}}}",
      "unknown<is_in>(a, unknown<Literal>())");
}

static void test_errors(void **state) {
  (void)state;
  expect_error("", QV_ERR_PARSE, "polars json: expected a value, found end of input at byte 0");
  expect_error("{\"Column\":\"a\"", QV_ERR_PARSE, "polars json: expected ',' or '}', found end of input at byte 13");
  expect_error("{\"Column\":1}", QV_ERR_PARSE, "polars json: Column expects a name at byte 0");
  expect_error("[1]", QV_ERR_PARSE, "polars json: expected an expression node at byte 0");
  expect_error("{\"a\":1,\"b\":2}", QV_ERR_PARSE, "polars json: expected an expression node at byte 0");
  expect_error("{\"BinaryExpr\":{\"left\":{\"Column\":\"a\"},\"op\":\"Gt\"}}", QV_ERR_PARSE,
               "polars json: BinaryExpr expects left, op and right at byte 14");
  expect_error("{\"Literal\":{\"Dyn\":{\"Int\":1.5}}}", QV_ERR_PARSE, "polars json: expected an integer at byte 25");
  expect_error("{\"Literal\":{\"Scalar\":{\"Int8\":300}}}", QV_ERR_PARSE,
               "polars json: Int8 value out of range at byte 29");
  expect_error("{\"Literal\":{\"Scalar\":{\"Boolean\":1}}}", QV_ERR_PARSE,
               "polars json: expected true or false at byte 32");
  expect_error("{\"Literal\":{\"Scalar\":{\"Datetime\":[1,\"Hours\",null]}}}", QV_ERR_PARSE,
               "polars json: expected [value, unit, zone] at byte 33");
  expect_error("{\"Literal\":{\"Scalar\":{\"Decimal\":[1,39,2]}}}", QV_ERR_PARSE,
               "polars json: expected [value, precision, scale] at byte 32");
  expect_error("{\"Literal\":{\"Scalar\":{\"Decimal\":[1000,3,0]}}}", QV_ERR_PARSE,
               "polars json: decimal value does not fit its precision at byte 33");
  expect_error("{\"Literal\":{\"Scalar\":{\"Binary\":[1,256]}}}", QV_ERR_PARSE,
               "polars json: expected a byte at byte 34");
  expect_error("{\"Function\":{\"input\":{},\"function\":\"Abs\"}}", QV_ERR_PARSE,
               "polars json: Function expects input and function at byte 12");
  expect_error("{\"Ternary\":{\"predicate\":{\"Column\":\"a\"}}}", QV_ERR_PARSE,
               "polars json: Ternary expects predicate, truthy and falsy at byte 11");
  expect_error("{\"Cast\":{\"expr\":{\"Column\":\"a\"}}}", QV_ERR_PARSE,
               "polars json: Cast expects expr, dtype and options at byte 8");
  /* An error deep inside is reported once, with its own offset. */
  expect_error("{\"Function\":{\"input\":[{\"Column\":\"a\"},{\"Column\":7}],\"function\":\"Coalesce\"}}", QV_ERR_PARSE,
               "polars json: Column expects a name at byte 37");
}

static void test_limits(void **state) {
  (void)state;
  /* NOT(NOT(...)) 600 deep: deeper than the IR allows, refused cleanly. */
  tu_text t = {0};
  for (int i = 0; i < 600; i++) tu_put(&t, "{\"Function\":{\"input\":[");
  tu_put(&t, "{\"Column\":\"a\"}");
  for (int i = 0; i < 600; i++) tu_put(&t, "],\"function\":{\"Boolean\":\"Not\"}}}");
  qv_expr *e = NULL;
  qv_error err;
  assert_int_equal(qv_polars_from_json(t.s, t.n, &e, &err), QV_ERR_PARSE);
  assert_null(e);
  free(t.s);
  /* 500 deep is fine. */
  t = (tu_text){0};
  for (int i = 0; i < 500; i++) tu_put(&t, "{\"Function\":{\"input\":[");
  tu_put(&t, "{\"Column\":\"a\"}");
  for (int i = 0; i < 500; i++) tu_put(&t, "],\"function\":{\"Boolean\":\"Not\"}}}");
  assert_int_equal(qv_polars_from_json(t.s, t.n, &e, &err), QV_OK);
  qv_expr_destroy(e);
  free(t.s);
  /* A long chained when flattens into one node. */
  t = (tu_text){0};
  for (int i = 0; i < 2000; i++)
    tu_put(&t, "{\"Ternary\":{\"predicate\":{\"Column\":\"p\"},\"truthy\":{\"Column\":\"t\"},\"falsy\":");
  tu_put(&t, "{\"Column\":\"o\"}");
  for (int i = 0; i < 2000; i++) tu_put(&t, "}}");
  assert_int_equal(qv_polars_from_json(t.s, t.n, &e, &err), QV_ERR_PARSE); /* JSON depth 4001 > 2048 */
  free(t.s);
  t = (tu_text){0};
  for (int i = 0; i < 900; i++)
    tu_put(&t, "{\"Ternary\":{\"predicate\":{\"Column\":\"p\"},\"truthy\":{\"Column\":\"t\"},\"falsy\":");
  tu_put(&t, "{\"Column\":\"o\"}");
  for (int i = 0; i < 900; i++) tu_put(&t, "}}");
  assert_int_equal(qv_polars_from_json(t.s, t.n, &e, &err), QV_OK);
  assert_int_equal(e->op, QV_OP_WHEN);
  assert_int_equal(e->n_args, 1801);
  qv_expr_destroy(e);
  free(t.s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nodes),
      cmocka_unit_test(test_unknown),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
