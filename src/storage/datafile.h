/* Data files (.qvf): the footer's pages and columns, opening and
 * validating a file, loading a page's bytes (page_view.c), and the writer
 * (datafile_write.c). */
#ifndef QUIVER_STORAGE_DATAFILE_H
#define QUIVER_STORAGE_DATAFILE_H

#include <stdatomic.h>

#include "base/pool.h"
#include "storage/page_stats.h"

#include "quiver/storage.h"

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
  qvs_buf *buffers;      /* into the column's buffer pool */
  int64_t block;         /* not framed: bytes per checksum block (the file's block_size) */
  const uint8_t *crcs;   /* u32 LE crc32c, into the footer bytes: one per `block` of the stored
                              bytes, or (frame_crcs) one per frame, over its stored bytes */
  bool framed;           /* compressed in frames of `frame` raw bytes */
  bool frame_crcs;       /* framed, version 3+: crcs has one checksum per frame */
  int64_t frame;         /* framed: raw bytes per frame (the file's frame_size) */
  const uint8_t *frames; /* framed: ceil(raw_len / frame) u32 LE stored lengths, into the footer */
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
  uint32_t version;   /* the file's format version (1; 2 with framed pages; 3 with frame checksums) */
  int64_t frame_size; /* version 2 and later: raw bytes per frame of its framed pages */
  int64_t block_size; /* bytes per checksum block of raw pages (version 4: in the footer; else 4096) */
  int32_t page_rows;  /* as written (informational) */
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
  uint8_t *raw;     /* raw_len (+ padding) bytes; valid where loaded */
  uint8_t *state;   /* per unit: 0 untouched, 1 wanted, 2 loaded; NULL when all loaded */
  int64_t n_blocks; /* units: a checksum block of a raw page, a frame's raw bytes of a framed one */
  int unit_shift;   /* log2 of a unit's bytes (units are powers of two: a shift, not a division per row) */
  uint8_t *io;      /* framed: the page's stored bytes, where loaded */
  void **zstd;      /* framed: the scratch's decompression contexts, one per worker */
  qv_buffer *jobs;  /* framed: the scratch's list of frames to decompress */
  qv_io_counters *counters;
  qv_bytes *shared; /* a plain page loaded whole: raw's own buffer, which the decoded
                           array's buffers share (qv_bytes_view) instead of copying it */
} qvs_view;

/* Per-column scratch a reader keeps so that pages reuse memory. */
typedef struct qvs_scratch {
  qv_buffer io;            /* stored bytes of a compressed page */
  qv_buffer raw;           /* decoded page bytes */
  qv_buffer state;         /* block states */
  qv_buffer jobs;          /* frames to decompress (int64 frame, stored offset pairs) */
  void *zstd[QV_POOL_MAX]; /* ZSTD_DCtx per worker (base/pool.h), created on first use */
} qvs_scratch;

void qvs_scratch_reset(qvs_scratch *s);
/* Loads the whole page (reads, verifies every block, decompresses).  A
 * plain page goes into a buffer of its own (out->shared), not the scratch;
 * qvs_view_release drops the view's reference once it is decoded. */
qv_status qvs_view_full(qvs_datafile *df, int32_t col, int32_t page, qvs_scratch *s, qv_io_counters *ctr, qvs_view *out,
                        qv_error *err);
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
static inline const uint8_t *qvs_view_buf(const qvs_view *v, int32_t b) { return v->raw + v->pg->buffers[b].offset; }
static inline int64_t qvs_view_len(const qvs_view *v, int32_t b) { return v->pg->buffers[b].length; }
/* "data/x.qvf: column `c` page 3: " style error. */
qv_status qvs_page_error(const qvs_datafile *df, int32_t col, int32_t page, qv_status code, qv_error *err,
                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

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
int64_t qvs_file_writer_bytes(const qvs_file_writer *w); /* written so far */
/* Closes; removes the file unless keep (a finished file being published). */
void qvs_file_writer_destroy(qvs_file_writer *w, bool keep);

#endif
