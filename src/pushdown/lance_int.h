/* Internals of the Lance SQL translator, shared by its two files:
 * lance.c (the walk over the IR, types, operators, the public functions)
 * and lance_literal.c (literals, comparisons with a literal, IN lists). */
#ifndef QUIVER_PUSHDOWN_LANCE_INT_H
#define QUIVER_PUSHDOWN_LANCE_INT_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "expr/expr_lit.h"
#include "expr/op_info.h"
#include "pushdown/pushdown_int.h"
#include "quiver/pushdown.h"

/* One translation: the schema (NULL: schema-less) and the explain lines. */
typedef struct tr {
  const qv_schema *schema;
  qvb_text why; /* explain lines */
  bool oom;
  /* The conjunct positive() is translating, and whether it was spelled
   * as a superset only (a schema-less comparison, see lance_literal.c). */
  const qv_expr *conjunct;
  bool superset;
  /* The operand of the comparison being translated: its consumer cannot
   * tell -0.0 from 0.0 nor one NaN from another (lance_literal.c spells
   * comparisons so), which lets min/max_horizontal of floats translate. */
  const qv_expr *sign_free;
} tr;

/* Records why e declines (an explain line); returns false so callers can
 * `return qvp_lsql_decline(...)`. */
bool qvp_lsql_decline(tr *t, const qv_expr *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The declared type of a column or struct field or list element; NULL
 * when unknown. */
const qv_datatype *qvp_lsql_col_type(const tr *t, const qv_expr *e);
/* A node's type where it can be told without binding; QV_TYPE_NULL when
 * unknown (schema-less columns, and anything built from them). */
qv_type_id qvp_lsql_type_of(const tr *t, const qv_expr *e);
/* lance_types.c: the type DataFusion computes for the SQL emitted for e
 * (QV_TYPE_NULL: unknown, so arithmetic casts it to Polars' type); Polars'
 * supertype of two numeric types (QV_TYPE_NULL where Lance has no such
 * type: Int128); Polars' type of a node over numeric operands; the SQL
 * name of a numeric type (NULL for others); whether true division is in
 * Float32 (1), Float64 (0) or not pinned down (-1). */
qv_type_id qvp_lsql_lance_type(const tr *t, const qv_expr *e);
qv_type_id qvp_lsql_supertype(qv_type_id a, qv_type_id b);
qv_type_id qvp_lsql_numeric_type(const tr *t, const qv_expr *e);
/* min/max_horizontal of integer columns whose Polars supertype is Int128
 * (a UInt64 with a signed one): typed QV_TYPE_DECIMAL128 by
 * qvp_lsql_type_of, computed as DECIMAL(20, 0) in Lance. */
bool qvp_lsql_int128(const tr *t, const qv_expr *e);
const char *qvp_lsql_sql_type(qv_type_id id);
int qvp_lsql_div_float32(const tr *t, const qv_expr *e);
/* Translates e in value position into o; false when it declined. */
bool qvp_lsql_value(tr *t, const qv_expr *e, qvb_text *o);
/* "(a OP b)" of e's two arguments. */
bool qvp_lsql_binop(tr *t, const qv_expr *e, const char *op, qvb_text *o);

/* lance_literal.c */
int qvp_lsql_int_rank(qv_type_id id);
bool qvp_lsql_lit_fits(const qv_expr *l, qv_type_id id);
void qvp_lsql_fmt_double(double v, char *buf, size_t size);
bool qvp_lsql_emit_string(tr *t, const qv_expr *e, const uint8_t *s, int64_t n, qvb_text *o);
bool qvp_lsql_emit_literal(tr *t, const qv_expr *e, qvb_text *o);
bool qvp_lsql_compare(tr *t, const qv_expr *e, qvb_text *o);
bool qvp_lsql_in_list(tr *t, const qv_expr *e, qvb_text *o);

static inline bool is_float(qv_type_id id) { return qv_type_is_floating(id); }

/* Could the value be a float?  Unknown types could. */
static inline bool maybe_float(const tr *t, const qv_expr *e) {
  qv_type_id id = qvp_lsql_type_of(t, e);
  return id == QV_TYPE_NULL || is_float(id);
}

static inline bool lit_number(const qv_expr *l, double *v) {
  if (!qve_is_value_lit(l)) return false;
  qv_type_id id = l->value.type.id;
  if (is_float(id)) *v = l->value.v.f;
  else if (qv_type_is_integer(id)) *v = qv_type_is_signed(id) ? (double)l->value.v.i : (double)l->value.v.u;
  else return false;
  return true;
}

static inline bool int_lit(const qv_expr *e, int64_t *v) {
  if (!qve_is_value_lit(e)) return false;
  qv_type_id id = e->value.type.id;
  if (qv_type_is_signed(id) && qv_type_is_integer(id)) *v = e->value.v.i;
  else if (qv_type_is_integer(id) && e->value.v.u <= (uint64_t)INT64_MAX) *v = (int64_t)e->value.v.u;
  else return false;
  return true;
}

#endif
