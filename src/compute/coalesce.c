/* coalesce(a, b, ...): per row the first argument that is not null.
 * Arguments are cast to the node's type (or the first non-null argument's
 * type).  One pass per argument over validity words decides each row's
 * source; qvk_pick (pick.c) copies the values. */
#include "compute/compute_int.h"

qv_status qvk_coalesce(qvk_ctx *c, qvk_datum *args, int32_t na, const qv_datatype *rt, qvk_datum *out) {
  if (na < 1) return qv_error_set(c->err, QV_ERR_INVALID, "coalesce needs at least one argument");
  if (na > QVK_PICK_MAX)
    return qv_error_set(c->err, QV_ERR_UNSUPPORTED, "coalesce of more than %d arguments", QVK_PICK_MAX);
  for (int32_t k = 0; k < na && !rt; k++)
    if (qvk_datum_type(&args[k])->id != QV_TYPE_NULL) rt = qvk_datum_type(&args[k]);
  qv_datatype nt = qv_datatype_simple(QV_TYPE_NULL), rtype = QV_DATATYPE_INIT;
  if (qv_datatype_copy(rt ? rt : &nt, &rtype) != QV_OK) return qv_error_nomem(c->err, NULL);
  int64_t n = c->n, nw = qvk_words(n);
  uint8_t *src = qv_malloc((size_t)(n ? n : 1));
  uint64_t *todo = qv_malloc((size_t)(nw ? nw : 1) * 16);
  qv_status st = QV_OK;
  qv_array *r = NULL;
  if (!src || !todo) {
    st = qv_error_nomem(c->err, "coalesce");
  } else {
    uint64_t *vk = todo + (nw ? nw : 1);
    if (n > 0) memset(src, QVK_PICK_NONE, (size_t)n);
    qvk_fill(todo, n, true);
    for (int32_t k = 0; k < na; k++) {
      if (!qvk_validity_words(&args[k], n, vk)) qvk_fill(vk, n, true);
      for (int64_t wi = 0; wi < nw; wi++) {
        uint64_t take = todo[wi] & vk[wi];
        todo[wi] &= ~take;
        while (take) {
          src[(wi << 6) + __builtin_ctzll(take)] = (uint8_t)k;
          take &= take - 1;
        }
      }
    }
    st = qvk_pick(c, args, na, src, &rtype, &r);
  }
  qv_free(src);
  qv_free(todo);
  qv_datatype_reset(&rtype);
  if (st == QV_OK) qvk_datum_set_array(out, r);
  return st;
}

qv_status qvk_op_coalesce(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  return qvk_coalesce(c, args, e->n_args, qvk_bound_type(e), out);
}
