/* Planning a scan: from the options to a qvsc_plan (scan_plan.h) the
 * executor (scanner.c) runs.  The projection (dataset column of each output
 * column), the filter parsed, bound and checked once, its columns (decoded
 * first, before any projected one), its conjuncts (page pruning by
 * statistics and through non-decreasing functions) and which of them
 * scalar indices answer (index_plan.c), with the refine program of the
 * rest.  Nothing here reads a page. */
#include <stdio.h>
#include <string.h>

#include "quiver/compute.h"
#include "scan/scan_plan.h"

static qv_status add_field(qv_schema *s, const qv_field *f, qv_error *err) { return qv_schema_add(s, f, err); }

static qv_status plan_projection(qvsc_plan *p, const qv_dataset *dataset, const qv_scan_options *o, qv_error *err) {
  const qv_schema *ds = qv_dataset_schema(dataset);
  int32_t n = o->columns ? o->n_columns : ds->n_fields;
  p->proj = qv_calloc((size_t)(n > 0 ? n : 1), sizeof *p->proj);
  if (!p->proj) return qv_error_nomem(err, NULL);
  for (int32_t i = 0; i < n; i++) {
    int32_t c = i;
    if (o->columns) {
      c = qv_schema_find(ds, o->columns[i]);
      if (c < 0) {
        char names[512] = "";
        for (int32_t k = 0; k < ds->n_fields; k++) {
          size_t len = strlen(names);
          snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "", ds->fields[k].name);
        }
        return qv_error_set(err, QV_ERR_NOT_FOUND, "select: no column `%s` (columns: %s)", o->columns[i], names);
      }
    }
    p->proj[i] = c;
    QV_RETURN_NOT_OK(add_field(&p->out_schema, &ds->fields[c], err));
  }
  p->n_proj = n;
  if (p->with_row_id) {
    qv_field f = {(char *)"_rowid", qv_datatype_simple(QV_TYPE_UINT64), false};
    QV_RETURN_NOT_OK(add_field(&p->out_schema, &f, err));
  }
  return QV_OK;
}

static qv_status plan_filter(qvsc_plan *p, const qv_dataset *dataset, const qv_scan_options *o, qv_error *err) {
  qv_expr *parsed = NULL;
  qv_status st = QV_OK;
  if (o->filter && o->filter_expr)
    return qv_error_set(err, QV_ERR_INVALID, "scan: give a filter string or an expression, not both");
  if (o->filter) {
    const char *c = o->filter;
    while (*c == ' ' || *c == '\t' || *c == '\n') c++;
    if (!*c) return QV_OK; /* an empty filter keeps every row */
    QV_RETURN_NOT_OK(qv_lance_filter_parse(o->filter, &parsed, err));
  } else if (o->filter_expr) {
    if (!(parsed = qv_expr_clone(o->filter_expr))) return qv_error_nomem(err, NULL);
  } else {
    return QV_OK;
  }
  const qv_schema *ds = qv_dataset_schema(dataset);
  p->filter_local = qv_expr_clone(parsed);
  if (!p->filter_local) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  if ((st = qv_expr_bind(parsed, ds, err)) != QV_OK) goto cleanup;
  p->filter = parsed;
  parsed = NULL;
  if (p->filter->type.id != QV_TYPE_BOOL && p->filter->type.id != QV_TYPE_NULL) {
    char tn[64];
    qv_datatype_format(&p->filter->type, tn, sizeof tn);
    st = qv_error_set(err, QV_ERR_TYPE, "filter: the filter must be boolean, not %s", tn);
    goto cleanup;
  }
  /* Regex patterns and other constants a kernel refuses fail the open,
   * not the first batch. */
  if ((st = qv_eval_check(p->filter, err)) != QV_OK) goto cleanup;
  /* The columns the filter reads, ascending, and the narrow schema the
   * evaluator sees them in. */
  if ((st = qvsc_filter_columns(p->filter, &p->fcols, &p->n_fcols, err)) != QV_OK) goto cleanup;
  for (int32_t i = 0; i < p->n_fcols; i++)
    if ((st = add_field(&p->filter_schema, &ds->fields[p->fcols[i]], err)) != QV_OK) goto cleanup;
  if ((st = qv_expr_bind(p->filter_local, &p->filter_schema, err)) != QV_OK) goto cleanup;
  int32_t nc = qv_expr_conjuncts(p->filter, NULL, 0);
  p->conjuncts = qv_calloc((size_t)nc, sizeof *p->conjuncts);
  if (!p->conjuncts) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  p->n_conjuncts = qv_expr_conjuncts(p->filter, p->conjuncts, nc);
  for (int32_t i = 0; i < p->n_conjuncts && !p->may_fail; i++)
    if (qv_eval_may_fail(p->conjuncts[i])) p->may_fail = p->conjuncts[i];
  /* a filter that can fail on a value prunes nothing (see may_fail) */
  if (!p->may_fail) st = qvsc_mono_probes_make(p->conjuncts, p->n_conjuncts, ds, &p->probes, &p->n_probes, err);
cleanup:
  qv_expr_destroy(parsed);
  return st;
}

/* Which conjuncts indices answer; the refine program of the others. */
static qv_status plan_indices(qvsc_plan *p, const qv_dataset *dataset, const qv_scan_options *o, qv_error *err) {
  p->use_index = o->use_scalar_index && p->pushdown && p->filter && !p->may_fail;
  if (!p->use_index) return QV_OK;
  QV_RETURN_NOT_OK(qvsc_index_plan_make(dataset, p->conjuncts, p->n_conjuncts, &p->iplan, err));
  if (!qvsc_index_plan_any(p->iplan)) return QV_OK;
  const qv_expr **rest = qv_calloc((size_t)p->n_conjuncts, sizeof *rest);
  if (!rest) return qv_error_nomem(err, NULL);
  int32_t n = 0;
  for (int32_t i = 0; i < p->n_conjuncts; i++) {
    const qvsc_index_use *u = qvsc_index_plan_use(p->iplan, i);
    if (!u->used || !u->exact) rest[n++] = p->conjuncts[i];
  }
  qv_status st = qvsc_filter_prog_build(qv_dataset_schema(dataset), rest, n, &p->refine, err);
  qv_free(rest);
  if (st == QV_OK) p->by_index = true;
  return st;
}

qv_status qvsc_plan_make(const qv_dataset *ds, const qv_scan_options *o, qvsc_plan *p, qv_error *err) {
  memset(p, 0, sizeof *p);
  if (o->version < 1 || o->version > QV_SCAN_OPTIONS_VERSION)
    return qv_error_set(err, QV_ERR_INVALID, "scan: options version %d is not 1..%d (use QV_SCAN_OPTIONS_INIT)",
                        o->version, QV_SCAN_OPTIONS_VERSION);
  if (o->batch_size < 0 || o->offset < 0)
    return qv_error_set(err, QV_ERR_INVALID, "scan: batch size and offset must not be negative");
  p->limit = o->limit;
  p->offset = o->offset;
  p->batch_size = o->batch_size > 0 ? o->batch_size : 8192;
  p->with_row_id = o->with_row_id;
  p->pushdown = o->predicate_pushdown;
  qv_status st = plan_projection(p, ds, o, err);
  if (st == QV_OK) st = plan_filter(p, ds, o, err);
  if (st == QV_OK) st = plan_indices(p, ds, o, err);
  if (st != QV_OK) qvsc_plan_reset(p);
  return st;
}

void qvsc_plan_reset(qvsc_plan *p) {
  qv_expr_destroy(p->filter);
  qv_expr_destroy(p->filter_local);
  qv_free(p->conjuncts);
  qvsc_mono_probes_free(p->probes, p->n_probes);
  qvsc_index_plan_destroy(p->iplan);
  qvsc_filter_prog_reset(&p->refine);
  qv_free(p->fcols);
  qv_free(p->proj);
  qv_schema_reset(&p->filter_schema);
  qv_schema_reset(&p->out_schema);
  memset(p, 0, sizeof *p);
}

bool qvsc_plan_prunes_page(const qvsc_plan *p, const qv_page_stats *const *stats, int64_t rows) {
  if (p->may_fail) return false;
  for (int32_t i = 0; i < p->n_conjuncts; i++)
    if (qvsc_prune_page(p->conjuncts[i], stats, rows)) return true;
  for (int32_t i = 0; i < p->n_probes; i++)
    if (qvsc_mono_prune(&p->probes[i], stats, rows)) return true;
  return false;
}

qvsc_plan_filter qvsc_plan_filter_for(const qvsc_plan *p, bool refine_only) {
  if (refine_only) return (qvsc_plan_filter){p->refine.expr, &p->refine.schema, p->refine.n_cols, p->refine.cols};
  return (qvsc_plan_filter){p->filter_local, &p->filter_schema, p->n_fcols, p->fcols};
}
