/* Damaged files: every single-bit flip and every truncation of a data
 * file, a manifest and a deletion file must give an error that names the
 * file (never a crash, never wrong data). */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "storage/storage_test_util.h"

static char *g_dir, *g_path;
static char g_data_file[256], g_del_file[256];

/* A small dataset with every kind of page: plain, dictionary, bitpack,
 * nested, compressed and raw, plus a deletion file. */
static int setup(void **state) {
  (void)state;
  g_dir = make_tmpdir();
  g_path = join2(g_dir, "ds");
  qv_error err;
  qv_schema s = QV_SCHEMA_INIT;
  const char *names[] = {"id", "cat", "payload", "score", "tags"};
  qv_datatype item = qv_datatype_simple(QV_TYPE_INT16), lt;
  assert_int_equal(qv_datatype_list(&item, &lt, &err), QV_OK);
  qv_datatype types[] = {qv_datatype_simple(QV_TYPE_INT64), qv_datatype_simple(QV_TYPE_STRING),
                         qv_datatype_simple(QV_TYPE_BINARY), qv_datatype_simple(QV_TYPE_FLOAT64), lt};
  qv_array *cols[5];
  for (int c = 0; c < 5; c++) {
    add_column(&s, names[c], types[c]);
  }
  qv_builder b[5];
  for (int c = 0; c < 5; c++) assert_int_equal(qv_builder_init(&b[c], &s.fields[c].type, &err), QV_OK);
  uint64_t rng = 3;
  for (int i = 0; i < 120; i++) {
    assert_int_equal(qv_builder_append_int(&b[0], 1000 + i), QV_OK);
    if (i % 7 == 0) assert_int_equal(qv_builder_append_null(&b[1]), QV_OK);
    else assert_int_equal(qv_builder_append_cstr(&b[1], i % 3 ? "red" : "blue"), QV_OK);
    uint8_t pay[24];
    for (int k = 0; k < 24; k++) pay[k] = (uint8_t)rng_next(&rng);
    assert_int_equal(qv_builder_append_bytes(&b[2], pay, i % 2 ? 24 : 3), QV_OK);
    assert_int_equal(qv_builder_append_double(&b[3], i * 0.5), QV_OK);
    for (int k = 0; k < i % 3; k++) assert_int_equal(qv_builder_append_int(&b[4].children[0], i + k), QV_OK);
    assert_int_equal(qv_builder_append_valid(&b[4]), QV_OK);
  }
  for (int c = 0; c < 5; c++) assert_int_equal(qv_builder_finish(&b[c], &cols[c], &err), QV_OK);
  qv_batch **batches;
  int nb = split_batches(&s, cols, 120, 50, &batches);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.page_rows = 40; /* 3 pages per column, one fragment */
  assert_int_equal(write_batches(g_path, &s, batches, nb, &o, NULL, &err), QV_OK);
  free_batches(batches, nb);
  for (int c = 0; c < 5; c++) qv_array_release(cols[c]);
  qv_schema_reset(&s);

  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, &err), QV_OK);
  qv_fragment_info fi;
  qv_dataset_fragment(ds, 0, &fi);
  snprintf(g_data_file, sizeof g_data_file, "%s", fi.path);
  uint8_t bits[16] = {0};
  qv_bit_set(bits, 3);
  qv_bit_set(bits, 77);
  const uint8_t *del[] = {bits};
  int64_t v;
  assert_int_equal(qv_dataset_delete_rows(ds, del, &v, &err), QV_OK);
  assert_int_equal(v, 2);
  qv_dataset_close(ds);
  snprintf(g_del_file, sizeof g_del_file, "_deletions/%lld-2.del", (long long)fi.id);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rm_rf(g_dir);
  free(g_dir);
  free(g_path);
  return 0;
}

/* Opens and reads everything (every version, fragment, column, by range
 * and by take); returns the first failure. */
static qv_status read_everything(qv_error *err) {
  qv_version_info *vi = NULL;
  int64_t nv = 0;
  qv_status st = qv_dataset_versions(g_path, &vi, &nv, err);
  qv_free(vi);
  if (st != QV_OK) return st;
  qv_dataset *ds = NULL;
  QV_RETURN_NOT_OK(qv_dataset_open(g_path, 0, &ds, err));
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds) && st == QV_OK; f++) {
    qv_fragment_reader *r = NULL;
    if ((st = qv_fragment_open(ds, f, &r, err)) != QV_OK) break;
    int64_t n = qv_fragment_num_rows(r);
    const qv_schema *s = qv_dataset_schema(ds);
    for (int32_t c = 0; c < s->n_fields && st == QV_OK; c++) {
      qv_array *a = NULL;
      /* takes first, on a fresh reader, so they read pages partially */
      int64_t rows[] = {1, 2, 41, 79, n - 1};
      st = qv_fragment_take(r, c, rows, 5, &a, err);
      qv_array_release(a);
      a = NULL;
      if (st == QV_OK) st = qv_fragment_read(r, c, 0, n, &a, err);
      qv_array_release(a);
    }
    qv_fragment_close(r);
  }
  qv_dataset_close(ds);
  return st;
}

/* Every bit-flip position (one bit per byte, rotating) and every
 * truncation of rel must fail with a message naming `name`. */
static void damage_file(const char *rel, const char *name) {
  char *full = join2(g_path, rel);
  int64_t size;
  uint8_t *orig = slurp(full, &size);
  uint8_t *copy = malloc((size_t)size + 1);
  qv_error err;
  assert_int_equal(read_everything(&err), QV_OK);
  int checked = 0;
  for (int64_t i = 0; i < size; i++) {
    memcpy(copy, orig, (size_t)size);
    copy[i] ^= (uint8_t)(1u << (i % 8));
    spit(full, copy, size);
    memset(&err, 0, sizeof err);
    qv_status st = read_everything(&err);
    if (st == QV_OK)
      fail_msg("%s: flipping bit %lld of byte %lld went unnoticed", rel, (long long)(i % 8), (long long)i);
    if (!strstr(err.message, name))
      fail_msg("flip at %lld: message does not name %s: %s", (long long)i, name, err.message);
    checked++;
  }
  for (int64_t len = 0; len < size; len++) {
    spit(full, orig, len);
    memset(&err, 0, sizeof err);
    qv_status st = read_everything(&err);
    if (st == QV_OK) fail_msg("%s: truncation to %lld bytes went unnoticed", rel, (long long)len);
    if (!strstr(err.message, name))
      fail_msg("truncation %lld: message does not name %s: %s", (long long)len, name, err.message);
    checked++;
  }
  /* trailing garbage too */
  memcpy(copy, orig, (size_t)size);
  spit(full, orig, size);
  FILE *f = fopen(full, "ab");
  fputs("garbage", f);
  fclose(f);
  assert_int_not_equal(read_everything(&err), QV_OK);
  assert_non_null(strstr(err.message, name));
  spit(full, orig, size);
  assert_int_equal(read_everything(&err), QV_OK);
  print_message("%s: %lld bytes, %d damaged variants rejected\n", rel, (long long)size, checked);
  free(orig);
  free(copy);
  free(full);
}

static void test_data_file(void **state) {
  (void)state;
  damage_file(g_data_file, g_data_file);
}

static void test_manifest(void **state) {
  (void)state;
  damage_file("_versions/2.manifest", "_versions/2.manifest");
  damage_file("_versions/1.manifest", "_versions/1.manifest"); /* qv_dataset_versions reads it */
}

static void test_deletion_file(void **state) {
  (void)state;
  damage_file(g_del_file, g_del_file);
}

/* A data file of another dataset (different schema) listed in our manifest. */
static void test_wrong_files(void **state) {
  (void)state;
  char *full = join2(g_path, g_data_file);
  int64_t size;
  uint8_t *orig = slurp(full, &size);
  qv_error err;
  remove(full);
  assert_int_equal(read_everything(&err), QV_ERR_CORRUPT);
  assert_non_null(strstr(err.message, g_data_file));
  spit(full, (const uint8_t *)"QVF1", 4);
  assert_int_equal(read_everything(&err), QV_ERR_CORRUPT);
  spit(full, orig, size);
  char *del = join2(g_path, g_del_file);
  int64_t dsize;
  uint8_t *dorig = slurp(del, &dsize);
  remove(del);
  assert_int_equal(read_everything(&err), QV_ERR_CORRUPT);
  assert_non_null(strstr(err.message, g_del_file));
  spit(del, dorig, dsize);
  assert_int_equal(read_everything(&err), QV_OK);
  free(dorig);
  free(del);
  free(orig);
  free(full);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_data_file),
      cmocka_unit_test(test_manifest),
      cmocka_unit_test(test_deletion_file),
      cmocka_unit_test(test_wrong_files),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
