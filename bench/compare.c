/* Comparison kernels against a row-at-a-time boxed baseline and memcpy
 * (issue 5, "Performance").
 *
 * For each type and each operator (= != < <= > >=) against one scalar, on
 * one --rows element column (no nulls), this prints one table row with:
 *   - kernel: qv_eval of a bound `column op literal` node (full bitmap);
 *   - boxed:  the pattern the kernel replaces, written here only: per row a
 *             heap-allocated tagged value for the element and another for
 *             the scalar (a `Literal` each; strings copy their bytes into
 *             it), a comparison through a function pointer, then both are
 *             freed;
 *   - memcpy: of the same column buffers, in the same run.
 * and the ratios kernel/boxed (rows/s) and kernel GB/s / memcpy GB/s.
 * GB/s is always the column bytes read (values; offsets + characters for
 * strings) per second; for memcpy it is the bytes copied per second.
 *
 * A second table has, per type, a selective filter `column < s` with s
 * chosen so about 1% of rows pass: qv_eval_filter (selection vector out)
 * against qv_eval (full bitmap) of the same node on the same data.
 *
 * Every figure is the best of --repeat runs; the runs of one row are
 * interleaved (kernel, boxed, memcpy, kernel, ...) so noise hits all three
 * alike.  Targets are reported (ok / MISS), never asserted.
 *
 * Usage: bench_compare [--rows N] [--repeat K] [--only TYPE]
 *   TYPE: int32 int64 uint64 float32 float64 date32 timestamp decimal128 string */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "quiver/compute.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Everything measured is folded in here and printed at the end, so no run
 * can be dropped as dead code. */
static volatile uint64_t g_sink;

static void die(const char *what, const qv_error *err) {
  fprintf(stderr, "bench_compare: %s: %s\n", what, err ? err->message : "failed");
  exit(1);
}

/* ---- the types under test ----------------------------------------------- */

typedef enum kind { K_INT32, K_INT64, K_UINT64, K_FLOAT32, K_FLOAT64, K_DATE32, K_TS_US, K_DEC, K_STRING, K__N } kind;

static const char *const k_key[K__N] = {"int32",  "int64",     "uint64",     "float32", "float64",
                                        "date32", "timestamp", "decimal128", "string"};
static const char *const k_label[K__N] = {"int32",  "int64",         "uint64",           "float32", "float64",
                                          "date32", "timestamp[us]", "decimal128(18,2)", "string"};

/* Rows hold v = uniform in [0, DOMAIN) mapped into each type; the scalar
 * for the operator rows is the image of DOMAIN/2, for the 1% filter the
 * image of DOMAIN/100. */
#define DOMAIN 1000000u
#define TS_BASE INT64_C(1700000000000000) /* 2023-11-14 in microseconds */

static qv_datatype make_type(kind k) {
  qv_datatype t = QV_DATATYPE_INIT;
  switch (k) {
    case K_INT32: return qv_datatype_simple(QV_TYPE_INT32);
    case K_INT64: return qv_datatype_simple(QV_TYPE_INT64);
    case K_UINT64: return qv_datatype_simple(QV_TYPE_UINT64);
    case K_FLOAT32: return qv_datatype_simple(QV_TYPE_FLOAT32);
    case K_FLOAT64: return qv_datatype_simple(QV_TYPE_FLOAT64);
    case K_DATE32: return qv_datatype_simple(QV_TYPE_DATE32);
    case K_TS_US:
      if (qv_datatype_timestamp(QV_UNIT_MICRO, NULL, &t, NULL) != QV_OK) die("timestamp type", NULL);
      return t;
    case K_DEC:
      if (qv_datatype_decimal(18, 2, &t, NULL) != QV_OK) die("decimal type", NULL);
      return t;
    default: return qv_datatype_simple(QV_TYPE_STRING);
  }
}

static void append_value(qv_builder *b, kind k, uint32_t v) {
  qv_status st;
  char buf[32];
  switch (k) {
    case K_INT32:
    case K_INT64:
    case K_DATE32: st = qv_builder_append_int(b, (int64_t)v); break;
    case K_UINT64: st = qv_builder_append_uint(b, (uint64_t)v); break;
    case K_FLOAT32:
    case K_FLOAT64: st = qv_builder_append_double(b, (double)v + 0.25); break;
    case K_TS_US: st = qv_builder_append_int(b, TS_BASE + (int64_t)v * 1000000); break;
    case K_DEC: st = qv_builder_append_decimal(b, (uint64_t)v, 0); break; /* v / 100 */
    default: {
      int len = snprintf(buf, sizeof buf, "user-%06u", v); /* 11 bytes */
      st = qv_builder_append_bytes(b, buf, len);
      break;
    }
  }
  if (st != QV_OK) die("append", NULL);
}

static uint64_t g_rng = UINT64_C(88172645463325252);
static uint64_t next_rand(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}

static qv_array *make_column(kind k, int64_t n) {
  qv_datatype t = make_type(k);
  qv_builder b;
  qv_error err;
  if (qv_builder_init(&b, &t, &err) != QV_OK) die("builder", &err);
  if (qv_builder_reserve(&b, n) != QV_OK) die("reserve", NULL);
  for (int64_t i = 0; i < n; i++) append_value(&b, k, (uint32_t)(next_rand() % DOMAIN));
  qv_array *a = NULL;
  if (qv_builder_finish(&b, &a, &err) != QV_OK) die("finish", &err);
  qv_datatype_reset(&t);
  return a;
}

/* The scalar of type k for domain value v (through a one-element array, so
 * it is exactly what a column of that type holds). */
static qv_scalar make_scalar(kind k, uint32_t v) {
  qv_datatype t = make_type(k);
  qv_builder b;
  qv_error err;
  if (qv_builder_init(&b, &t, &err) != QV_OK) die("builder", &err);
  append_value(&b, k, v);
  qv_array *a = NULL;
  if (qv_builder_finish(&b, &a, &err) != QV_OK) die("finish", &err);
  qv_scalar s = QV_SCALAR_INIT;
  if (qv_scalar_from_array(a, 0, &s, &err) != QV_OK) die("scalar", &err);
  qv_array_release(a);
  qv_datatype_reset(&t);
  return s;
}

/* ---- quiver side ----------------------------------------------------------- */

static qv_batch *one_column(qv_array *a) {
  qv_schema s = QV_SCHEMA_INIT;
  qv_field f;
  qv_datatype t;
  qv_error err;
  qv_datatype_copy(&a->type, &t);
  if (qv_field_init(&f, "c", &t, true, &err) != QV_OK) die("field", &err);
  if (qv_schema_add(&s, &f, &err) != QV_OK) die("schema", &err);
  qv_field_reset(&f);
  qv_datatype_reset(&t);
  qv_batch *b = NULL;
  int64_t n = a->length;
  if (qv_batch_make(&s, &a, n, &b, &err) != QV_OK) die("batch", &err);
  qv_schema_reset(&s);
  return b;
}

/* `c op literal`, bound by hand as tests/compute does: the column node gets
 * its index and type, the call node bool, float order TOTAL (the Lance
 * default; the data has no NaN, so every order gives the same answer). */
static qv_expr *compare_node(qv_op op, const qv_batch *b, qv_scalar *lit) {
  qv_expr *c = qv_expr_column("c");
  if (!c) die("expr", NULL);
  c->column = 0;
  qv_datatype_copy(&b->columns[0]->type, &c->type);
  qv_expr *l = qv_expr_literal(lit);
  if (!l) die("expr", NULL); /* the builder already gave it the value's type */
  qv_expr *e = qv_expr_binary(op, c, l);
  if (!e) die("expr", NULL);
  e->type = qv_datatype_simple(QV_TYPE_BOOL);
  e->sem.float_order = QV_FLOAT_TOTAL;
  return e;
}

static int64_t popcount_bits(const uint8_t *bits, int64_t n) {
  int64_t c = 0, i = 0;
  for (; i + 64 <= n; i += 64) {
    uint64_t w;
    memcpy(&w, bits + i / 8, 8);
    c += __builtin_popcountll(w);
  }
  for (; i < n; i++) c += (bits[i >> 3] >> (i & 7)) & 1;
  return c;
}

/* One qv_eval (on the rows of sel, or all): seconds; *trues gets the
 * number of TRUE rows. */
static double run_eval_sel(const qv_expr *e, const qv_batch *b, const qv_selection *sel, int64_t *trues) {
  qv_array *r = NULL;
  qv_error err;
  double t0 = now();
  if (qv_eval(e, b, sel, &r, &err) != QV_OK) die("qv_eval", &err);
  double t = now() - t0;
  if (r->length != (sel ? sel->count : b->num_rows) || r->null_count != 0 || r->offset != 0)
    die("qv_eval: unexpected result shape", NULL);
  *trues = popcount_bits(r->buffers[1]->data, r->length);
  qv_array_release(r);
  return t;
}

static double run_eval(const qv_expr *e, const qv_batch *b, int64_t *trues) { return run_eval_sel(e, b, NULL, trues); }

static double run_filter_sel(const qv_expr *e, const qv_batch *b, const qv_selection *sel, int64_t *kept) {
  qv_selection out = QV_SELECTION_INIT;
  qv_error err;
  double t0 = now();
  if (qv_eval_filter(e, b, sel, &out, &err) != QV_OK) die("qv_eval_filter", &err);
  double t = now() - t0;
  *kept = out.count;
  if (out.count > 0) g_sink += out.rows[out.count / 2];
  qv_selection_reset(&out);
  return t;
}

static double run_filter(const qv_expr *e, const qv_batch *b, int64_t *kept) {
  return run_filter_sel(e, b, NULL, kept);
}

/* ---- the boxed row-at-a-time baseline -------------------------------------- */

enum { TAG_I64, TAG_U64, TAG_F64, TAG_DEC, TAG_STR };

/* A heap `Literal`: a tag and the value; strings own a copy of their bytes. */
typedef struct box {
  int tag;
  int32_t len;
  union {
    int64_t i;
    uint64_t u;
    double f;
    qv_int128 d;
  } v;
  uint8_t s[]; /* TAG_STR: len bytes */
} box;

typedef int (*box_cmp_fn)(const box *a, const box *b);

static int cmp_i64(const box *a, const box *b) { return (a->v.i > b->v.i) - (a->v.i < b->v.i); }
static int cmp_u64(const box *a, const box *b) { return (a->v.u > b->v.u) - (a->v.u < b->v.u); }
static int cmp_f64(const box *a, const box *b) { return (a->v.f > b->v.f) - (a->v.f < b->v.f); }
static int cmp_dec(const box *a, const box *b) { return (a->v.d > b->v.d) - (a->v.d < b->v.d); }
static int cmp_str(const box *a, const box *b) {
  int32_t m = a->len < b->len ? a->len : b->len;
  int c = memcmp(a->s, b->s, (size_t)m);
  return c != 0 ? (c > 0) - (c < 0) : (a->len > b->len) - (a->len < b->len);
}

/* Read through a volatile so the call stays an indirect call per row. */
static box_cmp_fn volatile g_cmp_table[5] = {cmp_i64, cmp_u64, cmp_f64, cmp_dec, cmp_str};

static int tag_of(kind k) {
  switch (k) {
    case K_UINT64: return TAG_U64;
    case K_FLOAT32:
    case K_FLOAT64: return TAG_F64;
    case K_DEC: return TAG_DEC;
    case K_STRING: return TAG_STR;
    default: return TAG_I64;
  }
}

/* Element i of a as a new heap box (the per-row materialization). */
static box *box_element(const qv_array *a, kind k, int64_t i) {
  box *b;
  if (k == K_STRING) {
    int32_t len;
    const uint8_t *p = qv_array_str(a, i, &len);
    b = malloc(sizeof *b + (size_t)len);
    if (!b) die("malloc", NULL);
    b->tag = TAG_STR;
    b->len = len;
    memcpy(b->s, p, (size_t)len);
    return b;
  }
  b = malloc(sizeof *b);
  if (!b) die("malloc", NULL);
  b->len = 0;
  const void *vals = qv_array_values(a);
  switch (k) {
    case K_INT32:
    case K_DATE32:
      b->tag = TAG_I64;
      b->v.i = ((const int32_t *)vals)[i];
      break;
    case K_INT64:
    case K_TS_US:
      b->tag = TAG_I64;
      b->v.i = ((const int64_t *)vals)[i];
      break;
    case K_UINT64:
      b->tag = TAG_U64;
      b->v.u = ((const uint64_t *)vals)[i];
      break;
    case K_FLOAT32:
      b->tag = TAG_F64;
      b->v.f = ((const float *)vals)[i];
      break;
    case K_FLOAT64:
      b->tag = TAG_F64;
      b->v.f = ((const double *)vals)[i];
      break;
    default:
      b->tag = TAG_DEC;
      memcpy(&b->v.d, (const uint8_t *)vals + 16 * i, 16);
      break;
  }
  return b;
}

/* The scalar, boxed once as a template; copied into a fresh heap box per
 * row as the row engine did. */
static box *box_scalar_template(const qv_scalar *s, kind k) {
  size_t extra = k == K_STRING ? (size_t)s->len : 0;
  box *b = calloc(1, sizeof *b + extra);
  if (!b) die("calloc", NULL);
  b->tag = tag_of(k);
  switch (b->tag) {
    case TAG_I64: b->v.i = s->v.i; break;
    case TAG_U64: b->v.u = s->v.u; break;
    case TAG_F64: b->v.f = s->v.f; break;
    case TAG_DEC: b->v.d = (qv_int128)(((qv_uint128)(uint64_t)s->v.dec.hi << 64) | s->v.dec.lo); break;
    default:
      b->len = (int32_t)s->len;
      memcpy(b->s, s->bytes, extra);
      break;
  }
  return b;
}

static double run_boxed(const qv_array *a, kind k, const box *tmpl, qv_op op, uint8_t *out, int64_t *trues) {
  int64_t n = a->length;
  size_t tsize = sizeof *tmpl + (tmpl->tag == TAG_STR ? (size_t)tmpl->len : 0);
  box_cmp_fn fn = g_cmp_table[tag_of(k)];
  int64_t t = 0;
  double t0 = now();
  for (int64_t i = 0; i < n; i++) {
    box *x = box_element(a, k, i);
    box *s = malloc(tsize);
    if (!s) die("malloc", NULL);
    memcpy(s, tmpl, tsize);
    int c = fn(x, s);
    bool r;
    switch (op) {
      case QV_OP_EQ: r = c == 0; break;
      case QV_OP_NE: r = c != 0; break;
      case QV_OP_LT: r = c < 0; break;
      case QV_OP_LE: r = c <= 0; break;
      case QV_OP_GT: r = c > 0; break;
      default: r = c >= 0; break;
    }
    out[i] = r;
    t += r;
    free(s);
    free(x);
  }
  double dt = now() - t0;
  *trues = t;
  return dt;
}

/* ---- memcpy of the same buffers -------------------------------------------- */

typedef struct span {
  const uint8_t *p;
  size_t n;
} span;

/* The column's bytes: the values, or the offsets and the characters. */
static int column_spans(const qv_array *a, span sp[2]) {
  if (a->type.id == QV_TYPE_STRING) {
    const int32_t *o = qv_array_offsets(a);
    sp[0].p = (const uint8_t *)o;
    sp[0].n = (size_t)(a->length + 1) * 4;
    sp[1].p = a->buffers[2]->data + o[0];
    sp[1].n = (size_t)(o[a->length] - o[0]);
    return 2;
  }
  sp[0].p = qv_array_values(a);
  sp[0].n = (size_t)a->length * (size_t)qv_type_byte_width(a->type.id);
  return 1;
}

static double run_memcpy(const span *sp, int nsp, uint8_t *dst) {
  double t0 = now();
  size_t at = 0;
  for (int j = 0; j < nsp; j++) {
    memcpy(dst + at, sp[j].p, sp[j].n);
    at += sp[j].n;
  }
  double t = now() - t0;
  g_sink += dst[(size_t)(next_rand() % at)];
  return t;
}

/* ---- the run ------------------------------------------------------------------- */

static int g_repeat = 3;
static int g_miss_boxed, g_miss_mem, g_miss_sel, g_mismatch;

static double min_d(double a, double b) { return a < b ? a : b; }

static void bench_type(kind k, int64_t n, uint8_t *boxed_out, uint8_t *memdst) {
  qv_array *col = make_column(k, n);
  qv_batch *batch = one_column(qv_array_retain(col));
  span sp[2];
  int nsp = column_spans(col, sp);
  double bytes = 0;
  for (int j = 0; j < nsp; j++) bytes += (double)sp[j].n;
  bool is64 = k == K_INT64 || k == K_UINT64 || k == K_FLOAT64 || k == K_TS_US;
  double boxed_target = k == K_STRING ? 5.0 : 20.0;

  static const qv_op ops[6] = {QV_OP_EQ, QV_OP_NE, QV_OP_LT, QV_OP_LE, QV_OP_GT, QV_OP_GE};
  for (int o = 0; o < 6; o++) {
    qv_scalar s = make_scalar(k, DOMAIN / 2);
    box *tmpl = box_scalar_template(&s, k);
    qv_expr *e = compare_node(ops[o], batch, &s);
    double tk = 1e30, tb = 1e30, tm = 1e30;
    int64_t kt = 0, bt = 0;
    for (int r = 0; r < g_repeat; r++) {
      tk = min_d(tk, run_eval(e, batch, &kt));
      tb = min_d(tb, run_boxed(col, k, tmpl, ops[o], boxed_out, &bt));
      tm = min_d(tm, run_memcpy(sp, nsp, memdst));
    }
    g_sink += (uint64_t)kt + boxed_out[n / 3];
    if (kt != bt) {
      g_mismatch++;
      fprintf(stderr, "MISMATCH %s %s: kernel %" PRId64 " true rows, boxed %" PRId64 "\n", k_label[k],
              qv_op_name(ops[o]), kt, bt);
    }
    double k_rows = (double)n / tk, b_rows = (double)n / tb;
    double k_gb = bytes / tk / 1e9, b_gb = bytes / tb / 1e9, m_gb = bytes / tm / 1e9;
    double x_boxed = tb / tk, x_mem = k_gb / m_gb;
    bool ok_boxed = x_boxed >= boxed_target;
    bool ok_mem = x_mem >= 0.5;
    if (!ok_boxed) g_miss_boxed++;
    if (is64 && !ok_mem) g_miss_mem++;
    char tgt[64];
    snprintf(tgt, sizeof tgt, "%s %s", ok_boxed ? "ok" : "MISS", is64 ? (ok_mem ? "ok" : "MISS") : "-");
    printf("| %-16s | %-2s | %8.1f | %6.2f | %7.2f | %6.3f | %6.2f | %7.1fx | %5.2f | %-9s |\n", k_label[k],
           qv_op_name(ops[o]), k_rows / 1e6, k_gb, b_rows / 1e6, b_gb, m_gb, x_boxed, x_mem, tgt);
    fflush(stdout);
    qv_expr_destroy(e);
    free(tmpl);
  }
  qv_array_release(col);
  qv_batch_release(batch);
}

/* The same filter under an incoming selection of every other row: the
 * fused path reads the column through the selection (scanner batches with
 * deletions or an earlier conjunct look like this). */
static void bench_filter_sel(kind k, int64_t n) {
  qv_array *col = make_column(k, n);
  qv_batch *batch = one_column(qv_array_retain(col));
  span sp[2];
  int nsp = column_spans(col, sp);
  double bytes = 0;
  for (int j = 0; j < nsp; j++) bytes += (double)sp[j].n / 2;
  qv_selection half = QV_SELECTION_INIT;
  if (qv_selection_reserve(&half, n / 2 + 1) != QV_OK) die("selection", NULL);
  for (int64_t i = 0; i < n; i += 2) half.rows[half.count++] = (uint32_t)i;
  qv_scalar s = make_scalar(k, DOMAIN / 100);
  qv_expr *e = compare_node(QV_OP_LT, batch, &s);
  double tf = 1e30, te = 1e30;
  int64_t kept = 0, trues = 0;
  for (int r = 0; r < g_repeat; r++) {
    tf = min_d(tf, run_filter_sel(e, batch, &half, &kept));
    te = min_d(te, run_eval_sel(e, batch, &half, &trues));
  }
  if (kept != trues) {
    g_mismatch++;
    fprintf(stderr, "MISMATCH %s filter under a selection: %" PRId64 " rows, bitmap %" PRId64 "\n", k_label[k], kept,
            trues);
  }
  g_sink += (uint64_t)kept;
  bool ok = tf <= te;
  if (!ok) g_miss_sel++;
  double rows = (double)half.count;
  printf("| %-16s | %5.2f%% | %8.1f | %6.2f | %8.1f | %6.2f | %5.2f | %-4s |\n", k_label[k],
         100.0 * (double)kept / rows, rows / tf / 1e6, bytes / tf / 1e9, rows / te / 1e6, bytes / te / 1e9, te / tf,
         ok ? "ok" : "MISS");
  fflush(stdout);
  qv_expr_destroy(e);
  qv_selection_reset(&half);
  qv_array_release(col);
  qv_batch_release(batch);
}

/* A dictionary-encoded string column (int32 indices into DICT_N distinct
 * strings, uniform) against the same rows decoded to a plain string
 * column: `c = s` for one dictionary value (~1/DICT_N of the rows), with
 * qv_eval (bitmap) and qv_eval_filter (selection). */
#define DICT_N 1000
static void bench_dictionary(int64_t n) {
  qv_datatype st = qv_datatype_simple(QV_TYPE_STRING), it = qv_datatype_simple(QV_TYPE_INT32);
  qv_builder bd, bi;
  qv_error err;
  if (qv_builder_init(&bd, &st, &err) != QV_OK || qv_builder_init(&bi, &it, &err) != QV_OK) die("builder", &err);
  char buf[32];
  for (int k = 0; k < DICT_N; k++) {
    int m = snprintf(buf, sizeof buf, "value-%d", k);
    if (qv_builder_append_bytes(&bd, buf, m) != QV_OK) die("append", NULL);
  }
  if (qv_builder_reserve(&bi, n) != QV_OK) die("reserve", NULL);
  for (int64_t i = 0; i < n; i++)
    if (qv_builder_append_int(&bi, (int64_t)(next_rand() % DICT_N)) != QV_OK) die("append", NULL);
  qv_array *dict = NULL, *idx = NULL, *col = NULL, *plain = NULL;
  if (qv_builder_finish(&bd, &dict, &err) != QV_OK || qv_builder_finish(&bi, &idx, &err) != QV_OK) die("finish", &err);
  if (qv_array_dictionary(idx, dict, &col, &err) != QV_OK) die("dictionary", &err);
  if (qv_array_dictionary_decode(col, &plain, &err) != QV_OK) die("decode", &err);
  qv_batch *bs[2] = {one_column(col), one_column(plain)};
  static const char *const label[2] = {"dictionary<int32, string>", "string (same rows decoded)"};
  int64_t counts[2][2];
  for (int w = 0; w < 2; w++) {
    qv_scalar s = QV_SCALAR_INIT;
    if (qv_scalar_string("value-7", 7, &s) != QV_OK) die("scalar", NULL);
    qv_expr *e = compare_node(QV_OP_EQ, bs[w], &s);
    double te = 1e30, tf = 1e30;
    for (int r = 0; r < g_repeat; r++) {
      te = min_d(te, run_eval(e, bs[w], &counts[w][0]));
      tf = min_d(tf, run_filter(e, bs[w], &counts[w][1]));
    }
    printf("| %-26s | %8.1f | %8.1f |\n", label[w], (double)n / te / 1e6, (double)n / tf / 1e6);
    fflush(stdout);
    qv_expr_destroy(e);
  }
  if (counts[0][0] != counts[1][0] || counts[0][1] != counts[0][0] || counts[1][1] != counts[1][0]) {
    g_mismatch++;
    fprintf(stderr, "MISMATCH dictionary: %" PRId64 " / %" PRId64 " rows, plain %" PRId64 " / %" PRId64 "\n",
            counts[0][0], counts[0][1], counts[1][0], counts[1][1]);
  }
  qv_batch_release(bs[0]);
  qv_batch_release(bs[1]);
}

static void bench_filter(kind k, int64_t n) {
  qv_array *col = make_column(k, n);
  qv_batch *batch = one_column(qv_array_retain(col));
  span sp[2];
  int nsp = column_spans(col, sp);
  double bytes = 0;
  for (int j = 0; j < nsp; j++) bytes += (double)sp[j].n;
  qv_scalar s = make_scalar(k, DOMAIN / 100);
  qv_expr *e = compare_node(QV_OP_LT, batch, &s);
  double tf = 1e30, te = 1e30;
  int64_t kept = 0, trues = 0;
  for (int r = 0; r < g_repeat; r++) {
    tf = min_d(tf, run_filter(e, batch, &kept));
    te = min_d(te, run_eval(e, batch, &trues));
  }
  if (kept != trues) {
    g_mismatch++;
    fprintf(stderr, "MISMATCH %s filter: selection %" PRId64 " rows, bitmap %" PRId64 "\n", k_label[k], kept, trues);
  }
  g_sink += (uint64_t)kept;
  bool ok = tf <= te;
  if (!ok) g_miss_sel++;
  printf("| %-16s | %5.2f%% | %8.1f | %6.2f | %8.1f | %6.2f | %5.2f | %-4s |\n", k_label[k],
         100.0 * (double)kept / (double)n, (double)n / tf / 1e6, bytes / tf / 1e9, (double)n / te / 1e6,
         bytes / te / 1e9, te / tf, ok ? "ok" : "MISS");
  fflush(stdout);
  qv_expr_destroy(e);
  qv_array_release(col);
  qv_batch_release(batch);
}

static void print_machine(int argc, char **argv) {
  printf("command:");
  for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
  printf("\n");
  char cpu[256] = "unknown";
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[1024];
    while (fgets(line, sizeof line, f)) {
      if (strncmp(line, "model name", 10) == 0) {
        const char *p = strchr(line, ':');
        if (p) {
          p++;
          while (*p == ' ' || *p == '\t') p++;
          snprintf(cpu, sizeof cpu, "%s", p);
          cpu[strcspn(cpu, "\n")] = 0;
        }
        break;
      }
    }
    fclose(f);
  }
  const char *avx2 = "n/a";
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  avx2 = __builtin_cpu_supports("avx2") ? "yes" : "no";
#endif
  printf("machine: nproc %ld, cpu \"%s\", avx2 %s\n", sysconf(_SC_NPROCESSORS_ONLN), cpu, avx2);
  time_t t = time(NULL);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
#ifdef __VERSION__
  printf("date: %s, compiler: %s\n", date, __VERSION__);
#else
  printf("date: %s\n", date);
#endif
}

static void usage(void) {
  fprintf(stderr, "usage: bench_compare [--rows N] [--repeat K] [--only TYPE]\n  TYPE:");
  for (int k = 0; k < K__N; k++) fprintf(stderr, " %s", k_key[k]);
  fprintf(stderr, "\n");
  exit(2);
}

int main(int argc, char **argv) {
  int64_t n = 10000000;
  int only = -1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc) {
      n = atoll(argv[++i]);
    } else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      g_repeat = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      const char *t = argv[++i];
      for (int k = 0; k < K__N; k++)
        if (strcmp(t, k_key[k]) == 0 || strcmp(t, k_label[k]) == 0) only = k;
      if (only < 0) usage();
    } else {
      usage();
    }
  }
  if (n <= 0 || n > INT32_MAX / 16 || g_repeat <= 0) usage();

  print_machine(argc, argv);
  printf("rows: %" PRId64 ", best of %d; no nulls; values uniform over %u distinct, scalar at the median\n", n,
         g_repeat, DOMAIN);
  printf("GB/s = column bytes read per second (values; offsets + characters for strings); memcpy: bytes copied\n");
  printf("targets: kernel/boxed >= 20x (5x for string); 64-bit types: kernel GB/s >= 0.5 x memcpy GB/s\n\n");

  uint8_t *boxed_out = malloc((size_t)n);
  uint8_t *memdst = malloc((size_t)n * 16 + 64);
  if (!boxed_out || !memdst) die("malloc", NULL);
  memset(boxed_out, 0, (size_t)n); /* fault the pages in before timing */
  memset(memdst, 0, (size_t)n * 16 + 64);

  printf(
      "| type             | op | kernel Mrows/s | kernel GB/s | boxed Mrows/s | boxed GB/s | memcpy GB/s | kernel/boxed "
      "| kernel/memcpy GB/s | targets (boxed, memcpy) |\n");
  printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
  for (int k = 0; k < K__N; k++)
    if (only < 0 || only == k) bench_type((kind)k, n, boxed_out, memdst);

  printf("\nselective filter `c < s`, s chosen so ~1%% of rows pass; target: selection no slower than bitmap\n\n");
  printf(
      "| type             | kept | qv_eval_filter (selection) Mrows/s | GB/s | qv_eval (bitmap) Mrows/s | GB/s | "
      "selection speed / bitmap speed | target |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (int k = 0; k < K__N; k++)
    if (only < 0 || only == k) bench_filter((kind)k, n);

  printf("\nthe same filter under an incoming selection of every other row (rows/s and GB/s of the selected rows)\n\n");
  printf(
      "| type             | kept | qv_eval_filter (selection) Mrows/s | GB/s | qv_eval (bitmap) Mrows/s | GB/s | "
      "selection speed / bitmap speed | target |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (int k = 0; k < K__N; k++)
    if (only < 0 || only == k) bench_filter_sel((kind)k, n);

  if (only < 0 || only == K_STRING) {
    printf("\ndictionary-encoded strings (%d values, uniform), `c = 'value-7'`: Mrows/s\n\n", DICT_N);
    printf("| column | qv_eval (bitmap) | qv_eval_filter (selection) |\n|---|---:|---:|\n");
    bench_dictionary(n);
  }

  printf("\nmisses: kernel/boxed %d, 64-bit vs memcpy %d, selection vs bitmap %d; result mismatches %d\n", g_miss_boxed,
         g_miss_mem, g_miss_sel, g_mismatch);
  fprintf(stderr, "(sink %" PRIu64 ")\n", (uint64_t)g_sink);
  free(boxed_out);
  free(memdst);
  return g_mismatch ? 1 : 0;
}
