/* A graph's declaration and its catalog file: the labels and relationship
 * types as declared (qv_graph_decl_*, the command's spellings) and the
 * catalog's bytes (docs/graph.md).  The decoder trusts nothing: names are
 * checked, label references bounded, file names recomputed from the label
 * or type and the build number, so a hostile catalog cannot point a reader
 * outside the graph folder. */
#include <stdio.h>
#include <string.h>

#include "base/wire.h"
#include "graph/graph_int.h"

bool qvg_name_ok(const char *s) {
  size_t n = s ? strlen(s) : 0;
  if (n == 0 || n > QV_GRAPH_MAX_NAME) return false;
  for (size_t i = 0; i < n; i++) {
    char ch = s[i];
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_')) return false;
  }
  return true;
}

char *qvg_file_name(bool rel, const char *name, int64_t build, int dir) {
  char buf[128];
  if (rel) snprintf(buf, sizeof buf, "rels/%s.%lld.%s", name, (long long)build, dir ? "rev" : "fwd");
  else snprintf(buf, sizeof buf, "nodes/%s.%lld.qvn", name, (long long)build);
  return qv_strdup(buf);
}

/* ---- declarations --------------------------------------------------------- */

static qv_status check_name(const char *what, const char *s, qv_error *err) {
  if (qvg_name_ok(s)) return QV_OK;
  return qv_error_set(err, QV_ERR_INVALID, "%s '%s' must be 1..%d characters of A-Z, a-z, 0-9 and _", what, s ? s : "",
                      QV_GRAPH_MAX_NAME);
}

static qv_status check_text(const char *what, const char *s, qv_error *err) {
  if (s && *s && strlen(s) <= 4096) return QV_OK;
  return qv_error_set(err, QV_ERR_INVALID, "%s is empty or longer than 4096 bytes", what);
}

qv_status qv_graph_decl_add_node(qv_graph_decl *d, const char *label, const char *dataset, const char *id_column,
                                 qv_error *err) {
  QV_RETURN_NOT_OK(check_name("label", label, err));
  QV_RETURN_NOT_OK(check_text("dataset path", dataset, err));
  QV_RETURN_NOT_OK(check_text("id column", id_column, err));
  qv_graph_node_decl *n = qv_realloc(d->nodes, (size_t)(d->n_nodes + 1) * sizeof *n);
  if (!n) return qv_error_nomem(err, "graph declaration");
  d->nodes = n;
  qv_graph_node_decl x = {qv_strdup(label), qv_strdup(dataset), qv_strdup(id_column)};
  if (!x.label || !x.dataset || !x.id_column) {
    qv_free(x.label);
    qv_free(x.dataset);
    qv_free(x.id_column);
    return qv_error_nomem(err, "graph declaration");
  }
  d->nodes[d->n_nodes++] = x;
  return QV_OK;
}

qv_status qv_graph_decl_add_rel(qv_graph_decl *d, const char *type, const char *dataset, const char *src_column,
                                const char *dst_column, const char *src_label, const char *dst_label, qv_error *err) {
  QV_RETURN_NOT_OK(check_name("relationship type", type, err));
  QV_RETURN_NOT_OK(check_text("dataset path", dataset, err));
  QV_RETURN_NOT_OK(check_text("source column", src_column, err));
  QV_RETURN_NOT_OK(check_text("destination column", dst_column, err));
  QV_RETURN_NOT_OK(check_name("source label", src_label, err));
  QV_RETURN_NOT_OK(check_name("destination label", dst_label, err));
  qv_graph_rel_decl *r = qv_realloc(d->rels, (size_t)(d->n_rels + 1) * sizeof *r);
  if (!r) return qv_error_nomem(err, "graph declaration");
  d->rels = r;
  qv_graph_rel_decl x = {qv_strdup(type),       qv_strdup(dataset),   qv_strdup(src_column),
                         qv_strdup(dst_column), qv_strdup(src_label), qv_strdup(dst_label)};
  if (!x.type || !x.dataset || !x.src_column || !x.dst_column || !x.src_label || !x.dst_label) {
    char *all[6] = {x.type, x.dataset, x.src_column, x.dst_column, x.src_label, x.dst_label};
    for (int i = 0; i < 6; i++) qv_free(all[i]);
    return qv_error_nomem(err, "graph declaration");
  }
  d->rels[d->n_rels++] = x;
  return QV_OK;
}

void qv_graph_decl_reset(qv_graph_decl *d) {
  if (!d) return;
  for (int32_t i = 0; i < d->n_nodes; i++) {
    qv_free(d->nodes[i].label);
    qv_free(d->nodes[i].dataset);
    qv_free(d->nodes[i].id_column);
  }
  for (int32_t i = 0; i < d->n_rels; i++) {
    qv_graph_rel_decl *r = &d->rels[i];
    char *all[6] = {r->type, r->dataset, r->src_column, r->dst_column, r->src_label, r->dst_label};
    for (int k = 0; k < 6; k++) qv_free(all[k]);
  }
  qv_free(d->nodes);
  qv_free(d->rels);
  memset(d, 0, sizeof *d);
}

/* Splits "A->B" at its one "->"; false when there is none or a side is empty. */
static bool split_arrow(char *s, char **a, char **b) {
  char *p = strstr(s, "->");
  if (!p || p == s || !p[2] || strstr(p + 2, "->")) return false;
  *p = '\0';
  *a = s;
  *b = p + 2;
  return true;
}

qv_status qv_graph_decl_parse_node(qv_graph_decl *d, const char *spec, qv_error *err) {
  char *s = qv_strdup(spec ? spec : "");
  if (!s) return qv_error_nomem(err, "--node");
  qv_status st;
  char *eq = strchr(s, '='), *colon = strrchr(s, ':');
  if (!eq || eq == s || !colon || colon < eq || colon == eq + 1 || !colon[1]) {
    st = qv_error_set(err, QV_ERR_PARSE, "--node '%s': expected LABEL=DATASET:IDCOL", spec ? spec : "");
  } else {
    *eq = *colon = '\0';
    st = qv_graph_decl_add_node(d, s, eq + 1, colon + 1, err);
    if (st != QV_OK) qv_error_prefix(err, st, "--node '%s'", spec);
  }
  qv_free(s);
  return st;
}

qv_status qv_graph_decl_parse_rel(qv_graph_decl *d, const char *spec, qv_error *err) {
  char *s = qv_strdup(spec ? spec : "");
  if (!s) return qv_error_nomem(err, "--rel");
  qv_status st = QV_OK;
  char *eq = strchr(s, '='), *c2 = strrchr(s, ':'), *c1 = NULL;
  if (eq && c2 && c2 > eq) {
    *c2 = '\0';
    c1 = strrchr(eq, ':');
  }
  char *sc, *dc, *sl, *dl;
  if (!eq || eq == s || !c1 || c1 == eq + 1) {
    st = qv_error_set(err, QV_ERR_PARSE, "--rel '%s': expected TYPE=DATASET:SRCCOL->DSTCOL:SRCLABEL->DSTLABEL", spec);
  } else {
    *eq = *c1 = '\0';
    if (!split_arrow(c1 + 1, &sc, &dc))
      st = qv_error_set(err, QV_ERR_PARSE, "--rel '%s': expected SRCCOL->DSTCOL after the dataset", spec);
    else if (!split_arrow(c2 + 1, &sl, &dl))
      st = qv_error_set(err, QV_ERR_PARSE, "--rel '%s': expected SRCLABEL->DSTLABEL at the end", spec);
    else if ((st = qv_graph_decl_add_rel(d, s, eq + 1, sc, dc, sl, dl, err)) != QV_OK)
      qv_error_prefix(err, st, "--rel '%s'", spec);
  }
  qv_free(s);
  return st;
}

/* ---- catalog bytes ----------------------------------------------------------
 *
 * payload: u64 build, u32 n_labels, u32 n_types,
 *   label: string name, string dataset, u64 version, string id_column,
 *          u64 n_rows, u64 n_nodes, u8 dense, string file, u64 file_size, u32 file_crc
 *   type:  string name, string dataset, u64 version, string src_column, string dst_column,
 *          u32 src_label, u32 dst_label, u32 n_props, n_props x string,
 *          u64 n_edge_rows, u64 n_edges,
 *          2 x { u64 max_degree, u64 with_edges },       forward, reverse
 *          2 x { string file, u64 file_size, u32 file_crc }
 * (strings: u32 length + bytes) */

void qvg_catalog_reset(qvg_catalog *c) {
  for (int32_t i = 0; i < c->n_labels; i++) {
    qvg_label *l = &c->labels[i];
    qv_free(l->name);
    qv_free(l->dataset);
    qv_free(l->id_column);
    qv_free(l->file);
    qvg_node_index_reset(&l->index);
    qv_dataset_close(l->ds);
    qv_free(l->frag_start);
  }
  for (int32_t i = 0; i < c->n_types; i++) {
    qvg_type *t = &c->types[i];
    qv_free(t->name);
    qv_free(t->dataset);
    qv_free(t->src_column);
    qv_free(t->dst_column);
    for (int32_t k = 0; k < t->n_props; k++) qv_free(t->props[k]);
    qv_free(t->props);
    for (int d = 0; d < 2; d++) {
      qv_free(t->file[d]);
      qvg_csr_reset(&t->csr[d]);
    }
    qv_dataset_close(t->ds);
    qv_free(t->frag_start);
  }
  qv_free(c->labels);
  qv_free(c->types);
  memset(c, 0, sizeof *c);
}

qv_status qvg_catalog_encode(const qvg_catalog *c, qv_buffer *out, qv_error *err) {
  qvb_wbuf w = {*out, QV_OK};
  qvb_wire_put_u64(&w, (uint64_t)c->build);
  qvb_wire_put_u32(&w, (uint32_t)c->n_labels);
  qvb_wire_put_u32(&w, (uint32_t)c->n_types);
  for (int32_t i = 0; i < c->n_labels; i++) {
    const qvg_label *l = &c->labels[i];
    qvb_wire_put_string(&w, l->name);
    qvb_wire_put_string(&w, l->dataset);
    qvb_wire_put_u64(&w, (uint64_t)l->version);
    qvb_wire_put_string(&w, l->id_column);
    qvb_wire_put_u64(&w, (uint64_t)l->n_rows);
    qvb_wire_put_u64(&w, (uint64_t)l->n_nodes);
    qvb_wire_put_u8(&w, l->dense ? 1 : 0);
    qvb_wire_put_string(&w, l->file);
    qvb_wire_put_u64(&w, (uint64_t)l->file_size);
    qvb_wire_put_u32(&w, l->file_crc);
  }
  for (int32_t i = 0; i < c->n_types; i++) {
    const qvg_type *t = &c->types[i];
    qvb_wire_put_string(&w, t->name);
    qvb_wire_put_string(&w, t->dataset);
    qvb_wire_put_u64(&w, (uint64_t)t->version);
    qvb_wire_put_string(&w, t->src_column);
    qvb_wire_put_string(&w, t->dst_column);
    qvb_wire_put_u32(&w, (uint32_t)t->src_label);
    qvb_wire_put_u32(&w, (uint32_t)t->dst_label);
    qvb_wire_put_u32(&w, (uint32_t)t->n_props);
    for (int32_t k = 0; k < t->n_props; k++) qvb_wire_put_string(&w, t->props[k]);
    qvb_wire_put_u64(&w, (uint64_t)t->n_edge_rows);
    qvb_wire_put_u64(&w, (uint64_t)t->n_edges);
    for (int d = 0; d < 2; d++) {
      qvb_wire_put_u64(&w, (uint64_t)t->deg[d].max);
      qvb_wire_put_u64(&w, (uint64_t)t->deg[d].with_edges);
    }
    for (int d = 0; d < 2; d++) {
      qvb_wire_put_string(&w, t->file[d]);
      qvb_wire_put_u64(&w, (uint64_t)t->file_size[d]);
      qvb_wire_put_u32(&w, t->file_crc[d]);
    }
  }
  *out = w.buf;
  if (w.status != QV_OK) return qv_error_nomem(err, "graph catalog");
  return QV_OK;
}

#define MAX_ENTRIES 4096

static bool get_name(qvb_cursor *c, char **out, const char *what) {
  if (!qvb_wire_get_string(c, QV_GRAPH_MAX_NAME, out, what)) return false;
  if (!qvg_name_ok(*out)) return qvb_cursor_fail(c, "%s '%s' is not a valid name", what, *out);
  return true;
}

static bool get_file(qvb_cursor *c, bool rel, const char *name, int64_t build, int dir, char **out) {
  if (!qvb_wire_get_string(c, 256, out, "file name")) return false;
  char *want = qvg_file_name(rel, name, build, dir);
  bool ok = want && !strcmp(want, *out);
  qv_free(want);
  if (!ok) return qvb_cursor_fail(c, "file name '%s' is not the one this build of `%s` has", *out, name);
  return true;
}

qv_status qvg_catalog_decode(const uint8_t *p, int64_t n, int64_t base, const char *name, qvg_catalog *out,
                             qv_error *err) {
  memset(out, 0, sizeof *out);
  qvb_cursor c;
  qvb_cursor_init(&c, p, n, base, name, err);
  int64_t build = 0, nl = 0, nt = 0;
  uint32_t u;
  qvb_wire_get_range(&c, 1, INT64_MAX, &build, "build number");
  if (qvb_wire_get_u32(&c, &u, "label count")) nl = u;
  if (qvb_wire_get_u32(&c, &u, "type count")) nt = u;
  if (c.status == QV_OK && (nl > MAX_ENTRIES || nt > MAX_ENTRIES))
    qvb_cursor_fail(&c, "%lld labels and %lld types: more than %d", (long long)nl, (long long)nt, MAX_ENTRIES);
  if (c.status != QV_OK) return c.status;
  out->build = build;
  out->labels = qv_calloc((size_t)(nl ? nl : 1), sizeof *out->labels);
  out->types = qv_calloc((size_t)(nt ? nt : 1), sizeof *out->types);
  if (!out->labels || !out->types) {
    qvg_catalog_reset(out);
    return qv_error_nomem(err, name);
  }
  for (int64_t i = 0; i < nl && c.status == QV_OK; i++) {
    qvg_label *l = &out->labels[i];
    out->n_labels = (int32_t)i + 1;
    uint8_t dense = 0;
    if (!get_name(&c, &l->name, "label")) break;
    for (int64_t k = 0; k < i; k++)
      if (!strcmp(out->labels[k].name, l->name)) qvb_cursor_fail(&c, "label `%s` appears twice", l->name);
    qvb_wire_get_string(&c, 4096, &l->dataset, "dataset path");
    qvb_wire_get_range(&c, 1, INT64_MAX, &l->version, "dataset version");
    qvb_wire_get_string(&c, 4096, &l->id_column, "id column");
    qvb_wire_get_range(&c, 0, QVG_MAX_ROWS, &l->n_rows, "row count");
    qvb_wire_get_range(&c, 0, l->n_rows, &l->n_nodes, "node count");
    if (qvb_wire_get_u8(&c, &dense, "form") && dense > 1) qvb_cursor_fail(&c, "bad node index form %u", dense);
    l->dense = dense == 1;
    if (c.status == QV_OK) get_file(&c, false, l->name, build, 0, &l->file);
    qvb_wire_get_range(&c, QVG_HEADER_SIZE, QVG_MAX_FILE_SIZE, &l->file_size, "file size");
    qvb_wire_get_u32(&c, &l->file_crc, "file checksum");
  }
  for (int64_t i = 0; i < nt && c.status == QV_OK; i++) {
    qvg_type *t = &out->types[i];
    out->n_types = (int32_t)i + 1;
    if (!get_name(&c, &t->name, "relationship type")) break;
    for (int64_t k = 0; k < i; k++)
      if (!strcmp(out->types[k].name, t->name)) qvb_cursor_fail(&c, "relationship type `%s` appears twice", t->name);
    qvb_wire_get_string(&c, 4096, &t->dataset, "dataset path");
    qvb_wire_get_range(&c, 1, INT64_MAX, &t->version, "dataset version");
    qvb_wire_get_string(&c, 4096, &t->src_column, "source column");
    qvb_wire_get_string(&c, 4096, &t->dst_column, "destination column");
    if (qvb_wire_get_u32(&c, &u, "source label") && u >= (uint32_t)nl) qvb_cursor_fail(&c, "source label %u", u);
    t->src_label = (int32_t)u;
    if (qvb_wire_get_u32(&c, &u, "destination label") && u >= (uint32_t)nl)
      qvb_cursor_fail(&c, "destination label %u", u);
    t->dst_label = (int32_t)u;
    int64_t np = 0;
    if (qvb_wire_get_u32(&c, &u, "property count")) np = u;
    if (c.status == QV_OK && np > MAX_ENTRIES) qvb_cursor_fail(&c, "%lld properties", (long long)np);
    if (c.status != QV_OK) break;
    if (!(t->props = qv_calloc((size_t)(np ? np : 1), sizeof *t->props))) {
      qvg_catalog_reset(out);
      return qv_error_nomem(err, name);
    }
    for (int64_t k = 0; k < np && c.status == QV_OK; k++) {
      t->n_props = (int32_t)k + 1;
      qvb_wire_get_string(&c, 4096, &t->props[k], "property");
    }
    qvb_wire_get_range(&c, 0, QVG_MAX_ROWS, &t->n_edge_rows, "edge row count");
    qvb_wire_get_range(&c, 0, t->n_edge_rows, &t->n_edges, "edge count");
    for (int d = 0; d < 2; d++) {
      qvb_wire_get_range(&c, 0, t->n_edges, &t->deg[d].max, "max degree");
      qvb_wire_get_range(&c, 0, t->n_edges, &t->deg[d].with_edges, "nodes with edges");
    }
    for (int d = 0; d < 2 && c.status == QV_OK; d++) {
      get_file(&c, true, t->name, build, d, &t->file[d]);
      qvb_wire_get_range(&c, QVG_HEADER_SIZE, QVG_MAX_FILE_SIZE, &t->file_size[d], "file size");
      qvb_wire_get_u32(&c, &t->file_crc[d], "file checksum");
    }
    if (c.status == QV_OK) {
      int64_t ns = out->labels[t->src_label].n_rows, nd = out->labels[t->dst_label].n_rows;
      t->deg[0].mean = ns ? (double)t->n_edges / (double)ns : 0;
      t->deg[1].mean = nd ? (double)t->n_edges / (double)nd : 0;
    }
  }
  if (c.status == QV_OK && c.pos != c.size)
    qvb_cursor_fail(&c, "%lld bytes after the catalog", (long long)(c.size - c.pos));
  if (c.status != QV_OK) {
    qvg_catalog_reset(out);
    return c.status;
  }
  return QV_OK;
}
