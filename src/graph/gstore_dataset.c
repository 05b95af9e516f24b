/* The dataset store: a qvg_store over an open qv_graph (graph_int.h).
 * Labels and types are the catalog's; node id = (label << 40) | row
 * position, rel id = (type << 40) | edge row, positions physical (deleted
 * rows keep theirs, as in the CSR files).  Adjacency is the CSR itself.
 *
 * What a query reads beyond the CSR is loaded on first use and kept for
 * the store's life: a property column whole (every fragment, deleted rows
 * included, so a row position indexes it directly) and, per type, each
 * edge row's two ends (from the forward CSR).  Loads happen under one
 * mutex and publish with release stores, so lookups from several threads
 * are safe at any time; qvg_store_prepare is then a no-op. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "quiver/index.h"

#include "graph/gstore_int.h"

typedef struct ds_label {
  uint8_t *live; /* bitmap of live row positions; NULL: every row is a node */
  int64_t n_rows;
  int32_t n_keys;
  const char **keys;         /* the dataset's column names (borrowed from its schema) */
  _Atomic(qv_array *) *cols; /* n_keys, loaded lazily */
} ds_label;

typedef struct ds_type {
  int32_t n_keys;
  const char **keys;         /* the catalog's property columns */
  int32_t *key_col;          /* their column in the dataset */
  _Atomic(qv_array *) *cols; /* n_keys, loaded lazily */
  _Atomic(uint32_t *) ends;  /* 2 per edge row: source and destination position, QVG_NO_POS when deleted */
} ds_type;

typedef struct ds_store {
  qvg_store pub; /* first: a qvg_store * is a ds_store * */
  ds_label *labels;
  ds_type *types;
  pthread_mutex_t mu;
} ds_store;

static ds_store *DS(const qvg_store *st) { return (ds_store *)(uintptr_t)st; }

/* ---- open / free ---- */

/* Marks the positions the node index names: those are the live rows. */
static qv_status live_rows(const qvg_label *l, ds_label *dl, qv_error *err) {
  const qvg_node_index *ix = &l->index;
  dl->n_rows = ix->n_rows;
  if (ix->n_nodes == ix->n_rows) return QV_OK;
  dl->live = qv_calloc((size_t)qv_bitmap_bytes(ix->n_rows) + 8, 1);
  if (!dl->live) return qv_error_nomem(err, "graph store");
  int64_t n = ix->dense ? (ix->n_nodes ? ix->max_id - ix->min_id + 1 : 0) : ix->n_nodes;
  for (int64_t i = 0; i < n; i++)
    if (ix->pos[i] != QVG_NO_POS && ix->pos[i] < ix->n_rows) qv_bit_set(dl->live, ix->pos[i]);
  return QV_OK;
}

qv_status qvg_ds_open(qv_graph *g, qvg_store **out, qv_error *err) {
  *out = NULL;
  ds_store *s = qv_calloc(1, sizeof *s);
  if (!s) return qv_error_nomem(err, "graph store");
  pthread_mutex_init(&s->mu, NULL);
  qvg_store *st = &s->pub;
  st->g = g;
  const qvg_catalog *c = &g->cat;
  st->n_labels = c->n_labels;
  st->n_types = c->n_types;
  st->labels = qv_calloc((size_t)c->n_labels + 1, sizeof *st->labels);
  st->types = qv_calloc((size_t)c->n_types + 1, sizeof *st->types);
  s->labels = qv_calloc((size_t)c->n_labels + 1, sizeof *s->labels);
  s->types = qv_calloc((size_t)c->n_types + 1, sizeof *s->types);
  qv_status rc = QV_OK;
  if (!st->labels || !st->types || !s->labels || !s->types) goto nomem;
  for (int32_t i = 0; i < c->n_labels; i++) {
    const qvg_label *l = &c->labels[i];
    ds_label *dl = &s->labels[i];
    st->labels[i] = l->name;
    if ((rc = live_rows(l, dl, err)) != QV_OK) goto fail;
    const qv_schema *sc = qv_dataset_schema(l->ds);
    dl->n_keys = sc->n_fields;
    dl->keys = qv_calloc((size_t)sc->n_fields + 1, sizeof *dl->keys);
    dl->cols = qv_calloc((size_t)sc->n_fields + 1, sizeof *dl->cols);
    if (!dl->keys || !dl->cols) goto nomem;
    for (int32_t k = 0; k < sc->n_fields; k++) {
      dl->keys[k] = sc->fields[k].name;
      atomic_init(&dl->cols[k], NULL);
    }
  }
  for (int32_t i = 0; i < c->n_types; i++) {
    const qvg_type *t = &c->types[i];
    ds_type *dt = &s->types[i];
    st->types[i] = t->name;
    atomic_init(&dt->ends, NULL);
    dt->keys = qv_calloc((size_t)t->n_props + 1, sizeof *dt->keys);
    dt->key_col = qv_calloc((size_t)t->n_props + 1, sizeof *dt->key_col);
    dt->cols = qv_calloc((size_t)t->n_props + 1, sizeof *dt->cols);
    if (!dt->keys || !dt->key_col || !dt->cols) goto nomem;
    const qv_schema *sc = qv_dataset_schema(t->ds);
    for (int32_t k = 0; k < t->n_props; k++) {
      int32_t col = qv_schema_find(sc, t->props[k]);
      if (col < 0) {
        rc = qv_error_set(err, QV_ERR_CORRUPT, "graph %s: relationship type %s: property column `%s` is missing",
                          g->path ? g->path : "", t->name, t->props[k]);
        goto fail;
      }
      dt->keys[dt->n_keys] = t->props[k];
      dt->key_col[dt->n_keys] = col;
      atomic_init(&dt->cols[dt->n_keys], NULL);
      dt->n_keys++;
    }
  }
  *out = st;
  return QV_OK;
nomem:
  rc = qv_error_nomem(err, "graph store");
fail:
  qvg_ds_free(st);
  return rc;
}

void qvg_ds_free(qvg_store *st) {
  ds_store *s = DS(st);
  for (int32_t i = 0; s->labels && i < st->n_labels; i++) {
    ds_label *dl = &s->labels[i];
    for (int32_t k = 0; dl->cols && k < dl->n_keys; k++) qv_array_release(atomic_load(&dl->cols[k]));
    qv_free(dl->cols);
    qv_free(dl->keys);
    qv_free(dl->live);
  }
  for (int32_t i = 0; s->types && i < st->n_types; i++) {
    ds_type *dt = &s->types[i];
    for (int32_t k = 0; dt->cols && k < dt->n_keys; k++) qv_array_release(atomic_load(&dt->cols[k]));
    qv_free(dt->cols);
    qv_free(dt->keys);
    qv_free(dt->key_col);
    qv_free(atomic_load(&dt->ends));
  }
  qv_free(s->labels);
  qv_free(s->types);
  qv_free(st->labels); /* the names are the catalog's */
  qv_free(st->types);
  pthread_mutex_destroy(&s->mu);
  qv_free(s);
}

qv_status qvg_ds_prepare(qvg_store *st, qv_error *err) {
  (void)st, (void)err;
  return QV_OK;
}

int32_t qvg_ds_label_keys(const qvg_store *st, int32_t label, const char *const **out) {
  const ds_label *dl = &DS(st)->labels[label];
  *out = dl->keys;
  return dl->n_keys;
}

int32_t qvg_ds_type_keys(const qvg_store *st, int32_t type, const char *const **out) {
  const ds_type *dt = &DS(st)->types[type];
  *out = dt->keys;
  return dt->n_keys;
}

/* ---- columns ---- */

/* Column col of ds, every fragment's rows (deleted ones too) in one plain
 * array. */
static qv_status read_column(const qv_dataset *ds, int32_t col, qv_array **out, qv_error *err) {
  *out = NULL;
  int32_t nf = qv_dataset_num_fragments(ds);
  const qv_field *f = &qv_dataset_schema(ds)->fields[col];
  if (nf == 0) return qv_array_make_null(&f->type, 0, out, err);
  qv_array **parts = qv_calloc((size_t)nf, sizeof *parts);
  if (!parts) return qv_error_nomem(err, "graph store");
  qv_status rc = QV_OK;
  for (int32_t i = 0; i < nf && rc == QV_OK; i++) {
    qv_fragment_reader *r = NULL;
    qv_array *a = NULL;
    if ((rc = qv_fragment_open(ds, i, &r, err)) == QV_OK &&
        (rc = qv_fragment_read(r, col, 0, qv_fragment_num_rows(r), &a, err)) == QV_OK) {
      if (a->type.id == QV_TYPE_DICTIONARY) rc = qv_array_dictionary_decode(a, &parts[i], err);
      else parts[i] = qv_array_retain(a);
    }
    qv_array_release(a);
    qv_fragment_close(r);
  }
  if (rc == QV_OK) {
    if (nf == 1) *out = qv_array_retain(parts[0]);
    else rc = qv_array_concat(parts, nf, out, err);
  }
  for (int32_t i = 0; i < nf; i++) qv_array_release(parts[i]);
  qv_free(parts);
  if (rc != QV_OK) qv_error_prefix(err, rc, "dataset %s: column `%s`", qv_dataset_path(ds), f->name);
  return rc;
}

/* The cached column, loaded on first use. */
static qv_status column(ds_store *s, _Atomic(qv_array *) *slot, const qv_dataset *ds, int32_t col, const qv_array **out,
                        qv_error *err) {
  qv_array *a = atomic_load_explicit(slot, memory_order_acquire);
  if (!a) {
    qv_status rc = QV_OK;
    pthread_mutex_lock(&s->mu);
    a = atomic_load_explicit(slot, memory_order_relaxed);
    if (!a && (rc = read_column(ds, col, &a, err)) == QV_OK) atomic_store_explicit(slot, a, memory_order_release);
    pthread_mutex_unlock(&s->mu);
    if (rc != QV_OK) return rc;
  }
  *out = a;
  return QV_OK;
}

/* Row i of a column as a Cypher value.  Binary bytes have no Cypher type:
 * they read as a string of those bytes. */
static qv_status cell(const qv_array *a, int64_t i, qvg_arena *arena, qvg_val *out, qv_error *err) {
  if (i < 0 || i >= a->length || !qv_array_is_valid(a, i)) {
    *out = qvg_null();
    return QV_OK;
  }
  if (a->type.id == QV_TYPE_BINARY) {
    int32_t n;
    const uint8_t *p = qv_array_str(a, i, &n);
    *out = qvg_string((const char *)p, n);
    return QV_OK;
  }
  return qvg_val_from_array(a, QVG_COL_VALUE, i, arena, out, err);
}

static int32_t find_key(const char *const *keys, int32_t n, const char *key, int32_t klen) {
  for (int32_t k = 0; k < n; k++)
    if (!strncmp(keys[k], key, (size_t)klen) && keys[k][klen] == '\0') return k;
  return -1;
}

/* ---- nodes ---- */

bool qvg_ds_node_valid(const qvg_store *st, int64_t node) {
  if (node < 0) return false;
  int64_t l = node >> QVG_ID_SHIFT, pos = node & QVG_ID_MASK;
  if (l >= st->n_labels) return false;
  const ds_label *dl = &DS(st)->labels[l];
  return pos < dl->n_rows && (!dl->live || qv_bit_get(dl->live, pos));
}

int64_t qvg_ds_node_count(const qvg_store *st, int32_t label) {
  if (label >= 0) return qvg_label_count(st->g, label);
  int64_t n = 0;
  for (int32_t l = 0; l < st->n_labels; l++) n += qvg_label_count(st->g, l);
  return n;
}

/* The cursor is the next id to look at. */
int64_t qvg_ds_nodes(const qvg_store *st, int32_t label, int64_t *cursor, int64_t *ids, int64_t cap) {
  const ds_store *s = DS(st);
  int64_t n = 0, c = *cursor;
  int64_t l = c >> QVG_ID_SHIFT;
  if (label >= 0 && l < label) c = (int64_t)label << QVG_ID_SHIFT, l = label;
  int64_t last = label >= 0 ? label : st->n_labels - 1;
  while (n < cap && l <= last) {
    const ds_label *dl = &s->labels[l];
    int64_t pos = c & QVG_ID_MASK, base = l << QVG_ID_SHIFT;
    for (; pos < dl->n_rows && n < cap; pos++)
      if (!dl->live || qv_bit_get(dl->live, pos)) ids[n++] = base | pos;
    if (pos < dl->n_rows) {
      c = base | pos;
      break;
    }
    l++;
    c = l << QVG_ID_SHIFT;
  }
  *cursor = c;
  return n;
}

qv_status qvg_ds_node_prop(const qvg_store *st, int64_t node, const char *key, int32_t klen, qvg_arena *a, qvg_val *out,
                           qv_error *err) {
  if (!qvg_ds_node_valid(st, node)) return QV_OK;
  ds_store *s = DS(st);
  int64_t l = node >> QVG_ID_SHIFT;
  ds_label *dl = &s->labels[l];
  int32_t k = find_key(dl->keys, dl->n_keys, key, klen);
  if (k < 0) return QV_OK;
  const qv_array *col;
  QV_RETURN_NOT_OK(column(s, &dl->cols[k], st->g->cat.labels[l].ds, k, &col, err));
  return cell(col, node & QVG_ID_MASK, a, out, err);
}

qv_status qvg_ds_prop_column(const qvg_store *st, bool rel, int32_t owner, const char *key, const qv_array **out,
                             qv_error *err) {
  *out = NULL;
  ds_store *s = DS(st);
  if (owner < 0 || owner >= (rel ? st->n_types : st->n_labels)) return QV_OK;
  if (rel) {
    ds_type *dt = &s->types[owner];
    int32_t k = find_key(dt->keys, dt->n_keys, key, (int32_t)strlen(key));
    return k < 0 ? QV_OK : column(s, &dt->cols[k], st->g->cat.types[owner].ds, dt->key_col[k], out, err);
  }
  ds_label *dl = &s->labels[owner];
  int32_t k = find_key(dl->keys, dl->n_keys, key, (int32_t)strlen(key));
  return k < 0 ? QV_OK : column(s, &dl->cols[k], st->g->cat.labels[owner].ds, k, out, err);
}

/* The non-null properties as a map value. */
static qv_status props_map(ds_store *s, _Atomic(qv_array *) *cols, const char *const *keys, const int32_t *key_col,
                           int32_t n_keys, const qv_dataset *ds, int64_t pos, qvg_arena *a, qvg_val *out,
                           qv_error *err) {
  qvg_entry *e = qvg_arena_alloc(a, sizeof *e * (size_t)(n_keys ? n_keys : 1));
  if (!e) return qv_error_nomem(err, "graph store");
  int32_t n = 0;
  for (int32_t k = 0; k < n_keys; k++) {
    const qv_array *col;
    QV_RETURN_NOT_OK(column(s, &cols[k], ds, key_col ? key_col[k] : k, &col, err));
    QV_RETURN_NOT_OK(cell(col, pos, a, &e[n].v, err));
    if (e[n].v.t == QVG_V_NULL) continue;
    e[n].key = keys[k];
    e[n].klen = (int32_t)strlen(keys[k]);
    n++;
  }
  return qvg_map_make(a, e, n, out, err);
}

qv_status qvg_ds_node_props(const qvg_store *st, int64_t node, qvg_arena *a, qvg_val *out, qv_error *err) {
  if (!qvg_ds_node_valid(st, node)) return qvg_map_make(a, NULL, 0, out, err);
  ds_store *s = DS(st);
  int64_t l = node >> QVG_ID_SHIFT;
  ds_label *dl = &s->labels[l];
  return props_map(s, dl->cols, dl->keys, NULL, dl->n_keys, st->g->cat.labels[l].ds, node & QVG_ID_MASK, a, out, err);
}

/* ---- relationships ---- */

/* Each edge row's ends, from the forward CSR (one pass; deleted rows stay
 * QVG_NO_POS). */
static const uint32_t *ends_of(const qvg_store *st, int32_t type) {
  ds_store *s = DS(st);
  ds_type *dt = &s->types[type];
  uint32_t *e = atomic_load_explicit(&dt->ends, memory_order_acquire);
  if (e) return e;
  pthread_mutex_lock(&s->mu);
  e = atomic_load_explicit(&dt->ends, memory_order_relaxed);
  if (!e) {
    const qvg_csr *c = &st->g->cat.types[type].csr[QVG_OUT];
    int64_t rows = c->n_edge_rows;
    e = qv_malloc((size_t)(rows ? rows : 1) * 2 * sizeof *e);
    if (e) {
      memset(e, 0xff, (size_t)(rows ? rows : 1) * 2 * sizeof *e);
      for (int64_t v = 0; v < c->n_nodes; v++)
        for (uint64_t i = c->offsets[v]; i < c->offsets[v + 1]; i++) {
          uint32_t r = c->edges[i];
          if (r >= rows) continue;
          e[2 * (int64_t)r] = (uint32_t)v;
          e[2 * (int64_t)r + 1] = c->nbrs[i];
        }
      atomic_store_explicit(&dt->ends, e, memory_order_release);
    }
  }
  pthread_mutex_unlock(&s->mu);
  return e;
}

bool qvg_ds_rel_ends(const qvg_store *st, int64_t rel, int64_t *src, int64_t *dst) {
  if (rel < 0) return false;
  int64_t t = rel >> QVG_ID_SHIFT, row = rel & QVG_ID_MASK;
  if (t >= st->n_types || row >= st->g->cat.types[t].n_edge_rows) return false;
  const uint32_t *e = ends_of(st, (int32_t)t);
  if (!e || e[2 * row] == QVG_NO_POS) return false;
  const qvg_type *ty = &st->g->cat.types[t];
  *src = ((int64_t)ty->src_label << QVG_ID_SHIFT) | e[2 * row];
  *dst = ((int64_t)ty->dst_label << QVG_ID_SHIFT) | e[2 * row + 1];
  return true;
}

int64_t qvg_ds_rel_count(const qvg_store *st, int32_t type) {
  if (type >= 0) return qvg_type_count(st->g, type);
  int64_t n = 0;
  for (int32_t t = 0; t < st->n_types; t++) n += qvg_type_count(st->g, t);
  return n;
}

/* The cursor is the next id to look at; ids come in edge row order. */
int64_t qvg_ds_rels(const qvg_store *st, int32_t type, int64_t *cursor, int64_t *ids, int64_t cap) {
  int64_t n = 0, c = *cursor;
  int64_t t = c >> QVG_ID_SHIFT;
  if (type >= 0 && t < type) c = (int64_t)type << QVG_ID_SHIFT, t = type;
  int64_t last = type >= 0 ? type : st->n_types - 1;
  while (n < cap && t <= last) {
    const uint32_t *e = ends_of(st, (int32_t)t);
    int64_t rows = st->g->cat.types[t].n_edge_rows, row = c & QVG_ID_MASK, base = t << QVG_ID_SHIFT;
    if (!e) break; /* out of memory: the scan ends early rather than crash */
    for (; row < rows && n < cap; row++)
      if (e[2 * row] != QVG_NO_POS) ids[n++] = base | row;
    if (row < rows) {
      c = base | row;
      break;
    }
    t++;
    c = t << QVG_ID_SHIFT;
  }
  *cursor = c;
  return n;
}

qv_status qvg_ds_rel_prop(const qvg_store *st, int64_t rel, const char *key, int32_t klen, qvg_arena *a, qvg_val *out,
                          qv_error *err) {
  int64_t sn, dn;
  if (!qvg_ds_rel_ends(st, rel, &sn, &dn)) return QV_OK;
  ds_store *s = DS(st);
  int64_t t = rel >> QVG_ID_SHIFT;
  ds_type *dt = &s->types[t];
  int32_t k = find_key(dt->keys, dt->n_keys, key, klen);
  if (k < 0) return QV_OK;
  const qv_array *col;
  QV_RETURN_NOT_OK(column(s, &dt->cols[k], st->g->cat.types[t].ds, dt->key_col[k], &col, err));
  return cell(col, rel & QVG_ID_MASK, a, out, err);
}

qv_status qvg_ds_rel_props(const qvg_store *st, int64_t rel, qvg_arena *a, qvg_val *out, qv_error *err) {
  int64_t sn, dn;
  if (!qvg_ds_rel_ends(st, rel, &sn, &dn)) return qvg_map_make(a, NULL, 0, out, err);
  ds_store *s = DS(st);
  int64_t t = rel >> QVG_ID_SHIFT;
  ds_type *dt = &s->types[t];
  return props_map(s, dt->cols, dt->keys, dt->key_col, dt->n_keys, st->g->cat.types[t].ds, rel & QVG_ID_MASK, a, out,
                   err);
}

/* ---- adjacency ---- */

qvg_adj qvg_ds_adj(const qvg_store *st, int32_t type, qvg_direction dir, int64_t node) {
  qvg_adj adj = {NULL, NULL, 0, 0, 0};
  const qvg_type *t = &st->g->cat.types[type];
  int32_t from = dir == QVG_IN ? t->dst_label : t->src_label, to = dir == QVG_IN ? t->src_label : t->dst_label;
  if ((node >> QVG_ID_SHIFT) != from) return adj;
  qvg_span sp = qvg_neighbours(st->g, type, dir, node & QVG_ID_MASK);
  adj.nbrs = sp.nbrs;
  adj.rels = sp.edges;
  adj.n = sp.n;
  adj.nbr_base = (int64_t)to << QVG_ID_SHIFT;
  adj.rel_base = (int64_t)type << QVG_ID_SHIFT;
  return adj;
}

/* ---- statistics ---- */

/* What the page statistics of a label's dataset say of one comparison
 * `column OP literal` (bound): the rows of each page its bounds admit, the
 * values taken as spread evenly between them.  -1: they say nothing. */
typedef struct page_est {
  int64_t rows;    /* rows of the pages read */
  double matching; /* estimated rows kept */
} page_est;

static double num_of(const qv_scalar *s) {
  if (qv_type_is_floating(s->type.id)) return s->v.f;
  return qv_type_is_signed(s->type.id) ? (double)s->v.i : (double)s->v.u;
}

static bool numeric(qv_type_id id) { return qv_type_is_integer(id) || qv_type_is_floating(id); }

/* The share of a page's non-null values v (bounds lo..hi) that `x OP lit`
 * keeps. */
static double page_share(qv_op op, double lo, double hi, double x, bool integer, double v) {
  double eq;
  if (x < lo || x > hi) eq = 0;
  else if (hi == lo) eq = 1;
  else eq = integer ? 1.0 / fmin(v, hi - lo + 1) : 1.0 / fmax(1.0, v);
  double below = hi > lo ? fmin(1, fmax(0, (x - lo) / (hi - lo))) : (x > lo ? 1 : 0); /* share < x (about) */
  switch (op) {
    case QV_OP_EQ: return eq;
    case QV_OP_NE: return 1 - eq;
    case QV_OP_LT: return fmax(0, below - (x <= hi && x >= lo && hi == lo ? 1 : 0));
    case QV_OP_LE: return fmin(1, below + eq);
    case QV_OP_GT: return fmax(0, 1 - below - eq);
    case QV_OP_GE: return 1 - below;
    default: return -1;
  }
}

static double pages_selectivity(const qv_dataset *ds, const qv_expr *e) {
  bool is_null = e->op == QV_OP_IS_NULL || e->op == QV_OP_IS_NOT_NULL;
  if (e->kind != QV_EXPR_CALL || e->n_args < 1 || e->args[0]->kind != QV_EXPR_COLUMN) return -1;
  int32_t col = e->args[0]->column;
  const qv_expr *lit = e->n_args == 2 ? e->args[1] : NULL;
  if (!is_null) {
    if (!lit || lit->kind != QV_EXPR_LITERAL || lit->value.is_null || e->n_args != 2) return -1;
    if (!numeric(lit->value.type.id) || !numeric(e->args[0]->type.id)) return -1;
    if (qv_type_is_floating(lit->value.type.id) && isnan(lit->value.v.f)) return -1;
  }
  int32_t nf = qv_dataset_num_fragments(ds);
  page_est pe = {0, 0};
  for (int32_t f = 0; f < nf && f < 32; f++) {
    qv_fragment_reader *r = NULL;
    qv_error err;
    if (qv_fragment_open(ds, f, &r, &err) != QV_OK) return -1;
    int32_t np = qv_fragment_num_pages(r, col);
    for (int32_t pg = 0; pg < np; pg++) {
      qv_page_info pi;
      qv_fragment_page(r, col, pg, &pi);
      if (!pi.stats || pi.row_count <= 0) continue;
      const qv_page_stats *s = pi.stats;
      pe.rows += pi.row_count;
      double nulls = (double)s->null_count, values = (double)(pi.row_count - s->null_count - s->nan_count);
      if (is_null) {
        pe.matching += e->op == QV_OP_IS_NULL ? nulls : (double)pi.row_count - nulls;
        continue;
      }
      if (values <= 0 || s->min.is_null || s->max.is_null) continue;
      double sh = page_share(e->op, num_of(&s->min), num_of(&s->max), num_of(&lit->value),
                             qv_type_is_integer(e->args[0]->type.id), values);
      if (sh < 0) {
        qv_fragment_close(r);
        return -1;
      }
      pe.matching += sh * values;
      if (e->op == QV_OP_NE) pe.matching += (double)s->nan_count; /* NaN <> x is true */
    }
    qv_fragment_close(r);
  }
  return pe.rows > 0 ? pe.matching / (double)pe.rows : -1;
}

/* What a scalar index on the conjunct's column estimates, or -1. */
static double index_selectivity(const qv_dataset *ds, const qv_expr *e) {
  int32_t n = qv_dataset_num_indices(ds);
  for (int32_t i = 0; i < n; i++) {
    qv_index *ix = NULL;
    qv_error err;
    if (qv_index_open(ds, i, &ix, &err) != QV_OK) continue;
    qv_index_estimate est;
    double sel = -1;
    if (qv_index_estimate_rows(ix, e, &est, &err) == QV_OK && est.answer != QV_INDEX_NO && est.covered_rows > 0)
      sel = fmin(1, (double)est.rows / (double)est.covered_rows);
    qv_index_close(ix);
    if (sel >= 0) return sel;
  }
  return -1;
}

static double sel_of(const qv_dataset *ds, const qv_expr *e, double dflt) {
  if (e->kind == QV_EXPR_CALL) switch (e->op) {
      case QV_OP_AND: return sel_of(ds, e->args[0], dflt) * sel_of(ds, e->args[1], dflt);
      case QV_OP_OR: {
        double a = sel_of(ds, e->args[0], dflt), b = sel_of(ds, e->args[1], dflt);
        return a + b - a * b;
      }
      case QV_OP_NOT: return 1 - sel_of(ds, e->args[0], dflt);
      default: break;
    }
  double s = index_selectivity(ds, e);
  if (s < 0) s = pages_selectivity(ds, e);
  return s < 0 ? dflt : s;
}

double qvg_ds_selectivity(const qvg_store *st, int32_t label, const qv_expr *filter, double dflt) {
  const qv_dataset *ds = st->g->cat.labels[label].ds;
  qv_expr *b = qv_expr_clone(filter);
  qv_error err;
  if (!b || qv_expr_bind(b, qv_dataset_schema(ds), &err) != QV_OK) {
    qv_expr_destroy(b);
    return dflt;
  }
  const qv_expr *conj[64];
  int32_t n = qv_expr_conjuncts(b, conj, 64);
  double s = 1;
  for (int32_t i = 0; i < n && i < 64; i++) s *= sel_of(ds, conj[i], dflt);
  qv_expr_destroy(b);
  return s;
}
