/* The graphs the store and operator tests share: the four-person graph
 * (Person(id, name, age), KNOWS(src, dst, since), four edges) built over
 * datasets in a temporary folder, and the same graph in a memory store
 * (nodes created in id order, so memory node i is person i + 1 and memory
 * rel i is edge row i).  Static functions: each test program includes it
 * once. */
#ifndef QUIVER_TESTS_GRAPH_GSTORE_TEST_UTIL_H
#define QUIVER_TESTS_GRAPH_GSTORE_TEST_UTIL_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/gstore.h"
#include "quiver/quiver.h"

static char gt_root[256];

static int gt_rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

static char *gt_at(const char *name) {
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", gt_root, name);
  return buf[k];
}

static void gt_write_csv(const char *dataset, const char *csv) {
  qv_csv_options co = QV_CSV_OPTIONS_INIT;
  qv_batch_reader *r;
  qv_error err;
  assert_int_equal(qv_csv_open_buffer(csv, (int64_t)strlen(csv), &co, &r, &err), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  if (qv_dataset_write(gt_at(dataset), r, &wo, NULL, &err) != QV_OK) fail_msg("%s", err.message);
  qv_batch_reader_destroy(r);
}

static const char *gt_persons = "id,name,age\n1,Ann,31\n2,Bob,42\n3,Cid,27\n4,Dee,38\n";
static const char *gt_knows = "src,dst,since\n1,2,2019\n1,3,2021\n2,3,2022\n3,4,2018\n";

/* Creates graph `graph` over datasets persons and knows (written first). */
static void gt_make_graph(const char *graph, const char *persons, const char *knows) {
  char pn[64], kn[64], spec[1024];
  snprintf(pn, sizeof pn, "%s_p", graph);
  snprintf(kn, sizeof kn, "%s_k", graph);
  gt_write_csv(pn, persons);
  gt_write_csv(kn, knows);
  qv_graph_decl d = QV_GRAPH_DECL_INIT;
  qv_error err;
  snprintf(spec, sizeof spec, "Person=%s:id", gt_at(pn));
  assert_int_equal(qv_graph_decl_parse_node(&d, spec, &err), QV_OK);
  snprintf(spec, sizeof spec, "KNOWS=%s:src->dst:Person->Person", gt_at(kn));
  assert_int_equal(qv_graph_decl_parse_rel(&d, spec, &err), QV_OK);
  if (qv_graph_create(gt_at(graph), &d, NULL, &err) != QV_OK) fail_msg("%s", err.message);
  qv_graph_decl_reset(&d);
}

static int gt_setup(void **state) {
  (void)state;
  snprintf(gt_root, sizeof gt_root, "/tmp/qv-gstore-XXXXXX");
  assert_non_null(mkdtemp(gt_root));
  gt_make_graph("g", gt_persons, gt_knows);
  return 0;
}

static int gt_teardown(void **state) {
  (void)state;
  nftw(gt_root, gt_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  return 0;
}

static qv_graph *gt_open(const char *graph) {
  qv_graph *g;
  qv_error err;
  if (qv_graph_open(gt_at(graph), &g, &err) != QV_OK) fail_msg("%s", err.message);
  assert_non_null(g->store);
  return g;
}

/* A map of n (key, value) pairs in a. */
static qvg_val gt_map(qvg_arena *a, const qvg_entry *e, int32_t n) {
  qvg_val v;
  qv_error err;
  if (qvg_map_make(a, e, n, &v, &err) != QV_OK) fail_msg("%s", err.message);
  return v;
}

/* The four persons and their four KNOWS in a memory store. */
static qvg_store *gt_memory(void) {
  qvg_store *st;
  qv_error err;
  assert_int_equal(qvg_store_memory(&st, &err), QV_OK);
  static const char *names[4] = {"Ann", "Bob", "Cid", "Dee"};
  static const int64_t ages[4] = {31, 42, 27, 38};
  const char *person = "Person";
  qvg_arena a = QVG_ARENA_INIT;
  for (int i = 0; i < 4; i++) {
    qvg_entry e[3] = {{"id", 2, qvg_int(i + 1)}, {"name", 4, qvg_string(names[i], 3)}, {"age", 3, qvg_int(ages[i])}};
    qvg_val m = gt_map(&a, e, 3);
    int64_t id;
    if (qvg_store_create_node(st, &person, 1, &m, &id, &err) != QV_OK) fail_msg("%s", err.message);
    assert_int_equal(id, i);
  }
  static const int64_t src[4] = {0, 0, 1, 2}, dst[4] = {1, 2, 2, 3}, since[4] = {2019, 2021, 2022, 2018};
  for (int i = 0; i < 4; i++) {
    qvg_entry e[1] = {{"since", 5, qvg_int(since[i])}};
    qvg_val m = gt_map(&a, e, 1);
    int64_t id;
    if (qvg_store_create_rel(st, "KNOWS", src[i], dst[i], &m, &id, &err) != QV_OK) fail_msg("%s", err.message);
    assert_int_equal(id, i);
  }
  qvg_arena_free(&a);
  assert_int_equal(qvg_store_prepare(st, &err), QV_OK);
  return st;
}

/* Node id of person p (1..4) and rel id of edge row r in either store. */
static int64_t gt_node(const qvg_store *st, int64_t p) {
  (void)st;
  return p - 1; /* label 0 in a dataset store: the position */
}
static int64_t gt_rel(const qvg_store *st, int64_t r) {
  (void)st;
  return r; /* type 0 */
}

#endif
