/* Posting lists, what BITMAP, LABEL_LIST and NGRAM share: one roaring
 * bitmap of rows per distinct key, each its own chunk, and a dictionary
 * chunk of the keys in order:
 *
 *   dictionary := n_keys x { key, u32 posting chunk, u64 cardinality }
 *   footer tail := u32 null rows chunk, u32 dictionary chunk, u64 n_keys
 *
 * A lookup reads the footer, the dictionary and the posting lists of the
 * keys it needs; an estimate reads the dictionary's counts alone. */
#include <stdio.h>

#include "index/index_int.h"

enum { MIN_DICT_ENTRY = 4 + 4 + 8 };

/* ---- writing ------------------------------------------------------------------ */

qv_status qvi_postings_write_sorted(const qvi_entries *c, qvi_build_out *o, qv_error *err) {
  qvb_wbuf dict = {QV_BUFFER_INIT, QV_OK};
  qvb_wbuf bytes = {QV_BUFFER_INIT, QV_OK};
  qv_status st = QV_OK;
  uint32_t *rows = qv_malloc((size_t)(c->n ? c->n : 1) * sizeof *rows);
  if (!rows) return qv_error_nomem(err, "index build");
  for (int64_t i = 0; i < c->n && bytes.status == QV_OK;) {
    int64_t j = i, nr = 0;
    while (j < c->n &&
           qvi_key_cmp(qvi_entry_key(c, i), (int32_t)c->e[i].len, qvi_entry_key(c, j), (int32_t)c->e[j].len) == 0)
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
    int32_t chunk = qvi_writer_chunk(&o->w, &bytes.buf);
    qvi_put_key(&dict, qvi_entry_key(c, i), c->e[i].len);
    qvb_wire_put_u32(&dict, (uint32_t)chunk);
    qvb_wire_put_u64(&dict, card);
    o->entries += (int64_t)card;
    o->distinct++;
    i = j;
  }
  if (st == QV_OK && (bytes.status != QV_OK || dict.status != QV_OK)) st = qv_error_nomem(err, "index build");
  if (st == QV_OK) {
    int32_t chunk = qvi_writer_chunk(&o->w, &dict.buf);
    qvb_wire_put_u32(&o->tail, (uint32_t)chunk);
    qvb_wire_put_u64(&o->tail, (uint64_t)o->distinct);
  }
  qv_free(rows);
  qv_buffer_reset(&dict.buf);
  qv_buffer_reset(&bytes.buf);
  return st;
}

/* ---- reading ------------------------------------------------------------------ */

bool qvi_postings_open(qvb_cursor *c, qvi_file *f) {
  if (!qvi_get_chunk_ref(c, f, &f->dict_chunk, "dictionary chunk")) return false;
  if (!qvb_wire_get_range(c, 0, f->distinct, &f->n_keys, "key count")) return false;
  if (f->n_keys != f->distinct)
    return qvb_cursor_fail(c, "%lld keys but %lld distinct", (long long)f->n_keys, (long long)f->distinct);
  return true;
}

void qvi_postings_chunk_role(const qvi_file *f, int32_t i, char *buf, size_t n) {
  snprintf(buf, n, i == f->dict_chunk ? "dictionary" : "posting list");
}

qv_status qvi_file_dict(qvi_file *f, qv_error *err) {
  if (f->dict || f->dict_chunk < 0) return QV_OK;
  uint8_t *b = NULL;
  QV_RETURN_NOT_OK(qvi_file_chunk(f, f->dict_chunk, "dictionary", &b, err));
  qvb_cursor c;
  const qvi_chunk *ch = &f->chunks[f->dict_chunk];
  qvb_cursor_init(&c, b, ch->length, ch->offset, f->name, err);
  qvi_dict_entry *d = NULL;
  if (f->n_keys * MIN_DICT_ENTRY > ch->length) {
    qvb_cursor_fail(&c, "dictionary of %lld keys does not fit in %lld bytes", (long long)f->n_keys,
                    (long long)ch->length);
    goto cleanup;
  }
  if (!(d = qv_calloc((size_t)(f->n_keys ? f->n_keys : 1), sizeof *d))) {
    qv_free(b);
    return qv_error_nomem(err, NULL);
  }
  for (int64_t k = 0; k < f->n_keys; k++) {
    uint32_t len;
    const uint8_t *key;
    int64_t at = c.pos;
    if (!qvb_wire_get_u32(&c, &len, "key length") || !qvb_wire_get_bytes(&c, len, &key, "key")) goto cleanup;
    d[k].key = key;
    d[k].key_len = (int32_t)len;
    if (k && qvi_key_cmp(d[k - 1].key, d[k - 1].key_len, key, d[k].key_len) >= 0) {
      c.pos = at;
      qvb_cursor_fail(&c, "dictionary key %lld is not above the previous one", (long long)k);
      goto cleanup;
    }
    if (!qvi_get_chunk_ref(&c, f, &d[k].chunk, "posting chunk")) goto cleanup;
    if (!qvb_wire_get_range(&c, 1, f->num_rows, &d[k].card, "posting count")) goto cleanup;
  }
  if (c.pos != c.size) {
    qvb_cursor_fail(&c, "%lld unexpected bytes after the dictionary", (long long)(c.size - c.pos));
    goto cleanup;
  }
  f->dict = d;
  f->dict_bytes = b;
  return QV_OK;
cleanup:
  qv_free(d);
  qv_free(b);
  return c.status;
}

static qv_status read_bitmap(qvi_file *f, int32_t chunk, const char *what, roaring_bitmap_t **out, qv_error *err) {
  uint8_t *b = NULL;
  QV_RETURN_NOT_OK(qvi_file_chunk(f, chunk, what, &b, err));
  const char *why = NULL;
  *out = qvi_get_roaring(b, f->chunks[chunk].length, (uint64_t)f->num_rows, &why);
  qv_free(b);
  if (!*out)
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %lld: chunk %d (%s): %s", f->name,
                        (long long)f->chunks[chunk].offset, chunk, what, why);
  return QV_OK;
}

qv_status qvi_file_nulls(qvi_file *f, const roaring_bitmap_t **out, qv_error *err) {
  if (!f->nulls) {
    QV_RETURN_NOT_OK(read_bitmap(f, f->nulls_chunk, "null rows", &f->nulls, err));
    if ((int64_t)roaring_bitmap_get_cardinality(f->nulls) != f->null_count) {
      roaring_bitmap_free(f->nulls);
      f->nulls = NULL;
      return qvi_corrupt(f, f->chunks[f->nulls_chunk].offset, err, "null rows do not match the footer's null count");
    }
  }
  *out = f->nulls;
  return QV_OK;
}

qv_status qvi_file_posting(qvi_file *f, int64_t k, roaring_bitmap_t **out, qv_error *err) {
  QV_RETURN_NOT_OK(read_bitmap(f, f->dict[k].chunk, "posting list", out, err));
  if ((int64_t)roaring_bitmap_get_cardinality(*out) != f->dict[k].card) {
    roaring_bitmap_free(*out);
    *out = NULL;
    return qvi_corrupt(f, f->chunks[f->dict[k].chunk].offset, err, "posting list size does not match the dictionary");
  }
  return QV_OK;
}

/* ---- answering ---------------------------------------------------------------- */

/* First dictionary key not below the range. */
static int64_t first_key(const qvi_file *f, const qvi_range *r) {
  int64_t lo = 0, hi = f->n_keys;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (qvi_range_below(r, f->dict[mid].key, f->dict[mid].key_len)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static qv_status dict_range(qvi_file *f, const qvi_range *r, roaring_bitmap_t *out, qv_error *err) {
  for (int64_t k = first_key(f, r); k < f->n_keys; k++) {
    if (qvi_range_above(r, f->dict[k].key, f->dict[k].key_len)) break;
    if (!qvi_range_inside(r, f->dict[k].key, f->dict[k].key_len)) continue;
    roaring_bitmap_t *p = NULL;
    QV_RETURN_NOT_OK(qvi_file_posting(f, k, &p, err));
    roaring_bitmap_or_inplace(out, p);
    roaring_bitmap_free(p);
  }
  return QV_OK;
}

qv_status qvi_postings_query(qvi_file *f, const qvi_ask *a, roaring_bitmap_t *out, qv_error *err) {
  QV_RETURN_NOT_OK(qvi_file_dict(f, err));
  if (a->mode != QVI_ALL_KEYS) {
    for (int32_t i = 0; i < a->n; i++) QV_RETURN_NOT_OK(dict_range(f, &a->ranges[i], out, err));
    return QV_OK;
  }
  if (a->all_nonnull) return qvi_file_nonnull(f, out, err);
  for (int32_t i = 0; i < a->n; i++) {
    roaring_bitmap_t *one = roaring_bitmap_create();
    if (!one) return qv_error_nomem(err, NULL);
    qv_status st = dict_range(f, &a->ranges[i], one, err);
    if (st != QV_OK) {
      roaring_bitmap_free(one);
      return st;
    }
    if (i == 0) roaring_bitmap_or_inplace(out, one);
    else roaring_bitmap_and_inplace(out, one);
    roaring_bitmap_free(one);
    if (roaring_bitmap_is_empty(out)) break;
  }
  return QV_OK;
}

qv_status qvi_postings_estimate(qvi_file *f, const qvi_ask *a, bool keys_independent, int64_t *est, int64_t *read,
                                qv_error *err) {
  QV_RETURN_NOT_OK(qvi_file_dict(f, err));
  int64_t nonnull_rows = f->num_rows - f->null_count;
  *est = *read = 0;
  if (a->mode != QVI_ALL_KEYS) {
    for (int32_t i = 0; i < a->n; i++) {
      const qvi_range *r = &a->ranges[i];
      for (int64_t k = first_key(f, r); k < f->n_keys; k++) {
        if (qvi_range_above(r, f->dict[k].key, f->dict[k].key_len)) break;
        if (qvi_range_inside(r, f->dict[k].key, f->dict[k].key_len)) *est += f->dict[k].card;
      }
    }
    *read = *est; /* the posting lists of the keys in range */
    return QV_OK;
  }
  /* Labels: independent, so fractions multiply.  Trigrams of one needle
   * overlap and go together: the rarest bounds the answer. */
  double frac = 1.0;
  *est = nonnull_rows;
  for (int32_t i = 0; i < a->n && !a->all_nonnull; i++) {
    int64_t k = first_key(f, &a->ranges[i]), c = 0;
    if (k < f->n_keys && qvi_range_inside(&a->ranges[i], f->dict[k].key, f->dict[k].key_len)) c = f->dict[k].card;
    *read += c; /* every list is read, then intersected */
    if (c < *est) *est = c;
    frac *= nonnull_rows ? (double)c / (double)nonnull_rows : 0.0;
  }
  if (keys_independent && !a->all_nonnull) *est = (int64_t)(frac * (double)nonnull_rows + 0.5);
  return QV_OK;
}
