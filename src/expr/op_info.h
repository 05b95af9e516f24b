/* What the IR knows about each operator, read from the registry
 * (expr/ops.def) by op_info.c: its name, argument counts, class, mirror and
 * printed form.  Internal: the layers below expr (compute, pushdown,
 * index, scan) may include it; nothing here is public API. */
#ifndef QUIVER_EXPR_OP_INFO_H
#define QUIVER_EXPR_OP_INFO_H

#include "quiver/expr.h"

typedef enum qve_op_class {
  QV_OPC_NONE = 0,
  QV_OPC_COMPARE, /* = != < <= > >= */
  QV_OPC_LOGIC,   /* AND OR XOR NOT */
  QV_OPC_TEST,    /* IS [NOT] NULL / TRUE / FALSE: one argument, never null */
  QV_OPC_ARITH,   /* + - * / % negation // ** */
  QV_OPC_FORM,    /* a syntax of its own: IN, BETWEEN, LIKE, CAST, field, list, when */
  QV_OPC_FUNCTION
} qve_op_class;

typedef enum qve_op_print {
  QV_PRINT_INFIX,   /* "(a <infix> b)" */
  QV_PRINT_POSTFIX, /* "(a <name>)" */
  QV_PRINT_CALL,    /* "<call or name>(args)" */
  QV_PRINT_CUSTOM   /* print.c has a function for it */
} qve_op_print;

typedef struct qve_op_info {
  const char *name; /* qv_op_name */
  int8_t min_args;
  int8_t max_args;   /* -1: any number */
  uint8_t cls;       /* qve_op_class */
  uint8_t print;     /* qve_op_print */
  qv_op mirror;      /* the comparison with operands swapped; QV_OP_NONE when none */
  const char *infix; /* the SQL spelling between two operands, or NULL */
  const char *call;  /* the function name it prints as when not name ("least"), or NULL */
} qve_op_info;

/* The row of op; NULL when op is not an operator (out of range). */
const qve_op_info *qve_op_info_of(qv_op op);

/* Whether a node of op with n arguments has a count the op allows. */
bool qve_op_arity_ok(qv_op op, int32_t n);

static inline bool qve_op_is(qv_op op, qve_op_class cls) {
  const qve_op_info *i = qve_op_info_of(op);
  return i && i->cls == (uint8_t)cls;
}
/* = != < <= > >= */
static inline bool qve_op_is_compare(qv_op op) { return qve_op_is(op, QV_OPC_COMPARE); }
/* AND OR XOR NOT */
static inline bool qve_op_is_logic(qv_op op) { return qve_op_is(op, QV_OPC_LOGIC); }
/* IS [NOT] NULL / TRUE / FALSE */
static inline bool qve_op_is_test(qv_op op) { return qve_op_is(op, QV_OPC_TEST); }

/* The SQL text between the operands of an infix op ("=", "IS DISTINCT
 * FROM", "AND"...), or NULL when op does not print infix. */
static inline const char *qve_op_infix(qv_op op) {
  const qve_op_info *i = qve_op_info_of(op);
  return i ? i->infix : NULL;
}

#endif
