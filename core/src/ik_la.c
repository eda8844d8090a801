/* Small dense kernels of the IK solvers (Cholesky, LU) and the textbook Newton step.
 *
 * rigkit/linalg.h offers general versions; these are the few the solver's inner loop runs on
 * every iteration, written for the column-major layout and sizes it uses (a few to a hundred
 * rows), with no checks beyond what the solver needs. */
#include "ik_internal.h"
#include "ik_kernels.h"

#include <string.h>

bool rk__ik_cholesky(size_t n, double *A, size_t lda) { return rk__ik_cholesky_impl(n, A, lda); }

void rk__ik_cholesky_solve(size_t n, const double *L, size_t lda, double *b) {
  rk__ik_forward(n, L, lda, b);
  rk__ik_backward(n, L, lda, b);
}

/* LU with partial pivoting of the n x n matrix A in place; false when a pivot is zero. */
static bool lu_factor(size_t n, double *A, size_t lda, int *piv) {
  for (size_t j = 0; j < n; j++) {
    size_t p = j;
    double best = fabs(A[j * lda + j]);
    for (size_t i = j + 1; i < n; i++)
      if (fabs(A[j * lda + i]) > best) {
        best = fabs(A[j * lda + i]);
        p = i;
      }
    piv[j] = (int)p;
    if (!(best > 0.0) || !isfinite(best))
      return false;
    if (p != j)
      for (size_t c = 0; c < n; c++) {
        double t = A[c * lda + j];
        A[c * lda + j] = A[c * lda + p];
        A[c * lda + p] = t;
      }
    const double inv = 1.0 / A[j * lda + j];
    for (size_t i = j + 1; i < n; i++)
      A[j * lda + i] *= inv;
    for (size_t c = j + 1; c < n; c++) {
      const double f = A[c * lda + j];
      for (size_t i = j + 1; i < n; i++)
        A[c * lda + i] -= A[j * lda + i] * f;
    }
  }
  return true;
}

static void lu_solve(size_t n, const double *LU, size_t lda, const int *piv, double *b) {
  for (size_t j = 0; j < n; j++) {
    const size_t p = (size_t)piv[j];
    if (p != j) {
      double t = b[j];
      b[j] = b[p];
      b[p] = t;
    }
  }
  for (size_t j = 0; j < n; j++)
    for (size_t i = j + 1; i < n; i++)
      b[i] -= LU[j * lda + i] * b[j];
  for (size_t j = n; j-- > 0;) {
    b[j] /= LU[j * lda + j];
    for (size_t i = 0; i < j; i++)
      b[i] -= LU[j * lda + i] * b[j];
  }
}

size_t rk_ik_newton_step_work(size_t m, size_t n) {
  const size_t k = MAX(m, n);
  /* normal matrix k x k, a k vector, and k pivots stored as doubles' worth of ints */
  return k * k + 2 * k + 1;
}

rk_ik_step_kind rk_ik_newton_step(size_t m, size_t n, const double *J, size_t ld, const double *e,
                                  double lambda, double *dq, double *work) {
  g_return_val_if_fail(J != NULL && e != NULL && dq != NULL && work != NULL && ld >= m,
                       RK_IK_STEP_SINGULAR);
  memset(dq, 0, n * sizeof(double));
  if (m == 0 || n == 0)
    return RK_IK_STEP_SINGULAR;
  const double l2 = lambda > 0 ? lambda * lambda : 0.0;
  double *G = work, *v = work + MAX(m, n) * MAX(m, n);
  if (l2 == 0.0 && m == n) {
    /* Regular: dq = J^-1 e. */
    for (size_t c = 0; c < n; c++)
      memcpy(G + c * n, J + c * ld, n * sizeof(double));
    int *piv = (int *)(v + n);
    memcpy(v, e, n * sizeof(double));
    if (!lu_factor(n, G, n, piv))
      return RK_IK_STEP_SINGULAR;
    lu_solve(n, G, n, piv, v);
    memcpy(dq, v, n * sizeof(double));
    return RK_IK_STEP_REGULAR;
  }
  if (m > n) {
    /* Over-determined (or damped and tall): dq = (J^T J + l2 I)^-1 J^T e. */
    for (size_t a = 0; a < n; a++) {
      for (size_t b = a; b < n; b++) {
        double s = 0;
        for (size_t r = 0; r < m; r++)
          s += J[a * ld + r] * J[b * ld + r];
        G[a * n + b] = s; /* lower triangle: row b, column a */
      }
      G[a * n + a] += l2;
      double s = 0;
      for (size_t r = 0; r < m; r++)
        s += J[a * ld + r] * e[r];
      v[a] = s;
    }
    if (!rk__ik_cholesky(n, G, n))
      return RK_IK_STEP_SINGULAR;
    rk__ik_cholesky_solve(n, G, n, v);
    memcpy(dq, v, n * sizeof(double));
    return l2 > 0 ? RK_IK_STEP_DAMPED : RK_IK_STEP_OVERDETERMINED;
  }
  /* Under-determined (or damped and wide): dq = J^T (J J^T + l2 I)^-1 e. */
  memset(G, 0, m * m * sizeof(double));
  for (size_t c = 0; c < n; c++) {
    const double *col = J + c * ld;
    for (size_t b = 0; b < m; b++) {
      const double f = col[b];
      for (size_t a = b; a < m; a++)
        G[b * m + a] += col[a] * f;
    }
  }
  for (size_t a = 0; a < m; a++)
    G[a * m + a] += l2;
  memcpy(v, e, m * sizeof(double));
  if (!rk__ik_cholesky(m, G, m))
    return RK_IK_STEP_SINGULAR;
  rk__ik_cholesky_solve(m, G, m, v);
  for (size_t c = 0; c < n; c++) {
    double s = 0;
    for (size_t r = 0; r < m; r++)
      s += J[c * ld + r] * v[r];
    dq[c] = s;
  }
  return l2 > 0 ? RK_IK_STEP_DAMPED : RK_IK_STEP_UNDERDETERMINED;
}
