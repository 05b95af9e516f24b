/* qv_dataset_merge (src/storage/merge.c): upserts on one and two key
 * columns, each when_matched, inserts on and off, deletes of rows the
 * source lacks, null keys that match nothing, duplicate source keys
 * refused with the key named, a subset of columns updated, no version when
 * nothing changes, and the result checked row by row against a model. */
#include "storage/storage_test_util.h"

static qv_schema g_schema; /* id int64, k string, v int64 */

static int setup(void **state) {
  (void)state;
  g_schema = (qv_schema)QV_SCHEMA_INIT;
  add_column(&g_schema, "id", qv_datatype_simple(QV_TYPE_INT64));
  add_column(&g_schema, "k", qv_datatype_simple(QV_TYPE_STRING));
  add_column(&g_schema, "v", qv_datatype_simple(QV_TYPE_INT64));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  qv_schema_reset(&g_schema);
  return 0;
}

typedef struct row {
  int64_t id; /* INT64_MIN: null */
  const char *k;
  int64_t v;
} row;

static qv_batch *batch_of(const row *rows, int n) {
  qv_builder bi, bk, bv;
  qv_error err;
  assert_int_equal(qv_builder_init(&bi, &g_schema.fields[0].type, &err), QV_OK);
  assert_int_equal(qv_builder_init(&bk, &g_schema.fields[1].type, &err), QV_OK);
  assert_int_equal(qv_builder_init(&bv, &g_schema.fields[2].type, &err), QV_OK);
  for (int i = 0; i < n; i++) {
    if (rows[i].id == INT64_MIN) assert_int_equal(qv_builder_append_null(&bi), QV_OK);
    else assert_int_equal(qv_builder_append_int(&bi, rows[i].id), QV_OK);
    if (!rows[i].k) assert_int_equal(qv_builder_append_null(&bk), QV_OK);
    else assert_int_equal(qv_builder_append_cstr(&bk, rows[i].k), QV_OK);
    assert_int_equal(qv_builder_append_int(&bv, rows[i].v), QV_OK);
  }
  qv_array *cols[3];
  assert_int_equal(qv_builder_finish(&bi, &cols[0], &err), QV_OK);
  assert_int_equal(qv_builder_finish(&bk, &cols[1], &err), QV_OK);
  assert_int_equal(qv_builder_finish(&bv, &cols[2], &err), QV_OK);
  qv_batch *b;
  assert_int_equal(qv_batch_make(&g_schema, cols, n, &b, &err), QV_OK);
  return b;
}

/* The target: ids 0..n-1, k = "k<id % 3>", v = id, in fragments of 40. */
static char *make_target(char **dir, int n) {
  *dir = make_tmpdir();
  char *path = join2(*dir, "ds");
  row *rows = calloc((size_t)n, sizeof *rows);
  static const char *const ks[] = {"k0", "k1", "k2"};
  for (int i = 0; i < n; i++) rows[i] = (row){i, ks[i % 3], i};
  qv_batch *b = batch_of(rows, n);
  free(rows);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.max_rows_per_file = 40;
  o.page_rows = 16;
  qv_error err;
  assert_int_equal(write_batches(path, &g_schema, &b, 1, &o, NULL, &err), QV_OK);
  qv_batch_release(b);
  return path;
}

static qv_status merge(const char *path, const row *src, int n, const qv_merge_options *o, qv_merge_result *res,
                       qv_error *err) {
  qv_batch *b = batch_of(src, n);
  qv_batch_reader *r = vec_reader_new(&g_schema, &b, 1);
  qv_batch_release(b);
  qv_status st = qv_dataset_merge(path, r, o, res, err);
  qv_batch_reader_destroy(r);
  return st;
}

/* Live rows of the latest version, sorted by (id nulls first, k, v). */
static int cmp_row(const void *a, const void *b) {
  const row *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  int c = strcmp(x->k ? x->k : "", y->k ? y->k : "");
  if (c) return c;
  return (x->v > y->v) - (x->v < y->v);
}

static int live_rows(const char *path, row *out, char (*kbuf)[16], int cap) {
  qv_dataset *ds;
  qv_error err;
  if (qv_dataset_open(path, 0, &ds, &err) != QV_OK) fail_msg("open: %s", err.message);
  int n = 0;
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
    qv_fragment_reader *r;
    assert_int_equal(qv_fragment_open(ds, f, &r, &err), QV_OK);
    int64_t rows = qv_fragment_num_rows(r);
    qv_array *a[3];
    for (int c = 0; c < 3; c++) assert_int_equal(qv_fragment_read(r, c, 0, rows, &a[c], &err), QV_OK);
    const uint8_t *gone = qv_fragment_deleted(r);
    for (int64_t i = 0; i < rows; i++) {
      if (gone && qv_bit_get(gone, i)) continue;
      assert_true(n < cap);
      out[n].id = qv_array_is_valid(a[0], i) ? ((const int64_t *)qv_array_values(a[0]))[i] : INT64_MIN;
      if (qv_array_is_valid(a[1], i)) {
        int32_t len;
        const uint8_t *p = qv_array_str(a[1], i, &len);
        snprintf(kbuf[n], 16, "%.*s", (int)len, (const char *)p);
        out[n].k = kbuf[n];
      } else {
        out[n].k = NULL;
      }
      out[n].v = ((const int64_t *)qv_array_values(a[2]))[i];
      n++;
    }
    for (int c = 0; c < 3; c++) qv_array_release(a[c]);
    qv_fragment_close(r);
  }
  assert_int_equal(n, qv_dataset_count_rows(ds));
  qv_dataset_close(ds);
  qsort(out, (size_t)n, sizeof *out, cmp_row);
  return n;
}

static void expect_rows(const char *path, row *want, int n) {
  row got[512];
  char kbuf[512][16];
  int m = live_rows(path, got, kbuf, 512);
  qsort(want, (size_t)n, sizeof *want, cmp_row);
  assert_int_equal(m, n);
  for (int i = 0; i < n; i++) {
    if (cmp_row(&got[i], &want[i]) != 0)
      fail_msg("row %d: got (%lld, %s, %lld), want (%lld, %s, %lld)", i, (long long)got[i].id,
               got[i].k ? got[i].k : "null", (long long)got[i].v, (long long)want[i].id, want[i].k ? want[i].k : "null",
               (long long)want[i].v);
  }
}

static const char *const on_id[] = {"id"};

static void test_upsert(void **state) {
  (void)state;
  char *dir, *path = make_target(&dir, 100);
  /* updates 5, 50 and 99 (three fragments), inserts 100, 200 and a null key */
  row src[] = {{50, "u", 500},  {100, "n", 1000}, {5, "u", 55}, {INT64_MIN, "nullkey", 7},
               {99, NULL, 990}, {200, "n", 2}};
  qv_merge_options o = QV_MERGE_OPTIONS_INIT;
  o.on = on_id;
  o.n_on = 1;
  qv_merge_result res;
  qv_error err;
  if (merge(path, src, 6, &o, &res, &err) != QV_OK) fail_msg("%s", err.message);
  assert_int_equal(res.version, 2);
  assert_int_equal(res.updated, 3);
  assert_int_equal(res.inserted, 3);
  assert_int_equal(res.deleted, 0);
  row want[103];
  static const char *const ks[] = {"k0", "k1", "k2"};
  int n = 0;
  for (int i = 0; i < 100; i++)
    if (i != 5 && i != 50 && i != 99) want[n++] = (row){i, ks[i % 3], i};
  for (int i = 0; i < 6; i++) want[n++] = src[i];
  expect_rows(path, want, n);
  qv_version_info *info;
  int64_t nv;
  assert_int_equal(qv_dataset_versions(path, &info, &nv, &err), QV_OK);
  assert_int_equal(nv, 2);
  assert_string_equal(info[1].operation, "merge");
  qv_free(info);
  rm_rf(dir);
  free(dir);
  free(path);
}

static void test_duplicate_keys(void **state) {
  (void)state;
  char *dir, *path = make_target(&dir, 10);
  row src[] = {{1, "a", 1}, {7, "b", 2}, {INT64_MIN, "c", 3}, {INT64_MIN, "d", 4}, {7, "e", 5}};
  qv_merge_options o = QV_MERGE_OPTIONS_INIT;
  o.on = on_id;
  o.n_on = 1;
  qv_error err;
  assert_int_equal(merge(path, src, 5, &o, NULL, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, "merge: source rows 2 and 5 have the same key (id=7)");
  /* two keys: (k, id) repeated */
  static const char *const on2[] = {"k", "id"};
  o.on = on2;
  o.n_on = 2;
  row src2[] = {{1, "a", 1}, {1, "b", 2}, {1, "a", 3}};
  assert_int_equal(merge(path, src2, 3, &o, NULL, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, "merge: source rows 1 and 3 have the same key (k=a, id=1)");
  /* nothing was committed */
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_dataset_version(ds), 1);
  qv_dataset_close(ds);
  rm_rf(dir);
  free(dir);
  free(path);
}

static void test_two_keys_and_columns(void **state) {
  (void)state;
  char *dir, *path = make_target(&dir, 30);
  /* (id, k): (3, k0) matches, (4, k0) does not (4 is k1), (4, NULL) never matches */
  static const char *const on2[] = {"id", "k"};
  static const char *const only_v[] = {"v"};
  row src[] = {{3, "k0", 333}, {4, "k0", 444}, {4, NULL, 445}};
  qv_merge_options o = QV_MERGE_OPTIONS_INIT;
  o.on = on2;
  o.n_on = 2;
  o.update_columns = only_v;
  o.n_update_columns = 1;
  qv_merge_result res;
  qv_error err;
  if (merge(path, src, 3, &o, &res, &err) != QV_OK) fail_msg("%s", err.message);
  assert_int_equal(res.updated, 1);
  assert_int_equal(res.inserted, 2);
  row want[40];
  static const char *const ks[] = {"k0", "k1", "k2"};
  int n = 0;
  for (int i = 0; i < 30; i++) want[n++] = (row){i, ks[i % 3], i == 3 ? 333 : i};
  want[n++] = src[1];
  want[n++] = src[2];
  expect_rows(path, want, n);
  rm_rf(dir);
  free(dir);
  free(path);
}

static void test_when_matched_variants(void **state) {
  (void)state;
  char *dir, *path = make_target(&dir, 50);
  static const char *const ks[] = {"k0", "k1", "k2"};
  row src[] = {{10, "x", 1}, {45, "x", 2}, {77, "x", 3}};
  qv_merge_options o = QV_MERGE_OPTIONS_INIT;
  o.on = on_id;
  o.n_on = 1;
  qv_merge_result res;
  qv_error err;
  /* do nothing on a match, no insert: nothing changes, no version */
  o.when_matched = QV_MERGE_DO_NOTHING;
  o.insert_not_matched = false;
  assert_int_equal(merge(path, src, 3, &o, &res, &err), QV_OK);
  assert_int_equal(res.version, 1);
  assert_int_equal(res.inserted + res.updated + res.deleted, 0);
  /* insert only (do nothing on a match) */
  o.insert_not_matched = true;
  assert_int_equal(merge(path, src, 3, &o, &res, &err), QV_OK);
  assert_int_equal(res.version, 2);
  assert_int_equal(res.inserted, 1);
  /* delete matched */
  o.when_matched = QV_MERGE_DELETE;
  o.insert_not_matched = false;
  row del[] = {{10, "x", 1}, {45, "x", 2}};
  assert_int_equal(merge(path, del, 2, &o, &res, &err), QV_OK);
  assert_int_equal(res.deleted, 2);
  row want[60];
  int n = 0;
  for (int i = 0; i < 50; i++)
    if (i != 10 && i != 45) want[n++] = (row){i, ks[i % 3], i};
  want[n++] = src[2];
  expect_rows(path, want, n);
  /* update matched, delete every target row the source lacks */
  o.when_matched = QV_MERGE_UPDATE;
  o.insert_not_matched = true;
  o.delete_not_matched_by_source = true;
  row keep[] = {{1, "one", 1}, {2, "two", 2}, {500, "new", 5}};
  assert_int_equal(merge(path, keep, 3, &o, &res, &err), QV_OK);
  assert_int_equal(res.updated, 2);
  assert_int_equal(res.inserted, 1);
  assert_int_equal(res.deleted, 49 - 2);
  expect_rows(path, keep, 3);
  rm_rf(dir);
  free(dir);
  free(path);
}

static void test_refusals(void **state) {
  (void)state;
  char *dir, *path = make_target(&dir, 5);
  row src[] = {{1, "a", 1}};
  qv_merge_options o = QV_MERGE_OPTIONS_INIT;
  qv_error err;
  assert_int_equal(merge(path, src, 1, &o, NULL, &err), QV_ERR_INVALID); /* no key */
  static const char *const bad[] = {"nope"};
  o.on = bad;
  o.n_on = 1;
  assert_int_equal(merge(path, src, 1, &o, NULL, &err), QV_ERR_NOT_FOUND);
  assert_string_equal(err.message, "merge: no key column `nope`");
  char *nowhere = join2(dir, "nothing");
  o.on = on_id;
  assert_int_equal(merge(nowhere, src, 1, &o, NULL, &err), QV_ERR_NOT_FOUND);
  free(nowhere);
  rm_rf(dir);
  free(dir);
  free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_upsert),
      cmocka_unit_test(test_duplicate_keys),
      cmocka_unit_test(test_two_keys_and_columns),
      cmocka_unit_test(test_when_matched_variants),
      cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
