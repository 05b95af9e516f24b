/* List and struct access: array_has, array_has_any, array_has_all,
 * array_length, list literals, and struct field access.
 *
 * array_has compares the list's elements with the needle in one vectorized
 * pass over the child array (the compare kernels, under the node's float
 * order), then asks per row whether any bit in its element range is set; a
 * needle that varies per row is first spread over the elements by a take.
 * array_has_any probes the elements against a hash set of the literal
 * list's values (in.c); array_has_all does one pass per value.
 * Nulls: a null list or a null needle gives null (except on a Polars node
 * with nulls_equal, where a null needle finds null elements); null elements
 * never match a value; null values in the literal list are ignored (so has_all over only
 * nulls is true, has_any false).  An empty literal list gives has_any
 * false and has_all true.
 * Field access returns the struct's child, zero-copy: the same buffers at
 * the struct's offset, with the struct's nulls added when it has any. */
#include "compute/compute_int.h"

static bool is_list(const qv_datatype *t) { return t->id == QV_TYPE_LIST || t->id == QV_TYPE_FIXED_SIZE_LIST; }

/* Element range of list row r (child positions). */
static inline void range_of(const qv_array *l, int64_t r, int64_t *b, int64_t *e) {
  if (l->type.id == QV_TYPE_LIST) {
    const int32_t *o = qv_array_offsets(l);
    *b = o[r];
    *e = o[r + 1];
  } else {
    int64_t k = l->type.list_size;
    *b = (l->offset + r) * k;
    *e = *b + k;
  }
}

/* Whether any bit of words[b - base, e - base) is set. */
static bool any_bit(const uint64_t *w, int64_t b, int64_t e) {
  while (b < e) {
    int64_t m = e - b < 64 ? e - b : 64;
    if (qvk_bits_load((const uint8_t *)w, b, m)) return true;
    b += m;
  }
  return false;
}

/* The child elements list rows use: [lo, hi) of the child. */
static void used_range(const qv_array *l, int64_t n, int64_t *lo, int64_t *hi) {
  if (n == 0) {
    *lo = *hi = 0;
    return;
  }
  int64_t b, e;
  range_of(l, 0, lo, &e);
  range_of(l, n - 1, &b, hi);
}

/* EQ of the child elements [lo, hi) against needle (a scalar) -> words
 * indexed from lo; valid elements only. */
static qv_status child_eq(const qv_array *l, int64_t lo, int64_t hi, const qv_scalar *needle, uint8_t order,
                          uint64_t **out, qv_error *err) {
  qv_array *slice = NULL, *eq = NULL;
  QV_RETURN_NOT_OK(qv_array_slice(l->children[0], lo, hi - lo, &slice, err));
  qvk_datum ch = QVK_DATUM_INIT, nd = QVK_DATUM_INIT;
  ch.array = slice;
  nd.scalar = needle;
  qv_status st = qvk_compare(QV_OP_EQ, order, &ch, &nd, hi - lo, &eq, err);
  qv_array_release(slice);
  if (st != QV_OK) return st;
  int64_t nw = qvk_words(hi - lo);
  uint64_t *w = qv_malloc((size_t)(nw ? nw : 1) * 8);
  if (!w) {
    qv_array_release(eq);
    return qv_error_nomem(err, "array_has");
  }
  qvk_datum ed = QVK_DATUM_INIT;
  ed.array = eq;
  qvk_bool_words(&ed, hi - lo, w);
  qvk_and_validity(&ed, hi - lo, w);
  qv_array_release(eq);
  *out = w;
  return QV_OK;
}

static qv_status bool_out(qvk_ctx *c, qvk_datum *out, qv_bytes *values, const qvk_datum *l, const qvk_datum *needle) {
  qv_bytes *validity = NULL;
  qv_status st = qvk_validity_of(l, needle, c->n, &validity, c->err);
  return qvk_bool_out(st, c->n, values, validity, out, c->err);
}

/* Items of a constant list argument, as scalars (caller resets each). */
static qv_status literal_items(qvk_ctx *c, const qvk_datum *d, qv_scalar **items, int64_t *n_items) {
  *items = NULL;
  *n_items = 0;
  if (!d->scalar || d->scalar->type.id != QV_TYPE_LIST)
    return qv_error_set(c->err, QV_ERR_UNSUPPORTED,
                        "array_has_any / array_has_all: the second argument must be a constant list");
  const qv_array *l = d->scalar->list;
  if (!l) return QV_OK;
  qv_scalar *s = qv_calloc((size_t)(l->length ? l->length : 1), sizeof *s);
  if (!s) return qv_error_nomem(c->err, NULL);
  for (int64_t k = 0; k < l->length; k++) {
    qv_status st = qv_scalar_from_array(l, k, &s[k], c->err);
    if (st != QV_OK) {
      for (int64_t j = 0; j < k; j++) qv_scalar_reset(&s[j]);
      qv_free(s);
      return st;
    }
  }
  *items = s;
  *n_items = l->length;
  return QV_OK;
}

static qv_status array_length(qvk_ctx *c, const qv_expr *e, qvk_datum *l, qvk_datum *out) {
  int64_t n = c->n;
  const qv_datatype *rt = qvk_bound_type(e);
  qv_datatype i64 = qv_datatype_simple(QV_TYPE_INT64);
  if (!rt || !qv_type_is_integer(rt->id)) rt = &i64;
  qv_array *r = NULL;
  QV_RETURN_NOT_OK(qvk_fixed_result(rt, n, false, &r, c->err));
  uint8_t *dst = qv_bytes_mutable(r->buffers[1]);
  int w = qv_type_byte_width(rt->id);
  for (int64_t i = 0; i < n; i++) {
    int64_t b, en;
    range_of(l->array, qvk_row(l, i), &b, &en);
    int64_t len = en - b;
    memcpy(dst + w * i, &len, (size_t)w);
  }
  return qvk_array_out_valid(r, l, n, out, c->err);
}

/* Polars' list.contains(None) with nulls_equal: whether the list holds a
 * null element (null for a null list). */
static qv_status has_null_element(qvk_ctx *c, qvk_datum *l, qvk_datum *out) {
  int64_t n = c->n;
  qv_bytes *values = qvk_bytes(qvk_words(n) * 8, c->err);
  if (!values) return QV_ERR_NOMEM;
  uint64_t *o = (uint64_t *)qv_bytes_mutable(values);
  if (l->scalar) { /* a constant list: the same answer on every row */
    const qv_array *items = l->scalar->list;
    bool hit = false;
    for (int64_t k = 0; items && k < items->length && !hit; k++) hit = !qv_array_is_valid(items, k);
    qvk_fill(o, n, hit);
    return bool_out(c, out, values, l, NULL);
  }
  const qv_array *la = l->array, *ch = la->children[0];
  for (int64_t i = 0; i < n; i++) {
    int64_t b, en;
    range_of(la, qvk_row(l, i), &b, &en);
    bool hit = false;
    for (int64_t k = b; k < en && !hit; k++) hit = !qv_array_is_valid(ch, k);
    if (hit) o[i >> 6] |= (uint64_t)1 << (i & 63);
  }
  return bool_out(c, out, values, l, NULL);
}

/* array_has with a needle per row (Polars' list.contains(pl.col(...))):
 * the needle is spread over the child elements of its row with one take,
 * compared with them in one vectorized pass, and each row asks whether a
 * bit of its range is set.  A null needle finds null elements under
 * nulls_equal and is null otherwise. */
/* array_has of one constant list and a needle per row: one vectorized
 * comparison of the needles per element of the list. */
static qv_status const_list_has(qvk_ctx *c, const qv_expr *e, const qvk_datum *l, qvk_datum *needle, qvk_datum *out) {
  int64_t n = c->n;
  const qv_array *items = l->scalar->list;
  int64_t k = items ? items->length : 0;
  qv_bytes *values = qvk_bytes(qvk_words(n) * 8, c->err), *validity = qvk_bytes(qvk_words(n) * 8, c->err);
  uint64_t *w = qv_calloc((size_t)(qvk_words(n) ? qvk_words(n) : 1), 8);
  qv_status st = values && validity && w ? QV_OK : qv_error_nomem(c->err, "array_has");
  uint64_t *o = st == QV_OK ? (uint64_t *)qv_bytes_mutable(values) : NULL;
  uint64_t *v = st == QV_OK ? (uint64_t *)qv_bytes_mutable(validity) : NULL;
  bool has_null = false;
  for (int64_t j = 0; j < k && st == QV_OK; j++) {
    if (!qv_array_is_valid(items, j)) {
      has_null = true;
      continue;
    }
    qv_scalar item = QV_SCALAR_INIT;
    qv_array *eq = NULL;
    st = qv_scalar_from_array(items, j, &item, c->err);
    if (st == QV_OK) {
      qvk_datum id = QVK_DATUM_INIT;
      id.scalar = &item;
      st = qvk_compare(QV_OP_EQ, e->sem.float_order, needle, &id, n, &eq, c->err);
    }
    if (st == QV_OK) {
      qvk_datum ed = QVK_DATUM_INIT;
      ed.array = eq;
      qvk_bool_words(&ed, n, w);
      qvk_and_validity(&ed, n, w);
      for (int64_t x = 0; x < qvk_words(n); x++) o[x] |= w[x];
    }
    qv_array_release(eq);
    qv_scalar_reset(&item);
  }
  if (st == QV_OK) {
    /* a null needle: null, or under nulls_equal whether the list holds null */
    if (!qvk_validity_words(needle, n, v)) qvk_fill(v, n, true);
    if (e->sem.in_nulls_equal) {
      for (int64_t x = 0; x < qvk_words(n); x++) {
        uint64_t nulls = ~v[x];
        if (has_null) o[x] |= nulls;
        v[x] = ~(uint64_t)0;
      }
      int64_t tail = n & 63;
      if (tail) {
        o[qvk_words(n) - 1] &= ((uint64_t)1 << tail) - 1;
        v[qvk_words(n) - 1] &= ((uint64_t)1 << tail) - 1;
      }
    }
  }
  qv_free(w);
  return qvk_bool_out(st, n, values, validity, out, c->err);
}

static qv_status has_per_row(qvk_ctx *c, const qv_expr *e, qvk_datum *l, qvk_datum *needle, qvk_datum *out) {
  if (l->scalar) return const_list_has(c, e, l, needle, out);
  QV_RETURN_NOT_OK(qvk_datum_array(c, l));
  QV_RETURN_NOT_OK(qvk_datum_array(c, needle));
  int64_t n = c->n, lo, hi;
  const qv_array *la = l->array, *na = needle->array;
  used_range(la, n, &lo, &hi);
  int64_t m = hi - lo;
  uint32_t *map = qv_malloc((size_t)(m ? m : 1) * sizeof *map);
  qv_bytes *values = qvk_bytes(qvk_words(n) * 8, c->err), *validity = qvk_bytes(qvk_words(n) * 8, c->err);
  qv_array *slice = NULL, *spread = NULL, *eq = NULL;
  uint64_t *w = NULL;
  qv_status st = map && values && validity ? QV_OK : qv_error_nomem(c->err, "array_has");
  for (int64_t i = 0; i < n && st == QV_OK; i++) {
    int64_t b, en;
    range_of(la, i, &b, &en);
    for (int64_t k = b; k < en; k++) map[k - lo] = (uint32_t)i;
  }
  if (st == QV_OK && m > 0) st = qv_array_take(na, map, m, &spread, c->err);
  if (st == QV_OK && m > 0) st = qv_array_slice(la->children[0], lo, m, &slice, c->err);
  if (st == QV_OK && m > 0) {
    qvk_datum ch = QVK_DATUM_INIT, nd = QVK_DATUM_INIT;
    ch.array = slice;
    nd.array = spread;
    st = qvk_compare(QV_OP_EQ, e->sem.float_order, &ch, &nd, m, &eq, c->err);
  }
  if (st == QV_OK) {
    w = qv_calloc((size_t)(qvk_words(m) ? qvk_words(m) : 1), 8);
    if (!w) st = qv_error_nomem(c->err, "array_has");
  }
  if (st == QV_OK && m > 0) {
    qvk_datum ed = QVK_DATUM_INIT;
    ed.array = eq;
    qvk_bool_words(&ed, m, w);
    qvk_and_validity(&ed, m, w);
  }
  if (st == QV_OK) {
    uint64_t *o = (uint64_t *)qv_bytes_mutable(values), *v = (uint64_t *)qv_bytes_mutable(validity);
    const qv_array *ch = la->children[0];
    for (int64_t i = 0; i < n; i++) {
      if (!qv_array_is_valid(la, i)) continue;
      int64_t b, en;
      range_of(la, i, &b, &en);
      bool hit;
      if (qv_array_is_valid(na, i)) {
        hit = any_bit(w, b - lo, en - lo);
      } else {
        if (!e->sem.in_nulls_equal) continue;
        hit = false;
        for (int64_t k = b; k < en && !hit; k++) hit = !qv_array_is_valid(ch, k);
      }
      v[i >> 6] |= (uint64_t)1 << (i & 63);
      if (hit) o[i >> 6] |= (uint64_t)1 << (i & 63);
    }
  }
  qv_free(map);
  qv_free(w);
  qv_array_release(slice);
  qv_array_release(spread);
  qv_array_release(eq);
  return qvk_bool_out(st, n, values, validity, out, c->err);
}

qv_status qvk_op_array(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  const char *fn = qv_op_name(e->op);
  int want = e->op == QV_OP_ARRAY_LENGTH ? 1 : 2;
  if (e->n_args != want)
    return qv_error_set(c->err, QV_ERR_INVALID, "%s takes %d argument%s, got %d", fn, want, want == 1 ? "" : "s",
                        (int)e->n_args);
  qvk_datum *l = &args[0];
  const qv_datatype *lt = qvk_datum_type(l);
  int64_t n = c->n;
  if (e->op == QV_OP_ARRAY_HAS && e->sem.in_nulls_equal && is_list(lt) && args[1].scalar &&
      qvk_datum_all_null(&args[1]))
    return has_null_element(c, l, out);
  bool per_row_nulls = e->op == QV_OP_ARRAY_HAS && e->sem.in_nulls_equal && !args[1].scalar;
  if (lt->id == QV_TYPE_NULL || (want == 2 && !per_row_nulls && qvk_datum_all_null(&args[1]))) {
    qv_datatype rt = qv_datatype_simple(e->op == QV_OP_ARRAY_LENGTH ? QV_TYPE_INT64 : QV_TYPE_BOOL);
    return qvk_null_out(qvk_bound_type(e) ? &e->type : &rt, n, out, c->err);
  }
  if (!is_list(lt)) {
    char tb[64];
    return qv_error_set(c->err, QV_ERR_TYPE, "%s: expected a list, got %s", fn, qvk_type_name(lt, tb, sizeof tb));
  }
  if (l->scalar && e->op == QV_OP_ARRAY_HAS && !args[1].scalar) return const_list_has(c, e, l, &args[1], out);
  if (l->scalar) QV_RETURN_NOT_OK(qvk_datum_array(c, l));
  if (e->op == QV_OP_ARRAY_LENGTH) return array_length(c, e, l, out);
  const qv_array *la = l->array;
  qv_bytes *values = qvk_bytes(qvk_words(n) * 8, c->err);
  if (!values) return QV_ERR_NOMEM;
  uint64_t *o = (uint64_t *)qv_bytes_mutable(values);
  /* The child range the rows use (through the selection: scan them all). */
  int64_t lo = INT64_MAX, hi = 0;
  if (l->idx) {
    for (int64_t i = 0; i < n; i++) {
      int64_t b, en;
      range_of(la, l->idx[i], &b, &en);
      if (b < lo) lo = b;
      if (en > hi) hi = en;
    }
    if (lo > hi) lo = hi = 0;
  } else {
    used_range(la, n, &lo, &hi);
  }
  qv_status st = QV_OK;
  qvk_datum *needle = &args[1];
  if (e->op == QV_OP_ARRAY_HAS) {
    if (!needle->scalar) {
      qv_bytes_release(values);
      return has_per_row(c, e, l, needle, out);
    }
    uint64_t *w = NULL;
    st = child_eq(la, lo, hi, needle->scalar, e->sem.float_order, &w, c->err);
    for (int64_t i = 0; i < n && st == QV_OK; i++) {
      int64_t b, en;
      range_of(la, qvk_row(l, i), &b, &en);
      if (any_bit(w, b - lo, en - lo)) o[i >> 6] |= (uint64_t)1 << (i & 63);
    }
    qv_free(w);
  } else {
    qv_scalar *items = NULL;
    int64_t n_items = 0;
    st = literal_items(c, needle, &items, &n_items);
    bool all = e->op == QV_OP_ARRAY_HAS_ALL;
    if (st == QV_OK && !all) {
      const qv_scalar **ptrs = qv_malloc((size_t)(n_items ? n_items : 1) * sizeof *ptrs);
      qvk_set *set = NULL;
      uint64_t *w = qv_calloc((size_t)(qvk_words(hi - lo) ? qvk_words(hi - lo) : 1), 8);
      qv_array *slice = NULL;
      if (!ptrs || !w) st = qv_error_nomem(c->err, fn);
      for (int64_t k = 0; k < n_items && st == QV_OK; k++) ptrs[k] = &items[k];
      if (st == QV_OK) st = qvk_set_build(&la->children[0]->type, e->sem.float_order, ptrs, n_items, &set, c->err);
      if (st == QV_OK) st = qv_array_slice(la->children[0], lo, hi - lo, &slice, c->err);
      if (st == QV_OK) {
        qvk_datum ch = QVK_DATUM_INIT;
        ch.array = slice;
        st = qvk_set_probe(set, &ch, hi - lo, w, c->err);
        qvk_and_validity(&ch, hi - lo, w);
      }
      for (int64_t i = 0; i < n && st == QV_OK; i++) {
        int64_t b, en;
        range_of(la, qvk_row(l, i), &b, &en);
        if (any_bit(w, b - lo, en - lo)) o[i >> 6] |= (uint64_t)1 << (i & 63);
      }
      qv_array_release(slice);
      qvk_set_destroy(set);
      qv_free(w);
      qv_free((void *)ptrs);
    } else if (st == QV_OK) {
      qvk_fill(o, n, true);
      for (int64_t k = 0; k < n_items && st == QV_OK; k++) {
        if (items[k].is_null) continue;
        uint64_t *w = NULL;
        st = child_eq(la, lo, hi, &items[k], e->sem.float_order, &w, c->err);
        for (int64_t i = 0; i < n && st == QV_OK; i++) {
          if (!((o[i >> 6] >> (i & 63)) & 1)) continue;
          int64_t b, en;
          range_of(la, qvk_row(l, i), &b, &en);
          if (!any_bit(w, b - lo, en - lo)) o[i >> 6] &= ~((uint64_t)1 << (i & 63));
        }
        qv_free(w);
      }
    }
    for (int64_t k = 0; k < n_items; k++) qv_scalar_reset(&items[k]);
    qv_free(items);
  }
  if (st != QV_OK) {
    qv_bytes_release(values);
    return st;
  }
  return bool_out(c, out, values, l, e->op == QV_OP_ARRAY_HAS ? needle : NULL);
}

/* ---- list literals ------------------------------------------------------------- */

qv_status qvk_op_list_literal(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  const qv_datatype *item = NULL;
  if (qvk_bound_type(e) && e->type.id == QV_TYPE_LIST && e->type.n_children == 1) item = &e->type.children[0].type;
  for (int32_t k = 0; k < e->n_args && !item; k++) {
    if (!args[k].scalar) return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "list literal: items must be constants");
    if (args[k].scalar->type.id != QV_TYPE_NULL) item = &args[k].scalar->type;
  }
  qv_datatype null_t = qv_datatype_simple(QV_TYPE_NULL);
  if (!item) item = &null_t;
  int32_t n = e->n_args;
  qv_array **parts = qv_calloc((size_t)(n ? n : 1), sizeof *parts);
  if (!parts) return qv_error_nomem(c->err, NULL);
  qv_status st = QV_OK;
  qvk_ctx one = *c;
  one.n = 1;
  for (int32_t k = 0; k < n && st == QV_OK; k++) {
    if (!args[k].scalar) {
      st = qv_error_set(c->err, QV_ERR_UNSUPPORTED, "list literal: items must be constants");
      break;
    }
    st = qvk_coerce(&one, &args[k], item);
    if (st == QV_OK) st = qvk_broadcast(args[k].scalar, 1, &parts[k], c->err);
  }
  qv_array *items = NULL;
  if (st == QV_OK && n > 0) st = qv_array_concat(parts, n, &items, c->err);
  if (st == QV_OK && n == 0) st = qvk_null_result(item, 0, &items, c->err);
  for (int32_t k = 0; k < n; k++) qv_array_release(parts[k]);
  qv_free(parts);
  qv_scalar s = QV_SCALAR_INIT;
  qv_datatype it = QV_DATATYPE_INIT;
  if (st == QV_OK && qv_datatype_copy(item, &it) != QV_OK) st = qv_error_nomem(c->err, NULL);
  if (st == QV_OK) st = qv_datatype_list(&it, &s.type, c->err);
  qv_datatype_reset(&it);
  if (st != QV_OK) {
    qv_array_release(items);
    qv_scalar_reset(&s);
    return st;
  }
  s.is_null = false;
  s.list = items;
  qvk_datum_set_scalar(out, &s);
  return QV_OK;
}

/* ---- struct fields --------------------------------------------------------------- */

qv_status qvk_op_field(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 1 || !e->name)
    return qv_error_set(c->err, QV_ERR_INVALID, "field access needs one struct and a field name");
  qvk_datum *s = &args[0];
  const qv_datatype *t = qvk_datum_type(s);
  if (t->id != QV_TYPE_STRUCT) {
    char tb[64];
    return qv_error_set(c->err, QV_ERR_TYPE, "field `%s`: expected a struct, got %s", e->name,
                        qvk_type_name(t, tb, sizeof tb));
  }
  int32_t k = -1;
  for (int32_t i = 0; i < t->n_children && k < 0; i++)
    if (t->children[i].name && strcmp(t->children[i].name, e->name) == 0) k = i;
  if (k < 0) return qv_error_set(c->err, QV_ERR_NOT_FOUND, "struct has no field `%s`", e->name);
  if (s->scalar) return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "field `%s` of a struct literal", e->name);
  qv_array *a = s->array;
  if (k >= a->n_children) return qv_error_set(c->err, QV_ERR_CORRUPT, "struct array lacks child %d", (int)k);
  qv_array *r = NULL;
  /* The child at the struct's offset (struct children are not pre-sliced). */
  QV_RETURN_NOT_OK(qv_array_slice(a->children[k], a->offset, a->length, &r, c->err));
  if (a->null_count != 0 && a->buffers[0]) {
    /* add the struct's nulls: a new bitmap laid out at r's offset */
    qv_bytes *m = qvk_bytes(qv_bitmap_bytes(r->offset + r->length), c->err);
    if (!m) {
      qv_array_release(r);
      return QV_ERR_NOMEM;
    }
    uint8_t *bits = qv_bytes_mutable(m);
    for (int64_t i = 0; i < r->length; i++)
      if (qv_array_is_valid(a, i) && qv_array_is_valid(r, i)) qv_bit_set(bits, r->offset + i);
    qv_bytes_release(r->buffers[0]);
    r->buffers[0] = m;
    r->null_count = r->length - qv_bitmap_count(bits, r->offset, r->length);
  }
  const uint32_t *idx = s->idx;
  qvk_datum_set_array(out, r);
  out->idx = idx; /* still read through the selection, like the struct */
  return QV_OK;
}
