/* quiver lance-filter: translate a Polars expression into a Lance SQL
 * filter and print it as Python's repr of quiver.LanceFilter would. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Python's str repr: single quotes unless the text has a single quote and
 * no double quote; backslashes, the chosen quote and control characters
 * escaped. */
static void print_py_str(const char *s) {
  char q = (strchr(s, '\'') && !strchr(s, '"')) ? '"' : '\'';
  putchar(q);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '\\' || *p == (unsigned char)q) printf("\\%c", *p);
    else if (*p == '\n') fputs("\\n", stdout);
    else if (*p == '\r') fputs("\\r", stdout);
    else if (*p == '\t') fputs("\\t", stdout);
    else if (*p < 0x20 || *p == 0x7f) printf("\\x%02x", *p);
    else putchar(*p);
  }
  putchar(q);
}

static int parse_schema(const char *text, qv_schema *out, qv_error *err) {
  char *copy = qv_strdup(text);
  if (!copy) return qv_error_set(err, QV_ERR_NOMEM, "out of memory");
  qv_status st = QV_OK;
  char *save = NULL;
  for (char *item = strtok_r(copy, ",", &save); item && st == QV_OK; item = strtok_r(NULL, ",", &save)) {
    char *colon = strchr(item, ':');
    if (!colon) {
      st = qv_error_set(err, QV_ERR_PARSE, "--schema: expected NAME:TYPE in '%s'", item);
      break;
    }
    *colon = 0;
    qv_datatype ty = QV_DATATYPE_INIT;
    qv_field f;
    st = qv_datatype_parse(colon + 1, &ty, err);
    if (st == QV_OK) st = qv_field_init(&f, item, &ty, true, err);
    if (st == QV_OK) {
      st = qv_schema_add(out, &f, err);
      qv_field_reset(&f);
    }
    qv_datatype_reset(&ty);
  }
  qv_free(copy);
  return st;
}

int cmd_lance_filter(int argc, char **argv) {
  const char *cmd = "lance-filter";
  bool explain = false;
  const char *schema_text = NULL, *text = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: quiver lance-filter [--explain] [--schema \"a:int64,b:string\"] 'EXPR'\n\n"
             "Translates a Polars expression (Python syntax) into a Lance SQL filter and prints\n"
             "LanceFilter(sql=..., exact=...) or None.  Without --schema only what is safe for\n"
             "every column type translates.  --explain also lists every node that declined.\n");
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
  if ((schema_text && parse_schema(schema_text, &schema, &err) != QV_OK) || qv_polars_parse(text, &e, &err) != QV_OK ||
      qv_to_lance_filter(e, schema_text ? &schema : NULL, &f, &err) != QV_OK) {
    rc = cli_fail(cmd, &err);
    goto cleanup;
  }
  if (f) {
    fputs("LanceFilter(sql=", stdout);
    print_py_str(f->sql);
    printf(", exact=%s)\n", f->exact ? "True" : "False");
  } else {
    puts("None");
  }
  if (explain) {
    char *why = qv_lance_filter_explain(e, schema_text ? &schema : NULL);
    if (why) fputs(why, stdout);
    qv_free(why);
  }
cleanup:
  qv_lance_filter_free(f);
  qv_expr_destroy(e);
  qv_schema_reset(&schema);
  return rc;
}
