/* explain: the scan plan as indented text, and the counters of a run. */
#include <stdio.h>
#include <string.h>

#include "base/text.h"
#include "scan/nearest.h"
#include "scan/scan_plan.h"

static void add_expr(qvb_text *t, const qv_expr *e) {
  char *s = qv_expr_to_string(e);
  if (!s) {
    t->oom = true;
    return;
  }
  qvb_text_s(t, s);
  qv_free(s);
}

static void add_columns(qvb_text *t, const qv_schema *ds, const int32_t *cols, int32_t n) {
  for (int32_t i = 0; i < n; i++) qvb_text_f(t, "%s%s", i ? ", " : "", ds->fields[cols[i]].name);
  if (n == 0) qvb_text_f(t, "(none)");
}

/* Which index answers which conjunct, exact or superset, the estimate
 * behind the choice, and what is left to evaluate. */
static void add_indices(qvb_text *t, const qv_dataset *ds, const qvsc_plan *v) {
  if (qv_dataset_num_indices(ds) == 0) return;
  if (v->may_fail) {
    qvb_text_f(t, "    scalar indices: not used (every row is evaluated, see above)\n");
    return;
  }
  if (!v->use_index) {
    qvb_text_f(t, "    scalar indices: off (use_scalar_index is false)\n");
    return;
  }
  bool any = false, listed = false;
  for (int32_t i = 0; i < v->n_conjuncts; i++) {
    const qvsc_index_use *u = qvsc_index_plan_use(v->iplan, i);
    if (!u || !u->candidate) continue;
    listed = true;
    qvb_text_f(t, "    index %s answers ", u->how);
    add_expr(t, v->conjuncts[i]);
    qvb_text_f(t, ": %s, estimate %lld of %lld row%s", u->exact ? "exact" : "superset (re-checked)",
               (long long)u->estimate, (long long)u->covered_rows, u->covered_rows == 1 ? "" : "s");
    if (u->used) qvb_text_f(t, "\n");
    else if (u->covered_rows == 0) qvb_text_f(t, " -> not used: no readable file of it covers a row\n");
    else if ((double)u->estimate > QV_INDEX_MAX_FRACTION * (double)u->covered_rows)
      qvb_text_f(t, " -> not used: over %g%% of the rows, scanned instead\n", QV_INDEX_MAX_FRACTION * 100);
    else
      qvb_text_f(t, " -> not used: the lookup reads %lld index entries (over %g%% of the rows), scanned instead\n",
                 (long long)u->entries_read, QV_INDEX_MAX_READ * 100);
    any |= u->used;
  }
  if (!listed) {
    qvb_text_f(t, "    scalar indices: none answers a conjunct\n");
    return;
  }
  if (!any) return;
  qvb_text_f(t, "    refine after the index lookup: ");
  int32_t n = 0;
  for (int32_t i = 0; i < v->n_conjuncts; i++) {
    const qvsc_index_use *u = qvsc_index_plan_use(v->iplan, i);
    if (u->used && u->exact) continue;
    if (n++) qvb_text_f(t, " AND ");
    add_expr(t, v->conjuncts[i]);
  }
  if (!n) qvb_text_f(t, "nothing (the indices answer the filter exactly)");
  qvb_text_f(t, "\n    (fragments an index does not cover are filtered in full)\n");
}

/* Index files found unusable so far (while planning, or by the lookups of
 * a run): the scan did not fail, their fragments were filtered in full. */
static void add_damage(qvb_text *t, const qvsc_plan *v) {
  qv_scan_counters c;
  memset(&c, 0, sizeof c);
  qvsc_index_plan_damage(v->iplan, &c);
  for (int32_t i = 0; i < c.n_index_fallbacks; i++)
    qvb_text_f(t, "    index %s unusable for %lld fragment(s), those filtered in full: %s\n",
               c.index_fallbacks[i].index, (long long)c.index_fallbacks[i].fragments, c.index_fallbacks[i].error);
  if (c.n_index_fallbacks)
    qvb_text_f(t, "    (repair: quiver index optimize DATASET NAME --rebuild, or drop and create the index)\n");
}

char *qv_scanner_explain(const qv_scanner *s, bool with_counters) {
  if (qvsc_scanner_nearest_(s)) return qvsc_nearest_explain(qvsc_scanner_nearest_(s), with_counters);
  qvb_text t = {NULL, 0, 0, false};
  const qvsc_plan *v = qvsc_scanner_plan_(s);
  const qv_dataset *ds = qvsc_scanner_dataset_(s);
  const qv_schema *schema = qv_dataset_schema(ds);
  int32_t nf = qv_dataset_num_fragments(ds);
  int64_t rows = qv_dataset_count_rows(ds);
  qvb_text_f(&t, "Scan %s version %lld (%d fragment%s, %lld row%s)\n", qv_dataset_path(ds),
             (long long)qv_dataset_version(ds), nf, nf == 1 ? "" : "s", (long long)rows, rows == 1 ? "" : "s");
  qvb_text_f(&t, "  Project: ");
  add_columns(&t, schema, v->proj, v->n_proj);
  if (v->with_row_id) qvb_text_f(&t, "%s_rowid", v->n_proj ? ", " : "");
  qvb_text_f(&t, "\n");
  const qv_expr *f = v->filter;
  if (f) {
    qvb_text_f(&t, "  Filter: ");
    add_expr(&t, f);
    qvb_text_f(&t, "\n");
    if (v->pushdown) {
      qvb_text_f(&t, "    pushdown: on (decode ");
      add_columns(&t, schema, v->fcols, v->n_fcols);
      qvb_text_f(&t, " first; the other projected columns only for selected rows)\n");
      int32_t prunable = 0;
      if (v->may_fail) {
        /* Polars raises for a bad value in any row, so no row is skipped */
        qvb_text_f(&t, "    page pruning by statistics: off (");
        add_expr(&t, v->may_fail);
        qvb_text_f(&t, " can fail on a value: every row is evaluated, as Polars evaluates the whole column)\n");
        prunable = -1;
      }
      for (int32_t i = 0; i < v->n_conjuncts && prunable >= 0; i++) {
        if (!qvsc_prune_applicable(v->conjuncts[i])) continue;
        qvb_text_f(&t, "    page pruning by statistics: ");
        add_expr(&t, v->conjuncts[i]);
        qvb_text_f(&t, "\n");
        prunable++;
      }
      if (prunable == 0)
        qvb_text_f(&t, "    page pruning by statistics: none (no conjunct compares a column with a constant)\n");
      add_indices(&t, ds, v);
      add_damage(&t, v);
    } else {
      qvb_text_f(&t, "    pushdown: off (decode every needed column in full, then filter)\n");
    }
  }
  if (v->offset > 0) qvb_text_f(&t, "  Offset: %lld\n", (long long)v->offset);
  if (v->limit >= 0) qvb_text_f(&t, "  Limit: %lld\n", (long long)v->limit);
  if (with_counters) {
    qv_scan_counters c;
    qv_scanner_counters(s, &c);
    qvb_text_f(&t, "Counters:\n");
    qvb_text_f(&t, "  fragments read: %lld\n", (long long)c.fragments);
    qvb_text_f(&t, "  pages: %lld total, %lld pruned\n", (long long)c.pages_total, (long long)c.pages_pruned);
    qvb_text_f(&t, "  rows: %lld scanned, %lld selected, %lld returned\n", (long long)c.rows_scanned,
               (long long)c.rows_selected, (long long)c.rows_returned);
    if (v->iplan && qvsc_index_plan_any(v->iplan))
      qvb_text_f(&t, "  index: %lld row%s kept, %lld fragment%s and %lld page range%s skipped, %lld byte%s read\n",
                 (long long)c.index_rows, c.index_rows == 1 ? "" : "s", (long long)c.fragments_index_skipped,
                 c.fragments_index_skipped == 1 ? "" : "s", (long long)c.pages_index_skipped,
                 c.pages_index_skipped == 1 ? "" : "s", (long long)c.index_bytes_read,
                 c.index_bytes_read == 1 ? "" : "s");
    if (c.index_fallback_fragments)
      qvb_text_f(&t, "  index fallback: %lld fragment(s) filtered in full (index files unusable, see above)\n",
                 (long long)c.index_fallback_fragments);
    qvb_text_f(&t, "  %-24s %14s %14s %8s\n", "column", "bytes read", "bytes decoded", "pages");
    for (int32_t i = 0; i < c.n_columns; i++)
      qvb_text_f(&t, "  %-24s %14lld %14lld %8lld\n", c.columns[i].name, (long long)c.columns[i].bytes_read,
                 (long long)c.columns[i].bytes_decoded, (long long)c.columns[i].pages_read);
  }
  qvb_text_add(&t, "", 0);
  if (t.oom) {
    qvb_text_free(&t);
    return NULL;
  }
  return t.p;
}
