/* Loading a page's bytes.  Stored bytes are checksummed per 4096-byte
 * block (CRC32C table in the footer), so a raw page can be read block by
 * block: a take of a few rows reads and verifies only the blocks holding
 * them, while a full read verifies every block.  A framed page (compressed
 * in frames of the file's frame size) is read frame by frame the same way: a
 * take reads, verifies and decompresses only the frames holding its rows.
 * Other compressed pages (version 1 files) are read whole. */
#include <stdarg.h>
#include <stdio.h>

#include "storage/storage_int.h"

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
  if (s->zstd) qvs_decompress_free(s->zstd);
  s->zstd = NULL;
}

/* Scratch of at least n + QVS_SLACK bytes; old contents are not kept and
 * new memory is not zeroed (it is about to be overwritten). */
static qv_status grow(qv_buffer *b, int64_t n, qv_error *err) {
  b->size = 0;
  if (b->capacity >= n + QVS_SLACK) return QV_OK;
  qv_free(b->data);
  b->capacity = 0;
  int64_t cap = (n + QVS_SLACK + 63) & ~(int64_t)63;
  if (!(b->data = qv_malloc((size_t)cap))) return qv_error_set(err, QV_ERR_NOMEM, "out of memory");
  b->capacity = cap;
  return QV_OK;
}

/* Verifies blocks [first, last] of the page's stored bytes held at buf
 * (which starts at block `first`). */
static qv_status verify_blocks(const qvs_datafile *df, int32_t col, int32_t page, const qvs_page *pg,
                               const uint8_t *buf, int64_t first, int64_t last, qv_error *err) {
  for (int64_t k = first; k <= last; k++) {
    int64_t start = k * QVS_BLOCK;
    int64_t len = pg->stored_len - start < QVS_BLOCK ? pg->stored_len - start : QVS_BLOCK;
    uint32_t got = qv_crc32c(0, buf + (k - first) * QVS_BLOCK, (size_t)len);
    if (got != qv_load_u32le(pg->crcs + 4 * k) && qvs_verify_checksums)
      return qvs_page_error(df, col, page, QV_ERR_CORRUPT, err, "checksum mismatch at byte offset %lld",
                            (long long)(pg->offset + start));
  }
  return QV_OK;
}

static int64_t n_blocks(const qvs_page *pg) { return (pg->stored_len + QVS_BLOCK - 1) / QVS_BLOCK; }

/* Raw bytes of frame k of a framed page. */
static int64_t frame_raw(const qvs_page *pg, int64_t k) {
  return pg->raw_len - k * pg->frame < pg->frame ? pg->raw_len - k * pg->frame : pg->frame;
}

/* Decompresses frame k (stored bytes src, n) into its place in raw. */
static qv_status decompress_frame(const qvs_page *pg, int64_t k, void **zstd, const uint8_t *src, int64_t n,
                                  uint8_t *raw, qv_error *err) {
  return qvs_decompress(pg->compression, zstd, src, n, raw + k * pg->frame, frame_raw(pg, k), err);
}

qv_status qvs_view_full(qvs_datafile *df, int32_t col, int32_t page, qvs_scratch *s, qv_io_counters *ctr,
                        qvs_view *out, qv_error *err) {
  const qvs_page *pg = &df->columns[col].pages[page];
  memset(out, 0, sizeof *out);
  out->df = df;
  out->col = col;
  out->page = page;
  out->pg = pg;
  out->counters = ctr;
  bool raw = pg->compression == QV_COMPRESSION_NONE;
  qv_buffer *io = raw ? &s->raw : &s->io;
  QV_RETURN_NOT_OK(grow(io, pg->stored_len, err));
  QV_RETURN_NOT_OK(qvs_pread_full(df->fd, io->data, pg->stored_len, pg->offset, df->name, err));
  if (ctr) {
    ctr->bytes_read += pg->stored_len;
    ctr->pages_read++;
  }
  if (pg->stored_len) QV_RETURN_NOT_OK(verify_blocks(df, col, page, pg, io->data, 0, n_blocks(pg) - 1, err));
  if (!raw) {
    /* the frame's own claim must agree before we size memory by raw_len */
    if (pg->compression == QV_COMPRESSION_ZSTD && !pg->framed) {
      int64_t declared = qvs_zstd_frame_size(io->data, pg->stored_len);
      if (declared >= 0 && declared != pg->raw_len)
        return qvs_page_error(df, col, page, QV_ERR_CORRUPT, err, "zstd frame holds %lld bytes, the footer says %lld",
                              (long long)declared, (long long)pg->raw_len);
    }
    QV_RETURN_NOT_OK(grow(&s->raw, pg->raw_len, err));
    qv_status st = QV_OK;
    if (pg->framed) {
      int64_t so = 0;
      for (int64_t k = 0; st == QV_OK && k * pg->frame < pg->raw_len; k++) {
        int64_t len = qv_load_u32le(pg->frames + 4 * k);
        st = decompress_frame(pg, k, &s->zstd, s->io.data + so, len, s->raw.data, err);
        so += len;
      }
    } else {
      st = qvs_decompress(pg->compression, &s->zstd, s->io.data, pg->stored_len, s->raw.data, pg->raw_len, err);
    }
    if (st != QV_OK)
      return qv_error_prefix(err, st, "%s: column `%s` page %d", df->name, df->columns[col].field.name, page);
  }
  memset(s->raw.data + pg->raw_len, 0, QVS_SLACK);
  if (ctr) ctr->bytes_decoded += pg->raw_len;
  out->raw = s->raw.data;
  return QV_OK;
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
  out->unit = pg->framed ? pg->frame : QVS_BLOCK;
  out->n_blocks = pg->framed ? (pg->raw_len + pg->frame - 1) / pg->frame : n_blocks(pg);
  QV_RETURN_NOT_OK(grow(&s->raw, pg->raw_len, err));
  QV_RETURN_NOT_OK(grow(&s->state, out->n_blocks, err));
  if (pg->framed) {
    QV_RETURN_NOT_OK(grow(&s->io, pg->stored_len, err));
    out->io = s->io.data;
    out->zstd = &s->zstd;
  }
  memset(s->state.data, 0, (size_t)out->n_blocks);
  memset(s->raw.data + pg->raw_len, 0, QVS_SLACK);
  out->raw = s->raw.data;
  out->state = s->state.data;
  if (ctr) ctr->pages_read++;
  return QV_OK;
}

/* Loads the wanted frames of a framed page: each run of them is one read of
 * the checksum blocks it spans, verified, then decompressed frame by frame. */
static qv_status fetch_frames(qvs_view *v, qv_error *err) {
  const qvs_page *pg = v->pg;
  int64_t k = 0, so = 0; /* frame k's stored bytes start at so */
  while (k < v->n_blocks) {
    if (v->state[k] != 1) {
      so += qv_load_u32le(pg->frames + 4 * k);
      k++;
      continue;
    }
    int64_t first = k, start = so;
    while (k < v->n_blocks && v->state[k] == 1) so += qv_load_u32le(pg->frames + 4 * k++);
    int64_t b0 = start / QVS_BLOCK, b1 = (so - 1) / QVS_BLOCK;
    int64_t lo = b0 * QVS_BLOCK, hi = (b1 + 1) * QVS_BLOCK < pg->stored_len ? (b1 + 1) * QVS_BLOCK : pg->stored_len;
    QV_RETURN_NOT_OK(qvs_pread_full(v->df->fd, v->io + lo, hi - lo, pg->offset + lo, v->df->name, err));
    QV_RETURN_NOT_OK(verify_blocks(v->df, v->col, v->page, pg, v->io + lo, b0, b1, err));
    int64_t at = start;
    for (int64_t f = first; f < k; f++) {
      int64_t len = qv_load_u32le(pg->frames + 4 * f);
      qv_status st = decompress_frame(pg, f, v->zstd, v->io + at, len, v->raw, err);
      if (st != QV_OK)
        return qv_error_prefix(err, st, "%s: column `%s` page %d", v->df->name, v->df->columns[v->col].field.name,
                               v->page);
      at += len;
      if (v->counters) v->counters->bytes_decoded += frame_raw(pg, f);
    }
    memset(v->state + first, 2, (size_t)(k - first));
    if (v->counters) v->counters->bytes_read += hi - lo;
  }
  return QV_OK;
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
    int64_t first = k;
    while (k < v->n_blocks && v->state[k] == 1) k++;
    int64_t last = k - 1;
    int64_t start = first * QVS_BLOCK;
    int64_t end = (last + 1) * QVS_BLOCK < pg->stored_len ? (last + 1) * QVS_BLOCK : pg->stored_len;
    QV_RETURN_NOT_OK(qvs_pread_full(v->df->fd, v->raw + start, end - start, pg->offset + start, v->df->name, err));
    QV_RETURN_NOT_OK(verify_blocks(v->df, v->col, v->page, pg, v->raw + start, first, last, err));
    memset(v->state + first, 2, (size_t)(last - first + 1));
    if (v->counters) {
      v->counters->bytes_read += end - start;
      v->counters->bytes_decoded += end - start;
    }
  }
  return QV_OK;
}
