/* The canonical text of a Cypher tree, for byte-exact goldens and the
 * parse(print(x)) check of the fuzz target.
 *
 * One clause per line at the top level (subqueries inside braces stay on
 * one line); every operator in parentheses, so precedence never depends on
 * the reader; keywords upper case; names bare when they are plain ASCII
 * identifiers that are not reserved, else `quoted`; strings single-quoted
 * with Cypher escapes; floats in the shortest form that reads back as the
 * same double.  Two spellings need care to read back as the same tree: a
 * negative integer literal and a label test are wrapped in parentheses
 * when a postfix operator (.key, [i], :Label) follows them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/text.h"
#include "graph/cypher_int.h"

static void expr(qvb_text *b, const qvg_node *x);

/* " WHERE e", " ELSE e"...: the lead and the expression, when there is one. */
static void opt_expr(qvb_text *b, const char *lead, const qvg_node *x) {
  if (!x) return;
  qvb_text_s(b, lead);
  expr(b, x);
}
static void query(qvb_text *b, const qvg_node *x, const char *sep);

static bool plain_name(const char *s, int32_t n) {
  if (n == 0) return false;
  for (int32_t i = 0; i < n; i++) {
    char c = s[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return !qvg_is_reserved(s, (size_t)n);
}

static void name(qvb_text *b, const char *s, int32_t n) {
  if (plain_name(s, n)) {
    qvb_text_add(b, s, (size_t)n);
    return;
  }
  qvb_text_s(b, "`");
  for (int32_t i = 0; i < n; i++) {
    if (s[i] == '`') qvb_text_s(b, "`");
    qvb_text_add(b, s + i, 1);
  }
  qvb_text_s(b, "`");
}

static void node_name(qvb_text *b, const qvg_node *x) { name(b, x->str, x->len); }

static void string_lit(qvb_text *b, const char *s, int32_t n) {
  qvb_text_s(b, "'");
  for (int32_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
      case '\\': qvb_text_s(b, "\\\\"); break;
      case '\'': qvb_text_s(b, "\\'"); break;
      case '\n': qvb_text_s(b, "\\n"); break;
      case '\r': qvb_text_s(b, "\\r"); break;
      case '\t': qvb_text_s(b, "\\t"); break;
      case '\b': qvb_text_s(b, "\\b"); break;
      case '\f': qvb_text_s(b, "\\f"); break;
      default:
        if (c < 0x20 || c == 0x7F) qvb_text_f(b, "\\u%04X", c);
        else qvb_text_add(b, s + i, 1);
    }
  }
  qvb_text_s(b, "'");
}

static void float_lit(qvb_text *b, double f) {
  char buf[64];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, f);
    if (strtod(buf, NULL) == f) break;
  }
  qvb_text_s(b, buf);
  if (!strpbrk(buf, ".e")) qvb_text_s(b, ".0");
}

static void labels(qvb_text *b, const qvg_node *l, const char *sep) {
  for (int32_t i = 0; l && i < l->n_kids; i++) {
    qvb_text_s(b, i == 0 ? ":" : sep);
    node_name(b, l->kids[i]);
  }
}

static void list(qvb_text *b, const qvg_node *x, int32_t from, const char *sep) {
  for (int32_t i = from; i < x->n_kids; i++) {
    if (i > from) qvb_text_s(b, sep);
    expr(b, x->kids[i]);
  }
}

/* ---- patterns ---- */

static void node_pat(qvb_text *b, const qvg_node *x) {
  qvb_text_s(b, "(");
  if (x->str) node_name(b, x);
  labels(b, x->kids[0], ":");
  if (x->kids[1]) {
    if (x->str || x->kids[0]) qvb_text_s(b, " ");
    expr(b, x->kids[1]);
  }
  qvb_text_s(b, ")");
}

static void rel_pat(qvb_text *b, const qvg_node *x) {
  qvb_text_s(b, x->op == QVG_DIR_LEFT ? "<-" : "-");
  bool detail = x->str || x->kids[0] || x->kids[1] || (x->flags & QVG_F_VARLEN);
  if (detail) {
    qvb_text_s(b, "[");
    if (x->str) node_name(b, x);
    labels(b, x->kids[0], "|");
    if (x->flags & QVG_F_VARLEN) {
      qvb_text_s(b, "*");
      if (x->i0 >= 0 && x->i0 == x->i1) {
        qvb_text_f(b, "%lld", (long long)x->i0);
      } else if (x->i0 >= 0 || x->i1 >= 0) {
        if (x->i0 >= 0) qvb_text_f(b, "%lld", (long long)x->i0);
        qvb_text_s(b, "..");
        if (x->i1 >= 0) qvb_text_f(b, "%lld", (long long)x->i1);
      }
    }
    if (x->kids[1]) {
      if (x->str || x->kids[0] || (x->flags & QVG_F_VARLEN)) qvb_text_s(b, " ");
      expr(b, x->kids[1]);
    }
    qvb_text_s(b, "]");
  }
  qvb_text_s(b, x->op == QVG_DIR_RIGHT ? "->" : "-");
}

static void path(qvb_text *b, const qvg_node *x) {
  if (x->str) {
    node_name(b, x);
    qvb_text_s(b, " = ");
  }
  if (x->op == QVG_PATH_SHORTEST) qvb_text_s(b, "shortestPath(");
  if (x->op == QVG_PATH_ALL_SHORTEST) qvb_text_s(b, "allShortestPaths(");
  for (int32_t i = 0; i < x->n_kids; i++) {
    if (x->kids[i]->kind == QVG_NODE) node_pat(b, x->kids[i]);
    else rel_pat(b, x->kids[i]);
  }
  if (x->op != QVG_PATH_PLAIN) qvb_text_s(b, ")");
}

static void pattern(qvb_text *b, const qvg_node *x) {
  for (int32_t i = 0; i < x->n_kids; i++) {
    if (i) qvb_text_s(b, ", ");
    path(b, x->kids[i]);
  }
}

/* ---- expressions ---- */

static const char *const cmp_text[] = {" = ", " <> ", " < ", " <= ", " > ", " >= "};
static const char *const bin_text[] = {" + ",  " - ",           " * ",         " / ",        " % ", " ^ ",
                                       " IN ", " STARTS WITH ", " ENDS WITH ", " CONTAINS ", " =~ "};
static const char *const quant_text[] = {"all", "any", "none", "single"};

/* The object of a postfix operator. */
static void postfix_base(qvb_text *b, const qvg_node *x) {
  bool wrap = (x->kind == QVG_INT && x->i0 < 0) || x->kind == QVG_LABEL_TEST;
  if (wrap) qvb_text_s(b, "(");
  expr(b, x);
  if (wrap) qvb_text_s(b, ")");
}

static void subquery(qvb_text *b, const qvg_node *x, const char *kw) {
  qvb_text_s(b, kw);
  qvb_text_s(b, " { ");
  if (x->kids[0]->kind == QVG_PATTERN) {
    pattern(b, x->kids[0]);
    opt_expr(b, " WHERE ", x->kids[1]);
  } else {
    query(b, x->kids[0], " ");
  }
  qvb_text_s(b, " }");
}

/* A function's dotted name: a reserved word is a name there too when the
 * parser reads it as one (exists(...)). */
static void call_name(qvb_text *b, const char *s, int32_t n) {
  int32_t start = 0;
  for (int32_t i = 0; i <= n; i++) {
    if (i == n || s[i] == '.') {
      if (start) qvb_text_s(b, ".");
      if (i - start == 6 && strncasecmp(s + start, "exists", 6) == 0) qvb_text_add(b, s + start, 6);
      else name(b, s + start, i - start);
      start = i + 1;
    }
  }
}

static void expr(qvb_text *b, const qvg_node *x) {
  switch (x->kind) {
    case QVG_OR:
    case QVG_XOR:
    case QVG_AND:
      qvb_text_s(b, "(");
      expr(b, x->kids[0]);
      qvb_text_s(b, x->kind == QVG_OR ? " OR " : x->kind == QVG_XOR ? " XOR " : " AND ");
      expr(b, x->kids[1]);
      qvb_text_s(b, ")");
      return;
    case QVG_NOT:
      qvb_text_s(b, "(NOT ");
      expr(b, x->kids[0]);
      qvb_text_s(b, ")");
      return;
    case QVG_COMPARE:
      qvb_text_s(b, "(");
      for (int32_t i = 0; i < x->n_kids; i++) {
        if (i) qvb_text_s(b, cmp_text[x->ops[i - 1]]);
        expr(b, x->kids[i]);
      }
      qvb_text_s(b, ")");
      return;
    case QVG_BINARY:
      qvb_text_s(b, "(");
      expr(b, x->kids[0]);
      qvb_text_s(b, bin_text[x->op]);
      expr(b, x->kids[1]);
      qvb_text_s(b, ")");
      return;
    case QVG_NEG:
    case QVG_POS:
      qvb_text_s(b, x->kind == QVG_NEG ? "(-" : "(+");
      expr(b, x->kids[0]);
      qvb_text_s(b, ")");
      return;
    case QVG_IS_NULL:
      qvb_text_s(b, "(");
      expr(b, x->kids[0]);
      qvb_text_s(b, x->flags & QVG_F_NOT ? " IS NOT NULL)" : " IS NULL)");
      return;
    case QVG_PROP:
      postfix_base(b, x->kids[0]);
      qvb_text_s(b, ".");
      node_name(b, x);
      return;
    case QVG_INDEX:
      postfix_base(b, x->kids[0]);
      qvb_text_s(b, "[");
      expr(b, x->kids[1]);
      qvb_text_s(b, "]");
      return;
    case QVG_SLICE:
      postfix_base(b, x->kids[0]);
      qvb_text_s(b, "[");
      if (x->kids[1]) expr(b, x->kids[1]);
      qvb_text_s(b, "..");
      if (x->kids[2]) expr(b, x->kids[2]);
      qvb_text_s(b, "]");
      return;
    case QVG_LABEL_TEST:
      postfix_base(b, x->kids[0]);
      labels(b, x->kids[1], ":");
      return;
    case QVG_INT: qvb_text_f(b, "%lld", (long long)x->i0); return;
    case QVG_FLOAT: float_lit(b, x->f); return;
    case QVG_STRING: string_lit(b, x->str, x->len); return;
    case QVG_LIT_TRUE: qvb_text_s(b, "true"); return;
    case QVG_LIT_FALSE: qvb_text_s(b, "false"); return;
    case QVG_NULL: qvb_text_s(b, "null"); return;
    case QVG_PARAM: {
      bool plain = x->len > 0;
      for (int32_t i = 0; i < x->len; i++) {
        char c = x->str[i];
        plain &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9');
      }
      qvb_text_s(b, "$");
      if (plain) qvb_text_add(b, x->str, (size_t)x->len);
      else name(b, x->str, x->len);
      return;
    }
    case QVG_VAR: node_name(b, x); return;
    case QVG_LIST:
      qvb_text_s(b, "[");
      list(b, x, 0, ", ");
      qvb_text_s(b, "]");
      return;
    case QVG_MAP:
      qvb_text_s(b, "{");
      for (int32_t i = 0; i < x->n_kids; i++) {
        if (i) qvb_text_s(b, ", ");
        node_name(b, x->kids[i]);
        qvb_text_s(b, ": ");
        expr(b, x->kids[i]->kids[0]);
      }
      qvb_text_s(b, "}");
      return;
    case QVG_MAP_PROJ:
      node_name(b, x->kids[0]);
      qvb_text_s(b, " {");
      for (int32_t i = 1; i < x->n_kids; i++) {
        const qvg_node *s = x->kids[i];
        if (i > 1) qvb_text_s(b, ", ");
        if (s->kind == QVG_PROP_SEL) {
          qvb_text_s(b, ".");
          node_name(b, s);
        } else if (s->kind == QVG_ALL_SEL) {
          qvb_text_s(b, ".*");
        } else if (s->kind == QVG_ENTRY) {
          node_name(b, s);
          qvb_text_s(b, ": ");
          expr(b, s->kids[0]);
        } else {
          node_name(b, s);
        }
      }
      qvb_text_s(b, "}");
      return;
    case QVG_CALL_FN:
      call_name(b, x->str, x->len);
      qvb_text_s(b, x->flags & QVG_F_DISTINCT ? "(DISTINCT " : "(");
      list(b, x, 0, ", ");
      qvb_text_s(b, ")");
      return;
    case QVG_COUNT_STAR: qvb_text_s(b, "count(*)"); return;
    case QVG_CASE:
      qvb_text_s(b, "CASE");
      opt_expr(b, " ", x->kids[0]);
      for (int32_t i = 2; i < x->n_kids; i++) {
        qvb_text_s(b, " WHEN ");
        expr(b, x->kids[i]->kids[0]);
        qvb_text_s(b, " THEN ");
        expr(b, x->kids[i]->kids[1]);
      }
      opt_expr(b, " ELSE ", x->kids[1]);
      qvb_text_s(b, " END");
      return;
    case QVG_LIST_COMP:
      qvb_text_s(b, "[");
      node_name(b, x);
      qvb_text_s(b, " IN ");
      expr(b, x->kids[0]);
      opt_expr(b, " WHERE ", x->kids[1]);
      opt_expr(b, " | ", x->kids[2]);
      qvb_text_s(b, "]");
      return;
    case QVG_QUANT:
      qvb_text_s(b, quant_text[x->op]);
      qvb_text_s(b, "(");
      node_name(b, x);
      qvb_text_s(b, " IN ");
      expr(b, x->kids[0]);
      opt_expr(b, " WHERE ", x->kids[1]);
      qvb_text_s(b, ")");
      return;
    case QVG_REDUCE:
      qvb_text_s(b, "reduce(");
      node_name(b, x);
      qvb_text_s(b, " = ");
      expr(b, x->kids[0]);
      qvb_text_s(b, ", ");
      node_name(b, x->kids[1]);
      qvb_text_s(b, " IN ");
      expr(b, x->kids[2]);
      qvb_text_s(b, " | ");
      expr(b, x->kids[3]);
      qvb_text_s(b, ")");
      return;
    case QVG_PAT_COMP:
      qvb_text_s(b, "[");
      path(b, x->kids[0]);
      opt_expr(b, " WHERE ", x->kids[1]);
      qvb_text_s(b, " | ");
      expr(b, x->kids[2]);
      qvb_text_s(b, "]");
      return;
    case QVG_PAT_PRED: path(b, x->kids[0]); return;
    case QVG_EXISTS: subquery(b, x, "EXISTS"); return;
    case QVG_COUNT_SUB: subquery(b, x, "COUNT"); return;
    default: qvb_text_f(b, "<%s>", qvg_kind_name(x->kind)); return;
  }
}

/* ---- clauses ---- */

static void projection(qvb_text *b, const qvg_node *x, const char *kw) {
  qvb_text_s(b, kw);
  if (x->flags & QVG_F_DISTINCT) qvb_text_s(b, " DISTINCT");
  const qvg_node *items = x->kids[0];
  qvb_text_s(b, " ");
  if (items->flags & QVG_F_STAR) qvb_text_s(b, items->n_kids ? "*, " : "*");
  for (int32_t i = 0; i < items->n_kids; i++) {
    const qvg_node *it = items->kids[i];
    if (i) qvb_text_s(b, ", ");
    expr(b, it->kids[0]);
    if (it->str) {
      qvb_text_s(b, " AS ");
      node_name(b, it);
    }
  }
  if (x->kids[1]) {
    qvb_text_s(b, " ORDER BY ");
    for (int32_t i = 0; i < x->kids[1]->n_kids; i++) {
      const qvg_node *s = x->kids[1]->kids[i];
      if (i) qvb_text_s(b, ", ");
      expr(b, s->kids[0]);
      if (s->flags & QVG_F_DESC) qvb_text_s(b, " DESC");
    }
  }
  opt_expr(b, " SKIP ", x->kids[2]);
  opt_expr(b, " LIMIT ", x->kids[3]);
  if (x->n_kids > 4 && x->kids[4]) {
    qvb_text_s(b, " WHERE ");
    expr(b, x->kids[4]);
  }
}

static void set_items(qvb_text *b, const qvg_node *x) {
  for (int32_t i = 0; i < x->n_kids; i++) {
    const qvg_node *s = x->kids[i];
    if (i) qvb_text_s(b, ", ");
    expr(b, s->kids[0]);
    if (s->kind == QVG_SET_LABELS) {
      labels(b, s->kids[1], ":");
    } else {
      qvb_text_s(b, s->kind == QVG_SET_ALL && (s->flags & QVG_F_MERGE) ? " += " : " = ");
      expr(b, s->kids[1]);
    }
  }
}

static void clause(qvb_text *b, const qvg_node *x) {
  switch (x->kind) {
    case QVG_MATCH:
      qvb_text_s(b, x->flags & QVG_F_OPTIONAL ? "OPTIONAL MATCH " : "MATCH ");
      pattern(b, x->kids[0]);
      opt_expr(b, " WHERE ", x->kids[1]);
      return;
    case QVG_UNWIND:
      qvb_text_s(b, "UNWIND ");
      expr(b, x->kids[0]);
      qvb_text_s(b, " AS ");
      node_name(b, x);
      return;
    case QVG_WITH: projection(b, x, "WITH"); return;
    case QVG_RETURN: projection(b, x, "RETURN"); return;
    case QVG_CREATE:
      qvb_text_s(b, "CREATE ");
      pattern(b, x->kids[0]);
      return;
    case QVG_MERGE:
      qvb_text_s(b, "MERGE ");
      path(b, x->kids[0]);
      for (int32_t i = 1; i < x->n_kids; i++) {
        qvb_text_s(b, x->kids[i]->flags & QVG_F_ON_CREATE ? " ON CREATE SET " : " ON MATCH SET ");
        set_items(b, x->kids[i]);
      }
      return;
    case QVG_SET:
      qvb_text_s(b, "SET ");
      set_items(b, x);
      return;
    case QVG_DELETE:
      qvb_text_s(b, x->flags & QVG_F_DETACH ? "DETACH DELETE " : "DELETE ");
      list(b, x, 0, ", ");
      return;
    case QVG_REMOVE:
      qvb_text_s(b, "REMOVE ");
      list(b, x, 0, ", ");
      return;
    case QVG_CALL_SUB:
      qvb_text_s(b, "CALL { ");
      query(b, x->kids[0], " ");
      qvb_text_s(b, " }");
      return;
    case QVG_CALL: {
      qvb_text_s(b, "CALL ");
      call_name(b, x->str, x->len);
      if (x->kids[0]) {
        qvb_text_s(b, "(");
        list(b, x->kids[0], 0, ", ");
        qvb_text_s(b, ")");
      }
      const qvg_node *y = x->kids[1];
      if (y) {
        qvb_text_s(b, " YIELD ");
        if (y->flags & QVG_F_STAR) qvb_text_s(b, "*");
        for (int32_t i = 1; i < y->n_kids; i++) {
          if (i > 1) qvb_text_s(b, ", ");
          node_name(b, y->kids[i]->kids[0]);
          if (y->kids[i]->str) {
            qvb_text_s(b, " AS ");
            node_name(b, y->kids[i]);
          }
        }
        opt_expr(b, " WHERE ", y->kids[0]);
      }
      return;
    }
    default: qvb_text_f(b, "<%s>", qvg_kind_name(x->kind)); return;
  }
}

static void query(qvb_text *b, const qvg_node *x, const char *sep) {
  if (x->kind == QVG_UNION) {
    query(b, x->kids[0], sep);
    qvb_text_s(b, sep);
    qvb_text_s(b, x->flags & QVG_F_ALL ? "UNION ALL" : "UNION");
    qvb_text_s(b, sep);
    query(b, x->kids[1], sep);
    return;
  }
  for (int32_t i = 0; i < x->n_kids; i++) {
    if (i) qvb_text_s(b, sep);
    clause(b, x->kids[i]);
  }
}

char *qvg_cypher_print(const qvg_node *root) {
  qvb_text b = {0};
  if (root && (root->kind == QVG_QUERY || root->kind == QVG_UNION)) query(&b, root, "\n");
  else if (root) expr(&b, root);
  qvb_text_s(&b, "");
  if (b.oom || !b.p) {
    qvb_text_free(&b);
    return NULL;
  }
  return b.p;
}
