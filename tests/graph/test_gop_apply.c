/* ApplyExec in its four modes over the four-person graph (as datasets
 * and in memory), with a CsrExpandExec subplan, and CreateExec on a memory
 * store: paths of new nodes and relationships, bound nodes, both
 * directions, property maps, a scan that does not see what the CREATE
 * after it makes, and the errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "graph/cypher_ops.h"
#include "gstore_test_util.h"

static qv_exec_ctx *ctx_new(void) {
  qv_exec_ctx *c;
  qv_error err;
  assert_int_equal(qv_exec_ctx_create(NULL, &c, &err), QV_OK);
  return c;
}

/* The subplan: (a)-[r:KNOWS]->(b) over the input (a, "  row"). */
typedef struct sub_arg {
  qv_exec_ctx *ctx;
  const qvg_store *st;
} sub_arg;

static qv_status build_expand(void *arg, qv_exec_op *input, qv_exec_op **out, qv_error *err) {
  sub_arg *a = arg;
  static const int32_t knows[1] = {0};
  qvg_expand_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.from_col = 0;
  sp.types = knows;
  sp.n_types = 1;
  sp.dir = QVG_DIR_RIGHT;
  sp.into_col = -1;
  sp.to_label = -1;
  sp.to_name = "b";
  sp.rel_name = "r";
  qvg_colkind kinds[2] = {QVG_COL_NODE, QVG_COL_NODE};
  return qvg_op_expand(a->ctx, input, a->st, kinds, &sp, out, err);
}

static qv_exec_op *apply_plan(qv_exec_ctx *c, sub_arg *arg, qvg_apply_mode mode, int32_t value_col) {
  qv_exec_op *scan, *op;
  qv_error err;
  assert_int_equal(qvg_op_node_scan(c, arg->st, 0, "a", &scan, &err), QV_OK);
  if (qvg_op_apply(c, scan, mode, build_expand, arg, mode == QVG_APPLY_OPTIONAL ? NULL : "x", value_col, &op, &err) !=
      QV_OK)
    fail_msg("%s", err.message);
  return op;
}

static qv_batch *one_batch(qv_exec_op *op) {
  qv_batch *b, *end;
  qv_error err;
  if (qv_exec_next(op, &b, &err) != QV_OK) fail_msg("%s", err.message);
  assert_non_null(b);
  assert_int_equal(qv_exec_next(op, &end, &err), QV_OK);
  assert_null(end);
  return b;
}

static int64_t i64(const qv_array *a, int64_t i) {
  return qv_array_is_valid(a, i) ? ((const int64_t *)qv_array_values(a))[i] : -1;
}

static void check_apply(const qvg_store *st) {
  qv_exec_ctx *c = ctx_new();
  sub_arg arg = {c, st};
  qv_error err;
  qvg_arena a = QVG_ARENA_INIT;
  qvg_val v;

  /* OPTIONAL: a, r, b in input order; Dee once with nulls */
  qv_exec_op *op = apply_plan(c, &arg, QVG_APPLY_OPTIONAL, -1);
  const qv_schema *s = qv_exec_schema(op);
  assert_int_equal(s->n_fields, 3);
  assert_string_equal(s->fields[0].name, "a");
  assert_string_equal(s->fields[1].name, "r");
  assert_string_equal(s->fields[2].name, "b");
  qv_batch *b = one_batch(op);
  assert_int_equal(b->num_rows, 5);
  static const int64_t wa[5] = {1, 1, 2, 3, 4}, wr[5] = {0, 1, 2, 3, -1}, wb[5] = {2, 3, 3, 4, -1};
  for (int i = 0; i < 5; i++) {
    assert_int_equal(i64(b->columns[0], i), gt_node(st, wa[i]));
    assert_int_equal(i64(b->columns[1], i), wr[i] < 0 ? -1 : gt_rel(st, wr[i]));
    assert_int_equal(i64(b->columns[2], i), wb[i] < 0 ? -1 : gt_node(st, wb[i]));
  }
  qv_batch_release(b);
  qv_exec_destroy(op);

  /* EXISTS, COUNT */
  static const int64_t counts[4] = {2, 1, 1, 0};
  for (int m = 0; m < 2; m++) {
    op = apply_plan(c, &arg, m ? QVG_APPLY_COUNT : QVG_APPLY_EXISTS, -1);
    assert_int_equal(qv_exec_schema(op)->n_fields, 2);
    b = one_batch(op);
    assert_int_equal(b->num_rows, 4);
    for (int i = 0; i < 4; i++) {
      assert_int_equal(qvg_val_from_array(b->columns[1], QVG_COL_VALUE, i, &a, &v, &err), QV_OK);
      if (m) {
        assert_int_equal(v.t, QVG_V_INT);
        assert_int_equal(v.u.i, counts[i]);
      } else {
        assert_int_equal(v.t, QVG_V_BOOL);
        assert_int_equal(v.u.b, counts[i] > 0);
      }
    }
    qv_batch_release(b);
    qv_exec_destroy(op);
  }

  /* COLLECT the b column (subplan column 3: a, "  row", r, b) */
  op = apply_plan(c, &arg, QVG_APPLY_COLLECT, 3);
  char *text;
  assert_int_equal(qv_exec_explain(op, false, &text, &err), QV_OK);
  assert_non_null(strstr(text,
                         "ApplyExec: mode=collect, as=x, value=b\n  NodeScanExec: a:Person, rows=4\n  "
                         "CsrExpandExec: key=a, types=[KNOWS], dir=->, to=b\n"));
  qv_free(text);
  b = one_batch(op);
  static const int64_t lists[4][2] = {{2, 3}, {3, 0}, {4, 0}, {0, 0}};
  for (int i = 0; i < 4; i++) {
    assert_int_equal(qvg_val_from_array(b->columns[1], QVG_COL_VALUE, i, &a, &v, &err), QV_OK);
    assert_int_equal(v.t, QVG_V_LIST);
    assert_int_equal(v.n, counts[i]);
    for (int32_t k = 0; k < v.n; k++) {
      assert_int_equal(v.u.l[k].t, QVG_V_NODE);
      assert_int_equal(v.u.l[k].u.i, gt_node(st, lists[i][k]));
    }
  }
  qv_batch_release(b);
  qv_exec_destroy(op);
  qvg_arena_free(&a);

  /* a subplan that drops "  row" is refused */
  qv_exec_op *scan;
  assert_int_equal(qvg_op_node_scan(c, st, 0, "a", &scan, &err), QV_OK);
  assert_int_equal(qvg_op_apply(c, scan, QVG_APPLY_COLLECT, build_expand, &arg, "x", 1, &op, &err), QV_ERR_INVALID);
  qv_exec_ctx_release(c);
}

static void test_apply_dataset(void **state) {
  (void)state;
  qv_graph *g = gt_open("g");
  check_apply(g->store);
  qv_graph_close(g);
}

static void test_apply_memory(void **state) {
  (void)state;
  qvg_store *st = gt_memory();
  check_apply(st);
  qvg_store_free(st);
}

/* ---- CreateExec ---- */

static qvg_cx map_lit(qvg_arena *a, const char *key, qvg_val v) {
  qvg_cx e;
  memset(&e, 0, sizeof e);
  e.kind = QVG_CX_LIT;
  qvg_entry en = {key, (int32_t)strlen(key), v};
  e.lit = gt_map(a, &en, 1);
  return e;
}

static void test_create(void **state) {
  (void)state;
  qvg_store *st;
  qv_error err;
  assert_int_equal(qvg_store_memory(&st, &err), QV_OK);
  qv_exec_ctx *c = ctx_new();
  qvg_arena a = QVG_ARENA_INIT;
  qvg_cx pa = map_lit(&a, "name", qvg_string("Ann", 3)), pr = map_lit(&a, "since", qvg_int(2019));
  const char *person[1] = {"Person"}, *knows[1] = {"KNOWS"};
  /* CREATE (a:Person {name: 'Ann'})-[r:KNOWS {since: 2019}]->(b:Person) */
  qvg_create_item path[3] = {{false, -1, "a", person, 1, &pa, 0},
                             {true, -1, "r", knows, 1, &pr, QVG_DIR_RIGHT},
                             {false, -1, "b", person, 1, NULL, 0}};
  qv_exec_op *unit, *op;
  assert_int_equal(qvg_op_unit(c, "  unit", &unit, &err), QV_OK);
  qvg_colkind uk[1] = {QVG_COL_VALUE};
  if (qvg_op_create(c, unit, st, uk, path, 3, 0, &op, &err) != QV_OK) fail_msg("%s", err.message);
  char *text;
  assert_int_equal(qv_exec_explain(op, false, &text, &err), QV_OK);
  assert_string_equal(text, "CreateExec: (a:Person)-[r:KNOWS]->(b:Person)\n  UnitExec:   unit, rows=1\n");
  qv_free(text);
  qv_batch *b = one_batch(op);
  assert_int_equal(b->schema.n_fields, 4);
  assert_int_equal(i64(b->columns[1], 0), 0);
  assert_int_equal(i64(b->columns[2], 0), 0);
  assert_int_equal(i64(b->columns[3], 0), 1);
  qv_batch_release(b);
  qv_exec_destroy(op);
  assert_int_equal(qvg_store_node_count(st, 0), 2);
  assert_int_equal(qvg_store_rel_src(st, 0), 0);
  assert_int_equal(qvg_store_rel_dst(st, 0), 1);
  qvg_val v;
  assert_int_equal(qvg_store_rel_prop(st, 0, "since", 5, &a, &v, &err), QV_OK);
  assert_int_equal(v.u.i, 2019);
  assert_int_equal(qvg_store_node_prop(st, 0, "name", 4, &a, &v, &err), QV_OK);
  assert_memory_equal(v.u.s, "Ann", 3);

  /* MATCH (p) CREATE (p)<-[:T]-(q): one new q per p that existed before */
  qv_exec_op *scan;
  assert_int_equal(qvg_op_node_scan(c, st, -1, "p", &scan, &err), QV_OK);
  const char *t[1] = {"T"};
  qvg_create_item back[3] = {{false, 0, NULL, NULL, 0, NULL, 0},
                             {true, -1, "  r", t, 1, NULL, QVG_DIR_LEFT},
                             {false, -1, "q", NULL, 0, NULL, 0}};
  qvg_colkind nk[1] = {QVG_COL_NODE};
  assert_int_equal(qvg_op_create(c, scan, st, nk, back, 3, 0, &op, &err), QV_OK);
  assert_int_equal(qv_exec_schema(op)->n_fields, 3); /* p, the rel, q */
  b = one_batch(op);
  assert_int_equal(b->num_rows, 2);
  for (int i = 0; i < 2; i++) {
    int64_t p = i64(b->columns[0], i), r = i64(b->columns[1], i), q = i64(b->columns[2], i);
    assert_int_equal(p, i);
    assert_int_equal(q, 2 + i);
    assert_int_equal(qvg_store_rel_src(st, r), q); /* <-: from q to p */
    assert_int_equal(qvg_store_rel_dst(st, r), p);
    assert_int_equal(qvg_store_rel_type(st, r), qvg_store_type(st, "T"));
  }
  qv_batch_release(b);
  qv_exec_destroy(op);
  assert_int_equal(qvg_store_node_count(st, -1), 4);
  assert_int_equal(qvg_store_rel_count(st, -1), 3);

  /* errors: a relationship without one type; properties that are no map */
  assert_int_equal(qvg_op_unit(c, "u", &unit, &err), QV_OK);
  qvg_create_item bad[3] = {path[0], path[1], path[2]};
  bad[1].n_labels = 0;
  assert_int_equal(qvg_op_create(c, unit, st, uk, bad, 3, 0, &op, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "exactly one type"));
  qvg_cx three;
  memset(&three, 0, sizeof three);
  three.kind = QVG_CX_LIT;
  three.lit = qvg_int(3);
  qvg_create_item lone[1] = {{false, -1, "n", NULL, 0, &three, 0}};
  assert_int_equal(qvg_op_unit(c, "u", &unit, &err), QV_OK);
  assert_int_equal(qvg_op_create(c, unit, st, uk, lone, 1, 0, &op, &err), QV_OK);
  assert_int_equal(qv_exec_next(op, &b, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "must be a map"));
  qv_exec_destroy(op);
  qvg_arena_free(&a);
  qvg_store_free(st);

  /* a dataset store is read-only */
  qv_graph *g = gt_open("g");
  lone[0].props = NULL;
  assert_int_equal(qvg_op_unit(c, "u", &unit, &err), QV_OK);
  assert_int_equal(qvg_op_create(c, unit, g->store, uk, lone, 1, 0, &op, &err), QV_OK);
  assert_int_equal(qv_exec_next(op, &b, &err), QV_ERR_UNSUPPORTED);
  qv_exec_destroy(op);
  qv_graph_close(g);
  qv_exec_ctx_release(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_apply_dataset),
      cmocka_unit_test(test_apply_memory),
      cmocka_unit_test(test_create),
  };
  return cmocka_run_group_tests(tests, gt_setup, gt_teardown);
}
