/* The Lance SQL filter parser: canonical text of every construct (golden
 * file), exact errors with their columns, node positions, literal values
 * and types, semantics flags, and the limits that protect the stack. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr_test_util.h"
#include "quiver/columnar.h"
#include "quiver/expr.h"

/* "(canonical text)" or "error <code>: <message>". */
static void parse_line(const char *line, void *ud) {
  tu_text *out = ud;
  qv_expr *e = NULL;
  qv_error err;
  tu_put(out, "in:  ");
  tu_put(out, line);
  tu_put(out, "\n");
  qv_status st = qv_lance_filter_parse(line, &e, &err);
  if (st != QV_OK) {
    char buf[1200];
    snprintf(buf, sizeof buf, "err: %s: %s\n", qv_status_string(st), err.message);
    tu_put(out, buf);
    assert_null(e);
    return;
  }
  char *s = qv_expr_to_string(e);
  assert_non_null(s);
  tu_put(out, "out: ");
  tu_put(out, s);
  tu_put(out, "\n");
  /* The property: what prints parses back to a tree that prints the same. */
  qv_expr *again = NULL;
  assert_int_equal(qv_lance_filter_parse(s, &again, &err), QV_OK);
  char *s2 = qv_expr_to_string(again);
  assert_string_equal(s, s2);
  qv_free(s2);
  qv_free(s);
  qv_expr_destroy(again);
  qv_expr_destroy(e);
}

static void test_golden(void **state) {
  (void)state;
  tu_text out = {0};
  assert_true(tu_each_line("lance_parse_input.txt", parse_line, &out) > 100);
  assert_int_equal(tu_golden("lance_parse_expected.txt", out.s), 0);
  free(out.s);
}

static qv_expr *parse_ok(const char *text) {
  qv_expr *e = NULL;
  qv_error err;
  qv_status st = qv_lance_filter_parse(text, &e, &err);
  if (st != QV_OK) fail_msg("%s: %s", text, err.message);
  return e;
}

static void expect_error(const char *text, qv_status code, const char *message) {
  qv_expr *e = (qv_expr *)1;
  qv_error err;
  assert_int_equal(qv_lance_filter_parse(text, &e, &err), code);
  assert_null(e);
  assert_int_equal(err.code, code);
  assert_string_equal(err.message, message);
}

/* Binds text against tu_schema: the result type's name, or the error. */
static void expect_bound(const char *text, qv_status code, const char *want) {
  qv_schema sch = QV_SCHEMA_INIT;
  tu_schema(&sch);
  qv_expr *e = NULL;
  qv_error err;
  assert_int_equal(qv_lance_filter_parse(text, &e, &err), QV_OK);
  qv_status st = qv_expr_bind(e, &sch, &err);
  assert_int_equal(st, code);
  char ty[64];
  if (st == QV_OK) {
    qv_datatype_format(&e->type, ty, sizeof ty);
    assert_string_equal(ty, want);
  } else {
    assert_string_equal(err.message, want);
  }
  qv_expr_destroy(e);
  qv_schema_reset(&sch);
}

/* Lance's || wants a string on one side and takes strings and integers
 * (pylance 14.0.2: `a || a` of two integers fails to plan, a float prints
 * as Lance formats it, which quiver does not copy); nanvl wants numbers. */
static void test_concat_nanvl_types(void **state) {
  (void)state;
  expect_bound("s || t", QV_OK, "string");
  expect_bound("s || b", QV_OK, "string");
  expect_bound("c || s || NULL", QV_OK, "string");
  expect_bound("a || b", QV_ERR_TYPE, "filter: || needs a string on one side at column 3");
  expect_bound("s || f", QV_ERR_TYPE, "filter: || cannot concatenate float64 (strings and integers only) at column 3");
  expect_bound("nanvl(f, 0.0)", QV_OK, "float64");
  expect_bound("nanvl(g, g)", QV_OK, "float32");
  expect_bound("nanvl(g, 0.0)", QV_OK, "float64");
  expect_bound("nanvl(a, 0.5)", QV_OK, "float64");
  expect_bound("nanvl(s, 1.0) = 1", QV_ERR_TYPE, "filter: isnan expects a number, got string at column 1");
}

static void test_errors(void **state) {
  (void)state;
  expect_error("", QV_ERR_PARSE, "filter: expected an expression at column 1, found end of input");
  expect_error("a = 1 AND (b < 2", QV_ERR_PARSE, "filter: expected ')' at column 17, found end of input");
  expect_error("a = 1 AND AND", QV_ERR_PARSE, "filter: expected an expression at column 11, found \"AND\"");
  expect_error("a IN 1", QV_ERR_PARSE, "filter: expected '(' after IN at column 6, found \"1\"");
  expect_error("x BETWEEN 1 OR 2", QV_ERR_PARSE, "filter: expected AND in BETWEEN at column 13, found \"OR\"");
  expect_error("x IS 5", QV_ERR_PARSE,
               "filter: expected NULL, TRUE, FALSE, DISTINCT FROM or NOT after IS at column 6, found \"5\"");
  expect_error("nosuch(a) = 1", QV_ERR_PARSE, "filter: unknown function `nosuch` at column 1");
  expect_error("a = lower(s, t)", QV_ERR_PARSE, "filter: lower takes 1 argument, got 2 at column 5");
  expect_error("regexp_like(s)", QV_ERR_PARSE, "filter: regexp_like takes 2 to 3 arguments, got 1 at column 1");
  expect_error("coalesce()", QV_ERR_PARSE, "filter: coalesce takes at least 1 argument, got 0 at column 1");
  expect_error("nanvl(f)", QV_ERR_PARSE, "filter: nanvl takes 2 arguments, got 1 at column 1");
  expect_error("l[0] = 1", QV_ERR_UNSUPPORTED, "filter: list element access [n] is not supported at column 3");
  expect_error("s = 'abc", QV_ERR_PARSE, "filter: unterminated string literal at column 5");
  expect_error("a = 1 ; drop", QV_ERR_PARSE, "filter: unexpected character ';' at column 7");
  expect_error("99999999999999999999 = a", QV_ERR_PARSE,
               "filter: integer literal 99999999999999999999 is out of range at column 1");
  expect_error("d = date '2024-02-30'", QV_ERR_PARSE,
               "filter: invalid date literal '2024-02-30' (expected YYYY-MM-DD) at column 10");
  expect_error("CAST(a AS decimal(40,2))", QV_ERR_PARSE,
               "filter: decimal(40,2) is not a valid decimal type (precision 1..38, scale 0..precision) at "
               "column 11");
  expect_error("CAST(a AS timestamp with time zone)", QV_ERR_UNSUPPORTED,
               "filter: timestamp with time zone is not supported in a filter at column 11");
  expect_error("s LIKE 'x' ESCAPE 'ab'", QV_ERR_PARSE, "filter: ESCAPE takes exactly one character at column 19");
  expect_error("date_part('eon', ts) = 1", QV_ERR_PARSE,
               "filter: date_part expects a quoted part name first ('year', 'month', 'day', 'hour', ...) at "
               "column 11");
  /* Columns count characters, not bytes. */
  expect_error("s = 'ünï' AND ?", QV_ERR_PARSE, "filter: unexpected character '?' at column 15");
  expect_error("s = '\xff'", QV_ERR_PARSE, "filter: invalid UTF-8 at column 6");
}

static void test_null_arguments(void **state) {
  (void)state;
  qv_expr *e;
  qv_error err;
  assert_int_equal(qv_lance_filter_parse(NULL, &e, &err), QV_ERR_INVALID);
  assert_null(e);
  assert_int_equal(qv_lance_filter_parse("a", NULL, &err), QV_ERR_INVALID);
  assert_int_equal(qv_lance_filter_parse("a = ", &e, NULL), QV_ERR_PARSE); /* err may be NULL */
}

static void test_positions(void **state) {
  (void)state;
  qv_expr *e = parse_ok("a = 1 AND NOT lower(s) LIKE 'x%'");
  assert_int_equal(e->op, QV_OP_AND);
  assert_int_equal(e->pos, 7);
  assert_int_equal(e->args[0]->pos, 3);          /* = */
  assert_int_equal(e->args[0]->args[0]->pos, 1); /* a */
  assert_int_equal(e->args[0]->args[1]->pos, 5); /* 1 */
  const qv_expr *n = e->args[1];
  assert_int_equal(n->op, QV_OP_NOT);
  assert_int_equal(n->pos, 11);
  assert_int_equal(n->args[0]->op, QV_OP_LIKE);
  assert_int_equal(n->args[0]->pos, 24);
  assert_int_equal(n->args[0]->args[0]->pos, 15); /* lower */
  qv_expr_destroy(e);

  e = parse_ok("x NOT IN (1)");
  assert_int_equal(e->op, QV_OP_NOT);
  assert_int_equal(e->pos, 3);
  assert_int_equal(e->args[0]->op, QV_OP_IN);
  assert_int_equal(e->args[0]->pos, 7);
  qv_expr_destroy(e);

  e = parse_ok("st.inner.z = -5");
  assert_int_equal(e->args[0]->op, QV_OP_FIELD);
  assert_string_equal(e->args[0]->name, "z");
  assert_int_equal(e->args[0]->pos, 10);
  assert_string_equal(e->args[0]->args[0]->name, "inner");
  assert_string_equal(e->args[0]->args[0]->args[0]->name, "st");
  assert_int_equal(e->args[0]->args[0]->args[0]->kind, QV_EXPR_COLUMN);
  assert_int_equal(e->args[1]->pos, 14); /* the minus of a folded literal */
  assert_int_equal(e->args[1]->value.v.i, -5);
  qv_expr_destroy(e);
}

static void test_literal_values(void **state) {
  (void)state;
  qv_expr *e = parse_ok("9223372036854775807");
  assert_int_equal(e->kind, QV_EXPR_LITERAL);
  assert_int_equal(e->type.id, QV_TYPE_INT64);
  assert_true(e->value.v.i == INT64_MAX);
  qv_expr_destroy(e);

  e = parse_ok("18446744073709551615");
  assert_int_equal(e->type.id, QV_TYPE_UINT64);
  assert_true(e->value.v.u == UINT64_MAX);
  qv_expr_destroy(e);

  e = parse_ok("-9223372036854775808");
  assert_int_equal(e->type.id, QV_TYPE_INT64);
  assert_true(e->value.v.i == INT64_MIN);
  qv_expr_destroy(e);

  e = parse_ok("1.5e-7");
  assert_int_equal(e->type.id, QV_TYPE_FLOAT64);
  assert_true(e->value.v.f == 1.5e-7);
  qv_expr_destroy(e);

  e = parse_ok("-0.0");
  assert_true(e->value.v.f == 0.0 && signbit(e->value.v.f));
  qv_expr_destroy(e);

  e = parse_ok("1e999");
  assert_true(isinf(e->value.v.f));
  qv_expr_destroy(e);

  e = parse_ok("\"it\"\"s\"");
  assert_int_equal(e->type.id, QV_TYPE_STRING);
  assert_int_equal(e->value.len, 4);
  assert_string_equal((const char *)e->value.bytes, "it\"s");
  qv_expr_destroy(e);

  e = parse_ok("X'abc'");
  assert_int_equal(e->type.id, QV_TYPE_BINARY);
  assert_int_equal(e->value.len, 2);
  assert_int_equal(e->value.bytes[0], 0x0a);
  assert_int_equal(e->value.bytes[1], 0xbc);
  qv_expr_destroy(e);

  e = parse_ok("date '1970-01-02'");
  assert_int_equal(e->type.id, QV_TYPE_DATE32);
  assert_int_equal(e->value.v.i, 1);
  qv_expr_destroy(e);

  e = parse_ok("timestamp '1970-01-01 00:00:01.5'");
  assert_int_equal(e->type.id, QV_TYPE_TIMESTAMP);
  assert_int_equal(e->type.unit, QV_UNIT_MICRO);
  assert_null(e->type.timezone);
  assert_int_equal(e->value.v.i, 1500000);
  qv_expr_destroy(e);

  e = parse_ok("timestamp(0) '1969-12-31 23:59:59.9'");
  assert_int_equal(e->type.unit, QV_UNIT_SECOND);
  assert_int_equal(e->value.v.i, -1); /* finer digits are dropped toward the past, as Arrow */
  qv_expr_destroy(e);

  e = parse_ok("timestamp '1970-01-01 01:00:00+01:00'");
  assert_int_equal(e->value.v.i, 0); /* an offset makes it UTC */
  qv_expr_destroy(e);

  e = parse_ok("decimal(10,2) '-1.255'");
  assert_int_equal(e->type.id, QV_TYPE_DECIMAL128);
  assert_int_equal(e->type.precision, 10);
  assert_int_equal(e->type.scale, 2);
  assert_true(e->value.v.dec.lo == (uint64_t)-126 && e->value.v.dec.hi == -1); /* half away from zero */
  qv_expr_destroy(e);

  e = parse_ok("NULL");
  assert_true(e->value.is_null);
  assert_int_equal(e->type.id, QV_TYPE_NULL);
  qv_expr_destroy(e);

  e = parse_ok("[1, -2]");
  assert_int_equal(e->kind, QV_EXPR_CALL);
  assert_int_equal(e->op, QV_OP_LIST);
  assert_int_equal(e->n_args, 2);
  assert_int_equal(e->args[1]->value.v.i, -2);
  qv_expr_destroy(e);
}

static void test_semantics(void **state) {
  (void)state;
  qv_expr *e = parse_ok("TRY_CAST(s AS int) = CAST(t AS int)");
  assert_false(e->args[0]->sem.cast_strict);
  assert_true(e->args[1]->sem.cast_strict);
  assert_int_equal(e->args[0]->type.id, QV_TYPE_INT32);
  qv_expr_destroy(e);

  e = parse_ok("s ILIKE 'a%' AND s LIKE 'b%' ESCAPE '!'");
  assert_true(e->args[0]->sem.case_insensitive);
  assert_false(e->args[1]->sem.case_insensitive);
  assert_int_equal(e->args[1]->n_args, 3);
  assert_string_equal((const char *)e->args[1]->args[2]->value.bytes, "!");
  /* Everything carries the Lance semantics. */
  qv_semantics lance = QV_SEMANTICS_LANCE;
  assert_int_equal(e->sem.float_order, lance.float_order);
  assert_int_equal(e->sem.int_div, lance.int_div);
  assert_int_equal(e->args[0]->args[0]->sem.overflow, lance.overflow);
  qv_expr_destroy(e);

  e = parse_ok("is_valid(s)");
  assert_int_equal(e->op, QV_OP_IS_NOT_NULL);
  qv_expr_destroy(e);

  e = parse_ok("-(5)");
  assert_int_equal(e->op, QV_OP_NEG);
  qv_expr_destroy(e);
}

static char *repeat(const char *head, const char *unit, int n, const char *tail) {
  size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
  char *s = malloc(hl + ul * (size_t)n + tl + 1);
  memcpy(s, head, hl);
  for (int i = 0; i < n; i++) memcpy(s + hl + ul * (size_t)i, unit, ul);
  memcpy(s + hl + ul * (size_t)n, tail, tl + 1);
  return s;
}

static void test_limits(void **state) {
  (void)state;
  qv_expr *e = NULL;
  qv_error err;
  /* Deep parentheses and prefix chains fail cleanly instead of overflowing
   * the stack. */
  char *s = repeat("", "(", 100000, "a");
  assert_int_equal(qv_lance_filter_parse(s, &e, &err), QV_ERR_PARSE);
  assert_non_null(strstr(err.message, "nested too deeply"));
  free(s);
  s = repeat("", "NOT ", 100000, "a");
  assert_int_equal(qv_lance_filter_parse(s, &e, &err), QV_ERR_PARSE);
  free(s);
  s = repeat("", "abs(", 100000, "a");
  assert_int_equal(qv_lance_filter_parse(s, &e, &err), QV_ERR_PARSE);
  free(s);
  /* A long chain is built by a loop but would make a deep tree. */
  s = repeat("a", " OR a", 100000, "");
  assert_int_equal(qv_lance_filter_parse(s, &e, &err), QV_ERR_PARSE);
  assert_non_null(strstr(err.message, "nested too deeply (limit 512)"));
  free(s);
  /* Within the limit, the printed text (which adds parentheses) parses. */
  s = repeat("a = 0", " OR a = 1", 500, "");
  assert_int_equal(qv_lance_filter_parse(s, &e, &err), QV_OK);
  char *p = qv_expr_to_string(e);
  qv_expr *again = NULL;
  assert_int_equal(qv_lance_filter_parse(p, &again, &err), QV_OK);
  qv_free(p);
  qv_expr_destroy(again);
  qv_expr_destroy(e);
  free(s);
  s = repeat("", "-(", 400, "a");
  char *t = repeat(s, ")", 400, "");
  assert_int_equal(qv_lance_filter_parse(t, &e, &err), QV_OK);
  p = qv_expr_to_string(e);
  assert_int_equal(qv_lance_filter_parse(p, &again, &err), QV_OK);
  qv_free(p);
  qv_expr_destroy(again);
  qv_expr_destroy(e);
  free(t);
  free(s);
  /* A long flat IN list is fine. */
  s = repeat("a IN (0", ", 1", 100000, ")");
  assert_int_equal(qv_lance_filter_parse(s, &e, &err), QV_OK);
  assert_int_equal(e->n_args, 100002);
  qv_expr_destroy(e);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_golden),         cmocka_unit_test(test_errors),
      cmocka_unit_test(test_null_arguments), cmocka_unit_test(test_positions),
      cmocka_unit_test(test_literal_values), cmocka_unit_test(test_semantics),
      cmocka_unit_test(test_limits),         cmocka_unit_test(test_concat_nanvl_types),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
