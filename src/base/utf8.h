/* UTF-8 encoding, internal to libquiver: the one code-point-to-bytes
 * writer the JSON reader, the Polars lexer, the string kernels and the page
 * statistics share.  (Validation is public: qv_utf8_valid_prefix in
 * quiver/base.h.) */
#ifndef QUIVER_BASE_UTF8_H
#define QUIVER_BASE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Writes code point cp as UTF-8 to out (room for 4 bytes) and returns the
 * bytes written, 1..4.  cp must be at most U+10FFFF; surrogates are not
 * refused here: a caller that must not produce them checks first. */
size_t qvb_utf8_encode(uint8_t *out, uint32_t cp);

#endif
