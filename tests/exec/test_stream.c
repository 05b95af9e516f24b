/* The streaming operators (DataSourceExec, FilterExec, ProjectionExec,
 * LimitExec, UnionExec), explain, the batch reader, and a DataSourceExec
 * over a dataset written here. */
#include <ftw.h>
#include <unistd.h>

#include "exec/exec_test.h"

#define AB "a:int64,b:string"

static void test_source_passes_batches(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_exec_op *src = test_source(ctx, AB, "1|x;2|null", "", "3|z", NULL);
  int nb;
  char *got = test_run(src, &nb);
  assert_string_equal(got, "1|x\n2|null\n3|z\n");
  assert_int_equal(nb, 2); /* the empty batch is not yielded */
  free(got);
  qv_exec_ctx_release(ctx);
}

static void test_filter(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_exec_op *src = test_source(ctx, "a:int64,f:float64", "1|1.5;2|nan;null|3;4|null", "5|-1", NULL);
  qv_expr *p = test_expr("a >= 2 AND a < 5");
  qv_exec_op *op;
  assert_int_equal(qv_exec_filter(ctx, src, p, &op, NULL), QV_OK);
  qv_expr_destroy(p);
  assert_rows(op, "2|NaN\n4|null\n");

  /* null predicate rows drop; NaN compares as the expression's semantics say */
  src = test_source(ctx, "a:int64,f:float64", "1|1.5;2|nan;null|3;4|null", NULL);
  p = test_expr("f > 1");
  assert_int_equal(qv_exec_filter(ctx, src, p, &op, NULL), QV_OK);
  qv_expr_destroy(p);
  assert_rows(op, "1|1.5\n2|NaN\nnull|3.0\n");

  /* empty input, and a filter nothing passes */
  src = test_source(ctx, "a:int64", NULL);
  p = test_expr("a > 0");
  assert_int_equal(qv_exec_filter(ctx, src, p, &op, NULL), QV_OK);
  qv_expr_destroy(p);
  assert_rows(op, "");

  /* a bad column is the constructor's error, and the child is destroyed */
  qv_error err;
  src = test_source(ctx, "a:int64", "1", NULL);
  p = test_expr("zz > 0");
  assert_int_equal(qv_exec_filter(ctx, src, p, &op, &err), QV_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "FilterExec"));
  assert_non_null(strstr(err.message, "zz"));
  qv_expr_destroy(p);
  qv_exec_ctx_release(ctx);
}

static void test_project(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_exec_op *src = test_source(ctx, AB, "1|x;2|null;null|z", NULL);
  qv_expr *e[2] = {test_expr("a + 10"), test_expr("b")};
  const char *names[2] = {"a10", "bb"};
  qv_exec_op *op;
  assert_int_equal(qv_exec_project(ctx, src, (const qv_expr *const *)e, names, 2, &op, NULL), QV_OK);
  const qv_schema *s = qv_exec_schema(op);
  assert_int_equal(s->n_fields, 2);
  assert_string_equal(s->fields[0].name, "a10");
  assert_int_equal(s->fields[0].type.id, QV_TYPE_INT64);
  assert_string_equal(s->fields[1].name, "bb");
  assert_rows(op, "11|x\n12|null\nnull|z\n");
  qv_expr_destroy(e[0]);
  qv_expr_destroy(e[1]);
  qv_exec_ctx_release(ctx);
}

static void test_limit(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_exec_op *op;
  assert_int_equal(qv_exec_limit(ctx, test_source(ctx, "a:int64", "1;2;3", "4;5", "6;7", NULL), 2, 3, &op, NULL),
                   QV_OK);
  assert_rows(op, "3\n4\n5\n");
  assert_int_equal(qv_exec_limit(ctx, test_source(ctx, "a:int64", "1;2;3", NULL), 5, -1, &op, NULL), QV_OK);
  assert_rows(op, "");
  assert_int_equal(qv_exec_limit(ctx, test_source(ctx, "a:int64", "1;2;3", NULL), 0, 0, &op, NULL), QV_OK);
  assert_rows(op, "");
  assert_int_equal(qv_exec_limit(ctx, test_source(ctx, "a:int64", "1;2;3", "4", NULL), 1, -1, &op, NULL), QV_OK);
  assert_rows(op, "2\n3\n4\n");
  qv_exec_ctx_release(ctx);
}

static void test_union(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_exec_op *kids[3] = {test_source(ctx, AB, "1|x", NULL), test_source(ctx, "c:int64,d:string", NULL),
                         test_source(ctx, "c:int64,d:string", "2|y;2|y", NULL)};
  qv_exec_op *op;
  assert_int_equal(qv_exec_union(ctx, kids, 3, &op, NULL), QV_OK);
  assert_string_equal(qv_exec_schema(op)->fields[0].name, "a");
  assert_rows(op, "1|x\n2|y\n2|y\n");

  qv_exec_op *bad[2] = {test_source(ctx, AB, "1|x", NULL), test_source(ctx, "a:int32,b:string", "1|x", NULL)};
  qv_error err;
  assert_int_equal(qv_exec_union(ctx, bad, 2, &op, &err), QV_ERR_TYPE);
  assert_string_equal(err.message, "UnionExec: column 0 (`a`) of input 1 is int32, of input 0 int64");
  qv_exec_ctx_release(ctx);
}

/* The explain text of a small tree, byte for byte, and analyze's counters. */
static void test_explain(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_exec_op *src = test_source(ctx, AB, "1|x;2|y;3|z", "4|w", NULL);
  qv_expr *p = test_expr("a > 1");
  qv_exec_op *f, *proj, *lim;
  assert_int_equal(qv_exec_filter(ctx, src, p, &f, NULL), QV_OK);
  qv_expr *e[2] = {test_expr("a * 2"), test_expr("b")};
  const char *names[2] = {"twice", "b"};
  assert_int_equal(qv_exec_project(ctx, f, (const qv_expr *const *)e, names, 2, &proj, NULL), QV_OK);
  assert_int_equal(qv_exec_limit(ctx, proj, 1, 10, &lim, NULL), QV_OK);
  char *text;
  assert_int_equal(qv_exec_explain(lim, false, &text, NULL), QV_OK);
  assert_string_equal(text,
                      "LimitExec: skip=1, fetch=10\n"
                      "  ProjectionExec: expr=[(a * 2) AS twice, b AS b]\n"
                      "    FilterExec: (a > 1)\n"
                      "      DataSourceExec: batches=2, rows=4, projection=[a, b]\n");
  qv_free(text);
  qv_batch *b;
  assert_int_equal(qv_exec_next(lim, &b, NULL), QV_OK);
  assert_int_equal(b->num_rows, 1);
  qv_batch_release(b);
  assert_int_equal(qv_exec_next(lim, &b, NULL), QV_OK);
  assert_int_equal(b->num_rows, 1);
  qv_batch_release(b);
  assert_int_equal(qv_exec_next(lim, &b, NULL), QV_OK);
  assert_null(b);
  assert_int_equal(qv_exec_explain(lim, true, &text, NULL), QV_OK);
  assert_non_null(strstr(text, "LimitExec: skip=1, fetch=10, metrics=[rows_in=3, rows_out=2, batches=2, time="));
  assert_non_null(strstr(text, "\n    FilterExec: (a > 1), metrics=[rows_in=4, rows_out=3, batches=2, time="));
  assert_non_null(strstr(text,
                         "\n      DataSourceExec: batches=2, rows=4, projection=[a, b], metrics=[rows_in=4, "
                         "rows_out=4, batches=2, time="));
  assert_non_null(strstr(text, "ms, peak_bytes=0]\n"));
  qv_free(text);
  qv_exec_destroy(lim);
  qv_expr_destroy(p);
  qv_expr_destroy(e[0]);
  qv_expr_destroy(e[1]);
  qv_exec_ctx_release(ctx);
}

/* A plan as a reader and as an Arrow C stream. */
static void test_reader_stream(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_exec_op *src = test_source(ctx, AB, "1|x;2|y", "3|z", NULL);
  qv_exec_ctx_release(ctx); /* the operators keep it */
  qv_batch_reader *r;
  assert_int_equal(qv_exec_reader(src, &r, NULL), QV_OK);
  struct ArrowArrayStream stream;
  assert_int_equal(qv_export_stream(r, &stream, NULL), QV_OK);
  struct ArrowSchema sch;
  assert_int_equal(stream.get_schema(&stream, &sch), 0);
  assert_int_equal(sch.n_children, 2);
  assert_string_equal(sch.children[1]->name, "b");
  sch.release(&sch);
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray arr;
    assert_int_equal(stream.get_next(&stream, &arr), 0);
    if (!arr.release) break;
    rows += arr.length;
    arr.release(&arr);
  }
  assert_int_equal(rows, 3);
  stream.release(&stream);
}

/* ---- over a dataset ---------------------------------------------------------- */

static char g_dir[256];

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

static void write_dataset(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/qv-exec-XXXXXX");
  assert_non_null(mkdtemp(g_dir));
  strcat(g_dir, "/ds");
  qv_schema s;
  test_schema("id:int64,grp:string", &s);
  qv_builder b[2];
  for (int i = 0; i < 2; i++) assert_int_equal(qv_builder_init(&b[i], &s.fields[i].type, NULL), QV_OK);
  for (int64_t i = 0; i < 1000; i++) {
    qv_builder_append_int(&b[0], i);
    qv_builder_append_cstr(&b[1], i % 3 == 0 ? "g0" : i % 3 == 1 ? "g1" : "g2");
  }
  qv_array *cols[2];
  for (int i = 0; i < 2; i++) assert_int_equal(qv_builder_finish(&b[i], &cols[i], NULL), QV_OK);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&s, cols, 1000, &batch, NULL), QV_OK);
  qv_batch_reader *r;
  assert_int_equal(qv_batch_reader_from_batches(&s, &batch, 1, &r, NULL), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  wo.page_rows = 100;
  wo.max_rows_per_file = 400;
  int64_t version;
  assert_int_equal(qv_dataset_write(g_dir, r, &wo, &version, NULL), QV_OK);
  qv_batch_reader_destroy(r);
  qv_batch_release(batch);
  qv_schema_reset(&s);
}

static void remove_dataset(void) {
  *strrchr(g_dir, '/') = '\0';
  nftw(g_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void test_scan_source(void **state) {
  (void)state;
  write_dataset();
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_scan_options so = QV_SCAN_OPTIONS_INIT;
  const char *cols[] = {"id"};
  so.columns = cols;
  so.n_columns = 1;
  so.filter = "id >= 990 OR id < 2";
  qv_exec_op *scan, *lim;
  qv_error err;
  qv_status st = qv_exec_scan(ctx, g_dir, &so, &scan, &err);
  if (st != QV_OK) fprintf(stderr, "%s\n", err.message);
  assert_int_equal(st, QV_OK);
  assert_int_equal(qv_exec_limit(ctx, scan, 1, 5, &lim, NULL), QV_OK);
  char *text;
  assert_int_equal(qv_exec_explain(lim, false, &text, NULL), QV_OK);
  char want[512];
  snprintf(want, sizeof want,
           "LimitExec: skip=1, fetch=5\n  DataSourceExec: dataset=%s, projection=[id], filter=id >= 990 OR id < 2\n",
           g_dir);
  assert_string_equal(text, want);
  qv_free(text);
  qv_batch *bt;
  int64_t n_rows = 0;
  for (;;) {
    assert_int_equal(qv_exec_next(lim, &bt, NULL), QV_OK);
    if (!bt) break;
    n_rows += bt->num_rows;
    qv_batch_release(bt);
  }
  assert_int_equal(n_rows, 5);
  /* analyze shows what the scanner did (pages by statistics: id < 2 and
   * id >= 990 leave the first and last page of 10) */
  assert_int_equal(qv_exec_explain(lim, true, &text, NULL), QV_OK);
  assert_non_null(strstr(text, "peak_bytes=0, fragments="));
  assert_non_null(strstr(text, ", pages_pruned=8/10, rows_scanned=200, rows_selected="));
  qv_free(text);
  qv_exec_destroy(lim);
  assert_int_equal(qv_exec_scan(ctx, g_dir, &so, &scan, &err), QV_OK);
  assert_int_equal(qv_exec_limit(ctx, scan, 1, 5, &lim, NULL), QV_OK);
  assert_rows(lim, "1\n990\n991\n992\n993\n");

  /* an open dataset: the row count is known */
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_dir, 0, &ds, NULL), QV_OK);
  qv_scan_options all = QV_SCAN_OPTIONS_INIT;
  assert_int_equal(qv_exec_scan_dataset(ctx, ds, &all, &scan, NULL), QV_OK);
  int nb;
  char *got = test_run(scan, &nb);
  assert_int_equal(strlen(got) > 0, 1);
  free(got);
  qv_dataset_close(ds);

  /* a bad filter fails at construction, naming the operator */
  so.filter = "nope > 1";
  assert_int_not_equal(qv_exec_scan(ctx, g_dir, &so, &scan, &err), QV_OK);
  assert_non_null(strstr(err.message, "DataSourceExec"));
  qv_exec_ctx_release(ctx);
  remove_dataset();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_source_passes_batches),
      cmocka_unit_test(test_filter),
      cmocka_unit_test(test_project),
      cmocka_unit_test(test_limit),
      cmocka_unit_test(test_union),
      cmocka_unit_test(test_explain),
      cmocka_unit_test(test_reader_stream),
      cmocka_unit_test(test_scan_source),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
