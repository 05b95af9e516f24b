/* Internals shared by the storage layer's files (and its tests and fuzz
 * targets).  docs/format.md describes the bytes these functions read and
 * write; keep the two in step. */
#ifndef QUIVER_STORAGE_INT_H
#define QUIVER_STORAGE_INT_H

#include <stdatomic.h>
#include <string.h>

#include "base/pool.h"
#include "base/wire.h"

#include "quiver/storage.h"

/* ---- format constants ------------------------------------------------- */

#define QVS_DATA_MAGIC "QVF1"     /* first and last 4 bytes of a .qvf */
#define QVS_MANIFEST_MAGIC "QVM1" /* first 4 bytes of a .manifest */
#define QVS_DELETION_MAGIC "QVD1" /* first 4 bytes of a .del */
#define QVS_DATA_HEADER 8         /* magic + u32 format version */
#define QVS_DATA_TRAILER 16       /* u64 footer length, u32 footer crc, magic */

/* A raw page's stored bytes are checksummed (and so read by a take) in
 * blocks: 1 KiB from format version 4 on, recorded in the footer, 4 KiB
 * before.  Smaller blocks make a take of a few short values read and
 * verify a quarter of the bytes, for a footer of 0.4% of the raw bytes
 * instead of 0.1%. */
#define QVS_BLOCK 1024
#define QVS_BLOCK_V3 4096 /* versions 1 to 3 */
/* Compressed pages are stored as independent frames of this many raw bytes
 * (the last shorter), so a take of a few rows decompresses only the frames
 * holding them.  Data files with framed pages have format version 2 or 3,
 * and record the frame size they were written with in the footer; version
 * 3 checksums each frame on its own, so a take also reads only the frames'
 * stored bytes (version 2: the 4096-byte blocks spanning them). */
#define QVS_FRAME 16384
#define QVS_DATAFILE_VERSION 4 /* 4: FSST pages (encoding 3) */
#define QVS_PAGE_MINMAX 0x1u /* page flags: min and max follow */
#define QVS_PAGE_FRAMED 0x2u /* page flags: compressed in QVS_FRAME frames (version 2 and later) */
#define QVS_MAX_PAGE_ROWS (1 << 16)    /* bound on rows per page (writer option and reader) */
#define QVS_MAX_FRAGMENT_ROWS (INT64_C(1) << 32)
#define QVS_MAX_DEPTH 32               /* nesting of types */
#define QVS_MAX_NAME 4096              /* bytes of a field name, time zone, file name */
#define QVS_MAX_DICT 65536             /* dictionary entries */
#define QVS_MAX_BITS 56                /* widest bit-packed value (one unaligned 64-bit load) */
#define QVS_PACK_PAD 8                 /* zero bytes after packed bits, for that load */
#define QVS_SLACK 64                   /* zeroed bytes after a page's bytes in memory (over-reads) */
#define QVS_STAT_PREFIX 64             /* bytes of a string statistic kept */
#define QVS_MAX_PAGE_BYTES (INT64_C(1) << 31) /* a page's decoded bytes (int32 offsets) */
#define QVS_MAX_MANIFEST_BYTES (INT64_C(1) << 30)

/* ---- test hook ---------------------------------------------------------- */

/* Called at named points of a commit when non-NULL: "fragment-written"
 * (after each data file is complete), "data-written" (all data files and
 * the data directory fsynced), "manifest-written" (temp manifest fsynced),
 * "before-publish", "published" (linked, before the directory fsync).  The
 * crash test sets it to a function that raises SIGKILL at one of them. */
extern void (*qvs_commit_hook)(const char *step);
void qvs_commit_step(const char *step);

/* Checksums are verified unless a fuzz target turns this off to reach the
 * parsers and decoders with mutated bytes (never in the library itself). */
extern bool qvs_verify_checksums;

/* ---- schemas on disk (schema_codec.c) ----------------------------------- */

void qvs_put_field(qv_wbuf *w, const qv_field *f);
void qvs_put_schema(qv_wbuf *w, const qv_schema *s);
/* Parses a field; on failure the cursor holds the error and *out is reset. */
bool qvs_get_field(qv_cursor *c, qv_field *out, int depth);
bool qvs_get_schema(qv_cursor *c, qv_schema *out);
/* Whether the storage layer can write the type (every type it knows). */
bool qvs_type_supported(const qv_datatype *t, int depth);

/* ---- manifest (manifest.c) ------------------------------------------------ */

typedef struct qvs_fragment_meta {
  int64_t id;
  char *data_file;     /* "data/<hex>.qvf", relative to the dataset */
  int64_t num_rows;
  char *deletion_file; /* "_deletions/<id>-<version>.del" or NULL */
  int64_t num_deleted;
} qvs_fragment_meta;

typedef struct qvs_index_meta {
  char *name;
  char *column;
  int type;
  int64_t built_version, updated_version;
  int32_t n_files;
  qv_index_file *files; /* paths owned (qv_malloc'd) */
} qvs_index_meta;

/* Manifest format versions: 1 has no indices; 2 lists them.  A manifest
 * without indices is written as 1, so older builds still read it. */
#define QVS_MANIFEST_VERSION_INDICES 2
#define QVS_MAX_INDEX_NAME 64
#define QVS_MAX_INDEX_FILE (INT64_C(1) << 40)

typedef struct qvs_manifest {
  uint32_t format_version;
  int64_t version;
  int64_t timestamp_ms;
  char operation[32];
  qv_schema schema;
  int64_t next_fragment_id;
  int32_t n_fragments;
  qvs_fragment_meta *fragments;
  int32_t n_indices;
  qvs_index_meta *indices;
} qvs_manifest;

void qvs_manifest_init(qvs_manifest *m);
void qvs_manifest_reset(qvs_manifest *m);
qv_status qvs_manifest_encode(const qvs_manifest *m, qv_buffer *out, qv_error *err);
/* Validates everything (checksum, names, counts, schema); name is used in
 * messages. */
qv_status qvs_manifest_decode(const uint8_t *data, int64_t size, const char *name, qvs_manifest *out,
                              qv_error *err);
/* Reads _versions/<version>.manifest of the dataset at path. */
qv_status qvs_manifest_read(const char *path, int64_t version, qvs_manifest *out, qv_error *err);
/* Appends a deep copy of f. */
qv_status qvs_manifest_add_fragment(qvs_manifest *m, const qvs_fragment_meta *f, qv_error *err);
bool qvs_valid_data_file_name(const char *s);
bool qvs_valid_index_file_name(const char *s); /* "_indices/<1..64 hex>.qvi" */
bool qvs_valid_index_name(const char *s);
/* Appends a deep copy of e keeping only the files whose fragment is in m
 * (an entry left without files is still kept: it covers nothing yet). */
qv_status qvs_manifest_add_index(qvs_manifest *m, const qv_index_entry *e, qv_error *err);
/* The index entries of base carried into m (call after m's fragments are
 * in place): what appends and deletes do. */
qv_status qvs_manifest_carry_indices(qvs_manifest *m, const qvs_manifest *base, qv_error *err);
void qvs_index_meta_reset(qvs_index_meta *x);
/* Index entries on disk (manifest_index.c). */
void qvs_put_indices(qv_wbuf *w, const qvs_manifest *m);
bool qvs_get_indices(qv_cursor *c, qvs_manifest *m, uint32_t n);
bool qvs_valid_deletion_file_name(const char *s);

/* An open version of a dataset (dataset.c). */
struct qv_dataset {
  char *path;
  qvs_manifest manifest;
};

/* ---- versions and commits (commit.c) ------------------------------------- */

/* Published version numbers of the dataset, ascending (qv_malloc'd; may be
 * NULL with *n == 0).  A missing _versions directory gives zero versions. */
qv_status qvs_list_versions(const char *path, int64_t **out, int64_t *n, qv_error *err);
qv_status qvs_latest_version(const char *path, int64_t *out, qv_error *err); /* 0 when none */
int64_t qvs_now_ms(void); /* wall clock, for a manifest's timestamp */
/* Creates the dataset's directories (those that are missing). */
qv_status qvs_ensure_layout(const char *path, qv_error *err);
/* Publishes m as _versions/<m->version>.manifest: temp file, fsync, link
 * (never replaces), fsync the directory.  QV_ERR_CONFLICT when that version
 * was published by someone else first. */
qv_status qvs_publish_manifest(const char *path, const qvs_manifest *m, qv_error *err);

/* ---- deletion files (deletion.c) ----------------------------------------- */

qv_status qvs_deletion_encode(int64_t fragment_id, int64_t num_rows, const uint8_t *bits, int64_t count,
                              qv_buffer *out, qv_error *err);
/* Decodes into a qv_malloc'd bitmap of num_rows bits; checks the fragment id,
 * row count and deleted count against what the manifest says. */
qv_status qvs_deletion_decode(const uint8_t *data, int64_t size, const char *name, int64_t fragment_id,
                              int64_t num_rows, int64_t num_deleted, uint8_t **out_bits, qv_error *err);
qv_status qvs_deletion_load(const char *path, const qvs_fragment_meta *f, uint8_t **out_bits, qv_error *err);

/* ---- statistics values (page_stats.c) ------------------------------------ */

/* A min or max kept without allocation: numbers in the union, strings as a
 * (truncated) prefix. */
typedef struct qvs_stat_value {
  union {
    int64_t i;
    uint64_t u;
    double f;
    bool b;
    struct {
      uint64_t lo;
      int64_t hi;
    } dec;
  } v;
  int32_t len; /* string / binary */
  uint8_t bytes[QVS_STAT_PREFIX + 8];
} qvs_stat_value;

typedef struct qvs_stats {
  int64_t null_count;
  int64_t nan_count;
  bool has_minmax;
  qvs_stat_value min, max;
} qvs_stats;

/* Statistics of rows [start, start+n) of a (offset applied). */
void qvs_stats_compute(const qv_array *a, int64_t start, int64_t n, qvs_stats *out);
bool qvs_type_has_minmax(qv_type_id id);
void qvs_put_stat_value(qv_wbuf *w, qv_type_id id, const qvs_stat_value *v);
bool qvs_get_stat_value(qv_cursor *c, qv_type_id id, qvs_stat_value *v);
/* The value as a scalar of the given type (type copied). */
qv_status qvs_stat_to_scalar(const qv_datatype *type, const qvs_stat_value *v, qv_scalar *out);

/* ---- pages in data files -------------------------------------------------- */

typedef struct qvs_buf {
  int64_t offset; /* within the page's decoded (raw) bytes */
  int64_t length;
} qvs_buf;

/* A page as the footer describes it. */
typedef struct qvs_page {
  int64_t offset;     /* of its stored bytes in the file */
  int64_t stored_len; /* bytes in the file */
  int64_t raw_len;    /* bytes after decompression (== stored_len when raw) */
  int64_t row_start;
  int64_t row_count;
  int64_t null_count;
  int64_t nan_count;
  uint8_t encoding;    /* QV_ENCODING_* */
  uint8_t compression; /* QV_COMPRESSION_NONE/ZSTD/LZ4 */
  uint8_t bit_width;   /* bitpack-for deltas, dictionary indices */
  uint64_t reference;  /* bitpack-for: the frame of reference (minimum) */
  int64_t dict_count;  /* dictionary: entries */
  int32_t n_buffers;
  qvs_buf *buffers;        /* into the column's buffer pool */
  int64_t block;           /* not framed: bytes per checksum block (the file's block_size) */
  const uint8_t *crcs;     /* u32 LE crc32c, into the footer bytes: one per `block` of the stored
                              bytes, or (frame_crcs) one per frame, over its stored bytes */
  bool framed;             /* compressed in frames of `frame` raw bytes */
  bool frame_crcs;         /* framed, version 3+: crcs has one checksum per frame */
  int64_t frame;           /* framed: raw bytes per frame (the file's frame_size) */
  const uint8_t *frames;   /* framed: ceil(raw_len / frame) u32 LE stored lengths, into the footer */
  bool has_minmax;
  qvs_stat_value min, max; /* when has_minmax */
  qv_page_stats stats;     /* scalars built on open */
} qvs_page;

typedef struct qvs_column {
  qv_field field;
  int32_t n_pages;
  qvs_page *pages;
  qvs_buf *buffer_pool;
} qvs_column;

/* An open data file: the parsed and validated footer, and the descriptor.
 * Nothing in it changes after open, so the readers of one fragment on
 * several threads share one (reference counted; pread needs no lock). */
typedef struct qvs_datafile {
  atomic_int refs;
  int fd;
  bool own_fd;
  char *name; /* "data/<hex>.qvf" (messages) */
  int64_t file_size;
  uint8_t *footer; /* the footer bytes (page crc tables point into it) */
  int64_t footer_offset;
  int64_t footer_len;
  int64_t num_rows;
  uint32_t version;  /* the file's format version (1; 2 with framed pages; 3 with frame checksums) */
  int64_t frame_size; /* version 2 and later: raw bytes per frame of its framed pages */
  int64_t block_size; /* bytes per checksum block of raw pages (version 4: in the footer; else 4096) */
  int32_t page_rows; /* as written (informational) */
  int32_t n_columns;
  qvs_column *columns;
} qvs_datafile;

/* Opens a data file at path (name for messages) and validates its footer. */
qv_status qvs_datafile_open(const char *path, const char *name, qvs_datafile **out, qv_error *err);
/* Same over an open descriptor (own_fd: close it in qvs_datafile_close). */
qv_status qvs_datafile_open_fd(int fd, bool own_fd, const char *name, qvs_datafile **out, qv_error *err);
/* Drops a reference; the last one closes. */
void qvs_datafile_close(qvs_datafile *df);
/* Fragment reader over a data file without a dataset (fuzz targets):
 * takes ownership of df; no deletions, no schema check. */
qv_status qvs_fragment_from_datafile(qvs_datafile *df, qv_fragment_reader **out, qv_error *err);

/* Buffers a page of this type and encoding has (-1: never valid). */
int32_t qvs_layout_buffers(const qv_datatype *t, int encoding);
/* Checks a page's buffer table against its type, encoding and counts
 * (fixed-size buffers exactly; variable ones within raw_len). */
qv_status qvs_check_layout(const qvs_datafile *df, int32_t col, int32_t page, qv_error *err);

/* ---- loading a page's bytes (page_view.c) --------------------------------- */

/* A page's decoded bytes, loaded whole or block by block.  For a raw page
 * only the checksum blocks the decoder asks for are read and verified. */
typedef struct qvs_view {
  qvs_datafile *df;
  int32_t col, page;
  const qvs_page *pg;
  uint8_t *raw;         /* raw_len (+ padding) bytes; valid where loaded */
  uint8_t *state;       /* per unit: 0 untouched, 1 wanted, 2 loaded; NULL when all loaded */
  int64_t n_blocks;     /* units: a checksum block of a raw page, a frame's raw bytes of a framed one */
  int unit_shift;       /* log2 of a unit's bytes (units are powers of two: a shift, not a division per row) */
  uint8_t *io;          /* framed: the page's stored bytes, where loaded */
  void **zstd;          /* framed: the scratch's decompression contexts, one per worker */
  qv_buffer *jobs;      /* framed: the scratch's list of frames to decompress */
  qv_io_counters *counters;
  qv_bytes *shared;     /* a plain page loaded whole: raw's own buffer, which the decoded
                           array's buffers share (qv_bytes_view) instead of copying it */
} qvs_view;

/* Per-column scratch a reader keeps so that pages reuse memory. */
typedef struct qvs_scratch {
  qv_buffer io;    /* stored bytes of a compressed page */
  qv_buffer raw;   /* decoded page bytes */
  qv_buffer state; /* block states */
  qv_buffer jobs;  /* frames to decompress (int64 frame, stored offset pairs) */
  void *zstd[QV_POOL_MAX]; /* ZSTD_DCtx per worker (base/pool.h), created on first use */
} qvs_scratch;

void qvs_scratch_reset(qvs_scratch *s);
/* Loads the whole page (reads, verifies every block, decompresses).  A
 * plain page goes into a buffer of its own (out->shared), not the scratch;
 * qvs_view_release drops the view's reference once it is decoded. */
qv_status qvs_view_full(qvs_datafile *df, int32_t col, int32_t page, qvs_scratch *s, qv_io_counters *ctr,
                        qvs_view *out, qv_error *err);
static inline void qvs_view_release(qvs_view *v) {
  qv_bytes_release(v->shared);
  v->shared = NULL;
}
/* Prepares a page for partial loading (raw and framed pages; any other
 * page is loaded whole). */
qv_status qvs_view_partial(qvs_datafile *df, int32_t col, int32_t page, qvs_scratch *s, qv_io_counters *ctr,
                           qvs_view *out, qv_error *err);
/* Marks bytes [off, off+len) of buffer b as needed (within its length). */
static inline void qvs_view_want(qvs_view *v, int32_t b, int64_t off, int64_t len) {
  if (!v->state || len <= 0) return;
  int64_t start = v->pg->buffers[b].offset + off;
  int64_t first = start >> v->unit_shift, last = (start + len - 1) >> v->unit_shift;
  for (int64_t k = first; k <= last; k++)
    if (v->state[k] == 0) v->state[k] = 1;
}
/* Reads and verifies every wanted block not yet loaded. */
qv_status qvs_view_fetch(qvs_view *v, qv_error *err);
static inline const uint8_t *qvs_view_buf(const qvs_view *v, int32_t b) {
  return v->raw + v->pg->buffers[b].offset;
}
static inline int64_t qvs_view_len(const qvs_view *v, int32_t b) { return v->pg->buffers[b].length; }
/* "data/x.qvf: column `c` page 3: " style error. */
qv_status qvs_page_error(const qvs_datafile *df, int32_t col, int32_t page, qv_status code, qv_error *err,
                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* ---- compression (compress.c) --------------------------------------------- */

/* Compresses src with codec (ZSTD or LZ4) into dst (emptied first);
 * *zstd_ctx caches a ZSTD_CCtx between calls (free with qvs_compress_free). */
qv_status qvs_compress(int codec, int level, void **zstd_ctx, const uint8_t *src, int64_t n, qv_buffer *dst,
                       qv_error *err);
void qvs_compress_free(void *zstd_ctx);
void qvs_decompress_free(void *zstd_ctx);
/* Decompresses exactly raw_len bytes; anything else is corruption. */
qv_status qvs_decompress(int codec, void **zstd_ctx, const uint8_t *src, int64_t n, uint8_t *dst,
                         int64_t raw_len, qv_error *err);
/* The content size a zstd frame declares, or -1 when it declares none. */
int64_t qvs_zstd_frame_size(const uint8_t *src, int64_t n);
/* Largest raw_len a stored page of n bytes could honestly decode to. */
int64_t qvs_decompress_bound(int codec, int64_t n);

/* ---- building arrays (gather.c) ------------------------------------------- */

/* Accumulates rows of a flat column (not list/struct/fixed_size_list) into
 * new buffers: the output of take, of reads across pages, and the writer's
 * pages that span batches. */
typedef struct qvs_acc {
  const qv_datatype *type;
  int width; /* bytes per value; 0 bool; -1 string/binary; -2 null */
  int64_t cap, pos, null_count;
  qv_bytes *validity; /* allocated on the first null, bits before it set */
  qv_bytes *values;   /* values, bits, or int32 offsets (cap + 1) */
  qv_buffer data;     /* string bytes */
} qvs_acc;

qv_status qvs_acc_init(qvs_acc *acc, const qv_datatype *type, int64_t cap, qv_error *err);
void qvs_acc_reset(qvs_acc *acc);
/* Appends a null (validity allocated on demand); values left zero. */
qv_status qvs_acc_null(qvs_acc *acc, qv_error *err);
/* Appends rows rows[0..n) of a (NULL rows: the range [start, start+n)). */
qv_status qvs_acc_append(qvs_acc *acc, const qv_array *a, const uint32_t *rows, int64_t start, int64_t n,
                         qv_error *err);
/* Appends string bytes (the slot is valid). */
qv_status qvs_acc_bytes(qvs_acc *acc, const uint8_t *p, int64_t len, qv_error *err);
/* Appends the len string bytes already written at data.data + data.size
 * (into room qvs_acc_reserve_bytes made). */
void qvs_acc_bytes_written(qvs_acc *acc, int64_t len);
/* Room for n more string bytes, not zeroed (they are about to be written). */
qv_status qvs_acc_reserve_bytes(qvs_acc *acc, int64_t n, qv_error *err);
qv_status qvs_acc_finish(qvs_acc *acc, qv_array **out, qv_error *err);
static inline bool qvs_is_nested(qv_type_id id) {
  return id == QV_TYPE_LIST || id == QV_TYPE_STRUCT || id == QV_TYPE_FIXED_SIZE_LIST;
}
/* ---- encodings ------------------------------------------------------------- */

/* A page being built by the writer. */
typedef struct qvs_page_out {
  qv_buffer raw;  /* buffers, each starting at a multiple of 8 */
  qv_buffer bufs; /* qvs_buf entries */
  int32_t n_buffers;
  uint8_t encoding;
  uint8_t bit_width;
  uint64_t reference;
  int64_t dict_count;
} qvs_page_out;

/* qv_buffer_append_zeros that is a no-op for n == 0 (the base version
 * passes a NULL pointer to memset for an empty buffer). */
static inline qv_status qvs_zeros(qv_buffer *b, int64_t n) { return n > 0 ? qv_buffer_append_zeros(b, n) : QV_OK; }

void qvs_page_out_clear(qvs_page_out *po);
void qvs_page_out_reset(qvs_page_out *po);
/* Starts a new buffer in the page (8-aligned) and returns where it starts. */
qv_status qvs_page_begin_buffer(qvs_page_out *po, int64_t *start);
qv_status qvs_page_end_buffer(qvs_page_out *po, int64_t start);
/* Appends a whole buffer. */
qv_status qvs_page_add_buffer(qvs_page_out *po, const void *p, int64_t n);
/* The validity bits of rows [start, start+n) of a (empty when no nulls). */
qv_status qvs_page_add_validity(qvs_page_out *po, const qv_array *a, int64_t start, int64_t n, bool any_nulls);

/* plain (encoding_plain.c): every type; nested ones as preorder buffers. */
qv_status qvs_encode_plain(const qv_array *a, int64_t start, int64_t n, int64_t null_count, qvs_page_out *po,
                           qv_error *err);
/* Decodes a whole plain page. */
qv_status qvs_decode_plain(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err);
/* Appends rows[0..n) (page-relative) of a raw plain flat page. */
qv_status qvs_take_plain(qvs_view *v, const qv_datatype *type, const uint32_t *rows, int64_t n, qvs_acc *acc,
                         qv_error *err);

/* dictionary (encoding_dict.c): *used false when the page does not qualify. */
typedef struct qvs_dict_scratch {
  uint32_t *slots; /* hash table of entry index + 1 */
  int64_t n_slots;
  uint32_t *codes; /* per row */
  int64_t codes_cap;
  int32_t *entries; /* row of each entry's first occurrence */
} qvs_dict_scratch;
void qvs_dict_scratch_reset(qvs_dict_scratch *s);
qv_status qvs_encode_dict(const qv_array *a, int64_t start, int64_t n, int64_t null_count, qvs_dict_scratch *s,
                          qvs_page_out *po, bool *used, qv_error *err);
qv_status qvs_decode_dict(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err);
/* The same page as a dictionary array (int32 indices into its entries). */
qv_status qvs_decode_dict_encoded(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err);
qv_status qvs_take_dict(qvs_view *v, const qv_datatype *type, const uint32_t *rows, int64_t n, qvs_acc *acc,
                        qv_error *err);

/* bit-packed frame of reference (encoding_bitpack.c). */
int qvs_bits_needed(uint64_t range);
static inline int64_t qvs_packed_len(int64_t n, int w) { return (n * w + 7) / 8 + QVS_PACK_PAD; }
/* Packs n values (already minus the reference) of w bits. */
void qvs_pack(const uint64_t *vals, int64_t n, int w, uint8_t *out);
static inline uint64_t qvs_unpack_one(const uint8_t *packed, int w, int64_t i) {
  int64_t bit = i * w;
  uint64_t word = qv_load_u64le(packed + (bit >> 3));
  return w == 0 ? 0 : (word >> (bit & 7)) & (w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1);
}
/* Unpacks values 0..n-1 of w bits (w <= QVS_MAX_BITS, w < 8 * bw) into dst
 * as ref + value, bw (1, 2, 4 or 8) bytes each. */
void qvs_unpack(const uint8_t *packed, int w, uint64_t ref, int64_t n, void *dst, int bw);
qv_status qvs_encode_bitpack(const qv_array *a, int64_t start, int64_t n, int64_t null_count,
                             const qvs_stats *st, qvs_page_out *po, bool *used, qv_error *err);
qv_status qvs_decode_bitpack(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err);
qv_status qvs_take_bitpack(qvs_view *v, const qv_datatype *type, const uint32_t *rows, int64_t n, qvs_acc *acc,
                           qv_error *err);

/* FSST (fsst.c: the codec; encoding_fsst.c: the page encoding).  A value
 * is a run of codes: c < n stands for symbol c, QVS_FSST_ESCAPE for the
 * byte after it. */
#define QVS_FSST_SYMBOLS 255
#define QVS_FSST_ESCAPE 255
typedef struct qvs_fsst_match {
  uint64_t sym, mask; /* the symbol's bytes and a mask of its length */
  uint8_t len, code;
} qvs_fsst_match;
typedef struct qvs_fsst_table {
  int32_t n;
  uint64_t sym[256];            /* symbol c's bytes, little-endian, zero above len[c] */
  uint8_t len[256];             /* 1..8; 0 for codes the table lacks (and the escape) */
  uint16_t first[257];          /* encoder: by_first[first[b] .. first[b+1]) start with byte b, */
  qvs_fsst_match by_first[256]; /* ... longest first */
} qvs_fsst_table;
typedef struct qvs_fsst_scratch {
  uint32_t *pair_count;  /* 512 x 512 counts of adjacent symbol ids, zero between uses */
  uint32_t *touched;     /* the pairs counted in this generation */
  const uint8_t **spans; /* the sample: [start, end) pointer pairs */
  void *cand;            /* the candidates' hash set */
  uint32_t *cand_used;   /* its slots in use, */
  int32_t n_used;        /* ... how many */
  int64_t sample_bytes, sample_coded; /* the last build's sample, and its codes with the table built */
} qvs_fsst_scratch;
void qvs_fsst_scratch_reset(qvs_fsst_scratch *s);
/* A table for the n values off[0..n] into chars (rows whose validity bit,
 * at vbit + i, is clear are left out; validity may be NULL). */
qv_status qvs_fsst_build(qvs_fsst_scratch *s, const uint8_t *chars, const int32_t *off, const uint8_t *validity,
                         int64_t vbit, int64_t n, qvs_fsst_table *t, qv_error *err);
/* Encodes len bytes into out (room for 2 * len); returns the codes' length. */
int64_t qvs_fsst_encode(const qvs_fsst_table *t, const uint8_t *in, int64_t len, uint8_t *out);
/* The table on disk: 8 bytes per symbol (little-endian), then 1 length
 * byte per symbol (9 * n bytes in all). */
void qvs_fsst_store(const qvs_fsst_table *t, uint8_t *out);
/* Loads n symbols stored as above; false when n > 255 or a length is not
 * 1..8.  Fills the decoder's fields only (sym, len, n). */
bool qvs_fsst_load(qvs_fsst_table *t, const uint8_t *buf, int64_t n);
/* Bytes the codes [p, end) decode to; -1 when one is not in the table or
 * the run ends in an escape. */
int64_t qvs_fsst_decoded_len(const qvs_fsst_table *t, const uint8_t *p, const uint8_t *end);
/* Decodes the codes [p, end) into out, which needs 8 * (end - p) bytes of
 * room (a symbol is stored as a word); returns the end of what it wrote,
 * or NULL where qvs_fsst_decoded_len returns -1. */
uint8_t *qvs_fsst_decode(const qvs_fsst_table *t, const uint8_t *p, const uint8_t *end, uint8_t *out);
/* Decodes n rows whose codes are [co[i], co[i+1]) of codes (co: n + 1
 * u32 LE offsets, already checked to run from 0 without decreasing) into
 * out, their ends into o[0..n] (o[0] = 0); out needs 8 * co[n] bytes of
 * room and the result fits int32 offsets.  Returns -1, or the first row
 * whose codes do not decode (as qvs_fsst_decoded_len's -1). */
int64_t qvs_fsst_decode_rows(const qvs_fsst_table *t, const uint8_t *codes, const uint8_t *co, int64_t n,
                             uint8_t *out, int32_t *o);
/* *used false (po untouched) when the table saves less than an eighth of
 * its own sample: the page would not be kept, so it is not encoded. */
qv_status qvs_encode_fsst(const qv_array *a, int64_t start, int64_t n, int64_t null_count, qvs_fsst_scratch *s,
                          qvs_page_out *po, bool *used, qv_error *err);
qv_status qvs_decode_fsst(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err);
qv_status qvs_take_fsst(qvs_view *v, const qv_datatype *type, const uint32_t *rows, int64_t n, qvs_acc *acc,
                        qv_error *err);

/* Validity of a page being decoded whole: a fresh copy of the bits (NULL
 * when the page has none) after checking their count of nulls. */
qv_status qvs_decode_validity(const qvs_view *v, int32_t b, int64_t n, int64_t expect_nulls, qv_bytes **out,
                              int64_t *nulls, qv_error *err);

/* ---- data file writer (datafile_write.c) ----------------------------------- */

typedef struct qvs_file_writer qvs_file_writer;

/* Creates data/<random hex>.qvf under the dataset at path. */
qv_status qvs_file_writer_open(const char *path, const qv_schema *schema, const qv_write_options *opts,
                               qvs_file_writer **out, qv_error *err);
/* Encodes rows [start, start+n) of column col's array as its next page. */
qv_status qvs_file_writer_page(qvs_file_writer *w, int32_t col, const qv_array *a, int64_t start, int64_t n,
                               qv_error *err);
/* Writes the footer and fsyncs; the file is complete. */
qv_status qvs_file_writer_finish(qvs_file_writer *w, qv_error *err);
const char *qvs_file_writer_name(const qvs_file_writer *w); /* "data/<hex>.qvf" */
int64_t qvs_file_writer_rows(const qvs_file_writer *w);
/* Closes; removes the file unless keep (a finished file being published). */
void qvs_file_writer_destroy(qvs_file_writer *w, bool keep);

#endif
