/* quiver cypher: run a Cypher query over a graph folder (qv_cypher_query),
 * or show its plan (qv_cypher_explain). */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

static const char help[] =
    "usage: quiver cypher GRAPH 'QUERY' [options]\n"
    "\n"
    "Runs a Cypher query over a graph made by 'quiver graph create' and prints its\n"
    "rows.  Hops follow the graph's CSR adjacency; --no-csr plans them as hash\n"
    "joins instead (the same rows, for comparison).  A graph over datasets is\n"
    "read-only: CREATE, MERGE, SET, DELETE and REMOVE are refused.\n"
    "\n"
    "options:\n"
    "  -p, --param NAME=VALUE  the query parameter $NAME (repeatable).  VALUE is Cypher\n"
    "                          literal text: 30, -1.5, true, null, 'Alice', [1, 2],\n"
    "                          {k: 'v'}; a bare word that is not a literal (Alice) is\n"
    "                          taken as a string\n"
    "  -o, --format F          table (default), csv, json (one object per line) or\n"
    "                          arrow (an Arrow IPC stream on stdout)\n"
    "  -e, --explain           print the physical plan (an indented operator tree)\n"
    "                          instead of the rows\n"
    "  -a, --analyze           run the query, discard its rows, and print the plan with\n"
    "                          each operator's rows, batches, time and memory\n"
    "      --no-csr            every hop as hash joins (the fallback plan)\n"
    "  -h, --help              this help\n"
    "\n"
    "Nothing is printed until the first batch of rows has been read whole, so an\n"
    "error there leaves stdout empty; the exit status is 1 on any error.\n"
    "\n"
    "examples:\n"
    "  quiver cypher g 'MATCH (a:Person)-[:KNOWS]->(b) WHERE a.age > $age RETURN b.name' \\\n"
    "      --param age=30\n"
    "  quiver cypher g 'MATCH (a:Person {name: $name})-[:KNOWS*1..2]->(b) RETURN count(b)' \\\n"
    "      --param name=\"'Ann'\" --explain\n";

/* Whether s is a number as Cypher writes one: -?(0x[0-9a-fA-F]+ | 0o[0-7]+
 * | digits[.digits][e[-]digits] | .digits[e[-]digits]). */
static bool is_number(const char *s) {
  if (*s == '-') s++;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X' || s[1] == 'o' || s[1] == 'O')) {
    bool hex = s[1] == 'x' || s[1] == 'X';
    s += 2;
    if (!*s) return false;
    for (; *s; s++)
      if (!(hex ? strchr("0123456789abcdefABCDEF", *s) : strchr("01234567", *s))) return false;
    return true;
  }
  size_t digits = strspn(s, "0123456789");
  s += digits;
  if (*s == '.') {
    size_t frac = strspn(s + 1, "0123456789");
    if (!frac) return false;
    s += 1 + frac;
    digits += frac;
  }
  if (!digits) return false;
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '-') s++;
    size_t exp = strspn(s, "0123456789");
    if (!exp) return false;
    s += exp;
  }
  return *s == '\0';
}

/* VALUE as Cypher literal text (malloc'd): itself when it reads as a
 * literal (a number, null, true, false, or text that opens a string, list
 * or map: the engine checks the rest), else a string literal of it. */
static char *param_text(const char *v) {
  if (is_number(v) || !strcasecmp(v, "null") || !strcasecmp(v, "true") || !strcasecmp(v, "false") ||
      strchr("'\"[{", v[0]) != NULL)
    return v[0] ? strdup(v) : strdup("''");
  size_t n = strlen(v), k = 0;
  char *out = malloc(2 * n + 3);
  if (!out) return NULL;
  out[k++] = '\'';
  for (const char *c = v; *c; c++) {
    if (*c == '\'' || *c == '\\') out[k++] = '\\';
    out[k++] = *c;
  }
  out[k++] = '\'';
  out[k] = '\0';
  return out;
}

typedef struct cypher_cli {
  char **names;
  char **values;
  int32_t n;
} cypher_cli;

static void params_reset(cypher_cli *c) {
  for (int32_t i = 0; i < c->n; i++) {
    free(c->names[i]);
    free(c->values[i]);
  }
  free(c->names);
  free(c->values);
}

/* Adds NAME=VALUE; returns -1 on success, else the exit code. */
static int add_param(cypher_cli *c, const char *spec) {
  const char *eq = strchr(spec, '=');
  const char *name = spec[0] == '$' ? spec + 1 : spec;
  if (!eq || eq == name) return cli_usage("cypher", "--param wants NAME=VALUE, not '%s'", spec);
  size_t len = (size_t)(eq - name);
  for (int32_t i = 0; i < c->n; i++)
    if (strlen(c->names[i]) == len && !strncmp(c->names[i], name, len))
      return cli_usage("cypher", "--param %s given twice", c->names[i]);
  char **names = realloc(c->names, (size_t)(c->n + 1) * sizeof *names);
  if (names) c->names = names;
  char **values = names ? realloc(c->values, (size_t)(c->n + 1) * sizeof *values) : NULL;
  if (values) c->values = values;
  char *n = values ? strndup(name, len) : NULL;
  char *v = n ? param_text(eq + 1) : NULL;
  if (!v) {
    free(n);
    fputs("quiver cypher: out of memory\n", stderr);
    return 1;
  }
  c->names[c->n] = n;
  c->values[c->n] = v;
  c->n++;
  return -1;
}

/* Ctrl-C stops the query at its next batch (qv_cypher_options.cancel):
 * "quiver cypher: ...: cancelled" and exit status 130, as a shell reports
 * a command SIGINT ended. */
static volatile int interrupted;

static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
}

static int cypher_fail(const qv_error *err) {
  int rc = cli_fail("cypher", err);
  return err->code == QV_ERR_CANCELLED ? 130 : rc;
}

static qv_status reader_next(void *r, qv_batch **out, qv_error *err) {
  qv_batch_reader *reader = r;
  return reader->next(reader, out, err);
}

int cmd_cypher(int argc, char **argv) {
  static const struct option longopts[] = {{"param", required_argument, NULL, 'p'},
                                           {"format", required_argument, NULL, 'o'},
                                           {"explain", no_argument, NULL, 'e'},
                                           {"analyze", no_argument, NULL, 'a'},
                                           {"no-csr", no_argument, NULL, 'C'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  cypher_cli c = {0};
  qv_cypher_options o = QV_CYPHER_OPTIONS_INIT;
  cli_format fmt = FMT_TABLE;
  bool explain = false, analyze = false, format_given = false;
  qv_graph *g = NULL;
  qv_batch_reader *reader = NULL;
  qv_error err;
  int ch, rc = 0;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "p:o:eah", longopts, NULL)) != -1) {
    switch (ch) {
      case 'p':
        if ((rc = add_param(&c, optarg)) >= 0) goto done;
        rc = 0;
        break;
      case 'o':
        if (!cli_parse_format(optarg, &fmt) || fmt == FMT_STATS) {
          rc = cli_usage("cypher", "--format is table, csv, json or arrow, not '%s'", optarg);
          goto done;
        }
        format_given = true;
        break;
      case 'e': explain = true; break;
      case 'a': explain = analyze = true; break;
      case 'C': o.use_csr = false; break;
      case 'h': fputs(help, stdout); goto done;
      default: rc = cli_usage("cypher", "unknown option '%s'", argv[optind - 1]); goto done;
    }
  }
  if (argc - optind < 2) {
    rc = cli_usage("cypher", "wants GRAPH (a folder made by 'quiver graph create') and 'QUERY'");
    goto done;
  }
  if (argc - optind > 2) {
    rc = cli_usage("cypher", "unexpected argument '%s' (quote the query)", argv[optind + 2]);
    goto done;
  }
  if (explain && format_given) {
    rc = cli_usage("cypher", "--explain and --analyze print a plan; drop --format");
    goto done;
  }
  const char *path = argv[optind], *query = argv[optind + 1];
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  o.cancel = &interrupted;
  qv_cypher_params params = {c.n, (const char *const *)c.names, (const char *const *)c.values};
  if (qv_graph_open(path, &g, &err) != QV_OK) {
    rc = cli_fail("cypher", &err);
    goto done;
  }
  if (explain) {
    char *plan = NULL;
    double t0 = qv_now_seconds();
    if (qv_cypher_explain(g, query, c.n ? &params : NULL, &o, analyze, &plan, &err) != QV_OK) {
      rc = cypher_fail(&err);
      goto done;
    }
    fputs(plan, stdout);
    if (analyze) printf("  time: %.3f s\n", qv_now_seconds() - t0);
    qv_free(plan);
    goto done;
  }
  if (qv_cypher_query(g, query, c.n ? &params : NULL, &o, &reader, &err) != QV_OK) {
    rc = cypher_fail(&err);
    goto done;
  }
  int64_t rows;
  rc = cli_write_batches("cypher", reader->schema(reader), reader_next, reader, fmt, &rows);
  if (rc != 0 && interrupted) rc = 130;
done:
  qv_batch_reader_destroy(reader);
  qv_graph_close(g);
  params_reset(&c);
  return rc;
}
