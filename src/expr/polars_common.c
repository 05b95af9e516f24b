/* IR builders shared by the Polars text and JSON front ends (see
 * polars_int.h for why they are shared). */
#include <math.h>
#include <string.h>

#include "expr/polars_int.h"

qv_expr *qve_pl_mark(qv_expr *e) {
  if (!e) return NULL;
  e->sem.float_order = QV_FLOAT_POLARS;
  e->sem.int_div = QV_DIV_FLOOR;
  e->sem.overflow = QV_OVERFLOW_WRAP;
  e->sem.in_list_nulls_ignored = true;
  if (e->kind == QV_EXPR_CALL && e->op == QV_OP_DIV) e->flags |= QV_EXPR_F_TRUE_DIV;
  return e;
}

qv_expr *qve_pl_call(qv_op op, qv_expr **args, int32_t n) { return qve_pl_mark(qv_expr_call(op, args, n)); }
qv_expr *qve_pl_call1(qv_op op, qv_expr *a) { return qve_pl_call(op, &a, 1); }
qv_expr *qve_pl_call2(qv_op op, qv_expr *a, qv_expr *b) {
  qv_expr *args[2] = {a, b};
  return qve_pl_call(op, args, 2);
}

bool qve_pl_set_name(qv_expr *e, const char *name, size_t len) {
  char *s = qv_strndup(name, len);
  if (!s) return false;
  qv_free(e->name);
  e->name = s;
  return true;
}

qv_expr *qve_pl_unknown(const char *name, qv_expr **args, int32_t n) {
  qv_expr *e = qve_pl_call(QV_OP_UNKNOWN, args, n);
  if (e && !qve_pl_set_name(e, name, strlen(name))) {
    qv_expr_destroy(e);
    return NULL;
  }
  return e;
}

qv_expr *qve_pl_flags(qv_expr *e, uint32_t flags, int64_t param) {
  if (!e) return NULL;
  e->flags |= flags;
  e->param = param;
  return e;
}

qv_expr *qve_pl_literal(qv_scalar *v, bool dynamic) {
  qv_expr *e = qve_pl_mark(qv_expr_literal(v));
  if (e && dynamic) e->flags |= QV_EXPR_F_DYNAMIC;
  return e;
}

qv_expr *qve_pl_dyn_int_text(const char *s, size_t n) {
  bool neg = n > 0 && s[0] == '-';
  size_t i = neg ? 1 : 0;
  qve_u128 mag = 0;
  bool big = false;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return qve_pl_unknown("Literal", NULL, 0);
    if (mag > (((qve_u128)1 << 127) / 10)) big = true;
    mag = mag * 10 + (qve_u128)(s[i] - '0');
  }
  qv_scalar v = QV_SCALAR_INIT;
  if (!big && !neg && mag <= (qve_u128)INT64_MAX) {
    v = qv_scalar_int(QV_TYPE_INT64, (int64_t)mag);
  } else if (!big && neg && mag <= (qve_u128)INT64_MAX + 1) {
    v = qv_scalar_int(QV_TYPE_INT64, (int64_t)(0 - (uint64_t)mag));
  } else if (!big && !neg && mag <= (qve_u128)UINT64_MAX) {
    v.type = qv_datatype_simple(QV_TYPE_UINT64);
    v.is_null = false;
    v.v.u = (uint64_t)mag;
  } else {
    return qve_pl_unknown("Literal", NULL, 0);
  }
  return qve_pl_literal(&v, true);
}

qv_expr *qve_pl_dyn_float(double f) {
  qv_scalar v = qv_scalar_double(f);
  return qve_pl_literal(&v, true);
}

qv_expr *qve_pl_string(const char *s, size_t n) {
  qv_scalar v = QV_SCALAR_INIT;
  if (qv_scalar_string(s, (int64_t)n, &v) != QV_OK) return NULL;
  return qve_pl_literal(&v, false);
}

qv_expr *qve_pl_null(qv_type_id id) {
  qv_scalar v = QV_SCALAR_INIT;
  v.type = qv_datatype_simple(id);
  v.is_null = true;
  return qve_pl_literal(&v, false);
}

static const struct {
  const char *name;
  qv_type_id id;
} simple_dtypes[] = {
    {"Boolean", QV_TYPE_BOOL},  {"Int8", QV_TYPE_INT8},       {"Int16", QV_TYPE_INT16},     {"Int32", QV_TYPE_INT32},
    {"Int64", QV_TYPE_INT64},   {"UInt8", QV_TYPE_UINT8},     {"UInt16", QV_TYPE_UINT16},   {"UInt32", QV_TYPE_UINT32},
    {"UInt64", QV_TYPE_UINT64}, {"Float32", QV_TYPE_FLOAT32}, {"Float64", QV_TYPE_FLOAT64}, {"String", QV_TYPE_STRING},
    {"Utf8", QV_TYPE_STRING},   {"Binary", QV_TYPE_BINARY},   {"Date", QV_TYPE_DATE32},     {"Null", QV_TYPE_NULL},
};

bool qve_pl_simple_dtype(const char *name, size_t n, qv_datatype *out) {
  for (size_t k = 0; k < sizeof simple_dtypes / sizeof simple_dtypes[0]; k++)
    if (strlen(simple_dtypes[k].name) == n && memcmp(simple_dtypes[k].name, name, n) == 0) {
      *out = qv_datatype_simple(simple_dtypes[k].id);
      return true;
    }
  if (n == 4 && memcmp(name, "Time", 4) == 0) {
    *out = qv_datatype_time64(QV_UNIT_NANO); /* Polars Time is nanoseconds since midnight */
    return true;
  }
  return false;
}

bool qve_pl_unit_long(const char *s, qv_time_unit *out) {
  if (strcmp(s, "Nanoseconds") == 0) *out = QV_UNIT_NANO;
  else if (strcmp(s, "Microseconds") == 0) *out = QV_UNIT_MICRO;
  else if (strcmp(s, "Milliseconds") == 0) *out = QV_UNIT_MILLI;
  else return false;
  return true;
}

bool qve_pl_unit_short(const char *s, size_t n, qv_time_unit *out) {
  if (n == 2 && memcmp(s, "ns", 2) == 0) *out = QV_UNIT_NANO;
  else if (n == 2 && memcmp(s, "us", 2) == 0) *out = QV_UNIT_MICRO;
  else if (n == 2 && memcmp(s, "ms", 2) == 0) *out = QV_UNIT_MILLI;
  else return false;
  return true;
}

const char *qve_pl_unit_name(qv_time_unit u) {
  static const char *const names[] = {"s", "ms", "us", "ns"};
  return names[u & 3];
}

static bool is_dyn_float(const qv_expr *e, double want) {
  return e->kind == QV_EXPR_LITERAL && (e->flags & QV_EXPR_F_DYNAMIC) && !e->value.is_null &&
         e->value.type.id == QV_TYPE_FLOAT64 && e->value.v.f == want;
}

qv_expr *qve_pl_log(qv_expr *x, qv_expr *base) {
  if (!x || !base) {
    qv_expr_destroy(x);
    qv_expr_destroy(base);
    return NULL;
  }
  /* Polars spells log10() and log() as Log with these float bases. */
  if (is_dyn_float(base, 10.0) || is_dyn_float(base, 2.718281828459045)) {
    qv_op op = base->value.v.f == 10.0 ? QV_OP_LOG10 : QV_OP_LN;
    qv_expr_destroy(base);
    return qve_pl_call1(op, x);
  }
  return qve_pl_call2(QV_OP_LOG, x, base);
}

qv_expr *qve_pl_when(qv_expr *pred, qv_expr *then, qv_expr *otherwise) {
  if (!pred || !then || !otherwise) {
    qv_expr_destroy(pred);
    qv_expr_destroy(then);
    qv_expr_destroy(otherwise);
    return NULL;
  }
  if (otherwise->kind == QV_EXPR_CALL && otherwise->op == QV_OP_WHEN) {
    /* Prepend (pred, then) to the inner WHEN's arguments. */
    qv_expr **args = qv_calloc((size_t)otherwise->n_args + 2, sizeof *args);
    if (!args) {
      qv_expr_destroy(pred);
      qv_expr_destroy(then);
      qv_expr_destroy(otherwise);
      return NULL;
    }
    args[0] = pred;
    args[1] = then;
    memcpy(args + 2, otherwise->args, (size_t)otherwise->n_args * sizeof *args);
    qv_free(otherwise->args);
    otherwise->args = args;
    otherwise->n_args += 2;
    return otherwise;
  }
  qv_expr *args[3] = {pred, then, otherwise};
  return qve_pl_call(QV_OP_WHEN, args, 3);
}

static bool flat_literal(const qv_expr *e) {
  return e->kind == QV_EXPR_LITERAL && e->value.type.id != QV_TYPE_LIST && e->value.type.id != QV_TYPE_STRUCT &&
         e->value.type.id != QV_TYPE_FIXED_SIZE_LIST;
}

qv_expr *qve_pl_is_in(qv_expr *x, qv_expr *other, bool nulls_equal) {
  if (!x || !other) {
    qv_expr_destroy(x);
    qv_expr_destroy(other);
    return NULL;
  }
  bool list = other->kind == QV_EXPR_CALL && other->op == QV_OP_LIST;
  for (int32_t i = 0; list && i < other->n_args; i++)
    if (!flat_literal(other->args[i])) list = false;
  qv_expr *e;
  if (!list) {
    e = qve_pl_call2(QV_OP_UNKNOWN, x, other);
    if (e && !qve_pl_set_name(e, "is_in", 5)) {
      qv_expr_destroy(e);
      return NULL;
    }
  } else {
    qv_expr **args = qv_calloc((size_t)other->n_args + 1, sizeof *args);
    if (!args) {
      qv_expr_destroy(x);
      qv_expr_destroy(other);
      return NULL;
    }
    args[0] = x;
    if (other->n_args) memcpy(args + 1, other->args, (size_t)other->n_args * sizeof *args);
    int32_t n = other->n_args + 1;
    other->n_args = 0; /* the items moved */
    qv_expr_destroy(other);
    e = qve_pl_call(QV_OP_IN, args, n);
    qv_free(args);
  }
  if (e) e->sem.in_nulls_equal = nulls_equal;
  return e;
}

qv_expr *qve_pl_horizontal(bool all, qv_expr **args, int32_t n) {
  if (n == 1) return qve_pl_call1(all ? QV_OP_ALL_HORIZONTAL : QV_OP_ANY_HORIZONTAL, args[0]);
  if (n < 1) return qve_pl_call(all ? QV_OP_ALL_HORIZONTAL : QV_OP_ANY_HORIZONTAL, args, 0);
  qv_expr *acc = args[0];
  for (int32_t i = 1; i < n; i++) {
    acc = qve_pl_call2(all ? QV_OP_AND : QV_OP_OR, acc, args[i]);
    if (!acc) {
      for (int32_t k = i + 1; k < n; k++) qv_expr_destroy(args[k]);
      return NULL;
    }
  }
  return acc;
}

qv_expr *qve_pl_list_contains(qv_expr *l, qv_expr *x, bool nulls_equal) {
  qv_expr *e = qve_pl_call2(QV_OP_ARRAY_HAS, l, x);
  if (e) e->sem.in_nulls_equal = nulls_equal;
  return e;
}

qv_expr *qve_pl_round(qv_expr *x, int64_t decimals, const char *mode) {
  qv_expr *e = qve_pl_flags(qve_pl_call1(QV_OP_ROUND, x), 0, decimals);
  if (e && !qve_pl_set_name(e, mode, strlen(mode))) {
    qv_expr_destroy(e);
    return NULL;
  }
  return e;
}

qv_expr *qve_pl_fill_strategy(qv_expr *x, const char *strategy, int64_t limit) {
  qv_expr *e = qve_pl_flags(qve_pl_call1(QV_OP_FILL_NULL, x), 0, limit);
  if (e && !qve_pl_set_name(e, strategy, strlen(strategy))) {
    qv_expr_destroy(e);
    return NULL;
  }
  return e;
}

qv_expr *qve_pl_concat_str(qv_expr **args, int32_t n, const char *sep, size_t sep_len, bool ignore_nulls) {
  qv_expr *e = qve_pl_flags(qve_pl_call(QV_OP_CONCAT_STR, args, n), ignore_nulls ? QV_EXPR_F_IGNORE_NULLS : 0, 0);
  if (e && !qve_pl_set_name(e, sep, sep_len)) {
    qv_expr_destroy(e);
    return NULL;
  }
  return e;
}

int32_t qve_pl_depth(const qv_expr *e, int32_t limit) {
  if (!e || limit < 0) return 0;
  int32_t best = 0;
  for (int32_t i = 0; i < e->n_args && best <= limit; i++) {
    int32_t d = qve_pl_depth(e->args[i], limit - 1);
    if (d > best) best = d;
  }
  return best + 1;
}

qv_expr *qve_pl_is_between(qv_expr *x, qv_expr *lo, qv_expr *hi, const char *closed) {
  if (!x || !lo || !hi) {
    qv_expr_destroy(x);
    qv_expr_destroy(lo);
    qv_expr_destroy(hi);
    return NULL;
  }
  /* Polars brings x and both bounds to one supertype: with a Python
   * float bound, an int bound compares as a float too (so i64 2^53 + 1 is
   * between 0.5 and 2^53). */
  qv_expr *lits[2] = {lo, hi};
  for (int k = 0; k < 2; k++) {
    qv_expr *l = lits[k], *o = lits[1 - k];
    bool o_float = o->kind == QV_EXPR_LITERAL && (o->flags & QV_EXPR_F_DYNAMIC) && !o->value.is_null &&
                   o->value.type.id == QV_TYPE_FLOAT64;
    if (!o_float || l->kind != QV_EXPR_LITERAL || !(l->flags & QV_EXPR_F_DYNAMIC) || l->value.is_null) continue;
    if (l->value.type.id == QV_TYPE_INT64 || l->value.type.id == QV_TYPE_INT32) {
      l->value.v.f = (double)l->value.v.i;
    } else if (l->value.type.id == QV_TYPE_UINT64) {
      l->value.v.f = (double)l->value.v.u;
    } else {
      continue;
    }
    l->value.type.id = QV_TYPE_FLOAT64;
    l->type.id = QV_TYPE_FLOAT64;
  }
  bool lo_in = strcmp(closed, "both") == 0 || strcmp(closed, "left") == 0;
  bool hi_in = strcmp(closed, "both") == 0 || strcmp(closed, "right") == 0;
  /* Polars evaluates x >= lo & x <= hi (and so on): the same tree, which
   * every translator and the evaluator already take (no BETWEEN node with
   * Polars semantics to teach each of them). */
  qv_expr *x2 = qv_expr_clone(x);
  qv_expr *a = qve_pl_call2(lo_in ? QV_OP_GE : QV_OP_GT, x, lo);
  qv_expr *b = x2 ? qve_pl_call2(hi_in ? QV_OP_LE : QV_OP_LT, x2, hi) : (qv_expr_destroy(hi), NULL);
  if (!a || !b) {
    qv_expr_destroy(a);
    qv_expr_destroy(b);
    return NULL;
  }
  return qve_pl_call2(QV_OP_AND, a, b);
}
