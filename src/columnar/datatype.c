/* Data types, fields and schemas: construction, copying, comparison, and
 * the text form used by the command line, CSV overrides and error messages. */
#include "quiver/columnar.h"
#include "columnar/columnar_int.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

qv_datatype qv_datatype_simple(qv_type_id id) {
  qv_datatype t = QV_DATATYPE_INIT;
  t.id = id;
  if (id == QV_TYPE_TIME64 || id == QV_TYPE_DURATION || id == QV_TYPE_TIMESTAMP) t.unit = QV_UNIT_MICRO;
  return t;
}

qv_status qv_datatype_decimal(int32_t precision, int32_t scale, qv_datatype *out, qv_error *err) {
  if (precision < 1 || precision > 38)
    return qv_error_set(err, QV_ERR_INVALID, "decimal precision %d is outside 1..38", precision);
  if (scale < 0 || scale > precision)
    return qv_error_set(err, QV_ERR_INVALID, "decimal scale %d is outside 0..%d", scale, precision);
  *out = qv_datatype_simple(QV_TYPE_DECIMAL128);
  out->precision = precision;
  out->scale = scale;
  return QV_OK;
}

qv_status qv_datatype_timestamp(qv_time_unit unit, const char *tz, qv_datatype *out, qv_error *err) {
  if (unit > QV_UNIT_NANO) return qv_error_set(err, QV_ERR_INVALID, "invalid time unit %d", (int)unit);
  *out = qv_datatype_simple(QV_TYPE_TIMESTAMP);
  out->unit = unit;
  if (tz && *tz) {
    out->timezone = qv_strdup(tz);
    if (!out->timezone) return qv_error_nomem(err, NULL);
  }
  return QV_OK;
}

qv_datatype qv_datatype_time64(qv_time_unit unit) {
  qv_datatype t = qv_datatype_simple(QV_TYPE_TIME64);
  t.unit = unit;
  return t;
}

qv_datatype qv_datatype_duration(qv_time_unit unit) {
  qv_datatype t = qv_datatype_simple(QV_TYPE_DURATION);
  t.unit = unit;
  return t;
}

static qv_status wrap_child(qv_type_id id, qv_datatype *item, qv_datatype *out, qv_error *err) {
  qv_field *child = qv_calloc(1, sizeof *child);
  if (!child) return qv_error_nomem(err, NULL);
  child->name = qv_strdup("item");
  if (!child->name) {
    qv_free(child);
    return qv_error_nomem(err, NULL);
  }
  child->type = *item;
  child->nullable = true;
  *item = qv_datatype_simple(QV_TYPE_NULL);
  *out = qv_datatype_simple(id);
  out->n_children = 1;
  out->children = child;
  return QV_OK;
}

qv_status qv_datatype_list(qv_datatype *item, qv_datatype *out, qv_error *err) {
  return wrap_child(QV_TYPE_LIST, item, out, err);
}

qv_status qv_datatype_fixed_size_list(qv_datatype *item, int32_t size, qv_datatype *out, qv_error *err) {
  if (size < 0) return qv_error_set(err, QV_ERR_INVALID, "fixed_size_list size %d is negative", size);
  QV_RETURN_NOT_OK(wrap_child(QV_TYPE_FIXED_SIZE_LIST, item, out, err));
  out->list_size = size;
  return QV_OK;
}

qv_status qv_datatype_dictionary(qv_type_id index, qv_datatype *values, qv_datatype *out, qv_error *err) {
  if (!qv_type_is_integer(index)) return qv_error_set(err, QV_ERR_TYPE, "dictionary indices must be an integer type");
  qv_type_id v = values->id;
  if (v == QV_TYPE_DICTIONARY || v == QV_TYPE_LIST || v == QV_TYPE_STRUCT || v == QV_TYPE_FIXED_SIZE_LIST) {
    char tb[64];
    qv_datatype_format(values, tb, sizeof tb);
    return qv_error_set(err, QV_ERR_TYPE, "dictionary values cannot be %s", tb);
  }
  qv_field *f = qv_calloc(2, sizeof *f);
  if (!f || !(f[0].name = qv_strdup("indices")) || !(f[1].name = qv_strdup("values"))) {
    if (f) qv_free(f[0].name);
    qv_free(f);
    return qv_error_nomem(err, NULL);
  }
  f[0].type = qv_datatype_simple(index);
  f[0].nullable = true;
  f[1].type = *values;
  f[1].nullable = true;
  *values = qv_datatype_simple(QV_TYPE_NULL);
  *out = qv_datatype_simple(QV_TYPE_DICTIONARY);
  out->n_children = 2;
  out->children = f;
  return QV_OK;
}

qv_status qv_datatype_struct(qv_field *fields, int32_t n, qv_datatype *out, qv_error *err) {
  *out = qv_datatype_simple(QV_TYPE_STRUCT);
  if (n == 0) return QV_OK;
  out->children = qv_calloc((size_t)n, sizeof(qv_field));
  if (!out->children) return qv_error_nomem(err, NULL);
  memcpy(out->children, fields, (size_t)n * sizeof(qv_field));
  memset(fields, 0, (size_t)n * sizeof(qv_field));
  out->n_children = n;
  return QV_OK;
}

qv_status qv_datatype_copy(const qv_datatype *src, qv_datatype *out) {
  *out = *src;
  out->timezone = NULL;
  out->children = NULL;
  out->n_children = 0;
  if (src->timezone && !(out->timezone = qv_strdup(src->timezone))) return QV_ERR_NOMEM;
  if (src->n_children > 0) {
    out->children = qv_calloc((size_t)src->n_children, sizeof(qv_field));
    if (!out->children) {
      qv_datatype_reset(out);
      return QV_ERR_NOMEM;
    }
    out->n_children = src->n_children;
    for (int32_t i = 0; i < src->n_children; i++) {
      if (qv_field_copy(&src->children[i], &out->children[i]) != QV_OK) {
        qv_datatype_reset(out);
        return QV_ERR_NOMEM;
      }
    }
  }
  return QV_OK;
}

void qv_datatype_reset(qv_datatype *t) {
  if (!t) return;
  qv_free(t->timezone);
  for (int32_t i = 0; i < t->n_children; i++) qv_field_reset(&t->children[i]);
  qv_free(t->children);
  *t = qv_datatype_simple(QV_TYPE_NULL);
}

bool qv_datatype_equal(const qv_datatype *a, const qv_datatype *b) {
  if (a->id != b->id) return false;
  switch (a->id) {
    case QV_TYPE_DECIMAL128: return a->precision == b->precision && a->scale == b->scale;
    case QV_TYPE_TIMESTAMP:
      if (a->unit != b->unit) return false;
      if (!a->timezone || !b->timezone) return a->timezone == b->timezone;
      return strcmp(a->timezone, b->timezone) == 0;
    case QV_TYPE_TIME64:
    case QV_TYPE_DURATION: return a->unit == b->unit;
    case QV_TYPE_FIXED_SIZE_LIST:
      if (a->list_size != b->list_size) return false;
      return qv_datatype_equal(&a->children[0].type, &b->children[0].type);
    case QV_TYPE_LIST: return qv_datatype_equal(&a->children[0].type, &b->children[0].type);
    case QV_TYPE_DICTIONARY:
      return qv_datatype_equal(&a->children[0].type, &b->children[0].type) &&
             qv_datatype_equal(&a->children[1].type, &b->children[1].type);
    case QV_TYPE_STRUCT:
      if (a->n_children != b->n_children) return false;
      for (int32_t i = 0; i < a->n_children; i++) {
        if (strcmp(a->children[i].name, b->children[i].name) != 0) return false;
        if (!qv_datatype_equal(&a->children[i].type, &b->children[i].type)) return false;
      }
      return true;
    default: return true;
  }
}

static const char *const simple_names[] = {
    [QV_TYPE_NULL] = "null",     [QV_TYPE_BOOL] = "bool",       [QV_TYPE_INT8] = "int8",
    [QV_TYPE_INT16] = "int16",   [QV_TYPE_INT32] = "int32",     [QV_TYPE_INT64] = "int64",
    [QV_TYPE_UINT8] = "uint8",   [QV_TYPE_UINT16] = "uint16",   [QV_TYPE_UINT32] = "uint32",
    [QV_TYPE_UINT64] = "uint64", [QV_TYPE_FLOAT32] = "float32", [QV_TYPE_FLOAT64] = "float64",
    [QV_TYPE_STRING] = "string", [QV_TYPE_BINARY] = "binary",   [QV_TYPE_DATE32] = "date32",
};

const char *qv_time_unit_name(qv_time_unit u) {
  switch (u) {
    case QV_UNIT_SECOND: return "s";
    case QV_UNIT_MILLI: return "ms";
    case QV_UNIT_MICRO: return "us";
    case QV_UNIT_NANO: return "ns";
  }
  return "?";
}

#define put qvc_textf

static void put_type(char *buf, size_t size, int *n, const qv_datatype *t) {
  size_t off = (size_t)*n;
  *n += qv_datatype_format(t, off < size ? buf + off : NULL, off < size ? size - off : 0);
}

int qv_datatype_format(const qv_datatype *t, char *buf, size_t size) {
  int n = 0;
  switch (t->id) {
    case QV_TYPE_DECIMAL128: put(buf, size, &n, "decimal(%d,%d)", t->precision, t->scale); break;
    case QV_TYPE_TIMESTAMP:
      if (t->timezone) put(buf, size, &n, "timestamp[%s, %s]", qv_time_unit_name(t->unit), t->timezone);
      else put(buf, size, &n, "timestamp[%s]", qv_time_unit_name(t->unit));
      break;
    case QV_TYPE_TIME64: put(buf, size, &n, "time64[%s]", qv_time_unit_name(t->unit)); break;
    case QV_TYPE_DURATION: put(buf, size, &n, "duration[%s]", qv_time_unit_name(t->unit)); break;
    case QV_TYPE_LIST:
      put(buf, size, &n, "list<");
      put_type(buf, size, &n, &t->children[0].type);
      put(buf, size, &n, ">");
      break;
    case QV_TYPE_FIXED_SIZE_LIST:
      put(buf, size, &n, "fixed_size_list<");
      put_type(buf, size, &n, &t->children[0].type);
      put(buf, size, &n, ", %d>", t->list_size);
      break;
    case QV_TYPE_DICTIONARY:
      put(buf, size, &n, "dictionary<");
      put_type(buf, size, &n, &t->children[0].type);
      put(buf, size, &n, ", ");
      put_type(buf, size, &n, &t->children[1].type);
      put(buf, size, &n, ">");
      break;
    case QV_TYPE_STRUCT:
      put(buf, size, &n, "struct<");
      for (int32_t i = 0; i < t->n_children; i++) {
        put(buf, size, &n, "%s%s: ", i ? ", " : "", t->children[i].name);
        put_type(buf, size, &n, &t->children[i].type);
      }
      put(buf, size, &n, ">");
      break;
    default: put(buf, size, &n, "%s", simple_names[t->id]); break;
  }
  return n;
}

/* ---- parsing the text form ------------------------------------------ */

typedef struct type_parser {
  const char *s;
  size_t i;
  int depth;
  qv_error *err;
  const char *text;
} type_parser;

static void tp_skip(type_parser *p) {
  while (p->s[p->i] == ' ' || p->s[p->i] == '\t') p->i++;
}

static bool tp_eat(type_parser *p, char c) {
  tp_skip(p);
  if (p->s[p->i] != c) return false;
  p->i++;
  return true;
}

static size_t tp_word(type_parser *p, char *w, size_t cap) {
  tp_skip(p);
  size_t n = 0;
  while (isalnum((unsigned char)p->s[p->i]) || p->s[p->i] == '_' || p->s[p->i] == '/' || p->s[p->i] == '+' ||
         (n > 0 && p->s[p->i] == '-')) {
    if (n + 1 < cap) w[n++] = p->s[p->i];
    p->i++;
  }
  w[n] = '\0';
  return n;
}

static qv_status tp_fail(type_parser *p, const char *what) {
  return qv_error_set(p->err, QV_ERR_PARSE, "type '%s': expected %s at position %zu", p->text, what, p->i + 1);
}

static bool tp_int(type_parser *p, int32_t *out) {
  tp_skip(p);
  if (!isdigit((unsigned char)p->s[p->i])) return false;
  long v = 0;
  while (isdigit((unsigned char)p->s[p->i]) && v < 1000000) v = v * 10 + (p->s[p->i++] - '0');
  *out = (int32_t)v;
  return true;
}

static bool parse_unit(const char *w, qv_time_unit *u) {
  if (!strcmp(w, "s")) *u = QV_UNIT_SECOND;
  else if (!strcmp(w, "ms")) *u = QV_UNIT_MILLI;
  else if (!strcmp(w, "us")) *u = QV_UNIT_MICRO;
  else if (!strcmp(w, "ns")) *u = QV_UNIT_NANO;
  else return false;
  return true;
}

static qv_status tp_type(type_parser *p, qv_datatype *out);

static qv_status tp_unit_suffix(type_parser *p, qv_datatype *out, bool allow_tz) {
  char w[64];
  if (!tp_eat(p, '[')) return QV_OK; /* default unit (us) */
  tp_word(p, w, sizeof w);
  if (!parse_unit(w, &out->unit)) return tp_fail(p, "a time unit (s, ms, us, ns)");
  if (allow_tz && tp_eat(p, ',')) {
    tp_skip(p);
    size_t start = p->i;
    while (p->s[p->i] && p->s[p->i] != ']') p->i++;
    size_t end = p->i;
    while (end > start && p->s[end - 1] == ' ') end--;
    if (end == start) return tp_fail(p, "a time zone");
    out->timezone = qv_strndup(p->s + start, end - start);
    if (!out->timezone) return qv_error_nomem(p->err, NULL);
  }
  if (!tp_eat(p, ']')) return tp_fail(p, "']'");
  return QV_OK;
}

static qv_status tp_type(type_parser *p, qv_datatype *out) {
  static const struct {
    const char *name;
    qv_type_id id;
  } simple[] = {
      {"null", QV_TYPE_NULL},     {"bool", QV_TYPE_BOOL},       {"boolean", QV_TYPE_BOOL},
      {"int8", QV_TYPE_INT8},     {"int16", QV_TYPE_INT16},     {"int32", QV_TYPE_INT32},
      {"int64", QV_TYPE_INT64},   {"uint8", QV_TYPE_UINT8},     {"uint16", QV_TYPE_UINT16},
      {"uint32", QV_TYPE_UINT32}, {"uint64", QV_TYPE_UINT64},   {"float32", QV_TYPE_FLOAT32},
      {"float", QV_TYPE_FLOAT32}, {"float64", QV_TYPE_FLOAT64}, {"double", QV_TYPE_FLOAT64},
      {"string", QV_TYPE_STRING}, {"utf8", QV_TYPE_STRING},     {"str", QV_TYPE_STRING},
      {"binary", QV_TYPE_BINARY}, {"date32", QV_TYPE_DATE32},   {"date", QV_TYPE_DATE32},
  };
  char w[64];
  if (++p->depth > 64) return tp_fail(p, "a less deeply nested type");
  *out = qv_datatype_simple(QV_TYPE_NULL);
  if (!tp_word(p, w, sizeof w)) return tp_fail(p, "a type name");
  for (char *c = w; *c; c++) *c = (char)tolower((unsigned char)*c);
  for (size_t k = 0; k < sizeof simple / sizeof simple[0]; k++) {
    if (!strcmp(w, simple[k].name)) {
      *out = qv_datatype_simple(simple[k].id);
      p->depth--;
      return QV_OK;
    }
  }
  qv_status st = QV_OK;
  if (!strcmp(w, "decimal") || !strcmp(w, "decimal128")) {
    int32_t prec, scale = 0;
    if (!tp_eat(p, '(') || !tp_int(p, &prec)) return tp_fail(p, "'(precision, scale)'");
    if (tp_eat(p, ',') && !tp_int(p, &scale)) return tp_fail(p, "a scale");
    if (!tp_eat(p, ')')) return tp_fail(p, "')'");
    st = qv_datatype_decimal(prec, scale, out, p->err);
  } else if (!strcmp(w, "timestamp")) {
    *out = qv_datatype_simple(QV_TYPE_TIMESTAMP);
    st = tp_unit_suffix(p, out, true);
  } else if (!strcmp(w, "time64") || !strcmp(w, "time")) {
    *out = qv_datatype_time64(QV_UNIT_MICRO);
    st = tp_unit_suffix(p, out, false);
    if (st == QV_OK && out->unit < QV_UNIT_MICRO) st = tp_fail(p, "time64 unit us or ns");
  } else if (!strcmp(w, "duration")) {
    *out = qv_datatype_duration(QV_UNIT_MICRO);
    st = tp_unit_suffix(p, out, false);
  } else if (!strcmp(w, "list") || !strcmp(w, "fixed_size_list")) {
    bool fixed = w[0] == 'f';
    qv_datatype item;
    if (!tp_eat(p, '<')) return tp_fail(p, "'<'");
    QV_RETURN_NOT_OK(tp_type(p, &item));
    int32_t size = 0;
    if (fixed && (!tp_eat(p, ',') || !tp_int(p, &size))) {
      qv_datatype_reset(&item);
      return tp_fail(p, "', size'");
    }
    if (!tp_eat(p, '>')) {
      qv_datatype_reset(&item);
      return tp_fail(p, "'>'");
    }
    st = fixed ? qv_datatype_fixed_size_list(&item, size, out, p->err) : qv_datatype_list(&item, out, p->err);
    qv_datatype_reset(&item);
  } else if (!strcmp(w, "dictionary")) {
    qv_datatype idx, vals;
    if (!tp_eat(p, '<')) return tp_fail(p, "'<'");
    QV_RETURN_NOT_OK(tp_type(p, &idx));
    if (!tp_eat(p, ',')) {
      qv_datatype_reset(&idx);
      return tp_fail(p, "', values type'");
    }
    if ((st = tp_type(p, &vals)) != QV_OK) {
      qv_datatype_reset(&idx);
      return st;
    }
    if (!tp_eat(p, '>')) st = tp_fail(p, "'>'");
    if (st == QV_OK) st = qv_datatype_dictionary(idx.id, &vals, out, p->err);
    qv_datatype_reset(&idx);
    qv_datatype_reset(&vals);
  } else if (!strcmp(w, "struct")) {
    qv_field fields[256];
    int32_t n = 0;
    if (!tp_eat(p, '<')) return tp_fail(p, "'<'");
    while (!tp_eat(p, '>')) {
      char name[256];
      if (n == 256) {
        st = tp_fail(p, "at most 256 struct fields");
        break;
      }
      if (n > 0 && !tp_eat(p, ',')) {
        st = tp_fail(p, "',' or '>'");
        break;
      }
      if (!tp_word(p, name, sizeof name)) {
        st = tp_fail(p, "a field name");
        break;
      }
      if (!tp_eat(p, ':')) {
        st = tp_fail(p, "':'");
        break;
      }
      qv_datatype ft;
      if ((st = tp_type(p, &ft)) != QV_OK) break;
      fields[n].name = qv_strdup(name);
      fields[n].type = ft;
      fields[n].nullable = true;
      n++;
      if (!fields[n - 1].name) {
        st = qv_error_nomem(p->err, NULL);
        break;
      }
    }
    if (st == QV_OK) st = qv_datatype_struct(fields, n, out, p->err);
    for (int32_t i = 0; i < n; i++) qv_field_reset(&fields[i]);
  } else {
    return qv_error_set(p->err, QV_ERR_PARSE, "type '%s': unknown type name '%s'", p->text, w);
  }
  p->depth--;
  return st;
}

qv_status qv_datatype_parse(const char *text, qv_datatype *out, qv_error *err) {
  type_parser p = {text, 0, 0, err, text};
  qv_status st = tp_type(&p, out);
  if (st == QV_OK) {
    tp_skip(&p);
    if (p.s[p.i] != '\0') st = tp_fail(&p, "end of type");
  }
  if (st != QV_OK) qv_datatype_reset(out);
  return st;
}

/* ---- classification -------------------------------------------------- */

int qv_type_byte_width(qv_type_id id) {
  switch (id) {
    case QV_TYPE_BOOL: return 0;
    case QV_TYPE_INT8:
    case QV_TYPE_UINT8: return 1;
    case QV_TYPE_INT16:
    case QV_TYPE_UINT16: return 2;
    case QV_TYPE_INT32:
    case QV_TYPE_UINT32:
    case QV_TYPE_FLOAT32:
    case QV_TYPE_DATE32: return 4;
    case QV_TYPE_INT64:
    case QV_TYPE_UINT64:
    case QV_TYPE_FLOAT64:
    case QV_TYPE_TIMESTAMP:
    case QV_TYPE_TIME64:
    case QV_TYPE_DURATION: return 8;
    case QV_TYPE_DECIMAL128: return 16;
    default: return -1;
  }
}

bool qv_type_is_integer(qv_type_id id) { return id >= QV_TYPE_INT8 && id <= QV_TYPE_UINT64; }
bool qv_type_is_signed(qv_type_id id) { return id >= QV_TYPE_INT8 && id <= QV_TYPE_INT64; }
bool qv_type_is_floating(qv_type_id id) { return id == QV_TYPE_FLOAT32 || id == QV_TYPE_FLOAT64; }
bool qv_type_is_numeric(qv_type_id id) {
  return qv_type_is_integer(id) || qv_type_is_floating(id) || id == QV_TYPE_DECIMAL128;
}
bool qv_type_is_temporal(qv_type_id id) {
  return id == QV_TYPE_DATE32 || id == QV_TYPE_TIMESTAMP || id == QV_TYPE_TIME64 || id == QV_TYPE_DURATION;
}

/* ---- fields and schemas ---------------------------------------------- */

qv_status qv_field_init(qv_field *f, const char *name, qv_datatype *type, bool nullable, qv_error *err) {
  f->name = qv_strdup(name);
  if (!f->name) return qv_error_nomem(err, NULL);
  f->type = *type;
  *type = qv_datatype_simple(QV_TYPE_NULL);
  f->nullable = nullable;
  return QV_OK;
}

qv_status qv_field_copy(const qv_field *src, qv_field *out) {
  out->nullable = src->nullable;
  out->name = qv_strdup(src->name ? src->name : "");
  if (!out->name) return QV_ERR_NOMEM;
  if (qv_datatype_copy(&src->type, &out->type) != QV_OK) {
    qv_free(out->name);
    out->name = NULL;
    return QV_ERR_NOMEM;
  }
  return QV_OK;
}

void qv_field_reset(qv_field *f) {
  if (!f) return;
  qv_free(f->name);
  f->name = NULL;
  qv_datatype_reset(&f->type);
}

qv_status qv_schema_add(qv_schema *s, const qv_field *field, qv_error *err) {
  qv_field *nf = qv_realloc(s->fields, (size_t)(s->n_fields + 1) * sizeof(qv_field));
  if (!nf) return qv_error_nomem(err, NULL);
  s->fields = nf;
  if (qv_field_copy(field, &s->fields[s->n_fields]) != QV_OK) return qv_error_nomem(err, NULL);
  s->n_fields++;
  return QV_OK;
}

qv_status qv_schema_copy(const qv_schema *src, qv_schema *out) {
  out->n_fields = 0;
  out->fields = NULL;
  if (src->n_fields == 0) return QV_OK;
  out->fields = qv_calloc((size_t)src->n_fields, sizeof(qv_field));
  if (!out->fields) return QV_ERR_NOMEM;
  for (int32_t i = 0; i < src->n_fields; i++) {
    if (qv_field_copy(&src->fields[i], &out->fields[i]) != QV_OK) {
      qv_schema_reset(out);
      return QV_ERR_NOMEM;
    }
    out->n_fields = i + 1;
  }
  return QV_OK;
}

void qv_schema_reset(qv_schema *s) {
  if (!s) return;
  for (int32_t i = 0; i < s->n_fields; i++) qv_field_reset(&s->fields[i]);
  qv_free(s->fields);
  s->fields = NULL;
  s->n_fields = 0;
}

int32_t qv_schema_find(const qv_schema *s, const char *name) {
  for (int32_t i = 0; i < s->n_fields; i++)
    if (strcmp(s->fields[i].name, name) == 0) return i;
  return -1;
}

bool qv_schema_equal(const qv_schema *a, const qv_schema *b) {
  if (a->n_fields != b->n_fields) return false;
  for (int32_t i = 0; i < a->n_fields; i++) {
    if (strcmp(a->fields[i].name, b->fields[i].name) != 0) return false;
    if (!qv_datatype_equal(&a->fields[i].type, &b->fields[i].type)) return false;
  }
  return true;
}
