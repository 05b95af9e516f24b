/* A graph folder end to end: create (declare + build), refresh (rebuild
 * from datasets that moved on), open (catalog, node indices, CSRs, each
 * checked against the catalog and the datasets), show, and the lookups the
 * engine calls.  A build writes new files named by its build number, then
 * publishes the catalog by rename, then removes the previous build's files:
 * a crash leaves the old graph or the new one, never a mixture. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/text.h"
#include "base/wire.h"
#include "graph/graph_int.h"
#include "graph/gstore.h"

#define CATALOG "catalog.qvg"

/* ---- paths ----------------------------------------------------------------- */

/* The path of `to` relative to the directory `from` (both absolute and
 * normalised, as realpath gives them). */
static char *relative_path(const char *from, const char *to) {
  size_t common = 0, i = 0;
  /* the last '/' up to which both agree (whole components only) */
  for (;; i++) {
    char a = from[i], b = to[i];
    if ((a == '/' || a == '\0') && (b == '/' || b == '\0')) common = i;
    if (a != b || a == '\0') break;
  }
  if (from[common] == '\0' && to[common] == '\0') return qv_strdup(".");
  int ups = 0;
  for (const char *p = from + common; *p; p++)
    if (*p == '/' && p[1]) ups++;
  if (from[common] == '\0') ups = 0;
  const char *rest = to + common + (to[common] == '/');
  size_t n = (size_t)ups * 3 + strlen(rest) + 2;
  char *out = qv_malloc(n);
  if (!out) return NULL;
  out[0] = '\0';
  for (int k = 0; k < ups; k++) strcat(out, "../");
  strcat(out, rest);
  size_t len = strlen(out);
  if (len > 1 && out[len - 1] == '/') out[len - 1] = '\0';
  if (!*out) strcpy(out, ".");
  return out;
}

/* The stored dataset path resolved against the graph folder. */
static char *resolve(const char *gpath, const char *stored) {
  if (stored[0] == '/') return qv_strdup(stored);
  return qvb_path_join(gpath, stored);
}

static int64_t physical_rows(const qv_dataset *ds, int64_t **frag_start) {
  int32_t nf = qv_dataset_num_fragments(ds);
  int64_t n = 0;
  if (frag_start) *frag_start = qv_malloc((size_t)(nf + 1) * 8);
  for (int32_t f = 0; f < nf; f++) {
    qv_fragment_info fi;
    qv_dataset_fragment(ds, f, &fi);
    if (frag_start && *frag_start) (*frag_start)[f] = n;
    n += fi.num_rows;
  }
  if (frag_start && *frag_start) (*frag_start)[nf] = n;
  return n;
}

static void degree_stats(const qvg_csr *c, qvg_degree_stats *out) {
  out->max = out->with_edges = 0;
  for (int64_t v = 0; v < c->n_nodes; v++) {
    int64_t d = (int64_t)(c->offsets[v + 1] - c->offsets[v]);
    if (d > out->max) out->max = d;
    out->with_edges += d > 0;
  }
  out->mean = c->n_nodes ? (double)c->n_edges / (double)c->n_nodes : 0;
}

static void remove_files(const char *gpath, const qvg_catalog *c) {
  for (int32_t i = 0; i < c->n_labels; i++)
    if (c->labels[i].file) {
      char *p = qvb_path_join(gpath, c->labels[i].file);
      if (p) unlink(p);
      qv_free(p);
    }
  for (int32_t i = 0; i < c->n_types; i++)
    for (int d = 0; d < 2; d++)
      if (c->types[i].file[d]) {
        char *p = qvb_path_join(gpath, c->types[i].file[d]);
        if (p) unlink(p);
        qv_free(p);
      }
}

/* A graph folder this create made and failed to fill goes again (only
 * what is empty: rmdir refuses anything else). */
static void remove_empty(const char *gpath) {
  const char *subs[2] = {"nodes", "rels"};
  for (int k = 0; k < 2; k++) {
    char *p = qvb_path_join(gpath, subs[k]);
    if (p) rmdir(p);
    qv_free(p);
  }
  rmdir(gpath);
}

/* ---- building -------------------------------------------------------------- */

/* Builds and writes every file of cat (names, datasets and columns filled
 * in, build set) from the datasets' latest versions, recording versions,
 * counts and file pins.  show[] name the datasets in messages (labels then
 * types).  On error the files written are removed. */
static qv_status build_all(const char *gpath, qvg_catalog *cat, const char *const *show, qv_error *err) {
  qv_status st = QV_OK;
  char *path = NULL;
  for (int32_t i = 0; i < cat->n_labels && st == QV_OK; i++) {
    qvg_label *l = &cat->labels[i];
    const char *dn = show[i];
    int64_t *ids = NULL;
    uint8_t *del = NULL;
    if (!(path = resolve(gpath, l->dataset))) goto nomem;
    if ((st = qv_dataset_open(path, 0, &l->ds, err)) != QV_OK) {
      qv_error_prefix(err, st, "node label %s: dataset %s", l->name, dn);
      break;
    }
    qv_free(path);
    path = NULL;
    l->version = qv_dataset_version(l->ds);
    if ((st = qvg_read_ids(l->ds, dn, l->id_column, "id", &ids, &del, &l->n_rows, err)) != QV_OK) {
      qv_error_prefix(err, st, "node label %s", l->name);
      break;
    }
    st = qvg_node_index_build(ids, del, l->n_rows, &l->index, err);
    qv_free(ids);
    qv_free(del);
    if (st != QV_OK) {
      qv_error_prefix(err, st, "node label %s: dataset %s: column `%s`", l->name, dn, l->id_column);
      break;
    }
    l->n_nodes = l->index.n_nodes;
    l->dense = l->index.dense;
    if (!(l->file = qvg_file_name(false, l->name, cat->build, 0)) || !(path = qvb_path_join(gpath, l->file)))
      goto nomem;
    st = qvg_node_index_write(&l->index, path, path, &l->file_size, &l->file_crc, err);
    if (st != QV_OK) {
      qv_free(l->file);
      l->file = NULL;
    }
    qv_free(path);
    path = NULL;
  }
  for (int32_t i = 0; i < cat->n_types && st == QV_OK; i++) {
    qvg_type *t = &cat->types[i];
    const char *dn = show[cat->n_labels + i];
    if (!(path = resolve(gpath, t->dataset))) goto nomem;
    if ((st = qv_dataset_open(path, 0, &t->ds, err)) != QV_OK) {
      qv_error_prefix(err, st, "relationship type %s: dataset %s", t->name, dn);
      break;
    }
    qv_free(path);
    path = NULL;
    t->version = qv_dataset_version(t->ds);
    const qv_schema *s = qv_dataset_schema(t->ds);
    if (!(t->props = qv_calloc((size_t)(s->n_fields ? s->n_fields : 1), sizeof *t->props))) goto nomem;
    for (int32_t k = 0; k < s->n_fields; k++) {
      const char *fn = s->fields[k].name;
      if (!strcmp(fn, t->src_column) || !strcmp(fn, t->dst_column)) continue;
      if (!(t->props[t->n_props++] = qv_strdup(fn))) goto nomem;
    }
    const qvg_label *sl = &cat->labels[t->src_label], *dl = &cat->labels[t->dst_label];
    qvg_rel_build b;
    memset(&b, 0, sizeof b);
    b.src_ix = &sl->index;
    b.dst_ix = &dl->index;
    if ((st = qvg_csr_build(t->ds, dn, t->src_column, t->dst_column, &b, &t->csr[0], &t->csr[1], err)) != QV_OK) {
      qv_error_prefix(err, st, "relationship type %s", t->name);
      break;
    }
    if (b.dangling) {
      st = qv_error_set(err, QV_ERR_INVALID,
                        "relationship type %s: dataset %s: %lld endpoint id%s match%s no node; the first: %s id %lld "
                        "(column `%s`, row %lld) matches no %s node",
                        t->name, dn, (long long)b.dangling, b.dangling == 1 ? "" : "s", b.dangling == 1 ? "es" : "",
                        b.first_is_src ? "source" : "destination", (long long)b.first_id,
                        b.first_is_src ? t->src_column : t->dst_column, (long long)b.first_row,
                        b.first_is_src ? sl->name : dl->name);
      break;
    }
    t->n_edge_rows = t->csr[0].n_edge_rows;
    t->n_edges = b.n_edges;
    for (int d = 0; d < 2 && st == QV_OK; d++) {
      degree_stats(&t->csr[d], &t->deg[d]);
      if (!(t->file[d] = qvg_file_name(true, t->name, cat->build, d)) || !(path = qvb_path_join(gpath, t->file[d])))
        goto nomem;
      st = qvg_csr_write(&t->csr[d], path, path, &t->file_size[d], &t->file_crc[d], err);
      if (st != QV_OK) {
        qv_free(t->file[d]);
        t->file[d] = NULL;
      }
      qv_free(path);
      path = NULL;
    }
  }
  goto cleanup;
nomem:
  st = qv_error_nomem(err, gpath);
cleanup:
  qv_free(path);
  if (st != QV_OK) remove_files(gpath, cat);
  return st;
}

static qv_status publish(const char *gpath, const qvg_catalog *cat, qv_error *err) {
  qv_buffer payload = QV_BUFFER_INIT;
  char hex[17], tmpname[64];
  char *tmp = NULL, *final = NULL;
  qv_status st = qvg_catalog_encode(cat, &payload, err);
  if (st != QV_OK) goto cleanup;
  if ((st = qvb_random_hex(hex, 8, err)) != QV_OK) goto cleanup;
  snprintf(tmpname, sizeof tmpname, CATALOG ".tmp-%s", hex);
  if (!(tmp = qvb_path_join(gpath, tmpname)) || !(final = qvb_path_join(gpath, CATALOG))) {
    st = qv_error_nomem(err, gpath);
    goto cleanup;
  }
  const void *parts[1] = {payload.data};
  int64_t sizes[1] = {payload.size};
  if ((st = qvg_file_write(tmp, tmp, QVG_KIND_CATALOG, parts, sizes, 1, NULL, NULL, err)) != QV_OK) goto cleanup;
  if (rename(tmp, final) != 0) {
    st = qv_error_set(err, QV_ERR_IO, "%s: cannot publish the catalog: %s", final, strerror(errno));
    unlink(tmp);
    goto cleanup;
  }
  st = qvb_file_fsync_dir(gpath, err);
cleanup:
  qv_buffer_reset(&payload);
  qv_free(tmp);
  qv_free(final);
  return st;
}

static qv_status read_catalog(const char *gpath, qvg_catalog *out, qv_error *err) {
  memset(out, 0, sizeof *out);
  char *p = qvb_path_join(gpath, CATALOG);
  if (!p) return qv_error_nomem(err, gpath);
  qvg_file f;
  qv_status st = qvg_file_read(p, p, QVG_KIND_CATALOG, QVG_MAX_CATALOG_SIZE, &f, err);
  if (st == QV_ERR_NOT_FOUND) st = qv_error_set(err, QV_ERR_NOT_FOUND, "%s: no graph here (no %s)", gpath, CATALOG);
  if (st == QV_OK) {
    st = qvg_catalog_decode(f.payload, f.payload_size, QVG_HEADER_SIZE, p, out, err);
    qvg_file_reset(&f);
  }
  qv_free(p);
  return st;
}

qv_status qv_graph_create(const char *path, const qv_graph_decl *decl, const qv_graph_options *opts, qv_error *err) {
  qv_graph_options o = QV_GRAPH_OPTIONS_INIT;
  if (opts) o = *opts;
  if (!path || !*path) return qv_error_set(err, QV_ERR_INVALID, "graph: no path given");
  if (!decl || decl->n_nodes == 0) return qv_error_set(err, QV_ERR_INVALID, "graph %s: declares no node label", path);
  for (int32_t i = 0; i < decl->n_nodes; i++)
    for (int32_t k = 0; k < i; k++)
      if (!strcmp(decl->nodes[i].label, decl->nodes[k].label))
        return qv_error_set(err, QV_ERR_INVALID, "graph %s: label %s is declared twice", path, decl->nodes[i].label);
  for (int32_t i = 0; i < decl->n_rels; i++) {
    const qv_graph_rel_decl *r = &decl->rels[i];
    for (int32_t k = 0; k < i; k++)
      if (!strcmp(r->type, decl->rels[k].type))
        return qv_error_set(err, QV_ERR_INVALID, "graph %s: relationship type %s is declared twice", path, r->type);
    for (int32_t k = 0; k < decl->n_nodes; k++)
      if (!strcmp(r->type, decl->nodes[k].label))
        return qv_error_set(err, QV_ERR_INVALID, "graph %s: %s is declared as a label and a relationship type", path,
                            r->type);
  }
  qv_status st = QV_OK;
  qvg_catalog cat, old;
  memset(&cat, 0, sizeof cat);
  memset(&old, 0, sizeof old);
  char gabs[PATH_MAX], dabs[PATH_MAX];
  const char **show = NULL;
  char *cp = NULL;
  if ((st = qvb_file_mkdir(path, err)) != QV_OK) goto cleanup;
  if (!realpath(path, gabs)) {
    st = qv_error_set(err, QV_ERR_IO, "%s: %s", path, strerror(errno));
    goto cleanup;
  }
  if (!(cp = qvb_path_join(path, CATALOG))) goto nomem;
  struct stat sb;
  if (stat(cp, &sb) == 0) {
    if (!o.overwrite) {
      st = qv_error_set(err, QV_ERR_EXISTS, "%s: a graph is already declared here", path);
      goto cleanup;
    }
    if ((st = read_catalog(path, &old, err)) != QV_OK) {
      /* a damaged old catalog is replaced; its files stay behind */
      memset(&old, 0, sizeof old);
      st = QV_OK;
    }
  }
  cat.build = old.build + 1;
  cat.labels = qv_calloc((size_t)decl->n_nodes, sizeof *cat.labels);
  cat.types = qv_calloc((size_t)(decl->n_rels ? decl->n_rels : 1), sizeof *cat.types);
  show = qv_calloc((size_t)(decl->n_nodes + decl->n_rels), sizeof *show);
  if (!cat.labels || !cat.types || !show) goto nomem;
  for (int32_t i = 0; i < decl->n_nodes; i++) {
    const qv_graph_node_decl *nd = &decl->nodes[i];
    qvg_label *l = &cat.labels[cat.n_labels++];
    show[i] = nd->dataset;
    if (!realpath(nd->dataset, dabs)) {
      st = qv_error_set(err, QV_ERR_NOT_FOUND, "node label %s: no such dataset: %s", nd->label, nd->dataset);
      goto cleanup;
    }
    if (!(l->name = qv_strdup(nd->label)) || !(l->dataset = relative_path(gabs, dabs)) ||
        !(l->id_column = qv_strdup(nd->id_column)))
      goto nomem;
  }
  for (int32_t i = 0; i < decl->n_rels; i++) {
    const qv_graph_rel_decl *r = &decl->rels[i];
    qvg_type *t = &cat.types[cat.n_types++];
    show[decl->n_nodes + i] = r->dataset;
    t->src_label = t->dst_label = -1;
    for (int32_t k = 0; k < decl->n_nodes; k++) {
      if (!strcmp(r->src_label, decl->nodes[k].label)) t->src_label = k;
      if (!strcmp(r->dst_label, decl->nodes[k].label)) t->dst_label = k;
    }
    if (t->src_label < 0 || t->dst_label < 0) {
      st = qv_error_set(err, QV_ERR_INVALID, "relationship type %s: label %s is not declared (use --node %s=...)",
                        r->type, t->src_label < 0 ? r->src_label : r->dst_label,
                        t->src_label < 0 ? r->src_label : r->dst_label);
      goto cleanup;
    }
    if (!realpath(r->dataset, dabs)) {
      st = qv_error_set(err, QV_ERR_NOT_FOUND, "relationship type %s: no such dataset: %s", r->type, r->dataset);
      goto cleanup;
    }
    if (!(t->name = qv_strdup(r->type)) || !(t->dataset = relative_path(gabs, dabs)) ||
        !(t->src_column = qv_strdup(r->src_column)) || !(t->dst_column = qv_strdup(r->dst_column)))
      goto nomem;
  }
  if ((st = qvb_file_mkdir(path, err)) != QV_OK) goto cleanup;
  char *sub[2] = {qvb_path_join(path, "nodes"), qvb_path_join(path, "rels")};
  for (int k = 0; k < 2; k++) {
    if (st == QV_OK) st = sub[k] ? qvb_file_mkdir(sub[k], err) : qv_error_nomem(err, path);
    qv_free(sub[k]);
  }
  if (st != QV_OK) goto cleanup;
  if ((st = build_all(path, &cat, show, err)) != QV_OK) goto cleanup;
  if ((st = publish(path, &cat, err)) != QV_OK) {
    remove_files(path, &cat);
    goto cleanup;
  }
  remove_files(path, &old);
  goto cleanup;
nomem:
  st = qv_error_nomem(err, path);
cleanup:
  if (st != QV_OK && st != QV_ERR_EXISTS && old.build == 0) remove_empty(path);
  qvg_catalog_reset(&cat);
  qvg_catalog_reset(&old);
  qv_free(show);
  qv_free(cp);
  return st;
}

/* The latest version of each dataset of cat, or 0 where it cannot be opened. */
static qv_status latest_versions(const char *gpath, const qvg_catalog *cat, int64_t *out, qv_error *err) {
  for (int32_t i = 0; i < cat->n_labels + cat->n_types; i++) {
    const char *stored = i < cat->n_labels ? cat->labels[i].dataset : cat->types[i - cat->n_labels].dataset;
    char *p = resolve(gpath, stored);
    if (!p) return qv_error_nomem(err, gpath);
    qv_dataset *ds = NULL;
    qv_error e2;
    out[i] = qv_dataset_open(p, 0, &ds, &e2) == QV_OK ? qv_dataset_version(ds) : 0;
    qv_dataset_close(ds);
    qv_free(p);
  }
  return QV_OK;
}

qv_status qv_graph_refresh(const char *path, bool *out_rebuilt, qv_error *err) {
  if (out_rebuilt) *out_rebuilt = false;
  qvg_catalog old, cat;
  memset(&cat, 0, sizeof cat);
  QV_RETURN_NOT_OK(read_catalog(path, &old, err));
  qv_status st = QV_OK;
  int32_t n = old.n_labels + old.n_types;
  int64_t *latest = qv_calloc((size_t)(n ? n : 1), 8);
  char **show = qv_calloc((size_t)(n ? n : 1), sizeof *show);
  if (!latest || !show) goto nomem;
  if ((st = latest_versions(path, &old, latest, err)) != QV_OK) goto cleanup;
  bool moved = false;
  for (int32_t i = 0; i < n; i++)
    moved |= latest[i] != (i < old.n_labels ? old.labels[i].version : old.types[i - old.n_labels].version);
  if (!moved) goto cleanup;
  cat.build = old.build + 1;
  cat.labels = qv_calloc((size_t)(old.n_labels ? old.n_labels : 1), sizeof *cat.labels);
  cat.types = qv_calloc((size_t)(old.n_types ? old.n_types : 1), sizeof *cat.types);
  if (!cat.labels || !cat.types) goto nomem;
  for (int32_t i = 0; i < old.n_labels; i++) {
    qvg_label *l = &cat.labels[cat.n_labels++];
    const qvg_label *o = &old.labels[i];
    if (!(l->name = qv_strdup(o->name)) || !(l->dataset = qv_strdup(o->dataset)) ||
        !(l->id_column = qv_strdup(o->id_column)) || !(show[i] = resolve(path, o->dataset)))
      goto nomem;
  }
  for (int32_t i = 0; i < old.n_types; i++) {
    qvg_type *t = &cat.types[cat.n_types++];
    const qvg_type *o = &old.types[i];
    t->src_label = o->src_label;
    t->dst_label = o->dst_label;
    if (!(t->name = qv_strdup(o->name)) || !(t->dataset = qv_strdup(o->dataset)) ||
        !(t->src_column = qv_strdup(o->src_column)) || !(t->dst_column = qv_strdup(o->dst_column)) ||
        !(show[old.n_labels + i] = resolve(path, o->dataset)))
      goto nomem;
  }
  if ((st = build_all(path, &cat, (const char *const *)show, err)) != QV_OK) goto cleanup;
  if ((st = publish(path, &cat, err)) != QV_OK) {
    remove_files(path, &cat);
    goto cleanup;
  }
  remove_files(path, &old);
  if (out_rebuilt) *out_rebuilt = true;
  goto cleanup;
nomem:
  st = qv_error_nomem(err, path);
cleanup:
  if (show)
    for (int32_t i = 0; i < n; i++) qv_free(show[i]);
  qv_free(show);
  qv_free(latest);
  qvg_catalog_reset(&old);
  qvg_catalog_reset(&cat);
  return st;
}

/* ---- opening ----------------------------------------------------------------- */

static qv_status open_dataset(const char *gpath, const char *what, const char *name, const char *stored,
                              int64_t version, qv_dataset **out, int64_t **frag_start, qv_error *err) {
  char *p = resolve(gpath, stored);
  if (!p) return qv_error_nomem(err, gpath);
  qv_status st = qv_dataset_open(p, 0, out, err);
  if (st != QV_OK) {
    qv_error_prefix(err, st, "graph %s: %s %s", gpath, what, name);
  } else if (qv_dataset_version(*out) != version) {
    st = qv_error_set(err, QV_ERR_CONFLICT,
                      "graph %s: dataset %s (%s %s) is at version %lld, the graph was built from version %lld: run "
                      "'quiver graph refresh %s'",
                      gpath, p, what, name, (long long)qv_dataset_version(*out), (long long)version, gpath);
  } else {
    physical_rows(*out, frag_start);
    if (!*frag_start) st = qv_error_nomem(err, gpath);
  }
  qv_free(p);
  return st;
}

static qv_status mismatch(qv_error *err, const char *file, const char *what, int64_t got, int64_t want) {
  return qv_error_set(err, QV_ERR_CORRUPT, "%s: %s is %lld where the catalog and datasets say %lld", file, what,
                      (long long)got, (long long)want);
}

static qv_status open_all(qv_graph *g, qv_error *err) {
  qvg_catalog *c = &g->cat;
  qv_status st = QV_OK;
  char *p = NULL;
  for (int32_t i = 0; i < c->n_labels && st == QV_OK; i++) {
    qvg_label *l = &c->labels[i];
    if ((st = open_dataset(g->path, "label", l->name, l->dataset, l->version, &l->ds, &l->frag_start, err)) != QV_OK)
      break;
    int64_t rows = l->frag_start[qv_dataset_num_fragments(l->ds)];
    if (!(p = qvb_path_join(g->path, l->file))) return qv_error_nomem(err, g->path);
    if ((st = qvg_node_index_read(p, p, &l->index, err)) != QV_OK) break;
    if (l->index.file.size != l->file_size || l->index.file.crc != l->file_crc)
      st = qv_error_set(err, QV_ERR_CORRUPT, "%s: not the file the catalog names (size or checksum differ)", p);
    else if (l->index.n_rows != rows || l->n_rows != rows)
      st = mismatch(err, p, "the row count", l->index.n_rows, rows);
    else if (l->index.n_nodes != l->n_nodes || l->n_nodes != qv_dataset_count_rows(l->ds))
      st = mismatch(err, p, "the node count", l->index.n_nodes, qv_dataset_count_rows(l->ds));
    qv_free(p);
    p = NULL;
  }
  for (int32_t i = 0; i < c->n_types && st == QV_OK; i++) {
    qvg_type *t = &c->types[i];
    if ((st = open_dataset(g->path, "relationship type", t->name, t->dataset, t->version, &t->ds, &t->frag_start,
                           err)) != QV_OK)
      break;
    int64_t rows = t->frag_start[qv_dataset_num_fragments(t->ds)];
    int64_t ns = c->labels[t->src_label].n_rows, nd = c->labels[t->dst_label].n_rows;
    for (int d = 0; d < 2 && st == QV_OK; d++) {
      qvg_csr *x = &t->csr[d];
      if (!(p = qvb_path_join(g->path, t->file[d]))) return qv_error_nomem(err, g->path);
      if ((st = qvg_csr_read(p, p, x, err)) != QV_OK) break;
      if (x->file.size != t->file_size[d] || x->file.crc != t->file_crc[d])
        st = qv_error_set(err, QV_ERR_CORRUPT, "%s: not the file the catalog names (size or checksum differ)", p);
      else if ((int)x->direction != d) st = mismatch(err, p, "the direction", x->direction, d);
      else if (x->n_nodes != (d ? nd : ns)) st = mismatch(err, p, "the node count", x->n_nodes, d ? nd : ns);
      else if (x->n_targets != (d ? ns : nd)) st = mismatch(err, p, "the target count", x->n_targets, d ? ns : nd);
      else if (x->n_edge_rows != rows || t->n_edge_rows != rows)
        st = mismatch(err, p, "the edge row count", x->n_edge_rows, rows);
      else if (x->n_edges != t->n_edges) st = mismatch(err, p, "the edge count", x->n_edges, t->n_edges);
      qv_free(p);
      p = NULL;
    }
  }
  qv_free(p);
  return st;
}

qv_status qv_graph_open(const char *path, qv_graph **out, qv_error *err) {
  *out = NULL;
  qv_graph *g = qv_calloc(1, sizeof *g);
  if (!g || !(g->path = qv_strdup(path))) {
    qv_free(g);
    return qv_error_nomem(err, path);
  }
  qv_status st = read_catalog(path, &g->cat, err);
  if (st == QV_OK) st = open_all(g, err);
  if (st == QV_OK) st = qvg_store_dataset(g, &g->store, err);
  if (st != QV_OK) {
    qv_graph_close(g);
    return st;
  }
  *out = g;
  return QV_OK;
}

void qv_graph_close(qv_graph *g) {
  if (!g) return;
  qvg_store_free(g->store); /* first: a dataset store borrows the catalog */
  qvg_catalog_reset(&g->cat);
  qv_free(g->path);
  qv_free(g);
}

/* ---- show ---------------------------------------------------------------------- */

qv_status qv_graph_show(const char *path, char **out, qv_error *err) {
  *out = NULL;
  qvg_catalog c;
  QV_RETURN_NOT_OK(read_catalog(path, &c, err));
  int32_t n = c.n_labels + c.n_types;
  int64_t *latest = qv_calloc((size_t)(n ? n : 1), 8);
  qv_status st = QV_OK;
  if (!latest || (st = latest_versions(path, &c, latest, err)) != QV_OK) {
    qv_free(latest);
    qvg_catalog_reset(&c);
    return st != QV_OK ? st : qv_error_nomem(err, path);
  }
  qvb_text t = {NULL, 0, 0, false};
  qvb_text_f(&t, "graph %s (build %lld)\n", path, (long long)c.build);
  qvb_text_f(&t, "node labels:\n");
  for (int32_t i = 0; i < c.n_labels; i++) {
    const qvg_label *l = &c.labels[i];
    qvb_text_f(&t, "  %s: dataset %s version %lld, id column `%s`, %lld nodes of %lld rows, %s index %s\n", l->name,
               l->dataset, (long long)l->version, l->id_column, (long long)l->n_nodes, (long long)l->n_rows,
               l->dense ? "dense" : "sorted", l->file);
  }
  qvb_text_f(&t, "relationship types:%s\n", c.n_types ? "" : " none");
  for (int32_t i = 0; i < c.n_types; i++) {
    const qvg_type *r = &c.types[i];
    qvb_text_f(&t, "  %s: (%s)-[:%s]->(%s), dataset %s version %lld, `%s` -> `%s`, %lld edges\n", r->name,
               c.labels[r->src_label].name, r->name, c.labels[r->dst_label].name, r->dataset, (long long)r->version,
               r->src_column, r->dst_column, (long long)r->n_edges);
    qvb_text_f(&t, "    properties:");
    for (int32_t k = 0; k < r->n_props; k++) qvb_text_f(&t, " %s", r->props[k]);
    qvb_text_f(&t, "%s\n", r->n_props ? "" : " none");
    qvb_text_f(&t, "    out-degree: max %lld, %lld nodes with edges; in-degree: max %lld, %lld nodes with edges\n",
               (long long)r->deg[0].max, (long long)r->deg[0].with_edges, (long long)r->deg[1].max,
               (long long)r->deg[1].with_edges);
    qvb_text_f(&t, "    files %s, %s\n", r->file[0], r->file[1]);
  }
  for (int32_t i = 0; i < n; i++) {
    bool lab = i < c.n_labels;
    const char *ds = lab ? c.labels[i].dataset : c.types[i - c.n_labels].dataset;
    const char *nm = lab ? c.labels[i].name : c.types[i - c.n_labels].name;
    int64_t v = lab ? c.labels[i].version : c.types[i - c.n_labels].version;
    if (latest[i] == 0)
      qvb_text_f(&t, "missing: dataset %s (%s %s) cannot be opened\n", ds, lab ? "label" : "type", nm);
    else if (latest[i] != v)
      qvb_text_f(&t,
                 "stale: dataset %s (%s %s) is at version %lld, built from version %lld: run 'quiver graph "
                 "refresh %s'\n",
                 ds, lab ? "label" : "type", nm, (long long)latest[i], (long long)v, path);
  }
  qv_free(latest);
  qvg_catalog_reset(&c);
  if (t.oom || !t.p) {
    qvb_text_free(&t);
    return qv_error_nomem(err, path);
  }
  *out = t.p;
  return QV_OK;
}

/* ---- lookups ----------------------------------------------------------------------- */

int32_t qvg_label_find(const qv_graph *g, const char *name) {
  for (int32_t i = 0; i < g->cat.n_labels; i++)
    if (!strcmp(g->cat.labels[i].name, name)) return i;
  return -1;
}

int32_t qvg_type_find(const qv_graph *g, const char *name) {
  for (int32_t i = 0; i < g->cat.n_types; i++)
    if (!strcmp(g->cat.types[i].name, name)) return i;
  return -1;
}

int64_t qvg_node_position(const qv_graph *g, int32_t label, int64_t id) {
  if (label < 0 || label >= g->cat.n_labels) return -1;
  return qvg_node_index_find(&g->cat.labels[label].index, id);
}

qvg_span qvg_neighbours(const qv_graph *g, int32_t type, qvg_direction dir, int64_t pos) {
  qvg_span none = {NULL, NULL, 0};
  if (type < 0 || type >= g->cat.n_types) return none;
  return qvg_csr_span(&g->cat.types[type].csr[dir == QVG_IN], pos);
}

int64_t qvg_label_count(const qv_graph *g, int32_t label) {
  return label >= 0 && label < g->cat.n_labels ? g->cat.labels[label].n_nodes : 0;
}

int64_t qvg_type_count(const qv_graph *g, int32_t type) {
  return type >= 0 && type < g->cat.n_types ? g->cat.types[type].n_edges : 0;
}

void qvg_degree(const qv_graph *g, int32_t type, qvg_direction dir, qvg_degree_stats *out) {
  memset(out, 0, sizeof *out);
  if (type >= 0 && type < g->cat.n_types) *out = g->cat.types[type].deg[dir == QVG_IN];
}

bool qvg_locate(const int64_t *frag_start, int32_t n_fragments, int64_t pos, int32_t *out_fragment, int64_t *out_row) {
  if (n_fragments <= 0 || pos < 0 || pos >= frag_start[n_fragments]) return false;
  int32_t lo = 0, hi = n_fragments; /* the last fragment starting at or before pos */
  while (hi - lo > 1) {
    int32_t mid = lo + (hi - lo) / 2;
    if (frag_start[mid] <= pos) lo = mid;
    else hi = mid;
  }
  *out_fragment = lo;
  *out_row = pos - frag_start[lo];
  return true;
}
