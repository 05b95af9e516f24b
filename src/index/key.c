/* Index keys: values as byte strings whose bytewise order is the value
 * order, so that one sorted structure and one comparison serve every type.
 *
 *   integers, temporal   9 bytes: 0x00 for negative, 0x01 otherwise, then the
 *                        64-bit value big-endian (two's complement for
 *                        negatives), so int64 and uint64 share one order
 *   floats               8 bytes: the total order key (sign bit flipped for
 *                        positives, every bit flipped for negatives), so
 *                        -NaN < -inf < -0.0 < +0.0 < +inf < NaN as in Lance;
 *                        float32 is widened to float64 first (exact)
 *   bool                 1 byte
 *   string, binary       the bytes */
#include <string.h>

#include "index/index_int.h"

qvi_key_kind qvi_key_kind_of(const qv_datatype *t) {
  switch (t->id) {
    case QV_TYPE_INT8:
    case QV_TYPE_INT16:
    case QV_TYPE_INT32:
    case QV_TYPE_INT64:
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32:
    case QV_TYPE_UINT64:
    case QV_TYPE_DATE32:
    case QV_TYPE_TIMESTAMP:
    case QV_TYPE_TIME64:
    case QV_TYPE_DURATION: return QVI_KEY_INT;
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64: return QVI_KEY_FLOAT;
    case QV_TYPE_BOOL: return QVI_KEY_BOOL;
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: return QVI_KEY_BYTES;
    default: return QVI_KEY_NONE;
  }
}

static void put_be64(uint8_t *p, uint64_t v) {
  for (int k = 7; k >= 0; k--, v >>= 8) p[k] = (uint8_t)v;
}

static int32_t int_key(int64_t v, bool is_unsigned, uint8_t *out) {
  out[0] = (!is_unsigned && v < 0) ? 0 : 1;
  put_be64(out + 1, (uint64_t)v);
  return 9;
}

static int32_t float_key(double d, uint8_t *out) {
  uint64_t b;
  memcpy(&b, &d, 8);
  b = (b >> 63) ? ~b : b ^ ((uint64_t)1 << 63);
  put_be64(out, b);
  return 8;
}

int32_t qvi_key_of_double(double d, uint8_t out[8]) { return float_key(d, out); }

const uint8_t *qvi_key_of_row(const qv_array *a, int64_t i, qvi_key_kind kind, uint8_t tmp[16], int32_t *len) {
  int64_t x = a->offset + i;
  const uint8_t *v = a->buffers[1] ? a->buffers[1]->data : NULL;
  switch (kind) {
    case QVI_KEY_INT: {
      int64_t val = 0;
      bool u = !qv_type_is_signed(a->type.id) && qv_type_is_integer(a->type.id);
      switch (qv_type_byte_width(a->type.id)) {
        case 1: val = u ? (int64_t)v[x] : (int64_t)(int8_t)v[x]; break;
        case 2: {
          uint16_t t;
          memcpy(&t, v + 2 * x, 2);
          val = u ? (int64_t)t : (int64_t)(int16_t)t;
          break;
        }
        case 4: {
          uint32_t t;
          memcpy(&t, v + 4 * x, 4);
          val = u ? (int64_t)t : (int64_t)(int32_t)t;
          break;
        }
        default: memcpy(&val, v + 8 * x, 8); break;
      }
      *len = int_key(val, u, tmp);
      return tmp;
    }
    case QVI_KEY_FLOAT: {
      double d;
      if (a->type.id == QV_TYPE_FLOAT32) {
        float f;
        memcpy(&f, v + 4 * x, 4);
        d = (double)f;
      } else {
        memcpy(&d, v + 8 * x, 8);
      }
      *len = float_key(d, tmp);
      return tmp;
    }
    case QVI_KEY_BOOL:
      tmp[0] = qv_bit_get(v, x) ? 1 : 0;
      *len = 1;
      return tmp;
    case QVI_KEY_BYTES: return qv_array_str(a, i, len);
    default: *len = 0; return tmp;
  }
}

uint8_t *qvi_key_of_scalar(const qv_scalar *s, const qv_datatype *col, int32_t *len, bool *ok) {
  *ok = false;
  *len = 0;
  if (s->is_null) return NULL;
  qvi_key_kind kind = qvi_key_kind_of(col);
  uint8_t tmp[16];
  const uint8_t *src = tmp;
  switch (kind) {
    case QVI_KEY_INT:
      if (qv_type_is_integer(col->id)) {
        if (!qv_type_is_integer(s->type.id)) return NULL;
        *len = int_key(s->v.i, !qv_type_is_signed(s->type.id), tmp);
      } else { /* temporal: only the very same type compares in our order */
        if (!qv_datatype_equal(&s->type, col)) return NULL;
        *len = int_key(s->v.i, false, tmp);
      }
      break;
    case QVI_KEY_FLOAT:
      if (!qv_type_is_floating(s->type.id)) return NULL;
      *len = float_key(s->v.f, tmp);
      break;
    case QVI_KEY_BOOL:
      if (s->type.id != QV_TYPE_BOOL) return NULL;
      tmp[0] = s->v.b ? 1 : 0;
      *len = 1;
      break;
    case QVI_KEY_BYTES:
      if (s->type.id != QV_TYPE_STRING && s->type.id != QV_TYPE_BINARY) return NULL;
      src = s->bytes;
      *len = (int32_t)s->len;
      if (s->len > INT32_MAX) return NULL;
      break;
    default: return NULL;
  }
  uint8_t *out = qv_malloc((size_t)*len + 1);
  if (!out) {
    *len = -1; /* out of memory, not "cannot answer" */
    return NULL;
  }
  if (*len) memcpy(out, src, (size_t)*len);
  *ok = true;
  return out;
}

int qvi_key_cmp(const uint8_t *a, int32_t alen, const uint8_t *b, int32_t blen) {
  int32_t n = alen < blen ? alen : blen;
  int c = n ? memcmp(a, b, (size_t)n) : 0;
  if (c) return c < 0 ? -1 : 1;
  return (alen > blen) - (alen < blen);
}
