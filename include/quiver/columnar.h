/* quiver columnar layer: data types, Arrow-layout arrays and record batches,
 * builders, the Arrow C Data Interface, Arrow IPC (file and stream), and CSV
 * import.  Knows nothing about expressions. */
#ifndef QUIVER_COLUMNAR_H
#define QUIVER_COLUMNAR_H

#include <stdio.h>

#include "quiver/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- data types ------------------------------------------------------ */

typedef enum qv_type_id {
  QV_TYPE_NULL = 0,
  QV_TYPE_BOOL,
  QV_TYPE_INT8,
  QV_TYPE_INT16,
  QV_TYPE_INT32,
  QV_TYPE_INT64,
  QV_TYPE_UINT8,
  QV_TYPE_UINT16,
  QV_TYPE_UINT32,
  QV_TYPE_UINT64,
  QV_TYPE_FLOAT32,
  QV_TYPE_FLOAT64,
  QV_TYPE_DECIMAL128,      /* precision 1..38, scale; value in int128 two's complement LE */
  QV_TYPE_STRING,          /* UTF-8, int32 offsets */
  QV_TYPE_BINARY,          /* int32 offsets */
  QV_TYPE_DATE32,          /* days since 1970-01-01 */
  QV_TYPE_TIMESTAMP,       /* int64 since the epoch in unit; optional time zone */
  QV_TYPE_TIME64,          /* int64 since midnight in unit (us or ns) */
  QV_TYPE_DURATION,        /* int64 in unit */
  QV_TYPE_LIST,            /* int32 offsets + one child */
  QV_TYPE_STRUCT,          /* children, one per field */
  QV_TYPE_FIXED_SIZE_LIST, /* list_size values per slot, one child */
  /* Dictionary-encoded: per row an integer index into a dictionary array
   * of values.  The type has two children, "indices" (an integer type) and
   * "values" (a flat, non-dictionary type); the array keeps the rows'
   * validity in buffers[0], the indices in buffers[1] and the dictionary
   * in children[0].  A row is null when its index is null or its
   * dictionary entry is. */
  QV_TYPE_DICTIONARY
} qv_type_id;

typedef enum qv_time_unit { QV_UNIT_SECOND = 0, QV_UNIT_MILLI = 1, QV_UNIT_MICRO = 2, QV_UNIT_NANO = 3 } qv_time_unit;

struct qv_field;

/* A data type.  Value struct: init with QV_DATATYPE_INIT or qv_datatype_*,
 * deep-copied by qv_datatype_copy, freed by qv_datatype_reset. */
typedef struct qv_datatype {
  qv_type_id id;
  int32_t precision;         /* decimal128 */
  int32_t scale;             /* decimal128 */
  qv_time_unit unit;         /* timestamp, time64, duration */
  char *timezone;            /* timestamp; NULL when naive; owned */
  int32_t list_size;         /* fixed_size_list */
  int32_t n_children;        /* list, fixed_size_list: 1; struct: n */
  struct qv_field *children; /* owned array of n_children fields */
} qv_datatype;

typedef struct qv_field {
  char *name; /* owned, UTF-8 */
  qv_datatype type;
  bool nullable;
} qv_field;

#define QV_DATATYPE_INIT \
  { QV_TYPE_NULL, 0, 0, QV_UNIT_SECOND, NULL, 0, 0, NULL }

/* Simple (childless, parameterless) type. */
QV_API qv_datatype qv_datatype_simple(qv_type_id id);
QV_API qv_status qv_datatype_decimal(int32_t precision, int32_t scale, qv_datatype *out, qv_error *err);
/* tz may be NULL (naive); it is copied. */
QV_API qv_status qv_datatype_timestamp(qv_time_unit unit, const char *tz, qv_datatype *out, qv_error *err);
QV_API qv_datatype qv_datatype_time64(qv_time_unit unit);
QV_API qv_datatype qv_datatype_duration(qv_time_unit unit);
/* Takes ownership of *item (reset to NULL type on success). */
QV_API qv_status qv_datatype_list(qv_datatype *item, qv_datatype *out, qv_error *err);
QV_API qv_status qv_datatype_fixed_size_list(qv_datatype *item, int32_t size, qv_datatype *out, qv_error *err);
/* dictionary<index, values>: index an integer type id; takes ownership of
 * *values (a flat type other than a dictionary; reset on success). */
QV_API qv_status qv_datatype_dictionary(qv_type_id index, qv_datatype *values, qv_datatype *out, qv_error *err);
/* Takes ownership of fields[0..n) (their contents are moved). */
QV_API qv_status qv_datatype_struct(qv_field *fields, int32_t n, qv_datatype *out, qv_error *err);
QV_API qv_status qv_datatype_copy(const qv_datatype *src, qv_datatype *out);
QV_API void qv_datatype_reset(qv_datatype *t);
QV_API bool qv_datatype_equal(const qv_datatype *a, const qv_datatype *b);
/* Writes a readable name ("timestamp[us, UTC]", "list<int64>") into buf;
 * returns the length that would have been written (snprintf contract). */
QV_API int qv_datatype_format(const qv_datatype *t, char *buf, size_t size);
/* Parses the format above back ("int64", "decimal(10,2)", "timestamp[ms]"). */
QV_API qv_status qv_datatype_parse(const char *text, qv_datatype *out, qv_error *err);

/* Bytes per value of a fixed-width type (bool: 0, meaning bit-packed;
 * variable-width and nested: -1). */
QV_API int qv_type_byte_width(qv_type_id id);
QV_API bool qv_type_is_integer(qv_type_id id);
QV_API bool qv_type_is_signed(qv_type_id id);
QV_API bool qv_type_is_floating(qv_type_id id);
QV_API bool qv_type_is_numeric(qv_type_id id); /* integer, float, decimal */
QV_API bool qv_type_is_temporal(qv_type_id id);
QV_API const char *qv_time_unit_name(qv_time_unit u); /* "s", "ms", "us", "ns" */

QV_API qv_status qv_field_init(qv_field *f, const char *name, qv_datatype *type, bool nullable, qv_error *err);
QV_API qv_status qv_field_copy(const qv_field *src, qv_field *out);
QV_API void qv_field_reset(qv_field *f);

/* ---- schema ---------------------------------------------------------- */

typedef struct qv_schema {
  int32_t n_fields;
  qv_field *fields; /* owned */
} qv_schema;

#define QV_SCHEMA_INIT \
  { 0, NULL }
/* Appends a copy of the field. */
QV_API qv_status qv_schema_add(qv_schema *s, const qv_field *field, qv_error *err);
QV_API qv_status qv_schema_copy(const qv_schema *src, qv_schema *out);
QV_API void qv_schema_reset(qv_schema *s);
/* Index of the field with this name, or -1. */
QV_API int32_t qv_schema_find(const qv_schema *s, const char *name);
QV_API bool qv_schema_equal(const qv_schema *a, const qv_schema *b);

/* ---- arrays ---------------------------------------------------------- */

/* An immutable Arrow-layout array, reference counted.
 * buffers[0] is the validity bitmap (NULL when there are no nulls);
 * buffers[1] values (fixed width, bool bits) or int32 offsets (string,
 * binary, list); buffers[2] the character data (string, binary).
 * Struct, list and fixed_size_list keep their children in children[].
 * `offset` is in elements and applies to this array's buffers. */
typedef struct qv_array {
  qv_datatype type;
  int64_t length;
  int64_t null_count;
  int64_t offset;
  qv_bytes *buffers[3];
  int32_t n_children;
  struct qv_array **children;
  int32_t refcount; /* changed only by retain/release, atomically */
} qv_array;

/* A flat array (no children) from buffers; takes the buffer references
 * (also on failure).  null_count is computed from validity (may be NULL). */
QV_API qv_status qv_array_from_buffers(const qv_datatype *type, int64_t length, qv_bytes *validity, qv_bytes *values,
                                       qv_bytes *data, qv_array **out, qv_error *err);
/* A fresh array (type copied, refcount 1) with no buffers and n_children
 * empty child slots, for decoders that fill buffers[] and children[]
 * themselves (and must leave it valid: see qv_array_validate).  NULL on
 * allocation failure. */
QV_API qv_array *qv_array_alloc(const qv_datatype *type, int64_t length, int32_t n_children);
QV_API qv_array *qv_array_retain(qv_array *a); /* NULL-safe */
QV_API void qv_array_release(qv_array *a);     /* NULL-safe */
/* Zero-copy slice [offset, offset+length); new reference. */
QV_API qv_status qv_array_slice(qv_array *a, int64_t offset, int64_t length, qv_array **out, qv_error *err);
/* Rows rows[0..n) of a (any type) into a new array. */
QV_API qv_status qv_array_take(const qv_array *a, const uint32_t *rows, int64_t n, qv_array **out, qv_error *err);
/* Array of length rows, all null, of the given type. */
QV_API qv_status qv_array_make_null(const qv_datatype *type, int64_t length, qv_array **out, qv_error *err);
/* Concatenates arrays of the same type. */
QV_API qv_status qv_array_concat(qv_array *const *arrays, int32_t n, qv_array **out, qv_error *err);
/* A dictionary-encoded array: row i is values[indices[i]], null where
 * indices[i] is null or that entry of values is.  Takes both references
 * (also on failure).  indices must be an integer array whose non-null
 * entries all lie in [0, values->length) (QV_ERR_INVALID names the first
 * that does not); values a flat array, not itself a dictionary. */
QV_API qv_status qv_array_dictionary(qv_array *indices, qv_array *values, qv_array **out, qv_error *err);
/* The rows of a dictionary array as a plain array of its values type. */
QV_API qv_status qv_array_dictionary_decode(const qv_array *a, qv_array **out, qv_error *err);
/* Validates buffers, offsets, UTF-8 against the type (for untrusted input). */
QV_API qv_status qv_array_validate(const qv_array *a, qv_error *err);

static inline bool qv_array_is_valid(const qv_array *a, int64_t i) {
  return a->buffers[0] == NULL || qv_bit_get(a->buffers[0]->data, a->offset + i);
}
/* Typed value pointer at element 0 (offset applied) of a fixed-width array. */
QV_API const void *qv_array_values(const qv_array *a);
static inline const int32_t *qv_array_offsets(const qv_array *a) {
  return (const int32_t *)a->buffers[1]->data + a->offset;
}
/* String/binary element i (no validity check). */
static inline const uint8_t *qv_array_str(const qv_array *a, int64_t i, int32_t *len) {
  const int32_t *o = qv_array_offsets(a);
  *len = o[i + 1] - o[i];
  return a->buffers[2]->data + o[i];
}

/* ---- builders -------------------------------------------------------- */

/* Builds one array of any type.  Append values in order; nested types
 * append to child builders then close the slot with qv_builder_append_valid.
 * Value struct owned by the caller: qv_builder_init ... qv_builder_finish
 * (or qv_builder_reset to abandon). */
typedef struct qv_builder {
  qv_datatype type;
  int64_t length;
  int64_t null_count;
  qv_buffer validity; /* allocated lazily on the first null */
  qv_buffer values;   /* values, bits, or offsets */
  qv_buffer data;     /* string / binary bytes */
  int32_t n_children;
  struct qv_builder *children;
} qv_builder;

QV_API qv_status qv_builder_init(qv_builder *b, const qv_datatype *type, qv_error *err);
QV_API void qv_builder_reset(qv_builder *b);
QV_API qv_status qv_builder_reserve(qv_builder *b, int64_t additional);
QV_API qv_status qv_builder_append_null(qv_builder *b);
QV_API qv_status qv_builder_append_nulls(qv_builder *b, int64_t n);
QV_API qv_status qv_builder_append_bool(qv_builder *b, bool v);
/* Any signed integer, date32, timestamp, time64, duration (range-checked
 * against the type: QV_ERR_OVERFLOW when it does not fit). */
QV_API qv_status qv_builder_append_int(qv_builder *b, int64_t v);
QV_API qv_status qv_builder_append_uint(qv_builder *b, uint64_t v); /* any integer type */
QV_API qv_status qv_builder_append_double(qv_builder *b, double v); /* float32/64 */
/* decimal128: two's complement, lo/hi 64-bit halves. */
QV_API qv_status qv_builder_append_decimal(qv_builder *b, uint64_t lo, int64_t hi);
QV_API qv_status qv_builder_append_bytes(qv_builder *b, const void *data, int64_t len); /* string/binary */
static inline qv_status qv_builder_append_cstr(qv_builder *b, const char *s) {
  int64_t n = 0;
  while (s[n]) n++;
  return qv_builder_append_bytes(b, s, n);
}
/* Closes a list / struct / fixed_size_list slot after its children were appended. */
QV_API qv_status qv_builder_append_valid(qv_builder *b);
/* Appends element i of a (same type) — slow path, for tests and CSV. */
QV_API qv_status qv_builder_append_from(qv_builder *b, const qv_array *a, int64_t i);
QV_API qv_status qv_builder_finish(qv_builder *b, qv_array **out, qv_error *err);

/* ---- scalars --------------------------------------------------------- */

/* One typed value: literals, statistics, index keys.  Value struct; reset
 * with qv_scalar_reset.  Which union member holds the value follows the type:
 * bool -> b; signed ints, date32, timestamp, time64, duration -> i;
 * unsigned ints -> u; floats -> f; decimal128 -> dec; string/binary -> bytes;
 * list -> list (an array of the items). */
typedef struct qv_scalar {
  qv_datatype type;
  bool is_null;
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double f;
    struct {
      uint64_t lo;
      int64_t hi;
    } dec;
  } v;
  uint8_t *bytes; /* owned (qv_malloc), NUL-terminated for convenience */
  int64_t len;
  qv_array *list; /* owned reference */
} qv_scalar;

#define QV_SCALAR_INIT \
  { QV_DATATYPE_INIT, true, {0}, NULL, 0, NULL }
QV_API void qv_scalar_reset(qv_scalar *s);
QV_API qv_status qv_scalar_copy(const qv_scalar *src, qv_scalar *out);
/* Element i of a as a scalar (type copied). */
QV_API qv_status qv_scalar_from_array(const qv_array *a, int64_t i, qv_scalar *out, qv_error *err);
QV_API qv_scalar qv_scalar_int(qv_type_id id, int64_t v); /* signed / temporal w/o params */
QV_API qv_scalar qv_scalar_double(double v);              /* float64 */
QV_API qv_scalar qv_scalar_bool(bool v);
QV_API qv_status qv_scalar_string(const char *data, int64_t len, qv_scalar *out); /* string */
/* Text as in qv_array_format_value. */
QV_API int qv_scalar_format(const qv_scalar *s, char *buf, size_t size);

/* ---- record batches -------------------------------------------------- */

/* Columns of equal length with a schema.  Reference counted. */
typedef struct qv_batch {
  qv_schema schema;
  int64_t num_rows;
  qv_array **columns; /* schema.n_fields of them, each one reference */
  int32_t refcount;   /* changed only by retain/release, atomically */
} qv_batch;

/* Takes ownership of the column references; copies the schema. */
QV_API qv_status qv_batch_make(const qv_schema *schema, qv_array **columns, int64_t num_rows, qv_batch **out,
                               qv_error *err);
QV_API qv_batch *qv_batch_retain(qv_batch *b);
QV_API void qv_batch_release(qv_batch *b);
/* Selected columns (by index) as a new batch sharing arrays. */
QV_API qv_status qv_batch_project(const qv_batch *b, const int32_t *cols, int32_t n, qv_batch **out, qv_error *err);
QV_API qv_status qv_batch_slice(const qv_batch *b, int64_t offset, int64_t length, qv_batch **out, qv_error *err);

/* A pull stream of batches (IPC readers, CSV, scans all produce these). */
typedef struct qv_batch_reader {
  /* Sets *out to the next batch (caller releases) or NULL at the end. */
  qv_status (*next)(struct qv_batch_reader *self, qv_batch **out, qv_error *err);
  const qv_schema *(*schema)(struct qv_batch_reader *self);
  void (*destroy)(struct qv_batch_reader *self);
  void *private_data;
} qv_batch_reader;

QV_API void qv_batch_reader_destroy(qv_batch_reader *r); /* NULL-safe */
/* A reader over batches in memory (each retained; the schema is copied). */
QV_API qv_status qv_batch_reader_from_batches(const qv_schema *schema, qv_batch *const *batches, int32_t n,
                                              qv_batch_reader **out, qv_error *err);

/* Writes a batch as an aligned text table (for the command and tests). */
QV_API qv_status qv_batch_print(const qv_batch *b, FILE *out, qv_error *err);
/* Formats element i of a as text ("null" for nulls) into buf. */
QV_API int qv_array_format_value(const qv_array *a, int64_t i, char *buf, size_t size);

/* ---- Arrow C Data Interface ------------------------------------------ */

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4
struct ArrowSchema {
  const char *format;
  const char *name;
  const char *metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema **children;
  struct ArrowSchema *dictionary;
  void (*release)(struct ArrowSchema *);
  void *private_data;
};
struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void **buffers;
  struct ArrowArray **children;
  struct ArrowArray *dictionary;
  void (*release)(struct ArrowArray *);
  void *private_data;
};
#endif
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
  int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
  const char *(*get_last_error)(struct ArrowArrayStream *);
  void (*release)(struct ArrowArrayStream *);
  void *private_data;
};
#endif

/* Export: the out structs are filled and own their references; the consumer
 * calls their release callbacks. */
QV_API qv_status qv_export_schema(const qv_schema *schema, struct ArrowSchema *out, qv_error *err);
QV_API qv_status qv_export_field(const qv_field *field, struct ArrowSchema *out, qv_error *err);
QV_API qv_status qv_export_array(qv_array *array, struct ArrowArray *out, qv_error *err);
/* A batch exports as a struct array. */
QV_API qv_status qv_export_batch(qv_batch *batch, struct ArrowArray *out, qv_error *err);
/* Takes ownership of reader (destroyed by the stream's release). */
QV_API qv_status qv_export_stream(qv_batch_reader *reader, struct ArrowArrayStream *out, qv_error *err);

/* Export flags for the *_with variants (0: as above). */
#define QV_EXPORT_STRING_VIEW \
  0x1u /* strings / binary as string_view / binary_view ("vu" / "vz"): 16-byte
                                    * views onto quiver's own data buffer, which Polars keeps without copying */
QV_API qv_status qv_export_schema_with(const qv_schema *schema, uint32_t flags, struct ArrowSchema *out, qv_error *err);
QV_API qv_status qv_export_batch_with(qv_batch *batch, uint32_t flags, struct ArrowArray *out, qv_error *err);
QV_API qv_status qv_export_stream_with(qv_batch_reader *reader, uint32_t flags, struct ArrowArrayStream *out,
                                       qv_error *err);

/* Import: moves from the input (its release is set to NULL on success; on
 * failure the input is left for the caller to release). Dictionary-encoded
 * imports are decoded. */
QV_API qv_status qv_import_field(struct ArrowSchema *schema, qv_field *out, qv_error *err);
/* A struct schema as a qv_schema. */
QV_API qv_status qv_import_schema(struct ArrowSchema *schema, qv_schema *out, qv_error *err);
QV_API qv_status qv_import_array(struct ArrowArray *array, const qv_datatype *type, qv_array **out, qv_error *err);
QV_API qv_status qv_import_batch(struct ArrowArray *array, const qv_schema *schema, qv_batch **out, qv_error *err);
/* Wraps a stream as a reader (takes ownership of stream). */
QV_API qv_status qv_import_stream(struct ArrowArrayStream *stream, qv_batch_reader **out, qv_error *err);

/* ---- Arrow IPC ------------------------------------------------------- */

typedef struct qv_ipc_writer qv_ipc_writer;

typedef enum qv_ipc_format { QV_IPC_STREAM = 0, QV_IPC_FILE = 1 } qv_ipc_format;

/* Writes to f (not closed by the writer). */
QV_API qv_status qv_ipc_writer_open(FILE *f, qv_ipc_format format, const qv_schema *schema, qv_ipc_writer **out,
                                    qv_error *err);
QV_API qv_status qv_ipc_writer_write(qv_ipc_writer *w, const qv_batch *batch, qv_error *err);
/* Writes the end-of-stream marker (and the file footer); frees the writer. */
QV_API qv_status qv_ipc_writer_close(qv_ipc_writer *w, qv_error *err);
QV_API void qv_ipc_writer_destroy(qv_ipc_writer *w); /* abandon without closing; NULL-safe */

/* Reads a stream or file from memory (format detected from the magic).  The
 * bytes are copied.  Every offset and length is validated. */
QV_API qv_status qv_ipc_read_buffer(const uint8_t *data, int64_t size, qv_batch_reader **out, qv_error *err);
/* Reads a stream or file from a path.  A regular file is read by
 * positioned reads, a message at a time (a file's footer first, then each
 * block where it lies), so memory does not grow with the file; a pipe's
 * stream is read in order (a file format through a pipe, whole). */
QV_API qv_status qv_ipc_read_path(const char *path, qv_batch_reader **out, qv_error *err);
/* Reads a stream from f (e.g. stdin) a message at a time.  The file
 * format, which needs its footer, is read by positioned reads when f is a
 * regular file read from its start (stdin redirected from a file), and
 * whole otherwise (a pipe). */
QV_API qv_status qv_ipc_read_file(FILE *f, qv_batch_reader **out, qv_error *err);

/* ---- CSV import ------------------------------------------------------ */

typedef struct qv_csv_column_type {
  const char *name;
  const char *type; /* a qv_datatype_parse string */
} qv_csv_column_type;

typedef struct qv_csv_options {
  int version;                            /* QV_CSV_OPTIONS_VERSION */
  char delimiter;                         /* ',' */
  char quote;                             /* '"' ; doubled inside quotes means one */
  char escape;                            /* '\0' = none; else escapes the next character */
  bool header;                            /* first line names the columns (else c0, c1, ...) */
  const char *const *null_values;         /* NULL-terminated; default {"", "NA", "null", "NULL"} */
  int64_t infer_rows;                     /* rows sampled for type inference (default 1000; <0 = all) */
  int64_t batch_rows;                     /* rows per output batch (default 65536) */
  const qv_csv_column_type *column_types; /* overrides, n_column_types of them */
  int32_t n_column_types;
  /* When non-NULL, kept up to date with the input bytes read so far (for
   * progress bars; file input only). */
  int64_t *bytes_read;
  /* (version 2) The column names, one per column, instead of the header's
   * (which is still skipped when header is set) or c0, c1, ...; NULL = none. */
  const char *const *column_names;
  int32_t n_column_names;
} qv_csv_options;

#define QV_CSV_OPTIONS_VERSION 2
#define QV_CSV_OPTIONS_INIT \
  { QV_CSV_OPTIONS_VERSION, ',', '"', '\0', true, NULL, 1000, 65536, NULL, 0, NULL, NULL, 0 }

/* Reads CSV from path (or "-" for stdin).  Inferred types: bool, int64,
 * float64, date32, timestamp[us], string.  Errors name the line (and
 * column) of the problem, including invalid UTF-8. */
QV_API qv_status qv_csv_open(const char *path, const qv_csv_options *opts, qv_batch_reader **out, qv_error *err);
QV_API qv_status qv_csv_open_buffer(const char *data, int64_t size, const qv_csv_options *opts, qv_batch_reader **out,
                                    qv_error *err);

#ifdef __cplusplus
}
#endif
#endif
