/* The scanner: one pass over a dataset version, page range by page range,
 * running the plan qv_scanner_open makes (scan_plan.c: projection, filter,
 * pruning, index use; this file only executes it).
 *
 * With pushdown on, for each page range of a fragment it (1) asks the page
 * statistics whether any conjunct of the filter rules the range out,
 * (2) decodes only the filter's columns and evaluates the filter into a
 * selection vector, (3) applies offset/limit to the selection, and
 * (4) fetches the projected columns for the selected rows alone (the
 * storage layer reads only the blocks those rows live in).  With pushdown
 * off it decodes every needed column in full and filters afterwards.
 * Output pieces are coalesced into batches of batch_size rows (or, without
 * exact_batches, handed out as they are, at most batch_size rows each,
 * pieces below batch_size / 16 rows joined with their neighbours), so
 * memory stays bounded by a few pages per column whatever the dataset size. */
#include <stdio.h>
#include <string.h>

#include "base/pool.h"
#include "quiver/compute.h"
#include "scan/nearest.h"
#include "scan/scan_plan.h"

/* What one worker needs to scan a page range: its own reader of the
 * current fragment (readers keep per-column scratch, so they are not
 * shared; lanes other than 0 open theirs from lane 0's, sharing its parsed
 * footer) and the page range's scratch, plus the page counters it
 * gathered since they were last added to the scanner's. */
typedef struct lane {
  qv_fragment_reader *reader;
  int32_t frag; /* the fragment reader reads */
  qv_selection live, selected;
  /* per dataset column: the page's statistics and the arrays decoded for
   * the current page range; per filter column, the batch being built */
  const qv_page_stats **stats;
  qv_array **decoded;
  /* per dataset column: a projected column the indices' refine step
   * already fetched, holding exactly the selected rows (NULL otherwise) */
  qv_array **taken;
  qv_array **fcol_arrays;
  int64_t pages_total, pages_pruned, pages_index_skipped, rows_scanned, rows_selected;
  int64_t rows_counted; /* a count's rows, after offset and limit (qv_scanner_count) */
} lane;

/* Lanes at most; page ranges in one parallel round at most (see
 * next_window), and the rows a round aims to hand out. */
#define QV_SCAN_MAX_LANES 8
#define QV_SCAN_WINDOW 64
#define QV_SCAN_ROUND_ROWS 1024
/* ... and the rows and stored bytes (of the projected columns) its page
 * ranges may hold at most, so that a round that grew on a selective stretch
 * and then meets pages whose rows all pass holds 16 pages of output (of
 * 8,192 rows) or 32 MiB of stored pages, not 64 pages */
#define QV_SCAN_ROUND_MAX_ROWS 131072
#define QV_SCAN_ROUND_MAX_BYTES (INT64_C(32) << 20)
/* Output batches planned at once at most (a round's rows make at most 16
 * batches of 8,192). */
#define QV_SCAN_MAX_JOBS 16

/* One output batch to build by joining pending pieces (parts, owned). */
typedef struct build_job {
  qv_batch **parts;
  int32_t n_parts;
  int64_t rows;
  int32_t slot; /* its place in ready[] */
  qv_status st;
  qv_error err;
} build_job;

struct qv_scanner {
  qv_dataset *owned_ds;
  const qv_dataset *ds;
  qvsc_nearest *nearest; /* a vector search (nearest.c) runs instead of the plan */
  qvsc_plan plan;        /* what to read and how (scan_plan.c) */
  /* the rows the scalar indices keep of the current fragment (NULL when
   * they answer no conjunct) */
  roaring_bitmap_t *frag_rows;
  bool frag_active, frag_full;

  /* iteration */
  int32_t frag;
  int32_t page;
  int64_t skipped, produced;
  bool exhausted;
  qv_batch **pending;
  int32_t n_pending, cap_pending;
  int64_t pending_rows;
  /* Batches taken off the pending pieces, in order, ready to hand out
   * (ready[ready_head .. n_ready)); a batch that joins several pieces is a
   * job, built on the lanes' threads in the next round alongside its
   * pages, so that copying the rows out is not one thread's serial work
   * between rounds (see plan_jobs). */
  qv_batch *ready[QV_SCAN_MAX_JOBS];
  int32_t n_ready, ready_head;
  build_job jobs[QV_SCAN_MAX_JOBS];
  int32_t n_jobs;
  /* an error that comes after the ready batches (defer_error) */
  qv_status deferred;
  qv_error deferred_err;
  bool exact_batches; /* join pieces into batches of batch_size rows (qv_scan_options) */
  /* qv_scanner_count: page ranges add their rows to rows_counted instead of
   * building pieces, and no projected column is read */
  bool count_only;
  int64_t rows_counted;
  qv_scan_counters counters;
  /* One lane per worker that scans page ranges (lane 0: this thread, the
   * only one in a serial scan); lanes[0].reader is the fragment reader. */
  lane *lanes;
  int32_t n_lanes;
  int32_t window; /* page ranges in the next parallel round */
  /* a parallel round's results, in page order */
  qv_batch *round_piece[QV_SCAN_WINDOW];
  qv_status round_st[QV_SCAN_WINDOW];
  qv_error round_err[QV_SCAN_WINDOW];
};

static void release_ready(qv_scanner *s);

qv_status qv_scanner_open_dataset(const qv_dataset *ds, const qv_scan_options *opts, qv_scanner **out, qv_error *err) {
  qv_scan_options defaults = QV_SCAN_OPTIONS_INIT;
  const qv_scan_options *o = opts ? opts : &defaults;
  qv_scanner *s = qv_calloc(1, sizeof *s);
  if (!s) return qv_error_nomem(err, NULL);
  s->ds = ds;
  if (o->version >= 3 && o->nearest) { /* version 1 and 2 options end before the field */
    qv_status st = qvsc_nearest_open(ds, o, &s->nearest, err);
    if (st != QV_OK) {
      qv_free(s);
      return st;
    }
    *out = s;
    return QV_OK;
  }
  qv_status st = qvsc_plan_make(ds, o, &s->plan, err);
  if (st == QV_OK && s->plan.by_index && !(s->frag_rows = roaring_bitmap_create())) st = qv_error_nomem(err, NULL);
  if (st != QV_OK) {
    qv_scanner_destroy(s);
    return st;
  }
  s->exact_batches = o->version < 2 || o->exact_batches; /* version 1 options end before the field */
  const qv_schema *dss = qv_dataset_schema(ds);
  size_t nf = (size_t)(dss->n_fields > 0 ? dss->n_fields : 1);
  /* Lanes for the workers a scan may use: page ranges go to several
   * threads only when no limit or offset makes their order matter. */
  int32_t n_lanes = qv_threads() < QV_SCAN_MAX_LANES ? qv_threads() : QV_SCAN_MAX_LANES;
  if (s->plan.limit >= 0 || s->plan.offset > 0) n_lanes = 1;
  s->lanes = qv_calloc((size_t)n_lanes, sizeof *s->lanes);
  if (!s->lanes) {
    qv_scanner_destroy(s);
    return qv_error_nomem(err, NULL);
  }
  s->n_lanes = n_lanes;
  s->window = 2 * n_lanes;
  for (int32_t i = 0; i < n_lanes; i++) {
    lane *L = &s->lanes[i];
    L->frag = -1;
    L->stats = qv_calloc(nf, sizeof *L->stats);
    L->decoded = qv_calloc(nf, sizeof *L->decoded);
    L->taken = qv_calloc(nf, sizeof *L->taken);
    L->fcol_arrays = qv_calloc((size_t)(s->plan.n_fcols > 0 ? s->plan.n_fcols : 1), sizeof *L->fcol_arrays);
    if (!L->stats || !L->decoded || !L->taken || !L->fcol_arrays) {
      qv_scanner_destroy(s);
      return qv_error_nomem(err, NULL);
    }
  }
  s->counters.n_columns = dss->n_fields < 64 ? dss->n_fields : 64;
  for (int32_t c = 0; c < s->counters.n_columns; c++)
    snprintf(s->counters.columns[c].name, sizeof s->counters.columns[c].name, "%s", dss->fields[c].name);
  *out = s;
  return QV_OK;
}

qv_status qv_scanner_open(const char *path, const qv_scan_options *opts, qv_scanner **out, qv_error *err) {
  qv_dataset *ds;
  QV_RETURN_NOT_OK(qv_dataset_open(path, opts ? opts->dataset_version : 0, &ds, err));
  qv_status st = qv_scanner_open_dataset(ds, opts, out, err);
  if (st != QV_OK) {
    qv_dataset_close(ds);
    return st;
  }
  (*out)->owned_ds = ds;
  return QV_OK;
}

/* Adds a lane reader's I/O counters to out. */
static void add_io(const qv_fragment_reader *r, qv_scan_counters *out) {
  for (int32_t c = 0; c < out->n_columns; c++) {
    qv_io_counters io;
    qv_fragment_counters(r, c, &io);
    out->columns[c].bytes_read += io.bytes_read;
    out->columns[c].bytes_decoded += io.bytes_decoded;
    out->columns[c].pages_read += io.pages_read;
  }
}

static void close_lane_reader(qv_scanner *s, lane *L) {
  if (!L->reader) return;
  add_io(L->reader, &s->counters);
  qv_fragment_close(L->reader);
  L->reader = NULL;
  L->frag = -1;
}

static void close_readers(qv_scanner *s) {
  for (int32_t i = 0; s->lanes && i < s->n_lanes; i++) close_lane_reader(s, &s->lanes[i]);
}

/* Adds the page counters the lanes gathered to the scanner's. */
static void merge_lane_counters(qv_scanner *s) {
  for (int32_t i = 0; i < s->n_lanes; i++) {
    lane *L = &s->lanes[i];
    s->counters.pages_total += L->pages_total;
    s->counters.pages_pruned += L->pages_pruned;
    s->counters.pages_index_skipped += L->pages_index_skipped;
    s->counters.rows_scanned += L->rows_scanned;
    s->counters.rows_selected += L->rows_selected;
    s->rows_counted += L->rows_counted;
    L->pages_total = L->pages_pruned = L->pages_index_skipped = L->rows_scanned = L->rows_selected = 0;
    L->rows_counted = 0;
  }
}

void qv_scanner_destroy(qv_scanner *s) {
  if (!s) return;
  if (s->nearest) {
    qvsc_nearest_destroy(s->nearest);
    qv_dataset_close(s->owned_ds);
    qv_free(s);
    return;
  }
  close_readers(s);
  for (int32_t i = 0; i < s->n_pending; i++) qv_batch_release(s->pending[i]);
  qv_free(s->pending);
  release_ready(s);
  for (int32_t i = 0; s->lanes && i < s->n_lanes; i++) {
    lane *L = &s->lanes[i];
    qv_selection_reset(&L->live);
    qv_selection_reset(&L->selected);
    qv_free(L->stats);
    qv_free(L->decoded);
    qv_free(L->taken);
    qv_free(L->fcol_arrays);
  }
  qv_free(s->lanes);
  qvsc_plan_reset(&s->plan);
  if (s->frag_rows) roaring_bitmap_free(s->frag_rows);
  qv_dataset_close(s->owned_ds);
  qv_free(s);
}

const qv_schema *qv_scanner_schema(const qv_scanner *s) {
  return s->nearest ? qvsc_nearest_schema(s->nearest) : &s->plan.out_schema;
}

void qv_scanner_counters(const qv_scanner *s, qv_scan_counters *out) {
  if (s->nearest) {
    qvsc_nearest_counters(s->nearest, out);
    return;
  }
  *out = s->counters;
  qv_io_counters iio;
  qvsc_index_plan_io(s->plan.iplan, &iio);
  out->index_bytes_read = iio.bytes_read;
  qvsc_index_plan_damage(s->plan.iplan, out);
  for (int32_t i = 0; s->lanes && i < s->n_lanes; i++) /* include the fragment being read */
    if (s->lanes[i].reader) add_io(s->lanes[i].reader, out);
}

/* ---- one page range -------------------------------------------------- */

/* The projected columns a page range reads: none for a count. */
static int32_t projected(const qv_scanner *s) { return s->count_only ? 0 : s->plan.n_proj; }

static bool page_pruned(qv_scanner *s, lane *L, int32_t page, int64_t rows) {
  if (!s->plan.filter || !s->plan.pushdown) return false;
  const qv_schema *ds = qv_dataset_schema(s->ds);
  for (int32_t c = 0; c < ds->n_fields; c++) {
    qv_page_info info;
    qv_fragment_page(L->reader, c, page, &info);
    L->stats[c] = info.stats;
  }
  return qvsc_plan_prunes_page(&s->plan, L->stats, rows);
}

/* The page's rows that are not deleted (page-relative).  With no deleted
 * row and no use for the row numbers (a filter evaluated over the whole
 * page takes no selection then) only the count is set: writing 8,192
 * row numbers per page was a tenth of a selective scan's time. */
static qv_status live_rows(lane *L, int64_t start, int64_t rows, bool need_rows, bool *all_live) {
  const uint8_t *del = qv_fragment_deleted(L->reader);
  L->live.count = 0;
  *all_live = !del;
  if (!del && !need_rows) {
    L->live.count = rows;
    return QV_OK;
  }
  QV_RETURN_NOT_OK(qv_selection_reserve(&L->live, rows));
  int64_t n = 0;
  for (int64_t r = 0; r < rows; r++)
    if (!del || !qv_bit_get(del, start + r)) L->live.rows[n++] = (uint32_t)r;
  L->live.count = n;
  *all_live = n == rows;
  return QV_OK;
}

/* The live rows the indices kept of the page (page-relative). */
static qv_status index_rows(const qv_scanner *s, lane *L, int64_t start, int64_t rows, bool *all_live) {
  const uint8_t *del = qv_fragment_deleted(L->reader);
  L->live.count = 0;
  QV_RETURN_NOT_OK(qv_selection_reserve(&L->live, rows));
  roaring_uint32_iterator_t it;
  roaring_init_iterator(s->frag_rows, &it);
  int64_t n = 0;
  if (roaring_move_uint32_iterator_equalorlarger(&it, (uint32_t)start))
    for (; it.has_value && it.current_value < start + rows; roaring_advance_uint32_iterator(&it))
      if (!del || !qv_bit_get(del, it.current_value)) L->live.rows[n++] = (uint32_t)(it.current_value - start);
  L->live.count = n;
  *all_live = n == rows;
  return QV_OK;
}

/* Builds the output piece for the page's selected rows. */
static qv_status materialize(const qv_scanner *s, lane *L, int64_t start, int64_t rows, qv_array **decoded,
                             const qv_selection *sel, bool whole_page, qv_batch **out, qv_error *err) {
  int32_t nout = s->plan.out_schema.n_fields;
  qv_array **cols = qv_calloc((size_t)(nout > 0 ? nout : 1), sizeof *cols);
  qv_status st = QV_OK;
  if (!cols) return qv_error_nomem(err, NULL);
  for (int32_t i = 0; i < s->plan.n_proj && st == QV_OK; i++) {
    int32_t c = s->plan.proj[i];
    if (L->taken[c]) {
      cols[i] = qv_array_retain(L->taken[c]);
    } else if (decoded[c]) {
      if (whole_page) cols[i] = qv_array_retain(decoded[c]);
      else st = qv_array_take(decoded[c], sel->rows, sel->count, &cols[i], err);
      if (st == QV_OK && cols[i]->type.id == QV_TYPE_DICTIONARY) { /* a filter column read encoded */
        qv_array *plain = NULL;
        st = qv_array_dictionary_decode(cols[i], &plain, err);
        qv_array_release(cols[i]);
        cols[i] = plain;
      }
    } else if (whole_page) {
      st = qv_fragment_read(L->reader, c, start, rows, &cols[i], err);
    } else {
      st = qv_fragment_take_selection(L->reader, c, start, sel->rows, sel->count, &cols[i], err);
    }
  }
  if (st == QV_OK && s->plan.with_row_id) {
    qv_fragment_info fi;
    qv_dataset_fragment(s->ds, s->frag, &fi);
    qv_bytes *b = qv_bytes_alloc(sel->count * 8);
    qv_datatype t = qv_datatype_simple(QV_TYPE_UINT64);
    if (!b) {
      st = qv_error_nomem(err, NULL);
    } else {
      uint64_t *ids = (uint64_t *)qv_bytes_mutable(b);
      for (int64_t k = 0; k < sel->count; k++) ids[k] = ((uint64_t)fi.id << 32) | (uint64_t)(start + sel->rows[k]);
      st = qv_array_from_buffers(&t, sel->count, NULL, b, NULL, &cols[s->plan.n_proj], err);
    }
  }
  if (st == QV_OK) st = qv_batch_make(&s->plan.out_schema, cols, sel->count, out, err);
  else
    for (int32_t i = 0; i < nout; i++) qv_array_release(cols[i]);
  qv_free(cols);
  return st;
}

/* Reads, filters and materializes the current page range; *out is NULL
 * when no row of it is returned. */
static qv_status scan_page(qv_scanner *s, lane *L, int32_t page, qv_batch **out, qv_error *err) {
  *out = NULL;
  qv_page_info info;
  qv_fragment_page(L->reader, 0, page, &info);
  int64_t start = info.row_start, rows = info.row_count;
  L->pages_total++;
  if (page_pruned(s, L, page, rows)) {
    L->pages_pruned++;
    return QV_OK;
  }
  bool all_live;
  bool by_index = s->frag_active;
  if (by_index && roaring_bitmap_range_cardinality(s->frag_rows, (uint64_t)start, (uint64_t)(start + rows)) == 0) {
    L->pages_index_skipped++;
    return QV_OK;
  }
  const qv_schema *ds = qv_dataset_schema(s->ds);
  qv_array **decoded = L->decoded; /* all NULL between page ranges */
  qv_status st = QV_OK;
  /* The filter to evaluate: what the indices left, on a fully covered
   * fragment; the whole filter otherwise. */
  qvsc_plan_filter pf = qvsc_plan_filter_for(&s->plan, by_index && s->frag_full);
  const qv_expr *fexpr = pf.expr;
  const qv_schema *fschema = pf.schema;
  int32_t n_fcols = pf.n_cols;
  const int32_t *fcols_idx = pf.cols;
  bool filters_page = s->plan.filter && fexpr && !by_index; /* the third case below: a filter over every row */
  QV_RETURN_NOT_OK(by_index ? index_rows(s, L, start, rows, &all_live)
                            : live_rows(L, start, rows, !filters_page, &all_live));
  const qv_selection *sel = &L->live;
  bool whole = all_live;

  if (s->plan.filter && fexpr && by_index && L->live.count == 0) {
    L->selected.count = 0;
    sel = &L->selected;
    whole = false;
  } else if (s->plan.filter && fexpr && by_index && L->live.count * 8 < rows) {
    /* Few rows left by the indices: fetch just those rows of the filter
     * columns (reading only the blocks they live in) and evaluate there. */
    int64_t n = L->live.count;
    qv_array **fcols = L->fcol_arrays;
    int32_t got = 0;
    qv_batch *fb = NULL;
    qv_selection local = QV_SELECTION_INIT;
    for (; got < n_fcols && st == QV_OK; got++)
      st = qv_fragment_take_selection(L->reader, fcols_idx[got], start, L->live.rows, n, &fcols[got], err);
    if (st == QV_OK) st = qv_batch_make(fschema, fcols, n, &fb, err);
    else
      for (int32_t i = 0; i < got; i++) qv_array_release(fcols[i]);
    if (st == QV_OK) st = qv_eval_filter(fexpr, fb, NULL, &local, err);
    if (st == QV_OK && qv_selection_reserve(&L->selected, local.count) != QV_OK) st = qv_error_nomem(err, NULL);
    if (st == QV_OK) {
      for (int64_t k = 0; k < local.count; k++) L->selected.rows[k] = L->live.rows[local.rows[k]];
      L->selected.count = local.count;
    }
    /* a projected filter column (a substring search that also shows the
     * text) is taken once: its selected rows out of the candidates' */
    for (int32_t i = 0; i < n_fcols && st == QV_OK && local.count > 0; i++)
      for (int32_t j = 0; j < projected(s) && st == QV_OK; j++)
        if (s->plan.proj[j] == fcols_idx[i])
          st = qv_array_take(fcols[i], local.rows, local.count, &L->taken[fcols_idx[i]], err);
    qv_batch_release(fb);
    qv_selection_reset(&local);
    if (st != QV_OK) goto cleanup;
    L->rows_scanned += n;
    L->rows_selected += L->selected.count;
    sel = &L->selected;
    whole = false;
  } else if (s->plan.filter && fexpr) {
    /* Decode the filter columns (and, with pushdown off, every projected
     * column too: the engine then sees all rows, as without pushdown). */
    /* With pushdown, a dictionary page stays a dictionary: the filter
     * compares its distinct values once each (materialize decodes the
     * rows it keeps, when the column is also projected). */
    for (int32_t i = 0; i < n_fcols && st == QV_OK; i++)
      st = s->plan.pushdown
               ? qv_fragment_read_encoded(L->reader, fcols_idx[i], start, rows, &decoded[fcols_idx[i]], err)
               : qv_fragment_read(L->reader, fcols_idx[i], start, rows, &decoded[fcols_idx[i]], err);
    for (int32_t i = 0; i < projected(s) && st == QV_OK && !s->plan.pushdown; i++)
      if (!decoded[s->plan.proj[i]])
        st = qv_fragment_read(L->reader, s->plan.proj[i], start, rows, &decoded[s->plan.proj[i]], err);
    qv_batch *fb = NULL;
    if (st == QV_OK) {
      qv_array **fcols = L->fcol_arrays;
      for (int32_t i = 0; i < n_fcols; i++) fcols[i] = qv_array_retain(decoded[fcols_idx[i]]);
      st = qv_batch_make(fschema, fcols, rows, &fb, err);
    }
    if (st == QV_OK) st = qv_eval_filter(fexpr, fb, all_live ? NULL : &L->live, &L->selected, err);
    qv_batch_release(fb);
    if (st != QV_OK) goto cleanup;
    L->rows_scanned += L->live.count;
    L->rows_selected += L->selected.count;
    sel = &L->selected;
    whole = L->selected.count == rows;
  } else {
    if (!s->plan.filter) L->rows_scanned += L->live.count;
    L->rows_selected += L->live.count;
    if (!s->plan.pushdown)
      for (int32_t i = 0; i < projected(s) && st == QV_OK; i++)
        if (!decoded[s->plan.proj[i]])
          st = qv_fragment_read(L->reader, s->plan.proj[i], start, rows, &decoded[s->plan.proj[i]], err);
    if (st != QV_OK) goto cleanup;
  }

  /* Offset and limit cut the selection before anything else is decoded
   * (and the columns already taken for it, alike). */
  qv_selection *cut = (qv_selection *)sel;
  int64_t drop = s->plan.offset - s->skipped, before = cut->count;
  if (drop > 0) {
    if (drop > cut->count) drop = cut->count;
    if (drop > 0) /* an empty selection may have no rows buffer at all */
      memmove(cut->rows, cut->rows + drop, (size_t)(cut->count - drop) * sizeof *cut->rows);
    cut->count -= drop;
    s->skipped += drop;
    whole = false;
  }
  if (s->plan.limit >= 0 && cut->count > s->plan.limit - s->produced) {
    cut->count = s->plan.limit - s->produced;
    whole = false;
  }
  for (int32_t c = 0; c < ds->n_fields && st == QV_OK && cut->count != before; c++)
    if (L->taken[c]) {
      qv_array *part = NULL;
      st = qv_array_slice(L->taken[c], drop > 0 ? drop : 0, cut->count, &part, err);
      qv_array_release(L->taken[c]);
      L->taken[c] = part;
    }
  if (st != QV_OK) goto cleanup;
  if (s->count_only) {
    L->rows_counted += cut->count;
    if (s->plan.limit >= 0) s->produced += cut->count;
  } else if (cut->count > 0) {
    st = materialize(s, L, start, rows, decoded, cut, whole && cut->count == rows, out, err);
    if (st == QV_OK && s->plan.limit >= 0) s->produced += cut->count; /* serial: a limit makes one lane */
  }
cleanup:
  for (int32_t c = 0; c < ds->n_fields; c++) {
    qv_array_release(decoded[c]);
    decoded[c] = NULL;
    qv_array_release(L->taken[c]);
    L->taken[c] = NULL;
  }
  return st;
}

/* Advances to the next page range (opening fragments as needed); false at
 * the end of the dataset. */
static qv_status next_page(qv_scanner *s, bool *have, qv_error *err) {
  *have = false;
  if (s->plan.limit >= 0 && s->produced >= s->plan.limit) return QV_OK;
  while (s->frag < qv_dataset_num_fragments(s->ds)) {
    if (!s->lanes[0].reader) {
      /* The indices first: a fragment they keep no row of is not opened
       * (a point lookup in a dataset of many fragments reads one). */
      s->frag_active = false;
      if (s->frag_rows) {
        qv_fragment_info fi;
        qv_dataset_fragment(s->ds, s->frag, &fi);
        QV_RETURN_NOT_OK(
            qvsc_index_plan_fragment(s->plan.iplan, fi.id, s->frag_rows, &s->frag_active, &s->frag_full, err));
        if (s->frag_active && roaring_bitmap_is_empty(s->frag_rows)) {
          s->counters.fragments_index_skipped++;
          s->frag++;
          continue;
        }
        if (s->frag_active) s->counters.index_rows += (int64_t)roaring_bitmap_get_cardinality(s->frag_rows);
      }
      QV_RETURN_NOT_OK(qv_fragment_open(s->ds, s->frag, &s->lanes[0].reader, err));
      s->lanes[0].frag = s->frag;
      s->counters.fragments++;
      s->page = -1;
    }
    s->page++;
    if (qv_dataset_schema(s->ds)->n_fields > 0 && s->page < qv_fragment_num_pages(s->lanes[0].reader, 0)) {
      *have = true;
      return QV_OK;
    }
    close_readers(s);
    s->frag++;
  }
  return QV_OK;
}

static qv_status push_pending(qv_scanner *s, qv_batch *b, qv_error *err) {
  if (s->n_pending == s->cap_pending) {
    int32_t cap = s->cap_pending ? s->cap_pending * 2 : 16;
    qv_batch **p = qv_realloc(s->pending, (size_t)cap * sizeof *p);
    if (!p) {
      qv_batch_release(b);
      return qv_error_nomem(err, NULL);
    }
    s->pending = p;
    s->cap_pending = cap;
  }
  s->pending[s->n_pending++] = b;
  s->pending_rows += b->num_rows;
  return QV_OK;
}

/* Without exact batches, pieces of fewer rows than this are joined (up to
 * batch_size rows): a selective filter leaves a few rows per page, and
 * Polars pays for every chunk it is handed (`val > 0.999` through Polars:
 * 18.5 ms with its 245 pieces of 8 rows, 9.5 ms joined), while copying a
 * few rows costs next to nothing.  Larger pieces go out as they are:
 * `cat == 'c3'`'s 1,020-row pieces of 256-byte values measured no faster
 * joined (64 MB copied), `dt.hour() < 1`'s 326-row pieces a little. */
static int64_t join_rows(const qv_scanner *s) { return s->plan.batch_size / 16 > 0 ? s->plan.batch_size / 16 : 1; }

/* Whether the pending pieces make a batch without exact batches: a large
 * piece has arrived (the small ones before it go out joined), or the small
 * ones add up. */
static bool loose_batch_ready(const qv_scanner *s) {
  return s->n_pending > 0 &&
         (s->pending_rows >= join_rows(s) || s->pending[s->n_pending - 1]->num_rows >= join_rows(s));
}

/* Takes the first pending piece off as it is. */
static qv_batch *take_first(qv_scanner *s) {
  qv_batch *b = s->pending[0];
  s->pending_rows -= b->num_rows;
  memmove(s->pending, s->pending + 1, (size_t)(--s->n_pending) * sizeof *s->pending);
  return b;
}

/* Whether the pending pieces make the next batch now: batch_size rows
 * (exact batches; loose_batch_ready otherwise), or any at the end. */
static bool batch_ready(const qv_scanner *s) {
  if (s->n_pending == 0) return false;
  if (s->exhausted) return true;
  return s->exact_batches ? s->pending_rows >= s->plan.batch_size : loose_batch_ready(s);
}

/* Takes the pieces of the next batch (up to batch_size rows) off the front
 * of the pending ones: *out when that is one piece or a slice of one,
 * otherwise *out NULL and the pieces to join in job->parts. */
static qv_status plan_batch(qv_scanner *s, qv_batch **out, build_job *job, qv_error *err) {
  *out = NULL;
  qv_batch *first = s->pending[0];
  bool loose = !s->exact_batches;
  if (first->num_rows >= s->plan.batch_size || s->n_pending == 1 || (loose && first->num_rows >= join_rows(s))) {
    if (first->num_rows <= s->plan.batch_size) {
      *out = take_first(s);
      return QV_OK;
    }
    qv_batch *head, *tail;
    QV_RETURN_NOT_OK(qv_batch_slice(first, 0, s->plan.batch_size, &head, err));
    qv_status st = qv_batch_slice(first, s->plan.batch_size, first->num_rows - s->plan.batch_size, &tail, err);
    if (st != QV_OK) {
      qv_batch_release(head);
      return st;
    }
    qv_batch_release(first);
    s->pending[0] = tail;
    s->pending_rows -= head->num_rows;
    *out = head;
    return QV_OK;
  }
  /* Several small pieces: whole pieces while they fit, and (exact batches)
   * the head of the next one to fill the batch (its tail stays pending);
   * without exact batches, only pieces below join_rows. */
  int32_t take = 0;
  int64_t rows = 0;
  while (take < s->n_pending && rows + s->pending[take]->num_rows <= s->plan.batch_size &&
         !(loose && s->pending[take]->num_rows >= join_rows(s)))
    rows += s->pending[take++]->num_rows;
  if (loose && take == 1) { /* nothing to join it with */
    *out = take_first(s);
    return QV_OK;
  }
  if (!loose && take < s->n_pending && rows < s->plan.batch_size) {
    qv_batch *next = s->pending[take], *head, *tail;
    int64_t want = s->plan.batch_size - rows;
    if (s->n_pending == s->cap_pending) { /* room for the tail */
      qv_batch **p = qv_realloc(s->pending, (size_t)(s->cap_pending * 2) * sizeof *p);
      if (!p) return qv_error_nomem(err, NULL);
      s->pending = p;
      s->cap_pending *= 2;
    }
    QV_RETURN_NOT_OK(qv_batch_slice(next, 0, want, &head, err));
    qv_status sst = qv_batch_slice(next, want, next->num_rows - want, &tail, err);
    if (sst != QV_OK) {
      qv_batch_release(head);
      return sst;
    }
    memmove(s->pending + take + 2, s->pending + take + 1, (size_t)(s->n_pending - take - 1) * sizeof *s->pending);
    s->pending[take] = head;
    s->pending[take + 1] = tail;
    s->n_pending++;
    qv_batch_release(next);
    rows += want;
    take++;
  }
  job->parts = qv_malloc((size_t)take * sizeof *job->parts);
  if (!job->parts) return qv_error_nomem(err, NULL);
  memcpy(job->parts, s->pending, (size_t)take * sizeof *job->parts);
  job->n_parts = take;
  job->rows = rows;
  memmove(s->pending, s->pending + take, (size_t)(s->n_pending - take) * sizeof *s->pending);
  s->n_pending -= take;
  s->pending_rows -= rows;
  return QV_OK;
}

/* Joins a job's parts into its batch (ready[job->slot]); releases them.
 * Runs on any lane's thread: it touches nothing but the job and its slot. */
static void build_batch(qv_scanner *s, build_job *job) {
  int32_t nc = s->plan.out_schema.n_fields;
  qv_array **cols = qv_calloc((size_t)(nc > 0 ? nc : 1), sizeof *cols);
  qv_array **parts = qv_calloc((size_t)job->n_parts, sizeof *parts);
  qv_status st = QV_OK;
  if (!cols || !parts) st = qv_error_nomem(&job->err, NULL);
  for (int32_t c = 0; c < nc && st == QV_OK; c++) {
    for (int32_t k = 0; k < job->n_parts; k++) parts[k] = job->parts[k]->columns[c];
    st = qv_array_concat(parts, job->n_parts, &cols[c], &job->err);
  }
  if (st == QV_OK) st = qv_batch_make(&s->plan.out_schema, cols, job->rows, &s->ready[job->slot], &job->err);
  else if (cols)
    for (int32_t c = 0; c < nc; c++) qv_array_release(cols[c]);
  for (int32_t k = 0; k < job->n_parts; k++) qv_batch_release(job->parts[k]);
  qv_free(job->parts);
  job->parts = NULL;
  job->n_parts = 0;
  qv_free(cols);
  qv_free(parts);
  job->st = st;
}

/* Releases the batches not handed out and the jobs not run. */
static void release_ready(qv_scanner *s) {
  for (int32_t i = s->ready_head; i < s->n_ready; i++) qv_batch_release(s->ready[i]);
  s->n_ready = s->ready_head = 0;
  for (int32_t j = 0; j < s->n_jobs; j++) {
    for (int32_t k = 0; k < s->jobs[j].n_parts; k++) qv_batch_release(s->jobs[j].parts[k]);
    qv_free(s->jobs[j].parts);
    s->jobs[j].parts = NULL;
    s->jobs[j].n_parts = 0;
  }
  s->n_jobs = 0;
}

/* Plans the batches the pending pieces make now (ready is empty): those
 * that are one piece go to ready[] at once, the joined ones become jobs
 * whose slots wait for run_jobs or the next round. */
static qv_status plan_jobs(qv_scanner *s, qv_error *err) {
  s->n_ready = s->ready_head = 0;
  while (batch_ready(s) && s->n_ready < QV_SCAN_MAX_JOBS) {
    build_job *job = &s->jobs[s->n_jobs];
    qv_batch *direct;
    job->n_parts = 0;
    QV_RETURN_NOT_OK(plan_batch(s, &direct, job, err));
    if (direct) {
      s->ready[s->n_ready++] = direct;
    } else {
      job->slot = s->n_ready;
      s->ready[s->n_ready++] = NULL;
      s->n_jobs++;
    }
  }
  return QV_OK;
}

/* The first failed job's error (in batch order), after a round; the
 * batches before that one stay ready, none after it goes out. */
static qv_status jobs_done(qv_scanner *s, qv_error *err) {
  qv_status st = QV_OK;
  int32_t cut = s->n_ready;
  for (int32_t j = 0; j < s->n_jobs; j++)
    if (st == QV_OK && s->jobs[j].st != QV_OK) {
      st = s->jobs[j].st;
      if (err) *err = s->jobs[j].err;
      cut = s->jobs[j].slot;
    }
  s->n_jobs = 0;
  for (int32_t i = cut; i < s->n_ready; i++) qv_batch_release(s->ready[i]);
  s->n_ready = cut;
  return st;
}

static void job_task(void *ctx, int64_t k, int worker) {
  (void)worker;
  qv_scanner *s = ctx;
  build_batch(s, &s->jobs[k]);
}

/* Builds the planned jobs alone, on the lanes' threads. */
static qv_status run_jobs(qv_scanner *s, qv_error *err) {
  qvb_pool_run(s->n_jobs, s->n_lanes, job_task, s);
  return jobs_done(s, err);
}

/* ---- parallel rounds ----------------------------------------------------- */

typedef struct page_round {
  qv_scanner *s;
  int32_t first; /* page of task 0 */
} page_round;

/* Task k of a round: the planned jobs first (the larger pieces of work, so
 * they start early), then the page ranges. */
static void round_task(void *ctx, int64_t k, int worker) {
  page_round *r = ctx;
  qv_scanner *s = r->s;
  if (k < s->n_jobs) {
    build_batch(s, &s->jobs[k]);
    return;
  }
  k -= s->n_jobs;
  s->round_st[k] = scan_page(s, &s->lanes[worker], r->first + (int32_t)k, &s->round_piece[k], &s->round_err[k]);
}

/* Sizes the next round from this one's n page ranges and the rows they
 * handed out.  Every round ends with all lanes waiting for the slowest,
 * which costs most when pages are cheap: a selective filter leaves a few
 * rows per page (`val > 0.999` projecting id and payload: 8), and there
 * rounds of up to 64 pages took 7% less time than rounds of 4.  Filters
 * that keep more rows measured no faster or slower in larger rounds (their
 * pieces wait in memory, fresh, instead of reusing what the last round
 * freed): with rounds aiming at 16,384 rows, `dt.hour() < 1` (326 rows a
 * page) went from 28 to 31 ms and `cat == 'c3'` from 30 to 37.  So a round
 * holds as many page ranges as hand out about QV_SCAN_ROUND_ROWS rows, from
 * two per lane to QV_SCAN_WINDOW, at most doubling from one round to the
 * next. */
static void next_window(qv_scanner *s, int32_t n, int64_t rows_out) {
  int64_t w = rows_out > 0 ? QV_SCAN_ROUND_ROWS * (int64_t)n / rows_out : QV_SCAN_WINDOW;
  if (w > 2 * (int64_t)n) w = 2 * (int64_t)n;
  if (w > QV_SCAN_WINDOW) w = QV_SCAN_WINDOW;
  if (w < 2 * s->n_lanes) w = 2 * s->n_lanes;
  s->window = (int32_t)w;
}

/* Page ranges in the next round, from s->page on: the window, within
 * the fragment, within QV_SCAN_ROUND_MAX_ROWS rows and the projected
 * columns' QV_SCAN_ROUND_MAX_BYTES stored bytes (but at least two per
 * lane; stored bytes stand in for the output's, which a page's footer
 * entry does not give).  Rounds of at most 16 pages of 8,192 rows
 * measured as fast as rounds of 64 on `val > 0.999`; of 4, 7% slower. */
static int32_t round_pages(const qv_scanner *s) {
  const qv_fragment_reader *r = s->lanes[0].reader;
  int32_t left = qv_fragment_num_pages(r, 0) - s->page;
  int32_t n = left < s->window ? left : s->window;
  int64_t rows = 0, bytes = 0;
  for (int32_t k = 0; k < n; k++) {
    qv_page_info info;
    qv_fragment_page(r, 0, s->page + k, &info);
    rows += info.row_count;
    for (int32_t i = 0; i < projected(s); i++) {
      qv_fragment_page(r, s->plan.proj[i], s->page + k, &info);
      bytes += info.byte_size;
    }
    /* a count keeps no rows, so only the window bounds its rounds */
    if (((rows > QV_SCAN_ROUND_MAX_ROWS && !s->count_only) || bytes > QV_SCAN_ROUND_MAX_BYTES) && k >= 2 * s->n_lanes)
      return k;
  }
  return n;
}

/* Scans pages [first, first + n) of the current fragment on the lanes'
 * threads and queues their pieces in page order.  The error reported is
 * the first page's that failed, as a serial scan would report it. */
static qv_status scan_round(qv_scanner *s, int32_t first, int32_t n, qv_error *err) {
  for (int32_t i = 1; i < s->n_lanes; i++) { /* every lane reads the current fragment */
    lane *L = &s->lanes[i];
    if (L->frag == s->frag) continue;
    close_lane_reader(s, L);
    qv_status st = qv_fragment_open_shared(s->lanes[0].reader, &L->reader, err);
    if (st != QV_OK) { /* the planned batches still go out, before the error */
      qv_error jerr;
      (void)run_jobs(s, &jerr);
      return st;
    }
    L->frag = s->frag;
  }
  page_round r = {s, first};
  for (int32_t k = 0; k < n; k++) s->round_piece[k] = NULL;
  qvb_pool_run(s->n_jobs + n, s->n_lanes, round_task, &r);
  merge_lane_counters(s);
  qv_status st = jobs_done(s, err);
  int64_t rows_out = 0;
  for (int32_t k = 0; k < n; k++) {
    if (st == QV_OK && s->round_st[k] != QV_OK) {
      st = s->round_st[k];
      if (err) *err = s->round_err[k];
    }
    if (st != QV_OK) {
      qv_batch_release(s->round_piece[k]);
    } else if (s->round_piece[k]) {
      rows_out += s->round_piece[k]->num_rows;
      st = push_pending(s, s->round_piece[k], err);
    }
  }
  next_window(s, n, rows_out);
  return st;
}

/* Names the fragment in a scan error (storage errors name the file
 * already, "data/X.qvf: column ...": said once). */
static qv_status scan_error(qv_scanner *s, qv_status st, qv_error *err) {
  qv_fragment_info fi;
  qv_dataset_fragment(s->ds, s->frag, &fi);
  size_t plen = strlen(fi.path);
  if (err && !strncmp(err->message, fi.path, plen) && err->message[plen] == ':') {
    char old[sizeof err->message];
    memcpy(old, err->message, sizeof old);
    old[sizeof old - 1] = '\0';
    snprintf(err->message, sizeof err->message, "scan of %.1000s", old);
    if (err->code == QV_OK) err->code = st;
    return err->code;
  }
  return qv_error_prefix(err, st, "scan of %s", fi.path);
}

/* An error after batches that are ready goes out after them, as a serial
 * scan would have handed those out before reaching the failing page. */
static qv_status defer_error(qv_scanner *s, qv_status st, qv_error *err) {
  if (st == QV_OK || s->ready_head == s->n_ready) return st;
  s->deferred = st;
  if (err) s->deferred_err = *err;
  else qv_error_set(&s->deferred_err, st, "scan failed");
  return QV_OK;
}

/* Makes progress: plans the batches the pending pieces make (planned
 * batches that join pieces are built on the lanes' threads, during the
 * next round of page ranges when there are several lanes), then scans the
 * next page range, or the next round of them on the lanes, queueing their
 * pieces (or, for a count, adding up their rows); sets exhausted at the
 * end of the dataset. */
static qv_status advance(qv_scanner *s, qv_error *err) {
  qv_status st = plan_jobs(s, err);
  if (st != QV_OK) { /* the batches planned before the failure go out first */
    qv_error jerr;
    (void)run_jobs(s, &jerr);
    return defer_error(s, st, err);
  }
  /* One lane reads no page ahead of the batches it hands out (nor does a
   * planning stopped by QV_SCAN_MAX_JOBS): build them and return them. */
  if (s->n_ready > 0 && (s->n_lanes == 1 || batch_ready(s) || s->exhausted))
    return defer_error(s, run_jobs(s, err), err);
  bool have = false;
  st = s->exhausted ? QV_OK : next_page(s, &have, err);
  if (st == QV_OK && !have) {
    s->exhausted = true;
    if (s->n_ready == 0) st = plan_jobs(s, err); /* the last pieces */
    if (st == QV_OK) st = run_jobs(s, err);
    return defer_error(s, st, err);
  }
  if (st != QV_OK) { /* opening the next fragment failed: the planned batches go out first */
    qv_status js = run_jobs(s, err);
    return defer_error(s, js != QV_OK ? js : st, err);
  }
  /* With several lanes, the next pages of the fragment: at least two
   * per lane, so that a lane that drew cheap pages (pruned, nothing
   * selected) takes more, and more while the rounds hand out few rows
   * (next_window). */
  if (s->n_lanes > 1) {
    int32_t n = round_pages(s);
    st = scan_round(s, s->page, n, err);
    s->page += n - 1;
  } else {
    qv_batch *piece = NULL;
    st = scan_page(s, &s->lanes[0], s->page, &piece, err);
    merge_lane_counters(s);
    if (st == QV_OK && piece) st = push_pending(s, piece, err);
  }
  if (st != QV_OK) st = scan_error(s, st, err);
  return defer_error(s, st, err);
}

qv_status qv_scanner_next(qv_scanner *s, qv_batch **out, qv_error *err) {
  *out = NULL;
  if (s->nearest) return qvsc_nearest_next(s->nearest, out, err);
  /* exact batches wait for batch_size rows; otherwise pieces go out as
   * they come, small ones joined (loose_batch_ready) */
  while (s->ready_head == s->n_ready) {
    if (s->deferred != QV_OK) {
      if (err) *err = s->deferred_err;
      return s->deferred;
    }
    if (s->exhausted && s->n_pending == 0) return QV_OK;
    QV_RETURN_NOT_OK(advance(s, err));
  }
  *out = s->ready[s->ready_head];
  s->ready[s->ready_head++] = NULL;
  s->counters.rows_returned += (*out)->num_rows;
  return QV_OK;
}

/* Whether the scan has not begun: no fragment opened or passed over. */
static bool untouched(const qv_scanner *s) {
  return s->frag == 0 && !s->lanes[0].reader && !s->exhausted && s->n_pending == 0 && s->n_ready == 0 &&
         s->skipped == 0 && s->produced == 0;
}

qv_status qv_scanner_count(qv_scanner *s, int64_t *out_count, qv_error *err) {
  *out_count = 0;
  if (s->nearest) return qvsc_nearest_count(s->nearest, out_count, err);
  /* the pieces already built count as they are (offset and limit cut them) */
  int64_t pending = s->pending_rows;
  for (int32_t i = s->ready_head; i < s->n_ready; i++) pending += s->ready[i]->num_rows;
  release_ready(s);
  for (int32_t i = 0; i < s->n_pending; i++) qv_batch_release(s->pending[i]);
  s->n_pending = 0;
  s->pending_rows = 0;
  int64_t rest;
  if (!s->plan.filter && untouched(s)) {
    /* Every live row passes: the manifest knows how many there are, and
     * offset and limit only cut that number. */
    int64_t live = qv_dataset_count_rows(s->ds);
    rest = live > s->plan.offset ? live - s->plan.offset : 0;
    if (s->plan.limit >= 0 && rest > s->plan.limit) rest = s->plan.limit;
    s->skipped = s->plan.offset;
    s->produced = rest;
    s->exhausted = true;
    s->counters.rows_selected += live;
  } else {
    s->count_only = true;
    s->rows_counted = 0;
    qv_status st = QV_OK;
    while (!s->exhausted && st == QV_OK) st = advance(s, err);
    s->count_only = false;
    if (st != QV_OK) return st;
    rest = s->rows_counted;
  }
  *out_count = pending + rest;
  s->counters.rows_returned += *out_count;
  return QV_OK;
}

/* ---- the scanner as a batch reader ------------------------------------ */

static qv_status reader_next(qv_batch_reader *r, qv_batch **out, qv_error *err) {
  return qv_scanner_next(r->private_data, out, err);
}
static const qv_schema *reader_schema(qv_batch_reader *r) { return qv_scanner_schema(r->private_data); }
static void reader_destroy(qv_batch_reader *r) {
  qv_scanner_destroy(r->private_data);
  qv_free(r);
}

qv_status qv_scanner_reader(qv_scanner *s, qv_batch_reader **out, qv_error *err) {
  qv_batch_reader *r = qv_calloc(1, sizeof *r);
  if (!r) {
    qv_scanner_destroy(s);
    return qv_error_nomem(err, NULL);
  }
  r->next = reader_next;
  r->schema = reader_schema;
  r->destroy = reader_destroy;
  r->private_data = s;
  *out = r;
  return QV_OK;
}

/* ---- accessors for explain.c ------------------------------------------ */

const qv_dataset *qvsc_scanner_dataset_(const qv_scanner *s) { return s->ds; }
const qvsc_plan *qvsc_scanner_plan_(const qv_scanner *s) { return &s->plan; }
const qvsc_nearest *qvsc_scanner_nearest_(const qv_scanner *s) { return s->nearest; }
