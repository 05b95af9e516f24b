/* The distance kernels: every instruction set this machine runs (AVX-512,
 * AVX2 with FMA) against the portable loop, on dimensions around the
 * register widths (tails of every length), and the portable loop against a
 * double-precision reference.  Which sets ran is printed: on a machine
 * without AVX-512 that set is skipped, not passed silently. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "compute/distance.h"
#include "quiver/compute.h"

static float frand(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static void reference(const float *q, const float *x, int64_t n, int32_t dim, double *l2, double *dot) {
  for (int64_t i = 0; i < n; i++) {
    double a = 0, b = 0;
    for (int32_t j = 0; j < dim; j++) {
      double d = (double)q[j] - x[i * dim + j];
      a += d * d;
      b += (double)q[j] * x[i * dim + j];
    }
    l2[i] = a;
    dot[i] = b;
  }
}

static void check_set(const qvk_dist_kernels *k) {
  uint64_t s = 7;
  enum { N = 37 };
  for (int32_t dim = 1; dim <= 131; dim += (dim < 40 ? 1 : 13)) {
    float *q = malloc((size_t)dim * sizeof *q), *x = malloc((size_t)(N * dim) * sizeof *x);
    float l2[N], dot[N];
    double rl2[N], rdot[N];
    for (int32_t j = 0; j < dim; j++) q[j] = frand(&s);
    for (int32_t j = 0; j < N * dim; j++) x[j] = frand(&s) * 3.0f;
    reference(q, x, N, dim, rl2, rdot);
    k->l2(q, x, N, dim, l2);
    k->dot(q, x, N, dim, dot);
    for (int i = 0; i < N; i++) {
      /* float sums of dim terms: relative error ~ dim * 2^-24 of the magnitudes */
      double tol = 1e-6 * dim * (1 + fabs(rl2[i]));
      if (fabs(l2[i] - rl2[i]) > tol) fail_msg("%s l2 dim %d row %d: %.9g vs %.9g", k->name, dim, i, l2[i], rl2[i]);
      double mag = 0;
      for (int32_t j = 0; j < dim; j++) mag += fabs((double)q[j] * x[i * dim + j]);
      if (fabs(dot[i] - rdot[i]) > 1e-6 * dim * (1 + mag))
        fail_msg("%s dot dim %d row %d: %.9g vs %.9g", k->name, dim, i, dot[i], rdot[i]);
    }
    free(q);
    free(x);
  }
}

static void test_portable(void **state) {
  (void)state;
  check_set(qvk_dist_kernels_level(QVK_DIST_PORTABLE));
}

static void test_vector_sets_agree_with_portable(void **state) {
  (void)state;
  const qvk_dist_kernels *p = qvk_dist_kernels_level(QVK_DIST_PORTABLE);
  int ran = 0;
  for (int level = QVK_DIST_AVX2; level <= QVK_DIST_AVX512; level++) {
    const qvk_dist_kernels *k = qvk_dist_kernels_level(level);
    if (!k) {
      printf("# distance kernels: level %d not available on this CPU: skipped\n", level);
      continue;
    }
    printf("# distance kernels: %s checked against %s\n", k->name, p->name);
    check_set(k);
    /* the same vectors through both sets: equal to rounding */
    uint64_t s = 99;
    float q[128], x[128 * 64], a[64], b[64];
    for (int j = 0; j < 128; j++) q[j] = frand(&s);
    for (int j = 0; j < 128 * 64; j++) x[j] = frand(&s);
    k->l2(q, x, 64, 128, a);
    p->l2(q, x, 64, 128, b);
    for (int i = 0; i < 64; i++) assert_true(fabsf(a[i] - b[i]) <= 1e-4f * (1 + b[i]));
    ran++;
  }
  /* the dispatched set is the widest available one */
  const qvk_dist_kernels *got = qvk_dist_kernels_get();
  const qvk_dist_kernels *widest = qvk_dist_kernels_level(QVK_DIST_AVX512);
  if (!widest) widest = qvk_dist_kernels_level(QVK_DIST_AVX2);
  if (!widest) widest = p;
  assert_ptr_equal(got, widest);
  assert_string_equal(qv_distance_kernels(), got->name);
  printf("# dispatched: %s (%d vector set%s checked)\n", got->name, ran, ran == 1 ? "" : "s");
}

static void test_metric_names(void **state) {
  (void)state;
  qv_metric m;
  assert_true(qv_metric_parse("cosine", &m));
  assert_int_equal(m, QV_METRIC_COSINE);
  assert_true(qv_metric_parse("euclidean", &m));
  assert_int_equal(m, QV_METRIC_L2);
  assert_false(qv_metric_parse("hamming", &m));
  assert_string_equal(qv_metric_name(QV_METRIC_DOT), "dot");
  assert_string_equal(qv_metric_name(99), "unknown");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_portable),
      cmocka_unit_test(test_vector_sets_agree_with_portable),
      cmocka_unit_test(test_metric_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
