/* Fuzz target for the Cypher front end: every input either parses or fails
 * with a "cypher: ... at line L, column C" message and no tree; whatever
 * parses prints to text that parses again and prints identically, and the
 * tree respects the height limit.  Any violation aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/cypher_ast.h"

static void check(bool ok, const char *what, const char *text, size_t n) {
  if (ok) return;
  fprintf(stderr, "fuzz_cypher: %s\ninput: %.*s\n", what, (int)n, text);
  abort();
}

static int height(const qvg_node *x) {
  int h = 0;
  for (int32_t i = 0; i < x->n_kids; i++)
    if (x->kids[i]) {
      int k = height(x->kids[i]);
      if (k > h) h = k;
    }
  return h + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 65536) return 0;
  const char *text = (const char *)data;
  qvg_ast *a = NULL, *b = NULL;
  qv_error err;
  err.message[0] = '\0';
  qv_status st = qvg_cypher_parse(text, size, &a, &err);
  if (st != QV_OK) {
    check(a == NULL, "tree set on failure", text, size);
    check(st == err.code, "status and error code differ", text, size);
    check(strncmp(err.message, "cypher: ", 8) == 0, "error without the cypher: prefix", text, size);
    check(st == QV_ERR_NOMEM || strstr(err.message, " at line ") != NULL, "error without a position", text, size);
    return 0;
  }
  const qvg_node *root = qvg_ast_root(a);
  check(root != NULL, "no root", text, size);
  check(height(root) == root->height && root->height <= QVG_CYPHER_MAX_DEPTH, "height wrong", text, size);
  char *s1 = qvg_cypher_print(root);
  check(s1 != NULL, "print failed", text, size);
  st = qvg_cypher_parse(s1, strlen(s1), &b, &err);
  if (st != QV_OK) fprintf(stderr, "printed: %s\nerror: %s\n", s1, err.message);
  check(st == QV_OK, "printed text does not parse", text, size);
  char *s2 = qvg_cypher_print(qvg_ast_root(b));
  if (s2 && strcmp(s1, s2) != 0) fprintf(stderr, "first:  %s\nsecond: %s\n", s1, s2);
  check(s2 && strcmp(s1, s2) == 0, "print(parse(print(x))) differs", text, size);
  qv_free(s1);
  qv_free(s2);
  qvg_ast_destroy(a);
  qvg_ast_destroy(b);
  return 0;
}
