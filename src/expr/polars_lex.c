/* The Python tokens of the Polars text front end: names, numbers (with
 * underscores), string and bytes literals with Python's escapes, and the
 * operators.  Columns count characters, as the user sees them. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "expr/diag.h"
#include "expr/polars_text_int.h"

typedef struct lx {
  const char *s;
  int32_t n, i, col;
  pt_token *t;
  int32_t nt, cap;
  qve_diag d; /* "expression: ... at column N" */
} lx;

static qv_status lfail(lx *l, int32_t col, const char *what) {
  return qve_diag_fail(&l->d, QV_ERR_PARSE, col, "%s", what);
}

static void advance(lx *l, int32_t k) {
  for (int32_t j = 0; j < k && l->i < l->n; j++) {
    l->i++;
    /* count a character at each lead byte */
    if (l->i < l->n && ((unsigned char)l->s[l->i] & 0xC0) != 0x80) l->col++;
    else if (l->i >= l->n) l->col++;
  }
}

static qv_status emit(lx *l, pt_kind kind, int32_t start, int32_t col, char *text, int64_t text_len) {
  if (l->nt == l->cap) {
    int32_t cap = l->cap ? l->cap * 2 : 32;
    pt_token *nt = qv_realloc(l->t, (size_t)cap * sizeof *nt);
    if (!nt) {
      qv_free(text);
      return qve_diag_nomem(&l->d);
    }
    l->t = nt;
    l->cap = cap;
  }
  pt_token *t = &l->t[l->nt++];
  t->kind = kind;
  t->start = start;
  t->len = l->i - start;
  t->col = col;
  t->text = text;
  t->text_len = text_len;
  return QV_OK;
}

static bool is_name_start(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int hexv(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* At the opening quote, after any prefix.  Decoded text is never longer
 * than the source except for \x escapes in bytes (same length or less). */
static qv_status string(lx *l, int32_t start, int32_t col, bool raw, bool bytes) {
  char q = l->s[l->i];
  int32_t body = l->i + 1;
  int32_t j = body;
  while (j < l->n && l->s[j] != q && l->s[j] != '\n') j += (l->s[j] == '\\' && j + 1 < l->n) ? 2 : 1;
  if (j >= l->n || l->s[j] != q) return lfail(l, col, "unterminated string");
  char *o = qv_malloc((size_t)(j - body) + 1);
  if (!o) return qve_diag_nomem(&l->d);
  size_t k = 0;
  int32_t i = body;
  while (i < j) {
    unsigned char c = (unsigned char)l->s[i];
    if (bytes && c >= 0x80) {
      qv_free(o);
      return lfail(l, col, "bytes literal with a non-ASCII character");
    }
    if (c != '\\' || raw) {
      if (c == '\\' && raw && i + 1 < j) o[k++] = l->s[i++]; /* \' stays two characters */
      o[k++] = l->s[i++];
      continue;
    }
    char e = l->s[i + 1];
    int digits = 0;
    i += 2;
    switch (e) {
      case '\\': o[k++] = '\\'; break;
      case '\'': o[k++] = '\''; break;
      case '"': o[k++] = '"'; break;
      case 'n': o[k++] = '\n'; break;
      case 't': o[k++] = '\t'; break;
      case 'r': o[k++] = '\r'; break;
      case 'a': o[k++] = '\a'; break;
      case 'b': o[k++] = '\b'; break;
      case 'f': o[k++] = '\f'; break;
      case 'v': o[k++] = '\v'; break;
      case 'x': digits = 2; break;
      case 'u': digits = bytes ? 0 : 4; break;
      case 'U': digits = bytes ? 0 : 8; break;
      default:
        /* Python keeps an unknown escape as written. */
        o[k++] = '\\';
        i--;
        break;
    }
    if (e == 'u' || e == 'U' || e == 'x') {
      if (digits == 0) { /* \u in bytes: kept as written */
        o[k++] = '\\';
        o[k++] = e;
        continue;
      }
      uint32_t cp = 0;
      for (int d = 0; d < digits; d++) {
        int h = i + d < j ? hexv(l->s[i + d]) : -1;
        if (h < 0) {
          qv_free(o);
          return lfail(l, col, "truncated escape in string");
        }
        cp = cp * 16 + (uint32_t)h;
      }
      i += digits;
      if ((cp == 0 && !bytes) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF && !bytes)) {
        qv_free(o);
        return lfail(l, col, cp == 0 ? "NUL character in string" : "invalid character escape in string");
      }
      if (bytes || (e == 'x' && cp < 0x80)) o[k++] = (char)cp;
      else k += qvb_utf8_encode((uint8_t *)o + k, cp); /* \xHH in a str is the code point U+00HH */
    }
  }
  o[k] = '\0';
  /* A str becomes a column name or a C string; bytes keep their length. */
  if (!bytes && memchr(o, 0, k)) {
    qv_free(o);
    return lfail(l, col, "NUL character in string");
  }
  advance(l, j + 1 - l->i);
  return emit(l, bytes ? PT_BYTES : PT_STRING, start, col, o, (int64_t)k);
}

static qv_status number(lx *l, int32_t start, int32_t col) {
  const char *s = l->s;
  int32_t i = l->i;
  bool is_float = false;
  while (i < l->n && (is_digit((unsigned char)s[i]) || s[i] == '_')) i++;
  if (i < l->n && s[i] == '.' && !(i + 1 < l->n && is_name_start((unsigned char)s[i + 1]))) {
    is_float = true;
    i++;
    while (i < l->n && (is_digit((unsigned char)s[i]) || s[i] == '_')) i++;
  }
  if (i < l->n && (s[i] == 'e' || s[i] == 'E')) {
    int32_t k = i + 1;
    if (k < l->n && (s[k] == '+' || s[k] == '-')) k++;
    if (k < l->n && is_digit((unsigned char)s[k])) {
      is_float = true;
      i = k;
      while (i < l->n && is_digit((unsigned char)s[i])) i++;
    }
  }
  if (i < l->n && (is_name_start((unsigned char)s[i]) || is_digit((unsigned char)s[i])))
    return lfail(l, col, "invalid number");
  char *o = qv_malloc((size_t)(i - l->i) + 1);
  if (!o) return qve_diag_nomem(&l->d);
  size_t k = 0;
  for (int32_t j = l->i; j < i; j++) {
    if (s[j] == '_') {
      /* Python: an underscore only between digits */
      if (j == l->i || j + 1 >= i || !is_digit((unsigned char)s[j - 1]) || !is_digit((unsigned char)s[j + 1])) {
        qv_free(o);
        return lfail(l, col, "invalid number");
      }
      continue;
    }
    o[k++] = s[j];
  }
  o[k] = '\0';
  if (!is_float && k > 1 && o[0] == '0') {
    for (size_t j = 0; j < k; j++)
      if (o[j] != '0') {
        qv_free(o);
        return lfail(l, col, "leading zeros in an integer");
      }
  }
  advance(l, i - l->i);
  return emit(l, is_float ? PT_FLOAT : PT_INT, start, col, o, (int64_t)k);
}

static const struct {
  const char *s;
  pt_kind k;
} ops[] = {
    {"**", PT_POW},   {"//", PT_DSLASH}, {"==", PT_EQ},      {"!=", PT_NE},      {"<=", PT_LE},   {">=", PT_GE},
    {"(", PT_LPAREN}, {")", PT_RPAREN},  {"[", PT_LBRACKET}, {"]", PT_RBRACKET}, {",", PT_COMMA}, {".", PT_DOT},
    {"=", PT_ASSIGN}, {"<", PT_LT},      {">", PT_GT},       {"+", PT_PLUS},     {"-", PT_MINUS}, {"*", PT_STAR},
    {"/", PT_SLASH},  {"%", PT_PERCENT}, {"&", PT_AMP},      {"|", PT_PIPE},     {"^", PT_CARET}, {"~", PT_TILDE},
};

qv_status qve_pt_lex(const char *text, pt_token **out, int32_t *n_out, qv_error *err) {
  *out = NULL;
  *n_out = 0;
  size_t len = strlen(text);
  if (len > QV_EXPR_MAX_TEXT)
    return qv_error_set(err, QV_ERR_PARSE, "expression: longer than %d bytes", QV_EXPR_MAX_TEXT);
  int64_t valid = qv_utf8_valid_prefix((const uint8_t *)text, (int64_t)len);
  lx l = {text, (int32_t)len, 0, 1, NULL, 0, 0, QV_DIAG_INIT(err, "expression", "column")};
  if ((size_t)valid != len) {
    advance(&l, (int32_t)valid);
    return lfail(&l, l.col, "invalid UTF-8");
  }
  qv_status st = QV_OK;
  while (st == QV_OK) {
    while (l.i < l.n && (l.s[l.i] == ' ' || l.s[l.i] == '\t' || l.s[l.i] == '\n' || l.s[l.i] == '\r')) advance(&l, 1);
    int32_t start = l.i, col = l.col;
    if (l.i >= l.n) {
      st = emit(&l, PT_EOF, start, col, NULL, 0);
      break;
    }
    unsigned char c = (unsigned char)l.s[l.i];
    if (is_name_start(c)) {
      int32_t j = l.i;
      while (j < l.n && (is_name_start((unsigned char)l.s[j]) || is_digit((unsigned char)l.s[j]))) j++;
      /* string prefixes: r, b, rb, br (any case) */
      if (j < l.n && (l.s[j] == '\'' || l.s[j] == '"') && j - l.i <= 2) {
        bool raw = false, bytes = false, ok = true;
        for (int32_t k = l.i; k < j; k++) {
          char pc = (char)(l.s[k] | 0x20);
          if (pc == 'r' && !raw) raw = true;
          else if (pc == 'b' && !bytes) bytes = true;
          else ok = false;
        }
        if (ok) {
          advance(&l, j - l.i);
          st = string(&l, start, col, raw, bytes);
          continue;
        }
      }
      char *name = qv_strndup(l.s + l.i, (size_t)(j - l.i));
      if (!name) {
        st = qve_diag_nomem(&l.d);
        break;
      }
      advance(&l, j - l.i);
      st = emit(&l, PT_NAME, start, col, name, j - start);
      continue;
    }
    if (is_digit(c) || (c == '.' && l.i + 1 < l.n && is_digit((unsigned char)l.s[l.i + 1]))) {
      st = number(&l, start, col);
      continue;
    }
    if (c == '\'' || c == '"') {
      st = string(&l, start, col, false, false);
      continue;
    }
    bool found = false;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
      size_t ol = strlen(ops[k].s);
      if ((size_t)(l.n - l.i) >= ol && memcmp(l.s + l.i, ops[k].s, ol) == 0) {
        advance(&l, (int32_t)ol);
        st = emit(&l, ops[k].k, start, col, NULL, 0);
        found = true;
        break;
      }
    }
    if (!found) {
      char what[64];
      if (c >= 0x20 && c < 0x7f) snprintf(what, sizeof what, "unexpected character '%c'", c);
      else snprintf(what, sizeof what, "unexpected character");
      st = lfail(&l, col, what);
    }
  }
  if (st != QV_OK) {
    qve_pt_free_tokens(l.t, l.nt);
    return st;
  }
  *out = l.t;
  *n_out = l.nt;
  return QV_OK;
}

void qve_pt_free_tokens(pt_token *t, int32_t n) {
  if (!t) return;
  for (int32_t i = 0; i < n; i++) qv_free(t[i].text);
  qv_free(t);
}
