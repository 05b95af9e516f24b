/* CsrExpandExec (and the scans that feed it) over the four-person graph,
 * as datasets and in memory: one hop in each direction, var-length hops
 * checked against a brute-force trail enumerator, *0.., optional,
 * expand-into, relationship uniqueness, target and edge filters (the
 * target one memoized), self-loops under undirected hops, yielding partway
 * through a high-degree node, and the explain line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "graph/cypher_ops.h"
#include "gstore_test_util.h"

/* ---- rows ---- */

typedef struct row {
  int64_t a, b; /* start and end node (-1: null) */
  int32_t n;    /* rels on the path (-1: null) */
  int64_t rels[8];
} row;

typedef struct rows {
  row r[256];
  int n;
  int batches;
} rows;

static int cmp_row(const void *x, const void *y) {
  const row *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  if (p->b != q->b) return p->b < q->b ? -1 : 1;
  if (p->n != q->n) return p->n < q->n ? -1 : 1;
  for (int i = 0; i < p->n; i++)
    if (p->rels[i] != q->rels[i]) return p->rels[i] < q->rels[i] ? -1 : 1;
  return 0;
}

static int64_t int_at(const qv_array *a, int64_t i) {
  return qv_array_is_valid(a, i) ? ((const int64_t *)qv_array_values(a))[i] : -1;
}

/* Drains op: column a_col is the start, rel_col the rel (REL, or a VALUE
 * list when varlen), b_col the end (may be a_col's partner for into). */
static void drain(qv_exec_op *op, int32_t a_col, int32_t rel_col, int32_t b_col, bool varlen, rows *out) {
  out->n = out->batches = 0;
  qv_error err;
  qvg_arena arena = QVG_ARENA_INIT;
  for (;;) {
    qv_batch *b;
    if (qv_exec_next(op, &b, &err) != QV_OK) fail_msg("%s", err.message);
    if (!b) break;
    out->batches++;
    for (int64_t i = 0; i < b->num_rows; i++) {
      assert_true(out->n < 256);
      row *r = &out->r[out->n++];
      r->a = int_at(b->columns[a_col], i);
      r->b = int_at(b->columns[b_col], i);
      if (!varlen) {
        int64_t rel = int_at(b->columns[rel_col], i);
        r->n = rel < 0 ? -1 : 1;
        r->rels[0] = rel;
        continue;
      }
      qvg_val v;
      if (qvg_val_from_array(b->columns[rel_col], QVG_COL_VALUE, i, &arena, &v, &err) != QV_OK)
        fail_msg("%s", err.message);
      if (v.t == QVG_V_NULL) {
        r->n = -1;
        continue;
      }
      assert_int_equal(v.t, QVG_V_LIST);
      assert_true(v.n <= 8);
      r->n = v.n;
      for (int32_t k = 0; k < v.n; k++) {
        assert_int_equal(v.u.l[k].t, QVG_V_REL);
        r->rels[k] = v.u.l[k].u.i;
      }
    }
    qv_batch_release(b);
  }
  qvg_arena_free(&arena);
  qsort(out->r, (size_t)out->n, sizeof out->r[0], cmp_row);
}

/* ---- a reference: trails over the relationship list ---- */

static void ref_walk(const qvg_store *st, int dir, int64_t min, int64_t max, int64_t start, int64_t at, row *path,
                     rows *out) {
  if (path->n >= min) {
    row *r = &out->r[out->n++];
    *r = *path;
    r->a = start;
    r->b = at;
  }
  if (path->n >= max) return;
  int64_t ids[64], cursor = 0;
  int64_t n = qvg_store_rels(st, -1, &cursor, ids, 64);
  for (int64_t i = 0; i < n; i++) {
    int64_t s = qvg_store_rel_src(st, ids[i]), d = qvg_store_rel_dst(st, ids[i]), next = -1;
    bool used = false;
    for (int k = 0; k < path->n; k++) used |= path->rels[k] == ids[i];
    if (used) continue;
    if (dir != QVG_DIR_LEFT && s == at) next = d;
    else if (dir != QVG_DIR_RIGHT && d == at) next = s;
    if (next < 0) continue;
    path->rels[path->n++] = ids[i];
    ref_walk(st, dir, min, max, start, next, path, out);
    path->n--;
  }
}

static void reference(const qvg_store *st, int dir, int64_t min, int64_t max, rows *out) {
  out->n = 0;
  int64_t nodes[64], cursor = 0;
  int64_t n = qvg_store_nodes(st, -1, &cursor, nodes, 64);
  for (int64_t i = 0; i < n; i++) {
    row path = {0, 0, 0, {0}};
    ref_walk(st, dir, min, max, nodes[i], nodes[i], &path, out);
  }
  qsort(out->r, (size_t)out->n, sizeof out->r[0], cmp_row);
}

static void assert_rows_equal(const rows *got, const rows *want) {
  assert_int_equal(got->n, want->n);
  for (int i = 0; i < got->n; i++) assert_int_equal(cmp_row(&got->r[i], &want->r[i]), 0);
}

/* ---- plans ---- */

static qv_exec_ctx *ctx_with(int64_t batch_size) {
  qv_exec_options o = QV_EXEC_OPTIONS_INIT;
  o.batch_size = batch_size;
  qv_exec_ctx *c;
  qv_error err;
  assert_int_equal(qv_exec_ctx_create(&o, &c, &err), QV_OK);
  return c;
}

static qvg_expand_spec one_hop(int dir) {
  static const int32_t knows[1] = {0};
  qvg_expand_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.from_col = 0;
  sp.types = knows;
  sp.n_types = 1;
  sp.dir = dir;
  sp.into_col = -1;
  sp.to_label = -1;
  sp.to_name = "b";
  sp.rel_name = "r";
  return sp;
}

/* NodeScanExec(a) -> CsrExpandExec(sp). */
static qv_exec_op *expand_plan(qv_exec_ctx *c, const qvg_store *st, const qvg_expand_spec *sp) {
  qv_exec_op *scan, *op;
  qv_error err;
  if (qvg_op_node_scan(c, st, -1, "a", &scan, &err) != QV_OK) fail_msg("%s", err.message);
  qvg_colkind kinds[1] = {QVG_COL_NODE};
  if (qvg_op_expand(c, scan, st, kinds, sp, &op, &err) != QV_OK) fail_msg("%s", err.message);
  return op;
}

static void run(const qvg_store *st, const qvg_expand_spec *sp, int64_t batch_size, rows *out) {
  qv_exec_ctx *c = ctx_with(batch_size);
  qv_exec_op *op = expand_plan(c, st, sp);
  drain(op, 0, 1, 2, sp->varlen, out);
  qv_exec_destroy(op);
  qv_exec_ctx_release(c);
}

/* ---- the cases, on one store ---- */

static void check_one_hop(const qvg_store *st) {
  rows got, want;
  int dirs[3] = {QVG_DIR_RIGHT, QVG_DIR_LEFT, QVG_DIR_BOTH};
  int counts[3] = {4, 4, 8};
  for (int d = 0; d < 3; d++) {
    qvg_expand_spec sp = one_hop(dirs[d]);
    run(st, &sp, 8192, &got);
    reference(st, dirs[d], 1, 1, &want);
    assert_int_equal(got.n, counts[d]);
    assert_rows_equal(&got, &want);
  }
  /* the rows themselves, for ->: (1)-[0]->(2), (1)-[1]->(3), (2)-[2]->(3), (3)-[3]->(4) */
  qvg_expand_spec sp = one_hop(QVG_DIR_RIGHT);
  run(st, &sp, 8192, &got);
  static const int64_t a[4] = {1, 1, 2, 3}, b[4] = {2, 3, 3, 4};
  for (int i = 0; i < 4; i++) {
    assert_int_equal(got.r[i].a, gt_node(st, a[i]));
    assert_int_equal(got.r[i].b, gt_node(st, b[i]));
    assert_int_equal(got.r[i].rels[0], gt_rel(st, i));
  }
  /* every type (n_types 0) is the same here; a type the store lacks matches nothing */
  sp.n_types = 0;
  run(st, &sp, 8192, &got);
  assert_int_equal(got.n, 4);
  int32_t none[1] = {7};
  sp.types = none;
  sp.n_types = 1;
  run(st, &sp, 8192, &got);
  assert_int_equal(got.n, 0);
  /* to a label */
  sp = one_hop(QVG_DIR_RIGHT);
  sp.to_label = 0;
  run(st, &sp, 8192, &got);
  assert_int_equal(got.n, 4);
}

static void check_varlen(const qvg_store *st) {
  rows got, want;
  int dirs[3] = {QVG_DIR_RIGHT, QVG_DIR_LEFT, QVG_DIR_BOTH};
  int64_t bounds[4][2] = {{1, 3}, {0, 1}, {2, 2}, {1, 10}};
  for (int d = 0; d < 3; d++)
    for (int k = 0; k < 4; k++) {
      qvg_expand_spec sp = one_hop(dirs[d]);
      sp.varlen = true;
      sp.min_hops = bounds[k][0];
      sp.max_hops = bounds[k][1];
      run(st, &sp, 8192, &got);
      reference(st, dirs[d], bounds[k][0], bounds[k][1], &want);
      assert_rows_equal(&got, &want);
      /* small chunks give the same rows */
      run(st, &sp, 3, &got);
      assert_rows_equal(&got, &want);
    }
  /* ->*1..3: 1->2, 1->3, 1->2->3, 1->3->4, 1->2->3->4, 2->3, 2->3->4, 3->4 */
  qvg_expand_spec sp = one_hop(QVG_DIR_RIGHT);
  sp.varlen = true;
  sp.min_hops = 1;
  sp.max_hops = 3;
  run(st, &sp, 8192, &got);
  assert_int_equal(got.n, 8);
  /* *0..1: the four zero-length paths too */
  sp.min_hops = 0;
  sp.max_hops = 1;
  run(st, &sp, 8192, &got);
  assert_int_equal(got.n, 8);
  assert_int_equal(got.r[0].n, 0);
  assert_int_equal(got.r[0].a, got.r[0].b);
}

static void check_optional_into_unique(const qvg_store *st) {
  rows got;
  /* optional: Dee knows nobody */
  qvg_expand_spec sp = one_hop(QVG_DIR_RIGHT);
  sp.optional = true;
  run(st, &sp, 8192, &got);
  assert_int_equal(got.n, 5);
  int nulls = 0;
  for (int i = 0; i < got.n; i++)
    if (got.r[i].b < 0) {
      nulls++;
      assert_int_equal(got.r[i].a, gt_node(st, 4));
      assert_int_equal(got.r[i].n, -1);
    }
  assert_int_equal(nulls, 1);
  sp.varlen = true;
  sp.min_hops = 2;
  sp.max_hops = 2;
  run(st, &sp, 8192, &got);
  /* 2-hop paths: 1->2->3, 1->3->4, 2->3->4; persons 3 and 4 get a null row */
  assert_int_equal(got.n, 5);

  /* into: every pair (a, x) crossed, the hop checks x */
  qv_exec_ctx *c = ctx_with(8192);
  qv_exec_op *s1, *s2, *cross, *op;
  qv_error err;
  assert_int_equal(qvg_op_node_scan(c, st, 0, "a", &s1, &err), QV_OK);
  assert_int_equal(qvg_op_node_scan(c, st, 0, "x", &s2, &err), QV_OK);
  assert_int_equal(qv_exec_cross_join(c, s1, s2, &cross, &err), QV_OK);
  qvg_colkind k2[2] = {QVG_COL_NODE, QVG_COL_NODE};
  sp = one_hop(QVG_DIR_BOTH);
  sp.into_col = 1;
  assert_int_equal(qvg_op_expand(c, cross, st, k2, &sp, &op, &err), QV_OK);
  assert_int_equal(qv_exec_schema(op)->n_fields, 3);
  drain(op, 0, 2, 1, false, &got);
  assert_int_equal(got.n, 8); /* each edge seen from both ends */
  assert_int_equal(got.r[0].a, gt_node(st, 1));
  assert_int_equal(got.r[0].b, gt_node(st, 2));
  qv_exec_destroy(op);

  /* uniqueness: (a)-[r1]->(b)-[r2]-(c) with r2 <> r1 */
  assert_int_equal(qvg_op_node_scan(c, st, -1, "a", &s1, &err), QV_OK);
  sp = one_hop(QVG_DIR_RIGHT);
  qvg_colkind k1[1] = {QVG_COL_NODE};
  qv_exec_op *first;
  assert_int_equal(qvg_op_expand(c, s1, st, k1, &sp, &first, &err), QV_OK);
  qvg_colkind k3[3] = {QVG_COL_NODE, QVG_COL_REL, QVG_COL_NODE};
  qvg_expand_spec sp2 = one_hop(QVG_DIR_BOTH);
  sp2.from_col = 2;
  sp2.rel_name = "r2";
  sp2.to_name = "c";
  int32_t uc[1] = {1};
  sp2.unique_cols = uc;
  sp2.n_unique = 1;
  assert_int_equal(qvg_op_expand(c, first, st, k3, &sp2, &op, &err), QV_OK);
  drain(op, 0, 3, 4, false, &got);
  /* b's degree (undirected) less one, summed over the four first hops: 1 + 2 + 2 + 0 */
  assert_int_equal(got.n, 5);
  qv_exec_destroy(op);
  qv_exec_ctx_release(c);
}

static qvg_cx lit_int(int64_t v) {
  qvg_cx e;
  memset(&e, 0, sizeof e);
  e.kind = QVG_CX_LIT;
  e.lit = qvg_int(v);
  return e;
}

/* col.key > v */
typedef struct gt_expr {
  qvg_cx col, prop, lit, cmp;
  qvg_cx *prop_kids[1], *cmp_kids[2];
  uint8_t ops[1];
} gt_expr;

static const qvg_cx *greater(gt_expr *g, int32_t col, const char *key, int64_t v) {
  memset(g, 0, sizeof *g);
  g->col.kind = QVG_CX_COL;
  g->col.col = col;
  g->prop.kind = QVG_CX_PROP;
  g->prop.n_kids = 1;
  g->prop_kids[0] = &g->col;
  g->prop.kids = g->prop_kids;
  g->prop.name = key;
  g->prop.nlen = (int32_t)strlen(key);
  g->lit = lit_int(v);
  g->cmp.kind = QVG_CX_CMP;
  g->cmp.n_kids = 2;
  g->cmp_kids[0] = &g->prop;
  g->cmp_kids[1] = &g->lit;
  g->cmp.kids = g->cmp_kids;
  g->ops[0] = QVG_CMP_GT;
  g->cmp.ops = g->ops;
  return &g->cmp;
}

static void check_filters(const qvg_store *st) {
  rows got;
  gt_expr tf, ef;
  /* b.age > 30: Bob (42) and Dee (38) */
  qvg_expand_spec sp = one_hop(QVG_DIR_RIGHT);
  sp.target_filter = greater(&tf, 2, "age", 30);
  qv_exec_ctx *c = ctx_with(8192);
  qv_exec_op *op = expand_plan(c, st, &sp);
  drain(op, 0, 1, 2, false, &got);
  assert_int_equal(got.n, 2);
  assert_int_equal(got.r[0].b, gt_node(st, 2));
  assert_int_equal(got.r[1].b, gt_node(st, 4));
  char *text;
  qv_error err;
  assert_int_equal(qv_exec_explain(op, true, &text, &err), QV_OK);
  /* Cid is reached twice: the second time from the memo */
  assert_non_null(strstr(text, "filter_evals=3, memo_hits=1"));
  qv_free(text);
  qv_exec_destroy(op);
  /* r.since > 2019: rels 1 and 2 */
  sp = one_hop(QVG_DIR_RIGHT);
  sp.edge_filter = greater(&ef, 1, "since", 2019);
  op = expand_plan(c, st, &sp);
  drain(op, 0, 1, 2, false, &got);
  assert_int_equal(got.n, 2);
  assert_int_equal(got.r[0].rels[0], gt_rel(st, 1));
  assert_int_equal(got.r[1].rels[0], gt_rel(st, 2));
  qv_exec_destroy(op);
  /* var-length: every rel must pass; 1-[1]->3 only then (3-[3]->4 is 2018) */
  sp.varlen = true;
  sp.min_hops = 1;
  sp.max_hops = 3;
  op = expand_plan(c, st, &sp);
  drain(op, 0, 1, 2, true, &got);
  assert_int_equal(got.n, 2); /* [1], [2], and nothing longer: 3's only edge fails */
  qv_exec_destroy(op);
  /* a target filter reading the start too is evaluated per row: a.age > 30 and b reached */
  sp = one_hop(QVG_DIR_RIGHT);
  sp.target_filter = greater(&tf, 0, "age", 30);
  op = expand_plan(c, st, &sp);
  drain(op, 0, 1, 2, false, &got);
  assert_int_equal(got.n, 3); /* Ann (31) twice, Bob (42) once */
  qv_exec_destroy(op);
  qv_exec_ctx_release(c);
}

static void check_explain(const qvg_store *st) {
  gt_expr tf;
  qvg_expand_spec sp = one_hop(QVG_DIR_RIGHT);
  sp.varlen = true;
  sp.min_hops = 1;
  sp.max_hops = 3;
  sp.to_label = 0;
  sp.target_filter = greater(&tf, 2, "age", 30);
  qv_exec_ctx *c = ctx_with(8192);
  qv_exec_op *op = expand_plan(c, st, &sp);
  char *text;
  qv_error err;
  assert_int_equal(qv_exec_explain(op, false, &text, &err), QV_OK);
  assert_string_equal(text,
                      "CsrExpandExec: key=a, types=[KNOWS], dir=->, to=b:Person, filter=(b.age > 30), iterative "
                      "hops=1..3\n  NodeScanExec: a, rows=4\n");
  qv_free(text);
  qv_exec_destroy(op);
  qv_exec_ctx_release(c);
}

static void check_all(const qvg_store *st) {
  check_one_hop(st);
  check_varlen(st);
  check_optional_into_unique(st);
  check_filters(st);
  check_explain(st);
}

static void test_dataset(void **state) {
  (void)state;
  qv_graph *g = gt_open("g");
  check_all(g->store);
  qv_graph_close(g);
}

static void test_memory(void **state) {
  (void)state;
  qvg_store *st = gt_memory();
  check_all(st);
  qvg_store_free(st);
}

/* A hub with five out-edges and a self-loop, in batches of two rows. */
static void test_hub_and_loops(void **state) {
  (void)state;
  qvg_store *st;
  qv_error err;
  assert_int_equal(qvg_store_memory(&st, &err), QV_OK);
  int64_t id, hub;
  assert_int_equal(qvg_store_create_node(st, NULL, 0, NULL, &hub, &err), QV_OK);
  for (int i = 0; i < 5; i++) {
    int64_t n;
    assert_int_equal(qvg_store_create_node(st, NULL, 0, NULL, &n, &err), QV_OK);
    assert_int_equal(qvg_store_create_rel(st, "KNOWS", hub, n, NULL, &id, &err), QV_OK);
  }
  assert_int_equal(qvg_store_create_rel(st, "KNOWS", hub, hub, NULL, &id, &err), QV_OK);
  assert_int_equal(qvg_store_prepare(st, &err), QV_OK);
  rows got, want;
  qvg_expand_spec sp = one_hop(QVG_DIR_RIGHT);
  run(st, &sp, 2, &got);
  assert_int_equal(got.n, 6);
  assert_int_equal(got.batches, 3); /* the hub's six edges, two at a time */
  /* undirected: the loop once, each spoke from both ends */
  sp.dir = QVG_DIR_BOTH;
  run(st, &sp, 2, &got);
  reference(st, QVG_DIR_BOTH, 1, 1, &want);
  assert_int_equal(got.n, 11);
  assert_rows_equal(&got, &want);
  /* var-length undirected over the loop: it is used at most once per path */
  sp.varlen = true;
  for (int64_t max = 1; max <= 3; max++) {
    sp.min_hops = 1;
    sp.max_hops = max;
    run(st, &sp, 4, &got);
    reference(st, QVG_DIR_BOTH, 1, max, &want);
    assert_rows_equal(&got, &want);
  }
  qvg_store_free(st);
}

/* Bad specs fail at construction, naming the operator, and free the child. */
static void test_bad_spec(void **state) {
  (void)state;
  qvg_store *st = gt_memory();
  qv_exec_ctx *c = ctx_with(8192);
  qv_exec_op *scan, *op;
  qv_error err;
  qvg_colkind kinds[1] = {QVG_COL_VALUE};
  qvg_expand_spec sp = one_hop(QVG_DIR_RIGHT);
  assert_int_equal(qvg_op_node_scan(c, st, -1, "a", &scan, &err), QV_OK);
  assert_int_equal(qvg_op_expand(c, scan, st, kinds, &sp, &op, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "CsrExpandExec: the hop must leave a NODE column"));
  kinds[0] = QVG_COL_NODE;
  sp.varlen = true;
  sp.min_hops = 3;
  sp.max_hops = 2;
  assert_int_equal(qvg_op_node_scan(c, st, -1, "a", &scan, &err), QV_OK);
  assert_int_equal(qvg_op_expand(c, scan, st, kinds, &sp, &op, &err), QV_ERR_INVALID);
  qv_exec_ctx_release(c);
  qvg_store_free(st);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dataset),
      cmocka_unit_test(test_memory),
      cmocka_unit_test(test_hub_and_loops),
      cmocka_unit_test(test_bad_spec),
  };
  return cmocka_run_group_tests(tests, gt_setup, gt_teardown);
}
