/* bench/graph/csr_build: the CSR build rate on a generated social graph.
 *
 *   bench_graph_csr_build [--persons N] [--dir DIR] [--threads T]
 *
 * Writes Person(id, age) with N persons (default 100,000) and KNOWS(src,
 * dst, since) with about 24 edges per person (2.4 million for the default)
 * as datasets under DIR (default: a new folder in $TMPDIR, removed at the
 * end unless --dir was given), then, in a fresh process of its own (so the
 * peak RSS is the build's, not the generator's), times `qv_graph_create`
 * end to end (read the id columns, node index, both CSRs, write and fsync
 * the files) and prints the build's parts, edges per second and peak RSS.
 * It also measures node index lookups, dense against sorted, which is
 * what QVG_DENSE_FACTOR was chosen by.  Sources are skewed (a few persons
 * know many), destinations uniform, no self loops. */
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "graph/graph_int.h"
#include "quiver/quiver.h"

extern char **environ;

#define EDGES_PER_PERSON 24
#define BATCH 65536

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
  uint64_t x = rng_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng_state = x;
  return x * 0x2545F4914F6CDD1Dull;
}

typedef struct gen {
  bool edges;
  int64_t persons, total, done;
  qv_schema schema;
} gen;

static void add_int_field(qv_schema *s, const char *name) {
  qv_field f = {(char *)name, qv_datatype_simple(QV_TYPE_INT64), false};
  if (qv_schema_add(s, &f, NULL) != QV_OK) abort();
}

static qv_status gen_next(qv_batch_reader *self, qv_batch **out, qv_error *err) {
  gen *g = self->private_data;
  *out = NULL;
  if (g->done == g->total) return QV_OK;
  int64_t n = g->total - g->done < BATCH ? g->total - g->done : BATCH;
  int nc = g->schema.n_fields;
  qv_array *cols[3] = {NULL, NULL, NULL};
  qv_bytes *vals[3];
  for (int c = 0; c < nc; c++) vals[c] = qv_bytes_alloc_uninit(n * 8);
  for (int64_t i = 0; i < n; i++) {
    int64_t *v0 = (int64_t *)qv_bytes_mutable(vals[0]), *v1 = (int64_t *)qv_bytes_mutable(vals[1]);
    if (!g->edges) {
      v0[i] = g->done + i;
      v1[i] = 18 + (int64_t)(rnd() % 63);
    } else {
      /* skewed source: the square of a uniform number favours low ids */
      double u = (double)(rnd() >> 11) / 9007199254740992.0;
      int64_t s = (int64_t)(u * u * (double)g->persons), d = (int64_t)(rnd() % (uint64_t)g->persons);
      if (d == s) d = (d + 1) % g->persons;
      v0[i] = s;
      v1[i] = d;
      ((int64_t *)qv_bytes_mutable(vals[2]))[i] = 2000 + (int64_t)(rnd() % 25);
    }
  }
  for (int c = 0; c < nc; c++) {
    qv_datatype t = qv_datatype_simple(QV_TYPE_INT64);
    QV_RETURN_NOT_OK(qv_array_from_buffers(&t, n, NULL, vals[c], NULL, &cols[c], err));
  }
  g->done += n;
  return qv_batch_make(&g->schema, cols, n, out, err); /* takes the columns */
}

static const qv_schema *gen_schema(qv_batch_reader *self) { return &((gen *)self->private_data)->schema; }

static void write_dataset(const char *path, bool edges, int64_t persons) {
  gen g = {edges, persons, edges ? persons * EDGES_PER_PERSON : persons, 0, QV_SCHEMA_INIT};
  if (edges) {
    add_int_field(&g.schema, "src");
    add_int_field(&g.schema, "dst");
    add_int_field(&g.schema, "since");
  } else {
    add_int_field(&g.schema, "id");
    add_int_field(&g.schema, "age");
  }
  qv_batch_reader r = {gen_next, gen_schema, NULL, &g};
  qv_error err;
  if (qv_dataset_write(path, &r, NULL, NULL, &err) != QV_OK) {
    fprintf(stderr, "bench: %s\n", err.message);
    exit(1);
  }
  qv_schema_reset(&g.schema);
}

/* The build, in this process (run by the parent as a child process). */
static int build(const char *dir) {
  char persons[1024], knows[1024], graph[1024];
  snprintf(persons, sizeof persons, "%s/persons", dir);
  snprintf(knows, sizeof knows, "%s/knows", dir);
  snprintf(graph, sizeof graph, "%s/graph", dir);
  qv_graph_decl d = QV_GRAPH_DECL_INIT;
  qv_error err;
  qv_graph_options o = QV_GRAPH_OPTIONS_INIT;
  o.overwrite = true;
  if (qv_graph_decl_add_node(&d, "Person", persons, "id", &err) != QV_OK ||
      qv_graph_decl_add_rel(&d, "KNOWS", knows, "src", "dst", "Person", "Person", &err) != QV_OK) {
    fprintf(stderr, "bench: %s\n", err.message);
    return 1;
  }
  double t0 = qv_now_seconds();
  if (qv_graph_create(graph, &d, &o, &err) != QV_OK) {
    fprintf(stderr, "bench: %s\n", err.message);
    return 1;
  }
  double total = qv_now_seconds() - t0;
  qv_graph_decl_reset(&d);
  int64_t rss = qv_peak_rss_bytes();
  /* the in-memory parts alone, on the same data: reading and mapping the
   * endpoint columns, then the two counting sorts */
  qv_dataset *pds, *kds;
  if (qv_dataset_open(persons, 0, &pds, &err) != QV_OK || qv_dataset_open(knows, 0, &kds, &err) != QV_OK) return 1;
  int64_t *ids;
  uint8_t *del;
  int64_t rows;
  qvg_node_index ix;
  double t1 = qv_now_seconds();
  if (qvg_read_ids(pds, persons, "id", "id", &ids, &del, &rows, &err) != QV_OK ||
      qvg_node_index_build(ids, del, rows, &ix, &err) != QV_OK)
    return 1;
  double t_index = qv_now_seconds() - t1;
  qvg_rel_build b;
  memset(&b, 0, sizeof b);
  b.src_ix = b.dst_ix = &ix;
  qvg_csr fwd, rev;
  if (qvg_csr_build(kds, knows, "src", "dst", &b, &fwd, &rev, &err) != QV_OK) return 1;
  printf("graph: %lld persons, %lld KNOWS edges, %d threads\n", (long long)ix.n_nodes, (long long)b.n_edges,
         qv_threads());
  printf("qv_graph_create: %.3f s end to end = %.2f M edges/s (peak RSS %.1f MiB)\n", total,
         (double)b.n_edges / total / 1e6, (double)rss / 1048576.0);
  printf(
      "  parts, measured again in memory: node index %.3f s, read + map endpoints %.3f s, two counting sorts "
      "%.3f s (%.1f M edges/s)\n",
      t_index, b.seconds_read, b.seconds_sort, (double)b.n_edges / b.seconds_sort / 1e6);
  qvg_csr_reset(&fwd);
  qvg_csr_reset(&rev);
  qvg_node_index_reset(&ix);
  qv_free(ids);
  qv_free(del);
  qv_dataset_close(pds);
  qv_dataset_close(kds);
  return 0;
}

/* Lookups per second of a dense and a sorted index of n ids. */
static void lookups(int64_t n) {
  int64_t *ids = qv_malloc((size_t)n * 8), *probe = qv_malloc(1000000 * 8);
  if (!ids || !probe) return;
  for (int form = 0; form < 2; form++) {
    int64_t step = form == 0 ? 1 : 4; /* span n (dense) or 4n (sorted) */
    for (int64_t i = 0; i < n; i++) ids[i] = i * step;
    qvg_node_index ix;
    qv_error err;
    if (qvg_node_index_build(ids, NULL, n, &ix, &err) != QV_OK) return;
    for (int k = 0; k < 1000000; k++) probe[k] = (int64_t)(rnd() % (uint64_t)n) * step;
    double t = qv_now_seconds();
    int64_t sum = 0;
    for (int r = 0; r < 10; r++)
      for (int k = 0; k < 1000000; k++) sum += qvg_node_index_find(&ix, probe[k]);
    t = qv_now_seconds() - t;
    int64_t bytes = ix.dense ? 4 * (ix.max_id - ix.min_id + 1) : 12 * ix.n_nodes;
    printf("node index, %s: %.1f ns per random lookup, %lld bytes for %lld ids (checksum %lld)\n",
           ix.dense ? "dense " : "sorted", t / 1e7 * 1e9, (long long)bytes, (long long)n, (long long)(sum % 1000));
    qvg_node_index_reset(&ix);
  }
  qv_free(ids);
  qv_free(probe);
}

int main(int argc, char **argv) {
  static const struct option longopts[] = {{"persons", required_argument, NULL, 'p'},
                                           {"dir", required_argument, NULL, 'd'},
                                           {"threads", required_argument, NULL, 't'},
                                           {"build-only", required_argument, NULL, 'b'},
                                           {NULL, 0, NULL, 0}};
  int64_t persons = 100000;
  const char *dir = NULL;
  int ch;
  while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    switch (ch) {
      case 'p': persons = atoll(optarg); break;
      case 'd': dir = optarg; break;
      case 't': qv_set_threads(atoi(optarg)); break;
      case 'b': return build(optarg);
      default: fprintf(stderr, "usage: %s [--persons N] [--dir DIR] [--threads T]\n", argv[0]); return 2;
    }
  }
  if (persons < 2) persons = 2;
  char tmp[512];
  bool scratch = !dir;
  if (scratch) {
    const char *t = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/quiver-graph-bench-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmp)) return 1;
    dir = tmp;
  }
  char path[1024];
  double t0 = qv_now_seconds();
  snprintf(path, sizeof path, "%s/persons", dir);
  write_dataset(path, false, persons);
  snprintf(path, sizeof path, "%s/knows", dir);
  write_dataset(path, true, persons);
  printf("generated %lld persons and %lld edges in %s (%.1f s)\n", (long long)persons,
         (long long)persons * EDGES_PER_PERSON, dir, qv_now_seconds() - t0);
  fflush(stdout);
  char threads[16];
  snprintf(threads, sizeof threads, "%d", qv_threads());
  char *child[] = {argv[0], "--threads", threads, "--build-only", (char *)dir, NULL};
  pid_t pid;
  int rc = 1, status;
  if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, child, environ) == 0 && waitpid(pid, &status, 0) == pid)
    rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  lookups(persons);
  if (scratch) {
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "bench: could not remove %s\n", dir);
  }
  return rc;
}
