/* Helpers of the exec tests: batches from text, plans run to text. */
#ifndef QUIVER_TESTS_EXEC_EXEC_TEST_H
#define QUIVER_TESTS_EXEC_EXEC_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/quiver.h"

/* A schema from "name:type,name:type". */
static inline void test_schema(const char *spec, qv_schema *s) {
  *s = (qv_schema)QV_SCHEMA_INIT;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", spec);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *colon = strchr(tok, ':');
    assert_non_null(colon);
    *colon = '\0';
    qv_field f = {tok, QV_DATATYPE_INIT, true};
    assert_int_equal(qv_datatype_parse(colon + 1, &f.type, NULL), QV_OK);
    assert_int_equal(qv_schema_add(s, &f, NULL), QV_OK);
    qv_datatype_reset(&f.type);
  }
}

/* A batch of the schema from rows "v|v|v;v|v|v" ("null" is null, "nan" NaN). */
static inline qv_batch *test_batch(const qv_schema *s, const char *rows) {
  int32_t nc = s->n_fields;
  qv_builder b[16];
  for (int32_t c = 0; c < nc; c++) assert_int_equal(qv_builder_init(&b[c], &s->fields[c].type, NULL), QV_OK);
  char *copy = strdup(rows);
  int64_t n = 0;
  for (char *save = NULL, *row = *copy ? strtok_r(copy, ";", &save) : NULL; row; row = strtok_r(NULL, ";", &save)) {
    n++;
    char *p = row;
    for (int32_t c = 0; c < nc; c++) {
      char *end = strchr(p, '|');
      if (end) *end = '\0';
      qv_type_id id = s->fields[c].type.id;
      if (strcmp(p, "null") == 0) assert_int_equal(qv_builder_append_null(&b[c]), QV_OK);
      else if (id == QV_TYPE_STRING) assert_int_equal(qv_builder_append_cstr(&b[c], p), QV_OK);
      else if (id == QV_TYPE_BOOL) assert_int_equal(qv_builder_append_bool(&b[c], strcmp(p, "true") == 0), QV_OK);
      else if (qv_type_is_floating(id))
        assert_int_equal(qv_builder_append_double(&b[c], strcmp(p, "nan") == 0 ? NAN : strtod(p, NULL)), QV_OK);
      else assert_int_equal(qv_builder_append_int(&b[c], strtoll(p, NULL, 10)), QV_OK);
      p = end ? end + 1 : p + strlen(p);
    }
  }
  free(copy);
  qv_array *cols[16];
  for (int32_t c = 0; c < nc; c++) assert_int_equal(qv_builder_finish(&b[c], &cols[c], NULL), QV_OK);
  qv_batch *out;
  assert_int_equal(qv_batch_make(s, cols, n, &out, NULL), QV_OK);
  return out;
}

/* A DataSourceExec over batches given as row texts (NULL-terminated list). */
static inline qv_exec_op *test_source(qv_exec_ctx *ctx, const char *schema, ...) {
  qv_schema s;
  test_schema(schema, &s);
  qv_batch *bs[32];
  int32_t n = 0;
  va_list ap;
  va_start(ap, schema);
  for (const char *rows; (rows = va_arg(ap, const char *)) != NULL;) bs[n++] = test_batch(&s, rows);
  va_end(ap);
  qv_exec_op *op;
  qv_error err;
  qv_status st = qv_exec_batches(ctx, &s, bs, n, &op, &err);
  if (st != QV_OK) fprintf(stderr, "%s\n", err.message);
  assert_int_equal(st, QV_OK);
  for (int32_t i = 0; i < n; i++) qv_batch_release(bs[i]);
  qv_schema_reset(&s);
  return op;
}

static inline qv_exec_ctx *test_ctx(int threads, int64_t limit, int64_t batch_size) {
  qv_exec_options o = QV_EXEC_OPTIONS_INIT;
  o.threads = threads;
  o.memory_limit = limit;
  if (batch_size > 0) o.batch_size = batch_size;
  qv_exec_ctx *c;
  assert_int_equal(qv_exec_ctx_create(&o, &c, NULL), QV_OK);
  return c;
}

/* Runs op to the end (destroying it) and returns its rows as
 * "v|v\n..." (caller frees); *batches (nullable) gets the batch count. */
static inline char *test_run(qv_exec_op *op, int *batches) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  int nb = 0;
  for (;;) {
    qv_batch *b;
    qv_error err;
    qv_status st = qv_exec_next(op, &b, &err);
    if (st != QV_OK) fprintf(stderr, "next: %s\n", err.message);
    assert_int_equal(st, QV_OK);
    if (!b) break;
    nb++;
    assert_true(b->num_rows > 0);
    for (int64_t r = 0; r < b->num_rows; r++) {
      for (int32_t c = 0; c < b->schema.n_fields; c++) {
        char cell[256];
        qv_array_format_value(b->columns[c], r, cell, sizeof cell);
        fprintf(f, "%s%s", c ? "|" : "", cell);
      }
      fputc('\n', f);
    }
    qv_batch_release(b);
  }
  fclose(f);
  qv_exec_destroy(op);
  if (batches) *batches = nb;
  return text;
}

static int test_cmp_lines(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The lines of text sorted (text is freed; caller frees the result). */
static inline char *test_sorted(char *text) {
  char *lines[4096];
  int n = 0;
  for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    assert_true(n < 4096);
    lines[n++] = l;
  }
  qsort(lines, (size_t)n, sizeof *lines, test_cmp_lines);
  size_t total = 1;
  for (int i = 0; i < n; i++) total += strlen(lines[i]) + 1;
  char *out = malloc(total), *p = out;
  for (int i = 0; i < n; i++) p += sprintf(p, "%s\n", lines[i]);
  *p = '\0';
  free(text);
  return out;
}

/* An unbound expression from Lance SQL filter text. */
static inline qv_expr *test_expr(const char *text) {
  qv_expr *e;
  qv_error err;
  qv_status st = qv_lance_filter_parse(text, &e, &err);
  if (st != QV_OK) fprintf(stderr, "%s\n", err.message);
  assert_int_equal(st, QV_OK);
  return e;
}

#define assert_rows(op, expected)          \
  do {                                     \
    char *got_ = test_run((op), NULL);     \
    assert_string_equal(got_, (expected)); \
    free(got_);                            \
  } while (0)

#define assert_rows_sorted(op, expected)            \
  do {                                              \
    char *got_ = test_sorted(test_run((op), NULL)); \
    assert_string_equal(got_, (expected));          \
    free(got_);                                     \
  } while (0)

#endif
