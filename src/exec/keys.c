/* Hash keys: the canonical encoding of key columns (so equal keys are equal
 * bytes, or equal int64 in integer mode) and the open-addressing table of
 * distinct keys that HashAggregateExec and HashJoinExec share.  Hashing is
 * XXH3 over the int64 or over the encoded bytes; nothing is boxed. */
#include <math.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "exec/exec_int.h"

bool qvx_key_type_int(const qv_datatype *t) { return qv_type_is_integer(t->id) || qv_type_is_temporal(t->id); }

bool qvx_key_type_ok(const qv_datatype *t) {
  if (qvx_key_type_int(t)) return true;
  switch (t->id) {
    case QV_TYPE_NULL:
    case QV_TYPE_BOOL:
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64:
    case QV_TYPE_DECIMAL128:
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: return true;
    case QV_TYPE_DICTIONARY: return t->n_children == 2 && qvx_key_type_ok(&t->children[1].type);
    default: return false;
  }
}

static inline double load_float(const qv_array *a, const void *v, int64_t i) {
  double d = qvx_load_float(a, v, i);
  if (d == 0) d = 0; /* -0.0 is 0.0 */
  if (isnan(d)) d = NAN;
  return d;
}

void qvx_keyset_reset(qvx_keyset *k) {
  qv_free(k->ints);
  qv_free(k->nulls);
  qv_free(k->offsets);
  qv_free(k->hashes);
  qv_buffer_reset(&k->bytes);
  memset(k, 0, sizeof *k);
}

static qv_status encode_int_mode(qvx_keyset *k, const qv_array *a, bool nan_null) {
  int64_t n = k->n;
  if (a->type.id == QV_TYPE_NULL) {
    memset(k->nulls, 1, (size_t)n);
    return QV_OK;
  }
  const void *v = qv_array_values(a);
  for (int64_t i = 0; i < n; i++) k->ints[i] = qvx_load_int(a, v, i);
  if (a->null_count > 0)
    for (int64_t i = 0; i < n; i++) k->nulls[i] = !qv_array_is_valid(a, i);
  for (int64_t i = 0; i < n; i++) k->hashes[i] = XXH3_64bits(&k->ints[i], sizeof k->ints[i]);
  (void)nan_null;
  return QV_OK;
}

static qv_status put(qv_buffer *b, const void *p, int64_t n) { return qv_buffer_append(b, p, n); }

static qv_status encode_value(qvx_keyset *k, const qv_array *a, const void *v, int64_t i, bool nan_null, bool *null) {
  uint8_t flag = a->type.id == QV_TYPE_NULL || !qv_array_is_valid(a, i);
  if (!flag && nan_null && qv_type_is_floating(a->type.id) && isnan(load_float(a, v, i))) flag = 1;
  *null |= flag;
  QV_RETURN_NOT_OK(put(&k->bytes, &flag, 1));
  if (flag) return QV_OK;
  if (qvx_key_type_int(&a->type)) {
    int64_t x = qvx_load_int(a, v, i);
    return put(&k->bytes, &x, 8);
  }
  switch (a->type.id) {
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64: {
      double d = load_float(a, v, i);
      return put(&k->bytes, &d, 8);
    }
    case QV_TYPE_BOOL: {
      uint8_t x = qv_bit_get(a->buffers[1]->data, a->offset + i);
      return put(&k->bytes, &x, 1);
    }
    case QV_TYPE_DECIMAL128: return put(&k->bytes, (const uint8_t *)v + 16 * i, 16);
    default: { /* string, binary */
      int32_t len;
      const uint8_t *s = qv_array_str(a, i, &len);
      QV_RETURN_NOT_OK(put(&k->bytes, &len, 4));
      return put(&k->bytes, s, len);
    }
  }
}

qv_status qvx_keyset_encode(qvx_keyset *k, qv_array *const *cols, int32_t n_cols, int64_t rows, bool force_bytes,
                            bool nan_null, qv_error *err) {
  qvx_keyset_reset(k);
  k->n = rows;
  k->int_mode = !force_bytes && n_cols == 1 && qvx_key_type_int(&cols[0]->type);
  size_t n = (size_t)(rows > 0 ? rows : 1);
  k->nulls = qv_calloc(n, 1);
  k->hashes = qv_malloc(n * sizeof *k->hashes);
  if (k->int_mode) k->ints = qv_malloc(n * sizeof *k->ints);
  else k->offsets = qv_malloc((n + 1) * sizeof *k->offsets);
  if (!k->nulls || !k->hashes || (k->int_mode ? !k->ints : !k->offsets)) goto nomem;
  if (k->int_mode) return encode_int_mode(k, cols[0], nan_null);
  const void *vals[64];
  if (n_cols > 64) return qv_error_set(err, QV_ERR_UNSUPPORTED, "exec: more than 64 key columns");
  for (int32_t c = 0; c < n_cols; c++) {
    int w = qv_type_byte_width(cols[c]->type.id);
    vals[c] = w > 0 && cols[c]->type.id != QV_TYPE_NULL ? qv_array_values(cols[c]) : NULL;
  }
  if (qv_buffer_reserve(&k->bytes, rows * (int64_t)n_cols * 9) != QV_OK) goto nomem;
  k->offsets[0] = 0;
  for (int64_t i = 0; i < rows; i++) {
    bool null = false;
    for (int32_t c = 0; c < n_cols; c++)
      if (encode_value(k, cols[c], vals[c], i, nan_null, &null) != QV_OK) goto nomem;
    k->nulls[i] = null;
    k->offsets[i + 1] = k->bytes.size;
  }
  for (int64_t i = 0; i < rows; i++)
    k->hashes[i] = XXH3_64bits(k->bytes.data + k->offsets[i], (size_t)(k->offsets[i + 1] - k->offsets[i]));
  return QV_OK;
nomem:
  qvx_keyset_reset(k);
  return qv_error_nomem(err, "exec: hash keys");
}

/* ---- the table ------------------------------------------------------------- */

qv_status qvx_hashtab_init(qvx_hashtab *t, bool int_mode, qv_error *err) {
  memset(t, 0, sizeof *t);
  t->int_mode = int_mode;
  t->cap = 1024;
  t->slots = qv_calloc((size_t)t->cap, sizeof *t->slots);
  if (!int_mode) t->offsets = qv_calloc(1, sizeof *t->offsets);
  if (!t->slots || (!int_mode && !t->offsets)) {
    qvx_hashtab_reset(t);
    return qv_error_nomem(err, "exec: hash table");
  }
  return QV_OK;
}

void qvx_hashtab_reset(qvx_hashtab *t) {
  qv_free(t->slots);
  qv_free(t->hashes);
  qv_free(t->ints);
  qv_free(t->offsets);
  qv_buffer_reset(&t->bytes);
  memset(t, 0, sizeof *t);
}

int64_t qvx_hashtab_bytes(const qvx_hashtab *t) {
  return t->cap * (int64_t)sizeof *t->slots + t->entries_cap * 16 + t->bytes.capacity;
}

static inline bool bytes_eq(const qvx_hashtab *t, int64_t e, const qvx_keyset *k, int64_t i) {
  int64_t a = t->offsets[e + 1] - t->offsets[e], b = k->offsets[i + 1] - k->offsets[i];
  return a == b && (a == 0 || memcmp(t->bytes.data + t->offsets[e], k->bytes.data + k->offsets[i], (size_t)a) == 0);
}

/* The slot of row i's key: its entry's, or the empty one it would take. */
static inline uint64_t probe(const qvx_hashtab *t, const qvx_keyset *k, int64_t i) {
  uint64_t h = k->hashes[i], mask = (uint64_t)t->cap - 1;
  if (t->int_mode) {
    uint64_t key = (uint64_t)k->ints[i];
    for (uint64_t pos = h & mask;; pos = (pos + 1) & mask) {
      const qvx_slot *s = &t->slots[pos];
      if (s->entry1 == 0 || s->key == key) return pos;
    }
  }
  for (uint64_t pos = h & mask;; pos = (pos + 1) & mask) {
    const qvx_slot *s = &t->slots[pos];
    if (s->entry1 == 0 || (s->key == h && bytes_eq(t, s->entry1 - 1, k, i))) return pos;
  }
}

int64_t qvx_hashtab_find(const qvx_hashtab *t, const qvx_keyset *k, int64_t i) {
  return (int64_t)t->slots[probe(t, k, i)].entry1 - 1;
}

static qv_status grow(qvx_hashtab *t, qv_error *err) {
  int64_t cap = t->cap * 2;
  qvx_slot *slots = qv_calloc((size_t)cap, sizeof *slots);
  if (!slots) return qv_error_nomem(err, "exec: hash table");
  uint64_t mask = (uint64_t)cap - 1;
  for (int64_t e = 0; e < t->n; e++) {
    uint64_t pos = t->hashes[e] & mask;
    while (slots[pos].entry1) pos = (pos + 1) & mask;
    slots[pos].key = t->int_mode ? (uint64_t)t->ints[e] : t->hashes[e];
    slots[pos].entry1 = (uint32_t)(e + 1);
  }
  qv_free(t->slots);
  t->slots = slots;
  t->cap = cap;
  return QV_OK;
}

static qv_status grow_entries(qvx_hashtab *t, qv_error *err) {
  int64_t cap = t->entries_cap ? t->entries_cap * 2 : 256;
  uint64_t *h = qv_realloc(t->hashes, (size_t)cap * sizeof *h);
  if (!h) return qv_error_nomem(err, "exec: hash table");
  t->hashes = h;
  if (t->int_mode) {
    int64_t *v = qv_realloc(t->ints, (size_t)cap * sizeof *v);
    if (!v) return qv_error_nomem(err, "exec: hash table");
    t->ints = v;
  } else {
    int64_t *o = qv_realloc(t->offsets, (size_t)(cap + 1) * sizeof *o);
    if (!o) return qv_error_nomem(err, "exec: hash table");
    t->offsets = o;
  }
  t->entries_cap = cap;
  return QV_OK;
}

qv_status qvx_hashtab_upsert(qvx_hashtab *t, const qvx_keyset *k, int64_t i, int64_t *entry, bool *inserted,
                             qv_error *err) {
  *inserted = false;
  if ((t->n + 1) * 2 > t->cap) QV_RETURN_NOT_OK(grow(t, err));
  uint64_t pos = probe(t, k, i);
  if (t->slots[pos].entry1) {
    *entry = t->slots[pos].entry1 - 1;
    return QV_OK;
  }
  if (t->n >= UINT32_MAX - 1) return qv_error_set(err, QV_ERR_OVERFLOW, "exec: more than 2^32 distinct keys");
  if (t->n == t->entries_cap) QV_RETURN_NOT_OK(grow_entries(t, err));
  int64_t e = t->n;
  uint64_t h = k->hashes[i];
  t->hashes[e] = h;
  if (t->int_mode) t->ints[e] = k->ints[i];
  else {
    int64_t len = k->offsets[i + 1] - k->offsets[i];
    if (qv_buffer_append(&t->bytes, k->bytes.data + k->offsets[i], len) != QV_OK)
      return qv_error_nomem(err, "exec: hash table");
    t->offsets[e + 1] = t->bytes.size;
  }
  t->slots[pos].key = t->int_mode ? (uint64_t)k->ints[i] : h;
  t->slots[pos].entry1 = (uint32_t)(e + 1);
  t->n++;
  *entry = e;
  *inserted = true;
  return QV_OK;
}
