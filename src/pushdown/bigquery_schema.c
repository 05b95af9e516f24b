/* A BigQuery table schema (JSON) as a quiver schema, so that a
 * row_restriction can be translated with the column types the Storage
 * Read API will deliver.  Reads the field array `bq show --schema
 * --format=json` prints, {"fields": [...]}, or a whole table resource
 * ({"schema": {"fields": [...]}, "timePartitioning": ...}).
 *
 * The JSON reader is the expr layer's strict one (src/expr/json.h): an
 * upper layer, so pushdown may use it. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "expr/json.h"
#include "pushdown/bigquery_int.h"

/* BigQuery nests RECORDs at most 15 levels deep. */
#define BQ_MAX_NESTING 15

static qv_status bad(qv_error *err, const qve_json *at, const char *what) {
  return qv_error_set(err, QV_ERR_PARSE, "bigquery schema: %s at byte %lld", what, (long long)(at ? at->offset : 0));
}

static qv_status field_type(const qve_json *f, int depth, qv_datatype *out, qv_error *err);

static qv_status fields_into(const qve_json *arr, int depth, qv_schema *out, qv_error *err) {
  if (!arr || arr->type != QV_JSON_ARRAY) return bad(err, arr, "expected an array of fields");
  if (depth > BQ_MAX_NESTING) return bad(err, arr, "RECORD fields nested more than 15 levels");
  for (int32_t i = 0; i < arr->n; i++) {
    const qve_json *f = &arr->items[i];
    if (f->type != QV_JSON_OBJECT) return bad(err, f, "expected a field object");
    const qve_json *name = qve_json_get(f, "name");
    if (!name || name->type != QV_JSON_STRING || name->len == 0) return bad(err, f, "a field without a name");
    if ((int64_t)strlen(name->str) != name->len) return bad(err, name, "a field name with a NUL character");
    qv_datatype ty = QV_DATATYPE_INIT;
    QV_RETURN_NOT_OK(field_type(f, depth, &ty, err));
    qv_field field;
    qv_status st = qv_field_init(&field, name->str, &ty, true, err);
    if (st == QV_OK) {
      const qve_json *mode = qve_json_get(f, "mode");
      if (mode && mode->type == QV_JSON_STRING && strcasecmp(mode->str, "REQUIRED") == 0) field.nullable = false;
      if (qv_schema_find(out, name->str) >= 0)
        st = qv_error_set(err, QV_ERR_PARSE, "bigquery schema: field '%s' appears twice at byte %lld", name->str,
                          (long long)f->offset);
      else st = qv_schema_add(out, &field, err);
      qv_field_reset(&field);
    } else {
      qv_datatype_reset(&ty);
    }
    QV_RETURN_NOT_OK(st);
  }
  return QV_OK;
}

static qv_status scalar_type(const qve_json *type, qv_datatype *out, qv_error *err) {
  static const struct {
    const char *name;
    qv_type_id id;
  } simple[] = {
      {"BOOL", QV_TYPE_BOOL},         {"BOOLEAN", QV_TYPE_BOOL},      {"INT64", QV_TYPE_INT64},
      {"INTEGER", QV_TYPE_INT64},     {"FLOAT64", QV_TYPE_FLOAT64},   {"FLOAT", QV_TYPE_FLOAT64},
      {"STRING", QV_TYPE_STRING},     {"JSON", QV_TYPE_STRING},       {"GEOGRAPHY", QV_TYPE_STRING},
      {"BIGNUMERIC", QV_TYPE_STRING}, {"BIGDECIMAL", QV_TYPE_STRING}, {"BYTES", QV_TYPE_BINARY},
      {"DATE", QV_TYPE_DATE32},
  };
  const char *s = type->str;
  for (size_t k = 0; k < sizeof simple / sizeof simple[0]; k++)
    if (strcasecmp(s, simple[k].name) == 0) {
      *out = qv_datatype_simple(simple[k].id);
      return QV_OK;
    }
  if (strcasecmp(s, "NUMERIC") == 0 || strcasecmp(s, "DECIMAL") == 0) return qv_datatype_decimal(38, 9, out, err);
  if (strcasecmp(s, "DATETIME") == 0) return qv_datatype_timestamp(QV_UNIT_MICRO, NULL, out, err);
  if (strcasecmp(s, "TIMESTAMP") == 0) return qv_datatype_timestamp(QV_UNIT_MICRO, "UTC", out, err);
  if (strcasecmp(s, "TIME") == 0) {
    *out = qv_datatype_time64(QV_UNIT_MICRO);
    return QV_OK;
  }
  if (strcasecmp(s, "INTERVAL") == 0) {
    *out = qv_datatype_duration(QV_UNIT_MICRO);
    return QV_OK;
  }
  return qv_error_set(err, QV_ERR_UNSUPPORTED, "bigquery schema: unknown type '%.60s' at byte %lld", s,
                      (long long)type->offset);
}

static qv_status field_type(const qve_json *f, int depth, qv_datatype *out, qv_error *err) {
  const qve_json *type = qve_json_get(f, "type");
  if (!type || type->type != QV_JSON_STRING) return bad(err, f, "a field without a type");
  qv_datatype item = QV_DATATYPE_INIT;
  if (strcasecmp(type->str, "RECORD") == 0 || strcasecmp(type->str, "STRUCT") == 0) {
    qv_schema sub = QV_SCHEMA_INIT;
    qv_status st = fields_into(qve_json_get(f, "fields"), depth + 1, &sub, err);
    if (st == QV_OK && sub.n_fields == 0) st = bad(err, f, "a RECORD without fields");
    if (st == QV_OK) {
      st = qv_datatype_struct(sub.fields, sub.n_fields, &item, err);
      if (st == QV_OK) {
        qv_free(sub.fields); /* the contents moved */
        sub.fields = NULL;
        sub.n_fields = 0;
      }
    }
    qv_schema_reset(&sub);
    QV_RETURN_NOT_OK(st);
  } else {
    QV_RETURN_NOT_OK(scalar_type(type, &item, err));
  }
  const qve_json *mode = qve_json_get(f, "mode");
  if (mode && mode->type != QV_JSON_STRING) {
    qv_datatype_reset(&item);
    return bad(err, mode, "expected a mode string");
  }
  if (mode && strcasecmp(mode->str, "REPEATED") == 0) {
    qv_status st = qv_datatype_list(&item, out, err);
    if (st != QV_OK) qv_datatype_reset(&item);
    return st;
  }
  if (mode && strcasecmp(mode->str, "NULLABLE") != 0 && strcasecmp(mode->str, "REQUIRED") != 0) {
    qv_datatype_reset(&item);
    return bad(err, mode, "expected mode NULLABLE, REQUIRED or REPEATED");
  }
  *out = item;
  return QV_OK;
}

static qv_status pseudo_column(qv_schema *out, const char *name, qv_datatype *ty, qv_error *err) {
  qv_field f;
  qv_status st = qv_field_init(&f, name, ty, true, err);
  if (st != QV_OK) {
    qv_datatype_reset(ty);
    return st;
  }
  if (qv_schema_find(out, name) < 0) st = qv_schema_add(out, &f, err);
  qv_field_reset(&f);
  return st;
}

qv_status qv_bigquery_schema_from_json(const char *json, size_t len, qv_schema *out, qv_error *err) {
  if (!json || !out) return qv_error_set(err, QV_ERR_INVALID, "bigquery schema: NULL input or output");
  qve_json_doc *doc = NULL;
  QV_RETURN_NOT_OK(qve_json_parse(json, len, "bigquery schema", &doc, err));
  const qve_json *root = qve_json_root(doc), *fields = root, *partitioning = NULL;
  if (root->type == QV_JSON_OBJECT) {
    const qve_json *schema = qve_json_get(root, "schema");
    fields = schema ? qve_json_get(schema, "fields") : qve_json_get(root, "fields");
    partitioning = qve_json_get(root, "timePartitioning");
    if (!fields) fields = schema ? schema : root;
  }
  qv_status st = fields_into(fields, 0, out, err);
  if (st == QV_OK && partitioning && partitioning->type == QV_JSON_OBJECT && !qve_json_get(partitioning, "field")) {
    /* Ingestion-time partitioning: the pseudo-columns that filters may use. */
    qv_datatype d = qv_datatype_simple(QV_TYPE_DATE32), ts = QV_DATATYPE_INIT;
    st = pseudo_column(out, "_PARTITIONDATE", &d, err);
    if (st == QV_OK) st = qv_datatype_timestamp(QV_UNIT_MICRO, "UTC", &ts, err);
    if (st == QV_OK) st = pseudo_column(out, "_PARTITIONTIME", &ts, err);
  }
  qve_json_doc_destroy(doc);
  if (st != QV_OK) qv_schema_reset(out);
  return st;
}
