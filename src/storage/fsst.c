/* FSST, the Fast Static Symbol Table (Boncz, Neumann and Leis, VLDB 2020):
 * strings compressed with a table of up to 255 symbols of 1 to 8 bytes,
 * each replaced by a one-byte code; code 255 escapes one literal byte.
 * Every value is compressed on its own, so any one decodes without the
 * others, which is what a take of a few rows of wide strings needs (a
 * frame-compressed page decodes 16 KiB for each).  This file is the codec;
 * the page encoding around it is encoding_fsst.c.
 *
 * The table is built as the paper builds it: start empty, compress a
 * sample of the page with the current table, count how often each symbol
 * and each pair of adjacent symbols (as their concatenation, when it fits
 * 8 bytes) was used, keep the 255 candidates with the largest gain (uses
 * times length; single bytes count eight times, which keeps escapes rare;
 * longer ones used fewer than MIN_USES times are left out, or a table
 * learns the sample's values by heart), and repeat.  The encoder is greedy: at each position the longest symbol
 * that matches, else an escape. */
#include <string.h>

#include "storage/fsst.h"

#define SAMPLE_BYTES 16384 /* the paper's sample size */
#define SAMPLE_VALUE 512   /* a longer value contributes its first bytes */
#define GENERATIONS 5
#define N_IDS 512        /* a symbol's id while building: code, or 256 + byte for an escaped byte */
#define MIN_USES 5       /* a longer symbol used fewer times in the sample is noise (it overfits the sample) */
#define CAND_SLOTS 32768 /* > the most distinct candidates of a generation (512 + one per sample byte) */

static inline uint64_t len_mask(int len) { return len >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * len)) - 1; }

/* Up to 8 bytes from p (left of them readable) as a little-endian word. */
static inline uint64_t load_word(const uint8_t *p, int64_t left) {
  if (left >= 8) return qv_load_u64le(p);
  uint8_t tmp[8] = {0};
  memcpy(tmp, p, (size_t)left);
  return qv_load_u64le(tmp);
}

/* Lists each first byte's symbols, longest first: the greedy match tries
 * them in that order and takes the first that fits. */
static void index_table(qvs_fsst_table *t) {
  uint16_t count[257] = {0};
  for (int c = 0; c < t->n; c++) count[(uint8_t)t->sym[c] + 1]++;
  t->first[0] = 0;
  for (int b = 0; b < 256; b++) t->first[b + 1] = (uint16_t)(t->first[b] + count[b + 1]);
  uint16_t fill[256];
  memcpy(fill, t->first, sizeof fill);
  for (int c = 0; c < t->n; c++) {
    uint8_t b = (uint8_t)t->sym[c];
    int i = fill[b]++;
    /* insertion by length, descending (a bucket is a few entries) */
    while (i > t->first[b] && t->by_first[i - 1].len < t->len[c]) {
      t->by_first[i] = t->by_first[i - 1];
      i--;
    }
    t->by_first[i] = (qvs_fsst_match){t->sym[c], len_mask(t->len[c]), t->len[c], (uint8_t)c};
  }
}

/* The code of the longest symbol at p (left > 0 bytes), or -1. */
static inline int longest_match(const qvs_fsst_table *t, const uint8_t *p, int64_t left) {
  const qvs_fsst_match *m = t->by_first + t->first[p[0]], *end = t->by_first + t->first[p[0] + 1];
  if (left >= 8) { /* every symbol fits: the masks alone decide */
    uint64_t w = qv_load_u64le(p);
    for (; m < end; m++)
      if (((w ^ m->sym) & m->mask) == 0) return m->code;
    return -1;
  }
  uint64_t w = load_word(p, left);
  for (; m < end; m++)
    if (m->len <= left && ((w ^ m->sym) & m->mask) == 0) return m->code;
  return -1;
}

/* Bytes qvs_fsst_encode would write for len bytes at in. */
static int64_t coded_len(const qvs_fsst_table *t, const uint8_t *in, int64_t len) {
  int64_t i = 0, n = 0;
  while (i < len) {
    int c = longest_match(t, in + i, len - i);
    i += c >= 0 ? t->len[c] : 1;
    n += c >= 0 ? 1 : 2;
  }
  return n;
}

int64_t qvs_fsst_encode(const qvs_fsst_table *t, const uint8_t *in, int64_t len, uint8_t *out) {
  uint8_t *o = out;
  int64_t i = 0;
  while (i < len) {
    int c = longest_match(t, in + i, len - i);
    if (c >= 0) {
      *o++ = (uint8_t)c;
      i += t->len[c];
    } else {
      *o++ = QVS_FSST_ESCAPE;
      *o++ = in[i++];
    }
  }
  return o - out;
}

void qvs_fsst_scratch_reset(qvs_fsst_scratch *s) {
  qv_free(s->pair_count);
  qv_free(s->touched);
  qv_free(s->spans);
  qv_free(s->cand);
  qv_free(s->cand_used);
  memset(s, 0, sizeof *s);
}

typedef struct fsst_cand {
  uint64_t sym;
  uint64_t gain;
  uint8_t len; /* 0: empty slot */
} fsst_cand;

static qv_status reserve(qvs_fsst_scratch *s, qv_error *err) {
  if (s->pair_count) return QV_OK;
  s->pair_count = qv_calloc((size_t)N_IDS * N_IDS, sizeof *s->pair_count);
  s->touched = qv_malloc((SAMPLE_BYTES + SAMPLE_VALUE) * sizeof *s->touched);
  s->spans = qv_malloc((SAMPLE_BYTES + SAMPLE_VALUE) * 2 * sizeof *s->spans);
  s->cand = qv_calloc(CAND_SLOTS, sizeof(fsst_cand));
  s->cand_used = qv_malloc(CAND_SLOTS * sizeof *s->cand_used);
  s->n_used = 0;
  if (!s->pair_count || !s->touched || !s->spans || !s->cand || !s->cand_used) {
    qvs_fsst_scratch_reset(s);
    return qv_error_nomem(err, NULL);
  }
  return QV_OK;
}

/* Adds gain to the candidate (sym, len), merging equal symbols; the
 * slots in use are listed, so that picking visits only those. */
static void add_candidate(qvs_fsst_scratch *s, uint64_t sym, int len, uint64_t gain) {
  fsst_cand *cand = s->cand;
  uint64_t h = (sym * UINT64_C(0x9E3779B97F4A7C15) + (uint64_t)len) >> 49; /* 15 bits: CAND_SLOTS */
  for (;; h = (h + 1) & (CAND_SLOTS - 1)) {
    fsst_cand *c = &cand[h];
    if (c->len == 0) {
      c->sym = sym;
      c->len = (uint8_t)len;
      c->gain = gain;
      s->cand_used[s->n_used++] = (uint32_t)h;
      return;
    }
    if (c->sym == sym && c->len == len) {
      c->gain += gain;
      return;
    }
  }
}

/* Keeps the QVS_FSST_SYMBOLS candidates of largest gain (ties: the
 * shorter, then the smaller symbol, so that a table does not depend on
 * the hash's order) as the new table, and empties the candidate set. */
static bool better(const fsst_cand *a, const fsst_cand *b) {
  if (a->gain != b->gain) return a->gain > b->gain;
  if (a->len != b->len) return a->len < b->len;
  return a->sym < b->sym;
}

/* Restores the min-heap (worst at the top) of n after its top changed. */
static void sift_down(fsst_cand *heap, int n) {
  for (int i = 0;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && better(&heap[m], &heap[l])) m = l;
    if (r < n && better(&heap[m], &heap[r])) m = r;
    if (m == i) return;
    fsst_cand x = heap[i];
    heap[i] = heap[m];
    heap[m] = x;
    i = m;
  }
}

static void pick_symbols(qvs_fsst_scratch *s, qvs_fsst_table *t) {
  fsst_cand *cand = s->cand;
  /* a min-heap (by `better`) of the best seen so far */
  fsst_cand heap[QVS_FSST_SYMBOLS];
  int n = 0;
  for (int32_t u = 0; u < s->n_used; u++) {
    uint32_t h = s->cand_used[u];
    fsst_cand c = cand[h];
    cand[h].len = 0;
    if (n == QVS_FSST_SYMBOLS) {
      if (!better(&c, &heap[0])) continue;
      heap[0] = heap[--n]; /* drop the worst, then insert c below */
      sift_down(heap, n);
    }
    int i = n++;
    heap[i] = c;
    while (i > 0 && better(&heap[(i - 1) / 2], &heap[i])) { /* sift up */
      fsst_cand x = heap[i];
      heap[i] = heap[(i - 1) / 2];
      heap[(i - 1) / 2] = x;
      i = (i - 1) / 2;
    }
  }
  s->n_used = 0;
  /* codes in order of gain, best first (deterministic) */
  for (int k = n - 1; k > 0; k--) {
    fsst_cand worst = heap[0];
    heap[0] = heap[k];
    sift_down(heap, k);
    heap[k] = worst; /* heap[k..n) holds the worst, in order */
  }
  t->n = n;
  for (int k = 0; k < n; k++) {
    t->sym[k] = heap[k].sym;
    t->len[k] = heap[k].len;
  }
  index_table(t);
}

/* One pass of the sample with table t: counts into s->pair_count (pairs)
 * and count1 (single ids), the pairs used listed in s->touched. */
static int64_t count_sample(qvs_fsst_scratch *s, int64_t n_spans, const qvs_fsst_table *t, uint32_t *count1) {
  int64_t n_touched = 0;
  for (int64_t k = 0; k < n_spans; k++) {
    const uint8_t *p = s->spans[2 * k];
    int64_t len = (const uint8_t *)s->spans[2 * k + 1] - p, i = 0;
    int prev = -1;
    while (i < len) {
      int c = longest_match(t, p + i, len - i), id = c >= 0 ? c : 256 + p[i];
      i += c >= 0 ? t->len[c] : 1;
      count1[id]++;
      if (prev >= 0) {
        uint32_t key = (uint32_t)prev * N_IDS + (uint32_t)id;
        if (s->pair_count[key]++ == 0) s->touched[n_touched++] = key;
      }
      prev = id;
    }
  }
  return n_touched;
}

qv_status qvs_fsst_build(qvs_fsst_scratch *s, const uint8_t *chars, const int32_t *off, const uint8_t *validity,
                         int64_t vbit, int64_t n, qvs_fsst_table *t, qv_error *err) {
  QV_RETURN_NOT_OK(reserve(s, err));
  /* the sample: whole values (their first SAMPLE_VALUE bytes) spread
   * evenly over the page, about SAMPLE_BYTES in all: after taking a value,
   * skip rows worth (every - 1) times its bytes */
  int64_t total = off[n] - off[0], n_spans = 0, bytes = 0;
  double every = total > SAMPLE_BYTES ? (double)total / SAMPLE_BYTES : 1.0;
  double per_row = n > 0 ? (double)total / (double)n : 1.0;
  double next = 0;
  for (int64_t i = 0; i < n && bytes < SAMPLE_BYTES; i++) {
    int64_t len = off[i + 1] - off[i];
    if ((double)i < next || len == 0 || (validity && !qv_bit_get(validity, vbit + i))) continue;
    len = len < SAMPLE_VALUE ? len : SAMPLE_VALUE;
    s->spans[2 * n_spans] = chars + off[i];
    s->spans[2 * n_spans + 1] = chars + off[i] + len;
    n_spans++;
    bytes += len;
    next = (double)i + 1 + (every - 1) * (double)len / per_row;
  }
  /* every byte of the sample stays a candidate (with its bare count as
   * gain): symbols left unused in the sample fill spare codes, so that
   * values the sample missed escape less */
  uint32_t bytes_seen[256] = {0};
  for (int64_t k = 0; k < n_spans; k++)
    for (const uint8_t *p = s->spans[2 * k]; p < s->spans[2 * k + 1]; p++) bytes_seen[*p]++;
  t->n = 0;
  index_table(t);
  for (int gen = 0; gen < GENERATIONS; gen++) {
    uint32_t count1[N_IDS] = {0};
    int64_t n_touched = count_sample(s, n_spans, t, count1);
    for (int id = 0; id < N_IDS; id++) {
      int len = id < 256 ? t->len[id] : 1;
      if (!count1[id] || (len > 1 && count1[id] < MIN_USES)) continue;
      uint64_t sym = id < 256 ? t->sym[id] : (uint64_t)(id - 256);
      add_candidate(s, sym, len, (uint64_t)count1[id] * (uint64_t)(len == 1 ? 8 : len));
    }
    for (int b = 0; b < 256; b++)
      if (bytes_seen[b]) add_candidate(s, (uint64_t)b, 1, bytes_seen[b]);
    for (int64_t k = 0; k < n_touched; k++) {
      uint32_t key = s->touched[k], a = key / N_IDS, b = key % N_IDS, cnt = s->pair_count[key];
      s->pair_count[key] = 0;
      int la = a < 256 ? t->len[a] : 1, lb = b < 256 ? t->len[b] : 1;
      if (la + lb > 8 || cnt < MIN_USES) continue;
      uint64_t sa = a < 256 ? t->sym[a] : a - 256, sb = b < 256 ? t->sym[b] : b - 256;
      add_candidate(s, sa | sb << (8 * la), la + lb, (uint64_t)cnt * (uint64_t)(la + lb));
    }
    pick_symbols(s, t);
  }
  s->sample_bytes = bytes;
  s->sample_coded = 0;
  for (int64_t k = 0; k < n_spans; k++)
    s->sample_coded += coded_len(t, s->spans[2 * k], s->spans[2 * k + 1] - s->spans[2 * k]);
  return QV_OK;
}

void qvs_fsst_store(const qvs_fsst_table *t, uint8_t *out) {
  for (int c = 0; c < t->n; c++) qv_store_u64le(out + 8 * c, t->sym[c]);
  memcpy(out + 8 * t->n, t->len, (size_t)t->n);
}

bool qvs_fsst_load(qvs_fsst_table *t, const uint8_t *buf, int64_t n) {
  if (n < 0 || n > QVS_FSST_SYMBOLS) return false;
  memset(t->len, 0, sizeof t->len);
  t->n = (int32_t)n;
  for (int c = 0; c < n; c++) {
    uint8_t len = buf[8 * n + c];
    if (len < 1 || len > 8) return false;
    t->len[c] = len;
    t->sym[c] = qv_load_u64le(buf + 8 * c) & len_mask(len);
  }
  return true;
}

int64_t qvs_fsst_decoded_len(const qvs_fsst_table *t, const uint8_t *p, const uint8_t *end) {
  int64_t len = 0;
  while (p < end) {
    uint8_t c = *p++;
    if (c == QVS_FSST_ESCAPE) {
      if (p == end) return -1;
      p++;
      len++;
    } else {
      if (!t->len[c]) return -1;
      len += t->len[c];
    }
  }
  return len;
}

/* The decoder's loop (see qvs_fsst_decode), inlined into both callers. */
__attribute__((always_inline)) static inline uint8_t *decode_run(const qvs_fsst_table *t, const uint8_t *p,
                                                                 const uint8_t *end, uint8_t *out) {
  int n = t->n;
  /* four codes per test while none escapes: the loop is bound by its
   * branches otherwise (the symbols' loads do not wait on out) */
  while (end - p >= 4) {
    int c0 = p[0], c1 = p[1], c2 = p[2], c3 = p[3];
    if ((c0 < n) & (c1 < n) & (c2 < n) & (c3 < n)) {
      qv_store_u64le(out, t->sym[c0]);
      out += t->len[c0];
      qv_store_u64le(out, t->sym[c1]);
      out += t->len[c1];
      qv_store_u64le(out, t->sym[c2]);
      out += t->len[c2];
      qv_store_u64le(out, t->sym[c3]);
      out += t->len[c3];
      p += 4;
      continue;
    }
    if (c0 < n) {
      qv_store_u64le(out, t->sym[c0]);
      out += t->len[c0];
      p++;
    } else if (c0 == QVS_FSST_ESCAPE && p + 1 < end) {
      *out++ = p[1];
      p += 2;
    } else {
      return NULL;
    }
  }
  while (p < end) {
    int c = *p++;
    if (c < n) {
      qv_store_u64le(out, t->sym[c]);
      out += t->len[c];
    } else if (c == QVS_FSST_ESCAPE && p < end) {
      *out++ = *p++;
    } else {
      return NULL;
    }
  }
  return out;
}

uint8_t *qvs_fsst_decode(const qvs_fsst_table *t, const uint8_t *p, const uint8_t *end, uint8_t *out) {
  return decode_run(t, p, end, out);
}

int64_t qvs_fsst_decode_rows(const qvs_fsst_table *t, const uint8_t *codes, const uint8_t *co, int64_t n, uint8_t *out,
                             int32_t *o) {
  uint8_t *at = out;
  const uint8_t *p = codes;
  o[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    const uint8_t *e = codes + qv_load_u32le(co + 4 * (i + 1));
    if (!(at = decode_run(t, p, e, at))) return i;
    o[i + 1] = (int32_t)(at - out);
    p = e;
  }
  return -1;
}
