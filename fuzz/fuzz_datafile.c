/* Fuzz target: a data file (.qvf).  The first input byte picks whether
 * checksums are verified (bit 0 clear) or skipped (bit 0 set, so mutations
 * reach the footer parser and the page decoders); the rest is the file.
 * Everything is opened and read: page infos and statistics, takes of a few
 * rows (the block-by-block path on raw pages), and every page in full. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create, mkdtemp, nftw */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "base/wire.h"
#include "storage/datafile.h"
#include "storage/format.h"

static void read_column(qv_fragment_reader *r, int32_t c) {
  qv_error err;
  char buf[64];
  int64_t n = qv_fragment_num_rows(r);
  int32_t pages = qv_fragment_num_pages(r, c);
  for (int32_t p = 0; p < pages; p++) {
    qv_page_info info;
    qv_fragment_page(r, c, p, &info);
    if (info.stats && !info.stats->min.is_null) qv_scalar_format(&info.stats->min, buf, sizeof buf);
    if (info.stats && !info.stats->max.is_null) qv_scalar_format(&info.stats->max, buf, sizeof buf);
    (void)qv_encoding_name(info.encoding);
  }
  if (n == 0) return;
  int64_t rows[5] = {0, n / 3, n / 2, n / 2, n - 1};
  qv_array *a = NULL;
  if (qv_fragment_take(r, c, rows, 5, &a, &err) == QV_OK) {
    for (int64_t i = 0; i < a->length; i++) qv_array_format_value(a, i, buf, sizeof buf);
    qv_array_release(a);
  }
  for (int32_t p = 0; p < pages; p++) {
    qv_page_info info;
    qv_fragment_page(r, c, p, &info);
    /* a selection from the page's start (used in place), before the page
     * is read whole and cached */
    uint32_t sel[3] = {0, (uint32_t)(info.row_count / 2), (uint32_t)(info.row_count - 1)};
    a = NULL;
    if (info.row_count > 0 && qv_fragment_take_selection(r, c, info.row_start, sel, 3, &a, &err) == QV_OK) {
      for (int64_t i = 0; i < a->length; i++) qv_array_format_value(a, i, buf, sizeof buf);
      qv_array_release(a);
    }
    a = NULL;
    if (qv_fragment_read(r, c, info.row_start, info.row_count, &a, &err) == QV_OK) {
      for (int64_t i = 0; i < a->length && i < 8; i++) qv_array_format_value(a, i, buf, sizeof buf);
      qv_array_release(a);
    }
    /* a dictionary page as a dictionary array, and back to plain rows */
    a = NULL;
    if (qv_fragment_read_encoded(r, c, info.row_start, info.row_count, &a, &err) == QV_OK) {
      qv_array *plain = NULL;
      if (a->type.id == QV_TYPE_DICTIONARY && qv_array_dictionary_decode(a, &plain, &err) == QV_OK) {
        for (int64_t i = 0; i < plain->length && i < 8; i++) qv_array_format_value(plain, i, buf, sizeof buf);
        qv_array_release(plain);
      }
      qv_array_release(a);
    }
  }
  /* a range across pages (concatenation), bounded */
  int64_t len = n < 70000 ? n : 70000;
  a = NULL;
  if (qv_fragment_read(r, c, n - len, len, &a, &err) == QV_OK) qv_array_release(a);
}

/* ---- seeds: QV_FUZZ_SEEDS=<dir> writes small real data files there ---- */

typedef struct one_batch {
  qv_batch *b;
  bool done;
} one_batch;
static qv_status ob_next(qv_batch_reader *self, qv_batch **out, qv_error *err) {
  (void)err;
  one_batch *o = self->private_data;
  *out = o->done ? NULL : qv_batch_retain(o->b);
  o->done = true;
  return QV_OK;
}
static const qv_schema *ob_schema(qv_batch_reader *self) { return &((one_batch *)self->private_data)->b->schema; }

static void add_value(qv_builder *b, int i) {
  if (i % 9 == 4) {
    qv_builder_append_null(b);
    return;
  }
  switch (b->type.id) {
    case QV_TYPE_BOOL: qv_builder_append_bool(b, i % 3 == 0); break;
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64: qv_builder_append_double(b, i % 17 == 0 ? 0.0 / 0.0 : i * 0.25); break;
    case QV_TYPE_DECIMAL128: qv_builder_append_decimal(b, (uint64_t)i * 1000003u, i % 2 ? -1 : 0); break;
    case QV_TYPE_STRING:
    case QV_TYPE_BINARY: {
      char s[32];
      int n = snprintf(s, sizeof s, i % 2 ? "v%d" : "value-%d", i % 2 ? i % 5 : i);
      qv_builder_append_bytes(b, s, n);
      break;
    }
    case QV_TYPE_NULL: qv_builder_append_null(b); break;
    case QV_TYPE_LIST:
      for (int k = 0; k < i % 3; k++) add_value(&b->children[0], i + k);
      qv_builder_append_valid(b);
      break;
    case QV_TYPE_FIXED_SIZE_LIST:
      for (int k = 0; k < b->type.list_size; k++) add_value(&b->children[0], i + k);
      qv_builder_append_valid(b);
      break;
    case QV_TYPE_STRUCT:
      for (int32_t k = 0; k < b->n_children; k++) add_value(&b->children[k], i + k);
      qv_builder_append_valid(b);
      break;
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32:
    case QV_TYPE_UINT64: qv_builder_append_uint(b, (uint64_t)(i % 100)); break;
    default: qv_builder_append_int(b, i % 3 ? 100 + i % 20 : i * 7919 % 127); break;
  }
}

static void write_seed(const char *seeds, const char *name, const char *const *types, int ntypes, qv_compression comp) {
  char dir[] = "/tmp/qvfuzz-seed-XXXXXX";
  if (!mkdtemp(dir)) return;
  qv_error err;
  qv_schema s = QV_SCHEMA_INIT;
  qv_array *cols[8];
  for (int c = 0; c < ntypes; c++) {
    qv_datatype t;
    qv_field f;
    char fname[8];
    snprintf(fname, sizeof fname, "c%d", c);
    if (qv_datatype_parse(types[c], &t, &err) != QV_OK || qv_field_init(&f, fname, &t, true, &err) != QV_OK ||
        qv_schema_add(&s, &f, &err) != QV_OK)
      abort();
    qv_field_reset(&f);
    qv_builder b;
    if (qv_builder_init(&b, &s.fields[c].type, &err) != QV_OK) abort();
    for (int i = 0; i < 100; i++) add_value(&b, i);
    if (qv_builder_finish(&b, &cols[c], &err) != QV_OK) abort();
  }
  one_batch ob = {NULL, false};
  if (qv_batch_make(&s, cols, 100, &ob.b, &err) != QV_OK) {
    fprintf(stderr, "seed %s: %s\n", name, err.message);
    abort();
  }
  qv_batch_reader rd = {ob_next, ob_schema, NULL, &ob};
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.page_rows = 40;
  o.compression = comp;
  if (qv_dataset_write(dir, &rd, &o, NULL, &err) != QV_OK) {
    fprintf(stderr, "seed %s: %s\n", name, err.message);
    abort();
  }
  qv_batch_release(ob.b);
  qv_schema_reset(&s);
  qv_dataset *ds;
  if (qv_dataset_open(dir, 0, &ds, &err) != QV_OK) abort();
  qv_fragment_info fi;
  qv_dataset_fragment(ds, 0, &fi);
  char *src = qvb_path_join(dir, fi.path);
  uint8_t *bytes = NULL;
  int64_t n = 0;
  if (qvb_file_read(src, fi.path, 1 << 20, &bytes, &n, &err) != QV_OK) abort();
  for (int mode = 0; mode < 2; mode++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s-%d", seeds, name, mode);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    fputc(mode, f);
    fwrite(bytes, 1, (size_t)n, f);
    fclose(f);
  }
  qv_free(bytes);
  qv_free(src);
  qv_dataset_close(ds);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) abort();
}

static void write_seeds(const char *seeds) {
  const char *flat[] = {"int64", "string", "int8", "uint32", "date32", "binary"};
  const char *more[] = {"bool", "float64", "float32", "decimal(20,2)", "null", "timestamp[ms, UTC]"};
  const char *nested[] = {"list<int32>", "struct<a: int64, b: string>", "fixed_size_list<int16, 2>",
                          "list<list<string>>"};
  write_seed(seeds, "flat-raw", flat, 6, QV_COMPRESSION_NONE);
  write_seed(seeds, "flat-zstd", flat, 6, QV_COMPRESSION_ZSTD);
  write_seed(seeds, "flat-lz4", flat, 6, QV_COMPRESSION_LZ4);
  write_seed(seeds, "more-raw", more, 6, QV_COMPRESSION_NONE);
  write_seed(seeds, "nested-raw", nested, 4, QV_COMPRESSION_NONE);
  write_seed(seeds, "nested-zstd", nested, 4, QV_COMPRESSION_ZSTD);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool seeded;
  if (!seeded) {
    seeded = true;
    const char *seeds = getenv("QV_FUZZ_SEEDS");
    if (seeds) write_seeds(seeds);
  }
  if (size < 1) return 0;
  qvs_verify_checksums = (data[0] & 1) == 0;
  int fd = fuzz_file_of("qvf", data + 1, size - 1);
  if (fd < 0) return 0;
  qvs_datafile *df = NULL;
  qv_error err;
  if (qvs_datafile_open_fd(fd, true, "data/fuzz.qvf", &df, &err) == QV_OK) {
    qv_fragment_reader *r = NULL;
    if (qvs_fragment_from_datafile(df, &r, &err) == QV_OK) {
      for (int32_t c = 0; c < df->n_columns; c++) read_column(r, c);
      qv_io_counters io;
      qv_fragment_counters(r, 0, &io);
      qv_fragment_close(r);
    }
  }
  qvs_verify_checksums = true;
  return 0;
}
