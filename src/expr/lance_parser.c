/* Parser for the Lance SQL filter language (what LanceDataset.scanner(
 * filter=...) accepts), producing an unbound qv_expr tree.
 *
 * Lance hands "SELECT 1 FROM t WHERE <filter>" to sqlparser-rs and plans the
 * WHERE expression itself (lance-datafusion planner.rs).  This parser is a
 * precedence climber with sqlparser's binding powers:
 *
 *     OR 5 < AND 10 < NOT (prefix) 15 < IS 17 < LIKE/ILIKE 19
 *        < comparisons, IN, BETWEEN 20 < + - 30 < * / % 40 = unary - +
 *        < . [] (field access)
 *
 * so NOT a = b is NOT (a = b), a = b IS NULL is (a = b) IS NULL, -a * b is
 * (-a) * b, and operators of one level associate to the left.  Where Lance
 * and this parser differ, it is on purpose and noted at the spot:
 * integer literals beyond int64 (Lance: float64; here uint64 or an error),
 * unary plus (Lance refuses it; here it is the identity), typed literals
 * (Lance: CAST of a string, evaluated per batch; here date, timestamp and
 * decimal literals are evaluated once, so a bad one is a parse error with
 * its column), and the extra type names varchar/text/real/double
 * precision/bytea/... in CAST (printed back as the names Lance knows).
 * Not supported although Lance has them: || (no IR operator) and list
 * element access l[0]. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "expr/diag.h"
#include "expr/expr_int.h"

typedef struct lp {
  const char *text;
  lance_token *t;
  int32_t n, i;
  int nesting;
  qve_diag d; /* "filter: ... at column N" */
} lp;

static const lance_token *peek(const lp *p) { return &p->t[p->i]; }
static const lance_token *peek2(const lp *p) { return &p->t[p->i + 1 < p->n ? p->i + 1 : p->n - 1]; }
static const lance_token *next(lp *p) {
  const lance_token *t = &p->t[p->i];
  if (t->kind != LT_EOF) p->i++;
  return t;
}

static bool word_is(const lp *p, const lance_token *t, const char *kw) {
  return t->kind == LT_IDENT && strlen(kw) == (size_t)t->len &&
         strncasecmp(p->text + t->start, kw, (size_t)t->len) == 0;
}
static bool at_word(const lp *p, const char *kw) { return word_is(p, peek(p), kw); }

static qv_expr *fail(lp *p, qv_status code, int32_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static qv_expr *fail(lp *p, qv_status code, int32_t col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  qve_diag_vfail(&p->d, code, col, fmt, ap);
  va_end(ap);
  return NULL;
}

static qv_expr *expected(lp *p, const char *what) {
  char d[64];
  const lance_token *t = peek(p);
  if (qve_diag_failed(&p->d)) return NULL;
  qve_diag_set(&p->d, QV_ERR_PARSE, "filter: expected %s at column %d, found %s", what, t->col,
               qve_lance_describe(p->text, t, d, sizeof d));
  return NULL;
}

static qv_expr *nomem(lp *p) {
  qve_diag_nomem(&p->d);
  return NULL;
}

static bool expect(lp *p, lance_tok_kind k, const char *what) {
  if (peek(p)->kind == k) {
    next(p);
    return true;
  }
  expected(p, what);
  return false;
}

/* ---- nodes ---------------------------------------------------------------- */

static qv_expr *at(lp *p, qv_expr *e, int32_t pos) {
  if (!e) return nomem(p);
  e->pos = pos;
  return e;
}

static qv_expr *call(lp *p, qv_op op, qv_expr **args, int32_t n, int32_t pos) {
  return at(p, qv_expr_call(op, args, n), pos);
}
static qv_expr *unary(lp *p, qv_op op, qv_expr *a, int32_t pos) { return call(p, op, &a, 1, pos); }
static qv_expr *binary(lp *p, qv_op op, qv_expr *a, qv_expr *b, int32_t pos) {
  qv_expr *args[2] = {a, b};
  return call(p, op, args, 2, pos);
}
static qv_expr *literal(lp *p, qv_scalar *s, int32_t pos) { return at(p, qv_expr_literal(s), pos); }

static qv_expr *string_literal(lp *p, const lance_token *t) {
  qv_scalar s = QV_SCALAR_INIT;
  int64_t len;
  char *body = qve_lance_unquote(p->text, t, &len);
  if (!body) return nomem(p);
  s.type = qv_datatype_simple(QV_TYPE_STRING);
  s.bytes = (uint8_t *)body;
  s.len = len;
  s.is_null = false;
  return literal(p, &s, t->col);
}

/* Growable argument vector; frees what it holds on failure. */
typedef struct argv {
  qv_expr **v;
  int32_t n, cap;
} argv;

static bool argv_push(lp *p, argv *a, qv_expr *e) {
  if (!e) return false;
  if (a->n == a->cap) {
    int32_t cap = a->cap ? a->cap * 2 : 4;
    qv_expr **v = qv_realloc(a->v, (size_t)cap * sizeof *v);
    if (!v) {
      qv_expr_destroy(e);
      nomem(p);
      return false;
    }
    a->v = v;
    a->cap = cap;
  }
  a->v[a->n++] = e;
  return true;
}

static void argv_free(argv *a) {
  for (int32_t i = 0; i < a->n; i++) qv_expr_destroy(a->v[i]);
  qv_free(a->v);
  a->v = NULL;
  a->n = 0;
}

/* Moves the arguments into a call node. */
static qv_expr *argv_call(lp *p, qv_op op, argv *a, int32_t pos) {
  qv_expr *e = call(p, op, a->v, a->n, pos);
  qv_free(a->v);
  a->v = NULL;
  a->n = 0;
  return e;
}

static int max_depth(int a, int b) { return a > b ? a : b; }

static qv_expr *parse_expr(lp *p, int prec, int *depth);

/* ---- literals --------------------------------------------------------------- */

static qv_expr *number_literal(lp *p, const lance_token *t, bool negative, int32_t pos) {
  const char *s = p->text + t->start;
  qv_scalar v = QV_SCALAR_INIT;
  if (memchr(s, '.', (size_t)t->len) || memchr(s, 'e', (size_t)t->len) || memchr(s, 'E', (size_t)t->len)) {
    double d;
    if (!qve_expr_parse_double(s, (size_t)t->len, &d)) return fail(p, QV_ERR_PARSE, t->col, "malformed number");
    v = qv_scalar_double(negative ? -d : d); /* beyond the float64 range it is +-inf, as in Lance */
    return literal(p, &v, pos);
  }
  uint64_t u = 0;
  bool over = false;
  for (int32_t k = 0; k < t->len; k++) {
    uint64_t dgt = (uint64_t)(s[k] - '0');
    if (u > (UINT64_MAX - dgt) / 10) over = true;
    u = u * 10 + dgt;
  }
  /* Lance reads an integer that does not fit int64 as float64, losing
   * digits; here it is uint64 when it fits and an error otherwise. */
  if (over || (negative && u > (uint64_t)INT64_MAX + 1))
    return fail(p, QV_ERR_PARSE, pos, "integer literal %s%.*s is out of range", negative ? "-" : "",
                t->len > 60 ? 60 : (int)t->len, s);
  if (negative) v = qv_scalar_int(QV_TYPE_INT64, u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u);
  else if (u <= (uint64_t)INT64_MAX) v = qv_scalar_int(QV_TYPE_INT64, (int64_t)u);
  else {
    v = qv_scalar_int(QV_TYPE_UINT64, 0);
    v.v.u = u;
  }
  return literal(p, &v, pos);
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

static qv_expr *binary_literal(lp *p, const lance_token *t) {
  /* X'0aff' or 0x0aff */
  const char *h = p->text + t->start + 2;
  int32_t nh = p->text[t->start] == '0' ? t->len - 2 : t->len - 3;
  qv_scalar s = QV_SCALAR_INIT;
  s.type = qv_datatype_simple(QV_TYPE_BINARY);
  s.bytes = qv_malloc((size_t)(nh + 1) / 2 + 1);
  if (!s.bytes) return nomem(p);
  /* An odd digit count makes the first digit a byte by itself (Lance). */
  int32_t k = 0, o = 0;
  if (nh % 2) s.bytes[o++] = (uint8_t)hex_value(h[k++]);
  for (; k < nh; k += 2) s.bytes[o++] = (uint8_t)(hex_value(h[k]) << 4 | hex_value(h[k + 1]));
  s.bytes[o] = 0;
  s.len = o;
  s.is_null = false;
  return literal(p, &s, t->col);
}

/* ---- types ------------------------------------------------------------------ */

static bool parse_int_arg(lp *p, int32_t *out) {
  const lance_token *t = peek(p);
  if (t->kind != LT_NUMBER) return false;
  int64_t v = 0;
  for (int32_t k = 0; k < t->len; k++) {
    char c = p->text[t->start + k];
    if (c < '0' || c > '9' || v > 1000000) return false;
    v = v * 10 + (c - '0');
  }
  next(p);
  *out = (int32_t)v;
  return true;
}

/* Optional "(n)" after a type word (a display width or length that Lance
 * ignores); *has tells whether it was there. */
static bool opt_width(lp *p, int32_t *n, bool *has) {
  *has = false;
  if (peek(p)->kind != LT_LPAREN) return true;
  next(p);
  if (!parse_int_arg(p, n) || peek(p)->kind != LT_RPAREN) return false;
  next(p);
  *has = true;
  return true;
}

/* Reads a SQL type name.  quiet: on failure report nothing (the caller
 * backtracks; "date" may be a column).  Returns false on failure. */
static bool parse_type(lp *p, qv_datatype *out, bool quiet) {
  const lance_token *t = peek(p);
  int32_t col = t->col, w = 0, start = p->i;
  bool has = false;
  *out = qv_datatype_simple(QV_TYPE_NULL);
  if (t->kind != LT_IDENT) goto bad;
  next(p);
  if (word_is(p, t, "boolean") || word_is(p, t, "bool")) {
    *out = qv_datatype_simple(QV_TYPE_BOOL);
  } else if (word_is(p, t, "tinyint") || word_is(p, t, "smallint") || word_is(p, t, "int") ||
             word_is(p, t, "integer") || word_is(p, t, "bigint")) {
    int k = word_is(p, t, "tinyint") ? 0 : word_is(p, t, "smallint") ? 1 : word_is(p, t, "bigint") ? 3 : 2;
    if (!opt_width(p, &w, &has)) goto bad;
    bool uns = at_word(p, "unsigned");
    if (uns) next(p);
    static const qv_type_id ids[2][4] = {{QV_TYPE_INT8, QV_TYPE_INT16, QV_TYPE_INT32, QV_TYPE_INT64},
                                         {QV_TYPE_UINT8, QV_TYPE_UINT16, QV_TYPE_UINT32, QV_TYPE_UINT64}};
    *out = qv_datatype_simple(ids[uns][k]);
  } else if (word_is(p, t, "float") || word_is(p, t, "real")) {
    if (!opt_width(p, &w, &has)) goto bad;
    *out = qv_datatype_simple(QV_TYPE_FLOAT32); /* Lance: FLOAT(n) is float32 whatever n */
  } else if (word_is(p, t, "double")) {
    if (at_word(p, "precision")) next(p);
    *out = qv_datatype_simple(QV_TYPE_FLOAT64);
  } else if (word_is(p, t, "decimal") || word_is(p, t, "numeric") || word_is(p, t, "dec")) {
    int32_t prec = 0, scale = 0;
    if (peek(p)->kind != LT_LPAREN) {
      if (quiet) goto bad;
      expected(p, "'(' with the decimal's precision and scale");
      return false;
    }
    next(p);
    if (!parse_int_arg(p, &prec)) goto bad;
    if (peek(p)->kind == LT_COMMA) {
      next(p);
      if (!parse_int_arg(p, &scale)) goto bad;
    }
    if (peek(p)->kind != LT_RPAREN) goto bad;
    next(p);
    if (prec < 1 || prec > 38 || scale > prec) {
      /* Reported even when quiet: decimal(p,s) cannot be anything else. */
      fail(p, QV_ERR_PARSE, col, "decimal(%d,%d) is not a valid decimal type (precision 1..38, scale 0..precision)",
           (int)prec, (int)scale);
      return false;
    }
    (void)qv_datatype_decimal(prec, scale, out, NULL);
  } else if (word_is(p, t, "string") || word_is(p, t, "text") || word_is(p, t, "varchar") || word_is(p, t, "char")) {
    if (!opt_width(p, &w, &has)) goto bad;
    *out = qv_datatype_simple(QV_TYPE_STRING);
  } else if (word_is(p, t, "binary") || word_is(p, t, "varbinary") || word_is(p, t, "bytea") || word_is(p, t, "blob")) {
    if (!opt_width(p, &w, &has)) goto bad;
    *out = qv_datatype_simple(QV_TYPE_BINARY);
  } else if (word_is(p, t, "date")) {
    *out = qv_datatype_simple(QV_TYPE_DATE32);
  } else if (word_is(p, t, "timestamp") || word_is(p, t, "datetime")) {
    int32_t digits = 6;
    if (!opt_width(p, &digits, &has)) goto bad;
    if (digits != 0 && digits != 3 && digits != 6 && digits != 9) {
      if (!quiet || peek(p)->kind == LT_STRING || peek(p)->kind == LT_DSTRING)
        fail(p, QV_ERR_PARSE, col, "timestamp precision %d is not supported (0, 3, 6 or 9)", (int)digits);
      return false;
    }
    if (at_word(p, "with") || at_word(p, "without")) {
      bool with = at_word(p, "with");
      next(p);
      if (!at_word(p, "time") || !word_is(p, peek2(p), "zone")) goto bad;
      next(p);
      next(p);
      if (with) {
        if (!quiet) fail(p, QV_ERR_UNSUPPORTED, col, "timestamp with time zone is not supported in a filter");
        return false;
      }
    }
    out->id = QV_TYPE_TIMESTAMP;
    out->unit = digits == 0 ? QV_UNIT_SECOND : digits == 3 ? QV_UNIT_MILLI : digits == 6 ? QV_UNIT_MICRO : QV_UNIT_NANO;
  } else {
    goto bad;
  }
  return true;
bad:
  if (!quiet) {
    p->i = start; /* point at the type, not at whatever broke it */
    expected(p,
             "a type name (boolean, int, bigint unsigned, double, decimal(p,s), string, binary, date, "
             "timestamp(n), ...)");
  }
  return false;
}

/* date '2024-01-02', timestamp(3) '...', decimal(10,2) '1.25': evaluated
 * here; other types become CAST('text' AS type), which is what Lance
 * plans for every typed string. */
static qv_expr *typed_literal(lp *p, qv_datatype *ty, int32_t pos) {
  const lance_token *t = next(p);
  const char *s = p->text + t->start + 1;
  size_t n = (size_t)t->len - 2;
  char shown[80];
  qve_expr_clip(s, n, shown, sizeof shown);
  qv_scalar v = QV_SCALAR_INIT;
  if (ty->id == QV_TYPE_DATE32) {
    int64_t days;
    if (memchr(s, t->kind == LT_STRING ? '\'' : '"', n) || !qv_parse_date(s, n, &days))
      return fail(p, QV_ERR_PARSE, t->col, "invalid date literal '%s' (expected YYYY-MM-DD)", shown);
    v = qv_scalar_int(QV_TYPE_DATE32, days);
  } else if (ty->id == QV_TYPE_TIMESTAMP) {
    int64_t x;
    bool inexact, overflow;
    if (memchr(s, t->kind == LT_STRING ? '\'' : '"', n) ||
        !qve_expr_parse_timestamp(s, n, ty->unit, &x, &inexact, &overflow))
      return fail(p, QV_ERR_PARSE, t->col, "invalid timestamp literal '%s' (expected YYYY-MM-DD HH:MM:SS[.f])", shown);
    if (overflow) return fail(p, QV_ERR_PARSE, t->col, "timestamp literal '%s' is out of range", shown);
    v = qv_scalar_int(QV_TYPE_TIMESTAMP, x);
    v.type.unit = ty->unit;
  } else if (ty->id == QV_TYPE_DECIMAL128) {
    qve_i128 x;
    if (memchr(s, t->kind == LT_STRING ? '\'' : '"', n) || !qve_expr_parse_decimal(s, n, ty->precision, ty->scale, &x))
      return fail(p, QV_ERR_PARSE, t->col, "invalid decimal(%d,%d) literal '%s'", (int)ty->precision, (int)ty->scale,
                  shown);
    v.type = *ty;
    v.is_null = false;
    qve_dec_store(&v, x);
  } else {
    qv_expr *str = string_literal(p, t);
    if (!str) return NULL;
    qv_expr *c = unary(p, QV_OP_CAST, str, pos);
    if (c) c->type = *ty; /* simple types own nothing */
    return c;
  }
  return literal(p, &v, pos);
}

/* ---- primaries ---------------------------------------------------------- */

static char *ident_name(lp *p, const lance_token *t) {
  if (t->kind == LT_QIDENT) {
    int64_t len;
    char *s = qve_lance_unquote(p->text, t, &len);
    if (!s) nomem(p);
    return s;
  }
  char *s = qv_strndup(p->text + t->start, (size_t)t->len);
  if (!s) nomem(p);
  return s;
}

/* .name, .`name`, ['name'], ["name"] after a column, a call or (...). */
static qv_expr *postfix(lp *p, qv_expr *e, int *depth) {
  while (e && (peek(p)->kind == LT_DOT || peek(p)->kind == LT_LBRACKET)) {
    bool dot = next(p)->kind == LT_DOT;
    const lance_token *t = peek(p);
    char *name = NULL;
    if (dot) {
      if (t->kind != LT_IDENT && t->kind != LT_QIDENT) {
        qv_expr_destroy(e);
        return expected(p, "a field name after '.'");
      }
      name = ident_name(p, t);
      next(p);
    } else {
      if (t->kind == LT_NUMBER) {
        qv_expr_destroy(e);
        return fail(p, QV_ERR_UNSUPPORTED, t->col, "list element access [n] is not supported");
      }
      if (t->kind != LT_STRING && t->kind != LT_DSTRING) {
        qv_expr_destroy(e);
        return expected(p, "a quoted field name in [...]");
      }
      int64_t len;
      name = qve_lance_unquote(p->text, t, &len);
      if (!name) nomem(p);
      next(p);
      if (name && !expect(p, LT_RBRACKET, "']'")) {
        qv_free(name);
        qv_expr_destroy(e);
        return NULL;
      }
    }
    if (!name) {
      qv_expr_destroy(e);
      return NULL;
    }
    qv_expr *f = unary(p, QV_OP_FIELD, e, t->col);
    if (!f) {
      qv_free(name);
      return NULL;
    }
    f->name = name;
    e = f;
    if (++*depth > QV_EXPR_MAX_DEPTH) {
      qv_expr_destroy(e);
      return fail(p, QV_ERR_PARSE, t->col, "expression nested too deeply (limit %d)", QV_EXPR_MAX_DEPTH);
    }
  }
  return e;
}

static qv_expr *column_ref(lp *p, int *depth) {
  const lance_token *t = next(p);
  char *name = ident_name(p, t);
  if (!name) return NULL;
  qv_expr *e = at(p, qv_expr_column(name), t->col);
  qv_free(name);
  *depth = 1;
  return postfix(p, e, depth);
}

/* Comma-separated expressions up to the closing token (already past the
 * opening one).  Each element's depth raises *depth. */
static bool expr_list(lp *p, argv *a, lance_tok_kind close, const char *what, int *depth) {
  if (peek(p)->kind == close) {
    next(p);
    return true;
  }
  for (;;) {
    int d = 0;
    if (!argv_push(p, a, parse_expr(p, 0, &d))) return false;
    *depth = max_depth(*depth, d);
    if (peek(p)->kind == LT_COMMA) {
      next(p);
      continue;
    }
    return expect(p, close, what);
  }
}

/* nanvl(x, y): y where x is NaN, else x (null where x is null), in the
 * supertype of the two (DataFusion: Float64 unless both are Float32; an
 * integer is taken as a float).  Read as when(isnan(x), y, x), which the
 * evaluator already runs; checked against pylance 14.0.2 with NaN of both
 * signs, nulls on either side, -0.0, infinities and integer inputs. */
static qv_expr *nanvl_call(lp *p, argv *a, const lance_token *name, int d, int *depth) {
  if (a->n != 2) {
    int32_t n = a->n;
    argv_free(a);
    return fail(p, QV_ERR_PARSE, name->col, "nanvl takes 2 arguments, got %d", (int)n);
  }
  qv_expr *x = a->v[0], *y = a->v[1];
  a->n = 0;
  argv_free(a);
  qv_expr *x2 = qv_expr_clone(x);
  qv_expr *test = x2 ? unary(p, QV_OP_ISNAN, x2, name->col) : NULL;
  if (!test) {
    qv_expr_destroy(x);
    qv_expr_destroy(y);
    return x2 ? NULL : nomem(p);
  }
  qv_expr *args[3] = {test, y, x};
  *depth = d + 2;
  qv_expr *e = call(p, QV_OP_WHEN, args, 3, name->col);
  if (e) e->flags |= QV_EXPR_F_SQL_FORM;
  return postfix(p, e, depth);
}

static qv_expr *function_call(lp *p, int *depth) {
  const lance_token *name = next(p);
  next(p); /* ( */
  argv a = {0};
  int d = 0;
  if (!expr_list(p, &a, LT_RPAREN, "',' or ')'", &d)) {
    argv_free(&a);
    return NULL;
  }
  if (name->len == 5 && strncasecmp(p->text + name->start, "nanvl", 5) == 0) return nanvl_call(p, &a, name, d, depth);
  const lance_function *f = qve_lance_function(p->text + name->start, (size_t)name->len);
  if (!f) {
    argv_free(&a);
    char shown[80];
    return fail(p, QV_ERR_PARSE, name->col, "unknown function `%s`",
                qve_expr_clip(p->text + name->start, (size_t)name->len, shown, sizeof shown));
  }
  if (a.n < f->min_args || (f->max_args >= 0 && a.n > f->max_args)) {
    int32_t n = a.n;
    argv_free(&a);
    if (f->min_args == f->max_args)
      return fail(p, QV_ERR_PARSE, name->col, "%s takes %d argument%s, got %d", f->name, f->min_args,
                  f->min_args == 1 ? "" : "s", (int)n);
    if (f->max_args < 0)
      return fail(p, QV_ERR_PARSE, name->col, "%s takes at least %d argument%s, got %d", f->name, f->min_args,
                  f->min_args == 1 ? "" : "s", (int)n);
    return fail(p, QV_ERR_PARSE, name->col, "%s takes %d to %d arguments, got %d", f->name, f->min_args, f->max_args,
                (int)n);
  }
  if (f->op == QV_OP_DATE_PART || f->op == QV_OP_DATE_TRUNC) {
    qv_expr *part = a.v[0];
    const char *canon = NULL;
    if (part->kind == QV_EXPR_LITERAL && part->value.type.id == QV_TYPE_STRING && !part->value.is_null)
      canon = qve_lance_date_part((const char *)part->value.bytes, (size_t)part->value.len, f->op == QV_OP_DATE_TRUNC);
    if (!canon) {
      int32_t col = part->pos;
      argv_free(&a);
      return fail(p, QV_ERR_PARSE, col, "%s expects a quoted part name first ('year', 'month', 'day', 'hour', ...)",
                  f->name);
    }
    /* One spelling for the evaluator and for printing. */
    memcpy(part->value.bytes, canon, strlen(canon));
  }
  *depth = d + 1;
  return postfix(p, argv_call(p, f->op, &a, name->col), depth);
}

static qv_expr *cast_expr(lp *p, int *depth) {
  const lance_token *kw = next(p);
  bool try_cast = word_is(p, kw, "try_cast");
  next(p); /* ( */
  int d = 0;
  qv_expr *x = parse_expr(p, 0, &d);
  if (!x) return NULL;
  qv_datatype ty;
  if (!at_word(p, "as")) {
    qv_expr_destroy(x);
    return expected(p, "AS");
  }
  next(p);
  if (!parse_type(p, &ty, false) || !expect(p, LT_RPAREN, "')'")) {
    qv_datatype_reset(&ty);
    qv_expr_destroy(x);
    return NULL;
  }
  qv_expr *c = unary(p, QV_OP_CAST, x, kw->col);
  if (!c) {
    qv_datatype_reset(&ty);
    return NULL;
  }
  c->type = ty;
  c->sem.cast_strict = !try_cast;
  *depth = d + 1;
  return postfix(p, c, depth);
}

static qv_expr *list_literal(lp *p, int *depth) {
  const lance_token *open = next(p);
  argv a = {0};
  int d = 0;
  if (!expr_list(p, &a, LT_RBRACKET, "',' or ']'", &d)) {
    argv_free(&a);
    return NULL;
  }
  /* Lance builds a list scalar, so only literals may appear. */
  for (int32_t k = 0; k < a.n; k++) {
    if (a.v[k]->kind != QV_EXPR_LITERAL) {
      int32_t col = a.v[k]->pos;
      argv_free(&a);
      return fail(p, QV_ERR_PARSE, col, "list elements must be literals");
    }
  }
  *depth = 2;
  return argv_call(p, QV_OP_LIST, &a, open->col);
}

static bool is_type_word(const lp *p, const lance_token *t) {
  static const char *const words[] = {"boolean",   "bool",   "tinyint", "smallint", "int",       "integer",
                                      "bigint",    "float",  "real",    "double",   "decimal",   "numeric",
                                      "dec",       "string", "text",    "varchar",  "char",      "binary",
                                      "varbinary", "bytea",  "blob",    "date",     "timestamp", "datetime"};
  for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
    if (word_is(p, t, words[k])) return true;
  return false;
}

static qv_expr *parse_word(lp *p, int *depth) {
  const lance_token *t = peek(p);
  int32_t col = t->col;
  *depth = 1;
  if (word_is(p, t, "not")) {
    next(p);
    int d = 0;
    qv_expr *x = parse_expr(p, 15, &d);
    *depth = d + 1;
    return x ? unary(p, QV_OP_NOT, x, col) : NULL;
  }
  if (word_is(p, t, "true") || word_is(p, t, "false")) {
    next(p);
    qv_scalar v = qv_scalar_bool(word_is(p, t, "true"));
    return literal(p, &v, col);
  }
  if (word_is(p, t, "null")) {
    next(p);
    qv_scalar v = QV_SCALAR_INIT;
    return literal(p, &v, col);
  }
  if ((word_is(p, t, "cast") || word_is(p, t, "try_cast")) && peek2(p)->kind == LT_LPAREN) return cast_expr(p, depth);
  static const char *const infix[] = {"and", "or", "in", "is", "between", "like", "ilike", "escape", "as"};
  for (size_t k = 0; k < sizeof infix / sizeof infix[0]; k++)
    if (word_is(p, t, infix[k])) return expected(p, "an expression");
  if (is_type_word(p, t)) {
    int32_t save = p->i;
    qv_datatype ty;
    if (parse_type(p, &ty, true) && (peek(p)->kind == LT_STRING || peek(p)->kind == LT_DSTRING))
      return typed_literal(p, &ty, col);
    qv_datatype_reset(&ty);
    if (qve_diag_failed(&p->d)) return NULL;
    p->i = save; /* not a typed literal: a column or a call named like a type */
  }
  if (peek2(p)->kind == LT_LPAREN) return function_call(p, depth);
  return column_ref(p, depth);
}

static qv_expr *parse_prefix(lp *p, int *depth) {
  const lance_token *t = peek(p);
  int32_t col = t->col;
  *depth = 1;
  switch (t->kind) {
    case LT_NUMBER: next(p); return number_literal(p, t, false, col);
    case LT_STRING:
    case LT_DSTRING: next(p); return string_literal(p, t);
    case LT_HEX: next(p); return binary_literal(p, t);
    case LT_LBRACKET: return list_literal(p, depth);
    case LT_LPAREN: {
      next(p);
      qv_expr *e = parse_expr(p, 0, depth);
      if (!e) return NULL;
      if (!expect(p, LT_RPAREN, "')'")) {
        qv_expr_destroy(e);
        return NULL;
      }
      return postfix(p, e, depth);
    }
    case LT_MINUS:
    case LT_PLUS: {
      next(p);
      /* Lance folds - on a number token into a negative literal (so
       * -9223372036854775808 is int64); -(1) stays a negation. */
      if (peek(p)->kind == LT_NUMBER) return number_literal(p, next(p), t->kind == LT_MINUS, col);
      int d = 0;
      qv_expr *x = parse_expr(p, 40, &d);
      if (!x || t->kind == LT_PLUS) {
        *depth = d;
        return x;
      }
      *depth = d + 1;
      return unary(p, QV_OP_NEG, x, col);
    }
    case LT_IDENT: return parse_word(p, depth);
    case LT_QIDENT: return column_ref(p, depth);
    default: return expected(p, "an expression");
  }
}

/* ---- operators -------------------------------------------------------------- */

static int next_prec(const lp *p) {
  const lance_token *t = peek(p);
  switch (t->kind) {
    case LT_EQ:
    case LT_NE:
    case LT_LT:
    case LT_LE:
    case LT_GT:
    case LT_GE: return 20;
    case LT_PLUS:
    case LT_MINUS:
    case LT_CONCAT: return 30;
    case LT_STAR:
    case LT_SLASH:
    case LT_PERCENT: return 40;
    case LT_IDENT:
      if (word_is(p, t, "or")) return 5;
      if (word_is(p, t, "and")) return 10;
      if (word_is(p, t, "is")) return 17;
      if (word_is(p, t, "like") || word_is(p, t, "ilike")) return 19;
      if (word_is(p, t, "in") || word_is(p, t, "between")) return 20;
      if (word_is(p, t, "not")) {
        const lance_token *u = peek2(p);
        if (word_is(p, u, "in") || word_is(p, u, "between")) return 20;
        if (word_is(p, u, "like") || word_is(p, u, "ilike")) return 19;
      }
      return 0;
    default: return 0;
  }
}

static qv_expr *negate(lp *p, qv_expr *e, bool neg, int32_t col, int *depth) {
  if (!e || !neg) return e;
  ++*depth;
  return unary(p, QV_OP_NOT, e, col);
}

static qv_expr *parse_is(lp *p, qv_expr *left, int32_t col, int *depth) {
  bool neg = false;
  if (at_word(p, "not")) {
    next(p);
    neg = true;
  }
  qv_op op;
  if (at_word(p, "distinct")) { /* a IS [NOT] DISTINCT FROM b: null-safe (in)equality */
    next(p);
    if (!at_word(p, "from")) {
      qv_expr_destroy(left);
      return expected(p, "FROM after IS DISTINCT");
    }
    next(p);
    int d = 0;
    qv_expr *right = parse_expr(p, 17, &d);
    if (!right) {
      qv_expr_destroy(left);
      return NULL;
    }
    *depth = max_depth(*depth, d) + 1;
    return binary(p, neg ? QV_OP_EQ_MISSING : QV_OP_NE_MISSING, left, right, col);
  }
  if (at_word(p, "null")) op = neg ? QV_OP_IS_NOT_NULL : QV_OP_IS_NULL;
  else if (at_word(p, "true")) op = neg ? QV_OP_IS_NOT_TRUE : QV_OP_IS_TRUE;
  else if (at_word(p, "false")) op = neg ? QV_OP_IS_NOT_FALSE : QV_OP_IS_FALSE;
  else {
    qv_expr_destroy(left);
    return expected(p, neg ? "NULL, TRUE, FALSE or DISTINCT FROM after IS NOT"
                           : "NULL, TRUE, FALSE, DISTINCT FROM or NOT after IS");
  }
  next(p);
  ++*depth;
  return unary(p, op, left, col);
}

static qv_expr *parse_in(lp *p, qv_expr *left, int32_t col, int *depth) {
  if (!expect(p, LT_LPAREN, "'(' after IN")) {
    qv_expr_destroy(left);
    return NULL;
  }
  /* sqlparser (as Lance uses it) refuses an empty list: so do we. */
  if (peek(p)->kind == LT_RPAREN) {
    qv_expr_destroy(left);
    return expected(p, "an expression in the IN list");
  }
  argv a = {0};
  argv_push(p, &a, left);
  if (qve_diag_failed(&p->d) || !expr_list(p, &a, LT_RPAREN, "',' or ')'", depth)) {
    argv_free(&a);
    return NULL;
  }
  ++*depth;
  return argv_call(p, QV_OP_IN, &a, col);
}

static qv_expr *parse_between(lp *p, qv_expr *left, int32_t col, int *depth) {
  int d1 = 0, d2 = 0;
  qv_expr *lo = parse_expr(p, 20, &d1);
  if (!lo || !at_word(p, "and")) {
    if (lo) expected(p, "AND in BETWEEN");
    qv_expr_destroy(lo);
    qv_expr_destroy(left);
    return NULL;
  }
  next(p);
  qv_expr *hi = parse_expr(p, 20, &d2);
  if (!hi) {
    qv_expr_destroy(lo);
    qv_expr_destroy(left);
    return NULL;
  }
  *depth = max_depth(*depth, max_depth(d1, d2)) + 1;
  qv_expr *args[3] = {left, lo, hi};
  return call(p, QV_OP_BETWEEN, args, 3, col);
}

static qv_expr *parse_like(lp *p, qv_expr *left, bool ilike, int32_t col, int *depth) {
  int d = 0;
  qv_expr *pat = parse_expr(p, 19, &d);
  if (!pat) {
    qv_expr_destroy(left);
    return NULL;
  }
  qv_expr *esc = NULL;
  if (at_word(p, "escape")) {
    next(p);
    const lance_token *t = peek(p);
    if (t->kind != LT_STRING && t->kind != LT_DSTRING) {
      qv_expr_destroy(left);
      qv_expr_destroy(pat);
      return expected(p, "a quoted escape character after ESCAPE");
    }
    next(p);
    esc = string_literal(p, t);
    /* One character (code point), as DataFusion's Like takes a char. */
    int64_t chars = 0;
    for (int64_t k = 0; esc && k < esc->value.len; k++) chars += (esc->value.bytes[k] & 0xC0) != 0x80;
    if (esc && chars != 1) {
      qv_expr_destroy(esc);
      esc = NULL;
      fail(p, QV_ERR_PARSE, t->col, "ESCAPE takes exactly one character");
    }
    if (!esc) {
      qv_expr_destroy(left);
      qv_expr_destroy(pat);
      return NULL;
    }
  }
  *depth = max_depth(*depth, d) + 1;
  qv_expr *args[3] = {left, pat, esc};
  qv_expr *e = call(p, QV_OP_LIKE, args, esc ? 3 : 2, col);
  if (e) e->sem.case_insensitive = ilike;
  return e;
}

static qv_expr *parse_infix(lp *p, qv_expr *left, int prec, int *depth) {
  const lance_token *t = next(p);
  int32_t col = t->col;
  qv_op op = QV_OP_NONE;
  switch (t->kind) {
    case LT_EQ: op = QV_OP_EQ; break;
    case LT_NE: op = QV_OP_NE; break;
    case LT_LT: op = QV_OP_LT; break;
    case LT_LE: op = QV_OP_LE; break;
    case LT_GT: op = QV_OP_GT; break;
    case LT_GE: op = QV_OP_GE; break;
    case LT_PLUS: op = QV_OP_ADD; break;
    case LT_MINUS: op = QV_OP_SUB; break;
    case LT_STAR: op = QV_OP_MUL; break;
    case LT_SLASH: op = QV_OP_DIV; break;
    case LT_PERCENT: op = QV_OP_MOD; break;
    case LT_CONCAT: {
      /* DataFusion's string concatenation: concat_str without a separator,
       * null if either side is; the binder checks the operand types. */
      int d = 0;
      qv_expr *right = parse_expr(p, prec, &d);
      if (!right) {
        qv_expr_destroy(left);
        return NULL;
      }
      *depth = max_depth(*depth, d) + 1;
      qv_expr *e = binary(p, QV_OP_CONCAT_STR, left, right, col);
      if (e && !(e->name = qv_strdup(""))) {
        qv_expr_destroy(e);
        return nomem(p);
      }
      if (e) e->flags |= QV_EXPR_F_SQL_FORM;
      return e;
    }
    default:
      if (word_is(p, t, "and")) op = QV_OP_AND;
      else if (word_is(p, t, "or")) op = QV_OP_OR;
      break;
  }
  if (op != QV_OP_NONE) {
    int d = 0;
    qv_expr *right = parse_expr(p, prec, &d);
    if (!right) {
      qv_expr_destroy(left);
      return NULL;
    }
    *depth = max_depth(*depth, d) + 1;
    return binary(p, op, left, right, col);
  }
  if (word_is(p, t, "is")) return parse_is(p, left, col, depth);
  bool neg = word_is(p, t, "not");
  const lance_token *w = neg ? next(p) : t;
  if (word_is(p, w, "in")) return negate(p, parse_in(p, left, w->col, depth), neg, col, depth);
  if (word_is(p, w, "between")) return negate(p, parse_between(p, left, w->col, depth), neg, col, depth);
  return negate(p, parse_like(p, left, word_is(p, w, "ilike"), w->col, depth), neg, col, depth);
}

static qv_expr *parse_expr(lp *p, int prec, int *depth) {
  if (++p->nesting > QV_EXPR_MAX_NESTING) {
    p->nesting--;
    return fail(p, QV_ERR_PARSE, peek(p)->col, "expression nested too deeply (limit %d)", QV_EXPR_MAX_NESTING);
  }
  int32_t col = peek(p)->col;
  qv_expr *left = parse_prefix(p, depth);
  for (;;) {
    if (left && *depth > QV_EXPR_MAX_DEPTH) {
      qv_expr_destroy(left);
      left = fail(p, QV_ERR_PARSE, col, "expression nested too deeply (limit %d)", QV_EXPR_MAX_DEPTH);
    }
    int np = left ? next_prec(p) : 0;
    if (prec >= np) break;
    col = peek(p)->col;
    left = parse_infix(p, left, np, depth);
  }
  p->nesting--;
  return left;
}

qv_status qv_lance_filter_parse(const char *text, qv_expr **out, qv_error *err) {
  if (!out) return qv_error_set(err, QV_ERR_INVALID, "filter: no output given");
  *out = NULL;
  if (!text) return qv_error_set(err, QV_ERR_INVALID, "filter: no text given");
  lp p = {text, NULL, 0, 0, 0, QV_DIAG_INIT(err, "filter", "column")};
  p.d.msg_max = 768;
  QV_RETURN_NOT_OK(qve_lance_lex(text, &p.t, &p.n, err));
  int depth = 0;
  qv_expr *e = parse_expr(&p, 0, &depth);
  if (e && peek(&p)->kind != LT_EOF) {
    qv_expr_destroy(e);
    e = expected(&p, "an operator or end of input");
  }
  qv_free(p.t);
  if (!e) return qve_diag_failed(&p.d) ? p.d.st : qv_error_set(err, QV_ERR_PARSE, "filter: invalid");
  *out = e;
  return QV_OK;
}
