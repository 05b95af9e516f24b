/* Writing a data file: pages are encoded, compressed when that pays, and
 * appended as they come; their descriptors collect per column and become
 * the footer when the file is finished (fsynced before it may be
 * published in a manifest).  Layout: datafile_read.c and docs/format.md. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/wire.h"
#include "storage/compress.h"
#include "storage/datafile.h"
#include "storage/encoding.h"
#include "storage/format.h"
#include "storage/fsst.h"
#include "storage/page_stats.h"
#include "storage/schema_codec.h"

struct qvs_file_writer {
  int fd;
  char *path;
  char name[64];
  int64_t pos;
  int64_t rows;
  const qv_schema *schema;
  qv_write_options opts;
  qvb_wbuf *desc;    /* per column: the page descriptors so far */
  int32_t *n_pages;  /* per column */
  int64_t *col_rows; /* per column */
  qvs_page_out po;
  qv_buffer comp;
  qv_buffer frame;         /* one compressed frame */
  qv_buffer frame_lens;    /* u32 LE stored length of each frame of the page */
  qv_buffer alt, alt_lens; /* AUTO: the page with the other codec, to compare */
  void *zctx;
  qvs_dict_scratch dict;
  qvs_page_out fsst_po; /* AUTO: the page FSST-encoded, to compare */
  qvs_fsst_scratch fsst;
};

qv_status qvs_file_writer_open(const char *path, const qv_schema *schema, const qv_write_options *opts,
                               qvs_file_writer **out, qv_error *err) {
  *out = NULL;
  qvs_file_writer *w = qv_calloc(1, sizeof *w);
  if (!w) return qv_error_nomem(err, NULL);
  w->fd = -1;
  w->schema = schema;
  w->opts = *opts;
  int32_t nc = schema->n_fields;
  qv_status st = QV_OK;
  w->desc = qv_calloc((size_t)nc + 1, sizeof *w->desc);
  w->n_pages = qv_calloc((size_t)nc + 1, sizeof *w->n_pages);
  w->col_rows = qv_calloc((size_t)nc + 1, sizeof *w->col_rows);
  if (!w->desc || !w->n_pages || !w->col_rows) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  char hex[33];
  if ((st = qvb_random_hex(hex, 16, err)) != QV_OK) goto cleanup;
  snprintf(w->name, sizeof w->name, "data/%s.qvf", hex);
  if (!(w->path = qvb_path_join(path, w->name))) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  w->fd = open(w->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (w->fd < 0) {
    st = qv_error_set(err, QV_ERR_IO, "%s: cannot create: %s", w->name, strerror(errno));
    qv_free(w->path);
    w->path = NULL; /* nothing of ours to remove */
    goto cleanup;
  }
  uint8_t head[QVS_DATA_HEADER];
  memcpy(head, QVS_DATA_MAGIC, 4);
  qv_store_u32le(head + 4, QVS_DATAFILE_VERSION);
  if ((st = qvb_file_write_full(w->fd, head, sizeof head, w->name, err)) != QV_OK) goto cleanup;
  w->pos = QVS_DATA_HEADER;
  *out = w;
  return QV_OK;
cleanup:
  qvs_file_writer_destroy(w, false);
  return st;
}

const char *qvs_file_writer_name(const qvs_file_writer *w) { return w->name; }
int64_t qvs_file_writer_rows(const qvs_file_writer *w) { return w->rows; }
int64_t qvs_file_writer_bytes(const qvs_file_writer *w) { return w->pos; }

void qvs_file_writer_destroy(qvs_file_writer *w, bool keep) {
  if (!w) return;
  if (w->fd >= 0) close(w->fd);
  if (!keep && w->path) unlink(w->path);
  for (int32_t i = 0; w->desc && i < w->schema->n_fields; i++) qv_buffer_reset(&w->desc[i].buf);
  qv_free(w->desc);
  qv_free(w->n_pages);
  qv_free(w->col_rows);
  qv_free(w->path);
  qvs_page_out_reset(&w->po);
  qv_buffer_reset(&w->comp);
  qv_buffer_reset(&w->frame);
  qv_buffer_reset(&w->frame_lens);
  qv_buffer_reset(&w->alt);
  qv_buffer_reset(&w->alt_lens);
  if (w->zctx) qvs_compress_free(w->zctx);
  qvs_dict_scratch_reset(&w->dict);
  qvs_page_out_reset(&w->fsst_po);
  qvs_fsst_scratch_reset(&w->fsst);
  qv_free(w);
}

/* Compresses the page's raw bytes with codec c as independent frames of
 * QVS_FRAME raw bytes into *comp, their stored lengths into *lens (level:
 * the codec's, 0 = its default). */
static qv_status compress_frames(qvs_file_writer *w, int c, int level, qv_buffer *comp, qv_buffer *lens,
                                 qv_error *err) {
  int64_t raw = w->po.raw.size;
  comp->size = 0;
  lens->size = 0;
  for (int64_t off = 0; off < raw; off += QVS_FRAME) {
    int64_t n = raw - off < QVS_FRAME ? raw - off : QVS_FRAME;
    QV_RETURN_NOT_OK(qvs_compress(c, level, &w->zctx, w->po.raw.data + off, n, &w->frame, err));
    uint8_t len[4];
    qv_store_u32le(len, (uint32_t)w->frame.size);
    if (qv_buffer_append(comp, w->frame.data, w->frame.size) != QV_OK || qv_buffer_append(lens, len, 4) != QV_OK)
      return qv_error_nomem(err, NULL);
  }
  return QV_OK;
}

/* Picks the stored form.  A compressed page is stored as independent
 * frames of QVS_FRAME raw bytes, so that a take of a few rows decompresses
 * only the frames holding them (a raw page is read by 4 KiB block).
 *
 * AUTO prefers decoding speed to the last byte: lz4 decodes several times
 * faster than zstd, and every scan and every take pays for decoding while
 * the bytes saved are paid for once, on disk.  So a page is stored with
 * lz4, and with zstd only when zstd saves at least another quarter of the
 * raw page (data lz4 cannot shrink, such as random digits or text without
 * repeats, where zstd's entropy coding still halves it); and it stays raw
 * unless the codec saves at least a quarter, since a raw page's blocks are
 * cheaper to take from than frames to decompress.  zstd is not even tried
 * when lz4 already left less than a quarter.  *codec is the codec used
 * (NONE: stored raw). */
static qv_status compress_page(qvs_file_writer *w, const uint8_t **stored, int64_t *stored_len, uint8_t *codec,
                               qv_error *err) {
  int64_t raw = w->po.raw.size;
  *stored = w->po.raw.data;
  *stored_len = raw;
  *codec = QV_COMPRESSION_NONE;
  qv_compression want = w->opts.compression;
  if (want == QV_COMPRESSION_NONE || raw == 0) return QV_OK;
  if (want != QV_COMPRESSION_AUTO) {
    QV_RETURN_NOT_OK(compress_frames(w, want, w->opts.compression_level, &w->comp, &w->frame_lens, err));
    if (w->comp.size >= raw) return QV_OK;
    *codec = (uint8_t)want;
  } else {
    QV_RETURN_NOT_OK(compress_frames(w, QV_COMPRESSION_LZ4, 0, &w->comp, &w->frame_lens, err));
    *codec = QV_COMPRESSION_LZ4;
    if (w->comp.size > raw / 4) {
      QV_RETURN_NOT_OK(compress_frames(w, QV_COMPRESSION_ZSTD, w->opts.compression_level, &w->alt, &w->alt_lens, err));
      if (w->alt.size <= w->comp.size - raw / 4) {
        qv_buffer t = w->comp;
        w->comp = w->alt;
        w->alt = t;
        t = w->frame_lens;
        w->frame_lens = w->alt_lens;
        w->alt_lens = t;
        *codec = QV_COMPRESSION_ZSTD;
      }
    }
    if (w->comp.size > raw - raw / 4) {
      *codec = QV_COMPRESSION_NONE;
      return QV_OK;
    }
  }
  *stored = w->comp.data;
  *stored_len = w->comp.size;
  return QV_OK;
}

/* AUTO, strings and binary that are not dictionary-encoded: FSST keeps
 * every value decodable on its own, so a take of a few rows reads and
 * decodes those rows only (a frame costs 16 KiB of decoding per row), and
 * wide values decode about as fast as lz4 frames (docs/performance.md).
 * It replaces the page (w->po) when it saves at least a quarter of the
 * plain page, like compression, and is at most 4 times the framed size:
 * FSST shrinks at most 8x (one code per 8 bytes), and data that lz4
 * shrinks much further (long repeats) stays smaller in frames. */
static qv_status try_fsst(qvs_file_writer *w, const qv_array *a, int64_t start, int64_t n, int64_t null_count,
                          int64_t framed_len, qv_error *err) {
  qvs_page_out *f = &w->fsst_po;
  qvs_page_out_clear(f);
  bool used;
  QV_RETURN_NOT_OK(qvs_encode_fsst(a, start, n, null_count, &w->fsst, f, &used, err));
  int64_t plain = w->po.raw.size;
  if (!used || f->raw.size > plain - plain / 4 || f->raw.size > 4 * framed_len) return QV_OK;
  qvs_page_out t = w->po;
  w->po = *f;
  *f = t;
  return QV_OK;
}

qv_status qvs_file_writer_page(qvs_file_writer *w, int32_t col, const qv_array *a, int64_t start, int64_t n,
                               qv_error *err) {
  qvs_stats st;
  qvs_stats_compute(a, start, n, &st);
  qvs_page_out *po = &w->po;
  qvs_page_out_clear(po);
  bool used = false;
  qv_type_id id = a->type.id;
  if ((id == QV_TYPE_STRING || id == QV_TYPE_BINARY) && w->opts.dictionary)
    QV_RETURN_NOT_OK(qvs_encode_dict(a, start, n, st.null_count, &w->dict, po, &used, err));
  else if (qv_type_is_integer(id) || qv_type_is_temporal(id))
    QV_RETURN_NOT_OK(qvs_encode_bitpack(a, start, n, st.null_count, &st, po, &used, err));
  if (!used) {
    qvs_page_out_clear(po);
    QV_RETURN_NOT_OK(qvs_encode_plain(a, start, n, st.null_count, po, err));
  }
  if (po->raw.size > QVS_MAX_PAGE_BYTES)
    return qv_error_set(err, QV_ERR_UNSUPPORTED,
                        "column `%s`: a page of %lld bytes is larger than 2 GiB; use "
                        "fewer page_rows",
                        w->schema->fields[col].name, (long long)po->raw.size);
  const uint8_t *stored;
  int64_t stored_len;
  uint8_t codec;
  QV_RETURN_NOT_OK(compress_page(w, &stored, &stored_len, &codec, err));
  if (!used && (id == QV_TYPE_STRING || id == QV_TYPE_BINARY) && w->opts.compression == QV_COMPRESSION_AUTO &&
      st.null_count < n) {
    QV_RETURN_NOT_OK(try_fsst(w, a, start, n, st.null_count, stored_len, err));
    if (po->encoding == QV_ENCODING_FSST) {
      stored = po->raw.data;
      stored_len = po->raw.size;
      codec = QV_COMPRESSION_NONE;
    }
  }
  QV_RETURN_NOT_OK(qvb_file_write_full(w->fd, stored, stored_len, w->name, err));

  qvb_wbuf *d = &w->desc[col];
  qvb_wire_put_u64(d, (uint64_t)w->pos);
  qvb_wire_put_u64(d, (uint64_t)stored_len);
  qvb_wire_put_u64(d, (uint64_t)po->raw.size);
  qvb_wire_put_u64(d, (uint64_t)w->col_rows[col]);
  qvb_wire_put_u32(d, (uint32_t)n);
  qvb_wire_put_u8(d, po->encoding);
  qvb_wire_put_u8(d, codec);
  qvb_wire_put_u8(d, po->bit_width);
  qvb_wire_put_u8(
      d, (uint8_t)((st.has_minmax ? QVS_PAGE_MINMAX : 0) | (codec != QV_COMPRESSION_NONE ? QVS_PAGE_FRAMED : 0)));
  qvb_wire_put_u64(d, (uint64_t)st.null_count);
  qvb_wire_put_u64(d, (uint64_t)st.nan_count);
  qvb_wire_put_u64(d, po->reference);
  qvb_wire_put_u32(d, (uint32_t)po->dict_count);
  qvb_wire_put_u32(d, (uint32_t)po->n_buffers);
  const qvs_buf *bufs = (const qvs_buf *)po->bufs.data;
  for (int32_t b = 0; b < po->n_buffers; b++) {
    qvb_wire_put_u64(d, (uint64_t)bufs[b].offset);
    qvb_wire_put_u64(d, (uint64_t)bufs[b].length);
  }
  if (st.has_minmax) {
    qvs_put_stat_value(d, id, &st.min);
    qvs_put_stat_value(d, id, &st.max);
  }
  if (codec != QV_COMPRESSION_NONE) {
    /* framed: each frame's stored length, then each frame's checksum */
    qvb_wire_put_bytes(d, w->frame_lens.data, w->frame_lens.size);
    for (int64_t k = 0, at = 0; 4 * k < w->frame_lens.size; k++) {
      int64_t len = qv_load_u32le(w->frame_lens.data + 4 * k);
      qvb_wire_put_u32(d, qv_crc32c(0, stored + at, (size_t)len));
      at += len;
    }
  } else {
    for (int64_t k = 0; k * QVS_BLOCK < stored_len; k++) {
      int64_t len = stored_len - k * QVS_BLOCK < QVS_BLOCK ? stored_len - k * QVS_BLOCK : QVS_BLOCK;
      qvb_wire_put_u32(d, qv_crc32c(0, stored + k * QVS_BLOCK, (size_t)len));
    }
  }
  if (d->status != QV_OK) return qv_error_nomem(err, NULL);
  w->pos += stored_len;
  w->n_pages[col]++;
  w->col_rows[col] += n;
  if (col == 0) w->rows += n;
  return QV_OK;
}

qv_status qvs_file_writer_finish(qvs_file_writer *w, qv_error *err) {
  qvb_wbuf f = {QV_BUFFER_INIT, QV_OK};
  qv_status st = QV_OK;
  int32_t nc = w->schema->n_fields;
  for (int32_t i = 0; i < nc; i++)
    if (w->col_rows[i] != w->rows) {
      st = qv_error_set(err, QV_ERR_INVALID, "%s: column `%s` has %lld rows, column 0 has %lld", w->name,
                        w->schema->fields[i].name, (long long)w->col_rows[i], (long long)w->rows);
      goto cleanup;
    }
  qvb_wire_put_u32(&f, QVS_DATAFILE_VERSION);
  qvb_wire_put_u64(&f, (uint64_t)w->rows);
  qvb_wire_put_u32(&f, (uint32_t)w->opts.page_rows);
  qvb_wire_put_u32(&f, QVS_FRAME);
  qvb_wire_put_u32(&f, QVS_BLOCK);
  qvb_wire_put_u32(&f, (uint32_t)nc);
  for (int32_t i = 0; i < nc; i++) {
    qvs_put_field(&f, &w->schema->fields[i]);
    qvb_wire_put_u32(&f, (uint32_t)w->n_pages[i]);
    qvb_wire_put_bytes(&f, w->desc[i].buf.data, w->desc[i].buf.size);
  }
  if (f.status != QV_OK) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  int64_t flen = f.buf.size;
  uint32_t crc = qv_crc32c(0, f.buf.data, (size_t)flen);
  qvb_wire_put_u64(&f, (uint64_t)flen);
  qvb_wire_put_u32(&f, crc);
  qvb_wire_put_bytes(&f, QVS_DATA_MAGIC, 4);
  if (f.status != QV_OK) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  if ((st = qvb_file_write_full(w->fd, f.buf.data, f.buf.size, w->name, err)) != QV_OK) goto cleanup;
  if (fsync(w->fd) != 0) {
    st = qv_error_set(err, QV_ERR_IO, "%s: fsync failed: %s", w->name, strerror(errno));
    goto cleanup;
  }
  if (close(w->fd) != 0) {
    w->fd = -1;
    st = qv_error_set(err, QV_ERR_IO, "%s: close failed: %s", w->name, strerror(errno));
    goto cleanup;
  }
  w->fd = -1;
cleanup:
  qv_buffer_reset(&f.buf);
  return st;
}
