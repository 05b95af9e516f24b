/* explain: the scan plan as indented text, and the counters of a run. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "scan/scan_int.h"

typedef struct text {
  qv_buffer buf;
  bool failed;
} text;

static void add(text *t, const char *fmt, ...) {
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof line) n = sizeof line - 1;
  if (qv_buffer_append(&t->buf, line, n) != QV_OK) t->failed = true;
}

static void add_expr(text *t, const qv_expr *e) {
  char *s = qv_expr_to_string(e);
  if (!s) {
    t->failed = true;
    return;
  }
  if (qv_buffer_append(&t->buf, s, (int64_t)strlen(s)) != QV_OK) t->failed = true;
  qv_free(s);
}

static void add_columns(text *t, const qv_schema *ds, const int32_t *cols, int32_t n) {
  for (int32_t i = 0; i < n; i++) add(t, "%s%s", i ? ", " : "", ds->fields[cols[i]].name);
  if (n == 0) add(t, "(none)");
}

/* Which index answers which conjunct, exact or superset, the estimate
 * behind the choice, and what is left to evaluate. */
static void add_indices(text *t, const qv_dataset *ds, const qv_scan_plan_view *v) {
  if (qv_dataset_num_indices(ds) == 0) return;
  if (!v->use_index) {
    add(t, "    scalar indices: off (use_scalar_index is false)\n");
    return;
  }
  bool any = false, listed = false;
  for (int32_t i = 0; i < v->n_conjuncts; i++) {
    const qv_index_use *u = qv_index_plan_use(v->index_plan, i);
    if (!u || !u->candidate) continue;
    listed = true;
    add(t, "    index %s answers ", u->how);
    add_expr(t, v->conjuncts[i]);
    add(t, ": %s, estimate %lld of %lld rows", u->exact ? "exact" : "superset (re-checked)", (long long)u->estimate,
        (long long)u->covered_rows);
    if (u->used) add(t, "\n");
    else if (u->covered_rows == 0) add(t, " -> not used: no readable file of it covers a row\n");
    else if ((double)u->estimate > QV_INDEX_MAX_FRACTION * (double)u->covered_rows)
      add(t, " -> not used: over %g%% of the rows, scanned instead\n", QV_INDEX_MAX_FRACTION * 100);
    else
      add(t, " -> not used: the lookup reads %lld index entries (over %g%% of the rows), scanned instead\n",
          (long long)u->entries_read, QV_INDEX_MAX_READ * 100);
    any |= u->used;
  }
  if (!listed) {
    add(t, "    scalar indices: none answers a conjunct\n");
    return;
  }
  if (!any) return;
  add(t, "    refine after the index lookup: ");
  int32_t n = 0;
  for (int32_t i = 0; i < v->n_conjuncts; i++) {
    const qv_index_use *u = qv_index_plan_use(v->index_plan, i);
    if (u->used && u->exact) continue;
    if (n++) add(t, " AND ");
    add_expr(t, v->conjuncts[i]);
  }
  if (!n) add(t, "nothing (the indices answer the filter exactly)");
  add(t, "\n    (fragments an index does not cover are filtered in full)\n");
}

/* Index files found unusable so far (while planning, or by the lookups of
 * a run): the scan did not fail, their fragments were filtered in full. */
static void add_damage(text *t, const qv_scan_plan_view *v) {
  qv_scan_counters c;
  memset(&c, 0, sizeof c);
  qv_index_plan_damage(v->index_plan, &c);
  for (int32_t i = 0; i < c.n_index_fallbacks; i++)
    add(t, "    index %s unusable for %lld fragment(s), those filtered in full: %s\n", c.index_fallbacks[i].index,
        (long long)c.index_fallbacks[i].fragments, c.index_fallbacks[i].error);
  if (c.n_index_fallbacks)
    add(t, "    (repair: quiver index optimize DATASET NAME --rebuild, or drop and create the index)\n");
}

char *qv_scanner_explain(const qv_scanner *s, bool with_counters) {
  text t = {QV_BUFFER_INIT, false};
  qv_scan_plan_view v;
  qv_scanner_plan_(s, &v);
  const qv_dataset *ds = qv_scanner_dataset_(s);
  const qv_schema *schema = qv_dataset_schema(ds);
  int32_t nf = qv_dataset_num_fragments(ds);
  add(&t, "Scan %s version %lld (%d fragment%s, %lld rows)\n", qv_dataset_path(ds),
      (long long)qv_dataset_version(ds), nf, nf == 1 ? "" : "s", (long long)qv_dataset_count_rows(ds));
  add(&t, "  Project: ");
  add_columns(&t, schema, v.proj, v.n_proj);
  if (v.with_row_id) add(&t, "%s_rowid", v.n_proj ? ", " : "");
  add(&t, "\n");
  const qv_expr *f = qv_scanner_filter_(s);
  if (f) {
    add(&t, "  Filter: ");
    add_expr(&t, f);
    add(&t, "\n");
    if (v.pushdown) {
      add(&t, "    pushdown: on (decode ");
      add_columns(&t, schema, v.fcols, v.n_fcols);
      add(&t, " first; the other projected columns only for selected rows)\n");
      int32_t prunable = 0;
      for (int32_t i = 0; i < v.n_conjuncts; i++) {
        if (!qv_prune_applicable(v.conjuncts[i])) continue;
        add(&t, "    page pruning by statistics: ");
        add_expr(&t, v.conjuncts[i]);
        add(&t, "\n");
        prunable++;
      }
      if (!prunable) add(&t, "    page pruning by statistics: none (no conjunct compares a column with a constant)\n");
      add_indices(&t, ds, &v);
      add_damage(&t, &v);
    } else {
      add(&t, "    pushdown: off (decode every needed column in full, then filter)\n");
    }
  }
  if (v.offset > 0) add(&t, "  Offset: %lld\n", (long long)v.offset);
  if (v.limit >= 0) add(&t, "  Limit: %lld\n", (long long)v.limit);
  if (with_counters) {
    qv_scan_counters c;
    qv_scanner_counters(s, &c);
    add(&t, "Counters:\n");
    add(&t, "  fragments read: %lld\n", (long long)c.fragments);
    add(&t, "  pages: %lld total, %lld pruned\n", (long long)c.pages_total, (long long)c.pages_pruned);
    add(&t, "  rows: %lld scanned, %lld selected, %lld returned\n", (long long)c.rows_scanned,
        (long long)c.rows_selected, (long long)c.rows_returned);
    if (v.index_plan && qv_index_plan_any(v.index_plan))
      add(&t, "  index: %lld rows kept, %lld page ranges skipped, %lld bytes read\n", (long long)c.index_rows,
          (long long)c.pages_index_skipped, (long long)c.index_bytes_read);
    if (c.index_fallback_fragments)
      add(&t, "  index fallback: %lld fragment(s) filtered in full (index files unusable, see above)\n",
          (long long)c.index_fallback_fragments);
    add(&t, "  %-24s %14s %14s %8s\n", "column", "bytes read", "bytes decoded", "pages");
    for (int32_t i = 0; i < c.n_columns; i++)
      add(&t, "  %-24s %14lld %14lld %8lld\n", c.columns[i].name, (long long)c.columns[i].bytes_read,
          (long long)c.columns[i].bytes_decoded, (long long)c.columns[i].pages_read);
  }
  if (t.failed || qv_buffer_append(&t.buf, "", 1) != QV_OK) {
    qv_buffer_reset(&t.buf);
    return NULL;
  }
  return (char *)t.buf.data;
}
