/* Internals shared by the index layer's files (and its tests and fuzz
 * target).  docs/format.md describes the index file; keep them in step. */
#ifndef QUIVER_INDEX_INDEX_INT_H
#define QUIVER_INDEX_INDEX_INT_H

#include <string.h>

#include "base/wire.h"
#include "quiver/index.h"

#define QVI_MAGIC "QVI1"
#define QVI_FORMAT_VERSION 1
#define QVI_HEADER 8   /* magic + u32 format version */
#define QVI_TRAILER 16 /* u64 footer length, u32 footer crc, magic */
#define QVI_MAX_CHUNK (INT64_C(1) << 31)
#define QVI_MAX_FOOTER (INT64_C(1) << 30)

/* ---- keys (key.c) ---------------------------------------------------------
 *
 * Every indexed value becomes a byte string whose memcmp order (shorter
 * first on a common prefix) is the value order: integers of any width and
 * sign as 9 bytes (sign byte, big-endian 64 bits), floats by their total
 * order (8 bytes), temporal values as integers, bool as one byte, strings
 * and binary as their bytes. */
typedef enum qvi_key_kind { QVI_KEY_NONE = 0, QVI_KEY_INT, QVI_KEY_FLOAT, QVI_KEY_BOOL, QVI_KEY_BYTES } qvi_key_kind;

qvi_key_kind qvi_key_kind_of(const qv_datatype *t);
/* Whether the index type can be built on a column of type t. */
bool qvi_type_supported(qv_index_type type, const qv_datatype *t);
/* The key of row i of a (valid): fixed-size keys are written to tmp,
 * string keys point into the array. */
const uint8_t *qvi_key_of_row(const qv_array *a, int64_t i, qvi_key_kind kind, uint8_t tmp[16], int32_t *len);
/* The key of a literal compared with a column of type col, qv_malloc'd:
 * NULL with *ok false when the literal's type does not compare in the
 * column's key order (then the index cannot answer), or with *len -1 when
 * memory ran out. */
uint8_t *qvi_key_of_scalar(const qv_scalar *s, const qv_datatype *col, int32_t *len, bool *ok);
/* The key of a float (float32 widened first) into out; returns 8. */
int32_t qvi_key_of_double(double d, uint8_t out[8]);
int qvi_key_cmp(const uint8_t *a, int32_t alen, const uint8_t *b, int32_t blen);

/* ---- what a conjunct asks (match.c) ----------------------------------------- */

typedef struct qvi_range {
  bool has_lo, lo_inc, has_hi, hi_inc, prefix; /* prefix: keys starting with lo */
  int32_t lo_len, hi_len;
  uint8_t *lo, *hi; /* qv_malloc'd */
} qvi_range;

typedef enum qvi_mode {
  QVI_RANGES = 1, /* union of ranges of values (BTREE, BITMAP) */
  QVI_NULLS,      /* rows whose value is null */
  QVI_ALL_KEYS,   /* rows holding every key (NGRAM trigrams, array_has_all) */
  QVI_ANY_KEY     /* rows holding any key (array_has, array_has_any) */
} qvi_mode;

typedef struct qvi_ask {
  qvi_mode mode;
  bool negate;    /* the non-null rows NOT in the answer */
  bool add_nulls; /* null rows are added (IN with a null under nulls-equal) */
  bool exact;
  bool all_nonnull; /* QVI_ALL_KEYS with no key: every non-null row */
  int32_t n;        /* ranges or keys */
  qvi_range *ranges;
  bool no_negate; /* rows outside the answer may be null, not false (SQL IN with a null) */
} qvi_ask;

/* Reads a bound conjunct for an index of `type` on dataset column `column`
 * of type `ctype`.  *ok false (and nothing allocated) when it cannot answer. */
qv_status qvi_match(qv_index_type type, int32_t column, const qv_datatype *ctype, const qv_expr *e, qvi_ask *out,
                    bool *ok, qv_error *err);
void qvi_ask_reset(qvi_ask *a);

/* ---- trigrams and patterns (ngram.c) ---------------------------------------- */

static inline uint32_t qvi_trigram(const uint8_t *p) { return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]; }
/* Literal runs every match of a LIKE pattern contains (case-sensitive
 * LIKE only); runs are appended to out as (offset, length) pairs into
 * text (an unescaped copy).  Returns false on an invalid pattern. */
typedef struct qvi_runs {
  qv_buffer text;
  int32_t n;
  int64_t off[64], len[64];
  bool only_prefix; /* the pattern is run[0] followed by one '%' */
  bool literal;     /* the pattern has no wildcard: run[0] is the whole value */
  bool starts;      /* run[0] is anchored at the start */
} qvi_runs;
bool qvi_like_runs(const uint8_t *p, int64_t n, int escape, qvi_runs *out);
/* Literal runs every match of a regex must contain (conservative: none
 * when unsure). */
void qvi_regex_runs(const uint8_t *p, int64_t n, qvi_runs *out);
void qvi_runs_reset(qvi_runs *r);

/* ---- roaring bitmaps on disk (roaring_io.c) --------------------------------- */

/* Portable serialization into w. */
void qvi_put_roaring(qvb_wbuf *w, const roaring_bitmap_t *r);
/* Validates the bytes (keys and values ordered, runs in range, counts
 * consistent) and deserializes them; values must be < limit. */
roaring_bitmap_t *qvi_get_roaring(const uint8_t *p, int64_t n, uint64_t limit, const char **why);

/* ---- index files (file.c) ------------------------------------------------------ */

typedef struct qvi_chunk {
  int64_t offset, length;
  uint32_t crc;
} qvi_chunk;

typedef struct qvi_page_ref { /* BTREE */
  int32_t chunk;
  int64_t count;
  uint8_t *first, *last; /* into the footer copy */
  int32_t first_len, last_len;
} qvi_page_ref;

typedef struct qvi_dict_entry { /* posting indices */
  const uint8_t *key;
  int32_t key_len;
  int32_t chunk;
  int64_t card;
} qvi_dict_entry;

typedef struct qvi_file {
  int fd;
  char *name; /* "_indices/<hex>.qvi" (messages) */
  int64_t file_size;
  uint8_t *footer;
  int64_t footer_len;
  uint32_t footer_crc;
  int type;
  qv_type_id key_type;
  int64_t fragment_id, num_rows, null_count, entries, distinct;
  int32_t n_chunks;
  qvi_chunk *chunks;
  int32_t nulls_chunk;
  /* BTREE */
  int32_t n_pages;
  qvi_page_ref *pages;
  /* postings */
  int32_t dict_chunk;
  int64_t n_keys;
  uint8_t *dict_bytes; /* loaded on first use */
  qvi_dict_entry *dict;
  roaring_bitmap_t *nulls; /* loaded on first use */
  qv_io_counters io;
} qvi_file;

/* Opens and validates an index file's header, trailer and footer (fd is
 * owned).  expect_fragment / expect_type < 0: not checked. */
qv_status qvi_file_open_fd(int fd, const char *name, int64_t expect_fragment, int expect_type, qvi_file **out,
                           qv_error *err);
qv_status qvi_file_open(const char *path, const char *name, int64_t expect_fragment, int expect_type, qvi_file **out,
                        qv_error *err);
void qvi_file_close(qvi_file *f);
/* What chunk i of f holds, for messages: "page P" (btree), "null rows",
 * "dictionary" or "posting list".  Chunks are numbered from 0 as the
 * footer's chunk table lists them, pages from 0 as its page lookup does. */
void qvi_chunk_role(const qvi_file *f, int32_t i, char *buf, size_t n);
/* Reads chunk i whole and checks its CRC32C; *out is qv_malloc'd.  what is
 * the chunk's role (qvi_chunk_role) for the message "chunk I (what)". */
qv_status qvi_file_chunk(qvi_file *f, int32_t i, const char *what, uint8_t **out, qv_error *err);
/* The null rows (cached in f). */
qv_status qvi_file_nulls(qvi_file *f, const roaring_bitmap_t **out, qv_error *err);
/* The posting dictionary (cached in f). */
qv_status qvi_file_dict(qvi_file *f, qv_error *err);
/* A posting list, checked against the dictionary's cardinality. */
qv_status qvi_file_posting(qvi_file *f, int64_t k, roaring_bitmap_t **out, qv_error *err);
/* A BTREE page's (key, row) entries, validated. */
typedef struct qvi_page {
  uint8_t *bytes;
  int64_t count;
  const uint8_t *offsets; /* count + 1 u32 */
  const uint8_t *keys;
  const uint8_t *rows; /* count u32 */
} qvi_page;
qv_status qvi_file_page(qvi_file *f, int32_t p, qvi_page *out, qv_error *err);
static inline const uint8_t *qvi_page_key(const qvi_page *pg, int64_t i, int32_t *len) {
  uint32_t a = qv_load_u32le(pg->offsets + 4 * i), b = qv_load_u32le(pg->offsets + 4 * (i + 1));
  *len = (int32_t)(b - a);
  return pg->keys + a;
}
static inline uint32_t qvi_page_row(const qvi_page *pg, int64_t i) { return qv_load_u32le(pg->rows + 4 * i); }

/* Writing: chunks first, then the footer (file.c). */
typedef struct qvi_writer {
  qvb_wbuf body;   /* header + chunks */
  qvb_wbuf chunks; /* the chunk table */
  int32_t n_chunks;
} qvi_writer;
void qvi_writer_init(qvi_writer *w);
void qvi_writer_reset(qvi_writer *w);
/* Appends a chunk's bytes; returns its number. */
int32_t qvi_writer_chunk(qvi_writer *w, const qv_buffer *bytes);
/* Completes the file: footer (head + chunk table + tail) and trailer. */
qv_status qvi_writer_finish(qvi_writer *w, const qv_buffer *head, const qv_buffer *tail, qv_buffer *out,
                            uint32_t *footer_crc, qv_error *err);

/* ---- building (build.c) and answering (query.c) --------------------------------- */

/* Builds the index file of one fragment: bytes in *out. */
qv_status qvi_build_fragment(const qv_dataset *ds, int32_t fragment, int32_t column, qv_index_type type,
                             int64_t page_rows, qv_buffer *out, uint32_t *footer_crc, qv_error *err);
/* The rows of one file matching ask. */
qv_status qvi_file_query(qvi_file *f, const qvi_ask *ask, roaring_bitmap_t *out, qv_error *err);
/* Estimated matching rows of one file. */
qv_status qvi_file_estimate(qvi_file *f, const qvi_ask *a, int64_t *rows, int64_t *entries_read, qv_error *err);

#endif
