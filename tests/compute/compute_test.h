/* Helpers shared by the compute tests: building arrays, batches and bound
 * expression trees by hand (without the binder), evaluating, and checking
 * results value by value. */
#ifndef QUIVER_TESTS_COMPUTE_COMPUTE_TEST_H
#define QUIVER_TESTS_COMPUTE_COMPUTE_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/compute.h"

/* ---- arrays ------------------------------------------------------------- */

/* One value of any flat type, for building arrays in tests. */
typedef struct tval {
  bool null;
  qv_int128 i; /* integers, decimals (raw), temporals, bool */
  double f;
  const char *s; /* string / binary */
  int64_t slen;  /* -1: strlen(s) */
} tval;

static inline tval TI(qv_int128 v) {
  tval x = {false, v, 0, NULL, -1};
  return x;
}
static inline tval TF(double v) {
  tval x = {false, 0, v, NULL, -1};
  return x;
}
static inline tval TS(const char *s) {
  tval x = {false, 0, 0, s, -1};
  return x;
}
static inline tval TB(const char *s, int64_t n) {
  tval x = {false, 0, 0, s, n};
  return x;
}
static inline tval TN(void) {
  tval x = {true, 0, 0, NULL, -1};
  return x;
}

static inline qv_array *t_build(const qv_datatype *t, const tval *v, int64_t n) {
  qv_builder b;
  assert_int_equal(qv_builder_init(&b, t, NULL), QV_OK);
  for (int64_t k = 0; k < n; k++) {
    qv_status st;
    if (v[k].null) st = qv_builder_append_null(&b);
    else switch (t->id) {
        case QV_TYPE_BOOL: st = qv_builder_append_bool(&b, v[k].i != 0); break;
        case QV_TYPE_FLOAT32:
        case QV_TYPE_FLOAT64: st = qv_builder_append_double(&b, v[k].f); break;
        case QV_TYPE_DECIMAL128: st = qv_builder_append_decimal(&b, (uint64_t)v[k].i, (int64_t)(v[k].i >> 64)); break;
        case QV_TYPE_STRING:
        case QV_TYPE_BINARY:
          st = qv_builder_append_bytes(&b, v[k].s, v[k].slen < 0 ? (int64_t)strlen(v[k].s) : v[k].slen);
          break;
        case QV_TYPE_UINT8:
        case QV_TYPE_UINT16:
        case QV_TYPE_UINT32:
        case QV_TYPE_UINT64: st = qv_builder_append_uint(&b, (uint64_t)v[k].i); break;
        default: st = qv_builder_append_int(&b, (int64_t)v[k].i); break;
      }
    assert_int_equal(st, QV_OK);
  }
  qv_array *a = NULL;
  assert_int_equal(qv_builder_finish(&b, &a, NULL), QV_OK);
  return a;
}

static inline qv_datatype t_type(const char *text) {
  qv_datatype t = QV_DATATYPE_INIT;
  qv_error err;
  if (qv_datatype_parse(text, &t, &err) != QV_OK) fail_msg("bad type %s: %s", text, err.message);
  return t;
}

/* Array of type text from values. */
static inline qv_array *t_arr(const char *type, const tval *v, int64_t n) {
  qv_datatype t = t_type(type);
  qv_array *a = t_build(&t, v, n);
  qv_datatype_reset(&t);
  return a;
}

/* A batch of columns c0, c1, ... (takes the array references). */
static inline qv_batch *t_batch(qv_array **cols, int32_t n) {
  qv_schema s = QV_SCHEMA_INIT;
  for (int32_t k = 0; k < n; k++) {
    char name[16];
    snprintf(name, sizeof name, "c%d", (int)k);
    qv_field f;
    qv_datatype t;
    assert_int_equal(qv_datatype_copy(&cols[k]->type, &t), QV_OK);
    assert_int_equal(qv_field_init(&f, name, &t, true, NULL), QV_OK);
    assert_int_equal(qv_schema_add(&s, &f, NULL), QV_OK);
    qv_field_reset(&f);
    qv_datatype_reset(&t);
  }
  qv_batch *b = NULL;
  qv_error err;
  int64_t rows = n ? cols[0]->length : 0;
  if (qv_batch_make(&s, cols, rows, &b, &err) != QV_OK) fail_msg("batch: %s", err.message);
  qv_schema_reset(&s);
  return b;
}

/* ---- expressions ----------------------------------------------------------- */

static inline qv_expr *t_col(const qv_batch *b, int32_t k) {
  char name[16];
  snprintf(name, sizeof name, "c%d", (int)k);
  qv_expr *e = qv_expr_column(name);
  assert_non_null(e);
  e->column = k;
  assert_int_equal(qv_datatype_copy(&b->columns[k]->type, &e->type), QV_OK);
  return e;
}

/* Literal from one value of a type (text). */
static inline qv_expr *t_lit(const char *type, tval v) {
  qv_array *a = t_arr(type, &v, 1);
  qv_scalar s = QV_SCALAR_INIT;
  assert_int_equal(qv_scalar_from_array(a, 0, &s, NULL), QV_OK);
  qv_array_release(a);
  qv_expr *e = qv_expr_literal(&s);
  assert_non_null(e);
  return e;
}

static inline qv_expr *t_null_lit(const char *type) { return t_lit(type, TN()); }

/* Call node with a result type (text, or NULL to leave it unbound). */
static inline qv_expr *t_calln(qv_op op, const char *type, int32_t n, qv_expr **args) {
  qv_expr *e = qv_expr_call(op, args, n);
  assert_non_null(e);
  if (type) {
    qv_datatype_reset(&e->type);
    e->type = t_type(type);
  }
  return e;
}
static inline qv_expr *t_call1(qv_op op, const char *type, qv_expr *a) { return t_calln(op, type, 1, &a); }
static inline qv_expr *t_call2(qv_op op, const char *type, qv_expr *a, qv_expr *b) {
  qv_expr *args[2] = {a, b};
  return t_calln(op, type, 2, args);
}
static inline qv_expr *t_call3(qv_op op, const char *type, qv_expr *a, qv_expr *b, qv_expr *c) {
  qv_expr *args[3] = {a, b, c};
  return t_calln(op, type, 3, args);
}

/* ---- evaluating and checking -------------------------------------------------- */

static inline qv_array *t_eval(const qv_expr *e, const qv_batch *b, const qv_selection *sel) {
  qv_array *r = NULL;
  qv_error err = {0};
  qv_status st = qv_eval(e, b, sel, &r, &err);
  if (st != QV_OK) fail_msg("eval failed (%d): %s", (int)st, err.message);
  assert_int_equal(r->length, sel ? sel->count : b->num_rows);
  return r;
}

/* Expects qv_eval to fail with code and a message containing `part`. */
static inline void t_eval_fails(const qv_expr *e, const qv_batch *b, qv_status code, const char *part) {
  qv_array *r = NULL;
  qv_error err = {0};
  qv_status st = qv_eval(e, b, NULL, &r, &err);
  if (st == QV_OK) {
    qv_array_release(r);
    fail_msg("eval succeeded, expected status %d (%s)", (int)code, part);
  }
  if (st != code || !strstr(err.message, part))
    fail_msg("eval failed with %d '%s', expected %d containing '%s'", (int)st, err.message, (int)code, part);
}

/* Values of r as text joined by '|' ("null" for nulls) must equal want. */
static inline void t_expect(const qv_array *r, const char *want) {
  char got[8192];
  size_t pos = 0;
  got[0] = '\0';
  for (int64_t i = 0; i < r->length; i++) {
    char v[512];
    qv_array_format_value(r, i, v, sizeof v);
    pos += (size_t)snprintf(got + pos, sizeof got - pos, "%s%s", i ? "|" : "", v);
    if (pos >= sizeof got) break;
  }
  if (strcmp(got, want) != 0) fail_msg("got  '%s'\nwant '%s'", got, want);
  /* null_count is right and bool values are canonical (0 under nulls) */
  int64_t nulls = 0;
  for (int64_t i = 0; i < r->length; i++) nulls += !qv_array_is_valid(r, i);
  assert_int_equal(nulls, r->null_count);
  if (r->type.id == QV_TYPE_BOOL)
    for (int64_t i = 0; i < r->length; i++)
      if (!qv_array_is_valid(r, i)) assert_false(qv_bit_get(r->buffers[1]->data, r->offset + i));
}

/* Evaluates e over b and checks the text of the result; also checks that
 * every selection of rows gives the same values as the full result (the
 * even rows, the odd rows, and the rows in reverse-free random order). */
static inline void t_check(const qv_expr *e, const qv_batch *b, const char *want) {
  qv_array *r = t_eval(e, b, NULL);
  t_expect(r, want);
  qv_selection sel = QV_SELECTION_INIT;
  assert_int_equal(qv_selection_reserve(&sel, b->num_rows + 1), QV_OK);
  for (int parity = 0; parity < 2; parity++) {
    sel.count = 0;
    for (int64_t i = parity; i < b->num_rows; i += 2) sel.rows[sel.count++] = (uint32_t)i;
    qv_array *rs = t_eval(e, b, &sel);
    for (int64_t k = 0; k < sel.count; k++) {
      char x[512], y[512];
      qv_array_format_value(r, sel.rows[k], x, sizeof x);
      qv_array_format_value(rs, k, y, sizeof y);
      if (strcmp(x, y) != 0) fail_msg("selection row %lld: full '%s' vs selected '%s'", (long long)sel.rows[k], x, y);
    }
    qv_array_release(rs);
  }
  qv_selection_reset(&sel);
  qv_array_release(r);
}

/* Filter rows of e over b (with sel or NULL) as "0,2,5". */
static inline void t_filter(const qv_expr *e, const qv_batch *b, const qv_selection *sel, const char *want) {
  qv_selection out = QV_SELECTION_INIT;
  qv_error err = {0};
  qv_status st = qv_eval_filter(e, b, sel, &out, &err);
  if (st != QV_OK) fail_msg("filter failed (%d): %s", (int)st, err.message);
  char got[4096];
  size_t pos = 0;
  got[0] = '\0';
  for (int64_t i = 0; i < out.count && pos < sizeof got; i++)
    pos += (size_t)snprintf(got + pos, sizeof got - pos, "%s%u", i ? "," : "", out.rows[i]);
  if (strcmp(got, want) != 0) fail_msg("filter got '%s', want '%s'", got, want);
  qv_selection_reset(&out);
}

/* Deterministic random numbers for property tests (xorshift64*). */
static inline uint64_t t_rand(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * UINT64_C(2685821657736338717);
}

#endif
