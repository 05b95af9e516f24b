/* BITMAP: a roaring bitmap of rows per distinct value (posting.c's
 * layout).  It answers what BTREE answers (the same key ranges, match.c's
 * qvi_match_value), exactly, reading one posting list per value in range,
 * so it pays on columns of few distinct values. */
#include "index/index_int.h"

static bool supports(const qv_datatype *t) { return qvi_key_kind_of(t) != QVI_KEY_NONE; }
static const qv_datatype *key_type(const qv_datatype *t) { return t; }

static qv_status build(const qvi_build_in *in, qvi_build_out *o, qv_error *err) {
  qvi_entries c;
  memset(&c, 0, sizeof c);
  qv_status st = qvi_build_read(in, qvi_entries_of_values, &c, o, err);
  if (st == QV_OK) {
    qvi_entries_sort(&c);
    st = qvi_build_put_nulls(o, err);
  }
  if (st == QV_OK) st = qvi_postings_write_sorted(&c, o, err);
  qvi_entries_reset(&c);
  return st;
}

static qv_status estimate(qvi_file *f, const qvi_ask *a, int64_t *est, int64_t *read, qv_error *err) {
  return qvi_postings_estimate(f, a, false, est, read, err);
}

const qvi_kind qvi_kind_bitmap = {
    .type = QV_INDEX_BITMAP,
    .name = "bitmap",
    .supports = supports,
    .key_type = key_type,
    .build = build,
    .open = qvi_postings_open,
    .chunk_role = qvi_postings_chunk_role,
    .match = qvi_match_value,
    .and_ranges = true,
    .query = qvi_postings_query,
    .estimate = estimate,
    .stats = qvi_stats_footer,
};
