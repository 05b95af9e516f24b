/* The scanner end to end: a small multi-fragment dataset on disk, scanned
 * with filters, projections, limits, pushdown on and off, deletes. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "quiver/quiver.h"
#include "quiver/scan.h"

#define ROWS 10000
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

/* id 0..ROWS-1 (sorted, so pages prune); val a permutation in [0,1) with a
 * NaN every 101st row and a null every 97th; cat c0..c7; name with nulls. */
static int setup(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "/tmp/qv-scan-XXXXXX");
  assert_non_null(mkdtemp(g_dir));
  strcat(g_dir, "/ds");
  qv_schema s = QV_SCHEMA_INIT;
  add_field(&s, "id", "int64");
  add_field(&s, "val", "float64");
  add_field(&s, "cat", "string");
  add_field(&s, "name", "string");
  qv_builder b[4];
  for (int i = 0; i < 4; i++) assert_int_equal(qv_builder_init(&b[i], &s.fields[i].type, NULL), QV_OK);
  for (int64_t i = 0; i < ROWS; i++) {
    char buf[32];
    qv_builder_append_int(&b[0], i);
    if (i % 97 == 5) qv_builder_append_null(&b[1]);
    else if (i % 101 == 7) qv_builder_append_double(&b[1], NAN);
    else qv_builder_append_double(&b[1], (double)((i * 7919) % ROWS) / ROWS);
    snprintf(buf, sizeof buf, "c%d", (int)(i % 8));
    qv_builder_append_cstr(&b[2], buf);
    if (i % 13 == 0) qv_builder_append_null(&b[3]);
    else {
      snprintf(buf, sizeof buf, "name-%lld", (long long)i);
      qv_builder_append_cstr(&b[3], buf);
    }
  }
  qv_array *cols[4];
  for (int i = 0; i < 4; i++) assert_int_equal(qv_builder_finish(&b[i], &cols[i], NULL), QV_OK);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&s, cols, ROWS, &batch, NULL), QV_OK);
  qv_batch_reader *r;
  assert_int_equal(qv_batch_reader_from_batches(&s, &batch, 1, &r, NULL), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  wo.page_rows = 1000;
  wo.max_rows_per_file = 4000;
  qv_error err;
  int64_t version;
  qv_status st = qv_dataset_write(g_dir, r, &wo, &version, &err);
  if (st != QV_OK) fprintf(stderr, "%s\n", err.message);
  assert_int_equal(st, QV_OK);
  assert_int_equal(version, 1);
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

/* Runs a scan and returns every row as text "v1|v2|...\n" (caller frees). */
static char *scan_text(qv_scan_options *o, qv_scan_counters *counters, int *batches) {
  qv_scanner *sc;
  qv_error err;
  qv_status st = qv_scanner_open(g_dir, o, &sc, &err);
  if (st != QV_OK) fprintf(stderr, "open: %s\n", err.message);
  assert_int_equal(st, QV_OK);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  int nb = 0;
  for (;;) {
    qv_batch *b;
    st = qv_scanner_next(sc, &b, &err);
    if (st != QV_OK) fprintf(stderr, "next: %s\n", err.message);
    assert_int_equal(st, QV_OK);
    if (!b) break;
    nb++;
    assert_true(b->num_rows <= o->batch_size);
    for (int64_t r = 0; r < b->num_rows; r++) {
      for (int32_t c = 0; c < b->schema.n_fields; c++) {
        char cell[128];
        qv_array_format_value(b->columns[c], r, cell, sizeof cell);
        fprintf(f, "%s%s", c ? "|" : "", cell);
      }
      fputc('\n', f);
    }
    qv_batch_release(b);
  }
  fclose(f);
  if (counters) qv_scanner_counters(sc, counters);
  if (batches) *batches = nb;
  qv_scanner_destroy(sc);
  return text;
}

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static void test_full_scan(void **state) {
  (void)state;
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  qv_scan_counters c;
  char *t = scan_text(&o, &c, NULL);
  assert_int_equal(count_lines(t), ROWS);
  assert_true(strncmp(t, "0|0.0|c0|null\n1|0.7919|c1|name-1\n", 33) == 0);
  assert_int_equal(c.fragments, 3);
  assert_int_equal(c.pages_total, 10);
  assert_int_equal(c.pages_pruned, 0);
  free(t);
}

static void test_range_filter_prunes_pages(void **state) {
  (void)state;
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  const char *cols[] = {"id", "name"};
  o.columns = cols;
  o.n_columns = 2;
  o.filter = "id >= 2500 AND id < 2600";
  qv_scan_counters c;
  char *t = scan_text(&o, &c, NULL);
  assert_int_equal(count_lines(t), 100);
  assert_true(strncmp(t, "2500|name-2500\n2501|name-2501\n", 30) == 0);
  assert_int_equal(c.pages_total, 10);
  assert_int_equal(c.pages_pruned, 9);
  assert_int_equal(c.rows_scanned, 1000);
  assert_int_equal(c.rows_selected, 100);
  free(t);
}

/* Pushdown changes how rows are found, never which. */
static void test_pushdown_on_off_agree(void **state) {
  (void)state;
  const char *filters[] = {
      "val > 0.999",
      "val < 0.001 OR cat = 'c3'",
      "name IS NULL",
      "val IS NULL",
      "isnan(val)",
      "cat IN ('c1', 'c7') AND id % 3 = 0",
      "NOT (id BETWEEN 100 AND 9000)",
      "name LIKE 'name-99%'",
      "starts_with(cat, 'c2') AND val >= 0.5",
      "id = 4321",
      "id > 20000",
      "val != val",
  };
  for (size_t k = 0; k < sizeof filters / sizeof filters[0]; k++) {
    qv_scan_options on = QV_SCAN_OPTIONS_INIT, off = QV_SCAN_OPTIONS_INIT;
    on.filter = off.filter = filters[k];
    off.predicate_pushdown = false;
    char *a = scan_text(&on, NULL, NULL);
    char *b = scan_text(&off, NULL, NULL);
    if (strcmp(a, b) != 0) fail_msg("pushdown on/off differ for %s", filters[k]);
    free(a);
    free(b);
  }
}

static void test_known_counts(void **state) {
  (void)state;
  struct {
    const char *filter;
    int rows;
  } cases[] = {
      {"name IS NULL", 770}, /* ceil(10000 / 13) */
      {"val IS NULL", 104},  /* i % 97 == 5: 5, 102, ..., 9996 */
      {"id = 4321", 1},      {"id > 20000", 0},
      {"cat = 'c3'", 1250},  {"name LIKE 'name-99%'", 111 - 9 + 1}, /* 99, 990..999, 9900..9999 minus multiples of 13 */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    qv_scan_options o = QV_SCAN_OPTIONS_INIT;
    const char *cols[] = {"id"};
    o.columns = cols;
    o.n_columns = 1;
    o.filter = cases[k].filter;
    char *t = scan_text(&o, NULL, NULL);
    int want = cases[k].rows;
    if (!strcmp(cases[k].filter, "name LIKE 'name-99%'")) {
      want = 0;
      for (int i = 0; i < ROWS; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "name-%d", i);
        if (i % 13 != 0 && !strncmp(buf, "name-99", 7)) want++;
      }
    }
    if (count_lines(t) != want) fail_msg("%s: %d rows, want %d", cases[k].filter, count_lines(t), want);
    free(t);
  }
}

static void test_limit_offset_and_batches(void **state) {
  (void)state;
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  const char *cols[] = {"id"};
  o.columns = cols;
  o.n_columns = 1;
  o.filter = "cat = 'c3'";
  o.offset = 5;
  o.limit = 7;
  char *t = scan_text(&o, NULL, NULL);
  assert_string_equal(t, "43\n51\n59\n67\n75\n83\n91\n");
  free(t);
  /* 100 scattered rows come back coalesced into one batch... */
  qv_scan_options o2 = QV_SCAN_OPTIONS_INIT;
  o2.filter = "id % 100 = 0";
  int nb;
  t = scan_text(&o2, NULL, &nb);
  assert_int_equal(count_lines(t), 100);
  assert_int_equal(nb, 1);
  free(t);
  /* ...and a full scan in batches of at most batch_size. */
  qv_scan_options o3 = QV_SCAN_OPTIONS_INIT;
  o3.batch_size = 300;
  t = scan_text(&o3, NULL, &nb);
  assert_int_equal(count_lines(t), ROWS);
  assert_true(nb >= ROWS / 300);
  free(t);
  /* Pieces of 333 or 334 rows (a third of each 1,000-row page) fill
   * batches of exactly 500, the last one excepted. */
  qv_scan_options o4 = QV_SCAN_OPTIONS_INIT;
  o4.filter = "id % 3 = 0";
  o4.batch_size = 500;
  qv_scanner *sc;
  qv_error err;
  assert_int_equal(qv_scanner_open(g_dir, &o4, &sc, &err), QV_OK);
  int64_t total = 0, last = -1, expect_id = 0;
  for (qv_batch *b; qv_scanner_next(sc, &b, &err) == QV_OK && b; qv_batch_release(b)) {
    assert_int_equal(last, last < 0 ? -1 : 500); /* every batch before this one was full */
    last = b->num_rows;
    const int64_t *ids = qv_array_values(b->columns[0]);
    for (int64_t r = 0; r < b->num_rows; r++, expect_id += 3) assert_int_equal(ids[r], expect_id);
    total += b->num_rows;
  }
  assert_int_equal(total, (ROWS + 2) / 3);
  qv_scanner_destroy(sc);
  /* Without exact batches the same scan hands out the pieces as they come:
   * one per 1,000-row page (333 or 334 rows), the same rows in order;
   * a piece larger than batch_size is still cut. */
  for (int cut = 0; cut <= 1; cut++) {
    qv_scan_options o5 = QV_SCAN_OPTIONS_INIT;
    o5.filter = "id % 3 = 0";
    o5.batch_size = cut ? 200 : 500;
    o5.exact_batches = false;
    assert_int_equal(qv_scanner_open(g_dir, &o5, &sc, &err), QV_OK);
    int64_t batches = 0;
    total = 0;
    expect_id = 0;
    for (qv_batch *b; qv_scanner_next(sc, &b, &err) == QV_OK && b; qv_batch_release(b), batches++) {
      int64_t page = (expect_id / 1000 + 1) * 1000; /* the page the piece comes from ends here */
      int64_t piece = (page - expect_id + 2) / 3;
      if (page > ROWS) piece = (ROWS - expect_id + 2) / 3;
      assert_int_equal(b->num_rows, cut ? (piece < 200 ? piece : 200) : piece);
      const int64_t *ids = qv_array_values(b->columns[0]);
      for (int64_t r = 0; r < b->num_rows; r++, expect_id += 3) assert_int_equal(ids[r], expect_id);
      total += b->num_rows;
    }
    assert_int_equal(total, (ROWS + 2) / 3);
    assert_true(batches >= ROWS / 1000);
    qv_scanner_destroy(sc);
  }
}

/* Without exact batches, pieces below batch_size / 16 rows (a selective
 * filter's few rows per page) are joined with their neighbours, up to
 * batch_size; a larger piece goes out on its own. */
static void test_loose_batches_join_small_pieces(void **state) {
  (void)state;
  qv_error err;
  qv_scanner *sc;
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  /* pages of 1000 rows: 10 rows from each, and 406 from the page of 5000 */
  o.filter = "id % 100 = 0 OR (id >= 5000 AND id < 5400)";
  o.batch_size = 1000; /* joined below 62 rows */
  o.exact_batches = false;
  assert_int_equal(qv_scanner_open(g_dir, &o, &sc, &err), QV_OK);
  int64_t total = 0, batches = 0, prev = -1, big = 0;
  for (qv_batch *b; qv_scanner_next(sc, &b, &err) == QV_OK && b; qv_batch_release(b), batches++) {
    assert_true(b->num_rows <= 1000);
    const int64_t *ids = qv_array_values(b->columns[0]);
    for (int64_t r = 0; r < b->num_rows; r++) {
      assert_true(ids[r] > prev);
      prev = ids[r];
    }
    /* joined, but for the pieces before the large one and the last */
    if (b->num_rows == 406) big++;
    else if (ids[b->num_rows - 1] != 4900 && ids[b->num_rows - 1] < ROWS - 100) assert_true(b->num_rows >= 62);
    total += b->num_rows;
  }
  assert_int_equal(total, ROWS / 100 + 400 - 4);
  assert_int_equal(big, 1);
  assert_int_equal(batches, 3); /* pages 0-4 joined (50 rows), page 5 (406), pages 6-9 joined (40) */
  qv_scanner_destroy(sc);
}

static void test_row_ids(void **state) {
  (void)state;
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  const char *cols[] = {"id"};
  o.columns = cols;
  o.n_columns = 1;
  o.filter = "id = 0 OR id = 4001 OR id = 9999";
  o.with_row_id = true;
  char *t = scan_text(&o, NULL, NULL);
  /* fragment ids are assigned by storage; rows are offsets within each */
  unsigned long long r0, r1, r2;
  long long i0, i1, i2;
  assert_int_equal(sscanf(t, "%lld|%llu\n%lld|%llu\n%lld|%llu", &i0, &r0, &i1, &r1, &i2, &r2), 6);
  assert_int_equal(i0, 0);
  assert_int_equal(r0 & 0xffffffffu, 0);
  assert_int_equal(r1 & 0xffffffffu, 1);
  assert_int_equal(r2 & 0xffffffffu, 1999);
  assert_true((r0 >> 32) != (r1 >> 32) && (r1 >> 32) != (r2 >> 32));
  free(t);
}

static void test_errors(void **state) {
  (void)state;
  qv_scanner *sc;
  qv_error err;
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  const char *cols[] = {"id", "nope"};
  o.columns = cols;
  o.n_columns = 2;
  assert_int_equal(qv_scanner_open(g_dir, &o, &sc, &err), QV_ERR_NOT_FOUND);
  assert_string_equal(err.message, "select: no column `nope` (columns: id, val, cat, name)");
  qv_scan_options o2 = QV_SCAN_OPTIONS_INIT;
  o2.filter = "id >";
  assert_int_equal(qv_scanner_open(g_dir, &o2, &sc, &err), QV_ERR_PARSE);
  assert_non_null(strstr(err.message, "column 5"));
  qv_scan_options o3 = QV_SCAN_OPTIONS_INIT;
  o3.filter = "id + 1";
  assert_int_equal(qv_scanner_open(g_dir, &o3, &sc, &err), QV_ERR_TYPE);
  assert_string_equal(err.message, "filter: the filter must be boolean, not int64");
  qv_scan_options o4 = QV_SCAN_OPTIONS_INIT;
  o4.dataset_version = 99;
  assert_int_equal(qv_scanner_open(g_dir, &o4, &sc, &err), QV_ERR_NOT_FOUND);
  /* options of a newer build, or garbage */
  qv_scan_options o5 = QV_SCAN_OPTIONS_INIT;
  o5.version = QV_SCAN_OPTIONS_VERSION + 1;
  assert_int_equal(qv_scanner_open(g_dir, &o5, &sc, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "options version 4 is not 1..3")); /* version 3 added `nearest` */
}

/* A constant a kernel refuses (a bad regex, a LIKE pattern ending in its
 * escape, unknown regex flags, a bad dt.truncate interval) fails the open
 * with the kernel's message, before any batch, also where no row would
 * reach it; a lenient pattern (str.contains(strict=False)) stays lenient. */
static void test_bad_constants_fail_open(void **state) {
  (void)state;
  struct {
    const char *filter, *polars, *message;
  } cases[] = {
      {"regexp_match(name, '(')", NULL, "regexp_match: invalid pattern at offset 1: missing closing parenthesis"},
      {"id < 0 AND regexp_like(cat, 'c[')", NULL,
       "regexp_like: invalid pattern at offset 2: missing terminating ] for character class"},
      {"regexp_like(name, 'a', 'q')", NULL, "regexp: unknown flag 'q' (expected i, c, m, s or x)"},
      {"name LIKE 'a\\'", NULL, "LIKE: the pattern ends with the escape character"},
      {NULL, "pl.col(\"name\").str.contains(\"(\")",
       "regexp_match: invalid pattern at offset 1: missing closing parenthesis"},
      {NULL, "pl.col(\"name\").str.replace(\"a(\", \"b\") == \"x\"",
       "str.replace: invalid pattern at offset 2: missing closing parenthesis"},
      {NULL, "pl.col(\"id\").cast(pl.Datetime).dt.truncate(\"1x\").is_null()",
       "dt.truncate: invalid interval '1x': unknown unit 'x' (expected ns, us, ms, s, m, h, d, w, mo, q or y)"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    qv_scan_options o = QV_SCAN_OPTIONS_INIT;
    qv_expr *e = NULL;
    qv_error err;
    if (cases[k].polars) {
      assert_int_equal(qv_polars_parse(cases[k].polars, &e, &err), QV_OK);
      o.filter_expr = e;
    }
    o.filter = cases[k].filter;
    qv_scanner *sc = NULL;
    qv_status st = qv_scanner_open(g_dir, &o, &sc, &err);
    if (st != QV_ERR_INVALID)
      fail_msg("%s: opened (status %d)", cases[k].filter ? cases[k].filter : cases[k].polars, (int)st);
    assert_null(sc);
    assert_string_equal(err.message, cases[k].message);
    qv_expr_destroy(e);
  }
  /* strict=False: a bad pattern is null on every row, so nothing passes. */
  qv_expr *e;
  assert_int_equal(qv_polars_parse("pl.col(\"name\").str.contains(\"(\", strict=False)", &e, NULL), QV_OK);
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  o.filter_expr = e;
  char *t = scan_text(&o, NULL, NULL);
  assert_string_equal(t, "");
  free(t);
  qv_expr_destroy(e);
}

/* Options of version 1 (built before exact_batches existed) are read
 * without that field: batches stay exact. */
static void test_options_version_1(void **state) {
  (void)state;
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  o.version = 1;
  o.exact_batches = false; /* not there in a version 1 struct: ignored */
  o.filter = "id % 3 = 0";
  o.batch_size = 500;
  int nb;
  char *t = scan_text(&o, NULL, &nb);
  assert_int_equal(count_lines(t), (ROWS + 2) / 3);
  assert_int_equal(nb, ((ROWS + 2) / 3 + 499) / 500);
  free(t);
}

static void test_explain(void **state) {
  (void)state;
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  const char *cols[] = {"id", "name"};
  o.columns = cols;
  o.n_columns = 2;
  o.filter = "id < 10 AND lower(name) = 'x'";
  o.limit = 3;
  qv_scanner *sc;
  assert_int_equal(qv_scanner_open(g_dir, &o, &sc, NULL), QV_OK);
  char *plan = qv_scanner_explain(sc, false);
  char want[1024];
  snprintf(want, sizeof want,
           "Scan %s version 1 (3 fragments, 10000 rows)\n"
           "  Project: id, name\n"
           "  Filter: ((id < 10) AND (lower(name) = 'x'))\n"
           "    pushdown: on (decode id, name first; the other projected columns only for selected rows)\n"
           "    page pruning by statistics: (id < 10)\n"
           "  Limit: 3\n",
           g_dir);
  assert_string_equal(plan, want);
  qv_free(plan);
  qv_scanner_destroy(sc);
}

/* A Polars expression filters like the Lance SQL spelling of the same
 * predicate (where the two languages agree on the semantics). */
static void test_polars_expression_filter(void **state) {
  (void)state;
  struct {
    const char *polars, *sql;
  } cases[] = {
      {"(pl.col(\"id\") >= 2500) & (pl.col(\"id\") < 2600)", "id >= 2500 AND id < 2600"},
      {"pl.col(\"cat\").is_in([\"c1\", \"c7\"]) & pl.col(\"name\").is_null()", "cat IN ('c1', 'c7') AND name IS NULL"},
      {"pl.col(\"name\").str.starts_with(\"name-99\")", "starts_with(name, 'name-99')"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    qv_expr *e;
    qv_error err;
    if (qv_polars_parse(cases[k].polars, &e, &err) != QV_OK) fail_msg("%s: %s", cases[k].polars, err.message);
    qv_scan_options a = QV_SCAN_OPTIONS_INIT, b = QV_SCAN_OPTIONS_INIT;
    a.filter_expr = e;
    b.filter = cases[k].sql;
    qv_scan_counters ca;
    char *ta = scan_text(&a, &ca, NULL), *tb = scan_text(&b, NULL, NULL);
    if (strcmp(ta, tb) != 0) fail_msg("%s differs from %s", cases[k].polars, cases[k].sql);
    assert_true(count_lines(ta) > 0);
    if (k == 0) assert_int_equal(ca.pages_pruned, 9); /* pruning works for Polars trees too */
    free(ta);
    free(tb);
    qv_expr_destroy(e);
  }
  /* Polars' `/` is true division: 9999 / 2 = 4999.5 passes, where SQL's
   * integer division (4999) would not. */
  qv_expr *e;
  assert_int_equal(qv_polars_parse("(pl.col(\"id\") / 2) > 4999", &e, NULL), QV_OK);
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  const char *cols[] = {"id"};
  o.columns = cols;
  o.n_columns = 1;
  o.filter_expr = e;
  char *t = scan_text(&o, NULL, NULL);
  assert_string_equal(t, "9999\n");
  free(t);
  qv_expr_destroy(e);
  qv_scan_options sql = QV_SCAN_OPTIONS_INIT;
  sql.columns = cols;
  sql.n_columns = 1;
  sql.filter = "id / 2 > 4999";
  t = scan_text(&sql, NULL, NULL);
  assert_string_equal(t, "");
  free(t);
}

/* Runs last: it commits a new version. */
static void test_delete_where(void **state) {
  (void)state;
  int64_t deleted, version;
  qv_error err;
  assert_int_equal(qv_dataset_delete_where(g_dir, "id < 10 OR id = 5000", &deleted, &version, &err), QV_OK);
  assert_int_equal(deleted, 11);
  assert_int_equal(version, 2);
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  const char *cols[] = {"id"};
  o.columns = cols;
  o.n_columns = 1;
  char *t = scan_text(&o, NULL, NULL);
  assert_int_equal(count_lines(t), ROWS - 11);
  assert_true(strncmp(t, "10\n11\n", 6) == 0);
  assert_null(strstr(t, "\n5000\n"));
  free(t);
  o.dataset_version = 1;
  t = scan_text(&o, NULL, NULL);
  assert_int_equal(count_lines(t), ROWS);
  free(t);
  /* Deleted rows stay deleted under a filter, with pushdown on or off. */
  qv_scan_options on = QV_SCAN_OPTIONS_INIT;
  on.filter = "id < 12";
  t = scan_text(&on, NULL, NULL);
  assert_int_equal(count_lines(t), 2);
  free(t);
  on.predicate_pushdown = false;
  t = scan_text(&on, NULL, NULL);
  assert_int_equal(count_lines(t), 2);
  free(t);
  assert_int_equal(qv_dataset_delete_where(g_dir, "id < 0", &deleted, &version, &err), QV_OK);
  assert_int_equal(deleted, 0);
  assert_int_equal(version, 2);
  /* An expression keeps its own semantics: Polars' `/` divides exactly,
   * so id / 2 > 4999 holds for 9999 alone, where SQL's integer division
   * holds for no row. */
  qv_expr *e;
  assert_int_equal(qv_polars_parse("pl.col('id') / 2 > 4999", &e, &err), QV_OK);
  assert_int_equal(qv_dataset_delete_where(g_dir, "id / 2 > 4999", &deleted, &version, &err), QV_OK);
  assert_int_equal(deleted, 0);
  assert_int_equal(qv_dataset_delete_matching(g_dir, e, &deleted, &version, &err), QV_OK);
  assert_int_equal(deleted, 1);
  assert_int_equal(version, 3);
  qv_expr_destroy(e);
  t = scan_text(&o, NULL, NULL); /* version 1 */
  assert_non_null(strstr(t, "\n9999\n"));
  free(t);
  o.dataset_version = 0;
  t = scan_text(&o, NULL, NULL);
  assert_int_equal(count_lines(t), ROWS - 12);
  assert_null(strstr(t, "\n9999\n"));
  free(t);
  assert_int_equal(qv_dataset_delete_matching(g_dir, NULL, &deleted, &version, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, "delete: a filter is required (use 'true' to delete every row)");
}

/* Page ranges scanned on several threads (scanner.c's rounds) give the
 * same rows in the same order, the same batches and the same counters as
 * one thread.  Runs after test_delete_where, so deletion vectors are read
 * too. */
static void compare_threads(qv_scan_options *o, const char *what) {
  qv_scan_counters c1, c4;
  int b1, b4;
  int before = qv_set_threads(1);
  char *t1 = scan_text(o, &c1, &b1);
  qv_set_threads(4);
  char *t4 = scan_text(o, &c4, &b4);
  qv_set_threads(before);
  if (strcmp(t1, t4) != 0) fail_msg("%s: rows differ between 1 and 4 threads", what);
  /* without exact batches the pieces are joined as they arrive, a round
   * at a time on several threads: the rows agree, the batches need not */
  if (o->exact_batches) assert_int_equal(b1, b4);
  assert_int_equal(c1.fragments, c4.fragments);
  assert_int_equal(c1.pages_total, c4.pages_total);
  assert_int_equal(c1.pages_pruned, c4.pages_pruned);
  assert_int_equal(c1.rows_scanned, c4.rows_scanned);
  assert_int_equal(c1.rows_selected, c4.rows_selected);
  assert_int_equal(c1.rows_returned, c4.rows_returned);
  for (int32_t c = 0; c < c1.n_columns; c++) {
    assert_int_equal(c1.columns[c].bytes_read, c4.columns[c].bytes_read);
    assert_int_equal(c1.columns[c].bytes_decoded, c4.columns[c].bytes_decoded);
    assert_int_equal(c1.columns[c].pages_read, c4.columns[c].pages_read);
  }
  free(t1);
  free(t4);
}

static void test_threads_agree(void **state) {
  (void)state;
  const char *filters[] = {
      NULL,    "val > 0.5", "cat = 'c3' AND id > 100", "name LIKE 'name-1%'", "val IS NULL", "id BETWEEN 2500 AND 7400",
      "id < 0"};
  for (size_t f = 0; f < sizeof filters / sizeof *filters; f++)
    for (int variant = 0; variant < 6; variant++) {
      qv_scan_options o = QV_SCAN_OPTIONS_INIT;
      o.filter = filters[f];
      o.predicate_pushdown = variant != 1;
      o.with_row_id = variant == 2;
      o.batch_size = variant == 3 ? 777 : variant == 5 ? 300 : 8192;
      /* pieces as they come, the small ones joined (built on the lanes'
       * threads alike) */
      o.exact_batches = variant < 4;
      const char *cols[] = {"name", "id"};
      if (variant == 3) {
        o.columns = cols;
        o.n_columns = 2;
      }
      char what[128];
      snprintf(what, sizeof what, "filter %s, variant %d", filters[f] ? filters[f] : "none", variant);
      compare_threads(&o, what);
    }
}

/* Rounds of many pages: a filter that keeps one row of each 50-row page
 * makes the scanner's rounds grow (up to 64 pages), across fragment ends
 * and mid-fragment rounds cut short; a dense stretch in the middle makes
 * them shrink again.  Rows come back complete and in order whatever the
 * thread count. */
static void test_threads_wide_rounds(void **state) {
  (void)state;
  char dir[64], path[128];
  snprintf(dir, sizeof dir, "/tmp/qv-scan-wide-XXXXXX");
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/ds", dir);
  qv_schema s = QV_SCHEMA_INIT;
  add_field(&s, "id", "int64");
  add_field(&s, "k", "int64");
  qv_builder b[2];
  for (int i = 0; i < 2; i++) assert_int_equal(qv_builder_init(&b[i], &s.fields[i].type, NULL), QV_OK);
  const int64_t rows = 12000;
  for (int64_t i = 0; i < rows; i++) {
    qv_builder_append_int(&b[0], i);
    qv_builder_append_int(&b[1], i % 50);
  }
  qv_array *cols[2];
  for (int i = 0; i < 2; i++) assert_int_equal(qv_builder_finish(&b[i], &cols[i], NULL), QV_OK);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&s, cols, rows, &batch, NULL), QV_OK);
  qv_batch_reader *r;
  assert_int_equal(qv_batch_reader_from_batches(&s, &batch, 1, &r, NULL), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  wo.page_rows = 50;
  wo.max_rows_per_file = 7000; /* fragments of 140 and 100 pages */
  qv_error err;
  assert_int_equal(qv_dataset_write(path, r, &wo, NULL, &err), QV_OK);
  qv_batch_reader_destroy(r);
  qv_batch_release(batch);
  qv_schema_reset(&s);
  const char *filters[] = {"k = 7", "k = 7 OR (id >= 5000 AND id < 6500)"};
  for (int f = 0; f < 2; f++)
    for (int t = 1; t <= 4; t += 3) {
      int before = qv_set_threads(t);
      qv_scan_options o = QV_SCAN_OPTIONS_INIT;
      o.filter = filters[f];
      const char *proj[] = {"id"};
      o.columns = proj;
      o.n_columns = 1;
      qv_scanner *sc;
      assert_int_equal(qv_scanner_open(path, &o, &sc, &err), QV_OK);
      int64_t want = 0, got = 0;
      qv_batch *out = NULL;
      qv_status st;
      while ((st = qv_scanner_next(sc, &out, &err)) == QV_OK && out) {
        const int64_t *ids = (const int64_t *)(const void *)out->columns[0]->buffers[1]->data;
        for (int64_t i = 0; i < out->num_rows; i++, got++) {
          while (!(want % 50 == 7 || (f == 1 && want >= 5000 && want < 6500))) want++;
          if (ids[out->columns[0]->offset + i] != want)
            fail_msg("%s, %d threads: row %lld is %lld, not %lld", filters[f], t, (long long)got,
                     (long long)ids[out->columns[0]->offset + i], (long long)want);
          want++;
        }
        qv_batch_release(out);
      }
      assert_int_equal(st, QV_OK);
      assert_int_equal(got, f == 0 ? rows / 50 : rows / 50 - 30 + 1500);
      qv_scanner_destroy(sc);
      qv_set_threads(before);
    }
  *strrchr(path, '/') = '\0';
  nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A damaged page: the error is the first damaged page's in scan order,
 * whichever thread read it. */
static void test_threads_same_error(void **state) {
  (void)state;
  char dir[64];
  snprintf(dir, sizeof dir, "/tmp/qv-scan-err-XXXXXX");
  assert_non_null(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/ds", dir);
  qv_schema s = QV_SCHEMA_INIT;
  add_field(&s, "x", "float64");
  qv_builder b;
  assert_int_equal(qv_builder_init(&b, &s.fields[0].type, NULL), QV_OK);
  for (int i = 0; i < 20000; i++) qv_builder_append_double(&b, (double)((i * 7919) % 20011) / 7.0);
  qv_array *col;
  assert_int_equal(qv_builder_finish(&b, &col, NULL), QV_OK);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&s, &col, 20000, &batch, NULL), QV_OK);
  qv_batch_reader *r;
  assert_int_equal(qv_batch_reader_from_batches(&s, &batch, 1, &r, NULL), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  wo.page_rows = 1000; /* 20 raw pages of 8000 bytes */
  wo.compression = QV_COMPRESSION_NONE;
  qv_error err;
  assert_int_equal(qv_dataset_write(path, r, &wo, NULL, &err), QV_OK);
  qv_batch_reader_destroy(r);
  qv_batch_release(batch);
  qv_schema_reset(&s);
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  qv_fragment_info fi;
  qv_dataset_fragment(ds, 0, &fi);
  char file[256];
  snprintf(file, sizeof file, "%s/%s", path, fi.path);
  qv_dataset_close(ds);
  FILE *f = fopen(file, "r+b");
  assert_non_null(f);
  const long at[2] = {8 + 8000L * 7 + 100, 8 + 8000L * 5 + 100}; /* inside pages 7 and 5: one round with 4 threads */
  for (int k = 0; k < 2; k++) {
    assert_int_equal(fseek(f, at[k], SEEK_SET), 0);
    int ch = fgetc(f);
    assert_int_equal(fseek(f, at[k], SEEK_SET), 0);
    fputc(ch ^ 0x40, f);
  }
  fclose(f);
  char msg[2][1024];
  for (int t = 0; t < 2; t++) {
    int before = qv_set_threads(t ? 4 : 1);
    qv_scan_options o = QV_SCAN_OPTIONS_INIT;
    qv_scanner *sc;
    assert_int_equal(qv_scanner_open(path, &o, &sc, &err), QV_OK);
    qv_status st;
    qv_batch *out = NULL;
    int64_t rows = 0;
    while ((st = qv_scanner_next(sc, &out, &err)) == QV_OK && out) {
      rows += out->num_rows;
      qv_batch_release(out);
    }
    assert_int_equal(st, QV_ERR_CORRUPT);
    assert_true(rows <= 5000); /* nothing at or after the first damaged page */
    snprintf(msg[t], sizeof msg[t], "%s", err.message);
    qv_scanner_destroy(sc);
    qv_set_threads(before);
  }
  assert_string_equal(msg[0], msg[1]);
  assert_non_null(strstr(msg[0], "page 5"));
  char *slash = strrchr(path, '/');
  *slash = '\0';
  nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_full_scan),
      cmocka_unit_test(test_range_filter_prunes_pages),
      cmocka_unit_test(test_pushdown_on_off_agree),
      cmocka_unit_test(test_known_counts),
      cmocka_unit_test(test_limit_offset_and_batches),
      cmocka_unit_test(test_loose_batches_join_small_pieces),
      cmocka_unit_test(test_row_ids),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_bad_constants_fail_open),
      cmocka_unit_test(test_options_version_1),
      cmocka_unit_test(test_explain),
      cmocka_unit_test(test_polars_expression_filter),
      cmocka_unit_test(test_delete_where),
      cmocka_unit_test(test_threads_agree),
      cmocka_unit_test(test_threads_wide_rounds),
      cmocka_unit_test(test_threads_same_error),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
