/* The index entries of a manifest (format version 2):
 *
 *   u32 n_indices, n_indices x {
 *     string name, string column, u8 type,
 *     u64 built_version, u64 updated_version,
 *     u32 n_files, n_files x { u64 fragment_id, string file, u64 size, u32 footer_crc }
 *   }
 *
 * Storage does not read index files; it records them and checks what a
 * manifest can check on its own: names of the exact shape we write (so a
 * hostile manifest cannot point outside _indices/), unique index names, a
 * column that exists, fragment ids that are fragments of this version. */
#include <stdio.h>
#include <string.h>

#include "base/wire.h"
#include "storage/format.h"
#include "storage/manifest.h"

enum { MIN_ENTRY = 4 + 4 + 1 + 8 + 8 + 4, MIN_FILE = 8 + 4 + 8 + 4, MIN_INDEX_FILE = 36 };

bool qvs_valid_index_name(const char *s) {
  size_t n = strlen(s);
  if (n < 1 || n > QVS_MAX_INDEX_NAME) return false;
  for (size_t i = 0; i < n; i++) {
    char ch = s[i];
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
          ch == '.'))
      return false;
  }
  return true;
}

/* "_indices/" + 1..64 lowercase hex + ".qvi" */
bool qvs_valid_index_file_name(const char *s) {
  size_t n = strlen(s);
  if (n < 9 + 1 + 4 || n > 9 + 64 + 4 || strncmp(s, "_indices/", 9) != 0 || strcmp(s + n - 4, ".qvi") != 0)
    return false;
  for (size_t i = 9; i < n - 4; i++)
    if (!strchr("0123456789abcdef", s[i]) || !s[i]) return false;
  return true;
}

void qvs_index_meta_reset(qvs_index_meta *x) {
  qv_free(x->name);
  qv_free(x->column);
  for (int32_t i = 0; i < x->n_files; i++) qv_free((char *)x->files[i].path);
  qv_free(x->files);
  memset(x, 0, sizeof *x);
}

static bool has_fragment(const qvs_manifest *m, int64_t id) {
  int32_t lo = 0, hi = m->n_fragments;
  while (lo < hi) { /* fragment ids are strictly increasing */
    int32_t mid = lo + (hi - lo) / 2;
    if (m->fragments[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < m->n_fragments && m->fragments[lo].id == id;
}

static qv_status grow_indices(qvs_manifest *m, qv_error *err) {
  qvs_index_meta *n = qv_realloc(m->indices, (size_t)(m->n_indices + 1) * sizeof *n);
  if (!n) return qv_error_nomem(err, NULL);
  m->indices = n;
  memset(&m->indices[m->n_indices], 0, sizeof *n);
  return QV_OK;
}

qv_status qvs_manifest_add_index(qvs_manifest *m, const qv_index_entry *e, qv_error *err) {
  QV_RETURN_NOT_OK(grow_indices(m, err));
  qvs_index_meta *d = &m->indices[m->n_indices];
  d->name = qv_strdup(e->name);
  d->column = qv_strdup(e->column);
  d->type = e->type;
  d->built_version = e->built_version;
  d->updated_version = e->updated_version;
  d->files = qv_calloc((size_t)(e->n_files > 0 ? e->n_files : 1), sizeof *d->files);
  if (!d->name || !d->column || !d->files) goto nomem;
  for (int32_t i = 0; i < e->n_files; i++) {
    if (!has_fragment(m, e->files[i].fragment_id)) continue;
    qv_index_file *f = &d->files[d->n_files];
    *f = e->files[i];
    if (!(f->path = qv_strdup(e->files[i].path))) goto nomem;
    d->n_files++;
  }
  m->n_indices++;
  return QV_OK;
nomem:
  qvs_index_meta_reset(d);
  return qv_error_nomem(err, NULL);
}

qv_status qvs_manifest_carry_indices(qvs_manifest *m, const qvs_manifest *base, qv_error *err) {
  for (int32_t i = 0; i < base->n_indices; i++) {
    const qvs_index_meta *x = &base->indices[i];
    qv_index_entry e = {x->name, x->column, x->type, x->built_version, x->updated_version, x->n_files, x->files};
    QV_RETURN_NOT_OK(qvs_manifest_add_index(m, &e, err));
  }
  return QV_OK;
}

void qvs_put_indices(qvb_wbuf *w, const qvs_manifest *m) {
  qvb_wire_put_u32(w, (uint32_t)m->n_indices);
  for (int32_t i = 0; i < m->n_indices; i++) {
    const qvs_index_meta *x = &m->indices[i];
    qvb_wire_put_string(w, x->name);
    qvb_wire_put_string(w, x->column);
    qvb_wire_put_u8(w, (uint8_t)x->type);
    qvb_wire_put_u64(w, (uint64_t)x->built_version);
    qvb_wire_put_u64(w, (uint64_t)x->updated_version);
    qvb_wire_put_u32(w, (uint32_t)x->n_files);
    for (int32_t k = 0; k < x->n_files; k++) {
      qvb_wire_put_u64(w, (uint64_t)x->files[k].fragment_id);
      qvb_wire_put_string(w, x->files[k].path);
      qvb_wire_put_u64(w, (uint64_t)x->files[k].size);
      qvb_wire_put_u32(w, x->files[k].footer_crc);
    }
  }
}

static bool get_file(qvb_cursor *c, const qvs_manifest *m, const qvs_index_meta *x, int64_t prev, qv_index_file *f) {
  int64_t at = c->pos;
  char *path = NULL;
  if (!qvb_wire_get_range(c, 0, INT64_MAX - 1, &f->fragment_id, "index file fragment id")) return false;
  if (f->fragment_id <= prev || !has_fragment(m, f->fragment_id)) {
    c->pos = at;
    return qvb_cursor_fail(c, "index `%s`: fragment id %lld is not a fragment of this version above %lld", x->name,
                           (long long)f->fragment_id, (long long)prev);
  }
  at = c->pos;
  if (!qvb_wire_get_string(c, QVS_MAX_NAME, &path, "index file name")) return false;
  f->path = path;
  if (!qvs_valid_index_file_name(path)) {
    c->pos = at;
    return qvb_cursor_fail(c, "index `%s`: file name \"%.80s\" is not _indices/<hex>.qvi", x->name, path);
  }
  uint32_t crc;
  if (!qvb_wire_get_range(c, MIN_INDEX_FILE, QVS_MAX_INDEX_FILE, &f->size, "index file size")) return false;
  if (!qvb_wire_get_u32(c, &crc, "index footer checksum")) return false;
  f->footer_crc = crc;
  return true;
}

static bool get_entry(qvb_cursor *c, qvs_manifest *m, qvs_index_meta *x) {
  int64_t at = c->pos;
  if (!qvb_wire_get_string(c, QVS_MAX_INDEX_NAME, &x->name, "index name")) return false;
  bool ok = qvs_valid_index_name(x->name);
  for (int32_t i = 0; ok && i < m->n_indices - 1; i++)
    if (strcmp(m->indices[i].name, x->name) == 0) ok = false;
  if (!ok) {
    c->pos = at;
    return qvb_cursor_fail(c, "index name \"%.80s\" is not 1..64 of [A-Za-z0-9_.-] or is listed twice", x->name);
  }
  at = c->pos;
  if (!qvb_wire_get_string(c, QVS_MAX_NAME, &x->column, "index column")) return false;
  if (qv_schema_find(&m->schema, x->column) < 0) {
    c->pos = at;
    return qvb_cursor_fail(c, "index `%s`: no column `%.80s` in the schema", x->name, x->column);
  }
  uint8_t type;
  at = c->pos;
  if (!qvb_wire_get_u8(c, &type, "index type")) return false;
  if (type < QV_INDEX_TYPE_MIN || type > QV_INDEX_TYPE_MAX) {
    c->pos = at;
    return qvb_cursor_fail(c, "index `%s`: unknown index type %u", x->name, type);
  }
  x->type = type;
  if (!qvb_wire_get_range(c, 1, m->version, &x->built_version, "index built version")) return false;
  if (!qvb_wire_get_range(c, x->built_version, m->version, &x->updated_version, "index updated version")) return false;
  uint32_t n;
  at = c->pos;
  if (!qvb_wire_get_u32(c, &n, "index file count")) return false;
  if (n > (uint32_t)m->n_fragments || (int64_t)n * MIN_FILE > c->size - c->pos) {
    c->pos = at;
    return qvb_cursor_fail(c, "index `%s`: %u files for %d fragments (or more than the bytes left)", x->name, n,
                           m->n_fragments);
  }
  x->files = qv_calloc(n ? n : 1, sizeof *x->files);
  if (!x->files) {
    c->status = qv_error_nomem(c->err, c->file);
    return false;
  }
  for (uint32_t k = 0; k < n; k++) {
    x->n_files = (int32_t)k + 1;
    if (!get_file(c, m, x, k ? x->files[k - 1].fragment_id : -1, &x->files[k])) return false;
  }
  return true;
}

bool qvs_get_indices(qvb_cursor *c, qvs_manifest *m, uint32_t n) {
  if ((int64_t)n * MIN_ENTRY > c->size - c->pos)
    return qvb_cursor_fail(c, "index count %u does not fit in the %lld bytes left", n, (long long)(c->size - c->pos));
  if (n) {
    m->indices = qv_calloc(n, sizeof *m->indices);
    if (!m->indices) {
      c->status = qv_error_nomem(c->err, c->file);
      return false;
    }
  }
  for (uint32_t i = 0; i < n; i++) {
    m->n_indices = (int32_t)i + 1;
    if (!get_entry(c, m, &m->indices[i])) return false;
  }
  return true;
}
