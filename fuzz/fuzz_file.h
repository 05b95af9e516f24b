/* The fuzz input as an open file descriptor (the readers under test take a
 * file): an anonymous memory file, or a temporary file where memfd_create
 * is missing.  -1 when neither works.  Needs _GNU_SOURCE before any
 * system header. */
#ifndef QUIVER_FUZZ_FUZZ_FILE_H
#define QUIVER_FUZZ_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static inline int fuzz_file_of(const char *name, const uint8_t *data, size_t size) {
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) {
    FILE *f = tmpfile();
    if (!f) return -1;
    fd = dup(fileno(f));
    fclose(f);
  }
  if (fd < 0) return -1;
  size_t done = 0;
  while (done < size) {
    ssize_t w = write(fd, data + done, size - done);
    if (w <= 0) {
      close(fd);
      return -1;
    }
    done += (size_t)w;
  }
  return fd;
}

#endif
