/* Record batches and batch readers. */
#include "quiver/columnar.h"

#include <string.h>

qv_status qv_batch_make(const qv_schema *schema, qv_array **columns, int64_t num_rows, qv_batch **out, qv_error *err) {
  qv_status st = QV_OK;
  for (int32_t i = 0; i < schema->n_fields; i++) {
    if (!columns[i] || columns[i]->length != num_rows) {
      st = qv_error_set(err, QV_ERR_INVALID, "batch: column `%s` has %lld rows, expected %lld", schema->fields[i].name,
                        columns[i] ? (long long)columns[i]->length : -1LL, (long long)num_rows);
      goto cleanup;
    }
  }
  qv_batch *b = qv_calloc(1, sizeof *b);
  if (!b) goto nomem;
  if (qv_schema_copy(schema, &b->schema) != QV_OK) {
    qv_free(b);
    goto nomem;
  }
  b->columns = qv_calloc(schema->n_fields > 0 ? (size_t)schema->n_fields : 1, sizeof *b->columns);
  if (!b->columns) {
    qv_schema_reset(&b->schema);
    qv_free(b);
    goto nomem;
  }
  if (schema->n_fields > 0) memcpy(b->columns, columns, (size_t)schema->n_fields * sizeof *columns);
  b->num_rows = num_rows;
  b->refcount = 1;
  *out = b;
  return QV_OK;
nomem:
  st = qv_error_nomem(err, NULL);
cleanup:
  for (int32_t i = 0; i < schema->n_fields; i++) qv_array_release(columns[i]);
  return st;
}

qv_batch *qv_batch_retain(qv_batch *b) {
  if (b) __atomic_fetch_add(&b->refcount, 1, __ATOMIC_RELAXED); /* see qv_bytes_retain */
  return b;
}

void qv_batch_release(qv_batch *b) {
  if (!b || __atomic_sub_fetch(&b->refcount, 1, __ATOMIC_ACQ_REL) > 0) return;
  for (int32_t i = 0; i < b->schema.n_fields; i++) qv_array_release(b->columns[i]);
  qv_free(b->columns);
  qv_schema_reset(&b->schema);
  qv_free(b);
}

qv_status qv_batch_project(const qv_batch *b, const int32_t *cols, int32_t n, qv_batch **out, qv_error *err) {
  qv_schema s = QV_SCHEMA_INIT;
  qv_array **arrays = qv_calloc(n > 0 ? (size_t)n : 1, sizeof *arrays);
  if (!arrays) return qv_error_nomem(err, NULL);
  qv_status st = QV_OK;
  for (int32_t i = 0; i < n; i++) {
    if (cols[i] < 0 || cols[i] >= b->schema.n_fields) {
      st = qv_error_set(err, QV_ERR_INVALID, "project: no column %d", cols[i]);
      goto cleanup;
    }
    if ((st = qv_schema_add(&s, &b->schema.fields[cols[i]], err)) != QV_OK) goto cleanup;
  }
  for (int32_t i = 0; i < n; i++) arrays[i] = qv_array_retain(b->columns[cols[i]]);
  st = qv_batch_make(&s, arrays, b->num_rows, out, err);
cleanup:
  qv_schema_reset(&s);
  qv_free(arrays);
  return st;
}

qv_status qv_batch_slice(const qv_batch *b, int64_t offset, int64_t length, qv_batch **out, qv_error *err) {
  int32_t n = b->schema.n_fields;
  qv_array **arrays = qv_calloc(n > 0 ? (size_t)n : 1, sizeof *arrays);
  if (!arrays) return qv_error_nomem(err, NULL);
  for (int32_t i = 0; i < n; i++) {
    qv_status st = qv_array_slice(b->columns[i], offset, length, &arrays[i], err);
    if (st != QV_OK) {
      for (int32_t k = 0; k < i; k++) qv_array_release(arrays[k]);
      qv_free(arrays);
      return st;
    }
  }
  qv_status st = qv_batch_make(&b->schema, arrays, length, out, err);
  qv_free(arrays);
  return st;
}

void qv_batch_reader_destroy(qv_batch_reader *r) {
  if (r) r->destroy(r);
}

typedef struct memory_reader {
  qv_schema schema;
  qv_batch **batches;
  int32_t n, next;
} memory_reader;

static qv_status memory_next(qv_batch_reader *r, qv_batch **out, qv_error *err) {
  (void)err;
  memory_reader *m = r->private_data;
  *out = m->next < m->n ? qv_batch_retain(m->batches[m->next++]) : NULL;
  return QV_OK;
}

static const qv_schema *memory_schema(qv_batch_reader *r) { return &((memory_reader *)r->private_data)->schema; }

static void memory_destroy(qv_batch_reader *r) {
  memory_reader *m = r->private_data;
  for (int32_t i = 0; i < m->n; i++) qv_batch_release(m->batches[i]);
  qv_free(m->batches);
  qv_schema_reset(&m->schema);
  qv_free(m);
  qv_free(r);
}

qv_status qv_batch_reader_from_batches(const qv_schema *schema, qv_batch *const *batches, int32_t n,
                                       qv_batch_reader **out, qv_error *err) {
  qv_batch_reader *r = qv_calloc(1, sizeof *r);
  memory_reader *m = qv_calloc(1, sizeof *m);
  if (m) m->batches = qv_calloc(n > 0 ? (size_t)n : 1, sizeof *m->batches);
  if (!r || !m || !m->batches || qv_schema_copy(schema, &m->schema) != QV_OK) {
    if (m) qv_free(m->batches);
    qv_free(m);
    qv_free(r);
    return qv_error_nomem(err, NULL);
  }
  for (int32_t i = 0; i < n; i++) {
    if (!qv_schema_equal(&batches[i]->schema, schema)) {
      for (int32_t k = 0; k < i; k++) qv_batch_release(m->batches[k]);
      qv_free(m->batches);
      qv_schema_reset(&m->schema);
      qv_free(m);
      qv_free(r);
      return qv_error_set(err, QV_ERR_TYPE, "batch %d does not have the reader's schema", i);
    }
    m->batches[i] = qv_batch_retain(batches[i]);
  }
  m->n = n;
  r->next = memory_next;
  r->schema = memory_schema;
  r->destroy = memory_destroy;
  r->private_data = m;
  *out = r;
  return QV_OK;
}
