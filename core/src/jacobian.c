/* Jacobians of DH chains: geometric (axis cross lever arm) and DH-derivative (P dA C) forms, and
 * the analytic (Euler-angle rate) form from the geometric one. */
#include <rigkit/jacobian.h>

#include <string.h>

rk_mat4 rk_dh_row_derivative(rk_dh_convention convention, const rk_dh_row *row, double q) {
  /* The derivative does not depend on d (prismatic: dA/dq is a constant translation). */
  double theta = row->theta;
  if (row->type == RK_DH_REVOLUTE)
    theta += q;
  double st, ct, sa, ca;
  rk_sincos(theta, &st, &ct);
  rk_sincos(row->alpha, &sa, &ca);
  rk_mat4 m;
  memset(&m, 0, sizeof m);
  double *o = m.m;
  if (convention == RK_DH_STANDARD) {
    /* A = Rz(theta) Tz(d) Tx(a) Rx(alpha): columns (ct, st, 0), (-st ca, ct ca, sa),
     * (st sa, -ct sa, ca), translation (a ct, a st, d). */
    if (row->type == RK_DH_REVOLUTE) {
      o[0] = -st, o[1] = ct;
      o[4] = -ct * ca, o[5] = -st * ca;
      o[8] = ct * sa, o[9] = st * sa;
      o[12] = -row->a * st, o[13] = row->a * ct;
    } else {
      o[14] = 1.0;
    }
  } else {
    /* T = Rx(alpha) Tx(a) Tz(d) Rz(theta): columns (ct, st ca, st sa), (-st, ct ca, ct sa),
     * (0, -sa, ca), translation (a, -sa d, ca d). */
    if (row->type == RK_DH_REVOLUTE) {
      o[0] = -st, o[1] = ct * ca, o[2] = ct * sa;
      o[4] = -ct, o[5] = -st * ca, o[6] = -st * sa;
    } else {
      o[13] = -sa, o[14] = ca;
    }
  }
  return m;
}

static inline double qval(const double *q, const int *map, size_t i) {
  return q ? q[map ? map[i] : (int)i] : 0.0;
}

/* Column from a derivative dT and the end rotation R: (dT translation; vee(dR R^T)). */
static void derivative_column(const rk_mat4 *dT, const rk_mat4 *T, double *col) {
  const double *d = dT->m, *t = T->m;
  col[0] = d[12];
  col[1] = d[13];
  col[2] = d[14];
  /* W = dR R^T: W[r][c] = sum_k dR[r][k] R[c][k]. */
  double W[3][3];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      double s = 0;
      for (int k = 0; k < 3; k++)
        s += d[k * 4 + r] * t[k * 4 + c];
      W[r][c] = s;
    }
  col[3] = 0.5 * (W[2][1] - W[1][2]);
  col[4] = 0.5 * (W[0][2] - W[2][0]);
  col[5] = 0.5 * (W[1][0] - W[0][1]);
}

/* DH-derivative Jacobian with q_i = q[map[i]] (map NULL: q_i = q[i]). */
static void jacobian_dh(const rk_dh_chain *chain, const double *q, const int *map, double *J,
                        size_t ld, rk_mat4 *frames, const rk_mat4 *pre) {
  const size_t n = chain->count;
  rk_mat4 *P = frames, *S = frames + n + 1;
  P[0] = pre ? rk_mat4_mul_affine(pre, &chain->base) : chain->base;
  for (size_t i = 0; i < n; i++) {
    const rk_mat4 A = rk_dh_row_transform(chain->convention, &chain->rows[i], qval(q, map, i));
    rk_mat4_mul_affine_to(&P[i], &A, &P[i + 1]);
  }
  S[n] = chain->tool;
  for (size_t i = n; i-- > 0;) {
    const rk_mat4 A = rk_dh_row_transform(chain->convention, &chain->rows[i], qval(q, map, i));
    rk_mat4_mul_affine_to(&A, &S[i + 1], &S[i]);
  }
  rk_mat4 T;
  rk_mat4_mul_affine_to(&P[n], &chain->tool, &T);
  for (size_t i = 0; i < n; i++) {
    const rk_mat4 dA = rk_dh_row_derivative(chain->convention, &chain->rows[i], qval(q, map, i));
    const rk_mat4 left = rk_mat4_mul(&P[i], &dA);
    const rk_mat4 dT = rk_mat4_mul(&left, &S[i + 1]);
    derivative_column(&dT, &T, J + i * ld);
  }
}

rk_mat4 rk_dh_chain_derivative(const rk_dh_chain *chain, const double *q, size_t k) {
  rk_mat4 zero;
  memset(&zero, 0, sizeof zero);
  g_return_val_if_fail(chain != NULL, zero);
  if (k >= chain->count)
    return zero;
  rk_mat4 P = chain->base;
  for (size_t i = 0; i < k; i++) {
    const rk_mat4 A = rk_dh_row_transform(chain->convention, &chain->rows[i], qval(q, NULL, i));
    P = rk_mat4_mul_affine(&P, &A);
  }
  rk_mat4 C = chain->tool;
  for (size_t i = chain->count; i-- > k + 1;) {
    const rk_mat4 A = rk_dh_row_transform(chain->convention, &chain->rows[i], qval(q, NULL, i));
    C = rk_mat4_mul_affine(&A, &C);
  }
  const rk_mat4 dA = rk_dh_row_derivative(chain->convention, &chain->rows[k], qval(q, NULL, k));
  const rk_mat4 left = rk_mat4_mul(&P, &dA);
  return rk_mat4_mul(&left, &C);
}

void rk_dh_chain_jacobian(const rk_dh_chain *chain, const double *q, double *J, size_t ld,
                          rk_mat4 *end, rk_mat4 *frames) {
  g_return_if_fail(chain != NULL && J != NULL && frames != NULL && ld >= 6);
  const size_t n = chain->count;
  rk_dh_chain_fk(chain, q, frames, NULL);
  rk_mat4 T;
  rk_mat4_mul_affine_to(&frames[n], &chain->tool, &T);
  const rk_vec3 p = rk_mat4_get_translation(&T);
  const bool standard = chain->convention == RK_DH_STANDARD;
  for (size_t i = 0; i < n; i++) {
    const rk_mat4 *f = standard ? &frames[i] : &frames[i + 1];
    const rk_vec3 z = rk_mat4_column(f, 2), o = rk_mat4_get_translation(f);
    double *col = J + i * ld;
    if (chain->rows[i].type == RK_DH_REVOLUTE) {
      const rk_vec3 v = rk_vec3_cross(z, rk_vec3_sub(p, o));
      col[0] = v.x, col[1] = v.y, col[2] = v.z;
      col[3] = z.x, col[4] = z.y, col[5] = z.z;
    } else {
      col[0] = z.x, col[1] = z.y, col[2] = z.z;
      col[3] = col[4] = col[5] = 0.0;
    }
  }
  if (end)
    *end = T;
}

void rk_dh_chain_jacobian_dh(const rk_dh_chain *chain, const double *q, double *J, size_t ld,
                             rk_mat4 *frames) {
  g_return_if_fail(chain != NULL && J != NULL && frames != NULL && ld >= 6);
  jacobian_dh(chain, q, NULL, J, ld, frames, NULL);
}

void rk_chain_jacobian(const rk_chain *chain, rk_dh_convention convention, const double *q_tree,
                       const rk_mat4 *base_model, double *J, size_t ld, rk_mat4 *frames) {
  g_return_if_fail(chain != NULL && q_tree != NULL && J != NULL && frames != NULL && ld >= 6);
  const rk_dh_chain *dh = rk_chain_dh(chain, convention);
  jacobian_dh(dh, q_tree, rk_chain_dofs(chain), J, ld, frames, base_model);
}

bool rk_jacobian_euler_rates(rk_euler_order order, const double angles[3], double *J, size_t ld,
                             size_t cols) {
  rk_mat3 B;
  const double det = rk_euler_rate_matrix(order, angles, &B);
  if (!(fabs(det) > RK_EULER_RATE_SINGULAR))
    return false;
  /* Row i of B^-1 is (column j x column k) / det for (i, j, k) cyclic. */
  rk_vec3 col[3], inv[3];
  for (int c = 0; c < 3; c++)
    col[c] = rk_vec3_make(B.m[c * 3], B.m[c * 3 + 1], B.m[c * 3 + 2]);
  for (int i = 0; i < 3; i++)
    inv[i] = rk_vec3_scale(rk_vec3_cross(col[(i + 1) % 3], col[(i + 2) % 3]), 1.0 / det);
  for (size_t k = 0; k < cols; k++) {
    double *w = J + k * ld + 3;
    const rk_vec3 omega = rk_vec3_make(w[0], w[1], w[2]);
    for (int i = 0; i < 3; i++)
      w[i] = rk_vec3_dot(inv[i], omega);
  }
  return true;
}

bool rk_dh_chain_jacobian_euler(const rk_dh_chain *chain, const double *q, rk_euler_order order,
                                double *J, size_t ld, double angles[3], rk_mat4 *frames) {
  rk_mat4 end;
  rk_dh_chain_jacobian(chain, q, J, ld, &end, frames);
  const rk_mat3 r = rk_mat4_get_rotation(&end);
  double a[3];
  rk_euler_from_mat3(order, &r, a);
  if (angles)
    memcpy(angles, a, sizeof a);
  return rk_jacobian_euler_rates(order, a, J, ld, chain->count);
}
