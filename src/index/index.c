/* The index layer's public face: creating, dropping and optimizing indices
 * (each a new dataset version through storage's atomic commit), and
 * opening one to estimate and answer conjuncts fragment by fragment. */
#include <stdio.h>

#include "index/index_int.h"
#include "storage/manifest.h"

/* ---- writing files ---------------------------------------------------------- */

/* Written files of one commit, removed again unless it is published. */
typedef struct written {
  qv_index_file *files;
  int32_t n, cap;
} written;

static void written_reset(written *w, const char *path, bool remove_files) {
  for (int32_t i = 0; i < w->n; i++) {
    if (remove_files) {
      char *p = qvb_path_join(path, w->files[i].path);
      if (p) remove(p);
      qv_free(p);
    }
    qv_free((char *)w->files[i].path);
  }
  qv_free(w->files);
  memset(w, 0, sizeof *w);
}

/* Builds and writes the file of fragment i; appends it to w. */
static qv_status build_file(const qv_dataset *ds, int32_t frag, int32_t column, qv_index_type type, int64_t page_rows,
                            const void *model, written *w, qv_error *err) {
  qv_buffer bytes = QV_BUFFER_INIT;
  uint32_t crc = 0;
  QV_RETURN_NOT_OK(qvi_build_fragment(ds, frag, column, type, page_rows, model, &bytes, &crc, err));
  char hex[33], name[64];
  qv_status st = qvb_random_hex(hex, 16, err);
  snprintf(name, sizeof name, "_indices/%s.qvi", hex);
  char *full = st == QV_OK ? qvb_path_join(qv_dataset_path(ds), name) : NULL;
  if (st == QV_OK && !full) st = qv_error_nomem(err, NULL);
  if (st == QV_OK && w->n == w->cap) {
    int32_t cap = w->cap ? w->cap * 2 : 8;
    qv_index_file *nf = qv_realloc(w->files, (size_t)cap * sizeof *nf);
    if (!nf) st = qv_error_nomem(err, NULL);
    else {
      w->files = nf;
      w->cap = cap;
    }
  }
  if (st == QV_OK) st = qvb_file_write_new(full, name, bytes.data, bytes.size, err);
  if (st == QV_OK) {
    qv_fragment_info fi;
    qv_dataset_fragment(ds, frag, &fi);
    qv_index_file *f = &w->files[w->n];
    f->fragment_id = fi.id;
    f->size = bytes.size;
    f->footer_crc = crc;
    if (!(f->path = qv_strdup(name))) {
      remove(full);
      st = qv_error_nomem(err, NULL);
    } else {
      w->n++;
    }
  }
  qv_free(full);
  qv_buffer_reset(&bytes);
  return st;
}

static qv_status index_model(const qv_dataset *ds, int32_t i, void **model, qv_error *err);

static qv_status open_latest(const char *path, qv_dataset **ds, qv_error *err) {
  if (!path) return qv_error_set(err, QV_ERR_INVALID, "index: dataset path is NULL");
  QV_RETURN_NOT_OK(qv_dataset_open(path, 0, ds, err));
  char *dir = qvb_path_join(path, "_indices");
  if (!dir) return qv_error_nomem(err, NULL);
  qv_status st = qvb_file_mkdir(dir, err);
  qv_free(dir);
  return st;
}

static int32_t find_index(const qv_dataset *ds, const char *name) {
  for (int32_t i = 0; i < qv_dataset_num_indices(ds); i++) {
    qv_index_entry e;
    qv_dataset_index(ds, i, &e);
    if (strcmp(e.name, name) == 0) return i;
  }
  return -1;
}

qv_status qv_index_create(const char *path, const char *column, qv_index_type type, const qv_index_options *opts,
                          int64_t *out_version, qv_error *err) {
  qv_index_options defaults = QV_INDEX_OPTIONS_INIT;
  const qv_index_options *o = opts ? opts : &defaults;
  if (o->version == 1) { /* version 1 options end before the vector fields */
    defaults.name = o->name;
    defaults.btree_page_rows = o->btree_page_rows;
    o = &defaults;
  }
  if (o->version != QV_INDEX_OPTIONS_VERSION)
    return qv_error_set(err, QV_ERR_INVALID, "index options: version %d is not 1..%d", o->version,
                        QV_INDEX_OPTIONS_VERSION);
  if (o->btree_page_rows < 1 || o->btree_page_rows > (1 << 20))
    return qv_error_set(err, QV_ERR_INVALID, "index options: btree_page_rows %lld is outside 1..1048576",
                        (long long)o->btree_page_rows);
  if (!column) return qv_error_set(err, QV_ERR_INVALID, "index: a column is required");
  const qvi_kind *kind = qvi_kind_of(type);
  if (!kind) return qv_error_set(err, QV_ERR_INVALID, "index: unknown index type %d", (int)type);
  char name[QVS_MAX_INDEX_NAME + 1];
  if (o->name) {
    if (!qvs_valid_index_name(o->name))
      return qv_error_set(err, QV_ERR_INVALID, "index name \"%s\" is not 1..64 of [A-Za-z0-9_.-]", o->name);
    snprintf(name, sizeof name, "%s", o->name);
  } else {
    int n = snprintf(name, sizeof name, "%s_idx", column);
    if (n >= (int)sizeof name || !qvs_valid_index_name(name))
      return qv_error_set(err, QV_ERR_INVALID, "index: column `%s` makes no valid index name: give one", column);
  }
  qv_dataset *ds = NULL;
  QV_RETURN_NOT_OK(open_latest(path, &ds, err));
  written w = {0};
  qv_index_entry *all = NULL;
  void *model = NULL;
  qv_status st = QV_OK;
  const qv_schema *schema = qv_dataset_schema(ds);
  int32_t col = qv_schema_find(schema, column);
  if (col < 0) {
    st = qv_error_set(err, QV_ERR_NOT_FOUND, "%s: no column `%s`", path, column);
    goto cleanup;
  }
  if (!qvi_type_supported(type, &schema->fields[col].type)) {
    char tn[64];
    qv_datatype_format(&schema->fields[col].type, tn, sizeof tn);
    st = qv_error_set(err, QV_ERR_TYPE, "%s: column `%s` (%s) cannot have an index of type %s", path, column, tn,
                      qv_index_type_name(type));
    goto cleanup;
  }
  if (find_index(ds, name) >= 0) {
    st = qv_error_set(err, QV_ERR_EXISTS, "%s: an index named `%s` exists", path, name);
    goto cleanup;
  }
  if (kind->train && (st = kind->train(ds, col, o, &model, err)) != QV_OK) goto cleanup;
  for (int32_t i = 0; i < qv_dataset_num_fragments(ds) && st == QV_OK; i++)
    st = build_file(ds, i, col, type, o->btree_page_rows, model, &w, err);
  if (st != QV_OK) goto cleanup;
  int32_t n = qv_dataset_num_indices(ds);
  if (!(all = qv_calloc((size_t)n + 1, sizeof *all))) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  for (int32_t i = 0; i < n; i++) qv_dataset_index(ds, i, &all[i]);
  all[n] = (qv_index_entry){name, schema->fields[col].name, (int)type, 0, 0, w.n, w.files};
  st = qv_dataset_commit_indices(ds, all, n + 1, "index-add", out_version, err);
cleanup:
  if (model) kind->model_free(model);
  written_reset(&w, path, st != QV_OK);
  qv_free(all);
  qv_dataset_close(ds);
  return st;
}

qv_status qv_index_drop(const char *path, const char *name, int64_t *out_version, qv_error *err) {
  if (!name) return qv_error_set(err, QV_ERR_INVALID, "index drop: a name is required");
  qv_dataset *ds = NULL;
  QV_RETURN_NOT_OK(open_latest(path, &ds, err));
  qv_status st = QV_OK;
  int32_t n = qv_dataset_num_indices(ds), at = find_index(ds, name), k = 0;
  qv_index_entry *all = qv_calloc((size_t)n + 1, sizeof *all);
  if (!all) st = qv_error_nomem(err, NULL);
  else if (at < 0) st = qv_error_set(err, QV_ERR_NOT_FOUND, "%s: no index named `%s`", path, name);
  for (int32_t i = 0; i < n && st == QV_OK; i++)
    if (i != at) qv_dataset_index(ds, i, &all[k++]);
  if (st == QV_OK) st = qv_dataset_commit_indices(ds, all, k, "index-del", out_version, err);
  qv_free(all);
  qv_dataset_close(ds);
  return st;
}

qv_status qv_index_optimize(const char *path, const char *name, int64_t *out_version, qv_error *err) {
  if (out_version) *out_version = 0;
  qv_dataset *ds = NULL;
  QV_RETURN_NOT_OK(open_latest(path, &ds, err));
  int32_t n = qv_dataset_num_indices(ds), nf = qv_dataset_num_fragments(ds);
  qv_index_entry *all = qv_calloc((size_t)n + 1, sizeof *all);
  written *w = qv_calloc((size_t)n + 1, sizeof *w);
  qv_index_file **merged = qv_calloc((size_t)n + 1, sizeof *merged);
  qv_status st = all && w && merged ? QV_OK : qv_error_nomem(err, NULL);
  bool changed = false, found = !name;
  for (int32_t i = 0; i < n && st == QV_OK; i++) {
    qv_dataset_index(ds, i, &all[i]);
    if (name && strcmp(all[i].name, name) != 0) continue;
    found = true;
    int32_t col = qv_schema_find(qv_dataset_schema(ds), all[i].column);
    /* files for fragments not covered, in fragment order */
    int32_t have = 0;
    void *model = NULL;
    for (int32_t f = 0; f < nf && st == QV_OK; f++) {
      qv_fragment_info fi;
      qv_dataset_fragment(ds, f, &fi);
      while (have < all[i].n_files && all[i].files[have].fragment_id < fi.id) have++;
      if (have < all[i].n_files && all[i].files[have].fragment_id == fi.id) continue;
      if (!model && (st = index_model(ds, i, &model, err)) != QV_OK) break;
      st = build_file(ds, f, col, (qv_index_type)all[i].type, 4096, model, &w[i], err);
    }
    if (model) qvi_kind_of(all[i].type)->model_free(model);
    if (st != QV_OK || w[i].n == 0) continue;
    changed = true;
    int32_t total = all[i].n_files + w[i].n, a = 0, b = 0;
    if (!(merged[i] = qv_calloc((size_t)total, sizeof *merged[i]))) {
      st = qv_error_nomem(err, NULL);
      break;
    }
    for (int32_t k = 0; k < total; k++) /* both sorted by fragment id */
      merged[i][k] = (b >= w[i].n || (a < all[i].n_files && all[i].files[a].fragment_id < w[i].files[b].fragment_id))
                         ? all[i].files[a++]
                         : w[i].files[b++];
    all[i].files = merged[i];
    all[i].n_files = total;
    all[i].updated_version = 0; /* this commit */
  }
  if (st == QV_OK && !found) st = qv_error_set(err, QV_ERR_NOT_FOUND, "%s: no index named `%s`", path, name);
  if (st == QV_OK && changed) st = qv_dataset_commit_indices(ds, all, n, "index-opt", out_version, err);
  for (int32_t i = 0; w && i < n; i++) {
    written_reset(&w[i], path, st != QV_OK);
    if (merged) qv_free(merged[i]);
  }
  qv_free(w);
  qv_free(merged);
  qv_free(all);
  qv_dataset_close(ds);
  return st;
}

/* ---- reading ----------------------------------------------------------------- */

/* A file found unusable: the status and message of its first failure. */
typedef struct damage {
  qv_status status; /* QV_OK: not found damaged */
  char *message;    /* qv_malloc'd; NULL if that allocation failed */
} damage;

struct qv_index {
  const qv_dataset *ds;
  qv_index_entry entry; /* pointers into ds */
  int32_t column;
  const qv_datatype *ctype;
  qvi_file **files; /* opened on first use */
  /* Damaged files, one slot per file: once a file fails to read it is not
   * read again through this handle (a scan asks it once per conjunct). */
  damage *damaged;
  int32_t n_damaged;
  int32_t first_damaged; /* -1: none */
  bool tolerant;
};

bool qv_index_damage_status(qv_status st) {
  return st == QV_ERR_CORRUPT || st == QV_ERR_IO || st == QV_ERR_NOT_FOUND || st == QV_ERR_UNSUPPORTED;
}

/* Records file k as damaged when st says so; returns st. */
static qv_status note_damage(qv_index *ix, int32_t k, qv_status st, const qv_error *e) {
  if (!qv_index_damage_status(st) || ix->damaged[k].status != QV_OK) return st;
  ix->damaged[k].status = st;
  ix->damaged[k].message = qv_strdup(e->message);
  if (ix->first_damaged < 0) ix->first_damaged = k;
  ix->n_damaged++;
  return st; /* an open file stays open (its counters count) but unread */
}

static qv_status copy_error(qv_error *err, qv_status st, const qv_error *e) {
  return err ? qv_error_set(err, st, "%s", e->message) : st;
}

qv_status qv_index_open(const qv_dataset *ds, int32_t i, qv_index **out, qv_error *err) {
  *out = NULL;
  if (i < 0 || i >= qv_dataset_num_indices(ds))
    return qv_error_set(err, QV_ERR_INVALID, "index %d of %d does not exist", i, qv_dataset_num_indices(ds));
  qv_index *ix = qv_calloc(1, sizeof *ix);
  if (!ix) return qv_error_nomem(err, NULL);
  ix->ds = ds;
  qv_dataset_index(ds, i, &ix->entry);
  ix->column = qv_schema_find(qv_dataset_schema(ds), ix->entry.column);
  ix->ctype = &qv_dataset_schema(ds)->fields[ix->column].type;
  size_t nfiles = (size_t)(ix->entry.n_files > 0 ? ix->entry.n_files : 1);
  ix->files = qv_calloc(nfiles, sizeof *ix->files);
  ix->damaged = qv_calloc(nfiles, sizeof *ix->damaged);
  ix->first_damaged = -1;
  if (!ix->files || !ix->damaged) {
    qv_free(ix->files);
    qv_free(ix->damaged);
    qv_free(ix);
    return qv_error_nomem(err, NULL);
  }
  if (!qvi_type_supported((qv_index_type)ix->entry.type, ix->ctype)) {
    qv_index_close(ix);
    return qv_error_set(err, QV_ERR_CORRUPT, "index `%s`: a %s index cannot be on column `%s`", ix->entry.name,
                        qv_index_type_name(ix->entry.type), ix->entry.column);
  }
  *out = ix;
  return QV_OK;
}

void qv_index_close(qv_index *ix) {
  if (!ix) return;
  for (int32_t i = 0; i < ix->entry.n_files; i++) {
    qvi_file_close(ix->files[i]);
    qv_free(ix->damaged[i].message);
  }
  qv_free(ix->files);
  qv_free(ix->damaged);
  qv_free(ix);
}

const char *qv_index_name(const qv_index *ix) { return ix->entry.name; }
qv_index_type qv_index_kind(const qv_index *ix) { return (qv_index_type)ix->entry.type; }
int32_t qv_index_column(const qv_index *ix) { return ix->column; }

static int32_t file_of(const qv_index *ix, int64_t fragment_id) {
  int32_t lo = 0, hi = ix->entry.n_files;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (ix->entry.files[mid].fragment_id < fragment_id) lo = mid + 1;
    else hi = mid;
  }
  return lo < ix->entry.n_files && ix->entry.files[lo].fragment_id == fragment_id ? lo : -1;
}

bool qv_index_covers(const qv_index *ix, int64_t fragment_id) { return file_of(ix, fragment_id) >= 0; }

/* Opens file k, checking it is the very file the manifest recorded. */
static qv_status open_file(qv_index *ix, int32_t k, qvi_file **out, qv_error *err) {
  if (!ix->files[k]) {
    const qv_index_file *e = &ix->entry.files[k];
    char *full = qvb_path_join(qv_dataset_path(ix->ds), e->path);
    if (!full) return qv_error_nomem(err, NULL);
    qvi_file *f = NULL;
    qv_status st = qvi_file_open(full, e->path, e->fragment_id, ix->entry.type, &f, err);
    qv_free(full);
    QV_RETURN_NOT_OK(st);
    const qv_datatype *kt = qvi_kind_of(ix->entry.type)->key_type(ix->ctype);
    if (f->file_size != e->size || f->footer_crc != e->footer_crc) {
      st = qv_error_set(err, QV_ERR_CORRUPT,
                        "%s: %lld bytes with footer checksum %08x, the manifest says %lld bytes "
                        "and %08x",
                        e->path, (long long)f->file_size, f->footer_crc, (long long)e->size, e->footer_crc);
    } else if (f->key_type != kt->id) {
      st = qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %lld: key type %d is not the column's", e->path,
                        (long long)(f->file_size - QVI_TRAILER - f->footer_len + 1), (int)f->key_type);
    }
    if (st != QV_OK) {
      qvi_file_close(f);
      return st;
    }
    ix->files[k] = f;
  }
  *out = ix->files[k];
  return QV_OK;
}

/* open_file, remembering damage: a file found damaged fails again with
 * its first error, without being read. */
static qv_status get_file(qv_index *ix, int32_t k, qvi_file **out, qv_error *err) {
  const damage *d = &ix->damaged[k];
  if (d->status != QV_OK) return qv_error_set(err, d->status, "%s", d->message ? d->message : ix->entry.files[k].path);
  qv_error e;
  qv_status st = open_file(ix, k, out, &e);
  if (st != QV_OK) return copy_error(err, note_damage(ix, k, st, &e), &e);
  return QV_OK;
}

/* Ends a read of file k's chunks: damage is remembered, the error copied. */
static qv_status read_done(qv_index *ix, int32_t k, qv_status st, const qv_error *e, qv_error *err) {
  if (st == QV_OK) return QV_OK;
  return copy_error(err, note_damage(ix, k, st, e), e);
}

qv_status qv_index_stats_get(qv_index *ix, qv_index_stats *out, qv_error *err) {
  memset(out, 0, sizeof *out);
  for (int32_t k = 0; k < ix->entry.n_files; k++) {
    qvi_file *f;
    qv_status st = get_file(ix, k, &f, err);
    if (st != QV_OK && ix->tolerant && qv_index_damage_status(st)) continue;
    QV_RETURN_NOT_OK(st);
    f->kind->stats(f, out);
  }
  return QV_OK;
}

qv_status qv_index_estimate_rows(qv_index *ix, const qv_expr *conjunct, qv_index_estimate *out, qv_error *err) {
  memset(out, 0, sizeof *out);
  qvi_ask a;
  bool ok;
  QV_RETURN_NOT_OK(qvi_match((qv_index_type)ix->entry.type, ix->column, ix->ctype, conjunct, &a, &ok, err));
  if (!ok) return QV_OK;
  qv_status st = QV_OK;
  for (int32_t k = 0; k < ix->entry.n_files && st == QV_OK; k++) {
    qvi_file *f;
    int64_t rows = 0, read = 0;
    qv_error e;
    if ((st = get_file(ix, k, &f, &e)) == QV_OK)
      st = read_done(ix, k, qvi_file_estimate(f, &a, &rows, &read, &e), &e, NULL);
    if (st != QV_OK && ix->tolerant && qv_index_damage_status(st)) {
      st = QV_OK; /* left out, as a fragment the index does not cover */
      continue;
    }
    if (st != QV_OK) {
      copy_error(err, st, &e);
      break;
    }
    out->rows += rows;
    out->entries_read += read;
    out->covered_rows += f->num_rows;
  }
  if (st == QV_OK) out->answer = a.exact ? QV_INDEX_EXACT : QV_INDEX_SUPERSET;
  qvi_ask_reset(&a);
  return st;
}

qv_status qv_index_query(qv_index *ix, const qv_expr *conjunct, int64_t fragment_id, roaring_bitmap_t *out, bool *exact,
                         qv_error *err) {
  *exact = false;
  int32_t k = file_of(ix, fragment_id);
  if (k < 0)
    return qv_error_set(err, QV_ERR_INVALID, "index `%s` does not cover fragment %lld", ix->entry.name,
                        (long long)fragment_id);
  qvi_ask a;
  bool ok;
  QV_RETURN_NOT_OK(qvi_match((qv_index_type)ix->entry.type, ix->column, ix->ctype, conjunct, &a, &ok, err));
  if (!ok) return qv_error_set(err, QV_ERR_INVALID, "index `%s` cannot answer this conjunct", ix->entry.name);
  qvi_file *f;
  qv_error e;
  qv_status st = get_file(ix, k, &f, &e);
  if (st == QV_OK) st = read_done(ix, k, qvi_file_query(f, &a, out, &e), &e, NULL);
  if (st == QV_OK) *exact = a.exact;
  else copy_error(err, st, &e);
  qvi_ask_reset(&a);
  return st;
}

void qv_index_counters(const qv_index *ix, qv_io_counters *out) {
  memset(out, 0, sizeof *out);
  for (int32_t i = 0; i < ix->entry.n_files; i++) {
    if (!ix->files[i]) continue;
    out->bytes_read += ix->files[i]->io.bytes_read;
    out->pages_read += ix->files[i]->io.pages_read;
  }
}

/* ---- damaged files ------------------------------------------------------------- */

void qv_index_set_tolerant(qv_index *ix, bool on) { ix->tolerant = on; }

int32_t qv_index_damaged(const qv_index *ix, const char **first_error) {
  if (first_error) {
    *first_error = NULL;
    if (ix->first_damaged >= 0) {
      const damage *d = &ix->damaged[ix->first_damaged];
      *first_error = d->message ? d->message : ix->entry.files[ix->first_damaged].path;
    }
  }
  return ix->n_damaged;
}

bool qv_index_fragment_damaged(const qv_index *ix, int64_t fragment_id) {
  int32_t k = file_of(ix, fragment_id);
  return k >= 0 && ix->damaged[k].status != QV_OK;
}

qv_status qv_index_verify(qv_index *ix, int32_t *damaged, qv_error *err) {
  qv_status st = QV_OK;
  for (int32_t k = 0; k < ix->entry.n_files && st == QV_OK; k++) {
    qvi_file *f;
    qv_error e;
    st = get_file(ix, k, &f, &e);
    for (int32_t c = 0; st == QV_OK && c < f->n_chunks; c++) {
      uint8_t *bytes = NULL;
      char what[32];
      qvi_chunk_role(f, c, what, sizeof what);
      st = read_done(ix, k, qvi_file_chunk(f, c, what, &bytes, &e), &e, NULL);
      qv_free(bytes);
    }
    if (st == QV_OK && f->kind->verify) st = read_done(ix, k, f->kind->verify(f, &e), &e, NULL);
    if (qv_index_damage_status(st)) st = QV_OK; /* recorded */
    else if (st != QV_OK) copy_error(err, st, &e);
  }
  if (damaged) *damaged = ix->n_damaged;
  return st;
}

qv_status qv_index_rebuild(const char *path, const char *name, int32_t *rebuilt, int64_t *out_version, qv_error *err) {
  if (rebuilt) *rebuilt = 0;
  if (out_version) *out_version = 0;
  qv_dataset *ds = NULL;
  QV_RETURN_NOT_OK(open_latest(path, &ds, err));
  int32_t n = qv_dataset_num_indices(ds), nf = qv_dataset_num_fragments(ds), count = 0;
  qv_index_entry *all = qv_calloc((size_t)n + 1, sizeof *all);
  written *w = qv_calloc((size_t)n + 1, sizeof *w);
  qv_index_file **files = qv_calloc((size_t)n + 1, sizeof *files);
  qv_status st = all && w && files ? QV_OK : qv_error_nomem(err, NULL);
  bool found = !name;
  for (int32_t i = 0; i < n && st == QV_OK; i++) {
    qv_dataset_index(ds, i, &all[i]);
    if (name && strcmp(all[i].name, name) != 0) continue;
    found = true;
    qv_index *ix = NULL;
    void *model = NULL;
    int32_t bad = 0;
    st = qv_index_open(ds, i, &ix, err);
    if (st == QV_OK) st = qv_index_verify(ix, &bad, err);
    if (st == QV_OK && bad > 0) st = index_model(ds, i, &model, err);
    if (st == QV_OK && bad > 0 && !(files[i] = qv_calloc((size_t)all[i].n_files, sizeof *files[i])))
      st = qv_error_nomem(err, NULL);
    for (int32_t k = 0; st == QV_OK && bad > 0 && k < all[i].n_files; k++) {
      files[i][k] = all[i].files[k];
      if (ix->damaged[k].status == QV_OK) continue;
      for (int32_t f = 0; f < nf; f++) { /* the fragment the file covers, by id */
        qv_fragment_info fi;
        qv_dataset_fragment(ds, f, &fi);
        if (fi.id != all[i].files[k].fragment_id) continue;
        if ((st = build_file(ds, f, ix->column, (qv_index_type)all[i].type, 4096, model, &w[i], err)) == QV_OK) {
          files[i][k] = w[i].files[w[i].n - 1];
          count++;
        }
        break;
      }
    }
    if (st == QV_OK && bad > 0) {
      all[i].files = files[i];
      all[i].updated_version = 0; /* this commit */
    }
    if (model) qvi_kind_of(all[i].type)->model_free(model);
    qv_index_close(ix);
  }
  if (st == QV_OK && !found) st = qv_error_set(err, QV_ERR_NOT_FOUND, "%s: no index named `%s`", path, name);
  if (st == QV_OK && count > 0) st = qv_dataset_commit_indices(ds, all, n, "index-rebuild", out_version, err);
  if (st == QV_OK && rebuilt) *rebuilt = count;
  for (int32_t i = 0; w && i < n; i++) {
    written_reset(&w[i], path, st != QV_OK);
    if (files) qv_free(files[i]);
  }
  qv_free(w);
  qv_free(files);
  qv_free(all);
  qv_dataset_close(ds);
  return st;
}

/* The trained model of index i (kinds that train: vector kinds), from the
 * first of its files that reads, so that files built now for new or
 * damaged fragments agree with the others; NULL for the other kinds. */
static qv_status index_model(const qv_dataset *ds, int32_t i, void **model, qv_error *err) {
  *model = NULL;
  qv_index_entry e;
  qv_dataset_index(ds, i, &e);
  const qvi_kind *kind = qvi_kind_of(e.type);
  if (!kind || !kind->model_of) return QV_OK;
  qv_index *ix = NULL;
  QV_RETURN_NOT_OK(qv_index_open(ds, i, &ix, err));
  qv_status st = QV_ERR_NOT_FOUND;
  qv_error first;
  first.message[0] = 0;
  for (int32_t k = 0; k < ix->entry.n_files && st != QV_OK; k++) {
    qvi_file *f;
    qv_error e1;
    st = get_file(ix, k, &f, &e1);
    if (st == QV_OK) st = read_done(ix, k, kind->model_of(f, model, &e1), &e1, NULL);
    if (st == QV_ERR_NOMEM) {
      copy_error(err, st, &e1);
      break;
    }
    if (st != QV_OK && !first.message[0]) first = e1;
  }
  if (st != QV_OK && st != QV_ERR_NOMEM)
    st =
        qv_error_set(err, QV_ERR_CORRUPT, "index `%s`: no file to take its trained model from (%s); drop and create it",
                     e.name, first.message[0] ? first.message : "it has none");
  qv_index_close(ix);
  return st;
}

/* ---- vector search -------------------------------------------------------------- */

qv_status qv_index_vector_info_get(qv_index *ix, qv_index_vector_info *out, qv_error *err) {
  memset(out, 0, sizeof *out);
  const qvi_kind *kind = qvi_kind_of(ix->entry.type);
  if (!kind || !kind->vector_info)
    return qv_error_set(err, QV_ERR_INVALID, "index `%s` (%s) is not a vector index", ix->entry.name,
                        qv_index_type_name(ix->entry.type));
  qv_status st = QV_ERR_NOT_FOUND;
  qv_error e;
  for (int32_t k = 0; k < ix->entry.n_files && st != QV_OK; k++) {
    qvi_file *f;
    if ((st = get_file(ix, k, &f, &e)) == QV_OK) kind->vector_info(f, out);
    else if (st == QV_ERR_NOMEM) return copy_error(err, st, &e);
  }
  if (st != QV_OK)
    return qv_error_set(err, QV_ERR_NOT_FOUND, "index `%s`: no readable file%s%s", ix->entry.name,
                        ix->entry.n_files ? ": " : "", ix->entry.n_files ? e.message : "");
  return QV_OK;
}

qv_status qv_index_search(qv_index *ix, int64_t fragment_id, const qv_index_search_args *a, qv_index_candidate *out,
                          int64_t *n_out, qv_index_search_stats *stats, qv_error *err) {
  const qvi_kind *kind = qvi_kind_of(ix->entry.type);
  if (!kind || !kind->search)
    return qv_error_set(err, QV_ERR_INVALID, "index `%s` (%s) is not a vector index", ix->entry.name,
                        qv_index_type_name(ix->entry.type));
  int32_t k = file_of(ix, fragment_id);
  if (k < 0)
    return qv_error_set(err, QV_ERR_INVALID, "index `%s` does not cover fragment %lld", ix->entry.name,
                        (long long)fragment_id);
  qv_index_search_stats none = {0, 0, 0};
  qvi_file *f;
  qv_error e;
  qv_status st = get_file(ix, k, &f, &e);
  /* rows beyond the fragment's would index past the caller's skip bits */
  for (int32_t i = 0; st == QV_OK && i < qv_dataset_num_fragments(ix->ds); i++) {
    qv_fragment_info fi;
    qv_dataset_fragment(ix->ds, i, &fi);
    if (fi.id == fragment_id && fi.num_rows != f->num_rows)
      st = read_done(ix, k,
                     qv_error_set(&e, QV_ERR_CORRUPT, "%s: covers %lld rows, fragment %lld has %lld", f->name,
                                  (long long)f->num_rows, (long long)fragment_id, (long long)fi.num_rows),
                     &e, NULL);
  }
  if (st == QV_OK) st = read_done(ix, k, kind->search(f, a, out, n_out, stats ? stats : &none, &e), &e, NULL);
  if (st != QV_OK) copy_error(err, st, &e);
  return st;
}
