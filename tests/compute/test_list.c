/* array_has / array_has_any / array_has_all / array_length, list literals,
 * and struct field access. */
#include "compute/compute_test.h"

/* list<int64> rows from a flat spec: counts[i] items (-1: null list). */
static qv_array *int_lists(const char *type, const int *counts, int n, const tval *items) {
  qv_datatype t = t_type(type);
  qv_builder b;
  assert_int_equal(qv_builder_init(&b, &t, NULL), QV_OK);
  int at = 0;
  for (int i = 0; i < n; i++) {
    if (counts[i] < 0) {
      assert_int_equal(qv_builder_append_null(&b), QV_OK);
      continue;
    }
    for (int k = 0; k < counts[i]; k++, at++) {
      qv_builder *c = &b.children[0];
      if (items[at].null) assert_int_equal(qv_builder_append_null(c), QV_OK);
      else if (c->type.id == QV_TYPE_STRING) assert_int_equal(qv_builder_append_cstr(c, items[at].s), QV_OK);
      else if (qv_type_is_floating(c->type.id)) assert_int_equal(qv_builder_append_double(c, items[at].f), QV_OK);
      else assert_int_equal(qv_builder_append_int(c, (int64_t)items[at].i), QV_OK);
    }
    assert_int_equal(qv_builder_append_valid(&b), QV_OK);
  }
  qv_array *a = NULL;
  assert_int_equal(qv_builder_finish(&b, &a, NULL), QV_OK);
  qv_datatype_reset(&t);
  return a;
}

static qv_expr *list_lit(const char *item_type, const tval *v, int n) {
  qv_expr *args[16];
  for (int k = 0; k < n; k++) args[k] = t_lit(item_type, v[k]);
  return qv_expr_call(QV_OP_LIST, args, n);
}

static void test_array_has(void **state) {
  (void)state;
  /* [1,2,3] [] null [null,4] [5,5] [2] */
  int counts[] = {3, 0, -1, 2, 2, 1};
  tval items[] = {TI(1), TI(2), TI(3), TN(), TI(4), TI(5), TI(5), TI(2)};
  qv_array *pad = int_lists("list<int64>", counts, 6, items), *a = NULL;
  assert_int_equal(qv_array_slice(pad, 0, 6, &a, NULL), QV_OK);
  qv_array_release(pad);
  qv_batch *b = t_batch(&a, 1);
  qv_expr *e = t_call2(QV_OP_ARRAY_HAS, "bool", t_col(b, 0), t_lit("int64", TI(2)));
  t_check(e, b, "true|false|null|false|false|true");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_ARRAY_HAS, "bool", t_col(b, 0), t_lit("int32", TI(5)));
  t_check(e, b, "false|false|null|false|true|false");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_ARRAY_HAS, "bool", t_col(b, 0), t_null_lit("int64"));
  t_check(e, b, "null|null|null|null|null|null");
  qv_expr_destroy(e);
  tval any[] = {TI(4), TI(3), TN()};
  e = t_call2(QV_OP_ARRAY_HAS_ANY, "bool", t_col(b, 0), list_lit("int64", any, 3));
  t_check(e, b, "true|false|null|true|false|false");
  qv_expr_destroy(e);
  tval all[] = {TI(2), TI(1)};
  e = t_call2(QV_OP_ARRAY_HAS_ALL, "bool", t_col(b, 0), list_lit("int64", all, 2));
  t_check(e, b, "true|false|null|false|false|false");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_ARRAY_HAS_ALL, "bool", t_col(b, 0), list_lit("int64", all, 0));
  t_check(e, b, "true|true|null|true|true|true");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_ARRAY_HAS_ANY, "bool", t_col(b, 0), list_lit("int64", all, 0));
  t_check(e, b, "false|false|null|false|false|false");
  qv_expr_destroy(e);
  e = t_call1(QV_OP_ARRAY_LENGTH, "int64", t_col(b, 0));
  t_check(e, b, "3|0|null|2|2|1");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_ARRAY_HAS, "bool", t_col(b, 0), t_lit("string", TS("x")));
  t_eval_fails(e, b, QV_ERR_TYPE, "cannot compare int64 with string");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_array_has_strings_floats(void **state) {
  (void)state;
  int counts[] = {2, 1, 2};
  tval s[] = {TS("a"), TS("bc"), TS(""), TS("bc"), TN()};
  tval f[] = {TF(NAN), TF(-0.0), TF(0.0), TF(1.0), TF(NAN)};
  qv_array *cols[2] = {int_lists("list<string>", counts, 3, s), int_lists("list<float64>", counts, 3, f)};
  qv_batch *b = t_batch(cols, 2);
  qv_expr *e = t_call2(QV_OP_ARRAY_HAS, "bool", t_col(b, 0), t_lit("string", TS("bc")));
  t_check(e, b, "true|false|true");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_ARRAY_HAS, "bool", t_col(b, 1), t_lit("float64", TF(0.0)));
  e->sem.float_order = QV_FLOAT_TOTAL; /* -0.0 is not 0.0 */
  t_check(e, b, "false|true|false");
  e->sem.float_order = QV_FLOAT_POLARS;
  t_check(e, b, "true|true|false");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_ARRAY_HAS, "bool", t_col(b, 1), t_lit("float64", TF(NAN)));
  e->sem.float_order = QV_FLOAT_IEEE;
  t_check(e, b, "false|false|false");
  e->sem.float_order = QV_FLOAT_JAVA;
  t_check(e, b, "true|false|true");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_list_cast(void **state) {
  (void)state;
  int counts[] = {2, -1, 1};
  tval items[] = {TI(1), TI(300), TI(-2)};
  qv_array *a = int_lists("list<int32>", counts, 3, items);
  qv_batch *b = t_batch(&a, 1);
  qv_expr *e = t_call1(QV_OP_CAST, "list<int64>", t_col(b, 0));
  t_check(e, b, "[1, 300]|null|[-2]");
  qv_expr_destroy(e);
  e = t_call1(QV_OP_CAST, "list<int8>", t_col(b, 0));
  t_eval_fails(e, b, QV_ERR_INVALID, "CAST: value 300 is out of range for int8");
  e->sem.cast_strict = false;
  t_check(e, b, "[1, null]|null|[-2]");
  qv_expr_destroy(e);
  tval any[] = {TI(300)};
  e = t_call2(QV_OP_ARRAY_HAS_ANY, "bool", t_call1(QV_OP_CAST, "list<int64>", t_col(b, 0)), list_lit("int64", any, 1));
  t_check(e, b, "true|null|false");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_struct_field(void **state) {
  (void)state;
  qv_datatype t = t_type("struct<a: int32, b: string>");
  qv_builder bld;
  assert_int_equal(qv_builder_init(&bld, &t, NULL), QV_OK);
  const char *names[] = {"x", "y", "z", "w"};
  for (int i = 0; i < 4; i++) {
    if (i == 2) assert_int_equal(qv_builder_append_null(&bld.children[0]), QV_OK);
    else assert_int_equal(qv_builder_append_int(&bld.children[0], i * 10), QV_OK);
    assert_int_equal(qv_builder_append_cstr(&bld.children[1], names[i]), QV_OK);
    assert_int_equal(qv_builder_append_valid(&bld), QV_OK);
  }
  qv_array *full = NULL, *s = NULL;
  assert_int_equal(qv_builder_finish(&bld, &full, NULL), QV_OK);
  /* make row 3 (of the full array) a null struct whose children are valid */
  qv_bytes *m = qv_bytes_alloc(1);
  qv_bytes_mutable(m)[0] = 0x7;
  full->buffers[0] = m;
  full->null_count = 1;
  assert_int_equal(qv_array_slice(full, 1, 3, &s, NULL), QV_OK); /* rows y, z(a null), w(struct null) */
  qv_array_release(full);
  qv_batch *b = t_batch(&s, 1);
  qv_expr *e = t_call1(QV_OP_FIELD, "int32", t_col(b, 0));
  e->name = qv_strdup("a");
  t_check(e, b, "10|null|null");
  qv_expr_destroy(e);
  e = t_call1(QV_OP_FIELD, "string", t_col(b, 0));
  e->name = qv_strdup("b");
  t_check(e, b, "y|z|null");
  /* field values feed other kernels, also under a selection */
  qv_expr *e2 = t_call2(QV_OP_EQ, "bool", e, t_lit("string", TS("z")));
  t_check(e2, b, "false|true|null");
  qv_expr_destroy(e2);
  e = t_call1(QV_OP_FIELD, "string", t_col(b, 0));
  e->name = qv_strdup("nope");
  t_eval_fails(e, b, QV_ERR_NOT_FOUND, "struct has no field `nope`");
  qv_expr_destroy(e);
  qv_datatype_reset(&t);
  qv_batch_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_array_has),
      cmocka_unit_test(test_array_has_strings_floats),
      cmocka_unit_test(test_list_cast),
      cmocka_unit_test(test_struct_field),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
