/* Bitmaps in Arrow's LSB bit order, and selection vectors built from them. */
#include "quiver/base.h"

#include <string.h>

int64_t qv_bitmap_count(const uint8_t *bits, int64_t offset, int64_t length) {
  int64_t count = 0, i = offset, end = offset + length;
  while (i < end && (i & 7)) count += qv_bit_get(bits, i++);
  while (i + 64 <= end) {
    uint64_t w;
    memcpy(&w, bits + (i >> 3), 8);
    count += __builtin_popcountll(w);
    i += 64;
  }
  while (i < end) count += qv_bit_get(bits, i++);
  return count;
}

void qv_bitmap_copy(uint8_t *dst, int64_t dst_offset, const uint8_t *src, int64_t src_offset, int64_t length) {
  if ((dst_offset & 7) == 0 && (src_offset & 7) == 0) {
    int64_t whole = length >> 3;
    memcpy(dst + (dst_offset >> 3), src + (src_offset >> 3), (size_t)whole);
    for (int64_t i = whole * 8; i < length; i++) qv_bit_put(dst, dst_offset + i, qv_bit_get(src, src_offset + i));
    return;
  }
  for (int64_t i = 0; i < length; i++) qv_bit_put(dst, dst_offset + i, qv_bit_get(src, src_offset + i));
}

qv_status qv_selection_reserve(qv_selection *s, int64_t capacity) {
  if (capacity <= s->capacity) return QV_OK;
  if (capacity > (int64_t)(SIZE_MAX / sizeof(uint32_t))) return QV_ERR_OVERFLOW;
  uint32_t *r = qv_realloc(s->rows, (size_t)capacity * sizeof(uint32_t));
  if (!r) return QV_ERR_NOMEM;
  s->rows = r;
  s->capacity = capacity;
  return QV_OK;
}

qv_status qv_selection_from_bitmap(qv_selection *s, const uint8_t *bits, int64_t length) {
  QV_RETURN_NOT_OK(qv_selection_reserve(s, s->count + length));
  uint32_t *out = s->rows + s->count;
  int64_t n = 0;
  int64_t i = 0;
  for (; i + 64 <= length; i += 64) {
    uint64_t w;
    memcpy(&w, bits + (i >> 3), 8);
    while (w) {
      out[n++] = (uint32_t)(i + __builtin_ctzll(w));
      w &= w - 1;
    }
  }
  for (; i < length; i++)
    if (qv_bit_get(bits, i)) out[n++] = (uint32_t)i;
  s->count += n;
  return QV_OK;
}

void qv_selection_reset(qv_selection *s) {
  qv_free(s->rows);
  s->rows = NULL;
  s->count = s->capacity = 0;
}
