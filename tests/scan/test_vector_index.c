/* The vector indices (src/index/ivf.c) through the scanner: recall@10 of
 * IVF_FLAT and IVF_PQ against flat search on a seeded Gaussian mixture (a
 * loose floor; bench/vector measures), IVF_FLAT probing every partition is
 * exact, an appended fragment is searched flat until optimize covers it
 * with the same model, a prefilter keeps the answer inside the rows it
 * admits (a very selective one goes flat by the cost rule), and damaged
 * files -- every chunk of one, and a cut -- never change an answer: the
 * fragment is searched flat, verify names the file, rebuild repairs it.
 * (The process keeps verified chunks, chunk_cache.c: the damage tests
 * clear it so that each search reads the damaged bytes.) */
#include <fcntl.h>
#include <unistd.h>

#include "index/index_int.h"
#include "index/index_test_util.h"
#include "quiver/scan.h"

enum { ROWS = 24000, DIM = 32, NQ = 40, K = 10 };

static char *g_path;
static float g_q[NQ][DIM];
static float g_centre[16][DIM];
static uint64_t g_rng = 11;

static double gauss(void) {
  double u = ((double)(rng_next(&g_rng) >> 11) + 0.5) / 9007199254740992.0;
  double v = ((double)(rng_next(&g_rng) >> 11) + 0.5) / 9007199254740992.0;
  return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* rows vectors around the 16 centres (shifted by `shift`), ids from first. */
static void write_mixture(const char *path, int64_t first, int64_t rows, float shift, qv_write_mode mode) {
  qv_schema s = {0};
  add_col(&s, "id", "int64");
  add_col(&s, "bucket", "int64");
  add_col(&s, "vec", "fixed_size_list<float32, 32>");
  qv_builder b[3];
  for (int i = 0; i < 3; i++) assert_int_equal(qv_builder_init(&b[i], &s.fields[i].type, NULL), QV_OK);
  for (int64_t r = 0; r < rows; r++) {
    qv_builder_append_int(&b[0], first + r);
    qv_builder_append_int(&b[1], (first + r) % 1000);
    int c = (int)(rng_next(&g_rng) % 16);
    for (int j = 0; j < DIM; j++) qv_builder_append_double(&b[2].children[0], g_centre[c][j] + shift + gauss());
    qv_builder_append_valid(&b[2]);
  }
  qv_array *cols[3];
  for (int i = 0; i < 3; i++) assert_int_equal(qv_builder_finish(&b[i], &cols[i], NULL), QV_OK);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&s, cols, rows, &batch, NULL), QV_OK);
  qv_batch_reader *rd;
  assert_int_equal(qv_batch_reader_from_batches(&s, &batch, 1, &rd, NULL), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  wo.max_rows_per_file = 12000; /* two fragments */
  wo.mode = mode;
  qv_error err;
  if (qv_dataset_write(path, rd, &wo, NULL, &err) != QV_OK) fail_msg("write: %s", err.message);
  qv_batch_reader_destroy(rd);
  qv_batch_release(batch);
  qv_schema_reset(&s);
}

static void create(const char *path, qv_index_type t, int32_t parts, int32_t subs) {
  qv_index_options o = QV_INDEX_OPTIONS_INIT;
  o.num_partitions = parts;
  o.num_sub_vectors = subs;
  o.max_iterations = 10;
  qv_error err;
  if (qv_index_create(path, "vec", t, &o, NULL, &err) != QV_OK) fail_msg("create: %s", err.message);
}

static int setup(void **state) {
  (void)state;
  for (int c = 0; c < 16; c++)
    for (int j = 0; j < DIM; j++) g_centre[c][j] = (float)(3 * gauss());
  for (int q = 0; q < NQ; q++) {
    int c = (int)(rng_next(&g_rng) % 16);
    for (int j = 0; j < DIM; j++) g_q[q][j] = g_centre[c][j] + (float)gauss();
  }
  g_path = make_dir();
  write_mixture(g_path, 0, ROWS, 0, QV_WRITE_CREATE);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  drop_dir(g_path);
  return 0;
}

typedef struct hits {
  int64_t id[NQ * K];
  int64_t n[NQ];
  char *explain;
} hits;

static qv_status search(const char *path, bool use_index, int32_t nprobes, const char *filter, int32_t nq, hits *h,
                        qv_error *err) {
  qv_scan_nearest nn = QV_SCAN_NEAREST_INIT;
  nn.column = "vec";
  nn.q = &g_q[0][0];
  nn.dim = DIM;
  nn.n_queries = nq;
  nn.k = K;
  nn.use_index = use_index;
  nn.nprobes = nprobes;
  nn.refine_factor = 10;
  static const char *const cols[] = {"id"};
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  o.columns = cols;
  o.n_columns = 1;
  o.filter = filter;
  o.nearest = &nn;
  qv_scanner *sc;
  QV_RETURN_NOT_OK(qv_scanner_open(path, &o, &sc, err));
  memset(h, 0, sizeof *h);
  for (int64_t i = 0; i < NQ * K; i++) h->id[i] = -1;
  qv_status st;
  for (;;) {
    qv_batch *b;
    if ((st = qv_scanner_next(sc, &b, err)) != QV_OK || !b) break;
    const int64_t *id = qv_array_values(b->columns[0]);
    const int32_t *qq = nq > 1 ? qv_array_values(b->columns[2]) : NULL;
    for (int64_t i = 0; i < b->num_rows; i++) {
      int32_t q = qq ? qq[i] : 0;
      h->id[q * K + h->n[q]++] = id[i];
    }
    qv_batch_release(b);
  }
  h->explain = qv_scanner_explain(sc, true);
  qv_scanner_destroy(sc);
  return st;
}

static double recall(const hits *got, const hits *truth, int32_t nq) {
  int64_t hit = 0, total = 0;
  for (int q = 0; q < nq; q++)
    for (int i = 0; i < truth->n[q]; i++) {
      total++;
      for (int j = 0; j < got->n[q]; j++)
        if (got->id[q * K + j] == truth->id[q * K + i]) {
          hit++;
          break;
        }
    }
  return total ? (double)hit / (double)total : 1;
}

static void must(qv_status st, const qv_error *err) {
  if (st != QV_OK) fail_msg("%s", err->message);
}

static void test_recall(void **state) {
  (void)state;
  hits truth, got;
  qv_error err;
  must(search(g_path, false, 0, NULL, NQ, &truth, &err), &err);
  qv_free(truth.explain);
  char *path = make_dir();
  char cmd[512];
  snprintf(cmd, sizeof cmd, "cp -r %s/. %s", g_path, path);
  assert_int_equal(system(cmd), 0);
  create(path, QV_INDEX_IVF_FLAT, 48, 0);
  must(search(path, true, 8, NULL, NQ, &got, &err), &err);
  double r_flat = recall(&got, &truth, NQ);
  assert_non_null(strstr(got.explain, "search: index vec_idx (ivf_flat, 48 partitions), nprobes 8"));
  qv_free(got.explain);
  print_message("# ivf_flat recall@10 at nprobes 8 of 48: %.4f\n", r_flat);
  assert_true(r_flat >= 0.9);
  /* every partition probed: exact */
  must(search(path, true, 48, NULL, NQ, &got, &err), &err);
  assert_true(recall(&got, &truth, NQ) == 1.0);
  qv_free(got.explain);
  int64_t v;
  must(qv_index_drop(path, "vec_idx", &v, &err), &err);
  create(path, QV_INDEX_IVF_PQ, 48, 8);
  must(search(path, true, 8, NULL, NQ, &got, &err), &err);
  double r_pq = recall(&got, &truth, NQ);
  assert_non_null(strstr(got.explain, "ivf_pq, 48 partitions, 8 sub-vectors"));
  qv_free(got.explain);
  print_message("# ivf_pq recall@10 at nprobes 8 of 48, refine 10: %.4f\n", r_pq);
  assert_true(r_pq >= 0.85);
  drop_dir(path);
}

static bool all_in_bucket_range(const hits *h, int32_t nq, int64_t lo, int64_t hi) {
  for (int q = 0; q < nq; q++)
    for (int i = 0; i < h->n[q]; i++)
      if (h->id[q * K + i] % 1000 < lo || h->id[q * K + i] % 1000 >= hi) return false;
  return true;
}

static void test_prefilter_with_index(void **state) {
  (void)state;
  char *path = make_dir();
  char cmd[512];
  snprintf(cmd, sizeof cmd, "cp -r %s/. %s", g_path, path);
  assert_int_equal(system(cmd), 0);
  create(path, QV_INDEX_IVF_FLAT, 48, 0);
  hits truth, got;
  qv_error err;
  must(search(path, false, 0, "bucket < 100", NQ, &truth, &err), &err);
  qv_free(truth.explain);
  must(search(path, true, 8, "bucket < 100", NQ, &got, &err), &err);
  assert_true(all_in_bucket_range(&got, NQ, 0, 100));
  assert_true(recall(&got, &truth, NQ) >= 0.85);
  qv_free(got.explain);
  /* 0.1%: flat over the 24 admitted rows by the cost rule, so exact */
  must(search(path, false, 0, "bucket = 7", NQ, &truth, &err), &err);
  qv_free(truth.explain);
  must(search(path, true, 8, "bucket = 7", NQ, &got, &err), &err);
  assert_true(all_in_bucket_range(&got, NQ, 7, 8));
  assert_true(recall(&got, &truth, NQ) == 1.0);
  assert_non_null(strstr(got.explain, "fragments: 0 by index, 2 flat (2 by the cost rule)"));
  assert_non_null(strstr(got.explain, "prefilter rows: 24"));
  qv_free(got.explain);
  drop_dir(path);
}

static void test_append_then_optimize(void **state) {
  (void)state;
  char *path = make_dir();
  char cmd[512];
  snprintf(cmd, sizeof cmd, "cp -r %s/. %s", g_path, path);
  assert_int_equal(system(cmd), 0);
  create(path, QV_INDEX_IVF_FLAT, 48, 0);
  /* far from everything: only the appended rows can be nearest */
  write_mixture(path, ROWS, 500, 40.0f, QV_WRITE_APPEND);
  for (int j = 0; j < DIM; j++) g_q[NQ - 1][j] += 40.0f;
  hits h;
  qv_error err;
  must(search(path, true, 4, NULL, NQ, &h, &err), &err);
  assert_non_null(strstr(h.explain, "2 of 3 fragments covered, the others flat"));
  for (int i = 0; i < K; i++) assert_true(h.id[(NQ - 1) * K + i] >= ROWS);
  qv_free(h.explain);
  int64_t v = 0;
  must(qv_index_optimize(path, NULL, &v, &err), &err);
  assert_true(v > 0);
  hits h2;
  must(search(path, true, 4, NULL, NQ, &h2, &err), &err);
  assert_non_null(strstr(h2.explain, "3 of 3 fragments covered"));
  for (int i = 0; i < K; i++) assert_true(h2.id[(NQ - 1) * K + i] >= ROWS);
  qv_free(h2.explain);
  for (int j = 0; j < DIM; j++) g_q[NQ - 1][j] -= 40.0f;
  drop_dir(path);
}

/* The file of the fragment-0 index file of the dataset's one index. */
static char *index_file(const char *path) {
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 0, &ds, NULL), QV_OK);
  qv_index_entry e;
  qv_dataset_index(ds, 0, &e);
  char *p = malloc(1024);
  snprintf(p, 1024, "%s/%s", path, e.files[0].path);
  qv_dataset_close(ds);
  return p;
}

static void test_corruption(void **state) {
  (void)state;
  hits truth;
  qv_error err;
  must(search(g_path, false, 0, NULL, 8, &truth, &err), &err);
  qv_free(truth.explain);
  static const qv_index_type kinds[] = {QV_INDEX_IVF_FLAT, QV_INDEX_IVF_PQ};
  for (int ki = 0; ki < 2; ki++) {
    char *path = make_dir();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp -r %s/. %s", g_path, path);
    assert_int_equal(system(cmd), 0);
    create(path, kinds[ki], 16, 8);
    char *file = index_file(path);
    int fd = open(file, O_RDWR);
    assert_true(fd >= 0);
    off_t size = lseek(fd, 0, SEEK_END);
    /* a byte in every 97th position: chunks (centroids, codebooks,
     * partitions), footer and trailer alike */
    for (off_t at = 8; at < size; at += size / 7 + 1) {
      uint8_t b;
      assert_int_equal(pread(fd, &b, 1, at), 1);
      uint8_t x = b ^ 0x5A;
      assert_int_equal(pwrite(fd, &x, 1, at), 1);
      hits got;
      qvi_cache_clear(); /* chunks read before the damage would hide it */
      /* exact probing: all partitions, so that the fallback is comparable */
      must(search(path, true, 16, NULL, 8, &got, &err), &err);
      if (kinds[ki] == QV_INDEX_IVF_FLAT || strstr(got.explain, "1 by index, 1 flat"))
        if (recall(&got, &truth, 8) < (kinds[ki] == QV_INDEX_IVF_FLAT ? 1.0 : 0.85))
          fail_msg("%s: a damaged byte at %lld changed the answer", qv_index_type_name(kinds[ki]), (long long)at);
      qv_free(got.explain);
      assert_int_equal(pwrite(fd, &b, 1, at), 1);
    }
    /* damaged for good: verify names it, rebuild repairs it */
    uint8_t junk[16] = {0};
    assert_int_equal(pwrite(fd, junk, sizeof junk, size / 2), (ssize_t)sizeof junk);
    close(fd);
    qv_dataset *ds;
    must(qv_dataset_open(path, 0, &ds, &err), &err);
    qv_index *ix;
    must(qv_index_open(ds, 0, &ix, &err), &err);
    int32_t bad = -1;
    must(qv_index_verify(ix, &bad, &err), &err);
    assert_int_equal(bad, 1);
    const char *first;
    qv_index_damaged(ix, &first);
    assert_non_null(strstr(first, "checksum mismatch"));
    qv_index_close(ix);
    qv_dataset_close(ds);
    int32_t rebuilt = 0;
    must(qv_index_rebuild(path, NULL, &rebuilt, NULL, &err), &err);
    assert_int_equal(rebuilt, 1);
    hits got;
    must(search(path, true, 16, NULL, 8, &got, &err), &err);
    assert_non_null(strstr(got.explain, "fragments: 2 by index, 0 flat"));
    qv_free(got.explain);
    /* cut short: the fragment is searched flat, the answer stands */
    free(file);
    file = index_file(path);
    assert_int_equal(truncate(file, 100), 0);
    must(search(path, true, 16, NULL, 8, &got, &err), &err);
    assert_true(recall(&got, &truth, 8) >= (kinds[ki] == QV_INDEX_IVF_FLAT ? 1.0 : 0.85));
    qv_free(got.explain);
    free(file);
    drop_dir(path);
  }
}

static void test_bad_input(void **state) {
  (void)state;
  qv_index_options o = QV_INDEX_OPTIONS_INIT;
  qv_error err;
  assert_int_equal(qv_index_create(g_path, "id", QV_INDEX_IVF_FLAT, &o, NULL, &err), QV_ERR_TYPE);
  assert_non_null(strstr(err.message, "cannot have an index of type ivf_flat"));
  o.num_partitions = ROWS + 1;
  assert_int_equal(qv_index_create(g_path, "vec", QV_INDEX_IVF_FLAT, &o, NULL, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "cannot train 24001 partitions"));
  o.num_partitions = 8;
  o.num_sub_vectors = 5;
  assert_int_equal(qv_index_create(g_path, "vec", QV_INDEX_IVF_PQ, &o, NULL, &err), QV_ERR_INVALID);
  assert_non_null(strstr(err.message, "num_sub_vectors 5 does not divide dimension 32"));
  /* nothing was committed */
  qv_dataset *ds;
  must(qv_dataset_open(g_path, 0, &ds, &err), &err);
  assert_int_equal(qv_dataset_num_indices(ds), 0);
  qv_dataset_close(ds);
  /* an index of another metric is not used: flat, and explain says why */
  char *path = make_dir();
  char cmd[512];
  snprintf(cmd, sizeof cmd, "cp -r %s/. %s", g_path, path);
  assert_int_equal(system(cmd), 0);
  o = (qv_index_options)QV_INDEX_OPTIONS_INIT;
  o.metric = QV_METRIC_COSINE;
  o.num_partitions = 8;
  must(qv_index_create(path, "vec", QV_INDEX_IVF_FLAT, &o, NULL, &err), &err);
  hits h;
  must(search(path, true, 4, NULL, 1, &h, &err), &err);
  assert_non_null(strstr(h.explain, "flat, exact (index `vec_idx` is for metric cosine, the search's is l2)"));
  qv_free(h.explain);
  drop_dir(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_recall),
      cmocka_unit_test(test_prefilter_with_index),
      cmocka_unit_test(test_append_then_optimize),
      cmocka_unit_test(test_corruption),
      cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
