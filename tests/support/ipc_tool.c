/* ipc_tool: drives quiver's Arrow IPC reader and writer for the Python
 * interop tests (tests/python/test_arrow_interop.py).
 *
 *   ipc_tool roundtrip IN OUT [stream|file]   read IN (file or stream, "-" = stdin)
 *                                             and write every batch to OUT
 *   ipc_tool slice IN OUT FORMAT OFF LEN      like roundtrip, but writes rows
 *                                             [OFF, OFF+LEN) of each batch (a
 *                                             zero-copy slice, so the writer's
 *                                             offset handling is exercised)
 *   ipc_tool sample OUT [stream|file]         write the sample batch below
 *   ipc_tool cat IN                           print the batches as text
 *
 * Exit status 0 on success; 1 with the quiver error on stderr otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiver/columnar.h"

static int fail(const char *what, const qv_error *e) {
  fprintf(stderr, "ipc_tool: %s: %s\n", what, e->message);
  return 1;
}

static qv_ipc_format parse_format(const char *s) { return s && strcmp(s, "file") == 0 ? QV_IPC_FILE : QV_IPC_STREAM; }

static qv_status open_reader(const char *path, qv_batch_reader **r, qv_error *e) {
  if (strcmp(path, "-") == 0) return qv_ipc_read_file(stdin, r, e);
  return qv_ipc_read_path(path, r, e);
}

/* Copies IN to OUT, each batch optionally sliced (len < 0: whole batch). */
static int copy(const char *in, const char *outp, qv_ipc_format fmt, int64_t off, int64_t len) {
  qv_error e = {0};
  qv_batch_reader *r = NULL;
  qv_ipc_writer *w = NULL;
  FILE *f = NULL;
  int rc = 1;
  if (open_reader(in, &r, &e) != QV_OK) return fail("open", &e);
  f = strcmp(outp, "-") == 0 ? stdout : fopen(outp, "wb");
  if (!f) {
    fprintf(stderr, "ipc_tool: %s: cannot open\n", outp);
    goto cleanup;
  }
  if (qv_ipc_writer_open(f, fmt, r->schema(r), &w, &e) != QV_OK) {
    rc = fail("open writer", &e);
    goto cleanup;
  }
  for (;;) {
    qv_batch *b = NULL, *s = NULL;
    if (r->next(r, &b, &e) != QV_OK) {
      rc = fail("read", &e);
      goto cleanup;
    }
    if (!b) break;
    if (len >= 0) {
      int64_t o = off < b->num_rows ? off : b->num_rows;
      int64_t n = len < b->num_rows - o ? len : b->num_rows - o;
      qv_status st = qv_batch_slice(b, o, n, &s, &e);
      qv_batch_release(b);
      if (st != QV_OK) {
        rc = fail("slice", &e);
        goto cleanup;
      }
      b = s;
    }
    qv_status st = qv_ipc_writer_write(w, b, &e);
    qv_batch_release(b);
    if (st != QV_OK) {
      rc = fail("write", &e);
      goto cleanup;
    }
  }
  qv_status st = qv_ipc_writer_close(w, &e);
  w = NULL;
  if (st != QV_OK) {
    rc = fail("close", &e);
    goto cleanup;
  }
  rc = 0;
cleanup:
  qv_ipc_writer_destroy(w);
  if (f && f != stdout) fclose(f);
  qv_batch_reader_destroy(r);
  return rc;
}

/* ---- the sample batch (test_arrow_interop.py asserts these values) ------- */

#define CHECK(x)                                                                \
  do {                                                                          \
    if ((x) != QV_OK) {                                                         \
      fprintf(stderr, "ipc_tool: sample: %s failed (line %d)\n", #x, __LINE__); \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

enum { ROWS = 5, NULL_ROW = 2 };

static qv_field field(const char *name, qv_datatype t) {
  qv_field f;
  qv_error e;
  CHECK(qv_field_init(&f, name, &t, true, &e));
  return f;
}

static qv_array *finish(qv_builder *b) {
  qv_array *a = NULL;
  qv_error e;
  CHECK(qv_builder_finish(b, &a, &e));
  return a;
}

static qv_array *ints(const qv_datatype *t, const int64_t *v) {
  qv_builder b;
  qv_error e;
  CHECK(qv_builder_init(&b, t, &e));
  for (int i = 0; i < ROWS; i++) CHECK(i == NULL_ROW ? qv_builder_append_null(&b) : qv_builder_append_int(&b, v[i]));
  return finish(&b);
}

static qv_array *uints(const qv_datatype *t, const uint64_t *v) {
  qv_builder b;
  qv_error e;
  CHECK(qv_builder_init(&b, t, &e));
  for (int i = 0; i < ROWS; i++) CHECK(i == NULL_ROW ? qv_builder_append_null(&b) : qv_builder_append_uint(&b, v[i]));
  return finish(&b);
}

static qv_array *doubles(const qv_datatype *t, const double *v) {
  qv_builder b;
  qv_error e;
  CHECK(qv_builder_init(&b, t, &e));
  for (int i = 0; i < ROWS; i++) CHECK(i == NULL_ROW ? qv_builder_append_null(&b) : qv_builder_append_double(&b, v[i]));
  return finish(&b);
}

static qv_array *bytes(const qv_datatype *t, const char *const *v, const int *len) {
  qv_builder b;
  qv_error e;
  CHECK(qv_builder_init(&b, t, &e));
  for (int i = 0; i < ROWS; i++)
    CHECK(i == NULL_ROW ? qv_builder_append_null(&b) : qv_builder_append_bytes(&b, v[i], len[i]));
  return finish(&b);
}

static int sample(const char *outp, qv_ipc_format fmt) {
  qv_error e;
  qv_schema schema = QV_SCHEMA_INIT;
  qv_array *cols[32];
  int n = 0;
  qv_datatype t;
  qv_builder b;

/* The array is built first: field() takes over the type's memory. */
#define ADD(name, type, array)              \
  do {                                      \
    cols[n++] = (array);                    \
    qv_field f_ = field(name, (type));      \
    CHECK(qv_schema_add(&schema, &f_, &e)); \
    qv_field_reset(&f_);                    \
  } while (0)

  static const int64_t i8[] = {-128, 127, 0, 0, -1}, i16[] = {-32768, 32767, 0, 1, -2},
                       i32[] = {INT32_MIN, INT32_MAX, 0, 2, -3}, i64[] = {INT64_MIN, INT64_MAX, 0, 3, -4};
  static const uint64_t u8[] = {0, 255, 0, 1, 2}, u16[] = {0, 65535, 0, 1, 2}, u32[] = {0, 4294967295u, 0, 1, 2},
                        u64[] = {0, UINT64_MAX, 0, 1, 2};
  static const double f32[] = {1.5, -2.25, 0, 0.0, 3.0}, f64[] = {1.5, -2.25, 0, 1e300, -0.0};
  static const int64_t d32[] = {0, 19000, 0, -1, 365}, ts[] = {0, 1700000000000000, 0, -1, 1},
                       tsn[] = {0, 1700000000000000123, 0, -1, 1}, t64[] = {0, 86399999999, 0, 1, 2},
                       t64n[] = {0, 86399999999999, 0, 1, 2}, dur[] = {0, -5, 0, 1000, 7};

  t = qv_datatype_simple(QV_TYPE_BOOL);
  CHECK(qv_builder_init(&b, &t, &e));
  static const bool bv[] = {true, false, false, true, false};
  for (int i = 0; i < ROWS; i++) CHECK(i == NULL_ROW ? qv_builder_append_null(&b) : qv_builder_append_bool(&b, bv[i]));
  ADD("b", t, finish(&b));

  t = qv_datatype_simple(QV_TYPE_INT8);
  ADD("i8", t, ints(&t, i8));
  t = qv_datatype_simple(QV_TYPE_INT16);
  ADD("i16", t, ints(&t, i16));
  t = qv_datatype_simple(QV_TYPE_INT32);
  ADD("i32", t, ints(&t, i32));
  t = qv_datatype_simple(QV_TYPE_INT64);
  ADD("i64", t, ints(&t, i64));
  t = qv_datatype_simple(QV_TYPE_UINT8);
  ADD("u8", t, uints(&t, u8));
  t = qv_datatype_simple(QV_TYPE_UINT16);
  ADD("u16", t, uints(&t, u16));
  t = qv_datatype_simple(QV_TYPE_UINT32);
  ADD("u32", t, uints(&t, u32));
  t = qv_datatype_simple(QV_TYPE_UINT64);
  ADD("u64", t, uints(&t, u64));
  t = qv_datatype_simple(QV_TYPE_FLOAT32);
  ADD("f32", t, doubles(&t, f32));
  t = qv_datatype_simple(QV_TYPE_FLOAT64);
  ADD("f64", t, doubles(&t, f64));

  CHECK(qv_datatype_decimal(10, 2, &t, &e));
  CHECK(qv_builder_init(&b, &t, &e));
  static const int64_t dec[] = {12345, -1, 0, 0, 9999999999};
  for (int i = 0; i < ROWS; i++)
    CHECK(i == NULL_ROW ? qv_builder_append_null(&b)
                        : qv_builder_append_decimal(&b, (uint64_t)dec[i], dec[i] < 0 ? -1 : 0));
  ADD("dec", t, finish(&b));

  static const char *const sv[] = {"hello", "", NULL,
                                   "\xc3\xbc"
                                   "n"
                                   "\xc3\xaf"
                                   "c"
                                   "\xc3\xb8"
                                   "d"
                                   "\xc3\xa9",
                                   "x"};
  static const int sl[] = {5, 0, 0, 11, 1};
  t = qv_datatype_simple(QV_TYPE_STRING);
  ADD("s", t, bytes(&t, sv, sl));
  static const char *const bv2[] = {"\x00\x01", "", NULL, "abc", "\xff"};
  static const int bl[] = {2, 0, 0, 3, 1};
  t = qv_datatype_simple(QV_TYPE_BINARY);
  ADD("bin", t, bytes(&t, bv2, bl));

  t = qv_datatype_simple(QV_TYPE_DATE32);
  ADD("d32", t, ints(&t, d32));
  CHECK(qv_datatype_timestamp(QV_UNIT_MICRO, "UTC", &t, &e));
  ADD("ts", t, ints(&t, ts));
  CHECK(qv_datatype_timestamp(QV_UNIT_NANO, NULL, &t, &e));
  ADD("tsn", t, ints(&t, tsn));
  t = qv_datatype_time64(QV_UNIT_MICRO);
  ADD("t64", t, ints(&t, t64));
  t = qv_datatype_time64(QV_UNIT_NANO);
  ADD("t64n", t, ints(&t, t64n));
  t = qv_datatype_duration(QV_UNIT_MILLI);
  ADD("dur", t, ints(&t, dur));

  /* list<int32>: [[1, 2], [], null, [null, 3], [4]] */
  {
    qv_datatype item = qv_datatype_simple(QV_TYPE_INT32);
    CHECK(qv_datatype_list(&item, &t, &e));
    CHECK(qv_builder_init(&b, &t, &e));
    qv_builder *c = &b.children[0];
    CHECK(qv_builder_append_int(c, 1));
    CHECK(qv_builder_append_int(c, 2));
    CHECK(qv_builder_append_valid(&b));
    CHECK(qv_builder_append_valid(&b));
    CHECK(qv_builder_append_null(&b));
    CHECK(qv_builder_append_null(c));
    CHECK(qv_builder_append_int(c, 3));
    CHECK(qv_builder_append_valid(&b));
    CHECK(qv_builder_append_int(c, 4));
    CHECK(qv_builder_append_valid(&b));
    ADD("lst", t, finish(&b));
  }
  /* struct<a: int32, b: string>: [{1, "a"}, {2, null}, null, {null, "d"}, {5, "e"}] */
  {
    qv_field fs[2];
    fs[0] = field("a", qv_datatype_simple(QV_TYPE_INT32));
    fs[1] = field("b", qv_datatype_simple(QV_TYPE_STRING));
    CHECK(qv_datatype_struct(fs, 2, &t, &e));
    CHECK(qv_builder_init(&b, &t, &e));
    qv_builder *a = &b.children[0], *s = &b.children[1];
    CHECK(qv_builder_append_int(a, 1));
    CHECK(qv_builder_append_cstr(s, "a"));
    CHECK(qv_builder_append_valid(&b));
    CHECK(qv_builder_append_int(a, 2));
    CHECK(qv_builder_append_null(s));
    CHECK(qv_builder_append_valid(&b));
    CHECK(qv_builder_append_null(&b));
    CHECK(qv_builder_append_null(a));
    CHECK(qv_builder_append_cstr(s, "d"));
    CHECK(qv_builder_append_valid(&b));
    CHECK(qv_builder_append_int(a, 5));
    CHECK(qv_builder_append_cstr(s, "e"));
    CHECK(qv_builder_append_valid(&b));
    ADD("st", t, finish(&b));
  }
  /* fixed_size_list<int16, 2>: [[1, 2], [3, null], null, [5, 6], [7, 8]] */
  {
    qv_datatype item = qv_datatype_simple(QV_TYPE_INT16);
    CHECK(qv_datatype_fixed_size_list(&item, 2, &t, &e));
    CHECK(qv_builder_init(&b, &t, &e));
    qv_builder *c = &b.children[0];
    static const int v[] = {1, 2, 3, -1, 0, 0, 5, 6, 7, 8};
    for (int i = 0; i < ROWS; i++) {
      if (i == NULL_ROW) {
        CHECK(qv_builder_append_null(&b));
        continue;
      }
      for (int k = 0; k < 2; k++)
        CHECK(v[2 * i + k] < 0 ? qv_builder_append_null(c) : qv_builder_append_int(c, v[2 * i + k]));
      CHECK(qv_builder_append_valid(&b));
    }
    ADD("fsl", t, finish(&b));
  }
  /* null: five nulls */
  t = qv_datatype_simple(QV_TYPE_NULL);
  CHECK(qv_builder_init(&b, &t, &e));
  CHECK(qv_builder_append_nulls(&b, ROWS));
  ADD("nul", t, finish(&b));

  qv_batch *batch = NULL;
  CHECK(qv_batch_make(&schema, cols, ROWS, &batch, &e));
  FILE *f = fopen(outp, "wb");
  if (!f) {
    fprintf(stderr, "ipc_tool: %s: cannot open\n", outp);
    return 1;
  }
  qv_ipc_writer *w = NULL;
  int rc = 0;
  if (qv_ipc_writer_open(f, fmt, &schema, &w, &e) != QV_OK || qv_ipc_writer_write(w, batch, &e) != QV_OK) {
    qv_ipc_writer_destroy(w);
    rc = fail("sample", &e);
  } else if (qv_ipc_writer_close(w, &e) != QV_OK) {
    rc = fail("sample close", &e);
  }
  fclose(f);
  qv_batch_release(batch);
  qv_schema_reset(&schema);
  return rc;
}

static int cat(const char *in) {
  qv_error e = {0};
  qv_batch_reader *r = NULL;
  if (open_reader(in, &r, &e) != QV_OK) return fail("open", &e);
  int rc = 0;
  for (;;) {
    qv_batch *b = NULL;
    if (r->next(r, &b, &e) != QV_OK) {
      rc = fail("read", &e);
      break;
    }
    if (!b) break;
    if (qv_batch_print(b, stdout, &e) != QV_OK) rc = fail("print", &e);
    qv_batch_release(b);
    if (rc) break;
  }
  qv_batch_reader_destroy(r);
  return rc;
}

int main(int argc, char **argv) {
  if (argc >= 4 && strcmp(argv[1], "roundtrip") == 0)
    return copy(argv[2], argv[3], parse_format(argc > 4 ? argv[4] : NULL), 0, -1);
  if (argc >= 7 && strcmp(argv[1], "slice") == 0)
    return copy(argv[2], argv[3], parse_format(argv[4]), atoll(argv[5]), atoll(argv[6]));
  if (argc >= 3 && strcmp(argv[1], "sample") == 0) return sample(argv[2], parse_format(argc > 3 ? argv[3] : NULL));
  if (argc >= 3 && strcmp(argv[1], "cat") == 0) return cat(argv[2]);
  fprintf(stderr,
          "usage: ipc_tool roundtrip IN OUT [stream|file]\n"
          "       ipc_tool slice IN OUT stream|file OFFSET LENGTH\n"
          "       ipc_tool sample OUT [stream|file]\n"
          "       ipc_tool cat IN\n");
  return 2;
}
