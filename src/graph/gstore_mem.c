/* The memory store: nodes and relationships made by CREATE (the TCK's
 * graphs, qv_graph_open_memory).  Ids are creation indices.  A node has
 * any number of labels (sorted label indices) and a property list; a
 * property's value is kept as its canonical encoding (qvg_val_encode) in
 * the store's arena, which never moves, so decoded strings point into the
 * store for its life.
 *
 * Adjacency is a CSR per type and direction, built by a counting sort over
 * the relationships (stable: a node's rels in creation order) in
 * qvg_store_prepare, and again on the first lookup after a change.  The
 * arrays of a CSR a rebuild replaces are kept until the store is freed:
 * an operator may still hold a span of them (CREATE downstream of an
 * expansion that yielded partway through a node). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "graph/gstore_int.h"

typedef struct mem_prop {
  const char *key; /* interned: points into m->keys */
  int32_t klen;
  int32_t len;
  const uint8_t *bytes; /* the encoded value, in the arena */
} mem_prop;

typedef struct mem_node {
  int32_t n_labels, n_props;
  const int32_t *labels; /* sorted */
  const mem_prop *props;
} mem_node;

typedef struct mem_rel {
  int64_t src, dst;
  int32_t type, n_props;
  const mem_prop *props;
} mem_rel;

typedef struct mem_keyset {
  const char **names;
  int32_t n, cap;
} mem_keyset;

typedef struct mem_csr {
  int64_t *off; /* n_nodes + 1 */
  uint32_t *nbrs, *rels;
  int64_t distinct; /* nodes with at least one relationship (the planner's fan-out) */
} mem_csr;

struct qvg_mem {
  qvg_arena arena;
  mem_node *nodes;
  int64_t n_nodes, cap_nodes;
  mem_rel *rels;
  int64_t n_rels, cap_rels;
  char **keys; /* interned property keys */
  int32_t n_keys, cap_keys;
  int32_t cap_labels, cap_types;
  mem_keyset *label_keys, *type_keys; /* per label / type */
  int64_t *label_count, *type_count;
  /* adjacency: csr[2 * type + dir] of csr_types types over csr_nodes nodes */
  bool dirty;
  int32_t csr_types;
  int64_t csr_nodes;
  mem_csr *csr;
  void **retired; /* arrays of replaced CSRs */
  int64_t n_retired, cap_retired;
  pthread_mutex_t mu;
};

qv_status qvg_mem_open(qvg_store **out, qv_error *err) {
  *out = NULL;
  qvg_store *st = qv_calloc(1, sizeof *st);
  qvg_mem *m = qv_calloc(1, sizeof *m);
  if (!st || !m) {
    qv_free(st);
    qv_free(m);
    return qv_error_nomem(err, "memory graph");
  }
  qvg_arena a = QVG_ARENA_INIT;
  m->arena = a;
  pthread_mutex_init(&m->mu, NULL);
  st->mem = m;
  *out = st;
  return QV_OK;
}

static void free_csr(qvg_mem *m) {
  for (int64_t i = 0; m->csr && i < 2 * (int64_t)m->csr_types; i++) {
    qv_free(m->csr[i].off);
    qv_free(m->csr[i].nbrs);
    qv_free(m->csr[i].rels);
  }
  qv_free(m->csr);
  m->csr = NULL;
  m->csr_types = 0;
}

void qvg_mem_free(qvg_store *st) {
  qvg_mem *m = st->mem;
  free_csr(m);
  for (int64_t i = 0; i < m->n_retired; i++) qv_free(m->retired[i]);
  qv_free(m->retired);
  for (int32_t i = 0; i < st->n_labels; i++) {
    qv_free(st->labels[i]);
    qv_free(m->label_keys[i].names);
  }
  for (int32_t i = 0; i < st->n_types; i++) {
    qv_free(st->types[i]);
    qv_free(m->type_keys[i].names);
  }
  for (int32_t i = 0; i < m->n_keys; i++) qv_free(m->keys[i]);
  qv_free(st->labels);
  qv_free(st->types);
  qv_free(m->label_keys);
  qv_free(m->type_keys);
  qv_free(m->label_count);
  qv_free(m->type_count);
  qv_free(m->keys);
  qv_free(m->nodes);
  qv_free(m->rels);
  qvg_arena_free(&m->arena);
  pthread_mutex_destroy(&m->mu);
  qv_free(m);
  qv_free(st);
}

/* ---- growing ---- */

static bool grow(void **p, int64_t *cap, int64_t need, size_t elem) {
  if (need <= *cap) return true;
  int64_t nc = *cap ? *cap * 2 : 16;
  while (nc < need) nc *= 2;
  void *np = qv_realloc(*p, (size_t)nc * elem);
  if (!np) return false;
  memset((char *)np + (size_t)*cap * elem, 0, (size_t)(nc - *cap) * elem);
  *p = np;
  *cap = nc;
  return true;
}

/* Index of a label (is_type false) or type name, added when new. */
static int32_t intern_name(qvg_store *st, const char *name, bool is_type) {
  int32_t i = is_type ? qvg_store_type(st, name) : qvg_store_label(st, name);
  if (i >= 0) return i;
  qvg_mem *m = st->mem;
  int32_t *n = is_type ? &st->n_types : &st->n_labels;
  int32_t *cap = is_type ? &m->cap_types : &m->cap_labels;
  if (*n == *cap) {
    int64_t c = *cap, c2 = c, c3 = c, c4 = c;
    if (!grow((void **)(is_type ? &st->types : &st->labels), &c, *n + 1, sizeof(char *)) ||
        !grow((void **)(is_type ? &m->type_keys : &m->label_keys), &c2, *n + 1, sizeof(mem_keyset)) ||
        !grow((void **)(is_type ? &m->type_count : &m->label_count), &c3, *n + 1, sizeof(int64_t)))
      return -1;
    (void)c4;
    *cap = (int32_t)c;
  }
  char *s = qv_strdup(name);
  if (!s) return -1;
  (is_type ? st->types : st->labels)[*n] = s;
  return (*n)++;
}

static const char *intern_key(qvg_mem *m, const char *key, int32_t klen) {
  for (int32_t i = 0; i < m->n_keys; i++)
    if (!strncmp(m->keys[i], key, (size_t)klen) && m->keys[i][klen] == '\0') return m->keys[i];
  int64_t cap = m->cap_keys;
  if (!grow((void **)&m->keys, &cap, m->n_keys + 1, sizeof(char *))) return NULL;
  m->cap_keys = (int32_t)cap;
  char *s = qv_malloc((size_t)klen + 1);
  if (!s) return NULL;
  memcpy(s, key, (size_t)klen);
  s[klen] = '\0';
  m->keys[m->n_keys++] = s;
  return s;
}

static bool keyset_add(mem_keyset *ks, const char *key) {
  for (int32_t i = 0; i < ks->n; i++)
    if (ks->names[i] == key) return true;
  int64_t cap = ks->cap;
  if (!grow((void **)&ks->names, &cap, ks->n + 1, sizeof(char *))) return false;
  ks->cap = (int32_t)cap;
  ks->names[ks->n++] = key;
  return true;
}

/* The property list of a map value (null entries left out), in the arena. */
static qv_status make_props(qvg_mem *m, const qvg_val *props, const mem_prop **out, int32_t *out_n, qv_error *err) {
  *out = NULL;
  *out_n = 0;
  if (!props || props->t == QVG_V_NULL) return QV_OK;
  if (props->t != QVG_V_MAP)
    return qv_error_set(err, QV_ERR_INVALID, "cypher: CREATE: properties must be a map, not %s",
                        qvg_vtype_name(props->t));
  mem_prop *p = props->n ? qvg_arena_alloc(&m->arena, sizeof *p * (size_t)props->n) : NULL;
  if (props->n && !p) return qv_error_nomem(err, "memory graph");
  qv_buffer enc = QV_BUFFER_INIT;
  int32_t n = 0;
  qv_status rc = QV_OK;
  for (int32_t i = 0; i < props->n && rc == QV_OK; i++) {
    const qvg_entry *e = &props->u.m[i];
    if (e->v.t == QVG_V_NULL) continue;
    enc.size = 0;
    if ((rc = qvg_val_encode(&e->v, &enc, err)) != QV_OK) break;
    uint8_t *b = qvg_arena_alloc(&m->arena, (size_t)(enc.size ? enc.size : 1));
    const char *k = intern_key(m, e->key, e->klen);
    if (!b || !k) {
      rc = qv_error_nomem(err, "memory graph");
      break;
    }
    memcpy(b, enc.data, (size_t)enc.size);
    p[n].key = k;
    p[n].klen = e->klen;
    p[n].len = (int32_t)enc.size;
    p[n].bytes = b;
    n++;
  }
  qv_buffer_reset(&enc);
  if (rc != QV_OK) return rc;
  *out = p;
  *out_n = n;
  return QV_OK;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

qv_status qvg_mem_create_node(qvg_store *st, const char *const *labels, int32_t n_labels, const qvg_val *props,
                              int64_t *out_id, qv_error *err) {
  qvg_mem *m = st->mem;
  if (m->n_nodes >= QVG_MAX_ROWS)
    return qv_error_set(err, QV_ERR_UNSUPPORTED, "memory graph: more than %lld nodes", (long long)QVG_MAX_ROWS);
  int32_t *ls = n_labels > 0 ? qvg_arena_alloc(&m->arena, sizeof *ls * (size_t)n_labels) : NULL;
  if (n_labels > 0 && !ls) return qv_error_nomem(err, "memory graph");
  int32_t nl = 0;
  for (int32_t i = 0; i < n_labels; i++) {
    int32_t l = intern_name(st, labels[i], false);
    if (l < 0) return qv_error_nomem(err, "memory graph");
    bool seen = false;
    for (int32_t k = 0; k < nl; k++) seen |= ls[k] == l;
    if (!seen) ls[nl++] = l;
  }
  if (nl > 1) qsort(ls, (size_t)nl, sizeof *ls, cmp_i32);
  const mem_prop *p;
  int32_t np;
  QV_RETURN_NOT_OK(make_props(m, props, &p, &np, err));
  for (int32_t i = 0; i < nl; i++)
    for (int32_t k = 0; k < np; k++)
      if (!keyset_add(&m->label_keys[ls[i]], p[k].key)) return qv_error_nomem(err, "memory graph");
  if (!grow((void **)&m->nodes, &m->cap_nodes, m->n_nodes + 1, sizeof *m->nodes))
    return qv_error_nomem(err, "memory graph");
  mem_node *nd = &m->nodes[m->n_nodes];
  nd->labels = ls;
  nd->n_labels = nl;
  nd->props = p;
  nd->n_props = np;
  for (int32_t i = 0; i < nl; i++) m->label_count[ls[i]]++;
  m->dirty = true;
  *out_id = m->n_nodes++;
  return QV_OK;
}

qv_status qvg_mem_create_rel(qvg_store *st, const char *type, int64_t src, int64_t dst, const qvg_val *props,
                             int64_t *out_id, qv_error *err) {
  qvg_mem *m = st->mem;
  if (!type || !*type) return qv_error_set(err, QV_ERR_INVALID, "cypher: CREATE: a relationship needs a type");
  if (src < 0 || src >= m->n_nodes || dst < 0 || dst >= m->n_nodes)
    return qv_error_set(err, QV_ERR_INVALID, "cypher: CREATE: relationship :%s between node ids %lld and %lld: %s",
                        type, (long long)src, (long long)dst, "no such node");
  if (m->n_rels >= QVG_MAX_ROWS)
    return qv_error_set(err, QV_ERR_UNSUPPORTED, "memory graph: more than %lld relationships", (long long)QVG_MAX_ROWS);
  int32_t t = intern_name(st, type, true);
  if (t < 0) return qv_error_nomem(err, "memory graph");
  const mem_prop *p;
  int32_t np;
  QV_RETURN_NOT_OK(make_props(m, props, &p, &np, err));
  for (int32_t k = 0; k < np; k++)
    if (!keyset_add(&m->type_keys[t], p[k].key)) return qv_error_nomem(err, "memory graph");
  if (!grow((void **)&m->rels, &m->cap_rels, m->n_rels + 1, sizeof *m->rels))
    return qv_error_nomem(err, "memory graph");
  mem_rel *r = &m->rels[m->n_rels];
  r->src = src;
  r->dst = dst;
  r->type = t;
  r->props = p;
  r->n_props = np;
  m->type_count[t]++;
  m->dirty = true;
  *out_id = m->n_rels++;
  return QV_OK;
}

/* ---- lookups ---- */

int32_t qvg_mem_label_keys(const qvg_store *st, int32_t label, const char *const **out) {
  *out = st->mem->label_keys[label].names;
  return st->mem->label_keys[label].n;
}

int32_t qvg_mem_type_keys(const qvg_store *st, int32_t type, const char *const **out) {
  *out = st->mem->type_keys[type].names;
  return st->mem->type_keys[type].n;
}

int64_t qvg_mem_node_count(const qvg_store *st, int32_t label) {
  return label < 0 ? st->mem->n_nodes : st->mem->label_count[label];
}

bool qvg_mem_node_has_label(const qvg_store *st, int64_t node, int32_t label) {
  const qvg_mem *m = st->mem;
  if (node < 0 || node >= m->n_nodes) return false;
  const mem_node *nd = &m->nodes[node];
  for (int32_t i = 0; i < nd->n_labels; i++)
    if (nd->labels[i] == label) return true;
  return false;
}

/* The cursor is the next id to look at. */
int64_t qvg_mem_nodes(const qvg_store *st, int32_t label, int64_t *cursor, int64_t *ids, int64_t cap) {
  const qvg_mem *m = st->mem;
  int64_t n = 0, c = *cursor;
  for (; c < m->n_nodes && n < cap; c++)
    if (label < 0 || qvg_mem_node_has_label(st, c, label)) ids[n++] = c;
  *cursor = c;
  return n;
}

int32_t qvg_mem_node_labels(const qvg_store *st, int64_t node, int32_t *out, int32_t cap) {
  const qvg_mem *m = st->mem;
  if (node < 0 || node >= m->n_nodes) return 0;
  const mem_node *nd = &m->nodes[node];
  for (int32_t i = 0; i < nd->n_labels && i < cap; i++) out[i] = nd->labels[i];
  return nd->n_labels;
}

static qv_status prop_get(const mem_prop *p, int32_t n, const char *key, int32_t klen, qvg_arena *a, qvg_val *out,
                          qv_error *err) {
  for (int32_t i = 0; i < n; i++)
    if (p[i].klen == klen && !memcmp(p[i].key, key, (size_t)klen))
      return qvg_val_decode(p[i].bytes, p[i].len, a, out, err);
  *out = qvg_null();
  return QV_OK;
}

static qv_status prop_map(const mem_prop *p, int32_t n, qvg_arena *a, qvg_val *out, qv_error *err) {
  qvg_entry *e = qvg_arena_alloc(a, sizeof *e * (size_t)(n ? n : 1));
  if (!e) return qv_error_nomem(err, "memory graph");
  for (int32_t i = 0; i < n; i++) {
    e[i].key = p[i].key;
    e[i].klen = p[i].klen;
    QV_RETURN_NOT_OK(qvg_val_decode(p[i].bytes, p[i].len, a, &e[i].v, err));
  }
  return qvg_map_make(a, e, n, out, err);
}

qv_status qvg_mem_node_prop(const qvg_store *st, int64_t node, const char *key, int32_t klen, qvg_arena *a,
                            qvg_val *out, qv_error *err) {
  const qvg_mem *m = st->mem;
  if (node < 0 || node >= m->n_nodes) return QV_OK;
  return prop_get(m->nodes[node].props, m->nodes[node].n_props, key, klen, a, out, err);
}

qv_status qvg_mem_node_props(const qvg_store *st, int64_t node, qvg_arena *a, qvg_val *out, qv_error *err) {
  const qvg_mem *m = st->mem;
  if (node < 0 || node >= m->n_nodes) return prop_map(NULL, 0, a, out, err);
  return prop_map(m->nodes[node].props, m->nodes[node].n_props, a, out, err);
}

int64_t qvg_mem_rel_count(const qvg_store *st, int32_t type) {
  return type < 0 ? st->mem->n_rels : st->mem->type_count[type];
}

int64_t qvg_mem_rels(const qvg_store *st, int32_t type, int64_t *cursor, int64_t *ids, int64_t cap) {
  const qvg_mem *m = st->mem;
  int64_t n = 0, c = *cursor;
  for (; c < m->n_rels && n < cap; c++)
    if (type < 0 || m->rels[c].type == type) ids[n++] = c;
  *cursor = c;
  return n;
}

int32_t qvg_mem_rel_type(const qvg_store *st, int64_t rel) {
  const qvg_mem *m = st->mem;
  return rel >= 0 && rel < m->n_rels ? m->rels[rel].type : -1;
}

bool qvg_mem_rel_ends(const qvg_store *st, int64_t rel, int64_t *src, int64_t *dst) {
  const qvg_mem *m = st->mem;
  if (rel < 0 || rel >= m->n_rels) return false;
  *src = m->rels[rel].src;
  *dst = m->rels[rel].dst;
  return true;
}

qv_status qvg_mem_rel_prop(const qvg_store *st, int64_t rel, const char *key, int32_t klen, qvg_arena *a, qvg_val *out,
                           qv_error *err) {
  const qvg_mem *m = st->mem;
  if (rel < 0 || rel >= m->n_rels) return QV_OK;
  return prop_get(m->rels[rel].props, m->rels[rel].n_props, key, klen, a, out, err);
}

qv_status qvg_mem_rel_props(const qvg_store *st, int64_t rel, qvg_arena *a, qvg_val *out, qv_error *err) {
  const qvg_mem *m = st->mem;
  if (rel < 0 || rel >= m->n_rels) return prop_map(NULL, 0, a, out, err);
  return prop_map(m->rels[rel].props, m->rels[rel].n_props, a, out, err);
}

/* ---- adjacency ---- */

static bool retire(qvg_mem *m, void *p) {
  if (!p) return true;
  if (!grow((void **)&m->retired, &m->cap_retired, m->n_retired + 1, sizeof(void *))) return false;
  m->retired[m->n_retired++] = p;
  return true;
}

/* Counting sort of every rel by (type, source) and (type, destination). */
static qv_status rebuild(qvg_store *st, qv_error *err) {
  qvg_mem *m = st->mem;
  int32_t nt = st->n_types;
  int64_t nn = m->n_nodes;
  mem_csr *c = qv_calloc((size_t)(2 * nt + 1), sizeof *c);
  if (!c) return qv_error_nomem(err, "memory graph: adjacency");
  bool ok = true;
  for (int32_t i = 0; i < 2 * nt && ok; i++) {
    int64_t ne = m->type_count[i / 2];
    c[i].off = qv_calloc((size_t)nn + 2, sizeof *c[i].off);
    c[i].nbrs = qv_malloc((size_t)(ne ? ne : 1) * sizeof *c[i].nbrs);
    c[i].rels = qv_malloc((size_t)(ne ? ne : 1) * sizeof *c[i].rels);
    ok = c[i].off && c[i].nbrs && c[i].rels;
  }
  if (ok) {
    for (int64_t r = 0; r < m->n_rels; r++) {
      const mem_rel *x = &m->rels[r];
      c[2 * x->type].off[x->src + 1]++;
      c[2 * x->type + 1].off[x->dst + 1]++;
    }
    for (int32_t i = 0; i < 2 * nt; i++)
      for (int64_t v = 0; v < nn; v++) c[i].off[v + 1] += c[i].off[v];
    /* off[v] is now v's first slot; scattering advances it to v + 1's, and
     * the shift below restores the starts */
    for (int64_t r = 0; r < m->n_rels; r++) {
      const mem_rel *x = &m->rels[r];
      mem_csr *o = &c[2 * x->type], *in = &c[2 * x->type + 1];
      int64_t so = o->off[x->src]++, si = in->off[x->dst]++;
      o->nbrs[so] = (uint32_t)x->dst;
      o->rels[so] = (uint32_t)r;
      in->nbrs[si] = (uint32_t)x->src;
      in->rels[si] = (uint32_t)r;
    }
    for (int32_t i = 0; i < 2 * nt; i++) {
      memmove(c[i].off + 1, c[i].off, (size_t)nn * sizeof *c[i].off);
      c[i].off[0] = 0;
      for (int64_t v = 0; v < nn; v++) c[i].distinct += c[i].off[v + 1] > c[i].off[v];
    }
  }
  for (int32_t i = 0; ok && m->csr && i < 2 * m->csr_types; i++)
    ok = retire(m, m->csr[i].off) && (m->csr[i].off = NULL, retire(m, m->csr[i].nbrs)) &&
         (m->csr[i].nbrs = NULL, retire(m, m->csr[i].rels)) && (m->csr[i].rels = NULL, true);
  if (!ok) {
    for (int32_t i = 0; i < 2 * nt; i++) {
      qv_free(c[i].off);
      qv_free(c[i].nbrs);
      qv_free(c[i].rels);
    }
    qv_free(c);
    return qv_error_nomem(err, "memory graph: adjacency");
  }
  free_csr(m);
  m->csr = c;
  m->csr_types = nt;
  m->csr_nodes = nn;
  m->dirty = false;
  return QV_OK;
}

qv_status qvg_mem_prepare(qvg_store *st, qv_error *err) {
  qvg_mem *m = st->mem;
  pthread_mutex_lock(&m->mu);
  qv_status rc = m->dirty || !m->csr ? rebuild(st, err) : QV_OK;
  pthread_mutex_unlock(&m->mu);
  return rc;
}

qvg_adj qvg_mem_adj(const qvg_store *st, int32_t type, qvg_direction dir, int64_t node) {
  qvg_adj adj = {NULL, NULL, 0, 0, 0};
  qvg_mem *m = st->mem;
  if (m->dirty || !m->csr) {
    qv_error e;
    /* a change since the last prepare: rebuild now (out of memory leaves
     * the old CSR, or none) */
    qvg_mem_prepare((qvg_store *)(uintptr_t)st, &e);
  }
  if (!m->csr || type >= m->csr_types || node >= m->csr_nodes) return adj;
  const mem_csr *c = &m->csr[2 * type + (dir == QVG_IN)];
  adj.nbrs = c->nbrs + c->off[node];
  adj.rels = c->rels + c->off[node];
  adj.n = c->off[node + 1] - c->off[node];
  return adj;
}

double qvg_mem_fanout(const qvg_store *st, int32_t type, qvg_direction dir) {
  qvg_mem *m = st->mem;
  pthread_mutex_lock(&m->mu);
  double f = 1; /* changed since the last prepare: a guess */
  if (!m->dirty && m->csr && type < m->csr_types) {
    const mem_csr *c = &m->csr[2 * type + (dir == QVG_IN)];
    f = c->distinct ? (double)m->type_count[type] / (double)c->distinct : 0;
  }
  pthread_mutex_unlock(&m->mu);
  return f;
}

/* ---- the public handle ---- */

qv_status qv_graph_open_memory(qv_graph **out, qv_error *err) {
  *out = NULL;
  qv_graph *g = qv_calloc(1, sizeof *g);
  if (!g) return qv_error_nomem(err, "graph");
  qv_status rc = qvg_store_memory(&g->store, err);
  if (rc != QV_OK) {
    qv_free(g);
    return rc;
  }
  *out = g;
  return QV_OK;
}
