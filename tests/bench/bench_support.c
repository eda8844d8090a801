/* Timing helpers for the benchmarks (see bench_support.h). */
#include "bench_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile double rk_bench_sink;

double rk_bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double rk_bench_cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double rk_bench_median(double *v, size_t n) {
  if (n == 0)
    return 0;
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double rk_bench_percentile(double *v, size_t n, double p) {
  if (n == 0)
    return 0;
  qsort(v, n, sizeof *v, cmp_double);
  size_t k = (size_t)(p / 100.0 * (double)n + 0.999999999);
  if (k < 1)
    k = 1;
  if (k > n)
    k = n;
  return v[k - 1];
}

double rk_bench_run(void (*fn)(void *ctx, long i), void *ctx, long iters, int reps, double *min_ns,
                    double *max_ns) {
  double per[64];
  if (reps > 64)
    reps = 64;
  for (long i = 0; i < iters; i++)
    fn(ctx, i);
  for (int r = 0; r < reps; r++) {
    double t0 = rk_bench_now_ns();
    for (long i = 0; i < iters; i++)
      fn(ctx, i);
    per[r] = (rk_bench_now_ns() - t0) / (double)iters;
  }
  double lo = per[0], hi = per[0];
  for (int r = 1; r < reps; r++) {
    lo = per[r] < lo ? per[r] : lo;
    hi = per[r] > hi ? per[r] : hi;
  }
  if (min_ns)
    *min_ns = lo;
  if (max_ns)
    *max_ns = hi;
  return rk_bench_median(per, (size_t)reps);
}

void rk_bench_report(const char *name, double med, double min_ns, double max_ns, int joints,
                     int reps, long iters, const char *extra) {
  printf("rigkit %s ns_per_call=%.1f ns_per_joint=%.2f min_ns_per_call=%.1f max_ns_per_call=%.1f "
         "joints=%d reps=%d iters_per_rep=%ld %s\n",
         name, med, med / joints, min_ns, max_ns, joints, reps, iters, extra ? extra : "");
  fflush(stdout);
}

double rk_bench_uniform(rk_bench_rng *r, double lo, double hi) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return lo + (hi - lo) * ((double)(z >> 11) * (1.0 / 9007199254740992.0));
}
