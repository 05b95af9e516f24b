/* The dt namespace's block kernels (src/compute/civil.c through
 * polars_temporal.c) against the pinned Polars on edge values of every
 * unit: tests/data/polars_temporal/expected.txt holds Polars' answer to
 * each expression over table.arrow (both written by
 * tests/expr/gen_polars_temporal.py): days around the epoch, leap days and
 * century years from -9999 to 262,000, every unit's boundaries, naive and
 * UTC columns, dates.  Each is evaluated on every row (blocks of 512 plus a
 * remainder) and through selections (the rows backwards; every third row),
 * and must give Polars' type and values.
 *
 * Fixed-offset zones (which Polars does not take) and values at the ends
 * of int64 for every unit (beyond Polars' calendar) are held to an exact
 * oracle built on base's qv_civil_from_days in 128-bit arithmetic. */
#include "compute/compute_test.h"

#include "quiver/expr.h"

#define DATA_DIR QV_TEST_DATA_DIR "/polars_temporal"

static qv_batch *load_table(void) {
  qv_batch_reader *r = NULL;
  qv_error err;
  if (qv_ipc_read_path(DATA_DIR "/table.arrow", &r, &err) != QV_OK) fail_msg("table.arrow: %s", err.message);
  qv_batch *b = NULL;
  if (r->next(r, &b, &err) != QV_OK || !b) fail_msg("table.arrow: no batch: %s", err.message);
  qv_batch_reader_destroy(r);
  return b;
}

/* Row i of an integer or temporal result as text ("null" when null). */
static void value_text(const qv_array *a, int64_t i, char *buf, size_t size) {
  if (!qv_array_is_valid(a, i)) {
    snprintf(buf, size, "null");
    return;
  }
  int64_t r = a->offset + i;
  const uint8_t *v = a->buffers[1]->data;
  long long x = 0;
  switch (a->type.id) {
    case QV_TYPE_INT8: x = ((const int8_t *)v)[r]; break;
    case QV_TYPE_INT16: x = ((const int16_t *)v)[r]; break;
    case QV_TYPE_INT32:
    case QV_TYPE_DATE32: x = ((const int32_t *)v)[r]; break;
    case QV_TYPE_INT64:
    case QV_TYPE_TIMESTAMP: x = ((const int64_t *)v)[r]; break;
    default: fail_msg("unexpected result type %d", (int)a->type.id);
  }
  snprintf(buf, size, "%lld", x);
}

static qv_status eval_text(const char *text, const qv_batch *b, const qv_selection *sel, qv_array **out,
                           qv_error *err) {
  qv_expr *e = NULL;
  QV_RETURN_NOT_OK(qv_polars_parse(text, &e, err));
  qv_status st = qv_expr_bind(e, &b->schema, err);
  if (st == QV_OK) st = qv_eval(e, b, sel, out, err);
  qv_expr_destroy(e);
  return st;
}

/* Compares got (the rows order[0..n) of the table) with the expected
 * values; returns the number of mismatches (printing the first). */
static int compare(const char *text, const qv_array *got, char **want, const int64_t *order, int64_t n,
                   const char *how) {
  int bad = 0;
  for (int64_t k = 0; k < n; k++) {
    char g[32];
    value_text(got, k, g, sizeof g);
    const char *w = want[order ? order[k] : k];
    if (strcmp(g, w) != 0 && bad++ == 0)
      print_error("%s (%s): row %lld: want %s, got %s\n", text, how, (long long)(order ? order[k] : k), w, g);
  }
  return bad;
}

static void test_against_polars(void **state) {
  (void)state;
  qv_batch *b = load_table();
  int64_t n = b->num_rows;
  assert_true(n > 512); /* more than one block */
  qv_selection back = QV_SELECTION_INIT, third = QV_SELECTION_INIT;
  assert_int_equal(qv_selection_reserve(&back, n), QV_OK);
  assert_int_equal(qv_selection_reserve(&third, n), QV_OK);
  int64_t *back_order = calloc((size_t)n, sizeof *back_order), *third_order = calloc((size_t)n, sizeof *third_order);
  assert_non_null(back_order);
  assert_non_null(third_order);
  for (int64_t r = n - 1; r >= 0; r--) {
    back_order[back.count] = r;
    back.rows[back.count++] = (uint32_t)r;
  }
  for (int64_t r = 1; r < n; r += 3) {
    third_order[third.count] = r;
    third.rows[third.count++] = (uint32_t)r;
  }
  FILE *f = fopen(DATA_DIR "/expected.txt", "r");
  assert_non_null(f);
  size_t cap = 1 << 20;
  char *line = malloc(cap);
  char **want = calloc((size_t)n, sizeof *want);
  assert_non_null(line);
  assert_non_null(want);
  int cases = 0, failures = 0;
  while (fgets(line, (int)cap, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    assert_non_null(strchr(line, '\n')); /* the line fit */
    line[strcspn(line, "\n")] = '\0';
    char *text = line, *type = strchr(text, '\t');
    assert_non_null(type);
    *type++ = '\0';
    char *vals = strchr(type, '\t');
    assert_non_null(vals);
    *vals++ = '\0';
    cases++;
    qv_error err = {0};
    qv_array *got = NULL;
    qv_status st = eval_text(text, b, NULL, &got, &err);
    if (!strcmp(type, "error")) {
      if (st == QV_OK) {
        print_error("%s: Polars fails (%s), quiver does not\n", text, vals);
        failures++;
      }
      qv_array_release(got);
      continue;
    }
    if (st != QV_OK) {
      print_error("%s: fails: %s\n", text, err.message);
      failures++;
      continue;
    }
    int64_t nv = 0;
    for (char *p = strtok(vals, ","); p && nv < n; p = strtok(NULL, ",")) want[nv++] = p;
    assert_int_equal(nv, n);
    char tn[64];
    qv_datatype_format(&got->type, tn, sizeof tn);
    if (strcmp(tn, type) != 0) {
      print_error("%s: type %s, Polars %s\n", text, tn, type);
      failures++;
    }
    failures += compare(text, got, want, NULL, n, "every row") > 0;
    qv_array_release(got);
    got = NULL;
    assert_int_equal(eval_text(text, b, &back, &got, &err), QV_OK);
    failures += compare(text, got, want, back_order, back.count, "backwards") > 0;
    qv_array_release(got);
    got = NULL;
    assert_int_equal(eval_text(text, b, &third, &got, &err), QV_OK);
    failures += compare(text, got, want, third_order, third.count, "every third row") > 0;
    qv_array_release(got);
  }
  fclose(f);
  assert_true(cases >= 200);
  free(line);
  free(want);
  free(back_order);
  free(third_order);
  qv_selection_reset(&back);
  qv_selection_reset(&third);
  qv_batch_release(b);
  if (failures) fail_msg("%d of %d cases differ from Polars", failures, cases);
}

/* ---- beyond Polars: fixed offsets and the ends of int64 ---------------------- */

static int64_t floor_div128(qv_int128 a, qv_int128 b, qv_int128 *rem) {
  qv_int128 q = a / b, r = a % b;
  if (r < 0) {
    r += b;
    q -= 1;
  }
  *rem = r;
  return (int64_t)q;
}

/* Field `part` of local instant v (units of per), or INT64_MIN for dt.date. */
static int64_t oracle(const char *part, qv_int128 local, int64_t per) {
  qv_int128 tod;
  int64_t days = floor_div128(local, (qv_int128)86400 * per, &tod), y;
  unsigned m, d;
  qv_civil_from_days(days, &y, &m, &d);
  int64_t secs = (int64_t)(tod / per);
  if (!strcmp(part, "year")) return y;
  if (!strcmp(part, "month")) return m;
  if (!strcmp(part, "day")) return d;
  if (!strcmp(part, "quarter")) return (m - 1) / 3 + 1;
  if (!strcmp(part, "weekday")) return ((days + 3) % 7 + 7) % 7 + 1;
  if (!strcmp(part, "ordinal_day")) return days - qv_days_from_civil(y, 1, 1) + 1;
  if (!strcmp(part, "hour")) return secs / 3600;
  if (!strcmp(part, "minute")) return secs / 60 % 60;
  if (!strcmp(part, "second")) return secs % 60;
  if (!strcmp(part, "millisecond")) return (int64_t)(tod % per * 1000 / per);
  if (!strcmp(part, "date")) return days;
  fail_msg("no oracle for %s", part);
  return 0;
}

static void test_offsets_and_extremes(void **state) {
  (void)state;
  enum { N = 1200 };
  static tval vals[N];
  int64_t raw[N];
  uint64_t rng = 5;
  const int64_t edges[] = {INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1, -1, 0, 1, -86400, 86399};
  const char *units[] = {"s", "ms", "us", "ns"};
  const int64_t pers[] = {1, 1000, 1000000, 1000000000};
  const char *zones[] = {"+05:30", "-09:45", "Etc/UTC"};
  const int64_t offs[] = {5 * 3600 + 1800, -(9 * 3600 + 2700), 0};
  const char *parts[] = {"year", "month",  "day",    "quarter",     "weekday", "ordinal_day",
                         "hour", "minute", "second", "millisecond", "date"};
  qv_selection odd = QV_SELECTION_INIT;
  assert_int_equal(qv_selection_reserve(&odd, N), QV_OK);
  for (int i = 1; i < N; i += 2) odd.rows[odd.count++] = (uint32_t)i;
  for (int u = 0; u < 4; u++) {
    for (int i = 0; i < N; i++) {
      rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
      /* the ends of int64 sit in the second block, among ordinary values */
      raw[i] = i >= 600 && i < 609 ? edges[i - 600]
               : i % 5 == 0        ? (int64_t)rng
                                   : (int64_t)(rng >> 24) - (INT64_C(1) << 39) * (pers[u] > 1000 ? 1000 : 1);
      vals[i] = TI(raw[i]);
    }
    for (int z = 0; z < 3; z++) {
      char type[64];
      snprintf(type, sizeof type, "timestamp[%s, %s]", units[u], zones[z]);
      qv_array *col = t_arr(type, vals, N);
      qv_batch *b = t_batch(&col, 1);
      for (size_t p = 0; p < sizeof parts / sizeof *parts; p++) {
        char text[96];
        if (!strcmp(parts[p], "date")) snprintf(text, sizeof text, "pl.col(\"c0\").dt.date()");
        else snprintf(text, sizeof text, "pl.col(\"c0\").dt.%s()", parts[p]);
        for (int pass = 0; pass < 2; pass++) {
          const qv_selection *sel = pass ? &odd : NULL;
          int64_t rows = pass ? odd.count : N;
          qv_array *got = NULL;
          qv_error err;
          if (eval_text(text, b, sel, &got, &err) != QV_OK)
            fail_msg("%s [%s, %s]: %s", text, units[u], zones[z], err.message);
          for (int64_t k = 0; k < rows; k++) {
            int64_t i = pass ? odd.rows[k] : k;
            qv_int128 local = (qv_int128)raw[i] + (qv_int128)offs[z] * pers[u];
            int64_t want = oracle(parts[p], local, pers[u]);
            char g[32], w[32];
            value_text(got, k, g, sizeof g);
            /* dt.date of seconds beyond int32 days wraps, as in Polars' cast */
            if (!strcmp(parts[p], "date")) want = (int32_t)want;
            else if (!strcmp(parts[p], "year") && got->type.id == QV_TYPE_INT32) want = (int32_t)want;
            snprintf(w, sizeof w, "%lld", (long long)want);
            if (strcmp(g, w) != 0)
              fail_msg("%s [%s, %s], row %lld (%lld): want %s, got %s", text, units[u], zones[z], (long long)i,
                       (long long)raw[i], w, g);
          }
          qv_array_release(got);
        }
      }
      qv_batch_release(b);
    }
  }
  qv_selection_reset(&odd);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_against_polars),
      cmocka_unit_test(test_offsets_and_extremes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
