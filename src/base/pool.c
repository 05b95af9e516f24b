/* The worker pool behind qvb_pool_run (pool.h) and qv_set_threads.
 *
 * One process-wide pool, started on first use with qv_threads() - 1
 * helper threads that sleep on a condition variable between jobs.  A job
 * is (fn, ctx, n_tasks); participants claim task numbers from an atomic
 * counter until none are left, so uneven tasks balance themselves.  Only
 * one job runs at a time: a call that finds the pool busy (another thread
 * scanning, or a task calling back in) runs its tasks itself rather than
 * wait.  After fork() the child has none of the helper threads, so the
 * child resets the pool and starts a new one if it needs it.
 *
 * Waiting spins a little before it sleeps: a helper that finished a job
 * watches for the next one, and the caller for its helpers' end, for up to
 * QV_POOL_SPIN_NS, reading atomic mirrors of the job counter and the
 * helpers inside (the fields themselves change under the lock).  A scan
 * runs a job per round of pages, a round every few hundred microseconds,
 * and a futex wake-up of a sleeping thread costs tens of microseconds on a
 * loaded machine: one such wait per round, on each side, was a tenth of a
 * two-thread scan. */
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "base/pool.h"
#include "quiver/base.h"

static struct {
  pthread_mutex_t mu;
  pthread_cond_t wake, done;
  int helpers;         /* helper threads started */
  bool busy;           /* a job is open: helpers may join it */
  uint64_t generation; /* bumped per job, so a helper joins each job once */
  qv_pool_fn fn;       /* the job; stable while busy */
  void *ctx;
  int64_t n_tasks;
  int want;                 /* participants allowed in this job */
  int next_worker;          /* the next worker number to hand out */
  int active;               /* helpers inside the current job */
  atomic_int_fast64_t next; /* the next unclaimed task */
  /* mirrors for the spinning waits (written under mu, read without it) */
  atomic_uint_fast64_t generation_seen;
  atomic_int active_seen;
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static atomic_int threads_wanted; /* 0: not decided yet */

#define QV_POOL_SPIN_NS 50000

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Spins until done(arg) or QV_POOL_SPIN_NS pass; true when done. */
static bool spin_until(bool (*done)(uint64_t), uint64_t arg) {
  int64_t end = 0;
  for (int i = 0;; i++) {
    if (done(arg)) return true;
    cpu_relax();
    if ((i & 63) == 63) {
      int64_t t = now_ns();
      if (!end) end = t + QV_POOL_SPIN_NS;
      else if (t > end) return false;
    }
  }
}

static bool new_job(uint64_t seen) { return atomic_load_explicit(&pool.generation_seen, memory_order_acquire) != seen; }
static bool helpers_out(uint64_t unused) {
  (void)unused;
  return atomic_load_explicit(&pool.active_seen, memory_order_acquire) == 0;
}

static int default_threads(void) {
  const char *env = getenv("QUIVER_THREADS");
  long n = 0;
  if (env && *env) {
    char *end;
    n = strtol(env, &end, 10);
    if (*end || n < 1) n = 0; /* unreadable: fall back to the CPU count */
  }
  if (n == 0) n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  return n > QV_POOL_MAX ? QV_POOL_MAX : (int)n;
}

int qv_threads(void) {
  int n = atomic_load(&threads_wanted);
  if (n == 0) {
    int d = default_threads(), expected = 0;
    atomic_compare_exchange_strong(&threads_wanted, &expected, d);
    n = atomic_load(&threads_wanted);
  }
  return n;
}

int qv_set_threads(int n) {
  int before = qv_threads();
  if (n < 1) n = default_threads();
  atomic_store(&threads_wanted, n > QV_POOL_MAX ? QV_POOL_MAX : n);
  return before;
}

static void claim_tasks(int worker) {
  int64_t t;
  while ((t = atomic_fetch_add(&pool.next, 1)) < pool.n_tasks) pool.fn(pool.ctx, t, worker);
}

/* A helper joins an open job it has not seen, under the lock, so the job
 * cannot close (its caller waits for active == 0) while the helper reads
 * it, and it never sees a job's fields half set. */
static void *helper_main(void *arg) {
  (void)arg;
  pthread_mutex_lock(&pool.mu);
  uint64_t seen = 0;
  for (;;) {
    while (!pool.busy || pool.generation == seen) pthread_cond_wait(&pool.wake, &pool.mu);
    seen = pool.generation;
    if (pool.next_worker >= pool.want) continue; /* enough workers (qv_set_threads lowered the count) */
    int worker = pool.next_worker++;
    pool.active++;
    atomic_store_explicit(&pool.active_seen, pool.active, memory_order_release);
    pthread_mutex_unlock(&pool.mu);
    claim_tasks(worker);
    pthread_mutex_lock(&pool.mu);
    if (--pool.active == 0) pthread_cond_signal(&pool.done);
    atomic_store_explicit(&pool.active_seen, pool.active, memory_order_release);
    /* the next round's job usually comes soon: watch for it before
     * sleeping (the loop above re-checks under the lock) */
    pthread_mutex_unlock(&pool.mu);
    spin_until(new_job, seen);
    pthread_mutex_lock(&pool.mu);
  }
  return NULL;
}

static void after_fork_child(void) {
  pthread_mutex_init(&pool.mu, NULL);
  pthread_cond_init(&pool.wake, NULL);
  pthread_cond_init(&pool.done, NULL);
  pool.helpers = 0;
  pool.busy = false;
  pool.active = 0;
  atomic_store(&pool.active_seen, 0);
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void install_atfork(void) { pthread_atfork(NULL, NULL, after_fork_child); }

/* Starts helpers up to want - 1 (under pool.mu); fewer if the system
 * refuses threads, which only costs parallelism. */
static void start_helpers(int want) {
  while (pool.helpers < want - 1) {
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    int rc = pthread_create(&t, &attr, helper_main, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) break;
    pool.helpers++;
  }
}

void qvb_pool_run(int64_t n_tasks, int max_workers, qv_pool_fn fn, void *ctx) {
  int want = qv_threads();
  if (max_workers < want) want = max_workers;
  if (n_tasks <= 1 || want <= 1) {
    for (int64_t t = 0; t < n_tasks; t++) fn(ctx, t, 0);
    return;
  }
  pthread_once(&atfork_once, install_atfork);
  pthread_mutex_lock(&pool.mu);
  if (pool.busy) {
    pthread_mutex_unlock(&pool.mu);
    for (int64_t t = 0; t < n_tasks; t++) fn(ctx, t, 0);
    return;
  }
  start_helpers(want);
  pool.busy = true;
  pool.fn = fn;
  pool.ctx = ctx;
  pool.n_tasks = n_tasks;
  pool.want = want;
  pool.next_worker = 1;
  atomic_store(&pool.next, 0);
  pool.generation++;
  atomic_store_explicit(&pool.generation_seen, pool.generation, memory_order_release);
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.mu);
  claim_tasks(0);
  spin_until(helpers_out, 0); /* helpers finishing their last tasks */
  pthread_mutex_lock(&pool.mu);
  /* every task is claimed; the ones helpers claimed are done when no
   * helper is left inside the job.  Closing it (busy = false) keeps
   * helpers that wake late out of it. */
  while (pool.active > 0) pthread_cond_wait(&pool.done, &pool.mu);
  pool.busy = false;
  pthread_mutex_unlock(&pool.mu);
}
