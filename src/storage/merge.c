/* qv_dataset_merge: upsert a source into a dataset on key columns, as one
 * transaction.  The source is read whole and its keys hashed (a duplicate
 * non-null key is an error naming it); the target is streamed fragment by
 * fragment, reading only the key columns: each live row whose key is in
 * the source is matched.  Matched rows are marked in the fragment's new
 * deletion file (update, delete) and their replacements (the source row,
 * or the target row with the update columns taken from the source) are
 * written through the fragment sink with the unmatched source rows
 * (insert).  A key with a null in any of its columns matches nothing, as
 * in SQL, Polars joins and Lance's merge_insert. */
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "base/wire.h"
#include "storage/sink.h"

/* Rows taken into one batch of replacements or inserts. */
#define MERGE_CHUNK 65536

typedef struct key_table {
  int32_t n_keys;
  const int32_t *cols; /* key column indices (schema order of the dataset) */
  qv_array **src;      /* the source's columns, concatenated */
  int64_t n_src;
  qv_buffer bytes; /* encoded keys of the source rows */
  int64_t *off;    /* n_src + 1 offsets into bytes; a null key has off[i] == -1 */
  int64_t *slots;  /* open addressing: source row + 1, 0 empty */
  uint64_t mask;
  qv_buffer scratch; /* one target key */
} key_table;

static qv_status append(qv_buffer *out, const void *p, int64_t n, qv_error *err) {
  return qv_buffer_append(out, p, n) == QV_OK ? QV_OK : qv_error_nomem(err, "merge: keys");
}

/* Appends the key of row i of the key columns to out; false when a key
 * column is null there (such a key matches nothing). */
static bool encode_key(qv_array *const *cols, int32_t n, int64_t i, qv_buffer *out, qv_status *st, qv_error *err) {
  for (int32_t k = 0; k < n; k++) {
    const qv_array *a = cols[k];
    if (!qv_array_is_valid(a, i)) return false;
    int w = qv_type_byte_width(a->type.id);
    if (a->type.id == QV_TYPE_BOOL) {
      uint8_t b = qv_bit_get(a->buffers[1]->data, a->offset + i) ? 1 : 0;
      *st = append(out, &b, 1, err);
    } else if (w > 0) {
      const uint8_t *p = (const uint8_t *)qv_array_values(a) + (size_t)i * (size_t)w;
      uint8_t v[16];
      memcpy(v, p, (size_t)w);
      /* -0.0 equals 0.0; every NaN is one key */
      if (a->type.id == QV_TYPE_FLOAT64) {
        double d;
        memcpy(&d, v, 8);
        if (d == 0) d = 0;
        if (d != d) d = __builtin_nan("");
        memcpy(v, &d, 8);
      } else if (a->type.id == QV_TYPE_FLOAT32) {
        float f;
        memcpy(&f, v, 4);
        if (f == 0) f = 0;
        if (f != f) f = __builtin_nanf("");
        memcpy(v, &f, 4);
      }
      *st = append(out, v, w, err);
    } else {
      int32_t len = 0;
      const uint8_t *p = qv_array_str(a, i, &len);
      uint8_t hdr[4];
      qv_store_u32le(hdr, (uint32_t)len);
      *st = append(out, hdr, 4, err);
      if (*st == QV_OK && len) *st = append(out, p, len, err);
    }
    if (*st != QV_OK) return false;
  }
  return true;
}

static void format_key(const key_table *kt, const qv_schema *schema, int64_t row, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = '\0';
  for (int32_t c = 0; c < kt->n_keys && k + 1 < size; c++) {
    char v[96];
    qv_array_format_value(kt->src[kt->cols[c]], row, v, sizeof v);
    int w = snprintf(buf + k, size - k, "%s%s=%s", c ? ", " : "", schema->fields[kt->cols[c]].name, v);
    if (w < 0) break;
    k += (size_t)w < size - k ? (size_t)w : size - k - 1;
  }
}

static qv_array **key_columns(const key_table *kt, qv_array **all, qv_array **out) {
  for (int32_t k = 0; k < kt->n_keys; k++) out[k] = all[kt->cols[k]];
  return out;
}

/* Finds the source row with key bytes[0..len), or -1. */
static int64_t lookup(const key_table *kt, const uint8_t *key, int64_t len, uint64_t h) {
  for (uint64_t s = h & kt->mask;; s = (s + 1) & kt->mask) {
    int64_t r = kt->slots[s] - 1;
    if (r < 0) return -1;
    if (kt->off[r + 1] - kt->off[r] == len && memcmp(kt->bytes.data + kt->off[r], key, (size_t)len) == 0) return r;
  }
}

static qv_status build_table(key_table *kt, const qv_schema *schema, qv_error *err) {
  qv_array *kc[64];
  key_columns(kt, kt->src, kc);
  kt->off = qv_malloc((size_t)(kt->n_src + 1) * sizeof *kt->off);
  uint64_t cap = 16;
  while (cap < (uint64_t)kt->n_src * 2) cap <<= 1;
  kt->slots = qv_calloc((size_t)cap, sizeof *kt->slots);
  if (!kt->off || !kt->slots) return qv_error_nomem(err, "merge: key table");
  kt->mask = cap - 1;
  int64_t *start = qv_malloc((size_t)(kt->n_src + 1) * sizeof *start);
  if (!start) return qv_error_nomem(err, "merge: key table");
  qv_status st = QV_OK;
  for (int64_t i = 0; i < kt->n_src && st == QV_OK; i++) {
    start[i] = kt->bytes.size;
    bool valid = encode_key(kc, kt->n_keys, i, &kt->bytes, &st, err);
    if (st != QV_OK) break;
    if (!valid) {
      kt->bytes.size = start[i];
      start[i] = -1;
    }
  }
  if (st != QV_OK) {
    qv_free(start);
    return st;
  }
  /* off[] as the lookup reads it: row r's key is [off[r], off[r + 1]);
   * null keys have an empty range and are not in the table. */
  int64_t pos = (int64_t)kt->bytes.size;
  for (int64_t i = kt->n_src - 1; i >= 0; i--) {
    if (start[i] < 0) start[i] = pos;
    else pos = start[i];
  }
  start[kt->n_src] = (int64_t)kt->bytes.size;
  for (int64_t i = 0; i <= kt->n_src; i++) kt->off[i] = start[i];
  for (int64_t i = 0; i < kt->n_src && st == QV_OK; i++) {
    bool null_key = false;
    for (int32_t k = 0; k < kt->n_keys; k++)
      if (!qv_array_is_valid(kc[k], i)) null_key = true;
    if (null_key) continue;
    const uint8_t *key = kt->bytes.data + kt->off[i];
    int64_t len = kt->off[i + 1] - kt->off[i];
    uint64_t h = XXH3_64bits(key, (size_t)len);
    int64_t dup = lookup(kt, key, len, h);
    if (dup >= 0) {
      char kb[512];
      format_key(kt, schema, i, kb, sizeof kb);
      st = qv_error_set(err, QV_ERR_INVALID, "merge: source rows %lld and %lld have the same key (%s)",
                        (long long)dup + 1, (long long)i + 1, kb);
      break;
    }
    uint64_t s = h & kt->mask;
    while (kt->slots[s]) s = (s + 1) & kt->mask;
    kt->slots[s] = i + 1;
  }
  qv_free(start);
  return st;
}

static void table_reset(key_table *kt) {
  qv_buffer_reset(&kt->bytes);
  qv_buffer_reset(&kt->scratch);
  qv_free(kt->off);
  qv_free(kt->slots);
}

/* Reads the whole source, checked against the dataset's schema, into one
 * array per column. */
static qv_status read_source(qv_batch_reader *r, const qv_schema *schema, qv_array **cols, int64_t *n_rows,
                             qv_error *err) {
  const qv_schema *ss = r->schema(r);
  if (!qv_schema_equal(ss, schema)) {
    if (ss->n_fields != schema->n_fields)
      return qv_error_set(err, QV_ERR_TYPE, "merge: the source has %d columns, the dataset %d", ss->n_fields,
                          schema->n_fields);
    for (int32_t i = 0; i < schema->n_fields; i++) {
      if (strcmp(ss->fields[i].name, schema->fields[i].name) != 0)
        return qv_error_set(err, QV_ERR_TYPE, "merge: column %d is `%s` in the source, `%s` in the dataset", i + 1,
                            ss->fields[i].name, schema->fields[i].name);
      if (!qv_datatype_equal(&ss->fields[i].type, &schema->fields[i].type)) {
        char a[128], b[128];
        qv_datatype_format(&ss->fields[i].type, a, sizeof a);
        qv_datatype_format(&schema->fields[i].type, b, sizeof b);
        return qv_error_set(err, QV_ERR_TYPE, "merge: column `%s` is %s in the source, %s in the dataset",
                            schema->fields[i].name, a, b);
      }
    }
  }
  qv_batch **bs = NULL;
  int32_t nb = 0, cap = 0;
  qv_status st = QV_OK;
  *n_rows = 0;
  for (;;) {
    qv_batch *b = NULL;
    if ((st = r->next(r, &b, err)) != QV_OK || !b) break;
    if (nb == cap) {
      int32_t ncap = cap ? cap * 2 : 16;
      qv_batch **nbs = qv_realloc(bs, (size_t)ncap * sizeof *nbs);
      if (!nbs) {
        qv_batch_release(b);
        st = qv_error_nomem(err, "merge: source");
        break;
      }
      bs = nbs;
      cap = ncap;
    }
    bs[nb++] = b;
    *n_rows += b->num_rows;
  }
  qv_array **parts = st == QV_OK ? qv_calloc((size_t)nb + 1, sizeof *parts) : NULL;
  if (st == QV_OK && !parts) st = qv_error_nomem(err, "merge: source");
  for (int32_t c = 0; c < schema->n_fields && st == QV_OK; c++) {
    if (nb == 0) {
      st = qv_array_make_null(&schema->fields[c].type, 0, &cols[c], err);
      continue;
    }
    for (int32_t i = 0; i < nb; i++) parts[i] = bs[i]->columns[c];
    st = nb == 1 ? (cols[c] = qv_array_retain(parts[0]), QV_OK) : qv_array_concat(parts, nb, &cols[c], err);
  }
  qv_free(parts);
  for (int32_t i = 0; i < nb; i++) qv_batch_release(bs[i]);
  qv_free(bs);
  return st;
}

/* Pushes a batch of the rows rows[0..n) built column by column: from the
 * source (src_rows) for the columns in from_src, else from the target
 * fragment (tgt_rows, sorted). */
static qv_status push_rows(qvs_sink *sink, const qv_schema *schema, qv_array **src, const uint32_t *src_rows,
                           const bool *from_src, qv_fragment_reader *fr, const int64_t *tgt_rows, int64_t n,
                           qv_error *err) {
  qv_array **cols = qv_calloc((size_t)schema->n_fields, sizeof *cols);
  if (!cols) return qv_error_nomem(err, "merge");
  qv_status st = QV_OK;
  for (int32_t c = 0; c < schema->n_fields && st == QV_OK; c++)
    st = from_src[c] ? qv_array_take(src[c], src_rows, n, &cols[c], err)
                     : qv_fragment_take(fr, c, tgt_rows, n, &cols[c], err);
  qv_batch *b = NULL;
  if (st == QV_OK) st = qv_batch_make(schema, cols, n, &b, err);
  else
    for (int32_t c = 0; c < schema->n_fields; c++) qv_array_release(cols[c]);
  qv_free(cols);
  if (st == QV_OK) st = qvs_sink_push(sink, b, err);
  return st;
}

static qv_status check_merge_options(const qv_merge_options *o, const qv_schema *schema, int32_t *cols, bool *from_src,
                                     qv_error *err) {
  if (o->version != QV_MERGE_OPTIONS_VERSION)
    return qv_error_set(err, QV_ERR_INVALID, "merge options: version %d is not %d", o->version,
                        QV_MERGE_OPTIONS_VERSION);
  if (o->n_on < 1 || o->n_on > 64 || !o->on)
    return qv_error_set(err, QV_ERR_INVALID, "merge: 1 to 64 key columns are required (on)");
  if (o->when_matched < QV_MERGE_UPDATE || o->when_matched > QV_MERGE_DELETE)
    return qv_error_set(err, QV_ERR_INVALID, "merge: unknown when_matched %d", (int)o->when_matched);
  for (int32_t k = 0; k < o->n_on; k++) {
    int32_t c = o->on[k] ? qv_schema_find(schema, o->on[k]) : -1;
    if (c < 0) return qv_error_set(err, QV_ERR_NOT_FOUND, "merge: no key column `%s`", o->on[k] ? o->on[k] : "");
    qv_type_id id = schema->fields[c].type.id;
    if (id == QV_TYPE_LIST || id == QV_TYPE_STRUCT || id == QV_TYPE_FIXED_SIZE_LIST || id == QV_TYPE_NULL)
      return qv_error_set(err, QV_ERR_TYPE, "merge: key column `%s` must be a flat type", o->on[k]);
    for (int32_t j = 0; j < k; j++)
      if (cols[j] == c) return qv_error_set(err, QV_ERR_INVALID, "merge: key column `%s` is named twice", o->on[k]);
    cols[k] = c;
  }
  for (int32_t c = 0; c < schema->n_fields; c++) from_src[c] = o->n_update_columns == 0;
  for (int32_t k = 0; k < o->n_update_columns; k++) {
    int32_t c = o->update_columns && o->update_columns[k] ? qv_schema_find(schema, o->update_columns[k]) : -1;
    if (c < 0)
      return qv_error_set(err, QV_ERR_NOT_FOUND, "merge: no update column `%s`",
                          o->update_columns && o->update_columns[k] ? o->update_columns[k] : "");
    from_src[c] = true;
  }
  return QV_OK;
}

qv_status qv_dataset_merge(const char *path, qv_batch_reader *source, const qv_merge_options *opts,
                           qv_merge_result *out, qv_error *err) {
  qv_merge_options defaults = QV_MERGE_OPTIONS_INIT;
  if (!opts) opts = &defaults;
  if (out) memset(out, 0, sizeof *out);
  if (!path || !source) return qv_error_set(err, QV_ERR_INVALID, "merge: path and source are required");
  qv_write_options wo;
  QV_RETURN_NOT_OK(qvs_write_options_get(&opts->write, &wo, err));
  qvs_txn t;
  QV_RETURN_NOT_OK(qvs_txn_begin(&t, path, 0, "merge", err));
  const qv_schema *schema = &t.base.schema;
  key_table kt;
  memset(&kt, 0, sizeof kt);
  qvs_sink sink;
  qvs_sink_init(&sink, path, schema, &wo, &t);
  int32_t key_cols[64];
  int32_t nf = t.base.n_fragments;
  bool *from_src = qv_calloc((size_t)schema->n_fields + 1, sizeof *from_src);
  bool *all_src = qv_calloc((size_t)schema->n_fields + 1, sizeof *all_src);
  qv_array **src = qv_calloc((size_t)schema->n_fields + 1, sizeof *src);
  uint8_t *matched = NULL, *bits = NULL;
  uint32_t *src_rows = NULL;
  int64_t *tgt_rows = NULL;
  qv_merge_result res = {0};
  qv_status st = QV_OK;
  if (t.read_version == 0) {
    st = qv_error_set(err, QV_ERR_NOT_FOUND, "%s: no dataset here to merge into", path);
    goto cleanup;
  }
  if (!from_src || !all_src || !src) {
    st = qv_error_nomem(err, "merge");
    goto cleanup;
  }
  for (int32_t c = 0; c < schema->n_fields; c++) all_src[c] = true;
  if ((st = check_merge_options(opts, schema, key_cols, from_src, err)) != QV_OK) goto cleanup;
  kt.n_keys = opts->n_on;
  kt.cols = key_cols;
  kt.src = src;
  if ((st = read_source(source, schema, src, &kt.n_src, err)) != QV_OK) goto cleanup;
  if ((st = build_table(&kt, schema, err)) != QV_OK) goto cleanup;
  if (!(matched = qv_calloc(1, (size_t)qv_bitmap_bytes(kt.n_src) + 1)) ||
      !(src_rows = qv_malloc(MERGE_CHUNK * sizeof *src_rows)) ||
      !(tgt_rows = qv_malloc(MERGE_CHUNK * sizeof *tgt_rows))) {
    st = qv_error_nomem(err, "merge");
    goto cleanup;
  }

  /* The version the transaction read, as a dataset for the fragment
   * readers (which do not keep it): borrowed, never closed. */
  qv_dataset view = {t.path, t.base};
  for (int32_t f = 0; f < nf && st == QV_OK; f++) {
    qv_fragment_reader *fr = NULL;
    qv_array *tk[64] = {0};
    if ((st = qv_fragment_open(&view, f, &fr, err)) != QV_OK) break;
    int64_t rows = qv_fragment_num_rows(fr);
    const uint8_t *gone = qv_fragment_deleted(fr);
    for (int32_t k = 0; k < kt.n_keys && st == QV_OK; k++) st = qv_fragment_read(fr, key_cols[k], 0, rows, &tk[k], err);
    if (st == QV_OK && !(bits = qv_calloc(1, (size_t)qv_bitmap_bytes(rows) + 1))) st = qv_error_nomem(err, "merge");
    int64_t n = 0, marked = 0;
    for (int64_t r = 0; r < rows && st == QV_OK; r++) {
      if (gone && qv_bit_get(gone, r)) continue;
      kt.scratch.size = 0;
      bool valid = encode_key(tk, kt.n_keys, r, &kt.scratch, &st, err);
      if (st != QV_OK) break;
      int64_t s = valid ? lookup(&kt, kt.scratch.data, (int64_t)kt.scratch.size,
                                 XXH3_64bits(kt.scratch.data, (size_t)kt.scratch.size))
                        : -1;
      if (s < 0) {
        if (opts->delete_not_matched_by_source) {
          qv_bit_set(bits, r);
          marked++;
          res.deleted++;
        }
        continue;
      }
      qv_bit_set(matched, s);
      if (opts->when_matched == QV_MERGE_DO_NOTHING) continue;
      qv_bit_set(bits, r);
      marked++;
      if (opts->when_matched == QV_MERGE_DELETE) {
        res.deleted++;
        continue;
      }
      res.updated++;
      src_rows[n] = (uint32_t)s;
      tgt_rows[n] = r;
      if (++n == MERGE_CHUNK) {
        st = push_rows(&sink, schema, src, src_rows, from_src, fr, tgt_rows, n, err);
        n = 0;
      }
    }
    if (st == QV_OK && n > 0) st = push_rows(&sink, schema, src, src_rows, from_src, fr, tgt_rows, n, err);
    if (st == QV_OK && marked > 0) st = qvs_txn_delete_rows(&t, f, bits, err);
    for (int32_t k = 0; k < kt.n_keys; k++) qv_array_release(tk[k]);
    qv_free(bits);
    bits = NULL;
    qv_fragment_close(fr);
  }
  if (st != QV_OK) goto cleanup;
  if (opts->insert_not_matched) {
    int64_t n = 0;
    for (int64_t s = 0; s < kt.n_src && st == QV_OK; s++) {
      if (qv_bit_get(matched, s)) continue;
      src_rows[n++] = (uint32_t)s;
      res.inserted++;
      if (n == MERGE_CHUNK) {
        st = push_rows(&sink, schema, src, src_rows, all_src, NULL, NULL, n, err);
        n = 0;
      }
    }
    if (st == QV_OK && n > 0) st = push_rows(&sink, schema, src, src_rows, all_src, NULL, NULL, n, err);
  }
  if (st == QV_OK) st = qvs_sink_finish(&sink, err);
  if (st == QV_OK && qvs_txn_empty(&t)) { /* nothing changes: no version */
    res.version = t.read_version;
    goto cleanup;
  }
  if (st == QV_OK) st = qvs_txn_commit(&t, &res.version, err);
cleanup:
  if (st == QV_OK && out) *out = res;
  qvs_sink_reset(&sink);
  table_reset(&kt);
  for (int32_t c = 0; src && c < schema->n_fields; c++) qv_array_release(src[c]);
  qv_free(src);
  qv_free(from_src);
  qv_free(all_src);
  qv_free(matched);
  qv_free(bits);
  qv_free(src_rows);
  qv_free(tgt_rows);
  qvs_txn_reset(&t);
  return st;
}
