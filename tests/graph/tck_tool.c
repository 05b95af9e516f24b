/* The TCK harness's parser driver (tests/graph/tck_parse.py runs it).
 *
 *   tck_tool QUERY      prints the canonical text of QUERY, or its error
 *   tck_tool --batch    reads queries framed as "<bytes>\n<text>" from
 *                       stdin and writes one line per query: "ok", or
 *                       "error\t<message>", or "roundtrip\t<what>" when the
 *                       printed text does not parse back to the same text
 *
 * Exit status: 0 unless the input could not be read (or, for one QUERY, it
 * did not parse: 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/cypher_ast.h"

/* 0 ok, 1 parse error (message in err), 2 round trip broken (what in err). */
static int check(const char *text, size_t len, char **out, qv_error *err) {
  qvg_ast *a = NULL, *b = NULL;
  *out = NULL;
  if (qvg_cypher_parse(text, len, &a, err) != QV_OK) return 1;
  int rc = 0;
  char *s1 = qvg_cypher_print(qvg_ast_root(a));
  char *s2 = NULL;
  if (!s1) {
    snprintf(err->message, sizeof err->message, "print failed");
    rc = 2;
  } else if (qvg_cypher_parse(s1, strlen(s1), &b, err) != QV_OK) {
    char m[sizeof err->message];
    memcpy(m, err->message, sizeof m);
    m[900] = '\0';
    snprintf(err->message, sizeof err->message, "printed text does not parse: %.900s", m);
    rc = 2;
  } else if (!(s2 = qvg_cypher_print(qvg_ast_root(b))) || strcmp(s1, s2) != 0) {
    snprintf(err->message, sizeof err->message, "printed text prints differently when parsed again");
    rc = 2;
  }
  *out = s1;
  qv_free(s2);
  qvg_ast_destroy(a);
  qvg_ast_destroy(b);
  return rc;
}

static void one_line(char *s) {
  for (; *s; s++)
    if (*s == '\n' || *s == '\t') *s = ' ';
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--batch") != 0) {
    qv_error err;
    char *out = NULL;
    int rc = check(argv[1], strlen(argv[1]), &out, &err);
    if (rc == 0) printf("%s\n", out);
    if (rc != 0) printf("%s%s\n", rc == 2 ? "round trip: " : "", err.message);
    if (rc == 2 && out) printf("printed:\n%s\n", out);
    qv_free(out);
    return rc == 0 ? 0 : 1;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: tck_tool QUERY | tck_tool --batch < frames\n");
    return 2;
  }
  for (;;) {
    size_t len;
    if (scanf("%zu", &len) != 1) break;
    if (getchar() != '\n') return 2;
    char *text = malloc(len + 1);
    if (!text || fread(text, 1, len, stdin) != len) return 2;
    text[len] = '\0';
    qv_error err;
    char *out = NULL;
    int rc = check(text, len, &out, &err);
    if (rc == 0) {
      printf("ok\n");
    } else {
      one_line(err.message);
      printf("%s\t%s\n", rc == 1 ? "error" : "roundtrip", err.message);
    }
    qv_free(out);
    free(text);
    fflush(stdout);
  }
  return 0;
}
