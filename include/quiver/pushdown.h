/* quiver pushdown layer: translators from the expression IR to the filter
 * languages of other engines (docs/ARCHITECTURE.md, decisions 2 and 3).  Evaluates no
 * data. */
#ifndef QUIVER_PUSHDOWN_H
#define QUIVER_PUSHDOWN_H

#include <stdbool.h>

#include "quiver/base.h"
#include "quiver/columnar.h"
#include "quiver/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A Lance SQL filter: exact is true when it keeps exactly the rows the
 * expression keeps, false when it keeps a superset (conjuncts dropped). */
typedef struct qv_lance_filter {
  char *sql; /* owned (qv_malloc) */
  bool exact;
} qv_lance_filter;

/* Translates a Polars-front-end tree into a Lance SQL filter.  schema gives
 * the column types; NULL means schema-less: only what is safe for every
 * column type translates.  *out gets a new filter (free it with
 * qv_lance_filter_free), or NULL when nothing translates.  Errors:
 * QV_ERR_INVALID for NULL e/out, QV_ERR_NOMEM. */
QV_API qv_status qv_to_lance_filter(const qv_expr *e, const qv_schema *schema, qv_lance_filter **out, qv_error *err);

/* NULL-safe. */
QV_API void qv_lance_filter_free(qv_lance_filter *f);

/* The same translation, explained: *out gets one line per node that
 * declined (or conjunct that was dropped) with the reason, or "nothing
 * declined" (qv_malloc'd, qv_free); it is NULL on failure.  Errors as
 * qv_to_lance_filter. */
QV_API qv_status qv_lance_filter_explain(const qv_expr *e, const qv_schema *schema, char **out, qv_error *err);

/* A BigQuery Storage Read API row_restriction (GoogleSQL): exact is true
 * when it keeps exactly the rows the expression keeps, false when it keeps
 * a superset (conjuncts dropped or shed); re-apply the expression to the
 * streamed rows either way when exact is false. */
typedef struct qv_bigquery_filter {
  char *sql; /* owned (qv_malloc) */
  bool exact;
} qv_bigquery_filter;

/* Translates a Polars-front-end tree into a row_restriction.  schema gives
 * the column types (qv_bigquery_schema_from_json reads a BigQuery table
 * schema); NULL means schema-less: only what is safe for every column type
 * translates.  *out gets a new filter (qv_bigquery_filter_free), or NULL
 * when nothing translates.  Errors: QV_ERR_INVALID for NULL e/out and for a
 * column name BigQuery cannot hold ("bigquery: column name 'a.b' contains
 * '.' (U+002E), ..."), QV_ERR_NOMEM. */
QV_API qv_status qv_to_bigquery_filter(const qv_expr *e, const qv_schema *schema, qv_bigquery_filter **out,
                                       qv_error *err);

/* NULL-safe. */
QV_API void qv_bigquery_filter_free(qv_bigquery_filter *f);

/* The same translation, explained: *out gets one line per node that
 * declined, conjunct that was dropped or shed, with the reason, or
 * "nothing declined" (qv_malloc'd, qv_free).  Errors as
 * qv_to_bigquery_filter. */
QV_API qv_status qv_bigquery_filter_explain(const qv_expr *e, const qv_schema *schema, char **out, qv_error *err);

/* Reads a BigQuery table schema as JSON (len bytes, need not be
 * NUL-terminated): the field array `bq show --schema --format=json`
 * prints, an object with "fields", or a whole table resource with
 * "schema": {"fields": [...]}.  Each field has name, type, mode and, for
 * RECORD/STRUCT, fields.  Types map as BOOL/BOOLEAN -> bool,
 * INT64/INTEGER -> int64, FLOAT64/FLOAT -> float64, NUMERIC/DECIMAL ->
 * decimal(38,9), BIGNUMERIC/BIGDECIMAL -> string (quiver's decimals hold
 * 38 digits, not 76: the value travels as its decimal text),
 * STRING/JSON/GEOGRAPHY -> string, BYTES -> binary, DATE -> date32,
 * DATETIME -> timestamp[us], TIME -> time64[us], TIMESTAMP ->
 * timestamp[us, UTC], INTERVAL -> duration[us], RECORD/STRUCT -> struct,
 * mode REPEATED -> list.  A table resource whose timePartitioning has no
 * field (ingestion-time partitioning) also gets _PARTITIONDATE (date32)
 * and _PARTITIONTIME (timestamp[us, UTC]).  *out must be empty
 * (QV_SCHEMA_INIT); on failure it is reset.  Errors: QV_ERR_PARSE
 * "bigquery schema: ... at byte N" for malformed JSON or a field without a
 * name or type, QV_ERR_UNSUPPORTED for an unknown type, QV_ERR_NOMEM. */
QV_API qv_status qv_bigquery_schema_from_json(const char *json, size_t len, qv_schema *out, qv_error *err);

#ifdef __cplusplus
}
#endif
#endif
