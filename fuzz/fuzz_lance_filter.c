/* Fuzz target for the Lance filter front end: every input either parses or
 * fails with a "filter: ..." message; whatever parses prints to text that
 * parses again and prints identically (and so does its clone); then the
 * tree is bound against a fixed schema covering every type; a bound tree
 * must keep the binder's contract with compute (tests/expr/bound_check.h),
 * print, and report its columns.  Any violation aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/expr/bound_check.h"
#include "quiver/expr.h"
#include "fuzz_expr_common.h"

static qv_schema schema = QV_SCHEMA_INIT;

static void init_schema(void) {
  static const char *const cols[][2] = {
      {"a", "int32"},
      {"b", "int64"},
      {"c", "int8"},
      {"u", "uint64"},
      {"u8", "uint8"},
      {"f", "float64"},
      {"g", "float32"},
      {"s", "string"},
      {"t", "string"},
      {"x", "binary"},
      {"d", "date32"},
      {"ts", "timestamp[us]"},
      {"tn", "timestamp[ns]"},
      {"tz", "timestamp[ms, UTC]"},
      {"dec", "decimal(10,2)"},
      {"big", "decimal(38,10)"},
      {"flag", "bool"},
      {"l", "list<int32>"},
      {"ls", "list<string>"},
      {"fl", "fixed_size_list<float32, 3>"},
      {"st", "struct<x: int32, y: string, inner: struct<z: float64>>"},
      {"Name", "string"},
      {"tm", "time64[us]"},
      {"du", "duration[ms]"},
      {"nul", "null"},
  };
  for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) fuzz_schema_add(&schema, cols[k][0], cols[k][1]);
}

static void check(bool ok, const char *what, const char *text) {
  if (ok) return;
  fprintf(stderr, "fuzz_lance_filter: %s\ninput: %s\n", what, text);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (schema.n_fields == 0) init_schema();
  char *text = fuzz_text(data, size, 8192);
  if (!text) return 0;

  qv_expr *e = NULL, *e2 = NULL, *c = NULL;
  qv_error err;
  err.message[0] = '\0';
  qv_status st = qv_lance_filter_parse(text, &e, &err);
  if (st != QV_OK) {
    check(e == NULL, "output set on failure", text);
    check(strncmp(err.message, "filter: ", 8) == 0, "error message without the filter: prefix", text);
    check(st == err.code, "status and error code differ", text);
    free(text);
    return 0;
  }
  char *s1 = qv_expr_to_string(e);
  check(s1 != NULL, "print failed", text);
  st = qv_lance_filter_parse(s1, &e2, &err);
  if (st != QV_OK) fprintf(stderr, "printed: %s\nerror: %s\n", s1, err.message);
  check(st == QV_OK, "printed text does not parse", text);
  char *s2 = qv_expr_to_string(e2);
  if (s2 && strcmp(s1, s2) != 0) fprintf(stderr, "first:  %s\nsecond: %s\n", s1, s2);
  check(s2 && strcmp(s1, s2) == 0, "print(parse(print(x))) differs", text);
  c = qv_expr_clone(e);
  char *s3 = c ? qv_expr_to_string(c) : NULL;
  check(s3 && strcmp(s1, s3) == 0, "clone prints differently", text);

  st = qv_expr_bind(e, &schema, &err);
  if (st == QV_OK) {
    const char *why = bc_check(e, &schema);
    if (why) fprintf(stderr, "bound tree breaks the contract: %s\n", why);
    check(why == NULL, "bound tree breaks the binder's contract", text);
    char *b = qv_expr_to_string(e);
    check(b != NULL, "bound print failed", text);
    int32_t cols[64];
    int32_t n = qv_expr_columns(e, cols, 64);
    for (int32_t i = 0; i < n && i < 64; i++) check(cols[i] >= 0 && cols[i] < schema.n_fields, "bad column", text);
    qv_free(b);
  } else {
    check(strncmp(err.message, "filter: ", 8) == 0, "bind error without the filter: prefix", text);
    /* A failed bind leaves a tree that is still safe to print and free. */
    char *b = qv_expr_to_string(e);
    qv_free(b);
  }
  qv_free(s1);
  qv_free(s2);
  qv_free(s3);
  qv_expr_destroy(c);
  qv_expr_destroy(e2);
  qv_expr_destroy(e);
  free(text);
  return 0;
}
