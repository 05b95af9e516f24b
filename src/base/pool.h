/* Worker threads for data-parallel work inside one library call.  Internal
 * to libquiver; the public knob is qv_set_threads (quiver/base.h).  Users:
 * storage (page_view.c: decoding the frames of a page, verifying its
 * checksum blocks; datafile.h sizes per-worker scratch by QV_POOL_MAX) and
 * scan (scanner.c: the page ranges of one round, lane by lane) and exec
 * (aggregate.c: a round's batches and partitions; join.c: probe batches).
 *
 * qvb_pool_run(n, max_workers, fn, ctx) calls fn(ctx, task, worker) once
 * for every task in [0, n) and returns when all have returned.  The calling
 * thread works too (as worker 0); helpers are workers 1 .. w - 1, where w
 * is the smaller of qv_threads() and max_workers, so fn may keep
 * per-worker scratch indexed by `worker` in max_workers slots.  Tasks must be
 * independent, must not allocate through a non-thread-safe allocator, and
 * must not call qvb_pool_run themselves (a nested or concurrent call simply
 * runs its tasks on the calling thread, so it is safe, only not parallel). */
#ifndef QUIVER_BASE_POOL_H
#define QUIVER_BASE_POOL_H

#include <stdint.h>

/* Upper bound of qv_pool_workers(); per-worker scratch arrays use it. */
#define QV_POOL_MAX 16

typedef void (*qv_pool_fn)(void *ctx, int64_t task, int worker);

void qvb_pool_run(int64_t n_tasks, int max_workers, qv_pool_fn fn, void *ctx);

#endif
