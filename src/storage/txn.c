/* Transactions: the one commit path (txn.h).  A transaction holds the
 * version it read and a list of changes; commit builds the next manifest
 * from them and publishes it through qvs_publish_manifest (temp file,
 * fsync, link that never replaces).  When the link finds the number taken,
 * the winner is read and compared with our changes (txn_conflict):
 * compatible changes are rebuilt on top of it and the next number is
 * tried, incompatible ones fail with QV_ERR_CONFLICT naming the winner.
 * Files the transaction wrote (data files, deletion files) are removed
 * when it does not commit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/wire.h"
#include "storage/format.h"
#include "storage/txn.h"

/* Rebases one commit may make before giving up: each one means another
 * writer's commit landed first, so this bounds a pathological stream of
 * winners, not ordinary contention (N racing writers need at most N - 1). */
#define QVS_TXN_MAX_REBASES 10000

qv_status qvs_manifest_copy(const qvs_manifest *src, qvs_manifest *dst, qv_error *err) {
  qvs_manifest_init(dst);
  dst->format_version = src->format_version;
  dst->version = src->version;
  dst->timestamp_ms = src->timestamp_ms;
  memcpy(dst->operation, src->operation, sizeof dst->operation);
  dst->next_fragment_id = src->next_fragment_id;
  qv_status st = qv_schema_copy(&src->schema, &dst->schema) == QV_OK ? QV_OK : qv_error_nomem(err, NULL);
  for (int32_t i = 0; i < src->n_fragments && st == QV_OK; i++)
    st = qvs_manifest_add_fragment(dst, &src->fragments[i], err);
  if (st == QV_OK) st = qvs_manifest_carry_indices(dst, src, err);
  if (st != QV_OK) qvs_manifest_reset(dst);
  return st;
}

static qv_status txn_init(qvs_txn *t, const char *path, const char *operation, qv_error *err) {
  memset(t, 0, sizeof *t);
  qvs_manifest_init(&t->base);
  t->schema = (qv_schema)QV_SCHEMA_INIT;
  snprintf(t->operation, sizeof t->operation, "%s", operation ? operation : "");
  if (!(t->path = qv_strdup(path))) return qv_error_nomem(err, NULL);
  return QV_OK;
}

qv_status qvs_txn_begin(qvs_txn *t, const char *path, int64_t version, const char *operation, qv_error *err) {
  QV_RETURN_NOT_OK(txn_init(t, path, operation, err));
  qv_status st = QV_OK;
  int64_t latest = 0;
  if (version == 0) {
    if ((st = qvs_latest_version(path, &latest, err)) == QV_OK && latest > 0)
      st = qvs_manifest_read_latest(path, latest, &t->base, err);
    version = latest;
  } else {
    st = qvs_manifest_read(path, version, &t->base, err);
  }
  t->read_version = version;
  if (st != QV_OK) qvs_txn_reset(t);
  return st;
}

qv_status qvs_txn_begin_from(qvs_txn *t, const qv_dataset *ds, const char *operation, qv_error *err) {
  QV_RETURN_NOT_OK(txn_init(t, ds->path, operation, err));
  qv_status st = qvs_manifest_copy(&ds->manifest, &t->base, err);
  t->read_version = ds->manifest.version;
  if (st != QV_OK) qvs_txn_reset(t);
  return st;
}

qv_status qvs_txn_begin_blind(qvs_txn *t, const char *path, int64_t latest, const char *operation, qv_error *err) {
  QV_RETURN_NOT_OK(txn_init(t, path, operation, err));
  t->read_version = latest;
  return QV_OK;
}

void qvs_txn_reset(qvs_txn *t) {
  if (!t) return;
  for (int32_t i = 0; i < t->n_written; i++) {
    if (!t->committed && !t->keep_files) remove(t->written[i]);
    qv_free(t->written[i]);
  }
  qv_free(t->written);
  for (int32_t i = 0; i < t->n_added; i++) qv_free(t->added[i].data_file);
  qv_free(t->added);
  for (int32_t i = 0; i < t->n_kept; i++) {
    qv_free(t->kept[i].data_file);
    qv_free(t->kept[i].deletion_file);
  }
  qv_free(t->kept);
  for (int32_t i = 0; i < t->n_dels; i++) qv_free(t->dels[i].deletion_file);
  qv_free(t->dels);
  qv_free(t->removed);
  for (int32_t i = 0; i < t->n_indices; i++) qvs_index_meta_reset(&t->indices[i]);
  qv_free(t->indices);
  qv_schema_reset(&t->schema);
  qvs_manifest_reset(&t->base);
  qv_free(t->path);
  memset(t, 0, sizeof *t);
}

/* Grows *p (n used, *cap slots of size bytes) to hold one more. */
static qv_status grow(void **p, int32_t n, int32_t *cap, size_t size, qv_error *err) {
  if (n < *cap) return QV_OK;
  int32_t ncap = *cap ? *cap * 2 : 8;
  void *np = qv_realloc(*p, (size_t)ncap * size);
  if (!np) return qv_error_nomem(err, NULL);
  *p = np;
  *cap = ncap;
  return QV_OK;
}

static qv_status note_written(qvs_txn *t, const char *rel, qv_error *err) {
  QV_RETURN_NOT_OK(grow((void **)&t->written, t->n_written, &t->cap_written, sizeof *t->written, err));
  char *full = qvb_path_join(t->path, rel);
  if (!full) return qv_error_nomem(err, NULL);
  t->written[t->n_written++] = full;
  return QV_OK;
}

qv_status qvs_txn_replace(qvs_txn *t, qvs_txn_kind kind, const qv_schema *schema, qv_error *err) {
  t->kind = kind;
  qv_schema_reset(&t->schema);
  if (qv_schema_copy(schema, &t->schema) != QV_OK) return qv_error_nomem(err, NULL);
  return QV_OK;
}

qv_status qvs_txn_add_fragment(qvs_txn *t, const char *data_file, int64_t num_rows, qv_error *err) {
  QV_RETURN_NOT_OK(note_written(t, data_file, err));
  QV_RETURN_NOT_OK(grow((void **)&t->added, t->n_added, &t->cap_added, sizeof *t->added, err));
  qvs_fragment_meta *f = &t->added[t->n_added];
  memset(f, 0, sizeof *f);
  if (!(f->data_file = qv_strdup(data_file))) return qv_error_nomem(err, NULL);
  f->num_rows = num_rows;
  t->n_added++;
  return QV_OK;
}

qv_status qvs_txn_keep_fragment(qvs_txn *t, const qvs_fragment_meta *f, qv_error *err) {
  qvs_fragment_meta *nk = qv_realloc(t->kept, (size_t)(t->n_kept + 1) * sizeof *nk);
  if (!nk) return qv_error_nomem(err, NULL);
  t->kept = nk;
  qvs_fragment_meta *d = &t->kept[t->n_kept];
  *d = *f;
  d->data_file = qv_strdup(f->data_file);
  d->deletion_file = f->deletion_file ? qv_strdup(f->deletion_file) : NULL;
  if (!d->data_file || (f->deletion_file && !d->deletion_file)) {
    qv_free(d->data_file);
    qv_free(d->deletion_file);
    return qv_error_nomem(err, NULL);
  }
  t->n_kept++;
  return QV_OK;
}

static const qvs_txn_delete *find_delete(const qvs_txn *t, int64_t id) {
  for (int32_t i = 0; i < t->n_dels; i++)
    if (t->dels[i].fragment_id == id) return &t->dels[i];
  return NULL;
}

static bool is_removed(const qvs_txn *t, int64_t id) {
  for (int32_t i = 0; i < t->n_removed; i++)
    if (t->removed[i] == id) return true;
  return false;
}

/* Writes a deletion file "_deletions/<id>-<version>.del" (the version this
 * commit first tries).  Two writers racing for that version can pick the
 * same name; the loser of the O_EXCL create takes a name with a random
 * tail, still of the format's shape (digits-digits), so it never replaces
 * a file someone else may name. */
static qv_status write_deletion_file(qvs_txn *t, const qvs_fragment_meta *f, const uint8_t *bits, int64_t count,
                                     char *name, size_t size, qv_error *err) {
  qv_buffer bytes = QV_BUFFER_INIT;
  QV_RETURN_NOT_OK(qvs_deletion_encode(f->id, f->num_rows, bits, count, &bytes, err));
  qv_status st = QV_OK;
  for (int attempt = 0; attempt < 8; attempt++) {
    if (attempt == 0) {
      snprintf(name, size, "_deletions/%lld-%lld.del", (long long)f->id, (long long)(t->read_version + 1));
    } else {
      char hex[9];
      if ((st = qvb_random_hex(hex, 4, err)) != QV_OK) break;
      snprintf(name, size, "_deletions/%lld-%lld%010lu.del", (long long)f->id, (long long)(t->read_version + 1),
               strtoul(hex, NULL, 16));
    }
    char *full = qvb_path_join(t->path, name);
    if (!full) {
      st = qv_error_nomem(err, NULL);
      break;
    }
    st = qvb_file_write_new(full, name, bytes.data, bytes.size, err);
    qv_free(full);
    if (st != QV_ERR_EXISTS) break;
  }
  qv_buffer_reset(&bytes);
  if (st == QV_OK) st = note_written(t, name, err);
  return st;
}

qv_status qvs_txn_delete_rows(qvs_txn *t, int32_t fragment, const uint8_t *del, qv_error *err) {
  if (fragment < 0 || fragment >= t->base.n_fragments)
    return qv_error_set(err, QV_ERR_INVALID, "delete: fragment %d is not in version %lld", fragment,
                        (long long)t->read_version);
  const qvs_fragment_meta *f = &t->base.fragments[fragment];
  if (find_delete(t, f->id) || is_removed(t, f->id))
    return qv_error_set(err, QV_ERR_INVALID, "delete: fragment %lld is changed twice in one commit", (long long)f->id);
  if (t->n_dels == 0) QV_RETURN_NOT_OK(qvs_ensure_layout(t->path, err));
  uint8_t *bits = NULL;
  QV_RETURN_NOT_OK(qvs_deletion_load(t->path, f, &bits, err));
  int64_t nbytes = qv_bitmap_bytes(f->num_rows);
  if (!bits && !(bits = qv_calloc(1, (size_t)nbytes + 1))) return qv_error_nomem(err, NULL);
  for (int64_t b = 0; b < nbytes; b++) bits[b] |= del[b];
  if (f->num_rows & 7) bits[nbytes - 1] &= (uint8_t)((1u << (f->num_rows & 7)) - 1);
  int64_t count = qv_bitmap_count(bits, 0, f->num_rows);
  qv_status st = QV_OK;
  if (count == f->num_deleted) goto cleanup; /* nothing new here */
  if ((st = grow((void **)&t->dels, t->n_dels, &t->cap_dels, sizeof *t->dels, err)) != QV_OK) goto cleanup;
  qvs_txn_delete *d = &t->dels[t->n_dels];
  memset(d, 0, sizeof *d);
  d->fragment_id = f->id;
  d->num_deleted = count;
  if (count == f->num_rows) {
    d->drop = true;
  } else {
    char name[96];
    if ((st = write_deletion_file(t, f, bits, count, name, sizeof name, err)) != QV_OK) goto cleanup;
    if (!(d->deletion_file = qv_strdup(name))) {
      st = qv_error_nomem(err, NULL);
      goto cleanup;
    }
  }
  t->n_dels++;
cleanup:
  qv_free(bits);
  return st;
}

qv_status qvs_txn_remove_fragment(qvs_txn *t, int64_t id, qv_error *err) {
  if (find_delete(t, id) || is_removed(t, id))
    return qv_error_set(err, QV_ERR_INVALID, "commit: fragment %lld is changed twice in one commit", (long long)id);
  QV_RETURN_NOT_OK(grow((void **)&t->removed, t->n_removed, &t->cap_removed, sizeof *t->removed, err));
  t->removed[t->n_removed++] = id;
  return QV_OK;
}

qv_status qvs_txn_set_indices(qvs_txn *t, const qv_index_entry *entries, int32_t n, qv_error *err) {
  for (int32_t i = 0; i < t->n_indices; i++) qvs_index_meta_reset(&t->indices[i]);
  qv_free(t->indices);
  t->indices = NULL;
  t->n_indices = 0;
  t->set_indices = true;
  if (n == 0) return QV_OK;
  if (!(t->indices = qv_calloc((size_t)n, sizeof *t->indices))) return qv_error_nomem(err, NULL);
  for (int32_t i = 0; i < n; i++) {
    const qv_index_entry *e = &entries[i];
    qvs_index_meta *x = &t->indices[i];
    t->n_indices = i + 1;
    x->name = qv_strdup(e->name);
    x->column = qv_strdup(e->column);
    x->type = e->type;
    x->built_version = e->built_version;
    x->updated_version = e->updated_version;
    if (!x->name || !x->column) return qv_error_nomem(err, NULL);
    if (e->n_files > 0) {
      if (!(x->files = qv_calloc((size_t)e->n_files, sizeof *x->files))) return qv_error_nomem(err, NULL);
      for (int32_t k = 0; k < e->n_files; k++) {
        x->files[k] = e->files[k];
        x->files[k].path = NULL;
        x->n_files = k + 1;
        if (!(x->files[k].path = qv_strdup(e->files[k].path))) return qv_error_nomem(err, NULL);
      }
    }
  }
  return QV_OK;
}

bool qvs_txn_empty(const qvs_txn *t) {
  return t->kind == QVS_TXN_UPDATE && t->n_added == 0 && t->n_dels == 0 && t->n_removed == 0 && !t->set_indices;
}

/* ---- building the next manifest ------------------------------------------ */

static qv_status build_next(const qvs_txn *t, const qvs_manifest *cur, int64_t version, qvs_manifest *next,
                            qv_error *err) {
  qvs_manifest_init(next);
  next->version = version;
  next->timestamp_ms = qvs_now_ms();
  memcpy(next->operation, t->operation, sizeof next->operation);
  const qv_schema *schema = t->kind == QVS_TXN_UPDATE ? &cur->schema : &t->schema;
  if (qv_schema_copy(schema, &next->schema) != QV_OK) return qv_error_nomem(err, NULL);
  next->next_fragment_id = cur->next_fragment_id > t->fragment_id_floor ? cur->next_fragment_id : t->fragment_id_floor;
  qv_status st = QV_OK;
  if (t->kind == QVS_TXN_RESTORE)
    for (int32_t i = 0; i < t->n_kept && st == QV_OK; i++) st = qvs_manifest_add_fragment(next, &t->kept[i], err);
  if (t->kind == QVS_TXN_UPDATE) {
    for (int32_t i = 0; i < cur->n_fragments && st == QV_OK; i++) {
      const qvs_fragment_meta *f = &cur->fragments[i];
      const qvs_txn_delete *d = find_delete(t, f->id);
      if (is_removed(t, f->id) || (d && d->drop)) continue;
      qvs_fragment_meta nf = *f;
      if (d) {
        nf.deletion_file = d->deletion_file;
        nf.num_deleted = d->num_deleted;
      }
      st = qvs_manifest_add_fragment(next, &nf, err);
    }
  }
  for (int32_t i = 0; i < t->n_added && st == QV_OK; i++) {
    qvs_fragment_meta nf = t->added[i];
    nf.id = next->next_fragment_id++;
    st = qvs_manifest_add_fragment(next, &nf, err);
  }
  if (st != QV_OK) return st;
  if (t->set_indices) {
    for (int32_t i = 0; i < t->n_indices && st == QV_OK; i++) {
      const qvs_index_meta *x = &t->indices[i];
      qv_index_entry e = {x->name, x->column, x->type, x->built_version, x->updated_version, x->n_files, x->files};
      if (e.built_version == 0) e.built_version = version; /* 0: this commit */
      if (e.updated_version == 0) e.updated_version = version;
      st = qvs_manifest_add_index(next, &e, err);
    }
  } else if (t->kind == QVS_TXN_UPDATE) {
    /* Index files of fragments that are gone are dropped with them; new
     * fragments are not covered until the indices are optimized. */
    st = qvs_manifest_carry_indices(next, cur, err);
  }
  return st;
}

/* ---- conflicts ------------------------------------------------------------ */

static bool same_str(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

static const qvs_fragment_meta *find_fragment(const qvs_manifest *m, int64_t id) {
  for (int32_t i = 0; i < m->n_fragments; i++)
    if (m->fragments[i].id == id) return &m->fragments[i];
  return NULL;
}

static bool same_indices(const qvs_manifest *a, const qvs_manifest *b) {
  if (a->n_indices != b->n_indices) return false;
  for (int32_t i = 0; i < a->n_indices; i++) {
    const qvs_index_meta *x = &a->indices[i], *y = &b->indices[i];
    if (strcmp(x->name, y->name) != 0 || strcmp(x->column, y->column) != 0 || x->type != y->type ||
        x->built_version != y->built_version || x->updated_version != y->updated_version || x->n_files != y->n_files)
      return false;
    for (int32_t k = 0; k < x->n_files; k++)
      if (x->files[k].fragment_id != y->files[k].fragment_id || strcmp(x->files[k].path, y->files[k].path) != 0 ||
          x->files[k].footer_crc != y->files[k].footer_crc)
        return false;
  }
  return true;
}

static bool replaces_all(const char *op) {
  return strcmp(op, "create") == 0 || strcmp(op, "overwrite") == 0 || strcmp(op, "restore") == 0;
}

static qv_status lost_to(const qvs_txn *t, const qvs_manifest *w, const char *why, qv_error *err) {
  return qv_error_set(err, QV_ERR_CONFLICT,
                      "%s: version %lld (%s) was committed by another writer first and %s, which this %s "
                      "(based on version %lld) also changes; retry from the latest version",
                      t->path, (long long)w->version, w->operation, why, t->operation, (long long)t->read_version);
}

/* Whether our changes can be replayed on w, the version another writer
 * published above p (the version our changes were last built on).  The
 * rules (docs/writes.md "Commits and conflicts"):
 *  - CREATE and RESTORE never rebase (a CREATE that may append becomes an
 *    append when the winner has the same schema);
 *  - OVERWRITE rebases over anything (its contents do not depend on p);
 *  - an UPDATE conflicts with a winner that replaced the contents (create,
 *    overwrite, restore, or another schema); with a winner that removed a
 *    fragment we delete from or remove, or changed its deletions (two
 *    deletes of one fragment conflict: one would hide the other's rows);
 *    and, when it sets the index list, with a winner that changed that
 *    list.  Added fragments never conflict: they get ids above w's. */
static qv_status txn_conflict(qvs_txn *t, const qvs_manifest *p, const qvs_manifest *w, qv_error *err) {
  if (t->kind == QVS_TXN_CREATE && t->create_or_append && qv_schema_equal(&t->schema, &w->schema)) {
    t->kind = QVS_TXN_UPDATE;
    snprintf(t->operation, sizeof t->operation, "append");
    return QV_OK;
  }
  if (t->kind == QVS_TXN_CREATE || t->kind == QVS_TXN_RESTORE)
    return qv_error_set(err, QV_ERR_CONFLICT, "%s: version %lld was committed by another writer first", t->path,
                        (long long)w->version);
  if (t->kind == QVS_TXN_OVERWRITE) return QV_OK;
  if (replaces_all(w->operation) || !qv_schema_equal(&p->schema, &w->schema))
    return lost_to(t, w, "replaced the contents", err);
  char why[128];
  for (int32_t i = 0; i < t->n_dels + t->n_removed; i++) {
    int64_t id = i < t->n_dels ? t->dels[i].fragment_id : t->removed[i - t->n_dels];
    const qvs_fragment_meta *pf = find_fragment(p, id), *wf = find_fragment(w, id);
    if (!wf) {
      snprintf(why, sizeof why, "removed fragment %lld", (long long)id);
      return lost_to(t, w, why, err);
    }
    if (!pf || !same_str(pf->deletion_file, wf->deletion_file) || !same_str(pf->data_file, wf->data_file)) {
      snprintf(why, sizeof why, "deleted rows of fragment %lld", (long long)id);
      return lost_to(t, w, why, err);
    }
  }
  if (t->set_indices && !same_indices(p, w)) return lost_to(t, w, "changed the index list", err);
  return QV_OK;
}

static bool holds_added(const qvs_txn *t, const qvs_manifest *w) {
  for (int32_t i = 0; i < t->n_added; i++) {
    bool found = false;
    for (int32_t k = 0; k < w->n_fragments && !found; k++)
      found = strcmp(w->fragments[k].data_file, t->added[i].data_file) == 0;
    if (!found) return false;
  }
  return true;
}

/* ---- commit ------------------------------------------------------------------- */

static qv_status fsync_sub(const char *path, const char *sub, qv_error *err) {
  char *dir = qvb_path_join(path, sub);
  if (!dir) return qv_error_nomem(err, NULL);
  qv_status st = qvb_file_fsync_dir(dir, err);
  qv_free(dir);
  return st;
}

qv_status qvs_txn_commit(qvs_txn *t, int64_t *out_version, qv_error *err) {
  /* What the manifest names must be durable before it is published. */
  if (t->n_added) QV_RETURN_NOT_OK(fsync_sub(t->path, "data", err));
  if (t->n_dels) QV_RETURN_NOT_OK(fsync_sub(t->path, "_deletions", err));
  if (t->set_indices && t->kind == QVS_TXN_UPDATE) QV_RETURN_NOT_OK(fsync_sub(t->path, "_indices", err));
  qvs_commit_step("data-written");
  qvs_manifest winner;
  qvs_manifest_init(&winner);
  const qvs_manifest *cur = &t->base;
  int64_t version = t->read_version + 1;
  qv_status st = QV_OK;
  for (int rebases = 0;; rebases++) {
    qvs_manifest next;
    st = build_next(t, cur, version, &next, err);
    if (st == QV_OK) st = qvs_publish_manifest(t->path, &next, err);
    qvs_manifest_reset(&next);
    if (st == QV_OK) {
      t->committed = true;
      if (out_version) *out_version = version;
      break;
    }
    if (st != QV_ERR_CONFLICT) break;
    if (rebases == QVS_TXN_MAX_REBASES) {
      st = qv_error_set(err, QV_ERR_CONFLICT, "%s: %s gave up after %d versions committed by other writers first",
                        t->path, t->operation, QVS_TXN_MAX_REBASES);
      break;
    }
    qvs_manifest w;
    qv_error why = {0};
    qv_status rst = qvs_manifest_read(t->path, version, &w, &why);
    if (rst == QV_ERR_NOMEM) {
      st = qv_error_nomem(err, NULL);
      break;
    }
    if (rst != QV_OK) {
      st = qvs_damaged_latest(t->path, version, "another writer committed first, and its ", QV_ERR_CONFLICT,
                              why.message, err);
      break;
    }
    if (t->replay_ok && t->n_added > 0 && holds_added(t, &w)) { /* committed already, by a replay */
      t->committed = true;
      if (out_version) *out_version = version;
      qvs_manifest_reset(&w);
      break;
    }
    if ((st = txn_conflict(t, cur, &w, err)) != QV_OK) {
      qvs_manifest_reset(&w);
      break;
    }
    qvs_manifest_reset(&winner);
    winner = w;
    cur = &winner;
    version++;
  }
  qvs_manifest_reset(&winner);
  return st;
}
