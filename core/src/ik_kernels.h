/* Internal: dense kernels of the IK solver, always inlined so that each multiversioned caller
 * (cpu.h: baseline x86-64 and AVX2+FMA) gets its own vector code. GNU vector extension: 4 doubles
 * are one AVX register or two SSE2 registers. Column-major storage throughout. */
#ifndef RK_IK_KERNELS_H
#define RK_IK_KERNELS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef double rk__ik_v4d __attribute__((vector_size(32)));

#define RK__IK_INLINE static inline __attribute__((always_inline))

/* Unaligned loads and stores as macros: a function passing a 32-byte vector by value would
 * change the ABI between the baseline and AVX variants. */
#define RK__IK_LOAD4(v, p) memcpy(&(v), (p), sizeof(rk__ik_v4d))
#define RK__IK_STORE4(p, v) memcpy((p), &(v), sizeof(rk__ik_v4d))

/* a . b over n entries (two vector sums, so consecutive additions do not wait on each other). */
RK__IK_INLINE double rk__ik_dot(const double *restrict a, const double *restrict b, size_t n) {
  rk__ik_v4d s0 = {0, 0, 0, 0}, s1 = {0, 0, 0, 0};
  size_t i = 0;
  rk__ik_v4d x0, y0, x1, y1;
  for (; i + 8 <= n; i += 8) {
    RK__IK_LOAD4(x0, a + i);
    RK__IK_LOAD4(y0, b + i);
    RK__IK_LOAD4(x1, a + i + 4);
    RK__IK_LOAD4(y1, b + i + 4);
    s0 += x0 * y0;
    s1 += x1 * y1;
  }
  if (i + 4 <= n) {
    RK__IK_LOAD4(x0, a + i);
    RK__IK_LOAD4(y0, b + i);
    s0 += x0 * y0;
    i += 4;
  }
  s0 += s1;
  double s = (s0[0] + s0[1]) + (s0[2] + s0[3]);
  for (; i < n; i++)
    s += a[i] * b[i];
  return s;
}

/* y += alpha x over n entries. */
RK__IK_INLINE void rk__ik_axpy(double alpha, const double *restrict x, double *restrict y,
                               size_t n) {
  const rk__ik_v4d a = {alpha, alpha, alpha, alpha};
  size_t i = 0;
  rk__ik_v4d xv, yv;
  for (; i + 4 <= n; i += 4) {
    RK__IK_LOAD4(xv, x + i);
    RK__IK_LOAD4(yv, y + i);
    yv += a * xv;
    RK__IK_STORE4(y + i, yv);
  }
  for (; i < n; i++)
    y[i] += alpha * x[i];
}

/* y *= alpha over n entries. */
RK__IK_INLINE void rk__ik_scal(double alpha, double *y, size_t n) {
  for (size_t i = 0; i < n; i++)
    y[i] *= alpha;
}

/* In place Cholesky of the n x n SPD matrix A (lower triangle, right-looking so every inner loop
 * runs down a contiguous column); false when a pivot is not > 0 (or not finite). */
RK__IK_INLINE bool rk__ik_cholesky_impl(size_t n, double *A, size_t lda) {
  for (size_t j = 0; j < n; j++) {
    double *cj = A + j * lda;
    const double d = cj[j];
    if (!(d > 0.0) || !isfinite(d))
      return false;
    const double l = sqrt(d);
    cj[j] = l;
    rk__ik_scal(1.0 / l, cj + j + 1, n - j - 1);
    for (size_t k = j + 1; k < n; k++)
      rk__ik_axpy(-cj[k], cj + k, A + k * lda + k, n - k);
  }
  return true;
}

/* Solves L x = b in place (forward substitution). */
RK__IK_INLINE void rk__ik_forward(size_t n, const double *L, size_t lda, double *b) {
  for (size_t j = 0; j < n; j++) {
    const double *cj = L + j * lda;
    const double x = b[j] / cj[j];
    b[j] = x;
    rk__ik_axpy(-x, cj + j + 1, b + j + 1, n - j - 1);
  }
}

/* Solves L^T x = b in place (back substitution). */
RK__IK_INLINE void rk__ik_backward(size_t n, const double *L, size_t lda, double *b) {
  for (size_t j = n; j-- > 0;) {
    const double *cj = L + j * lda;
    b[j] = (b[j] - rk__ik_dot(cj + j + 1, b + j + 1, n - j - 1)) / cj[j];
  }
}

/* Forward substitution for k right-hand sides stored as the columns of Xt (f x k, column j one
 * row of the right-hand side): column j becomes (X_j - sum_{i<j} L_ji X_i) / L_jj. */
RK__IK_INLINE void rk__ik_forward_multi(size_t k, const double *L, size_t ldl, double *Xt,
                                        size_t f) {
  for (size_t j = 0; j < k; j++) {
    double *xj = Xt + j * f;
    for (size_t i = 0; i < j; i++) {
      const double l = L[i * ldl + j];
      if (l != 0.0)
        rk__ik_axpy(-l, Xt + i * f, xj, f);
    }
    rk__ik_scal(1.0 / L[j * ldl + j], xj, f);
  }
}

#endif
