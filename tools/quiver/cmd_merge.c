/* quiver merge: upsert a source (a dataset or an Arrow IPC file) into a
 * dataset on key columns (qv_dataset_merge). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char help[] =
    "usage: quiver merge DATASET SOURCE --on COL[,COL...] [options]\n"
    "\n"
    "Merges (upserts) the rows of SOURCE into DATASET as one new version.  A row of\n"
    "DATASET whose key (the --on columns) equals a SOURCE row's is matched; matched\n"
    "rows are updated (the old row marked deleted, the new one written to a new\n"
    "fragment), kept or deleted; SOURCE rows matching nothing are inserted.  A key\n"
    "with a null in any of its columns matches nothing.  SOURCE is a quiver dataset\n"
    "(a directory; its latest version) or an Arrow IPC file or stream, with the\n"
    "dataset's columns and types.  Two SOURCE rows with the same key are an error\n"
    "that names the key; nothing is committed then.\n"
    "\n"
    "options:\n"
    "      --on A,B              the key columns (required)\n"
    "      --when-matched W      update (default), nothing, delete\n"
    "      --update-columns A,B  with update: take only these columns from SOURCE\n"
    "      --no-insert           do not insert unmatched SOURCE rows\n"
    "      --delete-not-matched  delete the DATASET rows SOURCE does not match\n"
    "  -h, --help                this help\n"
    "\n"
    "Prints the rows inserted, updated and deleted, and the new version.\n";

/* Splits a comma-separated list in place into *out (malloc'd). */
static int split_list(char *text, const char ***out) {
  int n = 1;
  for (const char *p = text; *p; p++) n += *p == ',';
  const char **v = calloc((size_t)n + 1, sizeof *v);
  if (!v) return -1;
  int k = 0;
  for (char *tok = strtok(text, ","); tok; tok = strtok(NULL, ",")) v[k++] = tok;
  *out = v;
  return k;
}

static qv_status open_source(const char *src, qv_batch_reader **out, qv_error *err) {
  struct stat sb;
  if (stat(src, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    qv_scanner *sc = NULL;
    QV_RETURN_NOT_OK(qv_scanner_open(src, NULL, &sc, err));
    return qv_scanner_reader(sc, out, err); /* the reader owns the scanner */
  }
  return qv_ipc_read_path(src, out, err);
}

int cmd_merge(int argc, char **argv) {
  static const struct option longopts[] = {{"on", required_argument, NULL, 'o'},
                                           {"when-matched", required_argument, NULL, 'w'},
                                           {"update-columns", required_argument, NULL, 'u'},
                                           {"no-insert", no_argument, NULL, 'n'},
                                           {"delete-not-matched", no_argument, NULL, 'd'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  qv_merge_options o = QV_MERGE_OPTIONS_INIT;
  const char **on = NULL, **cols = NULL;
  qv_error err;
  qv_batch_reader *reader = NULL;
  qv_merge_result res;
  int ch, rc = 1;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    switch (ch) {
      case 'o':
        free(on);
        on = NULL;
        if ((o.n_on = split_list(optarg, &on)) <= 0) {
          rc = cli_usage("merge", "--on wants column names");
          goto done;
        }
        break;
      case 'u':
        free(cols);
        cols = NULL;
        if ((o.n_update_columns = split_list(optarg, &cols)) <= 0) {
          rc = cli_usage("merge", "--update-columns wants column names");
          goto done;
        }
        break;
      case 'w':
        if (!strcmp(optarg, "update")) o.when_matched = QV_MERGE_UPDATE;
        else if (!strcmp(optarg, "nothing")) o.when_matched = QV_MERGE_DO_NOTHING;
        else if (!strcmp(optarg, "delete")) o.when_matched = QV_MERGE_DELETE;
        else {
          rc = cli_usage("merge", "--when-matched is update, nothing or delete, not '%s'", optarg);
          goto done;
        }
        break;
      case 'n': o.insert_not_matched = false; break;
      case 'd': o.delete_not_matched_by_source = true; break;
      case 'h':
        fputs(help, stdout);
        rc = 0;
        goto done;
      default: rc = cli_usage("merge", "unknown option '%s'", argv[optind - 1]); goto done;
    }
  }
  if (argc - optind != 2) {
    rc = cli_usage("merge", "wants DATASET and SOURCE");
    goto done;
  }
  if (!on) {
    rc = cli_usage("merge", "--on COL is required (the key columns)");
    goto done;
  }
  o.on = on;
  o.update_columns = cols;
  if (open_source(argv[optind + 1], &reader, &err) != QV_OK ||
      qv_dataset_merge(argv[optind], reader, &o, &res, &err) != QV_OK) {
    rc = cli_fail("merge", &err);
  } else {
    if (res.inserted + res.updated + res.deleted == 0)
      printf("nothing to change; version %lld stays the latest\n", (long long)res.version);
    else
      printf("inserted %lld row%s, updated %lld, deleted %lld: version %lld\n", (long long)res.inserted,
             cli_plural(res.inserted), (long long)res.updated, (long long)res.deleted, (long long)res.version);
    rc = 0;
  }
done:
  qv_batch_reader_destroy(reader);
  free(on);
  free(cols);
  return rc;
}
