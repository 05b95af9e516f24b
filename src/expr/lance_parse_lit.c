/* The SQL spelling shared by the Lance filter parser and the printer:
 * keywords, identifier quoting, type names, numbers, decimals, dates and
 * timestamps, and the table of functions.  Keeping both directions in one
 * file is what makes parse(print(x)) == x a property rather than a hope. */
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr/expr_int.h"

const char *qve_expr_clip(const char *s, size_t n, char *buf, size_t size) {
  size_t k = n > 60 ? 60 : n;
  while (k < n && k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
  snprintf(buf, size, "%.*s%s", (int)k, s ? s : "", k < n ? "..." : "");
  return buf;
}

/* ---- keywords ----------------------------------------------------------- */

/* Words an identifier must not be spelled as without backticks.  The first
 * group is what this parser treats specially; the rest are words sqlparser
 * (Lance's parser) gives meaning to in an expression, so that printed text
 * also reads back in Lance.  Quoting more than needed is harmless. */
static const char *const keywords[] = {
    "AND",
    "OR",
    "NOT",
    "IN",
    "IS",
    "NULL",
    "TRUE",
    "FALSE",
    "BETWEEN",
    "LIKE",
    "ILIKE",
    "ESCAPE",
    "CAST",
    "TRY_CAST",
    "SAFE_CAST",
    "AS",
    /* type words: they start typed literals (date '2024-01-01') */
    "DATE",
    "TIME",
    "TIMESTAMP",
    "DATETIME",
    "DECIMAL",
    "NUMERIC",
    "DEC",
    "BOOLEAN",
    "BOOL",
    "TINYINT",
    "SMALLINT",
    "INT",
    "INTEGER",
    "BIGINT",
    "UNSIGNED",
    "FLOAT",
    "REAL",
    "DOUBLE",
    "PRECISION",
    "STRING",
    "VARCHAR",
    "CHAR",
    "TEXT",
    "BINARY",
    "VARBINARY",
    "BYTEA",
    /* sqlparser expression and statement words */
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "EXISTS",
    "INTERVAL",
    "ARRAY",
    "STRUCT",
    "MAP",
    "EXTRACT",
    "POSITION",
    "SUBSTRING",
    "TRIM",
    "OVERLAY",
    "CEIL",
    "FLOOR",
    "CONVERT",
    "COLLATE",
    "CURRENT_DATE",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "CURRENT_USER",
    "SESSION_USER",
    "USER",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP",
    "ORDER",
    "BY",
    "HAVING",
    "LIMIT",
    "OFFSET",
    "UNION",
    "EXCEPT",
    "INTERSECT",
    "JOIN",
    "ON",
    "USING",
    "DISTINCT",
    "ALL",
    "ANY",
    "SOME",
    "XOR",
    "DIV",
    "RLIKE",
    "REGEXP",
    "SIMILAR",
    "UNKNOWN",
    "AT",
    "MATCH",
    "AGAINST",
    "PRIOR",
    "CUBE",
    "ROLLUP",
    "GROUPING",
    "SETS",
    "WITH",
    "WITHOUT",
    "ZONE",
    "WINDOW",
    "OVER",
    "PARTITION",
    "NATURAL",
    "LEFT",
    "RIGHT",
    "INNER",
    "OUTER",
    "FULL",
    "CROSS",
    "LATERAL",
    "TABLE",
    "VALUES",
    "INTO",
    "SET",
    "UPDATE",
    "DELETE",
    "INSERT",
    "CREATE",
    "DROP",
    "RETURNING",
    "QUALIFY",
    "FETCH",
    "TOP",
    "ASC",
    "DESC",
    "NULLS",
    "FIRST",
    "LAST",
    "TO",
    "FOR",
    "ROW",
    "ROWS",
    "NOTNULL",
    "ISNULL",
    "LAMBDA",
    "CONNECT_BY_ROOT",
};

bool qve_sql_is_keyword(const char *word, size_t len) {
  for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
    if (strlen(keywords[k]) == len && strncasecmp(keywords[k], word, len) == 0) return true;
  return false;
}

bool qve_sql_ident_needs_quotes(const char *name) {
  const unsigned char *p = (const unsigned char *)name;
  if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_')) return true;
  for (; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) return true;
  return qve_sql_is_keyword(name, strlen(name));
}

/* ---- type names --------------------------------------------------------- */

const char *qve_sql_type_name(const qv_datatype *t, char *buf, size_t size) {
  const char *s = NULL;
  switch (t->id) {
    case QV_TYPE_BOOL: s = "boolean"; break;
    case QV_TYPE_INT8: s = "tinyint"; break;
    case QV_TYPE_INT16: s = "smallint"; break;
    case QV_TYPE_INT32: s = "int"; break;
    case QV_TYPE_INT64: s = "bigint"; break;
    case QV_TYPE_UINT8: s = "tinyint unsigned"; break;
    case QV_TYPE_UINT16: s = "smallint unsigned"; break;
    case QV_TYPE_UINT32: s = "int unsigned"; break;
    case QV_TYPE_UINT64: s = "bigint unsigned"; break;
    case QV_TYPE_FLOAT32: s = "float"; break;
    case QV_TYPE_FLOAT64: s = "double"; break;
    case QV_TYPE_STRING: s = "string"; break;
    case QV_TYPE_BINARY: s = "binary"; break;
    case QV_TYPE_DATE32: s = "date"; break;
    case QV_TYPE_DECIMAL128: snprintf(buf, size, "decimal(%d,%d)", (int)t->precision, (int)t->scale); return buf;
    case QV_TYPE_TIMESTAMP:
      if (t->timezone) return NULL; /* Lance refuses time zones in CAST */
      switch (t->unit) {
        case QV_UNIT_SECOND: s = "timestamp(0)"; break;
        case QV_UNIT_MILLI: s = "timestamp(3)"; break;
        case QV_UNIT_MICRO: s = "timestamp"; break; /* Lance's default precision */
        case QV_UNIT_NANO: s = "timestamp(9)"; break;
      }
      break;
    default: return NULL;
  }
  snprintf(buf, size, "%s", s);
  return buf;
}

/* ---- floats -------------------------------------------------------------- */

/* strtod and printf follow LC_NUMERIC; an embedding application may have
 * set a locale with a decimal comma, so both go through the C locale. */
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

static void make_c_locale(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

static locale_t get_c_locale(void) {
  pthread_once(&c_locale_once, make_c_locale);
  return c_locale;
}

bool qve_expr_parse_double(const char *s, size_t n, double *out) {
  char small[128];
  char *tmp = n < sizeof small ? small : qv_malloc(n + 1);
  if (!tmp) return false;
  memcpy(tmp, s, n);
  tmp[n] = '\0';
  char *end = NULL;
  locale_t loc = get_c_locale();
  *out = loc ? strtod_l(tmp, &end, loc) : strtod(tmp, &end);
  bool ok = n > 0 && end == tmp + n;
  if (tmp != small) qv_free(tmp);
  return ok;
}

int qve_expr_format_double(double v, bool single, char *buf, size_t size) {
  if (isnan(v)) return snprintf(buf, size, "nan");
  if (isinf(v)) return snprintf(buf, size, v < 0 ? "-inf" : "inf");
  /* Fewest significant digits that read back as v, then laid out like
   * JavaScript's Number#toString: plain between 1e-7 and 1e21, else with
   * an exponent. */
  char tmp[64];
  locale_t loc = get_c_locale();
  locale_t old = loc ? uselocale(loc) : (locale_t)0;
  int max = single ? 9 : 17;
  for (int p = 1; p <= max; p++) {
    snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
    double back = strtod(tmp, NULL);
    if (single ? (float)back == (float)v : back == v) break;
  }
  if (loc) uselocale(old);
  char digits[32];
  int nd = 0, x;
  const char *q = tmp;
  bool neg = *q == '-';
  if (neg) q++;
  for (; *q && *q != 'e'; q++)
    if (*q >= '0' && *q <= '9') digits[nd++] = *q;
  x = atoi(q + 1);
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  digits[nd] = '\0';
  char out[96];
  int k = 0;
  if (neg) out[k++] = '-';
  if (x >= 21 || x < -7) {
    out[k++] = digits[0];
    if (nd > 1) {
      out[k++] = '.';
      for (int i = 1; i < nd; i++) out[k++] = digits[i];
    }
    k += snprintf(out + k, sizeof out - (size_t)k, "e%d", x);
  } else if (x >= 0) {
    for (int i = 0; i <= x || i < nd; i++) {
      if (i == x + 1) out[k++] = '.';
      out[k++] = i < nd ? digits[i] : '0';
    }
    if (nd <= x + 1) out[k++] = '.', out[k++] = '0';
  } else {
    out[k++] = '0';
    out[k++] = '.';
    for (int i = 0; i < -x - 1; i++) out[k++] = '0';
    for (int i = 0; i < nd; i++) out[k++] = digits[i];
  }
  out[k] = '\0';
  return snprintf(buf, size, "%s", out);
}

/* ---- decimals ------------------------------------------------------------ */

qve_i128 qve_expr_pow10(int32_t k) {
  qve_i128 v = 1;
  for (int32_t i = 0; i < k; i++) v *= 10;
  return v;
}

bool qve_expr_parse_decimal(const char *s, size_t n, int32_t precision, int32_t scale, qve_i128 *out) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  qve_i128 limit = qve_expr_pow10(precision);
  qve_i128 v = 0;
  int32_t frac = 0, digits = 0;
  bool dot = false, round_up = false, past = false;
  for (; i < n; i++) {
    char c = s[i];
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (c < '0' || c > '9') return false;
    digits++;
    if (dot && frac == scale) {
      if (!past) round_up = c >= '5'; /* first dropped digit decides */
      past = true;
      continue;
    }
    /* v stays below 10^precision <= 10^38, so the int128 never overflows */
    if (v > (limit - 1 - (c - '0')) / 10) return false;
    v = v * 10 + (c - '0');
    if (dot) frac++;
  }
  if (digits == 0) return false;
  for (; frac < scale; frac++) {
    if (v > (limit - 1) / 10) return false;
    v *= 10;
  }
  if (round_up) v++;
  if (v >= limit) return false;
  *out = neg ? -v : v;
  return true;
}

int qve_expr_format_decimal(qve_i128 v, int32_t scale, char *buf, size_t size) {
  char digits[48];
  int nd = 0;
  qve_u128 u = v < 0 ? (qve_u128)0 - (qve_u128)v : (qve_u128)v;
  do {
    digits[nd++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  while (nd < scale + 1) digits[nd++] = '0';
  char tmp[64];
  int k = 0;
  if (v < 0) tmp[k++] = '-';
  for (int i = nd - 1; i >= 0; i--) {
    tmp[k++] = digits[i];
    if (i == scale && scale > 0) tmp[k++] = '.';
  }
  tmp[k] = '\0';
  return snprintf(buf, size, "%s", tmp);
}

/* ---- dates and timestamps ------------------------------------------------ */

int64_t qve_unit_per_second(qv_time_unit u) {
  switch (u) {
    case QV_UNIT_SECOND: return 1;
    case QV_UNIT_MILLI: return 1000;
    case QV_UNIT_MICRO: return 1000000;
    case QV_UNIT_NANO: return 1000000000;
  }
  return 1;
}

bool qve_expr_parse_timestamp(const char *s, size_t n, qv_time_unit unit, int64_t *out, bool *inexact, bool *overflow) {
  int64_t sec;
  int32_t nanos;
  bool zone;
  *inexact = *overflow = false;
  if (!qv_parse_datetime(s, n, &sec, &nanos, &zone)) return false;
  int64_t per = qve_unit_per_second(unit), step = 1000000000 / per, v;
  *inexact = nanos % step != 0;
  if (__builtin_mul_overflow(sec, per, &v) || __builtin_add_overflow(v, nanos / step, &v)) {
    *overflow = true;
    return true;
  }
  *out = v;
  return true;
}

static int format_year(int64_t y, char *buf, size_t size) {
  if (y < 0) return snprintf(buf, size, "-%04lld", (long long)-y);
  return snprintf(buf, size, "%04lld", (long long)y);
}

int qve_expr_format_date(int64_t days, char *buf, size_t size) {
  int64_t y;
  unsigned m, d;
  qv_civil_from_days(days, &y, &m, &d);
  char year[32];
  format_year(y, year, sizeof year);
  return snprintf(buf, size, "%s-%02u-%02u", year, m, d);
}

/* q = floor(a / b) and r = a - q * b in [0, b), for b > 0, without the
 * overflow a - q * b would hit near INT64_MIN. */
static void floor_divmod(int64_t a, int64_t b, int64_t *q, int64_t *r) {
  *q = a / b;
  *r = a % b;
  if (*r < 0) {
    *r += b;
    *q -= 1;
  }
}

int qve_expr_format_timestamp(int64_t v, qv_time_unit unit, char *buf, size_t size) {
  int64_t per = qve_unit_per_second(unit), sec, sub, days, rem;
  floor_divmod(v, per, &sec, &sub);
  floor_divmod(sec, 86400, &days, &rem);
  int64_t nanos = sub * (1000000000 / per);
  char date[48], frac[24] = "";
  qve_expr_format_date(days, date, sizeof date);
  if (nanos > 0 && nanos < 1000000000) {
    int k = snprintf(frac, sizeof frac, ".%09lld", (long long)nanos);
    while (k > 1 && frac[k - 1] == '0') frac[--k] = '\0';
  }
  return snprintf(buf, size, "%s %02d:%02d:%02d%s", date, (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60),
                  frac);
}

/* ---- functions ----------------------------------------------------------- */

/* Names as DataFusion registers them (with the aliases it accepts);
 * is_valid is Lance's legacy spelling of IS NOT NULL. */
/* The filter language's functions: the SQL column of expr/ops.def, one
 * entry per name (a row without names adds one NULL entry, skipped). */
#define LF_ENTRY(id, lo, hi, nm) {nm, QV_OP_##id, lo, hi},
#define LF_1(id, lo, hi, a) LF_ENTRY(id, lo, hi, a)
#define LF_2(id, lo, hi, a, b) LF_1(id, lo, hi, a) LF_ENTRY(id, lo, hi, b)
#define LF_3(id, lo, hi, a, b, c) LF_2(id, lo, hi, a, b) LF_ENTRY(id, lo, hi, c)
#define LF_4(id, lo, hi, a, b, c, d) LF_3(id, lo, hi, a, b, c) LF_ENTRY(id, lo, hi, d)
#define LF_PICK(_1, _2, _3, _4, m, ...) m
#define LF_EACH(id, lo, hi, ...) LF_PICK(__VA_ARGS__, LF_4, LF_3, LF_2, LF_1, unused)(id, lo, hi, __VA_ARGS__)
#define LF_SQL(...) __VA_ARGS__
#define LF_NO_SQL NULL
#define QV_OP_ROW(id, name, lo, hi, cls, mirror, sql, ...) LF_EACH(id, lo, hi, LF_##sql)
static const lance_function functions[] = {
#include "expr/ops.def"
};
#undef QV_OP_ROW

const lance_function *qve_lance_function(const char *name, size_t len) {
  for (size_t k = 0; k < sizeof functions / sizeof functions[0]; k++)
    if (functions[k].name && strlen(functions[k].name) == len && strncasecmp(functions[k].name, name, len) == 0)
      return &functions[k];
  return NULL;
}

/* DataFusion's date_part / date_trunc granularities. */
static const char *const part_names[] = {"year",   "quarter",     "month",       "week",       "day", "hour", "minute",
                                         "second", "millisecond", "microsecond", "nanosecond", "dow", "doy",  "epoch"};

const char *qve_lance_date_part(const char *s, size_t n, bool trunc) {
  /* date_trunc stops at microsecond; dow/doy/epoch are not truncations. */
  size_t count = trunc ? 10 : sizeof part_names / sizeof part_names[0];
  for (size_t k = 0; k < count; k++)
    if (strlen(part_names[k]) == n && strncasecmp(part_names[k], s, n) == 0) return part_names[k];
  return NULL;
}
