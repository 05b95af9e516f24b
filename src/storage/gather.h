/* Building flat arrays row by row: what a take, a read across pages and
 * the writer's pages that span batches fill. */
#ifndef QUIVER_STORAGE_GATHER_H
#define QUIVER_STORAGE_GATHER_H

#include "quiver/columnar.h"

/* ---- building arrays (gather.c) ------------------------------------------- */

/* Accumulates rows of a flat column (not list/struct/fixed_size_list) into
 * new buffers: the output of take, of reads across pages, and the writer's
 * pages that span batches. */
typedef struct qvs_acc {
  const qv_datatype *type;
  int width; /* bytes per value; 0 bool; -1 string/binary; -2 null */
  int64_t cap, pos, null_count;
  qv_bytes *validity; /* allocated on the first null, bits before it set */
  qv_bytes *values;   /* values, bits, or int32 offsets (cap + 1) */
  qv_buffer data;     /* string bytes */
} qvs_acc;

qv_status qvs_acc_init(qvs_acc *acc, const qv_datatype *type, int64_t cap, qv_error *err);
void qvs_acc_reset(qvs_acc *acc);
/* Appends a null (validity allocated on demand); values left zero. */
qv_status qvs_acc_null(qvs_acc *acc, qv_error *err);
/* Appends rows rows[0..n) of a (NULL rows: the range [start, start+n)). */
qv_status qvs_acc_append(qvs_acc *acc, const qv_array *a, const uint32_t *rows, int64_t start, int64_t n,
                         qv_error *err);
/* Appends string bytes (the slot is valid). */
qv_status qvs_acc_bytes(qvs_acc *acc, const uint8_t *p, int64_t len, qv_error *err);
/* Appends the len string bytes already written at data.data + data.size
 * (into room qvs_acc_reserve_bytes made). */
void qvs_acc_bytes_written(qvs_acc *acc, int64_t len);
/* Room for n more string bytes, not zeroed (they are about to be written). */
qv_status qvs_acc_reserve_bytes(qvs_acc *acc, int64_t n, qv_error *err);
qv_status qvs_acc_finish(qvs_acc *acc, qv_array **out, qv_error *err);
static inline bool qvs_is_nested(qv_type_id id) {
  return id == QV_TYPE_LIST || id == QV_TYPE_STRUCT || id == QV_TYPE_FIXED_SIZE_LIST;
}

#endif
