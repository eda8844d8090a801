/* Run-time CPU feature detection for the multiversioned kernels (see cpu.h). */
#include "cpu.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(RK_NO_MULTIVERSION)
#include <stdlib.h>
#include <string.h>

/* Highest kernel level this process runs: 0 baseline, 1 AVX2+FMA, 2 AVX-512 (F, DQ, VL), from
 * the CPU, capped by the environment variable RIGKIT_CPU ("baseline" or "avx2"; tests use it to
 * run every variant on one machine). Computed once; racing first calls compute the same answer. */
static int cpu_level(void) {
  static int state; /* 0 = not yet known, else level + 1 */
  int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
  if (s == 0) {
    __builtin_cpu_init();
    int level = 0;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      level = 1;
      if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
          __builtin_cpu_supports("avx512vl"))
        level = 2;
    }
    const char *cap = getenv("RIGKIT_CPU");
    if (cap && strcmp(cap, "baseline") == 0)
      level = 0;
    else if (cap && strcmp(cap, "avx2") == 0 && level > 1)
      level = 1;
    s = level + 1;
    __atomic_store_n(&state, s, __ATOMIC_RELAXED);
  }
  return s - 1;
}

bool rk__cpu_has_avx2_fma(void) {
  return cpu_level() >= 1;
}

bool rk__cpu_has_avx512(void) {
  return cpu_level() >= 2;
}
#endif
