/* Column names at write: two columns, or two fields of one struct, with the
 * same name are refused before anything is written (no dataset directory for
 * a new dataset, no version for an append or overwrite); the message names
 * both positions and, for a struct's fields, the path. */
#include <sys/stat.h>

#include "storage_test_util.h"

static qv_datatype parse_type(const char *text) {
  qv_datatype t = QV_DATATYPE_INIT;
  qv_error err;
  if (qv_datatype_parse(text, &t, &err) != QV_OK) fail_msg("%s: %s", text, err.message);
  return t;
}

/* A schema of "name:type" columns, types in qv_datatype_parse's spelling. */
static void schema_of(qv_schema *s, const char *const *cols, int n) {
  *s = (qv_schema)QV_SCHEMA_INIT;
  for (int i = 0; i < n; i++) {
    const char *colon = strchr(cols[i], ':');
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(colon - cols[i]), cols[i]);
    add_column(s, name, parse_type(colon + 1));
  }
}

static bool exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

/* Writing a schema with no batches fails with want, and creates nothing. */
static void refused(const char *const *cols, int n, const char *want) {
  char *dir = make_tmpdir();
  char *ds = join2(dir, "ds");
  qv_schema s;
  schema_of(&s, cols, n);
  qv_error err;
  assert_int_equal(write_batches(ds, &s, NULL, 0, NULL, NULL, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, want);
  assert_false(exists(ds));
  /* the check on its own says the same, without the "write: " */
  assert_int_equal(qv_dataset_check_schema(&s, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, want + strlen("write: "));
  qv_schema_reset(&s);
  rm_rf(dir);
  free(ds);
  free(dir);
}

static void test_duplicate_columns(void **state) {
  (void)state;
  refused((const char *[]){"a:int64", "a:int64"}, 2, "write: column 2 `a` has the same name as column 1");
  refused((const char *[]){"a:int64", "b:string", "a:float64"}, 3, "write: column 3 `a` has the same name as column 1");
  /* the first repeat in column order is named, with the earlier column */
  refused((const char *[]){"b:int64", "a:int64", "c:int64", "a:int64", "b:int64"}, 5,
          "write: column 4 `a` has the same name as column 2");
  refused((const char *[]){"x:int64", ":int64", ":int64"}, 3, "write: column 3 `` has the same name as column 2");
}

static void test_duplicate_struct_fields(void **state) {
  (void)state;
  refused((const char *[]){"id:int64", "s:struct<x: int64, y: string, x: string>"}, 2,
          "write: field 3 `s.x` has the same name as field 1 of struct `s`");
  /* deeper, and below a list (whose one child is named item) */
  refused((const char *[]){"s:struct<t: struct<u: int32, u: int32>>"}, 1,
          "write: field 2 `s.t.u` has the same name as field 1 of struct `s.t`");
  refused((const char *[]){"l:list<struct<x: int64, x: int64>>"}, 1,
          "write: field 2 `l.item.x` has the same name as field 1 of struct `l.item`");
  /* a struct field may share a column's name: s.a is not a */
  char *dir = make_tmpdir();
  char *ds = join2(dir, "ds");
  qv_schema s;
  schema_of(&s, (const char *[]){"a:int64", "s:struct<a: int64, s: string>"}, 2);
  qv_error err;
  assert_int_equal(write_batches(ds, &s, NULL, 0, NULL, NULL, &err), QV_OK);
  qv_schema_reset(&s);
  rm_rf(dir);
  free(ds);
  free(dir);
}

/* Names differing only in case are two columns (Polars keeps both; the
 * binder takes the exact spelling and refuses a case-insensitive guess that
 * matches both). */
static void test_case_differs(void **state) {
  (void)state;
  char *dir = make_tmpdir();
  char *ds = join2(dir, "ds");
  qv_schema s;
  schema_of(&s, (const char *[]){"a:int64", "A:int64", "s:struct<x: int64, X: int64>"}, 3);
  qv_error err;
  int64_t v = 0;
  assert_int_equal(write_batches(ds, &s, NULL, 0, NULL, &v, &err), QV_OK);
  assert_int_equal(v, 1);
  qv_schema_reset(&s);
  rm_rf(dir);
  free(ds);
  free(dir);
}

/* Append and overwrite with a duplicate name publish no version. */
static void test_no_version_on_refusal(void **state) {
  (void)state;
  char *dir = make_tmpdir();
  char *ds = join2(dir, "ds");
  qv_schema good, bad;
  schema_of(&good, (const char *[]){"a:int64"}, 1);
  schema_of(&bad, (const char *[]){"a:int64", "a:int64"}, 2);
  qv_error err;
  assert_int_equal(write_batches(ds, &good, NULL, 0, NULL, NULL, &err), QV_OK);
  for (int m = QV_WRITE_CREATE; m <= QV_WRITE_OVERWRITE; m++) {
    qv_write_options o = QV_WRITE_OPTIONS_INIT;
    o.mode = (qv_write_mode)m;
    assert_int_equal(write_batches(ds, &bad, NULL, 0, &o, NULL, &err), QV_ERR_INVALID);
    assert_string_equal(err.message, "write: column 2 `a` has the same name as column 1");
  }
  qv_dataset *d = NULL;
  assert_int_equal(qv_dataset_open(ds, 0, &d, &err), QV_OK);
  assert_int_equal(qv_dataset_version(d), 1);
  qv_dataset_close(d);
  qv_schema_reset(&good);
  qv_schema_reset(&bad);
  rm_rf(dir);
  free(ds);
  free(dir);
}

/* Many columns: found by sorting, not by comparing every pair. */
static void test_many_columns(void **state) {
  (void)state;
  enum { N = 200000 };
  qv_schema s = QV_SCHEMA_INIT;
  s.fields = calloc(N, sizeof *s.fields);
  s.n_fields = N;
  for (int i = 0; i < N; i++) {
    char name[32];
    snprintf(name, sizeof name, "c%d", (i * 7919) % N); /* 7919 is prime: a permutation */
    s.fields[i].name = strdup(name);
    s.fields[i].type = qv_datatype_simple(QV_TYPE_INT32);
    s.fields[i].nullable = true;
  }
  qv_error err;
  double t0 = qv_now_seconds();
  assert_int_equal(qv_dataset_check_schema(&s, &err), QV_OK);
  free(s.fields[N - 1].name);
  s.fields[N - 1].name = strdup(s.fields[10].name);
  assert_int_equal(qv_dataset_check_schema(&s, &err), QV_ERR_INVALID);
  char want[128];
  snprintf(want, sizeof want, "column %d `%s` has the same name as column 11", N, s.fields[10].name);
  assert_string_equal(err.message, want);
  assert_true(qv_now_seconds() - t0 < 5.0);
  for (int i = 0; i < N; i++) free(s.fields[i].name);
  free(s.fields);
}

static void test_other_refusals(void **state) {
  (void)state;
  qv_error err;
  assert_int_equal(qv_dataset_check_schema(NULL, &err), QV_ERR_INVALID);
  qv_schema s = QV_SCHEMA_INIT;
  assert_int_equal(qv_dataset_check_schema(&s, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, "the schema has no columns");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_duplicate_columns), cmocka_unit_test(test_duplicate_struct_fields),
      cmocka_unit_test(test_case_differs),      cmocka_unit_test(test_no_version_on_refusal),
      cmocka_unit_test(test_many_columns),      cmocka_unit_test(test_other_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
