/* CSV import internals shared by csv.c (reader, schema, batches),
 * csv_lexer.c (byte source, UTF-8 check, record tokenizer) and csv_parse.c
 * (text -> typed value).  Not part of the public API. */
#ifndef QUIVER_COLUMNAR_CSV_INT_H
#define QUIVER_COLUMNAR_CSV_INT_H

#include <stdio.h>

#include "quiver/columnar.h"

/* Bytes read from a file per refill.  Memory use of a reader is this plus
 * one record plus one batch. */
#define QV_CSV_CHUNK_DEFAULT ((int64_t)1 << 20)
/* A single record (all its fields, unquoted) may not exceed this: it bounds
 * memory on a runaway quote, and with the batch flush threshold below keeps
 * string offsets inside int32. */
#define QV_CSV_MAX_RECORD ((int64_t)1 << 30)
/* A batch is closed early once a string/binary column holds this many bytes. */
#define QV_CSV_FLUSH_BYTES ((int64_t)1 << 29)

/* ---- records ----------------------------------------------------------- */

/* One field of a record: bytes [off, off+len) of the record's data, already
 * unquoted and unescaped, followed by a NUL (so strtod can stop on it). */
typedef struct csv_field {
  int64_t off;
  int64_t len;
  bool quoted; /* the field was written in quotes: its text is literal */
} csv_field;

typedef struct csv_record {
  uint8_t *data;
  int64_t size, cap;
  csv_field *fields;
  int32_t n_fields, cap_fields;
  int64_t line; /* 1-based line on which the record starts */
} csv_record;

void csv_record_free(csv_record *r);

/* ---- lexer ------------------------------------------------------------- */

typedef struct csv_lexer {
  const char *name; /* for messages; not owned */

  /* Exactly one source: a FILE or an owned copy of a memory buffer. */
  FILE *file;
  bool close_file;
  uint8_t *mem;
  int64_t mem_size, mem_pos;

  uint8_t *chunk_buf;   /* file input reads here */
  int64_t chunk_size;   /* bytes per refill */
  const uint8_t *chunk; /* current window */
  int64_t chunk_len, pos;
  int64_t limit;       /* first byte that failed UTF-8 validation, else chunk_len */
  int64_t chunk_base;  /* input offset of chunk[0] */
  int64_t *bytes_read; /* the caller's progress counter (options), or NULL */
  bool eof, started;

  /* Streaming UTF-8 validator: continuation bytes still expected and the
   * range the next one must fall in (excludes overlongs and surrogates). */
  int utf8_need;
  uint8_t utf8_lo, utf8_hi;
  int64_t utf8_seq_start; /* input offset of the sequence being checked */

  /* Tokenizer. */
  char delimiter, quote, escape;
  uint8_t special[256];        /* bytes that stop an unquoted run */
  uint8_t special_quoted[256]; /* bytes that stop a quoted run */
  int state;
  bool in_record;
  bool prev_cr;       /* last byte was CR: a following LF is the same line end */
  int64_t line;       /* line of the next byte */
  int64_t quote_line; /* where the open quoted field began */
  int64_t field_start;
  bool field_quoted;
  int64_t max_record;
} csv_lexer;

typedef struct csv_dialect {
  char delimiter, quote, escape;
} csv_dialect;

/* The lexer reads from f (closed at csv_lexer_free when close_file) or from
 * a copy of data[0..size).  chunk_size >= 4. */
qv_status csv_lexer_init_file(csv_lexer *lx, const char *name, FILE *f, bool close_file, const csv_dialect *d,
                              int64_t chunk_size, qv_error *err);
qv_status csv_lexer_init_buffer(csv_lexer *lx, const char *name, const char *data, int64_t size, const csv_dialect *d,
                                int64_t chunk_size, qv_error *err);
void csv_lexer_free(csv_lexer *lx);
/* Reads the next non-blank record into rec (its previous contents are
 * dropped).  *got is false at the end of input.  Errors (invalid UTF-8,
 * unterminated quote, text after a closing quote, oversized record, I/O)
 * name the line. */
qv_status csv_lexer_next(csv_lexer *lx, csv_record *rec, bool *got, qv_error *err);

/* ---- value parsing ----------------------------------------------------- */

/* Each parser takes the field text (len bytes, NUL at text[len]), trims
 * surrounding blanks, and returns NULL on success or the reason it failed,
 * phrased to be followed by the type name ("is not a valid", "is out of
 * range for").  *range is set when the reason is a range/precision problem. */
typedef struct csv_parse_result {
  const char *reason; /* NULL when the value parsed */
  bool range;         /* out of range / too precise, rather than malformed */
} csv_parse_result;

/* words_only: accept true/false (any case) but not 1/0 (inference). */
csv_parse_result csv_parse_bool(const uint8_t *text, int64_t len, bool words_only, bool *out);
csv_parse_result csv_parse_int64(const uint8_t *text, int64_t len, int64_t *out);
csv_parse_result csv_parse_uint64(const uint8_t *text, int64_t len, uint64_t *out);
/* The C locale for strtod_l, wrapped so this header needs no POSIX feature
 * macros from its includers. */
typedef struct csv_c_locale csv_c_locale;
csv_c_locale *csv_c_locale_new(void);      /* NULL on failure */
void csv_c_locale_free(csv_c_locale *loc); /* NULL-safe */
csv_parse_result csv_parse_double(const uint8_t *text, int64_t len, const csv_c_locale *loc, double *out);
csv_parse_result csv_parse_float(const uint8_t *text, int64_t len, const csv_c_locale *loc, float *out);
csv_parse_result csv_parse_decimal(const uint8_t *text, int64_t len, int32_t precision, int32_t scale, uint64_t *lo,
                                   int64_t *hi);
csv_parse_result csv_parse_date32(const uint8_t *text, int64_t len, int32_t *out);
/* allow_offset: a trailing Z / +HH:MM is accepted (and applied) only for
 * time-zone-aware columns; a date alone means midnight. */
csv_parse_result csv_parse_timestamp(const uint8_t *text, int64_t len, qv_time_unit unit, bool allow_offset,
                                     int64_t *out);
csv_parse_result csv_parse_time(const uint8_t *text, int64_t len, qv_time_unit unit, int64_t *out);

/* ---- testing hooks ----------------------------------------------------- */

/* qv_csv_open_buffer with the input fed in chunk_size pieces (>= 4) and a
 * record size limit, so tests and the fuzzer reach chunk-boundary code
 * without megabyte inputs.  0 means the default for either. */
qv_status qvc_csv_open_buffer_chunked(const char *data, int64_t size, const qv_csv_options *opts, int64_t chunk_size,
                                      int64_t max_record, qv_batch_reader **out, qv_error *err);

#endif
