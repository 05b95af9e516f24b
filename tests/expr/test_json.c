/* The strict JSON reader under the Polars JSON front end: values, escapes,
 * numbers kept as text, accessors, and every refusal with its byte offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "expr/json.h"

static qve_json_doc *parse_ok(const char *text) {
  qve_json_doc *d = NULL;
  qv_error err;
  qv_status st = qve_json_parse(text, strlen(text), "json", &d, &err);
  if (st != QV_OK) fail_msg("%s: %s", text, err.message);
  return d;
}

static void expect_error(const char *text, size_t len, const char *message) {
  qve_json_doc *d = (qve_json_doc *)1;
  qv_error err;
  assert_int_equal(qve_json_parse(text, len, "json", &d, &err), QV_ERR_PARSE);
  assert_null(d);
  assert_string_equal(err.message, message);
}

static void test_values(void **state) {
  (void)state;
  qve_json_doc *d = parse_ok(" {\"a\": [1, -2.5e3, true, false, null, \"x\"], \"b\": {}, \"c\": []} ");
  const qve_json *r = qve_json_root(d);
  assert_int_equal(r->type, QV_JSON_OBJECT);
  assert_int_equal(r->n, 3);
  assert_int_equal(r->offset, 1);
  const qve_json *a = qve_json_get(r, "a");
  assert_non_null(a);
  assert_int_equal(a->type, QV_JSON_ARRAY);
  assert_int_equal(a->n, 6);
  int64_t i;
  double f;
  assert_true(qve_json_int64(&a->items[0], &i));
  assert_int_equal(i, 1);
  assert_false(qve_json_int64(&a->items[1], &i));
  assert_true(qve_json_double(&a->items[1], &f));
  assert_true(f == -2500.0);
  assert_string_equal(a->items[1].str, "-2.5e3");
  assert_int_equal(a->items[2].type, QV_JSON_TRUE);
  assert_int_equal(a->items[3].type, QV_JSON_FALSE);
  assert_int_equal(a->items[4].type, QV_JSON_NULL);
  assert_true(qve_json_is_string(&a->items[5], "x"));
  assert_int_equal(qve_json_get(r, "b")->n, 0);
  assert_int_equal(qve_json_get(r, "c")->type, QV_JSON_ARRAY);
  assert_null(qve_json_get(r, "zz"));
  assert_null(qve_json_get(a, "a"));
  qve_json_doc_destroy(d);
  qve_json_doc_destroy(NULL);
}

static void test_numbers(void **state) {
  (void)state;
  qve_json_doc *d =
      parse_ok("[9223372036854775807, -9223372036854775808, 9223372036854775808, 18446744073709551616, 0, -0]");
  const qve_json *r = qve_json_root(d);
  int64_t i;
  uint64_t u;
  assert_true(qve_json_int64(&r->items[0], &i) && i == INT64_MAX);
  assert_true(qve_json_int64(&r->items[1], &i) && i == INT64_MIN);
  assert_false(qve_json_int64(&r->items[2], &i));
  assert_true(qve_json_uint64(&r->items[2], &u) && u == UINT64_C(9223372036854775808));
  assert_false(qve_json_uint64(&r->items[3], &u));
  assert_string_equal(r->items[3].str, "18446744073709551616"); /* kept as text */
  assert_true(qve_json_int64(&r->items[5], &i) && i == 0);
  assert_false(qve_json_uint64(&r->items[1], &u));
  qve_json_doc_destroy(d);
}

static void test_strings(void **state) {
  (void)state;
  qve_json_doc *d = parse_ok("[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"\\u00e9\\u65e5\\ud83d\\ude00\", \"日本\"]");
  const qve_json *r = qve_json_root(d);
  assert_string_equal(r->items[0].str, "a\"b\\c/d\b\f\n\r\t");
  assert_string_equal(r->items[1].str, "é日😀");
  assert_int_equal(r->items[1].len, 2 + 3 + 4);
  assert_string_equal(r->items[2].str, "日本");
  qve_json_doc_destroy(d);
}

static void test_errors(void **state) {
  (void)state;
  expect_error("", 0, "json: expected a value, found end of input at byte 0");
  expect_error("  ", 2, "json: expected a value, found end of input at byte 2");
  expect_error("{\"a\" 1}", 7, "json: expected ':', found '1' at byte 5");
  expect_error("{\"a\": 1,}", 9, "json: expected a member name, found '}' at byte 8");
  expect_error("[1, 2", 5, "json: expected ',' or ']', found end of input at byte 5");
  expect_error("[1 2]", 5, "json: expected ',' or ']', found '2' at byte 3");
  expect_error("[01]", 4, "json: leading zero in number at byte 2");
  expect_error("[1.]", 4, "json: expected a digit after '.' at byte 3");
  expect_error("[1e]", 4, "json: expected a digit in exponent at byte 3");
  expect_error("[-]", 3, "json: expected a digit at byte 2");
  expect_error("[+1]", 4, "json: expected a value, found '+' at byte 1");
  expect_error("[NaN]", 5, "json: expected a value, found 'N' at byte 1");
  expect_error("[tru]", 5, "json: expected a value, found 't' at byte 1");
  expect_error("\"abc", 4, "json: unterminated string at byte 0");
  expect_error("\"a\nb\"", 5, "json: control character in string at byte 2");
  expect_error("\"\\x\"", 4, "json: invalid escape in string at byte 1");
  expect_error("\"\\u12g4\"", 8, "json: expected a hex digit in \\u escape at byte 5");
  expect_error("\"\\ud800\"", 8, "json: high surrogate without its low surrogate at byte 1");
  expect_error("\"\\udc00\"", 8, "json: lone low surrogate in \\u escape at byte 1");
  expect_error("\"\\u0000\"", 8, "json: \\u0000 in string at byte 1");
  expect_error("\"\xff\"", 3, "json: invalid UTF-8 in string at byte 1");
  expect_error("\"\xc3\"", 3, "json: invalid UTF-8 in string at byte 1");
  expect_error("1 2", 3, "json: expected end of input after the value, found '2' at byte 2");
  expect_error("[1] x", 5, "json: expected end of input after the value, found 'x' at byte 4");
  expect_error("// c\n1", 6, "json: expected a value, found '/' at byte 0");
  /* The length is honoured: the NUL-free prefix is all that is read. */
  expect_error("[1]]", 4, "json: expected end of input after the value, found ']' at byte 3");
  qve_json_doc *d = NULL;
  qv_error err;
  assert_int_equal(qve_json_parse("[1]]", 3, "json", &d, &err), QV_OK);
  qve_json_doc_destroy(d);
  /* An embedded NUL byte is not whitespace. */
  expect_error("1\0", 2, "json: expected end of input after the value, found byte 0x00 at byte 1");
}

static void test_depth(void **state) {
  (void)state;
  size_t n = QV_JSON_MAX_DEPTH;
  char *s = malloc(2 * n + 8);
  memset(s, '[', n);
  memset(s + n, ']', n);
  qve_json_doc *d = NULL;
  qv_error err;
  assert_int_equal(qve_json_parse(s, 2 * n, "json", &d, &err), QV_OK);
  qve_json_doc_destroy(d);
  memset(s, '[', n + 1);
  memset(s + n + 1, ']', n + 1);
  d = NULL;
  assert_int_equal(qve_json_parse(s, 2 * n + 2, "json", &d, &err), QV_ERR_PARSE);
  assert_string_equal(err.message, "json: nested deeper than 2048 levels at byte 2048");
  /* A hostile run of '[' never recurses past the bound. */
  char *big = malloc(1 << 20);
  memset(big, '[', 1 << 20);
  assert_int_equal(qve_json_parse(big, 1 << 20, "json", &d, &err), QV_ERR_PARSE);
  free(big);
  free(s);
  assert_int_equal(qve_json_parse("1", (size_t)QV_JSON_MAX_SIZE + 1, "json", &d, &err), QV_ERR_PARSE);
}

static void test_large(void **state) {
  (void)state;
  /* Many values: the scratch stack and chunks grow. */
  size_t n = 200000;
  char *s = malloc(n * 4 + 4);
  size_t k = 0;
  s[k++] = '[';
  for (size_t i = 0; i < n; i++) {
    if (i) s[k++] = ',';
    s[k++] = (char)('0' + i % 10);
  }
  s[k++] = ']';
  qve_json_doc *d = NULL;
  qv_error err;
  assert_int_equal(qve_json_parse(s, k, "json", &d, &err), QV_OK);
  const qve_json *r = qve_json_root(d);
  assert_int_equal(r->n, (int32_t)n);
  int64_t v;
  assert_true(qve_json_int64(&r->items[n - 1], &v) && v == (int64_t)((n - 1) % 10));
  qve_json_doc_destroy(d);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values), cmocka_unit_test(test_numbers), cmocka_unit_test(test_strings),
      cmocka_unit_test(test_errors), cmocka_unit_test(test_depth),   cmocka_unit_test(test_large),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
