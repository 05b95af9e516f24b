/* CSV import: a qv_batch_reader over a CSV file, stdin or memory.
 *
 * Opening reads the header and the inference sample (the first infer_rows
 * records), fixes the schema, and keeps the sample to replay; after that
 * records stream through a chunked lexer (csv_lexer.c) into builders, one
 * batch of batch_rows rows at a time, so memory is bounded by the chunk, the
 * sample and one batch, not by the file.
 *
 * Behaviour, where CSV readers differ:
 *  - Nulls: a field equal to one of null_values (exact bytes, default "",
 *    "NA", "null", "NULL") is null.  For string and binary columns a quoted
 *    field is never null: quotes mark literal text, so `""` is an empty
 *    string and `"NA"` the two letters.  For other types quoting does not
 *    matter (`""` in an int column is null).
 *  - Inference looks at the non-null values of the sample.  A column takes
 *    the first of bool (true/false in any case), int64, float64 (decimal
 *    notation, nan, inf, infinity, any case, optional sign), date32
 *    (YYYY-MM-DD), timestamp[us] (a date, or date [T ]HH:MM[:SS[.f]], no UTC
 *    offset) that every value parses as, else string.  A column with no
 *    value in the sample is string.  An integer too large for int64 makes
 *    the column float64 (as Arrow does); declare uint64, decimal or string
 *    to keep it exact.  Blanks around numbers, bools and dates are ignored.
 *  - A value later in the file that does not parse as its column's type is
 *    an error naming line, column and value; columns are never re-typed
 *    (batches have gone out by then, and stdin cannot be read again).  For
 *    an inferred column the message says so and suggests the type to
 *    declare: the one inference would have picked with that value in the
 *    sample (int64 -> float64, date32 -> timestamp[us], else string), or
 *    timestamp[ns] for a timestamp with more than 6 fractional digits.
 *  - Declared types (column_types, by header name, or c0, c1, ... without a
 *    header): bool also takes 1/0; integers are range-checked; decimals are
 *    exact (a value needing rounding is an error); timestamp columns with a
 *    time zone take a trailing Z/+HH:MM and store UTC (a value without one
 *    is taken as UTC); naive ones refuse an offset; time64 takes
 *    HH:MM[:SS[.f]]; duration an integer count of its unit.
 *  - Structure: every record must have as many fields as the first (the
 *    header when there is one).  Empty lines are skipped.  A UTF-8 BOM at
 *    the start is skipped.  The whole input must be valid UTF-8.
 *  - Empty header names become c<i>.  An empty input has no columns; a
 *    header alone gives string columns (or the declared types) and no
 *    batches. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "columnar/csv_int.h"

static const char *const k_default_nulls[] = {"", "NA", "null", "NULL", NULL};

/* The sample: records kept from opening for inference and replay. */
typedef struct csv_sample {
  qv_buffer bytes;   /* field texts, each followed by a NUL */
  csv_field *fields; /* n_rows * ncols, offsets into bytes */
  int64_t *lines;
  int64_t n_rows, cap_rows;
} csv_sample;

typedef struct csv_reader {
  qv_batch_reader base;
  char *name;
  csv_lexer lexer;
  bool lexer_open;
  csv_record rec;
  csv_sample sample;
  int64_t sample_next; /* next sample row to replay */
  qv_schema schema;
  int32_t ncols;
  bool *inferred;      /* per column: the type came from the sample */
  int64_t sample_rows; /* records the types were inferred from */
  char **nulls;
  int64_t *null_lens;
  int32_t n_nulls;
  int64_t batch_rows;
  csv_c_locale *loc;
  bool done;
  qv_status failed; /* sticky: a reader that failed keeps failing */
  char failed_msg[sizeof(((qv_error *)0)->message)];
} csv_reader;

/* A record to convert: from the sample or straight from the lexer. */
typedef struct row_view {
  const uint8_t *data;
  const csv_field *fields;
  int64_t line;
} row_view;

/* ---- options ----------------------------------------------------------- */

static bool bad_dialect_char(char c) { return (unsigned char)c >= 0x80 || c == '\r' || c == '\n'; }

static qv_status check_options(const char *name, const qv_csv_options *o, qv_error *err) {
  if (o->version < 1 || o->version > QV_CSV_OPTIONS_VERSION)
    return qv_error_set(err, QV_ERR_INVALID, "%s: csv options version %d, expected 1..%d", name, o->version,
                        QV_CSV_OPTIONS_VERSION);
  if (o->delimiter == '\0' || bad_dialect_char(o->delimiter) || bad_dialect_char(o->quote) ||
      bad_dialect_char(o->escape))
    return qv_error_set(err, QV_ERR_INVALID,
                        "%s: delimiter, quote and escape must be ASCII and not a line end "
                        "(delimiter also not NUL)",
                        name);
  if (o->delimiter == o->quote || o->delimiter == o->escape)
    return qv_error_set(err, QV_ERR_INVALID, "%s: the delimiter must differ from the quote and escape characters",
                        name);
  if (o->batch_rows <= 0)
    return qv_error_set(err, QV_ERR_INVALID, "%s: batch_rows must be positive, not %" PRId64, name, o->batch_rows);
  if (o->n_column_types < 0 || (o->n_column_types > 0 && !o->column_types))
    return qv_error_set(err, QV_ERR_INVALID, "%s: column_types is NULL but n_column_types is %d", name,
                        (int)o->n_column_types);
  for (int32_t i = 0; i < o->n_column_types; i++)
    if (!o->column_types[i].name || !o->column_types[i].type)
      return qv_error_set(err, QV_ERR_INVALID, "%s: column_types[%d] has a NULL name or type", name, (int)i);
  return QV_OK;
}

static qv_status copy_nulls(csv_reader *rd, const qv_csv_options *o, qv_error *err) {
  const char *const *src = o->null_values ? o->null_values : k_default_nulls;
  int32_t n = 0;
  while (src[n]) n++;
  rd->nulls = qv_calloc((size_t)n + 1, sizeof *rd->nulls);
  rd->null_lens = qv_calloc((size_t)n + 1, sizeof *rd->null_lens);
  if (!rd->nulls || !rd->null_lens) goto nomem;
  for (int32_t i = 0; i < n; i++) {
    rd->nulls[i] = qv_strdup(src[i]);
    if (!rd->nulls[i]) goto nomem;
    rd->null_lens[i] = (int64_t)strlen(src[i]);
    rd->n_nulls = i + 1;
  }
  return QV_OK;
nomem:
  return qv_error_nomem(err, rd->name);
}

/* ---- values ------------------------------------------------------------ */

static bool matches_null(const csv_reader *rd, const uint8_t *text, int64_t len) {
  for (int32_t i = 0; i < rd->n_nulls; i++)
    if (rd->null_lens[i] == len && memcmp(rd->nulls[i], text, (size_t)len) == 0) return true;
  return false;
}

static bool is_null(const csv_reader *rd, qv_type_id id, const uint8_t *text, const csv_field *f) {
  if (f->quoted && (id == QV_TYPE_STRING || id == QV_TYPE_BINARY)) return false;
  return matches_null(rd, text, f->len);
}

/* The value as it appears in a message: at most ~60 bytes, cut on a UTF-8
 * boundary, control characters shown as \xHH. */
static void show_value(const uint8_t *s, int64_t len, char *out, size_t size) {
  size_t o = 0;
  int64_t i = 0;
  for (; i < len && o + 8 < size && i < 60; i++) {
    uint8_t c = s[i];
    if (c < 0x20 || c == 0x7F) o += (size_t)snprintf(out + o, size - o, "\\x%02X", c);
    else out[o++] = (char)c;
  }
  while (i < len && o > 0 && (s[i] & 0xC0) == 0x80) { /* back off a cut sequence */
    i--;
    o--;
  }
  if (i < len && o + 4 < size) {
    memcpy(out + o, "...", 3);
    o += 3;
  }
  out[o] = '\0';
}

/* For a value that does not parse as its column's inferred type: the type
 * inference would have chosen had the value been in the sample (the sample
 * parsed as type id, so only these widenings keep it parsing). */
static const char *wider_type(const csv_reader *rd, qv_type_id id, const uint8_t *text, int64_t len) {
  double d;
  int64_t ts;
  if (id == QV_TYPE_INT64 && !csv_parse_double(text, len, rd->loc, &d).reason) return "float64";
  if (id == QV_TYPE_DATE32 && !csv_parse_timestamp(text, len, QV_UNIT_MICRO, false, &ts).reason) return "timestamp[us]";
  if (id == QV_TYPE_TIMESTAMP && !csv_parse_timestamp(text, len, QV_UNIT_NANO, false, &ts).reason)
    return "timestamp[ns]"; /* more digits than microseconds hold */
  return "string";
}

static qv_status value_error(const csv_reader *rd, int32_t col, int64_t line, const uint8_t *text, int64_t len,
                             csv_parse_result r, qv_error *err) {
  char tname[128], shown[256];
  const qv_field *f = &rd->schema.fields[col];
  qv_datatype_format(&f->type, tname, sizeof tname);
  show_value(text, len, shown, sizeof shown);
  qv_status code = r.range ? QV_ERR_OVERFLOW : QV_ERR_PARSE;
  if (!rd->inferred || !rd->inferred[col])
    return qv_error_set(err, code, "%s: line %" PRId64 ": column `%s`: '%s' %s %s", rd->name, line, f->name, shown,
                        r.reason, tname);
  /* Types are fixed once batches have gone out, and the rows before this
   * one may be gone (stdin), so the column is not re-typed: the message
   * says how to read the file instead. */
  char rows[48] = "row";
  if (rd->sample_rows != 1) snprintf(rows, sizeof rows, "%" PRId64 " rows", rd->sample_rows);
  return qv_error_set(err, code,
                      "%s: line %" PRId64
                      ": column `%s`: '%s' %s %s (%s was inferred from the first %s; declare the "
                      "column's type, e.g. %s=%s, or infer from more rows)",
                      rd->name, line, f->name, shown, r.reason, tname, tname, rows, f->name,
                      wider_type(rd, f->type.id, text, len));
}

static csv_parse_result signed_in_range(int64_t v, qv_type_id id) {
  static const csv_parse_result ok = {NULL, false}, range = {"is out of range for", true};
  switch (id) {
    case QV_TYPE_INT8: return v < INT8_MIN || v > INT8_MAX ? range : ok;
    case QV_TYPE_INT16: return v < INT16_MIN || v > INT16_MAX ? range : ok;
    case QV_TYPE_INT32: return v < INT32_MIN || v > INT32_MAX ? range : ok;
    default: return ok;
  }
}

static csv_parse_result unsigned_in_range(uint64_t v, qv_type_id id) {
  static const csv_parse_result ok = {NULL, false}, range = {"is out of range for", true};
  switch (id) {
    case QV_TYPE_UINT8: return v > UINT8_MAX ? range : ok;
    case QV_TYPE_UINT16: return v > UINT16_MAX ? range : ok;
    case QV_TYPE_UINT32: return v > UINT32_MAX ? range : ok;
    default: return ok;
  }
}

/* Parses field f of the row as column col's type and appends it. */
static qv_status append_value(csv_reader *rd, int32_t col, qv_builder *b, const row_view *row, qv_error *err) {
  const csv_field *f = &row->fields[col];
  const uint8_t *text = row->data + f->off;
  const qv_datatype *t = &rd->schema.fields[col].type;
  csv_parse_result r = {NULL, false};
  qv_status st = QV_OK;
  if (is_null(rd, t->id, text, f)) {
    st = qv_builder_append_null(b);
  } else {
    switch (t->id) {
      case QV_TYPE_STRING:
      case QV_TYPE_BINARY: st = qv_builder_append_bytes(b, text, f->len); break;
      case QV_TYPE_BOOL: {
        bool v = false;
        if (!(r = csv_parse_bool(text, f->len, false, &v)).reason) st = qv_builder_append_bool(b, v);
        break;
      }
      case QV_TYPE_INT8:
      case QV_TYPE_INT16:
      case QV_TYPE_INT32:
      case QV_TYPE_INT64:
      case QV_TYPE_DURATION: {
        int64_t v = 0;
        if (!(r = csv_parse_int64(text, f->len, &v)).reason && !(r = signed_in_range(v, t->id)).reason)
          st = qv_builder_append_int(b, v);
        break;
      }
      case QV_TYPE_UINT8:
      case QV_TYPE_UINT16:
      case QV_TYPE_UINT32:
      case QV_TYPE_UINT64: {
        uint64_t v = 0;
        if (!(r = csv_parse_uint64(text, f->len, &v)).reason && !(r = unsigned_in_range(v, t->id)).reason)
          st = qv_builder_append_uint(b, v);
        break;
      }
      case QV_TYPE_FLOAT32: {
        float v = 0;
        if (!(r = csv_parse_float(text, f->len, rd->loc, &v)).reason) st = qv_builder_append_double(b, (double)v);
        break;
      }
      case QV_TYPE_FLOAT64: {
        double v = 0;
        if (!(r = csv_parse_double(text, f->len, rd->loc, &v)).reason) st = qv_builder_append_double(b, v);
        break;
      }
      case QV_TYPE_DECIMAL128: {
        uint64_t lo = 0;
        int64_t hi = 0;
        if (!(r = csv_parse_decimal(text, f->len, t->precision, t->scale, &lo, &hi)).reason)
          st = qv_builder_append_decimal(b, lo, hi);
        break;
      }
      case QV_TYPE_DATE32: {
        int32_t v = 0;
        if (!(r = csv_parse_date32(text, f->len, &v)).reason) st = qv_builder_append_int(b, v);
        break;
      }
      case QV_TYPE_TIMESTAMP: {
        int64_t v = 0;
        if (!(r = csv_parse_timestamp(text, f->len, t->unit, t->timezone != NULL, &v)).reason)
          st = qv_builder_append_int(b, v);
        break;
      }
      case QV_TYPE_TIME64: {
        int64_t v = 0;
        if (!(r = csv_parse_time(text, f->len, t->unit, &v)).reason) st = qv_builder_append_int(b, v);
        break;
      }
      default: /* refused when the schema was built */
        return qv_error_set(err, QV_ERR_UNSUPPORTED, "%s: column `%s`: unsupported type", rd->name,
                            rd->schema.fields[col].name);
    }
  }
  if (r.reason) return value_error(rd, col, row->line, text, f->len, r, err);
  if (st == QV_ERR_NOMEM) return qv_error_set(err, st, "%s: out of memory", rd->name);
  if (st != QV_OK)
    return qv_error_set(err, st, "%s: line %" PRId64 ": column `%s`: cannot append value (%s)", rd->name, row->line,
                        rd->schema.fields[col].name, qv_status_string(st));
  return QV_OK;
}

static bool type_supported(qv_type_id id) {
  switch (id) {
    case QV_TYPE_BOOL:
    case QV_TYPE_INT8:
    case QV_TYPE_INT16:
    case QV_TYPE_INT32:
    case QV_TYPE_INT64:
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32:
    case QV_TYPE_UINT64:
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64:
    case QV_TYPE_DECIMAL128:
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY:
    case QV_TYPE_DATE32:
    case QV_TYPE_TIMESTAMP:
    case QV_TYPE_TIME64:
    case QV_TYPE_DURATION: return true;
    default: return false;
  }
}

/* ---- records and the sample -------------------------------------------- */

static qv_status check_width(const csv_reader *rd, const csv_record *r, qv_error *err) {
  if (r->n_fields == rd->ncols) return QV_OK;
  return qv_error_set(err, QV_ERR_PARSE, "%s: line %" PRId64 ": expected %d fields, found %d", rd->name, r->line,
                      (int)rd->ncols, (int)r->n_fields);
}

static qv_status sample_add(csv_reader *rd, const csv_record *r, qv_error *err) {
  csv_sample *s = &rd->sample;
  if (s->n_rows == s->cap_rows) {
    int64_t cap = s->cap_rows ? s->cap_rows * 2 : 64;
    csv_field *f = qv_realloc(s->fields, (size_t)cap * (size_t)rd->ncols * sizeof *f);
    if (!f) goto nomem;
    s->fields = f;
    int64_t *l = qv_realloc(s->lines, (size_t)cap * sizeof *l);
    if (!l) goto nomem;
    s->lines = l;
    s->cap_rows = cap;
  }
  int64_t base = s->bytes.size;
  if (qv_buffer_append(&s->bytes, r->data, r->size) != QV_OK) goto nomem;
  csv_field *dst = s->fields + s->n_rows * rd->ncols;
  for (int32_t c = 0; c < rd->ncols; c++) {
    dst[c] = r->fields[c];
    dst[c].off += base;
  }
  s->lines[s->n_rows++] = r->line;
  return QV_OK;
nomem:
  return qv_error_nomem(err, rd->name);
}

static void sample_free(csv_sample *s) {
  qv_buffer_reset(&s->bytes);
  qv_free(s->fields);
  qv_free(s->lines);
  memset(s, 0, sizeof *s);
}

/* Next data row: the sample first, then the lexer.  *got false at the end. */
static qv_status next_row(csv_reader *rd, row_view *v, bool *got, qv_error *err) {
  csv_sample *s = &rd->sample;
  if (rd->sample_next < s->n_rows) {
    v->data = s->bytes.data;
    v->fields = s->fields + rd->sample_next * rd->ncols;
    v->line = s->lines[rd->sample_next];
    rd->sample_next++;
    *got = true;
    return QV_OK;
  }
  if (s->n_rows > 0) { /* replayed: give the memory back */
    sample_free(s);
    rd->sample_next = 0;
  }
  QV_RETURN_NOT_OK(csv_lexer_next(&rd->lexer, &rd->rec, got, err));
  if (!*got) return QV_OK;
  QV_RETURN_NOT_OK(check_width(rd, &rd->rec, err));
  v->data = rd->rec.data;
  v->fields = rd->rec.fields;
  v->line = rd->rec.line;
  return QV_OK;
}

/* ---- inference --------------------------------------------------------- */

enum { CAN_BOOL = 1, CAN_INT = 2, CAN_FLOAT = 4, CAN_DATE = 8, CAN_TS = 16, CAN_ALL = 31 };

static qv_datatype infer_column(const csv_reader *rd, int32_t col, int64_t n_rows) {
  const csv_sample *s = &rd->sample;
  unsigned can = CAN_ALL;
  bool seen = false;
  for (int64_t r = 0; r < n_rows && can; r++) {
    const csv_field *f = &s->fields[r * rd->ncols + col];
    const uint8_t *text = s->bytes.data + f->off;
    if (matches_null(rd, text, f->len)) continue;
    seen = true;
    bool b;
    int64_t i;
    double d;
    int32_t day;
    if ((can & CAN_BOOL) && csv_parse_bool(text, f->len, true, &b).reason) can &= ~(unsigned)CAN_BOOL;
    if ((can & CAN_INT) && csv_parse_int64(text, f->len, &i).reason) can &= ~(unsigned)CAN_INT;
    if ((can & CAN_FLOAT) && csv_parse_double(text, f->len, rd->loc, &d).reason) can &= ~(unsigned)CAN_FLOAT;
    if ((can & CAN_DATE) && csv_parse_date32(text, f->len, &day).reason) can &= ~(unsigned)CAN_DATE;
    if ((can & CAN_TS) && csv_parse_timestamp(text, f->len, QV_UNIT_MICRO, false, &i).reason) can &= ~(unsigned)CAN_TS;
  }
  if (!seen || !can) return qv_datatype_simple(QV_TYPE_STRING);
  if (can & CAN_BOOL) return qv_datatype_simple(QV_TYPE_BOOL);
  if (can & CAN_INT) return qv_datatype_simple(QV_TYPE_INT64);
  if (can & CAN_FLOAT) return qv_datatype_simple(QV_TYPE_FLOAT64);
  if (can & CAN_DATE) return qv_datatype_simple(QV_TYPE_DATE32);
  qv_datatype ts = qv_datatype_simple(QV_TYPE_TIMESTAMP);
  ts.unit = QV_UNIT_MICRO;
  return ts;
}

/* ---- opening ----------------------------------------------------------- */

/* Column names from the header record, or c0, c1, ... */
static qv_status make_names(csv_reader *rd, const csv_record *hdr, bool header, qv_error *err) {
  rd->schema.fields = qv_calloc((size_t)rd->ncols, sizeof *rd->schema.fields);
  if (!rd->schema.fields) goto nomem;
  rd->schema.n_fields = rd->ncols;
  for (int32_t c = 0; c < rd->ncols; c++) {
    qv_field *f = &rd->schema.fields[c];
    f->nullable = true;
    f->type = qv_datatype_simple(QV_TYPE_STRING);
    if (header && hdr->fields[c].len > 0) {
      f->name = qv_strndup((const char *)hdr->data + hdr->fields[c].off, (size_t)hdr->fields[c].len);
    } else {
      char buf[24];
      snprintf(buf, sizeof buf, "c%d", (int)c);
      f->name = qv_strdup(buf);
    }
    if (!f->name) goto nomem;
  }
  return QV_OK;
nomem:
  return qv_error_nomem(err, rd->name);
}

/* Names the columns by column_names (options version 2) instead of the
 * header or c0, c1, ...: one name per column of the first record. */
static qv_status rename_columns(csv_reader *rd, const qv_csv_options *o, qv_error *err) {
  if (o->version < 2 || o->n_column_names <= 0) return QV_OK;
  if (o->n_column_names != rd->ncols)
    return qv_error_set(err, QV_ERR_INVALID, "%s: %d column names given for the %d columns of the first line", rd->name,
                        (int)o->n_column_names, (int)rd->ncols);
  for (int32_t c = 0; c < rd->ncols; c++) {
    char *name = qv_strdup(o->column_names[c]);
    if (!name) return qv_error_nomem(err, rd->name);
    qv_free(rd->schema.fields[c].name);
    rd->schema.fields[c].name = name;
  }
  return QV_OK;
}

/* Applies column_types; marks declared columns in declared[]. */
static qv_status apply_overrides(csv_reader *rd, const qv_csv_options *o, bool *declared, qv_error *err) {
  for (int32_t k = 0; k < o->n_column_types; k++) {
    const qv_csv_column_type *ct = &o->column_types[k];
    for (int32_t j = 0; j < k; j++)
      if (strcmp(o->column_types[j].name, ct->name) == 0)
        return qv_error_set(err, QV_ERR_INVALID, "%s: column_types names column `%s` twice", rd->name, ct->name);
    qv_datatype t = QV_DATATYPE_INIT;
    qv_status st = qv_datatype_parse(ct->type, &t, err);
    if (st != QV_OK) return qv_error_prefix(err, st, "%s: column_types: column `%s`", rd->name, ct->name);
    if (!type_supported(t.id)) {
      char tname[128];
      qv_datatype_format(&t, tname, sizeof tname);
      qv_datatype_reset(&t);
      return qv_error_set(err, QV_ERR_UNSUPPORTED, "%s: column_types: column `%s`: CSV import cannot produce %s",
                          rd->name, ct->name, tname);
    }
    bool found = false;
    for (int32_t c = 0; c < rd->ncols; c++) {
      qv_field *f = &rd->schema.fields[c];
      if (strcmp(f->name, ct->name) != 0) continue;
      qv_datatype_reset(&f->type);
      if (qv_datatype_copy(&t, &f->type) != QV_OK) {
        qv_datatype_reset(&t);
        return qv_error_nomem(err, rd->name);
      }
      declared[c] = true;
      found = true;
    }
    qv_datatype_reset(&t);
    if (!found)
      return qv_error_set(err, QV_ERR_NOT_FOUND, "%s: column_types: no column named `%s`", rd->name, ct->name);
  }
  return QV_OK;
}

static qv_status reader_next(qv_batch_reader *self, qv_batch **out, qv_error *err);
static const qv_schema *reader_schema(qv_batch_reader *self);
static void reader_destroy(qv_batch_reader *self);

/* Everything after the lexer exists: header, sample, schema. */
static qv_status open_reader(csv_reader *rd, const qv_csv_options *o, qv_error *err) {
  bool *declared = NULL;
  bool got = false;
  qv_status st = copy_nulls(rd, o, err);
  if (st != QV_OK) goto cleanup;
  rd->loc = csv_c_locale_new();
  if (!rd->loc) {
    st = qv_error_set(err, QV_ERR_NOMEM, "%s: out of memory (creating the C locale)", rd->name);
    goto cleanup;
  }
  if ((st = csv_lexer_next(&rd->lexer, &rd->rec, &got, err)) != QV_OK) goto cleanup;
  if (!got) { /* no records at all: no columns, no batches */
    rd->done = true;
    goto cleanup;
  }
  rd->ncols = rd->rec.n_fields;
  if ((st = make_names(rd, &rd->rec, o->header, err)) != QV_OK) goto cleanup;
  if ((st = rename_columns(rd, o, err)) != QV_OK) goto cleanup;
  if (!o->header && (st = sample_add(rd, &rd->rec, err)) != QV_OK) goto cleanup;

  declared = qv_calloc((size_t)rd->ncols, sizeof *declared);
  if (!declared) {
    st = qv_error_nomem(err, rd->name);
    goto cleanup;
  }
  if ((st = apply_overrides(rd, o, declared, err)) != QV_OK) goto cleanup;
  bool infer = false;
  for (int32_t c = 0; c < rd->ncols; c++) infer |= !declared[c];
  if (o->infer_rows == 0) infer = false;

  /* Read the sample (also when inference is off, a record read to count
   * the columns stays queued in it). */
  while (infer && (o->infer_rows < 0 || rd->sample.n_rows < o->infer_rows)) {
    if ((st = csv_lexer_next(&rd->lexer, &rd->rec, &got, err)) != QV_OK) goto cleanup;
    if (!got) break;
    if ((st = check_width(rd, &rd->rec, err)) != QV_OK) goto cleanup;
    if ((st = sample_add(rd, &rd->rec, err)) != QV_OK) goto cleanup;
  }
  if (infer) {
    int64_t n = rd->sample.n_rows;
    if (o->infer_rows >= 0 && n > o->infer_rows) n = o->infer_rows;
    rd->inferred = qv_calloc((size_t)rd->ncols, sizeof *rd->inferred);
    if (!rd->inferred) {
      st = qv_error_nomem(err, rd->name);
      goto cleanup;
    }
    rd->sample_rows = n;
    for (int32_t c = 0; c < rd->ncols; c++) {
      if (declared[c]) continue;
      qv_datatype_reset(&rd->schema.fields[c].type);
      rd->schema.fields[c].type = infer_column(rd, c, n);
      rd->inferred[c] = true;
    }
  }
cleanup:
  qv_free(declared);
  return st;
}

static qv_status finish_open(csv_reader *rd, const qv_csv_options *o, qv_batch_reader **out, qv_error *err) {
  rd->base.next = reader_next;
  rd->base.schema = reader_schema;
  rd->base.destroy = reader_destroy;
  rd->base.private_data = rd;
  rd->batch_rows = o->batch_rows;
  qv_status st = open_reader(rd, o, err);
  if (st != QV_OK) {
    reader_destroy(&rd->base);
    return st;
  }
  *out = &rd->base;
  return QV_OK;
}

static csv_reader *reader_alloc(const char *name, qv_error *err) {
  csv_reader *rd = qv_calloc(1, sizeof *rd);
  if (rd) rd->name = qv_strdup(name);
  if (!rd || !rd->name) {
    qv_free(rd);
    qv_error_nomem(err, name);
    return NULL;
  }
  return rd;
}

static csv_dialect dialect_of(const qv_csv_options *o) {
  csv_dialect d = {o->delimiter, o->quote, o->escape};
  return d;
}

qv_status qv_csv_open(const char *path, const qv_csv_options *opts, qv_batch_reader **out, qv_error *err) {
  static const qv_csv_options defaults = QV_CSV_OPTIONS_INIT;
  const qv_csv_options *o = opts ? opts : &defaults;
  if (!out) return qv_error_set(err, QV_ERR_INVALID, "csv: out is NULL");
  *out = NULL;
  if (!path) return qv_error_set(err, QV_ERR_INVALID, "csv: path is NULL");
  bool is_stdin = strcmp(path, "-") == 0;
  const char *name = is_stdin ? "<stdin>" : path;
  QV_RETURN_NOT_OK(check_options(name, o, err));
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  if (!f)
    return qv_error_set(err, errno == ENOENT ? QV_ERR_NOT_FOUND : QV_ERR_IO, "%s: cannot open: %s", path,
                        strerror(errno));
  csv_reader *rd = reader_alloc(name, err);
  if (!rd) {
    if (!is_stdin) fclose(f);
    return QV_ERR_NOMEM;
  }
  csv_dialect d = dialect_of(o);
  qv_status st = csv_lexer_init_file(&rd->lexer, rd->name, f, !is_stdin, &d, QV_CSV_CHUNK_DEFAULT, err);
  if (st != QV_OK) { /* the lexer closed f */
    qv_free(rd->name);
    qv_free(rd);
    return st;
  }
  rd->lexer_open = true;
  rd->lexer.bytes_read = o->bytes_read;
  return finish_open(rd, o, out, err);
}

qv_status qvc_csv_open_buffer_chunked(const char *data, int64_t size, const qv_csv_options *opts, int64_t chunk_size,
                                      int64_t max_record, qv_batch_reader **out, qv_error *err) {
  static const qv_csv_options defaults = QV_CSV_OPTIONS_INIT;
  const qv_csv_options *o = opts ? opts : &defaults;
  const char *name = "<buffer>";
  if (!out) return qv_error_set(err, QV_ERR_INVALID, "csv: out is NULL");
  *out = NULL;
  if (size < 0 || (size > 0 && !data))
    return qv_error_set(err, QV_ERR_INVALID, "%s: no data (size %" PRId64 ")", name, size);
  QV_RETURN_NOT_OK(check_options(name, o, err));
  csv_reader *rd = reader_alloc(name, err);
  if (!rd) return QV_ERR_NOMEM;
  csv_dialect d = dialect_of(o);
  qv_status st = csv_lexer_init_buffer(&rd->lexer, rd->name, data, size, &d, chunk_size > 0 ? chunk_size : size, err);
  if (st != QV_OK) {
    csv_lexer_free(&rd->lexer);
    qv_free(rd->name);
    qv_free(rd);
    return st;
  }
  rd->lexer_open = true;
  if (max_record > 0) rd->lexer.max_record = max_record;
  return finish_open(rd, o, out, err);
}

qv_status qv_csv_open_buffer(const char *data, int64_t size, const qv_csv_options *opts, qv_batch_reader **out,
                             qv_error *err) {
  return qvc_csv_open_buffer_chunked(data, size, opts, 0, 0, out, err);
}

/* ---- the reader -------------------------------------------------------- */

static const qv_schema *reader_schema(qv_batch_reader *self) { return &((csv_reader *)self->private_data)->schema; }

static void reader_destroy(qv_batch_reader *self) {
  if (!self) return;
  csv_reader *rd = self->private_data;
  if (rd->lexer_open) csv_lexer_free(&rd->lexer);
  csv_record_free(&rd->rec);
  sample_free(&rd->sample);
  qv_schema_reset(&rd->schema);
  qv_free(rd->inferred);
  for (int32_t i = 0; i < rd->n_nulls; i++) qv_free(rd->nulls[i]);
  qv_free(rd->nulls);
  qv_free(rd->null_lens);
  csv_c_locale_free(rd->loc);
  qv_free(rd->name);
  qv_free(rd);
}

static qv_status reader_next(qv_batch_reader *self, qv_batch **out, qv_error *err) {
  csv_reader *rd = self->private_data;
  *out = NULL;
  if (rd->failed != QV_OK) {
    if (err) {
      err->code = rd->failed;
      memcpy(err->message, rd->failed_msg, sizeof err->message);
    }
    return rd->failed;
  }
  if (rd->done) return QV_OK;

  int32_t n = rd->ncols;
  qv_error local;
  qv_error *e = err ? err : &local;
  qv_array **cols = NULL;
  qv_builder *b = qv_calloc((size_t)n, sizeof *b);
  int32_t n_init = 0;
  int64_t rows = 0;
  qv_status st = QV_OK;
  if (!b) {
    st = qv_error_nomem(e, rd->name);
    goto cleanup;
  }
  for (; n_init < n; n_init++)
    if ((st = qv_builder_init(&b[n_init], &rd->schema.fields[n_init].type, e)) != QV_OK) goto cleanup;

  while (rows < rd->batch_rows) {
    row_view row;
    bool got = false;
    if ((st = next_row(rd, &row, &got, e)) != QV_OK) goto cleanup;
    if (!got) {
      rd->done = true;
      break;
    }
    bool full = false;
    for (int32_t c = 0; c < n; c++) {
      if ((st = append_value(rd, c, &b[c], &row, e)) != QV_OK) goto cleanup;
      /* Keep string offsets inside int32 whatever batch_rows says. */
      if (b[c].data.size > QV_CSV_FLUSH_BYTES) full = true;
    }
    rows++;
    if (full) break;
  }
  if (rows == 0) goto cleanup;

  cols = qv_calloc((size_t)n, sizeof *cols);
  if (!cols) {
    st = qv_error_nomem(e, rd->name);
    goto cleanup;
  }
  for (int32_t c = 0; c < n; c++)
    if ((st = qv_builder_finish(&b[c], &cols[c], e)) != QV_OK) goto cleanup;
  /* qv_batch_make takes the column references, on failure too. */
  st = qv_batch_make(&rd->schema, cols, rows, out, e);
  qv_free(cols);
  cols = NULL;

cleanup:
  if (cols)
    for (int32_t c = 0; c < n; c++) qv_array_release(cols[c]);
  qv_free(cols);
  for (int32_t c = 0; c < n_init; c++) qv_builder_reset(&b[c]);
  qv_free(b);
  if (st != QV_OK) {
    rd->failed = st;
    memcpy(rd->failed_msg, e->message, sizeof rd->failed_msg);
  }
  return st;
}
