/* FSST (storage/fsst.c, encoding_fsst.c): the codec round-trips any bytes,
 * its table stays within the format's limits, its decoder refuses what the
 * table cannot mean, and a take of FSST pages reads and decodes only the
 * rows it asks for. */
#include <string.h>

#include "storage/fsst.h"
#include "storage/storage_test_util.h"

enum { ROWS = 3000 };

/* Value i of a kind of data: text with shared words, random bytes (every
 * byte value, so 0xFF too), one byte repeated, empty and long values. */
static int64_t make_value(int kind, int64_t i, uint64_t *rng, uint8_t *out) {
  switch (kind) {
    case 0:
      return snprintf((char *)out, 200, "user %lld logged in from host-%llu.example.com", (long long)i,
                      (unsigned long long)(rng_next(rng) % 97));
    case 1: {
      int64_t len = (int64_t)(rng_next(rng) % 64);
      for (int64_t k = 0; k < len; k++) out[k] = (uint8_t)rng_next(rng);
      return len;
    }
    case 2: {
      int64_t len = (int64_t)(rng_next(rng) % 40);
      memset(out, 0xFF, (size_t)len);
      return len;
    }
    default: {
      int64_t len = i % 7 == 0 ? 0 : (int64_t)(rng_next(rng) % 1500);
      for (int64_t k = 0; k < len; k++) out[k] = (uint8_t)("abcab\xff\x01"[rng_next(rng) % 7]);
      return len;
    }
  }
}

static void test_codec_round_trip(void **state) {
  (void)state;
  qv_error err;
  uint8_t *chars = malloc(ROWS * 1600), *codes = malloc(ROWS * 3200), *back = malloc(ROWS * 1600 * 8 + 8);
  int32_t *off = malloc((ROWS + 1) * sizeof *off), *o = malloc((ROWS + 1) * sizeof *o);
  uint8_t *co = malloc((ROWS + 1) * 4);
  for (int kind = 0; kind < 4; kind++) {
    uint64_t rng = 7 + (uint64_t)kind;
    off[0] = 0;
    for (int64_t i = 0; i < ROWS; i++) off[i + 1] = off[i] + (int32_t)make_value(kind, i, &rng, chars + off[i]);
    qvs_fsst_scratch s = {0};
    qvs_fsst_table t;
    assert_int_equal(qvs_fsst_build(&s, chars, off, NULL, 0, ROWS, &t, &err), QV_OK);
    assert_true(t.n >= 1 && t.n <= QVS_FSST_SYMBOLS);
    for (int c = 0; c < t.n; c++) assert_true(t.len[c] >= 1 && t.len[c] <= 8);
    /* the table as stored loads back the same */
    uint8_t stored[9 * 255];
    qvs_fsst_store(&t, stored);
    qvs_fsst_table u;
    assert_true(qvs_fsst_load(&u, stored, t.n));
    assert_int_equal(u.n, t.n);
    for (int c = 0; c < t.n; c++) {
      assert_int_equal(u.len[c], t.len[c]);
      assert_true(u.sym[c] == t.sym[c]);
    }
    int64_t pos = 0;
    qv_store_u32le(co, 0);
    for (int64_t i = 0; i < ROWS; i++) {
      int64_t len = off[i + 1] - off[i];
      int64_t got = qvs_fsst_encode(&t, chars + off[i], len, codes + pos);
      assert_true(got <= 2 * len);
      /* value by value */
      uint8_t *end = qvs_fsst_decode(&u, codes + pos, codes + pos + got, back);
      assert_non_null(end);
      assert_int_equal(end - back, len);
      assert_int_equal(qvs_fsst_decoded_len(&u, codes + pos, codes + pos + got), len);
      assert_memory_equal(back, chars + off[i], (size_t)len);
      pos += got;
      qv_store_u32le(co + 4 * (i + 1), (uint32_t)pos);
    }
    /* the page at once */
    assert_int_equal(qvs_fsst_decode_rows(&u, codes, co, ROWS, back, o), -1);
    assert_memory_equal(o, off, (ROWS + 1) * sizeof *o);
    assert_memory_equal(back, chars, (size_t)off[ROWS]);
    print_message("kind %d: %d symbols, %lld bytes to %lld\n", kind, t.n, (long long)off[ROWS], (long long)pos);
    if (kind == 0) assert_true(pos * 2 < off[ROWS]); /* shared words: better than half */
    if (kind == 2) assert_true(pos * 6 < off[ROWS]); /* one byte repeated: 8 per code, nearly */
    qvs_fsst_scratch_reset(&s);
  }
  free(chars);
  free(codes);
  free(back);
  free(off);
  free(o);
  free(co);
}

/* Codes a table does not define, escapes without their byte, and tables
 * the format cannot hold. */
static void test_decoder_refuses(void **state) {
  (void)state;
  uint8_t stored[9 * 3] = {0};
  memcpy(stored, "ab", 2);      /* symbol 0: "ab" */
  memcpy(stored + 8, "c", 1);   /* symbol 1: "c" */
  memcpy(stored + 16, "de", 2); /* symbol 2: "d" (its length is 1: the "e" is ignored) */
  stored[24] = 2, stored[25] = 1, stored[26] = 1;
  qvs_fsst_table t;
  assert_true(qvs_fsst_load(&t, stored, 3));
  uint8_t out[64];
  const uint8_t good[] = {0, 1, QVS_FSST_ESCAPE, 'z', 2, 0, 0, 1, 2};
  uint8_t *end = qvs_fsst_decode(&t, good, good + sizeof good, out);
  assert_non_null(end);
  assert_int_equal(end - out, 11);
  assert_memory_equal(out, "abczdababcd", 11);
  assert_int_equal(qvs_fsst_decoded_len(&t, good, good + sizeof good), 11);
  const uint8_t unknown[] = {0, 0, 0, 0, 3};  /* 3 is past the table (after the 4-code fast path) */
  const uint8_t cut[] = {1, QVS_FSST_ESCAPE}; /* an escape at the end */
  const uint8_t cut4[] = {1, 1, 1, 1, 1, QVS_FSST_ESCAPE};
  const uint8_t unknown4[] = {1, 1, 200, 1, 1}; /* inside the fast path's four */
  const uint8_t *bad[] = {unknown, cut, cut4, unknown4};
  const size_t bad_len[] = {sizeof unknown, sizeof cut, sizeof cut4, sizeof unknown4};
  for (int k = 0; k < 4; k++) {
    assert_null(qvs_fsst_decode(&t, bad[k], bad[k] + bad_len[k], out));
    assert_int_equal(qvs_fsst_decoded_len(&t, bad[k], bad[k] + bad_len[k]), -1);
  }
  /* decode_rows names the first row that fails */
  const uint8_t rows_codes[] = {0, 1, 2, 7, 0};
  uint8_t co[16];
  qv_store_u32le(co, 0), qv_store_u32le(co + 4, 2), qv_store_u32le(co + 8, 4), qv_store_u32le(co + 12, 5);
  int32_t o[4];
  assert_int_equal(qvs_fsst_decode_rows(&t, rows_codes, co, 3, out, o), 1);
  /* tables the format cannot hold */
  stored[25] = 0;
  assert_false(qvs_fsst_load(&t, stored, 3));
  stored[25] = 9;
  assert_false(qvs_fsst_load(&t, stored, 3));
  stored[25] = 1;
  assert_false(qvs_fsst_load(&t, stored, 256));
  assert_true(qvs_fsst_load(&t, stored, 0)); /* no symbols: every byte escaped */
  const uint8_t esc[] = {QVS_FSST_ESCAPE, 0, QVS_FSST_ESCAPE, 0xFF};
  end = qvs_fsst_decode(&t, esc, esc + sizeof esc, out);
  assert_int_equal(end - out, 2);
  assert_int_equal(out[1], 0xFF);
}

/* A take of a few rows of an FSST page (256-byte values, nulls, empty
 * values, a sliced array written) decodes those rows only, and every take
 * and read agrees with what was written. */
static void test_pages(void **state) {
  (void)state;
  char *dir = make_tmpdir(), *path = join2(dir, "ds");
  qv_error err;
  qv_schema s = QV_SCHEMA_INIT;
  add_column(&s, "payload", qv_datatype_simple(QV_TYPE_STRING));
  qv_builder b;
  assert_int_equal(qv_builder_init(&b, &s.fields[0].type, &err), QV_OK);
  for (int i = 0; i < ROWS + 5; i++) {
    char buf[300];
    snprintf(buf, sizeof buf, "%0256d", i * 7919);
    if (i % 13 == 4) assert_int_equal(qv_builder_append_null(&b), QV_OK);
    else if (i % 17 == 5) assert_int_equal(qv_builder_append_cstr(&b, ""), QV_OK); /* row 0 too */
    else assert_int_equal(qv_builder_append_cstr(&b, buf), QV_OK);
  }
  qv_array *whole, *col;
  assert_int_equal(qv_builder_finish(&b, &whole, &err), QV_OK);
  assert_int_equal(qv_array_slice(whole, 5, ROWS, &col, &err), QV_OK); /* an offset into the buffers */
  qv_batch **batches;
  int nb = split_batches(&s, &col, ROWS, 700, &batches);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.page_rows = 1024;
  assert_int_equal(write_batches(path, &s, batches, nb, &o, NULL, &err), QV_OK);
  free_batches(batches, nb);
  qv_dataset *ds;
  qv_fragment_reader *r;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_fragment_open(ds, 0, &r, &err), QV_OK);
  for (int32_t p = 0; p < qv_fragment_num_pages(r, 0); p++) {
    qv_page_info info;
    qv_fragment_page(r, 0, p, &info);
    assert_int_equal(info.encoding, QV_ENCODING_FSST);
    assert_int_equal(info.compression, QV_COMPRESSION_NONE);
  }
  int64_t rows[] = {0, 1, 4, 17, 1023, 1024, 2500, ROWS - 1};
  qv_array *a;
  assert_int_equal(qv_fragment_take(r, 0, rows, 8, &a, &err), QV_OK);
  for (int k = 0; k < 8; k++) assert_arrays_equal(a, k, col, rows[k], 1);
  qv_array_release(a);
  qv_io_counters ctr;
  qv_fragment_counters(r, 0, &ctr);
  /* 8 rows over 3 pages: the tables, and a block of offsets and one or two
   * of codes per row (1 KiB blocks), far from the 130 KB stored */
  print_message("take of 8 rows: %lld bytes read, %lld decoded\n", (long long)ctr.bytes_read,
                (long long)ctr.bytes_decoded);
  assert_true(ctr.bytes_read <= 3 * 2 * 1024 + 8 * 3 * 1024);
  assert_int_equal(qv_fragment_read(r, 0, 0, ROWS, &a, &err), QV_OK);
  assert_arrays_equal(a, 0, col, 0, ROWS);
  qv_array_release(a);
  /* every row, by take, from a fresh reader */
  qv_fragment_reader *r2;
  assert_int_equal(qv_fragment_open(ds, 0, &r2, &err), QV_OK);
  int64_t *all = malloc(ROWS * sizeof *all);
  for (int64_t i = 0; i < ROWS; i++) all[i] = i;
  assert_int_equal(qv_fragment_take(r2, 0, all, ROWS, &a, &err), QV_OK);
  assert_arrays_equal(a, 0, col, 0, ROWS);
  qv_array_release(a);
  free(all);
  qv_fragment_close(r2);
  qv_fragment_close(r);
  qv_dataset_close(ds);
  qv_array_release(col);
  qv_array_release(whole);
  qv_schema_reset(&s);
  rm_rf(dir);
  free(dir);
  free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_codec_round_trip),
      cmocka_unit_test(test_decoder_refuses),
      cmocka_unit_test(test_pages),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
