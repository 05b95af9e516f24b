/* The BigQuery row_restriction translator.  Every case in
 * tests/data/pushdown/bigquery_cases.txt is parsed with the Polars text
 * front end (or read from Polars' JSON), translated against its schema,
 * and compared byte for byte with bigquery_expected.txt (name, exactness,
 * SQL or the error) and bigquery_explain.txt.  QV_UPDATE_GOLDEN=1 rewrites
 * both.  The rest tests the limits (node budget, 1 MB, is_in size),
 * literal bounds that the front ends cannot spell, names, the schema
 * reader and the float spelling. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/quiver.h"
#include "pushdown_test_util.h"

static qv_expr *parse_case(const char *name, const char *text) {
  qv_expr *e = NULL;
  qv_error err = {0};
  if (strncmp(text, "json:", 5) == 0) {
    char path[1024];
    snprintf(path, sizeof path, "%s/pushdown/bigquery_json/%s.json", QV_TEST_DATA_DIR, text + 5);
    char *json = read_text(path);
    if (!json) fail_msg("%s: cannot read %s", name, path);
    if (qv_polars_from_json(json, strlen(json), &e, &err) != QV_OK) fail_msg("%s: %s", name, err.message);
    free(json);
  } else if (qv_polars_parse(text, &e, &err) != QV_OK) {
    fail_msg("%s: %s", name, err.message);
  }
  return e;
}

static void test_golden_cases(void **state) {
  (void)state;
  char path[1024];
  data_path(path, sizeof path, "bigquery_cases.txt");
  char *cases = read_text(path);
  assert_non_null(cases);
  grow results = {0}, explains = {0};
  int n = 0, translated = 0, declined = 0, inexact = 0, errors = 0;
  char std_schema[1024] = "";
  char *save = NULL;
  for (char *line = strtok_r(cases, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (strncmp(line, "@S\t", 3) == 0) {
      snprintf(std_schema, sizeof std_schema, "%s", line + 3);
      continue;
    }
    if (line[0] == '#' || !line[0]) continue;
    char *t1 = strchr(line, '\t');
    assert_non_null(t1);
    char *t2 = strchr(t1 + 1, '\t');
    assert_non_null(t2);
    *t1 = *t2 = 0;
    const char *name = line, *schema_text = t1 + 1, *expr_text = t2 + 1;
    qv_schema schema = QV_SCHEMA_INIT;
    bool has_schema = strcmp(schema_text, "-") != 0;
    if (has_schema) parse_schema(strcmp(schema_text, "S") == 0 ? std_schema : schema_text, &schema);
    qv_expr *e = parse_case(name, expr_text);
    const qv_schema *sp = has_schema ? &schema : NULL;
    qv_bigquery_filter *f = NULL;
    qv_error err = {0};
    qv_status st = qv_to_bigquery_filter(e, sp, &f, &err);
    put(&results, name);
    if (st != QV_OK) {
      assert_int_equal(st, QV_ERR_INVALID);
      put(&results, "\tERROR\t");
      put(&results, err.message);
      errors++;
    } else if (f) {
      put(&results, f->exact ? "\tTrue\t" : "\tFalse\t");
      put(&results, f->sql);
      translated++;
      if (!f->exact) inexact++;
    } else {
      put(&results, "\tNone");
      declined++;
    }
    put(&results, "\n");
    char *why = NULL;
    qv_error err2 = {0};
    qv_status st2 = qv_bigquery_filter_explain(e, sp, &why, &err2);
    assert_int_equal(st2, st);
    put(&explains, "== ");
    put(&explains, name);
    put(&explains, "\n");
    if (st2 == QV_OK) {
      assert_non_null(why);
      /* Nothing declined exactly when the result is exact. */
      assert_int_equal(strcmp(why, "nothing declined\n") == 0, f != NULL && f->exact);
      put(&explains, why);
    } else {
      assert_string_equal(err2.message, err.message);
      put(&explains, "error: ");
      put(&explains, err2.message);
      put(&explains, "\n");
    }
    qv_free(why);
    qv_bigquery_filter_free(f);
    qv_expr_destroy(e);
    qv_schema_reset(&schema);
    n++;
  }
  assert_true(n >= 150);
  assert_true(translated > 0 && declined > 0 && inexact > 0 && errors > 0);
  check_golden("bigquery_expected.txt", results.p);
  check_golden("bigquery_explain.txt", explains.p);
  free(results.p);
  free(explains.p);
  free(cases);
}

/* Translates e against schema (may be NULL); NULL sql means None. */
static void expect(qv_expr *e, const qv_schema *schema, const char *sql, bool exact) {
  assert_non_null(e);
  qv_bigquery_filter *f = NULL;
  qv_error err = {0};
  assert_int_equal(qv_to_bigquery_filter(e, schema, &f, &err), QV_OK);
  if (!sql) {
    assert_null(f);
  } else {
    assert_non_null(f);
    assert_string_equal(f->sql, sql);
    assert_int_equal(f->exact, exact);
  }
  qv_bigquery_filter_free(f);
  qv_expr_destroy(e);
}

static qv_expr *lit(qv_scalar s) { return qv_expr_literal(&s); }
static qv_expr *ilit(int64_t v) { return lit(qv_scalar_int(QV_TYPE_INT64, v)); }

static qv_expr *ts_lit(qv_time_unit unit, const char *tz, int64_t v) {
  qv_scalar s = QV_SCALAR_INIT;
  qv_error err;
  assert_int_equal(qv_datatype_timestamp(unit, tz, &s.type, &err), QV_OK);
  s.is_null = false;
  s.v.i = v;
  return qv_expr_literal(&s);
}

/* Bounds the front ends cannot write: dates outside 1..9999, timestamps
 * at and past the ends of BigQuery's range, odd nanoseconds, seconds. */
static void test_literal_bounds(void **state) {
  (void)state;
  expect(qv_expr_binary(QV_OP_GE, qv_expr_column("d"), lit(qv_scalar_int(QV_TYPE_DATE32, -719162))), NULL,
         "(`d` >= DATE(TIMESTAMP_SECONDS(-719162 * 86400)))", true);
  expect(qv_expr_binary(QV_OP_GE, qv_expr_column("d"), lit(qv_scalar_int(QV_TYPE_DATE32, -719163))), NULL, NULL, false);
  expect(qv_expr_binary(QV_OP_LE, qv_expr_column("d"), lit(qv_scalar_int(QV_TYPE_DATE32, 2932896))), NULL,
         "(`d` <= DATE(TIMESTAMP_SECONDS(2932896 * 86400)))", true);
  expect(qv_expr_binary(QV_OP_LE, qv_expr_column("d"), lit(qv_scalar_int(QV_TYPE_DATE32, 2932897))), NULL, NULL, false);
  expect(qv_expr_binary(QV_OP_LE, qv_expr_column("t"), ts_lit(QV_UNIT_MICRO, "UTC", INT64_C(253402300799999999))), NULL,
         "(`t` <= TIMESTAMP_MICROS(253402300799999999))", true);
  expect(qv_expr_binary(QV_OP_LE, qv_expr_column("t"), ts_lit(QV_UNIT_MICRO, "UTC", INT64_C(253402300800000000))), NULL,
         NULL, false);
  expect(qv_expr_binary(QV_OP_GE, qv_expr_column("t"), ts_lit(QV_UNIT_MICRO, NULL, INT64_C(-62135596800000000))), NULL,
         "(`t` >= DATETIME(TIMESTAMP_MICROS(-62135596800000000)))", true);
  expect(qv_expr_binary(QV_OP_GE, qv_expr_column("t"), ts_lit(QV_UNIT_MICRO, NULL, INT64_C(-62135596800000001))), NULL,
         NULL, false);
  expect(qv_expr_binary(QV_OP_LE, qv_expr_column("t"), ts_lit(QV_UNIT_MILLI, NULL, INT64_C(253402300799999))), NULL,
         "(`t` <= DATETIME(TIMESTAMP_MILLIS(253402300799999)))", true);
  expect(qv_expr_binary(QV_OP_LE, qv_expr_column("t"), ts_lit(QV_UNIT_MILLI, NULL, INT64_C(253402300800000))), NULL,
         NULL, false);
  expect(qv_expr_binary(QV_OP_LE, qv_expr_column("t"), ts_lit(QV_UNIT_MILLI, "UTC", INT64_C(-62135596800001))), NULL,
         NULL, false);
  expect(qv_expr_binary(QV_OP_LE, qv_expr_column("t"), ts_lit(QV_UNIT_NANO, "UTC", INT64_C(1704153600000001000))), NULL,
         "(`t` <= TIMESTAMP_MICROS(1704153600000001))", true);
  expect(qv_expr_binary(QV_OP_LE, qv_expr_column("t"), ts_lit(QV_UNIT_NANO, "UTC", INT64_C(1704153600000000001))), NULL,
         NULL, false);
  expect(qv_expr_binary(QV_OP_LE, qv_expr_column("t"), ts_lit(QV_UNIT_SECOND, "UTC", 5)), NULL, NULL, false);
  /* NUL and other control characters are hex escapes. */
  qv_scalar s = QV_SCALAR_INIT;
  assert_int_equal(qv_scalar_string("a\0b\x1f\x7f", 5, &s), QV_OK);
  expect(qv_expr_binary(QV_OP_EQ, qv_expr_column("s"), qv_expr_literal(&s)), NULL, "(`s` = 'a\\x00b\\x1f\\x7f')", true);
  /* The explanation names the bound. */
  qv_expr *e = qv_expr_binary(QV_OP_LE, qv_expr_column("d"), lit(qv_scalar_int(QV_TYPE_DATE32, 2932897)));
  char *why = NULL;
  qv_error err = {0};
  assert_int_equal(qv_bigquery_filter_explain(e, NULL, &why, &err), QV_OK);
  assert_string_equal(
      why, "declined literal: date outside BigQuery's range 0001-01-01 .. 9999-12-31 [date '10000-01-01']\n");
  qv_free(why);
  qv_expr_destroy(e);
}

/* Names BigQuery disallows are errors, not declines. */
static void check_bad_name(const char *name, const char *message) {
  qv_expr *e = qv_expr_binary(QV_OP_GT, qv_expr_column(name), ilit(1));
  qv_bigquery_filter *f = (qv_bigquery_filter *)&e; /* must be reset */
  qv_error err = {0};
  assert_int_equal(qv_to_bigquery_filter(e, NULL, &f, &err), QV_ERR_INVALID);
  assert_null(f);
  assert_string_equal(err.message, message);
  qv_expr_destroy(e);
}

static void test_names(void **state) {
  (void)state;
  check_bad_name("", "bigquery: an empty column name");
  check_bad_name("a.b", "bigquery: column name 'a.b' contains '.' (U+002E), which BigQuery column names cannot hold");
  check_bad_name("x\x01",
                 "bigquery: column name contains the control character U+0001 at byte 1, which BigQuery "
                 "column names cannot hold");
  check_bad_name(
      "a\xe2\x80\xa8"
      "b",
      "bigquery: column name 'a\xe2\x80\xa8"
      "b' contains '\xe2\x80\xa8' (U+2028), "
      "which BigQuery column names cannot hold");
  char long_name[400];
  memset(long_name, 'x', 301);
  long_name[301] = 0;
  check_bad_name(long_name,
                 "bigquery: column name 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' is longer than 300 characters");
  long_name[300] = 0;
  char sql[420];
  snprintf(sql, sizeof sql, "(`%s` = 1)", long_name);
  expect(qv_expr_binary(QV_OP_EQ, qv_expr_column(long_name), ilit(1)), NULL, sql, true);
  /* A no-break space (Zs) and a combining mark are allowed. */
  expect(qv_expr_binary(QV_OP_EQ,
                        qv_expr_column("a\xc2\xa0"
                                       "e\xcc\x81"),
                        ilit(1)),
         NULL,
         "(`a\xc2\xa0"
         "e\xcc\x81` = 1)",
         true);
}

/* A long AND chain passes the node budget: the first conjuncts (breadth
 * first) still push, the rest degrade; a tree deeper than the depth
 * budget degrades below it. */
static void test_budget(void **state) {
  (void)state;
  qv_schema schema = QV_SCHEMA_INIT;
  parse_schema("a:int64,b:int64", &schema);
  /* Right-deep: c0 & (c1 & (c2 & ...)), each conjunct 3 nodes + the AND. */
  qv_expr *e = qv_expr_binary(QV_OP_NE, qv_expr_column("b"), ilit(9999));
  for (int i = 2999; i >= 0; i--)
    e = qv_expr_binary(QV_OP_AND, qv_expr_binary(QV_OP_NE, qv_expr_column("a"), ilit(i)), e);
  assert_non_null(e);
  qv_bigquery_filter *f = NULL;
  qv_error err = {0};
  assert_int_equal(qv_to_bigquery_filter(e, &schema, &f, &err), QV_OK);
  assert_non_null(f);
  assert_false(f->exact);
  assert_non_null(strstr(f->sql, "(`a` != 0)"));
  assert_null(strstr(f->sql, "(`b` != 9999)")); /* past the budget */
  char *why = NULL;
  assert_int_equal(qv_bigquery_filter_explain(e, &schema, &why, &err), QV_OK);
  assert_non_null(strstr(why, "past the budget of 10000 nodes or 400 levels"));
  qv_free(why);
  qv_bigquery_filter_free(f);
  qv_expr_destroy(e);

  /* Under the budget, the same shape is exact. */
  e = qv_expr_binary(QV_OP_NE, qv_expr_column("b"), ilit(9999));
  for (int i = 100; i >= 0; i--)
    e = qv_expr_binary(QV_OP_AND, qv_expr_binary(QV_OP_NE, qv_expr_column("a"), ilit(i)), e);
  assert_int_equal(qv_to_bigquery_filter(e, &schema, &f, &err), QV_OK);
  assert_non_null(f);
  assert_true(f->exact);
  assert_non_null(strstr(f->sql, "(`b` != 9999)"));
  qv_bigquery_filter_free(f);
  qv_expr_destroy(e);

  /* 5000 nested NOTs beside a shallow conjunct: the conjunct still pushes. */
  qv_expr *deep = qv_expr_binary(QV_OP_GT, qv_expr_column("a"), ilit(1));
  for (int i = 0; i < 20000; i++) deep = qv_expr_unary(QV_OP_NOT, deep);
  e = qv_expr_binary(QV_OP_AND, qv_expr_binary(QV_OP_LT, qv_expr_column("b"), ilit(3)), deep);
  assert_int_equal(qv_bigquery_filter_explain(e, &schema, &why, &err), QV_OK);
  assert_string_equal(why,
                      "declined NOT: past the budget of 10000 nodes or 400 levels: filtered locally\n"
                      "dropped a conjunct of AND: the filter keeps a superset\n");
  qv_free(why);
  expect(e, &schema, "(`b` < 3)", false);
  qv_schema_reset(&schema);
}

static qv_expr *in_list(const char *col, int32_t n, int32_t str_len) {
  qv_expr **args = calloc((size_t)n + 1, sizeof *args);
  assert_non_null(args);
  args[0] = qv_expr_column(col);
  char *buf = malloc((size_t)str_len + 16);
  for (int32_t i = 0; i < n; i++) {
    if (str_len) {
      memset(buf, 'v', (size_t)str_len);
      int k = snprintf(buf, 16, "%d", (int)i);
      buf[k] = 'v';
      qv_scalar s = QV_SCALAR_INIT;
      assert_int_equal(qv_scalar_string(buf, str_len, &s), QV_OK);
      args[i + 1] = qv_expr_literal(&s);
    } else {
      args[i + 1] = ilit(i);
    }
  }
  free(buf);
  qv_expr *e = qv_expr_call(QV_OP_IN, args, n + 1);
  free(args);
  return e;
}

/* is_in: at most 10,000 values and 1 MiB as an Arrow IPC Series. */
static void test_is_in_limits(void **state) {
  (void)state;
  qv_bigquery_filter *f = NULL;
  qv_error err = {0};
  qv_expr *e = in_list("a", 10000, 0);
  assert_int_equal(qv_to_bigquery_filter(e, NULL, &f, &err), QV_OK);
  assert_non_null(f);
  assert_true(f->exact);
  assert_non_null(strstr(f->sql, ", 9999))"));
  qv_bigquery_filter_free(f);
  qv_expr_destroy(e);
  expect(in_list("a", 10001, 0), NULL, NULL, false);
  /* 990 strings of 1,000 bytes: under 1 MiB of IPC (and the SQL under 1 MB). */
  e = in_list("s", 990, 1000);
  assert_int_equal(qv_to_bigquery_filter(e, NULL, &f, &err), QV_OK);
  assert_non_null(f);
  qv_bigquery_filter_free(f);
  qv_expr_destroy(e);
  /* 1,100 of them: over 1 MiB. */
  e = in_list("s", 1100, 1000);
  char *why = NULL;
  assert_int_equal(qv_bigquery_filter_explain(e, NULL, &why, &err), QV_OK);
  assert_non_null(strstr(why, "bytes as an Arrow IPC Series: at most 1048576 push"));
  qv_free(why);
  expect(e, NULL, NULL, false);
}

/* Three conjuncts of about 400 kB each: the third is shed to stay under 1 MB. */
static void test_size_limit(void **state) {
  (void)state;
  qv_expr *e = qv_expr_binary(QV_OP_AND, qv_expr_binary(QV_OP_AND, in_list("s", 390, 1000), in_list("t", 390, 1000)),
                              in_list("u", 390, 1000));
  qv_bigquery_filter *f = NULL;
  qv_error err = {0};
  assert_int_equal(qv_to_bigquery_filter(e, NULL, &f, &err), QV_OK);
  assert_non_null(f);
  assert_false(f->exact);
  assert_true(strlen(f->sql) <= 1000000);
  assert_true(strlen(f->sql) > 700000);
  assert_non_null(strstr(f->sql, "(`s` IN ("));
  assert_non_null(strstr(f->sql, "(`t` IN ("));
  assert_null(strstr(f->sql, "(`u` IN ("));
  char *why = NULL;
  assert_int_equal(qv_bigquery_filter_explain(e, NULL, &why, &err), QV_OK);
  assert_string_equal(why, "shed a conjunct: the restriction would pass the 1 MB limit\n");
  qv_free(why);
  qv_bigquery_filter_free(f);
  qv_expr_destroy(e);
}

static void check_schema(const char *json, const char *want) {
  qv_schema s = QV_SCHEMA_INIT;
  qv_error err = {0};
  if (qv_bigquery_schema_from_json(json, strlen(json), &s, &err) != QV_OK) fail_msg("%s", err.message);
  char got[2048] = "";
  size_t k = 0;
  for (int32_t i = 0; i < s.n_fields; i++) {
    char ty[256];
    qv_datatype_format(&s.fields[i].type, ty, sizeof ty);
    k += (size_t)snprintf(got + k, sizeof got - k, "%s%s:%s%s", i ? "," : "", s.fields[i].name, ty,
                          s.fields[i].nullable ? "" : "!");
  }
  assert_string_equal(got, want);
  qv_schema_reset(&s);
}

static void check_schema_error(const char *json, qv_status code, const char *message) {
  qv_schema s = QV_SCHEMA_INIT;
  qv_error err = {0};
  assert_int_equal(qv_bigquery_schema_from_json(json, strlen(json), &s, &err), code);
  assert_string_equal(err.message, message);
  assert_int_equal(s.n_fields, 0);
}

static void test_schema(void **state) {
  (void)state;
  check_schema(
      "[{\"name\":\"b\",\"type\":\"BOOLEAN\",\"mode\":\"REQUIRED\"},{\"name\":\"i\",\"type\":\"INTEGER\"},"
      "{\"name\":\"f\",\"type\":\"FLOAT\"},{\"name\":\"n\",\"type\":\"NUMERIC\"},{\"name\":\"bn\",\"type\":\"BIGNUMERIC\"},"
      "{\"name\":\"s\",\"type\":\"STRING\"},{\"name\":\"j\",\"type\":\"JSON\"},{\"name\":\"g\",\"type\":\"GEOGRAPHY\"},"
      "{\"name\":\"by\",\"type\":\"BYTES\"},{\"name\":\"d\",\"type\":\"DATE\"},{\"name\":\"dt\",\"type\":\"DATETIME\"},"
      "{\"name\":\"tm\",\"type\":\"TIME\"},{\"name\":\"ts\",\"type\":\"TIMESTAMP\"},{\"name\":\"iv\",\"type\":\"INTERVAL\"},"
      "{\"name\":\"r\",\"type\":\"RECORD\",\"mode\":\"REPEATED\",\"fields\":[{\"name\":\"x\",\"type\":\"INT64\"},"
      "{\"name\":\"y\",\"type\":\"STRING\",\"mode\":\"REPEATED\"}]}]",
      "b:bool!,i:int64,f:float64,n:decimal(38,9),bn:string,s:string,j:string,g:string,by:binary,d:date32,"
      "dt:timestamp[us],tm:time64[us],ts:timestamp[us, UTC],iv:duration[us],"
      "r:list<struct<x: int64, y: list<string>>>");
  check_schema("{\"fields\":[{\"name\":\"a\",\"type\":\"INT64\",\"mode\":\"NULLABLE\"}]}", "a:int64");
  check_schema(
      "{\"kind\":\"bigquery#table\",\"schema\":{\"fields\":[{\"name\":\"a\",\"type\":\"BOOL\"}]},"
      "\"timePartitioning\":{\"type\":\"DAY\"}}",
      "a:bool,_PARTITIONDATE:date32,_PARTITIONTIME:timestamp[us, UTC]");
  check_schema(
      "{\"schema\":{\"fields\":[{\"name\":\"a\",\"type\":\"DATE\"}]},\"timePartitioning\":{\"type\":\"DAY\",\"field\":\"a\"}}",
      "a:date32");
  check_schema_error("[{\"name\":\"a\",\"type\":\"INT64\"},]", QV_ERR_PARSE,
                     "bigquery schema: expected a value, found ']' at byte 29");
  check_schema_error("[{\"type\":\"INT64\"}]", QV_ERR_PARSE, "bigquery schema: a field without a name at byte 1");
  check_schema_error("[{\"name\":\"a\"}]", QV_ERR_PARSE, "bigquery schema: a field without a type at byte 1");
  check_schema_error("[{\"name\":\"a\",\"type\":\"FLOAT32\"}]", QV_ERR_UNSUPPORTED,
                     "bigquery schema: unknown type 'FLOAT32' at byte 20");
  check_schema_error("[{\"name\":\"a\",\"type\":\"INT64\",\"mode\":\"MAYBE\"}]", QV_ERR_PARSE,
                     "bigquery schema: expected mode NULLABLE, REQUIRED or REPEATED at byte 35");
  check_schema_error("[{\"name\":\"a\",\"type\":\"RECORD\"}]", QV_ERR_PARSE,
                     "bigquery schema: expected an array of fields at byte 0");
  check_schema_error("[{\"name\":\"a\",\"type\":\"INT64\"},{\"name\":\"a\",\"type\":\"INT64\"}]", QV_ERR_PARSE,
                     "bigquery schema: field 'a' appears twice at byte 29");
  check_schema_error("42", QV_ERR_PARSE, "bigquery schema: expected an array of fields at byte 0");
}

/* A schema read from BigQuery JSON drives the translation. */
static void test_schema_drives_translation(void **state) {
  (void)state;
  const char *json = "[{\"name\":\"x\",\"type\":\"FLOAT\"},{\"name\":\"n\",\"type\":\"INTEGER\"}]";
  qv_schema s = QV_SCHEMA_INIT;
  qv_error err = {0};
  assert_int_equal(qv_bigquery_schema_from_json(json, strlen(json), &s, &err), QV_OK);
  qv_expr *e = NULL;
  assert_int_equal(qv_polars_parse("(pl.col(\"x\") > 1) & (pl.col(\"n\") > 1)", &e, &err), QV_OK);
  expect(e, &s, "(((`x` > 1) OR IS_NAN(`x`)) AND (`n` > 1))", true);
  qv_schema_reset(&s);
}

static void test_arguments(void **state) {
  (void)state;
  qv_error err = {0};
  qv_bigquery_filter *f = (qv_bigquery_filter *)&err;
  assert_int_equal(qv_to_bigquery_filter(NULL, NULL, &f, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "NULL"));
  char *why = (char *)&err;
  assert_int_equal(qv_bigquery_filter_explain(NULL, NULL, &why, &err), QV_ERR_INVALID);
  qv_bigquery_filter_free(NULL);
  qv_schema s = QV_SCHEMA_INIT;
  assert_int_equal(qv_bigquery_schema_from_json(NULL, 0, &s, &err), QV_ERR_INVALID);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_golden_cases), cmocka_unit_test(test_literal_bounds),
      cmocka_unit_test(test_names),        cmocka_unit_test(test_budget),
      cmocka_unit_test(test_is_in_limits), cmocka_unit_test(test_size_limit),
      cmocka_unit_test(test_schema),       cmocka_unit_test(test_schema_drives_translation),
      cmocka_unit_test(test_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
