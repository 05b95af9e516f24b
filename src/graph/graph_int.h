/* The graph layer's internals: the catalog, the node index and CSR files,
 * their container format, the builders, and the lookups the Cypher engine
 * stands on (src/graph/cypher*.c).  docs/graph.md has the bytes.
 *
 * Files: catalog.c (declarations, the catalog's bytes), csr_file.c (the
 * checksummed container every graph file uses; node index and CSR bytes),
 * csr_build.c (reading id columns, the node index, the parallel counting
 * sort), csr_graph.c (create, refresh, open, show, lookups). */
#ifndef QUIVER_GRAPH_GRAPH_INT_H
#define QUIVER_GRAPH_GRAPH_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "quiver/graph.h"
#include "quiver/storage.h"

/* ---- container (csr_file.c) -------------------------------------------
 *
 *   0   "QVGF"  u32 format_version  u32 kind  u32 block_size
 *   16  u64 payload_length  u32 crc32c(bytes 0..24)  u32 0
 *   32  payload
 *       ceil(payload_length / block_size) x u32 crc32c of each block of the payload
 *       u32 crc32c of that table  "QVGF"
 *
 * The table's crc pins a file (the catalog records it with the size). */
#define QVG_MAGIC "QVGF"
#define QVG_FILE_VERSION 1
#define QVG_HEADER_SIZE 32
#define QVG_BLOCK_SIZE 65536
#define QVG_MAX_FILE_SIZE (INT64_C(1) << 40)
#define QVG_MAX_CATALOG_SIZE (INT64_C(1) << 26)

enum { QVG_KIND_CATALOG = 1, QVG_KIND_NODES = 2, QVG_KIND_CSR = 3 };

/* Rows of one table, so positions and edge row ids fit in a u32. */
#define QVG_MAX_ROWS (INT64_C(0xFFFFFFFE))
#define QVG_NO_POS UINT32_MAX

/* A checked file: bytes (64-byte aligned, owned) and its payload. */
typedef struct qvg_file {
  uint8_t *bytes;
  int64_t size;
  const uint8_t *payload; /* at file offset QVG_HEADER_SIZE */
  int64_t payload_size;
  uint32_t crc; /* of the block table */
} qvg_file;

/* Checks header, every block's checksum and the trailer of bytes[0..size)
 * (which it takes over: freed on error too) as a graph file of `kind`;
 * errors are QV_ERR_CORRUPT naming `name` and the file offset. */
qv_status qvg_file_check(uint8_t *bytes, int64_t size, uint32_t kind, const char *name, qvg_file *out, qv_error *err);
/* Reads path whole and checks it (qvg_file_check). */
qv_status qvg_file_read(const char *path, const char *name, uint32_t kind, int64_t max_size, qvg_file *out,
                        qv_error *err);
void qvg_file_reset(qvg_file *f);
/* Writes a new file (O_EXCL, fsynced) of `kind` whose payload is the parts
 * in order; *out_size and *out_crc (nullable) get what the catalog pins. */
qv_status qvg_file_write(const char *path, const char *name, uint32_t kind, const void *const *parts,
                         const int64_t *sizes, int n_parts, int64_t *out_size, uint32_t *out_crc, qv_error *err);

/* ---- node index --------------------------------------------------------
 *
 * id -> row position of one label.  Dense when the ids span at most
 * QVG_DENSE_FACTOR times their count (one u32 per id in [min, max], no
 * more bytes than the sorted form's 12 per id); else the sorted ids with
 * their positions (binary search).  docs/graph.md has the measurements. */
#define QVG_DENSE_FACTOR 3

typedef struct qvg_node_index {
  int64_t n_rows;  /* physical rows of the dataset */
  int64_t n_nodes; /* live rows, each one node */
  bool dense;
  int64_t min_id, max_id; /* 0, -1 when empty */
  const int64_t *ids;     /* sorted form: n_nodes ids, strictly increasing */
  const uint32_t *pos;    /* sorted form: their positions; dense: max-min+1 entries, QVG_NO_POS for none */
  qvg_file file;          /* owns the bytes when read from disk */
  void *owned[2];         /* owns the arrays when built in memory */
} qvg_node_index;

/* Row position of id, or -1. */
static inline int64_t qvg_node_index_find(const qvg_node_index *ix, int64_t id) {
  if (ix->n_nodes == 0 || id < ix->min_id || id > ix->max_id) return -1;
  if (ix->dense) {
    uint32_t p = ix->pos[(uint64_t)id - (uint64_t)ix->min_id];
    return p == QVG_NO_POS ? -1 : (int64_t)p;
  }
  int64_t lo = 0, hi = ix->n_nodes;
  while (hi - lo > 8) {
    int64_t mid = lo + (hi - lo) / 2;
    if (ix->ids[mid] <= id) lo = mid;
    else hi = mid;
  }
  for (; lo < hi; lo++)
    if (ix->ids[lo] == id) return ix->pos[lo];
  return -1;
}

void qvg_node_index_reset(qvg_node_index *ix);
/* The node index file's payload parts (csr_file.c writes them). */
qv_status qvg_node_index_write(const qvg_node_index *ix, const char *path, const char *name, int64_t *out_size,
                               uint32_t *out_crc, qv_error *err);
/* Reads and checks a node index file (QV_ERR_CORRUPT naming name). */
qv_status qvg_node_index_read(const char *path, const char *name, qvg_node_index *out, qv_error *err);
/* Checks a node index payload already in a qvg_file (the fuzz target). */
qv_status qvg_node_index_parse(qvg_file *f, const char *name, qvg_node_index *out, qv_error *err);

/* ---- CSR ---------------------------------------------------------------
 *
 * One direction of one relationship type: the edges of node position v are
 * [offsets[v], offsets[v+1]) of nbrs (the other end's row position) and
 * edges (the edge's row id in the relationship dataset), in edge row order. */
typedef enum qvg_direction { QVG_OUT = 0, QVG_IN = 1 } qvg_direction;

typedef struct qvg_csr {
  qvg_direction direction;
  int64_t n_nodes;     /* rows of the label the edges leave (positions) */
  int64_t n_targets;   /* rows of the label they reach */
  int64_t n_edges;     /* live edges */
  int64_t n_edge_rows; /* physical rows of the relationship dataset */
  const uint64_t *offsets;
  const uint32_t *nbrs;
  const uint32_t *edges;
  qvg_file file;
  void *owned[3];
} qvg_csr;

/* The neighbours of one node position: n of them, nbrs[i] reached over
 * edge row edges[i]. */
typedef struct qvg_span {
  const uint32_t *nbrs;
  const uint32_t *edges;
  int64_t n;
} qvg_span;

static inline qvg_span qvg_csr_span(const qvg_csr *c, int64_t pos) {
  qvg_span s = {NULL, NULL, 0};
  if (pos < 0 || pos >= c->n_nodes) return s;
  uint64_t a = c->offsets[pos], b = c->offsets[pos + 1];
  s.nbrs = c->nbrs + a;
  s.edges = c->edges + a;
  s.n = (int64_t)(b - a);
  return s;
}

void qvg_csr_reset(qvg_csr *c);
qv_status qvg_csr_write(const qvg_csr *c, const char *path, const char *name, int64_t *out_size, uint32_t *out_crc,
                        qv_error *err);
qv_status qvg_csr_read(const char *path, const char *name, qvg_csr *out, qv_error *err);
qv_status qvg_csr_parse(qvg_file *f, const char *name, qvg_csr *out, qv_error *err);

/* ---- building (csr_build.c) -------------------------------------------- */

/* An integer column of a dataset as int64 values per physical row;
 * *out_deleted is a bitmap of deleted rows or NULL (none).  A null in a live
 * row is QV_ERR_INVALID naming `what` and the row; a non-integer column
 * QV_ERR_TYPE; a uint64 past INT64_MAX QV_ERR_OVERFLOW. */
qv_status qvg_read_ids(const qv_dataset *ds, const char *dsname, const char *column, const char *what,
                       int64_t **out_vals, uint8_t **out_deleted, int64_t *out_rows, qv_error *err);
/* The node index of ids[0..n_rows) (deleted rows left out).  A duplicate id
 * is QV_ERR_INVALID: "duplicate id ID at row positions A and B" (the
 * duplicate whose second row comes first). */
qv_status qvg_node_index_build(const int64_t *ids, const uint8_t *deleted, int64_t n_rows, qvg_node_index *out,
                               qv_error *err);

typedef struct qvg_rel_build {
  const qvg_node_index *src_ix, *dst_ix;
  int64_t n_edges;     /* live edges */
  int64_t dangling;    /* endpoint ids matching no node */
  int64_t first_row;   /* the row of the first dangling one, -1 */
  int64_t first_id;    /* its id */
  bool first_is_src;   /* whether that id is the source */
  double seconds_read; /* reading and mapping the endpoint columns */
  double seconds_sort; /* the counting sorts */
} qvg_rel_build;

/* Reads the endpoint columns of ds, maps ids to positions through b's node
 * indices and builds both CSRs by a parallel counting sort on the worker
 * pool.  Dangling endpoints are counted in b (and the CSRs left empty):
 * the caller turns them into the error. */
qv_status qvg_csr_build(const qv_dataset *ds, const char *dsname, const char *src_col, const char *dst_col,
                        qvg_rel_build *b, qvg_csr *fwd, qvg_csr *rev, qv_error *err);

/* ---- the open graph (csr_graph.c) ---------------------------------------- */

typedef struct qvg_degree_stats {
  int64_t max;        /* highest degree */
  int64_t with_edges; /* nodes with at least one edge */
  double mean;        /* edges / nodes of the leaving label */
} qvg_degree_stats;

typedef struct qvg_label {
  char *name;
  char *dataset; /* as stored: relative to the graph folder, or absolute */
  int64_t version;
  char *id_column;
  int64_t n_rows, n_nodes;
  bool dense;
  char *file; /* "nodes/<label>.<build>.qvn" */
  int64_t file_size;
  uint32_t file_crc;
  /* open graphs only */
  qvg_node_index index;
  qv_dataset *ds;
  int64_t *frag_start; /* first position of each fragment, n_fragments + 1 */
} qvg_label;

typedef struct qvg_type {
  char *name;
  char *dataset;
  int64_t version;
  char *src_column, *dst_column;
  int32_t src_label, dst_label;
  int32_t n_props;
  char **props; /* the dataset's other columns */
  int64_t n_edge_rows, n_edges;
  qvg_degree_stats deg[2]; /* QVG_OUT, QVG_IN */
  char *file[2];           /* "rels/<type>.<build>.fwd" / ".rev" */
  int64_t file_size[2];
  uint32_t file_crc[2];
  qvg_csr csr[2];
  qv_dataset *ds;
  int64_t *frag_start;
} qvg_type;

typedef struct qvg_catalog {
  int64_t build; /* 1 for the first build, +1 per refresh */
  int32_t n_labels;
  qvg_label *labels;
  int32_t n_types;
  qvg_type *types;
} qvg_catalog;

struct qv_graph {
  char *path;
  qvg_catalog cat;
  /* What Cypher queries read (graph/gstore.h): a dataset store over this
   * graph (qv_graph_open) or a memory store (qv_graph_open_memory, whose
   * catalog is empty).  Owned; freed by qv_graph_close. */
  struct qvg_store *store;
};

/* catalog.c */
bool qvg_name_ok(const char *s);
qv_status qvg_catalog_encode(const qvg_catalog *c, qv_buffer *out, qv_error *err);
/* Decodes and checks a catalog payload (names, label references, file
 * names, counts); QV_ERR_CORRUPT naming name and the offset. */
qv_status qvg_catalog_decode(const uint8_t *p, int64_t n, int64_t base, const char *name, qvg_catalog *out,
                             qv_error *err);
void qvg_catalog_reset(qvg_catalog *c);
/* "nodes/<label>.<build>.qvn", "rels/<type>.<build>.fwd|rev" (qv_malloc'd). */
char *qvg_file_name(bool rel, const char *name, int64_t build, int dir);

/* Lookups (csr_graph.c).  Indices are the catalog's (declaration order). */
int32_t qvg_label_find(const qv_graph *g, const char *name);
int32_t qvg_type_find(const qv_graph *g, const char *name);
/* Row position of the node with this id, or -1. */
int64_t qvg_node_position(const qv_graph *g, int32_t label, int64_t id);
/* The neighbours of node position pos over type in direction dir (QVG_OUT:
 * pos is a source-label position, QVG_IN: a destination-label one). */
qvg_span qvg_neighbours(const qv_graph *g, int32_t type, qvg_direction dir, int64_t pos);
int64_t qvg_label_count(const qv_graph *g, int32_t label);
int64_t qvg_type_count(const qv_graph *g, int32_t type);
void qvg_degree(const qv_graph *g, int32_t type, qvg_direction dir, qvg_degree_stats *out);
/* The fragment and fragment-relative row of a row position of a label's
 * (or a type's) dataset; false when out of range. */
bool qvg_locate(const int64_t *frag_start, int32_t n_fragments, int64_t pos, int32_t *out_fragment, int64_t *out_row);

#endif
