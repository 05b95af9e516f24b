/* Kleene logic, truth tests, and qv_eval_filter (shrinking selections). */
#include "compute/compute_test.h"

/* a and b over all nine combinations of true, false, null. */
static qv_batch *truth_batch(void) {
  tval a[9], b[9];
  tval tri[3] = {TI(1), TI(0), TN()};
  for (int i = 0; i < 9; i++) {
    a[i] = tri[i / 3];
    b[i] = tri[i % 3];
  }
  qv_array *cols[2] = {t_arr("bool", a, 9), t_arr("bool", b, 9)};
  return t_batch(cols, 2);
}

static void test_kleene_tables(void **state) {
  (void)state;
  qv_batch *b = truth_batch();
  /* rows: TT TF TN FT FF FN NT NF NN */
  struct {
    qv_op op;
    const char *want;
  } cases[] = {
      {QV_OP_AND, "true|false|null|false|false|false|null|false|null"},
      {QV_OP_OR, "true|true|true|true|false|null|true|null|null"},
      {QV_OP_XOR, "false|true|null|true|false|null|null|null|null"},
  };
  for (size_t k = 0; k < 3; k++) {
    qv_expr *e = t_call2(cases[k].op, "bool", t_col(b, 0), t_col(b, 1));
    t_check(e, b, cases[k].want);
    qv_expr_destroy(e);
  }
  qv_expr *e = t_call1(QV_OP_NOT, "bool", t_col(b, 0));
  t_check(e, b, "false|false|false|true|true|true|null|null|null");
  qv_expr_destroy(e);
  /* with scalars */
  e = t_call2(QV_OP_AND, "bool", t_col(b, 1), t_null_lit("bool"));
  t_check(e, b, "null|false|null|null|false|null|null|false|null");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_OR, "bool", t_lit("bool", TI(1)), t_col(b, 1));
  t_check(e, b, "true|true|true|true|true|true|true|true|true");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_truth_tests(void **state) {
  (void)state;
  qv_batch *b = truth_batch();
  struct {
    qv_op op;
    const char *want;
  } cases[] = {
      {QV_OP_IS_NULL, "false|false|false|false|false|false|true|true|true"},
      {QV_OP_IS_NOT_NULL, "true|true|true|true|true|true|false|false|false"},
      {QV_OP_IS_TRUE, "true|true|true|false|false|false|false|false|false"},
      {QV_OP_IS_NOT_TRUE, "false|false|false|true|true|true|true|true|true"},
      {QV_OP_IS_FALSE, "false|false|false|true|true|true|false|false|false"},
      {QV_OP_IS_NOT_FALSE, "true|true|true|false|false|false|true|true|true"},
  };
  for (size_t k = 0; k < 6; k++) {
    qv_expr *e = t_call1(cases[k].op, "bool", t_col(b, 0));
    t_check(e, b, cases[k].want);
    qv_expr_destroy(e);
  }
  /* IS NULL on any type */
  tval s[] = {TS("x"), TN(), TS("")};
  qv_array *col = t_arr("string", s, 3);
  qv_batch *b2 = t_batch(&col, 1);
  qv_expr *e = t_call1(QV_OP_IS_NULL, "bool", t_col(b2, 0));
  t_check(e, b2, "false|true|false");
  qv_expr_destroy(e);
  e = t_call1(QV_OP_IS_TRUE, "bool", t_col(b2, 0));
  t_eval_fails(e, b2, QV_ERR_TYPE, "expected a boolean");
  qv_expr_destroy(e);
  qv_batch_release(b2);
  qv_batch_release(b);
}

/* A long random Kleene check against an oracle, with sliced inputs. */
static int kl(qv_op op, int a, int b) { /* -1 null */
  switch (op) {
    case QV_OP_AND: return (a == 0 || b == 0) ? 0 : (a < 0 || b < 0) ? -1 : 1;
    case QV_OP_OR: return (a == 1 || b == 1) ? 1 : (a < 0 || b < 0) ? -1 : 0;
    default: return (a < 0 || b < 0) ? -1 : a ^ b;
  }
}

static void test_kleene_property(void **state) {
  (void)state;
  enum { M = 300 };
  uint64_t rs = 42;
  tval a[M + 3], b[M + 3];
  int ia[M + 3], ib[M + 3];
  for (int i = 0; i < M + 3; i++) {
    ia[i] = (int)(t_rand(&rs) % 3) - 1;
    ib[i] = (int)(t_rand(&rs) % 3) - 1;
    a[i] = ia[i] < 0 ? TN() : TI(ia[i]);
    b[i] = ib[i] < 0 ? TN() : TI(ib[i]);
  }
  qv_array *fa = t_arr("bool", a, M + 3), *fb = t_arr("bool", b, M + 3), *cols[2];
  assert_int_equal(qv_array_slice(fa, 3, M, &cols[0], NULL), QV_OK);
  assert_int_equal(qv_array_slice(fb, 1, M, &cols[1], NULL), QV_OK);
  qv_array_release(fa);
  qv_array_release(fb);
  qv_batch *bt = t_batch(cols, 2);
  qv_op ops[3] = {QV_OP_AND, QV_OP_OR, QV_OP_XOR};
  for (int k = 0; k < 3; k++) {
    qv_expr *e = t_call2(ops[k], "bool", t_col(bt, 0), t_col(bt, 1));
    qv_array *r = t_eval(e, bt, NULL);
    for (int i = 0; i < M; i++) {
      int want = kl(ops[k], ia[i + 3], ib[i + 1]);
      int got = qv_array_is_valid(r, i) ? qv_bit_get(r->buffers[1]->data, r->offset + i) : -1;
      assert_int_equal(got, want);
    }
    qv_array_release(r);
    qv_expr_destroy(e);
  }
  qv_batch_release(bt);
}

static void test_filter_shrinks(void **state) {
  (void)state;
  tval x[] = {TI(0), TI(2), TI(5), TN(), TI(10), TI(0)};
  tval y[] = {TI(1), TI(1), TI(1), TI(1), TI(3), TI(1)};
  qv_array *cols[2] = {t_arr("int64", x, 6), t_arr("int64", y, 6)};
  qv_batch *b = t_batch(cols, 2);
  /* x != 0 AND 10 / x > 1: the division never sees the zero rows */
  qv_expr *div = t_call2(QV_OP_DIV, "int64", t_lit("int64", TI(10)), t_col(b, 0));
  qv_expr *e = t_call2(QV_OP_AND, "bool", t_call2(QV_OP_NE, "bool", t_col(b, 0), t_lit("int64", TI(0))),
                       t_call2(QV_OP_GT, "bool", div, t_lit("int64", TI(1))));
  t_filter(e, b, NULL, "1,2");
  /* qv_eval of the same tree divides by zero (Lance semantics: an error) */
  t_eval_fails(e, b, QV_ERR_INVALID, "division by zero");
  /* with an input selection: only rows 2..5 */
  qv_selection sel = QV_SELECTION_INIT;
  assert_int_equal(qv_selection_reserve(&sel, 4), QV_OK);
  for (uint32_t r = 2; r < 6; r++) sel.rows[sel.count++] = r;
  qv_expr *e2 = t_call2(QV_OP_AND, "bool", t_call2(QV_OP_GE, "bool", t_col(b, 0), t_col(b, 1)),
                        t_call1(QV_OP_IS_NOT_NULL, "bool", t_col(b, 0)));
  t_filter(e2, b, &sel, "2,4");
  t_filter(e2, b, NULL, "1,2,4");
  qv_expr_destroy(e2);
  /* nulls drop rows */
  e2 = t_call2(QV_OP_OR, "bool", t_call2(QV_OP_GT, "bool", t_col(b, 0), t_lit("int64", TI(4))),
               t_call2(QV_OP_LT, "bool", t_col(b, 0), t_null_lit("int64")));
  t_filter(e2, b, NULL, "2,4");
  qv_expr_destroy(e2);
  /* constant predicates */
  e2 = t_lit("bool", TI(1));
  t_filter(e2, b, &sel, "2,3,4,5");
  qv_expr_destroy(e2);
  e2 = t_null_lit("bool");
  t_filter(e2, b, NULL, "");
  qv_expr_destroy(e2);
  /* a non-boolean predicate is a type error */
  e2 = t_col(b, 0);
  qv_selection out = QV_SELECTION_INIT;
  qv_error err;
  assert_int_equal(qv_eval_filter(e2, b, NULL, &out, &err), QV_ERR_TYPE);
  assert_non_null(strstr(err.message, "not boolean"));
  assert_int_equal(qv_eval_filter(e, b, &out, &out, &err), QV_ERR_INVALID);
  qv_selection_reset(&out);
  qv_expr_destroy(e2);
  qv_expr_destroy(e);
  qv_selection_reset(&sel);
  qv_batch_release(b);
}

/* A bare boolean column after another conjunct is read through the rows
 * the first one kept (regression: it was read as if they were rows 0..). */
static void test_filter_bare_bool_conjunct(void **state) {
  (void)state;
  tval x[] = {TI(1), TI(-1), TI(2), TI(3), TI(-4), TI(5)};
  tval p[] = {TI(1), TI(1), TN(), TI(0), TI(1), TI(1)};
  qv_array *cols[2] = {t_arr("int64", x, 6), t_arr("bool", p, 6)};
  qv_batch *b = t_batch(cols, 2);
  qv_expr *e = t_call2(QV_OP_AND, "bool", t_call2(QV_OP_GT, "bool", t_col(b, 0), t_lit("int64", TI(0))), t_col(b, 1));
  t_filter(e, b, NULL, "0,5");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_filter_many_conjuncts(void **state) {
  (void)state;
  enum { M = 1000 };
  tval x[M];
  for (int i = 0; i < M; i++) x[i] = i % 17 == 0 ? TN() : TI(i);
  qv_array *col = t_arr("int32", x, M);
  qv_batch *b = t_batch(&col, 1);
  /* 20 conjuncts x > k for k = 0..19 and x < 40 */
  qv_expr *e = t_call2(QV_OP_LT, "bool", t_col(b, 0), t_lit("int32", TI(40)));
  for (int k = 0; k < 20; k++)
    e = t_call2(QV_OP_AND, "bool", e, t_call2(QV_OP_GT, "bool", t_col(b, 0), t_lit("int32", TI(k))));
  t_filter(e, b, NULL, "20,21,22,23,24,25,26,27,28,29,30,31,32,33,35,36,37,38,39");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kleene_tables),         cmocka_unit_test(test_truth_tests),
      cmocka_unit_test(test_kleene_property),       cmocka_unit_test(test_filter_shrinks),
      cmocka_unit_test(test_filter_many_conjuncts), cmocka_unit_test(test_filter_bare_bool_conjunct),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
