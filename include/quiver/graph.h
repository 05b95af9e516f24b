/* quiver graph layer: a property graph declared over datasets, and its CSR
 * adjacency (docs/graph.md).
 *
 *   GRAPH/catalog.qvg                the declaration: node labels (a dataset and
 *                                    its unique integer id column), relationship
 *                                    types (a dataset, source and destination id
 *                                    columns, the labels they connect), each
 *                                    dataset's path and version, the files below
 *   GRAPH/nodes/<label>.<build>.qvn  per label: id -> row position
 *   GRAPH/rels/<type>.<build>.fwd    per relationship type: forward CSR
 *   GRAPH/rels/<type>.<build>.rev    and reverse CSR (offsets, neighbour row
 *                                    positions, edge row ids)
 *
 * qv_graph_create reads the tables and builds every file; the catalog is
 * published last, atomically (temp file, fsync, rename), so a graph is
 * either the old build or the new one.  A row position is a row's physical
 * number in its dataset (the rows of fragment 0, then fragment 1, ...);
 * deleted rows are neither nodes nor edges.  Opening a graph whose datasets
 * moved on since its build is refused (QV_ERR_CONFLICT, naming the dataset
 * and both versions); qv_graph_refresh rebuilds it. */
#ifndef QUIVER_GRAPH_H
#define QUIVER_GRAPH_H

#include "quiver/base.h"
#include "quiver/columnar.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Labels and types are 1..64 characters of [A-Za-z0-9_]. */
#define QV_GRAPH_MAX_NAME 64

typedef struct qv_graph_node_decl {
  char *label;
  char *dataset; /* path of the dataset (relative paths: to the working directory) */
  char *id_column;
} qv_graph_node_decl;

typedef struct qv_graph_rel_decl {
  char *type;
  char *dataset;
  char *src_column;
  char *dst_column;
  char *src_label;
  char *dst_label;
} qv_graph_rel_decl;

/* A graph declaration.  Build it with qv_graph_decl_add_* (which copy their
 * strings); qv_graph_decl_reset frees what they allocated. */
typedef struct qv_graph_decl {
  int32_t n_nodes;
  qv_graph_node_decl *nodes;
  int32_t n_rels;
  qv_graph_rel_decl *rels;
} qv_graph_decl;

#define QV_GRAPH_DECL_INIT \
  { 0, NULL, 0, NULL }

QV_API qv_status qv_graph_decl_add_node(qv_graph_decl *d, const char *label, const char *dataset, const char *id_column,
                                        qv_error *err);
QV_API qv_status qv_graph_decl_add_rel(qv_graph_decl *d, const char *type, const char *dataset, const char *src_column,
                                       const char *dst_column, const char *src_label, const char *dst_label,
                                       qv_error *err);
/* The command's spellings: "LABEL=DATASET:IDCOL" (node) and
 * "TYPE=DATASET:SRCCOL->DSTCOL:SRCLABEL->DSTLABEL" (rel).  DATASET is a path
 * and may hold colons: the fields are taken from the last colons.
 * QV_ERR_PARSE names what is missing. */
QV_API qv_status qv_graph_decl_parse_node(qv_graph_decl *d, const char *spec, qv_error *err);
QV_API qv_status qv_graph_decl_parse_rel(qv_graph_decl *d, const char *spec, qv_error *err);
QV_API void qv_graph_decl_reset(qv_graph_decl *d); /* NULL-safe; leaves it empty */

typedef struct qv_graph_options {
  int version;    /* QV_GRAPH_OPTIONS_VERSION */
  bool overwrite; /* create: replace an existing graph's declaration (else QV_ERR_EXISTS) */
} qv_graph_options;

#define QV_GRAPH_OPTIONS_VERSION 1
#define QV_GRAPH_OPTIONS_INIT \
  { QV_GRAPH_OPTIONS_VERSION, false }

/* Declares a graph in the folder path (created when absent) and builds its
 * node indices and CSR files from the datasets' latest versions.  opts may
 * be NULL.  Errors name what is wrong: no such dataset or column
 * (QV_ERR_NOT_FOUND), an id column that is not an integer (QV_ERR_TYPE), a
 * label or type declared twice, a relationship naming an undeclared label
 * (QV_ERR_INVALID), duplicate ids in a node table (the first duplicate id
 * and its two row positions) and endpoint ids that match no node (how many,
 * and the first) (QV_ERR_INVALID); QV_ERR_EXISTS when a graph is there and
 * not opts->overwrite.  Nothing is published on error. */
QV_API qv_status qv_graph_create(const char *path, const qv_graph_decl *decl, const qv_graph_options *opts,
                                 qv_error *err);
/* Rebuilds every index of the graph at path from its datasets' latest
 * versions and publishes a new catalog.  *out_rebuilt (nullable) gets
 * whether any dataset had moved (false: nothing was written). */
QV_API qv_status qv_graph_refresh(const char *path, bool *out_rebuilt, qv_error *err);

/* The catalog as text (qv_malloc'd; qv_free): labels, types, datasets and
 * their versions, counts and files, and a line for each dataset that moved
 * on since the build.  Reads the catalog only, so a stale graph shows too. */
QV_API qv_status qv_graph_show(const char *path, char **out, qv_error *err);

typedef struct qv_graph qv_graph;

/* Opens the graph at path: reads and checks its catalog and every index
 * file (checksums, bounds: a damaged file is QV_ERR_CORRUPT naming it and
 * the offset), and opens its datasets at their latest versions, which must
 * be the versions it was built from (else QV_ERR_CONFLICT naming the
 * dataset, both versions, and `quiver graph refresh`). */
QV_API qv_status qv_graph_open(const char *path, qv_graph **out, qv_error *err);
QV_API void qv_graph_close(qv_graph *g); /* NULL-safe */

/* An empty graph in memory, with no datasets behind it: nodes and
 * relationships come from Cypher CREATE (any labels, properties of any
 * Cypher value).  It lives until qv_graph_close.  The openCypher TCK runs
 * on these. */
QV_API qv_status qv_graph_open_memory(qv_graph **out, qv_error *err);

/* ---- Cypher (docs/cypher.md) ------------------------------------------ */

/* Query parameters: names[i] (without '$') is the Cypher literal text
 * values[i] ("42", "'text'", "[1, 2.5, null]", "{a: 1}"). */
typedef struct qv_cypher_params {
  int32_t n;
  const char *const *names;
  const char *const *values;
} qv_cypher_params;

typedef struct qv_cypher_options {
  int version;  /* QV_CYPHER_OPTIONS_VERSION */
  bool use_csr; /* false: every hop as hash joins (the fallback plan) */
  /* Every result column as a string of Cypher text (null as "null"), as
   * the openCypher TCK writes values; else typed columns where the type is
   * known (see docs/cypher.md). */
  bool render_values;
  int64_t memory_limit; /* as qv_exec_options (0: default) */
  int threads;          /* as qv_exec_options (0: qv_threads()) */
  /* Version 2: as qv_exec_options.cancel: set *cancel nonzero (from
   * another thread or a signal handler) and reading the query's rows
   * fails with QV_ERR_CANCELLED at the next batch. */
  const volatile int *cancel;
} qv_cypher_options;

#define QV_CYPHER_OPTIONS_VERSION 2
#define QV_CYPHER_OPTIONS_INIT \
  { QV_CYPHER_OPTIONS_VERSION, true, false, 0, 0, NULL }

/* Runs a Cypher query: parses, binds against the graph's schema, plans
 * and returns the rows as a batch stream (the caller destroys it; it keeps
 * what it needs of g, which must stay open while it is read).  params and
 * opts may be NULL.  Errors: QV_ERR_PARSE for syntax (line, column, what
 * was expected), QV_ERR_INVALID for semantic errors (unknown variables,
 * labels, types or properties, with close matches; a write clause on a
 * graph over datasets: "read-only"), QV_ERR_TYPE / QV_ERR_OVERFLOW /
 * QV_ERR_INVALID from the stream for run-time errors.  On a memory graph
 * CREATE runs when the stream is read. */
QV_API qv_status qv_cypher_query(qv_graph *g, const char *text, const qv_cypher_params *params,
                                 const qv_cypher_options *opts, qv_batch_reader **out, qv_error *err);
/* The physical plan as an indented operator tree (qv_malloc'd; qv_free).
 * With analyze the query runs (its rows are discarded) and each operator
 * shows its counters. */
QV_API qv_status qv_cypher_explain(qv_graph *g, const char *text, const qv_cypher_params *params,
                                   const qv_cypher_options *opts, bool analyze, char **out, qv_error *err);

#ifdef __cplusplus
}
#endif
#endif
