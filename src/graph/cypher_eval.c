/* The evaluator of compiled Cypher expressions (qvg_cx), one row at a
 * time, with openCypher's semantics: three-valued logic (operands of AND,
 * OR, XOR, NOT must be booleans or null), null in gives null out,
 * Integer arithmetic that fails on overflow, Integer / and % truncating
 * toward zero and failing on zero, Float arithmetic IEEE, ^ always Float,
 * + concatenating strings and lists.  Both operands of every operator are
 * evaluated (no short cut), so a type error does not depend on the other
 * side's value.  Text for EXPLAIN is at the end. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "graph/cypher_eval_int.h"

/* ---- errors and allocation helpers (shared with cypher_fn.c) ---- */

qv_status qvg_type_error(qv_error *err, const char *fmt, ...) {
  char buf[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return qv_error_set(err, QV_ERR_TYPE, "cypher: type error: %s", buf);
}

qv_status qvg_arg_error(qv_error *err, const char *fmt, ...) {
  char buf[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return qv_error_set(err, QV_ERR_INVALID, "cypher: invalid argument: %s", buf);
}

qv_status qvg_overflow(qv_error *err, const char *what) {
  return qv_error_set(err, QV_ERR_OVERFLOW, "cypher: integer overflow in %s", what);
}

qvg_val *qvg_new_list(qvg_arena *a, int32_t n, qvg_val *out) {
  qvg_val *l = qvg_arena_alloc(a, (size_t)(n > 0 ? n : 1) * sizeof *l);
  if (!l) return NULL;
  out->t = QVG_V_LIST;
  out->n = n;
  out->u.l = l;
  return l;
}

qv_status qvg_new_string(qvg_arena *a, const char *s, size_t n, qvg_val *out, qv_error *err) {
  if (n > INT32_MAX) return qv_error_set(err, QV_ERR_OVERFLOW, "cypher: a string passed 2 GiB");
  char *p = qvg_arena_alloc(a, n ? n : 1);
  if (!p) return qv_error_nomem(err, "cypher");
  if (n) memcpy(p, s, n);
  *out = qvg_string(p, (int32_t)n);
  return QV_OK;
}

static const char *tname(const qvg_val *v) { return qvg_vtype_name(v->t); }
static bool is_num(const qvg_val *v) { return v->t == QVG_V_INT || v->t == QVG_V_FLOAT; }
static double as_f(const qvg_val *v) { return v->t == QVG_V_INT ? (double)v->u.i : v->u.f; }

static const char *op_name(int op) {
  static const char *names[] = {"+", "-", "*", "/", "%", "^", "IN", "STARTS WITH", "ENDS WITH", "CONTAINS", "=~"};
  return op >= 0 && op <= QVG_OP_REGEX ? names[op] : "?";
}

static qv_status bad_operands(int op, const qvg_val *a, const qvg_val *b, qv_error *err) {
  return qvg_type_error(err, "cannot apply %s to %s and %s", op_name(op), tname(a), tname(b));
}

/* ---- arithmetic ------------------------------------------------------------ */

static qv_status concat_lists(qvg_evalctx *cx, const qvg_val *a, const qvg_val *b, qvg_val *out, qv_error *err) {
  /* a non-list side is one element */
  int32_t na = a->t == QVG_V_LIST ? a->n : 1, nb = b->t == QVG_V_LIST ? b->n : 1;
  if ((int64_t)na + nb > INT32_MAX) return qv_error_set(err, QV_ERR_OVERFLOW, "cypher: list too long");
  qvg_val *l = qvg_new_list(cx->arena, na + nb, out);
  if (!l) return qv_error_nomem(err, "cypher: +");
  if (a->t == QVG_V_LIST) memcpy(l, a->u.l, (size_t)na * sizeof *l);
  else l[0] = *a;
  if (b->t == QVG_V_LIST) memcpy(l + na, b->u.l, (size_t)nb * sizeof *l);
  else l[na] = *b;
  return QV_OK;
}

static qv_status add_strings(qvg_evalctx *cx, const qvg_val *a, const qvg_val *b, qvg_val *out, qv_error *err) {
  /* Neo4j and the TCK's 'a' + 1: a number on one side is its toString text */
  qvb_text t = {0};
  const qvg_val *side[2] = {a, b};
  for (int i = 0; i < 2; i++) {
    const qvg_val *v = side[i];
    if (v->t == QVG_V_STRING) qvb_text_add(&t, v->u.s, (size_t)v->n);
    else if (v->t == QVG_V_INT) qvb_text_f(&t, "%lld", (long long)v->u.i);
    else qvg_format_float(v->u.f, &t);
  }
  qv_status st = t.oom ? qv_error_nomem(err, "cypher: +") : qvg_new_string(cx->arena, t.p ? t.p : "", t.n, out, err);
  qvb_text_free(&t);
  return st;
}

static qv_status arith(qvg_evalctx *cx, int op, const qvg_val *a, const qvg_val *b, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  if (op == QVG_OP_ADD && (a->t == QVG_V_LIST || b->t == QVG_V_LIST)) {
    if (a->t == QVG_V_NULL && b->t != QVG_V_LIST) return QV_OK;
    return concat_lists(cx, a, b, out, err);
  }
  if (a->t == QVG_V_NULL || b->t == QVG_V_NULL) return QV_OK;
  if (op == QVG_OP_ADD && (a->t == QVG_V_STRING || b->t == QVG_V_STRING)) {
    if ((a->t == QVG_V_STRING || is_num(a)) && (b->t == QVG_V_STRING || is_num(b)))
      return add_strings(cx, a, b, out, err);
    return bad_operands(op, a, b, err);
  }
  if (a->t >= QVG_V_DATE || b->t >= QVG_V_DATE) return qvg_temporal_arith(cx, op, a, b, out, err);
  if (!is_num(a) || !is_num(b)) return bad_operands(op, a, b, err);
  if (op == QVG_OP_POW) {
    *out = qvg_float(pow(as_f(a), as_f(b)));
    return QV_OK;
  }
  if (a->t == QVG_V_INT && b->t == QVG_V_INT) {
    int64_t x = a->u.i, y = b->u.i, r = 0;
    switch (op) {
      case QVG_OP_ADD:
        if (__builtin_add_overflow(x, y, &r)) return qvg_overflow(err, "+");
        break;
      case QVG_OP_SUB:
        if (__builtin_sub_overflow(x, y, &r)) return qvg_overflow(err, "-");
        break;
      case QVG_OP_MUL:
        if (__builtin_mul_overflow(x, y, &r)) return qvg_overflow(err, "*");
        break;
      case QVG_OP_DIV:
        if (y == 0) return qvg_arg_error(err, "division by zero");
        if (x == INT64_MIN && y == -1) return qvg_overflow(err, "/");
        r = x / y;
        break;
      case QVG_OP_MOD:
        if (y == 0) return qvg_arg_error(err, "modulo by zero");
        r = y == -1 ? 0 : x % y;
        break;
      default: return bad_operands(op, a, b, err);
    }
    *out = qvg_int(r);
    return QV_OK;
  }
  double x = as_f(a), y = as_f(b), r;
  switch (op) {
    case QVG_OP_ADD: r = x + y; break;
    case QVG_OP_SUB: r = x - y; break;
    case QVG_OP_MUL: r = x * y; break;
    case QVG_OP_DIV: r = x / y; break;
    case QVG_OP_MOD: r = fmod(x, y); break;
    default: return bad_operands(op, a, b, err);
  }
  *out = qvg_float(r);
  return QV_OK;
}

/* ---- string predicates ------------------------------------------------------ */

static qv_status regex_match(const qvg_val *s, const qvg_val *re, qvg_val *out, qv_error *err) {
  int code;
  PCRE2_SIZE off;
  /* the whole string must match (Java's matches(), Cypher's =~) */
  pcre2_code *c = pcre2_compile((PCRE2_SPTR)re->u.s, (PCRE2_SIZE)re->n, PCRE2_UTF | PCRE2_ANCHORED | PCRE2_ENDANCHORED,
                                &code, &off, NULL);
  if (!c) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(code, msg, sizeof msg);
    return qvg_arg_error(err, "=~: bad regular expression at offset %zu: %s", (size_t)off, (const char *)msg);
  }
  pcre2_match_data *md = pcre2_match_data_create_from_pattern(c, NULL);
  if (!md) {
    pcre2_code_free(c);
    return qv_error_nomem(err, "cypher: =~");
  }
  int rc = pcre2_match(c, (PCRE2_SPTR)s->u.s, (PCRE2_SIZE)s->n, 0, 0, md, NULL);
  pcre2_match_data_free(md);
  pcre2_code_free(c);
  if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) return qvg_arg_error(err, "=~: matching failed (%d)", rc);
  *out = qvg_bool(rc >= 0);
  return QV_OK;
}

static qv_status string_op(int op, const qvg_val *a, const qvg_val *b, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  /* openCypher: a non-string operand gives null, not an error */
  if (a->t != QVG_V_STRING || b->t != QVG_V_STRING) return QV_OK;
  int32_t n = a->n, m = b->n;
  bool r = false;
  switch (op) {
    case QVG_OP_STARTS_WITH: r = m <= n && (m == 0 || memcmp(a->u.s, b->u.s, (size_t)m) == 0); break;
    case QVG_OP_ENDS_WITH: r = m <= n && (m == 0 || memcmp(a->u.s + n - m, b->u.s, (size_t)m) == 0); break;
    case QVG_OP_CONTAINS: r = m == 0 || (m <= n && memmem(a->u.s, (size_t)n, b->u.s, (size_t)m) != NULL); break;
    default: return regex_match(a, b, out, err);
  }
  *out = qvg_bool(r);
  return QV_OK;
}

static qv_status in_list(const qvg_val *x, const qvg_val *l, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  if (l->t == QVG_V_NULL) return QV_OK;
  if (l->t != QVG_V_LIST) return qvg_type_error(err, "IN expects a List on the right, not %s", tname(l));
  bool unknown = false;
  for (int32_t i = 0; i < l->n; i++) {
    qvg_tri e = qvg_val_equals(x, &l->u.l[i]);
    if (e == QVG_TRUE) {
      *out = qvg_bool(true);
      return QV_OK;
    }
    if (e == QVG_UNKNOWN) unknown = true;
  }
  if (!unknown) *out = qvg_bool(false);
  return QV_OK;
}

/* ---- access ----------------------------------------------------------------- */

static qv_status prop_of(qvg_evalctx *cx, const qvg_val *x, const char *key, int32_t klen, qvg_val *out,
                         qv_error *err) {
  *out = qvg_null();
  switch (x->t) {
    case QVG_V_NULL: return QV_OK;
    case QVG_V_MAP: {
      const qvg_val *v = qvg_map_get(x, key, klen);
      if (v) *out = *v;
      return QV_OK;
    }
    case QVG_V_NODE:
      if (!cx->st) return qv_error_set(err, QV_ERR_INVALID, "cypher: a node property without a store");
      return qvg_store_node_prop(cx->st, x->u.i, key, klen, cx->arena, out, err);
    case QVG_V_REL:
      if (!cx->st) return qv_error_set(err, QV_ERR_INVALID, "cypher: a relationship property without a store");
      return qvg_store_rel_prop(cx->st, x->u.i, key, klen, cx->arena, out, err);
    case QVG_V_DATE:
    case QVG_V_LOCALTIME:
    case QVG_V_TIME:
    case QVG_V_LOCALDATETIME:
    case QVG_V_DATETIME:
    case QVG_V_DURATION: return qvg_temporal_prop(cx, x, key, klen, out, err);
    default: return qvg_type_error(err, "cannot read property `%.*s` of %s", (int)klen, key, tname(x));
  }
}

static qv_status props_of(qvg_evalctx *cx, const qvg_val *x, qvg_val *out, qv_error *err) {
  if (x->t == QVG_V_MAP) {
    *out = *x;
    return QV_OK;
  }
  if (!cx->st) return qv_error_set(err, QV_ERR_INVALID, "cypher: properties without a store");
  if (x->t == QVG_V_NODE) return qvg_store_node_props(cx->st, x->u.i, cx->arena, out, err);
  return qvg_store_rel_props(cx->st, x->u.i, cx->arena, out, err);
}

static qv_status index_of(qvg_evalctx *cx, const qvg_val *x, const qvg_val *k, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  if (x->t == QVG_V_NULL) return QV_OK;
  if (x->t == QVG_V_LIST) {
    if (k->t == QVG_V_NULL) return QV_OK;
    if (k->t != QVG_V_INT) return qvg_type_error(err, "a List index must be an Integer, not %s", tname(k));
    int64_t i = k->u.i < 0 ? k->u.i + x->n : k->u.i;
    if (i >= 0 && i < x->n) *out = x->u.l[i];
    return QV_OK;
  }
  if (x->t == QVG_V_MAP || x->t == QVG_V_NODE || x->t == QVG_V_REL) {
    if (k->t == QVG_V_NULL) return QV_OK;
    if (k->t != QVG_V_STRING) return qvg_type_error(err, "a %s is indexed by a String key, not %s", tname(x), tname(k));
    return prop_of(cx, x, k->u.s, k->n, out, err);
  }
  return qvg_type_error(err, "cannot index into %s", tname(x));
}

static int64_t clamp_bound(int64_t b, int32_t n) {
  if (b < 0) b += n;
  return b < 0 ? 0 : b > n ? n : b;
}

/* ---- the evaluator ---------------------------------------------------------- */

static qv_status eval(const qvg_cx *e, qvg_evalctx *cx, int64_t row, qvg_val *out, qv_error *err);

static qv_status as_tri(const qvg_val *v, const char *what, qvg_tri *t, qv_error *err) {
  if (v->t == QVG_V_NULL) *t = QVG_UNKNOWN;
  else if (v->t == QVG_V_BOOL) *t = v->u.b ? QVG_TRUE : QVG_FALSE;
  else return qvg_type_error(err, "%s expects a Boolean, not %s", what, tname(v));
  return QV_OK;
}

static qvg_val tri_val(qvg_tri t) { return t == QVG_UNKNOWN ? qvg_null() : qvg_bool(t == QVG_TRUE); }

static qvg_tri tri_and(qvg_tri a, qvg_tri b) {
  if (a == QVG_FALSE || b == QVG_FALSE) return QVG_FALSE;
  return a == QVG_TRUE && b == QVG_TRUE ? QVG_TRUE : QVG_UNKNOWN;
}
static qvg_tri tri_not(qvg_tri a) { return a == QVG_UNKNOWN ? QVG_UNKNOWN : a == QVG_TRUE ? QVG_FALSE : QVG_TRUE; }

static qvg_tri compare(int op, const qvg_val *a, const qvg_val *b) {
  switch (op) {
    case QVG_CMP_EQ: return qvg_val_equals(a, b);
    case QVG_CMP_NE: return tri_not(qvg_val_equals(a, b));
    case QVG_CMP_LT: return qvg_val_less(a, b, false);
    case QVG_CMP_LE: return qvg_val_less(a, b, true);
    case QVG_CMP_GT: return qvg_val_less(b, a, false);
    default: return qvg_val_less(b, a, true);
  }
}

static qv_status kid(const qvg_cx *e, int32_t i, qvg_evalctx *cx, int64_t row, qvg_val *out, qv_error *err) {
  if (i >= e->n_kids || !e->kids[i])
    return qv_error_set(err, QV_ERR_INVALID, "cypher: expression kind %d lacks operand %d", (int)e->kind, (int)i);
  return eval(e->kids[i], cx, row, out, err);
}

static qv_status local_slot(qvg_evalctx *cx, int32_t slot, qvg_val **out, qv_error *err) {
  if (slot < 0 || slot >= cx->n_locals || !cx->locals)
    return qv_error_set(err, QV_ERR_INVALID, "cypher: local slot %d of %d", (int)slot, (int)cx->n_locals);
  *out = &cx->locals[slot];
  return QV_OK;
}

static qv_status list_operand(const qvg_val *l, const char *what, qv_error *err) {
  if (l->t != QVG_V_LIST && l->t != QVG_V_NULL) return qvg_type_error(err, "%s expects a List, not %s", what, tname(l));
  return QV_OK;
}

static qv_status eval_comp(const qvg_cx *e, qvg_evalctx *cx, int64_t row, qvg_val *out, qv_error *err) {
  qvg_val l, *x = NULL;
  QV_RETURN_NOT_OK(kid(e, 0, cx, row, &l, err));
  QV_RETURN_NOT_OK(list_operand(&l, "a list comprehension", err));
  *out = qvg_null();
  if (l.t == QVG_V_NULL) return QV_OK;
  QV_RETURN_NOT_OK(local_slot(cx, e->slot, &x, err));
  qvg_val saved = *x;
  qvg_val *items = qvg_new_list(cx->arena, l.n, out);
  if (!items) return qv_error_nomem(err, "cypher: list comprehension");
  int32_t k = 0;
  for (int32_t i = 0; i < l.n; i++) {
    *x = l.u.l[i];
    if (e->n_kids > 1 && e->kids[1]) {
      qvg_tri t;
      QV_RETURN_NOT_OK(qvg_eval_pred(e->kids[1], cx, row, &t, err));
      if (t != QVG_TRUE) continue;
    }
    if (e->n_kids > 2 && e->kids[2]) QV_RETURN_NOT_OK(eval(e->kids[2], cx, row, &items[k], err));
    else items[k] = l.u.l[i];
    k++;
  }
  out->n = k;
  *x = saved;
  return QV_OK;
}

static qv_status eval_quant(const qvg_cx *e, qvg_evalctx *cx, int64_t row, qvg_val *out, qv_error *err) {
  qvg_val l, *x = NULL;
  QV_RETURN_NOT_OK(kid(e, 0, cx, row, &l, err));
  QV_RETURN_NOT_OK(list_operand(&l, "a quantifier", err));
  *out = qvg_null();
  if (l.t == QVG_V_NULL) return QV_OK;
  QV_RETURN_NOT_OK(local_slot(cx, e->slot, &x, err));
  qvg_val saved = *x;
  int64_t n_true = 0, n_unknown = 0;
  for (int32_t i = 0; i < l.n; i++) {
    *x = l.u.l[i];
    qvg_tri t = QVG_TRUE;
    if (e->n_kids > 1 && e->kids[1]) QV_RETURN_NOT_OK(qvg_eval_pred(e->kids[1], cx, row, &t, err));
    n_true += t == QVG_TRUE;
    n_unknown += t == QVG_UNKNOWN;
  }
  *x = saved;
  int64_t n_false = l.n - n_true - n_unknown;
  switch (e->op) {
    case QVG_Q_ALL: *out = n_false ? qvg_bool(false) : n_unknown ? qvg_null() : qvg_bool(true); break;
    case QVG_Q_ANY: *out = n_true ? qvg_bool(true) : n_unknown ? qvg_null() : qvg_bool(false); break;
    case QVG_Q_NONE: *out = n_true ? qvg_bool(false) : n_unknown ? qvg_null() : qvg_bool(true); break;
    default: /* single */ *out = n_true > 1 ? qvg_bool(false) : n_unknown ? qvg_null() : qvg_bool(n_true == 1); break;
  }
  return QV_OK;
}

static qv_status eval_reduce(const qvg_cx *e, qvg_evalctx *cx, int64_t row, qvg_val *out, qv_error *err) {
  qvg_val acc, l, *sa = NULL, *sx = NULL;
  QV_RETURN_NOT_OK(kid(e, 0, cx, row, &acc, err));
  QV_RETURN_NOT_OK(kid(e, 1, cx, row, &l, err));
  QV_RETURN_NOT_OK(list_operand(&l, "reduce", err));
  *out = qvg_null();
  if (l.t == QVG_V_NULL) return QV_OK;
  QV_RETURN_NOT_OK(local_slot(cx, e->slot, &sa, err));
  QV_RETURN_NOT_OK(local_slot(cx, e->slot2, &sx, err));
  qvg_val save_a = *sa, save_x = *sx;
  for (int32_t i = 0; i < l.n; i++) {
    *sa = acc;
    *sx = l.u.l[i];
    QV_RETURN_NOT_OK(kid(e, 2, cx, row, &acc, err));
  }
  *sa = save_a;
  *sx = save_x;
  *out = acc;
  return QV_OK;
}

static qv_status eval_case(const qvg_cx *e, qvg_evalctx *cx, int64_t row, qvg_val *out, qv_error *err) {
  qvg_val subj = qvg_null();
  bool simple = e->n_kids > 0 && e->kids[0];
  if (simple) QV_RETURN_NOT_OK(eval(e->kids[0], cx, row, &subj, err));
  for (int32_t i = 1; i + 1 < e->n_kids; i += 2) {
    qvg_val w;
    QV_RETURN_NOT_OK(kid(e, i, cx, row, &w, err));
    qvg_tri t = QVG_UNKNOWN;
    if (simple) t = qvg_val_equals(&subj, &w);
    else QV_RETURN_NOT_OK(as_tri(&w, "CASE WHEN", &t, err));
    if (t == QVG_TRUE) return kid(e, i + 1, cx, row, out, err);
  }
  if (e->else_ex) return eval(e->else_ex, cx, row, out, err);
  *out = qvg_null();
  return QV_OK;
}

static qv_status eval_path(const qvg_cx *e, qvg_evalctx *cx, int64_t row, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  qvg_val *parts = qvg_arena_alloc(cx->arena, (size_t)(e->n_kids ? e->n_kids : 1) * sizeof *parts);
  if (!parts) return qv_error_nomem(err, "cypher: path");
  int64_t n = 0;
  for (int32_t i = 0; i < e->n_kids; i++) {
    QV_RETURN_NOT_OK(kid(e, i, cx, row, &parts[i], err));
    if (parts[i].t == QVG_V_NULL) return QV_OK; /* an unmatched OPTIONAL part: no path */
    bool node_slot = (i & 1) == 0;
    if (node_slot && parts[i].t != QVG_V_NODE)
      return qvg_type_error(err, "a path needs a Node, not %s", tname(&parts[i]));
    if (!node_slot && parts[i].t != QVG_V_REL && parts[i].t != QVG_V_LIST)
      return qvg_type_error(err, "a path needs a Relationship, not %s", tname(&parts[i]));
    n += node_slot ? 1 : parts[i].t == QVG_V_LIST ? 2 * (int64_t)parts[i].n - 1 : 1;
  }
  if (n > INT32_MAX) return qv_error_set(err, QV_ERR_OVERFLOW, "cypher: path too long");
  qvg_val *items = qvg_arena_alloc(cx->arena, (size_t)(n > 0 ? n : 1) * sizeof *items);
  if (!items) return qv_error_nomem(err, "cypher: path");
  int32_t k = 0;
  for (int32_t i = 0; i < e->n_kids; i++) {
    const qvg_val *p = &parts[i];
    if ((i & 1) == 0) {
      /* after a var-length hop the node is already there */
      if (k > 0 && items[k - 1].t == QVG_V_NODE) continue;
      items[k++] = *p;
    } else if (p->t == QVG_V_REL) {
      items[k++] = *p;
    } else {
      int64_t cur = items[k - 1].u.i;
      for (int32_t j = 0; j < p->n; j++) {
        const qvg_val *r = &p->u.l[j];
        if (r->t != QVG_V_REL) return qvg_type_error(err, "a path needs Relationships, not %s", tname(r));
        if (!cx->st) return qv_error_set(err, QV_ERR_INVALID, "cypher: a path without a store");
        int64_t s = qvg_store_rel_src(cx->st, r->u.i), d = qvg_store_rel_dst(cx->st, r->u.i);
        int64_t next = s == cur ? d : s;
        items[k++] = *r;
        items[k++] = qvg_node_val(next);
        cur = next;
      }
    }
  }
  out->t = QVG_V_PATH;
  out->n = k;
  out->u.l = items;
  return QV_OK;
}

static qv_status eval_map_proj(const qvg_cx *e, qvg_evalctx *cx, int64_t row, qvg_val *out, qv_error *err) {
  qvg_val subj;
  QV_RETURN_NOT_OK(kid(e, 0, cx, row, &subj, err));
  *out = qvg_null();
  if (subj.t == QVG_V_NULL) return QV_OK;
  if (subj.t != QVG_V_MAP && subj.t != QVG_V_NODE && subj.t != QVG_V_REL)
    return qvg_type_error(err, "a map projection needs a Map, Node or Relationship, not %s", tname(&subj));
  qvg_val all = {QVG_V_MAP, 0, {0}};
  if (e->all_props) QV_RETURN_NOT_OK(props_of(cx, &subj, &all, err));
  int32_t n = all.n + e->n_kids - 1;
  qvg_entry *en = qvg_arena_alloc(cx->arena, (size_t)(n > 0 ? n : 1) * sizeof *en);
  if (!en) return qv_error_nomem(err, "cypher: map projection");
  for (int32_t i = 0; i < all.n; i++) en[i] = all.u.m[i];
  for (int32_t i = 1; i < e->n_kids; i++) {
    qvg_entry *x = &en[all.n + i - 1];
    x->key = e->names[i - 1];
    x->klen = (int32_t)strlen(x->key);
    if (e->kids[i]) QV_RETURN_NOT_OK(eval(e->kids[i], cx, row, &x->v, err));
    else QV_RETURN_NOT_OK(prop_of(cx, &subj, x->key, x->klen, &x->v, err));
  }
  return qvg_map_make(cx->arena, en, n, out, err);
}

static qv_status eval_labels(const qvg_cx *e, qvg_evalctx *cx, int64_t row, qvg_val *out, qv_error *err) {
  qvg_val x;
  QV_RETURN_NOT_OK(kid(e, 0, cx, row, &x, err));
  *out = qvg_null();
  if (x.t == QVG_V_NULL) return QV_OK;
  if (x.t != QVG_V_NODE) return qvg_type_error(err, "a label test needs a Node, not %s", tname(&x));
  if (!cx->st) return qv_error_set(err, QV_ERR_INVALID, "cypher: a label test without a store");
  bool all = true;
  for (int32_t i = 0; i < e->n_labels && all; i++)
    all = e->labels[i] >= 0 && qvg_store_node_has_label(cx->st, x.u.i, e->labels[i]);
  *out = qvg_bool(all);
  return QV_OK;
}

static qv_status eval_fn(const qvg_cx *e, qvg_evalctx *cx, int64_t row, qvg_val *out, qv_error *err) {
  if (e->fn == QVG_FN_COALESCE) { /* lazy: the first non-null argument */
    for (int32_t i = 0; i < e->n_kids; i++) {
      QV_RETURN_NOT_OK(kid(e, i, cx, row, out, err));
      if (out->t != QVG_V_NULL) return QV_OK;
    }
    *out = qvg_null();
    return QV_OK;
  }
  qvg_val small[4];
  qvg_val *args = e->n_kids <= 4 ? small : qvg_arena_alloc(cx->arena, (size_t)e->n_kids * sizeof *args);
  if (!args) return qv_error_nomem(err, "cypher: function");
  for (int32_t i = 0; i < e->n_kids; i++) QV_RETURN_NOT_OK(kid(e, i, cx, row, &args[i], err));
  return qvg_fn_call(e->fn, args, e->n_kids, cx, out, err);
}

static qv_status eval(const qvg_cx *e, qvg_evalctx *cx, int64_t row, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  switch (e->kind) {
    case QVG_CX_LIT: *out = e->lit; return QV_OK;
    case QVG_CX_COL: {
      if (!cx->batch || e->col < 0 || e->col >= cx->batch->schema.n_fields)
        return qv_error_set(err, QV_ERR_INVALID, "cypher: column %d is not in the input", (int)e->col);
      qvg_colkind k = cx->kinds ? cx->kinds[e->col] : QVG_COL_VALUE;
      return qvg_val_from_array(cx->batch->columns[e->col], k, row, cx->arena, out, err);
    }
    case QVG_CX_LOCAL: {
      qvg_val *x = NULL;
      QV_RETURN_NOT_OK(local_slot(cx, e->slot, &x, err));
      *out = *x;
      return QV_OK;
    }
    case QVG_CX_PROP: {
      qvg_val x;
      QV_RETURN_NOT_OK(kid(e, 0, cx, row, &x, err));
      return prop_of(cx, &x, e->name, e->nlen, out, err);
    }
    case QVG_CX_INDEX: {
      qvg_val x, k;
      QV_RETURN_NOT_OK(kid(e, 0, cx, row, &x, err));
      QV_RETURN_NOT_OK(kid(e, 1, cx, row, &k, err));
      return index_of(cx, &x, &k, out, err);
    }
    case QVG_CX_SLICE: {
      qvg_val x, lo = qvg_int(0), hi = qvg_int(INT64_MAX);
      QV_RETURN_NOT_OK(kid(e, 0, cx, row, &x, err));
      if (e->n_kids > 1 && e->kids[1]) QV_RETURN_NOT_OK(eval(e->kids[1], cx, row, &lo, err));
      if (e->n_kids > 2 && e->kids[2]) QV_RETURN_NOT_OK(eval(e->kids[2], cx, row, &hi, err));
      if (x.t == QVG_V_NULL || lo.t == QVG_V_NULL || hi.t == QVG_V_NULL) return QV_OK;
      if (x.t != QVG_V_LIST) return qvg_type_error(err, "cannot slice %s", tname(&x));
      if (lo.t != QVG_V_INT || hi.t != QVG_V_INT)
        return qvg_type_error(err, "slice bounds must be Integers, not %s and %s", tname(&lo), tname(&hi));
      int64_t a = clamp_bound(lo.u.i, x.n), b = clamp_bound(hi.u.i, x.n);
      out->t = QVG_V_LIST;
      out->n = b > a ? (int32_t)(b - a) : 0;
      out->u.l = x.u.l + (b > a ? a : 0);
      return QV_OK;
    }
    case QVG_CX_LIST: {
      qvg_val *items = qvg_new_list(cx->arena, e->n_kids, out);
      if (!items) return qv_error_nomem(err, "cypher: list");
      for (int32_t i = 0; i < e->n_kids; i++) QV_RETURN_NOT_OK(kid(e, i, cx, row, &items[i], err));
      return QV_OK;
    }
    case QVG_CX_MAP: {
      qvg_entry *en = qvg_arena_alloc(cx->arena, (size_t)(e->n_kids ? e->n_kids : 1) * sizeof *en);
      if (!en) return qv_error_nomem(err, "cypher: map");
      for (int32_t i = 0; i < e->n_kids; i++) {
        en[i].key = e->names[i];
        en[i].klen = (int32_t)strlen(e->names[i]);
        QV_RETURN_NOT_OK(kid(e, i, cx, row, &en[i].v, err));
      }
      return qvg_map_make(cx->arena, en, e->n_kids, out, err);
    }
    case QVG_CX_AND:
    case QVG_CX_OR:
    case QVG_CX_XOR: {
      static const char *names[] = {"AND", "OR", "XOR"};
      const char *nm = names[e->kind - QVG_CX_AND];
      qvg_val a, b;
      qvg_tri x = QVG_UNKNOWN, y = QVG_UNKNOWN, r;
      QV_RETURN_NOT_OK(kid(e, 0, cx, row, &a, err));
      QV_RETURN_NOT_OK(as_tri(&a, nm, &x, err));
      QV_RETURN_NOT_OK(kid(e, 1, cx, row, &b, err));
      QV_RETURN_NOT_OK(as_tri(&b, nm, &y, err));
      if (e->kind == QVG_CX_AND) r = tri_and(x, y);
      else if (e->kind == QVG_CX_OR) r = tri_not(tri_and(tri_not(x), tri_not(y)));
      else r = x == QVG_UNKNOWN || y == QVG_UNKNOWN ? QVG_UNKNOWN : x != y ? QVG_TRUE : QVG_FALSE;
      *out = tri_val(r);
      return QV_OK;
    }
    case QVG_CX_NOT: {
      qvg_val a;
      qvg_tri x = QVG_UNKNOWN;
      QV_RETURN_NOT_OK(kid(e, 0, cx, row, &a, err));
      QV_RETURN_NOT_OK(as_tri(&a, "NOT", &x, err));
      *out = tri_val(tri_not(x));
      return QV_OK;
    }
    case QVG_CX_CMP: {
      qvg_val a, b;
      qvg_tri r = QVG_TRUE;
      QV_RETURN_NOT_OK(kid(e, 0, cx, row, &a, err));
      for (int32_t i = 1; i < e->n_kids; i++) {
        QV_RETURN_NOT_OK(kid(e, i, cx, row, &b, err));
        r = tri_and(r, compare(e->ops ? e->ops[i - 1] : QVG_CMP_EQ, &a, &b));
        a = b;
      }
      *out = tri_val(r);
      return QV_OK;
    }
    case QVG_CX_BINARY: {
      qvg_val a, b;
      QV_RETURN_NOT_OK(kid(e, 0, cx, row, &a, err));
      QV_RETURN_NOT_OK(kid(e, 1, cx, row, &b, err));
      if (e->op <= QVG_OP_POW) return arith(cx, e->op, &a, &b, out, err);
      if (e->op == QVG_OP_IN) return in_list(&a, &b, out, err);
      return string_op(e->op, &a, &b, out, err);
    }
    case QVG_CX_NEG: {
      qvg_val a;
      QV_RETURN_NOT_OK(kid(e, 0, cx, row, &a, err));
      if (a.t == QVG_V_NULL) return QV_OK;
      if (a.t == QVG_V_INT) {
        if (a.u.i == INT64_MIN) return qvg_overflow(err, "unary -");
        *out = qvg_int(-a.u.i);
      } else if (a.t == QVG_V_FLOAT) {
        *out = qvg_float(-a.u.f);
      } else {
        return qvg_type_error(err, "cannot apply unary - to %s", tname(&a));
      }
      return QV_OK;
    }
    case QVG_CX_IS_NULL: {
      qvg_val a;
      QV_RETURN_NOT_OK(kid(e, 0, cx, row, &a, err));
      *out = qvg_bool((a.t == QVG_V_NULL) != (e->op == 1));
      return QV_OK;
    }
    case QVG_CX_LABELS: return eval_labels(e, cx, row, out, err);
    case QVG_CX_CASE: return eval_case(e, cx, row, out, err);
    case QVG_CX_FN: return eval_fn(e, cx, row, out, err);
    case QVG_CX_LIST_COMP: return eval_comp(e, cx, row, out, err);
    case QVG_CX_QUANT: return eval_quant(e, cx, row, out, err);
    case QVG_CX_REDUCE: return eval_reduce(e, cx, row, out, err);
    case QVG_CX_PATH: return eval_path(e, cx, row, out, err);
    case QVG_CX_MAP_PROJ: return eval_map_proj(e, cx, row, out, err);
    default: return qv_error_set(err, QV_ERR_INVALID, "cypher: unknown expression kind %d", (int)e->kind);
  }
}

qv_status qvg_eval(const qvg_cx *e, qvg_evalctx *cx, int64_t row, qvg_val *out, qv_error *err) {
  qv_status st = eval(e, cx, row, out, err);
  if (st != QV_OK) {
    *out = qvg_null();
    if (e->line > 0 && err && strstr(err->message, " at line ") == NULL && st != QV_ERR_NOMEM) {
      size_t n = strlen(err->message);
      snprintf(err->message + n, sizeof err->message - n, " at line %d, column %d", (int)e->line, (int)e->col0);
    }
  }
  return st;
}

qv_status qvg_eval_pred(const qvg_cx *e, qvg_evalctx *cx, int64_t row, qvg_tri *out, qv_error *err) {
  qvg_val v;
  *out = QVG_UNKNOWN;
  QV_RETURN_NOT_OK(qvg_eval(e, cx, row, &v, err));
  return as_tri(&v, "a predicate", out, err);
}

/* ---- inspection and text ------------------------------------------------------ */

bool qvg_cx_uses_col(const qvg_cx *e, int32_t col) {
  if (!e) return false;
  if (e->kind == QVG_CX_COL && e->col == col) return true;
  for (int32_t i = 0; i < e->n_kids; i++)
    if (qvg_cx_uses_col(e->kids[i], col)) return true;
  return qvg_cx_uses_col(e->else_ex, col);
}

static void text(const qvg_cx *e, const char *const *names, qvb_text *t);

static void text_kids(const qvg_cx *e, int32_t from, const char *const *names, qvb_text *t) {
  for (int32_t i = from; i < e->n_kids; i++) {
    if (i > from) qvb_text_s(t, ", ");
    text(e->kids[i], names, t);
  }
}

static void text_local(const qvg_cx *e, int32_t slot, qvb_text *t) {
  (void)e;
  qvb_text_f(t, "$%d", (int)slot);
}

static void text(const qvg_cx *e, const char *const *names, qvb_text *t) {
  static const char *cmp[] = {"=", "<>", "<", "<=", ">", ">="};
  static const char *quant[] = {"all", "any", "none", "single"};
  if (!e) {
    qvb_text_s(t, "?");
    return;
  }
  switch (e->kind) {
    case QVG_CX_LIT: {
      qv_status st = qvg_val_render(&e->lit, NULL, t, NULL);
      (void)st;
      return;
    }
    case QVG_CX_COL:
      if (names && names[e->col]) qvb_text_s(t, names[e->col]);
      else qvb_text_f(t, "#%d", (int)e->col);
      return;
    case QVG_CX_LOCAL: text_local(e, e->slot, t); return;
    case QVG_CX_PROP:
      text(e->n_kids ? e->kids[0] : NULL, names, t);
      qvb_text_f(t, ".%s", e->name ? e->name : "?");
      return;
    case QVG_CX_INDEX:
      text(e->n_kids ? e->kids[0] : NULL, names, t);
      qvb_text_s(t, "[");
      text(e->n_kids > 1 ? e->kids[1] : NULL, names, t);
      qvb_text_s(t, "]");
      return;
    case QVG_CX_SLICE:
      text(e->n_kids ? e->kids[0] : NULL, names, t);
      qvb_text_s(t, "[");
      if (e->n_kids > 1 && e->kids[1]) text(e->kids[1], names, t);
      qvb_text_s(t, "..");
      if (e->n_kids > 2 && e->kids[2]) text(e->kids[2], names, t);
      qvb_text_s(t, "]");
      return;
    case QVG_CX_LIST:
      qvb_text_s(t, "[");
      text_kids(e, 0, names, t);
      qvb_text_s(t, "]");
      return;
    case QVG_CX_MAP:
      qvb_text_s(t, "{");
      for (int32_t i = 0; i < e->n_kids; i++) {
        qvb_text_f(t, "%s%s: ", i ? ", " : "", e->names ? e->names[i] : "?");
        text(e->kids[i], names, t);
      }
      qvb_text_s(t, "}");
      return;
    case QVG_CX_AND:
    case QVG_CX_OR:
    case QVG_CX_XOR: {
      static const char *ops[] = {" AND ", " OR ", " XOR "};
      qvb_text_s(t, "(");
      text(e->n_kids ? e->kids[0] : NULL, names, t);
      qvb_text_s(t, ops[e->kind - QVG_CX_AND]);
      text(e->n_kids > 1 ? e->kids[1] : NULL, names, t);
      qvb_text_s(t, ")");
      return;
    }
    case QVG_CX_NOT:
      qvb_text_s(t, "NOT ");
      text(e->n_kids ? e->kids[0] : NULL, names, t);
      return;
    case QVG_CX_CMP:
      qvb_text_s(t, "(");
      for (int32_t i = 0; i < e->n_kids; i++) {
        if (i) qvb_text_f(t, " %s ", e->ops && e->ops[i - 1] <= QVG_CMP_GE ? cmp[e->ops[i - 1]] : "=");
        text(e->kids[i], names, t);
      }
      qvb_text_s(t, ")");
      return;
    case QVG_CX_BINARY:
      qvb_text_s(t, "(");
      text(e->n_kids ? e->kids[0] : NULL, names, t);
      qvb_text_f(t, " %s ", op_name(e->op));
      text(e->n_kids > 1 ? e->kids[1] : NULL, names, t);
      qvb_text_s(t, ")");
      return;
    case QVG_CX_NEG:
      qvb_text_s(t, "-");
      text(e->n_kids ? e->kids[0] : NULL, names, t);
      return;
    case QVG_CX_IS_NULL:
      text(e->n_kids ? e->kids[0] : NULL, names, t);
      qvb_text_s(t, e->op == 1 ? " IS NOT NULL" : " IS NULL");
      return;
    case QVG_CX_LABELS:
      text(e->n_kids ? e->kids[0] : NULL, names, t);
      for (int32_t i = 0; i < e->n_labels; i++) qvb_text_f(t, ":#%d", (int)e->labels[i]);
      return;
    case QVG_CX_CASE:
      qvb_text_s(t, "CASE");
      if (e->n_kids > 0 && e->kids[0]) {
        qvb_text_s(t, " ");
        text(e->kids[0], names, t);
      }
      for (int32_t i = 1; i + 1 < e->n_kids; i += 2) {
        qvb_text_s(t, " WHEN ");
        text(e->kids[i], names, t);
        qvb_text_s(t, " THEN ");
        text(e->kids[i + 1], names, t);
      }
      if (e->else_ex) {
        qvb_text_s(t, " ELSE ");
        text(e->else_ex, names, t);
      }
      qvb_text_s(t, " END");
      return;
    case QVG_CX_FN:
      qvb_text_f(t, "%s(", e->fn == QVG_FN_COALESCE ? "coalesce" : qvg_fn_name(e->fn));
      text_kids(e, 0, names, t);
      qvb_text_s(t, ")");
      return;
    case QVG_CX_LIST_COMP:
      qvb_text_s(t, "[");
      text_local(e, e->slot, t);
      qvb_text_s(t, " IN ");
      text(e->n_kids ? e->kids[0] : NULL, names, t);
      if (e->n_kids > 1 && e->kids[1]) {
        qvb_text_s(t, " WHERE ");
        text(e->kids[1], names, t);
      }
      if (e->n_kids > 2 && e->kids[2]) {
        qvb_text_s(t, " | ");
        text(e->kids[2], names, t);
      }
      qvb_text_s(t, "]");
      return;
    case QVG_CX_QUANT:
      qvb_text_f(t, "%s(", e->op <= QVG_Q_SINGLE ? quant[e->op] : "?");
      text_local(e, e->slot, t);
      qvb_text_s(t, " IN ");
      text(e->n_kids ? e->kids[0] : NULL, names, t);
      if (e->n_kids > 1 && e->kids[1]) {
        qvb_text_s(t, " WHERE ");
        text(e->kids[1], names, t);
      }
      qvb_text_s(t, ")");
      return;
    case QVG_CX_REDUCE:
      qvb_text_s(t, "reduce(");
      text_local(e, e->slot, t);
      qvb_text_s(t, " = ");
      text(e->n_kids ? e->kids[0] : NULL, names, t);
      qvb_text_s(t, ", ");
      text_local(e, e->slot2, t);
      qvb_text_s(t, " IN ");
      text(e->n_kids > 1 ? e->kids[1] : NULL, names, t);
      qvb_text_s(t, " | ");
      text(e->n_kids > 2 ? e->kids[2] : NULL, names, t);
      qvb_text_s(t, ")");
      return;
    case QVG_CX_PATH:
      qvb_text_s(t, "path(");
      text_kids(e, 0, names, t);
      qvb_text_s(t, ")");
      return;
    case QVG_CX_MAP_PROJ:
      text(e->n_kids ? e->kids[0] : NULL, names, t);
      qvb_text_s(t, "{");
      for (int32_t i = 1; i < e->n_kids; i++) {
        qvb_text_s(t, i > 1 ? ", " : "");
        if (e->kids[i]) {
          qvb_text_f(t, "%s: ", e->names[i - 1]);
          text(e->kids[i], names, t);
        } else {
          qvb_text_f(t, ".%s", e->names[i - 1]);
        }
      }
      if (e->all_props) qvb_text_s(t, e->n_kids > 1 ? ", .*" : ".*");
      qvb_text_s(t, "}");
      return;
    default: qvb_text_f(t, "?%d", (int)e->kind); return;
  }
}

void qvg_cx_text(const qvg_cx *e, const char *const *col_names, qvb_text *t) { text(e, col_names, t); }
