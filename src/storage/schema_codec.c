/* Schemas and fields as bytes (in manifests and data file footers).
 *
 *   field  := string name, u8 flags (bit 0: nullable), type
 *   type   := u8 code, then by code:
 *             decimal128: u8 precision, u8 scale
 *             timestamp:  u8 unit, string time zone ("" = naive)
 *             time64, duration: u8 unit
 *             list: field item;  fixed_size_list: u32 size, field item
 *             struct: u32 n, n fields
 *   schema := u32 n, n fields
 *
 * Codes are the qv_type_id values as of format version 1; they are part of
 * the format and must never be renumbered. */
#include <string.h>

#include "base/wire.h"
#include "storage/format.h"
#include "storage/schema_codec.h"

enum { MIN_FIELD_BYTES = 4 + 1 + 1 }; /* empty name, flags, code */

bool qvs_type_supported(const qv_datatype *t, int depth) {
  if (depth > QVS_MAX_DEPTH) return false;
  if ((int)t->id < (int)QV_TYPE_NULL || (int)t->id > (int)QV_TYPE_FIXED_SIZE_LIST) return false;
  if (t->id == QV_TYPE_LIST || t->id == QV_TYPE_FIXED_SIZE_LIST) {
    if (t->n_children != 1 || !t->children) return false;
    if (t->id == QV_TYPE_FIXED_SIZE_LIST && t->list_size < 0) return false;
  }
  for (int32_t i = 0; i < t->n_children; i++)
    if (!qvs_type_supported(&t->children[i].type, depth + 1)) return false;
  return true;
}

static void put_type(qvb_wbuf *w, const qv_datatype *t) {
  qvb_wire_put_u8(w, (uint8_t)t->id);
  switch (t->id) {
    case QV_TYPE_DECIMAL128:
      qvb_wire_put_u8(w, (uint8_t)t->precision);
      qvb_wire_put_u8(w, (uint8_t)t->scale);
      break;
    case QV_TYPE_TIMESTAMP:
      qvb_wire_put_u8(w, (uint8_t)t->unit);
      qvb_wire_put_string(w, t->timezone ? t->timezone : "");
      break;
    case QV_TYPE_TIME64:
    case QV_TYPE_DURATION: qvb_wire_put_u8(w, (uint8_t)t->unit); break;
    case QV_TYPE_LIST: qvs_put_field(w, &t->children[0]); break;
    case QV_TYPE_FIXED_SIZE_LIST:
      qvb_wire_put_u32(w, (uint32_t)t->list_size);
      qvs_put_field(w, &t->children[0]);
      break;
    case QV_TYPE_STRUCT:
      qvb_wire_put_u32(w, (uint32_t)t->n_children);
      for (int32_t i = 0; i < t->n_children; i++) qvs_put_field(w, &t->children[i]);
      break;
    default: break;
  }
}

void qvs_put_field(qvb_wbuf *w, const qv_field *f) {
  qvb_wire_put_string(w, f->name ? f->name : "");
  qvb_wire_put_u8(w, f->nullable ? 1 : 0);
  put_type(w, &f->type);
}

void qvs_put_schema(qvb_wbuf *w, const qv_schema *s) {
  qvb_wire_put_u32(w, (uint32_t)s->n_fields);
  for (int32_t i = 0; i < s->n_fields; i++) qvs_put_field(w, &s->fields[i]);
}

static bool nomem(qvb_cursor *c) {
  if (c->status == QV_OK) c->status = qv_error_nomem(c->err, c->file);
  return false;
}

static bool get_unit(qvb_cursor *c, qv_time_unit *u) {
  uint8_t v;
  if (!qvb_wire_get_u8(c, &v, "time unit")) return false;
  if (v > QV_UNIT_NANO) {
    c->pos--;
    return qvb_cursor_fail(c, "time unit %u is not one of 0..3", v);
  }
  *u = (qv_time_unit)v;
  return true;
}

/* A count of things each at least min_bytes long must fit in what is left,
 * so that a hostile count cannot make us allocate more than the input size. */
static bool get_count(qvb_cursor *c, int64_t min_bytes, uint32_t *n, const char *what) {
  int64_t at = c->pos;
  if (!qvb_wire_get_u32(c, n, what)) return false;
  if ((int64_t)*n * min_bytes > c->size - c->pos) {
    c->pos = at;
    return qvb_cursor_fail(c, "%s %u does not fit in the %lld bytes left", what, *n, (long long)(c->size - c->pos));
  }
  return true;
}

static bool get_type(qvb_cursor *c, qv_datatype *out, int depth) {
  *out = qv_datatype_simple(QV_TYPE_NULL);
  if (depth > QVS_MAX_DEPTH) return qvb_cursor_fail(c, "types nested deeper than %d", QVS_MAX_DEPTH);
  uint8_t code;
  if (!qvb_wire_get_u8(c, &code, "type code")) return false;
  if (code > QV_TYPE_FIXED_SIZE_LIST) {
    c->pos--;
    return qvb_cursor_fail(c, "unknown type code %u", code);
  }
  qv_type_id id = (qv_type_id)code;
  qv_error e;
  switch (id) {
    case QV_TYPE_DECIMAL128: {
      uint8_t p, s;
      if (!qvb_wire_get_u8(c, &p, "decimal precision") || !qvb_wire_get_u8(c, &s, "decimal scale")) return false;
      if (qv_datatype_decimal(p, s, out, &e) != QV_OK) {
        c->pos -= 2;
        return qvb_cursor_fail(c, "%s", e.message);
      }
      return true;
    }
    case QV_TYPE_TIMESTAMP: {
      qv_time_unit u;
      char *tz = NULL;
      if (!get_unit(c, &u) || !qvb_wire_get_string(c, 256, &tz, "time zone")) return false;
      qv_status st = qv_datatype_timestamp(u, tz[0] ? tz : NULL, out, &e);
      qv_free(tz);
      return st == QV_OK ? true : nomem(c);
    }
    case QV_TYPE_TIME64:
    case QV_TYPE_DURATION: {
      qv_time_unit u;
      if (!get_unit(c, &u)) return false;
      *out = id == QV_TYPE_TIME64 ? qv_datatype_time64(u) : qv_datatype_duration(u);
      return true;
    }
    case QV_TYPE_LIST:
    case QV_TYPE_FIXED_SIZE_LIST: {
      uint32_t size = 0;
      if (id == QV_TYPE_FIXED_SIZE_LIST) {
        if (!qvb_wire_get_u32(c, &size, "list size")) return false;
        if (size > INT32_MAX) {
          c->pos -= 4;
          return qvb_cursor_fail(c, "fixed_size_list size %u is too large", size);
        }
      }
      qv_field item = {0};
      if (!qvs_get_field(c, &item, depth + 1)) return false;
      qv_datatype child = item.type;
      item.type = qv_datatype_simple(QV_TYPE_NULL);
      qv_status st = id == QV_TYPE_LIST ? qv_datatype_list(&child, out, &e)
                                        : qv_datatype_fixed_size_list(&child, (int32_t)size, out, &e);
      if (st != QV_OK) {
        qv_datatype_reset(&child);
        qv_field_reset(&item);
        return nomem(c);
      }
      /* The constructors name the child "item" and make it nullable; keep
       * what was written. */
      qv_free(out->children[0].name);
      out->children[0].name = item.name;
      out->children[0].nullable = item.nullable;
      return true;
    }
    case QV_TYPE_STRUCT: {
      uint32_t n;
      if (!get_count(c, MIN_FIELD_BYTES, &n, "struct field count")) return false;
      qv_field *fields = n ? qv_calloc(n, sizeof *fields) : NULL;
      if (n && !fields) return nomem(c);
      uint32_t done = 0;
      for (; done < n; done++)
        if (!qvs_get_field(c, &fields[done], depth + 1)) break;
      qv_status st = QV_OK;
      if (done == n) st = qv_datatype_struct(fields, (int32_t)n, out, &e);
      if (done != n || st != QV_OK) {
        for (uint32_t i = 0; i < done; i++) qv_field_reset(&fields[i]);
        qv_free(fields);
        return done == n ? nomem(c) : false;
      }
      qv_free(fields);
      return true;
    }
    default: *out = qv_datatype_simple(id); return true;
  }
}

bool qvs_get_field(qvb_cursor *c, qv_field *out, int depth) {
  memset(out, 0, sizeof *out);
  out->type = qv_datatype_simple(QV_TYPE_NULL);
  char *name = NULL;
  uint8_t flags;
  if (!qvb_wire_get_string(c, QVS_MAX_NAME, &name, "field name")) return false;
  if (!qvb_wire_get_u8(c, &flags, "field flags")) {
    qv_free(name);
    return false;
  }
  if (flags > 1) {
    c->pos--;
    qvb_cursor_fail(c, "field `%s` has unknown flags 0x%x", name, flags);
    qv_free(name);
    return false;
  }
  if (!get_type(c, &out->type, depth)) {
    qv_free(name);
    return false;
  }
  out->name = name;
  out->nullable = flags & 1;
  return true;
}

bool qvs_get_schema(qvb_cursor *c, qv_schema *out) {
  out->n_fields = 0;
  out->fields = NULL;
  uint32_t n;
  if (!get_count(c, MIN_FIELD_BYTES, &n, "field count")) return false;
  if (n == 0) return true;
  out->fields = qv_calloc(n, sizeof(qv_field));
  if (!out->fields) return nomem(c);
  for (uint32_t i = 0; i < n; i++) {
    if (!qvs_get_field(c, &out->fields[i], 0)) {
      qv_schema_reset(out);
      return false;
    }
    out->n_fields = (int32_t)i + 1;
  }
  return true;
}
