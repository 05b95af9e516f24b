/* The worker pool (src/base/pool.h): every task runs exactly once, worker
 * numbers stay below the thread count, one job at a time (concurrent and
 * nested calls run alone, never deadlock), the count follows
 * qv_set_threads, and a forked child can use the pool. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/pool.h"
#include "quiver/base.h"

#define N_TASKS 1000

typedef struct counts {
  atomic_int ran[N_TASKS];
  atomic_int bad_worker;
  atomic_int per_worker[QV_POOL_MAX];
  int limit; /* worker numbers must be below this */
} counts;

static void count_task(void *ctx, int64_t task, int worker) {
  counts *c = ctx;
  atomic_fetch_add(&c->ran[task], 1);
  if (worker < 0 || worker >= c->limit) atomic_fetch_add(&c->bad_worker, 1);
  else atomic_fetch_add(&c->per_worker[worker], 1);
  if (task % 50 == 0) usleep(200); /* uneven tasks, so helpers get some */
}

static void run_and_check(counts *c, int64_t n) {
  memset(c, 0, sizeof *c);
  c->limit = qv_threads();
  qvb_pool_run(n, QV_POOL_MAX, count_task, c);
  for (int64_t t = 0; t < n; t++) assert_int_equal(atomic_load(&c->ran[t]), 1);
  assert_int_equal(atomic_load(&c->bad_worker), 0);
}

static void test_every_task_once(void **state) {
  (void)state;
  int before = qv_set_threads(4);
  assert_int_equal(qv_threads(), 4);
  counts c;
  int helped = 0; /* tasks helper threads ran */
  for (int round = 0; round < 20; round++) {
    run_and_check(&c, N_TASKS);
    helped += N_TASKS - atomic_load(&c.per_worker[0]);
  }
  assert_true(helped > 0);
  run_and_check(&c, 0);
  run_and_check(&c, 1);
  assert_int_equal(atomic_load(&c.per_worker[0]), 1); /* one task: the caller */
  qv_set_threads(before);
}

static void test_one_thread_runs_on_the_caller(void **state) {
  (void)state;
  int before = qv_set_threads(1);
  counts c;
  run_and_check(&c, N_TASKS);
  assert_int_equal(atomic_load(&c.per_worker[0]), N_TASKS);
  qv_set_threads(before);
}

static void test_thread_count(void **state) {
  (void)state;
  int before = qv_set_threads(1000);
  assert_int_equal(qv_threads(), QV_POOL_MAX);
  qv_set_threads(3);
  assert_int_equal(qv_set_threads(0), 3); /* 0 restores the default, returns the old value */
  assert_true(qv_threads() >= 1 && qv_threads() <= QV_POOL_MAX);
  /* fewer workers after more were started: numbers stay below the new count */
  qv_set_threads(8);
  counts c;
  run_and_check(&c, N_TASKS);
  qv_set_threads(2);
  for (int round = 0; round < 10; round++) run_and_check(&c, N_TASKS);
  qv_set_threads(before);
}

/* max_workers caps the worker numbers below the thread count. */
static void test_max_workers(void **state) {
  (void)state;
  int before = qv_set_threads(4);
  for (int cap = 1; cap <= 3; cap++) {
    counts c;
    memset(&c, 0, sizeof c);
    c.limit = cap;
    qvb_pool_run(N_TASKS, cap, count_task, &c);
    for (int t = 0; t < N_TASKS; t++) assert_int_equal(atomic_load(&c.ran[t]), 1);
    assert_int_equal(atomic_load(&c.bad_worker), 0);
  }
  qv_set_threads(before);
}

/* A task that calls back into the pool gets its inner tasks run inline. */
typedef struct nested {
  counts inner[8];
} nested;

static void outer_task(void *ctx, int64_t task, int worker) {
  (void)worker;
  nested *n = ctx;
  n->inner[task].limit = QV_POOL_MAX;
  qvb_pool_run(N_TASKS, QV_POOL_MAX, count_task, &n->inner[task]);
}

static void test_nested_runs_inline(void **state) {
  (void)state;
  int before = qv_set_threads(4);
  static nested n;
  memset(&n, 0, sizeof n);
  qvb_pool_run(8, QV_POOL_MAX, outer_task, &n);
  for (int i = 0; i < 8; i++)
    for (int t = 0; t < N_TASKS; t++) assert_int_equal(atomic_load(&n.inner[i].ran[t]), 1);
  qv_set_threads(before);
}

static void *caller(void *arg) {
  counts *c = arg;
  for (int round = 0; round < 20; round++) {
    memset(c, 0, sizeof *c);
    c->limit = QV_POOL_MAX;
    qvb_pool_run(N_TASKS, QV_POOL_MAX, count_task, c);
    for (int t = 0; t < N_TASKS; t++)
      if (atomic_load(&c->ran[t]) != 1) return (void *)1;
  }
  return NULL;
}

static void test_concurrent_callers(void **state) {
  (void)state;
  int before = qv_set_threads(3);
  static counts c[4];
  pthread_t t[4];
  for (int i = 0; i < 4; i++) assert_int_equal(pthread_create(&t[i], NULL, caller, &c[i]), 0);
  for (int i = 0; i < 4; i++) {
    void *r;
    assert_int_equal(pthread_join(t[i], &r), 0);
    assert_null(r);
  }
  qv_set_threads(before);
}

static void test_after_fork(void **state) {
  (void)state;
  int before = qv_set_threads(4);
  counts c;
  run_and_check(&c, N_TASKS); /* the parent's helpers exist now */
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    static counts cc;
    cc.limit = QV_POOL_MAX;
    qvb_pool_run(N_TASKS, QV_POOL_MAX, count_task, &cc);
    for (int t = 0; t < N_TASKS; t++)
      if (atomic_load(&cc.ran[t]) != 1) _exit(1);
    _exit(0);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  qv_set_threads(before);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_task_once),    cmocka_unit_test(test_one_thread_runs_on_the_caller),
      cmocka_unit_test(test_thread_count),       cmocka_unit_test(test_nested_runs_inline),
      cmocka_unit_test(test_concurrent_callers), cmocka_unit_test(test_after_fork),
      cmocka_unit_test(test_max_workers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
