/* quiver import: CSV or Arrow IPC into a dataset (create, append, overwrite). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char help[] =
    "usage: quiver import SOURCE DATASET [options]\n"
    "\n"
    "Writes the rows of SOURCE as a new version of DATASET (a directory).  SOURCE is\n"
    "a CSV file or an Arrow IPC file or stream (recognised by its magic bytes);\n"
    "'-' reads standard input.  Arrow input is read a message at a time; an Arrow\n"
    "file (not stream) coming through a pipe is first copied to an unlinked file\n"
    "in $TMPDIR (default /tmp), since its footer is at its end.  The import is all\n"
    "or nothing: on any error no version is published.\n"
    "\n"
    "options:\n"
    "  -m, --mode M           create (default: fails if DATASET exists), append, overwrite\n"
    "  -d, --delimiter C      CSV field delimiter (default ','; 'tab' for a tab)\n"
    "      --no-header        the CSV has no header line (columns are c0, c1, ...)\n"
    "      --columns A,B,...  name the CSV's columns (one name each; a header line is\n"
    "                         still skipped unless --no-header), e.g. for typed headers\n"
    "                         such as 'id:ID(Person)'\n"
    "      --null TEXT        a CSV null marker (repeatable; default: empty, NA, null, NULL)\n"
    "  -t, --type COL=TYPE    the type of a CSV column instead of inferring it\n"
    "                         (repeatable), e.g. --type id=int32 --type ts=timestamp[ms]\n"
    "      --infer-rows N     CSV rows to infer types from (default 1000; 0: none, all\n"
    "                         undeclared columns are string; 'all': the whole file,\n"
    "                         which is then held in memory)\n"
    "      --page-rows N      rows per page (default 8192)\n"
    "      --max-rows-per-file N   rows per data file (default 1048576)\n"
    "      --max-bytes-per-file N  also end a data file once it holds N bytes (within a\n"
    "                         page of it; e.g. 256M; default: no limit)\n"
    "  -c, --compression C    auto (default: lz4, zstd where it saves another quarter of\n"
    "                         a page, raw where neither saves a quarter), none, zstd, lz4\n"
    "  -q, --quiet            no progress line\n"
    "  -h, --help             this help\n"
    "\n"
    "CSV types are inferred from the first 1000 rows: bool, int64, float64,\n"
    "date32 (YYYY-MM-DD), timestamp[us] (YYYY-MM-DD HH:MM:SS[.ffffff]) or string.\n"
    "A later value that does not fit its column's type stops the import (nothing\n"
    "is written); the message suggests the --type to declare.  Column names must\n"
    "be unique (a struct's field names too).\n";

typedef struct progress {
  bool enabled;
  double start, last;
  const char *what;
  int64_t total_bytes; /* size of a regular input file, else 0 */
  int64_t bytes_read;  /* updated by the CSV reader */
} progress;

/* A bar by bytes when the input's size is known (a CSV file), else a
 * running count of rows. */
static void on_progress(void *ctx, int64_t rows) {
  progress *p = ctx;
  double now = qv_now_seconds();
  if (!p->enabled || now - p->last < 0.1) return;
  p->last = now;
  double secs = now - p->start;
  if (p->total_bytes > 0) {
    int pct = (int)(100 * (p->bytes_read < p->total_bytes ? p->bytes_read : p->total_bytes) / p->total_bytes);
    char bar[21];
    for (int i = 0; i < 20; i++) bar[i] = i < pct / 5 ? '#' : '.';
    bar[20] = '\0';
    /* \033[K clears what a longer previous line left; no trailing spaces, so
     * the line does not wrap on a narrow terminal. */
    fprintf(stderr, "\rimporting [%s] %3d%%  %lld row%s  %.1f s\033[K", bar, pct, (long long)rows, cli_plural(rows),
            secs);
  } else {
    fprintf(stderr, "\rimporting: %lld row%s  %.1f s  %.0f rows/s\033[K", (long long)rows, cli_plural(rows), secs,
            secs > 0 ? (double)rows / secs : 0.0);
  }
}

/* An Arrow IPC file ("ARROW1") or stream (0xFFFFFFFF continuation). */
static bool arrow_magic(const unsigned char *head, size_t n) {
  if (n >= 6 && !memcmp(head, "ARROW1", 6)) return true;
  return n >= 4 && head[0] == 0xFF && head[1] == 0xFF && head[2] == 0xFF && head[3] == 0xFF;
}

/* Standard input that cannot seek (a pipe, a terminal): its first bytes
 * are read to tell CSV from Arrow, then replayed before the rest by the
 * FILE that replaces stdin (glibc lets a program assign stdin), so the CSV
 * or stream reader sees every byte.  The rest is read with read(2), which
 * returns what a pipe has rather than waiting for a full buffer. */
typedef struct replay {
  unsigned char head[8];
  size_t n, at;
} replay;

static ssize_t replay_read(void *cookie, char *buf, size_t size) {
  replay *r = cookie;
  if (r->at < r->n) {
    size_t k = r->n - r->at < size ? r->n - r->at : size;
    memcpy(buf, r->head + r->at, k);
    r->at += k;
    return (ssize_t)k;
  }
  ssize_t got;
  while ((got = read(STDIN_FILENO, buf, size)) < 0 && errno == EINTR) {}
  return got;
}

/* Reads up to 8 bytes of standard input and makes stdin replay them;
 * *head and *n get them.  False with err set when standard input cannot
 * be read (bytes it took would be lost to the reader). */
static bool peek_stdin(unsigned char *head, size_t *n, qv_error *err) {
  static replay r; /* one standard input per process */
  while (r.n < sizeof r.head) {
    ssize_t got = read(STDIN_FILENO, r.head + r.n, sizeof r.head - r.n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      qv_error_set(err, QV_ERR_IO, "<stdin>: cannot read: %s", strerror(errno));
      return false;
    }
    if (got == 0) break;
    r.n += (size_t)got;
  }
  cookie_io_functions_t io = {replay_read, NULL, NULL, NULL};
  FILE *f = fopencookie(&r, "r", io);
  if (!f) {
    qv_error_set(err, QV_ERR_NOMEM, "out of memory");
    return false;
  }
  memcpy(head, r.head, r.n);
  *n = r.n;
  stdin = f;
  return true;
}

/* Copies the rest of in into an unlinked file in $TMPDIR (default /tmp),
 * positioned at its start: an Arrow file read from a pipe, whose footer
 * (at the end) the reader needs first.  NULL with err set on failure. */
static FILE *spool(FILE *in, qv_error *err) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  char path[PATH_MAX];
  int len = snprintf(path, sizeof path, "%s/quiver-import-XXXXXX", dir);
  int fd = len < 0 || len >= (int)sizeof path ? (errno = ENAMETOOLONG, -1) : mkostemp(path, O_CLOEXEC);
  if (fd < 0) {
    qv_error_set(err, QV_ERR_IO, "<stdin>: an Arrow file through a pipe is copied to %s first: %s", dir,
                 strerror(errno));
    return NULL;
  }
  unlink(path);
  FILE *out = fdopen(fd, "w+b");
  if (!out) {
    close(fd);
    qv_error_set(err, QV_ERR_NOMEM, "out of memory");
    return NULL;
  }
  static char buf[1 << 16];
  size_t got;
  int e = 0;
  while ((got = fread(buf, 1, sizeof buf, in)) > 0)
    if (fwrite(buf, 1, got, out) != got) {
      e = errno;
      break;
    }
  if (!e && ferror(in)) e = EIO; /* the replay's read(2) error is not kept */
  if (!e && (fflush(out) != 0 || fseeko(out, 0, SEEK_SET) != 0)) e = errno;
  if (e) {
    qv_error_set(err, QV_ERR_IO, "<stdin>: copying the Arrow file from the pipe to %s: %s", dir, strerror(e));
    fclose(out);
    return NULL;
  }
  return out;
}

/* Whether the input is Arrow (else CSV).  Standard input that cannot seek
 * is peeked at (peek_stdin); an Arrow file format there is spooled, and
 * *spooled gets the copy to read instead. */
static bool is_arrow(const char *path, FILE **spooled, qv_error *err) {
  unsigned char head[8] = {0};
  size_t n = 0;
  *spooled = NULL;
  if (!strcmp(path, "-")) {
    off_t at = ftello(stdin);
    if (at >= 0) { /* a redirected file: look at its head, then go back */
      n = fread(head, 1, sizeof head, stdin);
      return fseeko(stdin, at, SEEK_SET) == 0 && arrow_magic(head, n);
    }
    if (!peek_stdin(head, &n, err)) return false;
    if (n >= 6 && !memcmp(head, "ARROW1", 6)) *spooled = spool(stdin, err);
    return arrow_magic(head, n);
  }
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  n = fread(head, 1, sizeof head, f);
  fclose(f);
  return arrow_magic(head, n);
}

int cmd_import(int argc, char **argv) {
  static const struct option longopts[] = {{"mode", required_argument, NULL, 'm'},
                                           {"delimiter", required_argument, NULL, 'd'},
                                           {"no-header", no_argument, NULL, 'H'},
                                           {"columns", required_argument, NULL, 'C'},
                                           {"null", required_argument, NULL, 'N'},
                                           {"type", required_argument, NULL, 't'},
                                           {"infer-rows", required_argument, NULL, 'I'},
                                           {"page-rows", required_argument, NULL, 'p'},
                                           {"max-rows-per-file", required_argument, NULL, 'F'},
                                           {"max-bytes-per-file", required_argument, NULL, 'B'},
                                           {"compression", required_argument, NULL, 'c'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  qv_write_options wo = QV_WRITE_OPTIONS_INIT;
  qv_csv_options co = QV_CSV_OPTIONS_INIT;
  const char *nulls[65];
  int n_nulls = 0;
  qv_csv_column_type types[256];
  const char *names[256];
  int n_names = 0;
  int n_types = 0;
  bool quiet = false;
  int rc = 0, ch;
  int64_t n;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "m:d:t:c:qh", longopts, NULL)) != -1) {
    switch (ch) {
      case 'm':
        if (!strcmp(optarg, "create")) wo.mode = QV_WRITE_CREATE;
        else if (!strcmp(optarg, "append")) wo.mode = QV_WRITE_APPEND;
        else if (!strcmp(optarg, "overwrite")) wo.mode = QV_WRITE_OVERWRITE;
        else return cli_usage("import", "--mode is create, append or overwrite, not '%s'", optarg);
        break;
      case 'd':
        if (!strcmp(optarg, "tab") || !strcmp(optarg, "\\t")) co.delimiter = '\t';
        else if (strlen(optarg) == 1) co.delimiter = optarg[0];
        else return cli_usage("import", "--delimiter wants one character, not '%s'", optarg);
        break;
      case 'H': co.header = false; break;
      case 'C':
        n_names = 0;
        for (char *p = optarg, *comma;; p = comma + 1) {
          if ((comma = strchr(p, ','))) *comma = '\0';
          if (!*p) return cli_usage("import", "--columns wants names separated by commas, none empty");
          if (n_names == 256) return cli_usage("import", "--columns names at most 256 columns");
          names[n_names++] = p;
          if (!comma) break;
        }
        break;
      case 'N':
        if (n_nulls == 64) return cli_usage("import", "too many --null markers");
        nulls[n_nulls++] = optarg;
        break;
      case 't': {
        char *eq = strchr(optarg, '=');
        if (!eq || eq == optarg || !eq[1]) return cli_usage("import", "--type wants COLUMN=TYPE, not '%s'", optarg);
        if (n_types == 256) return cli_usage("import", "too many --type overrides");
        *eq = '\0';
        types[n_types].name = optarg;
        types[n_types].type = eq + 1;
        n_types++;
        break;
      }
      case 'I':
        if (!strcmp(optarg, "all")) co.infer_rows = -1;
        else if (cli_parse_count(optarg, &n)) co.infer_rows = n;
        else return cli_usage("import", "--infer-rows wants a number of rows or 'all', not '%s'", optarg);
        break;
      case 'p':
        if (!cli_parse_count(optarg, &n) || n == 0) return cli_usage("import", "--page-rows wants a positive number");
        wo.page_rows = n;
        break;
      case 'F':
        if (!cli_parse_count(optarg, &n) || n == 0)
          return cli_usage("import", "--max-rows-per-file wants a positive number");
        wo.max_rows_per_file = n;
        break;
      case 'B':
        if (!cli_parse_count(optarg, &n) || n == 0)
          return cli_usage("import", "--max-bytes-per-file wants a positive number");
        wo.max_bytes_per_file = n;
        break;
      case 'c':
        if (!strcmp(optarg, "auto")) wo.compression = QV_COMPRESSION_AUTO;
        else if (!strcmp(optarg, "none")) wo.compression = QV_COMPRESSION_NONE;
        else if (!strcmp(optarg, "zstd")) wo.compression = QV_COMPRESSION_ZSTD;
        else if (!strcmp(optarg, "lz4")) wo.compression = QV_COMPRESSION_LZ4;
        else return cli_usage("import", "--compression is auto, none, zstd or lz4, not '%s'", optarg);
        break;
      case 'q': quiet = true; break;
      case 'h': fputs(help, stdout); return 0;
      default: return cli_usage("import", "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (argc - optind != 2) return cli_usage("import", "wants SOURCE and DATASET");
  const char *src = argv[optind], *dst = argv[optind + 1];
  if (n_nulls) {
    nulls[n_nulls] = NULL;
    co.null_values = nulls;
  }
  co.column_names = names;
  co.n_column_names = n_names;
  co.column_types = types;
  co.n_column_types = n_types;

  qv_error err;
  qv_batch_reader *reader = NULL;
  qv_status st;
  progress p = {!quiet && isatty(2), qv_now_seconds(), 0, src, 0, 0};
  struct stat sb;
  if (strcmp(src, "-") && stat(src, &sb) == 0 && S_ISREG(sb.st_mode)) p.total_bytes = (int64_t)sb.st_size;
  co.bytes_read = &p.bytes_read;
  FILE *spooled = NULL;
  err.code = QV_OK;
  bool arrow = is_arrow(src, &spooled, &err);
  if (err.code != QV_OK) return cli_fail("import", &err);
  if (spooled) st = qv_ipc_read_file(spooled, &reader, &err);
  else if (arrow) st = strcmp(src, "-") ? qv_ipc_read_path(src, &reader, &err) : qv_ipc_read_file(stdin, &reader, &err);
  else st = qv_csv_open(src, &co, &reader, &err);
  if (st != QV_OK) {
    if (spooled) fclose(spooled);
    if (arrow && !strcmp(src, "-")) qv_error_prefix(&err, st, "<stdin>"); /* a path names itself */
    return cli_fail("import", &err);
  }

  /* The writer refuses such a schema too, before it creates anything; asked
   * here, the message can name the input. */
  st = qv_dataset_check_schema(reader->schema(reader), &err);
  if (st != QV_OK) {
    qv_error_prefix(&err, st, "%s", strcmp(src, "-") ? src : "<stdin>");
    qv_batch_reader_destroy(reader);
    if (spooled) fclose(spooled);
    return cli_fail("import", &err);
  }

  if (arrow) p.total_bytes = 0; /* the IPC reader reports rows only */
  wo.progress = on_progress;
  wo.progress_ctx = &p;
  int64_t version;
  st = qv_dataset_write(dst, reader, &wo, &version, &err);
  if (p.enabled) fputs("\r\033[K", stderr);
  qv_batch_reader_destroy(reader);
  if (spooled) fclose(spooled);
  /* a reader's error names its source; stdin's Arrow reader does not know it */
  if (st != QV_OK && arrow && !strcmp(src, "-") && strncmp(err.message, "<stdin>", 7))
    qv_error_prefix(&err, st, "<stdin>");
  if (st != QV_OK) {
    cli_fail("import", &err);
    /* csv.c's message for a value its inferred column type does not take */
    if (!arrow && strstr(err.message, " was inferred from the first "))
      fputs(
          "quiver import: declare a column's type with --type COL=TYPE, or infer from more rows with "
          "--infer-rows N (or all)\n",
          stderr);
    return 1;
  }
  qv_dataset *ds;
  if (qv_dataset_open(dst, version, &ds, &err) != QV_OK) return cli_fail("import", &err);
  int32_t nf = qv_dataset_num_fragments(ds);
  int64_t total = qv_dataset_count_rows(ds);
  fprintf(stderr, "%s: version %lld, %lld row%s in %d fragment%s (%.2f s)\n", dst, (long long)version, (long long)total,
          total == 1 ? "" : "s", nf, nf == 1 ? "" : "s", qv_now_seconds() - p.start);
  qv_dataset_close(ds);
  return rc;
}
