/* Maintenance calls (quiver.compact / cleanup / tag / untag / tags /
 * versions): one libquiver call each, made with the GIL released, as the
 * commits in changes.c are (they touch no batch exported to Polars). */
#include "pyquiver.h"

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
