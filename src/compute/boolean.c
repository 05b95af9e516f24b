/* Kleene three-valued logic (AND, OR, XOR, NOT) and the truth tests
 * IS [NOT] NULL / TRUE / FALSE, a 64-bit word at a time.
 *
 * With T = value & valid and F = ~value & valid for each side:
 *   AND  valid = Fa | Fb | (Ta & Tb)   value = Ta & Tb
 *   OR   valid = Ta | Tb | (Fa & Fb)   value = Ta | Tb
 *   XOR  valid = Va & Vb               value = (a ^ b) & valid
 *   NOT  valid = Va                    value = Fa
 * so FALSE AND NULL is FALSE and TRUE OR NULL is TRUE.  Inputs need not be
 * canonical (value bits under nulls may be anything). */
#include "compute/compute_int.h"

static qv_status check_bool(const qv_expr *e, const qvk_datum *d, qv_error *err) {
  qv_type_id id = qvk_datum_type(d)->id;
  if (id == QV_TYPE_BOOL || id == QV_TYPE_NULL) return QV_OK;
  char tb[64];
  return qv_error_set(err, QV_ERR_TYPE, "%s: expected a boolean, got %s", qv_op_name(e->op),
                      qvk_type_name(qvk_datum_type(d), tb, sizeof tb));
}

/* Value and validity words of a bool datum. */
static void load(const qvk_datum *d, int64_t n, uint64_t *v, uint64_t *m) {
  qvk_bool_words(d, n, v);
  if (!qvk_validity_words(d, n, m)) qvk_fill(m, n, true);
}

qv_status qvk_kleene(qv_op op, const qvk_datum *a, const qvk_datum *b, int64_t n, qv_array **out, qv_error *err) {
  int64_t nw = qvk_words(n), nb = nw * 8;
  qv_bytes *values = qvk_bytes(nb, err);
  qv_bytes *validity = values ? qvk_bytes(nb, err) : NULL;
  uint64_t *tmp = validity ? qv_malloc((size_t)(2 * (nw ? nw : 1)) * 8) : NULL;
  if (!tmp) {
    qv_bytes_release(values);
    qv_bytes_release(validity);
    return validity ? qv_error_nomem(err, qv_op_name(op)) : QV_ERR_NOMEM;
  }
  uint64_t *va = (uint64_t *)qv_bytes_mutable(values), *ma = (uint64_t *)qv_bytes_mutable(validity);
  uint64_t *vb = tmp, *mb = tmp + nw;
  load(a, n, va, ma);
  load(b, n, vb, mb);
  for (int64_t w = 0; w < nw; w++) {
    uint64_t ta = va[w] & ma[w], fa = ~va[w] & ma[w];
    uint64_t tb = vb[w] & mb[w], fb = ~vb[w] & mb[w];
    uint64_t val, ok;
    switch (op) {
      case QV_OP_AND:
        ok = fa | fb | (ta & tb);
        val = ta & tb;
        break;
      case QV_OP_OR:
        ok = ta | tb | (fa & fb);
        val = ta | tb;
        break;
      default:
        ok = ma[w] & mb[w];
        val = (va[w] ^ vb[w]) & ok;
        break;
    }
    va[w] = val;
    ma[w] = ok;
  }
  if (n & 63) {
    uint64_t tail = ((uint64_t)1 << (n & 63)) - 1;
    va[nw - 1] &= tail;
    ma[nw - 1] &= tail;
  }
  qv_free(tmp);
  return qvk_bool_result(n, values, validity, out, err);
}

qv_status qvk_op_logic(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  int want = e->op == QV_OP_NOT ? 1 : 2;
  if (e->n_args != want)
    return qv_error_set(c->err, QV_ERR_INVALID, "%s takes %d argument%s, got %d", qv_op_name(e->op), want,
                        want == 1 ? "" : "s", (int)e->n_args);
  for (int k = 0; k < want; k++) QV_RETURN_NOT_OK(check_bool(e, &args[k], c->err));
  qv_array *r = NULL;
  if (e->op != QV_OP_NOT) {
    QV_RETURN_NOT_OK(qvk_kleene(e->op, &args[0], &args[1], c->n, &r, c->err));
    qvk_datum_set_array(out, r);
    return QV_OK;
  }
  int64_t n = c->n, nw = qvk_words(n), nb = nw * 8;
  qv_bytes *values = qvk_bytes(nb, c->err);
  qv_bytes *validity = values ? qvk_bytes(nb, c->err) : NULL;
  if (!validity) {
    qv_bytes_release(values);
    return QV_ERR_NOMEM;
  }
  uint64_t *v = (uint64_t *)qv_bytes_mutable(values), *m = (uint64_t *)qv_bytes_mutable(validity);
  load(&args[0], n, v, m);
  for (int64_t w = 0; w < nw; w++) v[w] = ~v[w] & m[w];
  if (n & 63) v[nw - 1] &= ((uint64_t)1 << (n & 63)) - 1;
  return qvk_bool_out(QV_OK, n, values, validity, out, c->err);
}

/* IS [NOT] NULL on any type; IS [NOT] TRUE / FALSE on booleans.  Never null. */
qv_status qvk_op_truth(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  if (e->n_args != 1)
    return qv_error_set(c->err, QV_ERR_INVALID, "%s takes 1 argument, got %d", qv_op_name(e->op), (int)e->n_args);
  bool null_test = e->op == QV_OP_IS_NULL || e->op == QV_OP_IS_NOT_NULL;
  if (!null_test) QV_RETURN_NOT_OK(check_bool(e, &args[0], c->err));
  int64_t n = c->n, nw = qvk_words(n), nb = nw * 8;
  qv_bytes *values = qvk_bytes(nb, c->err);
  uint64_t *m = values ? qv_malloc((size_t)(nw ? nw : 1) * 8) : NULL;
  if (!m) {
    qv_bytes_release(values);
    return values ? qv_error_nomem(c->err, qv_op_name(e->op)) : QV_ERR_NOMEM;
  }
  uint64_t *v = (uint64_t *)qv_bytes_mutable(values);
  if (null_test) {
    if (!qvk_validity_words(&args[0], n, m)) qvk_fill(m, n, true);
  } else {
    load(&args[0], n, v, m);
  }
  for (int64_t w = 0; w < nw; w++) {
    uint64_t t = v[w] & m[w], f = ~v[w] & m[w], r;
    switch (e->op) {
      case QV_OP_IS_NULL: r = ~m[w]; break;
      case QV_OP_IS_NOT_NULL: r = m[w]; break;
      case QV_OP_IS_TRUE: r = t; break;
      case QV_OP_IS_NOT_TRUE: r = ~t; break;
      case QV_OP_IS_FALSE: r = f; break;
      default: r = ~f; break; /* IS NOT FALSE */
    }
    v[w] = r;
  }
  if (n & 63) v[nw - 1] &= ((uint64_t)1 << (n & 63)) - 1;
  qv_free(m);
  return qvk_bool_out(QV_OK, n, values, NULL, out, c->err);
}
