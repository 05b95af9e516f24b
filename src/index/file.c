/* Index files (_indices/<hex>.qvi): checksummed chunks and a footer that
 * says what they are.
 *
 *   "QVI1" u32 format_version
 *   chunks ...                         each checked by its CRC32C on read
 *   footer
 *   u64 footer_length  u32 crc32c(footer)  "QVI1"
 *
 * The footer (docs/format.md) is read and validated whole on open; a chunk
 * is read only when a query needs it, so a point lookup reads the footer
 * and a page or two.  Nothing from the file is used before it is checked
 * against the file size and the footer's counts. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/index_int.h"
#include "storage/format.h"

enum { MIN_CHUNK_ENTRY = 8 + 8 + 4 };

/* ---- writing ------------------------------------------------------------ */

void qvi_writer_init(qvi_writer *w) {
  memset(w, 0, sizeof *w);
  qvb_wire_put_bytes(&w->body, QVI_MAGIC, 4);
  qvb_wire_put_u32(&w->body, QVI_FORMAT_VERSION);
}

void qvi_writer_reset(qvi_writer *w) {
  qv_buffer_reset(&w->body.buf);
  qv_buffer_reset(&w->chunks.buf);
  memset(w, 0, sizeof *w);
}

int32_t qvi_writer_chunk(qvi_writer *w, const qv_buffer *bytes) {
  qvb_wire_put_u64(&w->chunks, (uint64_t)w->body.buf.size);
  qvb_wire_put_u64(&w->chunks, (uint64_t)bytes->size);
  qvb_wire_put_u32(&w->chunks, qv_crc32c(0, bytes->data, (size_t)bytes->size));
  qvb_wire_put_bytes(&w->body, bytes->data, bytes->size);
  return w->n_chunks++;
}

qv_status qvi_writer_finish(qvi_writer *w, const qv_buffer *head, const qv_buffer *tail, qv_buffer *out,
                            uint32_t *footer_crc, qv_error *err) {
  int64_t start = w->body.buf.size;
  qvb_wire_put_bytes(&w->body, head->data, head->size);
  qvb_wire_put_u32(&w->body, (uint32_t)w->n_chunks);
  qvb_wire_put_bytes(&w->body, w->chunks.buf.data, w->chunks.buf.size);
  qvb_wire_put_bytes(&w->body, tail->data, tail->size);
  if (w->body.status != QV_OK || w->chunks.status != QV_OK) return qv_error_nomem(err, "index file");
  int64_t flen = w->body.buf.size - start;
  uint32_t crc = qv_crc32c(0, w->body.buf.data + start, (size_t)flen);
  qvb_wire_put_u64(&w->body, (uint64_t)flen);
  qvb_wire_put_u32(&w->body, crc);
  qvb_wire_put_bytes(&w->body, QVI_MAGIC, 4);
  if (w->body.status != QV_OK) return qv_error_nomem(err, "index file");
  *out = w->body.buf;
  memset(&w->body, 0, sizeof w->body);
  *footer_crc = crc;
  return QV_OK;
}

/* ---- reading ------------------------------------------------------------ */

qv_status qvi_corrupt(const qvi_file *f, int64_t off, qv_error *err, const char *what) {
  return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %lld: %s", f->name, (long long)off, what);
}

void qvi_file_close(qvi_file *f) {
  if (!f) return;
  if (f->fd >= 0) close(f->fd);
  qv_free(f->name);
  qv_free(f->path);
  qv_free(f->footer);
  qv_free(f->chunks);
  qv_free(f->pages);
  qv_free(f->dict_bytes);
  qv_free(f->dict);
  if (f->nulls) roaring_bitmap_free(f->nulls);
  if (f->kind && f->kind->close) f->kind->close(f);
  qv_free(f);
}

bool qvi_get_chunk_ref(qvb_cursor *c, const qvi_file *f, int32_t *out, const char *what) {
  uint32_t v;
  int64_t at = c->pos;
  if (!qvb_wire_get_u32(c, &v, what)) return false;
  if ((int64_t)v >= f->n_chunks) {
    c->pos = at;
    return qvb_cursor_fail(c, "%s %u is not one of the %d chunks", what, v, f->n_chunks);
  }
  *out = (int32_t)v;
  return true;
}

/* Validates the footer bytes f->footer[0..footer_len) at file offset base. */
static qv_status parse_footer(qvi_file *f, int64_t base, int64_t expect_fragment, int expect_type, qv_error *err) {
  qvb_cursor c;
  qvb_cursor_init(&c, f->footer, f->footer_len, base, f->name, err);
  uint8_t type, ktype;
  const uint8_t *skip;
  if (!qvb_wire_get_u8(&c, &type, "index type") || !qvb_wire_get_u8(&c, &ktype, "key type") ||
      !qvb_wire_get_bytes(&c, 2, &skip, "reserved"))
    return c.status;
  const qvi_kind *kind = qvi_kind_of(type);
  if (!kind || (expect_type >= 0 && type != expect_type)) {
    c.pos = 0;
    qvb_cursor_fail(&c, "index type %u (expected %d)", type, expect_type);
    return c.status;
  }
  f->type = type;
  f->kind = kind;
  f->key_type = (qv_type_id)ktype;
  if (!qvb_wire_get_range(&c, 0, INT64_MAX - 1, &f->fragment_id, "fragment id")) return c.status;
  if (expect_fragment >= 0 && f->fragment_id != expect_fragment) {
    c.pos -= 8;
    qvb_cursor_fail(&c, "covers fragment %lld, the manifest says %lld", (long long)f->fragment_id,
                    (long long)expect_fragment);
    return c.status;
  }
  if (!qvb_wire_get_range(&c, 0, QVS_MAX_FRAGMENT_ROWS, &f->num_rows, "row count") ||
      !qvb_wire_get_range(&c, 0, f->num_rows, &f->null_count, "null count") ||
      !qvb_wire_get_range(&c, 0, INT64_MAX / 2, &f->entries, "entry count") ||
      !qvb_wire_get_range(&c, 0, f->entries, &f->distinct, "distinct count"))
    return c.status;
  uint32_t n;
  int64_t at = c.pos;
  if (!qvb_wire_get_u32(&c, &n, "chunk count")) return c.status;
  if ((int64_t)n * MIN_CHUNK_ENTRY > c.size - c.pos) {
    c.pos = at;
    qvb_cursor_fail(&c, "chunk count %u does not fit in the footer", n);
    return c.status;
  }
  f->chunks = qv_calloc(n ? n : 1, sizeof *f->chunks);
  if (!f->chunks) return qv_error_nomem(err, NULL);
  for (uint32_t i = 0; i < n; i++) {
    qvi_chunk *ch = &f->chunks[i];
    if (!qvb_wire_get_range(&c, QVI_HEADER, base, &ch->offset, "chunk offset") ||
        !qvb_wire_get_range(&c, 0, base - ch->offset < QVI_MAX_CHUNK ? base - ch->offset : QVI_MAX_CHUNK, &ch->length,
                            "chunk length") ||
        !qvb_wire_get_u32(&c, &ch->crc, "chunk crc"))
      return c.status;
    f->n_chunks = (int32_t)i + 1;
  }
  if (!qvi_get_chunk_ref(&c, f, &f->nulls_chunk, "null rows chunk")) return c.status;
  if (!kind->open(&c, f)) return c.status;
  if (c.pos != c.size)
    qvb_cursor_fail(&c, "%lld unexpected bytes at the end of the footer", (long long)(c.size - c.pos));
  return c.status;
}

qv_status qvi_file_open_fd(int fd, const char *name, int64_t expect_fragment, int expect_type, qvi_file **out,
                           qv_error *err) {
  *out = NULL;
  qvi_file *f = qv_calloc(1, sizeof *f);
  if (!f) {
    close(fd);
    return qv_error_nomem(err, NULL);
  }
  f->fd = fd;
  f->nulls_chunk = f->dict_chunk = -1;
  f->name = qv_strdup(name);
  qv_status st = QV_OK;
  struct stat sb;
  if (!f->name) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  if (fstat(fd, &sb) != 0) {
    st = qv_error_set(err, QV_ERR_IO, "%s: cannot stat: %s", name, strerror(errno));
    goto cleanup;
  }
  f->file_size = (int64_t)sb.st_size;
  if (f->file_size < QVI_HEADER + QVI_TRAILER) {
    st = qv_error_set(err, QV_ERR_CORRUPT, "%s: %lld bytes is too short for an index file", name,
                      (long long)f->file_size);
    goto cleanup;
  }
  uint8_t head[QVI_HEADER], tail[QVI_TRAILER];
  if ((st = qvb_file_pread_full(fd, head, QVI_HEADER, 0, name, err)) != QV_OK) goto cleanup;
  if ((st = qvb_file_pread_full(fd, tail, QVI_TRAILER, f->file_size - QVI_TRAILER, name, err)) != QV_OK) goto cleanup;
  if (memcmp(head, QVI_MAGIC, 4) != 0 || memcmp(tail + 12, QVI_MAGIC, 4) != 0) {
    st = qvi_corrupt(f, memcmp(head, QVI_MAGIC, 4) ? 0 : f->file_size - 4, err, "not a quiver index file (bad magic)");
    goto cleanup;
  }
  uint32_t fv = qv_load_u32le(head + 4);
  if (fv == 0 || fv > QVI_FORMAT_VERSION) {
    st = qv_error_set(err, fv ? QV_ERR_UNSUPPORTED : QV_ERR_CORRUPT,
                      "%s: offset 4: format version %u (this build reads 1..%d)", name, fv, QVI_FORMAT_VERSION);
    goto cleanup;
  }
  uint64_t flen = qv_load_u64le(tail);
  if (flen > (uint64_t)(f->file_size - QVI_HEADER - QVI_TRAILER) || flen > (uint64_t)QVI_MAX_FOOTER || flen == 0) {
    st = qvi_corrupt(f, f->file_size - QVI_TRAILER, err, "footer length does not fit in the file");
    goto cleanup;
  }
  f->footer_len = (int64_t)flen;
  int64_t base = f->file_size - QVI_TRAILER - f->footer_len;
  if (!(f->footer = qv_malloc((size_t)f->footer_len))) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  if ((st = qvb_file_pread_full(fd, f->footer, f->footer_len, base, name, err)) != QV_OK) goto cleanup;
  f->footer_crc = qv_load_u32le(tail + 8);
  uint32_t got = qv_crc32c(0, f->footer, (size_t)f->footer_len);
  if (got != f->footer_crc && qvs_verify_checksums) {
    st = qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %lld: footer checksum mismatch (stored %08x, computed %08x)",
                      name, (long long)base, f->footer_crc, got);
    goto cleanup;
  }
  if ((st = parse_footer(f, base, expect_fragment, expect_type, err)) != QV_OK) goto cleanup;
  *out = f;
  return QV_OK;
cleanup:
  qvi_file_close(f);
  return st;
}

qv_status qvi_file_open(const char *path, const char *name, int64_t expect_fragment, int expect_type, qvi_file **out,
                        qv_error *err) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return qv_error_set(err, errno == ENOENT ? QV_ERR_NOT_FOUND : QV_ERR_IO, "%s: cannot open: %s", name,
                        strerror(errno));
  QV_RETURN_NOT_OK(qvi_file_open_fd(fd, name, expect_fragment, expect_type, out, err));
  if (!((*out)->path = qv_strdup(path))) {
    qvi_file_close(*out);
    *out = NULL;
    return qv_error_nomem(err, NULL);
  }
  return QV_OK;
}

void qvi_chunk_role(const qvi_file *f, int32_t i, char *buf, size_t n) {
  if (i == f->nulls_chunk) {
    snprintf(buf, n, "null rows");
    return;
  }
  f->kind->chunk_role(f, i, buf, n);
}

qv_status qvi_file_chunk(qvi_file *f, int32_t i, const char *what, uint8_t **out, qv_error *err) {
  *out = NULL;
  const qvi_chunk *ch = &f->chunks[i];
  uint8_t *buf = qv_malloc((size_t)ch->length + 1);
  if (!buf) return qv_error_set(err, QV_ERR_NOMEM, "%s: out of memory reading %s", f->name, what);
  qv_status st = qvb_file_pread_full(f->fd, buf, ch->length, ch->offset, f->name, err);
  if (st == QV_OK && qvs_verify_checksums && qv_crc32c(0, buf, (size_t)ch->length) != ch->crc)
    st = qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %lld: chunk %d (%s): checksum mismatch", f->name,
                      (long long)ch->offset, i, what);
  if (st != QV_OK) {
    qv_free(buf);
    return st;
  }
  f->io.bytes_read += ch->length;
  f->io.pages_read++;
  *out = buf;
  return QV_OK;
}
