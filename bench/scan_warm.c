/* bench/scan_warm: one scan, repeated inside one process, timed from
 * opening the scanner to its last batch.  What a fresh process adds
 * (starting the program, cold memory, the first open of each file) is
 * outside it, so it measures the engine's own work; bench/pushdown.py and
 * bench_scan_pushdown measure the fresh-process times the issues quote.
 * Every configuration asked for runs once per round, rounds interleaved,
 * so that a noisy machine moves them alike.
 *
 *   bench_scan_warm DATASET --where 'pl.col("val") > 0.999' [--select id,payload]
 *                   [--runs 30] [--compare pushdown|index] [--count]
 *
 * --where takes a Polars expression, --filter a Lance SQL filter.
 * --count times qv_scanner_count (no column materialized) instead of
 * reading the batches; "rows" is then the count.
 * --compare runs the scan with that switch on and off and prints the
 * ratio of the medians. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quiver/expr.h"
#include "quiver/scan.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Runs one scan to its end; the milliseconds it took, or -1 on error. */
static double run(const char *path, const qv_scan_options *o, bool count, int64_t *rows) {
  qv_error err;
  qv_scanner *s;
  double t = now_ms();
  if (qv_scanner_open(path, o, &s, &err) != QV_OK) {
    fprintf(stderr, "bench_scan_warm: %s\n", err.message);
    return -1;
  }
  *rows = 0;
  qv_status st;
  if (count) st = qv_scanner_count(s, rows, &err);
  else
    for (qv_batch *b; (st = qv_scanner_next(s, &b, &err)) == QV_OK && b; qv_batch_release(b)) *rows += b->num_rows;
  qv_scanner_destroy(s);
  if (st != QV_OK) {
    fprintf(stderr, "bench_scan_warm: %s\n", err.message);
    return -1;
  }
  return now_ms() - t;
}

int main(int argc, char **argv) {
  static const struct option longopts[] = {{"where", required_argument, NULL, 'w'},
                                           {"filter", required_argument, NULL, 'f'},
                                           {"select", required_argument, NULL, 's'},
                                           {"runs", required_argument, NULL, 'r'},
                                           {"compare", required_argument, NULL, 'c'},
                                           {"count", no_argument, NULL, 'n'},
                                           {NULL, 0, NULL, 0}};
  const char *where = NULL, *filter = NULL, *select = NULL, *compare = NULL;
  int runs = 30, ch;
  bool count = false;
  while ((ch = getopt_long(argc, argv, "w:f:s:r:c:n", longopts, NULL)) != -1) {
    switch (ch) {
      case 'w': where = optarg; break;
      case 'f': filter = optarg; break;
      case 's': select = optarg; break;
      case 'r': runs = atoi(optarg); break;
      case 'c': compare = optarg; break;
      case 'n': count = true; break;
      default: goto usage;
    }
  }
  if (optind + 1 != argc || runs < 1 || (where && filter) ||
      (compare && strcmp(compare, "pushdown") && strcmp(compare, "index")))
    goto usage;
  const char *path = argv[optind];
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  qv_expr *expr = NULL;
  qv_error err;
  if (where && qv_polars_parse(where, &expr, &err) != QV_OK) {
    fprintf(stderr, "bench_scan_warm: --where: %s\n", err.message);
    return 1;
  }
  o.filter_expr = expr;
  o.filter = filter;
  o.exact_batches = false;
  char *cols_text = select ? strdup(select) : NULL;
  const char *cols[64];
  int32_t ncols = 0;
  for (char *save = NULL, *c = cols_text ? strtok_r(cols_text, ",", &save) : NULL; c && ncols < 64;
       c = strtok_r(NULL, ",", &save))
    cols[ncols++] = c;
  if (ncols) {
    o.columns = cols;
    o.n_columns = ncols;
  }
  int configs = compare ? 2 : 1;
  double *ms = malloc(sizeof *ms * (size_t)runs * 2);
  int64_t rows[2] = {0, 0};
  /* round -1 is not measured: the first open of each file, cold memory */
  for (int r = -1; r < runs; r++)
    for (int k = 0; k < configs; k++) {
      qv_scan_options ok = o;
      if (compare && !strcmp(compare, "pushdown")) ok.predicate_pushdown = k == 0;
      if (compare && !strcmp(compare, "index")) ok.use_scalar_index = k == 0;
      double t = run(path, &ok, count, &rows[k]);
      if (t < 0) return 1;
      if (r >= 0) ms[k * runs + r] = t;
    }
  double median[2];
  for (int k = 0; k < configs; k++) {
    qsort(ms + k * runs, (size_t)runs, sizeof *ms, cmp_double);
    median[k] = ms[k * runs + runs / 2];
    printf("%-14s median %8.3f ms  p25 %8.3f  min %8.3f  rows %lld\n",
           !compare ? (count ? "count" : "scan")
           : k == 0 ? (compare[0] == 'p' ? "pushdown on" : "index on")
                    : (compare[0] == 'p' ? "pushdown off" : "index off"),
           median[k], ms[k * runs + runs / 4], ms[k * runs], (long long)rows[k]);
  }
  if (compare) printf("on vs off: %.1fx\n", median[1] / median[0]);
  free(ms);
  free(cols_text);
  qv_expr_destroy(expr);
  return 0;
usage:
  fprintf(stderr,
          "usage: bench_scan_warm DATASET (--where POLARS | --filter SQL) [--select a,b] [--runs N]\n"
          "                       [--compare pushdown|index] [--count]\n");
  return 2;
}
