/* Fuzz target for the BigQuery side: the first byte picks the input.
 * Even: the rest is a BigQuery table schema JSON; it either reads into a
 * schema or fails with a "bigquery schema: " message and an empty schema.
 * Odd: the rest is a Polars expression; when it parses it is translated
 * against a fixed schema and schema-less, and explained: the translation
 * either succeeds (a restriction no longer than 1 MB, exact only when
 * nothing declined) or fails with a "bigquery: " name error, the same for
 * explain.  Any violation aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/expr.h"
#include "quiver/pushdown.h"
#include "fuzz_expr_common.h"

static qv_schema schema = QV_SCHEMA_INIT;

static void check(bool ok, const char *what, const char *text) {
  if (ok) return;
  fprintf(stderr, "fuzz_bigquery: %s\ninput: %s\n", what, text);
  abort();
}

static void translate(const qv_expr *e, const qv_schema *s, const char *text) {
  qv_bigquery_filter *f = NULL;
  qv_error err;
  err.message[0] = '\0';
  qv_status st = qv_to_bigquery_filter(e, s, &f, &err);
  char *why = NULL;
  qv_error err2;
  err2.message[0] = '\0';
  qv_status st2 = qv_bigquery_filter_explain(e, s, &why, &err2);
  check(st == st2, "translate and explain disagree", text);
  if (st != QV_OK) {
    check(f == NULL && why == NULL, "output set on failure", text);
    check(st == QV_ERR_NOMEM || strncmp(err.message, "bigquery: ", 10) == 0, "error without the bigquery: prefix",
          text);
    return;
  }
  check(why != NULL, "no explanation", text);
  if (f) {
    check(strlen(f->sql) <= 1000000, "restriction over 1 MB", text);
    check(f->exact == (strcmp(why, "nothing declined\n") == 0), "exact but something declined", text);
  }
  qv_free(why);
  qv_bigquery_filter_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (schema.n_fields == 0) {
    static const char *const cols[][2] = {
        {"a", "int64"},   {"b", "int64"},  {"f", "float64"},        {"s", "string"},
        {"flag", "bool"}, {"d", "date32"}, {"ts", "timestamp[us]"}, {"tz", "timestamp[us, UTC]"}};
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) fuzz_schema_add(&schema, cols[k][0], cols[k][1]);
  }
  if (size < 1 || size > 8192) return 0;
  char *text = malloc(size);
  if (!text) return 0;
  memcpy(text, data + 1, size - 1);
  text[size - 1] = '\0';
  qv_error err;
  err.message[0] = '\0';
  if (data[0] % 2 == 0) {
    qv_schema s = QV_SCHEMA_INIT;
    qv_status st = qv_bigquery_schema_from_json(text, size - 1, &s, &err);
    if (st != QV_OK) {
      check(s.n_fields == 0, "fields left on failure", text);
      check(st == QV_ERR_NOMEM || strncmp(err.message, "bigquery schema: ", 17) == 0, "error without its prefix", text);
    }
    qv_schema_reset(&s);
  } else {
    qv_expr *e = NULL;
    if (qv_polars_parse(text, &e, &err) == QV_OK) {
      translate(e, &schema, text);
      translate(e, NULL, text);
    }
    qv_expr_destroy(e);
  }
  free(text);
  return 0;
}
