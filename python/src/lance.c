/* quiver._quiver.LanceFilter and the translation of a Polars expression
 * (its serialized JSON) into a Lance SQL filter, through qv_polars_from_json
 * and qv_to_lance_filter / qv_lance_filter_explain. */
#include "pyquiver.h"

#include <structmember.h>

typedef struct {
  PyObject_HEAD
  PyObject *sql; /* str */
  int exact;
} lance_filter_obj;

static PyObject *lf_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"sql", "exact", NULL};
  PyObject *sql;
  int exact;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Up:LanceFilter", kw, &sql, &exact)) return NULL;
  lance_filter_obj *self = (lance_filter_obj *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  self->sql = Py_NewRef(sql);
  self->exact = exact;
  return (PyObject *)self;
}

static void lf_dealloc(lance_filter_obj *self) {
  Py_XDECREF(self->sql);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* As a dataclass prints it (and so polars-pylance): Python's own repr of the
 * SQL text, which picks the quotes. */
static PyObject *lf_repr(lance_filter_obj *self) {
  return PyUnicode_FromFormat("LanceFilter(sql=%R, exact=%s)", self->sql, self->exact ? "True" : "False");
}

static PyObject *lf_richcompare(PyObject *a, PyObject *b, int op) {
  if (!PyObject_TypeCheck(b, &qvpy_lance_filter_type) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  lance_filter_obj *x = (lance_filter_obj *)a, *y = (lance_filter_obj *)b;
  int eq = PyUnicode_Compare(x->sql, y->sql);
  if (eq == -1 && PyErr_Occurred()) return NULL;
  bool same = eq == 0 && x->exact == y->exact;
  return PyBool_FromLong(op == Py_EQ ? same : !same);
}

static PyMemberDef lf_members[] = {
    {"sql", T_OBJECT_EX, offsetof(lance_filter_obj, sql), READONLY, "the Lance SQL filter text"},
    {"exact", T_BOOL, offsetof(lance_filter_obj, exact), READONLY,
     "True: keeps exactly the expression's rows; False: a superset (conjuncts dropped)"},
    {NULL, 0, 0, 0, NULL}};

PyTypeObject qvpy_lance_filter_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "quiver.LanceFilter",
    .tp_basicsize = sizeof(lance_filter_obj),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "LanceFilter(sql, exact): a Lance SQL filter and whether it keeps exactly the expression's rows.",
    .tp_new = lf_new,
    .tp_dealloc = (destructor)lf_dealloc,
    .tp_repr = (reprfunc)lf_repr,
    .tp_richcompare = lf_richcompare,
    .tp_members = lf_members,
};

/* Parses the arguments both functions take: the JSON text and an optional
 * schema source.  On success *e is the unbound tree and *has_schema says
 * whether *schema was filled. */
static int parse_expr_args(PyObject *args, PyObject *kwargs, const char *fname, qv_expr **e, qv_schema *schema,
                           bool *has_schema) {
  static char *kw[] = {"polars_json", "schema", NULL};
  const char *json;
  Py_ssize_t len;
  PyObject *schema_obj = Py_None;
  char fmt[64];
  PyOS_snprintf(fmt, sizeof fmt, "s#|O:%s", fname);
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kw, &json, &len, &schema_obj)) return -1;
  *has_schema = schema_obj != Py_None;
  if (*has_schema && qvpy_schema_from_stream_object(schema_obj, schema) < 0) return -1;
  qv_error err = {0};
  if (qv_polars_from_json(json, (size_t)len, e, &err) != QV_OK) {
    qv_schema_reset(schema);
    qvpy_raise(&err);
    return -1;
  }
  return 0;
}

PyObject *qvpy_to_lance_filter(PyObject *self, PyObject *args, PyObject *kwargs) {
  qv_expr *e = NULL;
  qv_schema schema = QV_SCHEMA_INIT;
  bool has_schema;
  if (parse_expr_args(args, kwargs, "to_lance_filter", &e, &schema, &has_schema) < 0) return NULL;
  qv_error err = {0};
  qv_lance_filter *f = NULL;
  PyObject *result = NULL;
  if (qv_to_lance_filter(e, has_schema ? &schema : NULL, &f, &err) != QV_OK) {
    qvpy_raise(&err);
    goto cleanup;
  }
  if (!f) {
    result = Py_NewRef(Py_None);
    goto cleanup;
  }
  lance_filter_obj *obj = PyObject_New(lance_filter_obj, &qvpy_lance_filter_type);
  if (!obj) goto cleanup;
  obj->exact = f->exact;
  obj->sql = PyUnicode_FromString(f->sql);
  if (!obj->sql) {
    Py_DECREF(obj);
    goto cleanup;
  }
  result = (PyObject *)obj;
cleanup:
  qv_lance_filter_free(f);
  qv_expr_destroy(e);
  qv_schema_reset(&schema);
  return result;
}

PyObject *qvpy_explain_lance_filter(PyObject *self, PyObject *args, PyObject *kwargs) {
  qv_expr *e = NULL;
  qv_schema schema = QV_SCHEMA_INIT;
  bool has_schema;
  if (parse_expr_args(args, kwargs, "explain_lance_filter", &e, &schema, &has_schema) < 0) return NULL;
  char *text = qv_lance_filter_explain(e, has_schema ? &schema : NULL);
  PyObject *result = text ? PyUnicode_FromString(text) : PyErr_NoMemory();
  qv_free(text);
  qv_expr_destroy(e);
  qv_schema_reset(&schema);
  return result;
}
