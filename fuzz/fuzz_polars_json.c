/* Fuzz target for the Polars JSON front end (and the strict JSON reader
 * under it): every input either reads or fails with a "polars json: ... at
 * byte N" message and no tree; a tree carries Polars semantics on every
 * node, prints, and clones to a tree that prints the same.  Any violation
 * aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/expr.h"
#include "fuzz_expr_common.h"

static void check(bool ok, const char *what, const uint8_t *data, size_t size) {
  if (ok) return;
  fprintf(stderr, "fuzz_polars_json: %s\ninput: %.*s\n", what, (int)(size > 2000 ? 2000 : size), (const char *)data);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 65536) return 0;
  /* An exact-size copy, so that reading past the length is caught. */
  char *json = malloc(size ? size : 1);
  if (!json) return 0;
  memcpy(json, data, size);
  qv_expr *e = NULL;
  qv_error err;
  err.message[0] = '\0';
  qv_status st = qv_polars_from_json(json, size, &e, &err);
  if (st != QV_OK) {
    check(e == NULL, "output set on failure", data, size);
    check(st == err.code, "status and error code differ", data, size);
    check(strncmp(err.message, "polars json: ", 13) == 0, "error message without the polars json: prefix", data, size);
    check(st != QV_ERR_PARSE || strstr(err.message, " at byte ") != NULL || strstr(err.message, "limit") != NULL,
          "parse error without a byte offset", data, size);
    free(json);
    return 0;
  }
  check(fuzz_polars_sem(e), "a node without Polars semantics", data, size);
  char *s1 = qv_expr_to_string(e);
  check(s1 != NULL, "print failed", data, size);
  qv_expr *c = qv_expr_clone(e);
  char *s2 = c ? qv_expr_to_string(c) : NULL;
  check(s2 && strcmp(s1, s2) == 0, "clone prints differently", data, size);
  qv_free(s1);
  qv_free(s2);
  qv_expr_destroy(c);
  qv_expr_destroy(e);
  free(json);
  return 0;
}
