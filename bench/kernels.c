/* Compare-kernel throughput: qv_eval / qv_eval_filter on 10M-row columns
 * against a naive row-at-a-time baseline that boxes every value (one heap
 * object per row, a tagged union) and compares through a function pointer.
 * Usage: bench_kernels [rows [int|float|string]]   (default 10000000 rows,
 * every group).  Prints rows/s (best of three runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/compute.h"

/* ---- the boxed baseline ------------------------------------------------- */

typedef struct box {
  int tag; /* 0 int64, 1 float64, 2 string */
  union {
    int64_t i;
    double f;
    struct {
      const uint8_t *p;
      int32_t n;
    } s;
  } v;
} box;

typedef int (*box_cmp)(const box *a, const box *b);
static int cmp_i(const box *a, const box *b) { return (a->v.i > b->v.i) - (a->v.i < b->v.i); }
static int cmp_f(const box *a, const box *b) { return (a->v.f > b->v.f) - (a->v.f < b->v.f); }
static int cmp_s(const box *a, const box *b) {
  int32_t n = a->v.s.n < b->v.s.n ? a->v.s.n : b->v.s.n;
  int c = memcmp(a->v.s.p, b->v.s.p, (size_t)n);
  return c ? c : (a->v.s.n > b->v.s.n) - (a->v.s.n < b->v.s.n);
}

static box **box_column(const qv_array *a) {
  box **bs = malloc((size_t)a->length * sizeof *bs);
  for (int64_t i = 0; i < a->length; i++) {
    box *b = malloc(sizeof *b);
    if (a->type.id == QV_TYPE_INT64) {
      b->tag = 0;
      b->v.i = ((const int64_t *)qv_array_values(a))[i];
    } else if (a->type.id == QV_TYPE_FLOAT64) {
      b->tag = 1;
      b->v.f = ((const double *)qv_array_values(a))[i];
    } else {
      b->tag = 2;
      b->v.s.p = qv_array_str(a, i, &b->v.s.n);
    }
    bs[i] = b;
  }
  return bs;
}

static void free_boxes(box **bs, int64_t n) {
  for (int64_t i = 0; i < n; i++) free(bs[i]);
  free(bs);
}

/* a op scalar, one row at a time: the result is one bool byte per row */
static double baseline(box **col, int64_t n, const box *s, box_cmp fn, int want_sign, uint8_t *out) {
  double t0 = qv_now_seconds();
  for (int64_t i = 0; i < n; i++) out[i] = fn(col[i], s) == want_sign;
  return qv_now_seconds() - t0;
}

/* ---- quiver ------------------------------------------------------------------ */

static qv_batch *one_column(qv_array *a) {
  qv_schema s = QV_SCHEMA_INIT;
  qv_field f;
  qv_datatype t;
  qv_datatype_copy(&a->type, &t);
  qv_field_init(&f, "c", &t, true, NULL);
  qv_schema_add(&s, &f, NULL);
  qv_field_reset(&f);
  qv_datatype_reset(&t);
  qv_batch *b = NULL;
  qv_error err;
  if (qv_batch_make(&s, &a, a->length, &b, &err) != QV_OK) {
    fprintf(stderr, "batch: %s\n", err.message);
    exit(1);
  }
  qv_schema_reset(&s);
  return b;
}

static qv_expr *compare(qv_op op, const qv_batch *b, qv_scalar *lit, uint8_t order) {
  qv_expr *c = qv_expr_column("c");
  c->column = 0;
  qv_datatype_copy(&b->columns[0]->type, &c->type);
  qv_expr *e = qv_expr_binary(op, c, qv_expr_literal(lit));
  e->type = qv_datatype_simple(QV_TYPE_BOOL);
  e->sem.float_order = order;
  return e;
}

/* Best of three runs of qv_eval, in seconds. */
static int g_reps = 3;

static double time_eval(const qv_expr *e, const qv_batch *b) {
  double best = 1e9;
  for (int k = 0; k < g_reps; k++) {
    qv_array *r = NULL;
    qv_error err;
    double t0 = qv_now_seconds();
    if (qv_eval(e, b, NULL, &r, &err) != QV_OK) {
      fprintf(stderr, "eval: %s\n", err.message);
      exit(1);
    }
    double t = qv_now_seconds() - t0;
    if (t < best) best = t;
    qv_array_release(r);
  }
  return best;
}

static double time_filter(const qv_expr *e, const qv_batch *b, int64_t *kept) {
  double best = 1e9;
  for (int k = 0; k < g_reps; k++) {
    qv_selection out = QV_SELECTION_INIT;
    double t0 = qv_now_seconds();
    if (qv_eval_filter(e, b, NULL, &out, NULL) != QV_OK) exit(1);
    double t = qv_now_seconds() - t0;
    if (t < best) best = t;
    *kept = out.count;
    qv_selection_reset(&out);
  }
  return best;
}

static void report(const char *what, int64_t n, double quiver, double base) {
  printf("%-34s %8.1f Mrows/s   baseline %7.1f Mrows/s   x%.1f\n", what, n / quiver / 1e6, n / base / 1e6,
         base / quiver);
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? atoll(argv[1]) : 10000000;
  const char *only = argc > 2 ? argv[2] : NULL;
  if (argc > 3) g_reps = atoi(argv[3]);
  uint8_t *out = malloc((size_t)n);
  printf("rows: %lld\n", (long long)n);

  /* int64 */
  if (!only || strcmp(only, "int") == 0) {
    qv_datatype t = qv_datatype_simple(QV_TYPE_INT64);
    qv_builder bl;
    qv_builder_init(&bl, &t, NULL);
    qv_builder_reserve(&bl, n);
    for (int64_t i = 0; i < n; i++) qv_builder_append_int(&bl, (int64_t)(next() % 1000000));
    qv_array *a = NULL;
    qv_builder_finish(&bl, &a, NULL);
    qv_batch *b = one_column(a);
    qv_scalar s = qv_scalar_int(QV_TYPE_INT64, 500000);
    qv_expr *e = compare(QV_OP_GT, b, &s, QV_FLOAT_TOTAL);
    box **bx = box_column(a);
    box sb = {0, {.i = 500000}};
    double base = baseline(bx, n, &sb, cmp_i, 1, out);
    report("int64 > scalar (eval)", n, time_eval(e, b), base);
    int64_t kept;
    report("int64 > scalar (filter)", n, time_filter(e, b, &kept), base);
    free_boxes(bx, n);
    qv_expr_destroy(e);
    qv_batch_release(b);
  }
  /* float64, every order */
  if (!only || strcmp(only, "float") == 0) {
    qv_datatype t = qv_datatype_simple(QV_TYPE_FLOAT64);
    qv_builder bl;
    qv_builder_init(&bl, &t, NULL);
    qv_builder_reserve(&bl, n);
    for (int64_t i = 0; i < n; i++) qv_builder_append_double(&bl, (double)(next() % 1000000) / 7.0);
    qv_array *a = NULL;
    qv_builder_finish(&bl, &a, NULL);
    qv_batch *b = one_column(a);
    box **bx = box_column(a);
    box sb = {1, {.f = 70000.0}};
    double base = baseline(bx, n, &sb, cmp_f, -1, out);
    const char *names[4] = {"float64 < scalar (IEEE)", "float64 < scalar (TOTAL)", "float64 < scalar (POLARS)",
                            "float64 < scalar (JAVA)"};
    for (uint8_t o = 0; o < 4; o++) {
      qv_scalar s = qv_scalar_double(70000.0);
      qv_expr *e = compare(QV_OP_LT, b, &s, o);
      report(names[o], n, time_eval(e, b), base);
      qv_expr_destroy(e);
    }
    free_boxes(bx, n);
    qv_batch_release(b);
  }
  /* strings */
  if (!only || strcmp(only, "string") == 0) {
    qv_datatype t = qv_datatype_simple(QV_TYPE_STRING);
    qv_builder bl;
    qv_builder_init(&bl, &t, NULL);
    qv_builder_reserve(&bl, n);
    char buf[32];
    for (int64_t i = 0; i < n; i++) {
      int len = snprintf(buf, sizeof buf, "user-%06llu", (unsigned long long)(next() % 1000000));
      qv_builder_append_bytes(&bl, buf, len);
    }
    qv_array *a = NULL;
    qv_builder_finish(&bl, &a, NULL);
    qv_batch *b = one_column(a);
    box **bx = box_column(a);
    box sb = {2, {.s = {(const uint8_t *)"user-500000", 11}}};
    double base_eq = baseline(bx, n, &sb, cmp_s, 0, out);
    double base_lt = baseline(bx, n, &sb, cmp_s, -1, out);
    qv_scalar s = QV_SCALAR_INIT;
    qv_scalar_string("user-500000", 11, &s);
    qv_expr *e = compare(QV_OP_EQ, b, &s, 0);
    report("string = scalar", n, time_eval(e, b), base_eq);
    qv_expr_destroy(e);
    qv_scalar_string("user-500000", 11, &s);
    e = compare(QV_OP_LT, b, &s, 0);
    report("string < scalar", n, time_eval(e, b), base_lt);
    qv_expr_destroy(e);
    qv_scalar_string("user-5%", 7, &s);
    e = compare(QV_OP_LIKE, b, &s, 0);
    report("string LIKE 'user-5%'", n, time_eval(e, b), base_lt);
    qv_expr_destroy(e);
    free_boxes(bx, n);
    qv_batch_release(b);
  }
  free(out);
  return 0;
}
