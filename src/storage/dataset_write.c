/* qv_dataset_write: batches in, a new version out.  The fragment sink
 * (sink.c) cuts pages and data files as batches arrive, so memory does not
 * grow with the input; finished data files are fsynced, then the manifest
 * is published through the transaction (txn.c).  All or nothing: on any error
 * every file written for this version is removed and nothing is published. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/wire.h"
#include "storage/format.h"
#include "storage/schema_codec.h"
#include "storage/sink.h"

static qv_status check_options(const qv_write_options *o, qv_error *err) {
  if (o->mode < QV_WRITE_CREATE || o->mode > QV_WRITE_OVERWRITE)
    return qv_error_set(err, QV_ERR_INVALID, "write options: unknown mode %d", (int)o->mode);
  if (o->page_rows < 1 || o->page_rows > QVS_MAX_PAGE_ROWS)
    return qv_error_set(err, QV_ERR_INVALID, "write options: page_rows %lld is outside 1..%d", (long long)o->page_rows,
                        QVS_MAX_PAGE_ROWS);
  if (o->max_rows_per_file < 1 || o->max_rows_per_file > QVS_MAX_FRAGMENT_ROWS)
    return qv_error_set(err, QV_ERR_INVALID, "write options: max_rows_per_file %lld is outside 1..%lld",
                        (long long)o->max_rows_per_file, (long long)QVS_MAX_FRAGMENT_ROWS);
  if (o->max_bytes_per_file < 0)
    return qv_error_set(err, QV_ERR_INVALID, "write options: max_bytes_per_file %lld is negative",
                        (long long)o->max_bytes_per_file);
  if (o->compression < QV_COMPRESSION_AUTO || o->compression > QV_COMPRESSION_LZ4)
    return qv_error_set(err, QV_ERR_INVALID, "write options: unknown compression %d", (int)o->compression);
  return QV_OK;
}

qv_status qvs_write_options_get(const qv_write_options *in, qv_write_options *out, qv_error *err) {
  *out = (qv_write_options)QV_WRITE_OPTIONS_INIT;
  if (!in) return QV_OK;
  if (in->version < 1 || in->version > QV_WRITE_OPTIONS_VERSION)
    return qv_error_set(err, QV_ERR_INVALID, "write options: unknown version %d", in->version);
  /* A version 1 caller's struct ends before max_bytes_per_file. */
  memcpy(out, in, in->version == 1 ? offsetof(qv_write_options, max_bytes_per_file) : sizeof *out);
  out->version = QV_WRITE_OPTIONS_VERSION;
  return check_options(out, err);
}

/* Says how two schemas differ, for the append error. */
static void describe_mismatch(const qv_schema *data, const qv_schema *ds, char *buf, size_t size) {
  if (data->n_fields != ds->n_fields) {
    snprintf(buf, size, "the data has %d columns, the dataset %d", data->n_fields, ds->n_fields);
    return;
  }
  for (int32_t i = 0; i < ds->n_fields; i++) {
    const qv_field *a = &data->fields[i], *b = &ds->fields[i];
    if (strcmp(a->name, b->name) != 0) {
      snprintf(buf, size, "column %d is `%s` in the data, `%s` in the dataset", i, a->name, b->name);
      return;
    }
    if (!qv_datatype_equal(&a->type, &b->type)) {
      char ta[128], tb[128];
      qv_datatype_format(&a->type, ta, sizeof ta);
      qv_datatype_format(&b->type, tb, sizeof tb);
      snprintf(buf, size, "column `%s` is %s in the data, %s in the dataset", a->name, ta, tb);
      return;
    }
  }
  snprintf(buf, size, "they differ");
}

/* ---- names ------------------------------------------------------------ */

/* Deeper than the type check lets through (qvs_type_supported). */
#define NAME_PATH_MAX (QVS_MAX_DEPTH + 2)

/* Where a duplicate was found, for the message: the chain of enclosing
 * fields from the column down, printed "s", "s.x", "l.item.y". */
typedef struct name_path {
  const struct name_path *up;
  const char *name;
} name_path;

static void format_path(const name_path *p, char *buf, size_t size) {
  const char *parts[NAME_PATH_MAX];
  int n = 0;
  for (; p && n < NAME_PATH_MAX; p = p->up) parts[n++] = p->name;
  size_t k = 0;
  buf[0] = '\0';
  for (int top = n; n-- > 0 && k + 1 < size;) {
    int w = snprintf(buf + k, size - k, "%s%s", n == top - 1 ? "" : ".", parts[n]);
    if (w < 0) break;
    k += (size_t)w < size - k ? (size_t)w : size - k - 1;
  }
}

typedef struct name_pos {
  const char *name;
  int32_t pos;
} name_pos;

static int by_name_then_pos(const void *a, const void *b) {
  const name_pos *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* The first field, in order, whose name an earlier field of the same list
 * has: *out_dup its index (-1 when the names are unique), *out_first the
 * earlier one.  By sorting, so a CSV of 100,000 columns costs milliseconds. */
static qv_status find_duplicate(const qv_field *fields, int32_t n, int32_t *out_first, int32_t *out_dup,
                                qv_error *err) {
  *out_first = *out_dup = -1;
  if (n < 2) return QV_OK;
  name_pos *v = qv_malloc((size_t)n * sizeof *v);
  if (!v) return qv_error_nomem(err, "checking column names");
  for (int32_t i = 0; i < n; i++) {
    v[i].name = fields[i].name ? fields[i].name : "";
    v[i].pos = i;
  }
  qsort(v, (size_t)n, sizeof *v, by_name_then_pos);
  /* In each run of one name the second entry is that name's first repeat. */
  for (int32_t k = 1; k < n; k++) {
    if (strcmp(v[k - 1].name, v[k].name) != 0) continue;
    if (k >= 2 && strcmp(v[k - 2].name, v[k].name) == 0) continue;
    if (*out_dup < 0 || v[k].pos < *out_dup) {
      *out_dup = v[k].pos;
      *out_first = v[k - 1].pos;
    }
  }
  qv_free(v);
  return QV_OK;
}

/* No two columns, and no two children of one struct, share a name: a filter,
 * a projection or an index names a column and would silently get the first
 * one (Polars refuses such a frame outright).  Names are compared byte for
 * byte.  Names differing only in case are kept: Polars tells them apart, and
 * the binder takes the exact spelling first and refuses a spelling that
 * matches several only when case is ignored (src/expr/bind.c, find_name).
 * fields are the columns (up NULL) or the children of the type of up; only
 * a struct's children are names a user picks among (a list's one child, a
 * dictionary's indices and values are not), but a struct may sit below any. */
static qv_status check_names(const qv_field *fields, int32_t n, const name_path *up, bool siblings, int depth,
                             qv_error *err) {
  int32_t first = -1, dup = -1;
  if (siblings) QV_RETURN_NOT_OK(find_duplicate(fields, n, &first, &dup, err));
  const char *name = dup >= 0 && fields[dup].name ? fields[dup].name : "";
  if (dup >= 0 && !up)
    return qv_error_set(err, QV_ERR_INVALID, "column %d `%s` has the same name as column %d", (int)dup + 1, name,
                        (int)first + 1);
  if (dup >= 0) {
    name_path leaf = {up, name};
    char parent[512], full[768];
    format_path(up, parent, sizeof parent);
    format_path(&leaf, full, sizeof full);
    return qv_error_set(err, QV_ERR_INVALID, "field %d `%s` has the same name as field %d of struct `%s`", (int)dup + 1,
                        full, (int)first + 1, parent);
  }
  if (depth >= NAME_PATH_MAX) return QV_OK; /* the type check refuses nesting this deep */
  for (int32_t i = 0; i < n; i++) {
    const qv_datatype *t = &fields[i].type;
    if (t->n_children == 0) continue;
    name_path here = {up, fields[i].name ? fields[i].name : ""};
    QV_RETURN_NOT_OK(check_names(t->children, t->n_children, &here, t->id == QV_TYPE_STRUCT, depth + 1, err));
  }
  return QV_OK;
}

qv_status qv_dataset_check_schema(const qv_schema *s, qv_error *err) {
  if (!s) return qv_error_set(err, QV_ERR_INVALID, "the schema is NULL");
  if (s->n_fields == 0) return qv_error_set(err, QV_ERR_INVALID, "the schema has no columns");
  for (int32_t i = 0; i < s->n_fields; i++)
    if (!qvs_type_supported(&s->fields[i].type, 0))
      return qv_error_set(err, QV_ERR_UNSUPPORTED, "column `%s` has a type the format cannot hold", s->fields[i].name);
  return check_names(s->fields, s->n_fields, NULL, true, 0, err);
}

/* After a failed write that created the dataset's directory: removes it
 * and the empty layout in it, so a failed first import leaves nothing.
 * rmdir removes only empty directories, so a concurrent writer's files
 * stay where they are. */
static void remove_new_layout(const char *path) {
  static const char *const subdirs[] = {"_versions", "data", "_deletions", "_indices"};
  for (size_t i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++) {
    char *p = qvb_path_join(path, subdirs[i]);
    if (p) rmdir(p);
    qv_free(p);
  }
  rmdir(path);
}

qv_status qv_dataset_write(const char *path, qv_batch_reader *reader, const qv_write_options *opts,
                           int64_t *out_version, qv_error *err) {
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  if (!path || !reader) return qv_error_set(err, QV_ERR_INVALID, "write: path and reader are required");
  QV_RETURN_NOT_OK(qvs_write_options_get(opts, &o, err));
  opts = &o;
  const qv_schema *schema = reader->schema(reader);
  qv_status checked = qv_dataset_check_schema(schema, err);
  if (checked != QV_OK) return qv_error_prefix(err, checked, "write");

  qvs_txn txn;
  memset(&txn, 0, sizeof txn);
  qvs_sink ws;
  qvs_sink_init(&ws, path, schema, opts, &txn);
  qv_status st = QV_OK;
  int64_t latest = 0, rows_done = 0;
  bool created_root = false;

  if ((st = qvs_latest_version(path, &latest, err)) != QV_OK) goto cleanup;
  /* CREATE over a dataset is refused before its manifest is read (it may
   * be damaged: the answer is still "exists"). */
  if (latest == 0 || opts->mode != QV_WRITE_CREATE) {
    if ((st = qvs_txn_begin(&txn, path, 0, "append", err)) != QV_OK) goto cleanup;
    latest = txn.read_version;
  }
  if (latest > 0 && opts->mode == QV_WRITE_CREATE) {
    st = qv_error_set(err, QV_ERR_EXISTS, "%s: a dataset already exists here (version %lld)", path, (long long)latest);
    goto cleanup;
  }
  if (latest > 0 && opts->mode == QV_WRITE_APPEND && !qv_schema_equal(schema, &txn.base.schema)) {
    char why[512];
    describe_mismatch(schema, &txn.base.schema, why, sizeof why);
    st = qv_error_set(err, QV_ERR_TYPE, "%s: cannot append: the schema differs from the dataset's: %s", path, why);
    goto cleanup;
  }
  /* A first write is a create (an append that finds a dataset of its
   * schema committed meanwhile becomes an append); an overwrite replaces
   * whatever it finds; an append adds fragments. */
  if (latest == 0) {
    snprintf(txn.operation, sizeof txn.operation, "create");
    st = qvs_txn_replace(&txn, QVS_TXN_CREATE, schema, err);
    txn.create_or_append = opts->mode == QV_WRITE_APPEND;
  } else if (opts->mode == QV_WRITE_OVERWRITE) {
    snprintf(txn.operation, sizeof txn.operation, "overwrite");
    st = qvs_txn_replace(&txn, QVS_TXN_OVERWRITE, schema, err);
  }
  if (st != QV_OK) goto cleanup;
  struct stat sb;
  created_root = stat(path, &sb) != 0;
  if ((st = qvs_ensure_layout(path, err)) != QV_OK) goto cleanup;

  for (;;) {
    qv_batch *b = NULL;
    if ((st = reader->next(reader, &b, err)) != QV_OK) goto cleanup;
    if (!b) break;
    if (b->schema.n_fields != schema->n_fields || !qv_schema_equal(&b->schema, schema)) {
      qv_batch_release(b);
      st = qv_error_set(err, QV_ERR_TYPE, "write: a batch's schema differs from the reader's schema");
      goto cleanup;
    }
    int64_t n = b->num_rows;
    if ((st = qvs_sink_push(&ws, b, err)) != QV_OK) goto cleanup;
    rows_done += n;
    if (n > 0 && opts->progress) opts->progress(opts->progress_ctx, rows_done);
  }
  if ((st = qvs_sink_finish(&ws, err)) != QV_OK) goto cleanup;
  if ((st = qvs_txn_commit(&txn, out_version, err)) != QV_OK) goto cleanup;

cleanup:
  qvs_sink_reset(&ws);
  qvs_txn_reset(&txn); /* removes the data files unless committed */
  if (st != QV_OK && created_root) remove_new_layout(path);
  return st;
}

qv_status qv_dataset_write_stream(const char *path, struct ArrowArrayStream *stream, const qv_write_options *opts,
                                  int64_t *out_version, qv_error *err) {
  if (!stream) return qv_error_set(err, QV_ERR_INVALID, "write: stream is NULL");
  qv_batch_reader *reader = NULL;
  QV_RETURN_NOT_OK(qv_import_stream(stream, &reader, err));
  qv_status st = qv_dataset_write(path, reader, opts, out_version, err);
  qv_batch_reader_destroy(reader);
  return st;
}
