/* Internal: rk_sincos in every lane of a GNU vector, for the FK passes over many angles at once
 * (tree_fk.c: the DOFs of one pose; tree_fk_batch.c: one DOF of many poses). Each lane does the
 * scalar rk_sincos's operations in the same order, so a lane gives its bits wherever both are
 * compiled alike (with or without FMA contraction). */
#ifndef RK_SINCOS_LANES_H
#define RK_SINCOS_LANES_H

#include <rigkit/math.h>

#include <string.h>

/* sin and cos of the vector at x into s and c: rk_sincos's reduction and kernels in every lane (VD,
 * VU, VI: the double, unsigned and signed vector types of one width), the quadrant picked with
 * bit operations. Clears the lanes of ok where x is beyond the kernel's range (|x| >= 1e5, NaN);
 * the caller redoes those with rk_sincos (libm). A macro so one definition serves every width;
 * its names start with sl_ so that they shadow none of the caller's. */
#define RK__SINCOS_LANES(VD, VU, VI, x, s, c, ok)                                                  \
  do {                                                                                             \
    VD sl_v;                                                                                       \
    memcpy(&sl_v, (x), sizeof sl_v);                                                               \
    const VD sl_kk = sl_v * RK__SINCOS_2_OVER_PI + RK__SINCOS_ROUND;                               \
    const VD sl_k = sl_kk - RK__SINCOS_ROUND;                                                      \
    const VD sl_r = (sl_v - sl_k * RK__SINCOS_PIO2_HI) - sl_k * RK__SINCOS_PIO2_LO;                \
    const VD sl_r2 = sl_r * sl_r, sl_r4 = sl_r2 * sl_r2, sl_r8 = sl_r4 * sl_r4;                    \
    const VD sl_sr = RK__SIN_KERNEL(sl_r, sl_r2, sl_r4, sl_r8);                                    \
    const VD sl_cr = RK__COS_KERNEL(sl_r2, sl_r4, sl_r8);                                          \
    /* The low bits of kk's representation are k mod 4 (two's complement for negative k). */       \
    const VU sl_q = (VU)sl_kk & 3;                                                                 \
    const VU sl_swap = -(sl_q & 1); /* all ones in odd quadrants */                                \
    const VU sl_a = ((VU)sl_cr & sl_swap) | ((VU)sl_sr & ~sl_swap);                                \
    const VU sl_b = ((VU)sl_sr & sl_swap) | ((VU)sl_cr & ~sl_swap);                                \
    const VD sl_so = (VD)(sl_a ^ ((sl_q & 2) << 62));                                              \
    const VD sl_co = (VD)(sl_b ^ (((sl_q + 1) & 2) << 62));                                        \
    memcpy((s), &sl_so, sizeof sl_so);                                                             \
    memcpy((c), &sl_co, sizeof sl_co);                                                             \
    const VD sl_av = (VD)((VU)sl_v & 0x7fffffffffffffffULL);                                       \
    (ok) &= (VI)(sl_av < 1e5); /* false for NaN */                                                 \
  } while (0)

#endif
