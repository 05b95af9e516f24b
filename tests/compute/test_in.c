/* IN: SQL null semantics, nulls_equal, float orders, mixed types, and a
 * property test against a linear-scan oracle. */
#include "compute/compute_test.h"

static qv_expr *in_list(qv_expr *x, const char *type, const tval *items, int n) {
  qv_expr *args[64];
  args[0] = x;
  for (int k = 0; k < n; k++) args[k + 1] = t_lit(type, items[k]);
  return t_calln(QV_OP_IN, "bool", n + 1, args);
}

static void test_in_ints(void **state) {
  (void)state;
  tval v[] = {TI(1), TI(2), TN(), TI(-7), TI(INT64_MAX), TI(3)};
  qv_array *a = t_arr("int64", v, 6);
  qv_batch *b = t_batch(&a, 1);
  tval l1[] = {TI(1), TI(INT64_MAX), TI(-7)};
  qv_expr *e = in_list(t_col(b, 0), "int64", l1, 3);
  t_check(e, b, "true|false|null|true|true|false");
  qv_expr_destroy(e);
  /* a null in the list: not found is null (SQL) */
  tval l2[] = {TI(1), TN()};
  e = in_list(t_col(b, 0), "int64", l2, 2);
  t_check(e, b, "true|null|null|null|null|null");
  e->sem.in_nulls_equal = true; /* Polars is_in(nulls_equal=True) */
  t_check(e, b, "true|false|true|false|false|false");
  qv_expr_destroy(e);
  /* NOT IN is NOT(IN): with a null in the list nothing is TRUE */
  e = t_call1(QV_OP_NOT, "bool", in_list(t_col(b, 0), "int64", l2, 2));
  t_filter(e, b, NULL, "");
  qv_expr_destroy(e);
  /* list values of other integer types, some out of range */
  tval l3[] = {TI(3), TI(-1)};
  e = in_list(t_col(b, 0), "int8", l3, 2);
  t_check(e, b, "false|false|null|false|false|true");
  qv_expr_destroy(e);
  tval l4[] = {TI(UINT64_MAX), TI(2)};
  e = in_list(t_col(b, 0), "uint64", l4, 2);
  t_check(e, b, "false|true|null|false|false|false");
  qv_expr_destroy(e);
  /* an empty list */
  e = in_list(t_col(b, 0), "int64", NULL, 0);
  t_check(e, b, "false|false|null|false|false|false");
  qv_expr_destroy(e);
  /* a list with a column in it becomes ORed equalities */
  qv_expr *args[3] = {t_col(b, 0), t_lit("int64", TI(99)), t_col(b, 0)};
  e = t_calln(QV_OP_IN, "bool", 3, args);
  t_check(e, b, "true|true|null|true|true|true");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_in_floats_and_strings(void **state) {
  (void)state;
  tval f[] = {TF(NAN), TF(-0.0), TF(0.0), TF(1.5), TN()};
  tval s[] = {TS("apple"), TS(""), TS("\xc3\xa9"), TS("pear"), TN()};
  qv_array *cols[2] = {t_arr("float32", f, 5), t_arr("string", s, 5)};
  qv_batch *b = t_batch(cols, 2);
  tval fl[] = {TF(0.0), TF(NAN), TF(1.5)};
  const char *want[4] = {"false|true|true|true|null", "true|false|true|true|null", "true|true|true|true|null",
                         "true|false|true|true|null"};
  for (uint8_t o = 0; o < 4; o++) {
    qv_expr *e = in_list(t_col(b, 0), "float64", fl, 3);
    e->sem.float_order = o;
    t_check(e, b, want[o]);
    qv_expr_destroy(e);
  }
  tval sl[] = {TS(""), TS("pear"), TS("\xc3\xa9"), TS("apples")};
  qv_expr *e = in_list(t_col(b, 1), "string", sl, 4);
  t_check(e, b, "false|true|true|true|null");
  qv_expr_destroy(e);
  tval bad[] = {TI(1)};
  e = in_list(t_col(b, 1), "int64", bad, 1);
  t_eval_fails(e, b, QV_ERR_TYPE, "IN: cannot look up string in a list of int64");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_in_decimal_temporal(void **state) {
  (void)state;
  tval d[] = {TI(150), TI(100), TI(-5), TN()};
  tval ts[] = {TI(1000), TI(1500), TI(0), TI(2000)};
  qv_array *cols[2] = {t_arr("decimal(10,2)", d, 4), t_arr("timestamp[ms]", ts, 4)};
  qv_batch *b = t_batch(cols, 2);
  tval dl[] = {TI(1500), TI(1)}; /* decimal(10,3): 1.500 and 0.001 */
  qv_expr *e = in_list(t_col(b, 0), "decimal(10,3)", dl, 2);
  t_check(e, b, "true|false|false|null");
  qv_expr_destroy(e);
  tval il[] = {TI(1)};
  e = in_list(t_col(b, 0), "int64", il, 1);
  t_check(e, b, "false|true|false|null");
  qv_expr_destroy(e);
  tval tl[] = {TI(1000000), TI(1500001)}; /* microseconds: 1 s, and 1.500001 s (never a whole ms) */
  e = in_list(t_col(b, 1), "timestamp[us]", tl, 2);
  t_check(e, b, "true|false|false|false");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

/* Property: against a linear scan with the compare oracle's equality. */
static bool feq(double x, double y, uint8_t o) {
  switch (o) {
    case QV_FLOAT_IEEE: return x == y;
    case QV_FLOAT_TOTAL: return memcmp(&x, &y, 8) == 0;
    case QV_FLOAT_POLARS: return (isnan(x) && isnan(y)) || x == y;
    default: return (isnan(x) && isnan(y)) || (x == y && signbit(x) == signbit(y));
  }
}

static void test_in_property(void **state) {
  (void)state;
  enum { M = 500 };
  uint64_t rs = 7;
  double pool[] = {NAN, -NAN, 0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, 2.5, 1e300};
  tval v[M];
  for (int i = 0; i < M; i++) v[i] = t_rand(&rs) % 11 == 0 ? TN() : TF(pool[t_rand(&rs) % 10]);
  qv_array *a = t_arr("float64", v, M);
  qv_batch *b = t_batch(&a, 1);
  for (int trial = 0; trial < 40; trial++) {
    int nl = (int)(t_rand(&rs) % 6);
    tval items[8];
    bool has_null = false;
    for (int k = 0; k < nl; k++) {
      items[k] = t_rand(&rs) % 7 == 0 ? TN() : TF(pool[t_rand(&rs) % 10]);
      has_null |= items[k].null;
    }
    uint8_t o = (uint8_t)(trial % 4);
    bool ne = (trial / 4) % 2;
    qv_expr *e = in_list(t_col(b, 0), "float64", items, nl);
    e->sem.float_order = o;
    e->sem.in_nulls_equal = ne;
    qv_array *r = t_eval(e, b, NULL);
    for (int i = 0; i < M; i++) {
      int want;
      if (v[i].null) {
        want = ne ? has_null : -1;
      } else {
        bool found = false;
        for (int k = 0; k < nl; k++) found |= !items[k].null && feq(v[i].f, items[k].f, o);
        want = found ? 1 : (has_null && !ne) ? -1 : 0;
      }
      int got = qv_array_is_valid(r, i) ? qv_bit_get(r->buffers[1]->data, r->offset + i) : -1;
      if (got != want) fail_msg("trial %d row %d (%g): got %d want %d", trial, i, v[i].f, got, want);
    }
    qv_array_release(r);
    qv_expr_destroy(e);
  }
  qv_batch_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_in_ints),
      cmocka_unit_test(test_in_floats_and_strings),
      cmocka_unit_test(test_in_decimal_temporal),
      cmocka_unit_test(test_in_property),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
