/* Fuzz target: arbitrary bytes as an Arrow IPC stream or file, read from
 * memory (qv_ipc_read_buffer), for the message-at-a-time path from a FILE
 * (qv_ipc_read_file), and by positioned reads from a path
 * (qv_ipc_read_path, over a memfd, and qv_ipc_read_file over the same
 * file).  Every batch is drained and touched
 * (validated, values formatted) so that a reader handing out inconsistent
 * arrays is caught here, not later in a kernel; and the path must read
 * exactly what memory reads: the same rows, or an error at the same batch
 * with the same status. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fmemopen; the libFuzzer build does not define it for us */
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "quiver/columnar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What a reader yielded: its rows, and how it stopped. */
typedef struct outcome {
  int64_t rows;
  qv_status end;
} outcome;

static outcome drain(qv_batch_reader *r) {
  qv_error err;
  outcome o = {0, QV_OK};
  for (int batches = 0; batches < 1000; batches++) {
    qv_batch *b = NULL;
    if ((o.end = r->next(r, &b, &err)) != QV_OK || !b) break;
    o.rows += b->num_rows;
    for (int32_t c = 0; c < b->schema.n_fields; c++) {
      const qv_array *a = b->columns[c];
      if (qv_array_validate(a, &err) != QV_OK) __builtin_trap(); /* the reader must have validated */
      char buf[256];
      int64_t n = a->length < 64 ? a->length : 64;
      for (int64_t i = 0; i < n; i++) qv_array_format_value(a, i, buf, sizeof buf);
    }
    qv_batch_release(b);
  }
  qv_batch_reader_destroy(r);
  return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  qv_batch_reader *r = NULL;
  qv_error err;
  qv_status opened = qv_ipc_read_buffer(data, (int64_t)size, &r, &err);
  outcome mem = {0, opened};
  if (opened == QV_OK) mem = drain(r);
  int fd = memfd_create("fuzz_ipc", MFD_CLOEXEC);
  if (fd >= 0 && write(fd, data, size) == (ssize_t)size) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    r = NULL;
    opened = qv_ipc_read_path(path, &r, &err);
    outcome disk = {0, opened};
    if (opened == QV_OK) disk = drain(r);
    if (disk.rows != mem.rows || disk.end != mem.end) __builtin_trap();
    /* the same file as a FILE read from its start (stdin redirected from
     * it): the file format goes by positioned reads there too */
    FILE *f = fdopen(dup(fd), "rb");
    if (f && fseek(f, 0, SEEK_SET) == 0) {
      r = NULL;
      opened = qv_ipc_read_file(f, &r, &err);
      outcome redirected = {0, opened};
      if (opened == QV_OK) redirected = drain(r);
      if (size >= 6 && memcmp(data, "ARROW1", 6) == 0 && (redirected.rows != mem.rows || redirected.end != mem.end))
        __builtin_trap();
    }
    if (f) fclose(f);
  }
  if (fd >= 0) close(fd);
  if (size == 0) return 0;
  FILE *f = fmemopen((void *)data, size, "rb");
  if (!f) return 0;
  r = NULL;
  if (qv_ipc_read_file(f, &r, &err) == QV_OK) drain(r);
  fclose(f);
  return 0;
}
