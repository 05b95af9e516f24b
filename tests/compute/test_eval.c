/* The evaluator: column references, literals and constant folding,
 * selections through nested expressions, coalesce, isnan, and errors. */
#include "compute/compute_test.h"

static qv_batch *sample(void) {
  tval x[] = {TI(1), TN(), TI(3), TI(-4), TN()};
  tval y[] = {TI(10), TI(20), TN(), TI(40), TN()};
  tval s[] = {TS("a"), TN(), TS("ccc"), TN(), TS("")};
  tval f[] = {TF(NAN), TF(1.0), TN(), TF(-NAN), TF(INFINITY)};
  qv_array *cols[4] = {t_arr("int64", x, 5), t_arr("int64", y, 5), t_arr("string", s, 5), t_arr("float32", f, 5)};
  return t_batch(cols, 4);
}

static void test_columns_and_literals(void **state) {
  (void)state;
  qv_batch *b = sample();
  qv_expr *e = t_col(b, 2);
  t_check(e, b, "a|null|ccc|null|");
  qv_expr_destroy(e);
  e = t_lit("int64", TI(7));
  t_check(e, b, "7|7|7|7|7");
  qv_expr_destroy(e);
  /* a folded constant: CAST('5' AS int64) + 1, then compared per row */
  qv_expr *five = t_call1(QV_OP_CAST, "int64", t_lit("string", TS("5")));
  qv_expr *six = t_call2(QV_OP_ADD, "int64", five, t_lit("int64", TI(1)));
  e = t_call2(QV_OP_LT, "bool", t_col(b, 1), six);
  t_check(e, b, "false|false|null|false|null");
  qv_expr_destroy(e);
  /* a constant that fails fails the evaluation */
  e = t_call2(QV_OP_DIV, "int64", t_lit("int64", TI(1)), t_lit("int64", TI(0)));
  t_eval_fails(e, b, QV_ERR_INVALID, "division by zero");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_nested_with_selection(void **state) {
  (void)state;
  qv_batch *b = sample();
  /* (x + y) * 2 > 20 OR length(s) = 3 ; t_check compares selections too */
  qv_expr *sum =
      t_call2(QV_OP_MUL, "int64", t_call2(QV_OP_ADD, "int64", t_col(b, 0), t_col(b, 1)), t_lit("int64", TI(2)));
  qv_expr *e = t_call2(QV_OP_OR, "bool", t_call2(QV_OP_GT, "bool", sum, t_lit("int64", TI(20))),
                       t_call2(QV_OP_EQ, "bool", t_call1(QV_OP_LENGTH, "int64", t_col(b, 2)), t_lit("int64", TI(3))));
  t_check(e, b, "true|null|true|true|null");
  t_filter(e, b, NULL, "0,2,3");
  qv_expr_destroy(e);
  /* a computed (dense) side against a column read through the selection */
  e = t_call2(QV_OP_GT, "bool", t_call2(QV_OP_ADD, "int64", t_col(b, 0), t_lit("int64", TI(30))), t_col(b, 1));
  t_check(e, b, "true|null|null|false|null");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_EQ, "bool", t_col(b, 2), t_call1(QV_OP_LOWER, "string", t_col(b, 2)));
  t_check(e, b, "true|null|true|null|true");
  qv_expr_destroy(e);
  /* upper() under a selection gathers the column once */
  e = t_call2(QV_OP_EQ, "bool", t_call1(QV_OP_UPPER, "string", t_col(b, 2)), t_lit("string", TS("CCC")));
  t_check(e, b, "false|null|true|null|false");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_coalesce_isnan(void **state) {
  (void)state;
  qv_batch *b = sample();
  qv_expr *args[3] = {t_col(b, 0), t_col(b, 1), t_lit("int64", TI(-1))};
  qv_expr *e = t_calln(QV_OP_COALESCE, "int64", 3, args);
  t_check(e, b, "1|20|3|-4|-1");
  qv_expr_destroy(e);
  qv_expr *args2[2] = {t_col(b, 0), t_col(b, 1)};
  e = t_calln(QV_OP_COALESCE, "int64", 2, args2);
  t_check(e, b, "1|20|3|-4|null");
  qv_expr_destroy(e);
  qv_expr *args3[3] = {t_null_lit("string"), t_col(b, 2), t_lit("string", TS("zz"))};
  e = t_calln(QV_OP_COALESCE, "string", 3, args3);
  t_check(e, b, "a|zz|ccc|zz|");
  qv_expr_destroy(e);
  /* an int32 argument is cast to the int64 result */
  qv_expr *args4[2] = {t_col(b, 0), t_lit("int32", TI(0))};
  e = t_calln(QV_OP_COALESCE, "int64", 2, args4);
  t_check(e, b, "1|0|3|-4|0");
  qv_expr_destroy(e);
  e = t_call1(QV_OP_ISNAN, "bool", t_col(b, 3));
  t_check(e, b, "true|false|null|true|false");
  qv_expr_destroy(e);
  e = t_call1(QV_OP_ISNAN, "bool", t_col(b, 0));
  t_check(e, b, "false|null|false|false|null");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_errors(void **state) {
  (void)state;
  qv_batch *b = sample();
  qv_expr *e = qv_expr_column("nope");
  t_eval_fails(e, b, QV_ERR_INVALID, "column `nope` is not bound");
  qv_expr_destroy(e);
  e = t_col(b, 0);
  qv_selection sel = QV_SELECTION_INIT;
  assert_int_equal(qv_selection_reserve(&sel, 1), QV_OK);
  sel.rows[0] = 9;
  sel.count = 1;
  qv_array *r = NULL;
  qv_error err;
  assert_int_equal(qv_eval(e, b, &sel, &r, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "selection row 9"));
  qv_selection_reset(&sel);
  qv_expr_destroy(e);
  e = t_call2(QV_OP_ADD, "string", t_col(b, 2), t_col(b, 2));
  t_eval_fails(e, b, QV_ERR_UNSUPPORTED, "arithmetic on string");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_AND, "bool", t_col(b, 0), t_col(b, 0));
  t_eval_fails(e, b, QV_ERR_TYPE, "AND: expected a boolean, got int64");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

/* Many rows through every selection shape: empty, all, sparse, dense. */
static void test_selection_shapes(void **state) {
  (void)state;
  enum { M = 5000 };
  static tval x[M];
  for (int i = 0; i < M; i++) x[i] = i % 11 == 0 ? TN() : TI(i % 100);
  qv_array *a = t_arr("int32", x, M);
  qv_batch *b = t_batch(&a, 1);
  qv_expr *e = t_call3(QV_OP_BETWEEN, "bool", t_col(b, 0), t_lit("int32", TI(10)), t_lit("int32", TI(20)));
  qv_array *full = t_eval(e, b, NULL);
  qv_selection sel = QV_SELECTION_INIT;
  assert_int_equal(qv_selection_reserve(&sel, M), QV_OK);
  uint64_t rs = 5;
  for (int shape = 0; shape < 4; shape++) {
    sel.count = 0;
    for (int i = 0; i < M; i++) {
      bool take = shape == 1 || (shape == 2 && t_rand(&rs) % 50 == 0) || (shape == 3 && t_rand(&rs) % 3 != 0);
      if (take) sel.rows[sel.count++] = (uint32_t)i;
    }
    qv_array *r = t_eval(e, b, &sel);
    for (int64_t k = 0; k < sel.count; k++) {
      uint32_t i = sel.rows[k];
      assert_int_equal(qv_array_is_valid(r, k), qv_array_is_valid(full, i));
      assert_int_equal(qv_bit_get(r->buffers[1]->data, k), qv_bit_get(full->buffers[1]->data, i));
    }
    qv_array_release(r);
    qv_selection out = QV_SELECTION_INIT;
    assert_int_equal(qv_eval_filter(e, b, &sel, &out, NULL), QV_OK);
    int64_t want = 0;
    for (int64_t k = 0; k < sel.count; k++) {
      uint32_t i = sel.rows[k];
      if (qv_array_is_valid(full, i) && qv_bit_get(full->buffers[1]->data, i)) {
        assert_true(want < out.count);
        assert_int_equal(out.rows[want], i);
        want++;
      }
    }
    assert_int_equal(out.count, want);
    qv_selection_reset(&out);
  }
  qv_selection_reset(&sel);
  qv_array_release(full);
  qv_expr_destroy(e);
  qv_batch_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_columns_and_literals), cmocka_unit_test(test_nested_with_selection),
      cmocka_unit_test(test_coalesce_isnan),       cmocka_unit_test(test_errors),
      cmocka_unit_test(test_selection_shapes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
