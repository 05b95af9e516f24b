/* Fuzz target: a manifest (and, from the same bytes, a deletion file and a
 * bare schema).  The first input byte picks whether checksums are verified
 * (bit 0 clear) or skipped (bit 0 set); the rest is the manifest.  A valid
 * manifest is then used as a dataset over a real directory holding two
 * data files with fixed names (data/000...0.qvf, data/000...1.qvf) and a
 * deletion file _deletions/0-2.del, so every fragment it lists is opened
 * and read.
 *
 * With QV_FUZZ_SEEDS=<dir> in the environment, the first call writes seed
 * inputs (the real manifests, renamed) into <dir>. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create, mkdtemp, nftw */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <unistd.h>

#include "base/wire.h"
#include "storage/format.h"
#include "storage/manifest.h"
#include "storage/schema_codec.h"

static char g_dir[64];

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  remove(p);
  return 0;
}
static void cleanup(void) {
  if (g_dir[0]) nftw(g_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

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

static void seed(const char *dir, const char *name, const qvs_manifest *m) {
  qv_buffer bytes = QV_BUFFER_INIT;
  qv_error err;
  if (qvs_manifest_encode(m, &bytes, &err) != QV_OK) return;
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (f) {
    fputc(0, f);
    fwrite(bytes.data, 1, (size_t)bytes.size, f);
    fclose(f);
  }
  qv_buffer_reset(&bytes);
}

/* A two-fragment dataset with a deletion, data files renamed to fixed names. */
static void setup(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/qvfuzz-manifest-XXXXXX");
  if (!mkdtemp(g_dir)) abort();
  atexit(cleanup);
  qv_error err;
  qv_schema s = QV_SCHEMA_INIT;
  qv_datatype it = qv_datatype_simple(QV_TYPE_INT32), lt;
  if (qv_datatype_list(&it, &lt, &err) != QV_OK) abort();
  qv_datatype types[3] = {qv_datatype_simple(QV_TYPE_INT64), qv_datatype_simple(QV_TYPE_STRING), lt};
  const char *names[3] = {"id", "name", "tags"};
  qv_array *cols[3];
  for (int c = 0; c < 3; c++) {
    qv_field f;
    if (qv_field_init(&f, names[c], &types[c], true, &err) != QV_OK || qv_schema_add(&s, &f, &err) != QV_OK) abort();
    qv_field_reset(&f);
    qv_builder b;
    if (qv_builder_init(&b, &s.fields[c].type, &err) != QV_OK) abort();
    for (int i = 0; i < 300; i++) {
      if (c == 0) qv_builder_append_int(&b, i);
      else if (c == 1) qv_builder_append_cstr(&b, i % 4 ? "abc" : "defgh");
      else {
        for (int k = 0; k < i % 3; k++) qv_builder_append_int(&b.children[0], k);
        qv_builder_append_valid(&b);
      }
    }
    if (qv_builder_finish(&b, &cols[c], &err) != QV_OK) abort();
  }
  one_batch ob = {NULL, false};
  if (qv_batch_make(&s, cols, 300, &ob.b, &err) != QV_OK) abort();
  qv_batch_reader rd = {ob_next, ob_schema, NULL, &ob};
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.max_rows_per_file = 200;
  o.page_rows = 64;
  if (qv_dataset_write(g_dir, &rd, &o, NULL, &err) != QV_OK) abort();
  qv_batch_release(ob.b);
  qv_schema_reset(&s);
  qv_dataset *ds;
  if (qv_dataset_open(g_dir, 0, &ds, &err) != QV_OK) abort();
  uint8_t bits[32] = {0x81};
  const uint8_t *del[2] = {bits, NULL};
  if (qv_dataset_delete_rows(ds, del, NULL, &err) != QV_OK) abort();
  qv_dataset_close(ds);
  const char *seeds = getenv("QV_FUZZ_SEEDS");
  for (int64_t v = 1; v <= 2; v++) {
    qvs_manifest m;
    if (qvs_manifest_read(g_dir, v, &m, &err) != QV_OK) abort();
    for (int32_t i = 0; i < m.n_fragments; i++) {
      char fixed[64];
      snprintf(fixed, sizeof fixed, "data/%032d.qvf", i);
      char *from = qvb_path_join(g_dir, m.fragments[i].data_file), *to = qvb_path_join(g_dir, fixed);
      if (v == 1 && rename(from, to) != 0) abort();
      qv_free(from);
      qv_free(to);
      qv_free(m.fragments[i].data_file);
      m.fragments[i].data_file = qv_strdup(fixed);
    }
    if (seeds) seed(seeds, v == 1 ? "manifest-v1" : "manifest-v2", &m);
    qvs_manifest_reset(&m);
  }
}

static void read_dataset(qvs_manifest *m) {
  struct qv_dataset ds = {g_dir, *m};
  qv_error err;
  (void)qv_dataset_count_rows(&ds);
  for (int32_t f = 0; f < qv_dataset_num_fragments(&ds); f++) {
    qv_fragment_info fi;
    qv_dataset_fragment(&ds, f, &fi);
    qv_fragment_reader *r = NULL;
    if (qv_fragment_open(&ds, f, &r, &err) != QV_OK) continue;
    (void)qv_fragment_deleted(r);
    for (int32_t c = 0; c < m->schema.n_fields; c++) {
      qv_array *a = NULL;
      if (qv_fragment_read(r, c, 0, qv_fragment_num_rows(r), &a, &err) == QV_OK) qv_array_release(a);
    }
    qv_fragment_close(r);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_dir[0]) setup();
  if (size < 1) return 0;
  qvs_verify_checksums = (data[0] & 1) == 0;
  const uint8_t *p = data + 1;
  int64_t n = (int64_t)size - 1;
  qv_error err;
  qvs_manifest m;
  if (qvs_manifest_decode(p, n, "_versions/1.manifest", &m, &err) == QV_OK) {
    read_dataset(&m);
    qvs_manifest_reset(&m);
  }
  /* the same bytes as a deletion file, with the header's own claims (rows bounded) */
  if (n >= 32) {
    int64_t frag = (int64_t)(qv_load_u64le(p + 8) & 0xFFFFFF), rows = (int64_t)(qv_load_u64le(p + 16) % 100000);
    int64_t count = (int64_t)qv_load_u64le(p + 24) % (rows + 1);
    uint8_t *bits = NULL;
    if (qvs_deletion_decode(p, n, "_deletions/x.del", frag, rows, count, &bits, &err) == QV_OK) qv_free(bits);
  }
  /* and as a bare schema */
  qvb_cursor c;
  qvb_cursor_init(&c, p, n, 0, "schema", &err);
  qv_schema s;
  if (qvs_get_schema(&c, &s)) qv_schema_reset(&s);
  qvs_verify_checksums = true;
  return 0;
}
