/* Fragment-level operations (src/storage/fragments_io.c): fragments written
 * by separate processes without committing, committed together as one
 * version; a replayed commit is idempotent; malformed or mismatched sets
 * are refused before anything is published; a version opened on some of
 * its fragments reads just those. */
#include <sys/wait.h>

#include "storage/storage_test_util.h"

static qv_schema g_schema;

static qv_batch_reader *ids_reader(int64_t from, int64_t n) {
  qv_builder b;
  qv_error err;
  assert_int_equal(qv_builder_init(&b, &g_schema.fields[0].type, &err), QV_OK);
  for (int64_t i = from; i < from + n; i++) qv_builder_append_int(&b, i);
  qv_array *col;
  assert_int_equal(qv_builder_finish(&b, &col, &err), QV_OK);
  qv_batch **bs;
  int nb = split_batches(&g_schema, &col, n, 100, &bs);
  qv_array_release(col);
  qv_batch_reader *r = vec_reader_new(&g_schema, bs, nb);
  free_batches(bs, nb);
  return r;
}

static int64_t sum_ids(const qv_dataset *ds, int64_t *rows) {
  qv_error err;
  int64_t sum = 0;
  *rows = 0;
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
    qv_fragment_reader *r;
    assert_int_equal(qv_fragment_open(ds, f, &r, &err), QV_OK);
    qv_array *a;
    assert_int_equal(qv_fragment_read(r, 0, 0, qv_fragment_num_rows(r), &a, &err), QV_OK);
    for (int64_t i = 0; i < a->length; i++) sum += ((const int64_t *)qv_array_values(a))[i];
    *rows += a->length;
    qv_array_release(a);
    qv_fragment_close(r);
  }
  return sum;
}

static void test_write_elsewhere_commit_once(void **state) {
  (void)state;
  g_schema = (qv_schema)QV_SCHEMA_INIT;
  add_column(&g_schema, "id", qv_datatype_simple(QV_TYPE_INT64));
  char *dir = make_tmpdir(), *path = join2(dir, "ds");
  enum { W = 3 };
  char *sets[W];
  /* three processes each write 1,000 rows and hand back their set */
  for (int w = 0; w < W; w++) {
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
      close(fd[0]);
      qv_batch_reader *r = ids_reader(w * 1000, 1000);
      qv_write_options o = QV_WRITE_OPTIONS_INIT;
      o.max_rows_per_file = 400;
      char *set = NULL;
      qv_error err;
      if (qv_dataset_write_fragments(path, r, &o, &set, &err) != QV_OK) _exit(2);
      size_t len = strlen(set);
      if (write(fd[1], set, len) != (ssize_t)len) _exit(3);
      _exit(0);
    }
    close(fd[1]);
    char buf[8192];
    size_t got = 0;
    ssize_t k;
    while ((k = read(fd[0], buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)k;
    buf[got] = '\0';
    close(fd[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    sets[w] = strdup(buf);
    assert_non_null(strstr(sets[w], "quiver-fragments 1\nschema "));
  }
  qv_error err;
  int64_t v = 0;
  qv_dataset *ds;
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_ERR_NOT_FOUND); /* nothing committed yet */
  if (qv_dataset_commit_fragments(path, (const char *const *)sets, W, QV_WRITE_APPEND, &v, &err) != QV_OK)
    fail_msg("commit: %s", err.message);
  assert_int_equal(v, 1);
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_dataset_num_fragments(ds), 9);
  int64_t rows, sum = sum_ids(ds, &rows);
  assert_int_equal(rows, 3000);
  assert_int_equal(sum, 2999LL * 3000 / 2);
  qv_dataset_close(ds);
  /* a replay commits nothing and answers the version that holds them */
  assert_int_equal(qv_dataset_commit_fragments(path, (const char *const *)sets, W, QV_WRITE_APPEND, &v, &err), QV_OK);
  assert_int_equal(v, 1);
  /* a version opened on two of its fragments reads just those */
  int64_t ids[] = {4, 0};
  assert_int_equal(qv_dataset_open_fragments(path, 0, ids, 2, &ds, &err), QV_OK);
  assert_int_equal(qv_dataset_num_fragments(ds), 2);
  assert_int_equal(qv_dataset_count_rows(ds), 400 + 400);
  qv_fragment_info fi;
  qv_dataset_fragment(ds, 0, &fi);
  assert_int_equal(fi.id, 0);
  qv_dataset_close(ds);
  int64_t missing[] = {99};
  assert_int_equal(qv_dataset_open_fragments(path, 0, missing, 1, &ds, &err), QV_ERR_NOT_FOUND);
  /* refusals: malformed sets, a file that does not match its line */
  const char *bad[] = {"nope\n"};
  assert_int_equal(qv_dataset_commit_fragments(path, bad, 1, QV_WRITE_APPEND, &v, &err), QV_ERR_INVALID);
  char *tampered = strdup(sets[0]);
  char *last = strrchr(tampered, ' ');
  memcpy(last, " 5\n", 4); /* the last file holds 200 rows, not 5 */
  const char *one[] = {tampered};
  assert_int_equal(qv_dataset_commit_fragments(path, one, 1, QV_WRITE_APPEND, &v, &err), QV_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "does not match its description"));
  char *traversal = strdup(sets[0]);
  char *frag = strstr(traversal, "fragment data/");
  memcpy(frag + 9, "../x", 4);
  one[0] = traversal;
  assert_int_equal(qv_dataset_commit_fragments(path, one, 1, QV_WRITE_APPEND, &v, &err), QV_ERR_INVALID);
  assert_int_equal(qv_dataset_open(path, 0, &ds, &err), QV_OK);
  assert_int_equal(qv_dataset_version(ds), 1); /* nothing was published */
  qv_dataset_close(ds);
  free(tampered);
  free(traversal);
  for (int w = 0; w < W; w++) free(sets[w]);
  rm_rf(dir);
  free(dir);
  free(path);
  qv_schema_reset(&g_schema);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_write_elsewhere_commit_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
