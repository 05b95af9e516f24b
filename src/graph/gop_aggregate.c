/* CypherAggregateExec: grouping and Cypher's aggregate functions over
 * Cypher values.  Groups are found through exec's hash table on the
 * key columns' canonical bytes (equivalent values encode alike, so one
 * group each); each aggregate keeps per-group state in arrays indexed by
 * group id.  Values an aggregate must keep (min / max, collect,
 * percentiles) are kept encoded in one byte buffer per aggregate, and
 * DISTINCT is a second hash table on (group id, value). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/cypher_ops.h"

typedef struct item_ref {
  int64_t off;
  int32_t len;
  int32_t next; /* next item of the group, -1 */
} item_ref;

typedef struct agg_acc {
  qvg_agg_spec spec;
  qvg_colkind kind; /* of the argument column */
  /* per group */
  int64_t *count;
  int64_t *isum;
  double *fsum, *mean, *m2;
  uint8_t *flags;    /* bit 0: saw a float (sum / avg); bit 1: has a best (min / max) */
  int64_t *best_off; /* min / max: offset of the best value in bytes */
  int32_t *best_len;
  int32_t *head, *tail; /* collect / percentiles: the group's items */
  /* shared */
  qv_buffer bytes;
  item_ref *items;
  int64_t n_items, cap_items;
  qvx_hashtab distinct;
  bool has_distinct;
} agg_acc;

typedef struct agg_state {
  int32_t n_keys, n_aggs;
  int32_t *key_cols;
  qvg_colkind *kinds; /* input kinds */
  agg_acc *acc;
  qvx_hashtab groups;
  int64_t n_groups, cap_groups;
  /* the group keys: per key column, the value of the group's first row */
  qv_builder *key_builders;
  bool emitted;
  int64_t accounted;
  qvg_arena arena;
} agg_state;

static qv_status grow(void **p, size_t elem, int64_t cap, qv_error *err) {
  void *n = qv_realloc(*p, (size_t)cap * elem);
  if (!n) return qv_error_nomem(err, "CypherAggregateExec");
  *p = n;
  return QV_OK;
}

static qv_status grow_groups(agg_state *s, int64_t need, qv_error *err) {
  if (need <= s->cap_groups) return QV_OK;
  int64_t cap = s->cap_groups ? 2 * s->cap_groups : 1024;
  while (cap < need) cap *= 2;
  for (int32_t a = 0; a < s->n_aggs; a++) {
    agg_acc *c = &s->acc[a];
    QV_RETURN_NOT_OK(grow((void **)&c->count, sizeof *c->count, cap, err));
    QV_RETURN_NOT_OK(grow((void **)&c->isum, sizeof *c->isum, cap, err));
    QV_RETURN_NOT_OK(grow((void **)&c->fsum, sizeof *c->fsum, cap, err));
    QV_RETURN_NOT_OK(grow((void **)&c->mean, sizeof *c->mean, cap, err));
    QV_RETURN_NOT_OK(grow((void **)&c->m2, sizeof *c->m2, cap, err));
    QV_RETURN_NOT_OK(grow((void **)&c->flags, sizeof *c->flags, cap, err));
    QV_RETURN_NOT_OK(grow((void **)&c->best_off, sizeof *c->best_off, cap, err));
    QV_RETURN_NOT_OK(grow((void **)&c->best_len, sizeof *c->best_len, cap, err));
    QV_RETURN_NOT_OK(grow((void **)&c->head, sizeof *c->head, cap, err));
    QV_RETURN_NOT_OK(grow((void **)&c->tail, sizeof *c->tail, cap, err));
  }
  s->cap_groups = cap;
  return QV_OK;
}

static void init_group(agg_state *s, int64_t g) {
  for (int32_t a = 0; a < s->n_aggs; a++) {
    agg_acc *c = &s->acc[a];
    c->count[g] = c->isum[g] = 0;
    c->fsum[g] = c->mean[g] = c->m2[g] = 0;
    c->flags[g] = 0;
    c->best_off[g] = 0;
    c->best_len[g] = 0;
    c->head[g] = c->tail[g] = -1;
  }
}

/* Appends v's encoding to c->bytes; *off, *len say where. */
static qv_status keep_value(agg_acc *c, const qvg_val *v, int64_t *off, int32_t *len, qv_error *err) {
  *off = c->bytes.size;
  QV_RETURN_NOT_OK(qvg_val_encode(v, &c->bytes, err));
  *len = (int32_t)(c->bytes.size - *off);
  return QV_OK;
}

static qv_status add_item(agg_acc *c, int64_t g, const qvg_val *v, qv_error *err) {
  if (c->n_items == c->cap_items) {
    int64_t cap = c->cap_items ? 2 * c->cap_items : 1024;
    if (cap > INT32_MAX) return qv_error_set(err, QV_ERR_UNSUPPORTED, "CypherAggregateExec: more than 2^31 values");
    QV_RETURN_NOT_OK(grow((void **)&c->items, sizeof *c->items, cap, err));
    c->cap_items = cap;
  }
  item_ref *it = &c->items[c->n_items];
  QV_RETURN_NOT_OK(keep_value(c, v, &it->off, &it->len, err));
  it->next = -1;
  int32_t id = (int32_t)c->n_items++;
  if (c->tail[g] < 0) c->head[g] = id;
  else c->items[c->tail[g]].next = id;
  c->tail[g] = id;
  return QV_OK;
}

static bool is_number(const qvg_val *v) { return v->t == QVG_V_INT || v->t == QVG_V_FLOAT; }
static double as_double(const qvg_val *v) { return v->t == QVG_V_INT ? (double)v->u.i : v->u.f; }

/* One non-null value into group g of aggregate c. */
static qv_status accumulate(agg_state *s, agg_acc *c, int64_t g, const qvg_val *v, qv_error *err) {
  const char *fname = NULL;
  switch (c->spec.fn) {
    case QVG_AGG_COUNT_STAR:
    case QVG_AGG_COUNT: c->count[g]++; return QV_OK;
    case QVG_AGG_SUM:
    case QVG_AGG_AVG:
      fname = c->spec.fn == QVG_AGG_SUM ? "sum" : "avg";
      if (!is_number(v))
        return qv_error_set(err, QV_ERR_TYPE, "cypher: type error: %s() of a %s (it takes numbers)", fname,
                            qvg_vtype_name(v->t));
      c->count[g]++;
      if (v->t == QVG_V_FLOAT || (c->flags[g] & 1)) {
        if (!(c->flags[g] & 1)) {
          c->flags[g] |= 1;
          c->fsum[g] = (double)c->isum[g];
        }
        c->fsum[g] += as_double(v);
      } else if (__builtin_add_overflow(c->isum[g], v->u.i, &c->isum[g])) {
        if (c->spec.fn == QVG_AGG_SUM) return qv_error_set(err, QV_ERR_OVERFLOW, "cypher: integer overflow in sum()");
        /* avg: carry on in floats */
        c->flags[g] |= 1;
        c->fsum[g] = (double)(c->isum[g] - v->u.i) + (double)v->u.i;
      }
      return QV_OK;
    case QVG_AGG_STDEV:
    case QVG_AGG_STDEVP: {
      if (!is_number(v))
        return qv_error_set(err, QV_ERR_TYPE, "cypher: type error: stDev() of a %s (it takes numbers)",
                            qvg_vtype_name(v->t));
      double x = as_double(v);
      c->count[g]++;
      double d = x - c->mean[g];
      c->mean[g] += d / (double)c->count[g];
      c->m2[g] += d * (x - c->mean[g]);
      return QV_OK;
    }
    case QVG_AGG_MIN:
    case QVG_AGG_MAX: {
      if (c->flags[g] & 2) {
        qvg_val best;
        QV_RETURN_NOT_OK(qvg_val_decode(c->bytes.data + c->best_off[g], c->best_len[g], &s->arena, &best, err));
        int o = qvg_val_order(v, &best);
        if (c->spec.fn == QVG_AGG_MIN ? o >= 0 : o <= 0) return QV_OK;
      }
      c->flags[g] |= 2;
      return keep_value(c, v, &c->best_off[g], &c->best_len[g], err);
    }
    case QVG_AGG_PERCENTILE_CONT:
    case QVG_AGG_PERCENTILE_DISC:
      if (!is_number(v))
        return qv_error_set(err, QV_ERR_TYPE, "cypher: type error: percentile of a %s (it takes numbers)",
                            qvg_vtype_name(v->t));
      /* fall through */
    case QVG_AGG_COLLECT: c->count[g]++; return add_item(c, g, v, err);
  }
  return QV_OK;
}

static qv_status consume(qv_exec_op *op, const qv_batch *b, qv_error *err) {
  agg_state *s = op->state;
  int64_t n = b->num_rows;
  qv_array *keys[64];
  qvx_keyset ks;
  memset(&ks, 0, sizeof ks);
  qv_status st = QV_OK;
  int64_t *gids = qv_malloc((size_t)(n > 0 ? n : 1) * sizeof *gids);
  if (!gids) return qv_error_nomem(err, "CypherAggregateExec");
  for (int32_t k = 0; k < s->n_keys; k++) keys[k] = b->columns[s->key_cols[k]];
  if (s->n_keys) st = qvx_keyset_encode(&ks, keys, s->n_keys, n, true, false, err);
  for (int64_t r = 0; r < n && st == QV_OK; r++) {
    int64_t e = 0;
    bool inserted = s->n_groups == 0;
    if (s->n_keys) st = qvx_hashtab_upsert(&s->groups, &ks, r, &e, &inserted, err);
    if (st != QV_OK) break;
    if (inserted) {
      if ((st = grow_groups(s, e + 1, err)) != QV_OK) break;
      init_group(s, e);
      s->n_groups = e + 1;
      for (int32_t k = 0; k < s->n_keys && st == QV_OK; k++)
        st = qv_builder_append_from(&s->key_builders[k], keys[k], r) == QV_OK
                 ? QV_OK
                 : qv_error_nomem(err, "CypherAggregateExec");
    }
    gids[r] = e;
  }
  qvx_keyset_reset(&ks);
  for (int32_t a = 0; a < s->n_aggs && st == QV_OK; a++) {
    agg_acc *c = &s->acc[a];
    if (c->spec.fn == QVG_AGG_COUNT_STAR && c->spec.weight_col >= 0) {
      const qv_array *w = b->columns[c->spec.weight_col];
      const int64_t *wv = qv_array_values(w);
      for (int64_t r = 0; r < n && st == QV_OK; r++)
        if (qv_array_is_valid(w, r) && __builtin_add_overflow(c->count[gids[r]], wv[r], &c->count[gids[r]]))
          st = qv_error_set(err, QV_ERR_OVERFLOW, "cypher: integer overflow in count(*)");
      continue;
    }
    if (c->spec.fn == QVG_AGG_COUNT_STAR) {
      for (int64_t r = 0; r < n; r++) c->count[gids[r]]++;
      continue;
    }
    const qv_array *arg = b->columns[c->spec.arg_col];
    qvx_keyset dk;
    memset(&dk, 0, sizeof dk);
    if (c->spec.distinct) {
      /* (group, value) pairs: the group id as an int64 column before the value */
      qv_builder gb;
      qv_datatype i64 = qv_datatype_simple(QV_TYPE_INT64);
      qv_array *garr = NULL;
      st = qv_builder_init(&gb, &i64, err);
      for (int64_t r = 0; r < n && st == QV_OK; r++) st = qv_builder_append_int(&gb, gids[r]);
      if (st == QV_OK) st = qv_builder_finish(&gb, &garr, err);
      else qv_builder_reset(&gb);
      qv_array *cols[2] = {garr, (qv_array *)arg};
      if (st == QV_OK) st = qvx_keyset_encode(&dk, cols, 2, n, true, false, err);
      qv_array_release(garr);
    }
    for (int64_t r = 0; r < n && st == QV_OK; r++) {
      if (!qv_array_is_valid(arg, r)) continue;
      if (c->spec.distinct) {
        int64_t e;
        bool inserted;
        if ((st = qvx_hashtab_upsert(&c->distinct, &dk, r, &e, &inserted, err)) != QV_OK || !inserted) continue;
      }
      qvg_val v;
      if ((st = qvg_val_from_array(arg, s->kinds[c->spec.arg_col], r, &s->arena, &v, err)) != QV_OK) break;
      if (v.t != QVG_V_NULL) st = accumulate(s, c, gids[r], &v, err);
    }
    qvx_keyset_reset(&dk);
    qvg_arena_clear(&s->arena);
  }
  qv_free(gids);
  return st;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* The aggregate's value for group g. */
static qv_status result(agg_state *s, agg_acc *c, int64_t g, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  switch (c->spec.fn) {
    case QVG_AGG_COUNT_STAR:
    case QVG_AGG_COUNT: *out = qvg_int(c->count[g]); return QV_OK;
    case QVG_AGG_SUM: *out = (c->flags[g] & 1) ? qvg_float(c->fsum[g]) : qvg_int(c->isum[g]); return QV_OK;
    case QVG_AGG_AVG:
      if (c->count[g]) *out = qvg_float(((c->flags[g] & 1) ? c->fsum[g] : (double)c->isum[g]) / (double)c->count[g]);
      return QV_OK;
    case QVG_AGG_STDEV:
    case QVG_AGG_STDEVP: {
      int64_t k = c->count[g];
      if (c->spec.fn == QVG_AGG_STDEV) *out = qvg_float(k < 2 ? 0.0 : sqrt(c->m2[g] / (double)(k - 1)));
      else *out = qvg_float(k < 1 ? 0.0 : sqrt(c->m2[g] / (double)k));
      return QV_OK;
    }
    case QVG_AGG_MIN:
    case QVG_AGG_MAX:
      if (c->flags[g] & 2) return qvg_val_decode(c->bytes.data + c->best_off[g], c->best_len[g], &s->arena, out, err);
      return QV_OK;
    case QVG_AGG_COLLECT: {
      int64_t k = c->count[g];
      qvg_val *items = qvg_arena_alloc(&s->arena, (size_t)(k ? k : 1) * sizeof *items);
      if (!items) return qv_error_nomem(err, "CypherAggregateExec");
      int64_t i = 0;
      for (int32_t id = c->head[g]; id >= 0 && i < k; id = c->items[id].next, i++)
        QV_RETURN_NOT_OK(qvg_val_decode(c->bytes.data + c->items[id].off, c->items[id].len, &s->arena, &items[i], err));
      out->t = QVG_V_LIST;
      out->n = (int32_t)i;
      out->u.l = items;
      return QV_OK;
    }
    case QVG_AGG_PERCENTILE_CONT:
    case QVG_AGG_PERCENTILE_DISC: {
      int64_t k = c->count[g];
      if (!k) return QV_OK;
      double *x = qv_malloc((size_t)k * sizeof *x);
      bool all_int = true;
      if (!x) return qv_error_nomem(err, "CypherAggregateExec");
      int64_t i = 0;
      for (int32_t id = c->head[g]; id >= 0 && i < k; id = c->items[id].next) {
        qvg_val v;
        qv_status st = qvg_val_decode(c->bytes.data + c->items[id].off, c->items[id].len, &s->arena, &v, err);
        if (st != QV_OK) {
          qv_free(x);
          return st;
        }
        all_int &= v.t == QVG_V_INT;
        x[i++] = as_double(&v);
      }
      qsort(x, (size_t)i, sizeof *x, cmp_double);
      double pct = c->spec.percentile;
      if (c->spec.fn == QVG_AGG_PERCENTILE_DISC) {
        int64_t idx = pct <= 0 ? 0 : (int64_t)ceil(pct * (double)i) - 1;
        if (idx < 0) idx = 0;
        if (idx >= i) idx = i - 1;
        *out = all_int ? qvg_int((int64_t)x[idx]) : qvg_float(x[idx]);
      } else {
        double pos = pct * (double)(i - 1);
        int64_t lo = (int64_t)floor(pos), hi = (int64_t)ceil(pos);
        *out = qvg_float(x[lo] + (x[hi] - x[lo]) * (pos - (double)lo));
      }
      qv_free(x);
      return QV_OK;
    }
  }
  return QV_OK;
}

static int64_t state_bytes(const agg_state *s) {
  int64_t n = qvx_hashtab_bytes(&s->groups) + s->cap_groups * s->n_aggs * 70;
  for (int32_t a = 0; a < s->n_aggs; a++) {
    n += s->acc[a].bytes.capacity + s->acc[a].cap_items * (int64_t)sizeof(item_ref);
    if (s->acc[a].has_distinct) n += qvx_hashtab_bytes(&s->acc[a].distinct);
  }
  for (int32_t k = 0; k < s->n_keys; k++) n += s->key_builders[k].values.capacity + s->key_builders[k].data.capacity;
  return n;
}

static qv_status agg_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  agg_state *s = op->state;
  if (s->emitted) return QV_OK;
  for (;;) {
    qv_batch *b = NULL;
    QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &b, err));
    if (!b) break;
    qv_status st = consume(op, b, err);
    qv_batch_release(b);
    if (st != QV_OK) return st;
    int64_t now = state_bytes(s);
    QV_RETURN_NOT_OK(qvx_reserve(op, now - s->accounted, "its groups and aggregate state", err));
    s->accounted = now;
  }
  s->emitted = true;
  if (s->n_keys == 0 && s->n_groups == 0) {
    QV_RETURN_NOT_OK(grow_groups(s, 1, err));
    init_group(s, 0);
    s->n_groups = 1;
  }
  if (s->n_keys > 0 && s->n_groups == 0) return QV_OK;
  int32_t nc = s->n_keys + s->n_aggs;
  qv_array **cols = qv_calloc((size_t)(nc ? nc : 1), sizeof *cols);
  if (!cols) return qv_error_nomem(err, "CypherAggregateExec");
  qv_status st = QV_OK;
  for (int32_t k = 0; k < s->n_keys && st == QV_OK; k++) st = qv_builder_finish(&s->key_builders[k], &cols[k], err);
  for (int32_t a = 0; a < s->n_aggs && st == QV_OK; a++) {
    qv_builder b;
    qv_datatype bin = qv_datatype_simple(QV_TYPE_BINARY);
    if ((st = qv_builder_init(&b, &bin, err)) != QV_OK) break;
    for (int64_t g = 0; g < s->n_groups && st == QV_OK; g++) {
      qvg_val v;
      st = result(s, &s->acc[a], g, &v, err);
      if (st == QV_OK) st = qvg_val_append(&b, QVG_COL_VALUE, &v, err);
      if ((g & 1023) == 1023) qvg_arena_clear(&s->arena);
    }
    if (st == QV_OK) st = qv_builder_finish(&b, &cols[s->n_keys + a], err);
    else qv_builder_reset(&b);
  }
  if (st == QV_OK) st = qv_batch_make(&op->schema, cols, s->n_groups, out, err);
  else
    for (int32_t i = 0; i < nc; i++) qv_array_release(cols[i]);
  qv_free(cols);
  qvg_arena_clear(&s->arena);
  return st;
}

static void agg_free(qv_exec_op *op) {
  agg_state *s = op->state;
  if (!s) return;
  for (int32_t a = 0; a < s->n_aggs && s->acc; a++) {
    agg_acc *c = &s->acc[a];
    qv_free(c->count);
    qv_free(c->isum);
    qv_free(c->fsum);
    qv_free(c->mean);
    qv_free(c->m2);
    qv_free(c->flags);
    qv_free(c->best_off);
    qv_free(c->best_len);
    qv_free(c->head);
    qv_free(c->tail);
    qv_free(c->items);
    qv_buffer_reset(&c->bytes);
    if (c->has_distinct) qvx_hashtab_reset(&c->distinct);
  }
  for (int32_t k = 0; k < s->n_keys && s->key_builders; k++) qv_builder_reset(&s->key_builders[k]);
  qvx_hashtab_reset(&s->groups);
  qvg_arena_free(&s->arena);
  qv_free(s->acc);
  qv_free(s->key_builders);
  qv_free(s->key_cols);
  qv_free(s->kinds);
  qv_free(s);
}

static const char *agg_name(qvg_agg fn) {
  static const char *const names[] = {"count(*)",      "count",   "sum",   "avg",    "min",
                                      "max",           "collect", "stDev", "stDevP", "percentileCont",
                                      "percentileDisc"};
  return (unsigned)fn < sizeof names / sizeof *names ? names[fn] : "?";
}

static void agg_explain(const qv_exec_op *op, qvb_text *t) {
  const agg_state *s = op->state;
  const qv_schema *in = qv_exec_schema(op->children[0]);
  qvb_text_s(t, "gby=[");
  for (int32_t k = 0; k < s->n_keys; k++) qvb_text_f(t, "%s%s", k ? ", " : "", in->fields[s->key_cols[k]].name);
  qvb_text_s(t, "], aggr=[");
  for (int32_t a = 0; a < s->n_aggs; a++) {
    const qvg_agg_spec *sp = &s->acc[a].spec;
    if (a) qvb_text_s(t, ", ");
    if (sp->fn == QVG_AGG_COUNT_STAR && sp->weight_col >= 0)
      qvb_text_f(t, "count(*) as sum(%s)", in->fields[sp->weight_col].name);
    else if (sp->fn == QVG_AGG_COUNT_STAR) qvb_text_s(t, "count(*)");
    else qvb_text_f(t, "%s(%s%s)", agg_name(sp->fn), sp->distinct ? "DISTINCT " : "", in->fields[sp->arg_col].name);
  }
  qvb_text_s(t, "]");
}

static void agg_metrics(const qv_exec_op *op, qvb_text *t) {
  const agg_state *s = op->state;
  qvb_text_f(t, ", groups=%lld", (long long)s->n_groups);
}

static const qvx_op_vt agg_vt = {"CypherAggregateExec", NULL, agg_next, NULL, agg_free, agg_explain, agg_metrics};

qv_status qvg_op_aggregate(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_colkind *in_kinds, const int32_t *key_cols,
                           int32_t n_keys, const qvg_agg_spec *aggs, int32_t n_aggs, qv_exec_op **out, qv_error *err) {
  *out = NULL;
  const qv_schema *in = qv_exec_schema(child);
  agg_state *s = qv_calloc(1, sizeof *s);
  qv_status st = QV_OK;
  if (!s || n_keys > 64) {
    qv_free(s);
    qv_exec_destroy(child);
    return n_keys > 64 ? qv_error_set(err, QV_ERR_UNSUPPORTED, "CypherAggregateExec: more than 64 grouping keys")
                       : qv_error_nomem(err, "CypherAggregateExec");
  }
  s->n_keys = n_keys;
  s->n_aggs = n_aggs;
  s->arena = (qvg_arena)QVG_ARENA_INIT;
  s->key_cols = qv_calloc((size_t)(n_keys ? n_keys : 1), sizeof *s->key_cols);
  s->kinds = qv_calloc((size_t)(in->n_fields ? in->n_fields : 1), sizeof *s->kinds);
  s->acc = qv_calloc((size_t)(n_aggs ? n_aggs : 1), sizeof *s->acc);
  s->key_builders = qv_calloc((size_t)(n_keys ? n_keys : 1), sizeof *s->key_builders);
  if (!s->key_cols || !s->kinds || !s->acc || !s->key_builders) st = qv_error_nomem(err, "CypherAggregateExec");
  if (st == QV_OK) {
    if (in->n_fields) memcpy(s->kinds, in_kinds, (size_t)in->n_fields * sizeof *s->kinds);
    if (n_keys) memcpy(s->key_cols, key_cols, (size_t)n_keys * sizeof *key_cols);
    st = qvx_hashtab_init(&s->groups, false, err);
  }
  for (int32_t k = 0; k < n_keys && st == QV_OK; k++) {
    if (key_cols[k] < 0 || key_cols[k] >= in->n_fields)
      st = qv_error_set(err, QV_ERR_INVALID, "CypherAggregateExec: key column %d out of range", (int)key_cols[k]);
    else st = qv_builder_init(&s->key_builders[k], &in->fields[key_cols[k]].type, err);
  }
  for (int32_t a = 0; a < n_aggs && st == QV_OK; a++) {
    s->acc[a].spec = aggs[a];
    if (aggs[a].fn == QVG_AGG_COUNT_STAR && aggs[a].weight_col >= in->n_fields)
      st = qv_error_set(err, QV_ERR_INVALID, "CypherAggregateExec: weight column %d out of range",
                        (int)aggs[a].weight_col);
    if (aggs[a].fn != QVG_AGG_COUNT_STAR && (aggs[a].arg_col < 0 || aggs[a].arg_col >= in->n_fields))
      st = qv_error_set(err, QV_ERR_INVALID, "CypherAggregateExec: argument column %d out of range",
                        (int)aggs[a].arg_col);
    if (st == QV_OK && aggs[a].distinct && aggs[a].fn != QVG_AGG_COUNT_STAR) {
      st = qvx_hashtab_init(&s->acc[a].distinct, false, err);
      s->acc[a].has_distinct = st == QV_OK;
    }
  }
  qv_exec_op *op = NULL;
  if (st != QV_OK) {
    qv_exec_op tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.state = s;
    agg_free(&tmp);
    qv_exec_destroy(child);
    return st;
  }
  QV_RETURN_NOT_OK(qvx_op_new(&agg_vt, ctx, &child, 1, s, &op, err));
  for (int32_t k = 0; k < n_keys && st == QV_OK; k++) st = qv_schema_add(&op->schema, &in->fields[key_cols[k]], err);
  for (int32_t a = 0; a < n_aggs && st == QV_OK; a++) {
    qv_field f;
    qv_datatype bin = qv_datatype_simple(QV_TYPE_BINARY);
    st = qv_field_init(&f, aggs[a].name, &bin, true, err);
    if (st == QV_OK) {
      st = qv_schema_add(&op->schema, &f, err);
      qv_field_reset(&f);
    }
  }
  if (st != QV_OK) {
    qv_exec_destroy(op);
    return st;
  }
  *out = op;
  return QV_OK;
}
