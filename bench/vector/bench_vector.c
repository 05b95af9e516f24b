/* Vector search benchmark (a program, not a timed test): a seeded Gaussian
 * mixture of --n vectors of dimension --dim, --queries queries drawn near
 * the mixture, searched flat and through IVF_FLAT and IVF_PQ with no
 * prefilter and with prefilters admitting 10% and 0.1% of the rows.
 * Prints index build time, queries per second (each query its own scan,
 * as a user's call would be; and a whole batch in one scan), recall@k
 * against flat search, peak RSS, and the GB/s flat search scans.  Writes
 * the vectors and queries as .npy next to the dataset so that
 * bench/vector/peers.py runs pylance and faiss on the very same data.
 *
 *   bench_vector [--n 1000000] [--dim 128] [--queries 1000] [--k 10]
 *                [--flat-queries 50] [--dir /tmp/qv-bench-vector] [--seed 1]
 *                [--nprobes 20] [--refine 10] [--partitions 0] [--page-rows 256] [--keep] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "quiver/quiver.h"

static uint64_t g_rng;
static double unif(void) {
  g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
  return ((double)(g_rng >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void) { return sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif()); }

static void die(const char *what, const qv_error *e) {
  fprintf(stderr, "bench_vector: %s: %s\n", what, e ? e->message : "");
  exit(1);
}

static void write_npy(const char *path, const float *v, int64_t rows, int32_t dim) {
  FILE *f = fopen(path, "wb");
  if (!f) die(path, NULL);
  char h[128];
  int n =
      snprintf(h, sizeof h, "{'descr': '<f4', 'fortran_order': False, 'shape': (%lld, %d), }", (long long)rows, dim);
  int total = 10 + n + 1, pad = (64 - total % 64) % 64;
  fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  uint16_t hl = (uint16_t)(n + pad + 1);
  fwrite(&hl, 2, 1, f);
  fwrite(h, 1, (size_t)n, f);
  for (int i = 0; i < pad; i++) fputc(' ', f);
  fputc('\n', f);
  fwrite(v, sizeof *v, (size_t)(rows * dim), f);
  fclose(f);
}

typedef struct run {
  double seconds;
  int64_t *ids; /* queries x k */
} run;

/* Searches every query (alone, or all as one batch) and keeps the row ids. */
static run search(const char *path, const float *q, int32_t nq, int32_t dim, int32_t k, bool use_index, int32_t nprobes,
                  int32_t refine, const char *filter, bool batch) {
  run r = {0, calloc((size_t)nq * (size_t)k, sizeof(int64_t))};
  for (int64_t i = 0; i < (int64_t)nq * k; i++) r.ids[i] = -1;
  static const char *const cols[] = {"id"};
  double t0 = qv_now_seconds();
  for (int32_t at = 0; at < nq; at += batch ? nq : 1) {
    qv_scan_nearest nn = QV_SCAN_NEAREST_INIT;
    nn.column = "vec";
    nn.q = q + (size_t)at * dim;
    nn.dim = dim;
    nn.n_queries = batch ? nq : 1;
    nn.k = k;
    nn.use_index = use_index;
    nn.nprobes = nprobes;
    nn.refine_factor = refine;
    qv_scan_options o = QV_SCAN_OPTIONS_INIT;
    o.columns = cols;
    o.n_columns = 1;
    o.filter = filter;
    o.nearest = &nn;
    qv_scanner *sc;
    qv_error err;
    if (qv_scanner_open(path, &o, &sc, &err) != QV_OK) die("open", &err);
    int32_t qi = at;
    int64_t rank = 0;
    for (;;) {
      qv_batch *b;
      if (qv_scanner_next(sc, &b, &err) != QV_OK) die("search", &err);
      if (!b) break;
      const int64_t *id = qv_array_values(b->columns[0]);
      const int32_t *qq = b->schema.n_fields > 2 ? qv_array_values(b->columns[2]) : NULL;
      for (int64_t i = 0; i < b->num_rows; i++) {
        int32_t which = qq ? at + qq[i] : qi;
        if (which != qi) {
          qi = which;
          rank = 0;
        }
        if (rank < k) r.ids[(size_t)which * k + rank++] = id[i];
      }
      qv_batch_release(b);
    }
    qv_scanner_destroy(sc);
  }
  r.seconds = qv_now_seconds() - t0;
  return r;
}

static double recall(const run *got, const run *truth, int32_t nq, int32_t k) {
  int64_t hit = 0, total = 0;
  for (int32_t q = 0; q < nq; q++)
    for (int32_t i = 0; i < k; i++) {
      int64_t t = truth->ids[(size_t)q * k + i];
      if (t < 0) continue;
      total++;
      for (int32_t j = 0; j < k; j++)
        if (got->ids[(size_t)q * k + j] == t) {
          hit++;
          break;
        }
    }
  return total ? (double)hit / (double)total : 1.0;
}

int main(int argc, char **argv) {
  int64_t n = 1000000;
  int32_t dim = 128, nq = 1000, k = 10, flat_q = 50, nprobes = 20, refine = 10, parts = 0, page_rows = 256;
  const char *dir = "/tmp/qv-bench-vector";
  uint64_t seed = 1;
  bool keep = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--keep")) keep = true;
    else if (!v) die("missing value", NULL);
    else if (!strcmp(a, "--n")) n = atoll(v), i++;
    else if (!strcmp(a, "--dim")) dim = atoi(v), i++;
    else if (!strcmp(a, "--queries")) nq = atoi(v), i++;
    else if (!strcmp(a, "--k")) k = atoi(v), i++;
    else if (!strcmp(a, "--flat-queries")) flat_q = atoi(v), i++;
    else if (!strcmp(a, "--dir")) dir = v, i++;
    else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10), i++;
    else if (!strcmp(a, "--nprobes")) nprobes = atoi(v), i++;
    else if (!strcmp(a, "--refine")) refine = atoi(v), i++;
    else if (!strcmp(a, "--partitions")) parts = atoi(v), i++;
    else if (!strcmp(a, "--page-rows")) page_rows = atoi(v), i++;
    else die(a, NULL);
  }
  if (flat_q > nq) flat_q = nq;
  char path[512], cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
  if (system(cmd) != 0) die("mkdir", NULL);
  snprintf(path, sizeof path, "%s/ds", dir);
  printf("machine: %s kernels, %d threads; n %lld, dim %d, %d queries, k %d\n", qv_distance_kernels(), qv_threads(),
         (long long)n, dim, nq, k);

  /* the mixture: 64 centres N(0, 4^2), points around them N(0, 1) */
  g_rng = seed;
  int32_t nc = 64;
  float *centres = malloc((size_t)nc * dim * sizeof(float)), *vec = malloc((size_t)n * dim * sizeof(float));
  float *q = malloc((size_t)nq * dim * sizeof(float));
  for (int64_t i = 0; i < (int64_t)nc * dim; i++) centres[i] = (float)(4 * gauss());
  for (int64_t r = 0; r < n; r++) {
    int32_t c = (int32_t)(unif() * nc);
    for (int32_t j = 0; j < dim; j++) vec[r * dim + j] = centres[c * dim + j] + (float)gauss();
  }
  for (int32_t r = 0; r < nq; r++) {
    int32_t c = (int32_t)(unif() * nc);
    for (int32_t j = 0; j < dim; j++) q[r * dim + j] = centres[c * dim + j] + (float)gauss();
  }
  char npy[600];
  snprintf(npy, sizeof npy, "%s/vectors.npy", dir);
  write_npy(npy, vec, n, dim);
  snprintf(npy, sizeof npy, "%s/queries.npy", dir);
  write_npy(npy, q, nq, dim);

  /* the dataset: id, bucket = id % 1000 (prefilters), vec */
  qv_schema s = {0};
  qv_datatype item = qv_datatype_simple(QV_TYPE_FLOAT32), vt;
  qv_error err;
  if (qv_datatype_fixed_size_list(&item, dim, &vt, &err) != QV_OK) die("type", &err);
  qv_field f0 = {(char *)"id", qv_datatype_simple(QV_TYPE_INT64), false},
           f1 = {(char *)"bucket", qv_datatype_simple(QV_TYPE_INT64), false}, f2 = {(char *)"vec", vt, false};
  qv_schema_add(&s, &f0, NULL);
  qv_schema_add(&s, &f1, NULL);
  qv_schema_add(&s, &f2, NULL);
  int64_t per = 131072, nb = (n + per - 1) / per;
  qv_batch **batches = calloc((size_t)nb, sizeof *batches);
  for (int64_t bi = 0; bi < nb; bi++) {
    int64_t lo = bi * per, rows = n - lo < per ? n - lo : per;
    qv_builder b[3];
    for (int c = 0; c < 3; c++) qv_builder_init(&b[c], &s.fields[c].type, NULL);
    for (int64_t r = lo; r < lo + rows; r++) {
      qv_builder_append_int(&b[0], r);
      qv_builder_append_int(&b[1], r % 1000);
      for (int32_t j = 0; j < dim; j++) qv_builder_append_double(&b[2].children[0], vec[r * dim + j]);
      qv_builder_append_valid(&b[2]);
    }
    qv_array *cols[3];
    for (int c = 0; c < 3; c++) qv_builder_finish(&b[c], &cols[c], NULL);
    if (qv_batch_make(&s, cols, rows, &batches[bi], &err) != QV_OK) die("batch", &err);
  }
  qv_batch_reader *rd;
  qv_batch_reader_from_batches(&s, batches, (int32_t)nb, &rd, NULL);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  /* small pages: a row taken (a prefilter's, a refine's) reads its page whole */
  wo.page_rows = page_rows;
  double t0 = qv_now_seconds();
  if (qv_dataset_write(path, rd, &wo, NULL, &err) != QV_OK) die("write", &err);
  printf("write: %.2f s\n", qv_now_seconds() - t0);
  qv_batch_reader_destroy(rd);
  for (int64_t bi = 0; bi < nb; bi++) qv_batch_release(batches[bi]);
  free(batches);
  free(vec);

  static const char *const filters[] = {NULL, "bucket < 100", "bucket = 7"};
  static const char *const fname[] = {"none", "10%", "0.1%"};
  run truth[3];
  for (int fi = 0; fi < 3; fi++) {
    truth[fi] = search(path, q, nq, dim, k, false, nprobes, refine, filters[fi], true);
    printf("flat batch (ground truth), prefilter %-5s: %d queries in %.2f s (%.1f QPS)\n", fname[fi], nq,
           truth[fi].seconds, nq / truth[fi].seconds);
  }
  double vec_gb = (double)n * dim * 4 / 1e9;
  run flat = search(path, q, flat_q, dim, k, false, nprobes, refine, NULL, false);
  printf("flat, one query per scan: %.1f QPS, %.2f GB/s of vectors scanned, recall %.4f\n", flat_q / flat.seconds,
         vec_gb * flat_q / flat.seconds, recall(&flat, &truth[0], flat_q, k));
  free(flat.ids);
  for (int fi = 1; fi < 3; fi++) {
    run fr = search(path, q, flat_q, dim, k, false, nprobes, refine, filters[fi], false);
    printf("flat, prefilter %-5s, one query per scan: %.1f QPS\n", fname[fi], flat_q / fr.seconds);
    free(fr.ids);
  }
  printf("peak RSS so far: %.0f MiB\n", (double)qv_peak_rss_bytes() / 1048576);

  static const qv_index_type types[] = {QV_INDEX_IVF_FLAT, QV_INDEX_IVF_PQ};
  for (int ti = 0; ti < 2; ti++) {
    qv_index_options io = QV_INDEX_OPTIONS_INIT;
    io.num_partitions = parts;
    io.name = "vec_idx";
    t0 = qv_now_seconds();
    if (qv_index_create(path, "vec", types[ti], &io, NULL, &err) != QV_OK) die("index", &err);
    double build = qv_now_seconds() - t0;
    printf("%s: build %.2f s, peak RSS %.0f MiB\n", qv_index_type_name(types[ti]), build,
           (double)qv_peak_rss_bytes() / 1048576);
    int32_t probes[] = {5, 10, 20, 40};
    for (int pi = 0; pi < 4; pi++)
      for (int fi = 0; fi < 3; fi++) {
        if (fi > 0 && probes[pi] != nprobes) continue;
        run one = search(path, q, nq, dim, k, true, probes[pi], refine, filters[fi], false);
        run all = search(path, q, nq, dim, k, true, probes[pi], refine, filters[fi], true);
        printf("%s nprobes %2d prefilter %-5s: recall@%d %.4f, %.1f QPS one query per scan, %.1f QPS as a batch\n",
               qv_index_type_name(types[ti]), probes[pi], fname[fi], k, recall(&one, &truth[fi], nq, k),
               nq / one.seconds, nq / all.seconds);
        free(one.ids);
        free(all.ids);
      }
    if (qv_index_drop(path, "vec_idx", NULL, &err) != QV_OK) die("drop", &err);
  }
  for (int fi = 0; fi < 3; fi++) free(truth[fi].ids);
  free(q);
  free(centres);
  qv_schema_reset(&s);
  if (!keep) {
    snprintf(cmd, sizeof cmd, "rm -rf '%s/ds'", dir);
    if (system(cmd) != 0) return 1;
  }
  return 0;
}
