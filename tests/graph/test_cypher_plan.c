/* The Cypher planner's rules (src/graph/cypher_plan_rules.c): start filters
 * pushed into the dataset scanner give exactly the rows CypherFilterExec
 * gives (nulls, NaN, -0.0, integers past 2^53, int vs float constants,
 * strings by code point, bools, IN with nulls and empty lists, chains,
 * AND/OR/XOR/NOT), with and without the CSR; what is not exact stays out
 * of the scanner; EXPLAIN shows the pushed filter and the estimates that
 * chose a root; a scalar index answers a pushed conjunct. */
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/cypher_plan_int.h"
#include "quiver/graph.h"
#include "quiver/index.h"
#include "quiver/quiver.h"

static char root[256];
static qv_graph *graph;

static char *at(const char *name) {
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", root, name);
  return buf[k];
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

/* ---- the data: P(id, i, f, s, b, n32, f32) in two fragments of pages of 4 rows ---- */

#define NROWS 12
#define NUL_I INT64_MIN /* marks a null int */

static const int64_t col_i[NROWS] = {
    5, -3, NUL_I, INT64_C(9007199254740993), 0, 42, 7, NUL_I, -INT64_C(9223372036854775807), 5, 100, 3};
static const char *const col_s[NROWS] = {"Ann",  "ann", "\xc3\xa9", "z",  "\xf0\x9f\x98\x80", "\xef\xbf\xbd", NULL, "",
                                         "Anna", "B",   "Ann",      "abc"};
static const int col_b[NROWS] = {1, 0, -1, 1, 0, -1, 1, 0, 1, -1, 0, 1}; /* -1: null */

static double col_f(int r) {
  switch (r) {
    case 0: return 1.5;
    case 1: return NAN;
    case 2: return -0.0;
    case 3: return 0.0;
    case 4: return -1; /* null */
    case 5: return 2.0;
    case 6: return -1e308;
    case 7: return INFINITY;
    case 8: return 3.25;
    case 9: return NAN;
    case 10: return 7.0;
    default: return 9007199254740992.0;
  }
}

static qv_array *finish(qv_builder *b) {
  qv_array *a;
  qv_error err;
  if (qv_builder_finish(b, &a, &err) != QV_OK) fail_msg("%s", err.message);
  qv_builder_reset(b);
  return a;
}

static void add_field(qv_schema *sc, const char *name, qv_type_id id) {
  qv_field f;
  qv_datatype t = qv_datatype_simple(id);
  qv_error err;
  assert_int_equal(qv_field_init(&f, name, &t, true, &err), QV_OK);
  assert_int_equal(qv_schema_add(sc, &f, &err), QV_OK);
  qv_field_reset(&f);
}

/* Rows [from, to) of P appended to the dataset. */
static void write_rows(int from, int to, qv_write_mode mode) {
  static const qv_type_id types[7] = {QV_TYPE_INT64, QV_TYPE_INT64, QV_TYPE_FLOAT64, QV_TYPE_STRING,
                                      QV_TYPE_BOOL,  QV_TYPE_INT32, QV_TYPE_FLOAT32};
  static const char *const names[7] = {"id", "i", "f", "s", "b", "n32", "f32"};
  qv_schema sc = QV_SCHEMA_INIT;
  qv_array *cols[7];
  qv_error err;
  for (int c = 0; c < 7; c++) {
    add_field(&sc, names[c], types[c]);
    qv_builder b;
    qv_datatype t = qv_datatype_simple(types[c]);
    assert_int_equal(qv_builder_init(&b, &t, &err), QV_OK);
    for (int r = from; r < to; r++) {
      qv_status st = QV_OK;
      switch (c) {
        case 0: st = qv_builder_append_int(&b, r + 1); break;
        case 1: st = col_i[r] == NUL_I ? qv_builder_append_null(&b) : qv_builder_append_int(&b, col_i[r]); break;
        case 2: st = r == 4 ? qv_builder_append_null(&b) : qv_builder_append_double(&b, col_f(r)); break;
        case 3:
          st = col_s[r] ? qv_builder_append_bytes(&b, col_s[r], (int64_t)strlen(col_s[r])) : qv_builder_append_null(&b);
          break;
        case 4: st = col_b[r] < 0 ? qv_builder_append_null(&b) : qv_builder_append_bool(&b, col_b[r] == 1); break;
        case 5: st = qv_builder_append_int(&b, r - 5); break;
        default: st = qv_builder_append_double(&b, r == 5 ? NAN : r * 0.25); break;
      }
      assert_int_equal(st, QV_OK);
    }
    cols[c] = finish(&b);
  }
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&sc, cols, to - from, &batch, &err), QV_OK);
  qv_batch_reader *rd;
  assert_int_equal(qv_batch_reader_from_batches(&sc, &batch, 1, &rd, &err), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  wo.mode = mode;
  wo.page_rows = 4;
  if (qv_dataset_write(at("p"), rd, &wo, NULL, &err) != QV_OK) fail_msg("%s", err.message);
  qv_batch_reader_destroy(rd);
  qv_batch_release(batch);
  qv_schema_reset(&sc);
}

static void write_csv(const char *dataset, const char *csv) {
  qv_csv_options co = QV_CSV_OPTIONS_INIT;
  qv_batch_reader *r;
  qv_error err;
  assert_int_equal(qv_csv_open_buffer(csv, (int64_t)strlen(csv), &co, &r, &err), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  if (qv_dataset_write(at(dataset), r, &wo, NULL, &err) != QV_OK) fail_msg("%s", err.message);
  qv_batch_reader_destroy(r);
}

static int setup(void **state) {
  (void)state;
  snprintf(root, sizeof root, "/tmp/qv-cyplan-XXXXXX");
  assert_non_null(mkdtemp(root));
  write_rows(0, 6, QV_WRITE_CREATE);
  write_rows(6, NROWS, QV_WRITE_APPEND);
  write_csv("k", "src,dst\n1,2\n1,3\n2,3\n3,4\n9,10\n10,11\n12,1\n");
  qv_error err;
  qv_index_options io = QV_INDEX_OPTIONS_INIT;
  if (qv_index_create(at("p"), "n32", QV_INDEX_BTREE, &io, NULL, &err) != QV_OK) fail_msg("%s", err.message);
  qv_graph_decl d = QV_GRAPH_DECL_INIT;
  char spec[1024];
  snprintf(spec, sizeof spec, "P=%s:id", at("p"));
  assert_int_equal(qv_graph_decl_parse_node(&d, spec, &err), QV_OK);
  snprintf(spec, sizeof spec, "K=%s:src->dst:P->P", at("k"));
  assert_int_equal(qv_graph_decl_parse_rel(&d, spec, &err), QV_OK);
  if (qv_graph_create(at("g"), &d, NULL, &err) != QV_OK) fail_msg("%s", err.message);
  qv_graph_decl_reset(&d);
  if (qv_graph_open(at("g"), &graph, &err) != QV_OK) fail_msg("%s", err.message);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  qv_graph_close(graph);
  nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  return 0;
}

/* ---- running queries ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The rows of a query as Cypher text, one string per row ("a|b"), sorted
 * and joined by newlines (qv_malloc'd). */
static char *rows_of(const char *q, const qv_cypher_params *params, bool push, bool csr) {
  graph->store->no_pushdown = !push;
  qv_cypher_options o = QV_CYPHER_OPTIONS_INIT;
  o.render_values = true;
  o.use_csr = csr;
  qv_batch_reader *r = NULL;
  qv_error err;
  if (qv_cypher_query(graph, q, params, &o, &r, &err) != QV_OK) fail_msg("%s: %s", q, err.message);
  char **rows = NULL;
  size_t n = 0, total = 1;
  for (;;) {
    qv_batch *b = NULL;
    if (r->next(r, &b, &err) != QV_OK) fail_msg("%s: %s", q, err.message);
    if (!b) break;
    for (int64_t i = 0; i < b->num_rows; i++) {
      char line[1024];
      size_t len = 0;
      line[0] = '\0';
      for (int32_t c = 0; c < b->schema.n_fields; c++) {
        int32_t sl = 0;
        const uint8_t *s = qv_array_str(b->columns[c], i, &sl);
        len += (size_t)snprintf(line + len, sizeof line - len, "%s%.*s", c ? "|" : "", (int)sl, (const char *)s);
        if (len >= sizeof line) len = sizeof line - 1;
      }
      rows = realloc(rows, (n + 1) * sizeof *rows);
      rows[n++] = strdup(line);
      total += strlen(line) + 1;
    }
    qv_batch_release(b);
  }
  qv_batch_reader_destroy(r);
  graph->store->no_pushdown = false;
  if (n) qsort(rows, n, sizeof *rows, cmp_str);
  char *out = qv_malloc(total);
  out[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    strcat(out, rows[i]);
    strcat(out, "\n");
    free(rows[i]);
  }
  free(rows);
  return out;
}

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static char *explain_of(const char *q, const qv_cypher_params *params, bool analyze) {
  qv_cypher_options o = QV_CYPHER_OPTIONS_INIT;
  char *text = NULL;
  qv_error err;
  if (qv_cypher_explain(graph, q, params, &o, analyze, &text, &err) != QV_OK) fail_msg("%s: %s", q, err.message);
  return text;
}

/* The NodeScanExec line of a plan (static buffer). */
static const char *scan_line(const char *plan) {
  static char line[1024];
  const char *s = strstr(plan, "NodeScanExec:");
  if (!s) return "";
  size_t n = strcspn(s, "\n");
  snprintf(line, sizeof line, "%.*s", (int)n, s);
  return line;
}

typedef struct pcase {
  const char *where;
  int rows;   /* expected */
  int pushed; /* 0: nothing in the scanner, 1: the whole WHERE, 2: part of it */
} pcase;

/* Every case: the rows with the pushdown equal those without (and the
 * count expected), with and without the CSR; pushed or not as said. */
static void check_cases(const pcase *cases, size_t n, const qv_cypher_params *params) {
  for (size_t i = 0; i < n; i++) {
    char q[512];
    snprintf(q, sizeof q, "MATCH (p:P) WHERE %s RETURN p.id AS id", cases[i].where);
    char *with = rows_of(q, params, true, true), *without = rows_of(q, params, false, true);
    char *hash = rows_of(q, params, true, false);
    if (strcmp(with, without) != 0 || strcmp(with, hash) != 0)
      fail_msg("%s:\npushed:\n%s\nnot pushed:\n%s\nhash plan:\n%s", q, with, without, hash);
    if (count_lines(with) != cases[i].rows)
      fail_msg("%s: %d rows, expected %d:\n%s", q, count_lines(with), cases[i].rows, with);
    char *plan = explain_of(q, params, false);
    const char *line = scan_line(plan);
    bool has_filter = strstr(line, "filter=") || strstr(line, "(node index)"),
         has_cypher = strstr(plan, "CypherFilterExec") != NULL;
    if (has_filter != (cases[i].pushed > 0) || has_cypher != (cases[i].pushed != 1))
      fail_msg("%s: pushed %d, expected %d:\n%s", q, has_filter, cases[i].pushed, plan);
    qv_free(plan);
    qv_free(with);
    qv_free(without);
    qv_free(hash);
  }
}

static void test_integers(void **state) {
  (void)state;
  static const pcase c[] = {
      {"p.i = 5", 2, 1},          {"p.i > 3", 6, 1},
      {"5 < p.i", 4, 1},                                             /* mirrored: 42, 2^53 + 1, 7, 100 */
      {"p.i < 0", 2, 1},          {"p.i >= 9007199254740993", 1, 1}, /* compared as integers, not as 2^53 */
      {"p.i <> 5", 8, 1},         {"p.i IS NULL", 2, 1},
      {"p.i IS NOT NULL", 10, 1}, {"p.i = 5.0", 2, 0},            /* a Float against an integer column stays Cypher's */
      {"p.i IN [5, null]", 2, 1}, {"NOT p.i IN [5, null]", 0, 1}, /* not found in a list with a null: null */
      {"p.i IN []", 0, 0},        {"NOT p.i IN []", 12, 0},       /* null IN [] is false in Cypher */
      {"1 < p.n32 < 5", 3, 1},    {"p.n32 > 3000000000", 0, 1},   /* wider than int32: compared as int64 */
      {"p.n32 >= -2", 9, 1},      {"p.id = 3", 1, 1},             /* the node index finds it */
      {"3 = p.id", 1, 1},         {"p.id = 99", 0, 1},
      {"p.id = -1", 0, 1},        {"p.id = 3 AND p.i > 0", 0, 2}, /* the rest on the one node */
      {"p.id = 3.0", 1, 0},
  };
  check_cases(c, sizeof c / sizeof *c, NULL);
}

static void test_floats(void **state) {
  (void)state;
  static const pcase c[] = {
      {"p.f > 1.0", 6, 1},   /* NaN compares false */
      {"p.f = 0.0", 2, 1},   /* -0.0 = 0.0 */
      {"p.f <> 2.0", 10, 1}, /* NaN <> 2.0 is true */
      {"p.f < 0", 1, 1},     /* an Integer constant against a float column */
      {"p.f = 9007199254740992", 1, 1},
      {"p.f = 9007199254740993", 0, 0}, /* past 2^53: not exact as a double */
      {"p.f >= -0.0", 8, 1},
      {"p.f IS NULL", 1, 1},
      {"p.f = 0.0 / 0.0", 0, 0}, /* not a constant the pushdown reads */
      /* float32: 0, 0.25, ..., 2.75 by quarters, NaN at the sixth */
      {"p.f32 > 0.5", 8, 1}, /* 0.5 is a float32: compared as float32s */
      {"p.f32 = 0.1", 0, 1}, /* 0.1 is not: compared as doubles */
      {"p.f32 < 0.3", 2, 1},
      {"p.f32 <> 1.0", 11, 1},
      {"p.f32 = 1", 1, 1},
  };
  check_cases(c, sizeof c / sizeof *c, NULL);
}

static void test_strings_and_bools(void **state) {
  (void)state;
  static const pcase c[] = {
      {"p.s > 'z'", 3, 1}, /* by code point: é, U+1F600, U+FFFD */
      {"p.s < 'a'", 5, 1},
      {"p.s = 'Ann'", 2, 1},
      {"p.s STARTS WITH 'Ann'", 3, 1},
      {"p.s ENDS WITH 'n'", 3, 1},
      {"p.s CONTAINS 'n'", 4, 1},
      {"p.s STARTS WITH ''", 11, 1},
      {"p.s ENDS WITH ''", 11, 1},
      {"p.s CONTAINS ''", 11, 1},
      {"p.s CONTAINS '\xf0\x9f\x98\x80'", 1, 1},
      {"p.s IN ['Ann', 'B']", 3, 1},
      {"p.s = 1", 0, 0}, /* of another type: stays (false in Cypher) */
      {"p.b = true", 5, 1},
      {"p.b", 5, 1},
      {"NOT p.b", 4, 1},
      {"p.b <> false", 5, 1},
      {"p.b < true", 4, 0}, /* bools' order stays Cypher's */
  };
  check_cases(c, sizeof c / sizeof *c, NULL);
}

static void test_logic(void **state) {
  (void)state;
  static const pcase c[] = {
      {"p.i > 0 OR p.f > 2", 9, 1},
      {"p.i > 0 XOR p.b", 2, 1},
      {"NOT (p.i > 0 AND p.f < 2)", 8, 1},
      {"p.i > 0 AND p.f < 2", 3, 1},
      {"p.i > 0 AND toString(p.i) = '5'", 2, 2}, /* half pushed, half not */
  };
  check_cases(c, sizeof c / sizeof *c, NULL);
  /* the half that translates is pushed, the rest is a CypherFilterExec */
  char *plan = explain_of("MATCH (p:P) WHERE p.i > 0 AND toString(p.i) = '5' RETURN p.id", NULL, false);
  assert_non_null(strstr(scan_line(plan), "filter=(i > 0)"));
  assert_non_null(strstr(plan, "CypherFilterExec: predicate=(toString(p.i) = '5')"));
  qv_free(plan);
}

static void test_params_and_maps(void **state) {
  (void)state;
  static const char *const names[4] = {"x", "name", "list", "fl"};
  static const char *const values[4] = {"5", "'Ann'", "[42, 100]", "5.0"};
  const qv_cypher_params pv = {4, names, values}, *params = &pv;
  static const pcase c[] = {
      {"p.i = $x", 2, 1},
      {"p.s = $name", 2, 1},
      {"p.i IN $list", 2, 1},
      {"p.i = $fl", 2, 0},
  };
  check_cases(c, sizeof c / sizeof *c, params);
  /* property maps: constant entries go to the scanner */
  static const struct {
    const char *q;
    int rows;
  } m[] = {{"MATCH (p:P {s: 'Ann'}) RETURN p.id", 2},      {"MATCH (p:P {i: 5, s: 'B'}) RETURN p.id", 1},
           {"MATCH (p:P {id: $x}) RETURN p.id", 1},        {"MATCH (p:P {id: 4, s: 'z'}) RETURN p.id", 1},
           {"MATCH (p:P {id: 4, s: 'y'}) RETURN p.id", 0}, {"MATCH (p:P {i: 5.0}) RETURN p.id", 2}};
  for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
    char *a = rows_of(m[i].q, params, true, true), *b = rows_of(m[i].q, params, false, true);
    assert_string_equal(a, b);
    assert_int_equal(count_lines(a), m[i].rows);
    qv_free(a);
    qv_free(b);
  }
  char *plan = explain_of("MATCH (p:P {i: 5, s: 'B'}) RETURN p.id", NULL, false);
  assert_non_null(strstr(scan_line(plan), "filter=((i = 5) AND (s = 'B'))"));
  assert_null(strstr(plan, "CypherFilterExec"));
  qv_free(plan);
  /* {i: 5.0} is not exact for an integer column: a CypherFilterExec */
  plan = explain_of("MATCH (p:P {i: 5.0}) RETURN p.id", NULL, false);
  assert_null(strstr(scan_line(plan), "filter="));
  assert_non_null(strstr(plan, "CypherFilterExec: predicate=(p.i = 5.0)"));
  qv_free(plan);
}

/* A hop after a pushed scan, both plans; the hop's own filters stay in
 * the hop. */
static void test_hops(void **state) {
  (void)state;
  const char *q = "MATCH (p:P)-[:K]->(q:P) WHERE p.i > 0 AND q.f > 1 RETURN p.id AS a, q.id AS b";
  char *a = rows_of(q, NULL, true, true), *b = rows_of(q, NULL, false, true), *c = rows_of(q, NULL, true, false);
  assert_string_equal(a, "10|11\n12|1\n");
  assert_string_equal(a, b);
  assert_string_equal(a, c);
  qv_free(a);
  qv_free(b);
  qv_free(c);
}

/* Root choice: a unique id equal to a constant keeps one node, so a path
 * starts there even when written last; EXPLAIN says why. */
static void test_root_by_estimate(void **state) {
  (void)state;
  const char *q = "MATCH (a:P)-[:K]->(b:P) WHERE b.id = 3 RETURN a.id AS a";
  char *plan = explain_of(q, NULL, false);
  const char *line = scan_line(plan);
  if (!strstr(line,
              "NodeScanExec: b:P, rows=12, id=3 (node index), est=1, root by estimate: path rows 2.17 < 13.2 from a"))
    fail_msg("the scan should start at b:\n%s", plan);
  assert_non_null(strstr(plan, "CsrExpandExec: key=b, types=[K], dir=<-, to=a:P"));
  qv_free(plan);
  char *rows = rows_of(q, NULL, true, true), *hash = rows_of(q, NULL, false, false);
  assert_string_equal(rows, "1\n2\n");
  assert_string_equal(rows, hash);
  qv_free(rows);
  qv_free(hash);
  /* no filter: the label-size rule's root, no estimate shown */
  plan = explain_of("MATCH (a:P)-[:K]->(b:P) RETURN a.id", NULL, false);
  assert_string_equal(scan_line(plan), "NodeScanExec: a:P, rows=12");
  qv_free(plan);
}

/* The estimates come from the dataset: page statistics for a range, the
 * scalar index on n32 for its conjuncts. */
static void test_estimates(void **state) {
  (void)state;
  qvg_planner p;
  memset(&p, 0, sizeof p);
  p.st = graph->store;
  /* n32 = -5..6: > 3 keeps 3 of 12; the BTREE index's estimate counts
   * the entries of the index pages the range touches (4) */
  qv_expr *e = NULL;
  qv_error err;
  assert_int_equal(qv_lance_filter_parse("n32 > 3", &e, &err), QV_OK);
  double s = qvg_store_selectivity(p.st, 0, e, 0.5);
  if (!(s >= 0.25 && s < 0.34)) fail_msg("n32 > 3: %g", s);
  qv_expr_destroy(e);
  /* i has no index: page bounds (one page holds 2^53 + 1, another
   * -2^63 + 1) make `i < 0` a rough share, not the default */
  assert_int_equal(qv_lance_filter_parse("f >= 7.0", &e, &err), QV_OK);
  s = qvg_store_selectivity(p.st, 0, e, 0.5);
  if (!(s > 0 && s < 0.5)) fail_msg("f >= 7.0: %g", s);
  qv_expr_destroy(e);
  /* fan-out: 7 edges leave 6 distinct sources, enter 6 distinct targets */
  assert_true(fabs(qvg_store_fanout(p.st, 0, QVG_OUT) - 7.0 / 6) < 1e-9);
  assert_true(fabs(qvg_store_fanout(p.st, 0, QVG_IN) - 7.0 / 6) < 1e-9);
}

/* EXPLAIN ANALYZE of a pushed scan shows what the scanner did: the pages
 * its statistics pruned (n32 = -5..6 in pages of 4, 2, 4, 2 rows). */
static void test_scanner_counters(void **state) {
  (void)state;
  char *plan = explain_of("MATCH (p:P) WHERE p.n32 = 4 RETURN p.id", NULL, true);
  const char *line = scan_line(plan);
  if (!strstr(line, "rows_out=1") || !strstr(line, "pages=4, pages_pruned=3")) fail_msg("%s", plan);
  qv_free(plan);
  /* only the first page holds an i over 1000 (2^53 + 1) */
  plan = explain_of("MATCH (p:P) WHERE p.i > 1000 RETURN p.id", NULL, true);
  line = scan_line(plan);
  if (!strstr(line, "rows_out=1") || !strstr(line, "pages_pruned=3")) fail_msg("%s", plan);
  qv_free(plan);
}

/* ---- the rules on the logical MATCH, directly ---- */

typedef struct lm_fixture {
  qvg_ast *ast;
  qvg_arena arena;
  qvg_planner p;
  qvg_scope s;
  qvg_lmatch *m;
} lm_fixture;

/* The logical plan of the query's first clause (a MATCH), every rule run. */
static void lm_plan(lm_fixture *f, const char *q) {
  memset(f, 0, sizeof *f);
  qv_error err;
  if (qvg_cypher_parse(q, strlen(q), &f->ast, &err) != QV_OK) fail_msg("%s", err.message);
  f->arena = (qvg_arena)QVG_ARENA_INIT;
  f->p.st = graph->store;
  f->p.arena = &f->arena;
  f->p.err = &err;
  const qvg_node *query = qvg_ast_root(f->ast), *match = query->kids[0];
  f->p.rest = (const qvg_node *const *)query->kids + 1;
  f->p.n_rest = query->n_kids - 1;
  assert_int_equal(match->kind, QVG_MATCH);
  assert_int_equal(qvg_lmatch_build(&f->p, &f->s, (const qvg_node *const *)match->kids[0]->kids, match->kids[0]->n_kids,
                                    match->kids[1], &f->m),
                   QV_OK);
  if (qvg_lmatch_plan(&f->p, &f->s, f->m) != QV_OK) fail_msg("%s", err.message);
  f->p.err = NULL;
}

static void lm_free(lm_fixture *f) {
  qvg_lmatch_free(f->m);
  qvg_planner_release(&f->p);
  qvg_arena_free(&f->arena);
  qvg_ast_destroy(f->ast);
}

/* The conjunct whose canonical text (qvg_cypher_print) is text. */
static const qvg_lconj *conj_of(const lm_fixture *f, const char *text) {
  for (int32_t i = 0; i < f->m->n_conj; i++) {
    char *s = qvg_cypher_print(f->m->conj[i].e);
    bool same = s && strcmp(s, text) == 0;
    qv_free(s);
    if (same) return &f->m->conj[i];
  }
  fail_msg("no conjunct %s", text);
  return NULL;
}

/* place_conjuncts puts each conjunct at the first step binding what it
 * reads, in the most specific place there; push_scan_filters takes the
 * start scan's translatable ones; prune_columns lists what later clauses
 * read. */
static void test_rules(void **state) {
  (void)state;
  lm_fixture f;
  lm_plan(&f,
          "MATCH (a:P)-[r:K]->(b:P)-[s:K]->(c:P) WHERE a.i > 0 AND toString(a.s) = 'x' AND r.src = 1 "
          "AND b <> a AND c.f < 2.0 AND a.i + c.i = 4 AND exists((c)-->(a)) AND s.dst = 2 "
          "RETURN b.s, c");
  /* steps: scan a, hop to b, hop to c (no filter sways the root) */
  assert_int_equal(f.m->n_steps, 3);
  assert_int_equal(f.m->paths[0].root, 0);
  assert_false(f.m->paths[0].decided);
  assert_int_equal(f.m->steps[0].kind, QVG_STEP_SCAN);
  assert_int_equal(f.m->steps[2].kind, QVG_STEP_HOP);
  const qvg_lconj *c = conj_of(&f, "(a.i > 0)");
  assert_int_equal(c->at, QVG_AT_SCAN);
  assert_true(c->pushed);
  c = conj_of(&f, "(toString(a.s) = 'x')");
  assert_int_equal(c->at, QVG_AT_SCAN);
  assert_false(c->pushed);
  c = conj_of(&f, "(r.src = 1)");
  assert_int_equal(c->at, QVG_AT_EDGE);
  assert_int_equal(c->step, 1);
  c = conj_of(&f, "(b <> a)");
  assert_int_equal(c->at, QVG_AT_TARGET);
  assert_int_equal(c->step, 1);
  c = conj_of(&f, "(c.f < 2.0)");
  assert_int_equal(c->at, QVG_AT_TARGET);
  assert_int_equal(c->step, 2);
  c = conj_of(&f, "((a.i + c.i) = 4)");
  assert_int_equal(c->at, QVG_AT_TARGET);
  assert_int_equal(c->step, 2);
  c = conj_of(&f, "exists((c)-->(a))"); /* a subquery: never inside a hop */
  assert_int_equal(c->at, QVG_AT_AFTER);
  assert_int_equal(c->step, 2);
  c = conj_of(&f, "(s.dst = 2)");
  assert_int_equal(c->at, QVG_AT_EDGE);
  assert_int_equal(c->step, 2);
  assert_non_null(f.m->steps[0].pushed);
  /* prune_columns: compared whole (b <> a) or returned (c), a node is
   * read whole */
  const char *const *keys;
  assert_int_equal(qvg_lmatch_reads(f.m, "b", &keys), -1);
  assert_int_equal(qvg_lmatch_reads(f.m, "c", &keys), -1);
  lm_free(&f);

  /* ... else its keys: a's `s` (a.i > 0 is the scanner's), b's s and f */
  lm_plan(&f, "MATCH (a:P)-[:K]->(b:P) WHERE a.i > 0 AND toString(a.s) = 'x' WITH b.s AS s, b.f AS f RETURN s, f");
  assert_int_equal(qvg_lmatch_reads(f.m, "a", &keys), 1);
  assert_string_equal(keys[0], "s");
  assert_int_equal(qvg_lmatch_reads(f.m, "b", &keys), 2);
  assert_string_equal(keys[0], "s");
  assert_string_equal(keys[1], "f");
  lm_free(&f);

  /* a start with a unique id written last: the root moves there, the
   * conjunct becomes a node-index lookup, the other end's filter a target */
  lm_plan(&f, "MATCH (a:P)-[:K]->(b:P) WHERE a.i > 0 AND b.id = 3 RETURN a");
  assert_int_equal(f.m->paths[0].root, 2);
  assert_true(f.m->paths[0].decided);
  assert_true(f.m->steps[0].by_id);
  assert_int_equal(f.m->steps[0].id, 3);
  assert_true(f.m->steps[1].reverse);
  c = conj_of(&f, "(a.i > 0)");
  assert_int_equal(c->at, QVG_AT_TARGET);
  assert_int_equal(c->step, 1);
  lm_free(&f);

  /* a path variable counts from the step after its path: a conjunct on it
   * runs after the second path's start */
  lm_plan(&f, "MATCH p = (a:P)-[:K]->(b:P), (c:P) WHERE length(p) = 1 AND c.i = a.i RETURN c");
  c = conj_of(&f, "(length(p) = 1)");
  assert_int_equal(c->at, QVG_AT_AFTER);
  assert_int_equal(c->step, 2);
  c = conj_of(&f, "(c.i = a.i)");
  assert_int_equal(c->at, QVG_AT_AFTER);
  assert_int_equal(c->step, 2);
  lm_free(&f);
}

/* A memory graph's estimates: fixed selectivities, fan-out from its CSR. */
static void test_memory_roots(void **state) {
  (void)state;
  qv_graph *g;
  qv_error err;
  assert_int_equal(qv_graph_open_memory(&g, &err), QV_OK);
  qv_batch_reader *r = NULL;
  /* 10 X, 5 Y, every X -> every Y */
  static const char *const steps[] = {"UNWIND range(1, 5) AS j CREATE (:Y {j: j})",
                                      "UNWIND range(1, 10) AS i CREATE (:X {k: i})",
                                      "MATCH (x:X), (y:Y) CREATE (x)-[:R]->(y)"};
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
    if (qv_cypher_query(g, steps[i], NULL, NULL, &r, &err) != QV_OK) fail_msg("%s", err.message);
    qv_batch *b = NULL;
    do {
      assert_int_equal(r->next(r, &b, &err), QV_OK);
      qv_batch_release(b);
    } while (b);
    qv_batch_reader_destroy(r);
  }
  /* label sizes would start at Y (5 nodes): 5 + 5 x 10 in-edges x 2/3 of
   * the nodes an X x 0.1 for x.k = 3; from X: 10 x 0.1, then 5 out-edges
   * x 1/3 of the nodes a Y: 1 + 1.67 */
  char *plan = NULL;
  qv_cypher_options o = QV_CYPHER_OPTIONS_INIT;
  assert_int_equal(
      qv_cypher_explain(g, "MATCH (x:X)-[:R]->(y:Y) WHERE x.k = 3 RETURN count(*) AS n", NULL, &o, false, &plan, &err),
      QV_OK);
  if (!strstr(plan, "NodeScanExec: x:X, rows=10, est=1, root by estimate: path rows 2.67 < 8.33 from y"))
    fail_msg("%s", plan);
  qv_free(plan);
  o.render_values = true;
  assert_int_equal(qv_cypher_query(g, "MATCH (x:X)-[:R]->(y:Y) WHERE x.k = 3 RETURN count(*) AS n", NULL, &o, &r, &err),
                   QV_OK);
  qv_batch *b = NULL;
  assert_int_equal(r->next(r, &b, &err), QV_OK);
  int32_t n;
  const uint8_t *s = qv_array_str(b->columns[0], 0, &n);
  assert_int_equal(n, 1);
  assert_memory_equal(s, "5", 1);
  qv_batch_release(b);
  qv_batch_reader_destroy(r);
  qv_graph_close(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_integers),          cmocka_unit_test(test_floats),
      cmocka_unit_test(test_strings_and_bools), cmocka_unit_test(test_logic),
      cmocka_unit_test(test_params_and_maps),   cmocka_unit_test(test_hops),
      cmocka_unit_test(test_root_by_estimate),  cmocka_unit_test(test_estimates),
      cmocka_unit_test(test_scanner_counters),  cmocka_unit_test(test_rules),
      cmocka_unit_test(test_memory_roots),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
