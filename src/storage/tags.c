/* Tags: names for versions that cleanup keeps.  A tag is the file
 * _tags/<name>.tag holding the version number in decimal and a newline,
 * created like a manifest (temp file, fsync, link that never replaces), so
 * two writers creating one tag cannot both win. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/wire.h"
#include "storage/manifest.h"

static qv_status tag_path(const char *path, const char *name, char **out, qv_error *err) {
  if (!name || !qvs_valid_index_name(name))
    return qv_error_set(err, QV_ERR_INVALID, "tag name \"%s\" is not 1..%d of [A-Za-z0-9_.-]", name ? name : "",
                        QVS_MAX_INDEX_NAME);
  char rel[96];
  snprintf(rel, sizeof rel, "_tags/%s.tag", name);
  if (!(*out = qvb_path_join(path, rel))) return qv_error_nomem(err, NULL);
  return QV_OK;
}

qv_status qv_dataset_tag(const char *path, const char *name, int64_t version, qv_error *err) {
  if (!path) return qv_error_set(err, QV_ERR_INVALID, "tag: dataset path is NULL");
  char *final = NULL, *tmp = NULL, *dir = NULL;
  QV_RETURN_NOT_OK(tag_path(path, name, &final, err));
  qvs_manifest m;
  qv_error why = {0};
  qv_status st = qvs_manifest_read(path, version, &m, &why);
  qvs_manifest_reset(&m);
  if (st != QV_OK) {
    if (st == QV_ERR_NOMEM) st = qv_error_nomem(err, NULL);
    else if (st == QV_ERR_NOT_FOUND)
      st = qv_error_set(err, st, "%s: cannot tag version %lld: it does not exist", path, (long long)version);
    else
      st = qv_error_set(err, st, "%s: cannot tag version %lld: it is damaged (%.800s)", path, (long long)version,
                        why.message);
    goto cleanup;
  }
  char hex[17], body[32], tmprel[64];
  if ((st = qvb_random_hex(hex, 8, err)) != QV_OK) goto cleanup;
  snprintf(tmprel, sizeof tmprel, "_tags/.tmp-%s.tag", hex);
  int len = snprintf(body, sizeof body, "%lld\n", (long long)version);
  if (!(dir = qvb_path_join(path, "_tags")) || !(tmp = qvb_path_join(path, tmprel))) {
    st = qv_error_nomem(err, NULL);
    goto cleanup;
  }
  if ((st = qvb_file_mkdir(dir, err)) != QV_OK) goto cleanup;
  if ((st = qvb_file_write_new(tmp, tmprel, body, len, err)) != QV_OK) goto cleanup;
  if (link(tmp, final) != 0) {
    st = errno == EEXIST ? qv_error_set(err, QV_ERR_EXISTS, "%s: a tag named `%s` exists", path, name)
                         : qv_error_set(err, QV_ERR_IO, "_tags/%s.tag: cannot create: %s", name, strerror(errno));
    unlink(tmp);
    goto cleanup;
  }
  unlink(tmp);
  st = qvb_file_fsync_dir(dir, err);
cleanup:
  qv_free(final);
  qv_free(tmp);
  qv_free(dir);
  return st;
}

qv_status qv_dataset_untag(const char *path, const char *name, qv_error *err) {
  if (!path) return qv_error_set(err, QV_ERR_INVALID, "untag: dataset path is NULL");
  char *final = NULL;
  QV_RETURN_NOT_OK(tag_path(path, name, &final, err));
  qv_status st = QV_OK;
  if (unlink(final) != 0)
    st = errno == ENOENT ? qv_error_set(err, QV_ERR_NOT_FOUND, "%s: no tag named `%s`", path, name)
                         : qv_error_set(err, QV_ERR_IO, "_tags/%s.tag: cannot remove: %s", name, strerror(errno));
  qv_free(final);
  return st;
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const qv_tag *)a)->name, ((const qv_tag *)b)->name);
}

qv_status qv_dataset_tags(const char *path, qv_tag **out, int64_t *count, qv_error *err) {
  *out = NULL;
  *count = 0;
  if (!path) return qv_error_set(err, QV_ERR_INVALID, "tags: dataset path is NULL");
  char *dir = qvb_path_join(path, "_tags");
  if (!dir) return qv_error_nomem(err, NULL);
  DIR *d = opendir(dir);
  if (!d) {
    int e = errno;
    qv_free(dir);
    if (e == ENOENT) return QV_OK;
    return qv_error_set(err, QV_ERR_IO, "%s/_tags: cannot list: %s", path, strerror(e));
  }
  qv_tag *v = NULL;
  int64_t n = 0, cap = 0;
  qv_status st = QV_OK;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && st == QV_OK) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".tag") != 0 || len - 4 > QVS_MAX_INDEX_NAME) continue;
    char name[QVS_MAX_INDEX_NAME + 1];
    memcpy(name, e->d_name, len - 4);
    name[len - 4] = '\0';
    if (!qvs_valid_index_name(name) || name[0] == '.') continue;
    char rel[96], *full = NULL;
    snprintf(rel, sizeof rel, "_tags/%s.tag", name);
    uint8_t *data = NULL;
    int64_t size = 0;
    if (!(full = qvb_path_join(path, rel))) {
      st = qv_error_nomem(err, NULL);
      break;
    }
    st = qvb_file_read(full, rel, 64, &data, &size, err);
    qv_free(full);
    if (st != QV_OK) break;
    char text[32] = "";
    memcpy(text, data, (size_t)(size < 31 ? size : 31));
    qv_free(data);
    char *end = NULL;
    long long ver = strtoll(text, &end, 10);
    if (ver < 1 || !end || *end != '\n') {
      st = qv_error_set(err, QV_ERR_CORRUPT, "%s/%s: not a version number", path, rel);
      break;
    }
    if (n == cap) {
      int64_t ncap = cap ? cap * 2 : 8;
      qv_tag *nv = qv_realloc(v, (size_t)ncap * sizeof *nv);
      if (!nv) {
        st = qv_error_nomem(err, NULL);
        break;
      }
      v = nv;
      cap = ncap;
    }
    snprintf(v[n].name, sizeof v[n].name, "%s", name);
    v[n].version = ver;
    n++;
  }
  closedir(d);
  qv_free(dir);
  if (st != QV_OK) {
    qv_free(v);
    return st;
  }
  if (n) qsort(v, (size_t)n, sizeof *v, by_name);
  *out = v;
  *count = n;
  return QV_OK;
}
