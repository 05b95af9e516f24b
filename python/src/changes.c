/* Calls that commit a new version of a dataset (quiver.write_dataset,
 * quiver.delete, quiver.restore and the scalar index functions) and the
 * index listing.
 * Each is one call of libquiver's public API made with the GIL released:
 * they read and write files for as long as the data takes.  They touch no
 * batch exported to Polars, so they run without qvpy_lock (see
 * pyquiver.h), and a write must: the stream it consumes may be quiver's
 * own (a frame of a quiver.scan), whose callbacks take that lock, which
 * is not recursive. */
#include "pyquiver.h"

#include <string.h>

/* The position of name in names (NULL-terminated), or -1 with a ValueError
 * listing them. */
static int pick(const char *what, const char *name, const char *const *names) {
  for (int i = 0; names[i]; i++)
    if (!strcmp(name, names[i])) return i;
  char list[128] = "";
  for (int i = 0; names[i]; i++) {
    size_t n = strlen(list);
    snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", names[i]);
  }
  PyErr_Format(PyExc_ValueError, "%s must be one of %s, not '%s'", what, list, name);
  return -1;
}

PyObject *qvpy_write_dataset(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"data", "path", "mode", "max_rows_per_file", "page_rows", "compression", NULL};
  static const char *const modes[] = {"create", "append", "overwrite", NULL}; /* qv_write_mode order */
  static const char *const codecs[] = {"auto", "none", "zstd", "lz4", NULL};  /* qv_compression order */
  PyObject *data, *path_obj;
  const char *mode = "create", *compression = "auto";
  long long max_rows = 0, page_rows = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO&|$sLLs:write_dataset", kw, &data, PyUnicode_FSConverter, &path_obj,
                                   &mode, &max_rows, &page_rows, &compression))
    return NULL;
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  int m = pick("mode", mode, modes), c = m < 0 ? -1 : pick("compression", compression, codecs);
  if (c >= 0 && (max_rows < 0 || page_rows < 0)) {
    PyErr_SetString(PyExc_ValueError, "max_rows_per_file and page_rows must not be negative (0: the default)");
    c = -1;
  }
  PyObject *cap = NULL;
  if (c >= 0 && !PyObject_HasAttrString(data, "__arrow_c_stream__"))
    PyErr_Format(PyExc_TypeError,
                 "write_dataset: data must export an Arrow stream (__arrow_c_stream__: a Polars DataFrame, "
                 "a pyarrow Table...), not %.100s",
                 Py_TYPE(data)->tp_name);
  else if (c >= 0) cap = PyObject_CallMethod(data, "__arrow_c_stream__", NULL);
  struct ArrowArrayStream *stream = cap ? PyCapsule_GetPointer(cap, "arrow_array_stream") : NULL;
  if (!stream) {
    Py_XDECREF(cap);
    Py_DECREF(path_obj);
    return NULL;
  }
  o.mode = (qv_write_mode)m;
  o.compression = (qv_compression)c;
  if (max_rows > 0) o.max_rows_per_file = max_rows;
  if (page_rows > 0) o.page_rows = page_rows;
  const char *path = PyBytes_AS_STRING(path_obj);
  qv_error err = {0};
  int64_t version = 0;
  qv_status st;
  Py_BEGIN_ALLOW_THREADS
      /* the import moves the stream (releasing it on failure): the capsule's
   * destructor then finds it released */
      qv_batch_reader *reader = NULL;
  st = qv_import_stream(stream, &reader, &err);
  if (st == QV_OK) st = qv_dataset_write(path, reader, &o, &version, &err);
  qv_batch_reader_destroy(reader);
  Py_END_ALLOW_THREADS Py_DECREF(cap);
  Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  return PyLong_FromLongLong(version);
}

/* delete(path, *, filter=None, polars_json=None) -> (rows, version): one of
 * Lance SQL text or the JSON of a Polars expression. */
PyObject *qvpy_delete(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", "filter", "polars_json", NULL};
  PyObject *path_obj;
  const char *filter = NULL, *json = NULL;
  Py_ssize_t json_len = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|$zz#:delete", kw, PyUnicode_FSConverter, &path_obj, &filter, &json,
                                   &json_len))
    return NULL;
  qv_error err = {0};
  qv_expr *expr = NULL;
  if ((filter != NULL) == (json != NULL)) {
    Py_DECREF(path_obj);
    PyErr_SetString(PyExc_TypeError, "delete: give filter (Lance SQL) or polars_json, one of them");
    return NULL;
  }
  if (json && qv_polars_from_json(json, (size_t)json_len, &expr, &err) != QV_OK) {
    Py_DECREF(path_obj);
    return qvpy_raise(&err);
  }
  int64_t deleted = 0, version = 0;
  qv_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = expr ? qv_dataset_delete_matching(path, expr, &deleted, &version, &err)
                                   : qv_dataset_delete_where(path, filter, &deleted, &version, &err);
  Py_END_ALLOW_THREADS qv_expr_destroy(expr);
  Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  return Py_BuildValue("(LL)", (long long)deleted, (long long)version);
}

PyObject *qvpy_create_index(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path",        "column",         "type", "name", "metric", "num_partitions", "num_sub_vectors",
                       "sample_rows", "max_iterations", "seed", NULL};
  PyObject *path_obj;
  const char *column, *type_name, *name = NULL, *metric = NULL;
  int parts = 0, subs = 0, iters = 0;
  long long sample = 0;
  unsigned long long seed = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&ss|$zziiLiK:create_index", kw, PyUnicode_FSConverter, &path_obj,
                                   &column, &type_name, &name, &metric, &parts, &subs, &sample, &iters, &seed))
    return NULL;
  qv_index_type type;
  if (!qv_index_type_parse(type_name, &type)) {
    const char *types[] = {qv_index_type_name(QV_INDEX_BTREE),
                           qv_index_type_name(QV_INDEX_BITMAP),
                           qv_index_type_name(QV_INDEX_NGRAM),
                           qv_index_type_name(QV_INDEX_LABEL_LIST),
                           qv_index_type_name(QV_INDEX_IVF_FLAT),
                           qv_index_type_name(QV_INDEX_IVF_PQ),
                           NULL};
    pick("type", type_name, types); /* sets the ValueError naming the library's types */
    Py_DECREF(path_obj);
    return NULL;
  }
  qv_index_options o = QV_INDEX_OPTIONS_INIT;
  o.name = name;
  if (metric && !qv_metric_parse(metric, &o.metric)) {
    Py_DECREF(path_obj);
    PyErr_Format(PyExc_ValueError, "create_index: metric is l2, cosine or dot, not '%s'", metric);
    return NULL;
  }
  o.num_partitions = parts;
  o.num_sub_vectors = subs;
  o.sample_rows = sample;
  o.max_iterations = iters;
  o.seed = seed;
  qv_error err = {0};
  int64_t version = 0;
  qv_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = qv_index_create(path, column, type, &o, &version, &err);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  return PyLong_FromLongLong(version);
}

PyObject *qvpy_drop_index(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", "name", NULL};
  PyObject *path_obj;
  const char *name;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&s:drop_index", kw, PyUnicode_FSConverter, &path_obj, &name))
    return NULL;
  qv_error err = {0};
  int64_t version = 0;
  qv_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = qv_index_drop(path, name, &version, &err);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  return PyLong_FromLongLong(version);
}

/* restore(path, version) -> int: a new version equal to `version`
 * (qv_dataset_restore); the way back from a damaged latest version. */
PyObject *qvpy_restore(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", "version", NULL};
  PyObject *path_obj;
  long long version;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&L:restore", kw, PyUnicode_FSConverter, &path_obj, &version))
    return NULL;
  qv_error err = {0};
  int64_t new_version = 0;
  qv_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = qv_dataset_restore(path, (int64_t)version, &new_version, &err);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  return PyLong_FromLongLong(new_version);
}

/* optimize_indices(path, name=None, rebuild=False) -> int: rebuilds damaged
 * files first when asked (qv_index_rebuild), then covers fragments the
 * indices do not (qv_index_optimize); the last version committed, 0 when
 * neither had anything to do. */
PyObject *qvpy_optimize_indices(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", "name", "rebuild", NULL};
  PyObject *path_obj;
  const char *name = NULL;
  int rebuild = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|z$p:optimize_indices", kw, PyUnicode_FSConverter, &path_obj, &name,
                                   &rebuild))
    return NULL;
  qv_error err = {0};
  int64_t rebuilt_version = 0, version = 0;
  qv_status st = QV_OK;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS if (rebuild) st = qv_index_rebuild(path, name, NULL, &rebuilt_version, &err);
  if (st == QV_OK) st = qv_index_optimize(path, name, &version, &err);
  /* a failed optimize after a committed rebuild: say the version is there */
  if (st != QV_OK && rebuilt_version)
    qv_error_prefix(&err, st, "the rebuild committed version %lld, then", (long long)rebuilt_version);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  return PyLong_FromLongLong(version ? version : rebuilt_version);
}

/* One index of ds as the tuple quiver.IndexInfo is made from; NULL with an
 * exception set on failure. */
static PyObject *index_row(const qv_dataset *ds, int32_t i) {
  qv_index *ix = NULL;
  qv_index_stats stats;
  int32_t damaged = 0;
  const char *first = NULL;
  qv_error err = {0};
  qv_status st;
  Py_BEGIN_ALLOW_THREADS st = qv_index_open(ds, i, &ix, &err);
  if (st == QV_OK) {
    qv_index_set_tolerant(ix, true); /* the statistics of the readable files */
    st = qv_index_verify(ix, &damaged, &err);
  }
  if (st == QV_OK) st = qv_index_stats_get(ix, &stats, &err);
  if (st == QV_OK && damaged) qv_index_damaged(ix, &first);
  Py_END_ALLOW_THREADS PyObject *row = NULL;
  if (st != QV_OK) {
    qvpy_raise(&err);
  } else {
    qv_index_entry e;
    qv_dataset_index(ds, i, &e);
    row = Py_BuildValue("(sssiiLLLLiz)", e.name, qv_index_type_name(e.type), e.column, (int)e.n_files,
                        (int)qv_dataset_num_fragments(ds), (long long)stats.rows, (long long)stats.distinct,
                        (long long)e.built_version, (long long)e.updated_version, (int)damaged, first);
  }
  qv_index_close(ix);
  return row;
}

PyObject *qvpy_list_indices(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", "version", NULL};
  PyObject *path_obj;
  long long version = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|$L:list_indices", kw, PyUnicode_FSConverter, &path_obj, &version))
    return NULL;
  qv_dataset *ds = qvpy_dataset_open(path_obj, version);
  if (!ds) return NULL;
  int32_t n = qv_dataset_num_indices(ds);
  PyObject *list = PyList_New(n);
  for (int32_t i = 0; list && i < n; i++) {
    PyObject *row = index_row(ds, i);
    if (!row) Py_CLEAR(list);
    else PyList_SET_ITEM(list, i, row);
  }
  qvpy_dataset_close(ds);
  return list;
}

/* A list of str (or one str) as a NULL-terminated array of UTF-8 pointers
 * into the list's strings (valid while seq lives); *n its length.  NULL
 * with an exception set on a wrong type. */
static const char **str_list(const char *what, PyObject *seq, int32_t *n) {
  *n = 0;
  if (seq == Py_None) return PyMem_Calloc(1, sizeof(char *));
  if (PyUnicode_Check(seq)) {
    const char **v = PyMem_Calloc(2, sizeof *v);
    if (!v) return (const char **)PyErr_NoMemory();
    if (!(v[0] = PyUnicode_AsUTF8(seq))) {
      PyMem_Free(v);
      return NULL;
    }
    *n = 1;
    return v;
  }
  if (!PyList_Check(seq) && !PyTuple_Check(seq)) {
    PyErr_Format(PyExc_TypeError, "%s must be a str or a list of str, not %.100s", what, Py_TYPE(seq)->tp_name);
    return NULL;
  }
  Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
  const char **v = PyMem_Calloc((size_t)len + 1, sizeof *v);
  if (!v) return (const char **)PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < len; i++) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    if (!PyUnicode_Check(item) || !(v[i] = PyUnicode_AsUTF8(item))) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "%s must hold str, not %.100s", what, Py_TYPE(item)->tp_name);
      PyMem_Free(v);
      return NULL;
    }
  }
  *n = (int32_t)len;
  return v;
}

/* merge(path, source, *, on, when_matched, insert, delete_not_matched,
 * update_columns) -> (version, inserted, updated, deleted): qv_dataset_merge
 * with the source read from its Arrow stream. */
PyObject *qvpy_merge(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", "source", "on", "when_matched", "insert", "delete_not_matched", "update_columns", NULL};
  static const char *const matched[] = {"update", "nothing", "delete", NULL}; /* qv_merge_matched order */
  PyObject *path_obj, *source, *on_obj, *cols_obj = Py_None;
  const char *when = "update";
  int insert = 1, delete_nm = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&OO|$sppO:merge", kw, PyUnicode_FSConverter, &path_obj, &source,
                                   &on_obj, &when, &insert, &delete_nm, &cols_obj))
    return NULL;
  qv_merge_options o = QV_MERGE_OPTIONS_INIT;
  const char **on = NULL, **cols = NULL;
  PyObject *cap = NULL;
  int m = pick("when_matched", when, matched);
  if (m >= 0) on = str_list("on", on_obj, &o.n_on);
  if (on) cols = str_list("update_columns", cols_obj, &o.n_update_columns);
  if (cols && !PyObject_HasAttrString(source, "__arrow_c_stream__"))
    PyErr_Format(PyExc_TypeError,
                 "merge: source must export an Arrow stream (__arrow_c_stream__: a Polars DataFrame, "
                 "a pyarrow Table...), not %.100s",
                 Py_TYPE(source)->tp_name);
  else if (cols) cap = PyObject_CallMethod(source, "__arrow_c_stream__", NULL);
  struct ArrowArrayStream *stream = cap ? PyCapsule_GetPointer(cap, "arrow_array_stream") : NULL;
  if (!stream) {
    Py_XDECREF(cap);
    PyMem_Free(on);
    PyMem_Free(cols);
    Py_DECREF(path_obj);
    return NULL;
  }
  o.on = on;
  o.when_matched = (qv_merge_matched)m;
  o.update_columns = cols;
  o.insert_not_matched = insert;
  o.delete_not_matched_by_source = delete_nm;
  const char *path = PyBytes_AS_STRING(path_obj);
  qv_error err = {0};
  qv_merge_result res = {0};
  qv_status st;
  Py_BEGIN_ALLOW_THREADS qv_batch_reader *reader = NULL;
  st = qv_import_stream(stream, &reader, &err);
  if (st == QV_OK) st = qv_dataset_merge(path, reader, &o, &res, &err);
  qv_batch_reader_destroy(reader);
  Py_END_ALLOW_THREADS Py_DECREF(cap);
  PyMem_Free(on);
  PyMem_Free(cols);
  Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  return Py_BuildValue("(LLLL)", (long long)res.version, (long long)res.inserted, (long long)res.updated,
                       (long long)res.deleted);
}
