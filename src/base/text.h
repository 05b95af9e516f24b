/* Growing text, internal to libquiver (users: the expression printer, the
 * Lance and BigQuery translators, the scan's explain): appends never fail
 * on the spot; oom sticks once an allocation failed and is checked once,
 * when the text is taken. */
#ifndef QV_BASE_TEXT_H
#define QV_BASE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct qv_text {
  char *p; /* NUL-terminated once anything was added */
  size_t n, cap;
  bool oom;
} qv_text;

void qv_text_add(qv_text *b, const char *s, size_t n);
void qv_text_s(qv_text *b, const char *s);
void qv_text_f(qv_text *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void qv_text_free(qv_text *b);

#endif
