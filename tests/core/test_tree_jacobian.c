/* Kinematic tree DOF axes and Jacobians (tree_jacobian.c): coordinate axes are the derivatives of
 * FK, tangent axes match rk_tree_q_integrate and keep full rank at gimbal lock. */
#include "tree_fixtures.h"

Test(tree_jacobian, dof_axes_are_the_derivatives_of_fk) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, NULL);
  const size_t nd = rk_tree_dof_count(t);
  double q[66], qp[66], qm[66];
  rk_mat4 m[26], mp[26], mm[26];
  rk_dof_axis axes[66];
  double J[6 * 66];
  guint64 rng = 9;
  const int hand = rk_tree_find_link(t, "Hand_L_end"), toe = rk_tree_find_link(t, "Toe_R_end");
  for (int trial = 0; trial < 10; trial++) {
    fx_random_q(t, &rng, 1.0, q);
    rk_mat4 root = rk_mat4_rot_y(0.3);
    root.m[12] = 0.5;
    rk_tree_fk(t, q, &root, m);
    rk_tree_dof_axes(t, q, m, RK_DOF_AXES_COORDINATE, axes);
    for (int e = 0; e < 2; e++) {
      const int link = e ? hand : toe;
      const rk_vec3 p = rk_mat4_get_translation(&m[link]);
      rk_tree_frame_jacobian(t, axes, link, p, J, 6);
      for (size_t k = 0; k < nd; k++) {
        const double h = 1e-6;
        memcpy(qp, q, sizeof qp);
        memcpy(qm, q, sizeof qm);
        qp[k] += h;
        qm[k] -= h;
        rk_tree_fk(t, qp, &root, mp);
        rk_tree_fk(t, qm, &root, mm);
        rk_vec3 fd = rk_vec3_scale(
            rk_vec3_sub(rk_mat4_get_translation(&mp[link]), rk_mat4_get_translation(&mm[link])),
            0.5 / h);
        rk_assert_vec3_near(rk_vec3_make(J[k * 6], J[k * 6 + 1], J[k * 6 + 2]), fd, 1e-8);
        cr_assert_eq(J[k * 6] != 0 || J[k * 6 + 3] != 0 || J[k * 6 + 4] != 0 || J[k * 6 + 5] != 0 ||
                         J[k * 6 + 1] != 0 || J[k * 6 + 2] != 0,
                     rk_tree_dof_moves_link(t, k, (size_t)link));
        /* Angular part: R(q+h) R(q-h)^T ~ exp(2h w). */
        rk_mat3 rp = rk_mat4_get_rotation(&mp[link]), rm = rk_mat4_get_rotation(&mm[link]);
        rk_mat3 rmt = rk_mat3_transpose(&rm), d = rk_mat3_mul(&rp, &rmt);
        rk_vec3 w = rk_vec3_scale(rk_quat_to_rotvec(rk_quat_from_mat3(&d)), 0.5 / h);
        rk_assert_vec3_near(rk_vec3_make(J[k * 6 + 3], J[k * 6 + 4], J[k * 6 + 5]), w, 1e-8);
      }
    }
  }
}

Test(tree_jacobian, tangent_axes_match_integrate_and_survive_gimbal_lock) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, NULL);
  const size_t nd = rk_tree_dof_count(t);
  double q[66], dv[66], qp[66], qm[66], Jc[6 * 66], Jt[6 * 66];
  rk_mat4 m[26], mp[26], mm[26];
  rk_dof_axis axes[66];
  guint64 rng = 21;
  const int hand = rk_tree_find_link(t, "Hand_L_end");
  const rk_joint *shoulder = rk_test_joint_named(t, "UpArm_L");
  for (int trial = 0; trial < 6; trial++) {
    fx_random_q(t, &rng, 1.0, q);
    if (trial >= 3) /* the shoulder exactly at gimbal lock: middle angle 90 degrees */
      q[shoulder->dof_offset + 1] = RK_PI / 2;
    rk_tree_fk(t, q, NULL, m);
    rk_tree_dof_axes(t, q, m, RK_DOF_AXES_TANGENT, axes);
    const rk_vec3 p = rk_mat4_get_translation(&m[hand]);
    rk_tree_frame_jacobian(t, axes, hand, p, Jt, 6);
    for (size_t k = 0; k < nd; k++) {
      /* Near lock the Euler re-reading is accurate to ~1e-10 rad only (the split between the
       * first and last angles is ill-conditioned there), so take a larger step. */
      const double h = trial >= 3 ? 1e-5 : 1e-6, tol = trial >= 3 ? 2e-5 : 1e-7;
      memset(dv, 0, sizeof dv);
      dv[k] = h;
      rk_tree_q_integrate(t, q, dv, qp);
      dv[k] = -h;
      rk_tree_q_integrate(t, q, dv, qm);
      rk_tree_fk(t, qp, NULL, mp);
      rk_tree_fk(t, qm, NULL, mm);
      rk_vec3 fd = rk_vec3_scale(
          rk_vec3_sub(rk_mat4_get_translation(&mp[hand]), rk_mat4_get_translation(&mm[hand])),
          0.5 / h);
      cr_assert(
          rk_vec3_norm(rk_vec3_sub(rk_vec3_make(Jt[k * 6], Jt[k * 6 + 1], Jt[k * 6 + 2]), fd)) <
              tol,
          "trial %d dof %zu (%s): %g", trial, k, rk_tree_dof_name(t, k),
          rk_vec3_norm(rk_vec3_sub(rk_vec3_make(Jt[k * 6], Jt[k * 6 + 1], Jt[k * 6 + 2]), fd)));
    }
    /* The shoulder's three tangent columns are orthonormal (full rank) even at lock; the
     * coordinate columns lose rank there. */
    rk_tree_dof_axes(t, q, m, RK_DOF_AXES_COORDINATE, axes);
    rk_tree_frame_jacobian(t, axes, hand, p, Jc, 6);
    double ang_t[9], ang_c[9], work[64];
    for (int c = 0; c < 3; c++)
      for (int r = 0; r < 3; r++) {
        ang_t[c * 3 + r] = Jt[(shoulder->dof_offset + c) * 6 + 3 + r];
        ang_c[c * 3 + r] = Jc[(shoulder->dof_offset + c) * 6 + 3 + r];
      }
    cr_assert_eq(rk_la_rank(3, 3, ang_t, 3, 1e-9, work), 3);
    if (trial >= 3)
      cr_assert_eq(rk_la_rank(3, 3, ang_c, 3, 1e-9, work), 2, "Euler rates lose a rank at lock");
  }
}
