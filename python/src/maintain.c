/* Maintenance calls (quiver.compact / cleanup / tag / untag / tags /
 * versions): one libquiver call each, made with the GIL released, as the
 * commits in changes.c are (they touch no batch exported to Polars). */
#include "pyquiver.h"

#include <string.h>

/* compact(path, *, target_rows_per_file=0, max_deleted_fraction=-1.0) ->
 * (version, fragments_removed, fragments_added, rows_rewritten, rows_dropped);
 * 0 / negative: the library's defaults. */
PyObject *qvpy_compact(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", "target_rows_per_file", "max_deleted_fraction", NULL};
  PyObject *path_obj;
  long long target = 0;
  double fraction = -1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|$Ld:compact", kw, PyUnicode_FSConverter, &path_obj, &target,
                                   &fraction))
    return NULL;
  qv_compact_options o = QV_COMPACT_OPTIONS_INIT;
  if (target > 0) o.target_rows_per_file = target;
  if (fraction >= 0) o.max_deleted_fraction = fraction;
  qv_compact_result res = {0};
  qv_error err = {0};
  qv_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = qv_dataset_compact(path, &o, &res, &err);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  return Py_BuildValue("(LiiLL)", (long long)res.version, (int)res.fragments_removed, (int)res.fragments_added,
                       (long long)res.rows_rewritten, (long long)res.rows_dropped);
}

/* cleanup(path, *, older_than_ms, keep_versions, orphan_grace_ms, dry_run) ->
 * (versions_removed, files_removed, orphans_removed, bytes_removed,
 * files_kept_for_damaged). */
PyObject *qvpy_cleanup(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", "older_than_ms", "keep_versions", "orphan_grace_ms", "dry_run", NULL};
  PyObject *path_obj;
  qv_cleanup_options o = QV_CLEANUP_OPTIONS_INIT;
  long long older = o.older_than_ms, keep = 0, grace = o.orphan_grace_ms;
  int dry = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|$LLLp:cleanup", kw, PyUnicode_FSConverter, &path_obj, &older,
                                   &keep, &grace, &dry))
    return NULL;
  o.older_than_ms = older;
  o.keep_versions = keep;
  o.orphan_grace_ms = grace;
  o.dry_run = dry;
  qv_cleanup_result res = {0};
  qv_error err = {0};
  qv_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = qv_dataset_cleanup(path, &o, &res, &err);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  return Py_BuildValue("(LLLLO)", (long long)res.versions_removed, (long long)res.files_removed,
                       (long long)res.orphans_removed, (long long)res.bytes_removed,
                       res.files_kept_for_damaged ? Py_True : Py_False);
}

/* tag(path, name, version) -> None; untag(path, name) -> None. */
PyObject *qvpy_tag(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", "name", "version", NULL};
  PyObject *path_obj;
  const char *name;
  long long version;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&sL:tag", kw, PyUnicode_FSConverter, &path_obj, &name, &version))
    return NULL;
  qv_error err = {0};
  qv_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = qv_dataset_tag(path, name, (int64_t)version, &err);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  Py_RETURN_NONE;
}

PyObject *qvpy_untag(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", "name", NULL};
  PyObject *path_obj;
  const char *name;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&s:untag", kw, PyUnicode_FSConverter, &path_obj, &name)) return NULL;
  qv_error err = {0};
  qv_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = qv_dataset_untag(path, name, &err);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  Py_RETURN_NONE;
}

/* tags(path) -> [(name, version)], by name. */
PyObject *qvpy_tags(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", NULL};
  PyObject *path_obj;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&:tags", kw, PyUnicode_FSConverter, &path_obj)) return NULL;
  qv_error err = {0};
  qv_tag *tags = NULL;
  int64_t n = 0;
  qv_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = qv_dataset_tags(path, &tags, &n, &err);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  PyObject *list = PyList_New((Py_ssize_t)n);
  for (int64_t i = 0; list && i < n; i++) {
    PyObject *t = Py_BuildValue("(sL)", tags[i].name, (long long)tags[i].version);
    if (!t) Py_CLEAR(list);
    else PyList_SET_ITEM(list, (Py_ssize_t)i, t);
  }
  qv_free(tags);
  return list;
}

/* versions(path) -> [(version, timestamp_ms, operation, rows, fragments,
 * ok, message)], oldest first (qv_dataset_list_versions). */
PyObject *qvpy_versions(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", NULL};
  PyObject *path_obj;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&:versions", kw, PyUnicode_FSConverter, &path_obj)) return NULL;
  qv_error err = {0};
  qv_version_entry *v = NULL;
  int64_t n = 0;
  qv_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = qv_dataset_list_versions(path, &v, &n, &err);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  PyObject *list = PyList_New((Py_ssize_t)n);
  for (int64_t i = 0; list && i < n; i++) {
    const qv_version_info *x = &v[i].info;
    PyObject *t = Py_BuildValue("(LLsLiOs)", (long long)x->version, (long long)x->timestamp_ms, x->operation,
                                (long long)x->num_rows, (int)x->num_fragments,
                                v[i].state == QV_VERSION_OK ? Py_True : Py_False, v[i].message);
    if (!t) Py_CLEAR(list);
    else PyList_SET_ITEM(list, (Py_ssize_t)i, t);
  }
  qv_free(v);
  return list;
}

/* write_fragments(data, path, *, max_rows_per_file=0, page_rows=0) -> str:
 * data files written from data's Arrow stream, not committed; the fragment
 * set describing them (qv_dataset_write_fragments). */
PyObject *qvpy_write_fragments(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"data", "path", "max_rows_per_file", "page_rows", NULL};
  PyObject *data, *path_obj;
  long long max_rows = 0, page_rows = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO&|$LL:write_fragments", kw, &data, PyUnicode_FSConverter, &path_obj,
                                   &max_rows, &page_rows))
    return NULL;
  PyObject *cap =
      PyObject_HasAttrString(data, "__arrow_c_stream__") ? PyObject_CallMethod(data, "__arrow_c_stream__", NULL) : NULL;
  struct ArrowArrayStream *stream = cap ? PyCapsule_GetPointer(cap, "arrow_array_stream") : NULL;
  if (!stream) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_TypeError, "write_fragments: data must export an Arrow stream, not %.100s",
                   Py_TYPE(data)->tp_name);
    Py_XDECREF(cap);
    Py_DECREF(path_obj);
    return NULL;
  }
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  if (max_rows > 0) o.max_rows_per_file = max_rows;
  if (page_rows > 0) o.page_rows = page_rows;
  qv_error err = {0};
  char *set = NULL;
  qv_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS qv_batch_reader *reader = NULL;
  st = qv_import_stream(stream, &reader, &err);
  if (st == QV_OK) st = qv_dataset_write_fragments(path, reader, &o, &set, &err);
  qv_batch_reader_destroy(reader);
  Py_END_ALLOW_THREADS Py_DECREF(cap);
  Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  PyObject *out = PyUnicode_FromString(set);
  qv_free(set);
  return out;
}

/* commit_fragments(path, sets, mode='append') -> int. */
PyObject *qvpy_commit_fragments(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", "sets", "mode", NULL};
  static const char *const modes[] = {"create", "append", "overwrite", NULL};
  PyObject *path_obj, *sets_obj;
  const char *mode = "append";
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O|s:commit_fragments", kw, PyUnicode_FSConverter, &path_obj,
                                   &sets_obj, &mode))
    return NULL;
  int m = -1;
  for (int i = 0; modes[i]; i++)
    if (!strcmp(mode, modes[i])) m = i;
  PyObject *seq = m < 0 ? NULL : PySequence_Fast(sets_obj, "sets must be a sequence of str");
  if (!seq) {
    if (m < 0) PyErr_Format(PyExc_ValueError, "mode must be create, append or overwrite, not '%s'", mode);
    Py_DECREF(path_obj);
    return NULL;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  const char **sets = PyMem_Calloc((size_t)n + 1, sizeof *sets);
  for (Py_ssize_t i = 0; sets && i < n; i++)
    if (!(sets[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i)))) break;
  if (!sets || PyErr_Occurred()) {
    if (!sets) PyErr_NoMemory();
    PyMem_Free(sets);
    Py_DECREF(seq);
    Py_DECREF(path_obj);
    return NULL;
  }
  qv_error err = {0};
  int64_t version = 0;
  qv_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = qv_dataset_commit_fragments(path, sets, (int32_t)n, (qv_write_mode)m, &version, &err);
  Py_END_ALLOW_THREADS PyMem_Free(sets);
  Py_DECREF(seq);
  Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  return PyLong_FromLongLong(version);
}

/* fragments(path, version=0) -> [(id, num_rows, num_deleted, data_file)]. */
PyObject *qvpy_fragments(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", "version", NULL};
  PyObject *path_obj;
  long long version = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|L:fragments", kw, PyUnicode_FSConverter, &path_obj, &version))
    return NULL;
  qv_dataset *ds = qvpy_dataset_open(path_obj, version);
  if (!ds) return NULL;
  int32_t n = qv_dataset_num_fragments(ds);
  PyObject *list = PyList_New(n);
  for (int32_t i = 0; list && i < n; i++) {
    qv_fragment_info fi;
    qv_dataset_fragment(ds, i, &fi);
    PyObject *t = Py_BuildValue("(LLLs)", (long long)fi.id, (long long)fi.num_rows, (long long)fi.num_deleted, fi.path);
    if (!t) Py_CLEAR(list);
    else PyList_SET_ITEM(list, i, t);
  }
  qvpy_dataset_close(ds);
  return list;
}
