/* Pushdown into the dataset scanner: a start node's conjuncts as quiver's
 * expression IR over its label's dataset, for qv_scanner (page statistics
 * prune, scalar indices answer).  Only what means exactly the same is
 * translated; everything else stays a CypherFilterExec:
 *
 *   - `n.key OP c`, c a literal or parameter (or a list of them for IN) of
 *     the column's Cypher type: an integer column (int8..int64, uint8..32)
 *     with Integers; a float column with Floats, or Integers of at most
 *     2^53 in magnitude (converted exactly: Cypher compares numbers by
 *     value); a string column with Strings; a bool column with Booleans
 *     (= and <> only).  A Float against an integer column, a uint64 column
 *     (Cypher fails on values over 2^63), temporal, binary and nested
 *     columns, and null constants are not translated.
 *   - Comparisons carry IEEE float semantics (NaN compares false, <> true;
 *     -0.0 = 0.0), which is Cypher's; strings compare by bytes, which for
 *     UTF-8 is code point order, Cypher's.  Chains (1 < n.x < 5) are ANDs.
 *   - IS [NOT] NULL; STARTS WITH / ENDS WITH / CONTAINS with a String;
 *     IN a non-empty list (SQL's IN with a null in the list is null when
 *     the value is not found, as Cypher's; `x IN []` is false even for a
 *     null x in Cypher, so empty lists stay); a bare bool property as
 *     `key = true` (null stays null, as a WHERE needs).
 *   - AND, OR, XOR and NOT of these: Kleene logic in both. */
#include <math.h>
#include <string.h>

#include "graph/cypher_plan_int.h"

/* Cypher's semantics on an IR node: IEEE floats, SQL's IN. */
static qv_expr *cy(qv_expr *e) {
  if (!e) return NULL;
  e->sem.float_order = QV_FLOAT_IEEE;
  e->sem.in_nulls_equal = false;
  e->sem.in_list_nulls_ignored = false;
  return e;
}

typedef enum { T_NONE, T_INT, T_FLOAT, T_STRING, T_BOOL } col_class;

static col_class class_of(qv_type_id id) {
  switch (id) {
    case QV_TYPE_INT8:
    case QV_TYPE_INT16:
    case QV_TYPE_INT32:
    case QV_TYPE_INT64:
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32: return T_INT;
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64: return T_FLOAT;
    case QV_TYPE_STRING: return T_STRING;
    case QV_TYPE_BOOL: return T_BOOL;
    default: return T_NONE;
  }
}

/* The column `key` of the label's dataset and its class, when e is
 * `var.key` for such a column. */
static col_class prop_column(qvg_planner *p, const qvg_node *e, const char *var, int32_t label, const char **key) {
  if (!e || e->kind != QVG_PROP || !e->kids[0] || e->kids[0]->kind != QVG_VAR || strcmp(e->kids[0]->str, var) != 0)
    return T_NONE;
  const qv_schema *sc = qv_dataset_schema(p->st->g->cat.labels[label].ds);
  int32_t c = qv_schema_find(sc, e->str);
  if (c < 0) return T_NONE;
  *key = sc->fields[c].name;
  return class_of(sc->fields[c].type.id);
}

/* A constant of the syntax tree: a literal, a parameter, a negated
 * number, a list of them. */
static bool const_val(qvg_planner *p, const qvg_node *e, qvg_val *out) {
  if (!e) return false;
  switch (e->kind) {
    case QVG_INT: *out = qvg_int(e->i0); return true;
    case QVG_FLOAT: *out = qvg_float(e->f); return true;
    case QVG_STRING: *out = qvg_string(e->str, e->len); return true;
    case QVG_LIT_TRUE: *out = qvg_bool(true); return true;
    case QVG_LIT_FALSE: *out = qvg_bool(false); return true;
    case QVG_NULL: *out = qvg_null(); return true;
    case QVG_NEG: {
      const qvg_node *k = e->kids[0];
      if (k->kind == QVG_FLOAT) *out = qvg_float(-k->f);
      else if (k->kind == QVG_INT && k->i0 > INT64_MIN) *out = qvg_int(-k->i0);
      else return false;
      return true;
    }
    case QVG_PARAM:
      for (int32_t i = 0; i < p->n_params; i++)
        if (strcmp(p->param_names[i], e->str) == 0) {
          *out = p->param_values[i];
          return true;
        }
      return false;
    default: return false;
  }
}

/* A literal of the column's class for the value v, or NULL when v is not
 * of it (or memory ran out: *st). */
static qv_expr *literal(col_class k, const qvg_val *v, qv_status *st) {
  qv_scalar s = QV_SCALAR_INIT;
  switch (k) {
    case T_INT:
      if (v->t != QVG_V_INT) return NULL;
      s = qv_scalar_int(QV_TYPE_INT64, v->u.i);
      break;
    case T_FLOAT:
      if (v->t == QVG_V_FLOAT) s = qv_scalar_double(v->u.f);
      else if (v->t == QVG_V_INT && v->u.i >= -(INT64_C(1) << 53) && v->u.i <= (INT64_C(1) << 53))
        s = qv_scalar_double((double)v->u.i);
      else return NULL;
      break;
    case T_STRING:
      if (v->t != QVG_V_STRING) return NULL;
      if (qv_scalar_string(v->u.s, v->n, &s) != QV_OK) {
        *st = QV_ERR_NOMEM;
        return NULL;
      }
      break;
    case T_BOOL:
      if (v->t != QVG_V_BOOL) return NULL;
      s = qv_scalar_bool(v->u.b);
      break;
    default: return NULL;
  }
  qv_expr *e = qv_expr_literal(&s);
  if (!e) *st = QV_ERR_NOMEM;
  return e;
}

static qv_expr *column(const char *key, qv_status *st) {
  qv_expr *e = qv_expr_column(key);
  if (!e) *st = QV_ERR_NOMEM;
  return e;
}

static qv_expr *call2(qv_op op, qv_expr *a, qv_expr *b, qv_status *st) {
  if (!a || !b) {
    qv_expr_destroy(a);
    qv_expr_destroy(b);
    return NULL;
  }
  qv_expr *e = cy(qv_expr_binary(op, a, b));
  if (!e) *st = QV_ERR_NOMEM;
  return e;
}

static const qv_op cmp_ops[] = {QV_OP_EQ, QV_OP_NE, QV_OP_LT, QV_OP_LE, QV_OP_GT, QV_OP_GE};

/* One comparison of a chain: a property on one side, a constant on the
 * other. */
static qv_expr *compare(qvg_planner *p, const qvg_node *l, const qvg_node *r, int op, const char *var, int32_t label,
                        qv_status *st) {
  const char *key = NULL;
  qv_op o = cmp_ops[op];
  col_class k = prop_column(p, l, var, label, &key);
  const qvg_node *other = r;
  if (k == T_NONE) {
    k = prop_column(p, r, var, label, &key);
    other = l;
    o = qv_op_mirror(o);
  }
  qvg_val v;
  if (k == T_NONE || !const_val(p, other, &v)) return NULL;
  if (k == T_BOOL && o != QV_OP_EQ && o != QV_OP_NE) return NULL;
  qv_expr *lit = literal(k, &v, st);
  if (!lit) return NULL;
  return call2(o, column(key, st), lit, st);
}

static qv_expr *translate(qvg_planner *p, const qvg_node *e, const char *var, int32_t label, qv_status *st) {
  if (!e || *st != QV_OK) return NULL;
  switch (e->kind) {
    case QVG_AND:
    case QVG_OR:
    case QVG_XOR: {
      qv_expr *a = translate(p, e->kids[0], var, label, st);
      qv_expr *b = a ? translate(p, e->kids[1], var, label, st) : NULL;
      return call2(e->kind == QVG_AND ? QV_OP_AND : e->kind == QVG_OR ? QV_OP_OR : QV_OP_XOR, a, b, st);
    }
    case QVG_NOT: {
      qv_expr *a = translate(p, e->kids[0], var, label, st);
      if (!a) return NULL;
      qv_expr *n = cy(qv_expr_unary(QV_OP_NOT, a));
      if (!n) *st = QV_ERR_NOMEM;
      return n;
    }
    case QVG_COMPARE: {
      qv_expr *all = NULL;
      for (int32_t i = 0; i + 1 < e->n_kids; i++) {
        qv_expr *c = compare(p, e->kids[i], e->kids[i + 1], e->ops[i], var, label, st);
        if (!c) {
          qv_expr_destroy(all);
          return NULL;
        }
        all = all ? call2(QV_OP_AND, all, c, st) : c;
        if (!all) return NULL;
      }
      return all;
    }
    case QVG_IS_NULL: {
      const char *key = NULL;
      if (prop_column(p, e->kids[0], var, label, &key) == T_NONE) return NULL;
      qv_expr *n = cy(qv_expr_unary(e->flags & QVG_F_NOT ? QV_OP_IS_NOT_NULL : QV_OP_IS_NULL, column(key, st)));
      if (!n) *st = QV_ERR_NOMEM;
      return n;
    }
    case QVG_PROP: { /* a bool property as the condition */
      const char *key = NULL;
      if (prop_column(p, e, var, label, &key) != T_BOOL) return NULL;
      qvg_val t = qvg_bool(true);
      return call2(QV_OP_EQ, column(key, st), literal(T_BOOL, &t, st), st);
    }
    case QVG_BINARY: {
      const char *key = NULL;
      col_class k = prop_column(p, e->kids[0], var, label, &key);
      qvg_val v = qvg_null();
      const qvg_node *list = e->op == QVG_OP_IN && e->kids[1]->kind == QVG_LIST ? e->kids[1] : NULL;
      if (k == T_NONE || (!list && !const_val(p, e->kids[1], &v))) return NULL;
      if (e->op == QVG_OP_STARTS_WITH || e->op == QVG_OP_ENDS_WITH || e->op == QVG_OP_CONTAINS) {
        if (k != T_STRING) return NULL;
        qv_op o = e->op == QVG_OP_STARTS_WITH ? QV_OP_STARTS_WITH
                  : e->op == QVG_OP_ENDS_WITH ? QV_OP_ENDS_WITH
                                              : QV_OP_CONTAINS;
        qv_expr *lit = literal(k, &v, st);
        return lit ? call2(o, column(key, st), lit, st) : NULL;
      }
      if (e->op != QVG_OP_IN) return NULL;
      /* the list: a literal list of constants or a list parameter */
      int32_t n;
      if (list) n = list->n_kids;
      else if (v.t == QVG_V_LIST) n = v.n;
      else return NULL;
      if (n < 1 || n > 4096) return NULL;
      qv_expr **args = qv_calloc((size_t)n + 1, sizeof *args);
      if (!args) {
        *st = QV_ERR_NOMEM;
        return NULL;
      }
      bool ok = true;
      for (int32_t i = 0; i < n && ok; i++) {
        qvg_val x;
        if (list) ok = const_val(p, list->kids[i], &x);
        else x = v.u.l[i];
        if (!ok) break;
        if (x.t == QVG_V_NULL) {
          qv_scalar s = QV_SCALAR_INIT; /* a null of the null type: the binder gives it the column's */
          args[i + 1] = qv_expr_literal(&s);
          if (!args[i + 1]) *st = QV_ERR_NOMEM;
        } else {
          args[i + 1] = literal(k, &x, st);
        }
        ok = args[i + 1] != NULL;
      }
      qv_expr *in = NULL;
      if (ok && (args[0] = column(key, st)) != NULL) {
        in = cy(qv_expr_call(QV_OP_IN, args, n + 1));
        if (!in) *st = QV_ERR_NOMEM;
      } else {
        for (int32_t i = 0; i <= n; i++) qv_expr_destroy(args[i]);
      }
      qv_free(args);
      return in;
    }
    default: return NULL;
  }
}

qv_expr *qvg_push_translate(qvg_planner *p, const qvg_node *e, const char *var, int32_t label, qv_status *err_st) {
  qv_status st = QV_OK;
  *err_st = QV_OK;
  if (!p->st->g || label < 0 || label >= p->st->g->cat.n_labels) return NULL;
  qv_expr *x = translate(p, e, var, label, &st);
  if (st != QV_OK) {
    qv_expr_destroy(x);
    *err_st = qv_error_nomem(p->err, "cypher planner: pushdown");
    return NULL;
  }
  return x;
}

qv_expr *qvg_push_translate_entry(qvg_planner *p, const qvg_node *entry, int32_t label, qv_status *err_st) {
  *err_st = QV_OK;
  if (!p->st->g || label < 0 || label >= p->st->g->cat.n_labels) return NULL;
  const qv_schema *sc = qv_dataset_schema(p->st->g->cat.labels[label].ds);
  int32_t c = qv_schema_find(sc, entry->str);
  qvg_val v;
  if (c < 0 || !const_val(p, entry->kids[0], &v)) return NULL;
  qv_status st = QV_OK;
  col_class k = class_of(sc->fields[c].type.id);
  qv_expr *lit = literal(k, &v, &st);
  qv_expr *x = lit ? call2(QV_OP_EQ, column(sc->fields[c].name, &st), lit, &st) : NULL;
  if (st != QV_OK) {
    qv_expr_destroy(x);
    *err_st = qv_error_nomem(p->err, "cypher planner: pushdown");
    return NULL;
  }
  return x;
}

bool qvg_push_const(qvg_planner *p, const qvg_node *e, qvg_val *out) { return const_val(p, e, out); }

bool qvg_push_id_equality(qvg_planner *p, const qvg_node *e, const char *var, int32_t label, int64_t *id) {
  if (!p->st->g || label < 0 || label >= p->st->g->cat.n_labels || !var || e->kind != QVG_COMPARE || e->n_kids != 2 ||
      e->ops[0] != QVG_CMP_EQ)
    return false;
  const char *idcol = p->st->g->cat.labels[label].id_column;
  for (int side = 0; side < 2; side++) {
    const qvg_node *a = e->kids[side];
    qvg_val v;
    if (a->kind == QVG_PROP && a->kids[0]->kind == QVG_VAR && strcmp(a->kids[0]->str, var) == 0 &&
        strcmp(a->str, idcol) == 0 && const_val(p, e->kids[1 - side], &v) && v.t == QVG_V_INT) {
      *id = v.u.i;
      return true;
    }
  }
  return false;
}
