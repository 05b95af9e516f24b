/* CRC32C (Castagnoli) for pages and footers; xxh3 for hash tables.
 * CRC32C uses the SSE4.2 instruction when the CPU has it (checked once at
 * run time) and a slicing-by-8 table otherwise; both give the same value. */
#include "quiver/base.h"

#include <pthread.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

static uint32_t crc_table[8][256];
static int crc_mode; /* 1 table, 2 hardware; set once (crc_once), read by any thread */
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    crc_table[0][i] = c;
  }
  for (int t = 1; t < 8; t++)
    for (int i = 0; i < 256; i++)
      crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
#if defined(__x86_64__)
  __builtin_cpu_init();
  crc_mode = __builtin_cpu_supports("sse4.2") ? 2 : 1;
#else
  crc_mode = 1;
#endif
}

static uint32_t crc_sw(uint32_t crc, const uint8_t *p, size_t n) {
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    w ^= crc;
    crc = crc_table[7][w & 0xff] ^ crc_table[6][(w >> 8) & 0xff] ^
          crc_table[5][(w >> 16) & 0xff] ^ crc_table[4][(w >> 24) & 0xff] ^
          crc_table[3][(w >> 32) & 0xff] ^ crc_table[2][(w >> 40) & 0xff] ^
          crc_table[1][(w >> 48) & 0xff] ^ crc_table[0][w >> 56];
    p += 8;
    n -= 8;
  }
  while (n--) crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n) {
  uint64_t c = crc;
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

uint32_t qv_crc32c(uint32_t crc, const void *data, size_t size) {
  pthread_once(&crc_once, crc_init);
  crc = ~crc;
#if defined(__x86_64__)
  if (crc_mode == 2) return ~crc_hw(crc, data, size);
#endif
  return ~crc_sw(crc, data, size);
}

uint64_t qv_hash64(const void *data, size_t size, uint64_t seed) {
  return XXH3_64bits_withSeed(data, size, seed);
}
