/* Helpers shared by the expr tests: golden files, line lists, a test
 * schema.  Header-only so each test program stays one file plus this. */
#ifndef QUIVER_TESTS_EXPR_EXPR_TEST_UTIL_H
#define QUIVER_TESTS_EXPR_EXPR_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/expr.h"

/* The whole file as a NUL-terminated malloc'd string, or NULL. */
static inline char *tu_read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s) s[n] = '\0';
  fclose(f);
  return s;
}

/* Growable text for building golden output. */
typedef struct tu_text {
  char *s;
  size_t n, cap;
} tu_text;

static inline void tu_put(tu_text *t, const char *s) {
  size_t k = strlen(s);
  if (t->n + k + 1 > t->cap) {
    t->cap = (t->n + k + 1) * 2;
    t->s = realloc(t->s, t->cap);
  }
  memcpy(t->s + t->n, s, k + 1);
  t->n += k;
}

/* Compares text with the golden file byte for byte.  With the environment
 * variable QV_UPDATE_GOLDEN set, rewrites the file instead.  Returns 0 when
 * equal (or updated); else prints the first differing line. */
static inline int tu_golden(const char *name, const char *text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/expr/%s", QV_TEST_DATA_DIR, name);
  if (getenv("QV_UPDATE_GOLDEN")) {
    FILE *f = fopen(path, "wb");
    if (!f) return 1;
    fputs(text, f);
    fclose(f);
    return 0;
  }
  char *want = tu_read_file(path);
  if (!want) {
    fprintf(stderr, "missing golden file %s (run with QV_UPDATE_GOLDEN=1)\n", path);
    return 1;
  }
  int rc = strcmp(want, text) != 0;
  if (rc) {
    const char *a = want, *b = text;
    int line = 1;
    while (*a && *a == *b) {
      if (*a == '\n') line++;
      a++, b++;
    }
    fprintf(stderr, "%s differs at line %d\n  want: %.120s\n  got:  %.120s\n", path, line, a, b);
  }
  free(want);
  return rc;
}

/* Calls fn(line) for each non-blank line of the data file that does not
 * start with '#'. */
static inline int tu_each_line(const char *name, void (*fn)(const char *line, void *ud), void *ud) {
  char path[1024];
  snprintf(path, sizeof path, "%s/expr/%s", QV_TEST_DATA_DIR, name);
  char *s = tu_read_file(path);
  if (!s) return -1;
  int count = 0;
  for (char *line = s; *line;) {
    char *end = strchr(line, '\n');
    if (end) *end = '\0';
    if (*line && *line != '#') {
      fn(line, ud);
      count++;
    }
    if (!end) break;
    line = end + 1;
  }
  free(s);
  return count;
}

/* op:type(children...), columns as name#index:type, literals as lit:type. */
static inline void tu_typed(tu_text *out, const qv_expr *e) {
  char buf[300], ty[200];
  qv_datatype_format(&e->type, ty, sizeof ty);
  if (e->kind == QV_EXPR_COLUMN) snprintf(buf, sizeof buf, "%s#%d:%s", e->name, (int)e->column, ty);
  else if (e->kind == QV_EXPR_LITERAL) snprintf(buf, sizeof buf, "lit:%s", ty);
  else if (e->op == QV_OP_FIELD) snprintf(buf, sizeof buf, ".%s:%s", e->name, ty);
  else snprintf(buf, sizeof buf, "%s:%s", qv_op_name(e->op), ty);
  tu_put(out, buf);
  if (e->n_args == 0) return;
  tu_put(out, "(");
  for (int32_t i = 0; i < e->n_args; i++) {
    if (i) tu_put(out, " ");
    tu_typed(out, e->args[i]);
  }
  tu_put(out, ")");
}

static inline void tu_add_field(qv_schema *s, const char *name, const char *type) {
  qv_field f;
  qv_datatype t;
  qv_error err;
  if (qv_datatype_parse(type, &t, &err) != QV_OK || qv_field_init(&f, name, &t, true, &err) != QV_OK ||
      qv_schema_add(s, &f, &err) != QV_OK) {
    fprintf(stderr, "test schema: %s: %s\n", name, err.message);
    abort();
  }
  qv_field_reset(&f);
  qv_datatype_reset(&t);
}

/* The schema the bind tests and the fuzz target share in spirit. */
static inline void tu_schema(qv_schema *s) {
  static const char *const cols[][2] = {
      {"a", "int32"},
      {"b", "int64"},
      {"c", "int8"},
      {"i16", "int16"},
      {"u", "uint64"},
      {"u8", "uint8"},
      {"u16", "uint16"},
      {"u32", "uint32"},
      {"f", "float64"},
      {"g", "float32"},
      {"s", "string"},
      {"t", "string"},
      {"x", "binary"},
      {"d", "date32"},
      {"ts", "timestamp[us]"},
      {"tms", "timestamp[ms]"},
      {"tn", "timestamp[ns]"},
      {"tz", "timestamp[ms, UTC]"},
      {"tny", "timestamp[us, America/New_York]"},
      {"tof", "timestamp[s, +05:30]"},
      {"dec", "decimal(10,2)"},
      {"big", "decimal(38,10)"},
      {"flag", "bool"},
      {"l", "list<int32>"},
      {"ls", "list<string>"},
      {"fl", "fixed_size_list<float32, 3>"},
      {"st", "struct<x: int32, y: string, inner: struct<z: float64>, Cased: int8, cased: int16>"},
      {"Name", "string"},
      {"dup", "int32"},
      {"DUP", "int64"},
      {"tm", "time64[us]"},
      {"du", "duration[ms]"},
      {"my col", "int32"},
      {"date", "date32"},
  };
  for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) tu_add_field(s, cols[k][0], cols[k][1]);
}

#endif
