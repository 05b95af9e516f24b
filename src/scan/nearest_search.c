/* Finding the k nearest rows (nearest.h).  Flat search reads a fragment's
 * vectors in blocks (every live row, or only the rows the prefilter kept),
 * and the workers of the pool split each block: each computes the
 * distances of its rows to every query with the dispatched kernels
 * (src/compute/distance.c) and keeps its own bounded heap per query.  The
 * heaps are merged at the end under the total order (distance, row id), so
 * the answer is the same at 1 and N threads.  A fragment a vector index
 * covers is searched through it instead (qv_index_search), unless the
 * prefilter keeps so few of its rows that reading those rows' vectors
 * costs less than probing partitions (the cost rule in nearest.c). */
#include <math.h>
#include <stdlib.h>

#include "base/pool.h"
#include "compute/distance.h"
#include "scan/nearest.h"

enum { BLOCK_ROWS = 8192, TASK_ROWS = 512 };

/* ---- the bounded heap ------------------------------------------------------ */

/* A max-heap on the hit order: h[0] is the worst kept. */
static void sift_down(qvsc_hit *h, int64_t n, int64_t i) {
  for (;;) {
    int64_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && qvsc_hit_before(h[m], h[l])) m = l;
    if (r < n && qvsc_hit_before(h[m], h[r])) m = r;
    if (m == i) return;
    qvsc_hit t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

void qvsc_topk_push(qvsc_topk *t, qvsc_hit x) {
  if (t->n < t->cap) {
    int64_t i = t->n++;
    t->h[i] = x;
    while (i > 0) {
      int64_t p = (i - 1) / 2;
      if (!qvsc_hit_before(t->h[p], t->h[i])) break;
      qvsc_hit tmp = t->h[p];
      t->h[p] = t->h[i];
      t->h[i] = tmp;
      i = p;
    }
    return;
  }
  if (!qvsc_hit_before(x, t->h[0])) return;
  t->h[0] = x;
  sift_down(t->h, t->n, 0);
}

static int cmp_hit(const void *a, const void *b) {
  qvsc_hit x = *(const qvsc_hit *)a, y = *(const qvsc_hit *)b;
  return qvsc_hit_before(x, y) ? -1 : qvsc_hit_before(y, x) ? 1 : 0;
}

void qvsc_topk_sort(qvsc_topk *t) { qsort(t->h, (size_t)t->n, sizeof *t->h, cmp_hit); }

/* ---- distances of a block ---------------------------------------------------- */

typedef struct block {
  qvsc_search *s;
  const qvk_dist_kernels *kern;
  const float *x;       /* n vectors of dim floats */
  const uint64_t *rows; /* row ids (NULL: base + i) */
  uint64_t base;
  const uint8_t *skip; /* 1: not a candidate (null, deleted), or NULL */
  int64_t n;
  qvsc_topk *heaps;  /* [worker * n_queries + query] */
  float *scratch;    /* [worker * 2 * TASK_ROWS] */
  int64_t distances; /* counted by the caller */
} block;

static float to_distance(qv_metric m, float raw, float qn, float xn) {
  switch (m) {
    case QV_METRIC_L2: return raw;
    case QV_METRIC_DOT: return 1.0f - raw;
    default: return 1.0f - raw / (qn * xn); /* a zero vector: NaN, not a candidate */
  }
}

static void block_task(void *ctx, int64_t task, int worker) {
  block *b = ctx;
  qvsc_search *s = b->s;
  int64_t lo = task * TASK_ROWS, hi = lo + TASK_ROWS < b->n ? lo + TASK_ROWS : b->n;
  float *d = b->scratch + (size_t)worker * 2 * TASK_ROWS, *norms = d + TASK_ROWS;
  const float *x = b->x + lo * s->dim;
  int64_t n = hi - lo;
  if (s->metric == QV_METRIC_COSINE)
    for (int64_t i = 0; i < n; i++) {
      b->kern->dot(x + i * s->dim, x + i * s->dim, 1, s->dim, &norms[i]);
      norms[i] = sqrtf(norms[i]);
    }
  for (int32_t q = 0; q < s->n_queries; q++) {
    const float *qv = s->q + (size_t)q * s->dim;
    if (s->metric == QV_METRIC_L2) b->kern->l2(qv, x, n, s->dim, d);
    else b->kern->dot(qv, x, n, s->dim, d);
    qvsc_topk *t = &b->heaps[(size_t)worker * s->n_queries + q];
    for (int64_t i = 0; i < n; i++) {
      if (b->skip && b->skip[lo + i]) continue;
      float v = to_distance(s->metric, d[i], s->qnorm[q], norms[i]);
      if (isnan(v)) continue;
      qvsc_hit h = {v, b->rows ? b->rows[lo + i] : b->base + (uint64_t)(lo + i)};
      if (t->n == t->cap && !qvsc_hit_before(h, t->h[0])) continue;
      qvsc_topk_push(t, h);
    }
  }
}

static void run_block(block *b) {
  int64_t tasks = (b->n + TASK_ROWS - 1) / TASK_ROWS;
  qvb_pool_run(tasks, QV_POOL_MAX, block_task, b);
  b->s->distances += b->n * b->s->n_queries;
}

/* The vectors of a fixed_size_list array as one contiguous run, and which
 * slots are no candidates (null, or holding a null element). */
static const float *vectors_of(const qv_array *a, int32_t dim, uint8_t *skip, bool *any_skip) {
  const qv_array *child = a->children[0];
  const float *v = (const float *)child->buffers[1]->data + child->offset + a->offset * dim;
  *any_skip = false;
  for (int64_t i = 0; i < a->length; i++) {
    bool bad = !qv_array_is_valid(a, i);
    if (!bad && child->null_count > 0)
      for (int32_t j = 0; j < dim && !bad; j++) bad = !qv_array_is_valid(child, (a->offset + i) * dim + j);
    skip[i] = bad;
    *any_skip |= bad;
  }
  return v;
}

/* ---- flat search of one fragment ------------------------------------------------- */

/* A prefilter keeping fewer than this share of a fragment's rows has them
 * taken one by one (qv_fragment_take); above it the fragment is read in
 * blocks and the rows it drops are skipped, which costs less than the
 * scattered reads of a take. */
#define TAKE_BELOW 0.04

static qv_status flat_fragment(qvsc_search *s, block *b, int32_t frag, const uint64_t *adm, int64_t n_adm,
                               qv_error *err) {
  qv_fragment_info fi;
  qv_dataset_fragment(s->ds, frag, &fi);
  qv_fragment_reader *r = NULL;
  QV_RETURN_NOT_OK(qv_fragment_open(s->ds, frag, &r, err));
  int64_t rows = qv_fragment_num_rows(r);
  const uint8_t *deleted = qv_fragment_deleted(r);
  bool by_take = adm && (double)n_adm < TAKE_BELOW * (double)rows;
  uint8_t *skip = qv_malloc(BLOCK_ROWS);
  int64_t *take = by_take ? qv_malloc(BLOCK_ROWS * sizeof *take) : NULL;
  /* reading in blocks with a prefilter: a bit per row it keeps */
  uint8_t *keep = adm && !by_take ? qv_calloc((size_t)(rows + 7) / 8 + 1, 1) : NULL;
  qv_status st = skip && (!by_take || take) && (!adm || by_take || keep) ? QV_OK : qv_error_nomem(err, "nearest");
  for (int64_t i = 0; keep && i < n_adm; i++) {
    uint32_t row = (uint32_t)(adm[i] & 0xFFFFFFFFu);
    keep[row >> 3] |= (uint8_t)(1u << (row & 7));
  }
  int64_t total = by_take ? n_adm : rows;
  /* blocks end where the column's pages end: a read across pages joins
   * them value by value, a read inside one page is a view */
  int32_t page = 0, n_pages = qv_fragment_num_pages(r, s->column);
  int64_t page_end = 0;
  for (int64_t at = 0, n = 0; at < total && st == QV_OK; at += n) {
    n = total - at < BLOCK_ROWS ? total - at : BLOCK_ROWS;
    if (!by_take) {
      while (page < n_pages && page_end <= at) {
        qv_page_info pi;
        qv_fragment_page(r, s->column, page++, &pi);
        page_end = pi.row_start + pi.row_count;
      }
      if (page_end > at && at + n > page_end) n = page_end - at;
    }
    qv_array *a = NULL;
    if (by_take) {
      for (int64_t i = 0; i < n; i++) take[i] = (int64_t)(adm[at + i] & 0xFFFFFFFFu);
      st = qv_fragment_take(r, s->column, take, n, &a, err);
    } else {
      st = qv_fragment_read(r, s->column, at, n, &a, err);
    }
    if (st != QV_OK) break;
    bool any;
    b->x = vectors_of(a, s->dim, skip, &any);
    /* the prefilter's rows exclude deleted ones already */
    const uint8_t *drop = keep ? keep : by_take ? NULL : deleted;
    if (drop)
      for (int64_t i = 0; i < n; i++) {
        bool bit = (drop[(at + i) >> 3] >> ((at + i) & 7)) & 1;
        bool out = keep ? !bit : bit;
        skip[i] |= out;
        any |= out;
      }
    b->skip = any ? skip : NULL;
    b->rows = by_take ? adm + at : NULL;
    b->base = ((uint64_t)fi.id << 32) + (uint64_t)at;
    b->n = n;
    run_block(b);
    qv_array_release(a);
  }
  qv_free(skip);
  qv_free(take);
  qv_free(keep);
  qv_fragment_close(r);
  s->fragments_flat++;
  return st;
}

/* ---- a fragment through the vector index -------------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

typedef struct refine_job {
  qvsc_search *s;
  block *b;
  const qv_index_candidate *cand;
  const int64_t *n_cand;
  int64_t want;
  const uint64_t *ids; /* the candidates' rows, sorted, once each */
  int64_t n_ids;
  const float *x; /* their vectors, in that order */
  const uint8_t *bad;
  uint64_t frag_id;
} refine_job;

static void refine_task(void *ctx, int64_t q, int worker) {
  refine_job *j = ctx;
  qvsc_search *s = j->s;
  qvsc_topk *t = &j->b->heaps[(size_t)worker * s->n_queries + q];
  const float *qv = s->q + (size_t)q * s->dim;
  for (int64_t i = 0; i < j->n_cand[q]; i++) {
    uint64_t row = j->frag_id << 32 | j->cand[(size_t)q * j->want + i].row;
    int64_t lo = 0, hi = j->n_ids;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (j->ids[mid] < row) lo = mid + 1;
      else hi = mid;
    }
    if (j->bad[lo]) continue;
    const float *x = j->x + lo * s->dim;
    float raw, norm = 0;
    if (s->metric == QV_METRIC_L2) j->b->kern->l2(qv, x, 1, s->dim, &raw);
    else j->b->kern->dot(qv, x, 1, s->dim, &raw);
    if (s->metric == QV_METRIC_COSINE) {
      j->b->kern->dot(x, x, 1, s->dim, &norm);
      norm = sqrtf(norm);
    }
    float d = to_distance(s->metric, raw, s->qnorm[q], norm);
    if (!isnan(d)) qvsc_topk_push(t, (qvsc_hit){d, row});
  }
}

/* IVF_PQ's candidates re-ranked by exact distance: every query's
 * candidates are read in one sorted take, then each query measures its
 * own (on the pool, a query per task). */
static qv_status refine(qvsc_search *s, block *b, qv_fragment_reader *r, int64_t frag_id,
                        const qv_index_candidate *cand, const int64_t *n_cand, int64_t want, qv_error *err) {
  int64_t total = 0;
  for (int32_t q = 0; q < s->n_queries; q++) total += n_cand[q];
  uint64_t *ids = qv_malloc((size_t)(total ? total : 1) * sizeof *ids);
  int64_t *take = qv_malloc((size_t)(total ? total : 1) * sizeof *take);
  uint8_t *bad = qv_malloc((size_t)(total ? total : 1));
  qv_status st = ids && take && bad ? QV_OK : qv_error_nomem(err, "nearest");
  int64_t u = 0;
  for (int32_t q = 0; st == QV_OK && q < s->n_queries; q++)
    for (int64_t i = 0; i < n_cand[q]; i++) ids[u++] = (uint64_t)frag_id << 32 | cand[(size_t)q * want + i].row;
  qv_array *a = NULL;
  int64_t m = 0;
  if (st == QV_OK) {
    qsort(ids, (size_t)u, sizeof *ids, cmp_u64);
    for (int64_t i = 0; i < u; i++)
      if (m == 0 || ids[m - 1] != ids[i]) ids[m++] = ids[i];
    for (int64_t i = 0; i < m; i++) take[i] = (int64_t)(ids[i] & 0xFFFFFFFFu);
    s->refined += m;
    if (m > 0) st = qv_fragment_take(r, s->column, take, m, &a, err);
  }
  if (st == QV_OK && m > 0) {
    bool any;
    refine_job j = {s, b, cand, n_cand, want, ids, m, vectors_of(a, s->dim, bad, &any), bad, (uint64_t)frag_id};
    qvb_pool_run(s->n_queries, QV_POOL_MAX, refine_task, &j);
    s->distances += total;
  }
  qv_array_release(a);
  qv_free(ids);
  qv_free(take);
  qv_free(bad);
  return st;
}

/* The fragment's candidates per query from the index (IVF_FLAT: exact
 * distances in the probed partitions; IVF_PQ: approximate ones, the best
 * refine_factor * k re-ranked by the exact distance of their vectors). */
static qv_status index_fragment(qvsc_search *s, block *b, int32_t frag, const uint64_t *adm, int64_t n_adm,
                                qv_error *err) {
  qv_fragment_info fi;
  qv_dataset_fragment(s->ds, frag, &fi);
  bool approx = s->approx;
  /* the data file is opened only to learn its deleted rows or to re-rank:
   * opening parses its footer, a good part of a search's time */
  qv_fragment_reader *r = NULL;
  if (fi.num_deleted > 0 || (approx && s->refine_factor > 0)) QV_RETURN_NOT_OK(qv_fragment_open(s->ds, frag, &r, err));
  int64_t rows = fi.num_rows;
  const uint8_t *deleted = r ? qv_fragment_deleted(r) : NULL;
  /* rows not to return: deleted, or not kept by the prefilter */
  uint8_t *skip = NULL;
  qv_status st = QV_OK;
  if (adm || deleted) {
    int64_t bytes = (rows + 7) / 8;
    if (!(skip = qv_malloc((size_t)(bytes ? bytes : 1)))) st = qv_error_nomem(err, "nearest");
    else if (adm) {
      memset(skip, 0xFF, (size_t)bytes);
      for (int64_t i = 0; i < n_adm; i++) {
        uint32_t row = (uint32_t)(adm[i] & 0xFFFFFFFFu);
        skip[row >> 3] &= (uint8_t) ~(1u << (row & 7));
      }
    } else {
      memcpy(skip, deleted, (size_t)bytes);
    }
  }
  int64_t want = approx && s->refine_factor > 0 ? s->k * s->refine_factor : s->k;
  qv_index_candidate *cand = st == QV_OK ? qv_malloc((size_t)(s->n_queries * want) * sizeof *cand) : NULL;
  int64_t *n_cand = st == QV_OK ? qv_calloc((size_t)s->n_queries, sizeof *n_cand) : NULL;
  if (st == QV_OK && (!cand || !n_cand)) st = qv_error_nomem(err, "nearest");
  qv_index_search_stats stats = {0, 0, 0};
  if (st == QV_OK) {
    qv_index_search_args a = {s->q, s->dim, s->n_queries, s->metric, s->nprobes, want, skip};
    st = qv_index_search(s->ix, fi.id, &a, cand, n_cand, &stats, err);
  }
  s->partitions_probed += stats.partitions_probed;
  s->candidates += stats.candidates;
  s->distances += stats.distances;
  /* IVF_FLAT distances are exact: they go to the heaps as they are.  IVF_PQ
   * ones are estimates: the candidates' vectors are read and measured. */
  for (int32_t q = 0; st == QV_OK && q < s->n_queries && !(approx && s->refine_factor > 0); q++)
    for (int64_t i = 0; i < n_cand[q]; i++) {
      qv_index_candidate c = cand[(size_t)q * want + i];
      qvsc_topk_push(&b->heaps[q], (qvsc_hit){c.distance, ((uint64_t)fi.id << 32) | c.row});
    }
  if (st == QV_OK && approx && s->refine_factor > 0) st = refine(s, b, r, fi.id, cand, n_cand, want, err);
  qv_free(cand);
  qv_free(n_cand);
  qv_free(skip);
  qv_fragment_close(r);
  s->fragments_index++;
  return st;
}

/* ---- the whole search ----------------------------------------------------------------- */

qv_status qvsc_search_run(qvsc_search *s, qv_error *err) {
  int workers = QV_POOL_MAX;
  size_t nh = (size_t)workers * (size_t)s->n_queries;
  block b;
  memset(&b, 0, sizeof b);
  b.s = s;
  b.kern = qvk_dist_kernels_get();
  b.heaps = qv_calloc(nh, sizeof *b.heaps);
  b.scratch = qv_malloc((size_t)workers * 2 * TASK_ROWS * sizeof *b.scratch);
  s->hits = qv_calloc((size_t)s->n_queries, sizeof *s->hits);
  s->n_hits = qv_calloc((size_t)s->n_queries, sizeof *s->n_hits);
  qv_status st = b.heaps && b.scratch && s->hits && s->n_hits ? QV_OK : qv_error_nomem(err, "nearest");
  for (size_t i = 0; i < nh && st == QV_OK; i++) {
    b.heaps[i].cap = s->k;
    if (!(b.heaps[i].h = qv_malloc((size_t)s->k * sizeof *b.heaps[i].h))) st = qv_error_nomem(err, "nearest");
  }
  int64_t at = 0;
  for (int32_t f = 0; f < qv_dataset_num_fragments(s->ds) && st == QV_OK; f++) {
    qv_fragment_info fi;
    qv_dataset_fragment(s->ds, f, &fi);
    const uint64_t *adm = NULL;
    int64_t n_adm = 0;
    if (s->admitted) {
      while (at < s->n_admitted && (s->admitted[at] >> 32) < (uint64_t)fi.id) at++;
      int64_t end = at;
      while (end < s->n_admitted && (s->admitted[end] >> 32) == (uint64_t)fi.id) end++;
      adm = s->admitted + at;
      n_adm = end - at;
      at = end;
      if (n_adm == 0) continue;
    }
    bool by_index = s->ix && qv_index_covers(s->ix, fi.id) && !qv_index_fragment_damaged(s->ix, fi.id);
    if (by_index && adm && (double)n_adm < s->flat_below_fraction * (double)fi.num_rows) {
      by_index = false;
      s->fragments_flat_by_cost++;
    }
    if (by_index) {
      qv_error e;
      st = index_fragment(s, &b, f, adm, n_adm, &e);
      /* a damaged index file: that fragment is searched flat (the index is
       * derived data), as the scalar indices fall back */
      if (st != QV_OK && qv_index_damage_status(st) && qv_index_fragment_damaged(s->ix, fi.id)) st = QV_ERR_INVALID;
      if (st == QV_ERR_INVALID) st = flat_fragment(s, &b, f, adm, n_adm, err);
      else if (st != QV_OK && err) *err = e;
    } else {
      st = flat_fragment(s, &b, f, adm, n_adm, err);
    }
  }
  /* merge the workers' heaps of each query */
  for (int32_t q = 0; q < s->n_queries && st == QV_OK; q++) {
    qvsc_topk all = {qv_malloc((size_t)s->k * sizeof(qvsc_hit)), 0, s->k};
    if (!all.h) {
      st = qv_error_nomem(err, "nearest");
      break;
    }
    for (int w = 0; w < workers; w++) {
      const qvsc_topk *t = &b.heaps[(size_t)w * s->n_queries + q];
      for (int64_t i = 0; i < t->n; i++) qvsc_topk_push(&all, t->h[i]);
    }
    qvsc_topk_sort(&all);
    s->hits[q] = all.h;
    s->n_hits[q] = all.n;
  }
  for (size_t i = 0; b.heaps && i < nh; i++) qv_free(b.heaps[i].h);
  qv_free(b.heaps);
  qv_free(b.scratch);
  return st;
}

void qvsc_search_reset(qvsc_search *s) {
  for (int32_t q = 0; s->hits && q < s->n_queries; q++) qv_free(s->hits[q]);
  qv_free(s->hits);
  qv_free(s->n_hits);
  s->hits = NULL;
  s->n_hits = NULL;
}
