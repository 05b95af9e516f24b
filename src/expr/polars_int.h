/* Internals shared by the two Polars front ends (polars_text.c reads
 * Python text, polars_json.c reads Polars' JSON).  Both first recognise a
 * Polars construct, then build its IR through the helpers here, so that
 * the same expression gives the same tree from either side: the text
 * parser desugars exactly as the Polars Python API does (log10 is log with
 * base 10.0, epoch("s") is epoch("ms") // 1000, ...), and these helpers
 * map the Polars-level construct to IR ops. */
#ifndef QUIVER_EXPR_POLARS_INT_H
#define QUIVER_EXPR_POLARS_INT_H

#include "expr/expr_int.h"

/* Sets Polars semantics on one node (cast_strict and in_nulls_equal are
 * left to the caller) and returns it; NULL passes through. */
qv_expr *qve_pl_mark(qv_expr *e);

/* A call with Polars semantics; takes ownership of args (also on failure). */
qv_expr *qve_pl_call(qv_op op, qv_expr **args, int32_t n);
qv_expr *qve_pl_call1(qv_op op, qv_expr *a);
qv_expr *qve_pl_call2(qv_op op, qv_expr *a, qv_expr *b);
/* A node for a construct nobody here knows: QV_OP_UNKNOWN with name. */
qv_expr *qve_pl_unknown(const char *name, qv_expr **args, int32_t n);
/* Sets e->name to a copy of name; false on allocation failure. */
bool qve_pl_set_name(qv_expr *e, const char *name, size_t len);

/* Literals.  qve_pl_literal moves *v; marks Polars semantics. */
qv_expr *qve_pl_literal(qv_scalar *v, bool dynamic);
/* A Python int given as optional '-' and decimal digits: dynamic int64,
 * else dynamic uint64, else an UNKNOWN "Literal" node (Polars keeps up to
 * 128 bits; quiver evaluates none of them). */
qv_expr *qve_pl_dyn_int_text(const char *s, size_t n);
qv_expr *qve_pl_dyn_float(double f);
qv_expr *qve_pl_string(const char *s, size_t n);
qv_expr *qve_pl_null(qv_type_id id);

/* The Polars dtype named name (e.g. "Int32", "String", "Date"); false
 * when it has no parameterless quiver type. */
bool qve_pl_simple_dtype(const char *name, size_t n, qv_datatype *out);
/* "Milliseconds" / "ms" to a unit; false when unknown. */
bool qve_pl_unit_long(const char *s, qv_time_unit *out);
bool qve_pl_unit_short(const char *s, size_t n, qv_time_unit *out);
const char *qve_pl_unit_name(qv_time_unit u); /* "s" "ms" "us" "ns" */

/* Polars-level constructs to IR.  All take ownership of their inputs. */
/* Log(x, base): LOG10 for the float 10.0, LN for the float e, else LOG. */
qv_expr *qve_pl_log(qv_expr *x, qv_expr *base);
/* Ternary(pred, then, otherwise): one WHEN, flattening an otherwise that
 * is itself a WHEN (Polars writes chained when/then as nested ternaries). */
qv_expr *qve_pl_when(qv_expr *pred, qv_expr *then, qv_expr *otherwise);
/* is_in(x, other): IN(x, items...) when other is a list literal (LIST of
 * flat literals), else UNKNOWN "is_in". */
qv_expr *qve_pl_is_in(qv_expr *x, qv_expr *other, bool nulls_equal);
/* x.is_between(lo, hi, closed): closed is "both", "left", "right" or
 * "none"; two comparisons joined by AND.  Takes ownership. */
qv_expr *qve_pl_is_between(qv_expr *x, qv_expr *lo, qv_expr *hi, const char *closed);
/* all_horizontal / any_horizontal: a left-deep AND / OR of two or more
 * inputs, or the unary op for one. */
qv_expr *qve_pl_horizontal(bool all, qv_expr **args, int32_t n);
/* list.contains(l, x, nulls_equal): ARRAY_HAS. */
qv_expr *qve_pl_list_contains(qv_expr *l, qv_expr *x, bool nulls_equal);
/* Round(x) with decimals and mode ("half_to_even" ...). */
qv_expr *qve_pl_round(qv_expr *x, int64_t decimals, const char *mode);
/* FillNullWithStrategy: strategy in lower case, limit -1 for none. */
qv_expr *qve_pl_fill_strategy(qv_expr *x, const char *strategy, int64_t limit);
/* CONCAT_STR of args with separator. */
qv_expr *qve_pl_concat_str(qv_expr **args, int32_t n, const char *sep, size_t sep_len, bool ignore_nulls);
/* Sets flags on e (NULL passes through). */
qv_expr *qve_pl_flags(qv_expr *e, uint32_t flags, int64_t param);

/* Tree depth, bounded: returns a value > limit as soon as it passes the
 * limit (so a hostile tree costs at most limit levels of recursion). */
int32_t qve_pl_depth(const qv_expr *e, int32_t limit);

#endif
