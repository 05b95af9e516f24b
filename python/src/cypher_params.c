/* Python values as Cypher literal text, for the parameters of
 * quiver.Graph.cypher (qv_cypher_params takes each value as the text of a
 * Cypher literal).
 *
 * The text is exact: an int is its decimal digits (int64 only, as Cypher's
 * integers), a float the shortest digits that read back as the same double
 * (Python's repr, with the exponent written as Cypher's grammar spells it:
 * "1e16", "1e-05"), a str single-quoted with \\ \' and control characters
 * escaped, a list or tuple "[a, b]", a dict "{key: value}" with each key
 * backtick-quoted unless it is a plain identifier; an object with
 * __index__ (a numpy integer) counts as an int.  NaN and infinities have
 * no Cypher literal and are refused, as are other Python types. */
#include <math.h>
#include <string.h>

#include "pyquiver.h"

#define MAX_DEPTH 200 /* nesting of lists and maps; deeper is refused, not a C stack overflow */

typedef struct text {
  char *p;
  size_t n, cap;
} text;

static int put(text *t, const char *s, size_t n) {
  if (t->n + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 64;
    while (cap < t->n + n + 1) cap *= 2;
    char *p = PyMem_Realloc(t->p, cap);
    if (!p) {
      PyErr_NoMemory();
      return -1;
    }
    t->p = p;
    t->cap = cap;
  }
  memcpy(t->p + t->n, s, n);
  t->n += n;
  t->p[t->n] = '\0';
  return 0;
}

static int puts_(text *t, const char *s) { return put(t, s, strlen(s)); }

static int put_string(text *t, const char *s, Py_ssize_t n) {
  if (put(t, "'", 1) < 0) return -1;
  for (Py_ssize_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    char esc[8];
    const char *out = NULL;
    switch (c) {
      case '\\': out = "\\\\"; break;
      case '\'': out = "\\'"; break;
      case '\n': out = "\\n"; break;
      case '\r': out = "\\r"; break;
      case '\t': out = "\\t"; break;
      case '\b': out = "\\b"; break;
      case '\f': out = "\\f"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          snprintf(esc, sizeof esc, "\\u%04x", c);
          out = esc;
        }
    }
    if (out ? puts_(t, out) < 0 : put(t, (const char *)&s[i], 1) < 0) return -1;
  }
  return put(t, "'", 1);
}

/* A map key: bare when [A-Za-z_][A-Za-z0-9_]*, else `quoted` (a backtick doubled). */
static int put_key(text *t, const char *s, Py_ssize_t n) {
  bool plain = n > 0 && !(s[0] >= '0' && s[0] <= '9');
  for (Py_ssize_t i = 0; plain && i < n; i++) {
    char c = s[i];
    plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
  if (plain) return put(t, s, (size_t)n);
  if (put(t, "`", 1) < 0) return -1;
  for (Py_ssize_t i = 0; i < n; i++)
    if ((s[i] == '`' && put(t, "`", 1) < 0) || put(t, &s[i], 1) < 0) return -1;
  return put(t, "`", 1);
}

/* Python's repr of a float, with the exponent as Cypher writes it: no '+'
 * ("1e+16" -> "1e16"). */
static int put_float(text *t, double d) {
  if (!isfinite(d)) {
    PyErr_Format(PyExc_ValueError, "params: %s has no Cypher literal", isnan(d) ? "NaN" : "an infinity");
    return -1;
  }
  char *r = PyOS_double_to_string(d, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
  if (!r) return -1;
  int rc = 0;
  for (char *c = r; *c && rc == 0; c++)
    if (!(*c == '+' && c > r && c[-1] == 'e')) rc = put(t, c, 1);
  PyMem_Free(r);
  return rc;
}

static int put_value(text *t, PyObject *v, int depth);

static int put_map(text *t, PyObject *d, int depth) {
  if (put(t, "{", 1) < 0) return -1;
  Py_ssize_t pos = 0, k = 0;
  PyObject *key, *val;
  while (PyDict_Next(d, &pos, &key, &val)) {
    if (!PyUnicode_Check(key)) {
      PyErr_Format(PyExc_TypeError, "params: a map key must be str, not %.100s", Py_TYPE(key)->tp_name);
      return -1;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(key, &n);
    if (!s || (k++ && put(t, ", ", 2) < 0) || put_key(t, s, n) < 0 || put(t, ": ", 2) < 0 ||
        put_value(t, val, depth + 1) < 0)
      return -1;
  }
  return put(t, "}", 1);
}

static int put_value(text *t, PyObject *v, int depth) {
  if (depth > MAX_DEPTH) {
    PyErr_Format(PyExc_ValueError, "params: lists and maps nested deeper than %d levels", MAX_DEPTH);
    return -1;
  }
  if (v == Py_None) return puts_(t, "null");
  if (PyBool_Check(v)) return puts_(t, v == Py_True ? "true" : "false");
  if (PyLong_Check(v)) {
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow) {
      PyErr_SetString(PyExc_OverflowError, "params: an int outside Cypher's 64-bit integers");
      return -1;
    }
    if (x == -1 && PyErr_Occurred()) return -1;
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", x);
    return puts_(t, buf);
  }
  if (PyFloat_Check(v)) return put_float(t, PyFloat_AS_DOUBLE(v));
  if (PyUnicode_Check(v)) {
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(v, &n);
    return s ? put_string(t, s, n) : -1;
  }
  if (PyList_Check(v) || PyTuple_Check(v)) {
    PyObject *seq = PySequence_Fast(v, "params: a list");
    if (!seq) return -1;
    int rc = put(t, "[", 1);
    for (Py_ssize_t i = 0; rc == 0 && i < PySequence_Fast_GET_SIZE(seq); i++)
      rc = (i && put(t, ", ", 2) < 0) ? -1 : put_value(t, PySequence_Fast_GET_ITEM(seq, i), depth + 1);
    Py_DECREF(seq);
    return rc < 0 ? -1 : put(t, "]", 1);
  }
  if (PyDict_Check(v)) return put_map(t, v, depth);
  if (PyIndex_Check(v)) { /* numpy integers and other int-likes */
    PyObject *i = PyNumber_Index(v);
    int rc = i ? put_value(t, i, depth) : -1;
    Py_XDECREF(i);
    return rc;
  }
  PyErr_Format(PyExc_TypeError,
               "params: a Python %.100s has no Cypher value (use None, bool, int, float, str, list, tuple or dict)",
               Py_TYPE(v)->tp_name);
  return -1;
}

PyObject *qvpy_cypher_literal(PyObject *self, PyObject *value) {
  (void)self;
  text t = {0};
  PyObject *out = NULL;
  if (put_value(&t, value, 0) == 0) out = PyUnicode_DecodeUTF8(t.p, (Py_ssize_t)t.n, "strict");
  PyMem_Free(t.p);
  return out;
}

int qvpy_cypher_params(PyObject *params, bool literal, qvpy_params *out) {
  memset(out, 0, sizeof *out);
  if (params == NULL || params == Py_None) return 0;
  if (!PyDict_Check(params)) {
    PyErr_Format(PyExc_TypeError, "params must be a dict of name -> value, not %.100s", Py_TYPE(params)->tp_name);
    return -1;
  }
  Py_ssize_t n = PyDict_Size(params);
  if (n > INT32_MAX) {
    PyErr_SetString(PyExc_ValueError, "params: too many");
    return -1;
  }
  out->names = PyMem_Calloc((size_t)n + 1, sizeof *out->names);
  out->values = PyMem_Calloc((size_t)n + 1, sizeof *out->values);
  if (!out->names || !out->values) {
    qvpy_params_reset(out);
    PyErr_NoMemory();
    return -1;
  }
  Py_ssize_t pos = 0;
  PyObject *key, *val;
  while (PyDict_Next(params, &pos, &key, &val)) {
    if (!PyUnicode_Check(key)) {
      PyErr_Format(PyExc_TypeError, "params: a name must be str, not %.100s", Py_TYPE(key)->tp_name);
      qvpy_params_reset(out);
      return -1;
    }
    Py_ssize_t kn;
    const char *k = PyUnicode_AsUTF8AndSize(key, &kn);
    text t = {0};
    char *name = k ? PyMem_Malloc((size_t)kn + 1) : NULL;
    if (k && !name) PyErr_NoMemory();
    int rc = -1;
    if (name && literal) {
      Py_ssize_t vn;
      const char *v = PyUnicode_Check(val) ? PyUnicode_AsUTF8AndSize(val, &vn) : NULL;
      if (!PyUnicode_Check(val))
        PyErr_Format(PyExc_TypeError, "params: with literal=True a value is str (Cypher literal text), not %.100s",
                     Py_TYPE(val)->tp_name);
      else if (v) rc = put(&t, v, (size_t)vn);
    } else if (name) {
      rc = put_value(&t, val, 0);
    }
    if (rc < 0) {
      PyMem_Free(name);
      PyMem_Free(t.p);
      qvpy_params_reset(out);
      return -1;
    }
    memcpy(name, k, (size_t)kn + 1);
    out->names[out->p.n] = name;
    out->values[out->p.n] = t.p ? t.p : NULL;
    out->p.n++;
  }
  out->p.names = (const char *const *)out->names;
  out->p.values = (const char *const *)out->values;
  return 0;
}

void qvpy_params_reset(qvpy_params *p) {
  for (int32_t i = 0; p->names && i < p->p.n; i++) {
    PyMem_Free(p->names[i]);
    PyMem_Free(p->values[i]);
  }
  PyMem_Free(p->names);
  PyMem_Free(p->values);
  memset(p, 0, sizeof *p);
}
