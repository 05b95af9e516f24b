/* Distance kernels (distance.h).  The vector sets keep several independent
 * accumulators so that the FMA latency is hidden, and finish a dimension
 * that is not a multiple of the register width with a masked (AVX-512) or
 * scalar (AVX2) tail.  The portable set is a plain loop: without
 * -ffast-math the compiler does not reorder its float sums, so it is also
 * the reference the others are tested against. */
#include "compute/distance.h"

#include <stddef.h>

static void l2_portable(const float *q, const float *x, int64_t n, int32_t dim, float *out) {
  for (int64_t i = 0; i < n; i++) {
    const float *v = x + i * dim;
    float s = 0;
    for (int32_t j = 0; j < dim; j++) {
      float d = q[j] - v[j];
      s += d * d;
    }
    out[i] = s;
  }
}

static void dot_portable(const float *q, const float *x, int64_t n, int32_t dim, float *out) {
  for (int64_t i = 0; i < n; i++) {
    const float *v = x + i * dim;
    float s = 0;
    for (int32_t j = 0; j < dim; j++) s += q[j] * v[j];
    out[i] = s;
  }
}

static const qvk_dist_kernels portable = {"portable", l2_portable, dot_portable};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define QVK_HAVE_X86 1

__attribute__((target("avx2,fma"))) static inline float hsum256(__m256 v) {
  __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
  lo = _mm_add_ps(lo, hi);
  lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
  lo = _mm_add_ss(lo, _mm_shuffle_ps(lo, lo, 1));
  return _mm_cvtss_f32(lo);
}

__attribute__((target("avx2,fma"))) static void l2_avx2(const float *q, const float *x, int64_t n, int32_t dim,
                                                        float *out) {
  for (int64_t i = 0; i < n; i++) {
    const float *v = x + i * dim;
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int32_t j = 0;
    for (; j + 16 <= dim; j += 16) {
      __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(q + j), _mm256_loadu_ps(v + j));
      __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(q + j + 8), _mm256_loadu_ps(v + j + 8));
      a0 = _mm256_fmadd_ps(d0, d0, a0);
      a1 = _mm256_fmadd_ps(d1, d1, a1);
    }
    for (; j + 8 <= dim; j += 8) {
      __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(q + j), _mm256_loadu_ps(v + j));
      a0 = _mm256_fmadd_ps(d0, d0, a0);
    }
    float s = hsum256(_mm256_add_ps(a0, a1));
    for (; j < dim; j++) {
      float d = q[j] - v[j];
      s += d * d;
    }
    out[i] = s;
  }
}

__attribute__((target("avx2,fma"))) static void dot_avx2(const float *q, const float *x, int64_t n, int32_t dim,
                                                         float *out) {
  for (int64_t i = 0; i < n; i++) {
    const float *v = x + i * dim;
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int32_t j = 0;
    for (; j + 16 <= dim; j += 16) {
      a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + j), _mm256_loadu_ps(v + j), a0);
      a1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + j + 8), _mm256_loadu_ps(v + j + 8), a1);
    }
    for (; j + 8 <= dim; j += 8) a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + j), _mm256_loadu_ps(v + j), a0);
    float s = hsum256(_mm256_add_ps(a0, a1));
    for (; j < dim; j++) s += q[j] * v[j];
    out[i] = s;
  }
}

static const qvk_dist_kernels avx2 = {"avx2", l2_avx2, dot_avx2};

__attribute__((target("avx512f"))) static void l2_avx512(const float *q, const float *x, int64_t n, int32_t dim,
                                                         float *out) {
  int32_t rest = dim % 16;
  __mmask16 tail = (__mmask16)((1u << rest) - 1);
  for (int64_t i = 0; i < n; i++) {
    const float *v = x + i * dim;
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    int32_t j = 0;
    for (; j + 32 <= dim; j += 32) {
      __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(q + j), _mm512_loadu_ps(v + j));
      __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(q + j + 16), _mm512_loadu_ps(v + j + 16));
      a0 = _mm512_fmadd_ps(d0, d0, a0);
      a1 = _mm512_fmadd_ps(d1, d1, a1);
    }
    for (; j + 16 <= dim; j += 16) {
      __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(q + j), _mm512_loadu_ps(v + j));
      a0 = _mm512_fmadd_ps(d0, d0, a0);
    }
    if (rest) {
      __m512 d0 = _mm512_sub_ps(_mm512_maskz_loadu_ps(tail, q + j), _mm512_maskz_loadu_ps(tail, v + j));
      a1 = _mm512_fmadd_ps(d0, d0, a1);
    }
    out[i] = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
  }
}

__attribute__((target("avx512f"))) static void dot_avx512(const float *q, const float *x, int64_t n, int32_t dim,
                                                          float *out) {
  int32_t rest = dim % 16;
  __mmask16 tail = (__mmask16)((1u << rest) - 1);
  for (int64_t i = 0; i < n; i++) {
    const float *v = x + i * dim;
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    int32_t j = 0;
    for (; j + 32 <= dim; j += 32) {
      a0 = _mm512_fmadd_ps(_mm512_loadu_ps(q + j), _mm512_loadu_ps(v + j), a0);
      a1 = _mm512_fmadd_ps(_mm512_loadu_ps(q + j + 16), _mm512_loadu_ps(v + j + 16), a1);
    }
    for (; j + 16 <= dim; j += 16) a0 = _mm512_fmadd_ps(_mm512_loadu_ps(q + j), _mm512_loadu_ps(v + j), a0);
    if (rest) a1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, q + j), _mm512_maskz_loadu_ps(tail, v + j), a1);
    out[i] = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
  }
}

static const qvk_dist_kernels avx512 = {"avx512", l2_avx512, dot_avx512};
#endif

const qvk_dist_kernels *qvk_dist_kernels_level(int level) {
  switch (level) {
    case QVK_DIST_PORTABLE: return &portable;
#ifdef QVK_HAVE_X86
    case QVK_DIST_AVX2:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? &avx2 : NULL;
    case QVK_DIST_AVX512: __builtin_cpu_init(); return __builtin_cpu_supports("avx512f") ? &avx512 : NULL;
#endif
    default: return NULL;
  }
}

const qvk_dist_kernels *qvk_dist_kernels_get(void) {
  /* Racing first calls store the same pointer: no lock needed. */
  static const qvk_dist_kernels *chosen;
  const qvk_dist_kernels *k = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
  if (k) return k;
  k = qvk_dist_kernels_level(QVK_DIST_AVX512);
  if (!k) k = qvk_dist_kernels_level(QVK_DIST_AVX2);
  if (!k) k = &portable;
  __atomic_store_n(&chosen, k, __ATOMIC_RELEASE);
  return k;
}

/* ---- the public names --------------------------------------------------- */

#include <string.h>

#include "quiver/compute.h"

const char *qv_metric_name(int metric) {
  switch (metric) {
    case QV_METRIC_L2: return "l2";
    case QV_METRIC_COSINE: return "cosine";
    case QV_METRIC_DOT: return "dot";
    default: return "unknown";
  }
}

bool qv_metric_parse(const char *s, qv_metric *out) {
  if (!s) return false;
  if (strcmp(s, "l2") == 0 || strcmp(s, "euclidean") == 0) *out = QV_METRIC_L2;
  else if (strcmp(s, "cosine") == 0) *out = QV_METRIC_COSINE;
  else if (strcmp(s, "dot") == 0) *out = QV_METRIC_DOT;
  else return false;
  return true;
}

const char *qv_distance_kernels(void) { return qvk_dist_kernels_get()->name; }
