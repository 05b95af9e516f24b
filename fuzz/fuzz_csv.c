/* Fuzz target: CSV import.  The first four bytes choose the dialect, the
 * chunk size (so refills cut records everywhere), batch and sample sizes,
 * and declared column types; the rest is the CSV text.  Every batch is
 * drained and checked for consistent lengths; errors are fine, crashes,
 * leaks and sanitizer reports are not. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/csv_int.h"
#include "quiver/columnar.h"

static const char *const k_types[] = {"int8",           "uint64",      "float32",       "decimal(5,2)",
                                      "decimal(38,10)", "date32",      "timestamp[ns]", "timestamp[ms, UTC]",
                                      "time64[us]",     "duration[s]", "bool",          "binary",
                                      "string",         "int64",       "float64",       "uint8"};

/* Hashes everything a reader produces: schema, every cell's text, and the
 * final status and message. */
static uint64_t drain(const char *text, int64_t size, const qv_csv_options *o, int64_t chunk) {
  qv_batch_reader *r = NULL;
  qv_error err = {0};
  qv_status st = qvc_csv_open_buffer_chunked(text, size, o, chunk, 1 << 16, &r, &err);
  uint64_t h = 0;
  if (st == QV_OK) {
    const qv_schema *s = r->schema(r);
    for (int32_t c = 0; c < s->n_fields; c++) {
      char t[128];
      qv_datatype_format(&s->fields[c].type, t, sizeof t);
      h = qv_hash64(t, strlen(t), h);
      h = qv_hash64(s->fields[c].name, strlen(s->fields[c].name), h);
    }
    for (;;) {
      qv_batch *b = NULL;
      if ((st = r->next(r, &b, &err)) != QV_OK || !b) break;
      if (b->num_rows < 1 || b->num_rows > o->batch_rows || b->schema.n_fields != s->n_fields) abort();
      for (int32_t c = 0; c < b->schema.n_fields; c++) {
        qv_array *a = b->columns[c];
        if (a->length != b->num_rows || qv_array_validate(a, &err) != QV_OK) abort();
        for (int64_t i = 0; i < a->length; i++) {
          char v[1024];
          int n = qv_array_format_value(a, i, v, sizeof v);
          h = qv_hash64(v, n < (int)sizeof v ? (size_t)n : sizeof v - 1, h);
        }
      }
      qv_batch_release(b);
    }
    qv_batch_reader_destroy(r);
  }
  h = qv_hash64(&st, sizeof st, h);
  if (st != QV_OK) h = qv_hash64(err.message, strlen(err.message), h);
  return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4) return 0;
  static const char delims[] = {',', ';', '\t', '|'};
  static const char quotes[] = {'"', '\'', '\0', '"'};
  static const char escapes[] = {'\0', '\\', '"', '\0'};
  static const int64_t infer[] = {1000, 0, 1, 2, -1, 3, 1000, 5};
  static const char *const nulls[] = {"", "NA", NULL};

  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.delimiter = delims[data[0] & 3];
  o.quote = quotes[(data[0] >> 2) & 3];
  o.escape = escapes[(data[0] >> 4) & 3];
  o.header = (data[0] >> 6) & 1;
  if (data[0] >> 7) o.null_values = nulls;
  int64_t chunk = data[1] < 16 ? 0 : 4 + data[1] % 61;
  o.batch_rows = 1 + (data[2] & 7);
  o.infer_rows = infer[(data[2] >> 3) & 7];
  /* Declared types for c0..c3 (names only exist without a header). */
  qv_csv_column_type ct[4];
  static const char *const names[] = {"c0", "c1", "c2", "c3"};
  int32_t n_ct = 0;
  if (!o.header) {
    for (int k = 0; k < 2; k++) {
      uint8_t sel = (uint8_t)(data[3] >> (4 * k));
      if (sel & 8) continue;
      ct[n_ct].name = names[k * 2 + (sel & 1)];
      ct[n_ct].type = k_types[(sel >> 1) % 4 + (k ? 4 : 0) + (data[2] >> 6) * 8 % 16];
      if (n_ct == 1 && strcmp(ct[0].name, ct[1].name) == 0) continue;
      n_ct++;
    }
  }
  o.column_types = ct;
  o.n_column_types = n_ct;

  /* Chunking must not change the outcome: read twice, compare digests. */
  uint64_t h1 = drain((const char *)data + 4, (int64_t)size - 4, &o, chunk);
  uint64_t h2 = drain((const char *)data + 4, (int64_t)size - 4, &o, 0);
  if (h1 != h2) abort();
  return 0;
}
