/* A vector search as a scan (nearest.h): what qv_scanner_open does when the
 * options carry `nearest`.  Everything that can be wrong is found at open,
 * before any data is read: the column (fixed_size_list<float32, dim>),
 * the query (its dimension, NaN or infinite values, a zero vector under
 * cosine), k (1 .. the version's live rows), the prefilter (parsed and
 * bound by a scanner of its own) and the postfilter (bound against the
 * result).  The search runs on the first qv_scanner_next or count.
 *
 * The prefilter is the scan's filter: it is evaluated by quiver (with its
 * page pruning and scalar indices), so it is exact by construction; the
 * rows it keeps are collected first and the search chooses among them.
 * Cost rule: a fragment a vector index covers is searched flat over the
 * admitted rows when they are fewer than the rows the probed partitions
 * hold (nprobes / partitions of the fragment): reading those vectors is
 * then cheaper than probing, and exact.  The postfilter runs on the ranked
 * rows and never becomes a prefilter. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/text.h"
#include "scan/nearest.h"

struct qvsc_nearest {
  const qv_dataset *ds;
  char *column, *postfilter_text;
  int32_t vcol, dim, n_queries;
  int64_t k, limit, offset, batch_size;
  qv_metric metric;
  bool use_index, with_row_id;
  int32_t nprobes, refine_factor;
  float *q, *qnorm;
  int32_t n_proj;
  int32_t *proj;
  qv_schema out_schema;
  qv_expr *post; /* bound against out_schema */
  /* the prefilter's own scanner (NULL: none), reading no column */
  qv_scanner *pre;
  char *pre_explain;
  /* the vector index used (NULL: flat) and why not, when not */
  qv_index *ix;
  qv_index_vector_info info;
  char why_flat[160];
  /* the search and its output */
  bool ran;
  int64_t prefilter_rows;
  qvsc_search s;
  qv_batch **out;
  int32_t n_out, next_out;
  int64_t rows_returned;
};

static qv_status add_field(qv_schema *s, const char *name, qv_datatype t, qv_error *err) {
  qv_field f = {(char *)name, t, false};
  return qv_schema_add(s, &f, err);
}

/* The vector index to use on the column: the first one of a vector kind
 * whose metric and dimension are the search's. */
static qv_status pick_index(qvsc_nearest *n, qv_error *err) {
  if (!n->use_index) {
    snprintf(n->why_flat, sizeof n->why_flat, "use_index is off");
    return QV_OK;
  }
  snprintf(n->why_flat, sizeof n->why_flat, "no vector index on `%s`", n->column);
  for (int32_t i = 0; i < qv_dataset_num_indices(n->ds); i++) {
    qv_index_entry e;
    qv_dataset_index(n->ds, i, &e);
    if (strcmp(e.column, n->column) != 0) continue;
    qv_index *ix = NULL;
    QV_RETURN_NOT_OK(qv_index_open(n->ds, i, &ix, err));
    qv_index_set_tolerant(ix, true);
    qv_index_vector_info info;
    qv_error e2;
    qv_status st = qv_index_vector_info_get(ix, &info, &e2);
    if (st == QV_ERR_NOMEM) {
      qv_index_close(ix);
      return qv_error_nomem(err, "nearest");
    }
    if (st == QV_ERR_INVALID) { /* not a vector index */
      qv_index_close(ix);
      continue;
    }
    if (st != QV_OK) {
      snprintf(n->why_flat, sizeof n->why_flat, "index `%s` is unusable: %.100s", e.name, e2.message);
    } else if (info.metric != n->metric) {
      snprintf(n->why_flat, sizeof n->why_flat, "index `%s` is for metric %s, the search's is %s", e.name,
               qv_metric_name(info.metric), qv_metric_name(n->metric));
    } else {
      n->ix = ix;
      n->info = info;
      n->why_flat[0] = 0;
      return QV_OK;
    }
    qv_index_close(ix);
  }
  return QV_OK;
}

static qv_status check_query(qvsc_nearest *n, const qv_scan_nearest *o, qv_error *err) {
  if (!o->q || o->n_queries < 1)
    return qv_error_set(err, QV_ERR_INVALID, "nearest: no query vector (q is NULL or n_queries < 1)");
  if (o->dim != n->dim)
    return qv_error_set(err, QV_ERR_INVALID, "nearest: the query has dimension %d, column `%s` has %d", o->dim,
                        n->column, n->dim);
  if (o->n_queries > (1 << 20)) return qv_error_set(err, QV_ERR_INVALID, "nearest: more than 1,048,576 queries");
  size_t nv = (size_t)o->n_queries * (size_t)n->dim;
  n->q = qv_malloc(nv * sizeof *n->q);
  n->qnorm = qv_malloc((size_t)o->n_queries * sizeof *n->qnorm);
  if (!n->q || !n->qnorm) return qv_error_nomem(err, "nearest");
  memcpy(n->q, o->q, nv * sizeof *n->q);
  for (int32_t q = 0; q < o->n_queries; q++) {
    double s = 0;
    for (int32_t j = 0; j < n->dim; j++) {
      float v = n->q[(size_t)q * n->dim + j];
      if (!isfinite(v))
        return qv_error_set(err, QV_ERR_INVALID, "nearest: query %d holds %s at position %d", q,
                            isnan(v) ? "NaN" : "an infinite value", j);
      s += (double)v * v;
    }
    n->qnorm[q] = (float)sqrt(s);
    if (n->metric == QV_METRIC_COSINE && s == 0)
      return qv_error_set(err, QV_ERR_INVALID, "nearest: query %d is the zero vector, which has no cosine distance", q);
  }
  return QV_OK;
}

static qv_status plan_output(qvsc_nearest *n, const qv_scan_options *o, qv_error *err) {
  const qv_schema *ds = qv_dataset_schema(n->ds);
  n->n_proj = o->columns ? o->n_columns : ds->n_fields;
  n->proj = qv_calloc((size_t)(n->n_proj > 0 ? n->n_proj : 1), sizeof *n->proj);
  if (!n->proj) return qv_error_nomem(err, "nearest");
  for (int32_t i = 0; i < n->n_proj; i++) {
    int32_t c = o->columns ? qv_schema_find(ds, o->columns[i]) : i;
    if (c < 0) return qv_error_set(err, QV_ERR_NOT_FOUND, "select: no column `%s`", o->columns[i]);
    n->proj[i] = c;
    QV_RETURN_NOT_OK(qv_schema_add(&n->out_schema, &ds->fields[c], err));
  }
  if (n->with_row_id) QV_RETURN_NOT_OK(add_field(&n->out_schema, "_rowid", qv_datatype_simple(QV_TYPE_UINT64), err));
  QV_RETURN_NOT_OK(add_field(&n->out_schema, "_distance", qv_datatype_simple(QV_TYPE_FLOAT32), err));
  if (n->n_queries > 1) QV_RETURN_NOT_OK(add_field(&n->out_schema, "_query", qv_datatype_simple(QV_TYPE_INT32), err));
  if (!n->postfilter_text) return QV_OK;
  QV_RETURN_NOT_OK(qv_lance_filter_parse(n->postfilter_text, &n->post, err));
  qv_status st = qv_expr_bind(n->post, &n->out_schema, err);
  if (st != QV_OK) return qv_error_prefix(err, st, "postfilter (over the result's columns)");
  if (n->post->type.id != QV_TYPE_BOOL && n->post->type.id != QV_TYPE_NULL)
    return qv_error_set(err, QV_ERR_TYPE, "postfilter: the filter must be boolean");
  return qv_eval_check(n->post, err);
}

/* The prefilter's scanner: no column, row ids, the options' filter. */
static qv_status plan_prefilter(qvsc_nearest *n, const qv_scan_options *o, qv_error *err) {
  if (!o->filter && !o->filter_expr) return QV_OK;
  static const char *const none[1] = {NULL};
  qv_scan_options p = *o;
  p.columns = none;
  p.n_columns = 0;
  p.with_row_id = true;
  p.limit = -1;
  p.offset = 0;
  p.batch_size = 65536;
  p.exact_batches = false;
  p.nearest = NULL;
  qv_status st = qv_scanner_open_dataset(n->ds, &p, &n->pre, err);
  if (st != QV_OK) return qv_error_prefix(err, st, "prefilter");
  n->pre_explain = qv_scanner_explain(n->pre, false);
  return QV_OK;
}

qv_status qvsc_nearest_open(const qv_dataset *ds, const qv_scan_options *o, qvsc_nearest **out, qv_error *err) {
  *out = NULL;
  const qv_scan_nearest *nn = o->nearest;
  qvsc_nearest *n = qv_calloc(1, sizeof *n);
  if (!n) return qv_error_nomem(err, "nearest");
  n->ds = ds;
  n->limit = o->limit;
  n->offset = o->offset;
  n->batch_size = o->batch_size > 0 ? o->batch_size : 8192;
  n->with_row_id = o->with_row_id;
  n->metric = nn->metric;
  n->k = nn->k;
  n->n_queries = nn->n_queries;
  n->use_index = nn->use_index;
  n->nprobes = nn->nprobes > 0 ? nn->nprobes : 20;
  n->refine_factor = nn->refine_factor;
  qv_status st = QV_OK;
  const qv_schema *schema = qv_dataset_schema(ds);
  if (o->offset < 0 || o->batch_size < 0) {
    st = qv_error_set(err, QV_ERR_INVALID, "scan: batch size and offset must not be negative");
    goto done;
  }
  if (!nn->column) {
    st = qv_error_set(err, QV_ERR_INVALID, "nearest: a column is required");
    goto done;
  }
  if (!(n->column = qv_strdup(nn->column)) || (nn->postfilter && !(n->postfilter_text = qv_strdup(nn->postfilter)))) {
    st = qv_error_nomem(err, "nearest");
    goto done;
  }
  if ((n->vcol = qv_schema_find(schema, nn->column)) < 0) {
    st = qv_error_set(err, QV_ERR_NOT_FOUND, "nearest: no column `%s`", nn->column);
    goto done;
  }
  const qv_datatype *t = &schema->fields[n->vcol].type;
  if (t->id != QV_TYPE_FIXED_SIZE_LIST || t->n_children != 1 || t->children[0].type.id != QV_TYPE_FLOAT32) {
    char tn[64];
    qv_datatype_format(t, tn, sizeof tn);
    st = qv_error_set(err, QV_ERR_TYPE, "nearest: column `%s` (%s) is not a vector column: fixed_size_list<float32, N>",
                      nn->column, tn);
    goto done;
  }
  n->dim = t->list_size;
  if (n->metric != QV_METRIC_L2 && n->metric != QV_METRIC_COSINE && n->metric != QV_METRIC_DOT) {
    st = qv_error_set(err, QV_ERR_INVALID, "nearest: unknown metric %d (l2, cosine, dot)", (int)n->metric);
    goto done;
  }
  if (nn->refine_factor < 0) {
    st = qv_error_set(err, QV_ERR_INVALID, "nearest: refine_factor %d is negative", nn->refine_factor);
    goto done;
  }
  int64_t live = qv_dataset_count_rows(ds);
  if (n->k < 1 || n->k > live) {
    st = qv_error_set(err, QV_ERR_INVALID, "nearest: k = %lld is not within 1..%lld (the rows of version %lld)",
                      (long long)n->k, (long long)live, (long long)qv_dataset_version(ds));
    goto done;
  }
  if (n->k > (INT64_C(1) << 24)) {
    st = qv_error_set(err, QV_ERR_INVALID, "nearest: k = %lld is above 16,777,216", (long long)n->k);
    goto done;
  }
  if ((st = check_query(n, nn, err)) != QV_OK) goto done;
  if ((st = plan_output(n, o, err)) != QV_OK) goto done;
  if ((st = plan_prefilter(n, o, err)) != QV_OK) goto done;
  st = pick_index(n, err);
done:
  if (st != QV_OK) {
    qvsc_nearest_destroy(n);
    return st;
  }
  *out = n;
  return QV_OK;
}

void qvsc_nearest_destroy(qvsc_nearest *n) {
  if (!n) return;
  qv_free(n->column);
  qv_free(n->postfilter_text);
  qv_free(n->q);
  qv_free(n->qnorm);
  qv_free(n->proj);
  qv_schema_reset(&n->out_schema);
  qv_expr_destroy(n->post);
  qv_scanner_destroy(n->pre);
  qv_free(n->pre_explain);
  qv_index_close(n->ix);
  qvsc_search_reset(&n->s);
  qv_free(n->s.admitted ? (void *)n->s.admitted : NULL);
  for (int32_t i = n->next_out; i < n->n_out; i++) qv_batch_release(n->out[i]);
  qv_free(n->out);
  qv_free(n);
}

const qv_schema *qvsc_nearest_schema(const qvsc_nearest *n) { return &n->out_schema; }

/* ---- running -------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The rows the prefilter keeps, sorted. */
static qv_status collect_admitted(qvsc_nearest *n, qv_error *err) {
  uint64_t *ids = NULL;
  int64_t cnt = 0, cap = 0;
  qv_status st = QV_OK;
  for (;;) {
    qv_batch *b = NULL;
    if ((st = qv_scanner_next(n->pre, &b, err)) != QV_OK || !b) break;
    const uint64_t *r = qv_array_values(b->columns[0]);
    if (cnt + b->num_rows > cap) {
      int64_t nc = cap ? cap * 2 : 65536;
      while (nc < cnt + b->num_rows) nc *= 2;
      uint64_t *ni = qv_realloc(ids, (size_t)nc * sizeof *ni);
      if (!ni) {
        qv_batch_release(b);
        st = qv_error_nomem(err, "nearest");
        break;
      }
      ids = ni;
      cap = nc;
    }
    memcpy(ids + cnt, r, (size_t)b->num_rows * sizeof *ids);
    cnt += b->num_rows;
    qv_batch_release(b);
  }
  if (st != QV_OK) {
    qv_free(ids);
    return qv_error_prefix(err, st, "prefilter");
  }
  if (!ids && !(ids = qv_malloc(sizeof *ids))) return qv_error_nomem(err, "nearest");
  qsort(ids, (size_t)cnt, sizeof *ids, cmp_u64);
  n->s.admitted = ids;
  n->s.n_admitted = cnt;
  n->prefilter_rows = cnt;
  return QV_OK;
}

/* A hit of the output: which query and rank it answers. */
typedef struct outrow {
  uint64_t row;
  float dist;
  int32_t query;
} outrow;

static int cmp_outrow_row(const void *a, const void *b) {
  uint64_t x = ((const outrow *)a)->row, y = ((const outrow *)b)->row;
  return (x > y) - (x < y);
}

/* Position of row among the sorted unique ids. */
static uint32_t find_row(const uint64_t *ids, int64_t n, uint64_t row) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (ids[mid] < row) lo = mid + 1;
    else hi = mid;
  }
  return (uint32_t)lo;
}

/* The projected columns of the ranked rows: every row once, taken fragment
 * by fragment in row order, then put in rank order. */
static qv_status materialize(qvsc_nearest *n, const outrow *hits, int64_t nh, qv_batch **out, qv_error *err) {
  int32_t nc = n->out_schema.n_fields;
  qv_array **cols = qv_calloc((size_t)nc, sizeof *cols);
  outrow *sorted = qv_malloc((size_t)(nh ? nh : 1) * sizeof *sorted);
  uint64_t *ids = qv_malloc((size_t)(nh ? nh : 1) * sizeof *ids);
  int64_t *take = qv_malloc((size_t)(nh ? nh : 1) * sizeof *take);
  uint32_t *pos = qv_malloc((size_t)(nh ? nh : 1) * sizeof *pos);
  qv_array ***parts = qv_calloc((size_t)(n->n_proj ? n->n_proj : 1), sizeof *parts);
  int32_t nf = qv_dataset_num_fragments(n->ds), n_parts = 0;
  qv_builder bd, bq, br;
  memset(&bd, 0, sizeof bd);
  memset(&bq, 0, sizeof bq);
  memset(&br, 0, sizeof br);
  qv_status st = cols && sorted && ids && take && pos && parts ? QV_OK : qv_error_nomem(err, "nearest");
  for (int32_t c = 0; c < n->n_proj && st == QV_OK; c++)
    if (!(parts[c] = qv_calloc((size_t)(nf ? nf : 1), sizeof **parts))) st = qv_error_nomem(err, "nearest");
  int64_t m = 0;
  if (st == QV_OK) {
    memcpy(sorted, hits, (size_t)nh * sizeof *sorted);
    qsort(sorted, (size_t)nh, sizeof *sorted, cmp_outrow_row);
    for (int64_t i = 0; i < nh; i++)
      if (m == 0 || ids[m - 1] != sorted[i].row) ids[m++] = sorted[i].row;
  }
  /* fragment by fragment, in the manifest's order (ascending ids) */
  for (int32_t f = 0, at = 0; f < nf && st == QV_OK && at < m; f++) {
    qv_fragment_info fi;
    qv_dataset_fragment(n->ds, f, &fi);
    int64_t cnt = 0;
    while (at + cnt < m && (ids[at + cnt] >> 32) == (uint64_t)fi.id) {
      take[cnt] = (int64_t)(ids[at + cnt] & 0xFFFFFFFFu);
      cnt++;
    }
    if (cnt == 0) continue;
    qv_fragment_reader *r = NULL;
    st = qv_fragment_open(n->ds, f, &r, err);
    for (int32_t c = 0; c < n->n_proj && st == QV_OK; c++)
      st = qv_fragment_take(r, n->proj[c], take, cnt, &parts[c][n_parts], err);
    qv_fragment_close(r);
    n_parts++;
    at += (int32_t)cnt;
  }
  for (int64_t i = 0; i < nh && st == QV_OK; i++) pos[i] = find_row(ids, m, hits[i].row);
  for (int32_t c = 0; c < n->n_proj && st == QV_OK; c++) {
    qv_array *all = NULL;
    if (n_parts == 0) st = qv_array_make_null(&n->out_schema.fields[c].type, 0, &all, err);
    else st = qv_array_concat(parts[c], n_parts, &all, err);
    if (st == QV_OK) st = qv_array_take(all, pos, nh, &cols[c], err);
    qv_array_release(all);
  }
  int32_t at = n->n_proj;
  if (st == QV_OK && n->with_row_id) {
    qv_datatype u64 = qv_datatype_simple(QV_TYPE_UINT64);
    st = qv_builder_init(&br, &u64, err);
    for (int64_t i = 0; i < nh && st == QV_OK; i++) st = qv_builder_append_uint(&br, hits[i].row);
    if (st == QV_OK) st = qv_builder_finish(&br, &cols[at++], err);
  }
  if (st == QV_OK) {
    qv_datatype f32 = qv_datatype_simple(QV_TYPE_FLOAT32);
    st = qv_builder_init(&bd, &f32, err);
    for (int64_t i = 0; i < nh && st == QV_OK; i++) st = qv_builder_append_double(&bd, hits[i].dist);
    if (st == QV_OK) st = qv_builder_finish(&bd, &cols[at++], err);
  }
  if (st == QV_OK && n->n_queries > 1) {
    qv_datatype i32 = qv_datatype_simple(QV_TYPE_INT32);
    st = qv_builder_init(&bq, &i32, err);
    for (int64_t i = 0; i < nh && st == QV_OK; i++) st = qv_builder_append_int(&bq, hits[i].query);
    if (st == QV_OK) st = qv_builder_finish(&bq, &cols[at++], err);
  }
  if (st == QV_OK) {
    st = qv_batch_make(&n->out_schema, cols, nh, out, err);
    if (st == QV_OK) memset(cols, 0, (size_t)nc * sizeof *cols);
  }
  qv_builder_reset(&bd);
  qv_builder_reset(&bq);
  qv_builder_reset(&br);
  for (int32_t c = 0; cols && c < nc; c++) qv_array_release(cols[c]);
  for (int32_t c = 0; parts && c < n->n_proj; c++) {
    for (int32_t p = 0; parts[c] && p < n_parts; p++) qv_array_release(parts[c][p]);
    qv_free(parts[c]);
  }
  qv_free(parts);
  qv_free(cols);
  qv_free(sorted);
  qv_free(ids);
  qv_free(take);
  qv_free(pos);
  return st;
}

/* The postfilter, offset and limit over the ranked rows, then batches. */
static qv_status finish_output(qvsc_nearest *n, qv_batch *all, qv_error *err) {
  qv_batch *kept = all;
  qv_status st = QV_OK;
  if (n->post) {
    qv_selection sel = QV_SELECTION_INIT;
    st = qv_eval_filter(n->post, all, NULL, &sel, err);
    if (st == QV_OK) {
      qv_array **cols = qv_calloc((size_t)all->schema.n_fields + 1, sizeof *cols);
      if (!cols) st = qv_error_nomem(err, "nearest");
      for (int32_t c = 0; st == QV_OK && c < all->schema.n_fields; c++)
        st = qv_array_take(all->columns[c], sel.rows, sel.count, &cols[c], err);
      if (st == QV_OK) {
        st = qv_batch_make(&all->schema, cols, sel.count, &kept, err);
        if (st == QV_OK) memset(cols, 0, (size_t)all->schema.n_fields * sizeof *cols);
      }
      for (int32_t c = 0; cols && c < all->schema.n_fields; c++) qv_array_release(cols[c]);
      qv_free(cols);
    }
    qv_selection_reset(&sel);
    qv_batch_release(all);
    if (st != QV_OK) return qv_error_prefix(err, st, "postfilter");
  }
  int64_t from = n->offset < kept->num_rows ? n->offset : kept->num_rows;
  int64_t to = n->limit >= 0 && from + n->limit < kept->num_rows ? from + n->limit : kept->num_rows;
  int64_t nb = (to - from + n->batch_size - 1) / n->batch_size;
  n->out = qv_calloc((size_t)(nb ? nb : 1), sizeof *n->out);
  if (!n->out) st = qv_error_nomem(err, "nearest");
  for (int64_t i = 0; i < nb && st == QV_OK; i++) {
    int64_t a = from + i * n->batch_size, len = to - a < n->batch_size ? to - a : n->batch_size;
    st = qv_batch_slice(kept, a, len, &n->out[n->n_out], err);
    if (st == QV_OK) n->n_out++;
  }
  qv_batch_release(kept);
  return st;
}

static qv_status run(qvsc_nearest *n, qv_error *err) {
  n->ran = true;
  if (n->pre) QV_RETURN_NOT_OK(collect_admitted(n, err));
  qvsc_search *s = &n->s;
  s->ds = n->ds;
  s->column = n->vcol;
  s->dim = n->dim;
  s->n_queries = n->n_queries;
  s->k = n->k;
  s->metric = n->metric;
  s->q = n->q;
  s->qnorm = n->qnorm;
  s->ix = n->ix;
  s->approx = n->ix && n->info.num_sub_vectors > 0; /* product-quantized: estimates */
  s->nprobes = n->nprobes;
  s->refine_factor = n->refine_factor;
  /* the cost rule: probing reads about nprobes / partitions of a
   * fragment's vectors; fewer admitted rows than that are read directly */
  s->flat_below_fraction = n->ix && n->info.num_partitions > 0
                               ? (double)(n->nprobes < n->info.num_partitions ? n->nprobes : n->info.num_partitions) /
                                     (double)n->info.num_partitions
                               : 0;
  QV_RETURN_NOT_OK(qvsc_search_run(s, err));
  int64_t nh = 0;
  for (int32_t q = 0; q < n->n_queries; q++) nh += s->n_hits[q];
  outrow *hits = qv_malloc((size_t)(nh ? nh : 1) * sizeof *hits);
  if (!hits) return qv_error_nomem(err, "nearest");
  int64_t at = 0;
  for (int32_t q = 0; q < n->n_queries; q++)
    for (int64_t i = 0; i < s->n_hits[q]; i++) hits[at++] = (outrow){s->hits[q][i].row, s->hits[q][i].dist, q};
  qv_batch *all = NULL;
  qv_status st = materialize(n, hits, nh, &all, err);
  qv_free(hits);
  if (st == QV_OK) st = finish_output(n, all, err);
  return st;
}

qv_status qvsc_nearest_next(qvsc_nearest *n, qv_batch **out, qv_error *err) {
  *out = NULL;
  if (!n->ran) QV_RETURN_NOT_OK(run(n, err));
  if (n->next_out < n->n_out) {
    *out = n->out[n->next_out];
    n->out[n->next_out++] = NULL;
    n->rows_returned += (*out)->num_rows;
  }
  return QV_OK;
}

qv_status qvsc_nearest_count(qvsc_nearest *n, int64_t *out, qv_error *err) {
  *out = 0;
  if (!n->ran) QV_RETURN_NOT_OK(run(n, err));
  for (int32_t i = n->next_out; i < n->n_out; i++) {
    *out += n->out[i]->num_rows;
    qv_batch_release(n->out[i]);
    n->out[i] = NULL;
  }
  n->rows_returned += *out;
  n->next_out = n->n_out;
  return QV_OK;
}

void qvsc_nearest_counters(const qvsc_nearest *n, qv_scan_counters *out) {
  if (n->pre) qv_scanner_counters(n->pre, out);
  else memset(out, 0, sizeof *out);
  out->rows_returned = n->rows_returned;
  out->nearest_prefilter_rows = n->pre ? n->prefilter_rows : -1;
  out->nearest_distances = n->s.distances;
  out->nearest_partitions_probed = n->s.partitions_probed;
  out->nearest_candidates = n->s.candidates;
  out->nearest_refined = n->s.refined;
  out->nearest_fragments_index = n->s.fragments_index;
  out->nearest_fragments_flat = n->s.fragments_flat;
}

char *qvsc_nearest_explain(const qvsc_nearest *n, bool counters) {
  qvb_text t = {NULL, 0, 0, false};
  const qv_dataset *ds = n->ds;
  qvb_text_f(&t, "Nearest %s version %lld: column %s (dim %d), k %lld, metric %s, %d quer%s, kernels %s\n",
             qv_dataset_path(ds), (long long)qv_dataset_version(ds), n->column, n->dim, (long long)n->k,
             qv_metric_name(n->metric), n->n_queries, n->n_queries == 1 ? "y" : "ies", qv_distance_kernels());
  if (n->ix) {
    int32_t nf = qv_dataset_num_fragments(ds), covered = 0;
    for (int32_t f = 0; f < nf; f++) {
      qv_fragment_info fi;
      qv_dataset_fragment(ds, f, &fi);
      covered += qv_index_covers(n->ix, fi.id);
    }
    qvb_text_f(&t, "  search: index %s (%s, %d partitions", qv_index_name(n->ix),
               qv_index_type_name(qv_index_kind(n->ix)), n->info.num_partitions);
    if (n->info.num_sub_vectors) qvb_text_f(&t, ", %d sub-vectors", n->info.num_sub_vectors);
    qvb_text_f(&t, "), nprobes %d", n->nprobes);
    if (n->info.num_sub_vectors) qvb_text_f(&t, ", refine %d x k by exact distance", n->refine_factor);
    qvb_text_f(&t, "; %d of %d fragment%s covered, the others flat\n", covered, nf, nf == 1 ? "" : "s");
    if (n->pre)
      qvb_text_f(&t, "    a fragment whose admitted rows are under %d/%d of its rows is searched flat (cost)\n",
                 n->nprobes < n->info.num_partitions ? n->nprobes : n->info.num_partitions, n->info.num_partitions);
  } else {
    qvb_text_f(&t, "  search: flat, exact (%s)\n", n->why_flat);
  }
  if (n->pre) {
    qvb_text_f(&t, "  prefilter (exact: evaluated by quiver before the search):\n");
    const char *p = n->pre_explain ? n->pre_explain : "";
    while (*p) { /* the prefilter scan's plan, indented */
      const char *e = strchr(p, '\n');
      size_t len = e ? (size_t)(e - p) : strlen(p);
      qvb_text_f(&t, "    %.*s\n", (int)len, p);
      p += len + (e ? 1 : 0);
    }
  }
  if (n->post) {
    char *ps = qv_expr_to_string(n->post);
    qvb_text_f(&t, "  postfilter (over the ranked rows; fewer than k may remain): %s\n", ps ? ps : "?");
    qv_free(ps);
  }
  if (n->offset > 0) qvb_text_f(&t, "  Offset: %lld\n", (long long)n->offset);
  if (n->limit >= 0) qvb_text_f(&t, "  Limit: %lld\n", (long long)n->limit);
  if (counters && n->ran) {
    qvb_text_f(&t, "Counters:\n");
    if (n->pre) qvb_text_f(&t, "  prefilter rows: %lld\n", (long long)n->prefilter_rows);
    qvb_text_f(&t, "  fragments: %lld by index, %lld flat (%lld by the cost rule)\n", (long long)n->s.fragments_index,
               (long long)n->s.fragments_flat, (long long)n->s.fragments_flat_by_cost);
    if (n->ix)
      qvb_text_f(&t, "  partitions probed: %lld, candidates scored: %lld, refined: %lld\n",
                 (long long)n->s.partitions_probed, (long long)n->s.candidates, (long long)n->s.refined);
    qvb_text_f(&t, "  distances computed: %lld\n", (long long)n->s.distances);
    qvb_text_f(&t, "  rows returned: %lld\n", (long long)n->rows_returned);
  }
  qvb_text_add(&t, "", 0);
  if (t.oom) {
    qvb_text_free(&t);
    return NULL;
  }
  return t.p;
}
