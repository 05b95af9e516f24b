/* Lowering a Cypher predicate over one entity's properties to quiver's
 * expression IR, and running it over the property table (see
 * graph/cypher_lower.h for what is lowered and why exactly that). */
#include <string.h>

#include "graph/cypher_lower.h"

struct qvg_lowered {
  qv_expr *expr;         /* bound to schema */
  qv_schema schema;      /* the property columns it reads */
  const qv_array **cols; /* schema.n_fields, borrowed from the store */
};

/* Kinds of value a column holds as Cypher sees them (C_NONE: not lowered). */
enum { C_NONE = 0, C_INT, C_FLOAT, C_STRING, C_BOOL };

typedef struct lower_ctx {
  const qvg_store *st;
  bool rel;
  int32_t owner, col;
  qvg_lowered *lw;
  bool nomem;
  qv_error *err;
} lower_ctx;

static int class_of(qv_type_id id) {
  switch (id) {
    case QV_TYPE_INT8:
    case QV_TYPE_INT16:
    case QV_TYPE_INT32:
    case QV_TYPE_INT64:
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32: return C_INT;
    case QV_TYPE_FLOAT64: return C_FLOAT;
    case QV_TYPE_STRING: return C_STRING;
    case QV_TYPE_BOOL: return C_BOOL;
    default: return C_NONE; /* float32 reads as the double nearest it, uint64 can fail, ... */
  }
}

static qv_expr *sem(qv_expr *e) {
  static const qv_semantics cypher = QV_SEMANTICS_LANCE;
  if (e) {
    e->sem = cypher;
    e->sem.float_order = QV_FLOAT_IEEE;
  }
  return e;
}

/* The column a property of the entity reads, added to the table; its
 * class, or C_NONE when it is not such a property or not lowered. */
static qv_status prop_ref(lower_ctx *c, const qvg_cx *e, qv_expr **out, int *cls) {
  *out = NULL;
  *cls = C_NONE;
  if (e->kind != QVG_CX_PROP || e->n_kids != 1 || !e->kids[0] || e->kids[0]->kind != QVG_CX_COL ||
      e->kids[0]->col != c->col || !e->name)
    return QV_OK;
  const qv_array *a = NULL;
  QV_RETURN_NOT_OK(qvg_store_prop_column(c->st, c->rel, c->owner, e->name, &a, c->err));
  if (!a || class_of(a->type.id) == C_NONE) return QV_OK;
  qvg_lowered *lw = c->lw;
  int32_t i = 0;
  while (i < lw->schema.n_fields && strcmp(lw->schema.fields[i].name, e->name) != 0) i++;
  if (i == lw->schema.n_fields) {
    qv_field f = {(char *)e->name, a->type, true};
    const qv_array **nc = qv_realloc(lw->cols, (size_t)(i + 1) * sizeof *nc);
    if (!nc) return qv_error_nomem(c->err, "cypher: lowering");
    lw->cols = nc;
    QV_RETURN_NOT_OK(qv_schema_add(&lw->schema, &f, c->err));
    lw->cols[i] = a;
  }
  if (!(*out = qv_expr_column(e->name))) return qv_error_nomem(c->err, "cypher: lowering");
  *cls = class_of(a->type.id);
  return QV_OK;
}

/* A literal for a column of class cls, or NULL when the value is not of
 * that kind (a mixed-kind comparison is false or null in Cypher, which
 * the kernels would not say the same way). */
static qv_expr *lit_for(lower_ctx *c, const qvg_val *v, int cls) {
  qv_scalar s = QV_SCALAR_INIT;
  if (cls == C_INT && v->t == QVG_V_INT) s = qv_scalar_int(QV_TYPE_INT64, v->u.i);
  else if (cls == C_FLOAT && v->t == QVG_V_FLOAT) s = qv_scalar_double(v->u.f);
  /* an integer a double holds exactly compares the same as that double */
  else if (cls == C_FLOAT && v->t == QVG_V_INT && v->u.i >= -(INT64_C(1) << 53) && v->u.i <= (INT64_C(1) << 53))
    s = qv_scalar_double((double)v->u.i);
  else if (cls == C_BOOL && v->t == QVG_V_BOOL) s = qv_scalar_bool(v->u.b);
  else if (cls == C_STRING && v->t == QVG_V_STRING) {
    if (qv_scalar_string(v->u.s, v->n, &s) != QV_OK) {
      c->nomem = true;
      return NULL;
    }
  } else {
    return NULL;
  }
  qv_expr *e = qv_expr_literal(&s);
  qv_scalar_reset(&s);
  if (!e) c->nomem = true;
  return e;
}

/* A literal, or a negated numeric one (`-1e308` is NEG of 1e308). */
static bool const_of(const qvg_cx *e, qvg_val *out) {
  if (e && e->kind == QVG_CX_LIT) {
    *out = e->lit;
    return true;
  }
  if (!e || e->kind != QVG_CX_NEG || e->n_kids != 1 || !e->kids[0] || e->kids[0]->kind != QVG_CX_LIT) return false;
  const qvg_val *v = &e->kids[0]->lit;
  if (v->t == QVG_V_INT && v->u.i != INT64_MIN) *out = qvg_int(-v->u.i);
  else if (v->t == QVG_V_FLOAT) *out = qvg_float(-v->u.f);
  else return false;
  return true;
}

static const qv_op cmp_ops[] = {QV_OP_EQ, QV_OP_NE, QV_OP_LT, QV_OP_LE, QV_OP_GT, QV_OP_GE};

static qv_status lower(lower_ctx *c, const qvg_cx *e, qv_expr **out);

/* One comparison of a chain: a property against a literal or another
 * property of the same class. */
static qv_status lower_cmp(lower_ctx *c, const qvg_cx *a, uint8_t op, const qvg_cx *b, qv_expr **out) {
  *out = NULL;
  if (op >= sizeof cmp_ops / sizeof cmp_ops[0]) return QV_OK;
  qv_op qop = cmp_ops[op];
  qvg_val k;
  if (const_of(a, &k)) {
    const qvg_cx *t = a;
    a = b;
    b = t;
    qop = qv_op_mirror(qop);
  }
  qv_expr *l, *r = NULL;
  int cl, cr = C_NONE;
  QV_RETURN_NOT_OK(prop_ref(c, a, &l, &cl));
  if (!l) return QV_OK;
  if (const_of(b, &k)) {
    r = lit_for(c, &k, cl);
    cr = cl;
  } else {
    qv_status rc = prop_ref(c, b, &r, &cr);
    if (rc != QV_OK) {
      qv_expr_destroy(l);
      return rc;
    }
  }
  /* booleans: = and <> only (their order is not worth a second look) */
  if (!r || cr != cl || (cl == C_BOOL && qop != QV_OP_EQ && qop != QV_OP_NE)) {
    qv_expr_destroy(l);
    qv_expr_destroy(r);
    return QV_OK;
  }
  if (!(*out = sem(qv_expr_binary(qop, l, r)))) c->nomem = true;
  return QV_OK;
}

/* Both sides, or nothing. */
static qv_status lower_pair(lower_ctx *c, qv_op op, const qvg_cx *x, const qvg_cx *y, qv_expr **out) {
  *out = NULL;
  qv_expr *a = NULL, *b = NULL;
  QV_RETURN_NOT_OK(lower(c, x, &a));
  if (a) {
    qv_status rc = lower(c, y, &b);
    if (rc != QV_OK || !b) {
      qv_expr_destroy(a);
      return rc;
    }
    if (!(*out = sem(qv_expr_binary(op, a, b)))) c->nomem = true;
  }
  return QV_OK;
}

static qv_status lower_binary(lower_ctx *c, const qvg_cx *e, qv_expr **out) {
  *out = NULL;
  if (e->n_kids != 2 || !e->kids[0] || !e->kids[1]) return QV_OK;
  const qvg_cx *rhs = e->kids[1];
  qv_op op = e->op == QVG_OP_STARTS_WITH ? QV_OP_STARTS_WITH
             : e->op == QVG_OP_ENDS_WITH ? QV_OP_ENDS_WITH
             : e->op == QVG_OP_CONTAINS  ? QV_OP_CONTAINS
             : e->op == QVG_OP_IN        ? QV_OP_IN
                                         : QV_OP_NONE;
  if (op == QV_OP_NONE) return QV_OK;
  /* the list: a value, or a list expression of literals */
  bool listed = op == QV_OP_IN && rhs->kind == QVG_CX_LIST;
  qvg_val k;
  for (int32_t i = 0; listed && i < rhs->n_kids; i++)
    if (!const_of(rhs->kids[i], &k)) return QV_OK;
  if (!listed && rhs->kind != QVG_CX_LIT) return QV_OK;
  if (op == QV_OP_IN && !listed && rhs->lit.t != QVG_V_LIST) return QV_OK;
  int32_t n = op != QV_OP_IN ? 1 : listed ? rhs->n_kids : rhs->lit.n;
  /* x IN []: Cypher says false even for a null x, SQL null; NOT would tell */
  if (n == 0) return QV_OK;
  qv_expr *x;
  int cls;
  QV_RETURN_NOT_OK(prop_ref(c, e->kids[0], &x, &cls));
  if (!x) return QV_OK;
  qv_expr **args = qv_calloc((size_t)n + 1, sizeof *args);
  if (!args) {
    qv_expr_destroy(x);
    return qv_error_nomem(c->err, "cypher: lowering");
  }
  args[0] = x;
  bool ok = op == QV_OP_IN || cls == C_STRING;
  for (int32_t i = 0; i < n && ok; i++) {
    if (listed) const_of(rhs->kids[i], &k);
    const qvg_val *v = listed ? &k : op == QV_OP_IN ? &rhs->lit.u.l[i] : &rhs->lit;
    if (v->t == QVG_V_NULL && op == QV_OP_IN) {
      qv_scalar s = QV_SCALAR_INIT; /* a null item: unknown when nothing matched, in both */
      args[i + 1] = qv_expr_literal(&s);
    } else {
      args[i + 1] = lit_for(c, v, cls);
    }
    ok = args[i + 1] != NULL;
  }
  if (ok && !(*out = sem(qv_expr_call(op, args, n + 1)))) c->nomem = true;
  if (!ok)
    for (int32_t i = 0; i <= n; i++) qv_expr_destroy(args[i]);
  qv_free(args);
  return QV_OK;
}

static qv_status lower(lower_ctx *c, const qvg_cx *e, qv_expr **out) {
  *out = NULL;
  if (!e || c->nomem) return QV_OK;
  switch (e->kind) {
    case QVG_CX_LIT: {
      if (e->lit.t != QVG_V_BOOL) return QV_OK;
      *out = lit_for(c, &e->lit, C_BOOL);
      return QV_OK;
    }
    case QVG_CX_PROP: {
      int cls;
      QV_RETURN_NOT_OK(prop_ref(c, e, out, &cls));
      if (*out && cls != C_BOOL) {
        qv_expr_destroy(*out);
        *out = NULL;
      }
      return QV_OK;
    }
    case QVG_CX_AND: return lower_pair(c, QV_OP_AND, e->kids[0], e->kids[1], out);
    case QVG_CX_OR: return lower_pair(c, QV_OP_OR, e->kids[0], e->kids[1], out);
    case QVG_CX_XOR: return lower_pair(c, QV_OP_XOR, e->kids[0], e->kids[1], out);
    case QVG_CX_NOT: {
      qv_expr *a;
      QV_RETURN_NOT_OK(lower(c, e->kids[0], &a));
      if (a && !(*out = sem(qv_expr_unary(QV_OP_NOT, a)))) c->nomem = true;
      return QV_OK;
    }
    case QVG_CX_IS_NULL: {
      qv_expr *a;
      int cls;
      QV_RETURN_NOT_OK(prop_ref(c, e->kids[0], &a, &cls));
      if (a && !(*out = sem(qv_expr_unary(e->op == 1 ? QV_OP_IS_NOT_NULL : QV_OP_IS_NULL, a)))) c->nomem = true;
      return QV_OK;
    }
    case QVG_CX_CMP: {
      qv_expr *acc = NULL;
      for (int32_t i = 0; i + 1 < e->n_kids; i++) {
        qv_expr *p;
        qv_status rc = lower_cmp(c, e->kids[i], e->ops[i], e->kids[i + 1], &p);
        if (rc != QV_OK || !p) {
          qv_expr_destroy(acc);
          return rc;
        }
        acc = acc ? sem(qv_expr_binary(QV_OP_AND, acc, p)) : p;
        if (!acc) {
          c->nomem = true;
          return QV_OK;
        }
      }
      *out = acc;
      return QV_OK;
    }
    case QVG_CX_BINARY: return lower_binary(c, e, out);
    default: return QV_OK;
  }
}

void qvg_lowered_free(qvg_lowered *lw) {
  if (!lw) return;
  qv_expr_destroy(lw->expr);
  qv_schema_reset(&lw->schema);
  qv_free(lw->cols);
  qv_free(lw);
}

qv_status qvg_lower_pred(const qvg_store *st, const qvg_cx *e, int32_t col, bool rel, int32_t owner, qvg_lowered **out,
                         qv_error *err) {
  *out = NULL;
  if (st->mem || !e) return QV_OK;
  qvg_lowered *lw = qv_calloc(1, sizeof *lw);
  if (!lw) return qv_error_nomem(err, "cypher: lowering");
  lw->schema = (qv_schema)QV_SCHEMA_INIT;
  lower_ctx c = {st, rel, owner, col, lw, false, err};
  qv_status rc = lower(&c, e, &lw->expr);
  if (rc == QV_OK && c.nomem) rc = qv_error_nomem(err, "cypher: lowering");
  if (rc == QV_OK && lw->expr) {
    /* a tree the binder refuses is one this file built wrongly: decline it */
    qv_error local = {0};
    if (qv_expr_bind(lw->expr, &lw->schema, &local) != QV_OK) {
      qv_expr_destroy(lw->expr);
      lw->expr = NULL;
    }
  }
  if (rc != QV_OK || !lw->expr) {
    qvg_lowered_free(lw);
    return rc;
  }
  *out = lw;
  return QV_OK;
}

const qv_expr *qvg_lowered_expr(const qvg_lowered *lw) { return lw->expr; }

/* Rows per evaluation: the selection and the slices stay small. */
#define LOWERED_CHUNK 65536

qv_status qvg_lowered_eval(const qvg_lowered *lw, int64_t n, uint8_t *out, uint8_t if_true, uint8_t otherwise,
                           qv_error *err) {
  int32_t nc = lw->schema.n_fields;
  for (int32_t i = 0; i < nc; i++)
    if (lw->cols[i]->length < n)
      return qv_error_set(err, QV_ERR_INVALID, "cypher: property column `%s` has %lld rows, the table %lld",
                          lw->schema.fields[i].name, (long long)lw->cols[i]->length, (long long)n);
  memset(out, otherwise, (size_t)n);
  qv_selection sel = QV_SELECTION_INIT;
  qv_status rc = QV_OK;
  for (int64_t off = 0; off < n && rc == QV_OK; off += LOWERED_CHUNK) {
    int64_t len = n - off < LOWERED_CHUNK ? n - off : LOWERED_CHUNK;
    qv_array **cols = qv_calloc((size_t)nc + 1, sizeof *cols);
    if (!cols) {
      rc = qv_error_nomem(err, "cypher: lowering");
      break;
    }
    /* a slice only takes a reference: the store's column is not changed */
    for (int32_t i = 0; i < nc && rc == QV_OK; i++)
      rc = qv_array_slice((qv_array *)(uintptr_t)lw->cols[i], off, len, &cols[i], err);
    qv_batch *b = NULL;
    if (rc == QV_OK) rc = qv_batch_make(&lw->schema, cols, len, &b, err);
    else
      for (int32_t i = 0; i < nc; i++) qv_array_release(cols[i]);
    qv_free(cols);
    if (rc == QV_OK) rc = qv_eval_filter(lw->expr, b, NULL, &sel, err);
    qv_batch_release(b);
    for (int64_t k = 0; rc == QV_OK && k < sel.count; k++) out[off + sel.rows[k]] = if_true;
  }
  qv_selection_reset(&sel);
  return rc;
}
