/* The query vectors of `quiver scan --nearest`: 'COLUMN:[v, v, ...]' on the
 * command line, or --nearest-file with a .npy array (float32 or float64,
 * one vector or a matrix of them, C order, little-endian) or an Arrow IPC
 * file/stream whose first column holds the vectors (fixed_size_list or
 * list of float32/float64; one query per row). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static bool push(cli_queries *q, float v) {
  if (q->n == q->cap) {
    int64_t cap = q->cap ? q->cap * 2 : 256;
    float *nv = realloc(q->v, (size_t)cap * sizeof *nv);
    if (!nv) return false;
    q->v = nv;
    q->cap = cap;
  }
  q->v[q->n++] = v;
  return true;
}

void cli_queries_reset(cli_queries *q) {
  free(q->v);
  free(q->column);
  memset(q, 0, sizeof *q);
}

bool cli_parse_nearest(const char *text, cli_queries *q, char *why, size_t why_len) {
  const char *colon = strchr(text, ':');
  if (!colon || colon == text) {
    snprintf(why, why_len, "--nearest wants COLUMN:[v, v, ...], e.g. 'vec:[0.1, 0.2]'");
    return false;
  }
  q->column = strndup(text, (size_t)(colon - text));
  const char *p = colon + 1;
  while (*p == ' ') p++;
  if (*p != '[') {
    snprintf(why, why_len, "--nearest: expected '[' after '%s:'", q->column);
    return false;
  }
  p++;
  for (;;) {
    while (*p == ' ') p++;
    if (*p == ']' && q->n == 0) break;
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p || errno == ERANGE) {
      snprintf(why, why_len, "--nearest: expected a number at column %d of the vector", (int)(p - text) + 1);
      return false;
    }
    if (!push(q, (float)v)) {
      snprintf(why, why_len, "out of memory");
      return false;
    }
    p = end;
    while (*p == ' ') p++;
    if (*p == ',') {
      p++;
      continue;
    }
    if (*p == ']') break;
    snprintf(why, why_len, "--nearest: expected ',' or ']' at column %d of the vector", (int)(p - text) + 1);
    return false;
  }
  if (p[1] != 0) {
    snprintf(why, why_len, "--nearest: unexpected text after ']'");
    return false;
  }
  if (q->n == 0) {
    snprintf(why, why_len, "--nearest: the vector is empty");
    return false;
  }
  q->dim = (int32_t)q->n;
  q->n_queries = 1;
  return true;
}

/* .npy: magic, version, header length, a Python dict header, then data. */
static bool read_npy(const uint8_t *b, size_t n, cli_queries *q, char *why, size_t why_len) {
  if (n < 10 || memcmp(b, "\x93NUMPY", 6) != 0) return snprintf(why, why_len, "not a .npy file"), false;
  size_t hl, start;
  if (b[6] == 1) {
    hl = (size_t)b[8] | (size_t)b[9] << 8;
    start = 10;
  } else {
    if (n < 12) return snprintf(why, why_len, "truncated .npy header"), false;
    hl = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
    start = 12;
  }
  if (start + hl > n || hl > 65536) return snprintf(why, why_len, "truncated .npy header"), false;
  char *h = strndup((const char *)b + start, hl);
  if (!h) return snprintf(why, why_len, "out of memory"), false;
  int width = strstr(h, "'<f4'") ? 4 : strstr(h, "'<f8'") ? 8 : 0;
  bool fortran = strstr(h, "'fortran_order': True") != NULL;
  const char *sh = strstr(h, "'shape': (");
  long d0 = -1, d1 = -1;
  if (sh) {
    char *end;
    d0 = strtol(sh + 10, &end, 10);
    while (*end == ',' || *end == ' ') end++;
    if (*end != ')') d1 = strtol(end, NULL, 10);
  }
  free(h);
  if (!width) return snprintf(why, why_len, ".npy: dtype must be little-endian float32 or float64"), false;
  if (fortran) return snprintf(why, why_len, ".npy: Fortran order is not read (save a C-order array)"), false;
  if (d0 <= 0 || (d1 == 0)) return snprintf(why, why_len, ".npy: shape must be (dim,) or (n, dim)"), false;
  long rows = d1 > 0 ? d0 : 1, dim = d1 > 0 ? d1 : d0;
  size_t data = start + hl;
  if ((size_t)(rows * dim) * (size_t)width > n - data)
    return snprintf(why, why_len, ".npy: %ld x %ld values do not fit in the file", rows, dim), false;
  for (long i = 0; i < rows * dim; i++) {
    float v;
    if (width == 4) memcpy(&v, b + data + 4 * (size_t)i, 4);
    else {
      double d;
      memcpy(&d, b + data + 8 * (size_t)i, 8);
      v = (float)d;
    }
    if (!push(q, v)) return snprintf(why, why_len, "out of memory"), false;
  }
  q->dim = (int32_t)dim;
  q->n_queries = (int32_t)rows;
  return true;
}

static bool read_arrow(const char *path, cli_queries *q, char *why, size_t why_len) {
  qv_batch_reader *r = NULL;
  qv_error err;
  if (qv_ipc_read_path(path, &r, &err) != QV_OK) return snprintf(why, why_len, "%s", err.message), false;
  bool ok = true;
  for (;;) {
    qv_batch *b = NULL;
    if (r->next(r, &b, &err) != QV_OK) {
      snprintf(why, why_len, "%s", err.message);
      ok = false;
      break;
    }
    if (!b) break;
    const qv_array *a = b->schema.n_fields > 0 ? b->columns[0] : NULL;
    if (!a || (a->type.id != QV_TYPE_FIXED_SIZE_LIST && a->type.id != QV_TYPE_LIST) ||
        (a->children[0]->type.id != QV_TYPE_FLOAT32 && a->children[0]->type.id != QV_TYPE_FLOAT64)) {
      snprintf(why, why_len, "%s: the first column must hold vectors (a list of float32 or float64)", path);
      qv_batch_release(b);
      ok = false;
      break;
    }
    const qv_array *c = a->children[0];
    for (int64_t i = 0; i < a->length && ok; i++) {
      int64_t lo, hi;
      if (a->type.id == QV_TYPE_FIXED_SIZE_LIST) {
        lo = (a->offset + i) * a->type.list_size;
        hi = lo + a->type.list_size;
      } else {
        const int32_t *off = (const int32_t *)a->buffers[1]->data + a->offset;
        lo = off[i];
        hi = off[i + 1];
      }
      if (q->n_queries > 0 && hi - lo != q->dim) {
        snprintf(why, why_len, "%s: row %lld has %lld values, the first had %d", path, (long long)q->n_queries,
                 (long long)(hi - lo), q->dim);
        ok = false;
        break;
      }
      for (int64_t j = lo; j < hi && ok; j++) {
        int64_t x = c->offset + j;
        float v = c->type.id == QV_TYPE_FLOAT32 ? ((const float *)c->buffers[1]->data)[x]
                                                : (float)((const double *)c->buffers[1]->data)[x];
        ok = push(q, v);
      }
      q->dim = (int32_t)(hi - lo);
      q->n_queries++;
    }
    qv_batch_release(b);
    if (!ok) break;
  }
  r->destroy(r);
  if (ok && q->n_queries == 0) snprintf(why, why_len, "%s: no query vectors", path), ok = false;
  return ok;
}

bool cli_read_nearest_file(const char *path, cli_queries *q, char *why, size_t why_len) {
  size_t len = strlen(path);
  if (len < 4 || strcmp(path + len - 4, ".npy") != 0) return read_arrow(path, q, why, why_len);
  FILE *f = fopen(path, "rb");
  if (!f) return snprintf(why, why_len, "%s: cannot open: %s", path, strerror(errno)), false;
  uint8_t *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? cap * 2 : 1 << 16;
      uint8_t *nb = realloc(buf, cap);
      if (!nb) break;
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    if (got == 0) break;
    n += got;
  }
  fclose(f);
  bool ok = buf && read_npy(buf, n, q, why, why_len);
  free(buf);
  return ok;
}
