/* Crash safety: a writer process is killed (SIGKILL) at each step of a
 * commit; the dataset must then open at the last published version with
 * exactly its rows, and the next writer must succeed. */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "storage/format.h"
#include "storage/storage_test_util.h"

static const char *g_kill_at;

static void kill_hook(const char *step) {
  if (strcmp(step, g_kill_at) == 0) raise(SIGKILL);
}

static void id_schema(qv_schema *s) {
  qv_error err;
  *s = (qv_schema)QV_SCHEMA_INIT;
  qv_field f = make_field("id", qv_datatype_simple(QV_TYPE_INT64));
  assert_int_equal(qv_schema_add(s, &f, &err), QV_OK);
  qv_field_reset(&f);
  f = make_field("label", qv_datatype_simple(QV_TYPE_STRING));
  assert_int_equal(qv_schema_add(s, &f, &err), QV_OK);
  qv_field_reset(&f);
}

static qv_status append_ids(const char *path, int64_t from, int64_t n, qv_write_mode mode, int64_t *v, qv_error *err) {
  qv_schema s;
  id_schema(&s);
  qv_builder bi, bl;
  assert_int_equal(qv_builder_init(&bi, &s.fields[0].type, err), QV_OK);
  assert_int_equal(qv_builder_init(&bl, &s.fields[1].type, err), QV_OK);
  for (int64_t i = from; i < from + n; i++) {
    char buf[32];
    snprintf(buf, sizeof buf, "label-%lld", (long long)i);
    assert_int_equal(qv_builder_append_int(&bi, i), QV_OK);
    assert_int_equal(qv_builder_append_cstr(&bl, buf), QV_OK);
  }
  qv_array *cols[2];
  assert_int_equal(qv_builder_finish(&bi, &cols[0], err), QV_OK);
  assert_int_equal(qv_builder_finish(&bl, &cols[1], err), QV_OK);
  qv_batch **b;
  int nb = split_batches(&s, cols, n, 64, &b);
  qv_write_options o = QV_WRITE_OPTIONS_INIT;
  o.mode = mode;
  o.max_rows_per_file = 200;
  o.page_rows = 50;
  qv_status st = write_batches(path, &s, b, nb, &o, v, err);
  free_batches(b, nb);
  qv_array_release(cols[0]);
  qv_array_release(cols[1]);
  qv_schema_reset(&s);
  return st;
}

/* The latest version must be `version` holding ids of the ranges given,
 * with the matching labels; `deleted` rows of fragment 0 marked. */
static void expect_dataset(const char *path, int64_t version, const int64_t *from, const int64_t *n, int parts,
                           int64_t deleted) {
  qv_dataset *ds;
  qv_error err;
  if (qv_dataset_open(path, 0, &ds, &err) != QV_OK) fail_msg("open after crash: %s", err.message);
  assert_int_equal(qv_dataset_version(ds), version);
  int64_t total = 0;
  for (int p = 0; p < parts; p++) total += n[p];
  assert_int_equal(qv_dataset_count_rows(ds), total - deleted);
  int part = 0;
  int64_t next = from[0], left = n[0];
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
    qv_fragment_reader *r;
    if (qv_fragment_open(ds, f, &r, &err) != QV_OK) fail_msg("fragment %d: %s", f, err.message);
    if (f == 0) {
      const uint8_t *del = qv_fragment_deleted(r);
      assert_int_equal(del ? qv_bitmap_count(del, 0, qv_fragment_num_rows(r)) : 0, deleted);
    }
    qv_array *ids, *labels;
    int64_t rows = qv_fragment_num_rows(r);
    assert_int_equal(qv_fragment_read(r, 0, 0, rows, &ids, &err), QV_OK);
    assert_int_equal(qv_fragment_read(r, 1, 0, rows, &labels, &err), QV_OK);
    for (int64_t i = 0; i < rows; i++) {
      while (left == 0) {
        part++;
        assert_true(part < parts);
        next = from[part];
        left = n[part];
      }
      assert_int_equal(((const int64_t *)qv_array_values(ids))[i], next);
      char want[32];
      int len = snprintf(want, sizeof want, "label-%lld", (long long)next);
      int32_t got_len;
      const uint8_t *got = qv_array_str(labels, i, &got_len);
      assert_int_equal(got_len, len);
      assert_memory_equal(got, want, (size_t)len);
      next++;
      left--;
    }
    qv_array_release(ids);
    qv_array_release(labels);
    qv_fragment_close(r);
  }
  assert_int_equal(left, 0);
  assert_int_equal(part, parts - 1);
  qv_dataset_close(ds);
}

/* Runs fn in a child that is killed at `step`; asserts it died by SIGKILL. */
static void run_killed(const char *step, void (*fn)(const char *path), const char *path) {
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    g_kill_at = step;
    qvs_commit_hook = kill_hook;
    fn(path);
    _exit(3); /* the step was never reached */
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
    fail_msg("writer was not killed at %s (status %d)", step, status);
}

static void child_append(const char *path) {
  qv_error err;
  append_ids(path, 100, 500, QV_WRITE_APPEND, NULL, &err);
}

static void child_overwrite(const char *path) {
  qv_error err;
  append_ids(path, 5000, 30, QV_WRITE_OVERWRITE, NULL, &err);
}

static void child_delete(const char *path) {
  qv_dataset *ds;
  qv_error err;
  if (qv_dataset_open(path, 0, &ds, &err) != QV_OK) _exit(4);
  uint8_t bits[32] = {0x0F};
  const uint8_t *del[] = {bits};
  qv_dataset_delete_rows(ds, del, NULL, &err);
  qv_dataset_close(ds);
}

static const char *const steps[] = {"fragment-written", "data-written", "manifest-written", "before-publish",
                                    "published"};

static void test_crash_append(void **state) {
  (void)state;
  for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
    char *dir = make_tmpdir(), *path = join2(dir, "ds");
    qv_error err;
    int64_t v;
    assert_int_equal(append_ids(path, 0, 100, QV_WRITE_CREATE, &v, &err), QV_OK);
    run_killed(steps[k], child_append, path);
    bool published = strcmp(steps[k], "published") == 0;
    int64_t f1[] = {0, 100}, n1[] = {100, 500};
    expect_dataset(path, published ? 2 : 1, f1, n1, published ? 2 : 1, 0);
    /* the next writer is not disturbed by what the dead one left */
    assert_int_equal(append_ids(path, 9000, 10, QV_WRITE_APPEND, &v, &err), QV_OK);
    assert_int_equal(v, published ? 3 : 2);
    int64_t f2[] = {0, 100, 9000}, n2[] = {100, 500, 10};
    if (published) {
      expect_dataset(path, 3, f2, n2, 3, 0);
    } else {
      int64_t f3[] = {0, 9000}, n3[] = {100, 10};
      expect_dataset(path, 2, f3, n3, 2, 0);
    }
    rm_rf(dir);
    free(dir);
    free(path);
  }
}

static void test_crash_overwrite_and_delete(void **state) {
  (void)state;
  for (size_t k = 1; k < sizeof steps / sizeof steps[0]; k++) {
    char *dir = make_tmpdir(), *path = join2(dir, "ds");
    qv_error err;
    int64_t v;
    assert_int_equal(append_ids(path, 0, 100, QV_WRITE_CREATE, &v, &err), QV_OK);
    bool published = strcmp(steps[k], "published") == 0;
    run_killed(steps[k], child_overwrite, path);
    int64_t f1[] = {0}, n1[] = {100}, f2[] = {5000}, n2[] = {30};
    if (published) expect_dataset(path, 2, f2, n2, 1, 0);
    else expect_dataset(path, 1, f1, n1, 1, 0);
    if (k >= 2) { /* deletes have no data files: start at the manifest */
      int64_t before = published ? 2 : 1;
      run_killed(steps[k], child_delete, path);
      if (published) expect_dataset(path, before + 1, before == 2 ? f2 : f1, before == 2 ? n2 : n1, 1, 4);
      else expect_dataset(path, before, before == 2 ? f2 : f1, before == 2 ? n2 : n1, 1, 0);
    }
    rm_rf(dir);
    free(dir);
    free(path);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crash_append),
      cmocka_unit_test(test_crash_overwrite_and_delete),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
