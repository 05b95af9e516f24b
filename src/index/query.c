/* Answering a question (qvi_ask) from one index file, and estimating the
 * answer's size from the file's statistics alone: BTREE from its page
 * lookup (an equi-depth histogram: every page holds the same number of
 * entries), the posting indices from their dictionary's counts. */
#include "index/index_int.h"

static int cmp_lo(const qvi_range *r, const uint8_t *k, int32_t kl) { /* key vs the lower bound */
  return qvi_key_cmp(k, kl, r->lo, r->lo_len);
}

static bool has_prefix(const qvi_range *r, const uint8_t *k, int32_t kl) {
  return kl >= r->lo_len && (r->lo_len == 0 || memcmp(k, r->lo, (size_t)r->lo_len) == 0);
}

/* The key is below the range. */
static bool below(const qvi_range *r, const uint8_t *k, int32_t kl) {
  if (!r->has_lo) return false;
  int c = cmp_lo(r, k, kl);
  return r->lo_inc ? c < 0 : c <= 0;
}

/* The key is above the range (and so is every later key). */
static bool above(const qvi_range *r, const uint8_t *k, int32_t kl) {
  if (r->prefix) return cmp_lo(r, k, kl) > 0 && !has_prefix(r, k, kl);
  if (!r->has_hi) return false;
  int c = qvi_key_cmp(k, kl, r->hi, r->hi_len);
  return r->hi_inc ? c > 0 : c >= 0;
}

static bool inside(const qvi_range *r, const uint8_t *k, int32_t kl) {
  return !below(r, k, kl) && !above(r, k, kl) && (!r->prefix || has_prefix(r, k, kl));
}

static bool is_point(const qvi_range *r) {
  return r->has_lo && r->has_hi && r->lo_inc && r->hi_inc && !r->prefix &&
         qvi_key_cmp(r->lo, r->lo_len, r->hi, r->hi_len) == 0;
}

/* First page whose last key is not below the range. */
static int32_t first_page(const qvi_file *f, const qvi_range *r) {
  int32_t lo = 0, hi = f->n_pages;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (below(r, f->pages[mid].last, f->pages[mid].last_len)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* First dictionary key not below the range. */
static int64_t first_key(const qvi_file *f, const qvi_range *r) {
  int64_t lo = 0, hi = f->n_keys;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (below(r, f->dict[mid].key, f->dict[mid].key_len)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static qv_status btree_range(qvi_file *f, const qvi_range *r, roaring_bitmap_t *out, qv_error *err) {
  for (int32_t p = first_page(f, r); p < f->n_pages; p++) {
    if (above(r, f->pages[p].first, f->pages[p].first_len)) break;
    qvi_page pg;
    QV_RETURN_NOT_OK(qvi_file_page(f, p, &pg, err));
    int64_t lo = 0, hi = pg.count;
    while (lo < hi) { /* first entry not below */
      int64_t mid = lo + (hi - lo) / 2;
      int32_t kl;
      const uint8_t *k = qvi_page_key(&pg, mid, &kl);
      if (below(r, k, kl)) lo = mid + 1;
      else hi = mid;
    }
    bool done = false;
    for (int64_t i = lo; i < pg.count; i++) {
      int32_t kl;
      const uint8_t *k = qvi_page_key(&pg, i, &kl);
      if (above(r, k, kl)) {
        done = true;
        break;
      }
      if (inside(r, k, kl)) roaring_bitmap_add(out, qvi_page_row(&pg, i));
    }
    qv_free(pg.bytes);
    if (done) break;
  }
  return QV_OK;
}

static qv_status dict_range(qvi_file *f, const qvi_range *r, roaring_bitmap_t *out, qv_error *err) {
  for (int64_t k = first_key(f, r); k < f->n_keys; k++) {
    if (above(r, f->dict[k].key, f->dict[k].key_len)) break;
    if (!inside(r, f->dict[k].key, f->dict[k].key_len)) continue;
    roaring_bitmap_t *p = NULL;
    QV_RETURN_NOT_OK(qvi_file_posting(f, k, &p, err));
    roaring_bitmap_or_inplace(out, p);
    roaring_bitmap_free(p);
  }
  return QV_OK;
}

/* Every row with a non-null value: [0, num_rows) minus the nulls. */
static qv_status nonnull(qvi_file *f, roaring_bitmap_t *out, qv_error *err) {
  const roaring_bitmap_t *nulls;
  QV_RETURN_NOT_OK(qvi_file_nulls(f, &nulls, err));
  roaring_bitmap_clear(out);
  if (f->num_rows > 0) roaring_bitmap_add_range(out, 0, (uint64_t)f->num_rows);
  roaring_bitmap_andnot_inplace(out, nulls);
  return QV_OK;
}

qv_status qvi_file_query(qvi_file *f, const qvi_ask *a, roaring_bitmap_t *out, qv_error *err) {
  roaring_bitmap_clear(out);
  if (f->type != QV_INDEX_BTREE) QV_RETURN_NOT_OK(qvi_file_dict(f, err));
  const roaring_bitmap_t *nulls = NULL;
  switch (a->mode) {
    case QVI_NULLS:
      QV_RETURN_NOT_OK(qvi_file_nulls(f, &nulls, err));
      roaring_bitmap_or_inplace(out, nulls);
      break;
    case QVI_RANGES:
    case QVI_ANY_KEY:
      for (int32_t i = 0; i < a->n; i++)
        QV_RETURN_NOT_OK(f->type == QV_INDEX_BTREE ? btree_range(f, &a->ranges[i], out, err)
                                                   : dict_range(f, &a->ranges[i], out, err));
      break;
    case QVI_ALL_KEYS:
      if (a->all_nonnull) {
        QV_RETURN_NOT_OK(nonnull(f, out, err));
        break;
      }
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
      break;
  }
  if (a->negate) {
    roaring_bitmap_t *all = roaring_bitmap_create();
    if (!all) return qv_error_nomem(err, NULL);
    qv_status st = nonnull(f, all, err);
    if (st == QV_OK) {
      roaring_bitmap_andnot_inplace(all, out);
      roaring_bitmap_clear(out);
      roaring_bitmap_or_inplace(out, all);
    }
    roaring_bitmap_free(all);
    QV_RETURN_NOT_OK(st);
  }
  if (a->add_nulls) {
    QV_RETURN_NOT_OK(qvi_file_nulls(f, &nulls, err));
    roaring_bitmap_or_inplace(out, nulls);
  }
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
static int64_t btree_estimate(const qvi_file *f, const qvi_range *r, int32_t *last_page, int64_t *read) {
  int64_t full = 0, partial = 0;
  double part_est = 0;
  for (int32_t p = first_page(f, r); p < f->n_pages; p++) {
    const qvi_page_ref *pg = &f->pages[p];
    if (above(r, pg->first, pg->first_len)) break;
    if (p > *last_page) {
      *read += pg->count;
      *last_page = p;
    }
    if (inside(r, pg->first, pg->first_len) && inside(r, pg->last, pg->last_len)) {
      full += pg->count;
    } else {
      partial += pg->count;
      part_est += page_fraction(pg, r) * (double)pg->count;
    }
  }
  int64_t per_value = f->distinct ? (f->entries + f->distinct - 1) / f->distinct : 0;
  if (is_point(r)) return full + (partial < per_value ? partial : per_value);
  int64_t est = full + (int64_t)(part_est + 0.5);
  return est > 0 || partial == 0 ? est : 1; /* a range touching a page may hold a row */
}

qv_status qvi_file_estimate(qvi_file *f, const qvi_ask *a, int64_t *rows, int64_t *entries_read, qv_error *err) {
  int64_t est = 0, nonnull_rows = f->num_rows - f->null_count, read = 0;
  int32_t last_page = -1;
  if (f->type != QV_INDEX_BTREE) QV_RETURN_NOT_OK(qvi_file_dict(f, err));
  switch (a->mode) {
    case QVI_NULLS: /* negated: every non-null row */
      *rows = (a->negate ? nonnull_rows : f->null_count) + (a->add_nulls ? f->null_count : 0);
      *entries_read = f->null_count;
      return QV_OK;
    case QVI_RANGES:
    case QVI_ANY_KEY:
      for (int32_t i = 0; i < a->n; i++) {
        const qvi_range *r = &a->ranges[i];
        if (f->type == QV_INDEX_BTREE) {
          est += btree_estimate(f, r, &last_page, &read);
          continue;
        }
        for (int64_t k = first_key(f, r); k < f->n_keys; k++) {
          if (above(r, f->dict[k].key, f->dict[k].key_len)) break;
          if (inside(r, f->dict[k].key, f->dict[k].key_len)) est += f->dict[k].card;
        }
      }
      if (f->type != QV_INDEX_BTREE) read = est; /* the posting lists of the keys in range */
      break;
    case QVI_ALL_KEYS: {
      /* Labels: independent, so fractions multiply.  Trigrams of one
       * needle overlap and go together: the rarest bounds the answer. */
      double frac = 1.0;
      est = nonnull_rows;
      for (int32_t i = 0; i < a->n && !a->all_nonnull; i++) {
        int64_t k = first_key(f, &a->ranges[i]), c = 0;
        if (k < f->n_keys && inside(&a->ranges[i], f->dict[k].key, f->dict[k].key_len)) c = f->dict[k].card;
        read += c; /* every list is read, then intersected */
        if (c < est) est = c;
        frac *= nonnull_rows ? (double)c / (double)nonnull_rows : 0.0;
      }
      if (f->type == QV_INDEX_LABEL_LIST && !a->all_nonnull) est = (int64_t)(frac * (double)nonnull_rows + 0.5);
      break;
    }
  }
  if (est > nonnull_rows) est = nonnull_rows;
  if (a->negate) est = nonnull_rows - est;
  if (a->add_nulls) {
    est += f->null_count;
    read += f->null_count;
  }
  *rows = est;
  *entries_read = read;
  return QV_OK;
}
