/* Internal: run-time CPU dispatch for hot kernels.
 *
 * RK__MULTIVERSION(ret, name, params, args, body) defines `ret name params` that runs `body`
 * compiled twice, for baseline x86-64 and for AVX2+FMA, choosing once per process by what the CPU
 * supports (GCC's target_clones resolver does not pick ISA levels reliably, so rigkit picks).
 * Results may differ between the two variants in the last bits (FMA rounding), never between
 * runs on one machine. Elsewhere (other CPUs, sanitizer builds) there is one variant. rk_tree_fk's
 * pass (tree_fk.c) has a third, AVX-512 variant for its 8-wide trigonometry. The environment
 * variable RIGKIT_CPU=baseline or =avx2 caps the level picked (cpu.c). */
#ifndef RK_CPU_H
#define RK_CPU_H

#include <stdbool.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(RK_NO_MULTIVERSION)
/** True when the CPU runs AVX2 and FMA code and RIGKIT_CPU does not cap it (cached after the
 * first call; thread-safe). */
bool rk__cpu_has_avx2_fma(void);
/** True when the CPU (and the OS) run AVX-512 F, DQ and VL code and RIGKIT_CPU does not cap it
 * (cached; thread-safe). */
bool rk__cpu_has_avx512(void);
#define RK__MULTIVERSION(ret, name, params, args, body)                                          \
  static ret name##_base params body                                                             \
  __attribute__((target("avx2,fma"))) static ret name##_avx2 params body                         \
  static ret name params {                                                                       \
    return rk__cpu_has_avx2_fma() ? name##_avx2 args : name##_base args;                         \
  }
/* The same with `ret name params` external (an rk__ function other files call) and both variants
 * kept out of line, as they are when a static dispatcher is inlined into several callers. */
#define RK__MULTIVERSION_EXTERN(ret, name, params, args, body)                                   \
  __attribute__((noinline)) static ret name##_base params body                                   \
  __attribute__((noinline, target("avx2,fma"))) static ret name##_avx2 params body               \
  ret name params {                                                                              \
    return rk__cpu_has_avx2_fma() ? name##_avx2 args : name##_base args;                         \
  }
/* The same with the second variant compiled for AVX2 without FMA: both variants round every
 * operation alike, so they give the same bits as each other and as scalar code doing the same
 * operations (the wider registers only do more of them at once). */
#define RK__MULTIVERSION_EXACT(ret, name, params, args, body)                                    \
  static ret name##_base params body                                                             \
  __attribute__((target("avx2"))) static ret name##_avx2 params body                             \
  static ret name params {                                                                       \
    return rk__cpu_has_avx2_fma() ? name##_avx2 args : name##_base args;                         \
  }
#else
#define RK__MULTIVERSION(ret, name, params, args, body) static ret name params body
#define RK__MULTIVERSION_EXTERN(ret, name, params, args, body) ret name params body
#define RK__MULTIVERSION_EXACT(ret, name, params, args, body) static ret name params body
#endif

#endif
