/* Growing text (text.h). */
#include "base/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "quiver/base.h"

void qvb_text_add(qvb_text *b, const char *s, size_t n) {
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

void qvb_text_s(qvb_text *b, const char *s) { qvb_text_add(b, s, strlen(s)); }

void qvb_text_f(qvb_text *b, const char *fmt, ...) {
  char buf[256];
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n < sizeof buf) {
    qvb_text_add(b, buf, (size_t)n);
  } else if (n >= 0) {
    /* Operands are whole subtrees: format long pieces on the heap. */
    char *big = qv_malloc((size_t)n + 1);
    if (!big) {
      b->oom = true;
    } else {
      vsnprintf(big, (size_t)n + 1, fmt, ap2);
      qvb_text_add(b, big, (size_t)n);
      qv_free(big);
    }
  }
  va_end(ap2);
}

void qvb_text_free(qvb_text *b) {
  qv_free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}
