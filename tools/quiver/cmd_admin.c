/* quiver schema / versions / restore / delete: looking at and editing datasets. */
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
      "Lists every version: number, commit time (UTC), operation, live rows, fragments\n"
      "and its state: ok, or damaged with the reason its manifest does not read\n"
      "(checksum mismatch, truncated, bad magic, unreadable, ...).  A damaged version\n"
      "is listed, not an error: the exit status is 0 whenever the list could be made.\n"
      "Any readable version can be read with 'quiver scan --version N'; while the\n"
      "latest is damaged, 'quiver restore DATASET --version N' is the way back.\n";
  const char *path;
  int rc = simple_args("versions", help, argc, argv, NULL, NULL, NULL, &path);
  if (rc >= 0) return rc;
  qv_version_entry *v;
  int64_t n;
  qv_error err;
  if (qv_dataset_list_versions(path, &v, &n, &err) != QV_OK) return cli_fail("versions", &err);
  printf("%7s  %-20s  %-9s  %12s  %9s  %s\n", "version", "committed (UTC)", "operation", "rows", "fragments", "state");
  int64_t readable = 0;
  for (int64_t i = 0; i < n; i++) {
    const qv_version_info *vi = &v[i].info;
    if (v[i].state != QV_VERSION_OK) {
      printf("%7lld  %-20s  %-9s  %12s  %9s  damaged: %s\n", (long long)vi->version, "-", "-", "-", "-", v[i].message);
      continue;
    }
    readable = vi->version;
    time_t secs = (time_t)(vi->timestamp_ms / 1000);
    struct tm tm;
    char when[32];
    gmtime_r(&secs, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    printf("%7lld  %-20s  %-9s  %12lld  %9d  ok\n", (long long)vi->version, when, vi->operation,
           (long long)vi->num_rows, vi->num_fragments);
  }
  if (n > 0 && v[n - 1].state != QV_VERSION_OK) {
    fflush(stdout); /* the table first, then what it means */
    if (readable > 0)
      fprintf(stderr,
              "quiver versions: the latest version (%lld) is damaged: writes refuse until "
              "'quiver restore %s --version %lld' commits a copy of the newest readable one\n",
              (long long)v[n - 1].info.version, path, (long long)readable);
    else fprintf(stderr, "quiver versions: no version of %s is readable\n", path);
  }
  qv_free(v);
  return 0;
}

int cmd_restore(int argc, char **argv) {
  static const char help[] =
      "usage: quiver restore DATASET --version N\n\n"
      "Commits a new version whose contents are version N's: its schema, fragments,\n"
      "deleted rows and indices as they were at N.  Only a manifest is written (the\n"
      "data, deletion and index files are shared); no version is rewritten or\n"
      "removed, a damaged one included.  This is the way back when the latest\n"
      "version is damaged ('quiver versions' shows which versions read): appends,\n"
      "deletes and index changes refuse until a restore commits above it.\n"
      "Refuses when version N itself, or one of its files, is damaged or missing.\n"
      "Prints the new version.\n";
  int64_t version = 0;
  const char *path;
  int rc = simple_args("restore", help, argc, argv, &version, NULL, NULL, &path);
  if (rc >= 0) return rc;
  if (version == 0) return cli_usage("restore", "--version N is required (which version to restore)");
  int64_t new_version = 0;
  qv_error err;
  if (qv_dataset_restore(path, version, &new_version, &err) != QV_OK) return cli_fail("restore", &err);
  printf("restored version %lld as version %lld\n", (long long)version, (long long)new_version);
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
