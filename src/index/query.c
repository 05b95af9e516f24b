/* Answering a question (qvi_ask) from one index file, and estimating the
 * answer's size from the file's statistics alone.  What every kind shares
 * is here: the null rows, negation ("the non-null rows not in the
 * answer"), added nulls, and the key range tests; the positive part of the
 * answer comes from the file's kind (its query and estimate). */
#include "index/index_int.h"

static int cmp_lo(const qvi_range *r, const uint8_t *k, int32_t kl) { /* key vs the lower bound */
  return qvi_key_cmp(k, kl, r->lo, r->lo_len);
}

static bool has_prefix(const qvi_range *r, const uint8_t *k, int32_t kl) {
  return kl >= r->lo_len && (r->lo_len == 0 || memcmp(k, r->lo, (size_t)r->lo_len) == 0);
}

bool qvi_range_below(const qvi_range *r, const uint8_t *k, int32_t kl) {
  if (!r->has_lo) return false;
  int c = cmp_lo(r, k, kl);
  return r->lo_inc ? c < 0 : c <= 0;
}

/* The key is above the range (and so is every later key). */
bool qvi_range_above(const qvi_range *r, const uint8_t *k, int32_t kl) {
  if (r->prefix) return cmp_lo(r, k, kl) > 0 && !has_prefix(r, k, kl);
  if (!r->has_hi) return false;
  int c = qvi_key_cmp(k, kl, r->hi, r->hi_len);
  return r->hi_inc ? c > 0 : c >= 0;
}

bool qvi_range_inside(const qvi_range *r, const uint8_t *k, int32_t kl) {
  return !qvi_range_below(r, k, kl) && !qvi_range_above(r, k, kl) && (!r->prefix || has_prefix(r, k, kl));
}

bool qvi_range_is_point(const qvi_range *r) {
  return r->has_lo && r->has_hi && r->lo_inc && r->hi_inc && !r->prefix &&
         qvi_key_cmp(r->lo, r->lo_len, r->hi, r->hi_len) == 0;
}

/* Every row with a non-null value: [0, num_rows) minus the nulls. */
qv_status qvi_file_nonnull(qvi_file *f, roaring_bitmap_t *out, qv_error *err) {
  const roaring_bitmap_t *nulls;
  QV_RETURN_NOT_OK(qvi_file_nulls(f, &nulls, err));
  roaring_bitmap_clear(out);
  if (f->num_rows > 0) roaring_bitmap_add_range(out, 0, (uint64_t)f->num_rows);
  roaring_bitmap_andnot_inplace(out, nulls);
  return QV_OK;
}

qv_status qvi_file_query(qvi_file *f, const qvi_ask *a, roaring_bitmap_t *out, qv_error *err) {
  roaring_bitmap_clear(out);
  if (!f->kind->query)
    return qv_error_set(err, QV_ERR_INVALID, "%s: a %s index answers no conjunct", f->name, f->kind->name);
  QV_RETURN_NOT_OK(qvi_file_dict(f, err));
  const roaring_bitmap_t *nulls = NULL;
  if (a->mode == QVI_NULLS) {
    QV_RETURN_NOT_OK(qvi_file_nulls(f, &nulls, err));
    roaring_bitmap_or_inplace(out, nulls);
  } else {
    QV_RETURN_NOT_OK(f->kind->query(f, a, out, err));
  }
  if (a->negate) {
    roaring_bitmap_t *all = roaring_bitmap_create();
    if (!all) return qv_error_nomem(err, NULL);
    qv_status st = qvi_file_nonnull(f, all, err);
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

qv_status qvi_file_estimate(qvi_file *f, const qvi_ask *a, int64_t *rows, int64_t *entries_read, qv_error *err) {
  int64_t est = 0, nonnull_rows = f->num_rows - f->null_count, read = 0;
  if (!f->kind->estimate)
    return qv_error_set(err, QV_ERR_INVALID, "%s: a %s index answers no conjunct", f->name, f->kind->name);
  QV_RETURN_NOT_OK(qvi_file_dict(f, err));
  if (a->mode == QVI_NULLS) { /* negated: every non-null row */
    *rows = (a->negate ? nonnull_rows : f->null_count) + (a->add_nulls ? f->null_count : 0);
    *entries_read = f->null_count;
    return QV_OK;
  }
  QV_RETURN_NOT_OK(f->kind->estimate(f, a, &est, &read, err));
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
