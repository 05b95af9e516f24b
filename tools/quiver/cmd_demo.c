/* quiver demo: the main job a newcomer sees.  Creates (if absent) a dataset
 * shaped like the pushdown benchmark — id int64, val float64 uniform in
 * [0,1), cat string with 8 values, text string (a rare word in about 0.1% of
 * rows), ts timestamp, payload 256-byte string — then runs `val > 0.999`
 * projecting id, payload with pushdown on and off, each in its own process,
 * and prints rows, time, peak memory and pages pruned for each. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

static const char help[] =
    "usage: quiver demo [--rows N] [--path DIR]\n"
    "\n"
    "Creates the demo dataset in DIR (default: demo-data/demo-<rows>) unless it is\n"
    "already there, then runs the filter `val > 0.999` projecting id, payload with\n"
    "predicate pushdown on and off, each in a fresh process, and prints the rows,\n"
    "wall time, peak memory (RSS) and pages pruned of each run.\n"
    "\n"
    "options:\n"
    "  -r, --rows N     rows to generate (default 2000000; 2M, 500k also work)\n"
    "  -p, --path DIR   where the dataset lives\n"
    "      --create-only  create the dataset, skip the timing\n"
    "  -h, --help       this help\n";

/* ---- the generator ------------------------------------------------------ */

typedef struct gen {
  qv_schema schema;
  int64_t rows, next;
  uint64_t rng;
} gen;

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static const char *const words[] = {"river", "stone",  "amber", "delta",  "orbit",  "maple",  "cobalt", "lumen",
                                    "pixel", "quartz", "ember", "vector", "harbor", "tundra", "sierra", "nectar"};
#define RARE_WORD "quiverling"

static qv_status gen_next(qv_batch_reader *r, qv_batch **out, qv_error *err) {
  gen *g = r->private_data;
  *out = NULL;
  if (g->next >= g->rows) return QV_OK;
  int64_t n = g->rows - g->next < 65536 ? g->rows - g->next : 65536;
  qv_builder b[6];
  for (int i = 0; i < 6; i++) QV_RETURN_NOT_OK(qv_builder_init(&b[i], &g->schema.fields[i].type, err));
  const int64_t epoch_2024_us = 1704067200LL * 1000000;
  char text[128], payload[257], cat[4];
  qv_status st = QV_OK;
  for (int64_t i = 0; i < n && st == QV_OK; i++) {
    int64_t id = g->next + i;
    uint64_t r1 = splitmix(&g->rng), r2 = splitmix(&g->rng);
    double val = (double)(r1 >> 11) * 0x1.0p-53;
    snprintf(cat, sizeof cat, "c%d", (int)(r2 & 7));
    int nw = 3 + (int)((r2 >> 3) % 6), len = 0;
    bool rare = (r2 >> 16) % 1000 == 0;
    for (int w = 0; w < nw; w++) {
      const char *word = rare && w == nw / 2 ? RARE_WORD : words[(r2 >> (20 + 4 * w)) & 15];
      len += snprintf(text + len, sizeof text - (size_t)len, "%s%s", w ? " " : "", word);
    }
    /* 95 printable ASCII symbols at random: about 6.6 bits per byte, so
     * compression cannot save much and pages stay raw (partially readable). */
    for (int k = 0; k < 256; k += 8) {
      uint64_t x = splitmix(&g->rng);
      for (int q = 0; q < 8; q++, x >>= 8) payload[k + q] = (char)(' ' + (x & 0xFF) % 95);
    }
    payload[256] = '\0';
    st = qv_builder_append_int(&b[0], id);
    if (st == QV_OK) st = qv_builder_append_double(&b[1], val);
    if (st == QV_OK) st = qv_builder_append_cstr(&b[2], cat);
    if (st == QV_OK) st = qv_builder_append_bytes(&b[3], text, len);
    if (st == QV_OK) st = qv_builder_append_int(&b[4], epoch_2024_us + id * 1000000);
    if (st == QV_OK) st = qv_builder_append_bytes(&b[5], payload, 256);
  }
  qv_array *cols[6] = {0};
  for (int i = 0; i < 6; i++) {
    if (st == QV_OK) st = qv_builder_finish(&b[i], &cols[i], err);
    else qv_builder_reset(&b[i]);
  }
  if (st != QV_OK) {
    for (int i = 0; i < 6; i++) qv_array_release(cols[i]);
    return qv_error_set(err, st, "demo: cannot generate rows");
  }
  g->next += n;
  return qv_batch_make(&g->schema, cols, n, out, err);
}

static const qv_schema *gen_schema(qv_batch_reader *r) { return &((gen *)r->private_data)->schema; }
static void gen_destroy(qv_batch_reader *r) { (void)r; }

static qv_status demo_schema(qv_schema *s, qv_error *err) {
  static const char *const names[] = {"id", "val", "cat", "text", "ts", "payload"};
  static const char *const types[] = {"int64", "float64", "string", "string", "timestamp[us]", "string"};
  for (int i = 0; i < 6; i++) {
    qv_field f = {(char *)names[i], QV_DATATYPE_INIT, true};
    QV_RETURN_NOT_OK(qv_datatype_parse(types[i], &f.type, err));
    qv_status st = qv_schema_add(s, &f, err);
    qv_datatype_reset(&f.type);
    QV_RETURN_NOT_OK(st);
  }
  return QV_OK;
}

static void on_progress(void *ctx, int64_t rows) {
  const int64_t *total = ctx;
  if (!isatty(2)) return;
  int pct = (int)(100 * rows / (*total ? *total : 1));
  char bar[41];
  for (int i = 0; i < 40; i++) bar[i] = i < pct * 40 / 100 ? '#' : '.';
  bar[40] = '\0';
  fprintf(stderr, "\rgenerating [%s] %3d%%  %lld row%s", bar, pct, (long long)rows, cli_plural(rows));
}

static int create_dataset(const char *path, int64_t rows) {
  qv_error err;
  gen g = {QV_SCHEMA_INIT, rows, 0, 42};
  if (demo_schema(&g.schema, &err) != QV_OK) return cli_fail("demo", &err);
  qv_batch_reader r = {gen_next, gen_schema, gen_destroy, &g};
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  wo.progress = on_progress;
  wo.progress_ctx = &rows;
  double t0 = qv_now_seconds();
  fprintf(stderr, "creating %s with %lld row%s...\n", path, (long long)rows, cli_plural(rows));
  qv_status st = qv_dataset_write(path, &r, &wo, NULL, &err);
  if (isatty(2)) fputs("\r\033[K", stderr);
  qv_schema_reset(&g.schema);
  if (st != QV_OK) return cli_fail("demo", &err);
  fprintf(stderr, "created in %.1f s\n", qv_now_seconds() - t0);
  return 0;
}

/* ---- one measured run, in a child process --------------------------------- */

static long long field(const char *stats, const char *key) {
  const char *p = strstr(stats, key);
  return p ? atoll(p + strlen(key)) : -1;
}

typedef struct run_result {
  char stats[512];
  double seconds;
  long peak_rss_kib;
} run_result;

static int measure(const char *path, bool pushdown, run_result *res) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  double t0 = qv_now_seconds();
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    char *args[] = {"quiver",   "scan",       (char *)path, "--filter", "val > 0.999",
                    "--select", "id,payload", "--format",   "stats",    pushdown ? NULL : "--no-pushdown",
                    NULL};
    execv("/proc/self/exe", args);
    _exit(127);
  }
  close(fds[1]);
  size_t n = 0;
  ssize_t k;
  while ((k = read(fds[0], res->stats + n, sizeof res->stats - 1 - n)) > 0) n += (size_t)k;
  res->stats[n] = '\0';
  close(fds[0]);
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) return -1;
  res->seconds = qv_now_seconds() - t0;
  /* the child's own VmHWM, which it prints: ru_maxrss also counts what the
   * child inherited from this process at fork, before the exec (after
   * writing the dataset here, more than the scan ever uses) */
  long long own = field(res->stats, "peak_rss_kib=");
  res->peak_rss_kib = own > 0 ? (long)own : ru.ru_maxrss;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int cmd_demo(int argc, char **argv) {
  static const struct option longopts[] = {{"rows", required_argument, NULL, 'r'},
                                           {"path", required_argument, NULL, 'p'},
                                           {"create-only", no_argument, NULL, 'C'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int64_t rows = 2000000;
  const char *path = NULL;
  bool create_only = false;
  int ch;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "r:p:h", longopts, NULL)) != -1) {
    switch (ch) {
      case 'r':
        if (!cli_parse_count(optarg, &rows) || rows == 0) return cli_usage("demo", "--rows wants a positive number");
        break;
      case 'p': path = optarg; break;
      case 'C': create_only = true; break;
      case 'h': fputs(help, stdout); return 0;
      default: return cli_usage("demo", "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind < argc) return cli_usage("demo", "unexpected argument '%s'", argv[optind]);
  char defpath[256];
  if (!path) {
    snprintf(defpath, sizeof defpath, "demo-data/demo-%lld", (long long)rows);
    mkdir("demo-data", 0755);
    path = defpath;
  }
  qv_dataset *ds;
  qv_error err;
  if (qv_dataset_open(path, 0, &ds, &err) == QV_OK) {
    int64_t have = qv_dataset_count_rows(ds);
    qv_dataset_close(ds);
    if (have != rows) {
      fprintf(stderr, "quiver demo: %s already holds %lld row%s, not %lld; pass --path for a new one\n", path,
              (long long)have, cli_plural(have), (long long)rows);
      return 1;
    }
    fprintf(stderr, "using %s (%lld row%s)\n", path, (long long)rows, cli_plural(rows));
  } else if (err.code == QV_ERR_NOT_FOUND) {
    int rc = create_dataset(path, rows);
    if (rc) return rc;
  } else {
    return cli_fail("demo", &err);
  }
  if (create_only) return 0;

  printf("\nquery: SELECT id, payload WHERE val > 0.999   (%lld row%s, each run in a fresh process)\n\n",
         (long long)rows, cli_plural(rows));
  printf("%-14s %10s %10s %14s %14s\n", "pushdown", "rows", "time (s)", "peak RSS (MiB)", "pages pruned");
  run_result res[2];
  for (int i = 0; i < 2; i++) {
    bool on = i == 0;
    if (measure(path, on, &res[i]) != 0) {
      fprintf(stderr, "quiver demo: the %s run failed: %s\n", on ? "pushdown" : "no-pushdown", res[i].stats);
      return 1;
    }
    printf("%-14s %10lld %10.3f %14.1f %8lld / %lld\n", on ? "on" : "off", field(res[i].stats, "rows="), res[i].seconds,
           (double)res[i].peak_rss_kib / 1024.0, field(res[i].stats, "pages_pruned="), field(res[i].stats, " pages="));
  }
  printf("\npushdown on is %.1fx faster and reads %.1fx fewer bytes than pushdown off.\n",
         res[1].seconds / (res[0].seconds > 0 ? res[0].seconds : 1e-9),
         (double)field(res[1].stats, "bytes_read=") /
             (double)(field(res[0].stats, "bytes_read=") > 0 ? field(res[0].stats, "bytes_read=") : 1));
  printf("Try: %s explain --analyze %s --filter \"val > 0.999\" --select id,payload\n", cli_program, path);
  return 0;
}
