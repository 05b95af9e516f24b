/* Throughput of the Polars string, temporal and list kernels: each
 * expression (Python text, parsed and bound once) is evaluated over a
 * generated batch with qv_eval, best of three runs, all rows and through a
 * selection of every other row.
 * Usage: bench_polars_text [rows]   (default 1000000).  Prints rows/s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/compute.h"

static void die(const char *what, const qv_error *err) {
  fprintf(stderr, "%s: %s\n", what, err ? err->message : "failed");
  exit(1);
}

static qv_array *build(const char *type, int64_t n, int kind) {
  static const char *const words[] = {"alpha",  "Beta",           "gamma delta",      "  padded  ",
                                      "straße", "ΣΑΣ ΣΑΣ",        "hello-world it's", "x",
                                      "",       "日本語 テキスト"};
  qv_datatype t;
  qv_error err;
  if (qv_datatype_parse(type, &t, &err) != QV_OK) die(type, &err);
  qv_builder b;
  if (qv_builder_init(&b, &t, &err) != QV_OK) die(type, &err);
  uint64_t x = 88172645463325252ULL;
  for (int64_t i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    qv_status st = QV_OK;
    if (x % 50 == 0) {
      st = qv_builder_append_null(&b);
    } else if (kind == 0) {
      char buf[64];
      int len = snprintf(buf, sizeof buf, "%s %llu", words[x % 10], (unsigned long long)(x % 1000));
      st = qv_builder_append_bytes(&b, buf, len);
    } else if (kind == 1) {
      st = qv_builder_append_int(&b, (int64_t)(x % 4000000000000000ULL) - 2000000000000000LL);
    } else {
      for (uint64_t k = 0; k < x % 5 && st == QV_OK; k++) st = qv_builder_append_int(&b.children[0], (int64_t)(k * 3));
      if (st == QV_OK) st = qv_builder_append_valid(&b);
    }
    if (st != QV_OK) die("append", NULL);
  }
  qv_array *a = NULL;
  if (qv_builder_finish(&b, &a, &err) != QV_OK) die("finish", &err);
  qv_datatype_reset(&t);
  return a;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? atoll(argv[1]) : 1000000;
  const char *names[] = {"s", "ts", "l"}, *types[] = {"string", "timestamp[us]", "list<int64>"};
  qv_schema s = QV_SCHEMA_INIT;
  qv_array *cols[3];
  qv_error err;
  for (int k = 0; k < 3; k++) {
    qv_datatype t;
    qv_field f;
    qv_datatype_parse(types[k], &t, NULL);
    qv_field_init(&f, names[k], &t, true, NULL);
    qv_schema_add(&s, &f, NULL);
    qv_field_reset(&f);
    qv_datatype_reset(&t);
    cols[k] = build(types[k], n, k);
  }
  qv_batch *b = NULL;
  if (qv_batch_make(&s, cols, n, &b, &err) != QV_OK) die("batch", &err);
  qv_schema_reset(&s);
  qv_selection sel = QV_SELECTION_INIT;
  qv_selection_reserve(&sel, n / 2 + 1);
  for (int64_t i = 0; i < n; i += 2) sel.rows[sel.count++] = (uint32_t)i;
  static const char *const exprs[] = {
      "pl.col(\"s\").str.slice(1, 4)",
      "pl.col(\"s\").str.strip_chars()",
      "pl.col(\"s\").str.to_uppercase()",
      "pl.col(\"s\").str.to_titlecase()",
      "pl.col(\"s\").str.replace_all(\"a\", \"A\", literal=True)",
      "pl.col(\"s\").str.replace(\"(\\\\w+) (\\\\d+)\", \"$2 $1\")",
      "pl.col(\"s\").str.contains_any([\"ta\", \"ße\"])",
      "pl.concat_str([pl.col(\"s\"), pl.col(\"s\")], separator=\"-\")",
      "pl.col(\"ts\").dt.year()",
      "pl.col(\"ts\").dt.weekday()",
      "pl.col(\"ts\").dt.truncate(\"1mo\")",
      "pl.col(\"ts\").dt.truncate(\"15m\")",
      "pl.col(\"ts\").dt.epoch(\"ms\")",
      "pl.col(\"l\").list.get(-1, null_on_oob=True)",
  };
  printf("%-58s %14s %14s\n", "expression", "rows/s", "rows/s (sel)");
  for (size_t k = 0; k < sizeof exprs / sizeof exprs[0]; k++) {
    qv_expr *e = NULL;
    if (qv_polars_parse(exprs[k], &e, &err) != QV_OK || qv_expr_bind(e, &b->schema, &err) != QV_OK) die(exprs[k], &err);
    double best[2] = {1e30, 1e30};
    for (int pass = 0; pass < 2; pass++)
      for (int run = 0; run < 3; run++) {
        qv_array *out = NULL;
        double t0 = qv_now_seconds();
        if (qv_eval(e, b, pass ? &sel : NULL, &out, &err) != QV_OK) die(exprs[k], &err);
        double dt = qv_now_seconds() - t0;
        qv_array_release(out);
        if (dt < best[pass]) best[pass] = dt;
      }
    printf("%-58s %14.0f %14.0f\n", exprs[k], (double)n / best[0], (double)sel.count / best[1]);
    qv_expr_destroy(e);
  }
  qv_selection_reset(&sel);
  qv_batch_release(b);
  return 0;
}
