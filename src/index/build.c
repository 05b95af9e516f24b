/* Building one fragment's index file: the parts every kind shares.  The
 * kind (its table in kind.c) reads the column through qvi_build_read,
 * writes its chunks and its part of the footer; this file writes the
 * footer's head (type, key type, fragment, counts) and completes the file.
 * The sorted (key, row) entries BTREE, BITMAP and LABEL_LIST collect live
 * here too. */
#include <stdio.h>
#include <stdlib.h>

#include "index/index_int.h"

enum { READ_ROWS = 65536 };

qv_status qvi_entries_add(qvi_entries *c, const uint8_t *key, int32_t len, uint32_t row, qv_error *err) {
  if (c->n == c->cap) {
    int64_t cap = c->cap ? c->cap * 2 : 4096;
    qvi_entry *e = qv_realloc(c->e, (size_t)cap * sizeof *e);
    if (!e) return qv_error_nomem(err, "index build");
    c->e = e;
    c->cap = cap;
  }
  c->e[c->n].off = (uint64_t)c->keys.size;
  c->e[c->n].len = (uint32_t)len;
  c->e[c->n].row = row;
  if (len && qv_buffer_append(&c->keys, key, len) != QV_OK) return qv_error_nomem(err, "index build");
  c->n++;
  return QV_OK;
}

qv_status qvi_entries_of_values(void *ctx, const qv_array *a, int64_t base, qvi_build_out *out, qv_error *err) {
  qvi_entries *c = ctx;
  uint8_t tmp[16];
  int32_t len;
  qvi_key_kind kind = qvi_key_kind_of(&a->type);
  for (int64_t i = 0; i < a->length; i++) {
    uint32_t row = (uint32_t)(base + i);
    if (!qv_array_is_valid(a, i)) {
      roaring_bitmap_add(out->nulls, row);
      continue;
    }
    const uint8_t *key = qvi_key_of_row(a, i, kind, tmp, &len);
    QV_RETURN_NOT_OK(qvi_entries_add(c, key, len, row, err));
  }
  return QV_OK;
}

static int cmp_entry(const void *x, const void *y, void *ctx) {
  const qvi_entry *a = x, *b = y;
  const uint8_t *keys = ctx;
  int c = qvi_key_cmp(keys + a->off, (int32_t)a->len, keys + b->off, (int32_t)b->len);
  if (c) return c;
  return (a->row > b->row) - (a->row < b->row);
}

void qvi_entries_sort(qvi_entries *c) {
  if (c->n > 1) qsort_r(c->e, (size_t)c->n, sizeof *c->e, cmp_entry, c->keys.data);
}

void qvi_entries_reset(qvi_entries *c) {
  qv_buffer_reset(&c->keys);
  qv_free(c->e);
  memset(c, 0, sizeof *c);
}

void qvi_put_key(qvb_wbuf *w, const uint8_t *k, uint32_t len) {
  qvb_wire_put_u32(w, len);
  qvb_wire_put_bytes(w, k, len);
}

qv_status qvi_build_read(const qvi_build_in *in, qvi_slice_fn fn, void *ctx, qvi_build_out *out, qv_error *err) {
  qv_status st = QV_OK;
  for (int64_t s = 0; s < in->rows && st == QV_OK; s += READ_ROWS) {
    qv_array *a = NULL;
    int64_t n = in->rows - s < READ_ROWS ? in->rows - s : READ_ROWS;
    if ((st = qv_fragment_read(in->reader, in->column, s, n, &a, err)) != QV_OK) break;
    st = fn(ctx, a, s, out, err);
    qv_array_release(a);
  }
  return st;
}

qv_status qvi_build_put_nulls(qvi_build_out *out, qv_error *err) {
  qvb_wbuf nb = {QV_BUFFER_INIT, QV_OK};
  roaring_bitmap_run_optimize(out->nulls);
  qvi_put_roaring(&nb, out->nulls);
  if (nb.status != QV_OK) {
    qv_buffer_reset(&nb.buf);
    return qv_error_nomem(err, "index build");
  }
  qvb_wire_put_u32(&out->tail, (uint32_t)qvi_writer_chunk(&out->w, &nb.buf));
  qv_buffer_reset(&nb.buf);
  return QV_OK;
}

qv_status qvi_build_fragment(const qv_dataset *ds, int32_t fragment, int32_t column, qv_index_type type,
                             int64_t page_rows, const void *model, qv_buffer *out, uint32_t *footer_crc,
                             qv_error *err) {
  const qvi_kind *k = qvi_kind_of(type);
  if (!k) return qv_error_set(err, QV_ERR_INVALID, "index: unknown index type %d", (int)type);
  qvi_build_out o;
  memset(&o, 0, sizeof o);
  qvi_writer_init(&o.w);
  o.tail = (qvb_wbuf){QV_BUFFER_INIT, QV_OK};
  qvb_wbuf head = {QV_BUFFER_INIT, QV_OK};
  const qv_datatype *ct = &qv_dataset_schema(ds)->fields[column].type;
  qv_fragment_info fi;
  qv_dataset_fragment(ds, fragment, &fi);
  qvi_build_in in = {ds, fragment, column, ct, page_rows, model, NULL, 0};
  qv_status st = QV_OK;
  if (!(o.nulls = roaring_bitmap_create())) {
    st = qv_error_nomem(err, "index build");
    goto cleanup;
  }
  if ((st = qv_fragment_open(ds, fragment, &in.reader, err)) != QV_OK) goto cleanup;
  in.rows = qv_fragment_num_rows(in.reader);
  if ((st = k->build(&in, &o, err)) != QV_OK) goto cleanup;
  qvb_wire_put_u8(&head, (uint8_t)type);
  qvb_wire_put_u8(&head, (uint8_t)k->key_type(ct)->id);
  qvb_wire_put_u8(&head, 0);
  qvb_wire_put_u8(&head, 0);
  qvb_wire_put_u64(&head, (uint64_t)fi.id);
  qvb_wire_put_u64(&head, (uint64_t)in.rows);
  qvb_wire_put_u64(&head, roaring_bitmap_get_cardinality(o.nulls));
  qvb_wire_put_u64(&head, (uint64_t)o.entries);
  qvb_wire_put_u64(&head, (uint64_t)o.distinct);
  if (head.status != QV_OK || o.tail.status != QV_OK) {
    st = qv_error_nomem(err, "index build");
    goto cleanup;
  }
  st = qvi_writer_finish(&o.w, &head.buf, &o.tail.buf, out, footer_crc, err);
cleanup:
  qv_fragment_close(in.reader);
  qvi_writer_reset(&o.w);
  qv_buffer_reset(&head.buf);
  qv_buffer_reset(&o.tail.buf);
  if (o.nulls) roaring_bitmap_free(o.nulls);
  return st;
}
