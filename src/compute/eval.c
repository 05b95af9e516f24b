/* The evaluator: runs a bound expression tree over a record batch, on all
 * rows or on the rows of a selection vector, by dispatching each node to
 * its kernel (the KERNEL column of expr/ops.def: one table lookup per
 * node, never per row).
 *
 * - Column references read batch->columns[node->column]; under a selection
 *   they stay views through the selection, so kernels that can read through
 *   it (comparisons, BETWEEN, IN, string predicates, truth tests) touch only
 *   the selected rows without copying, and the others gather each column
 *   once per evaluation.
 * - Literals are scalars; a subtree without column references (a CAST the
 *   binder put around a literal, say) is folded to a scalar once per
 *   evaluation by running it on one row.
 * - qv_eval_filter evaluates the top-level AND conjuncts in order, each on
 *   the rows the previous ones kept, so a later conjunct is never computed
 *   (and never fails) on a row an earlier one dropped. */
#include "compute/compute_int.h"
#include "expr/op_info.h"

static qv_status eval_node(qvk_ctx *c, const qv_expr *e, qvk_datum *out);

static bool is_constant(const qv_expr *e) {
  if (e->kind == QV_EXPR_COLUMN) return false;
  for (int32_t i = 0; i < e->n_args; i++)
    if (!is_constant(e->args[i])) return false;
  return true;
}

/* The KERNEL column of expr/ops.def: one kernel per operator. */
#define KERNEL(k) qvk_op_##k
#define NO_KERNEL NULL
#define QV_OP_ROW(id, name, lo, hi, cls, mirror, sql, print, bind, kernel, ...) kernel,
static const qvk_op_fn kernels[QV_OP__COUNT] = {
#include "expr/ops.def"
};
#undef QV_OP_ROW
#undef NO_KERNEL
#undef KERNEL

static qv_status dispatch(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  qvk_op_fn k = (unsigned)e->op < (unsigned)QV_OP__COUNT ? kernels[e->op] : NULL;
  if (!k) return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "eval: operator %s is not supported", qv_op_name(e->op));
  return k(c, e, args, out);
}

/* The kernel of e on its evaluated args, after dictionary-encoded
 * arguments are dealt with (compute/dictionary.c). */
static qv_status run_kernel(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  bool handled = false;
  QV_RETURN_NOT_OK(qvk_dict_call(c, e, args, out, dispatch, &handled));
  return handled ? QV_OK : dispatch(c, e, args, out);
}

static qv_status eval_call(qvk_ctx *c, const qv_expr *e, qvk_datum *out) {
  qvk_datum stack[4];
  qvk_datum *args = stack;
  int32_t n = e->n_args;
  if (n < 0 || (n > 0 && !e->args))
    return qv_error_set(c->err, QV_ERR_INVALID, "eval: malformed %s node", qv_op_name(e->op));
  if (n > 4) {
    args = qv_malloc((size_t)n * sizeof *args);
    if (!args) return qv_error_nomem(c->err, "eval");
  }
  qvk_datum init = QVK_DATUM_INIT;
  for (int32_t i = 0; i < n; i++) args[i] = init;
  qv_status st = QV_OK;
  for (int32_t i = 0; i < n && st == QV_OK; i++) {
    if (!e->args[i]) st = qv_error_set(c->err, QV_ERR_INVALID, "eval: %s has a missing argument", qv_op_name(e->op));
    else st = eval_node(c, e->args[i], &args[i]);
  }
  if (st == QV_OK) st = run_kernel(c, e, args, out);
  for (int32_t i = 0; i < n; i++) qvk_datum_reset(&args[i]);
  if (args != stack) qv_free(args);
  return st;
}

/* Folds a constant subtree to a scalar by evaluating it on one row. */
static qv_status fold(qvk_ctx *c, const qv_expr *e, qvk_datum *out) {
  qvk_ctx one = {NULL, NULL, 1, NULL, 0, c->err};
  qvk_datum d = QVK_DATUM_INIT;
  QV_RETURN_NOT_OK(eval_call(&one, e, &d));
  if (d.scalar) {
    qvk_datum_move(out, &d);
    return QV_OK;
  }
  qv_scalar s = QV_SCALAR_INIT;
  qv_status st = qv_scalar_from_array(d.array, 0, &s, c->err);
  qvk_datum_reset(&d);
  if (st != QV_OK) return st;
  qvk_datum_set_scalar(out, &s);
  return QV_OK;
}

static qv_status eval_node(qvk_ctx *c, const qv_expr *e, qvk_datum *out) {
  switch (e->kind) {
    case QV_EXPR_LITERAL:
      qvk_datum_reset(out);
      out->scalar = &e->value;
      return QV_OK;
    case QV_EXPR_COLUMN: {
      if (!c->batch)
        return qv_error_set(c->err, QV_ERR_INVALID, "eval: column `%s` in a constant context", e->name ? e->name : "?");
      if (e->column < 0 || e->column >= c->batch->schema.n_fields)
        return qv_error_set(c->err, QV_ERR_INVALID, "eval: column `%s` is not bound (index %d)",
                            e->name ? e->name : "?", (int)e->column);
      qv_array *a = c->batch->columns[e->column];
      if (a->length < c->batch->num_rows)
        return qv_error_set(c->err, QV_ERR_INVALID, "eval: column `%s` has %lld rows, the batch %lld",
                            e->name ? e->name : "?", (long long)a->length, (long long)c->batch->num_rows);
      qvk_datum_set_array(out, qv_array_retain(a));
      out->idx = c->sel;
      out->column = e->column;
      return QV_OK;
    }
    case QV_EXPR_CALL:
      if (c->batch && is_constant(e)) return fold(c, e, out);
      return eval_call(c, e, out);
  }
  return qv_error_set(c->err, QV_ERR_INVALID, "eval: unknown node kind %d", (int)e->kind);
}

static qv_status ctx_init(qvk_ctx *c, const qv_batch *batch, const uint32_t *sel, int64_t n, qv_error *err) {
  c->batch = batch;
  c->sel = sel;
  c->n = n;
  c->err = err;
  c->n_gathered = 0;
  c->gathered = NULL;
  if (sel && batch->schema.n_fields > 0) {
    c->gathered = qv_calloc((size_t)batch->schema.n_fields, sizeof *c->gathered);
    if (!c->gathered) return qv_error_nomem(err, "eval");
    c->n_gathered = batch->schema.n_fields;
  }
  return QV_OK;
}

static void ctx_reset(qvk_ctx *c) {
  for (int32_t i = 0; i < c->n_gathered; i++) qv_array_release(c->gathered[i]);
  qv_free(c->gathered);
  c->gathered = NULL;
  c->n_gathered = 0;
}

static qv_status check_args(const qv_expr *e, const qv_batch *batch, const qv_selection *sel, qv_error *err) {
  if (!e || !batch) return qv_error_set(err, QV_ERR_INVALID, "eval: expression and batch are required");
  if (sel) {
    for (int64_t i = 0; i < sel->count; i++)
      if ((int64_t)sel->rows[i] >= batch->num_rows)
        return qv_error_set(err, QV_ERR_INVALID, "eval: selection row %lld is past the batch's %lld rows",
                            (long long)sel->rows[i], (long long)batch->num_rows);
  }
  return QV_OK;
}

qv_status qv_eval(const qv_expr *e, const qv_batch *batch, const qv_selection *sel, qv_array **out, qv_error *err) {
  QV_RETURN_NOT_OK(check_args(e, batch, sel, err));
  qvk_ctx c;
  int64_t n = sel ? sel->count : batch->num_rows;
  QV_RETURN_NOT_OK(ctx_init(&c, batch, sel ? sel->rows : NULL, n, err));
  qvk_datum d = QVK_DATUM_INIT;
  qv_status st = eval_node(&c, e, &d);
  if (st == QV_OK) st = qvk_datum_array(&c, &d);
  if (st == QV_OK && d.array->length != n) {
    /* a whole column without a selection may be longer than the batch */
    qv_array *s = NULL;
    st = qv_array_slice(d.array, 0, n, &s, err);
    if (st == QV_OK) qvk_datum_set_array(&d, s);
  }
  if (st == QV_OK) {
    *out = d.array;
    d.array = NULL;
  }
  qvk_datum_reset(&d);
  ctx_reset(&c);
  return st;
}

/* ---- filters ---------------------------------------------------------- */

/* Keeps rows[i] (or i when rows is NULL) where result row i is TRUE: counts
 * them first so the output holds exactly what it needs. */
static qv_status keep_true(const qvk_datum *d, const uint32_t *rows, int64_t n, qv_selection *next, qv_error *err) {
  next->count = 0;
  if (qvk_datum_type(d)->id != QV_TYPE_BOOL && qvk_datum_type(d)->id != QV_TYPE_NULL) {
    char tb[64];
    return qv_error_set(err, QV_ERR_TYPE, "filter: the predicate is %s, not boolean",
                        qvk_type_name(qvk_datum_type(d), tb, sizeof tb));
  }
  if (d->scalar) {
    if (d->scalar->is_null || d->scalar->type.id != QV_TYPE_BOOL || !d->scalar->v.b) return QV_OK;
    if (qv_selection_reserve(next, n > 0 ? n : 1) != QV_OK)
      return qv_error_set(err, QV_ERR_NOMEM, "filter: out of memory for %lld rows", (long long)n);
    for (int64_t i = 0; i < n; i++) next->rows[i] = rows ? rows[i] : (uint32_t)i;
    next->count = n;
    return QV_OK;
  }
  const qv_array *a = d->array;
  if (a->type.id == QV_TYPE_NULL) return QV_OK;
  const uint8_t *vb = a->buffers[1]->data, *mb = a->buffers[0] ? a->buffers[0]->data : NULL;
  int64_t off = a->offset, total = 0;
  for (int64_t base = 0; base < n; base += 64) {
    int64_t m = n - base < 64 ? n - base : 64;
    uint64_t w = qvk_bits_load(vb, off + base, m);
    if (mb) w &= qvk_bits_load(mb, off + base, m);
    total += __builtin_popcountll(w);
  }
  if (qv_selection_reserve(next, total > 0 ? total : 1) != QV_OK)
    return qv_error_set(err, QV_ERR_NOMEM, "filter: out of memory for %lld rows", (long long)total);
  uint32_t *dst = next->rows;
  int64_t k = 0;
  for (int64_t base = 0; base < n; base += 64) {
    int64_t m = n - base < 64 ? n - base : 64;
    uint64_t w = qvk_bits_load(vb, off + base, m);
    if (mb) w &= qvk_bits_load(mb, off + base, m);
    while (w) {
      int64_t i = base + __builtin_ctzll(w);
      dst[k++] = rows ? rows[i] : (uint32_t)i;
      w &= w - 1;
    }
  }
  next->count = k;
  return QV_OK;
}

/* One conjunct over the rows of c into dst.  A comparison of a column with
 * a constant (or of two columns) goes through the fused kernel
 * (compare_select.c) and never builds a bitmap; anything else is evaluated
 * to a bool array and its TRUE rows kept. */
static qv_status filter_conjunct(qvk_ctx *c, const qv_expr *e, qv_selection *dst, qv_error *err) {
  qvk_datum d = QVK_DATUM_INIT;
  qv_status st;
  if (e->kind == QV_EXPR_CALL && qve_op_is_compare(e->op) && e->n_args == 2 && e->args && e->args[0] && e->args[1] &&
      !is_constant(e)) {
    qvk_datum args[2] = {QVK_DATUM_INIT, QVK_DATUM_INIT};
    bool handled = false;
    st = eval_node(c, e->args[0], &args[0]);
    if (st == QV_OK) st = eval_node(c, e->args[1], &args[1]);
    if (st == QV_OK)
      st = qvk_compare_select(e->op, e->sem.float_order, &args[0], &args[1], c->sel, c->n, dst, &handled, err);
    if (st == QV_OK && !handled) {
      st = run_kernel(c, e, args, &d);
      if (st == QV_OK) st = keep_true(&d, c->sel, c->n, dst, err);
    }
    qvk_datum_reset(&args[0]);
    qvk_datum_reset(&args[1]);
    qvk_datum_reset(&d);
    return st;
  }
  st = eval_node(c, e, &d);
  /* A bare boolean column is still a view through the rows alive. */
  if (st == QV_OK) st = qvk_datum_dense(c, &d);
  if (st == QV_OK) st = keep_true(&d, c->sel, c->n, dst, err);
  qvk_datum_reset(&d);
  return st;
}

qv_status qv_eval_filter(const qv_expr *e, const qv_batch *batch, const qv_selection *sel, qv_selection *out,
                         qv_error *err) {
  if (!out) return qv_error_set(err, QV_ERR_INVALID, "filter: no output selection");
  if (sel == out) return qv_error_set(err, QV_ERR_INVALID, "filter: the output aliases the input selection");
  out->count = 0;
  QV_RETURN_NOT_OK(check_args(e, batch, sel, err));
  const qv_expr *stack[16];
  const qv_expr **conj = stack;
  int32_t nc = qv_expr_conjuncts(e, stack, 16);
  if (nc > 16) {
    conj = qv_malloc((size_t)nc * sizeof *conj);
    if (!conj) return qv_error_nomem(err, "filter");
    qv_expr_conjuncts(e, conj, nc);
  }
  /* Rows alive so far: sel (or all rows) before the first conjunct, then
   * alternately the two buffers below; the last conjunct writes to out. */
  qv_selection bufs[2] = {QV_SELECTION_INIT, QV_SELECTION_INIT};
  const uint32_t *rows = sel ? sel->rows : NULL;
  int64_t n = sel ? sel->count : batch->num_rows;
  qv_status st = QV_OK;
  int cur = -1;
  bool done = false;
  for (int32_t k = 0; k < nc && st == QV_OK; k++) {
    if (n == 0 && k > 0) break; /* nothing left: out stays empty */
    qvk_ctx c;
    st = ctx_init(&c, batch, rows, n, err);
    if (st != QV_OK) break;
    int nxt = cur == 0 ? 1 : 0;
    qv_selection *dst = k == nc - 1 ? out : &bufs[nxt];
    st = filter_conjunct(&c, conj[k], dst, err);
    ctx_reset(&c);
    if (st != QV_OK) break;
    if (dst == out) done = true;
    cur = nxt;
    rows = dst->rows;
    n = dst->count;
  }
  if (st != QV_OK || !done) out->count = 0;
  qv_selection_reset(&bufs[0]);
  qv_selection_reset(&bufs[1]);
  if (conj != stack) qv_free((void *)conj);
  return st;
}
