/* write_batches(frames, path, ...): a dataset written from an iterator of
 * objects exporting Arrow streams (the DataFrames of a LazyFrame's
 * collect_batches), one frame at a time, so memory holds one frame and
 * not the query's result.  The write runs with the GIL released; the
 * reader below takes it back only to ask the iterator for the next frame. */
#include "pyquiver.h"

typedef struct frames_reader {
  PyObject *iter;       /* owned; touched with the GIL only */
  PyObject *frame;      /* the frame being read (kept alive while read) */
  qv_batch_reader *cur; /* its batches */
  qv_schema schema;     /* the first frame's */
  bool done;
} frames_reader;

/* The next frame's reader into fr->cur; fr->done at the end.  Called with
 * the GIL held.  false with err set when the iterator raised or a frame is
 * not an Arrow stream. */
static bool pull(frames_reader *fr, qv_error *err) {
  Py_CLEAR(fr->frame);
  PyObject *item = PyIter_Next(fr->iter);
  if (!item) {
    if (!PyErr_Occurred()) {
      fr->done = true;
      return true;
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *text = value ? PyObject_Str(value) : NULL;
    const char *msg = text ? PyUnicode_AsUTF8(text) : NULL;
    qv_error_set(err, QV_ERR_IO, "sink: the source raised %s: %s", type ? ((PyTypeObject *)type)->tp_name : "?",
                 msg ? msg : "");
    PyErr_Clear();
    Py_XDECREF(text);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return false;
  }
  PyObject *cap =
      PyObject_HasAttrString(item, "__arrow_c_stream__") ? PyObject_CallMethod(item, "__arrow_c_stream__", NULL) : NULL;
  struct ArrowArrayStream *stream = cap ? PyCapsule_GetPointer(cap, "arrow_array_stream") : NULL;
  if (!stream) {
    PyErr_Clear();
    qv_error_set(err, QV_ERR_INVALID, "sink: the source gave a %.100s, not an Arrow stream (__arrow_c_stream__)",
                 Py_TYPE(item)->tp_name);
    Py_XDECREF(cap);
    Py_DECREF(item);
    return false;
  }
  qv_status st = qv_import_stream(stream, &fr->cur, err); /* moves the stream out of the capsule */
  Py_DECREF(cap);
  fr->frame = item;
  return st == QV_OK;
}

static qv_status frames_next(qv_batch_reader *self, qv_batch **out, qv_error *err) {
  frames_reader *fr = self->private_data;
  *out = NULL;
  while (!fr->done) {
    if (fr->cur) {
      QV_RETURN_NOT_OK(fr->cur->next(fr->cur, out, err));
      if (*out) return QV_OK;
      qv_batch_reader_destroy(fr->cur);
      fr->cur = NULL;
    }
    PyGILState_STATE g = PyGILState_Ensure();
    bool ok = pull(fr, err);
    PyGILState_Release(g);
    if (!ok) return err && err->code ? err->code : QV_ERR_IO;
  }
  return QV_OK;
}

static const qv_schema *frames_schema(qv_batch_reader *self) { return &((frames_reader *)self->private_data)->schema; }

static void frames_destroy(qv_batch_reader *self) { (void)self; } /* owned by qvpy_write_batches */

PyObject *qvpy_write_batches(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"frames",    "path",        "mode", "max_rows_per_file", "max_bytes_per_file",
                       "page_rows", "compression", NULL};
  static const char *const modes[] = {"create", "append", "overwrite", NULL};
  static const char *const codecs[] = {"auto", "none", "zstd", "lz4", NULL};
  PyObject *frames, *path_obj;
  const char *mode = "create", *compression = "auto";
  long long max_rows = 0, max_bytes = 0, page_rows = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO&|$sLLLs:write_batches", kw, &frames, PyUnicode_FSConverter,
                                   &path_obj, &mode, &max_rows, &max_bytes, &page_rows, &compression))
    return NULL;
  int m = -1, c = -1;
  for (int i = 0; modes[i]; i++)
    if (!strcmp(mode, modes[i])) m = i;
  for (int i = 0; codecs[i]; i++)
    if (!strcmp(compression, codecs[i])) c = i;
  if (m < 0 || c < 0 || max_rows < 0 || max_bytes < 0 || page_rows < 0) {
    Py_DECREF(path_obj);
    PyErr_Format(PyExc_ValueError,
                 "write_batches: mode is create, append or overwrite; compression auto, none, zstd or lz4; "
                 "sizes are not negative");
    return NULL;
  }
  frames_reader fr = {0};
  fr.schema = (qv_schema)QV_SCHEMA_INIT;
  if (!(fr.iter = PyObject_GetIter(frames))) {
    Py_DECREF(path_obj);
    return NULL;
  }
  qv_error err = {0};
  qv_status st = QV_OK;
  /* The first frame gives the schema the writer checks before it starts. */
  if (!pull(&fr, &err)) st = err.code ? err.code : QV_ERR_IO;
  else if (fr.done) st = qv_error_set(&err, QV_ERR_INVALID, "sink: the source gave no frame (no schema to write)");
  else if (qv_schema_copy(fr.cur->schema(fr.cur), &fr.schema) != QV_OK) st = qv_error_nomem(&err, "sink");
  int64_t version = 0;
  if (st == QV_OK) {
    qv_write_options o = QV_WRITE_OPTIONS_INIT;
    o.mode = (qv_write_mode)m;
    o.compression = (qv_compression)c;
    if (max_rows > 0) o.max_rows_per_file = max_rows;
    if (max_bytes > 0) o.max_bytes_per_file = max_bytes;
    if (page_rows > 0) o.page_rows = page_rows;
    qv_batch_reader reader = {frames_next, frames_schema, frames_destroy, &fr};
    const char *path = PyBytes_AS_STRING(path_obj);
    Py_BEGIN_ALLOW_THREADS st = qv_dataset_write(path, &reader, &o, &version, &err);
    Py_END_ALLOW_THREADS
  }
  if (fr.cur) {
    Py_BEGIN_ALLOW_THREADS qv_batch_reader_destroy(fr.cur);
    Py_END_ALLOW_THREADS
  }
  Py_XDECREF(fr.frame);
  Py_DECREF(fr.iter);
  qv_schema_reset(&fr.schema);
  Py_DECREF(path_obj);
  if (st != QV_OK) return qvpy_raise(&err);
  return PyLong_FromLongLong(version);
}
