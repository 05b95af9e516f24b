/* Compaction with indices (src/storage/compact.c): every scan answers the
 * same rows before compaction, after it (the rewritten fragments lose
 * their index files and are scanned in full: no index points at a file
 * that is gone), and after the indices are optimized (rebuilt for the new
 * fragments), with and without the indices; and cleanup afterwards keeps
 * every answer too. */
#include "index/index_test_util.h"
#include "quiver/scan.h"

static char *g_path;

/* The sorted rows of a scan as text (order is not kept across compaction:
 * rewritten rows move after the untouched fragments). */
static int cmp_line(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char *scan_sorted(const char *filter, bool use_index, int64_t *n_rows) {
  qv_scan_options o = QV_SCAN_OPTIONS_INIT;
  const char *cols[] = {"i", "s", "cat", "tags", "f"};
  o.columns = cols;
  o.n_columns = 5;
  o.filter = filter;
  o.use_scalar_index = use_index;
  qv_scanner *sc;
  qv_error err;
  if (qv_scanner_open(g_path, &o, &sc, &err) != QV_OK) fail_msg("%s: %s", filter, err.message);
  char **lines = NULL;
  int64_t n = 0, cap = 0;
  for (;;) {
    qv_batch *b;
    if (qv_scanner_next(sc, &b, &err) != QV_OK) fail_msg("%s: %s", filter, err.message);
    if (!b) break;
    for (int64_t r = 0; r < b->num_rows; r++) {
      char line[2048] = "";
      size_t k = 0;
      for (int32_t c = 0; c < b->schema.n_fields; c++) {
        char cell[256];
        qv_array_format_value(b->columns[c], r, cell, sizeof cell);
        k += (size_t)snprintf(line + k, sizeof line - k, "%s%s", c ? "|" : "", cell);
      }
      if (n == cap) lines = realloc(lines, (size_t)(cap = cap ? cap * 2 : 256) * sizeof *lines);
      lines[n++] = strdup(line);
    }
    qv_batch_release(b);
  }
  qv_scanner_destroy(sc);
  qsort(lines, (size_t)n, sizeof *lines, cmp_line);
  size_t total = 1;
  for (int64_t i = 0; i < n; i++) total += strlen(lines[i]) + 1;
  char *text = malloc(total), *p = text;
  for (int64_t i = 0; i < n; i++) {
    size_t l = strlen(lines[i]);
    memcpy(p, lines[i], l);
    p[l] = '\n';
    p += l + 1;
    free(lines[i]);
  }
  *p = '\0';
  free(lines);
  *n_rows = n;
  return text;
}

static const char *const filters[] = {
    "i BETWEEN -50 AND 50",
    "i = 7",
    "cat = 'c3'",
    "cat IN ('c1', 'c2') AND i > 0",
    "s LIKE '%ab%'",
    "array_has_any(tags, ['t1'])",
    "i < 0 OR cat = 'c5'",
    "NOT (cat = 'c0')",
    "true",
};
#define N_FILTERS (int)(sizeof filters / sizeof filters[0])

/* Every index file names a fragment of the version (storage checks this on
 * read too: here, that the compacted fragments' files are gone). */
static void check_coverage(int32_t want_covered) {
  qv_dataset *ds;
  qv_error err;
  assert_int_equal(qv_dataset_open(g_path, 0, &ds, &err), QV_OK);
  for (int32_t i = 0; i < qv_dataset_num_indices(ds); i++) {
    qv_index_entry e;
    qv_dataset_index(ds, i, &e);
    int32_t covered = 0;
    for (int32_t k = 0; k < e.n_files; k++) {
      bool found = false;
      for (int32_t f = 0; f < qv_dataset_num_fragments(ds); f++) {
        qv_fragment_info fi;
        qv_dataset_fragment(ds, f, &fi);
        found |= fi.id == e.files[k].fragment_id;
      }
      assert_true(found);
      covered++;
    }
    if (want_covered >= 0) assert_int_equal(covered, want_covered);
  }
  qv_dataset_close(ds);
}

static void test_compaction_keeps_answers(void **state) {
  (void)state;
  g_path = make_dir();
  write_random(g_path, 3000, 7, QV_WRITE_CREATE);
  for (int k = 0; k < 6; k++) write_random(g_path, 150, 20 + (uint64_t)k, QV_WRITE_APPEND);
  create_index(g_path, "i", QV_INDEX_BTREE, NULL, 64);
  create_index(g_path, "cat", QV_INDEX_BITMAP, NULL, 4096);
  create_index(g_path, "s", QV_INDEX_NGRAM, NULL, 4096);
  create_index(g_path, "tags", QV_INDEX_LABEL_LIST, NULL, 4096);
  qv_error err;
  int64_t deleted;
  if (qv_dataset_delete_where(g_path, "i % 3 = 0", &deleted, NULL, &err) != QV_OK) fail_msg("%s", err.message);
  char *before[N_FILTERS];
  int64_t n_before[N_FILTERS], n;
  for (int f = 0; f < N_FILTERS; f++) {
    before[f] = scan_sorted(filters[f], true, &n_before[f]);
    char *plain = scan_sorted(filters[f], false, &n);
    assert_string_equal(plain, before[f]);
    free(plain);
  }
  assert_true(n_before[N_FILTERS - 1] > 2000);
  qv_compact_options o = QV_COMPACT_OPTIONS_INIT;
  o.target_rows_per_file = 4000;
  qv_compact_result res;
  if (qv_dataset_compact(g_path, &o, &res, &err) != QV_OK) fail_msg("compact: %s", err.message);
  assert_true(res.fragments_removed >= 7);
  check_coverage(0); /* every fragment was rewritten: no file is left */
  for (int f = 0; f < N_FILTERS; f++)
    for (int use = 0; use < 2; use++) {
      char *t = scan_sorted(filters[f], use, &n);
      if (strcmp(t, before[f]) != 0) fail_msg("after compaction (index %d): %s differs", use, filters[f]);
      free(t);
    }
  int64_t v;
  if (qv_index_optimize(g_path, NULL, &v, &err) != QV_OK) fail_msg("optimize: %s", err.message);
  check_coverage(res.fragments_added);
  for (int f = 0; f < N_FILTERS; f++)
    for (int use = 0; use < 2; use++) {
      char *t = scan_sorted(filters[f], use, &n);
      if (strcmp(t, before[f]) != 0) fail_msg("after optimize (index %d): %s differs", use, filters[f]);
      free(t);
    }
  qv_cleanup_options co = QV_CLEANUP_OPTIONS_INIT;
  co.older_than_ms = 0;
  co.orphan_grace_ms = 0;
  qv_cleanup_result cr;
  if (qv_dataset_cleanup(g_path, &co, &cr, &err) != QV_OK) fail_msg("cleanup: %s", err.message);
  assert_true(cr.versions_removed > 5);
  assert_true(cr.files_removed > 7);
  for (int f = 0; f < N_FILTERS; f++) {
    char *t = scan_sorted(filters[f], true, &n);
    if (strcmp(t, before[f]) != 0) fail_msg("after cleanup: %s differs", filters[f]);
    free(t);
    free(before[f]);
  }
  drop_dir(g_path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_compaction_keeps_answers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
