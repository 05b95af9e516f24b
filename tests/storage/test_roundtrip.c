/* Every column type, with nulls, written and read back exactly: whole
 * fragments, ranges that cross pages, and takes of scattered rows, under
 * every compression mode, with and without dictionaries. */
#include "storage/storage_test_util.h"

/* Appends one random value (or null) of builder b's type. */
static void append_random(qv_builder *b, uint64_t *rng, int null_pct, int depth) {
  uint64_t r = rng_next(rng);
  qv_type_id id = b->type.id;
  if (id == QV_TYPE_NULL || (int)(r % 100) < null_pct) {
    assert_int_equal(qv_builder_append_null(b), QV_OK);
    return;
  }
  uint64_t v = rng_next(rng);
  switch (id) {
    case QV_TYPE_BOOL: assert_int_equal(qv_builder_append_bool(b, v & 1), QV_OK); break;
    case QV_TYPE_INT8: assert_int_equal(qv_builder_append_int(b, (int8_t)v), QV_OK); break;
    case QV_TYPE_INT16: assert_int_equal(qv_builder_append_int(b, (int16_t)v), QV_OK); break;
    case QV_TYPE_INT32: assert_int_equal(qv_builder_append_int(b, (int32_t)v), QV_OK); break;
    case QV_TYPE_INT64: assert_int_equal(qv_builder_append_int(b, (int64_t)(v % 2 ? v : v % 1000)), QV_OK); break;
    case QV_TYPE_UINT8: assert_int_equal(qv_builder_append_uint(b, (uint8_t)v), QV_OK); break;
    case QV_TYPE_UINT16: assert_int_equal(qv_builder_append_uint(b, (uint16_t)v), QV_OK); break;
    case QV_TYPE_UINT32: assert_int_equal(qv_builder_append_uint(b, (uint32_t)v), QV_OK); break;
    case QV_TYPE_UINT64: assert_int_equal(qv_builder_append_uint(b, v), QV_OK); break;
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64: {
      double d = (double)(int64_t)(v % 2000000) / 7.0 - 100000.0;
      if (v % 97 == 0) d = 0.0 / 0.0;
      if (v % 89 == 0) d = -0.0;
      if (v % 83 == 0) d = 1.0 / 0.0;
      assert_int_equal(qv_builder_append_double(b, d), QV_OK);
      break;
    }
    case QV_TYPE_DECIMAL128: assert_int_equal(qv_builder_append_decimal(b, v, (int64_t)(r % 5) - 2), QV_OK); break;
    case QV_TYPE_STRING: {
      static const char *words[] = {"", "a", "alpha", "béta", "γάμμα", "zeta zeta zeta", "日本語テキスト", "\x7f"};
      char buf[160];
      int len = snprintf(buf, sizeof buf, "%s-%llu", words[v % 8], (unsigned long long)(v % 50));
      if (v % 11 == 0) len = 0;
      assert_int_equal(qv_builder_append_bytes(b, buf, len), QV_OK);
      break;
    }
    case QV_TYPE_BINARY: {
      uint8_t buf[40];
      int len = (int)(v % 40);
      for (int k = 0; k < len; k++) buf[k] = (uint8_t)rng_next(rng);
      assert_int_equal(qv_builder_append_bytes(b, buf, len), QV_OK);
      break;
    }
    case QV_TYPE_DATE32: assert_int_equal(qv_builder_append_int(b, (int64_t)(v % 40000) - 10000), QV_OK); break;
    case QV_TYPE_TIMESTAMP:
    case QV_TYPE_TIME64:
    case QV_TYPE_DURATION: assert_int_equal(qv_builder_append_int(b, (int64_t)(v % 86400000000000ull)), QV_OK); break;
    case QV_TYPE_LIST: {
      int n = (int)(v % 5);
      for (int k = 0; k < n; k++) append_random(&b->children[0], rng, null_pct, depth + 1);
      assert_int_equal(qv_builder_append_valid(b), QV_OK);
      break;
    }
    case QV_TYPE_FIXED_SIZE_LIST:
      for (int k = 0; k < b->type.list_size; k++) append_random(&b->children[0], rng, null_pct, depth + 1);
      assert_int_equal(qv_builder_append_valid(b), QV_OK);
      break;
    case QV_TYPE_STRUCT:
      for (int32_t k = 0; k < b->n_children; k++) append_random(&b->children[k], rng, null_pct, depth + 1);
      assert_int_equal(qv_builder_append_valid(b), QV_OK);
      break;
    default: fail_msg("unexpected type %d", id);
  }
}

static qv_array *random_array(const qv_datatype *t, int64_t n, uint64_t seed, int null_pct) {
  qv_builder b;
  qv_error err;
  assert_int_equal(qv_builder_init(&b, t, &err), QV_OK);
  uint64_t rng = seed;
  for (int64_t i = 0; i < n; i++) append_random(&b, &rng, null_pct, 0);
  qv_array *a = NULL;
  assert_int_equal(qv_builder_finish(&b, &a, &err), QV_OK);
  return a;
}

static qv_datatype parse_type(const char *text) {
  qv_datatype t;
  qv_error err;
  if (qv_datatype_parse(text, &t, &err) != QV_OK) fail_msg("cannot parse type %s: %s", text, err.message);
  return t;
}

static const char *const all_types[] = {
    "bool",       "int8",         "int16",   "int32",         "int64",  "uint8",  "uint16", "uint32",
    "uint64",     "float32",      "float64", "decimal(20,3)", "string", "binary", "date32", "timestamp[ms, UTC]",
    "time64[ns]", "duration[us]", "null",
};

/* The full schema: every flat type plus nested ones built by hand. */
static void build_schema(qv_schema *s) {
  qv_error err;
  *s = (qv_schema)QV_SCHEMA_INIT;
  for (size_t i = 0; i < sizeof all_types / sizeof all_types[0]; i++) {
    char name[32];
    snprintf(name, sizeof name, "c%zu", i);
    qv_field f = make_field(name, parse_type(all_types[i]));
    assert_int_equal(qv_schema_add(s, &f, &err), QV_OK);
    qv_field_reset(&f);
  }
  qv_datatype item = qv_datatype_simple(QV_TYPE_INT32), lt;
  assert_int_equal(qv_datatype_list(&item, &lt, &err), QV_OK);
  qv_field f = make_field("list_i32", lt);
  assert_int_equal(qv_schema_add(s, &f, &err), QV_OK);
  qv_field_reset(&f);

  item = qv_datatype_simple(QV_TYPE_STRING);
  assert_int_equal(qv_datatype_list(&item, &lt, &err), QV_OK);
  f = make_field("list_str", lt);
  assert_int_equal(qv_schema_add(s, &f, &err), QV_OK);
  qv_field_reset(&f);

  qv_field sf[3] = {make_field("a", qv_datatype_simple(QV_TYPE_INT64)),
                    make_field("b", qv_datatype_simple(QV_TYPE_STRING)),
                    make_field("z", qv_datatype_simple(QV_TYPE_NULL))};
  qv_datatype st;
  assert_int_equal(qv_datatype_struct(sf, 3, &st, &err), QV_OK);
  f = make_field("struct", st);
  assert_int_equal(qv_schema_add(s, &f, &err), QV_OK);
  qv_field_reset(&f);

  item = qv_datatype_simple(QV_TYPE_FLOAT32);
  assert_int_equal(qv_datatype_fixed_size_list(&item, 3, &lt, &err), QV_OK);
  f = make_field("fsl", lt);
  assert_int_equal(qv_schema_add(s, &f, &err), QV_OK);
  qv_field_reset(&f);

  /* list<struct<x: int16, y: list<bool>, w: fixed_size_list<string, 2>>> */
  qv_datatype bl = qv_datatype_simple(QV_TYPE_BOOL), ylist, sstr = qv_datatype_simple(QV_TYPE_STRING), wfsl;
  assert_int_equal(qv_datatype_list(&bl, &ylist, &err), QV_OK);
  assert_int_equal(qv_datatype_fixed_size_list(&sstr, 2, &wfsl, &err), QV_OK);
  qv_field inner[3] = {make_field("x", qv_datatype_simple(QV_TYPE_INT16)), make_field("y", ylist),
                       make_field("w", wfsl)};
  qv_datatype ist, deep;
  assert_int_equal(qv_datatype_struct(inner, 3, &ist, &err), QV_OK);
  assert_int_equal(qv_datatype_list(&ist, &deep, &err), QV_OK);
  f = make_field("deep", deep);
  assert_int_equal(qv_schema_add(s, &f, &err), QV_OK);
  qv_field_reset(&f);
}

typedef struct fixture {
  char *dir, *ds;
  qv_schema schema;
  qv_array **cols;
  int64_t rows;
} fixture;

static void make_fixture(fixture *fx, int64_t rows, uint64_t seed, int null_pct) {
  fx->dir = make_tmpdir();
  fx->ds = join2(fx->dir, "ds");
  build_schema(&fx->schema);
  fx->rows = rows;
  fx->cols = calloc((size_t)fx->schema.n_fields, sizeof *fx->cols);
  for (int32_t i = 0; i < fx->schema.n_fields; i++)
    fx->cols[i] = random_array(&fx->schema.fields[i].type, rows, seed + (uint64_t)i * 7919, null_pct);
}

static void free_fixture(fixture *fx) {
  for (int32_t i = 0; i < fx->schema.n_fields; i++) qv_array_release(fx->cols[i]);
  free(fx->cols);
  qv_schema_reset(&fx->schema);
  rm_rf(fx->dir);
  free(fx->dir);
  free(fx->ds);
}

/* Reads the dataset back every way and compares with the source columns. */
static void verify_dataset(const fixture *fx, int64_t expect_fragments) {
  qv_error err;
  qv_dataset *ds = NULL;
  if (qv_dataset_open(fx->ds, 0, &ds, &err) != QV_OK) fail_msg("open: %s", err.message);
  assert_true(qv_schema_equal(qv_dataset_schema(ds), &fx->schema));
  assert_int_equal(qv_dataset_count_rows(ds), fx->rows);
  if (expect_fragments >= 0) assert_int_equal(qv_dataset_num_fragments(ds), expect_fragments);
  int64_t base = 0;
  uint64_t rng = 42;
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
    qv_fragment_reader *r = NULL;
    if (qv_fragment_open(ds, f, &r, &err) != QV_OK) fail_msg("fragment %d: %s", f, err.message);
    int64_t n = qv_fragment_num_rows(r);
    assert_null(qv_fragment_deleted(r));
    for (int32_t c = 0; c < fx->schema.n_fields; c++) {
      qv_array *a = NULL;
      /* whole fragment */
      if (qv_fragment_read(r, c, 0, n, &a, &err) != QV_OK) fail_msg("read %d: %s", c, err.message);
      assert_int_equal(a->length, n);
      assert_arrays_equal(a, 0, fx->cols[c], base, n);
      qv_array_release(a);
      /* a range crossing page boundaries */
      int64_t s = n / 3, len = n / 2;
      assert_int_equal(qv_fragment_read(r, c, s, len, &a, &err), QV_OK);
      assert_arrays_equal(a, 0, fx->cols[c], base + s, len);
      qv_array_release(a);
      /* scattered rows, sorted, with a duplicate */
      int64_t rows[40];
      int64_t k = 0;
      for (int64_t i = 0; i < 39; i++) rows[k++] = (int64_t)(rng_next(&rng) % (uint64_t)n);
      rows[k++] = rows[0];
      for (int64_t i = 1; i < k; i++)
        for (int64_t j = i; j > 0 && rows[j] < rows[j - 1]; j--) {
          int64_t t = rows[j];
          rows[j] = rows[j - 1];
          rows[j - 1] = t;
        }
      /* a fresh reader so that the take does not hit the cached page */
      qv_fragment_reader *r2 = NULL;
      assert_int_equal(qv_fragment_open(ds, f, &r2, &err), QV_OK);
      if (qv_fragment_take(r2, c, rows, k, &a, &err) != QV_OK) fail_msg("take %d: %s", c, err.message);
      assert_int_equal(a->length, k);
      for (int64_t i = 0; i < k; i++) assert_arrays_equal(a, i, fx->cols[c], base + rows[i], 1);
      qv_array_release(a);
      /* the same rows as a selection relative to the first one: from a
       * page start the selection is used in place, else it is rebased */
      uint32_t sel[40];
      for (int64_t i = 0; i < k; i++) sel[i] = (uint32_t)(rows[i] - rows[0]);
      if (qv_fragment_take_selection(r2, c, rows[0], sel, k, &a, &err) != QV_OK)
        fail_msg("take selection %d: %s", c, err.message);
      assert_int_equal(a->length, k);
      for (int64_t i = 0; i < k; i++) assert_arrays_equal(a, i, fx->cols[c], base + rows[i], 1);
      qv_array_release(a);
      for (int64_t i = 0; i < k; i++) sel[i] = (uint32_t)rows[i];
      if (qv_fragment_take_selection(r2, c, 0, sel, k, &a, &err) != QV_OK)
        fail_msg("take selection %d: %s", c, err.message);
      for (int64_t i = 0; i < k; i++) assert_arrays_equal(a, i, fx->cols[c], base + rows[i], 1);
      qv_array_release(a);
      qv_fragment_close(r2);
      /* the same take after a read (cached page path) */
      assert_int_equal(qv_fragment_take(r, c, rows, k, &a, &err), QV_OK);
      for (int64_t i = 0; i < k; i++) assert_arrays_equal(a, i, fx->cols[c], base + rows[i], 1);
      qv_array_release(a);
      /* empty read and take */
      assert_int_equal(qv_fragment_read(r, c, 5, 0, &a, &err), QV_OK);
      assert_int_equal(a->length, 0);
      qv_array_release(a);
      assert_int_equal(qv_fragment_take(r, c, rows, 0, &a, &err), QV_OK);
      assert_int_equal(a->length, 0);
      qv_array_release(a);
    }
    base += n;
    qv_fragment_close(r);
  }
  assert_int_equal(base, fx->rows);
  qv_dataset_close(ds);
}

static void roundtrip(qv_compression comp, bool dictionary, int null_pct) {
  fixture fx;
  make_fixture(&fx, 5000, 1234 + (uint64_t)comp, null_pct);
  qv_batch **batches;
  int nb = split_batches(&fx.schema, fx.cols, fx.rows, 777, &batches);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.page_rows = 512;
  o.max_rows_per_file = 2000;
  o.compression = comp;
  o.dictionary = dictionary;
  qv_error err;
  int64_t version = 0;
  if (write_batches(fx.ds, &fx.schema, batches, nb, &o, &version, &err) != QV_OK) fail_msg("write: %s", err.message);
  assert_int_equal(version, 1);
  verify_dataset(&fx, 3);
  free_batches(batches, nb);
  free_fixture(&fx);
}

static void test_auto(void **state) {
  (void)state;
  roundtrip(QV_COMPRESSION_AUTO, true, 15);
}
static void test_none(void **state) {
  (void)state;
  roundtrip(QV_COMPRESSION_NONE, true, 15);
}
static void test_zstd(void **state) {
  (void)state;
  roundtrip(QV_COMPRESSION_ZSTD, true, 15);
}
static void test_lz4(void **state) {
  (void)state;
  roundtrip(QV_COMPRESSION_LZ4, false, 15);
}
static void test_no_nulls(void **state) {
  (void)state;
  roundtrip(QV_COMPRESSION_NONE, true, 0);
}
static void test_mostly_nulls(void **state) {
  (void)state;
  roundtrip(QV_COMPRESSION_NONE, true, 95);
}

/* One big batch, one fragment, a single page per column; then batches of
 * one row each (every page spans many batches). */
static void test_batch_shapes(void **state) {
  (void)state;
  fixture fx;
  make_fixture(&fx, 300, 99, 20);
  qv_batch **batches;
  int nb = split_batches(&fx.schema, fx.cols, fx.rows, 300, &batches);
  qv_error err;
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  assert_int_equal(write_batches(fx.ds, &fx.schema, batches, nb, &o, NULL, &err), QV_OK);
  verify_dataset(&fx, 1);
  free_batches(batches, nb);
  rm_rf(fx.ds);
  nb = split_batches(&fx.schema, fx.cols, fx.rows, 1, &batches);
  o.page_rows = 64;
  o.max_rows_per_file = 100;
  assert_int_equal(write_batches(fx.ds, &fx.schema, batches, nb, &o, NULL, &err), QV_OK);
  verify_dataset(&fx, 3);
  free_batches(batches, nb);
  free_fixture(&fx);
}

/* A dataset written from zero rows has a version and no fragments. */
static void test_empty(void **state) {
  (void)state;
  fixture fx;
  make_fixture(&fx, 0, 1, 0);
  qv_error err;
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  int64_t v = 0;
  assert_int_equal(write_batches(fx.ds, &fx.schema, NULL, 0, &o, &v, &err), QV_OK);
  assert_int_equal(v, 1);
  verify_dataset(&fx, 0);
  free_fixture(&fx);
}

static void test_bad_arguments(void **state) {
  (void)state;
  fixture fx;
  make_fixture(&fx, 10, 1, 0);
  qv_batch **batches;
  int nb = split_batches(&fx.schema, fx.cols, fx.rows, 10, &batches);
  qv_error err;
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.page_rows = 0;
  assert_int_equal(write_batches(fx.ds, &fx.schema, batches, nb, &o, NULL, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "page_rows"));
  o.page_rows = 100;
  o.compression = (qv_compression)9;
  assert_int_equal(write_batches(fx.ds, &fx.schema, batches, nb, &o, NULL, &err), QV_ERR_INVALID);
  o.compression = QV_COMPRESSION_AUTO;
  assert_int_equal(write_batches(fx.ds, &fx.schema, batches, nb, &o, NULL, &err), QV_OK);
  qv_dataset *ds = NULL;
  assert_int_equal(qv_dataset_open(fx.ds, 0, &ds, &err), QV_OK);
  qv_fragment_reader *r = NULL;
  assert_int_equal(qv_fragment_open(ds, 1, &r, &err), QV_ERR_INVALID);
  assert_int_equal(qv_fragment_open(ds, 0, &r, &err), QV_OK);
  qv_array *a = NULL;
  assert_int_equal(qv_fragment_read(r, 0, 5, 6, &a, &err), QV_ERR_INVALID);
  assert_int_equal(qv_fragment_read(r, 99, 0, 1, &a, &err), QV_ERR_INVALID);
  int64_t rows[2] = {5, 3};
  assert_int_equal(qv_fragment_take(r, 0, rows, 2, &a, &err), QV_ERR_INVALID);
  rows[0] = 10;
  assert_int_equal(qv_fragment_take(r, 0, rows, 1, &a, &err), QV_ERR_INVALID);
  /* a selection: out of order, past the end, or from a negative base */
  uint32_t sel[3] = {1, 4, 2};
  assert_int_equal(qv_fragment_take_selection(r, 0, 3, sel, 3, &a, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "take: row 5 (position 2) is out of order or outside the fragment's 10 rows"));
  sel[2] = 7;
  assert_int_equal(qv_fragment_take_selection(r, 0, 3, sel, 3, &a, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "take: row 10 (position 2)"));
  assert_int_equal(qv_fragment_take_selection(r, 0, -2, sel, 1, &a, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "take: row -1 (position 0)"));
  assert_int_equal(qv_fragment_take_selection(r, 99, 0, sel, 1, &a, &err), QV_ERR_INVALID);
  assert_null(a);
  sel[2] = 6;
  assert_int_equal(qv_fragment_take_selection(r, 0, 3, sel, 3, &a, &err), QV_OK);
  assert_int_equal(a->length, 3);
  qv_array_release(a);
  qv_fragment_close(r);
  qv_dataset_close(ds);
  assert_int_equal(qv_dataset_open(fx.dir, 0, &ds, &err), QV_ERR_NOT_FOUND);
  assert_int_equal(qv_dataset_open(fx.ds, 7, &ds, &err), QV_ERR_NOT_FOUND);
  free_batches(batches, nb);
  free_fixture(&fx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_auto),         cmocka_unit_test(test_none),     cmocka_unit_test(test_zstd),
      cmocka_unit_test(test_lz4),          cmocka_unit_test(test_no_nulls), cmocka_unit_test(test_mostly_nulls),
      cmocka_unit_test(test_batch_shapes), cmocka_unit_test(test_empty),    cmocka_unit_test(test_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
