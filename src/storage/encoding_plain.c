/* Plain encoding.  Flat types: [validity, values] (bool values as bits,
 * strings as [validity, int32 offsets from 0, bytes], the null type as an
 * empty [validity]).  Nested types (list, struct, fixed_size_list) store
 * their whole subtree for the page's rows as preorder buffers, each node
 * starting with its validity; null, struct and fixed_size_list nodes always
 * carry that bitmap, so every node's length is paid for by bytes on disk
 * and a hostile length cannot ask for memory the page does not hold.
 *
 * Decoding validates every length and offset before use; the take path
 * loads only the checksum blocks that hold the requested rows. */
#include <string.h>

#include "storage/datafile.h"
#include "storage/encoding.h"
#include "storage/format.h"
#include "storage/gather.h"

static int64_t node_nulls(const qv_array *a, int64_t start, int64_t n) {
  if (a->type.id == QV_TYPE_NULL) return n;
  if (!a->buffers[0] || a->null_count == 0) return 0;
  return n - qv_bitmap_count(a->buffers[0]->data, a->offset + start, n);
}

/* A bitmap that is always present (ones where there is no validity). */
static qv_status add_validity_always(qvs_page_out *po, const qv_array *a, int64_t start, int64_t n) {
  int64_t at;
  QV_RETURN_NOT_OK(qvs_page_begin_buffer(po, &at));
  int64_t bytes = qv_bitmap_bytes(n);
  QV_RETURN_NOT_OK(qvs_zeros(&po->raw, bytes));
  uint8_t *dst = po->raw.data + at;
  if (a->type.id == QV_TYPE_NULL) {
    /* all null: zeros */
  } else if (a->buffers[0] && a->null_count != 0) {
    qv_bitmap_copy(dst, 0, a->buffers[0]->data, a->offset + start, n);
  } else {
    memset(dst, 0xFF, (size_t)bytes);
    if (n & 7) dst[bytes - 1] = (uint8_t)((1u << (n & 7)) - 1);
  }
  return qvs_page_end_buffer(po, at);
}

static qv_status add_offsets(qvs_page_out *po, const int32_t *off, int64_t n) {
  int64_t at;
  QV_RETURN_NOT_OK(qvs_page_begin_buffer(po, &at));
  QV_RETURN_NOT_OK(qv_buffer_reserve(&po->raw, (n + 1) * 4));
  int32_t base = off[0];
  uint8_t *dst = po->raw.data + at;
  for (int64_t k = 0; k <= n; k++) qv_store_u32le(dst + 4 * k, (uint32_t)(off[k] - base));
  po->raw.size += (n + 1) * 4;
  return qvs_page_end_buffer(po, at);
}

static qv_status enc_node(const qv_array *a, int64_t start, int64_t n, bool nested, qvs_page_out *po) {
  qv_type_id id = a->type.id;
  int64_t nulls = node_nulls(a, start, n);
  bool always = nested && (id == QV_TYPE_NULL || id == QV_TYPE_STRUCT || id == QV_TYPE_FIXED_SIZE_LIST);
  if (always) QV_RETURN_NOT_OK(add_validity_always(po, a, start, n));
  else QV_RETURN_NOT_OK(qvs_page_add_validity(po, a, start, n, id != QV_TYPE_NULL && nulls > 0));
  int64_t pos = a->offset + start;
  switch (id) {
    case QV_TYPE_NULL: return QV_OK;
    case QV_TYPE_BOOL: {
      int64_t at;
      QV_RETURN_NOT_OK(qvs_page_begin_buffer(po, &at));
      QV_RETURN_NOT_OK(qvs_zeros(&po->raw, qv_bitmap_bytes(n)));
      qv_bitmap_copy(po->raw.data + at, 0, a->buffers[1]->data, pos, n);
      return qvs_page_end_buffer(po, at);
    }
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: {
      const int32_t *off = (const int32_t *)a->buffers[1]->data + pos;
      QV_RETURN_NOT_OK(add_offsets(po, off, n));
      const uint8_t *chars = a->buffers[2] ? a->buffers[2]->data : NULL;
      return qvs_page_add_buffer(po, chars ? chars + off[0] : NULL, off[n] - off[0]);
    }
    case QV_TYPE_LIST: {
      const int32_t *off = (const int32_t *)a->buffers[1]->data + pos;
      QV_RETURN_NOT_OK(add_offsets(po, off, n));
      return enc_node(a->children[0], off[0], off[n] - off[0], true, po);
    }
    case QV_TYPE_FIXED_SIZE_LIST: {
      int64_t size = a->type.list_size;
      return enc_node(a->children[0], pos * size, n * size, true, po);
    }
    case QV_TYPE_STRUCT:
      for (int32_t i = 0; i < a->n_children; i++) QV_RETURN_NOT_OK(enc_node(a->children[i], pos, n, true, po));
      return QV_OK;
    default: {
      int w = qv_type_byte_width(id);
      return qvs_page_add_buffer(po, a->buffers[1]->data + pos * w, n * w);
    }
  }
}

qv_status qvs_encode_plain(const qv_array *a, int64_t start, int64_t n, int64_t null_count, qvs_page_out *po,
                           qv_error *err) {
  (void)null_count;
  po->encoding = QV_ENCODING_PLAIN;
  if (enc_node(a, start, n, false, po) != QV_OK) return qv_error_nomem(err, NULL);
  return QV_OK;
}

/* ---- decoding a whole page ---------------------------------------------- */

typedef struct dec_ctx {
  const qvs_view *v;
  int32_t bi; /* next buffer */
  qv_error *err;
} dec_ctx;

static qv_status bad(dec_ctx *c, const char *what, long long a, long long b) {
  return qvs_page_error(c->v->df, c->v->col, c->v->page, QV_ERR_CORRUPT, c->err, "%s (%lld, %lld)", what, a, b);
}

static qv_status take_buffer(dec_ctx *c, int32_t *b) {
  if (c->bi >= c->v->pg->n_buffers) return bad(c, "fewer buffers than the type needs", c->bi, c->v->pg->n_buffers);
  *b = c->bi++;
  return QV_OK;
}

/* Buffers from this size up share the page's bytes (qvs_view.shared)
 * instead of being copied; smaller ones are copied, which costs nothing
 * and keeps them zero-padded like any new buffer. */
#define SHARE_BYTES 4096

static qv_status copy_buffer(dec_ctx *c, int32_t b, int64_t expect, qv_bytes **out) {
  int64_t len = qvs_view_len(c->v, b);
  if (expect >= 0 && len != expect) return bad(c, "buffer has the wrong length (has, needs)", len, expect);
  if (c->v->shared && len >= SHARE_BYTES) {
    if (!(*out = qv_bytes_view(c->v->shared, qvs_view_buf(c->v, b), len))) return qv_error_nomem(c->err, NULL);
    return QV_OK;
  }
  qv_bytes *bytes = qv_bytes_alloc_uninit(len);
  if (!bytes) return qv_error_nomem(c->err, NULL);
  if (len) memcpy(qv_bytes_mutable(bytes), qvs_view_buf(c->v, b), (size_t)len);
  *out = bytes;
  return QV_OK;
}

/* Offsets must start at 0, never decrease, and end at most at limit
 * (exactly at limit when exact). */
static qv_status check_offsets(dec_ctx *c, const uint8_t *p, int64_t n, int64_t limit, bool exact, int64_t *last) {
  int32_t prev;
  memcpy(&prev, p, 4);
  if (prev != 0) return bad(c, "first offset is not 0 (offset, value)", 0, prev);
  for (int64_t k = 1; k <= n; k++) {
    int32_t o;
    memcpy(&o, p + 4 * k, 4);
    if (o < prev) return bad(c, "offsets decrease at (index, value)", k, o);
    prev = o;
  }
  if (prev > limit || (exact && prev != limit))
    return bad(c, "last offset does not match the data (offset, bytes)", prev, limit);
  *last = prev;
  return QV_OK;
}

static qv_status dec_node(dec_ctx *c, const qv_datatype *t, int64_t len, bool nested, int64_t expect_nulls, int depth,
                          qv_array **out) {
  *out = NULL;
  if (depth > QVS_MAX_DEPTH) return bad(c, "nested too deep", depth, QVS_MAX_DEPTH);
  qv_type_id id = t->id;
  int32_t vb = 0;
  QV_RETURN_NOT_OK(take_buffer(c, &vb));
  bool always = nested && (id == QV_TYPE_NULL || id == QV_TYPE_STRUCT || id == QV_TYPE_FIXED_SIZE_LIST);
  int64_t vlen = qvs_view_len(c->v, vb);
  if (always && vlen != qv_bitmap_bytes(len))
    return bad(c, "nested validity has the wrong length (has, needs)", vlen, qv_bitmap_bytes(len));
  if (id == QV_TYPE_NULL) {
    if (!nested && vlen != 0) return bad(c, "null column with a validity bitmap", vlen, 0);
    return qv_array_make_null(t, len, out, c->err);
  }
  qv_bytes *validity = NULL;
  int64_t nulls = 0;
  QV_RETURN_NOT_OK(qvs_decode_validity(c->v, vb, len, expect_nulls, &validity, &nulls, c->err));
  int32_t nchild = id == QV_TYPE_STRUCT ? t->n_children : qvs_is_nested(id) ? 1 : 0;
  qv_array *a = qv_array_alloc(t, len, nchild);
  if (!a) {
    qv_bytes_release(validity);
    return qv_error_nomem(c->err, NULL);
  }
  a->buffers[0] = validity;
  a->null_count = nulls;
  qv_status st = QV_OK;
  int32_t b = 0;
  switch (id) {
    case QV_TYPE_BOOL:
      if ((st = take_buffer(c, &b)) == QV_OK) st = copy_buffer(c, b, qv_bitmap_bytes(len), &a->buffers[1]);
      break;
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: {
      int32_t ob = 0, db = 0;
      int64_t last;
      if ((st = take_buffer(c, &ob)) != QV_OK || (st = take_buffer(c, &db)) != QV_OK) break;
      if (qvs_view_len(c->v, ob) != (len + 1) * 4) {
        st = bad(c, "offsets buffer has the wrong length (has, needs)", qvs_view_len(c->v, ob), (len + 1) * 4);
        break;
      }
      if ((st = check_offsets(c, qvs_view_buf(c->v, ob), len, qvs_view_len(c->v, db), true, &last)) != QV_OK) break;
      if ((st = copy_buffer(c, ob, -1, &a->buffers[1])) != QV_OK) break;
      st = copy_buffer(c, db, -1, &a->buffers[2]);
      break;
    }
    case QV_TYPE_LIST: {
      int64_t last;
      if ((st = take_buffer(c, &b)) != QV_OK) break;
      if (qvs_view_len(c->v, b) != (len + 1) * 4) {
        st = bad(c, "list offsets buffer has the wrong length (has, needs)", qvs_view_len(c->v, b), (len + 1) * 4);
        break;
      }
      /* every child element costs at least one bit of the page */
      if ((st = check_offsets(c, qvs_view_buf(c->v, b), len, c->v->pg->raw_len * 8, false, &last)) != QV_OK) break;
      if ((st = copy_buffer(c, b, -1, &a->buffers[1])) != QV_OK) break;
      st = dec_node(c, &t->children[0].type, last, true, -1, depth + 1, &a->children[0]);
      break;
    }
    case QV_TYPE_FIXED_SIZE_LIST: {
      int64_t size = t->list_size;
      if (size > 0 && len > c->v->pg->raw_len * 8 / size) {
        st = bad(c, "fixed_size_list children exceed the page (rows, size)", len, size);
        break;
      }
      st = dec_node(c, &t->children[0].type, len * size, true, -1, depth + 1, &a->children[0]);
      break;
    }
    case QV_TYPE_STRUCT:
      for (int32_t i = 0; i < t->n_children && st == QV_OK; i++)
        st = dec_node(c, &t->children[i].type, len, true, -1, depth + 1, &a->children[i]);
      break;
    default: {
      int w = qv_type_byte_width(id);
      if ((st = take_buffer(c, &b)) == QV_OK) st = copy_buffer(c, b, len * w, &a->buffers[1]);
      break;
    }
  }
  if (st != QV_OK) {
    qv_array_release(a);
    return st;
  }
  *out = a;
  return QV_OK;
}

qv_status qvs_decode_plain(const qvs_view *v, const qv_datatype *type, qv_array **out, qv_error *err) {
  dec_ctx c = {v, 0, err};
  int64_t expect = type->id == QV_TYPE_NULL ? -1 : v->pg->null_count;
  QV_RETURN_NOT_OK(dec_node(&c, type, v->pg->row_count, false, expect, 0, out));
  if (c.bi != v->pg->n_buffers) {
    qv_array_release(*out);
    *out = NULL;
    return bad(&c, "more buffers than the type needs", v->pg->n_buffers, c.bi);
  }
  return QV_OK;
}

/* ---- taking rows of a raw page -------------------------------------------- */

qv_status qvs_take_plain(qvs_view *v, const qv_datatype *type, const uint32_t *rows, int64_t n, qvs_acc *acc,
                         qv_error *err) {
  qv_type_id id = type->id;
  if (id == QV_TYPE_NULL) {
    for (int64_t k = 0; k < n; k++) QV_RETURN_NOT_OK(qvs_acc_null(acc, err));
    return QV_OK;
  }
  bool has_validity = qvs_view_len(v, 0) > 0;
  int w = qv_type_byte_width(id);
  for (int64_t k = 0; k < n; k++) {
    int64_t r = rows[k];
    if (has_validity) qvs_view_want(v, 0, r >> 3, 1);
    if (w > 0) qvs_view_want(v, 1, r * w, w);
    else if (w == 0) qvs_view_want(v, 1, r >> 3, 1);
    else qvs_view_want(v, 1, r * 4, 8);
  }
  QV_RETURN_NOT_OK(qvs_view_fetch(v, err));
  const uint8_t *vb = has_validity ? qvs_view_buf(v, 0) : NULL;
  const uint8_t *src = qvs_view_buf(v, 1);
  if (w > 0) {
    uint8_t *dst = qv_bytes_mutable(acc->values);
    for (int64_t k = 0; k < n; k++) {
      int64_t r = rows[k];
      if (vb && !qv_bit_get(vb, r)) {
        QV_RETURN_NOT_OK(qvs_acc_null(acc, err));
        continue;
      }
      memcpy(dst + acc->pos * w, src + r * w, (size_t)w);
      if (acc->validity) qv_bit_set(qv_bytes_mutable(acc->validity), acc->pos);
      acc->pos++;
    }
    return QV_OK;
  }
  if (w == 0) {
    uint8_t *dst = qv_bytes_mutable(acc->values);
    for (int64_t k = 0; k < n; k++) {
      int64_t r = rows[k];
      if (vb && !qv_bit_get(vb, r)) {
        QV_RETURN_NOT_OK(qvs_acc_null(acc, err));
        continue;
      }
      qv_bit_put(dst, acc->pos, qv_bit_get(src, r));
      if (acc->validity) qv_bit_set(qv_bytes_mutable(acc->validity), acc->pos);
      acc->pos++;
    }
    return QV_OK;
  }
  /* strings: the offsets are loaded; now the bytes they point at */
  int64_t dlen = qvs_view_len(v, 2), total = 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t r = rows[k];
    if (vb && !qv_bit_get(vb, r)) continue;
    int32_t s, e;
    memcpy(&s, src + 4 * r, 4);
    memcpy(&e, src + 4 * r + 4, 4);
    if (s < 0 || e < s || e > dlen)
      return qvs_page_error(v->df, v->col, v->page, QV_ERR_CORRUPT, err,
                            "row %lld: string offsets %d..%d are outside the %lld data bytes", (long long)r, s, e,
                            (long long)dlen);
    qvs_view_want(v, 2, s, e - s);
    total += e - s;
  }
  /* the bytes are known now: one allocation instead of growing by doubling */
  QV_RETURN_NOT_OK(qvs_acc_reserve_bytes(acc, total, err));
  QV_RETURN_NOT_OK(qvs_view_fetch(v, err));
  const uint8_t *data = qvs_view_buf(v, 2);
  for (int64_t k = 0; k < n; k++) {
    int64_t r = rows[k];
    if (vb && !qv_bit_get(vb, r)) {
      QV_RETURN_NOT_OK(qvs_acc_null(acc, err));
      continue;
    }
    int32_t s, e;
    memcpy(&s, src + 4 * r, 4);
    memcpy(&e, src + 4 * r + 4, 4);
    QV_RETURN_NOT_OK(qvs_acc_bytes(acc, data + s, e - s, err));
  }
  return QV_OK;
}
