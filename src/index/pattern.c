/* The literal text a pattern's every match must contain: what an NGRAM
 * index can look up (its trigrams) and what a BTREE can range over (a
 * LIKE prefix).  Conservative: when unsure, a run is left out (fewer
 * trigrams only make the superset larger, never wrong). */
#include "index/index_int.h"

void qvi_runs_reset(qvi_runs *r) {
  qv_buffer_reset(&r->text);
  memset(r, 0, sizeof *r);
}

static void run_end(qvi_runs *r, int64_t start) {
  if (r->text.size > start && r->n < 64) {
    r->off[r->n] = start;
    r->len[r->n] = r->text.size - start;
    r->n++;
  }
}

bool qvi_like_runs(const uint8_t *p, int64_t n, int escape, qvi_runs *out) {
  memset(out, 0, sizeof *out);
  int64_t start = 0, wildcards = 0;
  bool first_is_literal = n > 0 && !(p[0] == '%' || p[0] == '_');
  bool ends_percent = false;
  for (int64_t i = 0; i < n; i++) {
    uint8_t ch = p[i];
    ends_percent = false;
    if (escape >= 0 && ch == (uint8_t)escape) {
      if (i + 1 >= n) return false; /* a pattern ending in the escape is invalid */
      if (qv_buffer_append(&out->text, &p[++i], 1) != QV_OK) return false;
      continue;
    }
    if (ch == '%' || ch == '_') {
      run_end(out, start);
      start = out->text.size;
      wildcards++;
      ends_percent = ch == '%';
      continue;
    }
    if (qv_buffer_append(&out->text, &ch, 1) != QV_OK) return false;
  }
  run_end(out, start);
  if (qv_buffer_append(&out->text, "", 1) != QV_OK) return false; /* a non-NULL text even when empty */
  out->text.size--;
  out->starts = first_is_literal;
  out->literal = wildcards == 0;
  out->only_prefix = first_is_literal && wildcards == 1 && ends_percent && out->n == 1;
  return true;
}

/* Characters that mean something in PCRE2 / Rust regex syntax outside a class. */
static bool is_meta(uint8_t c) { return c && strchr(".^$|()[]{}*+?\\", c) != NULL; }

static int64_t utf8_start(const uint8_t *t, int64_t lo, int64_t i) {
  while (i > lo && (t[i] & 0xC0) == 0x80) i--;
  return i;
}

void qvi_regex_runs(const uint8_t *p, int64_t n, qvi_runs *out) {
  memset(out, 0, sizeof *out);
  /* Alternation anywhere, or inline flags ((?i) changes case matching),
   * make any run optional or case-blind: give up. */
  for (int64_t i = 0; i < n; i++) {
    if (p[i] == '\\') {
      i++;
      continue;
    }
    if (p[i] == '|' || (p[i] == '(' && i + 1 < n && p[i + 1] == '?')) return;
  }
  int64_t start = 0, depth = 0;
  for (int64_t i = 0; i < n; i++) {
    uint8_t ch = p[i];
    if (ch == '[') { /* a class: skip it ("[]...]" and "[^]...]" hold a literal ']') */
      run_end(out, start);
      start = out->text.size;
      i++;
      if (i < n && p[i] == '^') i++;
      if (i < n && p[i] == ']') i++;
      while (i < n && p[i] != ']') i += p[i] == '\\' ? 2 : 1;
      continue;
    }
    if (ch == '(' || ch == ')') {
      depth += ch == '(' ? 1 : -1;
      run_end(out, start);
      start = out->text.size;
      continue;
    }
    if (ch == '*' || ch == '?' || ch == '{') {
      /* the previous character is optional: cut it off the run */
      if (out->text.size > start) out->text.size = utf8_start(out->text.data, start, out->text.size - 1);
      run_end(out, start);
      start = out->text.size;
      if (ch == '{')
        while (i < n && p[i] != '}') i++;
      continue;
    }
    if (ch == '+') { /* at least once: the character stays, the run ends */
      run_end(out, start);
      start = out->text.size;
      continue;
    }
    if (ch == '\\') {
      uint8_t nx = i + 1 < n ? p[i + 1] : 0;
      if (nx && is_meta(nx) && depth == 0) { /* an escaped metacharacter is itself */
        qv_buffer_append(&out->text, &nx, 1);
        i++;
        continue;
      }
      run_end(out, start); /* \d, \w, \b, \x{..} ...: not literal */
      start = out->text.size;
      i++;
      continue;
    }
    if (ch == '.' || ch == '^' || ch == '$' || depth > 0) {
      run_end(out, start);
      start = out->text.size;
      continue;
    }
    if (qv_buffer_append(&out->text, &ch, 1) != QV_OK) break;
  }
  run_end(out, start);
}
