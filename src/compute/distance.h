/* Vector distance kernels (distance.c): squared L2 and dot products of one
 * query against n contiguous float32 vectors of dimension dim, the inner
 * loop of vector search (the scan layer's flat search, the index layer's
 * IVF training, assignment and partition scans).
 *
 * One set of kernels per instruction set -- AVX-512F, AVX2 with FMA, and a
 * portable loop -- picked once per process by what the CPU reports
 * (qvk_dist_kernels_get), so one binary runs everywhere and uses the
 * widest registers the machine has.  The sets agree to rounding: they add
 * the products in different orders.  Each set is deterministic: a vector's
 * distance does not depend on the thread or the block it is computed in. */
#ifndef QUIVER_COMPUTE_DISTANCE_H
#define QUIVER_COMPUTE_DISTANCE_H

#include <stdint.h>

typedef void (*qvk_dist_fn)(const float *q, const float *x, int64_t n, int32_t dim, float *out);

typedef struct qvk_dist_kernels {
  const char *name; /* "avx512", "avx2", "portable" */
  qvk_dist_fn l2;   /* out[i] = sum_j (q[j] - x[i*dim+j])^2 */
  qvk_dist_fn dot;  /* out[i] = sum_j q[j] * x[i*dim+j] */
} qvk_dist_kernels;

enum { QVK_DIST_PORTABLE = 0, QVK_DIST_AVX2 = 1, QVK_DIST_AVX512 = 2 };

/* The widest set this CPU runs (decided on the first call). */
const qvk_dist_kernels *qvk_dist_kernels_get(void);
/* A given set, or NULL when this CPU (or this build) lacks it: tests run
 * every set the machine has against the portable one. */
const qvk_dist_kernels *qvk_dist_kernels_level(int level);

#endif
