/* Vector search through the scanner (src/scan/nearest.c): flat search
 * against a brute force in double precision, for every metric, with and
 * without a prefilter, at 1 and 4 threads (identical answers), with
 * deleted rows and null vectors; the postfilter, limit and a batch of
 * queries; and the errors bad input gets. */
#include <float.h>
#include <math.h>

#include "index/index_test_util.h"
#include "quiver/scan.h"

enum { ROWS = 6000, DIM = 24 };

static char *g_path;
static float g_vec[ROWS][DIM];
static bool g_null[ROWS];

static void write_vectors(const char *path) {
  qv_schema s = {0};
  add_col(&s, "id", "int64");
  add_col(&s, "cat", "int32");
  add_col(&s, "vec", "fixed_size_list<float32, 24>");
  add_col(&s, "x", "float64");
  qv_builder b[4];
  for (int i = 0; i < 4; i++) assert_int_equal(qv_builder_init(&b[i], &s.fields[i].type, NULL), QV_OK);
  uint64_t rng = 5;
  for (int64_t r = 0; r < ROWS; r++) {
    qv_builder_append_int(&b[0], r);
    qv_builder_append_int(&b[1], r % 10);
    g_null[r] = r % 97 == 3;
    /* clustered: 8 centres, noise */
    int c = (int)(rng_next(&rng) % 8);
    for (int j = 0; j < DIM; j++) {
      double noise = (double)(rng_next(&rng) >> 11) / 9007199254740992.0 - 0.5;
      g_vec[r][j] = (float)((c == j % 8 ? 3.0 : 0.0) + noise);
      if (!g_null[r]) qv_builder_append_double(&b[2].children[0], g_vec[r][j]);
    }
    if (g_null[r]) qv_builder_append_null(&b[2]); /* its children too */
    else qv_builder_append_valid(&b[2]);
    qv_builder_append_double(&b[3], (double)r / ROWS);
  }
  qv_array *cols[4];
  for (int i = 0; i < 4; i++) assert_int_equal(qv_builder_finish(&b[i], &cols[i], NULL), QV_OK);
  qv_batch *batch;
  assert_int_equal(qv_batch_make(&s, cols, ROWS, &batch, NULL), QV_OK);
  qv_batch_reader *rd;
  assert_int_equal(qv_batch_reader_from_batches(&s, &batch, 1, &rd, NULL), QV_OK);
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  wo.page_rows = 700;
  wo.max_rows_per_file = 2500; /* three fragments */
  qv_error err;
  if (qv_dataset_write(path, rd, &wo, NULL, &err) != QV_OK) fail_msg("write: %s", err.message);
  qv_batch_reader_destroy(rd);
  qv_batch_release(batch);
  qv_schema_reset(&s);
}

static int setup(void **state) {
  (void)state;
  g_path = make_dir();
  write_vectors(g_path);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  drop_dir(g_path);
  return 0;
}

static double ref_distance(qv_metric m, const float *q, const float *x) {
  double l2 = 0, dot = 0, nq = 0, nx = 0;
  for (int j = 0; j < DIM; j++) {
    l2 += ((double)q[j] - x[j]) * ((double)q[j] - x[j]);
    dot += (double)q[j] * x[j];
    nq += (double)q[j] * q[j];
    nx += (double)x[j] * x[j];
  }
  return m == QV_METRIC_L2 ? l2 : m == QV_METRIC_DOT ? 1 - dot : 1 - dot / (sqrt(nq) * sqrt(nx));
}

typedef struct result {
  int64_t n;
  int64_t id[256];
  float dist[256];
  int32_t query[256];
} result;

static qv_status search(const char *filter, const qv_scan_nearest *nn, int64_t limit, result *out, qv_error *err) {
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  static const char *const cols[] = {"id"};
  o.columns = cols;
  o.n_columns = 1;
  o.filter = filter;
  o.nearest = nn;
  o.limit = limit;
  qv_scanner *sc;
  QV_RETURN_NOT_OK(qv_scanner_open(g_path, &o, &sc, err));
  memset(out, 0, sizeof *out);
  qv_status st;
  for (;;) {
    qv_batch *b;
    if ((st = qv_scanner_next(sc, &b, err)) != QV_OK || !b) break;
    assert_string_equal(b->schema.fields[1].name, "_distance");
    for (int64_t i = 0; i < b->num_rows && out->n < 256; i++, out->n++) {
      out->id[out->n] = ((const int64_t *)qv_array_values(b->columns[0]))[i];
      out->dist[out->n] = ((const float *)qv_array_values(b->columns[1]))[i];
      out->query[out->n] = b->schema.n_fields > 2 ? ((const int32_t *)qv_array_values(b->columns[2]))[i] : 0;
    }
    qv_batch_release(b);
  }
  qv_scanner_destroy(sc);
  return st;
}

/* The brute-force k nearest among rows where keep(r) (and the vector is
 * not null), ties by row. */
static int64_t brute_k(qv_metric m, const float *q, int64_t k, bool (*keep)(int64_t), int64_t *ids, double *d) {
  int64_t n = 0;
  for (int64_t r = 0; r < ROWS; r++) {
    if (g_null[r] || (keep && !keep(r))) continue;
    double v = ref_distance(m, q, g_vec[r]);
    int64_t at = n < k ? n++ : k;
    if (at == k && !(v < d[k - 1])) continue;
    if (at == k) at = k - 1;
    while (at > 0 && v < d[at - 1]) {
      d[at] = d[at - 1];
      ids[at] = ids[at - 1];
      at--;
    }
    d[at] = v;
    ids[at] = r;
  }
  return n;
}

static void expect_brute(const result *got, qv_metric m, const float *q, int64_t k, bool (*keep)(int64_t)) {
  int64_t ids[64];
  double d[64];
  int64_t n = brute_k(m, q, k, keep, ids, d);
  if (got->n != n) fail_msg("%s: %lld rows, brute force %lld", qv_metric_name(m), (long long)got->n, (long long)n);
  for (int64_t i = 0; i < n; i++) {
    if (fabs(got->dist[i] - d[i]) > 1e-4 * (1 + fabs(d[i])))
      fail_msg("%s rank %lld: distance %.7g, brute force %.7g", qv_metric_name(m), (long long)i, got->dist[i], d[i]);
    /* a near tie may swap neighbours; otherwise the rows are the same */
    if (got->id[i] != ids[i] && fabs(d[i] - ref_distance(m, q, g_vec[got->id[i]])) > 1e-5)
      fail_msg("%s rank %lld: row %lld, brute force %lld", qv_metric_name(m), (long long)i, (long long)got->id[i],
               (long long)ids[i]);
  }
}

static void test_flat_matches_brute_force(void **state) {
  (void)state;
  const qv_metric metrics[] = {QV_METRIC_L2, QV_METRIC_COSINE, QV_METRIC_DOT};
  for (int mi = 0; mi < 3; mi++)
    for (int qi = 0; qi < 3; qi++) {
      float q[DIM];
      for (int j = 0; j < DIM; j++) q[j] = g_vec[qi * 1000 + 7][j] + 0.05f * (float)(j % 3);
      qv_scan_nearest nn = QV_SCAN_NEAREST_INIT;
      nn.column = "vec";
      nn.q = q;
      nn.dim = DIM;
      nn.k = 20;
      nn.metric = metrics[mi];
      result r;
      qv_error err;
      if (search(NULL, &nn, -1, &r, &err) != QV_OK) fail_msg("%s", err.message);
      expect_brute(&r, metrics[mi], q, 20, NULL);
    }
}

static bool cat3(int64_t r) { return r % 10 == 3; }
static bool rare(int64_t r) { return r % 10 == 3 && r < 60; }

static void test_prefilter(void **state) {
  (void)state;
  float q[DIM];
  for (int j = 0; j < DIM; j++) q[j] = g_vec[11][j];
  qv_scan_nearest nn = QV_SCAN_NEAREST_INIT;
  nn.column = "vec";
  nn.q = q;
  nn.dim = DIM;
  nn.k = 10;
  result r;
  qv_error err;
  if (search("cat = 3", &nn, -1, &r, &err) != QV_OK) fail_msg("%s", err.message);
  expect_brute(&r, QV_METRIC_L2, q, 10, cat3);
  /* fewer admitted rows than k: all of them, ranked */
  if (search("cat = 3 AND id < 60", &nn, -1, &r, &err) != QV_OK) fail_msg("%s", err.message);
  assert_int_equal(r.n, 5); /* rows 3, 13, ..., 53 less row 3, whose vector is null */
  expect_brute(&r, QV_METRIC_L2, q, 10, rare);
  /* nothing admitted: nothing returned, no error */
  if (search("id < 0", &nn, -1, &r, &err) != QV_OK) fail_msg("%s", err.message);
  assert_int_equal(r.n, 0);
}

static void test_threads_identical(void **state) {
  (void)state;
  float q[2 * DIM];
  for (int j = 0; j < DIM; j++) q[j] = g_vec[100][j] * 0.5f, q[DIM + j] = g_vec[4000][j];
  qv_scan_nearest nn = QV_SCAN_NEAREST_INIT;
  nn.column = "vec";
  nn.q = q;
  nn.dim = DIM;
  nn.n_queries = 2;
  nn.k = 50;
  result a, b;
  qv_error err;
  int before = qv_threads();
  qv_set_threads(1);
  assert_int_equal(search(NULL, &nn, -1, &a, &err), QV_OK);
  qv_set_threads(4);
  assert_int_equal(search(NULL, &nn, -1, &b, &err), QV_OK);
  qv_set_threads(before);
  assert_int_equal(a.n, 100);
  assert_int_equal(b.n, 100);
  assert_memory_equal(a.id, b.id, sizeof a.id);
  assert_memory_equal(a.dist, b.dist, sizeof a.dist);
  /* a batch: query 0's rows then query 1's, each ranked */
  for (int64_t i = 0; i < 100; i++) assert_int_equal(a.query[i], i < 50 ? 0 : 1);
  for (int64_t i = 1; i < 100; i++)
    if (i != 50) assert_true(a.dist[i - 1] <= a.dist[i]);
}

static void test_postfilter_and_limit(void **state) {
  (void)state;
  float q[DIM];
  for (int j = 0; j < DIM; j++) q[j] = g_vec[5][j];
  qv_scan_nearest nn = QV_SCAN_NEAREST_INIT;
  nn.column = "vec";
  nn.q = q;
  nn.dim = DIM;
  nn.k = 10;
  result all, post, lim;
  qv_error err;
  assert_int_equal(search(NULL, &nn, -1, &all, &err), QV_OK);
  nn.postfilter = "id % 2 = 0";
  assert_int_equal(search(NULL, &nn, -1, &post, &err), QV_OK);
  /* the ranked rows with an even id, in order: never refilled to k */
  int64_t k = 0;
  for (int64_t i = 0; i < all.n; i++)
    if (all.id[i] % 2 == 0) assert_int_equal(post.id[k++], all.id[i]);
  assert_int_equal(post.n, k);
  assert_true(k < 10);
  nn.postfilter = NULL;
  assert_int_equal(search(NULL, &nn, 3, &lim, &err), QV_OK);
  assert_int_equal(lim.n, 3);
  assert_memory_equal(lim.id, all.id, 3 * sizeof *lim.id);
}

static void test_deleted_rows(void **state) {
  (void)state;
  char *path = make_dir();
  char *save = g_path;
  g_path = path;
  write_vectors(path);
  int64_t deleted = 0;
  qv_error err;
  if (qv_dataset_delete_where(path, "cat = 3", &deleted, NULL, &err) != QV_OK) fail_msg("%s", err.message);
  assert_int_equal(deleted, ROWS / 10);
  float q[DIM];
  for (int j = 0; j < DIM; j++) q[j] = g_vec[13][j]; /* a deleted row's own vector */
  qv_scan_nearest nn = QV_SCAN_NEAREST_INIT;
  nn.column = "vec";
  nn.q = q;
  nn.dim = DIM;
  nn.k = 30;
  result r;
  assert_int_equal(search(NULL, &nn, -1, &r, &err), QV_OK);
  assert_int_equal(r.n, 30);
  for (int64_t i = 0; i < r.n; i++) assert_true(r.id[i] % 10 != 3);
  g_path = save;
  drop_dir(path);
}

static void expect_error(const char *filter, const qv_scan_nearest *nn, qv_status want, const char *needle) {
  result r;
  qv_error err;
  qv_status st = search(filter, nn, -1, &r, &err);
  if (st != want) fail_msg("status %d, expected %d (%s)", st, want, st ? err.message : "ok");
  if (!strstr(err.message, needle)) fail_msg("message \"%s\" lacks \"%s\"", err.message, needle);
}

static void test_bad_input(void **state) {
  (void)state;
  float q[DIM + 1];
  for (int j = 0; j <= DIM; j++) q[j] = 0.5f;
  qv_scan_nearest nn = QV_SCAN_NEAREST_INIT;
  nn.column = "vec";
  nn.q = q;
  nn.dim = DIM - 1;
  expect_error(NULL, &nn, QV_ERR_INVALID, "the query has dimension 23, column `vec` has 24");
  nn.dim = DIM;
  q[4] = NAN;
  expect_error(NULL, &nn, QV_ERR_INVALID, "query 0 holds NaN at position 4");
  q[4] = 0.5f;
  nn.k = 0;
  expect_error(NULL, &nn, QV_ERR_INVALID, "k = 0 is not within 1..6000");
  nn.k = ROWS + 1;
  expect_error(NULL, &nn, QV_ERR_INVALID, "k = 6001 is not within 1..6000");
  nn.k = 10;
  nn.column = "x";
  expect_error(NULL, &nn, QV_ERR_TYPE, "column `x` (float64) is not a vector column");
  nn.column = "nope";
  expect_error(NULL, &nn, QV_ERR_NOT_FOUND, "no column `nope`");
  nn.column = "vec";
  nn.postfilter = "cat = 1";
  expect_error(NULL, &nn, QV_ERR_NOT_FOUND, "postfilter");
  nn.postfilter = NULL;
  expect_error("cat = ", &nn, QV_ERR_PARSE, "prefilter");
  for (int j = 0; j < DIM; j++) q[j] = 0;
  nn.metric = QV_METRIC_COSINE;
  expect_error(NULL, &nn, QV_ERR_INVALID, "zero vector");
  nn.q = NULL;
  expect_error(NULL, &nn, QV_ERR_INVALID, "no query vector");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_flat_matches_brute_force),
      cmocka_unit_test(test_prefilter),
      cmocka_unit_test(test_threads_identical),
      cmocka_unit_test(test_postfilter_and_limit),
      cmocka_unit_test(test_deleted_rows),
      cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
