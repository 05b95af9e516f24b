/* Internals shared by the exec layer's files: the operator interface every
 * operator implements, the context, memory accounting, and the key
 * encoding and hash table the hash operators share. */
#ifndef QUIVER_EXEC_EXEC_INT_H
#define QUIVER_EXEC_EXEC_INT_H

#include <stdatomic.h>

#include "base/text.h"
#include "quiver/exec.h"

struct qv_exec_ctx {
  int64_t memory_limit; /* resolved: > 0 */
  int threads;          /* resolved: >= 1 */
  int64_t batch_size;
  const volatile int *cancel; /* nullable */
  atomic_int_fast64_t held, peak;
  atomic_int refcount;
};

/* The operator interface.  next is called only after open succeeded and
 * until it yields NULL or fails; close releases the state open and next
 * built (called once, at the end or on destroy); free releases what the
 * constructor made.  explain appends the arguments after "Name: ". */
typedef struct qvx_op_vt {
  const char *name;
  qv_status (*open)(qv_exec_op *op, qv_error *err); /* nullable */
  qv_status (*next)(qv_exec_op *op, qv_batch **out, qv_error *err);
  void (*close)(qv_exec_op *op); /* nullable */
  void (*free)(qv_exec_op *op);  /* nullable */
  void (*explain)(const qv_exec_op *op, qvb_text *t);
  /* nullable: the operator's own counters, appended inside analyze's
   * metrics=[...] as ", name=value..." */
  void (*metrics)(const qv_exec_op *op, qvb_text *t);
} qvx_op_vt;

struct qv_exec_op {
  const qvx_op_vt *vt;
  qv_exec_ctx *ctx;
  qv_schema schema;
  qv_exec_op **children;
  int32_t n_children;
  int64_t estimate_rows; /* -1: unknown */
  bool opened, done, closed;
  qv_status failed; /* sticky */
  char failed_msg[1024];
  /* counters */
  int64_t rows_out, batches;
  double seconds; /* inclusive of the children's */
  int64_t held, peak;
  void *state;
};

/* A new operator with vt, ctx (retained), children and state (taken).  On
 * failure the children are destroyed and the state freed through vt->free.
 * The schema is left for the caller. */
qv_status qvx_op_new(const qvx_op_vt *vt, qv_exec_ctx *ctx, qv_exec_op **children, int32_t n_children, void *state,
                     qv_exec_op **out, qv_error *err);

/* QV_ERR_CANCELLED "NAME: cancelled" once the caller set the plan's cancel
 * flag (qv_exec_options.cancel); QV_OK otherwise.  qv_exec_next checks it
 * before every batch; operators that loop long inside one call check it
 * there too. */
static inline qv_status qvx_check_cancel(const qv_exec_op *op, qv_error *err) {
  const volatile int *c = op->ctx->cancel;
  if (!c || !*c) return QV_OK;
  return qv_error_set(err, QV_ERR_CANCELLED, "%s: cancelled", op->vt->name);
}

/* Counts bytes (may be negative: released) against the context's limit;
 * on passing it fails with "NAME: WHAT passed the memory limit of N MiB
 * (set qv_exec_options.memory_limit)" and counts nothing. */
qv_status qvx_reserve(qv_exec_op *op, int64_t bytes, const char *what, qv_error *err);
/* "64 MiB", "3 KiB", "1000 bytes": the limit as the errors name it. */
void qvx_format_bytes(int64_t n, char *buf, size_t size);
/* Releases everything op holds. */
void qvx_release_all(qv_exec_op *op);

/* Bytes an array's / batch's buffers take (shared buffers counted each time). */
int64_t qvx_array_bytes(const qv_array *a);
int64_t qvx_batch_bytes(const qv_batch *b);

/* Binds a copy of e against schema, naming the operator in the error. */
qv_status qvx_bind_copy(const char *opname, const qv_expr *e, const qv_schema *schema, qv_expr **out, qv_error *err);
/* The expression's text for explain. */
void qvx_text_expr(qvb_text *t, const qv_expr *e);
/* A batch of the rows `rows[0..n)` of b (n may be 0). */
qv_status qvx_batch_take(const qv_batch *b, const uint32_t *rows, int64_t n, qv_batch **out, qv_error *err);
/* The batches concatenated into one (n >= 0; schema gives the columns). */
qv_status qvx_batch_concat(const qv_schema *schema, qv_batch *const *batches, int32_t n, qv_batch **out, qv_error *err);
/* Column array with any dictionary encoding decoded (new reference). */
qv_status qvx_plain(qv_array *a, qv_array **out, qv_error *err);

/* Value i of a fixed-width integer-class array (v = qv_array_values(a)):
 * any width, temporal; uint64 as its bits. */
static inline int64_t qvx_load_int(const qv_array *a, const void *v, int64_t i) {
  switch (a->type.id) {
    case QV_TYPE_INT8: return ((const int8_t *)v)[i];
    case QV_TYPE_INT16: return ((const int16_t *)v)[i];
    case QV_TYPE_INT32:
    case QV_TYPE_DATE32: return ((const int32_t *)v)[i];
    case QV_TYPE_UINT8: return ((const uint8_t *)v)[i];
    case QV_TYPE_UINT16: return ((const uint16_t *)v)[i];
    case QV_TYPE_UINT32: return ((const uint32_t *)v)[i];
    default: return ((const int64_t *)v)[i];
  }
}
static inline double qvx_load_float(const qv_array *a, const void *v, int64_t i) {
  return a->type.id == QV_TYPE_FLOAT32 ? (double)((const float *)v)[i] : ((const double *)v)[i];
}

/* ---- keys and the hash table (keys.c) ---------------------------------- */

/* Key columns of one batch, encoded row by row into a canonical form so
 * equal keys have equal bytes: integers (any width, temporal) as int64,
 * floats as float64 with -0.0 as 0.0 and one NaN, bool as one byte,
 * strings and binary as a length and their bytes.  Each key starts with a
 * null byte.  When the key is one integer column the table runs in integer
 * mode: the int64 itself is the key (no bytes). */
typedef struct qvx_keyset {
  int64_t n;        /* rows */
  bool int_mode;    /* one integer-class column */
  int64_t *ints;    /* int_mode: the values */
  uint8_t *nulls;   /* per row: 1 when some key is null (or NaN with nan_null) */
  qv_buffer bytes;  /* !int_mode: the encodings, back to back */
  int64_t *offsets; /* !int_mode: n + 1 */
  uint64_t *hashes; /* XXH3 of the int64 or of the bytes */
} qvx_keyset;

/* Whether the type can be a key (after dictionary decoding), and whether it
 * is integer-class. */
bool qvx_key_type_ok(const qv_datatype *t);
bool qvx_key_type_int(const qv_datatype *t);
/* Encodes n_cols key columns (plain arrays, num rows each).  force_bytes
 * keeps byte mode even for one integer column; nan_null makes a NaN key a
 * null one (joins). */
qv_status qvx_keyset_encode(qvx_keyset *k, qv_array *const *cols, int32_t n_cols, int64_t rows, bool force_bytes,
                            bool nan_null, qv_error *err);
void qvx_keyset_reset(qvx_keyset *k);

/* Distinct keys with open addressing (linear probing, power-of-two
 * capacity, at most half full).  Entry ids are dense from 0 in insertion
 * order; the table keeps each entry's key (int64 or bytes) and hash.  A
 * slot holds the key itself in integer mode (one memory access decides a
 * probe) and the full hash otherwise (the bytes are compared only when it
 * matches). */
typedef struct qvx_slot {
  uint64_t key;    /* integer mode: the key; else the hash */
  uint32_t entry1; /* entry + 1; 0 is empty */
  uint32_t unused;
} qvx_slot;

typedef struct qvx_hashtab {
  bool int_mode;
  qvx_slot *slots;
  int64_t cap;
  int64_t n;
  int64_t entries_cap;
  uint64_t *hashes;
  int64_t *ints;    /* int_mode */
  int64_t *offsets; /* !int_mode: n + 1 into bytes */
  qv_buffer bytes;
} qvx_hashtab;

qv_status qvx_hashtab_init(qvx_hashtab *t, bool int_mode, qv_error *err);
void qvx_hashtab_reset(qvx_hashtab *t);
int64_t qvx_hashtab_bytes(const qvx_hashtab *t);
/* Entry of row i of k, inserted when absent (*inserted says so). */
qv_status qvx_hashtab_upsert(qvx_hashtab *t, const qvx_keyset *k, int64_t i, int64_t *entry, bool *inserted,
                             qv_error *err);
/* Entry of row i of k, or -1. */
int64_t qvx_hashtab_find(const qvx_hashtab *t, const qvx_keyset *k, int64_t i);

#endif
