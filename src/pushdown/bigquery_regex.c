/* Which Polars regexes mean the same in BigQuery.
 *
 * Polars matches with Rust's regex crate, BigQuery with RE2.  The syntax
 * is close but not equal: Rust's \d \w \s \b (and their negations) are
 * Unicode-aware where RE2's are ASCII-only; Rust has class set operations
 * (&& -- ~~) and nested classes where RE2 reads the brackets literally;
 * Rust reads {,n} as a repetition and \< \> as word boundaries where RE2
 * sees literals; the Unicode tables behind \p{..} differ by version.  So
 * this is a whitelist: literal characters, . ^ $ | groups (plain, (?:..),
 * named, and the flags i m s), the quantifiers * + ? {n} {n,} {n,m} (with
 * n, m <= 1000, RE2's limit) and their lazy forms, simple classes, and
 * escapes of punctuation, \n \t \r \f \v \a \A \z \xHH \x{H..}.  Anything
 * else does not push. */
#include <string.h>

#include "pushdown/bigquery_int.h"

static bool is_punct(char c) { return c && strchr("!\"#$%&'()*+,-./:;=?@[\\]^_`{|}~", c) != NULL; }

static bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* An escape at p[i] == '\\'; advances *i past it. */
static const char *escape(const char *p, size_t n, size_t *i) {
  if (*i + 1 >= n) return "a pattern ending in a backslash";
  char c = p[*i + 1];
  *i += 2;
  if (is_punct(c)) return NULL;
  switch (c) {
    case 'n':
    case 't':
    case 'r':
    case 'f':
    case 'v':
    case 'a':
    case 'A':
    case 'z': return NULL;
    case 'd':
    case 'D':
    case 'w':
    case 'W':
    case 's':
    case 'S':
    case 'b':
    case 'B': return "\\d \\w \\s \\b are Unicode-aware in Polars and ASCII-only in BigQuery's RE2";
    case 'p':
    case 'P': return "Unicode classes \\p{..} rest on different Unicode tables in Polars and RE2";
    case 'x':
      if (*i < n && p[*i] == '{') {
        size_t k = *i + 1, digits = 0;
        while (k < n && is_hex(p[k])) k++, digits++;
        if (k >= n || p[k] != '}' || digits == 0 || digits > 6) return "a malformed \\x{..} escape";
        *i = k + 1;
        return NULL;
      }
      if (*i + 1 < n && is_hex(p[*i]) && is_hex(p[*i + 1])) {
        *i += 2;
        return NULL;
      }
      return "a malformed \\x escape";
    case '<':
    case '>': return "\\< and \\> are word boundaries in Polars and literals in RE2";
    default: return "an escape that Polars and RE2 do not read alike";
  }
}

/* A character class at p[i] == '['; advances *i past its ']'. */
static const char *char_class(const char *p, size_t n, size_t *i) {
  size_t k = *i + 1;
  if (k < n && p[k] == '^') k++;
  if (k < n && p[k] == ']') k++; /* a leading ] is literal in both */
  while (k < n && p[k] != ']') {
    if (p[k] == '[') return "a nested class or [:name:] inside a class reads differently in Polars and RE2";
    if (k + 1 < n && p[k + 1] == p[k] && (p[k] == '&' || p[k] == '-' || p[k] == '~'))
      return "class set operations (&& -- ~~) exist in Polars only";
    if (p[k] == '\\') {
      const char *why = escape(p, n, &k);
      if (why) return why;
      continue;
    }
    k++;
  }
  if (k >= n) return "an unterminated class";
  *i = k + 1;
  return NULL;
}

/* A counted repetition at p[i] == '{'; advances *i past its '}'. */
static const char *repetition(const char *p, size_t n, size_t *i) {
  size_t k = *i + 1;
  long lo = -1, hi = -1;
  if (k < n && p[k] >= '0' && p[k] <= '9') {
    lo = 0;
    while (k < n && p[k] >= '0' && p[k] <= '9' && lo <= 100000) lo = lo * 10 + (p[k++] - '0');
  }
  if (lo < 0) return "a repetition {,n} or a literal brace reads differently in Polars and RE2";
  if (k < n && p[k] == ',') {
    k++;
    if (k < n && p[k] >= '0' && p[k] <= '9') {
      hi = 0;
      while (k < n && p[k] >= '0' && p[k] <= '9' && hi <= 100000) hi = hi * 10 + (p[k++] - '0');
    }
  }
  if (k >= n || p[k] != '}') return "a brace that is not a repetition reads differently in Polars and RE2";
  if (lo > 1000 || hi > 1000) return "a repetition count above 1000 fails in RE2";
  *i = k + 1;
  return NULL;
}

/* A group opening at p[i] == '('; advances *i past "(", "(?:", "(?P<name>",
 * "(?<name>" or a flag group of i m s. */
static const char *group(const char *p, size_t n, size_t *i) {
  size_t k = *i + 1;
  if (k >= n || p[k] != '?') {
    *i = k;
    return NULL;
  }
  k++;
  if (k < n && p[k] == ':') {
    *i = k + 1;
    return NULL;
  }
  if (k < n && (p[k] == 'P' || p[k] == '<')) {
    if (p[k] == 'P') k++;
    if (k >= n || p[k] != '<') return "a group syntax Polars and RE2 do not read alike";
    k++;
    size_t start = k;
    while (k < n && ((p[k] >= 'a' && p[k] <= 'z') || (p[k] >= 'A' && p[k] <= 'Z') || (p[k] >= '0' && p[k] <= '9') ||
                     p[k] == '_'))
      k++;
    if (k >= n || p[k] != '>' || k == start) return "a malformed group name";
    *i = k + 1;
    return NULL;
  }
  bool any = false;
  while (k < n && (p[k] == 'i' || p[k] == 'm' || p[k] == 's' || p[k] == '-')) k++, any = true;
  if (!any || k >= n || (p[k] != ')' && p[k] != ':'))
    return "regex flags other than i, m, s (or lookaround) do not push";
  *i = k + 1;
  return NULL;
}

const char *qvp_bq_regex_incompatible(const char *p, size_t n) {
  size_t i = 0;
  while (i < n) {
    const char *why = NULL;
    switch (p[i]) {
      case '\\': why = escape(p, n, &i); break;
      case '[': why = char_class(p, n, &i); break;
      case '{': why = repetition(p, n, &i); break;
      case '(': why = group(p, n, &i); break;
      default: i++; break;
    }
    if (why) return why;
  }
  return NULL;
}
