/* BigQuery literals, their bounds, and column names.
 *
 * Spellings follow the reference translator (polars-bigquery): integers
 * as INT64 digits, floats as Python's repr, strings single-quoted with
 * backslash escapes, dates as DATE(TIMESTAMP_SECONDS(days * 86400)),
 * timestamps as TIMESTAMP_MICROS/TIMESTAMP_MILLIS (wrapped in DATETIME()
 * when naive).  A value outside what BigQuery can hold has no spelling: the
 * node declines and the engine filters it locally. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "pushdown/bigquery_int.h"

/* ---- text ------------------------------------------------------------- */

/* ---- numbers ---------------------------------------------------------- */

/* Python's repr(float): the shortest digits that round-trip, positional
 * when the decimal exponent is in [-4, 16), else d.ddde+XX. */
void qvp_bq_double(double v, char *buf, size_t size) {
  char digits[40];
  int prec;
  for (prec = 1; prec <= 17; prec++) {
    snprintf(digits, sizeof digits, "%.*e", prec - 1, v);
    if (strtod(digits, NULL) == v) break;
  }
  /* digits: [-]d[.ddd]e[+-]XX */
  const char *p = digits;
  bool neg = *p == '-';
  if (neg) p++;
  char mant[24];
  size_t m = 0;
  for (; *p && *p != 'e'; p++)
    if (*p != '.' && m + 1 < sizeof mant) mant[m++] = *p;
  mant[m] = 0;
  while (m > 1 && mant[m - 1] == '0') mant[--m] = 0; /* %.*e may pad */
  int exp = atoi(p + 1);
  char out[64];
  size_t k = 0;
  if (neg) out[k++] = '-';
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      out[k++] = '0';
      out[k++] = '.';
      for (int i = -1; i > exp; i--) out[k++] = '0';
      for (size_t i = 0; i < m; i++) out[k++] = mant[i];
    } else {
      for (int i = 0; i <= exp; i++) out[k++] = (size_t)i < m ? mant[i] : '0';
      out[k++] = '.';
      if ((size_t)exp + 1 < m) {
        for (size_t i = (size_t)exp + 1; i < m; i++) out[k++] = mant[i];
      } else {
        out[k++] = '0';
      }
    }
    out[k] = 0;
  } else {
    out[k++] = mant[0];
    if (m > 1) {
      out[k++] = '.';
      for (size_t i = 1; i < m; i++) out[k++] = mant[i];
    }
    snprintf(out + k, sizeof out - k, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  }
  snprintf(buf, size, "%s", out);
}

/* ---- strings ---------------------------------------------------------- */

void qvp_bq_string(const uint8_t *s, int64_t n, qvb_text *o) {
  qvb_text_s(o, "'");
  int64_t run = 0; /* start of the pending run of plain bytes */
  for (int64_t i = 0; i < n; i++) {
    const char *esc = NULL;
    char hex[8];
    switch (s[i]) {
      case '\\': esc = "\\\\"; break;
      case '\'': esc = "\\'"; break;
      case '\n': esc = "\\n"; break;
      case '\r': esc = "\\r"; break;
      case '\t': esc = "\\t"; break;
      default:
        /* NUL and the other control characters: a hex escape is always a
         * valid GoogleSQL spelling, a raw one may not be. */
        if (s[i] < 0x20 || s[i] == 0x7f) {
          snprintf(hex, sizeof hex, "\\x%02x", s[i]);
          esc = hex;
        }
        break;
    }
    if (!esc) continue;
    qvb_text_add(o, (const char *)s + run, (size_t)(i - run));
    qvb_text_s(o, esc);
    run = i + 1;
  }
  qvb_text_add(o, (const char *)s + run, (size_t)(n - run));
  qvb_text_s(o, "'");
}

/* ---- temporal bounds -------------------------------------------------- */

/* 0001-01-01 and 9999-12-31 as days since the epoch, and the matching
 * TIMESTAMP range in microseconds (to 9999-12-31 23:59:59.999999). */
#define BQ_MIN_DAYS INT64_C(-719162)
#define BQ_MAX_DAYS INT64_C(2932896)
#define BQ_MIN_MICROS INT64_C(-62135596800000000)
#define BQ_MAX_MICROS INT64_C(253402300799999999)

static bool timestamp(const qv_scalar *v, qvb_text *o, const char **why) {
  int64_t x = v->v.i;
  const char *fn = "TIMESTAMP_MICROS";
  switch (v->type.unit) {
    case QV_UNIT_MICRO: break;
    case QV_UNIT_MILLI:
      fn = "TIMESTAMP_MILLIS";
      if (x < BQ_MIN_MICROS / 1000 || x > BQ_MAX_MICROS / 1000) {
        *why = "timestamp outside BigQuery's range 0001-01-01 .. 9999-12-31 23:59:59.999999";
        return false;
      }
      break;
    case QV_UNIT_NANO:
      if (x % 1000 != 0) {
        *why = "a nanosecond timestamp not divisible by 1000: BigQuery holds microseconds";
        return false;
      }
      x /= 1000;
      break;
    default: *why = "a timestamp in seconds: Polars has no such unit and quiver does not guess one"; return false;
  }
  if (v->type.unit != QV_UNIT_MILLI && (x < BQ_MIN_MICROS || x > BQ_MAX_MICROS)) {
    *why = "timestamp outside BigQuery's range 0001-01-01 .. 9999-12-31 23:59:59.999999";
    return false;
  }
  if (v->type.timezone) qvb_text_f(o, "%s(%lld)", fn, (long long)x);
  else qvb_text_f(o, "DATETIME(%s(%lld))", fn, (long long)x);
  return true;
}

bool qvp_bq_literal(const qv_scalar *v, qvb_text *o, const char **why) {
  char buf[64];
  if (v->is_null) {
    *why = "a bare NULL literal (use is_null / is_not_null for NULL checks)";
    return false;
  }
  switch (v->type.id) {
    case QV_TYPE_BOOL: qvb_text_s(o, v->v.b ? "TRUE" : "FALSE"); return true;
    case QV_TYPE_INT8:
    case QV_TYPE_INT16:
    case QV_TYPE_INT32:
    case QV_TYPE_INT64: qvb_text_f(o, "%lld", (long long)v->v.i); return true;
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32:
    case QV_TYPE_UINT64:
      if (v->v.u > (uint64_t)INT64_MAX) {
        *why = "an unsigned integer above 2^63-1 does not fit BigQuery's INT64";
        return false;
      }
      qvb_text_f(o, "%llu", (unsigned long long)v->v.u);
      return true;
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64:
      if (!isfinite(v->v.f)) {
        *why = "NaN and infinities do not push as literals";
        return false;
      }
      qvp_bq_double(v->v.f, buf, sizeof buf);
      qvb_text_s(o, buf);
      return true;
    case QV_TYPE_STRING: qvp_bq_string(v->bytes, v->len, o); return true;
    case QV_TYPE_DATE32:
      if (v->v.i < BQ_MIN_DAYS || v->v.i > BQ_MAX_DAYS) {
        *why = "date outside BigQuery's range 0001-01-01 .. 9999-12-31";
        return false;
      }
      qvb_text_f(o, "DATE(TIMESTAMP_SECONDS(%lld * 86400))", (long long)v->v.i);
      return true;
    case QV_TYPE_TIMESTAMP: return timestamp(v, o, why);
    case QV_TYPE_DECIMAL128: *why = "decimal literals are not translated (NUMERIC scale rules differ)"; return false;
    case QV_TYPE_BINARY: *why = "binary literals are not translated"; return false;
    case QV_TYPE_TIME64:
    case QV_TYPE_DURATION: *why = "Time and Duration literals are not translated"; return false;
    default: *why = "no GoogleSQL spelling for a literal of this type"; return false;
  }
}

/* ---- column names ----------------------------------------------------- */

static bool name_char_ok(utf8proc_int32_t c) {
  if (c < 0x80 && strchr("&%=+:'<>#|", (int)c) && c != 0) return true;
  switch (utf8proc_category(c)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_ZS: return true;
    default: return false;
  }
}

qv_status qvp_bq_check_name(const char *name, qv_error *err) {
  if (!name || !*name) return qv_error_set(err, QV_ERR_INVALID, "bigquery: an empty column name");
  const utf8proc_uint8_t *s = (const utf8proc_uint8_t *)name;
  utf8proc_ssize_t len = (utf8proc_ssize_t)strlen(name), i = 0;
  int64_t chars = 0;
  while (i < len) {
    utf8proc_int32_t c;
    utf8proc_ssize_t k = utf8proc_iterate(s + i, len - i, &c);
    if (k <= 0)
      return qv_error_set(err, QV_ERR_INVALID, "bigquery: column name is not valid UTF-8 at byte %lld", (long long)i);
    if (!name_char_ok(c)) {
      if (c >= 0x20 && c != 0x7f)
        return qv_error_set(
            err, QV_ERR_INVALID,
            "bigquery: column name '%s' contains '%.*s' (U+%04X), which BigQuery column names cannot hold", name,
            (int)k, name + i, (unsigned)c);
      return qv_error_set(err, QV_ERR_INVALID,
                          "bigquery: column name contains the control character U+%04X at byte %lld, which BigQuery "
                          "column names cannot hold",
                          (unsigned)c, (long long)i);
    }
    i += k;
    chars++;
  }
  if (chars > QV_BQ_MAX_NAME_CHARS)
    return qv_error_set(err, QV_ERR_INVALID, "bigquery: column name '%.40s...' is longer than %d characters", name,
                        QV_BQ_MAX_NAME_CHARS);
  return QV_OK;
}

/* ---- is_in lists ------------------------------------------------------ */

/* Bytes of the items as a one-column Arrow IPC stream (a Polars Series
 * serialized), written by quiver's own writer; -1 when they cannot be
 * built (allocation failure sets *oom). */
static int64_t ipc_size(const qv_expr *const *items, int32_t n, bool *oom) {
  qv_error e;
  qv_builder b;
  qv_array *arr = NULL;
  qv_batch *batch = NULL;
  qv_schema schema = QV_SCHEMA_INIT;
  qv_field f;
  qv_datatype ty = QV_DATATYPE_INIT;
  int64_t size = -1;
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = NULL;
  qv_ipc_writer *w = NULL;
  if (qv_builder_init(&b, &items[0]->value.type, &e) != QV_OK) {
    *oom = e.code == QV_ERR_NOMEM;
    return -1;
  }
  qv_status st = QV_OK;
  for (int32_t i = 0; i < n && st == QV_OK; i++) {
    const qv_scalar *v = &items[i]->value;
    switch (v->type.id) {
      case QV_TYPE_BOOL: st = qv_builder_append_bool(&b, v->v.b); break;
      case QV_TYPE_UINT8:
      case QV_TYPE_UINT16:
      case QV_TYPE_UINT32:
      case QV_TYPE_UINT64: st = qv_builder_append_uint(&b, v->v.u); break;
      case QV_TYPE_FLOAT32:
      case QV_TYPE_FLOAT64: st = qv_builder_append_double(&b, v->v.f); break;
      case QV_TYPE_STRING: st = qv_builder_append_bytes(&b, v->bytes, v->len); break;
      default: st = qv_builder_append_int(&b, v->v.i); break;
    }
  }
  if (st == QV_OK) st = qv_builder_finish(&b, &arr, &e);
  else qv_builder_reset(&b);
  if (st == QV_OK) st = qv_datatype_copy(&items[0]->value.type, &ty);
  if (st == QV_OK) st = qv_field_init(&f, "", &ty, true, &e);
  if (st == QV_OK) {
    st = qv_schema_add(&schema, &f, &e);
    qv_field_reset(&f);
  }
  if (st == QV_OK) {
    st = qv_batch_make(&schema, &arr, n, &batch, &e);
    arr = NULL; /* taken */
  }
  if (st == QV_OK) {
    mem = open_memstream(&buf, &len);
    if (!mem) st = QV_ERR_NOMEM;
  }
  if (st == QV_OK) st = qv_ipc_writer_open(mem, QV_IPC_STREAM, &schema, &w, &e);
  if (st == QV_OK) st = qv_ipc_writer_write(w, batch, &e);
  if (st == QV_OK) {
    st = qv_ipc_writer_close(w, &e);
    w = NULL;
  }
  if (mem && fclose(mem) != 0 && st == QV_OK) st = QV_ERR_IO;
  if (st == QV_OK) size = (int64_t)len;
  if (st == QV_ERR_NOMEM) *oom = true;
  qv_ipc_writer_destroy(w);
  free(buf); /* open_memstream's buffer comes from malloc */
  qv_array_release(arr);
  qv_batch_release(batch);
  qv_schema_reset(&schema);
  qv_datatype_reset(&ty);
  return size;
}

/* Items of one BigQuery type: the same quiver type, timestamps all naive
 * or all zoned (one unit: a Series has one dtype). */
static bool same_kind(const qv_scalar *a, const qv_scalar *b) {
  if (a->type.id != b->type.id) return false;
  if (a->type.id == QV_TYPE_TIMESTAMP)
    return (a->type.timezone == NULL) == (b->type.timezone == NULL) && a->type.unit == b->type.unit;
  return true;
}

bool qvp_bq_in_items(const qv_expr *const *items, int32_t n, qvb_text *o, char *why, size_t why_size, bool *oom) {
  if (n == 0) {
    snprintf(why, why_size, "is_in of an empty list has no SQL IN spelling");
    return false;
  }
  if (n > QV_BQ_MAX_IN_VALUES) {
    snprintf(why, why_size, "is_in of %d values: at most %d push", (int)n, QV_BQ_MAX_IN_VALUES);
    return false;
  }
  for (int32_t i = 0; i < n; i++) {
    const qv_expr *it = items[i];
    if (it->kind != QV_EXPR_LITERAL) {
      snprintf(why, why_size, "is_in of a computed list");
      return false;
    }
    if (it->value.is_null) {
      snprintf(why, why_size, "is_in with a null value in the list");
      return false;
    }
    if (qv_type_is_floating(it->value.type.id) && isnan(it->value.v.f)) {
      snprintf(why, why_size, "is_in with NaN in the list");
      return false;
    }
    if (!same_kind(&it->value, &items[0]->value)) {
      snprintf(why, why_size, "is_in of a list whose values are not of one BigQuery type");
      return false;
    }
  }
  qvb_text items_sql = {0};
  for (int32_t i = 0; i < n; i++) {
    const char *reason = NULL;
    if (i) qvb_text_s(&items_sql, ", ");
    if (!qvp_bq_literal(&items[i]->value, &items_sql, &reason)) {
      snprintf(why, why_size, "is_in value %d: %s", (int)i, reason);
      qvb_text_free(&items_sql);
      return false;
    }
  }
  int64_t size = ipc_size(items, n, oom);
  if (size < 0) {
    snprintf(why, why_size, "is_in list could not be measured as an Arrow IPC Series");
    qvb_text_free(&items_sql);
    return false;
  }
  if (size > QV_BQ_MAX_IN_IPC) {
    snprintf(why, why_size, "is_in list is %lld bytes as an Arrow IPC Series: at most %d push", (long long)size,
             QV_BQ_MAX_IN_IPC);
    qvb_text_free(&items_sql);
    return false;
  }
  if (items_sql.oom) *oom = true;
  else qvb_text_add(o, items_sql.p, items_sql.n);
  qvb_text_free(&items_sql);
  return true;
}
