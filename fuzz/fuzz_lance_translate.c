/* Fuzz target for the Polars -> Lance SQL translator: every input that the
 * Polars text front end parses is translated against a fixed schema (every
 * type the translator looks at) and schema-less, and explained.  The
 * translator must not crash or leak; a result has non-empty SQL that
 * quiver's own Lance filter parser reads back and, with the schema, binds
 * against it (we never emit a filter invalid for the columns it names);
 * translating twice gives the same answer; explain always returns text.
 * Any violation aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/expr.h"
#include "quiver/pushdown.h"
#include "fuzz_expr_common.h"

static qv_schema schema = QV_SCHEMA_INIT;

static void init_schema(void) {
  static const char *const cols[][2] = {
      {"a", "int32"},           {"b", "int64"},         {"c", "int8"},           {"u", "uint64"},
      {"v", "uint8"},           {"f", "float64"},       {"g", "float32"},        {"s", "string"},
      {"t", "string"},          {"d", "date32"},        {"ts", "timestamp[us]"}, {"tz", "timestamp[ms, UTC]"},
      {"dec", "decimal(10,2)"}, {"flag", "bool"},       {"l", "list<int64>"},    {"st", "struct<x: int32, y: string>"},
      {"tm", "time64[us]"},     {"du", "duration[ms]"},
  };
  for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) fuzz_schema_add(&schema, cols[k][0], cols[k][1]);
}

static void check(bool ok, const char *what, const char *text) {
  if (ok) return;
  fprintf(stderr, "fuzz_lance_translate: %s\ninput: %s\n", what, text);
  abort();
}

/* Parentheses balance and string/identifier quotes close ('' is a quote
 * inside a string). */
static bool balanced(const char *sql) {
  int depth = 0;
  for (const char *p = sql; *p; p++) {
    if (*p == '\'' || *p == '`') {
      char q = *p;
      for (p++; *p && !(*p == q && p[1] != q); p++)
        if (*p == q) p++;
      if (!*p) return false;
    } else if (*p == '(') {
      depth++;
    } else if (*p == ')' && --depth < 0) {
      return false;
    }
  }
  return depth == 0;
}

/* DataFusion functions the translator emits that quiver's own Lance filter
 * parser does not read (yet): SQL using them is only checked for balance. */
static const char *const foreign_functions[] = {"`regexp_replace`", "`concat_ws`", "`array_element`", "`btrim`",
                                                "`nullif`"};

/* The SQL parses with quiver's Lance filter parser, and binds against the
 * schema it was made for. */
static bool valid_sql(const char *sql, const qv_schema *s) {
  qv_expr *e = NULL;
  qv_error err;
  qv_status st = qv_lance_filter_parse(sql, &e, &err);
  bool ok = st == QV_OK && (!s || qv_expr_bind(e, s, &err) == QV_OK);
  qv_expr_destroy(e);
  if (st != QV_OK && strstr(err.message, "unknown function"))
    for (size_t k = 0; k < sizeof foreign_functions / sizeof foreign_functions[0]; k++)
      if (strstr(err.message, foreign_functions[k])) return balanced(sql);
  return ok;
}

static void translate(const qv_expr *e, const qv_schema *s, const char *text) {
  qv_lance_filter *f1 = NULL, *f2 = NULL;
  qv_error err;
  err.message[0] = '\0';
  if (qv_to_lance_filter(e, s, &f1, &err) != QV_OK) {
    check(f1 == NULL && err.message[0], "failure without a message, or with a result", text);
    return; /* out of memory only */
  }
  check(qv_to_lance_filter(e, s, &f2, &err) == QV_OK, "second translation failed", text);
  check((f1 == NULL) == (f2 == NULL), "two translations disagree on declining", text);
  if (f1) {
    check(f1->sql && f1->sql[0], "empty SQL", text);
    check(valid_sql(f1->sql, s), "emitted SQL does not parse or bind", text);
    check(strcmp(f1->sql, f2->sql) == 0 && f1->exact == f2->exact, "two translations differ", text);
  }
  char *why = NULL;
  if (qv_lance_filter_explain(e, s, &why, &err) != QV_OK) {
    check(why == NULL && err.message[0], "explain failure without a message, or with a result", text);
  } else {
    check(why != NULL && why[0], "no explain text", text);
  }
  qv_free(why);
  qv_lance_filter_free(f1);
  qv_lance_filter_free(f2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (schema.n_fields == 0) init_schema();
  char *text = fuzz_text(data, size, 8192);
  if (!text) return 0;
  qv_expr *e = NULL;
  qv_error err;
  if (qv_polars_parse(text, &e, &err) == QV_OK) {
    translate(e, &schema, text);
    translate(e, NULL, text);
  }
  qv_expr_destroy(e);
  free(text);
  return 0;
}
