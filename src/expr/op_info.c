/* The expr layer's columns of the operator registry (expr/ops.def): one
 * qve_op_info per operator, and the questions answered from it. */
#include "expr/op_info.h"

/* ops.def must list exactly the public enum, in its order: a row that is
 * missing, extra or out of place fails the build here. */
enum {
#define QV_OP_ROW(id, ...) QV_OP_ROW_##id,
#include "expr/ops.def"
#undef QV_OP_ROW
  QV_OP_ROWS
};
#define QV_OP_ROW(id, ...) \
  _Static_assert((int)QV_OP_ROW_##id == (int)QV_OP_##id, "ops.def: row " #id " is out of enum order");
#include "expr/ops.def"
#undef QV_OP_ROW
_Static_assert((int)QV_OP_ROWS == (int)QV_OP__COUNT, "ops.def: one row per qv_op");

#define MIRROR(m) QV_OP_##m
#define NO_MIRROR QV_OP_NONE
#define P_INFIX(s) QV_PRINT_INFIX, s, NULL
#define P_POSTFIX QV_PRINT_POSTFIX, NULL, NULL
#define P_CALL QV_PRINT_CALL, NULL, NULL
#define P_CALL_AS(f) QV_PRINT_CALL, NULL, f
#define P_CUSTOM(f) QV_PRINT_CUSTOM, NULL, NULL
#define ROW_(name, lo, hi, cls, mirror, print, infix, call) {name, lo, hi, QV_OPC_##cls, print, mirror, infix, call},
#define ROW(...) ROW_(__VA_ARGS__)
#define QV_OP_ROW(id, name, lo, hi, cls, mirror, sql, print, ...) ROW(name, lo, hi, cls, mirror, print)
static const qve_op_info ops[QV_OP__COUNT] = {
#include "expr/ops.def"
};
#undef QV_OP_ROW

const qve_op_info *qve_op_info_of(qv_op op) { return (unsigned)op < (unsigned)QV_OP__COUNT ? &ops[op] : NULL; }

bool qve_op_arity_ok(qv_op op, int32_t n) {
  const qve_op_info *i = qve_op_info_of(op);
  return i && n >= i->min_args && (i->max_args < 0 || n <= i->max_args);
}

const char *qv_op_name(qv_op op) {
  const qve_op_info *i = qve_op_info_of(op);
  return i ? i->name : "?";
}

qv_op qv_op_mirror(qv_op op) {
  const qve_op_info *i = qve_op_info_of(op);
  return i && i->mirror != QV_OP_NONE ? i->mirror : op;
}
