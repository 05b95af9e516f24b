/* Index entries in manifests: they round-trip; manifests without indices
 * stay format version 1 (older builds read them) and with indices are 2;
 * every hostile variant (names outside _indices/, unknown fragments,
 * unknown columns, duplicate names, bad versions, a v1 manifest listing
 * indices) is QV_ERR_CORRUPT naming the offset; commits check entries
 * before publishing anything. */
#include <string.h>

#include "storage/manifest.h"
#include "storage/storage_test_util.h"

static void base_manifest(qvs_manifest *m) {
  qvs_manifest_init(m);
  m->version = 3;
  m->timestamp_ms = 1700000000000;
  snprintf(m->operation, sizeof m->operation, "index-add");
  qv_field f = make_field("id", qv_datatype_simple(QV_TYPE_INT64));
  assert_int_equal(qv_schema_add(&m->schema, &f, NULL), QV_OK);
  qv_field_reset(&f);
  m->next_fragment_id = 5;
  qvs_fragment_meta a = {1, (char *)"data/0a.qvf", 100, NULL, 0}, b = {4, (char *)"data/0b.qvf", 50, NULL, 0};
  assert_int_equal(qvs_manifest_add_fragment(m, &a, NULL), QV_OK);
  assert_int_equal(qvs_manifest_add_fragment(m, &b, NULL), QV_OK);
}

static qv_index_file g_files[2] = {{1, "_indices/00ff.qvi", 4096, 0xdeadbeef}, {4, "_indices/abcd.qvi", 77, 1}};

static qv_status roundtrip(const qvs_manifest *m, qvs_manifest *out, qv_error *err) {
  qv_buffer b = QV_BUFFER_INIT;
  assert_int_equal(qvs_manifest_encode(m, &b, err), QV_OK);
  qv_status st = qvs_manifest_decode(b.data, b.size, "_versions/3.manifest", out, err);
  qv_buffer_reset(&b);
  return st;
}

static void test_roundtrip_and_versions(void **state) {
  (void)state;
  qvs_manifest m, back;
  qv_error err;
  base_manifest(&m);
  qv_buffer b = QV_BUFFER_INIT;
  assert_int_equal(qvs_manifest_encode(&m, &b, &err), QV_OK);
  assert_int_equal(qv_load_u32le(b.data + 4), 1); /* no indices: still version 1 */
  qv_buffer_reset(&b);
  qv_index_entry e = {"id_idx", "id", 1, 2, 3, 2, g_files};
  assert_int_equal(qvs_manifest_add_index(&m, &e, &err), QV_OK);
  assert_int_equal(qvs_manifest_encode(&m, &b, &err), QV_OK);
  assert_int_equal(qv_load_u32le(b.data + 4), 2);
  qv_buffer_reset(&b);
  assert_int_equal(roundtrip(&m, &back, &err), QV_OK);
  assert_int_equal(back.n_indices, 1);
  assert_string_equal(back.indices[0].name, "id_idx");
  assert_string_equal(back.indices[0].column, "id");
  assert_int_equal(back.indices[0].type, 1);
  assert_int_equal(back.indices[0].built_version, 2);
  assert_int_equal(back.indices[0].updated_version, 3);
  assert_int_equal(back.indices[0].n_files, 2);
  assert_string_equal(back.indices[0].files[1].path, "_indices/abcd.qvi");
  assert_int_equal(back.indices[0].files[0].footer_crc, 0xdeadbeef);
  assert_int_equal(back.indices[0].files[1].size, 77);
  qvs_manifest_reset(&back);
  /* a file of a fragment that is not in the manifest is not carried */
  qv_index_file extra[3] = {g_files[0], {2, "_indices/01.qvi", 100, 0}, g_files[1]};
  qv_index_entry e2 = {"two", "id", 2, 1, 1, 3, extra};
  assert_int_equal(qvs_manifest_add_index(&m, &e2, &err), QV_OK);
  assert_int_equal(m.indices[1].n_files, 2);
  qvs_manifest_reset(&m);
}

/* Encodes m after `mutate` changed its index entry, expects CORRUPT with `what`. */
static void expect_corrupt(void (*mutate)(qvs_manifest *), const char *what) {
  qvs_manifest m, back;
  qv_error err;
  base_manifest(&m);
  qv_index_entry e = {"id_idx", "id", 1, 2, 3, 2, g_files};
  assert_int_equal(qvs_manifest_add_index(&m, &e, &err), QV_OK);
  mutate(&m);
  qv_status st = roundtrip(&m, &back, &err);
  if (st != QV_ERR_CORRUPT) fail_msg("%s: status %d", what, st);
  if (!strstr(err.message, what)) fail_msg("expected \"%s\" in: %s", what, err.message);
  assert_non_null(strstr(err.message, "_versions/3.manifest: offset "));
  qvs_manifest_reset(&m);
}

static void bad_path(qvs_manifest *m) {
  qv_free((char *)m->indices[0].files[0].path);
  m->indices[0].files[0].path = qv_strdup("_indices/../../etc.qvi");
}
static void bad_fragment(qvs_manifest *m) { m->indices[0].files[1].fragment_id = 3; }
static void unordered(qvs_manifest *m) { m->indices[0].files[1].fragment_id = 1; }
static void bad_column(qvs_manifest *m) {
  qv_free(m->indices[0].column);
  m->indices[0].column = qv_strdup("nope");
}
static void bad_name(qvs_manifest *m) {
  qv_free(m->indices[0].name);
  m->indices[0].name = qv_strdup("a/b");
}
static void bad_type(qvs_manifest *m) { m->indices[0].type = 9; }
static void bad_version(qvs_manifest *m) { m->indices[0].built_version = 4; }
static void bad_updated(qvs_manifest *m) { m->indices[0].updated_version = 1; }
static void tiny_file(qvs_manifest *m) { m->indices[0].files[0].size = 3; }
static void duplicate(qvs_manifest *m) {
  qv_index_entry e = {"id_idx", "id", 2, 2, 2, 0, NULL};
  assert_int_equal(qvs_manifest_add_index(m, &e, NULL), QV_OK);
}

static void test_hostile_entries(void **state) {
  (void)state;
  expect_corrupt(bad_path, "is not _indices/<hex>.qvi");
  expect_corrupt(bad_fragment, "fragment id 3 is not a fragment of this version");
  expect_corrupt(unordered, "fragment id 1 is not a fragment of this version above 1");
  expect_corrupt(bad_column, "no column `nope` in the schema");
  expect_corrupt(bad_name, "index name \"a/b\" is not 1..64 of [A-Za-z0-9_.-]");
  expect_corrupt(bad_type, "unknown index type 9");
  expect_corrupt(bad_version, "index built version 4 is outside 1..3");
  expect_corrupt(bad_updated, "index updated version 1 is outside 2..3");
  expect_corrupt(tiny_file, "index file size 3 is outside 36..");
  expect_corrupt(duplicate, "is listed twice");
}

/* A version 1 manifest that lists an index is not one we wrote. */
static void test_v1_with_indices(void **state) {
  (void)state;
  qvs_manifest m, back;
  qv_error err;
  base_manifest(&m);
  qv_index_entry e = {"id_idx", "id", 1, 2, 3, 0, NULL};
  assert_int_equal(qvs_manifest_add_index(&m, &e, &err), QV_OK);
  qv_buffer b = QV_BUFFER_INIT;
  assert_int_equal(qvs_manifest_encode(&m, &b, &err), QV_OK);
  qv_store_u32le(b.data + 4, 1);
  qv_store_u32le(b.data + b.size - 4, qv_crc32c(0, b.data, (size_t)b.size - 4));
  assert_int_equal(qvs_manifest_decode(b.data, b.size, "m", &back, &err), QV_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "1 indices listed; format version 1 has none"));
  qv_store_u32le(b.data + 4, 3);
  assert_int_equal(qvs_manifest_decode(b.data, b.size, "m", &back, &err), QV_ERR_UNSUPPORTED);
  assert_string_equal(err.message, "m: offset 4: format version 3 (this build reads 1..2)");
  qv_buffer_reset(&b);
  qvs_manifest_reset(&m);
}

/* qv_dataset_commit_indices refuses bad entries before publishing. */
static void test_commit_checks(void **state) {
  (void)state;
  char *dir = make_tmpdir(), *path = join2(dir, "ds");
  qv_schema s = QV_SCHEMA_INIT;
  add_column(&s, "id", qv_datatype_simple(QV_TYPE_INT64));
  qv_builder bi;
  assert_int_equal(qv_builder_init(&bi, &s.fields[0].type, NULL), QV_OK);
  for (int i = 0; i < 10; i++) qv_builder_append_int(&bi, i);
  qv_array *col;
  assert_int_equal(qv_builder_finish(&bi, &col, NULL), QV_OK);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&s, &col, 10, &batch, NULL), QV_OK);
  qv_error err;
  assert_int_equal(write_batches(path, &s, &batch, 1, NULL, NULL, &err), QV_OK);
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  qv_index_file file = {0, "_indices/../x.qvi", 100, 0};
  qv_index_entry e = {"i", "id", 1, 0, 0, 1, &file};
  assert_int_equal(qv_dataset_commit_indices(ds, &e, 1, "index-add", NULL, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, "index `i`: file 0 is not a valid entry");
  e.column = "x";
  assert_int_equal(qv_dataset_commit_indices(ds, &e, 1, "index-add", NULL, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, "index `i`: no column `x`");
  int64_t latest;
  assert_int_equal(qvs_latest_version(path, &latest, &err), QV_OK);
  assert_int_equal(latest, 1);
  e.column = "id";
  e.n_files = 0;
  int64_t v;
  assert_int_equal(qv_dataset_commit_indices(ds, &e, 1, "index-add", &v, &err), QV_OK);
  assert_int_equal(v, 2);
  /* ds is now stale: a second commit from it conflicts */
  assert_int_equal(qv_dataset_commit_indices(ds, NULL, 0, "index-del", &v, &err), QV_ERR_CONFLICT);
  qv_dataset_close(ds);
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  qv_index_entry got;
  qv_dataset_index(ds, 0, &got);
  assert_string_equal(got.name, "i");
  assert_int_equal(got.built_version, 2);
  qv_dataset_close(ds);
  qv_batch_release(batch);
  qv_schema_reset(&s);
  rm_rf(dir);
  free(dir);
  free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrip_and_versions),
      cmocka_unit_test(test_hostile_entries),
      cmocka_unit_test(test_v1_with_indices),
      cmocka_unit_test(test_commit_checks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
