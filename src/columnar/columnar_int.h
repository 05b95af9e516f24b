/* Internals shared by the columnar layer's files. */
#ifndef QUIVER_COLUMNAR_COLUMNAR_INT_H
#define QUIVER_COLUMNAR_COLUMNAR_INT_H

#include "quiver/columnar.h"

/* A fresh array of the type (copied) with refcount 1 and no buffers. */
qv_array *qvc_array_new(const qv_datatype *type, int64_t length);
qv_status qvc_array_alloc_children(qv_array *a, int32_t n);

/* dictionary.c: helpers for the generic array operations.  The indices
 * of a dictionary array as an integer array (shares its buffers); take
 * (keeps the dictionary); validation; the index of row i (valid rows). */
qv_status qvc_dictionary_indices_view(const qv_array *a, qv_array **out, qv_error *err);
qv_status qvc_dictionary_take(const qv_array *a, const uint32_t *rows, int64_t n, qv_array **out, qv_error *err);
qv_status qvc_dictionary_validate(const qv_array *a, qv_error *err);
int64_t qvc_dictionary_index(const qv_array *a, int64_t i);

/* Checks that every string of a string array is valid UTF-8. */
qv_status qvc_utf8_validate_offsets(const qv_array *a, qv_error *err);

/* snprintf-style append at buf + *n that keeps counting past the end of
 * buf (the snprintf contract across several appends). */
void qvc_textf(char *buf, size_t size, int *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
