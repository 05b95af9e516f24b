/* bench/temporal: the dt namespace's kernels over 2M timestamps in one
 * process, best of --repeat evaluations, in ns a row (issue 22).
 *
 *   bench_temporal [--rows 2000000] [--repeat 15] [--unit us] [EXPR ...]
 *
 * The column `ts` holds 30 days of random instants from 2024-01-01 in the
 * unit asked for (as bench/pushdown.py's table); each EXPR is Polars text
 * over it (default: dt.year, month, day, weekday, hour, date,
 * truncate("1d"), truncate("1mo")). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quiver/quiver.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  static const struct option longopts[] = {{"rows", required_argument, NULL, 'n'},
                                           {"repeat", required_argument, NULL, 'r'},
                                           {"unit", required_argument, NULL, 'u'},
                                           {NULL, 0, NULL, 0}};
  int64_t n = 2000000;
  int repeat = 15, ch;
  const char *unit = "us";
  while ((ch = getopt_long(argc, argv, "n:r:u:", longopts, NULL)) != -1) {
    switch (ch) {
      case 'n': n = atoll(optarg); break;
      case 'r': repeat = atoi(optarg); break;
      case 'u': unit = optarg; break;
      default:
        fprintf(stderr, "usage: bench_temporal [--rows N] [--repeat K] [--unit s|ms|us|ns] [EXPR ...]\n");
        return 2;
    }
  }
  static const char *defaults[] = {
      "pl.col(\"ts\").dt.year()",           "pl.col(\"ts\").dt.month()",          "pl.col(\"ts\").dt.day()",
      "pl.col(\"ts\").dt.weekday()",        "pl.col(\"ts\").dt.hour()",           "pl.col(\"ts\").dt.date()",
      "pl.col(\"ts\").dt.truncate(\"1d\")", "pl.col(\"ts\").dt.truncate(\"1mo\")"};
  const char **exprs = optind < argc ? (const char **)argv + optind : defaults;
  int n_exprs = optind < argc ? argc - optind : (int)(sizeof defaults / sizeof *defaults);
  int64_t per = !strcmp(unit, "s") ? 1 : !strcmp(unit, "ms") ? 1000 : !strcmp(unit, "us") ? 1000000 : 1000000000;
  char tname[32];
  snprintf(tname, sizeof tname, "timestamp[%s]", unit);
  qv_error err;
  qv_datatype t = QV_DATATYPE_INIT;
  if (qv_datatype_parse(tname, &t, &err) != QV_OK) {
    fprintf(stderr, "bench_temporal: %s\n", err.message);
    return 2;
  }
  qv_builder b;
  qv_array *a = NULL;
  qv_batch *batch = NULL;
  qv_schema s = QV_SCHEMA_INIT;
  qv_field f = {(char *)"ts", t, true};
  uint64_t r = 1;
  if (qv_builder_init(&b, &t, &err) != QV_OK) goto fail;
  for (int64_t i = 0; i < n; i++) {
    r = r * 6364136223846793005ULL + 1442695040888963407ULL;
    qv_builder_append_int(&b, INT64_C(1704067200) * per + (int64_t)((r >> 20) % (30 * 86400)) * per);
  }
  if (qv_builder_finish(&b, &a, &err) != QV_OK || qv_schema_add(&s, &f, &err) != QV_OK ||
      qv_batch_make(&s, &a, n, &batch, &err) != QV_OK)
    goto fail;
  for (int k = 0; k < n_exprs; k++) {
    qv_expr *e = NULL;
    if (qv_polars_parse(exprs[k], &e, &err) != QV_OK || qv_expr_bind(e, &s, &err) != QV_OK) {
      qv_expr_destroy(e);
      goto fail;
    }
    double best = 1e30;
    for (int i = 0; i < repeat; i++) {
      qv_array *out = NULL;
      double t0 = now_ms();
      if (qv_eval(e, batch, NULL, &out, &err) != QV_OK) {
        qv_expr_destroy(e);
        goto fail;
      }
      double d = now_ms() - t0;
      if (d < best) best = d;
      qv_array_release(out);
    }
    printf("%-40s %-2s %8.2f ms  %6.2f ns/row\n", exprs[k], unit, best, best * 1e6 / (double)n);
    qv_expr_destroy(e);
  }
  qv_batch_release(batch);
  qv_schema_reset(&s);
  qv_datatype_reset(&t);
  return 0;
fail:
  fprintf(stderr, "bench_temporal: %s\n", err.message);
  return 1;
}
