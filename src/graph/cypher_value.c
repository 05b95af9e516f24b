/* Cypher values: the arena, maps, the canonical encoding of VALUE columns,
 * conversion from and to Arrow columns.  Comparison, sort keys and text
 * live in cypher_order.c and cypher_text.c.
 *
 * The encoding is one tag byte per value, then its payload:
 *
 *   NULL 0x00 (only nested)  FALSE 0x01  TRUE 0x02
 *   INT 0x03 int64 LE        FLOAT 0x04 float64 LE (-0.0 written as 0.0,
 *                                       every NaN as 0x7ff8000000000000)
 *   STRING 0x05 u32 LE length, UTF-8 bytes
 *   LIST 0x06 / PATH 0x0a u32 LE count, the items
 *   MAP 0x07 u32 LE count, per entry u32 LE key length, key, value
 *            (keys strictly ascending by bytes)
 *   NODE 0x08 / REL 0x09 int64 LE id
 *
 * Canonical: maps are sorted and duplicate-free by construction, floats
 * have one zero and one NaN, so equivalent values encode to equal bytes.
 * Integers and floats keep their tags (1 and 1.0 differ): a VALUE column
 * must give back the type it was given. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/cypher_value_int.h"

/* ---- arena ------------------------------------------------------------- */

struct qvg_arena_chunk {
  qvg_arena_chunk *next;
  size_t size; /* bytes of data */
  max_align_t data[];
};

#define ARENA_FIRST 4096u
#define ARENA_MAX 1048576u

void *qvg_arena_alloc(qvg_arena *a, size_t size) {
  size = (size + 7u) & ~(size_t)7u;
  if (size == 0) size = 8;
  if (a->head && a->head->size - a->used_in_head >= size) {
    void *p = (char *)a->head->data + a->used_in_head;
    a->used_in_head += size;
    return p;
  }
  size_t want = a->head ? a->head->size * 2 : ARENA_FIRST;
  if (want > ARENA_MAX) want = ARENA_MAX;
  if (want < size) want = size;
  if (want > SIZE_MAX - sizeof(qvg_arena_chunk)) return NULL;
  qvg_arena_chunk *c = qv_malloc(sizeof *c + want);
  if (!c) return NULL;
  c->size = want;
  c->next = a->head;
  a->head = c;
  a->used_in_head = size;
  a->bytes += (int64_t)want;
  return c->data;
}

void qvg_arena_clear(qvg_arena *a) {
  if (!a->head) return;
  /* keep the newest chunk: chunks grow, so it is the largest */
  qvg_arena_chunk *c = a->head->next;
  while (c) {
    qvg_arena_chunk *n = c->next;
    qv_free(c);
    c = n;
  }
  a->head->next = NULL;
  a->used_in_head = 0;
  a->bytes = (int64_t)a->head->size;
}

void qvg_arena_free(qvg_arena *a) {
  qvg_arena_chunk *c = a->head;
  while (c) {
    qvg_arena_chunk *n = c->next;
    qv_free(c);
    c = n;
  }
  a->head = NULL;
  a->used_in_head = 0;
  a->bytes = 0;
}

/* ---- maps ---------------------------------------------------------------- */

int qvg_key_cmp(const char *a, int32_t na, const char *b, int32_t nb) {
  int32_t n = na < nb ? na : nb;
  int c = n > 0 ? memcmp(a, b, (size_t)n) : 0;
  if (c) return c;
  return na < nb ? -1 : na > nb;
}

typedef struct keyed {
  const qvg_entry *e;
  int32_t at;
} keyed;

static int keyed_cmp(const void *x, const void *y) {
  const keyed *a = x, *b = y;
  int c = qvg_key_cmp(a->e->key, a->e->klen, b->e->key, b->e->klen);
  return c ? c : (a->at > b->at) - (a->at < b->at);
}

qv_status qvg_map_make(qvg_arena *a, const qvg_entry *entries, int32_t n, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  if (n < 0) return qv_error_set(err, QV_ERR_INVALID, "cypher: map with %d entries", (int)n);
  keyed *tmp = n > 0 ? qv_malloc((size_t)n * sizeof *tmp) : NULL;
  qvg_entry *m = qvg_arena_alloc(a, (size_t)(n > 0 ? n : 1) * sizeof *m);
  if ((n > 0 && !tmp) || !m) {
    qv_free(tmp);
    return qv_error_nomem(err, "cypher: map");
  }
  for (int32_t i = 0; i < n; i++) tmp[i] = (keyed){&entries[i], i};
  if (n > 1) qsort(tmp, (size_t)n, sizeof *tmp, keyed_cmp);
  int32_t k = 0;
  qv_status st = QV_OK;
  for (int32_t i = 0; i < n; i++) {
    /* of equal keys the last written wins: skip all but the last of a run */
    if (i + 1 < n && qvg_key_cmp(tmp[i].e->key, tmp[i].e->klen, tmp[i + 1].e->key, tmp[i + 1].e->klen) == 0) continue;
    int32_t kl = tmp[i].e->klen;
    char *key = qvg_arena_alloc(a, (size_t)kl + 1);
    if (!key) {
      st = qv_error_nomem(err, "cypher: map");
      break;
    }
    if (kl > 0) memcpy(key, tmp[i].e->key, (size_t)kl);
    key[kl] = '\0';
    m[k].key = key;
    m[k].klen = kl;
    m[k].v = tmp[i].e->v;
    k++;
  }
  qv_free(tmp);
  if (st != QV_OK) return st;
  out->t = QVG_V_MAP;
  out->n = k;
  out->u.m = m;
  return QV_OK;
}

const qvg_val *qvg_map_get(const qvg_val *map, const char *key, int32_t klen) {
  if (map->t != QVG_V_MAP) return NULL;
  int32_t lo = 0, hi = map->n;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    int c = qvg_key_cmp(map->u.m[mid].key, map->u.m[mid].klen, key, klen);
    if (c == 0) return &map->u.m[mid].v;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

/* ---- encoding ------------------------------------------------------------ */

enum { T_NULL = 0, T_FALSE, T_TRUE, T_INT, T_FLOAT, T_STRING, T_LIST, T_MAP, T_NODE, T_REL, T_PATH };

static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

uint64_t qvg_float_bits(double f) {
  if (isnan(f)) return UINT64_C(0x7ff8000000000000);
  if (f == 0) return 0; /* -0.0 is 0.0 */
  uint64_t u;
  memcpy(&u, &f, 8);
  return u;
}

static qv_status enc(const qvg_val *v, qv_buffer *out, int depth, qv_error *err) {
  if (depth > QVG_VAL_MAX_DEPTH)
    return qv_error_set(err, QV_ERR_INVALID, "cypher: value nested deeper than %d levels", QVG_VAL_MAX_DEPTH);
  uint8_t h[9];
  size_t hn = 1;
  switch (v->t) {
    case QVG_V_NULL: h[0] = T_NULL; break;
    case QVG_V_BOOL: h[0] = v->u.b ? T_TRUE : T_FALSE; break;
    case QVG_V_INT:
    case QVG_V_NODE:
    case QVG_V_REL:
      h[0] = v->t == QVG_V_INT ? T_INT : v->t == QVG_V_NODE ? T_NODE : T_REL;
      put_u64(h + 1, (uint64_t)v->u.i);
      hn = 9;
      break;
    case QVG_V_FLOAT:
      h[0] = T_FLOAT;
      put_u64(h + 1, qvg_float_bits(v->u.f));
      hn = 9;
      break;
    case QVG_V_STRING:
    case QVG_V_LIST:
    case QVG_V_MAP:
    case QVG_V_PATH:
      if (v->n < 0) return qv_error_set(err, QV_ERR_INVALID, "cypher: value with a negative size");
      h[0] = v->t == QVG_V_STRING ? T_STRING : v->t == QVG_V_LIST ? T_LIST : v->t == QVG_V_MAP ? T_MAP : T_PATH;
      put_u32(h + 1, (uint32_t)v->n);
      hn = 5;
      break;
    default: return qv_error_set(err, QV_ERR_INVALID, "cypher: value of unknown type %d", (int)v->t);
  }
  if (qv_buffer_append(out, h, (int64_t)hn) != QV_OK) return qv_error_nomem(err, "cypher: encoding a value");
  switch (v->t) {
    case QVG_V_STRING:
      if (qv_buffer_append(out, v->u.s, v->n) != QV_OK) return qv_error_nomem(err, "cypher: encoding a value");
      break;
    case QVG_V_LIST:
    case QVG_V_PATH:
      for (int32_t i = 0; i < v->n; i++) QV_RETURN_NOT_OK(enc(&v->u.l[i], out, depth + 1, err));
      break;
    case QVG_V_MAP:
      for (int32_t i = 0; i < v->n; i++) {
        uint8_t k[4];
        put_u32(k, (uint32_t)v->u.m[i].klen);
        if (qv_buffer_append(out, k, 4) != QV_OK || qv_buffer_append(out, v->u.m[i].key, v->u.m[i].klen) != QV_OK)
          return qv_error_nomem(err, "cypher: encoding a value");
        QV_RETURN_NOT_OK(enc(&v->u.m[i].v, out, depth + 1, err));
      }
      break;
    default: break;
  }
  return QV_OK;
}

qv_status qvg_val_encode(const qvg_val *v, qv_buffer *out, qv_error *err) {
  if (v->t == QVG_V_NULL)
    return qv_error_set(err, QV_ERR_INVALID, "cypher: a null value is a null slot, not an encoding");
  return enc(v, out, 0, err);
}

typedef struct dec_state {
  const uint8_t *p, *end;
  qvg_arena *a;
  qv_error *err;
} dec_state;

static qv_status corrupt(dec_state *d, const char *what) {
  return qv_error_set(d->err, QV_ERR_CORRUPT, "cypher: malformed value encoding: %s", what);
}

static qv_status dec(dec_state *d, qvg_val *out, int depth) {
  if (depth > QVG_VAL_MAX_DEPTH) return corrupt(d, "nested too deep");
  if (d->p >= d->end) return corrupt(d, "truncated");
  uint8_t tag = *d->p++;
  size_t left = (size_t)(d->end - d->p);
  switch (tag) {
    case T_NULL: *out = qvg_null(); return QV_OK;
    case T_FALSE:
    case T_TRUE: *out = qvg_bool(tag == T_TRUE); return QV_OK;
    case T_INT:
    case T_FLOAT:
    case T_NODE:
    case T_REL: {
      if (left < 8) return corrupt(d, "truncated number");
      uint64_t u = get_u64(d->p);
      d->p += 8;
      if (tag == T_FLOAT) {
        double f;
        memcpy(&f, &u, 8);
        /* one encoding per value: no -0.0, no second NaN */
        if (qvg_float_bits(f) != u) return corrupt(d, "float not in canonical form");
        *out = qvg_float(f);
      } else {
        *out = qvg_int((int64_t)u);
        out->t = tag == T_INT ? QVG_V_INT : tag == T_NODE ? QVG_V_NODE : QVG_V_REL;
      }
      return QV_OK;
    }
    case T_STRING: {
      if (left < 4) return corrupt(d, "truncated string length");
      uint32_t n = get_u32(d->p);
      d->p += 4;
      if (n > left - 4 || n > INT32_MAX) return corrupt(d, "string longer than the value");
      if (qv_utf8_valid_prefix(d->p, n) != (int64_t)n) return corrupt(d, "string is not UTF-8");
      *out = qvg_string((const char *)d->p, (int32_t)n);
      d->p += n;
      return QV_OK;
    }
    case T_LIST:
    case T_PATH:
    case T_MAP: {
      if (left < 4) return corrupt(d, "truncated count");
      uint32_t n = get_u32(d->p);
      d->p += 4;
      /* every item takes at least one byte (a map entry five): bound the
       * allocation by the bytes there are */
      if (n > (left - 4) / (tag == T_MAP ? 5u : 1u)) return corrupt(d, "count larger than the value");
      out->n = (int32_t)n;
      if (tag == T_MAP) {
        qvg_entry *m = qvg_arena_alloc(d->a, (size_t)(n ? n : 1) * sizeof *m);
        if (!m) return qv_error_nomem(d->err, "cypher: decoding a value");
        for (uint32_t i = 0; i < n; i++) {
          if (d->end - d->p < 4) return corrupt(d, "truncated key length");
          uint32_t kl = get_u32(d->p);
          d->p += 4;
          if (kl > (size_t)(d->end - d->p)) return corrupt(d, "key longer than the value");
          if (qv_utf8_valid_prefix(d->p, kl) != (int64_t)kl) return corrupt(d, "key is not UTF-8");
          m[i].key = (const char *)d->p;
          m[i].klen = (int32_t)kl;
          d->p += kl;
          if (i > 0 && qvg_key_cmp(m[i - 1].key, m[i - 1].klen, m[i].key, m[i].klen) >= 0)
            return corrupt(d, "map keys not strictly ascending");
          QV_RETURN_NOT_OK(dec(d, &m[i].v, depth + 1));
        }
        out->t = QVG_V_MAP;
        out->u.m = m;
        return QV_OK;
      }
      qvg_val *l = qvg_arena_alloc(d->a, (size_t)(n ? n : 1) * sizeof *l);
      if (!l) return qv_error_nomem(d->err, "cypher: decoding a value");
      for (uint32_t i = 0; i < n; i++) {
        QV_RETURN_NOT_OK(dec(d, &l[i], depth + 1));
        if (tag == T_PATH && l[i].t != ((i & 1) ? QVG_V_REL : QVG_V_NODE))
          return corrupt(d, "path items do not alternate node, relationship");
      }
      if (tag == T_PATH && (n & 1) == 0) return corrupt(d, "path without a last node");
      out->t = tag == T_LIST ? QVG_V_LIST : QVG_V_PATH;
      out->u.l = l;
      return QV_OK;
    }
    default: return corrupt(d, "unknown tag");
  }
}

qv_status qvg_val_decode(const uint8_t *bytes, int64_t n, qvg_arena *a, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  dec_state d = {bytes, bytes + (n > 0 ? n : 0), a, err};
  if (n <= 0) return corrupt(&d, "empty");
  qv_status st = dec(&d, out, 0);
  if (st == QV_OK && d.p != d.end) st = corrupt(&d, "bytes after the value");
  if (st == QV_OK && out->t == QVG_V_NULL) st = corrupt(&d, "null is a null slot");
  if (st != QV_OK) *out = qvg_null();
  return st;
}

/* ---- Arrow columns --------------------------------------------------------- */

static bool bit_at(const qv_bytes *b, int64_t i) { return qv_bit_get(b->data, i); }

/* Element i (offset applied by the caller's index) of a typed array. */
static qv_status from_typed(const qv_array *a, int64_t i, qvg_arena *arena, qvg_val *out, qv_error *err, int depth) {
  *out = qvg_null();
  if (depth > QVG_VAL_MAX_DEPTH) return qv_error_set(err, QV_ERR_INVALID, "cypher: column nested too deep");
  if (i < 0 || i >= a->length)
    return qv_error_set(err, QV_ERR_INVALID, "cypher: row %lld outside the column", (long long)i);
  if (a->type.id == QV_TYPE_NULL || !qv_array_is_valid(a, i)) return QV_OK;
  switch (a->type.id) {
    case QV_TYPE_BOOL: *out = qvg_bool(bit_at(a->buffers[1], a->offset + i)); return QV_OK;
    case QV_TYPE_INT8:
    case QV_TYPE_INT16:
    case QV_TYPE_INT32:
    case QV_TYPE_INT64:
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32: {
      const void *v = qv_array_values(a);
      int64_t x;
      switch (a->type.id) {
        case QV_TYPE_INT8: x = ((const int8_t *)v)[i]; break;
        case QV_TYPE_INT16: x = ((const int16_t *)v)[i]; break;
        case QV_TYPE_INT32: x = ((const int32_t *)v)[i]; break;
        case QV_TYPE_UINT8: x = ((const uint8_t *)v)[i]; break;
        case QV_TYPE_UINT16: x = ((const uint16_t *)v)[i]; break;
        case QV_TYPE_UINT32: x = ((const uint32_t *)v)[i]; break;
        default: x = ((const int64_t *)v)[i]; break;
      }
      *out = qvg_int(x);
      return QV_OK;
    }
    case QV_TYPE_UINT64: {
      uint64_t x = ((const uint64_t *)qv_array_values(a))[i];
      if (x > (uint64_t)INT64_MAX)
        return qv_error_set(err, QV_ERR_OVERFLOW, "cypher: uint64 value %llu does not fit an Integer",
                            (unsigned long long)x);
      *out = qvg_int((int64_t)x);
      return QV_OK;
    }
    case QV_TYPE_FLOAT32: *out = qvg_float((double)((const float *)qv_array_values(a))[i]); return QV_OK;
    case QV_TYPE_FLOAT64: *out = qvg_float(((const double *)qv_array_values(a))[i]); return QV_OK;
    case QV_TYPE_STRING: {
      int32_t n;
      const uint8_t *s = qv_array_str(a, i, &n);
      *out = qvg_string((const char *)s, n);
      return QV_OK;
    }
    case QV_TYPE_BINARY: {
      int32_t n;
      const uint8_t *s = qv_array_str(a, i, &n);
      return qvg_val_decode(s, n, arena, out, err);
    }
    case QV_TYPE_LIST:
    case QV_TYPE_FIXED_SIZE_LIST: {
      int64_t from, to;
      if (a->type.id == QV_TYPE_LIST) {
        const int32_t *o = qv_array_offsets(a);
        from = o[i];
        to = o[i + 1];
      } else {
        from = (a->offset + i) * a->type.list_size;
        to = from + a->type.list_size;
      }
      qvg_val *l = qvg_arena_alloc(arena, (size_t)(to > from ? to - from : 1) * sizeof *l);
      if (!l) return qv_error_nomem(err, "cypher: list column");
      for (int64_t k = from; k < to; k++)
        QV_RETURN_NOT_OK(from_typed(a->children[0], k, arena, &l[k - from], err, depth + 1));
      out->t = QVG_V_LIST;
      out->n = (int32_t)(to - from);
      out->u.l = l;
      return QV_OK;
    }
    case QV_TYPE_STRUCT: {
      qvg_entry *e = qvg_arena_alloc(arena, (size_t)(a->n_children ? a->n_children : 1) * sizeof *e);
      if (!e) return qv_error_nomem(err, "cypher: struct column");
      for (int32_t c = 0; c < a->n_children; c++) {
        const char *name = a->type.children[c].name;
        e[c].key = name;
        e[c].klen = (int32_t)strlen(name);
        QV_RETURN_NOT_OK(from_typed(a->children[c], a->offset + i, arena, &e[c].v, err, depth + 1));
      }
      return qvg_map_make(arena, e, a->n_children, out, err);
    }
    case QV_TYPE_DICTIONARY: {
      const qv_datatype *it = &a->type.children[0].type;
      const void *v = (const uint8_t *)a->buffers[1]->data;
      int64_t j = a->offset + i, k;
      switch (it->id) {
        case QV_TYPE_INT8: k = ((const int8_t *)v)[j]; break;
        case QV_TYPE_INT16: k = ((const int16_t *)v)[j]; break;
        case QV_TYPE_INT32: k = ((const int32_t *)v)[j]; break;
        case QV_TYPE_UINT8: k = ((const uint8_t *)v)[j]; break;
        case QV_TYPE_UINT16: k = ((const uint16_t *)v)[j]; break;
        case QV_TYPE_UINT32: k = ((const uint32_t *)v)[j]; break;
        default: k = ((const int64_t *)v)[j]; break;
      }
      return from_typed(a->children[0], k, arena, out, err, depth + 1);
    }
    default: {
      char t[64];
      qv_datatype_format(&a->type, t, sizeof t);
      return qv_error_set(err, QV_ERR_UNSUPPORTED, "cypher: a column of type %s has no Cypher value", t);
    }
  }
}

qv_status qvg_val_from_array(const qv_array *a, qvg_colkind k, int64_t i, qvg_arena *arena, qvg_val *out,
                             qv_error *err) {
  if ((k == QVG_COL_NODE || k == QVG_COL_REL) && a->type.id == QV_TYPE_INT64) {
    *out = qvg_null();
    if (i < 0 || i >= a->length)
      return qv_error_set(err, QV_ERR_INVALID, "cypher: row %lld outside the column", (long long)i);
    if (!qv_array_is_valid(a, i)) return QV_OK;
    int64_t id = ((const int64_t *)qv_array_values(a))[i];
    *out = k == QVG_COL_NODE ? qvg_node_val(id) : qvg_rel_val(id);
    return QV_OK;
  }
  return from_typed(a, i, arena, out, err, 0);
}

qv_status qvg_val_append(qv_builder *b, qvg_colkind k, const qvg_val *v, qv_error *err) {
  if (k == QVG_COL_NODE || k == QVG_COL_REL) {
    qv_status st;
    if (v->t == QVG_V_NULL) st = qv_builder_append_null(b);
    else if (v->t == (k == QVG_COL_NODE ? QVG_V_NODE : QVG_V_REL)) st = qv_builder_append_int(b, v->u.i);
    else
      return qv_error_set(err, QV_ERR_TYPE, "cypher: type error: expected %s but was %s",
                          k == QVG_COL_NODE ? "Node" : "Relationship", qvg_vtype_name(v->t));
    return st == QV_OK ? QV_OK : qv_error_set(err, st, "cypher: appending a %s", qvg_vtype_name(v->t));
  }
  if (b->type.id != QV_TYPE_BINARY) return qv_error_set(err, QV_ERR_TYPE, "cypher: a VALUE column is binary");
  if (v->t == QVG_V_NULL) return qv_builder_append_null(b) == QV_OK ? QV_OK : qv_error_nomem(err, "cypher: column");
  /* Encode straight into the builder's data and close the slot with an
   * empty append: its offset is then the end of what enc wrote.  Saves a
   * copy and a scratch buffer per row. */
  int64_t old = b->data.size;
  qv_status st = enc(v, &b->data, 0, err);
  if (st == QV_OK && b->data.size > INT32_MAX)
    st = qv_error_set(err, QV_ERR_OVERFLOW, "cypher: a VALUE column passed 2 GiB in one batch");
  if (st == QV_OK && qv_builder_append_bytes(b, "", 0) != QV_OK) st = qv_error_nomem(err, "cypher: column");
  if (st != QV_OK) b->data.size = old;
  return st;
}

const char *qvg_vtype_name(int t) {
  switch (t) {
    case QVG_V_NULL: return "Null";
    case QVG_V_BOOL: return "Boolean";
    case QVG_V_INT: return "Integer";
    case QVG_V_FLOAT: return "Float";
    case QVG_V_STRING: return "String";
    case QVG_V_LIST: return "List";
    case QVG_V_MAP: return "Map";
    case QVG_V_NODE: return "Node";
    case QVG_V_REL: return "Relationship";
    case QVG_V_PATH: return "Path";
    default: return "?";
  }
}
