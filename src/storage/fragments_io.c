/* Fragment-level operations for distributed writers (docs/writes.md
 * "Distributed writes"): write data files without committing and describe
 * them as a small text value; commit such descriptions, written by other
 * processes or machines, as one version; open a version restricted to some
 * fragments, for a reader that scans one fragment per task.
 *
 * The description ("fragment set"), one item per line:
 *
 *   quiver-fragments 1
 *   schema <hex of the schema codec's bytes>
 *   fragment data/<hex>.qvf <rows>          (one line per data file)
 *
 * It is untrusted input when committed: every line, name and count is
 * checked, and each data file's footer is opened and checked against the
 * rows and schema the description gives before anything is published. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/wire.h"
#include "storage/schema_codec.h"
#include "storage/sink.h"

#define FRAGMENTS_MAGIC "quiver-fragments 1"
#define MAX_SET_BYTES (INT64_C(1) << 26)

qv_status qv_dataset_write_fragments(const char *path, qv_batch_reader *reader, const qv_write_options *opts,
                                     char **out, qv_error *err) {
  *out = NULL;
  if (!path || !reader) return qv_error_set(err, QV_ERR_INVALID, "write fragments: path and reader are required");
  qv_write_options o;
  QV_RETURN_NOT_OK(qvs_write_options_get(opts, &o, err));
  const qv_schema *schema = reader->schema(reader);
  qv_status st = qv_dataset_check_schema(schema, err);
  if (st != QV_OK) return qv_error_prefix(err, st, "write fragments");
  QV_RETURN_NOT_OK(qvs_ensure_layout(path, err));
  /* A transaction that never commits: it only collects the files (and
   * removes them if the write fails). */
  qvs_txn t;
  QV_RETURN_NOT_OK(qvs_txn_begin_blind(&t, path, 0, "fragments", err));
  qvs_sink sink;
  qvs_sink_init(&sink, path, schema, &o, &t);
  qvb_wbuf w = {QV_BUFFER_INIT, QV_OK};
  qv_buffer text = QV_BUFFER_INIT;
  for (;;) {
    qv_batch *b = NULL;
    if ((st = reader->next(reader, &b, err)) != QV_OK || !b) break;
    if (!qv_schema_equal(&b->schema, schema)) {
      qv_batch_release(b);
      st = qv_error_set(err, QV_ERR_TYPE, "write fragments: a batch's schema differs from the reader's schema");
      break;
    }
    if ((st = qvs_sink_push(&sink, b, err)) != QV_OK) break;
  }
  if (st == QV_OK) st = qvs_sink_finish(&sink, err);
  if (st == QV_OK) {
    char *dir = qvb_path_join(path, "data");
    st = dir ? qvb_file_fsync_dir(dir, err) : qv_error_nomem(err, NULL);
    qv_free(dir);
  }
  qvs_put_schema(&w, schema);
  if (st == QV_OK && w.status != QV_OK) st = qv_error_nomem(err, "write fragments");
  if (st == QV_OK) {
    char line[160];
    int n = snprintf(line, sizeof line, "%s\nschema ", FRAGMENTS_MAGIC);
    bool ok = qv_buffer_append(&text, line, n) == QV_OK;
    static const char hex[] = "0123456789abcdef";
    for (int64_t i = 0; ok && i < w.buf.size; i++) {
      char h[2] = {hex[w.buf.data[i] >> 4], hex[w.buf.data[i] & 15]};
      ok = qv_buffer_append(&text, h, 2) == QV_OK;
    }
    ok = ok && qv_buffer_append(&text, "\n", 1) == QV_OK;
    for (int32_t i = 0; ok && i < t.n_added; i++) {
      n = snprintf(line, sizeof line, "fragment %s %lld\n", t.added[i].data_file, (long long)t.added[i].num_rows);
      ok = qv_buffer_append(&text, line, n) == QV_OK;
    }
    ok = ok && qv_buffer_append(&text, "", 1) == QV_OK; /* NUL */
    if (!ok) st = qv_error_nomem(err, "write fragments");
  }
  if (st == QV_OK) {
    *out = (char *)text.data;
    text.data = NULL;
    t.committed = true; /* the files are the caller's now: not removed */
  }
  qv_buffer_reset(&text);
  qv_buffer_reset(&w.buf);
  qvs_sink_reset(&sink);
  qvs_txn_reset(&t);
  return st;
}

/* ---- reading a fragment set ------------------------------------------------ */

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* Parses one set (item `which`, for messages): its schema into *schema
 * (when schema->n_fields is 0) or checked against it, its fragments
 * appended to m. */
static qv_status parse_set(const char *text, int32_t which, qv_schema *schema, qvs_manifest *m, qv_error *err) {
  size_t len = strnlen(text, (size_t)MAX_SET_BYTES + 1);
  if (len > (size_t)MAX_SET_BYTES)
    return qv_error_set(err, QV_ERR_INVALID, "fragment set %d: longer than %lld bytes", which,
                        (long long)MAX_SET_BYTES);
  const char *p = text, *end = text + len;
  size_t ml = strlen(FRAGMENTS_MAGIC);
  if (len < ml + 1 || memcmp(p, FRAGMENTS_MAGIC, ml) != 0 || p[ml] != '\n')
    return qv_error_set(err, QV_ERR_INVALID, "fragment set %d: does not start with \"%s\"", which, FRAGMENTS_MAGIC);
  p += ml + 1;
  if (end - p < 7 || memcmp(p, "schema ", 7) != 0)
    return qv_error_set(err, QV_ERR_INVALID, "fragment set %d: line 2 is not \"schema <hex>\"", which);
  p += 7;
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  if (!nl || (nl - p) % 2 != 0 || nl == p)
    return qv_error_set(err, QV_ERR_INVALID, "fragment set %d: the schema is not an even run of hex digits", which);
  int64_t nbytes = (nl - p) / 2;
  uint8_t *bytes = qv_malloc((size_t)nbytes);
  if (!bytes) return qv_error_nomem(err, NULL);
  for (int64_t i = 0; i < nbytes; i++) {
    int hi = hexval(p[2 * i]), lo = hexval(p[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      qv_free(bytes);
      return qv_error_set(err, QV_ERR_INVALID, "fragment set %d: the schema is not hex", which);
    }
    bytes[i] = (uint8_t)(hi << 4 | lo);
  }
  char name[48];
  snprintf(name, sizeof name, "fragment set %d", which);
  qvb_cursor c;
  qvb_cursor_init(&c, bytes, nbytes, 0, name, err);
  qv_schema s = QV_SCHEMA_INIT;
  bool ok = qvs_get_schema(&c, &s) && c.pos == c.size;
  qv_free(bytes);
  if (!ok) {
    qv_schema_reset(&s);
    if (c.status == QV_OK) return qv_error_set(err, QV_ERR_INVALID, "%s: bytes after the schema", name);
    if (err) err->code = QV_ERR_INVALID; /* the cursor's message says where */
    return QV_ERR_INVALID;
  }
  qv_status st = QV_OK;
  if (schema->n_fields == 0) {
    *schema = s;
  } else {
    if (!qv_schema_equal(&s, schema))
      st = qv_error_set(err, QV_ERR_TYPE, "fragment set %d: its schema differs from the others'", which);
    qv_schema_reset(&s);
  }
  for (p = nl + 1; st == QV_OK && p < end;) {
    nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) {
      st = qv_error_set(err, QV_ERR_INVALID, "fragment set %d: the last line has no newline", which);
      break;
    }
    char file[128];
    long long rows = -1;
    int used = 0;
    size_t ll = (size_t)(nl - p);
    char line[192];
    if (ll >= sizeof line) {
      st = qv_error_set(err, QV_ERR_INVALID, "fragment set %d: a line is too long", which);
      break;
    }
    memcpy(line, p, ll);
    line[ll] = '\0';
    if (sscanf(line, "fragment %127s %lld%n", file, &rows, &used) != 2 || (size_t)used != ll ||
        !qvs_valid_data_file_name(file) || rows < 1 || rows > QVS_MAX_FRAGMENT_ROWS) {
      st = qv_error_set(err, QV_ERR_INVALID, "fragment set %d: \"%.80s\" is not \"fragment data/<hex>.qvf <rows>\"",
                        which, line);
      break;
    }
    qvs_fragment_meta f = {m->next_fragment_id++, file, rows, NULL, 0};
    st = qvs_manifest_add_fragment(m, &f, err);
    p = nl + 1;
  }
  return st;
}

/* Every fragment of m opens: its file exists and its footer agrees. */
static qv_status check_files(const char *path, const qvs_manifest *m, qv_error *err) {
  qv_dataset view = {(char *)path, *m};
  for (int32_t i = 0; i < m->n_fragments; i++) {
    qv_fragment_reader *r = NULL;
    qv_error why = {0};
    qv_status st = qv_fragment_open(&view, i, &r, &why);
    qv_fragment_close(r);
    if (st == QV_ERR_NOMEM) return qv_error_nomem(err, NULL);
    if (st != QV_OK)
      return qv_error_set(err, st, "commit fragments: %s does not match its description: %.800s",
                          m->fragments[i].data_file, why.message);
  }
  return QV_OK;
}

static bool has_all_files(const qvs_manifest *latest, const qvs_manifest *mine) {
  for (int32_t i = 0; i < mine->n_fragments; i++) {
    bool found = false;
    for (int32_t k = 0; k < latest->n_fragments && !found; k++)
      found = strcmp(latest->fragments[k].data_file, mine->fragments[i].data_file) == 0;
    if (!found) return false;
  }
  return true;
}

qv_status qv_dataset_commit_fragments(const char *path, const char *const *sets, int32_t n, qv_write_mode mode,
                                      int64_t *out_version, qv_error *err) {
  if (!path || (n > 0 && !sets) || n < 0)
    return qv_error_set(err, QV_ERR_INVALID, "commit fragments: path and fragment sets are required");
  if (mode < QV_WRITE_CREATE || mode > QV_WRITE_OVERWRITE)
    return qv_error_set(err, QV_ERR_INVALID, "commit fragments: unknown mode %d", (int)mode);
  qv_schema schema = QV_SCHEMA_INIT;
  qvs_manifest mine;
  qvs_manifest_init(&mine);
  qvs_txn t;
  memset(&t, 0, sizeof t);
  qv_status st = QV_OK;
  for (int32_t i = 0; i < n && st == QV_OK; i++)
    st = sets[i] ? parse_set(sets[i], i, &schema, &mine, err)
                 : qv_error_set(err, QV_ERR_INVALID, "commit fragments: set %d is NULL", i);
  if (st == QV_OK && n == 0) st = qv_error_set(err, QV_ERR_INVALID, "commit fragments: no fragment set");
  if (st == QV_OK && (st = qv_schema_copy(&schema, &mine.schema) == QV_OK ? QV_OK : qv_error_nomem(err, NULL)) == QV_OK)
    st = check_files(path, &mine, err);
  if (st == QV_OK) st = qvs_txn_begin(&t, path, 0, mode == QV_WRITE_APPEND ? "append" : "overwrite", err);
  if (st != QV_OK) goto cleanup;
  /* A replay of a commit that landed: its files are in the latest version. */
  if (t.read_version > 0 && mine.n_fragments > 0 && has_all_files(&t.base, &mine)) {
    if (out_version) *out_version = t.read_version;
    goto cleanup;
  }
  if (t.read_version > 0 && mode == QV_WRITE_CREATE) {
    st = qv_error_set(err, QV_ERR_EXISTS, "%s: a dataset already exists here (version %lld)", path,
                      (long long)t.read_version);
    goto cleanup;
  }
  if (t.read_version > 0 && mode == QV_WRITE_APPEND && !qv_schema_equal(&schema, &t.base.schema)) {
    st = qv_error_set(err, QV_ERR_TYPE, "%s: cannot append: the fragments' schema differs from the dataset's", path);
    goto cleanup;
  }
  if (t.read_version == 0) {
    snprintf(t.operation, sizeof t.operation, "create");
    st = qvs_txn_replace(&t, QVS_TXN_CREATE, &schema, err);
    t.create_or_append = mode == QV_WRITE_APPEND;
  } else if (mode == QV_WRITE_OVERWRITE) {
    st = qvs_txn_replace(&t, QVS_TXN_OVERWRITE, &schema, err);
  }
  for (int32_t i = 0; i < mine.n_fragments && st == QV_OK; i++)
    st = qvs_txn_add_fragment(&t, mine.fragments[i].data_file, mine.fragments[i].num_rows, err);
  t.keep_files = true; /* written elsewhere: a failed commit leaves them for a retry (or cleanup) */
  t.replay_ok = true;
  if (st == QV_OK) st = qvs_txn_commit(&t, out_version, err);
cleanup:
  qvs_txn_reset(&t);
  qvs_manifest_reset(&mine);
  qv_schema_reset(&schema);
  return st;
}

qv_status qv_dataset_open_fragments(const char *path, int64_t version, const int64_t *ids, int32_t n, qv_dataset **out,
                                    qv_error *err) {
  *out = NULL;
  if (n < 0 || (n > 0 && !ids)) return qv_error_set(err, QV_ERR_INVALID, "open fragments: ids are required");
  qv_dataset *ds = NULL;
  QV_RETURN_NOT_OK(qv_dataset_open(path, version, &ds, err));
  qvs_manifest *m = &ds->manifest, sub;
  qvs_manifest_init(&sub);
  sub.format_version = m->format_version;
  sub.version = m->version;
  sub.timestamp_ms = m->timestamp_ms;
  memcpy(sub.operation, m->operation, sizeof sub.operation);
  sub.next_fragment_id = m->next_fragment_id;
  qv_status st = qv_schema_copy(&m->schema, &sub.schema) == QV_OK ? QV_OK : qv_error_nomem(err, NULL);
  /* in the version's order, whatever the order of ids */
  for (int32_t i = 0; i < m->n_fragments && st == QV_OK; i++)
    for (int32_t k = 0; k < n; k++)
      if (ids[k] == m->fragments[i].id) {
        st = qvs_manifest_add_fragment(&sub, &m->fragments[i], err);
        break;
      }
  for (int32_t k = 0; k < n && st == QV_OK; k++) {
    bool found = false;
    for (int32_t i = 0; i < m->n_fragments && !found; i++) found = ids[k] == m->fragments[i].id;
    if (!found)
      st = qv_error_set(err, QV_ERR_NOT_FOUND, "%s: version %lld has no fragment %lld", path, (long long)m->version,
                        (long long)ids[k]);
  }
  if (st == QV_OK) st = qvs_manifest_carry_indices(&sub, m, err);
  if (st != QV_OK) {
    qvs_manifest_reset(&sub);
    qv_dataset_close(ds);
    return st;
  }
  qvs_manifest_reset(m);
  *m = sub;
  *out = ds;
  return QV_OK;
}
