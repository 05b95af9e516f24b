/* CRC32C (Castagnoli) for pages and footers; xxh3 for hash tables.
 * CRC32C uses the SSE4.2 instruction when the CPU has it (checked once at
 * run time) and a slicing-by-8 table otherwise; both give the same value.
 *
 * The instruction takes 3 cycles and can start one a cycle, so one chain
 * of them over a buffer runs at a third of its speed.  The hardware path
 * runs three chains over three consecutive stretches of the buffer and
 * joins them: the register's update is linear over GF(2), so the CRC of
 * A then B is the CRC of B from zero, XORed with A's register advanced
 * over |B| zero bytes.  Advancing over n zero bytes multiplies the
 * register by x^(8n) modulo the polynomial, which is linear in the
 * register: four table lookups, one per byte (shift tables, one per
 * stretch length, built once). */
#include "base/checksum.h"

#include <stdbool.h>

#include <pthread.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

static uint32_t crc_table[8][256]; /* slicing-by-8, built once (table_once) when first used */
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static pthread_once_t mode_once = PTHREAD_ONCE_INIT;

#define CRC_POLY 0x82F63B78u /* reflected: bit 31 is x^0, bit 0 is x^31 */

#if defined(__x86_64__)
static bool crc_hardware; /* set once (mode_once), read by any thread */

/* The stretch lengths of the three chains: long ones for large buffers,
 * short ones so that a 1 KiB checksum block (3 x 336 + 16) still runs in
 * three chains; multiples of 8, the instruction's widest step. */
#define CRC_LONG 4096
#define CRC_SHORT 336
/* per stretch length, per byte of the register: that byte's register
 * advanced over the stretch's length of zero bytes */
static uint32_t crc_shift_long[4 * 256], crc_shift_short[4 * 256];

static uint32_t crc_shift(const uint32_t *t, uint32_t c) {
  return t[c & 0xff] ^ t[256 + ((c >> 8) & 0xff)] ^ t[512 + ((c >> 16) & 0xff)] ^ t[768 + (c >> 24)];
}

/* Fills t for stretches of `bytes` (a multiple of 8) zero bytes.  The
 * register holding x^0 advanced over them is m = x^(8 bytes) mod P; the
 * register holding x^k (bit 31 - k) becomes m x^k, one multiplication by
 * x (a shift right, folding bit 0 back in) per k; a byte's entries are
 * the XOR of its bits' images. */
__attribute__((target("sse4.2"))) static void crc_shift_table(uint32_t *t, size_t bytes) {
  uint64_t m = 0x80000000u;
  for (size_t i = 0; i < bytes; i += 8) m = __builtin_ia32_crc32di(m, 0);
  uint32_t image[32], v = (uint32_t)m;
  for (int k = 0; k < 32; k++) {
    image[31 - k] = v;
    v = v & 1 ? (v >> 1) ^ CRC_POLY : v >> 1;
  }
  for (int j = 0; j < 4; j++) {
    uint32_t *tj = t + 256 * j;
    tj[0] = 0;
    for (uint32_t b = 1; b < 256; b++) tj[b] = tj[b & (b - 1)] ^ image[8 * j + __builtin_ctz(b)];
  }
}
#endif

static void mode_init(void) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("sse4.2")) {
    crc_shift_table(crc_shift_long, CRC_LONG);
    crc_shift_table(crc_shift_short, CRC_SHORT);
    crc_hardware = true;
  }
#endif
}

static void table_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ CRC_POLY : c >> 1;
    crc_table[0][i] = c;
  }
  for (int t = 1; t < 8; t++)
    for (int i = 0; i < 256; i++)
      crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
}

static uint32_t crc_sw(uint32_t crc, const uint8_t *p, size_t n) {
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    w ^= crc;
    crc = crc_table[7][w & 0xff] ^ crc_table[6][(w >> 8) & 0xff] ^ crc_table[5][(w >> 16) & 0xff] ^
          crc_table[4][(w >> 24) & 0xff] ^ crc_table[3][(w >> 32) & 0xff] ^ crc_table[2][(w >> 40) & 0xff] ^
          crc_table[1][(w >> 48) & 0xff] ^ crc_table[0][w >> 56];
    p += 8;
    n -= 8;
  }
  while (n--) crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
  return crc;
}

#if defined(__x86_64__)
/* Advances the register c over len bytes of p in three chains of len / 3
 * (a multiple of 8) bytes each, joined with the shift table for len / 3. */
__attribute__((target("sse4.2"))) static uint64_t crc_hw_3way(uint64_t c, const uint8_t *p, size_t len,
                                                              const uint32_t *shift) {
  size_t third = len / 3;
  uint64_t b = 0, d = 0;
  for (size_t i = 0; i < third; i += 8) {
    uint64_t wa, wb, wd;
    memcpy(&wa, p + i, 8);
    memcpy(&wb, p + third + i, 8);
    memcpy(&wd, p + 2 * third + i, 8);
    c = __builtin_ia32_crc32di(c, wa);
    b = __builtin_ia32_crc32di(b, wb);
    d = __builtin_ia32_crc32di(d, wd);
  }
  c = crc_shift(shift, (uint32_t)c) ^ (uint32_t)b;
  return crc_shift(shift, (uint32_t)c) ^ (uint32_t)d;
}

__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n) {
  uint64_t c = crc;
  for (; n >= 3 * CRC_LONG; p += 3 * CRC_LONG, n -= 3 * CRC_LONG) c = crc_hw_3way(c, p, 3 * CRC_LONG, crc_shift_long);
  for (; n >= 3 * CRC_SHORT; p += 3 * CRC_SHORT, n -= 3 * CRC_SHORT)
    c = crc_hw_3way(c, p, 3 * CRC_SHORT, crc_shift_short);
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    c = __builtin_ia32_crc32di(c, w);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = (uint32_t)c;
  while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}
#endif

uint32_t qvb_crc32c_portable(uint32_t crc, const void *data, size_t size) {
  pthread_once(&table_once, table_init);
  return ~crc_sw(~crc, data, size);
}

uint32_t qv_crc32c(uint32_t crc, const void *data, size_t size) {
  pthread_once(&mode_once, mode_init);
#if defined(__x86_64__)
  if (crc_hardware) return ~crc_hw(~crc, data, size);
#endif
  return qvb_crc32c_portable(crc, data, size);
}

uint64_t qv_hash64(const void *data, size_t size, uint64_t seed) { return XXH3_64bits_withSeed(data, size, seed); }
