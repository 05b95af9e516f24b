/* Writing scan results: an aligned table, CSV, JSON Lines, an Arrow IPC
 * stream, or a one-line summary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "cli.h"

/* This process's peak resident set (VmHWM), for --format stats; -1 where
 * /proc is not there.  Read from /proc rather than getrusage because
 * ru_maxrss also counts the memory of the process that forked us, which
 * for a benchmark driver in Python is larger than the scan. */
long long cli_peak_rss_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long long kib = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %lld kB", &kib) == 1) break;
  fclose(f);
  return kib;
}

bool cli_parse_format(const char *text, cli_format *out) {
  static const struct {
    const char *name;
    cli_format f;
  } names[] = {{"table", FMT_TABLE}, {"csv", FMT_CSV}, {"json", FMT_JSON}, {"arrow", FMT_ARROW}, {"stats", FMT_STATS}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(text, names[i].name)) {
      *out = names[i].f;
      return true;
    }
  return false;
}

/* ---- table ------------------------------------------------------------ */

#define TABLE_SAMPLE_ROWS 1000 /* rows read before the column widths are fixed */
#define CELL_MAX 48

/* One character of s (at most n bytes): its length in bytes and its display
 * columns (2 for wide characters such as CJK and most emoji, 0 for
 * combining marks, as utf8proc says).  A byte that starts no valid UTF-8
 * sequence counts as one column of one byte. */
static int char_at(const char *s, size_t n, int *cols) {
  utf8proc_int32_t cp;
  utf8proc_ssize_t len = utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)n, &cp);
  if (len <= 0) {
    *cols = 1;
    return 1;
  }
  int w = utf8proc_charwidth(cp);
  *cols = w < 0 ? 0 : w;
  return (int)len;
}

static int width_of(const char *s) {
  int w = 0, cols;
  for (size_t n = strlen(s); n;) {
    int len = char_at(s, n, &cols);
    w += cols;
    s += len;
    n -= (size_t)len;
  }
  return w;
}

/* Writes cell padded or clipped (with "…") to exactly w display columns.  A
 * clipped cell is cut at a character boundary: its characters fill at most
 * w - 1 columns (a wide one that would cross into the ellipsis's column goes,
 * and a space fills its place), combining marks stay with their base. */
static void put_cell(FILE *f, const char *cell, int w, bool right) {
  int cw = width_of(cell);
  if (cw > w) {
    const char *p = cell;
    int used = 0, cols;
    for (size_t n = strlen(cell); n;) {
      int len = char_at(p, n, &cols);
      if (used + cols > w - 1) break;
      used += cols;
      p += len;
      n -= (size_t)len;
    }
    fwrite(cell, 1, (size_t)(p - cell), f);
    fputs("\xE2\x80\xA6", f);
    fprintf(f, "%*s", w - 1 - used, "");
    return;
  }
  if (right) fprintf(f, "%*s%s", w - cw, "", cell);
  else fprintf(f, "%s%*s", cell, w - cw, "");
}

typedef struct table_state {
  qv_batch **held;
  int32_t n_held;
  int64_t held_rows;
  int *width;
  bool header_done;
} table_state;

static void table_rows(const qv_batch *b, const int *width, FILE *f) {
  char cell[1024];
  for (int64_t r = 0; r < b->num_rows; r++) {
    for (int32_t c = 0; c < b->schema.n_fields; c++) {
      qv_array_format_value(b->columns[c], r, cell, sizeof cell);
      if (c) fputs(" | ", f);
      put_cell(f, cell, width[c], qv_type_is_numeric(b->columns[c]->type.id));
    }
    fputc('\n', f);
  }
}

static void table_flush(table_state *t, const qv_schema *s, FILE *f) {
  if (!t->header_done) {
    char cell[1024];
    for (int32_t c = 0; c < s->n_fields; c++) {
      int w = width_of(s->fields[c].name);
      for (int32_t k = 0; k < t->n_held; k++)
        for (int64_t r = 0; r < t->held[k]->num_rows; r++) {
          qv_array_format_value(t->held[k]->columns[c], r, cell, sizeof cell);
          int cw = width_of(cell);
          if (cw > w) w = cw;
        }
      t->width[c] = w > CELL_MAX ? CELL_MAX : w;
    }
    for (int32_t c = 0; c < s->n_fields; c++) {
      if (c) fputs(" | ", f);
      put_cell(f, s->fields[c].name, t->width[c], qv_type_is_numeric(s->fields[c].type.id));
    }
    fputc('\n', f);
    for (int32_t c = 0; c < s->n_fields; c++) {
      if (c) fputs("-+-", f);
      for (int k = 0; k < t->width[c]; k++) fputc('-', f);
    }
    fputc('\n', f);
    t->header_done = true;
  }
  for (int32_t k = 0; k < t->n_held; k++) {
    table_rows(t->held[k], t->width, f);
    qv_batch_release(t->held[k]);
  }
  t->n_held = 0;
  t->held_rows = 0;
}

/* ---- CSV and JSON ------------------------------------------------------ */

static void csv_field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void write_csv(const qv_batch *b, FILE *f) {
  char cell[65536];
  for (int64_t r = 0; r < b->num_rows; r++) {
    for (int32_t c = 0; c < b->schema.n_fields; c++) {
      if (c) fputc(',', f);
      if (!qv_array_is_valid(b->columns[c], r)) continue; /* null: empty field */
      qv_array_format_value(b->columns[c], r, cell, sizeof cell);
      csv_field(f, cell);
    }
    fputc('\n', f);
  }
}

static void json_value(FILE *f, const qv_array *a, int64_t i) {
  if (!qv_array_is_valid(a, i) || a->type.id == QV_TYPE_NULL) {
    fputs("null", f);
    return;
  }
  int64_t j = a->offset + i;
  char cell[65536];
  switch (a->type.id) {
    case QV_TYPE_BOOL:
    case QV_TYPE_INT8:
    case QV_TYPE_INT16:
    case QV_TYPE_INT32:
    case QV_TYPE_INT64:
    case QV_TYPE_UINT8:
    case QV_TYPE_UINT16:
    case QV_TYPE_UINT32:
    case QV_TYPE_UINT64:
    case QV_TYPE_DECIMAL128:
      qv_array_format_value(a, i, cell, sizeof cell);
      fputs(cell, f);
      return;
    case QV_TYPE_FLOAT32:
    case QV_TYPE_FLOAT64: {
      double d = a->type.id == QV_TYPE_FLOAT32 ? ((const float *)a->buffers[1]->data)[j]
                                               : ((const double *)a->buffers[1]->data)[j];
      if (!isfinite(d)) { /* JSON has no NaN or infinity: null, as Polars' write_ndjson writes them */
        fputs("null", f);
        return;
      }
      qv_array_format_value(a, i, cell, sizeof cell);
      fputs(cell, f);
      return;
    }
    case QV_TYPE_STRING: {
      int32_t len;
      const uint8_t *s = qv_array_str(a, i, &len);
      cli_json_string(f, (const char *)s, (size_t)len);
      return;
    }
    case QV_TYPE_LIST:
    case QV_TYPE_FIXED_SIZE_LIST: {
      int64_t start, end;
      if (a->type.id == QV_TYPE_LIST) {
        start = qv_array_offsets(a)[i];
        end = qv_array_offsets(a)[i + 1];
      } else {
        start = j * a->type.list_size;
        end = start + a->type.list_size;
      }
      fputc('[', f);
      for (int64_t k = start; k < end; k++) {
        if (k > start) fputs(", ", f);
        json_value(f, a->children[0], k);
      }
      fputc(']', f);
      return;
    }
    case QV_TYPE_STRUCT:
      fputc('{', f);
      for (int32_t c = 0; c < a->n_children; c++) {
        if (c) fputs(", ", f);
        cli_json_string(f, a->type.children[c].name, strlen(a->type.children[c].name));
        fputs(": ", f);
        json_value(f, a->children[c], j);
      }
      fputc('}', f);
      return;
    default: /* dates, times, binary: their text form as a string */
      qv_array_format_value(a, i, cell, sizeof cell);
      cli_json_string(f, cell, strlen(cell));
      return;
  }
}

static void write_json(const qv_batch *b, FILE *f) {
  for (int64_t r = 0; r < b->num_rows; r++) {
    fputc('{', f);
    for (int32_t c = 0; c < b->schema.n_fields; c++) {
      if (c) fputs(", ", f);
      cli_json_string(f, b->schema.fields[c].name, strlen(b->schema.fields[c].name));
      fputs(": ", f);
      json_value(f, b->columns[c], r);
    }
    fputs("}\n", f);
  }
}

/* ---- driver ------------------------------------------------------------ */

static void csv_header(const qv_schema *schema, FILE *f) {
  for (int32_t c = 0; c < schema->n_fields; c++) {
    if (c) fputc(',', f);
    csv_field(f, schema->fields[c].name);
  }
  fputc('\n', f);
}

/* Nothing reaches stdout before the first batch has come back whole: the
 * CSV header and the Arrow schema go out with it (or at the end, for no
 * rows), and the table keeps its first TABLE_SAMPLE_ROWS rows anyway.  So
 * an error in the first batch (a damaged page, a cast that fails) leaves
 * stdout empty.  An error later cannot take back what was written: the
 * rows written stay, stderr says how many, and the exit status is 1; no
 * row count is printed as if the scan had ended.  FMT_STATS writes nothing
 * here (the caller prints its counters). */
int cli_write_batches(const char *cmd, const qv_schema *schema, cli_next_fn next, void *src, cli_format fmt,
                      int64_t *rows) {
  qv_error err;
  FILE *f = stdout;
  qv_ipc_writer *w = NULL;
  table_state t = {0};
  int rc = 0;
  bool started = false; /* header or schema written */
  bool scan_failed = false;
  int64_t written = 0; /* rows handed to stdout */
  *rows = 0;
  if (fmt == FMT_TABLE) {
    t.width = calloc((size_t)schema->n_fields + 1, sizeof *t.width);
    t.held = calloc(TABLE_SAMPLE_ROWS + 1, sizeof *t.held);
    if (!t.width || !t.held) {
      fprintf(stderr, "quiver %s: out of memory\n", cmd);
      rc = 1;
      goto cleanup;
    }
  }
  for (;;) {
    qv_batch *b;
    if (next(src, &b, &err) != QV_OK) {
      scan_failed = true;
      break;
    }
    if (!started && (fmt == FMT_CSV || fmt == FMT_ARROW)) {
      /* the first batch (or the end) came back: the output can start */
      if (fmt == FMT_CSV) csv_header(schema, f);
      else if (qv_ipc_writer_open(f, QV_IPC_STREAM, schema, &w, &err) != QV_OK) {
        qv_batch_release(b);
        scan_failed = true;
        break;
      }
      started = true;
    }
    if (!b) break;
    *rows += b->num_rows;
    switch (fmt) {
      case FMT_TABLE:
        t.held[t.n_held++] = b;
        t.held_rows += b->num_rows;
        if (t.header_done || t.held_rows >= TABLE_SAMPLE_ROWS || t.n_held == TABLE_SAMPLE_ROWS) {
          written += t.held_rows;
          table_flush(&t, schema, f);
        }
        continue; /* the table keeps the batch until flushed */
      case FMT_CSV: write_csv(b, f); break;
      case FMT_JSON: write_json(b, f); break;
      case FMT_ARROW:
        if (qv_ipc_writer_write(w, b, &err) != QV_OK) scan_failed = true;
        break;
      case FMT_STATS: break;
    }
    if (!scan_failed && fmt != FMT_STATS) written += b->num_rows;
    qv_batch_release(b);
    if (scan_failed) break;
  }
  if (scan_failed) {
    /* the rows written first, then what went wrong, also on one terminal */
    fflush(f);
    rc = cli_fail(cmd, &err);
    if (written > 0)
      fprintf(stderr, "quiver %s: the output is incomplete: %lld row%s written before the error\n", cmd,
              (long long)written, written == 1 ? " was" : "s were");
    qv_ipc_writer_destroy(w); /* no end-of-stream marker after the last batch written */
    w = NULL;
    *rows = written;
    goto cleanup;
  }
  if (fmt == FMT_TABLE) {
    table_flush(&t, schema, f);
    fflush(f); /* the count follows the table, also when both go to one terminal */
    fprintf(stderr, "(%lld row%s)\n", (long long)*rows, *rows == 1 ? "" : "s");
  }
  if (w) {
    rc = qv_ipc_writer_close(w, &err) != QV_OK ? cli_fail(cmd, &err) : 0;
    w = NULL;
  }
cleanup:
  for (int32_t k = 0; k < t.n_held; k++) qv_batch_release(t.held[k]);
  free(t.held);
  free(t.width);
  if (fflush(f) != 0 && rc == 0) {
    fprintf(stderr, "quiver %s: cannot write the output\n", cmd);
    rc = 1;
  }
  return rc;
}

static qv_status scanner_next(void *sc, qv_batch **out, qv_error *err) { return qv_scanner_next(sc, out, err); }

int cli_write_scan(const char *cmd, qv_scanner *sc, cli_format fmt, int64_t *rows) {
  int rc = cli_write_batches(cmd, qv_scanner_schema(sc), scanner_next, sc, fmt, rows);
  if (rc == 0 && fmt == FMT_STATS) {
    qv_scan_counters c;
    qv_scanner_counters(sc, &c);
    int64_t read = 0, decoded = 0;
    for (int32_t i = 0; i < c.n_columns; i++) {
      read += c.columns[i].bytes_read;
      decoded += c.columns[i].bytes_decoded;
    }
    printf(
        "rows=%lld pages=%lld pages_pruned=%lld rows_scanned=%lld bytes_read=%lld bytes_decoded=%lld "
        "index_fallback_fragments=%lld peak_rss_kib=%lld\n",
        (long long)*rows, (long long)c.pages_total, (long long)c.pages_pruned, (long long)c.rows_scanned,
        (long long)read, (long long)decoded, (long long)c.index_fallback_fragments, cli_peak_rss_kib());
    if (fflush(stdout) != 0) {
      fprintf(stderr, "quiver %s: cannot write the output\n", cmd);
      rc = 1;
    }
  }
  return rc;
}
