/* HashJoinExec: inner, left outer, semi, anti; duplicate, null and NaN
 * keys; string and multi-column keys; the build side's choice; the memory
 * limit; 1 vs 2 threads. */
#include "exec/exec_test.h"

static qv_exec_op *join(qv_exec_ctx *ctx, qv_exec_op *l, qv_exec_op *r, const char *lk, const char *rk,
                        qv_join_type type) {
  const char *lks[4], *rks[4];
  char lb[64], rb[64];
  snprintf(lb, sizeof lb, "%s", lk);
  snprintf(rb, sizeof rb, "%s", rk);
  int32_t n = 0;
  for (char *s1 = NULL, *t = strtok_r(lb, ",", &s1); t; t = strtok_r(NULL, ",", &s1)) lks[n++] = t;
  n = 0;
  for (char *s2 = NULL, *t = strtok_r(rb, ",", &s2); t; t = strtok_r(NULL, ",", &s2)) rks[n++] = t;
  qv_exec_op *op;
  qv_error err;
  qv_status st = qv_exec_hash_join(ctx, l, r, lks, rks, n, type, &op, &err);
  if (st != QV_OK) fprintf(stderr, "%s\n", err.message);
  assert_int_equal(st, QV_OK);
  return op;
}

#define L "id:int64,name:string"
#define LROWS1 "1|ann;2|bob;null|nul;3|cat"
#define LROWS2 "2|bo2;4|dan"
#define R "rid:int32,tag:string"
#define RROWS "2|x;1|y;2|z;null|n;5|q"

static void test_types(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  /* the right side is built (its size is unknown); output in probe order,
   * each probe row's matches in build order; null keys never match */
  qv_exec_op *r = test_source(ctx, R, RROWS, NULL);
  qv_batch_reader *rr;
  assert_int_equal(qv_exec_reader(r, &rr, NULL), QV_OK);
  qv_exec_op *rsrc;
  assert_int_equal(qv_exec_source(ctx, rr, "right rows", &rsrc, NULL), QV_OK);
  qv_exec_op *op = join(ctx, test_source(ctx, L, LROWS1, LROWS2, NULL), rsrc, "id", "rid", QV_JOIN_INNER);
  char *text;
  assert_int_equal(qv_exec_explain(op, false, &text, NULL), QV_OK);
  assert_string_equal(text,
                      "HashJoinExec: mode=inner, on=[(id, rid)], build=right\n"
                      "  DataSourceExec: batches=2, rows=6, projection=[id, name]\n"
                      "  DataSourceExec: right rows, projection=[rid, tag]\n");
  qv_free(text);
  assert_rows(op, "1|ann|1|y\n2|bob|2|x\n2|bob|2|z\n2|bo2|2|x\n2|bo2|2|z\n");

  op =
      join(ctx, test_source(ctx, L, LROWS1, LROWS2, NULL), test_source(ctx, R, RROWS, NULL), "id", "rid", QV_JOIN_LEFT);
  assert_rows(op,
              "1|ann|1|y\n2|bob|2|x\n2|bob|2|z\nnull|nul|null|null\n3|cat|null|null\n2|bo2|2|x\n2|bo2|2|z\n"
              "4|dan|null|null\n");
  op =
      join(ctx, test_source(ctx, L, LROWS1, LROWS2, NULL), test_source(ctx, R, RROWS, NULL), "id", "rid", QV_JOIN_SEMI);
  assert_int_equal(qv_exec_schema(op)->n_fields, 2);
  assert_rows(op, "1|ann\n2|bob\n2|bo2\n");
  op =
      join(ctx, test_source(ctx, L, LROWS1, LROWS2, NULL), test_source(ctx, R, RROWS, NULL), "id", "rid", QV_JOIN_ANTI);
  assert_rows(op, "null|nul\n3|cat\n4|dan\n");

  /* an empty build side */
  op = join(ctx, test_source(ctx, L, LROWS1, NULL), test_source(ctx, R, NULL), "id", "rid", QV_JOIN_LEFT);
  assert_rows(op, "1|ann|null|null\n2|bob|null|null\nnull|nul|null|null\n3|cat|null|null\n");
  op = join(ctx, test_source(ctx, L, LROWS1, NULL), test_source(ctx, R, NULL), "id", "rid", QV_JOIN_INNER);
  assert_rows(op, "");
  op = join(ctx, test_source(ctx, L, LROWS1, NULL), test_source(ctx, R, NULL), "id", "rid", QV_JOIN_ANTI);
  assert_rows(op, "1|ann\n2|bob\nnull|nul\n3|cat\n");
  qv_exec_ctx_release(ctx);
}

static void test_keys(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  /* string keys; two-column keys; NaN never matches, -0.0 matches 0.0 */
  qv_exec_op *op = join(ctx, test_source(ctx, "s:string,a:int64", "x|1;y|2;null|3;x|4", NULL),
                        test_source(ctx, "t:string,b:int64", "x|10;x|11;null|12;z|13", NULL), "s", "t", QV_JOIN_INNER);
  assert_rows(op, "x|1|x|10\nx|1|x|11\nx|4|x|10\nx|4|x|11\n");
  op = join(ctx, test_source(ctx, "s:string,a:int64", "x|1;y|2;x|2;y|null", NULL),
            test_source(ctx, "t:string,b:int32", "x|2;y|2;y|1;x|2", NULL), "s,a", "t,b", QV_JOIN_INNER);
  assert_rows(op, "y|2|y|2\nx|2|x|2\nx|2|x|2\n");
  op = join(ctx, test_source(ctx, "f:float64", "nan;0.0;-0.0;1.5;null", NULL),
            test_source(ctx, "g:float32", "nan;-0.0;1.5", NULL), "f", "g", QV_JOIN_INNER);
  assert_rows(op, "0.0|-0.0\n-0.0|-0.0\n1.5|1.5\n");

  /* types that cannot be compared, and unknown columns */
  qv_error err;
  const char *a = "s", *b = "b";
  qv_exec_op *bad;
  assert_int_equal(qv_exec_hash_join(ctx, test_source(ctx, "s:string", NULL), test_source(ctx, "b:int64", NULL), &a, &b,
                                     1, QV_JOIN_INNER, &bad, &err),
                   QV_ERR_TYPE);
  assert_string_equal(err.message, "HashJoinExec: cannot join `s` (string) with `b` (int64)");
  assert_int_equal(qv_exec_hash_join(ctx, test_source(ctx, "s:string", NULL), test_source(ctx, "c:int64", NULL), &a, &b,
                                     1, QV_JOIN_INNER, &bad, &err),
                   QV_ERR_NOT_FOUND);
  assert_string_equal(err.message, "HashJoinExec: the right input has no column `b`");
  qv_exec_ctx_release(ctx);
}

/* The left's size hidden behind a reader: the right is built. */
static qv_exec_op *unknown_size(qv_exec_ctx *ctx, qv_exec_op *op) {
  qv_batch_reader *r;
  assert_int_equal(qv_exec_reader(op, &r, NULL), QV_OK);
  qv_exec_op *src;
  assert_int_equal(qv_exec_source(ctx, r, "reader", &src, NULL), QV_OK);
  return src;
}

/* Both sizes known and the left smaller: the left is built; the rows are
 * those of building the right, for every join type. */
static void test_build_side(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_exec_op *op = join(ctx, test_source(ctx, "k:int64,a:string", "1|a;2|b", NULL),
                        test_source(ctx, "j:int64,b:string", "2|p;1|q;2|r;3|s", NULL), "k", "j", QV_JOIN_INNER);
  char *text;
  assert_int_equal(qv_exec_explain(op, false, &text, NULL), QV_OK);
  assert_non_null(strstr(text, "build=left\n"));
  qv_free(text);
  assert_rows_sorted(op, "1|a|1|q\n2|b|2|p\n2|b|2|r\n");
  for (int t = QV_JOIN_INNER; t <= QV_JOIN_ANTI; t++) {
    const char *lrows = "1|a;2|b;null|c;4|d;2|e", *rrows = "2|p;1|q;2|r;3|s;null|t;7|u;8|v";
    op = join(ctx, test_source(ctx, "k:int64,a:string", lrows, NULL), test_source(ctx, "j:int64,b:string", rrows, NULL),
              "k", "j", (qv_join_type)t);
    assert_int_equal(qv_exec_explain(op, false, &text, NULL), QV_OK);
    assert_non_null(strstr(text, "build=left\n"));
    qv_free(text);
    char *left_built = test_sorted(test_run(op, NULL));
    op = join(ctx, unknown_size(ctx, test_source(ctx, "k:int64,a:string", lrows, NULL)),
              test_source(ctx, "j:int64,b:string", rrows, NULL), "k", "j", (qv_join_type)t);
    assert_int_equal(qv_exec_explain(op, false, &text, NULL), QV_OK);
    assert_non_null(strstr(text, "build=right\n"));
    qv_free(text);
    char *right_built = test_sorted(test_run(op, NULL));
    static const char *const want[] = {
        "1|a|1|q\n2|b|2|p\n2|b|2|r\n2|e|2|p\n2|e|2|r\n",
        "1|a|1|q\n2|b|2|p\n2|b|2|r\n2|e|2|p\n2|e|2|r\n4|d|null|null\nnull|c|null|null\n",
        "1|a\n2|b\n2|e\n",
        "4|d\nnull|c\n",
    };
    assert_string_equal(left_built, want[t]);
    assert_string_equal(right_built, want[t]);
    free(left_built);
    free(right_built);
  }
  /* semi and anti building the left keep the left's order */
  op = join(ctx, test_source(ctx, "k:int64", "3;1;2;1", NULL), test_source(ctx, "j:int64", "1;1;3;5;6", NULL), "k", "j",
            QV_JOIN_SEMI);
  assert_rows(op, "3\n1\n1\n");
  qv_exec_ctx_release(ctx);
}

static qv_exec_op *int_source(qv_exec_ctx *ctx, int64_t rows, int64_t mod, int nbatches) {
  qv_schema sc;
  test_schema("k:int64,v:int64", &sc);
  qv_batch *bs[16];
  for (int bi = 0; bi < nbatches; bi++) {
    qv_builder b[2];
    for (int i = 0; i < 2; i++) qv_builder_init(&b[i], &sc.fields[i].type, NULL);
    for (int64_t i = 0; i < rows; i++) {
      int64_t r = bi * rows + i;
      if (r % 37 == 0) qv_builder_append_null(&b[0]);
      else qv_builder_append_int(&b[0], (r * 13) % mod);
      qv_builder_append_int(&b[1], r);
    }
    qv_array *cols[2];
    for (int i = 0; i < 2; i++) qv_builder_finish(&b[i], &cols[i], NULL);
    qv_batch_make(&sc, cols, rows, &bs[bi], NULL);
  }
  qv_exec_op *op;
  assert_int_equal(qv_exec_batches(ctx, &sc, bs, nbatches, &op, NULL), QV_OK);
  for (int i = 0; i < nbatches; i++) qv_batch_release(bs[i]);
  qv_schema_reset(&sc);
  return op;
}

static void test_memory_limit(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 64 << 20, 0);
  qv_exec_op *op = join(ctx, unknown_size(ctx, int_source(ctx, 10, 10, 1)), int_source(ctx, 1000000, 1000, 5), "k", "k",
                        QV_JOIN_LEFT);
  qv_batch *b;
  qv_error err;
  assert_int_equal(qv_exec_next(op, &b, &err), QV_ERR_NOMEM);
  assert_string_equal(err.message,
                      "HashJoinExec: build side passed the memory limit of 64 MiB (set qv_exec_options.memory_limit)");
  qv_exec_destroy(op);
  assert_int_equal(qv_exec_ctx_held_bytes(ctx), 0);
  qv_exec_ctx_release(ctx);

  /* one key on 2000 rows of each side: 4M matches from one probe batch */
  ctx = test_ctx(1, 4 << 20, 0);
  op = join(ctx, int_source(ctx, 2000, 1, 1), int_source(ctx, 2000, 1, 1), "k", "k", QV_JOIN_INNER);
  assert_int_equal(qv_exec_next(op, &b, &err), QV_ERR_NOMEM);
  assert_string_equal(err.message,
                      "HashJoinExec: the matches of one probe batch passed the memory limit of 4 MiB (set "
                      "qv_exec_options.memory_limit)");
  qv_exec_destroy(op);
  qv_exec_ctx_release(ctx);
}

/* 1 vs 2 threads: the probe is parallel, the output order the same. */
static char *run_threads(int threads, qv_join_type type, bool build_left) {
  qv_set_threads(threads);
  qv_exec_ctx *ctx = test_ctx(threads, 0, 1000);
  qv_exec_op *op = build_left ? join(ctx, int_source(ctx, 700, 300, 2), int_source(ctx, 2000, 500, 6), "k", "k", type)
                              : join(ctx, int_source(ctx, 2000, 500, 6), int_source(ctx, 700, 300, 2), "k", "k", type);
  char *text = test_run(op, NULL);
  qv_exec_ctx_release(ctx);
  return text;
}

static void test_threads(void **state) {
  (void)state;
  int before = qv_threads();
  for (int left = 0; left < 2; left++)
    for (int t = QV_JOIN_INNER; t <= QV_JOIN_ANTI; t++) {
      char *one = run_threads(1, (qv_join_type)t, left), *two = run_threads(2, (qv_join_type)t, left);
      assert_true(strlen(one) > 100);
      assert_string_equal(one, two);
      free(one);
      free(two);
    }
  qv_set_threads(before);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_types),        cmocka_unit_test(test_keys),    cmocka_unit_test(test_build_side),
      cmocka_unit_test(test_memory_limit), cmocka_unit_test(test_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
