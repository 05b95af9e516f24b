/* The public Cypher entry points: qv_cypher_query and qv_cypher_explain
 * (parse -> bind -> plan -> exec).
 *
 * STUB: the planner lands in a later commit; until then queries answer
 * QV_ERR_UNSUPPORTED so the command, the Python package and the TCK
 * harness can be built against the API. */
#include <string.h>

#include "graph/graph_int.h"

qv_status qv_cypher_query(qv_graph *g, const char *text, const qv_cypher_params *params, const qv_cypher_options *opts,
                          qv_batch_reader **out, qv_error *err) {
  (void)g, (void)text, (void)params, (void)opts;
  *out = NULL;
  return qv_error_set(err, QV_ERR_UNSUPPORTED, "cypher: queries are not implemented yet");
}

qv_status qv_cypher_explain(qv_graph *g, const char *text, const qv_cypher_params *params,
                            const qv_cypher_options *opts, bool analyze, char **out, qv_error *err) {
  (void)g, (void)text, (void)params, (void)opts, (void)analyze;
  *out = NULL;
  return qv_error_set(err, QV_ERR_UNSUPPORTED, "cypher: queries are not implemented yet");
}
