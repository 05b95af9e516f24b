/* Arrow IPC schemas: the flatbuffer Schema/Field/Type tables (format/Schema.fbs)
 * to and from qv_schema.
 *
 * Decoding builds the qv_field tree in place (children arrays are allocated
 * before their fields are decoded into them) so that the parallel
 * qvc_ipc_field tree can point at the final qv_field addresses. */
#include <string.h>

#include "columnar/ipc_int.h"

/* Field table slots (Schema.fbs: table Field). */
enum { F_NAME = 0, F_NULLABLE = 1, F_TYPE_TYPE = 2, F_TYPE = 3, F_DICT = 4, F_CHILDREN = 5 };

typedef struct decoder {
  int64_t budget; /* fields we may still decode: shared subtrees cannot blow up */
  qv_error *err;
} decoder;

static qv_status corrupt(const qvc_fb_table *t, qv_error *err, const char *fmt, const char *a) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, a);
  return qv_error_set(err, QV_ERR_CORRUPT, "byte %lld: schema: %s", (long long)(t->view->base + t->pos), msg);
}

static qv_status unsupported(const qvc_fb_table *t, qv_error *err, const char *name, const char *what) {
  return qv_error_set(err, QV_ERR_UNSUPPORTED,
                      "byte %lld: schema: field '%s' has Arrow type %s, which quiver does not support",
                      (long long)(t->view->base + t->pos), name, what);
}

static qv_status time_unit(const qvc_fb_table *type, int id, int64_t def, qv_time_unit *out, const char *name,
                           qv_error *err) {
  int64_t u;
  QV_RETURN_NOT_OK(qvc_fb_int(type, id, 2, def, &u, err));
  if (u < 0 || u > 3) return corrupt(type, err, "field '%s' has an invalid time unit", name);
  *out = (qv_time_unit)u;
  return QV_OK;
}

static qv_status int_type(const qvc_fb_table *t, qv_type_id *out, const char *name, qv_error *err) {
  int64_t bits, is_signed;
  QV_RETURN_NOT_OK(qvc_fb_int(t, 0, 4, 0, &bits, err));
  QV_RETURN_NOT_OK(qvc_fb_int(t, 1, 1, 0, &is_signed, err));
  switch (bits) {
    case 8: *out = is_signed ? QV_TYPE_INT8 : QV_TYPE_UINT8; return QV_OK;
    case 16: *out = is_signed ? QV_TYPE_INT16 : QV_TYPE_UINT16; return QV_OK;
    case 32: *out = is_signed ? QV_TYPE_INT32 : QV_TYPE_UINT32; return QV_OK;
    case 64: *out = is_signed ? QV_TYPE_INT64 : QV_TYPE_UINT64; return QV_OK;
    default: return corrupt(t, err, "field '%s' has an integer width that is not 8, 16, 32 or 64", name);
  }
}

static qv_status decode_field(decoder *d, const qvc_fb_table *ft, int depth, qv_field *out, qvc_ipc_field *info);

static const char *type_name_of(const qvc_ipc_field *info) {
  return info->field && info->field->name ? info->field->name : "";
}

/* Decodes the children vector into freshly allocated arrays of n fields. */
static qv_status decode_children(decoder *d, const qvc_fb_table *ft, int depth, qv_datatype *type,
                                 qvc_ipc_field *info) {
  qvc_fb_vector kids;
  bool present;
  QV_RETURN_NOT_OK(qvc_fb_vector_field(ft, F_CHILDREN, 4, &kids, &present, d->err));
  if (kids.count == 0) return QV_OK;
  if (kids.count > (uint32_t)d->budget)
    return corrupt(ft, d->err, "field '%s' has more children than fit", type_name_of(info));
  /* Counts are set as soon as each array exists so that a failure part way
   * is cleaned up by qv_schema_reset / qvc_ipc_fields_free. */
  if ((type->children = qv_calloc(kids.count, sizeof(qv_field)))) type->n_children = (int32_t)kids.count;
  if ((info->children = qv_calloc(kids.count, sizeof(qvc_ipc_field)))) info->n_children = (int32_t)kids.count;
  if (!type->children || !info->children) return qv_error_nomem(d->err, NULL);
  for (uint32_t i = 0; i < kids.count; i++) {
    qvc_fb_table ct;
    QV_RETURN_NOT_OK(qvc_fb_vector_table(&kids, i, &ct, d->err));
    QV_RETURN_NOT_OK(decode_field(d, &ct, depth + 1, &type->children[i], &info->children[i]));
  }
  return QV_OK;
}

static qv_status decode_type(decoder *d, const qvc_fb_table *ft, int depth, qv_field *out, qvc_ipc_field *info) {
  qv_error *err = d->err;
  const char *name = out->name;
  int64_t tt;
  qvc_fb_table type;
  bool present;
  QV_RETURN_NOT_OK(qvc_fb_int(ft, F_TYPE_TYPE, 1, 0, &tt, err));
  QV_RETURN_NOT_OK(qvc_fb_table_field(ft, F_TYPE, &type, &present, err));
  if (!present) return corrupt(ft, err, "field '%s' has no type", name);
  qv_datatype *t = &out->type;
  int64_t v;
  switch (tt & 0xff) {
    case QV_FBT_NULL: *t = qv_datatype_simple(QV_TYPE_NULL); break;
    case QV_FBT_INT: {
      qv_type_id id;
      QV_RETURN_NOT_OK(int_type(&type, &id, name, err));
      *t = qv_datatype_simple(id);
      break;
    }
    case QV_FBT_FLOAT:
      QV_RETURN_NOT_OK(qvc_fb_int(&type, 0, 2, 0, &v, err));
      if (v == 0) return unsupported(ft, err, name, "float16");
      if (v != 1 && v != 2) return corrupt(ft, err, "field '%s' has an invalid float precision", name);
      *t = qv_datatype_simple(v == 1 ? QV_TYPE_FLOAT32 : QV_TYPE_FLOAT64);
      break;
    case QV_FBT_BINARY: *t = qv_datatype_simple(QV_TYPE_BINARY); break;
    case QV_FBT_UTF8: *t = qv_datatype_simple(QV_TYPE_STRING); break;
    case QV_FBT_BOOL: *t = qv_datatype_simple(QV_TYPE_BOOL); break;
    case QV_FBT_DECIMAL: {
      int64_t p, s, bits;
      QV_RETURN_NOT_OK(qvc_fb_int(&type, 0, 4, 0, &p, err));
      QV_RETURN_NOT_OK(qvc_fb_int(&type, 1, 4, 0, &s, err));
      QV_RETURN_NOT_OK(qvc_fb_int(&type, 2, 4, 128, &bits, err));
      if (bits != 128) return unsupported(ft, err, name, "decimal other than 128-bit");
      qv_error sub;
      if (qv_datatype_decimal((int32_t)p, (int32_t)s, t, &sub) != QV_OK)
        return qv_error_set(err, QV_ERR_UNSUPPORTED, "byte %lld: schema: field '%s': %s",
                            (long long)(ft->view->base + ft->pos), name, sub.message);
      break;
    }
    case QV_FBT_DATE:
      QV_RETURN_NOT_OK(qvc_fb_int(&type, 0, 2, 1, &v, err));
      if (v != 0) return unsupported(ft, err, name, "date64 (milliseconds)");
      *t = qv_datatype_simple(QV_TYPE_DATE32);
      break;
    case QV_FBT_TIME: {
      qv_time_unit u = QV_UNIT_SECOND;
      int64_t bits;
      QV_RETURN_NOT_OK(time_unit(&type, 0, 1, &u, name, err));
      QV_RETURN_NOT_OK(qvc_fb_int(&type, 1, 4, 32, &bits, err));
      if (bits != 64 || u < QV_UNIT_MICRO) return unsupported(ft, err, name, "time32");
      *t = qv_datatype_time64(u);
      break;
    }
    case QV_FBT_TIMESTAMP: {
      qv_time_unit u = QV_UNIT_SECOND;
      const char *tz;
      uint32_t tzlen;
      QV_RETURN_NOT_OK(time_unit(&type, 0, 0, &u, name, err));
      QV_RETURN_NOT_OK(qvc_fb_string(&type, 1, &tz, &tzlen, &present, err));
      *t = qv_datatype_simple(QV_TYPE_TIMESTAMP);
      t->unit = u;
      if (present && tzlen > 0 && !(t->timezone = qv_strndup(tz, tzlen))) return qv_error_nomem(err, NULL);
      break;
    }
    case QV_FBT_DURATION: {
      qv_time_unit u = QV_UNIT_SECOND;
      QV_RETURN_NOT_OK(time_unit(&type, 0, 1, &u, name, err));
      *t = qv_datatype_duration(u);
      break;
    }
    /* Other writers' layouts of quiver's types, converted on read. */
    case QV_FBT_LARGE_BINARY:
    case QV_FBT_LARGE_UTF8:
    case QV_FBT_BINARY_VIEW:
    case QV_FBT_UTF8_VIEW:
      *t = qv_datatype_simple((tt & 0xff) == QV_FBT_LARGE_UTF8 || (tt & 0xff) == QV_FBT_UTF8_VIEW ? QV_TYPE_STRING
                                                                                                  : QV_TYPE_BINARY);
      info->phys = (tt & 0xff) <= QV_FBT_LARGE_UTF8 ? QV_PHYS_LARGE : QV_PHYS_VIEW;
      break;
    case QV_FBT_LIST:
    case QV_FBT_LARGE_LIST:
    case QV_FBT_FIXED_SIZE_LIST:
    case QV_FBT_STRUCT: {
      if (depth >= QV_IPC_MAX_DEPTH) return corrupt(ft, err, "field '%s' is nested too deeply", name);
      bool is_struct = (tt & 0xff) == QV_FBT_STRUCT;
      if ((tt & 0xff) == QV_FBT_LARGE_LIST) info->phys = QV_PHYS_LARGE;
      *t = qv_datatype_simple(is_struct                               ? QV_TYPE_STRUCT
                              : (tt & 0xff) == QV_FBT_FIXED_SIZE_LIST ? QV_TYPE_FIXED_SIZE_LIST
                                                                      : QV_TYPE_LIST);
      if (t->id == QV_TYPE_FIXED_SIZE_LIST) {
        QV_RETURN_NOT_OK(qvc_fb_int(&type, 0, 4, 0, &v, err));
        if (v < 0) return corrupt(ft, err, "field '%s' has a negative list size", name);
        t->list_size = (int32_t)v;
      }
      QV_RETURN_NOT_OK(decode_children(d, ft, depth, t, info));
      if (!is_struct && t->n_children != 1)
        return corrupt(ft, err, "list field '%s' does not have exactly one child", name);
      return QV_OK; /* children already checked */
    }
    case QV_FBT_INTERVAL: return unsupported(ft, err, name, "interval");
    case QV_FBT_UNION: return unsupported(ft, err, name, "union");
    case QV_FBT_FIXED_SIZE_BINARY: return unsupported(ft, err, name, "fixed_size_binary");
    case QV_FBT_MAP: return unsupported(ft, err, name, "map");
    case QV_FBT_RUN_END_ENCODED: return unsupported(ft, err, name, "run_end_encoded");
    case QV_FBT_LIST_VIEW: return unsupported(ft, err, name, "list_view");
    case QV_FBT_LARGE_LIST_VIEW: return unsupported(ft, err, name, "large_list_view");
    default: return corrupt(ft, err, "field '%s' has an unknown type tag", name);
  }
  /* Leaf types: children would mean a writer we do not understand. */
  qvc_fb_vector kids;
  QV_RETURN_NOT_OK(qvc_fb_vector_field(ft, F_CHILDREN, 4, &kids, &present, err));
  if (kids.count != 0) return corrupt(ft, err, "field '%s' of a flat type has children", name);
  return QV_OK;
}

static qv_status decode_field(decoder *d, const qvc_fb_table *ft, int depth, qv_field *out, qvc_ipc_field *info) {
  qv_error *err = d->err;
  if (--d->budget < 0) return corrupt(ft, err, "%smore fields than the metadata can hold", "");
  const char *name;
  uint32_t len;
  bool present;
  int64_t nullable;
  QV_RETURN_NOT_OK(qvc_fb_string(ft, F_NAME, &name, &len, &present, err));
  /* Names are C strings here: a NUL would cut "a\0b" to "a", which then
   * passes for another field's name. */
  const char *nul = present ? memchr(name, '\0', len) : NULL;
  if (nul)
    return qv_error_set(err, QV_ERR_UNSUPPORTED, "byte %lld: schema: field name '%.*s\\x00...' holds a NUL byte",
                        (long long)(ft->view->base + ft->pos), (int)(nul - name), name);
  out->name = qv_strndup(present ? name : "", len);
  if (!out->name) return qv_error_nomem(err, NULL);
  QV_RETURN_NOT_OK(qvc_fb_int(ft, F_NULLABLE, 1, 0, &nullable, err));
  out->nullable = nullable != 0;
  info->field = out;
  QV_RETURN_NOT_OK(decode_type(d, ft, depth, out, info));

  qvc_fb_table dict;
  QV_RETURN_NOT_OK(qvc_fb_table_field(ft, F_DICT, &dict, &present, err));
  if (present) {
    qvc_fb_table it;
    bool has_index;
    info->dict = true;
    QV_RETURN_NOT_OK(qvc_fb_int(&dict, 0, 8, 0, &info->dict_id, err));
    QV_RETURN_NOT_OK(qvc_fb_table_field(&dict, 1, &it, &has_index, err));
    info->dict_index = QV_TYPE_INT32; /* Schema.fbs: absent means int32 */
    if (has_index) QV_RETURN_NOT_OK(int_type(&it, &info->dict_index, out->name, err));
  }
  return QV_OK;
}

void qvc_ipc_fields_free(qvc_ipc_field *fields, int32_t n) {
  if (!fields) return;
  for (int32_t i = 0; i < n; i++) qvc_ipc_fields_free(fields[i].children, fields[i].n_children);
  qv_free(fields);
}

qv_status qvc_ipc_schema_decode(const qvc_fb_table *t, qv_schema *schema, qvc_ipc_field **fields, qv_error *err) {
  qv_schema s = QV_SCHEMA_INIT;
  qvc_ipc_field *info = NULL;
  qvc_fb_vector fv;
  bool present;
  int64_t endian;
  qv_status st = qvc_fb_int(t, 0, 2, 0, &endian, err);
  if (st != QV_OK) return st;
  if (endian != 0)
    return qv_error_set(err, QV_ERR_UNSUPPORTED, "byte %lld: schema: big-endian data is not supported",
                        (long long)(t->view->base + t->pos));
  QV_RETURN_NOT_OK(qvc_fb_vector_field(t, 1, 4, &fv, &present, err));
  decoder d = {(int64_t)t->view->size / 4, err};
  if (fv.count > 0) {
    if (fv.count > INT32_MAX / 2) return corrupt(t, err, "%stoo many fields", "");
    s.fields = qv_calloc(fv.count, sizeof(qv_field));
    info = qv_calloc(fv.count, sizeof(qvc_ipc_field));
    if (!s.fields || !info) {
      st = qv_error_nomem(err, NULL);
      goto cleanup;
    }
    s.n_fields = (int32_t)fv.count;
    for (uint32_t i = 0; i < fv.count; i++) {
      qvc_fb_table ft;
      if ((st = qvc_fb_vector_table(&fv, i, &ft, err)) != QV_OK) goto cleanup;
      if ((st = decode_field(&d, &ft, 0, &s.fields[i], &info[i])) != QV_OK) goto cleanup;
    }
  }
  *schema = s;
  *fields = info;
  return QV_OK;
cleanup:
  qvc_ipc_fields_free(info, s.n_fields);
  qv_schema_reset(&s);
  return st;
}

/* ---- encoding ------------------------------------------------------------ */

static uint8_t type_tag(qv_type_id id) {
  switch (id) {
    case QV_TYPE_NULL: return QV_FBT_NULL;
    case QV_TYPE_BOOL: return QV_FBT_BOOL;
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64: return QV_FBT_FLOAT;
    case QV_TYPE_DECIMAL128: return QV_FBT_DECIMAL;
    case QV_TYPE_STRING: return QV_FBT_UTF8;
    case QV_TYPE_BINARY: return QV_FBT_BINARY;
    case QV_TYPE_DATE32: return QV_FBT_DATE;
    case QV_TYPE_TIMESTAMP: return QV_FBT_TIMESTAMP;
    case QV_TYPE_TIME64: return QV_FBT_TIME;
    case QV_TYPE_DURATION: return QV_FBT_DURATION;
    case QV_TYPE_LIST: return QV_FBT_LIST;
    case QV_TYPE_STRUCT: return QV_FBT_STRUCT;
    case QV_TYPE_FIXED_SIZE_LIST: return QV_FBT_FIXED_SIZE_LIST;
    default: return QV_FBT_INT;
  }
}

static int int_bits(qv_type_id id) {
  switch (id) {
    case QV_TYPE_INT8:
    case QV_TYPE_UINT8: return 8;
    case QV_TYPE_INT16:
    case QV_TYPE_UINT16: return 16;
    case QV_TYPE_INT32:
    case QV_TYPE_UINT32: return 32;
    default: return 64;
  }
}

/* Writes the type table of t and patches slot to it. */
static void encode_type(qvc_fb_builder *b, const qv_datatype *t, uint32_t slot) {
  qvc_fb_tdef d;
  uint32_t slots[QV_FB_MAX_FIELDS];
  qvc_fb_tdef_init(&d);
  switch (t->id) {
    case QV_TYPE_INT8:
    case QV_TYPE_INT16:
    case QV_TYPE_INT32:
    case QV_TYPE_INT64:
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32:
    case QV_TYPE_UINT64:
      qvc_fb_add_scalar(&d, 0, 4, (uint64_t)int_bits(t->id));
      qvc_fb_add_scalar(&d, 1, 1, qv_type_is_signed(t->id));
      break;
    case QV_TYPE_FLOAT32: qvc_fb_add_scalar(&d, 0, 2, 1); break;
    case QV_TYPE_FLOAT64: qvc_fb_add_scalar(&d, 0, 2, 2); break;
    case QV_TYPE_DECIMAL128:
      qvc_fb_add_scalar(&d, 0, 4, (uint32_t)t->precision);
      qvc_fb_add_scalar(&d, 1, 4, (uint32_t)t->scale);
      qvc_fb_add_scalar(&d, 2, 4, 128);
      break;
    case QV_TYPE_DATE32: qvc_fb_add_scalar(&d, 0, 2, 0); break; /* DAY */
    case QV_TYPE_TIME64:
      qvc_fb_add_scalar(&d, 0, 2, (uint64_t)t->unit);
      qvc_fb_add_scalar(&d, 1, 4, 64);
      break;
    case QV_TYPE_DURATION: qvc_fb_add_scalar(&d, 0, 2, (uint64_t)t->unit); break;
    case QV_TYPE_TIMESTAMP:
      qvc_fb_add_scalar(&d, 0, 2, (uint64_t)t->unit);
      if (t->timezone) qvc_fb_add_ref(&d, 1);
      break;
    case QV_TYPE_FIXED_SIZE_LIST: qvc_fb_add_scalar(&d, 0, 4, (uint32_t)t->list_size); break;
    default: break;
  }
  uint32_t pos = qvc_fb_write_table(b, &d, slots);
  qvc_fb_patch(b, slot, pos);
  if (t->id == QV_TYPE_TIMESTAMP && t->timezone) qvc_fb_patch(b, slots[1], qvc_fb_write_string(b, t->timezone));
}

static void encode_field(qvc_fb_builder *b, const qv_field *f, uint32_t slot) {
  qvc_fb_tdef d;
  uint32_t slots[QV_FB_MAX_FIELDS];
  qvc_fb_tdef_init(&d);
  qvc_fb_add_ref(&d, F_NAME);
  qvc_fb_add_scalar(&d, F_NULLABLE, 1, f->nullable);
  qvc_fb_add_scalar(&d, F_TYPE_TYPE, 1, type_tag(f->type.id));
  qvc_fb_add_ref(&d, F_TYPE);
  qvc_fb_add_ref(&d, F_CHILDREN); /* Arrow C++ insists on a (possibly empty) vector */
  uint32_t pos = qvc_fb_write_table(b, &d, slots);
  qvc_fb_patch(b, slot, pos);
  qvc_fb_patch(b, slots[F_NAME], qvc_fb_write_string(b, f->name ? f->name : ""));
  encode_type(b, &f->type, slots[F_TYPE]);
  uint32_t n = f->type.n_children > 0 ? (uint32_t)f->type.n_children : 0;
  uint32_t vec = qvc_fb_write_ref_vector(b, n);
  qvc_fb_patch(b, slots[F_CHILDREN], vec);
  for (uint32_t i = 0; i < n; i++) encode_field(b, &f->type.children[i], vec + 4 + 4 * i);
}

uint32_t qvc_ipc_schema_encode(qvc_fb_builder *b, const qv_schema *schema, qv_error *err) {
  (void)err;
  qvc_fb_tdef d;
  uint32_t slots[QV_FB_MAX_FIELDS];
  qvc_fb_tdef_init(&d);
  qvc_fb_add_scalar(&d, 0, 2, 0); /* little-endian */
  qvc_fb_add_ref(&d, 1);
  uint32_t pos = qvc_fb_write_table(b, &d, slots);
  uint32_t n = schema->n_fields > 0 ? (uint32_t)schema->n_fields : 0;
  uint32_t vec = qvc_fb_write_ref_vector(b, n);
  qvc_fb_patch(b, slots[1], vec);
  for (uint32_t i = 0; i < n; i++) encode_field(b, &schema->fields[i], vec + 4 + 4 * i);
  return pos;
}

static qv_status check_type(const qv_datatype *t, const char *name, int depth, qv_error *err) {
  if (depth > QV_IPC_MAX_DEPTH)
    return qv_error_set(err, QV_ERR_UNSUPPORTED, "ipc: field '%s' is nested too deeply", name);
  if (t->id == QV_TYPE_DICTIONARY)
    return qv_error_set(err, QV_ERR_UNSUPPORTED,
                        "ipc: field '%s' is dictionary-encoded, which the writer does not "
                        "write (decode it first)",
                        name);
  if ((unsigned)t->id > QV_TYPE_FIXED_SIZE_LIST)
    return qv_error_set(err, QV_ERR_INVALID, "ipc: field '%s' has an unknown type %d", name, (int)t->id);
  if ((t->id == QV_TYPE_TIMESTAMP || t->id == QV_TYPE_TIME64 || t->id == QV_TYPE_DURATION) &&
      (unsigned)t->unit > QV_UNIT_NANO)
    return qv_error_set(err, QV_ERR_INVALID, "ipc: field '%s' has an invalid time unit", name);
  if (t->id == QV_TYPE_TIME64 && t->unit < QV_UNIT_MICRO)
    return qv_error_set(err, QV_ERR_INVALID, "ipc: time64 field '%s' must be in us or ns", name);
  bool nested = t->id == QV_TYPE_LIST || t->id == QV_TYPE_FIXED_SIZE_LIST || t->id == QV_TYPE_STRUCT;
  if (!nested && t->n_children != 0)
    return qv_error_set(err, QV_ERR_INVALID, "ipc: field '%s' of a flat type has children", name);
  if (t->id != QV_TYPE_STRUCT && nested && t->n_children != 1)
    return qv_error_set(err, QV_ERR_INVALID, "ipc: list field '%s' needs exactly one child", name);
  for (int32_t i = 0; i < t->n_children; i++)
    QV_RETURN_NOT_OK(check_type(&t->children[i].type, t->children[i].name ? t->children[i].name : "", depth + 1, err));
  return QV_OK;
}

qv_status qvc_ipc_schema_check(const qv_schema *schema, qv_error *err) {
  for (int32_t i = 0; i < schema->n_fields; i++)
    QV_RETURN_NOT_OK(check_type(&schema->fields[i].type, schema->fields[i].name ? schema->fields[i].name : "", 0, err));
  return QV_OK;
}
