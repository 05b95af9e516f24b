/* The Polars string, temporal and list operators against the pinned
 * Polars itself: tests/data/polars_eval/expected.txt holds what Polars
 * answered for each expression over table.arrow (both written by
 * tests/expr/gen_polars_eval.py).  Each expression is parsed from its
 * Python text (qv_polars_parse), bound against the table's schema,
 * evaluated with the public compute API on every row and again through a
 * selection, and read again from the JSON Polars serializes for it
 * (qv_polars_from_json, json.txt), and compared value for value and type for type; a case Polars
 * refuses must fail here too.  Bind errors are checked by message. */
#include "compute/compute_test.h"

#include "quiver/expr.h"

#define EVAL_DIR QV_TEST_DATA_DIR "/polars_eval"

static qv_batch *load_table(void) {
  qv_batch_reader *r = NULL;
  qv_error err;
  if (qv_ipc_read_path(EVAL_DIR "/table.arrow", &r, &err) != QV_OK) fail_msg("table.arrow: %s", err.message);
  qv_batch *b = NULL;
  if (r->next(r, &b, &err) != QV_OK || !b) fail_msg("table.arrow: no batch: %s", err.message);
  qv_batch_reader_destroy(r);
  return b;
}

/* ---- printing results as the generator does -------------------------------- */

typedef struct text {
  char *p;
  size_t n, cap;
} text;

static void put(text *t, const char *s, size_t n) {
  if (t->n + n + 1 > t->cap) {
    t->cap = (t->n + n + 1) * 2;
    t->p = realloc(t->p, t->cap);
    assert_non_null(t->p);
  }
  memcpy(t->p + t->n, s, n);
  t->n += n;
  t->p[t->n] = '\0';
}
static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

static void put_value(text *t, const qv_array *a, int64_t i) {
  char buf[64];
  if (!qv_array_is_valid(a, i)) {
    puts_(t, "null");
    return;
  }
  int64_t r = a->offset + i;
  const uint8_t *v = a->buffers[1] ? a->buffers[1]->data : NULL;
  switch (a->type.id) {
    case QV_TYPE_BOOL: puts_(t, qv_bit_get(v, r) ? "true" : "false"); return;
    case QV_TYPE_INT8: snprintf(buf, sizeof buf, "%d", ((const int8_t *)v)[r]); break;
    case QV_TYPE_INT16: snprintf(buf, sizeof buf, "%d", ((const int16_t *)v)[r]); break;
    case QV_TYPE_INT32:
    case QV_TYPE_DATE32: snprintf(buf, sizeof buf, "%d", ((const int32_t *)v)[r]); break;
    case QV_TYPE_INT64:
    case QV_TYPE_TIMESTAMP: snprintf(buf, sizeof buf, "%lld", (long long)((const int64_t *)v)[r]); break;
    case QV_TYPE_UINT8: snprintf(buf, sizeof buf, "%u", ((const uint8_t *)v)[r]); break;
    case QV_TYPE_UINT16: snprintf(buf, sizeof buf, "%u", ((const uint16_t *)v)[r]); break;
    case QV_TYPE_UINT32: snprintf(buf, sizeof buf, "%u", ((const uint32_t *)v)[r]); break;
    case QV_TYPE_UINT64: snprintf(buf, sizeof buf, "%llu", (unsigned long long)((const uint64_t *)v)[r]); break;
    case QV_TYPE_STRING: {
      int32_t len;
      const uint8_t *p = qv_array_str(a, i, &len);
      puts_(t, "\"");
      for (int32_t k = 0; k < len; k++) {
        uint8_t ch = p[k];
        if (ch == '"') puts_(t, "\\\"");
        else if (ch == '\\') puts_(t, "\\\\");
        else if (ch < 0x20 || ch == 0x7f) {
          snprintf(buf, sizeof buf, "\\u%04x", ch);
          puts_(t, buf);
        } else put(t, (const char *)&p[k], 1);
      }
      puts_(t, "\"");
      return;
    }
    default: fail_msg("unexpected result type %d", (int)a->type.id);
  }
  puts_(t, buf);
}

/* "type<TAB>[v, v, ...]" of rows order[0..n) of a (order NULL: 0..n). */
static char *result_text(const qv_array *a, const int64_t *order, int64_t n) {
  text t = {NULL, 0, 0};
  char tb[128];
  qv_datatype_format(&a->type, tb, sizeof tb);
  puts_(&t, tb);
  puts_(&t, "\t[");
  for (int64_t i = 0; i < n; i++) {
    if (i) puts_(&t, ", ");
    put_value(&t, a, order ? order[i] : i);
  }
  puts_(&t, "]");
  return t.p;
}

/* Splits "[v, v, ...]" of the expected line into values (strings keep
 * their quotes), to permute them for the selection run. */
static int64_t split_values(const char *s, const char **starts, int64_t *lens, int64_t cap) {
  int64_t n = 0;
  const char *p = s + 1;
  while (*p && *p != ']' && n < cap) {
    const char *b = p;
    if (*p == '"') {
      p++;
      while (*p && *p != '"') p += *p == '\\' ? 2 : 1;
      p++;
    } else {
      while (*p && *p != ',' && *p != ']') p++;
    }
    starts[n] = b;
    lens[n++] = p - b;
    if (*p == ',') p += 2;
  }
  return n;
}

/* ---- the cases ------------------------------------------------------------------ */

typedef enum { RUN_OK, RUN_PARSE, RUN_BIND, RUN_EVAL } run_stage;

/* Parses expr (Python text, or Polars' JSON when json), binds it to b's
 * schema and evaluates it on sel. */
static run_stage run_as(const char *expr, bool json, const qv_batch *b, const qv_selection *sel, qv_array **out,
                        qv_error *err) {
  qv_expr *e = NULL;
  qv_status ps = json ? qv_polars_from_json(expr, strlen(expr), &e, err) : qv_polars_parse(expr, &e, err);
  if (ps != QV_OK) return RUN_PARSE;
  run_stage st = RUN_OK;
  if (qv_expr_bind(e, &b->schema, err) != QV_OK) st = RUN_BIND;
  else if (qv_eval(e, b, sel, out, err) != QV_OK) st = RUN_EVAL;
  qv_expr_destroy(e);
  return st;
}

static run_stage run(const char *expr, const qv_batch *b, const qv_selection *sel, qv_array **out, qv_error *err) {
  return run_as(expr, false, b, sel, out, err);
}

/* The JSON of case `name` in json.txt (malloc'd), or NULL. */
static char *json_of(const char *name) {
  FILE *f = fopen(EVAL_DIR "/json.txt", "r");
  assert_non_null(f);
  static char line[65536];
  char *found = NULL;
  size_t ln = strlen(name);
  while (!found && fgets(line, sizeof line, f)) {
    if (strncmp(line, name, ln) != 0 || line[ln] != '\t') continue;
    line[strcspn(line, "\n")] = '\0';
    found = strdup(line + ln + 1);
  }
  fclose(f);
  return found;
}

static void test_against_polars(void **state) {
  (void)state;
  qv_batch *b = load_table();
  FILE *f = fopen(EVAL_DIR "/expected.txt", "r");
  assert_non_null(f);
  int64_t n = b->num_rows;
  /* the selection visits rows backwards, skipping row 1 */
  qv_selection sel = QV_SELECTION_INIT;
  assert_int_equal(qv_selection_reserve(&sel, n), QV_OK);
  int64_t order[64];
  assert_true(n <= 64);
  sel.count = 0;
  for (int64_t r = n - 1; r >= 0; r--)
    if (r != 1) {
      order[sel.count] = r;
      sel.rows[sel.count++] = (uint32_t)r;
    }
  char line[16384];
  int cases = 0, failures = 0;
#define FAIL() (failures++)
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    line[strcspn(line, "\n")] = '\0';
    char *name = line, *expr = strchr(name, '\t');
    assert_non_null(expr);
    *expr++ = '\0';
    char *want = strchr(expr, '\t');
    assert_non_null(want);
    *want++ = '\0';
    cases++;
    qv_error err = {0};
    qv_array *got = NULL;
    run_stage st = run(expr, b, NULL, &got, &err);
    if (strncmp(want, "error\t", 6) == 0) {
      if (st == RUN_OK) {
        char *g = result_text(got, NULL, n);
        print_error("%s: Polars fails (%s) but quiver gives %s\n", name, want + 6, g);
        free(g);
        FAIL();
      } else if (st == RUN_PARSE) {
        print_error("%s: does not parse: %s\n", name, err.message);
        FAIL();
      }
      qv_array_release(got);
      continue;
    }
    if (st != RUN_OK) {
      print_error("%s: %s fails: %s\n   want %s\n", name,
                  st == RUN_PARSE  ? "parse"
                  : st == RUN_BIND ? "bind"
                                   : "eval",
                  err.message, want);
      FAIL();
      continue;
    }
    char *g = result_text(got, NULL, n);
    if (strcmp(g, want) != 0) {
      print_error("%s: %s\n   want %s\n   got  %s\n", name, expr, want, g);
      FAIL();
    }
    free(g);
    qv_array_release(got);
    /* the same from the JSON Polars serializes */
    char *js = json_of(name);
    if (!js) fail_msg("%s: no JSON in json.txt", name);
    got = NULL;
    st = run_as(js, true, b, NULL, &got, &err);
    free(js);
    if (st != RUN_OK) {
      print_error("%s (json): fails: %s\n", name, err.message);
      FAIL();
      continue;
    }
    g = result_text(got, NULL, n);
    if (strcmp(g, want) != 0) {
      print_error("%s (json): %s\n   want %s\n   got  %s\n", name, expr, want, g);
      FAIL();
    }
    free(g);
    qv_array_release(got);
    /* no rows at all */
    qv_selection none = {sel.rows, 0, sel.capacity};
    got = NULL;
    st = run(expr, b, &none, &got, &err);
    if (st != RUN_OK || got->length != 0) {
      print_error("%s: fails on no rows: %s\n", name, st != RUN_OK ? err.message : "rows returned");
      FAIL();
    }
    qv_array_release(got);
    /* the same through the selection: the expected values permuted */
    got = NULL;
    st = run(expr, b, &sel, &got, &err);
    if (st != RUN_OK) {
      print_error("%s: fails under a selection: %s\n", name, err.message);
      FAIL();
      continue;
    }
    const char *tab = strchr(want, '\t'), *starts[64];
    int64_t lens[64];
    int64_t nv = split_values(tab + 1, starts, lens, 64);
    assert_int_equal(nv, n);
    text w = {NULL, 0, 0};
    put(&w, want, (size_t)(tab - want));
    puts_(&w, "\t[");
    for (int64_t i = 0; i < sel.count; i++) {
      if (i) puts_(&w, ", ");
      put(&w, starts[order[i]], (size_t)lens[order[i]]);
    }
    puts_(&w, "]");
    g = result_text(got, NULL, sel.count);
    if (strcmp(g, w.p) != 0) {
      print_error("%s (selection): %s\n   want %s\n   got  %s\n", name, expr, w.p, g);
      FAIL();
    }
    free(g);
    free(w.p);
    qv_array_release(got);
  }
  fclose(f);
  qv_selection_reset(&sel);
  qv_batch_release(b);
#undef FAIL
  print_message("%d cases against Polars, %d failures\n", cases, failures);
  assert_true(cases >= 200);
  assert_int_equal(failures, 0);
}

/* A filter keeps Polars' rows: year < 1970 (rows 2, 5, 7, 9). */
static void test_filter(void **state) {
  (void)state;
  qv_batch *b = load_table();
  qv_expr *e = NULL;
  qv_error err;
  assert_int_equal(qv_polars_parse("pl.col(\"d\").dt.year() < 1970", &e, &err), QV_OK);
  assert_int_equal(qv_expr_bind(e, &b->schema, &err), QV_OK);
  qv_selection out = QV_SELECTION_INIT;
  assert_int_equal(qv_eval_filter(e, b, NULL, &out, &err), QV_OK);
  assert_int_equal(out.count, 4);
  uint32_t want[] = {2, 5, 7, 9};
  for (int k = 0; k < 4; k++) assert_int_equal(out.rows[k], want[k]);
  qv_selection_reset(&out);
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_bind_errors(void **state) {
  (void)state;
  qv_batch *b = load_table();
  struct {
    const char *expr, *msg;
  } cases[] = {
      {"pl.col(\"i\").str.slice(0, 2)", "filter: str.slice expects a string, got int64 at column 17"},
      {"pl.col(\"s\").str.slice(\"a\", 2)", "filter: str.slice offset expects an integer, got string at column 17"},
      {"pl.col(\"d\").str.to_titlecase()", "filter: str.to_titlecase expects a string, got date32 at column 17"},
      {"pl.col(\"s\").str.strip_chars(pl.col(\"i\"))",
       "filter: str.strip_chars characters expects a string, got int64 at column 17"},
      {"pl.col(\"d\").dt.hour()", "filter: dt.hour is not defined for date32 at column 16"},
      {"pl.col(\"s\").dt.year()", "filter: dt.year expects a date or datetime, got string at column 16"},
      {"pl.col(\"i\").dt.truncate(\"1d\")", "filter: dt.truncate expects a date or datetime, got int64 at column 16"},
      {"pl.col(\"d\").dt.truncate(pl.col(\"s\"))",
       "filter: dt.truncate expects a constant interval such as \"1d\", got string at column 16"},
      {"pl.col(\"s\").list.get(0)", "filter: list.get expects a list, got string at column 18"},
      {"pl.col(\"l\").list.get(\"x\")", "filter: list.get index expects an integer, got string at column 18"},
      {"pl.col(\"s\").str.contains_any([1, 2])",
       "filter: str.contains_any expects a list of strings, got list<int64> at column 17"},
      {"pl.concat_str([pl.col(\"s\"), pl.col(\"l\")])",
       "filter: concat_str cannot turn list<int64> into a string (input 2) at column 1"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    qv_expr *e = NULL;
    qv_error err = {0};
    assert_int_equal(qv_polars_parse(cases[k].expr, &e, &err), QV_OK);
    qv_status st = qv_expr_bind(e, &b->schema, &err);
    if (st == QV_OK) fail_msg("%s: binds", cases[k].expr);
    if (strcmp(err.message, cases[k].msg) != 0)
      fail_msg("%s:\n  want %s\n  got  %s", cases[k].expr, cases[k].msg, err.message);
    qv_expr_destroy(e);
  }
  qv_batch_release(b);
}

/* Evaluation errors name the operator and the problem. */
static void test_eval_errors(void **state) {
  (void)state;
  qv_batch *b = load_table();
  struct {
    const char *expr, *msg;
  } cases[] = {
      {"pl.col(\"l\").list.get(1)",
       "list.get: index 1 is out of bounds for a list of 0 elements (row 1); use null_on_oob=True for null"},
      {"pl.col(\"ts\").dt.truncate(\"1x\")",
       "dt.truncate: invalid interval '1x': unknown unit 'x' (expected ns, us, ms, s, m, h, d, w, mo, q or y)"},
      {"pl.col(\"ts\").dt.truncate(\"1mo2d\")",
       "dt.truncate: invalid interval '1mo2d': cannot mix months, weeks and days or smaller units"},
      {"pl.col(\"d\").dt.truncate(\"1d2h\")",
       "dt.truncate: a date cannot be truncated by '1d2h' (days and smaller units mixed)"},
      /* parts that would overflow int64 (or the nanoseconds int64 seconds) */
      {"pl.col(\"ts\").dt.truncate(\"900000000000000000d900000000000000000d900000000000000000d900000000000000000d900000000000000000d900000000000000000d900000000000000000d900000000000000000d900000000000000000d900000000000000000d900000000000000000d\")",
       "dt.truncate: invalid interval '900000000000000000d900000000000000000d90': the interval is too large"},
      {"pl.col(\"ts\").dt.truncate(\"922337203685477580y\")",
       "dt.truncate: invalid interval '922337203685477580y': the interval is too large"},
      {"pl.col(\"ts\").dt.truncate(\"922337203685477580h\")",
       "dt.truncate: invalid interval '922337203685477580h': the interval is too large"},
      {"pl.col(\"s\").str.replace(\"(\", \"x\")",
       "str.replace: invalid pattern at offset 1: missing closing parenthesis"},
      {"pl.col(\"s\").str.slice(0, -1)", "str.slice: negative length -1 (row 0)"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    qv_error err = {0};
    qv_array *got = NULL;
    run_stage st = run(cases[k].expr, b, NULL, &got, &err);
    qv_array_release(got);
    if (st != RUN_EVAL) fail_msg("%s: stage %d, %s", cases[k].expr, (int)st, err.message);
    if (strcmp(err.message, cases[k].msg) != 0)
      fail_msg("%s:\n  want %s\n  got  %s", cases[k].expr, cases[k].msg, err.message);
  }
  qv_batch_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_against_polars),
      cmocka_unit_test(test_filter),
      cmocka_unit_test(test_bind_errors),
      cmocka_unit_test(test_eval_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
