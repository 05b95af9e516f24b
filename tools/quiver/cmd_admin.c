/* quiver schema / versions / delete: looking at and editing datasets. */
#include <getopt.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* Parses just --help (and -v/--version N, --filter SQL, --where POLARS
 * where allowed: non-NULL); returns -1 to go on. */
static int simple_args(const char *cmd, const char *help, int argc, char **argv, int64_t *version, const char **filter,
                       const char **where, const char **path) {
  static const struct option longopts[] = {{"version", required_argument, NULL, 'v'},
                                           {"filter", required_argument, NULL, 'f'},
                                           {"where", required_argument, NULL, 'w'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int ch;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "v:f:w:h", longopts, NULL)) != -1) {
    switch (ch) {
      case 'v':
        if (!version || !cli_parse_count(optarg, version) || *version == 0)
          return cli_usage(cmd, version ? "--version wants a version number" : "no --version here");
        break;
      case 'f':
        if (!filter) return cli_usage(cmd, "no --filter here");
        *filter = optarg;
        break;
      case 'w':
        if (!where) return cli_usage(cmd, "no --where here");
        *where = optarg;
        break;
      case 'h': fputs(help, stdout); return 0;
      default: return cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc) return cli_usage(cmd, "which dataset?");
  if (optind + 1 < argc) return cli_usage(cmd, "unexpected argument '%s'", argv[optind + 1]);
  *path = argv[optind];
  return -1;
}

int cmd_schema(int argc, char **argv) {
  static const char help[] =
      "usage: quiver schema DATASET [--version N]\n\n"
      "Prints each column's name, type and nullability, one per line.\n";
  int64_t version = 0;
  const char *path;
  int rc = simple_args("schema", help, argc, argv, &version, NULL, NULL, &path);
  if (rc >= 0) return rc;
  qv_dataset *ds;
  qv_error err;
  if (qv_dataset_open(path, version, &ds, &err) != QV_OK) return cli_fail("schema", &err);
  const qv_schema *s = qv_dataset_schema(ds);
  for (int32_t i = 0; i < s->n_fields; i++) {
    char t[256];
    qv_datatype_format(&s->fields[i].type, t, sizeof t);
    printf("%s: %s%s\n", s->fields[i].name, t, s->fields[i].nullable ? "" : " not null");
  }
  qv_dataset_close(ds);
  return 0;
}

int cmd_versions(int argc, char **argv) {
  static const char help[] =
      "usage: quiver versions DATASET\n\n"
      "Lists every version: number, commit time (UTC), operation, live rows, fragments.\n"
      "Any version can be read with 'quiver scan --version N'.\n";
  const char *path;
  int rc = simple_args("versions", help, argc, argv, NULL, NULL, NULL, &path);
  if (rc >= 0) return rc;
  qv_version_info *v;
  int64_t n;
  qv_error err;
  if (qv_dataset_versions(path, &v, &n, &err) != QV_OK) return cli_fail("versions", &err);
  printf("%7s  %-20s  %-9s  %12s  %9s\n", "version", "committed (UTC)", "operation", "rows", "fragments");
  for (int64_t i = 0; i < n; i++) {
    time_t secs = (time_t)(v[i].timestamp_ms / 1000);
    struct tm tm;
    char when[32];
    gmtime_r(&secs, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    printf("%7lld  %-20s  %-9s  %12lld  %9d\n", (long long)v[i].version, when, v[i].operation, (long long)v[i].num_rows,
           v[i].num_fragments);
  }
  qv_free(v);
  return 0;
}

int cmd_delete(int argc, char **argv) {
  static const char help[] =
      "usage: quiver delete DATASET --filter SQL\n"
      "       quiver delete DATASET --where POLARS_EXPRESSION\n\n"
      "Deletes the rows matching the filter by committing a new version with\n"
      "deletion files (no data file is rewritten; older versions still read the\n"
      "rows).  --filter takes the Lance SQL filter language, --where a Polars\n"
      "expression with Polars semantics, as `quiver scan` does (a row the filter\n"
      "makes null is kept).  Prints how many rows were deleted and the new version;\n"
      "when no row matches, nothing is committed and it says so (exit status 0).\n";
  const char *path, *filter = NULL, *where = NULL;
  int rc = simple_args("delete", help, argc, argv, NULL, &filter, &where, &path);
  if (rc >= 0) return rc;
  if (!filter && !where) return cli_usage("delete", "--filter or --where is required");
  if (filter && where) return cli_usage("delete", "give --filter or --where, not both");
  int64_t deleted, version;
  qv_error err;
  qv_expr *expr = NULL;
  if (where && qv_polars_parse(where, &expr, &err) != QV_OK) return cli_fail("delete", &err);
  qv_status st = expr ? qv_dataset_delete_matching(path, expr, &deleted, &version, &err)
                      : qv_dataset_delete_where(path, filter, &deleted, &version, &err);
  qv_expr_destroy(expr);
  if (st != QV_OK) return cli_fail("delete", &err);
  if (deleted == 0) printf("no row matched; nothing changed (version %lld is still the latest)\n", (long long)version);
  else printf("deleted %lld row%s; version %lld\n", (long long)deleted, deleted == 1 ? "" : "s", (long long)version);
  return 0;
}
