/* Versions and commits.  A version exists exactly when
 * _versions/<n>.manifest exists; it is published by link()ing a fully
 * written and fsynced temp file to that name, which fails when the name is
 * taken, so two writers racing for version n cannot both win and a reader
 * never sees a partial manifest. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/wire.h"
#include "storage/format.h"
#include "storage/manifest.h"

/* The storage layer's test hooks (storage/format.h). */
void (*qvs_commit_hook)(const char *step) = NULL;
bool qvs_verify_checksums = true;

void qvs_commit_step(const char *step) {
  if (qvs_commit_hook) qvs_commit_hook(step);
}

int64_t qvs_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "<n>.manifest" with n a positive decimal without leading zeros. */
static bool parse_version_name(const char *s, int64_t *out) {
  int64_t v = 0;
  int digits = 0;
  if (*s == '0') return false;
  for (; *s >= '0' && *s <= '9'; s++, digits++) {
    if (digits >= 18) return false;
    v = v * 10 + (*s - '0');
  }
  if (digits == 0 || strcmp(s, ".manifest") != 0) return false;
  *out = v;
  return true;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

qv_status qvs_list_versions(const char *path, int64_t **out, int64_t *n, qv_error *err) {
  *out = NULL;
  *n = 0;
  char *dir = qvb_path_join(path, "_versions");
  if (!dir) return qv_error_nomem(err, NULL);
  DIR *d = opendir(dir);
  if (!d) {
    int e = errno;
    qv_free(dir);
    if (e == ENOENT || e == ENOTDIR) return QV_OK;
    return qv_error_set(err, QV_ERR_IO, "%s/_versions: cannot list: %s", path, strerror(e));
  }
  qv_status st = QV_OK;
  int64_t *v = NULL, count = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    int64_t ver;
    if (!parse_version_name(e->d_name, &ver)) continue;
    if (count == cap) {
      int64_t ncap = cap ? cap * 2 : 16;
      int64_t *nv = qv_realloc(v, (size_t)ncap * sizeof *nv);
      if (!nv) {
        st = qv_error_nomem(err, NULL);
        goto cleanup;
      }
      v = nv;
      cap = ncap;
    }
    v[count++] = ver;
  }
  if (count) qsort(v, (size_t)count, sizeof *v, cmp_i64);
  *out = v;
  *n = count;
  v = NULL;
cleanup:
  closedir(d);
  qv_free(dir);
  qv_free(v);
  return st;
}

qv_status qvs_latest_version(const char *path, int64_t *out, qv_error *err) {
  int64_t *v = NULL, n = 0;
  QV_RETURN_NOT_OK(qvs_list_versions(path, &v, &n, err));
  *out = n ? v[n - 1] : 0;
  qv_free(v);
  return QV_OK;
}

qv_status qvs_ensure_layout(const char *path, qv_error *err) {
  static const char *const subdirs[] = {"_versions", "data", "_deletions", "_indices"};
  struct stat sb;
  bool created_root = stat(path, &sb) != 0;
  QV_RETURN_NOT_OK(qvb_file_mkdir(path, err));
  bool created = false;
  for (size_t i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++) {
    char *p = qvb_path_join(path, subdirs[i]);
    if (!p) return qv_error_nomem(err, NULL);
    if (stat(p, &sb) != 0) created = true;
    qv_status st = qvb_file_mkdir(p, err);
    qv_free(p);
    QV_RETURN_NOT_OK(st);
  }
  /* New directory entries must be durable before a manifest refers to
   * what is inside them. */
  if (created) QV_RETURN_NOT_OK(qvb_file_fsync_dir(path, err));
  if (created_root) {
    char *parent = qv_strdup(path);
    if (!parent) return qv_error_nomem(err, NULL);
    char *slash = strrchr(parent, '/');
    qv_status st = QV_OK;
    if (!slash) st = qvb_file_fsync_dir(".", err);
    else if (slash == parent) st = qvb_file_fsync_dir("/", err);
    else {
      *slash = '\0';
      st = qvb_file_fsync_dir(parent, err);
    }
    qv_free(parent);
    QV_RETURN_NOT_OK(st);
  }
  return QV_OK;
}

/* link() refuses to replace; file systems without hard links get the same
 * guarantee from renameat2(RENAME_NOREPLACE). */
static int publish_noreplace(const char *tmp, const char *final) {
  if (link(tmp, final) == 0) return 0;
  if (errno != EPERM && errno != ENOSYS && errno != EOPNOTSUPP) return -1;
#ifdef RENAME_NOREPLACE
  return renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE);
#else
  return -1;
#endif
}

qv_status qvs_publish_manifest(const char *path, const qvs_manifest *m, qv_error *err) {
  qv_buffer bytes = QV_BUFFER_INIT;
  char *dir = NULL, *tmp = NULL, *final = NULL;
  char name[64], tmpname[64], hex[17];
  bool tmp_written = false;
  qv_status st = qvs_manifest_encode(m, &bytes, err);
  if (st != QV_OK) goto cleanup;
  st = qvb_random_hex(hex, 8, err);
  if (st != QV_OK) goto cleanup;
  snprintf(name, sizeof name, "_versions/%lld.manifest", (long long)m->version);
  snprintf(tmpname, sizeof tmpname, "_versions/.tmp-%s.manifest", hex);
  dir = qvb_path_join(path, "_versions");
  tmp = qvb_path_join(path, tmpname);
  final = qvb_path_join(path, name);
  if (!dir || !tmp || !final) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  st = qvb_file_write_new(tmp, tmpname, bytes.data, bytes.size, err);
  if (st != QV_OK) goto cleanup;
  tmp_written = true;
  qvs_commit_step("manifest-written");
  qvs_commit_step("before-publish");
  if (publish_noreplace(tmp, final) != 0) {
    if (errno == EEXIST)
      st = qv_error_set(err, QV_ERR_CONFLICT, "%s: version %lld was committed by another writer first", path,
                        (long long)m->version);
    else st = qv_error_set(err, QV_ERR_IO, "%s: cannot publish: %s", name, strerror(errno));
    goto cleanup;
  }
  qvs_commit_step("published");
  unlink(tmp); /* fails harmlessly after the renameat2 path */
  tmp_written = false;
  st = qvb_file_fsync_dir(dir, err);
  if (st != QV_OK) {
    /* Not durable: take it back rather than report a commit that a crash
     * could lose. */
    unlink(final);
    goto cleanup;
  }
cleanup:
  if (tmp_written) unlink(tmp);
  qv_buffer_reset(&bytes);
  qv_free(dir);
  qv_free(tmp);
  qv_free(final);
  return st;
}

/* ---- a damaged latest version ----------------------------------------------
 *
 * A version whose manifest does not read cannot be the base of a commit
 * (its fragments are unknown), and it must not be replaced (history is
 * never rewritten).  So everything that reads or extends the latest
 * version refuses, naming the damaged version and the way back: a restore
 * of the newest readable version (qv_dataset_restore), which commits above
 * the damaged one and leaves its file as it is. */

/* The newest version below `below` whose manifest reads; 0 when none does
 * (or when listing fails: the caller is already reporting an error). */
static int64_t newest_readable_below(const char *path, int64_t below) {
  int64_t *v = NULL, n = 0, found = 0;
  if (qvs_list_versions(path, &v, &n, NULL) != QV_OK) return 0;
  for (int64_t i = n - 1; i >= 0 && !found; i--) {
    if (v[i] >= below) continue;
    qvs_manifest m;
    if (qvs_manifest_read(path, v[i], &m, NULL) == QV_OK) found = v[i];
    qvs_manifest_reset(&m);
  }
  qv_free(v);
  return found;
}

qv_status qvs_damaged_latest(const char *path, int64_t latest, const char *lead, qv_status code, const char *why,
                             qv_error *err) {
  int64_t back = newest_readable_below(path, latest);
  if (back > 0)
    return qv_error_set(err, code,
                        "%s: %sversion %lld is damaged (%.600s); restore an earlier one with "
                        "'quiver restore %s --version %lld'",
                        path, lead, (long long)latest, why, path, (long long)back);
  return qv_error_set(err, code, "%s: %sversion %lld is damaged (%.600s), and no earlier version is readable", path,
                      lead, (long long)latest, why);
}

qv_status qvs_manifest_read_latest(const char *path, int64_t latest, qvs_manifest *out, qv_error *err) {
  qv_error why = {0};
  qv_status st = qvs_manifest_read(path, latest, out, &why);
  if (st == QV_OK) return QV_OK;
  if (st == QV_ERR_NOMEM) return qv_error_nomem(err, NULL);
  return qvs_damaged_latest(path, latest, "the latest ", st, why.message, err);
}
