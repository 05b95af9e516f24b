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
#include <stdio.h>
#include <string.h>

#include "base/text.h"
#include "expr/expr_int.h"
#include "expr/op_info.h"

static void quoted(qvb_text *b, const uint8_t *s, int64_t n, char q) {
  qvb_text_add(b, &q, 1);
  int64_t start = 0;
  for (int64_t i = 0; i < n; i++) {
    if (s[i] == (uint8_t)q) {
      qvb_text_add(b, (const char *)s + start, (size_t)(i + 1 - start)); /* the quote, then its double */
      start = i;
    }
  }
  qvb_text_add(b, (const char *)s + start, (size_t)(n - start));
  qvb_text_add(b, &q, 1);
}

static bool plain_word(const char *name) {
  const unsigned char *p = (const unsigned char *)name;
  if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_')) return false;
  for (; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) return false;
  return true;
}

/* A column name is quoted when it is not a plain word or is a keyword; a
 * field name after '.' only when it is not a plain word (any word may
 * follow a dot, in sqlparser as here). */
static void ident(qvb_text *b, const char *name, bool after_dot) {
  if (!name) name = "";
  if (after_dot ? plain_word(name) : !qve_sql_ident_needs_quotes(name)) qvb_text_s(b, name);
  else quoted(b, (const uint8_t *)name, (int64_t)strlen(name), '`');
}

static void type_name(qvb_text *b, const qv_datatype *t) {
  char buf[128];
  const char *s = qve_sql_type_name(t, buf, sizeof buf);
  if (s) {
    qvb_text_s(b, s);
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
  qvb_text_add(b, tmp, (size_t)n);
  qv_free(tmp);
}

static void scalar(qvb_text *b, const qv_scalar *v, int depth);

static void float_literal(qvb_text *b, double f, bool single) {
  if (isnan(f)) {
    qvb_text_s(b, single ? "CAST('NaN' AS float)" : "CAST('NaN' AS double)");
    return;
  }
  if (isinf(f)) {
    /* Past the float64 range a literal reads as infinity (Lance too). */
    qvb_text_s(b, f < 0 ? "-1e999" : "1e999");
    return;
  }
  char buf[64];
  qve_expr_format_double(f, single, buf, sizeof buf);
  qvb_text_s(b, buf);
}

static void timestamp_literal(qvb_text *b, const qv_scalar *v) {
  char buf[96];
  qve_expr_format_timestamp(v->v.i, v->type.unit, buf, sizeof buf);
  static const char *const kw[] = {"timestamp(0)", "timestamp(3)", "timestamp", "timestamp(9)"};
  /* A zoned value is an instant: shown in UTC, marked Z, then cast. */
  if (v->type.timezone) {
    qvb_text_s(b, "CAST(");
    strcat(buf, "Z");
  }
  qvb_text_f(b, "%s ", kw[v->type.unit & 3]);
  quoted(b, (const uint8_t *)buf, (int64_t)strlen(buf), '\'');
  if (v->type.timezone) {
    qvb_text_s(b, " AS ");
    type_name(b, &v->type);
    qvb_text_s(b, ")");
  }
}

static void list_scalar(qvb_text *b, const qv_scalar *v, int depth) {
  qvb_text_s(b, "[");
  for (int64_t i = 0; v->list && i < v->list->length; i++) {
    qv_scalar item = QV_SCALAR_INIT;
    if (i) qvb_text_s(b, ", ");
    if (qv_scalar_from_array(v->list, i, &item, NULL) != QV_OK) {
      qvb_text_s(b, "?");
      continue;
    }
    scalar(b, &item, depth + 1);
    qv_scalar_reset(&item);
  }
  qvb_text_s(b, "]");
}

static void scalar(qvb_text *b, const qv_scalar *v, int depth) {
  if (v->is_null) {
    qvb_text_s(b, "NULL");
    return;
  }
  char buf[96];
  switch (v->type.id) {
    case QV_TYPE_BOOL: qvb_text_s(b, v->v.b ? "TRUE" : "FALSE"); break;
    case QV_TYPE_INT8:
    case QV_TYPE_INT16:
    case QV_TYPE_INT32:
    case QV_TYPE_INT64: qvb_text_f(b, "%lld", (long long)v->v.i); break;
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32:
    case QV_TYPE_UINT64: qvb_text_f(b, "%llu", (unsigned long long)v->v.u); break;
    case QV_TYPE_FLOAT32: float_literal(b, v->v.f, true); break;
    case QV_TYPE_FLOAT64: float_literal(b, v->v.f, false); break;
    case QV_TYPE_DECIMAL128:
      qvb_text_f(b, "decimal(%d,%d) ", (int)v->type.precision, (int)v->type.scale);
      qve_expr_format_decimal(qve_dec_value(v), v->type.scale, buf, sizeof buf);
      quoted(b, (const uint8_t *)buf, (int64_t)strlen(buf), '\'');
      break;
    case QV_TYPE_STRING: quoted(b, v->bytes ? v->bytes : (const uint8_t *)"", v->len, '\''); break;
    case QV_TYPE_BINARY:
      qvb_text_s(b, "X'");
      for (int64_t i = 0; i < v->len; i++) qvb_text_f(b, "%02x", v->bytes[i]);
      qvb_text_s(b, "'");
      break;
    case QV_TYPE_DATE32:
      qve_expr_format_date(v->v.i, buf, sizeof buf);
      qvb_text_s(b, "date ");
      quoted(b, (const uint8_t *)buf, (int64_t)strlen(buf), '\'');
      break;
    case QV_TYPE_TIMESTAMP: timestamp_literal(b, v); break;
    case QV_TYPE_LIST:
    case QV_TYPE_FIXED_SIZE_LIST:
      if (depth < 64) list_scalar(b, v, depth);
      else qvb_text_s(b, "[...]");
      break;
    default:
      /* time64, duration: no Lance literal; readable, not re-parseable. */
      qvb_text_f(b, "CAST(%lld AS ", (long long)v->v.i);
      type_name(b, &v->type);
      qvb_text_s(b, ")");
      break;
  }
}

static void expr(qvb_text *b, const qv_expr *e);

static void args_list(qvb_text *b, const qv_expr *e, int32_t from) {
  for (int32_t i = from; i < e->n_args; i++) {
    if (i > from) qvb_text_s(b, ", ");
    expr(b, e->args[i]);
  }
}

static void infix(qvb_text *b, const qv_expr *e, const char *op) {
  qvb_text_s(b, "(");
  expr(b, e->args[0]);
  qvb_text_f(b, " %s ", op);
  expr(b, e->args[1]);
  qvb_text_s(b, ")");
}

static void postfix_base(qvb_text *b, const qv_expr *base) {
  /* A literal or list literal must be parenthesised before .name. */
  bool wrap = base->kind == QV_EXPR_LITERAL || (base->kind == QV_EXPR_CALL && base->op == QV_OP_LIST);
  if (wrap) qvb_text_s(b, "(");
  expr(b, base);
  if (wrap) qvb_text_s(b, ")");
}

static void str_lit(qvb_text *b, const char *s) {
  if (!s) s = "";
  quoted(b, (const uint8_t *)s, (int64_t)strlen(s), '\'');
}

/* ---- operators: the PRINT column of expr/ops.def ------------------------
 *
 * P_INFIX, P_POSTFIX and P_CALL rows print generically; a P_CUSTOM(x) row
 * has print_x below.  A custom printer returns false to fall back to the
 * function-call form, as every form does for an argument count it does not
 * fit.  Operators and options from the Polars front ends print in a
 * Polars-flavoured spelling (they have no Lance SQL one), options always,
 * so that two trees that differ in one print differently. */

static bool print_not(qvb_text *b, const qv_expr *e) {
  if (e->n_args != 1) return false;
  qvb_text_s(b, "(NOT ");
  expr(b, e->args[0]);
  qvb_text_s(b, ")");
  return true;
}

static bool print_neg(qvb_text *b, const qv_expr *e) {
  if (e->n_args != 1) return false;
  /* -(5) stays a negation; -5 would read back as a literal. */
  bool lit = e->args[0]->kind == QV_EXPR_LITERAL;
  qvb_text_s(b, lit ? "(-(" : "(-");
  expr(b, e->args[0]);
  qvb_text_s(b, lit ? "))" : ")");
  return true;
}

static bool print_in(qvb_text *b, const qv_expr *e) {
  if (e->n_args < 1) return false;
  qvb_text_s(b, "(");
  expr(b, e->args[0]);
  qvb_text_s(b, " IN (");
  args_list(b, e, 1);
  qvb_text_s(b, e->sem.in_nulls_equal ? ") NULLS EQUAL)" : "))");
  return true;
}

static bool print_between(qvb_text *b, const qv_expr *e) {
  if (e->n_args != 3) return false;
  qvb_text_s(b, "(");
  expr(b, e->args[0]);
  qvb_text_s(b, " BETWEEN ");
  expr(b, e->args[1]);
  qvb_text_s(b, " AND ");
  expr(b, e->args[2]);
  qvb_text_s(b, ")");
  return true;
}

static bool print_like(qvb_text *b, const qv_expr *e) {
  int32_t n = e->n_args;
  if (n != 2 && n != 3) return false;
  qvb_text_s(b, "(");
  expr(b, e->args[0]);
  qvb_text_s(b, e->sem.case_insensitive ? " ILIKE " : " LIKE ");
  expr(b, e->args[1]);
  if (n == 3) {
    qvb_text_s(b, " ESCAPE ");
    expr(b, e->args[2]);
  }
  qvb_text_s(b, ")");
  return true;
}

static bool print_cast(qvb_text *b, const qv_expr *e) {
  if (e->n_args != 1) return false;
  qvb_text_s(b, e->sem.cast_strict ? "CAST(" : "TRY_CAST(");
  expr(b, e->args[0]);
  qvb_text_s(b, " AS ");
  type_name(b, &e->type);
  qvb_text_s(b, (e->flags & QV_EXPR_F_WRAP) ? " WRAPPING)" : ")");
  return true;
}

static bool print_field(qvb_text *b, const qv_expr *e) {
  if (e->n_args != 1) return false;
  postfix_base(b, e->args[0]);
  qvb_text_s(b, ".");
  ident(b, e->name, true);
  return true;
}

static bool print_list(qvb_text *b, const qv_expr *e) {
  qvb_text_s(b, "[");
  args_list(b, e, 0);
  qvb_text_s(b, "]");
  return true;
}

static bool print_array_has(qvb_text *b, const qv_expr *e) {
  if (!e->sem.in_nulls_equal) return false;
  qvb_text_s(b, "array_has(");
  args_list(b, e, 0);
  qvb_text_s(b, ", nulls_equal=true)");
  return true;
}

static bool print_regexp_match(qvb_text *b, const qv_expr *e) {
  if (!(e->flags & QV_EXPR_F_LENIENT)) return false;
  qvb_text_s(b, "regexp_match(");
  args_list(b, e, 0);
  qvb_text_s(b, ", strict=false)");
  return true;
}

static bool print_round(qvb_text *b, const qv_expr *e) {
  qvb_text_s(b, "round(");
  args_list(b, e, 0);
  qvb_text_f(b, ", %lld, ", (long long)e->param);
  str_lit(b, e->name);
  qvb_text_s(b, ")");
  return true;
}

static bool print_fill_null(qvb_text *b, const qv_expr *e) {
  if (e->n_args != 1) return false;
  qvb_text_s(b, "fill_null(");
  expr(b, e->args[0]);
  qvb_text_s(b, ", strategy=");
  str_lit(b, e->name);
  if (e->param >= 0) qvb_text_f(b, ", limit=%lld", (long long)e->param);
  qvb_text_s(b, ")");
  return true;
}

static bool print_concat_str(qvb_text *b, const qv_expr *e) {
  if ((e->flags & QV_EXPR_F_SQL_FORM) && e->n_args == 2) { /* Lance's a || b, which reads back */
    infix(b, e, "||");
    return true;
  }
  qvb_text_s(b, "concat_str(");
  args_list(b, e, 0);
  qvb_text_s(b, e->n_args ? ", separator=" : "separator=");
  str_lit(b, e->name);
  qvb_text_s(b, (e->flags & QV_EXPR_F_IGNORE_NULLS) ? ", ignore_nulls=true)" : ", ignore_nulls=false)");
  return true;
}

/* nanvl(x, y) from a Lance filter, kept as when(isnan(x), y, x) */
static bool print_when(qvb_text *b, const qv_expr *e) {
  if (!(e->flags & QV_EXPR_F_SQL_FORM) || e->n_args != 3) return false;
  qvb_text_s(b, "nanvl(");
  expr(b, e->args[2]);
  qvb_text_s(b, ", ");
  expr(b, e->args[1]);
  qvb_text_s(b, ")");
  return true;
}

static bool print_replace(qvb_text *b, const qv_expr *e) {
  qvb_text_s(b, "str.replace(");
  args_list(b, e, 0);
  qvb_text_f(b, ", n=%lld, literal=%s)", (long long)e->param, (e->flags & QV_EXPR_F_LITERAL) ? "true" : "false");
  return true;
}

static bool print_contains_any(qvb_text *b, const qv_expr *e) {
  qvb_text_s(b, "str.contains_any(");
  args_list(b, e, 0);
  qvb_text_s(b, (e->flags & QV_EXPR_F_ASCII_CI) ? ", ascii_case_insensitive=true)" : ", ascii_case_insensitive=false)");
  return true;
}

static bool print_dt_part(qvb_text *b, const qv_expr *e) {
  qvb_text_s(b, "dt.");
  qvb_text_s(b, e->name ? e->name : "?");
  qvb_text_s(b, "(");
  args_list(b, e, 0);
  qvb_text_s(b, ")");
  return true;
}

static bool print_dt_epoch(qvb_text *b, const qv_expr *e) {
  qvb_text_s(b, "dt.epoch(");
  args_list(b, e, 0);
  qvb_text_s(b, ", ");
  str_lit(b, e->name);
  qvb_text_s(b, ")");
  return true;
}

static bool print_list_get(qvb_text *b, const qv_expr *e) {
  qvb_text_s(b, "list.get(");
  args_list(b, e, 0);
  qvb_text_s(b, (e->flags & QV_EXPR_F_NULL_ON_OOB) ? ", null_on_oob=true)" : ", null_on_oob=false)");
  return true;
}

static bool print_unknown(qvb_text *b, const qv_expr *e) {
  qvb_text_s(b, "unknown<");
  qvb_text_s(b, e->name ? e->name : "?");
  qvb_text_s(b, ">(");
  args_list(b, e, 0);
  qvb_text_s(b, ")");
  return true;
}

typedef bool (*print_fn)(qvb_text *b, const qv_expr *e);

#define P_INFIX(s) NULL
#define P_POSTFIX NULL
#define P_CALL NULL
#define P_CALL_AS(f) NULL
#define P_CUSTOM(f) print_##f
#define QV_OP_ROW(id, name, lo, hi, cls, mirror, sql, print, ...) print,
static const print_fn custom[QV_OP__COUNT] = {
#include "expr/ops.def"
};
#undef QV_OP_ROW

static void call(qvb_text *b, const qv_expr *e) {
  int32_t n = e->n_args;
  const qve_op_info *info = qve_op_info_of(e->op);
  if (info) {
    switch ((qve_op_print)info->print) {
      case QV_PRINT_INFIX:
        if (n == 2) {
          infix(b, e, info->infix);
          return;
        }
        break;
      case QV_PRINT_POSTFIX:
        if (n == 1) {
          qvb_text_s(b, "(");
          expr(b, e->args[0]);
          qvb_text_f(b, " %s)", info->name);
          return;
        }
        break;
      case QV_PRINT_CUSTOM:
        if (custom[e->op](b, e)) return;
        break;
      case QV_PRINT_CALL: break;
    }
  }
  /* Functions, and any operator with an unexpected argument count.
   * Operators the Lance language also has print in its spelling, which
   * reads back. */
  qvb_text_s(b, info && info->call ? info->call : qv_op_name(e->op));
  qvb_text_s(b, "(");
  args_list(b, e, 0);
  qvb_text_s(b, ")");
}

static void expr(qvb_text *b, const qv_expr *e) {
  if (b->oom) return;
  if (!e) {
    qvb_text_s(b, "?");
    return;
  }
  switch (e->kind) {
    case QV_EXPR_COLUMN: ident(b, e->name, false); break;
    case QV_EXPR_LITERAL: scalar(b, &e->value, 0); break;
    case QV_EXPR_CALL: call(b, e); break;
  }
}

char *qv_expr_to_string(const qv_expr *e) {
  qvb_text b = {NULL, 0, 0, false};
  expr(&b, e);
  qvb_text_add(&b, "", 0);
  if (b.oom) {
    qv_free(b.p);
    return NULL;
  }
  return b.p;
}
