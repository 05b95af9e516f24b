/* SortExec and TopKExec.  SortExec holds its whole input, joined into one
 * batch, and a permutation of it (counted against the memory limit), then
 * yields the permuted rows in batch_size pieces.  TopKExec holds at most k
 * rows (the best so far, in order) plus one input batch: a max-heap of k
 * candidate rows, worst on top, decides which survive each batch.  Both
 * are stable: ties keep their input order. */
#include <math.h>
#include <string.h>

#include "exec/exec_int.h"

typedef struct sort_state {
  int32_t n_keys;
  qv_sort_key *keys; /* names owned */
  int32_t *cols;     /* column per key */
  int64_t k;         /* TopK; -1 for SortExec */
  qv_batch *sorted;
  int64_t out_row;
} sort_state;

/* The key columns of one batch. */
typedef struct keycols {
  qv_array *a[64];
  const void *v[64];
} keycols;

static qv_status keycols_of(const sort_state *s, const qv_batch *b, keycols *kc, qv_error *err) {
  for (int32_t i = 0; i < s->n_keys; i++) {
    qv_status st = qvx_plain(b->columns[s->cols[i]], &kc->a[i], err);
    if (st != QV_OK) {
      for (int32_t j = 0; j < i; j++) qv_array_release(kc->a[j]);
      return st;
    }
    int w = qv_type_byte_width(kc->a[i]->type.id);
    kc->v[i] = w > 0 && kc->a[i]->type.id != QV_TYPE_NULL ? qv_array_values(kc->a[i]) : NULL;
  }
  return QV_OK;
}

static void keycols_reset(const sort_state *s, keycols *kc) {
  for (int32_t i = 0; i < s->n_keys; i++) qv_array_release(kc->a[i]);
}

static inline int cmp3(bool lt, bool gt) { return lt ? -1 : gt ? 1 : 0; }

/* Rows a and b of the same key columns. */
static int compare_rows(const sort_state *s, const keycols *kc, int64_t a, int64_t b) {
  for (int32_t i = 0; i < s->n_keys; i++) {
    const qv_array *x = kc->a[i];
    if (x->type.id == QV_TYPE_NULL) continue;
    bool na = !qv_array_is_valid(x, a), nb = !qv_array_is_valid(x, b);
    if (na || nb) {
      if (na && nb) continue;
      int c = na ? 1 : -1; /* nulls last ... */
      return s->keys[i].nulls_first ? -c : c;
    }
    int c = 0;
    const void *v = kc->v[i];
    switch (x->type.id) {
      case QV_TYPE_FLOAT32:
      case QV_TYPE_FLOAT64: {
        double p = qvx_load_float(x, v, a), q = qvx_load_float(x, v, b);
        bool pn = isnan(p), qn = isnan(q);
        c = pn || qn ? cmp3(!pn && qn, pn && !qn) : cmp3(p<q, p> q);
        break;
      }
      case QV_TYPE_UINT64: {
        uint64_t p = ((const uint64_t *)v)[a], q = ((const uint64_t *)v)[b];
        c = cmp3(p<q, p> q);
        break;
      }
      case QV_TYPE_BOOL: {
        bool p = qv_bit_get(x->buffers[1]->data, x->offset + a), q = qv_bit_get(x->buffers[1]->data, x->offset + b);
        c = cmp3(!p && q, p && !q);
        break;
      }
      case QV_TYPE_STRING:
      case QV_TYPE_BINARY: {
        int32_t la, lb;
        const uint8_t *p = qv_array_str(x, a, &la), *q = qv_array_str(x, b, &lb);
        int m = memcmp(p, q, (size_t)(la < lb ? la : lb));
        c = m ? (m < 0 ? -1 : 1) : cmp3(la<lb, la> lb);
        break;
      }
      case QV_TYPE_DECIMAL128: {
        const uint8_t *base = v;
        qv_int128 p, q;
        memcpy(&p, base + 16 * a, 16);
        memcpy(&q, base + 16 * b, 16);
        c = cmp3(p<q, p> q);
        break;
      }
      default: {
        int64_t p = qvx_load_int(x, v, a), q = qvx_load_int(x, v, b);
        c = cmp3(p<q, p> q);
      }
    }
    if (c) return s->keys[i].descending ? -c : c;
  }
  return 0;
}

/* Stable merge sort of idx[0..n) (tmp has room for n). */
static void merge_sort(const sort_state *s, const keycols *kc, uint32_t *idx, uint32_t *tmp, int64_t n) {
  for (int64_t i = 1; i < n; i += 2) /* pairs first */
    if (compare_rows(s, kc, idx[i - 1], idx[i]) > 0) {
      uint32_t t = idx[i];
      idx[i] = idx[i - 1];
      idx[i - 1] = t;
    }
  uint32_t *src = idx, *dst = tmp;
  for (int64_t w = 2; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, o = lo;
      while (i < mid && j < hi) dst[o++] = compare_rows(s, kc, src[j], src[i]) < 0 ? src[j++] : src[i++];
      while (i < mid) dst[o++] = src[i++];
      while (j < hi) dst[o++] = src[j++];
    }
    uint32_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != idx) memcpy(idx, src, (size_t)n * sizeof *idx);
}

/* One integer-class or float key: each row's value as a uint64 whose
 * unsigned order is the key's order (descending flips the bits), sorted by
 * a stable LSD radix sort of (key, row) pairs; null rows go in front or
 * behind in input order.  False when the key is of another type. */
typedef struct radix_item {
  uint64_t key;
  uint32_t row;
} radix_item;

static uint64_t float_key(double d) {
  if (isnan(d)) d = NAN; /* every NaN one value, above +inf */
  if (d == 0) d = 0;     /* -0.0 ties with 0.0 */
  uint64_t u;
  memcpy(&u, &d, 8);
  return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static qv_status radix_sort(const sort_state *s, const keycols *kc, uint32_t *idx, int64_t n, bool *done,
                            qv_error *err) {
  *done = false;
  const qv_array *x = kc->a[0];
  qv_type_id id = x->type.id;
  bool is_float = qv_type_is_floating(id);
  if (s->n_keys != 1 || id == QV_TYPE_NULL || (!is_float && !qvx_key_type_int(&x->type))) return QV_OK;
  radix_item *a = qv_malloc((size_t)(n > 0 ? n : 1) * sizeof *a), *b = qv_malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
  if (!a || !b) {
    qv_free(a);
    qv_free(b);
    return qv_error_nomem(err, "SortExec");
  }
  const void *v = kc->v[0];
  uint64_t flip = s->keys[0].descending ? ~UINT64_C(0) : 0;
  bool sign = id != QV_TYPE_UINT64 && id != QV_TYPE_UINT32 && id != QV_TYPE_UINT16 && id != QV_TYPE_UINT8;
  int64_t m = 0, nulls = 0;
  for (int64_t i = 0; i < n; i++) {
    uint32_t r = idx[i];
    if (!qv_array_is_valid(x, r)) {
      idx[nulls++] = r; /* idx[0..i) is already read: nulls compact in front */
      continue;
    }
    uint64_t key = is_float ? float_key(qvx_load_float(x, v, r))
                            : (uint64_t)qvx_load_int(x, v, r) ^ (sign ? UINT64_C(1) << 63 : 0);
    a[m].key = key ^ flip;
    a[m].row = r;
    m++;
  }
  size_t counts[256];
  for (int shift = 0; shift < 64; shift += 8) {
    memset(counts, 0, sizeof counts);
    for (int64_t i = 0; i < m; i++) counts[(a[i].key >> shift) & 0xff]++;
    bool one = false;
    for (int c = 0; c < 256; c++) one |= counts[c] == (size_t)m;
    if (one) continue; /* every key has this byte: the pass changes nothing */
    size_t sum = 0;
    for (int c = 0; c < 256; c++) {
      size_t k = counts[c];
      counts[c] = sum;
      sum += k;
    }
    for (int64_t i = 0; i < m; i++) b[counts[(a[i].key >> shift) & 0xff]++] = a[i];
    radix_item *t = a;
    a = b;
    b = t;
  }
  /* nulls sit in idx[0..nulls); the values go after or before them */
  if (s->keys[0].nulls_first) {
    for (int64_t i = 0; i < m; i++) idx[nulls + i] = a[i].row;
  } else {
    memmove(idx + m, idx, (size_t)nulls * sizeof *idx);
    for (int64_t i = 0; i < m; i++) idx[i] = a[i].row;
  }
  qv_free(a);
  qv_free(b);
  *done = true;
  return QV_OK;
}

/* The rows of b sorted. */
static qv_status sort_batch(const sort_state *s, const qv_batch *b, const uint32_t *only, int64_t n_only,
                            qv_batch **out, qv_error *err) {
  int64_t n = only ? n_only : b->num_rows;
  if (n > UINT32_MAX) return qv_error_set(err, QV_ERR_UNSUPPORTED, "SortExec: more than 2^32 rows");
  keycols kc;
  QV_RETURN_NOT_OK(keycols_of(s, b, &kc, err));
  uint32_t *idx = qv_malloc((size_t)(n > 0 ? n : 1) * sizeof *idx), *tmp = qv_malloc((size_t)(n > 0 ? n : 1) * 4);
  qv_status st = QV_OK;
  if (!idx || !tmp) st = qv_error_nomem(err, "SortExec");
  else {
    for (int64_t i = 0; i < n; i++) idx[i] = only ? only[i] : (uint32_t)i;
    bool done;
    st = radix_sort(s, &kc, idx, n, &done, err);
    if (st == QV_OK && !done) merge_sort(s, &kc, idx, tmp, n);
    if (st == QV_OK) st = qvx_batch_take(b, idx, n, out, err);
  }
  qv_free(idx);
  qv_free(tmp);
  keycols_reset(s, &kc);
  return st;
}

static qv_status sort_open(qv_exec_op *op, qv_error *err) {
  sort_state *s = op->state;
  qv_batch **parts = NULL, *all = NULL;
  int32_t n = 0, cap = 0;
  qv_status st = QV_OK;
  int64_t held = 0;
  for (;;) {
    qv_batch *b = NULL;
    st = qv_exec_next(op->children[0], &b, err);
    if (st != QV_OK || !b) break;
    held += qvx_batch_bytes(b);
    st = qvx_reserve(op, qvx_batch_bytes(b), "buffered input", err);
    if (st == QV_OK && n == cap) {
      cap = cap ? cap * 2 : 16;
      qv_batch **np = qv_realloc(parts, (size_t)cap * sizeof *np);
      if (!np) st = qv_error_nomem(err, "SortExec");
      else parts = np;
    }
    if (st != QV_OK) {
      qv_batch_release(b);
      break;
    }
    parts[n++] = b;
  }
  if (st == QV_OK) st = qvx_batch_concat(&op->schema, parts, n, &all, err);
  for (int32_t i = 0; i < n; i++) qv_batch_release(parts[i]);
  qv_free(parts);
  if (st != QV_OK) return st;
  /* the joined copy replaced the parts; the permutation and the sorted
   * copy come on top of it until it is released */
  int64_t bytes = qvx_batch_bytes(all), perm = all->num_rows * 8;
  st = qvx_reserve(op, bytes - held + perm + bytes, "buffered input", err);
  if (st == QV_OK) st = sort_batch(s, all, NULL, 0, &s->sorted, err);
  qv_batch_release(all);
  if (st == QV_OK) st = qvx_reserve(op, -(bytes + perm), "buffered input", err);
  return st;
}

/* ---- TopK --------------------------------------------------------------- */

typedef struct heap {
  const sort_state *s;
  const keycols *kc;
  uint32_t *h;
  int64_t n;
} heap;

/* worse: later in the stable order (the index breaks ties) */
static bool worse(const heap *hp, uint32_t a, uint32_t b) {
  int c = compare_rows(hp->s, hp->kc, a, b);
  return c > 0 || (c == 0 && a > b);
}

static void sift_down(heap *hp, int64_t i) {
  for (;;) {
    int64_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < hp->n && worse(hp, hp->h[l], hp->h[m])) m = l;
    if (r < hp->n && worse(hp, hp->h[r], hp->h[m])) m = r;
    if (m == i) return;
    uint32_t t = hp->h[i];
    hp->h[i] = hp->h[m];
    hp->h[m] = t;
    i = m;
  }
}

static void sift_up(heap *hp, int64_t i) {
  while (i > 0) {
    int64_t p = (i - 1) / 2;
    if (!worse(hp, hp->h[i], hp->h[p])) return;
    uint32_t t = hp->h[i];
    hp->h[i] = hp->h[p];
    hp->h[p] = t;
    i = p;
  }
}

/* The best k rows of kept (sorted) followed by b, sorted. */
static qv_status topk_merge(qv_exec_op *op, qv_batch *b, qv_error *err) {
  sort_state *s = op->state;
  qv_batch *cand = NULL;
  qv_status st;
  if (s->sorted) {
    qv_batch *two[2] = {s->sorted, b};
    st = qvx_batch_concat(&op->schema, two, 2, &cand, err);
    if (st != QV_OK) return st;
  } else cand = qv_batch_retain(b);
  keycols kc;
  st = keycols_of(s, cand, &kc, err);
  if (st != QV_OK) {
    qv_batch_release(cand);
    return st;
  }
  int64_t k = s->k < cand->num_rows ? s->k : cand->num_rows;
  heap hp = {s, &kc, qv_malloc((size_t)(k > 0 ? k : 1) * sizeof(uint32_t)), 0};
  if (!hp.h) st = qv_error_nomem(err, "TopKExec");
  for (int64_t i = 0; i < cand->num_rows && st == QV_OK; i++) {
    if (hp.n < k) {
      hp.h[hp.n++] = (uint32_t)i;
      sift_up(&hp, hp.n - 1);
    } else if (k > 0 && worse(&hp, hp.h[0], (uint32_t)i)) {
      hp.h[0] = (uint32_t)i;
      sift_down(&hp, 0);
    }
  }
  qv_batch *next = NULL;
  if (st == QV_OK) {
    /* popping the worst first fills the order from the back */
    uint32_t *order = qv_malloc((size_t)(k > 0 ? k : 1) * sizeof *order);
    if (!order) st = qv_error_nomem(err, "TopKExec");
    for (int64_t at = k - 1; st == QV_OK && at >= 0; at--) {
      order[at] = hp.h[0];
      hp.h[0] = hp.h[--hp.n];
      sift_down(&hp, 0);
    }
    if (st == QV_OK) st = qvx_batch_take(cand, order, k, &next, err);
    qv_free(order);
  }
  qv_free(hp.h);
  keycols_reset(s, &kc);
  qv_batch_release(cand);
  if (st != QV_OK) return st;
  int64_t before = s->sorted ? qvx_batch_bytes(s->sorted) : 0;
  qv_batch_release(s->sorted);
  s->sorted = next;
  return qvx_reserve(op, qvx_batch_bytes(next) - before, "the top k rows", err);
}

static qv_status topk_open(qv_exec_op *op, qv_error *err) {
  sort_state *s = op->state;
  for (;;) {
    qv_batch *b = NULL;
    QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &b, err));
    if (!b) return QV_OK;
    qv_status st = s->k > 0 ? topk_merge(op, b, err) : QV_OK;
    qv_batch_release(b);
    QV_RETURN_NOT_OK(st);
  }
}

/* ---- both ----------------------------------------------------------------- */

static qv_status sort_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  sort_state *s = op->state;
  if (!s->sorted || s->out_row >= s->sorted->num_rows) return QV_OK;
  int64_t bs = op->ctx->batch_size, left = s->sorted->num_rows - s->out_row;
  int64_t n = left < bs ? left : bs;
  if (s->out_row == 0 && n == s->sorted->num_rows) *out = qv_batch_retain(s->sorted);
  else QV_RETURN_NOT_OK(qv_batch_slice(s->sorted, s->out_row, n, out, err));
  s->out_row += n;
  return QV_OK;
}

static void sort_close(qv_exec_op *op) {
  sort_state *s = op->state;
  qv_batch_release(s->sorted);
  s->sorted = NULL;
}

static void sort_free(qv_exec_op *op) {
  sort_state *s = op->state;
  if (!s) return;
  sort_close(op);
  for (int32_t i = 0; i < s->n_keys; i++) qv_free(s->keys ? (char *)s->keys[i].column : NULL);
  qv_free(s->keys);
  qv_free(s->cols);
  qv_free(s);
}

static void sort_explain(const qv_exec_op *op, qvb_text *t) {
  const sort_state *s = op->state;
  if (s->k >= 0) qvb_text_f(t, "fetch=%lld, ", (long long)s->k);
  qvb_text_s(t, "expr=[");
  for (int32_t i = 0; i < s->n_keys; i++)
    qvb_text_f(t, "%s%s %s NULLS %s", i ? ", " : "", s->keys[i].column, s->keys[i].descending ? "DESC" : "ASC",
               s->keys[i].nulls_first ? "FIRST" : "LAST");
  qvb_text_s(t, "]");
}

static const qvx_op_vt sort_vt = {"SortExec", sort_open, sort_next, sort_close, sort_free, sort_explain, NULL};
static const qvx_op_vt topk_vt = {"TopKExec", topk_open, sort_next, sort_close, sort_free, sort_explain, NULL};

static bool sortable(const qv_datatype *t) {
  if (t->id == QV_TYPE_DICTIONARY && t->n_children == 2) t = &t->children[1].type;
  return qvx_key_type_ok(t);
}

static qv_status make(const qvx_op_vt *vt, qv_exec_ctx *ctx, qv_exec_op *child, const qv_sort_key *keys, int32_t n_keys,
                      int64_t k, qv_exec_op **out, qv_error *err) {
  *out = NULL;
  sort_state *s = qv_calloc(1, sizeof *s);
  if (!s) {
    qv_exec_destroy(child);
    return qv_error_nomem(err, vt->name);
  }
  s->k = k;
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(vt, ctx, &child, 1, s, &op, err));
  qv_status st = QV_OK;
  if (n_keys < 1 || n_keys > 64) {
    st = qv_error_set(err, QV_ERR_INVALID, "%s: 1..64 sort keys", vt->name);
    goto done;
  }
  s->keys = qv_calloc((size_t)n_keys, sizeof *s->keys);
  s->cols = qv_calloc((size_t)n_keys, sizeof *s->cols);
  if (!s->keys || !s->cols || qv_schema_copy(&child->schema, &op->schema) != QV_OK) {
    st = qv_error_nomem(err, vt->name);
    goto done;
  }
  for (int32_t i = 0; i < n_keys; i++) {
    s->keys[i] = keys[i];
    s->keys[i].column = keys[i].column ? qv_strdup(keys[i].column) : NULL;
    s->n_keys = i + 1;
    if (!s->keys[i].column) {
      st = keys[i].column ? qv_error_nomem(err, vt->name)
                          : qv_error_set(err, QV_ERR_INVALID, "%s: sort key %d has no column", vt->name, i);
      goto done;
    }
    s->cols[i] = qv_schema_find(&child->schema, keys[i].column);
    if (s->cols[i] < 0) {
      st = qv_error_set(err, QV_ERR_NOT_FOUND, "%s: no column `%s`", vt->name, keys[i].column);
      goto done;
    }
    if (!sortable(&child->schema.fields[s->cols[i]].type)) {
      st =
          qv_error_set(err, QV_ERR_TYPE, "%s: column `%s` has a type that cannot be ordered", vt->name, keys[i].column);
      goto done;
    }
  }
  op->estimate_rows = child->estimate_rows;
  if (k >= 0 && (op->estimate_rows < 0 || op->estimate_rows > k)) op->estimate_rows = k;
done:
  if (st != QV_OK) {
    qv_exec_destroy(op);
    return st;
  }
  *out = op;
  return QV_OK;
}

qv_status qv_exec_sort(qv_exec_ctx *ctx, qv_exec_op *child, const qv_sort_key *keys, int32_t n_keys, qv_exec_op **out,
                       qv_error *err) {
  return make(&sort_vt, ctx, child, keys, n_keys, -1, out, err);
}

qv_status qv_exec_topk(qv_exec_ctx *ctx, qv_exec_op *child, const qv_sort_key *keys, int32_t n_keys, int64_t k,
                       qv_exec_op **out, qv_error *err) {
  if (k < 0) {
    qv_exec_destroy(child);
    return qv_error_set(err, QV_ERR_INVALID, "TopKExec: k must be >= 0");
  }
  return make(&topk_vt, ctx, child, keys, n_keys, k, out, err);
}
