/* Binding of the string, temporal and list operators only the Polars
 * front ends produce (str.slice, strip_chars, replace, contains_any,
 * to_titlecase, len_bytes, concat_str, the dt namespace, list.get).
 *
 * Result types are Polars 2.1.0's: len_bytes UInt32; dt parts year and
 * iso_year Int32, month day hour minute second weekday quarter week Int8,
 * ordinal_day Int16, millisecond microsecond nanosecond Int32; epoch
 * Int64; truncate keeps its input's type; date Date; list.get the list's
 * element type; concat_str String (other types are cast to String first,
 * as Polars does).  Arguments Polars would refuse are refused here with
 * "<op> expects X, got Y at column N".  Options that must be constants
 * here (the truncate interval, the replace pattern and value, the
 * contains_any patterns) are checked by the kernels, which say so. */
#include <stdio.h>
#include <string.h>

#include "expr/bind_int.h"

/* Argument i must be a string (a null literal becomes one). */
static qv_status want_str(qve_binder *b, qv_expr *e, int32_t i, const char *what) {
  qv_type_id id = e->args[i]->type.id;
  if (id == QV_TYPE_STRING) return QV_OK;
  if (id == QV_TYPE_NULL) return qve_bind_coerce_simple(b, &e->args[i], QV_TYPE_STRING);
  return qve_bind_error(b, QV_ERR_TYPE, e->pos, "%s expects a string, got %s", what, TN(&e->args[i]->type));
}

/* Argument i must be an integer (or null); it becomes Int64. */
static qv_status want_int(qve_binder *b, qv_expr *e, int32_t i, const char *what) {
  qv_type_id id = e->args[i]->type.id;
  if (qve_is_int(id) || id == QV_TYPE_NULL) return qve_bind_coerce_simple(b, &e->args[i], QV_TYPE_INT64);
  return qve_bind_error(b, QV_ERR_TYPE, e->pos, "%s expects an integer, got %s", what, TN(&e->args[i]->type));
}

static qv_status want_args(qve_binder *b, qv_expr *e, int32_t n) {
  if (e->n_args == n) return QV_OK;
  return qve_bind_error(b, QV_ERR_INVALID, e->pos, "%s takes %d argument%s, got %d", qv_op_name(e->op), (int)n,
                        n == 1 ? "" : "s", (int)e->n_args);
}

/* Lance's a || b: DataFusion wants a string on one side and casts the
 * other to text; an integer prints the same in both (decimal digits), a
 * NULL makes the result null; other types (floats, bools: Lance prints or
 * refuses them its own way) are refused, as both integers are by Lance. */
static qv_status sql_concat(qve_binder *b, qv_expr *e) {
  bool str = false;
  for (int32_t i = 0; i < e->n_args; i++) {
    qv_type_id id = e->args[i]->type.id;
    str = str || id == QV_TYPE_STRING;
    if (id != QV_TYPE_STRING && id != QV_TYPE_NULL && !qve_is_int(id))
      return qve_bind_error(b, QV_ERR_TYPE, e->pos, "|| cannot concatenate %s (strings and integers only)",
                            TN(&e->args[i]->type));
  }
  if (!str) return qve_bind_error(b, QV_ERR_TYPE, e->pos, "|| needs a string on one side");
  for (int32_t i = 0; i < e->n_args; i++)
    if (e->args[i]->type.id != QV_TYPE_STRING) QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, &e->args[i], QV_TYPE_STRING));
  qve_bind_set_simple(e, QV_TYPE_STRING);
  return QV_OK;
}

qv_status qve_bind_rule_concat_str(qve_binder *b, qv_expr *e) {
  if (e->flags & QV_EXPR_F_SQL_FORM) return sql_concat(b, e);
  if (e->n_args < 1) return qve_bind_error(b, QV_ERR_INVALID, e->pos, "concat_str needs at least one input");
  for (int32_t i = 0; i < e->n_args; i++) {
    qv_type_id id = e->args[i]->type.id;
    if (id == QV_TYPE_STRING) continue;
    if (id == QV_TYPE_LIST || id == QV_TYPE_STRUCT || id == QV_TYPE_FIXED_SIZE_LIST || id == QV_TYPE_BINARY)
      return qve_bind_error(b, QV_ERR_TYPE, e->pos, "concat_str cannot turn %s into a string (input %d)",
                            TN(&e->args[i]->type), (int)i + 1);
    QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, &e->args[i], QV_TYPE_STRING));
  }
  qve_bind_set_simple(e, QV_TYPE_STRING);
  return QV_OK;
}

qv_status qve_bind_rule_contains_any(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(want_args(b, e, 2));
  QV_RETURN_NOT_OK(want_str(b, e, 0, "str.contains_any"));
  const qv_datatype *t = &e->args[1]->type;
  bool ok =
      qve_is_listlike(t->id) && (t->children[0].type.id == QV_TYPE_STRING || t->children[0].type.id == QV_TYPE_NULL);
  if (!ok) return qve_bind_error(b, QV_ERR_TYPE, e->pos, "str.contains_any expects a list of strings, got %s", TN(t));
  if (t->children[0].type.id == QV_TYPE_NULL) {
    qv_datatype st = qv_datatype_simple(QV_TYPE_STRING), lt;
    if (qve_bind_list_of(&st, &lt) != QV_OK) return qve_bind_nomem(b);
    qv_status s = qve_bind_coerce_to(b, &e->args[1], &lt);
    qv_datatype_reset(&lt);
    QV_RETURN_NOT_OK(s);
  }
  qve_bind_set_simple(e, QV_TYPE_BOOL);
  return QV_OK;
}

/* Polars' dt parts and their result types; `needs_time` parts are refused
 * for dates, `needs_date` parts for times. */
static const struct {
  const char *name;
  qv_type_id type;
  bool needs_time, needs_date;
} dt_parts[] = {
    {"year", QV_TYPE_INT32, false, true},        {"iso_year", QV_TYPE_INT32, false, true},
    {"quarter", QV_TYPE_INT8, false, true},      {"month", QV_TYPE_INT8, false, true},
    {"week", QV_TYPE_INT8, false, true},         {"day", QV_TYPE_INT8, false, true},
    {"weekday", QV_TYPE_INT8, false, true},      {"ordinal_day", QV_TYPE_INT16, false, true},
    {"hour", QV_TYPE_INT8, true, false},         {"minute", QV_TYPE_INT8, true, false},
    {"second", QV_TYPE_INT8, true, false},       {"millisecond", QV_TYPE_INT32, true, false},
    {"microsecond", QV_TYPE_INT32, true, false}, {"nanosecond", QV_TYPE_INT32, true, false},
};

static qv_status bind_dt(qve_binder *b, qv_expr *e, const char *what) {
  const qv_datatype *t = &e->args[0]->type;
  qv_type_id id = t->id;
  if (id == QV_TYPE_NULL) {
    QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, &e->args[0], QV_TYPE_DATE32));
    id = QV_TYPE_DATE32;
  }
  if (!qve_is_datetime(id) && !(e->op == QV_OP_DT_PART && id == QV_TYPE_TIME64))
    return qve_bind_error(b, QV_ERR_TYPE, e->pos, "%s expects a date or datetime, got %s", what, TN(t));
  return QV_OK;
}

qv_status qve_bind_rule_dt_part(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(want_args(b, e, 1));
  const char *name = e->name ? e->name : "";
  for (size_t k = 0; k < sizeof dt_parts / sizeof dt_parts[0]; k++) {
    if (strcmp(name, dt_parts[k].name) != 0) continue;
    char what[40];
    snprintf(what, sizeof what, "dt.%s", name);
    QV_RETURN_NOT_OK(bind_dt(b, e, what));
    qv_type_id id = e->args[0]->type.id;
    if ((dt_parts[k].needs_time && id == QV_TYPE_DATE32) || (dt_parts[k].needs_date && id == QV_TYPE_TIME64))
      return qve_bind_error(b, QV_ERR_TYPE, e->pos, "%s is not defined for %s", what, TN(&e->args[0]->type));
    qve_bind_set_simple(e, dt_parts[k].type);
    return QV_OK;
  }
  return qve_bind_error(b, QV_ERR_INVALID, e->pos, "unknown temporal part dt.%s", name);
}

qv_status qve_bind_rule_str_slice(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(want_args(b, e, 3));
  QV_RETURN_NOT_OK(want_str(b, e, 0, qv_op_name(e->op)));
  QV_RETURN_NOT_OK(want_int(b, e, 1, "str.slice offset"));
  QV_RETURN_NOT_OK(want_int(b, e, 2, "str.slice length"));
  qve_bind_set_simple(e, QV_TYPE_STRING);
  return QV_OK;
}

qv_status qve_bind_rule_strip_chars(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(want_args(b, e, 2));
  QV_RETURN_NOT_OK(want_str(b, e, 0, qv_op_name(e->op)));
  QV_RETURN_NOT_OK(want_str(b, e, 1, "str.strip_chars characters"));
  qve_bind_set_simple(e, QV_TYPE_STRING);
  return QV_OK;
}

qv_status qve_bind_rule_replace(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(want_args(b, e, 3));
  QV_RETURN_NOT_OK(want_str(b, e, 0, qv_op_name(e->op)));
  QV_RETURN_NOT_OK(want_str(b, e, 1, "str.replace pattern"));
  QV_RETURN_NOT_OK(want_str(b, e, 2, "str.replace value"));
  qve_bind_set_simple(e, QV_TYPE_STRING);
  return QV_OK;
}

qv_status qve_bind_rule_titlecase(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(want_args(b, e, 1));
  QV_RETURN_NOT_OK(want_str(b, e, 0, qv_op_name(e->op)));
  qve_bind_set_simple(e, QV_TYPE_STRING);
  return QV_OK;
}

qv_status qve_bind_rule_len_bytes(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(want_args(b, e, 1));
  QV_RETURN_NOT_OK(want_str(b, e, 0, qv_op_name(e->op)));
  qve_bind_set_simple(e, QV_TYPE_UINT32);
  return QV_OK;
}

qv_status qve_bind_rule_dt_epoch(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(want_args(b, e, 1));
  const char *u = e->name ? e->name : "";
  if (strcmp(u, "ns") != 0 && strcmp(u, "us") != 0 && strcmp(u, "ms") != 0)
    return qve_bind_error(b, QV_ERR_INVALID, e->pos, "dt.epoch: unknown time unit '%s'", u);
  QV_RETURN_NOT_OK(bind_dt(b, e, "dt.epoch"));
  qve_bind_set_simple(e, QV_TYPE_INT64);
  return QV_OK;
}

qv_status qve_bind_rule_dt_truncate(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(want_args(b, e, 2));
  QV_RETURN_NOT_OK(bind_dt(b, e, qv_op_name(e->op)));
  const qv_expr *every = e->args[1];
  if (every->kind != QV_EXPR_LITERAL || every->value.is_null || every->value.type.id != QV_TYPE_STRING)
    return qve_bind_error(b, QV_ERR_UNSUPPORTED, e->pos,
                          "dt.truncate expects a constant interval such as \"1d\", got %s", TN(&every->type));
  return qve_bind_set_type(b, e, &e->args[0]->type);
}

qv_status qve_bind_rule_dt_date(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(want_args(b, e, 1));
  QV_RETURN_NOT_OK(bind_dt(b, e, qv_op_name(e->op)));
  qve_bind_set_simple(e, QV_TYPE_DATE32);
  return QV_OK;
}

qv_status qve_bind_rule_list_get(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(want_args(b, e, 2));
  qv_type_id id = e->args[0]->type.id;
  if (!qve_is_listlike(id))
    return qve_bind_error(b, QV_ERR_TYPE, e->pos, "list.get expects a list, got %s", TN(&e->args[0]->type));
  QV_RETURN_NOT_OK(want_int(b, e, 1, "list.get index"));
  return qve_bind_set_type(b, e, &e->args[0]->type.children[0].type);
}

/* QV_OP_NONE, and a value that is not an operator. */
qv_status qve_bind_rule_unbindable(qve_binder *b, qv_expr *e) {
  return qve_bind_error(b, QV_ERR_INVALID, e->pos, "operator %s cannot be bound", qv_op_name(e->op));
}
