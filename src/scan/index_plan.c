/* Choosing which conjuncts of a filter the scalar indices answer, and
 * answering them fragment by fragment (docs/ARCHITECTURE.md, decision 7).
 *
 * For each top-level conjunct the planner asks every index of the version
 * for an estimate and keeps the one returning the fewest rows (exact before
 * superset at equal counts).  An OR is answered when both sides are, each
 * exactly; an AND inside an OR when all its parts are, exactly; NOT only
 * as the index layer answers it (exactly, on one column).  A conjunct whose
 * estimate exceeds QV_INDEX_MAX_FRACTION of the rows its indices cover is
 * left to the scan: touching most rows through an index costs more than
 * reading the column in page order; so is one whose lookup itself reads
 * many index entries (many points spread over a BTREE's pages: see
 * pays()).  Two conjuncts one index answers
 * together (x >= lo and x <= hi, as Polars' is_between arrives) are also
 * asked as their AND, one lookup of the intersected range, when that pays
 * better than the first alone.  The rows indices return for a
 * fragment are intersected; conjuncts answered as supersets, conjuncts no
 * index answers and every conjunct of a fragment some chosen index does not
 * cover are evaluated on those rows as usual. */
#include <stdio.h>
#include <string.h>

#include "scan/scan_int.h"

typedef struct inode {
  int kind; /* 0 leaf, 1 AND, 2 OR */
  qv_index *ix;
  const qv_expr *expr;
  struct inode *kids;
  int32_t n_kids;
  bool exact;
  int64_t est, covered, read; /* rows returned, rows covered, index entries read */
} inode;

struct qvsc_index_plan {
  qv_index **indices;
  int32_t n_indices;
  qvsc_index_use *uses; /* one per conjunct */
  inode *trees;         /* one per conjunct (kind -1 when none) */
  int32_t n_conjuncts;
  qv_expr **pairs; /* owned: ANDs of two conjuncts answered as one */
  int32_t n_pairs;
};

static void node_reset(inode *n) {
  for (int32_t i = 0; i < n->n_kids; i++) node_reset(&n->kids[i]);
  qv_free(n->kids);
  memset(n, 0, sizeof *n);
  n->kind = -1;
}

void qvsc_index_plan_destroy(qvsc_index_plan *p) {
  if (!p) return;
  for (int32_t i = 0; i < p->n_conjuncts; i++) node_reset(&p->trees[i]);
  for (int32_t i = 0; i < p->n_indices; i++) qv_index_close(p->indices[i]);
  for (int32_t i = 0; i < p->n_pairs; i++) qv_expr_destroy(p->pairs[i]);
  qv_free(p->pairs);
  qv_free(p->indices);
  qv_free(p->uses);
  qv_free(p->trees);
  qv_free(p);
}

/* Whether answering through the index pays: it returns at most
 * QV_INDEX_MAX_FRACTION of the rows it covers, and the lookup reads at most
 * QV_INDEX_MAX_READ of them in index entries or few entries anyway (an
 * entry -- key, row number, offset -- costs several times a row of a
 * column scan: an IN of 200 ids that touches 200 BTREE pages of 4,096
 * entries reads 40% of a 2M-row index, slower than scanning the bit-packed
 * column, measured; below QV_INDEX_SMALL_READ entries either way costs
 * about a millisecond). */
static bool pays(const inode *n) {
  return n->covered > 0 && (double)n->est <= QV_INDEX_MAX_FRACTION * (double)n->covered &&
         (n->read <= QV_INDEX_SMALL_READ || (double)n->read <= QV_INDEX_MAX_READ * (double)n->covered);
}

/* The best single index for e (exact only when need_exact). */
static qv_status best_leaf(qvsc_index_plan *p, const qv_expr *e, bool need_exact, inode *out, bool *found,
                           qv_error *err) {
  *found = false;
  for (int32_t i = 0; i < p->n_indices; i++) {
    qv_index_estimate est;
    QV_RETURN_NOT_OK(qv_index_estimate_rows(p->indices[i], e, &est, err));
    if (est.answer == QV_INDEX_NO || (need_exact && est.answer != QV_INDEX_EXACT)) continue;
    bool exact = est.answer == QV_INDEX_EXACT;
    if (*found && (est.rows > out->est || (est.rows == out->est && (out->exact || !exact)))) continue;
    *out = (inode){0, p->indices[i], e, NULL, 0, exact, est.rows, est.covered_rows, est.entries_read};
    *found = true;
  }
  return QV_OK;
}

static qv_status plan_expr(qvsc_index_plan *p, const qv_expr *e, bool need_exact, inode *out, bool *found,
                           qv_error *err) {
  QV_RETURN_NOT_OK(best_leaf(p, e, need_exact, out, found, err));
  if (*found || e->kind != QV_EXPR_CALL || (e->op != QV_OP_OR && e->op != QV_OP_AND) || e->n_args != 2) return QV_OK;
  inode kids[2];
  memset(kids, 0, sizeof kids);
  bool f0 = false, f1 = false;
  qv_status st = plan_expr(p, e->args[0], true, &kids[0], &f0, err);
  if (st == QV_OK && f0) st = plan_expr(p, e->args[1], true, &kids[1], &f1, err);
  if (st != QV_OK || !f0 || !f1) {
    if (f0) node_reset(&kids[0]);
    if (f1) node_reset(&kids[1]);
    return st;
  }
  inode *k = qv_malloc(sizeof kids);
  if (!k) {
    node_reset(&kids[0]);
    node_reset(&kids[1]);
    return qv_error_nomem(err, NULL);
  }
  memcpy(k, kids, sizeof kids);
  bool is_or = e->op == QV_OP_OR;
  int64_t est = is_or ? kids[0].est + kids[1].est : (kids[0].est < kids[1].est ? kids[0].est : kids[1].est);
  int64_t cov = kids[0].covered > kids[1].covered ? kids[0].covered : kids[1].covered;
  *out = (inode){is_or ? 2 : 1, NULL, e, k, 2, true, est < cov ? est : cov, cov, kids[0].read + kids[1].read};
  *found = true;
  return QV_OK;
}

static void describe(const inode *n, char *buf, size_t size) {
  size_t len = strlen(buf);
  if (n->kind == 0) {
    snprintf(buf + len, size - len, "%s (%s)", qv_index_name(n->ix), qv_index_type_name(qv_index_kind(n->ix)));
    return;
  }
  snprintf(buf + len, size - len, "%s(", n->kind == 2 ? "union" : "intersection");
  for (int32_t i = 0; i < n->n_kids; i++) {
    if (i) {
      len = strlen(buf);
      snprintf(buf + len, size - len, ", ");
    }
    describe(&n->kids[i], buf, size);
  }
  len = strlen(buf);
  snprintf(buf + len, size - len, ")");
}

/* Conjuncts i and j (j not used) asked as one AND: used for both when one
 * index answers it exactly and it pays, better than i's own answer. */
static qv_status try_pair(qvsc_index_plan *p, const qv_expr *const *conjuncts, int32_t i, int32_t j, qv_error *err) {
  qvsc_index_use *ui = &p->uses[i], *uj = &p->uses[j];
  int32_t ci = -1, cj = -1; /* one column, the same (an index reads one) */
  if (qv_expr_columns(conjuncts[i], &ci, 1) != 1 || qv_expr_columns(conjuncts[j], &cj, 1) != 1 || ci != cj)
    return QV_OK;
  qv_expr **grown = qv_realloc(p->pairs, (size_t)(p->n_pairs + 1) * sizeof *grown);
  if (!grown) return qv_error_nomem(err, NULL);
  p->pairs = grown;
  qv_expr *both = qv_expr_binary(QV_OP_AND, qv_expr_clone(conjuncts[i]), qv_expr_clone(conjuncts[j]));
  if (!both) return qv_error_nomem(err, NULL);
  both->type = qv_datatype_simple(QV_TYPE_BOOL);
  inode node;
  bool found = false;
  qv_status st = best_leaf(p, both, true, &node, &found, err);
  if (st != QV_OK || !found || !pays(&node) || (ui->used && node.est >= ui->estimate)) {
    qv_expr_destroy(both);
    return st;
  }
  p->pairs[p->n_pairs++] = both;
  node_reset(&p->trees[i]);
  p->trees[i] = node;
  char *ti = qv_expr_to_string(conjuncts[i]), *tj = qv_expr_to_string(conjuncts[j]);
  char how[256] = "";
  describe(&node, how, sizeof how);
  /* explain text: a long conjunct is cut at the field's size, on purpose
   * (the return value is looked at so that GCC knows) */
  bool cut = snprintf(ui->how, sizeof ui->how, "%s together with %s", how, tj ? tj : "the next conjunct") >=
             (int)sizeof ui->how;
  cut |= snprintf(uj->how, sizeof uj->how, "%s together with %s", how, ti ? ti : "an earlier conjunct") >=
         (int)sizeof uj->how;
  (void)cut;
  qv_free(ti);
  qv_free(tj);
  for (qvsc_index_use *u = ui; u; u = u == ui ? uj : NULL) {
    u->candidate = u->used = u->exact = true;
    u->estimate = node.est;
    u->covered_rows = node.covered;
    u->entries_read = node.read;
  }
  return QV_OK; /* trees[j] stays empty: i's lookup answers both */
}

qv_status qvsc_index_plan_make(const qv_dataset *ds, const qv_expr *const *conjuncts, int32_t n, qvsc_index_plan **out,
                               qv_error *err) {
  *out = NULL;
  int32_t ni = qv_dataset_num_indices(ds);
  if (ni == 0 || n == 0) return QV_OK;
  qvsc_index_plan *p = qv_calloc(1, sizeof *p);
  if (!p) return qv_error_nomem(err, NULL);
  p->indices = qv_calloc((size_t)ni, sizeof *p->indices);
  p->uses = qv_calloc((size_t)n, sizeof *p->uses);
  p->trees = qv_calloc((size_t)n, sizeof *p->trees);
  qv_status st = p->indices && p->uses && p->trees ? QV_OK : qv_error_nomem(err, NULL);
  for (int32_t i = 0; i < ni && st == QV_OK; i++) {
    st = qv_index_open(ds, i, &p->indices[p->n_indices], err);
    if (st == QV_OK) qv_index_set_tolerant(p->indices[p->n_indices++], true); /* damaged files: see below */
  }
  for (int32_t c = 0; c < n && st == QV_OK; c++) {
    p->trees[c].kind = -1;
    p->n_conjuncts = c + 1;
    bool found = false;
    inode node;
    if ((st = plan_expr(p, conjuncts[c], false, &node, &found, err)) != QV_OK || !found) continue;
    qvsc_index_use *u = &p->uses[c];
    u->candidate = true;
    u->exact = node.exact;
    u->estimate = node.est;
    u->covered_rows = node.covered;
    describe(&node, u->how, sizeof u->how);
    u->entries_read = node.read;
    u->used = pays(&node);
    if (u->used) p->trees[c] = node;
    else node_reset(&node);
  }
  for (int32_t i = 0; i < n && st == QV_OK; i++) {
    if (!p->uses[i].candidate || !p->uses[i].exact || (p->uses[i].used && p->trees[i].kind != 0)) continue;
    for (int32_t j = i + 1; j < n && st == QV_OK; j++) {
      if (!p->uses[j].candidate || !p->uses[j].exact || p->uses[j].used) continue;
      st = try_pair(p, conjuncts, i, j, err);
      if (p->uses[j].used) break;
    }
  }
  if (st != QV_OK) {
    qvsc_index_plan_destroy(p);
    return qv_error_prefix(err, st, "index planning");
  }
  *out = p;
  return QV_OK;
}

const qvsc_index_use *qvsc_index_plan_use(const qvsc_index_plan *p, int32_t conjunct) {
  return p && conjunct < p->n_conjuncts ? &p->uses[conjunct] : NULL;
}

bool qvsc_index_plan_any(const qvsc_index_plan *p) {
  for (int32_t i = 0; p && i < p->n_conjuncts; i++)
    if (p->uses[i].used) return true;
  return false;
}

static bool covers(const inode *n, int64_t frag) {
  if (n->kind == 0) return qv_index_covers(n->ix, frag);
  for (int32_t i = 0; i < n->n_kids; i++)
    if (!covers(&n->kids[i], frag)) return false;
  return true;
}

static qv_status answer(const inode *n, int64_t frag, roaring_bitmap_t *out, qv_error *err) {
  if (n->kind == 0) {
    bool exact;
    return qv_index_query(n->ix, n->expr, frag, out, &exact, err);
  }
  QV_RETURN_NOT_OK(answer(&n->kids[0], frag, out, err));
  roaring_bitmap_t *other = roaring_bitmap_create();
  if (!other) return qv_error_nomem(err, NULL);
  qv_status st = QV_OK;
  for (int32_t i = 1; i < n->n_kids && st == QV_OK; i++) {
    st = answer(&n->kids[i], frag, other, err);
    if (st == QV_OK && n->kind == 2) roaring_bitmap_or_inplace(out, other);
    else if (st == QV_OK) roaring_bitmap_and_inplace(out, other);
  }
  roaring_bitmap_free(other);
  return st;
}

/* An index file that cannot be read (qv_index_damage_status) makes its
 * conjunct's lookup fail for that fragment alone: the fragment is then
 * filtered in full, as one the index does not cover.  An index is derived
 * data; the rows are all in the data files.  The index handle records the
 * damage (the estimates already left such files out) for the counters. */
qv_status qvsc_index_plan_fragment(const qvsc_index_plan *p, int64_t frag, roaring_bitmap_t *rows, bool *active,
                                   bool *full, qv_error *err) {
  *active = false;
  *full = true;
  roaring_bitmap_t *one = NULL;
  qv_status st = QV_OK;
  for (int32_t c = 0; c < p->n_conjuncts && st == QV_OK; c++) {
    if (!p->uses[c].used || p->trees[c].kind < 0) continue; /* < 0: answered with another conjunct */
    if (!covers(&p->trees[c], frag)) {
      *full = false;
      continue;
    }
    if (*active && !one && !(one = roaring_bitmap_create())) {
      st = qv_error_nomem(err, NULL);
      break;
    }
    qv_error e;
    st = answer(&p->trees[c], frag, *active ? one : rows, &e);
    if (qv_index_damage_status(st)) {
      st = QV_OK;
      *full = false;
      continue;
    }
    if (st != QV_OK) qv_error_set(err, st, "%s", e.message);
    else if (*active) roaring_bitmap_and_inplace(rows, one);
    else *active = true;
  }
  if (one) roaring_bitmap_free(one);
  return st;
}

void qvsc_index_plan_damage(const qvsc_index_plan *p, qv_scan_counters *out) {
  for (int32_t i = 0; p && i < p->n_indices; i++) {
    const char *first;
    int32_t n = qv_index_damaged(p->indices[i], &first);
    if (n == 0) continue;
    out->index_fallback_fragments += n;
    if (out->n_index_fallbacks >= QV_SCAN_MAX_INDEX_FALLBACKS) continue;
    qv_scan_index_fallback *f = &out->index_fallbacks[out->n_index_fallbacks++];
    snprintf(f->index, sizeof f->index, "%s", qv_index_name(p->indices[i]));
    snprintf(f->error, sizeof f->error, "%s", first);
    f->fragments = n;
  }
}

void qvsc_index_plan_io(const qvsc_index_plan *p, qv_io_counters *out) {
  memset(out, 0, sizeof *out);
  for (int32_t i = 0; p && i < p->n_indices; i++) {
    qv_io_counters io;
    qv_index_counters(p->indices[i], &io);
    out->bytes_read += io.bytes_read;
    out->pages_read += io.pages_read;
  }
}
