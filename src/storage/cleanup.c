/* qv_dataset_cleanup: removes old versions and the files only they named,
 * and orphaned files (written by a writer that crashed or lost a conflict
 * and was killed before it removed them).
 *
 * Order, so that a cleanup killed at any point leaves every kept version
 * intact: first every manifest that stays is read and the files they name
 * collected; then the manifests of the versions removed are unlinked,
 * oldest first; then the files no kept manifest names.  A file named only
 * by removed versions is removed at once; a file no manifest names at all
 * (an orphan) only once it is older than orphan_grace_ms, since it may
 * belong to a writer that has not committed yet. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/manifest.h"

typedef struct name_set {
  char **v;
  int64_t n, cap;
  bool sorted;
} name_set;

static qv_status set_add(name_set *s, const char *name, qv_error *err) {
  if (s->n == s->cap) {
    int64_t ncap = s->cap ? s->cap * 2 : 64;
    char **nv = qv_realloc(s->v, (size_t)ncap * sizeof *nv);
    if (!nv) return qv_error_nomem(err, "cleanup");
    s->v = nv;
    s->cap = ncap;
  }
  if (!(s->v[s->n] = qv_strdup(name))) return qv_error_nomem(err, "cleanup");
  s->n++;
  s->sorted = false;
  return QV_OK;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool set_has(name_set *s, const char *name) {
  if (!s->sorted) {
    if (s->n) qsort(s->v, (size_t)s->n, sizeof *s->v, cmp_str);
    s->sorted = true;
  }
  return s->n && bsearch(&name, s->v, (size_t)s->n, sizeof *s->v, cmp_str) != NULL;
}

static void set_reset(name_set *s) {
  for (int64_t i = 0; i < s->n; i++) qv_free(s->v[i]);
  qv_free(s->v);
  memset(s, 0, sizeof *s);
}

static qv_status add_files(name_set *s, const qvs_manifest *m, qv_error *err) {
  for (int32_t i = 0; i < m->n_fragments; i++) {
    QV_RETURN_NOT_OK(set_add(s, m->fragments[i].data_file, err));
    if (m->fragments[i].deletion_file) QV_RETURN_NOT_OK(set_add(s, m->fragments[i].deletion_file, err));
  }
  for (int32_t i = 0; i < m->n_indices; i++)
    for (int32_t k = 0; k < m->indices[i].n_files; k++) QV_RETURN_NOT_OK(set_add(s, m->indices[i].files[k].path, err));
  return QV_OK;
}

static bool is_tagged(const qv_tag *tags, int64_t n, int64_t version) {
  for (int64_t i = 0; i < n; i++)
    if (tags[i].version == version) return true;
  return false;
}

/* Removes the file rel when the rules allow (see the top of the file). */
static void consider(const char *path, const char *rel, name_set *keep, name_set *gone, int64_t now_ms,
                     const qv_cleanup_options *o, qv_cleanup_result *res) {
  if (set_has(keep, rel)) return;
  char *full = qvb_path_join(path, rel);
  struct stat sb;
  if (!full || stat(full, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    qv_free(full);
    return;
  }
  int64_t mtime_ms = (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
  bool orphan = !set_has(gone, rel);
  if (orphan && now_ms - mtime_ms < o->orphan_grace_ms) {
    qv_free(full);
    return;
  }
  if (o->dry_run || unlink(full) == 0) {
    res->files_removed++;
    res->bytes_removed += (int64_t)sb.st_size;
    if (orphan) res->orphans_removed++;
  }
  qv_free(full);
}

/* Every file of the shapes storage and the index layer write, in the
 * three directories (other names are left alone), and temp manifests. */
static qv_status sweep(const char *path, name_set *keep, name_set *gone, int64_t now_ms, const qv_cleanup_options *o,
                       qv_cleanup_result *res, qv_error *err) {
  static const char *const dirs[] = {"data", "_deletions", "_indices", "_versions", "_tags"};
  for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
    char *dir = qvb_path_join(path, dirs[k]);
    if (!dir) return qv_error_nomem(err, "cleanup");
    DIR *d = opendir(dir);
    qv_free(dir);
    if (!d) continue;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      char rel[512];
      snprintf(rel, sizeof rel, "%s/%s", dirs[k], e->d_name);
      bool ours = k == 0   ? qvs_valid_data_file_name(rel)
                  : k == 1 ? qvs_valid_deletion_file_name(rel)
                  : k == 2 ? qvs_valid_index_file_name(rel)
                           : strncmp(e->d_name, ".tmp-", 5) == 0; /* temp manifests and tags */
      if (ours) consider(path, rel, keep, gone, now_ms, o, res);
    }
    closedir(d);
  }
  return QV_OK;
}

qv_status qv_dataset_cleanup(const char *path, const qv_cleanup_options *opts, qv_cleanup_result *out, qv_error *err) {
  qv_cleanup_options defaults = QV_CLEANUP_OPTIONS_INIT;
  if (!opts) opts = &defaults;
  if (out) memset(out, 0, sizeof *out);
  if (!path) return qv_error_set(err, QV_ERR_INVALID, "cleanup: dataset path is NULL");
  if (opts->version != QV_CLEANUP_OPTIONS_VERSION)
    return qv_error_set(err, QV_ERR_INVALID, "cleanup options: version %d is not %d", opts->version,
                        QV_CLEANUP_OPTIONS_VERSION);
  if (opts->keep_versions < 0 || opts->orphan_grace_ms < 0)
    return qv_error_set(err, QV_ERR_INVALID, "cleanup: keep_versions and orphan_grace_ms must not be negative");
  int64_t *v = NULL, n = 0, now = qvs_now_ms();
  QV_RETURN_NOT_OK(qvs_list_versions(path, &v, &n, err));
  qv_tag *tags = NULL;
  int64_t n_tags = 0;
  name_set keep = {0}, gone = {0};
  bool *remove_v = NULL;
  bool damaged_kept = false;
  qv_cleanup_result res = {0};
  qv_status st = QV_OK;
  if (n == 0) {
    st = qv_error_set(err, QV_ERR_NOT_FOUND, "%s: no dataset here (no _versions/*.manifest)", path);
    goto cleanup;
  }
  if ((st = qv_dataset_tags(path, &tags, &n_tags, err)) != QV_OK) goto cleanup;
  if (!(remove_v = qv_calloc((size_t)n, sizeof *remove_v))) {
    st = qv_error_nomem(err, "cleanup");
    goto cleanup;
  }
  for (int64_t i = 0; i < n && st == QV_OK; i++) {
    qvs_manifest m;
    qv_error why = {0};
    qv_status rst = qvs_manifest_read(path, v[i], &m, &why);
    if (rst == QV_ERR_NOMEM) {
      st = qv_error_nomem(err, "cleanup");
      break;
    }
    bool by_age = opts->older_than_ms >= 0 && rst == QV_OK && now - m.timestamp_ms > opts->older_than_ms;
    bool by_count = opts->keep_versions > 0 && i < n - opts->keep_versions;
    /* never the latest, a tagged one, or one that does not read (what it
     * names is unknown, and history is not rewritten around damage) */
    remove_v[i] = rst == QV_OK && i < n - 1 && !is_tagged(tags, n_tags, v[i]) && (by_age || by_count);
    if (rst != QV_OK) damaged_kept = true;
    else st = add_files(remove_v[i] ? &gone : &keep, &m, err);
    qvs_manifest_reset(&m);
  }
  if (st != QV_OK) goto cleanup;
  for (int64_t i = 0; i < n; i++) {
    if (!remove_v[i]) continue;
    char rel[64];
    snprintf(rel, sizeof rel, "_versions/%lld.manifest", (long long)v[i]);
    char *full = qvb_path_join(path, rel);
    if (!full) {
      st = qv_error_nomem(err, "cleanup");
      goto cleanup;
    }
    if (!opts->dry_run && unlink(full) != 0) {
      st = qv_error_set(err, QV_ERR_IO, "%s/%s: cannot remove", path, rel);
      qv_free(full);
      goto cleanup;
    }
    qv_free(full);
    res.versions_removed++;
  }
  if (!opts->dry_run && res.versions_removed) {
    char *dir = qvb_path_join(path, "_versions");
    if (!dir) {
      st = qv_error_nomem(err, "cleanup");
      goto cleanup;
    }
    st = qvb_file_fsync_dir(dir, err);
    qv_free(dir);
    if (st != QV_OK) goto cleanup;
  }
  /* A damaged kept version names files no one can list: leave every file. */
  res.files_kept_for_damaged = damaged_kept;
  if (!damaged_kept) st = sweep(path, &keep, &gone, now, opts, &res, err);
cleanup:
  if (st == QV_OK && out) *out = res;
  set_reset(&keep);
  set_reset(&gone);
  qv_free(remove_v);
  qv_free(tags);
  qv_free(v);
  return st;
}
