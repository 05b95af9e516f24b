/* Pieces the expression fuzz targets share: a fixed schema to bind against
 * and the check that a Polars front end put Polars semantics on every node. */
#ifndef QUIVER_FUZZ_FUZZ_EXPR_COMMON_H
#define QUIVER_FUZZ_FUZZ_EXPR_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/expr.h"

/* Appends `name: type` to s; aborts (a harness bug) if that fails. */
static inline void fuzz_schema_add(qv_schema *s, const char *name, const char *type) {
  qv_field f;
  qv_datatype t;
  qv_error err;
  if (qv_datatype_parse(type, &t, &err) != QV_OK || qv_field_init(&f, name, &t, true, &err) != QV_OK ||
      qv_schema_add(s, &f, &err) != QV_OK) {
    fprintf(stderr, "fuzz schema: %s\n", err.message);
    abort();
  }
  qv_field_reset(&f);
  qv_datatype_reset(&t);
}

/* The input as a NUL-terminated string (malloc'd), or NULL when it is
 * longer than max bytes (not interesting) or memory runs out. */
static inline char *fuzz_text(const uint8_t *data, size_t size, size_t max) {
  if (size > max) return NULL;
  char *text = malloc(size + 1);
  if (!text) return NULL;
  memcpy(text, data, size);
  text[size] = '\0';
  return text;
}

static inline bool fuzz_polars_sem(const qv_expr *e) {
  if (e->sem.float_order != QV_FLOAT_POLARS || e->sem.int_div != QV_DIV_FLOOR || e->sem.overflow != QV_OVERFLOW_WRAP)
    return false;
  for (int32_t i = 0; i < e->n_args; i++)
    if (!e->args[i] || !fuzz_polars_sem(e->args[i])) return false;
  return true;
}

#endif
