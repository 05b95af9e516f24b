/* quiver bigquery-filter: translate a Polars expression into a BigQuery
 * Storage Read API row_restriction and print it as Python's repr of
 * quiver.BigQueryFilter would, or (--json) as the pieces of a ReadSession's
 * read_options: row_restriction and selected_fields. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static char *read_file(const char *path, size_t *len, qv_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    qv_error_set(err, QV_ERR_IO, "%s: %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t k = fread(buf + n, 1, cap - n, f);
    n += k;
    if (n < cap) break;
    if (cap > ((size_t)64 << 20)) {
      free(buf);
      buf = NULL;
      qv_error_set(err, QV_ERR_INVALID, "%s: larger than 64 MiB", path);
      fclose(f);
      return NULL;
    }
    char *nb = realloc(buf, cap * 2);
    if (!nb) free(buf);
    buf = nb;
    cap *= 2;
  }
  if (!buf) qv_error_set(err, QV_ERR_NOMEM, "out of memory");
  else if (ferror(f)) {
    qv_error_set(err, QV_ERR_IO, "%s: read failed", path);
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *len = n;
  return buf;
}

/* --schema: a BigQuery schema JSON file, inline JSON, or "a:int64,...". */
static qv_status load_schema(const char *arg, qv_schema *out, qv_error *err) {
  if (arg[0] == '[' || arg[0] == '{') return qv_bigquery_schema_from_json(arg, strlen(arg), out, err);
  if (strstr(arg, ".json") || !strchr(arg, ':')) {
    size_t len = 0;
    char *text = read_file(arg, &len, err);
    if (!text) return err->code;
    qv_status st = qv_bigquery_schema_from_json(text, len, out, err);
    free(text);
    if (st != QV_OK) qv_error_prefix(err, st, "%s", arg);
    return st;
  }
  return cli_parse_schema(arg, out, err);
}

/* Appends name to names (n of them) unless it is there. */
static bool add_name(const char ***names, int32_t *n, int32_t *cap, const char *name) {
  for (int32_t i = 0; i < *n; i++)
    if (strcmp((*names)[i], name) == 0) return true;
  if (*n == *cap) {
    *cap = *cap ? *cap * 2 : 8;
    const char **v = realloc(*names, (size_t)*cap * sizeof *v);
    if (!v) return false;
    *names = v;
  }
  (*names)[(*n)++] = name;
  return true;
}

/* Every column the expression reads, in order of first appearance (the
 * fields the read session must deliver for the local re-filter). */
static bool expr_columns(const qv_expr *e, const char ***names, int32_t *n, int32_t *cap) {
  const qv_expr **stack = NULL;
  int32_t top = 0, scap = 0;
  bool ok = true;
  for (const qv_expr *cur = e; ok && cur; cur = top ? stack[--top] : NULL) {
    if (cur->kind == QV_EXPR_COLUMN) {
      ok = add_name(names, n, cap, cur->name);
      continue;
    }
    for (int32_t i = cur->n_args - 1; i >= 0 && ok; i--) {
      if (top == scap) {
        scap = scap ? scap * 2 : 32;
        const qv_expr **s = realloc(stack, (size_t)scap * sizeof *s);
        if (!s) {
          ok = false;
          break;
        }
        stack = s;
      }
      stack[top++] = cur->args[i];
    }
  }
  free(stack);
  return ok;
}

static int print_json(const char *cmd, const qv_bigquery_filter *f, const qv_expr *e, char *select) {
  const char **names = NULL;
  int32_t n = 0, cap = 0;
  bool ok = true;
  char *save = NULL;
  if (select)
    for (char *c = strtok_r(select, ",", &save); c && ok; c = strtok_r(NULL, ",", &save))
      ok = add_name(&names, &n, &cap, c);
  if (ok) ok = expr_columns(e, &names, &n, &cap);
  if (!ok) {
    free(names);
    qv_error err;
    qv_error_set(&err, QV_ERR_NOMEM, "out of memory");
    return cli_fail(cmd, &err);
  }
  fputs("{\"row_restriction\": ", stdout);
  if (f) cli_json_string(stdout, f->sql, strlen(f->sql));
  else fputs("null", stdout);
  printf(", \"exact\": %s, \"selected_fields\": [", f && f->exact ? "true" : "false");
  for (int32_t i = 0; i < n; i++) {
    if (i) fputs(", ", stdout);
    cli_json_string(stdout, names[i], strlen(names[i]));
  }
  puts("]}");
  free(names);
  return 0;
}

int cmd_bigquery_filter(int argc, char **argv) {
  const char *cmd = "bigquery-filter";
  bool explain = false, json = false, polars_json = false;
  const char *schema_arg = NULL, *text = NULL;
  char *select = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf(
          "usage: quiver bigquery-filter [--explain] [--json [--select a,b]] [--schema SCHEMA]\n"
          "                              [--polars-json] 'EXPR'\n\n"
          "Translates a Polars expression (Python syntax) into a BigQuery Storage Read API\n"
          "row_restriction and prints BigQueryFilter(sql=..., exact=...) or None.  When\n"
          "exact is False the restriction keeps a superset: filter the streamed rows again.\n"
          "None is an answer (exit 0): nothing translates, as for an aggregation such as\n"
          ".sum() or a method quiver does not know; only text that does not parse as a\n"
          "Polars expression is an error (exit 1).\n\n"
          "  --schema SCHEMA  the table's columns: a BigQuery schema JSON file (what\n"
          "                   'bq show --schema --format=json' prints, {\"fields\": [...]},\n"
          "                   or a table resource), the same JSON inline, or\n"
          "                   \"a:int64,b:string\".  Without it only what is safe for every\n"
          "                   column type translates.\n"
          "  --explain        also list every node that declined, and why\n"
          "  --json           print {\"row_restriction\", \"exact\", \"selected_fields\"} for a\n"
          "                   ReadSession; --select adds projected columns first\n"
          "  --polars-json    EXPR is the JSON of Expr.meta.serialize(format=\"json\")\n");
      return 0;
    }
    if (!strcmp(argv[i], "--explain")) explain = true;
    else if (!strcmp(argv[i], "--json")) json = true;
    else if (!strcmp(argv[i], "--polars-json")) polars_json = true;
    else if (!strcmp(argv[i], "--schema") && i + 1 < argc) schema_arg = argv[++i];
    else if (!strcmp(argv[i], "--select") && i + 1 < argc) select = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1] == '-') return cli_usage(cmd, "unknown option '%s'", argv[i]);
    else if (!text) text = argv[i];
    else return cli_usage(cmd, "more than one expression");
  }
  if (!text) return cli_usage(cmd, "missing the expression");
  if (select && !json) return cli_usage(cmd, "--select goes with --json");
  qv_error err = {0};
  qv_schema schema = QV_SCHEMA_INIT;
  qv_expr *e = NULL;
  qv_bigquery_filter *f = NULL;
  char *why = NULL;
  int rc = 0;
  const qv_schema *sp = schema_arg ? &schema : NULL;
  if ((schema_arg && load_schema(schema_arg, &schema, &err) != QV_OK) ||
      (polars_json ? qv_polars_from_json(text, strlen(text), &e, &err) : qv_polars_parse(text, &e, &err)) != QV_OK ||
      qv_to_bigquery_filter(e, sp, &f, &err) != QV_OK ||
      (explain && qv_bigquery_filter_explain(e, sp, &why, &err) != QV_OK)) {
    rc = cli_fail(cmd, &err);
    goto cleanup;
  }
  if (json) {
    rc = print_json(cmd, f, e, select);
  } else if (f) {
    fputs("BigQueryFilter(sql=", stdout);
    cli_print_py_str(f->sql);
    printf(", exact=%s)\n", f->exact ? "True" : "False");
  } else {
    puts("None");
  }
  if (why) fputs(why, stdout);
cleanup:
  qv_free(why);
  qv_bigquery_filter_free(f);
  qv_expr_destroy(e);
  qv_schema_reset(&schema);
  return rc;
}
