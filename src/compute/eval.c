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
 * - Errors are Polars': a value fails wherever Polars would evaluate it,
 *   on the whole column.  qv_eval_filter evaluates the top-level AND
 *   conjuncts that can fail on a value (fallible.c) first, each on every
 *   row given, and then the others in order, each on the rows the previous
 *   ones kept (so a cheap conjunct still spares the later ones work).
 * - when/then/otherwise whose branches can fail runs as Polars does: each
 *   condition on the rows no earlier one took, each value on the rows that
 *   take it (eval_when); otherwise all arguments on all rows, then a pick. */
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

static qv_status ctx_init(qvk_ctx *c, const qv_batch *batch, const uint32_t *sel, int64_t n, qv_error *err);
static void ctx_reset(qvk_ctx *c);
static qv_status eval_when(qvk_ctx *c, const qv_expr *e, qvk_datum *out);

/* A when/then/otherwise to evaluate branch by branch: a value, or a
 * condition after the first, that can fail on a value (the first
 * condition runs on every row either way). */
static bool when_by_branch(const qv_expr *e) {
  if (e->op != QV_OP_WHEN || e->n_args < 3 || !e->args) return false;
  for (int32_t k = 1; k < e->n_args; k++)
    if (qv_eval_may_fail(e->args[k])) return true;
  return false;
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
      if (c->batch && when_by_branch(e)) return eval_when(c, e, out);
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

/* ---- when/then/otherwise, branch by branch ---------------------------- */

/* Folds every constant subtree of e, for its errors alone: a branch no
 * row takes is not evaluated, yet Polars raises for a failing literal
 * cast in it (it folds constants whatever the rows). */
static qv_status fold_constants(qvk_ctx *c, const qv_expr *e, int depth) {
  if (!e || e->kind != QV_EXPR_CALL || depth > 4096) return QV_OK;
  if (is_constant(e)) {
    qvk_datum d = QVK_DATUM_INIT;
    qv_status st = fold(c, e, &d);
    qvk_datum_reset(&d);
    return st;
  }
  for (int32_t i = 0; i < e->n_args; i++) QV_RETURN_NOT_OK(fold_constants(c, e->args[i], depth + 1));
  return QV_OK;
}

qv_status qvk_fold_constants(const qv_expr *e, qv_error *err) {
  qvk_ctx none = {NULL, NULL, 1, NULL, 0, err};
  return fold_constants(&none, e, 0);
}

/* e on the rows pos[0..m) of c (positions among c's rows, ascending), as
 * a datum of m rows that no longer refers to rows (the batch rows of the
 * sub-evaluation, scratch of m elements).  m == c->n means all of them. */
static qv_status eval_rows(qvk_ctx *c, const qv_expr *e, const uint32_t *pos, int64_t m, uint32_t *rows,
                           qvk_datum *out) {
  if (m == c->n) return eval_node(c, e, out);
  for (int64_t j = 0; j < m; j++) rows[j] = c->sel ? c->sel[pos[j]] : pos[j];
  qvk_ctx sub;
  QV_RETURN_NOT_OK(ctx_init(&sub, c->batch, rows, m, c->err));
  qv_status st = eval_node(&sub, e, out);
  if (st == QV_OK) st = qvk_datum_dense(&sub, out);
  out->column = -1; /* a value of the sub-evaluation's rows, not c's view of a column */
  ctx_reset(&sub);
  return st;
}

/* The value of a branch taken on rows pos[0..m) of c, as a datum of c's n
 * rows (rows that do not take it hold whatever: the kernel never reads
 * them).  Only a value that can fail is evaluated on its rows alone. */
static qv_status eval_branch(qvk_ctx *c, const qv_expr *e, const uint32_t *pos, int64_t m, uint32_t *scratch,
                             qvk_datum *out) {
  if (m == c->n || !qv_eval_may_fail(e)) return eval_node(c, e, out);
  if (m == 0) { /* a null stands for it; its constants still fail as Polars' do */
    QV_RETURN_NOT_OK(fold_constants(c, e, 0));
    qv_scalar null = QV_SCALAR_INIT;
    qvk_datum_set_scalar(out, &null);
    return QV_OK;
  }
  qvk_datum r = QVK_DATUM_INIT;
  QV_RETURN_NOT_OK(eval_rows(c, e, pos, m, scratch, &r));
  if (r.scalar) {
    qvk_datum_move(out, &r);
    return QV_OK;
  }
  /* spread the m values to their rows; scratch becomes the map */
  memset(scratch, 0, (size_t)c->n * sizeof *scratch);
  for (int64_t j = 0; j < m; j++) scratch[pos[j]] = (uint32_t)j;
  qv_array *spread = NULL;
  qv_status st = qv_array_take(r.array, scratch, c->n, &spread, c->err);
  qvk_datum_reset(&r);
  if (st == QV_OK) qvk_datum_set_array(out, spread);
  return st;
}

/* when/then/otherwise as Polars runs it when a branch can fail: each
 * condition on the rows no earlier one took, each value on the rows that
 * take it.  The conditions become bool arrays over all n rows (false
 * where not evaluated: an earlier condition already decided the row) and
 * the values arrays over all n rows, so the when kernel then picks as it
 * always does. */
static qv_status eval_when(qvk_ctx *c, const qv_expr *e, qvk_datum *out) {
  int32_t na = e->n_args;
  if (na % 2 == 0) return qv_error_set(c->err, QV_ERR_INVALID, "when: malformed node");
  for (int32_t k = 0; k < na; k++)
    if (!e->args[k]) return qv_error_set(c->err, QV_ERR_INVALID, "when has a missing argument");
  int64_t n = c->n, nw = qvk_words(n), cap = n > 0 ? n : 1;
  /* undecided positions, taken positions, batch rows / spread map, truth and validity words */
  uint32_t *pos = qv_malloc((size_t)cap * 3 * sizeof *pos);
  uint64_t *tw = pos ? qv_malloc((size_t)(nw ? nw : 1) * 2 * sizeof *tw) : NULL;
  qvk_datum *args = tw ? qv_malloc((size_t)na * sizeof *args) : NULL;
  if (!args) {
    qv_free(pos);
    qv_free(tw);
    return qv_error_nomem(c->err, "when");
  }
  uint32_t *taken = pos + cap, *scratch = taken + cap;
  uint64_t *vw = tw + (nw ? nw : 1);
  qvk_datum init = QVK_DATUM_INIT;
  for (int32_t k = 0; k < na; k++) args[k] = init;
  for (int64_t i = 0; i < n; i++) pos[i] = (uint32_t)i;
  int64_t m = n;
  qv_status st = QV_OK;
  for (int32_t k = 0; k + 1 < na && st == QV_OK; k += 2) {
    qvk_datum cd = QVK_DATUM_INIT;
    int64_t mt = 0, left = 0;
    if (m > 0) st = eval_rows(c, e->args[k], pos, m, scratch, &cd);
    else st = fold_constants(c, e->args[k], 0);
    qv_bytes *bits = st == QV_OK ? qvk_bytes(nw * 8, c->err) : NULL;
    if (st == QV_OK && !bits) st = QV_ERR_NOMEM;
    if (st == QV_OK && m > 0) {
      qvk_bool_words(&cd, m, tw);
      if (qvk_validity_words(&cd, m, vw))
        for (int64_t w = 0; w < qvk_words(m); w++) tw[w] &= vw[w];
      uint8_t *b = qv_bytes_mutable(bits);
      for (int64_t j = 0; j < m; j++) {
        if ((tw[j >> 6] >> (j & 63)) & 1) {
          qv_bit_set(b, pos[j]);
          taken[mt++] = pos[j];
        } else {
          pos[left++] = pos[j];
        }
      }
      m = left;
    }
    qvk_datum_reset(&cd);
    if (st == QV_OK) st = qvk_bool_out(QV_OK, n, bits, NULL, &args[k], c->err);
    else qv_bytes_release(bits);
    if (st == QV_OK) st = eval_branch(c, e->args[k + 1], taken, mt, scratch, &args[k + 1]);
  }
  if (st == QV_OK) st = eval_branch(c, e->args[na - 1], pos, m, scratch, &args[na - 1]);
  if (st == QV_OK) st = run_kernel(c, e, args, out);
  for (int32_t k = 0; k < na; k++) qvk_datum_reset(&args[k]);
  qv_free(args);
  qv_free(tw);
  qv_free(pos);
  return st;
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

/* The rows of alive (in its order) that are also in b, into out: b's
 * rows marked in a bitmap of the batch's rows, so neither needs sorting. */
static qv_status intersect(const qv_selection *alive, const qv_selection *b, int64_t num_rows, qv_selection *out,
                           qv_error *err) {
  uint8_t *mark = qv_calloc((size_t)(num_rows / 8 + 1), 1);
  if (!mark || qv_selection_reserve(out, alive->count > 0 ? alive->count : 1) != QV_OK) {
    qv_free(mark);
    return qv_error_nomem(err, "filter");
  }
  for (int64_t j = 0; j < b->count; j++) qv_bit_set(mark, b->rows[j]);
  int64_t k = 0;
  for (int64_t i = 0; i < alive->count; i++)
    if (qv_bit_get(mark, alive->rows[i])) out->rows[k++] = alive->rows[i];
  out->count = k;
  qv_free(mark);
  return QV_OK;
}

/* One conjunct over rows (NULL: all n) into dst. */
static qv_status run_conjunct(const qv_expr *e, const qv_batch *batch, const uint32_t *rows, int64_t n,
                              qv_selection *dst, qv_error *err) {
  qvk_ctx c;
  QV_RETURN_NOT_OK(ctx_init(&c, batch, rows, n, err));
  qv_status st = filter_conjunct(&c, e, dst, err);
  ctx_reset(&c);
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
  /* Conjuncts that can fail on a value first, each on every row given:
   * Polars evaluates the whole column, so its error must not depend on
   * what another conjunct drops.  The others keep their order. */
  int32_t nf = 0;
  for (int32_t k = 0; k < nc; k++)
    if (qv_eval_may_fail(conj[k])) {
      const qv_expr *f = conj[k];
      memmove(conj + nf + 1, conj + nf, (size_t)(k - nf) * sizeof *conj);
      conj[nf++] = f;
    }
  /* Rows alive so far: sel (or all rows) before the first conjunct, then
   * alternately the two buffers below; the last conjunct writes to out. */
  qv_selection bufs[3] = {QV_SELECTION_INIT, QV_SELECTION_INIT, QV_SELECTION_INIT};
  const uint32_t *rows = sel ? sel->rows : NULL;
  int64_t n = sel ? sel->count : batch->num_rows;
  qv_status st = QV_OK;
  int cur = -1;
  bool done = false;
  for (int32_t k = 0; k < nc && st == QV_OK; k++) {
    if (n == 0 && k >= nf && k > 0) break; /* nothing left: out stays empty */
    int nxt = cur == 0 ? 1 : 0;
    qv_selection *dst = k == nc - 1 ? out : &bufs[nxt];
    if (k > 0 && k < nf) {
      /* a failing conjunct after the first: on every row given, then
       * intersected with the rows still alive */
      st = run_conjunct(conj[k], batch, sel ? sel->rows : NULL, sel ? sel->count : batch->num_rows, &bufs[2], err);
      qv_selection alive = {(uint32_t *)rows, n, 0};
      if (st == QV_OK) st = intersect(&alive, &bufs[2], batch->num_rows, dst, err);
    } else {
      st = run_conjunct(conj[k], batch, rows, n, dst, err);
    }
    if (st != QV_OK) break;
    if (dst == out) done = true;
    cur = nxt;
    rows = dst->rows;
    n = dst->count;
  }
  if (st != QV_OK || !done) out->count = 0;
  qv_selection_reset(&bufs[0]);
  qv_selection_reset(&bufs[1]);
  qv_selection_reset(&bufs[2]);
  if (conj != stack) qv_free((void *)conj);
  return st;
}
