/* Types for the Lance SQL translator, on both sides: the type Polars gives
 * a node (qvp_lsql_type_of) and the type DataFusion computes for the SQL
 * quiver emits for it (qvp_lsql_lance_type).  They differ for some lowered
 * functions (dt.month() is Int8 in Polars, date_part Int32; str.len_chars()
 * UInt32 against character_length's Int32; list.len() UInt32 against
 * array_length's UInt64), and arithmetic over a value wraps in its type, so
 * the translator casts an operand to Polars' type wherever Lance's could
 * differ.  The Lance side was read with arrow_typeof() in pylance 14.0.2. */
#include "lance_int.h"

const qv_datatype *qvp_lsql_col_type(const tr *t, const qv_expr *e) {
  if (!t->schema) return NULL;
  if (e->kind == QV_EXPR_COLUMN) {
    int32_t i = qv_schema_find(t->schema, e->name);
    return i < 0 ? NULL : &t->schema->fields[i].type;
  }
  if (e->kind == QV_EXPR_CALL && e->op == QV_OP_LIST_GET && e->n_args == 2) {
    const qv_datatype *l = qvp_lsql_col_type(t, e->args[0]);
    if (l && (l->id == QV_TYPE_LIST || l->id == QV_TYPE_FIXED_SIZE_LIST) && l->n_children == 1)
      return &l->children[0].type;
    return NULL;
  }
  if (e->kind == QV_EXPR_CALL && e->op == QV_OP_FIELD && e->n_args == 1) {
    const qv_datatype *s = qvp_lsql_col_type(t, e->args[0]);
    if (!s || s->id != QV_TYPE_STRUCT) return NULL;
    for (int32_t k = 0; k < s->n_children; k++)
      if (e->name && strcmp(s->children[k].name, e->name) == 0) return &s->children[k].type;
  }
  return NULL;
}

const char *qvp_lsql_sql_type(qv_type_id id) {
  switch (id) {
    case QV_TYPE_INT8: return "TINYINT";
    case QV_TYPE_INT16: return "SMALLINT";
    case QV_TYPE_INT32: return "INT";
    case QV_TYPE_INT64: return "BIGINT";
    case QV_TYPE_UINT8: return "TINYINT UNSIGNED";
    case QV_TYPE_UINT16: return "SMALLINT UNSIGNED";
    case QV_TYPE_UINT32: return "INT UNSIGNED";
    case QV_TYPE_UINT64: return "BIGINT UNSIGNED";
    case QV_TYPE_FLOAT32: return "FLOAT";
    case QV_TYPE_FLOAT64: return "DOUBLE";
    default: return NULL;
  }
}

int qvp_lsql_div_float32(const tr *t, const qv_expr *e) {
  bool any = false, all = true;
  for (int32_t i = 0; i < 2 && i < e->n_args; i++) {
    const qv_expr *x = e->args[i];
    bool f32 = qvp_lsql_type_of(t, x) == QV_TYPE_FLOAT32;
    any = any || f32;
    all = all && (f32 || (x->kind == QV_EXPR_LITERAL && (x->flags & QV_EXPR_F_DYNAMIC)));
  }
  return !any ? 0 : all ? 1 : -1;
}

static bool is_dynamic(const qv_expr *e) { return e->kind == QV_EXPR_LITERAL && (e->flags & QV_EXPR_F_DYNAMIC); }

static qv_type_id signed_of_rank(int r) {
  static const qv_type_id s[] = {QV_TYPE_INT8, QV_TYPE_INT16, QV_TYPE_INT32, QV_TYPE_INT64};
  return r >= 1 && r <= 4 ? s[r - 1] : QV_TYPE_NULL;
}

/* Polars' supertype of two numeric types for + - * and the horizontal
 * functions: the wider within a signedness; a signed type wide enough for
 * both across signedness (Int128 for UInt64, which Lance has not:
 * QV_TYPE_NULL); an integer with a Float32 is Float32 up to 16 bits and
 * Float64 beyond. */
qv_type_id qvp_lsql_supertype(qv_type_id a, qv_type_id b) {
  if (a == b) return a;
  bool ia = qv_type_is_integer(a), ib = qv_type_is_integer(b);
  if (ia && ib) {
    int ra = qvp_lsql_int_rank(a), rb = qvp_lsql_int_rank(b);
    bool sa = qv_type_is_signed(a), sb = qv_type_is_signed(b);
    if (sa == sb) return ra >= rb ? a : b;
    int ru = sa ? rb : ra, rs = sa ? ra : rb;
    return signed_of_rank(ru + 1 > rs ? ru + 1 : rs);
  }
  if (is_float(a) && is_float(b)) return QV_TYPE_FLOAT64;
  if ((ia && is_float(b)) || (ib && is_float(a))) {
    qv_type_id f = ia ? b : a, i = ia ? a : b;
    if (f == QV_TYPE_FLOAT64) return f;
    return qvp_lsql_int_rank(i) <= 2 ? QV_TYPE_FLOAT32 : QV_TYPE_FLOAT64;
  }
  return QV_TYPE_NULL;
}

/* The type of a dynamic literal (a Python number) next to a value of type
 * v: an integer takes an integer's type if it fits, else the smallest wider
 * one Polars picks (the binder's rule: Int8 + 255 is Int16, UInt32 + -1
 * Int64; Int128 has no Lance type), or a float's; a float takes a float's
 * type and makes an integer Float64. */
static qv_type_id with_dynamic(const qv_expr *l, qv_type_id v) {
  qv_type_id lt = l->value.type.id;
  if (l->value.is_null) return v;
  if (qv_type_is_integer(lt)) {
    if (is_float(v)) return v;
    if (!qv_type_is_integer(v)) return QV_TYPE_NULL;
    qv_type_id d = QV_TYPE_NULL;
    (void)qve_polars_dynamic_type(&l->value, v, &d);
    return qv_type_is_integer(d) ? d : QV_TYPE_NULL;
  }
  if (is_float(lt)) return is_float(v) ? v : qv_type_is_integer(v) ? QV_TYPE_FLOAT64 : QV_TYPE_NULL;
  return QV_TYPE_NULL;
}

/* The Polars result type of a node over several numeric operands (+ - *,
 * fill_null, coalesce, min/max_horizontal); QV_TYPE_NULL when unknown or
 * not representable in Lance. */
qv_type_id qvp_lsql_numeric_type(const tr *t, const qv_expr *e) {
  qv_type_id r = QV_TYPE_NULL;
  bool any = false;
  for (int32_t i = 0; i < e->n_args; i++) {
    const qv_expr *a = e->args[i];
    if (is_dynamic(a)) continue;
    qv_type_id ti = qvp_lsql_type_of(t, a);
    if (ti == QV_TYPE_NULL) return QV_TYPE_NULL;
    if (!any) r = ti;
    else if (r != ti) {
      if (!qv_type_is_numeric(r) || !qv_type_is_numeric(ti)) return QV_TYPE_NULL;
      r = qvp_lsql_supertype(r, ti);
    }
    any = true;
    if (r == QV_TYPE_NULL) return r;
  }
  if (!any) return QV_TYPE_NULL;
  for (int32_t i = 0; i < e->n_args; i++)
    if (is_dynamic(e->args[i])) {
      if (!qv_type_is_numeric(r) && !e->args[i]->value.is_null && r != e->args[i]->value.type.id) return QV_TYPE_NULL;
      if (qv_type_is_numeric(r)) r = with_dynamic(e->args[i], r);
      if (r == QV_TYPE_NULL) return r;
    }
  if (r == QV_TYPE_DECIMAL128) return QV_TYPE_NULL;
  return r;
}

/* Polars' type of dt.<part>(). */
static qv_type_id dt_part_type(const qv_expr *e) {
  if (!e->name) return QV_TYPE_NULL;
  if (strcmp(e->name, "year") == 0) return QV_TYPE_INT32;
  if (strcmp(e->name, "ordinal_day") == 0) return QV_TYPE_INT16;
  return QV_TYPE_INT8; /* month day hour minute second weekday week quarter */
}

qv_type_id qvp_lsql_type_of(const tr *t, const qv_expr *e) {
  switch (e->kind) {
    case QV_EXPR_LITERAL: return e->value.type.id;
    case QV_EXPR_COLUMN: {
      const qv_datatype *d = qvp_lsql_col_type(t, e);
      return d ? d->id : QV_TYPE_NULL;
    }
    default: break;
  }
  switch (e->op) {
    case QV_OP_EQ:
    case QV_OP_NE:
    case QV_OP_LT:
    case QV_OP_LE:
    case QV_OP_GT:
    case QV_OP_GE:
    case QV_OP_IS_NULL:
    case QV_OP_IS_NOT_NULL:
    case QV_OP_IN:
    case QV_OP_STARTS_WITH:
    case QV_OP_ENDS_WITH:
    case QV_OP_CONTAINS:
    case QV_OP_REGEXP_MATCH:
    case QV_OP_REGEXP_LIKE:
    case QV_OP_ISNAN:
    case QV_OP_IS_NOT_NAN:
    case QV_OP_IS_FINITE:
    case QV_OP_IS_INFINITE:
    case QV_OP_EQ_MISSING:
    case QV_OP_NE_MISSING:
    case QV_OP_ARRAY_HAS:
    case QV_OP_CONTAINS_ANY: return QV_TYPE_BOOL;
    case QV_OP_AND:
    case QV_OP_OR:
    case QV_OP_XOR:
    case QV_OP_NOT: {
      for (int32_t i = 0; i < e->n_args; i++)
        if (qvp_lsql_type_of(t, e->args[i]) != QV_TYPE_BOOL) return QV_TYPE_NULL;
      return QV_TYPE_BOOL;
    }
    case QV_OP_CAST: return e->type.id;
    case QV_OP_DIV:
      if (!(e->flags & QV_EXPR_F_TRUE_DIV)) return QV_TYPE_NULL;
      return qvp_lsql_div_float32(t, e) == 1 ? QV_TYPE_FLOAT32 : QV_TYPE_FLOAT64;
    case QV_OP_LOWER:
    case QV_OP_UPPER:
    case QV_OP_CONCAT_STR:
    case QV_OP_STRIP_CHARS: return QV_TYPE_STRING;
    case QV_OP_LENGTH:
    case QV_OP_LEN_BYTES:
    case QV_OP_ARRAY_LENGTH: return QV_TYPE_UINT32;
    case QV_OP_DT_PART: return dt_part_type(e);
    case QV_OP_DT_DATE: return QV_TYPE_DATE32;
    case QV_OP_DT_TRUNCATE: return qvp_lsql_type_of(t, e->args[0]);
    case QV_OP_FIELD:
    case QV_OP_LIST_GET: {
      const qv_datatype *d = qvp_lsql_col_type(t, e);
      return d ? d->id : QV_TYPE_NULL;
    }
    case QV_OP_SQRT:
    case QV_OP_LN:
    case QV_OP_LOG10:
    case QV_OP_CBRT: return qvp_lsql_type_of(t, e->args[0]) == QV_TYPE_FLOAT64 ? QV_TYPE_FLOAT64 : QV_TYPE_NULL;
    case QV_OP_FLOORDIV:
    case QV_OP_MOD: {
      qv_type_id x = qvp_lsql_type_of(t, e->args[0]);
      return qv_type_is_integer(x) && is_dynamic(e->args[1]) && qvp_lsql_lit_fits(e->args[1], x) ? x : QV_TYPE_NULL;
    }
    case QV_OP_ABS:
    case QV_OP_NEG: return qvp_lsql_type_of(t, e->args[0]);
    case QV_OP_POW: {
      qv_type_id r = qvp_lsql_type_of(t, e->args[0]);
      const qv_expr *y = e->args[1];
      if (qv_type_is_integer(r) && qve_is_value_lit(y) && is_float(y->value.type.id)) return QV_TYPE_FLOAT64;
      return qv_type_is_integer(r) || is_float(r) ? r : QV_TYPE_NULL;
    }
    case QV_OP_MIN_HORIZONTAL:
    case QV_OP_MAX_HORIZONTAL: {
      qv_type_id r = qvp_lsql_numeric_type(t, e);
      return r == QV_TYPE_NULL && qvp_lsql_int128(t, e) ? QV_TYPE_DECIMAL128 : r;
    }
    case QV_OP_ADD:
    case QV_OP_SUB:
    case QV_OP_MUL:
    case QV_OP_FILL_NULL:
    case QV_OP_COALESCE: return qvp_lsql_numeric_type(t, e);
    default: return QV_TYPE_NULL;
  }
}

bool qvp_lsql_int128(const tr *t, const qv_expr *e) {
  bool u64 = false, sig = false;
  for (int32_t i = 0; i < e->n_args; i++) {
    qv_type_id id = qvp_lsql_type_of(t, e->args[i]);
    if (qve_is_lit(e->args[i]) || !qv_type_is_integer(id)) return false;
    u64 = u64 || id == QV_TYPE_UINT64;
    sig = sig || qv_type_is_signed(id);
  }
  return u64 && sig;
}

qv_type_id qvp_lsql_lance_type(const tr *t, const qv_expr *e) {
  switch (e->kind) {
    case QV_EXPR_LITERAL: {
      qv_type_id id = e->value.type.id;
      if (qv_type_is_integer(id))
        return qv_type_is_signed(id) || e->value.v.u <= (uint64_t)INT64_MAX ? QV_TYPE_INT64 : QV_TYPE_UINT64;
      return is_float(id) ? QV_TYPE_FLOAT64 : id;
    }
    case QV_EXPR_COLUMN: return qvp_lsql_type_of(t, e);
    default: break;
  }
  switch (e->op) {
    case QV_OP_DT_PART:
      return e->name && strcmp(e->name, "weekday") == 0 ? QV_TYPE_INT64 : QV_TYPE_INT32; /* date_part */
    case QV_OP_LENGTH:
    case QV_OP_LEN_BYTES: return QV_TYPE_INT32;     /* character_length, octet_length */
    case QV_OP_ARRAY_LENGTH: return QV_TYPE_UINT64; /* array_length */
    case QV_OP_FIELD:
    case QV_OP_LIST_GET:
    case QV_OP_CAST:
    case QV_OP_ADD: /* operands cast to Polars' type (lance.c, arith_binop) */
    case QV_OP_SUB:
    case QV_OP_MUL:
    case QV_OP_FILL_NULL: /* literals cast to Polars' type (lance_coalesce) */
    case QV_OP_COALESCE:
    case QV_OP_MIN_HORIZONTAL:
    case QV_OP_MAX_HORIZONTAL:
    case QV_OP_DIV:
    case QV_OP_FLOORDIV:
    case QV_OP_SQRT:
    case QV_OP_LN:
    case QV_OP_LOG10:
    case QV_OP_CBRT:
    case QV_OP_DT_DATE:
    case QV_OP_DT_TRUNCATE: return qvp_lsql_type_of(t, e);
    case QV_OP_POW: /* an integer base under a float exponent is cast to DOUBLE (lance.c) */
      if (qvp_lsql_type_of(t, e) == QV_TYPE_FLOAT64 && qv_type_is_integer(qvp_lsql_type_of(t, e->args[0])))
        return QV_TYPE_FLOAT64;
      return qvp_lsql_lance_type(t, e->args[0]);
    case QV_OP_NEG: return qvp_lsql_lance_type(t, e->args[0]);
    default: return QV_TYPE_NULL;
  }
}
