/* qv_expr_to_string: identifier quoting, literal spelling (floats that
 * round-trip, decimals, dates, timestamps, binary, lists), every operator's
 * form, and the property parse(print(parse(x))) == print(parse(x)) over
 * every filter the expr tests use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr_int.h"
#include "expr/op_info.h"
#include "expr/expr_test_util.h"
#include "quiver/expr.h"

static void assert_prints(qv_expr *e, const char *want) {
  assert_non_null(e);
  char *s = qv_expr_to_string(e);
  assert_non_null(s);
  assert_string_equal(s, want);
  qv_free(s);
  qv_expr_destroy(e);
}

/* Prints, and checks that the text reads back to a tree printing the same. */
static void assert_prints_rt(qv_expr *e, const char *want) {
  char *s = qv_expr_to_string(e);
  assert_non_null(s);
  qv_expr *back = NULL;
  qv_error err;
  if (qv_lance_filter_parse(s, &back, &err) != QV_OK) fail_msg("%s does not parse: %s", s, err.message);
  char *s2 = qv_expr_to_string(back);
  assert_string_equal(s, s2);
  qv_free(s2);
  qv_free(s);
  qv_expr_destroy(back);
  assert_prints(e, want);
}

static qv_expr *col(const char *name) { return qv_expr_column(name); }
static qv_expr *lit(qv_scalar v) { return qv_expr_literal(&v); }
static qv_expr *i64(int64_t v) { return lit(qv_scalar_int(QV_TYPE_INT64, v)); }
static qv_expr *f64(double v) { return lit(qv_scalar_double(v)); }
static qv_expr *f32(float v) {
  qv_scalar s = qv_scalar_double((double)v);
  s.type.id = QV_TYPE_FLOAT32;
  return lit(s);
}
static qv_expr *str(const char *s) {
  qv_scalar v;
  assert_int_equal(qv_scalar_string(s, (int64_t)strlen(s), &v), QV_OK);
  return lit(v);
}
static qv_expr *bin2(qv_op op, qv_expr *a, qv_expr *b) { return qv_expr_binary(op, a, b); }

static void test_identifiers(void **state) {
  (void)state;
  assert_prints_rt(col("abc_1"), "abc_1");
  assert_prints_rt(col("_x"), "_x");
  assert_prints_rt(col("a b"), "`a b`");
  assert_prints_rt(col("1a"), "`1a`");
  assert_prints_rt(col("a`b"), "`a``b`");
  assert_prints_rt(col("`"), "````");
  assert_prints_rt(col(""), "``");
  assert_prints_rt(col("ünï"), "`ünï`");
  assert_prints_rt(col("select"), "`select`");
  assert_prints_rt(col("Null"), "`Null`");
  assert_prints_rt(col("date"), "`date`");
  assert_prints_rt(col("lower"), "lower"); /* a function name is not a keyword */
  qv_expr *f = qv_expr_unary(QV_OP_FIELD, col("st"));
  f->name = qv_strdup("and");
  assert_prints_rt(f, "st.and"); /* any word may follow a dot */
  f = qv_expr_unary(QV_OP_FIELD, col("my st"));
  f->name = qv_strdup("x y");
  assert_prints_rt(f, "`my st`.`x y`");
}

static void test_numbers(void **state) {
  (void)state;
  assert_prints_rt(i64(0), "0");
  assert_prints_rt(i64(-42), "-42");
  assert_prints_rt(i64(INT64_MIN), "-9223372036854775808");
  qv_scalar u = qv_scalar_int(QV_TYPE_UINT64, 0);
  u.v.u = UINT64_MAX;
  assert_prints_rt(lit(u), "18446744073709551615");
  assert_prints(lit(qv_scalar_int(QV_TYPE_INT8, -7)), "-7");
  assert_prints(lit(qv_scalar_int(QV_TYPE_UINT16, 65535)), "65535");
  /* Shortest digits that read back exactly; always a float to the parser. */
  assert_prints_rt(f64(0.1), "0.1");
  assert_prints_rt(f64(1.0), "1.0");
  assert_prints_rt(f64(-2.5), "-2.5");
  assert_prints_rt(f64(1e21), "1e21");
  assert_prints_rt(f64(1e20), "100000000000000000000.0");
  assert_prints_rt(f64(1e-7), "0.0000001");
  assert_prints_rt(f64(1.5e-8), "1.5e-8");
  assert_prints_rt(f64(5e-324), "5e-324");
  assert_prints_rt(f64(DBL_MAX), "1.7976931348623157e308");
  assert_prints_rt(f64(1.0 / 3.0), "0.3333333333333333");
  assert_prints_rt(f64(-0.0), "-0.0");
  assert_prints_rt(f64(INFINITY), "1e999");
  assert_prints_rt(f64(-INFINITY), "-1e999");
  assert_prints(f64(NAN), "CAST('NaN' AS double)");
  /* float32 literals (the binder makes them) print float32's shortest. */
  assert_prints(f32(0.1f), "0.1");
  assert_prints(f32(16777216.0f), "16777216.0");
  assert_prints(f32(3.4028235e38f), "3.4028235e38");
  assert_prints(f32(NAN), "CAST('NaN' AS float)");
}

static qv_expr *dec(int32_t p, int32_t s, int64_t hi, uint64_t lo) {
  qv_scalar v = QV_SCALAR_INIT;
  assert_int_equal(qv_datatype_decimal(p, s, &v.type, NULL), QV_OK);
  v.is_null = false;
  v.v.dec.hi = hi;
  v.v.dec.lo = lo;
  return lit(v);
}

static void test_typed_literals(void **state) {
  (void)state;
  assert_prints_rt(dec(10, 2, 0, 125), "decimal(10,2) '1.25'");
  assert_prints_rt(dec(10, 2, -1, (uint64_t)-5), "decimal(10,2) '-0.05'");
  assert_prints_rt(dec(5, 5, 0, 1), "decimal(5,5) '0.00001'");
  assert_prints_rt(dec(3, 0, 0, 0), "decimal(3,0) '0'");
  /* 10^38 - 1 = 0x4B3B4CA85A86C47A098A223FFFFFFFFF */
  assert_prints_rt(dec(38, 0, 0x4B3B4CA85A86C47All, 0x098A223FFFFFFFFFull),
                   "decimal(38,0) '99999999999999999999999999999999999999'");
  assert_prints_rt(lit(qv_scalar_int(QV_TYPE_DATE32, 0)), "date '1970-01-01'");
  assert_prints_rt(lit(qv_scalar_int(QV_TYPE_DATE32, -1)), "date '1969-12-31'");
  assert_prints_rt(lit(qv_scalar_int(QV_TYPE_DATE32, -719528)), "date '0000-01-01'");
  assert_prints_rt(lit(qv_scalar_int(QV_TYPE_DATE32, -719529)), "date '-0001-12-31'");
  assert_prints_rt(lit(qv_scalar_int(QV_TYPE_DATE32, 2932896)), "date '9999-12-31'");
  assert_prints_rt(lit(qv_scalar_int(QV_TYPE_DATE32, 2932897)), "date '10000-01-01'");
  qv_scalar t = qv_scalar_int(QV_TYPE_TIMESTAMP, 1500000);
  assert_prints_rt(lit(t), "timestamp '1970-01-01 00:00:01.5'");
  t = qv_scalar_int(QV_TYPE_TIMESTAMP, -1);
  t.type.unit = QV_UNIT_NANO;
  assert_prints_rt(lit(t), "timestamp(9) '1969-12-31 23:59:59.999999999'");
  t = qv_scalar_int(QV_TYPE_TIMESTAMP, 86400);
  t.type.unit = QV_UNIT_SECOND;
  assert_prints_rt(lit(t), "timestamp(0) '1970-01-02 00:00:00'");
  t = qv_scalar_int(QV_TYPE_TIMESTAMP, 1);
  t.type.unit = QV_UNIT_MILLI;
  t.type.timezone = qv_strdup("UTC");
  assert_prints(lit(t), "CAST(timestamp(3) '1970-01-01 00:00:00.001Z' AS timestamp[ms, UTC])");
  qv_scalar tm = qv_scalar_int(QV_TYPE_TIME64, 5);
  assert_prints(lit(tm), "CAST(5 AS time64[us])");
}

static void test_strings(void **state) {
  (void)state;
  assert_prints_rt(str("plain"), "'plain'");
  assert_prints_rt(str("it's"), "'it''s'");
  assert_prints_rt(str("''"), "''''''");
  assert_prints_rt(str("\"dq\""), "'\"dq\"'");
  assert_prints_rt(str("line\nbreak"), "'line\nbreak'");
  assert_prints_rt(str(""), "''");
  qv_scalar b = QV_SCALAR_INIT;
  b.type = qv_datatype_simple(QV_TYPE_BINARY);
  b.is_null = false;
  b.bytes = qv_malloc(4);
  memcpy(b.bytes, "\x00\x0a\xff", 4);
  b.len = 3;
  assert_prints_rt(lit(b), "X'000aff'");
  assert_prints_rt(lit(qv_scalar_bool(true)), "TRUE");
  qv_scalar n = QV_SCALAR_INIT;
  assert_prints_rt(lit(n), "NULL");
  /* A typed null prints as NULL too (its type shows in a bound tree). */
  n = qv_scalar_int(QV_TYPE_INT32, 0);
  n.is_null = true;
  assert_prints(lit(n), "NULL");
}

static void test_list_scalar(void **state) {
  (void)state;
  qv_datatype item = qv_datatype_simple(QV_TYPE_INT32);
  qv_builder bld;
  qv_array *arr = NULL;
  assert_int_equal(qv_builder_init(&bld, &item, NULL), QV_OK);
  qv_builder_append_int(&bld, 1);
  qv_builder_append_null(&bld);
  qv_builder_append_int(&bld, -3);
  assert_int_equal(qv_builder_finish(&bld, &arr, NULL), QV_OK);
  qv_scalar v = QV_SCALAR_INIT;
  assert_int_equal(qv_datatype_list(&item, &v.type, NULL), QV_OK);
  v.is_null = false;
  v.list = arr;
  assert_prints(lit(v), "[1, NULL, -3]");
}

/* Timestamps at the ends of int64 in every unit (numpy's datetime64 gives
 * the same texts); the arithmetic must not overflow on the way. */
static void test_timestamp_extremes(void **state) {
  (void)state;
  static const struct {
    int64_t v;
    qv_time_unit unit;
    const char *want;
  } cases[] = {
      {INT64_MAX, QV_UNIT_SECOND, "292277026596-12-04 15:30:07"},
      {-INT64_MAX, QV_UNIT_SECOND, "-292277022657-01-27 08:29:53"},
      {INT64_MAX, QV_UNIT_MILLI, "292278994-08-17 07:12:55.807"},
      {-INT64_MAX, QV_UNIT_MILLI, "-292275055-05-16 16:47:04.193"},
      {INT64_MIN, QV_UNIT_MILLI, "-292275055-05-16 16:47:04.192"},
      {INT64_MAX, QV_UNIT_MICRO, "294247-01-10 04:00:54.775807"},
      {-INT64_MAX, QV_UNIT_MICRO, "-290308-12-21 19:59:05.224193"},
      {INT64_MAX, QV_UNIT_NANO, "2262-04-11 23:47:16.854775807"},
      {INT64_MIN, QV_UNIT_NANO, "1677-09-21 00:12:43.145224192"},
      {-1, QV_UNIT_NANO, "1969-12-31 23:59:59.999999999"},
      {-1, QV_UNIT_SECOND, "1969-12-31 23:59:59"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char buf[96];
    qve_expr_format_timestamp(cases[k].v, cases[k].unit, buf, sizeof buf);
    assert_string_equal(buf, cases[k].want);
  }
}

static void test_operators(void **state) {
  (void)state;
  assert_prints_rt(bin2(QV_OP_AND, bin2(QV_OP_OR, col("a"), col("b")), qv_expr_unary(QV_OP_NOT, col("c"))),
                   "((a OR b) AND (NOT c))");
  assert_prints(bin2(QV_OP_XOR, col("a"), col("b")), "(a XOR b)");
  assert_prints_rt(bin2(QV_OP_NE, col("a"), i64(1)), "(a != 1)");
  assert_prints_rt(bin2(QV_OP_MOD, col("a"), i64(-1)), "(a % -1)");
  assert_prints_rt(bin2(QV_OP_SUB, col("a"), qv_expr_unary(QV_OP_NEG, i64(-5))), "(a - (-(-5)))");
  assert_prints_rt(qv_expr_unary(QV_OP_NEG, qv_expr_unary(QV_OP_NEG, col("a"))), "(-(-a))");
  assert_prints_rt(qv_expr_unary(QV_OP_NEG, f64(-0.0)), "(-(-0.0))");
  static const qv_op is_ops[] = {QV_OP_IS_NULL,     QV_OP_IS_NOT_NULL, QV_OP_IS_TRUE,
                                 QV_OP_IS_NOT_TRUE, QV_OP_IS_FALSE,    QV_OP_IS_NOT_FALSE};
  static const char *const is_text[] = {"(a IS NULL)",     "(a IS NOT NULL)", "(a IS TRUE)",
                                        "(a IS NOT TRUE)", "(a IS FALSE)",    "(a IS NOT FALSE)"};
  for (int k = 0; k < 6; k++) assert_prints_rt(qv_expr_unary(is_ops[k], col("a")), is_text[k]);
  qv_expr *in_args[3] = {col("a"), i64(1), str("x")};
  assert_prints_rt(qv_expr_call(QV_OP_IN, in_args, 3), "(a IN (1, 'x'))");
  qv_expr *in1 = col("a");
  assert_prints(qv_expr_call(QV_OP_IN, &in1, 1), "(a IN ())"); /* not Lance syntax */
  qv_expr *bt[3] = {col("a"), i64(1), bin2(QV_OP_AND, col("x"), col("y"))};
  assert_prints_rt(qv_expr_call(QV_OP_BETWEEN, bt, 3), "(a BETWEEN 1 AND (x AND y))");
  qv_expr *lk[3] = {col("s"), str("a%"), str("!")};
  qv_expr *like = qv_expr_call(QV_OP_LIKE, lk, 3);
  like->sem.case_insensitive = true;
  assert_prints_rt(like, "(s ILIKE 'a%' ESCAPE '!')");
  qv_expr *c = qv_expr_unary(QV_OP_CAST, col("a"));
  c->type = qv_datatype_simple(QV_TYPE_UINT16);
  c->sem.cast_strict = false;
  assert_prints_rt(c, "TRY_CAST(a AS smallint unsigned)");
  c = qv_expr_unary(QV_OP_CAST, col("a"));
  assert_int_equal(qv_datatype_timestamp(QV_UNIT_NANO, "UTC", &c->type, NULL), QV_OK);
  assert_prints(c, "CAST(a AS timestamp[ns, UTC])"); /* no Lance spelling */
  c = qv_expr_unary(QV_OP_CAST, col("a"));
  qv_datatype item = qv_datatype_simple(QV_TYPE_INT64);
  assert_int_equal(qv_datatype_list(&item, &c->type, NULL), QV_OK);
  assert_prints(c, "CAST(a AS list<int64>)");
  qv_expr *f = qv_expr_unary(QV_OP_FIELD, i64(5));
  f->name = qv_strdup("x");
  assert_prints_rt(f, "(5).x");
  qv_expr *li[2] = {i64(1), i64(2)};
  f = qv_expr_unary(QV_OP_FIELD, qv_expr_call(QV_OP_LIST, li, 2));
  f->name = qv_strdup("x");
  assert_prints_rt(f, "([1, 2]).x");
  qv_expr *fn[2] = {col("s"), str("a")};
  assert_prints_rt(qv_expr_call(QV_OP_STARTS_WITH, fn, 2), "starts_with(s, 'a')");
  assert_prints_rt(qv_expr_call(QV_OP_LIST, NULL, 0), "[]");
  /* Unexpected shapes still print, as calls. */
  qv_expr *three[3] = {col("a"), col("b"), col("c")};
  assert_prints(qv_expr_call(QV_OP_EQ, three, 3), "=(a, b, c)");
  qv_expr *holey = qv_expr_binary(QV_OP_EQ, col("a"), col("b"));
  qv_expr_destroy(holey->args[1]);
  holey->args[1] = NULL;
  assert_prints(holey, "(a = ?)");
}

/* parse -> print -> parse -> print is stable over every test input. */
static void round_trip(const char *line, void *ud) {
  int *parsed = ud;
  qv_expr *e = NULL, *again = NULL;
  qv_error err;
  if (qv_lance_filter_parse(line, &e, &err) != QV_OK) return;
  (*parsed)++;
  char *s = qv_expr_to_string(e);
  if (qv_lance_filter_parse(s, &again, &err) != QV_OK) fail_msg("%s -> %s: %s", line, s, err.message);
  char *s2 = qv_expr_to_string(again);
  if (strcmp(s, s2) != 0) fail_msg("%s -> %s -> %s", line, s, s2);
  /* A clone prints the same as its original. */
  qv_expr *c = qv_expr_clone(e);
  char *s3 = qv_expr_to_string(c);
  assert_string_equal(s, s3);
  qv_free(s3);
  qv_expr_destroy(c);
  qv_free(s2);
  qv_free(s);
  qv_expr_destroy(again);
  qv_expr_destroy(e);
}

static void test_round_trip_all_inputs(void **state) {
  (void)state;
  int parsed = 0;
  assert_true(tu_each_line("lance_parse_input.txt", round_trip, &parsed) > 0);
  assert_true(tu_each_line("bind_input.txt", round_trip, &parsed) > 0);
  assert_true(parsed > 250);
}

/* The registry (expr/ops.def): every op has a row with a name, a sane
 * argument range and a mirror that is an involution, and an operator node
 * with an argument count its printed form does not fit prints as a call. */
static void test_registry(void **state) {
  (void)state;
  for (int op = 0; op < QV_OP__COUNT; op++) {
    const qve_op_info *i = qve_op_info_of((qv_op)op);
    assert_non_null(i);
    assert_non_null(i->name);
    assert_string_equal(qv_op_name((qv_op)op), i->name);
    assert_true(i->max_args < 0 || i->max_args >= i->min_args);
    assert_true(qve_op_arity_ok((qv_op)op, i->min_args));
    assert_false(qve_op_arity_ok((qv_op)op, i->min_args - 1));
    assert_int_equal(qv_op_mirror(qv_op_mirror((qv_op)op)), op);
    if (qv_op_mirror((qv_op)op) != (qv_op)op) assert_true(qve_op_is_compare((qv_op)op));
    if (i->print == QV_PRINT_INFIX) assert_non_null(i->infix);
  }
  assert_null(qve_op_info_of(QV_OP__COUNT));
  assert_string_equal(qv_op_name(QV_OP__COUNT), "?");
  assert_int_equal(qv_op_mirror(QV_OP_LT), QV_OP_GT);
  assert_int_equal(qv_op_mirror(QV_OP_GE), QV_OP_LE);
  assert_int_equal(qv_op_mirror(QV_OP_EQ), QV_OP_EQ);
  assert_true(qve_op_is_logic(QV_OP_XOR));
  assert_true(qve_op_is_test(QV_OP_IS_NOT_FALSE));
  assert_false(qve_op_is_compare(QV_OP_EQ_MISSING));
  assert_string_equal(qve_op_infix(QV_OP_NE_MISSING), "IS DISTINCT FROM");
  assert_null(qve_op_infix(QV_OP_IN));
  assert_prints(qv_expr_unary(QV_OP_ADD, qv_expr_column("a")), "+(a)");
  assert_prints(qv_expr_call(QV_OP_IS_NULL, NULL, 0), "IS NULL()");
  assert_prints(qv_expr_unary(QV_OP_MIN_HORIZONTAL, qv_expr_column("a")), "least(a)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_identifiers),    cmocka_unit_test(test_numbers),
      cmocka_unit_test(test_typed_literals), cmocka_unit_test(test_strings),
      cmocka_unit_test(test_list_scalar),    cmocka_unit_test(test_timestamp_extremes),
      cmocka_unit_test(test_operators),      cmocka_unit_test(test_round_trip_all_inputs),
      cmocka_unit_test(test_registry),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
