/* quiver._quiver.LanceFilter and BigQueryFilter, and the translation of a
 * Polars expression (its serialized JSON, through qv_polars_from_json) into
 * a Lance SQL filter (qv_to_lance_filter / qv_lance_filter_explain) or a
 * BigQuery row_restriction (qv_to_bigquery_filter / _explain).  The two
 * filter types share one layout and one implementation. */
#include "pyquiver.h"

#include <structmember.h>

typedef struct {
  PyObject_HEAD PyObject *sql; /* str */
  int exact;
} filter_obj;

static PyObject *lf_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"sql", "exact", NULL};
  PyObject *sql;
  int exact;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Up", kw, &sql, &exact)) return NULL;
  filter_obj *self = (filter_obj *)type->tp_alloc(type, 0);
  if (!self) return NULL;
  self->sql = Py_NewRef(sql);
  self->exact = exact;
  return (PyObject *)self;
}

static void lf_dealloc(filter_obj *self) {
  Py_XDECREF(self->sql);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* As a dataclass prints it (and so polars-pylance): Python's own repr of the
 * SQL text, which picks the quotes. */
static PyObject *lf_repr(filter_obj *self) {
  PyObject *name = PyType_GetName(Py_TYPE(self));
  if (!name) return NULL;
  PyObject *r = PyUnicode_FromFormat("%U(sql=%R, exact=%s)", name, self->sql, self->exact ? "True" : "False");
  Py_DECREF(name);
  return r;
}

static PyObject *lf_richcompare(PyObject *a, PyObject *b, int op) {
  if (Py_TYPE(a) != Py_TYPE(b) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  filter_obj *x = (filter_obj *)a, *y = (filter_obj *)b;
  int eq = PyUnicode_Compare(x->sql, y->sql);
  if (eq == -1 && PyErr_Occurred()) return NULL;
  bool same = eq == 0 && x->exact == y->exact;
  return PyBool_FromLong(op == Py_EQ ? same : !same);
}

static PyMemberDef lf_members[] = {{"sql", T_OBJECT_EX, offsetof(filter_obj, sql), READONLY, "the filter text"},
                                   {"exact", T_BOOL, offsetof(filter_obj, exact), READONLY,
                                    "True: keeps exactly the expression's rows; False: a superset (conjuncts dropped)"},
                                   {NULL, 0, 0, 0, NULL}};

#define FILTER_TYPE(NAME, DOC)                                                                                         \
  {                                                                                                                    \
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = NAME, .tp_basicsize = sizeof(filter_obj), .tp_flags = Py_TPFLAGS_DEFAULT, \
                                .tp_doc = DOC, .tp_new = lf_new, .tp_dealloc = (destructor)lf_dealloc,                 \
                                .tp_repr = (reprfunc)lf_repr, .tp_richcompare = lf_richcompare,                        \
                                .tp_members = lf_members,                                                              \
  }
PyTypeObject qvpy_lance_filter_type =
    FILTER_TYPE("quiver.LanceFilter",
                "LanceFilter(sql, exact): a Lance SQL filter and whether it keeps exactly the expression's rows.");
PyTypeObject qvpy_bigquery_filter_type = FILTER_TYPE(
    "quiver.BigQueryFilter",
    "BigQueryFilter(sql, exact): a BigQuery row_restriction and whether it keeps exactly the expression's rows.");
#undef FILTER_TYPE

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
  if (*has_schema && PyUnicode_Check(schema_obj)) { /* a BigQuery table schema as JSON */
    Py_ssize_t slen;
    const char *stext = PyUnicode_AsUTF8AndSize(schema_obj, &slen);
    qv_error serr = {0};
    if (!stext) return -1;
    if (qv_bigquery_schema_from_json(stext, (size_t)slen, schema, &serr) != QV_OK) {
      qvpy_raise(&serr);
      return -1;
    }
  } else if (*has_schema && qvpy_schema_from_stream_object(schema_obj, schema) < 0) {
    return -1;
  }
  qv_error err = {0};
  if (qv_polars_from_json(json, (size_t)len, e, &err) != QV_OK) {
    qv_schema_reset(schema);
    qvpy_raise(&err);
    return -1;
  }
  return 0;
}

static PyObject *new_filter(PyTypeObject *type, const char *sql, bool exact) {
  filter_obj *obj = PyObject_New(filter_obj, type);
  if (!obj) return NULL;
  obj->exact = exact;
  obj->sql = PyUnicode_FromString(sql);
  if (!obj->sql) {
    Py_DECREF(obj);
    return NULL;
  }
  return (PyObject *)obj;
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
  result = new_filter(&qvpy_lance_filter_type, f->sql, f->exact);
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
  qv_error err = {0};
  char *text = NULL;
  PyObject *result = NULL;
  if (qv_lance_filter_explain(e, has_schema ? &schema : NULL, &text, &err) != QV_OK) qvpy_raise(&err);
  else result = PyUnicode_FromString(text);
  qv_free(text);
  qv_expr_destroy(e);
  qv_schema_reset(&schema);
  return result;
}

PyObject *qvpy_to_bigquery_filter(PyObject *self, PyObject *args, PyObject *kwargs) {
  qv_expr *e = NULL;
  qv_schema schema = QV_SCHEMA_INIT;
  bool has_schema;
  if (parse_expr_args(args, kwargs, "to_bigquery_filter", &e, &schema, &has_schema) < 0) return NULL;
  qv_error err = {0};
  qv_bigquery_filter *f = NULL;
  PyObject *result = NULL;
  if (qv_to_bigquery_filter(e, has_schema ? &schema : NULL, &f, &err) != QV_OK) qvpy_raise(&err);
  else result = f ? new_filter(&qvpy_bigquery_filter_type, f->sql, f->exact) : Py_NewRef(Py_None);
  qv_bigquery_filter_free(f);
  qv_expr_destroy(e);
  qv_schema_reset(&schema);
  return result;
}

PyObject *qvpy_explain_bigquery_filter(PyObject *self, PyObject *args, PyObject *kwargs) {
  qv_expr *e = NULL;
  qv_schema schema = QV_SCHEMA_INIT;
  bool has_schema;
  if (parse_expr_args(args, kwargs, "explain_bigquery_filter", &e, &schema, &has_schema) < 0) return NULL;
  qv_error err = {0};
  char *text = NULL;
  PyObject *result = NULL;
  if (qv_bigquery_filter_explain(e, has_schema ? &schema : NULL, &text, &err) != QV_OK) qvpy_raise(&err);
  else result = PyUnicode_FromString(text);
  qv_free(text);
  qv_expr_destroy(e);
  qv_schema_reset(&schema);
  return result;
}
