/* Types, builders, arrays, scalars, batches and their text forms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/columnar.h"

static void assert_format(const qv_array *a, int64_t i, const char *want) {
  char buf[256];
  qv_array_format_value(a, i, buf, sizeof buf);
  assert_string_equal(buf, want);
}

static void test_type_text_round_trip(void **state) {
  (void)state;
  const char *texts[] = {"bool",
                         "int8",
                         "uint64",
                         "float32",
                         "decimal(10,2)",
                         "string",
                         "binary",
                         "date32",
                         "timestamp[ns]",
                         "timestamp[us, UTC]",
                         "time64[us]",
                         "duration[ms]",
                         "list<int64>",
                         "struct<a: int32, b: list<string>>",
                         "fixed_size_list<float32, 4>"};
  for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
    qv_datatype t;
    qv_error err;
    assert_int_equal(qv_datatype_parse(texts[k], &t, &err), QV_OK);
    char buf[128];
    qv_datatype_format(&t, buf, sizeof buf);
    assert_string_equal(buf, texts[k]);
    qv_datatype copy;
    assert_int_equal(qv_datatype_copy(&t, &copy), QV_OK);
    assert_true(qv_datatype_equal(&t, &copy));
    qv_datatype_reset(&copy);
    qv_datatype_reset(&t);
  }
}

static void test_type_parse_errors(void **state) {
  (void)state;
  qv_datatype t;
  qv_error err;
  assert_int_equal(qv_datatype_parse("int65", &t, &err), QV_ERR_PARSE);
  assert_string_equal(err.message, "type 'int65': unknown type name 'int65'");
  assert_int_equal(qv_datatype_parse("decimal(40,2)", &t, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, "decimal precision 40 is outside 1..38");
  assert_int_equal(qv_datatype_parse("list<int64", &t, &err), QV_ERR_PARSE);
  assert_string_equal(err.message, "type 'list<int64': expected '>' at position 11");
  assert_int_equal(qv_datatype_parse("timestamp[xs]", &t, &err), QV_ERR_PARSE);
}

static void test_builder_ints_with_nulls(void **state) {
  (void)state;
  qv_datatype t = qv_datatype_simple(QV_TYPE_INT16);
  qv_builder b;
  qv_array *a;
  assert_int_equal(qv_builder_init(&b, &t, NULL), QV_OK);
  assert_int_equal(qv_builder_append_int(&b, -5), QV_OK);
  assert_int_equal(qv_builder_append_null(&b), QV_OK);
  assert_int_equal(qv_builder_append_int(&b, 32767), QV_OK);
  assert_int_equal(qv_builder_append_int(&b, 32768), QV_ERR_OVERFLOW);
  assert_int_equal(qv_builder_finish(&b, &a, NULL), QV_OK);
  assert_int_equal(a->length, 3);
  assert_int_equal(a->null_count, 1);
  assert_format(a, 0, "-5");
  assert_format(a, 1, "null");
  assert_format(a, 2, "32767");
  qv_array *s;
  assert_int_equal(qv_array_slice(a, 1, 2, &s, NULL), QV_OK);
  assert_int_equal(s->null_count, 1);
  assert_format(s, 1, "32767");
  uint32_t rows[] = {2, 0, 1};
  qv_array *tk;
  assert_int_equal(qv_array_take(a, rows, 3, &tk, NULL), QV_OK);
  assert_format(tk, 0, "32767");
  assert_format(tk, 1, "-5");
  assert_format(tk, 2, "null");
  assert_int_equal(tk->null_count, 1);
  qv_array_release(tk);
  qv_array_release(s);
  qv_array_release(a);
}

static void test_values_print(void **state) {
  (void)state;
  qv_datatype types[6];
  qv_datatype_decimal(10, 2, &types[0], NULL);
  qv_datatype_timestamp(QV_UNIT_MILLI, "UTC", &types[1], NULL);
  types[2] = qv_datatype_simple(QV_TYPE_DATE32);
  types[3] = qv_datatype_simple(QV_TYPE_FLOAT64);
  types[4] = qv_datatype_simple(QV_TYPE_BINARY);
  types[5] = qv_datatype_time64(QV_UNIT_MICRO);
  qv_builder b;
  qv_array *a;
  /* decimal: -1.05 and 0.07 */
  qv_builder_init(&b, &types[0], NULL);
  qv_builder_append_decimal(&b, (uint64_t)-105, -1);
  qv_builder_append_decimal(&b, 7, 0);
  qv_builder_finish(&b, &a, NULL);
  assert_format(a, 0, "-1.05");
  assert_format(a, 1, "0.07");
  qv_array_release(a);
  qv_builder_init(&b, &types[1], NULL);
  qv_builder_append_int(&b, -1); /* one ms before the epoch */
  qv_builder_finish(&b, &a, NULL);
  assert_format(a, 0, "1969-12-31 23:59:59.999Z");
  qv_array_release(a);
  qv_builder_init(&b, &types[2], NULL);
  qv_builder_append_int(&b, 19723);
  qv_builder_finish(&b, &a, NULL);
  assert_format(a, 0, "2024-01-01");
  qv_array_release(a);
  qv_builder_init(&b, &types[3], NULL);
  qv_builder_append_double(&b, 0.1);
  qv_builder_append_double(&b, -0.0);
  qv_builder_append_double(&b, NAN);
  qv_builder_append_double(&b, 1e300);
  qv_builder_append_double(&b, 3);
  qv_builder_finish(&b, &a, NULL);
  assert_format(a, 0, "0.1");
  assert_format(a, 1, "-0.0");
  assert_format(a, 2, "NaN");
  assert_format(a, 3, "1e+300");
  assert_format(a, 4, "3.0");
  qv_array_release(a);
  qv_builder_init(&b, &types[4], NULL);
  qv_builder_append_bytes(&b, "\x01\xff", 2);
  qv_builder_finish(&b, &a, NULL);
  assert_format(a, 0, "0x01ff");
  qv_array_release(a);
  qv_builder_init(&b, &types[5], NULL);
  qv_builder_append_int(&b, 3723000004LL);
  qv_builder_finish(&b, &a, NULL);
  assert_format(a, 0, "01:02:03.000004");
  qv_array_release(a);
  for (int i = 0; i < 6; i++) qv_datatype_reset(&types[i]);
}

static void test_nested(void **state) {
  (void)state;
  qv_datatype t;
  assert_int_equal(qv_datatype_parse("struct<a: int32, b: list<string>>", &t, NULL), QV_OK);
  qv_builder b;
  qv_array *a;
  qv_builder_init(&b, &t, NULL);
  /* {a: 1, b: [x, null]} */
  qv_builder_append_int(&b.children[0], 1);
  qv_builder_append_cstr(&b.children[1].children[0], "x");
  qv_builder_append_null(&b.children[1].children[0]);
  assert_int_equal(qv_builder_append_valid(&b.children[1]), QV_OK);
  assert_int_equal(qv_builder_append_valid(&b), QV_OK);
  assert_int_equal(qv_builder_append_null(&b), QV_OK);
  qv_builder_append_int(&b.children[0], 2);
  qv_builder_append_valid(&b.children[1]);
  qv_builder_append_valid(&b);
  assert_int_equal(qv_builder_finish(&b, &a, NULL), QV_OK);
  assert_int_equal(qv_array_validate(a, NULL), QV_OK);
  assert_format(a, 0, "{a: 1, b: [x, null]}");
  assert_format(a, 1, "null");
  assert_format(a, 2, "{a: 2, b: []}");
  uint32_t rows[] = {2, 0};
  qv_array *tk;
  assert_int_equal(qv_array_take(a, rows, 2, &tk, NULL), QV_OK);
  assert_format(tk, 0, "{a: 2, b: []}");
  assert_format(tk, 1, "{a: 1, b: [x, null]}");
  qv_scalar s;
  assert_int_equal(qv_scalar_from_array(a->children[1], 0, &s, NULL), QV_OK);
  char buf[64];
  qv_scalar_format(&s, buf, sizeof buf);
  assert_string_equal(buf, "[x, null]");
  qv_scalar_reset(&s);
  qv_array_release(tk);
  qv_array_release(a);
  qv_datatype_reset(&t);
}

static void test_validate_rejects_bad_offsets(void **state) {
  (void)state;
  qv_datatype t = qv_datatype_simple(QV_TYPE_STRING);
  qv_builder b;
  qv_array *a;
  qv_builder_init(&b, &t, NULL);
  qv_builder_append_cstr(&b, "ab");
  qv_builder_append_bytes(&b, "\xc3\x28", 2); /* invalid UTF-8 */
  qv_builder_finish(&b, &a, NULL);
  qv_error err;
  assert_int_equal(qv_array_validate(a, &err), QV_ERR_CORRUPT);
  assert_string_equal(err.message, "array: row 1 is not valid UTF-8 (byte 0)");
  ((int32_t *)qv_bytes_mutable(a->buffers[1]))[2] = 99;
  assert_int_equal(qv_array_validate(a, &err), QV_ERR_CORRUPT);
  assert_string_equal(err.message, "array: offset 1 (2..99) is out of range 0..4");
  qv_array_release(a);
}

static void test_batch_print(void **state) {
  (void)state;
  qv_schema s = QV_SCHEMA_INIT;
  qv_field f;
  qv_datatype ti = qv_datatype_simple(QV_TYPE_INT64), ts = qv_datatype_simple(QV_TYPE_STRING);
  qv_field_init(&f, "id", &ti, true, NULL);
  qv_schema_add(&s, &f, NULL);
  qv_field_reset(&f);
  qv_field_init(&f, "name", &ts, true, NULL);
  qv_schema_add(&s, &f, NULL);
  qv_field_reset(&f);
  qv_builder b0, b1;
  qv_array *cols[2];
  qv_builder_init(&b0, &s.fields[0].type, NULL);
  qv_builder_init(&b1, &s.fields[1].type, NULL);
  qv_builder_append_int(&b0, 7);
  qv_builder_append_int(&b0, 12345);
  qv_builder_append_cstr(&b1, "héllo");
  qv_builder_append_null(&b1);
  qv_builder_finish(&b0, &cols[0], NULL);
  qv_builder_finish(&b1, &cols[1], NULL);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&s, cols, 2, &batch, NULL), QV_OK);
  char *text = NULL;
  size_t len = 0;
  FILE *f2 = open_memstream(&text, &len);
  assert_int_equal(qv_batch_print(batch, f2, NULL), QV_OK);
  fclose(f2);
  assert_string_equal(text, "   id | name \n------+------\n    7 | héllo\n12345 | null \n");
  free(text);
  qv_batch_release(batch);
  qv_schema_reset(&s);
}

/* Concatenation keeps values, nulls and slice offsets for every flat layout. */
static void test_concat(void **state) {
  (void)state;
  const char *types[] = {"string", "bool", "int16", "decimal(10,2)"};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    qv_datatype dt;
    assert_int_equal(qv_datatype_parse(types[t], &dt, NULL), QV_OK);
    qv_builder b;
    qv_array *a, *c, *parts[3], *out;
    qv_builder_init(&b, &dt, NULL);
    for (int i = 0; i < 11; i++) {
      if (i % 4 == 1) qv_builder_append_null(&b);
      else if (dt.id == QV_TYPE_STRING) {
        char buf[16];
        snprintf(buf, sizeof buf, "s%d", i);
        qv_builder_append_cstr(&b, buf);
      } else if (dt.id == QV_TYPE_BOOL) qv_builder_append_bool(&b, i % 3 == 0);
      else if (dt.id == QV_TYPE_DECIMAL128) qv_builder_append_decimal(&b, (uint64_t)(i * 7), 0);
      else qv_builder_append_int(&b, i - 5);
    }
    assert_int_equal(qv_builder_finish(&b, &a, NULL), QV_OK);
    qv_builder_init(&b, &dt, NULL); /* no validity bitmap at all */
    if (dt.id == QV_TYPE_STRING) qv_builder_append_cstr(&b, "z");
    else if (dt.id == QV_TYPE_BOOL) qv_builder_append_bool(&b, true);
    else if (dt.id == QV_TYPE_DECIMAL128) qv_builder_append_decimal(&b, 5, 0);
    else qv_builder_append_int(&b, 42);
    assert_int_equal(qv_builder_finish(&b, &c, NULL), QV_OK);
    assert_int_equal(qv_array_slice(a, 3, 7, &parts[0], NULL), QV_OK); /* odd bit offset */
    parts[1] = c;
    assert_int_equal(qv_array_slice(a, 0, 2, &parts[2], NULL), QV_OK);
    assert_int_equal(qv_array_concat(parts, 3, &out, NULL), QV_OK);
    assert_int_equal(out->length, 10);
    assert_int_equal(qv_array_validate(out, NULL), QV_OK);
    int64_t nulls = 0;
    for (int p = 0, at = 0; p < 3; p++)
      for (int64_t i = 0; i < parts[p]->length; i++, at++) {
        char x[64], y[64];
        qv_array_format_value(parts[p], i, x, sizeof x);
        qv_array_format_value(out, at, y, sizeof y);
        assert_string_equal(x, y);
        nulls += !qv_array_is_valid(out, at);
      }
    assert_int_equal(out->null_count, nulls);
    assert_true(nulls > 0);
    for (int p = 0; p < 3; p++) qv_array_release(parts[p]);
    qv_array_release(out);
    qv_array_release(a);
    qv_datatype_reset(&dt);
  }
}

static void test_calendar(void **state) {
  (void)state;
  int64_t days, secs;
  int32_t nanos;
  bool zone;
  assert_true(qv_parse_date("2024-02-29", 10, &days));
  assert_int_equal(days, 19782);
  assert_false(qv_parse_date("2023-02-29", 10, &days));
  assert_false(qv_parse_date("2024-1-01", 9, &days));
  assert_true(qv_parse_datetime("1969-12-31T23:59:59.5+01:00", 27, &secs, &nanos, &zone));
  assert_int_equal(secs, -3601);
  assert_int_equal(nanos, 500000000);
  assert_true(zone);
  assert_false(qv_parse_datetime("2024-01-01 25:00:00", 19, &secs, &nanos, &zone));
  assert_false(qv_parse_datetime("2024-01-01T00:00+05:", 20, &secs, &nanos, &zone));
  assert_true(qv_parse_datetime("2024-01-01T00:00+0530", 21, &secs, &nanos, &zone));
  assert_int_equal(secs, 1704067200 - 19800);
  for (int64_t d = -800000; d < 800000; d += 997) {
    int64_t y;
    unsigned m, dd;
    qv_civil_from_days(d, &y, &m, &dd);
    assert_int_equal(qv_days_from_civil(y, m, dd), d);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_type_text_round_trip),
      cmocka_unit_test(test_type_parse_errors),
      cmocka_unit_test(test_builder_ints_with_nulls),
      cmocka_unit_test(test_values_print),
      cmocka_unit_test(test_nested),
      cmocka_unit_test(test_validate_rejects_bad_offsets),
      cmocka_unit_test(test_batch_print),
      cmocka_unit_test(test_calendar),
      cmocka_unit_test(test_concat),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
