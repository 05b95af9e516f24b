/* Regular expressions through PCRE2: compiled once per evaluation (UTF and
 * Unicode properties for strings, bytes for binary), JIT-compiled when the
 * platform allows, matched with one reusable match block.  regexp_like and
 * regexp_match both answer "does the pattern match somewhere in the
 * string"; the pattern may also vary per row (compiled when it changes).  A bad pattern fails with QV_ERR_INVALID carrying PCRE2's message
 * and the offset (or, for a Polars node marked QV_EXPR_F_LENIENT, makes
 * every row null, as str.contains(strict=False)); so does a subject that is
 * not valid UTF-8 or a match that exceeds PCRE2's backtracking limit. */
#include <string.h>

#include "compute/regex_int.h"

qv_status qvk_regex_compile(const uint8_t *pat, size_t len, uint32_t options, const char *what, qvk_regex *re,
                            qv_error *err) {
  re->code = NULL;
  re->md = NULL;
  int code = 0;
  PCRE2_SIZE at = 0;
  re->code = pcre2_compile((PCRE2_SPTR)pat, len, options, &code, &at, NULL);
  if (!re->code) {
    PCRE2_UCHAR msg[256];
    if (pcre2_get_error_message(code, msg, sizeof msg) < 0) snprintf((char *)msg, sizeof msg, "error %d", code);
    return qv_error_set(err, QV_ERR_INVALID, "%s: invalid pattern at offset %zu: %s", what, (size_t)at, (char *)msg);
  }
  /* The interpreter is the fallback where JIT is unavailable. */
  (void)pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);
  re->md = pcre2_match_data_create_from_pattern(re->code, NULL);
  if (!re->md) {
    qvk_regex_free(re);
    return qv_error_nomem(err, what);
  }
  return QV_OK;
}

/* Rust's regex crate: a word character (UTS #18's \w), and its boundary. */
#define RUST_WORD "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}"
#define RUST_BOUNDARY "(?:(?<=[" RUST_WORD "])(?![" RUST_WORD "])|(?<![" RUST_WORD "])(?=[" RUST_WORD "]))"
#define RUST_NOT_BOUNDARY "(?:(?<=[" RUST_WORD "])(?=[" RUST_WORD "])|(?<![" RUST_WORD "])(?![" RUST_WORD "]))"

/* Rust's regex crate reads the POSIX classes ([[:alpha:]], ...) as ASCII
 * sets, where PCRE2 with UCP makes them Unicode: each becomes its ASCII
 * ranges, or their complement for [:^name:]. */
static const struct posix_class {
  const char *name;
  uint8_t ranges[9]; /* lo, hi pairs, 0-terminated after the first */
} posix_classes[] = {
    {"alnum", {'0', '9', 'A', 'Z', 'a', 'z'}},
    {"alpha", {'A', 'Z', 'a', 'z'}},
    {"ascii", {0, 0x7f}},
    {"blank", {'\t', '\t', ' ', ' '}},
    {"cntrl", {0, 0x1f, 0x7f, 0x7f}},
    {"digit", {'0', '9'}},
    {"graph", {'!', '~'}},
    {"lower", {'a', 'z'}},
    {"print", {' ', '~'}},
    {"punct", {'!', '/', ':', '@', '[', '`', '{', '~'}},
    {"space", {'\t', '\r', ' ', ' '}},
    {"upper", {'A', 'Z'}},
    {"word", {'0', '9', 'A', 'Z', '_', '_', 'a', 'z'}},
    {"xdigit", {'0', '9', 'A', 'F', 'a', 'f'}},
};

/* Appends "\x{lo}-\x{hi}" */
static qv_status append_range(qv_buffer *out, uint32_t lo, uint32_t hi) {
  char t[40];
  int n = snprintf(t, sizeof t, "\\x{%x}-\\x{%x}", (unsigned)lo, (unsigned)hi);
  return qv_buffer_append(out, t, n);
}

/* At pat[k] == '[' inside a class: a POSIX class [:name:] or [:^name:]
 * becomes its ASCII ranges; *used is the length consumed (0: not one). */
static qv_status posix_class(const uint8_t *pat, size_t len, size_t k, qv_buffer *out, size_t *used) {
  *used = 0;
  if (k + 1 >= len || pat[k + 1] != ':') return QV_OK;
  size_t a = k + 2;
  bool neg = a < len && pat[a] == '^';
  if (neg) a++;
  size_t e = a;
  while (e < len && pat[e] >= 'a' && pat[e] <= 'z') e++;
  if (e + 1 >= len || pat[e] != ':' || pat[e + 1] != ']') return QV_OK;
  for (size_t c = 0; c < sizeof posix_classes / sizeof posix_classes[0]; c++) {
    const struct posix_class *pc = &posix_classes[c];
    if (strlen(pc->name) != e - a || memcmp(pc->name, pat + a, e - a) != 0) continue;
    uint32_t next = 0; /* the complement: the gaps between the ranges */
    for (int r = 0; r < 8 && (r == 0 || pc->ranges[r] || pc->ranges[r + 1]); r += 2) {
      uint32_t lo = pc->ranges[r], hi = pc->ranges[r + 1];
      qv_status st = QV_OK;
      if (!neg) st = append_range(out, lo, hi);
      else if (lo > next) st = append_range(out, next, lo - 1);
      if (st != QV_OK) return st;
      next = hi + 1;
    }
    if (neg && append_range(out, next, 0x10ffff) != QV_OK) return QV_ERR_NOMEM;
    *used = e + 2 - k;
    return QV_OK;
  }
  return QV_OK;
}

qv_status qvk_regex_compile_rust(const uint8_t *pat, size_t len, const char *what, qvk_regex *re, qv_error *err) {
  const uint32_t opts = PCRE2_UTF | PCRE2_UCP | PCRE2_DOLLAR_ENDONLY;
  /* Syntax errors are reported against the pattern as written. */
  QV_RETURN_NOT_OK(qvk_regex_compile(pat, len, opts, what, re, err));
  bool needed = false;
  for (size_t k = 0; k + 1 < len && !needed; k++)
    if (pat[k] == '\\') {
      uint8_t c = pat[k + 1];
      needed = c == 'w' || c == 'W' || c == 'b' || c == 'B' || c == 's' || c == 'S';
      k++;
    } else if (pat[k] == '[' && pat[k + 1] == ':') {
      needed = true;
    }
  if (!needed) return QV_OK;
  qvk_regex_free(re);
  qv_buffer out = QV_BUFFER_INIT;
  qv_status st = QV_OK;
  int depth = 0; /* inside a character class (nested classes count) */
  for (size_t k = 0; k < len && st == QV_OK; k++) {
    uint8_t c = pat[k];
    const char *rep = NULL;
    if (c == '\\' && k + 1 < len) {
      uint8_t n = pat[++k];
      switch (n) {
        case 'w': rep = depth ? RUST_WORD : "[" RUST_WORD "]"; break;
        case 'W':
          if (depth) {
            st = qv_error_set(err, QV_ERR_UNSUPPORTED, "%s: \\W inside a character class is not supported", what);
            break;
          }
          rep = "[^" RUST_WORD "]";
          break;
        case 's': rep = "\\p{White_Space}"; break;
        case 'S': rep = "\\P{White_Space}"; break;
        case 'b': rep = depth ? NULL : RUST_BOUNDARY; break;
        case 'B': rep = depth ? NULL : RUST_NOT_BOUNDARY; break;
        default: break;
      }
      if (st != QV_OK) break;
      if (rep) {
        if (qv_buffer_append(&out, rep, (int64_t)strlen(rep)) != QV_OK) st = QV_ERR_NOMEM;
      } else if (qv_buffer_append(&out, pat + k - 1, 2) != QV_OK) {
        st = QV_ERR_NOMEM;
      }
      continue;
    }
    if (c == '[' && depth > 0) {
      size_t used;
      st = posix_class(pat, len, k, &out, &used);
      if (st != QV_OK) break;
      if (used) {
        k += used - 1;
        continue;
      }
    }
    if (c == '[') {
      depth++;
      /* a ']' right after '[' or '[^' is a literal */
      if (qv_buffer_append(&out, &c, 1) != QV_OK) st = QV_ERR_NOMEM;
      if (k + 1 < len && pat[k + 1] == '^') {
        if (qv_buffer_append(&out, "^", 1) != QV_OK) st = QV_ERR_NOMEM;
        k++;
      }
      if (k + 1 < len && pat[k + 1] == ']') {
        if (qv_buffer_append(&out, "]", 1) != QV_OK) st = QV_ERR_NOMEM;
        k++;
      }
      continue;
    }
    if (c == ']' && depth > 0) depth--;
    if (qv_buffer_append(&out, &c, 1) != QV_OK) st = QV_ERR_NOMEM;
  }
  if (st == QV_ERR_NOMEM) st = qv_error_nomem(err, what);
  if (st == QV_OK)
    st = qvk_regex_compile(out.data ? out.data : (const uint8_t *)"", (size_t)out.size, opts, what, re, err);
  qv_buffer_reset(&out);
  return st;
}

void qvk_regex_free(qvk_regex *re) {
  pcre2_match_data_free(re->md);
  pcre2_code_free(re->code);
  re->md = NULL;
  re->code = NULL;
}

qv_status qvk_regex_error(int rc, const char *what, int64_t row, qv_error *err) {
  PCRE2_UCHAR msg[256];
  if (pcre2_get_error_message(rc, msg, sizeof msg) < 0) snprintf((char *)msg, sizeof msg, "error %d", rc);
  return qv_error_set(err, QV_ERR_INVALID, "%s: row %lld: %s", what, (long long)row, (char *)msg);
}

/* Options from a flags string ("i", "ims", ...). */
static qv_status parse_flags(const qv_scalar *f, uint32_t *opts, qv_error *err) {
  for (int64_t k = 0; k < f->len; k++) {
    switch (f->bytes[k]) {
      case 'i': *opts |= PCRE2_CASELESS; break;
      case 'c': *opts &= ~(uint32_t)PCRE2_CASELESS; break;
      case 'm': *opts |= PCRE2_MULTILINE; break;
      case 's': *opts |= PCRE2_DOTALL; break;
      case 'x': *opts |= PCRE2_EXTENDED; break;
      default:
        return qv_error_set(err, QV_ERR_INVALID, "regexp: unknown flag '%c' (expected i, c, m, s or x)",
                            f->bytes[k] >= 0x20 && f->bytes[k] < 0x7f ? f->bytes[k] : '?');
    }
  }
  return QV_OK;
}

/* A pattern per row (Polars' str.contains(pl.col(...))): each distinct
 * pattern is compiled when it first differs from the previous row's, so a
 * column of few patterns costs few compilations.  A null pattern gives
 * null; an invalid one fails, or gives null under QV_EXPR_F_LENIENT. */
static qv_status regex_per_row(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  const char *what = qv_op_name(e->op);
  int64_t n = c->n;
  QV_RETURN_NOT_OK(qvk_datum_array(c, &args[0]));
  QV_RETURN_NOT_OK(qvk_datum_array(c, &args[1]));
  const qv_array *a = args[0].array, *pa = args[1].array;
  bool binary = a->type.id == QV_TYPE_BINARY, rust = qvk_polars_node(e) && !binary;
  uint32_t opts = binary ? 0 : (PCRE2_UTF | PCRE2_UCP);
  if (e->n_args == 3) QV_RETURN_NOT_OK(parse_flags(args[2].scalar, &opts, c->err));
  qv_bytes *values = qvk_bytes(qvk_words(n) * 8, c->err), *validity = qvk_bytes(qvk_words(n) * 8, c->err);
  qv_status st = values && validity ? QV_OK : QV_ERR_NOMEM;
  qvk_regex re = {NULL, NULL};
  const uint8_t *cur = NULL; /* the pattern re holds (bytes in pa) */
  int32_t cur_len = -1;
  bool cur_bad = false;
  uint64_t *o = st == QV_OK ? (uint64_t *)qv_bytes_mutable(values) : NULL;
  uint64_t *v = st == QV_OK ? (uint64_t *)qv_bytes_mutable(validity) : NULL;
  bool all_null = a->type.id == QV_TYPE_NULL || pa->type.id == QV_TYPE_NULL;
  for (int64_t i = 0; i < n && st == QV_OK && !all_null; i++) {
    if (!qv_array_is_valid(a, i) || !qv_array_is_valid(pa, i)) continue;
    int32_t pl, sl;
    const uint8_t *p = qv_array_str(pa, i, &pl), *sp = qv_array_str(a, i, &sl);
    if (pl != cur_len || memcmp(p, cur, (size_t)pl) != 0) {
      qvk_regex_free(&re);
      cur = p;
      cur_len = pl;
      cur_bad = false;
      st = rust ? qvk_regex_compile_rust(p, (size_t)pl, what, &re, c->err)
                : qvk_regex_compile(p, (size_t)pl, opts, what, &re, c->err);
      if (st == QV_ERR_INVALID && (e->flags & QV_EXPR_F_LENIENT)) {
        st = QV_OK;
        cur_bad = true;
        if (c->err) {
          c->err->code = QV_OK;
          c->err->message[0] = '\0';
        }
      }
      if (st != QV_OK) break;
    }
    if (cur_bad) continue;
    v[i >> 6] |= (uint64_t)1 << (i & 63);
    int rc = pcre2_match(re.code, (PCRE2_SPTR)sp, (PCRE2_SIZE)sl, 0, 0, re.md, NULL);
    if (rc >= 0) o[i >> 6] |= (uint64_t)1 << (i & 63);
    else if (rc != PCRE2_ERROR_NOMATCH) st = qvk_regex_error(rc, what, i, c->err);
  }
  qvk_regex_free(&re);
  return qvk_bool_out(st, n, values, validity, out, c->err);
}

/* Whether pattern p matches exactly the strings that contain it as plain
 * text, in PCRE2 and in Rust's regex syntax alike: letters, digits, bytes of
 * non-ASCII characters and punctuation that is never special. */
static bool plain_literal(const uint8_t *p, int64_t n) {
  static const char plain[] = " _-,:/@!%&=<>'\"~;#";
  for (int64_t i = 0; i < n; i++) {
    uint8_t ch = p[i];
    bool ok = ch >= 0x80 || (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
              (ch != 0 && strchr(plain, ch) != NULL);
    if (!ok) return false;
  }
  return true;
}

qv_status qvk_op_regex(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  const char *what = qv_op_name(e->op);
  if (e->n_args != 2 && e->n_args != 3)
    return qv_error_set(c->err, QV_ERR_INVALID, "%s takes 2 or 3 arguments, got %d", what, (int)e->n_args);
  qvk_datum *x = &args[0];
  for (int k = 0; k < e->n_args; k++) {
    qv_type_id id = qvk_datum_type(&args[k])->id;
    if (id != QV_TYPE_STRING && id != QV_TYPE_NULL && !(k == 0 && id == QV_TYPE_BINARY)) {
      char tb[64];
      return qv_error_set(c->err, QV_ERR_TYPE, "%s: argument %d must be a string, got %s", what, k + 1,
                          qvk_type_name(qvk_datum_type(&args[k]), tb, sizeof tb));
    }
    if (k > 1 && !args[k].scalar)
      return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "%s: the flags must be a constant", what);
  }
  if (!args[1].scalar) return regex_per_row(c, e, args, out);
  int64_t n = c->n;
  qv_datatype bt = qv_datatype_simple(QV_TYPE_BOOL);
  bool null_args = qvk_datum_all_null(&args[1]) || (e->n_args == 3 && qvk_datum_all_null(&args[2]));
  if (qvk_datum_all_null(x) || null_args) return qvk_null_out(&bt, n, out, c->err);
  if (x->scalar) QV_RETURN_NOT_OK(qvk_datum_array(c, x));
  bool binary = x->array->type.id == QV_TYPE_BINARY;
  uint32_t opts = binary ? 0 : (PCRE2_UTF | PCRE2_UCP);
  if (e->n_args == 3) QV_RETURN_NOT_OK(parse_flags(args[2].scalar, &opts, c->err));
  const qv_scalar *p = args[1].scalar;
  const uint8_t *pb = p->bytes ? p->bytes : (const uint8_t *)"";
  if (e->n_args == 2 && !binary && plain_literal(pb, p->len)) {
    /* A pattern without special characters is a substring search: the
     * contains kernel (memchr-driven) instead of a regex per row. */
    qv_expr lit = *e;
    lit.op = QV_OP_CONTAINS;
    return qvk_op_str_match(c, &lit, args, out);
  }
  qvk_regex re;
  /* Polars patterns are Rust regex syntax */
  bool rust = qvk_polars_node(e) && !binary && e->n_args == 2;
  qv_status cs = rust ? qvk_regex_compile_rust(pb, (size_t)p->len, what, &re, c->err)
                      : qvk_regex_compile(pb, (size_t)p->len, opts, what, &re, c->err);
  if (cs == QV_ERR_INVALID && (e->flags & QV_EXPR_F_LENIENT)) {
    /* Polars' str.contains(strict=False): a bad pattern gives null */
    if (c->err) {
      c->err->code = QV_OK;
      c->err->message[0] = '\0';
    }
    return qvk_null_out(&bt, n, out, c->err);
  }
  QV_RETURN_NOT_OK(cs);
  qv_bytes *values = qvk_bytes(qvk_words(n) * 8, c->err), *validity = NULL;
  qv_status st = values ? QV_OK : QV_ERR_NOMEM;
  if (st == QV_OK) {
    uint64_t *o = (uint64_t *)qv_bytes_mutable(values);
    const qv_array *a = x->array;
    const int32_t *off = qv_array_offsets(a);
    const uint8_t *d = a->buffers[2] ? a->buffers[2]->data : (const uint8_t *)"";
    for (int64_t i = 0; i < n && st == QV_OK; i++) {
      int64_t row = qvk_row(x, i);
      if (!qv_array_is_valid(a, row)) continue;
      int rc =
          pcre2_match(re.code, (PCRE2_SPTR)(d + off[row]), (PCRE2_SIZE)(off[row + 1] - off[row]), 0, 0, re.md, NULL);
      if (rc >= 0) o[i >> 6] |= (uint64_t)1 << (i & 63);
      else if (rc != PCRE2_ERROR_NOMATCH) st = qvk_regex_error(rc, what, row, c->err);
    }
  }
  qvk_regex_free(&re);
  if (st == QV_OK) st = qvk_validity_of(x, NULL, n, &validity, c->err);
  return qvk_bool_out(st, n, values, validity, out, c->err);
}

/* A literal pattern (and flags) compiled as qvk_op_regex would compile it,
 * then dropped: the same errors, before any row.  Patterns from columns,
 * null ones and lenient nodes are the evaluation's to judge. */
qv_status qvk_regex_check(const qv_expr *e, qv_error *err) {
  if ((e->n_args != 2 && e->n_args != 3) || (e->flags & QV_EXPR_F_LENIENT)) return QV_OK;
  const qv_scalar *p = qvk_check_literal(e->args[1], QV_TYPE_STRING);
  const qv_scalar *f = e->n_args == 3 ? qvk_check_literal(e->args[2], QV_TYPE_STRING) : NULL;
  qv_type_id xt = e->args[0]->type.id;
  if (!p || (e->n_args == 3 && !f) || (xt != QV_TYPE_STRING && xt != QV_TYPE_BINARY)) return QV_OK;
  bool binary = xt == QV_TYPE_BINARY;
  uint32_t opts = binary ? 0 : (PCRE2_UTF | PCRE2_UCP);
  if (f) QV_RETURN_NOT_OK(parse_flags(f, &opts, err));
  const uint8_t *pb = p->bytes ? p->bytes : (const uint8_t *)"";
  if (e->n_args == 2 && !binary && plain_literal(pb, p->len)) return QV_OK;
  const char *what = qv_op_name(e->op);
  bool rust = qvk_polars_node(e) && !binary && e->n_args == 2;
  qvk_regex re;
  QV_RETURN_NOT_OK(rust ? qvk_regex_compile_rust(pb, (size_t)p->len, what, &re, err)
                        : qvk_regex_compile(pb, (size_t)p->len, opts, what, &re, err));
  qvk_regex_free(&re);
  return QV_OK;
}

/* str.replace / str.replace_all with a literal pattern that is a regex:
 * compiled as the replace kernel (polars_text.c) compiles it. */
qv_status qvk_replace_check(const qv_expr *e, qv_error *err) {
  if (e->n_args != 3 || (e->flags & QV_EXPR_F_LITERAL)) return QV_OK;
  const qv_scalar *p = qvk_check_literal(e->args[1], QV_TYPE_STRING);
  if (!p || !qvk_check_literal(e->args[2], QV_TYPE_STRING) || e->args[0]->type.id != QV_TYPE_STRING) return QV_OK;
  qvk_regex re;
  QV_RETURN_NOT_OK(qvk_regex_compile_rust(p->bytes ? p->bytes : (const uint8_t *)"", (size_t)p->len,
                                          e->param < 0 ? "str.replace_all" : "str.replace", &re, err));
  qvk_regex_free(&re);
  return QV_OK;
}
