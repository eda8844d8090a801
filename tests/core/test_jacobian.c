/* Jacobians: the geometric form (axis x lever arm) and the DH-derivative form (P dA C) agree with
 * each other and with central finite differences, for both DH conventions, revolute and
 * prismatic rows; the DH derivative matrices equal their closed forms; the tree's Jacobian agrees
 * with the chain's. */
#include "rk_test.h"

#include <rigkit/ik.h>
#include <rigkit/jacobian.h>
#include <string.h>

#define MAXN 12

/* Central differences of the end frame: linear rows from the origin, angular rows from the
 * rotation vector of R(q + h) R(q - h)^T. */
static void fd_jacobian(const rk_dh_chain *c, const double *q, double *J) {
  const double h = 1e-6;
  double qq[MAXN];
  for (size_t k = 0; k < c->count; k++) {
    memcpy(qq, q, c->count * sizeof(double));
    rk_mat4 Tp, Tm;
    qq[k] = q[k] + h;
    rk_dh_chain_fk(c, qq, NULL, &Tp);
    qq[k] = q[k] - h;
    rk_dh_chain_fk(c, qq, NULL, &Tm);
    const rk_vec3 dp = rk_vec3_scale(
        rk_vec3_sub(rk_mat4_get_translation(&Tp), rk_mat4_get_translation(&Tm)), 0.5 / h);
    const rk_mat3 Rp = rk_mat4_get_rotation(&Tp), Rm = rk_mat4_get_rotation(&Tm);
    const rk_mat3 RmT = rk_mat3_transpose(&Rm);
    const rk_mat3 D = rk_mat3_mul(&Rp, &RmT);
    const rk_vec3 w = rk_vec3_scale(rk_quat_to_rotvec(rk_quat_from_mat3(&D)), 0.5 / h);
    double *col = J + k * 6;
    col[0] = dp.x, col[1] = dp.y, col[2] = dp.z;
    col[3] = w.x, col[4] = w.y, col[5] = w.z;
  }
}

static double max_diff(const double *a, const double *b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++)
    m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

/* A random chain: a, alpha, d, theta offsets, some prismatic rows, a non-trivial base and tool. */
static rk_dh_chain random_chain(guint64 *rng, rk_dh_row *rows, size_t n, rk_dh_convention conv) {
  for (size_t i = 0; i < n; i++) {
    rk_dh_row r = {rk_test_uniform(rng, -0.5, 0.5), rk_test_uniform(rng, -3, 3),
                   rk_test_uniform(rng, -0.5, 0.5), rk_test_uniform(rng, -3, 3),
                   (i % 3 == 1) ? RK_DH_PRISMATIC : RK_DH_REVOLUTE};
    rows[i] = r;
  }
  rk_mat4 base = rk_mat4_rot_x(0.3);
  base.m[12] = 0.1, base.m[13] = -0.2, base.m[14] = 0.5;
  rk_mat4 tool = rk_mat4_rot_y(-0.7);
  tool.m[12] = 0.05, tool.m[14] = 0.12;
  rk_dh_chain c = {conv, rows, n, base, tool};
  return c;
}

Test(jacobian, geometric_dh_derivative_and_finite_differences_agree) {
  guint64 rng = 42;
  for (int conv = 0; conv < 2; conv++) {
    for (int trial = 0; trial < 25; trial++) {
      const size_t n = 1 + (size_t)(trial % 9);
      rk_dh_row rows[MAXN];
      const rk_dh_chain c = random_chain(&rng, rows, n, conv ? RK_DH_MODIFIED : RK_DH_STANDARD);
      double q[MAXN];
      for (size_t k = 0; k < n; k++)
        q[k] = rk_test_uniform(&rng, -2, 2);
      double Jg[6 * MAXN], Jd[6 * MAXN], Jf[6 * MAXN];
      rk_mat4 frames[2 * (MAXN + 1)], end, fk;
      rk_dh_chain_jacobian(&c, q, Jg, 6, &end, frames);
      rk_dh_chain_jacobian_dh(&c, q, Jd, 6, frames);
      fd_jacobian(&c, q, Jf);
      rk_dh_chain_fk(&c, q, NULL, &fk);
      rk_assert_mat4_near(end, fk, 1e-14);
      cr_assert(max_diff(Jg, Jd, 6 * n) < 1e-12, "conv %d trial %d: geometric vs DH %g", conv,
                trial, max_diff(Jg, Jd, 6 * n));
      cr_assert(max_diff(Jg, Jf, 6 * n) < 1e-7, "conv %d trial %d: geometric vs FD %g", conv, trial,
                max_diff(Jg, Jf, 6 * n));
      /* One derivative at a time equals its column. */
      for (size_t k = 0; k < n; k++) {
        const rk_mat4 dT = rk_dh_chain_derivative(&c, q, k);
        rk_assert_near(dT.m[12], Jd[k * 6 + 0], 1e-12);
        rk_assert_near(dT.m[13], Jd[k * 6 + 1], 1e-12);
        rk_assert_near(dT.m[14], Jd[k * 6 + 2], 1e-12);
        cr_assert(dT.m[3] == 0 && dT.m[7] == 0 && dT.m[11] == 0 && dT.m[15] == 0);
      }
      const rk_mat4 none = rk_dh_chain_derivative(&c, q, n);
      for (int i = 0; i < 16; i++)
        cr_assert(none.m[i] == 0);
    }
  }
}

Test(jacobian, row_derivative_matches_finite_difference) {
  guint64 rng = 5;
  for (int conv = 0; conv < 2; conv++)
    for (int type = 0; type < 2; type++) {
      const rk_dh_row r = {0.3, 0.8, -0.2, 0.4, type ? RK_DH_PRISMATIC : RK_DH_REVOLUTE};
      const rk_dh_convention cv = conv ? RK_DH_MODIFIED : RK_DH_STANDARD;
      const double q = rk_test_uniform(&rng, -1, 1), h = 1e-6;
      const rk_mat4 d = rk_dh_row_derivative(cv, &r, q);
      const rk_mat4 p = rk_dh_row_transform(cv, &r, q + h), m = rk_dh_row_transform(cv, &r, q - h);
      for (int i = 0; i < 16; i++)
        rk_assert_near(d.m[i], (p.m[i] - m.m[i]) / (2 * h), 1e-8);
    }
}

/* The derivative matrices written out from the link transforms (c = cos, s = sin of theta and
 * alpha):
 *   standard A = Rz(theta) Tz(d) Tx(a) Rx(alpha):
 *     dA/dtheta = [ -st  -ct ca   ct sa  -a st ]     dA/dd = [ 0 0 0 0 ]
 *                 [  ct  -st ca   st sa   a ct ]             [ 0 0 0 0 ]
 *                 [  0    0       0       0    ]             [ 0 0 0 1 ]
 *                 [  0    0       0       0    ]             [ 0 0 0 0 ]
 *   modified A = Rx(alpha) Tx(a) Rz(theta) Tz(d):
 *     dA/dtheta = [ -st     -ct     0  0 ]           dA/dd = [ 0 0 0  0  ]
 *                 [  ct ca  -st ca  0  0 ]                   [ 0 0 0 -sa ]
 *                 [  ct sa  -st sa  0  0 ]                   [ 0 0 0  ca ]
 *                 [  0       0      0  0 ]                   [ 0 0 0  0  ]
 * and, as operators, dA/dtheta = Qr A (standard: the joint turns before the link) or A Qr
 * (modified: after it), Qr = d Rz/dtheta at 0, and dA/dd = Qp A or A Qp with Qp = d Tz/dd. */
Test(jacobian, row_derivatives_equal_their_closed_forms) {
  const double Qr_[16] = {0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const double Qp_[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
  const rk_mat4 Qr = rk_test_mat4_rows(Qr_), Qp = rk_test_mat4_rows(Qp_);
  guint64 rng = 9;
  for (int trial = 0; trial < 50; trial++) {
    const double a = rk_test_uniform(&rng, -1, 1), al = rk_test_uniform(&rng, -3, 3);
    const double d = rk_test_uniform(&rng, -1, 1), th = rk_test_uniform(&rng, -3, 3);
    const double q = rk_test_uniform(&rng, -2, 2), t = th + q;
    const double st = sin(t), ct = cos(t), sa = sin(al), ca = cos(al);
    const rk_dh_row rev = {a, al, d, th, RK_DH_REVOLUTE}, pri = {a, al, d, th, RK_DH_PRISMATIC};
    const double std_rev[16] = {-st, -ct * ca, ct * sa, -a * st, ct, -st * ca, st * sa, a * ct,
                                0,   0,        0,       0,       0,  0,        0,       0};
    const double mod_rev[16] = {-st,     -ct,      0, 0, ct * ca, -st * ca, 0, 0,
                                ct * sa, -st * sa, 0, 0, 0,       0,        0, 0};
    const double mod_pri[16] = {0, 0, 0, 0, 0, 0, 0, -sa, 0, 0, 0, ca, 0, 0, 0, 0};
    rk_assert_mat4_near(rk_dh_row_derivative(RK_DH_STANDARD, &rev, q),
                        rk_test_mat4_rows(std_rev), 1e-14);
    rk_assert_mat4_near(rk_dh_row_derivative(RK_DH_STANDARD, &pri, q), Qp, 0.0);
    rk_assert_mat4_near(rk_dh_row_derivative(RK_DH_MODIFIED, &rev, q),
                        rk_test_mat4_rows(mod_rev), 1e-14);
    rk_assert_mat4_near(rk_dh_row_derivative(RK_DH_MODIFIED, &pri, q),
                        rk_test_mat4_rows(mod_pri), 1e-15);
    const rk_mat4 As = rk_dh_row_transform(RK_DH_STANDARD, &rev, q);
    const rk_mat4 Am = rk_dh_row_transform(RK_DH_MODIFIED, &rev, q);
    const rk_mat4 Ps = rk_dh_row_transform(RK_DH_STANDARD, &pri, q);
    const rk_mat4 Pm = rk_dh_row_transform(RK_DH_MODIFIED, &pri, q);
    rk_assert_mat4_near(rk_dh_row_derivative(RK_DH_STANDARD, &rev, q), rk_mat4_mul(&Qr, &As),
                        1e-14);
    rk_assert_mat4_near(rk_dh_row_derivative(RK_DH_MODIFIED, &rev, q), rk_mat4_mul(&Am, &Qr),
                        1e-14);
    rk_assert_mat4_near(rk_dh_row_derivative(RK_DH_STANDARD, &pri, q), rk_mat4_mul(&Qp, &Ps),
                        1e-14);
    rk_assert_mat4_near(rk_dh_row_derivative(RK_DH_MODIFIED, &pri, q), rk_mat4_mul(&Pm, &Qp),
                        1e-14);
  }
}

/* The textbook's planar 2-link arm: the Jacobian columns by hand. */
Test(jacobian, two_link_planar_by_hand) {
  const rk_dh_row rows[2] = {{1.0, 0, 0, 0, RK_DH_REVOLUTE}, {0.8, 0, 0, 0, RK_DH_REVOLUTE}};
  const rk_dh_chain c = {RK_DH_STANDARD, rows, 2, rk_mat4_identity(), rk_mat4_identity()};
  const double q[2] = {0.6, -1.1};
  double J[12];
  rk_mat4 frames[6];
  rk_dh_chain_jacobian_dh(&c, q, J, 6, frames);
  const double s1 = sin(q[0]), c1 = cos(q[0]), s12 = sin(q[0] + q[1]), c12 = cos(q[0] + q[1]);
  const double expect[12] = {-s1 - 0.8 * s12, c1 + 0.8 * c12, 0, 0, 0, 1,
                             -0.8 * s12,      0.8 * c12,      0, 0, 0, 1};
  cr_assert(max_diff(J, expect, 12) < 1e-14);
}
