/* CSV value parsers: field text -> typed value, exactly.
 *
 * All parsers ignore blanks (space, tab) around the value, reject anything
 * else that is not part of the value's grammar, and report range problems
 * apart from malformed text so the reader's message can say which.
 * Integers are overflow-checked digit by digit; floats are checked against a
 * decimal grammar and then converted by strtod_l in the C locale (correct
 * rounding, no locale decimal comma, no hex floats); decimals are built from
 * the digits with 128-bit integer arithmetic, never through a double. */
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/csv_int.h"

static const csv_parse_result OK = {NULL, false};
static const csv_parse_result BAD = {"is not a valid", false};
static const csv_parse_result RANGE = {"is out of range for", true};

static void trim(const uint8_t **p, const uint8_t **end) {
  while (*p < *end && (**p == ' ' || **p == '\t')) (*p)++;
  while (*end > *p && ((*end)[-1] == ' ' || (*end)[-1] == '\t')) (*end)--;
}

static bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

static bool ieq(const uint8_t *p, const uint8_t *end, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(end - p) != n) return false;
  for (size_t i = 0; i < n; i++) {
    uint8_t c = p[i];
    if (c >= 'A' && c <= 'Z') c = (uint8_t)(c + 32);
    if (c != (uint8_t)word[i]) return false;
  }
  return true;
}

/* ---- bool, integers ---------------------------------------------------- */

csv_parse_result csv_parse_bool(const uint8_t *text, int64_t len, bool words_only, bool *out) {
  const uint8_t *p = text, *end = text + len;
  trim(&p, &end);
  if (ieq(p, end, "true")) {
    *out = true;
    return OK;
  }
  if (ieq(p, end, "false")) {
    *out = false;
    return OK;
  }
  /* 1/0 are accepted for a declared bool column, never inferred as one. */
  if (!words_only && end - p == 1 && (*p == '1' || *p == '0')) {
    *out = *p == '1';
    return OK;
  }
  return BAD;
}

/* Magnitude of [+-]digits as uint64; *neg set for a leading minus. */
static csv_parse_result parse_magnitude(const uint8_t *text, int64_t len, bool *neg, uint64_t *mag) {
  const uint8_t *p = text, *end = text + len;
  trim(&p, &end);
  *neg = false;
  if (p < end && (*p == '+' || *p == '-')) *neg = *p++ == '-';
  if (p == end) return BAD;
  uint64_t v = 0;
  bool range = false;
  for (; p < end; p++) {
    if (!is_digit(*p)) return BAD;
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) range = true; /* keep going: "99x" is malformed */
    else v = v * 10 + d;
  }
  if (range) return RANGE;
  *mag = v;
  return OK;
}

csv_parse_result csv_parse_int64(const uint8_t *text, int64_t len, int64_t *out) {
  bool neg;
  uint64_t mag = 0;
  csv_parse_result r = parse_magnitude(text, len, &neg, &mag);
  if (r.reason) return r;
  if (neg) {
    if (mag > (uint64_t)INT64_MAX + 1) return RANGE;
    *out = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
  } else {
    if (mag > (uint64_t)INT64_MAX) return RANGE;
    *out = (int64_t)mag;
  }
  return OK;
}

csv_parse_result csv_parse_uint64(const uint8_t *text, int64_t len, uint64_t *out) {
  bool neg;
  uint64_t mag = 0;
  csv_parse_result r = parse_magnitude(text, len, &neg, &mag);
  if (r.reason) return r;
  if (neg && mag != 0) return RANGE; /* "-0" is zero */
  *out = mag;
  return OK;
}

/* ---- floats ------------------------------------------------------------ */

struct csv_c_locale {
  locale_t loc;
};

csv_c_locale *csv_c_locale_new(void) {
  csv_c_locale *l = qv_malloc(sizeof *l);
  if (!l) return NULL;
  l->loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  if (!l->loc) {
    qv_free(l);
    return NULL;
  }
  return l;
}

void csv_c_locale_free(csv_c_locale *l) {
  if (!l) return;
  freelocale(l->loc);
  qv_free(l);
}

/* Checks [+-]? (d+ (. d*)? | . d+) ([eE] [+-]? d+)?  or a nan/inf spelling.
 * *special: 0 finite, 1 nan, 2 inf; *neg for a leading minus. */
static bool float_syntax(const uint8_t *p, const uint8_t *end, int *special, bool *neg) {
  *special = 0;
  *neg = false;
  if (p < end && (*p == '+' || *p == '-')) *neg = *p++ == '-';
  if (p < end && (*p | 0x20) == 'n' && ieq(p, end, "nan")) {
    *special = 1;
    return true;
  }
  if (p < end && (*p | 0x20) == 'i' && (ieq(p, end, "inf") || ieq(p, end, "infinity"))) {
    *special = 2;
    return true;
  }
  int digits = 0;
  while (p < end && is_digit(*p)) {
    p++;
    digits++;
  }
  if (p < end && *p == '.') {
    p++;
    while (p < end && is_digit(*p)) {
      p++;
      digits++;
    }
  }
  if (digits == 0) return false;
  if (p < end && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < end && (*p == '+' || *p == '-')) p++;
    if (p == end || !is_digit(*p)) return false;
    while (p < end && is_digit(*p)) p++;
  }
  return p == end;
}

/* strtod_l needs a NUL right after the value.  The record puts one after
 * each field, so only a value with trailing blanks needs a copy: into buf,
 * or onto the heap (*heap, caller frees) when it is longer. */
static csv_parse_result float_text(const uint8_t *text, int64_t len, char *buf, size_t bufsize, const char **cstr,
                                   size_t *n, char **heap, int *special, bool *neg) {
  const uint8_t *p = text, *end = text + len;
  trim(&p, &end);
  *heap = NULL;
  if (!float_syntax(p, end, special, neg)) return BAD;
  *n = (size_t)(end - p);
  if (*special || end == text + len) {
    *cstr = (const char *)p;
    return OK;
  }
  char *dst = buf;
  if (*n >= bufsize) {
    dst = *heap = qv_malloc(*n + 1);
    if (!dst) return (csv_parse_result){"could not be parsed (out of memory) as", false};
  }
  memcpy(dst, p, *n);
  dst[*n] = '\0';
  *cstr = dst;
  return OK;
}

csv_parse_result csv_parse_double(const uint8_t *text, int64_t len, const csv_c_locale *loc, double *out) {
  char buf[128], *heap = NULL;
  const char *s = NULL;
  size_t n = 0;
  int special;
  bool neg;
  csv_parse_result r = float_text(text, len, buf, sizeof buf, &s, &n, &heap, &special, &neg);
  if (r.reason) return r;
  if (special) {
    double v = special == 1 ? NAN : INFINITY;
    *out = neg ? -v : v;
    return OK;
  }
  char *stop = NULL;
  /* Overflow rounds to +-inf and underflow to a subnormal or zero, as
   * IEEE round-to-nearest does; errno (ERANGE) is therefore ignored. */
  *out = strtod_l(s, &stop, loc->loc);
  if (stop != s + n) r = BAD;
  qv_free(heap);
  return r;
}

csv_parse_result csv_parse_float(const uint8_t *text, int64_t len, const csv_c_locale *loc, float *out) {
  char buf[128], *heap = NULL;
  const char *s = NULL;
  size_t n = 0;
  int special;
  bool neg;
  csv_parse_result r = float_text(text, len, buf, sizeof buf, &s, &n, &heap, &special, &neg);
  if (r.reason) return r;
  if (special) {
    float v = special == 1 ? NAN : INFINITY;
    *out = neg ? -v : v;
    return OK;
  }
  char *stop = NULL;
  /* strtof rounds once, directly to float; strtod then a cast could round
   * twice. */
  *out = strtof_l(s, &stop, loc->loc);
  if (stop != s + n) r = BAD;
  qv_free(heap);
  return r;
}

/* ---- decimal ----------------------------------------------------------- */

/* (hi:lo) = (hi:lo) * 10 + d, on 32-bit limbs so no 128-bit type is needed.
 * Callers keep the value below 10^38 < 2^127, so hi never overflows. */
static void u128_mul10_add(uint64_t *lo, uint64_t *hi, unsigned d) {
  uint64_t l0 = (*lo & 0xFFFFFFFFu) * 10 + d;
  uint64_t l1 = (*lo >> 32) * 10 + (l0 >> 32);
  *lo = (l0 & 0xFFFFFFFFu) | (l1 << 32);
  *hi = *hi * 10 + (l1 >> 32);
}

csv_parse_result csv_parse_decimal(const uint8_t *text, int64_t len, int32_t precision, int32_t scale, uint64_t *out_lo,
                                   int64_t *out_hi) {
  const uint8_t *p = text, *end = text + len;
  trim(&p, &end);
  bool neg = false;
  if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
  const uint8_t *int_start = p;
  while (p < end && is_digit(*p)) p++;
  const uint8_t *int_end = p;
  const uint8_t *frac_start = p, *frac_end = p;
  if (p < end && *p == '.') {
    frac_start = ++p;
    while (p < end && is_digit(*p)) p++;
    frac_end = p;
  }
  int64_t n_int = int_end - int_start, n_frac = frac_end - frac_start;
  if (n_int + n_frac == 0) return BAD;
  int64_t exp = 0;
  if (p < end && (*p == 'e' || *p == 'E')) {
    p++;
    bool eneg = false;
    if (p < end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
    if (p == end) return BAD;
    for (; p < end && is_digit(*p); p++)
      if (exp < 100000) exp = exp * 10 + (*p - '0'); /* beyond any precision */
    if (eneg) exp = -exp;
  }
  if (p != end) return BAD;

  /* The digits D = int digits then fraction digits; the value is
   * D * 10^(exp - n_frac), and the stored integer is that * 10^scale. */
  int64_t nd = n_int + n_frac;
#define DIGIT(k) ((k) < n_int ? int_start[(k)] : frac_start[(k)-n_int])
  int64_t first = 0;
  while (first < nd && DIGIT(first) == '0') first++;
  uint64_t lo = 0, hi = 0;
  if (first < nd) {
    int64_t shift = (int64_t)scale + exp - n_frac;
    int64_t keep = nd;
    if (shift < 0) {
      keep = nd + shift < first ? first : nd + shift;
      /* Dropped digits must all be zero: no rounding, ever. */
      for (int64_t k = keep; k < nd; k++)
        if (DIGIT(k) != '0') return (csv_parse_result){"has more fractional digits than", true};
      shift = 0;
    }
    if (keep - first + shift > precision) return RANGE;
    for (int64_t k = first; k < keep; k++) u128_mul10_add(&lo, &hi, (unsigned)(DIGIT(k) - '0'));
    for (int64_t k = 0; k < shift; k++) u128_mul10_add(&lo, &hi, 0);
  }
#undef DIGIT
  if (neg) { /* two's complement of the 128-bit magnitude */
    lo = ~lo + 1;
    hi = ~hi + (lo == 0 ? 1 : 0);
  }
  *out_lo = lo;
  memcpy(out_hi, &hi, sizeof hi); /* bit copy: no implementation-defined cast */
  return OK;
}

/* ---- dates and times --------------------------------------------------- */

static bool digits_n(const uint8_t *p, const uint8_t *end, int n, int *out) {
  if (end - p < n) return false;
  int v = 0;
  for (int i = 0; i < n; i++) {
    if (!is_digit(p[i])) return false;
    v = v * 10 + (p[i] - '0');
  }
  *out = v;
  return true;
}

/* HH:MM[:SS[.fraction]] at *p; seconds into *secs, fraction digits into
 * frac/n_frac (at most 9 significant places kept; more must be zeros). */
static csv_parse_result parse_hms(const uint8_t **pp, const uint8_t *end, int64_t *secs, int64_t *frac, int *n_frac) {
  const uint8_t *p = *pp;
  int h, mi, s = 0;
  *frac = 0;
  *n_frac = 0;
  if (!digits_n(p, end, 2, &h) || end - p < 5 || p[2] != ':' || !digits_n(p + 3, end, 2, &mi)) return BAD;
  p += 5;
  if (p < end && *p == ':') {
    if (!digits_n(p + 1, end, 2, &s)) return BAD;
    p += 3;
    if (p < end && *p == '.') {
      p++;
      if (p == end || !is_digit(*p)) return BAD;
      for (; p < end && is_digit(*p); p++) {
        if (*n_frac < 9) {
          *frac = *frac * 10 + (*p - '0');
          (*n_frac)++;
        } else if (*p != '0') {
          return (csv_parse_result){"has more precision than", true};
        }
      }
    }
  }
  if (h > 23 || mi > 59 || s > 59) return BAD;
  *secs = (int64_t)h * 3600 + mi * 60 + s;
  *pp = p;
  return OK;
}

static const int64_t k_unit_mul[4] = {1, 1000, 1000000, 1000000000};
static const int k_unit_digits[4] = {0, 3, 6, 9};

/* secs * 10^unit + the fraction in unit; fails on lost precision or overflow. */
static csv_parse_result to_unit(int64_t secs, int64_t frac, int n_frac, qv_time_unit unit, int64_t *out) {
  int ud = k_unit_digits[unit];
  int64_t f = frac;
  for (int i = n_frac; i < ud; i++) f *= 10;
  for (int i = ud; i < n_frac; i++) {
    if (f % 10 != 0) return (csv_parse_result){"has more precision than", true};
    f /= 10;
  }
  int64_t mul = k_unit_mul[unit];
  if (secs > (INT64_MAX - f) / mul || secs < INT64_MIN / mul) return RANGE;
  *out = secs * mul + f;
  return OK;
}

/* Dates and timestamps go through base's ISO-8601 reader, so CSV accepts
 * exactly what filters and the rest of quiver accept. */
csv_parse_result csv_parse_date32(const uint8_t *text, int64_t len, int32_t *out) {
  const uint8_t *p = text, *end = text + len;
  trim(&p, &end);
  int64_t days;
  if (!qv_parse_date((const char *)p, (size_t)(end - p), &days)) return BAD;
  if (days < INT32_MIN || days > INT32_MAX) return RANGE;
  *out = (int32_t)days;
  return OK;
}

csv_parse_result csv_parse_timestamp(const uint8_t *text, int64_t len, qv_time_unit unit, bool allow_offset,
                                     int64_t *out) {
  const uint8_t *p = text, *end = text + len;
  trim(&p, &end);
  int64_t secs;
  int32_t nanos;
  bool zoned;
  if (!qv_parse_datetime((const char *)p, (size_t)(end - p), &secs, &nanos, &zoned)) return BAD;
  /* A naive column holds wall-clock times; an instant with an offset has
   * no faithful place in it. */
  if (zoned && !allow_offset) return (csv_parse_result){"has a UTC offset, not allowed for", false};
  return to_unit(secs, nanos, 9, unit, out);
}

csv_parse_result csv_parse_time(const uint8_t *text, int64_t len, qv_time_unit unit, int64_t *out) {
  const uint8_t *p = text, *end = text + len;
  trim(&p, &end);
  int64_t secs, frac;
  int n_frac;
  csv_parse_result r = parse_hms(&p, end, &secs, &frac, &n_frac);
  if (r.reason) return r;
  if (p != end) return BAD;
  return to_unit(secs, frac, n_frac, unit, out);
}
