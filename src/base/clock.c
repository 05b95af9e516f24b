/* Time and process memory, for counters and the benchmarks. */
#include "quiver/base.h"

#include <sys/resource.h>
#include <time.h>

double qv_now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int64_t qv_peak_rss_bytes(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
  return (int64_t)ru.ru_maxrss * 1024; /* Linux reports KiB */
}
