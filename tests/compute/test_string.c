/* String kernels: LIKE / ILIKE (fast paths and the regex path), regexp,
 * starts_with / ends_with / contains, lower / upper, length; LIKE checked
 * against a recursive oracle on random patterns. */
#include "compute/compute_test.h"

static qv_batch *words(void) {
  static const char *w[] = {"apple",
                            "Apple pie",
                            "",
                            "banana",
                            NULL,
                            "a_b%c",
                            "caf\xc3\xa9",
                            "CAF\xc3\x89",
                            "\xe2\x84\xaa"
                            "elvin",
                            "line1\nline2",
                            "pineapple"};
  tval v[11];
  for (int i = 0; i < 11; i++) v[i] = w[i] ? TS(w[i]) : TN();
  qv_array *a = t_arr("string", v, 11);
  return t_batch(&a, 1);
}

static qv_expr *like(const qv_batch *b, const char *pat, bool ci) {
  qv_expr *e = t_call2(QV_OP_LIKE, "bool", t_col(b, 0), t_lit("string", TS(pat)));
  e->sem.case_insensitive = ci;
  return e;
}

static void test_like_fast_paths(void **state) {
  (void)state;
  qv_batch *b = words();
  struct {
    const char *pat;
    bool ci;
    const char *want;
  } cases[] = {
      /* rows: apple|Apple pie|""|banana|null|a_b%c|café|CAFÉ|Kelvin|line1\nline2|pineapple */
      {"apple", false, "true|false|false|false|null|false|false|false|false|false|false"},
      {"app%", false, "true|false|false|false|null|false|false|false|false|false|false"},
      {"%apple", false, "true|false|false|false|null|false|false|false|false|false|true"},
      {"%an%", false, "false|false|false|true|null|false|false|false|false|false|false"},
      {"%", false, "true|true|true|true|null|true|true|true|true|true|true"},
      {"", false, "false|false|true|false|null|false|false|false|false|false|false"},
      {"a%e", false, "true|false|false|false|null|false|false|false|false|false|false"},
      {"%p%p%e", false, "true|true|false|false|null|false|false|false|false|false|true"},
      {"%1%2", false, "false|false|false|false|null|false|false|false|false|true|false"},
      {"APPLE%", true, "true|true|false|false|null|false|false|false|false|false|false"},
      {"%PIE", true, "false|true|false|false|null|false|false|false|false|false|false"},
      {"%e%", true, "true|true|false|false|null|false|false|false|true|true|true"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    qv_expr *e = like(b, cases[k].pat, cases[k].ci);
    t_check(e, b, cases[k].want);
    qv_expr_destroy(e);
  }
  qv_batch_release(b);
}

static void test_like_regex_path(void **state) {
  (void)state;
  qv_batch *b = words();
  struct {
    const char *pat;
    bool ci;
    const char *want;
  } cases[] = {
      {"_pple", false, "true|false|false|false|null|false|false|false|false|false|false"},
      {"caf_", false, "false|false|false|false|null|false|true|false|false|false|false"}, /* é is one character */
      {"a\\_b\\%c", false, "false|false|false|false|null|true|false|false|false|false|false"},
      {"caf\xc3\xa9", true, "false|false|false|false|null|false|true|true|false|false|false"},
      {"k%", true, "false|false|false|false|null|false|false|false|true|false|false"}, /* KELVIN SIGN ~ k */
      {"line_\n%", false, "false|false|false|false|null|false|false|false|false|true|false"},
      {"%.%", false, "false|false|false|false|null|false|false|false|false|false|false"},
      {"_%_", false, "true|true|false|true|null|true|true|true|true|true|true"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    qv_expr *e = like(b, cases[k].pat, cases[k].ci);
    t_check(e, b, cases[k].want);
    qv_expr_destroy(e);
  }
  /* ESCAPE '!' ; an empty escape turns escaping off */
  qv_expr *e = t_call3(QV_OP_LIKE, "bool", t_col(b, 0), t_lit("string", TS("a!_b%")), t_lit("string", TS("!")));
  t_check(e, b, "false|false|false|false|null|true|false|false|false|false|false");
  qv_expr_destroy(e);
  e = t_call3(QV_OP_LIKE, "bool", t_col(b, 0), t_lit("string", TS("a\\_b%")), t_lit("string", TS("")));
  t_check(e, b, "false|false|false|false|null|false|false|false|false|false|false");
  qv_expr_destroy(e);
  e = like(b, "abc\\", false);
  t_eval_fails(e, b, QV_ERR_INVALID, "ends with the escape");
  qv_expr_destroy(e);
  /* a null pattern */
  e = t_call2(QV_OP_LIKE, "bool", t_col(b, 0), t_null_lit("string"));
  t_check(e, b, "null|null|null|null|null|null|null|null|null|null|null");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

/* ---- LIKE oracle ------------------------------------------------------------------ */

/* Recursive matcher over bytes of ASCII strings; '\' escapes. */
static bool olike(const char *s, const char *p, bool ci) {
  if (!*p) return !*s;
  if (*p == '%') return olike(s, p + 1, ci) || (*s && olike(s + 1, p, ci));
  if (!*s) return false;
  if (*p == '_') return olike(s + 1, p + 1, ci);
  char pc = *p;
  const char *next = p + 1;
  if (*p == '\\') {
    pc = p[1];
    next = p + 2;
  }
  char a = *s, c = pc;
  if (ci) {
    if (a >= 'A' && a <= 'Z') a = (char)(a + 32);
    if (c >= 'A' && c <= 'Z') c = (char)(c + 32);
  }
  return a == c && olike(s + 1, next, ci);
}

static void test_like_property(void **state) {
  (void)state;
  enum { M = 200 };
  uint64_t rs = 99;
  const char alpha[] = "abAB%_";
  char strs[M][12];
  tval v[M];
  for (int i = 0; i < M; i++) {
    int len = (int)(t_rand(&rs) % 9);
    for (int k = 0; k < len; k++) strs[i][k] = alpha[t_rand(&rs) % 6];
    strs[i][len] = '\0';
    v[i] = TS(strs[i]);
  }
  qv_array *a = t_arr("string", v, M);
  qv_batch *b = t_batch(&a, 1);
  const char palpha[] = "abA%%__\\";
  for (int trial = 0; trial < 300; trial++) {
    char pat[12];
    int len = (int)(t_rand(&rs) % 7);
    for (int k = 0; k < len; k++) pat[k] = palpha[t_rand(&rs) % 8];
    pat[len] = '\0';
    if (len && pat[len - 1] == '\\') {
      int nb = 0; /* an odd run of trailing backslashes ends in the escape */
      for (int k = len - 1; k >= 0 && pat[k] == '\\'; k--) nb++;
      if (nb % 2) pat[len - 1] = 'a';
    }
    bool ci = trial % 2;
    qv_expr *e = like(b, pat, ci);
    qv_array *r = t_eval(e, b, NULL);
    for (int i = 0; i < M; i++) {
      bool want = olike(strs[i], pat, ci), got = qv_bit_get(r->buffers[1]->data, r->offset + i);
      if (want != got) fail_msg("'%s' %sLIKE '%s': got %d want %d", strs[i], ci ? "I" : "", pat, got, want);
    }
    qv_array_release(r);
    qv_expr_destroy(e);
    /* the same pattern as a column goes through the row-by-row matcher */
    tval pv[M];
    for (int i = 0; i < M; i++) pv[i] = TS(pat);
    qv_array *cols[2] = {qv_array_retain(b->columns[0]), t_arr("string", pv, M)};
    qv_batch *b2 = t_batch(cols, 2);
    e = t_call2(QV_OP_LIKE, "bool", t_col(b2, 0), t_col(b2, 1));
    e->sem.case_insensitive = ci;
    r = t_eval(e, b2, NULL);
    for (int i = 0; i < M; i++) {
      bool want = olike(strs[i], pat, ci), got = qv_bit_get(r->buffers[1]->data, r->offset + i);
      if (want != got) fail_msg("column pattern: '%s' LIKE '%s': got %d want %d", strs[i], pat, got, want);
    }
    qv_array_release(r);
    qv_expr_destroy(e);
    qv_batch_release(b2);
  }
  qv_batch_release(b);
}

static void test_regexp(void **state) {
  (void)state;
  qv_batch *b = words();
  qv_expr *e = t_call2(QV_OP_REGEXP_LIKE, "bool", t_col(b, 0), t_lit("string", TS("^[a-z]+$")));
  t_check(e, b, "true|false|false|true|null|false|false|false|false|false|true");
  qv_expr_destroy(e);
  e = t_call3(QV_OP_REGEXP_MATCH, "bool", t_col(b, 0), t_lit("string", TS("^caf\\w$")), t_lit("string", TS("i")));
  t_check(e, b, "false|false|false|false|null|false|true|true|false|false|false");
  qv_expr_destroy(e);
  e = t_call3(QV_OP_REGEXP_LIKE, "bool", t_col(b, 0), t_lit("string", TS("^line2")), t_lit("string", TS("m")));
  t_check(e, b, "false|false|false|false|null|false|false|false|false|true|false");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_REGEXP_LIKE, "bool", t_col(b, 0), t_lit("string", TS("a(b")));
  t_eval_fails(e, b, QV_ERR_INVALID, "regexp_like: invalid pattern at offset 3: missing closing parenthesis");
  qv_expr_destroy(e);
  e = t_call3(QV_OP_REGEXP_LIKE, "bool", t_col(b, 0), t_lit("string", TS("a")), t_lit("string", TS("q")));
  t_eval_fails(e, b, QV_ERR_INVALID, "unknown flag 'q'");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

static void test_string_functions(void **state) {
  (void)state;
  qv_batch *b = words();
  qv_expr *e = t_call2(QV_OP_STARTS_WITH, "bool", t_col(b, 0), t_lit("string", TS("a")));
  t_check(e, b, "true|false|false|false|null|true|false|false|false|false|false");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_ENDS_WITH, "bool", t_col(b, 0), t_lit("string", TS("apple")));
  t_check(e, b, "true|false|false|false|null|false|false|false|false|false|true");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_CONTAINS, "bool", t_col(b, 0), t_lit("string", TS("pp")));
  t_check(e, b, "true|true|false|false|null|false|false|false|false|false|true");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_CONTAINS, "bool", t_col(b, 0), t_lit("string", TS("")));
  t_check(e, b, "true|true|true|true|null|true|true|true|true|true|true");
  qv_expr_destroy(e);
  e = t_call2(QV_OP_STARTS_WITH, "bool", t_col(b, 0), t_col(b, 0));
  t_check(e, b, "true|true|true|true|null|true|true|true|true|true|true");
  qv_expr_destroy(e);
  e = t_call1(QV_OP_UPPER, "string", t_col(b, 0));
  t_check(e, b,
          "APPLE|APPLE PIE||BANANA|null|A_B%C|CAF\xc3\x89|CAF\xc3\x89|\xe2\x84\xaa"
          "ELVIN|LINE1\nLINE2|PINEAPPLE");
  qv_expr_destroy(e);
  e = t_call1(QV_OP_LOWER, "string", t_col(b, 0));
  t_check(e, b, "apple|apple pie||banana|null|a_b%c|caf\xc3\xa9|caf\xc3\xa9|kelvin|line1\nline2|pineapple");
  qv_expr_destroy(e);
  e = t_call1(QV_OP_LENGTH, "int64", t_col(b, 0));
  t_check(e, b, "5|9|0|6|null|5|4|4|6|11|9");
  qv_expr_destroy(e);
  e = t_call1(QV_OP_LENGTH, "int32", t_lit("string", TS("h\xc3\xa9llo")));
  t_check(e, b, "5|5|5|5|5|5|5|5|5|5|5");
  qv_expr_destroy(e);
  qv_batch_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_like_fast_paths),  cmocka_unit_test(test_like_regex_path),
      cmocka_unit_test(test_like_property),    cmocka_unit_test(test_regexp),
      cmocka_unit_test(test_string_functions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
