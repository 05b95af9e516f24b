/* The graph layer end to end: a four-person graph (Person(id, name, age),
 * KNOWS(src, dst, since), four edges) declared over datasets, its node
 * index and both CSRs; sparse ids; the errors a declaration can meet
 * (duplicate ids, dangling endpoints, bad columns); a damaged CSR file;
 * a dataset that moved on after the build (refused, then refreshed); the
 * same files at 1 and N threads. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/wire.h"
#include "graph/graph_int.h"
#include "quiver/quiver.h"

static char g_root[256];

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

static char *at(const char *name) {
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", g_root, name);
  return buf[k];
}

static void write_csv(const char *dataset, const char *csv, qv_write_mode mode) {
  qv_csv_options co = QV_CSV_OPTIONS_INIT;
  qv_batch_reader *r;
  qv_error err;
  assert_int_equal(qv_csv_open_buffer(csv, (int64_t)strlen(csv), &co, &r, &err), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  wo.mode = mode;
  if (qv_dataset_write(at(dataset), r, &wo, NULL, &err) != QV_OK) fail_msg("%s", err.message);
  qv_batch_reader_destroy(r);
}

static const char *persons = "id,name,age\n1,Ann,31\n2,Bob,42\n3,Cid,27\n4,Dee,38\n";
static const char *knows = "src,dst,since\n1,2,2019\n1,3,2021\n2,3,2022\n3,4,2018\n";

static int setup(void **state) {
  (void)state;
  snprintf(g_root, sizeof g_root, "/tmp/qv-graph-XXXXXX");
  assert_non_null(mkdtemp(g_root));
  write_csv("persons", persons, QV_WRITE_CREATE);
  write_csv("knows", knows, QV_WRITE_CREATE);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  nftw(g_root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  return 0;
}

static qv_status create(const char *graph, const char *node, const char *rel, qv_error *err) {
  qv_graph_decl d = QV_GRAPH_DECL_INIT;
  char spec[1024];
  snprintf(spec, sizeof spec, node, g_root);
  qv_status st = qv_graph_decl_parse_node(&d, spec, err);
  if (st == QV_OK && rel) {
    snprintf(spec, sizeof spec, rel, g_root);
    st = qv_graph_decl_parse_rel(&d, spec, err);
  }
  if (st == QV_OK) st = qv_graph_create(at(graph), &d, NULL, err);
  qv_graph_decl_reset(&d);
  return st;
}

static void assert_span(qvg_span s, int64_t n, const uint32_t *nbrs, const uint32_t *edges) {
  assert_int_equal(s.n, n);
  for (int64_t i = 0; i < n; i++) {
    assert_int_equal(s.nbrs[i], nbrs[i]);
    assert_int_equal(s.edges[i], edges[i]);
  }
}

static void test_four_persons(void **state) {
  (void)state;
  qv_error err;
  if (create("g", "Person=%s/persons:id", "KNOWS=%s/knows:src->dst:Person->Person", &err) != QV_OK)
    fail_msg("%s", err.message);
  /* a second create is refused */
  assert_int_equal(create("g", "Person=%s/persons:id", NULL, &err), QV_ERR_EXISTS);
  qv_graph *g;
  if (qv_graph_open(at("g"), &g, &err) != QV_OK) fail_msg("%s", err.message);
  int32_t p = qvg_label_find(g, "Person"), k = qvg_type_find(g, "KNOWS");
  assert_int_equal(p, 0);
  assert_int_equal(k, 0);
  assert_int_equal(qvg_label_find(g, "Nobody"), -1);
  assert_int_equal(qvg_label_count(g, p), 4);
  assert_int_equal(qvg_type_count(g, k), 4);
  for (int64_t id = 1; id <= 4; id++) assert_int_equal(qvg_node_position(g, p, id), id - 1);
  assert_int_equal(qvg_node_position(g, p, 0), -1);
  assert_int_equal(qvg_node_position(g, p, 5), -1);
  assert_true(g->cat.labels[0].index.dense);
  /* forward: 1 -> 2 (edge 0), 1 -> 3 (edge 1), 2 -> 3 (edge 2), 3 -> 4 (edge 3) */
  assert_span(qvg_neighbours(g, k, QVG_OUT, 0), 2, (uint32_t[]){1, 2}, (uint32_t[]){0, 1});
  assert_span(qvg_neighbours(g, k, QVG_OUT, 1), 1, (uint32_t[]){2}, (uint32_t[]){2});
  assert_span(qvg_neighbours(g, k, QVG_OUT, 2), 1, (uint32_t[]){3}, (uint32_t[]){3});
  assert_span(qvg_neighbours(g, k, QVG_OUT, 3), 0, NULL, NULL);
  /* reverse */
  assert_span(qvg_neighbours(g, k, QVG_IN, 0), 0, NULL, NULL);
  assert_span(qvg_neighbours(g, k, QVG_IN, 1), 1, (uint32_t[]){0}, (uint32_t[]){0});
  assert_span(qvg_neighbours(g, k, QVG_IN, 2), 2, (uint32_t[]){0, 1}, (uint32_t[]){1, 2});
  assert_span(qvg_neighbours(g, k, QVG_IN, 3), 1, (uint32_t[]){2}, (uint32_t[]){3});
  assert_int_equal(qvg_neighbours(g, k, QVG_OUT, 4).n, 0); /* out of range */
  assert_int_equal(qvg_neighbours(g, 7, QVG_OUT, 0).n, 0);
  qvg_degree_stats ds;
  qvg_degree(g, k, QVG_OUT, &ds);
  assert_int_equal(ds.max, 2);
  assert_int_equal(ds.with_edges, 3);
  assert_true(ds.mean == 1.0);
  qvg_degree(g, k, QVG_IN, &ds);
  assert_int_equal(ds.max, 2);
  assert_int_equal(ds.with_edges, 3);
  assert_int_equal(g->cat.types[0].n_props, 1);
  assert_string_equal(g->cat.types[0].props[0], "since");
  int32_t f;
  int64_t row;
  assert_true(qvg_locate(g->cat.labels[0].frag_start, qv_dataset_num_fragments(g->cat.labels[0].ds), 3, &f, &row));
  assert_int_equal(f, 0);
  assert_int_equal(row, 3);
  assert_false(qvg_locate(g->cat.labels[0].frag_start, 1, 4, &f, &row));
  qv_graph_close(g);
  qv_graph_close(NULL);

  char *text;
  assert_int_equal(qv_graph_show(at("g"), &text, &err), QV_OK);
  assert_non_null(strstr(text, "Person: dataset ../persons version 1, id column `id`, 4 nodes of 4 rows, dense index"));
  assert_non_null(
      strstr(text, "KNOWS: (Person)-[:KNOWS]->(Person), dataset ../knows version 1, `src` -> `dst`, 4 edges"));
  assert_null(strstr(text, "stale"));
  qv_free(text);
}

static void test_sparse_ids(void **state) {
  (void)state;
  write_csv("sp", "id,name\n7000000000,a\n5,b\n-12,c\n100,d\n", QV_WRITE_CREATE);
  write_csv("spk", "a,b\n5,-12\n-12,7000000000\n5,100\n", QV_WRITE_CREATE);
  qv_error err;
  if (create("gs", "N=%s/sp:id", "E=%s/spk:a->b:N->N", &err) != QV_OK) fail_msg("%s", err.message);
  qv_graph *g;
  assert_int_equal(qv_graph_open(at("gs"), &g, &err), QV_OK);
  assert_false(g->cat.labels[0].index.dense);
  assert_int_equal(qvg_node_position(g, 0, 7000000000), 0);
  assert_int_equal(qvg_node_position(g, 0, 5), 1);
  assert_int_equal(qvg_node_position(g, 0, -12), 2);
  assert_int_equal(qvg_node_position(g, 0, 100), 3);
  assert_int_equal(qvg_node_position(g, 0, 6), -1);
  assert_span(qvg_neighbours(g, 0, QVG_OUT, 1), 2, (uint32_t[]){2, 3}, (uint32_t[]){0, 2});
  assert_span(qvg_neighbours(g, 0, QVG_IN, 0), 1, (uint32_t[]){2}, (uint32_t[]){1});
  qv_graph_close(g);
}

static void test_errors(void **state) {
  (void)state;
  qv_error err;
  write_csv("dup", "id,name\n1,a\n2,b\n3,c\n2,d\n1,e\n", QV_WRITE_CREATE);
  assert_int_equal(create("gd", "P=%s/dup:id", NULL, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "node label P: dataset "));
  assert_non_null(strstr(err.message, "column `id`: duplicate id 2 at row positions 1 and 3"));
  /* the sorted form finds the same first duplicate */
  write_csv("dups", "id\n100\n9000000\n100000000\n9000000\n100\n", QV_WRITE_CREATE);
  assert_int_equal(create("gd", "P=%s/dups:id", NULL, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "duplicate id 9000000 at row positions 1 and 3"));
  /* the failed create left no folder behind */
  assert_int_equal(access(at("gd"), F_OK), -1);

  write_csv("dangling", "src,dst\n1,2\n1,9\n8,2\n3,4\n", QV_WRITE_CREATE);
  assert_int_equal(create("gx", "Person=%s/persons:id", "R=%s/dangling:src->dst:Person->Person", &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "relationship type R: dataset "));
  assert_non_null(strstr(err.message,
                         "2 endpoint ids match no node; the first: destination id 9 (column `dst`, row 1) matches no "
                         "Person node"));
  assert_int_equal(create("gx", "Person=%s/persons:name", NULL, &err), QV_ERR_TYPE);
  assert_non_null(strstr(err.message, "column `name` (id) is string, not an integer type"));
  assert_int_equal(create("gx", "Person=%s/persons:nope", NULL, &err), QV_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "no column `nope` (id)"));
  assert_int_equal(create("gx", "Person=%s/nothere:id", NULL, &err), QV_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "node label Person: no such dataset: "));
  assert_int_equal(create("gx", "Person=%s/persons:id", "R=%s/knows:src->nope:Person->Person", &err), QV_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "no column `nope` (destination id)"));
  assert_int_equal(create("gx", "Person=%s/persons:id", "R=%s/knows:src->dst:Person->City", &err), QV_ERR_INVALID);
  assert_string_equal(err.message, "relationship type R: label City is not declared (use --node City=...)");

  qv_graph_decl d = QV_GRAPH_DECL_INIT;
  assert_int_equal(qv_graph_decl_parse_node(&d, "P=a:b:id", &err), QV_OK);
  assert_string_equal(d.nodes[0].dataset, "a:b");
  assert_string_equal(d.nodes[0].id_column, "id");
  assert_int_equal(qv_graph_decl_parse_node(&d, "P=a:b:id", &err), QV_OK);
  assert_int_equal(qv_graph_create(at("gx"), &d, NULL, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "label P is declared twice"));
  assert_int_equal(qv_graph_decl_parse_node(&d, "P=data", &err), QV_ERR_PARSE);
  assert_string_equal(err.message, "--node 'P=data': expected LABEL=DATASET:IDCOL");
  assert_int_equal(qv_graph_decl_parse_node(&d, "bad-name=data:id", &err), QV_ERR_INVALID);
  assert_int_equal(qv_graph_decl_parse_rel(&d, "R=x/y:a->b:P->P", &err), QV_OK);
  assert_string_equal(d.rels[0].dataset, "x/y");
  assert_string_equal(d.rels[0].src_column, "a");
  assert_string_equal(d.rels[0].dst_label, "P");
  assert_int_equal(qv_graph_decl_parse_rel(&d, "R=x/y:a:P->P", &err), QV_ERR_PARSE);
  assert_string_equal(err.message, "--rel 'R=x/y:a:P->P': expected SRCCOL->DSTCOL after the dataset");
  assert_int_equal(qv_graph_decl_parse_rel(&d, "R=x/y:a->b:P", &err), QV_ERR_PARSE);
  qv_graph_decl_reset(&d);
  qv_graph_decl_reset(NULL);
  qv_graph *g = (qv_graph *)1;
  assert_int_equal(qv_graph_open(at("nograph"), &g, &err), QV_ERR_NOT_FOUND);
  assert_null(g);
}

static uint8_t *slurp(const char *path, int64_t *size) {
  uint8_t *b;
  qv_error err;
  assert_int_equal(qvb_file_read(path, path, INT64_MAX, &b, size, &err), QV_OK);
  return b;
}

static void spit(const char *path, const uint8_t *b, int64_t size) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b, 1, (size_t)size, f), (size_t)size);
  fclose(f);
}

static void test_damaged_files(void **state) {
  (void)state;
  qv_error err;
  if (create("gdmg", "Person=%s/persons:id", "KNOWS=%s/knows:src->dst:Person->Person", &err) != QV_OK)
    fail_msg("%s", err.message);
  const char *files[] = {"gdmg/rels/KNOWS.1.fwd", "gdmg/rels/KNOWS.1.rev", "gdmg/nodes/Person.1.qvn",
                         "gdmg/catalog.qvg"};
  for (int fi = 0; fi < 4; fi++) {
    int64_t size;
    uint8_t *orig = slurp(at(files[fi]), &size);
    /* every byte flipped, one at a time: an error naming the file, never a crash */
    for (int64_t i = 0; i < size; i++) {
      orig[i] ^= 0x5A;
      spit(at(files[fi]), orig, size);
      orig[i] ^= 0x5A;
      qv_graph *g = NULL;
      qv_status st = qv_graph_open(at("gdmg"), &g, &err);
      if (st == QV_OK) fail_msg("%s: byte %lld flipped and the graph still opened", files[fi], (long long)i);
      assert_int_equal(st, QV_ERR_CORRUPT);
      assert_non_null(strstr(err.message, files[fi]));
      assert_null(g);
    }
    /* cut short */
    spit(at(files[fi]), orig, size - 5);
    qv_graph *g = NULL;
    assert_int_equal(qv_graph_open(at("gdmg"), &g, &err), QV_ERR_CORRUPT);
    spit(at(files[fi]), orig, size);
    qv_free(orig);
  }
  /* one flipped payload byte of the forward CSR: the message names the offset */
  int64_t size;
  uint8_t *b = slurp(at(files[0]), &size);
  b[80] ^= 1;
  spit(at(files[0]), b, size);
  qv_graph *g = NULL;
  assert_int_equal(qv_graph_open(at("gdmg"), &g, &err), QV_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "gdmg/rels/KNOWS.1.fwd: offset 32: checksum mismatch"));
  b[80] ^= 1;
  spit(at(files[0]), b, size);
  qv_free(b);
  assert_int_equal(qv_graph_open(at("gdmg"), &g, &err), QV_OK);
  qv_graph_close(g);
}

static void test_moved_on(void **state) {
  (void)state;
  qv_error err;
  write_csv("k2", knows, QV_WRITE_CREATE);
  if (create("gm", "Person=%s/persons:id", "KNOWS=%s/k2:src->dst:Person->Person", &err) != QV_OK)
    fail_msg("%s", err.message);
  bool rebuilt = true;
  assert_int_equal(qv_graph_refresh(at("gm"), &rebuilt, &err), QV_OK);
  assert_false(rebuilt);
  write_csv("k2", "src,dst,since\n4,1,2024\n", QV_WRITE_APPEND);
  qv_graph *g = NULL;
  assert_int_equal(qv_graph_open(at("gm"), &g, &err), QV_ERR_CONFLICT);
  assert_non_null(strstr(err.message,
                         "(relationship type KNOWS) is at version 2, the graph was built from version 1: "
                         "run 'quiver graph refresh "));
  char *text;
  assert_int_equal(qv_graph_show(at("gm"), &text, &err), QV_OK);
  assert_non_null(strstr(text, "stale: dataset ../k2 (type KNOWS) is at version 2, built from version 1"));
  qv_free(text);
  assert_int_equal(qv_graph_refresh(at("gm"), &rebuilt, &err), QV_OK);
  assert_true(rebuilt);
  assert_int_equal(access(at("gm/rels/KNOWS.1.fwd"), F_OK), -1); /* the old build's files are gone */
  if (qv_graph_open(at("gm"), &g, &err) != QV_OK) fail_msg("%s", err.message);
  assert_int_equal(g->cat.build, 2);
  assert_int_equal(qvg_type_count(g, 0), 5);
  assert_span(qvg_neighbours(g, 0, QVG_OUT, 3), 1, (uint32_t[]){0}, (uint32_t[]){4});
  assert_span(qvg_neighbours(g, 0, QVG_IN, 0), 1, (uint32_t[]){3}, (uint32_t[]){4});
  qv_graph_close(g);
  /* a deleted edge row is no edge; the others keep their row ids */
  int64_t deleted;
  assert_int_equal(qv_dataset_delete_where(at("k2"), "since = 2021", &deleted, NULL, &err), QV_OK);
  assert_int_equal(deleted, 1);
  assert_int_equal(qv_graph_refresh(at("gm"), &rebuilt, &err), QV_OK);
  assert_int_equal(qv_graph_open(at("gm"), &g, &err), QV_OK);
  assert_int_equal(qvg_type_count(g, 0), 4);
  assert_span(qvg_neighbours(g, 0, QVG_OUT, 0), 1, (uint32_t[]){1}, (uint32_t[]){0});
  assert_span(qvg_neighbours(g, 0, QVG_IN, 2), 1, (uint32_t[]){1}, (uint32_t[]){2});
  qv_graph_close(g);
}

/* A bigger random graph built at 1 and at 4 threads: the same bytes. */
static void test_threads_same_files(void **state) {
  (void)state;
  qv_buffer csv = QV_BUFFER_INIT;
  qv_buffer_append(&csv, "id\n", 3);
  char line[64];
  for (int i = 0; i < 3000; i++) {
    int n = snprintf(line, sizeof line, "%d\n", i * 2);
    qv_buffer_append(&csv, line, n);
  }
  qv_buffer_append(&csv, "\0", 1);
  write_csv("tn", (const char *)csv.data, QV_WRITE_CREATE);
  qv_buffer_reset(&csv);
  qv_buffer_append(&csv, "s,d\n", 4);
  uint32_t x = 12345;
  for (int i = 0; i < 200000; i++) {
    x = x * 1103515245u + 12345u;
    int s = (int)((x >> 8) % 3000);
    x = x * 1103515245u + 12345u;
    int d = (int)((x >> 8) % 3000);
    int n = snprintf(line, sizeof line, "%d,%d\n", s * 2, d * 2);
    qv_buffer_append(&csv, line, n);
  }
  qv_buffer_append(&csv, "\0", 1);
  write_csv("te", (const char *)csv.data, QV_WRITE_CREATE);
  qv_buffer_reset(&csv);
  qv_error err;
  int before = qv_set_threads(1);
  if (create("gt1", "N=%s/tn:id", "E=%s/te:s->d:N->N", &err) != QV_OK) fail_msg("%s", err.message);
  qv_set_threads(4);
  if (create("gt4", "N=%s/tn:id", "E=%s/te:s->d:N->N", &err) != QV_OK) fail_msg("%s", err.message);
  qv_set_threads(before);
  const char *names[] = {"rels/E.1.fwd", "rels/E.1.rev", "nodes/N.1.qvn"};
  for (int i = 0; i < 3; i++) {
    char a[64], b[64];
    snprintf(a, sizeof a, "gt1/%s", names[i]);
    snprintf(b, sizeof b, "gt4/%s", names[i]);
    int64_t na, nb;
    uint8_t *pa = slurp(at(a), &na), *pb = slurp(at(b), &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(pa, pb, (size_t)na);
    qv_free(pa);
    qv_free(pb);
  }
  qv_graph *g;
  assert_int_equal(qv_graph_open(at("gt4"), &g, &err), QV_OK);
  assert_int_equal(qvg_type_count(g, 0), 200000);
  /* every edge is where the offsets say, from the right source */
  int64_t total = 0;
  for (int64_t v = 0; v < 3000; v++) total += qvg_neighbours(g, 0, QVG_OUT, v).n;
  assert_int_equal(total, 200000);
  qv_graph_close(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_four_persons), cmocka_unit_test(test_sparse_ids),
      cmocka_unit_test(test_errors),       cmocka_unit_test(test_damaged_files),
      cmocka_unit_test(test_moved_on),     cmocka_unit_test(test_threads_same_files),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
