/* A small FlatBuffers reader and writer, just enough for Arrow's Schema,
 * Message and Footer tables.
 *
 * Reading: every table, vtable, string and vector is bounds-checked against
 * the flatbuffer's size before a byte of it is read, and all loads are
 * byte-wise, so hostile metadata can produce an error but never an
 * out-of-bounds or misaligned access.  Errors name the absolute byte offset.
 *
 * Writing: top-down (parents first, children appended after them and their
 * uoffsets patched), with every scalar aligned to its size so that strict
 * verifiers such as Arrow C++'s accept the result. */
#include "columnar/ipc_int.h"

#include <string.h>

/* ---- reading ----------------------------------------------------------- */

static inline uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static qv_status fb_fail(const qvc_fb_view *v, uint64_t pos, const char *what, qv_error *err) {
  return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: flatbuffer metadata: %s", (long long)(v->base + (int64_t)pos),
                      what);
}

static qv_status open_table(const qvc_fb_view *v, uint64_t pos, qvc_fb_table *out, qv_error *err) {
  if (pos > v->size || v->size - pos < 4) return fb_fail(v, pos, "table starts past the end", err);
  int32_t soff = (int32_t)qv_load_u32le(v->data + pos);
  int64_t vt = (int64_t)pos - (int64_t)soff;
  if (vt < 0 || vt > (int64_t)v->size - 4) return fb_fail(v, pos, "table's vtable is out of bounds", err);
  uint16_t vt_size = ld16(v->data + vt);
  uint16_t tbl_size = ld16(v->data + vt + 2);
  if (vt_size < 4 || (vt_size & 1) || (uint64_t)vt + vt_size > v->size)
    return fb_fail(v, (uint64_t)vt, "vtable size is invalid", err);
  if (tbl_size < 4 || pos + tbl_size > v->size) return fb_fail(v, pos, "table size runs past the end", err);
  out->view = v;
  out->pos = (uint32_t)pos;
  out->vtable = (uint32_t)vt;
  out->vt_size = vt_size;
  out->tbl_size = tbl_size;
  return QV_OK;
}

qv_status qvc_fb_root(const qvc_fb_view *view, qvc_fb_table *out, qv_error *err) {
  if (view->size < 8) return fb_fail(view, 0, "too short to hold a root table", err);
  return open_table(view, qv_load_u32le(view->data), out, err);
}

/* Offset of field id inside the table (0 when absent), checked to leave
 * `size` bytes inside the table's inline part. */
static qv_status field_off(const qvc_fb_table *t, int id, uint32_t size, uint32_t *off, qv_error *err) {
  uint32_t slot = 4u + 2u * (uint32_t)id;
  *off = 0;
  if (slot + 2 > t->vt_size) return QV_OK;
  uint16_t o = ld16(t->view->data + t->vtable + slot);
  if (o == 0) return QV_OK;
  if ((uint32_t)o + size > t->tbl_size) return fb_fail(t->view, t->pos, "field lies outside its table", err);
  *off = o;
  return QV_OK;
}

qv_status qvc_fb_int(const qvc_fb_table *t, int id, int size, int64_t def, int64_t *out, qv_error *err) {
  uint32_t off;
  QV_RETURN_NOT_OK(field_off(t, id, (uint32_t)size, &off, err));
  if (!off) {
    *out = def;
    return QV_OK;
  }
  const uint8_t *p = t->view->data + t->pos + off;
  switch (size) {
    case 1: *out = (int8_t)p[0]; break;
    case 2: *out = (int16_t)ld16(p); break;
    case 4: *out = (int32_t)qv_load_u32le(p); break;
    default: *out = (int64_t)qv_load_u64le(p); break;
  }
  return QV_OK;
}

/* Follows the uoffset of a reference field; *target is 0 when absent. */
static qv_status follow(const qvc_fb_table *t, int id, uint32_t min_bytes, uint64_t *target, qv_error *err) {
  uint32_t off;
  *target = 0;
  QV_RETURN_NOT_OK(field_off(t, id, 4, &off, err));
  if (!off) return QV_OK;
  uint64_t slot = (uint64_t)t->pos + off;
  uint64_t to = slot + qv_load_u32le(t->view->data + slot);
  if (to > t->view->size || t->view->size - to < min_bytes)
    return fb_fail(t->view, slot, "reference points past the end", err);
  *target = to;
  return QV_OK;
}

qv_status qvc_fb_table_field(const qvc_fb_table *t, int id, qvc_fb_table *out, bool *present, qv_error *err) {
  uint64_t to;
  QV_RETURN_NOT_OK(follow(t, id, 4, &to, err));
  *present = to != 0;
  if (!to) return QV_OK;
  return open_table(t->view, to, out, err);
}

qv_status qvc_fb_string(const qvc_fb_table *t, int id, const char **s, uint32_t *len, bool *present, qv_error *err) {
  uint64_t to;
  QV_RETURN_NOT_OK(follow(t, id, 4, &to, err));
  *present = to != 0;
  *s = NULL;
  *len = 0;
  if (!to) return QV_OK;
  uint32_t n = qv_load_u32le(t->view->data + to);
  if ((uint64_t)n > t->view->size - to - 4) return fb_fail(t->view, to, "string runs past the end", err);
  *s = (const char *)t->view->data + to + 4;
  *len = n;
  return QV_OK;
}

qv_status qvc_fb_vector_field(const qvc_fb_table *t, int id, uint32_t elem_size, qvc_fb_vector *out, bool *present,
                              qv_error *err) {
  uint64_t to;
  QV_RETURN_NOT_OK(follow(t, id, 4, &to, err));
  *present = to != 0;
  memset(out, 0, sizeof *out);
  out->view = t->view;
  out->elem_size = elem_size;
  if (!to) return QV_OK;
  uint32_t n = qv_load_u32le(t->view->data + to);
  if ((uint64_t)n * elem_size > t->view->size - to - 4) return fb_fail(t->view, to, "vector runs past the end", err);
  out->pos = (uint32_t)(to + 4);
  out->count = n;
  return QV_OK;
}

qv_status qvc_fb_vector_table(const qvc_fb_vector *v, uint32_t i, qvc_fb_table *out, qv_error *err) {
  if (i >= v->count || v->elem_size != 4) return fb_fail(v->view, v->pos, "bad vector element", err);
  uint64_t slot = (uint64_t)v->pos + 4u * (uint64_t)i;
  uint64_t to = slot + qv_load_u32le(v->view->data + slot);
  return open_table(v->view, to, out, err);
}

/* ---- writing ----------------------------------------------------------- */

static void put(qvc_fb_builder *b, const void *src, int64_t n) {
  if (b->status == QV_OK) b->status = qv_buffer_append(&b->buf, src, n);
}

static void pad_to(qvc_fb_builder *b, uint32_t align) {
  static const uint8_t zeros[8] = {0};
  int64_t rem = b->buf.size % align;
  if (rem) put(b, zeros, align - rem);
}

static uint32_t here(const qvc_fb_builder *b) { return (uint32_t)b->buf.size; }

static void put_u16(qvc_fb_builder *b, uint16_t v) {
  uint8_t p[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
  put(b, p, 2);
}

static void put_u32(qvc_fb_builder *b, uint32_t v) {
  uint8_t p[4];
  qv_store_u32le(p, v);
  put(b, p, 4);
}

void qvc_fb_builder_init(qvc_fb_builder *b) {
  qv_buffer init = QV_BUFFER_INIT;
  b->buf = init;
  b->status = QV_OK;
  put_u32(b, 0); /* root uoffset, patched by the caller */
  put_u32(b, 0); /* keeps the first table 8-aligned */
}

void qvc_fb_builder_reset(qvc_fb_builder *b) { qv_buffer_reset(&b->buf); }

void qvc_fb_tdef_init(qvc_fb_tdef *t) { memset(t, 0, sizeof *t); }

void qvc_fb_add_scalar(qvc_fb_tdef *t, int id, int size, uint64_t value) {
  if (t->n >= QV_FB_MAX_FIELDS) return;
  t->f[t->n].id = (uint8_t)id;
  t->f[t->n].size = (uint8_t)size;
  t->f[t->n].ref = false;
  t->f[t->n].value = value;
  t->n++;
}

void qvc_fb_add_ref(qvc_fb_tdef *t, int id) {
  qvc_fb_add_scalar(t, id, 4, 0);
  t->f[t->n - 1].ref = true;
}

uint32_t qvc_fb_write_table(qvc_fb_builder *b, const qvc_fb_tdef *t, uint32_t slots[QV_FB_MAX_FIELDS]) {
  uint16_t offs[QV_FB_MAX_FIELDS] = {0};
  int max_id = -1;
  uint32_t off = 4, align = 4;
  /* Largest scalars first: each lands on a multiple of its size with the
   * least padding, given a table start aligned to the largest. */
  for (int size = 8; size >= 1; size /= 2) {
    for (int i = 0; i < t->n; i++) {
      if (t->f[i].size != size) continue;
      off = (off + (uint32_t)size - 1) & ~((uint32_t)size - 1);
      offs[i] = (uint16_t)off;
      off += (uint32_t)size;
      if ((uint32_t)size > align) align = (uint32_t)size;
    }
  }
  for (int i = 0; i < t->n; i++)
    if (t->f[i].id > max_id) max_id = t->f[i].id;
  uint16_t vt_size = (uint16_t)(4 + 2 * (max_id + 1));
  uint16_t tbl_size = (uint16_t)((off + 3) & ~3u);

  pad_to(b, 2);
  uint32_t vt = here(b);
  put_u16(b, vt_size);
  put_u16(b, tbl_size);
  for (int id = 0; id <= max_id; id++) {
    uint16_t o = 0;
    for (int i = 0; i < t->n; i++)
      if (t->f[i].id == id) o = offs[i];
    put_u16(b, o);
  }
  pad_to(b, align);
  uint32_t pos = here(b);
  uint8_t inline_bytes[4 + 8 * QV_FB_MAX_FIELDS + 8] = {0};
  qv_store_u32le(inline_bytes, pos - vt); /* vtable = table - soffset */
  for (int i = 0; i < t->n; i++) {
    uint8_t *p = inline_bytes + offs[i];
    uint64_t v = t->f[i].value;
    for (int k = 0; k < t->f[i].size; k++) p[k] = (uint8_t)(v >> (8 * k));
    if (t->f[i].ref && slots) slots[t->f[i].id] = pos + offs[i];
  }
  put(b, inline_bytes, tbl_size);
  return pos;
}

uint32_t qvc_fb_write_string(qvc_fb_builder *b, const char *s) {
  size_t n = s ? strlen(s) : 0;
  pad_to(b, 4);
  uint32_t pos = here(b);
  put_u32(b, (uint32_t)n);
  put(b, s ? s : "", (int64_t)n);
  put(b, "", 1);
  return pos;
}

uint32_t qvc_fb_write_struct_vector(qvc_fb_builder *b, const void *elems, uint32_t count, uint32_t elem_size,
                                    uint32_t align) {
  static const uint8_t zeros[4] = {0};
  if (align < 4) align = 4;
  pad_to(b, 4);
  while ((b->buf.size + 4) % align) put(b, zeros, 4);
  uint32_t pos = here(b);
  put_u32(b, count);
  put(b, elems, (int64_t)count * elem_size);
  return pos;
}

uint32_t qvc_fb_write_ref_vector(qvc_fb_builder *b, uint32_t count) {
  pad_to(b, 4);
  uint32_t pos = here(b);
  put_u32(b, count);
  for (uint32_t i = 0; i < count; i++) put_u32(b, 0);
  return pos;
}

void qvc_fb_patch(qvc_fb_builder *b, uint32_t slot, uint32_t target) {
  if (b->status != QV_OK) return;
  qv_store_u32le(b->buf.data + slot, target - slot);
}
