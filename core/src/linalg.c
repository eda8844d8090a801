/* Small dense linear algebra on caller buffers (see rigkit/linalg.h): column-major, no
 * allocation. */
#include <rigkit/linalg.h>

#include <float.h>
#include <math.h>
#include <string.h>

#define AT(A, ld, r, c) ((A)[(size_t)(c) * (ld) + (r)])

/* ---- BLAS-like ------------------------------------------------------------------------------- */

void rk_la_gemv(size_t m, size_t n, double alpha, const double *A, size_t lda, const double *x,
                double beta, double *y) {
  for (size_t r = 0; r < m; r++)
    y[r] = beta == 0.0 ? 0.0 : beta * y[r];
  for (size_t c = 0; c < n; c++) {
    const double xc = alpha * x[c];
    if (xc == 0.0)
      continue;
    const double *col = A + c * lda;
    for (size_t r = 0; r < m; r++)
      y[r] += col[r] * xc;
  }
}

void rk_la_gemv_t(size_t m, size_t n, double alpha, const double *A, size_t lda, const double *x,
                  double beta, double *y) {
  for (size_t c = 0; c < n; c++) {
    const double *col = A + c * lda;
    double s = 0.0;
    for (size_t r = 0; r < m; r++)
      s += col[r] * x[r];
    y[c] = (beta == 0.0 ? 0.0 : beta * y[c]) + alpha * s;
  }
}

void rk_la_ata(size_t m, size_t n, const double *A, size_t lda, double *out, size_t ldo) {
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j <= i; j++) {
      double s = rk_la_dot(m, A + i * lda, A + j * lda);
      AT(out, ldo, i, j) = s;
      AT(out, ldo, j, i) = s;
    }
}

void rk_la_aat(size_t m, size_t n, const double *A, size_t lda, double *out, size_t ldo) {
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j <= i; j++)
      AT(out, ldo, i, j) = 0.0;
  for (size_t c = 0; c < n; c++) {
    const double *col = A + c * lda;
    for (size_t i = 0; i < m; i++) {
      const double ai = col[i];
      if (ai == 0.0)
        continue;
      for (size_t j = 0; j <= i; j++)
        AT(out, ldo, i, j) += ai * col[j];
    }
  }
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < i; j++)
      AT(out, ldo, j, i) = AT(out, ldo, i, j);
}

void rk_la_copy(size_t m, size_t n, const double *A, size_t lda, double *B, size_t ldb) {
  for (size_t c = 0; c < n; c++)
    memcpy(B + c * ldb, A + c * lda, m * sizeof(double));
}

void rk_la_transpose(size_t m, size_t n, const double *A, size_t lda, double *B, size_t ldb) {
  for (size_t c = 0; c < n; c++)
    for (size_t r = 0; r < m; r++)
      AT(B, ldb, c, r) = AT(A, lda, r, c);
}

double rk_la_norm2(size_t n, const double *x) {
  /* Scaled sum of squares (as LAPACK's dnrm2) so huge or tiny entries do not overflow. */
  double scale = 0.0, ssq = 1.0;
  for (size_t i = 0; i < n; i++) {
    double a = fabs(x[i]);
    if (a == 0.0)
      continue;
    if (!isfinite(a))
      return a == a ? INFINITY : NAN;
    if (scale < a) {
      ssq = 1.0 + ssq * (scale / a) * (scale / a);
      scale = a;
    } else {
      ssq += (a / scale) * (a / scale);
    }
  }
  return scale * sqrt(ssq);
}

double rk_la_dot(size_t n, const double *x, const double *y) {
  double s = 0.0;
  for (size_t i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

/* ---- Cholesky -------------------------------------------------------------------------------- */

bool rk_la_cholesky(size_t n, double *A, size_t lda) {
  double dmax = 0.0;
  for (size_t i = 0; i < n; i++)
    dmax = fmax(dmax, fabs(AT(A, lda, i, i)));
  const double floor_pivot = (double)(n ? n : 1) * DBL_EPSILON * dmax;
  for (size_t j = 0; j < n; j++) {
    double d = AT(A, lda, j, j);
    for (size_t k = 0; k < j; k++)
      d -= AT(A, lda, j, k) * AT(A, lda, j, k);
    if (!(d > floor_pivot) || !isfinite(d))
      return false;
    const double l = sqrt(d);
    AT(A, lda, j, j) = l;
    for (size_t i = j + 1; i < n; i++) {
      double s = AT(A, lda, i, j);
      for (size_t k = 0; k < j; k++)
        s -= AT(A, lda, i, k) * AT(A, lda, j, k);
      AT(A, lda, i, j) = s / l;
    }
  }
  return true;
}

void rk_la_cholesky_solve(size_t n, const double *L, size_t lda, double *b) {
  for (size_t i = 0; i < n; i++) { /* L y = b */
    double s = b[i];
    for (size_t k = 0; k < i; k++)
      s -= AT(L, lda, i, k) * b[k];
    b[i] = s / AT(L, lda, i, i);
  }
  for (size_t i = n; i-- > 0;) { /* L^T x = y */
    double s = b[i];
    for (size_t k = i + 1; k < n; k++)
      s -= AT(L, lda, k, i) * b[k];
    b[i] = s / AT(L, lda, i, i);
  }
}

/* ---- LU -------------------------------------------------------------------------------------- */

bool rk_la_lu(size_t n, double *A, size_t lda, int *piv) {
  bool ok = true;
  for (size_t k = 0; k < n; k++) {
    size_t p = k;
    double best = fabs(AT(A, lda, k, k));
    for (size_t i = k + 1; i < n; i++)
      if (fabs(AT(A, lda, i, k)) > best) {
        best = fabs(AT(A, lda, i, k));
        p = i;
      }
    piv[k] = (int)p;
    if (p != k)
      for (size_t c = 0; c < n; c++) {
        double t = AT(A, lda, k, c);
        AT(A, lda, k, c) = AT(A, lda, p, c);
        AT(A, lda, p, c) = t;
      }
    const double d = AT(A, lda, k, k);
    if (d == 0.0 || !isfinite(d)) {
      ok = false;
      continue;
    }
    for (size_t i = k + 1; i < n; i++) {
      const double f = AT(A, lda, i, k) / d;
      AT(A, lda, i, k) = f;
      if (f != 0.0)
        for (size_t c = k + 1; c < n; c++)
          AT(A, lda, i, c) -= f * AT(A, lda, k, c);
    }
  }
  return ok;
}

void rk_la_lu_solve(size_t n, const double *LU, size_t lda, const int *piv, double *b) {
  for (size_t k = 0; k < n; k++)
    if ((size_t)piv[k] != k) {
      double t = b[k];
      b[k] = b[piv[k]];
      b[piv[k]] = t;
    }
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < i; k++)
      b[i] -= AT(LU, lda, i, k) * b[k];
  for (size_t i = n; i-- > 0;) {
    double s = b[i];
    for (size_t k = i + 1; k < n; k++)
      s -= AT(LU, lda, i, k) * b[k];
    b[i] = s / AT(LU, lda, i, i);
  }
}

/* ---- QR with column pivoting ----------------------------------------------------------------- */

void rk_la_qr_cp(size_t m, size_t n, double *A, size_t lda, double *tau, int *perm, double *work) {
  double *vn1 = work, *vn2 = work + n; /* running and reference column norms */
  const size_t k = m < n ? m : n;
  for (size_t j = 0; j < n; j++) {
    perm[j] = (int)j;
    vn1[j] = vn2[j] = rk_la_norm2(m, A + j * lda);
  }
  const double tol3z = sqrt(DBL_EPSILON);
  for (size_t i = 0; i < k; i++) {
    /* Pivot: the remaining column of largest norm. */
    size_t p = i;
    for (size_t j = i + 1; j < n; j++)
      if (vn1[j] > vn1[p])
        p = j;
    if (p != i) {
      for (size_t r = 0; r < m; r++) {
        double t = AT(A, lda, r, i);
        AT(A, lda, r, i) = AT(A, lda, r, p);
        AT(A, lda, r, p) = t;
      }
      int ti = perm[i];
      perm[i] = perm[p];
      perm[p] = ti;
      vn1[p] = vn1[i];
      vn2[p] = vn2[i];
    }
    /* Householder reflector H = I - tau v v^T with v[0] = 1 zeroing A[i+1:, i]. */
    double *col = A + i * lda;
    const double xnorm = rk_la_norm2(m - i - 1, col + i + 1);
    if (xnorm == 0.0) {
      tau[i] = 0.0;
    } else {
      const double alpha = col[i];
      double beta = -copysign(hypot(alpha, xnorm), alpha);
      tau[i] = (beta - alpha) / beta;
      const double s = 1.0 / (alpha - beta);
      for (size_t r = i + 1; r < m; r++)
        col[r] *= s;
      col[i] = beta;
    }
    /* Apply H to the remaining columns. */
    if (tau[i] != 0.0)
      for (size_t j = i + 1; j < n; j++) {
        double *cj = A + j * lda;
        double s = cj[i];
        for (size_t r = i + 1; r < m; r++)
          s += col[r] * cj[r];
        s *= tau[i];
        cj[i] -= s;
        for (size_t r = i + 1; r < m; r++)
          cj[r] -= s * col[r];
      }
    /* Downdate the norms; recompute when cancellation makes them unreliable. */
    for (size_t j = i + 1; j < n; j++) {
      if (vn1[j] == 0.0)
        continue;
      double t = fabs(AT(A, lda, i, j)) / vn1[j];
      t = fmax(0.0, (1.0 + t) * (1.0 - t));
      const double t2 = t * (vn1[j] / vn2[j]) * (vn1[j] / vn2[j]);
      if (t2 <= tol3z) {
        vn1[j] = rk_la_norm2(m - i - 1, A + j * lda + i + 1);
        vn2[j] = vn1[j];
      } else {
        vn1[j] *= sqrt(t);
      }
    }
  }
}

size_t rk_la_qr_rank(size_t m, size_t n, const double *R, size_t lda, double tol) {
  const size_t k = m < n ? m : n;
  if (k == 0)
    return 0;
  if (tol <= 0.0)
    tol = (double)(m > n ? m : n) * DBL_EPSILON * 16.0;
  const double r0 = fabs(AT(R, lda, 0, 0));
  if (!(r0 > 0.0))
    return 0;
  size_t rank = 0;
  for (size_t i = 0; i < k; i++)
    if (fabs(AT(R, lda, i, i)) > tol * r0)
      rank++;
    else
      break;
  return rank;
}

/* ---- SVD by one-sided Jacobi (Hestenes) ------------------------------------------------------ */

size_t rk_la_svd_work(size_t m, size_t n) {
  const size_t k = m < n ? m : n, p = m < n ? n : m;
  return p * k + k * k + k;
}

bool rk_la_svd(size_t m, size_t n, const double *A, size_t lda, double *s, double *U, size_t ldu,
               double *V, size_t ldv, double *work) {
  /* Work on B = A (m >= n) or B = A^T (m < n): B is p x k with p >= k. Rotations applied to the
   * columns of B from the right make them orthogonal; the same rotations accumulate W (k x k). Then
   * B = U' diag(s), A = B W^T or A^T = B W^T. */
  const bool tr = m < n;
  const size_t k = tr ? m : n, p = tr ? n : m;
  if (k == 0)
    return true;
  double *B = work, *W = work + p * k, *norms = W + k * k;
  bool finite = true;
  if (tr)
    rk_la_transpose(m, n, A, lda, B, p);
  else
    rk_la_copy(m, n, A, lda, B, p);
  for (size_t i = 0; i < p * k; i++)
    if (!isfinite(B[i]))
      finite = false;
  if (!finite) {
    for (size_t i = 0; i < k; i++)
      s[i] = NAN;
    return false;
  }
  memset(W, 0, k * k * sizeof(double));
  for (size_t i = 0; i < k; i++)
    W[i * k + i] = 1.0;
  bool converged = false;
  const double eps = DBL_EPSILON;
  for (int sweep = 0; sweep < 80 && !converged; sweep++) {
    converged = true;
    for (size_t i = 0; i + 1 < k; i++)
      for (size_t j = i + 1; j < k; j++) {
        double *bi = B + i * p, *bj = B + j * p;
        const double alpha = rk_la_dot(p, bi, bi), beta = rk_la_dot(p, bj, bj);
        const double gamma = rk_la_dot(p, bi, bj);
        if (alpha == 0.0 || beta == 0.0 || fabs(gamma) <= eps * sqrt(alpha * beta))
          continue;
        converged = false;
        const double zeta = (beta - alpha) / (2.0 * gamma);
        const double t = copysign(1.0, zeta) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
        const double c = 1.0 / sqrt(1.0 + t * t), sn = c * t;
        for (size_t r = 0; r < p; r++) {
          const double x = bi[r], y = bj[r];
          bi[r] = c * x - sn * y;
          bj[r] = sn * x + c * y;
        }
        double *wi = W + i * k, *wj = W + j * k;
        for (size_t r = 0; r < k; r++) {
          const double x = wi[r], y = wj[r];
          wi[r] = c * x - sn * y;
          wj[r] = sn * x + c * y;
        }
      }
  }
  for (size_t i = 0; i < k; i++)
    norms[i] = rk_la_norm2(p, B + i * p);
  /* Emit in decreasing order (selection over k entries; k is small). */
  double *left = tr ? V : U, *right = tr ? U : V;
  const size_t ldl = tr ? ldv : ldu, ldr = tr ? ldu : ldv;
  for (size_t out = 0; out < k; out++) {
    size_t best = 0;
    double bv = -1.0;
    for (size_t i = 0; i < k; i++)
      if (norms[i] > bv) {
        bv = norms[i];
        best = i;
      }
    s[out] = bv;
    norms[best] = -2.0; /* taken */
    if (left) {
      const double inv = bv > 0.0 ? 1.0 / bv : 0.0;
      for (size_t r = 0; r < p; r++)
        AT(left, ldl, r, out) = B[best * p + r] * inv;
    }
    if (right)
      for (size_t r = 0; r < k; r++)
        AT(right, ldr, r, out) = W[best * k + r];
  }
  return converged;
}

size_t rk_la_rank(size_t m, size_t n, const double *A, size_t lda, double tol, double *work) {
  const size_t k = m < n ? m : n;
  if (k == 0)
    return 0;
  double *s = work + rk_la_svd_work(m, n);
  rk_la_svd(m, n, A, lda, s, NULL, 0, NULL, 0, work);
  if (tol <= 0.0)
    tol = (double)(m > n ? m : n) * DBL_EPSILON * 16.0;
  if (!(s[0] > 0.0))
    return 0;
  size_t rank = 0;
  for (size_t i = 0; i < k; i++)
    if (s[i] > tol * s[0])
      rank++;
  return rank;
}

size_t rk_la_pinv_work(size_t m, size_t n) {
  const size_t k = m < n ? m : n;
  return rk_la_svd_work(m, n) + k + m * k + n * k + k;
}

size_t rk_la_pinv_solve(size_t m, size_t n, const double *A, size_t lda, const double *b,
                        double rcond, double lambda, double *x, double *work) {
  const size_t k = m < n ? m : n;
  for (size_t i = 0; i < n; i++)
    x[i] = 0.0;
  if (k == 0)
    return 0;
  double *s = work + rk_la_svd_work(m, n), *U = s + k, *V = U + m * k, *c = V + n * k;
  rk_la_svd(m, n, A, lda, s, U, m, V, n, work);
  if (rcond <= 0.0)
    rcond = (double)(m > n ? m : n) * DBL_EPSILON * 16.0;
  size_t rank = 0;
  for (size_t i = 0; i < k; i++) {
    if (!(s[i] > rcond * s[0]) && lambda == 0.0) {
      c[i] = 0.0;
      continue;
    }
    if (s[i] > rcond * s[0])
      rank++;
    const double f = lambda > 0.0 ? s[i] / (s[i] * s[i] + lambda * lambda) : 1.0 / s[i];
    c[i] = f * rk_la_dot(m, U + i * m, b);
  }
  for (size_t i = 0; i < k; i++)
    if (c[i] != 0.0)
      for (size_t r = 0; r < n; r++)
        x[r] += c[i] * V[i * n + r];
  return rank;
}
