/* Memory: one allocator hook; every block carries a 64-byte header holding
 * its size so that callers free with the pointer alone and the hook still
 * sees the old size (Lua's contract). */
#include "quiver/base.h"

#include "base/block_cache.h"

#include <stdlib.h>
#include <string.h>

#define QV_HEADER 64

/* posix_memalign and free, with large blocks going through the block
 * cache (block_cache.h): a block is allocated at its size class, so that a
 * freed one serves the next request of that class. */
static void *default_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  void *p = NULL;
  if (nsize > 0) {
    size_t cls = qvb_block_class(nsize);
    if (ptr && cls == qvb_block_class(osize)) return ptr; /* the block already has room */
    p = qvb_block_cache_take(cls);
    if (!p && posix_memalign(&p, 64, cls) != 0) return NULL;
    if (ptr) memcpy(p, ptr, osize < nsize ? osize : nsize);
  }
  if (ptr && !qvb_block_cache_keep(ptr, qvb_block_class(osize))) free(ptr);
  return p;
}

size_t qv_memory_trim(void) { return qvb_block_cache_clear(); }

static qv_alloc_fn g_alloc = default_alloc;
static void *g_alloc_ud = NULL;

void qv_set_allocator(qv_alloc_fn fn, void *ud) {
  g_alloc = fn ? fn : default_alloc;
  g_alloc_ud = fn ? ud : NULL;
}

static inline size_t *header_of(void *ptr) { return (size_t *)((uint8_t *)ptr - QV_HEADER); }

void *qv_realloc(void *ptr, size_t size) {
  if (size > SIZE_MAX - QV_HEADER) return NULL;
  void *base = ptr ? (void *)header_of(ptr) : NULL;
  size_t osize = ptr ? *header_of(ptr) + QV_HEADER : 0;
  uint8_t *nb = g_alloc(g_alloc_ud, base, osize, size + QV_HEADER);
  if (!nb) return NULL;
  *(size_t *)nb = size;
  return nb + QV_HEADER;
}

void *qv_malloc(size_t size) { return qv_realloc(NULL, size); }

void *qv_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  void *p = qv_malloc(count * size);
  if (p) memset(p, 0, count * size);
  return p;
}

void qv_free(void *ptr) {
  if (!ptr) return;
  g_alloc(g_alloc_ud, header_of(ptr), *header_of(ptr) + QV_HEADER, 0);
}

char *qv_strndup(const char *s, size_t n) {
  if (!s) return NULL;
  char *d = qv_malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

char *qv_strdup(const char *s) { return s ? qv_strndup(s, strlen(s)) : NULL; }
