/* quiver lance-filter: translate a Polars expression into a Lance SQL
 * filter and print it as Python's repr of quiver.LanceFilter would. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cmd_lance_filter(int argc, char **argv) {
  const char *cmd = "lance-filter";
  bool explain = false;
  const char *schema_text = NULL, *text = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf(
          "usage: quiver lance-filter [--explain] [--schema \"a:int64,b:string\"] 'EXPR'\n\n"
          "Translates a Polars expression (Python syntax) into a Lance SQL filter and prints\n"
          "LanceFilter(sql=..., exact=...) or None.  Without --schema only what is safe for\n"
          "every column type translates.  --explain also lists every node that declined.\n"
          "None is an answer (exit 0): nothing translates, as for an aggregation such as\n"
          ".sum() or a method quiver does not know; only text that does not parse as a\n"
          "Polars expression is an error (exit 1).\n");
      return 0;
    }
    if (!strcmp(argv[i], "--explain")) explain = true;
    else if (!strcmp(argv[i], "--schema") && i + 1 < argc) schema_text = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1] == '-') return cli_usage(cmd, "unknown option '%s'", argv[i]);
    else if (!text) text = argv[i];
    else return cli_usage(cmd, "more than one expression");
  }
  if (!text) return cli_usage(cmd, "missing the expression");
  qv_error err = {0};
  qv_schema schema = QV_SCHEMA_INIT;
  qv_expr *e = NULL;
  qv_lance_filter *f = NULL;
  int rc = 0;
  if ((schema_text && cli_parse_schema(schema_text, &schema, &err) != QV_OK) ||
      qv_polars_parse(text, &e, &err) != QV_OK ||
      qv_to_lance_filter(e, schema_text ? &schema : NULL, &f, &err) != QV_OK) {
    rc = cli_fail(cmd, &err);
    goto cleanup;
  }
  if (f) {
    fputs("LanceFilter(sql=", stdout);
    cli_print_py_str(f->sql);
    printf(", exact=%s)\n", f->exact ? "True" : "False");
  } else {
    puts("None");
  }
  if (explain) {
    char *why = NULL;
    if (qv_lance_filter_explain(e, schema_text ? &schema : NULL, &why, &err) != QV_OK) {
      rc = cli_fail(cmd, &err);
      goto cleanup;
    }
    fputs(why, stdout);
    qv_free(why);
  }
cleanup:
  qv_lance_filter_free(f);
  qv_expr_destroy(e);
  qv_schema_reset(&schema);
  return rc;
}
