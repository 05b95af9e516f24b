/* The checksummed container every graph file uses, and the bytes of the
 * node index and CSR files inside it (graph_int.h, docs/graph.md).  A
 * reader checks every block's checksum before parsing and every count,
 * offset and position against the file and each other before use, so the
 * lookups never leave their arrays. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/wire.h"
#include "graph/graph_int.h"

/* ---- container ---------------------------------------------------------- */

void qvg_file_reset(qvg_file *f) {
  qv_free(f->bytes);
  memset(f, 0, sizeof *f);
}

qv_status qvg_file_check(uint8_t *bytes, int64_t size, uint32_t kind, const char *name, qvg_file *out, qv_error *err) {
  memset(out, 0, sizeof *out);
  qvb_cursor c;
  qvb_cursor_init(&c, bytes, size, 0, name, err);
  const uint8_t *magic = NULL;
  uint32_t version = 0, k = 0, block = 0, hcrc = 0, pad = 0;
  uint64_t plen = 0;
  if (qvb_wire_get_bytes(&c, 4, &magic, "header") && memcmp(magic, QVG_MAGIC, 4))
    qvb_cursor_fail(&c, "not a graph file (bad magic)");
  qvb_wire_get_u32(&c, &version, "header");
  qvb_wire_get_u32(&c, &k, "header");
  qvb_wire_get_u32(&c, &block, "header");
  qvb_wire_get_u64(&c, &plen, "header");
  qvb_wire_get_u32(&c, &hcrc, "header");
  qvb_wire_get_u32(&c, &pad, "header");
  if (c.status == QV_OK && hcrc != qv_crc32c(0, bytes, 24)) {
    c.pos = 24;
    qvb_cursor_fail(&c, "header checksum mismatch");
  }
  if (c.status == QV_OK && pad != 0) {
    c.pos = 28;
    qvb_cursor_fail(&c, "reserved header bytes are not zero");
  }
  if (c.status == QV_OK && version != QVG_FILE_VERSION) {
    c.pos = 4;
    qvb_cursor_fail(&c, "format version %u (this build reads %d)", version, QVG_FILE_VERSION);
  }
  if (c.status == QV_OK && k != kind) {
    c.pos = 8;
    qvb_cursor_fail(&c, "file kind %u where kind %u was expected", k, kind);
  }
  if (c.status == QV_OK && (block < 512 || block > (1u << 24) || (block & (block - 1)))) {
    c.pos = 12;
    qvb_cursor_fail(&c, "block size %u is not a power of two in 512..16 MiB", block);
  }
  int64_t nblocks = 0;
  if (c.status == QV_OK) {
    nblocks = (int64_t)((plen + block - 1) / block);
    /* payload + table + table crc + magic must be exactly what is left */
    if (plen > (uint64_t)size || (int64_t)plen + 4 * nblocks + 8 != size - QVG_HEADER_SIZE) {
      c.pos = 16;
      qvb_cursor_fail(&c, "payload of %llu bytes does not fit a file of %lld bytes", (unsigned long long)plen,
                      (long long)size);
    }
  }
  if (c.status == QV_OK) {
    const uint8_t *table = bytes + QVG_HEADER_SIZE + plen;
    uint32_t tcrc = qv_load_u32le(table + 4 * nblocks);
    if (memcmp(table + 4 * nblocks + 4, QVG_MAGIC, 4)) {
      c.pos = size - 4;
      qvb_cursor_fail(&c, "bad trailing magic");
    } else if (tcrc != qv_crc32c(0, table, (size_t)(4 * nblocks))) {
      c.pos = QVG_HEADER_SIZE + (int64_t)plen;
      qvb_cursor_fail(&c, "checksum table mismatch");
    } else {
      for (int64_t b = 0; b < nblocks; b++) {
        int64_t off = b * block, len = (int64_t)plen - off < block ? (int64_t)plen - off : block;
        if (qv_crc32c(0, bytes + QVG_HEADER_SIZE + off, (size_t)len) != qv_load_u32le(table + 4 * b)) {
          c.pos = QVG_HEADER_SIZE + off;
          qvb_cursor_fail(&c, "checksum mismatch in the block of %lld bytes at this offset", (long long)len);
          break;
        }
      }
    }
    out->crc = tcrc;
  }
  if (c.status != QV_OK) {
    qv_free(bytes);
    memset(out, 0, sizeof *out);
    return c.status;
  }
  out->bytes = bytes;
  out->size = size;
  out->payload = bytes + QVG_HEADER_SIZE;
  out->payload_size = (int64_t)plen;
  return QV_OK;
}

qv_status qvg_file_read(const char *path, const char *name, uint32_t kind, int64_t max_size, qvg_file *out,
                        qv_error *err) {
  memset(out, 0, sizeof *out);
  uint8_t *bytes;
  int64_t size;
  QV_RETURN_NOT_OK(qvb_file_read(path, name, max_size, &bytes, &size, err));
  return qvg_file_check(bytes, size, kind, name, out, err);
}

/* The block checksums of a payload that arrives in parts. */
typedef struct crc_stream {
  uint32_t *table;
  int64_t n, cap;
  uint32_t cur;
  int64_t in_block;
} crc_stream;

static bool crc_feed(crc_stream *s, const uint8_t *p, int64_t n) {
  while (n > 0) {
    int64_t k = QVG_BLOCK_SIZE - s->in_block < n ? QVG_BLOCK_SIZE - s->in_block : n;
    s->cur = qv_crc32c(s->cur, p, (size_t)k);
    s->in_block += k;
    p += k;
    n -= k;
    if (s->in_block == QVG_BLOCK_SIZE) {
      if (s->n == s->cap) {
        int64_t cap = s->cap ? 2 * s->cap : 64;
        uint32_t *t = qv_realloc(s->table, (size_t)cap * 4);
        if (!t) return false;
        s->table = t;
        s->cap = cap;
      }
      s->table[s->n++] = s->cur;
      s->cur = 0;
      s->in_block = 0;
    }
  }
  return true;
}

qv_status qvg_file_write(const char *path, const char *name, uint32_t kind, const void *const *parts,
                         const int64_t *sizes, int n_parts, int64_t *out_size, uint32_t *out_crc, qv_error *err) {
  qv_status st = QV_OK;
  crc_stream cs = {NULL, 0, 0, 0, 0};
  uint8_t *tail = NULL;
  int fd = -1;
  bool created = false;
  int64_t plen = 0;
  for (int i = 0; i < n_parts; i++) {
    plen += sizes[i];
    if (!crc_feed(&cs, parts[i], sizes[i])) {
      st = qv_error_nomem(err, name);
      goto cleanup;
    }
  }
  if (cs.in_block > 0) { /* the short last block */
    if (cs.n == cs.cap) {
      uint32_t *t = qv_realloc(cs.table, (size_t)(cs.cap + 1) * 4);
      if (!t) {
        st = qv_error_nomem(err, name);
        goto cleanup;
      }
      cs.table = t;
      cs.cap++;
    }
    cs.table[cs.n++] = cs.cur;
  }
  uint8_t head[QVG_HEADER_SIZE];
  memcpy(head, QVG_MAGIC, 4);
  qv_store_u32le(head + 4, QVG_FILE_VERSION);
  qv_store_u32le(head + 8, kind);
  qv_store_u32le(head + 12, QVG_BLOCK_SIZE);
  qv_store_u64le(head + 16, (uint64_t)plen);
  qv_store_u32le(head + 24, qv_crc32c(0, head, 24));
  qv_store_u32le(head + 28, 0);
  int64_t tlen = 4 * cs.n + 8;
  tail = qv_malloc((size_t)tlen);
  if (!tail) {
    st = qv_error_nomem(err, name);
    goto cleanup;
  }
  for (int64_t b = 0; b < cs.n; b++) qv_store_u32le(tail + 4 * b, cs.table[b]);
  uint32_t tcrc = qv_crc32c(0, tail, (size_t)(4 * cs.n));
  qv_store_u32le(tail + 4 * cs.n, tcrc);
  memcpy(tail + 4 * cs.n + 4, QVG_MAGIC, 4);

  fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    st = qv_error_set(err, errno == EEXIST ? QV_ERR_EXISTS : QV_ERR_IO, "%s: cannot create: %s", name, strerror(errno));
    goto cleanup;
  }
  created = true;
  if ((st = qvb_file_write_full(fd, head, QVG_HEADER_SIZE, name, err)) != QV_OK) goto cleanup;
  for (int i = 0; i < n_parts; i++)
    if ((st = qvb_file_write_full(fd, parts[i], sizes[i], name, err)) != QV_OK) goto cleanup;
  if ((st = qvb_file_write_full(fd, tail, tlen, name, err)) != QV_OK) goto cleanup;
  if (fsync(fd) != 0) {
    st = qv_error_set(err, QV_ERR_IO, "%s: fsync failed: %s", name, strerror(errno));
    goto cleanup;
  }
  if (out_size) *out_size = QVG_HEADER_SIZE + plen + tlen;
  if (out_crc) *out_crc = tcrc;
cleanup:
  if (fd >= 0) close(fd);
  if (st != QV_OK && created) unlink(path);
  qv_free(cs.table);
  qv_free(tail);
  return st;
}

/* ---- node index --------------------------------------------------------
 *
 * payload: u64 n_rows, u64 n_nodes, u8 form (0 sorted, 1 dense), 7 x u8 0,
 *          i64 min_id, i64 max_id,
 *          sorted: n_nodes x i64 ids (strictly increasing), n_nodes x u32 positions
 *          dense:  (max_id - min_id + 1) x u32 positions (QVG_NO_POS: no node) */

void qvg_node_index_reset(qvg_node_index *ix) {
  qvg_file_reset(&ix->file);
  qv_free(ix->owned[0]);
  qv_free(ix->owned[1]);
  memset(ix, 0, sizeof *ix);
}

qv_status qvg_node_index_write(const qvg_node_index *ix, const char *path, const char *name, int64_t *out_size,
                               uint32_t *out_crc, qv_error *err) {
  uint8_t head[40] = {0};
  qv_store_u64le(head, (uint64_t)ix->n_rows);
  qv_store_u64le(head + 8, (uint64_t)ix->n_nodes);
  head[16] = ix->dense ? 1 : 0;
  qv_store_u64le(head + 24, (uint64_t)ix->min_id);
  qv_store_u64le(head + 32, (uint64_t)ix->max_id);
  if (ix->dense) {
    int64_t span = ix->n_nodes ? ix->max_id - ix->min_id + 1 : 0;
    const void *parts[2] = {head, ix->pos};
    int64_t sizes[2] = {sizeof head, 4 * span};
    return qvg_file_write(path, name, QVG_KIND_NODES, parts, sizes, 2, out_size, out_crc, err);
  }
  const void *parts[3] = {head, ix->ids, ix->pos};
  int64_t sizes[3] = {sizeof head, 8 * ix->n_nodes, 4 * ix->n_nodes};
  return qvg_file_write(path, name, QVG_KIND_NODES, parts, sizes, 3, out_size, out_crc, err);
}

qv_status qvg_node_index_parse(qvg_file *f, const char *name, qvg_node_index *out, qv_error *err) {
  memset(out, 0, sizeof *out);
  qvb_cursor c;
  qvb_cursor_init(&c, f->payload, f->payload_size, QVG_HEADER_SIZE, name, err);
  int64_t n_rows = 0, n_nodes = 0;
  uint8_t form = 0;
  const uint8_t *pad, *arr;
  uint64_t umin = 0, umax = 0;
  qvb_wire_get_range(&c, 0, QVG_MAX_ROWS, &n_rows, "row count");
  qvb_wire_get_range(&c, 0, n_rows, &n_nodes, "node count");
  if (qvb_wire_get_u8(&c, &form, "form") && form > 1) qvb_cursor_fail(&c, "unknown node index form %u", form);
  qvb_wire_get_bytes(&c, 7, &pad, "padding");
  qvb_wire_get_u64(&c, &umin, "min id");
  qvb_wire_get_u64(&c, &umax, "max id");
  int64_t min = (int64_t)umin, max = (int64_t)umax;
  if (c.status != QV_OK) goto fail;
  if (n_nodes == 0 ? (min != 0 || max != -1) : max < min) {
    qvb_cursor_fail(&c, "id range [%lld, %lld] does not fit %lld nodes", (long long)min, (long long)max,
                    (long long)n_nodes);
    goto fail;
  }
  out->n_rows = n_rows;
  out->n_nodes = n_nodes;
  out->min_id = min;
  out->max_id = max;
  out->dense = form == 1;
  if (out->dense) {
    uint64_t span = n_nodes ? (uint64_t)max - (uint64_t)min + 1 : 0;
    if (span > (uint64_t)(c.size - c.pos) / 4) {
      qvb_cursor_fail(&c, "dense index of %llu ids is longer than the file", (unsigned long long)span);
      goto fail;
    }
    int64_t at = c.pos;
    if (!qvb_wire_get_bytes(&c, 4 * (int64_t)span, &arr, "positions")) goto fail;
    const uint32_t *p = (const uint32_t *)arr;
    int64_t seen = 0;
    for (uint64_t i = 0; i < span; i++) {
      if (p[i] == QVG_NO_POS) continue;
      if (p[i] >= (uint64_t)n_rows) {
        c.pos = at + 4 * (int64_t)i;
        qvb_cursor_fail(&c, "position %u is past the table's %lld rows", p[i], (long long)n_rows);
        goto fail;
      }
      seen++;
    }
    if (seen != n_nodes || (n_nodes && (p[0] == QVG_NO_POS || p[span - 1] == QVG_NO_POS))) {
      c.pos = at;
      qvb_cursor_fail(&c, "dense index holds %lld ids, not the %lld stated (ends included)", (long long)seen,
                      (long long)n_nodes);
      goto fail;
    }
    out->pos = p;
  } else {
    int64_t at = c.pos;
    if (!qvb_wire_get_bytes(&c, 8 * n_nodes, &arr, "ids")) goto fail;
    const int64_t *ids = (const int64_t *)arr;
    for (int64_t i = 0; i < n_nodes; i++)
      if (i ? ids[i] <= ids[i - 1] : ids[0] != min) {
        c.pos = at + 8 * i;
        qvb_cursor_fail(&c, "ids not strictly increasing from the minimum at entry %lld", (long long)i);
        goto fail;
      }
    if (n_nodes && ids[n_nodes - 1] != max) {
      c.pos = at + 8 * (n_nodes - 1);
      qvb_cursor_fail(&c, "last id is not the maximum");
      goto fail;
    }
    at = c.pos;
    if (!qvb_wire_get_bytes(&c, 4 * n_nodes, &arr, "positions")) goto fail;
    const uint32_t *p = (const uint32_t *)arr;
    for (int64_t i = 0; i < n_nodes; i++)
      if (p[i] >= (uint64_t)n_rows) {
        c.pos = at + 4 * i;
        qvb_cursor_fail(&c, "position %u is past the table's %lld rows", p[i], (long long)n_rows);
        goto fail;
      }
    out->ids = ids;
    out->pos = p;
  }
  if (c.pos != c.size) {
    qvb_cursor_fail(&c, "%lld bytes after the node index", (long long)(c.size - c.pos));
    goto fail;
  }
  return QV_OK;
fail:
  memset(out, 0, sizeof *out);
  return c.status;
}

qv_status qvg_node_index_read(const char *path, const char *name, qvg_node_index *out, qv_error *err) {
  qvg_file f;
  memset(out, 0, sizeof *out);
  QV_RETURN_NOT_OK(qvg_file_read(path, name, QVG_KIND_NODES, QVG_MAX_FILE_SIZE, &f, err));
  qv_status st = qvg_node_index_parse(&f, name, out, err);
  if (st != QV_OK) {
    qvg_file_reset(&f);
    return st;
  }
  out->file = f;
  return QV_OK;
}

/* ---- CSR ---------------------------------------------------------------
 *
 * payload: u8 direction (0 forward, 1 reverse), 7 x u8 0,
 *          u64 n_nodes, u64 n_targets, u64 n_edges, u64 n_edge_rows,
 *          (n_nodes + 1) x u64 offsets (0, non-decreasing, ending at n_edges),
 *          n_edges x u32 neighbour positions (< n_targets),
 *          n_edges x u32 edge row ids (< n_edge_rows, increasing within a node) */

void qvg_csr_reset(qvg_csr *c) {
  qvg_file_reset(&c->file);
  for (int i = 0; i < 3; i++) qv_free(c->owned[i]);
  memset(c, 0, sizeof *c);
}

qv_status qvg_csr_write(const qvg_csr *c, const char *path, const char *name, int64_t *out_size, uint32_t *out_crc,
                        qv_error *err) {
  uint8_t head[40] = {0};
  head[0] = (uint8_t)c->direction;
  qv_store_u64le(head + 8, (uint64_t)c->n_nodes);
  qv_store_u64le(head + 16, (uint64_t)c->n_targets);
  qv_store_u64le(head + 24, (uint64_t)c->n_edges);
  qv_store_u64le(head + 32, (uint64_t)c->n_edge_rows);
  const void *parts[4] = {head, c->offsets, c->nbrs, c->edges};
  int64_t sizes[4] = {sizeof head, 8 * (c->n_nodes + 1), 4 * c->n_edges, 4 * c->n_edges};
  return qvg_file_write(path, name, QVG_KIND_CSR, parts, sizes, 4, out_size, out_crc, err);
}

qv_status qvg_csr_parse(qvg_file *f, const char *name, qvg_csr *out, qv_error *err) {
  memset(out, 0, sizeof *out);
  qvb_cursor c;
  qvb_cursor_init(&c, f->payload, f->payload_size, QVG_HEADER_SIZE, name, err);
  uint8_t dir = 0;
  const uint8_t *pad, *arr;
  int64_t n = 0, nt = 0, m = 0, rows = 0;
  if (qvb_wire_get_u8(&c, &dir, "direction") && dir > 1) qvb_cursor_fail(&c, "unknown direction %u", dir);
  qvb_wire_get_bytes(&c, 7, &pad, "padding");
  qvb_wire_get_range(&c, 0, QVG_MAX_ROWS, &n, "node count");
  qvb_wire_get_range(&c, 0, QVG_MAX_ROWS, &nt, "target count");
  qvb_wire_get_range(&c, 0, QVG_MAX_ROWS, &m, "edge count");
  qvb_wire_get_range(&c, m, QVG_MAX_ROWS, &rows, "edge row count");
  if (c.status != QV_OK) goto fail;
  if ((uint64_t)(n + 1) > (uint64_t)(c.size - c.pos) / 8) {
    qvb_cursor_fail(&c, "%lld offsets are longer than the file", (long long)(n + 1));
    goto fail;
  }
  int64_t at = c.pos;
  if (!qvb_wire_get_bytes(&c, 8 * (n + 1), &arr, "offsets")) goto fail;
  const uint64_t *off = (const uint64_t *)arr;
  if (off[0] != 0 || off[n] != (uint64_t)m) {
    c.pos = off[0] != 0 ? at : at + 8 * n;
    qvb_cursor_fail(&c, "offsets must run from 0 to the %lld edges", (long long)m);
    goto fail;
  }
  for (int64_t v = 0; v < n; v++)
    if (off[v + 1] < off[v]) {
      c.pos = at + 8 * (v + 1);
      qvb_cursor_fail(&c, "offsets decrease at node %lld", (long long)(v + 1));
      goto fail;
    }
  at = c.pos;
  if (!qvb_wire_get_bytes(&c, 4 * m, &arr, "neighbours")) goto fail;
  const uint32_t *nb = (const uint32_t *)arr;
  for (int64_t i = 0; i < m; i++)
    if (nb[i] >= (uint64_t)nt) {
      c.pos = at + 4 * i;
      qvb_cursor_fail(&c, "neighbour position %u is past the %lld target rows", nb[i], (long long)nt);
      goto fail;
    }
  at = c.pos;
  if (!qvb_wire_get_bytes(&c, 4 * m, &arr, "edge row ids")) goto fail;
  const uint32_t *ed = (const uint32_t *)arr;
  for (int64_t v = 0; v < n; v++)
    for (uint64_t i = off[v]; i < off[v + 1]; i++)
      if (ed[i] >= (uint64_t)rows || (i > off[v] && ed[i] <= ed[i - 1])) {
        c.pos = at + 4 * (int64_t)i;
        qvb_cursor_fail(&c, "edge row id %u is past the %lld rows or out of order", ed[i], (long long)rows);
        goto fail;
      }
  if (c.pos != c.size) {
    qvb_cursor_fail(&c, "%lld bytes after the adjacency", (long long)(c.size - c.pos));
    goto fail;
  }
  out->direction = dir ? QVG_IN : QVG_OUT;
  out->n_nodes = n;
  out->n_targets = nt;
  out->n_edges = m;
  out->n_edge_rows = rows;
  out->offsets = off;
  out->nbrs = nb;
  out->edges = ed;
  return QV_OK;
fail:
  memset(out, 0, sizeof *out);
  return c.status;
}

qv_status qvg_csr_read(const char *path, const char *name, qvg_csr *out, qv_error *err) {
  qvg_file f;
  memset(out, 0, sizeof *out);
  QV_RETURN_NOT_OK(qvg_file_read(path, name, QVG_KIND_CSR, QVG_MAX_FILE_SIZE, &f, err));
  qv_status st = qvg_csr_parse(&f, name, out, err);
  if (st != QV_OK) {
    qvg_file_reset(&f);
    return st;
  }
  out->file = f;
  return QV_OK;
}
