/* quiver graph: declare a graph over datasets (create), print its catalog
 * (show), rebuild it after its datasets moved on (refresh). */
#include <getopt.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: quiver graph create GRAPH --node LABEL=DATASET:IDCOL ... [--rel SPEC ...] [--overwrite]\n"
    "       quiver graph show GRAPH\n"
    "       quiver graph refresh GRAPH\n"
    "\n"
    "A graph is declared over datasets: each node label is a dataset with a unique\n"
    "integer id column, each relationship type a dataset with source and\n"
    "destination id columns; its other columns are the relationship's properties.\n"
    "create records the declaration in the folder GRAPH and builds a node index per\n"
    "label and a forward and a reverse CSR adjacency per relationship type.\n"
    "\n"
    "  --node LABEL=DATASET:IDCOL\n"
    "  --rel  TYPE=DATASET:SRCCOL->DSTCOL:SRCLABEL->DSTLABEL\n"
    "         DATASET is a path; the fields after its last colons are columns and labels\n"
    "         (quote a --rel SPEC: the shell reads '>' as a redirection)\n"
    "  --overwrite   replace a graph already declared in GRAPH\n"
    "\n"
    "Opening a graph whose datasets moved on since the build (an import, a delete)\n"
    "is refused; show says which, and refresh rebuilds from the latest versions.\n"
    "\n"
    "example:\n"
    "  quiver graph create g --node Person=data/persons:id \\\n"
    "      --rel 'KNOWS=data/knows:src->dst:Person->Person'\n";

static int create(int argc, char **argv) {
  static const struct option longopts[] = {{"node", required_argument, NULL, 'n'},
                                           {"rel", required_argument, NULL, 'r'},
                                           {"overwrite", no_argument, NULL, 'o'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  qv_graph_decl d = QV_GRAPH_DECL_INIT;
  qv_graph_options o = QV_GRAPH_OPTIONS_INIT;
  qv_error err;
  int ch, rc = 0;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    switch (ch) {
      case 'n':
        if (qv_graph_decl_parse_node(&d, optarg, &err) != QV_OK) {
          rc = cli_usage("graph create", "%s", err.message);
          goto done;
        }
        break;
      case 'r':
        if (qv_graph_decl_parse_rel(&d, optarg, &err) != QV_OK) {
          rc = cli_usage("graph create", "%s", err.message);
          goto done;
        }
        break;
      case 'o': o.overwrite = true; break;
      case 'h': fputs(help, stdout); goto done;
      default: rc = cli_usage("graph create", "unknown option '%s'", argv[optind - 1]); goto done;
    }
  }
  if (argc - optind != 1) {
    rc = cli_usage("graph create", "wants GRAPH (a folder)");
    goto done;
  }
  if (d.n_nodes == 0) {
    rc = cli_usage("graph create", "wants at least one --node LABEL=DATASET:IDCOL");
    goto done;
  }
  double t0 = qv_now_seconds();
  const char *g = argv[optind];
  if (qv_graph_create(g, &d, &o, &err) != QV_OK) {
    rc = cli_fail("graph create", &err);
    goto done;
  }
  fprintf(stderr, "%s: %d label%s, %d relationship type%s (%.2f s)\n", g, (int)d.n_nodes, d.n_nodes == 1 ? "" : "s",
          (int)d.n_rels, d.n_rels == 1 ? "" : "s", qv_now_seconds() - t0);
done:
  qv_graph_decl_reset(&d);
  return rc;
}

int cmd_graph(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(help, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *sub = argv[1];
  if (!strcmp(sub, "create")) return create(argc - 1, argv + 1);
  if (strcmp(sub, "show") && strcmp(sub, "refresh")) return cli_usage("graph", "unknown subcommand '%s'", sub);
  if (argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
    fputs(help, stdout);
    return 0;
  }
  if (argc != 3) return cli_usage(!strcmp(sub, "show") ? "graph show" : "graph refresh", "wants GRAPH");
  qv_error err;
  if (!strcmp(sub, "show")) {
    char *text;
    if (qv_graph_show(argv[2], &text, &err) != QV_OK) return cli_fail("graph show", &err);
    fputs(text, stdout);
    qv_free(text);
    return 0;
  }
  bool rebuilt;
  double t0 = qv_now_seconds();
  if (qv_graph_refresh(argv[2], &rebuilt, &err) != QV_OK) return cli_fail("graph refresh", &err);
  if (rebuilt) fprintf(stderr, "%s: rebuilt (%.2f s)\n", argv[2], qv_now_seconds() - t0);
  else fprintf(stderr, "%s: up to date\n", argv[2]);
  return 0;
}
