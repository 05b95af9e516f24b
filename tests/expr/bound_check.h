/* The binder's contract with the compute layer, as a checker over a bound
 * tree (used by test_bind.c over every golden input and by the fuzz
 * target over everything that binds).  Returns NULL when the tree keeps
 * the contract, else a description of the first node that breaks it. */
#ifndef QUIVER_TESTS_EXPR_BOUND_CHECK_H
#define QUIVER_TESTS_EXPR_BOUND_CHECK_H

#include <string.h>

#include "quiver/expr.h"

static inline bool bc_int(qv_type_id id) { return id >= QV_TYPE_INT8 && id <= QV_TYPE_UINT64; }

/* Operands of a comparison: one type, or int64 with uint64 (mixed). */
static inline bool bc_same_or_mixed(const qv_expr *e, int32_t from) {
  bool mixed = true, same = true;
  for (int32_t i = from; i < e->n_args; i++) {
    qv_type_id id = e->args[i]->type.id;
    if (id != QV_TYPE_INT64 && id != QV_TYPE_UINT64) mixed = false;
    if (!qv_datatype_equal(&e->args[i]->type, &e->args[from]->type)) same = false;
  }
  return same || mixed;
}

static inline bool bc_all(const qv_expr *e, int32_t from, qv_type_id id) {
  for (int32_t i = from; i < e->n_args; i++)
    if (e->args[i]->type.id != id) return false;
  return true;
}

static inline const char *bc_check(const qv_expr *e, const qv_schema *schema) {
  for (int32_t i = 0; i < e->n_args; i++) {
    const char *why = bc_check(e->args[i], schema);
    if (why) return why;
  }
  if (e->kind == QV_EXPR_COLUMN) {
    if (e->column < 0 || e->column >= schema->n_fields) return "column not bound";
    if (strcmp(e->name, schema->fields[e->column].name)) return "column name not the schema's";
    if (!qv_datatype_equal(&e->type, &schema->fields[e->column].type)) return "column type not the schema's";
    return NULL;
  }
  if (e->kind == QV_EXPR_LITERAL)
    return qv_datatype_equal(&e->type, &e->value.type) ? NULL : "literal type differs from its value's";
  qv_type_id t = e->type.id;
  switch (e->op) {
    case QV_OP_EQ:
    case QV_OP_NE:
    case QV_OP_LT:
    case QV_OP_LE:
    case QV_OP_GT:
    case QV_OP_GE:
    case QV_OP_IN:
    case QV_OP_BETWEEN:
    case QV_OP_EQ_MISSING:
    case QV_OP_NE_MISSING:
      if (t != QV_TYPE_BOOL) return "comparison not bool";
      return bc_same_or_mixed(e, 0) ? NULL : "comparison operands differ";
    case QV_OP_AND:
    case QV_OP_OR:
    case QV_OP_XOR:
    case QV_OP_NOT:
    case QV_OP_IS_TRUE:
    case QV_OP_IS_NOT_TRUE:
    case QV_OP_IS_FALSE:
    case QV_OP_IS_NOT_FALSE: return t == QV_TYPE_BOOL && bc_all(e, 0, QV_TYPE_BOOL) ? NULL : "logic not over bools";
    case QV_OP_IS_NULL:
    case QV_OP_IS_NOT_NULL: return t == QV_TYPE_BOOL ? NULL : "IS NULL not bool";
    case QV_OP_LIKE:
    case QV_OP_STARTS_WITH:
    case QV_OP_ENDS_WITH:
    case QV_OP_CONTAINS:
    case QV_OP_REGEXP_LIKE:
    case QV_OP_REGEXP_MATCH: return t == QV_TYPE_BOOL && bc_all(e, 0, QV_TYPE_STRING) ? NULL : "string predicate types";
    case QV_OP_LOWER:
    case QV_OP_UPPER: return t == QV_TYPE_STRING && bc_all(e, 0, QV_TYPE_STRING) ? NULL : "lower/upper types";
    case QV_OP_LENGTH:
      return (t == QV_TYPE_INT32 || (t == QV_TYPE_UINT32 && e->sem.float_order == QV_FLOAT_POLARS)) &&
                     bc_all(e, 0, QV_TYPE_STRING)
                 ? NULL
                 : "length types";
    case QV_OP_ADD:
    case QV_OP_SUB:
    case QV_OP_MUL:
    case QV_OP_DIV:
    case QV_OP_MOD:
      if (t == QV_TYPE_DECIMAL128)
        return bc_all(e, 0, QV_TYPE_DECIMAL128) ? NULL : "decimal arithmetic over non-decimals";
      if (!(bc_int(t) || t == QV_TYPE_FLOAT32 || t == QV_TYPE_FLOAT64)) return "arithmetic result not numeric";
      return qv_datatype_equal(&e->args[0]->type, &e->type) && qv_datatype_equal(&e->args[1]->type, &e->type)
                 ? NULL
                 : "arithmetic operands differ from the result";
    case QV_OP_NEG:
    case QV_OP_ABS: return qv_datatype_equal(&e->args[0]->type, &e->type) ? NULL : "neg/abs type";
    case QV_OP_COALESCE:
    case QV_OP_MIN_HORIZONTAL:
    case QV_OP_MAX_HORIZONTAL:
      for (int32_t i = 0; i < e->n_args; i++)
        if (!qv_datatype_equal(&e->args[i]->type, &e->type)) return "coalesce operand differs";
      return NULL;
    case QV_OP_ISNAN:
      return t == QV_TYPE_BOOL && (e->args[0]->type.id == QV_TYPE_FLOAT32 || e->args[0]->type.id == QV_TYPE_FLOAT64)
                 ? NULL
                 : "isnan types";
    case QV_OP_ARRAY_HAS: {
      const qv_datatype *l = &e->args[0]->type;
      if (l->id != QV_TYPE_LIST && l->id != QV_TYPE_FIXED_SIZE_LIST) return "array_has over a non-list";
      return qv_datatype_equal(&l->children[0].type, &e->args[1]->type) ? NULL : "array_has needle type";
    }
    case QV_OP_ARRAY_HAS_ANY:
    case QV_OP_ARRAY_HAS_ALL: {
      const qv_datatype *l = &e->args[0]->type, *r = &e->args[1]->type;
      if ((l->id != QV_TYPE_LIST && l->id != QV_TYPE_FIXED_SIZE_LIST) ||
          (r->id != QV_TYPE_LIST && r->id != QV_TYPE_FIXED_SIZE_LIST))
        return "array_has_any over non-lists";
      return qv_datatype_equal(&l->children[0].type, &r->children[0].type) ? NULL : "array_has_any items differ";
    }
    case QV_OP_ARRAY_LENGTH: /* Polars' list.len is UInt32 */
      return t == QV_TYPE_UINT64 || (t == QV_TYPE_UINT32 && e->sem.float_order == QV_FLOAT_POLARS)
                 ? NULL
                 : "array_length type";
    case QV_OP_DATE_PART: return t == QV_TYPE_INT64 ? NULL : "date_part type";
    case QV_OP_DATE_TRUNC: return qv_datatype_equal(&e->args[1]->type, &e->type) ? NULL : "date_trunc type";
    case QV_OP_LIST:
      if (t != QV_TYPE_LIST && t != QV_TYPE_FIXED_SIZE_LIST) return "list literal not a list";
      for (int32_t i = 0; i < e->n_args; i++)
        if (!qv_datatype_equal(&e->args[i]->type, &e->type.children[0].type)) return "list element type";
      return NULL;
    case QV_OP_FIELD: return e->args[0]->type.id == QV_TYPE_STRUCT ? NULL : "field of a non-struct";
    case QV_OP_CAST: return NULL;
    case QV_OP_CONCAT_STR: /* a || b */
      return t == QV_TYPE_STRING && bc_all(e, 0, QV_TYPE_STRING) ? NULL : "|| operands and result are strings";
    case QV_OP_WHEN: /* nanvl(x, y) as when(isnan(x), y, x) */
      for (int32_t i = 0; i + 1 < e->n_args; i += 2)
        if (e->args[i]->type.id != QV_TYPE_BOOL && e->args[i]->type.id != QV_TYPE_NULL) return "when predicate type";
      for (int32_t i = 1; i < e->n_args; i += 2)
        if (!qv_datatype_equal(&e->args[i]->type, &e->type)) return "when value type";
      return qv_datatype_equal(&e->args[e->n_args - 1]->type, &e->type) ? NULL : "when otherwise type";
    default: return "unexpected operator";
  }
}

#endif
