/* date_part and date_trunc on dates and timestamps, in UTC and fixed
 * offsets; named zones are refused. */
#include "compute/compute_test.h"

static qv_expr *dp(const char *fn_part, qv_op op, const char *type, qv_expr *x) {
  return t_call2(op, type, t_lit("string", TS(fn_part)), x);
}

static void check_parts(qv_batch *b, int col, const char *const *parts, const char *const *want, int n) {
  for (int k = 0; k < n; k++) {
    qv_expr *e = dp(parts[k], QV_OP_DATE_PART, "int64", t_col(b, col));
    t_check(e, b, want[k]);
    qv_expr_destroy(e);
  }
}

static void test_date_part(void **state) {
  (void)state;
  /* 2024-02-29 (Thursday), 1969-12-31 (Wednesday), 2021-01-01 (Friday, ISO week 53 of 2020), null */
  tval d[] = {TI(19782), TI(-1), TI(18628), TN()};
  /* 2024-02-29 13:45:12.345, 1969-12-31 23:59:59.999, 1970-01-01, null */
  tval ts[] = {TI(1709214312345LL), TI(-1), TI(0), TN()};
  qv_array *cols[3] = {t_arr("date32", d, 4), t_arr("timestamp[ms]", ts, 4), t_arr("timestamp[ms, +05:30]", ts, 4)};
  qv_batch *b = t_batch(cols, 3);
  const char *parts[] = {"year", "quarter", "month", "week", "day", "dow", "isodow", "doy", "epoch"};
  const char *want_d[] = {"2024|1969|2021|null", "1|4|1|null",    "2|12|1|null",
                          "9|1|53|null",         "29|31|1|null",  "4|3|5|null",
                          "4|3|5|null",          "60|365|1|null", "1709164800|-86400|1609459200|null"};
  check_parts(b, 0, parts, want_d, 9);
  const char *tparts[] = {"YEAR",        "day",          "hour",       "minute", "second",
                          "millisecond", "microseconds", "nanosecond", "epoch",  "dow"};
  const char *want_t[] = {"2024|1969|1970|null",
                          "29|31|1|null",
                          "13|23|0|null",
                          "45|59|0|null",
                          "12|59|0|null",
                          "12345|59999|0|null",
                          "12345000|59999000|0|null",
                          "12345000000|59999000000|0|null",
                          "1709214312|-1|0|null",
                          "4|3|4|null"};
  check_parts(b, 1, tparts, want_t, 10);
  /* +05:30: local 19:15:12.345; 1970-01-01 05:29:59.999; 05:30 */
  const char *zparts[] = {"hour", "minute", "day"};
  const char *want_z[] = {"19|5|5|null", "15|29|30|null", "29|1|1|null"};
  check_parts(b, 2, zparts, want_z, 3);
  qv_expr *e = dp("fortnight", QV_OP_DATE_PART, "int64", t_col(b, 0));
  t_eval_fails(e, b, QV_ERR_INVALID, "date_part: unknown part 'fortnight'");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_date_trunc(void **state) {
  (void)state;
  tval d[] = {TI(19782), TI(-1), TN()};
  tval ts[] = {TI(1709214312345LL), TI(-1), TN()};
  qv_array *cols[3] = {t_arr("date32", d, 3), t_arr("timestamp[ms]", ts, 3), t_arr("timestamp[ms, +05:30]", ts, 3)};
  qv_batch *b = t_batch(cols, 3);
  struct {
    int col;
    const char *part, *want;
  } cases[] = {
      {0, "year", "2024-01-01|1969-01-01|null"},
      {0, "quarter", "2024-01-01|1969-10-01|null"},
      {0, "month", "2024-02-01|1969-12-01|null"},
      {0, "week", "2024-02-26|1969-12-29|null"},
      {0, "hour", "2024-02-29|1969-12-31|null"},
      {1, "day", "2024-02-29 00:00:00.000|1969-12-31 00:00:00.000|null"},
      {1, "hour", "2024-02-29 13:00:00.000|1969-12-31 23:00:00.000|null"},
      {1, "second", "2024-02-29 13:45:12.000|1969-12-31 23:59:59.000|null"},
      {1, "millisecond", "2024-02-29 13:45:12.345|1969-12-31 23:59:59.999|null"},
      {1, "month", "2024-02-01 00:00:00.000|1969-12-01 00:00:00.000|null"},
      /* truncation happens on the wall clock at +05:30 (printed as local time) */
      {2, "day", "2024-02-29 00:00:00.000+05:30|1970-01-01 00:00:00.000+05:30|null"},
      {2, "hour", "2024-02-29 19:00:00.000+05:30|1970-01-01 05:00:00.000+05:30|null"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    qv_expr *e = dp(cases[k].part, QV_OP_DATE_TRUNC, NULL, t_col(b, cases[k].col));
    t_check(e, b, cases[k].want);
    qv_expr_destroy(e);
  }
  qv_batch_release(b);
  tval z[] = {TI(0)};
  qv_array *a = t_arr("timestamp[s, America/New_York]", z, 1);
  b = t_batch(&a, 1);
  qv_expr *e = dp("day", QV_OP_DATE_TRUNC, NULL, t_col(b, 0));
  t_eval_fails(e, b, QV_ERR_UNSUPPORTED, "time zone 'America/New_York' is not supported");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_date_part),
      cmocka_unit_test(test_date_trunc),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
