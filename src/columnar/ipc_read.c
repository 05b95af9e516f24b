/* Arrow IPC reading: the stream format (schema, dictionary and record batch
 * messages, each an 8-aligned flatbuffer after a 0xFFFFFFFF continuation
 * marker and a length, followed by its body) and the file format ("ARROW1",
 * the same messages, a Footer flatbuffer locating them, its length,
 * "ARROW1").
 *
 * Input is untrusted.  Every length, offset and count is checked before it
 * is used, lengths are capped at INT32_MAX rows, and each column is finally
 * run through qv_array_validate (offsets, child lengths, UTF-8), so a hostile
 * file yields QV_ERR_CORRUPT naming the byte offset, never a crash.
 *
 * Dictionary-encoded fields are decoded (deltas appended), LZ4_FRAME and
 * ZSTD bodies decompressed, and other writers' layouts of quiver's types
 * (large_string/binary/list with 64-bit offsets, string/binary views as
 * Polars writes them) converted to quiver's int32-offset arrays.
 *
 * From memory, body buffers are zero-copy views of the (copied) input; from
 * a FILE (a pipe), messages are read one at a time, in order; from a path,
 * by positioned reads: a file's footer first, then each block where it
 * lies, so memory holds one message at a time whatever the file's size. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "columnar/ipc_int.h"

/* ---- input --------------------------------------------------------------- */

typedef struct src {
  qv_bytes *mem; /* memory mode: the whole input */
  FILE *f;       /* FILE mode: read in order */
  bool own_f;    /* ... and closed with the reader */
  int fd;        /* descriptor mode (-1 otherwise; owned): read at any offset */
  int64_t size;  /* memory and descriptor modes: bytes in the input */
  bool failed;   /* descriptor mode: a read failed */
  int64_t pos;   /* absolute offset of the next byte */
  uint8_t peek[8];
  int npeek, peek_pos; /* bytes already read from f to sniff the format */
} src;

static int64_t src_read(src *s, uint8_t *dst, int64_t n) {
  int64_t got = 0;
  if (s->mem) {
    int64_t left = s->mem->size - s->pos;
    got = n < left ? n : (left > 0 ? left : 0);
    if (got) memcpy(dst, s->mem->data + s->pos, (size_t)got);
  } else if (s->fd >= 0) {
    while (got < n) {
      ssize_t k = pread(s->fd, dst + got, (size_t)(n - got), (off_t)(s->pos + got));
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) s->failed = true;
      if (k <= 0) break;
      got += k;
    }
  } else {
    while (got < n && s->peek_pos < s->npeek) dst[got++] = s->peek[s->peek_pos++];
    if (got < n) got += (int64_t)fread(dst + got, 1, (size_t)(n - got), s->f);
  }
  s->pos += got;
  return got;
}

static qv_status truncated(int64_t at, int64_t need, const char *what, qv_error *err) {
  return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: truncated: %s needs %lld bytes", (long long)at, what,
                      (long long)need);
}

/* The next n bytes as a qv_bytes: a view in memory mode; read in growing
 * chunks from a FILE so that a lying length costs no more memory than the
 * bytes actually present. */
static qv_status src_take(src *s, int64_t n, const char *what, qv_bytes **out, qv_error *err) {
  int64_t at = s->pos;
  if (s->mem) {
    if (n > s->mem->size - s->pos) return truncated(at, n, what, err);
    *out = qv_bytes_view(s->mem, s->mem->data + s->pos, n);
    if (!*out) return qv_error_nomem(err, NULL);
    s->pos += n;
    return QV_OK;
  }
  if (s->fd >= 0) { /* the size is known: one read of exactly n bytes */
    if (n > s->size - s->pos) return truncated(at, n, what, err);
    qv_bytes *b = qv_bytes_alloc(n);
    if (!b) return qv_error_nomem(err, NULL);
    if (src_read(s, qv_bytes_mutable(b), n) < n) {
      qv_bytes_release(b);
      if (s->failed) return qv_error_set(err, QV_ERR_IO, "byte %lld: read failed: %s", (long long)at, strerror(errno));
      return truncated(at, n, what, err);
    }
    *out = b;
    return QV_OK;
  }
  qv_buffer b = QV_BUFFER_INIT;
  while (b.size < n) {
    int64_t chunk = n - b.size < (1 << 20) ? n - b.size : (1 << 20);
    if (qv_buffer_reserve(&b, chunk) != QV_OK) {
      qv_buffer_reset(&b);
      return qv_error_nomem(err, NULL);
    }
    int64_t got = src_read(s, b.data + b.size, chunk);
    b.size += got;
    if (got < chunk) {
      qv_buffer_reset(&b);
      if (ferror(s->f)) return qv_error_set(err, QV_ERR_IO, "byte %lld: read failed", (long long)s->pos);
      return truncated(at, n, what, err);
    }
  }
  qv_status st = qv_buffer_finish(&b, out);
  qv_buffer_reset(&b);
  return st == QV_OK ? QV_OK : qv_error_nomem(err, NULL);
}

/* ---- messages ------------------------------------------------------------ */

typedef struct msg {
  qv_bytes *meta;
  qvc_fb_view view;
  qvc_fb_table header;
  int type;
  int64_t body_len;
  qv_bytes *body;
  int64_t at, body_at;
} msg;

static void msg_reset(msg *m) {
  qv_bytes_release(m->meta);
  qv_bytes_release(m->body);
  memset(m, 0, sizeof *m);
}

/* Reads one message at s->pos.  meta_limit >= 0 (file blocks) bounds the
 * prefix + metadata and places the body right after it. */
static qv_status read_message(src *s, int64_t meta_limit, msg *m, bool *eos, qv_error *err) {
  uint8_t pre[4];
  memset(m, 0, sizeof *m);
  *eos = false;
  m->at = s->pos;
  int64_t got = src_read(s, pre, 4);
  if (got == 0 && meta_limit < 0) { /* end of input without an end marker: accepted */
    *eos = true;
    return QV_OK;
  }
  if (got < 4) return truncated(m->at, 4, "message length", err);
  uint32_t len = qv_load_u32le(pre);
  int64_t prefix = 4;
  if (len == QV_IPC_CONTINUATION) {
    if (src_read(s, pre, 4) < 4) return truncated(m->at, 8, "message length", err);
    len = qv_load_u32le(pre);
    prefix = 8;
  }
  if (len == 0) {
    *eos = true;
    return QV_OK;
  }
  if (len > INT32_MAX)
    return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: message metadata length %u is negative", (long long)m->at,
                        len);
  if (meta_limit >= 0 && prefix + len > meta_limit)
    return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: message metadata (%lld bytes) overruns its block (%lld bytes)",
                        (long long)m->at, (long long)(prefix + len), (long long)meta_limit);
  qv_status st = src_take(s, len, "message metadata", &m->meta, err);
  if (st != QV_OK) return st;
  m->view.data = m->meta->data;
  m->view.size = len;
  m->view.base = m->at + prefix;
  qvc_fb_table root;
  int64_t version, type;
  bool present;
  QV_RETURN_NOT_OK(qvc_fb_root(&m->view, &root, err));
  QV_RETURN_NOT_OK(qvc_fb_int(&root, 0, 2, 0, &version, err));
  if (version < 3) /* V4 is the oldest layout we read */
    return qv_error_set(err, QV_ERR_UNSUPPORTED, "byte %lld: IPC metadata version V%lld is too old", (long long)m->at,
                        (long long)version + 1);
  QV_RETURN_NOT_OK(qvc_fb_int(&root, 1, 1, 0, &type, err));
  m->type = (int)(type & 0xff);
  QV_RETURN_NOT_OK(qvc_fb_table_field(&root, 2, &m->header, &present, err));
  if (!present) return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: message has no header", (long long)m->at);
  QV_RETURN_NOT_OK(qvc_fb_int(&root, 3, 8, 0, &m->body_len, err));
  if (m->body_len < 0)
    return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: message body length %lld is negative", (long long)m->at,
                        (long long)m->body_len);
  if (meta_limit >= 0) s->pos = m->at + meta_limit;
  m->body_at = s->pos;
  return src_take(s, m->body_len, "message body", &m->body, err);
}

/* ---- the reader ---------------------------------------------------------- */

typedef struct dict_entry {
  int64_t id;
  const qvc_ipc_field *info;
  qv_array *values;
} dict_entry;

typedef struct ipc_reader {
  qv_batch_reader base;
  src s;
  qv_schema schema;
  qvc_ipc_field *fields;
  dict_entry *dicts;
  int32_t n_dicts, cap_dicts;
  bool is_file, done;
  qv_status failed;
  /* file format */
  qv_bytes *footer_bytes;
  qvc_fb_view footer;
  qvc_fb_vector blocks;
  uint32_t next_block;
  int64_t footer_at;
  qv_bytes *zeros; /* all-zero validity shared by null-type columns */
} ipc_reader;

static dict_entry *find_dict(ipc_reader *r, int64_t id) {
  for (int32_t i = 0; i < r->n_dicts; i++)
    if (r->dicts[i].id == id) return &r->dicts[i];
  return NULL;
}

static qv_status register_dicts(ipc_reader *r, const qvc_ipc_field *f, int32_t n, qv_error *err) {
  for (int32_t i = 0; i < n; i++) {
    if (f[i].dict) {
      dict_entry *e = find_dict(r, f[i].dict_id);
      if (e && !qv_datatype_equal(&e->info->field->type, &f[i].field->type))
        return qv_error_set(err, QV_ERR_CORRUPT, "schema: dictionary id %lld is used for two different types",
                            (long long)f[i].dict_id);
      if (!e) {
        if (r->n_dicts == r->cap_dicts) {
          int32_t cap = r->cap_dicts ? r->cap_dicts * 2 : 4;
          dict_entry *d = qv_realloc(r->dicts, (size_t)cap * sizeof *d);
          if (!d) return qv_error_nomem(err, NULL);
          r->dicts = d;
          r->cap_dicts = cap;
        }
        r->dicts[r->n_dicts++] = (dict_entry){f[i].dict_id, &f[i], NULL};
      }
    }
    QV_RETURN_NOT_OK(register_dicts(r, f[i].children, f[i].n_children, err));
  }
  return QV_OK;
}

/* ---- record batch bodies ------------------------------------------------- */

typedef struct dec {
  ipc_reader *r;
  const msg *m;
  qvc_fb_vector nodes, bufs, variadic; /* variadic: buffer counts of view columns */
  uint32_t ni, bi, vi;
  int codec; /* -1: uncompressed */
  const char *column;
  qv_error *err;
} dec;

/* Errors inside a body name the byte (of the message or of the buffer) and
 * the column. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static qv_status
dec_fail(dec *d, int64_t at, const char *fmt, ...) {
  char msgbuf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msgbuf, sizeof msgbuf, fmt, ap);
  va_end(ap);
  return qv_error_set(d->err, QV_ERR_CORRUPT, "byte %lld: column '%s': %s", (long long)at, d->column, msgbuf);
}

static qv_status next_node(dec *d, int64_t *len, int64_t *nulls) {
  if (d->ni >= d->nodes.count) return dec_fail(d, d->m->at, "record batch has only %u field nodes", d->nodes.count);
  const uint8_t *p = qvc_fb_vector_elem(&d->nodes, d->ni++);
  int64_t at = d->m->view.base + (p - d->m->view.data);
  *len = (int64_t)qv_load_u64le(p);
  *nulls = (int64_t)qv_load_u64le(p + 8);
  if (*len < 0 || *len > INT32_MAX || *nulls < 0 || *nulls > *len)
    return dec_fail(d, at, "field node has length %lld and null count %lld", (long long)*len, (long long)*nulls);
  return QV_OK;
}

static qv_status next_buffer(dec *d, qv_bytes **out) {
  *out = NULL;
  if (d->bi >= d->bufs.count) return dec_fail(d, d->m->at, "record batch has only %u buffers", d->bufs.count);
  const uint8_t *p = qvc_fb_vector_elem(&d->bufs, d->bi++);
  int64_t off = (int64_t)qv_load_u64le(p), len = (int64_t)qv_load_u64le(p + 8);
  int64_t body = d->m->body_len;
  if (off < 0 || len < 0 || off > body || len > body - off)
    return dec_fail(d, d->m->view.base + (p - d->m->view.data),
                    "buffer at body offset %lld, length %lld lies outside the %lld-byte message body", (long long)off,
                    (long long)len, (long long)body);
  const uint8_t *data = d->m->body->data + off;
  int64_t at = d->m->body_at + off;
  if (d->codec >= 0 && len > 0) {
    if (len < 8) return dec_fail(d, at, "compressed buffer of %lld bytes has no length prefix", (long long)len);
    int64_t want = (int64_t)qv_load_u64le(data);
    if (want != -1) return qvc_ipc_decompress(d->codec, data + 8, len - 8, want, out, at, d->err);
    data += 8;
    len -= 8;
  }
  *out = qv_bytes_view(d->m->body, data, len);
  return *out ? QV_OK : qv_error_nomem(d->err, NULL);
}

static qv_status need_bytes(dec *d, const qv_bytes *b, int64_t bytes, const char *what) {
  if (b->size >= bytes) return QV_OK;
  return dec_fail(d, d->m->body_at, "%s buffer has %lld bytes, needs %lld", what, (long long)b->size, (long long)bytes);
}

/* Installs the validity buffer; the null count is recounted from the bits
 * (the node's claim is not trusted) and a bitmap without nulls is dropped. */
static qv_status set_validity(dec *d, qv_array *a, qv_bytes *vb, int64_t nulls) {
  if (nulls == 0 || a->length == 0) {
    qv_bytes_release(vb);
    return QV_OK;
  }
  qv_status st = need_bytes(d, vb, qv_bitmap_bytes(a->length), "validity");
  if (st != QV_OK) {
    qv_bytes_release(vb);
    return st;
  }
  a->null_count = a->length - qv_bitmap_count(vb->data, 0, a->length);
  if (a->null_count == 0) qv_bytes_release(vb);
  else a->buffers[0] = vb;
  return QV_OK;
}

/* Offsets of a zero-length array may be an empty buffer; give them one 0. */
static qv_status take_offsets(dec *d, qv_array *a) {
  qv_status st = next_buffer(d, &a->buffers[1]);
  if (st != QV_OK) return st;
  if (a->length == 0 && a->buffers[1]->size < 4) {
    qv_bytes_release(a->buffers[1]);
    a->buffers[1] = qv_bytes_alloc(4);
    if (!a->buffers[1]) return qv_error_nomem(d->err, NULL);
  }
  return need_bytes(d, a->buffers[1], (a->length + 1) * 4, "offsets");
}

static qv_status decode_array(dec *d, const qvc_ipc_field *info, bool as_value, qv_array **out);

/* The rest of a large_* (64-bit offsets) or *_view node, converted to
 * quiver's layout; a's validity (at offset 0) is already in place. */
static qv_status decode_foreign(dec *d, const qvc_ipc_field *info, qv_array *a) {
  qv_bytes *ob = NULL, *db = NULL, **vars = NULL;
  qv_array *child = NULL;
  qv_status st;
  char where[300];
  snprintf(where, sizeof where, "byte %lld: column '%s'", (long long)d->m->at, d->column);
  const uint8_t *bits = a->buffers[0] ? a->buffers[0]->data : NULL;
  if ((st = next_buffer(d, &ob)) != QV_OK) goto cleanup;
  if (info->phys == QV_PHYS_VIEW) {
    if (d->vi >= d->variadic.count) {
      st = dec_fail(d, d->m->at, "view column has no variadic buffer count");
      goto cleanup;
    }
    int64_t n = (int64_t)qv_load_u64le(qvc_fb_vector_elem(&d->variadic, d->vi++));
    if (n < 0 || n > (int64_t)d->bufs.count - d->bi) {
      st = dec_fail(d, d->m->at, "view column claims %lld data buffers", (long long)n);
      goto cleanup;
    }
    vars = qv_calloc(n > 0 ? (size_t)n : 1, sizeof *vars);
    const uint8_t **ptrs = qv_calloc(n > 0 ? (size_t)n : 1, sizeof *ptrs);
    int64_t *sizes = qv_calloc(n > 0 ? (size_t)n : 1, sizeof *sizes);
    if (!vars || !ptrs || !sizes) st = qv_error_nomem(d->err, NULL);
    for (int64_t i = 0; i < n && st == QV_OK; i++) {
      if ((st = next_buffer(d, &vars[i])) != QV_OK) break;
      ptrs[i] = vars[i]->data;
      sizes[i] = vars[i]->size;
    }
    if (st == QV_OK) st = need_bytes(d, ob, a->length * 16, "views");
    if (st == QV_OK)
      st = qvc_views_materialize(ob->data, 0, a->length, bits, ptrs, sizes, n, &a->buffers[1], &a->buffers[2], where,
                                 d->err);
    qv_free(ptrs);
    qv_free(sizes);
    for (int64_t i = 0; vars && i < n; i++) qv_bytes_release(vars[i]);
    goto cleanup;
  }
  int64_t first = 0, last = 0, size = -1;
  if (a->type.id != QV_TYPE_LIST) {
    if ((st = next_buffer(d, &db)) != QV_OK) goto cleanup;
    size = db->size;
  }
  if (a->length == 0 && ob->size < 8) {
    if (!(a->buffers[1] = qv_bytes_alloc(4))) st = qv_error_nomem(d->err, NULL);
  } else if ((st = need_bytes(d, ob, (a->length + 1) * 8, "64-bit offsets")) == QV_OK) {
    st = qvc_offsets_narrow(ob->data, 0, a->length, size, &a->buffers[1], &first, &last, where, d->err);
  }
  if (st != QV_OK) goto cleanup;
  if (a->type.id != QV_TYPE_LIST) {
    if (!(a->buffers[2] = qv_bytes_view(db, db->data + first, last - first))) st = qv_error_nomem(d->err, NULL);
    goto cleanup;
  }
  if ((st = decode_array(d, &info->children[0], false, &child)) != QV_OK) goto cleanup;
  if (last > child->length)
    st = dec_fail(d, d->m->at, "64-bit list offsets run past the child's %lld values", (long long)child->length);
  else st = qv_array_slice(child, first, last - first, &a->children[0], d->err);
cleanup:
  qv_free(vars);
  qv_array_release(child);
  qv_bytes_release(ob);
  qv_bytes_release(db);
  return st;
}

static qv_status decode_node(dec *d, const qv_datatype *type, const qvc_ipc_field *info, qv_array **out) {
  int64_t len = 0, nulls = 0;
  qv_bytes *vb = NULL;
  QV_RETURN_NOT_OK(next_node(d, &len, &nulls));
  qv_array *a = qvc_array_new(type, len);
  if (!a) return qv_error_nomem(d->err, NULL);
  qv_status st = QV_OK;
  if (type->id == QV_TYPE_NULL) {
    /* No buffers in IPC; quiver keeps an all-zero bitmap, shared by every
     * null column of the reader so that a hostile row count costs one
     * allocation, not one per column. */
    a->null_count = len;
    if (len > 0) {
      int64_t need = qv_bitmap_bytes(len);
      if (!d->r->zeros || d->r->zeros->size < need) {
        qv_bytes_release(d->r->zeros);
        if (!(d->r->zeros = qv_bytes_alloc(need))) st = qv_error_nomem(d->err, NULL);
      }
      a->buffers[0] = qv_bytes_retain(d->r->zeros);
    }
    goto cleanup;
  }
  if ((st = next_buffer(d, &vb)) != QV_OK) goto cleanup;
  if ((st = set_validity(d, a, vb, nulls)) != QV_OK) goto cleanup;
  int w = qv_type_byte_width(type->id);
  if (info->phys != QV_PHYS_PLAIN &&
      (type->id == QV_TYPE_STRING || type->id == QV_TYPE_BINARY || type->id == QV_TYPE_LIST)) {
    if (type->id == QV_TYPE_LIST && qvc_array_alloc_children(a, 1) != QV_OK) st = qv_error_nomem(d->err, NULL);
    else st = decode_foreign(d, info, a);
    goto cleanup;
  }
  switch (type->id) {
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY:
      if ((st = take_offsets(d, a)) != QV_OK) goto cleanup;
      st = next_buffer(d, &a->buffers[2]);
      break;
    case QV_TYPE_LIST:
    case QV_TYPE_STRUCT:
    case QV_TYPE_FIXED_SIZE_LIST:
      if (type->id == QV_TYPE_LIST && (st = take_offsets(d, a)) != QV_OK) goto cleanup;
      if (qvc_array_alloc_children(a, type->n_children) != QV_OK) {
        st = qv_error_nomem(d->err, NULL);
        goto cleanup;
      }
      for (int32_t i = 0; i < type->n_children; i++)
        if ((st = decode_array(d, &info->children[i], false, &a->children[i])) != QV_OK) goto cleanup;
      break;
    default:
      if ((st = next_buffer(d, &a->buffers[1])) != QV_OK) goto cleanup;
      st = need_bytes(d, a->buffers[1], w == 0 ? qv_bitmap_bytes(len) : len * w, "values");
      break;
  }
cleanup:
  if (st != QV_OK) {
    qv_array_release(a);
    return st;
  }
  *out = a;
  return QV_OK;
}

static qv_status decode_array(dec *d, const qvc_ipc_field *info, bool as_value, qv_array **out) {
  if (!info->dict || as_value) return decode_node(d, &info->field->type, info, out);
  qv_datatype it = qv_datatype_simple(info->dict_index);
  qv_array *idx = NULL;
  QV_RETURN_NOT_OK(decode_node(d, &it, info, &idx));
  dict_entry *e = find_dict(d->r, info->dict_id);
  qv_status st;
  if (!e || !e->values) {
    st = dec_fail(d, d->m->at, "dictionary id %lld was used before it was sent", (long long)info->dict_id);
  } else {
    char where[300];
    snprintf(where, sizeof where, "byte %lld: column '%s'", (long long)d->m->at, d->column);
    st = qvc_dictionary_decode(idx, e->values, out, where, d->err);
  }
  qv_array_release(idx);
  return st;
}

/* Decodes the RecordBatch table t (of message m) against fields[0..n). */
static qv_status decode_batch(ipc_reader *r, const msg *m, const qvc_fb_table *t, const qvc_ipc_field *fields,
                              int32_t n, bool as_value, int64_t *length, qv_array **cols, qv_error *err) {
  dec d = {r, m, {0}, {0}, {0}, 0, 0, 0, -1, "", err};
  bool present;
  qvc_fb_table comp;
  QV_RETURN_NOT_OK(qvc_fb_int(t, 0, 8, 0, length, err));
  if (*length < 0 || *length > INT32_MAX)
    return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: record batch length %lld is out of range", (long long)m->at,
                        (long long)*length);
  QV_RETURN_NOT_OK(qvc_fb_vector_field(t, 1, 16, &d.nodes, &present, err));
  QV_RETURN_NOT_OK(qvc_fb_vector_field(t, 2, 16, &d.bufs, &present, err));
  bool has_variadic;
  QV_RETURN_NOT_OK(qvc_fb_vector_field(t, 4, 8, &d.variadic, &has_variadic, err));
  QV_RETURN_NOT_OK(qvc_fb_table_field(t, 3, &comp, &present, err));
  if (present) {
    int64_t codec, method;
    QV_RETURN_NOT_OK(qvc_fb_int(&comp, 0, 1, 0, &codec, err));
    QV_RETURN_NOT_OK(qvc_fb_int(&comp, 1, 1, 0, &method, err));
    if (method != 0 || codec < 0 || codec > 1)
      return qv_error_set(err, QV_ERR_UNSUPPORTED, "byte %lld: unknown body compression %lld/%lld", (long long)m->at,
                          (long long)codec, (long long)method);
    d.codec = (int)codec;
  }
  for (int32_t i = 0; i < n; i++) {
    d.column = fields[i].field->name;
    qv_status st = decode_array(&d, &fields[i], as_value, &cols[i]);
    if (st == QV_OK && cols[i]->length != *length)
      st = dec_fail(&d, m->at, "has %lld rows, the batch %lld", (long long)cols[i]->length, (long long)*length);
    if (st == QV_OK && qv_array_validate(cols[i], err) != QV_OK)
      st = qv_error_prefix(err, QV_ERR_CORRUPT, "byte %lld: column '%s'", (long long)m->at, d.column);
    if (st != QV_OK) return st;
  }
  if (d.ni != d.nodes.count || d.bi != d.bufs.count)
    return qv_error_set(err, QV_ERR_CORRUPT,
                        "byte %lld: record batch has %u field nodes and %u buffers, the schema uses %u and %u",
                        (long long)m->at, d.nodes.count, d.bufs.count, d.ni, d.bi);
  return QV_OK;
}

static qv_status read_dictionary(ipc_reader *r, const msg *m, qv_error *err) {
  int64_t id, delta, length;
  qvc_fb_table data;
  bool present;
  qv_array *col = NULL;
  QV_RETURN_NOT_OK(qvc_fb_int(&m->header, 0, 8, 0, &id, err));
  QV_RETURN_NOT_OK(qvc_fb_table_field(&m->header, 1, &data, &present, err));
  QV_RETURN_NOT_OK(qvc_fb_int(&m->header, 2, 1, 0, &delta, err));
  if (!present) return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: dictionary batch has no data", (long long)m->at);
  dict_entry *e = find_dict(r, id);
  if (!e)
    return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: dictionary batch for id %lld, which no field uses",
                        (long long)m->at, (long long)id);
  qv_status st = decode_batch(r, m, &data, e->info, 1, true, &length, &col, err);
  if (st != QV_OK) {
    qv_array_release(col);
    return st;
  }
  if (delta && e->values) {
    qv_array *both[2] = {e->values, col}, *joined = NULL;
    st = qv_array_concat(both, 2, &joined, err);
    qv_array_release(col);
    if (st != QV_OK) return st;
    col = joined;
  }
  qv_array_release(e->values);
  e->values = col;
  return QV_OK;
}

static qv_status read_record_batch(ipc_reader *r, const msg *m, qv_batch **out, qv_error *err) {
  int32_t n = r->schema.n_fields;
  int64_t length;
  qv_array **cols = qv_calloc(n > 0 ? (size_t)n : 1, sizeof *cols);
  if (!cols) return qv_error_nomem(err, NULL);
  qv_status st = decode_batch(r, m, &m->header, r->fields, n, false, &length, cols, err);
  if (st == QV_OK) st = qv_batch_make(&r->schema, cols, length, out, err); /* takes the columns */
  else
    for (int32_t i = 0; i < n; i++) qv_array_release(cols[i]);
  qv_free(cols);
  return st;
}

/* ---- the file format's footer --------------------------------------------- */

static const uint8_t MAGIC[6] = {'A', 'R', 'R', 'O', 'W', '1'};

static qv_status read_block(ipc_reader *r, uint32_t i, const qvc_fb_vector *v, int want, msg *m, qv_error *err) {
  memset(m, 0, sizeof *m);
  const uint8_t *p = qvc_fb_vector_elem(v, i);
  int64_t off = (int64_t)qv_load_u64le(p);
  int64_t meta = (int32_t)qv_load_u32le(p + 8);
  int64_t body = (int64_t)qv_load_u64le(p + 16);
  int64_t at = r->footer.base + (int64_t)(p - r->footer.data);
  if (off < 8 || meta < 8 || body < 0 || off > r->footer_at || meta > r->footer_at - off ||
      body > r->footer_at - off - meta)
    return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: footer block %u [%lld, +%lld, +%lld] lies outside the file",
                        (long long)at, i, (long long)off, (long long)meta, (long long)body);
  r->s.pos = off;
  bool eos;
  QV_RETURN_NOT_OK(read_message(&r->s, meta, m, &eos, err));
  if (eos || m->type != want)
    return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: footer block %u does not hold a %s message", (long long)off, i,
                        want == QV_MSG_DICTIONARY ? "dictionary" : "record batch");
  if (m->body_len > body)
    return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: message body (%lld bytes) is longer than its block (%lld)",
                        (long long)off, (long long)m->body_len, (long long)body);
  return QV_OK;
}

static qv_status open_file(ipc_reader *r, qv_error *err) {
  int64_t size = r->s.size;
  uint8_t tail[10];
  r->s.pos = size - 10;
  if (size < 8 + 4 + 6 || src_read(&r->s, tail, 10) < 10 || memcmp(tail + 4, MAGIC, 6) != 0)
    return qv_error_set(err, r->s.failed ? QV_ERR_IO : QV_ERR_CORRUPT, "byte %lld: Arrow file does not end with ARROW1",
                        (long long)size);
  int64_t flen = (int32_t)qv_load_u32le(tail);
  if (flen <= 0 || flen > size - 10 - 8)
    return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: footer length %lld does not fit the file",
                        (long long)(size - 10), (long long)flen);
  r->footer_at = size - 10 - flen;
  r->s.pos = r->footer_at;
  QV_RETURN_NOT_OK(src_take(&r->s, flen, "footer", &r->footer_bytes, err));
  r->footer.data = r->footer_bytes->data;
  r->footer.size = (uint32_t)flen;
  r->footer.base = r->footer_at;
  qvc_fb_table root, schema;
  qvc_fb_vector dicts;
  bool present;
  QV_RETURN_NOT_OK(qvc_fb_root(&r->footer, &root, err));
  QV_RETURN_NOT_OK(qvc_fb_table_field(&root, 1, &schema, &present, err));
  if (!present) return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: footer has no schema", (long long)r->footer_at);
  QV_RETURN_NOT_OK(qvc_ipc_schema_decode(&schema, &r->schema, &r->fields, err));
  QV_RETURN_NOT_OK(register_dicts(r, r->fields, r->schema.n_fields, err));
  QV_RETURN_NOT_OK(qvc_fb_vector_field(&root, 2, 24, &dicts, &present, err));
  QV_RETURN_NOT_OK(qvc_fb_vector_field(&root, 3, 24, &r->blocks, &present, err));
  for (uint32_t i = 0; i < dicts.count; i++) {
    msg m;
    qv_status st = read_block(r, i, &dicts, QV_MSG_DICTIONARY, &m, err);
    if (st == QV_OK) st = read_dictionary(r, &m, err);
    msg_reset(&m);
    if (st != QV_OK) return st;
  }
  return QV_OK;
}

static qv_status open_stream(ipc_reader *r, qv_error *err) {
  msg m;
  bool eos;
  qv_status st = read_message(&r->s, -1, &m, &eos, err);
  if (st == QV_OK && eos) st = qv_error_set(err, QV_ERR_CORRUPT, "byte 0: stream ends before its schema");
  if (st == QV_OK && m.type != QV_MSG_SCHEMA)
    st = qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: stream starts with message type %d, not a schema",
                      (long long)m.at, m.type);
  if (st == QV_OK) st = qvc_ipc_schema_decode(&m.header, &r->schema, &r->fields, err);
  if (st == QV_OK) st = register_dicts(r, r->fields, r->schema.n_fields, err);
  msg_reset(&m);
  return st;
}

/* ---- qv_batch_reader ------------------------------------------------------ */

static qv_status reader_next_inner(ipc_reader *r, qv_batch **out, qv_error *err) {
  while (!r->done) {
    msg m;
    bool eos = false;
    qv_status st;
    if (r->is_file) {
      if (r->next_block >= r->blocks.count) break;
      st = read_block(r, r->next_block++, &r->blocks, QV_MSG_RECORD_BATCH, &m, err);
    } else {
      st = read_message(&r->s, -1, &m, &eos, err);
    }
    if (st == QV_OK && eos) {
      msg_reset(&m);
      break;
    }
    if (st == QV_OK) {
      switch (m.type) {
        case QV_MSG_RECORD_BATCH: st = read_record_batch(r, &m, out, err); break;
        case QV_MSG_DICTIONARY: st = read_dictionary(r, &m, err); break;
        case QV_MSG_SCHEMA:
          st = qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: a second schema message", (long long)m.at);
          break;
        default:
          st = qv_error_set(err, QV_ERR_UNSUPPORTED, "byte %lld: message type %d (tensors) is not supported",
                            (long long)m.at, m.type);
          break;
      }
    }
    bool got = st == QV_OK && m.type == QV_MSG_RECORD_BATCH;
    msg_reset(&m);
    if (st != QV_OK || got) return st;
  }
  r->done = true;
  return QV_OK;
}

static qv_status reader_next(qv_batch_reader *self, qv_batch **out, qv_error *err) {
  ipc_reader *r = self->private_data;
  *out = NULL;
  if (r->failed != QV_OK) return qv_error_set(err, r->failed, "ipc: the reader already failed; no more batches");
  qv_status st = reader_next_inner(r, out, err);
  if (st != QV_OK) r->failed = st;
  return st;
}

static const qv_schema *reader_schema(qv_batch_reader *self) { return &((ipc_reader *)self->private_data)->schema; }

static void reader_destroy(qv_batch_reader *self) {
  ipc_reader *r = self->private_data;
  for (int32_t i = 0; i < r->n_dicts; i++) qv_array_release(r->dicts[i].values);
  qv_free(r->dicts);
  qvc_ipc_fields_free(r->fields, r->schema.n_fields);
  qv_schema_reset(&r->schema);
  qv_bytes_release(r->s.mem);
  if (r->s.fd >= 0) close(r->s.fd);
  if (r->s.own_f) fclose(r->s.f);
  qv_bytes_release(r->footer_bytes);
  qv_bytes_release(r->zeros);
  qv_free(r);
}

/* Takes mem (memory mode), f with up to 8 sniffed bytes (FILE mode), or
 * fd >= 0 with its size (descriptor mode; fd is closed with the reader,
 * or here on failure). */
static qv_status reader_open(qv_bytes *mem, FILE *f, const uint8_t *peek, int npeek, int fd, int64_t fd_size,
                             qv_batch_reader **out, qv_error *err) {
  ipc_reader *r = qv_calloc(1, sizeof *r);
  if (!r) {
    qv_bytes_release(mem);
    if (fd >= 0) close(fd);
    return qv_error_nomem(err, NULL);
  }
  r->base.next = reader_next;
  r->base.schema = reader_schema;
  r->base.destroy = reader_destroy;
  r->base.private_data = r;
  r->s.mem = mem;
  r->s.f = f;
  r->s.fd = fd;
  r->s.size = mem ? mem->size : fd_size;
  if (npeek) memcpy(r->s.peek, peek, (size_t)npeek);
  r->s.npeek = npeek;
  if (mem) {
    r->is_file = mem->size >= 6 && memcmp(mem->data, MAGIC, 6) == 0;
  } else if (fd >= 0) {
    uint8_t head[6];
    r->is_file = src_read(&r->s, head, 6) == 6 && memcmp(head, MAGIC, 6) == 0;
    r->s.pos = 0;
  }
  if (r->is_file) r->s.pos = 8;
  qv_status st = r->is_file ? open_file(r, err) : open_stream(r, err);
  if (st != QV_OK) {
    reader_destroy(&r->base);
    return st;
  }
  *out = &r->base;
  return QV_OK;
}

qv_status qv_ipc_read_buffer(const uint8_t *data, int64_t size, qv_batch_reader **out, qv_error *err) {
  if (!out || size < 0 || (size > 0 && !data)) return qv_error_set(err, QV_ERR_INVALID, "ipc: invalid buffer");
  qv_bytes *mem = qv_bytes_alloc(size);
  if (!mem) return qv_error_set(err, QV_ERR_NOMEM, "ipc: cannot copy %lld bytes", (long long)size);
  if (size) memcpy(qv_bytes_mutable(mem), data, (size_t)size);
  return reader_open(mem, NULL, NULL, 0, -1, 0, out, err);
}

/* Reads the rest of f into one buffer. */
static qv_status slurp(FILE *f, const uint8_t *head, int nhead, qv_bytes **out, qv_error *err) {
  qv_buffer b = QV_BUFFER_INIT;
  qv_status st = qv_buffer_append(&b, head, nhead);
  while (st == QV_OK) {
    if ((st = qv_buffer_reserve(&b, 1 << 16)) != QV_OK) break;
    size_t got = fread(b.data + b.size, 1, (size_t)(b.capacity - b.size), f);
    b.size += (int64_t)got;
    if (got == 0) break;
  }
  if (st == QV_OK && ferror(f)) {
    qv_buffer_reset(&b);
    return qv_error_set(err, QV_ERR_IO, "read failed");
  }
  if (st == QV_OK) st = qv_buffer_finish(&b, out);
  qv_buffer_reset(&b);
  return st == QV_OK ? QV_OK : qv_error_set(err, st, "out of memory");
}

/* qv_ipc_read_file; with own_f, f is closed with the reader (or here, once
 * read whole or on failure). */
static qv_status read_from(FILE *f, bool own_f, qv_batch_reader **out, qv_error *err) {
  uint8_t head[8];
  int n = (int)fread(head, 1, sizeof head, f);
  qv_status st;
  if (n >= 6 && memcmp(head, MAGIC, 6) == 0) {
    /* The file format needs its footer.  A regular file that starts where
     * f started (stdin redirected from a file) is read by positioned reads
     * on a copy of its descriptor; anything else is read whole. */
    struct stat sb;
    int fd = fileno(f);
    qv_bytes *mem = NULL;
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && ftello(f) == n && (fd = dup(fd)) >= 0)
      st = reader_open(NULL, NULL, NULL, 0, fd, (int64_t)sb.st_size, out, err);
    else if ((st = slurp(f, head, n, &mem, err)) == QV_OK) st = reader_open(mem, NULL, NULL, 0, -1, 0, out, err);
  } else {
    st = reader_open(NULL, f, head, n, -1, 0, out, err);
    if (st == QV_OK) { /* f stays in use, as the reader's */
      ((ipc_reader *)(*out)->private_data)->s.own_f = own_f;
      return QV_OK;
    }
  }
  if (own_f) fclose(f);
  return st;
}

qv_status qv_ipc_read_path(const char *path, qv_batch_reader **out, qv_error *err) {
  if (!path || !out) return qv_error_set(err, QV_ERR_INVALID, "ipc: no path");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0) {
    qv_status st = qv_error_set(err, QV_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return st;
  }
  if (S_ISDIR(sb.st_mode)) {
    close(fd);
    return qv_error_set(err, QV_ERR_IO, "%s: is a directory, not an Arrow IPC file", path);
  }
  qv_status st;
  if (S_ISREG(sb.st_mode)) {
    st = reader_open(NULL, NULL, NULL, 0, fd, (int64_t)sb.st_size, out, err);
  } else { /* a pipe or a device: read in order, as from stdin */
    FILE *f = fdopen(fd, "rb");
    if (!f) {
      close(fd);
      return qv_error_set(err, QV_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    st = read_from(f, true, out, err);
  }
  if (st != QV_OK) return qv_error_prefix(err, st, "%s", path);
  return QV_OK;
}

qv_status qv_ipc_read_file(FILE *f, qv_batch_reader **out, qv_error *err) {
  if (!f || !out) return qv_error_set(err, QV_ERR_INVALID, "ipc: no file");
  return read_from(f, false, out, err);
}
