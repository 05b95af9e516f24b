/* Roaring bitmaps on disk: CRoaring's portable serialization, checked
 * before CRoaring sees it.  roaring_bitmap_portable_deserialize_safe only
 * bounds its reads; it trusts that keys and values are ordered and that
 * runs stay within 16 bits, and later operations index memory by those.
 * So the bytes are walked here first, container by container:
 *
 *   u32 cookie: 12346 (no run containers, then u32 count) or
 *               12347 | (count - 1) << 16 (then a bitmap of run containers)
 *   count x { u16 key, u16 cardinality - 1 }, keys strictly increasing
 *   count x u32 offsets (absent when there are run containers and count < 4)
 *   containers: run: u16 n, n x { u16 start, u16 length - 1 }, ordered,
 *               disjoint, within 0..65535; array (cardinality <= 4096):
 *               strictly increasing u16; bitset: 1024 u64 whose popcount
 *               is the cardinality. */
#include <string.h>

#include "index/index_int.h"

enum { COOKIE_NO_RUN = 12346, COOKIE_RUN = 12347, QVI_NO_OFFSET_THRESHOLD = 4, QVI_MAX_ARRAY = 4096 };

void qvi_put_roaring(qvb_wbuf *w, const roaring_bitmap_t *r) {
  if (w->status != QV_OK) return;
  size_t n = roaring_bitmap_portable_size_in_bytes(r);
  if (qv_buffer_reserve(&w->buf, (int64_t)n) != QV_OK) {
    w->status = QV_ERR_NOMEM;
    return;
  }
  size_t wrote = roaring_bitmap_portable_serialize(r, (char *)w->buf.data + w->buf.size);
  w->buf.size += (int64_t)wrote;
}

static uint16_t u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static bool validate(const uint8_t *p, int64_t n, uint64_t limit, const char **why) {
  if (n < 4) return *why = "truncated roaring header", false;
  uint32_t cookie = qv_load_u32le(p);
  int64_t pos = 4, count;
  bool runs = (cookie & 0xFFFF) == COOKIE_RUN;
  const uint8_t *run_bits = NULL;
  if (runs) {
    count = (int64_t)(cookie >> 16) + 1;
    run_bits = p + pos;
    pos += (count + 7) / 8;
  } else if (cookie == COOKIE_NO_RUN) {
    if (n < 8) return *why = "truncated roaring header", false;
    count = qv_load_u32le(p + 4);
    pos = 8;
    if (count > 65536) return *why = "roaring container count above 65536", false;
  } else {
    return *why = "not a roaring bitmap (bad cookie)", false;
  }
  const uint8_t *kc = p + pos;
  pos += count * 4;
  if (!runs || count >= QVI_NO_OFFSET_THRESHOLD) pos += count * 4;
  if (pos > n) return *why = "truncated roaring container table", false;
  int64_t prev_key = -1;
  for (int64_t k = 0; k < count; k++) {
    int64_t key = u16(kc + 4 * k), card = (int64_t)u16(kc + 4 * k + 2) + 1;
    if (key <= prev_key) return *why = "roaring keys out of order", false;
    prev_key = key;
    uint64_t base = (uint64_t)key << 16;
    if (runs && ((run_bits[k / 8] >> (k % 8)) & 1)) {
      if (n - pos < 2) return *why = "truncated roaring run container", false;
      int64_t nr = u16(p + pos);
      pos += 2;
      if (nr == 0 || n - pos < nr * 4) return *why = "bad roaring run container", false;
      int64_t prev_end = -1;
      for (int64_t r = 0; r < nr; r++) {
        int64_t start = u16(p + pos + 4 * r), len = u16(p + pos + 4 * r + 2);
        if (start <= prev_end || start + len > 65535) return *why = "roaring runs overlap or leave 16 bits", false;
        prev_end = start + len;
      }
      if (base + (uint64_t)prev_end >= limit) return *why = "roaring value beyond the row count", false;
      pos += nr * 4;
    } else if (card > QVI_MAX_ARRAY) {
      if (n - pos < 8192) return *why = "truncated roaring bitset container", false;
      int64_t pop = 0, last = -1;
      for (int64_t wd = 0; wd < 1024; wd++) {
        uint64_t word = qv_load_u64le(p + pos + 8 * wd);
        if (word) last = wd * 64 + 63 - __builtin_clzll(word);
        pop += __builtin_popcountll(word);
      }
      if (pop != card) return *why = "roaring bitset cardinality mismatch", false;
      if (base + (uint64_t)last >= limit) return *why = "roaring value beyond the row count", false;
      pos += 8192;
    } else {
      if (n - pos < card * 2) return *why = "truncated roaring array container", false;
      int64_t prev = -1;
      for (int64_t i = 0; i < card; i++) {
        int64_t v = u16(p + pos + 2 * i);
        if (v <= prev) return *why = "roaring array values out of order", false;
        prev = v;
      }
      if (base + (uint64_t)prev >= limit) return *why = "roaring value beyond the row count", false;
      pos += card * 2;
    }
  }
  if (pos != n) return *why = "roaring bitmap length does not match its chunk", false;
  return true;
}

roaring_bitmap_t *qvi_get_roaring(const uint8_t *p, int64_t n, uint64_t limit, const char **why) {
  *why = NULL;
  if (!validate(p, n, limit, why)) return NULL;
  roaring_bitmap_t *r = roaring_bitmap_portable_deserialize_safe((const char *)p, (size_t)n);
  if (!r) *why = "roaring bitmap rejected by the deserializer (or out of memory)";
  return r;
}
