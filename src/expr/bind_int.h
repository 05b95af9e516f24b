/* Internals of the binder shared by its files: bind.c walks the tree and
 * dispatches each operator to its rule (the BIND column of expr/ops.def);
 * the rules live in bind.c (the Lance filter language's operators),
 * bind_polars.c (the numeric and logical operators only the Polars front
 * ends produce) and bind_polars_text.c (their string, temporal and list
 * operators).  Every helper reports errors as "filter: ... at column N". */
#ifndef QUIVER_EXPR_BIND_INT_H
#define QUIVER_EXPR_BIND_INT_H

#include "expr/expr_int.h"

typedef struct qve_binder {
  const qv_schema *schema;
  qv_error *err;
  int depth;
} qve_binder;

/* A type's name for messages, written to buf. */
const char *qve_bind_tn(const qv_datatype *t, char *buf, size_t size);
#define TN(t) qve_bind_tn((t), (char[128]){0}, 128)

qv_status qve_bind_error(qve_binder *b, qv_status code, int32_t pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
qv_status qve_bind_nomem(qve_binder *b);

/* Sets e's result type (a copy of t / a parameterless type). */
qv_status qve_bind_set_type(qve_binder *b, qv_expr *e, const qv_datatype *t);
void qve_bind_set_simple(qv_expr *e, qv_type_id id);

/* A literal or a list literal: converted in place rather than cast. */
bool qve_bind_literal_like(const qv_expr *e);
/* Whether literal-like e can become type `to` unchanged in meaning; with
 * apply, it does. */
qv_status qve_bind_try_convert(qve_binder *b, qv_expr *e, const qv_datatype *to, bool apply, bool *ok);
/* Makes *slot of type `to`: a literal is converted, anything else wrapped
 * in a strict CAST. */
qv_status qve_bind_coerce_to(qve_binder *b, qv_expr **slot, const qv_datatype *to);
qv_status qve_bind_coerce_simple(qve_binder *b, qv_expr **slot, qv_type_id id);
/* Coerces n operands to their common type (written to *out) under mode;
 * "cannot <what> X with Y at column pos" when there is none. */
qv_status qve_bind_unify(qve_binder *b, qv_expr **slots, int32_t n, qve_common_mode mode, const char *what, int32_t pos,
                         qv_datatype *out);

/* Argument i of e must be boolean / a string / a list (null literals are
 * coerced); the error names what. */
qv_status qve_bind_want_bool(qve_binder *b, qv_expr *e, int32_t i, const char *what);
qv_status qve_bind_want_string(qve_binder *b, qv_expr *e, int32_t i, const char *what);
qv_status qve_bind_want_list(qve_binder *b, qv_expr *e, int32_t i, const char *what);

/* The bind rules: BIND(x) in expr/ops.def names qve_bind_rule_x, called
 * after e's arguments are bound; it checks them, inserts casts and sets
 * e's type.  bind.c has the Lance filter language's rules, bind_polars.c
 * the numeric and logical ones only the Polars front ends produce,
 * bind_polars_text.c their string, temporal and list ones. */
#define BIND(x) qv_status qve_bind_rule_##x(qve_binder *b, qv_expr *e);
#define QV_OP_ROW(id, name, lo, hi, cls, mirror, sql, print, bind, ...) bind
#include "expr/ops.def"
#undef QV_OP_ROW
#undef BIND

/* + - * / % on a Polars node with Polars' result types; *numeric false
 * (nothing changed) when an operand is not a number. */
qv_status qve_bind_polars_arith(qve_binder *b, qv_expr *e, bool *numeric);
/* Comparisons Polars 2.x refuses where the Lance rules would coerce:
 * is_in of integers in a list of floats (or floats in integers), and
 * datetimes in different time zones. */
qv_status qve_bind_polars_compare_check(qve_binder *b, const qv_expr *e);
/* Before unifying a Polars comparison: numbers meet in Polars' supertype
 * where it is a float (an integer wider than 16 bits against Float32
 * compares in Float64), a Python float literal against Float32 is rounded
 * to Float32 (1e39 becomes inf). */
qv_status qve_bind_polars_compare_types(qve_binder *b, qv_expr *e);
/* Polars' `+` with a string operand: the node becomes concat_str (a bool
 * or null other operand is accepted, anything else refused); *done false,
 * nothing changed, when neither operand is a string. */
qv_status qve_bind_polars_string_add(qve_binder *b, qv_expr *e, bool *done);
/* Polars' String supertype of fill_null / coalesce / when-then values: a
 * string with bools, numbers or dates makes every operand String (cast to
 * text); *done false, nothing changed, otherwise. */
qv_status qve_bind_polars_string_union(qve_binder *b, qv_expr *e, qv_expr **slots, int32_t n, bool *done);
/* The common type of n Polars value operands, as fill_null and when/then
 * take it (a dynamic literal in the column's family, strict casts), set on
 * e; else String with bools, numbers and dates; else the union rule. */
qv_status qve_bind_polars_unify(qve_binder *b, qv_expr *e, qv_expr **slots, int32_t n, const char *what);
/* After a type error binding the Polars tree root: when it holds Python's
 * reading of `x > 2 & y` (x > (2 & y)), appends to the message that `&`
 * binds tighter than `>` and how to write it. */
void qve_bind_polars_hint(qve_binder *b, const qv_expr *root);
/* Whether e came from a Polars front end (they mark every node). */
static inline bool qve_bind_is_polars(const qv_expr *e) { return e->sem.float_order == QV_FLOAT_POLARS; }

#endif
