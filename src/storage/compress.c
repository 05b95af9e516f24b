/* Page compression: zstd and lz4 over a page's concatenated buffers.
 * Decompression must produce exactly the length the footer declares, and
 * that length is first checked against what the codec could honestly
 * produce from the stored bytes, so a hostile length cannot make us
 * allocate far more than the file holds. */
#include <lz4.h>
#include <zstd.h>

#include "quiver/storage.h"
#include "storage/compress.h"
#include "storage/format.h"

qv_status qvs_compress(int codec, int level, void **zstd_ctx, const uint8_t *src, int64_t n, qv_buffer *dst,
                       qv_error *err) {
  dst->size = 0;
  if (codec == QV_COMPRESSION_ZSTD) {
    size_t bound = ZSTD_compressBound((size_t)n);
    if (qv_buffer_reserve(dst, (int64_t)bound) != QV_OK) return qv_error_nomem(err, NULL);
    if (!*zstd_ctx && !(*zstd_ctx = ZSTD_createCCtx())) return qv_error_nomem(err, NULL);
    size_t r = ZSTD_compressCCtx(*zstd_ctx, dst->data, bound, src, (size_t)n, level ? level : ZSTD_CLEVEL_DEFAULT);
    if (ZSTD_isError(r)) return qv_error_set(err, QV_ERR_INVALID, "zstd: %s", ZSTD_getErrorName(r));
    dst->size = (int64_t)r;
    return QV_OK;
  }
  if (codec == QV_COMPRESSION_LZ4) {
    if (n > LZ4_MAX_INPUT_SIZE)
      return qv_error_set(err, QV_ERR_UNSUPPORTED, "lz4: a page of %lld bytes is too large", (long long)n);
    int bound = LZ4_compressBound((int)n);
    if (qv_buffer_reserve(dst, bound) != QV_OK) return qv_error_nomem(err, NULL);
    /* lz4 has no levels here; a level asks for acceleration (faster, larger). */
    int r = LZ4_compress_fast((const char *)src, (char *)dst->data, (int)n, bound, level > 1 ? level : 1);
    if (r <= 0) return qv_error_set(err, QV_ERR_INVALID, "lz4: compression failed");
    dst->size = r;
    return QV_OK;
  }
  return qv_error_set(err, QV_ERR_INVALID, "unknown compression %d", codec);
}

void qvs_compress_free(void *zstd_ctx) { ZSTD_freeCCtx(zstd_ctx); }
void qvs_decompress_free(void *zstd_ctx) { ZSTD_freeDCtx(zstd_ctx); }

int64_t qvs_decompress_bound(int codec, int64_t n) {
  int64_t b;
  if (codec == QV_COMPRESSION_ZSTD)
    b = (n / 4 + 1) * (INT64_C(128) << 10); /* every 128 KiB block costs at least 4 bytes (an RLE block) */
  else if (codec == QV_COMPRESSION_LZ4) b = n * 255 + 16; /* one match byte expands to at most 255 */
  else b = n;
  return b < QVS_MAX_PAGE_BYTES ? b : QVS_MAX_PAGE_BYTES;
}

int64_t qvs_zstd_frame_size(const uint8_t *src, int64_t n) {
  unsigned long long v = ZSTD_getFrameContentSize(src, (size_t)n);
  return v == ZSTD_CONTENTSIZE_UNKNOWN || v == ZSTD_CONTENTSIZE_ERROR || v > (unsigned long long)INT64_MAX ? -1
                                                                                                           : (int64_t)v;
}

qv_status qvs_decompress(int codec, void **zstd_ctx, const uint8_t *src, int64_t n, uint8_t *dst, int64_t raw_len,
                         qv_error *err) {
  if (codec == QV_COMPRESSION_ZSTD) {
    if (!*zstd_ctx && !(*zstd_ctx = ZSTD_createDCtx())) return qv_error_nomem(err, NULL);
    unsigned long long declared = ZSTD_getFrameContentSize(src, (size_t)n);
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != (unsigned long long)raw_len)
      return qv_error_set(err, QV_ERR_CORRUPT, "zstd: frame holds %lld bytes, expected %lld",
                          declared == ZSTD_CONTENTSIZE_ERROR ? -1LL : (long long)declared, (long long)raw_len);
    size_t r = ZSTD_decompressDCtx(*zstd_ctx, dst, (size_t)raw_len, src, (size_t)n);
    if (ZSTD_isError(r)) return qv_error_set(err, QV_ERR_CORRUPT, "zstd: %s", ZSTD_getErrorName(r));
    if ((int64_t)r != raw_len)
      return qv_error_set(err, QV_ERR_CORRUPT, "zstd: decompressed to %lld bytes, expected %lld", (long long)r,
                          (long long)raw_len);
    return QV_OK;
  }
  if (codec == QV_COMPRESSION_LZ4) {
    if (n > INT32_MAX || raw_len > INT32_MAX) return qv_error_set(err, QV_ERR_CORRUPT, "lz4: page too large");
    int r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, (int)raw_len);
    if (r != raw_len)
      return qv_error_set(err, QV_ERR_CORRUPT, "lz4: decompressed to %d bytes, expected %lld", r, (long long)raw_len);
    return QV_OK;
  }
  return qv_error_set(err, QV_ERR_CORRUPT, "unknown compression %d", codec);
}
