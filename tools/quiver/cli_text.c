/* Text the filter commands share: Python's str repr (how the Polars-facing
 * commands print their results, as the Python package's objects do), JSON
 * strings, and the inline schema "a:int64,t:timestamp[us, UTC]". */
#include <stdbool.h>
#include <string.h>
#include <utf8proc.h>

#include "cli.h"

/* Python's str.isprintable() for one code point: everything but the
 * categories Other (Cc, Cf, Cs, Co, Cn) and Separator (Zl, Zp, Zs), except
 * the space itself (Objects/unicodectype.c). */
static bool py_printable(utf8proc_int32_t cp) {
  if (cp == ' ') return true;
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO:
    case UTF8PROC_CATEGORY_CN:
    case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP:
    case UTF8PROC_CATEGORY_ZS: return false;
    default: return true;
  }
}

void cli_print_py_str(const char *s) {
  char q = (strchr(s, '\'') && !strchr(s, '"')) ? '"' : '\'';
  putchar(q);
  const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)s;
  utf8proc_ssize_t left = (utf8proc_ssize_t)strlen(s);
  while (left > 0) {
    utf8proc_int32_t cp;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0) { /* not UTF-8 (a Python str always is): the byte, escaped */
      printf("\\x%02x", *p);
      p++, left--;
      continue;
    }
    if (cp == '\\' || cp == q) printf("\\%c", (char)cp);
    else if (cp == '\n') fputs("\\n", stdout);
    else if (cp == '\r') fputs("\\r", stdout);
    else if (cp == '\t') fputs("\\t", stdout);
    else if (py_printable(cp)) fwrite(p, 1, (size_t)n, stdout);
    else if (cp < 0x100) printf("\\x%02x", (unsigned)cp);
    else if (cp < 0x10000) printf("\\u%04x", (unsigned)cp);
    else printf("\\U%08x", (unsigned)cp);
    p += n, left -= n;
  }
  putchar(q);
}

void cli_json_string(FILE *f, const char *s, size_t n) {
  fputc('"', f);
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    switch (ch) {
      case '"': fputs("\\\"", f); break;
      case '\\': fputs("\\\\", f); break;
      case '\n': fputs("\\n", f); break;
      case '\r': fputs("\\r", f); break;
      case '\t': fputs("\\t", f); break;
      default:
        if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
  }
  fputc('"', f);
}

qv_status cli_parse_schema(const char *text, qv_schema *out, qv_error *err) {
  char *copy = qv_strdup(text);
  if (!copy) return qv_error_set(err, QV_ERR_NOMEM, "out of memory");
  qv_status st = QV_OK;
  char *item = copy;
  while (st == QV_OK && item) {
    int nest = 0;
    char *end = item;
    for (; *end && !(*end == ',' && nest == 0); end++)
      nest += (*end == '[' || *end == '(' || *end == '<') - (*end == ']' || *end == ')' || *end == '>');
    char *next = *end ? end + 1 : NULL;
    *end = 0;
    char *colon = strchr(item, ':');
    if (!colon) {
      st = qv_error_set(err, QV_ERR_PARSE, "--schema: expected NAME:TYPE in '%s'", item);
      break;
    }
    *colon = 0;
    qv_datatype ty = QV_DATATYPE_INIT;
    qv_field f;
    st = qv_datatype_parse(colon + 1, &ty, err);
    if (st == QV_OK) st = qv_field_init(&f, item, &ty, true, err);
    if (st == QV_OK) {
      st = qv_schema_add(out, &f, err);
      qv_field_reset(&f);
    }
    qv_datatype_reset(&ty);
    item = next;
  }
  qv_free(copy);
  return st;
}
