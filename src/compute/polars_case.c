/* Polars' case mappings: str.to_uppercase / to_lowercase (Rust's
 * str::to_uppercase / to_lowercase: full Unicode mappings, 'ß' -> "SS",
 * 'İ' -> "i̇", and the final-sigma rule: 'Σ' lowers to 'ς' when a cased
 * letter precedes it and none follows, skipping case-ignorable characters
 * both ways) and str.to_titlecase (a character whose predecessor is not
 * alphabetic takes its full titlecase mapping, 'ǆ' -> 'ǅ', 'ß' -> "Ss";
 * the others are lowered as above, in the context of the whole string).
 *
 * One-to-one mappings come from utf8proc; the longer ones and the
 * Alphabetic / Cased / Case_Ignorable properties from polars_case_table.h
 * (generated from the same Unicode version).  Rows of only ASCII take a
 * byte loop. */
#include <utf8proc.h>

#include "compute/polars_case_table.h"
#include "compute/polars_str_int.h"

enum { CASE_UPPER, CASE_LOWER, CASE_TITLE };

static bool in_ranges(const int32_t (*r)[2], size_t n, int32_t cp) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (cp < r[mid][0]) hi = mid;
    else if (cp > r[mid][1]) lo = mid + 1;
    else return true;
  }
  return false;
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
static bool is_alphabetic(int32_t cp) {
  if (cp < 128) return (cp | 32) >= 'a' && (cp | 32) <= 'z';
  return in_ranges(qvk_alphabetic, N_OF(qvk_alphabetic), cp);
}
static bool is_cased(int32_t cp) { return in_ranges(qvk_cased, N_OF(qvk_cased), cp); }
static bool is_case_ignorable(int32_t cp) { return in_ranges(qvk_case_ignorable, N_OF(qvk_case_ignorable), cp); }

static const struct qvk_case_special *special(int32_t cp) {
  size_t lo = 0, hi = N_OF(qvk_case_specials);
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (cp < qvk_case_specials[mid].cp) hi = mid;
    else if (cp > qvk_case_specials[mid].cp) lo = mid + 1;
    else return &qvk_case_specials[mid];
  }
  return NULL;
}

/* Whether the first character that is not case-ignorable, walking from
 * byte k backwards (dir < 0) or forwards, is cased. */
static bool cased_beyond(const uint8_t *p, int64_t len, int64_t k, int dir) {
  if (dir < 0) {
    const uint8_t *q = p + k;
    while (q > p) {
      q = qvk_utf8_prev(p, q);
      int used;
      int32_t cp = qvk_utf8_next(q, p + len - q, &used);
      if (!is_case_ignorable(cp)) return is_cased(cp);
    }
    return false;
  }
  while (k < len) {
    int used;
    int32_t cp = qvk_utf8_next(p + k, len - k, &used);
    if (!is_case_ignorable(cp)) return is_cased(cp);
    k += used;
  }
  return false;
}

/* Writes the mapping of cp (at byte k of p, `used` bytes) to w; returns
 * the bytes written (at most 12). */
static int map_one(int mode, int32_t cp, const uint8_t *p, int64_t len, int64_t k, int used, uint8_t *w) {
  if (mode == CASE_LOWER && cp == 0x03A3) {
    bool final = cased_beyond(p, len, k, -1) && !cased_beyond(p, len, k + used, 1);
    return (int)qvb_utf8_encode(w, final ? 0x03C2 : 0x03C3);
  }
  const struct qvk_case_special *s = cp >= 0xDF ? special(cp) : NULL;
  const int32_t *seq = !s ? NULL : mode == CASE_UPPER ? s->upper : mode == CASE_TITLE ? s->title : s->lower;
  if (seq && seq[0]) {
    int n = 0;
    for (int j = 0; j < 3 && seq[j]; j++) n += (int)qvb_utf8_encode(w + n, (uint32_t)seq[j]);
    return n;
  }
  int32_t m = mode == CASE_UPPER   ? utf8proc_toupper(cp)
              : mode == CASE_TITLE ? utf8proc_totitle(cp)
                                   : utf8proc_tolower(cp);
  return (int)qvb_utf8_encode(w, (uint32_t)m);
}

static bool ascii_only(const uint8_t *p, int64_t n) {
  uint8_t acc = 0;
  for (int64_t i = 0; i < n; i++) acc |= p[i];
  return acc < 0x80;
}

qv_status qvk_polars_case(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  int mode = e->op == QV_OP_UPPER ? CASE_UPPER : e->op == QV_OP_LOWER ? CASE_LOWER : CASE_TITLE;
  const char *what = qv_op_name(e->op);
  qvk_sview v;
  qvk_sview_init(&v, &args[0]);
  qvk_sout o;
  QV_RETURN_NOT_OK(qvk_sout_init(&o, c->n, c->err));
  qv_status st = QV_OK;
  for (int64_t i = 0; i < c->n && st == QV_OK; i++) {
    qvk_sout_row(&o, i);
    const uint8_t *p;
    int64_t len;
    if (!qvk_sview_get(&v, i, &p, &len)) continue;
    qvk_sout_valid(&o, i);
    /* a code point's mapping is at most 3 times its encoded length */
    uint8_t *w = qvk_sout_room(&o, len * 3 + 12, what, c->err);
    if (!w) {
      st = c->err ? c->err->code : QV_ERR_NOMEM;
      break;
    }
    int64_t wrote = 0;
    if (ascii_only(p, len)) {
      bool prev_alpha = false;
      for (int64_t k = 0; k < len; k++) {
        uint8_t ch = p[k];
        bool up = mode == CASE_UPPER || (mode == CASE_TITLE && !prev_alpha);
        if (up && ch >= 'a' && ch <= 'z') w[k] = (uint8_t)(ch - 32);
        else if (!up && ch >= 'A' && ch <= 'Z') w[k] = (uint8_t)(ch + 32);
        else w[k] = ch;
        prev_alpha = ((ch | 32) >= 'a' && (ch | 32) <= 'z');
      }
      wrote = len;
    } else {
      bool prev_alpha = false;
      for (int64_t k = 0; k < len;) {
        int used;
        int32_t cp = qvk_utf8_next(p + k, len - k, &used);
        int m = mode == CASE_TITLE ? (prev_alpha ? CASE_LOWER : CASE_TITLE) : mode;
        wrote += map_one(m, cp, p, len, k, used, w + wrote);
        prev_alpha = is_alphabetic(cp);
        k += used;
      }
    }
    o.data.size += wrote;
  }
  return qvk_sout_finish(&o, st, out, what, c->err);
}
