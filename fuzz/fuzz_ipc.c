/* Fuzz target: arbitrary bytes as an Arrow IPC stream or file, read from
 * memory (qv_ipc_read_buffer) and, for the message-at-a-time path, from a
 * FILE (qv_ipc_read_file).  Every batch is drained and touched (validated,
 * values formatted) so that a reader handing out inconsistent arrays is
 * caught here, not later in a kernel. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fmemopen; the libFuzzer build does not define it for us */
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "quiver/columnar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void drain(qv_batch_reader *r) {
  qv_error err;
  for (int batches = 0; batches < 1000; batches++) {
    qv_batch *b = NULL;
    if (r->next(r, &b, &err) != QV_OK || !b) break;
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
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  qv_batch_reader *r = NULL;
  qv_error err;
  if (qv_ipc_read_buffer(data, (int64_t)size, &r, &err) == QV_OK) drain(r);
  if (size == 0) return 0;
  FILE *f = fmemopen((void *)data, size, "rb");
  if (!f) return 0;
  r = NULL;
  if (qv_ipc_read_file(f, &r, &err) == QV_OK) drain(r);
  fclose(f);
  return 0;
}
