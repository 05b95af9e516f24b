/* The fragment sink (sink.c): what every writer of data files uses
 * (qv_dataset_write, merge, compaction).  Batches are pushed, pages and
 * data files are cut as rows arrive, and each finished data file is added
 * to a transaction (qvs_txn_add_fragment), which owns it from then on.
 * Memory is bounded: less than one page of rows is queued beyond the
 * batch being pushed, and a data file is written page by page. */
#ifndef QUIVER_STORAGE_SINK_H
#define QUIVER_STORAGE_SINK_H

#include "storage/datafile.h"
#include "storage/txn.h"

typedef struct qvs_sink_pending {
  qv_batch *batch;
  int64_t start; /* first row not yet written */
} qvs_sink_pending;

typedef struct qvs_sink {
  const char *path;
  const qv_schema *schema; /* borrowed: outlives the sink */
  qv_write_options opts;
  qvs_sink_pending *queue;
  int32_t q_len, q_cap;
  int64_t queued_rows;
  qvs_file_writer *cur; /* the fragment being written */
  int64_t cur_rows;
  qvs_txn *txn; /* finished fragments go here (ids assigned at commit) */
  int64_t rows_written, files_written;
} qvs_sink;

/* Defaults filled in and every field checked (dataset_write.c); in may be
 * NULL (defaults). */
qv_status qvs_write_options_get(const qv_write_options *in, qv_write_options *out, qv_error *err);
/* opts must have passed qvs_write_options_get. */
void qvs_sink_init(qvs_sink *s, const char *path, const qv_schema *schema, const qv_write_options *opts, qvs_txn *txn);
/* Takes a reference to b (released also on failure); writes the pages
 * that are full. */
qv_status qvs_sink_push(qvs_sink *s, qv_batch *b, qv_error *err);
/* Writes what is queued and finishes the open data file. */
qv_status qvs_sink_finish(qvs_sink *s, qv_error *err);
/* Drops the queue and removes an unfinished data file. */
void qvs_sink_reset(qvs_sink *s);

#endif
