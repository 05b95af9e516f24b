/* The Cypher evaluator, its scalar functions and the three operators that
 * run it (CypherProjectExec, CypherFilterExec, CypherUnwindExec).  The
 * expression trees are built by hand; expected values and errors come from
 * the TCK's expressions/ features (the scenario is named beside each). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/cypher_ops.h"

static qvg_arena g_a = QVG_ARENA_INIT;  /* trees and literals */
static qvg_arena g_ev = QVG_ARENA_INIT; /* evaluation results */
static qvg_val g_locals[4];
static qvg_store *g_st;

static qvg_cx *mk(int kind, int op, int32_t n, ...) {
  qvg_cx *e = qvg_arena_alloc(&g_a, sizeof *e);
  memset(e, 0, sizeof *e);
  e->kind = (uint16_t)kind;
  e->op = (uint16_t)op;
  e->n_kids = n;
  e->kids = qvg_arena_alloc(&g_a, (size_t)(n ? n : 1) * sizeof *e->kids);
  va_list ap;
  va_start(ap, n);
  for (int32_t i = 0; i < n; i++) e->kids[i] = va_arg(ap, qvg_cx *);
  va_end(ap);
  return e;
}

static qvg_cx *lit(qvg_val v) {
  qvg_cx *e = mk(QVG_CX_LIT, 0, 0);
  e->lit = v;
  return e;
}
static qvg_cx *I(int64_t i) { return lit(qvg_int(i)); }
static qvg_cx *F(double f) { return lit(qvg_float(f)); }
static qvg_cx *S(const char *s) { return lit(qvg_string(s, (int32_t)strlen(s))); }
static qvg_cx *B(bool b) { return lit(qvg_bool(b)); }
static qvg_cx *N(void) { return lit(qvg_null()); }
static qvg_cx *col(int32_t c) {
  qvg_cx *e = mk(QVG_CX_COL, 0, 0);
  e->col = c;
  return e;
}
static qvg_cx *local(int32_t slot) {
  qvg_cx *e = mk(QVG_CX_LOCAL, 0, 0);
  e->slot = slot;
  return e;
}
static qvg_cx *bin(int op, qvg_cx *a, qvg_cx *b) { return mk(QVG_CX_BINARY, op, 2, a, b); }
static qvg_cx *cmp(int op, qvg_cx *a, qvg_cx *b) {
  qvg_cx *e = mk(QVG_CX_CMP, 0, 2, a, b);
  uint8_t *ops = qvg_arena_alloc(&g_a, 1);
  ops[0] = (uint8_t)op;
  e->ops = ops;
  return e;
}
static qvg_cx *prop(qvg_cx *x, const char *name) {
  qvg_cx *e = mk(QVG_CX_PROP, 0, 1, x);
  e->name = name;
  e->nlen = (int32_t)strlen(name);
  return e;
}
#define NARGS(...) ((int32_t)(sizeof((qvg_cx *[]){__VA_ARGS__}) / sizeof(qvg_cx *)))
#define LISTX(...) mk(QVG_CX_LIST, 0, NARGS(__VA_ARGS__), __VA_ARGS__)
#define FN(f, ...) fn_(f, mk(QVG_CX_LIST, 0, NARGS(__VA_ARGS__), __VA_ARGS__))
static qvg_cx *fn_(int f, qvg_cx *l) {
  l->kind = QVG_CX_FN;
  l->fn = f;
  return l;
}
static qvg_cx *fn0(int f) {
  qvg_cx *e = mk(QVG_CX_FN, 0, 0);
  e->fn = f;
  return e;
}
static qvg_cx *map1(const char *k1, qvg_cx *v1, const char *k2, qvg_cx *v2) {
  qvg_cx *e = k2 ? mk(QVG_CX_MAP, 0, 2, v1, v2) : mk(QVG_CX_MAP, 0, 1, v1);
  const char **names = qvg_arena_alloc(&g_a, 2 * sizeof *names);
  names[0] = k1;
  names[1] = k2;
  e->names = names;
  return e;
}

static qv_batch *g_batch;
static qvg_colkind g_kinds[4];

static qv_status ev(const qvg_cx *e, qvg_val *out, qv_error *err) {
  qvg_evalctx cx = {g_st, g_batch, g_kinds, g_locals, 4, &g_ev};
  return qvg_eval(e, &cx, 0, out, err);
}

/* The value's TCK text, or "ERR <code>". */
static const char *run(const qvg_cx *e) {
  static char buf[8][512];
  static int k;
  k = (k + 1) % 8;
  qvg_val v;
  qv_error err;
  qv_status st = ev(e, &v, &err);
  if (st != QV_OK) {
    snprintf(buf[k], sizeof buf[k], "ERR %d", (int)st);
    assert_true(strncmp(err.message, "cypher: ", 8) == 0);
    return buf[k];
  }
  qvb_text t = {0};
  assert_int_equal(qvg_val_render(&v, g_st, &t, NULL), QV_OK);
  snprintf(buf[k], sizeof buf[k], "%s", t.p);
  qvb_text_free(&t);
  return buf[k];
}

#define ERR_TYPE "ERR 6"
#define ERR_INVALID "ERR 1"
#define ERR_OVERFLOW "ERR 9"

static void test_arithmetic(void **state) {
  (void)state;
  assert_string_equal(run(bin(QVG_OP_DIV, I(7), I(2))), "3");
  assert_string_equal(run(bin(QVG_OP_DIV, I(-7), I(2))), "-3"); /* toward zero */
  assert_string_equal(run(bin(QVG_OP_MOD, I(7), I(-3))), "1");
  assert_string_equal(run(bin(QVG_OP_MOD, I(-7), I(3))), "-1");
  assert_string_equal(run(bin(QVG_OP_MOD, I(INT64_MIN), I(-1))), "0");
  assert_string_equal(run(bin(QVG_OP_DIV, I(7), I(0))), ERR_INVALID);
  assert_string_equal(run(bin(QVG_OP_MOD, I(7), I(0))), ERR_INVALID);
  assert_string_equal(run(bin(QVG_OP_DIV, I(INT64_MIN), I(-1))), ERR_OVERFLOW);
  assert_string_equal(run(bin(QVG_OP_ADD, I(INT64_MAX), I(1))), ERR_OVERFLOW);
  assert_string_equal(run(bin(QVG_OP_SUB, I(INT64_MIN), I(1))), ERR_OVERFLOW);
  assert_string_equal(run(bin(QVG_OP_MUL, I(INT64_C(1) << 62), I(2))), ERR_OVERFLOW);
  assert_string_equal(run(mk(QVG_CX_NEG, 0, 1, I(INT64_MIN))), ERR_OVERFLOW);
  assert_string_equal(run(mk(QVG_CX_NEG, 0, 1, F(1.5))), "-1.5");
  assert_string_equal(run(bin(QVG_OP_POW, I(2), I(3))), "8.0"); /* ^ is a Float */
  assert_string_equal(run(bin(QVG_OP_DIV, I(1), F(2))), "0.5");
  assert_string_equal(run(bin(QVG_OP_DIV, F(1), I(0))), "Infinity");
  assert_string_equal(run(bin(QVG_OP_MOD, F(7.5), I(2))), "1.5");
  assert_string_equal(run(bin(QVG_OP_ADD, I(1), F(0.5))), "1.5");
  /* Mathematical8 [1]: 12 / 4 * 3 - 2 * 4 */
  assert_string_equal(
      run(bin(QVG_OP_SUB, bin(QVG_OP_MUL, bin(QVG_OP_DIV, I(12), I(4)), I(3)), bin(QVG_OP_MUL, I(2), I(4)))), "1");
  assert_string_equal(run(bin(QVG_OP_ADD, S("ab"), S("cd"))), "'abcd'");
  assert_string_equal(run(bin(QVG_OP_ADD, S("a"), I(1))), "'a1'");
  assert_string_equal(run(bin(QVG_OP_ADD, LISTX(I(1)), I(2))), "[1, 2]");
  assert_string_equal(run(bin(QVG_OP_ADD, I(0), LISTX(I(1)))), "[0, 1]");
  assert_string_equal(run(bin(QVG_OP_ADD, LISTX(I(1)), LISTX(I(2), I(3)))), "[1, 2, 3]");
  assert_string_equal(run(bin(QVG_OP_ADD, LISTX(I(1)), N())), "[1, null]");
  assert_string_equal(run(bin(QVG_OP_SUB, I(1), S("a"))), ERR_TYPE);
  assert_string_equal(run(bin(QVG_OP_ADD, B(true), I(1))), ERR_TYPE);
  assert_string_equal(run(bin(QVG_OP_ADD, N(), I(1))), "null");
  assert_string_equal(run(bin(QVG_OP_MUL, F(2), N())), "null");
}

static void test_logic_and_comparison(void **state) {
  (void)state;
  /* boolean/Boolean1-5: three-valued tables */
  assert_string_equal(run(mk(QVG_CX_AND, 0, 2, B(true), N())), "null");
  assert_string_equal(run(mk(QVG_CX_AND, 0, 2, B(false), N())), "false");
  assert_string_equal(run(mk(QVG_CX_OR, 0, 2, B(true), N())), "true");
  assert_string_equal(run(mk(QVG_CX_OR, 0, 2, B(false), N())), "null");
  assert_string_equal(run(mk(QVG_CX_XOR, 0, 2, B(true), B(false))), "true");
  assert_string_equal(run(mk(QVG_CX_XOR, 0, 2, N(), B(true))), "null");
  assert_string_equal(run(mk(QVG_CX_NOT, 0, 1, N())), "null");
  assert_string_equal(run(mk(QVG_CX_NOT, 0, 1, B(false))), "true");
  assert_string_equal(run(mk(QVG_CX_AND, 0, 2, I(1), B(true))), ERR_TYPE);
  assert_string_equal(run(mk(QVG_CX_OR, 0, 2, B(true), S("x"))), ERR_TYPE); /* no short cut hides it */
  assert_string_equal(run(mk(QVG_CX_NOT, 0, 1, I(0))), ERR_TYPE);
  /* chains: 1 < 2 < 3, 1 < 3 < 2 */
  qvg_cx *c = mk(QVG_CX_CMP, 0, 3, I(1), I(2), I(3));
  uint8_t lt2[2] = {QVG_CMP_LT, QVG_CMP_LT};
  c->ops = lt2;
  assert_string_equal(run(c), "true");
  qvg_cx *d = mk(QVG_CX_CMP, 0, 3, I(1), I(3), I(2));
  d->ops = lt2;
  assert_string_equal(run(d), "false");
  assert_string_equal(run(cmp(QVG_CMP_NE, F(NAN), F(NAN))), "true"); /* Comparison1 [8] */
  assert_string_equal(run(cmp(QVG_CMP_GE, F(NAN), I(1))), "false");  /* Comparison2 [5] */
  assert_string_equal(run(cmp(QVG_CMP_GT, F(NAN), S("a"))), "null");
  assert_string_equal(run(cmp(QVG_CMP_EQ, I(1), F(1))), "true");
  assert_string_equal(run(cmp(QVG_CMP_EQ, N(), N())), "null"); /* Null3 [2] */
  assert_string_equal(run(cmp(QVG_CMP_GE, LISTX(I(1), I(2)), LISTX(I(3), N()))), "false");
  assert_string_equal(run(mk(QVG_CX_IS_NULL, 0, 1, N())), "true");
  assert_string_equal(run(mk(QVG_CX_IS_NULL, 1, 1, N())), "false");
  /* Null3 [4]: IN with null */
  assert_string_equal(run(bin(QVG_OP_IN, N(), N())), "null");
  assert_string_equal(run(bin(QVG_OP_IN, N(), LISTX(I(1), I(2), I(3)))), "null");
  assert_string_equal(run(bin(QVG_OP_IN, N(), mk(QVG_CX_LIST, 0, 0))), "false");
  assert_string_equal(run(bin(QVG_OP_IN, I(1), LISTX(I(1), I(2), I(3), N()))), "true");
  assert_string_equal(run(bin(QVG_OP_IN, I(1), LISTX(N(), I(1)))), "true");
  assert_string_equal(run(bin(QVG_OP_IN, I(5), LISTX(I(1), I(2), I(3), N()))), "null");
  assert_string_equal(run(bin(QVG_OP_IN, LISTX(I(1)), LISTX(LISTX(I(1))))), "true");
  assert_string_equal(run(bin(QVG_OP_IN, I(1), I(5))), ERR_TYPE);
}

static void test_strings(void **state) {
  (void)state;
  assert_string_equal(run(bin(QVG_OP_STARTS_WITH, S("abc"), S("ab"))), "true");
  assert_string_equal(run(bin(QVG_OP_STARTS_WITH, S("abc"), S(""))), "true");
  assert_string_equal(run(bin(QVG_OP_ENDS_WITH, S("abc"), S("bc"))), "true");
  assert_string_equal(run(bin(QVG_OP_ENDS_WITH, S("abc"), S("abcd"))), "false");
  assert_string_equal(run(bin(QVG_OP_CONTAINS, S("abc"), S("b"))), "true");
  assert_string_equal(run(bin(QVG_OP_CONTAINS, S("abc"), S("x"))), "false");
  assert_string_equal(run(bin(QVG_OP_STARTS_WITH, I(1), S("a"))), "null");
  assert_string_equal(run(bin(QVG_OP_CONTAINS, S("a"), N())), "null");
  assert_string_equal(run(bin(QVG_OP_REGEX, S("abc"), S("a.*"))), "true");
  assert_string_equal(run(bin(QVG_OP_REGEX, S("abc"), S("b"))), "false"); /* the whole string */
  assert_string_equal(run(bin(QVG_OP_REGEX, S("abc"), S("("))), ERR_INVALID);
  assert_string_equal(run(FN(QVG_FN_SUBSTRING, S("0123456789"), I(1))), "'123456789'"); /* String1 [1] */
  assert_string_equal(run(FN(QVG_FN_SUBSTRING, S("hello"), I(1), I(3))), "'ell'");
  assert_string_equal(run(FN(QVG_FN_SUBSTRING, S("h\xc3\xa9llo"), I(1), I(2))), "'\xc3\xa9l'");
  assert_string_equal(run(FN(QVG_FN_SUBSTRING, S("hello"), I(9))), "''");
  assert_string_equal(run(FN(QVG_FN_SUBSTRING, S("hello"), I(-1))), ERR_INVALID);
  assert_string_equal(run(FN(QVG_FN_LEFT, S("hello"), I(2))), "'he'");
  assert_string_equal(run(FN(QVG_FN_RIGHT, S("hello"), I(2))), "'lo'");
  assert_string_equal(run(FN(QVG_FN_RIGHT, S("hello"), I(20))), "'hello'");
  assert_string_equal(run(FN(QVG_FN_LEFT, N(), I(2))), "null");
  assert_string_equal(run(FN(QVG_FN_LEFT, S("a"), N())), ERR_INVALID);
  assert_string_equal(run(FN(QVG_FN_REVERSE, S("raksO"))), "'Oskar'"); /* String3 */
  assert_string_equal(run(FN(QVG_FN_REVERSE, S("h\xc3\xa9"))), "'\xc3\xa9h'");
  assert_string_equal(run(FN(QVG_FN_SPLIT, S("a,b,,c"), S(","))), "['a', 'b', '', 'c']");
  assert_string_equal(run(FN(QVG_FN_SPLIT, S("ab"), S(""))), "['a', 'b']");
  assert_string_equal(run(FN(QVG_FN_REPLACE, S("hello"), S("l"), S("L"))), "'heLLo'");
  assert_string_equal(run(FN(QVG_FN_TRIM, S("  a b \t"))), "'a b'");
  assert_string_equal(run(FN(QVG_FN_LTRIM, S("  a "))), "'a '");
  assert_string_equal(run(FN(QVG_FN_RTRIM, S("  a "))), "'  a'");
  assert_string_equal(run(FN(QVG_FN_TOUPPER, S("h\xc3\xa9llo"))), "'H\xc3\x89LLO'");
  assert_string_equal(run(FN(QVG_FN_TOLOWER, S("ABC"))), "'abc'");
  assert_string_equal(run(FN(QVG_FN_TOUPPER, I(1))), ERR_TYPE);
  assert_string_equal(run(FN(QVG_FN_SIZE, S("h\xc3\xa9llo"))), "5");
}

static void test_lists_and_maps(void **state) {
  (void)state;
  qvg_cx *l = LISTX(I(1), I(2), I(3));
  assert_string_equal(run(mk(QVG_CX_INDEX, 0, 2, l, I(-1))), "3");
  assert_string_equal(run(mk(QVG_CX_INDEX, 0, 2, l, I(3))), "null");
  assert_string_equal(run(mk(QVG_CX_INDEX, 0, 2, l, F(1.5))), ERR_TYPE);    /* List1 [8] */
  assert_string_equal(run(mk(QVG_CX_INDEX, 0, 2, I(100), I(0))), ERR_TYPE); /* List1 [6] */
  qvg_cx *m = map1("name", S("Apa"), NULL, NULL);
  assert_string_equal(run(mk(QVG_CX_INDEX, 0, 2, m, I(0))), ERR_TYPE); /* Map2: MapElementAccessByNonString */
  assert_string_equal(run(mk(QVG_CX_INDEX, 0, 2, m, S("name"))), "'Apa'");
  assert_string_equal(run(prop(m, "name")), "'Apa'");
  assert_string_equal(run(prop(m, "nope")), "null");
  assert_string_equal(run(prop(N(), "x")), "null");
  assert_string_equal(run(prop(I(1), "x")), ERR_TYPE);
  /* List2 slices */
  assert_string_equal(run(mk(QVG_CX_SLICE, 0, 3, l, I(1), I(3))), "[2, 3]");
  assert_string_equal(run(mk(QVG_CX_SLICE, 0, 3, l, I(-3), I(-1))), "[1, 2]");
  assert_string_equal(run(mk(QVG_CX_SLICE, 0, 3, l, I(3), I(1))), "[]");
  assert_string_equal(run(mk(QVG_CX_SLICE, 0, 3, l, I(-5), I(5))), "[1, 2, 3]");
  assert_string_equal(run(mk(QVG_CX_SLICE, 0, 3, l, NULL, I(2))), "[1, 2]");
  assert_string_equal(run(mk(QVG_CX_SLICE, 0, 3, l, I(1), NULL)), "[2, 3]");
  assert_string_equal(run(mk(QVG_CX_SLICE, 0, 3, l, N(), I(2))), "null");
  qvg_cx *ml = map1("b", I(1), "a", LISTX(N()));
  assert_string_equal(run(ml), "{a: [null], b: 1}");
  /* [x IN [1, 2, 3] WHERE x > 1 | x * 10] */
  qvg_cx *comp = mk(QVG_CX_LIST_COMP, 0, 3, l, cmp(QVG_CMP_GT, local(0), I(1)), bin(QVG_OP_MUL, local(0), I(10)));
  comp->slot = 0;
  assert_string_equal(run(comp), "[20, 30]");
  qvg_cx *comp2 = mk(QVG_CX_LIST_COMP, 0, 3, l, NULL, NULL);
  comp2->slot = 1;
  assert_string_equal(run(comp2), "[1, 2, 3]");
  qvg_cx *comp3 = mk(QVG_CX_LIST_COMP, 0, 3, I(3), NULL, NULL);
  assert_string_equal(run(comp3), ERR_TYPE);
  /* quantifiers (Quantifier1-4) */
  struct {
    int q;
    qvg_cx *list;
    const char *want;
  } qs[] = {
      {QVG_Q_ALL, LISTX(I(2), I(3)), "true"},          {QVG_Q_ALL, LISTX(I(2), N()), "null"},
      {QVG_Q_ALL, LISTX(I(0), N()), "false"},          {QVG_Q_ALL, mk(QVG_CX_LIST, 0, 0), "true"},
      {QVG_Q_ANY, LISTX(I(0), I(2)), "true"},          {QVG_Q_ANY, LISTX(I(0), N()), "null"},
      {QVG_Q_ANY, mk(QVG_CX_LIST, 0, 0), "false"},     {QVG_Q_NONE, LISTX(I(0), I(1)), "true"},
      {QVG_Q_NONE, LISTX(I(5), N()), "false"},         {QVG_Q_SINGLE, LISTX(I(5), I(0)), "true"},
      {QVG_Q_SINGLE, LISTX(I(5), I(6)), "false"},      {QVG_Q_SINGLE, LISTX(I(5), N()), "null"},
      {QVG_Q_SINGLE, LISTX(I(5), I(6), N()), "false"},
  };
  for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
    qvg_cx *q = mk(QVG_CX_QUANT, qs[i].q, 2, qs[i].list, cmp(QVG_CMP_GT, local(2), I(1)));
    q->slot = 2;
    if (strcmp(run(q), qs[i].want) != 0) fail_msg("quantifier case %zu: %s", i, run(q));
  }
  /* reduce(acc = 0, x IN [1, 2, 3] | acc + x) */
  qvg_cx *r = mk(QVG_CX_REDUCE, 0, 3, I(0), l, bin(QVG_OP_ADD, local(0), local(1)));
  r->slot = 0;
  r->slot2 = 1;
  assert_string_equal(run(r), "6");
  /* CASE */
  qvg_cx *simple = mk(QVG_CX_CASE, 0, 5, I(2), I(1), S("one"), I(2), S("two"));
  assert_string_equal(run(simple), "'two'");
  qvg_cx *generic = mk(QVG_CX_CASE, 0, 3, NULL, cmp(QVG_CMP_LT, I(3), I(1)), S("lt"));
  generic->else_ex = S("else");
  assert_string_equal(run(generic), "'else'");
  qvg_cx *none = mk(QVG_CX_CASE, 0, 3, N(), N(), S("x"));
  assert_string_equal(run(none), "null"); /* null subject equals nothing */
  qvg_cx *badwhen = mk(QVG_CX_CASE, 0, 3, NULL, I(1), S("x"));
  assert_string_equal(run(badwhen), ERR_TYPE);
  /* list functions */
  assert_string_equal(run(FN(QVG_FN_RANGE, I(1), I(10), I(3))), "[1, 4, 7, 10]");
  assert_string_equal(run(FN(QVG_FN_RANGE, I(0), I(-3), I(-1))), "[0, -1, -2, -3]");
  assert_string_equal(run(FN(QVG_FN_RANGE, I(3), I(1))), "[]");
  assert_string_equal(run(FN(QVG_FN_RANGE, I(2), I(8), I(0))), ERR_INVALID); /* List11: NumberOutOfRange */
  assert_string_equal(run(FN(QVG_FN_RANGE, F(1.1), I(8))), ERR_INVALID);     /* List11: InvalidArgumentType */
  assert_string_equal(run(FN(QVG_FN_RANGE, I(0), B(true))), ERR_INVALID);
  assert_string_equal(run(FN(QVG_FN_HEAD, l)), "1");
  assert_string_equal(run(FN(QVG_FN_LAST, l)), "3");
  assert_string_equal(run(FN(QVG_FN_TAIL, l)), "[2, 3]");
  assert_string_equal(run(FN(QVG_FN_HEAD, mk(QVG_CX_LIST, 0, 0))), "null");
  assert_string_equal(run(FN(QVG_FN_SIZE, l)), "3");
  assert_string_equal(run(FN(QVG_FN_REVERSE, l)), "[3, 2, 1]");
  assert_string_equal(run(FN(QVG_FN_KEYS, map1("b", I(1), "a", N()))), "['a', 'b']");
  assert_string_equal(run(FN(QVG_FN_COALESCE, N(), I(2), bin(QVG_OP_DIV, I(1), I(0)))), "2"); /* lazy */
  assert_string_equal(run(FN(QVG_FN_COALESCE, N(), N())), "null");
  assert_string_equal(run(FN(QVG_FN_EXISTS, N())), "false");
}

static void test_conversions_and_math(void **state) {
  (void)state;
  /* typeConversion/TypeConversion1-4 */
  assert_string_equal(run(FN(QVG_FN_TOBOOLEAN, S("true"))), "true");
  assert_string_equal(run(FN(QVG_FN_TOBOOLEAN, S(" tru "))), "null");
  assert_string_equal(run(FN(QVG_FN_TOBOOLEAN, I(0))), "false");
  assert_string_equal(run(FN(QVG_FN_TOBOOLEAN, F(1.0))), ERR_TYPE);
  assert_string_equal(run(FN(QVG_FN_TOBOOLEAN, LISTX(I(1)))), ERR_TYPE);
  assert_string_equal(run(FN(QVG_FN_TOINTEGER, F(82.9))), "82");
  assert_string_equal(run(FN(QVG_FN_TOINTEGER, F(-2.9))), "-2");
  assert_string_equal(run(FN(QVG_FN_TOINTEGER, S("1.7"))), "1");
  assert_string_equal(run(FN(QVG_FN_TOINTEGER, S("foo"))), "null");
  assert_string_equal(run(FN(QVG_FN_TOINTEGER, S(""))), "null");
  assert_string_equal(run(FN(QVG_FN_TOINTEGER, S("9223372036854775807"))), "9223372036854775807");
  assert_string_equal(run(FN(QVG_FN_TOINTEGER, B(true))), "1");
  assert_string_equal(run(FN(QVG_FN_TOINTEGER, F(1e30))), ERR_OVERFLOW);
  assert_string_equal(run(FN(QVG_FN_TOINTEGER, map1("a", I(1), NULL, NULL))), ERR_TYPE);
  assert_string_equal(run(FN(QVG_FN_TOFLOAT, I(3))), "3.0");
  assert_string_equal(run(FN(QVG_FN_TOFLOAT, S("2.5"))), "2.5");
  assert_string_equal(run(FN(QVG_FN_TOFLOAT, S("nan"))), "null");
  assert_string_equal(run(FN(QVG_FN_TOFLOAT, B(true))), ERR_TYPE);
  assert_string_equal(run(FN(QVG_FN_TOSTRING, F(2.3))), "'2.3'");
  assert_string_equal(run(FN(QVG_FN_TOSTRING, F(1))), "'1.0'");
  assert_string_equal(run(FN(QVG_FN_TOSTRING, B(true))), "'true'");
  assert_string_equal(run(FN(QVG_FN_TOSTRING, mk(QVG_CX_LIST, 0, 0))), ERR_TYPE);
  assert_string_equal(run(FN(QVG_FN_TOSTRING, N())), "null");
  assert_string_equal(run(FN(QVG_FN_ABS, I(-1))), "1");
  assert_string_equal(run(FN(QVG_FN_ABS, F(-1.5))), "1.5");
  assert_string_equal(run(FN(QVG_FN_ABS, I(INT64_MIN))), ERR_OVERFLOW);
  assert_string_equal(run(FN(QVG_FN_SQRT, F(12.96))), "3.6"); /* Mathematical3 */
  assert_string_equal(run(FN(QVG_FN_SIGN, F(-0.5))), "-1");
  assert_string_equal(run(FN(QVG_FN_ROUND, F(-2.5))), "-3.0");
  assert_string_equal(run(FN(QVG_FN_CEIL, F(1.2))), "2.0");
  assert_string_equal(run(FN(QVG_FN_FLOOR, I(3))), "3.0");
  assert_string_equal(run(FN(QVG_FN_LOG, I(0))), "-Infinity");
  assert_string_equal(run(FN(QVG_FN_ATAN2, I(0), I(1))), "0.0");
  assert_string_equal(run(FN(QVG_FN_SQRT, S("4"))), ERR_TYPE);
  assert_string_equal(run(fn0(QVG_FN_PI)), "3.141592653589793");
  assert_string_equal(run(fn0(QVG_FN_E)), "2.718281828459045");
  qvg_val v;
  for (int i = 0; i < 100; i++) {
    assert_int_equal(ev(fn0(QVG_FN_RAND), &v, NULL), QV_OK);
    assert_true(v.t == QVG_V_FLOAT && v.u.f >= 0 && v.u.f < 1);
  }
  /* arity is checked at run time too */
  assert_string_equal(run(FN(QVG_FN_ABS, I(1), I(2))), ERR_INVALID);
  int32_t lo, hi;
  assert_int_equal(qvg_fn_lookup("TOUPPER", &lo, &hi), QVG_FN_TOUPPER);
  assert_int_equal(lo, 1);
  assert_int_equal(hi, 1);
  assert_int_equal(qvg_fn_lookup("substring", &lo, &hi), QVG_FN_SUBSTRING);
  assert_int_equal(hi, 3);
  assert_int_equal(qvg_fn_lookup("nosuch", &lo, &hi), 0);
  assert_string_equal(qvg_fn_name(QVG_FN_STARTNODE), "startNode");
  assert_true(qvg_is_aggregate("COLLECT"));
  assert_true(qvg_is_aggregate("percentileDisc"));
  assert_false(qvg_is_aggregate("size"));
}

/* A memory store: (:A:B {name: 'x', n: 1})-[:T {k: 2}]->(:B), and the id of each. */
static int64_t g_n1, g_n2, g_r;

static void make_store(void) {
  assert_int_equal(qvg_store_memory(&g_st, NULL), QV_OK);
  qvg_entry e[2] = {{"name", 4, qvg_string("x", 1)}, {"n", 1, qvg_int(1)}};
  qvg_val props;
  assert_int_equal(qvg_map_make(&g_a, e, 2, &props, NULL), QV_OK);
  const char *ab[2] = {"A", "B"}, *b[1] = {"B"};
  assert_int_equal(qvg_store_create_node(g_st, ab, 2, &props, &g_n1, NULL), QV_OK);
  qvg_val none;
  assert_int_equal(qvg_map_make(&g_a, NULL, 0, &none, NULL), QV_OK);
  assert_int_equal(qvg_store_create_node(g_st, b, 1, &none, &g_n2, NULL), QV_OK);
  qvg_entry k[1] = {{"k", 1, qvg_int(2)}};
  qvg_val rp;
  assert_int_equal(qvg_map_make(&g_a, k, 1, &rp, NULL), QV_OK);
  assert_int_equal(qvg_store_create_rel(g_st, "T", g_n1, g_n2, &rp, &g_r, NULL), QV_OK);
  assert_int_equal(qvg_store_prepare(g_st, NULL), QV_OK);
}

static void test_graph_values(void **state) {
  (void)state;
  make_store();
  qvg_cx *n1 = lit(qvg_node_val(g_n1)), *n2 = lit(qvg_node_val(g_n2)), *r = lit(qvg_rel_val(g_r));
  assert_string_equal(run(n1), "(:A:B {n: 1, name: 'x'})");
  assert_string_equal(run(r), "[:T {k: 2}]");
  assert_string_equal(run(n2), "(:B)");
  assert_string_equal(run(prop(n1, "name")), "'x'");
  assert_string_equal(run(prop(r, "k")), "2");
  assert_string_equal(run(prop(n2, "name")), "null");
  assert_string_equal(run(mk(QVG_CX_INDEX, 0, 2, n1, S("n"))), "1");
  assert_string_equal(run(FN(QVG_FN_LABELS, n1)), "['A', 'B']");
  assert_string_equal(run(FN(QVG_FN_TYPE, r)), "'T'");
  assert_string_equal(run(FN(QVG_FN_TYPE, n1)), ERR_TYPE);
  assert_string_equal(run(FN(QVG_FN_KEYS, n1)), "['n', 'name']");
  assert_string_equal(run(FN(QVG_FN_PROPERTIES, r)), "{k: 2}");
  assert_string_equal(run(FN(QVG_FN_STARTNODE, r)), "(:A:B {n: 1, name: 'x'})");
  assert_string_equal(run(FN(QVG_FN_ENDNODE, r)), "(:B)");
  char want[32];
  snprintf(want, sizeof want, "%lld", (long long)g_r);
  assert_string_equal(run(FN(QVG_FN_ID, r)), want);
  /* n:A:B, n:A:Missing */
  qvg_cx *has = mk(QVG_CX_LABELS, 0, 1, n1);
  int32_t labs[2] = {qvg_store_label(g_st, "A"), qvg_store_label(g_st, "B")};
  has->labels = labs;
  has->n_labels = 2;
  assert_string_equal(run(has), "true");
  qvg_cx *hasnt = mk(QVG_CX_LABELS, 0, 1, n2);
  hasnt->labels = labs;
  hasnt->n_labels = 2;
  assert_string_equal(run(hasnt), "false");
  int32_t missing[1] = {-1};
  qvg_cx *miss = mk(QVG_CX_LABELS, 0, 1, n1);
  miss->labels = missing;
  miss->n_labels = 1;
  assert_string_equal(run(miss), "false");
  /* paths: one hop, a var-length hop given backwards, and null parts */
  qvg_cx *p = mk(QVG_CX_PATH, 0, 3, n1, r, n2);
  assert_string_equal(run(p), "<(:A:B {n: 1, name: 'x'})-[:T {k: 2}]->(:B)>");
  assert_string_equal(run(FN(QVG_FN_LENGTH, p)), "1");
  assert_string_equal(run(FN(QVG_FN_NODES, p)), "[(:A:B {n: 1, name: 'x'}), (:B)]");
  assert_string_equal(run(FN(QVG_FN_RELATIONSHIPS, p)), "[[:T {k: 2}]]");
  qvg_cx *back = mk(QVG_CX_PATH, 0, 3, n2, LISTX(r), n1);
  assert_string_equal(run(back), "<(:B)<-[:T {k: 2}]-(:A:B {n: 1, name: 'x'})>");
  qvg_cx *zero = mk(QVG_CX_PATH, 0, 3, n2, mk(QVG_CX_LIST, 0, 0), n2);
  assert_string_equal(run(zero), "<(:B)>");
  assert_string_equal(run(mk(QVG_CX_PATH, 0, 3, n1, N(), n2)), "null");
  /* n {.name, k: 3}, n {.*} */
  qvg_cx *proj = mk(QVG_CX_MAP_PROJ, 0, 3, n1, NULL, I(3));
  const char *pn[2] = {"name", "k"};
  proj->names = pn;
  assert_string_equal(run(proj), "{k: 3, name: 'x'}");
  qvg_cx *all = mk(QVG_CX_MAP_PROJ, 0, 2, n1, I(9));
  const char *an[1] = {"n"};
  all->names = an;
  all->all_props = true;
  assert_string_equal(run(all), "{n: 9, name: 'x'}");
  assert_string_equal(run(mk(QVG_CX_MAP_PROJ, 0, 1, N())), "null");
  /* explain text */
  const char *names[2] = {"a", "b"};
  qvb_text t = {0};
  qvg_cx *e = mk(QVG_CX_AND, 0, 2, cmp(QVG_CMP_LT, prop(col(0), "age"), I(30)), FN(QVG_FN_STARTNODE, col(1)));
  qvg_cx_text(e, names, &t);
  assert_string_equal(t.p, "((a.age < 30) AND startNode(b))");
  qvb_text_free(&t);
  assert_true(qvg_cx_uses_col(e, 1));
  assert_false(qvg_cx_uses_col(e, 2));
}

/* ---- operators ---- */

static qv_batch *make_input(void) {
  /* n: NODE [n1, n2, n1], xs: VALUE [[1, 2, 3], null, 'scalar'] */
  qv_datatype i64 = qv_datatype_simple(QV_TYPE_INT64), bin = qv_datatype_simple(QV_TYPE_BINARY);
  qv_builder nb, vb;
  assert_int_equal(qv_builder_init(&nb, &i64, NULL), QV_OK);
  assert_int_equal(qv_builder_init(&vb, &bin, NULL), QV_OK);
  int64_t ids[3] = {g_n1, g_n2, g_n1};
  for (int i = 0; i < 3; i++) assert_int_equal(qv_builder_append_int(&nb, ids[i]), QV_OK);
  qvg_val items[3] = {qvg_int(1), qvg_int(2), qvg_int(3)};
  qvg_val l = {QVG_V_LIST, 3, {0}}, n = qvg_null(), s = qvg_string("scalar", 6);
  l.u.l = items;
  assert_int_equal(qvg_val_append(&vb, QVG_COL_VALUE, &l, NULL), QV_OK);
  assert_int_equal(qvg_val_append(&vb, QVG_COL_VALUE, &n, NULL), QV_OK);
  assert_int_equal(qvg_val_append(&vb, QVG_COL_VALUE, &s, NULL), QV_OK);
  qv_array *cols[2];
  assert_int_equal(qv_builder_finish(&nb, &cols[0], NULL), QV_OK);
  assert_int_equal(qv_builder_finish(&vb, &cols[1], NULL), QV_OK);
  qv_schema sc = QV_SCHEMA_INIT;
  qv_field f0 = {"n", i64, true}, f1 = {"xs", bin, true};
  assert_int_equal(qv_schema_add(&sc, &f0, NULL), QV_OK);
  assert_int_equal(qv_schema_add(&sc, &f1, NULL), QV_OK);
  qv_batch *b;
  assert_int_equal(qv_batch_make(&sc, cols, 3, &b, NULL), QV_OK);
  qv_schema_reset(&sc);
  return b;
}

static const qvg_colkind in_kinds[2] = {QVG_COL_NODE, QVG_COL_VALUE};

static qv_exec_op *source(qv_exec_ctx *ctx, qv_batch *b) {
  qv_exec_op *op;
  assert_int_equal(qv_exec_batches(ctx, &b->schema, &b, 1, &op, NULL), QV_OK);
  return op;
}

/* Every row of column c of the operator's output as text, joined by " | ". */
static char *drain(qv_exec_op *op, int32_t c, qvg_colkind kind, int *batches) {
  static char buf[1024];
  buf[0] = '\0';
  *batches = 0;
  for (;;) {
    qv_batch *b = NULL;
    qv_error err;
    qv_status st = qv_exec_next(op, &b, &err);
    if (st != QV_OK) {
      snprintf(buf, sizeof buf, "ERR %d: %.900s", (int)st, err.message);
      return buf;
    }
    if (!b) break;
    (*batches)++;
    for (int64_t r = 0; r < b->num_rows; r++) {
      qvg_val v;
      assert_int_equal(qvg_val_from_array(b->columns[c], kind, r, &g_ev, &v, NULL), QV_OK);
      qvb_text t = {0};
      assert_int_equal(qvg_val_render(&v, g_st, &t, NULL), QV_OK);
      if (buf[0]) strncat(buf, " | ", sizeof buf - strlen(buf) - 1);
      strncat(buf, t.p, sizeof buf - strlen(buf) - 1);
      qvb_text_free(&t);
    }
    qv_batch_release(b);
  }
  return buf;
}

static void test_operators(void **state) {
  (void)state;
  qv_exec_options o = QV_EXEC_OPTIONS_INIT;
  o.batch_size = 2; /* the unwind's 4 rows come in two batches */
  qv_exec_ctx *ctx;
  assert_int_equal(qv_exec_ctx_create(&o, &ctx, NULL), QV_OK);
  qv_batch *in = make_input();
  int batches;

  /* UNWIND xs AS x */
  qv_exec_op *u;
  assert_int_equal(qvg_op_unwind(ctx, source(ctx, in), in_kinds, 1, "x", &u, NULL), QV_OK);
  assert_int_equal(qv_exec_schema(u)->n_fields, 2); /* n, then x: the list itself is not repeated */
  assert_string_equal(drain(u, 1, QVG_COL_VALUE, &batches), "1 | 2 | 3 | 'scalar'");
  assert_int_equal(batches, 2);
  char *text;
  assert_int_equal(qv_exec_explain(u, false, &text, NULL), QV_OK);
  assert_non_null(strstr(text, "CypherUnwindExec: list=xs, as=x"));
  qv_free(text);
  qv_exec_destroy(u);
  assert_int_equal(qvg_op_unwind(ctx, source(ctx, in), in_kinds, 1, "x", &u, NULL), QV_OK);
  assert_string_equal(drain(u, 0, QVG_COL_NODE, &batches),
                      "(:A:B {n: 1, name: 'x'}) | (:A:B {n: 1, name: 'x'}) | (:A:B {n: 1, name: 'x'}) | "
                      "(:A:B {n: 1, name: 'x'})");
  qv_exec_destroy(u);
  qv_error err;
  assert_int_equal(qvg_op_unwind(ctx, source(ctx, in), in_kinds, 5, "x", &u, &err), QV_ERR_INVALID);

  /* WHERE n.name = 'x' */
  qv_exec_op *f;
  qvg_cx *pred = cmp(QVG_CMP_EQ, prop(col(0), "name"), S("x"));
  assert_int_equal(qvg_op_filter(ctx, source(ctx, in), g_st, in_kinds, pred, 0, &f, NULL), QV_OK);
  assert_string_equal(drain(f, 1, QVG_COL_VALUE, &batches), "[1, 2, 3] | 'scalar'");
  assert_int_equal(qv_exec_explain(f, false, &text, NULL), QV_OK);
  assert_non_null(strstr(text, "CypherFilterExec: predicate=(n.name = 'x')"));
  qv_free(text);
  qv_exec_destroy(f);
  /* a predicate that is not boolean fails the query */
  assert_int_equal(qvg_op_filter(ctx, source(ctx, in), g_st, in_kinds, prop(col(0), "name"), 0, &f, NULL), QV_OK);
  assert_non_null(strstr(drain(f, 0, QVG_COL_NODE, &batches), "ERR 6"));
  qv_exec_destroy(f);

  /* RETURN n, size(xs) AS k, n AS m (NODE), xs AS key (sort key) */
  qv_exec_op *p;
  const qvg_cx *exprs[3] = {FN(QVG_FN_SIZE, col(1)), col(0), col(1)};
  const char *names[3] = {"k", "m", "key"};
  qvg_out_mode modes[3] = {QVG_OUT_VALUE, QVG_OUT_NODE, QVG_OUT_SORTKEY};
  assert_int_equal(qvg_op_eval(ctx, source(ctx, in), g_st, in_kinds, exprs, names, modes, 3, 0, true, &p, NULL), QV_OK);
  const qv_schema *ps = qv_exec_schema(p);
  assert_int_equal(ps->n_fields, 5);
  assert_string_equal(ps->fields[2].name, "k");
  assert_int_equal(ps->fields[3].type.id, QV_TYPE_INT64);
  assert_int_equal(ps->fields[4].type.id, QV_TYPE_BINARY);
  assert_int_equal(qv_exec_explain(p, false, &text, NULL), QV_OK);
  assert_non_null(strstr(text, "CypherProjectExec: exprs=[size(xs) AS k, n AS m, xs AS key (sort key)]"));
  qv_free(text);
  qv_batch *b = NULL;
  assert_int_equal(qv_exec_next(p, &b, NULL), QV_OK);
  assert_non_null(b);
  assert_int_equal(b->num_rows, 3);
  qvg_val v;
  assert_int_equal(qvg_val_from_array(b->columns[2], QVG_COL_VALUE, 0, &g_ev, &v, NULL), QV_OK);
  assert_true(v.t == QVG_V_INT && v.u.i == 3);
  assert_int_equal(qvg_val_from_array(b->columns[2], QVG_COL_VALUE, 1, &g_ev, &v, NULL), QV_OK);
  assert_int_equal(v.t, QVG_V_NULL);
  assert_int_equal(qvg_val_from_array(b->columns[2], QVG_COL_VALUE, 2, &g_ev, &v, NULL), QV_OK);
  assert_true(v.t == QVG_V_INT && v.u.i == 6);
  assert_int_equal(qvg_val_from_array(b->columns[3], QVG_COL_NODE, 1, &g_ev, &v, NULL), QV_OK);
  assert_true(v.t == QVG_V_NODE && v.u.i == g_n2);
  /* sort keys: the list before the string before null (orderability), never null */
  const qv_array *k = b->columns[4];
  assert_int_equal(k->null_count, 0);
  int32_t l0, l1, l2;
  const uint8_t *k0 = qv_array_str(k, 0, &l0), *k1 = qv_array_str(k, 1, &l1), *k2 = qv_array_str(k, 2, &l2);
  assert_true(memcmp(k0, k2, (size_t)(l0 < l2 ? l0 : l2)) < 0);
  assert_true(memcmp(k2, k1, (size_t)(l2 < l1 ? l2 : l1)) < 0);
  qv_batch_release(b);
  assert_int_equal(qv_exec_next(p, &b, NULL), QV_OK);
  assert_null(b);
  qv_exec_destroy(p);

  /* a NODE output given a non-node fails with a type error naming the column */
  const qvg_cx *bad[1] = {col(1)};
  qvg_out_mode node_mode[1] = {QVG_OUT_NODE};
  const char *bn[1] = {"bad"};
  assert_int_equal(qvg_op_eval(ctx, source(ctx, in), g_st, in_kinds, bad, bn, node_mode, 1, 0, false, &p, NULL), QV_OK);
  char *msg = drain(p, 0, QVG_COL_NODE, &batches);
  assert_non_null(strstr(msg, "ERR 6"));
  assert_non_null(strstr(msg, "CypherProjectExec: bad"));
  qv_exec_destroy(p);

  /* a run-time error inside an expression reaches the caller with its message */
  const qvg_cx *div[1] = {bin(QVG_OP_DIV, I(1), I(0))};
  assert_int_equal(qvg_op_eval(ctx, source(ctx, in), g_st, in_kinds, div, bn, NULL, 1, 0, false, &p, NULL), QV_OK);
  assert_non_null(strstr(drain(p, 0, QVG_COL_VALUE, &batches), "division by zero"));
  qv_exec_destroy(p);

  assert_int_equal(qv_exec_ctx_held_bytes(ctx), 0);
  qv_batch_release(in);
  qv_exec_ctx_release(ctx);
}

static int teardown(void **state) {
  (void)state;
  qvg_arena_free(&g_a);
  qvg_arena_free(&g_ev);
  qvg_store_free(g_st);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arithmetic),
      cmocka_unit_test(test_logic_and_comparison),
      cmocka_unit_test(test_strings),
      cmocka_unit_test(test_lists_and_maps),
      cmocka_unit_test(test_conversions_and_math),
      cmocka_unit_test(test_graph_values),
      cmocka_unit_test(test_operators),
  };
  return cmocka_run_group_tests(tests, NULL, teardown);
}
