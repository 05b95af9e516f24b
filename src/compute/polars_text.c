/* Kernels for the string operators only the Polars front ends produce,
 * with Polars 2.1.0 semantics, and the dispatch to the temporal and list
 * ones (polars_temporal.c, polars_list.c) and the case mappings
 * (polars_case.c).
 *
 * - concat_str: row i joins the inputs with the separator; a null input
 *   makes the row null, or with ignore_nulls is skipped with its separator
 *   (a row of only nulls is then "").
 * - str.slice(offset, length): character positions; a negative offset
 *   counts from the end; the window [offset, offset + length) is clipped
 *   to the string (so slice(-20, 2) of "abc" is ""); a null length runs to
 *   the end; a null offset gives null.
 * - str.strip_chars(chars): a null chars strips Rust's Unicode
 *   whitespace (char::is_whitespace), otherwise every character of chars
 *   (which may vary per row).
 * - str.replace / replace_all: param n is how many matches to replace
 *   (negative: all; 0: none, but the first for a pattern with regex
 *   syntax; above 1 refused for a pattern with regex syntax, as Polars).  Literal patterns are found with memmem; regexes with PCRE2,
 *   Rust's regex syntax (qvk_regex_compile_rust), and the replacement read
 *   as that crate reads it: $N and ${N} are
 *   groups, $name / ${name} named groups (the longest [_0-9A-Za-z]+ after
 *   $), $$ is $, a group that does not exist is empty.  Empty matches
 *   advance one character, never twice at one position.
 * - str.contains_any(patterns): whether any non-null pattern occurs (an
 *   empty pattern always does), optionally ASCII case-insensitively.
 * - str.len_bytes: UInt32. */
#include <ctype.h>

#include "compute/polars_str_int.h"
#include "compute/regex_int.h"

/* ---- the string result builder (polars_str_int.h) --------------------------- */

qv_status qvk_sout_init(qvk_sout *o, int64_t n, qv_error *err) {
  memset(o, 0, sizeof *o);
  o->n = n;
  o->offsets = qvk_bytes((n + 1) * 4, err);
  o->validity = o->offsets ? qvk_bytes(qvk_words(n) * 8, err) : NULL;
  if (!o->validity) {
    qvk_sout_reset(o);
    return QV_ERR_NOMEM;
  }
  o->o = (int32_t *)qv_bytes_mutable(o->offsets);
  o->vbits = qv_bytes_mutable(o->validity);
  return QV_OK;
}

void qvk_sout_reset(qvk_sout *o) {
  qv_buffer_reset(&o->data);
  qv_bytes_release(o->offsets);
  qv_bytes_release(o->validity);
  o->offsets = o->validity = NULL;
}

uint8_t *qvk_sout_room(qvk_sout *o, int64_t n, const char *what, qv_error *err) {
  if (o->data.size + n > INT32_MAX) {
    qv_error_set(err, QV_ERR_OVERFLOW, "%s: the result exceeds 2 GiB", what);
    return NULL;
  }
  if (qv_buffer_reserve(&o->data, n) != QV_OK) {
    qv_error_nomem(err, what);
    return NULL;
  }
  return o->data.data + o->data.size;
}

qv_status qvk_sout_add(qvk_sout *o, const void *p, int64_t n, const char *what, qv_error *err) {
  if (n == 0) return QV_OK;
  uint8_t *w = qvk_sout_room(o, n, what, err);
  if (!w) return err ? err->code : QV_ERR_NOMEM;
  memcpy(w, p, (size_t)n);
  o->data.size += n;
  return QV_OK;
}

qv_status qvk_sout_finish(qvk_sout *o, qv_status st, qvk_datum *out, const char *what, qv_error *err) {
  if (st != QV_OK) {
    qvk_sout_reset(o);
    return st;
  }
  o->o[o->n] = (int32_t)o->data.size;
  qv_datatype t = qv_datatype_simple(QV_TYPE_STRING);
  qv_array *r = NULL;
  st = qvk_array_new(&t, o->n, &r, err);
  if (st == QV_OK) {
    r->buffers[1] = o->offsets;
    o->offsets = NULL;
    if (qv_buffer_finish(&o->data, &r->buffers[2]) != QV_OK) st = qv_error_nomem(err, what);
    qvk_set_validity(r, o->validity);
    o->validity = NULL;
  }
  qvk_sout_reset(o);
  return qvk_array_out(st, r, out);
}

/* ---- concat_str ---------------------------------------------------------------- */

static qv_status concat_str(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  const char *what = "concat_str";
  int32_t k = e->n_args;
  const char *sep = e->name ? e->name : "";
  int64_t ls = (int64_t)strlen(sep);
  bool skip = (e->flags & QV_EXPR_F_IGNORE_NULLS) != 0;
  qvk_sview stack[8], *v = k <= 8 ? stack : qv_malloc((size_t)k * sizeof *v);
  if (!v) return qv_error_nomem(c->err, what);
  for (int32_t j = 0; j < k; j++) qvk_sview_init(&v[j], &args[j]);
  qvk_sout o;
  qv_status st = qvk_sout_init(&o, c->n, c->err);
  for (int64_t i = 0; i < c->n && st == QV_OK; i++) {
    qvk_sout_row(&o, i);
    bool any = false, null = false;
    for (int32_t j = 0; j < k && st == QV_OK; j++) {
      const uint8_t *p;
      int64_t len;
      if (!qvk_sview_get(&v[j], i, &p, &len)) {
        if (!skip) null = true;
        continue;
      }
      if (any) st = qvk_sout_add(&o, sep, ls, what, c->err);
      if (st == QV_OK) st = qvk_sout_add(&o, p, len, what, c->err);
      any = true;
    }
    if (null) o.data.size = o.o[i];
    else qvk_sout_valid(&o, i);
  }
  if (v != stack) qv_free(v);
  return qvk_sout_finish(&o, st, out, what, c->err);
}

/* ---- str.slice ------------------------------------------------------------------- */

/* Integer row i of an int64 datum; false when null. */
static inline bool int_at(const qvk_datum *d, int64_t i, int64_t *v) {
  if (d->scalar) {
    if (d->scalar->is_null || d->scalar->type.id == QV_TYPE_NULL) return false;
    *v = d->scalar->v.i;
    return true;
  }
  if (d->array->type.id == QV_TYPE_NULL) return false;
  int64_t r = qvk_row(d, i);
  if (!qv_array_is_valid(d->array, r)) return false;
  *v = ((const int64_t *)qv_array_values(d->array))[r];
  return true;
}

static int64_t count_chars(const uint8_t *p, int64_t n) {
  int64_t k = 0;
  for (int64_t j = 0; j < n; j++) k += (p[j] & 0xC0) != 0x80;
  return k;
}

/* Byte position after skipping `chars` characters from p (at most n). */
static int64_t skip_chars(const uint8_t *p, int64_t n, int64_t chars) {
  int64_t j = 0;
  while (j < n && chars > 0) {
    j++;
    while (j < n && (p[j] & 0xC0) == 0x80) j++;
    chars--;
  }
  return j;
}

static qv_status str_slice(qvk_ctx *c, qvk_datum *args, qvk_datum *out) {
  const char *what = "str.slice";
  qvk_sview v;
  qvk_sview_init(&v, &args[0]);
  qvk_datum *od = &args[1], *ld = &args[2];
  for (int k = 1; k < 3; k++) {
    qv_type_id id = qvk_datum_type(&args[k])->id;
    if (id != QV_TYPE_INT64 && id != QV_TYPE_NULL)
      return qv_error_set(c->err, QV_ERR_TYPE, "%s: offset and length must be int64 (bind the expression first)", what);
  }
  qvk_sout o;
  QV_RETURN_NOT_OK(qvk_sout_init(&o, c->n, c->err));
  qv_status st = QV_OK;
  for (int64_t i = 0; i < c->n && st == QV_OK; i++) {
    qvk_sout_row(&o, i);
    const uint8_t *p;
    int64_t len, off, cnt;
    if (!qvk_sview_get(&v, i, &p, &len) || !int_at(od, i, &off)) continue;
    bool to_end = !int_at(ld, i, &cnt);
    if (!to_end && cnt < 0) {
      st = qv_error_set(c->err, QV_ERR_INVALID, "%s: negative length %lld (row %lld)", what, (long long)cnt,
                        (long long)i);
      break;
    }
    int64_t start = off, stop;
    if (off < 0) start = count_chars(p, len) + off; /* may stay negative: the window is clipped */
    /* start + cnt cannot overflow when start is negative */
    stop = to_end || (start > 0 && cnt > INT64_MAX - start) ? INT64_MAX : start + cnt;
    if (start < 0) start = 0;
    if (stop > start) {
      int64_t b = skip_chars(p, len, start);
      int64_t e2 = stop == INT64_MAX ? len : b + skip_chars(p + b, len - b, stop - start);
      st = qvk_sout_add(&o, p + b, e2 - b, what, c->err);
    }
    qvk_sout_valid(&o, i);
  }
  return qvk_sout_finish(&o, st, out, what, c->err);
}

/* ---- str.strip_chars --------------------------------------------------------------- */

static bool in_list(const int32_t *set, int64_t n, int32_t cp) {
  for (int64_t k = 0; k < n; k++)
    if (set[k] == cp) return true;
  return false;
}

/* Whether cp is one of the characters of the UTF-8 text cs[0..n). */
static bool in_text(const uint8_t *cs, int64_t n, int32_t cp) {
  for (int64_t k = 0; k < n;) {
    int used;
    if (qvk_utf8_next(cs + k, n - k, &used) == cp) return true;
    k += used;
  }
  return false;
}

/* The characters strip_chars removes: Unicode whitespace (ws), the UTF-8
 * text of one row (text), or a constant set (ASCII bitmap + code points). */
typedef struct strip_set {
  bool ws;
  const uint8_t *text;
  int64_t ntext;
  const uint64_t *ascii;
  const int32_t *list;
  int64_t nlist;
} strip_set;

static inline bool strip_has(const strip_set *s, int32_t cp) {
  if (s->ws) return qvk_is_white_space(cp);
  if (s->text) return in_text(s->text, s->ntext, cp);
  return cp < 128 ? ((s->ascii[cp >> 6] >> (cp & 63)) & 1) != 0 : in_list(s->list, s->nlist, cp);
}

/* The span [*b, *e) of p[0..len) left once s's characters are stripped
 * from both ends. */
static inline void strip_span(const uint8_t *p, int64_t len, const strip_set *s, int64_t *b, int64_t *e) {
  *b = 0;
  *e = len;
  while (*b < *e) {
    int used;
    int32_t cp = qvk_utf8_next(p + *b, *e - *b, &used);
    if (!strip_has(s, cp)) break;
    *b += used;
  }
  while (*e > *b) {
    const uint8_t *q = qvk_utf8_prev(p + *b, p + *e);
    int used;
    int32_t cp = qvk_utf8_next(q, p + *e - q, &used);
    if (!strip_has(s, cp)) break;
    *e = q - p;
  }
}

/* strip_chars with characters that vary per row (a null row: whitespace). */
static qv_status strip_per_row(qvk_ctx *c, qvk_datum *args, qvk_datum *out) {
  const char *what = "str.strip_chars";
  qvk_sview v, cv;
  qvk_sview_init(&v, &args[0]);
  qvk_sview_init(&cv, &args[1]);
  qvk_sout o;
  qv_status st = qvk_sout_init(&o, c->n, c->err);
  for (int64_t i = 0; i < c->n && st == QV_OK; i++) {
    qvk_sout_row(&o, i);
    const uint8_t *p, *cs = NULL;
    int64_t len, nc = 0, b, e;
    if (!qvk_sview_get(&v, i, &p, &len)) continue;
    strip_set set = {0};
    set.ws = !qvk_sview_get(&cv, i, &cs, &nc);
    set.text = cs;
    set.ntext = nc;
    strip_span(p, len, &set, &b, &e);
    st = qvk_sout_add(&o, p + b, e - b, what, c->err);
    qvk_sout_valid(&o, i);
  }
  return qvk_sout_finish(&o, st, out, what, c->err);
}

static qv_status strip_chars(qvk_ctx *c, qvk_datum *args, qvk_datum *out) {
  const char *what = "str.strip_chars";
  if (!args[1].scalar) return strip_per_row(c, args, out);
  const qv_scalar *cs = args[1].scalar;
  bool ws = cs->is_null || cs->type.id == QV_TYPE_NULL;
  /* The set: ASCII in a bitmap, the rest as a short list of code points. */
  uint64_t ascii[2] = {0, 0};
  int32_t stackset[64], *set = stackset;
  int64_t nset = 0;
  if (!ws) {
    if (cs->len > (int64_t)(sizeof stackset / sizeof *stackset)) { /* a code point takes at least a byte */
      set = qv_malloc((size_t)cs->len * sizeof *set);
      if (!set) return qv_error_nomem(c->err, what);
    }
    for (int64_t k = 0; k < cs->len;) {
      int used;
      int32_t cp = qvk_utf8_next(cs->bytes + k, cs->len - k, &used);
      k += used;
      if (cp < 128) ascii[cp >> 6] |= (uint64_t)1 << (cp & 63);
      else set[nset++] = cp;
    }
  }
  const strip_set ss = {ws, NULL, 0, ascii, set, nset};
  qvk_sview v;
  qvk_sview_init(&v, &args[0]);
  qvk_sout o;
  qv_status st = qvk_sout_init(&o, c->n, c->err);
  for (int64_t i = 0; i < c->n && st == QV_OK; i++) {
    qvk_sout_row(&o, i);
    const uint8_t *p;
    int64_t len, b, e;
    if (!qvk_sview_get(&v, i, &p, &len)) continue;
    strip_span(p, len, &ss, &b, &e);
    st = qvk_sout_add(&o, p + b, e - b, what, c->err);
    qvk_sout_valid(&o, i);
  }
  if (set != stackset) qv_free(set);
  return qvk_sout_finish(&o, st, out, what, c->err);
}

/* ---- str.replace ------------------------------------------------------------------- */

/* Appends the replacement tpl with Rust regex's $ references expanded
 * against the match in ov (pairs of offsets into subject). */
static qv_status expand(qvk_sout *o, const qv_scalar *tpl, const qvk_regex *re, const uint8_t *subj,
                        const PCRE2_SIZE *ov, uint32_t npairs, qv_error *err) {
  const uint8_t *t = tpl->bytes ? tpl->bytes : (const uint8_t *)"";
  int64_t n = tpl->len, k = 0;
  const char *what = "str.replace";
  while (k < n) {
    const uint8_t *dollar = memchr(t + k, '$', (size_t)(n - k));
    int64_t lit = dollar ? dollar - (t + k) : n - k;
    QV_RETURN_NOT_OK(qvk_sout_add(o, t + k, lit, what, err));
    k += lit;
    if (k >= n) break;
    k++; /* past '$' */
    if (k < n && t[k] == '$') {
      QV_RETURN_NOT_OK(qvk_sout_add(o, "$", 1, what, err));
      k++;
      continue;
    }
    int64_t nb, ne;
    if (k < n && t[k] == '{') {
      const uint8_t *close = memchr(t + k, '}', (size_t)(n - k));
      if (!close || close == t + k + 1) { /* not a reference: a literal '$' */
        QV_RETURN_NOT_OK(qvk_sout_add(o, "$", 1, what, err));
        continue;
      }
      nb = k + 1;
      ne = close - t;
      k = ne + 1;
    } else {
      nb = k;
      while (k < n && (isalnum(t[k]) || t[k] == '_')) k++;
      ne = k;
      if (ne == nb) {
        QV_RETURN_NOT_OK(qvk_sout_add(o, "$", 1, what, err));
        continue;
      }
    }
    /* a name of digits only is a group number */
    int64_t g = 0;
    bool digits = true;
    for (int64_t j = nb; j < ne && digits; j++) {
      if (t[j] < '0' || t[j] > '9') digits = false;
      else if (g < 100000) g = g * 10 + (t[j] - '0');
    }
    if (!digits) {
      char name[128];
      int64_t ln = ne - nb < 127 ? ne - nb : 127;
      memcpy(name, t + nb, (size_t)ln);
      name[ln] = '\0';
      int num = pcre2_substring_number_from_name(re->code, (PCRE2_SPTR)name);
      g = num > 0 ? num : -1;
    }
    if (g >= 0 && g < (int64_t)npairs && ov[2 * g] != PCRE2_UNSET)
      QV_RETURN_NOT_OK(qvk_sout_add(o, subj + ov[2 * g], (int64_t)(ov[2 * g + 1] - ov[2 * g]), what, err));
  }
  return QV_OK;
}

/* Whether the pattern uses a character the regex crate treats as syntax
 * (regex_syntax::is_meta_character); Polars treats the others as text. */
static bool has_regex_syntax(const qv_scalar *pat) {
  static const char meta[] = "\\.+*?()|[]{}^$#&-~";
  for (int64_t k = 0; k < pat->len; k++)
    if (pat->bytes[k] && strchr(meta, pat->bytes[k])) return true;
  return false;
}

static qv_status replace(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  const char *what = e->param < 0 ? "str.replace_all" : "str.replace";
  if (!args[1].scalar || !args[2].scalar)
    return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "%s: the pattern and the value must be constants", what);
  const qv_scalar *pat = args[1].scalar, *val = args[2].scalar;
  if (pat->is_null || val->is_null || qvk_datum_all_null(&args[0])) {
    qv_datatype st = qv_datatype_simple(QV_TYPE_STRING);
    return qvk_null_out(&st, c->n, out, c->err);
  }
  bool literal = (e->flags & QV_EXPR_F_LITERAL) != 0;
  /* How many matches Polars replaces: all for n < 0; for n = 0 none,
   * except that a pattern with regex syntax replaces its first match; a
   * pattern with regex syntax and n > 1 is refused. */
  bool syntax = !literal && has_regex_syntax(pat);
  int64_t limit = e->param < 0 ? INT64_MAX : e->param == 0 ? (syntax ? 1 : 0) : e->param;
  if (syntax && e->param > 1)
    return qv_error_set(c->err, QV_ERR_UNSUPPORTED,
                        "%s: a regex replacement with n > 1 is not supported (Polars refuses it too)", what);
  qvk_regex re = {NULL, NULL};
  if (!literal)
    QV_RETURN_NOT_OK(
        qvk_regex_compile_rust(pat->bytes ? pat->bytes : (const uint8_t *)"", (size_t)pat->len, what, &re, c->err));
  const uint8_t *pb = pat->bytes ? pat->bytes : (const uint8_t *)"";
  qvk_sview v;
  qvk_sview_init(&v, &args[0]);
  qvk_sout o;
  qv_status st = qvk_sout_init(&o, c->n, c->err);
  for (int64_t i = 0; i < c->n && st == QV_OK; i++) {
    qvk_sout_row(&o, i);
    const uint8_t *p;
    int64_t len;
    if (!qvk_sview_get(&v, i, &p, &len)) continue;
    qvk_sout_valid(&o, i);
    int64_t pos = 0, done = 0, copied = 0;
    int64_t last_end = -1; /* end of the previous match: no empty match right there */
    while (done < limit && pos <= len && st == QV_OK) {
      int64_t ms, me;
      const PCRE2_SIZE *ov = NULL;
      uint32_t npairs = 0;
      if (literal) {
        if (pat->len == 0) {
          ms = me = pos;
        } else {
          const uint8_t *f = memmem(p + pos, (size_t)(len - pos), pb, (size_t)pat->len);
          if (!f) break;
          ms = f - p;
          me = ms + pat->len;
        }
      } else {
        int rc = pcre2_match(re.code, (PCRE2_SPTR)p, (PCRE2_SIZE)len, (PCRE2_SIZE)pos, 0, re.md, NULL);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) {
          st = qvk_regex_error(rc, what, i, c->err);
          break;
        }
        ov = pcre2_get_ovector_pointer(re.md);
        npairs = pcre2_get_ovector_count(re.md);
        ms = (int64_t)ov[0];
        me = (int64_t)ov[1];
      }
      if (ms == me && ms == last_end) {
        /* an empty match where the last one ended: try one character on */
        if (ms >= len) break;
        int used;
        qvk_utf8_next(p + ms, len - ms, &used);
        pos = ms + used;
        continue;
      }
      st = qvk_sout_add(&o, p + copied, ms - copied, what, c->err);
      if (st != QV_OK) break;
      if (literal) st = qvk_sout_add(&o, val->bytes, val->len, what, c->err);
      else st = expand(&o, val, &re, p, ov, npairs, c->err);
      copied = me;
      last_end = me;
      done++;
      if (me > ms) {
        pos = me;
      } else {
        if (me >= len) break;
        int used;
        qvk_utf8_next(p + me, len - me, &used);
        pos = me + used;
      }
    }
    if (st == QV_OK) st = qvk_sout_add(&o, p + copied, len - copied, what, c->err);
  }
  qvk_regex_free(&re);
  return qvk_sout_finish(&o, st, out, what, c->err);
}

/* ---- str.contains_any ----------------------------------------------------------------- */

static bool find_ci(const uint8_t *h, int64_t nh, const uint8_t *nd, int64_t nn) {
  if (nn == 0) return true;
  for (int64_t j = 0; j + nn <= nh; j++) {
    int64_t k = 0;
    while (k < nn && tolower(h[j + k]) == tolower(nd[k])) k++;
    if (k == nn) return true;
  }
  return false;
}

static qv_status contains_any(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  const char *what = "str.contains_any";
  const qvk_datum *pd = &args[1];
  if (!pd->scalar || (!pd->scalar->is_null && pd->scalar->type.id != QV_TYPE_LIST))
    return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "%s: the patterns must be a constant list", what);
  int64_t n = c->n;
  qv_datatype bt = qv_datatype_simple(QV_TYPE_BOOL);
  if (pd->scalar->is_null || qvk_datum_all_null(&args[0]) || !pd->scalar->list) {
    return qvk_null_out(&bt, n, out, c->err);
  }
  const qv_array *pl = pd->scalar->list;
  if (pl->type.id != QV_TYPE_STRING && pl->type.id != QV_TYPE_NULL)
    return qv_error_set(c->err, QV_ERR_TYPE, "%s: the patterns must be strings", what);
  bool ci = (e->flags & QV_EXPR_F_ASCII_CI) != 0;
  qv_bytes *values = qvk_bytes(qvk_words(n) * 8, c->err), *validity = NULL;
  if (!values) return QV_ERR_NOMEM;
  uint64_t *ow = (uint64_t *)qv_bytes_mutable(values);
  qvk_sview v;
  qvk_sview_init(&v, &args[0]);
  for (int64_t i = 0; i < n; i++) {
    const uint8_t *p;
    int64_t len;
    if (!qvk_sview_get(&v, i, &p, &len)) continue;
    bool hit = false;
    for (int64_t k = 0; k < pl->length && !hit && pl->type.id == QV_TYPE_STRING; k++) {
      if (!qv_array_is_valid(pl, k)) continue;
      int32_t nl;
      const uint8_t *nd = qv_array_str(pl, k, &nl);
      if (ci) hit = find_ci(p, len, nd, nl);
      else hit = nl == 0 || (nl <= len && memmem(p, (size_t)len, nd, (size_t)nl) != NULL);
    }
    if (hit) ow[i >> 6] |= (uint64_t)1 << (i & 63);
  }
  qv_status st = qvk_validity_of(&args[0], NULL, n, &validity, c->err);
  return qvk_bool_out(st, n, values, validity, out, c->err);
}

/* ---- str.len_bytes ---------------------------------------------------------------------- */

static qv_status len_bytes(qvk_ctx *c, qvk_datum *args, qvk_datum *out) {
  qv_datatype ut = qv_datatype_simple(QV_TYPE_UINT32);
  qv_array *r = NULL;
  int64_t n = c->n;
  if (qvk_datum_all_null(&args[0])) return qvk_null_out(&ut, n, out, c->err);
  QV_RETURN_NOT_OK(qvk_fixed_result(&ut, n, false, &r, c->err));
  uint32_t *dst = (uint32_t *)qv_bytes_mutable(r->buffers[1]);
  qvk_sview v;
  qvk_sview_init(&v, &args[0]);
  if (v.s) {
    for (int64_t i = 0; i < n; i++) dst[i] = (uint32_t)v.s->len;
  } else {
    for (int64_t i = 0; i < n; i++) {
      int64_t row = qvk_row(&args[0], i);
      dst[i] = (uint32_t)(v.off[row + 1] - v.off[row]);
    }
  }
  return qvk_array_out_valid(r, &args[0], n, out, c->err);
}

/* ---- argument checks ------------------------------------------------------------------------ */

static qv_status want_strings(qvk_ctx *c, const qv_expr *e, qvk_datum *args, int32_t n) {
  for (int32_t k = 0; k < n; k++) {
    qv_type_id id = qvk_datum_type(&args[k])->id;
    if (id == QV_TYPE_STRING || id == QV_TYPE_NULL) continue;
    char tb[64];
    return qv_error_set(c->err, QV_ERR_TYPE, "%s: argument %d must be a string, got %s", qv_op_name(e->op), (int)k + 1,
                        qvk_type_name(qvk_datum_type(&args[k]), tb, sizeof tb));
  }
  return QV_OK;
}

static qv_status want_n(qvk_ctx *c, const qv_expr *e, int32_t n) {
  if (e->n_args == n) return QV_OK;
  return qv_error_set(c->err, QV_ERR_INVALID, "%s takes %d argument%s, got %d", qv_op_name(e->op), (int)n,
                      n == 1 ? "" : "s", (int)e->n_args);
}

/* ---- kernels (the KERNEL column of expr/ops.def) ---------------------------------------- */

qv_status qvk_op_concat_str(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args < 1) return want_n(c, e, 1);
  QV_RETURN_NOT_OK(want_strings(c, e, args, e->n_args));
  return concat_str(c, e, args, out);
}

qv_status qvk_op_str_slice(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  QV_RETURN_NOT_OK(want_n(c, e, 3));
  QV_RETURN_NOT_OK(want_strings(c, e, args, 1));
  return str_slice(c, args, out);
}

qv_status qvk_op_strip_chars(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  QV_RETURN_NOT_OK(want_n(c, e, 2));
  QV_RETURN_NOT_OK(want_strings(c, e, args, 2));
  return strip_chars(c, args, out);
}

qv_status qvk_op_replace(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  QV_RETURN_NOT_OK(want_n(c, e, 3));
  QV_RETURN_NOT_OK(want_strings(c, e, args, 3));
  return replace(c, e, args, out);
}

qv_status qvk_op_contains_any(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  QV_RETURN_NOT_OK(want_n(c, e, 2));
  QV_RETURN_NOT_OK(want_strings(c, e, args, 1));
  return contains_any(c, e, args, out);
}

qv_status qvk_op_titlecase(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  QV_RETURN_NOT_OK(want_n(c, e, 1));
  QV_RETURN_NOT_OK(want_strings(c, e, args, 1));
  return qvk_polars_case(c, e, args, out);
}

qv_status qvk_op_len_bytes(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  QV_RETURN_NOT_OK(want_n(c, e, 1));
  QV_RETURN_NOT_OK(want_strings(c, e, args, 1));
  return len_bytes(c, args, out);
}
