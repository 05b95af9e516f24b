/* The Cypher front end: canonical text (byte-exact), tree shape and
 * positions, literals, errors with line and column, and the limits that
 * keep hostile input bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/cypher_ast.h"

static qvg_ast *parse_ok(const char *q) {
  qvg_ast *a = NULL;
  qv_error err;
  err.message[0] = '\0';
  qv_status st = qvg_cypher_parse(q, strlen(q), &a, &err);
  if (st != QV_OK) fprintf(stderr, "query: %s\nerror: %s\n", q, err.message);
  assert_int_equal(st, QV_OK);
  assert_non_null(a);
  return a;
}

/* The canonical text of q, which must also print the same after a
 * second parse. */
static void expect_print(const char *q, const char *want) {
  qvg_ast *a = parse_ok(q);
  char *s = qvg_cypher_print(qvg_ast_root(a));
  assert_non_null(s);
  if (strcmp(s, want) != 0) fprintf(stderr, "query: %s\nwant:  %s\ngot:   %s\n", q, want, s);
  assert_string_equal(s, want);
  qvg_ast *b = parse_ok(s);
  char *s2 = qvg_cypher_print(qvg_ast_root(b));
  assert_string_equal(s2, s);
  qv_free(s);
  qv_free(s2);
  qvg_ast_destroy(a);
  qvg_ast_destroy(b);
}

static void expect_error(const char *q, const char *want) {
  qvg_ast *a = (qvg_ast *)1;
  qv_error err;
  err.message[0] = '\0';
  qv_status st = qvg_cypher_parse(q, strlen(q), &a, &err);
  assert_int_equal(st, QV_ERR_PARSE);
  assert_int_equal(err.code, QV_ERR_PARSE);
  assert_null(a);
  if (strcmp(err.message, want) != 0) fprintf(stderr, "query: %.200s\nwant: %s\ngot:  %s\n", q, want, err.message);
  assert_string_equal(err.message, want);
}

static void test_clauses_print(void **state) {
  (void)state;
  expect_print(
      "match (a:Person {name: 'x'})-[r:KNOWS|:LIKES*1..3]->(b), p = (c)<--(d)\n"
      "where a.age > 3 and not b.x = 1 or c:A:B\n"
      "return distinct a, b.name as n, count(*) order by n desc, a.x asc skip 1 limit 2",
      "MATCH (a:Person {name: 'x'})-[r:KNOWS|LIKES*1..3]->(b), p = (c)<--(d) WHERE (((a.age > 3) AND (NOT "
      "(b.x = 1))) OR c:A:B)\n"
      "RETURN DISTINCT a, b.name AS n, count(*) ORDER BY n DESC, a.x SKIP 1 LIMIT 2");
  expect_print("OPTIONAL MATCH (n) WITH n, n.x AS x ORDER BY x SKIP 2 LIMIT 3 WHERE x > 1 UNWIND [1, 2] AS y RETURN *",
               "OPTIONAL MATCH (n)\nWITH n, n.x AS x ORDER BY x SKIP 2 LIMIT 3 WHERE (x > 1)\nUNWIND [1, 2] AS y\n"
               "RETURN *");
  expect_print("RETURN 1 AS a UNION RETURN 2 AS a UNION RETURN 3 AS a",
               "RETURN 1 AS a\nUNION\nRETURN 2 AS a\nUNION\nRETURN 3 AS a");
  expect_print("MATCH (n) RETURN n UNION ALL MATCH (m) RETURN m",
               "MATCH (n)\nRETURN n\nUNION ALL\nMATCH (m)\nRETURN m");
  expect_print("CREATE (a:A:B {x: 1})-[:T {w: 2.5}]->(b), ()<-[:U]-()",
               "CREATE (a:A:B {x: 1})-[:T {w: 2.5}]->(b), ()<-[:U]-()");
  expect_print("MERGE (a:A {k: 1}) ON CREATE SET a.n = 1, a += {y: 2} ON MATCH SET a:Seen:Again",
               "MERGE (a:A {k: 1}) ON CREATE SET a.n = 1, a += {y: 2} ON MATCH SET a:Seen:Again");
  expect_print("MATCH (a), (b) SET a = b, a.x = b.x + 1 REMOVE a.y, b:L DETACH DELETE a DELETE b",
               "MATCH (a), (b)\nSET a = b, a.x = (b.x + 1)\nREMOVE a.y, b:L\nDETACH DELETE a\nDELETE b");
  expect_print("CALL db.labels() YIELD label AS l WHERE l <> 'x' RETURN l",
               "CALL db.labels() YIELD label AS l WHERE (l <> 'x')\nRETURN l");
  expect_print("call test.doNothing", "CALL test.doNothing");
  expect_print("MATCH (n) CALL { WITH n RETURN n.k AS k } RETURN k",
               "MATCH (n)\nCALL { WITH n RETURN n.k AS k }\nRETURN k");
  expect_print("MATCH (n) RETURN n;", "MATCH (n)\nRETURN n");
}

static void test_patterns_print(void **state) {
  (void)state;
  expect_print("MATCH (a)-[*]-(b)-[*2]->(c)<-[:T*..5]-(d)-[r*3..]-(e)-[*1..1]-(f)-[*..]-(g) RETURN a",
               "MATCH (a)-[*]-(b)-[*2]->(c)<-[:T*..5]-(d)-[r*3..]-(e)-[*1]-(f)-[*]-(g)\nRETURN a");
  expect_print("MATCH (a)<-->(b)--(c)-->(d)<-[r]-(e)-[{w: 1}]-(f) RETURN a",
               "MATCH (a)--(b)--(c)-->(d)<-[r]-(e)-[{w: 1}]-(f)\nRETURN a");
  expect_print("MATCH p = shortestPath((a)-[*..4]-(b)), q = allShortestPaths((a)-->(c)) RETURN p",
               "MATCH p = shortestPath((a)-[*..4]-(b)), q = allShortestPaths((a)-->(c))\nRETURN p");
  expect_print(
      "MATCH (n) WHERE (n)-[:R]->(:X {a: 1}) AND NOT (n)--() RETURN [(n)-->(m) WHERE m.v > 0 | m.v] AS vs",
      "MATCH (n) WHERE ((n)-[:R]->(:X {a: 1}) AND (NOT (n)--()))\nRETURN [(n)-->(m) WHERE (m.v > 0) | m.v] AS vs");
  expect_print("MATCH (n) WHERE exists((n)-->()) AND EXISTS { (n)-[:R]->(z) WHERE z.k = 1 } RETURN n",
               "MATCH (n) WHERE (exists((n)-->()) AND EXISTS { (n)-[:R]->(z) WHERE (z.k = 1) })\nRETURN n");
  expect_print("MATCH (n) WHERE EXISTS { MATCH (n)-->(m) RETURN m } RETURN COUNT { (n)--() } AS c",
               "MATCH (n) WHERE EXISTS { MATCH (n)-->(m) RETURN m }\nRETURN COUNT { (n)--() } AS c");
  expect_print("CREATE (n $props)", "CREATE (n $props)");
}

static void test_expressions_print(void **state) {
  (void)state;
  /* Precedence: unary minus binds tighter than ^, ^ is left-associative. */
  expect_print("RETURN -2^2, 2^3^2, 1 + 2 * 3 - 4 / 5 % 6, -x^2, -(5), - -5",
               "RETURN (-2 ^ 2), ((2 ^ 3) ^ 2), ((1 + (2 * 3)) - ((4 / 5) % 6)), ((-x) ^ 2), -5, 5");
  expect_print("RETURN a OR b XOR c AND NOT d = e", "RETURN (a OR (b XOR (c AND (NOT (d = e)))))");
  expect_print("RETURN 1 < 2 <= 3 <> 4 = 5 > 6 >= 7", "RETURN (1 < 2 <= 3 <> 4 = 5 > 6 >= 7)");
  expect_print(
      "RETURN a + b IN c, x IS NULL, x IS NOT NULL, s STARTS WITH 'a', s ENDS WITH 'b', s CONTAINS 'c', "
      "s =~ 'x.*'",
      "RETURN ((a + b) IN c), (x IS NULL), (x IS NOT NULL), (s STARTS WITH 'a'), (s ENDS WITH 'b'), (s "
      "CONTAINS 'c'), (s =~ 'x.*')");
  expect_print("RETURN l[1], l[1..3], l[..2], l[2..], m['k'], n.a.b, (n:A).x, n:A:B",
               "RETURN l[1], l[1..3], l[..2], l[2..], m['k'], n.a.b, (n:A).x, n:A:B");
  expect_print(
      "RETURN [x IN l WHERE x > 1 | x * 2], [x IN l WHERE x > 1], [x IN l | x], [], [1, [2]], {}, {a: 1, "
      "`b c`: [2]}",
      "RETURN [x IN l WHERE (x > 1) | (x * 2)], [x IN l WHERE (x > 1)], [x IN l | x], [], [1, [2]], {}, {a: "
      "1, `b c`: [2]}");
  expect_print("RETURN n {.a, .*, b: 1, c}, count(DISTINCT x), count(*), COUNT(*), a.b.fn(1, 2), toInteger('1')",
               "RETURN n {.a, .*, b: 1, c}, count(DISTINCT x), count(*), count(*), a.b.fn(1, 2), toInteger('1')");
  expect_print("RETURN CASE n.x WHEN 1 THEN 'a' WHEN 2 THEN 'b' ELSE 'c' END, CASE WHEN x THEN 1 END",
               "RETURN CASE n.x WHEN 1 THEN 'a' WHEN 2 THEN 'b' ELSE 'c' END, CASE WHEN x THEN 1 END");
  expect_print(
      "RETURN all(x IN l WHERE x > 0), any(x IN l WHERE x), none(x IN l WHERE x), single(x IN l WHERE x), "
      "reduce(acc = 0, x IN l | acc + x)",
      "RETURN all(x IN l WHERE (x > 0)), any(x IN l WHERE x), none(x IN l WHERE x), single(x IN l WHERE x), "
      "reduce(acc = 0, x IN l | (acc + x))");
  expect_print("RETURN $p, $0, $`odd p`, true, FALSE, Null", "RETURN $p, $0, $`odd p`, true, false, null");
  expect_print("MATCH (`the node`:`L ``q```) RETURN `the node`.`a key` AS `RETURN`, `end`",
               "MATCH (`the node`:`L ``q```)\nRETURN `the node`.`a key` AS `RETURN`, `end`");
  /* Postfix operators after a negative literal or a label test keep their
   * object in parentheses. */
  expect_print("RETURN (-5).k, (a:B)[0], a:B - [1]", "RETURN (-5).k, (a:B)[0], (a:B - [1])");
}

static void test_literals(void **state) {
  (void)state;
  expect_print("RETURN 0, 42, -9223372036854775808, 9223372036854775807, 0x1F, -0x8000000000000000, 0o17, -0o17",
               "RETURN 0, 42, -9223372036854775808, 9223372036854775807, 31, -9223372036854775808, 15, -15");
  expect_print("RETURN 1.5, .5, 1e3, 1.5E-3, 0.1, 3.0, 1e300", "RETURN 1.5, 0.5, 1000.0, 0.0015, 0.1, 3.0, 1e+300");
  expect_print("RETURN 'it\\'s', \"say \\\"hi\\\"\", 'tab\\there', '\\u00e9\\U0001F600', 'back\\\\slash'",
               "RETURN 'it\\'s', 'say \"hi\"', 'tab\\there', '\xC3\xA9\xF0\x9F\x98\x80', 'back\\\\slash'");
  /* The decoded bytes are in the tree. */
  qvg_ast *a = parse_ok("RETURN 'a\\nb\\u0041'");
  const qvg_node *ret = qvg_ast_root(a)->kids[0];
  const qvg_node *s = ret->kids[0]->kids[0]->kids[0];
  assert_int_equal(s->kind, QVG_STRING);
  assert_int_equal(s->len, 4);
  assert_memory_equal(s->str, "a\nbA", 4);
  qvg_ast_destroy(a);
}

static void test_tree_and_positions(void **state) {
  (void)state;
  qvg_ast *a = parse_ok("MATCH (a:A)-[r:T*2..]->(b)\n  WHERE a.x = 1\nRETURN a.x, b AS c");
  const qvg_node *q = qvg_ast_root(a);
  assert_int_equal(q->kind, QVG_QUERY);
  assert_int_equal(q->n_kids, 2);
  const qvg_node *m = q->kids[0];
  assert_int_equal(m->kind, QVG_MATCH);
  assert_int_equal(m->line, 1);
  assert_int_equal(m->col, 1);
  const qvg_node *path = m->kids[0]->kids[0];
  assert_int_equal(path->kind, QVG_PATH);
  assert_int_equal(path->n_kids, 3);
  const qvg_node *rel = path->kids[1];
  assert_int_equal(rel->kind, QVG_REL);
  assert_string_equal(rel->str, "r");
  assert_int_equal(rel->op, QVG_DIR_RIGHT);
  assert_true(rel->flags & QVG_F_VARLEN);
  assert_int_equal(rel->i0, 2);
  assert_int_equal(rel->i1, -1);
  assert_string_equal(rel->kids[0]->kids[0]->str, "T");
  assert_int_equal(rel->col, 12);
  const qvg_node *where = m->kids[1];
  assert_int_equal(where->kind, QVG_COMPARE);
  assert_int_equal(where->line, 2);
  assert_int_equal(where->col, 13);
  assert_int_equal(where->ops[0], QVG_CMP_EQ);
  assert_int_equal(where->kids[0]->kind, QVG_PROP);
  assert_int_equal(where->kids[0]->col, 10);
  const qvg_node *ret = q->kids[1];
  assert_int_equal(ret->kind, QVG_RETURN);
  assert_int_equal(ret->line, 3);
  const qvg_node *items = ret->kids[0];
  assert_int_equal(items->n_kids, 2);
  /* An item without AS keeps its source text (the column's name). */
  assert_null(items->kids[0]->str);
  assert_string_equal(items->kids[0]->kids[1]->str, "a.x");
  assert_string_equal(items->kids[1]->str, "c");
  assert_string_equal(qvg_kind_name(ret->kind), "RETURN");
  qvg_ast_destroy(a);
  qvg_ast_destroy(NULL);
}

static void test_errors(void **state) {
  (void)state;
  expect_error("MATCH (a)\nRETURN (a", "cypher: expected ')' at line 2, column 10, found end of input");
  expect_error("MATCH (a\nRETURN a", "cypher: expected ')' at line 2, column 1, found 'RETURN'");
  expect_error("MATCH (a) RETRUN a", "cypher: expected a clause or end of input at line 1, column 11, found 'RETRUN'");
  expect_error("FOO",
               "cypher: expected a clause (MATCH, OPTIONAL MATCH, UNWIND, WITH, RETURN, CREATE, MERGE, SET, "
               "DELETE, ...) at line 1, column 1, found 'FOO'");
  expect_error("RETURN 1 +", "cypher: expected an expression at line 1, column 11, found end of input");
  expect_error("RETURN 9223372036854775808",
               "cypher: integer literal out of range (integer overflow) at line 1, "
               "column 8");
  expect_error("RETURN -9223372036854775809",
               "cypher: integer literal out of range (integer overflow) at line 1, "
               "column 9");
  expect_error("RETURN 12abc", "cypher: invalid number literal '12a' at line 1, column 8");
  expect_error("RETURN 0x", "cypher: invalid number literal '0x': no digits at line 1, column 8");
  expect_error("RETURN 1e999", "cypher: floating point number out of range: 1e999 at line 1, column 8");
  expect_error("RETURN 'a\\q'", "cypher: invalid escape sequence '\\q' at line 1, column 10");
  expect_error("RETURN '\\uH'", "cypher: invalid unicode escape: \\u needs 4 hexadecimal digits at line 1, column 9");
  expect_error("RETURN 'abc", "cypher: unterminated string at line 1, column 8");
  expect_error("RETURN 1 /* no end", "cypher: unterminated comment at line 1, column 10");
  expect_error("RETURN #", "cypher: unexpected character '#' at line 1, column 8");
  expect_error("RETURN 'é' + #", "cypher: unexpected character '#' at line 1, column 14");
  expect_error("MATCH (n $p) RETURN n",
               "cypher: a parameter cannot stand for the properties of a MATCH pattern (use "
               "a map) at line 1, column 10");
  expect_error("CREATE (a)-[:T*2]->(b)",
               "cypher: CREATE cannot create a variable length relationship at line 1, "
               "column 11");
  expect_error("CREATE (a)-->(b)", "cypher: a relationship in CREATE needs exactly one type at line 1, column 11");
  expect_error("CREATE (a)-[:T]-(b)",
               "cypher: a relationship in CREATE needs a direction (-> or <-) at line 1, "
               "column 11");
  expect_error("MATCH (a) WITH a.x RETURN 1",
               "cypher: an expression in WITH needs a name (add AS ...) at line 1, "
               "column 17");
  expect_error("RETURN 1 AS a UNION RETURN 2 AS a UNION ALL RETURN 3 AS a",
               "cypher: UNION and UNION ALL cannot be mixed in one query at line 1, column 35");
  expect_error("MATCH (n) WHERE EXISTS { MATCH (n) SET n.x = 1 } RETURN n",
               "cypher: a subquery in an expression cannot update the graph (SET) at line 1, column 36");
  expect_error("MATCH ()-[r]-() DELETE r:T",
               "cypher: DELETE takes nodes, relationships or paths, not labels (use "
               "REMOVE n:Label) at line 1, column 25");
  expect_error("RETURN 1 UNION",
               "cypher: expected a clause (MATCH, OPTIONAL MATCH, UNWIND, WITH, RETURN, CREATE, "
               "MERGE, SET, DELETE, ...) at line 1, column 15, found end of input");
  qvg_ast *a = (qvg_ast *)1;
  qv_error err;
  assert_int_equal(qvg_cypher_parse("RETURN 1\0", 9, &a, &err), QV_ERR_PARSE);
  assert_null(a);
  assert_string_equal(err.message, "cypher: query contains a NUL byte at offset 8 at line 1, column 1");
}

static char *repeat(const char *prefix, const char *unit, int n, const char *mid, const char *tail) {
  size_t len = strlen(prefix) + strlen(unit) * (size_t)n + strlen(mid) + strlen(tail) * (size_t)n + 1;
  char *s = malloc(len);
  assert_non_null(s);
  strcpy(s, prefix);
  for (int i = 0; i < n; i++) strcat(s, unit);
  strcat(s, mid);
  for (int i = 0; i < n; i++) strcat(s, tail);
  return s;
}

static void test_limits(void **state) {
  (void)state;
  /* Deep nesting and long chains fail cleanly instead of exhausting the
   * stack; moderate depth still parses and round-trips. */
  char *q = repeat("RETURN ", "(", 100000, "1", ")");
  qvg_ast *a = NULL;
  qv_error err;
  assert_int_equal(qvg_cypher_parse(q, strlen(q), &a, &err), QV_ERR_PARSE);
  assert_non_null(strstr(err.message, "nested too deeply"));
  free(q);
  q = repeat("RETURN ", "1 OR ", 100000, "1", "");
  assert_int_equal(qvg_cypher_parse(q, strlen(q), &a, &err), QV_ERR_PARSE);
  assert_string_equal(err.message, "cypher: query nested too deeply (limit 256) at line 1, column 1285");
  free(q);
  q = repeat("RETURN ", "-", 100000, "x", "");
  assert_int_equal(qvg_cypher_parse(q, strlen(q), &a, &err), QV_ERR_PARSE);
  free(q);
  q = repeat("RETURN ", "[", 200, "1", "]");
  qvg_ast_destroy(parse_ok(q));
  free(q);
  q = repeat("RETURN ", "1 + ", 200, "1", "");
  a = parse_ok(q);
  char *s = qvg_cypher_print(qvg_ast_root(a));
  qvg_ast *b = parse_ok(s);
  qv_free(s);
  qvg_ast_destroy(a);
  qvg_ast_destroy(b);
  free(q);
  size_t big = (size_t)QVG_CYPHER_MAX_TEXT + 1;
  q = malloc(big + 1);
  memset(q, ' ', big);
  q[big] = '\0';
  assert_int_equal(qvg_cypher_parse(q, big, &a, &err), QV_ERR_PARSE);
  assert_non_null(strstr(err.message, "longer than the limit"));
  free(q);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clauses_print),
      cmocka_unit_test(test_patterns_print),
      cmocka_unit_test(test_expressions_print),
      cmocka_unit_test(test_literals),
      cmocka_unit_test(test_tree_and_positions),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
