/* Internals shared by the files of the CPython extension quiver._quiver.
 *
 * The extension is a client of libquiver's public API only (like the
 * `quiver` command).  Two rules hold it together:
 *
 *  - Every libquiver call that can retain or release a shared buffer runs
 *    with qvpy_lock held and, where it may take time, with the GIL released.
 *    libquiver's reference counts are plain integers, and batches exported
 *    to Polars are released by whichever Polars thread drops them last, so
 *    the extension serializes those calls itself.  A thread holding the lock
 *    never waits for the GIL, so the two cannot deadlock.
 *  - Errors from libquiver become quiver.QuiverError, or the subclass its
 *    status code maps to (module.c's error_classes), with the C message and
 *    the status (code and name) as attributes. */
#ifndef QUIVER_PYTHON_SRC_PYQUIVER_H
#define QUIVER_PYTHON_SRC_PYQUIVER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <quiver/quiver.h>
#include <quiver/scan.h> /* not (yet) in the umbrella header */

void qvpy_lock(void);
void qvpy_unlock(void);

/* The exception type quiver.QuiverError (a ValueError), base of the
 * subclasses qvpy_raise picks from. */
extern PyObject *qvpy_error_type;

/* Raises the QuiverError subclass err->code maps to (QuiverError itself
 * for a code none maps), with str(e) the message, e.code and e.status;
 * returns NULL for `return qvpy_raise(&err);`. */
PyObject *qvpy_raise(const qv_error *err);

/* Opens the dataset at path_obj (bytes from PyUnicode_FSConverter, whose
 * reference it takes) at version (0: latest) with the GIL released; NULL
 * with the exception set on failure.  Close with qvpy_dataset_close (under
 * qvpy_lock, as every call into the library that may race another). */
qv_dataset *qvpy_dataset_open(PyObject *path_obj, long long version);
void qvpy_dataset_close(qv_dataset *ds);

/* Wraps a producer's stream so that every call into it, and the release of
 * every array it hands out, runs under qvpy_lock.  Moves *inner (its release
 * is set to NULL) into *out.  Returns false (inner released) when out of
 * memory. */
int qvpy_locked_stream(struct ArrowArrayStream *inner, struct ArrowArrayStream *out);

/* A PyCapsule "arrow_array_stream" owning a heap copy of *stream (moved);
 * the capsule's destructor releases a stream nobody consumed. */
PyObject *qvpy_stream_capsule(struct ArrowArrayStream *stream);
/* A PyCapsule "arrow_schema" owning an export of schema. */
PyObject *qvpy_schema_capsule(const qv_schema *schema);
/* The same with qv_export_schema_with flags (QV_EXPORT_STRING_VIEW). */
PyObject *qvpy_schema_capsule_with(const qv_schema *schema, uint32_t flags);

/* Reads the schema of any object with __arrow_c_stream__ (a Polars DataFrame,
 * a pyarrow table...) into *out.  Returns 0, or -1 with an exception set. */
int qvpy_schema_from_stream_object(PyObject *obj, qv_schema *out);

/* Type and function tables of the other files, joined by the module. */
extern PyTypeObject qvpy_dataset_type;
extern PyTypeObject qvpy_scanner_type;
extern PyTypeObject qvpy_batch_type;
PyObject *qvpy_batches_stream(PyObject *self, PyObject *args, PyObject *kwargs);
extern PyTypeObject qvpy_lance_filter_type;
PyObject *qvpy_to_lance_filter(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_explain_lance_filter(PyObject *self, PyObject *args, PyObject *kwargs);
extern PyTypeObject qvpy_bigquery_filter_type;
PyObject *qvpy_to_bigquery_filter(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_explain_bigquery_filter(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_write_dataset(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_delete(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_restore(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_merge(PyObject *self, PyObject *args, PyObject *kwargs);
/* sink.c */
PyObject *qvpy_write_batches(PyObject *self, PyObject *args, PyObject *kwargs);
/* maintain.c */
PyObject *qvpy_compact(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_cleanup(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_tag(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_untag(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_tags(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_versions(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_write_fragments(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_commit_fragments(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_fragments(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_create_index(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_drop_index(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_optimize_indices(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *qvpy_list_indices(PyObject *self, PyObject *args, PyObject *kwargs);

/* cypher_params.c: Cypher query parameters from a dict of Python values
 * (None, bool, int, float, str, list, tuple, dict, nested), each as the
 * text of a Cypher literal. */
typedef struct qvpy_params {
  qv_cypher_params p; /* points into names and values */
  char **names;
  char **values;
} qvpy_params;
/* Fills *out from params (a dict, or None/NULL for none); with literal,
 * each value is a str of Cypher literal text, taken as it is.  Returns 0,
 * or -1 with an exception set (and *out empty).  qvpy_params_reset frees
 * it. */
int qvpy_cypher_params(PyObject *params, bool literal, qvpy_params *out);
void qvpy_params_reset(qvpy_params *p);
/* cypher_literal(value) -> str: the literal text a parameter value gets. */
PyObject *qvpy_cypher_literal(PyObject *self, PyObject *value);

/* graph.c: quiver._quiver.Graph (a graph folder, or a graph in memory). */
extern PyTypeObject qvpy_graph_type;

#endif
