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

/* Writes ROWS rows: `big` int64 (random: a raw plain page of 64 KiB),
 * `small` int32 in [0, 100) (bit-packed), raw pages (no compression). */
static char *write_dataset(qv_array **big, qv_array **small) {
  char *dir = make_tmpdir();
  char *path = join2(dir, "ds");
  free(dir);
  qv_error err;
  qv_schema s = QV_SCHEMA_INIT;
  add_column(&s, "big", qv_datatype_simple(QV_TYPE_INT64));
  add_column(&s, "small", qv_datatype_simple(QV_TYPE_INT32));
  qv_builder b[2];
  for (int c = 0; c < 2; c++) assert_int_equal(qv_builder_init(&b[c], &s.fields[c].type, &err), QV_OK);
  uint64_t rng = 3;
  for (int i = 0; i < ROWS; i++) {
    assert_int_equal(qv_builder_append_int(&b[0], (int64_t)rng_next(&rng)), QV_OK);
    assert_int_equal(qv_builder_append_int(&b[1], (int64_t)(rng_next(&rng) % 100)), QV_OK);
  }
  qv_array *cols[2];
  for (int c = 0; c < 2; c++) assert_int_equal(qv_builder_finish(&b[c], &cols[c], &err), QV_OK);
  qv_batch *batch = batch_slice_of(&s, cols, 0, ROWS);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.page_rows = ROWS;
  o.compression = QV_COMPRESSION_NONE;
  assert_int_equal(write_batches(path, &s, &batch, 1, &o, NULL, &err), QV_OK);
  qv_batch_release(batch);
  qv_schema_reset(&s);
  *big = cols[0];
  *small = cols[1];
  return path;
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
  qv_array *big, *small;
  char *path = write_dataset(&big, &small);
  int64_t allocated;
  int encoding;
  qv_array *a = read_whole(path, 0, &allocated, &encoding);
  assert_int_equal(encoding, QV_ENCODING_PLAIN);
  /* the page (64 KiB of values) once, plus small change; a copy would be
   * two pages */
  print_message("plain int64 page of %d bytes: %lld bytes allocated\n", ROWS * 8, (long long)allocated);
  assert_true(allocated >= ROWS * 8);
  assert_true(allocated < ROWS * 8 + ROWS * 8 / 2);
  /* the reader and the dataset are gone; the values live on in a */
  assert_arrays_equal(a, 0, big, 0, ROWS);
  qv_array_release(a);
  /* bit-packed: decoded into new memory, as before */
  a = read_whole(path, 1, &allocated, &encoding);
  assert_int_equal(encoding, QV_ENCODING_BITPACK_FOR);
  assert_arrays_equal(a, 0, small, 0, ROWS);
  qv_array_release(a);
  qv_array_release(big);
  qv_array_release(small);
  char *dir = strdup(path);
  *strrchr(dir, '/') = '\0';
  rm_rf(dir);
  free(dir);
  free(path);
}

int main(void) {
  qv_set_allocator(counting_alloc, NULL); /* before any other call into quiver */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plain_page_shared),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
