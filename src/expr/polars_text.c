/* qv_polars_parse: Polars expressions written as Python.  The grammar is
 * Python's expression grammar restricted to what a Polars predicate uses,
 * with Python's precedence (comparisons bind looser than | ^ &, so
 * `pl.col("a") > 1 & x` is `pl.col("a") > (1 & x)`, as in Python).  Values
 * are Python values (ints, strings, dates, lists, dtypes) until they meet
 * an expression; then they become literals exactly as Polars makes them,
 * so the tree equals the one qv_polars_from_json reads from what Polars
 * serializes for the same text. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "expr/polars_text_int.h"

bool qve_pt_fail(pt *p, int32_t col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  qve_diag_vfail(&p->d, QV_ERR_PARSE, col, fmt, ap);
  va_end(ap);
  return false;
}

bool qve_pt_nomem(pt *p) {
  qve_diag_nomem(&p->d);
  return false;
}

void qve_pv_reset(pv *v) {
  qv_expr_destroy(v->expr);
  qv_free(v->s);
  for (int32_t i = 0; i < v->n_items; i++) qve_pv_reset(&v->items[i]);
  qv_free(v->items);
  qv_datatype_reset(&v->type);
  memset(v, 0, sizeof *v);
}

void qve_pt_args_reset(pt_args *a) {
  for (int32_t i = 0; i < a->n; i++) qve_pv_reset(&a->a[i].v);
  qv_free(a->a);
  memset(a, 0, sizeof *a);
}

static const pt_token *peek(pt *p) { return &p->toks[p->i]; }
static const pt_token *next(pt *p) {
  const pt_token *t = &p->toks[p->i];
  if (t->kind != PT_EOF) p->i++;
  return t;
}
static bool at(pt *p, pt_kind k) { return p->toks[p->i].kind == k; }

static const char *describe(pt *p, const pt_token *t, char *buf, size_t size) {
  if (t->kind == PT_EOF) return "end of input";
  int len = t->len > 40 ? 40 : t->len;
  snprintf(buf, size, "'%.*s%s'", len, p->text + t->start, t->len > 40 ? "..." : "");
  return buf;
}

static bool expected(pt *p, const char *what) {
  char buf[64];
  const pt_token *t = peek(p);
  return qve_pt_fail(p, t->col, "expected %s, found %s", what, describe(p, t, buf, sizeof buf));
}

static bool expect(pt *p, pt_kind k, const char *what) {
  if (!at(p, k)) return expected(p, what);
  next(p);
  return true;
}

bool qve_pt_set_expr(pt *p, pv *v, qv_expr *e, int32_t depth, int32_t col) {
  if (!e) return qve_pt_nomem(p);
  if (depth > QV_EXPR_MAX_DEPTH) {
    qv_expr_destroy(e);
    return qve_pt_fail(p, col, "expression nested deeper than %d levels", QV_EXPR_MAX_DEPTH);
  }
  if (e->pos == 0) e->pos = col;
  memset(v, 0, sizeof *v);
  v->kind = PV_EXPR;
  v->expr = e;
  v->depth = depth;
  v->col = col;
  return true;
}

/* ---- Python values as literals ------------------------------------------ */

/* The dtype Polars infers for a Python list (as a Series): ints Int64,
 * floats Float64, and so on; None fits any.  false: a mixture Polars
 * refuses (it builds the Series strictly) or a type quiver cannot hold. */
typedef enum list_kind { LIST_OK, LIST_MIXED, LIST_NESTED } list_kind;

static list_kind list_item_kind(const pv *list, pv_kind *kind) {
  *kind = PV_NONE;
  for (int32_t i = 0; i < list->n_items; i++) {
    pv_kind k = list->items[i].kind;
    if (k == PV_NONE) continue;
    if (k == PV_LIST || k == PV_DECIMAL || k == PV_EXPR || k == PV_THEN || k == PV_WHEN || k == PV_DTYPE)
      return LIST_NESTED;
    if (*kind == PV_NONE) *kind = k;
    else if (*kind != k) return LIST_MIXED; /* Polars refuses even ints with floats */
  }
  return LIST_OK;
}

/* An integer list is Int64, or UInt64 when an item is past Int64 and none
 * is negative (Polars infers the list's dtype so); QV_TYPE_NULL when no
 * integer type holds every item. */
static qv_type_id int_list_type(const pv *list) {
  bool big = false, neg = false;
  for (int32_t i = 0; i < list->n_items; i++) {
    const pv *v = &list->items[i];
    if (v->kind != PV_INT) continue;
    qv_expr *d = qve_pl_dyn_int_text(v->s, (size_t)v->n);
    if (!d || d->kind != QV_EXPR_LITERAL) {
      qv_expr_destroy(d);
      return QV_TYPE_NULL;
    }
    if (d->value.type.id == QV_TYPE_INT64) neg = neg || d->value.v.i < 0;
    else if (d->value.type.id == QV_TYPE_UINT64) big = true;
    else {
      qv_expr_destroy(d);
      return QV_TYPE_NULL;
    }
    qv_expr_destroy(d);
  }
  return big && neg ? QV_TYPE_NULL : big ? QV_TYPE_UINT64 : QV_TYPE_INT64;
}

/* One list item as a typed (non-dynamic) literal of the list's dtype
 * (int_type: the integer list's, from int_list_type). */
static qv_expr *list_item(pt *p, const pv *v, pv_kind kind, qv_type_id int_type) {
  qv_scalar s = QV_SCALAR_INIT;
  qv_error e2;
  switch (kind) {
    case PV_NONE: s.type = qv_datatype_simple(QV_TYPE_NULL); break;
    case PV_INT: s.type = qv_datatype_simple(int_type); break;
    case PV_FLOAT: s.type = qv_datatype_simple(QV_TYPE_FLOAT64); break;
    case PV_STR: s.type = qv_datatype_simple(QV_TYPE_STRING); break;
    case PV_BYTES: s.type = qv_datatype_simple(QV_TYPE_BINARY); break;
    case PV_BOOL: s.type = qv_datatype_simple(QV_TYPE_BOOL); break;
    case PV_DATE: s.type = qv_datatype_simple(QV_TYPE_DATE32); break;
    case PV_DATETIME:
      if (qv_datatype_timestamp(QV_UNIT_MICRO, v->utc ? "UTC" : NULL, &s.type, &e2) != QV_OK) return NULL;
      break;
    case PV_TIMEDELTA: s.type = qv_datatype_duration(QV_UNIT_MICRO); break;
    case PV_TIME: s.type = qv_datatype_time64(QV_UNIT_NANO); break;
    default: return NULL;
  }
  if (v->kind != PV_NONE) {
    s.is_null = false;
    if (kind == PV_INT) {
      qv_expr *d = qve_pl_dyn_int_text(v->s, (size_t)v->n);
      bool ok =
          d && d->kind == QV_EXPR_LITERAL &&
          (d->value.type.id == QV_TYPE_INT64 || (d->value.type.id == QV_TYPE_UINT64 && int_type == QV_TYPE_UINT64));
      if (ok && int_type == QV_TYPE_UINT64)
        s.v.u = d->value.type.id == QV_TYPE_UINT64 ? d->value.v.u : (uint64_t)d->value.v.i; /* none is negative */
      else if (ok) s.v.i = d->value.v.i;
      qv_expr_destroy(d);
      if (!ok) {
        qve_pt_fail(p, v->col, "integers out of range for an Int64 and a UInt64 list");
        return NULL;
      }
    } else if (kind == PV_FLOAT) {
      if (v->kind == PV_INT) {
        double f;
        if (!qve_expr_parse_double(v->s, (size_t)v->n, &f)) return NULL;
        s.v.f = f;
      } else {
        s.v.f = v->f;
      }
    } else if (kind == PV_STR || kind == PV_BYTES) {
      s.bytes = qv_malloc((size_t)v->n + 1);
      if (!s.bytes) return NULL;
      memcpy(s.bytes, v->s, (size_t)v->n);
      s.bytes[v->n] = 0;
      s.len = v->n;
    } else if (kind == PV_BOOL) {
      s.v.b = v->i != 0;
    } else {
      s.v.i = v->i;
    }
  }
  return qve_pl_literal(&s, false);
}

static bool list_to_expr(pt *p, pv *v, qv_expr **out) {
  pv_kind kind;
  list_kind lk = list_item_kind(v, &kind);
  if (lk == LIST_MIXED) return qve_pt_fail(p, v->col, "cannot mix these types in a list");
  if (lk == LIST_NESTED) {
    /* Lists of lists, decimals or expressions: Polars makes some, quiver none. */
    *out = qve_pl_unknown("Literal", NULL, 0);
    return *out ? true : qve_pt_nomem(p);
  }
  qv_type_id int_type = kind == PV_INT ? int_list_type(v) : QV_TYPE_INT64;
  if (int_type == QV_TYPE_NULL) return qve_pt_fail(p, v->col, "integers out of range for an Int64 and a UInt64 list");
  qv_expr **items = qv_calloc((size_t)v->n_items + 1, sizeof *items);
  if (!items) return qve_pt_nomem(p);
  for (int32_t i = 0; i < v->n_items; i++) {
    if (!(items[i] = list_item(p, &v->items[i], kind, int_type))) {
      for (int32_t k = 0; k < i; k++) qv_expr_destroy(items[k]);
      qv_free(items);
      return qve_diag_failed(&p->d) ? false : qve_pt_nomem(p);
    }
  }
  *out = qve_pl_call(QV_OP_LIST, items, v->n_items);
  qv_free(items);
  return *out ? true : qve_pt_nomem(p);
}

/* THEN chain -> WHEN with a null otherwise; the pairs are kept in a WHEN
 * node whose last argument is missing. */
static qv_expr *finish_when(qv_expr *pairs, qv_expr *otherwise) {
  /* pairs->args: p1, t1, ..., pn, tn.  Build from the end so that the
   * flattening matches Polars' nested ternaries. */
  qv_expr *acc = otherwise;
  for (int32_t i = pairs->n_args - 2; i >= 0 && acc; i -= 2) {
    acc = qve_pl_when(pairs->args[i], pairs->args[i + 1], acc);
    pairs->args[i] = pairs->args[i + 1] = NULL;
  }
  for (int32_t i = 0; i < pairs->n_args; i++) qv_expr_destroy(pairs->args[i]);
  pairs->n_args = 0;
  qv_expr_destroy(pairs);
  return acc;
}

static bool to_expr_impl(pt *p, pv *v, bool str_as_lit, qv_expr **out, int32_t *depth) {
  *out = NULL;
  *depth = 1;
  qv_scalar s = QV_SCALAR_INIT;
  qv_expr *e = NULL;
  qv_error e2;
  switch (v->kind) {
    case PV_EXPR:
      *out = v->expr;
      *depth = v->depth;
      v->expr = NULL;
      qve_pv_reset(v);
      return true;
    case PV_THEN: {
      qv_expr *null = qve_pl_null(QV_TYPE_NULL);
      if (!null) return qve_pt_nomem(p);
      *depth = v->depth + 1;
      e = finish_when(v->expr, null);
      v->expr = NULL;
      break;
    }
    case PV_WHEN: return qve_pt_fail(p, v->col, "expected .then(...) after pl.when(...)");
    case PV_DTYPE: return qve_pt_fail(p, v->col, "a data type is not an expression");
    case PV_TZ: return qve_pt_fail(p, v->col, "a tzinfo is not an expression");
    case PV_INT: e = qve_pl_dyn_int_text(v->s, (size_t)v->n); break;
    case PV_FLOAT: e = qve_pl_dyn_float(v->f); break;
    case PV_STR: e = str_as_lit ? qve_pl_string(v->s, (size_t)v->n) : qve_pl_mark(qv_expr_column(v->s)); break;
    case PV_BYTES:
      s.type = qv_datatype_simple(QV_TYPE_BINARY);
      s.is_null = false;
      s.bytes = (uint8_t *)v->s;
      s.len = v->n;
      v->s = NULL;
      e = qve_pl_literal(&s, false);
      break;
    case PV_BOOL:
      s = qv_scalar_bool(v->i != 0);
      e = qve_pl_literal(&s, false);
      break;
    case PV_NONE: e = qve_pl_null(QV_TYPE_NULL); break;
    case PV_LIST:
      if (!list_to_expr(p, v, &e)) return false;
      *depth = 2;
      break;
    case PV_DATE:
    case PV_TIMEDELTA:
    case PV_TIME:
    case PV_DATETIME:
      if (v->kind == PV_DATE) s = qv_scalar_int(QV_TYPE_DATE32, v->i);
      else if (v->kind == PV_TIMEDELTA) s.type = qv_datatype_duration(QV_UNIT_MICRO);
      else if (v->kind == PV_TIME) s.type = qv_datatype_time64(QV_UNIT_NANO);
      else if (qv_datatype_timestamp(QV_UNIT_MICRO, v->utc ? "UTC" : NULL, &s.type, &e2) != QV_OK)
        return qve_pt_nomem(p);
      s.is_null = false;
      s.v.i = v->i;
      e = qve_pl_literal(&s, false);
      break;
    case PV_DECIMAL:
      /* Polars gives a Python Decimal precision 38 and its own scale. */
      if (qv_datatype_decimal(38, v->scale, &s.type, &e2) != QV_OK)
        return qve_pt_fail(p, v->col, "decimal scale out of range");
      s.is_null = false;
      qve_dec_store(&s, v->dec);
      e = qve_pl_literal(&s, false);
      break;
  }
  qve_pv_reset(v);
  if (!e) return qve_pt_nomem(p);
  *out = e;
  return true;
}

/* v is always consumed, also on failure. */
bool qve_pt_to_expr(pt *p, pv *v, bool str_as_lit, qv_expr **out, int32_t *depth) {
  bool ok = to_expr_impl(p, v, str_as_lit, out, depth);
  qve_pv_reset(v);
  return ok;
}

/* ---- expressions --------------------------------------------------------- */

static bool parse_or(pt *p, pv *out);
static bool parse_unary(pt *p, pv *out);

static bool is_exprish(const pv *v) { return v->kind == PV_EXPR || v->kind == PV_THEN || v->kind == PV_WHEN; }

/* l op r where at least one side is an expression.  Python calls the
 * left operand's method, or the right one's reflected method when the
 * left is a plain value: for arithmetic and logic that keeps the order
 * (lit(1) - x), for comparisons it swaps the sides (1 < x is x > 1). */
static bool combine(pt *p, pv *l, pv *r, qv_op op, int32_t col, pv *out) {
  if (!is_exprish(l) && !is_exprish(r)) {
    qve_pv_reset(l);
    qve_pv_reset(r);
    return qve_pt_fail(p, col, "operator between two Python values (write pl.lit(...) for a literal expression)");
  }
  bool swap = !is_exprish(l);
  if (swap) {
    switch (op) {
      case QV_OP_LT: op = QV_OP_GT; break;
      case QV_OP_GT: op = QV_OP_LT; break;
      case QV_OP_LE: op = QV_OP_GE; break;
      case QV_OP_GE: op = QV_OP_LE; break;
      case QV_OP_EQ:
      case QV_OP_NE: break;
      default: swap = false; break;
    }
  }
  qv_expr *a, *b;
  int32_t da, db;
  if (!qve_pt_to_expr(p, l, true, &a, &da)) {
    qve_pv_reset(r);
    return false;
  }
  if (!qve_pt_to_expr(p, r, true, &b, &db)) {
    qv_expr_destroy(a);
    return false;
  }
  qv_expr *e = swap ? qve_pl_call2(op, b, a) : qve_pl_call2(op, a, b);
  return qve_pt_set_expr(p, out, e, (da > db ? da : db) + 1, col);
}

static bool enter(pt *p) {
  if (++p->nesting > QV_EXPR_MAX_NESTING) return qve_pt_fail(p, peek(p)->col, "expression nested too deeply");
  return true;
}

/* Comma-separated call arguments up to ')' (the '(' already read). */
static bool parse_args(pt *p, pt_args *args) {
  int32_t col = args->col;
  memset(args, 0, sizeof *args);
  args->col = col;
  int32_t cap = 0;
  bool kw_seen = false;
  while (!at(p, PT_RPAREN)) {
    const pt_token *kw = NULL;
    if (at(p, PT_NAME) && p->toks[p->i + 1].kind == PT_ASSIGN) {
      kw = next(p);
      next(p);
      kw_seen = true;
    } else if (kw_seen) {
      return qve_pt_fail(p, peek(p)->col, "positional argument after a keyword argument");
    }
    if (args->n == cap) {
      cap = cap ? cap * 2 : 4;
      pt_arg *na = qv_realloc(args->a, (size_t)cap * sizeof *na);
      if (!na) return qve_pt_nomem(p);
      args->a = na;
    }
    pt_arg *a = &args->a[args->n];
    memset(a, 0, sizeof *a);
    a->kw = kw;
    args->n++; /* counted first, so that a failed parse is freed with the rest */
    if (!parse_or(p, &a->v)) return false;
    if (!at(p, PT_COMMA)) break;
    next(p);
  }
  return expect(p, PT_RPAREN, "',' or ')'");
}

static bool parse_list(pt *p, pv *out) {
  int32_t col = next(p)->col; /* [ */
  memset(out, 0, sizeof *out);
  out->kind = PV_LIST;
  out->col = col;
  int32_t cap = 0;
  while (!at(p, PT_RBRACKET)) {
    if (out->n_items == cap) {
      cap = cap ? cap * 2 : 4;
      pv *ni = qv_realloc(out->items, (size_t)cap * sizeof *ni);
      if (!ni) return qve_pt_nomem(p);
      out->items = ni;
    }
    pv *item = &out->items[out->n_items++];
    memset(item, 0, sizeof *item);
    if (!parse_or(p, item)) return false;
    if (!at(p, PT_COMMA)) break;
    next(p);
  }
  return expect(p, PT_RBRACKET, "',' or ']'");
}

static bool parse_atom(pt *p, pv *out) {
  const pt_token *t = peek(p);
  memset(out, 0, sizeof *out);
  out->col = t->col;
  switch (t->kind) {
    case PT_INT:
    case PT_FLOAT:
    case PT_STRING:
    case PT_BYTES:
      next(p);
      if (t->kind == PT_FLOAT) {
        out->kind = PV_FLOAT;
        if (!qve_expr_parse_double(t->text, (size_t)t->text_len, &out->f)) return qve_pt_fail(p, t->col, "bad number");
        return true;
      }
      out->kind = t->kind == PT_INT ? PV_INT : t->kind == PT_STRING ? PV_STR : PV_BYTES;
      out->s = qv_malloc((size_t)t->text_len + 1);
      if (!out->s) return qve_pt_nomem(p);
      memcpy(out->s, t->text, (size_t)t->text_len + 1);
      out->n = t->text_len;
      /* Adjacent string literals concatenate, as in Python. */
      while (out->kind != PV_INT && at(p, t->kind)) {
        const pt_token *u = next(p);
        char *ns = qv_realloc(out->s, (size_t)(out->n + u->text_len) + 1);
        if (!ns) return qve_pt_nomem(p);
        memcpy(ns + out->n, u->text, (size_t)u->text_len + 1);
        out->s = ns;
        out->n += u->text_len;
      }
      return true;
    case PT_LPAREN: {
      next(p);
      if (at(p, PT_RPAREN) || !parse_or(p, out)) return at(p, PT_RPAREN) ? expected(p, "an expression") : false;
      if (!at(p, PT_COMMA)) return expect(p, PT_RPAREN, "')'");
      /* A tuple: Polars takes it as it takes a list. */
      pv first = *out;
      memset(out, 0, sizeof *out);
      out->kind = PV_LIST;
      out->col = t->col;
      out->items = qv_calloc(4, sizeof *out->items);
      if (!out->items) {
        qve_pv_reset(&first);
        return qve_pt_nomem(p);
      }
      out->items[out->n_items++] = first;
      int32_t cap = 4;
      while (at(p, PT_COMMA)) {
        next(p);
        if (at(p, PT_RPAREN)) break;
        if (out->n_items == cap) {
          cap *= 2;
          pv *ni = qv_realloc(out->items, (size_t)cap * sizeof *ni);
          if (!ni) return qve_pt_nomem(p);
          out->items = ni;
        }
        pv *item = &out->items[out->n_items++];
        memset(item, 0, sizeof *item);
        if (!parse_or(p, item)) return false;
      }
      return expect(p, PT_RPAREN, "',' or ')'");
    }
    case PT_LBRACKET: return parse_list(p, out);
    case PT_NAME: {
      next(p);
      if (strcmp(t->text, "True") == 0 || strcmp(t->text, "False") == 0) {
        out->kind = PV_BOOL;
        out->i = t->text[0] == 'T';
        return true;
      }
      if (strcmp(t->text, "None") == 0) {
        out->kind = PV_NONE;
        return true;
      }
      if (strcmp(t->text, "pl") == 0 || strcmp(t->text, "polars") == 0) {
        if (!expect(p, PT_DOT, "'.' after pl")) return false;
        const pt_token *name = peek(p);
        if (!expect(p, PT_NAME, "a name after 'pl.'")) return false;
        pt_args args = {0};
        bool called = at(p, PT_LPAREN);
        if (called) {
          args.col = next(p)->col;
          if (!parse_args(p, &args)) {
            qve_pt_args_reset(&args);
            return false;
          }
        }
        bool ok = qve_pt_pl_attr(p, name, &args, called, out);
        qve_pt_args_reset(&args);
        /* The node starts at "pl", not at the function name. */
        if (ok && out->expr && out->expr->pos == name->col) out->expr->pos = t->col;
        if (ok) out->col = t->col;
        return ok;
      }
      /* date(...), datetime.date(...), decimal.Decimal(...) ... */
      const pt_token *name = t;
      if (at(p, PT_DOT) && p->toks[p->i + 1].kind == PT_NAME && p->toks[p->i + 2].kind == PT_LPAREN &&
          (strcmp(t->text, "datetime") == 0 || strcmp(t->text, "decimal") == 0 || strcmp(t->text, "math") == 0 ||
           strcmp(t->text, "zoneinfo") == 0)) {
        next(p);
        name = next(p);
      }
      if (at(p, PT_LPAREN)) {
        pt_args args = {0};
        args.col = next(p)->col;
        bool ok = parse_args(p, &args) && qve_pt_builtin(p, name, &args, out);
        qve_pt_args_reset(&args);
        out->col = t->col;
        return ok;
      }
      /* timezone.utc, datetime.timezone.utc: the UTC tzinfo */
      if (strcmp(name->text, "datetime") == 0 && at(p, PT_DOT) && p->toks[p->i + 1].kind == PT_NAME &&
          strcmp(p->toks[p->i + 1].text, "timezone") == 0) {
        next(p);
        name = next(p);
      }
      if (strcmp(name->text, "timezone") == 0 && at(p, PT_DOT) && p->toks[p->i + 1].kind == PT_NAME &&
          strcmp(p->toks[p->i + 1].text, "utc") == 0) {
        next(p);
        next(p);
        out->kind = PV_TZ;
        out->col = t->col;
        return true;
      }
      if (strcmp(name->text, "math") == 0 && at(p, PT_DOT)) {
        next(p);
        const pt_token *c = next(p);
        if (c->kind == PT_NAME && (strcmp(c->text, "e") == 0 || strcmp(c->text, "pi") == 0)) {
          out->kind = PV_FLOAT;
          out->f = c->text[0] == 'e' ? 2.718281828459045 : 3.141592653589793;
          return true;
        }
      }
      return qve_pt_fail(p, t->col, "unknown name '%s' (expressions start with pl.)", t->text);
    }
    default: return expected(p, "an expression");
  }
}

/* atom trailers: .method(args), .str.method(args), ... */
static bool parse_primary(pt *p, pv *out) {
  if (!parse_atom(p, out)) return false;
  while (at(p, PT_DOT)) {
    next(p);
    const pt_token *name = peek(p);
    if (!expect(p, PT_NAME, "a method name after '.'")) return false;
    const pt_token *ns = NULL;
    /* Polars' expression namespaces (arr, bin, cat and name have no method
     * quiver knows: theirs become unknown nodes) */
    static const char *const namespaces[] = {"str", "dt", "list", "struct", "meta", "arr", "bin", "cat", "name"};
    bool is_ns = false;
    for (size_t k = 0; k < sizeof namespaces / sizeof namespaces[0]; k++)
      if (strcmp(name->text, namespaces[k]) == 0) is_ns = true;
    if (is_ns && at(p, PT_DOT)) {
      ns = name;
      next(p);
      name = peek(p);
      if (!expect(p, PT_NAME, "a method name")) return false;
    }
    if (!at(p, PT_LPAREN)) return qve_pt_fail(p, peek(p)->col, "expected '(' after .%s", name->text);
    pt_args args = {0};
    args.col = next(p)->col;
    if (!parse_args(p, &args)) {
      qve_pt_args_reset(&args);
      return false;
    }
    pv recv = *out;
    memset(out, 0, sizeof *out);
    bool ok = qve_pt_method(p, &recv, ns, name, &args, out);
    qve_pv_reset(&recv);
    qve_pt_args_reset(&args);
    if (!ok) return false;
  }
  return true;
}

static bool parse_power(pt *p, pv *out) {
  if (!parse_primary(p, out)) return false;
  if (!at(p, PT_POW)) return true;
  int32_t col = next(p)->col;
  pv r = {0};
  if (!enter(p) || !parse_unary(p, &r)) {
    qve_pv_reset(&r);
    return false;
  }
  p->nesting--;
  pv l = *out;
  memset(out, 0, sizeof *out);
  return combine(p, &l, &r, QV_OP_POW, col, out);
}

static bool parse_unary(pt *p, pv *out) {
  const pt_token *t = peek(p);
  if (t->kind != PT_MINUS && t->kind != PT_PLUS && t->kind != PT_TILDE) return parse_power(p, out);
  next(p);
  if (!enter(p)) return false;
  bool ok = parse_unary(p, out);
  p->nesting--;
  if (!ok) return false;
  /* Python folds signs on its own numbers before Polars sees them. */
  if ((out->kind == PV_INT || out->kind == PV_FLOAT) && t->kind != PT_TILDE) {
    if (t->kind == PT_MINUS && out->kind == PV_FLOAT) out->f = -out->f;
    if (t->kind == PT_MINUS && out->kind == PV_INT) {
      bool neg = out->s[0] == '-';
      char *ns = qv_malloc((size_t)out->n + 2);
      if (!ns) return qve_pt_nomem(p);
      if (neg) memcpy(ns, out->s + 1, (size_t)out->n); /* drop the '-' (NUL included) */
      else {
        ns[0] = '-';
        memcpy(ns + 1, out->s, (size_t)out->n + 1);
      }
      out->n += neg ? -1 : 1;
      qv_free(out->s);
      out->s = ns;
      if (strcmp(ns, "-0") == 0) {
        ns[0] = '0';
        ns[1] = 0;
        out->n = 1;
      }
    }
    out->col = t->col;
    return true;
  }
  if (t->kind == PT_PLUS) return qve_pt_fail(p, t->col, "unary '+' on an expression is not supported");
  if (!is_exprish(out))
    return qve_pt_fail(p, t->col, "'%c' on a Python value is not supported", t->kind == PT_TILDE ? '~' : '-');
  qv_expr *a;
  int32_t d;
  if (!qve_pt_to_expr(p, out, true, &a, &d)) return false;
  return qve_pt_set_expr(p, out, qve_pl_call1(t->kind == PT_TILDE ? QV_OP_NOT : QV_OP_NEG, a), d + 1, t->col);
}

typedef struct level {
  pt_kind tok[4];
  qv_op op[4];
} level;

/* Left-associative binary levels, loosest first (below comparisons). */
static const level levels[] = {
    {{PT_PIPE}, {QV_OP_OR}},
    {{PT_CARET}, {QV_OP_XOR}},
    {{PT_AMP}, {QV_OP_AND}},
    {{PT_PLUS, PT_MINUS}, {QV_OP_ADD, QV_OP_SUB}},
    {{PT_STAR, PT_SLASH, PT_DSLASH, PT_PERCENT}, {QV_OP_MUL, QV_OP_DIV, QV_OP_FLOORDIV, QV_OP_MOD}},
};

static bool parse_level(pt *p, int lv, pv *out) {
  if (lv == (int)(sizeof levels / sizeof levels[0])) return parse_unary(p, out);
  if (!parse_level(p, lv + 1, out)) return false;
  for (;;) {
    const pt_token *t = peek(p);
    int k = 0;
    while (k < 4 && levels[lv].tok[k] != PT_EOF && levels[lv].tok[k] != t->kind) k++;
    if (k == 4 || levels[lv].tok[k] == PT_EOF) return true;
    next(p);
    pv r = {0};
    if (!parse_level(p, lv + 1, &r)) {
      qve_pv_reset(&r);
      return false;
    }
    pv l = *out;
    memset(out, 0, sizeof *out);
    if (!combine(p, &l, &r, levels[lv].op[k], t->col, out)) return false;
  }
}

/* comparison: or_expr (cmp or_expr)?  Python would chain a < b < c
 * through bool(), which a Polars expression refuses. */
/* Python's reading of `x > 1 & y < 5` is the chain x > (1 & y) < 5; when
 * the middle operand (tokens [from, to)) has a top-level & | ^, the error
 * says that this binds tighter and spells the comparisons bracketed:
 * (x > 1) & (y < 5), from the source (the chain's end is parsed for it). */
static bool chain_error(pt *p, int32_t start, int32_t from, int32_t to) {
  const pt_token *t = peek(p);
  int32_t depth = 0, bit = -1;
  for (int32_t i = from; i < to && bit < 0; i++) {
    pt_kind k = p->toks[i].kind;
    if (k == PT_LPAREN || k == PT_LBRACKET) depth++;
    else if (k == PT_RPAREN || k == PT_RBRACKET) depth--;
    else if (depth == 0 && (k == PT_AMP || k == PT_PIPE || k == PT_CARET)) bit = i;
  }
  if (bit < 0) return qve_pt_fail(p, t->col, "chained comparisons are not supported; use & between them");
  const pt_token *b = &p->toks[bit], *c = &p->toks[from - 1]; /* the first comparison */
  next(p);
  pv rest = {0};
  bool whole = parse_level(p, 0, &rest);
  qve_pv_reset(&rest);
  if (!whole) return false;
  const pt_token *first = &p->toks[start], *last = &p->toks[p->i - 1];
  int32_t l_len = b[-1].start + b[-1].len - first->start;
  int32_t r_len = last->start + last->len - b[1].start;
  char op = b->kind == PT_AMP ? '&' : b->kind == PT_PIPE ? '|' : '^';
  if (l_len + r_len > 300)
    return qve_pt_fail(p, b->col, "`%c` binds tighter than `%.*s` in Python: put each comparison in parentheses", op,
                       (int)c->len, p->text + c->start);
  return qve_pt_fail(p, b->col, "`%c` binds tighter than `%.*s` in Python: write (%.*s) %c (%.*s)", op, (int)c->len,
                     p->text + c->start, (int)l_len, p->text + first->start, op, (int)r_len, p->text + b[1].start);
}

static bool parse_or(pt *p, pv *out) {
  if (!enter(p)) return false;
  int32_t start = p->i;
  bool ok = parse_level(p, 0, out);
  static const pt_kind cmp_tok[] = {PT_EQ, PT_NE, PT_LT, PT_LE, PT_GT, PT_GE};
  static const qv_op cmp_op[] = {QV_OP_EQ, QV_OP_NE, QV_OP_LT, QV_OP_LE, QV_OP_GT, QV_OP_GE};
  for (int k = 0; ok && k < 6; k++) {
    if (!at(p, cmp_tok[k])) continue;
    const pt_token *t = next(p);
    int32_t from = p->i;
    pv r = {0};
    if (!parse_level(p, 0, &r)) {
      qve_pv_reset(&r);
      ok = false;
      break;
    }
    pv l = *out;
    memset(out, 0, sizeof *out);
    ok = combine(p, &l, &r, cmp_op[k], t->col, out);
    for (int j = 0; ok && j < 6; j++)
      if (at(p, cmp_tok[j])) ok = chain_error(p, start, from, p->i);
    break;
  }
  p->nesting--;
  return ok;
}

/* Brackets are paired before parsing, as Python's tokenizer pairs them: a
 * '(' left open is reported where it opens (`pl.col("id" > 3` would
 * otherwise fail at the '>' as an operator between two Python values), and
 * a bracket closed by the wrong kind where it closes.  A closer with
 * nothing open is left to the parser ("expected an operator ..."). */
static bool check_brackets(pt *p) {
  int32_t *open = qv_malloc((size_t)p->n * sizeof *open);
  if (!open) return qve_pt_nomem(p);
  int32_t depth = 0;
  bool ok = true;
  for (int32_t i = 0; i < p->n && ok; i++) {
    pt_kind k = p->toks[i].kind;
    if (k == PT_LPAREN || k == PT_LBRACKET) {
      open[depth++] = i;
    } else if ((k == PT_RPAREN || k == PT_RBRACKET) && depth > 0) {
      const pt_token *o = &p->toks[open[--depth]];
      if ((o->kind == PT_LPAREN) != (k == PT_RPAREN)) {
        qve_diag_set(&p->d, QV_ERR_PARSE, "expression: '%c' at column %d does not close the '%c' at column %d",
                     k == PT_RPAREN ? ')' : ']', (int)p->toks[i].col, o->kind == PT_LPAREN ? '(' : '[', (int)o->col);
        ok = false;
      }
    }
  }
  if (ok && depth > 0) {
    const pt_token *o = &p->toks[open[depth - 1]];
    qve_diag_set(&p->d, QV_ERR_PARSE, "expression: the '%c' at column %d is not closed (expected '%c')",
                 o->kind == PT_LPAREN ? '(' : '[', (int)o->col, o->kind == PT_LPAREN ? ')' : ']');
    ok = false;
  }
  qv_free(open);
  return ok;
}

qv_status qv_polars_parse(const char *text, qv_expr **out, qv_error *err) {
  *out = NULL;
  if (!text) return qv_error_set(err, QV_ERR_INVALID, "expression: no text");
  pt p;
  memset(&p, 0, sizeof p);
  p.text = text;
  p.d = (qve_diag)QV_DIAG_INIT(err, "expression", "column");
  QV_RETURN_NOT_OK(qve_pt_lex(text, &p.toks, &p.n, err));
  pv v = {0};
  qv_expr *e = NULL;
  int32_t depth;
  if (at(&p, PT_EOF)) expected(&p, "an expression");
  else if (check_brackets(&p) && parse_or(&p, &v)) {
    if (!at(&p, PT_EOF)) expected(&p, "an operator or end of input");
    else if (!is_exprish(&v) && v.kind != PV_DTYPE)
      qve_pt_fail(&p, v.col, "expected an expression, found a Python value (write pl.lit(...))");
    else qve_pt_to_expr(&p, &v, true, &e, &depth);
  }
  qve_pv_reset(&v);
  qve_pt_free_tokens(p.toks, p.n);
  if (qve_diag_failed(&p.d)) {
    qv_expr_destroy(e);
    return p.d.st;
  }
  if (!e) return qv_error_nomem(err, "expression");
  *out = e;
  return QV_OK;
}
