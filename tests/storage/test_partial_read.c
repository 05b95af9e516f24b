/* Partial reads: a take of a few rows of a big raw page reads only the
 * checksum blocks holding them (1 KiB; counted by qv_io_counters), or a
 * little more where nearby blocks are read together, verifies them, and
 * returns the right values; a full read reads the whole page.
 * The same data written with zstd: a take reads and decompresses only the
 * 16 KiB frames holding its rows. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/storage_test_util.h"

enum { ROWS = 8192 };

static char *g_dir, *g_path, *g_zpath;
static qv_array *g_cols[4];

static int setup(void **state) {
  (void)state;
  g_dir = make_tmpdir();
  g_path = join2(g_dir, "ds");
  g_zpath = join2(g_dir, "zds");
  qv_error err;
  qv_schema s = QV_SCHEMA_INIT;
  const char *names[] = {"payload", "big", "small", "cat"};
  qv_type_id types[] = {QV_TYPE_STRING, QV_TYPE_INT64, QV_TYPE_INT32, QV_TYPE_STRING};
  qv_builder b[4];
  for (int c = 0; c < 4; c++) {
    add_column(&s, names[c], qv_datatype_simple(types[c]));
    assert_int_equal(qv_builder_init(&b[c], &s.fields[c].type, &err), QV_OK);
  }
  uint64_t rng = 11;
  for (int i = 0; i < ROWS; i++) {
    char pay[257];
    for (int k = 0; k < 256; k++) pay[k] = (char)('!' + rng_next(&rng) % 90);
    assert_int_equal(qv_builder_append_bytes(&b[0], pay, 256), QV_OK);
    assert_int_equal(qv_builder_append_int(&b[1], (int64_t)rng_next(&rng)), QV_OK);
    if (i % 100 == 7) assert_int_equal(qv_builder_append_null(&b[2]), QV_OK);
    else assert_int_equal(qv_builder_append_int(&b[2], (int64_t)(rng_next(&rng) % 5000)), QV_OK);
    char cat[40];
    snprintf(cat, sizeof cat, "category number %d", (int)(rng_next(&rng) % 300));
    assert_int_equal(qv_builder_append_cstr(&b[3], cat), QV_OK);
  }
  for (int c = 0; c < 4; c++) assert_int_equal(qv_builder_finish(&b[c], &g_cols[c], &err), QV_OK);
  qv_batch **batches;
  int nb = split_batches(&s, g_cols, ROWS, 1000, &batches);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.page_rows = ROWS;
  o.compression = QV_COMPRESSION_NONE;
  assert_int_equal(write_batches(g_path, &s, batches, nb, &o, NULL, &err), QV_OK);
  o.compression = QV_COMPRESSION_ZSTD;
  assert_int_equal(write_batches(g_zpath, &s, batches, nb, &o, NULL, &err), QV_OK);
  free_batches(batches, nb);
  qv_schema_reset(&s);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  for (int c = 0; c < 4; c++) qv_array_release(g_cols[c]);
  rm_rf(g_dir);
  free(g_dir);
  free(g_path);
  free(g_zpath);
  return 0;
}

static const int64_t take_rows[8] = {3, 1000, 1001, 2500, 4096, 6000, 8000, 8191};

/* Takes 8 rows of column col's page in the dataset at path: right values,
 * at most max_bytes read and max_decoded decoded; then a full read. */
static void check_take_in(const char *path, int32_t col, int expect_encoding, int expect_compression, int64_t max_bytes,
                          int64_t max_decoded) {
  qv_dataset *ds;
  qv_fragment_reader *r;
  qv_error err;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_fragment_open(ds, 0, &r, &err), QV_OK);
  qv_page_info info;
  qv_fragment_page(r, col, 0, &info);
  assert_int_equal(info.encoding, expect_encoding);
  assert_int_equal(info.compression, expect_compression);
  assert_int_equal(info.row_count, ROWS);
  qv_array *a;
  assert_int_equal(qv_fragment_take(r, col, take_rows, 8, &a, &err), QV_OK);
  for (int k = 0; k < 8; k++) assert_arrays_equal(a, k, g_cols[col], take_rows[k], 1);
  qv_array_release(a);
  qv_io_counters io;
  qv_fragment_counters(r, col, &io);
  print_message("column %d (%s%s): page %lld bytes, take of 8 rows read %lld bytes, decoded %lld\n", col,
                qv_encoding_name(info.encoding), expect_compression == QV_COMPRESSION_NONE ? "" : ", zstd",
                (long long)info.byte_size, (long long)io.bytes_read, (long long)io.bytes_decoded);
  assert_int_equal(io.pages_read, 1);
  assert_true(io.bytes_read > 0);
  assert_true(io.bytes_read <= max_bytes);
  assert_true(io.bytes_decoded <= max_decoded);
  /* a full read of the page reads it all, once */
  assert_int_equal(qv_fragment_read(r, col, 0, ROWS, &a, &err), QV_OK);
  assert_arrays_equal(a, 0, g_cols[col], 0, ROWS);
  qv_array_release(a);
  qv_io_counters io2;
  qv_fragment_counters(r, col, &io2);
  assert_int_equal(io2.bytes_read - io.bytes_read, info.byte_size);
  assert_int_equal(io2.pages_read, 2);
  /* and a take after it is served from the decoded page: no more I/O */
  assert_int_equal(qv_fragment_take(r, col, take_rows, 8, &a, &err), QV_OK);
  for (int k = 0; k < 8; k++) assert_arrays_equal(a, k, g_cols[col], take_rows[k], 1);
  qv_array_release(a);
  qv_fragment_counters(r, col, &io);
  assert_int_equal(io.bytes_read, io2.bytes_read);
  qv_fragment_close(r);
  qv_dataset_close(ds);
}

static void check_take(int32_t col, int expect_encoding, int64_t max_bytes) {
  check_take_in(g_path, col, expect_encoding, QV_COMPRESSION_NONE, max_bytes, max_bytes);
}

static void test_plain_strings(void **state) {
  (void)state;
  /* 8 rows: <= 2 offset blocks + 2 data blocks each; the page is 2 MiB */
  check_take(0, QV_ENCODING_PLAIN, 8 * 4 * 4096);
}

static void test_plain_fixed(void **state) {
  (void)state;
  check_take(1, QV_ENCODING_PLAIN, 8 * 4096);
}

static void test_bitpacked(void **state) {
  (void)state;
  check_take(2, QV_ENCODING_BITPACK_FOR, 8 * 2 * 4096);
}

static void test_dictionary(void **state) {
  (void)state;
  check_take(3, QV_ENCODING_DICTIONARY, 8 * 4 * 4096);
}

/* A zstd page: 8 rows touch at most two 16 KiB frames per buffer they read
 * (validity, offsets, bytes), whatever the 2 MiB page (1.7 MB stored). */
static void test_framed_strings(void **state) {
  (void)state;
  check_take_in(g_zpath, 0, QV_ENCODING_PLAIN, QV_COMPRESSION_ZSTD, 8 * 3 * 2 * 16384, 8 * 3 * 2 * 16384);
}

/* Far below the page: assert the headline ratio for the 256-byte strings. */
static void test_ratio(void **state) {
  (void)state;
  qv_dataset *ds;
  qv_fragment_reader *r;
  qv_error err;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_fragment_open(ds, 0, &r, &err), QV_OK);
  qv_page_info info;
  qv_fragment_page(r, 0, 0, &info);
  qv_array *a;
  assert_int_equal(qv_fragment_take(r, 0, take_rows, 8, &a, &err), QV_OK);
  qv_array_release(a);
  qv_io_counters io;
  qv_fragment_counters(r, 0, &io);
  assert_true(info.byte_size > ROWS * 256);
  assert_true(io.bytes_read * 20 < info.byte_size);
  qv_fragment_close(r);
  qv_dataset_close(ds);
}

/* The data file of the one-fragment dataset at ds. */
static char *data_file(const char *ds) {
  char *dir = join2(ds, "data");
  DIR *d = opendir(dir);
  assert_non_null(d);
  char *path = NULL;
  for (struct dirent *e; (e = readdir(d));)
    if (strstr(e->d_name, ".qvf")) path = join2(dir, e->d_name);
  closedir(d);
  free(dir);
  assert_non_null(path);
  return path;
}

/* Two wanted blocks a block apart are read in one read, and the block
 * between them is neither verified nor used: damaged, it does not fail
 * the take around it, and a take of a row inside it still finds the
 * damage. */
static void test_read_together(void **state) {
  (void)state;
  char *path = join2(g_dir, "gap");
  qv_error err;
  qv_schema s = QV_SCHEMA_INIT;
  add_column(&s, "big", qv_datatype_simple(QV_TYPE_INT64));
  qv_batch *b = batch_slice_of(&s, &g_cols[1], 0, ROWS);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.page_rows = ROWS;
  o.compression = QV_COMPRESSION_NONE;
  assert_int_equal(write_batches(path, &s, &b, 1, &o, NULL, &err), QV_OK);
  qv_batch_release(b);
  qv_schema_reset(&s);
  /* damage row 130, in the second 1 KiB block (rows 128..255), found by
   * its random value */
  char *file = data_file(path);
  int fd = open(file, O_RDWR);
  assert_true(fd >= 0);
  struct stat sb;
  assert_int_equal(fstat(fd, &sb), 0);
  uint8_t *bytes = malloc((size_t)sb.st_size);
  assert_int_equal(pread(fd, bytes, (size_t)sb.st_size, 0), sb.st_size);
  const int64_t *vals = qv_array_values(g_cols[1]);
  uint8_t *at = memmem(bytes, (size_t)sb.st_size, &vals[130], 8);
  assert_non_null(at);
  uint8_t flipped = at[0] ^ 0x40;
  assert_int_equal(pwrite(fd, &flipped, 1, at - bytes), 1);
  close(fd);
  free(bytes);

  qv_dataset *ds;
  qv_fragment_reader *r;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_fragment_open(ds, 0, &r, &err), QV_OK);
  const int64_t around[2] = {5, 300}; /* blocks 0 and 2 */
  qv_array *a;
  assert_int_equal(qv_fragment_take(r, 0, around, 2, &a, &err), QV_OK);
  for (int k = 0; k < 2; k++) assert_arrays_equal(a, k, g_cols[1], around[k], 1);
  qv_array_release(a);
  qv_io_counters io;
  qv_fragment_counters(r, 0, &io);
  assert_int_equal(io.bytes_read, 3 * 1024); /* blocks 0..2, in one read */
  assert_int_equal(io.bytes_decoded, 2 * 1024);
  const int64_t inside = 130;
  assert_int_equal(qv_fragment_take(r, 0, &inside, 1, &a, &err), QV_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "checksum mismatch"));
  qv_fragment_close(r);
  qv_dataset_close(ds);
  free(file);
  free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plain_strings), cmocka_unit_test(test_plain_fixed), cmocka_unit_test(test_bitpacked),
      cmocka_unit_test(test_dictionary),    cmocka_unit_test(test_ratio),       cmocka_unit_test(test_framed_strings),
      cmocka_unit_test(test_read_together),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
