/* A cache of large freed blocks for the default allocator (memory.c, its
 * only user besides the test).
 *
 * A scan allocates and frees the same large buffers over and over: the
 * columns of each output batch (a 65,536-row batch of int64 is 512 KiB),
 * the decoded page of a wide column.  glibc serves such blocks with fresh
 * mappings, or trims them off its heaps when they are freed, so every
 * batch pays a page fault for each 4 KiB it writes (a Polars count over
 * 2M rows: about 1,600 faults a scan).  Keeping a few freed blocks for the
 * next request of the same size class avoids that.  Blocks from 64 KiB up
 * are kept (a decoded page of 8,192 int64 is 64 KiB): with 256 KiB the
 * least, glibc trimmed and refaulted those pages' heap memory on every
 * scan, a quarter of a one-thread `dt.hour() < 1` scan (57 -> 43 ms).
 *
 * Blocks of QV_BLOCK_CACHE_MIN bytes and more are rounded up to a multiple
 * of 64 KiB (their size class); at most QV_BLOCK_CACHE_SLOTS blocks and
 * QV_BLOCK_CACHE_BYTES bytes are kept, so what the cache holds is bounded
 * whatever the workload.  Thread-safe.  AddressSanitizer builds keep
 * nothing (QV_BLOCK_CACHE_ON is 0), so that a use after free of a large
 * block is still caught. */
#ifndef QUIVER_BASE_BLOCK_CACHE_H
#define QUIVER_BASE_BLOCK_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define QV_BLOCK_CACHE_ON 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QV_BLOCK_CACHE_ON 0
#endif
#endif
#ifndef QV_BLOCK_CACHE_ON
#define QV_BLOCK_CACHE_ON 1
#endif

#define QV_BLOCK_CACHE_MIN (64 * 1024)
#define QV_BLOCK_CACHE_SLOTS 64
#define QV_BLOCK_CACHE_BYTES (16 * 1024 * 1024)

/* The size class of an n-byte request: n itself below QV_BLOCK_CACHE_MIN
 * (and always, in AddressSanitizer builds). */
size_t qvb_block_class(size_t n);
/* A kept block of exactly that class (64-byte aligned), or NULL. */
void *qvb_block_cache_take(size_t cls);
/* Keeps p (a block of class cls from posix_memalign); false when it does
 * not fit (too small, or the cache is full): the caller frees it. */
bool qvb_block_cache_keep(void *p, size_t cls);
/* Frees every kept block; returns their bytes (qv_memory_trim). */
size_t qvb_block_cache_clear(void);

#endif
