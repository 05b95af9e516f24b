/* HashAggregateExec: every function with and without DISTINCT, null and NaN
 * rules, empty input, string keys, the memory limit, 1 vs 2 threads. */
#include "exec/exec_test.h"

static qv_exec_op *agg(qv_exec_ctx *ctx, qv_exec_op *src, const char *keys, const qv_exec_agg *aggs, int32_t n) {
  qv_expr *k[4];
  const char *names[4];
  int32_t nk = 0;
  char buf[128];
  snprintf(buf, sizeof buf, "%s", keys);
  for (char *save = NULL, *t = *buf ? strtok_r(buf, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
    k[nk] = test_expr(t);
    names[nk] = qv_exec_schema(src)->fields[qv_schema_find(qv_exec_schema(src), t)].name;
    nk++;
  }
  qv_exec_op *op;
  qv_error err;
  qv_status st = qv_exec_aggregate(ctx, src, (const qv_expr *const *)k, names, nk, aggs, n, &op, &err);
  if (st != QV_OK) fprintf(stderr, "%s\n", err.message);
  assert_int_equal(st, QV_OK);
  for (int32_t i = 0; i < nk; i++) qv_expr_destroy(k[i]);
  return op;
}

#define SRC "g:string,v:int64,f:float64"
#define ROWS1 "a|1|1.0;b|2|nan;a|3|2.0;null|4|null"
#define ROWS2 "b|null|5.0;a|1|-0.0;c|null|null"

static void test_functions(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_expr *v = test_expr("v"), *f = test_expr("f");
  qv_exec_agg aggs[] = {
      {QV_AGG_COUNT_STAR, NULL, false, "n"}, {QV_AGG_COUNT, v, false, "cv"},   {QV_AGG_SUM, v, false, "sv"},
      {QV_AGG_AVG, v, false, "av"},          {QV_AGG_MIN, f, false, "minf"},   {QV_AGG_MAX, f, false, "maxf"},
      {QV_AGG_SUM, f, false, "sf"},          {QV_AGG_COLLECT, v, false, "lv"},
  };
  qv_exec_op *op = agg(ctx, test_source(ctx, SRC, ROWS1, ROWS2, NULL), "g", aggs, 8);
  const qv_schema *s = qv_exec_schema(op);
  assert_int_equal(s->n_fields, 9);
  assert_int_equal(s->fields[1].type.id, QV_TYPE_INT64);
  assert_int_equal(s->fields[3].type.id, QV_TYPE_INT64);
  assert_int_equal(s->fields[4].type.id, QV_TYPE_FLOAT64);
  assert_int_equal(s->fields[8].type.id, QV_TYPE_LIST);
  /* groups in first-seen order at one thread; NaN is above every number;
   * the sum, avg, min, max of no values are null, count 0, collect [] */
  assert_rows(op,
              "a|3|3|5|1.6666666666666667|-0.0|2.0|3.0|[1, 3, 1]\n"
              "b|2|1|2|2.0|5.0|NaN|NaN|[2]\n"
              "null|1|1|4|4.0|null|null|null|[4]\n"
              "c|1|0|null|null|null|null|null|[]\n");
  qv_expr_destroy(v);
  qv_expr_destroy(f);
  qv_exec_ctx_release(ctx);
}

static void test_distinct(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_expr *v = test_expr("v"), *f = test_expr("f"), *s = test_expr("s");
  qv_exec_agg aggs[] = {
      {QV_AGG_COUNT, v, true, "cv"},  {QV_AGG_SUM, v, true, "sv"},     {QV_AGG_COLLECT, v, true, "lv"},
      {QV_AGG_COUNT, f, true, "cf"},  {QV_AGG_COLLECT, s, true, "ls"}, {QV_AGG_MIN, s, false, "mins"},
      {QV_AGG_MAX, s, false, "maxs"}, {QV_AGG_AVG, v, true, "av"},
  };
  qv_exec_op *op =
      agg(ctx,
          test_source(ctx, "k:int64,v:int64,f:float64,s:string",
                      "1|5|nan|null;1|5|nan|null;2|null|0.0|null;1|6|-0.0|null;1|5|0.0|null",
                      "2|7|-0.0|null;null|1|1.0|null;null|1|1.0|null;1|null|null|null", "1|6|nan|null", NULL),
          "k", aggs, 8);
  /* strings: s is all null here; NaN is one value, -0.0 is 0.0 */
  assert_rows(op,
              "1|2|11|[5, 6]|2|[]|null|null|5.5\n"
              "2|1|7|[7]|1|[]|null|null|7.0\n"
              "null|1|1|[1]|1|[]|null|null|1.0\n");
  qv_expr_destroy(v);
  qv_expr_destroy(f);
  qv_expr_destroy(s);

  /* string values and string keys */
  s = test_expr("s");
  qv_exec_agg saggs[] = {{QV_AGG_MIN, s, false, "mn"},
                         {QV_AGG_MAX, s, false, "mx"},
                         {QV_AGG_COUNT, s, true, "cd"},
                         {QV_AGG_COLLECT, s, false, "all"}};
  op = agg(ctx, test_source(ctx, "g:string,s:string", "x|pear;y|fig;x|apple;x|pear;x|null", "y|figs;x|zoo", NULL), "g",
           saggs, 4);
  assert_rows(op, "x|apple|zoo|3|[pear, apple, pear, zoo]\ny|fig|figs|2|[fig, figs]\n");
  qv_expr_destroy(s);
  qv_exec_ctx_release(ctx);
}

static void test_no_keys_and_empty(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_expr *v = test_expr("v");
  qv_exec_agg aggs[] = {{QV_AGG_COUNT_STAR, NULL, false, "n"}, {QV_AGG_COUNT, v, false, "c"},
                        {QV_AGG_SUM, v, false, "s"},           {QV_AGG_AVG, v, false, "a"},
                        {QV_AGG_MIN, v, false, "mn"},          {QV_AGG_COLLECT, v, false, "l"}};
  /* no keys over no rows: one row */
  qv_exec_op *op = agg(ctx, test_source(ctx, "v:int64", NULL), "", aggs, 6);
  assert_rows(op, "0|0|null|null|null|[]\n");
  /* no keys over rows */
  op = agg(ctx, test_source(ctx, "v:int64", "1;null;3", "4", NULL), "", aggs, 6);
  assert_rows(op, "4|3|8|2.6666666666666665|1|[1, 3, 4]\n");
  /* keys over no rows: no row */
  op = agg(ctx, test_source(ctx, "v:int64", "", NULL), "v", aggs, 6);
  assert_rows(op, "");
  qv_expr_destroy(v);

  /* a sum that leaves int64 fails */
  v = test_expr("v");
  qv_exec_agg sum = {QV_AGG_SUM, v, false, "s"};
  op = agg(ctx, test_source(ctx, "v:int64", "9223372036854775807;1", NULL), "", &sum, 1);
  qv_batch *b;
  qv_error err;
  assert_int_equal(qv_exec_next(op, &b, &err), QV_ERR_OVERFLOW);
  assert_string_equal(err.message, "HashAggregateExec: sum overflowed int64");
  qv_exec_destroy(op);
  /* sum of strings is a type error at construction */
  qv_expr *s = test_expr("s");
  qv_exec_agg bad = {QV_AGG_SUM, s, false, "s"};
  assert_int_equal(qv_exec_aggregate(ctx, test_source(ctx, "s:string", NULL), NULL, NULL, 0, &bad, 1, &op, &err),
                   QV_ERR_TYPE);
  assert_string_equal(err.message, "HashAggregateExec: sum(string) is not defined");
  qv_expr_destroy(s);
  qv_expr_destroy(v);
  qv_exec_ctx_release(ctx);
}

/* count and collect take any type; sum of a list is a type error. */
static void test_other_types(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_schema sc;
  test_schema("g:int64,l:list<int64>", &sc);
  qv_builder b[2];
  for (int i = 0; i < 2; i++) assert_int_equal(qv_builder_init(&b[i], &sc.fields[i].type, NULL), QV_OK);
  for (int r = 0; r < 4; r++) {
    qv_builder_append_int(&b[0], r % 2);
    if (r == 2) {
      qv_builder_append_null(&b[1]);
      continue;
    }
    for (int e = 0; e <= r; e++) qv_builder_append_int(&b[1].children[0], r * 10 + e);
    qv_builder_append_valid(&b[1]);
  }
  qv_array *cols[2];
  for (int i = 0; i < 2; i++) assert_int_equal(qv_builder_finish(&b[i], &cols[i], NULL), QV_OK);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&sc, cols, 4, &batch, NULL), QV_OK);
  qv_exec_op *src;
  assert_int_equal(qv_exec_batches(ctx, &sc, &batch, 1, &src, NULL), QV_OK);
  qv_expr *l = test_expr("l");
  qv_exec_agg aggs[] = {{QV_AGG_COUNT, l, false, "c"}, {QV_AGG_COLLECT, l, false, "all"}};
  qv_exec_op *op = agg(ctx, src, "g", aggs, 2);
  assert_rows(op, "0|1|[[0]]\n1|2|[[10, 11], [30, 31, 32, 33]]\n");
  qv_exec_agg bad = {QV_AGG_SUM, l, false, "s"};
  qv_error err;
  assert_int_equal(qv_exec_batches(ctx, &sc, &batch, 1, &src, NULL), QV_OK);
  assert_int_equal(qv_exec_aggregate(ctx, src, NULL, NULL, 0, &bad, 1, &op, &err), QV_ERR_TYPE);
  assert_string_equal(err.message, "HashAggregateExec: sum(list<int64>) is not defined");
  qv_expr_destroy(l);
  qv_batch_release(batch);
  qv_schema_reset(&sc);
  qv_exec_ctx_release(ctx);
}

/* Two keys, one of them an expression; integer keys of many groups. */
static void test_many_groups(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_schema sc;
  test_schema("k:int64,v:int64", &sc);
  qv_builder b[2];
  for (int i = 0; i < 2; i++) qv_builder_init(&b[i], &sc.fields[i].type, NULL);
  for (int64_t i = 0; i < 50000; i++) {
    qv_builder_append_int(&b[0], i % 5000);
    qv_builder_append_int(&b[1], i);
  }
  qv_array *cols[2];
  for (int i = 0; i < 2; i++) qv_builder_finish(&b[i], &cols[i], NULL);
  qv_batch *batch;
  qv_batch_make(&sc, cols, 50000, &batch, NULL);
  qv_exec_op *src;
  assert_int_equal(qv_exec_batches(ctx, &sc, &batch, 1, &src, NULL), QV_OK);
  qv_expr *v = test_expr("v");
  qv_exec_agg aggs[] = {{QV_AGG_COUNT_STAR, NULL, false, "n"}, {QV_AGG_SUM, v, false, "s"}};
  qv_exec_op *op = agg(ctx, src, "k", aggs, 2);
  int nb;
  char *text = test_run(op, &nb);
  assert_int_equal(nb, 1);
  /* group k holds k, k + 5000, ..., k + 45000: ten rows summing to 10k + 225000 */
  char *line = text;
  for (int64_t k = 0; k < 5000; k++) {
    char want[64];
    int n = snprintf(want, sizeof want, "%lld|10|%lld\n", (long long)k, (long long)(10 * k + 225000));
    assert_memory_equal(line, want, (size_t)n);
    line += n;
  }
  assert_int_equal(*line, '\0');
  free(text);
  qv_expr_destroy(v);
  qv_batch_release(batch);
  qv_schema_reset(&sc);
  qv_exec_ctx_release(ctx);
}

static void test_memory_limit(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 64 << 10, 0);
  qv_schema sc;
  test_schema("k:int64", &sc);
  qv_builder b;
  qv_builder_init(&b, &sc.fields[0].type, NULL);
  for (int64_t i = 0; i < 100000; i++) qv_builder_append_int(&b, i);
  qv_array *col;
  qv_builder_finish(&b, &col, NULL);
  qv_batch *batch;
  qv_batch_make(&sc, &col, 100000, &batch, NULL);
  qv_exec_op *src;
  assert_int_equal(qv_exec_batches(ctx, &sc, &batch, 1, &src, NULL), QV_OK);
  qv_exec_agg n = {QV_AGG_COUNT_STAR, NULL, false, "n"};
  qv_exec_op *op = agg(ctx, src, "k", &n, 1);
  qv_batch *out;
  qv_error err;
  assert_int_equal(qv_exec_next(op, &out, &err), QV_ERR_NOMEM);
  assert_string_equal(err.message,
                      "HashAggregateExec: the group table passed the memory limit of 64 KiB (set "
                      "qv_exec_options.memory_limit)");
  /* the error sticks */
  assert_int_equal(qv_exec_next(op, &out, &err), QV_ERR_NOMEM);
  qv_exec_destroy(op);
  assert_int_equal(qv_exec_ctx_held_bytes(ctx), 0);
  qv_batch_release(batch);
  qv_schema_reset(&sc);
  qv_exec_ctx_release(ctx);
}

/* The same groups at 1 and 2 threads (compared as sorted rows), over many
 * batches so that rounds have several. */
static char *run_threads(int threads) {
  qv_set_threads(threads);
  qv_exec_ctx *ctx = test_ctx(threads, 0, 0);
  qv_schema sc;
  test_schema("k:int64,s:string,v:float64", &sc);
  qv_batch *bs[8];
  for (int bi = 0; bi < 8; bi++) {
    qv_builder b[3];
    for (int i = 0; i < 3; i++) qv_builder_init(&b[i], &sc.fields[i].type, NULL);
    for (int64_t i = 0; i < 3000; i++) {
      int64_t r = bi * 3000 + i;
      if (r % 101 == 0) qv_builder_append_null(&b[0]);
      else qv_builder_append_int(&b[0], (r * 7) % 97);
      char buf[16];
      snprintf(buf, sizeof buf, "s%lld", (long long)(r % 13));
      qv_builder_append_cstr(&b[1], buf);
      if (r % 17 == 0) qv_builder_append_double(&b[2], NAN);
      else qv_builder_append_double(&b[2], (double)(r % 31));
    }
    qv_array *cols[3];
    for (int i = 0; i < 3; i++) qv_builder_finish(&b[i], &cols[i], NULL);
    qv_batch_make(&sc, cols, 3000, &bs[bi], NULL);
  }
  qv_exec_op *src;
  assert_int_equal(qv_exec_batches(ctx, &sc, bs, 8, &src, NULL), QV_OK);
  qv_expr *v = test_expr("v"), *s = test_expr("s");
  qv_exec_agg aggs[] = {{QV_AGG_COUNT_STAR, NULL, false, "n"}, {QV_AGG_SUM, v, false, "sv"},
                        {QV_AGG_MAX, v, false, "mx"},          {QV_AGG_COUNT, v, true, "dv"},
                        {QV_AGG_MIN, s, false, "ms"},          {QV_AGG_COUNT, s, true, "ds"}};
  qv_exec_op *op = agg(ctx, src, "k", aggs, 6);
  char *text = test_sorted(test_run(op, NULL));
  qv_expr_destroy(v);
  qv_expr_destroy(s);
  for (int i = 0; i < 8; i++) qv_batch_release(bs[i]);
  qv_schema_reset(&sc);
  qv_exec_ctx_release(ctx);
  return text;
}

static void test_threads(void **state) {
  (void)state;
  int before = qv_threads();
  char *one = run_threads(1), *two = run_threads(2);
  qv_set_threads(before);
  assert_true(strlen(one) > 100);
  assert_string_equal(one, two);
  free(one);
  free(two);
}

static void test_explain(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_expr *v = test_expr("v + 1");
  qv_exec_agg aggs[] = {{QV_AGG_COUNT_STAR, NULL, false, "n"}, {QV_AGG_SUM, v, true, "s"}};
  qv_exec_op *op = agg(ctx, test_source(ctx, "g:string,v:int64", "a|1", NULL), "g", aggs, 2);
  char *text;
  assert_int_equal(qv_exec_explain(op, false, &text, NULL), QV_OK);
  assert_string_equal(text,
                      "HashAggregateExec: gby=[g AS g], aggr=[count(*) AS n, sum(DISTINCT (v + 1)) AS s]\n"
                      "  DataSourceExec: batches=1, rows=1, projection=[g, v]\n");
  qv_free(text);
  qv_exec_destroy(op);
  qv_expr_destroy(v);
  qv_exec_ctx_release(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_functions),   cmocka_unit_test(test_distinct),    cmocka_unit_test(test_no_keys_and_empty),
      cmocka_unit_test(test_other_types), cmocka_unit_test(test_many_groups), cmocka_unit_test(test_memory_limit),
      cmocka_unit_test(test_threads),     cmocka_unit_test(test_explain),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
