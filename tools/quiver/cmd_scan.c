/* quiver scan / quiver explain: read a dataset with projection, filter,
 * limit and offset, or show (and with --analyze, measure) the plan. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char scan_help[] =
    "usage: quiver scan DATASET [options]\n"
    "\n"
    "Reads rows of a dataset.  With a filter, quiver evaluates the filter's columns\n"
    "first, skips pages whose statistics rule them out, and decodes the other\n"
    "selected columns only for the rows that pass.\n"
    "\n"
    "options:\n"
    "  -f, --filter SQL     keep rows matching a Lance SQL filter, e.g. \"val > 0.999\"\n"
    "  -w, --where EXPR     keep rows matching a Polars expression (Polars semantics),\n"
    "                       e.g. 'pl.col(\"val\") > 0.999'\n"
    "  -s, --select COLS    comma-separated columns to output (default: all)\n"
    "  -n, --limit N        at most N rows\n"
    "      --offset N       skip the first N matching rows\n"
    "  -v, --version N      read version N (default: the latest)\n"
    "  -o, --format F       table (default), csv, json (one object per line; NaN\n"
    "                       and infinities are null, as Polars' write_ndjson\n"
    "                       writes them), arrow (an Arrow IPC stream on stdout),\n"
    "                       or stats (a one-line summary: rows and counters, no\n"
    "                       rows printed)\n"
    "      --no-pushdown    decode every needed column in full, then filter\n"
    "      --no-index       do not look conjuncts up in the dataset's scalar indices\n"
    "                       (an index file that cannot be read is never fatal: its\n"
    "                       fragment is filtered in full and a warning says so)\n"
    "      --batch-size N   rows per batch (default 8192)\n"
    "      --with-row-id    add a _rowid column (fragment id << 32 | row)\n"
    "  -c, --count          print the number of rows the scan returns (after the\n"
    "                       filter, --offset and --limit) instead of the rows: only\n"
    "                       the filter's columns are read, and without a filter the\n"
    "                       dataset's manifest answers (no data file is opened);\n"
    "                       with --format stats, the one-line summary instead\n"
    "  -h, --help           this help\n"
    "\n"
    "vector search (docs/vector.md):\n"
    "      --nearest COL:[v,...]  the --k rows nearest to this vector in COL, a\n"
    "                       fixed_size_list<float32, N> column; with it --filter or\n"
    "                       --where is the prefilter (the rows searched among) and\n"
    "                       the result has a _distance column, nearest first\n"
    "      --nearest-file [COL:]FILE  query vectors from a .npy (float32/float64,\n"
    "                       (dim,) or (n, dim)) or an Arrow IPC file (first column);\n"
    "                       several queries add a _query column\n"
    "      --nearest-column COL  the vector column for --nearest-file FILE\n"
    "      --k N            rows per query (default 10)\n"
    "      --metric M       l2 (default, squared), cosine or dot\n"
    "      --nprobes N      IVF partitions probed per query (default 20)\n"
    "      --refine F       IVF_PQ: re-rank F x k candidates by exact distance (default 10)\n"
    "      --no-vector-index  flat (exact) search even where a vector index exists\n"
    "      --postfilter SQL filter the ranked rows (fewer than k may remain)\n"
    "\n"
    "Table cells are padded by display width (CJK and most emoji take two columns,\n"
    "combining marks none) and cut with an ellipsis at 48 columns.\n"
    "\n"
    "Nothing is printed until the first batch of rows has been read whole, so an\n"
    "error there (a damaged file, a cast that fails) leaves stdout empty.  An error\n"
    "later leaves the rows already written and says on stderr how many; the exit\n"
    "status is 1 and no row count follows.\n"
    "\n"
    "examples:\n"
    "  quiver scan data/ds --filter \"cat = 'c3' AND val < 0.5\" --select id,val --limit 10\n"
    "  quiver scan data/ds --format arrow > rows.arrows\n"
    "  quiver scan data/ds --where 'pl.col(\"val\") > 0.5' --count\n"
    "  quiver scan data/vecs --nearest 'vec:[0.1,0.2,0.3]' --k 5 --filter \"cat = 'a'\"\n";

static const char explain_help[] =
    "usage: quiver explain DATASET [--analyze] [scan options]\n"
    "\n"
    "Prints the plan of a scan: the projection, the filter as quiver understood it,\n"
    "whether pushdown is on, which conjuncts can prune pages by statistics, and\n"
    "which scalar index answers which conjunct (exact or superset, with the row\n"
    "estimate behind the choice) and what is re-checked after the lookup.\n"
    "With --analyze the scan runs (rows are discarded) and the counters follow:\n"
    "pages total and pruned, rows scanned/selected/returned, and bytes read and\n"
    "decoded per column.  An index file that cannot be read (damaged, missing) is\n"
    "listed under the plan: its fragments are filtered in full instead.\n"
    "\n"
    "Takes the same options as 'quiver scan' (see quiver scan --help), plus:\n"
    "  -a, --analyze        run the scan and print the counters\n";

typedef struct scan_cli {
  const char *path;
  const char *where;
  qv_expr *where_expr;
  qv_scan_options opts;
  char **columns;
  int32_t n_columns;
  cli_format format;
  bool format_given;
  bool analyze;
  bool count;
  cli_queries queries;
  qv_scan_nearest nearest;
  bool has_nearest;
  const char *nearest_column;
} scan_cli;

static void free_columns(scan_cli *c) {
  cli_queries_reset(&c->queries);
  qv_expr_destroy(c->where_expr);
  for (int32_t i = 0; i < c->n_columns; i++) free(c->columns[i]);
  free(c->columns);
}

static bool split_columns(scan_cli *c, const char *list) {
  const char *p = list;
  while (*p) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    while (n && p[0] == ' ') p++, n--;
    while (n && p[n - 1] == ' ') n--;
    if (n == 0) return false;
    char **cols = realloc(c->columns, (size_t)(c->n_columns + 1) * sizeof *cols);
    if (!cols) return false;
    c->columns = cols;
    c->columns[c->n_columns++] = strndup(p, n);
    p = end ? end + 1 : p + strlen(p);
  }
  return c->n_columns > 0;
}

/* Parses scan options; returns -1 to go on, else an exit code. */
static int parse(const char *cmd, int argc, char **argv, scan_cli *c, bool explain) {
  static const struct option longopts[] = {{"filter", required_argument, NULL, 'f'},
                                           {"select", required_argument, NULL, 's'},
                                           {"where", required_argument, NULL, 'w'},
                                           {"limit", required_argument, NULL, 'n'},
                                           {"offset", required_argument, NULL, 'O'},
                                           {"version", required_argument, NULL, 'v'},
                                           {"format", required_argument, NULL, 'o'},
                                           {"no-pushdown", no_argument, NULL, 'P'},
                                           {"batch-size", required_argument, NULL, 'b'},
                                           {"with-row-id", no_argument, NULL, 'r'},
                                           {"analyze", no_argument, NULL, 'a'},
                                           {"no-index", no_argument, NULL, 'I'},
                                           {"count", no_argument, NULL, 'c'},
                                           {"nearest", required_argument, NULL, 1000},
                                           {"nearest-file", required_argument, NULL, 1001},
                                           {"nearest-column", required_argument, NULL, 1002},
                                           {"k", required_argument, NULL, 1003},
                                           {"metric", required_argument, NULL, 1004},
                                           {"nprobes", required_argument, NULL, 1005},
                                           {"refine", required_argument, NULL, 1006},
                                           {"no-vector-index", no_argument, NULL, 1007},
                                           {"postfilter", required_argument, NULL, 1008},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  qv_scan_options init = QV_SCAN_OPTIONS_INIT;
  qv_scan_nearest ninit = QV_SCAN_NEAREST_INIT;
  c->opts = init;
  c->nearest = ninit;
  char why[256];
  bool vector_opt = false;
  c->format = FMT_TABLE;
  int ch;
  int64_t n;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "f:w:s:n:v:o:ach", longopts, NULL)) != -1) {
    switch (ch) {
      case 'f': c->opts.filter = optarg; break;
      case 'w': c->where = optarg; break;
      case 's':
        if (!split_columns(c, optarg)) return cli_usage(cmd, "--select wants column names separated by commas");
        break;
      case 'n':
        if (!cli_parse_count(optarg, &n)) return cli_usage(cmd, "--limit wants a number, not '%s'", optarg);
        c->opts.limit = n;
        break;
      case 'O':
        if (!cli_parse_count(optarg, &n)) return cli_usage(cmd, "--offset wants a number, not '%s'", optarg);
        c->opts.offset = n;
        break;
      case 'v':
        if (!cli_parse_count(optarg, &n) || n == 0)
          return cli_usage(cmd, "--version wants a version number, not '%s'", optarg);
        c->opts.dataset_version = n;
        break;
      case 'o':
        if (!cli_parse_format(optarg, &c->format))
          return cli_usage(cmd, "--format is table, csv, json, arrow or stats, not '%s'", optarg);
        c->format_given = true;
        break;
      case 'P': c->opts.predicate_pushdown = false; break;
      case 'I': c->opts.use_scalar_index = false; break;
      case 'b':
        if (!cli_parse_count(optarg, &n) || n == 0) return cli_usage(cmd, "--batch-size wants a positive number");
        c->opts.batch_size = n;
        break;
      case 'r': c->opts.with_row_id = true; break;
      case 'a':
        if (!explain) return cli_usage(cmd, "--analyze belongs to 'quiver explain'");
        c->analyze = true;
        break;
      case 'c':
        if (explain) return cli_usage(cmd, "--count belongs to 'quiver scan'");
        c->count = true;
        break;
      case 1000:
        if (c->has_nearest) return cli_usage(cmd, "give one --nearest or --nearest-file");
        if (!cli_parse_nearest(optarg, &c->queries, why, sizeof why)) return cli_usage(cmd, "%s", why);
        c->has_nearest = true;
        break;
      case 1001: {
        if (c->has_nearest) return cli_usage(cmd, "give one --nearest or --nearest-file");
        const char *file = optarg, *colon = strchr(optarg, ':');
        if (colon && colon != optarg && !strchr(optarg, '/') == !strchr(colon, '/')) {
          c->queries.column = strndup(optarg, (size_t)(colon - optarg));
          file = colon + 1;
        }
        if (!cli_read_nearest_file(file, &c->queries, why, sizeof why)) return cli_usage(cmd, "%s", why);
        c->has_nearest = true;
        break;
      }
      case 1002: c->nearest_column = optarg; break;
      case 1003:
        if (!cli_parse_count(optarg, &n)) return cli_usage(cmd, "--k wants a number, not '%s'", optarg);
        c->nearest.k = n;
        vector_opt = true;
        break;
      case 1004:
        if (!qv_metric_parse(optarg, &c->nearest.metric))
          return cli_usage(cmd, "--metric is l2, cosine or dot, not '%s'", optarg);
        vector_opt = true;
        break;
      case 1005:
        if (!cli_parse_count(optarg, &n) || n == 0 || n > (1 << 20))
          return cli_usage(cmd, "--nprobes wants a positive number, not '%s'", optarg);
        c->nearest.nprobes = (int32_t)n;
        vector_opt = true;
        break;
      case 1006:
        if (!cli_parse_count(optarg, &n) || n > 1000) return cli_usage(cmd, "--refine wants 0..1000, not '%s'", optarg);
        c->nearest.refine_factor = (int32_t)n;
        vector_opt = true;
        break;
      case 1007:
        c->nearest.use_index = false;
        vector_opt = true;
        break;
      case 1008:
        c->nearest.postfilter = optarg;
        vector_opt = true;
        break;
      case 'h': fputs(explain ? explain_help : scan_help, stdout); return 0;
      default: return cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc) return cli_usage(cmd, "which dataset? (a directory made by 'quiver import')");
  if (optind + 1 < argc) return cli_usage(cmd, "unexpected argument '%s'", argv[optind + 1]);
  c->path = argv[optind];
  if (c->count && (c->columns || c->opts.with_row_id))
    return cli_usage(cmd, "--count reads no column: drop --select and --with-row-id");
  if (c->count && c->format_given && c->format != FMT_STATS)
    return cli_usage(cmd, "--count prints a number, or with --format stats the summary; not --format %s",
                     c->format == FMT_CSV     ? "csv"
                     : c->format == FMT_JSON  ? "json"
                     : c->format == FMT_ARROW ? "arrow"
                                              : "table");
  if (c->where) {
    if (c->opts.filter) return cli_usage(cmd, "give --filter or --where, not both");
    qv_error err;
    if (qv_polars_parse(c->where, &c->where_expr, &err) != QV_OK) return cli_fail(cmd, &err);
    c->opts.filter_expr = c->where_expr;
  }
  if (c->columns) {
    c->opts.columns = (const char *const *)c->columns;
    c->opts.n_columns = c->n_columns;
  }
  if (vector_opt && !c->has_nearest)
    return cli_usage(
        cmd, "--k, --metric, --nprobes, --refine, --postfilter and --no-vector-index need --nearest or --nearest-file");
  if (c->has_nearest) {
    const char *col = c->queries.column ? c->queries.column : c->nearest_column;
    if (!col) return cli_usage(cmd, "--nearest-file FILE needs the column: COL:FILE or --nearest-column COL");
    c->nearest.column = col;
    c->nearest.q = c->queries.v;
    c->nearest.dim = c->queries.dim;
    c->nearest.n_queries = c->queries.n_queries;
    c->opts.nearest = &c->nearest;
  }
  /* csv, json and the counters print the same whatever the batches are:
   * take the pieces as they come instead of copying them into batches */
  if (c->format == FMT_CSV || c->format == FMT_JSON || c->format == FMT_STATS) c->opts.exact_batches = false;
  return -1;
}

/* --count: the number, or the summary --format stats prints for a scan. */
static int write_count(qv_scanner *sc, cli_format format) {
  qv_error err;
  int64_t n;
  if (qv_scanner_count(sc, &n, &err) != QV_OK) return cli_fail("scan", &err);
  if (format != FMT_STATS) {
    printf("%lld\n", (long long)n);
    return 0;
  }
  qv_scan_counters c;
  qv_scanner_counters(sc, &c);
  int64_t read = 0, decoded = 0;
  for (int32_t i = 0; i < c.n_columns; i++) {
    read += c.columns[i].bytes_read;
    decoded += c.columns[i].bytes_decoded;
  }
  printf(
      "rows=%lld fragments=%lld pages=%lld pages_pruned=%lld rows_scanned=%lld bytes_read=%lld bytes_decoded=%lld "
      "index_fallback_fragments=%lld peak_rss_kib=%lld\n",
      (long long)n, (long long)c.fragments, (long long)c.pages_total, (long long)c.pages_pruned,
      (long long)c.rows_scanned, (long long)read, (long long)decoded, (long long)c.index_fallback_fragments,
      cli_peak_rss_kib());
  return 0;
}

int cmd_scan(int argc, char **argv) {
  scan_cli c = {0};
  int rc = parse("scan", argc, argv, &c, false);
  if (rc >= 0) {
    free_columns(&c);
    return rc;
  }
  qv_scanner *sc;
  qv_error err;
  if (qv_scanner_open(c.path, &c.opts, &sc, &err) != QV_OK) {
    free_columns(&c);
    return cli_fail("scan", &err);
  }
  int64_t rows;
  rc = c.count ? write_count(sc, c.format) : cli_write_scan("scan", sc, c.format, &rows);
  /* The rows are right either way; say so, and that the index wants a repair. */
  qv_scan_counters ctr;
  qv_scanner_counters(sc, &ctr);
  for (int32_t i = 0; i < ctr.n_index_fallbacks; i++)
    fprintf(stderr,
            "quiver: warning: index %s unusable for %lld fragment(s): %s; those fragments were filtered in full\n",
            ctr.index_fallbacks[i].index, (long long)ctr.index_fallbacks[i].fragments, ctr.index_fallbacks[i].error);
  qv_scanner_destroy(sc);
  free_columns(&c);
  return rc;
}

int cmd_explain(int argc, char **argv) {
  scan_cli c = {0};
  int rc = parse("explain", argc, argv, &c, true);
  if (rc >= 0) {
    free_columns(&c);
    return rc;
  }
  qv_scanner *sc;
  qv_error err;
  if (qv_scanner_open(c.path, &c.opts, &sc, &err) != QV_OK) {
    free_columns(&c);
    return cli_fail("explain", &err);
  }
  rc = 0;
  double t0 = qv_now_seconds();
  if (c.analyze) {
    for (;;) {
      qv_batch *b;
      if (qv_scanner_next(sc, &b, &err) != QV_OK) {
        rc = cli_fail("explain", &err);
        break;
      }
      if (!b) break;
      qv_batch_release(b);
    }
  }
  double elapsed = qv_now_seconds() - t0;
  char *plan = qv_scanner_explain(sc, c.analyze);
  if (plan) fputs(plan, stdout);
  if (c.analyze && rc == 0) printf("  time: %.3f s\n", elapsed);
  qv_free(plan);
  qv_scanner_destroy(sc);
  free_columns(&c);
  return rc;
}
