/* Comparison kernels: exact expectations for the edge cases, then a
 * property test against a row-at-a-time oracle written here, over every
 * type x operator x float order, column-vs-column and column-vs-scalar
 * (both sides), on sliced arrays, with and without selections. */
#include "compute/compute_test.h"

#include <float.h>

static const qv_op OPS[6] = {QV_OP_EQ, QV_OP_NE, QV_OP_LT, QV_OP_LE, QV_OP_GT, QV_OP_GE};

static qv_expr *cmp(qv_op op, qv_expr *a, qv_expr *b, uint8_t order) {
  qv_expr *e = t_call2(op, "bool", a, b);
  e->sem.float_order = order;
  return e;
}

/* ---- exact cases --------------------------------------------------------------- */

static void test_int_vs_scalar(void **state) {
  (void)state;
  tval v[] = {TI(-5), TN(), TI(0), TI(7), TI(INT64_MAX), TI(INT64_MIN)};
  qv_array *a = t_arr("int64", v, 6);
  qv_batch *b = t_batch(&a, 1);
  const char *want[6] = {"false|null|false|true|false|false", "true|null|true|false|true|true",
                         "true|null|true|false|false|true",   "true|null|true|true|false|true",
                         "false|null|false|false|true|false", "false|null|false|true|true|false"};
  for (int k = 0; k < 6; k++) {
    qv_expr *e = cmp(OPS[k], t_col(b, 0), t_lit("int64", TI(7)), QV_FLOAT_TOTAL);
    t_check(e, b, want[k]);
    qv_expr_destroy(e);
  }
  /* scalar on the left flips the operator */
  qv_expr *e = cmp(QV_OP_LT, t_lit("int64", TI(0)), t_col(b, 0), QV_FLOAT_TOTAL);
  t_check(e, b, "false|null|false|true|true|false");
  qv_expr_destroy(e);
  /* a null literal makes every row null */
  e = cmp(QV_OP_EQ, t_col(b, 0), t_null_lit("int64"), QV_FLOAT_TOTAL);
  t_check(e, b, "null|null|null|null|null|null");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_mixed_width_and_sign(void **state) {
  (void)state;
  tval i8[] = {TI(-128), TI(-1), TI(0), TI(127)};
  tval u64[] = {TI(UINT64_MAX), TI(UINT64_MAX), TI(0), TI(127)};
  tval i64[] = {TI(-1), TI(INT64_MIN), TI(INT64_MAX), TI(0)};
  qv_array *cols[3] = {t_arr("int8", i8, 4), t_arr("uint64", u64, 4), t_arr("int64", i64, 4)};
  qv_batch *b = t_batch(cols, 3);
  qv_expr *e = cmp(QV_OP_LT, t_col(b, 0), t_col(b, 1), 0); /* int8 < uint64 */
  t_check(e, b, "true|true|false|false");
  qv_expr_destroy(e);
  e = cmp(QV_OP_LT, t_col(b, 2), t_col(b, 1), 0); /* int64 -1 < uint64 max */
  t_check(e, b, "true|true|false|true");
  qv_expr_destroy(e);
  e = cmp(QV_OP_EQ, t_col(b, 1), t_col(b, 2), 0);
  t_check(e, b, "false|false|false|false");
  qv_expr_destroy(e);
  /* int8 against literals outside its range */
  e = cmp(QV_OP_LT, t_col(b, 0), t_lit("int64", TI(300)), 0);
  t_check(e, b, "true|true|true|true");
  qv_expr_destroy(e);
  e = cmp(QV_OP_GE, t_col(b, 0), t_lit("int64", TI(-300)), 0);
  t_check(e, b, "true|true|true|true");
  qv_expr_destroy(e);
  e = cmp(QV_OP_EQ, t_col(b, 0), t_lit("uint64", TI(UINT64_MAX)), 0);
  t_check(e, b, "false|false|false|false");
  qv_expr_destroy(e);
  e = cmp(QV_OP_GT, t_col(b, 2), t_lit("uint64", TI((qv_int128)INT64_MAX + 1)), 0);
  t_check(e, b, "false|false|false|false");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_float_orders(void **state) {
  (void)state;
  tval v[] = {TF(NAN), TF(-NAN), TF(-0.0), TF(0.0), TF(-INFINITY), TF(INFINITY), TF(1.0), TN()};
  qv_array *a = t_arr("float64", v, 8);
  qv_batch *b = t_batch(&a, 1);
  struct {
    uint8_t order;
    qv_op op;
    double s;
    const char *want;
  } cases[] = {
      {QV_FLOAT_IEEE, QV_OP_EQ, NAN, "false|false|false|false|false|false|false|null"},
      {QV_FLOAT_IEEE, QV_OP_NE, NAN, "true|true|true|true|true|true|true|null"},
      {QV_FLOAT_IEEE, QV_OP_EQ, 0.0, "false|false|true|true|false|false|false|null"},
      {QV_FLOAT_IEEE, QV_OP_LT, INFINITY, "false|false|true|true|true|false|true|null"},
      {QV_FLOAT_TOTAL, QV_OP_EQ, NAN, "true|false|false|false|false|false|false|null"},
      {QV_FLOAT_TOTAL, QV_OP_LT, -INFINITY, "false|true|false|false|false|false|false|null"},
      {QV_FLOAT_TOTAL, QV_OP_LT, 0.0, "false|true|true|false|true|false|false|null"},
      {QV_FLOAT_TOTAL, QV_OP_GT, INFINITY, "true|false|false|false|false|false|false|null"},
      {QV_FLOAT_POLARS, QV_OP_EQ, NAN, "true|true|false|false|false|false|false|null"},
      {QV_FLOAT_POLARS, QV_OP_EQ, 0.0, "false|false|true|true|false|false|false|null"},
      {QV_FLOAT_POLARS, QV_OP_GT, INFINITY, "true|true|false|false|false|false|false|null"},
      {QV_FLOAT_POLARS, QV_OP_LT, 0.0, "false|false|false|false|true|false|false|null"},
      {QV_FLOAT_JAVA, QV_OP_EQ, NAN, "true|true|false|false|false|false|false|null"},
      {QV_FLOAT_JAVA, QV_OP_LT, 0.0, "false|false|true|false|true|false|false|null"},
      {QV_FLOAT_JAVA, QV_OP_GE, NAN, "true|true|false|false|false|false|false|null"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    qv_expr *e = cmp(cases[k].op, t_col(b, 0), t_lit("float64", TF(cases[k].s)), cases[k].order);
    t_check(e, b, cases[k].want);
    qv_expr_destroy(e);
  }
  qv_batch_release(b);
}

static void test_decimal_scales(void **state) {
  (void)state;
  tval d2[] = {TI(100), TI(101), TI(-100), TN(), TI(99999999)}; /* decimal(10,2): 1.00 1.01 -1.00 null 999999.99 */
  tval d3[] = {TI(1000), TI(1005), TI(-999), TI(0), TI(999999990)};
  qv_array *cols[2] = {t_arr("decimal(10,2)", d2, 5), t_arr("decimal(12,3)", d3, 5)};
  qv_batch *b = t_batch(cols, 2);
  qv_expr *e = cmp(QV_OP_EQ, t_col(b, 0), t_col(b, 1), 0);
  t_check(e, b, "true|false|false|null|true");
  qv_expr_destroy(e);
  e = cmp(QV_OP_LT, t_col(b, 0), t_col(b, 1), 0);
  t_check(e, b, "false|false|true|null|false");
  qv_expr_destroy(e);
  /* 1.005 lies between 1.00 and 1.01 */
  e = cmp(QV_OP_LE, t_col(b, 0), t_lit("decimal(12,3)", TI(1005)), 0);
  t_check(e, b, "true|false|true|null|false");
  qv_expr_destroy(e);
  e = cmp(QV_OP_EQ, t_col(b, 0), t_lit("decimal(12,3)", TI(1005)), 0);
  t_check(e, b, "false|false|false|null|false");
  qv_expr_destroy(e);
  e = cmp(QV_OP_GT, t_col(b, 0), t_lit("decimal(12,3)", TI(-1005)), 0);
  t_check(e, b, "true|true|true|null|true");
  qv_expr_destroy(e);
  /* against an integer literal */
  e = cmp(QV_OP_EQ, t_col(b, 0), t_lit("int64", TI(1)), 0);
  t_check(e, b, "true|false|false|null|false");
  qv_expr_destroy(e);
  /* a 38-digit literal at a finer scale cannot be reached by rescaling */
  qv_int128 big = (qv_int128)1000000000000000000LL * 1000000000000000000LL * 10;
  e = cmp(QV_OP_LT, t_col(b, 1), t_lit("decimal(38,0)", TI(big)), 0);
  t_check(e, b, "true|true|true|true|true");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_temporal(void **state) {
  (void)state;
  tval ms[] = {TI(1000), TI(1001), TI(-1), TI(INT64_MAX), TN()};
  tval us[] = {TI(1000000), TI(1000999), TI(-1000), TI(INT64_MAX), TI(0)};
  tval days[] = {TI(0), TI(1), TI(-1), TI(0), TI(0)};
  qv_array *cols[4] = {t_arr("timestamp[ms]", ms, 5), t_arr("timestamp[us]", us, 5), t_arr("date32", days, 5),
                       t_arr("timestamp[us, UTC]", us, 5)};
  qv_batch *b = t_batch(cols, 4);
  qv_expr *e = cmp(QV_OP_EQ, t_col(b, 0), t_col(b, 1), 0);
  t_check(e, b, "true|false|true|false|null");
  qv_expr_destroy(e);
  e = cmp(QV_OP_GT, t_col(b, 0), t_col(b, 1), 0);
  t_check(e, b, "false|true|false|true|null");
  qv_expr_destroy(e);
  /* 1500 us is between 1 ms and 2 ms */
  e = cmp(QV_OP_LT, t_col(b, 0), t_lit("timestamp[us]", TI(1001500)), 0);
  t_check(e, b, "true|true|true|false|null");
  qv_expr_destroy(e);
  /* date32 against timestamp: day 0 is 0 ms */
  e = cmp(QV_OP_LE, t_col(b, 2), t_col(b, 0), 0);
  t_check(e, b, "true|false|true|true|null");
  qv_expr_destroy(e);
  /* zoned against naive is a type error */
  e = cmp(QV_OP_EQ, t_col(b, 3), t_col(b, 1), 0);
  t_eval_fails(e, b, QV_ERR_TYPE, "time zone");
  qv_expr_destroy(e);
  e = cmp(QV_OP_EQ, t_col(b, 0), t_lit("string", TS("x")), 0);
  t_eval_fails(e, b, QV_ERR_TYPE, "cannot compare timestamp[ms] with string");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_strings_and_bools(void **state) {
  (void)state;
  char longs[301];
  memset(longs, 'q', 300);
  longs[300] = '\0';
  tval s[] = {TS(""), TS("a"), TS("ab"), TS("b"), TN(), TS(longs), TS("\xc3\xa9")};
  tval bo[] = {TI(1), TI(0), TN(), TI(1), TI(0), TI(1), TI(0)};
  qv_array *cols[2] = {t_arr("string", s, 7), t_arr("bool", bo, 7)};
  qv_batch *b = t_batch(cols, 2);
  qv_expr *e = cmp(QV_OP_LT, t_col(b, 0), t_lit("string", TS("ab")), 0);
  t_check(e, b, "true|true|false|false|null|false|false");
  qv_expr_destroy(e);
  e = cmp(QV_OP_EQ, t_col(b, 0), t_lit("string", TS(longs)), 0);
  t_check(e, b, "false|false|false|false|null|true|false");
  qv_expr_destroy(e);
  e = cmp(QV_OP_GE, t_col(b, 0), t_col(b, 0), 0);
  t_check(e, b, "true|true|true|true|null|true|true");
  qv_expr_destroy(e);
  e = cmp(QV_OP_LT, t_col(b, 1), t_lit("bool", TI(1)), 0);
  t_check(e, b, "false|true|null|false|true|false|true");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_between(void **state) {
  (void)state;
  tval v[] = {TI(1), TI(5), TI(10), TN(), TI(-3), TI(11)};
  tval f[] = {TF(NAN), TF(-0.0), TF(2.5), TN(), TF(-INFINITY), TF(10.0)};
  qv_array *cols[2] = {t_arr("int32", v, 6), t_arr("float64", f, 6)};
  qv_batch *b = t_batch(cols, 2);
  qv_expr *e = t_call3(QV_OP_BETWEEN, "bool", t_col(b, 0), t_lit("int64", TI(1)), t_lit("int64", TI(10)));
  t_check(e, b, "true|true|true|null|false|false");
  qv_expr_destroy(e);
  /* bounds beyond int32 clamp */
  e = t_call3(QV_OP_BETWEEN, "bool", t_col(b, 0), t_lit("int64", TI(INT64_MIN)), t_lit("int64", TI(5)));
  t_check(e, b, "true|true|false|null|true|false");
  qv_expr_destroy(e);
  /* a null bound: false where the other bound already fails, else null */
  e = t_call3(QV_OP_BETWEEN, "bool", t_col(b, 0), t_null_lit("int32"), t_lit("int32", TI(5)));
  t_check(e, b, "null|null|false|null|null|false");
  qv_expr_destroy(e);
  e = t_call3(QV_OP_BETWEEN, "bool", t_col(b, 1), t_lit("float64", TF(0.0)), t_lit("float64", TF(NAN)));
  e->sem.float_order = QV_FLOAT_TOTAL; /* -0.0 < 0.0 and NaN is the largest */
  t_check(e, b, "true|false|true|null|false|true");
  qv_expr_destroy(e);
  e = t_call3(QV_OP_BETWEEN, "bool", t_col(b, 1), t_lit("float64", TF(0.0)), t_lit("float64", TF(NAN)));
  e->sem.float_order = QV_FLOAT_IEEE;
  t_check(e, b, "false|false|false|null|false|false");
  qv_expr_destroy(e);
  e = t_call3(QV_OP_BETWEEN, "bool", t_col(b, 1), t_lit("float64", TF(0.0)), t_lit("float64", TF(10.0)));
  e->sem.float_order = QV_FLOAT_POLARS;
  t_check(e, b, "false|true|true|null|false|true");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

/* ---- the oracle ---------------------------------------------------------------- */

typedef struct ptype {
  const char *a, *b; /* column types */
} ptype;

static int sign3(qv_int128 x, qv_int128 y) { return (x > y) - (x < y); }

static int64_t unit_ns(const qv_datatype *t) {
  if (t->id == QV_TYPE_DATE32) return 86400LL * 1000000000LL;
  static const int64_t f[] = {1000000000LL, 1000000LL, 1000LL, 1LL};
  return f[t->unit];
}

static double fval(const qv_datatype *t, tval v) { return t->id == QV_TYPE_FLOAT32 ? (double)(float)v.f : v.f; }

/* Total order the textbook way: flip all bits of negatives, set the sign
 * bit of positives, compare unsigned. */
static int total_cmp(double a, double b) {
  uint64_t x, y;
  memcpy(&x, &a, 8);
  memcpy(&y, &b, 8);
  x = (x >> 63) ? ~x : x | (UINT64_C(1) << 63);
  y = (y >> 63) ? ~y : y | (UINT64_C(1) << 63);
  return (x > y) - (x < y);
}

/* -1 null, 0 false, 1 true */
static int oracle(const qv_datatype *ta, tval a, const qv_datatype *tb, tval b, qv_op op, uint8_t order) {
  if (a.null || b.null) return -1;
  int c = 0;
  qv_type_id x = ta->id;
  if (x == QV_TYPE_FLOAT32 || x == QV_TYPE_FLOAT64) {
    double p = fval(ta, a), q = fval(tb, b);
    switch (order) {
      case QV_FLOAT_IEEE:
        if (isnan(p) || isnan(q)) return op == QV_OP_NE;
        c = (p > q) - (p < q);
        break;
      case QV_FLOAT_TOTAL: c = total_cmp(p, q); break;
      default:
        if (isnan(p) || isnan(q)) c = isnan(p) - isnan(q);
        else if (order == QV_FLOAT_JAVA && p == 0 && q == 0) c = (int)(signbit(q) != 0) - (int)(signbit(p) != 0);
        else c = (p > q) - (p < q);
        break;
    }
  } else if (x == QV_TYPE_STRING || x == QV_TYPE_BINARY) {
    size_t la = a.slen < 0 ? strlen(a.s) : (size_t)a.slen, lb = b.slen < 0 ? strlen(b.s) : (size_t)b.slen;
    int m = memcmp(a.s, b.s, la < lb ? la : lb);
    c = m ? (m > 0) - (m < 0) : (la > lb) - (la < lb);
  } else if (x == QV_TYPE_DECIMAL128 || tb->id == QV_TYPE_DECIMAL128) {
    int sa = x == QV_TYPE_DECIMAL128 ? ta->scale : 0, sb = tb->id == QV_TYPE_DECIMAL128 ? tb->scale : 0;
    qv_int128 p = a.i, q = b.i;
    for (int k = sa; k < sb; k++) p *= 10;
    for (int k = sb; k < sa; k++) q *= 10;
    c = sign3(p, q);
  } else if (qv_type_is_temporal(x)) {
    c = sign3(a.i * unit_ns(ta), b.i * unit_ns(tb));
  } else {
    c = sign3(a.i, b.i);
  }
  switch (op) {
    case QV_OP_EQ: return c == 0;
    case QV_OP_NE: return c != 0;
    case QV_OP_LT: return c < 0;
    case QV_OP_LE: return c <= 0;
    case QV_OP_GT: return c > 0;
    default: return c >= 0;
  }
}

/* ---- generators ------------------------------------------------------------------- */

static char g_long[600];

static tval gen(const qv_datatype *t, uint64_t *rs) {
  uint64_t r = t_rand(rs);
  if (r % 9 == 0) return TN();
  r /= 9;
  int pick = (int)(r % 16);
  r /= 16;
  switch (t->id) {
    case QV_TYPE_BOOL: return TI(r & 1);
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64: {
      double nanp;
      uint64_t bits = UINT64_C(0x7ff8000000000123);
      memcpy(&nanp, &bits, 8);
      double e[] = {NAN,
                    -NAN,
                    -0.0,
                    0.0,
                    INFINITY,
                    -INFINITY,
                    1.0,
                    -1.0,
                    0.1,
                    DBL_MAX,
                    -DBL_MAX,
                    5e-324,
                    t->id == QV_TYPE_FLOAT64 ? nanp : 2.5,
                    3.0,
                    (double)(int)(r % 5) - 2,
                    16777217.0};
      return TF(e[pick]);
    }
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: {
      const char *e[] = {"",  "a",     "ab", "abc",  "b",        "ba",  "\xc3\xa9", "\xc3\xa9t\xc3\xa9",
                         "A", "a\x01", "zz", g_long, g_long + 1, "abd", "aa",       "b"};
      return TS(e[pick]);
    }
    case QV_TYPE_DECIMAL128: {
      qv_int128 big = (qv_int128)1000000000000000LL * 1000000000000000LL;
      qv_int128 e[] = {0, 1, -1, 100, 1000, -1000, 12345, -12345, big, -big, 99, 100000, 10, 5, -5, 123450};
      return TI(e[pick]);
    }
    default: break;
  }
  /* integers and temporals: type edges and small values */
  qv_int128 lo, hi;
  switch (t->id) {
    case QV_TYPE_INT8:
      lo = INT8_MIN;
      hi = INT8_MAX;
      break;
    case QV_TYPE_INT16:
      lo = INT16_MIN;
      hi = INT16_MAX;
      break;
    case QV_TYPE_INT32:
    case QV_TYPE_DATE32:
      lo = INT32_MIN;
      hi = INT32_MAX;
      break;
    case QV_TYPE_UINT8:
      lo = 0;
      hi = UINT8_MAX;
      break;
    case QV_TYPE_UINT16:
      lo = 0;
      hi = UINT16_MAX;
      break;
    case QV_TYPE_UINT32:
      lo = 0;
      hi = UINT32_MAX;
      break;
    case QV_TYPE_UINT64:
      lo = 0;
      hi = UINT64_MAX;
      break;
    default:
      lo = INT64_MIN;
      hi = INT64_MAX;
      break;
  }
  qv_int128 v;
  switch (pick) {
    case 0: v = lo; break;
    case 1: v = hi; break;
    case 2: v = lo + 1; break;
    case 3: v = hi - 1; break;
    case 4: v = (qv_int128)INT64_MAX; break;
    case 5: v = (qv_int128)INT64_MAX + 1; break;
    case 6: v = 1000; break;
    case 7: v = 1000000; break;
    case 8: v = -1000; break;
    default: v = (qv_int128)(r % 7) - 3; break;
  }
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return TI(v);
}

#define N 203
#define PAD 5

static void check_one(qv_expr *e, const qv_batch *b, const qv_datatype *ta, const tval *va, const qv_datatype *tb,
                      const tval *vb, bool scalar_b, bool flipped, qv_op op, uint8_t order, uint64_t *rs) {
  qv_array *r = t_eval(e, b, NULL);
  for (int64_t i = 0; i < N; i++) {
    tval x = va[i], y = scalar_b ? vb[0] : vb[i];
    int want = flipped ? oracle(tb, y, ta, x, op, order) : oracle(ta, x, tb, y, op, order);
    int got = qv_array_is_valid(r, i) ? qv_bit_get(r->buffers[1]->data, r->offset + i) : -1;
    if (!qv_array_is_valid(r, i) && qv_bit_get(r->buffers[1]->data, r->offset + i))
      fail_msg("value bit set under a null at row %lld", (long long)i);
    if (got != want) {
      char t1[64], t2[64];
      qv_datatype_format(ta, t1, sizeof t1);
      qv_datatype_format(tb, t2, sizeof t2);
      char xs[128], ys[128];
      qv_array_format_value(b->columns[0], i, xs, sizeof xs);
      if (scalar_b) snprintf(ys, sizeof ys, "(scalar)");
      else qv_array_format_value(b->columns[1], i, ys, sizeof ys);
      fail_msg("%s %s %s (order %d, %s%s) row %lld: %s vs %s: got %d want %d", t1, qv_op_name(op), t2, order,
               scalar_b ? "scalar" : "column", flipped ? ", flipped" : "", (long long)i, xs, ys, got, want);
    }
  }
  /* a random selection gives the subset of the full result */
  qv_selection sel = QV_SELECTION_INIT;
  assert_int_equal(qv_selection_reserve(&sel, N), QV_OK);
  for (int64_t i = 0; i < N; i++)
    if (t_rand(rs) % 3 == 0) sel.rows[sel.count++] = (uint32_t)i;
  qv_array *rs_ = t_eval(e, b, &sel);
  for (int64_t k = 0; k < sel.count; k++) {
    int64_t i = sel.rows[k];
    assert_int_equal(qv_array_is_valid(rs_, k), qv_array_is_valid(r, i));
    assert_int_equal(qv_bit_get(rs_->buffers[1]->data, rs_->offset + k),
                     qv_bit_get(r->buffers[1]->data, r->offset + i));
  }
  qv_array_release(rs_);
  /* the filter (fused comparison -> selection) keeps exactly the TRUE rows,
   * on all rows and under the selection */
  for (int with_sel = 0; with_sel < 2; with_sel++) {
    qv_selection got = QV_SELECTION_INIT;
    qv_error err = {0};
    if (qv_eval_filter(e, b, with_sel ? &sel : NULL, &got, &err) != QV_OK) fail_msg("filter: %s", err.message);
    int64_t m = with_sel ? sel.count : N, j = 0;
    for (int64_t q = 0; q < m; q++) {
      int64_t i = with_sel ? sel.rows[q] : q;
      tval x = va[i], y = scalar_b ? vb[0] : vb[i];
      int want = flipped ? oracle(tb, y, ta, x, op, order) : oracle(ta, x, tb, y, op, order);
      if (want != 1) continue;
      if (j >= got.count || got.rows[j] != (uint32_t)i)
        fail_msg("%s filter (order %d, %s, sel %d): row %lld missing or out of order", qv_op_name(op), order,
                 scalar_b ? "scalar" : "column", with_sel, (long long)i);
      j++;
    }
    assert_int_equal(j, got.count);
    qv_selection_reset(&got);
  }
  qv_selection_reset(&sel);
  qv_array_release(r);
}

static void run_pair(const char *type_a, const char *type_b, uint64_t seed) {
  qv_datatype ta = t_type(type_a), tb = t_type(type_b);
  uint64_t rs = seed;
  tval va[N + PAD], vb[N + PAD];
  for (int i = 0; i < N + PAD; i++) {
    va[i] = gen(&ta, &rs);
    vb[i] = gen(&tb, &rs);
  }
  /* sliced arrays exercise offsets in values and validity bits */
  qv_array *fa = t_build(&ta, va, N + PAD), *fb = t_build(&tb, vb, N + PAD), *cols[2];
  assert_int_equal(qv_array_slice(fa, PAD, N, &cols[0], NULL), QV_OK);
  assert_int_equal(qv_array_slice(fb, PAD, N, &cols[1], NULL), QV_OK);
  qv_array_release(fa);
  qv_array_release(fb);
  qv_batch *b = t_batch(cols, 2);
  bool floats = qv_type_is_floating(ta.id);
  for (uint8_t order = 0; order < (floats ? 4 : 1); order++) {
    for (int k = 0; k < 6; k++) {
      qv_expr *e = cmp(OPS[k], t_col(b, 0), t_col(b, 1), order);
      check_one(e, b, &ta, va + PAD, &tb, vb + PAD, false, false, OPS[k], order, &rs);
      qv_expr_destroy(e);
      for (int s = 0; s < 6; s++) { /* a few scalars, including nulls */
        tval sv = vb[t_rand(&rs) % (N + PAD)];
        e = cmp(OPS[k], t_col(b, 0), t_lit(type_b, sv), order);
        check_one(e, b, &ta, va + PAD, &tb, &sv, true, false, OPS[k], order, &rs);
        qv_expr_destroy(e);
        e = cmp(OPS[k], t_lit(type_b, sv), t_col(b, 0), order);
        check_one(e, b, &ta, va + PAD, &tb, &sv, true, true, OPS[k], order, &rs);
        qv_expr_destroy(e);
      }
    }
  }
  qv_batch_release(b);
  qv_datatype_reset(&ta);
  qv_datatype_reset(&tb);
}

static void test_property_all_types(void **state) {
  (void)state;
  memset(g_long, 'x', sizeof g_long - 1);
  g_long[sizeof g_long - 1] = '\0';
  static const ptype pairs[] = {
      {"int8", "int8"},
      {"int16", "int16"},
      {"int32", "int32"},
      {"int64", "int64"},
      {"uint8", "uint8"},
      {"uint16", "uint16"},
      {"uint32", "uint32"},
      {"uint64", "uint64"},
      {"float32", "float32"},
      {"float64", "float64"},
      {"float32", "float64"},
      {"float64", "float32"},
      {"decimal(38,2)", "decimal(38,2)"},
      {"decimal(38,2)", "decimal(38,5)"},
      {"decimal(38,4)", "int64"},
      {"decimal(38,0)", "uint64"},
      {"string", "string"},
      {"binary", "binary"},
      {"bool", "bool"},
      {"date32", "date32"},
      {"timestamp[ms]", "timestamp[ms]"},
      {"timestamp[ms]", "timestamp[ns]"},
      {"timestamp[s]", "timestamp[us]"},
      {"timestamp[us, UTC]", "timestamp[ns, +05:00]"},
      {"date32", "timestamp[s]"},
      {"timestamp[ns]", "date32"},
      {"time64[us]", "time64[ns]"},
      {"duration[s]", "duration[ms]"},
      {"int8", "uint64"},
      {"int64", "uint64"},
      {"uint64", "int64"},
      {"int32", "uint32"},
      {"int16", "int64"},
      {"uint8", "int8"},
      {"uint16", "int32"},
  };
  for (uint64_t seed = 0; seed < 3; seed++)
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
      run_pair(pairs[k].a, pairs[k].b, 0x9E3779B97F4A7C15ULL * (seed + 1) + k);
}

/* ---- the filter's fused path against the bitmap path, across blocks ---------- */

/* The rows of sel (or all) where the bool array r (one value per row of
 * the evaluation) is TRUE. */
static void true_rows(const qv_array *r, const qv_selection *sel, qv_selection *out) {
  out->count = 0;
  assert_int_equal(qv_selection_reserve(out, r->length + 1), QV_OK);
  for (int64_t k = 0; k < r->length; k++)
    if (qv_array_is_valid(r, k) && qv_bit_get(r->buffers[1]->data, r->offset + k))
      out->rows[out->count++] = sel ? sel->rows[k] : (uint32_t)k;
}

static void filter_vs_bitmap(const qv_expr *e, const qv_batch *b, const qv_selection *sel, const char *what) {
  qv_array *r = t_eval(e, b, sel);
  qv_selection want = QV_SELECTION_INIT, got = QV_SELECTION_INIT;
  true_rows(r, sel, &want);
  qv_error err = {0};
  if (qv_eval_filter(e, b, sel, &got, &err) != QV_OK) fail_msg("%s: filter: %s", what, err.message);
  if (got.count != want.count)
    fail_msg("%s: filter kept %lld rows, bitmap %lld", what, (long long)got.count, (long long)want.count);
  for (int64_t k = 0; k < got.count; k++)
    if (got.rows[k] != want.rows[k])
      fail_msg("%s: row %lld is %u, bitmap %u", what, (long long)k, got.rows[k], want.rows[k]);
  qv_selection_reset(&want);
  qv_selection_reset(&got);
  qv_array_release(r);
}

#define BIG 5003 /* > 2 blocks of 2,048 rows, not a multiple of 64 */

static void test_filter_blocks(void **state) {
  (void)state;
  memset(g_long, 'x', sizeof g_long - 1);
  g_long[sizeof g_long - 1] = '\0';
  static const char *const types[] = {"int8",          "int16",         "int32",  "int64",         "uint8",
                                      "uint16",        "uint32",        "uint64", "float32",       "float64",
                                      "decimal(38,2)", "decimal(18,0)", "date32", "timestamp[us]", "timestamp[ns, UTC]",
                                      "time64[ns]",    "duration[ms]",  "string", "binary",        "bool"};
  static const char *const other[] = {"int64", "uint64", "float64", "decimal(38,3)", "timestamp[ms]"};
  uint64_t rs = 0x5eed;
  static tval v[BIG + 7], w[BIG + 7];
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    qv_datatype ty = t_type(types[t]);
    for (int i = 0; i < BIG + 7; i++) {
      v[i] = gen(&ty, &rs);
      w[i] = gen(&ty, &rs);
    }
    if (t == 0) /* one column without nulls: the kernels skip validity */
      for (int i = 0; i < BIG + 7; i++)
        if (v[i].null) v[i] = TI(3);
    qv_array *fa = t_build(&ty, v, BIG + 7), *fb = t_build(&ty, w, BIG + 7), *cols[2];
    assert_int_equal(qv_array_slice(fa, 7, BIG, &cols[0], NULL), QV_OK);
    assert_int_equal(qv_array_slice(fb, 7, BIG, &cols[1], NULL), QV_OK);
    qv_array_release(fa);
    qv_array_release(fb);
    qv_batch *b = t_batch(cols, 2);
    qv_selection dense = QV_SELECTION_INIT, sparse = QV_SELECTION_INIT;
    assert_int_equal(qv_selection_reserve(&dense, BIG), QV_OK);
    assert_int_equal(qv_selection_reserve(&sparse, BIG), QV_OK);
    for (int i = 0; i < BIG; i++) {
      uint64_t r = t_rand(&rs) % 100;
      if (r < 60) dense.rows[dense.count++] = (uint32_t)i;
      if (r < 2) sparse.rows[sparse.count++] = (uint32_t)i;
    }
    const qv_selection *sels[3] = {NULL, &dense, &sparse};
    bool floats = qv_type_is_floating(ty.id);
    for (uint8_t order = 0; order < (floats ? 4 : 1); order++) {
      for (int k = 0; k < 6; k++) {
        for (int c = 0; c < 5; c++) {
          qv_expr *e;
          char what[160];
          if (c == 0) {
            e = cmp(OPS[k], t_col(b, 0), t_col(b, 1), order);
            snprintf(what, sizeof what, "%s %s column (order %d)", types[t], qv_op_name(OPS[k]), order);
          } else if (c == 4) { /* a scalar of another type: rescaled, widened or refused alike */
            const char *ot = other[t % 5];
            qv_datatype oty = t_type(ot);
            tval sv = gen(&oty, &rs);
            qv_datatype_reset(&oty);
            e = cmp(OPS[k], t_lit(ot, sv), t_col(b, 0), order);
            snprintf(what, sizeof what, "%s %s %s scalar (order %d)", types[t], qv_op_name(OPS[k]), ot, order);
            qv_array *r = NULL;
            qv_error err = {0};
            qv_status st = qv_eval(e, b, NULL, &r, &err);
            qv_array_release(r);
            if (st != QV_OK) { /* the filter must refuse it the same way */
              qv_selection got = QV_SELECTION_INIT;
              qv_error err2 = {0};
              assert_int_equal(qv_eval_filter(e, b, NULL, &got, &err2), st);
              assert_string_equal(err2.message, err.message);
              qv_selection_reset(&got);
              qv_expr_destroy(e);
              continue;
            }
          } else {
            tval sv = c == 3 ? TN() : v[7 + t_rand(&rs) % BIG];
            e = cmp(OPS[k], t_col(b, 0), t_lit(types[t], sv), order);
            snprintf(what, sizeof what, "%s %s scalar %d (order %d)", types[t], qv_op_name(OPS[k]), c, order);
          }
          for (int s = 0; s < 3; s++) filter_vs_bitmap(e, b, sels[s], what);
          qv_expr_destroy(e);
        }
      }
    }
    qv_selection_reset(&dense);
    qv_selection_reset(&sparse);
    qv_batch_release(b);
    qv_datatype_reset(&ty);
  }
}

/* ---- dictionary-encoded columns ------------------------------------------------ */

/* Evaluates e over b1 and e2 over b2 and requires the same values. */
static void same_result(const qv_expr *e, const qv_batch *b1, const qv_expr *e2, const qv_batch *b2,
                        const qv_selection *sel, const char *what) {
  qv_array *r1 = t_eval(e, b1, sel), *r2 = t_eval(e2, b2, sel);
  for (int64_t i = 0; i < r1->length; i++) {
    char x[512], y[512];
    qv_array_format_value(r1, i, x, sizeof x);
    qv_array_format_value(r2, i, y, sizeof y);
    if (strcmp(x, y) != 0) fail_msg("%s: row %lld: dictionary '%s', plain '%s'", what, (long long)i, x, y);
  }
  qv_array_release(r1);
  qv_array_release(r2);
  filter_vs_bitmap(e, b1, sel, what);
}

#define DICT 17

/* A dictionary column (index type itype) whose dictionary holds nulls, and
 * some null rows, against the oracle on its decoded values, and IN,
 * BETWEEN, IS NULL against the same nodes on the plain column. */
static void run_dict(const char *type, const char *itype, uint64_t seed) {
  qv_datatype ty = t_type(type);
  uint64_t rs = seed;
  tval dv[DICT + 2], iv[N + PAD], rows[N], other[N + PAD];
  for (int k = 0; k < DICT + 2; k++) dv[k] = gen(&ty, &rs);
  dv[2 + 3] = TN(); /* a null entry that rows use */
  for (int i = 0; i < N + PAD; i++) {
    iv[i] = t_rand(&rs) % 8 == 0 ? TN() : TI((qv_int128)(t_rand(&rs) % DICT));
    other[i] = gen(&ty, &rs);
  }
  for (int i = 0; i < N; i++) rows[i] = iv[PAD + i].null ? TN() : dv[2 + (int)iv[PAD + i].i];
  /* sliced indices and a sliced dictionary */
  qv_array *fi = t_arr(itype, iv, N + PAD), *fd = t_build(&ty, dv, DICT + 2), *fo = t_build(&ty, other, N + PAD);
  qv_array *idx = NULL, *dict = NULL, *col = NULL, *plain = NULL, *oth = NULL;
  assert_int_equal(qv_array_slice(fi, PAD, N, &idx, NULL), QV_OK);
  assert_int_equal(qv_array_slice(fd, 2, DICT, &dict, NULL), QV_OK);
  assert_int_equal(qv_array_slice(fo, PAD, N, &oth, NULL), QV_OK);
  qv_array_release(fi);
  qv_array_release(fd);
  qv_array_release(fo);
  qv_error err = {0};
  if (qv_array_dictionary(idx, dict, &col, &err) != QV_OK) fail_msg("dictionary: %s", err.message);
  assert_int_equal(qv_array_dictionary_decode(col, &plain, NULL), QV_OK);
  qv_array *c1[2] = {col, qv_array_retain(oth)}, *c2[2] = {plain, oth};
  qv_batch *b = t_batch(c1, 2), *bp = t_batch(c2, 2);
  qv_selection sel = QV_SELECTION_INIT;
  assert_int_equal(qv_selection_reserve(&sel, N), QV_OK);
  for (int i = 0; i < N; i++)
    if (t_rand(&rs) % 3) sel.rows[sel.count++] = (uint32_t)i;
  bool floats = qv_type_is_floating(ty.id);
  for (uint8_t order = 0; order < (floats ? 4 : 1); order++) {
    for (int k = 0; k < 6; k++) {
      qv_expr *e = cmp(OPS[k], t_col(b, 0), t_col(b, 1), order); /* against a plain column: decoded */
      check_one(e, b, &ty, rows, &ty, other + PAD, false, false, OPS[k], order, &rs);
      qv_expr_destroy(e);
      for (int s = 0; s < 4; s++) {
        tval sv = s == 3 ? TN() : dv[2 + t_rand(&rs) % DICT];
        e = cmp(OPS[k], t_col(b, 0), t_lit(type, sv), order);
        check_one(e, b, &ty, rows, &ty, &sv, true, false, OPS[k], order, &rs);
        qv_expr_destroy(e);
        e = cmp(OPS[k], t_lit(type, sv), t_col(b, 0), order);
        check_one(e, b, &ty, rows, &ty, &sv, true, true, OPS[k], order, &rs);
        qv_expr_destroy(e);
      }
    }
    /* IN (with and without a null in the list, both null semantics) and
     * BETWEEN give what they give on the plain column */
    for (int nulls_equal = 0; nulls_equal < 2; nulls_equal++) {
      for (int with_null = 0; with_null < 2; with_null++) {
        qv_expr *items[4];
        qv_expr *items2[4];
        for (int q = 0; q < 4; q++) {
          tval sv = q == 3 && with_null ? TN() : dv[2 + t_rand(&rs) % DICT];
          items[q] = t_lit(type, sv);
          items2[q] = t_lit(type, sv);
        }
        qv_expr *a1[5] = {t_col(b, 0), items[0], items[1], items[2], items[3]};
        qv_expr *a2[5] = {t_col(bp, 0), items2[0], items2[1], items2[2], items2[3]};
        qv_expr *e = t_calln(QV_OP_IN, "bool", 5, a1), *e2 = t_calln(QV_OP_IN, "bool", 5, a2);
        e->sem.float_order = e2->sem.float_order = order;
        e->sem.in_nulls_equal = e2->sem.in_nulls_equal = nulls_equal != 0;
        char what[128];
        snprintf(what, sizeof what, "%s dictionary IN (order %d, nulls_equal %d, null %d)", type, order, nulls_equal,
                 with_null);
        same_result(e, b, e2, bp, NULL, what);
        same_result(e, b, e2, bp, &sel, what);
        qv_expr_destroy(e);
        qv_expr_destroy(e2);
      }
    }
    for (int q = 0; q < 4; q++) {
      tval lo = q == 3 ? TN() : dv[2 + t_rand(&rs) % DICT], hi = dv[2 + t_rand(&rs) % DICT];
      qv_expr *e = t_call3(QV_OP_BETWEEN, "bool", t_col(b, 0), t_lit(type, lo), t_lit(type, hi));
      qv_expr *e2 = t_call3(QV_OP_BETWEEN, "bool", t_col(bp, 0), t_lit(type, lo), t_lit(type, hi));
      e->sem.float_order = e2->sem.float_order = order;
      char what[128];
      snprintf(what, sizeof what, "%s dictionary BETWEEN (order %d, case %d)", type, order, q);
      same_result(e, b, e2, bp, NULL, what);
      same_result(e, b, e2, bp, &sel, what);
      qv_expr_destroy(e);
      qv_expr_destroy(e2);
    }
  }
  qv_expr *e = t_call1(QV_OP_IS_NULL, "bool", t_col(b, 0)), *e2 = t_call1(QV_OP_IS_NULL, "bool", t_col(bp, 0));
  same_result(e, b, e2, bp, &sel, "dictionary IS NULL");
  qv_expr_destroy(e);
  qv_expr_destroy(e2);
  qv_selection_reset(&sel);
  qv_batch_release(b);
  qv_batch_release(bp);
  qv_datatype_reset(&ty);
}

static void test_dictionary_columns(void **state) {
  (void)state;
  memset(g_long, 'x', sizeof g_long - 1);
  g_long[sizeof g_long - 1] = '\0';
  static const char *const types[] = {"int8",
                                      "int16",
                                      "int32",
                                      "int64",
                                      "uint8",
                                      "uint16",
                                      "uint32",
                                      "uint64",
                                      "float32",
                                      "float64",
                                      "decimal(38,2)",
                                      "string",
                                      "binary",
                                      "bool",
                                      "date32",
                                      "timestamp[ms]",
                                      "timestamp[us, UTC]",
                                      "time64[ns]",
                                      "duration[s]"};
  static const char *const itypes[] = {"int32", "uint8", "int16", "uint32", "int64", "uint64", "int8", "uint16"};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) run_dict(types[t], itypes[t % 8], 0xD1C7ULL * (t + 1));
}

/* A row whose dictionary entry is null is null, never the empty value the
 * entry's unused slot holds; a null row never matches. */
static void test_dictionary_nulls(void **state) {
  (void)state;
  tval d[] = {TS("a"), TN(), TS(""), TS("b")};
  tval ix[] = {TI(0), TI(1), TI(2), TN(), TI(3), TI(1)};
  qv_array *col = NULL;
  assert_int_equal(qv_array_dictionary(t_arr("int32", ix, 6), t_arr("string", d, 4), &col, NULL), QV_OK);
  qv_batch *b = t_batch(&col, 1);
  qv_expr *e = cmp(QV_OP_EQ, t_col(b, 0), t_lit("string", TS("")), 0);
  t_check(e, b, "false|null|true|null|false|null");
  t_filter(e, b, NULL, "2");
  qv_expr_destroy(e);
  e = t_call1(QV_OP_IS_NULL, "bool", t_col(b, 0));
  t_check(e, b, "false|true|false|true|false|true");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_IN, "bool", t_col(b, 0), t_lit("string", TS("b")));
  t_check(e, b, "false|null|false|null|true|null");
  qv_expr_destroy(e);
  e = cmp(QV_OP_LT, t_col(b, 0), t_col(b, 0), 0); /* column against column: decoded */
  t_check(e, b, "false|null|false|null|false|null");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_int_vs_scalar),    cmocka_unit_test(test_mixed_width_and_sign),
      cmocka_unit_test(test_float_orders),     cmocka_unit_test(test_decimal_scales),
      cmocka_unit_test(test_temporal),         cmocka_unit_test(test_strings_and_bools),
      cmocka_unit_test(test_between),          cmocka_unit_test(test_property_all_types),
      cmocka_unit_test(test_filter_blocks),    cmocka_unit_test(test_dictionary_columns),
      cmocka_unit_test(test_dictionary_nulls),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
