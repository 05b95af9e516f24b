/* The compute layer's PCRE2 wrapper, shared by regex.c and like.c. */
#ifndef QUIVER_COMPUTE_REGEX_INT_H
#define QUIVER_COMPUTE_REGEX_INT_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

#include "compute/compute_int.h"

typedef struct qvk_regex {
  pcre2_code *code;
  pcre2_match_data *md;
} qvk_regex;

/* Compiles pat[0..len) with PCRE2 options (JIT when available).  Errors
 * (QV_ERR_INVALID) name `what`, PCRE2's message and the offset. */
qv_status qvk_regex_compile(const uint8_t *pat, size_t len, uint32_t options, const char *what, qvk_regex *re,
                            qv_error *err);
/* Compiles a pattern written for Rust's regex crate (Polars): \w, \b, \B
 * and \s take that crate's Unicode meanings (Alphabetic, marks, decimal
 * digits, connector punctuation and joiners are word characters; White_Space
 * is space), the POSIX classes [[:alpha:]] ... are ASCII sets as in that
 * crate, and $ matches only at the very end.  Errors as above, with
 * offsets into pat. */
qv_status qvk_regex_compile_rust(const uint8_t *pat, size_t len, const char *what, qvk_regex *re, qv_error *err);
void qvk_regex_free(qvk_regex *re);
/* Error for a failed pcre2_match (not NOMATCH) on a row. */
qv_status qvk_regex_error(int rc, const char *what, int64_t row, qv_error *err);

#endif
