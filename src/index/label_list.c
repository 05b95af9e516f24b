/* LABEL_LIST: on a list column, a roaring bitmap of rows per element value
 * (posting.c's layout; null elements are not indexed, a null list is a
 * null row).  It answers array_has, array_has_any and array_has_all with
 * literal values, exactly. */
#include "expr/expr_lit.h"
#include "index/index_int.h"

static bool supports(const qv_datatype *t) {
  return t->id == QV_TYPE_LIST && t->n_children == 1 && qvi_key_kind_of(&t->children[0].type) != QVI_KEY_NONE;
}
static const qv_datatype *key_type(const qv_datatype *t) { return &t->children[0].type; }

static qv_status collect(void *ctx, const qv_array *a, int64_t base, qvi_build_out *out, qv_error *err) {
  qvi_entries *c = ctx;
  uint8_t tmp[16];
  int32_t len;
  const qv_array *child = a->children[0];
  qvi_key_kind kind = qvi_key_kind_of(&child->type);
  const int32_t *offs = (const int32_t *)a->buffers[1]->data + a->offset;
  for (int64_t i = 0; i < a->length; i++) {
    uint32_t row = (uint32_t)(base + i);
    if (!qv_array_is_valid(a, i)) {
      roaring_bitmap_add(out->nulls, row);
      continue;
    }
    for (int32_t k = offs[i]; k < offs[i + 1]; k++) {
      if (!qv_array_is_valid(child, k)) continue; /* null elements never match */
      const uint8_t *key = qvi_key_of_row(child, k, kind, tmp, &len);
      QV_RETURN_NOT_OK(qvi_entries_add(c, key, len, row, err));
    }
  }
  return QV_OK;
}

static qv_status build(const qvi_build_in *in, qvi_build_out *o, qv_error *err) {
  qvi_entries c;
  memset(&c, 0, sizeof c);
  qv_status st = qvi_build_read(in, collect, &c, o, err);
  if (st == QV_OK) {
    qvi_entries_sort(&c);
    st = qvi_build_put_nulls(o, err);
  }
  if (st == QV_OK) st = qvi_postings_write_sorted(&c, o, err);
  qvi_entries_reset(&c);
  return st;
}

/* Items of a list literal (a literal list scalar or a LIST call of literals). */
static bool list_items(qvi_match_ctx *c, const qv_expr *l, qvi_ask *a) {
  if (l->kind == QV_EXPR_CALL && l->op == QV_OP_LIST) {
    for (int32_t i = 0; i < l->n_args; i++) {
      if (!qve_is_lit(l->args[i])) return false;
      if (l->args[i]->value.is_null) continue;
      if (!qvi_match_point(c, a, &l->args[i]->value)) return false;
    }
    return true;
  }
  if (!qve_is_lit_of(l, QV_TYPE_LIST)) return false;
  const qv_array *items = l->value.list;
  for (int64_t k = 0; items && k < items->length; k++) {
    qv_scalar s = QV_SCALAR_INIT;
    if (qv_scalar_from_array(items, k, &s, c->err) != QV_OK) {
      c->st = QV_ERR_NOMEM;
      return false;
    }
    bool ok = s.is_null || qvi_match_point(c, a, &s);
    qv_scalar_reset(&s);
    if (!ok) return false;
  }
  return true;
}

static bool match(qvi_match_ctx *c, const qv_expr *e, qvi_ask *a) {
  if (e->kind != QV_EXPR_CALL || e->n_args != 2 || e->args[0]->kind != QV_EXPR_COLUMN ||
      e->args[0]->column != c->column || !qvi_floats_total(c, e))
    return false;
  a->exact = true;
  switch (e->op) {
    case QV_OP_ARRAY_HAS:
      a->mode = QVI_ANY_KEY;
      return qve_is_value_lit(e->args[1]) && qvi_match_point(c, a, &e->args[1]->value);
    case QV_OP_ARRAY_HAS_ANY: a->mode = QVI_ANY_KEY; return list_items(c, e->args[1], a);
    case QV_OP_ARRAY_HAS_ALL:
      a->mode = QVI_ALL_KEYS;
      if (!list_items(c, e->args[1], a)) return false;
      a->all_nonnull = a->n == 0;
      return true;
    default: return false;
  }
}

static qv_status estimate(qvi_file *f, const qvi_ask *a, int64_t *est, int64_t *read, qv_error *err) {
  return qvi_postings_estimate(f, a, true, est, read, err);
}

const qvi_kind qvi_kind_label_list = {
    .type = QV_INDEX_LABEL_LIST,
    .name = "label_list",
    .supports = supports,
    .key_type = key_type,
    .build = build,
    .open = qvi_postings_open,
    .chunk_role = qvi_postings_chunk_role,
    .match = match,
    .query = qvi_postings_query,
    .estimate = estimate,
    .stats = qvi_stats_footer,
};
