/* A small, strict JSON reader (RFC 8259) for the Polars expression JSON.
 * It builds a read-only tree in memory owned by one qve_json_doc and
 * released in one call.  Input is untrusted: its size and nesting depth
 * are bounded, strings must be valid UTF-8 (escapes included: no lone
 * surrogates), and every error names the byte offset where it was found.
 * No extensions: no comments, trailing commas, NaN, leading '+' or zeros,
 * or bytes after the value other than whitespace. */
#ifndef QUIVER_EXPR_JSON_H
#define QUIVER_EXPR_JSON_H

#include "quiver/base.h"

/* Deeper documents are refused.  The Polars JSON of an expression nests
 * about three levels per expression level, and expressions are bounded at
 * QV_EXPR_MAX_DEPTH (512), so this leaves room without risking the stack. */
#define QV_JSON_MAX_DEPTH 2048
/* Larger inputs are refused before reading (list literals arrive as bytes
 * spelled as decimal numbers, about four characters each). */
#define QV_JSON_MAX_SIZE (64 * 1024 * 1024)

typedef enum qve_json_type {
  QV_JSON_NULL = 0,
  QV_JSON_FALSE,
  QV_JSON_TRUE,
  QV_JSON_NUMBER,
  QV_JSON_STRING,
  QV_JSON_ARRAY,
  QV_JSON_OBJECT
} qve_json_type;

typedef struct qve_json {
  qve_json_type type;
  bool is_int;     /* NUMBER: no fraction and no exponent */
  int32_t n;       /* ARRAY: items; OBJECT: members */
  int64_t offset;  /* byte offset of the value's first byte in the input */
  const char *str; /* STRING: decoded UTF-8; NUMBER: its text.  NUL-terminated */
  int64_t len;     /* bytes of str */
  /* ARRAY: n values.  OBJECT: 2n values, each key (a STRING) followed by
   * its value, in document order. */
  const struct qve_json *items;
} qve_json;

typedef struct qve_json_doc qve_json_doc;

/* Parses len bytes of text (need not be NUL-terminated).  what prefixes
 * every error message ("polars json" -> "polars json: expected ':' at byte
 * 12").  *out owns all the memory of the tree (qve_json_doc_destroy).
 * Errors: QV_ERR_PARSE for malformed, over-deep or over-large input,
 * QV_ERR_NOMEM. */
qv_status qve_json_parse(const char *text, size_t len, const char *what, qve_json_doc **out, qv_error *err);
const qve_json *qve_json_root(const qve_json_doc *doc);
void qve_json_doc_destroy(qve_json_doc *doc); /* NULL-safe */

/* The value of member key of an object (the first, if repeated), or NULL
 * when obj is not an object or has no such member. */
const qve_json *qve_json_get(const qve_json *obj, const char *key);
/* True when v is a STRING equal to s. */
bool qve_json_is_string(const qve_json *v, const char *s);
/* A NUMBER without fraction or exponent that fits int64 / uint64. */
bool qve_json_int64(const qve_json *v, int64_t *out);
bool qve_json_uint64(const qve_json *v, uint64_t *out);
/* Any NUMBER as a double (locale-independent). */
bool qve_json_double(const qve_json *v, double *out);

#endif
