/* NGRAM: on a string or binary column, a roaring bitmap of rows per
 * trigram (three bytes) a value holds (posting.c's layout, the trigrams as
 * 3-byte keys).  It answers contains, starts_with, ends_with, LIKE with a
 * literal run of at least three bytes and regexes with one (pattern.c
 * finds the runs), as a superset the scan re-checks; contains of exactly
 * three bytes is exact.  Trigrams are collected in a hash table, not as
 * sorted entries: a row holds many. */
#include <stdlib.h>

#include "expr/expr_lit.h"
#include "index/index_int.h"

static bool supports(const qv_datatype *t) { return t->id == QV_TYPE_STRING || t->id == QV_TYPE_BINARY; }
static const qv_datatype *key_type(const qv_datatype *t) { return t; }

/* ---- building --------------------------------------------------------------- */

typedef struct trigrams {
  uint32_t *tri; /* open addressing: trigram + 1 (0: empty) */
  roaring_bitmap_t **post;
  int64_t slots, used;
} trigrams;

static roaring_bitmap_t **tri_slot(trigrams *c, uint32_t t, qv_error *err) {
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

static qv_status collect(void *ctx, const qv_array *a, int64_t base, qvi_build_out *out, qv_error *err) {
  trigrams *c = ctx;
  uint8_t tmp[16];
  int32_t len;
  for (int64_t i = 0; i < a->length; i++) {
    uint32_t row = (uint32_t)(base + i);
    if (!qv_array_is_valid(a, i)) {
      roaring_bitmap_add(out->nulls, row);
      continue;
    }
    const uint8_t *key = qvi_key_of_row(a, i, QVI_KEY_BYTES, tmp, &len);
    for (int32_t k = 0; k + 3 <= len; k++) {
      roaring_bitmap_t **p = tri_slot(c, qvi_trigram(key + k), err);
      if (!p) return QV_ERR_NOMEM;
      if (!*p && !(*p = roaring_bitmap_create())) return qv_error_nomem(err, "index build");
      roaring_bitmap_add(*p, row);
    }
  }
  return QV_OK;
}

typedef struct tri_post {
  uint32_t tri;
  roaring_bitmap_t *r;
} tri_post;

static int cmp_tri(const void *x, const void *y) {
  uint32_t a = ((const tri_post *)x)->tri, b = ((const tri_post *)y)->tri;
  return (a > b) - (a < b);
}

/* One posting chunk per trigram in trigram order, then the dictionary. */
static qv_status write_postings(trigrams *c, qvi_build_out *o, qv_error *err) {
  qvb_wbuf dict = {QV_BUFFER_INIT, QV_OK};
  qvb_wbuf bytes = {QV_BUFFER_INIT, QV_OK};
  qv_status st = QV_OK;
  tri_post *order = qv_malloc((size_t)(c->used ? c->used : 1) * sizeof *order);
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
    int32_t chunk = qvi_writer_chunk(&o->w, &bytes.buf);
    uint32_t t = order[i].tri;
    uint8_t key[3] = {(uint8_t)(t >> 16), (uint8_t)(t >> 8), (uint8_t)t};
    qvi_put_key(&dict, key, 3);
    qvb_wire_put_u32(&dict, (uint32_t)chunk);
    uint64_t card = roaring_bitmap_get_cardinality(r);
    qvb_wire_put_u64(&dict, card);
    o->entries += (int64_t)card;
  }
  o->distinct = k;
  if (bytes.status != QV_OK || dict.status != QV_OK) st = qv_error_nomem(err, "index build");
  if (st == QV_OK) {
    int32_t chunk = qvi_writer_chunk(&o->w, &dict.buf);
    qvb_wire_put_u32(&o->tail, (uint32_t)chunk);
    qvb_wire_put_u64(&o->tail, (uint64_t)o->distinct);
  }
  qv_free(order);
  qv_buffer_reset(&dict.buf);
  qv_buffer_reset(&bytes.buf);
  return st;
}

static qv_status build(const qvi_build_in *in, qvi_build_out *o, qv_error *err) {
  trigrams c;
  memset(&c, 0, sizeof c);
  qv_status st = qvi_build_read(in, collect, &c, o, err);
  if (st == QV_OK) st = qvi_build_put_nulls(o, err);
  if (st == QV_OK) st = write_postings(&c, o, err);
  for (int64_t i = 0; i < c.slots; i++)
    if (c.post[i]) roaring_bitmap_free(c.post[i]);
  qv_free(c.tri);
  qv_free(c.post);
  return st;
}

/* ---- conjuncts ------------------------------------------------------------------ */

static bool trigram_keys(qvi_match_ctx *c, qvi_ask *a, const qvi_runs *runs) {
  a->mode = QVI_ALL_KEYS;
  for (int32_t i = 0; i < runs->n; i++) {
    const uint8_t *t = runs->text.data + runs->off[i];
    for (int64_t k = 0; k + 3 <= runs->len[i]; k++) {
      qvi_range *r = qvi_add_range(a, c->err);
      if (!r || !(r->lo = qv_malloc(4)) || !(r->hi = qv_malloc(4))) {
        c->st = qv_error_nomem(c->err, NULL);
        return false;
      }
      memcpy(r->lo, t + k, 3);
      memcpy(r->hi, t + k, 3);
      r->lo_len = r->hi_len = 3;
      r->has_lo = r->has_hi = r->lo_inc = r->hi_inc = true;
    }
  }
  return a->n > 0;
}

static bool match(qvi_match_ctx *c, const qv_expr *e, qvi_ask *a) {
  if (e->kind != QV_EXPR_CALL || e->n_args < 2 || qvi_column_of(e->args[0]) != c->column ||
      !qve_is_bytes_lit(e->args[1]))
    return false;
  qvi_runs runs;
  memset(&runs, 0, sizeof runs);
  bool ok = false;
  const uint8_t *p = e->args[1]->value.bytes;
  int64_t n = e->args[1]->value.len;
  switch (e->op) {
    case QV_OP_CONTAINS:
    case QV_OP_STARTS_WITH:
    case QV_OP_ENDS_WITH:
      if (e->n_args != 2 || qv_buffer_append(&runs.text, p, n) != QV_OK) break;
      runs.n = 1;
      runs.off[0] = 0;
      runs.len[0] = n;
      ok = trigram_keys(c, a, &runs);
      /* one trigram is the whole needle: its posting list is the answer */
      a->exact = ok && e->op == QV_OP_CONTAINS && n == 3;
      break;
    case QV_OP_LIKE: {
      int esc;
      if (e->sem.case_insensitive || !qvi_like_escape(e, &esc) || !qvi_like_runs(p, n, esc, &runs)) break;
      ok = trigram_keys(c, a, &runs);
      break;
    }
    case QV_OP_REGEXP_MATCH:
    case QV_OP_REGEXP_LIKE:
      if (e->n_args == 3 && !(qve_is_bytes_lit(e->args[2]) && e->args[2]->value.len == 0)) break; /* flags: give up */
      qvi_regex_runs(p, n, &runs);
      ok = trigram_keys(c, a, &runs);
      break;
    default: break;
  }
  qvi_runs_reset(&runs);
  return ok;
}

static qv_status estimate(qvi_file *f, const qvi_ask *a, int64_t *est, int64_t *read, qv_error *err) {
  return qvi_postings_estimate(f, a, false, est, read, err);
}

const qvi_kind qvi_kind_ngram = {
    .type = QV_INDEX_NGRAM,
    .name = "ngram",
    .supports = supports,
    .key_type = key_type,
    .build = build,
    .open = qvi_postings_open,
    .chunk_role = qvi_postings_chunk_role,
    .match = match,
    .query = qvi_postings_query,
    .estimate = estimate,
    .stats = qvi_stats_footer,
};
