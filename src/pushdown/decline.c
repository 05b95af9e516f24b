/* The pieces both translators spell the same way: a decline's explain
 * line and a comparison's operator. */
#include <stdio.h>
#include <string.h>

#include "expr/op_info.h"
#include "pushdown/pushdown_int.h"

const char *qvp_pd_node_name(const qv_expr *e) {
  if (e->kind == QV_EXPR_COLUMN) return "column";
  if (e->kind == QV_EXPR_LITERAL) return "literal";
  if (e->op == QV_OP_UNKNOWN && e->name) return e->name;
  return qv_op_name(e->op);
}

bool qvp_pd_vdecline(qvb_text *why, bool *oom, const qv_expr *e, bool show_tree, size_t clip, const char *fmt,
                     va_list ap) {
  char reason[400];
  vsnprintf(reason, sizeof reason, fmt, ap);
  if (!show_tree) {
    qvb_text_f(why, "declined %s: %s\n", qvp_pd_node_name(e), reason);
    return false;
  }
  char *text = qv_expr_to_string(e);
  if (!text) *oom = true;
  qvb_text_f(why, "declined %s", qvp_pd_node_name(e));
  if (e->pos > 0) qvb_text_f(why, " at column %d", (int)e->pos);
  qvb_text_s(why, ": ");
  qvb_text_s(why, reason);
  qvb_text_s(why, " [");
  if (text && clip > 0 && strlen(text) > clip) {
    qvb_text_add(why, text, clip);
    qvb_text_s(why, "...");
  } else {
    qvb_text_s(why, text ? text : "?");
  }
  qvb_text_s(why, "]\n");
  qv_free(text);
  return false;
}

const char *qvp_pd_cmp_sql(qv_op op) {
  if (!qve_op_is_compare(op) && op != QV_OP_EQ_MISSING && op != QV_OP_NE_MISSING) return "?";
  return qve_op_infix(op);
}
