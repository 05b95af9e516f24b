/* HashJoinExec.  Holds the build side: its batches joined into one (plus,
 * for a left outer join building the right, one all-null row the unmatched
 * probe rows point at), its encoded keys, the table of distinct keys
 * (keys.c), a chain of build rows per key and, when the left is built for
 * an outer, semi or anti join, a matched flag per build row; all counted
 * against the memory limit.  The probe side streams: a round of up to
 * `threads` batches is probed in parallel (the table is read-only by then,
 * the flags are set atomically), each batch's output kept in its slot, and
 * the slots are yielded in order.  A built left side then yields the rows
 * the flags select (semi: matched; anti, left: unmatched, the latter with
 * null right columns). */
#include <stdatomic.h>
#include <string.h>

#include "base/pool.h"
#include "exec/exec_int.h"

typedef struct probe_slot {
  qv_batch *in;
  qv_batch *out;
  qv_status st;
  qv_error err;
} probe_slot;

typedef struct join_state {
  qv_join_type type;
  int32_t n_keys;
  int32_t *lkeys, *rkeys; /* column indices */
  char **lnames, **rnames;
  bool build_left;
  atomic_uchar *matched; /* build_left and not inner: per build row */
  bool tail_done;        /* build_left: the flagged rows were yielded */
  /* build */
  qv_batch *build;
  int64_t build_rows; /* without the null row */
  qvx_hashtab table;
  int64_t *head, *tail; /* per entry: first and last build row */
  int64_t *next;        /* per build row: the next with the same key, -1 */
  /* probe */
  probe_slot *slots;
  int32_t n_slots, next_slot;
  qv_batch *pending; /* an output batch being yielded in batch_size pieces */
  int64_t pending_row;
  bool probe_done;
} join_state;

static const char *type_name(qv_join_type t) {
  static const char *const names[] = {"inner", "left", "semi", "anti"};
  return t <= QV_JOIN_ANTI ? names[t] : "?";
}

static qv_exec_op *build_child(qv_exec_op *op) {
  join_state *s = op->state;
  return op->children[s->build_left ? 0 : 1];
}
static qv_exec_op *probe_child(qv_exec_op *op) {
  join_state *s = op->state;
  return op->children[s->build_left ? 1 : 0];
}

static qv_status key_arrays(const qv_batch *b, const int32_t *cols, int32_t n, qv_array **out, qv_error *err) {
  for (int32_t k = 0; k < n; k++) {
    qv_status st = qvx_plain(b->columns[cols[k]], &out[k], err);
    if (st != QV_OK) {
      for (int32_t j = 0; j < k; j++) qv_array_release(out[j]);
      return st;
    }
  }
  return QV_OK;
}

static void release_arrays(qv_array **a, int32_t n) {
  for (int32_t k = 0; k < n; k++) qv_array_release(a[k]);
}

/* One all-null row after the build rows, for the left outer join's
 * unmatched probe rows. */
static qv_status add_null_row(qv_exec_op *op, qv_batch **b, qv_error *err) {
  const qv_schema *sc = &build_child(op)->schema;
  qv_array **cols = qv_calloc((size_t)sc->n_fields + 1, sizeof *cols);
  if (!cols) return qv_error_nomem(err, "HashJoinExec");
  qv_status st = QV_OK;
  for (int32_t c = 0; c < sc->n_fields && st == QV_OK; c++)
    st = qv_array_make_null(&sc->fields[c].type, 1, &cols[c], err);
  qv_batch *nul = NULL, *joined = NULL;
  if (st == QV_OK) st = qv_batch_make(sc, cols, 1, &nul, err);
  else release_arrays(cols, sc->n_fields);
  qv_free(cols);
  if (st == QV_OK) {
    qv_batch *two[2] = {*b, nul};
    st = qvx_batch_concat(sc, two, 2, &joined, err);
  }
  qv_batch_release(nul);
  if (st == QV_OK) {
    qv_batch_release(*b);
    *b = joined;
  }
  return st;
}

static qv_status join_open(qv_exec_op *op, qv_error *err) {
  join_state *s = op->state;
  qv_exec_op *bc = build_child(op);
  qv_batch **parts = NULL;
  int32_t n = 0, cap = 0;
  qv_status st = QV_OK;
  int64_t part_bytes = 0;
  for (;;) {
    qv_batch *b = NULL;
    st = qv_exec_next(bc, &b, err);
    if (st != QV_OK || !b) break;
    int64_t bytes = qvx_batch_bytes(b);
    st = qvx_reserve(op, bytes, "build side", err);
    if (st == QV_OK && n == cap) {
      cap = cap ? cap * 2 : 16;
      qv_batch **np = qv_realloc(parts, (size_t)cap * sizeof *np);
      if (!np) st = qv_error_nomem(err, "HashJoinExec");
      else parts = np;
    }
    if (st != QV_OK) {
      qv_batch_release(b);
      break;
    }
    part_bytes += bytes;
    parts[n++] = b;
  }
  if (st == QV_OK) st = qvx_batch_concat(&bc->schema, parts, n, &s->build, err);
  for (int32_t i = 0; i < n; i++) qv_batch_release(parts[i]);
  qv_free(parts);
  if (st != QV_OK) return st;
  s->build_rows = s->build->num_rows;
  if (s->type == QV_JOIN_LEFT && !s->build_left) QV_RETURN_NOT_OK(add_null_row(op, &s->build, err));
  /* the joined copy replaces the parts */
  QV_RETURN_NOT_OK(qvx_reserve(op, qvx_batch_bytes(s->build) - part_bytes, "build side", err));

  const int32_t *cols = s->build_left ? s->lkeys : s->rkeys;
  qv_array *keys[64];
  QV_RETURN_NOT_OK(key_arrays(s->build, cols, s->n_keys, keys, err));
  qvx_keyset ks = {0};
  st = qvx_keyset_encode(&ks, keys, s->n_keys, s->build_rows, false, true, err);
  release_arrays(keys, s->n_keys);
  if (st == QV_OK) st = qvx_hashtab_init(&s->table, ks.int_mode, err);
  int64_t nrows = s->build_rows > 0 ? s->build_rows : 1;
  if (st == QV_OK) {
    s->next = qv_malloc((size_t)nrows * sizeof *s->next);
    s->head = qv_malloc((size_t)nrows * sizeof *s->head);
    s->tail = qv_malloc((size_t)nrows * sizeof *s->tail);
    if (!s->next || !s->head || !s->tail) st = qv_error_nomem(err, "HashJoinExec");
  }
  for (int64_t r = 0; r < s->build_rows && st == QV_OK; r++) {
    s->next[r] = -1;
    if (ks.nulls[r]) continue; /* a null key never matches */
    int64_t e;
    bool inserted;
    st = qvx_hashtab_upsert(&s->table, &ks, r, &e, &inserted, err);
    if (st != QV_OK) break;
    if (inserted) s->head[e] = r;
    else s->next[s->tail[e]] = r;
    s->tail[e] = r;
  }
  if (st == QV_OK && s->build_left && s->type != QV_JOIN_INNER) {
    s->matched = qv_calloc((size_t)nrows, sizeof *s->matched);
    if (!s->matched) st = qv_error_nomem(err, "HashJoinExec");
  }
  if (st == QV_OK)
    st = qvx_reserve(op, qvx_hashtab_bytes(&s->table) + nrows * 25 + ks.bytes.capacity, "build side", err);
  qvx_keyset_reset(&ks);
  if (st == QV_OK) {
    s->slots = qv_calloc((size_t)op->ctx->threads, sizeof *s->slots);
    if (!s->slots) st = qv_error_nomem(err, "HashJoinExec");
  }
  return st;
}

typedef struct pairs {
  uint32_t *p, *b; /* probe row, build row */
  int64_t n, cap;
} pairs;

static qv_status pairs_add(pairs *x, uint32_t p, uint32_t b) {
  if (x->n == x->cap) {
    int64_t cap = x->cap ? x->cap * 2 : 1024;
    uint32_t *np = qv_realloc(x->p, (size_t)cap * sizeof *np);
    if (!np) return QV_ERR_NOMEM;
    x->p = np;
    uint32_t *nb = qv_realloc(x->b, (size_t)cap * sizeof *nb);
    if (!nb) return QV_ERR_NOMEM;
    x->b = nb;
    x->cap = cap;
  }
  x->p[x->n] = p;
  x->b[x->n] = b;
  x->n++;
  return QV_OK;
}

static qv_status probe_batch(qv_exec_op *op, probe_slot *slot, qv_error *err) {
  join_state *s = op->state;
  const qv_batch *in = slot->in;
  const int32_t *cols = s->build_left ? s->rkeys : s->lkeys;
  qv_array *keys[64];
  QV_RETURN_NOT_OK(key_arrays(in, cols, s->n_keys, keys, err));
  qvx_keyset ks = {0};
  qv_status st = qvx_keyset_encode(&ks, keys, s->n_keys, in->num_rows, false, true, err);
  release_arrays(keys, s->n_keys);
  pairs x = {0};
  /* the pairs of one probe batch (8 bytes each, before the rows they make)
   * stay within the memory limit: a key duplicated on both sides can
   * multiply a batch past any memory */
  int64_t max_pairs = op->ctx->memory_limit / 8;
  for (int64_t r = 0; r < in->num_rows && st == QV_OK; r++) {
    if (x.n > max_pairs) {
      st = QV_ERR_OVERFLOW;
      break;
    }
    int64_t e = ks.nulls[r] || s->table.n == 0 ? -1 : qvx_hashtab_find(&s->table, &ks, r);
    if (s->matched) {
      /* a built left side: mark its rows; the left join pairs the matches now */
      for (int64_t b = e < 0 ? -1 : s->head[e]; b >= 0 && st == QV_OK; b = s->next[b]) {
        atomic_store_explicit(&s->matched[b], 1, memory_order_relaxed);
        if (s->type == QV_JOIN_LEFT) st = pairs_add(&x, (uint32_t)r, (uint32_t)b);
      }
      continue;
    }
    switch (s->type) {
      case QV_JOIN_INNER:
        for (int64_t b = e < 0 ? -1 : s->head[e]; b >= 0 && st == QV_OK; b = s->next[b])
          st = pairs_add(&x, (uint32_t)r, (uint32_t)b);
        break;
      case QV_JOIN_LEFT:
        if (e < 0) st = pairs_add(&x, (uint32_t)r, (uint32_t)s->build_rows);
        for (int64_t b = e < 0 ? -1 : s->head[e]; b >= 0 && st == QV_OK; b = s->next[b])
          st = pairs_add(&x, (uint32_t)r, (uint32_t)b);
        break;
      case QV_JOIN_SEMI:
        if (e >= 0) st = pairs_add(&x, (uint32_t)r, 0);
        break;
      case QV_JOIN_ANTI:
        if (e < 0) st = pairs_add(&x, (uint32_t)r, 0);
        break;
    }
  }
  if (st == QV_ERR_NOMEM) st = qv_error_nomem(err, "HashJoinExec: probe");
  if (st == QV_ERR_OVERFLOW) {
    char lim[64];
    qvx_format_bytes(op->ctx->memory_limit, lim, sizeof lim);
    st = qv_error_set(err, QV_ERR_NOMEM,
                      "HashJoinExec: the matches of one probe batch passed the memory limit of %s (set "
                      "qv_exec_options.memory_limit)",
                      lim);
  }
  qvx_keyset_reset(&ks);
  if (st == QV_OK && x.n > 0) {
    const qv_batch *left = s->build_left ? s->build : in, *right = s->build_left ? in : s->build;
    const uint32_t *li = s->build_left ? x.b : x.p, *ri = s->build_left ? x.p : x.b;
    int32_t nl = left->schema.n_fields, nr = op->schema.n_fields - nl;
    qv_array **outc = qv_calloc((size_t)op->schema.n_fields + 1, sizeof *outc);
    if (!outc) st = qv_error_nomem(err, "HashJoinExec");
    for (int32_t c = 0; c < nl && st == QV_OK; c++) st = qv_array_take(left->columns[c], li, x.n, &outc[c], err);
    for (int32_t c = 0; c < nr && st == QV_OK; c++) st = qv_array_take(right->columns[c], ri, x.n, &outc[nl + c], err);
    if (st == QV_OK) st = qv_batch_make(&op->schema, outc, x.n, &slot->out, err);
    else if (outc) release_arrays(outc, op->schema.n_fields);
    qv_free(outc);
  }
  qv_free(x.p);
  qv_free(x.b);
  return st;
}

static void probe_task(void *ctx, int64_t task, int worker) {
  (void)worker;
  qv_exec_op *op = ctx;
  join_state *s = op->state;
  probe_slot *slot = &s->slots[task];
  slot->st = probe_batch(op, slot, &slot->err);
}

static qv_status join_next(qv_exec_op *op, qv_batch **out, qv_error *err);

/* After the probe, a built left side's rows the flags select. */
static qv_status flagged_rows(qv_exec_op *op, qv_batch **out, qv_error *err) {
  join_state *s = op->state;
  s->tail_done = true;
  bool want = s->type == QV_JOIN_SEMI;
  uint32_t *rows = qv_malloc((size_t)(s->build_rows > 0 ? s->build_rows : 1) * sizeof *rows);
  if (!rows) return qv_error_nomem(err, "HashJoinExec");
  int64_t n = 0;
  for (int64_t r = 0; r < s->build_rows; r++)
    if ((atomic_load_explicit(&s->matched[r], memory_order_relaxed) != 0) == want) rows[n++] = (uint32_t)r;
  qv_status st = QV_OK;
  int32_t nl = s->build->schema.n_fields, nc = op->schema.n_fields;
  qv_array **cols = n > 0 ? qv_calloc((size_t)nc + 1, sizeof *cols) : NULL;
  if (n > 0 && !cols) st = qv_error_nomem(err, "HashJoinExec");
  for (int32_t c = 0; n > 0 && c < nc && st == QV_OK; c++)
    st = c < nl ? qv_array_take(s->build->columns[c], rows, n, &cols[c], err)
                : qv_array_make_null(&op->schema.fields[c].type, n, &cols[c], err);
  if (n > 0 && st == QV_OK) {
    /* yielded through the pending slot, in batch_size pieces */
    st = qv_batch_make(&op->schema, cols, n, &s->pending, err);
    if (st == QV_OK) st = join_next(op, out, err);
  } else if (cols) release_arrays(cols, nc);
  qv_free(cols);
  qv_free(rows);
  return st;
}

static qv_status join_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  join_state *s = op->state;
  int64_t bs = op->ctx->batch_size;
  for (;;) {
    if (s->pending) {
      qv_batch *b = s->pending;
      if (s->pending_row == 0 && b->num_rows <= bs) {
        *out = b;
        s->pending = NULL;
        return QV_OK;
      }
      if (s->pending_row < b->num_rows) {
        int64_t n = b->num_rows - s->pending_row < bs ? b->num_rows - s->pending_row : bs;
        QV_RETURN_NOT_OK(qv_batch_slice(b, s->pending_row, n, out, err));
        s->pending_row += n;
        return QV_OK;
      }
      qv_batch_release(b);
      s->pending = NULL;
      s->pending_row = 0;
    }
    if (s->next_slot < s->n_slots) {
      probe_slot *slot = &s->slots[s->next_slot++];
      s->pending = slot->out;
      slot->out = NULL;
      continue;
    }
    if (s->probe_done) return s->matched && !s->tail_done ? flagged_rows(op, out, err) : QV_OK;
    /* the next round */
    for (int32_t i = 0; i < s->n_slots; i++) {
      qv_batch_release(s->slots[i].in);
      qv_batch_release(s->slots[i].out);
      memset(&s->slots[i], 0, sizeof s->slots[i]);
    }
    s->n_slots = s->next_slot = 0;
    while (s->n_slots < op->ctx->threads) {
      qv_batch *b = NULL;
      QV_RETURN_NOT_OK(qv_exec_next(probe_child(op), &b, err));
      if (!b) {
        s->probe_done = true;
        break;
      }
      s->slots[s->n_slots++].in = b;
    }
    qvb_pool_run(s->n_slots, op->ctx->threads, probe_task, op);
    for (int32_t i = 0; i < s->n_slots; i++)
      if (s->slots[i].st != QV_OK) return qv_error_set(err, s->slots[i].st, "%s", s->slots[i].err.message);
  }
}

static void join_close(qv_exec_op *op) {
  join_state *s = op->state;
  qv_batch_release(s->build);
  s->build = NULL;
  qvx_hashtab_reset(&s->table);
  qv_free(s->head);
  qv_free(s->tail);
  qv_free(s->next);
  qv_free(s->matched);
  s->head = s->tail = s->next = NULL;
  s->matched = NULL;
  if (s->slots)
    for (int32_t i = 0; i < op->ctx->threads; i++) {
      qv_batch_release(s->slots[i].in);
      qv_batch_release(s->slots[i].out);
    }
  qv_free(s->slots);
  s->slots = NULL;
  qv_batch_release(s->pending);
  s->pending = NULL;
}

static void join_free(qv_exec_op *op) {
  join_state *s = op->state;
  if (!s) return;
  join_close(op);
  for (int32_t k = 0; k < s->n_keys; k++) {
    qv_free(s->lnames ? s->lnames[k] : NULL);
    qv_free(s->rnames ? s->rnames[k] : NULL);
  }
  qv_free(s->lnames);
  qv_free(s->rnames);
  qv_free(s->lkeys);
  qv_free(s->rkeys);
  qv_free(s);
}

static void join_explain(const qv_exec_op *op, qvb_text *t) {
  const join_state *s = op->state;
  qvb_text_f(t, "mode=%s, on=[", type_name(s->type));
  for (int32_t k = 0; k < s->n_keys; k++) qvb_text_f(t, "%s(%s, %s)", k ? ", " : "", s->lnames[k], s->rnames[k]);
  qvb_text_f(t, "], build=%s", s->build_left ? "left" : "right");
}

static void join_metrics(const qv_exec_op *op, qvb_text *t) {
  const join_state *s = op->state;
  qvb_text_f(t, ", build_rows=%lld", (long long)s->build_rows);
}

static const qvx_op_vt join_vt = {"HashJoinExec", join_open,    join_next,   join_close,
                                  join_free,      join_explain, join_metrics};

/* The class a key type compares in: keys of one class encode alike. */
static int key_class(const qv_datatype *t) {
  if (t->id == QV_TYPE_DICTIONARY) t = &t->children[1].type;
  if (qvx_key_type_int(t)) return 1;
  if (qv_type_is_floating(t->id)) return 2;
  if (t->id == QV_TYPE_STRING || t->id == QV_TYPE_BINARY) return 3;
  if (t->id == QV_TYPE_BOOL) return 4;
  if (t->id == QV_TYPE_DECIMAL128) return 5;
  return t->id == QV_TYPE_NULL ? 0 : -1;
}

static qv_status resolve_keys(qv_exec_op *op, const char *const *lk, const char *const *rk, qv_error *err) {
  join_state *s = op->state;
  const qv_schema *ls = &op->children[0]->schema, *rs = &op->children[1]->schema;
  for (int32_t k = 0; k < s->n_keys; k++) {
    if (!lk[k] || !rk[k]) return qv_error_set(err, QV_ERR_INVALID, "HashJoinExec: key %d has no column name", k);
    s->lnames[k] = qv_strdup(lk[k]);
    s->rnames[k] = qv_strdup(rk[k]);
    if (!s->lnames[k] || !s->rnames[k]) return qv_error_nomem(err, "HashJoinExec");
    s->lkeys[k] = qv_schema_find(ls, lk[k]);
    s->rkeys[k] = qv_schema_find(rs, rk[k]);
    if (s->lkeys[k] < 0)
      return qv_error_set(err, QV_ERR_NOT_FOUND, "HashJoinExec: the left input has no column `%s`", lk[k]);
    if (s->rkeys[k] < 0)
      return qv_error_set(err, QV_ERR_NOT_FOUND, "HashJoinExec: the right input has no column `%s`", rk[k]);
    const qv_datatype *a = &ls->fields[s->lkeys[k]].type, *b = &rs->fields[s->rkeys[k]].type;
    int ca = key_class(a), cb = key_class(b);
    if (ca < 0 || cb < 0 || (ca != cb && ca != 0 && cb != 0) || (ca == 5 && cb == 5 && !qv_datatype_equal(a, b))) {
      char ta[64], tb[64];
      qv_datatype_format(a, ta, sizeof ta);
      qv_datatype_format(b, tb, sizeof tb);
      return qv_error_set(err, QV_ERR_TYPE, "HashJoinExec: cannot join `%s` (%s) with `%s` (%s)", lk[k], ta, rk[k], tb);
    }
    /* integer mode must agree on both sides: a null-typed key is all null anyway */
    if ((ca == 0) != (cb == 0) && s->n_keys == 1)
      return qv_error_set(err, QV_ERR_TYPE, "HashJoinExec: cannot join `%s` with `%s`: one of them is all null", lk[k],
                          rk[k]);
  }
  return QV_OK;
}

qv_status qv_exec_hash_join(qv_exec_ctx *ctx, qv_exec_op *left, qv_exec_op *right, const char *const *left_keys,
                            const char *const *right_keys, int32_t n_keys, qv_join_type type, qv_exec_op **out,
                            qv_error *err) {
  *out = NULL;
  join_state *s = qv_calloc(1, sizeof *s);
  qv_exec_op *kids[2] = {left, right};
  if (!s) {
    qv_exec_destroy(left);
    qv_exec_destroy(right);
    return qv_error_nomem(err, "HashJoinExec");
  }
  qv_exec_op *op;
  QV_RETURN_NOT_OK(qvx_op_new(&join_vt, ctx, kids, 2, s, &op, err));
  qv_status st = QV_OK;
  s->type = type;
  if (n_keys < 1 || n_keys > 64 || type > QV_JOIN_ANTI) {
    st = qv_error_set(err, QV_ERR_INVALID, "HashJoinExec: 1..64 keys and a join type");
    goto done;
  }
  s->lkeys = qv_calloc((size_t)n_keys, sizeof *s->lkeys);
  s->rkeys = qv_calloc((size_t)n_keys, sizeof *s->rkeys);
  s->lnames = qv_calloc((size_t)n_keys, sizeof *s->lnames);
  s->rnames = qv_calloc((size_t)n_keys, sizeof *s->rnames);
  if (!s->lkeys || !s->rkeys || !s->lnames || !s->rnames) {
    st = qv_error_nomem(err, "HashJoinExec");
    goto done;
  }
  s->n_keys = n_keys;
  st = resolve_keys(op, left_keys, right_keys, err);
  if (st != QV_OK) goto done;
  int64_t le = left->estimate_rows, re = right->estimate_rows;
  s->build_left = le >= 0 && re >= 0 && le < re;
  if (qv_schema_copy(&left->schema, &op->schema) != QV_OK) {
    st = qv_error_nomem(err, "HashJoinExec");
    goto done;
  }
  if (type == QV_JOIN_INNER || type == QV_JOIN_LEFT) {
    for (int32_t c = 0; c < right->schema.n_fields && st == QV_OK; c++) {
      qv_field f = right->schema.fields[c];
      if (type == QV_JOIN_LEFT) f.nullable = true;
      if (qv_schema_add(&op->schema, &f, err) != QV_OK) st = qv_error_nomem(err, "HashJoinExec");
    }
  }
  if (type == QV_JOIN_SEMI || type == QV_JOIN_ANTI) op->estimate_rows = le;
done:
  if (st != QV_OK) {
    qv_exec_destroy(op);
    return st;
  }
  *out = op;
  return QV_OK;
}
