/* rigkit/linalg.h: small dense linear algebra in double precision on caller-owned buffers.
 *
 * Meant for kinematics-sized problems (up to a few hundred rows/columns: Jacobians, normal
 * equations, closure rank). Nothing here allocates, nothing keeps a pointer after it returns, and
 * every function is re-entrant (safe on many threads with distinct buffers).
 *
 * Storage: matrices are column-major with a leading dimension, as in LAPACK: element (r, c) of an
 * m x n matrix A with leading dimension lda (>= m) is A[c*lda + r]. Vectors are contiguous.
 * "work" arguments are scratch of at least the stated number of doubles; their content on return
 * is unspecified. Outputs may not alias inputs unless a function says so.
 *
 * Index:
 *   blas-like: rk_la_gemv, rk_la_gemv_t, rk_la_ata, rk_la_aat, rk_la_copy, rk_la_transpose,
 *              rk_la_norm2, rk_la_dot
 *   cholesky:  rk_la_cholesky, rk_la_cholesky_solve
 *   lu:        rk_la_lu, rk_la_lu_solve
 *   qr:        rk_la_qr_cp (Householder, column pivoting), rk_la_qr_rank, RK_LA_QR_WORK
 *   svd:       rk_la_svd (one-sided Jacobi), rk_la_svd_work, rk_la_rank, rk_la_pinv_solve,
 *              rk_la_pinv_work
 */
#ifndef RIGKIT_LINALG_H
#define RIGKIT_LINALG_H

#include <rigkit/api.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- BLAS-like helpers ----------------------------------------------------------------------- */

/** y = alpha * A x + beta * y for the m x n matrix A (x has n entries, y has m). beta = 0 ignores
 * the previous content of y (it may hold NaN). */
RK_API void rk_la_gemv(size_t m, size_t n, double alpha, const double *A, size_t lda,
                       const double *x, double beta, double *y);
/** y = alpha * A^T x + beta * y for the m x n matrix A (x has m entries, y has n). */
RK_API void rk_la_gemv_t(size_t m, size_t n, double alpha, const double *A, size_t lda,
                         const double *x, double beta, double *y);
/** out = A^T A (n x n, symmetric, both triangles written) for the m x n matrix A. */
RK_API void rk_la_ata(size_t m, size_t n, const double *A, size_t lda, double *out, size_t ldo);
/** out = A A^T (m x m, symmetric, both triangles written) for the m x n matrix A. */
RK_API void rk_la_aat(size_t m, size_t n, const double *A, size_t lda, double *out, size_t ldo);
/** Copies the m x n matrix A into B (leading dimensions may differ). */
RK_API void rk_la_copy(size_t m, size_t n, const double *A, size_t lda, double *B, size_t ldb);
/** B = A^T: B is n x m. */
RK_API void rk_la_transpose(size_t m, size_t n, const double *A, size_t lda, double *B, size_t ldb);
/** Euclidean norm of x[n], computed without overflow or underflow. */
RK_API double rk_la_norm2(size_t n, const double *x);
/** Dot product of x[n] and y[n], summed in order. */
RK_API double rk_la_dot(size_t n, const double *x, const double *y);

/* ---- Cholesky (symmetric positive definite) -------------------------------------------------- */

/** In place: the lower triangle of the n x n symmetric matrix A becomes L with A = L L^T (the
 * strict upper triangle is not touched). Returns false (A partly overwritten) when A is not
 * numerically positive definite (a pivot <= n * eps * max diagonal). */
RK_API bool rk_la_cholesky(size_t n, double *A, size_t lda);
/** Solves L L^T x = b with the factor from rk_la_cholesky; b is overwritten by x. */
RK_API void rk_la_cholesky_solve(size_t n, const double *L, size_t lda, double *b);

/* ---- LU with partial pivoting ---------------------------------------------------------------- */

/** In place LU factorisation P A = L U of the n x n matrix A (unit lower L below the diagonal, U
 * on and above); piv[n] receives the row swaps. Returns false when a pivot is exactly zero or not
 * finite (A is singular); the factor is then unusable. */
RK_API bool rk_la_lu(size_t n, double *A, size_t lda, int *piv);
/** Solves A x = b with the factor from rk_la_lu; b is overwritten by x. */
RK_API void rk_la_lu_solve(size_t n, const double *LU, size_t lda, const int *piv, double *b);

/* ---- QR with column pivoting ----------------------------------------------------------------- */

/** Scratch doubles rk_la_qr_cp needs for an m x n matrix. */
#define RK_LA_QR_WORK(m, n) (2 * (size_t)(n) + (size_t)(m))

/** Householder QR with column pivoting, A P = Q R, in place (LAPACK geqp3 layout): on return the
 * upper triangle of A holds R (|R[0,0]| >= |R[1,1]| >= ...), the Householder vectors sit below the
 * diagonal with their scalars in tau[min(m,n)], and perm[n] lists the original column of each
 * column of A P. work: RK_LA_QR_WORK(m, n) doubles. Never fails (NaN in gives NaN out). */
RK_API void rk_la_qr_cp(size_t m, size_t n, double *A, size_t lda, double *tau, int *perm,
                        double *work);
/** Numerical rank from a column-pivoted R: the number of diagonal entries with
 * |R[i,i]| > tol * |R[0,0]| (tol <= 0 means max(m, n) * DBL_EPSILON * 16). */
RK_API size_t rk_la_qr_rank(size_t m, size_t n, const double *R, size_t lda, double tol);

/* ---- SVD (one-sided Jacobi) ------------------------------------------------------------------ */

/** Scratch doubles rk_la_svd needs for an m x n matrix. */
RK_API size_t rk_la_svd_work(size_t m, size_t n);
/** Thin SVD A = U diag(s) V^T of the m x n matrix A by one-sided Jacobi rotations (accurate for
 * small singular values, robust for rank-deficient A). k = min(m, n) singular values go to s[k] in
 * decreasing order; U (m x k, leading dimension ldu) and V (n x k, leading dimension ldv) are
 * written when not NULL (columns of U for zero singular values are zero). A is not modified. work:
 * rk_la_svd_work(m, n) doubles. Returns false when the input is not finite or the sweeps did not
 * converge (then s is still the best estimate); true otherwise. */
RK_API bool rk_la_svd(size_t m, size_t n, const double *A, size_t lda, double *s, double *U,
                      size_t ldu, double *V, size_t ldv, double *work);
/** Numerical rank of the m x n matrix A: the number of singular values above
 * tol * s_max (tol <= 0 means max(m, n) * DBL_EPSILON * 16; a zero matrix has rank 0).
 * work: rk_la_svd_work(m, n) + min(m, n) doubles. */
RK_API size_t rk_la_rank(size_t m, size_t n, const double *A, size_t lda, double tol, double *work);
/** Scratch doubles rk_la_pinv_solve needs. */
RK_API size_t rk_la_pinv_work(size_t m, size_t n);
/** Minimum-norm least-squares solution x[n] = A^+ b of A x = b for the m x n matrix A, through
 * the SVD with singular values below rcond * s_max treated as zero (rcond <= 0: the default of
 * rk_la_rank); b has m entries and is not modified. Optional damping lambda >= 0 gives the damped
 * least-squares solution x = sum_i s_i / (s_i^2 + lambda^2) (u_i . b) v_i instead. Returns the rank
 * used. work: rk_la_pinv_work(m, n) doubles. */
RK_API size_t rk_la_pinv_solve(size_t m, size_t n, const double *A, size_t lda, const double *b,
                               double rcond, double lambda, double *x, double *work);

#ifdef __cplusplus
}
#endif

#endif
