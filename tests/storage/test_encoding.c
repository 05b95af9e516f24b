/* Which encoding and compression each page gets, read off the page
 * descriptors, and the values that come back through each of them; the
 * bit unpacker over every width, value size and count. */
#include <string.h>

#include "storage/encoding.h"
#include "storage/format.h"
#include "storage/storage_test_util.h"

typedef struct col_spec {
  const char *name;
  qv_type_id type;
  /* value of row i (ints) or NULL for strings */
  int64_t (*ival)(int64_t i);
  const char *(*sval)(int64_t i, char *buf);
  bool null_every_5;
} col_spec;

static int64_t small_range(int64_t i) { return 1000 + (i * 37) % 101; }
static int64_t full_range(int64_t i) { return (int64_t)((uint64_t)i * 0x9E3779B97F4A7C15ull); }
static int64_t tiny(int64_t i) { return i % 4; }
static int64_t negative(int64_t i) { return (i * 13) % 101 - 50; }
static int64_t constant(int64_t i) {
  (void)i;
  return -7;
}
static int64_t big_unsigned(int64_t i) { return (int64_t)(UINT64_MAX - (uint64_t)(i % 1000)); }
static int64_t ts(int64_t i) { return 1700000000000000 + i * 1000; }
static const char *low_card(int64_t i, char *buf) {
  sprintf(buf, "category-%d", (int)(i % 10));
  return buf;
}
static const char *high_card(int64_t i, char *buf) {
  sprintf(buf, "unique-%lld-%llx", (long long)i, (unsigned long long)full_range(i));
  return buf;
}

static const col_spec specs[] = {
    {"small", QV_TYPE_INT64, small_range, NULL, false},
    {"full", QV_TYPE_INT64, full_range, NULL, false},
    {"tiny8", QV_TYPE_INT8, tiny, NULL, true},
    {"full8", QV_TYPE_INT8, full_range, NULL, false},
    {"neg", QV_TYPE_INT32, negative, NULL, true},
    {"const", QV_TYPE_INT16, constant, NULL, false},
    {"bigu", QV_TYPE_UINT64, big_unsigned, NULL, false},
    {"ts", QV_TYPE_TIMESTAMP, ts, NULL, true},
    {"date", QV_TYPE_DATE32, tiny, NULL, false},
    {"low", QV_TYPE_STRING, NULL, low_card, true},
    {"high", QV_TYPE_STRING, NULL, high_card, false},
    {"lowbin", QV_TYPE_BINARY, NULL, low_card, false},
    {"flag", QV_TYPE_BOOL, tiny, NULL, true},
    {"dbl", QV_TYPE_FLOAT64, small_range, NULL, false},
};
enum { NSPEC = sizeof specs / sizeof specs[0] };

static qv_array *make_col(const col_spec *c, int64_t n) {
  qv_builder b;
  qv_error err;
  qv_datatype t = qv_datatype_simple(c->type);
  assert_int_equal(qv_builder_init(&b, &t, &err), QV_OK);
  for (int64_t i = 0; i < n; i++) {
    if (c->null_every_5 && i % 5 == 3) {
      assert_int_equal(qv_builder_append_null(&b), QV_OK);
      continue;
    }
    char buf[96];
    if (c->sval) assert_int_equal(qv_builder_append_cstr(&b, c->sval(i, buf)), QV_OK);
    else if (c->type == QV_TYPE_BOOL) assert_int_equal(qv_builder_append_bool(&b, c->ival(i) & 1), QV_OK);
    else if (c->type == QV_TYPE_FLOAT64) assert_int_equal(qv_builder_append_double(&b, (double)c->ival(i) / 3), QV_OK);
    else if (c->type >= QV_TYPE_UINT8 && c->type <= QV_TYPE_UINT64)
      assert_int_equal(qv_builder_append_uint(&b, (uint64_t)c->ival(i)), QV_OK);
    else if (c->type == QV_TYPE_INT8) assert_int_equal(qv_builder_append_int(&b, (int8_t)c->ival(i)), QV_OK);
    else assert_int_equal(qv_builder_append_int(&b, c->ival(i)), QV_OK);
  }
  qv_array *a;
  assert_int_equal(qv_builder_finish(&b, &a, &err), QV_OK);
  return a;
}

typedef struct written {
  char *dir, *path;
  qv_schema schema;
  qv_array *cols[NSPEC];
  qv_dataset *ds;
  qv_fragment_reader *r;
} written;

static void write_specs(written *w, int64_t n, qv_compression comp, bool dict, int64_t page_rows) {
  qv_error err;
  w->dir = make_tmpdir();
  w->path = join2(w->dir, "ds");
  w->schema = (qv_schema)QV_SCHEMA_INIT;
  for (int i = 0; i < NSPEC; i++) {
    qv_field f = make_field(specs[i].name, qv_datatype_simple(specs[i].type));
    assert_int_equal(qv_schema_add(&w->schema, &f, &err), QV_OK);
    qv_field_reset(&f);
    w->cols[i] = make_col(&specs[i], n);
  }
  qv_batch **b;
  int nb = split_batches(&w->schema, w->cols, n, 1000, &b);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.compression = comp;
  o.dictionary = dict;
  o.page_rows = page_rows;
  if (write_batches(w->path, &w->schema, b, nb, &o, NULL, &err) != QV_OK) fail_msg("write: %s", err.message);
  free_batches(b, nb);
  assert_int_equal(qv_dataset_open(w->path, 0, &w->ds, &err), QV_OK);
  assert_int_equal(qv_fragment_open(w->ds, 0, &w->r, &err), QV_OK);
}

static void free_written(written *w) {
  qv_fragment_close(w->r);
  qv_dataset_close(w->ds);
  for (int i = 0; i < NSPEC; i++) qv_array_release(w->cols[i]);
  qv_schema_reset(&w->schema);
  rm_rf(w->dir);
  free(w->dir);
  free(w->path);
}

static int col_of(const char *name) {
  for (int i = 0; i < NSPEC; i++)
    if (strcmp(specs[i].name, name) == 0) return i;
  fail_msg("no column %s", name);
  return -1;
}

static void expect_encoding(written *w, const char *name, int encoding) {
  int c = col_of(name);
  for (int32_t p = 0; p < qv_fragment_num_pages(w->r, c); p++) {
    qv_page_info info;
    qv_fragment_page(w->r, c, p, &info);
    if (info.encoding != encoding)
      fail_msg("column %s page %d: encoding %s, expected %s", name, p, qv_encoding_name(info.encoding),
               qv_encoding_name(encoding));
  }
}

static void expect_values(written *w) {
  qv_error err;
  int64_t n = qv_fragment_num_rows(w->r);
  for (int c = 0; c < NSPEC; c++) {
    qv_array *a = NULL;
    assert_int_equal(qv_fragment_read(w->r, c, 0, n, &a, &err), QV_OK);
    assert_arrays_equal(a, 0, w->cols[c], 0, n);
    qv_array_release(a);
    int64_t rows[] = {0, 1, 2, 3, 511, 512, 1000, 1999, n - 1};
    qv_fragment_reader *r2;
    assert_int_equal(qv_fragment_open(w->ds, 0, &r2, &err), QV_OK);
    assert_int_equal(qv_fragment_take(r2, c, rows, 9, &a, &err), QV_OK);
    for (int k = 0; k < 9; k++) assert_arrays_equal(a, k, w->cols[c], rows[k], 1);
    qv_array_release(a);
    qv_fragment_close(r2);
  }
}

static void test_encodings_chosen(void **state) {
  (void)state;
  written w;
  write_specs(&w, 2048, QV_COMPRESSION_NONE, true, 512);
  assert_int_equal(qv_fragment_num_pages(w.r, 0), 4);
  expect_encoding(&w, "small", QV_ENCODING_BITPACK_FOR);
  expect_encoding(&w, "full", QV_ENCODING_PLAIN);
  expect_encoding(&w, "tiny8", QV_ENCODING_BITPACK_FOR);
  expect_encoding(&w, "full8", QV_ENCODING_PLAIN);
  expect_encoding(&w, "neg", QV_ENCODING_BITPACK_FOR);
  expect_encoding(&w, "const", QV_ENCODING_BITPACK_FOR);
  expect_encoding(&w, "bigu", QV_ENCODING_BITPACK_FOR);
  expect_encoding(&w, "ts", QV_ENCODING_BITPACK_FOR);
  expect_encoding(&w, "date", QV_ENCODING_BITPACK_FOR);
  expect_encoding(&w, "low", QV_ENCODING_DICTIONARY);
  expect_encoding(&w, "lowbin", QV_ENCODING_DICTIONARY);
  expect_encoding(&w, "high", QV_ENCODING_PLAIN);
  expect_encoding(&w, "flag", QV_ENCODING_PLAIN);
  expect_encoding(&w, "dbl", QV_ENCODING_PLAIN);
  /* bit-packing pays: 101 distinct small values in 7 bits instead of 64 */
  qv_page_info info;
  qv_fragment_page(w.r, col_of("small"), 0, &info);
  assert_true(info.byte_size < 512 * 8 / 8);
  assert_int_equal(info.compression, QV_COMPRESSION_NONE);
  assert_string_equal(qv_encoding_name(QV_ENCODING_BITPACK_FOR), "bitpack-for");
  assert_string_equal(qv_encoding_name(QV_ENCODING_DICTIONARY), "dictionary");
  assert_string_equal(qv_encoding_name(QV_ENCODING_PLAIN), "plain");
  assert_string_equal(qv_encoding_name(QV_ENCODING_FSST), "fsst");
  assert_string_equal(qv_encoding_name(77), "unknown");
  expect_values(&w);
  free_written(&w);
}

static void test_dictionary_off(void **state) {
  (void)state;
  written w;
  /* AUTO compresses what the dictionary would have with FSST instead */
  write_specs(&w, 2048, QV_COMPRESSION_AUTO, false, 512);
  expect_encoding(&w, "low", QV_ENCODING_FSST);
  expect_values(&w);
  free_written(&w);
  write_specs(&w, 2048, QV_COMPRESSION_NONE, false, 512);
  expect_encoding(&w, "low", QV_ENCODING_PLAIN);
  expect_values(&w);
  free_written(&w);
}

/* distinct <= rows/2 is dictionary, one more is plain */
static void test_dictionary_threshold(void **state) {
  (void)state;
  for (int distinct = 50; distinct <= 51; distinct++) {
    char *dir = make_tmpdir(), *path = join2(dir, "ds");
    qv_error err;
    qv_schema s = QV_SCHEMA_INIT;
    add_column(&s, "s", qv_datatype_simple(QV_TYPE_STRING));
    qv_builder b;
    assert_int_equal(qv_builder_init(&b, &s.fields[0].type, &err), QV_OK);
    for (int i = 0; i < 100; i++) {
      char buf[16];
      sprintf(buf, "v%d", i % distinct);
      assert_int_equal(qv_builder_append_cstr(&b, buf), QV_OK);
    }
    qv_array *a;
    assert_int_equal(qv_builder_finish(&b, &a, &err), QV_OK);
    qv_batch **batches;
    int nb = split_batches(&s, &a, 100, 100, &batches);
    qv_write_options o = QV_WRITE_OPTIONS_INIT;
    o.page_rows = 100;
    assert_int_equal(write_batches(path, &s, batches, nb, &o, NULL, &err), QV_OK);
    qv_dataset *ds;
    qv_fragment_reader *r;
    assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
    assert_int_equal(qv_fragment_open(ds, 0, &r, &err), QV_OK);
    qv_page_info info;
    qv_fragment_page(r, 0, 0, &info);
    assert_int_equal(info.encoding, distinct == 50 ? QV_ENCODING_DICTIONARY : QV_ENCODING_PLAIN);
    qv_array *back;
    assert_int_equal(qv_fragment_read(r, 0, 0, 100, &back, &err), QV_OK);
    assert_arrays_equal(back, 0, a, 0, 100);
    qv_array_release(back);
    qv_fragment_close(r);
    qv_dataset_close(ds);
    free_batches(batches, nb);
    qv_array_release(a);
    qv_schema_reset(&s);
    rm_rf(dir);
    free(dir);
    free(path);
  }
}

static int page_compression(written *w, const char *name) {
  qv_page_info info;
  qv_fragment_page(w->r, col_of(name), 0, &info);
  return info.compression;
}

static void test_compression_modes(void **state) {
  (void)state;
  written w;
  /* AUTO: lz4, or zstd where it saves another quarter, raw unless a
   * quarter is saved; strings FSST where that saves a quarter (raw pages) */
  write_specs(&w, 4096, QV_COMPRESSION_AUTO, true, 4096);
  expect_encoding(&w, "high", QV_ENCODING_FSST);
  assert_int_equal(page_compression(&w, "high"), QV_COMPRESSION_NONE);
  assert_int_equal(page_compression(&w, "small"), QV_COMPRESSION_LZ4);
  assert_int_equal(page_compression(&w, "full"), QV_COMPRESSION_NONE); /* 64-bit hash values do not compress */
  expect_values(&w);
  free_written(&w);

  write_specs(&w, 4096, QV_COMPRESSION_NONE, true, 4096);
  for (int c = 0; c < NSPEC; c++) assert_int_equal(page_compression(&w, specs[c].name), QV_COMPRESSION_NONE);
  expect_values(&w);
  free_written(&w);

  write_specs(&w, 4096, QV_COMPRESSION_ZSTD, true, 4096);
  assert_int_equal(page_compression(&w, "high"), QV_COMPRESSION_ZSTD);
  assert_int_equal(page_compression(&w, "dbl"), QV_COMPRESSION_ZSTD);
  expect_values(&w);
  free_written(&w);

  write_specs(&w, 4096, QV_COMPRESSION_LZ4, true, 4096);
  assert_int_equal(page_compression(&w, "high"), QV_COMPRESSION_LZ4);
  assert_int_equal(page_compression(&w, "dbl"), QV_COMPRESSION_LZ4);
  expect_values(&w);
  free_written(&w);
}

/* Random bytes never compress: AUTO keeps them raw (so takes stay partial). */
static void test_random_stays_raw(void **state) {
  (void)state;
  char *dir = make_tmpdir(), *path = join2(dir, "ds");
  qv_error err;
  qv_schema s = QV_SCHEMA_INIT;
  add_column(&s, "payload", qv_datatype_simple(QV_TYPE_BINARY));
  qv_builder b;
  assert_int_equal(qv_builder_init(&b, &s.fields[0].type, &err), QV_OK);
  uint64_t rng = 5;
  for (int i = 0; i < 1000; i++) {
    uint8_t buf[100];
    for (int k = 0; k < 100; k++) buf[k] = (uint8_t)rng_next(&rng);
    assert_int_equal(qv_builder_append_bytes(&b, buf, 100), QV_OK);
  }
  qv_array *a;
  assert_int_equal(qv_builder_finish(&b, &a, &err), QV_OK);
  qv_batch **batches;
  int nb = split_batches(&s, &a, 1000, 1000, &batches);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  assert_int_equal(write_batches(path, &s, batches, nb, &o, NULL, &err), QV_OK);
  qv_dataset *ds;
  qv_fragment_reader *r;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_fragment_open(ds, 0, &r, &err), QV_OK);
  qv_page_info info;
  qv_fragment_page(r, 0, 0, &info);
  assert_int_equal(info.compression, QV_COMPRESSION_NONE);
  assert_int_equal(info.encoding, QV_ENCODING_PLAIN);
  assert_true(info.byte_size >= 100000);
  qv_fragment_close(r);
  qv_dataset_close(ds);
  free_batches(batches, nb);
  qv_array_release(a);
  qv_schema_reset(&s);
  rm_rf(dir);
  free(dir);
  free(path);
}

/* qv_fragment_read_encoded: a dictionary page read as one page comes back
 * as a dictionary array that decodes to the plain read; other pages and
 * ranges that are not one whole page come back plain. */
static void test_read_encoded(void **state) {
  (void)state;
  written w;
  write_specs(&w, 2048, QV_COMPRESSION_AUTO, true, 512);
  qv_error err;
  for (int c = 0; c < NSPEC; c++) {
    qv_page_info info;
    qv_fragment_page(w.r, c, 1, &info);
    qv_array *enc = NULL, *plain = NULL;
    assert_int_equal(qv_fragment_read_encoded(w.r, c, info.row_start, info.row_count, &enc, &err), QV_OK);
    assert_int_equal(qv_fragment_read(w.r, c, info.row_start, info.row_count, &plain, &err), QV_OK);
    assert_int_equal(enc->type.id == QV_TYPE_DICTIONARY, info.encoding == QV_ENCODING_DICTIONARY);
    if (enc->type.id == QV_TYPE_DICTIONARY) {
      qv_array *dec = NULL;
      assert_int_equal(qv_array_dictionary_decode(enc, &dec, &err), QV_OK);
      assert_int_equal(dec->null_count, plain->null_count);
      assert_arrays_equal(dec, 0, plain, 0, plain->length);
      qv_array_release(dec);
    } else {
      assert_arrays_equal(enc, 0, plain, 0, plain->length);
    }
    qv_array_release(enc);
    /* not one whole page: plain */
    assert_int_equal(qv_fragment_read_encoded(w.r, c, info.row_start + 1, info.row_count - 1, &enc, &err), QV_OK);
    assert_true(enc->type.id != QV_TYPE_DICTIONARY);
    assert_arrays_equal(enc, 0, plain, 1, plain->length - 1);
    qv_array_release(enc);
    qv_array_release(plain);
  }
  free_written(&w);
}

/* AUTO's choice per page (compress_page, try_fsst): strings FSST where
 * that saves a quarter and is within 4x of the frames (the benchmark's
 * zero-padded numbers; random digits, where FSST's digit pairs come close
 * to zstd), lz4 frames where lz4 shrinks far more than FSST can (long
 * repeats: FSST stops at 8x), raw when nothing saves a quarter. */
static void test_auto_codec_choice(void **state) {
  (void)state;
  char *dir = make_tmpdir(), *path = join2(dir, "ds");
  qv_error err;
  qv_schema s = QV_SCHEMA_INIT;
  enum { NC = 4, ROWS = 2000, WIDE = 1024 };
  const char *names[NC] = {"padded", "digits", "random", "repeat"};
  for (int c = 0; c < NC; c++) {
    add_column(&s, names[c], qv_datatype_simple(QV_TYPE_BINARY));
  }
  qv_array *cols[NC];
  uint64_t rng = 11;
  uint8_t block[WIDE];
  for (int k = 0; k < WIDE; k++) block[k] = (uint8_t)(rng_next(&rng) & 0xFF);
  for (int c = 0; c < NC; c++) {
    qv_builder b;
    assert_int_equal(qv_builder_init(&b, &s.fields[c].type, &err), QV_OK);
    for (int i = 0; i < ROWS; i++) {
      char buf[WIDE + 1];
      int len = 256;
      if (c == 0) snprintf(buf, sizeof buf, "%0256d", i); /* the benchmark's payload */
      for (int k = 0; (c == 1 || c == 2) && k < 256; k++)
        buf[k] = (char)(c == 1 ? '0' + (int)(rng_next(&rng) % 10) : (int)(rng_next(&rng) & 0xFF));
      if (c == 3) { /* one random kilobyte, numbered */
        memcpy(buf, block, WIDE);
        memcpy(buf, &i, sizeof i);
        len = WIDE;
      }
      assert_int_equal(qv_builder_append_bytes(&b, (const uint8_t *)buf, len), QV_OK);
    }
    assert_int_equal(qv_builder_finish(&b, &cols[c], &err), QV_OK);
  }
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&s, cols, ROWS, &batch, &err), QV_OK);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.page_rows = ROWS;
  assert_int_equal(write_batches(path, &s, &batch, 1, &o, NULL, &err), QV_OK);
  qv_dataset *ds;
  qv_fragment_reader *r;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_fragment_open(ds, 0, &r, &err), QV_OK);
  const int want_enc[NC] = {QV_ENCODING_FSST, QV_ENCODING_FSST, QV_ENCODING_PLAIN, QV_ENCODING_PLAIN};
  const int want_comp[NC] = {QV_COMPRESSION_NONE, QV_COMPRESSION_NONE, QV_COMPRESSION_NONE, QV_COMPRESSION_LZ4};
  for (int c = 0; c < NC; c++) {
    qv_page_info info;
    qv_fragment_page(r, c, 0, &info);
    if (info.encoding != want_enc[c] || info.compression != want_comp[c])
      fail_msg("%s: encoding %s compression %d, expected %s %d", names[c], qv_encoding_name(info.encoding),
               info.compression, qv_encoding_name(want_enc[c]), want_comp[c]);
    qv_array *back;
    assert_int_equal(qv_fragment_read(r, c, 0, ROWS, &back, &err), QV_OK);
    assert_arrays_equal(back, 0, cols[c], 0, ROWS);
    qv_array_release(back);
  }
  qv_fragment_close(r);
  qv_dataset_close(ds);
  qv_batch_release(batch);
  qv_schema_reset(&s);
  rm_rf(dir);
  free(dir);
  free(path);
}

/* qvs_unpack (one loop per width for 32- and 64-bit values, eight values
 * at a time, then the rest one by one) against the values qvs_pack
 * packed, for every width each value size takes, counts around multiples
 * of 8, all-ones values (the widest the mask keeps) and a reference that
 * carries. */
static void test_unpack_widths(void **state) {
  (void)state;
  enum { MAXN = 1000 };
  uint64_t vals[MAXN], rng = 5;
  uint8_t packed[MAXN * 8 + QVS_PACK_PAD + 8];
  uint8_t out[MAXN * 8 + 8];
  const int64_t counts[] = {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 999, 1000};
  const int sizes[] = {1, 2, 4, 8};
  for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
    int bw = sizes[z];
    for (int w = 0; w <= QVS_MAX_BITS && w < 8 * bw; w++) {
      uint64_t mask = w ? (((uint64_t)1 << w) - 1) : 0;
      for (int64_t i = 0; i < MAXN; i++) vals[i] = i % 3 == 0 ? mask : rng_next(&rng) & mask;
      qvs_pack(vals, MAXN, w, packed);
      uint64_t ref = bw == 8 ? UINT64_MAX - 3 : 3; /* 64-bit: ref + value wraps, as stored */
      for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        int64_t n = counts[c];
        memset(out, 0xAB, sizeof out);
        qvs_unpack(packed, w, ref, n, out, bw);
        for (int64_t i = 0; i < n; i++) {
          uint64_t want = ref + vals[i], got = 0;
          memcpy(&got, out + i * bw, (size_t)bw); /* little-endian: the low bytes */
          if (bw < 8) want &= ((uint64_t)1 << (8 * bw)) - 1;
          if (got != want)
            fail_msg("width %d, %d-byte values, %lld of them: value %lld is %llu, want %llu", w, bw, (long long)n,
                     (long long)i, (unsigned long long)got, (unsigned long long)want);
        }
        assert_int_equal(out[n * bw], 0xAB); /* nothing written past the last */
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unpack_widths),     cmocka_unit_test(test_encodings_chosen),
      cmocka_unit_test(test_dictionary_off),    cmocka_unit_test(test_dictionary_threshold),
      cmocka_unit_test(test_compression_modes), cmocka_unit_test(test_random_stays_raw),
      cmocka_unit_test(test_auto_codec_choice), cmocka_unit_test(test_read_encoded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
