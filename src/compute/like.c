/* LIKE / ILIKE with ESCAPE.
 *
 * A constant pattern is translated once per evaluation:
 * - no '_' (and, for ILIKE, an ASCII pattern): split at '%' into literal
 *   segments; the first is a prefix, the last a suffix, the ones between
 *   are found left to right with memmem, which is exact for '%'-only
 *   patterns.  'abc' is equality, 'abc%' a prefix test, '%abc' a suffix
 *   test, '%abc%' one memmem.
 * - otherwise: an anchored PCRE2 regex ('%' -> .*, '_' -> one character,
 *   literals quoted), DOTALL, UTF for strings, CASELESS for ILIKE, JIT.
 * ILIKE on the segment path lower-cases ASCII subjects into a reused
 * scratch buffer; a subject with non-ASCII bytes goes to the caseless regex
 * (compiled on first need), so ILIKE is Unicode-aware everywhere: characters
 * match when PCRE2's Unicode case folding says so (K ~ k ~ KELVIN SIGN).
 * '_' is one character (a code point) for strings, one byte for binary.
 * The escape character is args[2] (one character; '' means none), or '\'
 * by default as in DataFusion; a pattern ending in it is QV_ERR_INVALID.
 * A pattern that is a column is matched row by row by a small wildcard
 * matcher (greedy with one backtrack point) with the same rules; its ILIKE
 * compares code points by utf8proc's simple lower/upper mappings. */
#include <utf8proc.h>

#include "compute/regex_int.h"

typedef struct like_plan {
  bool ci, binary, regex_only, has_re;
  int n_seg; /* segments; n_seg - 1 '%' between them */
  int64_t *seg_off, *seg_len;
  qv_buffer lit; /* segment bytes (lower-cased for ILIKE) */
  qv_buffer rx;  /* the equivalent regex */
  qvk_regex re;
  qv_buffer scratch; /* a lower-cased subject */
} like_plan;

static int64_t char_len(const uint8_t *p, int64_t avail, bool binary) {
  if (binary || p[0] < 0xC0) return 1;
  int64_t n = p[0] < 0xE0 ? 2 : p[0] < 0xF0 ? 3 : 4;
  return n <= avail ? n : avail;
}

static uint8_t lower_ascii(uint8_t c) { return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c; }

static void plan_reset(like_plan *pl) {
  qv_free(pl->seg_off);
  qv_buffer_reset(&pl->lit);
  qv_buffer_reset(&pl->rx);
  qv_buffer_reset(&pl->scratch);
  if (pl->has_re) qvk_regex_free(&pl->re);
  memset(pl, 0, sizeof *pl);
}

/* Appends literal character bytes to the regex, quoted. */
static qv_status rx_literal(qv_buffer *rx, const uint8_t *c, int64_t n) {
  if (n == 1 && c[0] < 0x80 &&
      !((c[0] >= '0' && c[0] <= '9') || (c[0] >= 'a' && c[0] <= 'z') || (c[0] >= 'A' && c[0] <= 'Z'))) {
    if (c[0] == 0) return qv_buffer_append(rx, "\\x{0}", 5);
    QV_RETURN_NOT_OK(qv_buffer_append(rx, "\\", 1));
  }
  return qv_buffer_append(rx, c, n);
}

/* Appends one character of the pattern (cl bytes at p) as literal text:
 * to the literal (lowercased under ci) and, escaped, to the regex. */
static qv_status plan_literal(like_plan *pl, const uint8_t *p, int64_t cl, bool *non_ascii) {
  qv_status st = QV_OK;
  for (int64_t j = 0; j < cl; j++) {
    *non_ascii |= p[j] >= 0x80;
    uint8_t b = pl->ci ? lower_ascii(p[j]) : p[j];
    if (st == QV_OK) st = qv_buffer_append(&pl->lit, &b, 1);
  }
  if (st == QV_OK) st = rx_literal(&pl->rx, p, cl);
  return st;
}

static qv_status plan_build(like_plan *pl, const uint8_t *p, int64_t len, const uint8_t *esc, int64_t el, bool ci,
                            bool binary, qv_error *err) {
  memset(pl, 0, sizeof *pl);
  pl->ci = ci;
  pl->binary = binary;
  int64_t max_seg = 1;
  for (int64_t k = 0; k < len; k++) max_seg += p[k] == '%';
  pl->seg_off = qv_malloc((size_t)max_seg * 2 * sizeof(int64_t));
  if (!pl->seg_off) return qv_error_nomem(err, "LIKE");
  pl->seg_len = pl->seg_off + max_seg;
  pl->n_seg = 1;
  pl->seg_off[0] = 0;
  qv_status st = QV_OK;
  bool non_ascii = false, underscore = false;
  for (int64_t k = 0; k < len && st == QV_OK;) {
    if (el > 0 && k + el <= len && memcmp(p + k, esc, (size_t)el) == 0) {
      k += el;
      if (k >= len) return qv_error_set(err, QV_ERR_INVALID, "LIKE: the pattern ends with the escape character");
      int64_t cl = char_len(p + k, len - k, binary);
      st = plan_literal(pl, p + k, cl, &non_ascii);
      k += cl;
      continue;
    }
    if (p[k] == '%') {
      while (k < len && p[k] == '%') k++; /* '%%' is '%' */
      pl->seg_len[pl->n_seg - 1] = pl->lit.size - pl->seg_off[pl->n_seg - 1];
      pl->seg_off[pl->n_seg++] = pl->lit.size;
      st = qv_buffer_append(&pl->rx, ".*", 2);
      continue;
    }
    if (p[k] == '_') {
      underscore = true;
      st = qv_buffer_append(&pl->rx, ".", 1);
      k++;
      continue;
    }
    int64_t cl = char_len(p + k, len - k, binary);
    st = plan_literal(pl, p + k, cl, &non_ascii);
    k += cl;
  }
  if (st != QV_OK) return qv_error_nomem(err, "LIKE");
  pl->seg_len[pl->n_seg - 1] = pl->lit.size - pl->seg_off[pl->n_seg - 1];
  pl->regex_only = underscore || (ci && non_ascii && !binary);
  return QV_OK;
}

static qv_status plan_regex(like_plan *pl, qv_error *err) {
  if (pl->has_re) return QV_OK;
  uint32_t opts = PCRE2_DOTALL | PCRE2_ANCHORED | PCRE2_ENDANCHORED;
  if (!pl->binary) opts |= PCRE2_UTF | PCRE2_UCP;
  if (pl->ci) opts |= PCRE2_CASELESS;
  const uint8_t *rx = pl->rx.data ? pl->rx.data : (const uint8_t *)"";
  QV_RETURN_NOT_OK(qvk_regex_compile(rx, (size_t)pl->rx.size, opts, "LIKE", &pl->re, err));
  pl->has_re = true;
  return QV_OK;
}

/* The segment matcher: prefix, suffix, then the middle segments in order. */
static bool seg_match(const like_plan *pl, const uint8_t *s, int64_t len) {
  const uint8_t *lit = pl->lit.data ? pl->lit.data : (const uint8_t *)"";
  int64_t l0 = pl->seg_len[0];
  if (pl->n_seg == 1) return len == l0 && memcmp(s, lit, (size_t)l0) == 0;
  int last = pl->n_seg - 1;
  int64_t ll = pl->seg_len[last];
  if (len < l0 + ll || memcmp(s, lit, (size_t)l0) != 0 ||
      memcmp(s + len - ll, lit + pl->seg_off[last], (size_t)ll) != 0)
    return false;
  int64_t pos = l0, end = len - ll;
  for (int k = 1; k < last; k++) {
    int64_t l = pl->seg_len[k];
    if (l == 0) continue;
    const uint8_t *f = end - pos >= l ? memmem(s + pos, (size_t)(end - pos), lit + pl->seg_off[k], (size_t)l) : NULL;
    if (!f) return false;
    pos = (f - s) + l;
  }
  return true;
}

/* One row against a constant pattern: 1 match, 0 no match, or a status < 0. */
static int plan_match(like_plan *pl, const uint8_t *s, int64_t len, int64_t row, qv_error *err) {
  if (!pl->regex_only) {
    if (!pl->ci) return seg_match(pl, s, len);
    bool ascii = true;
    for (int64_t k = 0; k < len && ascii; k++) ascii = s[k] < 0x80;
    if (ascii || pl->binary) {
      pl->scratch.size = 0;
      if (qv_buffer_reserve(&pl->scratch, len + 1) != QV_OK) {
        qv_error_nomem(err, "ILIKE");
        return -1;
      }
      for (int64_t k = 0; k < len; k++) pl->scratch.data[k] = lower_ascii(s[k]);
      return seg_match(pl, pl->scratch.data, len);
    }
  }
  if (plan_regex(pl, err) != QV_OK) return -1;
  int rc = pcre2_match(pl->re.code, (PCRE2_SPTR)s, (PCRE2_SIZE)len, 0, 0, pl->re.md, NULL);
  if (rc >= 0) return 1;
  if (rc == PCRE2_ERROR_NOMATCH) return 0;
  qvk_regex_error(rc, pl->ci ? "ILIKE" : "LIKE", row, err);
  return -1;
}

/* The common shapes of a case-sensitive '%'-only pattern, as tight loops
 * over every row (values under nulls are masked later): 'abc', 'abc%',
 * '%abc', '%abc%'.  Returns false for other shapes. */
static bool like_fast(const like_plan *pl, const qvk_datum *x, int64_t n, uint64_t *out) {
  if (pl->regex_only || pl->ci || pl->n_seg > 3) return false;
  const int64_t *sl = pl->seg_len;
  const uint8_t *lit = pl->lit.data ? pl->lit.data : (const uint8_t *)"";
  int kind; /* 0 exact, 1 prefix, 2 suffix, 3 contains */
  const uint8_t *np;
  int64_t nl;
  if (pl->n_seg == 1) kind = 0, np = lit, nl = sl[0];
  else if (pl->n_seg == 2 && sl[1] == 0) kind = 1, np = lit, nl = sl[0];
  else if (pl->n_seg == 2 && sl[0] == 0) kind = 2, np = lit + pl->seg_off[1], nl = sl[1];
  else if (pl->n_seg == 3 && sl[0] == 0 && sl[2] == 0) kind = 3, np = lit + pl->seg_off[1], nl = sl[1];
  else return false;
  const qv_array *a = x->array;
  const int32_t *o = qv_array_offsets(a);
  const uint8_t *d = a->buffers[2] ? a->buffers[2]->data : (const uint8_t *)"", *end = qvk_chars_end(a);
  const uint32_t *idx = x->idx;
  qvk_needle nd;
  qvk_needle_init(&nd, np, nl);
  if (kind == 3 && nl > 0 && !idx) { /* out is zeroed */
    qvk_contains_rows(o, d, n, np, nl, out);
    return true;
  }
  uint8_t tmp[64];
  for (int64_t base = 0; base < n; base += 64) {
    int64_t m = n - base < 64 ? n - base : 64;
    memset(tmp, 0, sizeof tmp);
    for (int64_t j = 0; j < m; j++) {
      int64_t r = idx ? idx[base + j] : base + j;
      const uint8_t *p = d + o[r];
      int64_t l = o[r + 1] - o[r];
      bool v;
      switch (kind) {
        case 0: v = l == nl && qvk_needle_eq(&nd, p, end); break;
        case 1: v = l >= nl && qvk_needle_eq(&nd, p, end); break;
        case 2: v = l >= nl && qvk_needle_eq(&nd, p + l - nl, end); break;
        default: v = nl == 0 || (l >= nl && memmem(p, (size_t)l, np, (size_t)nl) != NULL); break;
      }
      tmp[j] = v;
    }
    out[base >> 6] = qvk_pack64(tmp);
  }
  return true;
}

/* ---- column patterns -------------------------------------------------------------- */

static bool chars_equal(const uint8_t *a, int64_t al, const uint8_t *b, int64_t bl, bool ci, bool binary) {
  if (!ci) return al == bl && memcmp(a, b, (size_t)al) == 0;
  if (binary || (al == 1 && bl == 1)) return al == bl && lower_ascii(a[0]) == lower_ascii(b[0]);
  utf8proc_int32_t x, y;
  if (utf8proc_iterate(a, al, &x) <= 0 || utf8proc_iterate(b, bl, &y) <= 0)
    return al == bl && memcmp(a, b, (size_t)al) == 0;
  return x == y || utf8proc_tolower(x) == utf8proc_tolower(y) || utf8proc_toupper(x) == utf8proc_toupper(y);
}

/* Classic wildcard matching with one backtrack point (the last '%'): on a
 * mismatch the last '%' absorbs one more character.  1, 0, or -1 for a
 * pattern ending in the escape character. */
static int like_generic(const uint8_t *s, int64_t sl, const uint8_t *p, int64_t pl, const uint8_t *esc, int64_t el,
                        bool ci, bool binary) {
  int64_t si = 0, pi = 0, star_p = -1, star_s = 0;
  for (;;) {
    /* the pattern token at pi */
    bool is_esc = el > 0 && pi + el <= pl && memcmp(p + pi, esc, (size_t)el) == 0;
    if (is_esc && pi + el >= pl) return -1;
    if (pi < pl && !is_esc && p[pi] == '%') {
      pi++;
      star_p = pi;
      star_s = si;
      continue;
    }
    if (si >= sl) break;
    if (pi < pl) {
      int64_t sc = char_len(s + si, sl - si, binary);
      if (!is_esc && p[pi] == '_') {
        pi++;
        si += sc;
        continue;
      }
      int64_t at = is_esc ? pi + el : pi, pc = char_len(p + at, pl - at, binary);
      if (chars_equal(s + si, sc, p + at, pc, ci, binary)) {
        pi = at + pc;
        si += sc;
        continue;
      }
    }
    if (star_p < 0) return 0;
    star_s += char_len(s + star_s, sl - star_s, binary);
    si = star_s;
    pi = star_p;
  }
  return pi == pl;
}

/* ---- the LIKE operator ---------------------------------------------------------------- */

qv_status qvk_op_like(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 2 && e->n_args != 3)
    return qv_error_set(c->err, QV_ERR_INVALID, "LIKE takes 2 or 3 arguments, got %d", (int)e->n_args);
  for (int k = 0; k < e->n_args; k++) {
    qv_type_id id = qvk_datum_type(&args[k])->id;
    if (id != QV_TYPE_STRING && id != QV_TYPE_BINARY && id != QV_TYPE_NULL) {
      char tb[64];
      return qv_error_set(c->err, QV_ERR_TYPE, "LIKE: argument %d must be a string, got %s", k + 1,
                          qvk_type_name(qvk_datum_type(&args[k]), tb, sizeof tb));
    }
  }
  if (e->n_args == 3 && !args[2].scalar)
    return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "LIKE: the escape character must be a constant");
  qvk_datum *x = &args[0], *pat = &args[1];
  int64_t n = c->n;
  bool ci = e->sem.case_insensitive;
  qv_datatype bt = qv_datatype_simple(QV_TYPE_BOOL);
  if (qvk_datum_all_null(x) || qvk_datum_all_null(pat) || (e->n_args == 3 && qvk_datum_all_null(&args[2]))) {
    return qvk_null_out(&bt, n, out, c->err);
  }
  const uint8_t *esc = (const uint8_t *)"\\";
  int64_t el = 1;
  if (e->n_args == 3) {
    const qv_scalar *es = args[2].scalar;
    esc = es->bytes ? es->bytes : (const uint8_t *)"";
    el = es->len;
    if (el > 0 && char_len(esc, el, false) != el)
      return qv_error_set(c->err, QV_ERR_INVALID, "LIKE: the escape must be one character, got %lld bytes",
                          (long long)el);
  }
  if (x->scalar || !pat->scalar) QV_RETURN_NOT_OK(qvk_datum_array(c, x));
  if (!pat->scalar) QV_RETURN_NOT_OK(qvk_datum_array(c, pat));
  const qv_array *a = x->array;
  bool binary = a->type.id == QV_TYPE_BINARY;
  const int32_t *off = qv_array_offsets(a);
  const uint8_t *d = a->buffers[2] ? a->buffers[2]->data : (const uint8_t *)"";
  qv_bytes *values = qvk_bytes(qvk_words(n) * 8, c->err), *validity = NULL;
  if (!values) return QV_ERR_NOMEM;
  uint64_t *o = (uint64_t *)qv_bytes_mutable(values);
  qv_status st = QV_OK;
  like_plan pl;
  memset(&pl, 0, sizeof pl);
  if (pat->scalar) {
    const qv_scalar *ps = pat->scalar;
    st = plan_build(&pl, ps->bytes ? ps->bytes : (const uint8_t *)"", ps->len, esc, el, ci, binary, c->err);
    if (st == QV_OK && pl.regex_only) st = plan_regex(&pl, c->err);
    bool fast = st == QV_OK && like_fast(&pl, x, n, o);
    for (int64_t i = 0; i < n && st == QV_OK && !fast; i++) {
      int64_t row = qvk_row(x, i);
      if (!qv_array_is_valid(a, row)) continue;
      int m = plan_match(&pl, d + off[row], off[row + 1] - off[row], row, c->err);
      if (m < 0) st = c->err ? c->err->code : QV_ERR_INVALID;
      else if (m) o[i >> 6] |= (uint64_t)1 << (i & 63);
    }
  } else {
    const qv_array *pa = pat->array;
    const int32_t *po = qv_array_offsets(pa);
    const uint8_t *pd = pa->buffers[2] ? pa->buffers[2]->data : (const uint8_t *)"";
    for (int64_t i = 0; i < n && st == QV_OK; i++) {
      if (!qv_array_is_valid(a, i) || !qv_array_is_valid(pa, i)) continue;
      int m = like_generic(d + off[i], off[i + 1] - off[i], pd + po[i], po[i + 1] - po[i], esc, el, ci, binary);
      if (m < 0)
        st = qv_error_set(c->err, QV_ERR_INVALID, "LIKE: the pattern of row %lld ends with the escape character",
                          (long long)i);
      else if (m) o[i >> 6] |= (uint64_t)1 << (i & 63);
    }
  }
  plan_reset(&pl);
  if (st == QV_OK) st = qvk_validity_of(x, pat->scalar ? NULL : pat, n, &validity, c->err);
  return qvk_bool_out(st, n, values, validity, out, c->err);
}

/* A literal pattern (and escape) planned as qvk_op_like plans it, then
 * dropped: the same errors before any row. */
qv_status qvk_like_check(const qv_expr *e, qv_error *err) {
  if (e->n_args != 2 && e->n_args != 3) return QV_OK;
  qv_type_id xt = e->args[0]->type.id;
  const qv_scalar *ps = qvk_check_literal(e->args[1], QV_TYPE_STRING);
  if (!ps) ps = qvk_check_literal(e->args[1], QV_TYPE_BINARY);
  const qv_scalar *es = NULL;
  if (e->n_args == 3 && !(es = qvk_check_literal(e->args[2], QV_TYPE_STRING)) &&
      !(es = qvk_check_literal(e->args[2], QV_TYPE_BINARY)))
    return QV_OK;
  if (!ps || (xt != QV_TYPE_STRING && xt != QV_TYPE_BINARY)) return QV_OK;
  const uint8_t *esc = (const uint8_t *)"\\";
  int64_t el = 1;
  if (es) {
    esc = es->bytes ? es->bytes : (const uint8_t *)"";
    el = es->len;
    if (el > 0 && char_len(esc, el, false) != el)
      return qv_error_set(err, QV_ERR_INVALID, "LIKE: the escape must be one character, got %lld bytes", (long long)el);
  }
  like_plan pl;
  qv_status st = plan_build(&pl, ps->bytes ? ps->bytes : (const uint8_t *)"", ps->len, esc, el, e->sem.case_insensitive,
                            xt == QV_TYPE_BINARY, err);
  if (st == QV_OK && pl.regex_only) st = plan_regex(&pl, err);
  plan_reset(&pl);
  return st;
}
