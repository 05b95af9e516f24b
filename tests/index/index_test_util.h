/* Helpers of the index tests: a random dataset with nulls and edge values,
 * and the brute-force answer an index is compared with (the compute
 * layer's evaluator over every row of a fragment). */
#ifndef QUIVER_TESTS_INDEX_INDEX_TEST_UTIL_H
#define QUIVER_TESTS_INDEX_INDEX_TEST_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <ftw.h>

#include "quiver/compute.h"
#include "quiver/index_bitmap.h"

static int rm_entry_(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(p);
}
static inline void rm_rf(const char *path) { nftw(path, rm_entry_, 16, FTW_DEPTH | FTW_PHYS); }

static inline uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static inline void add_col(qv_schema *s, const char *name, const char *type) {
  qv_field f = {(char *)name, QV_DATATYPE_INIT, true};
  assert_int_equal(qv_datatype_parse(type, &f.type, NULL), QV_OK);
  assert_int_equal(qv_schema_add(s, &f, NULL), QV_OK);
  qv_datatype_reset(&f.type);
}

enum { T_I, T_U, T_F, T_S, T_CAT, T_TAGS, T_B, T_F32, T_NCOLS };

/* A short string over a small alphabet (so prefixes and trigrams repeat),
 * with LIKE's wildcards and a two-byte character among the letters. */
static inline int rand_text(uint64_t *rng, char *buf) {
  static const char *const pieces[] = {"a", "b", "c", "d", "ab", "abc", "bcd", "%", "_", "\xc3\xa9", "x", "zz"};
  int len = 0, n = (int)(rng_next(rng) % 7);
  for (int k = 0; k < n; k++) {
    const char *p = pieces[rng_next(rng) % 12];
    memcpy(buf + len, p, strlen(p));
    len += (int)strlen(p);
  }
  buf[len] = '\0';
  return len;
}

/* Appends `rows` random rows (seeded) as one write in the given mode. */
static inline void write_random(const char *path, int64_t rows, uint64_t seed, qv_write_mode mode) {
  qv_schema s = QV_SCHEMA_INIT;
  add_col(&s, "i", "int32");
  add_col(&s, "u", "uint64");
  add_col(&s, "f", "float64");
  add_col(&s, "s", "string");
  add_col(&s, "cat", "string");
  add_col(&s, "tags", "list<string>");
  add_col(&s, "b", "bool");
  add_col(&s, "f32", "float32");
  qv_builder b[T_NCOLS];
  for (int i = 0; i < T_NCOLS; i++) assert_int_equal(qv_builder_init(&b[i], &s.fields[i].type, NULL), QV_OK);
  uint64_t rng = seed;
  static const int32_t iedge[] = {INT32_MIN, INT32_MAX, 0, -1, 1};
  static const uint64_t uedge[] = {0, UINT64_MAX, (uint64_t)INT64_MAX, (uint64_t)INT64_MAX + 1};
  for (int64_t r = 0; r < rows; r++) {
    uint64_t x = rng_next(&rng);
    char buf[64];
    if (x % 11 == 0) qv_builder_append_null(&b[T_I]);
    else if (x % 13 == 0) qv_builder_append_int(&b[T_I], iedge[(x >> 8) % 5]);
    else qv_builder_append_int(&b[T_I], (int64_t)((x >> 16) % 400) - 200);
    x = rng_next(&rng);
    if (x % 17 == 0) qv_builder_append_null(&b[T_U]);
    else if (x % 5 == 0) qv_builder_append_uint(&b[T_U], uedge[(x >> 8) % 4]);
    else qv_builder_append_uint(&b[T_U], (x >> 20) % 1000);
    x = rng_next(&rng);
    static const double fedge[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0};
    if (x % 9 == 0) qv_builder_append_null(&b[T_F]);
    else if (x % 7 == 0) qv_builder_append_double(&b[T_F], fedge[(x >> 8) % 7]);
    else qv_builder_append_double(&b[T_F], (double)((x >> 16) % 2000) / 1000.0 - 1.0);
    x = rng_next(&rng);
    if (x % 10 == 0) qv_builder_append_null(&b[T_S]);
    else {
      int len = rand_text(&rng, buf);
      qv_builder_append_bytes(&b[T_S], buf, len);
    }
    x = rng_next(&rng);
    if (x % 23 == 0) qv_builder_append_null(&b[T_CAT]);
    else {
      snprintf(buf, sizeof buf, "c%d", (int)((x >> 8) % 8));
      qv_builder_append_cstr(&b[T_CAT], buf);
    }
    x = rng_next(&rng);
    if (x % 12 == 0) {
      qv_builder_append_null(&b[T_TAGS]);
    } else {
      int n = (int)((x >> 8) % 4);
      for (int k = 0; k < n; k++) {
        uint64_t y = rng_next(&rng);
        if (y % 9 == 0) qv_builder_append_null(&b[T_TAGS].children[0]);
        else {
          snprintf(buf, sizeof buf, "t%d", (int)((y >> 8) % 6));
          qv_builder_append_cstr(&b[T_TAGS].children[0], buf);
        }
      }
      qv_builder_append_valid(&b[T_TAGS]);
    }
    x = rng_next(&rng);
    if (x % 6 == 0) qv_builder_append_null(&b[T_B]);
    else qv_builder_append_bool(&b[T_B], (x >> 8) & 1);
    x = rng_next(&rng);
    if (x % 8 == 0) qv_builder_append_null(&b[T_F32]);
    else if (x % 9 == 0) qv_builder_append_double(&b[T_F32], NAN);
    else qv_builder_append_double(&b[T_F32], (double)(float)((double)((x >> 16) % 100) / 10.0 - 5.0));
  }
  qv_array *cols[T_NCOLS];
  for (int i = 0; i < T_NCOLS; i++) assert_int_equal(qv_builder_finish(&b[i], &cols[i], NULL), QV_OK);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&s, cols, rows, &batch, NULL), QV_OK);
  qv_batch_reader *rd;
  assert_int_equal(qv_batch_reader_from_batches(&s, &batch, 1, &rd, NULL), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  wo.page_rows = 500;
  wo.max_rows_per_file = 2000;
  wo.mode = mode;
  qv_error err;
  qv_status st = qv_dataset_write(path, rd, &wo, NULL, &err);
  if (st != QV_OK) fail_msg("write: %s", err.message);
  qv_batch_reader_destroy(rd);
  qv_batch_release(batch);
  qv_schema_reset(&s);
}

static inline char *make_dir(void) {
  char tmpl[] = "/tmp/qvindex-XXXXXX";
  assert_non_null(mkdtemp(tmpl));
  size_t n = strlen(tmpl) + 4;
  char *p = malloc(n);
  snprintf(p, n, "%s/ds", tmpl);
  return p;
}

static inline void drop_dir(char *p) {
  char *slash = strrchr(p, '/');
  *slash = '\0';
  rm_rf(p);
  free(p);
}

/* The filter parsed and bound against the dataset's schema. */
static inline qv_expr *bound(const qv_dataset *ds, const char *filter) {
  qv_expr *e = NULL;
  qv_error err;
  if (qv_lance_filter_parse(filter, &e, &err) != QV_OK) fail_msg("%s: %s", filter, err.message);
  if (qv_expr_bind(e, qv_dataset_schema(ds), &err) != QV_OK) fail_msg("%s: %s", filter, err.message);
  return e;
}

/* Rows of fragment f (index into ds) where e is true, by evaluation. */
static inline roaring_bitmap_t *brute(const qv_dataset *ds, int32_t f, const qv_expr *e) {
  qv_fragment_reader *r;
  qv_error err;
  assert_int_equal(qv_fragment_open(ds, f, &r, &err), QV_OK);
  const qv_schema *s = qv_dataset_schema(ds);
  int64_t rows = qv_fragment_num_rows(r);
  qv_array **cols = calloc((size_t)s->n_fields, sizeof *cols);
  for (int32_t c = 0; c < s->n_fields; c++) assert_int_equal(qv_fragment_read(r, c, 0, rows, &cols[c], &err), QV_OK);
  qv_batch *b;
  assert_int_equal(qv_batch_make(s, cols, rows, &b, &err), QV_OK);
  free(cols);
  qv_selection sel = QV_SELECTION_INIT;
  if (qv_eval_filter(e, b, NULL, &sel, &err) != QV_OK) fail_msg("eval: %s", err.message);
  roaring_bitmap_t *out = roaring_bitmap_create();
  for (int64_t i = 0; i < sel.count; i++) roaring_bitmap_add(out, sel.rows[i]);
  qv_selection_reset(&sel);
  qv_batch_release(b);
  qv_fragment_close(r);
  return out;
}

/* Opens the index named `name` of ds. */
static inline qv_index *open_named(const qv_dataset *ds, const char *name) {
  for (int32_t i = 0; i < qv_dataset_num_indices(ds); i++) {
    qv_index_entry e;
    qv_dataset_index(ds, i, &e);
    if (strcmp(e.name, name) != 0) continue;
    qv_index *ix;
    qv_error err;
    if (qv_index_open(ds, i, &ix, &err) != QV_OK) fail_msg("open %s: %s", name, err.message);
    return ix;
  }
  fail_msg("no index %s", name);
  return NULL;
}

static inline void create_index(const char *path, const char *column, qv_index_type type, const char *name,
                                int64_t page_rows) {
  qv_index_options o = QV_INDEX_OPTIONS_INIT;
  o.name = name;
  o.btree_page_rows = page_rows;
  qv_error err;
  if (qv_index_create(path, column, type, &o, NULL, &err) != QV_OK) fail_msg("create %s: %s", column, err.message);
}

#endif
