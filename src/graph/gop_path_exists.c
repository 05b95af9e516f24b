/* PathExistsExec: a pattern predicate answered by walking the adjacency
 * from each row's start node (graph/cypher_ops.h).
 *
 * `WHERE NOT (a)-[:KNOWS]->(c)` as a subquery (ApplyExec) plans and runs a
 * MATCH per input batch and groups its rows back; here each row walks the
 * CSR from a, hop by hop, and stops at the first path that reaches c (or
 * any node, for an open end).  The mark appended is the one ApplyExec's
 * exists mode gives (a VALUE column, true or false), so the filter or CASE
 * above is the same either way.
 *
 * One hop to a bound end, the common case, is a set lookup: the rows of
 * one start come together (they are the expansion of that start), so
 * the start's neighbours are stamped once per run of rows and each row
 * checks its end's stamp.  Longer paths walk depth first, with no
 * relationship twice on one path (the pattern's own uniqueness). */
#include <string.h>

#include "graph/cypher_ops.h"

typedef struct pe_state {
  const qvg_store *st;
  int32_t start_col, match_col;
  qvg_path_hop *hops;
  int32_t n_hops;
  char *name;
  /* one hop to a bound end: a stamp per node, the epoch of the start
   * whose neighbours were marked last */
  int32_t n_parts;
  int64_t *positions; /* per part, fixed on first use (-1: not yet): the stamps' size */
  uint32_t **stamps;
  uint32_t epoch;
  int64_t stamped_start;
  int64_t *path_rels; /* n_hops: the walk's relationships */
  int64_t edges;
} pe_state;

static qvg_adj span_of(const pe_state *s, int64_t node, int32_t h, int side) {
  qvg_direction d = s->hops[h].dir == QVG_DIR_LEFT ? QVG_IN : QVG_OUT;
  if (s->hops[h].dir == QVG_DIR_BOTH) d = side ? QVG_IN : QVG_OUT;
  return qvg_store_adj(s->st, s->hops[h].type, d, node);
}

static bool used(const pe_state *s, int32_t depth, int64_t rel) {
  for (int32_t i = 0; i < depth; i++)
    if (s->path_rels[i] == rel) return true;
  return false;
}

/* Whether a path of hops h.. leaves node (reaching match at the end when
 * match >= 0). */
static bool walk(pe_state *s, int64_t node, int32_t h, int64_t match) {
  bool last = h == s->n_hops - 1;
  for (int side = 0; side < (s->hops[h].dir == QVG_DIR_BOTH ? 2 : 1); side++) {
    qvg_adj a = span_of(s, node, h, side);
    for (int64_t i = 0; i < a.n; i++) {
      int64_t r = a.rel_base + a.rels[i], v = a.nbr_base + a.nbrs[i];
      s->edges++;
      if (used(s, h, r)) continue;
      if (last) {
        if (match < 0 || v == match) return true;
        continue;
      }
      s->path_rels[h] = r;
      if (walk(s, v, h + 1, match)) return true;
    }
  }
  return false;
}

/* How many positions part has, asked of the store once: the stamps are
 * sized by it, and a lookup per neighbour stays a load. */
static int64_t part_positions(pe_state *s, int64_t part) {
  if (s->positions[part] < 0) s->positions[part] = qvg_store_id_positions(s->st, false, (int32_t)part);
  return s->positions[part];
}

static uint32_t *stamp_of(pe_state *s, int64_t node, qv_error *err, bool *nomem) {
  int64_t part = node >> QVG_ID_SHIFT, pos = node & QVG_ID_MASK;
  if (node < 0 || part >= s->n_parts || pos >= part_positions(s, part)) return NULL;
  if (!s->stamps[part]) {
    int64_t n = part_positions(s, part);
    if (!(s->stamps[part] = qv_calloc((size_t)n + 1, sizeof **s->stamps))) {
      *nomem = true;
      qv_error_nomem(err, "PathExistsExec");
      return NULL;
    }
  }
  return &s->stamps[part][pos];
}

/* One hop to a bound end: stamps the start's neighbours when the start
 * changes, then reads the end's stamp. */
static qv_status one_hop(pe_state *s, int64_t start, int64_t match, bool *found, qv_error *err) {
  bool nomem = false;
  if (start != s->stamped_start || s->epoch == 0) {
    if (++s->epoch == 0) { /* wrapped: forget every stamp */
      for (int32_t i = 0; i < s->n_parts; i++)
        if (s->stamps[i]) memset(s->stamps[i], 0, (size_t)(part_positions(s, i) + 1) * sizeof **s->stamps);
      s->epoch = 1;
    }
    s->stamped_start = start;
    for (int side = 0; side < (s->hops[0].dir == QVG_DIR_BOTH ? 2 : 1); side++) {
      qvg_adj a = span_of(s, start, 0, side);
      s->edges += a.n;
      for (int64_t i = 0; i < a.n; i++) {
        uint32_t *t = stamp_of(s, a.nbr_base + a.nbrs[i], err, &nomem);
        if (nomem) return QV_ERR_NOMEM;
        if (t) *t = s->epoch;
      }
    }
  }
  uint32_t *t = stamp_of(s, match, err, &nomem);
  if (nomem) return QV_ERR_NOMEM;
  *found = t && *t == s->epoch;
  return QV_OK;
}

static int64_t node_at(const qv_array *a, int64_t i) {
  return qv_array_is_valid(a, i) ? ((const int64_t *)qv_array_values(a))[i] : -1;
}

static qv_status pe_next(qv_exec_op *op, qv_batch **out, qv_error *err) {
  pe_state *s = op->state;
  qv_batch *b = NULL;
  QV_RETURN_NOT_OK(qv_exec_next(op->children[0], &b, err));
  if (!b) return QV_OK;
  int32_t n_in = b->schema.n_fields;
  const qv_array *sa = b->columns[s->start_col], *ma = s->match_col >= 0 ? b->columns[s->match_col] : NULL;
  qv_builder bl;
  qv_datatype bin = qv_datatype_simple(QV_TYPE_BINARY);
  qv_status rc = qv_builder_init(&bl, &bin, err);
  for (int64_t i = 0; i < b->num_rows && rc == QV_OK; i++) {
    int64_t start = node_at(sa, i), match = ma ? node_at(ma, i) : -1;
    bool found = false;
    /* a null start or end matches nothing, as the subquery's MATCH */
    if (start >= 0 && (!ma || match >= 0)) {
      if (s->n_hops == 1 && ma) rc = one_hop(s, start, match, &found, err);
      else found = walk(s, start, 0, match);
    }
    qvg_val v = qvg_bool(found);
    if (rc == QV_OK) rc = qvg_val_append(&bl, QVG_COL_VALUE, &v, err);
  }
  qv_array **cols = rc == QV_OK ? qv_calloc((size_t)n_in + 1, sizeof *cols) : NULL;
  if (rc == QV_OK && !cols) rc = qv_error_nomem(err, "PathExistsExec");
  if (rc == QV_OK) rc = qv_builder_finish(&bl, &cols[n_in], err);
  else qv_builder_reset(&bl);
  if (rc == QV_OK) {
    for (int32_t c = 0; c < n_in; c++) cols[c] = qv_array_retain(b->columns[c]);
    rc = qv_batch_make(&op->schema, cols, b->num_rows, out, err);
  }
  qv_free(cols);
  qv_batch_release(b);
  return rc;
}

static qv_status pe_open(qv_exec_op *op, qv_error *err) {
  pe_state *s = op->state;
  if (s->n_hops != 1 || s->match_col < 0) return QV_OK;
  int64_t bytes = 0;
  /* what the stamps will take (sizes not fixed yet: a CREATE before the
   * first row may still add nodes) */
  for (int32_t i = 0; i < s->n_parts; i++) bytes += (qvg_store_id_positions(s->st, false, i) + 1) * 4;
  return qvx_reserve(op, bytes, "the start's neighbour stamps", err);
}

static void pe_close(qv_exec_op *op) {
  pe_state *s = op->state;
  for (int32_t i = 0; s->stamps && i < s->n_parts; i++) {
    qv_free(s->stamps[i]);
    s->stamps[i] = NULL;
  }
}

static void pe_free(qv_exec_op *op) {
  pe_state *s = op->state;
  if (!s) return;
  pe_close(op);
  qv_free(s->stamps);
  qv_free(s->positions);
  qv_free(s->hops);
  qv_free(s->path_rels);
  qv_free(s->name);
  qv_free(s);
}

static void pe_explain(const qv_exec_op *op, qvb_text *t) {
  const pe_state *s = op->state;
  const qv_schema *in = &op->children[0]->schema;
  qvb_text_f(t, "start=%s, hops=%d (", in->fields[s->start_col].name, (int)s->n_hops);
  for (int32_t h = 0; h < s->n_hops; h++) {
    int d = s->hops[h].dir;
    int32_t ty = s->hops[h].type;
    qvb_text_f(t, "%s%s%s%s", h ? " " : "", d == QVG_DIR_LEFT ? "<-" : "-",
               ty >= 0 && ty < s->st->n_types ? s->st->types[ty] : "?", d == QVG_DIR_RIGHT ? "->" : "-");
  }
  qvb_text_s(t, ")");
  if (s->match_col >= 0) qvb_text_f(t, ", match=%s", in->fields[s->match_col].name);
  qvb_text_f(t, ", as=%s", s->name);
}

static void pe_metrics(const qv_exec_op *op, qvb_text *t) {
  const pe_state *s = op->state;
  qvb_text_f(t, ", edges=%lld", (long long)s->edges);
}

static const qvx_op_vt pe_vt = {"PathExistsExec", pe_open, pe_next, pe_close, pe_free, pe_explain, pe_metrics};

qv_status qvg_op_path_exists(qv_exec_ctx *ctx, qv_exec_op *child, const qvg_store *st, int32_t start_col,
                             int32_t match_col, const qvg_path_hop *hops, int32_t n_hops, const char *name,
                             qv_exec_op **out, qv_error *err) {
  *out = NULL;
  int32_t n_in = child->schema.n_fields;
  if (start_col < 0 || start_col >= n_in || match_col >= n_in || n_hops < 1 || !name) {
    qv_exec_destroy(child);
    return qv_error_set(err, QV_ERR_INVALID, "PathExistsExec: bad start, end or hops");
  }
  pe_state *s = qv_calloc(1, sizeof *s);
  if (!s) {
    qv_exec_destroy(child);
    return qv_error_nomem(err, "PathExistsExec");
  }
  s->st = st;
  s->start_col = start_col;
  s->match_col = match_col;
  s->n_hops = n_hops;
  s->stamped_start = -1;
  s->n_parts = qvg_store_id_parts(st, false);
  s->hops = qv_calloc((size_t)n_hops, sizeof *s->hops);
  s->path_rels = qv_calloc((size_t)n_hops, sizeof *s->path_rels);
  s->stamps = qv_calloc((size_t)s->n_parts + 1, sizeof *s->stamps);
  s->positions = qv_malloc(((size_t)s->n_parts + 1) * sizeof *s->positions);
  for (int32_t i = 0; s->positions && i <= s->n_parts; i++) s->positions[i] = -1;
  s->name = qv_strdup(name);
  qv_exec_op *op = NULL;
  QV_RETURN_NOT_OK(qvx_op_new(&pe_vt, ctx, &child, 1, s, &op, err));
  if (!s->hops || !s->path_rels || !s->stamps || !s->positions || !s->name) goto nomem;
  memcpy(s->hops, hops, (size_t)n_hops * sizeof *hops);
  if (qv_schema_copy(&op->children[0]->schema, &op->schema) != QV_OK) goto nomem;
  qv_field f = {s->name, qv_datatype_simple(QV_TYPE_BINARY), true};
  if (qv_schema_add(&op->schema, &f, err) != QV_OK) goto nomem;
  op->estimate_rows = op->children[0]->estimate_rows;
  *out = op;
  return QV_OK;
nomem:
  qv_exec_destroy(op);
  return qv_error_nomem(err, "PathExistsExec");
}
