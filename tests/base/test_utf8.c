/* qvb_utf8_encode: the bytes of the boundary code points of each length,
 * and every scalar value (U+0000..U+10FFFF without the surrogates)
 * encoded, checked valid by qv_utf8_valid_prefix and decoded back by a
 * reference decoder written from RFC 3629. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/utf8.h"
#include "quiver/base.h"

static void expect_bytes(uint32_t cp, const char *want) {
  uint8_t buf[4] = {0};
  size_t n = qvb_utf8_encode(buf, cp);
  assert_int_equal(n, strlen(want));
  assert_memory_equal(buf, want, n);
}

static void test_boundaries(void **state) {
  (void)state;
  expect_bytes(0x01, "\x01");
  expect_bytes(0x7F, "\x7F");
  expect_bytes(0x80, "\xC2\x80");
  expect_bytes(0xE9, "\xC3\xA9");
  expect_bytes(0x7FF, "\xDF\xBF");
  expect_bytes(0x800, "\xE0\xA0\x80");
  expect_bytes(0x03C2, "\xCF\x82");
  expect_bytes(0xFFFF, "\xEF\xBF\xBF");
  expect_bytes(0x10000, "\xF0\x90\x80\x80");
  expect_bytes(0x1F600, "\xF0\x9F\x98\x80");
  expect_bytes(0x10FFFF, "\xF4\x8F\xBF\xBF");
}

static uint32_t decode(const uint8_t *p, size_t n) {
  if (n == 1) return p[0];
  uint32_t cp = p[0] & (0xFFu >> (n + 1));
  for (size_t k = 1; k < n; k++) cp = cp << 6 | (p[k] & 0x3F);
  return cp;
}

static void test_every_scalar_value(void **state) {
  (void)state;
  for (uint32_t cp = 0; cp <= 0x10FFFF; cp++) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    uint8_t buf[4];
    size_t n = qvb_utf8_encode(buf, cp);
    size_t want = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (n != want || qv_utf8_valid_prefix(buf, (int64_t)n) != (int64_t)n || decode(buf, n) != cp)
      fail_msg("U+%04X: %zu bytes", (unsigned)cp, n);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_boundaries),
      cmocka_unit_test(test_every_scalar_value),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
