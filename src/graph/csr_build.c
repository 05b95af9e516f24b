/* Building a graph's indices from its tables: integer id columns read
 * fragment by fragment, the node index (dense or sorted), and both CSRs of
 * a relationship type by a parallel counting sort on the worker pool.
 *
 * The counting sort splits the edges into one chunk per worker: each chunk
 * counts its sources' degrees into its own histogram, one sequential pass
 * turns the histograms into every chunk's first slot per node, and each
 * chunk then scatters its edges there.  Chunks are in edge row order and
 * scatter in order, so a node's edges come out in edge row order whatever
 * the thread count: the files are the same at 1 and N threads. */
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "graph/graph_int.h"

/* ---- id columns --------------------------------------------------------- */

static bool is_int_type(qv_type_id t) {
  switch (t) {
    case QV_TYPE_INT8:
    case QV_TYPE_INT16:
    case QV_TYPE_INT32:
    case QV_TYPE_INT64:
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32:
    case QV_TYPE_UINT64: return true;
    default: return false;
  }
}

/* Widens a column's values to int64; *bad gets the first row of a uint64
 * past INT64_MAX, or -1. */
static void widen(const qv_array *a, int64_t *out, int64_t *bad) {
  const uint8_t *base = a->buffers[1] ? a->buffers[1]->data : NULL;
  int64_t n = a->length, o = a->offset;
  *bad = -1;
  if (!base) return;
  switch (a->type.id) {
    case QV_TYPE_INT8:
      for (int64_t i = 0; i < n; i++) out[i] = ((const int8_t *)base)[o + i];
      break;
    case QV_TYPE_INT16:
      for (int64_t i = 0; i < n; i++) out[i] = ((const int16_t *)base)[o + i];
      break;
    case QV_TYPE_INT32:
      for (int64_t i = 0; i < n; i++) out[i] = ((const int32_t *)base)[o + i];
      break;
    case QV_TYPE_INT64: memcpy(out, (const int64_t *)base + o, (size_t)n * 8); break;
    case QV_TYPE_UINT8:
      for (int64_t i = 0; i < n; i++) out[i] = ((const uint8_t *)base)[o + i];
      break;
    case QV_TYPE_UINT16:
      for (int64_t i = 0; i < n; i++) out[i] = ((const uint16_t *)base)[o + i];
      break;
    case QV_TYPE_UINT32:
      for (int64_t i = 0; i < n; i++) out[i] = ((const uint32_t *)base)[o + i];
      break;
    case QV_TYPE_UINT64:
      for (int64_t i = 0; i < n; i++) {
        uint64_t v = ((const uint64_t *)base)[o + i];
        if (v > (uint64_t)INT64_MAX && *bad < 0) *bad = i;
        out[i] = (int64_t)v;
      }
      break;
    default: break;
  }
}

/* The column's index, checked to be an integer column. */
static qv_status int_column(const qv_dataset *ds, const char *dsname, const char *column, const char *what,
                            int32_t *out, qv_error *err) {
  const qv_schema *s = qv_dataset_schema(ds);
  int32_t c = qv_schema_find(s, column);
  if (c < 0) return qv_error_set(err, QV_ERR_NOT_FOUND, "dataset %s: no column `%s` (%s)", dsname, column, what);
  if (!is_int_type(s->fields[c].type.id)) {
    char t[64];
    qv_datatype_format(&s->fields[c].type, t, sizeof t);
    return qv_error_set(err, QV_ERR_TYPE, "dataset %s: column `%s` (%s) is %s, not an integer type", dsname, column,
                        what, t);
  }
  *out = c;
  return QV_OK;
}

static int64_t physical_rows(const qv_dataset *ds) {
  int64_t n = 0;
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
    qv_fragment_info fi;
    qv_dataset_fragment(ds, f, &fi);
    n += fi.num_rows;
  }
  return n;
}

/* One fragment's column into vals[0..rows) and its deletions into the
 * dataset-wide bitmap at `start`. */
static qv_status read_fragment(const qv_dataset *ds, int32_t f, int32_t col, const char *dsname, const char *column,
                               const char *what, int64_t start, int64_t *vals, uint8_t **deleted, int64_t total,
                               qv_error *err) {
  qv_fragment_reader *r = NULL;
  qv_array *a = NULL;
  qv_status st = qv_fragment_open(ds, f, &r, err);
  if (st != QV_OK) return st;
  int64_t rows = qv_fragment_num_rows(r);
  if ((st = qv_fragment_read(r, col, 0, rows, &a, err)) != QV_OK) goto cleanup;
  int64_t bad;
  widen(a, vals, &bad);
  if (bad >= 0) {
    st = qv_error_set(err, QV_ERR_OVERFLOW,
                      "dataset %s: column `%s` (%s): value %llu at row %lld is past the int64 range", dsname, column,
                      what, (unsigned long long)((const uint64_t *)a->buffers[1]->data)[a->offset + bad],
                      (long long)(start + bad));
    goto cleanup;
  }
  const uint8_t *del = qv_fragment_deleted(r);
  if (del) {
    if (!*deleted && !(*deleted = qv_calloc((size_t)(total + 7) / 8 + 8, 1))) {
      st = qv_error_nomem(err, dsname);
      goto cleanup;
    }
    for (int64_t i = 0; i < rows; i++)
      if (qv_bit_get(del, i)) (*deleted)[(start + i) >> 3] |= (uint8_t)(1u << ((start + i) & 7));
  }
  if (a->null_count > 0) {
    const uint8_t *valid = a->buffers[0] ? a->buffers[0]->data : NULL;
    for (int64_t i = 0; i < rows; i++) {
      bool is_null = !valid || !qv_bit_get(valid, a->offset + i);
      if (is_null && !(del && qv_bit_get(del, i))) {
        st = qv_error_set(err, QV_ERR_INVALID, "dataset %s: column `%s` (%s) is null at row %lld", dsname, column, what,
                          (long long)(start + i));
        goto cleanup;
      }
    }
  }
cleanup:
  qv_array_release(a);
  qv_fragment_close(r);
  return st;
}

qv_status qvg_read_ids(const qv_dataset *ds, const char *dsname, const char *column, const char *what,
                       int64_t **out_vals, uint8_t **out_deleted, int64_t *out_rows, qv_error *err) {
  *out_vals = NULL;
  *out_deleted = NULL;
  *out_rows = 0;
  int32_t col;
  QV_RETURN_NOT_OK(int_column(ds, dsname, column, what, &col, err));
  int64_t total = physical_rows(ds);
  if (total > QVG_MAX_ROWS)
    return qv_error_set(err, QV_ERR_UNSUPPORTED, "dataset %s: %lld rows is more than a graph table may have (%lld)",
                        dsname, (long long)total, (long long)QVG_MAX_ROWS);
  int64_t *vals = qv_malloc((size_t)(total ? total : 1) * 8);
  uint8_t *deleted = NULL;
  if (!vals) return qv_error_nomem(err, dsname);
  qv_status st = QV_OK;
  int64_t start = 0;
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds) && st == QV_OK; f++) {
    qv_fragment_info fi;
    qv_dataset_fragment(ds, f, &fi);
    st = read_fragment(ds, f, col, dsname, column, what, start, vals + start, &deleted, total, err);
    start += fi.num_rows;
  }
  if (st != QV_OK) {
    qv_free(vals);
    qv_free(deleted);
    return st;
  }
  *out_vals = vals;
  *out_deleted = deleted;
  *out_rows = total;
  return QV_OK;
}

/* ---- node index --------------------------------------------------------- */

typedef struct id_pos {
  int64_t id;
  uint32_t pos;
} id_pos;

static int cmp_id_pos(const void *a, const void *b) {
  const id_pos *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static qv_status duplicate(int64_t id, int64_t a, int64_t b, qv_error *err) {
  return qv_error_set(err, QV_ERR_INVALID, "duplicate id %lld at row positions %lld and %lld", (long long)id,
                      (long long)a, (long long)b);
}

qv_status qvg_node_index_build(const int64_t *ids, const uint8_t *deleted, int64_t n_rows, qvg_node_index *out,
                               qv_error *err) {
  memset(out, 0, sizeof *out);
  out->n_rows = n_rows;
  out->max_id = -1;
  int64_t n = 0, min = INT64_MAX, max = INT64_MIN;
  for (int64_t i = 0; i < n_rows; i++) {
    if (deleted && qv_bit_get(deleted, i)) continue;
    n++;
    if (ids[i] < min) min = ids[i];
    if (ids[i] > max) max = ids[i];
  }
  out->n_nodes = n;
  if (n == 0) return QV_OK;
  out->min_id = min;
  out->max_id = max;
  uint64_t span = (uint64_t)max - (uint64_t)min + 1;
  if (span != 0 && span <= (uint64_t)n * QVG_DENSE_FACTOR) {
    uint32_t *pos = qv_malloc((size_t)span * 4);
    if (!pos) return qv_error_nomem(err, "node index");
    memset(pos, 0xFF, (size_t)span * 4);
    /* the first duplicate is the one whose second row comes first: rows
     * are visited in order, so it is the first collision met */
    for (int64_t i = 0; i < n_rows; i++) {
      if (deleted && qv_bit_get(deleted, i)) continue;
      uint32_t *slot = &pos[(uint64_t)ids[i] - (uint64_t)min];
      if (*slot != QVG_NO_POS) {
        uint32_t first = *slot; /* read before pos is freed */
        qv_free(pos);
        return duplicate(ids[i], first, i, err);
      }
      *slot = (uint32_t)i;
    }
    out->dense = true;
    out->pos = pos;
    out->owned[0] = pos;
    return QV_OK;
  }
  id_pos *pairs = qv_malloc((size_t)n * sizeof *pairs);
  if (!pairs) return qv_error_nomem(err, "node index");
  int64_t k = 0;
  for (int64_t i = 0; i < n_rows; i++)
    if (!(deleted && qv_bit_get(deleted, i))) pairs[k++] = (id_pos){ids[i], (uint32_t)i};
  qsort(pairs, (size_t)n, sizeof *pairs, cmp_id_pos);
  int64_t dup = -1;
  for (int64_t i = 1; i < n; i++)
    if (pairs[i].id == pairs[i - 1].id && (dup < 0 || pairs[i].pos < pairs[dup].pos)) dup = i;
  if (dup >= 0) {
    qv_status st = duplicate(pairs[dup].id, pairs[dup - 1].pos, pairs[dup].pos, err);
    qv_free(pairs);
    return st;
  }
  int64_t *sid = qv_malloc((size_t)n * 8);
  uint32_t *spos = qv_malloc((size_t)n * 4);
  if (!sid || !spos) {
    qv_free(pairs);
    qv_free(sid);
    qv_free(spos);
    return qv_error_nomem(err, "node index");
  }
  for (int64_t i = 0; i < n; i++) {
    sid[i] = pairs[i].id;
    spos[i] = pairs[i].pos;
  }
  qv_free(pairs);
  out->ids = sid;
  out->pos = spos;
  out->owned[0] = sid;
  out->owned[1] = spos;
  return QV_OK;
}

/* ---- CSR ---------------------------------------------------------------- */

/* Parallel mapping of one fragment's endpoint ids to positions. */
typedef struct map_ctx {
  const int64_t *src, *dst;
  const uint8_t *del; /* the fragment's deletions, or NULL */
  const qvg_node_index *six, *dix;
  uint32_t *spos, *dpos;
  int64_t n, chunk;
  int64_t dangling[QV_POOL_MAX * 4];
  int64_t first[QV_POOL_MAX * 4]; /* row within the fragment * 2 + (dst ? 1 : 0), -1 */
} map_ctx;

static void map_task(void *vctx, int64_t task, int worker) {
  (void)worker;
  map_ctx *c = vctx;
  int64_t lo = task * c->chunk, hi = lo + c->chunk < c->n ? lo + c->chunk : c->n;
  int64_t dang = 0, first = -1;
  for (int64_t i = lo; i < hi; i++) {
    if (c->del && qv_bit_get(c->del, i)) {
      c->spos[i] = c->dpos[i] = QVG_NO_POS;
      continue;
    }
    int64_t s = qvg_node_index_find(c->six, c->src[i]), d = qvg_node_index_find(c->dix, c->dst[i]);
    if (s < 0 || d < 0) {
      dang += (s < 0) + (d < 0);
      if (first < 0) first = i * 2 + (s < 0 ? 0 : 1);
      c->spos[i] = c->dpos[i] = QVG_NO_POS;
      continue;
    }
    c->spos[i] = (uint32_t)s;
    c->dpos[i] = (uint32_t)d;
  }
  c->dangling[task] = dang;
  c->first[task] = first;
}

/* The counting sort of one direction (see the top of the file). */
typedef struct sort_ctx {
  const uint32_t *key, *val; /* key: the leaving end's position per edge row */
  int64_t m, chunk, n_nodes;
  uint32_t **hist; /* per chunk, n_nodes counts, then slots */
  uint32_t *nbrs, *edges;
} sort_ctx;

static void count_task(void *vctx, int64_t task, int worker) {
  (void)worker;
  sort_ctx *c = vctx;
  int64_t lo = task * c->chunk, hi = lo + c->chunk < c->m ? lo + c->chunk : c->m;
  uint32_t *h = c->hist[task];
  for (int64_t i = lo; i < hi; i++)
    if (c->key[i] != QVG_NO_POS) h[c->key[i]]++;
}

static void scatter_task(void *vctx, int64_t task, int worker) {
  (void)worker;
  sort_ctx *c = vctx;
  int64_t lo = task * c->chunk, hi = lo + c->chunk < c->m ? lo + c->chunk : c->m;
  uint32_t *h = c->hist[task];
  for (int64_t i = lo; i < hi; i++) {
    uint32_t k = c->key[i];
    if (k == QVG_NO_POS) continue;
    uint32_t at = h[k]++;
    c->nbrs[at] = c->val[i];
    c->edges[at] = (uint32_t)i;
  }
}

static qv_status sort_direction(const uint32_t *key, const uint32_t *val, int64_t m, int64_t n_edges, int64_t n_nodes,
                                int64_t n_targets, qvg_direction dir, qvg_csr *out, qv_error *err) {
  memset(out, 0, sizeof *out);
  int64_t chunks = qv_threads();
  if (chunks > QV_POOL_MAX) chunks = QV_POOL_MAX;
  if (chunks < 1) chunks = 1;
  /* a chunk's histogram costs n_nodes counts: not worth it for few edges per node */
  while (chunks > 1 && m / chunks < n_nodes / 4) chunks--;
  sort_ctx c = {key, val, m, (m + chunks - 1) / chunks, n_nodes, NULL, NULL, NULL};
  if (c.chunk == 0) c.chunk = 1;
  qv_status st = QV_OK;
  uint64_t *off = qv_malloc((size_t)(n_nodes + 1) * 8);
  c.nbrs = qv_malloc((size_t)(n_edges ? n_edges : 1) * 4);
  c.edges = qv_malloc((size_t)(n_edges ? n_edges : 1) * 4);
  c.hist = qv_calloc((size_t)chunks, sizeof *c.hist);
  if (!off || !c.nbrs || !c.edges || !c.hist) goto nomem;
  for (int64_t k = 0; k < chunks; k++)
    if (!(c.hist[k] = qv_calloc((size_t)(n_nodes ? n_nodes : 1), 4))) goto nomem;
  qvb_pool_run(chunks, QV_POOL_MAX, count_task, &c);
  uint64_t run = 0;
  off[0] = 0;
  for (int64_t v = 0; v < n_nodes; v++) {
    for (int64_t k = 0; k < chunks; k++) {
      uint32_t cnt = c.hist[k][v];
      c.hist[k][v] = (uint32_t)run;
      run += cnt;
    }
    off[v + 1] = run;
  }
  qvb_pool_run(chunks, QV_POOL_MAX, scatter_task, &c);
  out->direction = dir;
  out->n_nodes = n_nodes;
  out->n_targets = n_targets;
  out->n_edges = n_edges;
  out->n_edge_rows = m;
  out->offsets = off;
  out->nbrs = c.nbrs;
  out->edges = c.edges;
  out->owned[0] = off;
  out->owned[1] = c.nbrs;
  out->owned[2] = c.edges;
  off = NULL;
  c.nbrs = c.edges = NULL;
  goto cleanup;
nomem:
  st = qv_error_nomem(err, "CSR build");
cleanup:
  if (c.hist)
    for (int64_t k = 0; k < chunks; k++) qv_free(c.hist[k]);
  qv_free(c.hist);
  qv_free(off);
  qv_free(c.nbrs);
  qv_free(c.edges);
  return st;
}

qv_status qvg_csr_build(const qv_dataset *ds, const char *dsname, const char *src_col, const char *dst_col,
                        qvg_rel_build *b, qvg_csr *fwd, qvg_csr *rev, qv_error *err) {
  memset(fwd, 0, sizeof *fwd);
  memset(rev, 0, sizeof *rev);
  b->n_edges = b->dangling = 0;
  b->first_row = b->first_id = -1;
  b->first_is_src = true;
  double t0 = qv_now_seconds();
  int32_t sc, dc;
  QV_RETURN_NOT_OK(int_column(ds, dsname, src_col, "source id", &sc, err));
  QV_RETURN_NOT_OK(int_column(ds, dsname, dst_col, "destination id", &dc, err));
  int64_t m = physical_rows(ds);
  if (m > QVG_MAX_ROWS)
    return qv_error_set(err, QV_ERR_UNSUPPORTED, "dataset %s: %lld rows is more than a graph table may have (%lld)",
                        dsname, (long long)m, (long long)QVG_MAX_ROWS);
  qv_status st = QV_OK;
  uint32_t *spos = qv_malloc((size_t)(m ? m : 1) * 4), *dpos = qv_malloc((size_t)(m ? m : 1) * 4);
  int64_t *sv = NULL, *dv = NULL;
  if (!spos || !dpos) {
    st = qv_error_nomem(err, dsname);
    goto cleanup;
  }
  int64_t start = 0;
  int64_t cap = 0;
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
    qv_fragment_info fi;
    qv_dataset_fragment(ds, f, &fi);
    int64_t rows = fi.num_rows;
    if (rows > cap) {
      qv_free(sv);
      qv_free(dv);
      sv = qv_malloc((size_t)rows * 8);
      dv = qv_malloc((size_t)rows * 8);
      cap = rows;
      if (!sv || !dv) {
        st = qv_error_nomem(err, dsname);
        goto cleanup;
      }
    }
    /* deletions come back through a fragment-local bitmap of its own rows */
    uint8_t *del = NULL;
    if ((st = read_fragment(ds, f, sc, dsname, src_col, "source id", 0, sv, &del, rows, err)) != QV_OK) goto cleanup;
    qv_free(del);
    del = NULL;
    if ((st = read_fragment(ds, f, dc, dsname, dst_col, "destination id", 0, dv, &del, rows, err)) != QV_OK)
      goto cleanup;
    map_ctx mc;
    memset(&mc, 0, sizeof mc);
    mc.src = sv;
    mc.dst = dv;
    mc.del = del;
    mc.six = b->src_ix;
    mc.dix = b->dst_ix;
    mc.spos = spos + start;
    mc.dpos = dpos + start;
    mc.n = rows;
    int64_t tasks = rows / 65536 + 1;
    if (tasks > QV_POOL_MAX * 4) tasks = QV_POOL_MAX * 4;
    mc.chunk = (rows + tasks - 1) / tasks;
    if (mc.chunk == 0) mc.chunk = 1;
    tasks = (rows + mc.chunk - 1) / mc.chunk;
    qvb_pool_run(tasks, QV_POOL_MAX, map_task, &mc);
    qv_free(del);
    for (int64_t t = 0; t < tasks; t++) {
      if (mc.dangling[t] && b->first_row < 0) {
        int64_t i = mc.first[t] / 2;
        b->first_row = start + i;
        b->first_is_src = mc.first[t] % 2 == 0;
        b->first_id = b->first_is_src ? sv[i] : dv[i];
      }
      b->dangling += mc.dangling[t];
    }
    start += rows;
  }
  qv_free(sv);
  qv_free(dv);
  sv = dv = NULL;
  b->seconds_read = qv_now_seconds() - t0;
  if (b->dangling) goto cleanup;
  int64_t n_edges = 0;
  for (int64_t i = 0; i < m; i++) n_edges += spos[i] != QVG_NO_POS;
  b->n_edges = n_edges;
  t0 = qv_now_seconds();
  if ((st = sort_direction(spos, dpos, m, n_edges, b->src_ix->n_rows, b->dst_ix->n_rows, QVG_OUT, fwd, err)) != QV_OK)
    goto cleanup;
  if ((st = sort_direction(dpos, spos, m, n_edges, b->dst_ix->n_rows, b->src_ix->n_rows, QVG_IN, rev, err)) != QV_OK)
    goto cleanup;
  b->seconds_sort = qv_now_seconds() - t0;
cleanup:
  if (st != QV_OK) {
    qvg_csr_reset(fwd);
    qvg_csr_reset(rev);
  }
  qv_free(sv);
  qv_free(dv);
  qv_free(spos);
  qv_free(dpos);
  return st;
}
