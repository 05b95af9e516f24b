/* Polars' list.get(index, null_on_oob): element `index` of each list, a
 * negative index counting from the end (-1 is the last).  A null list or
 * a null index gives null; an index outside the list gives null with
 * null_on_oob, and otherwise fails the evaluation as Polars does ("index
 * out of bounds").  The elements are gathered from the child array in one
 * take (child positions computed first), never element by element. */
#include "compute/compute_int.h"

static inline void list_range(const qv_array *l, int64_t r, int64_t *b, int64_t *e) {
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

qv_status qvk_op_polars_list(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 2) return qv_error_set(c->err, QV_ERR_INVALID, "list.get takes 2 arguments, got %d", (int)e->n_args);
  qvk_datum *l = &args[0], *ix = &args[1];
  const qv_datatype *lt = qvk_datum_type(l), *it = qvk_datum_type(ix);
  bool oob_null = (e->flags & QV_EXPR_F_NULL_ON_OOB) != 0;
  int64_t n = c->n;
  if (lt->id != QV_TYPE_LIST && lt->id != QV_TYPE_FIXED_SIZE_LIST && lt->id != QV_TYPE_NULL) {
    char tb[64];
    return qv_error_set(c->err, QV_ERR_TYPE, "list.get: expected a list, got %s", qvk_type_name(lt, tb, sizeof tb));
  }
  if (it->id != QV_TYPE_INT64 && it->id != QV_TYPE_NULL)
    return qv_error_set(c->err, QV_ERR_TYPE, "list.get: the index must be int64 (bind the expression first)");
  const qv_datatype *rt = qvk_bound_type(e);
  qv_datatype nt = qv_datatype_simple(QV_TYPE_NULL);
  if (!rt) rt = lt->id == QV_TYPE_NULL ? &nt : &lt->children[0].type;
  qv_array *r = NULL;
  if (qvk_datum_all_null(l) || qvk_datum_all_null(ix)) return qvk_null_out(rt, n, out, c->err);
  /* A constant list is one range [0, length) of its items on every row. */
  const qv_array *la = l->scalar ? NULL : l->array;
  const qv_array *child = la ? la->children[0] : l->scalar->list;
  uint32_t *pos = qv_malloc((size_t)(n ? n : 1) * sizeof *pos);
  qv_bytes *validity = qvk_bytes(qvk_words(n) * 8, c->err);
  if (!pos || !validity) {
    qv_free(pos);
    qv_bytes_release(validity);
    return validity ? qv_error_nomem(c->err, "list.get") : QV_ERR_NOMEM;
  }
  uint64_t *vw = (uint64_t *)qv_bytes_mutable(validity);
  const int64_t *iv = ix->scalar ? NULL : (const int64_t *)qv_array_values(ix->array);
  qv_status st = QV_OK;
  int64_t any = 0;
  for (int64_t i = 0; i < n; i++) {
    pos[i] = 0;
    int64_t row = la ? qvk_row(l, i) : 0;
    if (la && !qv_array_is_valid(la, row)) continue;
    int64_t k;
    if (ix->scalar) {
      k = ix->scalar->v.i;
    } else {
      int64_t ir = qvk_row(ix, i);
      if (!qv_array_is_valid(ix->array, ir)) continue;
      k = iv[ir];
    }
    int64_t b = 0, en = child ? child->length : 0;
    if (la) list_range(la, row, &b, &en);
    int64_t len = en - b, at = k < 0 ? len + k : k;
    if (at < 0 || at >= len) {
      if (oob_null) continue;
      st = qv_error_set(c->err, QV_ERR_INVALID,
                        "list.get: index %lld is out of bounds for a list of %lld element%s (row %lld); "
                        "use null_on_oob=True for null",
                        (long long)k, (long long)len, len == 1 ? "" : "s", (long long)i);
      break;
    }
    pos[i] = (uint32_t)(b + at);
    vw[i >> 6] |= (uint64_t)1 << (i & 63);
    any++;
  }
  if (st == QV_OK && any == 0) {
    st = qvk_null_result(rt, n, &r, c->err);
  } else if (st == QV_OK) {
    st = qv_array_take(child, pos, n, &r, c->err);
    if (st == QV_OK) {
      /* the element's own validity and the row's: one fresh bitmap */
      qv_bytes *m = qvk_bytes(qv_bitmap_bytes(r->offset + n), c->err);
      if (!m) {
        st = QV_ERR_NOMEM;
      } else {
        uint8_t *bits = qv_bytes_mutable(m);
        int64_t valid = 0;
        for (int64_t i = 0; i < n; i++)
          if (((vw[i >> 6] >> (i & 63)) & 1) && qv_array_is_valid(r, i)) {
            qv_bit_set(bits, r->offset + i);
            valid++;
          }
        qv_bytes_release(r->buffers[0]);
        r->buffers[0] = m;
        r->null_count = n - valid;
      }
    }
  }
  qv_free(pos);
  qv_bytes_release(validity);
  return qvk_array_out(st, r, out);
}
