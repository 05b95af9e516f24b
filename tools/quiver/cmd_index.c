/* quiver index create / list / drop / optimize: scalar and vector indices of a dataset. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: quiver index create DATASET --column C --type btree|bitmap|ngram|label_list|ivf_flat|ivf_pq\n"
    "                           [--name N] [vector options]\n"
    "       quiver index list DATASET\n"
    "       quiver index drop DATASET NAME\n"
    "       quiver index optimize DATASET [NAME] [--rebuild]\n\n"
    "Scalar indices answer filters without reading the column: btree (= < <= > >=\n"
    "BETWEEN IN IS NULL starts_with LIKE 'prefix%'), bitmap (= IN IS NULL, for few\n"
    "distinct values), ngram (contains, LIKE '%abc%', regexes with a literal of 3+\n"
    "characters; rows are re-checked), label_list (array_has, array_has_any,\n"
    "array_has_all on list columns).  Each change commits a new version; older\n"
    "versions keep theirs.  optimize indexes fragments appended since the build.\n"
    "The default name is <column>_idx.\n\n"
    "Vector indices (docs/vector.md), on fixed_size_list<float32, N> columns:\n"
    "ivf_flat (k-means partitions, exact distances in the probed ones) and ivf_pq\n"
    "(the same partitions holding product-quantized codes; scans re-rank).  Options:\n"
    "  --metric l2|cosine|dot    the searches' metric (default l2)\n"
    "  --num-partitions N        IVF partitions (default sqrt(rows))\n"
    "  --num-sub-vectors M       ivf_pq sub-vectors, dividing the dimension (default dim/8)\n"
    "  --sample-rows N           k-means sample (default 256 per partition)\n"
    "  --max-iterations N        k-means rounds (default 10)\n"
    "  --seed N                  sample and start (default 42)\n\n"
    "An index file that cannot be read (damaged, cut short, missing) does not make\n"
    "the dataset unreadable: scans filter its fragment in full and warn.  list\n"
    "checks every file's checksums and names the damaged ones; optimize --rebuild\n"
    "rewrites them from the data files (as does drop followed by create).\n";

static int create(int argc, char **argv) {
  static const struct option longopts[] = {{"column", required_argument, NULL, 'c'},
                                           {"type", required_argument, NULL, 't'},
                                           {"name", required_argument, NULL, 'n'},
                                           {"metric", required_argument, NULL, 1000},
                                           {"num-partitions", required_argument, NULL, 1001},
                                           {"num-sub-vectors", required_argument, NULL, 1002},
                                           {"sample-rows", required_argument, NULL, 1003},
                                           {"max-iterations", required_argument, NULL, 1004},
                                           {"seed", required_argument, NULL, 1005},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  const char *column = NULL, *type_text = NULL;
  qv_index_options o = QV_INDEX_OPTIONS_INIT;
  int ch;
  int64_t n;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "c:t:n:h", longopts, NULL)) != -1) {
    switch (ch) {
      case 'c': column = optarg; break;
      case 't': type_text = optarg; break;
      case 'n': o.name = optarg; break;
      case 1000:
        if (!qv_metric_parse(optarg, &o.metric)) return cli_usage("index", "--metric is l2, cosine or dot");
        break;
      case 1001:
      case 1002:
      case 1004:
        if (!cli_parse_count(optarg, &n) || n < 1 || n > 65536)
          return cli_usage("index", "%s wants a number in 1..65536, not '%s'", argv[optind - 1], optarg);
        if (ch == 1001) o.num_partitions = (int32_t)n;
        else if (ch == 1002) o.num_sub_vectors = (int32_t)n;
        else o.max_iterations = (int32_t)n;
        break;
      case 1003:
      case 1005:
        if (!cli_parse_count(optarg, &n) || n < 1)
          return cli_usage("index", "%s wants a positive number", argv[optind - 1]);
        if (ch == 1003) o.sample_rows = n;
        else o.seed = (uint64_t)n;
        break;
      case 'h': fputs(help, stdout); return 0;
      default: return cli_usage("index", "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc) return cli_usage("index", "which dataset?");
  if (optind + 1 < argc) return cli_usage("index", "unexpected argument '%s'", argv[optind + 1]);
  if (!column) return cli_usage("index", "create wants --column");
  qv_index_type type;
  if (!type_text) return cli_usage("index", "create wants --type btree|bitmap|ngram|label_list|ivf_flat|ivf_pq");
  if (!qv_index_type_parse(type_text, &type))
    return cli_usage("index", "unknown index type '%s' (btree, bitmap, ngram, label_list, ivf_flat, ivf_pq)",
                     type_text);
  qv_error err;
  int64_t version = 0;
  if (qv_index_create(argv[optind], column, type, &o, &version, &err) != QV_OK) return cli_fail("index", &err);
  printf("created %s index on `%s`: version %lld\n", qv_index_type_name(type), column, (long long)version);
  return 0;
}

static int list(const char *path) {
  qv_dataset *ds;
  qv_error err;
  if (qv_dataset_open(path, 0, &ds, &err) != QV_OK) return cli_fail("index", &err);
  int32_t n = qv_dataset_num_indices(ds);
  if (n == 0) printf("no indices\n");
  else
    printf("%-20s %-10s %-16s %9s %12s %10s %7s %7s\n", "name", "type", "column", "fragments", "rows", "distinct",
           "built", "updated");
  /* Damaged files are listed after the table: "NAME: N of M file(s) unusable: first error". */
  char *damage = NULL;
  size_t damage_len = 0;
  FILE *dmg = open_memstream(&damage, &damage_len);
  if (!dmg) {
    qv_dataset_close(ds);
    fprintf(stderr, "quiver index: out of memory\n");
    return 1;
  }
  for (int32_t i = 0; i < n; i++) {
    qv_index *ix = NULL;
    qv_index_stats st;
    int32_t bad = 0;
    qv_status rc = qv_index_open(ds, i, &ix, &err);
    if (rc == QV_OK) {
      qv_index_set_tolerant(ix, true); /* the statistics of the readable files */
      rc = qv_index_verify(ix, &bad, &err);
    }
    if (rc == QV_OK) rc = qv_index_stats_get(ix, &st, &err);
    if (rc != QV_OK) {
      qv_index_close(ix);
      qv_dataset_close(ds);
      fclose(dmg);
      free(damage);
      return cli_fail("index", &err);
    }
    qv_index_entry e;
    qv_dataset_index(ds, i, &e);
    char frags[32];
    snprintf(frags, sizeof frags, "%d/%d", e.n_files, qv_dataset_num_fragments(ds));
    printf("%-20s %-10s %-16s %9s %12lld %10lld %7lld %7lld\n", e.name, qv_index_type_name(e.type), e.column, frags,
           (long long)st.rows, (long long)st.distinct, (long long)e.built_version, (long long)e.updated_version);
    if (bad > 0) {
      const char *first;
      qv_index_damaged(ix, &first);
      fprintf(dmg, "damaged: %s: %d of %d file(s) unusable: %s\n", e.name, bad, e.n_files, first);
      fprintf(dmg, "  scans filter those fragments in full; repair: quiver index optimize %s %s --rebuild\n", path,
              e.name);
    }
    qv_index_close(ix);
  }
  fclose(dmg);
  if (damage_len) fputs(damage, stdout);
  free(damage);
  qv_dataset_close(ds);
  return 0;
}

int cmd_index(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(help, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *sub = argv[1];
  if (!strcmp(sub, "create")) return create(argc - 1, argv + 1);
  bool rebuild = false;
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(help, stdout);
      return 0;
    } else if (!strcmp(sub, "optimize") && !strcmp(argv[i], "--rebuild")) {
      rebuild = true;
      memmove(argv + i, argv + i + 1, (size_t)(argc - i - 1) * sizeof *argv);
      argc--, i--;
    } else if (argv[i][0] == '-') {
      return cli_usage("index", "unknown option '%s'", argv[i]);
    }
  qv_error err;
  int64_t version = 0;
  if (!strcmp(sub, "list")) {
    if (argc != 3) return cli_usage("index", "list wants DATASET");
    return list(argv[2]);
  }
  if (!strcmp(sub, "drop")) {
    if (argc != 4) return cli_usage("index", "drop wants DATASET NAME");
    if (qv_index_drop(argv[2], argv[3], &version, &err) != QV_OK) return cli_fail("index", &err);
    printf("dropped index `%s`: version %lld\n", argv[3], (long long)version);
    return 0;
  }
  if (!strcmp(sub, "optimize")) {
    if (argc != 3 && argc != 4) return cli_usage("index", "optimize wants DATASET [NAME] [--rebuild]");
    /* --rebuild repairs damaged files, then indexes appended fragments as
     * optimize does: one summary of what the two committed */
    const char *name = argc == 4 ? argv[3] : NULL;
    int32_t rebuilt = 0;
    int64_t rebuilt_version = 0;
    if (rebuild && qv_index_rebuild(argv[2], name, &rebuilt, &rebuilt_version, &err) != QV_OK)
      return cli_fail("index", &err);
    if (qv_index_optimize(argv[2], name, &version, &err) != QV_OK) {
      int rc = cli_fail("index", &err);
      if (rebuilt_version)
        fprintf(stderr, "quiver index: the rebuild of %d damaged file%s was committed: version %lld\n", rebuilt,
                rebuilt == 1 ? "" : "s", (long long)rebuilt_version);
      return rc;
    }
    if (rebuilt_version && version)
      printf("rebuilt %d damaged file%s and indexed the fragments appended since the build: version %lld\n", rebuilt,
             rebuilt == 1 ? "" : "s", (long long)version);
    else if (rebuilt_version)
      printf("rebuilt %d damaged file%s: version %lld\n", rebuilt, rebuilt == 1 ? "" : "s", (long long)rebuilt_version);
    else if (version)
      printf("%soptimized: version %lld\n", rebuild ? "no damaged file to rebuild; " : "", (long long)version);
    else if (rebuild)
      printf("nothing to do: every index file passes its checks and every index covers every fragment\n");
    else printf("nothing to do: every index covers every fragment\n");
    return 0;
  }
  return cli_usage("index", "unknown subcommand '%s' (create, list, drop, optimize)", sub);
}
