/* qv_bytes allocation: qv_bytes_alloc zeroes everything, qv_bytes_alloc_uninit
 * only the padding after the size (the caller writes the rest); both are
 * 64-byte aligned, and sizes that are a multiple of 64 still get padding
 * (readers may load a word past the end). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "quiver/base.h"

/* The allocation behind b, as qv_malloc records it. */
static size_t capacity_of(const qv_bytes *b) { return *(const size_t *)(b->data - 64); }

static void test_uninit_pads_with_zeros(void **state) {
  (void)state;
  const int64_t sizes[] = {0, 1, 7, 63, 64, 65, 1000, 4096};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    /* dirty the heap so that the zeros below are the allocator's doing */
    uint8_t *junk = qv_malloc(8192);
    memset(junk, 0xAB, 8192);
    qv_free(junk);
    qv_bytes *b = qv_bytes_alloc_uninit(sizes[k]);
    assert_non_null(b);
    assert_int_equal(b->size, sizes[k]);
    assert_int_equal((uintptr_t)b->data % 64, 0);
    size_t cap = capacity_of(b);
    assert_true(cap > (size_t)sizes[k] && cap % 64 == 0);
    for (size_t i = (size_t)sizes[k]; i < cap; i++) assert_int_equal(b->data[i], 0);
    memset(qv_bytes_mutable(b), 0x5A, (size_t)sizes[k]); /* the caller's bytes */
    qv_bytes_release(b);
  }
  assert_null(qv_bytes_alloc_uninit(-1));
}

static void test_alloc_zeroes_everything(void **state) {
  (void)state;
  qv_bytes *b = qv_bytes_alloc(1000);
  assert_non_null(b);
  assert_int_equal((uintptr_t)b->data % 64, 0);
  for (size_t i = 0; i < capacity_of(b); i++) assert_int_equal(b->data[i], 0);
  qv_bytes_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_uninit_pads_with_zeros),
      cmocka_unit_test(test_alloc_zeroes_everything),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
