/* Text the filter commands share: Python's str repr (how the Polars-facing
 * commands print their results, as the Python package's objects do), JSON
 * strings, and the inline schema "a:int64,t:timestamp[us, UTC]". */
#include <string.h>

#include "cli.h"

void cli_print_py_str(const char *s) {
  char q = (strchr(s, '\'') && !strchr(s, '"')) ? '"' : '\'';
  putchar(q);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '\\' || *p == (unsigned char)q) printf("\\%c", *p);
    else if (*p == '\n') fputs("\\n", stdout);
    else if (*p == '\r') fputs("\\r", stdout);
    else if (*p == '\t') fputs("\\t", stdout);
    else if (*p < 0x20 || *p == 0x7f) printf("\\x%02x", *p);
    else putchar(*p);
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
