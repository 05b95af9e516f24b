/* Page pruning through non-decreasing functions (src/scan/prune_monotone.c):
 * dt.year, dt.date, dt.truncate, dt.epoch and SQL date_part('year') /
 * date_trunc over a sorted timestamp and a sorted date column prune the
 * pages whose [f(min), f(max)] cannot match, and return exactly the rows
 * of the same scan without pushdown (which prunes nothing).  Fields that
 * wrap around (dt.month, dt.hour) prune nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "quiver/quiver.h"
#include "quiver/scan.h"

#define ROWS 60000
#define PAGE 1000
static char g_dir[256];

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

static void add_field(qv_schema *s, const char *name, const char *type) {
  qv_field f = {(char *)name, QV_DATATYPE_INIT, true};
  assert_int_equal(qv_datatype_parse(type, &f.type, NULL), QV_OK);
  assert_int_equal(qv_schema_add(s, &f, NULL), QV_OK);
  qv_datatype_reset(&f.type);
}

/* 1969-01-01 00:00 UTC in microseconds: the rows start before the epoch. */
#define T0 (-INT64_C(31536000) * 1000000)
/* A row every 36 hours (so six years over the rows); a null every 89th. */
#define STEP (INT64_C(36) * 3600 * 1000000)

static int setup(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "/tmp/qv-prune-XXXXXX");
  assert_non_null(mkdtemp(g_dir));
  strcat(g_dir, "/ds");
  qv_schema s = QV_SCHEMA_INIT;
  add_field(&s, "id", "int64");
  add_field(&s, "ts", "timestamp[us]");
  add_field(&s, "d", "date32");
  qv_builder b[3];
  for (int i = 0; i < 3; i++) assert_int_equal(qv_builder_init(&b[i], &s.fields[i].type, NULL), QV_OK);
  for (int64_t i = 0; i < ROWS; i++) {
    qv_builder_append_int(&b[0], i);
    if (i % 89 == 3) qv_builder_append_null(&b[1]);
    else qv_builder_append_int(&b[1], T0 + i * STEP);
    qv_builder_append_int(&b[2], -400 + i / 10); /* 1968-11-27 on, ten rows a day */
  }
  qv_array *cols[3];
  for (int i = 0; i < 3; i++) assert_int_equal(qv_builder_finish(&b[i], &cols[i], NULL), QV_OK);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&s, cols, ROWS, &batch, NULL), QV_OK);
  qv_batch_reader *r;
  assert_int_equal(qv_batch_reader_from_batches(&s, &batch, 1, &r, NULL), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  wo.page_rows = PAGE;
  wo.max_rows_per_file = 25000;
  qv_error err;
  qv_status st = qv_dataset_write(g_dir, r, &wo, NULL, &err);
  if (st != QV_OK) fprintf(stderr, "%s\n", err.message);
  assert_int_equal(st, QV_OK);
  qv_batch_reader_destroy(r);
  qv_batch_release(batch);
  qv_schema_reset(&s);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char *slash = strrchr(g_dir, '/');
  *slash = '\0';
  nftw(g_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  return 0;
}

/* The ids the scan returns, as text; its counters in *c. */
static char *scan_ids(const char *where, const char *filter, bool pushdown, qv_scan_counters *c) {
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  const char *cols[] = {"id"};
  o.columns = cols;
  o.n_columns = 1;
  o.predicate_pushdown = pushdown;
  qv_expr *e = NULL;
  qv_error err;
  if (where) {
    if (qv_polars_parse(where, &e, &err) != QV_OK) fail_msg("%s: %s", where, err.message);
    o.filter_expr = e;
  }
  o.filter = filter;
  qv_scanner *sc;
  if (qv_scanner_open(g_dir, &o, &sc, &err) != QV_OK) fail_msg("open %s: %s", where ? where : filter, err.message);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  for (qv_batch *b;;) {
    if (qv_scanner_next(sc, &b, &err) != QV_OK) fail_msg("next: %s", err.message);
    if (!b) break;
    const int64_t *ids = (const int64_t *)qv_array_values(b->columns[0]);
    for (int64_t r = 0; r < b->num_rows; r++) fprintf(f, "%lld\n", (long long)ids[r]);
    qv_batch_release(b);
  }
  fclose(f);
  qv_scanner_counters(sc, c);
  qv_scanner_destroy(sc);
  qv_expr_destroy(e);
  return text;
}

static int lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* Scans with and without pushdown: the same rows; returns the rows and
 * the pages pruned with pushdown. */
static int check(const char *where, const char *filter, int64_t *pruned) {
  qv_scan_counters on, off;
  char *a = scan_ids(where, filter, true, &on), *b = scan_ids(where, filter, false, &off);
  assert_string_equal(a, b);
  assert_int_equal(off.pages_pruned, 0);
  assert_int_equal(on.pages_total, ROWS / PAGE);
  int n = lines(a);
  free(a);
  free(b);
  *pruned = on.pages_pruned;
  return n;
}

/* Rows whose ts falls in [lo, hi) microseconds (nulls excluded). */
static int ts_rows(int64_t lo, int64_t hi) {
  int n = 0;
  for (int64_t i = 0; i < ROWS; i++) {
    int64_t t = T0 + i * STEP;
    n += i % 89 != 3 && t >= lo && t < hi;
  }
  return n;
}

static int64_t us_of(int64_t y, unsigned m, unsigned d) { return qv_days_from_civil(y, m, d) * 86400 * 1000000; }

static void test_year_prunes(void **state) {
  (void)state;
  int64_t pruned;
  int n = check("pl.col(\"ts\").dt.year() == 1971", NULL, &pruned);
  assert_int_equal(n, ts_rows(us_of(1971, 1, 1), us_of(1972, 1, 1)));
  assert_true(n > 0);
  /* 1971 spans about 244 rows of 1,000-row pages: at most two pages kept */
  assert_true(pruned >= ROWS / PAGE - 2);
  n = check("pl.col(\"ts\").dt.year() < 1970", NULL, &pruned);
  assert_int_equal(n, ts_rows(INT64_MIN, us_of(1970, 1, 1)));
  assert_true(pruned >= ROWS / PAGE - 1);
  n = check("(pl.col(\"ts\").dt.year() >= 2100) & (pl.col(\"id\") > 5)", NULL, &pruned);
  assert_int_equal(n, ts_rows(us_of(2100, 1, 1), INT64_MAX));
  /* the literal on the left */
  n = check("pl.lit(1990) > pl.col(\"ts\").dt.year()", NULL, &pruned);
  assert_int_equal(n, ts_rows(INT64_MIN, us_of(1990, 1, 1)));
  assert_true(pruned > 0);
  /* Lance SQL: date_part('year', ts) */
  n = check(NULL, "date_part('year', ts) = 1975", &pruned);
  assert_int_equal(n, ts_rows(us_of(1975, 1, 1), us_of(1976, 1, 1)));
  assert_true(pruned >= ROWS / PAGE - 2);
}

static void test_date_truncate_epoch_prune(void **state) {
  (void)state;
  int64_t pruned;
  int n = check("pl.col(\"ts\").dt.date() == pl.date(1980, 2, 29)", NULL, &pruned);
  assert_int_equal(n, ts_rows(us_of(1980, 2, 29), us_of(1980, 3, 1)));
  assert_true(pruned >= ROWS / PAGE - 1);
  /* dt.truncate can fail on a value (past the ends of int64: compute/fallible.c),
   * and a filter that can fail prunes nothing, as Polars evaluates it on
   * every row: the rows are right, no page is skipped */
  n = check("pl.col(\"ts\").dt.truncate(\"1mo\") == pl.datetime(1984, 3, 1)", NULL, &pruned);
  assert_int_equal(n, ts_rows(us_of(1984, 3, 1), us_of(1984, 4, 1)));
  assert_int_equal(pruned, 0);
  n = check("pl.col(\"ts\").dt.epoch(\"ms\") < 0", NULL, &pruned);
  assert_int_equal(n, ts_rows(INT64_MIN, 0));
  assert_true(pruned > 0);
  n = check("pl.col(\"d\").dt.year().is_between(1970, 1971)", NULL, &pruned);
  /* d = -400 + i / 10: 1970 and 1971 are days 0..729, rows 4000..11299 */
  assert_int_equal(qv_days_from_civil(1972, 1, 1), 730);
  assert_int_equal(n, 7300);
  assert_true(pruned >= ROWS / PAGE - 9);
  n = check(NULL, "date_trunc('year', ts) = TIMESTAMP '1977-01-01 00:00:00'", &pruned);
  assert_int_equal(n, ts_rows(us_of(1977, 1, 1), us_of(1978, 1, 1)));
  assert_true(pruned >= ROWS / PAGE - 2);
}

static void test_wrapping_fields_do_not_prune(void **state) {
  (void)state;
  int64_t pruned;
  int n = check("pl.col(\"ts\").dt.month() == 3", NULL, &pruned);
  assert_true(n > 0);
  assert_int_equal(pruned, 0);
  n = check("pl.col(\"ts\").dt.hour() == 12", NULL, &pruned);
  assert_true(n > 0);
  assert_int_equal(pruned, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_year_prunes),
      cmocka_unit_test(test_date_truncate_epoch_prune),
      cmocka_unit_test(test_wrapping_fields_do_not_prune),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
