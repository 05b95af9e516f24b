/* Random batches of any schema, shared by the C Data and IPC tests:
 * deterministic (seeded), with nulls everywhere and nested values.
 * Include after <cmocka.h>. */
#ifndef QUIVER_TESTS_COLUMNAR_RANDOM_BATCH_H
#define QUIVER_TESTS_COLUMNAR_RANDOM_BATCH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/columnar.h"

static uint64_t rng_state;

static inline uint64_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return rng_state >> 17;
}

static inline qv_datatype list_of(qv_datatype item) {
  qv_datatype t;
  assert_int_equal(qv_datatype_list(&item, &t, NULL), QV_OK);
  return t;
}

static inline void append_random(qv_builder *b, int depth) {
  if (rnd() % 5 == 0) {
    assert_int_equal(qv_builder_append_null(b), QV_OK);
    return;
  }
  uint64_t r = rnd();
  qv_status st = QV_OK;
  switch (b->type.id) {
    case QV_TYPE_NULL: st = qv_builder_append_null(b); break;
    case QV_TYPE_BOOL: st = qv_builder_append_bool(b, r & 1); break;
    case QV_TYPE_INT8: st = qv_builder_append_int(b, (int8_t)r); break;
    case QV_TYPE_INT16: st = qv_builder_append_int(b, (int16_t)r); break;
    case QV_TYPE_INT32:
    case QV_TYPE_DATE32: st = qv_builder_append_int(b, (int32_t)r); break;
    case QV_TYPE_INT64:
    case QV_TYPE_TIMESTAMP:
    case QV_TYPE_DURATION: st = qv_builder_append_int(b, (int64_t)(r * 977)); break;
    case QV_TYPE_TIME64: st = qv_builder_append_int(b, (int64_t)(r % 86400000000ull)); break;
    case QV_TYPE_UINT8: st = qv_builder_append_uint(b, (uint8_t)r); break;
    case QV_TYPE_UINT16: st = qv_builder_append_uint(b, (uint16_t)r); break;
    case QV_TYPE_UINT32: st = qv_builder_append_uint(b, (uint32_t)r); break;
    case QV_TYPE_UINT64: st = qv_builder_append_uint(b, r << 17 | r); break;
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64: st = qv_builder_append_double(b, (double)(int64_t)r / 7.0); break;
    case QV_TYPE_DECIMAL128: st = qv_builder_append_decimal(b, r * 31, (r & 1) ? -1 : 0); break;
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: {
      static const char *words[] = {"", "a", "quiver", "\xc3\xa9t\xc3\xa9", "longer string value"};
      const char *w = words[r % 5];
      st = qv_builder_append_bytes(b, w, (int64_t)strlen(w));
      break;
    }
    case QV_TYPE_LIST: {
      int n = depth > 3 ? 0 : (int)(r % 4);
      for (int k = 0; k < n; k++) append_random(&b->children[0], depth + 1);
      st = qv_builder_append_valid(b);
      break;
    }
    case QV_TYPE_FIXED_SIZE_LIST:
      for (int k = 0; k < b->type.list_size; k++) append_random(&b->children[0], depth + 1);
      st = qv_builder_append_valid(b);
      break;
    case QV_TYPE_STRUCT:
      for (int32_t c = 0; c < b->n_children; c++) append_random(&b->children[c], depth + 1);
      st = qv_builder_append_valid(b);
      break;
    case QV_TYPE_DICTIONARY: fail_msg("random batches have no dictionary columns"); break;
  }
  assert_int_equal(st, QV_OK);
}

static inline qv_batch *make_batch(const qv_schema *s, int64_t rows, uint64_t seed) {
  rng_state = seed;
  qv_array **cols = calloc((size_t)s->n_fields + 1, sizeof *cols);
  for (int32_t c = 0; c < s->n_fields; c++) {
    qv_builder b;
    assert_int_equal(qv_builder_init(&b, &s->fields[c].type, NULL), QV_OK);
    for (int64_t i = 0; i < rows; i++) append_random(&b, 0);
    assert_int_equal(qv_builder_finish(&b, &cols[c], NULL), QV_OK);
  }
  qv_batch *out = NULL;
  assert_int_equal(qv_batch_make(s, cols, rows, &out, NULL), QV_OK);
  free(cols);
  return out;
}

#endif
