/* Internals shared by the pushdown translators (lance.c, bigquery.c):
 * the explain line of a node that declines, and the SQL spelling of a
 * comparison.  What each target lowers an operator to is its own column
 * of expr/ops.def. */
#ifndef QUIVER_PUSHDOWN_PUSHDOWN_INT_H
#define QUIVER_PUSHDOWN_PUSHDOWN_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/text.h"
#include "quiver/expr.h"

/* How a declining node is named in explain output: "column", "literal",
 * the Polars name of an unknown construct, or the operator's name. */
const char *qvp_pd_node_name(const qv_expr *e);

/* Appends "declined <node>[ at column N]: <reason> [<tree>]\n" to why,
 * the reason formatted from fmt (at most 399 bytes kept).  The tree is
 * e printed by qv_expr_to_string, cut to clip bytes and "..." when clip
 * is not 0 and it is longer; without show_tree the line is only
 * "declined <node>: <reason>\n" (for subtrees too big to print).  Sets
 * *oom when the tree could not be printed ("?" stands in).  Returns false
 * so that callers can `return decline(...)`. */
bool qvp_pd_vdecline(qvb_text *why, bool *oom, const qv_expr *e, bool show_tree, size_t clip, const char *fmt,
                     va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 0)))
#endif
    ;

/* "=", "!=", "<", "<=", ">", ">=", "IS NOT DISTINCT FROM" (eq_missing),
 * "IS DISTINCT FROM" (ne_missing); "?" for any other op. */
const char *qvp_pd_cmp_sql(qv_op op);

#endif
