/* CAST: numeric ranges (strict and TRY_CAST), rounding, strings both ways,
 * temporal conversions. */
#include "compute/compute_test.h"

static qv_expr *cast(qv_expr *x, const char *type, bool strict) {
  qv_expr *e = t_call1(QV_OP_CAST, type, x);
  e->sem.cast_strict = strict;
  return e;
}

static void check_cast(const char *from, const tval *v, int n, const char *to, bool strict, const char *want) {
  qv_array *a = t_arr(from, v, n);
  qv_batch *b = t_batch(&a, 1);
  qv_expr *e = cast(t_col(b, 0), to, strict);
  t_check(e, b, want);
  qv_array *r = t_eval(e, b, NULL);
  char tb[64];
  qv_datatype_format(&r->type, tb, sizeof tb);
  assert_string_equal(tb, to);
  qv_array_release(r);
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void check_cast_fails(const char *from, const tval *v, int n, const char *to, qv_status code, const char *msg) {
  qv_array *a = t_arr(from, v, n);
  qv_batch *b = t_batch(&a, 1);
  qv_expr *e = cast(t_col(b, 0), to, true);
  t_eval_fails(e, b, code, msg);
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_int_casts(void **state) {
  (void)state;
  tval v[] = {TI(5), TI(300), TN(), TI(-129), TI(-1)};
  check_cast("int64", v, 5, "int8", false, "5|null|null|null|-1");
  check_cast_fails("int64", v, 5, "int8", QV_ERR_INVALID, "CAST: value 300 is out of range for int8 (row 1)");
  check_cast("int64", v, 5, "uint16", false, "5|300|null|null|null");
  check_cast("int64", v, 5, "float32", true, "5.0|300.0|null|-129.0|-1.0");
  check_cast("int64", v, 5, "decimal(5,2)", true, "5.00|300.00|null|-129.00|-1.00");
  check_cast("int64", v, 5, "decimal(3,1)", false, "5.0|null|null|null|-1.0");
  check_cast("int64", v, 5, "bool", true, "true|true|null|true|true");
  tval u[] = {TI(UINT64_MAX), TI(0)};
  check_cast("uint64", u, 2, "int64", false, "null|0");
  check_cast("uint64", u, 2, "float64", true, "1.8446744073709552e+19|0.0");
  tval bo[] = {TI(1), TI(0), TN()};
  check_cast("bool", bo, 3, "int32", true, "1|0|null");
}

static void test_float_casts(void **state) {
  (void)state;
  tval v[] = {TF(1.9), TF(-1.9), TF(NAN), TF(INFINITY), TF(2147483647.5), TF(2147483648.0), TF(-0.5), TN()};
  check_cast("float64", v, 8, "int32", false, "1|-1|null|null|2147483647|null|0|null");
  check_cast_fails("float64", v, 8, "int32", QV_ERR_INVALID, "CAST: value NaN is out of range for int32 (row 2)");
  check_cast("float64", v, 8, "uint8", false, "1|null|null|null|null|null|0|null");
  check_cast("float64", v, 8, "bool", true, "true|true|true|true|true|true|true|null");
  tval d[] = {TF(1.5), TF(-0.125), TF(1e30), TF(0.0)};
  check_cast("float64", d, 4, "decimal(10,2)", false, "1.50|-0.13|null|0.00");
  tval f[] = {TF(1e300), TF(0.1)};
  check_cast("float64", f, 2, "float32", true, "inf|0.1");
}

static void test_decimal_casts(void **state) {
  (void)state;
  tval v[] = {TI(1250), TI(-1250), TI(1240), TI(-1999), TN()}; /* decimal(10,3) */
  check_cast("decimal(10,3)", v, 5, "decimal(10,1)", true, "1.3|-1.3|1.2|-2.0|null");
  check_cast("decimal(10,3)", v, 5, "decimal(12,5)", true, "1.25000|-1.25000|1.24000|-1.99900|null");
  check_cast("decimal(10,3)", v, 5, "decimal(3,2)", false, "1.25|-1.25|1.24|-2.00|null");
  check_cast("decimal(10,3)", v, 5, "int64", true, "1|-1|1|-1|null");
  check_cast("decimal(10,3)", v, 5, "float64", true, "1.25|-1.25|1.24|-1.999|null");
  tval big[] = {TI((qv_int128)1000000000000LL * 1000000000000LL)};
  check_cast_fails("decimal(38,0)", big, 1, "int64", QV_ERR_INVALID,
                   "CAST: value 1000000000000000000000000 is out of range for int64");
}

static void test_string_casts(void **state) {
  (void)state;
  tval v[] = {TS("42"), TS("-7"), TS(" 1"), TS("abc"), TS("99999999999999999999"), TN(), TS("+3")};
  check_cast("string", v, 7, "int64", false, "42|-7|null|null|null|null|3");
  check_cast_fails("string", v, 7, "int64", QV_ERR_INVALID, "CAST: ' 1' is not a valid int64 (row 2)");
  tval f[] = {TS("1.5"), TS("NaN"), TS("-inf"), TS("1e3"), TS("0x10"), TS(""), TS("2.")};
  check_cast("string", f, 7, "float64", false, "1.5|NaN|-inf|1000.0|null|null|2.0");
  tval d[] = {TS("1.005"), TS("-0.004"), TS("12.3e1"), TS("1e5"), TS("-.5"), TS("7"), TS("1.2.3")};
  check_cast("string", d, 7, "decimal(6,2)", false, "1.01|0.00|123.00|null|-0.50|7.00|null");
  tval b[] = {TS("true"), TS("F"), TS("yes"), TS("off"), TS("maybe")};
  check_cast("string", b, 5, "bool", false, "true|false|true|false|null");
  tval dt[] = {TS("2024-02-29"), TS("2023-02-29"), TS("1969-12-31"), TS("2024-1-1")};
  check_cast("string", dt, 4, "date32", false, "2024-02-29|null|1969-12-31|null");
  tval ts[] = {TS("2024-01-01 12:00:00.5"), TS("2024-01-01T00:00:00+01:00"), TS("1970-01-01"), TS("x")};
  check_cast("string", ts, 4, "timestamp[us]", false,
             "2024-01-01 12:00:00.500000|2023-12-31 23:00:00.000000|1970-01-01 00:00:00.000000|null");
  check_cast("string", ts, 4, "timestamp[s, +02:00]", false,
             "2024-01-01 12:00:00+02:00|2024-01-01 01:00:00+02:00|1970-01-01 00:00:00+02:00|null");
  tval tm[] = {TS("12:34:56.789"), TS("25:00"), TS("00:01")};
  check_cast("string", tm, 3, "time64[us]", false, "12:34:56.789000|null|00:01:00.000000");
  /* to string */
  tval i[] = {TI(-12), TN(), TI(0)};
  check_cast("int32", i, 3, "string", true, "-12|null|0");
  tval fl[] = {TF(1.0), TF(NAN), TF(0.1), TF(-INFINITY)};
  check_cast("float64", fl, 4, "string", true, "1.0|NaN|0.1|-inf");
  tval dd[] = {TI(-5), TI(12345)};
  check_cast("decimal(7,3)", dd, 2, "string", true, "-0.005|12.345");
  tval da[] = {TI(19782), TI(-1)};
  check_cast("date32", da, 2, "string", true, "2024-02-29|1969-12-31");
  tval bin[] = {TB("ok", 2), TB("\xff", 1)};
  check_cast("binary", bin, 2, "string", false, "ok|null");
  check_cast("string", v, 2, "binary", true, "0x3432|0x2d37");
}

static void test_temporal_casts(void **state) {
  (void)state;
  tval d[] = {TI(1), TI(-1), TN()};
  check_cast("date32", d, 3, "timestamp[s]", true, "1970-01-02 00:00:00|1969-12-31 00:00:00|null");
  /* a date becomes midnight UTC whatever the zone (arrow-rs) */
  check_cast("date32", d, 3, "timestamp[ms, +01:00]", true,
             "1970-01-02 01:00:00.000+01:00|1969-12-31 01:00:00.000+01:00|null");
  tval t[] = {TI(-1), TI(86399999), TI(86400000), TI(-1500)};
  check_cast("timestamp[ms]", t, 4, "date32", true, "1969-12-31|1970-01-01|1970-01-02|1969-12-31");
  check_cast("timestamp[ms]", t, 4, "timestamp[s]", true,
             "1969-12-31 23:59:59|1970-01-01 23:59:59|1970-01-02 00:00:00|1969-12-31 23:59:58");
  check_cast(
      "timestamp[ms]", t, 4, "timestamp[us]", true,
      "1969-12-31 23:59:59.999000|1970-01-01 23:59:59.999000|1970-01-02 00:00:00.000000|1969-12-31 23:59:58.500000");
  check_cast("timestamp[ms]", t, 4, "time64[us]", true,
             "23:59:59.999000|23:59:59.999000|00:00:00.000000|23:59:58.500000");
  tval big[] = {TI(INT64_MAX / 10)};
  check_cast_fails("timestamp[ms]", big, 1, "timestamp[ns]", QV_ERR_INVALID, "out of range for timestamp[ns]");
  /* naive <-> zoned: the naive value is wall-clock time in the zone */
  tval z[] = {TI(0)};
  check_cast("timestamp[s]", z, 1, "timestamp[s, +01:00]", true, "1970-01-01 00:00:00+01:00");
  check_cast("timestamp[s, +01:00]", z, 1, "timestamp[s]", true, "1970-01-01 01:00:00");
  check_cast("timestamp[s, +01:00]", z, 1, "date32", true, "1970-01-01");
  check_cast("timestamp[s, UTC]", z, 1, "timestamp[ms, +00:00]", true, "1970-01-01 00:00:00.000+00:00");
  check_cast_fails("timestamp[s, Europe/Paris]", z, 1, "date32", QV_ERR_UNSUPPORTED, "time zone 'Europe/Paris'");
  check_cast("int64", z, 1, "timestamp[s]", true, "1970-01-01 00:00:00");
  check_cast_fails("date32", z, 1, "bool", QV_ERR_TYPE, "CAST: cannot cast date32 to bool");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_int_casts),    cmocka_unit_test(test_float_casts),    cmocka_unit_test(test_decimal_casts),
      cmocka_unit_test(test_string_casts), cmocka_unit_test(test_temporal_casts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
