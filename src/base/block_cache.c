/* The large-block cache (block_cache.h). */
#include "base/block_cache.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define CLASS_STEP ((size_t)64 * 1024)

static struct {
  pthread_mutex_t mu;
  void *block[QV_BLOCK_CACHE_SLOTS];
  size_t cls[QV_BLOCK_CACHE_SLOTS]; /* 0: empty slot */
  size_t bytes;                     /* kept, in total */
} cache = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* A fork() while another thread held the lock would leave it held in the
 * child; the child starts with it free (the blocks are its own copies). */
static void after_fork_child(void) { pthread_mutex_init(&cache.mu, NULL); }
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void install_atfork(void) { pthread_atfork(NULL, NULL, after_fork_child); }

size_t qvb_block_class(size_t n) {
  /* without the cache, blocks are their exact size (AddressSanitizer then
   * sees an overrun past the size asked for) */
  if (!QV_BLOCK_CACHE_ON || n < QV_BLOCK_CACHE_MIN || n > SIZE_MAX - CLASS_STEP) return n;
  return (n + CLASS_STEP - 1) & ~(CLASS_STEP - 1);
}

void *qvb_block_cache_take(size_t cls) {
  if (!QV_BLOCK_CACHE_ON || cls < QV_BLOCK_CACHE_MIN) return NULL;
  void *p = NULL;
  pthread_mutex_lock(&cache.mu);
  for (int i = 0; i < QV_BLOCK_CACHE_SLOTS; i++)
    if (cache.cls[i] == cls) {
      p = cache.block[i];
      cache.block[i] = NULL;
      cache.cls[i] = 0;
      cache.bytes -= cls;
      break;
    }
  pthread_mutex_unlock(&cache.mu);
  return p;
}

bool qvb_block_cache_keep(void *p, size_t cls) {
  if (!QV_BLOCK_CACHE_ON || cls < QV_BLOCK_CACHE_MIN || cls > QV_BLOCK_CACHE_BYTES) return false;
  pthread_once(&atfork_once, install_atfork);
  bool kept = false;
  pthread_mutex_lock(&cache.mu);
  if (cache.bytes + cls <= QV_BLOCK_CACHE_BYTES)
    for (int i = 0; i < QV_BLOCK_CACHE_SLOTS; i++)
      if (cache.cls[i] == 0) {
        cache.block[i] = p;
        cache.cls[i] = cls;
        cache.bytes += cls;
        kept = true;
        break;
      }
  pthread_mutex_unlock(&cache.mu);
  return kept;
}

size_t qvb_block_cache_clear(void) {
  size_t freed = 0;
  pthread_mutex_lock(&cache.mu);
  for (int i = 0; i < QV_BLOCK_CACHE_SLOTS; i++)
    if (cache.cls[i]) {
      free(cache.block[i]);
      freed += cache.cls[i];
      cache.block[i] = NULL;
      cache.cls[i] = 0;
    }
  cache.bytes = 0;
  pthread_mutex_unlock(&cache.mu);
  return freed;
}
