/* IN: a hash set built once per evaluation from the list's values, probed
 * by every row.  Open addressing with linear probing over a power-of-two
 * table at most half full; keys are normalised into the probe column's
 * domain so that set membership is exactly `=` under the node's semantics:
 * - integers, bool and temporals: the value as a 64-bit pattern of the
 *   probe type (a list value outside the probe type's range, or not a whole
 *   number of its units, can never be equal and is left out);
 * - decimals: the 128-bit value at the probe's scale (inexact ones left out);
 * - floats, compared in float64: IEEE folds -0.0 into +0.0 and no NaN is
 *   ever found; TOTAL keeps the bits (-0.0 != +0.0, a NaN matches the same
 *   NaN); POLARS folds -0.0 and all NaNs together; JAVA folds all NaNs;
 * - strings and binary: the bytes.
 * Null semantics: SQL by default (x IN (..., NULL) is NULL when x is not
 * found; NULL IN (...) is NULL); with sem.in_list_nulls_ignored (Polars'
 * is_in) a NULL in the list is ignored (x not found is false; NULL x is
 * still NULL); with sem.in_nulls_equal (is_in with nulls_equal) a null x
 * is found exactly when the list holds a null, and the result is never
 * null.
 * 64-bit keys hash with murmur3's finalizer behind a one-bit-per-key
 * filter, 128-bit keys with inlined XXH3, byte keys with qv_hash64.  Integer probes first test the set's [min, max], which
 * turns away most rows of a clustered column without touching the table. */
#include <math.h>

#include "compute/compute_int.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

enum { K_INT, K_FLOAT, K_DEC, K_BYTES };

struct qvk_set {
  int kind;
  bool is_signed;    /* K_INT: probe values are signed */
  uint8_t order;     /* K_FLOAT */
  bool has_null;     /* the list holds a null */
  int64_t count;     /* distinct keys */
  uint64_t mask;     /* capacity - 1 */
  bool ranged;       /* K_INT: lo and span hold the keys' range */
  uint64_t *filter;  /* 64-bit keys: one bit per key at the top bits of mix_u64 */
  int filter_shift;  /* 64 - log2(filter bits) */
  uint64_t lo, span; /* the smallest key and max - min, in the probe's order */
  uint8_t *used;
  uint64_t *k0, *k1;  /* k1 for decimals */
  const uint8_t **bp; /* K_BYTES: borrowed from the list's scalars */
  int64_t *bl;
  qv_datatype probe;
};

/* The filter's hash: its top bits depend on every bit of k. */
static inline uint64_t mix_u64(uint64_t k) { return k * UINT64_C(0x9E3779B97F4A7C15); }
/* The table's hash (its low bits are used): murmur3's finalizer, so keys
 * that differ only in high bits (multiples of 2^40, row ids) still spread. */
static inline uint64_t hash_u64(uint64_t k) {
  k ^= k >> 33;
  k *= UINT64_C(0xff51afd7ed558ccd);
  k ^= k >> 33;
  k *= UINT64_C(0xc4ceb9fe1a85ec53);
  return k ^ (k >> 33);
}
static inline uint64_t hash_u128(uint64_t a, uint64_t b) {
  uint64_t k[2] = {a, b};
  return XXH3_64bits(k, 16);
}

/* Float key under an order; false when the value can never be found. */
static inline bool float_key(double x, uint8_t order, uint64_t *key) {
  if (x != x) {
    if (order == QV_FLOAT_IEEE) return false;
    if (order != QV_FLOAT_TOTAL) x = NAN;
  } else if (order == QV_FLOAT_IEEE || order == QV_FLOAT_POLARS) {
    x = x + 0.0; /* -0.0 -> +0.0 */
  }
  if (order != QV_FLOAT_TOTAL && x != x) {
    *key = UINT64_C(0x7ff8000000000000);
    return true;
  }
  memcpy(key, &x, 8);
  return true;
}

/* ---- inserting the list's values ------------------------------------------ */

static int64_t unit_exp(const qv_datatype *t) { return 3 * (int64_t)t->unit; }

/* The list value s in the probe's integer domain.  Returns 0 when it can
 * never be equal to a probe value, 1 when *v is set, -1 for a type error. */
static int int_value(const qv_datatype *probe, const qv_scalar *s, qvk_i128 *v) {
  qv_type_id p = probe->id, t = s->type.id;
  qvk_i128 x;
  if (p == QV_TYPE_BOOL) {
    if (t != QV_TYPE_BOOL) return -1;
    x = s->v.b;
  } else if (qv_type_is_integer(p)) {
    if (qv_type_is_integer(t)) {
      x = qvk_scalar_i128(s);
    } else if (t == QV_TYPE_DECIMAL128) {
      qvk_i128 d = qvk_scalar_i128(s), f = qvk_pow10_i128[s->type.scale < 0 ? 0 : s->type.scale];
      if (d % f != 0) return 0;
      x = d / f;
    } else if (qv_type_is_floating(t)) {
      double f = s->v.f;
      if (!(f >= -1.8446744073709552e19 && f <= 1.8446744073709552e19) || f != trunc(f)) return 0;
      x = (qvk_i128)f;
    } else {
      return -1;
    }
  } else if (p == QV_TYPE_DATE32) {
    if (t != QV_TYPE_DATE32) return -1;
    x = s->v.i;
  } else { /* timestamp, time64, duration: same kind, units converted exactly */
    if (t != p) return -1;
    if (p == QV_TYPE_TIMESTAMP && (probe->timezone == NULL) != (s->type.timezone == NULL)) return -1;
    int64_t d = unit_exp(probe) - unit_exp(&s->type);
    x = s->v.i;
    if (d > 0) x *= qvk_pow10_i128[d];
    else if (d < 0) {
      if (x % qvk_pow10_i128[-d] != 0) return 0;
      x /= qvk_pow10_i128[-d];
    }
  }
  qvk_i128 lo, hi; /* a bool probe's 0 or 1 is always inside */
  qvk_int_range(p, &lo, &hi);
  if (x < lo || x > hi) return 0;
  *v = x;
  return 1;
}

static int dec_value(const qv_datatype *probe, const qv_scalar *s, qvk_i128 *v) {
  qvk_i128 x;
  int sc;
  if (s->type.id == QV_TYPE_DECIMAL128) {
    x = qvk_scalar_i128(s);
    sc = s->type.scale;
  } else if (qv_type_is_integer(s->type.id)) {
    x = qvk_scalar_i128(s);
    sc = 0;
  } else {
    return -1;
  }
  int d = probe->scale - sc;
  if (d > 38 || d < -38) return 0;
  if (d > 0) {
    if (__builtin_mul_overflow(x, qvk_pow10_i128[d], &x)) return 0;
  } else if (d < 0) {
    if (x % qvk_pow10_i128[-d] != 0) return 0;
    x /= qvk_pow10_i128[-d];
  }
  *v = x;
  return 1;
}

static bool float_value(const qv_scalar *s, double *v) {
  if (qv_type_is_floating(s->type.id)) {
    *v = s->v.f;
    return true;
  }
  qvk_i128 x = qvk_scalar_i128(s);
  double f = (double)x;
  if (qv_type_is_integer(s->type.id) && f >= -1.8446744073709552e19 && f <= 1.8446744073709552e19 && (qvk_i128)f == x) {
    *v = f;
    return true;
  }
  *v = NAN; /* not exactly a double: never equal */
  return false;
}

/* The filter in front of the table: about 64 bits per key, so a key not
 * in the set (most probes of a selective IN) is turned away after one
 * multiplication and one load, with a branch that predicts well, instead
 * of a probe whose outcome does not. */
static inline bool filter_has(const qvk_set *s, uint64_t key) {
  uint64_t b = mix_u64(key) >> s->filter_shift;
  return (s->filter[b >> 6] >> (b & 63)) & 1;
}

static void insert(qvk_set *s, uint64_t h, uint64_t a, uint64_t b, const uint8_t *p, int64_t len) {
  if (s->filter) {
    uint64_t f = mix_u64(a) >> s->filter_shift;
    s->filter[f >> 6] |= (uint64_t)1 << (f & 63);
  }
  for (uint64_t i = h & s->mask;; i = (i + 1) & s->mask) {
    if (!s->used[i]) {
      s->used[i] = 1;
      s->k0[i] = a;
      s->k1[i] = b;
      s->bp[i] = p;
      s->bl[i] = len;
      s->count++;
      return;
    }
    if (s->kind == K_BYTES) {
      if (s->bl[i] == len && memcmp(s->bp[i], p, (size_t)len) == 0) return;
    } else if (s->k0[i] == a && s->k1[i] == b) {
      return;
    }
  }
}

/* Grows [lo, lo + span] to hold key k, compared as signed or unsigned as
 * the probe's values are (so `k - lo <= span` in uint64 is the test). */
static void widen_range(qvk_set *s, uint64_t k) {
  if (!s->ranged) {
    s->ranged = true;
    s->lo = k;
    return;
  }
  uint64_t hi = s->lo + s->span;
  bool below = s->is_signed ? (int64_t)k < (int64_t)s->lo : k < s->lo;
  bool above = s->is_signed ? (int64_t)k > (int64_t)hi : k > hi;
  if (below) s->lo = k;
  if (above) hi = k;
  s->span = hi - s->lo;
}

void qvk_set_destroy(qvk_set *s) {
  if (!s) return;
  qv_free(s->used);
  qv_free(s->k0);
  qv_free(s->k1);
  qv_free((void *)s->bp);
  qv_free(s->bl);
  qv_free(s->filter);
  qv_datatype_reset(&s->probe);
  qv_free(s);
}

bool qvk_set_has_null(const qvk_set *s) { return s->has_null; }

qv_status qvk_set_build(const qv_datatype *probe_type, uint8_t float_order, const qv_scalar *const *items,
                        int64_t n_items, qvk_set **out, qv_error *err) {
  qv_type_id p = probe_type->id;
  int kind;
  if (p == QV_TYPE_STRING || p == QV_TYPE_BINARY) kind = K_BYTES;
  else if (qv_type_is_floating(p)) kind = K_FLOAT;
  else if (p == QV_TYPE_DECIMAL128) kind = K_DEC;
  else if (p == QV_TYPE_BOOL || qv_type_is_integer(p) || qv_type_is_temporal(p)) kind = K_INT;
  else {
    char tb[64];
    return qv_error_set(err, QV_ERR_TYPE, "IN: cannot look up %s values", qvk_type_name(probe_type, tb, sizeof tb));
  }
  uint64_t cap = 8;
  while (cap < (uint64_t)n_items * 2) cap <<= 1;
  qvk_set *s = qv_calloc(1, sizeof *s);
  if (!s) return qv_error_nomem(err, "IN");
  s->kind = kind;
  s->order = float_order;
  s->is_signed = qv_type_is_signed(p) || (qv_type_is_temporal(p));
  s->mask = cap - 1;
  s->used = qv_calloc(cap, 1);
  s->k0 = qv_calloc(cap, 8);
  s->k1 = qv_calloc(cap, 8);
  s->bp = qv_calloc(cap, sizeof *s->bp);
  s->bl = qv_calloc(cap, sizeof *s->bl);
  bool filtered = kind == K_INT || kind == K_FLOAT;
  if (filtered) {
    int bits = 9; /* 512 bits at least, 64 per item, 1 Mi at most */
    while (bits < 20 && ((uint64_t)1 << bits) < (uint64_t)n_items * 64) bits++;
    s->filter_shift = 64 - bits;
    s->filter = qv_calloc((size_t)1 << (bits - 6), 8);
  }
  if (!s->used || !s->k0 || !s->k1 || !s->bp || !s->bl || (filtered && !s->filter) ||
      qv_datatype_copy(probe_type, &s->probe) != QV_OK) {
    qvk_set_destroy(s);
    return qv_error_set(err, QV_ERR_NOMEM, "IN: out of memory for %lld values", (long long)n_items);
  }
  for (int64_t k = 0; k < n_items; k++) {
    const qv_scalar *it = items[k];
    if (it->is_null || it->type.id == QV_TYPE_NULL) {
      s->has_null = true;
      continue;
    }
    int ok = 1;
    qvk_i128 v = 0;
    switch (kind) {
      case K_BYTES:
        if (it->type.id != QV_TYPE_STRING && it->type.id != QV_TYPE_BINARY) ok = -1;
        else
          insert(s, qv_hash64(it->bytes ? it->bytes : (const uint8_t *)"", (size_t)it->len, 0), 0, 0,
                 it->bytes ? it->bytes : (const uint8_t *)"", it->len);
        break;
      case K_FLOAT: {
        double f;
        uint64_t key;
        if (!qv_type_is_numeric(it->type.id) || it->type.id == QV_TYPE_DECIMAL128) ok = -1;
        else if (float_value(it, &f) && float_key(f, float_order, &key)) insert(s, hash_u64(key), key, 0, NULL, 0);
        break;
      }
      case K_DEC:
        ok = dec_value(probe_type, it, &v);
        if (ok == 1) insert(s, hash_u128((uint64_t)v, (uint64_t)(v >> 64)), (uint64_t)v, (uint64_t)(v >> 64), NULL, 0);
        break;
      default:
        ok = int_value(probe_type, it, &v);
        if (ok == 1) {
          insert(s, hash_u64((uint64_t)v), (uint64_t)v, 0, NULL, 0);
          widen_range(s, (uint64_t)v);
        }
        break;
    }
    if (ok < 0) {
      char t1[64], t2[64];
      qvk_set_destroy(s);
      return qv_error_set(err, QV_ERR_TYPE, "IN: cannot look up %s in a list of %s",
                          qvk_type_name(probe_type, t1, sizeof t1), qvk_type_name(&it->type, t2, sizeof t2));
    }
  }
  *out = s;
  return QV_OK;
}

/* ---- probing ----------------------------------------------------------------- */

static inline bool find64(const qvk_set *s, uint64_t key) {
  if (!filter_has(s, key)) return false;
  for (uint64_t i = hash_u64(key) & s->mask;; i = (i + 1) & s->mask) {
    if (!s->used[i]) return false;
    if (s->k0[i] == key) return true;
  }
}

static inline bool find_int(const qvk_set *s, uint64_t key) { return key - s->lo <= s->span && find64(s, key); }

static inline bool find128(const qvk_set *s, uint64_t a, uint64_t b) {
  for (uint64_t i = hash_u128(a, b) & s->mask;; i = (i + 1) & s->mask) {
    if (!s->used[i]) return false;
    if (s->k0[i] == a && s->k1[i] == b) return true;
  }
}

static inline bool find_bytes(const qvk_set *s, const uint8_t *p, int64_t len) {
  for (uint64_t i = qv_hash64(p, (size_t)len, 0) & s->mask;; i = (i + 1) & s->mask) {
    if (!s->used[i]) return false;
    if (s->bl[i] == len && memcmp(s->bp[i], p, (size_t)len) == 0) return true;
  }
}

static inline bool find_float(const qvk_set *s, double x) {
  uint64_t key;
  return float_key(x, s->order, &key) && find64(s, key);
}

static inline bool find_dec(const qvk_set *s, const uint8_t *v, int64_t r) {
  uint64_t lo, hi;
  memcpy(&lo, v + 16 * r, 8);
  memcpy(&hi, v + 16 * r + 8, 8);
  return find128(s, lo, hi);
}

/* Probes every row, reading row i through idx or directly; F(r) looks up
 * element r. */
#define PROBE(F)                   \
  do {                             \
    if (idx) {                     \
      QVK_LOOP(n, out, F(idx[i])); \
    } else {                       \
      QVK_LOOP(n, out, F(i));      \
    }                              \
  } while (0)

qv_status qvk_set_probe(const qvk_set *s, const qvk_datum *probe, int64_t n, uint64_t *out, qv_error *err) {
  const qv_array *a = probe->array;
  const uint32_t *idx = probe->idx;
  if (s->count == 0) {
    qvk_fill(out, n, false);
    return QV_OK;
  }
  const void *vp = a->type.id == QV_TYPE_BOOL ? NULL : (s->kind == K_BYTES ? NULL : qv_array_values(a));
  switch (a->type.id) {
    case QV_TYPE_BOOL: {
      const uint8_t *bits = a->buffers[1]->data;
      int64_t off = a->offset;
#define F(r) find64(s, qv_bit_get(bits, off + (r)))
      PROBE(F);
#undef F
      break;
    }
#define INT_CASE(ID, T) \
  case ID: {            \
    const T *v = vp;    \
    PROBE(F);           \
    break;              \
  }
#define F(r) find_int(s, (uint64_t)(int64_t)v[r])
      INT_CASE(QV_TYPE_INT8, int8_t)
      INT_CASE(QV_TYPE_INT16, int16_t)
      INT_CASE(QV_TYPE_INT32, int32_t)
      INT_CASE(QV_TYPE_DATE32, int32_t)
#undef F
#define F(r) find_int(s, (uint64_t)v[r])
      INT_CASE(QV_TYPE_UINT8, uint8_t)
      INT_CASE(QV_TYPE_UINT16, uint16_t)
      INT_CASE(QV_TYPE_UINT32, uint32_t)
      INT_CASE(QV_TYPE_INT64, uint64_t)
      INT_CASE(QV_TYPE_UINT64, uint64_t)
      INT_CASE(QV_TYPE_TIMESTAMP, uint64_t)
      INT_CASE(QV_TYPE_TIME64, uint64_t)
      INT_CASE(QV_TYPE_DURATION, uint64_t)
#undef F
#define F(r) find_float(s, (double)v[r])
      INT_CASE(QV_TYPE_FLOAT32, float)
      INT_CASE(QV_TYPE_FLOAT64, double)
#undef F
#define F(r) find_dec(s, v, r)
      INT_CASE(QV_TYPE_DECIMAL128, uint8_t)
#undef F
#undef INT_CASE
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: {
      const int32_t *o = qv_array_offsets(a);
      const uint8_t *d = a->buffers[2] ? a->buffers[2]->data : (const uint8_t *)"";
#define F(r) find_bytes(s, d + o[r], o[(r) + 1] - o[r])
      PROBE(F);
#undef F
      break;
    }
    default: {
      char tb[64];
      return qv_error_set(err, QV_ERR_TYPE, "IN: cannot look up %s values", qvk_type_name(&a->type, tb, sizeof tb));
    }
  }
  return QV_OK;
}

/* ---- the IN operator ------------------------------------------------------------ */

/* x IN (items) as an OR of equalities, for lists holding non-constant values. */
static qv_status in_as_or(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->sem.in_nulls_equal)
    return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "IN: a list with non-constant values and nulls_equal");
  for (int32_t k = 0; k < e->n_args; k++) QV_RETURN_NOT_OK(qvk_datum_dense(c, &args[k]));
  qv_array *acc = NULL;
  for (int32_t k = 1; k < e->n_args; k++) {
    qv_array *eq = NULL;
    QV_RETURN_NOT_OK(qvk_compare(QV_OP_EQ, e->sem.float_order, &args[0], &args[k], c->n, &eq, c->err));
    if (!acc) {
      acc = eq;
      continue;
    }
    qvk_datum da = QVK_DATUM_INIT, db = QVK_DATUM_INIT;
    da.array = acc;
    db.array = eq;
    qv_array *r = NULL;
    qv_status st = qvk_kleene(QV_OP_OR, &da, &db, c->n, &r, c->err);
    qv_array_release(acc);
    qv_array_release(eq);
    if (st != QV_OK) return st;
    acc = r;
  }
  qvk_datum_set_array(out, acc);
  return QV_OK;
}

qv_status qvk_op_in(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args < 1) return qv_error_set(c->err, QV_ERR_INVALID, "IN needs a value");
  qvk_datum *x = &args[0];
  int64_t n = c->n, nb = qvk_words(n) * 8;
  /* The list: the scalar arguments, or the items of one list literal. */
  int64_t n_items = e->n_args - 1;
  bool from_list = n_items == 1 && args[1].scalar && args[1].scalar->type.id == QV_TYPE_LIST &&
                   !args[1].scalar->is_null && args[1].scalar->list;
  for (int32_t k = 1; k < e->n_args; k++)
    if (!args[k].scalar) return in_as_or(c, e, args, out);
  qv_scalar *list_items = NULL;
  const qv_scalar **items = NULL;
  qvk_set *set = NULL;
  qv_bytes *values = NULL, *validity = NULL;
  qv_status st = QV_OK;
  if (from_list) {
    const qv_array *l = args[1].scalar->list;
    n_items = l->length;
    list_items = qv_calloc((size_t)(n_items ? n_items : 1), sizeof *list_items);
    if (!list_items) return qv_error_nomem(c->err, "IN");
    for (int64_t k = 0; k < n_items && st == QV_OK; k++) st = qv_scalar_from_array(l, k, &list_items[k], c->err);
  }
  items = qv_malloc((size_t)(n_items ? n_items : 1) * sizeof *items);
  if (!items) st = qv_error_nomem(c->err, "IN");
  if (st != QV_OK) goto cleanup;
  for (int64_t k = 0; k < n_items; k++) items[k] = from_list ? &list_items[k] : args[k + 1].scalar;
  if (x->scalar) { /* constant folding: one row */
    st = qvk_datum_array(c, x);
    if (st != QV_OK) goto cleanup;
  }
  if (x->array->type.id == QV_TYPE_NULL) {
    /* every x is null: null (SQL), or whether the list holds a null */
    bool any_null = false;
    for (int64_t k = 0; k < n_items; k++) any_null |= items[k]->is_null || items[k]->type.id == QV_TYPE_NULL;
    qv_scalar r = qv_scalar_bool(any_null);
    r.is_null = !e->sem.in_nulls_equal;
    qvk_datum_set_scalar(out, &r);
    goto cleanup;
  }
  st = qvk_set_build(&x->array->type, e->sem.float_order, items, n_items, &set, c->err);
  if (st != QV_OK) goto cleanup;
  values = qvk_bytes(nb, c->err);
  validity = values ? qvk_bytes(nb, c->err) : NULL;
  if (!validity) {
    st = QV_ERR_NOMEM;
    goto cleanup;
  }
  uint64_t *v = (uint64_t *)qv_bytes_mutable(values), *m = (uint64_t *)qv_bytes_mutable(validity);
  st = qvk_set_probe(set, x, n, v, c->err);
  if (st != QV_OK) goto cleanup;
  if (!qvk_validity_words(x, n, m)) qvk_fill(m, n, true);
  for (int64_t w = 0; w < qvk_words(n); w++) {
    uint64_t found = v[w] & m[w];
    if (e->sem.in_nulls_equal) {
      v[w] = found | (set->has_null ? ~m[w] : 0);
      m[w] = ~(uint64_t)0;
    } else {
      v[w] = found;
      if (set->has_null && !e->sem.in_list_nulls_ignored) m[w] &= found;
    }
  }
  if (n & 63) {
    v[qvk_words(n) - 1] &= ((uint64_t)1 << (n & 63)) - 1;
    m[qvk_words(n) - 1] &= ((uint64_t)1 << (n & 63)) - 1;
  }
  {
    qv_array *r = NULL;
    st = qvk_bool_result(n, values, validity, &r, c->err);
    values = validity = NULL;
    if (st == QV_OK) qvk_datum_set_array(out, r);
  }
cleanup:
  qv_bytes_release(values);
  qv_bytes_release(validity);
  qvk_set_destroy(set);
  if (list_items)
    for (int64_t k = 0; k < n_items; k++) qv_scalar_reset(&list_items[k]);
  qv_free(list_items);
  qv_free((void *)items);
  return st;
}
