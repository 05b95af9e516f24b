/* Versions: create, append, overwrite, opening old versions, listing;
 * refusals (existing dataset, schema mismatch, conflicting writers) that
 * publish nothing and leave no files behind. */
#include <dirent.h>
#include <string.h>

#include "storage/format.h"
#include "storage/storage_test_util.h"

static qv_schema schema_of(const char *n1, qv_type_id t1) {
  qv_schema s = QV_SCHEMA_INIT;
  add_column(&s, n1, qv_datatype_simple(t1));
  add_column(&s, "name", qv_datatype_simple(QV_TYPE_STRING));
  return s;
}

/* Batches of rows [from, from+n): id = i, name = "row<i>". */
static int make_rows(const qv_schema *s, int64_t from, int64_t n, int64_t batch_rows, qv_batch ***out) {
  qv_builder bi, bs;
  qv_error err;
  assert_int_equal(qv_builder_init(&bi, &s->fields[0].type, &err), QV_OK);
  assert_int_equal(qv_builder_init(&bs, &s->fields[1].type, &err), QV_OK);
  for (int64_t i = from; i < from + n; i++) {
    char buf[32];
    snprintf(buf, sizeof buf, "row%lld", (long long)i);
    if (s->fields[0].type.id == QV_TYPE_STRING) assert_int_equal(qv_builder_append_cstr(&bi, buf), QV_OK);
    else assert_int_equal(qv_builder_append_int(&bi, i), QV_OK);
    assert_int_equal(qv_builder_append_cstr(&bs, buf), QV_OK);
  }
  qv_array *cols[2];
  assert_int_equal(qv_builder_finish(&bi, &cols[0], &err), QV_OK);
  assert_int_equal(qv_builder_finish(&bs, &cols[1], &err), QV_OK);
  int nb = split_batches(s, cols, n, batch_rows, out);
  qv_array_release(cols[0]);
  qv_array_release(cols[1]);
  return nb;
}

static qv_status write_rows(const char *path, const qv_schema *s, int64_t from, int64_t n, qv_write_mode mode,
                            int64_t *version, qv_error *err) {
  qv_batch **b;
  int nb = make_rows(s, from, n, 100, &b);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.mode = mode;
  o.page_rows = 64;
  o.max_rows_per_file = 250;
  qv_status st = write_batches(path, s, b, nb, &o, version, err);
  free_batches(b, nb);
  return st;
}

/* All ids of a version, in order, must be from..from+n. */
static void expect_ids(const char *path, int64_t version, const int64_t *from, const int64_t *n, int parts) {
  qv_dataset *ds;
  qv_error err;
  if (qv_dataset_open(path, version, &ds, &err) != QV_OK) fail_msg("open %lld: %s", (long long)version, err.message);
  int64_t total = 0;
  for (int p = 0; p < parts; p++) total += n[p];
  assert_int_equal(qv_dataset_count_rows(ds), total);
  int part = 0;
  int64_t next = parts ? from[0] : 0, left = parts ? n[0] : 0;
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
    qv_fragment_reader *r;
    assert_int_equal(qv_fragment_open(ds, f, &r, &err), QV_OK);
    qv_array *a;
    assert_int_equal(qv_fragment_read(r, 0, 0, qv_fragment_num_rows(r), &a, &err), QV_OK);
    const int64_t *v = qv_array_values(a);
    for (int64_t i = 0; i < a->length; i++) {
      while (left == 0) {
        part++;
        assert_true(part < parts);
        next = from[part];
        left = n[part];
      }
      assert_int_equal(v[i], next);
      next++;
      left--;
    }
    qv_array_release(a);
    qv_fragment_close(r);
  }
  assert_int_equal(left, 0);
  qv_dataset_close(ds);
}

static int count_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

static void test_lifecycle(void **state) {
  (void)state;
  char *dir = make_tmpdir(), *path = join2(dir, "ds"), *data = join2(path, "data");
  qv_schema s = schema_of("id", QV_TYPE_INT64);
  qv_error err;
  int64_t v = 0;
  assert_int_equal(write_rows(path, &s, 0, 600, QV_WRITE_CREATE, &v, &err), QV_OK);
  assert_int_equal(v, 1);
  assert_int_equal(count_files(data), 3); /* 250 + 250 + 100 */
  /* the layout exists, _indices empty */
  char *idx = join2(path, "_indices");
  assert_int_equal(count_files(idx), 0);
  free(idx);

  /* CREATE again: refused, nothing written */
  assert_int_equal(write_rows(path, &s, 0, 10, QV_WRITE_CREATE, &v, &err), QV_ERR_EXISTS);
  assert_int_equal(count_files(data), 3);

  assert_int_equal(write_rows(path, &s, 1000, 300, QV_WRITE_APPEND, &v, &err), QV_OK);
  assert_int_equal(v, 2);

  /* append with another schema: refused with the difference named */
  qv_schema other = schema_of("id", QV_TYPE_STRING);
  assert_int_equal(write_rows(path, &other, 0, 10, QV_WRITE_APPEND, &v, &err), QV_ERR_TYPE);
  assert_non_null(strstr(err.message, "`id`"));
  assert_non_null(strstr(err.message, "string"));
  qv_schema renamed = schema_of("ident", QV_TYPE_INT64);
  assert_int_equal(write_rows(path, &renamed, 0, 10, QV_WRITE_APPEND, &v, &err), QV_ERR_TYPE);
  assert_non_null(strstr(err.message, "ident"));
  assert_int_equal(count_files(data), 5);

  /* overwrite with a different schema is allowed */
  assert_int_equal(write_rows(path, &other, 0, 50, QV_WRITE_OVERWRITE, &v, &err), QV_OK);
  assert_int_equal(v, 3);

  int64_t f1[] = {0}, n1[] = {600};
  expect_ids(path, 1, f1, n1, 1);
  int64_t f2[] = {0, 1000}, n2[] = {600, 300};
  expect_ids(path, 2, f2, n2, 2);
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_dataset_version(ds), 3);
  assert_true(qv_schema_equal(qv_dataset_schema(ds), &other));
  assert_int_equal(qv_dataset_count_rows(ds), 50);
  assert_int_equal(qv_dataset_num_fragments(ds), 1);
  qv_fragment_info fi;
  qv_dataset_fragment(ds, 0, &fi);
  assert_int_equal(fi.id, 5); /* ids keep counting across versions */
  assert_int_equal(strncmp(fi.path, "data/", 5), 0);
  assert_string_equal(qv_dataset_path(ds), path);
  qv_dataset_close(ds);

  qv_version_info *vi;
  int64_t nv;
  assert_int_equal(qv_dataset_versions(path, &vi, &nv, &err), QV_OK);
  assert_int_equal(nv, 3);
  const char *ops[] = {"create", "append", "overwrite"};
  int64_t rows[] = {600, 900, 50};
  int32_t frags[] = {3, 5, 1};
  for (int i = 0; i < 3; i++) {
    assert_int_equal(vi[i].version, i + 1);
    assert_string_equal(vi[i].operation, ops[i]);
    assert_int_equal(vi[i].num_rows, rows[i]);
    assert_int_equal(vi[i].num_fragments, frags[i]);
    assert_true(vi[i].timestamp_ms > 1600000000000);
    if (i) assert_true(vi[i].timestamp_ms >= vi[i - 1].timestamp_ms);
  }
  qv_free(vi);
  assert_int_equal(qv_dataset_versions(dir, &vi, &nv, &err), QV_ERR_NOT_FOUND);

  qv_schema_reset(&s);
  qv_schema_reset(&other);
  qv_schema_reset(&renamed);
  rm_rf(dir);
  free(dir);
  free(path);
  free(data);
}

static void test_append_creates(void **state) {
  (void)state;
  char *dir = make_tmpdir(), *path = join2(dir, "ds");
  qv_schema s = schema_of("id", QV_TYPE_INT64);
  qv_error err;
  int64_t v;
  assert_int_equal(write_rows(path, &s, 7, 5, QV_WRITE_APPEND, &v, &err), QV_OK);
  assert_int_equal(v, 1);
  int64_t f[] = {7}, n[] = {5};
  expect_ids(path, 0, f, n, 1);
  qv_version_info *vi;
  int64_t nv;
  assert_int_equal(qv_dataset_versions(path, &vi, &nv, &err), QV_OK);
  assert_string_equal(vi[0].operation, "create");
  qv_free(vi);
  qv_schema_reset(&s);
  rm_rf(dir);
  free(dir);
  free(path);
}

static int64_t progress_calls, progress_last;
static void on_progress(void *ctx, int64_t rows) {
  assert_ptr_equal(ctx, &progress_calls);
  assert_true(rows > progress_last);
  progress_last = rows;
  progress_calls++;
}

static void test_progress(void **state) {
  (void)state;
  char *dir = make_tmpdir(), *path = join2(dir, "ds");
  qv_schema s = schema_of("id", QV_TYPE_INT64);
  qv_error err;
  qv_batch **b;
  int nb = make_rows(&s, 0, 1050, 100, &b);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.progress = on_progress;
  o.progress_ctx = &progress_calls;
  assert_int_equal(write_batches(path, &s, b, nb, &o, NULL, &err), QV_OK);
  assert_int_equal(progress_calls, 11);
  assert_int_equal(progress_last, 1050);
  free_batches(b, nb);
  qv_schema_reset(&s);
  rm_rf(dir);
  free(dir);
  free(path);
}

/* Another writer publishes our version first: we get CONFLICT and our data
 * files are gone. */
static const char *g_path;
static void steal_version(const char *step) {
  if (strcmp(step, "before-publish") != 0) return;
  char *src = join2(g_path, "_versions/1.manifest"), *dst = join2(g_path, "_versions/2.manifest");
  assert_int_equal(link(src, dst), 0);
  free(src);
  free(dst);
}

static void test_conflict(void **state) {
  (void)state;
  char *dir = make_tmpdir(), *path = join2(dir, "ds"), *data = join2(path, "data");
  qv_schema s = schema_of("id", QV_TYPE_INT64);
  qv_error err;
  int64_t v;
  assert_int_equal(write_rows(path, &s, 0, 10, QV_WRITE_CREATE, &v, &err), QV_OK);
  g_path = path;
  qvs_commit_hook = steal_version;
  assert_int_equal(write_rows(path, &s, 10, 600, QV_WRITE_APPEND, &v, &err), QV_ERR_CONFLICT);
  qvs_commit_hook = NULL;
  assert_non_null(strstr(err.message, "another writer"));
  assert_int_equal(count_files(data), 1);
  char *vers = join2(path, "_versions");
  assert_int_equal(count_files(vers), 2); /* 1 and the stolen 2; no temp file left */
  free(vers);

  /* a delete through a stale handle conflicts as well */
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 1, &ds, &err), QV_OK);
  uint8_t bits[2] = {1, 0};
  const uint8_t *del[] = {bits};
  assert_int_equal(qv_dataset_delete_rows(ds, del, &v, &err), QV_ERR_CONFLICT);
  qv_dataset_close(ds);

  qv_schema_reset(&s);
  rm_rf(dir);
  free(dir);
  free(path);
  free(data);
}

/* A reader that fails after some batches: nothing is published, and the
 * data files already written are removed. */
typedef struct failing {
  qv_batch_reader base;
  qv_batch **b;
  int n, i;
  qv_schema *s;
} failing;

static qv_status failing_next(qv_batch_reader *self, qv_batch **out, qv_error *err) {
  failing *f = (failing *)self;
  if (f->i == f->n) return qv_error_set(err, QV_ERR_PARSE, "input broke at batch %d", f->i);
  *out = qv_batch_retain(f->b[f->i++]);
  return QV_OK;
}
static const qv_schema *failing_schema(qv_batch_reader *self) { return ((failing *)self)->s; }

static void test_reader_error(void **state) {
  (void)state;
  char *dir = make_tmpdir(), *path = join2(dir, "ds"), *data = join2(path, "data");
  qv_schema s = schema_of("id", QV_TYPE_INT64);
  failing f = {{failing_next, failing_schema, NULL, NULL}, NULL, 0, 0, &s};
  f.n = make_rows(&s, 0, 1000, 100, &f.b);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.max_rows_per_file = 300;
  qv_error err;
  int64_t v = -1;
  assert_int_equal(qv_dataset_write(path, &f.base, &o, &v, &err), QV_ERR_PARSE);
  assert_int_equal(v, -1);
  assert_non_null(strstr(err.message, "input broke"));
  /* no data file is left, nor the directory the failed first write made */
  assert_int_equal(count_files(data), -1);
  assert_int_equal(count_files(path), -1);
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_ERR_NOT_FOUND);
  free_batches(f.b, f.n);
  qv_schema_reset(&s);
  rm_rf(dir);
  free(dir);
  free(path);
  free(data);
}

/* Names in _versions that are not <n>.manifest are ignored. */
static void test_junk_in_versions(void **state) {
  (void)state;
  char *dir = make_tmpdir(), *path = join2(dir, "ds");
  qv_schema s = schema_of("id", QV_TYPE_INT64);
  qv_error err;
  int64_t v;
  assert_int_equal(write_rows(path, &s, 0, 10, QV_WRITE_CREATE, &v, &err), QV_OK);
  const char *junk[] = {"_versions/.tmp-abc.manifest", "_versions/02.manifest", "_versions/x.manifest",
                        "_versions/3.manifest.bak", "_versions/99999999999999999999.manifest"};
  for (int i = 0; i < 5; i++) {
    char *p = join2(path, junk[i]);
    FILE *fp = fopen(p, "w");
    fputs("junk", fp);
    fclose(fp);
    free(p);
  }
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_dataset_version(ds), 1);
  qv_dataset_close(ds);
  assert_int_equal(write_rows(path, &s, 10, 10, QV_WRITE_APPEND, &v, &err), QV_OK);
  assert_int_equal(v, 2);
  qv_schema_reset(&s);
  rm_rf(dir);
  free(dir);
  free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lifecycle), cmocka_unit_test(test_append_creates), cmocka_unit_test(test_progress),
      cmocka_unit_test(test_conflict),  cmocka_unit_test(test_reader_error),   cmocka_unit_test(test_junk_in_versions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
