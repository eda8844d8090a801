/* Kinematic trees: joint typing, the DOF vector, q <-> locals, paired frames, limits, sharing.
 * FK: test_tree_fk.c; DOF axes and Jacobians: test_tree_jacobian.c. */
#include "tree_fixtures.h"
#include "../../core/src/tree_internal.h"

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

/* The angles of some links only (core/src/tree.c, rk__tree_q_from_locals_links): those links'
 * DOFs the same bits as the whole reading's, with and without a hint; the other DOFs untouched. */
Test(tree, links_only_reading_matches_the_whole_reading) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, NULL);
  const size_t nd = rk_tree_dof_count(t), n = rk_tree_link_count(t);
  g_autofree double *q = g_new(double, nd), *whole = g_new(double, nd), *part = g_new(double, nd);
  g_autofree double *hint = g_new(double, nd);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  for (size_t k = 0; k < nd; k++)
    q[k] = 2.9 * sin(1.7 * (double)k + 0.3), hint[k] = q[k] + 2 * RK_PI;
  rk_tree_q_to_locals(t, q, locals);
  const int ends[2] = {(int)n - 1, (int)n / 2};
  g_autofree int *links = g_new(int, n);
  const size_t nl = rk_skeleton_ancestor_closure(s, ends, 2, links);
  for (int hinted = 0; hinted < 2; hinted++) {
    rk_tree_q_from_locals(t, locals, hinted ? hint : NULL, whole, NULL);
    for (size_t k = 0; k < nd; k++)
      part[k] = -1234.5;
    rk__tree_q_from_locals_links(t, locals, hinted ? hint : NULL, links, nl, part);
    g_autofree bool *in = g_new0(bool, nd);
    for (size_t i = 0; i < nl; i++) {
      const rk_joint *jt = rk_tree_joint(t, (size_t)links[i]);
      for (int d = 0; d < jt->dof_count; d++)
        in[jt->dof_offset + d] = true;
    }
    for (size_t k = 0; k < nd; k++)
      cr_assert(in[k] ? memcmp(&part[k], &whole[k], sizeof(double)) == 0 : part[k] == -1234.5,
                "DOF %zu (%s)", k, in[k] ? "read" : "not read");
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
