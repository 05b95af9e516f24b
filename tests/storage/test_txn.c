/* The one commit path (src/storage/txn.c): racing writers.  A second
 * writer is made to commit between the first one's data and its manifest
 * (through the commit hook, so the race is certain), then the rules of
 * docs/writes.md "Commits and conflicts" are checked: two appends both land
 * (rebase), an append and a delete both land, deletes of different
 * fragments both land, two deletes of one fragment conflict with an error
 * naming the winning version; and real threads and processes appending at
 * once lose and double nothing. */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "storage/format.h"
#include "storage/storage_test_util.h"

static qv_schema g_schema;

static int setup(void **state) {
  (void)state;
  g_schema = (qv_schema)QV_SCHEMA_INIT;
  add_column(&g_schema, "id", qv_datatype_simple(QV_TYPE_INT64));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  qv_schema_reset(&g_schema);
  return 0;
}

/* Appends ids [from, from + n) in fragments of 100 rows. */
static qv_status append_ids(const char *path, int64_t from, int64_t n, qv_write_mode mode, int64_t *v, qv_error *err) {
  qv_builder b;
  assert_int_equal(qv_builder_init(&b, &g_schema.fields[0].type, err), QV_OK);
  for (int64_t i = from; i < from + n; i++) assert_int_equal(qv_builder_append_int(&b, i), QV_OK);
  qv_array *col;
  assert_int_equal(qv_builder_finish(&b, &col, err), QV_OK);
  qv_batch **bs;
  int nb = split_batches(&g_schema, &col, n, 64, &bs);
  qv_array_release(col);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.mode = mode;
  o.max_rows_per_file = 100;
  o.page_rows = 50;
  qv_status st = write_batches(path, &g_schema, bs, nb, &o, v, err);
  free_batches(bs, nb);
  return st;
}

/* Deletes the rows of fragment `frag` of the given version whose id is in
 * [lo, hi). */
static qv_status delete_range(const char *path, int64_t version, int32_t frag, int64_t lo, int64_t hi, int64_t *v,
                              qv_error *err) {
  qv_dataset *ds;
  QV_RETURN_NOT_OK(qv_dataset_open(path, version, &ds, err));
  int32_t nf = qv_dataset_num_fragments(ds);
  const uint8_t **del = calloc((size_t)nf, sizeof *del);
  qv_fragment_reader *r;
  assert_int_equal(qv_fragment_open(ds, frag, &r, err), QV_OK);
  int64_t rows = qv_fragment_num_rows(r);
  qv_array *a;
  assert_int_equal(qv_fragment_read(r, 0, 0, rows, &a, err), QV_OK);
  uint8_t *bits = calloc((size_t)(rows + 7) / 8 + 1, 1);
  const int64_t *ids = qv_array_values(a);
  for (int64_t i = 0; i < rows; i++)
    if (ids[i] >= lo && ids[i] < hi) qv_bit_set(bits, i);
  qv_array_release(a);
  qv_fragment_close(r);
  del[frag] = bits;
  qv_status st = qv_dataset_delete_rows(ds, del, v, err);
  free(bits);
  free(del);
  qv_dataset_close(ds);
  return st;
}

/* Every live id of the latest version, counted: seen[id] (ids < cap). */
static int64_t live_ids(const char *path, int *seen, int64_t cap) {
  qv_dataset *ds;
  qv_error err;
  if (qv_dataset_open(path, 0, &ds, &err) != QV_OK) fail_msg("open: %s", err.message);
  int64_t n = 0;
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
    qv_fragment_reader *r;
    assert_int_equal(qv_fragment_open(ds, f, &r, &err), QV_OK);
    qv_array *a;
    assert_int_equal(qv_fragment_read(r, 0, 0, qv_fragment_num_rows(r), &a, &err), QV_OK);
    const int64_t *ids = qv_array_values(a);
    const uint8_t *gone = qv_fragment_deleted(r);
    for (int64_t i = 0; i < a->length; i++) {
      if (gone && qv_bit_get(gone, i)) continue;
      assert_true(ids[i] >= 0 && ids[i] < cap);
      seen[ids[i]]++;
      n++;
    }
    qv_array_release(a);
    qv_fragment_close(r);
  }
  assert_int_equal(n, qv_dataset_count_rows(ds));
  qv_dataset_close(ds);
  return n;
}

/* ---- a second writer inside the first one's commit ---------------------- */

static const char *g_path;
static qv_status (*g_rival)(qv_error *err);
static qv_status g_rival_status;
static int64_t g_rival_version;
static char g_rival_message[1024];

/* At the first "before-publish" of the writer under test: runs the rival
 * writer to completion (with the hook off), so it wins the version. */
static void rival_hook(const char *step) {
  if (strcmp(step, "before-publish") != 0) return;
  qvs_commit_hook = NULL;
  qv_error err = {0};
  g_rival_status = g_rival(&err);
  snprintf(g_rival_message, sizeof g_rival_message, "%s", err.message);
}

static qv_status rival_append(qv_error *err) {
  return append_ids(g_path, 1000, 250, QV_WRITE_APPEND, &g_rival_version, err);
}
static qv_status rival_delete_f0(qv_error *err) { return delete_range(g_path, 0, 0, 0, 10, &g_rival_version, err); }
static qv_status rival_delete_f1(qv_error *err) { return delete_range(g_path, 0, 1, 100, 110, &g_rival_version, err); }
static qv_status rival_overwrite(qv_error *err) {
  return append_ids(g_path, 5000, 10, QV_WRITE_OVERWRITE, &g_rival_version, err);
}

static char *fresh_dataset(char **dir) {
  *dir = make_tmpdir();
  char *path = join2(*dir, "ds");
  qv_error err;
  int64_t v;
  assert_int_equal(append_ids(path, 0, 300, QV_WRITE_CREATE, &v, &err), QV_OK); /* 3 fragments */
  assert_int_equal(v, 1);
  return path;
}

static void arm(const char *path, qv_status (*rival)(qv_error *)) {
  g_path = path;
  g_rival = rival;
  g_rival_status = -1;
  g_rival_version = 0;
  qvs_commit_hook = rival_hook;
}

static void test_two_appends_both_land(void **state) {
  (void)state;
  char *dir, *path = fresh_dataset(&dir);
  arm(path, rival_append);
  qv_error err;
  int64_t v = 0;
  assert_int_equal(append_ids(path, 300, 150, QV_WRITE_APPEND, &v, &err), QV_OK);
  qvs_commit_hook = NULL;
  assert_int_equal(g_rival_status, QV_OK);
  assert_int_equal(g_rival_version, 2);
  assert_int_equal(v, 3); /* rebased over the rival's version 2 */
  int seen[1300] = {0};
  assert_int_equal(live_ids(path, seen, 1300), 300 + 150 + 250);
  for (int i = 0; i < 1300; i++) assert_int_equal(seen[i], (i < 450 || (i >= 1000 && i < 1250)) ? 1 : 0);
  /* fragment ids stay unique and increasing across the rebase */
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  for (int32_t f = 1; f < qv_dataset_num_fragments(ds); f++) {
    qv_fragment_info a, b;
    qv_dataset_fragment(ds, f - 1, &a);
    qv_dataset_fragment(ds, f, &b);
    assert_true(a.id < b.id);
  }
  qv_dataset_close(ds);
  rm_rf(dir);
  free(dir);
  free(path);
}

static void test_append_and_delete_both_land(void **state) {
  (void)state;
  char *dir, *path = fresh_dataset(&dir);
  qv_error err;
  int64_t v = 0;
  /* a delete loses to an append, then an append loses to a delete */
  arm(path, rival_append);
  assert_int_equal(delete_range(path, 1, 2, 200, 250, &v, &err), QV_OK);
  qvs_commit_hook = NULL;
  assert_int_equal(g_rival_status, QV_OK);
  assert_int_equal(v, 3);
  arm(path, rival_delete_f0);
  assert_int_equal(append_ids(path, 2000, 20, QV_WRITE_APPEND, &v, &err), QV_OK);
  qvs_commit_hook = NULL;
  assert_int_equal(g_rival_status, QV_OK);
  assert_int_equal(g_rival_version, 4);
  assert_int_equal(v, 5);
  int seen[2100] = {0};
  assert_int_equal(live_ids(path, seen, 2100), 300 - 50 - 10 + 250 + 20);
  for (int i = 0; i < 2100; i++) {
    bool want = (i >= 10 && i < 200) || (i >= 250 && i < 300) || (i >= 1000 && i < 1250) || (i >= 2000 && i < 2020);
    assert_int_equal(seen[i], want ? 1 : 0);
  }
  rm_rf(dir);
  free(dir);
  free(path);
}

static void test_deletes_of_other_fragments_both_land(void **state) {
  (void)state;
  char *dir, *path = fresh_dataset(&dir);
  arm(path, rival_delete_f1);
  qv_error err;
  int64_t v = 0;
  assert_int_equal(delete_range(path, 1, 0, 50, 60, &v, &err), QV_OK);
  qvs_commit_hook = NULL;
  assert_int_equal(g_rival_status, QV_OK);
  assert_int_equal(v, 3);
  int seen[300] = {0};
  assert_int_equal(live_ids(path, seen, 300), 280);
  for (int i = 0; i < 300; i++) assert_int_equal(seen[i], ((i >= 50 && i < 60) || (i >= 100 && i < 110)) ? 0 : 1);
  rm_rf(dir);
  free(dir);
  free(path);
}

static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

static void test_deletes_of_one_fragment_conflict(void **state) {
  (void)state;
  char *dir, *path = fresh_dataset(&dir), *dels = join2(path, "_deletions");
  arm(path, rival_delete_f0);
  qv_error err;
  int64_t v = 0;
  assert_int_equal(delete_range(path, 1, 0, 50, 60, &v, &err), QV_ERR_CONFLICT);
  qvs_commit_hook = NULL;
  assert_int_equal(g_rival_status, QV_OK);
  char want[512];
  snprintf(want, sizeof want,
           "%s: version 2 (delete) was committed by another writer first and deleted rows of fragment 0, which this "
           "delete (based on version 1) also changes; retry from the latest version",
           path);
  assert_string_equal(err.message, want);
  assert_int_equal(count_entries(dels), 1); /* the rival's file; ours is gone */
  int seen[300] = {0};
  assert_int_equal(live_ids(path, seen, 300), 290); /* only the rival's rows went */
  for (int i = 0; i < 300; i++) assert_int_equal(seen[i], i < 10 ? 0 : 1);
  /* retried from the latest version, it lands */
  assert_int_equal(delete_range(path, 0, 0, 50, 60, &v, &err), QV_OK);
  assert_int_equal(v, 3);
  rm_rf(dir);
  free(dels);
  free(dir);
  free(path);
}

static void test_append_after_overwrite_conflicts(void **state) {
  (void)state;
  char *dir, *path = fresh_dataset(&dir), *data = join2(path, "data");
  int before = count_entries(data);
  arm(path, rival_overwrite);
  qv_error err;
  int64_t v = 0;
  assert_int_equal(append_ids(path, 300, 10, QV_WRITE_APPEND, &v, &err), QV_ERR_CONFLICT);
  qvs_commit_hook = NULL;
  assert_int_equal(g_rival_status, QV_OK);
  assert_non_null(strstr(err.message,
                         "version 2 (overwrite) was committed by another writer first and replaced the "
                         "contents"));
  assert_int_equal(count_entries(data), before + 1); /* the rival's file; ours is gone */
  /* an overwrite that loses to anything rebases: its contents replace the winner's */
  arm(path, rival_append);
  assert_int_equal(append_ids(path, 7000, 5, QV_WRITE_OVERWRITE, &v, &err), QV_OK);
  qvs_commit_hook = NULL;
  assert_int_equal(v, 4);
  int seen[8000] = {0};
  assert_int_equal(live_ids(path, seen, 8000), 5);
  for (int i = 7000; i < 7005; i++) assert_int_equal(seen[i], 1);
  rm_rf(dir);
  free(data);
  free(dir);
  free(path);
}

/* A writer killed (SIGKILL) at each step after it rebased once: the
 * dataset opens at the rival's version (or at the rebased one when the
 * kill came after the link) with exactly its rows. */
static const char *g_kill_step;
static int g_publishes;
static void rebase_then_kill(const char *step) {
  if (strcmp(step, "before-publish") == 0 && g_publishes++ == 0) {
    qvs_commit_hook = NULL;
    qv_error err;
    if (rival_append(&err) != QV_OK) _exit(6);
    qvs_commit_hook = rebase_then_kill;
    return;
  }
  if (g_publishes > 0 && strcmp(step, g_kill_step) == 0) raise(SIGKILL);
}

static void test_killed_after_rebase(void **state) {
  (void)state;
  static const char *const steps[] = {"manifest-written", "before-publish", "published"};
  for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
    char *dir, *path = fresh_dataset(&dir);
    g_path = path;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      g_kill_step = steps[k];
      g_publishes = 0;
      qvs_commit_hook = rebase_then_kill;
      qv_error err;
      append_ids(path, 300, 100, QV_WRITE_APPEND, NULL, &err);
      _exit(3);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) fail_msg("not killed at %s (%d)", steps[k], status);
    bool published = strcmp(steps[k], "published") == 0;
    qv_dataset *ds;
    qv_error err;
    assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
    assert_int_equal(qv_dataset_version(ds), published ? 3 : 2);
    qv_dataset_close(ds);
    int seen[1300] = {0};
    assert_int_equal(live_ids(path, seen, 1300), published ? 650 : 550);
    for (int i = 0; i < 1300; i++)
      assert_int_equal(seen[i], (i < 300 || (i >= 1000 && i < 1250) || (published && i < 400)) ? 1 : 0);
    int64_t v;
    assert_int_equal(append_ids(path, 1250, 10, QV_WRITE_APPEND, &v, &err), QV_OK);
    assert_int_equal(v, published ? 4 : 3);
    rm_rf(dir);
    free(dir);
    free(path);
  }
}

/* ---- real threads and processes ------------------------------------------- */

typedef struct worker {
  const char *path;
  int id, rounds;
  int ok;
} worker;

static void *append_worker(void *arg) {
  worker *w = arg;
  for (int r = 0; r < w->rounds; r++) {
    qv_error err;
    int64_t v;
    if (append_ids(w->path, (int64_t)(w->id * 1000 + r * 50), 50, QV_WRITE_APPEND, &v, &err) == QV_OK) w->ok++;
    else fprintf(stderr, "worker %d round %d: %s\n", w->id, r, err.message);
  }
  return NULL;
}

static void test_threads_append(void **state) {
  (void)state;
  char *dir = make_tmpdir(), *path = join2(dir, "ds");
  enum { T = 4, R = 6 };
  pthread_t th[T];
  worker w[T];
  for (int i = 0; i < T; i++) {
    w[i] = (worker){path, i, R, 0};
    assert_int_equal(pthread_create(&th[i], NULL, append_worker, &w[i]), 0);
  }
  for (int i = 0; i < T; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < T; i++) assert_int_equal(w[i].ok, R);
  static int seen[T * 1000];
  memset(seen, 0, sizeof seen);
  assert_int_equal(live_ids(path, seen, T * 1000), T * R * 50);
  for (int i = 0; i < T; i++)
    for (int k = 0; k < 1000; k++) assert_int_equal(seen[i * 1000 + k], k < R * 50 ? 1 : 0);
  /* one version per commit, and the first one a create */
  qv_version_info *info;
  int64_t n;
  qv_error err;
  assert_int_equal(qv_dataset_versions(path, &info, &n, &err), QV_OK);
  assert_int_equal(n, T * R);
  assert_string_equal(info[0].operation, "create");
  for (int64_t i = 1; i < n; i++) assert_string_equal(info[i].operation, "append");
  qv_free(info);
  rm_rf(dir);
  free(dir);
  free(path);
}

/* N processes append and delete (each its own rows) at once: every
 * append is present exactly once and every delete took its rows away (a
 * delete of one's own fragment rebases over everyone else's commits). */
static void test_processes_append_and_delete(void **state) {
  (void)state;
  char *dir = make_tmpdir(), *path = join2(dir, "ds");
  qv_error err;
  int64_t v;
  assert_int_equal(append_ids(path, 900000, 10, QV_WRITE_CREATE, &v, &err), QV_OK);
  enum { N = 8, R = 5 };
  int fds[N][2];
  pid_t pids[N];
  fflush(NULL);
  for (int i = 0; i < N; i++) {
    assert_int_equal(pipe(fds[i]), 0);
    pids[i] = fork();
    assert_true(pids[i] >= 0);
    if (pids[i] == 0) {
      /* report one byte per round: 'a' append committed, 'd' delete too,
       * 'c' delete conflicted */
      for (int r = 0; r < R; r++) {
        int64_t from = (int64_t)(i * 1000 + r * 100);
        char c = 'x';
        if (append_ids(path, from, 100, QV_WRITE_APPEND, &v, &err) == QV_OK) {
          c = 'a';
          /* the fragment just appended is the last one of version v or
           * (after others' commits) somewhere above: find it by id range */
          qv_dataset *ds;
          if (qv_dataset_open(path, v, &ds, &err) == QV_OK) {
            int32_t f = qv_dataset_num_fragments(ds) - 1;
            qv_dataset_close(ds);
            qv_status st = delete_range(path, v, f, from, from + 10, NULL, &err);
            c = st == QV_OK ? 'd' : st == QV_ERR_CONFLICT ? 'c' : 'e';
          }
        }
        if (write(fds[i][1], &c, 1) != 1) _exit(5);
      }
      _exit(0);
    }
    close(fds[i][1]);
  }
  char got[N][R];
  for (int i = 0; i < N; i++) {
    for (int k = 0; k < R;) {
      ssize_t r = read(fds[i][0], got[i] + k, (size_t)(R - k));
      assert_true(r > 0);
      k += (int)r;
    }
    close(fds[i][0]);
    int status;
    assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  static int seen[N * 1000];
  memset(seen, 0, sizeof seen);
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  int64_t total = 0;
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
    qv_fragment_reader *r;
    assert_int_equal(qv_fragment_open(ds, f, &r, &err), QV_OK);
    qv_array *a;
    assert_int_equal(qv_fragment_read(r, 0, 0, qv_fragment_num_rows(r), &a, &err), QV_OK);
    const int64_t *ids = qv_array_values(a);
    const uint8_t *gone = qv_fragment_deleted(r);
    for (int64_t k = 0; k < a->length; k++)
      if ((!gone || !qv_bit_get(gone, k)) && ids[k] < 900000) seen[ids[k]]++, total++;
    qv_array_release(a);
    qv_fragment_close(r);
  }
  qv_dataset_close(ds);
  int64_t want = 0;
  for (int i = 0; i < N; i++)
    for (int r = 0; r < R; r++) {
      char c = got[i][r];
      /* each delete touches only its own process's fragment: never a conflict */
      if (c != 'd') fail_msg("process %d round %d: a write failed (%c)", i, r, c);
      int64_t from = i * 1000 + r * 100;
      for (int64_t k = from; k < from + 100; k++) {
        int expect = (c == 'd' && k < from + 10) ? 0 : 1;
        if (seen[k] != expect) fail_msg("id %lld: seen %d times, expected %d (%c)", (long long)k, seen[k], expect, c);
      }
      want += c == 'd' ? 90 : 100;
    }
  assert_int_equal(total, want);
  rm_rf(dir);
  free(dir);
  free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_appends_both_land),
      cmocka_unit_test(test_append_and_delete_both_land),
      cmocka_unit_test(test_deletes_of_other_fragments_both_land),
      cmocka_unit_test(test_deletes_of_one_fragment_conflict),
      cmocka_unit_test(test_append_after_overwrite_conflicts),
      cmocka_unit_test(test_killed_after_rebase),
      cmocka_unit_test(test_threads_append),
      cmocka_unit_test(test_processes_append_and_delete),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
