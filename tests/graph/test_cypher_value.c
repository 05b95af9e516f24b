/* Cypher values: the arena, maps, the canonical encoding (round trips,
 * equivalence, hostile bytes), Arrow columns in and out, the TCK's
 * equality and comparison tables (expressions/comparison), orderability,
 * sort keys against qvg_val_order on thousands of random pairs, and the
 * TCK's float and value text. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/cypher_value.h"

static qvg_arena g_a = QVG_ARENA_INIT;

static qvg_val str(const char *s) { return qvg_string(s, (int32_t)strlen(s)); }

static qvg_val list(int32_t n, const qvg_val *items) {
  qvg_val *l = qvg_arena_alloc(&g_a, (size_t)(n ? n : 1) * sizeof *l);
  assert_non_null(l);
  for (int32_t i = 0; i < n; i++) l[i] = items[i];
  qvg_val v = {QVG_V_LIST, n, {0}};
  v.u.l = l;
  return v;
}
#define EMPTY list(0, NULL)
#define LIST(...) list((int32_t)(sizeof((qvg_val[]){__VA_ARGS__}) / sizeof(qvg_val)), (qvg_val[]){__VA_ARGS__})

static qvg_val map2(const char *k1, qvg_val v1, const char *k2, qvg_val v2) {
  qvg_entry e[2] = {{k1, k1 ? (int32_t)strlen(k1) : 0, v1}, {k2, k2 ? (int32_t)strlen(k2) : 0, v2}};
  qvg_val m;
  assert_int_equal(qvg_map_make(&g_a, e, k2 ? 2 : (k1 ? 1 : 0), &m, NULL), QV_OK);
  return m;
}

static char *text(const qvg_val *v) {
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  qvb_text t = {0};
  assert_int_equal(qvg_val_render(v, NULL, &t, NULL), QV_OK);
  snprintf(buf[k], sizeof buf[k], "%s", t.p ? t.p : "");
  qvb_text_free(&t);
  return buf[k];
}

static char *ftext(double f) {
  static char buf[64];
  qvb_text t = {0};
  qvg_format_float(f, &t);
  snprintf(buf, sizeof buf, "%s", t.p);
  qvb_text_free(&t);
  return buf;
}

static void test_arena(void **state) {
  (void)state;
  qvg_arena a = QVG_ARENA_INIT;
  char *first = qvg_arena_alloc(&a, 3);
  assert_non_null(first);
  assert_int_equal((uintptr_t)first % 8, 0);
  for (int i = 0; i < 10000; i++) {
    int64_t *p = qvg_arena_alloc(&a, (size_t)(i % 100) * 8 + 8);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 8, 0);
    p[0] = i;
  }
  void *big = qvg_arena_alloc(&a, 5u << 20);
  assert_non_null(big);
  memset(big, 1, 5u << 20);
  assert_true(a.bytes >= (5 << 20));
  qvg_arena_clear(&a);
  assert_true(a.bytes <= (int64_t)(5u << 20) + 64);
  assert_non_null(qvg_arena_alloc(&a, 0));
  qvg_arena_free(&a);
  assert_int_equal(a.bytes, 0);
  qvg_arena_free(&a); /* twice is fine */
}

static void test_map(void **state) {
  (void)state;
  qvg_entry e[4] = {{"b", 1, qvg_int(1)}, {"a", 1, qvg_int(2)}, {"b", 1, qvg_int(3)}, {"ab", 2, qvg_null()}};
  qvg_val m;
  assert_int_equal(qvg_map_make(&g_a, e, 4, &m, NULL), QV_OK);
  assert_int_equal(m.t, QVG_V_MAP);
  assert_int_equal(m.n, 3);
  assert_string_equal(text(&m), "{a: 2, ab: null, b: 3}");
  const qvg_val *b = qvg_map_get(&m, "b", 1);
  assert_non_null(b);
  assert_int_equal(b->u.i, 3); /* the later duplicate wins */
  assert_null(qvg_map_get(&m, "c", 1));
  assert_non_null(qvg_map_get(&m, "ab", 2));
  qvg_val empty;
  assert_int_equal(qvg_map_make(&g_a, NULL, 0, &empty, NULL), QV_OK);
  assert_int_equal(empty.n, 0);
  assert_null(qvg_map_get(&empty, "a", 1));
  qvg_val i = qvg_int(1);
  assert_null(qvg_map_get(&i, "a", 1));
}

static void roundtrip(const qvg_val *v) {
  qv_buffer b = QV_BUFFER_INIT;
  assert_int_equal(qvg_val_encode(v, &b, NULL), QV_OK);
  qvg_val back;
  assert_int_equal(qvg_val_decode(b.data, b.size, &g_a, &back, NULL), QV_OK);
  assert_int_equal(qvg_val_order(v, &back), 0);
  assert_string_equal(text(v), text(&back));
  assert_int_equal(back.t, v->t);
  qv_buffer_reset(&b);
}

static bool same_encoding(const qvg_val *x, const qvg_val *y) {
  qv_buffer a = QV_BUFFER_INIT, b = QV_BUFFER_INIT;
  assert_int_equal(qvg_val_encode(x, &a, NULL), QV_OK);
  assert_int_equal(qvg_val_encode(y, &b, NULL), QV_OK);
  bool same = a.size == b.size && memcmp(a.data, b.data, (size_t)a.size) == 0;
  qv_buffer_reset(&a);
  qv_buffer_reset(&b);
  return same;
}

static void test_encoding(void **state) {
  (void)state;
  qvg_val vals[] = {qvg_bool(true),
                    qvg_bool(false),
                    qvg_int(0),
                    qvg_int(INT64_MIN),
                    qvg_int(INT64_MAX),
                    qvg_float(1.5),
                    qvg_float(-INFINITY),
                    qvg_string("a\0b", 3),
                    str(""),
                    LIST(qvg_int(1), qvg_null(), LIST(str("x"))),
                    map2("k", EMPTY, "a", qvg_float(2)),
                    qvg_node_val(7),
                    qvg_rel_val((INT64_C(3) << 40) | 9),
                    EMPTY};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) roundtrip(&vals[i]);
  qvg_val items[3] = {qvg_node_val(1), qvg_rel_val(2), qvg_node_val(3)};
  qvg_val path = {QVG_V_PATH, 3, {0}};
  path.u.l = items;
  roundtrip(&path);

  /* equivalence: NaN ~ NaN, -0.0 ~ 0.0; 1 and 1.0 are kept apart (types survive a VALUE column) */
  qvg_val n1 = qvg_float(NAN), n2 = qvg_float(-NAN), z1 = qvg_float(0.0), z2 = qvg_float(-0.0);
  assert_true(same_encoding(&n1, &n2));
  assert_true(same_encoding(&z1, &z2));
  qvg_val one = qvg_int(1), onef = qvg_float(1.0);
  assert_false(same_encoding(&one, &onef));
  qvg_val ma = map2("a", qvg_int(1), "b", qvg_int(2)), mb = map2("b", qvg_int(2), "a", qvg_int(1));
  assert_true(same_encoding(&ma, &mb));
  qvg_val l1 = LIST(qvg_null()), l2 = LIST(qvg_null());
  assert_true(same_encoding(&l1, &l2));

  /* decoding is zero-copy for strings */
  qv_buffer b = QV_BUFFER_INIT;
  qvg_val s = str("hello");
  assert_int_equal(qvg_val_encode(&s, &b, NULL), QV_OK);
  qvg_val d;
  assert_int_equal(qvg_val_decode(b.data, b.size, &g_a, &d, NULL), QV_OK);
  assert_ptr_equal(d.u.s, (const char *)b.data + 5);
  qv_buffer_reset(&b);

  /* a null is a null slot */
  qvg_val nul = qvg_null();
  assert_int_equal(qvg_val_encode(&nul, &b, NULL), QV_ERR_INVALID);
  qv_buffer_reset(&b);
}

static void test_decode_hostile(void **state) {
  (void)state;
  struct {
    const char *bytes;
    int n;
  } bad[] = {
      {"", 0},
      {"\x00", 1},                                 /* null at top */
      {"\x03\x01\x02", 3},                         /* short int */
      {"\x05\x05\x00\x00\x00ab", 7},               /* string longer than the bytes */
      {"\x05\x02\x00\x00\x00\xc3\x28", 7},         /* not UTF-8 */
      {"\x06\xff\xff\xff\x7f", 5},                 /* huge count */
      {"\x06\x01\x00\x00\x00", 5},                 /* missing item */
      {"\x0b", 1},                                 /* unknown tag */
      {"\x02\x02", 2},                             /* trailing bytes */
      {"\x04\x00\x00\x00\x00\x00\x00\x00\x80", 9}, /* -0.0 is not canonical */
      {"\x07\x02\x00\x00\x00\x01\x00\x00\x00"
       "b\x02\x01\x00\x00\x00"
       "a\x02",
       19}, /* keys out of order */
      {"\x0a\x02\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x09\x00\x00\x00\x00\x00\x00\x00\x00", 23},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    qv_error err;
    qvg_val v = qvg_int(5);
    qv_status st = qvg_val_decode((const uint8_t *)bad[i].bytes, bad[i].n, &g_a, &v, &err);
    if (st != QV_ERR_CORRUPT) fail_msg("case %zu: status %d", i, (int)st);
    assert_int_equal(v.t, QVG_V_NULL);
    assert_non_null(strstr(err.message, "cypher: malformed value encoding"));
  }
  /* nesting past the limit */
  int depth = 5000;
  uint8_t *deep = malloc((size_t)depth * 5 + 1);
  for (int i = 0; i < depth; i++) memcpy(deep + 5 * i, "\x06\x01\x00\x00\x00", 5);
  deep[depth * 5] = 0x01;
  qvg_val v;
  assert_int_equal(qvg_val_decode(deep, depth * 5 + 1, &g_a, &v, NULL), QV_ERR_CORRUPT);
  /* every prefix of a good encoding is refused, none crashes */
  qvg_val good = LIST(map2("k", str("v"), "z", LIST(qvg_float(1), qvg_int(2))), qvg_bool(true));
  qv_buffer b = QV_BUFFER_INIT;
  assert_int_equal(qvg_val_encode(&good, &b, NULL), QV_OK);
  for (int64_t n = 0; n < b.size; n++) assert_int_equal(qvg_val_decode(b.data, n, &g_a, &v, NULL), QV_ERR_CORRUPT);
  assert_int_equal(qvg_val_decode(b.data, b.size, &g_a, &v, NULL), QV_OK);
  qv_buffer_reset(&b);
  free(deep);
}

static qv_array *build(qv_type_id id, void (*fill)(qv_builder *)) {
  qv_datatype t = qv_datatype_simple(id);
  qv_builder b;
  assert_int_equal(qv_builder_init(&b, &t, NULL), QV_OK);
  fill(&b);
  qv_array *a;
  assert_int_equal(qv_builder_finish(&b, &a, NULL), QV_OK);
  return a;
}
static void fill_ints(qv_builder *b) {
  qv_builder_append_int(b, -3);
  qv_builder_append_null(b);
  qv_builder_append_int(b, 100);
}
static void fill_uints(qv_builder *b) {
  qv_builder_append_uint(b, 7);
  qv_builder_append_uint(b, UINT64_MAX);
}
static void fill_floats(qv_builder *b) {
  qv_builder_append_double(b, 0.5);
  qv_builder_append_null(b);
}
static void fill_bools(qv_builder *b) {
  qv_builder_append_bool(b, false);
  qv_builder_append_bool(b, true);
}
static void fill_strings(qv_builder *b) {
  qv_builder_append_cstr(b, "abc");
  qv_builder_append_null(b);
}

static void test_from_array(void **state) {
  (void)state;
  qvg_val v;
  qv_type_id ints[] = {QV_TYPE_INT8, QV_TYPE_INT16, QV_TYPE_INT32, QV_TYPE_INT64};
  for (size_t i = 0; i < 4; i++) {
    qv_array *a = build(ints[i], fill_ints);
    assert_int_equal(qvg_val_from_array(a, QVG_COL_VALUE, 0, &g_a, &v, NULL), QV_OK);
    assert_int_equal(v.t, QVG_V_INT);
    assert_int_equal(v.u.i, -3);
    assert_int_equal(qvg_val_from_array(a, QVG_COL_VALUE, 1, &g_a, &v, NULL), QV_OK);
    assert_int_equal(v.t, QVG_V_NULL);
    assert_int_equal(qvg_val_from_array(a, QVG_COL_VALUE, 2, &g_a, &v, NULL), QV_OK);
    assert_int_equal(v.u.i, 100);
    assert_int_equal(qvg_val_from_array(a, QVG_COL_VALUE, 3, &g_a, &v, NULL), QV_ERR_INVALID);
    qv_array_release(a);
  }
  qv_type_id uints[] = {QV_TYPE_UINT8, QV_TYPE_UINT16, QV_TYPE_UINT32, QV_TYPE_UINT64};
  for (size_t i = 0; i < 4; i++) {
    qv_type_id id = uints[i];
    qv_datatype t = qv_datatype_simple(id);
    qv_builder b;
    assert_int_equal(qv_builder_init(&b, &t, NULL), QV_OK);
    qv_builder_append_uint(&b, 7);
    qv_array *a;
    assert_int_equal(qv_builder_finish(&b, &a, NULL), QV_OK);
    assert_int_equal(qvg_val_from_array(a, QVG_COL_VALUE, 0, &g_a, &v, NULL), QV_OK);
    assert_int_equal(v.t, QVG_V_INT);
    assert_int_equal(v.u.i, 7);
    qv_array_release(a);
  }
  qv_array *u = build(QV_TYPE_UINT64, fill_uints);
  assert_int_equal(qvg_val_from_array(u, QVG_COL_VALUE, 1, &g_a, &v, NULL), QV_ERR_OVERFLOW);
  qv_array_release(u);
  qv_array *f = build(QV_TYPE_FLOAT64, fill_floats);
  assert_int_equal(qvg_val_from_array(f, QVG_COL_VALUE, 0, &g_a, &v, NULL), QV_OK);
  assert_int_equal(v.t, QVG_V_FLOAT);
  assert_true(v.u.f == 0.5);
  qv_array_release(f);
  f = build(QV_TYPE_FLOAT32, fill_floats);
  assert_int_equal(qvg_val_from_array(f, QVG_COL_VALUE, 0, &g_a, &v, NULL), QV_OK);
  assert_true(v.t == QVG_V_FLOAT && v.u.f == 0.5);
  assert_int_equal(qvg_val_from_array(f, QVG_COL_VALUE, 1, &g_a, &v, NULL), QV_OK);
  assert_int_equal(v.t, QVG_V_NULL);
  qv_array_release(f);
  qv_array *bo = build(QV_TYPE_BOOL, fill_bools);
  qv_array *sl;
  assert_int_equal(qv_array_slice(bo, 1, 1, &sl, NULL), QV_OK); /* offsets are applied */
  assert_int_equal(qvg_val_from_array(sl, QVG_COL_VALUE, 0, &g_a, &v, NULL), QV_OK);
  assert_true(v.t == QVG_V_BOOL && v.u.b);
  qv_array_release(sl);
  qv_array_release(bo);
  qv_array *s = build(QV_TYPE_STRING, fill_strings);
  assert_int_equal(qvg_val_from_array(s, QVG_COL_VALUE, 0, &g_a, &v, NULL), QV_OK);
  assert_string_equal(text(&v), "'abc'");

  /* dictionary<int32, string> */
  qv_datatype i32 = qv_datatype_simple(QV_TYPE_INT32);
  qv_builder ib;
  assert_int_equal(qv_builder_init(&ib, &i32, NULL), QV_OK);
  qv_builder_append_int(&ib, 0);
  qv_builder_append_int(&ib, 0);
  qv_array *idx, *dict;
  assert_int_equal(qv_builder_finish(&ib, &idx, NULL), QV_OK);
  assert_int_equal(qv_array_dictionary(idx, qv_array_retain(s), &dict, NULL), QV_OK);
  assert_int_equal(qvg_val_from_array(dict, QVG_COL_VALUE, 1, &g_a, &v, NULL), QV_OK);
  assert_string_equal(text(&v), "'abc'");
  qv_array_release(dict);
  qv_array_release(s);

  /* list<int64> */
  qv_datatype item = qv_datatype_simple(QV_TYPE_INT64), lt;
  assert_int_equal(qv_datatype_list(&item, &lt, NULL), QV_OK);
  qv_builder lb;
  assert_int_equal(qv_builder_init(&lb, &lt, NULL), QV_OK);
  qv_builder_append_int(&lb.children[0], 1);
  qv_builder_append_null(&lb.children[0]);
  qv_builder_append_valid(&lb);
  qv_builder_append_null(&lb);
  qv_builder_append_valid(&lb);
  qv_array *la;
  assert_int_equal(qv_builder_finish(&lb, &la, NULL), QV_OK);
  assert_int_equal(qvg_val_from_array(la, QVG_COL_VALUE, 0, &g_a, &v, NULL), QV_OK);
  assert_string_equal(text(&v), "[1, null]");
  assert_int_equal(qvg_val_from_array(la, QVG_COL_VALUE, 1, &g_a, &v, NULL), QV_OK);
  assert_int_equal(v.t, QVG_V_NULL);
  assert_int_equal(qvg_val_from_array(la, QVG_COL_VALUE, 2, &g_a, &v, NULL), QV_OK);
  assert_string_equal(text(&v), "[]");
  qv_array_release(la);
  qv_datatype_reset(&lt);

  /* NODE / REL columns and VALUE (binary) columns through qvg_val_append */
  qv_datatype i64 = qv_datatype_simple(QV_TYPE_INT64), bin = qv_datatype_simple(QV_TYPE_BINARY);
  qv_builder nb, vb;
  assert_int_equal(qv_builder_init(&nb, &i64, NULL), QV_OK);
  assert_int_equal(qv_builder_init(&vb, &bin, NULL), QV_OK);
  qvg_val node = qvg_node_val(42), rel = qvg_rel_val(43), nul = qvg_null();
  assert_int_equal(qvg_val_append(&nb, QVG_COL_NODE, &node, NULL), QV_OK);
  assert_int_equal(qvg_val_append(&nb, QVG_COL_NODE, &nul, NULL), QV_OK);
  qv_error err;
  assert_int_equal(qvg_val_append(&nb, QVG_COL_NODE, &rel, &err), QV_ERR_TYPE);
  assert_non_null(strstr(err.message, "Relationship"));
  qvg_val l = LIST(qvg_int(1), str("two"), map2("k", qvg_float(3), NULL, qvg_null()));
  assert_int_equal(qvg_val_append(&vb, QVG_COL_VALUE, &l, NULL), QV_OK);
  assert_int_equal(qvg_val_append(&vb, QVG_COL_VALUE, &nul, NULL), QV_OK);
  assert_int_equal(qvg_val_append(&vb, QVG_COL_VALUE, &node, NULL), QV_OK);
  qv_array *na, *va;
  assert_int_equal(qv_builder_finish(&nb, &na, NULL), QV_OK);
  assert_int_equal(qv_builder_finish(&vb, &va, NULL), QV_OK);
  assert_int_equal(na->length, 2);
  assert_int_equal(va->length, 3);
  assert_int_equal(qv_array_validate(va, NULL), QV_OK);
  assert_int_equal(qvg_val_from_array(na, QVG_COL_NODE, 0, &g_a, &v, NULL), QV_OK);
  assert_true(v.t == QVG_V_NODE && v.u.i == 42);
  assert_int_equal(qvg_val_from_array(na, QVG_COL_REL, 0, &g_a, &v, NULL), QV_OK);
  assert_true(v.t == QVG_V_REL && v.u.i == 42);
  assert_int_equal(qvg_val_from_array(na, QVG_COL_NODE, 1, &g_a, &v, NULL), QV_OK);
  assert_int_equal(v.t, QVG_V_NULL);
  assert_int_equal(qvg_val_from_array(va, QVG_COL_VALUE, 0, &g_a, &v, NULL), QV_OK);
  assert_string_equal(text(&v), "[1, 'two', {k: 3.0}]");
  assert_int_equal(qvg_val_from_array(va, QVG_COL_VALUE, 1, &g_a, &v, NULL), QV_OK);
  assert_int_equal(v.t, QVG_V_NULL);
  assert_int_equal(qvg_val_from_array(va, QVG_COL_VALUE, 2, &g_a, &v, NULL), QV_OK);
  assert_true(v.t == QVG_V_NODE && v.u.i == 42);
  qv_array_release(na);
  qv_array_release(va);
}

static qvg_val nan_v(void) { return qvg_float(NAN); }

static void test_equality_tck(void **state) {
  (void)state;
  /* Comparison1 [6] lists, [7] maps, [8] NaN, [9] strings and numbers */
  struct {
    qvg_val a, b;
    qvg_tri r;
  } cases[] = {
      {LIST(qvg_int(1), qvg_int(2)), LIST(qvg_int(1)), QVG_FALSE},
      {LIST(qvg_null()), LIST(qvg_int(1)), QVG_UNKNOWN},
      {LIST(str("a")), LIST(qvg_int(1)), QVG_FALSE},
      {LIST(LIST(qvg_int(1))), LIST(LIST(qvg_int(1)), LIST(qvg_null())), QVG_FALSE},
      {LIST(LIST(qvg_int(1)), LIST(qvg_int(2))), LIST(LIST(qvg_int(1)), LIST(qvg_null())), QVG_UNKNOWN},
      {LIST(LIST(qvg_int(1)), LIST(qvg_int(2), qvg_int(3))), LIST(LIST(qvg_int(1)), LIST(qvg_null())), QVG_FALSE},
      {map2(NULL, qvg_null(), NULL, qvg_null()), map2(NULL, qvg_null(), NULL, qvg_null()), QVG_TRUE},
      {map2("k", qvg_float(1), NULL, qvg_null()), map2("k", qvg_float(1), NULL, qvg_null()), QVG_TRUE},
      {map2("k", str("a"), "l", qvg_int(2)), map2("l", qvg_int(2), "k", str("a")), QVG_TRUE},
      {map2(NULL, qvg_null(), NULL, qvg_null()), map2("k", qvg_null(), NULL, qvg_null()), QVG_FALSE},
      {map2("k", qvg_int(1), NULL, qvg_null()), map2("k", qvg_int(1), "l", qvg_null()), QVG_FALSE},
      {map2("k", qvg_null(), "l", qvg_int(1)), map2("l", qvg_int(1), NULL, qvg_null()), QVG_FALSE},
      {map2("k", qvg_null(), NULL, qvg_null()), map2("k", qvg_null(), NULL, qvg_null()), QVG_UNKNOWN},
      {map2("k", qvg_int(1), "l", qvg_null()), map2("k", qvg_null(), "l", qvg_int(1)), QVG_UNKNOWN},
      {map2("k", qvg_int(1), "l", qvg_null()), map2("k", qvg_int(1), "l", qvg_int(1)), QVG_UNKNOWN},
      {nan_v(), qvg_int(1), QVG_FALSE},
      {nan_v(), qvg_float(1), QVG_FALSE},
      {nan_v(), nan_v(), QVG_FALSE},
      {nan_v(), str("a"), QVG_FALSE},
      {qvg_int(1), qvg_float(1.0), QVG_TRUE},
      {str("1.0"), qvg_float(1.0), QVG_FALSE},
      {str("1"), qvg_int(1), QVG_FALSE},
      {qvg_int(4611686018427387905), qvg_int(4611686018427387900), QVG_FALSE},
      {qvg_int((INT64_C(1) << 53) + 1), qvg_float(9007199254740992.0), QVG_FALSE},
      {qvg_int(INT64_C(1) << 53), qvg_float(9007199254740992.0), QVG_TRUE},
      {qvg_int(INT64_MAX), qvg_float(9223372036854775808.0), QVG_FALSE},
      {qvg_null(), qvg_null(), QVG_UNKNOWN},
      {qvg_node_val(1), qvg_node_val(1), QVG_TRUE},
      {qvg_node_val(1), qvg_rel_val(1), QVG_FALSE},
      {qvg_float(-0.0), qvg_float(0.0), QVG_TRUE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    qvg_tri r = qvg_val_equals(&cases[i].a, &cases[i].b);
    if (r != cases[i].r) fail_msg("case %zu: %s = %s gave %d", i, text(&cases[i].a), text(&cases[i].b), (int)r);
    assert_int_equal(qvg_val_equals(&cases[i].b, &cases[i].a), r);
  }
}

static qvg_tri lt_v(qvg_val a, qvg_val b, bool or_equal) { return qvg_val_less(&a, &b, or_equal); }

static void test_less_tck(void **state) {
  (void)state;
  /* Comparison2 [4] lists (>=), [5] NaN, [6] numbers and strings */
  assert_int_equal(lt_v(LIST(qvg_int(1)), LIST(qvg_int(1), qvg_int(0)), true), QVG_TRUE);
  assert_int_equal(lt_v(LIST(qvg_int(1)), LIST(qvg_int(1), qvg_null()), true), QVG_TRUE);
  assert_int_equal(lt_v(LIST(qvg_int(1), qvg_null()), LIST(qvg_int(1), qvg_int(2)), true), QVG_UNKNOWN);
  assert_int_equal(lt_v(LIST(qvg_int(1), qvg_null()), LIST(qvg_int(1), str("a")), true), QVG_UNKNOWN);
  assert_int_equal(lt_v(LIST(qvg_int(3), qvg_null()), LIST(qvg_int(1), qvg_int(2)), true), QVG_FALSE);
  qvg_val nan = nan_v(), one = qvg_int(1), onef = qvg_float(1), a = str("a");
  for (int oe = 0; oe < 2; oe++) {
    assert_int_equal(qvg_val_less(&nan, &one, oe), QVG_FALSE);
    assert_int_equal(qvg_val_less(&one, &nan, oe), QVG_FALSE);
    assert_int_equal(qvg_val_less(&nan, &onef, oe), QVG_FALSE);
    assert_int_equal(qvg_val_less(&nan, &nan, oe), QVG_FALSE);
    assert_int_equal(qvg_val_less(&nan, &a, oe), QVG_UNKNOWN);
  }
  assert_int_equal(qvg_val_less(&onef, &onef, false), QVG_FALSE);
  assert_int_equal(qvg_val_less(&one, &onef, false), QVG_FALSE);
  assert_int_equal(qvg_val_less(&one, &onef, true), QVG_TRUE);
  qvg_val s1 = str("1.0"), s2 = str("1");
  assert_int_equal(qvg_val_less(&s1, &onef, false), QVG_UNKNOWN);
  assert_int_equal(qvg_val_less(&s2, &one, false), QVG_UNKNOWN);
  qvg_val sa = str("a"), sb = str("b"), sab = str("ab"), f = qvg_bool(false), t = qvg_bool(true);
  assert_int_equal(qvg_val_less(&sa, &sb, false), QVG_TRUE);
  assert_int_equal(qvg_val_less(&sa, &sab, false), QVG_TRUE);
  assert_int_equal(qvg_val_less(&f, &t, false), QVG_TRUE);
  assert_int_equal(qvg_val_less(&t, &one, false), QVG_UNKNOWN);
  qvg_val n1 = qvg_node_val(1), n2 = qvg_node_val(2), nul = qvg_null();
  assert_int_equal(qvg_val_less(&n1, &n2, false), QVG_UNKNOWN);
  assert_int_equal(qvg_val_less(&nul, &one, true), QVG_UNKNOWN);
  /* exact across int and float at int64's edges */
  qvg_val big = qvg_int(INT64_MAX), two63 = qvg_float(9223372036854775808.0);
  assert_int_equal(qvg_val_less(&big, &two63, false), QVG_TRUE);
  qvg_val p = qvg_int((INT64_C(1) << 53) + 1), q = qvg_float(9007199254740992.0);
  assert_int_equal(qvg_val_less(&q, &p, false), QVG_TRUE);
  qvg_val mn = qvg_int(INT64_MIN), mnf = qvg_float(-9223372036854775808.0);
  assert_int_equal(qvg_val_equals(&mn, &mnf), QVG_TRUE);
}

static void test_order(void **state) {
  (void)state;
  /* MAP < NODE < REL < LIST < PATH < STRING < BOOL < numbers < null */
  qvg_val pitems[1] = {qvg_node_val(0)};
  qvg_val path = {QVG_V_PATH, 1, {0}};
  path.u.l = pitems;
  qvg_val seq[] = {map2("a", qvg_int(1), NULL, qvg_null()),
                   qvg_node_val(5),
                   qvg_rel_val(1),
                   LIST(qvg_int(1)),
                   path,
                   str("z"),
                   qvg_bool(false),
                   qvg_bool(true),
                   qvg_float(-INFINITY),
                   qvg_int(INT64_MIN),
                   qvg_float(-0.5),
                   qvg_int(0),
                   qvg_float(0.5),
                   qvg_int(INT64_MAX),
                   qvg_float(INFINITY),
                   qvg_float(NAN),
                   qvg_null()};
  size_t n = sizeof seq / sizeof seq[0];
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      int c = qvg_val_order(&seq[i], &seq[j]);
      int want = (i > j) - (i < j);
      if ((c > 0) - (c < 0) != want) fail_msg("order(%s, %s) = %d", text(&seq[i]), text(&seq[j]), c);
    }
  qvg_val z = qvg_float(-0.0), zi = qvg_int(0), nan2 = qvg_float(-NAN), nan = qvg_float(NAN);
  assert_int_equal(qvg_val_order(&z, &zi), 0);
  assert_int_equal(qvg_val_order(&nan, &nan2), 0);
}

/* ---- random values for the sort-key property ---- */

static uint64_t g_rng = 88172645463325252u;
static uint64_t rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}

static qvg_val rand_num(void) {
  static const int64_t ints[] = {0,
                                 1,
                                 -1,
                                 2,
                                 INT64_MAX,
                                 INT64_MIN,
                                 INT64_MAX - 1,
                                 INT64_MIN + 1,
                                 (INT64_C(1) << 53),
                                 (INT64_C(1) << 53) + 1,
                                 -(INT64_C(1) << 53) - 1,
                                 INT64_C(1) << 62,
                                 4611686018427387905};
  static const double floats[] = {0.0,
                                  -0.0,
                                  1.0,
                                  -1.0,
                                  0.5,
                                  2.0,
                                  1e308,
                                  -1e308,
                                  9007199254740992.0,
                                  9223372036854775808.0,
                                  -9223372036854775808.0,
                                  4611686018427387904.0,
                                  1e-300};
  switch (rnd() % 6) {
    case 0: return qvg_int(ints[rnd() % (sizeof ints / sizeof ints[0])]);
    case 1: return qvg_float(floats[rnd() % (sizeof floats / sizeof floats[0])]);
    case 2: return qvg_int((int64_t)(rnd() % 7) - 3);
    case 3: return qvg_float((double)((int64_t)(rnd() % 7) - 3) / 2);
    case 4: {
      uint64_t r = rnd() % 5;
      return qvg_float(r == 0 ? NAN : r == 1 ? -NAN : r == 2 ? INFINITY : r == 3 ? -INFINITY : (double)rnd());
    }
    default: return qvg_int((int64_t)rnd());
  }
}

static qvg_val rand_val(int depth) {
  static const char *strs[] = {"", "a", "ab", "b", "a\0", "a\0b", "\0", "\0\0", "\xc3\xa9", "a\x01"};
  static const int32_t lens[] = {0, 1, 2, 1, 2, 3, 1, 2, 2, 2};
  uint64_t k = rnd() % (depth > 2 ? 7 : 10);
  switch (k) {
    case 0: return qvg_null();
    case 1: return qvg_bool(rnd() & 1);
    case 2:
    case 3: return rand_num();
    case 4: {
      size_t i = rnd() % 10;
      return qvg_string(strs[i], lens[i]);
    }
    case 5: return qvg_node_val((int64_t)(rnd() % 5) - 2);
    case 6: return qvg_rel_val((int64_t)(rnd() % 3));
    case 7:
    case 8: {
      int32_t n = (int32_t)(rnd() % 4);
      qvg_val items[4];
      for (int32_t i = 0; i < n; i++) items[i] = rand_val(depth + 1);
      return list(n, items);
    }
    default: {
      static const char *keys[] = {"a", "b", "ab", ""};
      int32_t n = (int32_t)(rnd() % 3);
      qvg_entry e[3];
      for (int32_t i = 0; i < n; i++) {
        const char *key = keys[rnd() % 4];
        e[i] = (qvg_entry){key, (int32_t)strlen(key), rand_val(depth + 1)};
      }
      qvg_val m;
      assert_int_equal(qvg_map_make(&g_a, e, n, &m, NULL), QV_OK);
      return m;
    }
  }
}

static int key_cmp(const qv_buffer *a, const qv_buffer *b) {
  int64_t n = a->size < b->size ? a->size : b->size;
  int c = n ? memcmp(a->data, b->data, (size_t)n) : 0;
  if (c) return c < 0 ? -1 : 1;
  return (a->size > b->size) - (a->size < b->size);
}

static void test_sortkey_property(void **state) {
  (void)state;
  qv_buffer ka = QV_BUFFER_INIT, kb = QV_BUFFER_INIT;
  int zero = 0, neg = 0;
  for (int i = 0; i < 20000; i++) {
    qvg_val a = rand_val(0), b = (rnd() % 4 == 0) ? a : rand_val(0);
    if (rnd() % 3 == 0) {
      a = rand_num();
      b = rand_num();
    }
    ka.size = kb.size = 0;
    assert_int_equal(qvg_val_sortkey(&a, &ka, NULL), QV_OK);
    assert_int_equal(qvg_val_sortkey(&b, &kb, NULL), QV_OK);
    int o = qvg_val_order(&a, &b), k = key_cmp(&ka, &kb);
    o = (o > 0) - (o < 0);
    if (o != k) fail_msg("pair %d: order(%s, %s) = %d, keys %d", i, text(&a), text(&b), o, k);
    assert_int_equal(-o, (qvg_val_order(&b, &a) > 0) - (qvg_val_order(&b, &a) < 0));
    zero += o == 0;
    neg += o < 0;
    /* where both are comparable and not equal, < agrees with the order */
    qvg_tri lt = qvg_val_less(&a, &b, false);
    if (lt == QVG_TRUE) assert_true(o < 0);
    if (qvg_val_equals(&a, &b) == QVG_TRUE) assert_int_equal(o, 0);
    if (i % 1000 == 0) qvg_arena_clear(&g_a);
  }
  assert_true(zero > 1000 && neg > 3000); /* the generator exercises ties and both directions */
  qv_buffer_reset(&ka);
  qv_buffer_reset(&kb);
}

static void test_float_text(void **state) {
  (void)state;
  /* expressions/literals/Literals5.feature */
  struct {
    double f;
    const char *t;
  } cases[] = {
      {1.0, "1.0"},
      {0.1, "0.1"},
      {3985764.3405892686, "3985764.3405892686"},
      {0.3405892687, "0.3405892687"},
      {1.2635418652381264e305, "1.2635418652381264e305"},
      {1e-305, "1e-305"},
      {0.0, "0.0"},
      {-0.0, "0.0"},
      {-1.2635418652381264e305, "-1.2635418652381264e305"},
      {-1e-305, "-1e-305"},
      {1e9, "1000000000.0"},
      {1e8, "100000000.0"},
      {0.00001, "0.00001"},
      {0.000001, "0.000001"},
      {-1e9, "-1000000000.0"},
      {-0.000001, "-0.000001"},
      {1e308, "1e308"},
      {1.23456789e308, "1.23456789e308"},
      {1.5, "1.5"},
      {-2.5, "-2.5"},
      {NAN, "NaN"},
      {INFINITY, "Infinity"},
      {-INFINITY, "-Infinity"},
      {0.1 + 0.2, "0.30000000000000004"},
      {123.0, "123.0"},
      {1e20, "100000000000000000000.0"},
      {1e21, "1e21"},
      {1e-7, "1e-7"},
      {1.5e-7, "1.5e-7"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) assert_string_equal(ftext(cases[i].f), cases[i].t);
}

static void test_render(void **state) {
  (void)state;
  qvg_val v = LIST(qvg_null(), qvg_bool(true), qvg_int(-7), qvg_float(2), str("it's a \\ test"),
                   map2("name", str("x"), "age", qvg_int(3)), EMPTY);
  assert_string_equal(text(&v), "[null, true, -7, 2.0, 'it\\'s a \\\\ test', {age: 3, name: 'x'}, []]");
  qvg_val e = map2(NULL, qvg_null(), NULL, qvg_null());
  assert_string_equal(text(&e), "{}");
  assert_string_equal(qvg_vtype_name(QVG_V_REL), "Relationship");
  assert_string_equal(qvg_vtype_name(QVG_V_INT), "Integer");
}

static int teardown(void **state) {
  (void)state;
  qvg_arena_free(&g_a);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arena),          cmocka_unit_test(test_map),        cmocka_unit_test(test_encoding),
      cmocka_unit_test(test_decode_hostile), cmocka_unit_test(test_from_array), cmocka_unit_test(test_equality_tck),
      cmocka_unit_test(test_less_tck),       cmocka_unit_test(test_order),      cmocka_unit_test(test_sortkey_property),
      cmocka_unit_test(test_float_text),     cmocka_unit_test(test_render),
  };
  return cmocka_run_group_tests(tests, NULL, teardown);
}
