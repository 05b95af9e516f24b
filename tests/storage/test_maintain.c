/* Maintenance (src/storage/compact.c, cleanup.c, tags.c): compaction keeps
 * every live row and drops deleted ones, leaves well-sized fragments
 * alone, and conflicts with a delete of a fragment it rewrites; a killed
 * compaction leaves the previous version; cleanup removes old versions by
 * age and by count but never the latest or a tagged one, removes the files
 * only removed versions named and orphans past the grace period, and a
 * cleanup killed between its steps leaves every kept version readable. */
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

#include "storage/format.h"
#include "storage/storage_test_util.h"

static qv_schema g_schema;

static int setup(void **state) {
  (void)state;
  g_schema = (qv_schema)QV_SCHEMA_INIT;
  add_column(&g_schema, "id", qv_datatype_simple(QV_TYPE_INT64));
  add_column(&g_schema, "s", qv_datatype_simple(QV_TYPE_STRING));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  qv_schema_reset(&g_schema);
  return 0;
}

static qv_status write_ids(const char *path, int64_t from, int64_t n, qv_write_mode mode, int64_t rows_per_file) {
  qv_builder bi, bs;
  qv_error err;
  assert_int_equal(qv_builder_init(&bi, &g_schema.fields[0].type, &err), QV_OK);
  assert_int_equal(qv_builder_init(&bs, &g_schema.fields[1].type, &err), QV_OK);
  for (int64_t i = from; i < from + n; i++) {
    char buf[32];
    snprintf(buf, sizeof buf, "s%lld", (long long)i);
    assert_int_equal(qv_builder_append_int(&bi, i), QV_OK);
    assert_int_equal(qv_builder_append_cstr(&bs, buf), QV_OK);
  }
  qv_array *cols[2];
  assert_int_equal(qv_builder_finish(&bi, &cols[0], &err), QV_OK);
  assert_int_equal(qv_builder_finish(&bs, &cols[1], &err), QV_OK);
  qv_batch **b;
  int nb = split_batches(&g_schema, cols, n, 100, &b);
  qv_array_release(cols[0]);
  qv_array_release(cols[1]);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.mode = mode;
  o.max_rows_per_file = rows_per_file;
  o.page_rows = 64;
  qv_status st = write_batches(path, &g_schema, b, nb, &o, NULL, &err);
  free_batches(b, nb);
  return st;
}

/* Deletes, in fragment f of the latest version, the rows with id % k == 0. */
static void delete_mod(const char *path, int32_t f, int64_t k) {
  qv_dataset *ds;
  qv_error err;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  const uint8_t **del = calloc((size_t)qv_dataset_num_fragments(ds), sizeof *del);
  qv_fragment_reader *r;
  assert_int_equal(qv_fragment_open(ds, f, &r, &err), QV_OK);
  int64_t rows = qv_fragment_num_rows(r);
  qv_array *a;
  assert_int_equal(qv_fragment_read(r, 0, 0, rows, &a, &err), QV_OK);
  uint8_t *bits = calloc((size_t)rows / 8 + 2, 1);
  for (int64_t i = 0; i < rows; i++)
    if (((const int64_t *)qv_array_values(a))[i] % k == 0) qv_bit_set(bits, i);
  qv_array_release(a);
  qv_fragment_close(r);
  del[f] = bits;
  if (qv_dataset_delete_rows(ds, del, NULL, &err) != QV_OK) fail_msg("delete: %s", err.message);
  free(bits);
  free(del);
  qv_dataset_close(ds);
}

/* seen[id]++ for every live row of a version (checking s == "s<id>"). */
static int64_t live(const char *path, int64_t version, int *seen, int64_t cap) {
  qv_dataset *ds;
  qv_error err;
  if (qv_dataset_open(path, version, &ds, &err) != QV_OK) fail_msg("open %lld: %s", (long long)version, err.message);
  int64_t n = 0;
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
    qv_fragment_reader *r;
    if (qv_fragment_open(ds, f, &r, &err) != QV_OK) fail_msg("fragment %d: %s", f, err.message);
    int64_t rows = qv_fragment_num_rows(r);
    qv_array *a, *s;
    assert_int_equal(qv_fragment_read(r, 0, 0, rows, &a, &err), QV_OK);
    assert_int_equal(qv_fragment_read(r, 1, 0, rows, &s, &err), QV_OK);
    const uint8_t *gone = qv_fragment_deleted(r);
    for (int64_t i = 0; i < rows; i++) {
      if (gone && qv_bit_get(gone, i)) continue;
      int64_t id = ((const int64_t *)qv_array_values(a))[i];
      assert_true(id >= 0 && id < cap);
      char want[32];
      snprintf(want, sizeof want, "s%lld", (long long)id);
      int32_t len;
      const uint8_t *p = qv_array_str(s, i, &len);
      assert_int_equal(len, (int32_t)strlen(want));
      assert_memory_equal(p, want, (size_t)len);
      seen[id]++;
      n++;
    }
    qv_array_release(a);
    qv_array_release(s);
    qv_fragment_close(r);
  }
  assert_int_equal(n, qv_dataset_count_rows(ds));
  qv_dataset_close(ds);
  return n;
}

static int count_dir(const char *path, const char *sub) {
  char *dir = join2(path, sub);
  DIR *d = opendir(dir);
  free(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

/* v1: 1000 rows in 2 fragments of 500; v2..v11: ten appends of 30 rows;
 * v12: every second row of fragment 0 deleted. */
static char *fragmented(char **dir) {
  *dir = make_tmpdir();
  char *path = join2(*dir, "ds");
  assert_int_equal(write_ids(path, 0, 1000, QV_WRITE_CREATE, 500), QV_OK);
  for (int i = 0; i < 10; i++) assert_int_equal(write_ids(path, 1000 + i * 30, 30, QV_WRITE_APPEND, 500), QV_OK);
  delete_mod(path, 0, 2);
  return path;
}

static void test_compact(void **state) {
  (void)state;
  char *dir, *path = fragmented(&dir);
  static int before[1300], after[1300];
  memset(before, 0, sizeof before);
  memset(after, 0, sizeof after);
  assert_int_equal(live(path, 0, before, 1300), 1300 - 250);
  qv_compact_options o = QV_COMPACT_OPTIONS_INIT;
  o.target_rows_per_file = 600;
  qv_compact_result res;
  qv_error err;
  if (qv_dataset_compact(path, &o, &res, &err) != QV_OK) fail_msg("compact: %s", err.message);
  assert_int_equal(res.version, 13);
  /* fragment 0 (half deleted) and the ten small ones; fragment 1 (500 of 600) stays */
  assert_int_equal(res.fragments_removed, 11);
  assert_int_equal(res.rows_rewritten, 250 + 300);
  assert_int_equal(res.rows_dropped, 250);
  assert_int_equal(res.fragments_added, 1);
  assert_int_equal(live(path, 0, after, 1300), 1300 - 250);
  for (int i = 0; i < 1300; i++) assert_int_equal(after[i], before[i]);
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_dataset_num_fragments(ds), 2);
  for (int32_t f = 0; f < 2; f++) {
    qv_fragment_info fi;
    qv_dataset_fragment(ds, f, &fi);
    assert_int_equal(fi.num_deleted, 0);
  }
  qv_dataset_close(ds);
  /* again: nothing worth rewriting, no version */
  assert_int_equal(qv_dataset_compact(path, &o, &res, &err), QV_OK);
  assert_int_equal(res.version, 13);
  assert_int_equal(res.fragments_removed, 0);
  /* the old version still reads as it was */
  memset(after, 0, sizeof after);
  assert_int_equal(live(path, 12, after, 1300), 1050);
  rm_rf(dir);
  free(dir);
  free(path);
}

static const char *g_path;
static void rival_delete(const char *step) {
  if (strcmp(step, "before-publish") != 0) return;
  qvs_commit_hook = NULL;
  delete_mod(g_path, 2, 3); /* a small fragment the compaction rewrites */
}

static void test_compact_conflicts_with_delete(void **state) {
  (void)state;
  char *dir, *path = fragmented(&dir);
  int data_files = count_dir(path, "data");
  g_path = path;
  qvs_commit_hook = rival_delete;
  qv_compact_options o = QV_COMPACT_OPTIONS_INIT;
  o.target_rows_per_file = 600;
  qv_error err;
  assert_int_equal(qv_dataset_compact(path, &o, NULL, &err), QV_ERR_CONFLICT);
  qvs_commit_hook = NULL;
  assert_non_null(strstr(err.message,
                         "version 13 (delete) was committed by another writer first and deleted rows of "
                         "fragment 2, which this compact"));
  assert_int_equal(count_dir(path, "data"), data_files); /* its new file is gone */
  rm_rf(dir);
  free(dir);
  free(path);
}

static const char *g_kill_at;
static void kill_hook(const char *step) {
  if (strcmp(step, g_kill_at) == 0) raise(SIGKILL);
}

static void test_compact_killed(void **state) {
  (void)state;
  static const char *const steps[] = {"fragment-written", "data-written", "manifest-written", "before-publish",
                                      "published"};
  for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
    char *dir, *path = fragmented(&dir);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      g_kill_at = steps[k];
      qvs_commit_hook = kill_hook;
      qv_compact_options o = QV_COMPACT_OPTIONS_INIT;
      o.target_rows_per_file = 600;
      qv_error err;
      qv_dataset_compact(path, &o, NULL, &err);
      _exit(3);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) fail_msg("not killed at %s", steps[k]);
    bool published = strcmp(steps[k], "published") == 0;
    qv_dataset *ds;
    qv_error err;
    assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
    assert_int_equal(qv_dataset_version(ds), published ? 13 : 12);
    qv_dataset_close(ds);
    static int seen[1300];
    memset(seen, 0, sizeof seen);
    assert_int_equal(live(path, 0, seen, 1300), 1050);
    for (int i = 0; i < 1300; i++) assert_int_equal(seen[i], (i < 1000 && i % 2 == 0 && i < 500) ? 0 : 1);
    /* what the dead writer left is an orphan: cleanup removes it */
    qv_cleanup_options co = QV_CLEANUP_OPTIONS_INIT;
    co.older_than_ms = -1;
    co.orphan_grace_ms = 0;
    qv_cleanup_result cr;
    assert_int_equal(qv_dataset_cleanup(path, &co, &cr, &err), QV_OK);
    assert_int_equal(cr.versions_removed, 0);
    /* unpublished: its data file (and temp manifest); published: at most
     * the temp manifest the link left */
    if (!published) assert_true(cr.orphans_removed >= 1);
    else assert_true(cr.orphans_removed <= 1);
    memset(seen, 0, sizeof seen);
    assert_int_equal(live(path, 0, seen, 1300), 1050);
    rm_rf(dir);
    free(dir);
    free(path);
  }
}

static void test_cleanup(void **state) {
  (void)state;
  char *dir, *path = fragmented(&dir); /* 12 versions */
  qv_compact_options o = QV_COMPACT_OPTIONS_INIT;
  o.target_rows_per_file = 600;
  qv_error err;
  assert_int_equal(qv_dataset_compact(path, &o, NULL, &err), QV_OK); /* v13 */
  assert_int_equal(qv_dataset_tag(path, "before-delete", 11, &err), QV_OK);
  assert_int_equal(qv_dataset_tag(path, "before-delete", 3, &err), QV_ERR_EXISTS);
  assert_int_equal(qv_dataset_tag(path, "bad/name", 3, &err), QV_ERR_INVALID);
  assert_int_equal(qv_dataset_tag(path, "nope", 99, &err), QV_ERR_NOT_FOUND);
  assert_int_equal(qv_dataset_tag(path, "first", 1, &err), QV_OK);
  assert_int_equal(qv_dataset_untag(path, "first", &err), QV_OK);
  assert_int_equal(qv_dataset_untag(path, "first", &err), QV_ERR_NOT_FOUND);
  qv_tag *tags;
  int64_t nt;
  assert_int_equal(qv_dataset_tags(path, &tags, &nt, &err), QV_OK);
  assert_int_equal(nt, 1);
  assert_string_equal(tags[0].name, "before-delete");
  assert_int_equal(tags[0].version, 11);
  qv_free(tags);
  /* an orphan a crashed writer left, fresh: kept within the grace period */
  char *orphan = join2(path, "data/0123456789abcdef0123456789abcdef.qvf");
  FILE *f = fopen(orphan, "w");
  fputs("partial", f);
  fclose(f);
  int data_before = count_dir(path, "data");
  /* by count: keep the newest 3 (the default age, 7 days, removes none) */
  qv_cleanup_options co = QV_CLEANUP_OPTIONS_INIT;
  co.keep_versions = 3;
  co.dry_run = true;
  qv_cleanup_result cr;
  assert_int_equal(qv_dataset_cleanup(path, &co, &cr, &err), QV_OK);
  assert_int_equal(cr.versions_removed, 10);          /* 1..10 */
  assert_int_equal(count_dir(path, "_versions"), 13); /* a dry run removes nothing */
  co.dry_run = false;
  assert_int_equal(qv_dataset_cleanup(path, &co, &cr, &err), QV_OK);
  assert_int_equal(cr.versions_removed, 10);
  assert_int_equal(cr.orphans_removed, 0);
  qv_version_info *info;
  int64_t nv;
  assert_int_equal(qv_dataset_versions(path, &info, &nv, &err), QV_OK);
  assert_int_equal(nv, 3);
  int64_t want[] = {11, 12, 13};
  for (int i = 0; i < 3; i++) assert_int_equal(info[i].version, want[i]);
  qv_free(info);
  /* every kept version reads whole; no file a kept version names is gone */
  static int seen[1300];
  for (int i = 0; i < 3; i++) {
    memset(seen, 0, sizeof seen);
    live(path, want[i], seen, 1300);
  }
  assert_true(access(orphan, F_OK) == 0);
  /* by age with no grace: everything but the latest and the tag goes, and the orphan */
  co.keep_versions = 0;
  co.older_than_ms = 0;
  co.orphan_grace_ms = 0;
  assert_int_equal(qv_dataset_cleanup(path, &co, &cr, &err), QV_OK);
  assert_int_equal(cr.versions_removed, 1); /* 12 */
  assert_int_equal(cr.orphans_removed, 1);
  assert_true(access(orphan, F_OK) != 0);
  assert_int_equal(qv_dataset_versions(path, &info, &nv, &err), QV_OK);
  assert_int_equal(nv, 2);
  assert_int_equal(info[0].version, 11);
  assert_int_equal(info[1].version, 13);
  qv_free(info);
  memset(seen, 0, sizeof seen);
  assert_int_equal(live(path, 11, seen, 1300), 1300);
  memset(seen, 0, sizeof seen);
  assert_int_equal(live(path, 13, seen, 1300), 1050);
  /* the data files left are exactly those of 11 and 13: 2 + 10 (v11) + 1 new (v13) */
  assert_int_equal(count_dir(path, "data"), 13);
  assert_true(data_before > 13);
  /* untagged, 11 goes too; then only 13's files remain */
  assert_int_equal(qv_dataset_untag(path, "before-delete", &err), QV_OK);
  assert_int_equal(qv_dataset_cleanup(path, &co, &cr, &err), QV_OK);
  assert_int_equal(cr.versions_removed, 1);
  assert_int_equal(count_dir(path, "data"), 2);
  assert_int_equal(count_dir(path, "_deletions"), 0);
  memset(seen, 0, sizeof seen);
  assert_int_equal(live(path, 0, seen, 1300), 1050);
  /* the dataset goes on: an append after the cleanup */
  assert_int_equal(write_ids(path, 1200, 10, QV_WRITE_APPEND, 500), QV_OK);
  free(orphan);
  rm_rf(dir);
  free(dir);
  free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_compact),
      cmocka_unit_test(test_compact_conflicts_with_delete),
      cmocka_unit_test(test_compact_killed),
      cmocka_unit_test(test_cleanup),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
