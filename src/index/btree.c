/* BTREE: every non-null (key, row) entry in key order, cut into pages of
 * page_rows entries, plus a page lookup (each page's chunk, entry count,
 * first and last key) in the footer:
 *
 *   page chunk := u64 count, (count + 1) u32 key offsets, key bytes,
 *                 count u32 rows
 *   footer tail := u32 null rows chunk, u32 n_pages,
 *                  n_pages x { u32 chunk, u64 count, key first, key last }
 *
 * It answers key ranges (comparisons, BETWEEN, IN, IS [NOT] NULL,
 * starts_with, LIKE 'prefix%') exactly and estimates from the page lookup,
 * an equi-depth histogram (every page holds the same number of entries). */
#include <stdio.h>

#include "index/index_int.h"

enum { MIN_PAGE_ENTRY = 4 + 8 + 4 + 4 };

static bool supports(const qv_datatype *t) { return qvi_key_kind_of(t) != QVI_KEY_NONE; }
static const qv_datatype *key_type(const qv_datatype *t) { return t; }

/* ---- building --------------------------------------------------------------- */

static qv_status write_pages(const qvi_entries *c, int64_t page_rows, qvi_build_out *o, qv_error *err) {
  int64_t n_pages = (c->n + page_rows - 1) / page_rows;
  qvb_wire_put_u32(&o->tail, (uint32_t)n_pages);
  for (int64_t i = 0; i < c->n; i++)
    if (i == 0 ||
        qvi_key_cmp(qvi_entry_key(c, i - 1), (int32_t)c->e[i - 1].len, qvi_entry_key(c, i), (int32_t)c->e[i].len) != 0)
      o->distinct++;
  for (int64_t p = 0; p < n_pages; p++) {
    int64_t lo = p * page_rows, hi = lo + page_rows < c->n ? lo + page_rows : c->n;
    qvb_wbuf pg = {QV_BUFFER_INIT, QV_OK};
    qvb_wire_put_u64(&pg, (uint64_t)(hi - lo));
    uint32_t off = 0;
    for (int64_t i = lo; i <= hi; i++) {
      qvb_wire_put_u32(&pg, off);
      if (i < hi) off += c->e[i].len;
    }
    for (int64_t i = lo; i < hi; i++) qvb_wire_put_bytes(&pg, qvi_entry_key(c, i), c->e[i].len);
    for (int64_t i = lo; i < hi; i++) qvb_wire_put_u32(&pg, c->e[i].row);
    if (pg.status != QV_OK) {
      qv_buffer_reset(&pg.buf);
      return qv_error_nomem(err, "index build");
    }
    int32_t chunk = qvi_writer_chunk(&o->w, &pg.buf);
    qv_buffer_reset(&pg.buf);
    qvb_wire_put_u32(&o->tail, (uint32_t)chunk);
    qvb_wire_put_u64(&o->tail, (uint64_t)(hi - lo));
    qvi_put_key(&o->tail, qvi_entry_key(c, lo), c->e[lo].len);
    qvi_put_key(&o->tail, qvi_entry_key(c, hi - 1), c->e[hi - 1].len);
  }
  return QV_OK;
}

static qv_status build(const qvi_build_in *in, qvi_build_out *o, qv_error *err) {
  qvi_entries c;
  memset(&c, 0, sizeof c);
  qv_status st = qvi_build_read(in, qvi_entries_of_values, &c, o, err);
  if (st == QV_OK) {
    qvi_entries_sort(&c);
    st = qvi_build_put_nulls(o, err);
  }
  if (st == QV_OK) {
    o->entries = c.n;
    st = write_pages(&c, in->page_rows, o, err);
  }
  qvi_entries_reset(&c);
  return st;
}

/* ---- opening ------------------------------------------------------------------ */

static bool open_tail(qvb_cursor *c, qvi_file *f) {
  uint32_t n;
  int64_t at = c->pos;
  if (!qvb_wire_get_u32(c, &n, "page count")) return false;
  if ((int64_t)n * MIN_PAGE_ENTRY > c->size - c->pos) {
    c->pos = at;
    return qvb_cursor_fail(c, "page count %u does not fit in the footer", n);
  }
  f->pages = qv_calloc(n ? n : 1, sizeof *f->pages);
  if (!f->pages) {
    c->status = qv_error_nomem(c->err, NULL);
    return false;
  }
  int64_t total = 0;
  for (uint32_t p = 0; p < n; p++) {
    qvi_page_ref *pg = &f->pages[p];
    uint32_t len;
    const uint8_t *bytes;
    at = c->pos;
    if (!qvi_get_chunk_ref(c, f, &pg->chunk, "page chunk")) return false;
    if (!qvb_wire_get_range(c, 1, UINT32_MAX, &pg->count, "page entry count")) return false;
    if (!qvb_wire_get_u32(c, &len, "first key length") || !qvb_wire_get_bytes(c, len, &bytes, "first key"))
      return false;
    pg->first = (uint8_t *)bytes;
    pg->first_len = (int32_t)len;
    if (!qvb_wire_get_u32(c, &len, "last key length") || !qvb_wire_get_bytes(c, len, &bytes, "last key")) return false;
    pg->last = (uint8_t *)bytes;
    pg->last_len = (int32_t)len;
    if (qvi_key_cmp(pg->first, pg->first_len, pg->last, pg->last_len) > 0 ||
        (p && qvi_key_cmp(f->pages[p - 1].last, f->pages[p - 1].last_len, pg->first, pg->first_len) > 0)) {
      c->pos = at;
      return qvb_cursor_fail(c, "page %u: keys out of order in the page lookup", p);
    }
    total += pg->count;
    f->n_pages = (int32_t)p + 1;
  }
  if (total != f->entries)
    return qvb_cursor_fail(c, "pages hold %lld entries, the footer says %lld", (long long)total, (long long)f->entries);
  return true;
}

static void chunk_role(const qvi_file *f, int32_t i, char *buf, size_t n) {
  for (int32_t p = 0; p < f->n_pages; p++)
    if (f->pages[p].chunk == i) {
      snprintf(buf, n, "page %d", p);
      return;
    }
  snprintf(buf, n, "unused");
}

qv_status qvi_file_page(qvi_file *f, int32_t p, qvi_page *out, qv_error *err) {
  memset(out, 0, sizeof *out);
  const qvi_page_ref *ref = &f->pages[p];
  const qvi_chunk *ch = &f->chunks[ref->chunk];
  uint8_t *b = NULL;
  char what[48];
  snprintf(what, sizeof what, "page %d", p);
  QV_RETURN_NOT_OK(qvi_file_chunk(f, ref->chunk, what, &b, err));
  int64_t n = ref->count, len = ch->length;
  /* u64 count, (n + 1) u32 offsets, key bytes, n u32 rows */
  if (len < 8 || qv_load_u64le(b) != (uint64_t)n || (n + 1) * 4 + n * 4 > len - 8) goto bad;
  const uint8_t *offs = b + 8;
  int64_t key_bytes = len - 8 - (n + 1) * 4 - n * 4;
  if (qv_load_u32le(offs) != 0 || (int64_t)qv_load_u32le(offs + 4 * n) != key_bytes) goto bad;
  for (int64_t i = 0; i < n; i++)
    if (qv_load_u32le(offs + 4 * i) > qv_load_u32le(offs + 4 * (i + 1))) goto bad;
  out->bytes = b;
  out->count = n;
  out->offsets = offs;
  out->keys = offs + (n + 1) * 4;
  out->rows = out->keys + key_bytes;
  int32_t pl = 0, kl;
  const uint8_t *prev = NULL;
  for (int64_t i = 0; i < n; i++) {
    const uint8_t *k = qvi_page_key(out, i, &kl);
    if ((int64_t)qvi_page_row(out, i) >= f->num_rows) goto bad;
    if (prev && qvi_key_cmp(prev, pl, k, kl) > 0) goto bad;
    prev = k;
    pl = kl;
  }
  int32_t fl;
  const uint8_t *first = qvi_page_key(out, 0, &fl);
  if (qvi_key_cmp(first, fl, ref->first, ref->first_len) != 0 || qvi_key_cmp(prev, pl, ref->last, ref->last_len) != 0)
    goto bad;
  return QV_OK;
bad:
  qv_free(b);
  memset(out, 0, sizeof *out);
  return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %lld: chunk %d (%s): entries, offsets or keys are inconsistent",
                      f->name, (long long)ch->offset, ref->chunk, what);
}

/* ---- answering ---------------------------------------------------------------- */

/* First page whose last key is not below the range. */
static int32_t first_page(const qvi_file *f, const qvi_range *r) {
  int32_t lo = 0, hi = f->n_pages;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (qvi_range_below(r, f->pages[mid].last, f->pages[mid].last_len)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static qv_status range_rows(qvi_file *f, const qvi_range *r, roaring_bitmap_t *out, qv_error *err) {
  for (int32_t p = first_page(f, r); p < f->n_pages; p++) {
    if (qvi_range_above(r, f->pages[p].first, f->pages[p].first_len)) break;
    qvi_page pg;
    QV_RETURN_NOT_OK(qvi_file_page(f, p, &pg, err));
    int64_t lo = 0, hi = pg.count;
    while (lo < hi) { /* first entry not below */
      int64_t mid = lo + (hi - lo) / 2;
      int32_t kl;
      const uint8_t *k = qvi_page_key(&pg, mid, &kl);
      if (qvi_range_below(r, k, kl)) lo = mid + 1;
      else hi = mid;
    }
    bool done = false;
    for (int64_t i = lo; i < pg.count; i++) {
      int32_t kl;
      const uint8_t *k = qvi_page_key(&pg, i, &kl);
      if (qvi_range_above(r, k, kl)) {
        done = true;
        break;
      }
      if (qvi_range_inside(r, k, kl)) roaring_bitmap_add(out, qvi_page_row(&pg, i));
    }
    qv_free(pg.bytes);
    if (done) break;
  }
  return QV_OK;
}

static qv_status query(qvi_file *f, const qvi_ask *a, roaring_bitmap_t *out, qv_error *err) {
  if (a->mode == QVI_ALL_KEYS) return qv_error_set(err, QV_ERR_INVALID, "%s: a btree holds no key sets", f->name);
  for (int32_t i = 0; i < a->n; i++) QV_RETURN_NOT_OK(range_rows(f, &a->ranges[i], out, err));
  return QV_OK;
}

/* ---- estimates ------------------------------------------------------------ */

/* A key as a number in [0, 1) relative to the bytes after skip: keys that
 * share the page's common prefix are told apart by the next 7 bytes. */
static double key_pos(const uint8_t *k, int32_t len, int32_t skip, uint8_t pad) {
  double v = 0, w = 1.0 / 256;
  for (int32_t i = skip; i < skip + 7; i++, w /= 256) v += (i < len ? k[i] : pad) * w;
  return v;
}

/* The fraction of a page's entries inside the range, interpolating between
 * its first and last key (the histogram assumes values spread evenly). */
static double page_fraction(const qvi_page_ref *pg, const qvi_range *r) {
  int32_t skip = 0;
  while (skip < pg->first_len && skip < pg->last_len && pg->first[skip] == pg->last[skip]) skip++;
  double a = key_pos(pg->first, pg->first_len, skip, 0), b = key_pos(pg->last, pg->last_len, skip, 0);
  if (b <= a) return 0.5;
  double lo = a, hi = b;
  if (r->has_lo) {
    double x = qvi_key_cmp(r->lo, r->lo_len, pg->first, pg->first_len) <= 0 ? a : key_pos(r->lo, r->lo_len, skip, 0);
    if (x > lo) lo = x;
  }
  if (r->prefix || r->has_hi) {
    const uint8_t *h = r->prefix ? r->lo : r->hi;
    int32_t hl = r->prefix ? r->lo_len : r->hi_len;
    double y =
        qvi_key_cmp(h, hl, pg->last, pg->last_len) >= 0 && !r->prefix ? b : key_pos(h, hl, skip, r->prefix ? 0xFF : 0);
    if (y < hi) hi = y;
  }
  double f = (hi - lo) / (b - a);
  return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* Rows of range r, and the entries of the pages it touches that were not
 * counted yet (*last_page: the last page counted, ranges come in key order). */
static int64_t range_estimate(const qvi_file *f, const qvi_range *r, int32_t *last_page, int64_t *read) {
  int64_t full = 0, partial = 0;
  double part_est = 0;
  for (int32_t p = first_page(f, r); p < f->n_pages; p++) {
    const qvi_page_ref *pg = &f->pages[p];
    if (qvi_range_above(r, pg->first, pg->first_len)) break;
    if (p > *last_page) {
      *read += pg->count;
      *last_page = p;
    }
    if (qvi_range_inside(r, pg->first, pg->first_len) && qvi_range_inside(r, pg->last, pg->last_len)) {
      full += pg->count;
    } else {
      partial += pg->count;
      part_est += page_fraction(pg, r) * (double)pg->count;
    }
  }
  int64_t per_value = f->distinct ? (f->entries + f->distinct - 1) / f->distinct : 0;
  if (qvi_range_is_point(r)) return full + (partial < per_value ? partial : per_value);
  int64_t est = full + (int64_t)(part_est + 0.5);
  return est > 0 || partial == 0 ? est : 1; /* a range touching a page may hold a row */
}

static qv_status estimate(qvi_file *f, const qvi_ask *a, int64_t *est, int64_t *read, qv_error *err) {
  int32_t last_page = -1;
  *est = *read = 0;
  if (a->mode == QVI_ALL_KEYS) return qv_error_set(err, QV_ERR_INVALID, "%s: a btree holds no key sets", f->name);
  for (int32_t i = 0; i < a->n; i++) *est += range_estimate(f, &a->ranges[i], &last_page, read);
  return QV_OK;
}

const qvi_kind qvi_kind_btree = {
    .type = QV_INDEX_BTREE,
    .name = "btree",
    .supports = supports,
    .key_type = key_type,
    .build = build,
    .open = open_tail,
    .chunk_role = chunk_role,
    .match = qvi_match_value,
    .and_ranges = true,
    .query = query,
    .estimate = estimate,
    .stats = qvi_stats_footer,
};
