/* quiver._quiver.Graph: a graph folder (qv_graph_open) or an empty graph in
 * memory (qv_graph_open_memory), and Cypher over it: qv_cypher_query and
 * qv_cypher_explain (docs/cypher.md).
 *
 * A query runs to its end inside the call (GIL released, qvpy_lock held):
 * its batches are collected, then handed out as an Arrow C stream over
 * them.  So a run-time error (a type error on a row, an overflow) raises
 * here as the QuiverError subclass of its status, not later inside
 * Polars' or pyarrow's import as an opaque stream error, and a CREATE has
 * happened when the call returns, whether or not the result is read. */
#include <signal.h>
#include <string.h>

#include "pyquiver.h"

/* ---- Ctrl-C while a query runs ----
 *
 * The query runs with the GIL released, where Python's own SIGINT handler
 * can only note the signal.  While any query runs, this module's handler
 * stands in front of it: it raises the flag every running query passes as
 * its cancel flag (the plan stops at its next batch with
 * QV_ERR_CANCELLED) and passes the signal on, so that Python raises
 * KeyboardInterrupt once the call returns.  Installed and restored with
 * the GIL held; a process that ignores SIGINT or left it at its default
 * keeps its handler. */
static volatile int interrupted;
static int n_running;
static PyOS_sighandler_t python_sigint;

static void on_sigint(int sig) {
  interrupted = 1;
  if (python_sigint && python_sigint != SIG_IGN && python_sigint != SIG_DFL) python_sigint(sig);
}

static void interrupt_begin(void) {
  if (n_running++ > 0) return;
  interrupted = 0;
  python_sigint = PyOS_getsig(SIGINT);
  if (python_sigint == SIG_IGN || python_sigint == SIG_DFL || python_sigint == SIG_ERR) python_sigint = NULL;
  else PyOS_setsig(SIGINT, on_sigint);
}

static void interrupt_end(void) {
  if (--n_running > 0) return;
  if (python_sigint) PyOS_setsig(SIGINT, python_sigint);
  python_sigint = NULL;
}

typedef struct {
  PyObject_HEAD qv_graph *g;
  PyObject *path; /* str, or None for a graph in memory */
} graph_obj;

static PyObject *graph_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", NULL};
  PyObject *path_obj;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&:Graph", kw, PyUnicode_FSConverter, &path_obj)) return NULL;
  graph_obj *self = (graph_obj *)type->tp_alloc(type, 0);
  if (!self) {
    Py_DECREF(path_obj);
    return NULL;
  }
  qv_error err = {0};
  qv_status st;
  const char *path = PyBytes_AS_STRING(path_obj);
  Py_BEGIN_ALLOW_THREADS qvpy_lock();
  st = qv_graph_open(path, &self->g, &err);
  qvpy_unlock();
  Py_END_ALLOW_THREADS self->path = PyUnicode_DecodeFSDefault(path);
  Py_DECREF(path_obj);
  if (st != QV_OK || !self->path) {
    Py_DECREF(self);
    return st != QV_OK ? qvpy_raise(&err) : NULL;
  }
  return (PyObject *)self;
}

static PyObject *graph_memory(PyObject *cls, PyObject *unused) {
  (void)unused;
  graph_obj *self = (graph_obj *)((PyTypeObject *)cls)->tp_alloc((PyTypeObject *)cls, 0);
  if (!self) return NULL;
  qv_error err = {0};
  qvpy_lock();
  qv_status st = qv_graph_open_memory(&self->g, &err);
  qvpy_unlock();
  if (st != QV_OK) {
    Py_DECREF(self);
    return qvpy_raise(&err);
  }
  self->path = Py_NewRef(Py_None);
  return (PyObject *)self;
}

static void graph_dealloc(graph_obj *self) {
  qvpy_lock();
  qv_graph_close(self->g);
  qvpy_unlock();
  Py_XDECREF(self->path);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The batches of a query, read to the end. */
typedef struct result {
  qv_schema schema;
  qv_batch **batches;
  int32_t n, cap;
} result;

static void result_reset(result *r) {
  for (int32_t i = 0; i < r->n; i++) qv_batch_release(r->batches[i]);
  free(r->batches);
  qv_schema_reset(&r->schema);
  memset(r, 0, sizeof *r);
}

/* Runs text with qvpy_lock held and the GIL released; the caller holds the
 * GIL and resets *out. */
static qv_status run_query(graph_obj *self, const char *text, const qvpy_params *params, const qv_cypher_options *o,
                           result *out, bool *runtime, qv_error *err) {
  qv_status st;
  bool rt = false;
  memset(out, 0, sizeof *out);
  interrupt_begin();
  Py_BEGIN_ALLOW_THREADS qvpy_lock();
  qv_batch_reader *reader = NULL;
  st = qv_cypher_query(self->g, text, params->p.n ? &params->p : NULL, o, &reader, err);
  if (st == QV_OK && qv_schema_copy(reader->schema(reader), &out->schema) != QV_OK) st = qv_error_nomem(err, "cypher");
  rt = st == QV_OK;
  while (st == QV_OK) {
    qv_batch *b = NULL;
    st = reader->next(reader, &b, err);
    if (st != QV_OK || !b) break;
    if (out->n == out->cap) {
      int32_t cap = out->cap ? out->cap * 2 : 8;
      qv_batch **bs = realloc(out->batches, (size_t)cap * sizeof *bs);
      if (!bs) {
        qv_batch_release(b);
        st = qv_error_nomem(err, "cypher");
        break;
      }
      out->batches = bs;
      out->cap = cap;
    }
    out->batches[out->n++] = b;
  }
  qv_batch_reader_destroy(reader);
  qvpy_unlock();
  Py_END_ALLOW_THREADS *runtime = rt;
  interrupt_end();
  return st;
}

/* The arguments query(), rows() and explain() share: query, params and the
 * keywords use_csr, render (not explain's), analyze (explain's only),
 * literal (params' values are Cypher literal text), memory_limit, threads. */
static int parse_query_args(const char *fname, PyObject *args, PyObject *kwargs, const char **text, qvpy_params *params,
                            qv_cypher_options *o, int *analyze) {
  static char *kw[] = {"query", "params", "use_csr", "render", "analyze", "literal", "memory_limit", "threads", NULL};
  PyObject *params_obj = Py_None;
  int use_csr = 1, render = 0, an = 0, literal = 0, threads = 0;
  long long memory_limit = 0;
  char fmt[64];
  snprintf(fmt, sizeof fmt, "s|O$ppppLi:%s", fname);
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kw, text, &params_obj, &use_csr, &render, &an, &literal,
                                   &memory_limit, &threads))
    return -1;
  if ((an && !analyze) || (render && analyze)) {
    PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", fname, an ? "analyze" : "render");
    return -1;
  }
  if (memory_limit < 0 || threads < 0) {
    PyErr_Format(PyExc_ValueError, "%s(): memory_limit and threads must not be negative (0: the default)", fname);
    return -1;
  }
  if (analyze) *analyze = an;
  qv_cypher_options init = QV_CYPHER_OPTIONS_INIT;
  *o = init;
  o->use_csr = use_csr;
  o->render_values = render;
  o->memory_limit = memory_limit;
  o->threads = threads;
  o->cancel = &interrupted;
  return qvpy_cypher_params(params_obj, literal, params);
}

/* Raises err with e.phase "compile" (qv_cypher_query refused the query) or
 * "runtime" (reading its rows failed), as the openCypher TCK tells errors
 * apart. */
static PyObject *raise_phase(const qv_error *err, bool runtime) {
  /* a query Ctrl-C stopped: Python's KeyboardInterrupt (main thread) */
  if (err->code == QV_ERR_CANCELLED && PyErr_CheckSignals() < 0) return NULL;
  qvpy_raise(err);
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  PyObject *phase = PyUnicode_FromString(runtime ? "runtime" : "compile");
  if (phase && value) PyObject_SetAttrString(value, "phase", phase);
  Py_XDECREF(phase);
  PyErr_Restore(type, value, tb);
  return NULL;
}

/* query(query, params=None, *, use_csr=True, render=False) -> PyCapsule */
static PyObject *graph_query(graph_obj *self, PyObject *args, PyObject *kwargs) {
  const char *text;
  qvpy_params params;
  qv_cypher_options o;
  if (parse_query_args("query", args, kwargs, &text, &params, &o, NULL) < 0) return NULL;
  qv_error err = {0};
  result r;
  bool runtime;
  qv_status st = run_query(self, text, &params, &o, &r, &runtime, &err);
  qvpy_params_reset(&params);
  PyObject *out = NULL;
  if (st != QV_OK) {
    raise_phase(&err, runtime);
    goto cleanup;
  }
  qv_batch_reader *reader = NULL;
  struct ArrowArrayStream inner = {0}, outer = {0};
  qvpy_lock();
  st = qv_batch_reader_from_batches(&r.schema, r.batches, r.n, &reader, &err);
  if (st == QV_OK) st = qv_export_stream(reader, &inner, &err); /* takes the reader, also on failure */
  qvpy_unlock();
  if (st != QV_OK) qvpy_raise(&err);
  else if (!qvpy_locked_stream(&inner, &outer)) PyErr_NoMemory();
  else out = qvpy_stream_capsule(&outer);
cleanup:
  qvpy_lock();
  result_reset(&r);
  qvpy_unlock();
  return out;
}

/* One cell as a str: a string column's text, else the value's text form. */
static PyObject *cell(const qv_array *a, int64_t i) {
  if (!qv_array_is_valid(a, i)) return PyUnicode_FromString("null");
  if (a->type.id == QV_TYPE_STRING) {
    int32_t len;
    const uint8_t *s = qv_array_str(a, i, &len);
    return PyUnicode_DecodeUTF8((const char *)s, len, "replace");
  }
  char small[256];
  int n = qv_array_format_value(a, i, small, sizeof small);
  if (n < (int)sizeof small) return PyUnicode_DecodeUTF8(small, n, "replace");
  char *big = PyMem_Malloc((size_t)n + 1);
  if (!big) return PyErr_NoMemory();
  qv_array_format_value(a, i, big, (size_t)n + 1);
  PyObject *s = PyUnicode_DecodeUTF8(big, n, "replace");
  PyMem_Free(big);
  return s;
}

/* rows(query, params=None, *, use_csr=True) -> (columns, rows): every value
 * as Cypher text (render_values), rows a list of tuples of str. */
static PyObject *graph_rows(graph_obj *self, PyObject *args, PyObject *kwargs) {
  const char *text;
  qvpy_params params;
  qv_cypher_options o;
  if (parse_query_args("rows", args, kwargs, &text, &params, &o, NULL) < 0) return NULL;
  o.render_values = true;
  qv_error err = {0};
  result r;
  bool runtime;
  qv_status st = run_query(self, text, &params, &o, &r, &runtime, &err);
  qvpy_params_reset(&params);
  PyObject *cols = NULL, *rows = NULL, *out = NULL;
  if (st != QV_OK) {
    raise_phase(&err, runtime);
    goto cleanup;
  }
  int32_t nc = r.schema.n_fields;
  if (!(cols = PyList_New(nc)) || !(rows = PyList_New(0))) goto cleanup;
  for (int32_t c = 0; c < nc; c++) {
    PyObject *name = PyUnicode_FromString(r.schema.fields[c].name);
    if (!name) goto cleanup;
    PyList_SET_ITEM(cols, c, name);
  }
  for (int32_t k = 0; k < r.n; k++) {
    const qv_batch *b = r.batches[k];
    for (int64_t i = 0; i < b->num_rows; i++) {
      PyObject *row = PyTuple_New(nc);
      if (!row) goto cleanup;
      for (int32_t c = 0; c < nc; c++) {
        PyObject *v = cell(b->columns[c], i);
        if (!v) {
          Py_DECREF(row);
          goto cleanup;
        }
        PyTuple_SET_ITEM(row, c, v);
      }
      int rc = PyList_Append(rows, row);
      Py_DECREF(row);
      if (rc < 0) goto cleanup;
    }
  }
  out = PyTuple_Pack(2, cols, rows);
cleanup:
  Py_XDECREF(cols);
  Py_XDECREF(rows);
  qvpy_lock();
  result_reset(&r);
  qvpy_unlock();
  return out;
}

/* explain(query, params=None, *, use_csr=True, analyze=False) -> str */
static PyObject *graph_explain(graph_obj *self, PyObject *args, PyObject *kwargs) {
  const char *text;
  qvpy_params params;
  qv_cypher_options o;
  int analyze = 0;
  if (parse_query_args("explain", args, kwargs, &text, &params, &o, &analyze) < 0) return NULL;
  qv_error err = {0};
  char *plan = NULL;
  qv_status st;
  interrupt_begin();
  Py_BEGIN_ALLOW_THREADS qvpy_lock();
  st = qv_cypher_explain(self->g, text, params.p.n ? &params.p : NULL, &o, analyze, &plan, &err);
  qvpy_unlock();
  Py_END_ALLOW_THREADS interrupt_end();
  qvpy_params_reset(&params);
  if (st != QV_OK) return raise_phase(&err, false);
  PyObject *s = plan ? PyUnicode_DecodeUTF8(plan, (Py_ssize_t)strlen(plan), "replace") : PyErr_NoMemory();
  qv_free(plan);
  return s;
}

static PyObject *graph_path(graph_obj *self, void *closure) {
  (void)closure;
  return Py_NewRef(self->path);
}

static PyGetSetDef graph_getset[] = {
    {"path", (getter)graph_path, NULL, "the graph folder, or None for a graph in memory", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef graph_methods[] = {
    {"memory", (PyCFunction)graph_memory, METH_NOARGS | METH_CLASS,
     "memory() -> Graph: an empty graph in memory; CREATE adds nodes and relationships to it."},
    {"query", (PyCFunction)(void (*)(void))graph_query, METH_VARARGS | METH_KEYWORDS,
     "query(query, params=None, *, use_csr=True, render=False, literal=False, memory_limit=0, threads=0)\n"
     "  -> PyCapsule 'arrow_array_stream'\n\n"
     "Runs a Cypher query to its end and returns its rows as an Arrow C stream.  params: a dict of\n"
     "name -> None, bool, int, float, str, list, tuple or dict (nested), passed as Cypher literals\n"
     "(literal=True: each value is a str of Cypher literal text, passed as it is).  use_csr=False\n"
     "plans every hop as hash joins; render=True returns every column as Cypher text; memory_limit\n"
     "(bytes) and threads as qv_cypher_options (0: the defaults).  Errors raise with e.phase\n"
     "'compile' (the query was refused) or 'runtime' (reading its rows failed)."},
    {"rows", (PyCFunction)(void (*)(void))graph_rows, METH_VARARGS | METH_KEYWORDS,
     "rows(query, params=None, *, use_csr=True, literal=False, memory_limit=0, threads=0) -> (columns, rows)\n\n"
     "The query's column names and its rows as tuples of str, every value as Cypher text\n"
     "(as the openCypher TCK writes them: null, 1, 1.5, 'a', [1, 2], {k: 1}, (:L {p: 1}))."},
    {"explain", (PyCFunction)(void (*)(void))graph_explain, METH_VARARGS | METH_KEYWORDS,
     "explain(query, params=None, *, use_csr=True, analyze=False, literal=False, memory_limit=0, threads=0)\n"
     "  -> str\n\n"
     "The physical plan as an indented operator tree; analyze=True runs the query (its rows are\n"
     "discarded) and adds each operator's counters."},
    {NULL, NULL, 0, NULL}};

PyTypeObject qvpy_graph_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "quiver.Graph",
    .tp_basicsize = sizeof(graph_obj),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc =
        "Graph(path): a graph folder made by `quiver graph create`, opened for Cypher;\n"
        "Graph.memory(): an empty graph in memory.",
    .tp_new = graph_new,
    .tp_dealloc = (destructor)graph_dealloc,
    .tp_getset = graph_getset,
    .tp_methods = graph_methods,
};
