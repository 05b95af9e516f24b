/* SortExec, TopKExec, CrossJoinExec, UnwindExec. */
#include "exec/exec_test.h"

#define SRC "k:int64,f:float64,s:string"
#define ROWS1 "3|1.0|c;1|nan|a;null|2.0|b;1|-1.0|d"
#define ROWS2 "2|null|a;3|0.5|e;1|nan|f;null|null|g"

static qv_exec_op *sorted(qv_exec_ctx *ctx, qv_exec_op *src, const qv_sort_key *keys, int32_t n, int64_t k) {
  qv_exec_op *op;
  qv_error err;
  qv_status st = k < 0 ? qv_exec_sort(ctx, src, keys, n, &op, &err) : qv_exec_topk(ctx, src, keys, n, k, &op, &err);
  if (st != QV_OK) fprintf(stderr, "%s\n", err.message);
  assert_int_equal(st, QV_OK);
  return op;
}

static void test_sort(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 3);
  /* one key, ascending, nulls last, stable (ties keep input order) */
  qv_sort_key k1 = {"k", false, false};
  int nb;
  char *got = test_run(sorted(ctx, test_source(ctx, SRC, ROWS1, ROWS2, NULL), &k1, 1, -1), &nb);
  assert_string_equal(got, "1|NaN|a\n1|-1.0|d\n1|NaN|f\n2|null|a\n3|1.0|c\n3|0.5|e\nnull|2.0|b\nnull|null|g\n");
  assert_int_equal(nb, 3); /* batch_size 3 */
  free(got);
  /* descending with nulls first; a float key orders NaN above numbers */
  qv_sort_key k2[2] = {{"f", true, true}, {"s", false, false}};
  assert_rows(sorted(ctx, test_source(ctx, SRC, ROWS1, ROWS2, NULL), k2, 2, -1),
              "2|null|a\nnull|null|g\n1|NaN|a\n1|NaN|f\nnull|2.0|b\n3|1.0|c\n3|0.5|e\n1|-1.0|d\n");
  /* strings, two keys */
  qv_sort_key k3[2] = {{"s", false, false}, {"k", true, false}};
  assert_rows(sorted(ctx, test_source(ctx, SRC, ROWS1, ROWS2, NULL), k3, 2, -1),
              "2|null|a\n1|NaN|a\nnull|2.0|b\n3|1.0|c\n1|-1.0|d\n3|0.5|e\n1|NaN|f\nnull|null|g\n");
  /* empty input */
  assert_rows(sorted(ctx, test_source(ctx, SRC, NULL), &k1, 1, -1), "");
  char *text;
  qv_exec_op *op = sorted(ctx, test_source(ctx, SRC, ROWS1, NULL), k2, 2, -1);
  assert_int_equal(qv_exec_explain(op, false, &text, NULL), QV_OK);
  assert_string_equal(text,
                      "SortExec: expr=[f DESC NULLS FIRST, s ASC NULLS LAST]\n"
                      "  DataSourceExec: batches=1, rows=4, projection=[k, f, s]\n");
  qv_free(text);
  qv_exec_destroy(op);
  qv_error err;
  qv_sort_key bad = {"zz", false, false};
  assert_int_equal(qv_exec_sort(ctx, test_source(ctx, SRC, NULL), &bad, 1, &op, &err), QV_ERR_NOT_FOUND);
  assert_string_equal(err.message, "SortExec: no column `zz`");
  qv_exec_ctx_release(ctx);
}

/* One integer or float key takes the radix path, two keys the merge sort:
 * sorting by (key) and by (key, a constant) must give the same rows, for
 * every direction and null placement, with negatives, NaN, -0.0, inf. */
static void test_radix_matches_merge(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_schema sc;
  test_schema("i:int64,j:int32,u:uint64,f:float64,g:float32,c:int64,row:int64", &sc);
  qv_builder b[7];
  for (int i = 0; i < 7; i++) qv_builder_init(&b[i], &sc.fields[i].type, NULL);
  uint64_t x = 88172645463325252u;
  const double specials[] = {NAN, -0.0, 0.0, INFINITY, -INFINITY, -NAN};
  for (int64_t r = 0; r < 3000; r++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    if (x % 11 == 0) qv_builder_append_null(&b[0]);
    else qv_builder_append_int(&b[0], (int64_t)(x % 2001) - 1000 + (x % 97 == 0 ? INT64_MIN / 2 : 0));
    if (x % 13 == 0) qv_builder_append_null(&b[1]);
    else qv_builder_append_int(&b[1], (int32_t)(x >> 40) % 50 - 25);
    qv_builder_append_uint(&b[2], x % 7 == 0 ? UINT64_MAX - x % 5 : x % 100);
    double d = x % 9 == 0 ? specials[x % 6] : (double)(int64_t)(x % 400 - 200) / 8;
    if (x % 17 == 0) qv_builder_append_null(&b[3]);
    else qv_builder_append_double(&b[3], d);
    qv_builder_append_double(&b[4], d);
    qv_builder_append_int(&b[5], 7);
    qv_builder_append_int(&b[6], r);
  }
  qv_array *cols[7];
  for (int i = 0; i < 7; i++) qv_builder_finish(&b[i], &cols[i], NULL);
  qv_batch *batch;
  qv_batch_make(&sc, cols, 3000, &batch, NULL);
  const char *keys[] = {"i", "j", "u", "f", "g"};
  for (int k = 0; k < 5; k++)
    for (int mode = 0; mode < 4; mode++) {
      qv_sort_key one = {keys[k], mode & 1, (mode & 2) != 0};
      qv_sort_key two[2] = {one, {"c", false, false}};
      qv_exec_op *src;
      assert_int_equal(qv_exec_batches(ctx, &sc, &batch, 1, &src, NULL), QV_OK);
      char *fast = test_run(sorted(ctx, src, &one, 1, -1), NULL);
      assert_int_equal(qv_exec_batches(ctx, &sc, &batch, 1, &src, NULL), QV_OK);
      char *slow = test_run(sorted(ctx, src, two, 2, -1), NULL);
      assert_string_equal(fast, slow);
      free(fast);
      free(slow);
    }
  qv_batch_release(batch);
  qv_schema_reset(&sc);
  qv_exec_ctx_release(ctx);
}

/* TopK equals Sort + Limit, at every k, over several batches. */
static void test_topk(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  qv_sort_key keys[2] = {{"k", false, false}, {"f", true, false}};
  for (int64_t k = 0; k <= 9; k++) {
    char *want = test_run(sorted(ctx, test_source(ctx, SRC, ROWS1, ROWS2, ROWS1, NULL), keys, 2, -1), NULL);
    /* cut after k lines */
    char *p = want;
    for (int64_t i = 0; i < k && *p; i++) p = strchr(p, '\n') + 1;
    *p = '\0';
    char *got = test_run(sorted(ctx, test_source(ctx, SRC, ROWS1, ROWS2, ROWS1, NULL), keys, 2, k), NULL);
    assert_string_equal(got, want);
    free(got);
    free(want);
  }
  qv_exec_op *op = sorted(ctx, test_source(ctx, SRC, NULL), keys, 1, 5);
  char *text;
  assert_int_equal(qv_exec_explain(op, false, &text, NULL), QV_OK);
  assert_string_equal(text,
                      "TopKExec: fetch=5, expr=[k ASC NULLS LAST]\n"
                      "  DataSourceExec: batches=0, rows=0, projection=[k, f, s]\n");
  qv_free(text);
  assert_rows(op, "");
  qv_exec_ctx_release(ctx);
}

/* Sort holds its input: the memory limit stops it. */
static void test_sort_memory_limit(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 1 << 20, 0);
  qv_schema sc;
  test_schema("k:int64", &sc);
  qv_builder b;
  qv_builder_init(&b, &sc.fields[0].type, NULL);
  for (int64_t i = 0; i < 200000; i++) qv_builder_append_int(&b, i % 1000);
  qv_array *col;
  qv_builder_finish(&b, &col, NULL);
  qv_batch *batch;
  qv_batch_make(&sc, &col, 200000, &batch, NULL);
  qv_exec_op *src;
  assert_int_equal(qv_exec_batches(ctx, &sc, &batch, 1, &src, NULL), QV_OK);
  qv_sort_key k = {"k", false, false};
  qv_exec_op *op = sorted(ctx, src, &k, 1, -1);
  qv_batch *out;
  qv_error err;
  assert_int_equal(qv_exec_next(op, &out, &err), QV_ERR_NOMEM);
  assert_string_equal(err.message,
                      "SortExec: buffered input passed the memory limit of 1 MiB (set qv_exec_options.memory_limit)");
  qv_exec_destroy(op);
  /* TopK of the same input stays within it */
  assert_int_equal(qv_exec_batches(ctx, &sc, &batch, 1, &src, NULL), QV_OK);
  op = sorted(ctx, src, &k, 1, 3);
  assert_rows(op, "0\n0\n0\n");
  assert_true(qv_exec_ctx_peak_bytes(ctx) < (1 << 20));
  qv_batch_release(batch);
  qv_schema_reset(&sc);
  qv_exec_ctx_release(ctx);
}

static void test_cross_join(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 4);
  qv_exec_op *op;
  assert_int_equal(qv_exec_cross_join(ctx, test_source(ctx, "a:int64", "1;2", "3", NULL),
                                      test_source(ctx, "b:string", "x", "null;z", NULL), &op, NULL),
                   QV_OK);
  int nb;
  char *got = test_run(op, &nb);
  assert_string_equal(got, "1|x\n1|null\n1|z\n2|x\n2|null\n2|z\n3|x\n3|null\n3|z\n");
  free(got);
  assert_int_equal(
      qv_exec_cross_join(ctx, test_source(ctx, "a:int64", "1;2", NULL), test_source(ctx, "b:string", NULL), &op, NULL),
      QV_OK);
  assert_rows(op, "");
  assert_int_equal(
      qv_exec_cross_join(ctx, test_source(ctx, "a:int64", NULL), test_source(ctx, "b:string", "x", NULL), &op, NULL),
      QV_OK);
  char *text;
  assert_int_equal(qv_exec_explain(op, false, &text, NULL), QV_OK);
  assert_string_equal(text,
                      "CrossJoinExec: left-major\n"
                      "  DataSourceExec: batches=0, rows=0, projection=[a]\n"
                      "  DataSourceExec: batches=1, rows=1, projection=[b]\n");
  qv_free(text);
  assert_rows(op, "");
  qv_exec_ctx_release(ctx);
}

static qv_exec_op *list_source(qv_exec_ctx *ctx) {
  qv_schema sc;
  test_schema("id:int64,l:list<string>", &sc);
  qv_builder b[2];
  for (int i = 0; i < 2; i++) assert_int_equal(qv_builder_init(&b[i], &sc.fields[i].type, NULL), QV_OK);
  const char *lists[] = {"a,b,c", NULL, "", "d", "null,e"};
  for (int r = 0; r < 5; r++) {
    qv_builder_append_int(&b[0], r);
    if (!lists[r]) {
      qv_builder_append_null(&b[1]);
      continue;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%s", lists[r]);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      if (strcmp(t, "null") == 0) qv_builder_append_null(&b[1].children[0]);
      else qv_builder_append_cstr(&b[1].children[0], t);
    }
    qv_builder_append_valid(&b[1]);
  }
  qv_array *cols[2];
  for (int i = 0; i < 2; i++) assert_int_equal(qv_builder_finish(&b[i], &cols[i], NULL), QV_OK);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&sc, cols, 5, &batch, NULL), QV_OK);
  qv_exec_op *op;
  assert_int_equal(qv_exec_batches(ctx, &sc, &batch, 1, &op, NULL), QV_OK);
  qv_batch_release(batch);
  qv_schema_reset(&sc);
  return op;
}

static void test_unwind(void **state) {
  (void)state;
  qv_exec_ctx *ctx = test_ctx(1, 0, 2);
  qv_exec_op *op;
  /* a null or empty list gives no row; pieces of about batch_size rows */
  assert_int_equal(qv_exec_unwind(ctx, list_source(ctx), "l", "x", "pos", &op, NULL), QV_OK);
  const qv_schema *s = qv_exec_schema(op);
  assert_int_equal(s->n_fields, 4);
  assert_string_equal(s->fields[2].name, "x");
  assert_int_equal(s->fields[2].type.id, QV_TYPE_STRING);
  assert_int_equal(s->fields[3].type.id, QV_TYPE_INT64);
  char *text;
  assert_int_equal(qv_exec_explain(op, false, &text, NULL), QV_OK);
  assert_string_equal(text,
                      "UnwindExec: list=l, as=x, ordinality=pos\n"
                      "  DataSourceExec: batches=1, rows=5, projection=[id, l]\n");
  qv_free(text);
  assert_rows(op,
              "0|[a, b, c]|a|1\n0|[a, b, c]|b|2\n0|[a, b, c]|c|3\n3|[d]|d|1\n4|[null, e]|null|1\n4|[null, e]|e|2\n");
  assert_int_equal(qv_exec_unwind(ctx, list_source(ctx), "l", "x", NULL, &op, NULL), QV_OK);
  assert_int_equal(qv_exec_schema(op)->n_fields, 3);
  assert_rows(op, "0|[a, b, c]|a\n0|[a, b, c]|b\n0|[a, b, c]|c\n3|[d]|d\n4|[null, e]|null\n4|[null, e]|e\n");
  qv_error err;
  assert_int_equal(qv_exec_unwind(ctx, list_source(ctx), "id", "x", NULL, &op, &err), QV_ERR_TYPE);
  assert_string_equal(err.message, "UnwindExec: column `id` is not a list");
  qv_exec_ctx_release(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sort),       cmocka_unit_test(test_radix_matches_merge),
      cmocka_unit_test(test_topk),       cmocka_unit_test(test_sort_memory_limit),
      cmocka_unit_test(test_cross_join), cmocka_unit_test(test_unwind),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
