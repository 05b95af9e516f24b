/* The strict JSON reader (json.h).  Recursive descent, bounded depth;
 * the values of an open container collect on one scratch stack and are
 * copied into the document's memory when it closes, so a document costs
 * one allocation per 64 KiB chunk rather than one per value. */
#include "expr/json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "expr/diag.h"
#include "expr/expr_int.h"

typedef struct chunk {
  struct chunk *next;
  size_t used, cap;
  /* data follows, 8-byte aligned */
} chunk;

struct qve_json_doc {
  chunk *chunks;
  qve_json root;
};

typedef struct jp {
  const char *s;
  size_t n, i;
  qve_json_doc *doc;
  qve_json *stack; /* scratch: values of the open containers */
  size_t top, cap;
  qve_diag d; /* the first error: "WHAT: ... at byte N" */
} jp;

#define CHUNK_DATA(c) ((char *)(c) + ((sizeof(chunk) + 7) & ~(size_t)7))

static void *doc_alloc(qve_json_doc *d, size_t size) {
  size = (size + 7) & ~(size_t)7;
  chunk *c = d->chunks;
  if (!c || c->cap - c->used < size) {
    size_t cap = size > 65536 ? size : 65536;
    size_t head = (sizeof(chunk) + 7) & ~(size_t)7;
    chunk *nc = qv_malloc(head + cap);
    if (!nc) return NULL;
    nc->cap = cap;
    nc->used = 0;
    /* A large block goes behind the current chunk so its free space stays usable. */
    if (c && size > 65536) {
      nc->next = c->next;
      c->next = nc;
    } else {
      nc->next = c;
      d->chunks = nc;
    }
    c = nc;
  }
  void *p = CHUNK_DATA(c) + c->used;
  c->used += size;
  return p;
}

static bool fail(jp *p, size_t at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static bool fail(jp *p, size_t at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  qve_diag_vfail(&p->d, QV_ERR_PARSE, (int64_t)at, fmt, ap);
  va_end(ap);
  return false;
}

static bool nomem(jp *p) {
  qve_diag_nomem(&p->d);
  return false;
}

static void skip_ws(jp *p) {
  while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r')) p->i++;
}

/* What is at the current position, for messages. */
static const char *found(jp *p, char *buf, size_t size) {
  if (p->i >= p->n) return "end of input";
  unsigned char c = (unsigned char)p->s[p->i];
  if (c >= 0x20 && c < 0x7f) snprintf(buf, size, "'%c'", c);
  else snprintf(buf, size, "byte 0x%02x", c);
  return buf;
}

static bool push(jp *p, const qve_json *v) {
  if (p->top == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 64;
    qve_json *ns = qv_realloc(p->stack, cap * sizeof *ns);
    if (!ns) return nomem(p);
    p->stack = ns;
    p->cap = cap;
  }
  p->stack[p->top++] = *v;
  return true;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static bool hex4(jp *p, size_t at, uint32_t *out) {
  if (p->n - p->i < 4) return fail(p, at, "incomplete \\u escape");
  uint32_t v = 0;
  for (int k = 0; k < 4; k++) {
    int h = hexval(p->s[p->i + (size_t)k]);
    if (h < 0) return fail(p, p->i + (size_t)k, "expected a hex digit in \\u escape");
    v = v * 16 + (uint32_t)h;
  }
  p->i += 4;
  *out = v;
  return true;
}

/* At the opening quote.  The decoded text is never longer than the raw. */
static bool parse_string(jp *p, qve_json *v) {
  size_t start = p->i++;
  size_t end = p->i;
  while (end < p->n && p->s[end] != '"') end += p->s[end] == '\\' ? 2 : 1;
  if (end >= p->n) return fail(p, start, "unterminated string");
  char *o = doc_alloc(p->doc, end - p->i + 1);
  if (!o) return nomem(p);
  size_t k = 0;
  while (p->s[p->i] != '"') {
    unsigned char c = (unsigned char)p->s[p->i];
    if (c < 0x20) return fail(p, p->i, "control character in string");
    if (c != '\\') {
      /* Copy a run of plain bytes, checking that it is UTF-8. */
      size_t run = p->i;
      while (run < end && p->s[run] != '\\' && (unsigned char)p->s[run] >= 0x20) run++;
      int64_t ok = qv_utf8_valid_prefix((const uint8_t *)p->s + p->i, (int64_t)(run - p->i));
      if ((size_t)ok != run - p->i) return fail(p, p->i + (size_t)ok, "invalid UTF-8 in string");
      memcpy(o + k, p->s + p->i, run - p->i);
      k += run - p->i;
      p->i = run;
      continue;
    }
    size_t esc = p->i++;
    char e = p->s[p->i++];
    switch (e) {
      case '"': o[k++] = '"'; break;
      case '\\': o[k++] = '\\'; break;
      case '/': o[k++] = '/'; break;
      case 'b': o[k++] = '\b'; break;
      case 'f': o[k++] = '\f'; break;
      case 'n': o[k++] = '\n'; break;
      case 'r': o[k++] = '\r'; break;
      case 't': o[k++] = '\t'; break;
      case 'u': {
        uint32_t cp;
        if (!hex4(p, esc, &cp)) return false;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return fail(p, esc, "lone low surrogate in \\u escape");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t lo;
          if (p->n - p->i < 2 || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u')
            return fail(p, esc, "high surrogate without its low surrogate");
          p->i += 2;
          if (!hex4(p, esc, &lo)) return false;
          if (lo < 0xDC00 || lo > 0xDFFF) return fail(p, esc, "high surrogate without its low surrogate");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        /* \u0000 cannot live in a NUL-terminated name; nothing Polars writes has it. */
        if (cp == 0) return fail(p, esc, "\\u0000 in string");
        k += qvb_utf8_encode((uint8_t *)o + k, cp);
        break;
      }
      default: return fail(p, esc, "invalid escape in string");
    }
  }
  p->i++;
  o[k] = '\0';
  v->type = QV_JSON_STRING;
  v->str = o;
  v->len = (int64_t)k;
  return true;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool parse_number(jp *p, qve_json *v) {
  size_t start = p->i;
  bool is_int = true;
  if (p->i < p->n && p->s[p->i] == '-') p->i++;
  if (p->i >= p->n || !is_digit(p->s[p->i])) return fail(p, p->i, "expected a digit");
  if (p->s[p->i] == '0') {
    p->i++;
    if (p->i < p->n && is_digit(p->s[p->i])) return fail(p, p->i, "leading zero in number");
  } else {
    while (p->i < p->n && is_digit(p->s[p->i])) p->i++;
  }
  if (p->i < p->n && p->s[p->i] == '.') {
    is_int = false;
    p->i++;
    if (p->i >= p->n || !is_digit(p->s[p->i])) return fail(p, p->i, "expected a digit after '.'");
    while (p->i < p->n && is_digit(p->s[p->i])) p->i++;
  }
  if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
    is_int = false;
    p->i++;
    if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
    if (p->i >= p->n || !is_digit(p->s[p->i])) return fail(p, p->i, "expected a digit in exponent");
    while (p->i < p->n && is_digit(p->s[p->i])) p->i++;
  }
  char *o = doc_alloc(p->doc, p->i - start + 1);
  if (!o) return nomem(p);
  memcpy(o, p->s + start, p->i - start);
  o[p->i - start] = '\0';
  v->type = QV_JSON_NUMBER;
  v->is_int = is_int;
  v->str = o;
  v->len = (int64_t)(p->i - start);
  return true;
}

static bool parse_word(jp *p, const char *word, qve_json_type type, qve_json *v) {
  size_t k = strlen(word);
  if (p->n - p->i < k || memcmp(p->s + p->i, word, k) != 0) {
    char buf[32];
    return fail(p, p->i, "expected a value, found %s", found(p, buf, sizeof buf));
  }
  p->i += k;
  v->type = type;
  return true;
}

static bool parse_value(jp *p, qve_json *v, int depth);

/* Moves the top n scratch values into document memory. */
static bool close_container(jp *p, size_t base, qve_json *v) {
  size_t n = p->top - base;
  if (n > 0) {
    qve_json *items = doc_alloc(p->doc, n * sizeof *items);
    if (!items) return nomem(p);
    memcpy(items, p->stack + base, n * sizeof *items);
    v->items = items;
  }
  v->n = (int32_t)(v->type == QV_JSON_OBJECT ? n / 2 : n);
  p->top = base;
  return true;
}

static bool parse_container(jp *p, qve_json *v, int depth) {
  bool object = p->s[p->i] == '{';
  char close = object ? '}' : ']';
  size_t base = p->top;
  v->type = object ? QV_JSON_OBJECT : QV_JSON_ARRAY;
  p->i++;
  skip_ws(p);
  if (p->i < p->n && p->s[p->i] == close) {
    p->i++;
    return close_container(p, base, v);
  }
  for (;;) {
    char buf[32];
    qve_json item;
    if (object) {
      skip_ws(p);
      if (p->i >= p->n || p->s[p->i] != '"')
        return fail(p, p->i, "expected a member name, found %s", found(p, buf, sizeof buf));
      memset(&item, 0, sizeof item);
      item.offset = (int64_t)p->i;
      if (!parse_string(p, &item) || !push(p, &item)) return false;
      skip_ws(p);
      if (p->i >= p->n || p->s[p->i] != ':') return fail(p, p->i, "expected ':', found %s", found(p, buf, sizeof buf));
      p->i++;
    }
    if (!parse_value(p, &item, depth + 1) || !push(p, &item)) return false;
    if (p->top - base >= (size_t)INT32_MAX) return fail(p, p->i, "too many items");
    skip_ws(p);
    if (p->i < p->n && p->s[p->i] == ',') {
      p->i++;
      continue;
    }
    if (p->i < p->n && p->s[p->i] == close) {
      p->i++;
      return close_container(p, base, v);
    }
    return fail(p, p->i, "expected ',' or '%c', found %s", close, found(p, buf, sizeof buf));
  }
}

static bool parse_value(jp *p, qve_json *v, int depth) {
  memset(v, 0, sizeof *v);
  skip_ws(p);
  v->offset = (int64_t)p->i;
  if (depth > QV_JSON_MAX_DEPTH) return fail(p, p->i, "nested deeper than %d levels", QV_JSON_MAX_DEPTH);
  if (p->i >= p->n) return fail(p, p->i, "expected a value, found end of input");
  switch (p->s[p->i]) {
    case '{':
    case '[': return parse_container(p, v, depth);
    case '"': return parse_string(p, v);
    case 't': return parse_word(p, "true", QV_JSON_TRUE, v);
    case 'f': return parse_word(p, "false", QV_JSON_FALSE, v);
    case 'n': return parse_word(p, "null", QV_JSON_NULL, v);
    default:
      if (p->s[p->i] == '-' || is_digit(p->s[p->i])) return parse_number(p, v);
      {
        char buf[32];
        return fail(p, p->i, "expected a value, found %s", found(p, buf, sizeof buf));
      }
  }
}

qv_status qve_json_parse(const char *text, size_t len, const char *what, qve_json_doc **out, qv_error *err) {
  *out = NULL;
  if (!what) what = "json";
  if (len > QV_JSON_MAX_SIZE)
    return qv_error_set(err, QV_ERR_PARSE, "%s: input of %zu bytes is larger than the limit of %d", what, len,
                        QV_JSON_MAX_SIZE);
  if (!text && len) return qv_error_set(err, QV_ERR_INVALID, "%s: no text", what);
  qve_json_doc *doc = qv_calloc(1, sizeof *doc);
  if (!doc) return qv_error_nomem(err, what);
  jp p = {text ? text : "", len, 0, doc, NULL, 0, 0, QV_DIAG_INIT(err, what, "byte")};
  if (parse_value(&p, &doc->root, 1)) {
    skip_ws(&p);
    if (p.i < p.n) {
      char buf[32];
      fail(&p, p.i, "expected end of input after the value, found %s", found(&p, buf, sizeof buf));
    }
  }
  qv_free(p.stack);
  if (qve_diag_failed(&p.d)) {
    qve_json_doc_destroy(doc);
    return p.d.st;
  }
  *out = doc;
  return QV_OK;
}

const qve_json *qve_json_root(const qve_json_doc *doc) { return doc ? &doc->root : NULL; }

void qve_json_doc_destroy(qve_json_doc *doc) {
  if (!doc) return;
  for (chunk *c = doc->chunks; c;) {
    chunk *next = c->next;
    qv_free(c);
    c = next;
  }
  qv_free(doc);
}

const qve_json *qve_json_get(const qve_json *obj, const char *key) {
  if (!obj || obj->type != QV_JSON_OBJECT) return NULL;
  size_t k = strlen(key);
  for (int32_t i = 0; i < obj->n; i++) {
    const qve_json *name = &obj->items[2 * i];
    if ((size_t)name->len == k && memcmp(name->str, key, k) == 0) return &obj->items[2 * i + 1];
  }
  return NULL;
}

bool qve_json_is_string(const qve_json *v, const char *s) {
  return v && v->type == QV_JSON_STRING && (size_t)v->len == strlen(s) && memcmp(v->str, s, (size_t)v->len) == 0;
}

bool qve_json_int64(const qve_json *v, int64_t *out) {
  if (!v || v->type != QV_JSON_NUMBER || !v->is_int) return false;
  errno = 0;
  char *end;
  long long x = strtoll(v->str, &end, 10);
  if (errno || end != v->str + v->len) return false;
  *out = (int64_t)x;
  return true;
}

bool qve_json_uint64(const qve_json *v, uint64_t *out) {
  if (!v || v->type != QV_JSON_NUMBER || !v->is_int || v->str[0] == '-') return false;
  errno = 0;
  char *end;
  unsigned long long x = strtoull(v->str, &end, 10);
  if (errno || end != v->str + v->len) return false;
  *out = (uint64_t)x;
  return true;
}

bool qve_json_double(const qve_json *v, double *out) {
  if (!v || v->type != QV_JSON_NUMBER) return false;
  return qve_expr_parse_double(v->str, (size_t)v->len, out);
}
