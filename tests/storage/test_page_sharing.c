/* A plain page read whole is read into a buffer its decoded arrays share
 * (qvs_view.shared): a full read allocates the page once, not a scratch
 * copy and then the array's; the array keeps the page's bytes alive after
 * the reader and the dataset are closed; pages of other encodings and
 * small buffers are still copied.  The allocator counts bytes so that the
 * test sees what was allocated. */
#include "storage/storage_test_util.h"

enum { ROWS = 8192 };

static int64_t g_counted; /* bytes allocated while counting */
static bool g_counting;

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  void *p = NULL;
  if (posix_memalign(&p, 64, nsize) != 0) return NULL;
  if (g_counting) __atomic_add_fetch(&g_counted, (int64_t)nsize, __ATOMIC_RELAXED);
  if (ptr) {
    memcpy(p, ptr, osize < nsize ? osize : nsize);
    free(ptr);
  }
  return p;
}

enum { BIG, SMALL, TEXT, NCOLS };

/* Writes ROWS rows: `big` int64 (random: a plain page of 64 KiB), `small`
 * int32 in [0, 100) (bit-packed), `text` random 40-character strings with
 * nulls (plain: FSST cannot shrink them); pages compressed as given. */
static char *write_dataset(qv_compression compression, qv_array **cols) {
  char *dir = make_tmpdir();
  char *path = join2(dir, "ds");
  free(dir);
  qv_error err;
  qv_schema s = QV_SCHEMA_INIT;
  add_column(&s, "big", qv_datatype_simple(QV_TYPE_INT64));
  add_column(&s, "small", qv_datatype_simple(QV_TYPE_INT32));
  add_column(&s, "text", qv_datatype_simple(QV_TYPE_STRING));
  qv_builder b[NCOLS];
  for (int c = 0; c < NCOLS; c++) assert_int_equal(qv_builder_init(&b[c], &s.fields[c].type, &err), QV_OK);
  uint64_t rng = 3;
  for (int i = 0; i < ROWS; i++) {
    assert_int_equal(qv_builder_append_int(&b[BIG], (int64_t)rng_next(&rng)), QV_OK);
    assert_int_equal(qv_builder_append_int(&b[SMALL], (int64_t)(rng_next(&rng) % 100)), QV_OK);
    char text[41];
    for (int k = 0; k < 40; k++) text[k] = (char)('!' + rng_next(&rng) % 90);
    text[40] = '\0';
    if (i % 97 == 5) assert_int_equal(qv_builder_append_null(&b[TEXT]), QV_OK);
    else assert_int_equal(qv_builder_append_cstr(&b[TEXT], text), QV_OK);
  }
  for (int c = 0; c < NCOLS; c++) assert_int_equal(qv_builder_finish(&b[c], &cols[c], &err), QV_OK);
  qv_batch *batch = batch_slice_of(&s, cols, 0, ROWS);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.page_rows = ROWS;
  o.compression = compression;
  assert_int_equal(write_batches(path, &s, &batch, 1, &o, NULL, &err), QV_OK);
  qv_batch_release(batch);
  qv_schema_reset(&s);
  return path;
}

static void drop_dataset(char *path, qv_array **cols) {
  for (int c = 0; c < NCOLS; c++) qv_array_release(cols[c]);
  char *dir = strdup(path);
  *strrchr(dir, '/') = '\0';
  rm_rf(dir);
  free(dir);
  free(path);
}

/* Reads column col whole from a fresh reader; the bytes allocated while
 * reading; the reader and dataset are closed before returning. */
static qv_array *read_whole(const char *path, int32_t col, int64_t *allocated, int *encoding) {
  qv_dataset *ds;
  qv_fragment_reader *r;
  qv_error err;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_fragment_open(ds, 0, &r, &err), QV_OK);
  qv_page_info info;
  qv_fragment_page(r, col, 0, &info);
  *encoding = info.encoding;
  qv_array *a;
  g_counted = 0;
  g_counting = true;
  assert_int_equal(qv_fragment_read(r, col, 0, ROWS, &a, &err), QV_OK);
  g_counting = false;
  *allocated = g_counted;
  qv_fragment_close(r);
  qv_dataset_close(ds);
  return a;
}

static void test_plain_page_shared(void **state) {
  (void)state;
  qv_array *cols[NCOLS];
  char *path = write_dataset(QV_COMPRESSION_NONE, cols);
  int64_t allocated;
  int encoding;
  qv_array *a = read_whole(path, BIG, &allocated, &encoding);
  assert_int_equal(encoding, QV_ENCODING_PLAIN);
  /* the page (64 KiB of values) once, plus small change; a copy would be
   * two pages */
  print_message("plain int64 page of %d bytes: %lld bytes allocated\n", ROWS * 8, (long long)allocated);
  assert_true(allocated >= ROWS * 8);
  assert_true(allocated < ROWS * 8 + ROWS * 8 / 2);
  /* the reader and the dataset are gone; the values live on in a */
  assert_arrays_equal(a, 0, cols[BIG], 0, ROWS);
  qv_array_release(a);
  /* strings with nulls: offsets and bytes shared, the validity copied */
  a = read_whole(path, TEXT, &allocated, &encoding);
  assert_int_equal(encoding, QV_ENCODING_PLAIN);
  int64_t page = ROWS * 4 + (ROWS - ROWS / 97) * 40;
  print_message("plain string page of about %lld bytes: %lld bytes allocated\n", (long long)page, (long long)allocated);
  assert_true(allocated < page + page / 2);
  assert_arrays_equal(a, 0, cols[TEXT], 0, ROWS);
  qv_array_release(a);
  /* bit-packed: decoded into new memory, as before */
  a = read_whole(path, SMALL, &allocated, &encoding);
  assert_int_equal(encoding, QV_ENCODING_BITPACK_FOR);
  assert_arrays_equal(a, 0, cols[SMALL], 0, ROWS);
  qv_array_release(a);
  drop_dataset(path, cols);
}

/* zstd pages (framed): decompressed into the shared buffer; the arrays
 * outlive the reader all the same. */
static void test_compressed_plain_page_shared(void **state) {
  (void)state;
  qv_array *cols[NCOLS];
  char *path = write_dataset(QV_COMPRESSION_ZSTD, cols);
  for (int c = 0; c < NCOLS; c++) {
    int64_t allocated;
    int encoding;
    qv_array *a = read_whole(path, c, &allocated, &encoding);
    assert_arrays_equal(a, 0, cols[c], 0, ROWS);
    qv_array_release(a);
  }
  drop_dataset(path, cols);
}

int main(void) {
  qv_set_allocator(counting_alloc, NULL); /* before any other call into quiver */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plain_page_shared),
      cmocka_unit_test(test_compressed_plain_page_shared),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
