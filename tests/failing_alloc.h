/* An allocator for out-of-memory tests: after qv_set_allocator(failing_alloc,
 * NULL) with failing_alloc_budget = n, n allocations succeed and every one
 * after fails; -1 never fails.  Frees always work, so whatever a test
 * allocated before the budget ran out is released normally.  Scans run on
 * the worker pool: set qv_set_threads(1) around such a test so that the
 * n-th allocation is the same one in every run. */
#ifndef QUIVER_TESTS_FAILING_ALLOC_H
#define QUIVER_TESTS_FAILING_ALLOC_H

#include <stdlib.h>
#include <string.h>

static long failing_alloc_budget = -1;

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (failing_alloc_budget == 0) return NULL;
  if (failing_alloc_budget > 0) failing_alloc_budget--;
  void *p = NULL;
  if (posix_memalign(&p, 64, nsize) != 0) return NULL;
  if (ptr) {
    memcpy(p, ptr, osize < nsize ? osize : nsize);
    free(ptr);
  }
  return p;
}

#endif
