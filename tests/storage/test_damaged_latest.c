/* A damaged latest manifest: for every kind of damage test_corruption.c
 * makes (each bit flip, each truncation, trailing garbage) and a few it
 * does not (a directory in its place, another version's manifest under its
 * name), the version list shows it damaged with the reader's message;
 * opening the latest, appends, overwrites, deletes and index commits
 * refuse, naming the damaged version and the restore that leads back, and
 * commit nothing; restoring the damaged version refuses; restoring the one
 * before commits its exact contents above the damaged one; afterwards
 * appends, deletes and reads work again, and the damaged file is as it
 * was. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "storage/storage_test_util.h"

static char *g_dir, *g_path, *g_latest; /* g_latest: _versions/4.manifest */
static char g_hint[512];                /* "'quiver restore <path> --version 3'" */
static qv_schema g_schema;
static qv_index_file g_ix_files[1] = {{0, "_indices/00ff.qvi", 4096, 0xdeadbeef}};

/* Rows [from, from + n) of (id int64, name string). */
static qv_status write_rows(int64_t from, int64_t n, qv_write_mode mode, int64_t *version, qv_error *err) {
  qv_builder bi, bs;
  assert_int_equal(qv_builder_init(&bi, &g_schema.fields[0].type, err), QV_OK);
  assert_int_equal(qv_builder_init(&bs, &g_schema.fields[1].type, err), QV_OK);
  for (int64_t i = from; i < from + n; i++) {
    char buf[32];
    snprintf(buf, sizeof buf, "row%lld", (long long)i);
    assert_int_equal(qv_builder_append_int(&bi, i), QV_OK);
    assert_int_equal(qv_builder_append_cstr(&bs, buf), QV_OK);
  }
  qv_array *cols[2];
  assert_int_equal(qv_builder_finish(&bi, &cols[0], err), QV_OK);
  assert_int_equal(qv_builder_finish(&bs, &cols[1], err), QV_OK);
  qv_batch **b;
  int nb = split_batches(&g_schema, cols, n, 100, &b);
  qv_array_release(cols[0]);
  qv_array_release(cols[1]);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.mode = mode;
  o.page_rows = 64;
  o.max_rows_per_file = 250;
  qv_status st = write_batches(g_path, &g_schema, b, nb, &o, version, err);
  free_batches(b, nb);
  return st;
}

/* Deletes the rows of fragment 0 of version `version` whose id % k == r. */
static qv_status delete_mod(int64_t version, int64_t k, int64_t r, int64_t *out_version, qv_error *err) {
  qv_dataset *ds;
  QV_RETURN_NOT_OK(qv_dataset_open(g_path, version, &ds, err));
  int32_t nf = qv_dataset_num_fragments(ds);
  const uint8_t **del = calloc((size_t)nf, sizeof *del);
  qv_fragment_info fi;
  qv_dataset_fragment(ds, 0, &fi);
  uint8_t *bits = calloc((size_t)(fi.num_rows + 7) / 8, 1);
  qv_fragment_reader *fr;
  assert_int_equal(qv_fragment_open(ds, 0, &fr, err), QV_OK);
  qv_array *a;
  assert_int_equal(qv_fragment_read(fr, 0, 0, fi.num_rows, &a, err), QV_OK);
  const int64_t *ids = qv_array_values(a);
  for (int64_t i = 0; i < fi.num_rows; i++)
    if (ids[i] % k == r) qv_bit_set(bits, i);
  qv_array_release(a);
  qv_fragment_close(fr);
  del[0] = bits;
  qv_status st = qv_dataset_delete_rows(ds, del, out_version, err);
  free(bits);
  free(del);
  qv_dataset_close(ds);
  return st;
}

/* Sum of the live ids of a version, read through every fragment reader. */
static int64_t live_id_sum(int64_t version, int64_t *count) {
  qv_dataset *ds;
  qv_error err;
  if (qv_dataset_open(g_path, version, &ds, &err) != QV_OK) fail_msg("open %lld: %s", (long long)version, err.message);
  int64_t sum = 0, n = 0;
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
    qv_fragment_reader *r;
    assert_int_equal(qv_fragment_open(ds, f, &r, &err), QV_OK);
    qv_array *a;
    assert_int_equal(qv_fragment_read(r, 0, 0, qv_fragment_num_rows(r), &a, &err), QV_OK);
    const int64_t *ids = qv_array_values(a);
    const uint8_t *gone = qv_fragment_deleted(r);
    for (int64_t i = 0; i < a->length; i++)
      if (!gone || !qv_bit_get(gone, i)) sum += ids[i], n++;
    qv_array_release(a);
    qv_fragment_close(r);
  }
  assert_int_equal(n, qv_dataset_count_rows(ds));
  qv_dataset_close(ds);
  *count = n;
  return sum;
}

/* v1 create (300 rows, 2 fragments), v2 an index entry, v3 a delete, v4 an
 * append: the one that gets damaged. */
static int setup(void **state) {
  (void)state;
  g_dir = make_tmpdir();
  g_path = join2(g_dir, "ds");
  g_latest = join2(g_path, "_versions/4.manifest");
  snprintf(g_hint, sizeof g_hint, "restore an earlier one with 'quiver restore %s --version 3'", g_path);
  add_column(&g_schema, "id", qv_datatype_simple(QV_TYPE_INT64));
  add_column(&g_schema, "name", qv_datatype_simple(QV_TYPE_STRING));
  qv_error err;
  int64_t v;
  assert_int_equal(write_rows(0, 300, QV_WRITE_CREATE, &v, &err), QV_OK);
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 1, &ds, &err), QV_OK);
  qv_index_entry e = {"id_idx", "id", 1, 0, 0, 1, g_ix_files};
  assert_int_equal(qv_dataset_commit_indices(ds, &e, 1, "index-add", &v, &err), QV_OK);
  assert_int_equal(v, 2);
  qv_dataset_close(ds);
  assert_int_equal(delete_mod(2, 10, 3, &v, &err), QV_OK);
  assert_int_equal(v, 3);
  assert_int_equal(write_rows(300, 100, QV_WRITE_APPEND, &v, &err), QV_OK);
  assert_int_equal(v, 4);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rm_rf(g_dir);
  free(g_dir);
  free(g_path);
  free(g_latest);
  qv_schema_reset(&g_schema);
  return 0;
}

static int count_files(const char *rel) {
  char *dir = join2(g_path, rel);
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  free(dir);
  return n;
}

static void expect_hint(qv_status st, const qv_error *err, const char *what, const char *variant) {
  if (st == QV_OK) fail_msg("%s: %s was not refused", variant, what);
  if (!strstr(err->message, "version 4 is damaged (_versions/4.manifest") || !strstr(err->message, g_hint))
    fail_msg("%s: %s: the message lacks the damaged version or the hint: %s", variant, what, err->message);
}

/* What must hold while version 4 is damaged: listed as damaged, every
 * commit refused with the hint, nothing committed or left behind. */
static void check_refusals(const char *variant) {
  qv_error err;
  qv_version_entry *list;
  int64_t n;
  assert_int_equal(qv_dataset_list_versions(g_path, &list, &n, &err), QV_OK);
  assert_int_equal(n, 4);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(list[i].state, QV_VERSION_OK);
    assert_int_equal(list[i].info.version, i + 1);
    assert_string_equal(list[i].message, "");
  }
  assert_string_equal(list[1].info.operation, "index-add");
  if (list[3].state != QV_VERSION_DAMAGED || list[3].info.version != 4 || list[3].error == QV_OK)
    fail_msg("%s: version 4 is not listed as damaged", variant);
  if (!strstr(list[3].message, "_versions/4.manifest"))
    fail_msg("%s: the listed reason does not name the file: %s", variant, list[3].message);
  assert_int_equal(list[3].info.num_rows, 0);
  qv_free(list);

  int data_files = count_files("data"), del_files = count_files("_deletions");
  qv_dataset *ds = NULL;
  expect_hint(qv_dataset_open(g_path, 0, &ds, &err), &err, "opening the latest", variant);
  int64_t v = 0;
  expect_hint(write_rows(900, 10, QV_WRITE_APPEND, &v, &err), &err, "an append", variant);
  expect_hint(write_rows(900, 10, QV_WRITE_OVERWRITE, &v, &err), &err, "an overwrite", variant);
  assert_int_equal(write_rows(900, 10, QV_WRITE_CREATE, &v, &err), QV_ERR_EXISTS);
  /* Through a handle on the newest readable version: a conflict that says why. */
  qv_status st = delete_mod(3, 7, 0, &v, &err);
  assert_int_equal(st, QV_ERR_CONFLICT);
  expect_hint(st, &err, "a delete", variant);
  assert_int_equal(qv_dataset_open(g_path, 3, &ds, &err), QV_OK);
  st = qv_dataset_commit_indices(ds, NULL, 0, "index-del", &v, &err);
  assert_int_equal(st, QV_ERR_CONFLICT);
  expect_hint(st, &err, "an index commit", variant);
  qv_dataset_close(ds);
  st = qv_dataset_restore(g_path, 4, &v, &err);
  if (st == QV_OK || !strstr(err.message, "cannot restore version 4: it is damaged (_versions/4.manifest"))
    fail_msg("%s: restoring the damaged version: %s", variant, err.message);
  assert_int_equal(count_files("_versions"), 4);
  assert_int_equal(count_files("data"), data_files);
  assert_int_equal(count_files("_deletions"), del_files);
}

/* Restores version 3 and checks that everything works again; then takes
 * the versions it committed away so that the next variant starts over. */
static void check_restore(const char *variant, const uint8_t *bytes, int64_t size) {
  qv_error err;
  int64_t v = 0, n3, n5;
  if (qv_dataset_restore(g_path, 3, &v, &err) != QV_OK) fail_msg("%s: restore: %s", variant, err.message);
  assert_int_equal(v, 5);
  qv_dataset *a, *b;
  assert_int_equal(qv_dataset_open(g_path, 3, &a, &err), QV_OK);
  assert_int_equal(qv_dataset_open(g_path, 0, &b, &err), QV_OK);
  assert_int_equal(qv_dataset_version(b), 5);
  assert_true(qv_schema_equal(qv_dataset_schema(a), qv_dataset_schema(b)));
  assert_int_equal(qv_dataset_num_fragments(a), qv_dataset_num_fragments(b));
  for (int32_t f = 0; f < qv_dataset_num_fragments(a); f++) {
    qv_fragment_info fa, fb;
    qv_dataset_fragment(a, f, &fa);
    qv_dataset_fragment(b, f, &fb);
    assert_int_equal(fa.id, fb.id);
    assert_int_equal(fa.num_rows, fb.num_rows);
    assert_int_equal(fa.num_deleted, fb.num_deleted);
    assert_string_equal(fa.path, fb.path); /* shared, not copied */
  }
  assert_int_equal(qv_dataset_num_indices(b), 1);
  qv_index_entry ea, eb;
  qv_dataset_index(a, 0, &ea);
  qv_dataset_index(b, 0, &eb);
  assert_string_equal(ea.name, eb.name);
  assert_string_equal(ea.column, eb.column);
  assert_int_equal(eb.built_version, 2);
  assert_int_equal(eb.updated_version, 2);
  assert_int_equal(eb.n_files, 1);
  assert_string_equal(eb.files[0].path, g_ix_files[0].path);
  assert_int_equal(eb.files[0].footer_crc, g_ix_files[0].footer_crc);
  qv_dataset_close(a);
  qv_dataset_close(b);
  assert_int_equal(live_id_sum(5, &n5), live_id_sum(3, &n3));
  assert_int_equal(n5, 275);

  qv_version_entry *list;
  int64_t nv;
  assert_int_equal(qv_dataset_list_versions(g_path, &list, &nv, &err), QV_OK);
  assert_int_equal(nv, 5);
  assert_int_equal(list[3].state, QV_VERSION_DAMAGED);
  assert_int_equal(list[4].state, QV_VERSION_OK);
  assert_string_equal(list[4].info.operation, "restore");
  assert_int_equal(list[4].info.num_rows, 275);
  qv_free(list);

  /* Everything works again: an append (new fragment ids above any seen), a
   * delete, reads of every version that reads. */
  if (write_rows(1000, 50, QV_WRITE_APPEND, &v, &err) != QV_OK) fail_msg("%s: append: %s", variant, err.message);
  assert_int_equal(v, 6);
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 6, &ds, &err), QV_OK);
  qv_fragment_info last;
  qv_dataset_fragment(ds, qv_dataset_num_fragments(ds) - 1, &last);
  assert_true(last.id >= 2);
  qv_dataset_close(ds);
  if (delete_mod(6, 10, 4, &v, &err) != QV_OK) fail_msg("%s: delete: %s", variant, err.message);
  assert_int_equal(v, 7);
  int64_t n7, sum7 = live_id_sum(0, &n7), sum6, n6;
  sum6 = live_id_sum(6, &n6);
  assert_int_equal(n6, 325);
  assert_int_equal(n7, 325 - 25); /* ids 4, 14, ..., 244 of fragment 0 (3, 13, ... were gone) */
  assert_true(sum7 < sum6);

  /* The damaged file is exactly as it was. */
  struct stat sb;
  assert_int_equal(stat(g_latest, &sb), 0);
  if (S_ISREG(sb.st_mode)) {
    int64_t now_size;
    uint8_t *now = slurp(g_latest, &now_size);
    assert_int_equal(now_size, size);
    if (size && memcmp(now, bytes, (size_t)size) != 0) fail_msg("%s: the damaged manifest was changed", variant);
    free(now);
  } else {
    assert_null(bytes);
  }

  /* Versions are never taken back outside tests: their numbers are not
   * reused, so neither are the names of deletion files. */
  for (int k = 5; k <= 7; k++) {
    char rel[64];
    snprintf(rel, sizeof rel, "_versions/%d.manifest", k);
    char *p = join2(g_path, rel);
    assert_int_equal(unlink(p), 0);
    free(p);
  }
  char *dels = join2(g_path, "_deletions");
  DIR *d = opendir(dels);
  assert_non_null(d);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len > 6 && strcmp(e->d_name + len - 6, "-7.del") == 0) {
      char *p = join2(dels, e->d_name);
      assert_int_equal(unlink(p), 0);
      free(p);
    }
  }
  closedir(d);
  free(dels);
}

/* Every bit flip and every truncation of the latest manifest, plus
 * trailing garbage; the full restore cycle on every 16th of each (every
 * one costs three commits) and on the garbage. */
static void test_every_damage(void **state) {
  (void)state;
  int64_t size;
  uint8_t *orig = slurp(g_latest, &size);
  uint8_t *copy = malloc((size_t)size + 16);
  char variant[64];
  int restored = 0;
  for (int64_t i = 0; i < size; i++) {
    memcpy(copy, orig, (size_t)size);
    copy[i] ^= (uint8_t)(1u << (i % 8));
    spit(g_latest, copy, size);
    snprintf(variant, sizeof variant, "bit %lld of byte %lld", (long long)(i % 8), (long long)i);
    check_refusals(variant);
    if (i % 16 == 5) check_restore(variant, copy, size), restored++;
  }
  for (int64_t len = 0; len < size; len++) {
    spit(g_latest, orig, len);
    snprintf(variant, sizeof variant, "truncation to %lld bytes", (long long)len);
    check_refusals(variant);
    if (len % 16 == 0) check_restore(variant, orig, len), restored++;
  }
  memcpy(copy, orig, (size_t)size);
  memcpy(copy + size, "garbage", 7);
  spit(g_latest, copy, size + 7);
  check_refusals("trailing garbage");
  check_restore("trailing garbage", copy, size + 7);
  print_message("_versions/4.manifest: %lld bytes, %lld damaged variants refused, %d restored\n", (long long)size,
                (long long)(2 * size + 1), restored + 1);
  spit(g_latest, orig, size);
  qv_dataset *ds;
  qv_error err;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_dataset_version(ds), 4);
  qv_dataset_close(ds);
  free(orig);
  free(copy);
}

/* Damage the reader meets as the operating system's refusal or as a
 * manifest that is whole but is not this version's. */
static void test_other_damage(void **state) {
  (void)state;
  int64_t size;
  uint8_t *orig = slurp(g_latest, &size);
  assert_int_equal(unlink(g_latest), 0);

  /* A directory where the file should be: unreadable. */
  assert_int_equal(mkdir(g_latest, 0755), 0);
  check_refusals("a directory");
  qv_version_entry *list;
  int64_t n;
  qv_error err;
  assert_int_equal(qv_dataset_list_versions(g_path, &list, &n, &err), QV_OK);
  assert_non_null(strstr(list[3].message, "not a regular file"));
  qv_free(list);
  check_restore("a directory", NULL, 0);
  assert_int_equal(rmdir(g_latest), 0);

  /* Version 3's manifest under version 4's name: it says it is version 3. */
  char *v3 = join2(g_path, "_versions/3.manifest");
  int64_t size3;
  uint8_t *m3 = slurp(v3, &size3);
  spit(g_latest, m3, size3);
  check_refusals("version 3's manifest");
  assert_int_equal(qv_dataset_list_versions(g_path, &list, &n, &err), QV_OK);
  assert_non_null(strstr(list[3].message, "says it is version 3"));
  qv_free(list);
  check_restore("version 3's manifest", m3, size3);

  spit(g_latest, orig, size);
  free(m3);
  free(v3);
  free(orig);
}

/* Restoring what is not there, or what is there but damaged. */
static void test_restore_refusals(void **state) {
  (void)state;
  qv_error err;
  int64_t v = 0;
  assert_int_equal(qv_dataset_restore(g_path, 0, &v, &err), QV_ERR_INVALID);
  assert_int_equal(qv_dataset_restore(g_path, 9, &v, &err), QV_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "cannot restore version 9: it does not exist (the latest is 4)"));
  char *nowhere = join2(g_dir, "nowhere");
  assert_int_equal(qv_dataset_restore(nowhere, 1, &v, &err), QV_ERR_NOT_FOUND);
  qv_version_entry *list;
  int64_t n;
  assert_int_equal(qv_dataset_list_versions(nowhere, &list, &n, &err), QV_ERR_NOT_FOUND);
  free(nowhere);

  /* A version whose manifest reads but whose data file is gone. */
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(g_path, 1, &ds, &err), QV_OK);
  qv_fragment_info fi;
  qv_dataset_fragment(ds, 1, &fi);
  char *data = join2(g_path, fi.path), *aside = join2(g_dir, "aside.qvf"), *rel = strdup(fi.path);
  qv_dataset_close(ds);
  assert_int_equal(rename(data, aside), 0);
  assert_int_not_equal(qv_dataset_restore(g_path, 1, &v, &err), QV_OK);
  assert_non_null(strstr(err.message, "cannot restore version 1: "));
  assert_non_null(strstr(err.message, rel));
  assert_int_equal(rename(aside, data), 0);
  assert_int_equal(count_files("_versions"), 4);
  free(data);
  free(aside);
  free(rel);

  /* Restoring the latest itself is allowed: the same contents once more. */
  assert_int_equal(qv_dataset_restore(g_path, 4, &v, &err), QV_OK);
  assert_int_equal(v, 5);
  int64_t n4, n5;
  assert_int_equal(live_id_sum(5, &n5), live_id_sum(4, &n4));
  assert_int_equal(n5, n4);
  char *p = join2(g_path, "_versions/5.manifest");
  assert_int_equal(unlink(p), 0);
  free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_damage),
      cmocka_unit_test(test_other_damage),
      cmocka_unit_test(test_restore_refusals),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
