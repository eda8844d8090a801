/* Run-time CPU feature detection for the multiversioned kernels (see cpu.h). */
#include "cpu.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(RK_NO_MULTIVERSION)
bool rk__cpu_has_avx2_fma(void) {
  /* 0 = not yet known, 1 = no, 2 = yes. Racing first calls compute the same answer. */
  static int state;
  int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
  if (s == 0) {
    __builtin_cpu_init();
    s = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 2 : 1;
    __atomic_store_n(&state, s, __ATOMIC_RELAXED);
  }
  return s == 2;
}
#endif
