/* qv_expr_bind: resolves names against a schema, gives every node its
 * result type, and makes operand types agree by converting literals or
 * inserting CAST nodes.  The compute layer evaluates the result, so this
 * comment is its contract.
 *
 * NAMES.  A column name matches a schema field exactly, else the one field
 * equal to it ignoring ASCII case (Lance's resolve_column_name); two such
 * fields are an error.  The node's name is rewritten to the schema's
 * spelling and node->column set.  QV_OP_FIELD finds a struct child by the
 * same rule.  (Lance matches a lone `backticked` name and struct fields
 * exactly only; the IR does not keep quoting, so here every name gets the
 * same rule -- a superset of what Lance accepts.)
 *
 * RESULT TYPES.  Comparisons, AND/OR/XOR/NOT, IS ..., IN, BETWEEN, LIKE,
 * starts_with/ends_with/contains/regexp_like/regexp_match, isnan and
 * array_has[_any|_all] are bool.  length is int32 (DataFusion's
 * character_length of Utf8); array_length is uint64; date_part is int64;
 * date_trunc, abs, lower, upper and NEG keep their argument's type;
 * coalesce has its arguments' common type; a list literal (QV_OP_LIST,
 * every argument a literal already converted to T) is list<T> of its
 * elements' common type (list<null> when empty), or fixed_size_list<T, n>
 * when it meets a fixed_size_list of its length (as Lance types [1, 2, 3]
 * against a vector column, so the column is never cast); CAST is its
 * target.
 *
 * IMPLICIT CASTS.  An inserted CAST is an ordinary QV_OP_CAST node with
 * sem.cast_strict = true; it is always lossless except where noted.  A
 * literal operand is converted in place instead of being cast (its node's
 * value and type change; nothing is evaluated at run time).
 *
 * Comparisons (= != < <= > >=), IN and BETWEEN bring all their operands to
 * one type C.  C comes from the non-literal operands first; then each
 * literal is converted to C when it can be without changing its value
 * (this is how `int8_col = 5` compares int8s and `f32_col = 0.1` compares
 * float32s, as Lance does); a literal that cannot be widens C instead
 * (`int8_col = 300` compares int64s: nothing wraps).  Common types:
 *   - integers: the narrowest integer holding both (int32 vs uint16 ->
 *     int32, int32 vs uint32 -> int64, uint8 vs int8 -> int16), EXCEPT a
 *     signed integer against uint64: then the signed side is widened to
 *     int64 and the uint64 side stays uint64 -- the node's operands have
 *     MIXED SIGNEDNESS (int64 vs uint64) and the kernel must compare the
 *     values exactly (-1 < 18446744073709551615).  Only comparisons, IN and
 *     BETWEEN produce this mix.
 *   - integer vs float: the float type (float32 when the float is float32,
 *     as DataFusion; the conversion of an integer to float32 may round).
 *   - decimal vs decimal/integer/float: decimal(max(s) + max(p - s), max(s)),
 *     precision capped at 38, the integer as decimal(3|5|10|20,0), float32
 *     as decimal(14,7), float64 as decimal(30,15) (DataFusion).
 *   - date32 vs timestamp: the timestamp type (the date is midnight UTC).
 *     timestamp vs timestamp: the finer unit (DataFusion picks the coarser
 *     and truncates; quiver stays exact), the zone of the side that has one.
 *   - string literal vs date32/timestamp: the text is read as that type at
 *     bind time (bad text is a QV_ERR_TYPE error at the literal's column);
 *     digits finer than the column's unit make the comparison happen in
 *     nanoseconds instead of being dropped.  A text without an offset
 *     against a zoned column needs a fixed-offset zone (UTC, +05:30).
 *   - string vs binary: binary.  list vs list: list of the common element
 *     type (fixed_size_list only when both are of the same size).
 *   - bool only with bool, string/binary only with string/binary: anything
 *     else is "cannot compare X with Y at column N" (QV_ERR_TYPE).
 *   - NULL (the null type) takes the other side's type.
 *
 * Arithmetic (+ - * / %): both operands numeric.  No literal narrowing
 * (DataFusion): int8_col + 1 is int64 + int64 -> int64, except that a
 * non-negative integer literal against uint64 becomes uint64 (otherwise
 * uint64 + 1 would be decimal).  Integers -> the common integer as above,
 * int64 vs uint64 -> both decimal(20,0); any float -> float64 if either is
 * float64 else float32 (also for decimal vs float).  Integer / and % are
 * integer division truncating toward zero (sem.int_div).  Decimals: an
 * integer operand is cast to decimal(3|5|10|20,0); the two decimal operands
 * keep THEIR OWN precision and scale (the kernel rescales), and the result
 * follows Arrow: + - : s = max(s1,s2), p = max(p1-s1,p2-s2) + s + 1;
 * * : s = s1 + s2 (over 38 is an error), p = p1 + p2 + 1; / : s = s1 + 4,
 * p = p1 - s1 + s2 + s; % : s = max(s1,s2), p = min(p1-s1,p2-s2) + s; all
 * capped at 38.  NEG: signed, float or decimal (unsigned is an error).
 *
 * Functions: string arguments must be string (NULL is cast); isnan casts
 * integers and decimals to float64; array_has(list<T>, x) converts x to T
 * (or casts the list to list<common>); array_has_any/all bring both lists
 * to one element type; coalesce unifies like IN but int64 vs uint64 gives
 * decimal(20,0).  A CAST must be one Arrow can do (qve_bind_castable).
 *
 * Time zones: a literal read for a zoned timestamp is an instant (UTC
 * value, zone attached); text without an offset is wall-clock time in the
 * column's zone, which needs a fixed-offset zone here (no tz database).  An
 * inserted CAST from a naive timestamp to a zoned one (tz_col = naive_col)
 * follows Arrow: the naive value is wall-clock time in the target zone.
 *
 * Where Lance answers differently, on purpose: Lance coerces a literal to
 * the column's type or fails ("int8_col = 300", "int_col > 1.5" and
 * "date_col = '2024-01-01'" are errors there; here they widen, compare as
 * float64, and read the date); Lance also narrows literals in arithmetic
 * (int8_col + 100 is int8 arithmetic that can overflow; here int64).
 * DataFusion coerces date vs timestamp to timestamp[ns] and two timestamp
 * units to the coarser one (here: the timestamp's own type, the finer
 * unit), and compares strings with numbers as strings (here an error). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "expr/bind_int.h"

/* Parsed trees are at most QV_EXPR_MAX_DEPTH deep; the binder adds a cast
 * level at most per node.  Kept well under what an 8 MiB stack holds with
 * sanitizers on (their frames are several KiB here). */
#define BIND_MAX_DEPTH (2 * QV_EXPR_MAX_DEPTH + 64)

const char *qve_bind_tn(const qv_datatype *t, char *buf, size_t size) {
  qv_datatype_format(t, buf, size);
  return buf;
}
/* A user-given name, clipped for messages. */
#define NM(s) qve_expr_clip((s) ? (s) : "", (s) ? strlen(s) : 0, (char[80]){0}, 80)

qv_status qve_bind_error(qve_binder *b, qv_status code, int32_t pos, const char *fmt, ...) {
  char msg[800];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (pos > 0) return qv_error_set(b->err, code, "filter: %s at column %d", msg, (int)pos);
  return qv_error_set(b->err, code, "filter: %s", msg);
}

qv_status qve_bind_nomem(qve_binder *b) { return qv_error_nomem(b->err, "filter"); }

qv_status qve_bind_set_type(qve_binder *b, qv_expr *e, const qv_datatype *t) {
  qv_datatype_reset(&e->type);
  return qv_datatype_copy(t, &e->type) == QV_OK ? QV_OK : qve_bind_nomem(b);
}
void qve_bind_set_simple(qv_expr *e, qv_type_id id) {
  qv_datatype_reset(&e->type);
  e->type = qv_datatype_simple(id);
}

bool qve_bind_literal_like(const qv_expr *e) {
  return e->kind == QV_EXPR_LITERAL || (e->kind == QV_EXPR_CALL && e->op == QV_OP_LIST);
}

/* ---- conversions and casts --------------------------------------------------- */

/* Whether literal-like e can become type `to` unchanged in meaning; with
 * apply, it does. */
qv_status qve_bind_try_convert(qve_binder *b, qv_expr *e, const qv_datatype *to, bool apply, bool *ok) {
  *ok = false;
  if (e->kind == QV_EXPR_LITERAL) {
    qv_scalar out;
    QV_RETURN_NOT_OK(qve_bind_convert_scalar(&e->value, to, e->pos, &out, ok, b->err));
    if (!*ok) return QV_OK;
    if (!apply) {
      qv_scalar_reset(&out);
      return QV_OK;
    }
    qv_scalar_reset(&e->value);
    e->value = out;
    return qve_bind_set_type(b, e, to);
  }
  /* A list literal becomes a list, or a fixed_size_list of its length, of
   * the target's item type when every element converts. */
  if (!qve_is_listlike(to->id) || (to->id == QV_TYPE_FIXED_SIZE_LIST && to->list_size != e->n_args)) return QV_OK;
  const qv_datatype *item = &to->children[0].type;
  for (int32_t i = 0; i < e->n_args; i++) {
    QV_RETURN_NOT_OK(qve_bind_try_convert(b, e->args[i], item, false, ok));
    if (!*ok) return QV_OK;
  }
  *ok = true;
  if (!apply) return QV_OK;
  for (int32_t i = 0; i < e->n_args; i++) QV_RETURN_NOT_OK(qve_bind_try_convert(b, e->args[i], item, true, ok));
  return qve_bind_set_type(b, e, to);
}

static qv_status wrap_cast(qve_binder *b, qv_expr **slot, const qv_datatype *to) {
  qv_expr *inner = *slot;
  int32_t pos = inner->pos;
  qv_semantics sem = inner->sem;
  *slot = NULL; /* the builder owns inner from here, also on failure */
  qv_expr *c = qv_expr_unary(QV_OP_CAST, inner);
  if (!c) return qve_bind_nomem(b);
  *slot = c;
  c->pos = pos;
  c->sem = sem;
  c->sem.cast_strict = true;
  return qve_bind_set_type(b, c, to);
}

/* Makes *slot of type `to`: a literal is converted, anything else cast. */
qv_status qve_bind_coerce_to(qve_binder *b, qv_expr **slot, const qv_datatype *to) {
  if (qv_datatype_equal(&(*slot)->type, to)) return QV_OK;
  if (qve_bind_literal_like(*slot)) {
    bool ok;
    QV_RETURN_NOT_OK(qve_bind_try_convert(b, *slot, to, true, &ok));
    if (ok) return QV_OK;
  }
  return wrap_cast(b, slot, to);
}

qv_status qve_bind_coerce_simple(qve_binder *b, qv_expr **slot, qv_type_id id) {
  qv_datatype t = qv_datatype_simple(id);
  return qve_bind_coerce_to(b, slot, &t);
}

/* ---- unification ------------------------------------------------------------- */

typedef struct unifier {
  qv_datatype c;
  bool have, mixed;
} unifier;

static qv_status combine(qve_binder *b, unifier *u, const qv_datatype *t, qve_common_mode mode, const char *what,
                         int32_t pos) {
  if (!u->have) {
    u->have = true;
    return qv_datatype_copy(t, &u->c) == QV_OK ? QV_OK : qve_bind_nomem(b);
  }
  qv_datatype nc;
  bool m = false;
  qve_common_result r = qve_bind_common_type(&u->c, t, mode, &nc, &m);
  if (r != QV_COMMON_FOUND) {
    qv_datatype_reset(&nc);
    if (r == QV_COMMON_NOMEM) return qve_bind_nomem(b);
    if (!strcmp(what, "compare"))
      return qve_bind_error(b, QV_ERR_TYPE, pos, "cannot compare %s with %s", TN(&u->c), TN(t));
    return qve_bind_error(b, QV_ERR_TYPE, pos, "%s cannot combine %s with %s", what, TN(&u->c), TN(t));
  }
  qv_datatype_reset(&u->c);
  u->c = nc;
  u->mixed = (u->mixed || m) && qve_is_int(nc.id);
  return QV_OK;
}

/* Brings slots[0..n) to one type (see the top of the file); *out gets it
 * (int64 when the operands stay mixed int64/uint64). */
qv_status qve_bind_unify(qve_binder *b, qv_expr **slots, int32_t n, qve_common_mode mode, const char *what, int32_t pos,
                         qv_datatype *out) {
  unifier u = {QV_DATATYPE_INIT, false, false};
  qv_status st = QV_OK;
  for (int32_t i = 0; i < n && st == QV_OK; i++)
    if (!qve_bind_literal_like(slots[i])) st = combine(b, &u, &slots[i]->type, mode, what, pos);
  /* Text compared with a date or timestamp is read as one. */
  if (st == QV_OK && u.have && qve_is_datetime(u.c.id)) {
    for (int32_t i = 0; i < n && st == QV_OK; i++) {
      qv_expr *e = slots[i];
      if (e->kind != QV_EXPR_LITERAL || e->value.is_null || e->value.type.id != QV_TYPE_STRING) continue;
      qv_scalar t;
      st = qve_bind_read_temporal(&e->value, &u.c, e->pos, &t, b->err);
      if (st != QV_OK) break;
      qv_scalar_reset(&e->value);
      e->value = t;
      st = qve_bind_set_type(b, e, &t.type);
    }
  }
  for (int32_t i = 0; i < n && st == QV_OK; i++) {
    if (!qve_bind_literal_like(slots[i])) continue;
    bool ok = false;
    if (u.have && !u.mixed) st = qve_bind_try_convert(b, slots[i], &u.c, false, &ok);
    if (st == QV_OK && !ok) st = combine(b, &u, &slots[i]->type, mode, what, pos);
  }
  for (int32_t i = 0; i < n && st == QV_OK; i++) {
    qv_type_id id = slots[i]->type.id;
    if (u.mixed && qve_is_int(id))
      st = qve_bind_coerce_simple(b, &slots[i], qve_is_uint(id) ? QV_TYPE_UINT64 : QV_TYPE_INT64);
    else if (u.mixed && id == QV_TYPE_NULL) st = qve_bind_coerce_simple(b, &slots[i], QV_TYPE_INT64);
    else st = qve_bind_coerce_to(b, &slots[i], &u.c);
  }
  if (st != QV_OK) {
    qv_datatype_reset(&u.c);
    return st;
  }
  *out = u.c;
  return QV_OK;
}

/* ---- operands ------------------------------------------------------------------ */

qv_status qve_bind_want_bool(qve_binder *b, qv_expr *e, int32_t i, const char *what) {
  qv_type_id id = e->args[i]->type.id;
  if (id == QV_TYPE_BOOL) return QV_OK;
  if (id == QV_TYPE_NULL) return qve_bind_coerce_simple(b, &e->args[i], QV_TYPE_BOOL);
  return qve_bind_error(b, QV_ERR_TYPE, e->pos, "%s expects boolean operands, got %s", what, TN(&e->args[i]->type));
}

qv_status qve_bind_want_string(qve_binder *b, qv_expr *e, int32_t i, const char *what) {
  qv_type_id id = e->args[i]->type.id;
  if (id == QV_TYPE_STRING) return QV_OK;
  if (id == QV_TYPE_NULL) return qve_bind_coerce_simple(b, &e->args[i], QV_TYPE_STRING);
  return qve_bind_error(b, QV_ERR_TYPE, e->pos, "%s expects string arguments, got %s (argument %d)", what,
                        TN(&e->args[i]->type), (int)i + 1);
}

qv_status qve_bind_want_list(qve_binder *b, qv_expr *e, int32_t i, const char *what) {
  qv_type_id id = e->args[i]->type.id;
  if (qve_is_listlike(id)) return QV_OK;
  if (id == QV_TYPE_NULL) {
    qv_datatype nt = qv_datatype_simple(QV_TYPE_NULL), lt;
    if (qve_bind_list_of(&nt, &lt) != QV_OK) return qve_bind_nomem(b);
    qv_status st = qve_bind_coerce_to(b, &e->args[i], &lt);
    qv_datatype_reset(&lt);
    return st;
  }
  return qve_bind_error(b, QV_ERR_TYPE, e->pos, "%s expects a list, got %s (argument %d)", what, TN(&e->args[i]->type),
                        (int)i + 1);
}

/* ---- arithmetic -------------------------------------------------------------------- */

static bool nonneg_int_literal(const qv_expr *e) {
  return e->kind == QV_EXPR_LITERAL && !e->value.is_null && qve_is_int(e->value.type.id) &&
         (qve_is_uint(e->value.type.id) || e->value.v.i >= 0);
}

static qv_status bind_arith(qve_binder *b, qv_expr *e) {
  qv_expr **l = &e->args[0], **r = &e->args[1];
  const char *op = qv_op_name(e->op);
  qv_type_id lt = (*l)->type.id, rt = (*r)->type.id;
  if (lt == QV_TYPE_NULL && rt == QV_TYPE_NULL) {
    QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, l, QV_TYPE_INT64));
    QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, r, QV_TYPE_INT64));
  } else if (lt == QV_TYPE_NULL && qve_is_num(rt)) {
    QV_RETURN_NOT_OK(qve_bind_coerce_to(b, l, &(*r)->type));
  } else if (rt == QV_TYPE_NULL && qve_is_num(lt)) {
    QV_RETURN_NOT_OK(qve_bind_coerce_to(b, r, &(*l)->type));
  }
  lt = (*l)->type.id;
  rt = (*r)->type.id;
  if (!qve_is_num(lt) || !qve_is_num(rt))
    return qve_bind_error(b, QV_ERR_TYPE, e->pos, "cannot apply %s to %s and %s", op, TN(&(*l)->type), TN(&(*r)->type));
  if (lt == QV_TYPE_UINT64 && rt != QV_TYPE_UINT64 && nonneg_int_literal(*r))
    QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, r, QV_TYPE_UINT64));
  if (rt == QV_TYPE_UINT64 && lt != QV_TYPE_UINT64 && nonneg_int_literal(*l))
    QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, l, QV_TYPE_UINT64));
  lt = (*l)->type.id;
  rt = (*r)->type.id;
  qv_datatype res;
  /* Polars' `/` is true division: integers divide as float64. */
  if (e->op == QV_OP_DIV && (e->flags & QV_EXPR_F_TRUE_DIV) && qve_is_int(lt) && qve_is_int(rt)) {
    QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, l, QV_TYPE_FLOAT64));
    QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, r, QV_TYPE_FLOAT64));
    qve_bind_set_simple(e, QV_TYPE_FLOAT64);
    return QV_OK;
  }
  if (qve_is_float(lt) || qve_is_float(rt)) {
    qv_type_id c = lt == QV_TYPE_FLOAT64 || rt == QV_TYPE_FLOAT64 ? QV_TYPE_FLOAT64 : QV_TYPE_FLOAT32;
    QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, l, c));
    QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, r, c));
    qve_bind_set_simple(e, c);
    return QV_OK;
  }
  if (qve_is_int(lt) && qve_is_int(rt)) {
    bool m;
    if (qve_bind_common_type(&(*l)->type, &(*r)->type, QV_COMMON_UNION, &res, &m) != QV_COMMON_FOUND)
      return qve_bind_nomem(b); /* integers always have one; only memory can fail */
    QV_RETURN_NOT_OK(qve_bind_coerce_to(b, l, &res));
    QV_RETURN_NOT_OK(qve_bind_coerce_to(b, r, &res));
    if (res.id != QV_TYPE_DECIMAL128) {
      qve_bind_set_simple(e, res.id);
      return QV_OK;
    }
  } else {
    if (qve_is_int(lt)) {
      qv_datatype d = qve_bind_int_as_decimal(lt);
      QV_RETURN_NOT_OK(qve_bind_coerce_to(b, l, &d));
    }
    if (qve_is_int(rt)) {
      qv_datatype d = qve_bind_int_as_decimal(rt);
      QV_RETURN_NOT_OK(qve_bind_coerce_to(b, r, &d));
    }
  }
  if (!qve_bind_decimal_result(e->op, &(*l)->type, &(*r)->type, &res))
    return qve_bind_error(b, QV_ERR_TYPE, e->pos, "%s * %s needs a scale above 38", TN(&(*l)->type), TN(&(*r)->type));
  return qve_bind_set_type(b, e, &res);
}

/* ---- names --------------------------------------------------------------------------- */

/* Exact match, else the only case-insensitive one.  -1: none, -2: several. */
static int32_t find_name(const qv_field *fields, int32_t n, const char *name) {
  for (int32_t i = 0; i < n; i++)
    if (!strcmp(fields[i].name, name)) return i;
  int32_t hit = -1;
  for (int32_t i = 0; i < n; i++) {
    if (strcasecmp(fields[i].name, name)) continue;
    if (hit >= 0) return -2;
    hit = i;
  }
  return hit;
}

static void name_list(const qv_field *fields, int32_t n, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = '\0';
  for (int32_t i = 0; i < n && k + 1 < size; i++) {
    int w = snprintf(buf + k, size - k, "%s%s", i ? ", " : "", fields[i].name);
    if (w < 0) break;
    if ((size_t)w >= size - k || k + (size_t)w > size - 8) {
      snprintf(buf + k, size - k, "%s...", i ? ", " : "");
      return;
    }
    k += (size_t)w;
  }
}

static qv_status set_name(qve_binder *b, qv_expr *e, const char *name) {
  if (!strcmp(e->name, name)) return QV_OK;
  char *s = qv_strdup(name);
  if (!s) return qve_bind_nomem(b);
  qv_free(e->name);
  e->name = s;
  return QV_OK;
}

static qv_status bind_column(qve_binder *b, qv_expr *e) {
  const qv_schema *s = b->schema;
  int32_t i = find_name(s->fields, s->n_fields, e->name ? e->name : "");
  if (i == -2)
    return qve_bind_error(b, QV_ERR_INVALID, e->pos,
                          "column name `%s` is ambiguous (it matches several columns "
                          "when case is ignored; quote the exact spelling)",
                          NM(e->name));
  if (i < 0) {
    char names[600];
    name_list(s->fields, s->n_fields, names, sizeof names);
    return qv_error_set(b->err, QV_ERR_NOT_FOUND, "filter: no column `%s` (columns: %s)", NM(e->name), names);
  }
  e->column = i;
  QV_RETURN_NOT_OK(set_name(b, e, s->fields[i].name));
  return qve_bind_set_type(b, e, &s->fields[i].type);
}

static qv_status bind_field(qve_binder *b, qv_expr *e) {
  const qv_datatype *st = &e->args[0]->type;
  if (st->id != QV_TYPE_STRUCT)
    return qve_bind_error(b, QV_ERR_TYPE, e->pos, "cannot read field `%s` of %s", NM(e->name), TN(st));
  int32_t i = find_name(st->children, st->n_children, e->name ? e->name : "");
  if (i == -2) return qve_bind_error(b, QV_ERR_INVALID, e->pos, "field name `%s` is ambiguous", NM(e->name));
  if (i < 0) {
    char names[600];
    name_list(st->children, st->n_children, names, sizeof names);
    return qve_bind_error(b, QV_ERR_NOT_FOUND, e->pos, "struct has no field `%s` (fields: %s)", NM(e->name), names);
  }
  QV_RETURN_NOT_OK(set_name(b, e, st->children[i].name));
  return qve_bind_set_type(b, e, &st->children[i].type);
}

/* ---- functions ------------------------------------------------------------------------- */

/* array_has, array_has_any, array_has_all */
qv_status qve_bind_rule_array_has(qve_binder *b, qv_expr *e) {
  const char *what = qv_op_name(e->op);
  QV_RETURN_NOT_OK(qve_bind_want_list(b, e, 0, what));
  qv_status st = QV_OK;
  if (e->op == QV_OP_ARRAY_HAS) {
    const qv_datatype *t = &e->args[0]->type.children[0].type;
    bool ok = false;
    if (qve_bind_literal_like(e->args[1])) QV_RETURN_NOT_OK(qve_bind_try_convert(b, e->args[1], t, true, &ok));
    if (!ok) {
      qv_datatype c, lc = QV_DATATYPE_INIT;
      bool m;
      qve_common_result r = qve_bind_common_type(t, &e->args[1]->type, QV_COMMON_UNION, &c, &m);
      if (r != QV_COMMON_FOUND) {
        qv_datatype_reset(&c);
        if (r == QV_COMMON_NOMEM) return qve_bind_nomem(b);
        return qve_bind_error(b, QV_ERR_TYPE, e->pos, "%s cannot look for %s in %s", what, TN(&e->args[1]->type),
                              TN(&e->args[0]->type));
      }
      if (!qv_datatype_equal(&c, t)) {
        st = qve_bind_list_of(&c, &lc) == QV_OK ? QV_OK : qve_bind_nomem(b);
        if (st == QV_OK) st = qve_bind_coerce_to(b, &e->args[0], &lc);
        qv_datatype_reset(&lc);
      }
      if (st == QV_OK) st = qve_bind_coerce_to(b, &e->args[1], &c);
      qv_datatype_reset(&c);
    }
  } else {
    QV_RETURN_NOT_OK(qve_bind_want_list(b, e, 1, what));
    const qv_datatype *t = &e->args[0]->type.children[0].type;
    qv_datatype lt;
    bool ok = false;
    if (qve_bind_list_of(t, &lt) != QV_OK) return qve_bind_nomem(b);
    if (qve_bind_literal_like(e->args[1])) st = qve_bind_try_convert(b, e->args[1], &lt, true, &ok);
    qv_datatype_reset(&lt);
    if (st == QV_OK && !ok) {
      qv_datatype c;
      bool m;
      qve_common_result r = qve_bind_common_type(&e->args[0]->type, &e->args[1]->type, QV_COMMON_UNION, &c, &m);
      if (r != QV_COMMON_FOUND) {
        qv_datatype_reset(&c);
        if (r == QV_COMMON_NOMEM) return qve_bind_nomem(b);
        return qve_bind_error(b, QV_ERR_TYPE, e->pos, "%s cannot compare %s with %s", what, TN(&e->args[0]->type),
                              TN(&e->args[1]->type));
      }
      st = qve_bind_coerce_to(b, &e->args[0], &c);
      if (st == QV_OK) st = qve_bind_coerce_to(b, &e->args[1], &c);
      qv_datatype_reset(&c);
    }
  }
  if (st == QV_OK) qve_bind_set_simple(e, QV_TYPE_BOOL);
  return st;
}

qv_status qve_bind_rule_string_pred(qve_binder *b, qv_expr *e) {
  for (int32_t i = 0; i < e->n_args; i++) QV_RETURN_NOT_OK(qve_bind_want_string(b, e, i, qv_op_name(e->op)));
  qve_bind_set_simple(e, QV_TYPE_BOOL);
  return QV_OK;
}

qv_status qve_bind_rule_string_case(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(qve_bind_want_string(b, e, 0, qv_op_name(e->op)));
  qve_bind_set_simple(e, QV_TYPE_STRING);
  return QV_OK;
}

qv_status qve_bind_rule_length(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(qve_bind_want_string(b, e, 0, qv_op_name(e->op)));
  /* Polars' str.len_chars is UInt32 */
  qve_bind_set_simple(e, qve_bind_is_polars(e) ? QV_TYPE_UINT32 : QV_TYPE_INT32);
  return QV_OK;
}

qv_status qve_bind_rule_abs(qve_binder *b, qv_expr *e) {
  qv_type_id id = e->args[0]->type.id;
  if (!qve_is_num(id) && id != QV_TYPE_NULL)
    return qve_bind_error(b, QV_ERR_TYPE, e->pos, "abs expects a number, got %s", TN(&e->args[0]->type));
  return qve_bind_set_type(b, e, &e->args[0]->type);
}

qv_status qve_bind_rule_isnan(qve_binder *b, qv_expr *e) {
  qv_type_id id = e->args[0]->type.id;
  if (qve_is_int(id) || id == QV_TYPE_DECIMAL128 || id == QV_TYPE_NULL)
    QV_RETURN_NOT_OK(qve_bind_coerce_simple(b, &e->args[0], QV_TYPE_FLOAT64));
  else if (!qve_is_float(id))
    return qve_bind_error(b, QV_ERR_TYPE, e->pos, "isnan expects a number, got %s", TN(&e->args[0]->type));
  qve_bind_set_simple(e, QV_TYPE_BOOL);
  return QV_OK;
}

qv_status qve_bind_rule_coalesce(qve_binder *b, qv_expr *e) {
  qv_datatype c;
  if (qve_bind_is_polars(e)) return qve_bind_polars_unify(b, e, e->args, e->n_args, "coalesce");
  QV_RETURN_NOT_OK(qve_bind_unify(b, e->args, e->n_args, QV_COMMON_UNION, "coalesce", e->pos, &c));
  qv_datatype_reset(&e->type);
  e->type = c;
  return QV_OK;
}

qv_status qve_bind_rule_array_length(qve_binder *b, qv_expr *e) {
  QV_RETURN_NOT_OK(qve_bind_want_list(b, e, 0, qv_op_name(e->op)));
  /* Polars' list.len is UInt32 */
  qve_bind_set_simple(e, qve_bind_is_polars(e) ? QV_TYPE_UINT32 : QV_TYPE_UINT64);
  return QV_OK;
}

/* date_part and date_trunc */
qv_status qve_bind_rule_date_part(qve_binder *b, qv_expr *e) {
  const char *what = qv_op_name(e->op);
  QV_RETURN_NOT_OK(qve_bind_want_string(b, e, 0, what));
  const qv_datatype *t = &e->args[1]->type;
  if (!qve_is_datetime(t->id) && t->id != QV_TYPE_NULL)
    return qve_bind_error(b, QV_ERR_TYPE, e->pos, "%s expects a date or timestamp, got %s", what, TN(t));
  if (e->op == QV_OP_DATE_PART) {
    qve_bind_set_simple(e, QV_TYPE_INT64);
    return QV_OK;
  }
  return qve_bind_set_type(b, e, t);
}

/* ---- operators ----------------------------------------------------------------------------- */

/* A Lance operator node with an argument count it cannot have. */
static qv_status bad_arity(qve_binder *b, const qv_expr *e) {
  return qve_bind_error(b, QV_ERR_INVALID, e->pos, "%s has %d arguments", qv_op_name(e->op), (int)e->n_args);
}

/* = != < <= > >=, IN, BETWEEN */
qv_status qve_bind_rule_compare(qve_binder *b, qv_expr *e) {
  if (e->n_args < 1) return bad_arity(b, e);
  qv_datatype c;
  if (qve_bind_is_polars(e)) {
    QV_RETURN_NOT_OK(qve_bind_polars_compare_check(b, e));
    QV_RETURN_NOT_OK(qve_bind_polars_compare_types(b, e));
  }
  QV_RETURN_NOT_OK(qve_bind_unify(b, e->args, e->n_args, QV_COMMON_COMPARE, "compare", e->pos, &c));
  qv_datatype_reset(&c);
  qve_bind_set_simple(e, QV_TYPE_BOOL);
  return QV_OK;
}

/* AND OR XOR NOT, IS [NOT] TRUE / FALSE */
qv_status qve_bind_rule_bool_args(qve_binder *b, qv_expr *e) {
  for (int32_t i = 0; i < e->n_args; i++) QV_RETURN_NOT_OK(qve_bind_want_bool(b, e, i, qv_op_name(e->op)));
  qve_bind_set_simple(e, QV_TYPE_BOOL);
  return QV_OK;
}

qv_status qve_bind_rule_null_test(qve_binder *b, qv_expr *e) {
  (void)b;
  qve_bind_set_simple(e, QV_TYPE_BOOL);
  return QV_OK;
}

qv_status qve_bind_rule_like(qve_binder *b, qv_expr *e) {
  for (int32_t i = 0; i < e->n_args; i++)
    QV_RETURN_NOT_OK(qve_bind_want_string(b, e, i, e->sem.case_insensitive ? "ILIKE" : "LIKE"));
  qve_bind_set_simple(e, QV_TYPE_BOOL);
  return QV_OK;
}

qv_status qve_bind_rule_cast(qve_binder *b, qv_expr *e) {
  if (e->n_args != 1) return bad_arity(b, e);
  if (!qve_bind_castable(&e->args[0]->type, &e->type))
    return qve_bind_error(b, QV_ERR_TYPE, e->pos, "cannot cast %s to %s", TN(&e->args[0]->type), TN(&e->type));
  return QV_OK;
}

/* + - * / % */
qv_status qve_bind_rule_arith(qve_binder *b, qv_expr *e) {
  if (e->n_args != 2) return bad_arity(b, e);
  bool numeric = false;
  if (qve_bind_is_polars(e)) {
    bool done;
    QV_RETURN_NOT_OK(qve_bind_polars_string_add(b, e, &done));
    if (done) return QV_OK;
    QV_RETURN_NOT_OK(qve_bind_polars_arith(b, e, &numeric));
  }
  return numeric ? QV_OK : bind_arith(b, e);
}

qv_status qve_bind_rule_neg(qve_binder *b, qv_expr *e) {
  if (e->n_args != 1) return bad_arity(b, e);
  qv_type_id id = e->args[0]->type.id;
  if (qve_is_uint(id) || !(qve_is_num(id) || id == QV_TYPE_NULL))
    return qve_bind_error(b, QV_ERR_TYPE, e->pos, "cannot negate %s", TN(&e->args[0]->type));
  return qve_bind_set_type(b, e, &e->args[0]->type);
}

qv_status qve_bind_rule_field(qve_binder *b, qv_expr *e) {
  if (e->n_args != 1) return bad_arity(b, e);
  return bind_field(b, e);
}

/* A list literal: its elements' common type. */
qv_status qve_bind_rule_list(qve_binder *b, qv_expr *e) {
  qv_datatype c, lt;
  if (e->n_args == 0) {
    c = qv_datatype_simple(QV_TYPE_NULL);
  } else {
    QV_RETURN_NOT_OK(qve_bind_unify(b, e->args, e->n_args, QV_COMMON_UNION, "a list", e->pos, &c));
  }
  qv_status st = qve_bind_list_of(&c, &lt) == QV_OK ? QV_OK : qve_bind_nomem(b);
  qv_datatype_reset(&c);
  if (st == QV_OK) {
    qv_datatype_reset(&e->type);
    e->type = lt;
  }
  return st;
}

/* ---- the walk ---------------------------------------------------------------------------- */

/* The BIND column of expr/ops.def. */
typedef qv_status (*bind_rule)(qve_binder *b, qv_expr *e);
#define BIND(x) qve_bind_rule_##x
#define QV_OP_ROW(id, name, lo, hi, cls, mirror, sql, print, bind, ...) bind,
static const bind_rule rules[QV_OP__COUNT] = {
#include "expr/ops.def"
};
#undef QV_OP_ROW
#undef BIND

static qv_status bind_node(qve_binder *b, qv_expr **slot);

static qv_status bind_call(qve_binder *b, qv_expr *e) {
  for (int32_t i = 0; i < e->n_args; i++) QV_RETURN_NOT_OK(bind_node(b, &e->args[i]));
  if ((unsigned)e->op >= (unsigned)QV_OP__COUNT) return qve_bind_rule_unbindable(b, e);
  return rules[e->op](b, e);
}

static qv_status bind_node(qve_binder *b, qv_expr **slot) {
  qv_expr *e = *slot;
  if (!e) return qve_bind_error(b, QV_ERR_INVALID, 0, "missing expression node");
  if (++b->depth > BIND_MAX_DEPTH) {
    b->depth--;
    return qve_bind_error(b, QV_ERR_INVALID, e->pos, "expression nested too deeply (limit %d)", BIND_MAX_DEPTH);
  }
  qv_status st = QV_OK;
  switch (e->kind) {
    case QV_EXPR_COLUMN: st = bind_column(b, e); break;
    case QV_EXPR_LITERAL: st = qve_bind_set_type(b, e, &e->value.type); break;
    case QV_EXPR_CALL: st = bind_call(b, e); break;
  }
  b->depth--;
  return st;
}

qv_status qv_expr_bind(qv_expr *e, const qv_schema *schema, qv_error *err) {
  if (!e || !schema) return qv_error_set(err, QV_ERR_INVALID, "filter: nothing to bind");
  qve_binder b = {schema, err, 0};
  qv_expr *root = e;
  qv_status st = bind_node(&b, &root);
  if (st == QV_ERR_TYPE && qve_bind_is_polars(root)) qve_bind_polars_hint(&b, root);
  /* Casts wrap operands, never the root, so the caller's pointer holds. */
  return st;
}
