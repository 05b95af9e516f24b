/* Decimal arithmetic in 128-bit integers.
 * An integer operand counts as decimal(digits of its type, 0).
 * + - * are exact: the result has scale max(s1, s2) for + and -, s1 + s2
 * for *.  / gives the quotient at the result scale truncated toward zero
 * (Arrow: the dividend is scaled up by 10^(s + s2 - s1) and divided).
 * % is exact at scale max(s1, s2), with the sign rule of sem.int_div.
 * Result type: the node's bound decimal type when it has one (an exact
 * result is rescaled to it: a larger scale exactly, a smaller one rounded
 * half away from zero); otherwise Arrow's / DataFusion's rules:
 *   + -  decimal(max(p1 - s1, p2 - s2) + max(s1, s2) + 1, max(s1, s2))
 *   *    decimal(p1 + p2 + 1, s1 + s2)   (s1 + s2 <= 38)
 *   /    decimal(p1 - s1 + s2 + s, s) with s = s1 + 4
 *   %    decimal(min(p1 - s1, p2 - s2) + max(s1, s2), max(s1, s2))
 * precision capped at 38.  A result with more digits than the precision
 * (or an int128 overflow on the way, including a dividend that does not
 * fit int128 once scaled up) is an overflow: QV_ERR_OVERFLOW under
 * overflow = WRAP or ERROR (decimals never wrap), a null under NULL.
 * Division by zero follows the integer rule: QV_ERR_INVALID under ERROR,
 * else null. */
#include <stdio.h>

#include "compute/compute_int.h"

static int int_digits(qv_type_id id) {
  switch (id) {
    case QV_TYPE_INT8:
    case QV_TYPE_UINT8: return 3;
    case QV_TYPE_INT16:
    case QV_TYPE_UINT16: return 5;
    case QV_TYPE_INT32:
    case QV_TYPE_UINT32: return 10;
    case QV_TYPE_UINT64: return 20;
    default: return 19;
  }
}

/* The decimal type an operand counts as. */
static qv_status as_decimal(const qv_datatype *t, qv_datatype *out, qv_error *err) {
  if (t->id == QV_TYPE_DECIMAL128) return qv_datatype_copy(t, out) == QV_OK ? QV_OK : qv_error_nomem(err, NULL);
  if (qv_type_is_integer(t->id)) return qv_datatype_decimal(int_digits(t->id), 0, out, err);
  char tb[64];
  return qv_error_set(err, QV_ERR_TYPE, "decimal arithmetic: cannot mix decimal with %s (cast it first)",
                      qvk_type_name(t, tb, sizeof tb));
}

static inline bool rescale1(qvk_i128 *v, int d) {
  if (d == 0) return true;
  if (d > 0) return d <= 38 && !__builtin_mul_overflow(*v, qvk_pow10_i128[d], v);
  if (d < -38) {
    *v = 0;
    return true;
  }
  qvk_i128 f = qvk_pow10_i128[-d], q = *v / f, r = *v % f;
  if (r >= f - r || -r >= f + r) q += *v < 0 ? -1 : 1;
  *v = q;
  return true;
}

qv_status qvk_decimal_arith(qvk_ctx *c, const qv_expr *e, qvk_datum *args, qvk_datum *out) {
  qv_op op = e->op;
  qvk_datum *a = &args[0], *b = &args[1];
  int64_t n = c->n;
  qv_datatype da = QV_DATATYPE_INIT, db = QV_DATATYPE_INIT, rt = QV_DATATYPE_INIT;
  qv_array *r = NULL;
  qv_status st = QV_OK;
  bool null_a = qvk_datum_all_null(a), null_b = qvk_datum_all_null(b);
  if (!null_a) st = as_decimal(qvk_datum_type(a), &da, c->err);
  if (st == QV_OK && !null_b) st = as_decimal(qvk_datum_type(b), &db, c->err);
  if (st != QV_OK) goto cleanup;
  const qv_datatype *bound = qvk_bound_type(e);
  int natural = 0, smax = da.scale > db.scale ? da.scale : db.scale;
  if (!null_a && !null_b) natural = op == QV_OP_MUL ? da.scale + db.scale : smax;
  if (bound && bound->id == QV_TYPE_DECIMAL128) {
    st = qv_datatype_copy(bound, &rt) == QV_OK ? QV_OK : qv_error_nomem(c->err, NULL);
  } else if (bound && bound->id != QV_TYPE_DECIMAL128 && bound->id != QV_TYPE_NULL) {
    char tb[64];
    st = qv_error_set(c->err, QV_ERR_TYPE, "decimal %s: the node's type is %s, not a decimal", qv_op_name(op),
                      qvk_type_name(bound, tb, sizeof tb));
  } else if (null_a || null_b) {
    st = qv_datatype_copy(null_a ? (null_b ? &e->type : &db) : &da, &rt) == QV_OK ? QV_OK : QV_ERR_NOMEM;
  } else {
    int p, sc = natural, ia = da.precision - da.scale, ib = db.precision - db.scale;
    switch (op) {
      case QV_OP_MUL: p = da.precision + db.precision + 1; break;
      case QV_OP_DIV:
        sc = da.scale + 4 > 38 ? 38 : da.scale + 4;
        p = da.precision - da.scale + db.scale + sc;
        break;
      case QV_OP_MOD: p = (ia < ib ? ia : ib) + sc; break;
      default: p = (ia > ib ? ia : ib) + sc + 1; break;
    }
    if (p < 1) p = 1;
    if (sc > 38) st = qv_error_set(c->err, QV_ERR_OVERFLOW, "decimal *: result scale %d exceeds 38", sc);
    else st = qv_datatype_decimal(p > 38 ? 38 : p, sc > (p > 38 ? 38 : p) ? (p > 38 ? 38 : p) : sc, &rt, c->err);
  }
  if (st != QV_OK) goto cleanup;
  if (null_a || null_b) {
    st = qvk_null_result(&rt, n, &r, c->err);
    goto done;
  }
  st = qvk_datum_dense(c, a);
  if (st == QV_OK) st = qvk_datum_dense(c, b);
  if (st == QV_OK && a->scalar && b->scalar) st = qvk_datum_array(c, a);
  if (st == QV_OK && qvk_datum_type(a)->id != QV_TYPE_DECIMAL128 && !a->scalar) st = qvk_coerce(c, a, &da);
  if (st == QV_OK && qvk_datum_type(b)->id != QV_TYPE_DECIMAL128 && !b->scalar) st = qvk_coerce(c, b, &db);
  if (st == QV_OK) st = qvk_fixed_result(&rt, n, true, &r, c->err);
  if (st != QV_OK) goto cleanup;
  {
    int sa = da.scale, sb = db.scale, rs = rt.scale;
    qvk_i128 lim = qvk_pow10_i128[rt.precision < 1 || rt.precision > 38 ? 38 : rt.precision];
    qvk_i128 ka = a->scalar ? qvk_scalar_i128(a->scalar) : 0, kb = b->scalar ? qvk_scalar_i128(b->scalar) : 0;
    const uint8_t *pa = a->scalar ? NULL : qv_array_values(a->array);
    const uint8_t *pb = b->scalar ? NULL : qv_array_values(b->array);
    uint8_t *dst = qv_bytes_mutable(r->buffers[1]);
    uint64_t *valid = (uint64_t *)qv_bytes_mutable(r->buffers[0]);
    if (!qvk_validity_words(a, n, valid)) qvk_fill(valid, n, true);
    qvk_and_validity(b, n, valid);
    /* decimal(38, 0) is how quiver holds Polars' Int128 (a signed integer
     * with a UInt64): + - * then wrap in 128 bits as Polars' do, beyond the
     * 38 digits a decimal has (u64 max * i64 min is -(2^127 - 2^63)) */
    bool int128 = qvk_polars_node(e) && rt.precision == 38 && rt.scale == 0 && sa == 0 && sb == 0 &&
                  (op == QV_OP_ADD || op == QV_OP_SUB || op == QV_OP_MUL);
    for (int64_t i = 0; i < n && int128; i++) {
      qvk_u128 ux = (qvk_u128)(pa ? qvk_dec_get(pa + 16 * i) : ka), uy = (qvk_u128)(pb ? qvk_dec_get(pb + 16 * i) : kb);
      qvk_dec_put(dst + 16 * i, (qvk_i128)(op == QV_OP_MUL ? ux * uy : op == QV_OP_ADD ? ux + uy : ux - uy));
    }
    for (int64_t i = 0; i < n && !int128; i++) {
      qvk_i128 x = pa ? qvk_dec_get(pa + 16 * i) : ka, y = pb ? qvk_dec_get(pb + 16 * i) : kb, v = 0;
      bool ok, zero = false;
      int vs = natural; /* the scale v is computed at */
      switch (op) {
        case QV_OP_MUL: ok = !__builtin_mul_overflow(x, y, &v); break;
        case QV_OP_DIV: {
          int k = rs - sa + sb;
          vs = rs;
          zero = y == 0;
          if (zero) {
            ok = false;
          } else if (k >= 0) {
            ok = rescale1(&x, k);
            if (ok) v = x / y;
          } else { /* divisor scaled up instead; beyond int128 the quotient is 0 */
            ok = true;
            v = rescale1(&y, -k) ? x / y : 0;
          }
          break;
        }
        case QV_OP_MOD:
          vs = smax;
          ok = rescale1(&x, smax - sa) && rescale1(&y, smax - sb);
          zero = ok && y == 0;
          if (ok && !zero) {
            v = x % y;
            if (e->sem.int_div == QV_DIV_FLOOR && v != 0 && ((v < 0) != (y < 0))) v += y;
          }
          ok = ok && !zero;
          break;
        default:
          ok = rescale1(&x, natural - sa) && rescale1(&y, natural - sb);
          ok = ok && !(op == QV_OP_ADD ? __builtin_add_overflow(x, y, &v) : __builtin_sub_overflow(x, y, &v));
          break;
      }
      ok = ok && rescale1(&v, rs - vs) && v < lim && v > -lim;
      if (ok) {
        qvk_dec_put(dst + 16 * i, v);
        continue;
      }
      if (!((valid[i >> 6] >> (i & 63)) & 1)) continue;
      if (zero && e->sem.overflow == QV_OVERFLOW_ERROR) {
        st = qv_error_set(c->err, QV_ERR_INVALID, "division by zero (row %lld)", (long long)i);
        goto cleanup;
      }
      if (zero || e->sem.overflow == QV_OVERFLOW_NULL) {
        valid[i >> 6] &= ~((uint64_t)1 << (i & 63));
        continue;
      }
      char xs[64], ys[64], ts[64];
      if (a->scalar) qv_scalar_format(a->scalar, xs, sizeof xs);
      else qv_array_format_value(a->array, i, xs, sizeof xs);
      if (b->scalar) qv_scalar_format(b->scalar, ys, sizeof ys);
      else qv_array_format_value(b->array, i, ys, sizeof ys);
      st = qv_error_set(c->err, QV_ERR_OVERFLOW, "decimal overflow: %s %s %s does not fit %s (row %lld)", xs,
                        qv_op_name(op), ys, qvk_type_name(&rt, ts, sizeof ts), (long long)i);
      goto cleanup;
    }
    qvk_finish_validity(r);
  }
done:
  if (st == QV_OK) {
    qvk_datum_set_array(out, r);
    r = NULL;
  }
cleanup:
  qv_array_release(r);
  qv_datatype_reset(&da);
  qv_datatype_reset(&db);
  qv_datatype_reset(&rt);
  return st;
}
