/* CSV import: dialect, nulls, inference, declared types, errors with their
 * lines, batch boundaries and streaming.  Most inputs are read at several
 * chunk sizes (through the internal chunked opener), so every record,
 * quoted field and UTF-8 sequence is also cut by a refill somewhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "failing_alloc.h"
#include "columnar/csv_int.h"
#include "quiver/columnar.h"

/* ---- helpers ----------------------------------------------------------- */

static const int64_t k_chunks[] = {4, 5, 7, 13, 64, 0}; /* 0: the whole input at once */
#define N_CHUNKS (sizeof k_chunks / sizeof k_chunks[0])

/* One cell: ~ for null, strings in single quotes, others as printed. */
static void put_cell(char **out, size_t *len, size_t *cap, const qv_array *a, int64_t i) {
  char buf[512];
  if (!qv_array_is_valid(a, i)) snprintf(buf, sizeof buf, "~");
  else if (a->type.id == QV_TYPE_STRING) {
    int32_t n;
    const uint8_t *s = qv_array_str(a, i, &n);
    snprintf(buf, sizeof buf, "'%.*s'", (int)n, (const char *)s);
  } else qv_array_format_value(a, i, buf, sizeof buf);
  size_t n = strlen(buf);
  while (*len + n + 2 >= *cap) {
    *cap = *cap ? *cap * 2 : 256;
    *out = realloc(*out, *cap);
    assert_non_null(*out);
  }
  memcpy(*out + *len, buf, n);
  *len += n;
  (*out)[*len] = '\0';
}

static void put_text(char **out, size_t *len, size_t *cap, const char *s) {
  size_t n = strlen(s);
  while (*len + n + 2 >= *cap) {
    *cap = *cap ? *cap * 2 : 256;
    *out = realloc(*out, *cap);
    assert_non_null(*out);
  }
  memcpy(*out + *len, s, n);
  *len += n;
  (*out)[*len] = '\0';
}

/* Drains a reader into text: "name:type,..." then per batch "[n]" and one
 * "a|b|c" line per row.  On error returns NULL with err filled. */
static char *drain(qv_batch_reader *r, qv_error *err, qv_status *st) {
  char *out = NULL;
  size_t len = 0, cap = 0;
  put_text(&out, &len, &cap, "");
  const qv_schema *s = r->schema(r);
  for (int32_t c = 0; c < s->n_fields; c++) {
    char t[128];
    qv_datatype_format(&s->fields[c].type, t, sizeof t);
    if (c) put_text(&out, &len, &cap, ",");
    put_text(&out, &len, &cap, s->fields[c].name);
    put_text(&out, &len, &cap, ":");
    put_text(&out, &len, &cap, t);
  }
  put_text(&out, &len, &cap, "\n");
  for (;;) {
    qv_batch *b = NULL;
    *st = r->next(r, &b, err);
    if (*st != QV_OK) {
      assert_null(b);
      free(out);
      return NULL;
    }
    if (!b) break;
    assert_true(qv_schema_equal(&b->schema, s));
    char hdr[32];
    snprintf(hdr, sizeof hdr, "[%lld]\n", (long long)b->num_rows);
    put_text(&out, &len, &cap, hdr);
    for (int64_t i = 0; i < b->num_rows; i++) {
      for (int32_t c = 0; c < b->schema.n_fields; c++) {
        if (c) put_text(&out, &len, &cap, "|");
        assert_int_equal(b->columns[c]->length, b->num_rows);
        put_cell(&out, &len, &cap, b->columns[c], i);
      }
      put_text(&out, &len, &cap, "\n");
    }
    qv_batch_release(b);
  }
  /* The end is sticky. */
  qv_batch *again = NULL;
  assert_int_equal(r->next(r, &again, err), QV_OK);
  assert_null(again);
  return out;
}

/* Reads text (size bytes) at every chunk size; all must give want. */
static void check_n(const char *text, size_t size, const qv_csv_options *o, const char *want) {
  for (size_t k = 0; k < N_CHUNKS; k++) {
    qv_batch_reader *r = NULL;
    qv_error err = {0};
    qv_status st = qvc_csv_open_buffer_chunked(text, (int64_t)size, o, k_chunks[k], 0, &r, &err);
    if (st != QV_OK) fail_msg("chunk %lld: open failed: %s", (long long)k_chunks[k], err.message);
    char *got = drain(r, &err, &st);
    if (!got) fail_msg("chunk %lld: next failed: %s", (long long)k_chunks[k], err.message);
    if (strcmp(got, want) != 0)
      fail_msg("chunk %lld:\n--- got ---\n%s--- want ---\n%s", (long long)k_chunks[k], got, want);
    free(got);
    qv_batch_reader_destroy(r);
  }
}

static void check(const char *text, const qv_csv_options *o, const char *want) { check_n(text, strlen(text), o, want); }

/* The input fails (at open or while draining) with code and exactly msg,
 * at every chunk size. */
static void check_error_n(const char *text, size_t size, const qv_csv_options *o, qv_status code, const char *msg) {
  for (size_t k = 0; k < N_CHUNKS; k++) {
    qv_batch_reader *r = NULL;
    qv_error err = {0};
    qv_status st = qvc_csv_open_buffer_chunked(text, (int64_t)size, o, k_chunks[k], 0, &r, &err);
    if (st == QV_OK) {
      char *got = drain(r, &err, &st);
      if (got) fail_msg("chunk %lld: expected an error, got:\n%s", (long long)k_chunks[k], got);
      /* A failed reader keeps failing with the same message. */
      qv_batch *b = NULL;
      qv_error err2 = {0};
      assert_int_equal(r->next(r, &b, &err2), st);
      assert_string_equal(err2.message, err.message);
      qv_batch_reader_destroy(r);
    } else {
      assert_null(r);
    }
    if (st != code || strcmp(err.message, msg) != 0)
      fail_msg("chunk %lld: got status %d '%s', want %d '%s'", (long long)k_chunks[k], st, err.message, code, msg);
  }
}

static void check_error(const char *text, const qv_csv_options *o, qv_status code, const char *msg) {
  check_error_n(text, strlen(text), o, code, msg);
}

/* ---- structure --------------------------------------------------------- */

static void test_basic_inference(void **state) {
  (void)state;
  check(
      "b,i,f,d,ts,s\n"
      "true,1,1.5,2024-01-02,2024-01-02 03:04:05,x\n"
      "FALSE,-2,-0.25,1970-01-01,2024-01-02T03:04:05.123456,y\n",
      NULL,
      "b:bool,i:int64,f:float64,d:date32,ts:timestamp[us],s:string\n"
      "[2]\n"
      "true|1|1.5|2024-01-02|2024-01-02 03:04:05.000000|'x'\n"
      "false|-2|-0.25|1970-01-01|2024-01-02 03:04:05.123456|'y'\n");
}

static void test_exact_values(void **state) {
  (void)state;
  const char *text =
      "i,f,d,ts\n9223372036854775807,0.1,2024-01-02,1969-12-31 23:59:59.5\n"
      "-9223372036854775808,1e308,1900-03-01,2000-02-29T00:00:00\n";
  qv_batch_reader *r;
  qv_error err;
  assert_int_equal(qv_csv_open_buffer(text, (int64_t)strlen(text), NULL, &r, &err), QV_OK);
  qv_batch *b;
  assert_int_equal(r->next(r, &b, &err), QV_OK);
  assert_int_equal(b->num_rows, 2);
  const int64_t *i = qv_array_values(b->columns[0]);
  assert_true(i[0] == INT64_MAX && i[1] == INT64_MIN);
  const double *f = qv_array_values(b->columns[1]);
  assert_true(f[0] == 0.1 && f[1] == 1e308);
  const int32_t *d = qv_array_values(b->columns[2]);
  assert_int_equal(d[0], 19724);
  assert_int_equal(d[1], -25508);
  const int64_t *ts = qv_array_values(b->columns[3]);
  assert_int_equal(ts[0], -500000);
  assert_int_equal(ts[1], INT64_C(951782400000000));
  assert_int_equal(b->columns[0]->null_count, 0);
  assert_null(b->columns[0]->buffers[0]);
  qv_batch_release(b);
  assert_int_equal(r->next(r, &b, &err), QV_OK);
  assert_null(b);
  qv_batch_reader_destroy(r);
}

static void test_float_spellings(void **state) {
  (void)state;
  check("x\n1\n2.5\nnan\nNaN\n-inf\n+Infinity\nINF\n1e3\n.5\n5.\n-0\n1e999\n", NULL,
        "x:float64\n[12]\n1.0\n2.5\nNaN\nNaN\n-inf\ninf\ninf\n1000.0\n0.5\n5.0\n-0.0\ninf\n");
  /* Beyond int64 the column is float64 (declare uint64/decimal to be exact). */
  check("x\n1\n99999999999999999999\n", NULL, "x:float64\n[2]\n1.0\n1e+20\n");
  /* Not floats: hex, bare dot, exponent without digits, locale comma. */
  check("a,b,c,d\n0x10,.,1e,\"1,5\"\n", NULL, "a:string,b:string,c:string,d:string\n[1]\n'0x10'|'.'|'1e'|'1,5'\n");
}

static void test_inference_fallbacks(void **state) {
  (void)state;
  /* bool needs words; 1/0 stay int; mixes fall back; dates + datetimes are
   * timestamps; a UTC offset keeps a column string; blanks around numbers
   * are ignored but kept in strings. */
  check(
      "b,i,m,t,z,w,s\n"
      "true,1,1,2024-01-01,2024-01-01T10:00:00Z, 12 ,a b \n"
      "false,0,x,2024-01-02 10:30,2024-01-01T10:00:00Z,\t-3,\n",
      NULL,
      "b:bool,i:int64,m:string,t:timestamp[us],z:string,w:int64,s:string\n[2]\n"
      "true|1|'1'|2024-01-01 00:00:00.000000|'2024-01-01T10:00:00Z'|12|'a b '\n"
      "false|0|'x'|2024-01-02 10:30:00.000000|'2024-01-01T10:00:00Z'|-3|~\n");
  /* Invalid dates are strings; leap days are checked. */
  check("d,e\n2024-02-29,2023-02-29\n", NULL, "d:date32,e:string\n[1]\n2024-02-29|'2023-02-29'\n");
  /* All-null columns are string. */
  check("a,b\nNA,1\n,2\n", NULL, "a:string,b:int64\n[2]\n~|1\n~|2\n");
}

static void test_nulls(void **state) {
  (void)state;
  /* Unquoted markers are null everywhere; quoted ones are literal text in
   * string columns but still null in typed columns. */
  check("n,s\n1,x\n,\nNA,NA\nnull,null\nNULL,NULL\n\"\",\"\"\n\"NA\",\"NA\"\n", NULL,
        "n:int64,s:string\n[7]\n1|'x'\n~|~\n~|~\n~|~\n~|~\n~|''\n~|'NA'\n");
  /* Custom markers replace the defaults. */
  static const char *const nulls[] = {"-", NULL};
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.null_values = nulls;
  check("n,s\n-,NA\n2,\n", &o, "n:int64,s:string\n[2]\n~|'NA'\n2|''\n");
  /* No markers at all: an empty int field is an error. */
  static const char *const none[] = {NULL};
  o.null_values = none;
  check("s\nx\n\"\"\n", &o, "s:string\n[2]\n'x'\n''\n");
  qv_csv_column_type ct[] = {{"n", "int64"}};
  o.column_types = ct;
  o.n_column_types = 1;
  check_error("n,m\n1,2\n,3\n", &o, QV_ERR_PARSE, "<buffer>: line 3: column `n`: '' is not a valid int64");
}

static void test_null_positions(void **state) {
  (void)state;
  const char *text = "a\n1\nNA\n3\n\"\"\n5\n";
  qv_batch_reader *r;
  qv_error err;
  assert_int_equal(qv_csv_open_buffer(text, (int64_t)strlen(text), NULL, &r, &err), QV_OK);
  qv_batch *b;
  assert_int_equal(r->next(r, &b, &err), QV_OK);
  const qv_array *a = b->columns[0];
  assert_int_equal(a->type.id, QV_TYPE_INT64);
  assert_int_equal(a->length, 5);
  assert_int_equal(a->null_count, 2);
  bool valid[5] = {true, false, true, false, true};
  for (int i = 0; i < 5; i++) assert_int_equal(qv_array_is_valid(a, i), valid[i]);
  qv_batch_release(b);
  qv_batch_reader_destroy(r);
}

static void test_empty_inputs(void **state) {
  (void)state;
  check("", NULL, "\n");
  check("\xEF\xBB\xBF", NULL, "\n");
  check("\n\r\n\n", NULL, "\n");
  /* Header alone: string columns (or declared types), no batches. */
  check("a,b\n", NULL, "a:string,b:string\n");
  check("a,b", NULL, "a:string,b:string\n");
  qv_csv_column_type ct[] = {{"b", "int32"}};
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.column_types = ct;
  o.n_column_types = 1;
  check("a,b\r\n", &o, "a:string,b:int32\n");
}

static void test_header_options(void **state) {
  (void)state;
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.header = false;
  check("1,x\n2,y\n", &o, "c0:int64,c1:string\n[2]\n1|'x'\n2|'y'\n");
  /* Empty header names are c<i>; a BOM is not part of the first name. */
  check(
      "\xEF\xBB\xBF"
      "a,,c\n1,2,3\n",
      NULL, "a:int64,c1:int64,c:int64\n[1]\n1|2|3\n");
  /* Header names are literal: quotes and nulls markers do not apply. */
  check("\"x,y\",NA\n1,2\n", NULL, "x,y:int64,NA:int64\n[1]\n1|2\n");
}

static void test_line_ends(void **state) {
  (void)state;
  const char *want = "a:int64,b:int64\n[2]\n1|2\n3|4\n";
  check("a,b\n1,2\n3,4\n", NULL, want);
  check("a,b\n1,2\n3,4", NULL, want);
  check("a,b\r\n1,2\r\n3,4\r\n", NULL, want);
  check("a,b\r\n1,2\r\n3,4", NULL, want);
  check("a,b\r1,2\r3,4\r", NULL, want);
  check("a,b\n\n1,2\r\n\r\n\r\n3,4\n\n", NULL, want);
}

static void test_quoting(void **state) {
  (void)state;
  check(
      "a,b\n"
      "\"x,y\",\"line1\nline2\"\n"
      "\"he said \"\"hi\"\"\",z\"q\n"
      "\"\",\"\"\"\"\n"
      "\"crlf\r\ninside\",\"a\"\n",
      NULL,
      "a:string,b:string\n[4]\n"
      "'x,y'|'line1\nline2'\n"
      "'he said \"hi\"'|'z\"q'\n"
      "''|'\"'\n"
      "'crlf\r\ninside'|'a'\n");
  /* Quoted numbers are numbers; a trailing delimiter makes an empty field. */
  check("n,m\n\"12\",\n\"-3\",4\n", NULL, "n:int64,m:int64\n[2]\n12|~\n-3|4\n");
  /* Another quote character, and quoting turned off. */
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.quote = '\'';
  check("a\n'x,y'\n\"q\"\n", &o, "a:string\n[2]\n'x,y'\n'\"q\"'\n");
  o.quote = '\0';
  o.delimiter = ';';
  check("a;b\n\"x\";\"y,z\"\n", &o, "a:string,b:string\n[1]\n'\"x\"'|'\"y,z\"'\n");
  o = (qv_csv_options)QV_CSV_OPTIONS_INIT;
  o.delimiter = '\t';
  check("a\tb\n1\t x \n", &o, "a:int64,b:string\n[1]\n1|' x '\n");
}

static void test_escape(void **state) {
  (void)state;
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.escape = '\\';
  check(
      "a,b\n"
      "x\\,y,\"q\\\"q\"\n"
      "\\\\,\"a\\\nb\"\n"
      "\\\"lead,\"\"\"\"\n",
      &o,
      "a:string,b:string\n[3]\n"
      "'x,y'|'q\"q'\n"
      "'\\'|'a\nb'\n"
      "'\"lead'|'\"'\n");
  check_error("a\nx\\", &o, QV_ERR_PARSE, "<buffer>: line 2: escape character at the end of input");
  /* An escape equal to the quote is just RFC doubling. */
  o.escape = '"';
  check("a\n\"x\"\"y\"\n", &o, "a:string\n[1]\n'x\"y'\n");
}

static void test_utf8(void **state) {
  (void)state;
  /* Multi-byte text survives every chunk cut. */
  check("name,v\n\xC3\xA9t\xC3\xA9,1\n\xE2\x82\xAC,2\n\xF0\x9F\x98\x80,3\n", NULL,
        "name:string,v:int64\n[3]\n'\xC3\xA9t\xC3\xA9'|1\n'\xE2\x82\xAC'|2\n'\xF0\x9F\x98\x80'|3\n");
  check_error("a,b\n1,2\n3,\xFFx\n", NULL, QV_ERR_PARSE,
              "<buffer>: line 3, field 2: invalid UTF-8 (byte 0xFF at offset 10, sequence "
              "starting at offset 10)");
  /* A cut sequence: reported at the byte that broke it. */
  check_error("a\n\"x\n\xC3\",1\n", NULL, QV_ERR_PARSE,
              "<buffer>: line 3, field 1: invalid UTF-8 (byte 0x22 at offset 6, sequence "
              "starting at offset 5)");
  /* Overlong, surrogate, above U+10FFFF. */
  check_error("a\n\xC0\x80\n", NULL, QV_ERR_PARSE,
              "<buffer>: line 2, field 1: invalid UTF-8 (byte 0xC0 at offset 2, sequence "
              "starting at offset 2)");
  check_error("a\nok\n\xED\xA0\x80\n", NULL, QV_ERR_PARSE,
              "<buffer>: line 3, field 1: invalid UTF-8 (byte 0xA0 at offset 6, sequence "
              "starting at offset 5)");
  check_error("a\n\xF4\x90\x80\x80\n", NULL, QV_ERR_PARSE,
              "<buffer>: line 2, field 1: invalid UTF-8 (byte 0x90 at offset 3, sequence "
              "starting at offset 2)");
  check_error("a\nx\xE2\x82", NULL, QV_ERR_PARSE,
              "<buffer>: line 2, field 1: invalid UTF-8 (sequence starting at offset 3 is cut "
              "off by the end of input)");
  /* Beyond the inference sample the error surfaces from next(). */
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.infer_rows = 1;
  o.batch_rows = 1;
  check_error("a\n1\n2\n\xFE\n", &o, QV_ERR_PARSE,
              "<buffer>: line 4, field 1: invalid UTF-8 (byte 0xFE at offset 6, sequence "
              "starting at offset 6)");
  /* Embedded NUL is valid UTF-8 and kept. */
  check_n("a\nx\0y\n", 6, NULL, "a:string\n[1]\n'x'\n");
}

static void test_ragged_rows(void **state) {
  (void)state;
  check_error("a,b,c\n1,2,3\n4,5\n", NULL, QV_ERR_PARSE, "<buffer>: line 3: expected 3 fields, found 2");
  check_error("a,b\n1,2,3\n", NULL, QV_ERR_PARSE, "<buffer>: line 2: expected 2 fields, found 3");
  /* Lines count inside quoted fields and skipped blank lines. */
  check_error("a,b\n\"x\ny\",1\n\n\r\n5\n", NULL, QV_ERR_PARSE, "<buffer>: line 6: expected 2 fields, found 1");
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.header = false;
  check_error("1\n2,3\n", &o, QV_ERR_PARSE, "<buffer>: line 2: expected 1 fields, found 2");
  /* Beyond the sample too. */
  o = (qv_csv_options)QV_CSV_OPTIONS_INIT;
  o.infer_rows = 1;
  check_error("a,b\n1,2\n3,4\n5,6\n7\n", &o, QV_ERR_PARSE, "<buffer>: line 5: expected 2 fields, found 1");
}

static void test_quote_errors(void **state) {
  (void)state;
  check_error("a,b\n1,\"open\nstill\n", NULL, QV_ERR_PARSE,
              "<buffer>: line 4: quoted field opened on line 2 is not closed before the end of "
              "input");
  check_error("a,b\n\"x\"y,1\n", NULL, QV_ERR_PARSE,
              "<buffer>: line 2, field 1: unexpected 'y' after the closing quote (expected a "
              "delimiter or line end; double a quote to include it)");
  check_error("a,b\n1,\"x\" \n", NULL, QV_ERR_PARSE,
              "<buffer>: line 2, field 2: unexpected ' ' after the closing quote (expected a "
              "delimiter or line end; double a quote to include it)");
}

static void test_record_limit(void **state) {
  (void)state;
  const char *text = "a\n\"0123456789012345678901234567890123456789\n";
  qv_batch_reader *r = NULL;
  qv_error err;
  assert_int_equal(qvc_csv_open_buffer_chunked(text, (int64_t)strlen(text), NULL, 8, 16, &r, &err), QV_ERR_PARSE);
  assert_null(r);
  assert_string_equal(err.message, "<buffer>: line 2: record longer than 16 bytes (is a quote left open?)");
}

/* ---- values beyond the sample ------------------------------------------ */

static void test_value_errors(void **state) {
  (void)state;
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.infer_rows = 2;
  o.batch_rows = 2;
  /* The inferred int column is not re-typed when "abc" shows up. */
  check_error("id,n\n1,10\n2,20\n3,30\n4,abc\n", &o, QV_ERR_PARSE,
              "<buffer>: line 5: column `n`: 'abc' is not a valid int64 (int64 was inferred from the first 2 rows; "
              "declare the column's type, e.g. n=string, or infer from more rows)");
  check_error("id,n\n1,true\n2,false\n3,1\n4,yes\n", &o, QV_ERR_PARSE,
              "<buffer>: line 5: column `n`: 'yes' is not a valid bool (bool was inferred from the first 2 rows; "
              "declare the column's type, e.g. n=string, or infer from more rows)");
  check_error("d\n2024-01-01\n2024-01-02\n2024-13-01\n", &o, QV_ERR_PARSE,
              "<buffer>: line 4: column `d`: '2024-13-01' is not a valid date32 (date32 was inferred from the first 2 "
              "rows; declare the column's type, e.g. d=string, or infer from more rows)");
  check_error("n\n1\n2\n99999999999999999999\n", &o, QV_ERR_OVERFLOW,
              "<buffer>: line 4: column `n`: '99999999999999999999' is out of range for int64 (int64 was inferred "
              "from the first 2 rows; declare the column's type, e.g. n=float64, or infer from more rows)");
  /* The message shows a long value cut, and control bytes escaped. */
  check_error("n\n1\n2\n\"a\tb\"\n", &o, QV_ERR_PARSE,
              "<buffer>: line 4: column `n`: 'a\\x09b' is not a valid int64 (int64 was inferred from the first 2 rows; "
              "declare the column's type, e.g. n=string, or infer from more rows)");
  check_error("n\n1\n2\nabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij\n", &o, QV_ERR_PARSE,
              "<buffer>: line 4: column `n`: "
              "'abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij...' is not a valid "
              "int64 (int64 was inferred from the first 2 rows; declare the column's type, e.g. n=string, or "
              "infer from more rows)");
  /* A cut never splits a UTF-8 sequence. */
  check_error("n\n1\n2\nabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghi\xC3\xA9xyz\n", &o, QV_ERR_PARSE,
              "<buffer>: line 4: column `n`: "
              "'abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghi...' is not a valid "
              "int64 (int64 was inferred from the first 2 rows; declare the column's type, e.g. n=string, or "
              "infer from more rows)");
}

/* A value later than the sample that its inferred type does not take: the
 * message names the type inference would have picked with it, and says
 * nothing of inference for a declared column. */
static void test_late_value_suggests_a_type(void **state) {
  (void)state;
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.infer_rows = 2;
  o.batch_rows = 1;
  check_error("n\n1\n2\n1.5\n", &o, QV_ERR_PARSE,
              "<buffer>: line 4: column `n`: '1.5' is not a valid int64 (int64 was inferred from the first 2 rows; "
              "declare the column's type, e.g. n=float64, or infer from more rows)");
  check_error("d\n2024-01-01\n2024-01-02\n2024-01-03 10:30\n", &o, QV_ERR_PARSE,
              "<buffer>: line 4: column `d`: '2024-01-03 10:30' is not a valid date32 (date32 was inferred from the "
              "first 2 rows; declare the column's type, e.g. d=timestamp[us], or infer from more rows)");
  check_error("f\n1.5\n2\n2024-01-01\n", &o, QV_ERR_PARSE,
              "<buffer>: line 4: column `f`: '2024-01-01' is not a valid float64 (float64 was inferred from the "
              "first 2 rows; declare the column's type, e.g. f=string, or infer from more rows)");
  /* without a header the names are c0, c1, ... */
  o.header = false;
  check_error("1,a\n2,b\nx,c\n", &o, QV_ERR_PARSE,
              "<buffer>: line 3: column `c0`: 'x' is not a valid int64 (int64 was inferred from the first 2 rows; "
              "declare the column's type, e.g. c0=string, or infer from more rows)");
  /* declared: the type is the caller's, so no word about inference */
  o.header = true;
  qv_csv_column_type ct[] = {{"n", "int64"}};
  o.column_types = ct;
  o.n_column_types = 1;
  check_error("n,m\n1,1\n2,2\n1.5,3\n", &o, QV_ERR_PARSE, "<buffer>: line 4: column `n`: '1.5' is not a valid int64");
  check_error("n,m\n1,1\n2,2\n3,x\n", &o, QV_ERR_PARSE,
              "<buffer>: line 4: column `m`: 'x' is not a valid int64 (int64 was inferred from the first 2 rows; "
              "declare the column's type, e.g. m=string, or infer from more rows)");
}

static void test_error_after_good_batches(void **state) {
  (void)state;
  const char *text = "n\n1\n2\n3\nx\n";
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.infer_rows = 2;
  o.batch_rows = 2;
  qv_batch_reader *r;
  qv_error err;
  assert_int_equal(qv_csv_open_buffer(text, (int64_t)strlen(text), &o, &r, &err), QV_OK);
  qv_batch *b;
  assert_int_equal(r->next(r, &b, &err), QV_OK);
  assert_int_equal(b->num_rows, 2);
  qv_batch_release(b);
  assert_int_equal(r->next(r, &b, &err), QV_ERR_PARSE);
  assert_null(b);
  assert_string_equal(err.message,
                      "<buffer>: line 5: column `n`: 'x' is not a valid int64 (int64 was inferred from the first 2 "
                      "rows; declare the column's type, e.g. n=string, or infer from more rows)");
  qv_batch_reader_destroy(r);
}

/* ---- declared types ---------------------------------------------------- */

static void test_overrides_integers(void **state) {
  (void)state;
  qv_csv_column_type ct[] = {{"a", "int8"}, {"b", "uint64"}, {"c", "int16"}, {"d", "uint8"}, {"e", "string"}};
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.column_types = ct;
  o.n_column_types = 5;
  check("a,b,c,d,e\n127,18446744073709551615,-32768,-0,007\n-128,0,+5,255,\"\"\n", &o,
        "a:int8,b:uint64,c:int16,d:uint8,e:string\n[2]\n"
        "127|18446744073709551615|-32768|0|'007'\n-128|0|5|255|''\n");
  check_error("a,b,c,d,e\n128,1,1,1,x\n", &o, QV_ERR_OVERFLOW,
              "<buffer>: line 2: column `a`: '128' is out of range for int8");
  check_error("a,b,c,d,e\n1,18446744073709551616,1,1,x\n", &o, QV_ERR_OVERFLOW,
              "<buffer>: line 2: column `b`: '18446744073709551616' is out of range for uint64");
  check_error("a,b,c,d,e\n1,1,1,-1,x\n", &o, QV_ERR_OVERFLOW,
              "<buffer>: line 2: column `d`: '-1' is out of range for uint8");
  check_error("a,b,c,d,e\n1,1,1.0,1,x\n", &o, QV_ERR_PARSE, "<buffer>: line 2: column `c`: '1.0' is not a valid int16");
}

static void test_overrides_decimal(void **state) {
  (void)state;
  qv_csv_column_type ct[] = {{"p", "decimal(10,2)"}, {"q", "decimal(38,0)"}};
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.column_types = ct;
  o.n_column_types = 2;
  check(
      "p,q\n"
      "12.5,99999999999999999999999999999999999999\n"
      "-0.01,-99999999999999999999999999999999999999\n"
      "1.230,0\n"
      "1e2,-0\n"
      "+00012345678.9,1.5e1\n"
      ".5,120E-1\n",
      &o,
      "p:decimal(10,2),q:decimal(38,0)\n[6]\n"
      "12.50|99999999999999999999999999999999999999\n"
      "-0.01|-99999999999999999999999999999999999999\n"
      "1.23|0\n"
      "100.00|0\n"
      "12345678.90|15\n"
      "0.50|12\n");
  /* Raw two's complement of -1 (scale 2: -0.01). */
  const char *text = "p,q\n-0.01,1\n";
  qv_batch_reader *r;
  qv_error err;
  assert_int_equal(qv_csv_open_buffer(text, (int64_t)strlen(text), &o, &r, &err), QV_OK);
  qv_batch *b;
  assert_int_equal(r->next(r, &b, &err), QV_OK);
  const uint64_t *v = qv_array_values(b->columns[0]);
  assert_true(v[0] == UINT64_MAX && v[1] == UINT64_MAX);
  qv_batch_release(b);
  qv_batch_reader_destroy(r);

  check_error("p,q\n1.234,1\n", &o, QV_ERR_OVERFLOW,
              "<buffer>: line 2: column `p`: '1.234' has more fractional digits than "
              "decimal(10,2)");
  check_error("p,q\n123456789,1\n", &o, QV_ERR_OVERFLOW,
              "<buffer>: line 2: column `p`: '123456789' is out of range for decimal(10,2)");
  check_error("p,q\n1,100000000000000000000000000000000000000\n", &o, QV_ERR_OVERFLOW,
              "<buffer>: line 2: column `q`: '100000000000000000000000000000000000000' is out "
              "of range for decimal(38,0)");
  check_error("p,q\n1.2.3,1\n", &o, QV_ERR_PARSE, "<buffer>: line 2: column `p`: '1.2.3' is not a valid decimal(10,2)");
  check_error("p,q\nnan,1\n", &o, QV_ERR_PARSE, "<buffer>: line 2: column `p`: 'nan' is not a valid decimal(10,2)");
}

static void test_overrides_temporal(void **state) {
  (void)state;
  qv_csv_column_type ct[] = {
      {"ts", "timestamp[ms, UTC]"}, {"n", "timestamp[s]"}, {"t", "time64[us]"}, {"du", "duration[s]"}, {"d", "date32"}};
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.column_types = ct;
  o.n_column_types = 5;
  check(
      "ts,n,t,du,d\n"
      "2024-01-01T01:00:00.250+01:00,2024-01-01 10:00:00,12:34:56.789,-5,2024-02-29\n"
      "2024-01-01 00:00:00Z,2024-01-01,23:59,0,1970-01-01\n"
      "2024-01-01,1969-12-31T23:59:59,00:00:00.000001,86400,0001-01-01\n",
      &o,
      "ts:timestamp[ms, UTC],n:timestamp[s],t:time64[us],du:duration[s],d:date32\n[3]\n"
      "2024-01-01 00:00:00.250Z|2024-01-01 10:00:00|12:34:56.789000|-5s|2024-02-29\n"
      "2024-01-01 00:00:00.000Z|2024-01-01 00:00:00|23:59:00.000000|0s|1970-01-01\n"
      "2024-01-01 00:00:00.000Z|1969-12-31 23:59:59|00:00:00.000001|86400s|0001-01-01\n");
  check_error("ts,n,t,du,d\n2024-01-01,2024-01-01T00:00:00Z,00:00,1,2024-01-01\n", &o, QV_ERR_PARSE,
              "<buffer>: line 2: column `n`: '2024-01-01T00:00:00Z' has a UTC offset, not "
              "allowed for timestamp[s]");
  check_error("ts,n,t,du,d\n2024-01-01,2024-01-01T00:00:00.5,00:00,1,2024-01-01\n", &o, QV_ERR_OVERFLOW,
              "<buffer>: line 2: column `n`: '2024-01-01T00:00:00.5' has more precision than "
              "timestamp[s]");
  check_error("ts,n,t,du,d\n2024-01-01,2024-01-01,24:00,1,2024-01-01\n", &o, QV_ERR_PARSE,
              "<buffer>: line 2: column `t`: '24:00' is not a valid time64[us]");
  /* Inferred timestamp[us] refuses nanoseconds it cannot hold; zeros are fine. */
  o.column_types = NULL;
  o.n_column_types = 0;
  o.infer_rows = 1;
  check("t\n2024-01-01 00:00:00\n2024-01-01 00:00:00.123456000\n", &o,
        "t:timestamp[us]\n[2]\n2024-01-01 00:00:00.000000\n2024-01-01 00:00:00.123456\n");
  check_error("t\n2024-01-01 00:00:00\n2024-01-01 00:00:00.1234567\n", &o, QV_ERR_OVERFLOW,
              "<buffer>: line 3: column `t`: '2024-01-01 00:00:00.1234567' has more precision "
              "than timestamp[us] (timestamp[us] was inferred from the first row; declare the column's type, e.g. "
              "t=timestamp[ns], or infer from more rows)");
}

static void test_overrides_other(void **state) {
  (void)state;
  qv_csv_column_type ct[] = {{"b", "bool"}, {"f", "float32"}, {"x", "binary"}, {"s", "utf8"}};
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.column_types = ct;
  o.n_column_types = 4;
  check("b,f,x,s\n1,0.1,ab,1\nFalse,-inf,\"\",2\n0,3.4028235e38,NA,NA\n", &o,
        "b:bool,f:float32,x:binary,s:string\n[3]\n"
        "true|0.1|0x6162|'1'\nfalse|-inf|0x|'2'\nfalse|3.4028235e+38|~|~\n");
  /* The float32 is rounded once, from the text. */
  const char *text = "b,f,x,s\ntrue,0.1,x,y\n";
  qv_batch_reader *r;
  qv_error err;
  assert_int_equal(qv_csv_open_buffer(text, (int64_t)strlen(text), &o, &r, &err), QV_OK);
  qv_batch *b;
  assert_int_equal(r->next(r, &b, &err), QV_OK);
  const float *f = qv_array_values(b->columns[1]);
  assert_true(f[0] == 0.1f);
  qv_batch_release(b);
  qv_batch_reader_destroy(r);
  /* Duplicate names: a declaration applies to each. */
  qv_csv_column_type dup[] = {{"a", "int8"}};
  o.column_types = dup;
  o.n_column_types = 1;
  check("a,a,b\n1,2,3\n", &o, "a:int8,a:int8,b:int64\n[1]\n1|2|3\n");
  /* Without a header, declarations use c<i>. */
  qv_csv_column_type pos[] = {{"c1", "string"}};
  o.column_types = pos;
  o.header = false;
  check("1,2\n", &o, "c0:int64,c1:string\n[1]\n1|'2'\n");
}

static void test_override_errors(void **state) {
  (void)state;
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  qv_csv_column_type missing[] = {{"zz", "int8"}};
  o.column_types = missing;
  o.n_column_types = 1;
  check_error("a\n1\n", &o, QV_ERR_NOT_FOUND, "<buffer>: column_types: no column named `zz`");
  qv_csv_column_type nested[] = {{"a", "list<int64>"}};
  o.column_types = nested;
  check_error("a\n1\n", &o, QV_ERR_UNSUPPORTED,
              "<buffer>: column_types: column `a`: CSV import cannot produce list<int64>");
  qv_csv_column_type bad[] = {{"a", "int65"}};
  o.column_types = bad;
  check_error("a\n1\n", &o, QV_ERR_PARSE,
              "<buffer>: column_types: column `a`: type 'int65': unknown type name 'int65'");
  qv_csv_column_type twice[] = {{"a", "int8"}, {"a", "int16"}};
  o.column_types = twice;
  o.n_column_types = 2;
  check_error("a\n1\n", &o, QV_ERR_INVALID, "<buffer>: column_types names column `a` twice");
}

static void test_option_errors(void **state) {
  (void)state;
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.delimiter = '"';
  check_error("a\n", &o, QV_ERR_INVALID, "<buffer>: the delimiter must differ from the quote and escape characters");
  o = (qv_csv_options)QV_CSV_OPTIONS_INIT;
  o.delimiter = '\n';
  check_error("a\n", &o, QV_ERR_INVALID,
              "<buffer>: delimiter, quote and escape must be ASCII and not a line end "
              "(delimiter also not NUL)");
  o = (qv_csv_options)QV_CSV_OPTIONS_INIT;
  o.batch_rows = 0;
  check_error("a\n", &o, QV_ERR_INVALID, "<buffer>: batch_rows must be positive, not 0");
  o = (qv_csv_options)QV_CSV_OPTIONS_INIT;
  o.version = 99;
  check_error("a\n", &o, QV_ERR_INVALID, "<buffer>: csv options version 99, expected 1..2");
  qv_batch_reader *r = NULL;
  qv_error err;
  assert_int_equal(qv_csv_open("/nonexistent/x.csv", NULL, &r, &err), QV_ERR_NOT_FOUND);
  assert_null(r);
  assert_string_equal(err.message, "/nonexistent/x.csv: cannot open: No such file or directory");
}

/* ---- batches and sampling ---------------------------------------------- */

static void test_batch_boundaries(void **state) {
  (void)state;
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.batch_rows = 2;
  const char *text = "n,s\n1,a\n2,\n3,c\n4,d\n5,e\n";
  const char *want = "n:int64,s:string\n[2]\n1|'a'\n2|~\n[2]\n3|'c'\n4|'d'\n[1]\n5|'e'\n";
  /* The sample ends before, at, and after a batch boundary, or is off. */
  int64_t infer[] = {1, 2, 3, 5, 100, -1};
  for (size_t k = 0; k < sizeof infer / sizeof infer[0]; k++) {
    o.infer_rows = infer[k];
    check(text, &o, want);
  }
  o.infer_rows = 0;
  check(text, &o, "n:string,s:string\n[2]\n'1'|'a'\n'2'|~\n[2]\n'3'|'c'\n'4'|'d'\n[1]\n'5'|'e'\n");
  o.header = false;
  check("1\n2\n", &o, "c0:string\n[2]\n'1'\n'2'\n");
  o.infer_rows = 1000;
  check("1\n2\n3\n4\n", &o, "c0:int64\n[2]\n1\n2\n[2]\n3\n4\n");
}

static void test_infer_rows_window(void **state) {
  (void)state;
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.infer_rows = -1; /* the whole input: the late "x" makes it string */
  check("a\n1\n2\n3\nx\n", &o, "a:string\n[4]\n'1'\n'2'\n'3'\n'x'\n");
  o.infer_rows = 4;
  check("a\n1\n2\n3\nx\n", &o, "a:string\n[4]\n'1'\n'2'\n'3'\n'x'\n");
  o.infer_rows = 3;
  check_error("a\n1\n2\n3\nx\n", &o, QV_ERR_PARSE,
              "<buffer>: line 5: column `a`: 'x' is not a valid int64 (int64 was inferred from the first 3 rows; "
              "declare the column's type, e.g. a=string, or infer from more rows)");
}

/* ---- files and streaming ----------------------------------------------- */

static char *temp_path(const char *tag) {
  static char path[256];
  snprintf(path, sizeof path, "/tmp/qv_test_csv_%d_%s.csv", (int)getpid(), tag);
  return path;
}

static void test_file_and_fixture(void **state) {
  (void)state;
  qv_batch_reader *r;
  qv_error err;
  assert_int_equal(qv_csv_open(QV_TEST_DATA_DIR "/csv/mixed.csv", NULL, &r, &err), QV_OK);
  qv_status st;
  char *got = drain(r, &err, &st);
  if (!got) fail_msg("%s", err.message);
  assert_string_equal(got,
                      "id:int64,name:string,score:float64,joined:date32,active:bool\n[4]\n"
                      "1|'Ada, Countess'|9.5|1815-12-10|true\n"
                      "2|'Bob \"the builder\"'|~|2001-01-01|false\n"
                      "3|'multi\nline'|-1.0|~|~\n"
                      "4|''|inf|2024-02-29|true\n");
  free(got);
  qv_batch_reader_destroy(r);
  /* A file error names the file. */
  assert_int_equal(qv_csv_open(QV_TEST_DATA_DIR "/csv/ragged.csv", NULL, &r, &err), QV_ERR_PARSE);
  assert_string_equal(err.message, QV_TEST_DATA_DIR "/csv/ragged.csv: line 4: expected 3 fields, found 4");
}

static void test_stdin(void **state) {
  (void)state;
  char *path = temp_path("stdin");
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs("a,b\n1,x\n2,y\n", f);
  fclose(f);
  assert_non_null(freopen(path, "rb", stdin));
  qv_batch_reader *r;
  qv_error err;
  assert_int_equal(qv_csv_open("-", NULL, &r, &err), QV_OK);
  qv_status st;
  char *got = drain(r, &err, &st);
  assert_non_null(got);
  assert_string_equal(got, "a:int64,b:string\n[2]\n1|'x'\n2|'y'\n");
  free(got);
  qv_batch_reader_destroy(r);
  /* Errors from stdin say so. */
  f = fopen(path, "wb");
  fputs("a\n1\n\xFF\n", f);
  fclose(f);
  assert_non_null(freopen(path, "rb", stdin));
  assert_int_equal(qv_csv_open("-", NULL, &r, &err), QV_ERR_PARSE);
  assert_string_equal(err.message,
                      "<stdin>: line 3, field 1: invalid UTF-8 (byte 0xFF at offset "
                      "4, sequence starting at offset 4)");
  unlink(path);
}

/* A file many times the chunk size streams in batches; values and line
 * numbers stay right across chunk refills. */
static void test_large_file(void **state) {
  (void)state;
  char *path = temp_path("large");
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs("id,val,txt\n", f);
  const int64_t n = 200000;
  for (int64_t i = 0; i < n; i++)
    fprintf(f, "%lld,%lld.5,\"row %lld, \"\"q\"\"\"\r\n", (long long)i, (long long)(i % 1000), (long long)i);
  fputs("oops,1,x\n", f); /* line n + 2 */
  fclose(f);

  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.batch_rows = 65536;
  qv_batch_reader *r;
  qv_error err;
  assert_int_equal(qv_csv_open(path, &o, &r, &err), QV_OK);
  int64_t rows = 0, batches = 0;
  double sum = 0;
  qv_batch *b;
  qv_status st;
  while ((st = r->next(r, &b, &err)) == QV_OK && b) {
    batches++;
    assert_true(b->num_rows <= 65536);
    const int64_t *id = qv_array_values(b->columns[0]);
    const double *val = qv_array_values(b->columns[1]);
    for (int64_t i = 0; i < b->num_rows; i++) {
      assert_int_equal(id[i], rows + i);
      sum += val[i];
    }
    int32_t len;
    const uint8_t *s = qv_array_str(b->columns[2], b->num_rows - 1, &len);
    char want[64];
    snprintf(want, sizeof want, "row %lld, \"q\"", (long long)(rows + b->num_rows - 1));
    assert_int_equal(len, (int32_t)strlen(want));
    assert_memory_equal(s, want, (size_t)len);
    rows += b->num_rows;
    qv_batch_release(b);
  }
  assert_int_equal(st, QV_ERR_PARSE);
  assert_int_equal(rows, 196608); /* three full batches before the bad one */
  assert_int_equal(batches, 3);
  char want[512];
  snprintf(want, sizeof want,
           "%s: line %lld: column `id`: 'oops' is not a valid int64 (int64 was inferred from the first 1000 rows; "
           "declare the column's type, e.g. id=string, or infer from more rows)",
           path, (long long)(n + 2));
  assert_string_equal(err.message, want);
  (void)sum;
  qv_batch_reader_destroy(r);
  unlink(path);
}

/* ---- allocation failures ----------------------------------------------- */

/* Every allocation in open and next, failed in turn, gives QV_ERR_NOMEM
 * (never a crash, a leak, or a wrong answer), and the reader still closes. */
static void test_out_of_memory(void **state) {
  (void)state;
  const char *text = "a,b,c,d\n1,x,2.5,2024-01-01\n\"4\",,NA,2024-01-02\n3,z,1e3,\n";
  qv_csv_column_type ct[] = {{"d", "timestamp[ms, UTC]"}};
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.batch_rows = 2;
  o.infer_rows = 1;
  o.column_types = ct;
  o.n_column_types = 1;
  bool completed = false;
  for (int64_t budget = 0; !completed && budget < 10000; budget++) {
    failing_alloc_budget = budget;
    qv_set_allocator(failing_alloc, NULL);
    qv_batch_reader *r = NULL;
    qv_error err;
    qv_status st = qvc_csv_open_buffer_chunked(text, (int64_t)strlen(text), &o, 5, 0, &r, &err);
    int64_t rows = 0;
    if (st == QV_OK) {
      qv_batch *b;
      while ((st = r->next(r, &b, &err)) == QV_OK && b) {
        rows += b->num_rows;
        qv_batch_release(b);
      }
      qv_batch_reader_destroy(r);
    }
    qv_set_allocator(NULL, NULL);
    if (st == QV_OK) {
      assert_int_equal(rows, 3);
      completed = true;
    } else {
      if (st != QV_ERR_NOMEM) fail_msg("budget %lld: %s", (long long)budget, err.message);
      if (!strstr(err.message, "out of memory")) fail_msg("budget %lld: message '%s'", (long long)budget, err.message);
    }
  }
  assert_true(completed);
}

static void test_misc_branches(void **state) {
  (void)state;
  qv_csv_column_type ct[] = {{"a", "int32"}, {"b", "uint16"}, {"c", "uint32"}, {"t", "time64[ns]"}};
  qv_csv_options o = QV_CSV_OPTIONS_INIT;
  o.column_types = ct;
  o.n_column_types = 4;
  check("a,b,c,t\n-2147483648,65535,4294967295,00:00:00.123456789\n", &o,
        "a:int32,b:uint16,c:uint32,t:time64[ns]\n[1]\n-2147483648|65535|4294967295|00:00:00.123456789\n");
  check_error("a,b,c,t\n2147483648,1,1,00:00\n", &o, QV_ERR_OVERFLOW,
              "<buffer>: line 2: column `a`: '2147483648' is out of range for int32");
  check_error("a,b,c,t\n1,65536,1,00:00\n", &o, QV_ERR_OVERFLOW,
              "<buffer>: line 2: column `b`: '65536' is out of range for uint16");
  check_error("a,b,c,t\n1,1,4294967296,00:00\n", &o, QV_ERR_OVERFLOW,
              "<buffer>: line 2: column `c`: '4294967296' is out of range for uint32");
  check_error("a,b,c,t\n1,1,1,00:00:00.0000000001\n", &o, QV_ERR_OVERFLOW,
              "<buffer>: line 2: column `t`: '00:00:00.0000000001' has more precision than "
              "time64[ns]");
  check("a,b,c,t\n1,1,1,00:00:00.1000000000\n", &o,
        "a:int32,b:uint16,c:uint32,t:time64[ns]\n[1]\n1|1|1|00:00:00.100000000\n");
  /* A long float with trailing blanks is copied before strtod. */
  char text[600];
  snprintf(text, sizeof text, "x\n0.%0300d1  \n", 0);
  check(text, NULL, "x:float64\n[1]\n1e-301\n");
  /* Bad arguments. */
  o.column_types = NULL;
  check_error("a\n", &o, QV_ERR_INVALID, "<buffer>: column_types is NULL but n_column_types is 4");
  qv_csv_column_type null_name[] = {{NULL, "int8"}};
  o.column_types = null_name;
  o.n_column_types = 1;
  check_error("a\n", &o, QV_ERR_INVALID, "<buffer>: column_types[0] has a NULL name or type");
  qv_batch_reader *r = NULL;
  qv_error err;
  assert_int_equal(qv_csv_open_buffer(NULL, 5, NULL, &r, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, "<buffer>: no data (size 5)");
  assert_int_equal(qv_csv_open_buffer(NULL, 0, NULL, &r, &err), QV_OK);
  assert_int_equal(r->schema(r)->n_fields, 0);
  qv_batch_reader_destroy(r);
  qv_batch_reader_destroy(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_basic_inference),
      cmocka_unit_test(test_exact_values),
      cmocka_unit_test(test_float_spellings),
      cmocka_unit_test(test_inference_fallbacks),
      cmocka_unit_test(test_nulls),
      cmocka_unit_test(test_null_positions),
      cmocka_unit_test(test_empty_inputs),
      cmocka_unit_test(test_header_options),
      cmocka_unit_test(test_line_ends),
      cmocka_unit_test(test_quoting),
      cmocka_unit_test(test_escape),
      cmocka_unit_test(test_utf8),
      cmocka_unit_test(test_ragged_rows),
      cmocka_unit_test(test_quote_errors),
      cmocka_unit_test(test_record_limit),
      cmocka_unit_test(test_value_errors),
      cmocka_unit_test(test_late_value_suggests_a_type),
      cmocka_unit_test(test_error_after_good_batches),
      cmocka_unit_test(test_overrides_integers),
      cmocka_unit_test(test_overrides_decimal),
      cmocka_unit_test(test_overrides_temporal),
      cmocka_unit_test(test_overrides_other),
      cmocka_unit_test(test_override_errors),
      cmocka_unit_test(test_option_errors),
      cmocka_unit_test(test_batch_boundaries),
      cmocka_unit_test(test_infer_rows_window),
      cmocka_unit_test(test_file_and_fixture),
      cmocka_unit_test(test_stdin),
      cmocka_unit_test(test_large_file),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_misc_branches),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
