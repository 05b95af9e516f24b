/* Fuzz target for the compare kernels: the input chooses a pair of column
 * types, an operator, a float order, column-vs-column or column-vs-scalar,
 * a selection, and the raw bytes of the values (any bit pattern: NaN
 * payloads, extreme integers, arbitrary bytes in binary columns).  Every
 * result row is checked against a plain row-at-a-time oracle; a mismatch
 * aborts.  Also runs qv_eval_filter and checks it keeps exactly the TRUE
 * rows, in order.  With flag 8 the first column is dictionary-encoded: its
 * values become the dictionary, rows pick entries by a derived index, and
 * every fifth row has a null index.
 *
 * Layout: [type pair][op][order][flags][values...], values consumed per
 * row and column: a null byte, then the type's width in raw bytes (strings:
 * a length byte then that many bytes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/compute.h"

static const char *const PAIRS[][2] = {
    {"int8", "int8"},
    {"int32", "int32"},
    {"int64", "int64"},
    {"uint64", "uint64"},
    {"int64", "uint64"},
    {"uint8", "int16"},
    {"int8", "uint32"},
    {"float32", "float32"},
    {"float64", "float64"},
    {"float32", "float64"},
    {"string", "string"},
    {"binary", "binary"},
    {"bool", "bool"},
    {"date32", "date32"},
    {"timestamp[ms]", "timestamp[us]"},
    {"decimal(38,2)", "decimal(38,4)"},
    {"decimal(20,3)", "int32"},
};
#define N_PAIRS (sizeof PAIRS / sizeof PAIRS[0])
#define MAX_ROWS 300

typedef struct val {
  bool null;
  qv_int128 i;
  double f;
  uint8_t s[32];
  int len;
} val;

typedef struct reader {
  const uint8_t *p;
  size_t n;
} reader;

static bool take(reader *r, void *dst, size_t k) {
  if (r->n < k) return false;
  memcpy(dst, r->p, k);
  r->p += k;
  r->n -= k;
  return true;
}

static bool read_val(reader *r, const qv_datatype *t, val *v) {
  uint8_t nb;
  memset(v, 0, sizeof *v);
  if (!take(r, &nb, 1)) return false;
  v->null = (nb & 7) == 0;
  switch (t->id) {
    case QV_TYPE_BOOL: v->i = nb >> 7; return true;
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: {
      uint8_t len;
      if (!take(r, &len, 1)) return false;
      v->len = len % 32;
      if (!take(r, v->s, (size_t)v->len)) return false;
      if (t->id == QV_TYPE_STRING)
        for (int k = 0; k < v->len; k++) v->s[k] &= 0x7f; /* keep it valid UTF-8 */
      return true;
    }
    case QV_TYPE_FLOAT32: {
      float f;
      if (!take(r, &f, 4)) return false;
      v->f = f;
      return true;
    }
    case QV_TYPE_FLOAT64: return take(r, &v->f, 8);
    case QV_TYPE_DECIMAL128: {
      int64_t x; /* stay well inside 38 digits so the oracle can rescale */
      if (!take(r, &x, 8)) return false;
      v->i = x;
      return true;
    }
    default: break;
  }
  int w = qv_type_byte_width(t->id);
  uint64_t raw = 0;
  if (!take(r, &raw, (size_t)w)) return false;
  if (qv_type_is_signed(t->id) || t->id == QV_TYPE_DATE32 || t->id == QV_TYPE_TIMESTAMP) {
    int sh = 64 - 8 * w;
    v->i = (int64_t)(raw << sh) >> sh;
  } else {
    v->i = raw;
  }
  return true;
}

static bool append(qv_builder *b, const val *v) {
  if (v->null) return qv_builder_append_null(b) == QV_OK;
  switch (b->type.id) {
    case QV_TYPE_BOOL: return qv_builder_append_bool(b, v->i != 0) == QV_OK;
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: return qv_builder_append_bytes(b, v->s, v->len) == QV_OK;
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64: return qv_builder_append_double(b, v->f) == QV_OK;
    case QV_TYPE_DECIMAL128: return qv_builder_append_decimal(b, (uint64_t)v->i, (int64_t)(v->i >> 64)) == QV_OK;
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32:
    case QV_TYPE_UINT64: return qv_builder_append_uint(b, (uint64_t)v->i) == QV_OK;
    default: return qv_builder_append_int(b, (int64_t)v->i) == QV_OK;
  }
}

/* ---- oracle ------------------------------------------------------------- */

static int total_cmp(double a, double b) {
  uint64_t x, y;
  memcpy(&x, &a, 8);
  memcpy(&y, &b, 8);
  x = (x >> 63) ? ~x : x | (UINT64_C(1) << 63);
  y = (y >> 63) ? ~y : y | (UINT64_C(1) << 63);
  return (x > y) - (x < y);
}

static qv_int128 scaled(const qv_datatype *t, qv_int128 v, int to_scale) {
  int s = t->id == QV_TYPE_DECIMAL128 ? t->scale : 0;
  for (; s < to_scale; s++) v *= 10;
  return v;
}

static int64_t unit_ns(const qv_datatype *t) {
  static const int64_t f[] = {1000000000LL, 1000000LL, 1000LL, 1LL};
  return t->id == QV_TYPE_TIMESTAMP ? f[t->unit] : 1;
}

static int oracle(const qv_datatype *ta, const val *a, const qv_datatype *tb, const val *b, qv_op op, int order) {
  if (a->null || b->null) return -1;
  int c;
  if (qv_type_is_floating(ta->id)) {
    double p = ta->id == QV_TYPE_FLOAT32 ? (double)(float)a->f : a->f;
    double q = tb->id == QV_TYPE_FLOAT32 ? (double)(float)b->f : b->f;
    if (order == QV_FLOAT_IEEE) {
      if (isnan(p) || isnan(q)) return op == QV_OP_NE;
      c = (p > q) - (p < q);
    } else if (order == QV_FLOAT_TOTAL) {
      c = total_cmp(p, q);
    } else if (isnan(p) || isnan(q)) {
      c = isnan(p) - isnan(q);
    } else if (order == QV_FLOAT_JAVA && p == 0 && q == 0) {
      c = (signbit(q) != 0) - (signbit(p) != 0);
    } else {
      c = (p > q) - (p < q);
    }
  } else if (ta->id == QV_TYPE_STRING || ta->id == QV_TYPE_BINARY) {
    int m = memcmp(a->s, b->s, (size_t)(a->len < b->len ? a->len : b->len));
    c = m ? (m > 0) - (m < 0) : (a->len > b->len) - (a->len < b->len);
  } else {
    int sc = 0;
    if (ta->id == QV_TYPE_DECIMAL128 && ta->scale > sc) sc = ta->scale;
    if (tb->id == QV_TYPE_DECIMAL128 && tb->scale > sc) sc = tb->scale;
    qv_int128 p = scaled(ta, a->i, sc) * unit_ns(ta), q = scaled(tb, b->i, sc) * unit_ns(tb);
    c = (p > q) - (p < q);
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

/* ---- the target --------------------------------------------------------------- */

static qv_expr *column(const qv_batch *b, int k) {
  qv_expr *e = qv_expr_column(b->schema.fields[k].name);
  if (!e) abort();
  e->column = k;
  qv_datatype_copy(&b->columns[k]->type, &e->type);
  return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  reader r = {data, size};
  uint8_t hdr[4];
  if (!take(&r, hdr, 4)) return 0;
  const char *const *pair = PAIRS[hdr[0] % N_PAIRS];
  qv_op op = (qv_op)(QV_OP_EQ + hdr[1] % 6);
  int order = hdr[2] % 4;
  bool scalar = hdr[3] & 1, flip = hdr[3] & 2, use_sel = hdr[3] & 4, dict = hdr[3] & 8;
  qv_datatype ta, tb;
  if (qv_datatype_parse(pair[0], &ta, NULL) != QV_OK || qv_datatype_parse(pair[1], &tb, NULL) != QV_OK) abort();
  static val va[MAX_ROWS], vb[MAX_ROWS];
  int n = 0;
  while (n < MAX_ROWS && read_val(&r, &ta, &va[n]) && read_val(&r, &tb, &vb[n])) n++;
  qv_builder ba, bb;
  qv_builder_init(&ba, &ta, NULL);
  qv_builder_init(&bb, &tb, NULL);
  for (int i = 0; i < n; i++)
    if (!append(&ba, &va[i]) || !append(&bb, &vb[i])) abort();
  qv_array *cols[2];
  if (qv_builder_finish(&ba, &cols[0], NULL) != QV_OK || qv_builder_finish(&bb, &cols[1], NULL) != QV_OK) abort();
  static val vx[MAX_ROWS]; /* the first column's value per row */
  for (int i = 0; i < n; i++) vx[i] = va[i];
  if (dict && n > 0) {
    qv_datatype it = qv_datatype_simple(QV_TYPE_INT32);
    qv_builder bi;
    qv_builder_init(&bi, &it, NULL);
    for (int i = 0; i < n; i++) {
      int k = (int)((i * 7 + hdr[1]) % n);
      if (i % 5 == 4) {
        vx[i].null = true;
        if (qv_builder_append_null(&bi) != QV_OK) abort();
      } else {
        vx[i] = va[k];
        if (qv_builder_append_int(&bi, k) != QV_OK) abort();
      }
    }
    qv_array *idx = NULL, *dcol = NULL;
    if (qv_builder_finish(&bi, &idx, NULL) != QV_OK || qv_array_dictionary(idx, cols[0], &dcol, NULL) != QV_OK) abort();
    cols[0] = dcol;
  }
  qv_schema schema = QV_SCHEMA_INIT;
  for (int k = 0; k < 2; k++) {
    qv_field f;
    qv_datatype t;
    qv_datatype_copy(k ? &tb : &cols[0]->type, &t);
    qv_field_init(&f, k ? "b" : "a", &t, true, NULL);
    qv_schema_add(&schema, &f, NULL);
    qv_field_reset(&f);
    qv_datatype_reset(&t);
  }
  qv_batch *batch = NULL;
  if (qv_batch_make(&schema, cols, n, &batch, NULL) != QV_OK) abort();
  qv_schema_reset(&schema);
  /* the scalar is b's first row */
  qv_expr *lhs = column(batch, 0), *rhs;
  if (scalar && n > 0) {
    qv_scalar s = QV_SCALAR_INIT;
    if (qv_scalar_from_array(batch->columns[1], 0, &s, NULL) != QV_OK) abort();
    rhs = qv_expr_literal(&s);
  } else {
    rhs = column(batch, 1);
    scalar = false;
  }
  qv_expr *e = flip ? qv_expr_binary(op, rhs, lhs) : qv_expr_binary(op, lhs, rhs);
  if (!e) abort();
  e->type = qv_datatype_simple(QV_TYPE_BOOL);
  e->sem.float_order = (uint8_t)order;
  qv_selection sel = QV_SELECTION_INIT;
  if (qv_selection_reserve(&sel, n + 1) != QV_OK) abort();
  for (int i = 0; i < n; i++)
    if (!use_sel || (va[i].i ^ (qv_int128)i) % 3 != 0) sel.rows[sel.count++] = (uint32_t)i;
  qv_array *res = NULL;
  qv_error err;
  if (qv_eval(e, batch, use_sel ? &sel : NULL, &res, &err) != QV_OK) {
    fprintf(stderr, "eval failed: %s\n", err.message);
    abort();
  }
  int64_t trues = 0;
  for (int64_t k = 0; k < res->length; k++) {
    int64_t i = use_sel ? sel.rows[k] : k;
    const val *x = &vx[i], *y = scalar ? &vb[0] : &vb[i];
    int want = flip ? oracle(&tb, y, &ta, x, op, order) : oracle(&ta, x, &tb, y, op, order);
    int got = qv_array_is_valid(res, k) ? qv_bit_get(res->buffers[1]->data, res->offset + k) : -1;
    if (got != want) {
      fprintf(stderr, "%s %s %s order %d row %lld: got %d want %d\n", pair[0], qv_op_name(op), pair[1], order,
              (long long)i, got, want);
      abort();
    }
    trues += got == 1;
  }
  qv_selection out = QV_SELECTION_INIT;
  if (qv_eval_filter(e, batch, use_sel ? &sel : NULL, &out, &err) != QV_OK || out.count != trues) abort();
  for (int64_t k = 0, j = 0; k < res->length; k++) /* the TRUE rows, in order */
    if (qv_array_is_valid(res, k) && qv_bit_get(res->buffers[1]->data, res->offset + k))
      if (out.rows[j++] != (use_sel ? sel.rows[k] : (uint32_t)k)) abort();
  qv_selection_reset(&out);
  qv_selection_reset(&sel);
  qv_array_release(res);
  qv_expr_destroy(e);
  qv_batch_release(batch);
  qv_datatype_reset(&ta);
  qv_datatype_reset(&tb);
  return 0;
}
