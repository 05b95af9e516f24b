/* Shared pieces of the quiver command.  The command uses only the public
 * headers: it is a client of libquiver like any other program. */
#ifndef QUIVER_TOOLS_QUIVER_CLI_H
#define QUIVER_TOOLS_QUIVER_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "quiver/quiver.h"
#include "quiver/scan.h"

/* Each subcommand: argv[0] is the subcommand name; returns the exit code
 * (0 ok, 1 failure, 2 usage). */
int cmd_import(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_schema(int argc, char **argv);
int cmd_versions(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_delete(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_lance_filter(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_bigquery_filter(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_cypher(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_optimize(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);
int cmd_tag(int argc, char **argv);

/* Prints "quiver CMD: message" to stderr and returns 1. */
int cli_fail(const char *cmd, const qv_error *err);
/* The program as it was run (argv[0], e.g. "build/quiver"), for hints that
 * show a command to type next. */
extern const char *cli_program;
/* "s" unless n is 1: "%lld row%s" for counts in messages. */
static inline const char *cli_plural(int64_t n) { return n == 1 ? "" : "s"; }
/* Prints a usage problem plus "try 'quiver CMD --help'" and returns 2. */
int cli_usage(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Parses a non-negative integer option value ("1000000", "2M", "10k"). */
bool cli_parse_count(const char *text, int64_t *out);

/* Output formats of scan results. */
typedef enum cli_format { FMT_TABLE, FMT_CSV, FMT_JSON, FMT_ARROW, FMT_STATS } cli_format;
bool cli_parse_format(const char *text, cli_format *out);

/* This process's peak resident set (VmHWM) in KiB for --format stats; -1
 * where /proc is not there (ru_maxrss would count a forking parent's). */
long long cli_peak_rss_kib(void);

/* Streams every batch of a scanner to stdout in the format; *rows gets the
 * row count written. */
int cli_write_scan(const char *cmd, qv_scanner *sc, cli_format fmt, int64_t *rows);
/* The same for any source of batches of one schema: next sets *out to the
 * next batch (the caller releases it) or NULL at the end.  FMT_STATS
 * writes nothing (the caller prints its summary). */
typedef qv_status (*cli_next_fn)(void *src, qv_batch **out, qv_error *err);
int cli_write_batches(const char *cmd, const qv_schema *schema, cli_next_fn next, void *src, cli_format fmt,
                      int64_t *rows);

/* cli_text.c: Python's str repr of s on stdout (quotes chosen as Python
 * does), a JSON string on f, and an inline schema "a:int64,t:timestamp[us,
 * UTC],s:struct<x: int32, y: string>" (commas inside [] () <> belong to the
 * type). */
void cli_print_py_str(const char *s);
void cli_json_string(FILE *f, const char *s, size_t n);
qv_status cli_parse_schema(const char *text, qv_schema *out, qv_error *err);

/* cli_nearest.c: query vectors for `scan --nearest` / `--nearest-file`. */
typedef struct cli_queries {
  char *column; /* from 'COLUMN:[...]' (NULL with a file) */
  float *v;     /* n_queries x dim */
  int64_t n, cap;
  int32_t dim, n_queries;
} cli_queries;
bool cli_parse_nearest(const char *text, cli_queries *q, char *why, size_t why_len);
bool cli_read_nearest_file(const char *path, cli_queries *q, char *why, size_t why_len);
void cli_queries_reset(cli_queries *q);

#endif
