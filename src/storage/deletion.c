/* Deletion files: which rows of one fragment are deleted as of a version.
 *
 *   "QVD1"  u32 format_version  u64 fragment_id  u64 num_rows  u64 count
 *   u8 kind: 0 = bitmap of num_rows bits (LSB first),
 *            1 = count u64 row numbers, strictly increasing
 *   payload
 *   u32 crc32c of every byte before it
 *
 * The writer picks whichever payload is smaller.  Readers check the file
 * against what the manifest says (fragment, rows, count) so that a deletion
 * file of another fragment or version cannot be swapped in unnoticed. */
#include <stdio.h>
#include <string.h>

#include "base/wire.h"
#include "storage/format.h"
#include "storage/manifest.h"

enum { DEL_HEADER = 4 + 4 + 8 + 8 + 8 + 1, KIND_BITMAP = 0, KIND_LIST = 1 };

qv_status qvs_deletion_encode(int64_t fragment_id, int64_t num_rows, const uint8_t *bits, int64_t count, qv_buffer *out,
                              qv_error *err) {
  qvb_wbuf w = {QV_BUFFER_INIT, QV_OK};
  int64_t bitmap_bytes = qv_bitmap_bytes(num_rows);
  int kind = count * 8 < bitmap_bytes ? KIND_LIST : KIND_BITMAP;
  qvb_wire_put_bytes(&w, QVS_DELETION_MAGIC, 4);
  qvb_wire_put_u32(&w, QV_FORMAT_VERSION);
  qvb_wire_put_u64(&w, (uint64_t)fragment_id);
  qvb_wire_put_u64(&w, (uint64_t)num_rows);
  qvb_wire_put_u64(&w, (uint64_t)count);
  qvb_wire_put_u8(&w, (uint8_t)kind);
  if (kind == KIND_BITMAP) {
    int64_t start = w.buf.size;
    qvb_wire_put_bytes(&w, bits, bitmap_bytes);
    /* Bits past num_rows must be zero on disk (readers check). */
    if (w.status == QV_OK && (num_rows & 7))
      w.buf.data[start + bitmap_bytes - 1] &= (uint8_t)((1u << (num_rows & 7)) - 1);
  } else {
    for (int64_t i = 0; i < num_rows; i++)
      if (qv_bit_get(bits, i)) qvb_wire_put_u64(&w, (uint64_t)i);
  }
  if (w.status == QV_OK) qvb_wire_put_u32(&w, qv_crc32c(0, w.buf.data, (size_t)w.buf.size));
  if (w.status != QV_OK) {
    qv_buffer_reset(&w.buf);
    return qv_error_nomem(err, "deletion file");
  }
  *out = w.buf;
  return QV_OK;
}

qv_status qvs_deletion_decode(const uint8_t *data, int64_t size, const char *name, int64_t fragment_id,
                              int64_t num_rows, int64_t num_deleted, uint8_t **out_bits, qv_error *err) {
  *out_bits = NULL;
  if (size < DEL_HEADER + 4)
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: %lld bytes is too short for a deletion file", name, (long long)size);
  if (memcmp(data, QVS_DELETION_MAGIC, 4) != 0)
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset 0: not a quiver deletion file (bad magic)", name);
  uint32_t fv = qv_load_u32le(data + 4);
  if (fv == 0 || fv > QV_FORMAT_VERSION)
    return qv_error_set(err, fv == 0 ? QV_ERR_CORRUPT : QV_ERR_UNSUPPORTED,
                        "%s: offset 4: format version %u (this build reads 1..%d)", name, fv, QV_FORMAT_VERSION);
  uint32_t want = qv_load_u32le(data + size - 4), got = qv_crc32c(0, data, (size_t)(size - 4));
  if (want != got && qvs_verify_checksums)
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: checksum mismatch (stored %08x, computed %08x)", name, want, got);
  uint64_t frag = qv_load_u64le(data + 8), rows = qv_load_u64le(data + 16), count = qv_load_u64le(data + 24);
  uint8_t kind = data[32];
  if (frag != (uint64_t)fragment_id)
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset 8: belongs to fragment %llu, not %lld", name,
                        (unsigned long long)frag, (long long)fragment_id);
  if (rows != (uint64_t)num_rows)
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset 16: covers %llu rows, the fragment has %lld", name,
                        (unsigned long long)rows, (long long)num_rows);
  if (count != (uint64_t)num_deleted)
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset 24: lists %llu deleted rows, the manifest says %lld", name,
                        (unsigned long long)count, (long long)num_deleted);
  int64_t payload = size - DEL_HEADER - 4, bitmap_bytes = qv_bitmap_bytes(num_rows);
  if (kind > KIND_LIST) return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset 32: unknown kind %u", name, kind);
  int64_t expect = kind == KIND_BITMAP ? bitmap_bytes : num_deleted * 8;
  if (payload != expect)
    return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %d: payload is %lld bytes, expected %lld", name, DEL_HEADER,
                        (long long)payload, (long long)expect);
  const uint8_t *p = data + DEL_HEADER;
  uint8_t *bits = qv_calloc(1, (size_t)bitmap_bytes + 1);
  if (!bits) return qv_error_nomem(err, name);
  if (kind == KIND_BITMAP) {
    memcpy(bits, p, (size_t)bitmap_bytes);
    if ((num_rows & 7) && (bits[bitmap_bytes - 1] >> (num_rows & 7))) {
      qv_free(bits);
      return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %lld: bits set past the fragment's %lld rows", name,
                          (long long)(DEL_HEADER + bitmap_bytes - 1), (long long)num_rows);
    }
    int64_t n = qv_bitmap_count(bits, 0, num_rows);
    if (n != num_deleted) {
      qv_free(bits);
      return qv_error_set(err, QV_ERR_CORRUPT, "%s: bitmap has %lld deleted rows, header says %lld", name, (long long)n,
                          (long long)num_deleted);
    }
  } else {
    int64_t prev = -1;
    for (int64_t i = 0; i < num_deleted; i++) {
      uint64_t r = qv_load_u64le(p + 8 * i);
      if (r >= (uint64_t)num_rows || (int64_t)r <= prev) {
        qv_free(bits);
        return qv_error_set(err, QV_ERR_CORRUPT, "%s: offset %lld: row %llu is out of order or not below %lld", name,
                            (long long)(DEL_HEADER + 8 * i), (unsigned long long)r, (long long)num_rows);
      }
      qv_bit_set(bits, (int64_t)r);
      prev = (int64_t)r;
    }
  }
  *out_bits = bits;
  return QV_OK;
}

qv_status qvs_deletion_load(const char *path, const qvs_fragment_meta *f, uint8_t **out_bits, qv_error *err) {
  *out_bits = NULL;
  if (!f->deletion_file) return QV_OK;
  char *full = qvb_path_join(path, f->deletion_file);
  if (!full) return qv_error_nomem(err, NULL);
  uint8_t *data = NULL;
  int64_t size = 0;
  /* The larger payload a valid file can have, plus its header. */
  int64_t max = DEL_HEADER + 4 +
                (f->num_deleted * 8 > qv_bitmap_bytes(f->num_rows) ? f->num_deleted * 8 : qv_bitmap_bytes(f->num_rows));
  qv_status st = qvb_file_read(full, f->deletion_file, max, &data, &size, err);
  qv_free(full);
  if (st == QV_ERR_NOT_FOUND) { /* the manifest names it: the dataset is damaged */
    if (err) err->code = QV_ERR_CORRUPT;
    return QV_ERR_CORRUPT;
  }
  if (st != QV_OK) return st;
  st = qvs_deletion_decode(data, size, f->deletion_file, f->id, f->num_rows, f->num_deleted, out_bits, err);
  qv_free(data);
  return st;
}
