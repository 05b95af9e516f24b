/* Page statistics: null count, NaN count, and min/max of the valid values.
 *
 * Floats: NaN is counted, never a min or max; -0.0 orders below +0.0, so
 * min/max are bounds under IEEE comparison and under total order alike.
 * Strings keep at most QVS_STAT_PREFIX bytes: the min is a prefix (still a
 * lower bound); a longer max is cut and its last character incremented so
 * that it stays an upper bound (valid UTF-8 for strings). */
#include <math.h>
#include <string.h>

#include "base/utf8.h"
#include "base/wire.h"
#include "storage/format.h"
#include "storage/page_stats.h"

bool qvs_type_has_minmax(qv_type_id id) {
  switch (id) {
    case QV_TYPE_NULL:
    case QV_TYPE_LIST:
    case QV_TYPE_STRUCT:
    case QV_TYPE_FIXED_SIZE_LIST: return false;
    default: return true;
  }
}

typedef enum { K_BOOL, K_SIGNED, K_UNSIGNED, K_FLOAT, K_DECIMAL, K_BYTES, K_NONE } stat_kind;

static stat_kind kind_of(qv_type_id id) {
  if (!qvs_type_has_minmax(id)) return K_NONE;
  if (id == QV_TYPE_BOOL) return K_BOOL;
  if (qv_type_is_floating(id)) return K_FLOAT;
  if (id == QV_TYPE_DECIMAL128) return K_DECIMAL;
  if (id == QV_TYPE_STRING || id == QV_TYPE_BINARY) return K_BYTES;
  if (id >= QV_TYPE_UINT8 && id <= QV_TYPE_UINT64) return K_UNSIGNED;
  return K_SIGNED;
}

static int64_t load_signed(const uint8_t *p, int w) {
  switch (w) {
    case 1: return (int8_t)p[0];
    case 2: {
      int16_t v;
      memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      int32_t v;
      memcpy(&v, p, 4);
      return v;
    }
    default: {
      int64_t v;
      memcpy(&v, p, 8);
      return v;
    }
  }
}

static uint64_t load_unsigned(const uint8_t *p, int w) {
  switch (w) {
    case 1: return p[0];
    case 2: {
      uint16_t v;
      memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      uint32_t v;
      memcpy(&v, p, 4);
      return v;
    }
    default: {
      uint64_t v;
      memcpy(&v, p, 8);
      return v;
    }
  }
}

/* Loops over the valid rows of [start, start+n) with `i` the array index. */
#define FOR_VALID(a, start, n, body)                                                           \
  do {                                                                                         \
    const uint8_t *vbits_ = (a)->null_count && (a)->buffers[0] ? (a)->buffers[0]->data : NULL; \
    int64_t base_ = (a)->offset + (start);                                                     \
    for (int64_t k_ = 0; k_ < (n); k_++) {                                                     \
      int64_t i = base_ + k_;                                                                  \
      if (vbits_ && !qv_bit_get(vbits_, i)) continue;                                          \
      body;                                                                                    \
    }                                                                                          \
  } while (0)

static bool dec_less(uint64_t alo, int64_t ahi, uint64_t blo, int64_t bhi) {
  return ahi < bhi || (ahi == bhi && alo < blo);
}

static int bytes_cmp(const uint8_t *a, int64_t na, const uint8_t *b, int64_t nb) {
  int64_t m = na < nb ? na : nb;
  int c = m ? memcmp(a, b, (size_t)m) : 0;
  return c ? c : (na > nb) - (na < nb);
}

/* Cut to at most QVS_STAT_PREFIX bytes, at a character boundary for UTF-8. */
static int64_t cut_len(const uint8_t *p, int64_t len, bool utf8) {
  if (len <= QVS_STAT_PREFIX) return len;
  int64_t n = QVS_STAT_PREFIX;
  if (utf8)
    while (n > 0 && (p[n] & 0xC0) == 0x80) n--;
  return n;
}

static void set_min_bytes(qvs_stat_value *v, const uint8_t *p, int64_t len, bool utf8) {
  int64_t n = cut_len(p, len, utf8);
  memcpy(v->bytes, p, (size_t)n);
  v->len = (int32_t)n;
}

/* Smallest string above every string that starts with p[0..n); false when
 * there is none (all 0xFF / U+10FFFF). */
static bool bump(uint8_t *p, int64_t *n, bool utf8) {
  while (*n > 0) {
    if (!utf8) {
      if (p[*n - 1] != 0xFF) {
        p[*n - 1]++;
        return true;
      }
      (*n)--;
      continue;
    }
    int64_t s = *n - 1;
    while (s > 0 && (p[s] & 0xC0) == 0x80) s--;
    int64_t clen = *n - s;
    uint32_t c;
    if (clen == 1) c = p[s];
    else if (clen == 2) c = (uint32_t)(p[s] & 0x1F) << 6 | (p[s + 1] & 0x3F);
    else if (clen == 3) c = (uint32_t)(p[s] & 0x0F) << 12 | (uint32_t)(p[s + 1] & 0x3F) << 6 | (p[s + 2] & 0x3F);
    else
      c = (uint32_t)(p[s] & 0x07) << 18 | (uint32_t)(p[s + 1] & 0x3F) << 12 | (uint32_t)(p[s + 2] & 0x3F) << 6 |
          (p[s + 3] & 0x3F);
    if (clen > 4 || c >= 0x10FFFF) { /* not incrementable (or not UTF-8): drop it */
      *n = s;
      continue;
    }
    c++;
    if (c == 0xD800) c = 0xE000;
    *n = s + (int64_t)qvb_utf8_encode(p + s, c);
    return true;
  }
  return false;
}

static bool set_max_bytes(qvs_stat_value *v, const uint8_t *p, int64_t len, bool utf8) {
  int64_t n = cut_len(p, len, utf8);
  memcpy(v->bytes, p, (size_t)n);
  if (n == len) {
    v->len = (int32_t)n;
    return true;
  }
  bool ok = bump(v->bytes, &n, utf8);
  v->len = (int32_t)n;
  return ok;
}

void qvs_stats_compute(const qv_array *a, int64_t start, int64_t n, qvs_stats *out) {
  memset(out, 0, sizeof *out);
  if (a->type.id == QV_TYPE_NULL) {
    out->null_count = n;
    return;
  }
  if (a->null_count != 0 && a->buffers[0])
    out->null_count = n - qv_bitmap_count(a->buffers[0]->data, a->offset + start, n);
  stat_kind k = kind_of(a->type.id);
  if (k == K_NONE || out->null_count == n) return;
  qvs_stat_value *mn = &out->min, *mx = &out->max;
  bool any = false;
  int w = qv_type_byte_width(a->type.id);
  const uint8_t *vals = a->buffers[1] ? a->buffers[1]->data : NULL;
  switch (k) {
    case K_BOOL: {
      bool seen_f = false, seen_t = false;
      FOR_VALID(a, start, n, {
        if (qv_bit_get(vals, i)) seen_t = true;
        else seen_f = true;
      });
      mn->v.b = !seen_f;
      mx->v.b = seen_t;
      any = true;
      break;
    }
    case K_SIGNED: {
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      if (w == 8) {
        const int64_t *v = (const int64_t *)vals;
        FOR_VALID(a, start, n, {
          int64_t x = v[i];
          lo = x < lo ? x : lo;
          hi = x > hi ? x : hi;
        });
      } else if (w == 4) {
        const int32_t *v = (const int32_t *)vals;
        FOR_VALID(a, start, n, {
          int64_t x = v[i];
          lo = x < lo ? x : lo;
          hi = x > hi ? x : hi;
        });
      } else {
        FOR_VALID(a, start, n, {
          int64_t x = load_signed(vals + i * w, w);
          lo = x < lo ? x : lo;
          hi = x > hi ? x : hi;
        });
      }
      mn->v.i = lo;
      mx->v.i = hi;
      any = true;
      break;
    }
    case K_UNSIGNED: {
      uint64_t lo = UINT64_MAX, hi = 0;
      FOR_VALID(a, start, n, {
        uint64_t x = load_unsigned(vals + i * w, w);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
      });
      mn->v.u = lo;
      mx->v.u = hi;
      any = true;
      break;
    }
    case K_FLOAT: {
      double lo = 0, hi = 0;
      int64_t nans = 0;
      FOR_VALID(a, start, n, {
        double x = w == 4 ? (double)((const float *)vals)[i] : ((const double *)vals)[i];
        if (isnan(x)) {
          nans++;
          continue;
        }
        if (!any) {
          lo = hi = x;
          any = true;
          continue;
        }
        if (x < lo || (x == lo && signbit(x) && !signbit(lo))) lo = x;
        if (x > hi || (x == hi && !signbit(x) && signbit(hi))) hi = x;
      });
      out->nan_count = nans;
      mn->v.f = lo;
      mx->v.f = hi;
      break;
    }
    case K_DECIMAL: {
      uint64_t llo = 0, hlo = 0;
      int64_t lhi = 0, hhi = 0;
      FOR_VALID(a, start, n, {
        uint64_t lo;
        int64_t hi;
        memcpy(&lo, vals + 16 * i, 8);
        memcpy(&hi, vals + 16 * i + 8, 8);
        if (!any || dec_less(lo, hi, llo, lhi)) {
          llo = lo;
          lhi = hi;
        }
        if (!any || dec_less(hlo, hhi, lo, hi)) {
          hlo = lo;
          hhi = hi;
        }
        any = true;
      });
      mn->v.dec.lo = llo;
      mn->v.dec.hi = lhi;
      mx->v.dec.lo = hlo;
      mx->v.dec.hi = hhi;
      break;
    }
    case K_BYTES: {
      const int32_t *off = (const int32_t *)vals;
      const uint8_t *data = a->buffers[2] ? a->buffers[2]->data : NULL;
      int64_t lo_i = -1, hi_i = -1;
      FOR_VALID(a, start, n, {
        if (lo_i < 0) {
          lo_i = hi_i = i;
          continue;
        }
        const uint8_t *p = data + off[i];
        int64_t len = off[i + 1] - off[i];
        if (bytes_cmp(p, len, data + off[lo_i], off[lo_i + 1] - off[lo_i]) < 0) lo_i = i;
        if (bytes_cmp(p, len, data + off[hi_i], off[hi_i + 1] - off[hi_i]) > 0) hi_i = i;
      });
      bool utf8 = a->type.id == QV_TYPE_STRING;
      set_min_bytes(mn, data + off[lo_i], off[lo_i + 1] - off[lo_i], utf8);
      any = set_max_bytes(mx, data + off[hi_i], off[hi_i + 1] - off[hi_i], utf8);
      break;
    }
    case K_NONE: break;
  }
  out->has_minmax = any;
}

void qvs_put_stat_value(qvb_wbuf *w, qv_type_id id, const qvs_stat_value *v) {
  switch (kind_of(id)) {
    case K_BOOL: qvb_wire_put_u8(w, v->v.b ? 1 : 0); break;
    case K_SIGNED: qvb_wire_put_u64(w, (uint64_t)v->v.i); break;
    case K_UNSIGNED: qvb_wire_put_u64(w, v->v.u); break;
    case K_FLOAT: {
      uint64_t bits;
      memcpy(&bits, &v->v.f, 8);
      qvb_wire_put_u64(w, bits);
      break;
    }
    case K_DECIMAL:
      qvb_wire_put_u64(w, v->v.dec.lo);
      qvb_wire_put_u64(w, (uint64_t)v->v.dec.hi);
      break;
    case K_BYTES:
      qvb_wire_put_u32(w, (uint32_t)v->len);
      qvb_wire_put_bytes(w, v->bytes, v->len);
      break;
    case K_NONE: break;
  }
}

bool qvs_get_stat_value(qvb_cursor *c, qv_type_id id, qvs_stat_value *v) {
  memset(v, 0, sizeof *v);
  uint64_t u;
  switch (kind_of(id)) {
    case K_BOOL: {
      uint8_t b;
      if (!qvb_wire_get_u8(c, &b, "bool statistic")) return false;
      if (b > 1) {
        c->pos--;
        return qvb_cursor_fail(c, "bool statistic %u is not 0 or 1", b);
      }
      v->v.b = b;
      return true;
    }
    case K_SIGNED:
      if (!qvb_wire_get_u64(c, &u, "statistic")) return false;
      v->v.i = (int64_t)u;
      return true;
    case K_UNSIGNED: return qvb_wire_get_u64(c, &v->v.u, "statistic");
    case K_FLOAT:
      if (!qvb_wire_get_u64(c, &u, "statistic")) return false;
      memcpy(&v->v.f, &u, 8);
      if (isnan(v->v.f)) {
        c->pos -= 8;
        return qvb_cursor_fail(c, "float statistic is NaN");
      }
      return true;
    case K_DECIMAL:
      if (!qvb_wire_get_u64(c, &v->v.dec.lo, "statistic") || !qvb_wire_get_u64(c, &u, "statistic")) return false;
      v->v.dec.hi = (int64_t)u;
      return true;
    case K_BYTES: {
      uint32_t len;
      const uint8_t *p;
      if (!qvb_wire_get_u32(c, &len, "statistic length")) return false;
      if (len > QVS_STAT_PREFIX + 4) {
        c->pos -= 4;
        return qvb_cursor_fail(c, "string statistic of %u bytes (at most %d)", len, QVS_STAT_PREFIX + 4);
      }
      if (!qvb_wire_get_bytes(c, len, &p, "statistic")) return false;
      memcpy(v->bytes, p, len);
      v->len = (int32_t)len;
      return true;
    }
    case K_NONE: return true;
  }
  return true;
}

qv_status qvs_stat_to_scalar(const qv_datatype *type, const qvs_stat_value *v, qv_scalar *out) {
  qv_scalar init = QV_SCALAR_INIT;
  *out = init;
  if (qv_datatype_copy(type, &out->type) != QV_OK) return QV_ERR_NOMEM;
  out->is_null = false;
  switch (kind_of(type->id)) {
    case K_BOOL: out->v.b = v->v.b; break;
    case K_SIGNED: out->v.i = v->v.i; break;
    case K_UNSIGNED: out->v.u = v->v.u; break;
    case K_FLOAT: out->v.f = v->v.f; break;
    case K_DECIMAL:
      out->v.dec.lo = v->v.dec.lo;
      out->v.dec.hi = v->v.dec.hi;
      break;
    case K_BYTES:
      out->bytes = qv_malloc((size_t)v->len + 1);
      if (!out->bytes) {
        qv_scalar_reset(out);
        return QV_ERR_NOMEM;
      }
      memcpy(out->bytes, v->bytes, (size_t)v->len);
      out->bytes[v->len] = '\0';
      out->len = v->len;
      break;
    case K_NONE: out->is_null = true; break;
  }
  return QV_OK;
}
