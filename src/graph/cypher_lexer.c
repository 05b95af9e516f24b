/* Tokens of Cypher (openCypher 9 plus the common extensions the TCK uses).
 *
 * Words are identifiers or keywords; keywords are told apart by the parser,
 * case-insensitively, because most of them may also be names (n.count,
 * :Order).  `backtick` names are never keywords (`` is a backtick inside).
 * Strings take ' or " with the escapes \\ \' \" \b \f \n \r \t \uXXXX
 * \UXXXXXXXX.  Integers are decimal, 0x hexadecimal or 0o octal; their
 * magnitude is kept unsigned so that -9223372036854775808 can be read as a
 * negated literal.  A number running straight into a letter (12abc, 0x1g)
 * is an error, not two tokens.  Comments (// to end of line, slash-star
 * blocks) are whitespace. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/cypher_int.h"

static bool is_ident_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_ident_part(unsigned char c) { return is_ident_start(c) || is_digit(c); }
static int hex_val(unsigned char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

typedef struct lexer {
  qvg_parser *p;
  int32_t i;
  int32_t line;
  int32_t line_start;   /* byte offset of the current line */
  int32_t col_off, col; /* incremental column count within the line */
} lexer;

/* 1-based column (characters) of byte off, which is on the current line. */
static int32_t col_of(lexer *lx, int32_t off) {
  if (off < lx->col_off || lx->col_off < lx->line_start) {
    lx->col_off = lx->line_start;
    lx->col = 0;
  }
  while (lx->col_off < off) {
    if (((unsigned char)lx->p->src[lx->col_off] & 0xC0) != 0x80) lx->col++;
    lx->col_off++;
  }
  return lx->col + 1;
}

static void newline(lexer *lx, int32_t next_line_start) {
  lx->line++;
  lx->line_start = next_line_start;
}

static qvg_token *push(lexer *lx, int kind, int32_t start, int32_t len, int32_t line, int32_t col) {
  qvg_parser *p = lx->p;
  if (p->n_toks == p->cap_toks) {
    int32_t cap = p->cap_toks ? p->cap_toks * 2 : 64;
    qvg_token *v = qv_realloc(p->toks, (size_t)cap * sizeof *v);
    if (!v) return qvg_nomem(p);
    p->toks = v;
    p->cap_toks = cap;
  }
  qvg_token *t = &p->toks[p->n_toks++];
  memset(t, 0, sizeof *t);
  t->kind = kind;
  t->start = start;
  t->len = len;
  t->line = line;
  t->col = col;
  return t;
}

static size_t utf8_put(char *out, uint32_t cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* A quoted string from the opening quote at lx->i. */
static bool lex_string(lexer *lx, qvg_token *t) {
  qvg_parser *p = lx->p;
  const char *s = p->src;
  char q = s[lx->i];
  int32_t i = lx->i + 1;
  /* Decoded text is never longer than the source. */
  char *buf = qvg_ast_alloc(p->ast, (size_t)(p->n - lx->i) + 1);
  if (!buf) return qvg_nomem(p) != NULL;
  size_t n = 0;
  for (;;) {
    if (i >= p->n) {
      qvg_fail_at(p, t->line, t->col, "unterminated string");
      return false;
    }
    char c = s[i];
    if (c == q) {
      i++;
      break;
    }
    if (c == '\n') newline(lx, i + 1);
    if (c != '\\') {
      buf[n++] = c;
      i++;
      continue;
    }
    if (i + 1 >= p->n) {
      qvg_fail_at(p, t->line, t->col, "unterminated string");
      return false;
    }
    char e = s[i + 1];
    int32_t esc_col = col_of(lx, i);
    i += 2;
    switch (e) {
      case '\\': buf[n++] = '\\'; break;
      case '\'': buf[n++] = '\''; break;
      case '"': buf[n++] = '"'; break;
      case 'b': buf[n++] = '\b'; break;
      case 'f': buf[n++] = '\f'; break;
      case 'n': buf[n++] = '\n'; break;
      case 'r': buf[n++] = '\r'; break;
      case 't': buf[n++] = '\t'; break;
      case 'u':
      case 'U': {
        int digits = e == 'u' ? 4 : 8;
        uint32_t cp = 0;
        for (int k = 0; k < digits; k++) {
          int h = i + k < p->n ? hex_val((unsigned char)s[i + k]) : -1;
          if (h < 0) {
            qvg_fail_at(p, lx->line, esc_col, "invalid unicode escape: \\%c needs %d hexadecimal digits", e, digits);
            return false;
          }
          cp = cp * 16 + (uint32_t)h;
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
          qvg_fail_at(p, lx->line, esc_col, "invalid unicode escape: U+%X is not a character", cp);
          return false;
        }
        i += digits;
        n += utf8_put(buf + n, cp);
        break;
      }
      default: qvg_fail_at(p, lx->line, esc_col, "invalid escape sequence '\\%c'", e); return false;
    }
  }
  buf[n] = '\0';
  t->str = buf;
  t->slen = (int32_t)n;
  lx->i = i;
  return true;
}

/* A `quoted` name from the backtick at lx->i; `` is one backtick. */
static bool lex_quoted_name(lexer *lx, qvg_token *t) {
  qvg_parser *p = lx->p;
  const char *s = p->src;
  int32_t i = lx->i + 1;
  char *buf = qvg_ast_alloc(p->ast, (size_t)(p->n - lx->i) + 1);
  if (!buf) return qvg_nomem(p) != NULL;
  size_t n = 0;
  for (;;) {
    if (i >= p->n) {
      qvg_fail_at(p, t->line, t->col, "unterminated `quoted` name");
      return false;
    }
    if (s[i] == '`') {
      if (i + 1 < p->n && s[i + 1] == '`') {
        buf[n++] = '`';
        i += 2;
        continue;
      }
      i++;
      break;
    }
    if (s[i] == '\n') newline(lx, i + 1);
    buf[n++] = s[i++];
  }
  buf[n] = '\0';
  t->str = buf;
  t->slen = (int32_t)n;
  lx->i = i;
  return true;
}

static bool lex_number(lexer *lx, qvg_token *t) {
  qvg_parser *p = lx->p;
  const char *s = p->src;
  int32_t i = lx->i, start = i;
  int base = 10;
  if (s[i] == '0' && i + 1 < p->n && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    base = 16;
    i += 2;
  } else if (s[i] == '0' && i + 1 < p->n && s[i + 1] == 'o') {
    base = 8;
    i += 2;
  }
  bool is_float = false;
  int32_t digits_start = i;
  if (base == 10) {
    while (i < p->n && is_digit((unsigned char)s[i])) i++;
    if (i + 1 < p->n && s[i] == '.' && is_digit((unsigned char)s[i + 1])) {
      is_float = true;
      i++;
      while (i < p->n && is_digit((unsigned char)s[i])) i++;
    }
    if (i < p->n && (s[i] == 'e' || s[i] == 'E')) {
      int32_t j = i + 1;
      if (j < p->n && (s[j] == '+' || s[j] == '-')) j++;
      if (j < p->n && is_digit((unsigned char)s[j])) {
        is_float = true;
        i = j;
        while (i < p->n && is_digit((unsigned char)s[i])) i++;
      }
    }
  } else {
    while (i < p->n && hex_val((unsigned char)s[i]) >= 0 && hex_val((unsigned char)s[i]) < base) i++;
  }
  if (i < p->n && is_ident_part((unsigned char)s[i])) {
    qvg_fail_at(p, t->line, t->col, "invalid number literal '%.*s'", (int)(i - start + 1), s + start);
    return false;
  }
  if (i == digits_start) {
    qvg_fail_at(p, t->line, t->col, "invalid number literal '%.*s': no digits", (int)(i - start), s + start);
    return false;
  }
  if (is_float) {
    char tmp[512];
    int32_t len = i - start;
    if (len >= (int32_t)sizeof tmp) {
      qvg_fail_at(p, t->line, t->col, "number literal too long");
      return false;
    }
    memcpy(tmp, s + start, (size_t)len);
    tmp[len] = '\0';
    double f = strtod(tmp, NULL);
    if (isinf(f)) {
      qvg_fail_at(p, t->line, t->col, "floating point number out of range: %s", tmp);
      return false;
    }
    t->kind = QVG_T_FLOAT;
    t->f = f;
  } else {
    uint64_t u = 0;
    bool big = false;
    for (int32_t k = digits_start; k < i; k++) {
      uint64_t d = (uint64_t)hex_val((unsigned char)s[k]);
      if (u > (UINT64_MAX - d) / (uint64_t)base) big = true;
      u = u * (uint64_t)base + d;
    }
    if (u > (uint64_t)INT64_MAX + 1) big = true;
    t->kind = QVG_T_INT;
    t->u = u;
    t->big = big;
  }
  lx->i = i;
  return true;
}

/* Skips whitespace and comments; false on an unterminated comment. */
static bool skip_space(lexer *lx, bool *any) {
  qvg_parser *p = lx->p;
  const char *s = p->src;
  while (lx->i < p->n) {
    char c = s[lx->i];
    if (c == '\n') {
      lx->i++;
      newline(lx, lx->i);
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      lx->i++;
    } else if (c == '/' && lx->i + 1 < p->n && s[lx->i + 1] == '/') {
      while (lx->i < p->n && s[lx->i] != '\n') lx->i++;
    } else if (c == '/' && lx->i + 1 < p->n && s[lx->i + 1] == '*') {
      int32_t line = lx->line, col = col_of(lx, lx->i);
      lx->i += 2;
      for (;;) {
        if (lx->i + 1 >= p->n) {
          qvg_fail_at(p, line, col, "unterminated comment");
          return false;
        }
        if (s[lx->i] == '*' && s[lx->i + 1] == '/') break;
        if (s[lx->i] == '\n') newline(lx, lx->i + 1);
        lx->i++;
      }
      lx->i += 2;
    } else {
      break;
    }
    *any = true;
  }
  return true;
}

/* Whether the token before the one just pushed ends a value right at
 * start, so that ".5" there is a property key or an error, not 0.5. */
static bool follows_value(const qvg_parser *p, int32_t start) {
  if (p->n_toks < 2) return false;
  const qvg_token *prev = &p->toks[p->n_toks - 2];
  if (prev->start + prev->len != start) return false;
  int k = prev->kind;
  return k == QVG_T_WORD || k == QVG_T_QWORD || k == ')' || k == ']' || k == '}' || k == QVG_T_PARAM;
}

static int two_char(char a, char b) {
  if (a == '<' && b == '=') return QVG_T_LE;
  if (a == '>' && b == '=') return QVG_T_GE;
  if (a == '<' && b == '>') return QVG_T_NE;
  if (a == '=' && b == '~') return QVG_T_REGEX;
  if (a == '+' && b == '=') return QVG_T_PLUSEQ;
  if (a == '.' && b == '.') return QVG_T_DOTDOT;
  return 0;
}

qv_status qvg_cypher_lex(qvg_parser *p) {
  lexer lx = {p, 0, 1, 0, 0, 0};
  const char *s = p->src;
  for (;;) {
    bool space = false;
    if (!skip_space(&lx, &space)) return p->st;
    int32_t start = lx.i;
    int32_t line = lx.line, col = col_of(&lx, start);
    if (start >= p->n) {
      qvg_token *t = push(&lx, QVG_T_EOF, start, 0, line, col);
      if (!t) return p->st;
      t->space_before = space;
      return QV_OK;
    }
    unsigned char c = (unsigned char)s[start];
    qvg_token *t = push(&lx, 0, start, 0, line, col);
    if (!t) return p->st;
    t->space_before = space;
    if (is_ident_start(c)) {
      int32_t i = start;
      while (i < p->n && is_ident_part((unsigned char)s[i])) i++;
      t->kind = QVG_T_WORD;
      t->str = qvg_strdup(p, s + start, (size_t)(i - start));
      if (!t->str) return p->st;
      t->slen = i - start;
      lx.i = i;
    } else if (is_digit(c) ||
               (c == '.' && start + 1 < p->n && is_digit((unsigned char)s[start + 1]) && !follows_value(p, start))) {
      if (!lex_number(&lx, t)) return p->st;
    } else if (c == '\'' || c == '"') {
      t->kind = QVG_T_STRING;
      if (!lex_string(&lx, t)) return p->st;
    } else if (c == '`') {
      t->kind = QVG_T_QWORD;
      if (!lex_quoted_name(&lx, t)) return p->st;
    } else if (c == '$') {
      int32_t i = start + 1;
      t->kind = QVG_T_PARAM;
      if (i < p->n && s[i] == '`') {
        lx.i = i;
        if (!lex_quoted_name(&lx, t)) return p->st;
        t->kind = QVG_T_PARAM;
      } else {
        while (i < p->n && is_ident_part((unsigned char)s[i])) i++;
        if (i == start + 1) {
          qvg_fail_at(p, line, col, "expected a parameter name after '$'");
          return p->st;
        }
        t->str = qvg_strdup(p, s + start + 1, (size_t)(i - start - 1));
        if (!t->str) return p->st;
        t->slen = i - start - 1;
        lx.i = i;
      }
    } else {
      int k = start + 1 < p->n ? two_char((char)c, s[start + 1]) : 0;
      if (k) {
        t->kind = k;
        lx.i = start + 2;
      } else if (strchr("()[]{},.:|;*/%^+-=<>!", c) && c != '\0') {
        t->kind = c;
        lx.i = start + 1;
      } else {
        if (c >= 0x20 && c < 0x7F) qvg_fail_at(p, line, col, "unexpected character '%c'", c);
        else qvg_fail_at(p, line, col, "unexpected byte 0x%02X", c);
        return p->st;
      }
    }
    t->len = lx.i - start;
  }
}
