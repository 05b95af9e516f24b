/* HashAggregateExec.  Holds, per partition, the table of distinct group
 * keys (keys.c), each group's key values (builders) and every aggregate's
 * state: counts and sums per group, the current min/max (strings in an
 * arena), the distinct (group key, value) sets, and for collect the
 * argument arrays and (group, array, row) entries; all of it counted
 * against the memory limit after each round of input.
 *
 * A round is up to `threads` input batches.  Phase one (a task per batch)
 * evaluates the key and argument expressions, encodes and hashes the keys
 * and splits the rows by hash into partitions; phase two (a task per
 * partition) folds each partition's rows into its own table, so no two
 * workers touch the same group and nothing needs merging.  Groups come
 * out partition by partition, each in first-seen order. */
#include <math.h>
#include <string.h>

#include "base/pool.h"
#include "exec/exec_int.h"
#include "quiver/compute.h"

/* V_OTHER (decimal, lists, structs...) is counted and collected only */
enum vkind { V_NULL, V_INT, V_UINT, V_FLOAT, V_BOOL, V_BYTES, V_OTHER };

typedef struct agg_acc {
  int64_t *cnt; /* count, or values seen */
  int64_t *i;   /* integer sum / min / max */
  double *f;    /* float sum, avg sum, float min / max */
  int64_t *soff;
  int32_t *slen;
  qv_buffer arena; /* string min / max */
  int64_t live;
  qvx_hashtab distinct;
  qv_array **arrays; /* collect */
  int32_t n_arrays, cap_arrays;
  uint32_t *cg, *ca, *cr;
  int64_t cn, ccap;
} agg_acc;

typedef struct agg_part {
  qvx_hashtab groups;
  int64_t null_group; /* integer mode: the group of the null key (no table entry), or -1 */
  int64_t ng, gcap;
  int64_t *e2g; /* table entry -> group */
  int64_t e2g_cap;
  qv_builder *keyb;
  agg_acc *acc;
  qv_status st;
  qv_error err;
} agg_part;

typedef struct agg_in {
  qv_batch *batch;
  qv_array **keys;
  qv_array **args;
  qvx_keyset ks;
  qvx_keyset *dks;
  uint32_t *rows;
  int64_t *poff;
  qv_status st;
  qv_error err;
} agg_in;

typedef struct agg_state {
  int32_t n_keys, n_aggs, n_parts;
  qv_expr **keys;
  qv_expr **args;
  qv_exec_agg *aggs; /* name and arg unused after construction */
  enum vkind *kind;
  agg_part *parts;
  agg_in *round;
  int32_t n_round;
  int64_t reserved;
  int64_t collect_bytes; /* collect's argument arrays, once each */
  /* output */
  qv_batch **out;
  int32_t n_out, next_out;
  int64_t out_row;
} agg_state;

static const char *fn_name(qv_agg_fn f) {
  static const char *const names[] = {"count", "count", "sum", "avg", "min", "max", "collect"};
  return f <= QV_AGG_COLLECT ? names[f] : "?";
}

static const qv_datatype *plain_type(const qv_datatype *t) {
  return t->id == QV_TYPE_DICTIONARY && t->n_children == 2 ? &t->children[1].type : t;
}

static enum vkind kind_of(const qv_datatype *t) {
  t = plain_type(t);
  if (t->id == QV_TYPE_NULL) return V_NULL;
  if (t->id == QV_TYPE_BOOL) return V_BOOL;
  if (qv_type_is_floating(t->id)) return V_FLOAT;
  if (t->id == QV_TYPE_UINT64) return V_UINT;
  if (qvx_key_type_int(t)) return V_INT;
  if (t->id == QV_TYPE_STRING || t->id == QV_TYPE_BINARY) return V_BYTES;
  return V_OTHER;
}

/* ---- per-partition state ----------------------------------------------------- */

static void acc_reset(agg_acc *a) {
  qv_free(a->cnt);
  qv_free(a->i);
  qv_free(a->f);
  qv_free(a->soff);
  qv_free(a->slen);
  qv_buffer_reset(&a->arena);
  qvx_hashtab_reset(&a->distinct);
  for (int32_t k = 0; k < a->n_arrays; k++) qv_array_release(a->arrays[k]);
  qv_free(a->arrays);
  qv_free(a->cg);
  qv_free(a->ca);
  qv_free(a->cr);
  memset(a, 0, sizeof *a);
}

static void part_reset(agg_state *s, agg_part *p) {
  qvx_hashtab_reset(&p->groups);
  if (p->keyb)
    for (int32_t k = 0; k < s->n_keys; k++) qv_builder_reset(&p->keyb[k]);
  qv_free(p->keyb);
  if (p->acc)
    for (int32_t a = 0; a < s->n_aggs; a++) acc_reset(&p->acc[a]);
  qv_free(p->acc);
  qv_free(p->e2g);
  memset(p, 0, sizeof *p);
}

static int64_t part_bytes(const agg_state *s, const agg_part *p) {
  int64_t n = qvx_hashtab_bytes(&p->groups);
  for (int32_t k = 0; k < s->n_keys; k++)
    n += p->keyb[k].values.capacity + p->keyb[k].data.capacity + p->keyb[k].validity.capacity;
  for (int32_t a = 0; a < s->n_aggs; a++) {
    const agg_acc *c = &p->acc[a];
    n += p->gcap * 40 + c->arena.capacity + qvx_hashtab_bytes(&c->distinct) + c->ccap * 12;
    /* collect's argument arrays are shared by the partitions: counted once per round */
  }
  return n;
}

static qv_status part_init(agg_state *s, agg_part *p, const qv_schema *out_schema, qv_error *err) {
  memset(p, 0, sizeof *p);
  p->null_group = -1;
  bool int_mode = s->n_keys == 1 && qvx_key_type_int(plain_type(&s->keys[0]->type));
  QV_RETURN_NOT_OK(qvx_hashtab_init(&p->groups, int_mode, err));
  p->keyb = qv_calloc((size_t)(s->n_keys > 0 ? s->n_keys : 1), sizeof *p->keyb);
  p->acc = qv_calloc((size_t)(s->n_aggs > 0 ? s->n_aggs : 1), sizeof *p->acc);
  if (!p->keyb || !p->acc) return qv_error_nomem(err, "HashAggregateExec");
  for (int32_t k = 0; k < s->n_keys; k++)
    QV_RETURN_NOT_OK(qv_builder_init(&p->keyb[k], &out_schema->fields[k].type, err));
  for (int32_t a = 0; a < s->n_aggs; a++)
    if (s->aggs[a].distinct) QV_RETURN_NOT_OK(qvx_hashtab_init(&p->acc[a].distinct, false, err));
  return QV_OK;
}

#define GROW(ptr, cap)                                            \
  do {                                                            \
    void *np_ = qv_realloc((ptr), (size_t)(cap) * sizeof *(ptr)); \
    if (!np_) return qv_error_nomem(err, "HashAggregateExec");    \
    (ptr) = np_;                                                  \
  } while (0)

static qv_status ensure_groups(agg_state *s, agg_part *p, qv_error *err) {
  if (p->ng < p->gcap) return QV_OK;
  int64_t cap = p->gcap ? p->gcap * 2 : 256;
  for (int32_t a = 0; a < s->n_aggs; a++) {
    agg_acc *c = &p->acc[a];
    GROW(c->cnt, cap);
    GROW(c->i, cap);
    GROW(c->f, cap);
    if (s->kind[a] == V_BYTES) {
      GROW(c->soff, cap);
      GROW(c->slen, cap);
    }
  }
  p->gcap = cap;
  return QV_OK;
}

static qv_status new_group(agg_state *s, agg_part *p, agg_in *in, int64_t r, qv_error *err) {
  QV_RETURN_NOT_OK(ensure_groups(s, p, err));
  int64_t g = p->ng++;
  for (int32_t a = 0; a < s->n_aggs; a++) {
    agg_acc *c = &p->acc[a];
    c->cnt[g] = 0;
    c->i[g] = 0;
    c->f[g] = 0;
  }
  for (int32_t k = 0; in && k < s->n_keys; k++)
    if (qv_builder_append_from(&p->keyb[k], in->keys[k], r) != QV_OK)
      return qv_error_nomem(err, "HashAggregateExec: group keys");
  return QV_OK;
}

/* NaN is above every number */
static inline bool fgt(double a, double b) { return isnan(a) ? !isnan(b) : !isnan(b) && a > b; }

static qv_status compact_arena(agg_part *p, agg_acc *c, qv_error *err) {
  qv_buffer nb = QV_BUFFER_INIT;
  if (qv_buffer_reserve(&nb, c->live + 64) != QV_OK) return qv_error_nomem(err, "HashAggregateExec");
  for (int64_t g = 0; g < p->ng; g++) {
    if (c->cnt[g] == 0) continue;
    int64_t at = nb.size;
    qv_buffer_append(&nb, c->arena.data + c->soff[g], c->slen[g]);
    c->soff[g] = at;
  }
  qv_buffer_reset(&c->arena);
  c->arena = nb;
  return QV_OK;
}

static qv_status fold_value(agg_state *s, agg_part *p, int32_t a, int64_t g, const qv_array *v, const void *vals,
                            int32_t arr_index, int64_t r, qv_error *err) {
  agg_acc *c = &p->acc[a];
  qv_agg_fn fn = s->aggs[a].fn;
  enum vkind kind = s->kind[a];
  if (fn == QV_AGG_COUNT) {
    c->cnt[g]++;
    return QV_OK;
  }
  if (fn == QV_AGG_COLLECT) {
    if (c->cn == c->ccap) {
      int64_t cap = c->ccap ? c->ccap * 2 : 1024;
      GROW(c->cg, cap);
      GROW(c->ca, cap);
      GROW(c->cr, cap);
      c->ccap = cap;
    }
    c->cg[c->cn] = (uint32_t)g;
    c->ca[c->cn] = (uint32_t)arr_index;
    c->cr[c->cn] = (uint32_t)r;
    c->cn++;
    c->cnt[g]++;
    return QV_OK;
  }
  bool first = c->cnt[g]++ == 0;
  if (fn == QV_AGG_SUM || fn == QV_AGG_AVG) {
    if (kind == V_FLOAT || fn == QV_AGG_AVG) {
      c->f[g] += kind == V_FLOAT ? qvx_load_float(v, vals, r) : (double)qvx_load_int(v, vals, r);
      return QV_OK;
    }
    int64_t x = qvx_load_int(v, vals, r);
    if (kind == V_UINT && x < 0) goto overflow;
    if (__builtin_add_overflow(c->i[g], x, &c->i[g])) goto overflow;
    return QV_OK;
  }
  bool is_max = fn == QV_AGG_MAX;
  switch (kind) {
    case V_FLOAT: {
      double x = qvx_load_float(v, vals, r);
      if (first || (is_max ? fgt(x, c->f[g]) : fgt(c->f[g], x))) c->f[g] = x;
      return QV_OK;
    }
    case V_INT:
    case V_UINT: {
      int64_t x = qvx_load_int(v, vals, r);
      bool better;
      if (kind == V_UINT) better = is_max ? (uint64_t)x > (uint64_t)c->i[g] : (uint64_t)x < (uint64_t)c->i[g];
      else better = is_max ? x > c->i[g] : x < c->i[g];
      if (first || better) c->i[g] = x;
      return QV_OK;
    }
    case V_BOOL: {
      int64_t x = qv_bit_get(v->buffers[1]->data, v->offset + r);
      if (first || (is_max ? x > c->i[g] : x < c->i[g])) c->i[g] = x;
      return QV_OK;
    }
    default: {
      int32_t len;
      const uint8_t *str = qv_array_str(v, r, &len);
      if (!first) {
        int32_t ol = c->slen[g];
        int m = memcmp(str, c->arena.data + c->soff[g], (size_t)(len < ol ? len : ol));
        int cmp = m ? m : (len > ol) - (len < ol);
        if (is_max ? cmp <= 0 : cmp >= 0) return QV_OK;
        c->live -= ol;
      }
      c->soff[g] = c->arena.size;
      c->slen[g] = len;
      c->live += len;
      if (qv_buffer_append(&c->arena, str, len) != QV_OK) return qv_error_nomem(err, "HashAggregateExec");
      if (c->arena.size > 2 * c->live + 65536) return compact_arena(p, c, err);
      return QV_OK;
    }
  }
overflow:
  return qv_error_set(err, QV_ERR_OVERFLOW, "HashAggregateExec: %s overflowed int64", fn_name(fn));
}

/* Folds the rows of partition pi of one input batch. */
static qv_status fold_part(agg_state *s, agg_part *p, int pi, agg_in *in, qv_error *err) {
  int64_t from = in->poff[pi], to = in->poff[pi + 1];
  if (from == to) return QV_OK;
  const void *vals[64] = {0};
  int32_t arr_index[64];
  for (int32_t a = 0; a < s->n_aggs; a++) {
    arr_index[a] = -1;
    const qv_array *v = in->args[a];
    if (v && v->type.id != QV_TYPE_NULL && qv_type_byte_width(v->type.id) > 0) vals[a] = qv_array_values(v);
    if (s->aggs[a].fn == QV_AGG_COLLECT && v) {
      agg_acc *c = &p->acc[a];
      if (c->n_arrays == c->cap_arrays) {
        int32_t cap = c->cap_arrays ? c->cap_arrays * 2 : 16;
        GROW(c->arrays, cap);
        c->cap_arrays = cap;
      }
      arr_index[a] = c->n_arrays;
      c->arrays[c->n_arrays++] = qv_array_retain(in->args[a]);
    }
  }
  for (int64_t j = from; j < to; j++) {
    int64_t r = in->rows[j], g;
    if (in->ks.int_mode && in->ks.nulls[r]) {
      if (p->null_group < 0) {
        p->null_group = p->ng;
        QV_RETURN_NOT_OK(new_group(s, p, in, r, err));
      }
      g = p->null_group;
    } else {
      int64_t e;
      bool inserted;
      QV_RETURN_NOT_OK(qvx_hashtab_upsert(&p->groups, &in->ks, r, &e, &inserted, err));
      if (inserted) {
        if (e >= p->e2g_cap) {
          int64_t cap = p->e2g_cap ? p->e2g_cap * 2 : 256;
          GROW(p->e2g, cap);
          p->e2g_cap = cap;
        }
        p->e2g[e] = p->ng;
        QV_RETURN_NOT_OK(new_group(s, p, in, r, err));
      }
      g = p->e2g[e];
    }
    for (int32_t a = 0; a < s->n_aggs; a++) {
      if (s->aggs[a].fn == QV_AGG_COUNT_STAR) {
        p->acc[a].cnt[g]++;
        continue;
      }
      const qv_array *v = in->args[a];
      if (s->kind[a] == V_NULL || !qv_array_is_valid(v, r)) continue;
      if (s->aggs[a].distinct) {
        int64_t e;
        bool inserted;
        QV_RETURN_NOT_OK(qvx_hashtab_upsert(&p->acc[a].distinct, &in->dks[a], r, &e, &inserted, err));
        if (!inserted) continue;
      }
      QV_RETURN_NOT_OK(fold_value(s, p, a, g, v, vals[a], arr_index[a], r, err));
    }
  }
  return QV_OK;
}

/* ---- phase one: a task per input batch ----------------------------------- */

static void in_reset(agg_state *s, agg_in *in) {
  qv_batch_release(in->batch);
  if (in->keys)
    for (int32_t k = 0; k < s->n_keys; k++) qv_array_release(in->keys[k]);
  if (in->args)
    for (int32_t a = 0; a < s->n_aggs; a++) qv_array_release(in->args[a]);
  qv_free(in->keys);
  qv_free(in->args);
  qvx_keyset_reset(&in->ks);
  if (in->dks)
    for (int32_t a = 0; a < s->n_aggs; a++) qvx_keyset_reset(&in->dks[a]);
  qv_free(in->dks);
  qv_free(in->rows);
  qv_free(in->poff);
  memset(in, 0, sizeof *in);
}

static qv_status eval_plain(const qv_expr *e, const qv_batch *b, qv_array **out, qv_error *err) {
  qv_array *raw = NULL;
  QV_RETURN_NOT_OK(qv_eval(e, b, NULL, &raw, err));
  qv_status st = qvx_plain(raw, out, err);
  qv_array_release(raw);
  return st;
}

static qv_status prepare(agg_state *s, agg_in *in, qv_error *err) {
  int64_t n = in->batch->num_rows;
  int32_t nk = s->n_keys, na = s->n_aggs, np = s->n_parts;
  in->keys = qv_calloc((size_t)(nk + 1), sizeof *in->keys);
  in->args = qv_calloc((size_t)(na + 1), sizeof *in->args);
  in->dks = qv_calloc((size_t)(na + 1), sizeof *in->dks);
  in->rows = qv_malloc((size_t)(n > 0 ? n : 1) * sizeof *in->rows);
  in->poff = qv_calloc((size_t)np + 1, sizeof *in->poff);
  if (!in->keys || !in->args || !in->dks || !in->rows || !in->poff) return qv_error_nomem(err, "HashAggregateExec");
  for (int32_t k = 0; k < nk; k++) QV_RETURN_NOT_OK(eval_plain(s->keys[k], in->batch, &in->keys[k], err));
  for (int32_t a = 0; a < na; a++)
    if (s->args[a]) QV_RETURN_NOT_OK(eval_plain(s->args[a], in->batch, &in->args[a], err));
  QV_RETURN_NOT_OK(qvx_keyset_encode(&in->ks, in->keys, nk, n, false, false, err));
  qv_array *cols[65];
  if (nk > 63) return qv_error_set(err, QV_ERR_UNSUPPORTED, "HashAggregateExec: more than 63 group keys");
  for (int32_t a = 0; a < na; a++) {
    if (!s->aggs[a].distinct || !in->args[a]) continue;
    for (int32_t k = 0; k < nk; k++) cols[k] = in->keys[k];
    cols[nk] = in->args[a];
    QV_RETURN_NOT_OK(qvx_keyset_encode(&in->dks[a], cols, nk + 1, n, true, false, err));
  }
  /* rows by partition (a counting sort): a group's rows all land in one */
  uint32_t *part = qv_malloc((size_t)(n > 0 ? n : 1) * sizeof *part);
  if (!part) return qv_error_nomem(err, "HashAggregateExec");
  for (int64_t r = 0; r < n; r++) {
    uint32_t pi = in->ks.int_mode && in->ks.nulls[r] ? 0 : (uint32_t)((in->ks.hashes[r] >> 40) % (uint64_t)np);
    part[r] = pi;
    in->poff[pi + 1]++;
  }
  for (int32_t i = 0; i < np; i++) in->poff[i + 1] += in->poff[i];
  int64_t fill[QV_POOL_MAX + 1];
  for (int32_t i = 0; i < np; i++) fill[i] = in->poff[i];
  for (int64_t r = 0; r < n; r++) in->rows[fill[part[r]]++] = (uint32_t)r;
  qv_free(part);
  return QV_OK;
}

static void prepare_task(void *ctx, int64_t task, int worker) {
  (void)worker;
  agg_state *s = ctx;
  agg_in *in = &s->round[task];
  in->st = prepare(s, in, &in->err);
}

static void fold_task(void *ctx, int64_t task, int worker) {
  (void)worker;
  agg_state *s = ctx;
  agg_part *p = &s->parts[task];
  for (int32_t b = 0; b < s->n_round && p->st == QV_OK; b++) p->st = fold_part(s, p, (int)task, &s->round[b], &p->err);
}

/* ---- output ---------------------------------------------------------------- */

static qv_status finish_collect(agg_part *p, agg_acc *c, const qv_datatype *list_type, qv_array **out, qv_error *err) {
  qv_status st = QV_OK;
  qv_array *values = NULL, *taken = NULL, *list = NULL;
  int64_t *base = qv_calloc((size_t)c->n_arrays + 1, sizeof *base);
  uint32_t *idx = qv_malloc((size_t)(c->cn > 0 ? c->cn : 1) * sizeof *idx);
  qv_bytes *offs = qv_bytes_alloc((p->ng + 1) * 4);
  if (!base || !idx || !offs) {
    st = qv_error_nomem(err, "HashAggregateExec: collect");
    goto cleanup;
  }
  for (int32_t k = 0; k < c->n_arrays; k++) base[k + 1] = base[k] + c->arrays[k]->length;
  if (c->n_arrays > 0) st = qv_array_concat(c->arrays, c->n_arrays, &values, err);
  else st = qv_array_make_null(&list_type->children[0].type, 0, &values, err);
  if (st != QV_OK) goto cleanup;
  int32_t *o = (int32_t *)qv_bytes_mutable(offs);
  /* counting sort of the entries by group keeps each group's input order */
  memset(o, 0, (size_t)(p->ng + 1) * 4);
  for (int64_t j = 0; j < c->cn; j++) o[c->cg[j] + 1]++;
  for (int64_t g = 0; g < p->ng; g++) o[g + 1] += o[g];
  int32_t *fill = qv_malloc((size_t)(p->ng > 0 ? p->ng : 1) * sizeof *fill);
  if (!fill) {
    st = qv_error_nomem(err, "HashAggregateExec: collect");
    goto cleanup;
  }
  memcpy(fill, o, (size_t)p->ng * 4);
  for (int64_t j = 0; j < c->cn; j++) idx[fill[c->cg[j]]++] = (uint32_t)(base[c->ca[j]] + c->cr[j]);
  qv_free(fill);
  st = qv_array_take(values, idx, c->cn, &taken, err);
  if (st != QV_OK) goto cleanup;
  list = qv_array_alloc(list_type, p->ng, 1);
  if (!list) {
    st = qv_error_nomem(err, "HashAggregateExec: collect");
    goto cleanup;
  }
  list->buffers[1] = offs;
  offs = NULL;
  list->children[0] = taken;
  taken = NULL;
  *out = list;
cleanup:
  qv_free(base);
  qv_free(idx);
  qv_bytes_release(offs);
  qv_array_release(values);
  qv_array_release(taken);
  return st;
}

static qv_status finish_agg(agg_state *s, agg_part *p, int32_t a, const qv_field *f, qv_array **out, qv_error *err) {
  agg_acc *c = &p->acc[a];
  qv_agg_fn fn = s->aggs[a].fn;
  if (fn == QV_AGG_COLLECT) return finish_collect(p, c, &f->type, out, err);
  if (f->type.id == QV_TYPE_NULL) return qv_array_make_null(&f->type, p->ng, out, err);
  qv_builder b;
  QV_RETURN_NOT_OK(qv_builder_init(&b, &f->type, err));
  qv_status st = qv_builder_reserve(&b, p->ng);
  for (int64_t g = 0; g < p->ng && st == QV_OK; g++) {
    if (fn == QV_AGG_COUNT || fn == QV_AGG_COUNT_STAR) st = qv_builder_append_int(&b, c->cnt[g]);
    else if (c->cnt[g] == 0) st = qv_builder_append_null(&b);
    else if (fn == QV_AGG_AVG) st = qv_builder_append_double(&b, c->f[g] / (double)c->cnt[g]);
    else if (s->kind[a] == V_FLOAT) st = qv_builder_append_double(&b, c->f[g]);
    else if (s->kind[a] == V_BOOL) st = qv_builder_append_bool(&b, c->i[g] != 0);
    else if (s->kind[a] == V_UINT && fn != QV_AGG_SUM) st = qv_builder_append_uint(&b, (uint64_t)c->i[g]);
    else if (s->kind[a] == V_BYTES) st = qv_builder_append_bytes(&b, c->arena.data + c->soff[g], c->slen[g]);
    else if (qv_type_is_integer(f->type.id) && !qv_type_is_signed(f->type.id))
      st = qv_builder_append_uint(&b, (uint64_t)c->i[g]);
    else st = qv_builder_append_int(&b, c->i[g]);
  }
  if (st == QV_OK) return qv_builder_finish(&b, out, err);
  qv_builder_reset(&b);
  return qv_error_nomem(err, "HashAggregateExec: output");
}

static qv_status finish_part(qv_exec_op *op, agg_part *p, qv_batch **out, qv_error *err) {
  agg_state *s = op->state;
  int32_t nc = op->schema.n_fields;
  qv_array **cols = qv_calloc((size_t)(nc > 0 ? nc : 1), sizeof *cols);
  if (!cols) return qv_error_nomem(err, "HashAggregateExec");
  qv_status st = QV_OK;
  for (int32_t k = 0; k < s->n_keys && st == QV_OK; k++) st = qv_builder_finish(&p->keyb[k], &cols[k], err);
  for (int32_t a = 0; a < s->n_aggs && st == QV_OK; a++)
    st = finish_agg(s, p, a, &op->schema.fields[s->n_keys + a], &cols[s->n_keys + a], err);
  if (st == QV_OK) st = qv_batch_make(&op->schema, cols, p->ng, out, err);
  else
    for (int32_t c = 0; c < nc; c++) qv_array_release(cols[c]);
  qv_free(cols);
  return st;
}

/* ---- the operator ------------------------------------------------------------ */

static qv_status agg_open(qv_exec_op *op, qv_error *err) {
  agg_state *s = op->state;
  s->parts = qv_calloc((size_t)s->n_parts, sizeof *s->parts);
  s->round = qv_calloc((size_t)s->n_parts, sizeof *s->round);
  if (!s->parts || !s->round) return qv_error_nomem(err, "HashAggregateExec");
  for (int32_t i = 0; i < s->n_parts; i++) QV_RETURN_NOT_OK(part_init(s, &s->parts[i], &op->schema, err));
  /* the input, a round at a time */
  for (;;) {
    s->n_round = 0;
    while (s->n_round < s->n_parts) {
      qv_batch *b = NULL;
      QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &b, err));
      if (!b) break;
      s->round[s->n_round++].batch = b;
    }
    if (s->n_round == 0) break;
    qvb_pool_run(s->n_round, op->ctx->threads, prepare_task, s);
    qv_status st = QV_OK;
    for (int32_t b = 0; b < s->n_round && st == QV_OK; b++)
      if (s->round[b].st != QV_OK)
        st = qv_error_set(err, s->round[b].st, "HashAggregateExec: %s", s->round[b].err.message);
    if (st == QV_OK) {
      qvb_pool_run(s->n_parts, op->ctx->threads, fold_task, s);
      for (int32_t i = 0; i < s->n_parts && st == QV_OK; i++)
        if (s->parts[i].st != QV_OK) st = qv_error_set(err, s->parts[i].st, "%s", s->parts[i].err.message);
    }
    int32_t n_round = s->n_round;
    for (int32_t b = 0; b < n_round && st == QV_OK; b++)
      for (int32_t a = 0; a < s->n_aggs; a++)
        if (s->aggs[a].fn == QV_AGG_COLLECT) s->collect_bytes += qvx_array_bytes(s->round[b].args[a]);
    for (int32_t b = 0; b < n_round; b++) in_reset(s, &s->round[b]);
    s->n_round = 0;
    QV_RETURN_NOT_OK(st);
    int64_t bytes = s->collect_bytes;
    for (int32_t i = 0; i < s->n_parts; i++) bytes += part_bytes(s, &s->parts[i]);
    QV_RETURN_NOT_OK(qvx_reserve(op, bytes - s->reserved, "the group table", err));
    s->reserved = bytes;
  }
  /* no keys: one row even over no input */
  if (s->n_keys == 0) {
    int64_t total = 0;
    for (int32_t i = 0; i < s->n_parts; i++) total += s->parts[i].ng;
    if (total == 0) QV_RETURN_NOT_OK(new_group(s, &s->parts[0], NULL, 0, err));
  }
  s->out = qv_calloc((size_t)s->n_parts, sizeof *s->out);
  if (!s->out) return qv_error_nomem(err, "HashAggregateExec");
  for (int32_t i = 0; i < s->n_parts; i++) {
    if (s->parts[i].ng == 0) continue;
    QV_RETURN_NOT_OK(finish_part(op, &s->parts[i], &s->out[s->n_out], err));
    s->n_out++;
    part_reset(s, &s->parts[i]);
  }
  return QV_OK;
}

static qv_status agg_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  agg_state *s = op->state;
  while (s->next_out < s->n_out) {
    qv_batch *b = s->out[s->next_out];
    int64_t bs = op->ctx->batch_size;
    if (s->out_row == 0 && b->num_rows <= bs) {
      *out = b;
      s->out[s->next_out++] = NULL;
      return QV_OK;
    }
    if (s->out_row >= b->num_rows) {
      qv_batch_release(b);
      s->out[s->next_out++] = NULL;
      s->out_row = 0;
      continue;
    }
    int64_t n = b->num_rows - s->out_row < bs ? b->num_rows - s->out_row : bs;
    QV_RETURN_NOT_OK(qv_batch_slice(b, s->out_row, n, out, err));
    s->out_row += n;
    return QV_OK;
  }
  return QV_OK;
}

static void agg_close(qv_exec_op *op) {
  agg_state *s = op->state;
  if (s->parts)
    for (int32_t i = 0; i < s->n_parts; i++) part_reset(s, &s->parts[i]);
  qv_free(s->parts);
  s->parts = NULL;
  if (s->round)
    for (int32_t b = 0; b < s->n_parts; b++) in_reset(s, &s->round[b]);
  qv_free(s->round);
  s->round = NULL;
  if (s->out)
    for (int32_t i = 0; i < s->n_out; i++) qv_batch_release(s->out[i]);
  qv_free(s->out);
  s->out = NULL;
}

static void agg_free(qv_exec_op *op) {
  agg_state *s = op->state;
  if (!s) return;
  agg_close(op);
  for (int32_t k = 0; k < s->n_keys; k++) qv_expr_destroy(s->keys ? s->keys[k] : NULL);
  for (int32_t a = 0; a < s->n_aggs; a++) qv_expr_destroy(s->args ? s->args[a] : NULL);
  qv_free(s->keys);
  qv_free(s->args);
  qv_free(s->aggs);
  qv_free(s->kind);
  qv_free(s);
}

static void agg_explain(const qv_exec_op *op, qvb_text *t) {
  const agg_state *s = op->state;
  qvb_text_s(t, "gby=[");
  for (int32_t k = 0; k < s->n_keys; k++) {
    if (k) qvb_text_s(t, ", ");
    qvx_text_expr(t, s->keys[k]);
    qvb_text_f(t, " AS %s", op->schema.fields[k].name);
  }
  qvb_text_s(t, "], aggr=[");
  for (int32_t a = 0; a < s->n_aggs; a++) {
    if (a) qvb_text_s(t, ", ");
    qvb_text_f(t, "%s(%s", fn_name(s->aggs[a].fn), s->aggs[a].distinct ? "DISTINCT " : "");
    if (s->args[a]) qvx_text_expr(t, s->args[a]);
    else qvb_text_s(t, "*");
    qvb_text_f(t, ") AS %s", op->schema.fields[s->n_keys + a].name);
  }
  qvb_text_s(t, "]");
}

static const qvx_op_vt agg_vt = {"HashAggregateExec", agg_open, agg_next, agg_close, agg_free, agg_explain, NULL};

static qv_status agg_field(agg_state *s, int32_t a, const qv_exec_agg *spec, qv_field *f, qv_error *err) {
  qv_agg_fn fn = spec->fn;
  const qv_datatype *in = s->args[a] ? plain_type(&s->args[a]->type) : NULL;
  f->nullable = true;
  switch (fn) {
    case QV_AGG_COUNT_STAR:
    case QV_AGG_COUNT:
      f->type = qv_datatype_simple(QV_TYPE_INT64);
      f->nullable = false;
      return QV_OK;
    case QV_AGG_AVG:
    case QV_AGG_SUM:
      if (s->kind[a] == V_NULL && in->id == QV_TYPE_NULL) {
        f->type = qv_datatype_simple(fn == QV_AGG_AVG ? QV_TYPE_FLOAT64 : QV_TYPE_INT64);
        return QV_OK;
      }
      if (s->kind[a] != V_INT && s->kind[a] != V_UINT && s->kind[a] != V_FLOAT) break;
      if (qv_type_is_temporal(in->id)) break;
      f->type = qv_datatype_simple(fn == QV_AGG_AVG || s->kind[a] == V_FLOAT ? QV_TYPE_FLOAT64 : QV_TYPE_INT64);
      return QV_OK;
    case QV_AGG_MIN:
    case QV_AGG_MAX:
      if (s->kind[a] == V_OTHER) break;
      return qv_datatype_copy(in, &f->type) == QV_OK ? QV_OK : qv_error_nomem(err, "HashAggregateExec");
    case QV_AGG_COLLECT: {
      qv_datatype item;
      if (qv_datatype_copy(in, &item) != QV_OK) return qv_error_nomem(err, "HashAggregateExec");
      f->nullable = false;
      return qv_datatype_list(&item, &f->type, err);
    }
  }
  char tb[64];
  qv_datatype_format(in, tb, sizeof tb);
  return qv_error_set(err, QV_ERR_TYPE, "HashAggregateExec: %s(%s) is not defined", fn_name(fn), tb);
}

qv_status qv_exec_aggregate(qv_exec_ctx *ctx, qv_exec_op *child, const qv_expr *const *keys,
                            const char *const *key_names, int32_t n_keys, const qv_exec_agg *aggs, int32_t n_aggs,
                            qv_exec_op **out, qv_error *err) {
  *out = NULL;
  agg_state *s = qv_calloc(1, sizeof *s);
  if (!s) {
    qv_exec_destroy(child);
    return qv_error_nomem(err, "HashAggregateExec");
  }
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(&agg_vt, ctx, &child, 1, s, &op, err));
  qv_status st = QV_OK;
  if (n_keys < 0 || n_aggs < 0 || n_keys > 63 || n_aggs > 64) {
    st = qv_error_set(err, QV_ERR_INVALID, "HashAggregateExec: 0..63 keys and 0..64 aggregates");
    goto done;
  }
  s->n_parts = ctx->threads > 1 ? ctx->threads : 1;
  s->keys = qv_calloc((size_t)n_keys + 1, sizeof *s->keys);
  s->args = qv_calloc((size_t)n_aggs + 1, sizeof *s->args);
  s->aggs = qv_calloc((size_t)n_aggs + 1, sizeof *s->aggs);
  s->kind = qv_calloc((size_t)n_aggs + 1, sizeof *s->kind);
  if (!s->keys || !s->args || !s->aggs || !s->kind) {
    st = qv_error_nomem(err, "HashAggregateExec");
    goto done;
  }
  for (int32_t k = 0; k < n_keys && st == QV_OK; k++) {
    st = qvx_bind_copy("HashAggregateExec", keys[k], &child->schema, &s->keys[k], err);
    s->n_keys = k + (st == QV_OK);
    if (st != QV_OK) break;
    if (!qvx_key_type_ok(&s->keys[k]->type)) {
      st = qv_error_set(err, QV_ERR_TYPE, "HashAggregateExec: group key %d has a type that cannot be hashed", k);
      break;
    }
    qv_field f = {(char *)(key_names && key_names[k] ? key_names[k] : "?"), QV_DATATYPE_INIT, true};
    if (qv_datatype_copy(plain_type(&s->keys[k]->type), &f.type) != QV_OK ||
        qv_schema_add(&op->schema, &f, err) != QV_OK)
      st = qv_error_nomem(err, "HashAggregateExec");
    qv_datatype_reset(&f.type);
  }
  for (int32_t a = 0; a < n_aggs && st == QV_OK; a++) {
    s->aggs[a] = aggs[a];
    s->aggs[a].name = NULL;
    s->aggs[a].arg = NULL;
    s->n_aggs = a + 1;
    if (aggs[a].fn > QV_AGG_COLLECT) {
      st = qv_error_set(err, QV_ERR_INVALID, "HashAggregateExec: aggregate %d: unknown function", a);
      break;
    }
    if (aggs[a].fn == QV_AGG_COUNT_STAR) s->aggs[a].distinct = false;
    else {
      st = qvx_bind_copy("HashAggregateExec", aggs[a].arg, &child->schema, &s->args[a], err);
      if (st != QV_OK) break;
      s->kind[a] = kind_of(&s->args[a]->type);
      if (s->aggs[a].distinct && !qvx_key_type_ok(&s->args[a]->type)) {
        st = qv_error_set(err, QV_ERR_TYPE, "HashAggregateExec: %s(DISTINCT ...) of a type that cannot be hashed",
                          fn_name(aggs[a].fn));
        break;
      }
    }
    qv_field f = {(char *)(aggs[a].name ? aggs[a].name : fn_name(aggs[a].fn)), QV_DATATYPE_INIT, true};
    st = agg_field(s, a, &aggs[a], &f, err);
    if (st == QV_OK && qv_schema_add(&op->schema, &f, err) != QV_OK) st = qv_error_nomem(err, "HashAggregateExec");
    qv_datatype_reset(&f.type);
  }
done:
  if (st != QV_OK) {
    qv_exec_destroy(op);
    return st;
  }
  *out = op;
  return QV_OK;
}
