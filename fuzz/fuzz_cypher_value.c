/* Fuzz target for the canonical encoding of Cypher values (VALUE columns):
 * any bytes either decode or fail with QV_ERR_CORRUPT and a "cypher: "
 * message; whatever decodes encodes back to exactly the same bytes (one
 * encoding per value), orders equal to itself, has a sort key and renders.
 * Any violation aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/cypher_value.h"

static void check(bool ok, const char *what) {
  if (ok) return;
  fprintf(stderr, "fuzz_cypher_value: %s\n", what);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 20) return 0;
  qvg_arena a = QVG_ARENA_INIT;
  qv_error err;
  err.message[0] = '\0';
  qvg_val v;
  qv_status st = qvg_val_decode(data, (int64_t)size, &a, &v, &err);
  if (st != QV_OK) {
    check(st == QV_ERR_CORRUPT || st == QV_ERR_NOMEM, "decode failed with another code than QV_ERR_CORRUPT");
    check(strncmp(err.message, "cypher: ", 8) == 0, "error without the cypher: prefix");
    check(v.t == QVG_V_NULL, "value set on failure");
    qvg_arena_free(&a);
    return 0;
  }
  qv_buffer b = QV_BUFFER_INIT;
  st = qvg_val_encode(&v, &b, &err);
  check(st == QV_OK, "a decoded value does not encode");
  check(b.size == (int64_t)size && memcmp(b.data, data, size) == 0, "encode(decode(x)) != x");
  qv_buffer_reset(&b);
  check(qvg_val_order(&v, &v) == 0, "a value orders before or after itself");
  check(qvg_val_sortkey(&v, &b, &err) == QV_OK && b.size > 0, "no sort key");
  qv_buffer_reset(&b);
  qvb_text t = {0};
  check(qvg_val_render(&v, NULL, &t, &err) == QV_OK, "render failed");
  qvb_text_free(&t);
  qvg_arena_free(&a);
  return 0;
}
