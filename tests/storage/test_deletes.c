/* Deletes: deletion files per fragment and version, merged with earlier
 * ones, reported by qv_fragment_deleted, excluded from counts; fragments
 * with nothing left are dropped; older versions keep their view. */
#include "storage/storage_test_util.h"

static char *g_dir, *g_path;

static void write_ids(int64_t n) {
  qv_schema s = QV_SCHEMA_INIT;
  qv_error err;
  add_column(&s, "id", qv_datatype_simple(QV_TYPE_INT64));
  qv_builder b;
  assert_int_equal(qv_builder_init(&b, &s.fields[0].type, &err), QV_OK);
  for (int64_t i = 0; i < n; i++) assert_int_equal(qv_builder_append_int(&b, i), QV_OK);
  qv_array *a;
  assert_int_equal(qv_builder_finish(&b, &a, &err), QV_OK);
  qv_batch **batches;
  int nb = split_batches(&s, &a, n, 128, &batches);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.max_rows_per_file = 400;
  o.page_rows = 100;
  assert_int_equal(write_batches(g_path, &s, batches, nb, &o, NULL, &err), QV_OK);
  free_batches(batches, nb);
  qv_array_release(a);
  qv_schema_reset(&s);
}

static int setup(void **state) {
  (void)state;
  g_dir = make_tmpdir();
  g_path = join2(g_dir, "ds");
  write_ids(1000); /* fragments of 400, 400, 200 */
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rm_rf(g_dir);
  free(g_dir);
  free(g_path);
  return 0;
}

static int64_t delete_in(int64_t *version, const int64_t *rows0, int n0, const int64_t *rows1, int n1,
                         const int64_t *rows2, int n2) {
  qv_dataset *ds;
  qv_error err;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, &err), QV_OK);
  uint8_t *bits[3] = {NULL, NULL, NULL};
  const int64_t *rows[3] = {rows0, rows1, rows2};
  int ns[3] = {n0, n1, n2};
  for (int f = 0; f < 3 && f < qv_dataset_num_fragments(ds); f++) {
    if (!rows[f]) continue;
    bits[f] = calloc(1, 64);
    for (int k = 0; k < ns[f]; k++) qv_bit_set(bits[f], rows[f][k]);
  }
  qv_status st = qv_dataset_delete_rows(ds, (const uint8_t *const *)bits, version, &err);
  if (st != QV_OK) fail_msg("delete: %s", err.message);
  for (int f = 0; f < 3; f++) free(bits[f]);
  qv_dataset_close(ds);
  return 0;
}

/* Deleted rows of fragment f in version v as a count, checking the bitmap
 * against the ids that read back. */
static int64_t deleted_in(int64_t version, int32_t f, const int64_t *expect, int n) {
  qv_dataset *ds;
  qv_error err;
  assert_int_equal(qv_dataset_open(g_path, version, &ds, &err), QV_OK);
  qv_fragment_reader *r;
  if (qv_fragment_open(ds, f, &r, &err) != QV_OK) fail_msg("%s", err.message);
  const uint8_t *del = qv_fragment_deleted(r);
  qv_fragment_info fi;
  qv_dataset_fragment(ds, f, &fi);
  int64_t count = 0;
  if (!del) {
    assert_int_equal(n, 0);
    assert_int_equal(fi.num_deleted, 0);
  } else {
    count = qv_bitmap_count(del, 0, qv_fragment_num_rows(r));
    assert_int_equal(count, n);
    assert_int_equal(fi.num_deleted, n);
    for (int k = 0; k < n; k++) assert_true(qv_bit_get(del, expect[k]));
  }
  /* a shared reader (another thread's) sees the same deletions and rows,
   * and outlives the reader it came from */
  qv_array *mine, *theirs;
  int64_t rows = qv_fragment_num_rows(r);
  assert_int_equal(qv_fragment_read(r, 0, 0, rows, &mine, &err), QV_OK);
  qv_fragment_reader *shared;
  assert_int_equal(qv_fragment_open_shared(r, &shared, &err), QV_OK);
  qv_fragment_close(r);
  assert_int_equal(qv_fragment_num_rows(shared), rows);
  const uint8_t *sdel = qv_fragment_deleted(shared);
  assert_int_equal(sdel == NULL, del == NULL);
  if (sdel) assert_int_equal(qv_bitmap_count(sdel, 0, rows), count);
  for (int k = 0; k < n; k++) assert_true(qv_bit_get(sdel, expect[k]));
  assert_int_equal(qv_fragment_read(shared, 0, 0, rows, &theirs, &err), QV_OK);
  assert_memory_equal(qv_array_values(mine), qv_array_values(theirs), (size_t)rows * 8);
  qv_array_release(mine);
  qv_array_release(theirs);
  qv_fragment_close(shared);
  qv_dataset_close(ds);
  return count;
}

static void test_delete_and_merge(void **state) {
  (void)state;
  int64_t v;
  const int64_t r0[] = {0, 5, 399};
  int64_t r2[10];
  for (int i = 0; i < 10; i++) r2[i] = 10 + i;
  delete_in(&v, r0, 3, NULL, 0, r2, 10);
  assert_int_equal(v, 2);
  qv_dataset *ds;
  qv_error err;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_dataset_count_rows(ds), 1000 - 13);
  qv_dataset_close(ds);
  deleted_in(2, 0, r0, 3);
  deleted_in(2, 1, NULL, 0);
  deleted_in(2, 2, r2, 10);

  /* merge: 5 again, 6 new */
  const int64_t more[] = {5, 6};
  delete_in(&v, more, 2, NULL, 0, NULL, 0);
  assert_int_equal(v, 3);
  const int64_t merged[] = {0, 5, 6, 399};
  deleted_in(3, 0, merged, 4);
  deleted_in(3, 2, r2, 10); /* untouched fragments keep their file */
  deleted_in(2, 0, r0, 3);  /* version 2 still sees its own deletion file */
  deleted_in(1, 0, NULL, 0);

  /* many rows: stored as a bitmap rather than a list (both decode) */
  int64_t many[300];
  for (int i = 0; i < 300; i++) many[i] = i;
  delete_in(&v, NULL, 0, many, 300, NULL, 0);
  deleted_in(4, 1, many, 300);

  /* every row of fragment 2: it leaves the new version */
  int64_t all[200];
  for (int i = 0; i < 200; i++) all[i] = i;
  delete_in(&v, NULL, 0, NULL, 0, all, 200);
  assert_int_equal(v, 5);
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_dataset_num_fragments(ds), 2);
  assert_int_equal(qv_dataset_count_rows(ds), 1000 - 4 - 300 - 200);
  qv_dataset_close(ds);

  qv_version_info *vi;
  int64_t nv;
  assert_int_equal(qv_dataset_versions(g_path, &vi, &nv, &err), QV_OK);
  assert_int_equal(nv, 5);
  assert_string_equal(vi[1].operation, "delete");
  assert_int_equal(vi[1].num_rows, 987);
  assert_int_equal(vi[0].num_rows, 1000);
  assert_int_equal(vi[4].num_fragments, 2);
  qv_free(vi);

  /* data stays readable in full (deletes are applied by the scanner) */
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, &err), QV_OK);
  qv_fragment_reader *r;
  assert_int_equal(qv_fragment_open(ds, 0, &r, &err), QV_OK);
  qv_array *a;
  assert_int_equal(qv_fragment_read(r, 0, 0, 400, &a, &err), QV_OK);
  assert_int_equal(((const int64_t *)qv_array_values(a))[5], 5);
  qv_array_release(a);
  qv_fragment_close(r);
  qv_dataset_close(ds);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_delete_and_merge, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
