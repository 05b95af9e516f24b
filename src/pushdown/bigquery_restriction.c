/* The whole BigQuery row_restriction: the node budget walked before any
 * translation, the size limit with conjunct shedding, and the public entry
 * points.  Per-node translation is bigquery.c.
 *
 * Limits of the Storage Read API (and of the reference translator): trees
 * over QV_BQ_MAX_NODES nodes, counted breadth first, and levels deeper than
 * QV_BQ_MAX_DEPTH degrade to local filtering node by node; a restriction
 * over QV_BQ_MAX_SQL bytes is rebuilt conjunct by conjunct, shedding those
 * that would pass it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pushdown/bigquery_int.h"

typedef qvp_bq bq;
typedef qvp_bq_res res;

static int cmp_ptr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t) * (const qv_expr *const *)a, y = (uintptr_t) * (const qv_expr *const *)b;
  return x < y ? -1 : x > y;
}

bool qvp_bq_is_over(const bq *t, const qv_expr *e) {
  return t->n_over && bsearch(&e, t->over, (size_t)t->n_over, sizeof *t->over, cmp_ptr) != NULL;
}

/* Walks the tree breadth-first as the reference does: a node whose
 * children would pass the node budget, or lie deeper than the depth
 * budget, is degraded (translates to nothing) instead of the whole tree.
 * An is_in list counts as one node, as Polars holds it.  Checks every
 * column name met on the way. */
static qv_status budget(bq *t, const qv_expr *root, qv_error *err) {
  typedef struct item {
    const qv_expr *e;
    int32_t depth;
  } item;
  int32_t cap = 64, head = 0, tail = 0, over_cap = 0;
  int64_t count = 1;
  qv_status st = QV_OK;
  item *q = qv_malloc((size_t)cap * sizeof *q);
  if (!q) return qv_error_nomem(err, "to_bigquery_filter");
  q[tail++] = (item){root, 1};
  while (head < tail && st == QV_OK) {
    item it = q[head++];
    const qv_expr *e = it.e;
    if (e->kind == QV_EXPR_COLUMN) {
      st = qvp_bq_check_name(e->name, err);
      continue;
    }
    if (e->kind != QV_EXPR_CALL) continue;
    int32_t kids = e->op == QV_OP_IN ? (e->n_args > 0 ? 1 : 0) : e->n_args;
    int32_t counted = e->op == QV_OP_IN ? 2 : e->n_args;
    if (count + counted > QV_BQ_MAX_NODES || it.depth + 1 > QV_BQ_MAX_DEPTH) {
      if (t->n_over == over_cap) {
        over_cap = over_cap ? over_cap * 2 : 16;
        const qv_expr **v = qv_realloc(t->over, (size_t)over_cap * sizeof *v);
        if (!v) {
          st = qv_error_nomem(err, "to_bigquery_filter");
          break;
        }
        t->over = v;
      }
      t->over[t->n_over++] = e;
      continue;
    }
    count += counted;
    if (tail + kids > cap) {
      /* Compact the consumed head, then grow. */
      memmove(q, q + head, (size_t)(tail - head) * sizeof *q);
      tail -= head;
      head = 0;
      while (tail + kids > cap) cap *= 2;
      item *nq = qv_realloc(q, (size_t)cap * sizeof *nq);
      if (!nq) {
        st = qv_error_nomem(err, "to_bigquery_filter");
        break;
      }
      q = nq;
    }
    for (int32_t i = 0; i < kids; i++) q[tail++] = (item){e->args[i], it.depth + 1};
  }
  qv_free(q);
  if (t->n_over > 1) qsort(t->over, (size_t)t->n_over, sizeof *t->over, cmp_ptr);
  return st;
}

/* ---- the whole restriction -------------------------------------------- */

/* Top-level conjuncts of e as a filter (flattening AND, and OR under NOT). */
typedef struct conj {
  const qv_expr *e;
  bool neg;
} conj;

static void conjuncts(bq *t, const qv_expr *e, bool neg, conj **v, int32_t *n, int32_t *cap) {
  if (!qvp_bq_is_over(t, e) && e->kind == QV_EXPR_CALL && e->n_args == 2 &&
      ((e->op == QV_OP_AND && !neg) || (e->op == QV_OP_OR && neg)) && !qvp_bq_known_non_bool(t, e->args[0]) &&
      !qvp_bq_known_non_bool(t, e->args[1])) {
    conjuncts(t, e->args[0], neg, v, n, cap);
    conjuncts(t, e->args[1], neg, v, n, cap);
    return;
  }
  if (!qvp_bq_is_over(t, e) && e->kind == QV_EXPR_CALL && e->n_args == 1 &&
      ((e->op == QV_OP_NOT && !neg && !qvp_bq_known_non_bool(t, e->args[0])) || e->op == QV_OP_ALL_HORIZONTAL ||
       e->op == QV_OP_ANY_HORIZONTAL)) {
    conjuncts(t, e->args[0], e->op == QV_OP_NOT ? true : neg, v, n, cap);
    return;
  }
  if (*n == *cap) {
    int32_t c = *cap ? *cap * 2 : 16;
    conj *nv = qv_realloc(*v, (size_t)c * sizeof *nv);
    if (!nv) {
      t->oom = true;
      return;
    }
    *v = nv;
    *cap = c;
  }
  (*v)[(*n)++] = (conj){e, neg};
}

/* Appends piece to acc as (acc AND piece) if the result fits the limit. */
static bool fold_fits(qvb_text *acc, const char *piece, size_t len) {
  size_t want = acc->n ? acc->n + len + 7 : len;
  if (want > QV_BQ_MAX_SQL) return false;
  if (!acc->n) {
    qvb_text_add(acc, piece, len);
    return true;
  }
  qvb_text b = {0};
  qvb_text_f(&b, "(%s AND %s)", acc->p, piece);
  qvb_text_free(acc);
  *acc = b;
  return true;
}

/* The restriction folded conjunct by conjunct, shedding those that would
 * pass the size limit (each shed one makes the result inexact). */
static bool shed(bq *t, const qv_expr *e, qvb_text *out, bool *exact) {
  conj *v = NULL;
  int32_t n = 0, cap = 0;
  conjuncts(t, e, false, &v, &n, &cap);
  res extras = {0};
  *exact = true;
  bool any = false;
  for (int32_t i = 0; i < n && !t->oom; i++) {
    res c = {0};
    if (!qvp_bq_pos(t, v[i].e, v[i].neg, &c)) {
      *exact = false;
      qvp_bq_res_free(&c);
      continue;
    }
    if (fold_fits(out, c.sql.p, c.sql.n)) {
      any = true;
      if (!c.exact) *exact = false;
      qvp_bq_take_extras(t, &extras, &c);
    } else {
      *exact = false;
      qvb_text_s(&t->why, "shed a conjunct: the restriction would pass the 1 MB limit\n");
    }
    qvp_bq_res_free(&c);
  }
  for (int32_t i = 0; i < extras.n_extra; i++)
    if (any && !fold_fits(out, extras.extra[i], strlen(extras.extra[i]))) {
      *exact = false;
      qvb_text_s(&t->why, "shed a conjunct: the restriction would pass the 1 MB limit\n");
    }
  qvp_bq_res_free(&extras);
  qv_free(v);
  return any;
}

/* Runs the translation; *sql gets the restriction (or NULL). */
static qv_status translate(bq *t, const qv_expr *e, char **sql, bool *exact, qv_error *err) {
  *sql = NULL;
  *exact = false;
  qv_status st = budget(t, e, err);
  if (st != QV_OK) return st;
  res r = {0};
  bool ok = qvp_bq_pos(t, e, false, &r);
  qvb_text out = {0};
  if (ok) {
    qvb_text_add(&out, r.sql.p, r.sql.n);
    for (int32_t i = 0; i < r.n_extra; i++) {
      qvb_text b = {0};
      qvb_text_f(&b, "(%s AND %s)", out.p, r.extra[i]);
      qvb_text_free(&out);
      out = b;
    }
    *exact = r.exact;
    if (out.n > QV_BQ_MAX_SQL) {
      qvb_text_free(&out);
      ok = shed(t, e, &out, exact);
    }
  }
  qvp_bq_res_free(&r);
  if (out.oom || t->why.oom || t->oom) {
    qvb_text_free(&out);
    return qv_error_nomem(err, "to_bigquery_filter");
  }
  if (ok) *sql = out.p;
  else qvb_text_free(&out);
  return QV_OK;
}

qv_status qv_to_bigquery_filter(const qv_expr *e, const qv_schema *schema, qv_bigquery_filter **out, qv_error *err) {
  if (!out || !e) return qv_error_set(err, QV_ERR_INVALID, "to_bigquery_filter: NULL expression or output");
  *out = NULL;
  bq t = {schema, {0}, false, NULL, 0};
  char *sql = NULL;
  bool exact = false;
  qv_status st = translate(&t, e, &sql, &exact, err);
  if (st == QV_OK && sql) {
    qv_bigquery_filter *f = qv_calloc(1, sizeof *f);
    if (!f) {
      qv_free(sql);
      st = qv_error_nomem(err, "to_bigquery_filter");
    } else {
      f->sql = sql;
      f->exact = exact;
      *out = f;
    }
  }
  qvb_text_free(&t.why);
  qv_free(t.over);
  return st;
}

void qv_bigquery_filter_free(qv_bigquery_filter *f) {
  if (!f) return;
  qv_free(f->sql);
  qv_free(f);
}

qv_status qv_bigquery_filter_explain(const qv_expr *e, const qv_schema *schema, char **out, qv_error *err) {
  if (!out || !e) return qv_error_set(err, QV_ERR_INVALID, "bigquery_filter_explain: NULL expression or output");
  *out = NULL;
  bq t = {schema, {0}, false, NULL, 0};
  char *sql = NULL;
  bool exact = false;
  qv_status st = translate(&t, e, &sql, &exact, err);
  qv_free(sql);
  qv_free(t.over);
  if (st == QV_OK && !t.why.p) qvb_text_s(&t.why, "nothing declined\n");
  if (st == QV_OK && t.why.oom) st = qv_error_nomem(err, "bigquery_filter_explain");
  if (st != QV_OK) {
    qvb_text_free(&t.why);
    return st;
  }
  *out = t.why.p;
  return QV_OK;
}
