/* Dictionary-encoded arrays: the type's text form, construction (indices
 * checked against the dictionary), decoding, take, and the operations that
 * refuse them with a clear error instead of misreading the indices. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "quiver/columnar.h"

static qv_array *ints(const char *type, const int64_t *v, const bool *valid, int64_t n) {
  qv_datatype t = QV_DATATYPE_INIT;
  assert_int_equal(qv_datatype_parse(type, &t, NULL), QV_OK);
  qv_builder b;
  assert_int_equal(qv_builder_init(&b, &t, NULL), QV_OK);
  for (int64_t i = 0; i < n; i++)
    assert_int_equal(valid && !valid[i] ? qv_builder_append_null(&b) : qv_builder_append_int(&b, v[i]), QV_OK);
  qv_array *a = NULL;
  assert_int_equal(qv_builder_finish(&b, &a, NULL), QV_OK);
  qv_datatype_reset(&t);
  return a;
}

static qv_array *strings(const char *const *v, int64_t n) {
  qv_datatype t = qv_datatype_simple(QV_TYPE_STRING);
  qv_builder b;
  assert_int_equal(qv_builder_init(&b, &t, NULL), QV_OK);
  for (int64_t i = 0; i < n; i++)
    assert_int_equal(v[i] ? qv_builder_append_cstr(&b, v[i]) : qv_builder_append_null(&b), QV_OK);
  qv_array *a = NULL;
  assert_int_equal(qv_builder_finish(&b, &a, NULL), QV_OK);
  return a;
}

static void expect_text(const qv_array *a, const char *want) {
  char got[512];
  size_t pos = 0;
  for (int64_t i = 0; i < a->length; i++) {
    char v[64];
    qv_array_format_value(a, i, v, sizeof v);
    pos += (size_t)snprintf(got + pos, sizeof got - pos, "%s%s", i ? "|" : "", v);
  }
  got[pos] = '\0';
  assert_string_equal(got, want);
}

static const char *const words[] = {"a", NULL, "", "bb"};

static qv_array *sample(void) {
  int64_t ix[] = {3, 0, 1, 0, 2};
  bool ok[] = {true, true, true, false, true};
  qv_array *a = NULL;
  qv_error err;
  if (qv_array_dictionary(ints("uint8", ix, ok, 5), strings(words, 4), &a, &err) != QV_OK) fail_msg("%s", err.message);
  return a;
}

static void test_type_text(void **state) {
  (void)state;
  qv_datatype t = QV_DATATYPE_INIT, u = QV_DATATYPE_INIT;
  assert_int_equal(qv_datatype_parse("dictionary<int16, timestamp[ms, UTC]>", &t, NULL), QV_OK);
  assert_int_equal(t.id, QV_TYPE_DICTIONARY);
  char buf[128];
  qv_datatype_format(&t, buf, sizeof buf);
  assert_string_equal(buf, "dictionary<int16, timestamp[ms, UTC]>");
  assert_int_equal(qv_datatype_parse(buf, &u, NULL), QV_OK);
  assert_true(qv_datatype_equal(&t, &u));
  qv_datatype_reset(&u);
  assert_int_equal(qv_datatype_parse("dictionary<int16, string>", &u, NULL), QV_OK);
  assert_false(qv_datatype_equal(&t, &u));
  qv_datatype_reset(&u);
  qv_datatype_reset(&t);
  qv_error err;
  assert_int_equal(qv_datatype_parse("dictionary<float64, string>", &t, &err), QV_ERR_TYPE);
  assert_string_equal(err.message, "dictionary indices must be an integer type");
  assert_int_equal(qv_datatype_parse("dictionary<int32, list<int8>>", &t, &err), QV_ERR_TYPE);
  assert_string_equal(err.message, "dictionary values cannot be list<int8>");
}

static void test_rows_and_decode(void **state) {
  (void)state;
  qv_array *a = sample();
  assert_string_equal(a->type.children[1].name, "values");
  expect_text(a, "bb|a|null|null|"); /* index 1 is a null entry; row 3 a null index */
  assert_int_equal(qv_array_validate(a, NULL), QV_OK);
  qv_array *p = NULL;
  assert_int_equal(qv_array_dictionary_decode(a, &p, NULL), QV_OK);
  assert_int_equal(p->type.id, QV_TYPE_STRING);
  expect_text(p, "bb|a|null|null|");
  assert_int_equal(p->null_count, 2);
  qv_array_release(p);
  uint32_t rows[] = {4, 0, 2};
  qv_array *t = NULL;
  assert_int_equal(qv_array_take(a, rows, 3, &t, NULL), QV_OK);
  assert_int_equal(t->type.id, QV_TYPE_DICTIONARY);
  expect_text(t, "|bb|null");
  qv_array *s = NULL;
  assert_int_equal(qv_array_slice(a, 1, 3, &s, NULL), QV_OK);
  expect_text(s, "a|null|null");
  qv_scalar sc = QV_SCALAR_INIT;
  assert_int_equal(qv_scalar_from_array(s, 0, &sc, NULL), QV_OK);
  assert_int_equal(sc.type.id, QV_TYPE_STRING);
  assert_string_equal((const char *)sc.bytes, "a");
  qv_scalar_reset(&sc);
  assert_int_equal(qv_scalar_from_array(s, 2, &sc, NULL), QV_OK);
  assert_true(sc.is_null);
  qv_scalar_reset(&sc);
  qv_array_release(s);
  qv_array_release(t);
  qv_array_release(a);
}

static void test_refusals(void **state) {
  (void)state;
  qv_error err;
  int64_t bad[] = {0, 4};
  qv_array *a = NULL;
  assert_int_equal(qv_array_dictionary(ints("int32", bad, NULL, 2), strings(words, 4), &a, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, "dictionary: index 4 at row 1 is outside a dictionary of 4 values");
  int64_t neg[] = {-1};
  assert_int_equal(qv_array_dictionary(ints("int8", neg, NULL, 1), strings(words, 4), &a, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, "dictionary: index -1 at row 0 is outside a dictionary of 4 values");
  assert_int_equal(qv_array_dictionary(strings(words, 2), strings(words, 4), &a, &err), QV_ERR_TYPE);
  assert_string_equal(err.message, "dictionary: indices must be integers");
  qv_array *d = sample();
  qv_array *two[2] = {d, d}, *c = NULL;
  assert_int_equal(qv_array_concat(two, 2, &c, &err), QV_ERR_UNSUPPORTED);
  assert_string_equal(err.message, "concat: dictionary arrays must be decoded first");
  qv_builder b;
  assert_int_equal(qv_builder_init(&b, &d->type, &err), QV_ERR_UNSUPPORTED);
  qv_schema s = QV_SCHEMA_INIT;
  qv_field f;
  qv_datatype t;
  assert_int_equal(qv_datatype_copy(&d->type, &t), QV_OK);
  assert_int_equal(qv_field_init(&f, "cat", &t, true, NULL), QV_OK);
  assert_int_equal(qv_schema_add(&s, &f, NULL), QV_OK);
  char buf[256];
  FILE *mem = fmemopen(buf, sizeof buf, "w");
  qv_ipc_writer *w = NULL;
  assert_int_equal(qv_ipc_writer_open(mem, QV_IPC_STREAM, &s, &w, &err), QV_ERR_UNSUPPORTED);
  assert_string_equal(err.message,
                      "ipc: field 'cat' is dictionary-encoded, which the writer does not write (decode it first)");
  fclose(mem);
  struct ArrowArray out;
  assert_int_not_equal(qv_export_array(d, &out, &err), QV_OK);
  qv_field_reset(&f);
  qv_datatype_reset(&t);
  qv_schema_reset(&s);
  qv_array_release(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_type_text),
      cmocka_unit_test(test_rows_and_decode),
      cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
