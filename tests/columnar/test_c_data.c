/* The Arrow C Data Interface: format strings, export -> import round trips of
 * every type (with nulls and non-zero offsets), release semantics (moves,
 * moved-out children, the producer's release running exactly once when the
 * last quiver array lets go), dictionary decoding on import, and streams in
 * both directions including their error reporting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "quiver/columnar.h"
#include "random_batch.h"

/* ---- a batch with every type (as in test_ipc.c) ---------------------------- */

static qv_field mkfield(const char *name, qv_datatype t, bool nullable) {
  qv_field f;
  assert_int_equal(qv_field_init(&f, name, &t, nullable, NULL), QV_OK);
  return f;
}

static void add(qv_schema *s, const char *name, qv_datatype t, bool nullable) {
  qv_field f = mkfield(name, t, nullable);
  assert_int_equal(qv_schema_add(s, &f, NULL), QV_OK);
  qv_field_reset(&f);
}

/* Field i's expected C Data format string is formats[i]. */
static const char *const formats[] = {"b",
                                      "c",
                                      "s",
                                      "i",
                                      "l",
                                      "C",
                                      "S",
                                      "I",
                                      "L",
                                      "f",
                                      "g",
                                      "u",
                                      "z",
                                      "tdD",
                                      "n",
                                      "d:20,3",
                                      "tsm:America/New_York",
                                      "tsn:",
                                      "ttu",
                                      "ttn",
                                      "tDs",
                                      "+l",
                                      "+s",
                                      "+w:3",
                                      "+l"};

static void all_types_schema(qv_schema *s) {
  static const qv_type_id simple[] = {QV_TYPE_BOOL,    QV_TYPE_INT8,   QV_TYPE_INT16,  QV_TYPE_INT32,  QV_TYPE_INT64,
                                      QV_TYPE_UINT8,   QV_TYPE_UINT16, QV_TYPE_UINT32, QV_TYPE_UINT64, QV_TYPE_FLOAT32,
                                      QV_TYPE_FLOAT64, QV_TYPE_STRING, QV_TYPE_BINARY, QV_TYPE_DATE32, QV_TYPE_NULL};
  qv_datatype t;
  char name[32];
  *s = (qv_schema)QV_SCHEMA_INIT;
  for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
    snprintf(name, sizeof name, "c%zu", i);
    add(s, name, qv_datatype_simple(simple[i]), i % 2 == 0);
  }
  assert_int_equal(qv_datatype_decimal(20, 3, &t, NULL), QV_OK);
  add(s, "dec", t, true);
  assert_int_equal(qv_datatype_timestamp(QV_UNIT_MILLI, "America/New_York", &t, NULL), QV_OK);
  add(s, "ts_ms_tz", t, true);
  assert_int_equal(qv_datatype_timestamp(QV_UNIT_NANO, NULL, &t, NULL), QV_OK);
  add(s, "ts_ns", t, true);
  add(s, "t64us", qv_datatype_time64(QV_UNIT_MICRO), true);
  add(s, "t64ns", qv_datatype_time64(QV_UNIT_NANO), true);
  add(s, "dur_s", qv_datatype_duration(QV_UNIT_SECOND), true);
  add(s, "list_i32", list_of(qv_datatype_simple(QV_TYPE_INT32)), true);
  qv_field kids[2] = {mkfield("a", qv_datatype_simple(QV_TYPE_INT64), false),
                      mkfield("b", qv_datatype_simple(QV_TYPE_STRING), true)};
  assert_int_equal(qv_datatype_struct(kids, 2, &t, NULL), QV_OK);
  add(s, "struct", t, true);
  qv_datatype item = qv_datatype_simple(QV_TYPE_FLOAT32);
  assert_int_equal(qv_datatype_fixed_size_list(&item, 3, &t, NULL), QV_OK);
  add(s, "fsl_f32_3", t, true);
  qv_field kids2[2] = {mkfield("x", qv_datatype_simple(QV_TYPE_INT8), true),
                       mkfield("y", list_of(qv_datatype_simple(QV_TYPE_STRING)), true)};
  qv_datatype st;
  assert_int_equal(qv_datatype_struct(kids2, 2, &st, NULL), QV_OK);
  add(s, "list_struct", list_of(st), true);
}

static void assert_array_equal(const qv_array *want, const qv_array *got) {
  char x[8192], y[8192];
  qv_error e;
  assert_int_equal(want->length, got->length);
  assert_true(qv_datatype_equal(&want->type, &got->type));
  if (qv_array_validate(got, &e) != QV_OK) fail_msg("%s", e.message);
  for (int64_t i = 0; i < want->length; i++) {
    qv_array_format_value(want, i, x, sizeof x);
    qv_array_format_value(got, i, y, sizeof y);
    if (strcmp(x, y) != 0) fail_msg("row %lld: want %s, got %s", (long long)i, x, y);
    assert_int_equal(qv_array_is_valid(want, i), qv_array_is_valid(got, i));
  }
}

static void assert_batch_equal(const qv_batch *want, const qv_batch *got) {
  assert_int_equal(want->num_rows, got->num_rows);
  assert_true(qv_schema_equal(&want->schema, &got->schema));
  for (int32_t c = 0; c < want->schema.n_fields; c++) {
    assert_int_equal(want->schema.fields[c].nullable, got->schema.fields[c].nullable);
    assert_array_equal(want->columns[c], got->columns[c]);
  }
}

/* ---- schemas ------------------------------------------------------------- */

static void test_export_schema_formats(void **state) {
  (void)state;
  qv_schema s;
  all_types_schema(&s);
  struct ArrowSchema a;
  assert_int_equal(qv_export_schema(&s, &a, NULL), QV_OK);
  assert_string_equal(a.format, "+s");
  assert_string_equal(a.name, "");
  assert_int_equal(a.n_children, s.n_fields);
  assert_int_equal(a.n_children, (int64_t)(sizeof formats / sizeof formats[0]));
  for (int64_t i = 0; i < a.n_children; i++) {
    const struct ArrowSchema *c = a.children[i];
    assert_string_equal(c->format, formats[i]);
    assert_string_equal(c->name, s.fields[i].name);
    assert_int_equal(c->flags, s.fields[i].nullable ? ARROW_FLAG_NULLABLE : 0);
    assert_null(c->dictionary);
    assert_non_null(c->release);
  }
  const struct ArrowSchema *st = a.children[22];
  assert_int_equal(st->n_children, 2);
  assert_string_equal(st->children[0]->name, "a");
  assert_string_equal(st->children[0]->format, "l");
  assert_int_equal(st->children[0]->flags, 0);
  assert_string_equal(st->children[1]->format, "u");
  const struct ArrowSchema *ls = a.children[24];
  assert_string_equal(ls->children[0]->name, "item");
  assert_string_equal(ls->children[0]->format, "+s");
  assert_string_equal(ls->children[0]->children[1]->children[0]->format, "u");
  a.release(&a);
  assert_null(a.release);

  qv_field f = mkfield("solo", qv_datatype_simple(QV_TYPE_UINT16), false);
  assert_int_equal(qv_export_field(&f, &a, NULL), QV_OK);
  assert_string_equal(a.format, "S");
  assert_string_equal(a.name, "solo");
  qv_field back;
  assert_int_equal(qv_import_field(&a, &back, NULL), QV_OK);
  assert_null(a.release); /* moved */
  assert_string_equal(back.name, "solo");
  assert_int_equal(back.type.id, QV_TYPE_UINT16);
  assert_false(back.nullable);
  qv_field_reset(&back);
  qv_field_reset(&f);
  qv_schema_reset(&s);
}

static void test_schema_roundtrip(void **state) {
  (void)state;
  qv_schema s, back;
  all_types_schema(&s);
  struct ArrowSchema a;
  assert_int_equal(qv_export_schema(&s, &a, NULL), QV_OK);
  assert_int_equal(qv_import_schema(&a, &back, NULL), QV_OK);
  assert_null(a.release);
  assert_true(qv_schema_equal(&s, &back));
  for (int32_t i = 0; i < s.n_fields; i++) assert_int_equal(s.fields[i].nullable, back.fields[i].nullable);
  assert_string_equal(back.fields[16].type.timezone, "America/New_York");
  assert_null(back.fields[17].type.timezone);
  assert_false(back.fields[22].type.children[0].nullable);
  qv_schema_reset(&back);

  /* Unsupported formats are refused by name, and the input stays the caller's. */
  qv_field f = mkfield("x", qv_datatype_simple(QV_TYPE_INT32), true);
  assert_int_equal(qv_export_field(&f, &a, NULL), QV_OK);
  const char *saved = a.format;
  a.format = "U"; /* large_string */
  qv_field g;
  qv_error e;
  assert_int_equal(qv_import_field(&a, &g, &e), QV_ERR_UNSUPPORTED);
  assert_non_null(strstr(e.message, "'U'"));
  assert_non_null(a.release);
  a.format = saved;
  a.release(&a);
  assert_int_equal(qv_export_field(&f, &a, NULL), QV_OK);
  assert_int_equal(qv_import_schema(&a, &back, &e), QV_ERR_INVALID); /* not a struct */
  a.release(&a);
  qv_field_reset(&f);
  qv_schema_reset(&s);
}

/* ---- arrays -------------------------------------------------------------- */

static void test_batch_roundtrip(void **state) {
  (void)state;
  qv_schema s, back;
  all_types_schema(&s);
  qv_batch *b = make_batch(&s, 77, 42);
  qv_batch *keep = qv_batch_retain(b);
  struct ArrowSchema as;
  struct ArrowArray aa;
  assert_int_equal(qv_export_schema(&s, &as, NULL), QV_OK);
  assert_int_equal(qv_export_batch(b, &aa, NULL), QV_OK);
  qv_batch_release(b); /* the export holds its own reference */
  assert_int_equal(aa.length, 77);
  assert_int_equal(aa.n_buffers, 1);
  assert_null(aa.buffers[0]);
  assert_int_equal(aa.n_children, s.n_fields);
  assert_int_equal(aa.children[14]->n_buffers, 0); /* null */
  assert_int_equal(aa.children[14]->null_count, 77);
  assert_int_equal(aa.children[11]->n_buffers, 3); /* string */
  assert_int_equal(qv_import_schema(&as, &back, NULL), QV_OK);
  qv_batch *got = NULL;
  qv_error e;
  if (qv_import_batch(&aa, &back, &got, &e) != QV_OK) fail_msg("%s", e.message);
  assert_null(aa.release);
  assert_batch_equal(keep, got);
  qv_batch_release(got);
  qv_batch_release(keep);
  qv_schema_reset(&back);
  qv_schema_reset(&s);
}

/* Non-zero offsets travel as ArrowArray.offset (zero copy) and come back. */
static void test_sliced_roundtrip(void **state) {
  (void)state;
  qv_schema s;
  all_types_schema(&s);
  qv_batch *b = make_batch(&s, 40, 3);
  for (int64_t off = 0; off < 17; off += 3) {
    qv_batch *sl;
    assert_int_equal(qv_batch_slice(b, off, 40 - off - 2, &sl, NULL), QV_OK);
    for (int32_t c = 0; c < s.n_fields; c++) {
      struct ArrowArray aa;
      assert_int_equal(qv_export_array(sl->columns[c], &aa, NULL), QV_OK);
      assert_int_equal(aa.offset, sl->columns[c]->offset);
      qv_array *got = NULL;
      qv_error e;
      if (qv_import_array(&aa, &s.fields[c].type, &got, &e) != QV_OK) fail_msg("%s", e.message);
      assert_int_equal(got->offset, sl->columns[c]->offset);
      assert_array_equal(sl->columns[c], got);
      qv_array_release(got);
    }
    /* and as a whole batch, whose struct children carry the offset */
    struct ArrowArray aa;
    assert_int_equal(qv_export_batch(sl, &aa, NULL), QV_OK);
    qv_batch *got = NULL;
    assert_int_equal(qv_import_batch(&aa, &s, &got, NULL), QV_OK);
    assert_batch_equal(sl, got);
    qv_batch_release(got);
    qv_batch_release(sl);
  }
  qv_batch_release(b);
  qv_schema_reset(&s);
}

/* A producer whose release we count. */
static int releases;
static void (*inner_release)(struct ArrowArray *);
static void counting_release(struct ArrowArray *a) {
  releases++;
  a->release = inner_release;
  a->release(a);
  assert_null(a->release);
}

static void test_release_semantics(void **state) {
  (void)state;
  qv_schema s;
  all_types_schema(&s);
  qv_batch *b = make_batch(&s, 20, 5);
  struct ArrowArray aa;
  assert_int_equal(qv_export_batch(b, &aa, NULL), QV_OK);
  inner_release = aa.release;
  aa.release = counting_release;
  releases = 0;
  qv_batch *got = NULL;
  assert_int_equal(qv_import_batch(&aa, &s, &got, NULL), QV_OK);
  assert_null(aa.release); /* moved: the caller must not release it again */
  assert_int_equal(releases, 0);
  qv_array *col = qv_array_retain(got->columns[11]);
  qv_batch_release(got);
  assert_int_equal(releases, 0); /* the string column still uses the memory */
  assert_array_equal(b->columns[11], col);
  qv_array_release(col);
  assert_int_equal(releases, 1);

  /* A consumer may move a child out and release the parent first. */
  struct ArrowArray child;
  assert_int_equal(qv_export_batch(b, &aa, NULL), QV_OK);
  memcpy(&child, aa.children[21], sizeof child);
  aa.children[21]->release = NULL;
  aa.release(&aa);
  assert_null(aa.release);
  qv_array *lst = NULL;
  assert_int_equal(qv_import_array(&child, &s.fields[21].type, &lst, NULL), QV_OK);
  assert_array_equal(b->columns[21], lst);
  qv_array_release(lst);

  /* A failed import leaves the input to the caller. */
  assert_int_equal(qv_export_array(b->columns[11], &aa, NULL), QV_OK);
  qv_datatype wrong = qv_datatype_simple(QV_TYPE_INT32);
  qv_error e;
  assert_int_equal(qv_import_array(&aa, &wrong, &lst, &e), QV_ERR_INVALID);
  assert_non_null(strstr(e.message, "buffers"));
  assert_non_null(aa.release);
  aa.release(&aa);
  assert_int_equal(qv_import_array(&aa, &wrong, &lst, &e), QV_ERR_INVALID); /* released input */

  /* An unknown null count (-1) is recomputed from the bitmap. */
  assert_int_equal(qv_export_array(b->columns[3], &aa, NULL), QV_OK);
  aa.null_count = -1;
  assert_int_equal(qv_import_array(&aa, &s.fields[3].type, &lst, NULL), QV_OK);
  assert_int_equal(lst->null_count, b->columns[3]->null_count);
  qv_array_release(lst);
  qv_batch_release(b);
  qv_schema_reset(&s);
}

/* ---- dictionaries -------------------------------------------------------- */

/* A hand-built producer: a struct batch with one column "d" of
 * dictionary<int16 -> string>, indices [1, 0, null, 1, 2]. */
static const int16_t dict_idx[5] = {1, 0, 0, 1, 2};
static const uint8_t dict_valid[1] = {0x1b};
static const void *idx_buffers[2] = {dict_valid, dict_idx};
static int dict_producer_releases;

static void noop_schema_release(struct ArrowSchema *s) { s->release = NULL; }
static void dict_array_release(struct ArrowArray *a) {
  /* parent of the whole tree: releases the dictionary (an exported quiver
   * array) and counts itself */
  if (a->n_children) {
    struct ArrowArray *idx = a->children[0];
    idx->dictionary->release(idx->dictionary);
    dict_producer_releases++;
  }
  a->release = NULL;
}

typedef struct dict_stream {
  struct ArrowSchema item_schema, dict_schema, top_schema, *top_children[1];
  struct ArrowArray idx, top, *top_kids[1];
  struct ArrowArray dictionary;
  const void *top_buffers[1];
  int sent;
} dict_stream;

static void build_dict_producer(dict_stream *d) {
  memset(d, 0, sizeof *d);
  qv_builder b;
  qv_datatype t = qv_datatype_simple(QV_TYPE_STRING);
  assert_int_equal(qv_builder_init(&b, &t, NULL), QV_OK);
  assert_int_equal(qv_builder_append_cstr(&b, "x"), QV_OK);
  assert_int_equal(qv_builder_append_cstr(&b, "y"), QV_OK);
  assert_int_equal(qv_builder_append_cstr(&b, "z"), QV_OK);
  qv_array *values;
  assert_int_equal(qv_builder_finish(&b, &values, NULL), QV_OK);
  assert_int_equal(qv_export_array(values, &d->dictionary, NULL), QV_OK);
  qv_array_release(values);
  d->dict_schema = (struct ArrowSchema){"u", "", NULL, 0, 0, NULL, NULL, noop_schema_release, NULL};
  d->item_schema =
      (struct ArrowSchema){"s", "d", NULL, ARROW_FLAG_NULLABLE, 0, NULL, &d->dict_schema, noop_schema_release, NULL};
  d->top_children[0] = &d->item_schema;
  d->top_schema = (struct ArrowSchema){"+s", "", NULL, 0, 1, d->top_children, NULL, noop_schema_release, NULL};
  d->idx = (struct ArrowArray){5, 1, 0, 2, 0, idx_buffers, NULL, &d->dictionary, dict_array_release, NULL};
  d->top_kids[0] = &d->idx;
  d->top = (struct ArrowArray){5, 0, 0, 1, 1, d->top_buffers, d->top_kids, NULL, dict_array_release, NULL};
}

static int ds_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  dict_stream *d = s->private_data;
  *out = d->top_schema;
  return 0;
}
static int ds_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  dict_stream *d = s->private_data;
  if (d->sent++) {
    memset(out, 0, sizeof *out);
    return 0;
  }
  *out = d->top;
  return 0;
}
static const char *ds_last_error(struct ArrowArrayStream *s) {
  (void)s;
  return NULL;
}
static void ds_release(struct ArrowArrayStream *s) { s->release = NULL; }

static void test_dictionary_import(void **state) {
  (void)state;
  dict_stream d;
  build_dict_producer(&d);
  dict_producer_releases = 0;
  struct ArrowArrayStream st = {ds_get_schema, ds_get_next, ds_last_error, ds_release, &d};
  qv_batch_reader *r = NULL;
  qv_error e;
  if (qv_import_stream(&st, &r, &e) != QV_OK) fail_msg("%s", e.message);
  assert_null(st.release);
  const qv_schema *s = r->schema(r);
  assert_int_equal(s->n_fields, 1);
  assert_int_equal(s->fields[0].type.id, QV_TYPE_STRING); /* decoded type */
  qv_batch *b = NULL;
  if (r->next(r, &b, &e) != QV_OK) fail_msg("%s", e.message);
  assert_non_null(b);
  static const char *want[] = {"y", "x", "null", "y", "z"};
  char buf[32];
  for (int i = 0; i < 5; i++) {
    qv_array_format_value(b->columns[0], i, buf, sizeof buf);
    assert_string_equal(buf, want[i]);
  }
  assert_int_equal(b->columns[0]->null_count, 1);
  assert_int_equal(dict_producer_releases, 1); /* decoding copied; the producer's memory is free again */
  qv_batch_release(b);
  assert_int_equal(r->next(r, &b, &e), QV_OK);
  assert_null(b);
  qv_batch_reader_destroy(r);

  /* Without the ArrowSchema the index width is unknown: refused, not guessed. */
  build_dict_producer(&d);
  qv_schema plain = QV_SCHEMA_INIT;
  add(&plain, "d", qv_datatype_simple(QV_TYPE_STRING), true);
  assert_int_equal(qv_import_batch(&d.top, &plain, &b, &e), QV_ERR_UNSUPPORTED);
  assert_non_null(strstr(e.message, "dictionary"));
  assert_non_null(d.top.release);
  d.top.release(&d.top);
  qv_schema_reset(&plain);
}

/* ---- large_string (64-bit offsets), converted by the stream importer ----- */

static int64_t large_offsets[5] = {0, 2, 2, 5, 9};
static const char large_data[] = "abcdefghi";
static const uint8_t large_valid[1] = {0x0b}; /* rows 0, 1, 3 */
static const void *large_buffers[3] = {large_valid, large_offsets, large_data};

typedef struct large_stream {
  struct ArrowSchema col_schema, top_schema, *top_children[1];
  struct ArrowArray col, top, *top_kids[1];
  const void *top_buffers[1];
  int sent;
} large_stream;

static void noop_array_release(struct ArrowArray *a) { a->release = NULL; }

static int ls_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  *out = ((large_stream *)s->private_data)->top_schema;
  return 0;
}
static int ls_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  large_stream *d = s->private_data;
  if (d->sent++) memset(out, 0, sizeof *out);
  else *out = d->top;
  return 0;
}

static void test_large_string_import(void **state) {
  (void)state;
  large_stream d;
  memset(&d, 0, sizeof d);
  d.col_schema = (struct ArrowSchema){"U", "big", NULL, ARROW_FLAG_NULLABLE, 0, NULL, NULL, noop_schema_release, NULL};
  d.top_children[0] = &d.col_schema;
  d.top_schema = (struct ArrowSchema){"+s", "", NULL, 0, 1, d.top_children, NULL, noop_schema_release, NULL};
  /* Values ["ab", "", "cde", "fghi"] with row 2 null (validity 0x0b),
   * taken from offset 1: "", null, "fghi". */
  d.col = (struct ArrowArray){3, -1, 1, 3, 0, large_buffers, NULL, NULL, noop_array_release, NULL};
  d.top_kids[0] = &d.col;
  d.top = (struct ArrowArray){3, 0, 0, 1, 1, d.top_buffers, d.top_kids, NULL, noop_array_release, NULL};
  struct ArrowArrayStream st = {ls_get_schema, ls_get_next, ds_last_error, ds_release, &d};
  qv_batch_reader *r = NULL;
  qv_error e;
  if (qv_import_stream(&st, &r, &e) != QV_OK) fail_msg("%s", e.message);
  assert_int_equal(r->schema(r)->fields[0].type.id, QV_TYPE_STRING);
  qv_batch *b = NULL;
  if (r->next(r, &b, &e) != QV_OK) fail_msg("%s", e.message);
  const qv_array *a = b->columns[0];
  assert_int_equal(a->offset, 0);
  assert_int_equal(a->null_count, 1);
  char buf[32];
  static const char *want[] = {"", "null", "fghi"};
  for (int i = 0; i < 3; i++) {
    qv_array_format_value(a, i, buf, sizeof buf);
    assert_string_equal(buf, want[i]);
  }
  assert_int_equal(qv_array_validate(a, &e), QV_OK);
  qv_batch_release(b);
  qv_batch_reader_destroy(r);

  /* More than 2 GiB of characters cannot become int32 offsets. */
  large_offsets[4] = (int64_t)3 << 30;
  d.sent = 0;
  d.col.offset = 0;
  d.col.length = 4;
  d.top.length = 4;
  struct ArrowArrayStream st2 = {ls_get_schema, ls_get_next, ds_last_error, ds_release, &d};
  assert_int_equal(qv_import_stream(&st2, &r, &e), QV_OK);
  assert_int_equal(r->next(r, &b, &e), QV_ERR_OVERFLOW);
  assert_non_null(strstr(e.message, "32-bit offsets"));
  qv_batch_reader_destroy(r);
  large_offsets[4] = 9;

  /* The schema-only entry point refuses the layout instead of misreading it. */
  qv_schema qs;
  assert_int_equal(qv_import_schema(&d.top_schema, &qs, &e), QV_ERR_UNSUPPORTED);
  assert_non_null(strstr(e.message, "qv_import_stream"));
}

/* ---- streams ------------------------------------------------------------- */

static void test_stream_roundtrip(void **state) {
  (void)state;
  qv_schema s;
  all_types_schema(&s);
  qv_batch *in[3] = {make_batch(&s, 50, 1), make_batch(&s, 0, 2), make_batch(&s, 7, 3)};
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  qv_ipc_writer *w;
  assert_int_equal(qv_ipc_writer_open(f, QV_IPC_STREAM, &s, &w, NULL), QV_OK);
  for (int i = 0; i < 3; i++) assert_int_equal(qv_ipc_writer_write(w, in[i], NULL), QV_OK);
  assert_int_equal(qv_ipc_writer_close(w, NULL), QV_OK);
  fclose(f);

  qv_batch_reader *r = NULL;
  assert_int_equal(qv_ipc_read_buffer((const uint8_t *)buf, (int64_t)size, &r, NULL), QV_OK);
  struct ArrowArrayStream st;
  assert_int_equal(qv_export_stream(r, &st, NULL), QV_OK);
  struct ArrowSchema as;
  assert_int_equal(st.get_schema(&st, &as), 0);
  assert_string_equal(as.format, "+s");
  assert_int_equal(as.n_children, s.n_fields);
  as.release(&as);
  assert_null(st.get_last_error(&st));

  qv_batch_reader *back = NULL;
  assert_int_equal(qv_import_stream(&st, &back, NULL), QV_OK);
  assert_true(qv_schema_equal(back->schema(back), &s));
  for (int i = 0; i < 3; i++) {
    qv_batch *b = NULL;
    assert_int_equal(back->next(back, &b, NULL), QV_OK);
    assert_non_null(b);
    assert_batch_equal(in[i], b);
    qv_batch_release(b);
  }
  qv_batch *end = NULL;
  assert_int_equal(back->next(back, &end, NULL), QV_OK);
  assert_null(end);
  qv_batch_reader_destroy(back);
  for (int i = 0; i < 3; i++) qv_batch_release(in[i]);
  free(buf);
  qv_schema_reset(&s);
}

/* QV_EXPORT_STRING_VIEW: strings and binary (nested ones too) cross as
 * views onto quiver's data buffer and come back equal through the importer
 * (which converts views to offsets), sliced batches included. */
static void test_string_view_export(void **state) {
  (void)state;
  qv_schema s;
  all_types_schema(&s);
  qv_batch *whole = make_batch(&s, 300, 9), *sliced = NULL;
  assert_int_equal(qv_batch_slice(whole, 37, 200, &sliced, NULL), QV_OK);
  qv_batch *in[3] = {whole, sliced, make_batch(&s, 0, 4)};
  qv_batch_reader *r = NULL;
  assert_int_equal(qv_batch_reader_from_batches(&s, in, 3, &r, NULL), QV_OK);
  struct ArrowArrayStream st;
  assert_int_equal(qv_export_stream_with(r, QV_EXPORT_STRING_VIEW, &st, NULL), QV_OK);
  struct ArrowSchema as;
  assert_int_equal(st.get_schema(&st, &as), 0);
  int views = 0;
  for (int64_t i = 0; i < as.n_children; i++) {
    const char *f = as.children[i]->format;
    assert_true(strcmp(f, "u") != 0 && strcmp(f, "z") != 0);
    views += !strcmp(f, "vu") || !strcmp(f, "vz");
  }
  assert_true(views >= 2);
  as.release(&as);
  /* one batch by hand: a long string's view points into the shared bytes */
  struct ArrowArray arr;
  assert_int_equal(qv_export_batch_with(whole, QV_EXPORT_STRING_VIEW, &arr, NULL), QV_OK);
  for (int32_t c = 0; c < s.n_fields; c++) {
    const qv_array *a = whole->columns[c];
    if (a->type.id != QV_TYPE_STRING) continue;
    const struct ArrowArray *ca = arr.children[c];
    assert_true(ca->n_buffers == 3 || ca->n_buffers == 4);
    const uint8_t *v = ca->buffers[1];
    for (int64_t i = 0; i < a->length; i++) {
      int32_t len;
      const uint8_t *p = qv_array_str(a, i, &len);
      uint32_t vlen;
      memcpy(&vlen, v + 16 * (a->offset + i), 4);
      assert_int_equal(vlen, (uint32_t)len);
      if (len > 12) {
        uint32_t at;
        memcpy(&at, v + 16 * (a->offset + i) + 12, 4);
        assert_ptr_equal((const uint8_t *)ca->buffers[2] + at, p); /* not copied */
      } else if (len > 0) {
        assert_memory_equal(v + 16 * (a->offset + i) + 4, p, (size_t)len);
      }
    }
  }
  arr.release(&arr);
  qv_batch_reader *back = NULL;
  assert_int_equal(qv_import_stream(&st, &back, NULL), QV_OK);
  assert_true(qv_schema_equal(back->schema(back), &s));
  for (int i = 0; i < 3; i++) {
    qv_batch *b = NULL;
    assert_int_equal(back->next(back, &b, NULL), QV_OK);
    assert_non_null(b);
    assert_batch_equal(in[i], b);
    qv_batch_release(b);
  }
  qv_batch_reader_destroy(back);
  for (int i = 0; i < 3; i++) qv_batch_release(in[i]);
  qv_schema_reset(&s);
}

/* A reader that fails: the error crosses the stream as get_last_error and
 * comes back out of qv_import_stream's reader. */
static qv_status failing_next(qv_batch_reader *self, qv_batch **out, qv_error *err) {
  (void)self;
  *out = NULL;
  return qv_error_set(err, QV_ERR_CORRUPT, "data/7.qvf: page 3: checksum mismatch");
}
static const qv_schema empty_schema = QV_SCHEMA_INIT;
static const qv_schema *failing_schema(qv_batch_reader *self) {
  (void)self;
  return &empty_schema;
}
static int failing_destroyed;
static void failing_destroy(qv_batch_reader *self) {
  (void)self;
  failing_destroyed++;
}

static void test_stream_errors(void **state) {
  (void)state;
  qv_batch_reader fr = {failing_next, failing_schema, failing_destroy, NULL};
  struct ArrowArrayStream st;
  failing_destroyed = 0;
  assert_int_equal(qv_export_stream(&fr, &st, NULL), QV_OK);
  struct ArrowArray a;
  assert_int_not_equal(st.get_next(&st, &a), 0);
  assert_null(a.release);
  assert_non_null(strstr(st.get_last_error(&st), "checksum mismatch"));
  qv_batch_reader *back = NULL;
  assert_int_equal(qv_import_stream(&st, &back, NULL), QV_OK);
  qv_batch *b = NULL;
  qv_error e;
  assert_int_equal(back->next(back, &b, &e), QV_ERR_IO);
  assert_non_null(strstr(e.message, "data/7.qvf: page 3: checksum mismatch"));
  assert_int_equal(failing_destroyed, 0);
  qv_batch_reader_destroy(back); /* releases the stream, which destroys the reader */
  assert_int_equal(failing_destroyed, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_export_schema_formats), cmocka_unit_test(test_schema_roundtrip),
      cmocka_unit_test(test_batch_roundtrip),       cmocka_unit_test(test_sliced_roundtrip),
      cmocka_unit_test(test_release_semantics),     cmocka_unit_test(test_dictionary_import),
      cmocka_unit_test(test_large_string_import),   cmocka_unit_test(test_stream_roundtrip),
      cmocka_unit_test(test_string_view_export),    cmocka_unit_test(test_stream_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
