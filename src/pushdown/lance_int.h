/* Internals of the Lance SQL translator, shared by its two files:
 * lance.c (the walk over the IR, types, operators, the public functions)
 * and lance_literal.c (literals, comparisons with a literal, IN lists). */
#ifndef QV_PUSHDOWN_LANCE_INT_H
#define QV_PUSHDOWN_LANCE_INT_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/pushdown.h"

/* A growing string; oom sticks once an allocation failed. */
typedef struct sb {
  char *p;
  size_t n, cap;
  bool oom;
} sb;

/* One translation: the schema (NULL: schema-less) and the explain lines. */
typedef struct tr {
  const qv_schema *schema;
  sb why; /* explain lines */
  bool oom;
} tr;

/* Records why e declines (an explain line); returns false so callers can
 * `return qv_lsql_decline(...)`. */
bool qv_lsql_decline(tr *t, const qv_expr *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The declared type of a column or struct field or list element; NULL
 * when unknown. */
const qv_datatype *qv_lsql_col_type(const tr *t, const qv_expr *e);
/* A node's type where it can be told without binding; QV_TYPE_NULL when
 * unknown (schema-less columns, and anything built from them). */
qv_type_id qv_lsql_type_of(const tr *t, const qv_expr *e);
/* Translates e in value position into o; false when it declined. */
bool qv_lsql_value(tr *t, const qv_expr *e, sb *o);
/* "(a OP b)" of e's two arguments. */
bool qv_lsql_binop(tr *t, const qv_expr *e, const char *op, sb *o);

/* lance_literal.c */
int qv_lsql_int_rank(qv_type_id id);
bool qv_lsql_lit_fits(const qv_expr *l, qv_type_id id);
void qv_lsql_fmt_double(double v, char *buf, size_t size);
bool qv_lsql_emit_string(tr *t, const qv_expr *e, const uint8_t *s, int64_t n, sb *o);
bool qv_lsql_emit_literal(tr *t, const qv_expr *e, sb *o);
bool qv_lsql_compare(tr *t, const qv_expr *e, sb *o);
bool qv_lsql_in_list(tr *t, const qv_expr *e, sb *o);

static inline void sb_f(sb *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static inline void sb_add(sb *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 64;
    while (cap < b->n + n + 1) cap *= 2;
    char *q = qv_realloc(b->p, cap);
    if (!q) {
      b->oom = true;
      return;
    }
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

static inline void sb_s(sb *b, const char *s) { sb_add(b, s, strlen(s)); }

static inline void sb_free(sb *b) {
  qv_free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}

static inline bool is_float(qv_type_id id) { return qv_type_is_floating(id); }

/* Could the value be a float?  Unknown types could. */
static inline bool maybe_float(const tr *t, const qv_expr *e) {
  qv_type_id id = qv_lsql_type_of(t, e);
  return id == QV_TYPE_NULL || is_float(id);
}

static inline bool is_lit(const qv_expr *e) { return e->kind == QV_EXPR_LITERAL; }

static inline bool lit_number(const qv_expr *l, double *v) {
  if (!is_lit(l) || l->value.is_null) return false;
  qv_type_id id = l->value.type.id;
  if (is_float(id)) *v = l->value.v.f;
  else if (qv_type_is_integer(id)) *v = qv_type_is_signed(id) ? (double)l->value.v.i : (double)l->value.v.u;
  else return false;
  return true;
}

static inline bool int_lit(const qv_expr *e, int64_t *v) {
  if (!is_lit(e) || e->value.is_null) return false;
  qv_type_id id = e->value.type.id;
  if (qv_type_is_signed(id) && qv_type_is_integer(id)) *v = e->value.v.i;
  else if (qv_type_is_integer(id) && e->value.v.u <= (uint64_t)INT64_MAX) *v = (int64_t)e->value.v.u;
  else return false;
  return true;
}

static inline bool str_lit(const qv_expr *e) { return is_lit(e) && !e->value.is_null && e->value.type.id == QV_TYPE_STRING; }

static inline void sb_f(sb *b, const char *fmt, ...) {
  char buf[256];
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) {
    va_end(ap2);
    return;
  }
  if ((size_t)n < sizeof buf) {
    sb_add(b, buf, (size_t)n);
  } else {
    /* Long pieces (operands are whole subtrees): format into the heap. */
    char *big = qv_malloc((size_t)n + 1);
    if (!big) b->oom = true;
    else {
      vsnprintf(big, (size_t)n + 1, fmt, ap2);
      sb_add(b, big, (size_t)n);
      qv_free(big);
    }
  }
  va_end(ap2);
}

#endif
