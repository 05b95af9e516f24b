/* A write whose reader fails part way (a CSV value on line 1007 that its
 * inferred type does not take) publishes nothing and, when it created the
 * dataset's directory, leaves none behind: the next import starts clean.  A
 * directory that was there before stays. */
#include <dirent.h>
#include <sys/stat.h>

#include "storage_test_util.h"

typedef struct failing {
  qv_schema schema;
  qv_batch *batch;
  int given;
} failing;

/* One batch, then an error, as csv.c's reader gives at a bad value. */
static qv_status failing_next(qv_batch_reader *self, qv_batch **out, qv_error *err) {
  failing *f = self->private_data;
  *out = NULL;
  if (f->given++ == 0) {
    *out = qv_batch_retain(f->batch);
    return QV_OK;
  }
  return qv_error_set(err, QV_ERR_PARSE, "in.csv: line 1007: column `x`: '1.5' is not a valid int64");
}
static const qv_schema *failing_schema(qv_batch_reader *self) { return &((failing *)self->private_data)->schema; }
static void failing_destroy(qv_batch_reader *self) {
  failing *f = self->private_data;
  qv_batch_release(f->batch);
  qv_schema_reset(&f->schema);
  free(f);
  free(self);
}

static qv_batch_reader *failing_new(void) {
  failing *f = calloc(1, sizeof *f);
  f->schema = (qv_schema)QV_SCHEMA_INIT;
  add_column(&f->schema, "x", qv_datatype_simple(QV_TYPE_INT64));
  qv_error err;
  qv_builder b;
  assert_int_equal(qv_builder_init(&b, &f->schema.fields[0].type, &err), QV_OK);
  for (int i = 0; i < 1000; i++) assert_int_equal(qv_builder_append_int(&b, i), QV_OK);
  qv_array *col = NULL;
  assert_int_equal(qv_builder_finish(&b, &col, &err), QV_OK);
  qv_builder_reset(&b);
  assert_int_equal(qv_batch_make(&f->schema, &col, 1000, &f->batch, &err), QV_OK);
  qv_batch_reader *r = calloc(1, sizeof *r);
  r->next = failing_next;
  r->schema = failing_schema;
  r->destroy = failing_destroy;
  r->private_data = f;
  return r;
}

static qv_status write_failing(const char *path, qv_write_mode mode, qv_error *err) {
  qv_batch_reader *r = failing_new();
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.mode = mode;
  o.page_rows = 100; /* pages and a data file are written before the error */
  qv_status st = qv_dataset_write(path, r, &o, NULL, err);
  qv_batch_reader_destroy(r);
  return st;
}

static bool exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

static void test_new_dataset_leaves_nothing(void **state) {
  (void)state;
  char *dir = make_tmpdir();
  char *ds = join2(dir, "ds");
  qv_error err;
  assert_int_equal(write_failing(ds, QV_WRITE_CREATE, &err), QV_ERR_PARSE);
  assert_string_equal(err.message, "in.csv: line 1007: column `x`: '1.5' is not a valid int64");
  assert_false(exists(ds));
  rm_rf(dir);
  free(ds);
  free(dir);
}

static void test_directory_made_by_the_user_stays(void **state) {
  (void)state;
  char *dir = make_tmpdir();
  char *ds = join2(dir, "ds");
  assert_int_equal(mkdir(ds, 0755), 0);
  qv_error err;
  assert_int_equal(write_failing(ds, QV_WRITE_CREATE, &err), QV_ERR_PARSE);
  assert_true(exists(ds));
  char *data = join2(ds, "data");
  DIR *d = opendir(data);
  if (d) { /* the layout may stay; no data file does */
    struct dirent *e;
    while ((e = readdir(d)) != NULL) assert_true(e->d_name[0] == '.');
    closedir(d);
  }
  free(data);
  rm_rf(dir);
  free(ds);
  free(dir);
}

static void test_existing_dataset_keeps_its_version(void **state) {
  (void)state;
  char *dir = make_tmpdir();
  char *ds = join2(dir, "ds");
  qv_schema s = QV_SCHEMA_INIT;
  add_column(&s, "x", qv_datatype_simple(QV_TYPE_INT64));
  qv_error err;
  assert_int_equal(write_batches(ds, &s, NULL, 0, NULL, NULL, &err), QV_OK);
  assert_int_equal(write_failing(ds, QV_WRITE_APPEND, &err), QV_ERR_PARSE);
  assert_int_equal(write_failing(ds, QV_WRITE_OVERWRITE, &err), QV_ERR_PARSE);
  qv_dataset *d = NULL;
  assert_int_equal(qv_dataset_open(ds, 0, &d, &err), QV_OK);
  assert_int_equal(qv_dataset_version(d), 1);
  assert_int_equal(qv_dataset_count_rows(d), 0);
  qv_dataset_close(d);
  qv_schema_reset(&s);
  rm_rf(dir);
  free(ds);
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_new_dataset_leaves_nothing),
      cmocka_unit_test(test_directory_made_by_the_user_stays),
      cmocka_unit_test(test_existing_dataset_keeps_its_version),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
