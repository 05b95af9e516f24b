/* Every allocation of a plan that uses each operator fails in turn: each
 * run ends in an error (or the right rows), never a crash, and gives back
 * what it held (valgrind or ASan see the leaks). */
#include "failing_alloc.h"

#include "exec/exec_test.h"

/* Builds a plan using every operator over fresh sources and runs it with
 * `budget` allocations allowed; returns the status, and the rows when it
 * succeeded (caller frees). */
static qv_status run_plan(long budget, char **rows) {
  *rows = NULL;
  failing_alloc_budget = -1;
  qv_exec_ctx *ctx = test_ctx(1, 0, 0);
  /* the operators not yet handed to a parent; a constructor consumes its
   * children also when it fails */
  qv_exec_op *pend[5] = {test_source(ctx, "k:int64,v:int64", "1|10;2|20;null|30;2|40", NULL),
                         test_source(ctx, "k:int64,v:int64", "3|50;0|60;2|40", NULL),
                         test_source(ctx, "k:int64,w:string", "2|x;2|y;1|z;null|n", NULL),
                         test_source(ctx, "k:int64,v:int64", "5|1;6|2", NULL), NULL};
  qv_expr *p = test_expr("k > 0"), *e = test_expr("k * 2"), *v = test_expr("v"), *k = test_expr("k");
  const char *lk = "k", *rk = "k", *names[2] = {"c1", "c2"}, *kname = "k";
  const qv_expr *pe[2] = {v, e};
  qv_exec_agg aggs[3] = {
      {QV_AGG_COUNT_STAR, NULL, false, "n"}, {QV_AGG_SUM, v, true, "s"}, {QV_AGG_COLLECT, v, false, "l"}};
  qv_sort_key sk[2] = {{"k", false, false}, {"x", true, false}};
  qv_error err;
  err.message[0] = '\0';
  qv_exec_op *op = NULL;
  qv_status st;
  failing_alloc_budget = budget;
  qv_exec_op *two[2] = {pend[0], pend[1]};
  pend[0] = pend[1] = NULL;
  if ((st = qv_exec_union(ctx, two, 2, &op, &err)) != QV_OK) goto done;
  if ((st = qv_exec_filter(ctx, op, p, &op, &err)) != QV_OK) goto done;
  st = qv_exec_hash_join(ctx, op, pend[2], &lk, &rk, 1, QV_JOIN_LEFT, &op, &err);
  pend[2] = NULL;
  if (st != QV_OK) goto done;
  if ((st = qv_exec_aggregate(ctx, op, (const qv_expr *const *)&k, &kname, 1, aggs, 3, &op, &err)) != QV_OK) goto done;
  if ((st = qv_exec_unwind(ctx, op, "l", "x", "i", &op, &err)) != QV_OK) goto done;
  pend[4] = op; /* the right side may fail on its own */
  op = NULL;
  qv_exec_op *right;
  st = qv_exec_project(ctx, pend[3], pe, names, 2, &right, &err);
  pend[3] = NULL;
  if (st != QV_OK) goto done;
  st = qv_exec_cross_join(ctx, pend[4], right, &op, &err);
  pend[4] = NULL;
  if (st != QV_OK) goto done;
  if ((st = qv_exec_sort(ctx, op, sk, 2, &op, &err)) != QV_OK) goto done;
  if ((st = qv_exec_topk(ctx, op, sk, 2, 5, &op, &err)) != QV_OK) goto done;
  if ((st = qv_exec_limit(ctx, op, 1, 3, &op, &err)) != QV_OK) goto done;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  for (;;) {
    qv_batch *bt;
    st = qv_exec_next(op, &bt, &err);
    if (st != QV_OK || !bt) break;
    for (int64_t r = 0; r < bt->num_rows; r++) {
      for (int32_t c = 0; c < bt->schema.n_fields; c++) {
        char cell[128];
        qv_array_format_value(bt->columns[c], r, cell, sizeof cell);
        fprintf(f, "%s%s", c ? "|" : "", cell);
      }
      fputc('\n', f);
    }
    qv_batch_release(bt);
  }
  char *ex = NULL;
  if (st == QV_OK) st = qv_exec_explain(op, true, &ex, &err);
  qv_free(ex);
  fclose(f);
  if (st == QV_OK) *rows = text;
  else free(text);
done:
  failing_alloc_budget = -1;
  if (st != QV_OK) assert_true(err.message[0] != '\0');
  qv_exec_destroy(op);
  for (int i = 0; i < 5; i++) qv_exec_destroy(pend[i]);
  qv_expr_destroy(p);
  qv_expr_destroy(e);
  qv_expr_destroy(v);
  qv_expr_destroy(k);
  assert_int_equal(qv_exec_ctx_held_bytes(ctx), 0);
  qv_exec_ctx_release(ctx);
  return st;
}

static void test_every_allocation_fails(void **state) {
  (void)state;
  int before = qv_set_threads(1);
  char *want;
  assert_int_equal(run_plan(-1, &want), QV_OK);
  assert_string_equal(want,
                      "1|1|10|[10]|10|1|2|12\n2|6|60|[20, 20, 40, 40, 40, 40]|40|3|1|10\n"
                      "2|6|60|[20, 20, 40, 40, 40, 40]|40|3|2|12\n");
  long n = 0;
  for (;; n++) {
    char *got;
    qv_status st = run_plan(n, &got);
    if (st == QV_OK) {
      assert_string_equal(got, want);
      free(got);
      break;
    }
    assert_int_equal(st, QV_ERR_NOMEM);
  }
  assert_true(n > 50);
  free(want);
  qv_set_threads(before);
}

int main(void) {
  qv_set_allocator(failing_alloc, NULL);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_allocation_fails),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
