/* quiver._quiver.Dataset, Scanner and Batch: opening a dataset version,
 * running a scan with projection, filter, limit and pushdown switches in
 * libquiver's scanner, and handing its batches to Arrow consumers (Polars,
 * pyarrow) through the Arrow C stream interface without copying. */
#include "pyquiver.h"

#include <structmember.h>

/* ---- Dataset ---------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD qv_dataset *ds;
} dataset_obj;

static PyObject *dataset_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", "version", NULL};
  PyObject *path_obj;
  long long version = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|L:Dataset", kw, PyUnicode_FSConverter, &path_obj, &version))
    return NULL;
  dataset_obj *self = (dataset_obj *)type->tp_alloc(type, 0);
  if (!self) {
    Py_DECREF(path_obj);
    return NULL;
  }
  if (!(self->ds = qvpy_dataset_open(path_obj, version))) {
    Py_DECREF(self);
    return NULL;
  }
  return (PyObject *)self;
}

qv_dataset *qvpy_dataset_open(PyObject *path_obj, long long version) {
  qv_error err = {0};
  qv_status st;
  qv_dataset *ds = NULL;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS st = qv_dataset_open(path, (int64_t)version, &ds, &err);
  Py_END_ALLOW_THREADS Py_DECREF(path_obj);
  if (st != QV_OK) qvpy_raise(&err);
  return st == QV_OK ? ds : NULL;
}

void qvpy_dataset_close(qv_dataset *ds) {
  qvpy_lock();
  qv_dataset_close(ds);
  qvpy_unlock();
}

static void dataset_dealloc(dataset_obj *self) {
  qvpy_dataset_close(self->ds);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *dataset_version(dataset_obj *self, void *closure) {
  return PyLong_FromLongLong(qv_dataset_version(self->ds));
}
static PyObject *dataset_num_rows(dataset_obj *self, void *closure) {
  return PyLong_FromLongLong(qv_dataset_count_rows(self->ds));
}
static PyObject *dataset_num_fragments(dataset_obj *self, void *closure) {
  return PyLong_FromLong(qv_dataset_num_fragments(self->ds));
}
static PyObject *dataset_path(dataset_obj *self, void *closure) {
  return PyUnicode_DecodeFSDefault(qv_dataset_path(self->ds));
}
static PyObject *dataset_schema_capsule(dataset_obj *self, PyObject *unused) {
  return qvpy_schema_capsule(qv_dataset_schema(self->ds));
}

/* bind_filter(polars_json): parses the JSON of a Polars expression and binds
 * it to this version's schema as a scan's filter, as qv_scanner_open does
 * (names, types, implicit casts; the result must be boolean), without
 * reading data.  Raises what the scanner would raise for the predicate
 * itself, so that an error here always means "libquiver cannot take this
 * predicate" and never a damaged file or a missing dataset: quiver.scan
 * hands such a predicate to Polars. */
static PyObject *dataset_bind_filter(dataset_obj *self, PyObject *args) {
  const char *json = NULL;
  Py_ssize_t json_len = 0;
  if (!PyArg_ParseTuple(args, "s#:bind_filter", &json, &json_len)) return NULL;
  qv_error err = {0};
  qv_expr *e = NULL;
  qvpy_lock(); /* literals may share buffers */
  qv_status st = qv_polars_from_json(json, (size_t)json_len, &e, &err);
  if (st == QV_OK) st = qv_expr_bind(e, qv_dataset_schema(self->ds), &err);
  if (st == QV_OK && e->type.id != QV_TYPE_BOOL && e->type.id != QV_TYPE_NULL) {
    char tn[64];
    qv_datatype_format(&e->type, tn, sizeof tn);
    st = qv_error_set(&err, QV_ERR_TYPE, "filter: the filter must be boolean, not %s", tn);
  }
  qv_expr_destroy(e);
  qvpy_unlock();
  if (st != QV_OK) return qvpy_raise(&err);
  Py_RETURN_NONE;
}

static PyGetSetDef dataset_getset[] = {
    {"version", (getter)dataset_version, NULL, "the version this object has open", NULL},
    {"num_rows", (getter)dataset_num_rows, NULL, "rows of this version, deleted rows excluded", NULL},
    {"num_fragments", (getter)dataset_num_fragments, NULL, "fragments of this version", NULL},
    {"path", (getter)dataset_path, NULL, "the dataset directory", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef dataset_methods[] = {
    {"__arrow_c_schema__", (PyCFunction)dataset_schema_capsule, METH_NOARGS,
     "The dataset schema as a PyCapsule 'arrow_schema' (Arrow PyCapsule interface)."},
    {"bind_filter", (PyCFunction)dataset_bind_filter, METH_VARARGS,
     "bind_filter(polars_json) -> None\n\n"
     "Binds a Polars expression (Expr.meta.serialize(format='json')) to this version's schema as a\n"
     "scan's filter would be, reading no data; raises InvalidInput (bad JSON, types that do not fit,\n"
     "a filter that is not boolean), UnsupportedExpression (a construct libquiver cannot run) or\n"
     "NotFound (no such column or field)."},
    {NULL, NULL, 0, NULL}};

PyTypeObject qvpy_dataset_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "quiver.Dataset",
    .tp_basicsize = sizeof(dataset_obj),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Dataset(path, version=0): one version (0 = the latest) of a quiver dataset, opened.",
    .tp_new = dataset_new,
    .tp_dealloc = (destructor)dataset_dealloc,
    .tp_getset = dataset_getset,
    .tp_methods = dataset_methods,
};

/* ---- Batch -------------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD qv_batch *b;
  uint32_t export_flags; /* QV_EXPORT_STRING_VIEW for with_string_views() */
} batch_obj;

static void batch_dealloc(batch_obj *self) {
  qvpy_lock();
  qv_batch_release(self->b);
  qvpy_unlock();
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *batch_wrap(qv_batch *b) {
  batch_obj *self = PyObject_New(batch_obj, &qvpy_batch_type);
  if (!self) {
    qvpy_lock();
    qv_batch_release(b);
    qvpy_unlock();
    return NULL;
  }
  self->b = b;
  self->export_flags = 0;
  return (PyObject *)self;
}

static PyObject *batch_num_rows(batch_obj *self, void *closure) { return PyLong_FromLongLong(self->b->num_rows); }
static PyObject *batch_num_columns(batch_obj *self, void *closure) { return PyLong_FromLong(self->b->schema.n_fields); }

/* n batches of one schema as a stream capsule (export flags as in
 * qv_export_stream_with); their buffers are shared, not copied. */
static PyObject *stream_of(qv_batch *const *batches, int32_t n, uint32_t flags) {
  qv_error err = {0};
  qv_batch_reader *reader = NULL;
  struct ArrowArrayStream inner = {0}, outer = {0};
  qvpy_lock();
  qv_status st = qv_batch_reader_from_batches(&batches[0]->schema, batches, n, &reader, &err);
  if (st == QV_OK) st = qv_export_stream_with(reader, flags, &inner, &err);
  qvpy_unlock();
  if (st != QV_OK) return qvpy_raise(&err);
  if (!qvpy_locked_stream(&inner, &outer)) return PyErr_NoMemory();
  return qvpy_stream_capsule(&outer);
}

/* The batch as a one-batch stream: Polars' and pyarrow's constructors take
 * any object with __arrow_c_stream__ and keep the exported buffers. */
static PyObject *batch_stream(batch_obj *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"requested_schema", NULL};
  PyObject *requested = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:__arrow_c_stream__", kw, &requested)) return NULL;
  return stream_of(&self->b, 1, self->export_flags);
}

/* batches_stream(batches, string_views=False): several batches of one
 * schema as one stream capsule.  pl.DataFrame takes the stream in one call,
 * each batch a chunk: about 30 us per batch less than a DataFrame per
 * batch, which counts when a scan hands out hundreds of small pieces. */
PyObject *qvpy_batches_stream(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *kw[] = {"batches", "string_views", NULL};
  PyObject *seq_in;
  int views = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p:batches_stream", kw, &seq_in, &views)) return NULL;
  PyObject *seq = PySequence_Fast(seq_in, "batches_stream: batches must be a sequence of Batch");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n < 1 || n > INT32_MAX) {
    Py_DECREF(seq);
    return PyErr_Format(PyExc_ValueError, "batches_stream: %zd batches (1 or more)", n);
  }
  qv_batch **bs = PyMem_Malloc((size_t)n * sizeof *bs);
  if (!bs) {
    Py_DECREF(seq);
    return PyErr_NoMemory();
  }
  PyObject *out = NULL;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
    if (!PyObject_TypeCheck(o, &qvpy_batch_type)) {
      PyErr_Format(PyExc_TypeError, "batches_stream: item %zd is a %s, not a Batch", i, Py_TYPE(o)->tp_name);
      goto cleanup;
    }
    bs[i] = ((batch_obj *)o)->b;
    if (i > 0 && !qv_schema_equal(&bs[i]->schema, &bs[0]->schema)) {
      PyErr_Format(PyExc_ValueError, "batches_stream: batch %zd has another schema than batch 0", i);
      goto cleanup;
    }
  }
  out = stream_of(bs, (int32_t)n, views ? QV_EXPORT_STRING_VIEW : 0);
cleanup:
  PyMem_Free(bs);
  Py_DECREF(seq);
  return out;
}

static PyObject *batch_schema_capsule(batch_obj *self, PyObject *unused) {
  return qvpy_schema_capsule_with(&self->b->schema, self->export_flags);
}

/* The same batch exporting strings and binary as string_view / binary_view:
 * Polars keeps those buffers (utf8 arrays it copies into its own views). */
static PyObject *batch_with_string_views(batch_obj *self, PyObject *unused) {
  qvpy_lock();
  qv_batch *b = qv_batch_retain(self->b);
  qvpy_unlock();
  batch_obj *view = (batch_obj *)batch_wrap(b);
  if (view) view->export_flags = QV_EXPORT_STRING_VIEW;
  return (PyObject *)view;
}

/* Address of column i's first value (offset applied), for checking that a
 * consumer shares the memory instead of copying it.  Fixed-width columns
 * only. */
static PyObject *batch_values_address(batch_obj *self, PyObject *arg) {
  long i = PyLong_AsLong(arg);
  if (i == -1 && PyErr_Occurred()) return NULL;
  if (i < 0 || i >= self->b->schema.n_fields) {
    PyErr_Format(PyExc_IndexError, "values_address: no column %ld (the batch has %d)", i, self->b->schema.n_fields);
    return NULL;
  }
  const qv_array *a = self->b->columns[i];
  if (qv_type_byte_width(a->type.id) <= 0) {
    PyErr_Format(PyExc_TypeError, "values_address: column %ld is not of a fixed-width type", i);
    return NULL;
  }
  return PyLong_FromVoidPtr((void *)qv_array_values(a));
}

static PyGetSetDef batch_getset[] = {{"num_rows", (getter)batch_num_rows, NULL, "rows in the batch", NULL},
                                     {"num_columns", (getter)batch_num_columns, NULL, "columns in the batch", NULL},
                                     {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef batch_methods[] = {
    {"__arrow_c_stream__", (PyCFunction)(void (*)(void))batch_stream, METH_VARARGS | METH_KEYWORDS,
     "The batch as a one-batch PyCapsule 'arrow_array_stream' (its buffers are shared, not copied)."},
    {"__arrow_c_schema__", (PyCFunction)batch_schema_capsule, METH_NOARGS,
     "The batch schema as a PyCapsule 'arrow_schema'."},
    {"values_address", (PyCFunction)batch_values_address, METH_O,
     "values_address(i) -> int: address of fixed-width column i's first value."},
    {"with_string_views", (PyCFunction)batch_with_string_views, METH_NOARGS,
     "with_string_views() -> Batch: the same rows, exporting strings as Arrow string_view (no copy in Polars)."},
    {NULL, NULL, 0, NULL}};

PyTypeObject qvpy_batch_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "quiver.Batch",
    .tp_basicsize = sizeof(batch_obj),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One record batch of a scan; pl.DataFrame(batch) takes it without copying.",
    .tp_dealloc = (destructor)batch_dealloc,
    .tp_getset = batch_getset,
    .tp_methods = batch_methods,
};

/* ---- Scanner ------------------------------------------------------------------ */

typedef struct {
  PyObject_HEAD qv_scanner *sc; /* NULL once handed to an Arrow stream */
  qv_schema schema;             /* output schema, kept for after the hand-over */
  bool busy;                    /* a next() is running with the GIL released */
  qv_dataset *sub;              /* fragments=[...]: the restricted version the scanner reads (outlives it) */
} scanner_obj;

/* A reader that owns the restricted dataset its scanner reads, so that a
 * stream made from a Scanner(fragments=...) may outlive the Scanner. */
typedef struct owning_reader {
  qv_batch_reader *inner;
  qv_dataset *ds;
} owning_reader;

static qv_status owning_next(qv_batch_reader *self, qv_batch **out, qv_error *err) {
  owning_reader *o = self->private_data;
  return o->inner->next(o->inner, out, err);
}
static const qv_schema *owning_schema(qv_batch_reader *self) {
  owning_reader *o = self->private_data;
  return o->inner->schema(o->inner);
}
static void owning_destroy(qv_batch_reader *self) {
  owning_reader *o = self->private_data;
  qv_batch_reader_destroy(o->inner);
  qv_dataset_close(o->ds);
  qv_free(o);
  qv_free(self);
}

/* columns: a sequence of str (or None) -> names borrowed from the list's
 * strings, which the caller keeps alive. */
static int column_names(PyObject *columns, PyObject **seq, const char ***names, int32_t *n) {
  *seq = NULL;
  *names = NULL;
  *n = 0;
  if (columns == Py_None) return 0;
  *seq = PySequence_Fast(columns, "columns must be a sequence of str or None");
  if (!*seq) return -1;
  Py_ssize_t len = PySequence_Fast_GET_SIZE(*seq);
  if (len > INT32_MAX) {
    PyErr_SetString(PyExc_ValueError, "columns: too many");
    return -1;
  }
  *names = PyMem_Calloc((size_t)len + 1, sizeof **names);
  if (!*names) {
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < len; i++) {
    PyObject *item = PySequence_Fast_GET_ITEM(*seq, i);
    if (!PyUnicode_Check(item)) {
      PyErr_Format(PyExc_TypeError, "columns[%zd] must be str, not %.100s", i, Py_TYPE(item)->tp_name);
      return -1;
    }
    if (!((*names)[i] = PyUnicode_AsUTF8(item))) return -1;
  }
  *n = (int32_t)len;
  return 0;
}

static PyObject *scanner_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path",
                       "columns",
                       "filter",
                       "polars_json",
                       "limit",
                       "offset",
                       "batch_size",
                       "predicate_pushdown",
                       "use_scalar_index",
                       "version",
                       "with_row_id",
                       "exact_batches",
                       "nearest",
                       "fragments",
                       NULL};
  PyObject *path_obj = NULL, *columns = Py_None, *seq = NULL, *limit_obj = Py_None, *self_obj = NULL;
  PyObject *nearest = Py_None;
  qv_scan_nearest nn = QV_SCAN_NEAREST_INIT;
  float *qcopy = NULL;
  PyObject *frags_obj = Py_None;
  int64_t *frag_ids = NULL;
  Py_ssize_t n_frags = 0;
  const char *filter = NULL, *json = NULL;
  Py_ssize_t json_len = 0;
  long long offset = 0, batch_size = 8192, version = 0;
  int pushdown = 1, use_index = 1, row_id = 0, exact = 1;
  const char **names = NULL;
  qv_expr *where = NULL;
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  qv_error err = {0};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|$Ozz#OLLppLppOO:Scanner", kw, PyUnicode_FSConverter, &path_obj,
                                   &columns, &filter, &json, &json_len, &limit_obj, &offset, &batch_size, &pushdown,
                                   &use_index, &version, &row_id, &exact, &nearest, &frags_obj))
    return NULL;
  if (nearest != Py_None) {
    /* (column, float32 bytes, dim, k, metric, use_index, nprobes, refine_factor, postfilter or None) */
    const char *qbytes = NULL, *metric = NULL;
    Py_ssize_t qlen = 0;
    int vidx = 1;
    long long k = 10;
    if (!PyTuple_Check(nearest) ||
        !PyArg_ParseTuple(nearest, "sy#iLsiiiz:nearest", &nn.column, &qbytes, &qlen, &nn.dim, &k, &metric, &vidx,
                          &nn.nprobes, &nn.refine_factor, &nn.postfilter)) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "nearest must be a tuple");
      goto cleanup;
    }
    if (!qv_metric_parse(metric, &nn.metric)) {
      PyErr_Format(PyExc_ValueError, "nearest: metric is l2, cosine or dot, not '%s'", metric);
      goto cleanup;
    }
    if (nn.dim < 1 || qlen % ((Py_ssize_t)nn.dim * 4) != 0 || qlen == 0) {
      PyErr_SetString(PyExc_ValueError, "nearest: the query bytes are not whole float32 vectors of dim values");
      goto cleanup;
    }
    if (!(qcopy = PyMem_Malloc((size_t)qlen))) {
      PyErr_NoMemory();
      goto cleanup;
    }
    memcpy(qcopy, qbytes, (size_t)qlen);
    nn.q = qcopy;
    nn.n_queries = (int32_t)(qlen / ((Py_ssize_t)nn.dim * 4));
    nn.k = k;
    nn.use_index = vidx != 0;
    o.nearest = &nn;
  }
  /* fragments=[ids]: only those fragments (qv_dataset_open_fragments), for
   * a reader that splits a scan into one task per fragment */
  if (frags_obj != Py_None) {
    PyObject *fseq = PySequence_Fast(frags_obj, "fragments must be a sequence of fragment ids");
    if (!fseq) goto cleanup;
    n_frags = PySequence_Fast_GET_SIZE(fseq);
    frag_ids = PyMem_Calloc((size_t)n_frags + 1, sizeof *frag_ids);
    for (Py_ssize_t i = 0; frag_ids && i < n_frags; i++) {
      frag_ids[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fseq, i));
      if (frag_ids[i] == -1 && PyErr_Occurred()) break;
    }
    Py_DECREF(fseq);
    if (!frag_ids) {
      PyErr_NoMemory();
      goto cleanup;
    }
    if (PyErr_Occurred()) goto cleanup;
  }
  if (column_names(columns, &seq, &names, &o.n_columns) < 0) goto cleanup;
  o.columns = names;
  if (limit_obj != Py_None) {
    o.limit = PyLong_AsLongLong(limit_obj);
    if (o.limit == -1 && PyErr_Occurred()) goto cleanup;
    if (o.limit < 0) {
      PyErr_SetString(PyExc_ValueError, "limit must be >= 0 or None");
      goto cleanup;
    }
  }
  o.offset = offset;
  o.batch_size = batch_size;
  o.predicate_pushdown = pushdown;
  o.use_scalar_index = use_index;
  o.dataset_version = version;
  o.with_row_id = row_id;
  o.exact_batches = exact;
  o.filter = filter;
  if (json) {
    if (qv_polars_from_json(json, (size_t)json_len, &where, &err) != QV_OK) {
      qvpy_raise(&err);
      goto cleanup;
    }
    o.filter_expr = where;
  }
  scanner_obj *self = (scanner_obj *)type->tp_alloc(type, 0);
  if (!self) goto cleanup;
  self_obj = (PyObject *)self;
  qv_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS qvpy_lock();
  if (frag_ids) {
    st = qv_dataset_open_fragments(path, o.dataset_version, frag_ids, (int32_t)n_frags, &self->sub, &err);
    if (st == QV_OK) st = qv_scanner_open_dataset(self->sub, &o, &self->sc, &err);
  } else {
    st = qv_scanner_open(path, &o, &self->sc, &err);
  }
  if (st == QV_OK && qv_schema_copy(qv_scanner_schema(self->sc), &self->schema) != QV_OK)
    st = qv_error_nomem(&err, "scanner");
  qvpy_unlock();
  Py_END_ALLOW_THREADS if (st != QV_OK) {
    Py_CLEAR(self_obj);
    qvpy_raise(&err);
  }
cleanup:
  PyMem_Free(qcopy);
  qv_expr_destroy(where);
  PyMem_Free(frag_ids);
  PyMem_Free(names);
  Py_XDECREF(seq);
  Py_XDECREF(path_obj);
  return self_obj;
}

static void scanner_dealloc(scanner_obj *self) {
  qvpy_lock();
  qv_scanner_destroy(self->sc);
  qv_dataset_close(self->sub);
  qvpy_unlock();
  qv_schema_reset(&self->schema);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static int scanner_usable(scanner_obj *self, const char *what) {
  if (!self->sc) {
    PyErr_Format(PyExc_RuntimeError, "Scanner.%s: the scanner was handed to an Arrow stream", what);
    return 0;
  }
  if (self->busy) {
    PyErr_Format(PyExc_RuntimeError, "Scanner.%s: another thread is reading this scanner", what);
    return 0;
  }
  return 1;
}

static PyObject *scanner_next(scanner_obj *self) {
  if (!scanner_usable(self, "__next__")) return NULL;
  qv_batch *b = NULL;
  qv_error err = {0};
  qv_status st;
  self->busy = true;
  Py_BEGIN_ALLOW_THREADS qvpy_lock();
  st = qv_scanner_next(self->sc, &b, &err);
  qvpy_unlock();
  Py_END_ALLOW_THREADS self->busy = false;
  if (st != QV_OK) return qvpy_raise(&err);
  return b ? batch_wrap(b) : NULL; /* NULL without an exception: StopIteration */
}

/* The rows the rest of the scan returns, counted in C without building a
 * column (qv_scanner_count); the scan ends. */
static PyObject *scanner_count(scanner_obj *self, PyObject *unused) {
  if (!scanner_usable(self, "count")) return NULL;
  int64_t n = 0;
  qv_error err = {0};
  qv_status st;
  self->busy = true;
  Py_BEGIN_ALLOW_THREADS qvpy_lock();
  st = qv_scanner_count(self->sc, &n, &err);
  qvpy_unlock();
  Py_END_ALLOW_THREADS self->busy = false;
  if (st != QV_OK) return qvpy_raise(&err);
  return PyLong_FromLongLong(n);
}

/* The rest of the scan as one stream; the scanner moves into it. */
static PyObject *scanner_stream(scanner_obj *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"requested_schema", NULL};
  PyObject *requested = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:__arrow_c_stream__", kw, &requested)) return NULL;
  if (!scanner_usable(self, "__arrow_c_stream__")) return NULL;
  qv_error err = {0};
  qv_batch_reader *reader = NULL;
  struct ArrowArrayStream inner = {0}, outer = {0};
  qvpy_lock();
  qv_status st = qv_scanner_reader(self->sc, &reader, &err); /* takes the scanner, also on failure */
  self->sc = NULL;
  if (st == QV_OK && self->sub) { /* the stream owns the restricted dataset from here */
    owning_reader *o = qv_calloc(1, sizeof *o);
    qv_batch_reader *w = qv_calloc(1, sizeof *w);
    if (!o || !w) {
      qv_free(o);
      qv_free(w);
      qv_batch_reader_destroy(reader);
      qvpy_unlock();
      return PyErr_NoMemory();
    }
    *o = (owning_reader){reader, self->sub};
    *w = (qv_batch_reader){owning_next, owning_schema, owning_destroy, o};
    self->sub = NULL;
    reader = w;
  }
  if (st == QV_OK) st = qv_export_stream(reader, &inner, &err);
  qvpy_unlock();
  if (st != QV_OK) return qvpy_raise(&err);
  if (!qvpy_locked_stream(&inner, &outer)) return PyErr_NoMemory();
  return qvpy_stream_capsule(&outer);
}

static PyObject *scanner_schema_capsule(scanner_obj *self, PyObject *unused) {
  return qvpy_schema_capsule(&self->schema);
}

static PyObject *scanner_explain(scanner_obj *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"counters", NULL};
  int counters = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|p:explain", kw, &counters)) return NULL;
  if (!scanner_usable(self, "explain")) return NULL;
  qvpy_lock();
  char *text = qv_scanner_explain(self->sc, counters);
  qvpy_unlock();
  PyObject *result = text ? PyUnicode_FromString(text) : PyErr_NoMemory();
  qv_free(text);
  return result;
}

static int put_count(PyObject *d, const char *key, int64_t v) {
  PyObject *n = PyLong_FromLongLong(v);
  int rc = n ? PyDict_SetItemString(d, key, n) : -1;
  Py_XDECREF(n);
  return rc;
}

static PyObject *scanner_counters(scanner_obj *self, PyObject *unused) {
  if (!scanner_usable(self, "counters")) return NULL;
  qv_scan_counters c;
  qvpy_lock();
  qv_scanner_counters(self->sc, &c);
  qvpy_unlock();
  PyObject *d = PyDict_New();
  if (!d || put_count(d, "fragments", c.fragments) < 0 || put_count(d, "pages_total", c.pages_total) < 0 ||
      put_count(d, "pages_pruned", c.pages_pruned) < 0 || put_count(d, "rows_scanned", c.rows_scanned) < 0 ||
      put_count(d, "rows_selected", c.rows_selected) < 0 || put_count(d, "rows_returned", c.rows_returned) < 0 ||
      put_count(d, "index_fallback_fragments", c.index_fallback_fragments) < 0 ||
      put_count(d, "fragments_index_skipped", c.fragments_index_skipped) < 0) {
    Py_XDECREF(d);
    return NULL;
  }
  return d;
}

/* The indices whose files could not be read, as (name, fragments, first
 * error) tuples: the scan filtered those fragments in full. */
static PyObject *scanner_index_fallbacks(scanner_obj *self, PyObject *unused) {
  if (!scanner_usable(self, "index_fallbacks")) return NULL;
  qv_scan_counters c;
  qvpy_lock();
  qv_scanner_counters(self->sc, &c);
  qvpy_unlock();
  PyObject *list = PyList_New(c.n_index_fallbacks);
  for (int32_t i = 0; list && i < c.n_index_fallbacks; i++) {
    const qv_scan_index_fallback *f = &c.index_fallbacks[i];
    PyObject *t = Py_BuildValue("(sLs)", f->index, (long long)f->fragments, f->error);
    if (!t) Py_CLEAR(list);
    else PyList_SET_ITEM(list, i, t);
  }
  return list;
}

static PyObject *scanner_column_names(scanner_obj *self, void *closure) {
  PyObject *list = PyList_New(self->schema.n_fields);
  for (int32_t i = 0; list && i < self->schema.n_fields; i++) {
    PyObject *name = PyUnicode_FromString(self->schema.fields[i].name);
    if (!name) Py_CLEAR(list);
    else PyList_SET_ITEM(list, i, name);
  }
  return list;
}

static PyGetSetDef scanner_getset[] = {
    {"column_names", (getter)scanner_column_names, NULL, "the output columns, in order", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef scanner_methods[] = {
    {"__arrow_c_stream__", (PyCFunction)(void (*)(void))scanner_stream, METH_VARARGS | METH_KEYWORDS,
     "The rest of the scan as a PyCapsule 'arrow_array_stream'; the scanner moves into the stream."},
    {"__arrow_c_schema__", (PyCFunction)scanner_schema_capsule, METH_NOARGS,
     "The output schema as a PyCapsule 'arrow_schema'."},
    {"count", (PyCFunction)scanner_count, METH_NOARGS,
     "count() -> int: the rows the rest of the scan returns (after filter, offset and limit), counted\n"
     "without materializing any column: only the filter's columns are read, and without a filter the\n"
     "manifest answers (no data file is opened).  The scan ends."},
    {"explain", (PyCFunction)(void (*)(void))scanner_explain, METH_VARARGS | METH_KEYWORDS,
     "explain(counters=False) -> str: the scan plan (with the counters so far)."},
    {"counters", (PyCFunction)scanner_counters, METH_NOARGS,
     "counters() -> dict: fragments, pages_total, pages_pruned, rows_scanned, rows_selected, rows_returned,\n"
     "index_fallback_fragments (index files that could not be read: their fragments were filtered in full),\n"
     "fragments_index_skipped (fragments not read: the indices kept no row of them)."},
    {"index_fallbacks", (PyCFunction)scanner_index_fallbacks, METH_NOARGS,
     "index_fallbacks() -> list of (index, fragments, first_error): indices whose files could not be read\n"
     "(damaged, missing); the scan filtered those fragments in full instead of failing."},
    {NULL, NULL, 0, NULL}};

PyTypeObject qvpy_scanner_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "quiver.Scanner",
    .tp_basicsize = sizeof(scanner_obj),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "Scanner(path, *, columns=None, filter=None, polars_json=None, limit=None, offset=0,\n"
        "        batch_size=8192, predicate_pushdown=True, use_scalar_index=True, version=0,\n"
        "        with_row_id=False, exact_batches=True)\n\n"
        "A scan run by libquiver.  filter is Lance SQL text, polars_json the JSON of\n"
        "Expr.meta.serialize(format='json'); errors in either are raised here, before any\n"
        "data is read.  Iterating yields Batch objects; __arrow_c_stream__ hands the rest\n"
        "of the scan to an Arrow consumer.  exact_batches=False yields the pieces page\n"
        "ranges leave after filtering as they come (at most batch_size rows each) instead\n"
        "of copying them into batches of exactly batch_size rows.",
    .tp_new = scanner_new,
    .tp_dealloc = (destructor)scanner_dealloc,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)scanner_next,
    .tp_getset = scanner_getset,
    .tp_methods = scanner_methods,
};
