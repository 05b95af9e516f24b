/* Fuzz target for filtering with Polars expressions: every input the
 * Polars text front end parses and the binder accepts is run by
 * qv_eval_filter over a fixed batch of edge values (extreme integers, NaN,
 * +-0.0, +-inf, nulls, empty and non-ASCII strings, decimals, dates and
 * timestamps at the ends of their ranges), which either fails with a
 * message or keeps rows in order.  (fuzz_polars_eval covers qv_eval over
 * strings, lists and structs; fuzz_lance_translate the translator.)  Any
 * violation aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/compute.h"
#include "quiver/expr.h"
#include "fuzz_expr_common.h"

static const char *const columns[][2] = {
    {"a", "int32"},  {"b", "int64"},          {"c", "int8"},    {"u", "uint64"},
    {"u8", "uint8"}, {"f", "float64"},        {"g", "float32"}, {"s", "string"},
    {"d", "date32"}, {"ts", "timestamp[us]"}, {"flag", "bool"}, {"dec", "decimal(10,2)"},
};
#define N_COLUMNS (sizeof columns / sizeof columns[0])

static const char csv[] =
    "a,b,c,u,u8,f,g,s,d,ts,flag,dec\n"
    "2147483647,9223372036854775807,127,18446744073709551615,255,NaN,-0.0,,1970-01-01,1970-01-01 00:00:00,true,1.5\n"
    "-2147483648,-9223372036854775808,-128,0,0,-0.0,NaN,é x,2024-02-29,2024-02-29 23:59:59.999999,false,-99999999.99\n"
    ",,,,,,,,,,,\n"
    "0,0,0,1,1,inf,-inf,a,1969-12-31,1969-12-31 23:59:59,true,0\n"
    "-1,-1,-1,9223372036854775808,128,-inf,1e38,\" \t\",0001-01-01,2262-04-11 23:47:16,false,0.01\n"
    "7,2,3,5,2,2.5,0.5,abc,9999-12-31,1677-09-21 00:12:44,true,-0.01\n";

static qv_schema schema = QV_SCHEMA_INIT;
static qv_batch *batch;

static void init(void) {
  for (size_t k = 0; k < N_COLUMNS; k++) fuzz_schema_add(&schema, columns[k][0], columns[k][1]);
  qv_csv_column_type types[N_COLUMNS];
  for (size_t k = 0; k < N_COLUMNS; k++) types[k] = (qv_csv_column_type){columns[k][0], columns[k][1]};
  qv_csv_options opts = QV_CSV_OPTIONS_INIT;
  static const char *const nulls[] = {"", NULL};
  opts.null_values = nulls;
  opts.column_types = types;
  opts.n_column_types = (int32_t)N_COLUMNS;
  qv_batch_reader *r = NULL;
  qv_error err;
  if (qv_csv_open_buffer(csv, (int64_t)strlen(csv), &opts, &r, &err) != QV_OK || r->next(r, &batch, &err) != QV_OK ||
      !batch) {
    fprintf(stderr, "fuzz_polars_filter: harness batch: %s\n", err.message);
    abort();
  }
  qv_batch_reader_destroy(r);
}

static void check(bool ok, const char *what, const char *text, const char *detail) {
  if (ok) return;
  fprintf(stderr, "fuzz_polars_filter: %s\ninput: %s\n%s\n", what, text, detail ? detail : "");
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!batch) init();
  char *text = fuzz_text(data, size, 4096);
  if (!text) return 0;
  qv_expr *e = NULL;
  qv_error err;
  if (qv_polars_parse(text, &e, &err) != QV_OK) {
    free(text);
    return 0;
  }
  if (qv_expr_bind(e, &schema, &err) == QV_OK) {
    qv_selection out = QV_SELECTION_INIT;
    err.message[0] = '\0';
    qv_status st = qv_eval_filter(e, batch, NULL, &out, &err);
    if (st != QV_OK) {
      check(err.message[0] != '\0', "evaluation failed without a message", text, NULL);
    } else {
      for (int64_t i = 0; i < out.count; i++)
        check(out.rows[i] < (uint32_t)batch->num_rows && (i == 0 || out.rows[i] > out.rows[i - 1]),
              "kept rows out of order or range", text, NULL);
    }
    qv_selection_reset(&out);
  }
  qv_expr_destroy(e);
  free(text);
  return 0;
}
