/* Opening a data file: header, trailer and footer are read, checksummed and
 * validated once, so that the decoders can trust every offset, length and
 * count in the page descriptors (see docs/format.md).
 *
 *   "QVF1" u32 format_version | pages ... | footer | u64 footer_len,
 *   u32 crc32c(footer), "QVF1"
 *
 *   footer := u32 format_version, u64 num_rows, u32 page_rows,
 *             [version 2 and later: u32 frame_size],
 *             [version 4: u32 block_size], u32 n_columns,
 *             n_columns x { field, u32 n_pages, n_pages x page }
 *   page   := u64 offset, u64 stored_len, u64 raw_len, u64 row_start,
 *             u32 row_count, u8 encoding, u8 compression, u8 bit_width,
 *             u8 flags (bit 0: min/max present), u64 null_count,
 *             u64 nan_count, u64 reference, u32 dict_count (dictionary entries,
 *             FSST symbols; version 4 adds FSST pages), u32 n_buffers,
 *             n_buffers x { u64 offset, u64 length } (within the raw bytes),
 *             [min, max], [ceil(raw_len / frame_size) x u32 frame length
 *             when framed], then crc32c checksums: version 3+ framed pages
 *             one u32 per frame (over its stored bytes), every other page
 *             ceil(stored_len / block_size) x u32, one per block
 *             (block_size 4096 before version 4) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/wire.h"
#include "storage/compress.h"
#include "storage/datafile.h"
#include "storage/encoding.h"
#include "storage/format.h"
#include "storage/fsst.h"
#include "storage/gather.h"
#include "storage/page_stats.h"
#include "storage/schema_codec.h"

enum { MIN_PAGE_BYTES = 8 * 4 + 4 + 4 + 8 * 3 + 4 + 4, MIN_COLUMN_BYTES = 6 + 4 };

static int32_t node_buffers(const qv_datatype *t, int depth) {
  if (depth > QVS_MAX_DEPTH) return -1;
  switch (t->id) {
    case QV_TYPE_NULL: return 1;
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: return 3;
    case QV_TYPE_LIST: {
      int32_t c = node_buffers(&t->children[0].type, depth + 1);
      return c < 0 ? -1 : 2 + c;
    }
    case QV_TYPE_FIXED_SIZE_LIST: {
      int32_t c = node_buffers(&t->children[0].type, depth + 1);
      return c < 0 ? -1 : 1 + c;
    }
    case QV_TYPE_STRUCT: {
      int64_t sum = 1;
      for (int32_t i = 0; i < t->n_children; i++) {
        int32_t c = node_buffers(&t->children[i].type, depth + 1);
        if (c < 0) return -1;
        sum += c;
        if (sum > 1 << 20) return -1;
      }
      return (int32_t)sum;
    }
    default: return 2;
  }
}

int32_t qvs_layout_buffers(const qv_datatype *t, int encoding) {
  switch (encoding) {
    case QV_ENCODING_PLAIN: return node_buffers(t, 0);
    case QV_ENCODING_DICTIONARY:
    case QV_ENCODING_FSST: return t->id == QV_TYPE_STRING || t->id == QV_TYPE_BINARY ? 4 : -1;
    case QV_ENCODING_BITPACK_FOR: return qv_type_is_integer(t->id) || qv_type_is_temporal(t->id) ? 2 : -1;
    default: return -1;
  }
}

qv_status qvs_check_layout(const qvs_datafile *df, int32_t col, int32_t page, qv_error *err) {
  const qvs_column *c = &df->columns[col];
  const qvs_page *pg = &c->pages[page];
  const qv_datatype *t = &c->field.type;
  int64_t n = pg->row_count;
  const qvs_buf *b = pg->buffers;
#define NEED(cond, ...) \
  if (!(cond)) return qvs_page_error(df, col, page, QV_ERR_CORRUPT, err, __VA_ARGS__)
  if (t->id == QV_TYPE_NULL) {
    NEED(pg->null_count == n && b[0].length == 0, "null column page: %lld nulls of %lld rows, validity %lld bytes",
         (long long)pg->null_count, (long long)n, (long long)b[0].length);
  } else {
    int64_t want = pg->null_count ? qv_bitmap_bytes(n) : 0;
    NEED(b[0].length == want, "validity of %lld bytes for %lld rows with %lld nulls", (long long)b[0].length,
         (long long)n, (long long)pg->null_count);
  }
  switch (pg->encoding) {
    case QV_ENCODING_DICTIONARY: {
      int64_t d = pg->dict_count;
      NEED(d >= 1 && d <= QVS_MAX_DICT && d <= n, "dictionary of %lld entries for %lld rows", (long long)d,
           (long long)n);
      NEED(pg->bit_width == qvs_bits_needed((uint64_t)(d - 1)), "index width %d for %lld entries", pg->bit_width,
           (long long)d);
      NEED(b[1].length == (d + 1) * 4, "dictionary offsets of %lld bytes for %lld entries", (long long)b[1].length,
           (long long)d);
      NEED(b[3].length == qvs_packed_len(n, pg->bit_width), "indices of %lld bytes for %lld rows of %d bits",
           (long long)b[3].length, (long long)n, pg->bit_width);
      return QV_OK;
    }
    case QV_ENCODING_FSST:
      NEED(pg->dict_count <= QVS_FSST_SYMBOLS && pg->bit_width == 0 && pg->reference == 0,
           "FSST page with %lld symbols, bit width %d", (long long)pg->dict_count, pg->bit_width);
      NEED(b[1].length == 9 * pg->dict_count, "FSST symbol table of %lld bytes for %lld symbols",
           (long long)b[1].length, (long long)pg->dict_count);
      NEED(b[2].length == (n + 1) * 4, "code offsets of %lld bytes for %lld rows", (long long)b[2].length,
           (long long)n);
      return QV_OK;
    case QV_ENCODING_BITPACK_FOR:
      NEED(pg->bit_width <= QVS_MAX_BITS && pg->bit_width < 8 * qv_type_byte_width(t->id), "bit width %d",
           pg->bit_width);
      NEED(b[1].length == qvs_packed_len(n, pg->bit_width), "packed values of %lld bytes for %lld rows of %d bits",
           (long long)b[1].length, (long long)n, pg->bit_width);
      return QV_OK;
    default: break;
  }
  NEED(pg->bit_width == 0 && pg->dict_count == 0 && pg->reference == 0, "plain page with encoding parameters");
  int w = qv_type_byte_width(t->id);
  switch (t->id) {
    case QV_TYPE_NULL:
    case QV_TYPE_LIST:
    case QV_TYPE_STRUCT:
    case QV_TYPE_FIXED_SIZE_LIST: return QV_OK; /* nested buffers are checked while decoding */
    case QV_TYPE_BOOL:
      NEED(b[1].length == qv_bitmap_bytes(n), "bool bits of %lld bytes for %lld rows", (long long)b[1].length,
           (long long)n);
      return QV_OK;
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY:
      NEED(b[1].length == (n + 1) * 4, "offsets of %lld bytes for %lld rows", (long long)b[1].length, (long long)n);
      NEED(b[2].length <= INT32_MAX, "%lld string bytes", (long long)b[2].length);
      return QV_OK;
    default:
      NEED(b[1].length == n * w, "values of %lld bytes for %lld rows", (long long)b[1].length, (long long)n);
      return QV_OK;
  }
#undef NEED
}

/* Most raw bytes a page of n rows can have where the layout fixes it
 * (-1: variable-length data).  Bounds memory before decompression. */
static int64_t max_raw_len(const qv_datatype *t, int encoding, int64_t n) {
  int64_t bits = qv_bitmap_bytes(n) + 8, w = qv_type_byte_width(t->id);
  if (encoding == QV_ENCODING_BITPACK_FOR) return bits + qvs_packed_len(n, QVS_MAX_BITS) + 8;
  if (encoding != QV_ENCODING_PLAIN || qvs_is_nested(t->id)) return -1;
  if (t->id == QV_TYPE_NULL) return 8;
  if (t->id == QV_TYPE_BOOL) return 2 * bits;
  return w > 0 ? bits + n * w + 8 : -1;
}

static bool nomem(qvb_cursor *c) {
  if (c->status == QV_OK) c->status = qv_error_nomem(c->err, c->file);
  return false;
}

static bool parse_page(qvb_cursor *c, qvs_datafile *df, qvs_column *col, int32_t pi, int64_t row_start,
                       qvs_buf **pool) {
  qvs_page *pg = &col->pages[pi];
  const qv_datatype *t = &col->field.type;
  uint32_t row_count, dict_count, n_buffers;
  uint8_t flags;
  uint64_t nan_count;
  int64_t data_end = df->footer_offset;
  if (!qvb_wire_get_range(c, QVS_DATA_HEADER, data_end, &pg->offset, "page offset")) return false;
  if (!qvb_wire_get_range(c, 0, data_end - pg->offset, &pg->stored_len, "page stored length")) return false;
  if (!qvb_wire_get_range(c, 0, QVS_MAX_PAGE_BYTES, &pg->raw_len, "page raw length")) return false;
  if (!qvb_wire_get_range(c, row_start, row_start, &pg->row_start, "page first row")) return false;
  if (!qvb_wire_get_u32(c, &row_count, "page row count") || !qvb_wire_get_u8(c, &pg->encoding, "encoding") ||
      !qvb_wire_get_u8(c, &pg->compression, "compression") || !qvb_wire_get_u8(c, &pg->bit_width, "bit width") ||
      !qvb_wire_get_u8(c, &flags, "page flags"))
    return false;
  if (row_count == 0 || row_count > QVS_MAX_PAGE_ROWS)
    return qvb_cursor_fail(c, "column `%s` page %d: %u rows (1..%d allowed)", col->field.name, pi, row_count,
                           QVS_MAX_PAGE_ROWS);
  pg->row_count = row_count;
  if (pg->compression != QV_COMPRESSION_NONE && pg->compression != QV_COMPRESSION_ZSTD &&
      pg->compression != QV_COMPRESSION_LZ4)
    return qvb_cursor_fail(c, "column `%s` page %d: unknown compression %u", col->field.name, pi, pg->compression);
  if (pg->compression == QV_COMPRESSION_NONE ? pg->raw_len != pg->stored_len
                                             : pg->raw_len > qvs_decompress_bound(pg->compression, pg->stored_len))
    return qvb_cursor_fail(c, "column `%s` page %d: raw length %lld does not fit stored length %lld", col->field.name,
                           pi, (long long)pg->raw_len, (long long)pg->stored_len);
  uint8_t known = df->version >= 2 ? (QVS_PAGE_MINMAX | QVS_PAGE_FRAMED) : QVS_PAGE_MINMAX;
  if (flags & ~known) return qvb_cursor_fail(c, "column `%s` page %d: unknown flags 0x%x", col->field.name, pi, flags);
  pg->framed = flags & QVS_PAGE_FRAMED;
  if (pg->framed && (pg->compression == QV_COMPRESSION_NONE || pg->raw_len == 0))
    return qvb_cursor_fail(c, "column `%s` page %d: framed but not compressed", col->field.name, pi);
  if (!qvb_wire_get_range(c, 0, row_count, &pg->null_count, "null count")) return false;
  if (!qvb_wire_get_u64(c, &nan_count, "NaN count")) return false;
  if (nan_count > (uint64_t)(row_count - pg->null_count) || (nan_count && !qv_type_is_floating(t->id)))
    return qvb_cursor_fail(c, "column `%s` page %d: NaN count %llu", col->field.name, pi,
                           (unsigned long long)nan_count);
  pg->nan_count = (int64_t)nan_count;
  if (!qvb_wire_get_u64(c, &pg->reference, "reference") || !qvb_wire_get_u32(c, &dict_count, "dictionary count") ||
      !qvb_wire_get_u32(c, &n_buffers, "buffer count"))
    return false;
  pg->dict_count = dict_count;
  if (pg->encoding == QV_ENCODING_FSST && df->version < 4)
    return qvb_cursor_fail(c, "column `%s` page %d: FSST encoding in a version %u file (it came with version 4)",
                           col->field.name, pi, df->version);
  int32_t expect = qvs_layout_buffers(t, pg->encoding);
  if (expect < 0 || (int64_t)n_buffers != expect)
    return qvb_cursor_fail(c, "column `%s` page %d: encoding %u with %u buffers does not fit the type", col->field.name,
                           pi, pg->encoding, n_buffers);
  int64_t most = max_raw_len(t, pg->encoding, row_count);
  if (most >= 0 && pg->raw_len > most)
    return qvb_cursor_fail(c, "column `%s` page %d: raw length %lld is more than %u rows can need", col->field.name, pi,
                           (long long)pg->raw_len, row_count);
  pg->n_buffers = (int32_t)n_buffers;
  pg->buffers = *pool;
  *pool += n_buffers;
  for (uint32_t b = 0; b < n_buffers; b++) {
    if (!qvb_wire_get_range(c, 0, pg->raw_len, &pg->buffers[b].offset, "buffer offset") ||
        !qvb_wire_get_range(c, 0, pg->raw_len - pg->buffers[b].offset, &pg->buffers[b].length, "buffer length"))
      return false;
    /* the decoders load offsets and values in place: aligned, as written */
    if (pg->buffers[b].offset % 8)
      return qvb_cursor_fail(c, "column `%s` page %d: buffer %u starts at %lld, not a multiple of 8", col->field.name,
                             pi, b, (long long)pg->buffers[b].offset);
  }
  pg->has_minmax = flags & QVS_PAGE_MINMAX;
  if (pg->has_minmax) {
    if (!qvs_type_has_minmax(t->id) || pg->null_count == row_count)
      return qvb_cursor_fail(c, "column `%s` page %d: min/max where there can be none", col->field.name, pi);
    if (!qvs_get_stat_value(c, t->id, &pg->min) || !qvs_get_stat_value(c, t->id, &pg->max)) return false;
  }
  if (pg->framed) {
    /* each frame's stored length: together exactly the stored bytes, and
     * each able to hold its raw bytes */
    int64_t fs = df->frame_size;
    pg->frame = fs;
    int64_t nframes = (pg->raw_len + fs - 1) / fs, sum = 0;
    if (!qvb_wire_get_bytes(c, nframes * 4, &pg->frames, "frame lengths")) return false;
    /* from `enough` stored bytes on, a frame can hold any frame's raw bytes
     * (the bound grows with the length): most frames need no more check */
    int64_t enough = 1;
    while (qvs_decompress_bound(pg->compression, enough) < fs) enough *= 2;
    for (int64_t k = 0; k < nframes; k++) {
      int64_t len = qv_load_u32le(pg->frames + 4 * k);
      int64_t raw = pg->raw_len - k * fs < fs ? pg->raw_len - k * fs : fs;
      if (len < enough && (len == 0 || raw > qvs_decompress_bound(pg->compression, len)))
        return qvb_cursor_fail(c, "column `%s` page %d: frame %lld of %lld stored bytes cannot hold %lld raw bytes",
                               col->field.name, pi, (long long)k, (long long)len, (long long)raw);
      sum += len;
    }
    if (sum != pg->stored_len)
      return qvb_cursor_fail(c, "column `%s` page %d: frames hold %lld bytes, the page %lld", col->field.name, pi,
                             (long long)sum, (long long)pg->stored_len);
  }
  /* version 3 and later checksum each frame of a framed page on its own */
  pg->frame_crcs = pg->framed && df->version >= 3;
  pg->block = df->block_size;
  int64_t ncrcs =
      pg->frame_crcs ? (pg->raw_len + pg->frame - 1) / pg->frame : (pg->stored_len + pg->block - 1) / pg->block;
  return qvb_wire_get_bytes(c, ncrcs * 4, &pg->crcs, "page checksums");
}

static bool parse_column(qvb_cursor *c, qvs_datafile *df, qvs_column *col, int32_t ci) {
  if (!qvs_get_field(c, &col->field, 0)) return false;
  if (!qvs_type_supported(&col->field.type, 0))
    return qvb_cursor_fail(c, "column %d has a type this build cannot read", ci);
  /* The pool holds the most buffers any encoding of the type has per page;
   * a page takes at least MIN_PAGE_BYTES + 16 per buffer of the leanest
   * encoding, so the pool stays proportional to the footer's size. */
  int32_t max_nb = -1, min_nb = INT32_MAX;
  for (int e = QV_ENCODING_PLAIN; e <= QV_ENCODING_FSST; e++) {
    int32_t k = qvs_layout_buffers(&col->field.type, e);
    if (k < 0) continue;
    max_nb = k > max_nb ? k : max_nb;
    min_nb = k < min_nb ? k : min_nb;
  }
  if (max_nb < 0) return qvb_cursor_fail(c, "column `%s` has too many buffers", col->field.name);
  int32_t nb = max_nb;
  int64_t at = c->pos;
  uint32_t n;
  if (!qvb_wire_get_u32(c, &n, "page count")) return false;
  if ((int64_t)n * (MIN_PAGE_BYTES + 16 * (int64_t)min_nb) > c->size - c->pos || n > INT32_MAX) {
    c->pos = at;
    return qvb_cursor_fail(c, "page count %u of column `%s` does not fit the footer", n, col->field.name);
  }
  if (n == 0) return true;
  col->pages = qv_calloc(n, sizeof *col->pages);
  col->buffer_pool = qv_calloc((size_t)n * (size_t)nb, sizeof *col->buffer_pool);
  if (!col->pages || !col->buffer_pool) return nomem(c);
  qvs_buf *pool = col->buffer_pool;
  int64_t row = 0;
  for (uint32_t i = 0; i < n; i++) {
    col->n_pages = (int32_t)i + 1;
    if (!parse_page(c, df, col, (int32_t)i, row, &pool)) return false;
    row += col->pages[i].row_count;
  }
  return true;
}

static void free_columns(qvs_datafile *df) {
  for (int32_t i = 0; i < df->n_columns; i++) {
    qvs_column *c = &df->columns[i];
    for (int32_t p = 0; p < c->n_pages; p++) {
      qv_scalar_reset(&c->pages[p].stats.min);
      qv_scalar_reset(&c->pages[p].stats.max);
    }
    qv_field_reset(&c->field);
    qv_free(c->pages);
    qv_free(c->buffer_pool);
  }
  qv_free(df->columns);
  df->columns = NULL;
  df->n_columns = 0;
}

void qvs_datafile_close(qvs_datafile *df) {
  if (!df || atomic_fetch_sub(&df->refs, 1) > 1) return;
  free_columns(df);
  if (df->own_fd && df->fd >= 0) close(df->fd);
  qv_free(df->footer);
  qv_free(df->name);
  qv_free(df);
}

static qv_status build_stats(qvs_datafile *df, qv_error *err) {
  for (int32_t i = 0; i < df->n_columns; i++) {
    qvs_column *c = &df->columns[i];
    for (int32_t p = 0; p < c->n_pages; p++) {
      qvs_page *pg = &c->pages[p];
      qv_scalar init = QV_SCALAR_INIT;
      pg->stats.min = init;
      pg->stats.max = init;
      pg->stats.null_count = pg->null_count;
      pg->stats.nan_count = pg->nan_count;
      if (!pg->has_minmax) continue;
      if (qvs_stat_to_scalar(&c->field.type, &pg->min, &pg->stats.min) != QV_OK ||
          qvs_stat_to_scalar(&c->field.type, &pg->max, &pg->stats.max) != QV_OK)
        return qv_error_nomem(err, df->name);
    }
  }
  return QV_OK;
}

/* A u32 that must be a power of two from 512 to most (named `what`, most
 * spelled `most_text` in the message). */
static bool get_power_of_two(qvb_cursor *c, uint32_t most, const char *what, const char *most_text, int64_t *out) {
  uint32_t v;
  int64_t at = c->pos;
  if (!qvb_wire_get_u32(c, &v, what)) return false;
  if (v < 512 || v > most || (v & (v - 1))) {
    c->pos = at;
    return qvb_cursor_fail(c, "%s %u (a power of two from 512 to %s)", what, v, most_text);
  }
  *out = v;
  return true;
}

static qv_status parse_footer(qvs_datafile *df, qv_error *err) {
  qvb_cursor c;
  qvb_cursor_init(&c, df->footer, df->footer_len, df->footer_offset, df->name, err);
  uint32_t fv, page_rows, ncols;
  if (!qvb_wire_get_u32(&c, &fv, "footer format version")) return c.status;
  if (fv != df->version) {
    c.pos = 0;
    qvb_cursor_fail(&c, "footer format version %u, the header says %u", fv, df->version);
    return c.status;
  }
  if (!qvb_wire_get_range(&c, 0, QVS_MAX_FRAGMENT_ROWS, &df->num_rows, "row count") ||
      !qvb_wire_get_u32(&c, &page_rows, "page rows"))
    return c.status;
  /* the raw bytes per frame of framed pages (version 2 on) and the bytes
   * per checksum block of the others (version 4 on) */
  df->frame_size = QVS_FRAME;
  df->block_size = QVS_BLOCK_V3;
  if (df->version >= 2 && !get_power_of_two(&c, 1u << 24, "frame size", "16 MiB", &df->frame_size)) return c.status;
  if (df->version >= 4 && !get_power_of_two(&c, 1u << 20, "checksum block size", "1 MiB", &df->block_size))
    return c.status;
  if (!qvb_wire_get_u32(&c, &ncols, "column count")) return c.status;
  df->page_rows = (int32_t)(page_rows > INT32_MAX ? INT32_MAX : page_rows);
  if ((int64_t)ncols * MIN_COLUMN_BYTES > c.size - c.pos) {
    qvb_cursor_fail(&c, "column count %u does not fit the footer", ncols);
    return c.status;
  }
  if (ncols) {
    df->columns = qv_calloc(ncols, sizeof *df->columns);
    if (!df->columns) return qv_error_nomem(err, df->name);
  }
  for (uint32_t i = 0; i < ncols; i++) {
    df->n_columns = (int32_t)i + 1;
    df->columns[i].field.type = qv_datatype_simple(QV_TYPE_NULL);
    if (!parse_column(&c, df, &df->columns[i], (int32_t)i)) return c.status;
  }
  if (c.pos != c.size) {
    qvb_cursor_fail(&c, "%lld unexpected bytes after the footer", (long long)(c.size - c.pos));
    return c.status;
  }
  /* Pages are row-aligned across columns and cover every row. */
  for (int32_t i = 0; i < df->n_columns; i++) {
    const qvs_column *col = &df->columns[i], *first = &df->columns[0];
    int64_t rows = col->n_pages ? col->pages[col->n_pages - 1].row_start + col->pages[col->n_pages - 1].row_count : 0;
    if (rows != df->num_rows)
      return qv_error_set(err, QV_ERR_CORRUPT, "%s: column `%s` has %lld rows, the file %lld", df->name,
                          col->field.name, (long long)rows, (long long)df->num_rows);
    if (col->n_pages != first->n_pages)
      return qv_error_set(err, QV_ERR_CORRUPT, "%s: column `%s` has %d pages, column `%s` %d", df->name,
                          col->field.name, col->n_pages, first->field.name, first->n_pages);
    for (int32_t p = 0; p < col->n_pages; p++) {
      if (col->pages[p].row_count != first->pages[p].row_count)
        return qv_error_set(err, QV_ERR_CORRUPT, "%s: page %d of column `%s` is not aligned with column `%s`", df->name,
                            p, col->field.name, first->field.name);
      QV_RETURN_NOT_OK(qvs_check_layout(df, i, p, err));
    }
  }
  if (df->n_columns == 0 && df->num_rows != 0)
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: %lld rows but no columns", df->name, (long long)df->num_rows);
  return build_stats(df, err);
}

qv_status qvs_datafile_open_fd(int fd, bool own_fd, const char *name, qvs_datafile **out, qv_error *err) {
  *out = NULL;
  qv_status st = QV_OK;
  qvs_datafile *df = qv_calloc(1, sizeof *df);
  if (!df) {
    if (own_fd) close(fd);
    return qv_error_nomem(err, NULL);
  }
  atomic_init(&df->refs, 1);
  df->fd = fd;
  df->own_fd = own_fd;
  df->name = qv_strdup(name);
  if (!df->name) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    st = qv_error_set(err, QV_ERR_IO, "%s: cannot stat: %s", name, strerror(errno));
    goto cleanup;
  }
  df->file_size = (int64_t)sb.st_size;
  if (df->file_size < QVS_DATA_HEADER + QVS_DATA_TRAILER) {
    st = qv_error_set(err, QV_ERR_CORRUPT, "%s: %lld bytes is too short for a data file", name,
                      (long long)df->file_size);
    goto cleanup;
  }
  uint8_t head[QVS_DATA_HEADER], tail[QVS_DATA_TRAILER];
  if ((st = qvb_file_pread_full(fd, head, sizeof head, 0, name, err)) != QV_OK) goto cleanup;
  if ((st = qvb_file_pread_full(fd, tail, sizeof tail, df->file_size - QVS_DATA_TRAILER, name, err)) != QV_OK)
    goto cleanup;
  if (memcmp(head, QVS_DATA_MAGIC, 4) != 0 || memcmp(tail + 12, QVS_DATA_MAGIC, 4) != 0) {
    st = qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %lld: not a quiver data file (bad magic)", name,
                      memcmp(head, QVS_DATA_MAGIC, 4) != 0 ? 0LL : (long long)(df->file_size - 4));
    goto cleanup;
  }
  uint32_t fv = qv_load_u32le(head + 4);
  if (fv == 0 || fv > QVS_DATAFILE_VERSION) {
    st = qv_error_set(err, fv == 0 ? QV_ERR_CORRUPT : QV_ERR_UNSUPPORTED,
                      "%s: offset 4: format version %u (this build reads 1..%d)", name, fv, QVS_DATAFILE_VERSION);
    goto cleanup;
  }
  df->version = fv;
  uint64_t flen = qv_load_u64le(tail);
  if (flen > (uint64_t)(df->file_size - QVS_DATA_HEADER - QVS_DATA_TRAILER)) {
    st = qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %lld: footer length %llu exceeds the file", name,
                      (long long)(df->file_size - QVS_DATA_TRAILER), (unsigned long long)flen);
    goto cleanup;
  }
  df->footer_len = (int64_t)flen;
  df->footer_offset = df->file_size - QVS_DATA_TRAILER - df->footer_len;
  df->footer = qv_malloc((size_t)df->footer_len + 1);
  if (!df->footer) {
    st = qv_error_nomem(err, name);
    goto cleanup;
  }
  if ((st = qvb_file_pread_full(fd, df->footer, df->footer_len, df->footer_offset, name, err)) != QV_OK) goto cleanup;
  uint32_t want = qv_load_u32le(tail + 8), got = qv_crc32c(0, df->footer, (size_t)df->footer_len);
  if (want != got && qvs_verify_checksums) {
    st = qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %lld: footer checksum mismatch (stored %08x, computed %08x)",
                      name, (long long)df->footer_offset, want, got);
    goto cleanup;
  }
  if ((st = parse_footer(df, err)) != QV_OK) goto cleanup;
  *out = df;
  return QV_OK;
cleanup:
  qvs_datafile_close(df);
  return st;
}

qv_status qvs_datafile_open(const char *path, const char *name, qvs_datafile **out, qv_error *err) {
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    return qv_error_set(err, e == ENOENT ? QV_ERR_NOT_FOUND : QV_ERR_IO, "%s: cannot open: %s", name, strerror(e));
  }
  return qvs_datafile_open_fd(fd, true, name, out, err);
}
