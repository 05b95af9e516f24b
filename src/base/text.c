/* Growing text (text.h). */
#include "base/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "quiver/base.h"

void qv_text_add(qv_text *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 64;
    while (cap < b->n + n + 1) cap *= 2;
    char *q = qv_realloc(b->p, cap);
    if (!q) {
      b->oom = true;
      return;
    }
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

void qv_text_s(qv_text *b, const char *s) { qv_text_add(b, s, strlen(s)); }

void qv_text_f(qv_text *b, const char *fmt, ...) {
  char buf[256];
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n < sizeof buf) {
    qv_text_add(b, buf, (size_t)n);
  } else if (n >= 0) {
    /* Operands are whole subtrees: format long pieces on the heap. */
    char *big = qv_malloc((size_t)n + 1);
    if (!big) {
      b->oom = true;
    } else {
      vsnprintf(big, (size_t)n + 1, fmt, ap2);
      qv_text_add(b, big, (size_t)n);
      qv_free(big);
    }
  }
  va_end(ap2);
}

void qv_text_free(qv_text *b) {
  qv_free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}
