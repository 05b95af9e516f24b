/* Hostile data files: bytes changed on purpose and every checksum
 * recomputed, so only the structural validation stands between the bytes
 * and the decoders.  Each case must fail with QV_ERR_CORRUPT naming the
 * file and the problem, by full read and by take.  Two files: four columns
 * stored raw (dictionary, plain, bit-packed, list), and one FSST column. */
#include <fcntl.h>
#include <string.h>

#include "base/wire.h"
#include "storage/datafile.h"
#include "storage/format.h"
#include "storage/fsst.h"
#include "storage/storage_test_util.h"

typedef struct fixture {
  char *path, *file;
  char name[128];
  uint8_t *orig;
  int64_t size;
} fixture;
static fixture g_fx[2];
static char *g_dir, *g_path, *g_file, *g_name; /* those of the fixture in use */
static uint8_t *g_orig;
static int64_t g_size;

static void use_fixture(int i) {
  g_path = g_fx[i].path;
  g_file = g_fx[i].file;
  g_name = g_fx[i].name;
  g_orig = g_fx[i].orig;
  g_size = g_fx[i].size;
}

/* Writes the batches as the dataset `sub` of g_dir and keeps its one data file's bytes. */
static void write_fixture(fixture *fx, const char *sub, const qv_schema *s, qv_array **cols, int64_t rows,
                          qv_compression comp) {
  qv_error err;
  fx->path = join2(g_dir, sub);
  qv_batch **batches;
  int nb = split_batches(s, cols, rows, rows, &batches);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.compression = comp;
  assert_int_equal(write_batches(fx->path, s, batches, nb, &o, NULL, &err), QV_OK);
  free_batches(batches, nb);
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(fx->path, 0, &ds, &err), QV_OK);
  qv_fragment_info fi;
  qv_dataset_fragment(ds, 0, &fi);
  snprintf(fx->name, sizeof fx->name, "%s", fi.path);
  qv_dataset_close(ds);
  fx->file = join2(fx->path, fx->name);
  assert_int_equal(qvb_file_read(fx->file, fx->name, 1 << 20, &fx->orig, &fx->size, &err), QV_OK);
}

/* 100 rows of text FSST compresses (every tenth null), written by AUTO. */
static void write_fsst_fixture(void) {
  qv_error err;
  qv_schema s = QV_SCHEMA_INIT;
  add_column(&s, "wide", qv_datatype_simple(QV_TYPE_STRING));
  qv_builder b;
  assert_int_equal(qv_builder_init(&b, &s.fields[0].type, &err), QV_OK);
  for (int i = 0; i < 100; i++) {
    char buf[96];
    snprintf(buf, sizeof buf, "row %04d of the wide column, with the same words in every row", i);
    if (i % 10 == 9) assert_int_equal(qv_builder_append_null(&b), QV_OK);
    else assert_int_equal(qv_builder_append_cstr(&b, buf), QV_OK);
  }
  qv_array *col;
  assert_int_equal(qv_builder_finish(&b, &col, &err), QV_OK);
  write_fixture(&g_fx[1], "fsst", &s, &col, 100, QV_COMPRESSION_AUTO);
  qv_array_release(col);
  qv_schema_reset(&s);
}

static int setup(void **state) {
  (void)state;
  g_dir = make_tmpdir();
  qv_error err;
  qv_schema s = QV_SCHEMA_INIT;
  qv_datatype item = qv_datatype_simple(QV_TYPE_INT32), lt;
  assert_int_equal(qv_datatype_list(&item, &lt, &err), QV_OK);
  qv_datatype types[] = {qv_datatype_simple(QV_TYPE_STRING), qv_datatype_simple(QV_TYPE_STRING),
                         qv_datatype_simple(QV_TYPE_INT64), lt};
  const char *names[] = {"dict", "plain", "packed", "list"};
  qv_builder b[4];
  for (int c = 0; c < 4; c++) {
    add_column(&s, names[c], types[c]);
    assert_int_equal(qv_builder_init(&b[c], &s.fields[c].type, &err), QV_OK);
  }
  for (int i = 0; i < 100; i++) {
    char buf[32];
    snprintf(buf, sizeof buf, "c%d", i % 5);
    if (i % 10 == 9) assert_int_equal(qv_builder_append_null(&b[0]), QV_OK);
    else assert_int_equal(qv_builder_append_cstr(&b[0], buf), QV_OK);
    snprintf(buf, sizeof buf, "unique-%d", i);
    assert_int_equal(qv_builder_append_cstr(&b[1], buf), QV_OK);
    assert_int_equal(qv_builder_append_int(&b[2], 500 + i), QV_OK);
    for (int k = 0; k < i % 3; k++) assert_int_equal(qv_builder_append_int(&b[3].children[0], k), QV_OK);
    assert_int_equal(qv_builder_append_valid(&b[3]), QV_OK);
  }
  qv_array *cols[4];
  for (int c = 0; c < 4; c++) assert_int_equal(qv_builder_finish(&b[c], &cols[c], &err), QV_OK);
  write_fixture(&g_fx[0], "ds", &s, cols, 100, QV_COMPRESSION_NONE);
  for (int c = 0; c < 4; c++) qv_array_release(cols[c]);
  qv_schema_reset(&s);
  write_fsst_fixture();
  use_fixture(0);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  for (int i = 0; i < 2; i++) {
    qv_free(g_fx[i].orig);
    free(g_fx[i].path);
    free(g_fx[i].file);
  }
  rm_rf(g_dir);
  free(g_dir);
  return 0;
}

static void put_file(const uint8_t *b, int64_t n) {
  int fd = open(g_file, O_WRONLY | O_TRUNC);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, b, (size_t)n), n);
  close(fd);
}

/* Recomputes every block checksum and the footer checksum in place. */
static void fix_checksums(void) {
  qv_error err;
  qvs_verify_checksums = false;
  qvs_datafile *df;
  assert_int_equal(qvs_datafile_open(g_file, g_name, &df, &err), QV_OK);
  int64_t size;
  uint8_t *bytes;
  assert_int_equal(qvb_file_read(g_file, g_name, 1 << 20, &bytes, &size, &err), QV_OK);
  for (int32_t c = 0; c < df->n_columns; c++)
    for (int32_t p = 0; p < df->columns[c].n_pages; p++) {
      const qvs_page *pg = &df->columns[c].pages[p];
      int64_t at = df->footer_offset + (pg->crcs - df->footer);
      for (int64_t k = 0; k * pg->block < pg->stored_len; k++) {
        int64_t len = pg->stored_len - k * pg->block < pg->block ? pg->stored_len - k * pg->block : pg->block;
        qv_store_u32le(bytes + at + 4 * k, qv_crc32c(0, bytes + pg->offset + k * pg->block, (size_t)len));
      }
    }
  qv_store_u32le(bytes + size - 8, qv_crc32c(0, bytes + df->footer_offset, (size_t)df->footer_len));
  qvs_datafile_close(df);
  qvs_verify_checksums = true;
  put_file(bytes, size);
  qv_free(bytes);
}

/* Where buffer b of page 0 of column col starts in the file. */
static int64_t buffer_at(int32_t col, int32_t b, int64_t *len) {
  qv_error err;
  qvs_datafile *df;
  assert_int_equal(qvs_datafile_open(g_file, g_name, &df, &err), QV_OK);
  const qvs_page *pg = &df->columns[col].pages[0];
  assert_int_equal(pg->compression, QV_COMPRESSION_NONE);
  int64_t at = pg->offset + pg->buffers[b].offset;
  if (len) *len = pg->buffers[b].length;
  qvs_datafile_close(df);
  return at;
}

/* Both a full read and a take of col must fail naming the file and `what`. */
static void expect_corrupt(int32_t col, const char *what) {
  qv_error err;
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, &err), QV_OK);
  for (int mode = 0; mode < 2; mode++) {
    qv_fragment_reader *r;
    assert_int_equal(qv_fragment_open(ds, 0, &r, &err), QV_OK);
    qv_array *a = NULL;
    int64_t rows[100];
    for (int i = 0; i < 100; i++) rows[i] = i;
    qv_status st = mode ? qv_fragment_take(r, col, rows, 100, &a, &err) : qv_fragment_read(r, col, 0, 100, &a, &err);
    if (st != QV_ERR_CORRUPT) fail_msg("mode %d: status %d (%s)", mode, st, st ? err.message : "ok");
    if (!strstr(err.message, g_name) || !strstr(err.message, what))
      fail_msg("mode %d: message lacks `%s`: %s", mode, what, err.message);
    qv_fragment_close(r);
  }
  qv_dataset_close(ds);
  put_file(g_orig, g_size);
}

static void test_dictionary_index(void **state) {
  (void)state;
  uint8_t *b = malloc((size_t)g_size);
  memcpy(b, g_orig, (size_t)g_size);
  int64_t len, at = buffer_at(0, 3, &len); /* indices: 3 bits for 5 entries */
  b[at] |= 0x07;                           /* row 0 -> index 7 */
  put_file(b, g_size);
  fix_checksums();
  expect_corrupt(0, "dictionary index 7");
  memcpy(b, g_orig, (size_t)g_size);
  at = buffer_at(0, 1, NULL); /* entry offsets: make entry 1 end before it starts */
  qv_store_u32le(b + at + 8, 0x7fffffff);
  put_file(b, g_size);
  fix_checksums();
  expect_corrupt(0, "dictionary entry");
  free(b);
}

static void test_string_offsets(void **state) {
  (void)state;
  uint8_t *b = malloc((size_t)g_size);
  memcpy(b, g_orig, (size_t)g_size);
  int64_t at = buffer_at(1, 1, NULL);
  qv_store_u32le(b + at + 4 * 50, 0xFFFFFF00u); /* a negative offset mid-page */
  put_file(b, g_size);
  fix_checksums();
  expect_corrupt(1, "offset");
  free(b);
}

static void test_validity_count(void **state) {
  (void)state;
  uint8_t *b = malloc((size_t)g_size);
  memcpy(b, g_orig, (size_t)g_size);
  int64_t at = buffer_at(0, 0, NULL);
  b[at] ^= 0x01; /* row 0 becomes null: 11 nulls, the footer says 10 */
  put_file(b, g_size);
  fix_checksums();
  qv_error err;
  qv_dataset *ds;
  qv_fragment_reader *r;
  qv_array *a;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_fragment_open(ds, 0, &r, &err), QV_OK);
  assert_int_equal(qv_fragment_read(r, 0, 0, 100, &a, &err), QV_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "11 nulls"));
  qv_fragment_close(r);
  qv_dataset_close(ds);
  put_file(g_orig, g_size);
  free(b);
}

static void test_list_offsets(void **state) {
  (void)state;
  uint8_t *b = malloc((size_t)g_size);
  memcpy(b, g_orig, (size_t)g_size);
  int64_t len, at = buffer_at(3, 1, &len);
  qv_store_u32le(b + at + len - 4, 1000000); /* last offset points far past the child */
  put_file(b, g_size);
  fix_checksums();
  expect_corrupt(3, "column `list` page 0");
  free(b);
}

/* FSST pages: codes the table lacks, an escape cut off at a row's end,
 * symbol lengths outside 1..8, code offsets that run backwards. */
static void test_fsst_codes(void **state) {
  (void)state;
  use_fixture(1);
  qv_error err;
  qvs_datafile *df;
  assert_int_equal(qvs_datafile_open(g_file, g_name, &df, &err), QV_OK);
  const qvs_page *pg = &df->columns[0].pages[0];
  assert_int_equal(pg->encoding, QV_ENCODING_FSST);
  int64_t n_sym = pg->dict_count;
  qvs_datafile_close(df);
  assert_true(n_sym > 0 && n_sym < 255);
  uint8_t *b = malloc((size_t)g_size);
  int64_t codes = buffer_at(0, 3, NULL), offs = buffer_at(0, 2, NULL), table = buffer_at(0, 1, NULL);
  uint32_t row0_end = qv_load_u32le(g_orig + offs + 4);

  memcpy(b, g_orig, (size_t)g_size);
  b[codes] = (uint8_t)n_sym; /* the first code past the table */
  put_file(b, g_size);
  fix_checksums();
  expect_corrupt(0, "row 0: a code the symbol table lacks");

  memcpy(b, g_orig, (size_t)g_size);
  b[codes + row0_end - 1] = QVS_FSST_ESCAPE; /* row 0 ends in an escape */
  put_file(b, g_size);
  fix_checksums();
  expect_corrupt(0, "or an escape without its byte");

  memcpy(b, g_orig, (size_t)g_size);
  b[table + 8 * n_sym] = 9;
  put_file(b, g_size);
  fix_checksums();
  expect_corrupt(0, "a symbol length is not 1..8");

  memcpy(b, g_orig, (size_t)g_size);
  qv_store_u32le(b + offs + 4 * 5, 0); /* row 4 would end before it starts */
  put_file(b, g_size);
  fix_checksums();
  expect_corrupt(0, "row 4: code offsets");
  free(b);
  use_fixture(0);
}

/* The footer's checksum block size (version 4): a power of two from 512
 * to 1 MiB, or the file is refused on open. */
static void test_block_size(void **state) {
  (void)state;
  qv_error err;
  qvs_datafile *df;
  assert_int_equal(qvs_datafile_open(g_file, g_name, &df, &err), QV_OK);
  assert_int_equal(df->version, 4);
  assert_int_equal(df->block_size, 1024);
  int64_t foff = df->footer_offset, flen = df->footer_len;
  qvs_datafile_close(df);
  int64_t at = foff + 4 + 8 + 4 + 4; /* version, rows, page rows, frame size */
  assert_int_equal(qv_load_u32le(g_orig + at), 1024);
  uint8_t *b = malloc((size_t)g_size);
  const uint32_t bad[] = {3000, 256, 1u << 21, 0};
  for (int k = 0; k < 4; k++) {
    memcpy(b, g_orig, (size_t)g_size);
    qv_store_u32le(b + at, bad[k]);
    qv_store_u32le(b + g_size - 8, qv_crc32c(0, b + foff, (size_t)flen));
    put_file(b, g_size);
    char want[96];
    snprintf(want, sizeof want, "checksum block size %u (a power of two from 512 to 1 MiB)", bad[k]);
    assert_int_equal(qvs_datafile_open(g_file, g_name, &df, &err), QV_ERR_CORRUPT);
    if (!strstr(err.message, want)) fail_msg("%s", err.message);
  }
  put_file(g_orig, g_size);
  free(b);
}

/* The footer itself, with a valid checksum: a page that claims rows past
 * the file or an impossible buffer table. */
static void test_footer_values(void **state) {
  (void)state;
  qv_error err;
  qvs_datafile *df;
  assert_int_equal(qvs_datafile_open(g_file, g_name, &df, &err), QV_OK);
  int64_t foff = df->footer_offset, flen = df->footer_len;
  qvs_datafile_close(df);
  uint8_t *b = malloc((size_t)g_size);
  int rejected = 0;
  /* every u32 slot of the footer set to a huge value, checksum fixed */
  for (int64_t k = 0; k + 4 <= flen; k += 4) {
    memcpy(b, g_orig, (size_t)g_size);
    qv_store_u32le(b + foff + k, 0xFFFFFFF0u);
    qv_store_u32le(b + g_size - 8, qv_crc32c(0, b + foff, (size_t)flen));
    put_file(b, g_size);
    qv_dataset *ds;
    assert_int_equal(qv_dataset_open(g_path, 0, &ds, &err), QV_OK);
    qv_fragment_reader *r = NULL;
    qv_status st = qv_fragment_open(ds, 0, &r, &err);
    for (int32_t c = 0; st == QV_OK && c < 4; c++) {
      qv_array *a = NULL;
      st = qv_fragment_read(r, c, 0, 100, &a, &err);
      qv_array_release(a);
    }
    if (st != QV_OK) {
      rejected++;
      assert_non_null(strstr(err.message, g_name));
    }
    qv_fragment_close(r);
    qv_dataset_close(ds);
  }
  put_file(g_orig, g_size);
  print_message("%d of %lld footer words rejected when huge\n", rejected, (long long)flen / 4);
  assert_true(rejected > flen / 8);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dictionary_index), cmocka_unit_test(test_string_offsets),
      cmocka_unit_test(test_validity_count),   cmocka_unit_test(test_list_offsets),
      cmocka_unit_test(test_footer_values),    cmocka_unit_test(test_fsst_codes),
      cmocka_unit_test(test_block_size),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
