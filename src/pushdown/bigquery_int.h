/* Internals shared by the BigQuery translator's files: bigquery.c (the
 * tree walk: contexts, AND/OR/NOT, when/then, functions), bigquery_literal.c
 * (literals, bounds, string escaping, column names, is_in lists) and
 * bigquery_regex.c (which Polars regexes mean the same under RE2). */
#ifndef QUIVER_PUSHDOWN_BIGQUERY_INT_H
#define QUIVER_PUSHDOWN_BIGQUERY_INT_H

#include <stdbool.h>

#include "base/text.h"
#include "quiver/pushdown.h"

/* The Storage Read API's limits (and the reference translator's). */
#define QV_BQ_MAX_NODES 10000      /* expression nodes compiled as a whole */
#define QV_BQ_MAX_DEPTH 400        /* levels below which a subtree degrades (bounds recursion) */
#define QV_BQ_MAX_SQL 1000000      /* bytes of row_restriction ("1 MB") */
#define QV_BQ_MAX_IN_VALUES 10000  /* values of one is_in list */
#define QV_BQ_MAX_IN_IPC (1 << 20) /* bytes of that list as an Arrow IPC stream */
#define QV_BQ_MAX_NAME_CHARS 300   /* characters of a column name */

/* Writes a literal's GoogleSQL spelling to o.  false (o untouched) with
 * *why set to a static reason when it has none with Polars' meaning: NULL
 * (callers that allow NULL check first), NaN/inf, unsigned above int64,
 * dates and timestamps outside BigQuery's range, units other than ms/us
 * (and ns divisible by 1000), decimals, binary, time, duration. */
bool qvp_bq_literal(const qv_scalar *v, qvb_text *o, const char **why);
/* A single-quoted string literal with \ ' \n \r \t and other control
 * characters escaped. */
void qvp_bq_string(const uint8_t *s, int64_t n, qvb_text *o);
/* A finite double as Python's repr() spells it (the reference's spelling). */
void qvp_bq_double(double v, char *buf, size_t size);

/* Checks a column name against BigQuery's standard and flexible column
 * name rules; QV_ERR_INVALID naming the offending character otherwise. */
qv_status qvp_bq_check_name(const char *name, qv_error *err);

/* is_in items args[from..n): a non-empty homogeneous list of at most
 * QV_BQ_MAX_IN_VALUES non-null, non-NaN literals that serializes to at
 * most QV_BQ_MAX_IN_IPC bytes as an Arrow IPC stream.  Writes
 * "v1, v2, ..." to o, or returns false with a reason in why (a buffer of
 * why_size bytes).  *oom is set on allocation failure. */
bool qvp_bq_in_items(const qv_expr *const *items, int32_t n, qvb_text *o, char *why, size_t why_size, bool *oom);

/* NULL when Polars (Rust regex) and BigQuery (RE2) read the pattern the
 * same way; else a static reason. */
const char *qvp_bq_regex_incompatible(const char *pattern, size_t n);

/* ---- the translator (bigquery.c, bigquery_restriction.c) --------------- */

/* One translation's context. */
typedef struct qvp_bq {
  const qv_schema *schema;
  qvb_text why; /* explain lines */
  bool oom;
  const qv_expr **over; /* nodes degraded by the budget, sorted by address */
  int32_t n_over;
} qvp_bq;

/* A translated piece: its SQL, whether it is exact, and the top-level
 * conjuncts it needs ((x IS NOT NULL) for x.drop_nulls()). */
typedef struct qvp_bq_res {
  qvb_text sql;
  bool exact;
  char **extra;
  int32_t n_extra, cap_extra;
} qvp_bq_res;

void qvp_bq_res_free(qvp_bq_res *r);
/* Adds src's extra conjuncts to dst (each once). */
void qvp_bq_take_extras(qvp_bq *t, qvp_bq_res *dst, qvp_bq_res *src);
/* e was degraded by the budget. */
bool qvp_bq_is_over(const qvp_bq *t, const qv_expr *e);
/* e's type is known and is not boolean (Polars' & | ~ are then bitwise). */
bool qvp_bq_known_non_bool(const qvp_bq *t, const qv_expr *e);
/* e (or NOT e when neg) in filter context: r keeps at least Polars' rows,
 * r->exact when exactly them; false (reasons in t->why) when nothing
 * translates. */
bool qvp_bq_pos(qvp_bq *t, const qv_expr *e, bool neg, qvp_bq_res *r);

#endif
