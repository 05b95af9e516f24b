/* quiver: the command-line client of libquiver. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct {
  const char *name;
  int (*run)(int, char **);
  const char *summary;
} commands[] = {
    {"demo", cmd_demo, "create the demo dataset (if absent) and time a filtered scan with pushdown on and off"},
    {"import", cmd_import, "import a CSV file or an Arrow IPC file/stream into a dataset"},
    {"scan", cmd_scan, "read rows: --filter, --select, --limit, --version, --format"},
    {"explain", cmd_explain, "show the plan of a scan; --analyze runs it and adds the counters"},
    {"schema", cmd_schema, "print a dataset's columns and types"},
    {"versions", cmd_versions, "list a dataset's versions and whether each reads (ok or damaged)"},
    {"restore", cmd_restore, "commit a new version equal to an older one (the way back from a damaged one)"},
    {"delete", cmd_delete, "delete the rows that match a filter (a new version)"},
    {"merge", cmd_merge, "upsert a dataset or Arrow IPC source into a dataset on key columns (a new version)"},
    {"optimize", cmd_optimize, "compact small and deletion-heavy fragments, then bring the indices up to date"},
    {"cleanup", cmd_cleanup, "remove old versions (--older-than 7d, --keep N) and orphaned files"},
    {"tag", cmd_tag, "list, create or delete tags (named versions cleanup keeps)"},
    {"index", cmd_index, "create, list, drop or optimize scalar indices (btree, bitmap, ngram, label_list)"},
    {"lance-filter", cmd_lance_filter, "translate a Polars expression into a Lance SQL filter (--explain, --schema)"},
    {"bigquery-filter", cmd_bigquery_filter,
     "translate a Polars expression into a BigQuery row_restriction (--schema, --json)"},
    {"graph", cmd_graph, "declare a graph over datasets and build its CSR adjacency (create, show, refresh)"},
    {"cypher", cmd_cypher, "run a Cypher query over a graph: --param, --format, --explain, --analyze, --no-csr"},
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: quiver <command> [options]\n\n"
          "quiver is an embeddable columnar query engine; this command drives its\n"
          "datasets (directories of versioned, checksummed columnar files).\n\n"
          "commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-15s %s\n", commands[i].name, commands[i].summary);
  fprintf(f,
          "\n'quiver <command> --help' describes each one; 'quiver --version' prints the version.\n"
          "Filters use the Lance SQL filter language, e.g. \"val > 0.999 AND cat IN ('c1', 'c2')\".\n"
          "\nenvironment:\n"
          "  QUIVER_THREADS=N  threads a scan may use (default: the number of CPUs; 1: the calling thread only)\n");
}

const char *cli_program = "quiver";

int cli_fail(const char *cmd, const qv_error *err) {
  fprintf(stderr, "quiver %s: %s\n", cmd, err->message);
  return 1;
}

int cli_usage(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "quiver %s: ", cmd);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\ntry 'quiver %s --help'\n", cmd);
  return 2;
}

bool cli_parse_count(const char *text, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (end == text || v < 0 || errno) return false;
  int64_t mul = 1;
  if (*end == 'k' || *end == 'K') mul = 1000, end++;
  else if (*end == 'm' || *end == 'M') mul = 1000000, end++;
  if (*end || v > INT64_MAX / mul) return false;
  *out = v * mul;
  return true;
}

int main(int argc, char **argv) {
  if (argc > 0 && argv[0] && argv[0][0]) cli_program = argv[0];
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("quiver %s\n", QV_VERSION_STRING);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "quiver: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return 2;
}
