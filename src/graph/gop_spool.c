/* SpoolExec: one input read by several parts of a plan (the hash-join
 * plan's variable-length hop joins its input once per path length).  The
 * first reader pulled drains the child into memory; every reader then
 * yields the spooled batches from the start. */
#include <stdatomic.h>
#include <string.h>

#include "graph/cypher_ops.h"

typedef struct spool_shared {
  qv_exec_op *child; /* reader 0's child; reader 0 outlives the drain (readers are pulled in order) */
  bool drained;
  qv_status failed;
  qv_batch **batches;
  int32_t n, cap;
  int64_t bytes;
  int32_t id;
  atomic_int refs;
} spool_shared;

typedef struct spool_reader {
  spool_shared *sh;
  int32_t next;
  bool first; /* reader 0 counts the memory */
} spool_reader;

static void shared_release(spool_shared *sh) {
  if (atomic_fetch_sub(&sh->refs, 1) != 1) return;
  for (int32_t i = 0; i < sh->n; i++) qv_batch_release(sh->batches[i]);
  qv_free(sh->batches);
  qv_free(sh);
}

static qv_status drain(qv_exec_op *op, spool_shared *sh, qv_error *err) {
  if (sh->failed != QV_OK) return qv_error_set(err, sh->failed, "SpoolExec: its input failed earlier");
  for (;;) {
    qv_batch *b = NULL;
    qv_status st = qv_exec_next(sh->child, &b, err);
    if (st != QV_OK) {
      sh->failed = st;
      return st;
    }
    if (!b) break;
    int64_t bytes = qvx_batch_bytes(b);
    if ((st = qvx_reserve(op, bytes, "spooled input", err)) != QV_OK) {
      qv_batch_release(b);
      sh->failed = st;
      return st;
    }
    sh->bytes += bytes;
    if (sh->n == sh->cap) {
      int32_t cap = sh->cap ? 2 * sh->cap : 16;
      qv_batch **nb = qv_realloc(sh->batches, (size_t)cap * sizeof *nb);
      if (!nb) {
        qv_batch_release(b);
        sh->failed = QV_ERR_NOMEM;
        return qv_error_nomem(err, "SpoolExec");
      }
      sh->batches = nb;
      sh->cap = cap;
    }
    sh->batches[sh->n++] = b;
  }
  sh->drained = true;
  return QV_OK;
}

static qv_status spool_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  spool_reader *r = op->state;
  if (!r->sh->drained) QV_RETURN_NOT_OK(drain(op, r->sh, err));
  if (r->next < r->sh->n) *out = qv_batch_retain(r->sh->batches[r->next++]);
  return QV_OK;
}

static void spool_free(qv_exec_op *op) {
  spool_reader *r = op->state;
  if (!r) return;
  if (r->sh) shared_release(r->sh);
  qv_free(r);
}

static void spool_explain(const qv_exec_op *op, qvb_text *t) {
  const spool_reader *r = op->state;
  qvb_text_f(t, "spool=%d", (int)r->sh->id);
}

static void spool_metrics(const qv_exec_op *op, qvb_text *t) {
  const spool_reader *r = op->state;
  if (r->first) qvb_text_f(t, ", spooled_batches=%d", (int)r->sh->n);
}

static const qvx_op_vt spool_vt = {"SpoolExec", NULL, spool_next, NULL, spool_free, spool_explain, spool_metrics};
static const qvx_op_vt read_vt = {"SpoolReadExec", NULL, spool_next, NULL, spool_free, spool_explain, NULL};

qv_status qvg_op_spool(qv_exec_ctx *ctx, qv_exec_op *child, int32_t n, qv_exec_op **readers, qv_error *err) {
  static atomic_int ids;
  for (int32_t i = 0; i < n; i++) readers[i] = NULL;
  spool_shared *sh = qv_calloc(1, sizeof *sh);
  if (!sh) {
    qv_exec_destroy(child);
    return qv_error_nomem(err, "SpoolExec");
  }
  sh->child = child;
  sh->id = atomic_fetch_add(&ids, 1) + 1;
  atomic_init(&sh->refs, 1);
  qv_status st = QV_OK;
  for (int32_t i = 0; i < n && st == QV_OK; i++) {
    spool_reader *r = qv_calloc(1, sizeof *r);
    if (!r) {
      st = qv_error_nomem(err, "SpoolExec");
      break;
    }
    atomic_fetch_add(&sh->refs, 1);
    r->sh = sh;
    r->first = i == 0;
    st = qvx_op_new(i == 0 ? &spool_vt : &read_vt, ctx, i == 0 ? &child : NULL, i == 0 ? 1 : 0, r, &readers[i], err);
    if (st == QV_OK && qv_schema_copy(qv_exec_schema(child), &readers[i]->schema) != QV_OK)
      st = qv_error_nomem(err, "SpoolExec");
    if (st == QV_OK && i == 0) readers[i]->estimate_rows = child->estimate_rows;
  }
  if (st != QV_OK) {
    bool child_owned = readers[0] != NULL;
    for (int32_t i = 0; i < n; i++) {
      qv_exec_destroy(readers[i]);
      readers[i] = NULL;
    }
    if (!child_owned) qv_exec_destroy(child);
  }
  shared_release(sh);
  return st;
}
