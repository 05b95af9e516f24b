/* Page compression (zstd, lz4) and its bounds. */
#ifndef QUIVER_STORAGE_COMPRESS_H
#define QUIVER_STORAGE_COMPRESS_H

#include "quiver/base.h"

/* ---- compression (compress.c) --------------------------------------------- */

/* Compresses src with codec (ZSTD or LZ4) into dst (emptied first);
 * *zstd_ctx caches a ZSTD_CCtx between calls (free with qvs_compress_free). */
qv_status qvs_compress(int codec, int level, void **zstd_ctx, const uint8_t *src, int64_t n, qv_buffer *dst,
                       qv_error *err);
void qvs_compress_free(void *zstd_ctx);
void qvs_decompress_free(void *zstd_ctx);
/* Decompresses exactly raw_len bytes; anything else is corruption. */
qv_status qvs_decompress(int codec, void **zstd_ctx, const uint8_t *src, int64_t n, uint8_t *dst, int64_t raw_len,
                         qv_error *err);
/* The content size a zstd frame declares, or -1 when it declares none. */
int64_t qvs_zstd_frame_size(const uint8_t *src, int64_t n);
/* Largest raw_len a stored page of n bytes could honestly decode to. */
int64_t qvs_decompress_bound(int codec, int64_t n);

#endif
