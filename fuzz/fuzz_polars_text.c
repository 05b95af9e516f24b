/* Fuzz target for the Polars text front end: every input either parses or
 * fails with an "expression: ... at column N" message and no tree; a tree
 * carries Polars semantics on every node, prints, clones to a tree that
 * prints the same, and survives binding against a fixed schema (the
 * binder may refuse the Polars-only operators; it must not crash).  Any
 * violation aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/expr.h"
#include "fuzz_expr_common.h"

static qv_schema schema = QV_SCHEMA_INIT;

static void init_schema(void) {
  static const char *const cols[][2] = {
      {"a", "int32"},           {"b", "int64"},         {"c", "int8"},           {"u", "uint64"},
      {"f", "float64"},         {"g", "float32"},       {"s", "string"},         {"t", "string"},
      {"x", "binary"},          {"d", "date32"},        {"ts", "timestamp[us]"}, {"tz", "timestamp[ms, UTC]"},
      {"dec", "decimal(10,2)"}, {"flag", "bool"},       {"l", "list<int32>"},    {"st", "struct<x: int32, y: string>"},
      {"tm", "time64[us]"},     {"du", "duration[ms]"},
  };
  for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) fuzz_schema_add(&schema, cols[k][0], cols[k][1]);
}

static void check(bool ok, const char *what, const char *text) {
  if (ok) return;
  fprintf(stderr, "fuzz_polars_text: %s\ninput: %s\n", what, text);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (schema.n_fields == 0) init_schema();
  char *text = fuzz_text(data, size, 8192);
  if (!text) return 0;
  qv_expr *e = NULL;
  qv_error err;
  err.message[0] = '\0';
  qv_status st = qv_polars_parse(text, &e, &err);
  if (st != QV_OK) {
    check(e == NULL, "output set on failure", text);
    check(st == err.code, "status and error code differ", text);
    check(strncmp(err.message, "expression: ", 12) == 0, "error message without the expression: prefix", text);
    check(st != QV_ERR_PARSE || strstr(err.message, " at column ") != NULL, "parse error without a column", text);
    free(text);
    return 0;
  }
  check(fuzz_polars_sem(e), "a node without Polars semantics", text);
  char *s1 = qv_expr_to_string(e);
  check(s1 != NULL, "print failed", text);
  qv_expr *c = qv_expr_clone(e);
  char *s2 = c ? qv_expr_to_string(c) : NULL;
  check(s2 && strcmp(s1, s2) == 0, "clone prints differently", text);
  if (qv_expr_bind(c, &schema, &err) == QV_OK) {
    char *b = qv_expr_to_string(c);
    check(b != NULL, "bound print failed", text);
    qv_free(b);
  }
  qv_free(s1);
  qv_free(s2);
  qv_expr_destroy(c);
  qv_expr_destroy(e);
  free(text);
  return 0;
}
