/* Fuzz target: the graph layer's file readers (src/graph/csr_file.c,
 * catalog.c).  The first input byte picks the kind: 0 a catalog, 1 a node
 * index, 2 a CSR (modulo 3); bit 7 set skips the checksums (the container's
 * block checksums are patched to match the bytes, so the parsers behind
 * them see hostile payloads too).  The rest is the file.  A parsed node
 * index is queried and a parsed CSR walked over every node, as the engine
 * would. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph_int.h"

/* Rewrites the header, table and trailer checksums of a graph file so that
 * they match its bytes (when the file is long enough to have them). */
static void patch_checksums(uint8_t *b, int64_t size) {
  if (size < QVG_HEADER_SIZE + 8) return;
  qv_store_u32le(b + 24, qv_crc32c(0, b, 24));
  uint64_t plen = qv_load_u64le(b + 16);
  uint32_t block = qv_load_u32le(b + 12);
  if (block < 512 || block > (1u << 24) || (block & (block - 1))) return;
  if (plen > (uint64_t)size) return;
  int64_t nb = (int64_t)((plen + block - 1) / block);
  if ((int64_t)plen + 4 * nb + 8 != size - QVG_HEADER_SIZE) return;
  uint8_t *table = b + QVG_HEADER_SIZE + plen;
  for (int64_t k = 0; k < nb; k++) {
    int64_t off = k * block, len = (int64_t)plen - off < block ? (int64_t)plen - off : block;
    qv_store_u32le(table + 4 * k, qv_crc32c(0, b + QVG_HEADER_SIZE + off, (size_t)len));
  }
  qv_store_u32le(table + 4 * nb, qv_crc32c(0, table, (size_t)(4 * nb)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int kind = data[0] % 3;
  bool patch = (data[0] & 0x80) != 0;
  int64_t n = (int64_t)size - 1;
  uint8_t *b = qv_malloc((size_t)n + 1);
  if (!b) return 0;
  memcpy(b, data + 1, (size_t)n);
  if (patch) patch_checksums(b, n);
  qv_error err;
  qvg_file f;
  uint32_t want = kind == 0 ? QVG_KIND_CATALOG : kind == 1 ? QVG_KIND_NODES : QVG_KIND_CSR;
  if (qvg_file_check(b, n, want, "fuzz.qvg", &f, &err) != QV_OK) return 0; /* b freed */
  if (kind == 0) {
    qvg_catalog c;
    if (qvg_catalog_decode(f.payload, f.payload_size, QVG_HEADER_SIZE, "fuzz.qvg", &c, &err) == QV_OK)
      qvg_catalog_reset(&c);
  } else if (kind == 1) {
    qvg_node_index ix;
    if (qvg_node_index_parse(&f, "fuzz.qvg", &ix, &err) == QV_OK) {
      volatile int64_t sink = 0;
      for (int64_t id = ix.min_id - 2; id <= ix.min_id + 64 && id >= ix.min_id - 2; id++)
        sink += qvg_node_index_find(&ix, id);
      sink += qvg_node_index_find(&ix, ix.max_id);
      (void)sink;
    }
  } else {
    qvg_csr c;
    if (qvg_csr_parse(&f, "fuzz.qvg", &c, &err) == QV_OK) {
      volatile uint64_t sink = 0;
      for (int64_t v = -1; v <= c.n_nodes; v++) {
        qvg_span s = qvg_csr_span(&c, v);
        for (int64_t i = 0; i < s.n; i++) sink += s.nbrs[i] + s.edges[i];
      }
      (void)sink;
    }
  }
  qvg_file_reset(&f);
  return 0;
}
