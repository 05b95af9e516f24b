/* Manifests: one per published version, naming the schema and every
 * fragment (data file, rows, deletion file) of that version.
 *
 *   "QVM1"  u32 format_version  u64 body_length
 *   body:   u64 version, u64 timestamp_ms, string operation, schema,
 *           u64 next_fragment_id, u32 n_fragments,
 *           n_fragments x { u64 id, string data_file, u64 num_rows,
 *                           u64 num_deleted, string deletion_file ("" = none) },
 *           u32 n_indices, n_indices x index entry (manifest_index.c;
 *           format version 2 only: a version 1 manifest lists none)
 *   u32 crc32c of every byte before it
 *
 * File names inside are checked against the exact shapes we write, so a
 * hostile manifest cannot point a reader outside the dataset. */
#include <stdio.h>
#include <string.h>

#include "base/wire.h"
#include "storage/format.h"
#include "storage/manifest.h"
#include "storage/schema_codec.h"

enum { MANIFEST_HEADER = 16, MANIFEST_MIN_FRAGMENT = 8 + 4 + 8 + 8 + 4 };

void qvs_manifest_init(qvs_manifest *m) {
  memset(m, 0, sizeof *m);
  m->format_version = QV_FORMAT_VERSION;
}

static void fragment_reset(qvs_fragment_meta *f) {
  qv_free(f->data_file);
  qv_free(f->deletion_file);
  memset(f, 0, sizeof *f);
}

void qvs_manifest_reset(qvs_manifest *m) {
  if (!m) return;
  qv_schema_reset(&m->schema);
  for (int32_t i = 0; i < m->n_fragments; i++) fragment_reset(&m->fragments[i]);
  qv_free(m->fragments);
  for (int32_t i = 0; i < m->n_indices; i++) qvs_index_meta_reset(&m->indices[i]);
  qv_free(m->indices);
  qvs_manifest_init(m);
}

qv_status qvs_manifest_add_fragment(qvs_manifest *m, const qvs_fragment_meta *f, qv_error *err) {
  qvs_fragment_meta *nf = qv_realloc(m->fragments, (size_t)(m->n_fragments + 1) * sizeof *nf);
  if (!nf) return qv_error_nomem(err, NULL);
  m->fragments = nf;
  qvs_fragment_meta *d = &m->fragments[m->n_fragments];
  memset(d, 0, sizeof *d);
  d->id = f->id;
  d->num_rows = f->num_rows;
  d->num_deleted = f->num_deleted;
  d->data_file = qv_strdup(f->data_file);
  d->deletion_file = f->deletion_file ? qv_strdup(f->deletion_file) : NULL;
  if (!d->data_file || (f->deletion_file && !d->deletion_file)) {
    fragment_reset(d);
    return qv_error_nomem(err, NULL);
  }
  m->n_fragments++;
  return QV_OK;
}

static bool all_of(const char *s, size_t n, const char *set) {
  for (size_t i = 0; i < n; i++)
    if (!s[i] || !strchr(set, s[i])) return false;
  return true;
}

/* "data/" + 1..64 lowercase hex + ".qvf" */
bool qvs_valid_data_file_name(const char *s) {
  size_t n = strlen(s);
  if (n < 10 || n > 5 + 64 + 4 || strncmp(s, "data/", 5) != 0 || strcmp(s + n - 4, ".qvf") != 0) return false;
  return all_of(s + 5, n - 9, "0123456789abcdef");
}

/* "_deletions/" + digits + "-" + digits + ".del" */
bool qvs_valid_deletion_file_name(const char *s) {
  size_t n = strlen(s);
  if (n < 11 + 3 + 4 || n > 11 + 41 + 4 || strncmp(s, "_deletions/", 11) != 0 || strcmp(s + n - 4, ".del") != 0)
    return false;
  const char *body = s + 11, *dash = strchr(body, '-');
  size_t blen = n - 15;
  if (!dash || dash == body || (size_t)(dash - body) >= blen - 1) return false;
  return all_of(body, (size_t)(dash - body), "0123456789") &&
         all_of(dash + 1, blen - (size_t)(dash - body) - 1, "0123456789");
}

qv_status qvs_manifest_encode(const qvs_manifest *m, qv_buffer *out, qv_error *err) {
  qvb_wbuf w = {QV_BUFFER_INIT, QV_OK};
  qvb_wire_put_bytes(&w, QVS_MANIFEST_MAGIC, 4);
  qvb_wire_put_u32(&w, m->n_indices ? QVS_MANIFEST_VERSION_INDICES : 1);
  qvb_wire_put_u64(&w, 0); /* body length, patched below */
  qvb_wire_put_u64(&w, (uint64_t)m->version);
  qvb_wire_put_u64(&w, (uint64_t)m->timestamp_ms);
  qvb_wire_put_string(&w, m->operation);
  qvs_put_schema(&w, &m->schema);
  qvb_wire_put_u64(&w, (uint64_t)m->next_fragment_id);
  qvb_wire_put_u32(&w, (uint32_t)m->n_fragments);
  for (int32_t i = 0; i < m->n_fragments; i++) {
    const qvs_fragment_meta *f = &m->fragments[i];
    qvb_wire_put_u64(&w, (uint64_t)f->id);
    qvb_wire_put_string(&w, f->data_file);
    qvb_wire_put_u64(&w, (uint64_t)f->num_rows);
    qvb_wire_put_u64(&w, (uint64_t)f->num_deleted);
    qvb_wire_put_string(&w, f->deletion_file ? f->deletion_file : "");
  }
  qvs_put_indices(&w, m);
  if (w.status != QV_OK) {
    qv_buffer_reset(&w.buf);
    return qv_error_nomem(err, "manifest");
  }
  qv_store_u64le(w.buf.data + 8, (uint64_t)(w.buf.size - MANIFEST_HEADER));
  qvb_wire_put_u32(&w, qv_crc32c(0, w.buf.data, (size_t)w.buf.size));
  if (w.status != QV_OK) {
    qv_buffer_reset(&w.buf);
    return qv_error_nomem(err, "manifest");
  }
  *out = w.buf;
  return QV_OK;
}

static bool get_fragment(qvb_cursor *c, int64_t next_id, int64_t prev_id, qvs_fragment_meta *f) {
  int64_t at = c->pos;
  if (!qvb_wire_get_range(c, 0, INT64_MAX - 1, &f->id, "fragment id")) return false;
  if (f->id <= prev_id || f->id >= next_id) {
    c->pos = at;
    return qvb_cursor_fail(c, "fragment id %lld is not above %lld and below the next id %lld", (long long)f->id,
                           (long long)prev_id, (long long)next_id);
  }
  at = c->pos;
  if (!qvb_wire_get_string(c, QVS_MAX_NAME, &f->data_file, "data file name")) return false;
  if (!qvs_valid_data_file_name(f->data_file)) {
    c->pos = at;
    return qvb_cursor_fail(c, "fragment %lld: data file name \"%.80s\" is not data/<hex>.qvf", (long long)f->id,
                           f->data_file);
  }
  if (!qvb_wire_get_range(c, 0, QVS_MAX_FRAGMENT_ROWS, &f->num_rows, "fragment row count")) return false;
  if (!qvb_wire_get_range(c, 0, f->num_rows, &f->num_deleted, "deleted row count")) return false;
  at = c->pos;
  char *del = NULL;
  if (!qvb_wire_get_string(c, QVS_MAX_NAME, &del, "deletion file name")) return false;
  if (del[0] == '\0') {
    qv_free(del);
    if (f->num_deleted != 0) {
      c->pos = at;
      return qvb_cursor_fail(c, "fragment %lld has %lld deleted rows but no deletion file", (long long)f->id,
                             (long long)f->num_deleted);
    }
    return true;
  }
  f->deletion_file = del;
  if (!qvs_valid_deletion_file_name(del) || f->num_deleted == 0) {
    c->pos = at;
    return qvb_cursor_fail(c,
                           "fragment %lld: deletion file \"%.80s\" is not _deletions/<id>-<version>.del "
                           "or has no deleted rows",
                           (long long)f->id, del);
  }
  return true;
}

qv_status qvs_manifest_decode(const uint8_t *data, int64_t size, const char *name, qvs_manifest *out, qv_error *err) {
  qvs_manifest_init(out);
  if (size < MANIFEST_HEADER + 4)
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: %lld bytes is too short for a manifest", name, (long long)size);
  if (memcmp(data, QVS_MANIFEST_MAGIC, 4) != 0)
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset 0: not a quiver manifest (bad magic)", name);
  uint32_t fv = qv_load_u32le(data + 4);
  if (fv == 0 || fv > QVS_MANIFEST_VERSION_INDICES)
    return qv_error_set(err, fv == 0 ? QV_ERR_CORRUPT : QV_ERR_UNSUPPORTED,
                        "%s: offset 4: format version %u (this build reads 1..%d)", name, fv,
                        QVS_MANIFEST_VERSION_INDICES);
  uint64_t body = qv_load_u64le(data + 8);
  if (body != (uint64_t)(size - MANIFEST_HEADER - 4))
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset 8: body length %llu does not match the file size %lld", name,
                        (unsigned long long)body, (long long)size);
  uint32_t want = qv_load_u32le(data + size - 4), got = qv_crc32c(0, data, (size_t)(size - 4));
  if (want != got && qvs_verify_checksums)
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: checksum mismatch (stored %08x, computed %08x)", name, want, got);

  qvb_cursor c;
  qvb_cursor_init(&c, data + MANIFEST_HEADER, size - MANIFEST_HEADER - 4, MANIFEST_HEADER, name, err);
  out->format_version = fv;
  char *op = NULL;
  uint32_t nfrag = 0, nidx = 0;
  if (!qvb_wire_get_range(&c, 1, INT64_MAX - 1, &out->version, "version")) goto cleanup;
  uint64_t ts;
  if (!qvb_wire_get_u64(&c, &ts, "timestamp")) goto cleanup;
  out->timestamp_ms = (int64_t)ts;
  if (!qvb_wire_get_string(&c, (int64_t)sizeof out->operation - 1, &op, "operation")) goto cleanup;
  memcpy(out->operation, op, strlen(op) + 1);
  qv_free(op);
  if (!qvs_get_schema(&c, &out->schema)) goto cleanup;
  if (!qvb_wire_get_range(&c, 0, INT64_MAX, &out->next_fragment_id, "next fragment id")) goto cleanup;
  int64_t at = c.pos;
  if (!qvb_wire_get_u32(&c, &nfrag, "fragment count")) goto cleanup;
  if ((int64_t)nfrag * MANIFEST_MIN_FRAGMENT > c.size - c.pos || nfrag > INT32_MAX) {
    c.pos = at;
    qvb_cursor_fail(&c, "fragment count %u does not fit in the %lld bytes left", nfrag, (long long)(c.size - c.pos));
    goto cleanup;
  }
  if (nfrag) {
    out->fragments = qv_calloc(nfrag, sizeof *out->fragments);
    if (!out->fragments) {
      qv_error_nomem(err, name);
      qvs_manifest_reset(out);
      return QV_ERR_NOMEM;
    }
  }
  for (uint32_t i = 0; i < nfrag; i++) {
    out->n_fragments = (int32_t)i + 1;
    if (!get_fragment(&c, out->next_fragment_id, i ? out->fragments[i - 1].id : -1, &out->fragments[i])) goto cleanup;
  }
  at = c.pos;
  if (!qvb_wire_get_u32(&c, &nidx, "index count")) goto cleanup;
  if (nidx != 0 && fv < QVS_MANIFEST_VERSION_INDICES) {
    c.pos = at;
    qvb_cursor_fail(&c, "%u indices listed; format version 1 has none", nidx);
    goto cleanup;
  }
  if (!qvs_get_indices(&c, out, nidx)) goto cleanup;
  if (c.pos != c.size) {
    qvb_cursor_fail(&c, "%lld unexpected bytes after the manifest body", (long long)(c.size - c.pos));
    goto cleanup;
  }
  return QV_OK;
cleanup:
  qvs_manifest_reset(out);
  return c.status;
}

qv_status qvs_manifest_read(const char *path, int64_t version, qvs_manifest *out, qv_error *err) {
  qvs_manifest_init(out);
  char name[64];
  snprintf(name, sizeof name, "_versions/%lld.manifest", (long long)version);
  char *full = qvb_path_join(path, name);
  if (!full) return qv_error_nomem(err, NULL);
  uint8_t *data = NULL;
  int64_t size = 0;
  qv_status st = qvb_file_read(full, name, QVS_MAX_MANIFEST_BYTES, &data, &size, err);
  qv_free(full);
  if (st == QV_ERR_NOT_FOUND) return qv_error_set(err, st, "%s: version %lld does not exist", path, (long long)version);
  if (st != QV_OK) return st;
  st = qvs_manifest_decode(data, size, name, out, err);
  qv_free(data);
  if (st == QV_OK && out->version != version) {
    long long says = (long long)out->version;
    qvs_manifest_reset(out);
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset 16: says it is version %lld", name, says);
  }
  return st;
}
