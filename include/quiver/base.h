/* quiver base layer: status codes, errors, memory, buffers, bitmaps,
 * selection vectors, checksums.  Knows nothing about data types. */
#ifndef QUIVER_BASE_H
#define QUIVER_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* QV_API starts every declaration of libquiver's public API in
 * include/quiver/.  The library is built with hidden visibility, so it
 * exports exactly these (tests/install/exports.py checks that); internal
 * headers never use it. */
#if defined(__GNUC__) || defined(__clang__)
#define QV_API __attribute__((visibility("default")))
#else
#define QV_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define QV_VERSION_STRING "0.1.0"

/* Every fallible call returns one of these; QV_OK is 0. */
typedef enum qv_status {
  QV_OK = 0,
  QV_ERR_INVALID = 1,     /* bad argument or option */
  QV_ERR_NOMEM = 2,       /* an allocation failed */
  QV_ERR_IO = 3,          /* the operating system refused a read/write */
  QV_ERR_CORRUPT = 4,     /* a file's bytes are not what the format allows */
  QV_ERR_PARSE = 5,       /* filter / expression / CSV text is malformed */
  QV_ERR_TYPE = 6,        /* types do not fit together */
  QV_ERR_NOT_FOUND = 7,   /* no such column, version, file */
  QV_ERR_UNSUPPORTED = 8, /* valid, but not implemented for this input */
  QV_ERR_OVERFLOW = 9,    /* arithmetic or size overflow */
  QV_ERR_EXISTS = 10,     /* the thing to create is already there */
  QV_ERR_CONFLICT = 11,   /* a concurrent writer committed first */
  QV_ERR_CANCELLED = 12   /* the caller asked the work to stop (a cancel flag) */
} qv_status;

/* Caller-owned error, filled on failure with what went wrong and where. */
typedef struct qv_error {
  qv_status code;
  char message[1024];
} qv_error;

/* Sets err (if non-NULL) and returns code; printf-style message. */
QV_API qv_status qv_error_set(qv_error *err, qv_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prefixes an already-set error message with context ("data/3.qvf: ...").
 * Returns err->code (or code if err is NULL). */
QV_API qv_status qv_error_prefix(qv_error *err, qv_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Sets err (if non-NULL) to QV_ERR_NOMEM with "WHERE: out of memory" (just
 * "out of memory" when where is NULL) and returns QV_ERR_NOMEM.  Needs no
 * memory itself, so it is safe on any allocation failure. */
QV_API qv_status qv_error_nomem(qv_error *err, const char *where);

/* Name of a status code ("invalid argument", ...); never NULL. */
QV_API const char *qv_status_string(qv_status code);

#define QV_RETURN_NOT_OK(expr)          \
  do {                                  \
    qv_status qv_st_ = (expr);          \
    if (qv_st_ != QV_OK) return qv_st_; \
  } while (0)

/* 128-bit integers for decimal128 arithmetic (GCC and Clang). */
#if defined(__SIZEOF_INT128__)
__extension__ typedef __int128 qv_int128;
__extension__ typedef unsigned __int128 qv_uint128;
#endif

/* ---- threads --------------------------------------------------------- */

/* Threads quiver may use inside one call, the calling thread included: a
 * scan verifies the checksum blocks and decompresses the frames of a large
 * read in parallel.  Default: the QUIVER_THREADS environment variable,
 * else the number of online CPUs; at most 16.  1 never starts a thread;
 * n < 1 restores the default.  Returns the previous value.  Concurrent
 * calls into quiver share the threads (one of them runs its work alone
 * while another uses them). */
QV_API int qv_set_threads(int n);
QV_API int qv_threads(void);

/* ---- memory ---------------------------------------------------------- */

/* Allocator hook, Lua style: realloc when nsize > 0, free when nsize == 0.
 * Every allocation quiver makes goes through it.  Must return 64-byte
 * aligned memory for nsize >= 64 (the default does), and must be callable
 * from several threads at once (scans run on a worker pool; see
 * qv_set_threads).  Set it before the first call into quiver. */
typedef void *(*qv_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);
QV_API void qv_set_allocator(qv_alloc_fn fn, void *ud);
/* The default allocator keeps some freed blocks of 256 KiB and more (at
 * most 16, and 16 MiB in all) for the next request of their size, so that
 * a scan does not fault in fresh memory for every batch and wide page.
 * qv_memory_trim frees them (to the C library, which returns large
 * blocks to the system) and returns their bytes: e.g. after a large scan,
 * in a long-running process. */
QV_API size_t qv_memory_trim(void);

/* All of these return 64-byte aligned memory (the size is kept in a header
 * in front of it, so qv_free needs only the pointer). */
QV_API void *qv_malloc(size_t size);               /* NULL on failure */
QV_API void *qv_calloc(size_t count, size_t size); /* zeroed; NULL on failure or overflow */
QV_API void *qv_realloc(void *ptr, size_t size);   /* ptr may be NULL; NULL on failure (ptr kept) */
QV_API void qv_free(void *ptr);                    /* ptr may be NULL */
QV_API char *qv_strdup(const char *s);             /* s may be NULL (returns NULL) */
QV_API char *qv_strndup(const char *s, size_t n);

/* ---- shared immutable bytes ------------------------------------------ */

/* A reference-counted byte buffer.  Arrays share these; a buffer imported
 * from the Arrow C Data Interface releases its owner when the count drops
 * to zero. */
typedef struct qv_bytes {
  const uint8_t *data;
  int64_t size;
  int32_t refcount;                       /* changed only by retain/release, atomically */
  void (*release)(struct qv_bytes *self); /* frees data and self */
  void *private_data;
} qv_bytes;

/* New zero-filled, 64-byte-aligned buffer of size bytes (padded to 64). */
QV_API qv_bytes *qv_bytes_alloc(int64_t size);
/* The same, but only the padding after size bytes is zeroed: for a caller
 * that writes every byte itself (zeroing first would be a second pass). */
QV_API qv_bytes *qv_bytes_alloc_uninit(int64_t size);
/* Takes ownership of qv_malloc'd memory of the given capacity. */
QV_API qv_bytes *qv_bytes_wrap(uint8_t *data, int64_t size, int64_t capacity);
/* A new qv_bytes (refcount 1: the caller releases it) viewing [data, data +
 * size), memory that `owner` keeps alive (owner is retained until the view
 * is released): no copy.  A view is 8-byte aligned, not 64, and the bytes
 * after it are whatever follows in owner's memory, not zero padding.  When
 * data is not 8-byte aligned (or size is 0) the bytes are copied into a
 * new buffer instead, so typed loads stay aligned.  NULL when out of
 * memory. */
QV_API qv_bytes *qv_bytes_view(qv_bytes *owner, const uint8_t *data, int64_t size);
QV_API qv_bytes *qv_bytes_retain(qv_bytes *b); /* returns b; NULL-safe */
QV_API void qv_bytes_release(qv_bytes *b);     /* NULL-safe */
/* Mutable view of a buffer this caller just allocated (refcount 1). */
static inline uint8_t *qv_bytes_mutable(qv_bytes *b) { return (uint8_t *)b->data; }

/* ---- growable byte buffer (builders) --------------------------------- */

typedef struct qv_buffer {
  uint8_t *data;
  int64_t size;
  int64_t capacity;
} qv_buffer;

#define QV_BUFFER_INIT \
  { NULL, 0, 0 }
QV_API qv_status qv_buffer_reserve(qv_buffer *b, int64_t additional);
QV_API qv_status qv_buffer_append(qv_buffer *b, const void *src, int64_t n);
QV_API qv_status qv_buffer_append_zeros(qv_buffer *b, int64_t n);
/* Moves the contents into a qv_bytes (the buffer is reset); never NULL on QV_OK. */
QV_API qv_status qv_buffer_finish(qv_buffer *b, qv_bytes **out);
QV_API void qv_buffer_reset(qv_buffer *b);

/* ---- bitmaps (Arrow LSB order) --------------------------------------- */

static inline bool qv_bit_get(const uint8_t *bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
static inline void qv_bit_set(uint8_t *bits, int64_t i) { bits[i >> 3] = (uint8_t)(bits[i >> 3] | (1u << (i & 7))); }
static inline void qv_bit_clear(uint8_t *bits, int64_t i) { bits[i >> 3] = (uint8_t)(bits[i >> 3] & ~(1u << (i & 7))); }
static inline void qv_bit_put(uint8_t *bits, int64_t i, bool v) {
  if (v) qv_bit_set(bits, i);
  else qv_bit_clear(bits, i);
}
static inline int64_t qv_bitmap_bytes(int64_t nbits) { return (nbits + 7) / 8; }
/* Number of set bits in [offset, offset+length). */
QV_API int64_t qv_bitmap_count(const uint8_t *bits, int64_t offset, int64_t length);
/* Copies length bits from src at src_offset to dst at dst_offset. */
QV_API void qv_bitmap_copy(uint8_t *dst, int64_t dst_offset, const uint8_t *src, int64_t src_offset, int64_t length);

/* ---- selection vectors ----------------------------------------------- */

/* Sorted, distinct row positions within a batch. */
typedef struct qv_selection {
  uint32_t *rows;
  int64_t count;
  int64_t capacity;
} qv_selection;

#define QV_SELECTION_INIT \
  { NULL, 0, 0 }
QV_API qv_status qv_selection_reserve(qv_selection *s, int64_t capacity);
/* Appends the positions of set bits of bits[0..length) (plus base). */
QV_API qv_status qv_selection_from_bitmap(qv_selection *s, const uint8_t *bits, int64_t length);
QV_API void qv_selection_reset(qv_selection *s);

/* ---- checksums and hashing ------------------------------------------- */

/* CRC32C (Castagnoli).  Pass 0 to start; chain by passing the previous value. */
QV_API uint32_t qv_crc32c(uint32_t crc, const void *data, size_t size);
QV_API uint64_t qv_hash64(const void *data, size_t size, uint64_t seed); /* xxh3 */

/* ---- little-endian access for file formats --------------------------- */

static inline uint32_t qv_load_u32le(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t qv_load_u64le(const uint8_t *p) {
  return (uint64_t)qv_load_u32le(p) | (uint64_t)qv_load_u32le(p + 4) << 32;
}
static inline void qv_store_u32le(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}
static inline void qv_store_u64le(uint8_t *p, uint64_t v) {
  qv_store_u32le(p, (uint32_t)v);
  qv_store_u32le(p + 4, (uint32_t)(v >> 32));
}

/* ---- UTF-8 ----------------------------------------------------------- */

/* Length of the longest valid UTF-8 prefix of s[0..n) (n when all valid).
 * Rejects overlong forms, surrogates and code points above U+10FFFF. */
QV_API int64_t qv_utf8_valid_prefix(const uint8_t *s, int64_t n);

/* ---- calendar -------------------------------------------------------- */

/* Proleptic Gregorian calendar; days since 1970-01-01. */
QV_API int64_t qv_days_from_civil(int64_t year, unsigned month, unsigned day);
QV_API void qv_civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day);

/* Parses "YYYY-MM-DD" exactly (n bytes, no surrounding text). */
QV_API bool qv_parse_date(const char *s, size_t n, int64_t *days);

/* Parses "YYYY-MM-DD[( |T)HH:MM[:SS[.f{1,9}]]][Z|(+|-)HH[:MM]]" exactly.
 * Outputs whole seconds since the epoch (UTC when a zone is given,
 * wall-clock otherwise), the fraction in nanoseconds, and whether a zone
 * designator was present. */
QV_API bool qv_parse_datetime(const char *s, size_t n, int64_t *seconds, int32_t *nanos, bool *has_zone);

/* Formats seconds + nanos as "YYYY-MM-DD HH:MM:SS[.fraction]" with exactly
 * frac_digits digits (0, 3, 6 or 9); returns the snprintf length. */
QV_API int qv_format_datetime(int64_t seconds, int32_t nanos, int frac_digits, char *buf, size_t size);

/* ---- time ------------------------------------------------------------ */

QV_API double qv_now_seconds(void);     /* monotonic clock */
QV_API int64_t qv_peak_rss_bytes(void); /* this process's peak resident set; -1 if unknown */

#ifdef __cplusplus
}
#endif
#endif
