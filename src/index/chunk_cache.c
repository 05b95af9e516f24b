/* The process-wide cache of verified index chunks (index_int.h): a small
 * hash table of entries, each a reference-counted copy of a chunk's bytes,
 * evicted least recently used first when the bytes kept pass
 * QVI_CACHE_BYTES.  An evicted entry held by a search stays alive until
 * that search releases it. */
#include <pthread.h>

#include "index/index_int.h"

struct qvi_cached {
  char *path;
  int64_t size;
  uint32_t footer_crc, chunk_crc;
  int32_t chunk;
  uint8_t *bytes;
  int64_t len;
  int32_t refs; /* the table's (while listed) and each holder's; under mu */
  uint64_t used;
  struct qvi_cached *next; /* hash chain */
};

enum { BUCKETS = 4096 };

static struct {
  pthread_mutex_t mu;
  qvi_cached *table[BUCKETS];
  int64_t bytes;
  uint64_t clock;
} cache = {PTHREAD_MUTEX_INITIALIZER, {NULL}, 0, 0};

static uint32_t bucket(const char *path, int32_t chunk) {
  uint64_t h = qv_hash64(path, strlen(path), (uint64_t)chunk);
  return (uint32_t)(h % BUCKETS);
}

static bool same(const qvi_cached *c, const qvi_file *f, int32_t i) {
  return c->chunk == i && c->size == f->file_size && c->footer_crc == f->footer_crc &&
         c->chunk_crc == f->chunks[i].crc && strcmp(c->path, f->path) == 0;
}

static void drop(qvi_cached *c) { /* under mu: the last reference frees */
  if (--c->refs > 0) return;
  qv_free(c->path);
  qv_free(c->bytes);
  qv_free(c);
}

const uint8_t *qvi_cache_get(const qvi_file *f, int32_t i, qvi_cached **ref) {
  *ref = NULL;
  if (!f->path) return NULL;
  pthread_mutex_lock(&cache.mu);
  for (qvi_cached *c = cache.table[bucket(f->path, i)]; c; c = c->next)
    if (same(c, f, i)) {
      c->refs++;
      c->used = ++cache.clock;
      *ref = c;
      break;
    }
  pthread_mutex_unlock(&cache.mu);
  return *ref ? (*ref)->bytes : NULL;
}

/* Unlinks least recently used entries until want more bytes fit. */
static void evict(int64_t want) {
  while (cache.bytes + want > QVI_CACHE_BYTES && cache.bytes > 0) {
    qvi_cached **victim = NULL;
    for (int b = 0; b < BUCKETS; b++)
      for (qvi_cached **p = &cache.table[b]; *p; p = &(*p)->next)
        if (!victim || (*p)->used < (*victim)->used) victim = p;
    if (!victim) return;
    qvi_cached *c = *victim;
    *victim = c->next;
    cache.bytes -= c->len;
    drop(c);
  }
}

const uint8_t *qvi_cache_put(const qvi_file *f, int32_t i, uint8_t *bytes, int64_t len, qvi_cached **ref) {
  *ref = NULL;
  qvi_cached *c = qv_calloc(1, sizeof *c);
  char *path = f->path ? qv_strdup(f->path) : NULL;
  if (!c || !path) {
    qv_free(c);
    qv_free(path);
    qv_free(bytes);
    return NULL;
  }
  *c = (qvi_cached){path, f->file_size, f->footer_crc, f->chunks[i].crc, i, bytes, len, 1, 0, NULL};
  pthread_mutex_lock(&cache.mu);
  if (len <= QVI_CACHE_BYTES / 4) { /* a chunk larger than that is the holder's alone */
    evict(len);
    uint32_t b = bucket(path, i);
    c->next = cache.table[b];
    cache.table[b] = c;
    cache.bytes += len;
    c->refs++; /* the table's */
  }
  c->used = ++cache.clock;
  pthread_mutex_unlock(&cache.mu);
  *ref = c;
  return bytes;
}

void qvi_cache_release(qvi_cached *ref) {
  if (!ref) return;
  pthread_mutex_lock(&cache.mu);
  drop(ref);
  pthread_mutex_unlock(&cache.mu);
}

void qvi_cache_clear(void) {
  pthread_mutex_lock(&cache.mu);
  for (int b = 0; b < BUCKETS; b++) {
    while (cache.table[b]) {
      qvi_cached *c = cache.table[b];
      cache.table[b] = c->next;
      cache.bytes -= c->len;
      drop(c);
    }
  }
  pthread_mutex_unlock(&cache.mu);
}
