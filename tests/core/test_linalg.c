/* Small dense linear algebra: Cholesky, LU, column-pivoted QR, Jacobi SVD, rank, pseudo-inverse. */
#include "rk_test.h"

#define AT(A, ld, r, c) ((A)[(size_t)(c) * (ld) + (r)])

static void random_matrix(guint64 *rng, size_t m, size_t n, double *A) {
  for (size_t i = 0; i < m * n; i++)
    A[i] = rk_test_uniform(rng, -1, 1);
}

/* C = A B (A m x k, B k x n). */
static void matmul(size_t m, size_t k, size_t n, const double *A, const double *B, double *C) {
  for (size_t c = 0; c < n; c++)
    for (size_t r = 0; r < m; r++) {
      double s = 0;
      for (size_t i = 0; i < k; i++)
        s += AT(A, m, r, i) * AT(B, k, i, c);
      AT(C, m, r, c) = s;
    }
}

Test(linalg, gemv_ata_aat_against_loops) {
  guint64 rng = 1;
  double A[5 * 3], x[3], y[5], yt[3], ata[9], aat[25];
  random_matrix(&rng, 5, 3, A);
  random_matrix(&rng, 3, 1, x);
  for (int i = 0; i < 5; i++)
    y[i] = NAN; /* beta = 0 must ignore it */
  rk_la_gemv(5, 3, 2.0, A, 5, x, 0.0, y);
  for (int r = 0; r < 5; r++)
    rk_assert_near(
        y[r], 2.0 * (AT(A, 5, r, 0) * x[0] + AT(A, 5, r, 1) * x[1] + AT(A, 5, r, 2) * x[2]), 1e-15);
  rk_la_gemv_t(5, 3, 1.0, A, 5, y, 0.0, yt);
  rk_la_ata(5, 3, A, 5, ata, 3);
  rk_la_aat(5, 3, A, 5, aat, 5);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int r = 0; r < 5; r++)
        s += AT(A, 5, r, i) * AT(A, 5, r, j);
      rk_assert_near(AT(ata, 3, i, j), s, 1e-15);
    }
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++) {
      double s = 0;
      for (int c = 0; c < 3; c++)
        s += AT(A, 5, i, c) * AT(A, 5, j, c);
      rk_assert_near(AT(aat, 5, i, j), s, 1e-15);
    }
  const double big[3] = {1e200, 1e200, 0}, small[2] = {3e-200, 4e-200};
  rk_assert_near(rk_la_norm2(3, big) / 1e200, sqrt(2.0), 1e-15);
  rk_assert_near(rk_la_norm2(2, small) / 1e-200, 5.0, 1e-14);
}

Test(linalg, cholesky_and_lu_solve) {
  guint64 rng = 2;
  for (size_t n = 1; n <= 12; n++) {
    double A[144], S[144], L[144], x[12], b[12], b2[12];
    int piv[12];
    random_matrix(&rng, n, n, A);
    rk_la_ata(n, n, A, n, S, n);
    for (size_t i = 0; i < n; i++)
      AT(S, n, i, i) += 0.1; /* well conditioned SPD */
    random_matrix(&rng, n, 1, x);
    rk_la_gemv(n, n, 1.0, S, n, x, 0.0, b);
    memcpy(L, S, sizeof L);
    cr_assert(rk_la_cholesky(n, L, n));
    memcpy(b2, b, sizeof b2);
    rk_la_cholesky_solve(n, L, n, b2);
    for (size_t i = 0; i < n; i++)
      rk_assert_near(b2[i], x[i], 1e-10);
    memcpy(L, A, sizeof L);
    rk_la_gemv(n, n, 1.0, A, n, x, 0.0, b);
    cr_assert(rk_la_lu(n, L, n, piv));
    rk_la_lu_solve(n, L, n, piv, b);
    for (size_t i = 0; i < n; i++)
      rk_assert_near(b[i], x[i], 1e-8);
  }
  double notpd[4] = {1, 2, 2, 1}, sing[4] = {1, 2, 2, 4};
  int piv[2];
  cr_assert_not(rk_la_cholesky(2, notpd, 2));
  cr_assert_not(rk_la_lu(2, sing, 2, piv));
}

/* A random m x n matrix of rank r: product of m x r and r x n factors. */
static void rank_r_matrix(guint64 *rng, size_t m, size_t n, size_t r, double *A) {
  double X[64 * 8], Y[8 * 64];
  random_matrix(rng, m, r, X);
  random_matrix(rng, r, n, Y);
  matmul(m, r, n, X, Y, A);
}

Test(linalg, svd_reconstructs_and_orders_singular_values) {
  guint64 rng = 3;
  const size_t shapes[][2] = {{6, 4}, {4, 6}, {1, 5}, {5, 1}, {7, 7}, {12, 30}, {30, 12}};
  for (size_t s = 0; s < G_N_ELEMENTS(shapes); s++) {
    const size_t m = shapes[s][0], n = shapes[s][1], k = m < n ? m : n;
    double A[360], sv[12], U[360], V[360], work[2048], R[360];
    cr_assert_leq(rk_la_svd_work(m, n), G_N_ELEMENTS(work));
    random_matrix(&rng, m, n, A);
    cr_assert(rk_la_svd(m, n, A, m, sv, U, m, V, n, work));
    for (size_t i = 1; i < k; i++)
      cr_assert_geq(sv[i - 1], sv[i]);
    /* A = U diag(s) V^T and U, V have orthonormal columns. */
    for (size_t c = 0; c < n; c++)
      for (size_t r = 0; r < m; r++) {
        double v = 0;
        for (size_t i = 0; i < k; i++)
          v += AT(U, m, r, i) * sv[i] * AT(V, n, c, i);
        AT(R, m, r, c) = v;
      }
    for (size_t i = 0; i < m * n; i++)
      rk_assert_near(R[i], A[i], 1e-12);
    for (size_t i = 0; i < k; i++)
      for (size_t j = 0; j < k; j++) {
        rk_assert_near(rk_la_dot(m, U + i * m, U + j * m), i == j, 1e-12);
        rk_assert_near(rk_la_dot(n, V + i * n, V + j * n), i == j, 1e-12);
      }
  }
  /* Known values: diag(3, -2, 0) has singular values 3, 2, 0. */
  double D[9] = {3, 0, 0, 0, -2, 0, 0, 0, 0}, sv[3], work[64];
  rk_la_svd(3, 3, D, 3, sv, NULL, 0, NULL, 0, work);
  rk_assert_near(sv[0], 3, 1e-15);
  rk_assert_near(sv[1], 2, 1e-15);
  rk_assert_near(sv[2], 0, 1e-15);
  double nan_in[4] = {1, NAN, 0, 1};
  cr_assert_not(rk_la_svd(2, 2, nan_in, 2, sv, NULL, 0, NULL, 0, work));
}

Test(linalg, rank_by_svd_and_by_pivoted_qr_agree) {
  guint64 rng = 4;
  for (int trial = 0; trial < 60; trial++) {
    const size_t m = 2 + (size_t)rk_test_uniform(&rng, 0, 10),
                 n = 2 + (size_t)rk_test_uniform(&rng, 0, 10);
    const size_t k = m < n ? m : n, r = (size_t)rk_test_uniform(&rng, 0, (double)k + 1);
    double A[144], B[144], tau[12], work[1024];
    int perm[12];
    if (r == 0)
      memset(A, 0, sizeof A);
    else
      rank_r_matrix(&rng, m, n, r, A);
    cr_assert_eq(rk_la_rank(m, n, A, m, 1e-10, work), r, "%zux%zu rank %zu", m, n, r);
    memcpy(B, A, sizeof B);
    rk_la_qr_cp(m, n, B, m, tau, perm, work);
    cr_assert_eq(rk_la_qr_rank(m, n, B, m, 1e-10), r, "QR %zux%zu rank %zu", m, n, r);
    /* R's diagonal decreases in magnitude; perm is a permutation. */
    for (size_t i = 1; i < (r < k ? r : k); i++)
      cr_assert_geq(fabs(AT(B, m, i - 1, i - 1)) * (1 + 1e-12), fabs(AT(B, m, i, i)));
    int seen[12] = {0};
    for (size_t i = 0; i < n; i++)
      seen[perm[i]]++;
    for (size_t i = 0; i < n; i++)
      cr_assert_eq(seen[i], 1);
  }
}

Test(linalg, qr_factors_reproduce_the_permuted_matrix) {
  guint64 rng = 5;
  const size_t m = 7, n = 5;
  double A[35], B[35], tau[5], work[64];
  int perm[5];
  random_matrix(&rng, m, n, A);
  memcpy(B, A, sizeof B);
  rk_la_qr_cp(m, n, B, m, tau, perm, work);
  /* Q R column by column: apply H_0 ... H_{k-1} to R's columns. */
  for (size_t c = 0; c < n; c++) {
    double col[7] = {0};
    for (size_t r = 0; r <= c && r < m; r++)
      col[r] = AT(B, m, r, c);
    for (size_t i = n; i-- > 0;) {
      double s = col[i];
      for (size_t r = i + 1; r < m; r++)
        s += AT(B, m, r, i) * col[r];
      s *= tau[i];
      col[i] -= s;
      for (size_t r = i + 1; r < m; r++)
        col[r] -= s * AT(B, m, r, i);
    }
    for (size_t r = 0; r < m; r++)
      rk_assert_near(col[r], AT(A, m, r, perm[c]), 1e-13);
  }
}

Test(linalg, pinv_gives_least_squares_and_minimum_norm) {
  guint64 rng = 6;
  /* Over-determined full rank: x = (A^T A)^-1 A^T b. */
  double A[8 * 3], b[8], x[3], work[512], N[9], rhs[3];
  random_matrix(&rng, 8, 3, A);
  random_matrix(&rng, 8, 1, b);
  cr_assert_leq(rk_la_pinv_work(8, 3), G_N_ELEMENTS(work));
  cr_assert_eq(rk_la_pinv_solve(8, 3, A, 8, b, 0, 0, x, work), 3);
  rk_la_ata(8, 3, A, 8, N, 3);
  rk_la_gemv_t(8, 3, 1.0, A, 8, b, 0.0, rhs);
  cr_assert(rk_la_cholesky(3, N, 3));
  rk_la_cholesky_solve(3, N, 3, rhs);
  for (int i = 0; i < 3; i++)
    rk_assert_near(x[i], rhs[i], 1e-12);
  /* Under-determined: x = A^T (A A^T)^-1 b, the minimum-norm solution. */
  double C[2 * 6], c[2], y[6], M[4], z[2];
  random_matrix(&rng, 2, 6, C);
  random_matrix(&rng, 2, 1, c);
  cr_assert_eq(rk_la_pinv_solve(2, 6, C, 2, c, 0, 0, y, work), 2);
  rk_la_aat(2, 6, C, 2, M, 2);
  memcpy(z, c, sizeof z);
  cr_assert(rk_la_cholesky(2, M, 2));
  rk_la_cholesky_solve(2, M, 2, z);
  double expect[6];
  rk_la_gemv_t(2, 6, 1.0, C, 2, z, 0.0, expect);
  for (int i = 0; i < 6; i++)
    rk_assert_near(y[i], expect[i], 1e-12);
  /* Damped: x = (A^T A + l^2 I)^-1 A^T b. */
  const double lambda = 0.3;
  cr_assert_eq(rk_la_pinv_solve(8, 3, A, 8, b, 0, lambda, x, work), 3);
  rk_la_ata(8, 3, A, 8, N, 3);
  for (int i = 0; i < 3; i++)
    AT(N, 3, i, i) += lambda * lambda;
  rk_la_gemv_t(8, 3, 1.0, A, 8, b, 0.0, rhs);
  cr_assert(rk_la_cholesky(3, N, 3));
  rk_la_cholesky_solve(3, N, 3, rhs);
  for (int i = 0; i < 3; i++)
    rk_assert_near(x[i], rhs[i], 1e-12);
  /* Rank deficient: a repeated column splits the solution evenly (minimum norm). */
  double R[3 * 2] = {1, 2, 3, 1, 2, 3}, rb[3] = {2, 4, 6}, rx[2];
  cr_assert_eq(rk_la_pinv_solve(3, 2, R, 3, rb, 0, 0, rx, work), 1);
  rk_assert_near(rx[0], 1.0, 1e-12);
  rk_assert_near(rx[1], 1.0, 1e-12);
}
