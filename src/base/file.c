/* File-system helpers (base/wire.h): whole reads and writes that
 * retry short transfers and EINTR, durable creation (fsync of the file and
 * of its directory), random names. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/wire.h"

char *qvb_path_join(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  char *p = qv_malloc(na + nb + 2);
  if (!p) return NULL;
  memcpy(p, a, na);
  p[na] = '/';
  memcpy(p + na + 1, b, nb + 1);
  return p;
}

qv_status qvb_file_pread_full(int fd, void *buf, int64_t n, int64_t off, const char *name, qv_error *err) {
  uint8_t *p = buf;
  while (n > 0) {
    ssize_t got = pread(fd, p, (size_t)n, (off_t)off);
    if (got < 0) {
      if (errno == EINTR) continue;
      return qv_error_set(err, QV_ERR_IO, "%s: read of %lld bytes at offset %lld failed: %s", name, (long long)n,
                          (long long)off, strerror(errno));
    }
    if (got == 0)
      return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %lld: file ends %lld bytes early", name, (long long)off,
                          (long long)n);
    p += got;
    n -= got;
    off += got;
  }
  return QV_OK;
}

qv_status qvb_file_write_full(int fd, const void *buf, int64_t n, const char *name, qv_error *err) {
  const uint8_t *p = buf;
  while (n > 0) {
    ssize_t put = write(fd, p, (size_t)n);
    if (put < 0) {
      if (errno == EINTR) continue;
      return qv_error_set(err, QV_ERR_IO, "%s: write failed: %s", name, strerror(errno));
    }
    p += put;
    n -= put;
  }
  return QV_OK;
}

qv_status qvb_file_read(const char *path, const char *name, int64_t max_size, uint8_t **out, int64_t *size,
                        qv_error *err) {
  *out = NULL;
  *size = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    qv_status code = errno == ENOENT ? QV_ERR_NOT_FOUND : QV_ERR_IO;
    return qv_error_set(err, code, "%s: cannot open: %s", name, strerror(errno));
  }
  qv_status st = QV_OK;
  uint8_t *buf = NULL;
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    st = qv_error_set(err, QV_ERR_IO, "%s: cannot stat: %s", name, strerror(errno));
    goto cleanup;
  }
  if (!S_ISREG(sb.st_mode)) {
    st = qv_error_set(err, QV_ERR_CORRUPT, "%s: not a regular file", name);
    goto cleanup;
  }
  if ((int64_t)sb.st_size > max_size) {
    st = qv_error_set(err, QV_ERR_CORRUPT, "%s: %lld bytes is more than the %lld a file of this kind may have", name,
                      (long long)sb.st_size, (long long)max_size);
    goto cleanup;
  }
  buf = qv_malloc((size_t)sb.st_size + 1);
  if (!buf) {
    st = qv_error_nomem(err, name);
    goto cleanup;
  }
  st = qvb_file_pread_full(fd, buf, (int64_t)sb.st_size, 0, name, err);
  if (st != QV_OK) goto cleanup;
  *out = buf;
  *size = (int64_t)sb.st_size;
  buf = NULL;
cleanup:
  qv_free(buf);
  close(fd);
  return st;
}

qv_status qvb_file_write_new(const char *path, const char *name, const void *data, int64_t size, qv_error *err) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    qv_status code = errno == EEXIST ? QV_ERR_EXISTS : QV_ERR_IO;
    return qv_error_set(err, code, "%s: cannot create: %s", name, strerror(errno));
  }
  qv_status st = qvb_file_write_full(fd, data, size, name, err);
  if (st == QV_OK && fsync(fd) != 0) st = qv_error_set(err, QV_ERR_IO, "%s: fsync failed: %s", name, strerror(errno));
  if (close(fd) != 0 && st == QV_OK) st = qv_error_set(err, QV_ERR_IO, "%s: close failed: %s", name, strerror(errno));
  if (st != QV_OK) unlink(path);
  return st;
}

qv_status qvb_file_fsync_dir(const char *dir, qv_error *err) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return qv_error_set(err, QV_ERR_IO, "%s: cannot open directory: %s", dir, strerror(errno));
  qv_status st = QV_OK;
  /* Some file systems refuse fsync on directories; they have nothing to sync. */
  if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
    st = qv_error_set(err, QV_ERR_IO, "%s: fsync failed: %s", dir, strerror(errno));
  close(fd);
  return st;
}

qv_status qvb_file_mkdir(const char *path, qv_error *err) {
  if (mkdir(path, 0755) == 0) return QV_OK;
  if (errno == EEXIST) {
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) return QV_OK;
    return qv_error_set(err, QV_ERR_EXISTS, "%s: exists and is not a directory", path);
  }
  return qv_error_set(err, QV_ERR_IO, "%s: cannot create directory: %s", path, strerror(errno));
}

qv_status qvb_random_hex(char *out, int n, qv_error *err) {
  uint8_t bytes[64];
  if (n > (int)sizeof bytes) n = (int)sizeof bytes;
  int64_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(bytes + got, (size_t)(n - got), 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      return qv_error_set(err, QV_ERR_IO, "cannot get random bytes: %s", strerror(errno));
    }
    got += r;
  }
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < n; i++) {
    out[2 * i] = hex[bytes[i] >> 4];
    out[2 * i + 1] = hex[bytes[i] & 15];
  }
  out[2 * n] = '\0';
  return QV_OK;
}
