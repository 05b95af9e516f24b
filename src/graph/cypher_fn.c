/* Cypher's scalar functions: the name table (qvg_fn_lookup) and their
 * evaluation over evaluated arguments.  openCypher rules, as the TCK
 * tests them: null in gives null out (except where a function says
 * otherwise); a value of a type the function does not take is a
 * QV_ERR_TYPE (TypeError: toBoolean(1.0), toFloat(true), toString([]),
 * expressions/typeConversion); a bad number is QV_ERR_INVALID
 * (ArgumentError: range(..., 0), range(1.1, ...), expressions/list/
 * List11); a string that does not read as the target type gives null
 * (toInteger('foo')).  Strings count and cut in code points. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <utf8proc.h>

#include "graph/cypher_eval_int.h"
#include "graph/cypher_temporal.h"

typedef struct fn_info {
  const char *name;
  int32_t min, max;
} fn_info;

static const fn_info fns[QVG_FN__COUNT] = {
    [QVG_FN_ID] = {"id", 1, 1},
    [QVG_FN_LABELS] = {"labels", 1, 1},
    [QVG_FN_TYPE] = {"type", 1, 1},
    [QVG_FN_PROPERTIES] = {"properties", 1, 1},
    [QVG_FN_KEYS] = {"keys", 1, 1},
    [QVG_FN_COALESCE] = {"coalesce", 1, 1 << 20},
    [QVG_FN_SIZE] = {"size", 1, 1},
    [QVG_FN_LENGTH] = {"length", 1, 1},
    [QVG_FN_NODES] = {"nodes", 1, 1},
    [QVG_FN_RELATIONSHIPS] = {"relationships", 1, 1},
    [QVG_FN_STARTNODE] = {"startNode", 1, 1},
    [QVG_FN_ENDNODE] = {"endNode", 1, 1},
    [QVG_FN_HEAD] = {"head", 1, 1},
    [QVG_FN_LAST] = {"last", 1, 1},
    [QVG_FN_TAIL] = {"tail", 1, 1},
    [QVG_FN_RANGE] = {"range", 2, 3},
    [QVG_FN_REVERSE] = {"reverse", 1, 1},
    [QVG_FN_TOINTEGER] = {"toInteger", 1, 1},
    [QVG_FN_TOFLOAT] = {"toFloat", 1, 1},
    [QVG_FN_TOSTRING] = {"toString", 1, 1},
    [QVG_FN_TOBOOLEAN] = {"toBoolean", 1, 1},
    [QVG_FN_ABS] = {"abs", 1, 1},
    [QVG_FN_SIGN] = {"sign", 1, 1},
    [QVG_FN_CEIL] = {"ceil", 1, 1},
    [QVG_FN_FLOOR] = {"floor", 1, 1},
    [QVG_FN_ROUND] = {"round", 1, 1},
    [QVG_FN_SQRT] = {"sqrt", 1, 1},
    [QVG_FN_EXP] = {"exp", 1, 1},
    [QVG_FN_LOG] = {"log", 1, 1},
    [QVG_FN_LOG10] = {"log10", 1, 1},
    [QVG_FN_SIN] = {"sin", 1, 1},
    [QVG_FN_COS] = {"cos", 1, 1},
    [QVG_FN_TAN] = {"tan", 1, 1},
    [QVG_FN_ASIN] = {"asin", 1, 1},
    [QVG_FN_ACOS] = {"acos", 1, 1},
    [QVG_FN_ATAN] = {"atan", 1, 1},
    [QVG_FN_ATAN2] = {"atan2", 2, 2},
    [QVG_FN_PI] = {"pi", 0, 0},
    [QVG_FN_E] = {"e", 0, 0},
    [QVG_FN_RAND] = {"rand", 0, 0},
    [QVG_FN_TOUPPER] = {"toUpper", 1, 1},
    [QVG_FN_TOLOWER] = {"toLower", 1, 1},
    [QVG_FN_TRIM] = {"trim", 1, 1},
    [QVG_FN_LTRIM] = {"lTrim", 1, 1},
    [QVG_FN_RTRIM] = {"rTrim", 1, 1},
    [QVG_FN_REPLACE] = {"replace", 3, 3},
    [QVG_FN_SUBSTRING] = {"substring", 2, 3},
    [QVG_FN_LEFT] = {"left", 2, 2},
    [QVG_FN_RIGHT] = {"right", 2, 2},
    [QVG_FN_SPLIT] = {"split", 2, 2},
    [QVG_FN_EXISTS] = {"exists", 1, 1},
    [QVG_FN_DATE] = {"date", 0, 1},
    [QVG_FN_LOCALTIME] = {"localtime", 0, 1},
    [QVG_FN_TIME] = {"time", 0, 1},
    [QVG_FN_LOCALDATETIME] = {"localdatetime", 0, 1},
    [QVG_FN_DATETIME] = {"datetime", 0, 1},
    [QVG_FN_DATE_TRUNCATE] = {"date.truncate", 2, 3},
    [QVG_FN_LOCALTIME_TRUNCATE] = {"localtime.truncate", 2, 3},
    [QVG_FN_TIME_TRUNCATE] = {"time.truncate", 2, 3},
    [QVG_FN_LOCALDATETIME_TRUNCATE] = {"localdatetime.truncate", 2, 3},
    [QVG_FN_DATETIME_TRUNCATE] = {"datetime.truncate", 2, 3},
    [QVG_FN_DATE_REALTIME] = {"date.realtime", 0, 1},
    [QVG_FN_LOCALTIME_REALTIME] = {"localtime.realtime", 0, 1},
    [QVG_FN_TIME_REALTIME] = {"time.realtime", 0, 1},
    [QVG_FN_LOCALDATETIME_REALTIME] = {"localdatetime.realtime", 0, 1},
    [QVG_FN_DATETIME_REALTIME] = {"datetime.realtime", 0, 1},
    [QVG_FN_DATE_STATEMENT] = {"date.statement", 0, 1},
    [QVG_FN_LOCALTIME_STATEMENT] = {"localtime.statement", 0, 1},
    [QVG_FN_TIME_STATEMENT] = {"time.statement", 0, 1},
    [QVG_FN_LOCALDATETIME_STATEMENT] = {"localdatetime.statement", 0, 1},
    [QVG_FN_DATETIME_STATEMENT] = {"datetime.statement", 0, 1},
    [QVG_FN_DATE_TRANSACTION] = {"date.transaction", 0, 1},
    [QVG_FN_LOCALTIME_TRANSACTION] = {"localtime.transaction", 0, 1},
    [QVG_FN_TIME_TRANSACTION] = {"time.transaction", 0, 1},
    [QVG_FN_LOCALDATETIME_TRANSACTION] = {"localdatetime.transaction", 0, 1},
    [QVG_FN_DATETIME_TRANSACTION] = {"datetime.transaction", 0, 1},
    [QVG_FN_DATETIME_FROMEPOCH] = {"datetime.fromepoch", 2, 2},
    [QVG_FN_DATETIME_FROMEPOCHMILLIS] = {"datetime.fromepochmillis", 1, 1},
    [QVG_FN_DURATION] = {"duration", 1, 1},
    [QVG_FN_DURATION_BETWEEN] = {"duration.between", 2, 2},
    [QVG_FN_DURATION_INMONTHS] = {"duration.inMonths", 2, 2},
    [QVG_FN_DURATION_INDAYS] = {"duration.inDays", 2, 2},
    [QVG_FN_DURATION_INSECONDS] = {"duration.inSeconds", 2, 2},
};

int qvg_fn_lookup(const char *name, int32_t *min_args, int32_t *max_args) {
  for (int f = 1; f < QVG_FN__COUNT; f++)
    if (fns[f].name && strcasecmp(fns[f].name, name) == 0) {
      if (min_args) *min_args = fns[f].min;
      if (max_args) *max_args = fns[f].max;
      return f;
    }
  /* spellings Cypher also accepts */
  if (strcasecmp(name, "toInt") == 0) return qvg_fn_lookup("toInteger", min_args, max_args);
  if (strcasecmp(name, "toStringOrNull") == 0) return 0;
  return 0;
}

const char *qvg_fn_name(int fn) { return fn > 0 && fn < QVG_FN__COUNT && fns[fn].name ? fns[fn].name : "?"; }

bool qvg_is_aggregate(const char *name) {
  static const char *aggs[] = {"count",          "sum",           "avg", "min", "max", "collect", "stDev", "stDevP",
                               "percentileCont", "percentileDisc"};
  for (size_t i = 0; i < sizeof aggs / sizeof aggs[0]; i++)
    if (strcasecmp(aggs[i], name) == 0) return true;
  return false;
}

/* ---- helpers ---------------------------------------------------------------- */

static const char *tname(const qvg_val *v) { return qvg_vtype_name(v->t); }
static bool is_num(const qvg_val *v) { return v->t == QVG_V_INT || v->t == QVG_V_FLOAT; }
static double as_f(const qvg_val *v) { return v->t == QVG_V_INT ? (double)v->u.i : v->u.f; }

static qv_status wrong(int fn, const qvg_val *v, qv_error *err) {
  return qvg_type_error(err, "%s() cannot take %s", qvg_fn_name(fn), tname(v));
}

static qv_status need_store(qvg_evalctx *cx, int fn, qv_error *err) {
  return cx->st ? QV_OK : qv_error_set(err, QV_ERR_INVALID, "cypher: %s() needs a graph", qvg_fn_name(fn));
}

/* Code points of a UTF-8 string (values are valid UTF-8). */
static int32_t cp_count(const char *s, int32_t n) {
  int32_t c = 0;
  for (int32_t i = 0; i < n; i++) c += ((uint8_t)s[i] & 0xC0) != 0x80;
  return c;
}
/* Byte offset of code point k (clamped to n). */
static int32_t cp_offset(const char *s, int32_t n, int64_t k) {
  int32_t i = 0;
  while (i < n && k > 0) {
    i++;
    while (i < n && ((uint8_t)s[i] & 0xC0) == 0x80) i++;
    k--;
  }
  return i;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* A whole string as a number: decimal digits, sign, point, exponent
 * (no hex, no "inf"/"nan" words, no spaces). */
static bool parse_float(const char *s, int32_t n, double *out) {
  if (n == 0 || n > 400) return false;
  char buf[401];
  for (int32_t i = 0; i < n; i++) {
    char c = s[i];
    if (!(isdigit((unsigned char)c) || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E')) return false;
    buf[i] = c;
  }
  buf[n] = '\0';
  char *end;
  errno = 0;
  double d = strtod(buf, &end);
  if (end != buf + n) return false;
  *out = d;
  return true;
}

static bool parse_int(const char *s, int32_t n, int64_t *out) {
  if (n == 0 || n > 40) return false;
  char buf[41];
  memcpy(buf, s, (size_t)n);
  buf[n] = '\0';
  for (int32_t i = 0; i < n; i++)
    if (!(isdigit((unsigned char)buf[i]) || (i == 0 && (buf[i] == '-' || buf[i] == '+')))) return false;
  char *end;
  errno = 0;
  long long v = strtoll(buf, &end, 10);
  if (end != buf + n || errno == ERANGE) return false;
  *out = v;
  return true;
}

static qv_status float_to_int(double f, int64_t *out, qv_error *err) {
  if (isnan(f) || f >= 9223372036854775808.0 || f < -9223372036854775808.0)
    return qv_error_set(err, QV_ERR_OVERFLOW, "cypher: integer overflow in toInteger(%g)", f);
  *out = (int64_t)f; /* truncates toward zero */
  return QV_OK;
}

/* ---- conversions ------------------------------------------------------------- */

static qv_status to_integer(const qvg_val *v, qvg_val *out, qv_error *err) {
  switch (v->t) {
    case QVG_V_INT: *out = *v; return QV_OK;
    case QVG_V_BOOL: *out = qvg_int(v->u.b); return QV_OK;
    case QVG_V_FLOAT: {
      int64_t i = 0;
      QV_RETURN_NOT_OK(float_to_int(v->u.f, &i, err));
      *out = qvg_int(i);
      return QV_OK;
    }
    case QVG_V_STRING: {
      int64_t i = 0;
      double d;
      if (parse_int(v->u.s, v->n, &i)) *out = qvg_int(i);
      else if (parse_float(v->u.s, v->n, &d) && float_to_int(d, &i, NULL) == QV_OK) *out = qvg_int(i);
      else *out = qvg_null();
      return QV_OK;
    }
    default: return wrong(QVG_FN_TOINTEGER, v, err);
  }
}

static qv_status to_float(const qvg_val *v, qvg_val *out, qv_error *err) {
  switch (v->t) {
    case QVG_V_INT: *out = qvg_float((double)v->u.i); return QV_OK;
    case QVG_V_FLOAT: *out = *v; return QV_OK;
    case QVG_V_STRING: {
      double d;
      *out = parse_float(v->u.s, v->n, &d) ? qvg_float(d) : qvg_null();
      return QV_OK;
    }
    default: return wrong(QVG_FN_TOFLOAT, v, err);
  }
}

static qv_status to_boolean(const qvg_val *v, qvg_val *out, qv_error *err) {
  switch (v->t) {
    case QVG_V_BOOL: *out = *v; return QV_OK;
    case QVG_V_INT: *out = qvg_bool(v->u.i != 0); return QV_OK;
    case QVG_V_STRING:
      if (v->n == 4 && strncasecmp(v->u.s, "true", 4) == 0) *out = qvg_bool(true);
      else if (v->n == 5 && strncasecmp(v->u.s, "false", 5) == 0) *out = qvg_bool(false);
      else *out = qvg_null();
      return QV_OK;
    default: return wrong(QVG_FN_TOBOOLEAN, v, err);
  }
}

static qv_status to_string(qvg_evalctx *cx, const qvg_val *v, qvg_val *out, qv_error *err) {
  if (v->t == QVG_V_STRING) {
    *out = *v;
    return QV_OK;
  }
  qvb_text t = {0};
  switch (v->t) {
    case QVG_V_INT: qvb_text_f(&t, "%lld", (long long)v->u.i); break;
    case QVG_V_FLOAT: qvg_format_float(v->u.f, &t); break;
    case QVG_V_BOOL: qvb_text_s(&t, v->u.b ? "true" : "false"); break;
    case QVG_V_DATE:
    case QVG_V_LOCALTIME:
    case QVG_V_TIME:
    case QVG_V_LOCALDATETIME:
    case QVG_V_DATETIME:
    case QVG_V_DURATION: qvg_temporal_text(v, &t); break;
    default: return wrong(QVG_FN_TOSTRING, v, err);
  }
  qv_status st = t.oom ? qv_error_nomem(err, "cypher: toString") : qvg_new_string(cx->arena, t.p, t.n, out, err);
  qvb_text_free(&t);
  return st;
}

/* ---- strings ---------------------------------------------------------------------- */

static qv_status change_case(qvg_evalctx *cx, const qvg_val *v, bool upper, qvg_val *out, qv_error *err) {
  char *w = qvg_arena_alloc(cx->arena, (size_t)v->n * 4 + 1);
  if (!w) return qv_error_nomem(err, "cypher: case mapping");
  int64_t k = 0, n = 0;
  const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)v->u.s;
  while (k < v->n) {
    utf8proc_int32_t cp;
    utf8proc_ssize_t used = utf8proc_iterate(p + k, v->n - k, &cp);
    if (used <= 0) return qvg_arg_error(err, "%s() of a string that is not UTF-8", upper ? "toUpper" : "toLower");
    k += used;
    cp = upper ? utf8proc_toupper(cp) : utf8proc_tolower(cp);
    n += utf8proc_encode_char(cp, (utf8proc_uint8_t *)w + n);
  }
  *out = qvg_string(w, (int32_t)n);
  return QV_OK;
}

static qv_status trim(const qvg_val *v, bool left, bool right, qvg_val *out) {
  int32_t a = 0, b = v->n;
  while (left && a < b && is_space(v->u.s[a])) a++;
  while (right && b > a && is_space(v->u.s[b - 1])) b--;
  *out = qvg_string(v->u.s + a, b - a);
  return QV_OK;
}

static qv_status replace(qvg_evalctx *cx, const qvg_val *s, const qvg_val *from, const qvg_val *to, qvg_val *out,
                         qv_error *err) {
  qvb_text t = {0};
  if (from->n == 0) {
    /* Java's replace("", x): x around every code point */
    qvb_text_add(&t, to->u.s, (size_t)to->n);
    for (int32_t i = 0; i < s->n;) {
      int32_t j = i + 1;
      while (j < s->n && ((uint8_t)s->u.s[j] & 0xC0) == 0x80) j++;
      qvb_text_add(&t, s->u.s + i, (size_t)(j - i));
      qvb_text_add(&t, to->u.s, (size_t)to->n);
      i = j;
    }
  } else {
    int32_t i = 0;
    while (i < s->n) {
      const char *hit = memmem(s->u.s + i, (size_t)(s->n - i), from->u.s, (size_t)from->n);
      if (!hit) break;
      int32_t at = (int32_t)(hit - s->u.s);
      qvb_text_add(&t, s->u.s + i, (size_t)(at - i));
      qvb_text_add(&t, to->u.s, (size_t)to->n);
      i = at + from->n;
    }
    qvb_text_add(&t, s->u.s + i, (size_t)(s->n - i));
  }
  qv_status st =
      t.oom ? qv_error_nomem(err, "cypher: replace") : qvg_new_string(cx->arena, t.p ? t.p : "", t.n, out, err);
  qvb_text_free(&t);
  return st;
}

static qv_status split(qvg_evalctx *cx, const qvg_val *s, const qvg_val *d, qvg_val *out, qv_error *err) {
  int32_t parts = 1;
  if (d->n == 0) {
    parts = cp_count(s->u.s, s->n);
  } else {
    for (int32_t i = 0; i + d->n <= s->n;) {
      const char *hit = memmem(s->u.s + i, (size_t)(s->n - i), d->u.s, (size_t)d->n);
      if (!hit) break;
      parts++;
      i = (int32_t)(hit - s->u.s) + d->n;
    }
  }
  qvg_val *l = qvg_new_list(cx->arena, parts, out);
  if (!l) return qv_error_nomem(err, "cypher: split");
  if (d->n == 0) {
    for (int32_t i = 0, k = 0; i < s->n; k++) {
      int32_t j = i + 1;
      while (j < s->n && ((uint8_t)s->u.s[j] & 0xC0) == 0x80) j++;
      l[k] = qvg_string(s->u.s + i, j - i);
      i = j;
    }
    return QV_OK;
  }
  int32_t i = 0, k = 0;
  for (;;) {
    const char *hit = i <= s->n - d->n ? memmem(s->u.s + i, (size_t)(s->n - i), d->u.s, (size_t)d->n) : NULL;
    int32_t end = hit ? (int32_t)(hit - s->u.s) : s->n;
    l[k++] = qvg_string(s->u.s + i, end - i);
    if (!hit) break;
    i = end + d->n;
  }
  out->n = k;
  return QV_OK;
}

static qv_status reverse(qvg_evalctx *cx, const qvg_val *v, qvg_val *out, qv_error *err) {
  if (v->t == QVG_V_LIST) {
    qvg_val *l = qvg_new_list(cx->arena, v->n, out);
    if (!l) return qv_error_nomem(err, "cypher: reverse");
    for (int32_t i = 0; i < v->n; i++) l[i] = v->u.l[v->n - 1 - i];
    return QV_OK;
  }
  if (v->t != QVG_V_STRING) return wrong(QVG_FN_REVERSE, v, err);
  char *w = qvg_arena_alloc(cx->arena, (size_t)v->n + 1);
  if (!w) return qv_error_nomem(err, "cypher: reverse");
  int32_t o = v->n;
  for (int32_t i = 0; i < v->n;) { /* code point by code point */
    int32_t j = i + 1;
    while (j < v->n && ((uint8_t)v->u.s[j] & 0xC0) == 0x80) j++;
    o -= j - i;
    memcpy(w + o, v->u.s + i, (size_t)(j - i));
    i = j;
  }
  *out = qvg_string(w, v->n);
  return QV_OK;
}

static qv_status int_arg(int fn, const qvg_val *v, const char *what, int64_t *out, qv_error *err) {
  if (v->t != QVG_V_INT)
    return qvg_arg_error(err, "%s() expects an Integer %s, not %s", qvg_fn_name(fn), what, tname(v));
  *out = v->u.i;
  return QV_OK;
}

static qv_status substring(const qvg_val *args, int32_t n, qvg_val *out, qv_error *err) {
  const qvg_val *s = &args[0];
  int64_t start = 0, len = INT64_MAX;
  QV_RETURN_NOT_OK(int_arg(QVG_FN_SUBSTRING, &args[1], "start", &start, err));
  if (n > 2) QV_RETURN_NOT_OK(int_arg(QVG_FN_SUBSTRING, &args[2], "length", &len, err));
  if (start < 0 || len < 0) return qvg_arg_error(err, "substring() with a negative start or length");
  int32_t a = cp_offset(s->u.s, s->n, start);
  int32_t b = a + cp_offset(s->u.s + a, s->n - a, len);
  *out = qvg_string(s->u.s + a, b - a);
  return QV_OK;
}

static qv_status left_right(int fn, const qvg_val *s, const qvg_val *k, qvg_val *out, qv_error *err) {
  int64_t len = 0;
  QV_RETURN_NOT_OK(int_arg(fn, k, "length", &len, err));
  if (len < 0) return qvg_arg_error(err, "%s() with a negative length", qvg_fn_name(fn));
  int32_t cps = cp_count(s->u.s, s->n);
  if (fn == QVG_FN_LEFT) {
    *out = qvg_string(s->u.s, cp_offset(s->u.s, s->n, len));
  } else {
    int32_t a = len >= cps ? 0 : cp_offset(s->u.s, s->n, cps - len);
    *out = qvg_string(s->u.s + a, s->n - a);
  }
  return QV_OK;
}

/* ---- lists, graphs ------------------------------------------------------------------ */

static qv_status range(qvg_evalctx *cx, const qvg_val *args, int32_t n, qvg_val *out, qv_error *err) {
  int64_t a, b, step = 1;
  for (int32_t i = 0; i < n; i++)
    if (args[i].t != QVG_V_INT)
      return qvg_arg_error(err, "range() expects Integers, not %s (argument %d)", tname(&args[i]), (int)i + 1);
  a = args[0].u.i;
  b = args[1].u.i;
  if (n > 2) step = args[2].u.i;
  if (step == 0) return qvg_arg_error(err, "range() with a step of 0");
  qv_int128 count = 0;
  if ((step > 0 && b >= a) || (step < 0 && b <= a)) count = ((qv_int128)b - a) / step + 1;
  if (count > INT32_MAX) return qvg_arg_error(err, "range() of %lld elements", (long long)count);
  qvg_val *l = qvg_new_list(cx->arena, (int32_t)count, out);
  if (!l) return qv_error_nomem(err, "cypher: range");
  for (int32_t i = 0; i < (int32_t)count; i++) l[i] = qvg_int((int64_t)((qv_int128)a + (qv_int128)i * step));
  return QV_OK;
}

static qv_status keys(qvg_evalctx *cx, const qvg_val *v, qvg_val *out, qv_error *err) {
  qvg_val m;
  if (v->t == QVG_V_MAP) m = *v;
  else if (v->t == QVG_V_NODE) QV_RETURN_NOT_OK(qvg_store_node_props(cx->st, v->u.i, cx->arena, &m, err));
  else QV_RETURN_NOT_OK(qvg_store_rel_props(cx->st, v->u.i, cx->arena, &m, err));
  qvg_val *l = qvg_new_list(cx->arena, m.n, out);
  if (!l) return qv_error_nomem(err, "cypher: keys");
  for (int32_t i = 0; i < m.n; i++) l[i] = qvg_string(m.u.m[i].key, m.u.m[i].klen);
  return QV_OK;
}

static qv_status labels(qvg_evalctx *cx, const qvg_val *v, qvg_val *out, qv_error *err) {
  int32_t ids[64];
  int32_t n = qvg_store_node_labels(cx->st, v->u.i, ids, 64);
  if (n > 64) n = 64;
  qvg_val *l = qvg_new_list(cx->arena, n, out);
  if (!l) return qv_error_nomem(err, "cypher: labels");
  int32_t k = 0;
  for (int32_t i = 0; i < n; i++)
    if (ids[i] >= 0 && ids[i] < cx->st->n_labels) {
      const char *s = cx->st->labels[ids[i]];
      l[k++] = qvg_string(s, (int32_t)strlen(s));
    }
  out->n = k;
  return QV_OK;
}

static qv_status path_items(qvg_evalctx *cx, const qvg_val *p, bool rels, qvg_val *out, qv_error *err) {
  int32_t n = rels ? p->n / 2 : (p->n + 1) / 2;
  qvg_val *l = qvg_new_list(cx->arena, n, out);
  if (!l) return qv_error_nomem(err, "cypher: path");
  for (int32_t i = 0; i < n; i++) l[i] = p->u.l[2 * i + (rels ? 1 : 0)];
  return QV_OK;
}

static qv_status math1(int fn, const qvg_val *v, qvg_val *out, qv_error *err) {
  if (!is_num(v)) return wrong(fn, v, err);
  double x = as_f(v), r;
  switch (fn) {
    case QVG_FN_ABS:
      if (v->t == QVG_V_INT) {
        if (v->u.i == INT64_MIN) return qvg_overflow(err, "abs()");
        *out = qvg_int(v->u.i < 0 ? -v->u.i : v->u.i);
        return QV_OK;
      }
      r = fabs(x);
      break;
    case QVG_FN_SIGN: *out = qvg_int(x > 0 ? 1 : x < 0 ? -1 : 0); return QV_OK;
    case QVG_FN_CEIL: r = ceil(x); break;
    case QVG_FN_FLOOR: r = floor(x); break;
    case QVG_FN_ROUND: r = round(x); break; /* half away from zero */
    case QVG_FN_SQRT: r = sqrt(x); break;
    case QVG_FN_EXP: r = exp(x); break;
    case QVG_FN_LOG: r = log(x); break;
    case QVG_FN_LOG10: r = log10(x); break;
    case QVG_FN_SIN: r = sin(x); break;
    case QVG_FN_COS: r = cos(x); break;
    case QVG_FN_TAN: r = tan(x); break;
    case QVG_FN_ASIN: r = asin(x); break;
    case QVG_FN_ACOS: r = acos(x); break;
    default: r = atan(x); break;
  }
  *out = qvg_float(r);
  return QV_OK;
}

static _Atomic uint64_t g_rand_state = 0x9E3779B97F4A7C15u; /* shared by every thread */

qv_status qvg_fn_call(int fn, const qvg_val *args, int32_t n, qvg_evalctx *cx, qvg_val *out, qv_error *err) {
  *out = qvg_null();
  if (fn <= 0 || fn >= QVG_FN__COUNT) return qv_error_set(err, QV_ERR_INVALID, "cypher: unknown function %d", fn);
  if (n < fns[fn].min || n > fns[fn].max)
    return qvg_arg_error(err, "%s() takes %d to %d arguments, not %d", fns[fn].name, (int)fns[fn].min, (int)fns[fn].max,
                         (int)n);
  switch (fn) {
    case QVG_FN_PI: *out = qvg_float(M_PI); return QV_OK;
    case QVG_FN_E: *out = qvg_float(M_E); return QV_OK;
    case QVG_FN_RAND: {
      /* splitmix64; rand() promises no sequence */
      uint64_t z = atomic_fetch_add(&g_rand_state, 0x9E3779B97F4A7C15u) + 0x9E3779B97F4A7C15u;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
      z ^= z >> 31;
      *out = qvg_float((double)(z >> 11) * 0x1.0p-53);
      return QV_OK;
    }
    case QVG_FN_EXISTS: *out = qvg_bool(args[0].t != QVG_V_NULL); return QV_OK;
    case QVG_FN_COALESCE:
      for (int32_t i = 0; i < n; i++)
        if (args[i].t != QVG_V_NULL) {
          *out = args[i];
          break;
        }
      return QV_OK;
    case QVG_FN_RANGE:
      for (int32_t i = 0; i < n; i++)
        if (args[i].t == QVG_V_NULL) return qvg_arg_error(err, "range() of null");
      return range(cx, args, n, out, err);
    case QVG_FN_DURATION: return qvg_temporal_construct(cx, QVG_V_DURATION, args, n, out, err);
    case QVG_FN_DATETIME_FROMEPOCH:
    case QVG_FN_DATETIME_FROMEPOCHMILLIS:
      return qvg_temporal_fromepoch(cx, fn == QVG_FN_DATETIME_FROMEPOCHMILLIS, args, n, out, err);
    case QVG_FN_DURATION_BETWEEN:
    case QVG_FN_DURATION_INMONTHS:
    case QVG_FN_DURATION_INDAYS:
    case QVG_FN_DURATION_INSECONDS:
      return qvg_duration_between(cx, fn - QVG_FN_DURATION_BETWEEN, &args[0], &args[1], out, err);
    default:
      if (fn >= QVG_FN_DATE && fn <= QVG_FN_DATETIME)
        return qvg_temporal_construct(cx, QVG_V_DATE + (fn - QVG_FN_DATE), args, n, out, err);
      if (fn >= QVG_FN_DATE_TRUNCATE && fn <= QVG_FN_DATETIME_TRUNCATE)
        return qvg_temporal_truncate(cx, QVG_V_DATE + (fn - QVG_FN_DATE_TRUNCATE), args, n, out, err);
      if (fn >= QVG_FN_DATE_REALTIME && fn <= QVG_FN_DATETIME_TRANSACTION)
        return qvg_temporal_clock(cx, QVG_V_DATE + (fn - QVG_FN_DATE_REALTIME) % 5, fn <= QVG_FN_DATETIME_REALTIME,
                                  args, n, out, err);
      break;
  }
  /* every other function: null in, null out */
  for (int32_t i = 0; i < n; i++)
    if (args[i].t == QVG_V_NULL) {
      if ((fn == QVG_FN_LEFT || fn == QVG_FN_RIGHT || fn == QVG_FN_SUBSTRING) && i > 0 && args[0].t != QVG_V_NULL)
        return qvg_arg_error(err, "%s() with a null length or start", fns[fn].name);
      return QV_OK;
    }
  const qvg_val *v = &args[0];
  switch (fn) {
    case QVG_FN_ID:
      if (v->t != QVG_V_NODE && v->t != QVG_V_REL) return wrong(fn, v, err);
      *out = qvg_int(v->u.i);
      return QV_OK;
    case QVG_FN_LABELS:
      if (v->t != QVG_V_NODE) return wrong(fn, v, err);
      QV_RETURN_NOT_OK(need_store(cx, fn, err));
      return labels(cx, v, out, err);
    case QVG_FN_TYPE: {
      if (v->t != QVG_V_REL) return wrong(fn, v, err);
      QV_RETURN_NOT_OK(need_store(cx, fn, err));
      int32_t t = qvg_store_rel_type(cx->st, v->u.i);
      if (t < 0 || t >= cx->st->n_types)
        return qv_error_set(err, QV_ERR_INVALID, "cypher: relationship without a type");
      *out = qvg_string(cx->st->types[t], (int32_t)strlen(cx->st->types[t]));
      return QV_OK;
    }
    case QVG_FN_PROPERTIES:
      if (v->t == QVG_V_MAP) {
        *out = *v;
        return QV_OK;
      }
      if (v->t != QVG_V_NODE && v->t != QVG_V_REL) return wrong(fn, v, err);
      QV_RETURN_NOT_OK(need_store(cx, fn, err));
      return v->t == QVG_V_NODE ? qvg_store_node_props(cx->st, v->u.i, cx->arena, out, err)
                                : qvg_store_rel_props(cx->st, v->u.i, cx->arena, out, err);
    case QVG_FN_KEYS:
      if (v->t != QVG_V_MAP && v->t != QVG_V_NODE && v->t != QVG_V_REL) return wrong(fn, v, err);
      if (v->t != QVG_V_MAP) QV_RETURN_NOT_OK(need_store(cx, fn, err));
      return keys(cx, v, out, err);
    case QVG_FN_SIZE:
    case QVG_FN_LENGTH:
      if (v->t == QVG_V_LIST) *out = qvg_int(v->n);
      else if (v->t == QVG_V_STRING) *out = qvg_int(cp_count(v->u.s, v->n));
      else if (v->t == QVG_V_PATH && fn == QVG_FN_LENGTH) *out = qvg_int(v->n / 2);
      else return wrong(fn, v, err);
      return QV_OK;
    case QVG_FN_NODES:
    case QVG_FN_RELATIONSHIPS:
      if (v->t != QVG_V_PATH) return wrong(fn, v, err);
      return path_items(cx, v, fn == QVG_FN_RELATIONSHIPS, out, err);
    case QVG_FN_STARTNODE:
    case QVG_FN_ENDNODE:
      if (v->t != QVG_V_REL) return wrong(fn, v, err);
      QV_RETURN_NOT_OK(need_store(cx, fn, err));
      *out =
          qvg_node_val(fn == QVG_FN_STARTNODE ? qvg_store_rel_src(cx->st, v->u.i) : qvg_store_rel_dst(cx->st, v->u.i));
      return QV_OK;
    case QVG_FN_HEAD:
    case QVG_FN_LAST:
      if (v->t != QVG_V_LIST) return wrong(fn, v, err);
      if (v->n > 0) *out = v->u.l[fn == QVG_FN_HEAD ? 0 : v->n - 1];
      return QV_OK;
    case QVG_FN_TAIL:
      if (v->t != QVG_V_LIST) return wrong(fn, v, err);
      out->t = QVG_V_LIST;
      out->n = v->n > 0 ? v->n - 1 : 0;
      out->u.l = v->n > 0 ? v->u.l + 1 : v->u.l;
      return QV_OK;
    case QVG_FN_REVERSE: return reverse(cx, v, out, err);
    case QVG_FN_TOINTEGER: return to_integer(v, out, err);
    case QVG_FN_TOFLOAT: return to_float(v, out, err);
    case QVG_FN_TOSTRING: return to_string(cx, v, out, err);
    case QVG_FN_TOBOOLEAN: return to_boolean(v, out, err);
    case QVG_FN_ATAN2:
      if (!is_num(&args[0])) return wrong(fn, &args[0], err);
      if (!is_num(&args[1])) return wrong(fn, &args[1], err);
      *out = qvg_float(atan2(as_f(&args[0]), as_f(&args[1])));
      return QV_OK;
    default: break;
  }
  if (fn >= QVG_FN_ABS && fn <= QVG_FN_ATAN) return math1(fn, v, out, err);
  /* string functions */
  for (int32_t i = 0; i < n; i++) {
    bool len_arg = (fn == QVG_FN_SUBSTRING || fn == QVG_FN_LEFT || fn == QVG_FN_RIGHT) && i > 0;
    if (!len_arg && args[i].t != QVG_V_STRING) return wrong(fn, &args[i], err);
  }
  switch (fn) {
    case QVG_FN_TOUPPER:
    case QVG_FN_TOLOWER: return change_case(cx, v, fn == QVG_FN_TOUPPER, out, err);
    case QVG_FN_TRIM: return trim(v, true, true, out);
    case QVG_FN_LTRIM: return trim(v, true, false, out);
    case QVG_FN_RTRIM: return trim(v, false, true, out);
    case QVG_FN_REPLACE: return replace(cx, v, &args[1], &args[2], out, err);
    case QVG_FN_SUBSTRING: return substring(args, n, out, err);
    case QVG_FN_LEFT:
    case QVG_FN_RIGHT: return left_right(fn, v, &args[1], out, err);
    case QVG_FN_SPLIT: return split(cx, v, &args[1], out, err);
    default: return qv_error_set(err, QV_ERR_INVALID, "cypher: function %s is not implemented", qvg_fn_name(fn));
  }
}
