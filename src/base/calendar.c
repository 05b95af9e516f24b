/* Calendar arithmetic and the ISO-8601 subset quiver reads and prints.
 * The day/civil conversions are Howard Hinnant's public-domain algorithms
 * (re-derived here), exact over the whole int64 day range we accept. */
#include "quiver/base.h"

#include <stdio.h>

int64_t qv_days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  unsigned yoe = (unsigned)(y - era * 400);
  unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (int64_t)doe - 719468;
}

void qv_civil_from_days(int64_t z, int64_t *year, unsigned *month, unsigned *day) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  unsigned doe = (unsigned)(z - era * 146097);
  unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = (int64_t)yoe + era * 400;
  unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  unsigned mp = (5 * doy + 2) / 153;
  *day = doy - (153 * mp + 2) / 5 + 1;
  *month = mp < 10 ? mp + 3 : mp - 9;
  *year = y + (*month <= 2);
}

static bool digits(const char *s, size_t n, size_t at, int count, int64_t *out) {
  if (at + (size_t)count > n) return false;
  int64_t v = 0;
  for (int i = 0; i < count; i++) {
    char c = s[at + (size_t)i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static bool parse_ymd(const char *s, size_t n, size_t *pos, int64_t *days) {
  int64_t y, m, d;
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  size_t ystart = i;
  while (i < n && s[i] >= '0' && s[i] <= '9' && i - ystart < 6) i++;
  if (i - ystart < 4 || !digits(s, n, ystart, (int)(i - ystart), &y)) return false;
  if (neg) y = -y;
  if (i >= n || s[i] != '-' || !digits(s, n, i + 1, 2, &m)) return false;
  i += 3;
  if (i >= n || s[i] != '-' || !digits(s, n, i + 1, 2, &d)) return false;
  i += 3;
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1] + (m == 2 && is_leap(y))) return false;
  *days = qv_days_from_civil(y, (unsigned)m, (unsigned)d);
  *pos = i;
  return true;
}

bool qv_parse_date(const char *s, size_t n, int64_t *days) {
  size_t pos;
  return parse_ymd(s, n, &pos, days) && pos == n;
}

bool qv_parse_datetime(const char *s, size_t n, int64_t *seconds, int32_t *nanos, bool *has_zone) {
  int64_t days, hh = 0, mm = 0, ss = 0, frac = 0;
  size_t i;
  *has_zone = false;
  if (!parse_ymd(s, n, &i, &days)) return false;
  if (i < n && (s[i] == ' ' || s[i] == 'T' || s[i] == 't')) {
    i++;
    if (!digits(s, n, i, 2, &hh) || i + 2 >= n || s[i + 2] != ':' || !digits(s, n, i + 3, 2, &mm)) return false;
    i += 5;
    if (i < n && s[i] == ':') {
      if (!digits(s, n, i + 1, 2, &ss)) return false;
      i += 3;
      if (i < n && (s[i] == '.' || s[i] == ',')) { /* ISO 8601 allows either decimal sign */
        i++;
        int nd = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
          if (nd < 9) frac = frac * 10 + (s[i] - '0'), nd++;
          else return false; /* more precision than nanoseconds: refuse, never round */
          i++;
        }
        if (nd == 0) return false;
        for (; nd < 9; nd++) frac *= 10;
      }
    }
    if (hh > 23 || mm > 59 || ss > 59) return false;
  }
  int64_t offset = 0;
  if (i < n) {
    if (s[i] == 'Z' || s[i] == 'z') {
      i++;
      *has_zone = true;
    } else if (s[i] == '+' || s[i] == '-') {
      int sign = s[i] == '-' ? -1 : 1;
      int64_t oh, om = 0;
      if (!digits(s, n, i + 1, 2, &oh)) return false;
      i += 3;
      bool colon = i < n && s[i] == ':';
      if (colon) i++;
      if (i < n || colon) { /* "+05:" without minutes is not an offset */
        if (!digits(s, n, i, 2, &om)) return false;
        i += 2;
      }
      if (oh > 23 || om > 59) return false;
      offset = sign * (oh * 3600 + om * 60);
      *has_zone = true;
    }
  }
  if (i != n) return false;
  *seconds = days * 86400 + hh * 3600 + mm * 60 + ss - offset;
  *nanos = (int32_t)frac;
  return true;
}

int qv_format_datetime(int64_t seconds, int32_t nanos, int frac_digits, char *buf, size_t size) {
  int64_t days = seconds / 86400, rem = seconds % 86400; /* floor division without overflow at INT64_MIN */
  if (rem < 0) {
    rem += 86400;
    days -= 1;
  }
  int64_t y;
  unsigned m, d;
  qv_civil_from_days(days, &y, &m, &d);
  int n = snprintf(buf, size, "%04lld-%02u-%02u %02d:%02d:%02d", (long long)y, m, d, (int)(rem / 3600),
                   (int)(rem / 60 % 60), (int)(rem % 60));
  if (frac_digits > 0 && n >= 0) {
    int32_t f = nanos;
    for (int k = frac_digits; k < 9; k++) f /= 10;
    int k =
        snprintf((size_t)n < size ? buf + n : NULL, (size_t)n < size ? size - (size_t)n : 0, ".%0*d", frac_digits, f);
    if (k > 0) n += k;
  }
  return n;
}
