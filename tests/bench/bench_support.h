/* Timing helpers shared by rigkit's benchmark programs: the same method as the KDL peer harness
 * (warm-up, `reps` repetitions of `iters` calls, median / min / max ns per call) and the same
 * output line format, so ../shared/bench/kdl/summarize.py reads both. */
#ifndef RK_BENCH_SUPPORT_H
#define RK_BENCH_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/** Monotonic clock in nanoseconds. */
double rk_bench_now_ns(void);
/** CPU time of the whole process (every thread) in seconds. */
double rk_bench_cpu_s(void);
/** Calls fn(ctx, i) for i in [0, iters) once to warm up, then `reps` times timed; returns the
 * median ns per call and stores min and max through the pointers. */
double rk_bench_run(void (*fn)(void *ctx, long i), void *ctx, long iters, int reps, double *min_ns,
                    double *max_ns);
/** Prints `rigkit NAME ns_per_call=.. ns_per_joint=.. min_ns_per_call=.. max_ns_per_call=..
 * joints=.. reps=.. iters_per_rep=.. EXTRA`. */
void rk_bench_report(const char *name, double med, double min_ns, double max_ns, int joints,
                     int reps, long iters, const char *extra);
/** Median and nearest-rank percentile of v[n] (sorts v). */
double rk_bench_median(double *v, size_t n);
double rk_bench_percentile(double *v, size_t n, double p);
/** splitmix64 generator, as kdl_bench uses; uniform double in [lo, hi). */
typedef struct rk_bench_rng {
  uint64_t s;
} rk_bench_rng;
double rk_bench_uniform(rk_bench_rng *r, double lo, double hi);
/** Sink that defeats dead-code elimination. */
extern volatile double rk_bench_sink;

#endif
