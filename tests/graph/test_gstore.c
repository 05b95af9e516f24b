/* The store behind Cypher queries (graph/gstore.h): the same four-person
 * graph as a dataset store and as a memory store answers the same ids,
 * labels, properties, relationship ends and adjacency; a dataset with a
 * deleted row keeps physical positions; the memory store's own cases
 * (several labels, self-loops, adjacency rebuilt after a change, bad
 * CREATE input). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "gstore_test_util.h"

static void assert_prop_int(const qvg_store *st, bool rel, int64_t id, const char *key, int64_t want) {
  qvg_arena a = QVG_ARENA_INIT;
  qvg_val v;
  qv_error err;
  qv_status rc = rel ? qvg_store_rel_prop(st, id, key, (int32_t)strlen(key), &a, &v, &err)
                     : qvg_store_node_prop(st, id, key, (int32_t)strlen(key), &a, &v, &err);
  if (rc != QV_OK) fail_msg("%s", err.message);
  assert_int_equal(v.t, QVG_V_INT);
  assert_int_equal(v.u.i, want);
  qvg_arena_free(&a);
}

static void assert_prop_null(const qvg_store *st, bool rel, int64_t id, const char *key) {
  qvg_arena a = QVG_ARENA_INIT;
  qvg_val v = qvg_int(1);
  qv_error err;
  qv_status rc = rel ? qvg_store_rel_prop(st, id, key, (int32_t)strlen(key), &a, &v, &err)
                     : qvg_store_node_prop(st, id, key, (int32_t)strlen(key), &a, &v, &err);
  assert_int_equal(rc, QV_OK);
  assert_int_equal(v.t, QVG_V_NULL);
  qvg_arena_free(&a);
}

static void assert_adj(const qvg_store *st, qvg_direction dir, int64_t node, int64_t n, const int64_t *nbrs,
                       const int64_t *rels) {
  qvg_adj adj = qvg_store_adj(st, 0, dir, node);
  assert_int_equal(adj.n, n);
  for (int64_t i = 0; i < n; i++) {
    assert_int_equal(adj.nbr_base + adj.nbrs[i], nbrs[i]);
    assert_int_equal(adj.rel_base + adj.rels[i], rels[i]);
  }
}

/* What both stores answer alike for the four-person graph. */
static void check_four_persons(const qvg_store *st) {
  qv_error err;
  assert_int_equal(st->n_labels, 1);
  assert_int_equal(st->n_types, 1);
  assert_int_equal(qvg_store_label(st, "Person"), 0);
  assert_int_equal(qvg_store_label(st, "City"), -1);
  assert_int_equal(qvg_store_type(st, "KNOWS"), 0);
  assert_int_equal(qvg_store_type(st, "Person"), -1);
  assert_int_equal(qvg_store_node_count(st, 0), 4);
  assert_int_equal(qvg_store_node_count(st, -1), 4);
  assert_int_equal(qvg_store_node_count(st, 3), 0);
  assert_int_equal(qvg_store_rel_count(st, 0), 4);
  assert_int_equal(qvg_store_rel_count(st, -1), 4);

  /* nodes in two pieces */
  int64_t ids[8], cursor = 0;
  assert_int_equal(qvg_store_nodes(st, 0, &cursor, ids, 3), 3);
  assert_int_equal(qvg_store_nodes(st, 0, &cursor, ids + 3, 3), 1);
  assert_int_equal(qvg_store_nodes(st, 0, &cursor, ids + 4, 3), 0);
  for (int i = 0; i < 4; i++) assert_int_equal(ids[i], gt_node(st, i + 1));
  cursor = 0;
  assert_int_equal(qvg_store_nodes(st, -1, &cursor, ids, 8), 4);
  assert_true(qvg_store_node_has_label(st, gt_node(st, 2), 0));
  assert_false(qvg_store_node_has_label(st, gt_node(st, 2), 1));
  assert_false(qvg_store_node_has_label(st, 99, 0));
  int32_t labels[4];
  assert_int_equal(qvg_store_node_labels(st, gt_node(st, 3), labels, 4), 1);
  assert_int_equal(labels[0], 0);
  assert_int_equal(qvg_store_node_labels(st, -5, labels, 4), 0);

  /* properties */
  assert_prop_int(st, false, gt_node(st, 2), "age", 42);
  assert_prop_int(st, false, gt_node(st, 4), "id", 4);
  assert_prop_null(st, false, gt_node(st, 2), "nope");
  assert_prop_null(st, false, 12345, "age");
  assert_prop_int(st, true, gt_rel(st, 2), "since", 2022);
  assert_prop_null(st, true, gt_rel(st, 2), "src"); /* endpoint columns are not properties */
  qvg_arena a = QVG_ARENA_INIT;
  qvg_val v;
  assert_int_equal(qvg_store_node_prop(st, gt_node(st, 3), "name", 4, &a, &v, &err), QV_OK);
  assert_int_equal(v.t, QVG_V_STRING);
  assert_int_equal(v.n, 3);
  assert_memory_equal(v.u.s, "Cid", 3);
  assert_int_equal(qvg_store_node_props(st, gt_node(st, 1), &a, &v, &err), QV_OK);
  assert_int_equal(v.t, QVG_V_MAP);
  assert_int_equal(v.n, 3);
  const qvg_val *name = qvg_map_get(&v, "name", 4);
  assert_non_null(name);
  assert_memory_equal(name->u.s, "Ann", 3);
  assert_int_equal(qvg_store_rel_props(st, gt_rel(st, 0), &a, &v, &err), QV_OK);
  assert_int_equal(v.t, QVG_V_MAP);
  assert_int_equal(v.n, 1);
  assert_int_equal(qvg_map_get(&v, "since", 5)->u.i, 2019);
  qvg_arena_free(&a);
  const char *const *keys;
  assert_int_equal(qvg_store_label_keys(st, 0, &keys), 3);
  assert_int_equal(qvg_store_type_keys(st, 0, &keys), 1);
  assert_string_equal(keys[0], "since");
  assert_int_equal(qvg_store_type_keys(st, 5, &keys), 0);

  /* relationships */
  cursor = 0;
  assert_int_equal(qvg_store_rels(st, 0, &cursor, ids, 8), 4);
  static const int64_t src[4] = {1, 1, 2, 3}, dst[4] = {2, 3, 3, 4};
  for (int i = 0; i < 4; i++) {
    assert_int_equal(ids[i], gt_rel(st, i));
    assert_int_equal(qvg_store_rel_type(st, ids[i]), 0);
    assert_int_equal(qvg_store_rel_src(st, ids[i]), gt_node(st, src[i]));
    assert_int_equal(qvg_store_rel_dst(st, ids[i]), gt_node(st, dst[i]));
  }
  assert_int_equal(qvg_store_rel_type(st, 77), -1);
  assert_int_equal(qvg_store_rel_src(st, -1), -1);

  /* adjacency: 1 -> 2 (rel 0), 1 -> 3 (rel 1), 2 -> 3 (rel 2), 3 -> 4 (rel 3) */
  assert_adj(st, QVG_OUT, gt_node(st, 1), 2, (int64_t[]){gt_node(st, 2), gt_node(st, 3)}, (int64_t[]){0, 1});
  assert_adj(st, QVG_OUT, gt_node(st, 4), 0, NULL, NULL);
  assert_adj(st, QVG_IN, gt_node(st, 3), 2, (int64_t[]){gt_node(st, 1), gt_node(st, 2)}, (int64_t[]){1, 2});
  assert_adj(st, QVG_IN, gt_node(st, 1), 0, NULL, NULL);
  assert_int_equal(qvg_store_adj(st, 1, QVG_OUT, 0).n, 0);
  assert_int_equal(qvg_store_adj(st, 0, QVG_OUT, 1000).n, 0);
  assert_int_equal(qvg_store_adj(st, 0, QVG_OUT, -1).n, 0);
}

static void test_dataset_store(void **state) {
  (void)state;
  qv_graph *g = gt_open("g");
  check_four_persons(g->store);
  qv_error err;
  int64_t id;
  assert_int_equal(qvg_store_create_node(g->store, NULL, 0, NULL, &id, &err), QV_ERR_UNSUPPORTED);
  assert_int_equal(qvg_store_create_rel(g->store, "KNOWS", 0, 1, NULL, &id, &err), QV_ERR_UNSUPPORTED);
  assert_int_equal(qvg_store_prepare(g->store, &err), QV_OK);
  qv_graph_close(g);
}

static void test_memory_store(void **state) {
  (void)state;
  qvg_store *st = gt_memory();
  check_four_persons(st);
  qvg_store_free(st);
  qvg_store_free(NULL);
}

/* A deleted person keeps its row position: ids skip it, properties of
 * the others are read by physical position. */
static void test_deleted_rows(void **state) {
  (void)state;
  gt_make_graph("gdel", "id,name,age\n1,Ann,31\n2,Bob,42\n3,Cid,27\n4,Dee,38\n", "src,dst,since\n1,3,2021\n3,4,2018\n");
  qv_error err;
  /* delete Bob, then rebuild */
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(gt_at("gdel_p"), 0, &ds, &err), QV_OK);
  uint8_t bits[1] = {0x02};
  const uint8_t *del[1] = {bits};
  int64_t ver;
  if (qv_dataset_delete_rows(ds, del, &ver, &err) != QV_OK) fail_msg("%s", err.message);
  qv_dataset_close(ds);
  bool rebuilt;
  if (qv_graph_refresh(gt_at("gdel"), &rebuilt, &err) != QV_OK) fail_msg("%s", err.message);
  assert_true(rebuilt);
  qv_graph *g = gt_open("gdel");
  const qvg_store *st = g->store;
  assert_int_equal(qvg_store_node_count(st, 0), 3);
  int64_t ids[8], cursor = 0;
  assert_int_equal(qvg_store_nodes(st, 0, &cursor, ids, 8), 3);
  assert_int_equal(ids[0], 0);
  assert_int_equal(ids[1], 2);
  assert_int_equal(ids[2], 3);
  assert_false(qvg_store_node_has_label(st, 1, 0));
  assert_prop_null(st, false, 1, "age");
  assert_prop_int(st, false, 2, "age", 27);
  assert_prop_int(st, false, 3, "age", 38);
  assert_int_equal(qvg_store_rel_dst(st, 0), 2);
  assert_prop_int(st, true, 1, "since", 2018);
  qv_graph_close(g);
}

static void test_memory_specifics(void **state) {
  (void)state;
  qvg_store *st;
  qv_error err;
  assert_int_equal(qvg_store_memory(&st, &err), QV_OK);
  qvg_arena a = QVG_ARENA_INIT;
  const char *ab[3] = {"B", "A", "B"};
  int64_t n0, n1, r0, r1;
  qvg_entry e[2] = {{"x", 1, qvg_int(1)}, {"gone", 4, qvg_null()}};
  qvg_val m = gt_map(&a, e, 2);
  assert_int_equal(qvg_store_create_node(st, ab, 3, &m, &n0, &err), QV_OK);
  assert_int_equal(qvg_store_create_node(st, NULL, 0, NULL, &n1, &err), QV_OK);
  assert_int_equal(st->n_labels, 2);
  assert_string_equal(st->labels[0], "B");
  int32_t ls[4];
  assert_int_equal(qvg_store_node_labels(st, n0, ls, 4), 2);
  assert_int_equal(ls[0], 0);
  assert_int_equal(ls[1], 1);
  assert_int_equal(qvg_store_node_labels(st, n1, ls, 4), 0);
  assert_int_equal(qvg_store_node_count(st, 1), 1);
  /* null entries are not stored, and not keys */
  const char *const *keys;
  assert_int_equal(qvg_store_label_keys(st, 0, &keys), 1);
  assert_string_equal(keys[0], "x");
  qvg_val v;
  assert_int_equal(qvg_store_node_props(st, n0, &a, &v, &err), QV_OK);
  assert_int_equal(v.n, 1);
  /* a self-loop, then an edge made after a lookup: the CSR follows */
  assert_int_equal(qvg_store_create_rel(st, "T", n0, n0, NULL, &r0, &err), QV_OK);
  assert_int_equal(qvg_store_prepare(st, &err), QV_OK);
  qvg_adj adj = qvg_store_adj(st, 0, QVG_OUT, n0);
  assert_int_equal(adj.n, 1);
  assert_int_equal(adj.nbrs[0], n0);
  assert_int_equal(qvg_store_adj(st, 0, QVG_IN, n0).n, 1);
  assert_int_equal(qvg_store_create_rel(st, "T", n1, n0, NULL, &r1, &err), QV_OK);
  assert_int_equal(r1, 1);
  adj = qvg_store_adj(st, 0, QVG_IN, n0);
  assert_int_equal(adj.n, 2);
  assert_int_equal(adj.rels[0], r0);
  assert_int_equal(adj.rels[1], r1);
  assert_int_equal(adj.nbrs[1], n1);
  /* bad input */
  qvg_val notmap = qvg_int(3);
  assert_int_equal(qvg_store_create_node(st, NULL, 0, &notmap, &n1, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "properties must be a map"));
  assert_int_equal(qvg_store_create_rel(st, "T", n0, 99, NULL, &r1, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "no such node"));
  assert_int_equal(qvg_store_create_rel(st, "", n0, n0, NULL, &r1, &err), QV_ERR_INVALID);
  assert_int_equal(qvg_store_rel_count(st, 0), 2);
  qvg_arena_free(&a);
  qvg_store_free(st);
  /* the public handle */
  qv_graph *g;
  assert_int_equal(qv_graph_open_memory(&g, &err), QV_OK);
  assert_non_null(g->store);
  assert_non_null(g->store->mem);
  qv_graph_close(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dataset_store),
      cmocka_unit_test(test_memory_store),
      cmocka_unit_test(test_deleted_rows),
      cmocka_unit_test(test_memory_specifics),
  };
  return cmocka_run_group_tests(tests, gt_setup, gt_teardown);
}
