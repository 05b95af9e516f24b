/* Cypher's comparisons of values: equality and < with three-valued
 * results, the total orderability ORDER BY uses, and memcomparable sort
 * keys that order exactly as qvg_val_order.
 *
 * Numbers are compared exactly across Integer and Float (2^53 + 1 is not
 * 2^53 + 0.0): each number is split into d, the float64 nearest to it,
 * and the exact remainder delta = value - d, which is 0 for floats and
 * small (|delta| <= 1024) for integers.  Rounding to nearest is monotone,
 * so (order key of d, delta) orders numbers by value, and the sort key is
 * those two fields in big-endian. */
#include <math.h>
#include <string.h>

#include "graph/cypher_value_int.h"

typedef struct numkey {
  uint64_t dk; /* float order key of d: unsigned order is numeric order, NaN highest */
  int32_t delta;
} numkey;

static uint64_t float_key(double f) {
  uint64_t u = qvg_float_bits(f);
  return (u >> 63) ? ~u : u ^ (UINT64_C(1) << 63);
}

static numkey num_key(const qvg_val *v) {
  numkey k = {0, 0};
  if (v->t == QVG_V_FLOAT) {
    k.dk = float_key(v->u.f);
    return k;
  }
  double d = (double)v->u.i;
  k.dk = float_key(d);
  k.delta = (int32_t)((qv_int128)v->u.i - (qv_int128)d);
  return k;
}

static int num_cmp(const qvg_val *a, const qvg_val *b) {
  if (a->t == QVG_V_INT && b->t == QVG_V_INT) return (a->u.i > b->u.i) - (a->u.i < b->u.i);
  numkey x = num_key(a), y = num_key(b);
  if (x.dk != y.dk) return x.dk < y.dk ? -1 : 1;
  return (x.delta > y.delta) - (x.delta < y.delta);
}

static bool is_num(const qvg_val *v) { return v->t == QVG_V_INT || v->t == QVG_V_FLOAT; }
static bool is_nan(const qvg_val *v) { return v->t == QVG_V_FLOAT && isnan(v->u.f); }

/* ---- equality ------------------------------------------------------------- */

qvg_tri qvg_val_equals(const qvg_val *a, const qvg_val *b) {
  if (a->t == QVG_V_NULL || b->t == QVG_V_NULL) return QVG_UNKNOWN;
  if (is_num(a) && is_num(b)) return !is_nan(a) && !is_nan(b) && num_cmp(a, b) == 0 ? QVG_TRUE : QVG_FALSE;
  if (a->t != b->t) return QVG_FALSE;
  switch (a->t) {
    case QVG_V_BOOL: return a->u.b == b->u.b ? QVG_TRUE : QVG_FALSE;
    case QVG_V_NODE:
    case QVG_V_REL: return a->u.i == b->u.i ? QVG_TRUE : QVG_FALSE;
    case QVG_V_STRING: return qvg_key_cmp(a->u.s, a->n, b->u.s, b->n) == 0 ? QVG_TRUE : QVG_FALSE;
    case QVG_V_LIST:
    case QVG_V_PATH: {
      if (a->n != b->n) return QVG_FALSE;
      qvg_tri r = QVG_TRUE;
      for (int32_t i = 0; i < a->n; i++) {
        qvg_tri e = qvg_val_equals(&a->u.l[i], &b->u.l[i]);
        if (e == QVG_FALSE) return QVG_FALSE;
        if (e == QVG_UNKNOWN) r = QVG_UNKNOWN;
      }
      return r;
    }
    case QVG_V_MAP: {
      if (a->n != b->n) return QVG_FALSE;
      for (int32_t i = 0; i < a->n; i++)
        if (qvg_key_cmp(a->u.m[i].key, a->u.m[i].klen, b->u.m[i].key, b->u.m[i].klen) != 0) return QVG_FALSE;
      qvg_tri r = QVG_TRUE;
      for (int32_t i = 0; i < a->n; i++) {
        qvg_tri e = qvg_val_equals(&a->u.m[i].v, &b->u.m[i].v);
        if (e == QVG_FALSE) return QVG_FALSE;
        if (e == QVG_UNKNOWN) r = QVG_UNKNOWN;
      }
      return r;
    }
    default: return QVG_FALSE;
  }
}

/* ---- comparability -------------------------------------------------------- */

/* -1 / 0 / 1, or 2 when the pair is not comparable (unknown), or 3 when
 * both are numbers and one is NaN (every comparison false). */
enum { INCOMPARABLE = 2, NAN_PAIR = 3 };

static int compare3(const qvg_val *a, const qvg_val *b) {
  if (a->t == QVG_V_NULL || b->t == QVG_V_NULL) return INCOMPARABLE;
  if (is_num(a) && is_num(b)) return is_nan(a) || is_nan(b) ? NAN_PAIR : num_cmp(a, b);
  if (a->t != b->t) return INCOMPARABLE;
  switch (a->t) {
    case QVG_V_STRING: {
      int c = qvg_key_cmp(a->u.s, a->n, b->u.s, b->n);
      return (c > 0) - (c < 0);
    }
    case QVG_V_BOOL: return (a->u.b > b->u.b) - (a->u.b < b->u.b);
    case QVG_V_LIST: {
      int32_t n = a->n < b->n ? a->n : b->n;
      for (int32_t i = 0; i < n; i++) {
        if (qvg_val_equals(&a->u.l[i], &b->u.l[i]) == QVG_TRUE) continue;
        int c = compare3(&a->u.l[i], &b->u.l[i]);
        /* a NaN pair makes every comparison of the lists false, like the pair */
        return c;
      }
      return (a->n > b->n) - (a->n < b->n);
    }
    default: return INCOMPARABLE;
  }
}

qvg_tri qvg_val_less(const qvg_val *a, const qvg_val *b, bool or_equal) {
  int c = compare3(a, b);
  if (c == INCOMPARABLE) return QVG_UNKNOWN;
  if (c == NAN_PAIR) return QVG_FALSE;
  return (or_equal ? c <= 0 : c < 0) ? QVG_TRUE : QVG_FALSE;
}

/* ---- orderability --------------------------------------------------------- */

static int rank(const qvg_val *v) {
  switch (v->t) {
    case QVG_V_MAP: return 0;
    case QVG_V_NODE: return 1;
    case QVG_V_REL: return 2;
    case QVG_V_LIST: return 3;
    case QVG_V_PATH: return 4;
    case QVG_V_STRING: return 5;
    case QVG_V_BOOL: return 6;
    case QVG_V_INT:
    case QVG_V_FLOAT: return 7;
    default: return 8;
  }
}

int qvg_val_order(const qvg_val *a, const qvg_val *b) {
  int ra = rank(a), rb = rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (a->t) {
    case QVG_V_MAP: {
      int32_t n = a->n < b->n ? a->n : b->n;
      for (int32_t i = 0; i < n; i++) {
        int c = qvg_key_cmp(a->u.m[i].key, a->u.m[i].klen, b->u.m[i].key, b->u.m[i].klen);
        if (c) return c < 0 ? -1 : 1;
        c = qvg_val_order(&a->u.m[i].v, &b->u.m[i].v);
        if (c) return c;
      }
      return (a->n > b->n) - (a->n < b->n);
    }
    case QVG_V_NODE:
    case QVG_V_REL: return (a->u.i > b->u.i) - (a->u.i < b->u.i);
    case QVG_V_LIST:
    case QVG_V_PATH: {
      int32_t n = a->n < b->n ? a->n : b->n;
      for (int32_t i = 0; i < n; i++) {
        int c = qvg_val_order(&a->u.l[i], &b->u.l[i]);
        if (c) return c;
      }
      return (a->n > b->n) - (a->n < b->n);
    }
    case QVG_V_STRING: {
      int c = qvg_key_cmp(a->u.s, a->n, b->u.s, b->n);
      return (c > 0) - (c < 0);
    }
    case QVG_V_BOOL: return (a->u.b > b->u.b) - (a->u.b < b->u.b);
    case QVG_V_INT:
    case QVG_V_FLOAT: return num_cmp(a, b);
    default: return 0;
  }
}

/* ---- sort keys ---------------------------------------------------------------
 * Rank byte, then: numbers the float key and delta + 0x8000 (big-endian);
 * strings (and map keys) their bytes with 0x00 as 00 ff, ended by 00 00;
 * lists and paths the items' keys ended by 00 (every key starts with a
 * rank byte above it, so a shorter list sorts first); maps per entry 01,
 * key, value key, ended by 00; nodes and rels the id with its sign bit
 * flipped; null the rank byte alone (highest). */

enum {
  K_MAP = 0x10,
  K_NODE = 0x20,
  K_REL = 0x30,
  K_LIST = 0x40,
  K_PATH = 0x50,
  K_STRING = 0x60,
  K_BOOL = 0x70,
  K_NUM = 0x80,
  K_NULL = 0xf0
};

typedef struct keybuf {
  qv_buffer *out;
  bool oom;
} keybuf;

static void kb_add(keybuf *k, const void *p, size_t n) {
  if (!k->oom && qv_buffer_append(k->out, p, (int64_t)n) != QV_OK) k->oom = true;
}
static void kb_byte(keybuf *k, uint8_t b) { kb_add(k, &b, 1); }
static void kb_u64(keybuf *k, uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (56 - 8 * i));
  kb_add(k, b, 8);
}
static void kb_str(keybuf *k, const char *s, int32_t n) {
  int32_t from = 0;
  for (int32_t i = 0; i < n; i++)
    if (s[i] == '\0') {
      kb_add(k, s + from, (size_t)(i - from));
      kb_add(k, "\0\xff", 2);
      from = i + 1;
    }
  kb_add(k, s + from, (size_t)(n - from));
  kb_add(k, "\0\0", 2);
}

static qv_status sortkey(const qvg_val *v, keybuf *k, int depth, qv_error *err) {
  if (depth > QVG_VAL_MAX_DEPTH)
    return qv_error_set(err, QV_ERR_INVALID, "cypher: value nested deeper than %d levels", QVG_VAL_MAX_DEPTH);
  switch (v->t) {
    case QVG_V_MAP:
      kb_byte(k, K_MAP);
      for (int32_t i = 0; i < v->n; i++) {
        kb_byte(k, 1);
        kb_str(k, v->u.m[i].key, v->u.m[i].klen);
        QV_RETURN_NOT_OK(sortkey(&v->u.m[i].v, k, depth + 1, err));
      }
      kb_byte(k, 0);
      break;
    case QVG_V_NODE:
    case QVG_V_REL:
      kb_byte(k, v->t == QVG_V_NODE ? K_NODE : K_REL);
      kb_u64(k, (uint64_t)v->u.i ^ (UINT64_C(1) << 63));
      break;
    case QVG_V_LIST:
    case QVG_V_PATH:
      kb_byte(k, v->t == QVG_V_LIST ? K_LIST : K_PATH);
      for (int32_t i = 0; i < v->n; i++) QV_RETURN_NOT_OK(sortkey(&v->u.l[i], k, depth + 1, err));
      kb_byte(k, 0);
      break;
    case QVG_V_STRING:
      kb_byte(k, K_STRING);
      kb_str(k, v->u.s, v->n);
      break;
    case QVG_V_BOOL:
      kb_byte(k, K_BOOL);
      kb_byte(k, v->u.b ? 1 : 0);
      break;
    case QVG_V_INT:
    case QVG_V_FLOAT: {
      numkey nk = num_key(v);
      uint16_t d = (uint16_t)(nk.delta + 0x8000);
      uint8_t b[2] = {(uint8_t)(d >> 8), (uint8_t)d};
      kb_byte(k, K_NUM);
      kb_u64(k, nk.dk);
      kb_add(k, b, 2);
      break;
    }
    default: kb_byte(k, K_NULL); break;
  }
  return QV_OK;
}

qv_status qvg_val_sortkey(const qvg_val *v, qv_buffer *out, qv_error *err) {
  keybuf k = {out, false};
  QV_RETURN_NOT_OK(sortkey(v, &k, 0, err));
  return k.oom ? qv_error_nomem(err, "cypher: sort key") : QV_OK;
}
