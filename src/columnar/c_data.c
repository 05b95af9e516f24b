/* The Arrow C Data Interface: exporting qv schemas, arrays, batches and batch
 * readers as ArrowSchema / ArrowArray / ArrowArrayStream, and importing them.
 *
 * Export shares memory: an exported array's private data holds a reference to
 * the qv_array (and so to its buffers) until the consumer releases it.
 * Import shares memory too: the moved ArrowArray is kept by one reference-
 * counted owner, and every imported buffer is a qv_bytes view holding a
 * reference to that owner, so the producer's release runs when the last
 * quiver array using its memory goes away.
 *
 * With QV_EXPORT_STRING_VIEW strings and binary export as string_view /
 * binary_view: a 16-byte view per row (the bytes inline up to 12, else a
 * prefix and the offset into quiver's own data buffer, shared as the one
 * variadic buffer), which Polars keeps as is where it copies utf8 arrays
 * into its own view layout.
 *
 * Dictionary-encoded arrays are decoded on import, and large_* / *_view
 * layouts (what Polars exports) converted to quiver's int32 offsets.  Both
 * need facts only the ArrowSchema holds (the index width; 64-bit offsets), so
 * qv_import_stream, which keeps the schema, handles them; the schema-less
 * qv_import_array / qv_import_batch refuse a dictionary array, and
 * qv_import_schema / qv_import_field refuse large and view formats, rather
 * than guess. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/ipc_int.h"

/* ---- export: schemas ----------------------------------------------------- */

typedef struct schema_priv {
  char *format, *name;
  struct ArrowSchema **child_ptrs;
  struct ArrowSchema *children;
} schema_priv;

static void release_schema(struct ArrowSchema *s) {
  schema_priv *p = s->private_data;
  for (int64_t i = 0; i < s->n_children; i++)
    if (p->child_ptrs[i]->release) p->child_ptrs[i]->release(p->child_ptrs[i]);
  qv_free(p->children);
  qv_free(p->child_ptrs);
  qv_free(p->format);
  qv_free(p->name);
  qv_free(p);
  s->release = NULL;
}

static char unit_char(qv_time_unit u) { return "smun"[u & 3]; }

static char *type_format(const qv_datatype *t, uint32_t flags) {
  char buf[300];
  switch (t->id) {
    case QV_TYPE_NULL: return qv_strdup("n");
    case QV_TYPE_BOOL: return qv_strdup("b");
    case QV_TYPE_INT8: return qv_strdup("c");
    case QV_TYPE_UINT8: return qv_strdup("C");
    case QV_TYPE_INT16: return qv_strdup("s");
    case QV_TYPE_UINT16: return qv_strdup("S");
    case QV_TYPE_INT32: return qv_strdup("i");
    case QV_TYPE_UINT32: return qv_strdup("I");
    case QV_TYPE_INT64: return qv_strdup("l");
    case QV_TYPE_UINT64: return qv_strdup("L");
    case QV_TYPE_FLOAT32: return qv_strdup("f");
    case QV_TYPE_FLOAT64: return qv_strdup("g");
    case QV_TYPE_STRING: return qv_strdup(flags & QV_EXPORT_STRING_VIEW ? "vu" : "u");
    case QV_TYPE_BINARY: return qv_strdup(flags & QV_EXPORT_STRING_VIEW ? "vz" : "z");
    case QV_TYPE_DATE32: return qv_strdup("tdD");
    case QV_TYPE_LIST: return qv_strdup("+l");
    case QV_TYPE_STRUCT: return qv_strdup("+s");
    case QV_TYPE_DECIMAL128: snprintf(buf, sizeof buf, "d:%d,%d", t->precision, t->scale); break;
    case QV_TYPE_TIME64: snprintf(buf, sizeof buf, "tt%c", unit_char(t->unit)); break;
    case QV_TYPE_DURATION: snprintf(buf, sizeof buf, "tD%c", unit_char(t->unit)); break;
    case QV_TYPE_FIXED_SIZE_LIST: snprintf(buf, sizeof buf, "+w:%d", t->list_size); break;
    case QV_TYPE_TIMESTAMP: {
      size_t tz = t->timezone ? strlen(t->timezone) : 0;
      char *s = qv_malloc(tz + 5);
      if (s) snprintf(s, tz + 5, "ts%c:%s", unit_char(t->unit), t->timezone ? t->timezone : "");
      return s;
    }
    default: return NULL;
  }
  return qv_strdup(buf);
}

static qv_status export_field(const qv_field *f, const char *name, const qv_datatype *t, int64_t flags, uint32_t xflags,
                              struct ArrowSchema *out, int depth, qv_error *err) {
  memset(out, 0, sizeof *out);
  if (depth > QV_IPC_MAX_DEPTH) return qv_error_set(err, QV_ERR_INVALID, "export: type nested too deeply");
  schema_priv *p = qv_calloc(1, sizeof *p);
  if (!p) return qv_error_nomem(err, NULL);
  out->private_data = p;
  out->release = release_schema;
  p->format = type_format(t, xflags);
  p->name = qv_strdup(name ? name : "");
  if (!p->format || !p->name) {
    release_schema(out);
    if ((unsigned)t->id > QV_TYPE_FIXED_SIZE_LIST)
      return qv_error_set(err, QV_ERR_INVALID, "export: unknown type %d", (int)t->id);
    return qv_error_nomem(err, NULL);
  }
  out->format = p->format;
  out->name = p->name;
  out->flags = flags;
  (void)f;
  int32_t n = t->n_children;
  if (n > 0) {
    p->child_ptrs = qv_calloc((size_t)n, sizeof *p->child_ptrs);
    p->children = qv_calloc((size_t)n, sizeof *p->children);
    if (!p->child_ptrs || !p->children) {
      release_schema(out);
      return qv_error_nomem(err, NULL);
    }
    out->children = p->child_ptrs;
    out->n_children = n; /* children not yet filled have release == NULL */
    for (int32_t i = 0; i < n; i++) {
      const qv_field *c = &t->children[i];
      p->child_ptrs[i] = &p->children[i];
      qv_status st = export_field(c, c->name, &c->type, c->nullable ? ARROW_FLAG_NULLABLE : 0, xflags, &p->children[i],
                                  depth + 1, err);
      if (st != QV_OK) {
        release_schema(out);
        return st;
      }
    }
  }
  return QV_OK;
}

qv_status qv_export_field(const qv_field *field, struct ArrowSchema *out, qv_error *err) {
  if (!field || !out) return qv_error_set(err, QV_ERR_INVALID, "export: no field");
  return export_field(field, field->name, &field->type, field->nullable ? ARROW_FLAG_NULLABLE : 0, 0, out, 0, err);
}

qv_status qv_export_schema_with(const qv_schema *schema, uint32_t flags, struct ArrowSchema *out, qv_error *err) {
  if (!schema || !out) return qv_error_set(err, QV_ERR_INVALID, "export: no schema");
  /* A schema exports as a non-nullable struct of its fields. */
  qv_datatype st = qv_datatype_simple(QV_TYPE_STRUCT);
  st.n_children = schema->n_fields;
  st.children = schema->fields;
  return export_field(NULL, "", &st, 0, flags, out, 0, err);
}

qv_status qv_export_schema(const qv_schema *schema, struct ArrowSchema *out, qv_error *err) {
  return qv_export_schema_with(schema, 0, out, err);
}

/* ---- export: arrays ------------------------------------------------------ */

typedef struct array_priv {
  qv_array *array; /* one of these two holds the reference */
  qv_batch *batch;
  const void *buffers[4];
  uint8_t *views;     /* QV_EXPORT_STRING_VIEW: the views (16 bytes a row) */
  int64_t *data_size; /* ... and the variadic buffer sizes (one buffer) */
  struct ArrowArray **child_ptrs;
  struct ArrowArray *children;
} array_priv;

static void release_array(struct ArrowArray *a) {
  array_priv *p = a->private_data;
  for (int64_t i = 0; i < a->n_children; i++)
    if (p->child_ptrs[i]->release) p->child_ptrs[i]->release(p->child_ptrs[i]);
  qv_free(p->children);
  qv_free(p->child_ptrs);
  qv_array_release(p->array);
  qv_batch_release(p->batch);
  qv_free(p->views);
  qv_free(p->data_size);
  qv_free(p);
  a->release = NULL;
}

static qv_status export_array(qv_array *arr, struct ArrowArray *out, int depth, uint32_t flags, qv_error *err);

/* Allocates private data and n children; children are filled by the caller. */
static qv_status export_begin(struct ArrowArray *out, int32_t n, array_priv **pp, qv_error *err) {
  memset(out, 0, sizeof *out);
  array_priv *p = qv_calloc(1, sizeof *p);
  if (!p) return qv_error_nomem(err, NULL);
  out->private_data = p;
  out->release = release_array;
  out->buffers = p->buffers;
  if (n > 0) {
    p->child_ptrs = qv_calloc((size_t)n, sizeof *p->child_ptrs);
    p->children = qv_calloc((size_t)n, sizeof *p->children);
    if (!p->child_ptrs || !p->children) {
      release_array(out);
      return qv_error_nomem(err, NULL);
    }
    for (int32_t i = 0; i < n; i++) p->child_ptrs[i] = &p->children[i];
    out->children = p->child_ptrs;
    out->n_children = n;
  }
  *pp = p;
  return QV_OK;
}

/* The string_view layout of a string or binary array: buffers validity,
 * views, data (when there is any), variadic sizes.  Views cover the rows
 * from 0, so the array's offset and validity bitmap export unchanged. */
static qv_status export_views(const qv_array *arr, array_priv *p, struct ArrowArray *out, qv_error *err) {
  int64_t n = arr->offset + arr->length;
  const int32_t *off = n && arr->buffers[1] ? (const int32_t *)arr->buffers[1]->data : NULL;
  const uint8_t *data = arr->buffers[2] ? arr->buffers[2]->data : NULL;
  p->views = qv_malloc((size_t)(n > 0 ? n : 1) * 16);
  p->data_size = qv_malloc(sizeof *p->data_size);
  if (!p->views || !p->data_size) return qv_error_nomem(err, NULL);
  for (int64_t i = 0; i < n; i++) {
    uint8_t *v = p->views + 16 * i;
    int32_t start = off[i], len = off[i + 1] - start;
    memset(v, 0, 16);
    qv_store_u32le(v, (uint32_t)len);
    if (len <= 12) {
      if (len) memcpy(v + 4, data + start, (size_t)len);
    } else {
      memcpy(v + 4, data + start, 4); /* bytes 8..11 stay 0: variadic buffer 0, quiver's data buffer */
      qv_store_u32le(v + 12, (uint32_t)start);
    }
  }
  p->data_size[0] = off ? off[n] : 0;
  p->buffers[1] = p->views;
  if (data) {
    p->buffers[2] = data;
    p->buffers[3] = p->data_size;
    out->n_buffers = 4;
  } else {
    p->buffers[2] = p->data_size;
    p->data_size[0] = 0;
    out->n_buffers = 3; /* no variadic buffer: every view is inline */
  }
  return QV_OK;
}

static qv_status export_array(qv_array *arr, struct ArrowArray *out, int depth, uint32_t flags, qv_error *err) {
  array_priv *p;
  if (depth > QV_IPC_MAX_DEPTH) return qv_error_set(err, QV_ERR_INVALID, "export: array nested too deeply");
  if ((unsigned)arr->type.id > QV_TYPE_FIXED_SIZE_LIST)
    return qv_error_set(err, QV_ERR_INVALID, "export: unknown type %d", (int)arr->type.id);
  QV_RETURN_NOT_OK(export_begin(out, arr->n_children, &p, err));
  p->array = qv_array_retain(arr);
  out->length = arr->length;
  out->offset = arr->offset;
  out->null_count = arr->buffers[0] ? arr->null_count : 0;
  switch (arr->type.id) {
    case QV_TYPE_NULL:
      out->n_buffers = 0;
      out->null_count = arr->length;
      break;
    case QV_TYPE_STRUCT:
    case QV_TYPE_FIXED_SIZE_LIST: out->n_buffers = 1; break;
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: out->n_buffers = 3; break;
    default: out->n_buffers = 2; break;
  }
  for (int64_t i = 0; i < out->n_buffers; i++) p->buffers[i] = arr->buffers[i] ? arr->buffers[i]->data : NULL;
  if ((flags & QV_EXPORT_STRING_VIEW) && (arr->type.id == QV_TYPE_STRING || arr->type.id == QV_TYPE_BINARY)) {
    qv_status st = export_views(arr, p, out, err);
    if (st != QV_OK) {
      release_array(out);
      return st;
    }
  }
  for (int32_t i = 0; i < arr->n_children; i++) {
    qv_status st = export_array(arr->children[i], &p->children[i], depth + 1, flags, err);
    if (st != QV_OK) {
      release_array(out);
      return st;
    }
  }
  return QV_OK;
}

qv_status qv_export_array(qv_array *array, struct ArrowArray *out, qv_error *err) {
  if (!array || !out) return qv_error_set(err, QV_ERR_INVALID, "export: no array");
  return export_array(array, out, 0, 0, err);
}

qv_status qv_export_batch_with(qv_batch *batch, uint32_t flags, struct ArrowArray *out, qv_error *err) {
  if (!batch || !out) return qv_error_set(err, QV_ERR_INVALID, "export: no batch");
  array_priv *p;
  int32_t n = batch->schema.n_fields;
  QV_RETURN_NOT_OK(export_begin(out, n, &p, err));
  p->batch = qv_batch_retain(batch);
  out->length = batch->num_rows;
  out->n_buffers = 1; /* a struct without a validity bitmap */
  for (int32_t i = 0; i < n; i++) {
    qv_status st = export_array(batch->columns[i], &p->children[i], 1, flags, err);
    if (st != QV_OK) {
      release_array(out);
      return st;
    }
  }
  return QV_OK;
}

qv_status qv_export_batch(qv_batch *batch, struct ArrowArray *out, qv_error *err) {
  return qv_export_batch_with(batch, 0, out, err);
}

/* ---- export: streams ----------------------------------------------------- */

typedef struct stream_priv {
  qv_batch_reader *reader;
  uint32_t flags;
  char error[1024];
} stream_priv;

static int errno_of(qv_status st) {
  switch (st) {
    case QV_OK: return 0;
    case QV_ERR_NOMEM: return ENOMEM;
    case QV_ERR_INVALID:
    case QV_ERR_TYPE: return EINVAL;
    case QV_ERR_UNSUPPORTED: return ENOSYS;
    default: return EIO;
  }
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  stream_priv *p = s->private_data;
  qv_error e;
  qv_status st = qv_export_schema_with(p->reader->schema(p->reader), p->flags, out, &e);
  if (st != QV_OK) snprintf(p->error, sizeof p->error, "%s", e.message);
  return errno_of(st);
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  stream_priv *p = s->private_data;
  qv_error e;
  qv_batch *b = NULL;
  memset(out, 0, sizeof *out); /* release == NULL: the end of the stream */
  qv_status st = p->reader->next(p->reader, &b, &e);
  if (st == QV_OK && b) {
    st = qv_export_batch_with(b, p->flags, out, &e);
    qv_batch_release(b);
  }
  if (st != QV_OK) snprintf(p->error, sizeof p->error, "%s", e.message);
  return errno_of(st);
}

static const char *stream_last_error(struct ArrowArrayStream *s) {
  stream_priv *p = s->private_data;
  return p->error[0] ? p->error : NULL;
}

static void stream_release(struct ArrowArrayStream *s) {
  stream_priv *p = s->private_data;
  qv_batch_reader_destroy(p->reader);
  qv_free(p);
  s->release = NULL;
}

qv_status qv_export_stream(qv_batch_reader *reader, struct ArrowArrayStream *out, qv_error *err) {
  return qv_export_stream_with(reader, 0, out, err);
}

qv_status qv_export_stream_with(qv_batch_reader *reader, uint32_t flags, struct ArrowArrayStream *out, qv_error *err) {
  if (!reader || !out) {
    qv_batch_reader_destroy(reader);
    return qv_error_set(err, QV_ERR_INVALID, "export: no reader");
  }
  stream_priv *p = qv_calloc(1, sizeof *p);
  if (!p) {
    qv_batch_reader_destroy(reader); /* ownership was taken either way */
    return qv_error_nomem(err, NULL);
  }
  p->reader = reader;
  p->flags = flags;
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_last_error;
  out->release = stream_release;
  out->private_data = p;
  return QV_OK;
}

/* ---- import: types ------------------------------------------------------- */

/* What an ArrowSchema says that a qv_datatype cannot: which (nested) fields
 * arrive dictionary-encoded, with which index type. */
typedef struct imp_info {
  bool dict;
  qv_type_id index;
  qvc_phys phys; /* large_* or *_view layout, converted on import */
  int32_t n_children;
  struct imp_info *children;
} imp_info;

static void info_free(imp_info *info, int32_t n) {
  if (!info) return;
  for (int32_t i = 0; i < n; i++) info_free(info[i].children, info[i].n_children);
  qv_free(info);
}

static qv_status unsupported_format(const char *fmt, qv_error *err) {
  return qv_error_set(err, QV_ERR_UNSUPPORTED, "import: Arrow format '%s' is not supported", fmt);
}

static bool parse_int(const char **s, int32_t *out) {
  const char *p = *s;
  char *end;
  long v = strtol(p, &end, 10);
  if (end == p || v < INT32_MIN || v > INT32_MAX) return false;
  *out = (int32_t)v;
  *s = end;
  return true;
}

static bool parse_unit(char c, qv_time_unit *u) {
  switch (c) {
    case 's': *u = QV_UNIT_SECOND; return true;
    case 'm': *u = QV_UNIT_MILLI; return true;
    case 'u': *u = QV_UNIT_MICRO; return true;
    case 'n': *u = QV_UNIT_NANO; return true;
    default: return false;
  }
}

/* The childless part of a type from its format string; *phys says whether
 * the layout is quiver's own or a large/view variant converted on import. */
static qv_status parse_format(const char *f, qv_datatype *t, qvc_phys *phys, qv_error *err) {
  static const struct {
    const char *fmt;
    qv_type_id id;
    qvc_phys phys;
  } foreign[] = {{"U", QV_TYPE_STRING, QV_PHYS_LARGE},
                 {"Z", QV_TYPE_BINARY, QV_PHYS_LARGE},
                 {"+L", QV_TYPE_LIST, QV_PHYS_LARGE},
                 {"vu", QV_TYPE_STRING, QV_PHYS_VIEW},
                 {"vz", QV_TYPE_BINARY, QV_PHYS_VIEW}};
  *phys = QV_PHYS_PLAIN;
  for (size_t i = 0; f && i < sizeof foreign / sizeof foreign[0]; i++)
    if (strcmp(f, foreign[i].fmt) == 0) {
      *t = qv_datatype_simple(foreign[i].id);
      *phys = foreign[i].phys;
      return QV_OK;
    }
  static const struct {
    const char *fmt;
    qv_type_id id;
  } simple[] = {{"n", QV_TYPE_NULL},   {"b", QV_TYPE_BOOL},   {"c", QV_TYPE_INT8},     {"C", QV_TYPE_UINT8},
                {"s", QV_TYPE_INT16},  {"S", QV_TYPE_UINT16}, {"i", QV_TYPE_INT32},    {"I", QV_TYPE_UINT32},
                {"l", QV_TYPE_INT64},  {"L", QV_TYPE_UINT64}, {"f", QV_TYPE_FLOAT32},  {"g", QV_TYPE_FLOAT64},
                {"u", QV_TYPE_STRING}, {"z", QV_TYPE_BINARY}, {"tdD", QV_TYPE_DATE32}, {"+l", QV_TYPE_LIST},
                {"+s", QV_TYPE_STRUCT}};
  if (!f) return qv_error_set(err, QV_ERR_INVALID, "import: schema has no format");
  for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
    if (strcmp(f, simple[i].fmt) == 0) {
      *t = qv_datatype_simple(simple[i].id);
      return QV_OK;
    }
  qv_time_unit u;
  if (f[0] == 'd' && f[1] == ':') {
    const char *p = f + 2;
    int32_t prec, scale, bits = 128;
    if (!parse_int(&p, &prec) || *p++ != ',' || !parse_int(&p, &scale)) return unsupported_format(f, err);
    if (*p == ',' && (p++, !parse_int(&p, &bits))) return unsupported_format(f, err);
    if (*p != '\0' || bits != 128) return unsupported_format(f, err);
    qv_error sub;
    if (qv_datatype_decimal(prec, scale, t, &sub) != QV_OK)
      return qv_error_set(err, QV_ERR_UNSUPPORTED, "import: format '%s': %s", f, sub.message);
    return QV_OK;
  }
  if (strncmp(f, "ts", 2) == 0 && f[2] && parse_unit(f[2], &u) && f[3] == ':')
    return qv_datatype_timestamp(u, f[4] ? f + 4 : NULL, t, err);
  if (strncmp(f, "tt", 2) == 0 && (f[2] == 'u' || f[2] == 'n') && f[3] == '\0' && parse_unit(f[2], &u)) {
    *t = qv_datatype_time64(u);
    return QV_OK;
  }
  if (strncmp(f, "tD", 2) == 0 && f[2] && parse_unit(f[2], &u) && f[3] == '\0') {
    *t = qv_datatype_duration(u);
    return QV_OK;
  }
  if (strncmp(f, "+w:", 3) == 0) {
    const char *p = f + 3;
    int32_t n;
    if (!parse_int(&p, &n) || *p != '\0' || n < 0) return unsupported_format(f, err);
    *t = qv_datatype_simple(QV_TYPE_FIXED_SIZE_LIST);
    t->list_size = n;
    return QV_OK;
  }
  return unsupported_format(f, err);
}

/* Imports schema s as field out (in place) and its dictionary / layout info.
 * Layouts that need the info to be read (large_*, *_view) are accepted only
 * when the caller keeps it (`keeps_info`: the stream importer); the
 * schema-only entry points refuse them rather than let a later
 * qv_import_array misread 64-bit offsets as 32-bit ones. */
static qv_status import_field(const struct ArrowSchema *s, qv_field *out, imp_info *info, bool keeps_info, int depth,
                              qv_error *err) {
  if (depth > QV_IPC_MAX_DEPTH) return qv_error_set(err, QV_ERR_UNSUPPORTED, "import: schema nested too deeply");
  if (!s || !s->release) return qv_error_set(err, QV_ERR_INVALID, "import: schema is released or missing");
  out->name = qv_strdup(s->name ? s->name : "");
  if (!out->name) return qv_error_nomem(err, NULL);
  out->nullable = (s->flags & ARROW_FLAG_NULLABLE) != 0;
  const struct ArrowSchema *vs = s; /* the schema describing the values */
  if (s->dictionary) {
    qv_datatype it;
    qvc_phys iphys;
    QV_RETURN_NOT_OK(parse_format(s->format, &it, &iphys, err));
    if (!qv_type_is_integer(it.id))
      return qv_error_set(err, QV_ERR_INVALID, "import: field '%s' has dictionary indices of format '%s'", out->name,
                          s->format);
    info->dict = true;
    info->index = it.id;
    vs = s->dictionary;
    if (!vs->release)
      return qv_error_set(err, QV_ERR_INVALID, "import: field '%s' has a released dictionary", out->name);
  }
  qv_status st = parse_format(vs->format, &out->type, &info->phys, err);
  if (st != QV_OK) return qv_error_prefix(err, st, "field '%s'", out->name);
  if (info->phys != QV_PHYS_PLAIN && !keeps_info)
    return qv_error_set(err, QV_ERR_UNSUPPORTED,
                        "import: field '%s' has format '%s', which quiver converts only when imported through "
                        "qv_import_stream",
                        out->name, vs->format);
  qv_type_id id = out->type.id;
  int64_t n = vs->n_children;
  bool nested = id == QV_TYPE_LIST || id == QV_TYPE_FIXED_SIZE_LIST || id == QV_TYPE_STRUCT;
  if (n < 0 || n > INT32_MAX / 2 || (nested && id != QV_TYPE_STRUCT && n != 1) || (!nested && n != 0))
    return qv_error_set(err, QV_ERR_INVALID, "import: field '%s' of format '%s' has %lld children", out->name,
                        vs->format, (long long)n);
  if (n == 0) return QV_OK;
  out->type.children = qv_calloc((size_t)n, sizeof(qv_field));
  if (out->type.children) out->type.n_children = (int32_t)n;
  info->children = qv_calloc((size_t)n, sizeof(imp_info));
  if (info->children) info->n_children = (int32_t)n;
  if (!out->type.children || !info->children) return qv_error_nomem(err, NULL);
  for (int64_t i = 0; i < n; i++)
    QV_RETURN_NOT_OK(
        import_field(vs->children[i], &out->type.children[i], &info->children[i], keeps_info, depth + 1, err));
  return QV_OK;
}

/* The consumer owns a moved-in schema; we copied what we need, so release it. */
static void consume_schema(struct ArrowSchema *s) {
  if (s->release) s->release(s);
  s->release = NULL;
}

qv_status qv_import_field(struct ArrowSchema *schema, qv_field *out, qv_error *err) {
  imp_info info;
  qv_field f;
  memset(&info, 0, sizeof info);
  memset(&f, 0, sizeof f);
  if (!schema || !out) return qv_error_set(err, QV_ERR_INVALID, "import: no schema");
  qv_status st = import_field(schema, &f, &info, false, 0, err);
  info_free(info.children, info.n_children);
  if (st != QV_OK) {
    qv_field_reset(&f);
    return st;
  }
  consume_schema(schema);
  *out = f;
  return QV_OK;
}

/* A struct schema as a qv_schema plus dictionary info (one per field). */
static qv_status import_schema_info(const struct ArrowSchema *schema, qv_schema *out, imp_info **info_out,
                                    bool keeps_info, qv_error *err) {
  qv_schema s = QV_SCHEMA_INIT;
  imp_info *info = NULL;
  qv_status st = QV_OK;
  if (!schema || !schema->release) return qv_error_set(err, QV_ERR_INVALID, "import: schema is released or missing");
  if (!schema->format || strcmp(schema->format, "+s") != 0 || schema->dictionary)
    return qv_error_set(err, QV_ERR_INVALID, "import: a schema must be a struct ('+s'), not '%s'",
                        schema->format ? schema->format : "(null)");
  int64_t n = schema->n_children;
  if (n < 0 || n > INT32_MAX / 2)
    return qv_error_set(err, QV_ERR_INVALID, "import: schema has %lld fields", (long long)n);
  if (n > 0) {
    s.fields = qv_calloc((size_t)n, sizeof(qv_field));
    info = qv_calloc((size_t)n, sizeof(imp_info));
    if (!s.fields || !info) {
      qv_free(s.fields);
      qv_free(info);
      return qv_error_nomem(err, NULL);
    }
    s.n_fields = (int32_t)n;
    for (int64_t i = 0; i < n && st == QV_OK; i++)
      st = import_field(schema->children[i], &s.fields[i], &info[i], keeps_info, 0, err);
  }
  if (st != QV_OK) {
    info_free(info, s.n_fields);
    qv_schema_reset(&s);
    return st;
  }
  *out = s;
  *info_out = info;
  return QV_OK;
}

qv_status qv_import_schema(struct ArrowSchema *schema, qv_schema *out, qv_error *err) {
  imp_info *info = NULL;
  if (!out) return qv_error_set(err, QV_ERR_INVALID, "import: no output schema");
  QV_RETURN_NOT_OK(import_schema_info(schema, out, &info, false, err));
  info_free(info, out->n_fields);
  consume_schema(schema);
  return QV_OK;
}

/* ---- import: arrays ------------------------------------------------------ */

/* The owner of a moved ArrowArray: a qv_bytes (no data of its own) whose
 * release calls the producer's release.  Until `armed`, the input still
 * belongs to the caller (the import may yet fail) and is not released. */
typedef struct owner_priv {
  struct ArrowArray array;
  bool armed;
} owner_priv;

static void owner_release(qv_bytes *b) {
  owner_priv *p = b->private_data;
  if (p->armed && p->array.release) p->array.release(&p->array);
  qv_free(p);
  qv_free(b);
}

static qv_bytes *owner_new(const struct ArrowArray *a) {
  qv_bytes *b = qv_calloc(1, sizeof *b);
  owner_priv *p = qv_calloc(1, sizeof *p);
  if (!b || !p) {
    qv_free(b);
    qv_free(p);
    return NULL;
  }
  p->array = *a;
  b->refcount = 1;
  b->release = owner_release;
  b->private_data = p;
  return b;
}

/* Wraps buffer i of a (size bytes) as a view holding the owner. */
static qv_status wrap(qv_bytes *owner, const struct ArrowArray *a, int i, int64_t size, qv_bytes **out, qv_error *err) {
  const uint8_t *data = a->buffers ? a->buffers[i] : NULL;
  if (!data && size > 0)
    return qv_error_set(err, QV_ERR_INVALID, "import: buffer %d is NULL but needs %lld bytes", i, (long long)size);
  *out = qv_bytes_view(owner, data, size);
  return *out ? QV_OK : qv_error_nomem(err, NULL);
}

static int64_t n_buffers_of(qv_type_id id) {
  switch (id) {
    case QV_TYPE_NULL: return 0;
    case QV_TYPE_STRUCT:
    case QV_TYPE_FIXED_SIZE_LIST: return 1;
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: return 3;
    default: return 2;
  }
}

static qv_status import_node(qv_bytes *owner, const struct ArrowArray *a, const qv_datatype *type, const imp_info *info,
                             int depth, qv_array **out, qv_error *err);

/* large_string / large_binary / large_list and string_view / binary_view:
 * converted to quiver's layout as a fresh array with offset 0.  String bytes
 * of large types are still shared (a view); views are copied. */
static qv_status import_foreign(qv_bytes *owner, const struct ArrowArray *a, const qv_datatype *type,
                                const imp_info *info, int depth, qv_array **out, qv_error *err) {
  bool view = info->phys == QV_PHYS_VIEW, list = type->id == QV_TYPE_LIST;
  int64_t min_buffers = view ? 3 : list ? 2 : 3;
  if ((view ? a->n_buffers < min_buffers : a->n_buffers != min_buffers) || a->n_children != type->n_children ||
      !a->buffers)
    return qv_error_set(
        err, QV_ERR_INVALID, "import: array has %lld buffers and %lld children, its layout needs %s%lld",
        (long long)a->n_buffers, (long long)a->n_children, view ? "at least " : "", (long long)min_buffers);
  qv_array *r = qvc_array_new(type, a->length), *child = NULL;
  int64_t *sizes = NULL;
  qv_status st = QV_OK;
  if (!r || qvc_array_alloc_children(r, type->n_children) != QV_OK) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  const uint8_t *bits = a->null_count != 0 ? a->buffers[0] : NULL;
  if (bits) {
    if ((st = qvc_bitmap_rebase(bits, a->offset, a->length, &r->buffers[0], err)) != QV_OK) goto cleanup;
    r->null_count = a->length - qv_bitmap_count(r->buffers[0]->data, 0, a->length);
    if (r->null_count == 0) {
      qv_bytes_release(r->buffers[0]);
      r->buffers[0] = NULL;
    }
  }
  if (view) {
    int64_t n_var = a->n_buffers - 3;
    sizes = qv_malloc(n_var > 0 ? (size_t)n_var * 8 : 1);
    if (!sizes) {
      st = qv_error_nomem(err, NULL);
      goto cleanup;
    }
    if (n_var > 0) memcpy(sizes, a->buffers[a->n_buffers - 1], (size_t)n_var * 8);
    st = qvc_views_materialize(a->buffers[1], a->offset, a->length, bits, (const uint8_t *const *)a->buffers + 2, sizes,
                               n_var, &r->buffers[1], &r->buffers[2], "import", err);
    goto cleanup;
  }
  int64_t first = 0, last = 0;
  if (!a->buffers[1] && a->length == 0) {
    if (!(r->buffers[1] = qv_bytes_alloc(4))) st = qv_error_nomem(err, NULL);
  } else {
    st = qvc_offsets_narrow(a->buffers[1], a->offset, a->length, -1, &r->buffers[1], &first, &last, "import", err);
  }
  if (st != QV_OK) goto cleanup;
  if (!list) {
    const uint8_t *data = a->buffers[2];
    if (!data && last > first) {
      st = qv_error_set(err, QV_ERR_INVALID, "import: string data buffer is NULL");
      goto cleanup;
    }
    if (!(r->buffers[2] = qv_bytes_view(owner, data ? data + first : NULL, last - first)))
      st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  if (!a->children || !a->children[0]) {
    st = qv_error_set(err, QV_ERR_INVALID, "import: list child is missing");
    goto cleanup;
  }
  st = import_node(owner, a->children[0], &type->children[0].type, &info->children[0], depth + 1, &child, err);
  if (st == QV_OK && last > child->length)
    st = qv_error_set(err, QV_ERR_INVALID, "import: large_list offsets run past its child");
  if (st == QV_OK) st = qv_array_slice(child, first, last - first, &r->children[0], err);
cleanup:
  qv_free(sizes);
  qv_array_release(child);
  if (st != QV_OK) {
    qv_array_release(r);
    return st;
  }
  *out = r;
  return QV_OK;
}

static qv_status import_plain(qv_bytes *owner, const struct ArrowArray *a, const qv_datatype *type,
                              const imp_info *info, int depth, qv_array **out, qv_error *err) {
  if (a->length < 0 || a->offset < 0 || a->length > INT64_MAX / 16 - a->offset)
    return qv_error_set(err, QV_ERR_INVALID, "import: length %lld / offset %lld", (long long)a->length,
                        (long long)a->offset);
  if (info && info->phys != QV_PHYS_PLAIN) return import_foreign(owner, a, type, info, depth, out, err);
  if (a->n_buffers > 0 && !a->buffers) return qv_error_set(err, QV_ERR_INVALID, "import: array has no buffer list");
  if (a->n_buffers != n_buffers_of(type->id) || a->n_children != type->n_children)
    return qv_error_set(
        err, QV_ERR_INVALID, "import: array has %lld buffers and %lld children, its type needs %lld and %d",
        (long long)a->n_buffers, (long long)a->n_children, (long long)n_buffers_of(type->id), type->n_children);
  int64_t end = a->offset + a->length;
  qv_array *r = qvc_array_new(type, a->length);
  if (!r || qvc_array_alloc_children(r, type->n_children) != QV_OK) {
    qv_array_release(r);
    return qv_error_nomem(err, NULL);
  }
  r->offset = a->offset;
  qv_status st = QV_OK;
  if (type->id == QV_TYPE_NULL) { /* quiver keeps an all-zero bitmap for nulls */
    r->null_count = a->length;
    if (!(r->buffers[0] = qv_bytes_alloc(qv_bitmap_bytes(end)))) st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  const uint8_t *bits = a->buffers ? a->buffers[0] : NULL;
  if (bits && a->null_count != 0) {
    if ((st = wrap(owner, a, 0, qv_bitmap_bytes(end), &r->buffers[0], err)) != QV_OK) goto cleanup;
    r->null_count = a->length - qv_bitmap_count(r->buffers[0]->data, a->offset, a->length);
    if (r->null_count == 0) {
      qv_bytes_release(r->buffers[0]);
      r->buffers[0] = NULL;
    }
  } else if (a->null_count > 0) {
    st = qv_error_set(err, QV_ERR_INVALID, "import: %lld nulls but no validity bitmap", (long long)a->null_count);
    goto cleanup;
  }
  int w = qv_type_byte_width(type->id);
  switch (type->id) {
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY:
    case QV_TYPE_LIST: {
      if (!a->buffers[1] && end == 0) {
        if (!(r->buffers[1] = qv_bytes_alloc(4))) st = qv_error_nomem(err, NULL);
      } else {
        st = wrap(owner, a, 1, (end + 1) * 4, &r->buffers[1], err);
      }
      if (st != QV_OK) goto cleanup;
      if (type->id != QV_TYPE_LIST) {
        int32_t last = ((const int32_t *)r->buffers[1]->data)[end];
        if (last < 0) {
          st = qv_error_set(err, QV_ERR_INVALID, "import: negative string offset %d", last);
          goto cleanup;
        }
        st = wrap(owner, a, 2, last, &r->buffers[2], err);
        goto cleanup;
      }
      break;
    }
    case QV_TYPE_STRUCT:
    case QV_TYPE_FIXED_SIZE_LIST: break;
    default: st = wrap(owner, a, 1, w == 0 ? qv_bitmap_bytes(end) : end * w, &r->buffers[1], err); goto cleanup;
  }
  for (int32_t i = 0; i < type->n_children && st == QV_OK; i++) {
    if (!a->children || !a->children[i]) {
      st = qv_error_set(err, QV_ERR_INVALID, "import: child %d is missing", i);
      break;
    }
    st = import_node(owner, a->children[i], &type->children[i].type, info ? &info->children[i] : NULL, depth + 1,
                     &r->children[i], err);
  }
cleanup:
  if (st != QV_OK) {
    qv_array_release(r);
    return st;
  }
  *out = r;
  return QV_OK;
}

static qv_status import_node(qv_bytes *owner, const struct ArrowArray *a, const qv_datatype *type, const imp_info *info,
                             int depth, qv_array **out, qv_error *err) {
  if (depth > QV_IPC_MAX_DEPTH) return qv_error_set(err, QV_ERR_UNSUPPORTED, "import: array nested too deeply");
  if (!a->dictionary) {
    if (info && info->dict)
      return qv_error_set(err, QV_ERR_INVALID, "import: schema says dictionary-encoded, the array has no dictionary");
    return import_plain(owner, a, type, info, depth, out, err);
  }
  if (!info || !info->dict)
    return qv_error_set(err, QV_ERR_UNSUPPORTED,
                        "import: a dictionary-encoded array needs its ArrowSchema (for the index type); import it "
                        "through qv_import_stream");
  qv_datatype it = qv_datatype_simple(info->index);
  qv_array *idx = NULL, *values = NULL;
  qv_status st = import_plain(owner, a, &it, NULL, depth, &idx, err);
  imp_info vinfo = *info;
  vinfo.dict = false;
  if (st == QV_OK) st = import_node(owner, a->dictionary, type, &vinfo, depth + 1, &values, err);
  if (st == QV_OK) st = qvc_dictionary_decode(idx, values, out, "import", err);
  qv_array_release(idx);
  qv_array_release(values);
  return st;
}

/* Imports a with type (and optional dictionary info); moves from a on success. */
static qv_status import_array_info(struct ArrowArray *a, const qv_datatype *type, const imp_info *info, qv_array **out,
                                   qv_error *err) {
  if (!a || !a->release || !type || !out)
    return qv_error_set(err, QV_ERR_INVALID, "import: array is released or missing");
  qv_bytes *owner = owner_new(a);
  if (!owner) return qv_error_nomem(err, NULL);
  owner_priv *p = owner->private_data;
  qv_status st = import_node(owner, &p->array, type, info, 0, out, err);
  if (st == QV_OK) {
    p->armed = true;
    a->release = NULL;
  }
  qv_bytes_release(owner);
  return st;
}

qv_status qv_import_array(struct ArrowArray *array, const qv_datatype *type, qv_array **out, qv_error *err) {
  return import_array_info(array, type, NULL, out, err);
}

static qv_status import_batch_info(struct ArrowArray *array, const qv_schema *schema, const imp_info *info,
                                   qv_batch **out, qv_error *err) {
  if (!array || !array->release || !schema || !out)
    return qv_error_set(err, QV_ERR_INVALID, "import: batch array is released or missing");
  /* The batch is imported as a struct whose fields are the schema's. */
  qv_datatype st_type = qv_datatype_simple(QV_TYPE_STRUCT);
  st_type.n_children = schema->n_fields;
  st_type.children = schema->fields;
  imp_info top;
  memset(&top, 0, sizeof top);
  top.n_children = schema->n_fields;
  top.children = (imp_info *)info;
  qv_array *s = NULL;
  qv_array **cols = NULL;
  qv_status st = import_array_info(array, &st_type, info ? &top : NULL, &s, err);
  if (st != QV_OK) return st;
  int32_t n = schema->n_fields;
  cols = qv_calloc(n > 0 ? (size_t)n : 1, sizeof *cols);
  if (!cols) {
    qv_array_release(s);
    return qv_error_nomem(err, NULL);
  }
  /* Struct children are indexed with the parent's offset (Arrow's rule). */
  for (int32_t i = 0; i < n && st == QV_OK; i++) {
    if (s->offset == 0 && s->children[i]->length == s->length) cols[i] = qv_array_retain(s->children[i]);
    else st = qv_array_slice(s->children[i], s->offset, s->length, &cols[i], err);
  }
  if (st == QV_OK) st = qv_batch_make(schema, cols, s->length, out, err); /* takes cols */
  else
    for (int32_t i = 0; i < n; i++) qv_array_release(cols[i]);
  qv_free(cols);
  qv_array_release(s);
  return st;
}

qv_status qv_import_batch(struct ArrowArray *array, const qv_schema *schema, qv_batch **out, qv_error *err) {
  return import_batch_info(array, schema, NULL, out, err);
}

/* ---- import: streams ----------------------------------------------------- */

typedef struct import_reader {
  qv_batch_reader base;
  struct ArrowArrayStream stream;
  qv_schema schema;
  imp_info *info;
} import_reader;

static const char *stream_error(struct ArrowArrayStream *s, int code) {
  const char *m = s->get_last_error ? s->get_last_error(s) : NULL;
  return m ? m : strerror(code);
}

static qv_status ir_next(qv_batch_reader *self, qv_batch **out, qv_error *err) {
  import_reader *r = self->private_data;
  struct ArrowArray a;
  memset(&a, 0, sizeof a);
  *out = NULL;
  int code = r->stream.get_next(&r->stream, &a);
  if (code != 0) return qv_error_set(err, QV_ERR_IO, "import stream: %s", stream_error(&r->stream, code));
  if (!a.release) return QV_OK;
  qv_status st = import_batch_info(&a, &r->schema, r->info, out, err);
  if (a.release) a.release(&a); /* still ours when the import failed */
  return st;
}

static const qv_schema *ir_schema(qv_batch_reader *self) { return &((import_reader *)self->private_data)->schema; }

static void ir_destroy(qv_batch_reader *self) {
  import_reader *r = self->private_data;
  if (r->stream.release) r->stream.release(&r->stream);
  info_free(r->info, r->schema.n_fields);
  qv_schema_reset(&r->schema);
  qv_free(r);
}

qv_status qv_import_stream(struct ArrowArrayStream *stream, qv_batch_reader **out, qv_error *err) {
  if (!stream || !stream->release || !out)
    return qv_error_set(err, QV_ERR_INVALID, "import: stream is released or missing");
  import_reader *r = qv_calloc(1, sizeof *r);
  if (!r) return qv_error_nomem(err, NULL);
  r->base.next = ir_next;
  r->base.schema = ir_schema;
  r->base.destroy = ir_destroy;
  r->base.private_data = r;
  r->stream = *stream;
  stream->release = NULL;
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  qv_status st = QV_OK;
  int code = r->stream.get_schema(&r->stream, &s);
  if (code != 0) st = qv_error_set(err, QV_ERR_IO, "import stream: %s", stream_error(&r->stream, code));
  else st = import_schema_info(&s, &r->schema, &r->info, true, err);
  if (s.release) s.release(&s);
  if (st != QV_OK) {
    ir_destroy(&r->base);
    return st;
  }
  *out = &r->base;
  return QV_OK;
}
