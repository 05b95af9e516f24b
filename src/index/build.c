/* Building one fragment's index file.  The column is read in slices (so a
 * wide fragment is never decoded whole at once), every (key, row) entry is
 * collected and sorted, and the file is written from the sorted entries:
 * BTREE as pages of entries, BITMAP and LABEL_LIST as one posting bitmap
 * per distinct key.  NGRAM collects trigram postings in a hash table
 * instead (a row holds many trigrams; sorting them all would not pay). */
#include <stdio.h>
#include <stdlib.h>

#include "index/index_int.h"

enum { READ_ROWS = 65536 };

typedef struct entry {
  uint64_t off; /* key bytes in the arena */
  uint32_t len;
  uint32_t row;
} entry;

typedef struct collector {
  qv_buffer keys;
  entry *e;
  int64_t n, cap;
  roaring_bitmap_t *nulls;
  /* NGRAM: open addressing, trigram + 1 -> posting */
  uint32_t *tri;
  roaring_bitmap_t **post;
  int64_t slots, used;
} collector;

static qv_status add_entry(collector *c, const uint8_t *key, int32_t len, uint32_t row, qv_error *err) {
  if (c->n == c->cap) {
    int64_t cap = c->cap ? c->cap * 2 : 4096;
    entry *e = qv_realloc(c->e, (size_t)cap * sizeof *e);
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

static roaring_bitmap_t **tri_slot(collector *c, uint32_t t, qv_error *err) {
  if (c->used * 2 >= c->slots) {
    int64_t ns = c->slots ? c->slots * 2 : 4096;
    uint32_t *tri = qv_calloc((size_t)ns, sizeof *tri);
    roaring_bitmap_t **post = qv_calloc((size_t)ns, sizeof *post);
    if (!tri || !post) {
      qv_free(tri);
      qv_free(post);
      qv_error_nomem(err, "index build");
      return NULL;
    }
    for (int64_t i = 0; i < c->slots; i++) {
      if (!c->tri[i]) continue;
      uint64_t h = (uint64_t)c->tri[i] * 0x9E3779B97F4A7C15ull;
      int64_t j = (int64_t)(h >> 40) & (ns - 1);
      while (tri[j]) j = (j + 1) & (ns - 1);
      tri[j] = c->tri[i];
      post[j] = c->post[i];
    }
    qv_free(c->tri);
    qv_free(c->post);
    c->tri = tri;
    c->post = post;
    c->slots = ns;
  }
  uint64_t h = (uint64_t)(t + 1) * 0x9E3779B97F4A7C15ull;
  int64_t j = (int64_t)(h >> 40) & (c->slots - 1);
  while (c->tri[j] && c->tri[j] != t + 1) j = (j + 1) & (c->slots - 1);
  if (!c->tri[j]) {
    c->tri[j] = t + 1;
    c->used++;
  }
  return &c->post[j];
}

static qv_status collect(collector *c, qv_index_type type, const qv_array *a, int64_t base, qv_error *err) {
  uint8_t tmp[16];
  int32_t len;
  if (type == QV_INDEX_LABEL_LIST) {
    const qv_array *child = a->children[0];
    qvi_key_kind kind = qvi_key_kind_of(&child->type);
    const int32_t *offs = (const int32_t *)a->buffers[1]->data + a->offset;
    for (int64_t i = 0; i < a->length; i++) {
      uint32_t row = (uint32_t)(base + i);
      if (!qv_array_is_valid(a, i)) {
        roaring_bitmap_add(c->nulls, row);
        continue;
      }
      for (int32_t k = offs[i]; k < offs[i + 1]; k++) {
        if (!qv_array_is_valid(child, k)) continue; /* null elements never match */
        const uint8_t *key = qvi_key_of_row(child, k, kind, tmp, &len);
        QV_RETURN_NOT_OK(add_entry(c, key, len, row, err));
      }
    }
    return QV_OK;
  }
  qvi_key_kind kind = qvi_key_kind_of(&a->type);
  for (int64_t i = 0; i < a->length; i++) {
    uint32_t row = (uint32_t)(base + i);
    if (!qv_array_is_valid(a, i)) {
      roaring_bitmap_add(c->nulls, row);
      continue;
    }
    const uint8_t *key = qvi_key_of_row(a, i, kind, tmp, &len);
    if (type != QV_INDEX_NGRAM) {
      QV_RETURN_NOT_OK(add_entry(c, key, len, row, err));
      continue;
    }
    for (int32_t k = 0; k + 3 <= len; k++) {
      roaring_bitmap_t **p = tri_slot(c, qvi_trigram(key + k), err);
      if (!p) return QV_ERR_NOMEM;
      if (!*p && !(*p = roaring_bitmap_create())) return qv_error_nomem(err, "index build");
      roaring_bitmap_add(*p, row);
    }
  }
  return QV_OK;
}

static int cmp_entry(const void *x, const void *y, void *ctx) {
  const entry *a = x, *b = y;
  const uint8_t *keys = ctx;
  int c = qvi_key_cmp(keys + a->off, (int32_t)a->len, keys + b->off, (int32_t)b->len);
  if (c) return c;
  return (a->row > b->row) - (a->row < b->row);
}

typedef struct tri_post {
  uint32_t tri;
  roaring_bitmap_t *r;
} tri_post;

static int cmp_tri(const void *x, const void *y) {
  uint32_t a = ((const tri_post *)x)->tri, b = ((const tri_post *)y)->tri;
  return (a > b) - (a < b);
}

static void put_key(qvb_wbuf *w, const uint8_t *k, uint32_t len) {
  qvb_wire_put_u32(w, len);
  qvb_wire_put_bytes(w, k, len);
}

/* BTREE pages: u64 count, (count + 1) u32 key offsets, key bytes, count u32 rows. */
static qv_status write_btree(collector *c, int64_t page_rows, qvi_writer *w, qvb_wbuf *tail, int64_t *distinct,
                             qv_error *err) {
  const uint8_t *keys = c->keys.data;
  int64_t n_pages = (c->n + page_rows - 1) / page_rows;
  qvb_wire_put_u32(tail, (uint32_t)n_pages);
  for (int64_t i = 0; i < c->n; i++)
    if (i == 0 ||
        qvi_key_cmp(keys + c->e[i - 1].off, (int32_t)c->e[i - 1].len, keys + c->e[i].off, (int32_t)c->e[i].len) != 0)
      (*distinct)++;
  for (int64_t p = 0; p < n_pages; p++) {
    int64_t lo = p * page_rows, hi = lo + page_rows < c->n ? lo + page_rows : c->n;
    qvb_wbuf pg = {QV_BUFFER_INIT, QV_OK};
    qvb_wire_put_u64(&pg, (uint64_t)(hi - lo));
    uint32_t off = 0;
    for (int64_t i = lo; i <= hi; i++) {
      qvb_wire_put_u32(&pg, off);
      if (i < hi) off += c->e[i].len;
    }
    for (int64_t i = lo; i < hi; i++) qvb_wire_put_bytes(&pg, keys + c->e[i].off, c->e[i].len);
    for (int64_t i = lo; i < hi; i++) qvb_wire_put_u32(&pg, c->e[i].row);
    if (pg.status != QV_OK) {
      qv_buffer_reset(&pg.buf);
      return qv_error_nomem(err, "index build");
    }
    int32_t chunk = qvi_writer_chunk(w, &pg.buf);
    qv_buffer_reset(&pg.buf);
    qvb_wire_put_u32(tail, (uint32_t)chunk);
    qvb_wire_put_u64(tail, (uint64_t)(hi - lo));
    put_key(tail, keys + c->e[lo].off, c->e[lo].len);
    put_key(tail, keys + c->e[hi - 1].off, c->e[hi - 1].len);
  }
  return QV_OK;
}

/* One posting chunk per key, then the dictionary chunk. */
static qv_status write_postings(collector *c, qv_index_type type, qvi_writer *w, qvb_wbuf *tail, int64_t *distinct,
                                int64_t *entries, qv_error *err) {
  qvb_wbuf dict = {QV_BUFFER_INIT, QV_OK};
  qvb_wbuf bytes = {QV_BUFFER_INIT, QV_OK};
  qv_status st = QV_OK;
  tri_post *order = NULL;
  uint32_t *rows = NULL;
  if (type == QV_INDEX_NGRAM) {
    order = qv_malloc((size_t)(c->used ? c->used : 1) * sizeof *order);
    if (!order) return qv_error_nomem(err, "index build");
    int64_t k = 0;
    for (int64_t i = 0; i < c->slots; i++)
      if (c->tri[i]) order[k++] = (tri_post){c->tri[i] - 1, c->post[i]};
    qsort(order, (size_t)k, sizeof *order, cmp_tri);
    for (int64_t i = 0; i < k; i++) {
      roaring_bitmap_t *r = order[i].r;
      roaring_bitmap_run_optimize(r);
      bytes.buf.size = 0;
      qvi_put_roaring(&bytes, r);
      if (bytes.status != QV_OK) break;
      int32_t chunk = qvi_writer_chunk(w, &bytes.buf);
      uint32_t t = order[i].tri;
      uint8_t key[3] = {(uint8_t)(t >> 16), (uint8_t)(t >> 8), (uint8_t)t};
      put_key(&dict, key, 3);
      qvb_wire_put_u32(&dict, (uint32_t)chunk);
      uint64_t card = roaring_bitmap_get_cardinality(r);
      qvb_wire_put_u64(&dict, card);
      *entries += (int64_t)card;
    }
    *distinct = k;
  } else {
    const uint8_t *keys = c->keys.data;
    rows = qv_malloc((size_t)(c->n ? c->n : 1) * sizeof *rows);
    if (!rows) return qv_error_nomem(err, "index build");
    for (int64_t i = 0; i < c->n && bytes.status == QV_OK;) {
      int64_t j = i, nr = 0;
      while (j < c->n &&
             qvi_key_cmp(keys + c->e[i].off, (int32_t)c->e[i].len, keys + c->e[j].off, (int32_t)c->e[j].len) == 0)
        rows[nr++] = c->e[j++].row;
      roaring_bitmap_t *r = roaring_bitmap_of_ptr((size_t)nr, rows);
      if (!r) {
        st = qv_error_nomem(err, "index build");
        break;
      }
      roaring_bitmap_run_optimize(r);
      bytes.buf.size = 0;
      qvi_put_roaring(&bytes, r);
      uint64_t card = roaring_bitmap_get_cardinality(r);
      roaring_bitmap_free(r);
      if (bytes.status != QV_OK) break;
      int32_t chunk = qvi_writer_chunk(w, &bytes.buf);
      put_key(&dict, keys + c->e[i].off, c->e[i].len);
      qvb_wire_put_u32(&dict, (uint32_t)chunk);
      qvb_wire_put_u64(&dict, card);
      *entries += (int64_t)card;
      (*distinct)++;
      i = j;
    }
  }
  if (st == QV_OK && (bytes.status != QV_OK || dict.status != QV_OK)) st = qv_error_nomem(err, "index build");
  if (st == QV_OK) {
    int32_t chunk = qvi_writer_chunk(w, &dict.buf);
    qvb_wire_put_u32(tail, (uint32_t)chunk);
    qvb_wire_put_u64(tail, (uint64_t)*distinct);
  }
  qv_free(order);
  qv_free(rows);
  qv_buffer_reset(&dict.buf);
  qv_buffer_reset(&bytes.buf);
  return st;
}

qv_status qvi_build_fragment(const qv_dataset *ds, int32_t fragment, int32_t column, qv_index_type type,
                             int64_t page_rows, qv_buffer *out, uint32_t *footer_crc, qv_error *err) {
  collector c;
  memset(&c, 0, sizeof c);
  qvi_writer w;
  qvi_writer_init(&w);
  qvb_wbuf head = {QV_BUFFER_INIT, QV_OK}, tail = {QV_BUFFER_INIT, QV_OK};
  qv_fragment_reader *r = NULL;
  qv_status st = QV_OK;
  const qv_datatype *ct = &qv_dataset_schema(ds)->fields[column].type;
  qv_fragment_info fi;
  qv_dataset_fragment(ds, fragment, &fi);
  if (!(c.nulls = roaring_bitmap_create())) return qv_error_nomem(err, "index build");
  if ((st = qv_fragment_open(ds, fragment, &r, err)) != QV_OK) goto cleanup;
  int64_t rows = qv_fragment_num_rows(r);
  for (int64_t s = 0; s < rows && st == QV_OK; s += READ_ROWS) {
    qv_array *a = NULL;
    int64_t n = rows - s < READ_ROWS ? rows - s : READ_ROWS;
    if ((st = qv_fragment_read(r, column, s, n, &a, err)) != QV_OK) break;
    st = collect(&c, type, a, s, err);
    qv_array_release(a);
  }
  if (st != QV_OK) goto cleanup;
  if (c.n > 1) qsort_r(c.e, (size_t)c.n, sizeof *c.e, cmp_entry, c.keys.data);

  qvb_wbuf nb = {QV_BUFFER_INIT, QV_OK};
  roaring_bitmap_run_optimize(c.nulls);
  qvi_put_roaring(&nb, c.nulls);
  if (nb.status != QV_OK) {
    qv_buffer_reset(&nb.buf);
    st = qv_error_nomem(err, "index build");
    goto cleanup;
  }
  qvb_wire_put_u32(&tail, (uint32_t)qvi_writer_chunk(&w, &nb.buf));
  qv_buffer_reset(&nb.buf);
  int64_t distinct = 0, entries = c.n;
  if (type == QV_INDEX_BTREE) {
    st = write_btree(&c, page_rows, &w, &tail, &distinct, err);
  } else {
    entries = 0;
    st = write_postings(&c, type, &w, &tail, &distinct, &entries, err);
  }
  if (st != QV_OK) goto cleanup;
  const qv_datatype *kt = type == QV_INDEX_LABEL_LIST ? &ct->children[0].type : ct;
  qvb_wire_put_u8(&head, (uint8_t)type);
  qvb_wire_put_u8(&head, (uint8_t)kt->id);
  qvb_wire_put_u8(&head, 0);
  qvb_wire_put_u8(&head, 0);
  qvb_wire_put_u64(&head, (uint64_t)fi.id);
  qvb_wire_put_u64(&head, (uint64_t)rows);
  qvb_wire_put_u64(&head, roaring_bitmap_get_cardinality(c.nulls));
  qvb_wire_put_u64(&head, (uint64_t)entries);
  qvb_wire_put_u64(&head, (uint64_t)distinct);
  if (head.status != QV_OK || tail.status != QV_OK) {
    st = qv_error_nomem(err, "index build");
    goto cleanup;
  }
  st = qvi_writer_finish(&w, &head.buf, &tail.buf, out, footer_crc, err);
cleanup:
  qv_fragment_close(r);
  qvi_writer_reset(&w);
  qv_buffer_reset(&head.buf);
  qv_buffer_reset(&tail.buf);
  qv_buffer_reset(&c.keys);
  qv_free(c.e);
  for (int64_t i = 0; i < c.slots; i++)
    if (c.post[i]) roaring_bitmap_free(c.post[i]);
  qv_free(c.tri);
  qv_free(c.post);
  roaring_bitmap_free(c.nulls);
  return st;
}
