/* qv_expr_to_string: the canonical text of a tree in the Lance SQL
 * spelling.  Every operator node is parenthesised, so the text never
 * depends on precedence; identifiers are backtick-quoted only when they
 * must be; literals are spelled so that the Lance filter parser reads them
 * back as the same value and type (floats in their shortest round-trip
 * form, always with '.' or an exponent).  For trees from
 * qv_lance_filter_parse, parse(print(t)) prints identically.  Bound trees
 * print their implicit casts; types without a Lance spelling (time zones,
 * lists) print in quiver's own type syntax and do not read back. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "expr/expr_int.h"

typedef struct sb {
  char *s;
  size_t n, cap;
  bool oom;
} sb;

static void put(sb *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = qv_realloc(b->s, cap);
    if (!p) {
      b->oom = true;
      return;
    }
    b->s = p;
    b->cap = cap;
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = '\0';
}

static void puts_(sb *b, const char *s) { put(b, s, strlen(s)); }

static void putf(sb *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void putf(sb *b, const char *fmt, ...) {
  char tmp[256];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (k > 0) put(b, tmp, (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1);
}

static void quoted(sb *b, const uint8_t *s, int64_t n, char q) {
  put(b, &q, 1);
  int64_t start = 0;
  for (int64_t i = 0; i < n; i++) {
    if (s[i] == (uint8_t)q) {
      put(b, (const char *)s + start, (size_t)(i + 1 - start)); /* the quote, then its double */
      start = i;
    }
  }
  put(b, (const char *)s + start, (size_t)(n - start));
  put(b, &q, 1);
}

static bool plain_word(const char *name) {
  const unsigned char *p = (const unsigned char *)name;
  if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_')) return false;
  for (; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
      return false;
  return true;
}

/* A column name is quoted when it is not a plain word or is a keyword; a
 * field name after '.' only when it is not a plain word (any word may
 * follow a dot, in sqlparser as here). */
static void ident(sb *b, const char *name, bool after_dot) {
  if (!name) name = "";
  if (after_dot ? plain_word(name) : !qv_sql_ident_needs_quotes(name)) puts_(b, name);
  else quoted(b, (const uint8_t *)name, (int64_t)strlen(name), '`');
}

static void type_name(sb *b, const qv_datatype *t) {
  char buf[128];
  const char *s = qv_sql_type_name(t, buf, sizeof buf);
  if (s) {
    puts_(b, s);
    return;
  }
  int n = qv_datatype_format(t, NULL, 0);
  if (n < 0) return;
  char *tmp = qv_malloc((size_t)n + 1);
  if (!tmp) {
    b->oom = true;
    return;
  }
  qv_datatype_format(t, tmp, (size_t)n + 1);
  put(b, tmp, (size_t)n);
  qv_free(tmp);
}

static void scalar(sb *b, const qv_scalar *v, int depth);

static void float_literal(sb *b, double f, bool single) {
  if (isnan(f)) {
    puts_(b, single ? "CAST('NaN' AS float)" : "CAST('NaN' AS double)");
    return;
  }
  if (isinf(f)) {
    /* Past the float64 range a literal reads as infinity (Lance too). */
    puts_(b, f < 0 ? "-1e999" : "1e999");
    return;
  }
  char buf[64];
  qv_expr_format_double(f, single, buf, sizeof buf);
  puts_(b, buf);
}

static void timestamp_literal(sb *b, const qv_scalar *v) {
  char buf[96];
  qv_expr_format_timestamp(v->v.i, v->type.unit, buf, sizeof buf);
  static const char *const kw[] = {"timestamp(0)", "timestamp(3)", "timestamp", "timestamp(9)"};
  /* A zoned value is an instant: shown in UTC, marked Z, then cast. */
  if (v->type.timezone) {
    puts_(b, "CAST(");
    strcat(buf, "Z");
  }
  putf(b, "%s ", kw[v->type.unit & 3]);
  quoted(b, (const uint8_t *)buf, (int64_t)strlen(buf), '\'');
  if (v->type.timezone) {
    puts_(b, " AS ");
    type_name(b, &v->type);
    puts_(b, ")");
  }
}

static void list_scalar(sb *b, const qv_scalar *v, int depth) {
  puts_(b, "[");
  for (int64_t i = 0; v->list && i < v->list->length; i++) {
    qv_scalar item = QV_SCALAR_INIT;
    if (i) puts_(b, ", ");
    if (qv_scalar_from_array(v->list, i, &item, NULL) != QV_OK) {
      puts_(b, "?");
      continue;
    }
    scalar(b, &item, depth + 1);
    qv_scalar_reset(&item);
  }
  puts_(b, "]");
}

static void scalar(sb *b, const qv_scalar *v, int depth) {
  if (v->is_null) {
    puts_(b, "NULL");
    return;
  }
  char buf[96];
  switch (v->type.id) {
    case QV_TYPE_BOOL: puts_(b, v->v.b ? "TRUE" : "FALSE"); break;
    case QV_TYPE_INT8: case QV_TYPE_INT16: case QV_TYPE_INT32: case QV_TYPE_INT64:
      putf(b, "%lld", (long long)v->v.i);
      break;
    case QV_TYPE_UINT8: case QV_TYPE_UINT16: case QV_TYPE_UINT32: case QV_TYPE_UINT64:
      putf(b, "%llu", (unsigned long long)v->v.u);
      break;
    case QV_TYPE_FLOAT32: float_literal(b, v->v.f, true); break;
    case QV_TYPE_FLOAT64: float_literal(b, v->v.f, false); break;
    case QV_TYPE_DECIMAL128:
      putf(b, "decimal(%d,%d) ", (int)v->type.precision, (int)v->type.scale);
      qv_expr_format_decimal(qv_dec_value(v), v->type.scale, buf, sizeof buf);
      quoted(b, (const uint8_t *)buf, (int64_t)strlen(buf), '\'');
      break;
    case QV_TYPE_STRING: quoted(b, v->bytes ? v->bytes : (const uint8_t *)"", v->len, '\''); break;
    case QV_TYPE_BINARY:
      puts_(b, "X'");
      for (int64_t i = 0; i < v->len; i++) putf(b, "%02x", v->bytes[i]);
      puts_(b, "'");
      break;
    case QV_TYPE_DATE32:
      qv_expr_format_date(v->v.i, buf, sizeof buf);
      puts_(b, "date ");
      quoted(b, (const uint8_t *)buf, (int64_t)strlen(buf), '\'');
      break;
    case QV_TYPE_TIMESTAMP: timestamp_literal(b, v); break;
    case QV_TYPE_LIST:
    case QV_TYPE_FIXED_SIZE_LIST:
      if (depth < 64) list_scalar(b, v, depth);
      else puts_(b, "[...]");
      break;
    default:
      /* time64, duration: no Lance literal; readable, not re-parseable. */
      putf(b, "CAST(%lld AS ", (long long)v->v.i);
      type_name(b, &v->type);
      puts_(b, ")");
      break;
  }
}

static void expr(sb *b, const qv_expr *e);

static void args_list(sb *b, const qv_expr *e, int32_t from) {
  for (int32_t i = from; i < e->n_args; i++) {
    if (i > from) puts_(b, ", ");
    expr(b, e->args[i]);
  }
}

static void infix(sb *b, const qv_expr *e, const char *op) {
  puts_(b, "(");
  expr(b, e->args[0]);
  putf(b, " %s ", op);
  expr(b, e->args[1]);
  puts_(b, ")");
}

static void postfix_base(sb *b, const qv_expr *base) {
  /* A literal or list literal must be parenthesised before .name. */
  bool wrap = base->kind == QV_EXPR_LITERAL || (base->kind == QV_EXPR_CALL && base->op == QV_OP_LIST);
  if (wrap) puts_(b, "(");
  expr(b, base);
  if (wrap) puts_(b, ")");
}

static void str_lit(sb *b, const char *s) {
  if (!s) s = "";
  quoted(b, (const uint8_t *)s, (int64_t)strlen(s), '\'');
}

/* Operators and options from the Polars front ends, in a Polars-flavoured
 * spelling (they have no Lance SQL one).  Options are always printed so
 * that two trees that differ in one print differently.  Returns false for
 * nodes the Lance printing below handles. */
static bool polars_call(sb *b, const qv_expr *e) {
  int32_t n = e->n_args;
  switch (e->op) {
    case QV_OP_FLOORDIV: case QV_OP_POW:
      if (n != 2) return false;
      infix(b, e, qv_op_name(e->op));
      return true;
    case QV_OP_IN:
      if (!e->sem.in_nulls_equal || n < 1) return false;
      puts_(b, "(");
      expr(b, e->args[0]);
      puts_(b, " IN (");
      args_list(b, e, 1);
      puts_(b, ") NULLS EQUAL)");
      return true;
    case QV_OP_ARRAY_HAS:
      if (!e->sem.in_nulls_equal) return false;
      puts_(b, "array_has(");
      args_list(b, e, 0);
      puts_(b, ", nulls_equal=true)");
      return true;
    case QV_OP_REGEXP_MATCH:
      if (!(e->flags & QV_EXPR_F_LENIENT)) return false;
      puts_(b, "regexp_match(");
      args_list(b, e, 0);
      puts_(b, ", strict=false)");
      return true;
    case QV_OP_ROUND:
      puts_(b, "round(");
      args_list(b, e, 0);
      putf(b, ", %lld, ", (long long)e->param);
      str_lit(b, e->name);
      puts_(b, ")");
      return true;
    case QV_OP_FILL_NULL:
      if (n != 1) return false;
      puts_(b, "fill_null(");
      expr(b, e->args[0]);
      puts_(b, ", strategy=");
      str_lit(b, e->name);
      if (e->param >= 0) putf(b, ", limit=%lld", (long long)e->param);
      puts_(b, ")");
      return true;
    case QV_OP_CONCAT_STR:
      puts_(b, "concat_str(");
      args_list(b, e, 0);
      puts_(b, n ? ", separator=" : "separator=");
      str_lit(b, e->name);
      puts_(b, (e->flags & QV_EXPR_F_IGNORE_NULLS) ? ", ignore_nulls=true)" : ", ignore_nulls=false)");
      return true;
    case QV_OP_REPLACE:
      puts_(b, "str.replace(");
      args_list(b, e, 0);
      putf(b, ", n=%lld, literal=%s)", (long long)e->param, (e->flags & QV_EXPR_F_LITERAL) ? "true" : "false");
      return true;
    case QV_OP_CONTAINS_ANY:
      puts_(b, "str.contains_any(");
      args_list(b, e, 0);
      puts_(b, (e->flags & QV_EXPR_F_ASCII_CI) ? ", ascii_case_insensitive=true)" : ", ascii_case_insensitive=false)");
      return true;
    case QV_OP_DT_PART:
      puts_(b, "dt.");
      puts_(b, e->name ? e->name : "?");
      puts_(b, "(");
      args_list(b, e, 0);
      puts_(b, ")");
      return true;
    case QV_OP_DT_EPOCH:
      puts_(b, "dt.epoch(");
      args_list(b, e, 0);
      puts_(b, ", ");
      str_lit(b, e->name);
      puts_(b, ")");
      return true;
    case QV_OP_LIST_GET:
      puts_(b, "list.get(");
      args_list(b, e, 0);
      puts_(b, (e->flags & QV_EXPR_F_NULL_ON_OOB) ? ", null_on_oob=true)" : ", null_on_oob=false)");
      return true;
    case QV_OP_UNKNOWN:
      puts_(b, "unknown<");
      puts_(b, e->name ? e->name : "?");
      puts_(b, ">(");
      args_list(b, e, 0);
      puts_(b, ")");
      return true;
    default:
      return false;
  }
}

static void call(sb *b, const qv_expr *e) {
  int32_t n = e->n_args;
  if (e->op >= QV_OP_FLOORDIV || e->sem.in_nulls_equal || e->flags) {
    if (polars_call(b, e)) return;
  }
  switch (e->op) {
    case QV_OP_EQ: case QV_OP_NE: case QV_OP_LT: case QV_OP_LE: case QV_OP_GT: case QV_OP_GE:
    case QV_OP_AND: case QV_OP_OR: case QV_OP_XOR:
    case QV_OP_ADD: case QV_OP_SUB: case QV_OP_MUL: case QV_OP_DIV: case QV_OP_MOD:
      if (n == 2) {
        infix(b, e, qv_op_name(e->op));
        return;
      }
      break;
    case QV_OP_EQ_MISSING: case QV_OP_NE_MISSING:
      if (n == 2) {
        infix(b, e, e->op == QV_OP_EQ_MISSING ? "IS NOT DISTINCT FROM" : "IS DISTINCT FROM");
        return;
      }
      break;
    case QV_OP_NOT:
      if (n == 1) {
        puts_(b, "(NOT ");
        expr(b, e->args[0]);
        puts_(b, ")");
        return;
      }
      break;
    case QV_OP_NEG:
      if (n == 1) {
        /* -(5) stays a negation; -5 would read back as a literal. */
        bool lit = e->args[0]->kind == QV_EXPR_LITERAL;
        puts_(b, lit ? "(-(" : "(-");
        expr(b, e->args[0]);
        puts_(b, lit ? "))" : ")");
        return;
      }
      break;
    case QV_OP_IS_NULL: case QV_OP_IS_NOT_NULL: case QV_OP_IS_TRUE: case QV_OP_IS_NOT_TRUE:
    case QV_OP_IS_FALSE: case QV_OP_IS_NOT_FALSE:
      if (n == 1) {
        puts_(b, "(");
        expr(b, e->args[0]);
        putf(b, " %s)", qv_op_name(e->op));
        return;
      }
      break;
    case QV_OP_IN:
      if (n >= 1) {
        puts_(b, "(");
        expr(b, e->args[0]);
        puts_(b, " IN (");
        args_list(b, e, 1);
        puts_(b, "))");
        return;
      }
      break;
    case QV_OP_BETWEEN:
      if (n == 3) {
        puts_(b, "(");
        expr(b, e->args[0]);
        puts_(b, " BETWEEN ");
        expr(b, e->args[1]);
        puts_(b, " AND ");
        expr(b, e->args[2]);
        puts_(b, ")");
        return;
      }
      break;
    case QV_OP_LIKE:
      if (n == 2 || n == 3) {
        puts_(b, "(");
        expr(b, e->args[0]);
        puts_(b, e->sem.case_insensitive ? " ILIKE " : " LIKE ");
        expr(b, e->args[1]);
        if (n == 3) {
          puts_(b, " ESCAPE ");
          expr(b, e->args[2]);
        }
        puts_(b, ")");
        return;
      }
      break;
    case QV_OP_CAST:
      if (n == 1) {
        puts_(b, e->sem.cast_strict ? "CAST(" : "TRY_CAST(");
        expr(b, e->args[0]);
        puts_(b, " AS ");
        type_name(b, &e->type);
        puts_(b, (e->flags & QV_EXPR_F_WRAP) ? " WRAPPING)" : ")");
        return;
      }
      break;
    case QV_OP_FIELD:
      if (n == 1) {
        postfix_base(b, e->args[0]);
        puts_(b, ".");
        ident(b, e->name, true);
        return;
      }
      break;
    case QV_OP_LIST:
      puts_(b, "[");
      args_list(b, e, 0);
      puts_(b, "]");
      return;
    default:
      break;
  }
  /* Functions, and any operator with an unexpected argument count.
   * Operators the Lance language also has print in its spelling, which
   * reads back. */
  puts_(b, e->op == QV_OP_MIN_HORIZONTAL   ? "least"
           : e->op == QV_OP_MAX_HORIZONTAL ? "greatest"
           : e->op == QV_OP_LEN_BYTES      ? "octet_length"
                                           : qv_op_name(e->op));
  puts_(b, "(");
  args_list(b, e, 0);
  puts_(b, ")");
}

static void expr(sb *b, const qv_expr *e) {
  if (b->oom) return;
  if (!e) {
    puts_(b, "?");
    return;
  }
  switch (e->kind) {
    case QV_EXPR_COLUMN: ident(b, e->name, false); break;
    case QV_EXPR_LITERAL: scalar(b, &e->value, 0); break;
    case QV_EXPR_CALL: call(b, e); break;
  }
}

char *qv_expr_to_string(const qv_expr *e) {
  sb b = {NULL, 0, 0, false};
  expr(&b, e);
  put(&b, "", 0);
  if (b.oom) {
    qv_free(b.s);
    return NULL;
  }
  return b.s;
}
