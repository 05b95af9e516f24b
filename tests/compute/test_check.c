/* qv_eval_check: the constant arguments a kernel refuses are refused
 * before evaluation, with exactly the message evaluation gives; what
 * evaluation accepts (good patterns, lenient nodes, patterns from a
 * column), the check accepts. */
#include "compute/compute_test.h"

/* c0 string, c1 binary, c2 date32, c3 timestamp[us], c4 string (patterns) */
static qv_batch *table(void) {
  tval s[] = {TS("abc"), TN(), TS("a(b")}, bin[] = {TB("ab", 2), TB("", 0), TN()};
  tval d[] = {TI(0), TI(19000), TN()}, ts[] = {TI(0), TI(86400000000), TN()};
  tval pat[] = {TS("a"), TS("b+"), TN()};
  qv_array *cols[] = {t_arr("string", s, 3), t_arr("binary", bin, 3), t_arr("date32", d, 3),
                      t_arr("timestamp[us]", ts, 3), t_arr("string", pat, 3)};
  return t_batch(cols, 5);
}

/* Parses (Lance SQL, or Polars text when polars), binds, then requires
 * the check and an evaluation to agree: both QV_OK, or both failing with
 * want (the same message). */
static void agree(const qv_batch *b, bool polars, const char *text, const char *want) {
  qv_expr *e = NULL;
  qv_error err;
  qv_status ps = polars ? qv_polars_parse(text, &e, &err) : qv_lance_filter_parse(text, &e, &err);
  if (ps != QV_OK) fail_msg("%s: %s", text, err.message);
  if (qv_expr_bind(e, &b->schema, &err) != QV_OK) fail_msg("%s: bind: %s", text, err.message);
  qv_error ce, ee;
  qv_status cs = qv_eval_check(e, &ce);
  qv_array *out = NULL;
  qv_status es = qv_eval(e, b, NULL, &out, &ee);
  qv_array_release(out);
  if (!want) {
    if (cs != QV_OK || es != QV_OK)
      fail_msg("%s: check %d (%s), eval %d (%s)", text, (int)cs, cs ? ce.message : "", (int)es, es ? ee.message : "");
  } else {
    if (cs == QV_OK) fail_msg("%s: the check accepts what evaluation refuses (%s)", text, ee.message);
    assert_int_equal(cs, es);
    assert_string_equal(ce.message, want);
    assert_string_equal(ee.message, want);
  }
  qv_expr_destroy(e);
}

static void test_refused_constants(void **state) {
  (void)state;
  qv_batch *b = table();
  agree(b, false, "regexp_match(c0, '(')", "regexp_match: invalid pattern at offset 1: missing closing parenthesis");
  agree(b, false, "regexp_like(c0, '[')",
        "regexp_like: invalid pattern at offset 1: missing terminating ] for character class");
  agree(b, false, "regexp_like(c0, 'a', 'iq')", "regexp: unknown flag 'q' (expected i, c, m, s or x)");
  agree(b, false, "c0 LIKE 'ab\\'", "LIKE: the pattern ends with the escape character");
  agree(b, false, "c0 LIKE 'ab#' ESCAPE '#'", "LIKE: the pattern ends with the escape character");
  agree(b, true, "pl.col(\"c0\").str.contains(\"a{2,1}\")",
        "regexp_match: invalid pattern at offset 5: numbers out of order in {} quantifier");
  agree(b, true, "pl.col(\"c0\").str.replace_all(\"(a\", \"x\")",
        "str.replace_all: invalid pattern at offset 2: missing closing parenthesis");
  agree(b, true, "pl.col(\"c2\").dt.truncate(\"3z\")",
        "dt.truncate: invalid interval '3z': unknown unit 'z' (expected ns, us, ms, s, m, h, d, w, mo, q or y)");
  agree(b, true, "pl.col(\"c2\").dt.truncate(\"1d6h\")",
        "dt.truncate: a date cannot be truncated by '1d6h' (days and smaller units mixed)");
  /* nested under other nodes */
  agree(b, true, "pl.when(pl.col(\"c0\").is_null()).then(pl.col(\"c0\").str.contains(\"(\")).otherwise(False)",
        "regexp_match: invalid pattern at offset 1: missing closing parenthesis");
  qv_batch_release(b);
}

static void test_accepted(void **state) {
  (void)state;
  qv_batch *b = table();
  agree(b, false, "regexp_match(c0, 'a(b)?')", NULL);
  agree(b, false, "regexp_like(c0, 'A', 'i')", NULL);
  agree(b, false, "c0 LIKE 'a\\%%'", NULL);
  agree(b, false, "regexp_match(c0, c4)", NULL); /* per-row patterns are the kernel's to judge */
  agree(b, true, "pl.col(\"c0\").str.contains(\"(\", strict=False)", NULL);
  agree(b, true, "pl.col(\"c0\").str.contains(\"(\", literal=True)", NULL);
  agree(b, true, "pl.col(\"c0\").str.replace(\"(\", \"x\", literal=True)", NULL);
  agree(b, true, "pl.col(\"c0\").str.contains(\"\\\\w+\\\\b\")", NULL);
  agree(b, true, "pl.col(\"c3\").dt.truncate(\"1d6h\")", NULL);
  agree(b, true, "pl.col(\"c0\").str.contains(pl.lit(None))", NULL);
  assert_int_equal(qv_eval_check(NULL, NULL), QV_OK);
  qv_batch_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_refused_constants),
      cmocka_unit_test(test_accepted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
