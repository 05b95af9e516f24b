/* bench/graph/expand: CsrExpandExec's expansion rate.
 *
 *   bench_graph_expand DIR
 *
 * DIR is what `bench_graph_csr_build --dir DIR` leaves: DIR/graph over
 * Person(id, age) and KNOWS(src, dst, since).  Runs NodeScanExec(a) ->
 * CsrExpandExec over the graph and prints rows and edges per second for:
 * one hop ->, one hop undirected, one hop with a memoized target filter
 * (b.age > 50), two hops (two operators), and a var-length *1..2 hop from
 * every person.  Each plan runs three times; the best time is printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/cypher_ops.h"

static double best_of(qv_exec_ctx *c, const qvg_store *st, const qvg_expand_spec *sp, int hops, int64_t *rows,
                      int64_t *edges) {
  double best = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    qv_error err;
    qv_exec_op *op;
    qvg_colkind kinds[3] = {QVG_COL_NODE, QVG_COL_REL, QVG_COL_NODE};
    if (qvg_op_node_scan(c, st, -1, "a", &op, &err) != QV_OK) goto fail;
    for (int h = 0; h < hops; h++) {
      qvg_expand_spec s2 = *sp;
      s2.from_col = h * 2;
      s2.to_name = h ? "c" : "b";
      s2.rel_name = h ? "r2" : "r";
      if (qvg_op_expand(c, op, st, kinds, &s2, &op, &err) != QV_OK) goto fail;
    }
    double t0 = qv_now_seconds();
    int64_t n = 0;
    for (;;) {
      qv_batch *b;
      if (qv_exec_next(op, &b, &err) != QV_OK) goto fail;
      if (!b) break;
      n += b->num_rows;
      qv_batch_release(b);
    }
    double t = qv_now_seconds() - t0;
    char *text = NULL;
    if (qv_exec_explain(op, true, &text, &err) == QV_OK) {
      /* edges= of every CsrExpandExec line */
      int64_t e = 0;
      for (const char *p = text; (p = strstr(p, ", edges=")); p++) e += atoll(p + 8);
      *edges = e;
    }
    qv_free(text);
    qv_exec_destroy(op);
    *rows = n;
    if (t < best) best = t;
    continue;
  fail:
    fprintf(stderr, "bench: %s\n", err.message);
    exit(1);
  }
  return best;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR (made by bench_graph_csr_build --dir DIR)\n", argv[0]);
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/graph", argv[1]);
  qv_graph *g;
  qv_error err;
  if (qv_graph_open(path, &g, &err) != QV_OK) {
    fprintf(stderr, "bench: %s\n", err.message);
    return 1;
  }
  const qvg_store *st = g->store;
  qv_exec_ctx *c;
  if (qv_exec_ctx_create(NULL, &c, &err) != QV_OK) return 1;
  int32_t knows = qvg_store_type(st, "KNOWS");
  qvg_expand_spec sp;
  memset(&sp, 0, sizeof sp);
  sp.types = &knows;
  sp.n_types = 1;
  sp.dir = QVG_DIR_RIGHT;
  sp.into_col = -1;
  sp.to_label = -1;
  /* b.age > 50 */
  qvg_cx col = {0}, prop = {0}, lit = {0}, cmp = {0};
  qvg_cx *pk[1] = {&col}, *ck[2] = {&prop, &lit};
  uint8_t ops[1] = {QVG_CMP_GT};
  col.kind = QVG_CX_COL;
  col.col = 2;
  prop.kind = QVG_CX_PROP;
  prop.n_kids = 1;
  prop.kids = pk;
  prop.name = "age";
  prop.nlen = 3;
  lit.kind = QVG_CX_LIT;
  lit.lit = qvg_int(50);
  cmp.kind = QVG_CX_CMP;
  cmp.n_kids = 2;
  cmp.kids = ck;
  cmp.ops = ops;
  printf("graph %s: %lld persons, %lld KNOWS\n", path, (long long)qvg_store_node_count(st, -1),
         (long long)qvg_store_rel_count(st, knows));
  struct {
    const char *what;
    int dir, hops;
    bool varlen, filter;
  } cases[] = {{"(a)-[:KNOWS]->(b)", QVG_DIR_RIGHT, 1, false, false},
               {"(a)-[:KNOWS]-(b)", QVG_DIR_BOTH, 1, false, false},
               {"(a)-[:KNOWS]->(b) WHERE b.age > 50 (memoized)", QVG_DIR_RIGHT, 1, false, true},
               {"(a)-[:KNOWS]->(b)-[:KNOWS]->(c)", QVG_DIR_RIGHT, 2, false, false},
               {"(a)-[:KNOWS*1..2]->(b)", QVG_DIR_RIGHT, 1, true, false}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    qvg_expand_spec s = sp;
    s.dir = cases[k].dir;
    s.varlen = cases[k].varlen;
    s.min_hops = 1;
    s.max_hops = 2;
    s.target_filter = cases[k].filter ? &cmp : NULL;
    int64_t rows = 0, edges = 0;
    double t = best_of(c, st, &s, cases[k].hops, &rows, &edges);
    printf("%-48s %10lld rows %10lld edges  %.3f s  %6.1f M edges/s  %6.1f M rows/s\n", cases[k].what, (long long)rows,
           (long long)edges, t, (double)edges / t / 1e6, (double)rows / t / 1e6);
  }
  qv_exec_ctx_release(c);
  qv_graph_close(g);
  return 0;
}
