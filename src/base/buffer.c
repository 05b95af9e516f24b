/* Shared immutable bytes (qv_bytes) and the growable buffer builders use. */
#include "quiver/base.h"

#include <string.h>

static void bytes_release_owned(qv_bytes *b) {
  qv_free((void *)b->data);
  qv_free(b);
}

static int64_t pad64(int64_t n) { return (n + 63) & ~(int64_t)63; }

/* A new qv_bytes (refcount 1) over data, freed by release. */
static qv_bytes *bytes_new(const uint8_t *data, int64_t size, void (*release)(qv_bytes *), void *private_data) {
  qv_bytes *b = qv_malloc(sizeof *b);
  if (!b) return NULL;
  b->data = data;
  b->size = size;
  b->refcount = 1;
  b->release = release;
  b->private_data = private_data;
  return b;
}

qv_bytes *qv_bytes_wrap(uint8_t *data, int64_t size, int64_t capacity) {
  (void)capacity;
  return bytes_new(data, size, bytes_release_owned, NULL);
}

qv_bytes *qv_bytes_alloc_uninit(int64_t size) {
  if (size < 0) return NULL;
  int64_t cap = pad64(size + 1);
  uint8_t *data = qv_malloc((size_t)cap);
  if (!data) return NULL;
  memset(data + size, 0, (size_t)(cap - size));
  qv_bytes *b = qv_bytes_wrap(data, size, cap);
  if (!b) qv_free(data);
  return b;
}

qv_bytes *qv_bytes_alloc(int64_t size) {
  qv_bytes *b = qv_bytes_alloc_uninit(size);
  if (b) memset(qv_bytes_mutable(b), 0, (size_t)size);
  return b;
}

static void bytes_release_view(qv_bytes *b) {
  qv_bytes_release(b->private_data);
  qv_free(b);
}

qv_bytes *qv_bytes_view(qv_bytes *owner, const uint8_t *data, int64_t size) {
  /* Misaligned (or empty) memory is copied: typed loads through
   * qv_array_values must stay aligned, and a NULL data pointer would break
   * callers that index buffers[1]->data unconditionally. */
  if (size == 0 || data == NULL || ((uintptr_t)data & 7) != 0) {
    qv_bytes *c = qv_bytes_alloc(size);
    if (c && size > 0) memcpy(qv_bytes_mutable(c), data, (size_t)size);
    return c;
  }
  qv_bytes *b = bytes_new(data, size, bytes_release_view, owner);
  if (b) qv_bytes_retain(owner);
  return b;
}

qv_bytes *qv_bytes_retain(qv_bytes *b) {
  /* Atomic: scans on several threads share arrays (literals, dictionaries)
   * and hand results between threads.  Taking a reference needs no order;
   * dropping the last one must see every other thread's writes first. */
  if (b) __atomic_fetch_add(&b->refcount, 1, __ATOMIC_RELAXED);
  return b;
}

void qv_bytes_release(qv_bytes *b) {
  if (b && __atomic_sub_fetch(&b->refcount, 1, __ATOMIC_ACQ_REL) == 0) b->release(b);
}

qv_status qv_buffer_reserve(qv_buffer *b, int64_t additional) {
  if (additional < 0) return QV_ERR_INVALID;
  if (b->size > INT64_MAX - additional) return QV_ERR_OVERFLOW;
  int64_t need = b->size + additional;
  if (need <= b->capacity) return QV_OK;
  int64_t cap = b->capacity ? b->capacity : 64;
  while (cap < need) cap = cap > INT64_MAX / 2 ? need : cap * 2;
  cap = pad64(cap);
  uint8_t *d = qv_realloc(b->data, (size_t)cap);
  if (!d) return QV_ERR_NOMEM;
  memset(d + b->capacity, 0, (size_t)(cap - b->capacity));
  b->data = d;
  b->capacity = cap;
  return QV_OK;
}

qv_status qv_buffer_append(qv_buffer *b, const void *src, int64_t n) {
  if (n == 0) return QV_OK;
  QV_RETURN_NOT_OK(qv_buffer_reserve(b, n));
  if (n) memcpy(b->data + b->size, src, (size_t)n);
  b->size += n;
  return QV_OK;
}

qv_status qv_buffer_append_zeros(qv_buffer *b, int64_t n) {
  if (n == 0) return QV_OK; /* b->data may still be NULL */
  QV_RETURN_NOT_OK(qv_buffer_reserve(b, n));
  memset(b->data + b->size, 0, (size_t)n);
  b->size += n;
  return QV_OK;
}

qv_status qv_buffer_finish(qv_buffer *b, qv_bytes **out) {
  if (!b->data) QV_RETURN_NOT_OK(qv_buffer_reserve(b, 1));
  qv_bytes *r = qv_bytes_wrap(b->data, b->size, b->capacity);
  if (!r) return QV_ERR_NOMEM;
  b->data = NULL;
  b->size = b->capacity = 0;
  *out = r;
  return QV_OK;
}

void qv_buffer_reset(qv_buffer *b) {
  qv_free(b->data);
  b->data = NULL;
  b->size = b->capacity = 0;
}
