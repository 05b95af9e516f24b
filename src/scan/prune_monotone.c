/* Page pruning through non-decreasing functions of a column: a conjunct
 * `f(col) op literal` (or `f(col) BETWEEN a AND b`) where f never
 * decreases as col grows, such as `ts.dt.year() == 2021` over a sorted or
 * clustered `ts`.  On a page whose non-null values lie in [min, max], f's
 * values lie in [f(min), f(max)], so the page is skipped when that interval
 * cannot satisfy the comparison (the same test prune.c applies to a bare
 * column).  f is evaluated by the compute layer on a two-row column [min,
 * max], so its answers are the kernels' own.
 *
 * Non-decreasing, for dates and timestamps: Polars' dt.year, dt.date,
 * dt.truncate (any step) and dt.epoch, and the SQL date_part('year' |
 * 'epoch') and date_trunc, optionally under a widening integer cast (the
 * binder adds those to compare with a literal).  Fields that wrap around
 * (month, day, hour, ...) are not, and are not used.  A null or failing
 * f(min) / f(max) (an epoch past int64, a truncation out of range) prunes
 * nothing.  Nulls compare null, so they never keep a page. */
#include <string.h>
#include <strings.h>

#include "expr/expr_lit.h"
#include "expr/op_info.h"
#include "quiver/compute.h"
#include "scan/scan_int.h"

/* The argument of call e that is the column (-1: e is not a non-decreasing
 * function of one column with literal options). */
static int32_t monotone_arg(const qv_expr *e) {
  if (e->kind != QV_EXPR_CALL) return -1;
  int32_t col = -1;
  switch (e->op) {
    case QV_OP_DT_PART:
      if (!e->name || strcmp(e->name, "year") != 0) return -1;
      col = 0;
      break;
    case QV_OP_DT_DATE:
    case QV_OP_DT_EPOCH:
    case QV_OP_DT_TRUNCATE: col = 0; break;
    case QV_OP_DATE_PART: {
      const qv_expr *p = e->args[0];
      if (!qve_is_str_lit(p)) return -1;
      bool year = p->value.len == 4 && !strncasecmp((const char *)p->value.bytes, "year", 4);
      bool years = p->value.len == 5 && !strncasecmp((const char *)p->value.bytes, "years", 5);
      bool epoch = p->value.len == 5 && !strncasecmp((const char *)p->value.bytes, "epoch", 5);
      if (!year && !years && !epoch) return -1;
      col = 1;
      break;
    }
    case QV_OP_DATE_TRUNC: col = 1; break;
    default: return -1;
  }
  if (col >= e->n_args || e->args[col]->kind != QV_EXPR_COLUMN) return -1;
  qv_type_id t = e->args[col]->type.id;
  if (t != QV_TYPE_DATE32 && t != QV_TYPE_TIMESTAMP) return -1;
  for (int32_t i = 0; i < e->n_args; i++)
    if (i != col && e->args[i]->kind != QV_EXPR_LITERAL) return -1;
  return col;
}

static bool widening(const qv_expr *e) {
  if (e->kind != QV_EXPR_CALL || e->op != QV_OP_CAST || e->n_args != 1) return false;
  qv_type_id from = e->args[0]->type.id, to = e->type.id;
  if (!qv_type_is_integer(from) || !qv_type_is_integer(to)) return false;
  int wf = qv_type_byte_width(from), wt = qv_type_byte_width(to);
  return qv_type_is_signed(from) == qv_type_is_signed(to) ? wt >= wf : !qv_type_is_signed(from) && wt > wf;
}

/* The column node under side when side is [cast] f(column), else NULL. */
static qv_expr *monotone_column(qv_expr *side) {
  qv_expr *f = widening(side) ? side->args[0] : side;
  int32_t a = monotone_arg(f);
  return a < 0 ? NULL : f->args[a];
}

static qv_status add_probe(qvsc_mono_probe **probes, int32_t *n, const qv_expr *side, qv_op op, const qv_scalar *lo,
                           const qv_scalar *hi, const qv_schema *ds, qv_error *err) {
  qvsc_mono_probe p = {0};
  p.op = op;
  p.lit = lo;
  p.lit2 = hi;
  if (!(p.fn = qv_expr_clone(side))) return qv_error_nomem(err, "prune");
  qv_expr *colnode = monotone_column(p.fn);
  p.column = colnode->column;
  colnode->column = 0; /* the probe's batch holds that column alone */
  qv_status st = qv_schema_add(&p.schema, &ds->fields[p.column], err);
  qvsc_mono_probe *grown = st == QV_OK ? qv_realloc(*probes, (size_t)(*n + 1) * sizeof *grown) : NULL;
  if (st == QV_OK && !grown) st = qv_error_nomem(err, "prune");
  if (st != QV_OK) {
    qv_expr_destroy(p.fn);
    qv_schema_reset(&p.schema);
    return st;
  }
  grown[(*n)++] = p;
  *probes = grown;
  return QV_OK;
}

/* The side of conjunct e a probe evaluates, its operator and literals. */
static bool probe_shape(const qv_expr *e, const qv_expr **side, qv_op *op, const qv_scalar **lo, const qv_scalar **hi) {
  if (e->kind != QV_EXPR_CALL) return false;
  *hi = NULL;
  if (qve_op_is_compare(e->op) && e->n_args == 2) {
    *op = e->op;
    *side = e->args[0];
    const qv_expr *lit = e->args[1];
    if (!monotone_column((qv_expr *)*side)) {
      *side = e->args[1];
      lit = e->args[0];
      *op = qv_op_mirror(e->op);
    }
    *lo = &lit->value;
    return monotone_column((qv_expr *)*side) && qve_is_value_lit(lit);
  }
  if (e->op == QV_OP_BETWEEN && e->n_args == 3 && monotone_column(e->args[0]) && qve_is_value_lit(e->args[1]) &&
      qve_is_value_lit(e->args[2])) {
    *op = QV_OP_BETWEEN;
    *side = e->args[0];
    *lo = &e->args[1]->value;
    *hi = &e->args[2]->value;
    return true;
  }
  return false;
}

bool qvsc_mono_applicable(const qv_expr *e) {
  const qv_expr *side;
  qv_op op;
  const qv_scalar *lo, *hi;
  return probe_shape(e, &side, &op, &lo, &hi);
}

qv_status qvsc_mono_probes_make(const qv_expr *const *conjuncts, int32_t n, const qv_schema *ds, qvsc_mono_probe **out,
                                int32_t *n_out, qv_error *err) {
  *out = NULL;
  *n_out = 0;
  for (int32_t i = 0; i < n; i++) {
    const qv_expr *side;
    qv_op op;
    const qv_scalar *lo, *hi;
    if (!probe_shape(conjuncts[i], &side, &op, &lo, &hi)) continue;
    qv_status st = add_probe(out, n_out, side, op, lo, hi, ds, err);
    if (st != QV_OK) {
      qvsc_mono_probes_free(*out, *n_out);
      *out = NULL;
      *n_out = 0;
      return st;
    }
  }
  return QV_OK;
}

void qvsc_mono_probes_free(qvsc_mono_probe *p, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    qv_expr_destroy(p[i].fn);
    qv_schema_reset(&p[i].schema);
  }
  qv_free(p);
}

bool qvsc_mono_prune(const qvsc_mono_probe *p, const qv_page_stats *const *stats, int64_t rows) {
  const qv_page_stats *st = stats[p->column];
  if (st->null_count >= rows) return true; /* every row compares null */
  if (st->min.is_null || st->max.is_null) return false;
  const qv_field *f = &p->schema.fields[0];
  qv_builder b;
  qv_array *col = NULL, *res = NULL;
  qv_batch *batch = NULL;
  bool pruned = false;
  qv_scalar lo = QV_SCALAR_INIT, hi = QV_SCALAR_INIT;
  if (qv_builder_init(&b, &f->type, NULL) != QV_OK) return false;
  if (qv_builder_append_int(&b, st->min.v.i) != QV_OK || qv_builder_append_int(&b, st->max.v.i) != QV_OK ||
      qv_builder_finish(&b, &col, NULL) != QV_OK) {
    qv_builder_reset(&b);
    return false;
  }
  if (qv_batch_make(&p->schema, &col, 2, &batch, NULL) != QV_OK) goto cleanup; /* takes col */
  if (qv_eval(p->fn, batch, NULL, &res, NULL) != QV_OK || res->length != 2 || res->null_count != 0) goto cleanup;
  if (qv_scalar_from_array(res, 0, &lo, NULL) != QV_OK || qv_scalar_from_array(res, 1, &hi, NULL) != QV_OK)
    goto cleanup;
  if (p->op == QV_OP_BETWEEN)
    pruned = qvsc_interval_excludes(QV_OP_GE, &lo, &hi, p->lit) || qvsc_interval_excludes(QV_OP_LE, &lo, &hi, p->lit2);
  else pruned = qvsc_interval_excludes(p->op, &lo, &hi, p->lit);
cleanup:
  qv_scalar_reset(&lo);
  qv_scalar_reset(&hi);
  qv_array_release(res);
  qv_batch_release(batch);
  return pruned;
}
