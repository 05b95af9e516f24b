/* Reading one fragment: pages, statistics, and rows of a column, either a
 * contiguous range (whole pages decoded, the last one cached per column)
 * or selected rows (raw pages read block by block, only what the rows
 * need).  The data file must match what the manifest says about it. */
#include <stdio.h>
#include <string.h>

#include "base/wire.h"
#include "storage/datafile.h"
#include "storage/encoding.h"
#include "storage/gather.h"
#include "storage/manifest.h"

typedef struct frag_col {
  qv_array *cached; /* the last whole page decoded */
  int32_t cached_page;
  qvs_scratch scratch;
  qv_io_counters ctr;
} frag_col;

struct qv_fragment_reader {
  qvs_datafile *df;
  uint8_t *deleted;
  frag_col *cols;
  uint32_t *rel; /* page-relative rows of a take */
  int64_t rel_cap;
};

const char *qv_encoding_name(int encoding) {
  switch (encoding) {
    case QV_ENCODING_PLAIN: return "plain";
    case QV_ENCODING_DICTIONARY: return "dictionary";
    case QV_ENCODING_BITPACK_FOR: return "bitpack-for";
    case QV_ENCODING_FSST: return "fsst";
    default: return "unknown";
  }
}

static qv_status check_schema(const qvs_datafile *df, const qv_schema *s, qv_error *err) {
  if (df->n_columns != s->n_fields)
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: has %d columns, the dataset schema %d", df->name, df->n_columns,
                        s->n_fields);
  for (int32_t i = 0; i < s->n_fields; i++) {
    const qv_field *a = &df->columns[i].field, *b = &s->fields[i];
    if (strcmp(a->name, b->name) != 0 || !qv_datatype_equal(&a->type, &b->type)) {
      char ta[128], tb[128];
      qv_datatype_format(&a->type, ta, sizeof ta);
      qv_datatype_format(&b->type, tb, sizeof tb);
      return qv_error_set(err, QV_ERR_CORRUPT, "%s: column %d is `%s` %s, the dataset schema says `%s` %s", df->name, i,
                          a->name, ta, b->name, tb);
    }
  }
  return QV_OK;
}

/* A reader of df (whose reference it takes) with empty per-column state;
 * NULL when out of memory, and df is then still the caller's. */
static qv_fragment_reader *reader_of(qvs_datafile *df) {
  qv_fragment_reader *r = qv_calloc(1, sizeof *r);
  if (r && !(r->cols = qv_calloc((size_t)df->n_columns + 1, sizeof *r->cols))) {
    qv_free(r);
    r = NULL;
  }
  if (!r) return NULL;
  r->df = df;
  for (int32_t i = 0; i < df->n_columns; i++) r->cols[i].cached_page = -1;
  return r;
}

qv_status qv_fragment_open(const qv_dataset *ds, int32_t fragment, qv_fragment_reader **out, qv_error *err) {
  *out = NULL;
  if (fragment < 0 || fragment >= ds->manifest.n_fragments)
    return qv_error_set(err, QV_ERR_INVALID, "%s: no fragment %d (the version has %d)", ds->path, fragment,
                        ds->manifest.n_fragments);
  const qvs_fragment_meta *f = &ds->manifest.fragments[fragment];
  char *full = qvb_path_join(ds->path, f->data_file);
  if (!full) return qv_error_nomem(err, NULL);
  qvs_datafile *df;
  qv_status st = qvs_datafile_open(full, f->data_file, &df, err);
  qv_free(full);
  if (st == QV_ERR_NOT_FOUND)
    st = err ? (err->code = QV_ERR_CORRUPT) : QV_ERR_CORRUPT; /* listed, so missing = damage */
  if (st != QV_OK) return st;
  qv_fragment_reader *r = reader_of(df);
  if (!r) {
    qvs_datafile_close(df);
    return qv_error_nomem(err, NULL);
  }
  if ((st = check_schema(df, &ds->manifest.schema, err)) != QV_OK) goto cleanup;
  if (df->num_rows != f->num_rows) {
    st = qv_error_set(err, QV_ERR_CORRUPT, "%s: has %lld rows, the manifest says %lld", f->data_file,
                      (long long)df->num_rows, (long long)f->num_rows);
    goto cleanup;
  }
  if ((st = qvs_deletion_load(ds->path, f, &r->deleted, err)) != QV_OK) goto cleanup;
  *out = r;
  return QV_OK;
cleanup:
  qv_fragment_close(r);
  return st;
}

qv_status qv_fragment_open_shared(const qv_fragment_reader *r, qv_fragment_reader **out, qv_error *err) {
  *out = NULL;
  qv_fragment_reader *n = reader_of(r->df);
  if (!n) return qv_error_nomem(err, NULL);
  atomic_fetch_add(&r->df->refs, 1); /* n's reference: qv_fragment_close drops it */
  if (r->deleted) {
    int64_t bytes = qv_bitmap_bytes(r->df->num_rows);
    if (!(n->deleted = qv_malloc((size_t)bytes))) {
      qv_fragment_close(n);
      return qv_error_nomem(err, NULL);
    }
    memcpy(n->deleted, r->deleted, (size_t)bytes);
  }
  *out = n;
  return QV_OK;
}

qv_status qvs_fragment_from_datafile(qvs_datafile *df, qv_fragment_reader **out, qv_error *err) {
  *out = reader_of(df);
  if (*out) return QV_OK;
  qvs_datafile_close(df);
  return qv_error_nomem(err, NULL);
}

void qv_fragment_close(qv_fragment_reader *r) {
  if (!r) return;
  for (int32_t i = 0; r->cols && i < r->df->n_columns; i++) {
    qv_array_release(r->cols[i].cached);
    qvs_scratch_reset(&r->cols[i].scratch);
  }
  qv_free(r->cols);
  qv_free(r->deleted);
  qv_free(r->rel);
  qvs_datafile_close(r->df);
  qv_free(r);
}

int64_t qv_fragment_num_rows(const qv_fragment_reader *r) { return r->df->num_rows; }

int32_t qv_fragment_num_pages(const qv_fragment_reader *r, int32_t column) {
  if (column < 0 || column >= r->df->n_columns) return 0;
  return r->df->columns[column].n_pages;
}

void qv_fragment_page(const qv_fragment_reader *r, int32_t column, int32_t page, qv_page_info *out) {
  memset(out, 0, sizeof *out);
  if (column < 0 || column >= r->df->n_columns || page < 0 || page >= r->df->columns[column].n_pages) return;
  const qvs_page *pg = &r->df->columns[column].pages[page];
  out->row_start = pg->row_start;
  out->row_count = pg->row_count;
  out->byte_size = pg->stored_len;
  out->encoding = pg->encoding;
  out->compression = pg->compression;
  out->stats = &pg->stats;
}

const uint8_t *qv_fragment_deleted(const qv_fragment_reader *r) { return r->deleted; }

void qv_fragment_counters(const qv_fragment_reader *r, int32_t column, qv_io_counters *out) {
  memset(out, 0, sizeof *out);
  if (column >= 0 && column < r->df->n_columns) *out = r->cols[column].ctr;
}

/* Index of the page holding row (pages cover [0, num_rows) in order). */
static int32_t page_of(const qvs_column *c, int64_t row) {
  int32_t lo = 0, hi = c->n_pages - 1;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo + 1) / 2;
    if (c->pages[mid].row_start <= row) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* The whole page decoded (cached: a scan reads pages in order, and a
 * take after a read of the same page costs nothing). */
static qv_status page_array(qv_fragment_reader *r, int32_t col, int32_t page, qv_array **out, qv_error *err) {
  frag_col *fc = &r->cols[col];
  if (fc->cached_page == page) {
    *out = qv_array_retain(fc->cached);
    return QV_OK;
  }
  qvs_view v;
  QV_RETURN_NOT_OK(qvs_view_full(r->df, col, page, &fc->scratch, &fc->ctr, &v, err));
  const qv_datatype *t = &r->df->columns[col].field.type;
  qv_array *a = NULL;
  qv_status st;
  switch (v.pg->encoding) {
    case QV_ENCODING_DICTIONARY: st = qvs_decode_dict(&v, t, &a, err); break;
    case QV_ENCODING_BITPACK_FOR: st = qvs_decode_bitpack(&v, t, &a, err); break;
    case QV_ENCODING_FSST: st = qvs_decode_fsst(&v, t, &a, err); break;
    default: st = qvs_decode_plain(&v, t, &a, err); break;
  }
  qvs_view_release(&v); /* a plain page's bytes live on in a's buffers */
  if (st != QV_OK) return st;
  qv_array_release(fc->cached);
  fc->cached = qv_array_retain(a);
  fc->cached_page = page;
  *out = a;
  return QV_OK;
}

static qv_status empty_array(const qv_datatype *t, qv_array **out, qv_error *err) {
  qv_builder b;
  QV_RETURN_NOT_OK(qv_builder_init(&b, t, err));
  return qv_builder_finish(&b, out, err);
}

static qv_status check_column(const qv_fragment_reader *r, int32_t column, qv_error *err) {
  if (column < 0 || column >= r->df->n_columns)
    return qv_error_set(err, QV_ERR_INVALID, "%s: no column %d (the file has %d)", r->df->name, column,
                        r->df->n_columns);
  return QV_OK;
}

qv_status qv_fragment_read(qv_fragment_reader *r, int32_t column, int64_t row_start, int64_t row_count, qv_array **out,
                           qv_error *err) {
  *out = NULL;
  QV_RETURN_NOT_OK(check_column(r, column, err));
  const qvs_column *c = &r->df->columns[column];
  if (row_start < 0 || row_count < 0 || row_start > r->df->num_rows || row_count > r->df->num_rows - row_start)
    return qv_error_set(err, QV_ERR_INVALID, "%s: rows [%lld, +%lld) are outside the fragment's %lld", r->df->name,
                        (long long)row_start, (long long)row_count, (long long)r->df->num_rows);
  if (row_count == 0) return empty_array(&c->field.type, out, err);
  int32_t first = page_of(c, row_start), last = page_of(c, row_start + row_count - 1);
  int32_t np = last - first + 1;
  qv_array *one[1];
  qv_array **parts = np == 1 ? one : qv_calloc((size_t)np, sizeof *parts);
  if (!parts) return qv_error_nomem(err, NULL);
  qv_status st = QV_OK;
  int32_t got = 0;
  for (int32_t p = first; p <= last; p++) {
    const qvs_page *pg = &c->pages[p];
    qv_array *a = NULL;
    if ((st = page_array(r, column, p, &a, err)) != QV_OK) goto cleanup;
    int64_t s = row_start > pg->row_start ? row_start - pg->row_start : 0;
    int64_t e =
        row_start + row_count < pg->row_start + pg->row_count ? row_start + row_count - pg->row_start : pg->row_count;
    if (s == 0 && e == pg->row_count) {
      parts[got++] = a;
    } else {
      st = qv_array_slice(a, s, e - s, &parts[got], err);
      qv_array_release(a);
      if (st != QV_OK) goto cleanup;
      got++;
    }
  }
  if (got == 1) {
    *out = parts[0];
    parts[0] = NULL;
    got = 0;
  } else {
    st = qv_array_concat(parts, got, out, err);
  }
cleanup:
  for (int32_t i = 0; i < got; i++) qv_array_release(parts[i]);
  if (parts != one) qv_free(parts);
  return st;
}

/* The rows of a take: rows[k] (qv_fragment_take), or base + sel[k]
 * (qv_fragment_take_selection); sorted and inside the fragment. */
typedef struct take_rows {
  const int64_t *rows;
  int64_t base;
  const uint32_t *sel;
  int64_t n;
} take_rows;

static inline int64_t row_at(const take_rows *t, int64_t k) { return t->rows ? t->rows[k] : t->base + t->sel[k]; }

/* The rows from k on that fall in the page p holding row k: their count,
 * and *rel pointing at them page-relative.  A selection taken from the
 * start of its page is page-relative already and is used as it is. */
static int64_t page_rows(qv_fragment_reader *r, const qvs_column *c, const take_rows *t, int64_t k, int32_t *p,
                         const uint32_t **rel) {
  *p = page_of(c, row_at(t, k));
  const qvs_page *pg = &c->pages[*p];
  int64_t end = pg->row_start + pg->row_count;
  if (t->sel && t->base == pg->row_start) {
    int64_t cnt = t->n - k;
    if (row_at(t, t->n - 1) >= end)
      for (cnt = 0; k + cnt < t->n && row_at(t, k + cnt) < end;) cnt++;
    *rel = t->sel + k;
    return cnt;
  }
  int64_t cnt = 0;
  for (; k + cnt < t->n && row_at(t, k + cnt) < end; cnt++)
    r->rel[cnt] = (uint32_t)(row_at(t, k + cnt) - pg->row_start);
  *rel = r->rel;
  return cnt;
}

static qv_status take_nested(qv_fragment_reader *r, int32_t column, const take_rows *t, qv_array **out, qv_error *err) {
  const qvs_column *c = &r->df->columns[column];
  int32_t np = page_of(c, row_at(t, t->n - 1)) - page_of(c, row_at(t, 0)) + 1;
  qv_array **parts = qv_calloc((size_t)np, sizeof *parts);
  if (!parts) return qv_error_nomem(err, NULL);
  qv_status st = QV_OK;
  int32_t got = 0;
  for (int64_t k = 0; k < t->n;) {
    int32_t p;
    const uint32_t *rel;
    int64_t cnt = page_rows(r, c, t, k, &p, &rel);
    qv_array *a = NULL;
    if ((st = page_array(r, column, p, &a, err)) != QV_OK) goto cleanup;
    st = qv_array_take(a, rel, cnt, &parts[got], err);
    qv_array_release(a);
    if (st != QV_OK) goto cleanup;
    got++;
    k += cnt;
  }
  st = got == 1 ? (*out = qv_array_retain(parts[0]), QV_OK) : qv_array_concat(parts, got, out, err);
cleanup:
  for (int32_t i = 0; i < got; i++) qv_array_release(parts[i]);
  qv_free(parts);
  return st;
}

qv_status qv_fragment_read_encoded(qv_fragment_reader *r, int32_t column, int64_t row_start, int64_t row_count,
                                   qv_array **out, qv_error *err) {
  *out = NULL;
  QV_RETURN_NOT_OK(check_column(r, column, err));
  const qvs_column *c = &r->df->columns[column];
  if (row_count > 0 && row_start >= 0 && row_start < r->df->num_rows) {
    int32_t p = page_of(c, row_start);
    const qvs_page *pg = &c->pages[p];
    if (pg->encoding == QV_ENCODING_DICTIONARY && pg->row_start == row_start && pg->row_count == row_count) {
      qvs_view v;
      QV_RETURN_NOT_OK(qvs_view_full(r->df, column, p, &r->cols[column].scratch, &r->cols[column].ctr, &v, err));
      qv_status st = qvs_decode_dict_encoded(&v, &c->field.type, out, err);
      qvs_view_release(&v); /* not plain: nothing to release, but the rule holds */
      return st;
    }
  }
  return qv_fragment_read(r, column, row_start, row_count, out, err);
}

/* Room for n page-relative rows in r->rel. */
static qv_status reserve_rel(qv_fragment_reader *r, int64_t n, qv_error *err) {
  if (n <= r->rel_cap) return QV_OK;
  uint32_t *rel = qv_realloc(r->rel, (size_t)n * sizeof *rel);
  if (!rel) return qv_error_nomem(err, NULL);
  r->rel = rel;
  r->rel_cap = n;
  return QV_OK;
}

/* The take itself, page by page: rows checked by the caller. */
static qv_status take(qv_fragment_reader *r, int32_t column, const take_rows *t, qv_array **out, qv_error *err) {
  const qvs_column *c = &r->df->columns[column];
  const qv_datatype *type = &c->field.type;
  if (t->n == 0) return empty_array(type, out, err);
  QV_RETURN_NOT_OK(reserve_rel(r, t->n, err));
  if (qvs_is_nested(type->id)) return take_nested(r, column, t, out, err);
  frag_col *fc = &r->cols[column];
  qvs_acc acc;
  QV_RETURN_NOT_OK(qvs_acc_init(&acc, type, t->n, err));
  qv_status st = QV_OK;
  for (int64_t k = 0; k < t->n;) {
    int32_t p;
    const uint32_t *rel;
    int64_t cnt = page_rows(r, c, t, k, &p, &rel);
    const qvs_page *pg = &c->pages[p];
    /* A bit-packed page of which an eighth or more is wanted is cheaper to
     * unpack whole (a vectorized loop) than value by value. */
    bool dense = pg->encoding == QV_ENCODING_BITPACK_FOR && cnt * 8 >= pg->row_count;
    if (fc->cached_page == p || dense || (pg->compression != QV_COMPRESSION_NONE && !pg->framed)) {
      qv_array *a = NULL;
      if ((st = page_array(r, column, p, &a, err)) != QV_OK) goto cleanup;
      st = qvs_acc_append(&acc, a, rel, 0, cnt, err);
      qv_array_release(a);
      if (st != QV_OK) goto cleanup;
    } else {
      qvs_view v;
      if ((st = qvs_view_partial(r->df, column, p, &fc->scratch, &fc->ctr, &v, err)) != QV_OK) goto cleanup;
      switch (pg->encoding) {
        case QV_ENCODING_DICTIONARY: st = qvs_take_dict(&v, type, rel, cnt, &acc, err); break;
        case QV_ENCODING_BITPACK_FOR: st = qvs_take_bitpack(&v, type, rel, cnt, &acc, err); break;
        case QV_ENCODING_FSST: st = qvs_take_fsst(&v, type, rel, cnt, &acc, err); break;
        default: st = qvs_take_plain(&v, type, rel, cnt, &acc, err); break;
      }
      qvs_view_release(&v); /* a partial view holds none; one loaded whole may */
      if (st != QV_OK) goto cleanup;
    }
    k += cnt;
  }
  return qvs_acc_finish(&acc, out, err);
cleanup:
  qvs_acc_reset(&acc);
  return st;
}

qv_status qv_fragment_take(qv_fragment_reader *r, int32_t column, const int64_t *rows, int64_t n, qv_array **out,
                           qv_error *err) {
  *out = NULL;
  QV_RETURN_NOT_OK(check_column(r, column, err));
  if (n < 0) return qv_error_set(err, QV_ERR_INVALID, "take of %lld rows", (long long)n);
  for (int64_t k = 0; k < n; k++)
    if (rows[k] < 0 || rows[k] >= r->df->num_rows || (k && rows[k] < rows[k - 1]))
      return qv_error_set(err, QV_ERR_INVALID,
                          "%s: take: row %lld (position %lld) is out of order or outside the "
                          "fragment's %lld rows",
                          r->df->name, (long long)rows[k], (long long)k, (long long)r->df->num_rows);
  take_rows t = {rows, 0, NULL, n};
  return take(r, column, &t, out, err);
}

qv_status qv_fragment_take_selection(qv_fragment_reader *r, int32_t column, int64_t base, const uint32_t *sel,
                                     int64_t n, qv_array **out, qv_error *err) {
  *out = NULL;
  QV_RETURN_NOT_OK(check_column(r, column, err));
  if (n < 0) return qv_error_set(err, QV_ERR_INVALID, "take of %lld rows", (long long)n);
  /* one branch-free pass (it vectorizes); the message finds the row */
  bool unsorted = false;
  for (int64_t k = 1; k < n; k++) unsorted |= sel[k] < sel[k - 1];
  if (n && (unsorted || base + sel[0] < 0 || base + sel[n - 1] >= r->df->num_rows)) {
    int64_t k = 0;
    while (base + sel[k] >= 0 && base + sel[k] < r->df->num_rows && (k == 0 || sel[k] >= sel[k - 1])) k++;
    return qv_error_set(err, QV_ERR_INVALID,
                        "%s: take: row %lld (position %lld) is out of order or outside the "
                        "fragment's %lld rows",
                        r->df->name, (long long)(base + sel[k]), (long long)k, (long long)r->df->num_rows);
  }
  take_rows t = {NULL, base, sel, n};
  return take(r, column, &t, out, err);
}
