/* Tokens of the Lance SQL filter language.
 *
 * Lance parses filters with sqlparser-rs under a "LanceDialect": the
 * GenericDialect except that only the backtick delimits identifiers
 * (rust/lance-datafusion/src/sql.rs).  Two consequences shape this lexer:
 *
 * - "double quoted" text is NOT an identifier: sqlparser returns it as a
 *   DoubleQuotedString and Lance's planner turns both that and a
 *   "-quoted identifier into a Utf8 literal (planner.rs, "Users can pass
 *   string literals wrapped in `\"`").  So "abc" is the string 'abc' here.
 * - The dialect does not enable backslash escapes in strings, so the only
 *   escape is SQL's doubled quote ('it''s', "say ""hi""", `a``b`).
 *
 * Both were checked against pylance 14.0.2 (s = "apple" and s = 'apple'
 * select the same rows; '\' is a complete one-character string).
 * Comments (-- to end of line, slash-star blocks, not nested) are
 * whitespace, as in Lance.  `==` is one token meaning `=`; `= =` is an
 * error, as in Lance.  0x0aff is a binary literal like X'0aff' (sqlparser
 * reads it as a hex string). */
#include <stdio.h>
#include <string.h>

#include "expr/diag.h"
#include "expr/expr_int.h"

typedef struct lexer {
  const char *s;
  int32_t n;
  int32_t i;
  /* Column bookkeeping: characters are counted incrementally because
   * tokens are produced in order. */
  int32_t col_off;
  int32_t col;
  lance_token *v;
  int32_t count, cap;
  qve_diag d; /* "filter: ... at column N" */
} lexer;

/* 1-based column of the character starting at byte off. */
static int32_t col_of(lexer *lx, int32_t off) {
  if (off < lx->col_off) lx->col_off = lx->col = 0; /* never expected; recount */
  while (lx->col_off < off) {
    if (((unsigned char)lx->s[lx->col_off] & 0xC0) != 0x80) lx->col++;
    lx->col_off++;
  }
  return lx->col + 1;
}

static qv_status push(lexer *lx, lance_tok_kind kind, int32_t start, int32_t len) {
  if (lx->count == lx->cap) {
    int32_t cap = lx->cap ? lx->cap * 2 : 32;
    lance_token *v = qv_realloc(lx->v, (size_t)cap * sizeof *v);
    if (!v) return qve_diag_nomem(&lx->d);
    lx->v = v;
    lx->cap = cap;
  }
  lance_token *t = &lx->v[lx->count++];
  t->kind = kind;
  t->start = start;
  t->len = len;
  t->col = col_of(lx, start);
  return QV_OK;
}

static qv_status lex_error(lexer *lx, int32_t off, const char *what) {
  return qve_diag_fail(&lx->d, QV_ERR_PARSE, col_of(lx, off), "%s", what);
}

static bool is_ident_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
static bool is_ident_part(unsigned char c) { return is_ident_start(c) || (c >= '0' && c <= '9') || c == '$'; }
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_hex(unsigned char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* Scans a quoted run starting at the opening quote; returns the offset one
 * past the closing quote, or -1 when unterminated. */
static int32_t scan_quoted(const lexer *lx, int32_t i, char q) {
  i++;
  while (i < lx->n) {
    if (lx->s[i] == q) {
      if (i + 1 < lx->n && lx->s[i + 1] == q) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return -1;
}

static qv_status skip_space(lexer *lx) {
  for (;;) {
    while (lx->i < lx->n &&
           (lx->s[lx->i] == ' ' || lx->s[lx->i] == '\t' || lx->s[lx->i] == '\n' || lx->s[lx->i] == '\r'))
      lx->i++;
    if (lx->i + 1 < lx->n && lx->s[lx->i] == '-' && lx->s[lx->i + 1] == '-') {
      while (lx->i < lx->n && lx->s[lx->i] != '\n') lx->i++;
      continue;
    }
    if (lx->i + 1 < lx->n && lx->s[lx->i] == '/' && lx->s[lx->i + 1] == '*') {
      /* Not nested: the first star-slash ends it, as in Lance's parser. */
      int32_t start = lx->i;
      lx->i += 2;
      while (lx->i + 1 < lx->n && !(lx->s[lx->i] == '*' && lx->s[lx->i + 1] == '/')) lx->i++;
      if (lx->i + 1 >= lx->n) return lex_error(lx, start, "unterminated comment");
      lx->i += 2;
      continue;
    }
    return QV_OK;
  }
}

static qv_status lex_number(lexer *lx) {
  int32_t start = lx->i;
  const char *s = lx->s;
  while (lx->i < lx->n && is_digit((unsigned char)s[lx->i])) lx->i++;
  if (lx->i < lx->n && s[lx->i] == '.') {
    lx->i++;
    while (lx->i < lx->n && is_digit((unsigned char)s[lx->i])) lx->i++;
  }
  /* An exponent only when digits follow: "1e" is the number 1 then the
   * word e, as in sqlparser. */
  if (lx->i < lx->n && (s[lx->i] == 'e' || s[lx->i] == 'E')) {
    int32_t j = lx->i + 1;
    if (j < lx->n && (s[j] == '+' || s[j] == '-')) j++;
    if (j < lx->n && is_digit((unsigned char)s[j])) {
      while (j < lx->n && is_digit((unsigned char)s[j])) j++;
      lx->i = j;
    }
  }
  return push(lx, LT_NUMBER, start, lx->i - start);
}

static qv_status lex_one(lexer *lx) {
  const char *s = lx->s;
  int32_t i = lx->i;
  unsigned char c = (unsigned char)s[i];
  char c1 = i + 1 < lx->n ? s[i + 1] : '\0';

  if ((c == 'x' || c == 'X') && c1 == '\'') {
    int32_t end = scan_quoted(lx, i + 1, '\'');
    if (end < 0) return lex_error(lx, i, "unterminated binary literal");
    for (int32_t k = i + 2; k < end - 1; k++)
      if (!is_hex((unsigned char)s[k])) return lex_error(lx, k, "invalid hex digit in binary literal");
    lx->i = end;
    return push(lx, LT_HEX, i, end - i);
  }
  if (is_ident_start(c)) {
    while (lx->i < lx->n && is_ident_part((unsigned char)s[lx->i])) lx->i++;
    return push(lx, LT_IDENT, i, lx->i - i);
  }
  if (c == '0' && (c1 == 'x' || c1 == 'X') && i + 2 < lx->n && is_hex((unsigned char)s[i + 2])) {
    lx->i = i + 2;
    while (lx->i < lx->n && is_hex((unsigned char)s[lx->i])) lx->i++;
    return push(lx, LT_HEX, i, lx->i - i);
  }
  if (is_digit(c) || (c == '.' && is_digit((unsigned char)c1))) return lex_number(lx);
  if (c == '\'' || c == '"' || c == '`') {
    int32_t end = scan_quoted(lx, i, (char)c);
    if (end < 0) return lex_error(lx, i, c == '`' ? "unterminated quoted identifier" : "unterminated string literal");
    lx->i = end;
    return push(lx, c == '`' ? LT_QIDENT : c == '"' ? LT_DSTRING : LT_STRING, i, end - i);
  }
  lance_tok_kind k;
  int32_t len = 1;
  switch (c) {
    case '(': k = LT_LPAREN; break;
    case ')': k = LT_RPAREN; break;
    case '[': k = LT_LBRACKET; break;
    case ']': k = LT_RBRACKET; break;
    case ',': k = LT_COMMA; break;
    case '.': k = LT_DOT; break;
    case '+': k = LT_PLUS; break;
    case '-': k = LT_MINUS; break;
    case '*': k = LT_STAR; break;
    case '/': k = LT_SLASH; break;
    case '%': k = LT_PERCENT; break;
    case '=':
      k = LT_EQ;
      if (c1 == '=') len = 2;
      break;
    case '!':
      if (c1 != '=') return lex_error(lx, i, "unexpected character '!'");
      k = LT_NE;
      len = 2;
      break;
    case '<':
      if (c1 == '=') k = LT_LE, len = 2;
      else if (c1 == '>') k = LT_NE, len = 2;
      else k = LT_LT;
      break;
    case '>':
      if (c1 == '=') k = LT_GE, len = 2;
      else k = LT_GT;
      break;
    case '|':
      if (c1 != '|') return lex_error(lx, i, "unexpected character '|'");
      k = LT_CONCAT;
      len = 2;
      break;
    default: {
      char what[64];
      if (c >= 0x20 && c < 0x7F) snprintf(what, sizeof what, "unexpected character '%c'", c);
      else snprintf(what, sizeof what, "unexpected character 0x%02X", c);
      return lex_error(lx, i, what);
    }
  }
  lx->i += len;
  return push(lx, k, i, len);
}

qv_status qve_lance_lex(const char *text, lance_token **out, int32_t *n_out, qv_error *err) {
  *out = NULL;
  *n_out = 0;
  size_t n = strlen(text);
  if (n > QV_EXPR_MAX_TEXT)
    return qv_error_set(err, QV_ERR_PARSE, "filter: text of %zu bytes is longer than the %d allowed", n,
                        QV_EXPR_MAX_TEXT);
  lexer lx = {text, (int32_t)n, 0, 0, 0, NULL, 0, 0, QV_DIAG_INIT(err, "filter", "column")};
  int64_t valid = qv_utf8_valid_prefix((const uint8_t *)text, (int64_t)n);
  if (valid != (int64_t)n) return lex_error(&lx, (int32_t)valid, "invalid UTF-8");
  qv_status st = QV_OK;
  for (;;) {
    if ((st = skip_space(&lx)) != QV_OK) break;
    if (lx.i >= lx.n) {
      st = push(&lx, LT_EOF, lx.n, 0);
      break;
    }
    if ((st = lex_one(&lx)) != QV_OK) break;
  }
  if (st != QV_OK) {
    qv_free(lx.v);
    return st;
  }
  *out = lx.v;
  *n_out = lx.count;
  return QV_OK;
}

char *qve_lance_unquote(const char *text, const lance_token *t, int64_t *len) {
  char q = text[t->start];
  const char *p = text + t->start + 1;
  int32_t n = t->len - 2;
  char *out = qv_malloc((size_t)n + 1);
  if (!out) return NULL;
  int64_t k = 0;
  for (int32_t i = 0; i < n; i++) {
    out[k++] = p[i];
    if (p[i] == q) i++; /* a doubled quote stands for one */
  }
  out[k] = '\0';
  *len = k;
  return out;
}

const char *qve_lance_describe(const char *text, const lance_token *t, char *buf, size_t size) {
  if (t->kind == LT_EOF) {
    snprintf(buf, size, "end of input");
    return buf;
  }
  int32_t n = t->len;
  bool cut = false;
  if (n > 40) {
    n = 40;
    while (n > 0 && ((unsigned char)text[t->start + n] & 0xC0) == 0x80) n--; /* whole characters */
    cut = true;
  }
  snprintf(buf, size, "\"%.*s%s\"", (int)n, text + t->start, cut ? "..." : "");
  return buf;
}
