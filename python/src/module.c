/* quiver._quiver: the module, its exception, and the Arrow C Data plumbing
 * every type of the extension shares (the lock around libquiver's reference
 * counts, stream and schema capsules). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pyquiver.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void qvpy_lock(void) { pthread_mutex_lock(&lock); }
void qvpy_unlock(void) { pthread_mutex_unlock(&lock); }

PyObject *qvpy_error_type = NULL;

/* The subclasses of QuiverError, each for the status codes listed: the
 * package and its users tell errors apart by class (or e.code), never by
 * message text.  A code no row names raises QuiverError itself.  Keep the
 * package docstring and README's Python section in step with this table. */
static struct {
  const char *name; /* "quiver.X" */
  const char *doc;
  qv_status codes[3];
  PyObject *type;
} error_classes[] = {
    {"quiver.InvalidInput",
     "A bad argument, filter or expression text, or types that do not fit together "
     "(QV_ERR_INVALID, QV_ERR_PARSE, QV_ERR_TYPE).",
     {QV_ERR_INVALID, QV_ERR_PARSE, QV_ERR_TYPE},
     NULL},
    {"quiver.UnsupportedExpression",
     "Valid, but libquiver cannot evaluate or bind it yet, such as a Polars construct it does not know "
     "(QV_ERR_UNSUPPORTED).",
     {QV_ERR_UNSUPPORTED},
     NULL},
    {"quiver.CorruptData", "A file's bytes are not what the format allows (QV_ERR_CORRUPT).", {QV_ERR_CORRUPT}, NULL},
    {"quiver.NotFound",
     "No such dataset, version, column, field or index (QV_ERR_NOT_FOUND).",
     {QV_ERR_NOT_FOUND},
     NULL},
    {"quiver.AlreadyExists", "The dataset or index to create is already there (QV_ERR_EXISTS).", {QV_ERR_EXISTS}, NULL},
    {"quiver.CommitConflict",
     "Another writer committed the same version first; retry (QV_ERR_CONFLICT).",
     {QV_ERR_CONFLICT},
     NULL},
    {"quiver.Cancelled",
     "The work stopped because its cancel flag was raised (QV_ERR_CANCELLED); Ctrl-C in the main thread "
     "raises KeyboardInterrupt instead.",
     {QV_ERR_CANCELLED},
     NULL},
};

#define N_ERROR_CLASSES (sizeof error_classes / sizeof error_classes[0])

static PyObject *error_class(qv_status code) {
  for (size_t i = 0; i < N_ERROR_CLASSES; i++)
    for (size_t k = 0; k < sizeof error_classes[i].codes / sizeof error_classes[i].codes[0]; k++)
      if (error_classes[i].codes[k] == code && code != QV_OK) return error_classes[i].type;
  return qvpy_error_type;
}

PyObject *qvpy_raise(const qv_error *err) {
  const char *msg = err->message[0] ? err->message : qv_status_string(err->code);
  PyObject *type = error_class(err->code);
  /* Messages quote user input, which need not be valid UTF-8. */
  PyObject *text = PyUnicode_DecodeUTF8(msg, (Py_ssize_t)strlen(msg), "replace");
  PyObject *exc = text ? PyObject_CallOneArg(type, text) : NULL;
  Py_XDECREF(text);
  if (!exc) return NULL;
  PyObject *code = PyLong_FromLong((long)err->code);
  PyObject *status = PyUnicode_FromString(qv_status_string(err->code));
  if (code && status && PyObject_SetAttrString(exc, "code", code) == 0 &&
      PyObject_SetAttrString(exc, "status", status) == 0)
    PyErr_SetObject(type, exc);
  Py_XDECREF(code);
  Py_XDECREF(status);
  Py_DECREF(exc);
  return NULL;
}

/* ---- streams and arrays that take the lock ------------------------------ */

static void locked_array_release(struct ArrowArray *a) {
  struct ArrowArray *held = a->private_data;
  qvpy_lock();
  if (held->release) held->release(held);
  qvpy_unlock();
  free(held);
  a->release = NULL;
}

static int ls_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  struct ArrowArrayStream *inner = s->private_data;
  qvpy_lock();
  int rc = inner->get_schema(inner, out);
  qvpy_unlock();
  return rc;
}

static int ls_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  struct ArrowArrayStream *inner = s->private_data;
  qvpy_lock();
  int rc = inner->get_next(inner, out);
  qvpy_unlock();
  if (rc != 0 || !out->release) return rc;
  /* Move the producer's array behind a release that takes the lock; the
   * buffer and child pointers stay what the producer exported. */
  struct ArrowArray *held = malloc(sizeof *held);
  if (!held) {
    qvpy_lock();
    out->release(out);
    qvpy_unlock();
    return ENOMEM;
  }
  *held = *out;
  out->private_data = held;
  out->release = locked_array_release;
  return 0;
}

static const char *ls_get_last_error(struct ArrowArrayStream *s) {
  struct ArrowArrayStream *inner = s->private_data;
  return inner->get_last_error(inner);
}

static void ls_release(struct ArrowArrayStream *s) {
  struct ArrowArrayStream *inner = s->private_data;
  qvpy_lock();
  if (inner->release) inner->release(inner);
  qvpy_unlock();
  free(inner);
  s->release = NULL;
}

int qvpy_locked_stream(struct ArrowArrayStream *inner, struct ArrowArrayStream *out) {
  struct ArrowArrayStream *held = malloc(sizeof *held);
  if (!held) {
    qvpy_lock();
    inner->release(inner);
    qvpy_unlock();
    return 0;
  }
  *held = *inner;
  inner->release = NULL;
  out->get_schema = ls_get_schema;
  out->get_next = ls_get_next;
  out->get_last_error = ls_get_last_error;
  out->release = ls_release;
  out->private_data = held;
  return 1;
}

/* ---- capsules ------------------------------------------------------------ */

static void stream_capsule_free(PyObject *capsule) {
  struct ArrowArrayStream *s = PyCapsule_GetPointer(capsule, "arrow_array_stream");
  if (!s) {
    PyErr_Clear();
    return;
  }
  if (s->release) s->release(s); /* nobody consumed it */
  free(s);
}

PyObject *qvpy_stream_capsule(struct ArrowArrayStream *stream) {
  struct ArrowArrayStream *heap = malloc(sizeof *heap);
  if (!heap) {
    stream->release(stream);
    return PyErr_NoMemory();
  }
  *heap = *stream;
  stream->release = NULL;
  PyObject *cap = PyCapsule_New(heap, "arrow_array_stream", stream_capsule_free);
  if (!cap) {
    heap->release(heap);
    free(heap);
  }
  return cap;
}

static void schema_capsule_free(PyObject *capsule) {
  struct ArrowSchema *s = PyCapsule_GetPointer(capsule, "arrow_schema");
  if (!s) {
    PyErr_Clear();
    return;
  }
  if (s->release) s->release(s);
  free(s);
}

PyObject *qvpy_schema_capsule(const qv_schema *schema) { return qvpy_schema_capsule_with(schema, 0); }

PyObject *qvpy_schema_capsule_with(const qv_schema *schema, uint32_t flags) {
  struct ArrowSchema *heap = calloc(1, sizeof *heap);
  if (!heap) return PyErr_NoMemory();
  qv_error err = {0};
  if (qv_export_schema_with(schema, flags, heap, &err) != QV_OK) {
    free(heap);
    return qvpy_raise(&err);
  }
  PyObject *cap = PyCapsule_New(heap, "arrow_schema", schema_capsule_free);
  if (!cap) {
    heap->release(heap);
    free(heap);
  }
  return cap;
}

int qvpy_schema_from_stream_object(PyObject *obj, qv_schema *out) {
  PyObject *cap = PyObject_CallMethod(obj, "__arrow_c_stream__", NULL);
  if (!cap) return -1;
  struct ArrowArrayStream *s = PyCapsule_GetPointer(cap, "arrow_array_stream");
  if (!s) {
    Py_DECREF(cap);
    return -1;
  }
  if (!s->release) {
    Py_DECREF(cap);
    PyErr_SetString(PyExc_ValueError, "schema: the Arrow stream was already consumed");
    return -1;
  }
  /* qv_import_stream moves the stream (also on failure, when it releases
   * it), so the capsule's destructor finds it released. */
  qv_error err = {0};
  qv_batch_reader *reader = NULL;
  qv_status st = qv_import_stream(s, &reader, &err);
  Py_DECREF(cap);
  if (st == QV_OK) st = qv_schema_copy(reader->schema(reader), out);
  qv_batch_reader_destroy(reader);
  if (st != QV_OK) {
    if (!err.message[0]) qv_error_nomem(&err, "schema");
    qvpy_raise(&err);
    return -1;
  }
  return 0;
}

/* ---- the module ---------------------------------------------------------- */

/* memory_trim() -> int: qv_memory_trim (the allocator's cache is
 * thread-safe on its own). */
static PyObject *module_memory_trim(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyLong_FromSize_t(qv_memory_trim());
}

static PyMethodDef module_methods[] = {
    {"memory_trim", module_memory_trim, METH_NOARGS,
     "memory_trim() -> int\n\n"
     "Frees the large blocks libquiver keeps for reuse (at most 16 MiB) and returns their bytes;\n"
     "for long-running processes after a large scan."},
    {"batches_stream", (PyCFunction)(void (*)(void))qvpy_batches_stream, METH_VARARGS | METH_KEYWORDS,
     "batches_stream(batches, string_views=False) -> PyCapsule\n\n"
     "Batches of one schema as one 'arrow_array_stream' capsule, each batch a chunk (buffers shared).\n"
     "string_views: export strings and binary as Arrow string_view / binary_view."},
    {"to_lance_filter", (PyCFunction)(void (*)(void))qvpy_to_lance_filter, METH_VARARGS | METH_KEYWORDS,
     "to_lance_filter(polars_json, schema=None) -> LanceFilter | None\n\n"
     "Translates the JSON of Expr.meta.serialize(format='json') into a Lance SQL filter.\n"
     "schema: an object with __arrow_c_stream__ whose schema gives the column types\n"
     "(e.g. an empty Polars DataFrame), or None for schema-less translation."},
    {"explain_lance_filter", (PyCFunction)(void (*)(void))qvpy_explain_lance_filter, METH_VARARGS | METH_KEYWORDS,
     "explain_lance_filter(polars_json, schema=None) -> str\n\n"
     "One line per node that declined (or conjunct that was dropped), with the reason."},
    {"to_bigquery_filter", (PyCFunction)(void (*)(void))qvpy_to_bigquery_filter, METH_VARARGS | METH_KEYWORDS,
     "to_bigquery_filter(polars_json, schema=None) -> BigQueryFilter | None\n\n"
     "Translates the JSON of Expr.meta.serialize(format='json') into a BigQuery Storage Read API\n"
     "row_restriction.  schema: a BigQuery table schema as JSON text, an object with\n"
     "__arrow_c_stream__ whose schema gives the column types, or None (schema-less)."},
    {"explain_bigquery_filter", (PyCFunction)(void (*)(void))qvpy_explain_bigquery_filter, METH_VARARGS | METH_KEYWORDS,
     "explain_bigquery_filter(polars_json, schema=None) -> str\n\n"
     "One line per node that declined (or conjunct that was dropped), with the reason."},
    {"write_dataset", (PyCFunction)(void (*)(void))qvpy_write_dataset, METH_VARARGS | METH_KEYWORDS,
     "write_dataset(data, path, *, mode='create', max_rows_per_file=0, page_rows=0, compression='auto') -> int\n\n"
     "Writes the Arrow stream of data (__arrow_c_stream__) as a new version; returns it.  All or nothing."},
    {"delete", (PyCFunction)(void (*)(void))qvpy_delete, METH_VARARGS | METH_KEYWORDS,
     "delete(path, *, filter=None, polars_json=None) -> (rows, version)\n\n"
     "Deletes the rows a Lance SQL filter or a Polars expression's JSON keeps; commits a version\n"
     "(unchanged when no row matched)."},
    {"merge", (PyCFunction)(void (*)(void))qvpy_merge, METH_VARARGS | METH_KEYWORDS,
     "merge(path, source, on, *, when_matched='update', insert=True, delete_not_matched=False,\n"
     "      update_columns=None) -> (version, inserted, updated, deleted)\n\n"
     "Upserts the Arrow stream of source into the dataset on the key columns (one version)."},
    {"write_batches", (PyCFunction)(void (*)(void))qvpy_write_batches, METH_VARARGS | METH_KEYWORDS,
     "write_batches(frames, path, *, mode='create', max_rows_per_file=0, max_bytes_per_file=0, page_rows=0,\n"
     "              compression='auto') -> int\n\n"
     "Writes an iterator of Arrow-stream objects (e.g. DataFrames) one at a time as a new version."},
    {"write_fragments", (PyCFunction)(void (*)(void))qvpy_write_fragments, METH_VARARGS | METH_KEYWORDS,
     "write_fragments(data, path, *, max_rows_per_file=0, page_rows=0) -> str\n\n"
     "Writes data files without committing; returns the fragment set that commit_fragments takes."},
    {"commit_fragments", (PyCFunction)(void (*)(void))qvpy_commit_fragments, METH_VARARGS | METH_KEYWORDS,
     "commit_fragments(path, sets, mode='append') -> int\n\nCommits fragment sets as one version (idempotent)."},
    {"fragments", (PyCFunction)(void (*)(void))qvpy_fragments, METH_VARARGS | METH_KEYWORDS,
     "fragments(path, version=0) -> [(id, num_rows, num_deleted, data_file)]"},
    {"compact", (PyCFunction)(void (*)(void))qvpy_compact, METH_VARARGS | METH_KEYWORDS,
     "compact(path, *, target_rows_per_file=0, max_deleted_fraction=-1.0)\n"
     "    -> (version, fragments_removed, fragments_added, rows_rewritten, rows_dropped)"},
    {"cleanup", (PyCFunction)(void (*)(void))qvpy_cleanup, METH_VARARGS | METH_KEYWORDS,
     "cleanup(path, *, older_than_ms, keep_versions, orphan_grace_ms, dry_run)\n"
     "    -> (versions_removed, files_removed, orphans_removed, bytes_removed, files_kept_for_damaged)"},
    {"tag", (PyCFunction)(void (*)(void))qvpy_tag, METH_VARARGS | METH_KEYWORDS, "tag(path, name, version) -> None"},
    {"untag", (PyCFunction)(void (*)(void))qvpy_untag, METH_VARARGS | METH_KEYWORDS, "untag(path, name) -> None"},
    {"tags", (PyCFunction)(void (*)(void))qvpy_tags, METH_VARARGS | METH_KEYWORDS, "tags(path) -> [(name, version)]"},
    {"versions", (PyCFunction)(void (*)(void))qvpy_versions, METH_VARARGS | METH_KEYWORDS,
     "versions(path) -> [(version, timestamp_ms, operation, rows, fragments, ok, message)]"},
    {"restore", (PyCFunction)(void (*)(void))qvpy_restore, METH_VARARGS | METH_KEYWORDS,
     "restore(path, version) -> int\n\n"
     "Commits a new version equal to version (its files shared; no history rewritten); returns it."},
    {"create_index", (PyCFunction)(void (*)(void))qvpy_create_index, METH_VARARGS | METH_KEYWORDS,
     "create_index(path, column, type, *, name=None) -> int\n\n"
     "Builds a btree, bitmap, ngram or label_list index on column and commits it; returns the version."},
    {"drop_index", (PyCFunction)(void (*)(void))qvpy_drop_index, METH_VARARGS | METH_KEYWORDS,
     "drop_index(path, name) -> int\n\nCommits a version without the index; returns it."},
    {"optimize_indices", (PyCFunction)(void (*)(void))qvpy_optimize_indices, METH_VARARGS | METH_KEYWORDS,
     "optimize_indices(path, name=None, *, rebuild=False) -> int\n\n"
     "Rebuilds damaged index files (rebuild=True), then indexes fragments the indices do not cover;\n"
     "returns the last version committed, 0 when there was nothing to do."},
    {"list_indices", (PyCFunction)(void (*)(void))qvpy_list_indices, METH_VARARGS | METH_KEYWORDS,
     "list_indices(path, *, version=0) -> list of tuples\n\n"
     "(name, type, column, fragments, dataset_fragments, rows, distinct, built_version, updated_version,\n"
     "damaged_files, first_error) per index, every file's checksums verified."},
    {"cypher_literal", qvpy_cypher_literal, METH_O,
     "cypher_literal(value) -> str\n\n"
     "The Cypher literal text a query parameter's Python value is passed as (None, bool, int, float,\n"
     "str, list, tuple, dict, nested): exact, floats in their shortest round-trip digits."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "quiver._quiver",
    "The C core of the quiver package: libquiver's scanner, its Lance and BigQuery translators, and Cypher\n"
    "over graphs.",
    -1,
    module_methods,
    NULL,
    NULL,
    NULL,
    NULL};

PyMODINIT_FUNC PyInit__quiver(void) {
  PyTypeObject *types[] = {&qvpy_dataset_type,      &qvpy_scanner_type,         &qvpy_batch_type,
                           &qvpy_lance_filter_type, &qvpy_bigquery_filter_type, &qvpy_graph_type};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (PyType_Ready(types[i]) < 0) return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  /* Created once per process, so that the classes stay the same objects
   * (and the subclasses keep their base) should the module be initialized
   * again. */
  if (!qvpy_error_type)
    qvpy_error_type = PyErr_NewExceptionWithDoc(
        "quiver.QuiverError",
        "An error reported by libquiver.  str(e) is the C message; e.code the status number and "
        "e.status its name (\"not found\", \"parse error\", ...).  The subclasses say what kind of "
        "error it is; errors of no subclass's kind (I/O, overflow, out of memory) are QuiverError itself.",
        PyExc_ValueError, NULL);
  if (!qvpy_error_type || PyModule_AddObjectRef(m, "QuiverError", qvpy_error_type) < 0) goto cleanup;
  for (size_t i = 0; i < N_ERROR_CLASSES; i++) {
    if (!error_classes[i].type)
      error_classes[i].type =
          PyErr_NewExceptionWithDoc(error_classes[i].name, error_classes[i].doc, qvpy_error_type, NULL);
    if (!error_classes[i].type ||
        PyModule_AddObjectRef(m, strchr(error_classes[i].name, '.') + 1, error_classes[i].type) < 0)
      goto cleanup;
  }
  const char *names[] = {"Dataset", "Scanner", "Batch", "LanceFilter", "BigQueryFilter", "Graph"};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (PyModule_AddObjectRef(m, names[i], (PyObject *)types[i]) < 0) goto cleanup;
  if (PyModule_AddStringConstant(m, "LIBQUIVER_VERSION", QV_VERSION_STRING) < 0) goto cleanup;
  return m;
cleanup:
  Py_DECREF(m);
  return NULL;
}
