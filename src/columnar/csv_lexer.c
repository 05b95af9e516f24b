/* CSV tokenizer: turns a byte stream, read a chunk at a time, into records
 * of unquoted fields.  The state machine survives chunk boundaries, so a
 * record (or a quoted field spanning lines, or a UTF-8 sequence) may be cut
 * anywhere by a refill.  Memory is the chunk plus the record being built.
 *
 * Dialect (documented in csv.c too):
 *  - a line ends at LF, CRLF or a lone CR; lines are counted the same way
 *    inside quoted fields, so error lines match what an editor shows;
 *  - a quote opens a quoted field only as the field's first byte; inside it
 *    a doubled quote is one quote, and after the closing quote only a
 *    delimiter or line end may follow; a quote in the middle of an unquoted
 *    field is an ordinary byte;
 *  - the escape byte (if set) makes the next byte literal, quoted or not;
 *  - a line with no bytes at all is skipped;
 *  - a UTF-8 byte-order mark at the very start is skipped. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "columnar/csv_int.h"

enum {
  S_FIELD_START = 0, /* before the first byte of a field */
  S_UNQUOTED,
  S_QUOTED,
  S_QUOTE_IN_QUOTED, /* saw a quote inside a quoted field: doubled or closing */
  S_ESC_UNQUOTED,    /* saw the escape byte */
  S_ESC_QUOTED
};

void csv_record_free(csv_record *r) {
  qv_free(r->data);
  qv_free(r->fields);
  memset(r, 0, sizeof *r);
}

/* ---- source ------------------------------------------------------------ */

static void lexer_common_init(csv_lexer *lx, const char *name, const csv_dialect *d, int64_t chunk_size) {
  memset(lx, 0, sizeof *lx);
  lx->name = name;
  lx->chunk_size = chunk_size < 4 ? 4 : chunk_size;
  lx->delimiter = d->delimiter;
  lx->quote = d->quote;
  /* An escape equal to the quote is the RFC doubling, which is always on. */
  lx->escape = d->escape == d->quote ? '\0' : d->escape;
  lx->special[(uint8_t)lx->delimiter] = 1;
  lx->special['\r'] = 1;
  lx->special['\n'] = 1;
  if (lx->quote) lx->special[(uint8_t)lx->quote] = 1;
  if (lx->escape) lx->special[(uint8_t)lx->escape] = 1;
  memcpy(lx->special_quoted, lx->special, sizeof lx->special);
  lx->special_quoted[(uint8_t)lx->delimiter] = 0;
  lx->line = 1;
  lx->max_record = QV_CSV_MAX_RECORD;
  lx->utf8_lo = 0x80;
  lx->utf8_hi = 0xBF;
}

qv_status csv_lexer_init_file(csv_lexer *lx, const char *name, FILE *f, bool close_file, const csv_dialect *d,
                              int64_t chunk_size, qv_error *err) {
  lexer_common_init(lx, name, d, chunk_size);
  lx->chunk_buf = qv_malloc((size_t)lx->chunk_size);
  if (!lx->chunk_buf) {
    if (close_file) fclose(f);
    return qv_error_nomem(err, name);
  }
  lx->file = f;
  lx->close_file = close_file;
  return QV_OK;
}

qv_status csv_lexer_init_buffer(csv_lexer *lx, const char *name, const char *data, int64_t size, const csv_dialect *d,
                                int64_t chunk_size, qv_error *err) {
  lexer_common_init(lx, name, d, chunk_size);
  /* The copy lets the reader outlive the caller's buffer (as IPC does). */
  lx->mem = qv_malloc(size > 0 ? (size_t)size : 1);
  if (!lx->mem) return qv_error_nomem(err, name);
  if (size > 0) memcpy(lx->mem, data, (size_t)size);
  lx->mem_size = size;
  return QV_OK;
}

void csv_lexer_free(csv_lexer *lx) {
  if (lx->file && lx->close_file) fclose(lx->file);
  qv_free(lx->chunk_buf);
  qv_free(lx->mem);
  memset(lx, 0, sizeof *lx);
}

/* Checks chunk[from..chunk_len) as UTF-8, continuing the sequence state of
 * the previous chunk; sets lx->limit to the first offending byte. */
static void utf8_scan(csv_lexer *lx, int64_t from) {
  const uint8_t *p = lx->chunk;
  int64_t n = lx->chunk_len, i = from;
  int need = lx->utf8_need;
  uint8_t lo = lx->utf8_lo, hi = lx->utf8_hi;
  while (i < n) {
    if (need == 0) {
      /* ASCII dominates real files: test eight bytes at once. */
      while (i + 8 <= n) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (w & UINT64_C(0x8080808080808080)) break;
        i += 8;
      }
      if (i >= n) break;
      uint8_t b = p[i];
      if (b < 0x80) {
        i++;
        continue;
      }
      lx->utf8_seq_start = lx->chunk_base + i;
      lo = 0x80;
      hi = 0xBF;
      if (b >= 0xC2 && b <= 0xDF) need = 1;
      else if (b == 0xE0) {
        need = 2;
        lo = 0xA0;
      } else if (b == 0xED) {
        need = 2;
        hi = 0x9F;
      } /* no surrogates */
      else if (b >= 0xE1 && b <= 0xEF)
        need = 2;
      else if (b == 0xF0) {
        need = 3;
        lo = 0x90;
      } else if (b >= 0xF1 && b <= 0xF3) need = 3;
      else if (b == 0xF4) {
        need = 3;
        hi = 0x8F;
      } /* <= U+10FFFF */
      else
        break; /* 80..C1, F5..FF */
      i++;
    } else {
      uint8_t b = p[i];
      if (b < lo || b > hi) break;
      need--;
      lo = 0x80;
      hi = 0xBF;
      i++;
    }
  }
  lx->utf8_need = need;
  lx->utf8_lo = lo;
  lx->utf8_hi = hi;
  lx->limit = i;
}

/* Loads the next chunk; *got is false at the end of input. */
static qv_status refill(csv_lexer *lx, bool *got, qv_error *err) {
  *got = false;
  if (lx->eof) return QV_OK;
  lx->chunk_base += lx->chunk_len;
  int64_t n = 0;
  if (lx->file) {
    n = (int64_t)fread(lx->chunk_buf, 1, (size_t)lx->chunk_size, lx->file);
    if (n < lx->chunk_size) {
      if (ferror(lx->file))
        return qv_error_set(err, QV_ERR_IO, "%s: read failed at byte %" PRId64 ": %s", lx->name, lx->chunk_base + n,
                            strerror(errno));
      /* Never read again after a short read: on a terminal that would wait
       * for a second end-of-file. */
      lx->eof = true;
    }
    lx->chunk = lx->chunk_buf;
  } else {
    n = lx->mem_size - lx->mem_pos;
    if (n > lx->chunk_size) n = lx->chunk_size;
    lx->chunk = lx->mem + lx->mem_pos;
    lx->mem_pos += n;
    if (lx->mem_pos == lx->mem_size) lx->eof = true;
  }
  lx->chunk_len = n;
  lx->pos = 0;
  if (lx->bytes_read) *lx->bytes_read = lx->chunk_base + n;
  if (!lx->started) {
    lx->started = true;
    /* The first chunk holds >= 3 bytes unless the input is shorter, since
     * chunk_size >= 4 and fread only returns short at end of file. */
    if (n >= 3 && lx->chunk[0] == 0xEF && lx->chunk[1] == 0xBB && lx->chunk[2] == 0xBF) lx->pos = 3;
  }
  utf8_scan(lx, lx->pos);
  *got = n > lx->pos;
  return QV_OK;
}

/* ---- record building --------------------------------------------------- */

static qv_status rec_reserve(csv_lexer *lx, csv_record *r, int64_t extra, qv_error *err) {
  if (r->size + extra > lx->max_record + 1) {
    return qv_error_set(err, QV_ERR_PARSE, "%s: line %" PRId64 ": record longer than %" PRId64 " bytes%s", lx->name,
                        r->line, lx->max_record, lx->state == S_QUOTED ? " (is a quote left open?)" : "");
  }
  if (r->size + extra <= r->cap) return QV_OK;
  int64_t cap = r->cap ? r->cap : 256;
  while (cap < r->size + extra) cap *= 2;
  uint8_t *d = qv_realloc(r->data, (size_t)cap);
  if (!d) return qv_error_nomem(err, lx->name);
  r->data = d;
  r->cap = cap;
  return QV_OK;
}

static qv_status rec_append(csv_lexer *lx, csv_record *r, const uint8_t *p, int64_t n, qv_error *err) {
  QV_RETURN_NOT_OK(rec_reserve(lx, r, n, err));
  memcpy(r->data + r->size, p, (size_t)n);
  r->size += n;
  return QV_OK;
}

static qv_status end_field(csv_lexer *lx, csv_record *r, qv_error *err) {
  if (r->n_fields == r->cap_fields) {
    if (r->cap_fields > INT32_MAX / 2)
      return qv_error_set(err, QV_ERR_PARSE, "%s: line %" PRId64 ": too many fields", lx->name, r->line);
    int32_t cap = r->cap_fields ? r->cap_fields * 2 : 16;
    csv_field *f = qv_realloc(r->fields, (size_t)cap * sizeof *f);
    if (!f) return qv_error_nomem(err, lx->name);
    r->fields = f;
    r->cap_fields = cap;
  }
  csv_field *f = &r->fields[r->n_fields++];
  f->off = lx->field_start;
  f->len = r->size - lx->field_start;
  f->quoted = lx->field_quoted;
  /* The NUL lets number parsers hand the text to strtod in place. */
  QV_RETURN_NOT_OK(rec_reserve(lx, r, 1, err));
  r->data[r->size++] = '\0';
  lx->field_start = r->size;
  lx->field_quoted = false;
  lx->state = S_FIELD_START;
  return QV_OK;
}

static void count_line_end(csv_lexer *lx, uint8_t c) {
  if (c == '\r') {
    lx->line++;
    lx->prev_cr = true;
  } else if (c == '\n') {
    if (!lx->prev_cr) lx->line++;
    lx->prev_cr = false;
  } else {
    lx->prev_cr = false;
  }
}

static bool is_blank(const csv_record *r) { return r->n_fields == 1 && r->fields[0].len == 0 && !r->fields[0].quoted; }

static void rec_clear(csv_lexer *lx, csv_record *r) {
  r->size = 0;
  r->n_fields = 0;
  lx->field_start = 0;
  lx->field_quoted = false;
  lx->in_record = false;
  lx->state = S_FIELD_START;
}

static qv_status utf8_error(csv_lexer *lx, const csv_record *r, qv_error *err) {
  int64_t at = lx->chunk_base + lx->limit;
  int64_t start = lx->utf8_need > 0 ? lx->utf8_seq_start : at;
  return qv_error_set(err, QV_ERR_PARSE,
                      "%s: line %" PRId64 ", field %d: invalid UTF-8 (byte 0x%02X at offset %" PRId64
                      ", sequence starting at offset %" PRId64 ")",
                      lx->name, lx->line, (int)r->n_fields + 1, lx->chunk[lx->limit], at, start);
}

/* What to do at the end of input, by state. */
static qv_status at_end(csv_lexer *lx, csv_record *r, bool *got, qv_error *err) {
  if (lx->utf8_need > 0)
    return qv_error_set(err, QV_ERR_PARSE,
                        "%s: line %" PRId64
                        ", field %d: invalid UTF-8 (sequence starting at "
                        "offset %" PRId64 " is cut off by the end of input)",
                        lx->name, lx->line, (int)r->n_fields + 1, lx->utf8_seq_start);
  switch (lx->state) {
    case S_QUOTED:
    case S_ESC_QUOTED:
      return qv_error_set(err, QV_ERR_PARSE,
                          "%s: line %" PRId64 ": quoted field opened on line %" PRId64
                          " is not closed before the end of input",
                          lx->name, lx->line, lx->quote_line);
    case S_ESC_UNQUOTED:
      return qv_error_set(err, QV_ERR_PARSE, "%s: line %" PRId64 ": escape character at the end of input", lx->name,
                          lx->line);
    default: break;
  }
  /* In S_FIELD_START with a record open ("a," at the end) the last field is
   * empty; with none open there is nothing left. */
  if (lx->state == S_FIELD_START && !lx->in_record) return QV_OK;
  QV_RETURN_NOT_OK(end_field(lx, r, err));
  lx->in_record = false;
  *got = !is_blank(r);
  return QV_OK;
}

qv_status csv_lexer_next(csv_lexer *lx, csv_record *r, bool *got, qv_error *err) {
  *got = false;
  rec_clear(lx, r);
  for (;;) {
    if (lx->pos >= lx->limit) {
      if (lx->limit < lx->chunk_len) return utf8_error(lx, r, err);
      bool more = false;
      QV_RETURN_NOT_OK(refill(lx, &more, err));
      if (!more && lx->eof) return at_end(lx, r, got, err);
      continue; /* new bytes, or a chunk that held only the byte-order mark */
    }
    const uint8_t *p = lx->chunk + lx->pos;
    const uint8_t *end = lx->chunk + lx->limit;
    uint8_t c = *p;
    switch (lx->state) {
      case S_FIELD_START:
        if (!lx->in_record) {
          if (c == '\n' && lx->prev_cr) { /* the LF of a CRLF that ended a record */
            lx->prev_cr = false;
            lx->pos++;
            continue;
          }
          lx->in_record = true;
          r->line = lx->line;
        }
        if (lx->quote && c == (uint8_t)lx->quote) {
          lx->state = S_QUOTED;
          lx->field_quoted = true;
          lx->quote_line = lx->line;
          lx->prev_cr = false;
          lx->pos++;
        } else if (c == (uint8_t)lx->delimiter) {
          lx->prev_cr = false;
          lx->pos++;
          QV_RETURN_NOT_OK(end_field(lx, r, err));
        } else if (c == '\r' || c == '\n') {
          goto end_record;
        } else if (lx->escape && c == (uint8_t)lx->escape) {
          lx->prev_cr = false;
          lx->state = S_ESC_UNQUOTED;
          lx->pos++;
        } else {
          lx->state = S_UNQUOTED;
        }
        continue;

      case S_UNQUOTED: {
        const uint8_t *q = p;
        while (q < end && !lx->special[*q]) q++;
        if (q > p) {
          QV_RETURN_NOT_OK(rec_append(lx, r, p, q - p, err));
          lx->prev_cr = false;
          lx->pos += q - p;
          if (q == end) continue;
          p = q; /* handle the stopping byte now rather than loop around */
          c = *q;
        }
        if (c == (uint8_t)lx->delimiter) {
          lx->pos++;
          QV_RETURN_NOT_OK(end_field(lx, r, err));
        } else if (c == '\r' || c == '\n') {
          goto end_record;
        } else if (lx->escape && c == (uint8_t)lx->escape) {
          lx->state = S_ESC_UNQUOTED;
          lx->pos++;
        } else { /* a quote inside an unquoted field is just a byte */
          QV_RETURN_NOT_OK(rec_append(lx, r, p, 1, err));
          lx->pos++;
        }
        continue;
      }

      case S_QUOTED: {
        const uint8_t *q = p;
        while (q < end && !lx->special_quoted[*q]) q++;
        if (q > p) {
          QV_RETURN_NOT_OK(rec_append(lx, r, p, q - p, err));
          lx->prev_cr = false;
          lx->pos += q - p;
          continue;
        }
        lx->pos++;
        if (c == (uint8_t)lx->quote) {
          lx->prev_cr = false;
          lx->state = S_QUOTE_IN_QUOTED;
        } else if (lx->escape && c == (uint8_t)lx->escape) {
          lx->prev_cr = false;
          lx->state = S_ESC_QUOTED;
        } else { /* a line end inside quotes: kept as is */
          count_line_end(lx, c);
          QV_RETURN_NOT_OK(rec_append(lx, r, p, 1, err));
        }
        continue;
      }

      case S_QUOTE_IN_QUOTED:
        if (c == (uint8_t)lx->quote) { /* doubled: one literal quote */
          QV_RETURN_NOT_OK(rec_append(lx, r, p, 1, err));
          lx->state = S_QUOTED;
          lx->pos++;
        } else if (c == (uint8_t)lx->delimiter) {
          lx->pos++;
          QV_RETURN_NOT_OK(end_field(lx, r, err));
        } else if (c == '\r' || c == '\n') {
          goto end_record;
        } else {
          char shown[8];
          if (c >= 0x20 && c < 0x7F) snprintf(shown, sizeof shown, "'%c'", c);
          else snprintf(shown, sizeof shown, "0x%02X", c);
          return qv_error_set(err, QV_ERR_PARSE,
                              "%s: line %" PRId64
                              ", field %d: unexpected %s after the closing "
                              "quote (expected a delimiter or line end; double a quote to "
                              "include it)",
                              lx->name, lx->line, (int)r->n_fields + 1, shown);
        }
        continue;

      case S_ESC_UNQUOTED:
      case S_ESC_QUOTED:
        count_line_end(lx, c);
        QV_RETURN_NOT_OK(rec_append(lx, r, p, 1, err));
        lx->state = lx->state == S_ESC_QUOTED ? S_QUOTED : S_UNQUOTED;
        lx->pos++;
        continue;
    }

  end_record:
    /* c is CR or LF in a position where it ends the record. */
    count_line_end(lx, c);
    lx->pos++;
    QV_RETURN_NOT_OK(end_field(lx, r, err));
    lx->in_record = false;
    if (is_blank(r)) {
      rec_clear(lx, r);
      continue;
    }
    *got = true;
    return QV_OK;
  }
}
