/* Kinematic trees: joint typing, the DOF vector, q <-> locals, FK, DOF axes, paired frames. */
#include "tree_fixtures.h"

Test(tree, humanoid_without_motion_is_free_root_balls_and_fixed_ends) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, NULL);
  cr_assert_eq(rk_tree_link_count(t), 26);
  cr_assert_eq(rk_test_joint_named(t, "Hips")->type, RK_JOINT_FREE);
  cr_assert_eq(rk_test_joint_named(t, "Hips")->dof_count, 6);
  cr_assert_eq(rk_test_joint_named(t, "LoLeg_L")->type, RK_JOINT_BALL,
               "no clip: a knee is not a hinge");
  cr_assert(rk_test_joint_named(t, "LoLeg_L")->hinge_hint, "the name hints at a knee");
  cr_assert_not(rk_test_joint_named(t, "UpLeg_L")->hinge_hint);
  cr_assert_eq(rk_test_joint_named(t, "Head_end")->type, RK_JOINT_FIXED);
  cr_assert_eq(rk_test_joint_named(t, "Head_end")->origin, RK_ORIGIN_END_SITE);
  /* 6 (root) + 3 x (4 spine/neck/head + 2 x 4 arm + 2 x 4 leg) = 66. */
  cr_assert_eq(rk_tree_dof_count(t), 66);
  cr_assert_str_eq(rk_tree_dof_name(t, 0), "Hips.tx");
  /* Ball orders are twist last: the leg bones run along y, so y is the last Euler axis. */
  int ax[3];
  rk_euler_order_axes(rk_test_joint_named(t, "UpLeg_L")->order, ax);
  cr_assert_eq(ax[2], 1);
  cr_assert_eq(ax[0], 0, "the first axis is the horizontal x (flexion)");
  rk_euler_order_axes(rk_test_joint_named(t, "UpArm_L")->order, ax);
  cr_assert_eq(ax[2], 0, "arm bones run along x");
  cr_assert_eq(ax[0], 2);
  /* Limits: free root unbounded, balls +-pi. */
  cr_assert(isinf(rk_tree_upper(t)[0]));
  rk_assert_near(rk_tree_upper(t)[6], RK_PI, 0);
}

Test(tree, q_round_trips_through_locals_and_fk_matches_skeleton_fk) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, NULL);
  const size_t n = rk_tree_link_count(t), nd = rk_tree_dof_count(t);
  double q[66], back[66];
  rk_transform locals[26];
  rk_mat4 a[26], b[26];
  guint64 rng = 3;
  for (int trial = 0; trial < 50; trial++) {
    fx_random_q(t, &rng, 1.2, q);
    rk_tree_q_to_locals(t, q, locals);
    double residual = -1;
    rk_tree_q_from_locals(t, locals, NULL, back, &residual);
    rk_assert_near(residual, 0, 1e-12);
    for (size_t k = 0; k < nd; k++)
      rk_assert_near(back[k], q[k], 1e-9);
    rk_tree_fk(t, q, NULL, a);
    rk_fk_models(s, locals, b);
    for (size_t j = 0; j < n; j++)
      rk_assert_mat4_near(a[j], b[j], 1e-14);
  }
  /* The zero pose is the rest pose. */
  rk_tree_q_zero(t, q);
  rk_tree_fk(t, q, NULL, a);
  rk_skeleton_rest_models(s, b);
  for (size_t j = 0; j < n; j++)
    rk_assert_mat4_near(a[j], b[j], 1e-15);
  rk_tree_q_rest(t, q);
  for (size_t k = 0; k < nd; k++)
    rk_assert_near(q[k], 0, 1e-15);
}

/* The tree of s with the joints in specs as given and every other joint, root included, fixed. */
static rk_tree *tree_of_specs(const rk_skeleton *s, const rk_joint_spec *specs, size_t n) {
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.root_type = RK_JOINT_FIXED;
  o.default_type = RK_JOINT_FIXED;
  o.joints = specs;
  o.joint_count = n;
  return rk_test_tree_or_fail(s, NULL, &o);
}

/* rk_tree_fk computes the trigonometry of revolute joints in batches of 64 DOFs, four lanes at a
 * time, and composes Rodrigues matrices precomputed per joint: a 150-joint revolute chain with
 * tilted rest rotations, non-unit scales, random axes, fixed ends in between and angles from tiny
 * to 10^6 rad (beyond the vector kernel's range) matches the quaternion path (q -> locals ->
 * skeleton FK) and rk_tree_fk_subset, with and without a root transform. */
Test(tree, long_revolute_chain_fk_matches_the_quaternion_path) {
  enum { N = 150 };
  guint64 rng = 11;
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  rk_joint_spec specs[N];
  char names[N][16];
  size_t nspec = 0;
  for (int j = 0; j < N; j++) {
    snprintf(names[j], sizeof names[j], "J%d", j);
    rk_transform x = fx_at(rk_test_uniform(&rng, -0.1, 0.1), rk_test_uniform(&rng, 0.02, 0.1),
                           rk_test_uniform(&rng, -0.1, 0.1));
    x.r = rk_quat_normalize(rk_quat_make(rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1),
                                         rk_test_uniform(&rng, -1, 1), 1.0));
    if (j % 7 == 3)
      x.s = rk_vec3_make(1.1, 0.9, 1.05);
    fx_add(b, names[j], j - 1, x, 0);
    if (j % 10 == 9)
      continue; /* fixed */
    rk_joint_spec *sp = &specs[nspec++];
    memset(sp, 0, sizeof *sp);
    sp->name = names[j];
    sp->type = RK_JOINT_REVOLUTE;
    sp->axis = rk_vec3_make(rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1),
                            rk_test_uniform(&rng, -1, 1));
    sp->order = RK_EULER_N_ORDERS;
  }
  g_autoptr(rk_skeleton) s = fx_build(b);
  g_autoptr(rk_tree) t = tree_of_specs(s, specs, nspec);
  const size_t nd = rk_tree_dof_count(t);
  cr_assert_eq(nd, nspec, "every spec'd joint revolute, the rest fixed");
  cr_assert_gt(nd, 128, "more than two batches of 64");
  double q[N];
  rk_transform locals[N];
  rk_mat4 a[N], b2[N], c[N], shifted[N];
  int all[N];
  for (int j = 0; j < N; j++)
    all[j] = j;
  const rk_mat4 root = rk_mat4_mul(&(rk_mat4){{1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1}},
                                   &(rk_mat4){{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 2, 3, 4, 1}});
  for (int trial = 0; trial < 20; trial++) {
    for (size_t k = 0; k < nd; k++)
      q[k] = rk_test_uniform(&rng, -4, 4) * (trial % 5 == 4 ? 1e5 : trial % 5 == 3 ? 1e-9 : 1.0);
    q[nd - 1] = 1e6;  /* beyond the kernel's range: libm */
    q[nd / 2] = -3e5; /* in the first lanes of a batch or not, depending on the layout */
    rk_tree_fk(t, q, NULL, a);
    rk_tree_q_to_locals(t, q, locals);
    rk_fk_models(s, locals, b2);
    rk_tree_fk_subset(t, q, NULL, all, N, c);
    for (int j = 0; j < N; j++) {
      rk_assert_mat4_near(a[j], b2[j], 1e-11);
      rk_assert_mat4_near(a[j], c[j], 1e-11);
    }
    rk_tree_fk(t, q, &root, shifted);
    for (int j = 0; j < N; j++) {
      const rk_mat4 expect = rk_mat4_mul(&root, &a[j]);
      rk_assert_mat4_near(shifted[j], expect, 1e-11);
    }
  }
}


/* rk_tree_fk composes each joint in the cheapest exact form (translation only, a turn about +-x,
 * +-y or +-z, the Rodrigues matrix, three Euler turns for ball and free joints, the general local
 * transform) and keeps the last frame in registers for a child right after its parent. A tree
 * with every form (rotated and scaled zero frames, all Euler orders), branches, interleaved
 * prismatic DOFs and batch tails must give what the quaternion path gives. */
Test(tree, every_fk_form_matches_the_quaternion_path) {
  enum { N = 140 };
  guint64 rng = 29;
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  rk_joint_spec specs[N];
  char names[N][16];
  size_t nspec = 0;
  int kinds[10] = {0};
  for (int j = 0; j < N; j++) {
    snprintf(names[j], sizeof names[j], "J%d", j);
    rk_transform x = fx_at(rk_test_uniform(&rng, -0.1, 0.1), rk_test_uniform(&rng, 0.02, 0.1),
                           rk_test_uniform(&rng, -0.1, 0.1));
    if (j % 11 == 5)
      x.t = rk_vec3_make(0, 0, 0); /* coincident with the parent, as Euler joints split in three */
    const int form = j % 10;
    /* Rotated zero frames: about a coordinate axis, still a matrix (4), fixed (7), and every
     * other ball and free joint (8, 9). */
    if (form == 4 || form == 7 || ((form == 8 || form == 9) && j % 20 >= 10))
      x.r = rk_quat_normalize(rk_quat_make(rk_test_uniform(&rng, -1, 1),
                                           rk_test_uniform(&rng, -1, 1), 0.3, 1.0));
    if (form == 5 || ((form == 8 || form == 9) && j % 30 >= 20))
      x.s = rk_vec3_make(1.1, 0.9, 1.05);
    /* Mostly chains; every sixth joint branches off further up. */
    const int parent = j == 0 ? -1 : j % 6 == 0 && j >= 3 ? j - 3 : j - 1;
    fx_add(b, names[j], parent, x, 0);
    kinds[form]++;
    if (j == 0 || form == 6 || form == 7)
      continue; /* fixed: translation only (6) or rotated (7) */
    rk_joint_spec *sp = &specs[nspec++];
    memset(sp, 0, sizeof *sp);
    sp->name = names[j];
    sp->type = RK_JOINT_REVOLUTE;
    sp->order = RK_EULER_N_ORDERS;
    static const rk_vec3 axes[] = {{1, 0, 0}, {0, -1, 0}, {0, 0, 2.5}, {-1, 0, 0}, {0, 0, 1},
                                   {0, 1, 0}};
    if (form < 6) {
      sp->axis = axes[form];
    } else if (form == 8) {
      sp->type = RK_JOINT_BALL;
      sp->order = (rk_euler_order)(j % RK_EULER_N_ORDERS); /* proper and Tait-Bryan orders */
    } else if (j % 20 == 19) {
      sp->type = RK_JOINT_FREE;
    } else {
      sp->type = RK_JOINT_PRISMATIC;
      sp->axis = rk_vec3_make(0.2, 1, -0.4);
    }
  }
  g_autoptr(rk_skeleton) s = fx_build(b);
  g_autoptr(rk_tree) t = tree_of_specs(s, specs, nspec);
  const size_t nd = rk_tree_dof_count(t);
  cr_assert_gt(nd, 64 + 13, "more than one batch of trigonometry, with a tail");
  double q[3 * N];
  rk_transform locals[N];
  rk_mat4 a[N], expect[N], sub[N], shifted[N];
  int all[N];
  for (int j = 0; j < N; j++)
    all[j] = j;
  const rk_mat4 root = rk_mat4_mul(&(rk_mat4){{0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}},
                                   &(rk_mat4){{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 2, 5, 1}});
  for (int trial = 0; trial < 12; trial++) {
    for (size_t k = 0; k < nd; k++)
      q[k] = rk_test_uniform(&rng, -4, 4) * (trial % 4 == 3 ? 1e4 : 1.0);
    if (trial % 3 == 1) {
      q[nd - 1] = 2e6; /* beyond the vector kernel's range: libm */
      q[nd / 3] = -4e5;
    }
    rk_tree_fk(t, q, NULL, a);
    rk_tree_q_to_locals(t, q, locals);
    rk_fk_models(s, locals, expect);
    rk_tree_fk_subset(t, q, NULL, all, N, sub);
    rk_tree_fk(t, q, &root, shifted);
    for (int j = 0; j < N; j++) {
      /* Relative to the frame's distance: large prismatic DOFs move it by 1e6. */
      const double tol = 1e-11 * (1.0 + fabs(expect[j].m[12]) + fabs(expect[j].m[13]) +
                                  fabs(expect[j].m[14]));
      rk_assert_mat4_near(a[j], expect[j], tol);
      rk_assert_mat4_near(sub[j], expect[j], tol);
      const rk_mat4 placed = rk_mat4_mul(&root, &a[j]);
      rk_assert_mat4_near(shifted[j], placed, tol);
    }
  }
  for (int f = 0; f < 10; f++)
    cr_assert_gt(kinds[f], 10, "form %d is exercised", f);
}
Test(tree, euler_reading_follows_the_hint_across_pi) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, NULL);
  double q[66] = {0}, back[66];
  rk_transform locals[26];
  /* Turn the root 3 times around: each step continues from the last angles. */
  const rk_joint *root = rk_test_joint_named(t, "Hips");
  int ax[3];
  rk_euler_order_axes(root->order, ax);
  cr_assert_eq(ax[0], 1, "root yaw (y) first");
  double prev[66] = {0};
  for (int step = 1; step <= 60; step++) {
    q[3] = 3 * 2 * RK_PI * step / 60.0;
    rk_tree_q_to_locals(t, q, locals);
    rk_tree_q_from_locals(t, locals, prev, back, NULL);
    rk_assert_near(back[3], q[3], 1e-9);
    memcpy(prev, back, sizeof prev);
  }
}

Test(tree, dof_axes_are_the_derivatives_of_fk) {
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

Test(tree, tangent_axes_match_integrate_and_survive_gimbal_lock) {
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

Test(tree, paired_frames_compose_to_the_joint_local_pose) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_clip) walk = fx_walk(s, 0.0);
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, walk, NULL);
  const size_t n = rk_tree_link_count(t);
  double q[66];
  guint64 rng = 4;
  fx_random_q(t, &rng, 0.9, q);
  for (size_t j = 0; j < n; j++) {
    const rk_joint *J = rk_tree_joint(t, j);
    rk_mat4 motion = rk_mat4_identity();
    const double *qj = J->dof_offset >= 0 ? q + J->dof_offset : NULL;
    switch (J->type) {
    case RK_JOINT_REVOLUTE:
      motion = rk_mat4_rot_z(qj[0]);
      break;
    case RK_JOINT_PRISMATIC:
      motion = rk_mat4_translation(rk_vec3_make(0, 0, qj[0]));
      break;
    case RK_JOINT_BALL: {
      rk_mat3 e = rk_euler_to_mat3(J->order, qj);
      motion = rk_mat4_from_rt(&e, rk_vec3_make(0, 0, 0));
      break;
    }
    case RK_JOINT_FREE: {
      rk_mat3 e = rk_euler_to_mat3(J->order, qj + 3);
      rk_mat3 fp = rk_mat4_get_rotation(&J->frame_on_parent), fpt = rk_mat3_transpose(&fp);
      motion = rk_mat4_from_rt(&e, rk_mat3_mul_vec(&fpt, rk_vec3_make(qj[0], qj[1], qj[2])));
      break;
    }
    case RK_JOINT_FIXED:
      break;
    }
    if (J->type == RK_JOINT_REVOLUTE || J->type == RK_JOINT_PRISMATIC) {
      rk_vec3 z = rk_mat4_column(&J->frame_on_parent, 2);
      rk_vec3 ax = J->type == RK_JOINT_REVOLUTE ? rk_quat_rotate(J->zero.r, J->axis) : J->axis;
      rk_assert_vec3_near(z, ax, 1e-12);
    }
    rk_mat4 inv, a, b;
    cr_assert(rk_mat4_inverse_affine(&J->frame_on_child, &inv));
    a = rk_mat4_mul(&J->frame_on_parent, &motion);
    b = rk_mat4_mul(&a, &inv);
    rk_transform L;
    rk_tree_joint_local(t, j, q, &L);
    rk_assert_mat4_near(b, rk_transform_to_mat4(&L), 1e-12);
  }
}

Test(tree, transform_between_links_matches_fk) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, NULL);
  double q[66];
  rk_mat4 m[26];
  guint64 rng = 5;
  fx_random_q(t, &rng, 1.0, q);
  rk_tree_fk(t, q, NULL, m);
  const int pairs[][2] = {{rk_tree_find_link(t, "Hand_L"), rk_tree_find_link(t, "Toe_R")},
                          {rk_tree_find_link(t, "Toe_R"), rk_tree_find_link(t, "Hips")},
                          {-1, rk_tree_find_link(t, "Head")},
                          {rk_tree_find_link(t, "Chest"), -1},
                          {rk_tree_find_link(t, "Foot_L"), rk_tree_find_link(t, "Foot_L")}};
  for (size_t i = 0; i < G_N_ELEMENTS(pairs); i++) {
    const int a = pairs[i][0], b = pairs[i][1];
    rk_mat4 got, ia = rk_mat4_identity(), expect;
    rk_tree_transform_between(t, q, a, b, &got);
    if (a >= 0)
      ia = rk_mat4_inverse_rigid(&m[a]);
    rk_mat4 mb = b >= 0 ? m[b] : rk_mat4_identity();
    expect = rk_mat4_mul(&ia, &mb);
    rk_assert_mat4_near(got, expect, 1e-12);
  }
}

Test(tree, link_dofs_are_the_ancestor_dofs) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, NULL);
  int dofs[66];
  const int toe = rk_tree_find_link(t, "Toe_L_end");
  size_t n = rk_tree_link_dofs(t, (size_t)toe, dofs);
  cr_assert_eq(n, rk_tree_link_dof_count(t, (size_t)toe));
  cr_assert_eq(n, 6 + 4 * 3, "root + hip, knee, ankle, toe balls");
  for (size_t i = 0; i < n; i++) {
    if (i)
      cr_assert_lt(dofs[i - 1], dofs[i]);
    cr_assert(rk_tree_dof_moves_link(t, (size_t)dofs[i], (size_t)toe));
  }
  size_t moving = 0;
  for (size_t k = 0; k < rk_tree_dof_count(t); k++)
    moving += rk_tree_dof_moves_link(t, k, (size_t)toe);
  cr_assert_eq(moving, n);
}

Test(tree, clamp_and_limits) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  rk_joint_spec spec = {.name = "LoLeg_L",
                        .type = RK_JOINT_REVOLUTE,
                        .axis = {2, 0, 0},
                        .has_limits = true,
                        .lower = {0.0},
                        .upper = {2.5}};
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.joints = &spec;
  o.joint_count = 1;
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, &o);
  const rk_joint *knee = rk_test_joint_named(t, "LoLeg_L");
  cr_assert_eq(knee->type, RK_JOINT_REVOLUTE);
  cr_assert_eq(knee->origin, RK_ORIGIN_SPEC);
  rk_assert_vec3_near(knee->axis, rk_vec3_make(1, 0, 0), 0);
  cr_assert_eq(rk_tree_dof_count(t), 64);
  cr_assert_str_eq(rk_tree_dof_name(t, (size_t)knee->dof_offset), "LoLeg_L.angle");
  double q[64] = {0};
  q[knee->dof_offset] = -1.0;
  q[knee->dof_offset + 1] = 7.0;
  q[knee->dof_offset + 2] = NAN;
  cr_assert_not(rk_tree_q_within_limits(t, q, 0));
  cr_assert_eq(rk_tree_q_clamp(t, q), 3);
  rk_assert_near(q[knee->dof_offset], 0.0, 0);
  rk_assert_near(q[knee->dof_offset + 1], RK_PI, 0);
  cr_assert(isfinite(q[knee->dof_offset + 2]));
  cr_assert(rk_tree_q_within_limits(t, q, 0));
}

Test(tree, bad_input_fails_with_messages) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(GError) e1 = NULL, e2 = NULL, e3 = NULL, e4 = NULL, e5 = NULL;
  rk_joint_spec spec = {.name = "Knee_Q", .type = RK_JOINT_REVOLUTE, .axis = {1, 0, 0}};
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.joints = &spec;
  o.joint_count = 1;
  cr_assert_null(rk_tree_from_skeleton(s, NULL, &o, &e1));
  cr_assert(g_error_matches(e1, RK_ERROR, RK_ERROR_NOT_FOUND));
  cr_assert(strstr(e1->message, "Knee_Q"));
  spec.name = "LoLeg_L";
  spec.axis = rk_vec3_make(0, 0, 0);
  cr_assert_null(rk_tree_from_skeleton(s, NULL, &o, &e2));
  cr_assert(strstr(e2->message, "LoLeg_L"));
  spec.axis = rk_vec3_make(1, 0, 0);
  spec.has_limits = true;
  spec.lower[0] = 1;
  spec.upper[0] = -1;
  cr_assert_null(rk_tree_from_skeleton(s, NULL, &o, &e3));
  g_autoptr(rk_clip) wrong = rk_clip_new("wrong", 3);
  cr_assert_null(rk_tree_from_skeleton(s, wrong, NULL, &e4));
  cr_assert(g_error_matches(e4, RK_ERROR, RK_ERROR_INVALID));
  rk_tree_options bad = RK_TREE_OPTIONS_INIT;
  bad.hinge_tolerance = NAN;
  cr_assert_null(rk_tree_from_skeleton(s, NULL, &bad, &e5));
}

Test(tree, one_joint_and_all_fixed_trees) {
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  fx_add(b, "only", -1, fx_at(0, 0, 0), 0);
  g_autoptr(rk_skeleton) s = fx_build(b);
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, NULL);
  cr_assert_eq(rk_tree_dof_count(t), 6);
  cr_assert_eq(rk_tree_junction_count(t), 0);
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.root_type = RK_JOINT_FIXED;
  g_autoptr(rk_tree) f = rk_test_tree_or_fail(s, NULL, &o);
  cr_assert_eq(rk_tree_dof_count(f), 0);
  rk_mat4 m;
  rk_tree_fk(f, NULL, NULL, &m);
  rk_assert_mat4_near(m, rk_mat4_identity(), 0);
}

typedef struct thread_job {
  const rk_tree *tree;
  guint64 seed;
  double out[2000];
} thread_job;

/* FK, DOF axes, q <-> locals and junction residuals on a shared const tree. */
static gpointer thread_body(gpointer p) {
  thread_job *job = p;
  const rk_tree *t = job->tree;
  double q[66], back[66], res[24];
  rk_mat4 m[26];
  rk_dof_axis axes[66];
  rk_transform locals[26];
  guint64 rng = job->seed;
  size_t o = 0;
  for (int it = 0; it < 200; it++) {
    fx_random_q(t, &rng, 1.0, q);
    rk_tree_fk(t, q, NULL, m);
    rk_tree_dof_axes(t, q, m, RK_DOF_AXES_COORDINATE, axes);
    rk_tree_q_to_locals(t, q, locals);
    rk_tree_q_from_locals(t, locals, q, back, NULL);
    rk_tree_junction_residuals(t, q, res);
    if (o + 8 <= G_N_ELEMENTS(job->out)) {
      job->out[o++] = m[25].m[12];
      job->out[o++] = axes[40].axis.y;
      job->out[o++] = back[17];
      job->out[o++] = res[7];
    }
  }
  return NULL;
}

Test(tree, const_tree_is_safe_and_deterministic_on_two_threads) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, NULL);
  thread_job *a = g_new0(thread_job, 1), *b = g_new0(thread_job, 1), *c = g_new0(thread_job, 1);
  a->tree = b->tree = c->tree = t;
  a->seed = b->seed = c->seed = 77;
  GThread *ta = g_thread_new("a", thread_body, a), *tb = g_thread_new("b", thread_body, b);
  g_thread_join(ta);
  g_thread_join(tb);
  thread_body(c);
  cr_assert_eq(memcmp(a->out, b->out, sizeof a->out), 0, "two threads, same answers bit for bit");
  cr_assert_eq(memcmp(a->out, c->out, sizeof a->out), 0);
  g_free(a);
  g_free(b);
  g_free(c);
}
