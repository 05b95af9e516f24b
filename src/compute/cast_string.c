/* CAST to and from strings.
 * To string: every value in its printed form (qv_array_format_value):
 * integers in decimal, floats in the shortest form that reads back exactly
 * ("1.0", "NaN", "inf"), decimals with their scale, dates "YYYY-MM-DD",
 * timestamps "YYYY-MM-DD HH:MM:SS[.fff]" (+ zone), bools "true"/"false".
 * binary -> string checks UTF-8; string -> binary shares the bytes.
 * From string (the whole string, no surrounding spaces):
 *   integers: [+-]digits, range-checked;
 *   floats: decimal or exponent notation, NaN, inf, infinity (strtod
 *   without hex forms);
 *   decimal(p, s): [+-]digits[.digits][e[+-]digits], rounded half away from
 *   zero to s digits, then checked against p;
 *   bool: true/false, t/f, yes/no, y/n, on/off, 1/0 (any case);
 *   date32: YYYY-MM-DD; timestamp: YYYY-MM-DD[( |T)HH:MM[:SS[.f]]][Z|+-HH:MM]
 *   (a string without a zone is wall-clock time in the target's zone);
 *   time64: HH:MM[:SS[.f]].
 * A string that does not parse or does not fit is QV_ERR_INVALID naming it
 * (strict) or null (TRY_CAST). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "compute/compute_int.h"

static qv_status string_result(const qv_datatype *to, int64_t n, qv_buffer *data, qv_bytes *offsets, qv_bytes *validity,
                               qv_array **out, qv_error *err) {
  qv_array *r = NULL;
  qv_status st = qvk_array_new(to, n, &r, err);
  if (st == QV_OK) {
    r->buffers[1] = offsets;
    offsets = NULL;
    if (qv_buffer_finish(data, &r->buffers[2]) != QV_OK) st = qv_error_nomem(err, "CAST");
    qvk_set_validity(r, validity);
    validity = NULL;
  }
  qv_bytes_release(offsets);
  qv_bytes_release(validity);
  qv_buffer_reset(data);
  if (st != QV_OK) {
    qv_array_release(r);
    return st;
  }
  *out = r;
  return QV_OK;
}

/* Copy of a's validity as a fresh bitmap (all ones when it has none). */
static qv_bytes *copy_validity(const qv_array *a, qv_error *err) {
  qv_bytes *b = qvk_bytes(qvk_words(a->length) * 8, err);
  if (!b) return NULL;
  qvk_datum d = QVK_DATUM_INIT;
  d.array = (qv_array *)a;
  if (!qvk_validity_words(&d, a->length, (uint64_t *)qv_bytes_mutable(b)))
    memset(qv_bytes_mutable(b), 0xff, (size_t)qv_bitmap_bytes(a->length));
  return b;
}

static qv_status bad_string(const qv_array *a, int64_t i, const qv_datatype *to, const char *why, qv_error *err) {
  int32_t len;
  const uint8_t *p = qv_array_str(a, i, &len);
  char t[64];
  int shown = len > 60 ? 60 : len;
  return qv_error_set(err, QV_ERR_INVALID, "CAST: '%.*s%s' is not a valid %s%s (row %lld)", shown, (const char *)p,
                      len > shown ? "..." : "", qvk_type_name(to, t, sizeof t), why, (long long)i);
}

/* Polars' text for a float: the shortest digits that read back as x, laid
 * out as the ryu crate does (positional when the decimal point falls in
 * (-5, 16] for doubles, (-6, 13] for floats, else d.ddde±X), with Polars'
 * '+' on positive exponents and NaN / inf / -inf.  Returns the length. */
static int polars_float_text(double x, bool f32, char *out, size_t size) {
  if (isnan(x)) return snprintf(out, size, "NaN");
  if (isinf(x)) return snprintf(out, size, x < 0 ? "-inf" : "inf");
  if (x == 0) return snprintf(out, size, signbit(x) ? "-0.0" : "0.0");
  char sci[40];
  int max_p = f32 ? 9 : 17;
  for (int p = 1; p <= max_p; p++) {
    snprintf(sci, sizeof sci, "%.*e", p - 1, x);
    if (f32 ? strtof(sci, NULL) == (float)x : strtod(sci, NULL) == x) break;
  }
  /* sci is [-]d[.ddd]e±XX: its digits and the point's position kk */
  char digits[24];
  int nd = 0;
  const char *q = sci + (sci[0] == '-');
  for (; *q && *q != 'e'; q++)
    if (*q >= '0' && *q <= '9') digits[nd++] = *q;
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  int kk = atoi(q + 1) + 1;
  int hi = f32 ? 13 : 16, lo = f32 ? -6 : -5;
  char *o = out, *end = out + size - 1;
#define PUT(ch) (o < end ? (void)(*o++ = (ch)) : (void)0)
  if (x < 0) PUT('-');
  if (kk >= nd && kk <= hi) {
    for (int i = 0; i < nd; i++) PUT(digits[i]);
    for (int i = nd; i < kk; i++) PUT('0');
    PUT('.');
    PUT('0');
  } else if (kk > 0 && kk <= hi) {
    for (int i = 0; i < nd; i++) {
      if (i == kk) PUT('.');
      PUT(digits[i]);
    }
  } else if (kk > lo && kk <= 0) {
    PUT('0');
    PUT('.');
    for (int i = kk; i < 0; i++) PUT('0');
    for (int i = 0; i < nd; i++) PUT(digits[i]);
  } else {
    PUT(digits[0]);
    if (nd > 1) PUT('.');
    for (int i = 1; i < nd; i++) PUT(digits[i]);
    o += snprintf(o, (size_t)(end - o + 1), "e%+d", kk - 1);
  }
#undef PUT
  *o = '\0';
  return (int)(o - out);
}

static qv_status to_string(qv_array *a, const qv_datatype *to, bool strict, bool polars, qv_array **out, qv_error *err);

qv_status qvk_cast_to_string(qv_array *a, const qv_datatype *to, bool strict, qv_array **out, qv_error *err) {
  return to_string(a, to, strict, false, out, err);
}

qv_status qvk_cast_to_string_polars(qv_array *a, const qv_datatype *to, bool strict, qv_array **out, qv_error *err) {
  return to_string(a, to, strict, true, out, err);
}

static qv_status to_string(qv_array *a, const qv_datatype *to, bool strict, bool polars, qv_array **out,
                           qv_error *err) {
  int64_t n = a->length;
  bool from_bytes = a->type.id == QV_TYPE_STRING || a->type.id == QV_TYPE_BINARY;
  if (from_bytes && (to->id == QV_TYPE_BINARY || a->type.id == QV_TYPE_STRING)) {
    /* same bytes, another type */
    qv_array *r = NULL;
    QV_RETURN_NOT_OK(qvk_array_new(to, n, &r, err));
    r->offset = a->offset;
    r->null_count = a->null_count;
    for (int k = 0; k < 3; k++) r->buffers[k] = qv_bytes_retain(a->buffers[k]);
    *out = r;
    return QV_OK;
  }
  qv_bytes *validity = copy_validity(a, err);
  qv_bytes *offsets = validity ? qvk_bytes((n + 1) * 4, err) : NULL;
  if (!offsets) {
    qv_bytes_release(validity);
    return QV_ERR_NOMEM;
  }
  int32_t *o = (int32_t *)qv_bytes_mutable(offsets);
  uint8_t *valid = qv_bytes_mutable(validity);
  qv_buffer data = QV_BUFFER_INIT;
  qv_status st = QV_OK;
  for (int64_t i = 0; i < n && st == QV_OK; i++) {
    o[i] = (int32_t)data.size;
    if (!qv_array_is_valid(a, i)) continue;
    if (from_bytes) { /* binary -> string */
      int32_t len;
      const uint8_t *p = qv_array_str(a, i, &len);
      if (qv_utf8_valid_prefix(p, len) != len) {
        if (strict) st = qv_error_set(err, QV_ERR_INVALID, "CAST: binary row %lld is not valid UTF-8", (long long)i);
        else qv_bit_clear(valid, i);
        continue;
      }
      st = qv_buffer_append(&data, p, len) == QV_OK ? QV_OK : qv_error_nomem(err, "CAST");
      continue;
    }
    char buf[128];
    int k;
    if (polars && a->type.id == QV_TYPE_FLOAT64)
      k = polars_float_text(((const double *)qv_array_values(a))[i], false, buf, sizeof buf);
    else if (polars && a->type.id == QV_TYPE_FLOAT32)
      k = polars_float_text((double)((const float *)qv_array_values(a))[i], true, buf, sizeof buf);
    else k = qv_array_format_value(a, i, buf, sizeof buf);
    if (k < 0 || k >= (int)sizeof buf) {
      st = qv_error_set(err, QV_ERR_INVALID, "CAST: value of row %lld does not format", (long long)i);
      break;
    }
    if (qv_buffer_append(&data, buf, k) != QV_OK) st = qv_error_nomem(err, "CAST");
    if (data.size > INT32_MAX) st = qv_error_set(err, QV_ERR_OVERFLOW, "CAST: strings exceed 2 GiB");
  }
  if (st != QV_OK) {
    qv_buffer_reset(&data);
    qv_bytes_release(offsets);
    qv_bytes_release(validity);
    return st;
  }
  o[n] = (int32_t)data.size;
  return string_result(to, n, &data, offsets, validity, out, err);
}

/* ---- parsers ------------------------------------------------------------------- */

static bool parse_int(const uint8_t *p, int64_t n, qvk_i128 *out) {
  int64_t i = 0;
  bool neg = false;
  if (i < n && (p[i] == '+' || p[i] == '-')) neg = p[i++] == '-';
  if (i >= n) return false;
  qvk_i128 v = 0;
  for (; i < n; i++) {
    if (p[i] < '0' || p[i] > '9') return false;
    if (v > QVK_I128_MAX / 100) return false; /* far beyond any integer type */
    v = v * 10 + (p[i] - '0');
  }
  *out = neg ? -v : v;
  return true;
}

/* [+-]digits[.digits][e[+-]digits] to an integer at scale s, rounding half
 * away from zero; false when malformed or beyond 38 digits. */
static bool parse_decimal(const uint8_t *p, int64_t n, int scale, qvk_i128 *out) {
  int64_t i = 0;
  bool neg = false, any = false;
  if (i < n && (p[i] == '+' || p[i] == '-')) neg = p[i++] == '-';
  /* digits and where the point is */
  int64_t ds = i, de, point = -1;
  for (; i < n && ((p[i] >= '0' && p[i] <= '9') || (p[i] == '.' && point < 0)); i++) {
    if (p[i] == '.') point = i;
    else any = true;
  }
  de = i;
  if (!any) return false;
  int64_t exp = 0;
  if (i < n && (p[i] == 'e' || p[i] == 'E')) {
    i++;
    qvk_i128 e;
    if (!parse_int(p + i, n - i, &e) || e > 1000 || e < -1000) return false;
    exp = (int64_t)e;
    i = n;
  }
  if (i != n) return false;
  int64_t frac_digits = point < 0 ? 0 : de - point - 1;
  /* value = digits * 10^(exp - frac_digits); want digits * 10^(exp - frac + scale) */
  int64_t shift = exp - frac_digits + scale;
  qvk_i128 v = 0;
  int64_t kept = 0, cut = 0;
  bool round_up = false, sticky = false;
  int64_t total = 0;
  for (int64_t k = ds; k < de; k++) total += p[k] != '.';
  int64_t keep = shift >= 0 ? total : total + shift; /* digits before the rounding point */
  for (int64_t k = ds; k < de; k++) {
    if (p[k] == '.') continue;
    int dgt = p[k] - '0';
    if (kept < keep) {
      if (v > QVK_I128_MAX / 10 - 10) return false;
      v = v * 10 + dgt;
      kept++;
    } else {
      if (cut == 0) round_up = dgt >= 5;
      else sticky |= dgt != 0;
      cut++;
    }
  }
  (void)sticky;
  if (round_up && keep >= 0) v += 1; /* keep < 0: below half a unit */
  for (int64_t k = 0; k < shift; k++) {
    if (v > QVK_I128_MAX / 10) return false;
    v *= 10;
  }
  *out = neg ? -v : v;
  return true;
}

static bool parse_float(const uint8_t *p, int64_t n, char *scratch, double *out) {
  if (n == 0 || n > 400) return false;
  for (int64_t k = 0; k < n; k++)
    if (p[k] == 'x' || p[k] == 'X' || p[k] == ' ' || p[k] == '\t' || p[k] == '\n' || p[k] == 0) return false;
  memcpy(scratch, p, (size_t)n);
  scratch[n] = '\0';
  char *end = NULL;
  double v = strtod(scratch, &end);
  if (end != scratch + n) return false;
  *out = v;
  return true;
}

static bool word_is(const uint8_t *p, int64_t n, const char *w) {
  int64_t k = 0;
  for (; k < n && w[k]; k++) {
    uint8_t c = p[k] >= 'A' && p[k] <= 'Z' ? (uint8_t)(p[k] + 32) : p[k];
    if (c != (uint8_t)w[k]) return false;
  }
  return k == n && w[k] == '\0';
}

static bool parse_bool(const uint8_t *p, int64_t n, bool *out) {
  static const char *yes[] = {"true", "t", "yes", "y", "on", "1"};
  static const char *no[] = {"false", "f", "no", "n", "off", "0"};
  for (int k = 0; k < 6; k++) {
    if (word_is(p, n, yes[k])) {
      *out = true;
      return true;
    }
    if (word_is(p, n, no[k])) {
      *out = false;
      return true;
    }
  }
  return false;
}

static bool parse_time(const uint8_t *p, int64_t n, int64_t per, int64_t *out) {
  /* HH:MM[:SS[.f{1,9}]] */
  if (n < 5 || p[2] != ':') return false;
  int64_t v[3] = {0, 0, 0}, frac = 0;
  int64_t i = 0;
  for (int f = 0; f < 3; f++) {
    if (f == 2 && i >= n) break;
    if (f > 0) {
      if (i >= n || p[i] != ':') return false;
      i++;
    }
    if (i + 2 > n || p[i] < '0' || p[i] > '9' || p[i + 1] < '0' || p[i + 1] > '9') return false;
    v[f] = (p[i] - '0') * 10 + (p[i + 1] - '0');
    i += 2;
  }
  if (i < n) {
    if (p[i] != '.') return false;
    i++;
    int nd = 0;
    for (; i < n; i++, nd++) {
      if (nd >= 9 || p[i] < '0' || p[i] > '9') return false;
      frac = frac * 10 + (p[i] - '0');
    }
    if (nd == 0) return false;
    for (; nd < 9; nd++) frac *= 10;
  }
  if (v[0] > 23 || v[1] > 59 || v[2] > 59) return false;
  *out = ((v[0] * 60 + v[1]) * 60 + v[2]) * per + frac / (1000000000 / per);
  return true;
}

qv_status qvk_cast_from_string(qv_array *a, const qv_datatype *to, bool strict, qv_array **out, qv_error *err) {
  qv_type_id y = to->id;
  bool ok_type = qv_type_is_numeric(y) || y == QV_TYPE_BOOL || y == QV_TYPE_DATE32 || y == QV_TYPE_TIMESTAMP ||
                 y == QV_TYPE_TIME64;
  if (!ok_type) {
    char f[64], t[64];
    return qv_error_set(err, QV_ERR_TYPE, "CAST: cannot cast %s to %s", qvk_type_name(&a->type, f, sizeof f),
                        qvk_type_name(to, t, sizeof t));
  }
  int64_t off_to = 0;
  if (y == QV_TYPE_TIMESTAMP && to->timezone) QV_RETURN_NOT_OK(qvk_tz_offset(to->timezone, &off_to, err));
  int64_t n = a->length;
  qv_array *r = NULL;
  QV_RETURN_NOT_OK(qvk_fixed_result(to, n, false, &r, err));
  qv_bytes *validity = copy_validity(a, err);
  char *scratch = validity ? qv_malloc(512) : NULL;
  if (!scratch) {
    qv_bytes_release(validity);
    qv_array_release(r);
    return QV_ERR_NOMEM;
  }
  uint8_t *valid = qv_bytes_mutable(validity), *dst = qv_bytes_mutable(r->buffers[1]);
  qvk_i128 lo = 0, hi = 0;
  switch (y) {
    case QV_TYPE_INT8:
      lo = INT8_MIN;
      hi = INT8_MAX;
      break;
    case QV_TYPE_INT16:
      lo = INT16_MIN;
      hi = INT16_MAX;
      break;
    case QV_TYPE_INT32:
      lo = INT32_MIN;
      hi = INT32_MAX;
      break;
    case QV_TYPE_INT64:
      lo = INT64_MIN;
      hi = INT64_MAX;
      break;
    case QV_TYPE_UINT8: hi = UINT8_MAX; break;
    case QV_TYPE_UINT16: hi = UINT16_MAX; break;
    case QV_TYPE_UINT32: hi = UINT32_MAX; break;
    case QV_TYPE_UINT64: hi = UINT64_MAX; break;
    case QV_TYPE_DECIMAL128:
      hi = qvk_pow10_i128[to->precision < 1 || to->precision > 38 ? 38 : to->precision] - 1;
      lo = -hi;
      break;
    default: break;
  }
  int w = qv_type_byte_width(y);
  qv_status st = QV_OK;
  for (int64_t i = 0; i < n && st == QV_OK; i++) {
    if (!qv_array_is_valid(a, i)) continue;
    int32_t len;
    const uint8_t *p = qv_array_str(a, i, &len);
    bool ok = false;
    const char *why = "";
    qvk_i128 v = 0;
    switch (y) {
      case QV_TYPE_FLOAT32:
      case QV_TYPE_FLOAT64: {
        double f;
        ok = parse_float(p, len, scratch, &f);
        if (ok && y == QV_TYPE_FLOAT32) {
          float g = (float)f;
          memcpy(dst + 4 * i, &g, 4);
        } else if (ok) {
          memcpy(dst + 8 * i, &f, 8);
        }
        break;
      }
      case QV_TYPE_BOOL: {
        bool b;
        ok = parse_bool(p, len, &b);
        if (ok && b) qv_bit_set(dst, i);
        break;
      }
      case QV_TYPE_DATE32: {
        int64_t days;
        ok = qv_parse_date((const char *)p, (size_t)len, &days) && days >= INT32_MIN && days <= INT32_MAX;
        if (ok) {
          int32_t d32 = (int32_t)days;
          memcpy(dst + 4 * i, &d32, 4);
        }
        break;
      }
      case QV_TYPE_TIMESTAMP: {
        int64_t secs, per = qvk_unit_per_second(to->unit), x;
        int32_t nanos;
        bool zone;
        ok = qv_parse_datetime((const char *)p, (size_t)len, &secs, &nanos, &zone);
        if (ok && !zone) secs -= off_to; /* wall-clock time in the target's zone */
        ok = ok && !__builtin_mul_overflow(secs, per, &x) && !__builtin_add_overflow(x, nanos / (1000000000 / per), &x);
        if (ok) memcpy(dst + 8 * i, &x, 8);
        else why = " (or is out of range)";
        break;
      }
      case QV_TYPE_TIME64: {
        int64_t x;
        ok = parse_time(p, len, qvk_unit_per_second(to->unit), &x);
        if (ok) memcpy(dst + 8 * i, &x, 8);
        break;
      }
      case QV_TYPE_DECIMAL128:
        ok = parse_decimal(p, len, to->scale, &v) && v >= lo && v <= hi;
        if (ok) qvk_dec_put(dst + 16 * i, v);
        break;
      default: /* integers */
        ok = parse_int(p, len, &v) && v >= lo && v <= hi;
        if (ok) {
          if (qv_type_is_signed(y)) {
            int64_t s = (int64_t)v;
            memcpy(dst + w * i, &s, (size_t)w);
          } else {
            uint64_t u = (uint64_t)v;
            memcpy(dst + w * i, &u, (size_t)w);
          }
        }
        break;
    }
    if (ok) continue;
    if (strict) st = bad_string(a, i, to, why, err);
    else qv_bit_clear(valid, i);
  }
  qv_free(scratch);
  if (st != QV_OK) {
    qv_bytes_release(validity);
    qv_array_release(r);
    return st;
  }
  qvk_set_validity(r, validity);
  *out = r;
  return QV_OK;
}
