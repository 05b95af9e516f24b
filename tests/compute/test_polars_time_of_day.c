/* dt.hour / dt.minute / dt.second of timestamps and times: the loop with
 * constant units (polars_temporal.c, tod_part_fast) against an oracle in
 * 128-bit floor arithmetic, over every unit, UTC and fixed offsets, and
 * values at both ends of int64 (where the zone shift overflows and the
 * generic loop takes over).  Each result is also checked through a
 * selection, which takes the generic loop. */
#include "compute/compute_test.h"

#include "quiver/expr.h"

static const char *const units[] = {"s", "ms", "us", "ns"};
static const int64_t per_second[] = {1, 1000, 1000000, 1000000000};

static int64_t oracle(int64_t v, int64_t per, int64_t off_s, const char *part) {
  qv_int128 day = (qv_int128)86400 * per, local = (qv_int128)v + (qv_int128)off_s * per;
  qv_int128 t = ((local % day) + day) % day;
  int64_t secs = (int64_t)(t / per);
  if (!strcmp(part, "hour")) return secs / 3600;
  if (!strcmp(part, "minute")) return secs / 60 % 60;
  return secs % 60;
}

static void test_time_of_day_parts(void **state) {
  (void)state;
  enum { N = 4096 };
  static tval vals[N];
  int64_t raw[N];
  uint64_t rng = 99;
  const int64_t edges[] = {INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1, -1, 0, 1, -86400, 86399};
  for (int i = 0; i < N; i++) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    raw[i] = i < 9 ? edges[i] : (i % 3 == 0 ? (int64_t)rng : (int64_t)(rng >> 20) - (INT64_C(1) << 43));
    vals[i] = TI(raw[i]);
  }
  const char *zones[] = {NULL, "+05:30", "-09:45"};
  const int64_t offs[] = {0, 5 * 3600 + 1800, -(9 * 3600 + 2700)};
  const char *parts[] = {"hour", "minute", "second"};
  qv_selection every_other = QV_SELECTION_INIT;
  assert_int_equal(qv_selection_reserve(&every_other, N), QV_OK);
  for (int i = 0; i < N; i += 2) every_other.rows[every_other.count++] = (uint32_t)i;
  for (int u = 0; u < 4; u++)
    for (int z = 0; z < 3; z++) {
      char type[64];
      if (zones[z]) snprintf(type, sizeof type, "timestamp[%s, %s]", units[u], zones[z]);
      else snprintf(type, sizeof type, "timestamp[%s]", units[u]);
      qv_array *col = t_arr(type, vals, N);
      qv_batch *b = t_batch(&col, 1);
      for (int p = 0; p < 3; p++) {
        char text[64];
        snprintf(text, sizeof text, "pl.col(\"c0\").dt.%s()", parts[p]);
        qv_expr *e;
        qv_error err;
        assert_int_equal(qv_polars_parse(text, &e, &err), QV_OK);
        if (qv_expr_bind(e, &b->schema, &err) != QV_OK) fail_msg("%s on %s: %s", text, type, err.message);
        for (int through_sel = 0; through_sel <= 1; through_sel++) {
          qv_array *out;
          if (qv_eval(e, b, through_sel ? &every_other : NULL, &out, &err) != QV_OK)
            fail_msg("%s on %s: %s", text, type, err.message);
          int64_t n = through_sel ? every_other.count : N;
          assert_int_equal(out->length, n);
          for (int64_t k = 0; k < n; k++) {
            int64_t row = through_sel ? every_other.rows[k] : k;
            int64_t want = oracle(raw[row], per_second[u], offs[z], parts[p]);
            int64_t got = out->type.id == QV_TYPE_INT8 ? ((const int8_t *)qv_array_values(out))[k]
                                                       : ((const int64_t *)qv_array_values(out))[k];
            if (got != want)
              fail_msg("%s on %s, value %lld (row %lld%s): got %lld, want %lld", text, type, (long long)raw[row],
                       (long long)row, through_sel ? ", through a selection" : "", (long long)got, (long long)want);
          }
          qv_array_release(out);
        }
        qv_expr_destroy(e);
      }
      qv_batch_release(b);
    }
  qv_selection_reset(&every_other);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_time_of_day_parts)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
