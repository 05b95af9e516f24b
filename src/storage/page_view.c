/* Loading a page's bytes.  A raw page's stored bytes are checksummed per
 * block of the file's block size (1 KiB from format version 4, 4 KiB
 * before; CRC32C table in the footer), so it can be read block by block:
 * a take of a few rows verifies only the blocks holding them (reading
 * blocks a few KiB apart together, see COALESCE_GAP_BYTES), while a full
 * read verifies every block.  A framed page (compressed
 * in frames of the file's frame size) is read frame by frame: a take reads,
 * verifies and decompresses only the frames holding its rows.  Since format
 * version 3 each frame has its own checksum, so that read is exactly the
 * frames' stored bytes (a frame of 256-byte values that compresses 20x is
 * a few hundred bytes); version 2 checksummed a framed page by block too,
 * and its takes read the blocks spanning the frames.  Other compressed
 * pages (version 1 files) are read whole.
 *
 * Checksums and frames are independent of each other, so a large read
 * verifies its blocks and decompresses its frames on the worker pool
 * (base/pool.h).  A failure found there is found again on this thread, in
 * order, to report the first one with its message: the error a scan
 * returns does not depend on which thread saw it. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/pool.h"
#include "base/wire.h"
#include "storage/compress.h"
#include "storage/datafile.h"
#include "storage/format.h"

qv_status qvs_page_error(const qvs_datafile *df, int32_t col, int32_t page, qv_status code, qv_error *err,
                         const char *fmt, ...) {
  char what[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return qv_error_set(err, code, "%s: column `%s` page %d: %s", df->name, df->columns[col].field.name, page, what);
}

void qvs_scratch_reset(qvs_scratch *s) {
  qv_buffer_reset(&s->io);
  qv_buffer_reset(&s->raw);
  qv_buffer_reset(&s->state);
  qv_buffer_reset(&s->jobs);
  for (int w = 0; w < QV_POOL_MAX; w++) {
    if (s->zstd[w]) qvs_decompress_free(s->zstd[w]);
    s->zstd[w] = NULL;
  }
}

/* Scratch of at least n + QVS_SLACK bytes; old contents are not kept and
 * new memory is not zeroed (it is about to be overwritten). */
static qv_status grow(qv_buffer *b, int64_t n, qv_error *err) {
  b->size = 0;
  if (b->capacity >= n + QVS_SLACK) return QV_OK;
  qv_free(b->data);
  b->capacity = 0;
  int64_t cap = (n + QVS_SLACK + 63) & ~(int64_t)63;
  if (!(b->data = qv_malloc((size_t)cap))) return qv_error_nomem(err, NULL);
  b->capacity = cap;
  return QV_OK;
}

/* Where checksum block k of the page ends (the last one is shorter). */
static int64_t block_end(const qvs_page *pg, int64_t k) {
  return (k + 1) * pg->block < pg->stored_len ? (k + 1) * pg->block : pg->stored_len;
}

/* Whether block k's bytes, held at buf (which starts at block `first`),
 * match its checksum. */
static bool block_ok(const qvs_page *pg, const uint8_t *buf, int64_t first, int64_t k) {
  int64_t start = k * pg->block;
  return qv_crc32c(0, buf + (start - first * pg->block), (size_t)(block_end(pg, k) - start)) ==
         qv_load_u32le(pg->crcs + 4 * k);
}

/* Verifies blocks [first, last] of the page's stored bytes held at buf
 * (which starts at block `first`). */
static qv_status verify_blocks_serial(const qvs_datafile *df, int32_t col, int32_t page, const qvs_page *pg,
                                      const uint8_t *buf, int64_t first, int64_t last, qv_error *err) {
  for (int64_t k = first; k <= last; k++)
    if (!block_ok(pg, buf, first, k) && qvs_verify_checksums)
      return qvs_page_error(df, col, page, QV_ERR_CORRUPT, err, "checksum mismatch at byte offset %lld",
                            (long long)(pg->offset + k * pg->block));
  return QV_OK;
}

/* Parallel work is worth waking threads for from about this many bytes. */
#define PARALLEL_BYTES (256 * 1024)
#define TASK_BYTES (256 * 1024) /* stored bytes verified per task */

/* Lowers *bad to task: the first failing task wins, whichever ran first. */
static void note_failure(atomic_int_fast64_t *bad, int64_t task) {
  int_fast64_t seen = atomic_load(bad);
  while (task < seen && !atomic_compare_exchange_weak(bad, &seen, task)) {}
}

static int64_t blocks_per_task(const qvs_page *pg) { return pg->block < TASK_BYTES ? TASK_BYTES / pg->block : 1; }

typedef struct verify_job {
  const qvs_page *pg;
  const uint8_t *buf;
  int64_t first, last;
  atomic_int_fast64_t bad; /* the first failing task (INT64_MAX: none) */
} verify_job;

static void verify_task(void *ctx, int64_t task, int worker) {
  (void)worker;
  verify_job *j = ctx;
  int64_t per = blocks_per_task(j->pg);
  int64_t a = j->first + task * per, b = a + per - 1 < j->last ? a + per - 1 : j->last;
  for (int64_t k = a; k <= b; k++)
    if (!block_ok(j->pg, j->buf, j->first, k)) {
      note_failure(&j->bad, task);
      return;
    }
}

static qv_status verify_blocks(const qvs_datafile *df, int32_t col, int32_t page, const qvs_page *pg,
                               const uint8_t *buf, int64_t first, int64_t last, qv_error *err) {
  if ((last - first + 1) * pg->block < PARALLEL_BYTES || !qvs_verify_checksums)
    return verify_blocks_serial(df, col, page, pg, buf, first, last, err);
  verify_job j = {pg, buf, first, last, INT64_MAX};
  int64_t per = blocks_per_task(pg);
  qvb_pool_run((last - first) / per + 1, QV_POOL_MAX, verify_task, &j);
  int64_t bad = atomic_load(&j.bad);
  if (bad == INT64_MAX) return QV_OK;
  int64_t a = first + bad * per;
  return verify_blocks_serial(df, col, page, pg, buf + (a - first) * pg->block, a, last, err);
}

static int64_t n_blocks(const qvs_page *pg) { return (pg->stored_len + pg->block - 1) / pg->block; }

/* Raw bytes of frame k of a framed page. */
static int64_t frame_raw(const qvs_page *pg, int64_t k) {
  return pg->raw_len - k * pg->frame < pg->frame ? pg->raw_len - k * pg->frame : pg->frame;
}

/* Frame k of a framed page, whose stored bytes are src (at offset `at` of
 * the page's): verified against its own checksum (version 3) and
 * decompressed into its place in raw. */
static qv_status load_frame(const qvs_datafile *df, int32_t col, int32_t page, const qvs_page *pg, int64_t k,
                            int64_t at, const uint8_t *src, void **zstd, uint8_t *raw, qv_error *err) {
  int64_t n = qv_load_u32le(pg->frames + 4 * k);
  if (pg->frame_crcs && qvs_verify_checksums && qv_crc32c(0, src, (size_t)n) != qv_load_u32le(pg->crcs + 4 * k))
    return qvs_page_error(df, col, page, QV_ERR_CORRUPT, err, "checksum mismatch at byte offset %lld",
                          (long long)(pg->offset + at));
  qv_status st = qvs_decompress(pg->compression, zstd, src, n, raw + k * pg->frame, frame_raw(pg, k), err);
  if (st != QV_OK)
    return qv_error_prefix(err, st, "%s: column `%s` page %d", df->name, df->columns[col].field.name, page);
  return QV_OK;
}

#define FRAMES_PER_TASK 8 /* 128 KiB of raw bytes at the default frame size */

/* Frames to decompress: pairs (frame number, offset of its stored bytes in
 * io), in page order. */
typedef struct frames_job {
  const qvs_datafile *df;
  int32_t col, page;
  const qvs_page *pg;
  const uint8_t *io;
  const int64_t *list;
  int64_t n;
  uint8_t *raw;
  void **zstd;             /* one context per worker */
  atomic_int_fast64_t bad; /* the first failing task (INT64_MAX: none) */
} frames_job;

static void frames_task(void *ctx, int64_t task, int worker) {
  frames_job *j = ctx;
  int64_t a = task * FRAMES_PER_TASK, b = a + FRAMES_PER_TASK < j->n ? a + FRAMES_PER_TASK : j->n;
  for (int64_t i = a; i < b; i++) {
    int64_t k = j->list[2 * i], at = j->list[2 * i + 1];
    if (load_frame(j->df, j->col, j->page, j->pg, k, at, j->io + at, &j->zstd[worker], j->raw, NULL) != QV_OK) {
      note_failure(&j->bad, task);
      return;
    }
  }
}

/* Verifies (version 3) and decompresses the n frames listed (pairs as in
 * frames_job) into raw, on the pool when they are many. */
static qv_status decompress_frames(const qvs_datafile *df, int32_t col, int32_t page, const qvs_page *pg,
                                   const uint8_t *io, const int64_t *list, int64_t n, uint8_t *raw, void **zstd,
                                   qv_error *err) {
  frames_job j = {df, col, page, pg, io, list, n, raw, zstd, INT64_MAX};
  int64_t tasks = (n + FRAMES_PER_TASK - 1) / FRAMES_PER_TASK;
  if (n * pg->frame < PARALLEL_BYTES)
    for (int64_t t = 0; t < tasks && atomic_load(&j.bad) == INT64_MAX; t++) frames_task(&j, t, 0);
  else qvb_pool_run(tasks, QV_POOL_MAX, frames_task, &j);
  int64_t bad = atomic_load(&j.bad);
  for (int64_t i = bad == INT64_MAX ? n : bad * FRAMES_PER_TASK; i < n; i++) {
    int64_t at = list[2 * i + 1];
    QV_RETURN_NOT_OK(load_frame(df, col, page, pg, list[2 * i], at, io + at, &zstd[0], raw, err));
  }
  return QV_OK;
}

/* Room for n (frame, offset) pairs in the scratch's job list. */
static int64_t *job_list(qv_buffer *jobs, int64_t n, qv_error *err) {
  int64_t bytes = (n > 0 ? n : 1) * 2 * (int64_t)sizeof(int64_t);
  if (jobs->capacity < bytes) {
    qv_free(jobs->data);
    jobs->capacity = 0;
    if (!(jobs->data = qv_malloc((size_t)bytes))) {
      qv_error_nomem(err, NULL);
      return NULL;
    }
    jobs->capacity = bytes;
  }
  return (int64_t *)(void *)jobs->data;
}

/* Reads the page's stored bytes into dst and verifies them (its checksum
 * blocks; a whole zstd frame's own size claim), so that nothing is sized
 * by the footer's raw_len before they are known to be sound. */
static qv_status read_stored(qvs_datafile *df, int32_t col, int32_t page, qv_io_counters *ctr, uint8_t *dst,
                             qv_error *err) {
  const qvs_page *pg = &df->columns[col].pages[page];
  QV_RETURN_NOT_OK(qvb_file_pread_full(df->fd, dst, pg->stored_len, pg->offset, df->name, err));
  if (ctr) {
    ctr->bytes_read += pg->stored_len;
    ctr->pages_read++;
  }
  if (pg->stored_len && !pg->frame_crcs)
    QV_RETURN_NOT_OK(verify_blocks(df, col, page, pg, dst, 0, n_blocks(pg) - 1, err));
  if (pg->compression == QV_COMPRESSION_ZSTD && !pg->framed) {
    int64_t declared = qvs_zstd_frame_size(dst, pg->stored_len);
    if (declared >= 0 && declared != pg->raw_len)
      return qvs_page_error(df, col, page, QV_ERR_CORRUPT, err, "zstd frame holds %lld bytes, the footer says %lld",
                            (long long)declared, (long long)pg->raw_len);
  }
  return QV_OK;
}

/* Decompresses the stored bytes io of a compressed page into raw. */
static qv_status decompress_page(qvs_datafile *df, int32_t col, int32_t page, qvs_scratch *s, const uint8_t *io,
                                 uint8_t *raw, qv_error *err) {
  const qvs_page *pg = &df->columns[col].pages[page];
  if (pg->framed) {
    int64_t n = (pg->raw_len + pg->frame - 1) / pg->frame, so = 0;
    int64_t *list = job_list(&s->jobs, n, err);
    if (!list) return QV_ERR_NOMEM;
    for (int64_t k = 0; k < n; k++) {
      list[2 * k] = k;
      list[2 * k + 1] = so;
      so += qv_load_u32le(pg->frames + 4 * k);
    }
    return decompress_frames(df, col, page, pg, io, list, n, raw, s->zstd, err);
  }
  qv_status st = qvs_decompress(pg->compression, &s->zstd[0], io, pg->stored_len, raw, pg->raw_len, err);
  if (st != QV_OK)
    return qv_error_prefix(err, st, "%s: column `%s` page %d", df->name, df->columns[col].field.name, page);
  return QV_OK;
}

/* Where the page's raw bytes go (raw_len + QVS_SLACK bytes).  A plain
 * page's decoded arrays are its bytes, so they get a buffer of their own
 * (out->shared) that the arrays share (decoding copied a full scan's
 * every byte once more: a fifth of a scan of raw pages); other encodings
 * decode into new buffers from the reader's scratch. */
static qv_status raw_target(const qvs_page *pg, qvs_scratch *s, qvs_view *out, qv_error *err) {
  if (pg->encoding != QV_ENCODING_PLAIN) {
    QV_RETURN_NOT_OK(grow(&s->raw, pg->raw_len, err));
    out->raw = s->raw.data;
    return QV_OK;
  }
  if (!(out->shared = qv_bytes_alloc_uninit(pg->raw_len + QVS_SLACK))) return qv_error_nomem(err, NULL);
  out->raw = qv_bytes_mutable(out->shared);
  return QV_OK;
}

static qv_status load_full(qvs_datafile *df, int32_t col, int32_t page, qvs_scratch *s, qv_io_counters *ctr,
                           qvs_view *out, qv_error *err) {
  const qvs_page *pg = out->pg;
  if (pg->compression == QV_COMPRESSION_NONE) { /* raw_len == stored_len: bounded by the file */
    QV_RETURN_NOT_OK(raw_target(pg, s, out, err));
    QV_RETURN_NOT_OK(read_stored(df, col, page, ctr, out->raw, err));
  } else {
    QV_RETURN_NOT_OK(grow(&s->io, pg->stored_len, err));
    QV_RETURN_NOT_OK(read_stored(df, col, page, ctr, s->io.data, err));
    QV_RETURN_NOT_OK(raw_target(pg, s, out, err));
    QV_RETURN_NOT_OK(decompress_page(df, col, page, s, s->io.data, out->raw, err));
  }
  memset(out->raw + pg->raw_len, 0, QVS_SLACK);
  if (ctr) ctr->bytes_decoded += pg->raw_len;
  return QV_OK;
}

qv_status qvs_view_full(qvs_datafile *df, int32_t col, int32_t page, qvs_scratch *s, qv_io_counters *ctr, qvs_view *out,
                        qv_error *err) {
  memset(out, 0, sizeof *out);
  out->df = df;
  out->col = col;
  out->page = page;
  out->pg = &df->columns[col].pages[page];
  out->counters = ctr;
  qv_status st = load_full(df, col, page, s, ctr, out, err);
  if (st != QV_OK) qvs_view_release(out);
  return st;
}

qv_status qvs_view_partial(qvs_datafile *df, int32_t col, int32_t page, qvs_scratch *s, qv_io_counters *ctr,
                           qvs_view *out, qv_error *err) {
  const qvs_page *pg = &df->columns[col].pages[page];
  if (pg->compression != QV_COMPRESSION_NONE && !pg->framed) return qvs_view_full(df, col, page, s, ctr, out, err);
  memset(out, 0, sizeof *out);
  out->df = df;
  out->col = col;
  out->page = page;
  out->pg = pg;
  out->counters = ctr;
  out->unit_shift = __builtin_ctzll((uint64_t)(pg->framed ? pg->frame : pg->block)); /* both powers of two */
  out->n_blocks = pg->framed ? (pg->raw_len + pg->frame - 1) / pg->frame : n_blocks(pg);
  QV_RETURN_NOT_OK(grow(&s->raw, pg->raw_len, err));
  QV_RETURN_NOT_OK(grow(&s->state, out->n_blocks, err));
  if (pg->framed) {
    QV_RETURN_NOT_OK(grow(&s->io, pg->stored_len, err));
    out->io = s->io.data;
    out->zstd = s->zstd;
    out->jobs = &s->jobs;
  }
  memset(s->state.data, 0, (size_t)out->n_blocks);
  memset(s->raw.data + pg->raw_len, 0, QVS_SLACK);
  out->raw = s->raw.data;
  out->state = s->state.data;
  if (ctr) ctr->pages_read++;
  return QV_OK;
}

/* Reads the page's stored bytes [lo, hi) into dst + lo. */
static qv_status read_span(qvs_view *v, uint8_t *dst, int64_t lo, int64_t hi, qv_error *err) {
  if (v->counters) v->counters->bytes_read += hi - lo;
  return qvb_file_pread_full(v->df->fd, dst + lo, hi - lo, v->pg->offset + lo, v->df->name, err);
}

/* Loads the wanted frames of a framed page: each run of them is one read,
 * of its frames' stored bytes (version 3: verified frame by frame as they
 * are decompressed) or of the checksum blocks it spans (version 2:
 * verified here); then all of them are decompressed together (on the pool
 * when they are many).  (Reading nearby runs together was measured: no
 * faster from the page cache, and twice the bytes: between two runs of
 * frames lie whole frames, several KiB each, where blocks, below, are
 * 1 KiB.) */
static qv_status fetch_frames(qvs_view *v, qv_error *err) {
  const qvs_page *pg = v->pg;
  int64_t wanted = 0;
  for (int64_t k = 0; k < v->n_blocks; k++) wanted += v->state[k] == 1;
  if (wanted == 0) return QV_OK;
  int64_t *list = job_list(v->jobs, wanted, err), n = 0;
  if (!list) return QV_ERR_NOMEM;
  int64_t k = 0, so = 0; /* frame k's stored bytes start at so */
  while (k < v->n_blocks) {
    if (v->state[k] != 1) {
      so += qv_load_u32le(pg->frames + 4 * k);
      k++;
      continue;
    }
    int64_t lo = so;
    for (; k < v->n_blocks && v->state[k] == 1; k++) {
      list[2 * n] = k;
      list[2 * n + 1] = so;
      n++;
      so += qv_load_u32le(pg->frames + 4 * k);
    }
    int64_t hi = so;
    if (pg->frame_crcs) {
      QV_RETURN_NOT_OK(read_span(v, v->io, lo, hi, err));
      continue;
    }
    int64_t b0 = lo / pg->block, b1 = (hi - 1) / pg->block;
    lo = b0 * pg->block;
    hi = block_end(pg, b1);
    QV_RETURN_NOT_OK(read_span(v, v->io, lo, hi, err));
    QV_RETURN_NOT_OK(verify_blocks(v->df, v->col, v->page, pg, v->io + lo, b0, b1, err));
  }
  QV_RETURN_NOT_OK(decompress_frames(v->df, v->col, v->page, pg, v->io, list, n, v->raw, v->zstd, err));
  for (int64_t i = 0; i < n; i++) {
    v->state[list[2 * i]] = 2;
    if (v->counters) v->counters->bytes_decoded += frame_raw(pg, list[2 * i]);
  }
  return QV_OK;
}

/* Blocks nobody asked for that one read may span between two wanted runs
 * (as bytes of stored data): a read from the page cache costs a system
 * call, some 0.5 us, about what copying 8 KiB costs, so runs closer than
 * that are read together.  The blocks between stay unloaded (state 0,
 * not verified): only what was asked for is checked and used. */
#define COALESCE_GAP_BYTES 8192

/* The last block of the read that starts at wanted block `first`: the
 * wanted run from there, and later wanted runs while the untouched blocks
 * between are at most the gap (a loaded block ends the read: its verified
 * bytes are not overwritten). */
static int64_t coalesced_end(const qvs_view *v, int64_t first) {
  int64_t gap = COALESCE_GAP_BYTES / v->pg->block, last = first;
  for (int64_t k = last + 1; k < v->n_blocks && k - last - 1 <= gap; k++) {
    if (v->state[k] == 2) break;
    if (v->state[k] == 1) {
      while (k + 1 < v->n_blocks && v->state[k + 1] == 1) k++;
      last = k;
    }
  }
  return last;
}

qv_status qvs_view_fetch(qvs_view *v, qv_error *err) {
  if (!v->state) return QV_OK;
  if (v->pg->framed) return fetch_frames(v, err);
  const qvs_page *pg = v->pg;
  int64_t k = 0;
  while (k < v->n_blocks) {
    if (v->state[k] != 1) {
      k++;
      continue;
    }
    int64_t first = k, last = coalesced_end(v, k);
    int64_t start = first * pg->block;
    QV_RETURN_NOT_OK(read_span(v, v->raw, start, block_end(pg, last), err));
    /* verify and mark each wanted run of the read */
    for (k = first; k <= last;) {
      if (v->state[k] != 1) {
        k++;
        continue;
      }
      int64_t a = k;
      while (k <= last && v->state[k] == 1) k++;
      QV_RETURN_NOT_OK(verify_blocks(v->df, v->col, v->page, pg, v->raw + a * pg->block, a, k - 1, err));
      memset(v->state + a, 2, (size_t)(k - a));
      if (v->counters) v->counters->bytes_decoded += block_end(pg, k - 1) - a * pg->block;
    }
  }
  return QV_OK;
}
