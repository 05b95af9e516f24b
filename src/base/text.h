/* Growing text, internal to libquiver (users: the expression printer, the
 * Lance and BigQuery translators, the scan's explain): appends never fail
 * on the spot; oom sticks once an allocation failed and is checked once,
 * when the text is taken. */
#ifndef QUIVER_BASE_TEXT_H
#define QUIVER_BASE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct qvb_text {
  char *p; /* NUL-terminated once anything was added */
  size_t n, cap;
  bool oom;
} qvb_text;

void qvb_text_add(qvb_text *b, const char *s, size_t n);
void qvb_text_s(qvb_text *b, const char *s);
void qvb_text_f(qvb_text *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void qvb_text_free(qvb_text *b);

#endif
