/* Jacobians: the geometric form (axis x lever arm) and the DH-derivative form (P dA C) agree with
 * each other and with central finite differences, for both DH conventions, revolute and
 * prismatic rows; the DH derivative matrices equal their closed forms; the tree's Jacobian agrees
 * with the chain's; the analytic (Euler-angle rate) Jacobian agrees with finite differences of the
 * angles and with the roll-pitch-yaw form, and reports its singularity. */
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

/* The angles of the end rotation, central differences: da/dq_k against the analytic Jacobian's
 * rows 3-5 (with the angle wrapped to the nearest turn). */
static void fd_euler_rows(const rk_dh_chain *c, const double *q, rk_euler_order order,
                          double *rows) {
  const double h = 1e-6;
  double qq[MAXN];
  for (size_t k = 0; k < c->count; k++) {
    double ap[3], am[3];
    rk_mat4 T;
    memcpy(qq, q, c->count * sizeof(double));
    qq[k] = q[k] + h;
    rk_dh_chain_fk(c, qq, NULL, &T);
    rk_mat3 r = rk_mat4_get_rotation(&T);
    rk_euler_from_mat3(order, &r, ap);
    qq[k] = q[k] - h;
    rk_dh_chain_fk(c, qq, NULL, &T);
    r = rk_mat4_get_rotation(&T);
    rk_euler_from_mat3(order, &r, am);
    for (int i = 0; i < 3; i++)
      rows[k * 3 + i] = remainder(ap[i] - am[i], 2 * RK_PI) / (2 * h);
  }
}

Test(jacobian, euler_angle_jacobian_matches_finite_differences_in_every_order) {
  guint64 rng = 31;
  rk_dh_row rows[7];
  int checked = 0;
  for (int trial = 0; trial < 40; trial++)
    for (int o = 0; o < RK_EULER_N_ORDERS; o++) {
      const rk_dh_chain c = random_chain(&rng, rows, 7, trial % 2 ? RK_DH_MODIFIED : RK_DH_STANDARD);
      double q[7], J[6 * 7], G[6 * 7], fd[3 * 7], a[3];
      for (int k = 0; k < 7; k++)
        q[k] = rk_test_uniform(&rng, -2, 2);
      rk_mat4 frames[8], end;
      rk_dh_chain_jacobian(&c, q, G, 6, &end, frames);
      const bool ok = rk_dh_chain_jacobian_euler(&c, q, (rk_euler_order)o, J, 6, a, frames);
      rk_mat3 B;
      const double det = rk_euler_rate_matrix((rk_euler_order)o, a, &B);
      cr_assert_eq(ok, fabs(det) > RK_EULER_RATE_SINGULAR);
      if (fabs(det) < 0.05 || fabs(a[0]) > 3.1 || fabs(a[2]) > 3.1)
        continue; /* near the order's gimbal lock or a wrap of the angles: differences blur */
      checked++;
      fd_euler_rows(&c, q, (rk_euler_order)o, fd);
      for (int k = 0; k < 7; k++) {
        for (int i = 0; i < 3; i++) /* the position rows are the geometric ones */
          rk_assert_near(J[k * 6 + i], G[k * 6 + i], 0.0);
        for (int i = 0; i < 3; i++)
          rk_assert_near(J[k * 6 + 3 + i], fd[k * 3 + i], 1e-6 / fabs(det));
        /* B maps the angle rates back to the angular velocity. */
        const rk_vec3 rates = rk_vec3_make(J[k * 6 + 3], J[k * 6 + 4], J[k * 6 + 5]);
        rk_assert_vec3_near(rk_mat3_mul_vec(&B, rates),
                            rk_vec3_make(G[k * 6 + 3], G[k * 6 + 4], G[k * 6 + 5]), 1e-12);
      }
    }
  cr_assert_gt(checked, 300);
}

/* Roll-pitch-yaw R = Rz(phi) Ry(theta) Rx(psi) (RK_EULER_ZYX, a = (phi, theta, psi)): the rates
 * of the textbook's state from omega,
 *   dphi/dt   = (cos(phi) sin(theta) wx + sin(phi) sin(theta) wy) / cos(theta) + wz
 *   dtheta/dt = -sin(phi) wx + cos(phi) wy
 *   dpsi/dt   = (cos(phi) wx + sin(phi) wy) / cos(theta),
 * and the singularity at theta = +-90 degrees, reported with J left as it was. */
Test(jacobian, roll_pitch_yaw_rates_and_their_singularity) {
  guint64 rng = 41;
  for (int trial = 0; trial < 100; trial++) {
    const double a[3] = {rk_test_uniform(&rng, -3, 3), rk_test_uniform(&rng, -1.4, 1.4),
                         rk_test_uniform(&rng, -3, 3)};
    const double sf = sin(a[0]), cf = cos(a[0]), st = sin(a[1]), ct = cos(a[1]);
    double J[6 * 2];
    for (int i = 0; i < 12; i++)
      J[i] = rk_test_uniform(&rng, -1, 1);
    double w[2][3];
    for (int k = 0; k < 2; k++)
      memcpy(w[k], J + k * 6 + 3, sizeof w[k]);
    cr_assert(rk_jacobian_euler_rates(RK_EULER_ZYX, a, J, 6, 2));
    for (int k = 0; k < 2; k++) {
      const double *o = w[k], *r = J + k * 6 + 3;
      rk_assert_near(r[0], (cf * st * o[0] + sf * st * o[1]) / ct + o[2], 1e-12);
      rk_assert_near(r[1], -sf * o[0] + cf * o[1], 1e-12);
      rk_assert_near(r[2], (cf * o[0] + sf * o[1]) / ct, 1e-12);
    }
  }
  /* A wrist pointing the tool straight up (pitch 90 degrees): no rates for the roll and yaw apart. */
  const rk_dh_row rows[2] = {{0, -RK_PI / 2, 0, 0, RK_DH_REVOLUTE}, {0.4, 0, 0, 0, RK_DH_REVOLUTE}};
  const rk_dh_chain c = {RK_DH_STANDARD, rows, 2, rk_mat4_identity(), rk_mat4_identity()};
  const double q[2] = {0.3, -RK_PI / 2};
  double J[12], G[12], a[3];
  rk_mat4 frames[3];
  rk_dh_chain_jacobian(&c, q, G, 6, NULL, frames);
  cr_assert_not(rk_dh_chain_jacobian_euler(&c, q, RK_EULER_ZYX, J, 6, a, frames));
  rk_assert_near(fabs(a[1]), RK_PI / 2, 1e-9);
  cr_assert(max_diff(J, G, 12) == 0, "the geometric Jacobian is left in J");
  /* The same pose in ZYZ angles is regular. */
  cr_assert(rk_dh_chain_jacobian_euler(&c, q, RK_EULER_ZYZ, J, 6, a, frames));
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
