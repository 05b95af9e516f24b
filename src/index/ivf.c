/* IVF_FLAT and IVF_PQ: vector indices on fixed_size_list<float32, dim>.
 *
 * Training (once, at create): k-means on a seeded sample of the column
 * (256 vectors per partition by default) gives num_partitions centroids;
 * IVF_PQ then cuts the residuals (vector - its centroid) into m
 * sub-vectors and trains a codebook of up to 256 centres for each.  Under
 * cosine, vectors are normalized before all of it.  Every fragment's file
 * carries the model (centroids, codebooks), so that optimize and rebuild
 * assign new fragments to the same partitions (model_of).
 *
 * A file holds one chunk per partition: its rows, ascending, then
 * IVF_FLAT: the vectors (and their norms under cosine), IVF_PQ: m code
 * bytes per row.  Footer tail (after the null rows chunk):
 *
 *   u8 metric, 3 x u8 0, u32 dim, u32 partitions, u32 m (0: IVF_FLAT),
 *   u32 codebook size, u32 centroids chunk, u32 codebooks chunk
 *   (0xFFFFFFFF for IVF_FLAT), partitions x { u32 chunk, u64 rows }
 *
 * A search probes the nprobes partitions whose centroids are nearest the
 * query: IVF_FLAT scores their vectors exactly, IVF_PQ by asymmetric
 * distance (a table of query-to-codebook distances per partition, summed
 * over the codes); the scan re-ranks IVF_PQ's best refine_factor * k by
 * exact distance.  Partitions are read once per index handle and kept, so
 * a batch of queries reads each probed partition once; the (query,
 * partition) pairs run on the pool, each worker with its own top-k heaps. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/pool.h"
#include "compute/distance.h"
#include "index/index_int.h"

enum { NO_CHUNK = -1, MAX_PARTITIONS = 65536, KSUB = 256 };

typedef struct ivf_model {
  qv_metric metric;
  int32_t dim, nlist, m, ksub; /* m = 0: IVF_FLAT */
  float *centroids;            /* nlist x dim */
  float *codebooks;            /* m x ksub x (dim / m) */
} ivf_model;

typedef struct ivf_file {
  ivf_model model; /* centroids and codebooks point into cached chunks */
  int32_t centroid_chunk, codebook_chunk;
  int32_t *part_chunk;
  int64_t *part_rows;
  bool loaded; /* model.centroids / codebooks read */
  const uint8_t **parts;
  qvi_cached **part_ref, *centroid_ref, *codebook_ref; /* chunk_cache.c */
} ivf_file;

static bool supports(const qv_datatype *t) {
  return t->id == QV_TYPE_FIXED_SIZE_LIST && t->n_children == 1 && t->children[0].type.id == QV_TYPE_FLOAT32 &&
         t->list_size >= 1 && t->list_size <= 65536;
}
static const qv_datatype *key_type(const qv_datatype *t) { return &t->children[0].type; }

static void model_free(void *p) {
  ivf_model *m = p;
  if (!m) return;
  qv_free(m->centroids);
  qv_free(m->codebooks);
  qv_free(m);
}

static void normalize(float *v, int32_t dim) {
  double s = 0;
  for (int32_t j = 0; j < dim; j++) s += (double)v[j] * v[j];
  if (s <= 0) return;
  float inv = (float)(1.0 / sqrt(s));
  for (int32_t j = 0; j < dim; j++) v[j] *= inv;
}

static bool finite_vec(const float *v, int32_t dim) {
  for (int32_t j = 0; j < dim; j++)
    if (!isfinite(v[j])) return false;
  return true;
}

/* The vectors of a fixed_size_list array and whether slot i is usable. */
static const float *vecs_of(const qv_array *a, int32_t dim) {
  const qv_array *c = a->children[0];
  return (const float *)c->buffers[1]->data + c->offset + a->offset * dim;
}
static bool usable(const qv_array *a, int64_t i, const float *v, int32_t dim) {
  if (!qv_array_is_valid(a, i)) return false;
  const qv_array *c = a->children[0];
  if (c->null_count > 0)
    for (int32_t j = 0; j < dim; j++)
      if (!qv_array_is_valid(c, (a->offset + i) * dim + j)) return false;
  return finite_vec(v, dim);
}

/* ---- training -------------------------------------------------------------------- */

/* A seeded sample of up to want usable vectors over every fragment
 * (selection sampling per fragment, in proportion to its rows). */
static qv_status sample(const qv_dataset *ds, int32_t column, int32_t dim, int64_t want, uint64_t seed, float **out,
                        int64_t *n_out, qv_error *err) {
  int32_t nf = qv_dataset_num_fragments(ds);
  int64_t total = 0;
  for (int32_t f = 0; f < nf; f++) {
    qv_fragment_info fi;
    qv_dataset_fragment(ds, f, &fi);
    total += fi.num_rows;
  }
  if (want > total) want = total;
  float *x = qv_malloc((size_t)(want ? want : 1) * (size_t)dim * sizeof *x);
  int64_t *rows = qv_malloc((size_t)(want ? want : 1) * sizeof *rows);
  if (!x || !rows) {
    qv_free(x);
    qv_free(rows);
    return qv_error_nomem(err, "index training");
  }
  uint64_t s = seed;
  int64_t n = 0, seen = 0, picked = 0;
  qv_status st = QV_OK;
  for (int32_t f = 0; f < nf && st == QV_OK; f++) {
    qv_fragment_info fi;
    qv_dataset_fragment(ds, f, &fi);
    int64_t k = 0;
    for (int64_t r = 0; r < fi.num_rows; r++, seen++) { /* Knuth's algorithm S over all rows */
      if ((int64_t)(qvi_rand(&s) % (uint64_t)(total - seen)) < want - picked) {
        rows[k++] = r;
        picked++;
      }
    }
    if (k == 0) continue;
    qv_fragment_reader *rd = NULL;
    if ((st = qv_fragment_open(ds, f, &rd, err)) != QV_OK) break;
    for (int64_t at = 0; at < k && st == QV_OK; at += 65536) {
      int64_t cnt = k - at < 65536 ? k - at : 65536;
      qv_array *a = NULL;
      if ((st = qv_fragment_take(rd, column, rows + at, cnt, &a, err)) != QV_OK) break;
      const float *v = vecs_of(a, dim);
      for (int64_t i = 0; i < cnt; i++)
        if (usable(a, i, v + i * dim, dim)) memcpy(x + (size_t)(n++) * dim, v + i * dim, (size_t)dim * sizeof *x);
      qv_array_release(a);
    }
    qv_fragment_close(rd);
  }
  qv_free(rows);
  if (st != QV_OK) {
    qv_free(x);
    return st;
  }
  *out = x;
  *n_out = n;
  return QV_OK;
}

static int32_t default_m(int32_t dim) {
  if (dim % 8 == 0) return dim / 8;
  if (dim % 4 == 0) return dim / 4;
  if (dim % 2 == 0) return dim / 2;
  return dim;
}

static qv_status train(const qv_dataset *ds, int32_t column, const qv_index_options *o, bool pq, void **out,
                       qv_error *err) {
  *out = NULL;
  const qv_datatype *t = &qv_dataset_schema(ds)->fields[column].type;
  int32_t dim = t->list_size;
  int64_t rows = 0;
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
    qv_fragment_info fi;
    qv_dataset_fragment(ds, f, &fi);
    rows += fi.num_rows;
  }
  qv_metric metric = o->metric ? o->metric : QV_METRIC_L2;
  if (metric != QV_METRIC_L2 && metric != QV_METRIC_COSINE && metric != QV_METRIC_DOT)
    return qv_error_set(err, QV_ERR_INVALID, "index options: unknown metric %d", (int)metric);
  int64_t nlist = o->num_partitions > 0 ? o->num_partitions : (int64_t)(sqrt((double)rows) + 0.5);
  if (o->num_partitions < 0 || nlist > MAX_PARTITIONS)
    return qv_error_set(err, QV_ERR_INVALID, "index options: num_partitions %d is outside 1..%d", o->num_partitions,
                        MAX_PARTITIONS);
  if (nlist < 1) nlist = 1;
  int32_t m = pq ? (o->num_sub_vectors > 0 ? o->num_sub_vectors : default_m(dim)) : 0;
  if (pq && (m < 1 || m > dim || dim % m != 0 || m > 1024))
    return qv_error_set(err, QV_ERR_INVALID, "index options: num_sub_vectors %d does not divide dimension %d", m, dim);
  int64_t want = o->sample_rows > 0 ? o->sample_rows : 256 * nlist;
  if (pq && want < 256 * 16) want = 256 * 16; /* codebooks want a few vectors per centre */
  float *x = NULL;
  int64_t n = 0;
  QV_RETURN_NOT_OK(sample(ds, column, dim, want, o->seed ? o->seed : 42, &x, &n, err));
  if (n < nlist) {
    qv_free(x);
    return qv_error_set(err, QV_ERR_INVALID,
                        "index: %lld usable vectors in column `%s` cannot train %lld partitions (give fewer with "
                        "num_partitions)",
                        (long long)n, qv_dataset_schema(ds)->fields[column].name, (long long)nlist);
  }
  if (metric == QV_METRIC_COSINE)
    for (int64_t i = 0; i < n; i++) normalize(x + i * dim, dim);
  ivf_model *md = qv_calloc(1, sizeof *md);
  qv_status st = md ? QV_OK : qv_error_nomem(err, "index training");
  int32_t iters = o->max_iterations > 0 ? o->max_iterations : 10;
  if (st == QV_OK) {
    md->metric = metric;
    md->dim = dim;
    md->nlist = (int32_t)nlist;
    md->m = m;
    if (!(md->centroids = qv_malloc((size_t)nlist * (size_t)dim * sizeof(float))))
      st = qv_error_nomem(err, "index training");
  }
  if (st == QV_OK) st = qvi_kmeans(x, n, dim, (int32_t)nlist, iters, o->seed ? o->seed : 42, md->centroids, err);
  if (st == QV_OK && pq) {
    int32_t ds_ = dim / m;
    md->ksub = n < KSUB ? (int32_t)n : KSUB;
    /* codebooks train on 256 residuals per code at most, as Lance does */
    int64_t n_pq = n < (int64_t)KSUB * 256 ? n : (int64_t)KSUB * 256;
    int32_t *asg = qv_malloc((size_t)n * sizeof *asg);
    float *sub = qv_malloc((size_t)n * (size_t)ds_ * sizeof *sub);
    md->codebooks = qv_malloc((size_t)m * (size_t)md->ksub * (size_t)ds_ * sizeof(float));
    if (!asg || !sub || !md->codebooks) st = qv_error_nomem(err, "index training");
    if (st == QV_OK) st = qvi_assign(x, n, dim, md->centroids, md->nlist, asg, NULL, err);
    for (int64_t i = 0; st == QV_OK && i < n; i++) /* residuals, in place */
      for (int32_t j = 0; j < dim; j++) x[i * dim + j] -= md->centroids[(size_t)asg[i] * dim + j];
    for (int32_t s = 0; st == QV_OK && s < m; s++) {
      for (int64_t i = 0; i < n_pq; i++) /* evenly over the sample, which is in row order */
        memcpy(sub + i * ds_, x + (i * n / n_pq) * dim + s * ds_, (size_t)ds_ * sizeof *sub);
      st = qvi_kmeans(sub, n_pq, ds_, md->ksub, iters, (o->seed ? o->seed : 42) + 1 + (uint64_t)s,
                      md->codebooks + (size_t)s * md->ksub * ds_, err);
    }
    qv_free(asg);
    qv_free(sub);
  }
  qv_free(x);
  if (st != QV_OK) {
    model_free(md);
    return st;
  }
  *out = md;
  return QV_OK;
}

static qv_status train_flat(const qv_dataset *ds, int32_t c, const qv_index_options *o, void **out, qv_error *err) {
  return train(ds, c, o, false, out, err);
}
static qv_status train_pq(const qv_dataset *ds, int32_t c, const qv_index_options *o, void **out, qv_error *err) {
  return train(ds, c, o, true, out, err);
}

/* ---- building a fragment's file ------------------------------------------------------- */

typedef struct collect {
  const ivf_model *md;
  int32_t *part; /* per indexed row */
  uint32_t *rows;
  qv_buffer payload; /* per indexed row: vector (+ norm) or codes */
  int64_t n, cap, psize;
  float *tmp;   /* a slice's vectors, normalized / residuals */
  int32_t *asg; /* a slice's partitions (then one sub-vector's codes) */
  float *sub;   /* a slice's sub-vectors of one position (IVF_PQ) */
} collect;

static qv_status collect_slice(void *ctx, const qv_array *a, int64_t base, qvi_build_out *out, qv_error *err) {
  collect *c = ctx;
  const ivf_model *md = c->md;
  int32_t dim = md->dim;
  const float *v = vecs_of(a, dim);
  int64_t k = 0;
  uint32_t *slice_rows = qv_malloc((size_t)(a->length ? a->length : 1) * sizeof *slice_rows);
  if (!slice_rows) return qv_error_nomem(err, "index build");
  for (int64_t i = 0; i < a->length; i++) {
    if (!qv_array_is_valid(a, i)) {
      roaring_bitmap_add(out->nulls, (uint32_t)(base + i));
      continue;
    }
    if (!usable(a, i, v + i * dim, dim)) continue; /* a NaN or a null element: never a candidate */
    memcpy(c->tmp + (size_t)k * dim, v + i * dim, (size_t)dim * sizeof(float));
    if (md->metric == QV_METRIC_COSINE) normalize(c->tmp + (size_t)k * dim, dim);
    slice_rows[k++] = (uint32_t)(base + i);
  }
  qv_status st = qvi_assign(c->tmp, k, dim, md->centroids, md->nlist, c->asg, NULL, err);
  if (st == QV_OK && c->n + k > c->cap) {
    int64_t cap = c->cap ? c->cap : 65536;
    while (cap < c->n + k) cap *= 2;
    int32_t *np = qv_realloc(c->part, (size_t)cap * sizeof *np);
    if (np) c->part = np;
    uint32_t *nr = np ? qv_realloc(c->rows, (size_t)cap * sizeof *nr) : NULL;
    if (nr) c->rows = nr;
    if (!np || !nr) st = qv_error_nomem(err, "index build");
    else c->cap = cap;
  }
  if (st == QV_OK && qv_buffer_reserve(&c->payload, k * c->psize) != QV_OK) st = qv_error_nomem(err, "index build");
  uint8_t *base_p = c->payload.data + c->payload.size;
  for (int64_t i = 0; st == QV_OK && i < k; i++) {
    c->part[c->n] = c->asg[i];
    c->rows[c->n] = slice_rows[i];
    uint8_t *p = c->payload.data + c->payload.size;
    if (md->m == 0) {
      /* the vector as stored (exact distances), and its norm for cosine */
      const float *raw = v + (int64_t)(slice_rows[i] - base) * dim;
      memcpy(p, raw, (size_t)dim * sizeof(float));
      if (md->metric == QV_METRIC_COSINE) {
        double s = 0;
        for (int32_t j = 0; j < dim; j++) s += (double)raw[j] * raw[j];
        float nrm = (float)sqrt(s);
        memcpy(p + (size_t)dim * sizeof(float), &nrm, sizeof nrm);
      }
    } else { /* the residual (normalized under cosine); codes below */
      float *r = c->tmp + (size_t)i * dim;
      const float *cen = md->centroids + (size_t)c->asg[i] * dim;
      for (int32_t j = 0; j < dim; j++) r[j] -= cen[j];
    }
    c->payload.size += c->psize;
    c->n++;
  }
  /* IVF_PQ: each sub-vector position of the slice's residuals at once */
  int32_t ds_ = md->m ? dim / md->m : 0;
  for (int32_t s = 0; st == QV_OK && md->m && s < md->m; s++) {
    for (int64_t i = 0; i < k; i++) memcpy(c->sub + i * ds_, c->tmp + (size_t)i * dim + s * ds_, (size_t)ds_ * 4);
    st = qvi_assign(c->sub, k, ds_, md->codebooks + (size_t)s * md->ksub * ds_, md->ksub, c->asg, NULL, err);
    for (int64_t i = 0; st == QV_OK && i < k; i++) base_p[i * c->psize + s] = (uint8_t)c->asg[i];
  }
  qv_free(slice_rows);
  return st;
}

static qv_status build(const qvi_build_in *in, qvi_build_out *o, qv_error *err) {
  const ivf_model *md = in->model;
  if (!md || md->dim != in->ctype->list_size)
    return qv_error_set(err, QV_ERR_INVALID, "index build: the vector model does not fit the column");
  collect c;
  memset(&c, 0, sizeof c);
  c.md = md;
  c.psize = md->m ? md->m : (int64_t)md->dim * 4 + (md->metric == QV_METRIC_COSINE ? 4 : 0);
  c.tmp = qv_malloc((size_t)65536 * (size_t)md->dim * sizeof(float));
  c.asg = qv_malloc((size_t)65536 * sizeof(int32_t));
  c.sub = qv_malloc((size_t)65536 * (size_t)(md->m ? md->dim / md->m : 1) * sizeof(float));
  int64_t *count = qv_calloc((size_t)md->nlist + 1, sizeof *count);
  int64_t *at = qv_calloc((size_t)md->nlist + 1, sizeof *at);
  int64_t *order = NULL;
  qv_status st = c.tmp && c.asg && c.sub && count && at ? QV_OK : qv_error_nomem(err, "index build");
  if (st == QV_OK) st = qvi_build_read(in, collect_slice, &c, o, err);
  if (st == QV_OK) st = qvi_build_put_nulls(o, err);
  /* the model's chunks, then one chunk per partition in row order */
  int32_t cchunk = 0, bchunk = NO_CHUNK;
  if (st == QV_OK) {
    qv_buffer b = {(uint8_t *)md->centroids, (int64_t)md->nlist * md->dim * 4, 0};
    cchunk = qvi_writer_chunk(&o->w, &b);
    if (md->m) {
      qv_buffer cb = {(uint8_t *)md->codebooks, (int64_t)md->m * md->ksub * (md->dim / md->m) * 4, 0};
      bchunk = qvi_writer_chunk(&o->w, &cb);
    }
  }
  if (st == QV_OK && !(order = qv_malloc((size_t)(c.n ? c.n : 1) * sizeof *order)))
    st = qv_error_nomem(err, "index build");
  if (st == QV_OK) {
    for (int64_t i = 0; i < c.n; i++) count[c.part[i]]++;
    for (int32_t p = 1; p <= md->nlist; p++) at[p] = at[p - 1] + count[p - 1];
    for (int64_t i = 0; i < c.n; i++) order[at[c.part[i]]++] = i; /* stable: rows stay ascending */
  }
  qvb_wire_put_u8(&o->tail, (uint8_t)md->metric);
  for (int k = 0; k < 3; k++) qvb_wire_put_u8(&o->tail, 0);
  qvb_wire_put_u32(&o->tail, (uint32_t)md->dim);
  qvb_wire_put_u32(&o->tail, (uint32_t)md->nlist);
  qvb_wire_put_u32(&o->tail, (uint32_t)md->m);
  qvb_wire_put_u32(&o->tail, (uint32_t)md->ksub);
  qvb_wire_put_u32(&o->tail, (uint32_t)cchunk);
  qvb_wire_put_u32(&o->tail, (uint32_t)bchunk);
  qv_buffer chunk = QV_BUFFER_INIT;
  for (int32_t p = 0, from = 0; st == QV_OK && p < md->nlist; p++) {
    chunk.size = 0;
    if (qv_buffer_reserve(&chunk, count[p] * (4 + c.psize)) != QV_OK) {
      st = qv_error_nomem(err, "index build");
      break;
    }
    for (int64_t i = from; i < from + count[p]; i++) {
      memcpy(chunk.data + chunk.size, &c.rows[order[i]], 4);
      chunk.size += 4;
    }
    for (int64_t i = from; i < from + count[p]; i++) {
      memcpy(chunk.data + chunk.size, c.payload.data + order[i] * c.psize, (size_t)c.psize);
      chunk.size += c.psize;
    }
    from += (int32_t)count[p];
    qvb_wire_put_u32(&o->tail, (uint32_t)qvi_writer_chunk(&o->w, &chunk));
    qvb_wire_put_u64(&o->tail, (uint64_t)count[p]);
  }
  o->entries = c.n;
  o->distinct = md->nlist;
  qv_buffer_reset(&chunk);
  qv_free(order);
  qv_free(count);
  qv_free(at);
  qv_free(c.tmp);
  qv_free(c.asg);
  qv_free(c.sub);
  qv_free(c.part);
  qv_free(c.rows);
  qv_buffer_reset(&c.payload);
  return st;
}

/* ---- opening ----------------------------------------------------------------------- */

static void close_file(qvi_file *f) {
  ivf_file *v = f->vec;
  if (!v) return;
  for (int32_t p = 0; v->part_ref && p < v->model.nlist; p++) qvi_cache_release(v->part_ref[p]);
  qv_free(v->parts);
  qv_free(v->part_ref);
  qv_free(v->part_chunk);
  qv_free(v->part_rows);
  qvi_cache_release(v->centroid_ref);
  qvi_cache_release(v->codebook_ref);
  qv_free(v);
  f->vec = NULL;
}

static bool open_tail(qvb_cursor *c, qvi_file *f, bool pq) {
  ivf_file *v = qv_calloc(1, sizeof *v);
  if (!v) {
    c->status = qv_error_nomem(c->err, NULL);
    return false;
  }
  f->vec = v;
  uint8_t metric, pad;
  uint32_t dim, nlist, m, ksub, bc;
  int64_t at = c->pos;
  if (!qvb_wire_get_u8(c, &metric, "metric")) return false;
  for (int k = 0; k < 3; k++)
    if (!qvb_wire_get_u8(c, &pad, "reserved")) return false;
  if (metric < QV_METRIC_L2 || metric > QV_METRIC_DOT) {
    c->pos = at;
    return qvb_cursor_fail(c, "unknown metric %u", metric);
  }
  at = c->pos;
  if (!qvb_wire_get_u32(c, &dim, "dimension") || !qvb_wire_get_u32(c, &nlist, "partition count") ||
      !qvb_wire_get_u32(c, &m, "sub-vector count") || !qvb_wire_get_u32(c, &ksub, "codebook size"))
    return false;
  if (dim < 1 || dim > 65536 || nlist < 1 || nlist > MAX_PARTITIONS || (pq != (m > 0)) ||
      (pq && (m > dim || dim % m != 0 || ksub < 1 || ksub > KSUB)) || (int64_t)nlist != f->distinct) {
    c->pos = at;
    return qvb_cursor_fail(c, "dimension %u, %u partitions, %u sub-vectors of %u codes do not fit a %s index", dim,
                           nlist, m, ksub, pq ? "ivf_pq" : "ivf_flat");
  }
  v->model = (ivf_model){(qv_metric)metric, (int32_t)dim, (int32_t)nlist, (int32_t)m, (int32_t)ksub, NULL, NULL};
  if (!qvi_get_chunk_ref(c, f, &v->centroid_chunk, "centroids chunk")) return false;
  at = c->pos;
  if (!qvb_wire_get_u32(c, &bc, "codebooks chunk")) return false;
  if (pq) {
    c->pos = at;
    if (!qvi_get_chunk_ref(c, f, &v->codebook_chunk, "codebooks chunk")) return false;
  } else if (bc != UINT32_MAX) {
    c->pos = at;
    return qvb_cursor_fail(c, "an ivf_flat index has no codebooks chunk");
  } else {
    v->codebook_chunk = NO_CHUNK;
  }
  if ((int64_t)nlist * 12 > c->size - c->pos)
    return qvb_cursor_fail(c, "%u partitions do not fit in the footer", nlist);
  v->part_chunk = qv_malloc((size_t)nlist * sizeof *v->part_chunk);
  v->part_rows = qv_malloc((size_t)nlist * sizeof *v->part_rows);
  v->parts = qv_calloc((size_t)nlist, sizeof *v->parts);
  v->part_ref = qv_calloc((size_t)nlist, sizeof *v->part_ref);
  if (!v->part_chunk || !v->part_rows || !v->parts || !v->part_ref) {
    c->status = qv_error_nomem(c->err, NULL);
    return false;
  }
  int64_t total = 0;
  int64_t psize = pq ? m : (int64_t)dim * 4 + (metric == QV_METRIC_COSINE ? 4 : 0);
  for (uint32_t p = 0; p < nlist; p++) {
    at = c->pos;
    if (!qvi_get_chunk_ref(c, f, &v->part_chunk[p], "partition chunk") ||
        !qvb_wire_get_range(c, 0, f->num_rows, &v->part_rows[p], "partition rows"))
      return false;
    if (f->chunks[v->part_chunk[p]].length != v->part_rows[p] * (4 + psize)) {
      c->pos = at;
      return qvb_cursor_fail(c, "partition %u: %lld rows do not fill its chunk of %lld bytes", p,
                             (long long)v->part_rows[p], (long long)f->chunks[v->part_chunk[p]].length);
    }
    total += v->part_rows[p];
  }
  if (total != f->entries)
    return qvb_cursor_fail(c, "partitions hold %lld rows, the footer says %lld", (long long)total,
                           (long long)f->entries);
  int64_t csize = (int64_t)nlist * dim * 4, bsize = pq ? (int64_t)m * ksub * (dim / m) * 4 : 0;
  if (f->chunks[v->centroid_chunk].length != csize || (pq && f->chunks[v->codebook_chunk].length != bsize))
    return qvb_cursor_fail(c, "the centroids or codebooks chunk has the wrong size");
  return true;
}

static bool open_flat(qvb_cursor *c, qvi_file *f) { return open_tail(c, f, false); }
static bool open_pq(qvb_cursor *c, qvi_file *f) { return open_tail(c, f, true); }

static void chunk_role(const qvi_file *f, int32_t i, char *buf, size_t n) {
  const ivf_file *v = f->vec;
  if (i == v->centroid_chunk) {
    snprintf(buf, n, "centroids");
    return;
  }
  if (i == v->codebook_chunk) {
    snprintf(buf, n, "codebooks");
    return;
  }
  for (int32_t p = 0; p < v->model.nlist; p++)
    if (v->part_chunk[p] == i) {
      snprintf(buf, n, "partition %d", p);
      return;
    }
  snprintf(buf, n, "unused");
}

/* Chunk i read and checked by check (NULL: the checksum only). */
typedef qv_status (*chunk_check)(qvi_file *f, int32_t i, const uint8_t *b, qv_error *err);

static qv_status check_floats(qvi_file *f, int32_t i, const uint8_t *b, qv_error *err) {
  if (!finite_vec((const float *)b, (int32_t)(f->chunks[i].length / 4)))
    return qvi_corrupt(f, f->chunks[i].offset, err, "centroids or codebooks hold NaN or infinity");
  return QV_OK;
}

/* Rows ascending, below the fragment's row count. */
static qv_status check_rows(qvi_file *f, int32_t i, const uint8_t *b, qv_error *err) {
  const ivf_file *v = f->vec;
  int64_t n = 0;
  for (int32_t p = 0; p < v->model.nlist; p++)
    if (v->part_chunk[p] == i) n = v->part_rows[p];
  uint32_t prev = 0;
  for (int64_t k = 0; k < n; k++) {
    uint32_t r = qv_load_u32le(b + 4 * k);
    if ((int64_t)r >= f->num_rows || (k && r <= prev))
      return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %lld: chunk %d (partition): rows out of order or range",
                          f->name, (long long)f->chunks[i].offset, i);
    prev = r;
  }
  /* IVF_PQ codes index tables of ksub entries */
  if (v->model.m && v->model.ksub < KSUB)
    for (int64_t k = 0; k < n * v->model.m; k++)
      if (b[4 * n + k] >= v->model.ksub)
        return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %lld: chunk %d (partition): code %u of %d codes", f->name,
                            (long long)f->chunks[i].offset, i, b[4 * n + k], v->model.ksub);
  return QV_OK;
}

/* Chunk i, from the cache or read, checked and cached. */
static qv_status cached_chunk(qvi_file *f, int32_t i, const char *what, chunk_check check, const uint8_t **out,
                              qvi_cached **ref, qv_error *err) {
  if ((*out = qvi_cache_get(f, i, ref))) return QV_OK;
  uint8_t *b = NULL;
  QV_RETURN_NOT_OK(qvi_file_chunk(f, i, what, &b, err));
  qv_status st = check(f, i, b, err);
  if (st != QV_OK) {
    qv_free(b);
    return st;
  }
  if (!(*out = qvi_cache_put(f, i, b, f->chunks[i].length, ref))) return qv_error_nomem(err, "index chunk");
  return QV_OK;
}

/* The centroids and codebooks (checksummed, finite), once per handle. */
static qv_status load_model(qvi_file *f, qv_error *err) {
  ivf_file *v = f->vec;
  if (v->loaded) return QV_OK;
  const uint8_t *b;
  QV_RETURN_NOT_OK(cached_chunk(f, v->centroid_chunk, "centroids", check_floats, &b, &v->centroid_ref, err));
  v->model.centroids = (float *)b;
  if (v->model.m) {
    QV_RETURN_NOT_OK(cached_chunk(f, v->codebook_chunk, "codebooks", check_floats, &b, &v->codebook_ref, err));
    v->model.codebooks = (float *)b;
  }
  v->loaded = true;
  return QV_OK;
}

static qv_status load_part(qvi_file *f, int32_t p, qv_error *err) {
  ivf_file *v = f->vec;
  if (v->parts[p]) return QV_OK;
  char what[32];
  snprintf(what, sizeof what, "partition %d", p);
  return cached_chunk(f, v->part_chunk[p], what, check_rows, &v->parts[p], &v->part_ref[p], err);
}

/* Reads every chunk itself (not from the cache) and checks its contents. */
static qv_status verify(qvi_file *f, qv_error *err) {
  ivf_file *v = f->vec;
  for (int32_t i = 0; i < f->n_chunks; i++) {
    bool floats = i == v->centroid_chunk || i == v->codebook_chunk;
    if (!floats && i == f->nulls_chunk) continue;
    uint8_t *b = NULL;
    char what[32];
    qvi_chunk_role(f, i, what, sizeof what);
    QV_RETURN_NOT_OK(qvi_file_chunk(f, i, what, &b, err));
    qv_status st = floats ? check_floats(f, i, b, err) : check_rows(f, i, b, err);
    qv_free(b);
    QV_RETURN_NOT_OK(st);
  }
  return QV_OK;
}

static qv_status model_of(qvi_file *f, void **out, qv_error *err) {
  *out = NULL;
  QV_RETURN_NOT_OK(load_model(f, err));
  const ivf_model *s = &((ivf_file *)f->vec)->model;
  ivf_model *m = qv_calloc(1, sizeof *m);
  size_t cs = (size_t)s->nlist * s->dim * sizeof(float), bs = s->m ? (size_t)s->m * s->ksub * (s->dim / s->m) * 4 : 0;
  if (m) *m = (ivf_model){s->metric, s->dim, s->nlist, s->m, s->ksub, qv_malloc(cs), bs ? qv_malloc(bs) : NULL};
  if (!m || !m->centroids || (bs && !m->codebooks)) {
    model_free(m);
    return qv_error_nomem(err, "index");
  }
  memcpy(m->centroids, s->centroids, cs);
  if (bs) memcpy(m->codebooks, s->codebooks, bs);
  *out = m;
  return QV_OK;
}

static void vector_info(const qvi_file *f, qv_index_vector_info *out) {
  const ivf_model *m = &((const ivf_file *)f->vec)->model;
  *out = (qv_index_vector_info){m->metric, m->dim, m->nlist, m->m};
}

/* ---- searching -------------------------------------------------------------------- */

typedef struct cand_heap {
  qv_index_candidate *h;
  int64_t n, cap;
} cand_heap;

static bool worse(qv_index_candidate a, qv_index_candidate b) { /* a after b */
  return a.distance > b.distance || (a.distance == b.distance && a.row > b.row);
}

static void heap_push(cand_heap *t, qv_index_candidate x) {
  if (t->n < t->cap) {
    int64_t i = t->n++;
    t->h[i] = x;
    while (i > 0 && worse(t->h[i], t->h[(i - 1) / 2])) {
      qv_index_candidate tmp = t->h[(i - 1) / 2];
      t->h[(i - 1) / 2] = t->h[i];
      t->h[i] = tmp;
      i = (i - 1) / 2;
    }
    return;
  }
  if (!worse(t->h[0], x)) return;
  t->h[0] = x;
  for (int64_t i = 0;;) {
    int64_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < t->n && worse(t->h[l], t->h[m])) m = l;
    if (r < t->n && worse(t->h[r], t->h[m])) m = r;
    if (m == i) break;
    qv_index_candidate tmp = t->h[i];
    t->h[i] = t->h[m];
    t->h[m] = tmp;
    i = m;
  }
}

static int cmp_cand(const void *a, const void *b) {
  qv_index_candidate x = *(const qv_index_candidate *)a, y = *(const qv_index_candidate *)b;
  return worse(x, y) ? 1 : worse(y, x) ? -1 : 0;
}

typedef struct search_job {
  qvi_file *f;
  const qv_index_search_args *a;
  const float *qn;     /* queries as partitioned (normalized under cosine) */
  const int32_t *prob; /* n_queries x nprobes partitions */
  int32_t nprobes;
  cand_heap *heaps; /* [worker * n_queries + q] */
  float *scratch;   /* per worker: a partition's distances, then a PQ table */
  int64_t scratch_len;
  int64_t *scored; /* per worker */
  const qvk_dist_kernels *kern;
} search_job;

static void search_task(void *ctx, int64_t task, int worker) {
  search_job *j = ctx;
  const ivf_model *md = &((ivf_file *)j->f->vec)->model;
  const ivf_file *v = j->f->vec;
  int32_t q = (int32_t)(task / j->nprobes), p = j->prob[task];
  int32_t dim = md->dim;
  const float *qv = j->a->q + (size_t)q * dim, *qn = j->qn + (size_t)q * dim;
  int64_t n = v->part_rows[p];
  const uint8_t *rows = v->parts[p], *payload = rows + 4 * n;
  float *d = j->scratch + (size_t)worker * j->scratch_len;
  cand_heap *t = &j->heaps[(size_t)worker * j->a->n_queries + q];
  const uint8_t *skip = j->a->skip;
  j->scored[worker] += n;
  if (md->m == 0) {
    int64_t stride = (int64_t)dim + (md->metric == QV_METRIC_COSINE ? 1 : 0);
    const float *x = (const float *)payload;
    float qnorm = 0;
    if (md->metric == QV_METRIC_COSINE) {
      j->kern->dot(qv, qv, 1, dim, &qnorm);
      qnorm = sqrtf(qnorm);
    }
    for (int64_t i = 0; i < n; i++) {
      uint32_t r = qv_load_u32le(rows + 4 * i);
      if (skip && (skip[r >> 3] >> (r & 7) & 1)) continue;
      const float *xv = x + i * stride;
      float raw, dist;
      if (md->metric == QV_METRIC_L2) {
        j->kern->l2(qv, xv, 1, dim, &raw);
        dist = raw;
      } else {
        j->kern->dot(qv, xv, 1, dim, &raw);
        dist = md->metric == QV_METRIC_DOT ? 1.0f - raw : 1.0f - raw / (qnorm * xv[dim]);
      }
      if (!isnan(dist)) heap_push(t, (qv_index_candidate){dist, r});
    }
    return;
  }
  /* IVF_PQ: the table of every sub-vector's codes against the query */
  int32_t m = md->m, ds_ = dim / m, ks = md->ksub;
  float *lut = d;
  const float *cen = md->centroids + (size_t)p * dim;
  float base = 0;
  if (md->metric == QV_METRIC_DOT) {
    j->kern->dot(qv, cen, 1, dim, &base);
    for (int32_t s = 0; s < m; s++)
      for (int32_t c = 0; c < ks; c++) {
        float x;
        j->kern->dot(qv + s * ds_, md->codebooks + ((size_t)s * ks + c) * ds_, 1, ds_, &x);
        lut[s * ks + c] = x;
      }
  } else {
    float *res = lut + (size_t)m * ks;
    for (int32_t k = 0; k < dim; k++) res[k] = qn[k] - cen[k];
    for (int32_t s = 0; s < m; s++)
      j->kern->l2(res + s * ds_, md->codebooks + (size_t)s * ks * ds_, ks, ds_, lut + (size_t)s * ks);
  }
  for (int64_t i = 0; i < n; i++) {
    uint32_t r = qv_load_u32le(rows + 4 * i);
    if (skip && (skip[r >> 3] >> (r & 7) & 1)) continue;
    const uint8_t *code = payload + i * m;
    float sum = 0;
    for (int32_t s = 0; s < m; s++) sum += lut[s * ks + code[s]];
    float dist = md->metric == QV_METRIC_L2 ? sum : md->metric == QV_METRIC_COSINE ? 0.5f * sum : 1.0f - (base + sum);
    heap_push(t, (qv_index_candidate){dist, r});
  }
}

typedef struct cd {
  float d;
  int32_t p;
} cd;

static int cmp_cd(const void *a, const void *b) {
  const cd *x = a, *y = b;
  return x->d < y->d ? -1 : x->d > y->d ? 1 : (x->p > y->p) - (x->p < y->p);
}

static qv_status search(qvi_file *f, const qv_index_search_args *a, qv_index_candidate *out, int64_t *n_out,
                        qv_index_search_stats *stats, qv_error *err) {
  ivf_file *v = f->vec;
  const ivf_model *md = &v->model;
  if (a->metric != md->metric || a->dim != md->dim)
    return qv_error_set(err, QV_ERR_INVALID, "%s: the index is for metric %s and dimension %d, not %s and %d", f->name,
                        qv_metric_name(md->metric), md->dim, qv_metric_name(a->metric), a->dim);
  QV_RETURN_NOT_OK(load_model(f, err));
  int32_t nq = a->n_queries, np = a->nprobes < 1 ? 1 : a->nprobes > md->nlist ? md->nlist : a->nprobes;
  int64_t k = a->k;
  const qvk_dist_kernels *kern = qvk_dist_kernels_get();
  float *qn = qv_malloc((size_t)nq * md->dim * sizeof *qn);
  int32_t *prob = qv_malloc((size_t)nq * np * sizeof *prob);
  cd *cds = qv_malloc((size_t)md->nlist * sizeof *cds);
  float *cdist = qv_malloc((size_t)md->nlist * sizeof *cdist);
  int64_t slen = md->m ? (int64_t)md->m * md->ksub + md->dim : 1;
  search_job j = {f, a, qn, prob, np, qv_calloc((size_t)QV_POOL_MAX * nq, sizeof(cand_heap)), NULL, slen, NULL, kern};
  j.scratch = qv_malloc((size_t)QV_POOL_MAX * (size_t)slen * sizeof(float));
  j.scored = qv_calloc(QV_POOL_MAX, sizeof *j.scored);
  qv_status st = qn && prob && cds && cdist && j.heaps && j.scratch && j.scored ? QV_OK : qv_error_nomem(err, "search");
  for (size_t i = 0; st == QV_OK && i < (size_t)QV_POOL_MAX * nq; i++) {
    j.heaps[i].cap = k;
    if (k > 0 && !(j.heaps[i].h = qv_malloc((size_t)k * sizeof *j.heaps[i].h))) st = qv_error_nomem(err, "search");
  }
  /* the partitions each query probes; each is read once */
  for (int32_t q = 0; st == QV_OK && q < nq; q++) {
    float *x = qn + (size_t)q * md->dim;
    memcpy(x, a->q + (size_t)q * md->dim, (size_t)md->dim * sizeof *x);
    if (md->metric == QV_METRIC_COSINE) normalize(x, md->dim);
    kern->l2(x, md->centroids, md->nlist, md->dim, cdist);
    for (int32_t p = 0; p < md->nlist; p++) cds[p] = (cd){cdist[p], p};
    qsort(cds, (size_t)md->nlist, sizeof *cds, cmp_cd);
    for (int32_t i = 0; i < np; i++) {
      prob[(size_t)q * np + i] = cds[i].p;
      if (st == QV_OK) st = load_part(f, cds[i].p, err);
    }
  }
  if (st == QV_OK) qvb_pool_run((int64_t)nq * np, QV_POOL_MAX, search_task, &j);
  int64_t scored = 0;
  for (int w = 0; j.scored && w < QV_POOL_MAX; w++) scored += j.scored[w];
  /* merge each query's heaps */
  for (int32_t q = 0; st == QV_OK && q < nq; q++) {
    cand_heap all = {out + (size_t)q * k, 0, k};
    for (int w = 0; w < QV_POOL_MAX; w++) {
      const cand_heap *t = &j.heaps[(size_t)w * nq + q];
      for (int64_t i = 0; i < t->n; i++) heap_push(&all, t->h[i]);
    }
    qsort(all.h, (size_t)all.n, sizeof *all.h, cmp_cand);
    n_out[q] = all.n;
  }
  if (st == QV_OK) {
    stats->partitions_probed += (int64_t)nq * np;
    stats->candidates += scored;
    stats->distances += (int64_t)nq * md->nlist + scored;
  }
  for (size_t i = 0; j.heaps && i < (size_t)QV_POOL_MAX * nq; i++) qv_free(j.heaps[i].h);
  qv_free(j.heaps);
  qv_free(j.scratch);
  qv_free(j.scored);
  qv_free(qn);
  qv_free(prob);
  qv_free(cds);
  qv_free(cdist);
  return st;
}

const qvi_kind qvi_kind_ivf_flat = {
    .type = QV_INDEX_IVF_FLAT,
    .name = "ivf_flat",
    .supports = supports,
    .key_type = key_type,
    .train = train_flat,
    .model_of = model_of,
    .model_free = model_free,
    .build = build,
    .open = open_flat,
    .close = close_file,
    .chunk_role = chunk_role,
    .stats = qvi_stats_footer,
    .verify = verify,
    .vector_info = vector_info,
    .search = search,
};

const qvi_kind qvi_kind_ivf_pq = {
    .type = QV_INDEX_IVF_PQ,
    .name = "ivf_pq",
    .supports = supports,
    .key_type = key_type,
    .train = train_pq,
    .model_of = model_of,
    .model_free = model_free,
    .build = build,
    .open = open_pq,
    .close = close_file,
    .chunk_role = chunk_role,
    .stats = qvi_stats_footer,
    .verify = verify,
    .vector_info = vector_info,
    .search = search,
};
