/* Text forms of values and batches, for the command line and tests. */
#include "quiver/columnar.h"
#include "columnar/columnar_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void qvc_textf(char *buf, size_t size, int *n, const char *fmt, ...) {
  size_t off = (size_t)*n;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(off < size ? buf + off : NULL, off < size ? size - off : 0, fmt, ap);
  va_end(ap);
  if (k > 0) *n += k;
}

#define put qvc_textf

static void put_value(char *buf, size_t size, int *n, const qv_array *a, int64_t i) {
  size_t off = (size_t)*n;
  *n += qv_array_format_value(a, i, off < size ? buf + off : NULL, off < size ? size - off : 0);
}

/* Shortest %g form that reads back as the same double. */
static void put_double(char *buf, size_t size, int *n, double v, bool single) {
  if (isnan(v)) {
    put(buf, size, n, "NaN");
    return;
  }
  if (isinf(v)) {
    put(buf, size, n, v < 0 ? "-inf" : "inf");
    return;
  }
  char tmp[40];
  for (int prec = single ? 6 : 15; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, v);
    if (single ? (float)strtod(tmp, NULL) == (float)v : strtod(tmp, NULL) == v) break;
  }
  /* Keep a float visibly a float. */
  if (!strpbrk(tmp, ".eEn")) strcat(tmp, ".0");
  put(buf, size, n, "%s", tmp);
}

/* Unsigned 128-bit magnitude to decimal digits; returns the digit count. */
static int u128_digits(qv_uint128 v, char *out) {
  char rev[40];
  int k = 0;
  do {
    rev[k++] = (char)('0' + (int)(v % 10));
    v /= 10;
  } while (v);
  for (int i = 0; i < k; i++) out[i] = rev[k - 1 - i];
  out[k] = '\0';
  return k;
}

static void put_decimal(char *buf, size_t size, int *n, const uint8_t *p, int32_t scale) {
  uint64_t lo;
  int64_t hi;
  memcpy(&lo, p, 8);
  memcpy(&hi, p + 8, 8);
  qv_int128 v = (qv_int128)(((qv_uint128)(uint64_t)hi << 64) | lo);
  bool neg = v < 0;
  qv_uint128 mag = neg ? (qv_uint128)0 - (qv_uint128)v : (qv_uint128)v;
  char digits[48];
  int k = u128_digits(mag, digits);
  if (neg) put(buf, size, n, "-");
  if (scale <= 0) {
    put(buf, size, n, "%s", digits);
    return;
  }
  if (k <= scale) {
    put(buf, size, n, "0.");
    for (int z = 0; z < scale - k; z++) put(buf, size, n, "0");
    put(buf, size, n, "%s", digits);
    return;
  }
  put(buf, size, n, "%.*s.%s", k - scale, digits, digits + (k - scale));
}

static int64_t unit_per_second(qv_time_unit u) {
  static const int64_t f[] = {1, 1000, 1000000, 1000000000};
  return f[u];
}

/* Fixed UTC offset of a zone name ("UTC", "Z", "+01:00", "-0530"), in
 * seconds; false for named zones (no time-zone database here). */
static bool zone_offset(const char *tz, int64_t *out) {
  if (!strcmp(tz, "UTC") || !strcmp(tz, "Z") || !strcmp(tz, "Etc/UTC") || !strcmp(tz, "GMT")) {
    *out = 0;
    return true;
  }
  if ((tz[0] != '+' && tz[0] != '-') || strlen(tz) < 3) return false;
  int h = 0, m = 0;
  const char *p = tz + 1;
  if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9') return false;
  h = (p[0] - '0') * 10 + (p[1] - '0');
  p += 2;
  if (*p == ':') p++;
  if (*p) {
    if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9' || p[2]) return false;
    m = (p[0] - '0') * 10 + (p[1] - '0');
  }
  *out = (tz[0] == '-' ? -1 : 1) * (int64_t)(h * 3600 + m * 60);
  return true;
}

/* A zoned timestamp prints as the wall-clock time in its zone followed by
 * the zone ("...+01:00", "...Z"); a named zone we cannot resolve prints the
 * UTC time with "Z" so the instant is never misread. */
static void put_timestamp(char *buf, size_t size, int *n, int64_t v, qv_time_unit unit, const char *tz) {
  int64_t per = unit_per_second(unit);
  int64_t secs = v / per, frac = v % per;
  if (frac < 0) {
    frac += per;
    secs -= 1;
  }
  int64_t offset = 0;
  bool fixed = tz && zone_offset(tz, &offset);
  /* Near the ends of int64 the local time is not representable: print UTC. */
  int64_t local;
  if (__builtin_add_overflow(secs, offset, &local)) fixed = false;
  else secs = local;
  static const int digits[] = {0, 3, 6, 9};
  char tmp[64];
  int32_t nanos = (int32_t)(frac * (1000000000 / per));
  qv_format_datetime(secs, nanos, digits[unit], tmp, sizeof tmp);
  put(buf, size, n, "%s", tmp);
  if (!tz) return;
  if (!fixed) put(buf, size, n, "Z");
  else if (offset == 0 && (tz[0] != '+' && tz[0] != '-')) put(buf, size, n, "Z");
  else put(buf, size, n, "%s", tz);
}

int qv_array_format_value(const qv_array *a, int64_t i, char *buf, size_t size) {
  int n = 0;
  if (size == 0) buf = NULL;
  if (!qv_array_is_valid(a, i) || a->type.id == QV_TYPE_NULL) {
    put(buf, size, &n, "null");
    return n;
  }
  if (a->type.id == QV_TYPE_DICTIONARY)
    return qv_array_format_value(a->children[0], qvc_dictionary_index(a, i), buf, size);
  int64_t j = a->offset + i;
  const uint8_t *v = a->buffers[1] ? a->buffers[1]->data : NULL;
  switch (a->type.id) {
    case QV_TYPE_BOOL: put(buf, size, &n, "%s", qv_bit_get(v, j) ? "true" : "false"); break;
    case QV_TYPE_INT8: put(buf, size, &n, "%d", ((const int8_t *)v)[j]); break;
    case QV_TYPE_INT16: put(buf, size, &n, "%d", ((const int16_t *)v)[j]); break;
    case QV_TYPE_INT32: put(buf, size, &n, "%" PRId32, ((const int32_t *)v)[j]); break;
    case QV_TYPE_INT64: put(buf, size, &n, "%" PRId64, ((const int64_t *)v)[j]); break;
    case QV_TYPE_UINT8: put(buf, size, &n, "%u", v[j]); break;
    case QV_TYPE_UINT16: put(buf, size, &n, "%u", ((const uint16_t *)v)[j]); break;
    case QV_TYPE_UINT32: put(buf, size, &n, "%" PRIu32, ((const uint32_t *)v)[j]); break;
    case QV_TYPE_UINT64: put(buf, size, &n, "%" PRIu64, ((const uint64_t *)v)[j]); break;
    case QV_TYPE_FLOAT32: put_double(buf, size, &n, ((const float *)v)[j], true); break;
    case QV_TYPE_FLOAT64: put_double(buf, size, &n, ((const double *)v)[j], false); break;
    case QV_TYPE_DECIMAL128: put_decimal(buf, size, &n, v + 16 * j, a->type.scale); break;
    case QV_TYPE_STRING: {
      int32_t len;
      const uint8_t *s = qv_array_str(a, i, &len);
      put(buf, size, &n, "%.*s", (int)len, (const char *)s);
      break;
    }
    case QV_TYPE_BINARY: {
      int32_t len;
      const uint8_t *s = qv_array_str(a, i, &len);
      put(buf, size, &n, "0x");
      for (int32_t k = 0; k < len; k++) put(buf, size, &n, "%02x", s[k]);
      break;
    }
    case QV_TYPE_DATE32: {
      int64_t y;
      unsigned m, d;
      qv_civil_from_days(((const int32_t *)v)[j], &y, &m, &d);
      put(buf, size, &n, "%04" PRId64 "-%02u-%02u", y, m, d);
      break;
    }
    case QV_TYPE_TIMESTAMP:
      put_timestamp(buf, size, &n, ((const int64_t *)v)[j], a->type.unit, a->type.timezone);
      break;
    case QV_TYPE_TIME64: {
      int64_t t = ((const int64_t *)v)[j], per = unit_per_second(a->type.unit);
      int64_t secs = t / per, frac = t % per;
      put(buf, size, &n, "%02d:%02d:%02d", (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
      if (per > 1)
        put(buf, size, &n, ".%0*" PRId64,
            a->type.unit == QV_UNIT_NANO    ? 9
            : a->type.unit == QV_UNIT_MICRO ? 6
                                            : 3,
            frac);
      break;
    }
    case QV_TYPE_DURATION:
      put(buf, size, &n, "%" PRId64 "%s", ((const int64_t *)v)[j], qv_time_unit_name(a->type.unit));
      break;
    case QV_TYPE_LIST:
    case QV_TYPE_FIXED_SIZE_LIST: {
      int64_t start, end;
      if (a->type.id == QV_TYPE_LIST) {
        start = ((const int32_t *)v)[j];
        end = ((const int32_t *)v)[j + 1];
      } else {
        start = j * a->type.list_size;
        end = start + a->type.list_size;
      }
      put(buf, size, &n, "[");
      for (int64_t k = start; k < end; k++) {
        if (k > start) put(buf, size, &n, ", ");
        put_value(buf, size, &n, a->children[0], k);
      }
      put(buf, size, &n, "]");
      break;
    }
    case QV_TYPE_STRUCT:
      put(buf, size, &n, "{");
      for (int32_t c = 0; c < a->n_children; c++) {
        put(buf, size, &n, "%s%s: ", c ? ", " : "", a->type.children[c].name);
        put_value(buf, size, &n, a->children[c], j);
      }
      put(buf, size, &n, "}");
      break;
    default: put(buf, size, &n, "?"); break;
  }
  return n;
}

/* Display width of a UTF-8 string: code points, which is right for the
 * text we print (no East Asian wide-character handling). */
static int display_width(const char *s) {
  int w = 0;
  for (; *s; s++)
    if (((unsigned char)*s & 0xC0) != 0x80) w++;
  return w;
}

#define CELL_MAX 48

/* Truncates a cell to CELL_MAX display characters, marking the cut with "…". */
static void clip(char *cell) {
  int w = 0;
  for (char *p = cell; *p; p++) {
    if (((unsigned char)*p & 0xC0) != 0x80 && ++w > CELL_MAX - 1) {
      strcpy(p, "\xE2\x80\xA6");
      return;
    }
  }
}

qv_status qv_batch_print(const qv_batch *b, FILE *out, qv_error *err) {
  int32_t nc = b->schema.n_fields;
  int *width = qv_calloc(nc > 0 ? (size_t)nc : 1, sizeof *width);
  if (!width) return qv_error_nomem(err, NULL);
  char cell[512];
  for (int32_t c = 0; c < nc; c++) {
    width[c] = display_width(b->schema.fields[c].name);
    for (int64_t r = 0; r < b->num_rows; r++) {
      qv_array_format_value(b->columns[c], r, cell, sizeof cell);
      clip(cell);
      int w = display_width(cell);
      if (w > width[c]) width[c] = w;
    }
  }
  for (int32_t c = 0; c < nc; c++) {
    const char *name = b->schema.fields[c].name;
    int pad = width[c] - display_width(name);
    if (qv_type_is_numeric(b->schema.fields[c].type.id)) fprintf(out, "%s%*s%s", c ? " | " : "", pad, "", name);
    else fprintf(out, "%s%s%*s", c ? " | " : "", name, pad, "");
  }
  fputc('\n', out);
  for (int32_t c = 0; c < nc; c++) {
    fprintf(out, "%s", c ? "-+-" : "");
    for (int k = 0; k < width[c]; k++) fputc('-', out);
  }
  fputc('\n', out);
  for (int64_t r = 0; r < b->num_rows; r++) {
    for (int32_t c = 0; c < nc; c++) {
      qv_array_format_value(b->columns[c], r, cell, sizeof cell);
      clip(cell);
      bool right = qv_type_is_numeric(b->columns[c]->type.id);
      int pad = width[c] - display_width(cell);
      if (right) fprintf(out, "%s%*s%s", c ? " | " : "", pad, "", cell);
      else fprintf(out, "%s%s%*s", c ? " | " : "", cell, pad, "");
    }
    fputc('\n', out);
  }
  qv_free(width);
  return ferror(out) ? qv_error_set(err, QV_ERR_IO, "cannot write the table") : QV_OK;
}
