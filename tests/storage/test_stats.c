/* Page statistics: min/max of every orderable type, null and NaN counts,
 * -0.0 / +0.0, truncated strings that stay bounds, unknown min/max. */
#include <math.h>

#include "storage/storage_test_util.h"

typedef struct one_col {
  char *dir, *path;
  qv_dataset *ds;
  qv_fragment_reader *r;
} one_col;

/* Writes one column (pages of page_rows) and opens it. */
static void write_one(one_col *oc, qv_array *a, int64_t page_rows) {
  qv_error err;
  oc->dir = make_tmpdir();
  oc->path = join2(oc->dir, "ds");
  qv_schema s = QV_SCHEMA_INIT;
  qv_datatype t;
  assert_int_equal(qv_datatype_copy(&a->type, &t), QV_OK);
  add_column(&s, "c", t);
  qv_batch **b;
  int nb = split_batches(&s, &a, a->length, a->length, &b);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.page_rows = page_rows;
  if (write_batches(oc->path, &s, b, nb, &o, NULL, &err) != QV_OK) fail_msg("%s", err.message);
  free_batches(b, nb);
  qv_schema_reset(&s);
  assert_int_equal(qv_dataset_open(oc->path, 0, &oc->ds, &err), QV_OK);
  assert_int_equal(qv_fragment_open(oc->ds, 0, &oc->r, &err), QV_OK);
}

static const qv_page_stats *stats_of(one_col *oc, int32_t page) {
  qv_page_info info;
  qv_fragment_page(oc->r, 0, page, &info);
  assert_non_null(info.stats);
  return info.stats;
}

static void close_one(one_col *oc) {
  qv_fragment_close(oc->r);
  qv_dataset_close(oc->ds);
  rm_rf(oc->dir);
  free(oc->dir);
  free(oc->path);
}

static qv_builder builder_of(qv_datatype t) {
  qv_builder b;
  qv_error err;
  assert_int_equal(qv_builder_init(&b, &t, &err), QV_OK);
  qv_datatype_reset(&t);
  return b;
}

static qv_array *finish(qv_builder *b) {
  qv_array *a;
  qv_error err;
  assert_int_equal(qv_builder_finish(b, &a, &err), QV_OK);
  return a;
}

static void test_integers(void **state) {
  (void)state;
  qv_builder b = builder_of(qv_datatype_simple(QV_TYPE_INT64));
  int64_t v[] = {5, -3, 100, 7, INT64_MIN, INT64_MAX, 0, 1};
  for (int i = 0; i < 8; i++) {
    if (i == 1 || i == 3) assert_int_equal(qv_builder_append_null(&b), QV_OK);
    assert_int_equal(qv_builder_append_int(&b, v[i]), QV_OK);
  }
  qv_array *a = finish(&b); /* 10 rows; page 0 = rows 0..4 */
  one_col oc;
  write_one(&oc, a, 5);
  const qv_page_stats *s = stats_of(&oc, 0); /* 5, null, -3, 100, null */
  assert_int_equal(s->null_count, 2);
  assert_int_equal(s->nan_count, 0);
  assert_false(s->min.is_null);
  assert_int_equal(s->min.type.id, QV_TYPE_INT64);
  assert_int_equal(s->min.v.i, -3);
  assert_int_equal(s->max.v.i, 100);
  s = stats_of(&oc, 1); /* 7, MIN, MAX, 0, 1 */
  assert_int_equal(s->null_count, 0);
  assert_true(s->min.v.i == INT64_MIN);
  assert_true(s->max.v.i == INT64_MAX);
  close_one(&oc);
  qv_array_release(a);

  b = builder_of(qv_datatype_simple(QV_TYPE_UINT64));
  assert_int_equal(qv_builder_append_uint(&b, UINT64_MAX), QV_OK);
  assert_int_equal(qv_builder_append_uint(&b, 1ull << 63), QV_OK);
  assert_int_equal(qv_builder_append_uint(&b, 3), QV_OK);
  a = finish(&b);
  write_one(&oc, a, 100);
  s = stats_of(&oc, 0);
  assert_true(s->min.v.u == 3);
  assert_true(s->max.v.u == UINT64_MAX);
  close_one(&oc);
  qv_array_release(a);

  qv_datatype tt;
  qv_error err;
  assert_int_equal(qv_datatype_timestamp(QV_UNIT_MILLI, "Europe/Paris", &tt, &err), QV_OK);
  b = builder_of(tt);
  assert_int_equal(qv_builder_append_int(&b, 1700000000123), QV_OK);
  assert_int_equal(qv_builder_append_int(&b, -5), QV_OK);
  a = finish(&b);
  write_one(&oc, a, 100);
  s = stats_of(&oc, 0);
  assert_true(qv_datatype_equal(&s->min.type, &a->type));
  assert_int_equal(s->min.v.i, -5);
  assert_int_equal(s->max.v.i, 1700000000123);
  close_one(&oc);
  qv_array_release(a);
}

static void test_floats(void **state) {
  (void)state;
  qv_builder b = builder_of(qv_datatype_simple(QV_TYPE_FLOAT64));
  double v[] = {1.5, NAN, -0.0, 0.0, NAN, -2.5};
  for (int i = 0; i < 6; i++) assert_int_equal(qv_builder_append_double(&b, v[i]), QV_OK);
  assert_int_equal(qv_builder_append_null(&b), QV_OK);
  qv_array *a = finish(&b);
  one_col oc;
  write_one(&oc, a, 100);
  const qv_page_stats *s = stats_of(&oc, 0);
  assert_int_equal(s->null_count, 1);
  assert_int_equal(s->nan_count, 2);
  assert_true(s->min.v.f == -2.5);
  assert_true(s->max.v.f == 1.5);
  close_one(&oc);
  qv_array_release(a);

  /* zeros: -0.0 orders below +0.0; each alone is exact */
  double cases[3][2] = {{0.0, -0.0}, {-0.0, -0.0}, {0.0, 0.0}};
  for (int c = 0; c < 3; c++) {
    b = builder_of(qv_datatype_simple(QV_TYPE_FLOAT32));
    for (int i = 0; i < 2; i++) assert_int_equal(qv_builder_append_double(&b, cases[c][i]), QV_OK);
    a = finish(&b);
    write_one(&oc, a, 100);
    s = stats_of(&oc, 0);
    assert_true(s->min.v.f == 0.0 && s->max.v.f == 0.0);
    assert_int_equal(signbit(s->min.v.f) != 0, c != 2);
    assert_int_equal(signbit(s->max.v.f) != 0, c == 1);
    close_one(&oc);
    qv_array_release(a);
  }

  /* all NaN: no min/max, every value counted */
  b = builder_of(qv_datatype_simple(QV_TYPE_FLOAT64));
  for (int i = 0; i < 4; i++) assert_int_equal(qv_builder_append_double(&b, NAN), QV_OK);
  a = finish(&b);
  write_one(&oc, a, 100);
  s = stats_of(&oc, 0);
  assert_int_equal(s->nan_count, 4);
  assert_true(s->min.is_null && s->max.is_null);
  close_one(&oc);
  qv_array_release(a);

  /* infinities are ordinary values */
  b = builder_of(qv_datatype_simple(QV_TYPE_FLOAT64));
  assert_int_equal(qv_builder_append_double(&b, INFINITY), QV_OK);
  assert_int_equal(qv_builder_append_double(&b, -INFINITY), QV_OK);
  a = finish(&b);
  write_one(&oc, a, 100);
  s = stats_of(&oc, 0);
  assert_true(isinf(s->min.v.f) && s->min.v.f < 0);
  assert_true(isinf(s->max.v.f) && s->max.v.f > 0);
  close_one(&oc);
  qv_array_release(a);
}

static void test_all_null(void **state) {
  (void)state;
  qv_type_id ids[] = {QV_TYPE_INT32, QV_TYPE_STRING, QV_TYPE_NULL, QV_TYPE_BOOL};
  for (int k = 0; k < 4; k++) {
    qv_builder b = builder_of(qv_datatype_simple(ids[k]));
    assert_int_equal(qv_builder_append_nulls(&b, 9), QV_OK);
    qv_array *a = finish(&b);
    one_col oc;
    write_one(&oc, a, 100);
    const qv_page_stats *s = stats_of(&oc, 0);
    assert_int_equal(s->null_count, 9);
    assert_true(s->min.is_null && s->max.is_null);
    qv_array *back;
    qv_error err;
    assert_int_equal(qv_fragment_read(oc.r, 0, 0, 9, &back, &err), QV_OK);
    assert_int_equal(back->null_count, 9);
    qv_array_release(back);
    close_one(&oc);
    qv_array_release(a);
  }
}

static bool valid_utf8(const uint8_t *p, int64_t n) {
  for (int64_t i = 0; i < n;) {
    int len = p[i] < 0x80 ? 1 : (p[i] >> 5) == 6 ? 2 : (p[i] >> 4) == 14 ? 3 : (p[i] >> 3) == 30 ? 4 : 0;
    if (!len || i + len > n) return false;
    for (int k = 1; k < len; k++)
      if ((p[i + k] & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

static int cmp_bytes(const uint8_t *a, int64_t na, const uint8_t *b, int64_t nb) {
  int64_t m = na < nb ? na : nb;
  int c = memcmp(a, b, (size_t)m);
  return c ? c : (na > nb) - (na < nb);
}

static void check_bounds(qv_array *a, const qv_page_stats *s, bool utf8) {
  assert_false(s->min.is_null);
  assert_false(s->max.is_null);
  assert_true(s->min.len <= 68 && s->max.len <= 68);
  if (utf8) {
    assert_true(valid_utf8(s->min.bytes, s->min.len));
    assert_true(valid_utf8(s->max.bytes, s->max.len));
  }
  for (int64_t i = 0; i < a->length; i++) {
    if (!qv_array_is_valid(a, i)) continue;
    int32_t len;
    const uint8_t *p = qv_array_str(a, i, &len);
    assert_true(cmp_bytes(s->min.bytes, s->min.len, p, len) <= 0);
    assert_true(cmp_bytes(s->max.bytes, s->max.len, p, len) >= 0);
  }
}

static void test_strings(void **state) {
  (void)state;
  qv_builder b = builder_of(qv_datatype_simple(QV_TYPE_STRING));
  const char *v[] = {"pear", "apple", "zoo", "zo"};
  for (int i = 0; i < 4; i++) assert_int_equal(qv_builder_append_cstr(&b, v[i]), QV_OK);
  assert_int_equal(qv_builder_append_null(&b), QV_OK);
  qv_array *a = finish(&b);
  one_col oc;
  write_one(&oc, a, 100);
  const qv_page_stats *s = stats_of(&oc, 0);
  assert_int_equal(s->null_count, 1);
  assert_string_equal((const char *)s->min.bytes, "apple");
  assert_string_equal((const char *)s->max.bytes, "zoo");
  close_one(&oc);
  qv_array_release(a);

  /* long strings: truncated, still bounds, still UTF-8 */
  char la[201], lb[201], lc[301];
  memset(la, 'a', 200);
  la[200] = 0;
  memset(lb, 'b', 200);
  lb[200] = 0;
  for (int i = 0; i < 150; i++) memcpy(lc + 2 * i, "\xc3\xa9", 2); /* é x 150 */
  lc[300] = 0;
  b = builder_of(qv_datatype_simple(QV_TYPE_STRING));
  assert_int_equal(qv_builder_append_cstr(&b, la), QV_OK);
  assert_int_equal(qv_builder_append_cstr(&b, lb), QV_OK);
  a = finish(&b);
  write_one(&oc, a, 100);
  s = stats_of(&oc, 0);
  check_bounds(a, s, true);
  assert_int_equal(s->min.len, 64);
  assert_int_equal(s->max.len, 64);
  assert_int_equal(s->max.bytes[63], 'c');
  close_one(&oc);
  qv_array_release(a);

  b = builder_of(qv_datatype_simple(QV_TYPE_STRING));
  assert_int_equal(qv_builder_append_cstr(&b, lc), QV_OK);
  assert_int_equal(qv_builder_append_cstr(&b, "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf"), QV_OK); /* U+10FFFF twice */
  a = finish(&b);
  write_one(&oc, a, 100);
  s = stats_of(&oc, 0);
  check_bounds(a, s, true);
  close_one(&oc);
  qv_array_release(a);

  /* binary: long 0xFF runs cannot be bumped at the cut; the max carries */
  uint8_t bin[100];
  memset(bin, 0xFF, sizeof bin);
  bin[10] = 0x41;
  b = builder_of(qv_datatype_simple(QV_TYPE_BINARY));
  assert_int_equal(qv_builder_append_bytes(&b, bin, 100), QV_OK);
  assert_int_equal(qv_builder_append_bytes(&b, "\x00", 1), QV_OK);
  a = finish(&b);
  write_one(&oc, a, 100);
  s = stats_of(&oc, 0);
  check_bounds(a, s, false);
  assert_int_equal(s->max.len, 11);
  assert_int_equal(s->max.bytes[10], 0x42);
  close_one(&oc);
  qv_array_release(a);

  /* nothing can bound a long run of 0xFF: min/max unknown */
  b = builder_of(qv_datatype_simple(QV_TYPE_BINARY));
  memset(bin, 0xFF, sizeof bin);
  assert_int_equal(qv_builder_append_bytes(&b, bin, 100), QV_OK);
  a = finish(&b);
  write_one(&oc, a, 100);
  s = stats_of(&oc, 0);
  assert_true(s->max.is_null);
  close_one(&oc);
  qv_array_release(a);
}

static void test_bool_decimal(void **state) {
  (void)state;
  qv_builder b = builder_of(qv_datatype_simple(QV_TYPE_BOOL));
  assert_int_equal(qv_builder_append_bool(&b, true), QV_OK);
  assert_int_equal(qv_builder_append_bool(&b, true), QV_OK);
  assert_int_equal(qv_builder_append_bool(&b, false), QV_OK);
  qv_array *a = finish(&b);
  one_col oc;
  write_one(&oc, a, 2);
  const qv_page_stats *s = stats_of(&oc, 0);
  assert_true(s->min.v.b && s->max.v.b);
  s = stats_of(&oc, 1);
  assert_true(!s->min.v.b && !s->max.v.b);
  close_one(&oc);
  qv_array_release(a);

  qv_datatype dt;
  qv_error err;
  assert_int_equal(qv_datatype_decimal(30, 2, &dt, &err), QV_OK);
  b = builder_of(dt);
  assert_int_equal(qv_builder_append_decimal(&b, 5, 0), QV_OK);
  assert_int_equal(qv_builder_append_decimal(&b, UINT64_MAX - 4, -1), QV_OK); /* -5 */
  assert_int_equal(qv_builder_append_decimal(&b, 0, 1), QV_OK);               /* 2^64 */
  a = finish(&b);
  write_one(&oc, a, 100);
  s = stats_of(&oc, 0);
  assert_int_equal(s->min.v.dec.hi, -1);
  assert_true(s->min.v.dec.lo == UINT64_MAX - 4);
  assert_int_equal(s->max.v.dec.hi, 1);
  assert_true(s->max.v.dec.lo == 0);
  close_one(&oc);
  qv_array_release(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_integers), cmocka_unit_test(test_floats),       cmocka_unit_test(test_all_null),
      cmocka_unit_test(test_strings),  cmocka_unit_test(test_bool_decimal),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
