/* k-means for the vector indices (IVF partitions, PQ codebooks): Lloyd's
 * iterations from k distinct sample vectors chosen by a seeded shuffle.
 * Assignment, the costly step (n x k distances), runs on the pool with the
 * dispatched distance kernels; the centroid update sums in double so that
 * the order rows arrive in does not matter.  An empty cluster takes the
 * vector farthest from its centroid, so that k centroids stay distinct.
 * Deterministic for a seed, whatever the thread count. */
#include <float.h>
#include <math.h>

#include "base/pool.h"
#include "compute/distance.h"
#include "index/index_int.h"

static uint64_t mix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t qvi_rand(uint64_t *state) { return mix(state); }

/* Short vectors (PQ sub-vectors: up to 32 values) against many
 * centroids: with the centroids transposed (dim x k) one register holds 16
 * centroids' running distances, so the loop runs across centroids and the
 * nearest is kept in registers too; one kernel call per centroid would
 * spend more on the call and its final horizontal add than on the
 * arithmetic.  Ties go to the lower centroid, as in the portable loop. */
enum { SMALL_DIM = 32 };

static int32_t nearest_small_portable(const float *x, const float *ct, int32_t dim, int32_t k, float *best_d) {
  int32_t best = 0;
  float bd = INFINITY;
  for (int32_t c = 0; c < k; c++) {
    float d = 0;
    for (int32_t j = 0; j < dim; j++) {
      float t = x[j] - ct[(size_t)j * k + c];
      d += t * t;
    }
    if (d < bd) {
      bd = d;
      best = c;
    }
  }
  *best_d = bd;
  return best;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
__attribute__((target("avx512f"))) static int32_t nearest_small_avx512(const float *x, const float *ct, int32_t dim,
                                                                       int32_t k, float *best_d) {
  __m512 bestv = _mm512_set1_ps(INFINITY);
  __m512i besti = _mm512_set1_epi32(0), idx = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (int32_t c0 = 0; c0 < k; c0 += 16) {
    __mmask16 m = c0 + 16 <= k ? (__mmask16)0xFFFF : (__mmask16)((1u << (k - c0)) - 1);
    __m512 acc = _mm512_setzero_ps();
    for (int32_t j = 0; j < dim; j++) {
      __m512 t = _mm512_sub_ps(_mm512_set1_ps(x[j]), _mm512_maskz_loadu_ps(m, ct + (size_t)j * k + c0));
      acc = _mm512_fmadd_ps(t, t, acc);
    }
    __mmask16 lt = _mm512_mask_cmp_ps_mask(m, acc, bestv, _CMP_LT_OQ);
    bestv = _mm512_mask_mov_ps(bestv, lt, acc);
    besti = _mm512_mask_mov_epi32(besti, lt, idx);
    idx = _mm512_add_epi32(idx, _mm512_set1_epi32(16));
  }
  float mv = _mm512_reduce_min_ps(bestv);
  __mmask16 eq = _mm512_cmp_ps_mask(bestv, _mm512_set1_ps(mv), _CMP_EQ_OQ);
  *best_d = mv;
  return _mm512_reduce_min_epi32(_mm512_mask_mov_epi32(_mm512_set1_epi32(INT32_MAX), eq, besti));
}
#endif

typedef int32_t (*nearest_small_fn)(const float *x, const float *ct, int32_t dim, int32_t k, float *best_d);

static nearest_small_fn pick_small(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (qvk_dist_kernels_get() == qvk_dist_kernels_level(QVK_DIST_AVX512)) return nearest_small_avx512;
#endif
  return nearest_small_portable;
}

typedef struct assign_job {
  const float *x, *c;
  const float *ct; /* transposed centroids (short vectors), or NULL */
  nearest_small_fn small;
  int64_t n;
  int32_t dim, k;
  int32_t *out;
  float *dist;
  float *scratch; /* QV_POOL_MAX x k */
  const qvk_dist_kernels *kern;
} assign_job;

enum { ASSIGN_TASK = 256 };

static void assign_task(void *ctx, int64_t task, int worker) {
  assign_job *j = ctx;
  float *d = j->scratch + (size_t)worker * (size_t)j->k;
  int64_t lo = task * ASSIGN_TASK, hi = lo + ASSIGN_TASK < j->n ? lo + ASSIGN_TASK : j->n;
  for (int64_t i = lo; i < hi; i++) {
    if (j->ct) {
      float bd;
      j->out[i] = j->small(j->x + i * j->dim, j->ct, j->dim, j->k, &bd);
      if (j->dist) j->dist[i] = bd;
      continue;
    }
    j->kern->l2(j->x + i * j->dim, j->c, j->k, j->dim, d);
    int32_t best = 0;
    for (int32_t c = 1; c < j->k; c++)
      if (d[c] < d[best]) best = c;
    j->out[i] = best;
    if (j->dist) j->dist[i] = d[best];
  }
}

qv_status qvi_assign(const float *x, int64_t n, int32_t dim, const float *c, int32_t k, int32_t *out, float *dist,
                     qv_error *err) {
  float *ct = NULL;
  if (dim <= SMALL_DIM && k >= 16) {
    if (!(ct = qv_malloc((size_t)dim * (size_t)k * sizeof *ct))) return qv_error_nomem(err, "k-means");
    for (int32_t c2 = 0; c2 < k; c2++)
      for (int32_t d = 0; d < dim; d++) ct[(size_t)d * k + c2] = c[(size_t)c2 * dim + d];
  }
  assign_job j = {.x = x,
                  .c = c,
                  .ct = ct,
                  .small = pick_small(),
                  .n = n,
                  .dim = dim,
                  .k = k,
                  .out = out,
                  .dist = dist,
                  .scratch = qv_malloc((size_t)QV_POOL_MAX * (size_t)k * sizeof(float)),
                  .kern = qvk_dist_kernels_get()};
  if (!j.scratch) {
    qv_free(ct);
    return qv_error_nomem(err, "k-means");
  }
  qvb_pool_run((n + ASSIGN_TASK - 1) / ASSIGN_TASK, QV_POOL_MAX, assign_task, &j);
  qv_free(j.scratch);
  qv_free(ct);
  return QV_OK;
}

qv_status qvi_kmeans(const float *x, int64_t n, int32_t dim, int32_t k, int32_t iters, uint64_t seed, float *centroids,
                     qv_error *err) {
  if (n < k) return qv_error_set(err, QV_ERR_INVALID, "k-means: %lld vectors for %d centroids", (long long)n, k);
  int64_t *perm = qv_malloc((size_t)n * sizeof *perm);
  int32_t *asg = qv_malloc((size_t)n * sizeof *asg);
  float *dist = qv_malloc((size_t)n * sizeof *dist);
  double *sum = qv_malloc((size_t)k * (size_t)dim * sizeof *sum);
  int64_t *cnt = qv_malloc((size_t)k * sizeof *cnt);
  qv_status st = perm && asg && dist && sum && cnt ? QV_OK : qv_error_nomem(err, "k-means");
  if (st == QV_OK) {
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    for (int32_t i = 0; i < k; i++) { /* a partial Fisher-Yates: k distinct starts */
      int64_t j = i + (int64_t)(mix(&s) % (uint64_t)(n - i));
      int64_t t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
      memcpy(centroids + (size_t)i * dim, x + perm[i] * dim, (size_t)dim * sizeof *centroids);
    }
  }
  for (int32_t it = 0; it < iters && st == QV_OK; it++) {
    if ((st = qvi_assign(x, n, dim, centroids, k, asg, dist, err)) != QV_OK) break;
    memset(sum, 0, (size_t)k * (size_t)dim * sizeof *sum);
    memset(cnt, 0, (size_t)k * sizeof *cnt);
    for (int64_t i = 0; i < n; i++) {
      double *sm = sum + (size_t)asg[i] * dim;
      const float *v = x + i * dim;
      for (int32_t d = 0; d < dim; d++) sm[d] += v[d];
      cnt[asg[i]]++;
    }
    double moved = 0;
    for (int32_t c = 0; c < k; c++) {
      float *cv = centroids + (size_t)c * dim;
      if (cnt[c] == 0) { /* the farthest vector restarts the empty cluster */
        int64_t far = 0;
        for (int64_t i = 1; i < n; i++)
          if (dist[i] > dist[far]) far = i;
        memcpy(cv, x + far * dim, (size_t)dim * sizeof *cv);
        dist[far] = 0;
        moved += 1;
        continue;
      }
      for (int32_t d = 0; d < dim; d++) {
        float nv = (float)(sum[(size_t)c * dim + d] / (double)cnt[c]);
        moved += fabs((double)nv - cv[d]);
        cv[d] = nv;
      }
    }
    if (moved == 0) break;
  }
  qv_free(perm);
  qv_free(asg);
  qv_free(dist);
  qv_free(sum);
  qv_free(cnt);
  return st;
}
