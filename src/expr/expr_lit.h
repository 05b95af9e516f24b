/* "Is this node a literal of kind X": the questions the layers below expr
 * (index matching, page pruning, the pushdown translators) ask of an IR
 * node before they use its value.  One home, so that "a literal" means the
 * same to each of them; every helper takes any node and is false for
 * anything that is not a literal. */
#ifndef QUIVER_EXPR_EXPR_LIT_H
#define QUIVER_EXPR_EXPR_LIT_H

#include "quiver/expr.h"

/* A literal, NULL or not. */
static inline bool qve_is_lit(const qv_expr *e) { return e->kind == QV_EXPR_LITERAL; }

/* The NULL literal (of any type). */
static inline bool qve_is_null_lit(const qv_expr *e) { return qve_is_lit(e) && e->value.is_null; }

/* A literal with a value (not NULL). */
static inline bool qve_is_value_lit(const qv_expr *e) { return qve_is_lit(e) && !e->value.is_null; }

/* A non-null literal of type id. */
static inline bool qve_is_lit_of(const qv_expr *e, qv_type_id id) {
  return qve_is_value_lit(e) && e->value.type.id == id;
}

/* A non-null string literal. */
static inline bool qve_is_str_lit(const qv_expr *e) { return qve_is_lit_of(e, QV_TYPE_STRING); }

/* A non-null string or binary literal. */
static inline bool qve_is_bytes_lit(const qv_expr *e) { return qve_is_str_lit(e) || qve_is_lit_of(e, QV_TYPE_BINARY); }

/* A non-null integer or float literal (decimals are not numbers here). */
static inline bool qve_is_num_lit(const qv_expr *e) {
  return qve_is_value_lit(e) && (qv_type_is_integer(e->value.type.id) || qv_type_is_floating(e->value.type.id));
}

/* The literal FALSE. */
static inline bool qve_is_false_lit(const qv_expr *e) { return qve_is_lit_of(e, QV_TYPE_BOOL) && !e->value.v.b; }

/* The type Polars gives a dynamic literal (a Python int or float, value v)
 * next to a value of type other (QV_TYPE_NULL: next to nothing typed): the
 * other type where the value fits, else the smallest wider integer (Int8 +
 * 255 is Int16, UInt32 + -1 Int64; Int128 is QV_TYPE_DECIMAL128).  Always
 * true.  expr/bind_polars.c; the binder and the Lance translator share it. */
bool qve_polars_dynamic_type(const qv_scalar *v, qv_type_id other, qv_type_id *out);

#endif
