/* Crash safety of index commits: a process creating, optimizing or
 * dropping an index is killed (SIGKILL) at each step of the commit.  The
 * dataset must then open at the last published version, its indices must
 * answer exactly, and the next index commit must succeed. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "index/index_int.h"
#include "index_test_util.h"
#include "storage/format.h"

static const char *g_kill_at;

static void kill_hook(const char *step) {
  if (strcmp(step, g_kill_at) == 0) raise(SIGKILL);
}

static void run_killed(const char *step, void (*fn)(const char *path), const char *path) {
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    g_kill_at = step;
    qvs_commit_hook = kill_hook;
    fn(path);
    _exit(3);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
    fail_msg("index writer was not killed at %s (status %d)", step, status);
}

static void child_create(const char *path) {
  qv_error err;
  qv_index_create(path, "cat", QV_INDEX_BITMAP, NULL, NULL, &err);
}
static void child_optimize(const char *path) {
  qv_error err;
  qv_index_optimize(path, NULL, NULL, &err);
}
static void child_drop(const char *path) {
  qv_error err;
  qv_index_drop(path, "i_idx", NULL, &err);
}

/* Every index of the latest version answers its probe exactly on every
 * fragment it covers; returns the latest version. */
static int64_t check_indices(const char *path, int32_t want_indices) {
  qv_dataset *ds;
  qv_error err;
  if (qv_dataset_open(path, 0, &ds, &err) != QV_OK) fail_msg("open after crash: %s", err.message);
  assert_int_equal(qv_dataset_num_indices(ds), want_indices);
  for (int32_t i = 0; i < want_indices; i++) {
    qv_index *ix;
    assert_int_equal(qv_index_open(ds, i, &ix, &err), QV_OK);
    qv_expr *e = bound(ds, qv_index_kind(ix) == QV_INDEX_BTREE ? "i BETWEEN -50 AND 50" : "cat = 'c3'");
    for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
      qv_fragment_info fi;
      qv_dataset_fragment(ds, f, &fi);
      if (!qv_index_covers(ix, fi.id)) continue;
      roaring_bitmap_t *want = brute(ds, f, e), *got = roaring_bitmap_create();
      bool exact;
      if (qv_index_query(ix, e, fi.id, got, &exact, &err) != QV_OK) fail_msg("%s", err.message);
      assert_true(exact && roaring_bitmap_equals(got, want));
      roaring_bitmap_free(want);
      roaring_bitmap_free(got);
    }
    qv_expr_destroy(e);
    qv_index_close(ix);
  }
  int64_t v = qv_dataset_version(ds);
  qv_dataset_close(ds);
  return v;
}

static const char *const steps[] = {"data-written", "manifest-written", "before-publish", "published"};

static void test_crash_index_commits(void **state) {
  (void)state;
  for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
    char *path = make_dir();
    qv_error err;
    bool published = strcmp(steps[k], "published") == 0;
    write_random(path, 2500, 11, QV_WRITE_CREATE);
    create_index(path, "i", QV_INDEX_BTREE, NULL, 64);
    assert_int_equal(check_indices(path, 1), 2);

    run_killed(steps[k], child_create, path);
    assert_int_equal(check_indices(path, published ? 2 : 1), published ? 3 : 2);
    if (!published) create_index(path, "cat", QV_INDEX_BITMAP, NULL, 4096);
    assert_int_equal(check_indices(path, 2), 3);

    write_random(path, 700, 12, QV_WRITE_APPEND);
    run_killed(steps[k], child_optimize, path);
    assert_int_equal(check_indices(path, 2), published ? 5 : 4);
    int64_t v = 0;
    assert_int_equal(qv_index_optimize(path, NULL, &v, &err), QV_OK);
    assert_int_equal(v, published ? 0 : 5);

    run_killed(steps[k], child_drop, path);
    assert_int_equal(check_indices(path, published ? 1 : 2), published ? 6 : 5);
    drop_dir(path);
  }
}

static void child_rebuild(const char *path) {
  qv_error err;
  qv_index_rebuild(path, NULL, NULL, NULL, &err);
}

/* Damaged files of the latest version's index i (by qv_index_verify). */
static int32_t damaged_files(const char *path, int32_t i) {
  qv_dataset *ds;
  qv_error err;
  if (qv_dataset_open(path, 0, &ds, &err) != QV_OK) fail_msg("open after crash: %s", err.message);
  qv_index *ix;
  int32_t bad = -1;
  assert_int_equal(qv_index_open(ds, i, &ix, &err), QV_OK);
  assert_int_equal(qv_index_verify(ix, &bad, &err), QV_OK);
  qv_index_close(ix);
  qv_dataset_close(ds);
  return bad;
}

/* A rebuild of a damaged file killed at each step: the dataset opens at
 * the last published version, whose index is damaged (not published) or
 * whole (published), and the next rebuild repairs what is left. */
static void test_crash_rebuild(void **state) {
  (void)state;
  for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
    char *path = make_dir();
    qv_error err;
    bool published = strcmp(steps[k], "published") == 0;
    write_random(path, 2500, 11, QV_WRITE_CREATE);
    create_index(path, "i", QV_INDEX_BTREE, NULL, 64);
    qv_dataset *ds;
    assert_int_equal(qv_dataset_open(path, 0, &ds, NULL), QV_OK);
    qv_index_entry e;
    qv_dataset_index(ds, 0, &e);
    char *file = qvb_path_join(path, e.files[0].path);
    qv_dataset_close(ds);
    assert_int_equal(truncate(file, 100), 0);
    qv_free(file);
    assert_int_equal(damaged_files(path, 0), 1);

    run_killed(steps[k], child_rebuild, path);
    assert_int_equal(damaged_files(path, 0), published ? 0 : 1);
    int32_t rebuilt = -1;
    int64_t v = -1;
    assert_int_equal(qv_index_rebuild(path, NULL, &rebuilt, &v, &err), QV_OK);
    assert_int_equal(rebuilt, published ? 0 : 1);
    assert_int_equal(v, published ? 0 : 3);
    assert_int_equal(check_indices(path, 1), 3);
    drop_dir(path);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_crash_index_commits), cmocka_unit_test(test_crash_rebuild)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
