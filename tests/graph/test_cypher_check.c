/* The compile-time semantic checks (src/graph/cypher_check.c): each
 * refused query with its status and byte-exact message, queries the check
 * must let through (valid Cypher that looks close to an error), the check
 * wired into qv_cypher_query, and out-of-memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "failing_alloc.h"
#include "graph/cypher_plan_int.h"
#include "quiver/graph.h"

typedef struct refused {
  const char *query;
  qv_status code;
  const char *message;
} refused;

static const refused REFUSED[] = {
    /* VariableTypeConflict */
    {"MATCH ()-[r]-() MATCH (r) RETURN r", QV_ERR_INVALID,
     "cypher: variable `r` is a relationship, not a node at line 1, column 23"},
    {"MATCH (r) MATCH ()-[r]-() RETURN r", QV_ERR_INVALID,
     "cypher: variable `r` is a node, not a relationship at line 1, column 19"},
    {"MATCH ()-[r]-(r) RETURN r", QV_ERR_INVALID,
     "cypher: variable `r` is a relationship, not a node at line 1, column 14"},
    {"MATCH ()-[r*]-(), (r) RETURN r", QV_ERR_INVALID,
     "cypher: variable `r` is a list of relationships, not a node at line 1, column 19"},
    {"MATCH p = ()-->() MATCH ()-[p]-() RETURN p", QV_ERR_INVALID,
     "cypher: variable `p` is a path, not a relationship at line 1, column 27"},
    {"MATCH r = (a)-->(b), (r) RETURN r", QV_ERR_INVALID,
     "cypher: variable `r` is a path, not a node at line 1, column 22"},
    {"WITH 123 AS n MATCH (n) RETURN n", QV_ERR_INVALID,
     "cypher: variable `n` is an integer, not a node at line 1, column 21"},
    {"WITH [10] AS r MATCH ()-[r]-() RETURN r", QV_ERR_INVALID,
     "cypher: variable `r` is a list, not a relationship at line 1, column 24"},
    {"MATCH (n) WITH [n] AS users MATCH (users)-->(m) RETURN m", QV_ERR_INVALID,
     "cypher: variable `users` is a list, not a node at line 1, column 35"},
    /* RelationshipUniquenessViolation */
    {"MATCH (a)-[r]->()-[r]->(a) RETURN r", QV_ERR_INVALID,
     "cypher: relationship variable `r` is used twice in one pattern at line 1, column 18"},
    /* VariableAlreadyBound */
    {"MATCH (a) CREATE (a)", QV_ERR_INVALID,
     "cypher: variable `a` is already declared (CREATE of a bound node) at line 1, column 18"},
    {"MATCH (a) CREATE (a {name: 'foo'}) RETURN a", QV_ERR_INVALID,
     "cypher: variable `a` is already declared (CREATE cannot add labels or properties to it) at line 1, column 18"},
    {"CREATE (n:Foo)-[:T1]->(), (n:Bar)-[:T2]->()", QV_ERR_INVALID,
     "cypher: variable `n` is already declared (CREATE cannot add labels or properties to it) at line 1, column 27"},
    {"CREATE (a)-[r:R]->(b), (a)-[r:R]->(b)", QV_ERR_INVALID,
     "cypher: variable `r` is already declared (CREATE of a bound relationship) at line 1, column 27"},
    {"MATCH (a) MERGE (a)", QV_ERR_INVALID,
     "cypher: variable `a` is already declared (MERGE of a bound node) at line 1, column 17"},
    {"MATCH ()-[r]->() MERGE ()-[r:R]->()", QV_ERR_INVALID,
     "cypher: variable `r` is already declared (MERGE of a bound relationship) at line 1, column 26"},
    {"MATCH (p)-->() MATCH p = ()-->() RETURN p", QV_ERR_INVALID,
     "cypher: variable `p` is already declared (a path variable must be new) at line 1, column 22"},
    {"MATCH p = (p)-->() RETURN p", QV_ERR_INVALID,
     "cypher: variable `p` is already declared (a path variable must be new) at line 1, column 7"},
    {"WITH 1 AS x UNWIND [1] AS x RETURN x", QV_ERR_INVALID,
     "cypher: variable `x` is already declared (UNWIND ... AS needs a new name) at line 1, column 13"},
    /* UndefinedVariable */
    {"MATCH (a) DELETE x", QV_ERR_INVALID, "cypher: variable `x` not defined at line 1, column 18"},
    {"MATCH (a) SET a.name = missing RETURN a", QV_ERR_INVALID,
     "cypher: variable `missing` not defined at line 1, column 24"},
    {"MERGE (n) ON CREATE SET x.num = 1", QV_ERR_INVALID, "cypher: variable `x` not defined at line 1, column 25"},
    {"MATCH (n) WHERE (n)-[r]->() RETURN n", QV_ERR_INVALID,
     "cypher: variable `r` not defined (a pattern predicate cannot introduce variables) at line 1, column 20"},
    {"MATCH (a) RETURN DISTINCT a.name ORDER BY a.age", QV_ERR_INVALID,
     "cypher: variable `a` not defined at line 1, column 43"},
    {"MATCH (a), (b), (c) WITH a, b WITH a ORDER BY c RETURN a", QV_ERR_INVALID,
     "cypher: variable `c` not defined at line 1, column 47"},
    {"MATCH (a) WITH a.x AS x, count(*) AS n ORDER BY sum(a.y) RETURN x", QV_ERR_INVALID,
     "cypher: variable `a` not defined at line 1, column 53"},
    /* InvalidArgumentType */
    {"RETURN 123 AND true", QV_ERR_INVALID, "cypher: AND expects a boolean, not an integer at line 1, column 12"},
    {"RETURN [] OR false", QV_ERR_INVALID, "cypher: OR expects a boolean, not a list at line 1, column 11"},
    {"RETURN {} XOR true", QV_ERR_INVALID, "cypher: XOR expects a boolean, not a map at line 1, column 11"},
    {"RETURN NOT 'x'", QV_ERR_INVALID, "cypher: NOT expects a boolean, not a string at line 1, column 8"},
    {"RETURN 1 IN {x: []}", QV_ERR_INVALID, "cypher: IN expects a list, not a map at line 1, column 10"},
    {"RETURN any(x IN ['Clara'] WHERE x % 2 = 0) AS result", QV_ERR_INVALID,
     "cypher: % expects numbers, not a string at line 1, column 35"},
    {"WITH 123 AS n RETURN n.num", QV_ERR_TYPE,
     "cypher: cannot read property `num` of an integer at line 1, column 23"},
    {"WITH [123, true] AS n RETURN n.num", QV_ERR_TYPE,
     "cypher: cannot read property `num` of a list at line 1, column 31"},
    {"MATCH p = (n)-->() WHERE p.name = 'apa' RETURN p", QV_ERR_INVALID,
     "cypher: cannot read property `name` of a path at line 1, column 27"},
    {"MATCH (n) WHERE (n) RETURN n", QV_ERR_INVALID,
     "cypher: WHERE expects a boolean, not a node at line 1, column 18"},
    {"MATCH (r) RETURN type(r)", QV_ERR_INVALID,
     "cypher: type() expects a relationship, not a node at line 1, column 18"},
    {"MATCH (n) RETURN length(n)", QV_ERR_INVALID, "cypher: length() expects a path, not a node at line 1, column 18"},
    {"MATCH p = (a)-->(b) RETURN size(p)", QV_ERR_INVALID,
     "cypher: size() expects a string or a list, not a path at line 1, column 28"},
    {"MATCH p = (a) RETURN labels(p)", QV_ERR_INVALID,
     "cypher: labels() expects a node, not a path at line 1, column 22"},
    {"RETURN properties('Cypher')", QV_ERR_INVALID,
     "cypher: properties() expects a node, a relationship or a map, not a string at line 1, column 8"},
    {"MATCH () DELETE 1 + 1", QV_ERR_INVALID,
     "cypher: DELETE expects a node, a relationship or a path, not an integer at line 1, column 19"},
    {"MATCH (n) RETURN n LIMIT 1.5", QV_ERR_INVALID,
     "cypher: LIMIT must be an integer, not a float at line 1, column 26"},
    {"CREATE (a) SET a.maplist = [{num: 1}]", QV_ERR_TYPE,
     "cypher: a property cannot hold a list of maps at line 1, column 28"},
    /* UnexpectedSyntax */
    {"MATCH (a) RETURN size((a)-->())", QV_ERR_INVALID,
     "cypher: a pattern can only be used as a predicate here (use COUNT { } or a pattern comprehension) at line 1, "
     "column 23"},
    {"MATCH (n) WITH (n)-->() AS x RETURN x", QV_ERR_INVALID,
     "cypher: a pattern can only be used as a predicate here (use COUNT { } or a pattern comprehension) at line 1, "
     "column 16"},
    /* InvalidAggregation, NestedAggregation, NonConstantExpression */
    {"MATCH (n) RETURN [x IN [1, 2] | count(*)]", QV_ERR_INVALID,
     "cypher: aggregate count(*) is not allowed in an expression over a list's elements at line 1, column 33"},
    {"MATCH (n) WITH n.x AS foo ORDER BY count(n) RETURN foo", QV_ERR_INVALID,
     "cypher: aggregate count(...) is not allowed here at line 1, column 36"},
    {"MATCH (a) WHERE count(a) > 10 RETURN a", QV_ERR_INVALID,
     "cypher: aggregate count(...) is not allowed here at line 1, column 17"},
    {"RETURN count(count(*))", QV_ERR_INVALID,
     "cypher: an aggregate cannot contain another aggregate at line 1, column 14"},
    {"RETURN count(rand())", QV_ERR_INVALID,
     "cypher: rand() is not allowed inside an aggregate (its value is not constant) at line 1, column 14"},
    {"MATCH (n) RETURN n SKIP n.count", QV_ERR_INVALID,
     "cypher: SKIP must be a constant (it cannot read variable `n`) at line 1, column 25"},
    {"MATCH (n) RETURN n LIMIT -1", QV_ERR_INVALID, "cypher: LIMIT must not be negative at line 1, column 26"},
    /* ColumnNameConflict */
    {"RETURN 1 AS a, 2 AS a", QV_ERR_INVALID,
     "cypher: multiple result columns with the same name `a` at line 1, column 16"},
};

/* Valid queries, several one step away from an entry above. */
static const char *const ACCEPTED[] = {
    "MATCH (n) RETURN n",
    "MATCH (a)-[r]->(b) MATCH (a)-[r]->(c) RETURN r",
    "MATCH (n) WHERE (n)-->() RETURN n",
    "MATCH (n) WHERE NOT (n)-->() AND n.x > 1 RETURN n",
    "MATCH (a) RETURN DISTINCT a.name ORDER BY a.name",
    "MATCH (a) RETURN a.x AS x, count(*) AS c ORDER BY c, x",
    "MATCH (a) RETURN a.x, count(*) ORDER BY count(*) DESC",
    "MATCH (n) WITH n.x AS x ORDER BY n.y RETURN x",
    "MATCH (a), (b) WITH a, b WITH a ORDER BY b RETURN a",
    "MATCH (a) CREATE (a)-[:R]->(b:B {x: a.x}) RETURN b",
    "CREATE (a:A {id: 1}) CREATE (a)-[:R]->(:B)",
    "MATCH (a) MERGE (a)-[:R]->(b) ON CREATE SET b.x = a.x",
    "WITH null AS n MATCH (n) RETURN n",
    "WITH $p AS x MATCH (x) RETURN x",
    "UNWIND [1, 2] AS x RETURN x % 2 = 0",
    "UNWIND [{a: 1}] AS m RETURN m.a",
    "RETURN [(n)-->(m) | m.name] AS names",
    "MATCH (n) RETURN exists((n)-->()) AS e, [x IN [1, 2] WHERE x > 1] AS l",
    "MATCH (n) RETURN NOT (n)-->() AS e",
    "MATCH p = (a)-[r*]->(b) RETURN length(p), size(r), [x IN r | type(x)], nodes(p)",
    "MATCH (n) RETURN [x IN collect(n) | x.name] AS names",
    "RETURN reduce(acc = 0, x IN [1, 2, 3] | acc + x) AS s",
    "CALL db.labels() YIELD label RETURN label",
    "MATCH (n) CALL { WITH n RETURN 1 AS one } RETURN n, one",
    "MATCH (n) RETURN n SKIP size([x IN [1, 2] | x]) LIMIT $l",
    "RETURN null AND true, null OR false, NOT null",
    "RETURN 1 IN null, 1 IN [1], 'a' + 1, [1] + 2",
    "WITH {x: 1} AS m RETURN m.x",
    "MATCH (n) WITH n, count(*) AS c WHERE c > 1 RETURN n",
    "MATCH (a) RETURN a UNION MATCH (a) RETURN a",
};

static void test_refused(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof REFUSED / sizeof REFUSED[0]; i++) {
    const refused *r = &REFUSED[i];
    qvg_ast *a = NULL;
    qv_error err;
    memset(&err, 0, sizeof err);
    qv_status st = qvg_cypher_parse(r->query, strlen(r->query), &a, &err);
    if (st != QV_OK) fprintf(stderr, "query: %s\nparse error: %s\n", r->query, err.message);
    assert_int_equal(st, QV_OK);
    st = qvg_cypher_check(qvg_ast_root(a), &err);
    if (st != r->code || strcmp(err.message, r->message) != 0)
      fprintf(stderr, "query: %s\nwant:  %d %s\ngot:   %d %s\n", r->query, (int)r->code, r->message, (int)st,
              st == QV_OK ? "" : err.message);
    assert_int_equal(st, r->code);
    assert_string_equal(err.message, r->message);
    qvg_ast_destroy(a);
  }
}

static void test_accepted(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof ACCEPTED / sizeof ACCEPTED[0]; i++) {
    qvg_ast *a = NULL;
    qv_error err;
    memset(&err, 0, sizeof err);
    qv_status st = qvg_cypher_parse(ACCEPTED[i], strlen(ACCEPTED[i]), &a, &err);
    if (st == QV_OK) st = qvg_cypher_check(qvg_ast_root(a), &err);
    if (st != QV_OK) fprintf(stderr, "query: %s\nerror: %s\n", ACCEPTED[i], err.message);
    assert_int_equal(st, QV_OK);
    qvg_ast_destroy(a);
  }
}

/* qv_cypher_query runs the check before planning: the error is the
 * check's, and a valid query still answers. */
static void test_wired_into_query(void **state) {
  (void)state;
  qv_graph *g = NULL;
  qv_error err;
  memset(&err, 0, sizeof err);
  assert_int_equal(qv_graph_open_memory(&g, &err), QV_OK);
  qv_batch_reader *r = NULL;
  assert_int_equal(qv_cypher_query(g, "RETURN 123 AND true", NULL, NULL, &r, &err), QV_ERR_INVALID);
  assert_null(r);
  assert_string_equal(err.message, "cypher: AND expects a boolean, not an integer at line 1, column 12");
  /* MERGE is not planned yet, but its undefined variable is reported */
  assert_int_equal(qv_cypher_query(g, "MERGE (n) ON MATCH SET x.num = 1", NULL, NULL, &r, &err), QV_ERR_INVALID);
  assert_string_equal(err.message, "cypher: variable `x` not defined at line 1, column 24");
  assert_int_equal(qv_cypher_query(g, "RETURN true AND null AS x", NULL, NULL, &r, &err), QV_OK);
  assert_non_null(r);
  qv_batch_reader_destroy(r);
  qv_graph_close(g);
}

/* Every allocation the check makes can fail: QV_ERR_NOMEM, nothing leaked
 * (the tree is parsed before the budget starts). */
static void test_out_of_memory(void **state) {
  (void)state;
  const char *q =
      "MATCH (a)-[r]->(b), (c)-->(d), (e), (f), (g), (h), (i), (j), (k), (l), (m), (n), (o), (p), (q), "
      "(s), (t), (u), (v), (w), (x), (y), (z), (a2), (b2), (c2), (d2), (e2), (f2), (g2), (h2) "
      "WITH a, b, r RETURN a, b, r";
  qvg_ast *a = NULL;
  qv_error err;
  memset(&err, 0, sizeof err);
  assert_int_equal(qvg_cypher_parse(q, strlen(q), &a, &err), QV_OK);
  bool done = false;
  int failed = 0;
  for (long budget = 0; budget < 64 && !done; budget++) {
    failing_alloc_budget = budget;
    qv_set_allocator(failing_alloc, NULL);
    qv_status st = qvg_cypher_check(qvg_ast_root(a), &err);
    qv_set_allocator(NULL, NULL);
    failing_alloc_budget = -1;
    if (st == QV_OK) done = true;
    else {
      assert_int_equal(st, QV_ERR_NOMEM);
      failed++;
    }
  }
  assert_true(done);
  assert_true(failed >= 3); /* the scope's first block, its growth, the projection */
  qvg_ast_destroy(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_refused),
      cmocka_unit_test(test_accepted),
      cmocka_unit_test(test_wired_into_query),
      cmocka_unit_test(test_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
