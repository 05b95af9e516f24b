/* Internals shared by the index layer's files (and its tests and fuzz
 * target).  docs/format.md describes the index file; keep them in step. */
#ifndef QUIVER_INDEX_INDEX_INT_H
#define QUIVER_INDEX_INDEX_INT_H

#include <string.h>

#include "base/wire.h"
#include "quiver/index_bitmap.h"

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

/* What a kind's match function reads a conjunct against (match.c). */
typedef struct qvi_match_ctx {
  qv_index_type type;
  int32_t column;
  const qv_datatype *ctype; /* the keyed values' type (label list: the element type) */
  qv_error *err;
  qv_status st; /* set on out of memory (then the match is false) */
} qvi_match_ctx;

/* Reads a bound conjunct for an index of `type` on dataset column `column`
 * of type `ctype`.  *ok false (and nothing allocated) when it cannot answer. */
qv_status qvi_match(qv_index_type type, int32_t column, const qv_datatype *ctype, const qv_expr *e, qvi_ask *out,
                    bool *ok, qv_error *err);
void qvi_ask_reset(qvi_ask *a);
/* The column an operand reads, seeing through the lossless widening casts
 * the binder inserts; -1 for anything else. */
int32_t qvi_column_of(const qv_expr *e);
/* Comparisons, BETWEEN, IN, IS [NOT] NULL, starts_with and LIKE 'prefix%'
 * as key ranges (the match of BTREE and BITMAP). */
bool qvi_match_value(qvi_match_ctx *c, const qv_expr *e, qvi_ask *a);
/* A point range for a literal; false when it does not compare in key order. */
bool qvi_match_point(qvi_match_ctx *c, qvi_ask *a, const qv_scalar *s);
qvi_range *qvi_add_range(qvi_ask *a, qv_error *err);
/* Whether a float column's comparison is under the total order (true for
 * any other column). */
bool qvi_floats_total(const qvi_match_ctx *c, const qv_expr *e);
/* The LIKE escape character: args[2] ('' = none) or '\' by default. */
bool qvi_like_escape(const qv_expr *e, int *esc);

/* ---- trigrams and patterns (pattern.c) -------------------------------------- */

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
  char *path; /* the full path (qvi_file_open; NULL from an fd): the chunk cache's key */
  int64_t file_size;
  uint8_t *footer;
  int64_t footer_len;
  uint32_t footer_crc;
  int type;
  const struct qvi_kind *kind;
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
  /* vector kinds: their parsed footer and caches (the kind frees them) */
  void *vec;
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
 * "dictionary" or "posting list", "partition P" (vector kinds).  Chunks are
 * numbered from 0 as the footer's chunk table lists them, pages from 0 as
 * its page lookup does. */
void qvi_chunk_role(const qvi_file *f, int32_t i, char *buf, size_t n);
/* Reads chunk i whole and checks its CRC32C; *out is qv_malloc'd.  what is
 * the chunk's role (qvi_chunk_role) for the message "chunk I (what)". */
qv_status qvi_file_chunk(qvi_file *f, int32_t i, const char *what, uint8_t **out, qv_error *err);
/* "FILE: offset OFF: what" as QV_ERR_CORRUPT. */
qv_status qvi_corrupt(const qvi_file *f, int64_t off, qv_error *err, const char *what);
/* A chunk number read from a footer, checked against the chunk table. */
bool qvi_get_chunk_ref(qvb_cursor *c, const qvi_file *f, int32_t *out, const char *what);
/* The null rows (cached in f). */
qv_status qvi_file_nulls(qvi_file *f, const roaring_bitmap_t **out, qv_error *err);
/* The posting dictionary (cached in f; a no-op for kinds without one). */
qv_status qvi_file_dict(qvi_file *f, qv_error *err);
/* A posting list, checked against the dictionary's cardinality. */
qv_status qvi_file_posting(qvi_file *f, int64_t k, roaring_bitmap_t **out, qv_error *err);
/* A BTREE page's (key, row) entries, validated (btree.c). */
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

/* ---- building (build.c) ------------------------------------------------------------ */

/* What building one fragment's file starts from. */
typedef struct qvi_build_in {
  const qv_dataset *ds;
  int32_t fragment; /* position in ds */
  int32_t column;
  const qv_datatype *ctype;
  int64_t page_rows;          /* BTREE entries per page */
  const void *model;          /* the kind's trained model (vector kinds), or NULL */
  qv_fragment_reader *reader; /* open on the fragment */
  int64_t rows;               /* the fragment's rows */
} qvi_build_in;

/* What a kind's build produces: chunks in w and, in tail, the footer after
 * the null rows chunk's number (which the kind writes first, through
 * qvi_build_put_nulls, so that it is chunk 0 and the first tail field). */
typedef struct qvi_build_out {
  qvi_writer w;
  qvb_wbuf tail;
  roaring_bitmap_t *nulls; /* rows whose value is null (the kind adds them) */
  int64_t entries, distinct;
} qvi_build_out;

/* Calls fn on the column in slices of at most 65,536 rows (so a wide
 * fragment is never decoded whole at once); base is the slice's first row. */
typedef qv_status (*qvi_slice_fn)(void *ctx, const qv_array *a, int64_t base, qvi_build_out *out, qv_error *err);
qv_status qvi_build_read(const qvi_build_in *in, qvi_slice_fn fn, void *ctx, qvi_build_out *out, qv_error *err);
/* Writes the null rows chunk and its number into the tail. */
qv_status qvi_build_put_nulls(qvi_build_out *out, qv_error *err);
/* A length-prefixed key into a footer or dictionary. */
void qvi_put_key(qvb_wbuf *w, const uint8_t *k, uint32_t len);

/* Sorted (key, row) entries: what BTREE, BITMAP and LABEL_LIST collect. */
typedef struct qvi_entry {
  uint64_t off; /* key bytes in the arena */
  uint32_t len;
  uint32_t row;
} qvi_entry;
typedef struct qvi_entries {
  qv_buffer keys;
  qvi_entry *e;
  int64_t n, cap;
} qvi_entries;
qv_status qvi_entries_add(qvi_entries *c, const uint8_t *key, int32_t len, uint32_t row, qv_error *err);
/* Every non-null row's key (a slice fn; ctx is the qvi_entries). */
qv_status qvi_entries_of_values(void *ctx, const qv_array *a, int64_t base, qvi_build_out *out, qv_error *err);
void qvi_entries_sort(qvi_entries *c);
void qvi_entries_reset(qvi_entries *c);
static inline const uint8_t *qvi_entry_key(const qvi_entries *c, int64_t i) { return c->keys.data + c->e[i].off; }

/* Builds the index file of one fragment: bytes in *out.  model: the kind's
 * trained model (NULL for the scalar kinds). */
qv_status qvi_build_fragment(const qv_dataset *ds, int32_t fragment, int32_t column, qv_index_type type,
                             int64_t page_rows, const void *model, qv_buffer *out, uint32_t *footer_crc, qv_error *err);

/* ---- posting lists (posting.c): BITMAP, LABEL_LIST, NGRAM ------------------------------ */

/* One posting chunk per distinct key of the sorted entries, then the
 * dictionary chunk; its number and the key count go into the tail. */
qv_status qvi_postings_write_sorted(const qvi_entries *c, qvi_build_out *out, qv_error *err);
/* open: the tail's dictionary chunk and key count. */
bool qvi_postings_open(qvb_cursor *c, qvi_file *f);
void qvi_postings_chunk_role(const qvi_file *f, int32_t i, char *buf, size_t n);
qv_status qvi_postings_query(qvi_file *f, const qvi_ask *a, roaring_bitmap_t *out, qv_error *err);
/* keys_independent: rows holding every key (QVI_ALL_KEYS) are estimated
 * by multiplying the keys' fractions (labels), else by the rarest key
 * (the overlapping trigrams of one needle). */
qv_status qvi_postings_estimate(qvi_file *f, const qvi_ask *a, bool keys_independent, int64_t *est, int64_t *read,
                                qv_error *err);

/* ---- answering (query.c) ------------------------------------------------------------ */

/* The rows of one file matching ask. */
qv_status qvi_file_query(qvi_file *f, const qvi_ask *ask, roaring_bitmap_t *out, qv_error *err);
/* Estimated matching rows of one file. */
qv_status qvi_file_estimate(qvi_file *f, const qvi_ask *a, int64_t *rows, int64_t *entries_read, qv_error *err);
/* Every row with a non-null value into out: [0, num_rows) minus the nulls. */
qv_status qvi_file_nonnull(qvi_file *f, roaring_bitmap_t *out, qv_error *err);
/* Range helpers the kinds share. */
bool qvi_range_below(const qvi_range *r, const uint8_t *k, int32_t kl);
bool qvi_range_above(const qvi_range *r, const uint8_t *k, int32_t kl);
bool qvi_range_inside(const qvi_range *r, const uint8_t *k, int32_t kl);
bool qvi_range_is_point(const qvi_range *r);

/* ---- the kinds (kind.c) -----------------------------------------------------------------
 *
 * Each index kind is one file (btree.c, bitmap.c, ngram.c, label_list.c,
 * ivf.c for IVF_FLAT and IVF_PQ) holding one of these tables; the layer's
 * generic code (index.c, build.c, file.c, match.c, query.c) looks the kind
 * up instead of switching on its type.  Functions a kind does not have are
 * NULL. */
typedef struct qvi_kind {
  qv_index_type type;
  const char *name; /* qv_index_type_name */
  /* Column types it takes, and the type of the values it keys (written as
   * the footer's key type). */
  bool (*supports)(const qv_datatype *col);
  const qv_datatype *(*key_type)(const qv_datatype *col);
  /* build: trained on the whole column first when train is set (vector
   * kinds: k-means on a sample); optimize and rebuild take the model of an
   * existing file (model_of) so that a new fragment's file agrees with the
   * others.  Then one file per fragment. */
  qv_status (*train)(const qv_dataset *ds, int32_t column, const qv_index_options *o, void **model, qv_error *err);
  qv_status (*model_of)(qvi_file *f, void **model, qv_error *err);
  void (*model_free)(void *model);
  qv_status (*build)(const qvi_build_in *in, qvi_build_out *out, qv_error *err);
  /* open: the footer's fields after the null rows chunk; close frees what
   * open and the kind's reads keep in the file (f->vec) */
  bool (*open)(qvb_cursor *c, qvi_file *f);
  void (*close)(qvi_file *f);
  void (*chunk_role)(const qvi_file *f, int32_t i, char *buf, size_t n);
  /* answering a conjunct: match reads it as a question; query answers the
   * question's positive part for one file (the modes QVI_RANGES,
   * QVI_ANY_KEY, QVI_ALL_KEYS; nulls, negation and added nulls are
   * generic), estimate sizes it from the file's statistics */
  bool (*match)(qvi_match_ctx *c, const qv_expr *e, qvi_ask *a);
  bool and_ranges; /* x AND y of two range answers on the column (BTREE, BITMAP) */
  qv_status (*query)(qvi_file *f, const qvi_ask *a, roaring_bitmap_t *out, qv_error *err);
  qv_status (*estimate)(qvi_file *f, const qvi_ask *a, int64_t *est, int64_t *read, qv_error *err);
  /* statistics: adds one file's to out */
  void (*stats)(const qvi_file *f, qv_index_stats *out);
  /* verify: checks beyond every chunk's checksum (NULL: none) */
  qv_status (*verify)(qvi_file *f, qv_error *err);
  /* vector kinds: what the file is, and the nearest candidates of its
   * fragment (qv_index_search) */
  void (*vector_info)(const qvi_file *f, qv_index_vector_info *out);
  qv_status (*search)(qvi_file *f, const qv_index_search_args *a, qv_index_candidate *out, int64_t *n_out,
                      qv_index_search_stats *stats, qv_error *err);
} qvi_kind;

/* The kind of a type code; NULL when unknown. */
const qvi_kind *qvi_kind_of(int type);
/* Whether the index type can be built on a column of type t. */
bool qvi_type_supported(qv_index_type type, const qv_datatype *t);
/* The footer statistics every kind keeps (stats of the scalar kinds). */
void qvi_stats_footer(const qvi_file *f, qv_index_stats *out);

extern const qvi_kind qvi_kind_btree, qvi_kind_bitmap, qvi_kind_ngram, qvi_kind_label_list, qvi_kind_ivf_flat,
    qvi_kind_ivf_pq;

/* ---- verified chunks kept across handles (chunk_cache.c) ---------------------------------
 *
 * Index files never change once written, so a chunk read and checked once
 * (a vector index's centroids and partitions) can serve every later search
 * in the process, as Lance's session cache does: a search then reads no
 * file for the partitions it probed before.  Keyed by the file's full
 * path, size and footer checksum and the chunk's number and checksum;
 * bounded by QVI_CACHE_BYTES (least recently used out first); thread-safe.
 * Damage done to a file after its chunks were cached is found by
 * qv_index_verify (which reads the file), not by searches. */
#define QVI_CACHE_BYTES (INT64_C(512) << 20)
typedef struct qvi_cached qvi_cached;
/* The cached bytes of chunk i of f, or NULL (then *ref is NULL). */
const uint8_t *qvi_cache_get(const qvi_file *f, int32_t i, qvi_cached **ref);
/* Keeps bytes (qv_malloc'd, taken) as chunk i of f; returns them with a
 * reference (NULL only when memory ran out: bytes are freed). */
const uint8_t *qvi_cache_put(const qvi_file *f, int32_t i, uint8_t *bytes, int64_t len, qvi_cached **ref);
void qvi_cache_release(qvi_cached *ref); /* NULL-safe */
/* Drops every entry no search holds (tests; qv_memory_trim's spirit). */
void qvi_cache_clear(void);

/* ---- k-means (kmeans.c), for the vector kinds (ivf.c) ------------------------------------ */

/* A splitmix64 step: seeded, reproducible sampling. */
uint64_t qvi_rand(uint64_t *state);
/* The nearest of k centroids (squared L2) of each of n vectors into out
 * (and its distance into dist, nullable); runs on the pool. */
qv_status qvi_assign(const float *x, int64_t n, int32_t dim, const float *c, int32_t k, int32_t *out, float *dist,
                     qv_error *err);
/* Lloyd's k-means of n >= k vectors into centroids (k x dim), at most
 * iters rounds, from k distinct vectors the seed picks. */
qv_status qvi_kmeans(const float *x, int64_t n, int32_t dim, int32_t k, int32_t iters, uint64_t seed, float *centroids,
                     qv_error *err);

#endif
