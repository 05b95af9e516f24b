/* The public Cypher entry points, qv_cypher_query and qv_cypher_explain:
 * parse, read the parameters, plan against the graph's store, and hand
 * back the plan as a batch stream.  A query object holds what the plan
 * needs while it runs (the syntax trees whose strings the compiled
 * expressions point into, the planner's arena, the exec context) and is
 * freed with the stream. */
#include <stdio.h>
#include <string.h>

#include "graph/cypher_plan_int.h"

typedef struct cy_query {
  qvg_ast *ast;
  qvg_ast **param_asts;
  int32_t n_param_asts;
  qvg_arena arena;
  qvg_planner p;
  qv_exec_ctx *ctx;
  qv_exec_op *root;       /* the ResultExec (owned by inner once the stream exists) */
  qv_batch_reader *inner; /* qv_exec_reader over root */
} cy_query;

static void query_free(cy_query *q) {
  if (!q) return;
  if (q->inner) qv_batch_reader_destroy(q->inner);
  else qv_exec_destroy(q->root);
  qvg_planner_release(&q->p);
  qvg_arena_free(&q->arena);
  for (int32_t i = 0; i < q->n_param_asts; i++) qvg_ast_destroy(q->param_asts[i]);
  qv_free(q->param_asts);
  qvg_ast_destroy(q->ast);
  qv_exec_ctx_release(q->ctx);
  qv_free(q);
}

/* Each parameter's text read as a Cypher expression and evaluated (it may
 * only hold literals: lists, maps, numbers, strings, ...). */
static qv_status read_params(cy_query *q, const qv_cypher_params *params, qv_error *err) {
  int32_t n = params ? params->n : 0;
  if (n <= 0) return QV_OK;
  q->param_asts = qv_calloc((size_t)n, sizeof *q->param_asts);
  q->p.param_names = qvg_arena_alloc(&q->arena, (size_t)n * sizeof *q->p.param_names);
  q->p.param_values = qvg_arena_alloc(&q->arena, (size_t)n * sizeof *q->p.param_values);
  if (!q->param_asts || !q->p.param_names || !q->p.param_values) return qv_error_nomem(err, "cypher parameters");
  for (int32_t i = 0; i < n; i++) {
    const char *name = params->names[i], *text = params->values[i];
    if (!name || !text) return qv_error_set(err, QV_ERR_INVALID, "cypher: parameter %d has no name or value", (int)i);
    size_t len = strlen(text);
    char *src = qv_malloc(len + 8);
    if (!src) return qv_error_nomem(err, "cypher parameters");
    memcpy(src, "RETURN ", 7);
    memcpy(src + 7, text, len + 1);
    qv_error perr;
    memset(&perr, 0, sizeof perr);
    qv_status st = qvg_cypher_parse(src, len + 7, &q->param_asts[i], &perr);
    qv_free(src);
    q->n_param_asts = i + 1;
    const qvg_node *root = st == QV_OK ? qvg_ast_root(q->param_asts[i]) : NULL;
    if (st == QV_OK && (root->kind != QVG_QUERY || root->n_kids != 1 || root->kids[0]->kind != QVG_RETURN ||
                        root->kids[0]->kids[0]->n_kids != 1))
      st = qv_error_set(&perr, QV_ERR_PARSE, "not one value");
    if (st != QV_OK)
      return qv_error_set(err, QV_ERR_INVALID, "cypher: parameter $%s: %s is not a Cypher value (%s)", name, text,
                          perr.message);
    q->p.param_names[i] = name;
    st = qvg_eval_const(&q->p, root->kids[0]->kids[0]->kids[0]->kids[0], &q->p.param_values[i]);
    if (st != QV_OK) return qv_error_prefix(err, st, "cypher: parameter $%s", name);
    q->p.n_params = i + 1;
  }
  return QV_OK;
}

static qv_status query_plan(qv_graph *g, const char *text, const qv_cypher_params *params,
                            const qv_cypher_options *opts, cy_query **out, qv_error *err) {
  *out = NULL;
  if (!g || !text) return qv_error_set(err, QV_ERR_INVALID, "cypher: no graph or no query");
  if (!g->store) return qv_error_set(err, QV_ERR_INVALID, "cypher: the graph has no store");
  qv_cypher_options o = QV_CYPHER_OPTIONS_INIT;
  if (opts && opts->version >= 2) o = *opts;
  else if (opts) { /* version 1 callers' struct ends before cancel */ o.use_csr = opts->use_csr;
    o.render_values = opts->render_values;
    o.memory_limit = opts->memory_limit;
    o.threads = opts->threads;
  }
  cy_query *q = qv_calloc(1, sizeof *q);
  if (!q) return qv_error_nomem(err, "cypher");
  q->arena = (qvg_arena)QVG_ARENA_INIT;
  q->p.st = g->store;
  q->p.arena = &q->arena;
  q->p.use_csr = o.use_csr;
  q->p.err = err;
  qv_exec_options eo = QV_EXEC_OPTIONS_INIT;
  eo.memory_limit = o.memory_limit;
  eo.threads = o.threads;
  eo.cancel = o.cancel;
  qv_status st = qv_exec_ctx_create(&eo, &q->ctx, err);
  if (st == QV_OK) {
    q->p.ctx = q->ctx;
    st = qvg_cypher_parse(text, strlen(text), &q->ast, err);
  }
  if (st == QV_OK) st = qvg_cypher_check(qvg_ast_root(q->ast), err);
  if (st == QV_OK) st = read_params(q, params, err);
  if (st == QV_OK) st = qvg_store_prepare(g->store, err);
  qv_exec_op *plan = NULL;
  qvg_colkind *kinds = NULL;
  qv_type_id *types = NULL;
  int32_t n = 0;
  if (st == QV_OK) st = qvg_plan_query(&q->p, qvg_ast_root(q->ast), &plan, &kinds, &types, &n);
  if (st == QV_OK) st = qvg_op_result(q->ctx, plan, g->store, kinds, types, o.render_values, &q->root, err);
  if (st != QV_OK) {
    query_free(q);
    return st;
  }
  *out = q;
  return QV_OK;
}

/* ---- the stream ---- */

static qv_status q_next(qv_batch_reader *r, qv_batch **out, qv_error *err) {
  cy_query *q = r->private_data;
  return q->inner->next(q->inner, out, err);
}
static const qv_schema *q_schema(qv_batch_reader *r) {
  cy_query *q = r->private_data;
  return q->inner->schema(q->inner);
}
static void q_destroy(qv_batch_reader *r) {
  if (!r) return;
  query_free(r->private_data);
  qv_free(r);
}

static qv_status make_stream(cy_query *q, qv_batch_reader **out, qv_error *err) {
  qv_batch_reader *r = qv_calloc(1, sizeof *r);
  if (!r) return qv_error_nomem(err, "cypher");
  qv_status st = qv_exec_reader(q->root, &q->inner, err);
  if (st != QV_OK) {
    q->root = NULL; /* the reader took it and destroyed it */
    qv_free(r);
    return st;
  }
  r->next = q_next;
  r->schema = q_schema;
  r->destroy = q_destroy;
  r->private_data = q;
  *out = r;
  return QV_OK;
}

qv_status qv_cypher_query(qv_graph *g, const char *text, const qv_cypher_params *params, const qv_cypher_options *opts,
                          qv_batch_reader **out, qv_error *err) {
  *out = NULL;
  cy_query *q;
  QV_RETURN_NOT_OK(query_plan(g, text, params, opts, &q, err));
  qv_status st = make_stream(q, out, err);
  if (st != QV_OK) query_free(q);
  return st;
}

qv_status qv_cypher_explain(qv_graph *g, const char *text, const qv_cypher_params *params,
                            const qv_cypher_options *opts, bool analyze, char **out, qv_error *err) {
  *out = NULL;
  cy_query *q;
  QV_RETURN_NOT_OK(query_plan(g, text, params, opts, &q, err));
  qv_status st = QV_OK;
  if (analyze) {
    qv_batch_reader *r = NULL;
    if ((st = make_stream(q, &r, err)) != QV_OK) {
      query_free(q);
      return st;
    }
    for (;;) {
      qv_batch *b = NULL;
      if ((st = r->next(r, &b, err)) != QV_OK || !b) break;
      qv_batch_release(b);
    }
    if (st == QV_OK) st = qv_exec_explain(q->root, true, out, err);
    q_destroy(r);
    return st;
  }
  st = qv_exec_explain(q->root, false, out, err);
  query_free(q);
  return st;
}
