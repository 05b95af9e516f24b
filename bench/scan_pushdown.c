/* bench/scan_pushdown: predicate pushdown on vs off, side by side in one run.
 *
 * On the demo dataset (id, val, cat, text, ts, payload[256]) it runs
 * `val > 0.999` projecting id, payload with pushdown on and off, each
 * measurement in its own process (`quiver scan ... --format stats`), and
 * records wall time and the child's peak RSS from wait4.  It repeats each
 * measurement and keeps the median time, at every row count asked for, and
 * prints the on/off ratio and how peak RSS moves as the rows grow.
 *
 *   bench_scan_pushdown --quiver build/quiver [--rows 2M,10M] [--repeat 3]
 *                       [--data DIR] [--json OUT.json]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct sample {
  double seconds;
  long rss_kib;
  long long rows, bytes_read;
} sample;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run(char *const argv[], char *out, size_t cap, sample *s) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  double t0 = now();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    execv(argv[0], argv);
    _exit(127);
  }
  close(fds[1]);
  size_t n = 0;
  ssize_t k;
  while (out && (k = read(fds[0], out + n, cap - 1 - n)) > 0) n += (size_t)k;
  if (out) out[n] = '\0';
  close(fds[0]);
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) return -1;
  if (s) {
    s->seconds = now() - t0;
    s->rss_kib = ru.ru_maxrss;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static long long field(const char *text, const char *key) {
  const char *p = strstr(text, key);
  return p ? atoll(p + strlen(key)) : -1;
}

static int cmp_sample(const void *a, const void *b) {
  double x = ((const sample *)a)->seconds, y = ((const sample *)b)->seconds;
  return (x > y) - (x < y);
}

static int measure(const char *quiver, const char *path, int pushdown, int repeat, sample *median) {
  sample s[16];
  for (int i = 0; i < repeat; i++) {
    char out[512];
    char *argv[] = {(char *)quiver,
                    "scan",
                    (char *)path,
                    "--filter",
                    "val > 0.999",
                    "--select",
                    "id,payload",
                    "--format",
                    "stats",
                    pushdown ? NULL : "--no-pushdown",
                    NULL};
    if (run(argv, out, sizeof out, &s[i]) != 0) {
      fprintf(stderr, "bench: scan failed: %s\n", out);
      return -1;
    }
    s[i].rows = field(out, "rows=");
    s[i].bytes_read = field(out, "bytes_read=");
  }
  long max_rss = 0;
  for (int i = 0; i < repeat; i++)
    if (s[i].rss_kib > max_rss) max_rss = s[i].rss_kib;
  qsort(s, (size_t)repeat, sizeof s[0], cmp_sample);
  *median = s[repeat / 2];
  median->rss_kib = max_rss;
  return 0;
}

int main(int argc, char **argv) {
  const char *quiver = "build/quiver", *data = "demo-data", *json = NULL;
  char rows_list[256] = "2000000,10000000";
  int repeat = 3;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quiver") && i + 1 < argc) quiver = argv[++i];
    else if (!strcmp(argv[i], "--rows") && i + 1 < argc) snprintf(rows_list, sizeof rows_list, "%s", argv[++i]);
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--data") && i + 1 < argc) data = argv[++i];
    else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
    else {
      fprintf(stderr, "usage: %s --quiver PATH [--rows 2000000,10000000] [--repeat 3] [--data DIR] [--json OUT]\n",
              argv[0]);
      return 2;
    }
  }
  if (repeat < 1 || repeat > 15) repeat = 3;
  mkdir(data, 0755);
  FILE *js = json ? fopen(json, "w") : NULL;
  if (js) fprintf(js, "{\"query\": \"val > 0.999 select id, payload\", \"runs\": [");
  printf("query: val > 0.999, select id, payload; median of %d runs, each in its own process\n\n", repeat);
  printf("%11s  %-8s %10s %10s %14s %14s\n", "rows", "pushdown", "result", "time (s)", "peak RSS (MiB)", "bytes read");
  double first_rss_on = 0;
  int nrun = 0;
  for (char *tok = strtok(rows_list, ","); tok; tok = strtok(NULL, ",")) {
    char path[512], rows_arg[64];
    long long rows = atoll(tok);
    if (strchr(tok, 'M') || strchr(tok, 'm')) rows *= 1000000;
    snprintf(rows_arg, sizeof rows_arg, "%lld", rows);
    snprintf(path, sizeof path, "%s/demo-%lld", data, rows);
    char *create[] = {(char *)quiver, "demo", "--rows", rows_arg, "--path", path, "--create-only", NULL};
    if (run(create, NULL, 0, NULL) != 0) {
      fprintf(stderr, "bench: cannot create %s\n", path);
      return 1;
    }
    sample on, off;
    if (measure(quiver, path, 1, repeat, &on) || measure(quiver, path, 0, repeat, &off)) return 1;
    printf("%11lld  %-8s %10lld %10.3f %14.1f %14lld\n", rows, "on", on.rows, on.seconds, on.rss_kib / 1024.0,
           on.bytes_read);
    printf("%11lld  %-8s %10lld %10.3f %14.1f %14lld\n", rows, "off", off.rows, off.seconds, off.rss_kib / 1024.0,
           off.bytes_read);
    printf("%11s  on/off speed-up %.1fx; peak RSS on %.1f MiB vs off %.1f MiB\n", "", off.seconds / on.seconds,
           on.rss_kib / 1024.0, off.rss_kib / 1024.0);
    if (first_rss_on == 0) first_rss_on = on.rss_kib;
    else printf("%11s  peak RSS with pushdown vs the first row count: %.2fx\n", "", on.rss_kib / first_rss_on);
    if (js)
      fprintf(js,
              "%s{\"rows\": %lld, \"on\": {\"seconds\": %.4f, \"peak_rss_kib\": %ld, \"bytes_read\": %lld}, "
              "\"off\": {\"seconds\": %.4f, \"peak_rss_kib\": %ld, \"bytes_read\": %lld}}",
              nrun ? ", " : "", rows, on.seconds, on.rss_kib, on.bytes_read, off.seconds, off.rss_kib, off.bytes_read);
    nrun++;
  }
  if (js) {
    fprintf(js, "]}\n");
    fclose(js);
  }
  return 0;
}
