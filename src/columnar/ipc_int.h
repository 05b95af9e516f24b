/* Internals shared by the Arrow IPC files (ipc_*.c) and the C Data Interface
 * (c_data.c): a small verified FlatBuffers reader, a FlatBuffers writer for
 * exactly the Arrow tables we emit, the IPC view of a schema, and the
 * helpers that wrap or convert foreign memory (views of shared bytes,
 * dictionary decoding, decompression, large/view layouts).
 *
 * Nothing here is public; names carry the qv_ prefix only so that they do not
 * collide inside libquiver. */
#ifndef QUIVER_COLUMNAR_IPC_INT_H
#define QUIVER_COLUMNAR_IPC_INT_H

#include "quiver/columnar.h"
#include "columnar/columnar_int.h"

/* ---- FlatBuffers reading --------------------------------------------- */

/* One flatbuffer inside the input; `base` is the byte offset of data[0] in
 * the whole file or stream so that errors can name absolute positions. */
typedef struct qvc_fb_view {
  const uint8_t *data;
  uint32_t size;
  int64_t base;
} qvc_fb_view;

/* A table whose vtable was bounds-checked when it was opened. */
typedef struct qvc_fb_table {
  const qvc_fb_view *view;
  uint32_t pos;      /* start of the table (its soffset) */
  uint32_t vtable;   /* start of its vtable */
  uint16_t vt_size;  /* vtable bytes */
  uint16_t tbl_size; /* inline table bytes */
} qvc_fb_table;

/* A vector whose elements [pos, pos + count * elem_size) are in bounds. */
typedef struct qvc_fb_vector {
  const qvc_fb_view *view;
  uint32_t pos; /* first element */
  uint32_t count;
  uint32_t elem_size;
} qvc_fb_vector;

qv_status qvc_fb_root(const qvc_fb_view *view, qvc_fb_table *out, qv_error *err);
/* Scalars: absent fields read as def.  Sizes 1, 2, 4, 8; signed. */
qv_status qvc_fb_int(const qvc_fb_table *t, int id, int size, int64_t def, int64_t *out, qv_error *err);
/* Sub-table, string and vector fields; *present is false when absent. */
qv_status qvc_fb_table_field(const qvc_fb_table *t, int id, qvc_fb_table *out, bool *present, qv_error *err);
qv_status qvc_fb_string(const qvc_fb_table *t, int id, const char **s, uint32_t *len, bool *present, qv_error *err);
qv_status qvc_fb_vector_field(const qvc_fb_table *t, int id, uint32_t elem_size, qvc_fb_vector *out, bool *present,
                              qv_error *err);
qv_status qvc_fb_vector_table(const qvc_fb_vector *v, uint32_t i, qvc_fb_table *out, qv_error *err);
static inline const uint8_t *qvc_fb_vector_elem(const qvc_fb_vector *v, uint32_t i) {
  return v->view->data + v->pos + (size_t)i * v->elem_size;
}

/* ---- FlatBuffers writing --------------------------------------------- */

/* Top-down writer: a parent table is written first with placeholder uoffsets,
 * its children are appended after it and the placeholders patched, so every
 * uoffset points forward as the format requires.  Scalars are aligned to
 * their size relative to the start, which the caller keeps 8-aligned. */
typedef struct qvc_fb_builder {
  qv_buffer buf;
  qv_status status; /* sticky: the first failure */
} qvc_fb_builder;

#define QV_FB_MAX_FIELDS 8
typedef struct qvc_fb_tdef {
  int n;
  struct {
    uint8_t id;
    uint8_t size; /* 1, 2, 4, 8; 4 for a reference */
    bool ref;
    uint64_t value;
  } f[QV_FB_MAX_FIELDS];
} qvc_fb_tdef;

void qvc_fb_builder_init(qvc_fb_builder *b); /* writes the root placeholder */
void qvc_fb_tdef_init(qvc_fb_tdef *t);
void qvc_fb_add_scalar(qvc_fb_tdef *t, int id, int size, uint64_t value);
void qvc_fb_add_ref(qvc_fb_tdef *t, int id);
/* Writes the table (and its vtable); slots[id] receives the position of each
 * reference field's placeholder.  Returns the table's position. */
uint32_t qvc_fb_write_table(qvc_fb_builder *b, const qvc_fb_tdef *t, uint32_t slots[QV_FB_MAX_FIELDS]);
uint32_t qvc_fb_write_string(qvc_fb_builder *b, const char *s);
/* Vector of inline structs (elements already little-endian encoded). */
uint32_t qvc_fb_write_struct_vector(qvc_fb_builder *b, const void *elems, uint32_t count, uint32_t elem_size,
                                    uint32_t align);
/* Vector of references: returns the vector's position; element i's
 * placeholder is at pos + 4 + 4 * i. */
uint32_t qvc_fb_write_ref_vector(qvc_fb_builder *b, uint32_t count);
/* Points the placeholder at slot to target (target after slot). */
void qvc_fb_patch(qvc_fb_builder *b, uint32_t slot, uint32_t target);
void qvc_fb_builder_reset(qvc_fb_builder *b);

/* ---- Arrow flatbuffer constants (format/Schema.fbs, Message.fbs) ------- */

enum {
  QV_FBT_NULL = 1,
  QV_FBT_INT = 2,
  QV_FBT_FLOAT = 3,
  QV_FBT_BINARY = 4,
  QV_FBT_UTF8 = 5,
  QV_FBT_BOOL = 6,
  QV_FBT_DECIMAL = 7,
  QV_FBT_DATE = 8,
  QV_FBT_TIME = 9,
  QV_FBT_TIMESTAMP = 10,
  QV_FBT_INTERVAL = 11,
  QV_FBT_LIST = 12,
  QV_FBT_STRUCT = 13,
  QV_FBT_UNION = 14,
  QV_FBT_FIXED_SIZE_BINARY = 15,
  QV_FBT_FIXED_SIZE_LIST = 16,
  QV_FBT_MAP = 17,
  QV_FBT_DURATION = 18,
  QV_FBT_LARGE_BINARY = 19,
  QV_FBT_LARGE_UTF8 = 20,
  QV_FBT_LARGE_LIST = 21,
  QV_FBT_RUN_END_ENCODED = 22,
  QV_FBT_BINARY_VIEW = 23,
  QV_FBT_UTF8_VIEW = 24,
  QV_FBT_LIST_VIEW = 25,
  QV_FBT_LARGE_LIST_VIEW = 26
};
enum { QV_MSG_SCHEMA = 1, QV_MSG_DICTIONARY = 2, QV_MSG_RECORD_BATCH = 3 };
#define QV_IPC_METADATA_V5 4
#define QV_IPC_CONTINUATION 0xFFFFFFFFu
/* Nested types deeper than this are refused (the stack and common sense). */
#define QV_IPC_MAX_DEPTH 64

/* ---- the schema as IPC sees it ---------------------------------------- */

/* How a string/binary/list arrives when its layout is not quiver's own:
 * 64-bit offsets (large_*) or 16-byte views (*_view).  Both are converted
 * on read to quiver's int32-offset layout. */
typedef enum qvc_phys { QV_PHYS_PLAIN = 0, QV_PHYS_LARGE = 1, QV_PHYS_VIEW = 2 } qvc_phys;

/* A field of the stream's schema plus what the record batches need to know
 * that a qv_field does not say: whether it arrives dictionary-encoded, and
 * in which physical layout. */
typedef struct qvc_ipc_field {
  const qv_field *field; /* points into the reader's qv_schema */
  bool dict;             /* body carries indices of dict_index type */
  int64_t dict_id;
  qv_type_id dict_index;
  qvc_phys phys;
  int32_t n_children;
  struct qvc_ipc_field *children;
} qvc_ipc_field;

/* Decodes a flatbuffer Schema table into schema (owned) and fields
 * (schema->n_fields of them, parallel to schema->fields). */
qv_status qvc_ipc_schema_decode(const qvc_fb_table *t, qv_schema *schema, qvc_ipc_field **fields, qv_error *err);
void qvc_ipc_fields_free(qvc_ipc_field *fields, int32_t n);
/* Appends a Schema table; returns its position. */
uint32_t qvc_ipc_schema_encode(qvc_fb_builder *b, const qv_schema *schema, qv_error *err);
/* Checks that every type in the schema can be written. */
qv_status qvc_ipc_schema_check(const qv_schema *schema, qv_error *err);

/* Decompresses one IPC body buffer (codec 0 = LZ4_FRAME, 1 = ZSTD) whose
 * uncompressed length is `want`; *out is a fresh aligned buffer. */
qv_status qvc_ipc_decompress(int codec, const uint8_t *src, int64_t n, int64_t want, qv_bytes **out, int64_t where,
                             qv_error *err);

/* ---- arrays over foreign memory (views: qv_bytes_view) ------------------ */

/* Rows of dict selected by the integer array indices (nulls stay null);
 * every index is range-checked.  `where` names the field for errors. */
qv_status qvc_dictionary_decode(const qv_array *indices, qv_array *dict, qv_array **out, const char *where,
                                qv_error *err);

/* ---- foreign layouts (ipc_buffers.c) ------------------------------------ */

/* Copies length bits from bit `offset` of bits into a fresh bitmap at bit 0. */
qv_status qvc_bitmap_rebase(const uint8_t *bits, int64_t offset, int64_t length, qv_bytes **out, qv_error *err);
/* int64 offsets o[offset .. offset+length] (any alignment) as fresh int32
 * offsets starting at 0; *first / *last are the original end points.  They
 * must be non-decreasing, within data_size (when >= 0), and span at most
 * INT32_MAX (else QV_ERR_OVERFLOW).  `where` prefixes errors. */
qv_status qvc_offsets_narrow(const uint8_t *o, int64_t offset, int64_t length, int64_t data_size, qv_bytes **out,
                             int64_t *first, int64_t *last, const char *where, qv_error *err);
/* 16-byte string views [offset, offset+length) (Arrow's Utf8View layout),
 * their long values in bufs[0..n_bufs) of sizes[] (NULL: sizes unknown,
 * trusted producer), as fresh int32 offsets and data.  Null rows (per bits
 * at bit offset, bits may be NULL) become empty. */
qv_status qvc_views_materialize(const uint8_t *views, int64_t offset, int64_t length, const uint8_t *bits,
                                const uint8_t *const *bufs, const int64_t *sizes, int64_t n_bufs, qv_bytes **offsets,
                                qv_bytes **data, const char *where, qv_error *err);

#endif
