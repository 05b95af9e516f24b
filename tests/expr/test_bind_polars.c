/* qv_expr_bind over trees from the Polars text front end: Polars' result
 * types for arithmetic (wrapping happens in them, so they decide rows),
 * the Polars-only operators, and their errors.  Golden file
 * bind_polars_expected.txt: bound text plus every node's type; the types
 * were checked one by one against Polars 2.1.0 (`df.select(e).dtypes`). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr_test_util.h"
#include "quiver/expr.h"

static qv_schema schema = QV_SCHEMA_INIT;

static void bind_line(const char *line, void *ud) {
  tu_text *out = ud;
  qv_expr *e = NULL;
  qv_error err;
  tu_put(out, "in:    ");
  tu_put(out, line);
  tu_put(out, "\n");
  if (qv_polars_parse(line, &e, &err) != QV_OK) fail_msg("%s: %s", line, err.message);
  qv_status st = qv_expr_bind(e, &schema, &err);
  if (st != QV_OK) {
    char buf[1200];
    snprintf(buf, sizeof buf, "err:   %s: %s\n", qv_status_string(st), err.message);
    tu_put(out, buf);
  } else {
    char *s = qv_expr_to_string(e);
    tu_put(out, "out:   ");
    tu_put(out, s);
    tu_put(out, "\ntypes: ");
    tu_typed(out, e);
    tu_put(out, "\n");
    /* Binding is idempotent: a bound tree binds to itself. */
    if (qv_expr_bind(e, &schema, &err) != QV_OK) fail_msg("%s: binding again: %s", line, err.message);
    char *s2 = qv_expr_to_string(e);
    assert_string_equal(s, s2);
    qv_free(s2);
    qv_free(s);
  }
  qv_expr_destroy(e);
}

static void test_golden(void **state) {
  (void)state;
  tu_text out = {0};
  assert_true(tu_each_line("bind_polars_input.txt", bind_line, &out) > 40);
  assert_int_equal(tu_golden("bind_polars_expected.txt", out.s), 0);
  free(out.s);
}

int main(void) {
  tu_schema(&schema);
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_golden)};
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  qv_schema_reset(&schema);
  return rc;
}
