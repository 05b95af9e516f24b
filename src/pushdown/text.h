/* Growing text for the translators (Lance SQL, BigQuery row_restriction):
 * appends never fail on the spot; oom sticks once an allocation failed and
 * is checked once, when the text is taken. */
#ifndef QV_PUSHDOWN_TEXT_H
#define QV_PUSHDOWN_TEXT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct qv_pd_text {
  char *p; /* NUL-terminated once anything was added */
  size_t n, cap;
  bool oom;
} qv_pd_text;

void qv_pd_add(qv_pd_text *b, const char *s, size_t n);
void qv_pd_s(qv_pd_text *b, const char *s);
void qv_pd_f(qv_pd_text *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void qv_pd_free(qv_pd_text *b);

#endif
