/* quiver optimize / cleanup / tag: maintenance of a dataset written to for
 * a long time (docs/writes.md "Maintenance"). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "quiver/index.h"

/* "7d", "12h", "30m", "45s", "500ms" or plain seconds, into milliseconds. */
static bool parse_age(const char *text, int64_t *out_ms) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || v < 0 || errno) return false;
  double mul = 1000;
  if (!strcmp(end, "ms")) mul = 1;
  else if (!strcmp(end, "s") || !*end) mul = 1000;
  else if (!strcmp(end, "m")) mul = 60e3;
  else if (!strcmp(end, "h")) mul = 3600e3;
  else if (!strcmp(end, "d")) mul = 86400e3;
  else if (!strcmp(end, "w")) mul = 7 * 86400e3;
  else return false;
  if (v * mul > 9e18) return false;
  *out_ms = (int64_t)(v * mul);
  return true;
}

int cmd_optimize(int argc, char **argv) {
  static const char help[] =
      "usage: quiver optimize DATASET [options]\n"
      "\n"
      "Compacts the dataset, then brings its indices up to date, as two versions.\n"
      "Compaction rewrites the small fragments (fewer live rows than half the target)\n"
      "and those with more than a fraction of their rows deleted into new data files,\n"
      "dropping the deleted rows; every live row is kept (the rewritten ones move\n"
      "after the untouched fragments).  The rewritten fragments' index files go with\n"
      "them; the index step then builds files for every fragment an index does not\n"
      "cover (appended or rewritten ones), as 'quiver index optimize' does.\n"
      "\n"
      "options:\n"
      "      --target-rows N           rows per new data file (default 1048576)\n"
      "      --max-deleted-fraction F  rewrite fragments with more deleted (default 0.1)\n"
      "      --no-index                compact only\n"
      "  -h, --help                    this help\n";
  static const struct option longopts[] = {{"target-rows", required_argument, NULL, 't'},
                                           {"max-deleted-fraction", required_argument, NULL, 'f'},
                                           {"no-index", no_argument, NULL, 'n'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  qv_compact_options o = QV_COMPACT_OPTIONS_INIT;
  bool index = true;
  int ch;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    switch (ch) {
      case 't':
        if (!cli_parse_count(optarg, &o.target_rows_per_file) || o.target_rows_per_file < 1)
          return cli_usage("optimize", "--target-rows wants a positive count");
        break;
      case 'f': {
        char *end;
        o.max_deleted_fraction = strtod(optarg, &end);
        if (end == optarg || *end || !(o.max_deleted_fraction >= 0 && o.max_deleted_fraction <= 1))
          return cli_usage("optimize", "--max-deleted-fraction wants a number within 0..1");
        break;
      }
      case 'n': index = false; break;
      case 'h': fputs(help, stdout); return 0;
      default: return cli_usage("optimize", "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (argc - optind != 1) return cli_usage("optimize", "which dataset?");
  const char *path = argv[optind];
  qv_compact_result res;
  qv_error err;
  if (qv_dataset_compact(path, &o, &res, &err) != QV_OK) return cli_fail("optimize", &err);
  if (res.fragments_removed == 0) printf("compaction: nothing to rewrite\n");
  else
    printf("compaction: %d fragment%s rewritten into %d (%lld rows kept, %lld deleted rows dropped): version %lld\n",
           res.fragments_removed, cli_plural(res.fragments_removed), res.fragments_added, (long long)res.rows_rewritten,
           (long long)res.rows_dropped, (long long)res.version);
  if (!index) return 0;
  int64_t v = 0;
  if (qv_index_optimize(path, NULL, &v, &err) != QV_OK) return cli_fail("optimize", &err);
  if (v == 0) printf("indices: up to date\n");
  else printf("indices: updated: version %lld\n", (long long)v);
  return 0;
}

int cmd_cleanup(int argc, char **argv) {
  static const char help[] =
      "usage: quiver cleanup DATASET [--older-than AGE] [--keep N] [options]\n"
      "\n"
      "Removes old versions and the files only they name, and orphaned files (named\n"
      "by no version: left by a writer that crashed).  A version goes when it was\n"
      "committed longer than AGE ago, or (with --keep) when it is older than the\n"
      "newest N; the latest version, tagged versions ('quiver tag') and damaged ones\n"
      "always stay, and so does every file a staying version names.  Removed versions\n"
      "can no longer be read or restored.\n"
      "\n"
      "options:\n"
      "      --older-than AGE    e.g. 7d (default), 12h, 30m, 0 (every old version)\n"
      "      --keep N            also remove versions older than the newest N\n"
      "      --orphan-grace AGE  remove unnamed files only once this old (default 1h:\n"
      "                          a writer may still be about to commit them)\n"
      "  -n, --dry-run           count what would go, remove nothing\n"
      "  -h, --help              this help\n";
  static const struct option longopts[] = {{"older-than", required_argument, NULL, 'o'},
                                           {"keep", required_argument, NULL, 'k'},
                                           {"orphan-grace", required_argument, NULL, 'g'},
                                           {"dry-run", no_argument, NULL, 'n'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  qv_cleanup_options o = QV_CLEANUP_OPTIONS_INIT;
  int ch;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "nh", longopts, NULL)) != -1) {
    switch (ch) {
      case 'o':
        if (!parse_age(optarg, &o.older_than_ms)) return cli_usage("cleanup", "--older-than wants an age like 7d");
        break;
      case 'k':
        if (!cli_parse_count(optarg, &o.keep_versions) || o.keep_versions < 1)
          return cli_usage("cleanup", "--keep wants a positive count");
        break;
      case 'g':
        if (!parse_age(optarg, &o.orphan_grace_ms)) return cli_usage("cleanup", "--orphan-grace wants an age like 1h");
        break;
      case 'n': o.dry_run = true; break;
      case 'h': fputs(help, stdout); return 0;
      default: return cli_usage("cleanup", "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (argc - optind != 1) return cli_usage("cleanup", "which dataset?");
  qv_cleanup_result res;
  qv_error err;
  if (qv_dataset_cleanup(argv[optind], &o, &res, &err) != QV_OK) return cli_fail("cleanup", &err);
  printf("%s %lld version%s and %lld file%s (%lld orphaned, %lld bytes)\n", o.dry_run ? "would remove" : "removed",
         (long long)res.versions_removed, cli_plural(res.versions_removed), (long long)res.files_removed,
         cli_plural(res.files_removed), (long long)res.orphans_removed, (long long)res.bytes_removed);
  if (res.files_kept_for_damaged)
    fprintf(stderr,
            "quiver cleanup: a version that stays is damaged, so no file was removed "
            "(see 'quiver versions')\n");
  return 0;
}

int cmd_tag(int argc, char **argv) {
  static const char help[] =
      "usage: quiver tag DATASET                      list the tags\n"
      "       quiver tag DATASET NAME [--version N]   tag version N (default: the latest)\n"
      "       quiver tag DATASET NAME --delete        remove a tag (the version stays)\n"
      "\n"
      "A tag names a version; 'quiver cleanup' never removes a tagged version.  Names\n"
      "are 1 to 64 of A-Z a-z 0-9 _ . -; a tag is not moved (delete it first).\n";
  static const struct option longopts[] = {{"version", required_argument, NULL, 'v'},
                                           {"delete", no_argument, NULL, 'd'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int64_t version = 0;
  bool del = false;
  int ch;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "v:h", longopts, NULL)) != -1) {
    switch (ch) {
      case 'v':
        if (!cli_parse_count(optarg, &version) || version < 1) return cli_usage("tag", "--version wants a version");
        break;
      case 'd': del = true; break;
      case 'h': fputs(help, stdout); return 0;
      default: return cli_usage("tag", "unknown option '%s'", argv[optind - 1]);
    }
  }
  int left = argc - optind;
  if (left < 1 || left > 2) return cli_usage("tag", "wants DATASET and an optional NAME");
  const char *path = argv[optind];
  qv_error err;
  if (left == 1) {
    if (del || version) return cli_usage("tag", "--delete and --version need a NAME");
    qv_tag *tags;
    int64_t n;
    if (qv_dataset_tags(path, &tags, &n, &err) != QV_OK) return cli_fail("tag", &err);
    for (int64_t i = 0; i < n; i++) printf("%s\t%lld\n", tags[i].name, (long long)tags[i].version);
    if (n == 0) printf("no tags\n");
    qv_free(tags);
    return 0;
  }
  const char *name = argv[optind + 1];
  if (del) {
    if (version) return cli_usage("tag", "give --delete or --version, not both");
    if (qv_dataset_untag(path, name, &err) != QV_OK) return cli_fail("tag", &err);
    printf("removed tag %s\n", name);
    return 0;
  }
  if (version == 0) {
    qv_dataset *ds;
    if (qv_dataset_open(path, 0, &ds, &err) != QV_OK) return cli_fail("tag", &err);
    version = qv_dataset_version(ds);
    qv_dataset_close(ds);
  }
  if (qv_dataset_tag(path, name, version, &err) != QV_OK) return cli_fail("tag", &err);
  printf("tagged version %lld as %s\n", (long long)version, name);
  return 0;
}
