/* Arithmetic: overflow modes, division semantics, floats, decimals, and a
 * property test of integer ops against an int128 oracle. */
#include "compute/compute_test.h"

static qv_expr *ar(qv_op op, const char *type, qv_expr *a, qv_expr *b, uint8_t overflow, uint8_t div) {
  qv_expr *e = b ? t_call2(op, type, a, b) : t_call1(op, type, a);
  e->sem.overflow = overflow;
  e->sem.int_div = div;
  return e;
}

static void test_int_overflow_modes(void **state) {
  (void)state;
  tval x[] = {TI(INT64_MAX), TI(1), TN(), TI(INT64_MIN), TI(-7)};
  tval y[] = {TI(1), TI(2), TI(3), TI(-1), TI(2)};
  qv_array *cols[2] = {t_arr("int64", x, 5), t_arr("int64", y, 5)};
  qv_batch *b = t_batch(cols, 2);
  qv_expr *e = ar(QV_OP_ADD, "int64", t_col(b, 0), t_col(b, 1), QV_OVERFLOW_WRAP, 0);
  t_check(e, b, "-9223372036854775808|3|null|9223372036854775807|-5");
  qv_expr_destroy(e);
  e = ar(QV_OP_ADD, "int64", t_col(b, 0), t_col(b, 1), QV_OVERFLOW_NULL, 0);
  t_check(e, b, "null|3|null|null|-5");
  qv_expr_destroy(e);
  e = ar(QV_OP_ADD, "int64", t_col(b, 0), t_col(b, 1), QV_OVERFLOW_ERROR, 0);
  t_eval_fails(e, b, QV_ERR_OVERFLOW, "integer overflow: 9223372036854775807 + 1 does not fit int64 (row 0)");
  qv_expr_destroy(e);
  e = ar(QV_OP_MUL, "int64", t_col(b, 0), t_lit("int64", TI(2)), QV_OVERFLOW_NULL, 0);
  t_check(e, b, "null|2|null|null|-14");
  qv_expr_destroy(e);
  e = ar(QV_OP_SUB, "int64", t_lit("int64", TI(0)), t_col(b, 0), QV_OVERFLOW_NULL, 0);
  t_check(e, b, "-9223372036854775807|-1|null|null|7");
  qv_expr_destroy(e);
  /* MIN / -1 overflows; MIN % -1 is 0 */
  e = ar(QV_OP_DIV, "int64", t_col(b, 0), t_col(b, 1), QV_OVERFLOW_NULL, 0);
  t_check(e, b, "9223372036854775807|0|null|null|-3");
  qv_expr_destroy(e);
  e = ar(QV_OP_MOD, "int64", t_col(b, 0), t_col(b, 1), QV_OVERFLOW_ERROR, 0);
  t_check(e, b, "0|1|null|0|-1");
  qv_expr_destroy(e);
  e = ar(QV_OP_NEG, "int64", t_col(b, 0), NULL, QV_OVERFLOW_NULL, 0);
  t_check(e, b, "-9223372036854775807|-1|null|null|7");
  qv_expr_destroy(e);
  e = ar(QV_OP_ABS, "int64", t_col(b, 0), NULL, QV_OVERFLOW_ERROR, 0);
  t_eval_fails(e, b, QV_ERR_OVERFLOW, "abs(-9223372036854775808)");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_division(void **state) {
  (void)state;
  tval x[] = {TI(7), TI(-7), TI(7), TI(-7), TI(5), TN()};
  tval y[] = {TI(2), TI(2), TI(-2), TI(-2), TI(0), TI(0)};
  qv_array *cols[2] = {t_arr("int32", x, 6), t_arr("int32", y, 6)};
  qv_batch *b = t_batch(cols, 2);
  qv_expr *e = ar(QV_OP_DIV, "int32", t_col(b, 0), t_col(b, 1), QV_OVERFLOW_NULL, QV_DIV_TRUNC);
  t_check(e, b, "3|-3|-3|3|null|null");
  qv_expr_destroy(e);
  e = ar(QV_OP_DIV, "int32", t_col(b, 0), t_col(b, 1), QV_OVERFLOW_WRAP, QV_DIV_FLOOR);
  t_check(e, b, "3|-4|-4|3|null|null");
  qv_expr_destroy(e);
  e = ar(QV_OP_MOD, "int32", t_col(b, 0), t_col(b, 1), QV_OVERFLOW_NULL, QV_DIV_TRUNC);
  t_check(e, b, "1|-1|1|-1|null|null");
  qv_expr_destroy(e);
  e = ar(QV_OP_MOD, "int32", t_col(b, 0), t_col(b, 1), QV_OVERFLOW_NULL, QV_DIV_FLOOR);
  t_check(e, b, "1|1|-1|-1|null|null");
  qv_expr_destroy(e);
  /* Lance semantics: division by zero is an error (the null row 5 is not) */
  e = ar(QV_OP_DIV, "int32", t_col(b, 0), t_col(b, 1), QV_OVERFLOW_ERROR, QV_DIV_TRUNC);
  t_eval_fails(e, b, QV_ERR_INVALID, "division by zero (row 4)");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_floats(void **state) {
  (void)state;
  tval x[] = {TF(1.0), TF(-1.0), TF(0.0), TF(7.5), TF(-7.5), TN()};
  tval y[] = {TF(0.0), TF(0.0), TF(0.0), TF(2.0), TF(2.0), TF(1.0)};
  qv_array *cols[2] = {t_arr("float64", x, 6), t_arr("float64", y, 6)};
  qv_batch *b = t_batch(cols, 2);
  qv_expr *e = ar(QV_OP_DIV, "float64", t_col(b, 0), t_col(b, 1), QV_OVERFLOW_ERROR, 0);
  t_check(e, b, "inf|-inf|NaN|3.75|-3.75|null");
  qv_expr_destroy(e);
  e = ar(QV_OP_MOD, "float64", t_col(b, 0), t_col(b, 1), QV_OVERFLOW_ERROR, QV_DIV_FLOOR);
  t_check(e, b, "NaN|NaN|NaN|1.5|0.5|null");
  qv_expr_destroy(e);
  e = ar(QV_OP_MOD, "float64", t_col(b, 0), t_col(b, 1), QV_OVERFLOW_ERROR, QV_DIV_TRUNC);
  t_check(e, b, "NaN|NaN|NaN|1.5|-1.5|null");
  qv_expr_destroy(e);
  /* an int64 literal is cast to the float result type */
  e = ar(QV_OP_ADD, "float64", t_col(b, 0), t_lit("int64", TI(1)), 0, 0);
  t_check(e, b, "2.0|0.0|1.0|8.5|-6.5|null");
  qv_expr_destroy(e);
  e = ar(QV_OP_NEG, "float64", t_col(b, 1), NULL, 0, 0);
  t_check(e, b, "-0.0|-0.0|-0.0|-2.0|-2.0|-1.0");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_decimals(void **state) {
  (void)state;
  tval x[] = {TI(150), TI(-1), TN(), TI(99999)}; /* decimal(5,2): 1.50 -0.01 null 999.99 */
  tval y[] = {TI(2), TI(1005), TI(1), TI(1)};    /* decimal(6,3): 0.002 1.005 0.001 0.001 */
  qv_array *cols[2] = {t_arr("decimal(5,2)", x, 4), t_arr("decimal(6,3)", y, 4)};
  qv_batch *b = t_batch(cols, 2);
  qv_expr *e = ar(QV_OP_ADD, NULL, t_col(b, 0), t_col(b, 1), QV_OVERFLOW_ERROR, 0);
  t_check(e, b, "1.502|0.995|null|999.991");
  qv_array *r = t_eval(e, b, NULL);
  char tb[64];
  qv_datatype_format(&r->type, tb, sizeof tb);
  assert_string_equal(tb, "decimal(7,3)");
  qv_array_release(r);
  qv_expr_destroy(e);
  e = ar(QV_OP_MUL, NULL, t_col(b, 0), t_col(b, 1), QV_OVERFLOW_ERROR, 0);
  t_check(e, b, "0.00300|-0.01005|null|0.99999");
  qv_expr_destroy(e);
  /* rescaled to a bound result type, rounding half away from zero */
  e = ar(QV_OP_SUB, "decimal(6,2)", t_col(b, 0), t_col(b, 1), QV_OVERFLOW_ERROR, 0);
  t_check(e, b, "1.50|-1.02|null|999.99");
  qv_expr_destroy(e);
  e = ar(QV_OP_ADD, "decimal(5,2)", t_col(b, 0), t_lit("int64", TI(1)), QV_OVERFLOW_NULL, 0);
  t_check(e, b, "2.50|0.99|null|null");
  qv_expr_destroy(e);
  e = ar(QV_OP_ADD, "decimal(5,2)", t_col(b, 0), t_lit("int64", TI(1)), QV_OVERFLOW_ERROR, 0);
  t_eval_fails(e, b, QV_ERR_OVERFLOW, "decimal overflow: 999.99 + 1 does not fit decimal(5,2)");
  qv_expr_destroy(e);
  e = ar(QV_OP_ABS, NULL, t_col(b, 0), NULL, 0, 0);
  t_check(e, b, "1.50|0.01|null|999.99");
  qv_expr_destroy(e);
  /* 1.50 / 0.002 = 750 ; -0.01 / 1.005 = -0.00995.. -> -0.009950 (truncated, scale 2 + 4) */
  e = ar(QV_OP_DIV, NULL, t_col(b, 0), t_col(b, 1), QV_OVERFLOW_ERROR, 0);
  t_check(e, b, "750.000000|-0.009950|null|999990.000000");
  qv_expr_destroy(e);
  e = ar(QV_OP_MOD, NULL, t_col(b, 0), t_col(b, 1), QV_OVERFLOW_ERROR, QV_DIV_TRUNC);
  t_check(e, b, "0.000|-0.010|null|0.000");
  qv_expr_destroy(e);
  e = ar(QV_OP_DIV, NULL, t_col(b, 0), t_lit("decimal(6,3)", TI(0)), QV_OVERFLOW_ERROR, 0);
  t_eval_fails(e, b, QV_ERR_INVALID, "division by zero (row 0)");
  qv_expr_destroy(e);
  e = ar(QV_OP_DIV, NULL, t_col(b, 0), t_lit("decimal(6,3)", TI(0)), QV_OVERFLOW_NULL, 0);
  t_check(e, b, "null|null|null|null");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

/* Property: every integer type and op against an int128 oracle. */
static void test_int_property(void **state) {
  (void)state;
  static const char *types[] = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"};
  static const qv_op ops[] = {QV_OP_ADD, QV_OP_SUB, QV_OP_MUL, QV_OP_DIV, QV_OP_MOD};
  enum { M = 300 };
  uint64_t rs = 1234;
  for (int t = 0; t < 8; t++) {
    qv_datatype ty = t_type(types[t]);
    bool sgn = qv_type_is_signed(ty.id);
    int bits = qv_type_byte_width(ty.id) * 8;
    qv_int128 lo = sgn ? -((qv_int128)1 << (bits - 1)) : 0;
    qv_int128 hi = sgn ? ((qv_int128)1 << (bits - 1)) - 1 : ((qv_int128)1 << bits) - 1;
    tval x[M], y[M];
    for (int i = 0; i < M; i++) {
      qv_int128 edge[] = {lo, hi, 0, 1, -1, 2, -2, lo + 1, hi - 1, 7};
      for (int s = 0; s < 2; s++) {
        uint64_t r = t_rand(&rs);
        qv_int128 v =
            r % 3 == 0 ? edge[(r >> 8) % 10] : lo + (qv_int128)((r >> 8) % (uint64_t)(hi - lo > 1000 ? 1000 : hi - lo));
        if (v < lo || v > hi) v = 0;
        (s ? y : x)[i] = r % 13 == 0 ? TN() : TI(v);
      }
    }
    qv_array *cols[2] = {t_build(&ty, x, M), t_build(&ty, y, M)};
    qv_batch *b = t_batch(cols, 2);
    for (int o = 0; o < 5; o++) {
      for (int div = 0; div < 2; div++) {
        qv_expr *e = ar(ops[o], types[t], t_col(b, 0), t_col(b, 1), QV_OVERFLOW_NULL, (uint8_t)div);
        qv_array *r = t_eval(e, b, NULL);
        for (int i = 0; i < M; i++) {
          bool want_null = x[i].null || y[i].null;
          qv_int128 p = x[i].i, q = y[i].i, w = 0;
          if (!want_null) {
            switch (ops[o]) {
              case QV_OP_ADD: w = p + q; break;
              case QV_OP_SUB: w = p - q; break;
              case QV_OP_MUL:
                if (__builtin_mul_overflow(p, q, &w)) want_null = true; /* beyond int128: surely beyond the type */
                break;
              default:
                if (q == 0) {
                  want_null = true;
                  break;
                }
                w = ops[o] == QV_OP_DIV ? p / q : p % q;
                if (div && ops[o] == QV_OP_DIV && (p % q != 0) && ((p < 0) != (q < 0))) w -= 1;
                if (div && ops[o] == QV_OP_MOD && w != 0 && ((w < 0) != (q < 0))) w += q;
                break;
            }
            if (!want_null && (w < lo || w > hi)) want_null = true;
          }
          qv_scalar s = QV_SCALAR_INIT;
          assert_int_equal(qv_scalar_from_array(r, i, &s, NULL), QV_OK);
          if (s.is_null != want_null)
            fail_msg("%s op %d row %d: null %d want %d", types[t], o, i, s.is_null, want_null);
          if (!want_null) {
            qv_int128 got = sgn ? (qv_int128)s.v.i : (qv_int128)s.v.u;
            if (got != w)
              fail_msg("%s op %d div %d row %d: got %lld want %lld", types[t], o, div, i, (long long)got, (long long)w);
          }
          qv_scalar_reset(&s);
        }
        qv_array_release(r);
        qv_expr_destroy(e);
      }
    }
    qv_batch_release(b);
    qv_datatype_reset(&ty);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_int_overflow_modes), cmocka_unit_test(test_division),     cmocka_unit_test(test_floats),
      cmocka_unit_test(test_decimals),           cmocka_unit_test(test_int_property),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
