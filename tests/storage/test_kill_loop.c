/* Racing writers killed at random points, many rounds (docs/writes.md
 * "Commits and conflicts"): each round two child processes write at once,
 * an append or a merge (upsert) of fresh ids, and each is killed with
 * SIGKILL at a random commit step (or not at all), sometimes after it
 * rebased over the other.  After every round the latest version must open
 * with every fragment readable, no id may appear twice, every write a child
 * acknowledged (its call returned QV_OK) must be present whole, and a
 * write that was not acknowledged must be present whole or not at all. */
#include <signal.h>
#include <sys/wait.h>

#include "storage/format.h"
#include "storage/storage_test_util.h"

#define ROUNDS 500
#define WRITERS 2
#define MAX_IDS 40

static qv_schema g_schema;

static const char *const steps[] = {"fragment-written", "data-written", "manifest-written", "before-publish",
                                    "published"};
#define N_STEPS (int)(sizeof steps / sizeof steps[0])

static int g_kill_step, g_kill_nth, g_seen;
static void kill_hook(const char *step) {
  if (g_kill_step < N_STEPS && strcmp(step, steps[g_kill_step]) == 0 && ++g_seen == g_kill_nth) raise(SIGKILL);
}

static qv_batch *ids_batch(int64_t from, int64_t n) {
  qv_builder bi, bv;
  qv_error err;
  assert_int_equal(qv_builder_init(&bi, &g_schema.fields[0].type, &err), QV_OK);
  assert_int_equal(qv_builder_init(&bv, &g_schema.fields[1].type, &err), QV_OK);
  for (int64_t i = from; i < from + n; i++) {
    qv_builder_append_int(&bi, i);
    qv_builder_append_int(&bv, i * 3);
  }
  qv_array *cols[2];
  assert_int_equal(qv_builder_finish(&bi, &cols[0], &err), QV_OK);
  assert_int_equal(qv_builder_finish(&bv, &cols[1], &err), QV_OK);
  qv_batch *b;
  assert_int_equal(qv_batch_make(&g_schema, cols, n, &b, &err), QV_OK);
  return b;
}

/* The child's write: ids [from, from + n), as an append or a merge. */
static qv_status child_write(const char *path, int64_t from, int64_t n, bool merge, qv_error *err) {
  qv_batch *b = ids_batch(from, n);
  qv_batch_reader *r = vec_reader_new(&g_schema, &b, 1);
  qv_batch_release(b);
  qv_status st;
  if (merge) {
    static const char *const on[] = {"id"};
    qv_merge_options o = QV_MERGE_OPTIONS_INIT;
    o.on = on;
    o.n_on = 1;
    st = qv_dataset_merge(path, r, &o, NULL, err);
  } else {
    qv_write_options o = QV_WRITE_OPTIONS_INIT;
    o.mode = QV_WRITE_APPEND;
    o.max_rows_per_file = 16; /* several files, so kills land between them */
    o.page_rows = 8;
    st = qv_dataset_write(path, r, &o, NULL, err);
  }
  qv_batch_reader_destroy(r);
  return st;
}

/* count[id]++ over the latest version's live rows, checking v == 3 id. */
static void count_ids(const char *path, unsigned char *count, int64_t cap) {
  qv_dataset *ds;
  qv_error err;
  if (qv_dataset_open(path, 0, &ds, &err) != QV_OK) fail_msg("open: %s", err.message);
  for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
    qv_fragment_reader *r;
    if (qv_fragment_open(ds, f, &r, &err) != QV_OK) fail_msg("fragment %d: %s", f, err.message);
    int64_t rows = qv_fragment_num_rows(r);
    qv_array *a, *v;
    assert_int_equal(qv_fragment_read(r, 0, 0, rows, &a, &err), QV_OK);
    assert_int_equal(qv_fragment_read(r, 1, 0, rows, &v, &err), QV_OK);
    const uint8_t *gone = qv_fragment_deleted(r);
    for (int64_t i = 0; i < rows; i++) {
      if (gone && qv_bit_get(gone, i)) continue;
      int64_t id = ((const int64_t *)qv_array_values(a))[i];
      assert_true(id >= 0 && id < cap);
      assert_int_equal(((const int64_t *)qv_array_values(v))[i], id * 3);
      if (count[id] < 255) count[id]++;
    }
    qv_array_release(a);
    qv_array_release(v);
    qv_fragment_close(r);
  }
  qv_dataset_close(ds);
}

static void test_kill_loop(void **state) {
  (void)state;
  g_schema = (qv_schema)QV_SCHEMA_INIT;
  add_column(&g_schema, "id", qv_datatype_simple(QV_TYPE_INT64));
  add_column(&g_schema, "v", qv_datatype_simple(QV_TYPE_INT64));
  char *dir = make_tmpdir(), *path = join2(dir, "ds");
  const int64_t cap = (int64_t)(ROUNDS + 1) * WRITERS * MAX_IDS;
  qv_error err;
  qv_batch *b = ids_batch(0, 1);
  assert_int_equal(write_batches(path, &g_schema, &b, 1, NULL, NULL, &err), QV_OK);
  qv_batch_release(b);
  unsigned char *count = calloc((size_t)cap, 1);
  /* per write: 1 acknowledged, 0 not; its id range */
  int64_t n_writes = (int64_t)ROUNDS * WRITERS;
  signed char *acked = calloc((size_t)n_writes, 1);
  int64_t *from = calloc((size_t)n_writes, sizeof *from), *len = calloc((size_t)n_writes, sizeof *len);
  uint64_t rng = 12345;
  int kills = 0, acks = 0, conflicts = 0;
  for (int round = 0; round < ROUNDS; round++) {
    pid_t pids[WRITERS];
    int fds[WRITERS][2];
    fflush(NULL);
    for (int w = 0; w < WRITERS; w++) {
      int64_t k = (int64_t)round * WRITERS + w;
      from[k] = (k + 1) * MAX_IDS;
      len[k] = 1 + (int64_t)(rng_next(&rng) % MAX_IDS);
      bool merge = rng_next(&rng) % 3 == 0;
      int step = (int)(rng_next(&rng) % (N_STEPS + 2)); /* N_STEPS, N_STEPS + 1: not killed */
      int nth = 1 + (int)(rng_next(&rng) % 2);          /* the second occurrence: after a rebase or a file */
      assert_int_equal(pipe(fds[w]), 0);
      pids[w] = fork();
      assert_true(pids[w] >= 0);
      if (pids[w] == 0) {
        close(fds[w][0]);
        g_kill_step = step;
        g_kill_nth = nth;
        g_seen = 0;
        qvs_commit_hook = kill_hook;
        qv_error e;
        qv_status st = child_write(path, from[k], len[k], merge, &e);
        char c = st == QV_OK ? 'a' : st == QV_ERR_CONFLICT ? 'c' : 'e';
        if (c == 'e') fprintf(stderr, "round %d writer %d: %s\n", round, w, e.message);
        if (write(fds[w][1], &c, 1) != 1) _exit(5);
        _exit(0);
      }
      close(fds[w][1]);
    }
    for (int w = 0; w < WRITERS; w++) {
      int64_t k = (int64_t)round * WRITERS + w;
      char c = 0;
      ssize_t got = read(fds[w][0], &c, 1);
      close(fds[w][0]);
      int status;
      assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
      if (WIFSIGNALED(status)) {
        assert_int_equal(WTERMSIG(status), SIGKILL);
        kills++;
        continue;
      }
      assert_true(got == 1);
      if (c == 'e') fail_msg("round %d: a write failed with an error other than a conflict", round);
      acked[k] = c == 'a';
      acks += c == 'a';
      conflicts += c == 'c';
    }
    memset(count, 0, (size_t)cap);
    count_ids(path, count, cap);
    for (int64_t k = 0; k < (int64_t)(round + 1) * WRITERS; k++) {
      int present = 0;
      for (int64_t id = from[k]; id < from[k] + len[k]; id++) {
        if (count[id] > 1) fail_msg("round %d: id %lld appears %d times", round, (long long)id, count[id]);
        present += count[id];
      }
      if (acked[k] && present != len[k])
        fail_msg("round %d: acknowledged write %lld has %d of %lld rows", round, (long long)k, present,
                 (long long)len[k]);
      if (present != 0 && present != len[k])
        fail_msg("round %d: write %lld is partly there (%d of %lld rows)", round, (long long)k, present,
                 (long long)len[k]);
    }
  }
  fprintf(stderr, "%d rounds x %d writers: %d acknowledged, %d conflicts, %d killed\n", ROUNDS, WRITERS, acks,
          conflicts, kills);
  assert_true(kills > ROUNDS / 2);
  assert_true(acks > ROUNDS / 2);
  free(count);
  free(acked);
  free(from);
  free(len);
  rm_rf(dir);
  free(dir);
  free(path);
  qv_schema_reset(&g_schema);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kill_loop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
