/* Fuzz target for evaluating Polars expressions: the input is Python text
 * (qv_polars_parse); a tree that parses and binds against a fixed batch
 * (strings with nulls, "" and non-ASCII text, integers, dates, timestamps,
 * a zoned timestamp, lists with nulls and empty lists, a struct) is
 * evaluated on every row and through a selection.  Every evaluation either
 * gives an array of the right length and the bound type, or fails with its
 * status in the error; never a crash, leak or out-of-bounds read (the
 * replay runs under the sanitizers).  Reaches the string, temporal and
 * list kernels with arbitrary arguments: slice windows, truncate
 * intervals, regex replacements, list indexes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/compute.h"
#include "fuzz_expr_common.h"

static qv_batch *batch;

static void must(qv_status st, const char *what) {
  if (st == QV_OK) return;
  fprintf(stderr, "fuzz_polars_eval: building the batch: %s\n", what);
  abort();
}

static qv_array *column(const char *type, int kind) {
  static const char *const strs[] = {"abc",
                                     NULL,
                                     "",
                                     "h\xc3\xa9llo w\xc3\xb6rld",
                                     " \xc2\xa0x\xe2\x80\x83 ",
                                     "\xc3\x9f stra\xc3\x9f"
                                     "e \xce\xa3\xce\x91\xce\xa3",
                                     "a,b;c",
                                     "aaa"};
  static const int64_t ints[] = {1, 0, -3, 4, INT64_MIN, 6, -1, INT64_MAX};
  qv_datatype t;
  qv_error err;
  must(qv_datatype_parse(type, &t, &err), type);
  qv_builder b;
  must(qv_builder_init(&b, &t, &err), type);
  for (int r = 0; r < 8; r++) {
    bool null = r == 1;
    if (null) {
      must(qv_builder_append_null(&b), type);
      continue;
    }
    switch (kind) {
      case 0: must(qv_builder_append_cstr(&b, strs[r]), type); break;
      case 1: must(qv_builder_append_int(&b, ints[r]), type); break;
      case 2: must(qv_builder_append_int(&b, (int64_t)(r * 9000 - 30000)), type); break;
      case 3: must(qv_builder_append_int(&b, (int64_t)(r - 4) * 7654321987654LL + r), type); break;
      case 4: /* list<int64>: r elements, one of them null */
        for (int k = 0; k < r % 4; k++)
          must(k == 1 ? qv_builder_append_null(&b.children[0]) : qv_builder_append_int(&b.children[0], k - r), type);
        must(qv_builder_append_valid(&b), type);
        break;
      default: /* struct<a: int64, b: string> */
        must(qv_builder_append_int(&b.children[0], r), type);
        must(qv_builder_append_cstr(&b.children[1], strs[(r + 3) % 8] ? strs[(r + 3) % 8] : "z"), type);
        must(qv_builder_append_valid(&b), type);
        break;
    }
  }
  qv_array *a = NULL;
  must(qv_builder_finish(&b, &a, &err), type);
  qv_datatype_reset(&t);
  return a;
}

static void init_batch(void) {
  static const struct {
    const char *name, *type;
    int kind;
  } cols[] = {
      {"s", "string", 0},         {"i", "int64", 1},
      {"d", "date32", 2},         {"ts", "timestamp[us]", 3},
      {"tn", "timestamp[ns]", 3}, {"tz", "timestamp[us, UTC]", 3},
      {"l", "list<int64>", 4},    {"st", "struct<a: int64, b: string>", 5},
  };
  enum { N = sizeof cols / sizeof cols[0] };
  qv_schema s = QV_SCHEMA_INIT;
  qv_array *arrays[N];
  for (size_t k = 0; k < N; k++) {
    fuzz_schema_add(&s, cols[k].name, cols[k].type);
    arrays[k] = column(cols[k].type, cols[k].kind);
  }
  qv_error err;
  must(qv_batch_make(&s, arrays, 8, &batch, &err), "batch"); /* takes the arrays */
  qv_schema_reset(&s);
}

static void check(bool ok, const char *what, const char *text) {
  if (ok) return;
  fprintf(stderr, "fuzz_polars_eval: %s\ninput: %s\n", what, text);
  abort();
}

static void eval_once(const qv_expr *e, const qv_selection *sel, int64_t rows, const char *text) {
  qv_array *out = NULL;
  qv_error err;
  err.message[0] = '\0';
  qv_status st = qv_eval(e, batch, sel, &out, &err);
  if (st != QV_OK) {
    check(out == NULL, "output set on failure", text);
    check(err.code == st && err.message[0] != '\0', "failure without a message", text);
    return;
  }
  check(out && out->length == rows, "result of the wrong length", text);
  check(e->type.id == QV_TYPE_NULL || out->type.id == e->type.id || out->type.id == QV_TYPE_NULL,
        "result of another type than the bound one", text);
  check(qv_array_validate(out, &err) == QV_OK, "result does not validate", text);
  qv_array_release(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!batch) init_batch();
  char *text = fuzz_text(data, size, 4096);
  if (!text) return 0;
  qv_expr *e = NULL;
  qv_error err;
  if (qv_polars_parse(text, &e, &err) == QV_OK && qv_expr_bind(e, &batch->schema, &err) == QV_OK) {
    eval_once(e, NULL, batch->num_rows, text);
    uint32_t rows[] = {7, 5, 1, 0, 3};
    qv_selection sel = {rows, 5, 5};
    eval_once(e, &sel, 5, text);
  }
  qv_expr_destroy(e);
  free(text);
  return 0;
}
