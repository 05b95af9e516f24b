/* Arrow IPC writing, stream and file formats (metadata version V5).
 *
 * Every message is a continuation marker (0xFFFFFFFF), the metadata length,
 * the Message flatbuffer padded to 8 bytes, then the body, each buffer of
 * which starts on an 8-byte boundary.  The file format wraps the same
 * messages in "ARROW1\0\0" ... Footer, footer length, "ARROW1".
 *
 * IPC has no array offsets, so sliced arrays are normalized on the way out:
 * byte-aligned buffers are written in place, validity bits at an unaligned
 * offset and offsets that do not start at 0 are rewritten into temporaries,
 * and children are narrowed to the range their parent uses. */
#include <string.h>

#include "columnar/ipc_int.h"

struct qv_ipc_writer {
  FILE *f;
  qv_ipc_format format;
  qv_schema schema;
  int64_t pos;      /* bytes written so far */
  qv_buffer blocks; /* file format: one 24-byte Block per record batch */
  uint32_t n_blocks;
};

static qv_status out(qv_ipc_writer *w, const void *p, int64_t n, qv_error *err) {
  if (n > 0 && fwrite(p, 1, (size_t)n, w->f) != (size_t)n)
    return qv_error_set(err, QV_ERR_IO, "ipc: write failed at byte %lld", (long long)w->pos);
  w->pos += n;
  return QV_OK;
}

static qv_status out_pad(qv_ipc_writer *w, int64_t n, qv_error *err) {
  static const uint8_t zeros[8] = {0};
  return out(w, zeros, (8 - n % 8) % 8, err);
}

/* ---- bodies --------------------------------------------------------------- */

typedef struct part {
  const uint8_t *data;
  int64_t len;
  qv_bytes *owned; /* a rewritten buffer, released after writing */
} part;

typedef struct body {
  qv_buffer nodes; /* FieldNode structs, 16 bytes each */
  qv_buffer bufs;  /* Buffer structs, 16 bytes each */
  part *parts;
  int32_t n_parts, cap_parts;
  int64_t size; /* padded body length so far */
} body;

static void body_reset(body *b) {
  for (int32_t i = 0; i < b->n_parts; i++) qv_bytes_release(b->parts[i].owned);
  qv_free(b->parts);
  qv_buffer_reset(&b->nodes);
  qv_buffer_reset(&b->bufs);
}

static qv_status add_pair(qv_buffer *to, int64_t a, int64_t b) {
  uint8_t p[16];
  qv_store_u64le(p, (uint64_t)a);
  qv_store_u64le(p + 8, (uint64_t)b);
  return qv_buffer_append(to, p, 16);
}

static qv_status add_part(body *b, const uint8_t *data, int64_t len, qv_bytes *owned) {
  if (b->n_parts == b->cap_parts) {
    int32_t cap = b->cap_parts ? b->cap_parts * 2 : 16;
    part *p = qv_realloc(b->parts, (size_t)cap * sizeof *p);
    if (!p) {
      qv_bytes_release(owned);
      return QV_ERR_NOMEM;
    }
    b->parts = p;
    b->cap_parts = cap;
  }
  b->parts[b->n_parts++] = (part){data, len, owned};
  QV_RETURN_NOT_OK(add_pair(&b->bufs, b->size, len));
  b->size += (len + 7) & ~(int64_t)7;
  return QV_OK;
}

/* length bits starting at bit `at` of bits. */
static qv_status add_bits(body *b, const uint8_t *bits, int64_t at, int64_t length) {
  int64_t n = qv_bitmap_bytes(length);
  if ((at & 7) == 0) return add_part(b, bits + at / 8, n, NULL);
  qv_bytes *c = qv_bytes_alloc(n);
  if (!c) return QV_ERR_NOMEM;
  qv_bitmap_copy(qv_bytes_mutable(c), 0, bits, at, length);
  return add_part(b, c->data, n, c);
}

/* Offsets [at, at + length] rebased to start at 0. */
static qv_status add_offsets(body *b, const int32_t *o, int64_t at, int64_t length) {
  if (o[at] == 0) return add_part(b, (const uint8_t *)(o + at), (length + 1) * 4, NULL);
  qv_bytes *c = qv_bytes_alloc((length + 1) * 4);
  if (!c) return QV_ERR_NOMEM;
  int32_t *d = (int32_t *)qv_bytes_mutable(c);
  for (int64_t i = 0; i <= length; i++) d[i] = o[at + i] - o[at];
  return add_part(b, c->data, (length + 1) * 4, c);
}

/* Appends rows [start, start + length) of a (logical positions, before
 * a->offset) as nodes and buffers in Arrow's pre-order. */
static qv_status emit(body *b, const qv_array *a, int64_t start, int64_t length) {
  int64_t at = a->offset + start;
  if (a->type.id == QV_TYPE_NULL) return add_pair(&b->nodes, length, length);
  int64_t nulls = 0;
  if (a->buffers[0] && length > 0) nulls = length - qv_bitmap_count(a->buffers[0]->data, at, length);
  QV_RETURN_NOT_OK(add_pair(&b->nodes, length, nulls));
  if (nulls > 0) QV_RETURN_NOT_OK(add_bits(b, a->buffers[0]->data, at, length));
  else QV_RETURN_NOT_OK(add_part(b, NULL, 0, NULL));
  switch (a->type.id) {
    case QV_TYPE_BOOL: return add_bits(b, a->buffers[1]->data, at, length);
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: {
      const int32_t *o = (const int32_t *)a->buffers[1]->data;
      QV_RETURN_NOT_OK(add_offsets(b, o, at, length));
      return add_part(b, a->buffers[2]->data + o[at], o[at + length] - o[at], NULL);
    }
    case QV_TYPE_LIST: {
      const int32_t *o = (const int32_t *)a->buffers[1]->data;
      QV_RETURN_NOT_OK(add_offsets(b, o, at, length));
      return emit(b, a->children[0], o[at], o[at + length] - o[at]);
    }
    case QV_TYPE_FIXED_SIZE_LIST: {
      int64_t n = a->type.list_size;
      return emit(b, a->children[0], at * n, length * n);
    }
    case QV_TYPE_STRUCT:
      for (int32_t i = 0; i < a->n_children; i++) QV_RETURN_NOT_OK(emit(b, a->children[i], at, length));
      return QV_OK;
    default: {
      int w = qv_type_byte_width(a->type.id);
      return add_part(b, a->buffers[1]->data + at * w, length * w, NULL);
    }
  }
}

/* ---- messages ------------------------------------------------------------- */

/* Starts a Message; *header_slot receives the header's placeholder. */
static void message_begin(qvc_fb_builder *fb, int type, int64_t body_len, uint32_t *header_slot) {
  qvc_fb_tdef d;
  uint32_t slots[QV_FB_MAX_FIELDS];
  qvc_fb_builder_init(fb);
  qvc_fb_tdef_init(&d);
  qvc_fb_add_scalar(&d, 0, 2, QV_IPC_METADATA_V5);
  qvc_fb_add_scalar(&d, 1, 1, (uint64_t)type);
  qvc_fb_add_ref(&d, 2);
  qvc_fb_add_scalar(&d, 3, 8, (uint64_t)body_len);
  uint32_t pos = qvc_fb_write_table(fb, &d, slots);
  qvc_fb_patch(fb, 0, pos);
  *header_slot = slots[2];
}

/* Writes prefix + metadata (+ the body parts); records a Block if asked. */
static qv_status write_message(qv_ipc_writer *w, qvc_fb_builder *fb, const body *b, bool block, qv_error *err) {
  if (fb->status != QV_OK) return qv_error_set(err, fb->status, "ipc: out of memory building metadata");
  int64_t start = w->pos;
  int64_t meta = (fb->buf.size + 7) & ~(int64_t)7;
  if (meta > INT32_MAX) return qv_error_set(err, QV_ERR_OVERFLOW, "ipc: metadata too large");
  uint8_t pre[8];
  qv_store_u32le(pre, QV_IPC_CONTINUATION);
  qv_store_u32le(pre + 4, (uint32_t)meta);
  QV_RETURN_NOT_OK(out(w, pre, 8, err));
  QV_RETURN_NOT_OK(out(w, fb->buf.data, fb->buf.size, err));
  QV_RETURN_NOT_OK(out_pad(w, fb->buf.size, err));
  int64_t body_len = 0;
  for (int32_t i = 0; b && i < b->n_parts; i++) {
    if (b->parts[i].len > 0) QV_RETURN_NOT_OK(out(w, b->parts[i].data, b->parts[i].len, err));
    QV_RETURN_NOT_OK(out_pad(w, b->parts[i].len, err));
    body_len += (b->parts[i].len + 7) & ~(int64_t)7;
  }
  if (block) {
    uint8_t blk[24] = {0};
    qv_store_u64le(blk, (uint64_t)start);
    qv_store_u32le(blk + 8, (uint32_t)(8 + meta));
    qv_store_u64le(blk + 16, (uint64_t)body_len);
    if (qv_buffer_append(&w->blocks, blk, 24) != QV_OK) return qv_error_nomem(err, NULL);
    w->n_blocks++;
  }
  return QV_OK;
}

qv_status qv_ipc_writer_open(FILE *f, qv_ipc_format format, const qv_schema *schema, qv_ipc_writer **out_w,
                             qv_error *err) {
  if (!f || !schema || !out_w || (format != QV_IPC_STREAM && format != QV_IPC_FILE))
    return qv_error_set(err, QV_ERR_INVALID, "ipc: invalid writer arguments");
  QV_RETURN_NOT_OK(qvc_ipc_schema_check(schema, err));
  qv_ipc_writer *w = qv_calloc(1, sizeof *w);
  if (!w) return qv_error_nomem(err, NULL);
  w->f = f;
  w->format = format;
  qv_status st = QV_OK;
  qvc_fb_builder fb = {QV_BUFFER_INIT, QV_OK};
  if (qv_schema_copy(schema, &w->schema) != QV_OK) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  if (format == QV_IPC_FILE && (st = out(w, "ARROW1\0\0", 8, err)) != QV_OK) goto cleanup;
  uint32_t slot;
  message_begin(&fb, QV_MSG_SCHEMA, 0, &slot);
  qvc_fb_patch(&fb, slot, qvc_ipc_schema_encode(&fb, schema, err));
  st = write_message(w, &fb, NULL, false, err);
cleanup:
  qvc_fb_builder_reset(&fb);
  if (st != QV_OK) {
    qv_ipc_writer_destroy(w);
    return st;
  }
  *out_w = w;
  return QV_OK;
}

qv_status qv_ipc_writer_write(qv_ipc_writer *w, const qv_batch *batch, qv_error *err) {
  if (!w || !batch) return qv_error_set(err, QV_ERR_INVALID, "ipc: no writer or batch");
  if (batch->schema.n_fields != w->schema.n_fields)
    return qv_error_set(err, QV_ERR_TYPE, "ipc: batch has %d columns, the stream's schema %d", batch->schema.n_fields,
                        w->schema.n_fields);
  for (int32_t i = 0; i < w->schema.n_fields; i++) {
    const qv_array *c = batch->columns[i];
    if (!qv_datatype_equal(&c->type, &w->schema.fields[i].type) ||
        !qv_datatype_equal(&batch->schema.fields[i].type, &w->schema.fields[i].type))
      return qv_error_set(err, QV_ERR_TYPE, "ipc: column %d ('%s') does not have the stream's type", i,
                          w->schema.fields[i].name);
    if (c->length != batch->num_rows)
      return qv_error_set(err, QV_ERR_INVALID, "ipc: column %d has %lld rows, the batch %lld", i, (long long)c->length,
                          (long long)batch->num_rows);
  }
  body b;
  memset(&b, 0, sizeof b);
  qvc_fb_builder fb = {QV_BUFFER_INIT, QV_OK};
  qv_status st = QV_OK;
  for (int32_t i = 0; i < w->schema.n_fields && st == QV_OK; i++) st = emit(&b, batch->columns[i], 0, batch->num_rows);
  if (st != QV_OK) {
    st = qv_error_set(err, st, "ipc: cannot lay out the record batch");
    goto cleanup;
  }
  uint32_t hslot, slots[QV_FB_MAX_FIELDS];
  message_begin(&fb, QV_MSG_RECORD_BATCH, b.size, &hslot);
  qvc_fb_tdef d;
  qvc_fb_tdef_init(&d);
  qvc_fb_add_scalar(&d, 0, 8, (uint64_t)batch->num_rows);
  qvc_fb_add_ref(&d, 1);
  qvc_fb_add_ref(&d, 2);
  qvc_fb_patch(&fb, hslot, qvc_fb_write_table(&fb, &d, slots));
  qvc_fb_patch(&fb, slots[1], qvc_fb_write_struct_vector(&fb, b.nodes.data, (uint32_t)(b.nodes.size / 16), 16, 8));
  qvc_fb_patch(&fb, slots[2], qvc_fb_write_struct_vector(&fb, b.bufs.data, (uint32_t)(b.bufs.size / 16), 16, 8));
  st = write_message(w, &fb, &b, w->format == QV_IPC_FILE, err);
cleanup:
  qvc_fb_builder_reset(&fb);
  body_reset(&b);
  return st;
}

static qv_status write_footer(qv_ipc_writer *w, qv_error *err) {
  qvc_fb_builder fb;
  qvc_fb_tdef d;
  uint32_t slots[QV_FB_MAX_FIELDS];
  qvc_fb_builder_init(&fb);
  qvc_fb_tdef_init(&d);
  qvc_fb_add_scalar(&d, 0, 2, QV_IPC_METADATA_V5);
  qvc_fb_add_ref(&d, 1);
  qvc_fb_add_ref(&d, 2);
  qvc_fb_add_ref(&d, 3);
  uint32_t pos = qvc_fb_write_table(&fb, &d, slots);
  qvc_fb_patch(&fb, 0, pos);
  qvc_fb_patch(&fb, slots[1], qvc_ipc_schema_encode(&fb, &w->schema, err));
  qvc_fb_patch(&fb, slots[2], qvc_fb_write_struct_vector(&fb, NULL, 0, 24, 8));
  qvc_fb_patch(&fb, slots[3], qvc_fb_write_struct_vector(&fb, w->blocks.data, w->n_blocks, 24, 8));
  qv_status st = fb.status;
  if (st != QV_OK) st = qv_error_set(err, st, "ipc: out of memory building the footer");
  uint8_t tail[10];
  qv_store_u32le(tail, (uint32_t)fb.buf.size);
  memcpy(tail + 4, "ARROW1", 6);
  if (st == QV_OK) st = out(w, fb.buf.data, fb.buf.size, err);
  if (st == QV_OK) st = out(w, tail, 10, err);
  qvc_fb_builder_reset(&fb);
  return st;
}

qv_status qv_ipc_writer_close(qv_ipc_writer *w, qv_error *err) {
  if (!w) return qv_error_set(err, QV_ERR_INVALID, "ipc: no writer");
  static const uint8_t eos[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
  qv_status st = out(w, eos, 8, err);
  if (st == QV_OK && w->format == QV_IPC_FILE) st = write_footer(w, err);
  if (st == QV_OK && fflush(w->f) != 0) st = qv_error_set(err, QV_ERR_IO, "ipc: flush failed");
  qv_ipc_writer_destroy(w);
  return st;
}

void qv_ipc_writer_destroy(qv_ipc_writer *w) {
  if (!w) return;
  qv_schema_reset(&w->schema);
  qv_buffer_reset(&w->blocks);
  qv_free(w);
}
