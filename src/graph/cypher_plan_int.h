/* The Cypher planner's internals, shared by cypher_bind.c (expressions:
 * syntax tree -> qvg_cx against a scope), the planner's files (clauses and
 * patterns -> operators: cypher_plan.c the scope and the query,
 * cypher_plan_match.c MATCH, cypher_plan_project.c WITH / RETURN / UNWIND,
 * cypher_plan_sub.c subqueries, cypher_plan_create.c CREATE) and
 * cypher_query.c (the public entry points).
 *
 * Planning walks the clauses in order, keeping a scope: the plan built so
 * far (an operator tree), the kinds of its columns, and the variables
 * visible at that point, each the name of one of its columns (a path
 * variable is an expression over columns instead).  Everything the plan
 * needs while it runs (compiled expressions, names, kinds) lives in the
 * planner's arena, which the query's reader frees after the plan. */
#ifndef QUIVER_GRAPH_CYPHER_PLAN_INT_H
#define QUIVER_GRAPH_CYPHER_PLAN_INT_H

#include "graph/cypher_ops.h"

/* Prefix of the columns the planner adds for itself ("#1", "#2", ...):
 * no unquoted Cypher name starts with '#', and RETURN * leaves them out. */
#define QVG_HIDDEN "#"
/* The upper bound of a variable-length hop written without one (`*`,
 * `*2..`), the same for the CSR and the hash-join plan (docs/cypher.md). */
#define QVG_VARLEN_DEFAULT_MAX 15

typedef struct qvg_pvar {
  const char *name;
  const char *col; /* its column's name; NULL for a path variable */
  /* A path variable: its elements' columns (node, rel or rel list, node,
   * ...) and each hop's direction as written (QVG_DIR_*), compiled into a
   * QVG_CX_PATH where it is used. */
  const char **path_cols;
  int32_t n_path;
  const uint8_t *path_dirs;
  int32_t label;   /* a label the variable is known to have (-1), for property checks */
  qv_type_id type; /* what its values are known to be (QV_TYPE_NULL: unknown), for typed results */
} qvg_pvar;

typedef struct qvg_scope {
  qv_exec_op *op; /* owned while planning; NULL before the first clause */
  int32_t n_cols;
  qvg_colkind *kinds; /* per column of op */
  const char **names; /* per column of op (or of the operator about to be made) */
  int32_t n_vars;
  qvg_pvar *vars;
} qvg_scope;

typedef struct qvg_bound_expr {
  const qvg_node *ast; /* an aggregate call, a pattern predicate, ... */
  const char *col;     /* the column that holds its value */
} qvg_bound_expr;

/* Something to release with the plan (subplan arguments' arenas). */
typedef struct qvg_cleanup {
  void (*fn)(void *arg);
  void *arg;
  struct qvg_cleanup *next;
} qvg_cleanup;

typedef struct qvg_planner {
  qvg_store *st;
  qv_exec_ctx *ctx;
  qvg_arena *arena; /* where plan-lifetime things go */
  bool use_csr;
  /* parameters */
  int32_t n_params;
  const char **param_names;
  qvg_val *param_values;
  /* expressions already computed into columns */
  int32_t n_bound, cap_bound;
  qvg_bound_expr *bound; /* qv_malloc'd (it outlives the arenas of subplans) */
  /* after grouping: the grouping keys' expressions by their canonical text
   * (qvg_cypher_print), so that `a.name` inside an aggregate item or an
   * ORDER BY reads the key column; borrowed, n_key_texts 0 otherwise */
  int32_t n_key_texts;
  char **key_texts;
  const char **key_cols;
  /* comprehension variables visible while compiling */
  int32_t n_locals, max_locals;
  const char *locals[QVG_CYPHER_MAX_DEPTH];
  int64_t hidden; /* counter for hidden names */
  /* the expressions of the clauses after the one being planned (column
   * pruning), NULL when unknown (inside a subquery) */
  const qvg_node *const *rest;
  int32_t n_rest;
  /* pattern elements' estimated selectivities (qvg_estimate_elem_sel),
   * kept for the plan's life: a subquery is planned again per input batch
   * and must not read statistics each time (qv_malloc'd) */
  struct qvg_sel_memo {
    const qvg_node *el;
    double sel;
  } * sel_memo;
  int32_t n_sel_memo, cap_sel_memo;
  qvg_cleanup *cleanups;
  qv_error *err;
} qvg_planner;

/* Runs fn(arg) when the plan is released (LIFO); QV_ERR_NOMEM if it
 * cannot be recorded (fn is then run at once). */
qv_status qvg_plan_on_release(qvg_planner *p, void (*fn)(void *), void *arg);
/* Runs and forgets the cleanups, frees the bound list. */
void qvg_planner_release(qvg_planner *p);

/* ---- cypher_bind.c ---- */

/* "#N": a fresh hidden column name (arena). */
const char *qvg_hidden_name(qvg_planner *p);
char *qvg_pstrdup(qvg_planner *p, const char *s, size_t n);
/* " (did you mean `x`?)" for the candidate closest to name, or "" (in buf). */
const char *qvg_suggest(const char *name, const char *const *cands, int32_t n, char *buf, size_t size);
/* Fails with QV_ERR_INVALID "cypher: MESSAGE at line L, column C". */
qv_status qvg_plan_fail(qvg_planner *p, const qvg_node *at, qv_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* The variable named name in the scope, or NULL. */
const qvg_pvar *qvg_scope_var(const qvg_scope *s, const char *name);
/* Column index of name in the scope's operator, or -1. */
int32_t qvg_scope_col(const qvg_scope *s, const char *name);

/* A zeroed expression node of kind with n_kids (NULL) children, in the
 * planner's arena; NULL when memory ran out. */
qvg_cx *qvg_cx_new(qvg_planner *p, int kind, const qvg_node *at, int32_t n_kids);
/* Compiles an expression against the scope.  Aggregates and pattern
 * predicates must already be in p->bound (else: "aggregate not allowed
 * here" / planned by the caller first). */
qv_status qvg_compile(qvg_planner *p, const qvg_scope *s, const qvg_node *e, qvg_cx **out);
/* A constant expression (literals, parameters, arithmetic on them)
 * evaluated now. */
qv_status qvg_eval_const(qvg_planner *p, const qvg_node *e, qvg_val *out);
/* Whether e contains an aggregate call (not looking into nested
 * subqueries). */
bool qvg_has_aggregate(const qvg_node *e);
/* Whether e is an aggregate call itself. */
bool qvg_is_agg_call(const qvg_node *e);
/* Adds the variable names e reads (QVG_VAR, not comprehension-local) to
 * names[0..*n) (up to cap). */
void qvg_vars_of(const qvg_node *e, const char **names, int32_t *n, int32_t cap);
/* Registers ast as computed in column col. */
qv_status qvg_bind_expr(qvg_planner *p, const qvg_node *ast, const char *col);
/* The static result type of e if the binder can prove it (QV_TYPE_NULL
 * otherwise): for typed result columns. */
qv_type_id qvg_static_type(qvg_planner *p, const qvg_scope *s, const qvg_node *e);

/* ---- cypher_check.c ---- */

/* The compile-time semantic checks of a parsed query (undefined variables,
 * variable kind conflicts, misplaced aggregates and patterns, statically
 * known argument types), before planning: QV_ERR_INVALID (QV_ERR_TYPE for
 * a property of a value that has none) with "cypher: MESSAGE at line L,
 * column C"; QV_OK when nothing is certainly wrong. */
qv_status qvg_cypher_check(const qvg_node *root, qv_error *err);

/* ---- cypher_plan.c: the scope ---- */

#define QVG_NOMEM(p) qv_error_nomem((p)->err, "cypher planner")
/* The most columns one operator the planner makes may have. */
#define QVG_MAX_COLS 512

/* Takes op as the scope's plan: its first s->n_cols columns keep their
 * kinds, the rest get add[0..n_add).  Destroys op on failure. */
qv_status qvg_adopt(qvg_planner *p, qvg_scope *s, qv_exec_op *op, const qvg_colkind *add, int32_t n_add);
/* The same with every column's kind from k (VALUE past n). */
qv_status qvg_adopt_all(qvg_planner *p, qvg_scope *s, qv_exec_op *op, const qvg_colkind *k, int32_t n);
/* Adds a variable (name held in column col, known label or -1). */
qv_status qvg_add_var(qvg_planner *p, qvg_scope *s, const char *name, const char *col, int32_t label);
/* Whether a variable or column is one the planner made ("#N"). */
bool qvg_is_hidden(const char *name);
/* A one-row plan when the scope has none yet (a query starting with
 * RETURN, UNWIND, ...). */
qv_status qvg_ensure_op(qvg_planner *p, qvg_scope *s);
/* CypherFilterExec of pred over the scope's plan. */
qv_status qvg_add_filter(qvg_planner *p, qvg_scope *s, const qvg_cx *pred);
/* Appends columns computed by exprs (names, modes) to the scope's plan. */
qv_status qvg_add_eval(qvg_planner *p, qvg_scope *s, const qvg_cx *const *exprs, const char *const *names,
                       const qvg_out_mode *modes, int32_t n);
qv_status qvg_add_eval1(qvg_planner *p, qvg_scope *s, const qvg_cx *e, const char *name, qvg_out_mode m);
/* The scope's plan replaced by exactly the columns exprs compute. */
qv_status qvg_eval_only(qvg_planner *p, qvg_scope *s, const qvg_cx *const *exprs, const char *const *names,
                        const qvg_out_mode *modes, int32_t n);
/* The scope's plan projected to the columns cols renamed to names. */
qv_status qvg_select_cols(qvg_planner *p, qvg_scope *s, const char *const *cols, const char *const *names, int32_t n);
/* DISTINCT over every column of the scope's plan. */
qv_status qvg_add_distinct(qvg_planner *p, qvg_scope *s);
/* SKIP sk, LIMIT lim (-1: none) over the scope's plan. */
qv_status qvg_add_limit(qvg_planner *p, qvg_scope *s, int64_t sk, int64_t lim);

/* Small expression builders (planner's arena; NULL when memory ran out,
 * or when given a NULL operand; cx_bin of one NULL operand is the other). */
qvg_cx *qvg_cx_col(qvg_planner *p, int32_t col);
qvg_cx *qvg_cx_lit(qvg_planner *p, qvg_val v);
qvg_cx *qvg_cx_bin(qvg_planner *p, int kind, qvg_cx *a, qvg_cx *b);
qvg_cx *qvg_cx_not(qvg_planner *p, qvg_cx *a);
qvg_cx *qvg_cx_cmp(qvg_planner *p, const uint8_t *op, qvg_cx *a, qvg_cx *b);
extern const uint8_t qvg_cmp_eq[1], qvg_cmp_ne[1]; /* ops for qvg_cx_cmp */
/* {k: v, ...} of a pattern element as "col.k = v AND ..." (NULL: none). */
qv_status qvg_props_cx(qvg_planner *p, const qvg_scope *s, const char *col, const qvg_node *props, qvg_cx **out);
/* The same without the entries whose bit is set in skip (entry i: bit i). */
qv_status qvg_props_cx_skip(qvg_planner *p, const qvg_scope *s, const char *col, const qvg_node *props, uint64_t skip,
                            qvg_cx **out);
/* The labels of a node pattern from index `from` on, as a LABELS test of col. */
qv_status qvg_labels_cx(qvg_planner *p, const qvg_scope *s, const char *col, const qvg_node *labels, int32_t from,
                        qvg_cx **out);

/* ---- cypher_plan_sub.c ---- */

/* Plans an ApplyExec over the scope's plan.  OPTIONAL: the scope becomes
 * the subplan's (its new variables and columns); other modes add one
 * VALUE column, whose name goes to *out_col. */
qv_status qvg_plan_apply(qvg_planner *p, qvg_scope *s, qvg_apply_mode mode, const qvg_node *const *paths,
                         int32_t n_paths, const qvg_node *where, const qvg_node *proj, const char **out_col);
/* Whether e holds a subquery (pattern predicate, EXISTS, COUNT, pattern
 * comprehension). */
bool qvg_has_subquery(const qvg_node *e);
/* qvg_compile after planning the subqueries e holds as ApplyExecs. */
qv_status qvg_compile_full(qvg_planner *p, qvg_scope *s, const qvg_node *e, qvg_cx **out);

/* ---- the logical MATCH (cypher_plan_logical.c, cypher_plan_rules.c) ----
 *
 * Before a MATCH becomes operators it is a pattern graph: its paths'
 * elements, the WHERE's conjuncts with the variables each reads, and the
 * steps the lowering will take (a start per path, then its hops outwards).
 * Rewrite rules, each a function of its own, decide on it: where a path
 * starts (by estimated cardinality), where each conjunct runs, which
 * conjuncts the dataset scanner can evaluate, which properties later
 * expressions read.  cypher_plan_match.c then lowers it to the physical
 * operators, doing what the rules decided. */

#define QVG_MAX_CONJ 128
#define QVG_MAX_CONJ_VARS 32

/* Where a conjunct runs. */
typedef enum qvg_conj_at {
  QVG_AT_NONE = 0, /* not placed yet */
  QVG_AT_SCAN,     /* the start's own filter (reads only the scanned node) */
  QVG_AT_TARGET,   /* inside a hop: on the new node (maybe with bound variables) */
  QVG_AT_EDGE,     /* inside a hop: on the new relationship alone */
  QVG_AT_AFTER,    /* a CypherFilterExec right after its step */
  QVG_AT_END       /* after the whole MATCH (reads variables from nowhere: compile errors name them) */
} qvg_conj_at;

typedef struct qvg_lconj {
  const qvg_node *e;
  const char *vars[QVG_MAX_CONJ_VARS];
  int32_t n_vars;
  bool sub; /* holds a subquery: never inside a scan or hop */
  qvg_conj_at at;
  int32_t step; /* the step it runs at (QVG_AT_END: none) */
  int32_t seq;  /* placement order: conjuncts of one place are ANDed in it */
  bool pushed;  /* evaluated by the dataset scanner (at == QVG_AT_SCAN) */
  bool done;    /* lowering: compiled */
} qvg_lconj;

typedef enum qvg_step_kind {
  QVG_STEP_SCAN,  /* a path starts at a node not bound: NodeScanExec of its label */
  QVG_STEP_BOUND, /* a path starts at a bound node */
  QVG_STEP_HOP    /* a hop from a bound node over one relationship pattern */
} qvg_step_kind;

typedef struct qvg_lstep {
  qvg_step_kind kind;
  int32_t path;
  int32_t node;                   /* SCAN / BOUND: the element; HOP: the element reached */
  int32_t rel;                    /* HOP: the relationship element; -1 otherwise */
  int32_t from;                   /* HOP: the element it leaves */
  bool reverse;                   /* HOP: walked against the pattern's order */
  bool into;                      /* HOP: the element reached is bound already */
  bool varlen;                    /* HOP: a *lo..hi relationship */
  bool checks;                    /* the lowering filters the conjuncts ready after it */
  const char *node_var, *rel_var; /* the variables it binds (NULL: anonymous or bound before) */
  /* estimates: rows out of the step, and what made them */
  double rows, fanout, sel;
  /* SCAN: what the dataset scanner takes (qv_expr IR, owned; NULL: none):
   * its property map entries (a bit per entry) and conjuncts (pushed) */
  qv_expr *pushed;
  uint64_t pushed_entries;
  /* SCAN: the start's unique id equals a constant: the node index finds
   * the one node (the other filters stay a CypherFilterExec on it) */
  bool by_id;
  int64_t id;
} qvg_lstep;

typedef struct qvg_lpath {
  const qvg_node *ast; /* QVG_PATH */
  int32_t root;        /* the element the lowering starts at */
  int32_t first_step, n_steps;
  /* the root rule's estimates: the cost (rows made over the path's steps)
   * of starting at each node element, and of the label-size rule's choice */
  double *costs; /* per element (odd ones unused), planner's arena */
  int32_t size_root;
  bool decided; /* the estimates chose another root than label sizes would */
} qvg_lpath;

typedef struct qvg_lmatch {
  int32_t n_paths;
  qvg_lpath *paths;
  int32_t n_steps;
  qvg_lstep *steps;
  int32_t n_conj;
  qvg_lconj conj[QVG_MAX_CONJ];
  /* column pruning: per variable of the MATCH, the property keys later
   * expressions read (all: it is used whole) */
  int32_t n_reads;
  struct qvg_lreads {
    const char *var;
    bool whole;
    int32_t n_keys;
    const char *keys[16];
  } reads[64];
  /* lowering: the relationship columns bound so far (uniqueness) */
  const char *rels[QVG_MAX_COLS];
  int32_t n_rels;
} qvg_lmatch;

/* Builds the logical MATCH over the scope: paths and the WHERE's
 * conjuncts (cypher_plan_logical.c).  *out is qv_calloc'd: free with
 * qvg_lmatch_free. */
qv_status qvg_lmatch_build(qvg_planner *p, const qvg_scope *s, const qvg_node *const *paths, int32_t n_paths,
                           const qvg_node *where, qvg_lmatch **out);
void qvg_lmatch_free(qvg_lmatch *m);
/* The keys of var that later expressions read (prune_columns), or -1
 * when it is used whole. */
int32_t qvg_lmatch_reads(const qvg_lmatch *m, const char *var, const char *const **keys);
/* Whether var is bound once step k is done (-1: before the first): the
 * scope's, or bound by a step up to k, or a path variable whose path ended
 * before step k. */
bool qvg_lmatch_bound(const qvg_planner *p, const qvg_scope *s, const qvg_lmatch *m, int32_t k, const char *var);
/* The path element (QVG_NODE / QVG_REL) of a step's path. */
const qvg_node *qvg_lmatch_elem(const qvg_lmatch *m, int32_t path, int32_t i);

/* The rewrite rules (cypher_plan_rules.c), run in this order by
 * qvg_lmatch_plan. */
qv_status qvg_rule_choose_roots(qvg_planner *p, const qvg_scope *s, qvg_lmatch *m);
qv_status qvg_rule_place_conjuncts(qvg_planner *p, const qvg_scope *s, qvg_lmatch *m);
qv_status qvg_rule_push_scan_filters(qvg_planner *p, const qvg_scope *s, qvg_lmatch *m);
qv_status qvg_rule_prune_columns(qvg_planner *p, const qvg_scope *s, qvg_lmatch *m);
/* Every rule over m. */
qv_status qvg_lmatch_plan(qvg_planner *p, const qvg_scope *s, qvg_lmatch *m);

/* ---- estimates (cypher_plan_estimate.c) ---- */

/* Nodes with the pattern element's label (every node without one; 0 for
 * a label the store does not have). */
double qvg_estimate_nodes(qvg_planner *p, const qvg_node *el);
/* The share of those nodes the element's own filters keep: its property
 * map and the conjuncts of m reading only its variable.  A unique id equal
 * to a constant keeps one node; other conjuncts the dataset's scalar
 * indices (their value counts) and page statistics estimate where they
 * can; the rest count a fixed selectivity (docs/cypher.md). */
double qvg_estimate_own_sel(qvg_planner *p, const qvg_lmatch *m, const qvg_node *el);
/* The same for element i of path j, computed once per plan (estimates
 * may read index and page statistics). */
double qvg_estimate_elem_sel(qvg_planner *p, qvg_lmatch *m, int32_t j, int32_t i);
/* Expected relationships per node over the hop rel traversed in direction
 * dir (QVG_DIR_*): relationships / distinct nodes they leave, summed over
 * its types (the CSR's offsets). */
double qvg_estimate_fanout(qvg_planner *p, const qvg_node *rel, int dir);
/* The share of a hop's far ends that have the labels of the node pattern
 * to (1 over datasets when the type's far end has the label). */
double qvg_estimate_label_frac(qvg_planner *p, const qvg_node *rel, int dir, const qvg_node *to);

/* ---- pushdown into the dataset scanner (cypher_plan_push.c) ---- */

/* The conjunct e (reading only the node variable var of label `label`)
 * as quiver's expression IR over the label's dataset columns, when the
 * translation is exact under Cypher's semantics (see the file); NULL when
 * it is not (or memory ran out: then *err_st is set). */
qv_expr *qvg_push_translate(qvg_planner *p, const qvg_node *e, const char *var, int32_t label, qv_status *err_st);
/* The property map entry `key: value` of a node pattern as `key = value`
 * in the IR, or NULL as qvg_push_translate. */
qv_expr *qvg_push_translate_entry(qvg_planner *p, const qvg_node *entry, int32_t label, qv_status *err_st);

/* A constant of the syntax tree (a literal, a parameter, a negated
 * number) as a value. */
bool qvg_push_const(qvg_planner *p, const qvg_node *e, qvg_val *out);
/* Whether e is `var.<the label's id column> = an Integer constant` (either
 * way round): the node index answers it; *id the constant. */
bool qvg_push_id_equality(qvg_planner *p, const qvg_node *e, const char *var, int32_t label, int64_t *id);

/* ---- cypher_plan_match.c ---- */

/* MATCH paths WHERE where over the scope's plan. */
qv_status qvg_plan_match(qvg_planner *p, qvg_scope *s, const qvg_node *const *paths, int32_t n_paths,
                         const qvg_node *where);
/* The NODE column of the bound node variable var (a VALUE one, from
 * UNWIND or a list, gets a NODE column of its own). */
qv_status qvg_node_col(qvg_planner *p, qvg_scope *s, const char *var, const char **col);

/* ---- cypher_plan_project.c ---- */

/* WITH or RETURN.  On return the scope holds exactly the items (named by
 * their aliases); *types (nullable) gets each item's static type. */
qv_status qvg_plan_projection(qvg_planner *p, qvg_scope *s, const qvg_node *cl, bool is_return, qv_type_id **types);
qv_status qvg_plan_unwind(qvg_planner *p, qvg_scope *s, const qvg_node *cl);

/* ---- cypher_plan_create.c ---- */

qv_status qvg_plan_create(qvg_planner *p, qvg_scope *s, const qvg_node *cl);

/* ---- cypher_plan.c: the query ---- */

/* Plans a whole query (QVG_QUERY or QVG_UNION) into an operator tree
 * whose columns are the result's (user names, in order), *kinds their
 * kinds and *types the static types. */
qv_status qvg_plan_query(qvg_planner *p, const qvg_node *q, qv_exec_op **out, qvg_colkind **kinds, qv_type_id **types,
                         int32_t *n_cols);

#endif
