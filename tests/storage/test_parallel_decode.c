/* Large reads verify checksum blocks and decompress frames on the worker
 * pool (page_view.c).  The values, the counters and, on damaged files, the
 * error must be exactly what one thread produces: the first damaged block
 * or frame in page order, whichever thread found it. */
#include <fcntl.h>
#include <string.h>

#include "base/wire.h"
#include "storage/datafile.h"
#include "storage/format.h"
#include "storage/storage_test_util.h"

enum { ROWS = 8192 }; /* one page of 8192 x 256 bytes: 128 frames of 16 KiB */

static char *g_dir;
static qv_array *g_col;

static void write_ds(const char *path, qv_compression c) {
  qv_error err;
  qv_schema s = QV_SCHEMA_INIT;
  add_column(&s, "payload", qv_datatype_simple(QV_TYPE_STRING));
  qv_batch **batches;
  int nb = split_batches(&s, &g_col, ROWS, 1000, &batches);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.page_rows = ROWS;
  o.compression = c;
  assert_int_equal(write_batches(path, &s, batches, nb, &o, NULL, &err), QV_OK);
  free_batches(batches, nb);
  qv_schema_reset(&s);
}

static int setup(void **state) {
  (void)state;
  g_dir = make_tmpdir();
  qv_error err;
  qv_datatype t = qv_datatype_simple(QV_TYPE_STRING);
  qv_builder b;
  assert_int_equal(qv_builder_init(&b, &t, &err), QV_OK);
  uint64_t rng = 3;
  for (int i = 0; i < ROWS; i++) {
    char pay[257];
    snprintf(pay, sizeof pay, "%0200d", i);
    for (int k = 200; k < 256; k++) pay[k] = (char)('a' + rng_next(&rng) % 4);
    assert_int_equal(qv_builder_append_bytes(&b, pay, 256), QV_OK);
  }
  assert_int_equal(qv_builder_finish(&b, &g_col, &err), QV_OK);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  qv_array_release(g_col);
  rm_rf(g_dir);
  free(g_dir);
  return 0;
}

/* Reads the whole page (full) or every third row (take: every frame is
 * wanted) with n threads; returns the status, the array in *out. */
static qv_status read_with(const char *path, int threads, bool take, qv_array **out, qv_io_counters *ctr,
                           qv_error *err) {
  int before = qv_set_threads(threads);
  qv_dataset *ds;
  qv_fragment_reader *r;
  assert_int_equal(qv_dataset_open(path, 0, &ds, err), QV_OK);
  assert_int_equal(qv_fragment_open(ds, 0, &r, err), QV_OK);
  qv_status st;
  if (take) {
    int64_t rows[ROWS / 3 + 1], n = 0;
    for (int64_t i = 0; i < ROWS; i += 3) rows[n++] = i;
    st = qv_fragment_take(r, 0, rows, n, out, err);
  } else {
    st = qv_fragment_read(r, 0, 0, ROWS, out, err);
  }
  if (ctr) qv_fragment_counters(r, 0, ctr);
  qv_fragment_close(r);
  qv_dataset_close(ds);
  qv_set_threads(before);
  return st;
}

static void expect_same_values(const char *path) {
  for (int take = 0; take <= 1; take++) {
    qv_error err;
    qv_array *one, *many;
    qv_io_counters c1, c4;
    assert_int_equal(read_with(path, 1, take, &one, &c1, &err), QV_OK);
    assert_int_equal(read_with(path, 4, take, &many, &c4, &err), QV_OK);
    assert_int_equal(one->length, take ? ROWS / 3 + 1 : ROWS);
    assert_arrays_equal(one, 0, many, 0, one->length);
    for (int64_t i = 0; i < one->length; i++) {
      qv_array *want;
      int64_t row = take ? 3 * i : i;
      assert_int_equal(qv_array_slice(g_col, row, 1, &want, &err), QV_OK);
      assert_arrays_equal(many, i, want, 0, 1);
      qv_array_release(want);
    }
    assert_int_equal(c1.bytes_read, c4.bytes_read);
    assert_int_equal(c1.bytes_decoded, c4.bytes_decoded);
    assert_true(c4.bytes_decoded >= (int64_t)ROWS * 256);
    qv_array_release(one);
    qv_array_release(many);
  }
}

static void test_values_lz4_and_zstd(void **state) {
  (void)state;
  const qv_compression codecs[] = {QV_COMPRESSION_LZ4, QV_COMPRESSION_ZSTD};
  for (int c = 0; c < 2; c++) {
    char *path = join2(g_dir, c ? "zstd" : "lz4");
    write_ds(path, codecs[c]);
    qv_dataset *ds;
    qv_fragment_reader *r;
    qv_error err;
    qv_page_info info;
    assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
    assert_int_equal(qv_fragment_open(ds, 0, &r, &err), QV_OK);
    qv_fragment_page(r, 0, 0, &info);
    assert_int_equal(info.compression, codecs[c]); /* framed and large enough for the pool */
    qv_fragment_close(r);
    qv_dataset_close(ds);
    expect_same_values(path);
    free(path);
  }
}

/* The page's stored bytes: where they start in the file, and frame k's
 * offset within them. */
static void page_layout(const char *file, const char *name, int64_t *page_at, int64_t frame_at[3],
                        const int64_t which[3]) {
  qv_error err;
  qvs_datafile *df;
  assert_int_equal(qvs_datafile_open(file, name, &df, &err), QV_OK);
  const qvs_page *pg = &df->columns[0].pages[0];
  assert_true(pg->framed);
  *page_at = pg->offset;
  int64_t so = 0;
  for (int64_t k = 0, w = 0; w < 3; k++) {
    if (k == which[w]) frame_at[w++] = so;
    so += qv_load_u32le(pg->frames + 4 * k);
  }
  qvs_datafile_close(df);
}

static void put_file(const char *file, const uint8_t *b, int64_t n) {
  int fd = open(file, O_WRONLY | O_TRUNC);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, b, (size_t)n), n);
  close(fd);
}

/* Damages frames 40 and 90 (and 100): with checksums the first bad frame
 * is reported (each frame has its own checksum, so at the frame's first
 * byte), without them the first frame that does not decompress --
 * the same message with one thread and with four, by full read and take. */
static void test_damage_reports_the_first(void **state) {
  (void)state;
  char *path = join2(g_dir, "damaged");
  write_ds(path, QV_COMPRESSION_LZ4);
  qv_error err;
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  qv_fragment_info fi;
  qv_dataset_fragment(ds, 0, &fi);
  char name[128];
  snprintf(name, sizeof name, "%s", fi.path);
  qv_dataset_close(ds);
  char *file = join2(path, name);
  uint8_t *orig;
  int64_t size;
  assert_int_equal(qvb_file_read(file, name, 1 << 20, &orig, &size, &err), QV_OK);
  int64_t page_at, frame_at[3];
  const int64_t which[3] = {40, 90, 100};
  page_layout(file, name, &page_at, frame_at, which);
  uint8_t *b = malloc((size_t)size);
  memcpy(b, orig, (size_t)size);
  for (int w = 0; w < 3; w++) memset(b + page_at + frame_at[w], 0xFF, 8); /* literal lengths running off the end */
  put_file(file, b, size);
  for (int checks = 1; checks >= 0; checks--) {
    qvs_verify_checksums = checks;
    for (int take = 0; take <= 1; take++) {
      qv_error e1, e4;
      qv_array *a = NULL;
      assert_int_equal(read_with(path, 1, take, &a, NULL, &e1), QV_ERR_CORRUPT);
      assert_int_equal(read_with(path, 4, take, &a, NULL, &e4), QV_ERR_CORRUPT);
      assert_string_equal(e1.message, e4.message);
      if (checks) {
        char want[64];
        snprintf(want, sizeof want, "checksum mismatch at byte offset %lld", (long long)(page_at + frame_at[0]));
        assert_non_null(strstr(e4.message, "checksum mismatch at byte offset"));
        assert_non_null(strstr(e4.message, want));
      } else {
        assert_non_null(strstr(e4.message, "lz4"));
      }
    }
  }
  qvs_verify_checksums = true;
  put_file(file, orig, size);
  expect_same_values(path);
  qv_free(orig);
  free(b);
  free(file);
  free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values_lz4_and_zstd),
      cmocka_unit_test(test_damage_reports_the_first),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
