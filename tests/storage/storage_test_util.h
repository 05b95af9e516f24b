/* Helpers shared by the storage tests: temp directories, a batch reader
 * over batches in memory, column generators, exact array comparison. */
#ifndef QUIVER_TESTS_STORAGE_STORAGE_TEST_UTIL_H
#define QUIVER_TESTS_STORAGE_STORAGE_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <ftw.h>
#include <unistd.h>

#include "quiver/storage.h"

/* ---- temp directories ------------------------------------------------- */

/* A whole file, malloc'd (one spare byte), for tests that damage it. */
static inline uint8_t *slurp(const char *path, int64_t *size) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  *size = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)*size + 1);
  assert_int_equal(fread(b, 1, (size_t)*size, f), (size_t)*size);
  fclose(f);
  return b;
}

/* Rewrites in place (no truncation to zero first: some file systems flush
 * on that, which makes thousands of rewrites slow). */
static inline void spit(const char *path, const uint8_t *b, int64_t size) {
  int fd = open(path, O_WRONLY | O_CREAT, 0644);
  assert_true(fd >= 0);
  if (size) assert_int_equal(pwrite(fd, b, (size_t)size, 0), size);
  assert_int_equal(ftruncate(fd, size), 0);
  close(fd);
}

static int rm_one_(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  remove(p);
  return 0;
}

static inline void rm_rf(const char *path) { nftw(path, rm_one_, 16, FTW_DEPTH | FTW_PHYS); }

/* A fresh directory under /tmp; the dataset goes to <dir>/ds. */
static inline char *make_tmpdir(void) {
  char tmpl[] = "/tmp/qvstorage-XXXXXX";
  char *d = mkdtemp(tmpl);
  assert_non_null(d);
  return strdup(d);
}

static inline char *join2(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *p = malloc(n);
  snprintf(p, n, "%s/%s", a, b);
  return p;
}

/* ---- a batch reader over batches in memory ----------------------------- */

typedef struct vec_reader {
  qv_schema schema;
  qv_batch **batches;
  int n, i;
} vec_reader;

static qv_status vec_next_(qv_batch_reader *self, qv_batch **out, qv_error *err) {
  (void)err;
  vec_reader *v = self->private_data;
  *out = v->i < v->n ? qv_batch_retain(v->batches[v->i++]) : NULL;
  return QV_OK;
}
static const qv_schema *vec_schema_(qv_batch_reader *self) { return &((vec_reader *)self->private_data)->schema; }
static void vec_destroy_(qv_batch_reader *self) {
  vec_reader *v = self->private_data;
  for (int i = 0; i < v->n; i++) qv_batch_release(v->batches[i]);
  free(v->batches);
  qv_schema_reset(&v->schema);
  free(v);
  free(self);
}

/* Takes references to batches[0..n) (retained); schema copied. */
static inline qv_batch_reader *vec_reader_new(const qv_schema *schema, qv_batch **batches, int n) {
  vec_reader *v = calloc(1, sizeof *v);
  qv_batch_reader *r = calloc(1, sizeof *r);
  assert_int_equal(qv_schema_copy(schema, &v->schema), QV_OK);
  v->batches = calloc((size_t)n + 1, sizeof *v->batches);
  for (int i = 0; i < n; i++) v->batches[i] = qv_batch_retain(batches[i]);
  v->n = n;
  r->next = vec_next_;
  r->schema = vec_schema_;
  r->destroy = vec_destroy_;
  r->private_data = v;
  return r;
}

/* Writes batches as one qv_dataset_write call; returns the status. */
static inline qv_status write_batches(const char *path, const qv_schema *schema, qv_batch **batches, int n,
                                      const qv_write_options *o, int64_t *version, qv_error *err) {
  qv_batch_reader *r = vec_reader_new(schema, batches, n);
  qv_status st = qv_dataset_write(path, r, o, version, err);
  qv_batch_reader_destroy(r);
  return st;
}

/* ---- schemas and batches ------------------------------------------------ */

static inline qv_field make_field(const char *name, qv_datatype t) {
  qv_field f;
  qv_error err;
  assert_int_equal(qv_field_init(&f, name, &t, true, &err), QV_OK);
  return f;
}

/* Appends a nullable column `name` of type t to s. */
static inline void add_column(qv_schema *s, const char *name, qv_datatype t) {
  qv_error err;
  qv_field f = make_field(name, t);
  assert_int_equal(qv_schema_add(s, &f, &err), QV_OK);
  qv_field_reset(&f);
}

/* Slices columns [off, off+len) of full arrays into a new batch. */
static inline qv_batch *batch_slice_of(const qv_schema *s, qv_array **cols, int64_t off, int64_t len) {
  qv_error err;
  qv_array **parts = calloc((size_t)s->n_fields + 1, sizeof *parts);
  for (int32_t i = 0; i < s->n_fields; i++) assert_int_equal(qv_array_slice(cols[i], off, len, &parts[i], &err), QV_OK);
  qv_batch *b = NULL;
  assert_int_equal(qv_batch_make(s, parts, len, &b, &err), QV_OK);
  free(parts);
  return b;
}

/* Splits full columns into batches of batch_rows (last shorter). */
static inline int split_batches(const qv_schema *s, qv_array **cols, int64_t rows, int64_t batch_rows,
                                qv_batch ***out) {
  int n = (int)((rows + batch_rows - 1) / batch_rows);
  *out = calloc((size_t)n + 1, sizeof **out);
  for (int i = 0; i < n; i++) {
    int64_t off = (int64_t)i * batch_rows;
    (*out)[i] = batch_slice_of(s, cols, off, rows - off < batch_rows ? rows - off : batch_rows);
  }
  return n;
}

static inline void free_batches(qv_batch **b, int n) {
  for (int i = 0; i < n; i++) qv_batch_release(b[i]);
  free(b);
}

/* ---- deterministic values ------------------------------------------------ */

static inline uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* ---- exact comparison ------------------------------------------------------ */

static inline bool values_equal_(const qv_array *a, int64_t i, const qv_array *b, int64_t j, char *why, size_t n);

static inline bool arrays_equal_at(const qv_array *a, int64_t ai, const qv_array *b, int64_t bi, int64_t len, char *why,
                                   size_t n) {
  if (!qv_datatype_equal(&a->type, &b->type)) {
    snprintf(why, n, "types differ");
    return false;
  }
  for (int64_t k = 0; k < len; k++)
    if (!values_equal_(a, ai + k, b, bi + k, why, n)) {
      size_t used = strlen(why);
      snprintf(why + used, n - used, " (row %lld)", (long long)k);
      return false;
    }
  return true;
}

static inline bool values_equal_(const qv_array *a, int64_t i, const qv_array *b, int64_t j, char *why, size_t n) {
  bool va = a->type.id != QV_TYPE_NULL && qv_array_is_valid(a, i);
  bool vb = b->type.id != QV_TYPE_NULL && qv_array_is_valid(b, j);
  if (va != vb) {
    snprintf(why, n, "validity differs: %d vs %d", va, vb);
    return false;
  }
  if (!va) return true;
  int64_t x = a->offset + i, y = b->offset + j;
  switch (a->type.id) {
    case QV_TYPE_BOOL:
      if (qv_bit_get(a->buffers[1]->data, x) != qv_bit_get(b->buffers[1]->data, y)) {
        snprintf(why, n, "bool differs");
        return false;
      }
      return true;
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: {
      int32_t la, lb;
      const uint8_t *pa = qv_array_str(a, i, &la), *pb = qv_array_str(b, j, &lb);
      if (la != lb || memcmp(pa, pb, (size_t)la) != 0) {
        snprintf(why, n, "bytes differ (%d vs %d bytes)", la, lb);
        return false;
      }
      return true;
    }
    case QV_TYPE_LIST: {
      const int32_t *oa = (const int32_t *)a->buffers[1]->data, *ob = (const int32_t *)b->buffers[1]->data;
      int64_t la = oa[x + 1] - oa[x], lb = ob[y + 1] - ob[y];
      if (la != lb) {
        snprintf(why, n, "list lengths differ %lld vs %lld", (long long)la, (long long)lb);
        return false;
      }
      return arrays_equal_at(a->children[0], oa[x], b->children[0], ob[y], la, why, n);
    }
    case QV_TYPE_FIXED_SIZE_LIST: {
      int64_t s = a->type.list_size;
      return arrays_equal_at(a->children[0], x * s, b->children[0], y * s, s, why, n);
    }
    case QV_TYPE_STRUCT:
      for (int32_t c = 0; c < a->n_children; c++)
        if (!arrays_equal_at(a->children[c], x, b->children[c], y, 1, why, n)) return false;
      return true;
    default: {
      int w = qv_type_byte_width(a->type.id);
      if (memcmp(a->buffers[1]->data + x * w, b->buffers[1]->data + y * w, (size_t)w) != 0) {
        snprintf(why, n, "fixed-width value differs");
        return false;
      }
      return true;
    }
  }
}

#define assert_arrays_equal(a, ai, b, bi, len)                                                                 \
  do {                                                                                                         \
    char why_[512] = "";                                                                                       \
    assert_int_equal((a)->length >= (ai) + (len), 1);                                                          \
    assert_int_equal((b)->length >= (bi) + (len), 1);                                                          \
    if (!arrays_equal_at((a), (ai), (b), (bi), (len), why_, sizeof why_)) fail_msg("arrays differ: %s", why_); \
  } while (0)

#endif
