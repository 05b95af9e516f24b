/* The cancel flag (qv_exec_options.cancel): a plan stops at its next batch
 * with QV_ERR_CANCELLED naming the operator; a version-1 options struct
 * (no cancel field) is read as such. */
#include "exec/exec_test.h"

#define AB "a:int64,b:string"

static void test_cancel_between_batches(void **state) {
  (void)state;
  volatile int cancel = 0;
  qv_exec_options o = QV_EXEC_OPTIONS_INIT;
  o.cancel = &cancel;
  qv_exec_ctx *ctx;
  assert_int_equal(qv_exec_ctx_create(&o, &ctx, NULL), QV_OK);
  qv_exec_op *src = test_source(ctx, AB, "1|x", "2|y", "3|z", NULL);
  qv_exec_op *lim;
  assert_int_equal(qv_exec_limit(ctx, src, 0, 100, &lim, NULL), QV_OK);
  qv_batch *b = NULL;
  qv_error err;
  assert_int_equal(qv_exec_next(lim, &b, &err), QV_OK);
  assert_non_null(b);
  assert_int_equal(b->num_rows, 1);
  qv_batch_release(b);
  cancel = 1; /* as a signal handler or another thread would */
  assert_int_equal(qv_exec_next(lim, &b, &err), QV_ERR_CANCELLED);
  assert_null(b);
  assert_string_equal(err.message, "LimitExec: cancelled");
  /* the operator stays failed */
  cancel = 0;
  assert_int_equal(qv_exec_next(lim, &b, &err), QV_ERR_CANCELLED);
  assert_string_equal(qv_status_string(QV_ERR_CANCELLED), "cancelled");
  qv_exec_destroy(lim);
  qv_exec_ctx_release(ctx);
}

static void test_version_one_options(void **state) {
  (void)state;
  /* a caller built against version 1 passes a struct without cancel */
  struct {
    int version;
    int64_t memory_limit;
    int threads;
    int64_t batch_size;
  } v1 = {1, 1 << 20, 1, 2};
  qv_exec_ctx *ctx;
  assert_int_equal(qv_exec_ctx_create((const qv_exec_options *)(const void *)&v1, &ctx, NULL), QV_OK);
  qv_exec_op *src = test_source(ctx, AB, "1|x;2|y;3|z", NULL);
  int nb;
  char *got = test_run(src, &nb);
  assert_string_equal(got, "1|x\n2|y\n3|z\n");
  free(got);
  qv_exec_ctx_release(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cancel_between_batches),
      cmocka_unit_test(test_version_one_options),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
