/* The large-block cache behind the default allocator (src/base/block_cache.h):
 * size classes, what it keeps and refuses, that the allocator reuses a
 * freed block (and calloc still zeroes it), and that threads sharing it
 * never see each other's blocks. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/block_cache.h"
#include "quiver/base.h"

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)

static void test_size_classes(void **state) {
  (void)state;
  assert_int_equal(qvb_block_class(1000), 1000);
  assert_int_equal(QV_BLOCK_CACHE_MIN, 64 * KIB);
  assert_int_equal(qvb_block_class(64 * KIB - 1), 64 * KIB - 1);
  assert_int_equal(qvb_block_class(64 * KIB), 64 * KIB);
  assert_int_equal(qvb_block_class(64 * KIB + 1), QV_BLOCK_CACHE_ON ? 128 * KIB : 64 * KIB + 1);
  assert_int_equal(qvb_block_class(256 * KIB), 256 * KIB);
  assert_int_equal(qvb_block_class(SIZE_MAX), SIZE_MAX);
  /* AddressSanitizer builds: every block its exact size */
  assert_int_equal(qvb_block_class(256 * KIB + 1), QV_BLOCK_CACHE_ON ? 320 * KIB : 256 * KIB + 1);
  assert_int_equal(qvb_block_class(MIB - 5), QV_BLOCK_CACHE_ON ? MIB : MIB - 5);
}

static void *block(size_t n) {
  void *p = NULL;
  assert_int_equal(posix_memalign(&p, 64, n), 0);
  return p;
}

static void test_keeps_and_refuses(void **state) {
  (void)state;
  void *p = block(320 * KIB);
  assert_null(qvb_block_cache_take(320 * KIB));
  if (!QV_BLOCK_CACHE_ON) { /* AddressSanitizer: nothing is kept */
    assert_false(qvb_block_cache_keep(p, 320 * KIB));
    free(p);
    return;
  }
  assert_true(qvb_block_cache_keep(p, 320 * KIB));
  assert_null(qvb_block_cache_take(384 * KIB)); /* another class */
  assert_ptr_equal(qvb_block_cache_take(320 * KIB), p);
  assert_null(qvb_block_cache_take(320 * KIB)); /* taken once */
  /* below the minimum, or larger than all it may hold: refused */
  assert_false(qvb_block_cache_keep(p, 32 * KIB));
  assert_false(qvb_block_cache_keep(p, QV_BLOCK_CACHE_BYTES + 64 * KIB));
  free(p);
  /* at most QV_BLOCK_CACHE_SLOTS blocks ... */
  void *b[QV_BLOCK_CACHE_SLOTS + 1];
  assert_true(QV_BLOCK_CACHE_SLOTS * QV_BLOCK_CACHE_MIN < QV_BLOCK_CACHE_BYTES); /* slots bind first */
  for (int i = 0; i <= QV_BLOCK_CACHE_SLOTS; i++) b[i] = block(QV_BLOCK_CACHE_MIN);
  for (int i = 0; i < QV_BLOCK_CACHE_SLOTS; i++) assert_true(qvb_block_cache_keep(b[i], QV_BLOCK_CACHE_MIN));
  assert_false(qvb_block_cache_keep(b[QV_BLOCK_CACHE_SLOTS], QV_BLOCK_CACHE_MIN));
  for (int i = 0; i <= QV_BLOCK_CACHE_SLOTS; i++) {
    void *t = qvb_block_cache_take(QV_BLOCK_CACHE_MIN);
    if (i < QV_BLOCK_CACHE_SLOTS) assert_non_null(t);
    else assert_null(t);
    free(t);
  }
  free(b[QV_BLOCK_CACHE_SLOTS]);
  /* ... and at most QV_BLOCK_CACHE_BYTES bytes, whatever the slots left */
  void *big1 = block(QV_BLOCK_CACHE_BYTES / 2), *big2 = block(QV_BLOCK_CACHE_BYTES / 2), *small = block(MIB);
  assert_true(qvb_block_cache_keep(big1, QV_BLOCK_CACHE_BYTES / 2));
  assert_true(qvb_block_cache_keep(big2, QV_BLOCK_CACHE_BYTES / 2));
  assert_false(qvb_block_cache_keep(small, MIB));
  free(qvb_block_cache_take(QV_BLOCK_CACHE_BYTES / 2));
  assert_true(qvb_block_cache_keep(small, MIB));
  free(qvb_block_cache_take(QV_BLOCK_CACHE_BYTES / 2));
  free(qvb_block_cache_take(MIB));
  assert_null(qvb_block_cache_take(QV_BLOCK_CACHE_BYTES / 2));
}

static void test_allocator_reuses(void **state) {
  (void)state;
  uint8_t *p = qv_malloc(600 * KIB);
  assert_non_null(p);
  memset(p, 0xab, 600 * KIB);
  qv_free(p);
  uint8_t *q = qv_malloc(600 * KIB);
  if (QV_BLOCK_CACHE_ON) assert_ptr_equal(q, p); /* the freed block, not a new mapping */
  /* growing within the size class keeps the block; beyond, the bytes move */
  uint8_t *r = qv_realloc(q, 630 * KIB);
  if (QV_BLOCK_CACHE_ON) assert_ptr_equal(r, q);
  for (size_t i = 0; i < 630 * KIB; i++) r[i] = (uint8_t)(i * 7);
  uint8_t *s = qv_realloc(r, 2 * MIB);
  assert_non_null(s);
  for (size_t i = 0; i < 630 * KIB; i++)
    if (s[i] != (uint8_t)(i * 7)) fail_msg("byte %zu lost by realloc", i);
  /* a reused block still comes back zeroed from calloc */
  memset(s, 0xcd, 2 * MIB);
  qv_free(s);
  uint8_t *z = qv_calloc(2 * MIB, 1);
  assert_non_null(z);
  if (QV_BLOCK_CACHE_ON) assert_ptr_equal(z, s);
  for (size_t i = 0; i < 2 * MIB; i++)
    if (z[i]) fail_msg("calloc byte %zu is %u", i, z[i]);
  qv_free(z);
  /* trimming gives back what is kept, and only that */
  qv_memory_trim();
  uint8_t *t = qv_malloc(700 * KIB);
  qv_free(t);
  assert_int_equal(qv_memory_trim(), QV_BLOCK_CACHE_ON ? qvb_block_class(700 * KIB + 64) : 0);
  assert_int_equal(qv_memory_trim(), 0);
  assert_null(qvb_block_cache_take(qvb_block_class(700 * KIB + 64)));
}

/* Threads allocate, fill, check and free blocks of a few classes: a block
 * handed to two threads at once would show the other's bytes. */
static void *churn(void *arg) {
  uint8_t mark = (uint8_t)(uintptr_t)arg;
  for (int i = 0; i < 400; i++) {
    size_t n = 256 * KIB + (size_t)(i % 5) * 64 * KIB;
    uint8_t *p = qv_malloc(n);
    if (!p) return (void *)1;
    memset(p, mark, n);
    for (size_t k = 0; k < n; k += 4093)
      if (p[k] != mark) return (void *)1;
    qv_free(p);
  }
  return NULL;
}

static void test_threads_share_it(void **state) {
  (void)state;
  pthread_t t[4];
  for (uintptr_t i = 0; i < 4; i++) assert_int_equal(pthread_create(&t[i], NULL, churn, (void *)(i + 1)), 0);
  for (int i = 0; i < 4; i++) {
    void *bad = NULL;
    pthread_join(t[i], &bad);
    assert_null(bad);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_size_classes),
      cmocka_unit_test(test_keeps_and_refuses),
      cmocka_unit_test(test_allocator_reuses),
      cmocka_unit_test(test_threads_share_it),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
