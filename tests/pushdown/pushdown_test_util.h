/* Pieces the pushdown translators' golden tests share: reading the files
 * under tests/data/pushdown/, the "a:int64,b:string" schema text (commas
 * inside [] or <> belong to the type), a growing text buffer, and the
 * golden comparison (QV_UPDATE_GOLDEN=1 rewrites the file).  Include after
 * <cmocka.h>. */
#ifndef QUIVER_TESTS_PUSHDOWN_PUSHDOWN_TEST_UTIL_H
#define QUIVER_TESTS_PUSHDOWN_PUSHDOWN_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/quiver.h"

static inline char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  if (buf) buf[n] = 0;
  fclose(f);
  return buf;
}

static inline void data_path(char *buf, size_t size, const char *name) {
  snprintf(buf, size, "%s/pushdown/%s", QV_TEST_DATA_DIR, name);
}

/* "a:int64,b:string" -> schema.  Commas inside [] or <> belong to a type
 * ("ts:timestamp[us, UTC]", "st:struct<x:int64,y:string>"). */
static inline void parse_schema(const char *text, qv_schema *out) {
  char copy[512];
  snprintf(copy, sizeof copy, "%s", text);
  int nest = 0;
  for (char *p = copy; *p; p++) {
    if (*p == '[' || *p == '<') nest++;
    else if (*p == ']' || *p == '>') nest--;
    else if (*p == ',' && nest == 0) *p = '\x1f';
  }
  char *save = NULL;
  for (char *item = strtok_r(copy, "\x1f", &save); item; item = strtok_r(NULL, "\x1f", &save)) {
    char *colon = strchr(item, ':');
    assert_non_null(colon);
    *colon = 0;
    qv_datatype ty = QV_DATATYPE_INIT;
    qv_field f;
    qv_error err = {0};
    assert_int_equal(qv_datatype_parse(colon + 1, &ty, &err), QV_OK);
    assert_int_equal(qv_field_init(&f, item, &ty, true, &err), QV_OK);
    assert_int_equal(qv_schema_add(out, &f, &err), QV_OK);
    qv_field_reset(&f);
    qv_datatype_reset(&ty);
  }
}

typedef struct grow {
  char *p;
  size_t n, cap;
} grow;

static inline void put(grow *g, const char *s) {
  size_t k = strlen(s);
  if (g->n + k + 1 > g->cap) {
    g->cap = (g->n + k + 1) * 2;
    g->p = realloc(g->p, g->cap);
    assert_non_null(g->p);
  }
  memcpy(g->p + g->n, s, k + 1);
  g->n += k;
}

/* Compares text with the golden file (or rewrites it). */
static inline void check_golden(const char *name, const char *text) {
  char path[1024];
  data_path(path, sizeof path, name);
  const char *upd = getenv("QV_UPDATE_GOLDEN");
  if (upd && strcmp(upd, "1") == 0) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
  }
  char *want = read_text(path);
  assert_non_null(want);
  if (strcmp(want, text) != 0) {
    /* Point at the first differing line. */
    const char *a = want, *b = text;
    int line = 1;
    while (*a && *a == *b) {
      if (*a == '\n') line++;
      a++;
      b++;
    }
    const char *la = a, *lb = b;
    while (la > want && la[-1] != '\n') la--;
    while (lb > text && lb[-1] != '\n') lb--;
    print_error("%s differs at line %d\nwant: %.300s\ngot:  %.300s\n", name, line, la, lb);
    free(want);
    fail();
  }
  free(want);
}

#endif
