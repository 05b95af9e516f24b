/* Cypher values as text: the TCK's notation for results (qvg_val_render)
 * and the float spelling toString shares (qvg_format_float).
 *
 * Floats follow the TCK's expected results (expressions/literals/
 * Literals5.feature): the shortest digits that read back exactly, plain
 * decimal for 1e-6 <= |f| < 1e21 with at least one digit after the point
 * ("1.0", "1000000000.0", "0.000001"), otherwise d[.ddd]e[-]N without a
 * '+' ("1e308", "1.2635418652381264e305", "1e-305"); -0.0 as "0.0". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/cypher_value_int.h"
#include "graph/gstore.h"

void qvg_format_float(double f, qvb_text *out) {
  if (isnan(f)) {
    qvb_text_s(out, "NaN");
    return;
  }
  if (isinf(f)) {
    qvb_text_s(out, f < 0 ? "-Infinity" : "Infinity");
    return;
  }
  if (f == 0) {
    qvb_text_s(out, "0.0"); /* -0.0 too: the TCK's `RETURN -0.0` is 0.0, and encodings erase the sign */
    return;
  }
  char buf[40];
  for (int p = 0; p < 17; p++) {
    snprintf(buf, sizeof buf, "%.*e", p, f);
    if (strtod(buf, NULL) == f) break;
  }
  /* buf: [-]d[.ddd]e[+-]NN -> sign, digits, exponent */
  const char *s = buf;
  bool neg = *s == '-';
  if (neg) s++;
  char digits[24];
  int nd = 0;
  for (; *s && *s != 'e'; s++)
    if (*s != '.') digits[nd++] = *s;
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  int e = atoi(s + 1); /* value = d.ddd * 10^e */
  if (neg) qvb_text_s(out, "-");
  if (e >= -6 && e < 21) {
    if (e < 0) {
      qvb_text_s(out, "0.");
      for (int i = 0; i < -e - 1; i++) qvb_text_s(out, "0");
      qvb_text_add(out, digits, (size_t)nd);
    } else {
      int ip = e + 1; /* digits before the point */
      for (int i = 0; i < ip; i++) qvb_text_add(out, i < nd ? &digits[i] : "0", 1);
      qvb_text_s(out, ".");
      if (nd > ip) qvb_text_add(out, digits + ip, (size_t)(nd - ip));
      else qvb_text_s(out, "0");
    }
    return;
  }
  qvb_text_add(out, digits, 1);
  if (nd > 1) {
    qvb_text_s(out, ".");
    qvb_text_add(out, digits + 1, (size_t)(nd - 1));
  }
  qvb_text_f(out, "e%d", e);
}

static void render_string(const char *s, int32_t n, qvb_text *out) {
  qvb_text_s(out, "'");
  int32_t from = 0;
  for (int32_t i = 0; i < n; i++)
    if (s[i] == '\'' || s[i] == '\\') {
      qvb_text_add(out, s + from, (size_t)(i - from));
      qvb_text_s(out, "\\");
      from = i;
    }
  qvb_text_add(out, s + from, (size_t)(n - from));
  qvb_text_s(out, "'");
}

static qv_status render(const qvg_val *v, const qvg_store *st, qvg_arena *a, qvb_text *out, int depth, qv_error *err);

static qv_status render_props(const qvg_val *props, const qvg_store *st, qvg_arena *a, bool space, qvb_text *out,
                              int depth, qv_error *err) {
  if (props->t != QVG_V_MAP || props->n == 0) return QV_OK;
  if (space) qvb_text_s(out, " ");
  return render(props, st, a, out, depth, err);
}

static qv_status render_node(int64_t id, const qvg_store *st, qvg_arena *a, qvb_text *out, int depth, qv_error *err) {
  if (!st) {
    qvb_text_f(out, "(#%lld)", (long long)id);
    return QV_OK;
  }
  qvb_text_s(out, "(");
  int32_t labels[64];
  int32_t n = qvg_store_node_labels(st, id, labels, 64);
  for (int32_t i = 0; i < n && i < 64; i++)
    if (labels[i] >= 0 && labels[i] < st->n_labels) qvb_text_f(out, ":%s", st->labels[labels[i]]);
  qvg_val props;
  QV_RETURN_NOT_OK(qvg_store_node_props(st, id, a, &props, err));
  QV_RETURN_NOT_OK(render_props(&props, st, a, n > 0, out, depth, err));
  qvb_text_s(out, ")");
  return QV_OK;
}

static qv_status render_rel(int64_t id, const qvg_store *st, qvg_arena *a, qvb_text *out, int depth, qv_error *err) {
  if (!st) {
    qvb_text_f(out, "[#%lld]", (long long)id);
    return QV_OK;
  }
  qvb_text_s(out, "[");
  int32_t t = qvg_store_rel_type(st, id);
  if (t >= 0 && t < st->n_types) qvb_text_f(out, ":%s", st->types[t]);
  qvg_val props;
  QV_RETURN_NOT_OK(qvg_store_rel_props(st, id, a, &props, err));
  QV_RETURN_NOT_OK(render_props(&props, st, a, t >= 0, out, depth, err));
  qvb_text_s(out, "]");
  return QV_OK;
}

static qv_status render(const qvg_val *v, const qvg_store *st, qvg_arena *a, qvb_text *out, int depth, qv_error *err) {
  if (depth > QVG_VAL_MAX_DEPTH)
    return qv_error_set(err, QV_ERR_INVALID, "cypher: value nested deeper than %d levels", QVG_VAL_MAX_DEPTH);
  switch (v->t) {
    case QVG_V_NULL: qvb_text_s(out, "null"); break;
    case QVG_V_BOOL: qvb_text_s(out, v->u.b ? "true" : "false"); break;
    case QVG_V_INT: qvb_text_f(out, "%lld", (long long)v->u.i); break;
    case QVG_V_FLOAT: qvg_format_float(v->u.f, out); break;
    case QVG_V_STRING: render_string(v->u.s, v->n, out); break;
    case QVG_V_LIST:
      qvb_text_s(out, "[");
      for (int32_t i = 0; i < v->n; i++) {
        if (i) qvb_text_s(out, ", ");
        QV_RETURN_NOT_OK(render(&v->u.l[i], st, a, out, depth + 1, err));
      }
      qvb_text_s(out, "]");
      break;
    case QVG_V_MAP:
      qvb_text_s(out, "{");
      for (int32_t i = 0; i < v->n; i++) {
        if (i) qvb_text_s(out, ", ");
        qvb_text_add(out, v->u.m[i].key, (size_t)v->u.m[i].klen);
        qvb_text_s(out, ": ");
        QV_RETURN_NOT_OK(render(&v->u.m[i].v, st, a, out, depth + 1, err));
      }
      qvb_text_s(out, "}");
      break;
    case QVG_V_NODE: return render_node(v->u.i, st, a, out, depth + 1, err);
    case QVG_V_REL: return render_rel(v->u.i, st, a, out, depth + 1, err);
    case QVG_V_PATH:
      qvb_text_s(out, "<");
      for (int32_t i = 0; i < v->n; i++) {
        const qvg_val *x = &v->u.l[i];
        if (x->t == QVG_V_NODE) {
          QV_RETURN_NOT_OK(render_node(x->u.i, st, a, out, depth + 1, err));
          continue;
        }
        /* the arrow points the way the relationship does, relative to the
         * node before it on the path */
        bool fwd = !st || i == 0 || qvg_store_rel_src(st, x->u.i) == v->u.l[i - 1].u.i;
        qvb_text_s(out, fwd ? "-" : "<-");
        QV_RETURN_NOT_OK(render_rel(x->u.i, st, a, out, depth + 1, err));
        qvb_text_s(out, fwd ? "->" : "-");
      }
      qvb_text_s(out, ">");
      break;
    default: return qv_error_set(err, QV_ERR_INVALID, "cypher: value of unknown type %d", (int)v->t);
  }
  return QV_OK;
}

qv_status qvg_val_render(const qvg_val *v, const qvg_store *st, qvb_text *out, qv_error *err) {
  /* properties of nodes and rels need a place to live while printed */
  qvg_arena a = QVG_ARENA_INIT;
  qv_status s = render(v, st, &a, out, 0, err);
  qvg_arena_free(&a);
  if (s == QV_OK && out->oom) s = qv_error_nomem(err, "cypher: rendering a value");
  return s;
}
