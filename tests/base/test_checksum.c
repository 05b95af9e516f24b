/* CRC32C: the published check value, and both paths (the SSE4.2 one with
 * its three chains joined by shift tables, and the portable tables)
 * against a bit-at-a-time reference written from the definition, over
 * every length that exercises a chain boundary, at unaligned addresses
 * and from nonzero starting values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/checksum.h"
#include "quiver/base.h"

/* The definition: reflected polynomial 0x82F63B78, register inverted
 * before and after, one bit at a time. */
static uint32_t crc_reference(uint32_t crc, const uint8_t *p, size_t n) {
  crc = ~crc;
  while (n--) {
    crc ^= *p++;
    for (int k = 0; k < 8; k++) crc = crc & 1 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
  }
  return ~crc;
}

static uint8_t *random_bytes(size_t n, uint32_t seed) {
  uint8_t *b = malloc(n);
  assert_non_null(b);
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    b[i] = (uint8_t)(seed >> 16);
  }
  return b;
}

static void test_check_value(void **state) {
  (void)state;
  /* the CRC-32C check value (RFC 3720, the "123456789" convention) */
  assert_int_equal(qv_crc32c(0, "123456789", 9), 0xE3069283u);
  assert_int_equal(qvb_crc32c_portable(0, "123456789", 9), 0xE3069283u);
  assert_int_equal(qv_crc32c(0, "", 0), 0);
  /* 32 bytes of zeros (RFC 3720 B.4) */
  uint8_t zeros[32] = {0};
  assert_int_equal(qv_crc32c(0, zeros, sizeof zeros), 0x8A9136AAu);
}

/* Lengths around the chains' stretch sizes (3 x 336 and 3 x 4096 bytes
 * and their multiples) and everything below 1,100 bytes. */
static void test_lengths(void **state) {
  (void)state;
  size_t most = 3 * 3 * 4096 + 3 * 336 + 64;
  uint8_t *buf = random_bytes(most + 16, 7); /* lengths up to most + 8, from offsets up to 2 */
  size_t lengths[2048];
  size_t n = 0;
  for (size_t len = 0; len < 1100; len++) lengths[n++] = len;
  size_t edges[] = {3 * 336, 2 * 3 * 336, 3 * 4096, 2 * 3 * 4096, 3 * 4096 + 3 * 336, most - 64, most};
  for (size_t e = 0; e < sizeof edges / sizeof *edges; e++)
    for (size_t d = 0; d < 17; d++) lengths[n++] = edges[e] - 8 + d;
  for (size_t i = 0; i < n; i++) {
    size_t len = lengths[i];
    for (size_t off = 0; off < 3; off++) {
      uint32_t start = (uint32_t)(len * 2654435761u + off);
      uint32_t want = crc_reference(start, buf + off, len);
      if (qv_crc32c(start, buf + off, len) != want || qvb_crc32c_portable(start, buf + off, len) != want)
        fail_msg("length %zu at offset %zu from %08x: %08x / %08x, want %08x", len, off, start,
                 qv_crc32c(start, buf + off, len), qvb_crc32c_portable(start, buf + off, len), want);
    }
  }
  free(buf);
}

/* A CRC continued over pieces equals the CRC of the whole. */
static void test_continuation(void **state) {
  (void)state;
  size_t len = 50000;
  uint8_t *buf = random_bytes(len, 99);
  uint32_t whole = qv_crc32c(0, buf, len);
  assert_int_equal(whole, crc_reference(0, buf, len));
  size_t cuts[] = {1, 335, 1008, 1024, 12288, 12289, 30000};
  for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
    uint32_t c = qv_crc32c(0, buf, cuts[i]);
    assert_int_equal(qv_crc32c(c, buf + cuts[i], len - cuts[i]), whole);
    c = qvb_crc32c_portable(0, buf, cuts[i]);
    assert_int_equal(qvb_crc32c_portable(c, buf + cuts[i], len - cuts[i]), whole);
  }
  free(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_check_value),
      cmocka_unit_test(test_lengths),
      cmocka_unit_test(test_continuation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
