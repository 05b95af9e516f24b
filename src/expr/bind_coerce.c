/* The type rules the binder applies (documented at the top of bind.c):
 * common types, literal conversion, castability and decimal arithmetic. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "expr/expr_int.h"

/* ---- integers ------------------------------------------------------------ */

static int int_width(qv_type_id id) {
  switch (id) {
    case QV_TYPE_INT8:
    case QV_TYPE_UINT8: return 1;
    case QV_TYPE_INT16:
    case QV_TYPE_UINT16: return 2;
    case QV_TYPE_INT32:
    case QV_TYPE_UINT32: return 4;
    default: return 8;
  }
}

static qv_type_id int_of(int width, bool is_signed) {
  switch (width) {
    case 1: return is_signed ? QV_TYPE_INT8 : QV_TYPE_UINT8;
    case 2: return is_signed ? QV_TYPE_INT16 : QV_TYPE_UINT16;
    case 4: return is_signed ? QV_TYPE_INT32 : QV_TYPE_UINT32;
    default: return is_signed ? QV_TYPE_INT64 : QV_TYPE_UINT64;
  }
}

static bool int_range(qv_type_id id, qve_i128 *lo, qve_i128 *hi) {
  int w = int_width(id);
  if (qve_is_uint(id)) {
    *lo = 0;
    *hi = w == 8 ? (qve_i128)UINT64_MAX : ((qve_i128)1 << (8 * w)) - 1;
  } else {
    *lo = -((qve_i128)1 << (8 * w - 1));
    *hi = ((qve_i128)1 << (8 * w - 1)) - 1;
  }
  return true;
}

static bool int_fits(qve_i128 x, qv_type_id id) {
  qve_i128 lo, hi;
  int_range(id, &lo, &hi);
  return x >= lo && x <= hi;
}

qv_datatype qve_bind_int_as_decimal(qv_type_id id) {
  static const int32_t digits[] = {0, 3, 5, 0, 10, 0, 0, 0, 20};
  qv_datatype t = qv_datatype_simple(QV_TYPE_DECIMAL128);
  t.precision = digits[int_width(id)];
  t.scale = 0;
  return t;
}

static qv_datatype float_as_decimal(qv_type_id id) {
  qv_datatype t = qv_datatype_simple(QV_TYPE_DECIMAL128);
  t.precision = id == QV_TYPE_FLOAT32 ? 14 : 30;
  t.scale = id == QV_TYPE_FLOAT32 ? 7 : 15;
  return t;
}

/* DataFusion get_wider_decimal_type: keeps both the larger scale and the
 * larger integer part, capped at 38 digits. */
static qv_datatype wider_decimal(const qv_datatype *a, const qv_datatype *b) {
  int32_t s = a->scale > b->scale ? a->scale : b->scale;
  int32_t ra = a->precision - a->scale, rb = b->precision - b->scale;
  int32_t p = (ra > rb ? ra : rb) + s;
  qv_datatype t = qv_datatype_simple(QV_TYPE_DECIMAL128);
  t.precision = p > 38 ? 38 : p;
  t.scale = s > 38 ? 38 : s;
  return t;
}

/* ---- common types ------------------------------------------------------- */

static bool numeric_common(const qv_datatype *a, const qv_datatype *b, qve_common_mode mode, qv_datatype *out,
                           bool *mixed) {
  qv_type_id x = a->id, y = b->id;
  if (x == QV_TYPE_DECIMAL128 || y == QV_TYPE_DECIMAL128) {
    const qv_datatype *d = x == QV_TYPE_DECIMAL128 ? a : b, *o = d == a ? b : a;
    qv_datatype od = o->id == QV_TYPE_DECIMAL128 ? *o
                     : qve_is_float(o->id)       ? float_as_decimal(o->id)
                                                 : qve_bind_int_as_decimal(o->id);
    *out = wider_decimal(d, &od);
    return true;
  }
  if (x == QV_TYPE_FLOAT64 || y == QV_TYPE_FLOAT64) {
    *out = qv_datatype_simple(QV_TYPE_FLOAT64);
    return true;
  }
  if (x == QV_TYPE_FLOAT32 || y == QV_TYPE_FLOAT32) {
    *out = qv_datatype_simple(QV_TYPE_FLOAT32); /* DataFusion: int vs float32 is float32 */
    return true;
  }
  int wx = int_width(x), wy = int_width(y);
  if (qve_is_uint(x) == qve_is_uint(y)) {
    *out = qv_datatype_simple(wx >= wy ? x : y);
    return true;
  }
  qv_type_id s = qve_is_uint(x) ? y : x, u = qve_is_uint(x) ? x : y;
  if (u == QV_TYPE_UINT64) {
    if (mode == QV_COMMON_COMPARE) {
      *mixed = true;
      *out = qv_datatype_simple(QV_TYPE_INT64);
    } else {
      *out = qve_bind_int_as_decimal(QV_TYPE_UINT64); /* decimal(20,0), as DataFusion */
    }
    return true;
  }
  int ws = int_width(s), wu = int_width(u);
  *out = qv_datatype_simple(ws > wu ? s : int_of(2 * wu, true));
  return true;
}

static qv_time_unit finer(qv_time_unit a, qv_time_unit b) { return a > b ? a : b; }

static qv_status list_of_copy(const qv_datatype *elem, qv_datatype *out) {
  qv_datatype item;
  if (qv_datatype_copy(elem, &item) != QV_OK) return QV_ERR_NOMEM;
  qv_status st = qv_datatype_list(&item, out, NULL);
  qv_datatype_reset(&item);
  return st;
}

qv_status qve_bind_list_of(const qv_datatype *elem, qv_datatype *out) { return list_of_copy(elem, out); }

static qve_common_result copied(const qv_datatype *t, qv_datatype *out) {
  return qv_datatype_copy(t, out) == QV_OK ? QV_COMMON_FOUND : QV_COMMON_NOMEM;
}

qve_common_result qve_bind_common_type(const qv_datatype *a, const qv_datatype *b, qve_common_mode mode,
                                       qv_datatype *out, bool *mixed) {
  *mixed = false;
  *out = qv_datatype_simple(QV_TYPE_NULL);
  if (a->id == QV_TYPE_NULL) return copied(b, out);
  if (b->id == QV_TYPE_NULL || qv_datatype_equal(a, b)) return copied(a, out);
  if (qve_is_num(a->id) && qve_is_num(b->id))
    return numeric_common(a, b, mode, out, mixed) ? QV_COMMON_FOUND : QV_COMMON_NONE;
  if (a->id == QV_TYPE_TIMESTAMP && b->id == QV_TYPE_TIMESTAMP) {
    if (qv_datatype_copy(a->timezone ? a : b, out) != QV_OK) return QV_COMMON_NOMEM;
    out->unit = finer(a->unit, b->unit); /* exact, unlike DataFusion's coarser unit */
    return QV_COMMON_FOUND;
  }
  if (qve_is_datetime(a->id) && qve_is_datetime(b->id)) return copied(a->id == QV_TYPE_TIMESTAMP ? a : b, out);
  if ((a->id == QV_TYPE_STRING || a->id == QV_TYPE_BINARY) && (b->id == QV_TYPE_STRING || b->id == QV_TYPE_BINARY)) {
    *out = qv_datatype_simple(QV_TYPE_BINARY);
    return QV_COMMON_FOUND;
  }
  if (a->id == QV_TYPE_STRING && qve_is_datetime(b->id)) return copied(b, out);
  if (b->id == QV_TYPE_STRING && qve_is_datetime(a->id)) return copied(a, out);
  if ((a->id == QV_TYPE_TIME64 || a->id == QV_TYPE_DURATION) && a->id == b->id) {
    *out = *a;
    out->unit = finer(a->unit, b->unit);
    return QV_COMMON_FOUND;
  }
  if (qve_is_listlike(a->id) && qve_is_listlike(b->id)) {
    qv_datatype elem;
    bool m;
    qve_common_result r = qve_bind_common_type(&a->children[0].type, &b->children[0].type, QV_COMMON_UNION, &elem, &m);
    if (r != QV_COMMON_FOUND) {
      qv_datatype_reset(&elem);
      return r;
    }
    qv_status st;
    if (a->id == QV_TYPE_FIXED_SIZE_LIST && b->id == QV_TYPE_FIXED_SIZE_LIST && a->list_size == b->list_size)
      st = qv_datatype_fixed_size_list(&elem, a->list_size, out, NULL);
    else st = qv_datatype_list(&elem, out, NULL);
    qv_datatype_reset(&elem);
    return st == QV_OK ? QV_COMMON_FOUND : QV_COMMON_NOMEM;
  }
  return QV_COMMON_NONE;
}

/* ---- time zones ----------------------------------------------------------- */

/* Seconds east of UTC for zones with a fixed offset ("UTC", "+05:30");
 * false for named zones, which would need the tz database. */
static bool fixed_offset(const char *tz, int64_t *secs) {
  *secs = 0;
  if (!strcasecmp(tz, "UTC") || !strcasecmp(tz, "Z") || !strcasecmp(tz, "Etc/UTC") || !strcasecmp(tz, "GMT") ||
      !strcasecmp(tz, "Etc/GMT"))
    return true;
  if (tz[0] != '+' && tz[0] != '-') return false;
  int h = 0, m = 0;
  size_t n = strlen(tz);
  if (n == 3 && sscanf(tz + 1, "%2d", &h) == 1) {
  } else if (n == 6 && tz[3] == ':' && sscanf(tz + 1, "%2d:%2d", &h, &m) == 2) {
  } else if (n == 5 && sscanf(tz + 1, "%2d%2d", &h, &m) == 2) {
  } else {
    return false;
  }
  if (h > 23 || m > 59) return false;
  *secs = (tz[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
  return true;
}

/* A wall-clock value (in unit) as an instant in zone tz. */
static qv_status wall_to_instant(int64_t v, qv_time_unit unit, const char *tz, int32_t pos, int64_t *out, bool *ok,
                                 qv_error *err) {
  int64_t off;
  if (!tz) {
    *out = v;
    return QV_OK;
  }
  if (!fixed_offset(tz, &off))
    return qv_error_set(err, QV_ERR_UNSUPPORTED,
                        "filter: a timestamp without an offset cannot be compared with time zone %s (write the "
                        "offset, e.g. '2024-01-02 03:04:05+01:00') at column %d",
                        tz, (int)pos);
  if (__builtin_mul_overflow(off, qve_unit_per_second(unit), &off) || __builtin_sub_overflow(v, off, out)) *ok = false;
  return QV_OK;
}

/* ---- literal conversion ---------------------------------------------------- */

static bool rescale_time(int64_t v, qv_time_unit from, qv_time_unit to, int64_t *out) {
  int64_t pf = qve_unit_per_second(from), pt = qve_unit_per_second(to);
  if (pt >= pf) return !__builtin_mul_overflow(v, pt / pf, out);
  if (v % (pf / pt)) return false;
  *out = v / (pf / pt);
  return true;
}

static qv_status set_type(qv_scalar *out, const qv_datatype *to) {
  return qv_datatype_copy(to, &out->type) == QV_OK ? QV_OK : QV_ERR_NOMEM;
}

static bool float_to_decimal(double f, bool single, const qv_datatype *to, qve_i128 *x) {
  char text[64];
  qve_expr_format_double(f, single, text, sizeof text);
  if (strpbrk(text, "eni")) return false; /* exponent, inf, nan */
  const char *dot = strchr(text, '.');
  size_t frac = dot ? strlen(dot + 1) : 0;
  while (frac > 0 && text[strlen(text) - 1] == '0') text[strlen(text) - 1] = '\0', frac--;
  if ((int32_t)frac > to->scale) return false;
  return qve_expr_parse_decimal(text, strlen(text), to->precision, to->scale, x);
}

qv_status qve_bind_convert_scalar(const qv_scalar *v, const qv_datatype *to, int32_t pos, qv_scalar *out, bool *ok,
                                  qv_error *err) {
  qv_scalar r = QV_SCALAR_INIT;
  qv_type_id from = v->type.id;
  *ok = false;
  if (v->is_null || from == QV_TYPE_NULL || qv_datatype_equal(&v->type, to)) {
    if (qv_scalar_copy(v, &r) != QV_OK) return qv_error_nomem(err, "filter");
    qv_datatype_reset(&r.type);
    if (set_type(&r, to) != QV_OK) goto nomem;
    goto cleanup;
  }
  r.is_null = false;
  if (qve_is_int(from)) {
    qve_i128 x = qve_is_uint(from) ? (qve_i128)v->v.u : (qve_i128)v->v.i;
    if (qve_is_int(to->id)) {
      if (!int_fits(x, to->id)) return QV_OK;
      if (qve_is_uint(to->id)) r.v.u = (uint64_t)x;
      else r.v.i = (int64_t)x;
    } else if (qve_is_float(to->id)) {
      /* As Lance: the nearest value of the column's float type. */
      r.v.f = to->id == QV_TYPE_FLOAT32 ? (double)(float)x : (double)x;
    } else if (to->id == QV_TYPE_DECIMAL128) {
      qve_i128 lim = qve_expr_pow10(to->precision - to->scale);
      if (x >= lim || x <= -lim) return QV_OK;
      qve_dec_store(&r, x * qve_expr_pow10(to->scale));
    } else {
      return QV_OK;
    }
  } else if (qve_is_float(from)) {
    double f = v->v.f;
    if (to->id == QV_TYPE_FLOAT64) {
      r.v.f = f;
    } else if (to->id == QV_TYPE_FLOAT32) {
      if (isfinite(f) && fabs(f) > FLT_MAX) return QV_OK; /* would become infinite */
      r.v.f = (double)(float)f;                           /* as Lance: 0.1 matches a float32 0.1 */
    } else if (to->id == QV_TYPE_DECIMAL128) {
      qve_i128 x;
      if (!float_to_decimal(f, from == QV_TYPE_FLOAT32, to, &x)) return QV_OK;
      qve_dec_store(&r, x);
    } else {
      return QV_OK;
    }
  } else if (from == QV_TYPE_DECIMAL128) {
    qve_i128 x = qve_dec_value(v);
    int32_t s1 = v->type.scale;
    if (to->id == QV_TYPE_DECIMAL128) {
      if (to->scale >= s1) {
        qve_i128 lim = qve_expr_pow10(to->precision - (to->scale - s1));
        if (x >= lim || x <= -lim) return QV_OK;
        x *= qve_expr_pow10(to->scale - s1);
      } else {
        qve_i128 d = qve_expr_pow10(s1 - to->scale);
        if (x % d) return QV_OK;
        x /= d;
        qve_i128 lim = qve_expr_pow10(to->precision);
        if (x >= lim || x <= -lim) return QV_OK;
      }
      qve_dec_store(&r, x);
    } else if (qve_is_int(to->id)) {
      qve_i128 d = qve_expr_pow10(s1);
      if (x % d || !int_fits(x / d, to->id)) return QV_OK;
      if (qve_is_uint(to->id)) r.v.u = (uint64_t)(x / d);
      else r.v.i = (int64_t)(x / d);
    } else if (qve_is_float(to->id)) {
      char text[64];
      qve_expr_format_decimal(x, s1, text, sizeof text);
      double f;
      qve_expr_parse_double(text, strlen(text), &f);
      r.v.f = to->id == QV_TYPE_FLOAT32 ? (double)(float)f : f;
    } else {
      return QV_OK;
    }
  } else if (from == QV_TYPE_STRING) {
    if (to->id == QV_TYPE_STRING || to->id == QV_TYPE_BINARY) {
      if (qv_scalar_copy(v, &r) != QV_OK) return qv_error_nomem(err, "filter");
      qv_datatype_reset(&r.type);
    } else if (qve_is_datetime(to->id)) {
      qv_scalar t = QV_SCALAR_INIT;
      QV_RETURN_NOT_OK(qve_bind_read_temporal(v, to, pos, &t, err));
      qv_status st = qve_bind_convert_scalar(&t, to, pos, out, ok, err);
      qv_scalar_reset(&t);
      return st;
    } else {
      return QV_OK;
    }
  } else if (from == QV_TYPE_DATE32) {
    if (to->id != QV_TYPE_TIMESTAMP) return QV_OK;
    int64_t x;
    /* Midnight UTC of that day, as Arrow casts date32 to a timestamp. */
    if (__builtin_mul_overflow(v->v.i, 86400 * qve_unit_per_second(to->unit), &x)) return QV_OK;
    r.v.i = x;
  } else if (from == QV_TYPE_TIMESTAMP) {
    int64_t x;
    if (to->id == QV_TYPE_TIMESTAMP) {
      if (!rescale_time(v->v.i, v->type.unit, to->unit, &x)) return QV_OK;
      if (!v->type.timezone && to->timezone) {
        bool fits = true;
        QV_RETURN_NOT_OK(wall_to_instant(x, to->unit, to->timezone, pos, &x, &fits, err));
        if (!fits) return QV_OK;
      } else if (v->type.timezone && !to->timezone) {
        return QV_OK; /* an instant has no one wall-clock reading; let a cast decide */
      }
      r.v.i = x;
    } else if (to->id == QV_TYPE_DATE32) {
      int64_t per_day = 86400 * qve_unit_per_second(v->type.unit);
      if (v->type.timezone || v->v.i % per_day) return QV_OK;
      r.v.i = v->v.i / per_day;
    } else {
      return QV_OK;
    }
  } else {
    return QV_OK; /* bool, binary, nested: only to themselves (handled above) */
  }
  if (set_type(&r, to) != QV_OK) goto nomem;
cleanup:
  *out = r;
  *ok = true;
  return QV_OK;
nomem:
  qv_scalar_reset(&r);
  return qv_error_nomem(err, "filter");
}

qv_status qve_bind_read_temporal(const qv_scalar *v, const qv_datatype *target, int32_t pos, qv_scalar *out,
                                 qv_error *err) {
  const char *s = (const char *)v->bytes;
  size_t n = (size_t)v->len;
  char shown[80];
  qve_expr_clip(s ? s : "", s ? n : 0, shown, sizeof shown);
  if (target->id == QV_TYPE_DATE32) {
    int64_t days;
    if (!s || !qv_parse_date(s, n, &days))
      return qv_error_set(err, QV_ERR_TYPE, "filter: cannot read '%s' as a date (YYYY-MM-DD) at column %d", shown,
                          (int)pos);
    *out = qv_scalar_int(QV_TYPE_DATE32, days);
    return QV_OK;
  }
  int64_t sec;
  int32_t nanos;
  bool zone;
  if (!s || !qv_parse_datetime(s, n, &sec, &nanos, &zone))
    return qv_error_set(err, QV_ERR_TYPE,
                        "filter: cannot read '%s' as a timestamp (YYYY-MM-DD HH:MM:SS[.f][+HH:MM]) at column %d", shown,
                        (int)pos);
  qv_time_unit unit = target->unit;
  int64_t step = 1000000000 / qve_unit_per_second(unit);
  if (nanos % step) unit = QV_UNIT_NANO; /* keep every digit the text has */
  int64_t per = qve_unit_per_second(unit), x;
  bool fits = true;
  if (__builtin_mul_overflow(sec, per, &x) || __builtin_add_overflow(x, nanos / (1000000000 / per), &x)) fits = false;
  if (fits && !zone && target->timezone)
    QV_RETURN_NOT_OK(wall_to_instant(x, unit, target->timezone, pos, &x, &fits, err));
  if (!fits)
    return qv_error_set(err, QV_ERR_TYPE, "filter: timestamp '%s' is out of range at column %d", shown, (int)pos);
  *out = qv_scalar_int(QV_TYPE_TIMESTAMP, x);
  out->type.unit = unit;
  if (target->timezone && !(out->type.timezone = qv_strdup(target->timezone))) {
    qv_scalar_reset(out);
    return qv_error_nomem(err, "filter");
  }
  return QV_OK;
}

/* ---- casts and decimal arithmetic ------------------------------------------- */

static bool scalar_kind(qv_type_id id) {
  return id == QV_TYPE_BOOL || qve_is_num(id) || id == QV_TYPE_STRING || id == QV_TYPE_BINARY || qve_is_datetime(id) ||
         id == QV_TYPE_TIME64 || id == QV_TYPE_DURATION;
}

bool qve_bind_castable(const qv_datatype *from, const qv_datatype *to) {
  qv_type_id f = from->id, t = to->id;
  if (f == QV_TYPE_NULL || qv_datatype_equal(from, to)) return true;
  if (t == QV_TYPE_STRING) return scalar_kind(f);
  if (f == QV_TYPE_STRING) return scalar_kind(t);
  if ((qve_is_num(f) || f == QV_TYPE_BOOL) && (qve_is_num(t) || t == QV_TYPE_BOOL)) return true;
  if (qve_is_datetime(f) && qve_is_datetime(t)) return true;
  /* Arrow casts temporal values to and from their integer representation. */
  if ((qve_is_datetime(f) || f == QV_TYPE_TIME64 || f == QV_TYPE_DURATION) && qve_is_int(t)) return true;
  if (qve_is_int(f) && (qve_is_datetime(t) || t == QV_TYPE_TIME64 || t == QV_TYPE_DURATION)) return true;
  if (f == t && (f == QV_TYPE_TIME64 || f == QV_TYPE_DURATION)) return true;
  if (qve_is_listlike(f) && qve_is_listlike(t))
    return qve_bind_castable(&from->children[0].type, &to->children[0].type);
  return false;
}

bool qve_bind_decimal_result(qv_op op, const qv_datatype *l, const qv_datatype *r, qv_datatype *out) {
  int32_t p1 = l->precision, s1 = l->scale, p2 = r->precision, s2 = r->scale, p, s;
  int32_t r1 = p1 - s1, r2 = p2 - s2;
  switch (op) {
    case QV_OP_ADD:
    case QV_OP_SUB:
      s = s1 > s2 ? s1 : s2;
      p = (r1 > r2 ? r1 : r2) + s + 1;
      break;
    case QV_OP_MUL:
      s = s1 + s2;
      if (s > 38) return false; /* Arrow refuses rather than round */
      p = p1 + p2 + 1;
      break;
    case QV_OP_DIV:
      s = s1 + 4 > 38 ? 38 : s1 + 4; /* Postgres/MySQL's fixed scale increment */
      p = s - s1 + s2 + p1;
      break;
    default: /* MOD */
      s = s1 > s2 ? s1 : s2;
      p = (r1 < r2 ? r1 : r2) + s;
      break;
  }
  if (p > 38) p = 38;
  if (p < 1) p = 1;
  if (s > p) s = p;
  *out = qv_datatype_simple(QV_TYPE_DECIMAL128);
  out->precision = p;
  out->scale = s;
  return true;
}
