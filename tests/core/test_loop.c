/* Loop closures: the closed planar ten-link chain (effective DOF 8, welded 7; under a free root 14
 * and 13), several loops and loops to the world, the humanoid with both feet planted, exact
 * Jacobians, and closing a loop from a perturbed configuration. */
#include "tree_fixtures.h"

/* The cut of the ring: A5's tip meets A6's tip at vertex 5. */
static rk_loop ring_cut(const rk_tree *t, rk_loop_kind kind) {
  rk_loop l;
  l.kind = kind;
  l.link_a = rk_tree_find_link(t, "A5");
  l.link_b = rk_tree_find_link(t, "A6");
  l.frame_a = rk_mat4_translation(rk_vec3_sub(fx_ring_vertex(5), fx_ring_vertex(4)));
  l.frame_b = rk_mat4_translation(rk_vec3_sub(fx_ring_vertex(5), fx_ring_vertex(6)));
  return l;
}

Test(loop, closed_planar_ten_link_chain_has_effective_dof_8_and_7_when_welded) {
  g_autoptr(rk_skeleton) s = fx_ring_ten();
  rk_tree_options o = fx_revolute_z_options();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, &o);
  cr_assert_eq(rk_tree_dof_count(t), 10, "ten joint variables");
  g_autoptr(rk_loop_ws) ws = rk_loop_ws_new(t, 6);
  double q[10] = {0};
  rk_loop pin = ring_cut(t, RK_LOOP_POSITION), weld = ring_cut(t, RK_LOOP_RIGID);
  cr_assert(rk_loop_validate(t, &pin, NULL));
  cr_assert_lt(rk_test_loop_residual(t, &pin, 1, q), 1e-15, "the rest pose is closed");
  cr_assert_eq(rk_loop_rows(&pin), 3);
  cr_assert_eq(rk_loops_rank(t, &pin, 1, q, 0, ws), 2,
               "two independent closure equations (in the plane)");
  cr_assert_eq(rk_loops_effective_dof(t, &pin, 1, q, ws), 8);
  cr_assert_eq(rk_loops_effective_dof(t, &pin, 1, NULL, ws), 8);
  cr_assert_eq(rk_loops_rank(t, &weld, 1, q, 0, ws), 3);
  cr_assert_eq(rk_loops_effective_dof(t, &weld, 1, q, ws), 7, "A5 and A6 rigidly attached");
  cr_assert_eq(rk_loops_effective_dof(t, &weld, 1, NULL, ws), 7);
  /* Solving the closure from perturbed configurations. */
  guint64 rng = 10;
  for (int trial = 0; trial < 20; trial++) {
    for (int k = 0; k < 10; k++)
      q[k] = rk_test_uniform(&rng, -0.3, 0.3);
    const rk_loop *l = trial % 2 ? &weld : &pin;
    cr_assert_gt(rk_test_loop_residual(t, l, 1, q), 1e-3);
    double start[10];
    memcpy(start, q, sizeof q);
    double err = rk_loops_solve(t, l, 1, q, 1e-12, 50, ws);
    cr_assert_lt(err, 1e-9, "trial %d: %g", trial, err);
    cr_assert_lt(rk_test_loop_residual(t, l, 1, q), 1e-9);
    /* A closed configuration keeps its rank and DOF count (regular). */
    cr_assert_eq(rk_loops_effective_dof(t, l, 1, q, ws), trial % 2 ? 7 : 8);
    /* Minimum-norm steps stay near the start. */
    double moved = 0;
    for (int k = 0; k < 10; k++)
      moved = fmax(moved, fabs(q[k] - start[k]));
    cr_assert_lt(moved, 1.5);
  }
}

/* The ring on a ground link "Base" of its own, with the root joint of the given type (revolute
 * joints about z elsewhere). */
static rk_tree *ring_on_base(rk_joint_type root) {
  g_autoptr(rk_skeleton) s = fx_ring(true);
  rk_tree_options o = fx_revolute_z_options();
  o.root_type = root;
  return rk_test_tree_or_fail(s, NULL, &o);
}

/* The effective DOF at q (closed) and generically (q NULL), which must agree. */
static void assert_effective_dof(const rk_tree *t, const rk_loop *loops, size_t n, const double *q,
                                 long expect, rk_loop_ws *ws) {
  cr_assert_lt(rk_test_loop_residual(t, loops, n, q), 1e-12, "closed at q");
  cr_assert_eq(rk_loops_effective_dof(t, loops, n, q, ws), expect, "at q: %ld",
               rk_loops_effective_dof(t, loops, n, q, ws));
  cr_assert_eq(rk_loops_effective_dof(t, loops, n, NULL, ws), expect, "generic: %ld",
               rk_loops_effective_dof(t, loops, n, NULL, ws));
}

/* Under a free root the ring keeps its 8 (pinned cut) and 7 (welded cut) DOF and adds the root's
 * 6: 14 and 13. The root's columns of the closure Jacobian vanish where the loop is closed (both
 * ends move with it alike); where it is open they turn the gap and add rank, which is why the
 * count is taken on closed configurations. */
Test(loop, ring_under_a_free_root_has_effective_dof_14_and_13) {
  g_autoptr(rk_tree) t = ring_on_base(RK_JOINT_FREE);
  cr_assert_eq(rk_tree_dof_count(t), 16, "the root's 6 and ten joint variables");
  g_autoptr(rk_loop_ws) ws = rk_loop_ws_new(t, 18);
  double q[16];
  rk_tree_q_rest(t, q);
  const int a5 = rk_tree_find_link(t, "A5_tip"), a6 = rk_tree_find_link(t, "A6_tip");
  const rk_vec3 o = rk_vec3_make(0, 0, 0);
  rk_loop pin = rk_loop_closing(t, RK_LOOP_POSITION, q, a5, o, a6);
  rk_loop weld = rk_loop_closing(t, RK_LOOP_RIGID, q, a5, o, a6);
  cr_assert_eq(rk_loops_rank(t, &pin, 1, q, 0, ws), 2);
  assert_effective_dof(t, &pin, 1, q, 14, ws);
  cr_assert_eq(rk_loops_rank(t, &weld, 1, q, 0, ws), 3);
  assert_effective_dof(t, &weld, 1, q, 13, ws);
  /* At an open configuration the root's rotations turn the gap: the count there is not the
   * mechanism's (a caller asking at such a q gets the rank at q, as documented). */
  double open[16];
  memcpy(open, q, sizeof q);
  open[6] += 0.3, open[9] -= 0.2;
  cr_assert_gt(rk_test_loop_residual(t, &pin, 1, open), 1e-3);
  cr_assert_eq(rk_loops_rank(t, &pin, 1, open, 0, ws), 3);
  cr_assert_eq(rk_loops_rank(t, &weld, 1, open, 0, ws), 5);
  /* Closed again from there, it is 14 and 13 once more. */
  cr_assert_lt(rk_loops_solve(t, &pin, 1, open, 1e-12, 50, ws), 1e-9);
  cr_assert_eq(rk_loops_effective_dof(t, &pin, 1, open, ws), 14);
}

/* Fixed to the ground (the root joint fixed) the same ring gives the material's 10 -> 8 -> 7. */
Test(loop, ring_fixed_to_the_ground_has_effective_dof_8_and_7) {
  g_autoptr(rk_tree) t = ring_on_base(RK_JOINT_FIXED);
  cr_assert_eq(rk_tree_dof_count(t), 10);
  g_autoptr(rk_loop_ws) ws = rk_loop_ws_new(t, 6);
  double q[10];
  rk_tree_q_rest(t, q);
  const int a5 = rk_tree_find_link(t, "A5_tip"), a6 = rk_tree_find_link(t, "A6_tip");
  rk_loop pin = rk_loop_closing(t, RK_LOOP_POSITION, q, a5, rk_vec3_make(0, 0, 0), a6);
  rk_loop weld = rk_loop_closing(t, RK_LOOP_RIGID, q, a5, rk_vec3_make(0, 0, 0), a6);
  assert_effective_dof(t, &pin, 1, q, 8, ws);
  assert_effective_dof(t, &weld, 1, q, 7, ws);
  /* A loop that no configuration closes (a tip pinned out of reach) has no generic count. */
  rk_loop far = {RK_LOOP_POSITION, a5, rk_mat4_identity(), -1,
                 rk_mat4_translation(rk_vec3_make(50, 0, 0))};
  cr_assert_eq(rk_loops_effective_dof(t, &far, 1, NULL, ws), -1);
}

/* Several loops, some to the world, under the free root: the base held by a rigid loop to the
 * world gives the fixed ring's counts (16 - 6 - 2 = 8, 16 - 6 - 3 = 7); pinning A3's joint to the
 * world as well makes A1 and A2 a rigid triangle with the ground (two rows more: 6). */
Test(loop, several_loops_and_loops_to_the_world_on_the_free_ring) {
  g_autoptr(rk_tree) t = ring_on_base(RK_JOINT_FREE);
  g_autoptr(rk_loop_ws) ws = rk_loop_ws_new(t, 18);
  double q[16];
  rk_tree_q_rest(t, q);
  const rk_vec3 o = rk_vec3_make(0, 0, 0);
  const int a5 = rk_tree_find_link(t, "A5_tip"), a6 = rk_tree_find_link(t, "A6_tip");
  const int base = rk_tree_find_link(t, "Base"), a3 = rk_tree_find_link(t, "A3");
  rk_loop loops[3] = {rk_loop_closing(t, RK_LOOP_RIGID, q, base, o, -1),
                      rk_loop_closing(t, RK_LOOP_POSITION, q, a5, o, a6),
                      rk_loop_closing(t, RK_LOOP_POSITION, q, a3, o, -1)};
  cr_assert_eq(rk_loops_rank(t, loops, 1, q, 0, ws), 6, "the base held: the root's six");
  assert_effective_dof(t, loops, 1, q, 10, ws);
  assert_effective_dof(t, loops, 2, q, 8, ws);
  assert_effective_dof(t, loops, 3, q, 6, ws);
  loops[1] = rk_loop_closing(t, RK_LOOP_RIGID, q, a5, o, a6);
  assert_effective_dof(t, loops, 2, q, 7, ws);
  /* Both tips pinned to the world (at the one point they share) instead of to each other, the
   * base free: four rows in the plane and one out of it (the root may still tilt about any line
   * through that point): 16 - 5 = 11. */
  rk_loop tips[2] = {rk_loop_closing(t, RK_LOOP_POSITION, q, a5, o, -1),
                     rk_loop_closing(t, RK_LOOP_POSITION, q, a6, o, -1)};
  cr_assert_eq(rk_loops_rank(t, tips, 2, q, 0, ws), 5);
  assert_effective_dof(t, tips, 2, q, 11, ws);
}

/* Jacobian of a loop against central differences of its residual (rigid loops away from closure
 * too, where the SO(3) correction matters). */
static void assert_loop_jacobian(const rk_tree *t, const rk_loop *l, const double *q) {
  const size_t nd = rk_tree_dof_count(t), n = rk_tree_link_count(t), rows = rk_loop_rows(l);
  rk_mat4 *m = g_new(rk_mat4, n);
  rk_dof_axis *axes = g_new(rk_dof_axis, nd);
  double *J = g_new(double, rows *nd), *qp = g_new(double, nd), *qm = g_new(double, nd);
  double Fp[6], Fm[6];
  rk_tree_fk(t, q, NULL, m);
  rk_tree_dof_axes(t, q, m, RK_DOF_AXES_COORDINATE, axes);
  rk_loop_jacobian(t, l, m, axes, J, rows);
  for (size_t k = 0; k < nd; k++) {
    const double h = 1e-6;
    memcpy(qp, q, nd * sizeof(double));
    memcpy(qm, q, nd * sizeof(double));
    qp[k] += h;
    qm[k] -= h;
    rk_tree_fk(t, qp, NULL, m);
    rk_loop_residual(t, l, m, Fp);
    rk_tree_fk(t, qm, NULL, m);
    rk_loop_residual(t, l, m, Fm);
    for (size_t r = 0; r < rows; r++)
      cr_assert(fabs(J[k * rows + r] - (Fp[r] - Fm[r]) / (2 * h)) < 1e-7,
                "dof %zu (%s) row %zu: %g vs %g", k, rk_tree_dof_name(t, k), r, J[k * rows + r],
                (Fp[r] - Fm[r]) / (2 * h));
  }
  g_free(m);
  g_free(axes);
  g_free(J);
  g_free(qp);
  g_free(qm);
}

Test(loop, jacobians_match_finite_differences) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, NULL);
  double q[66];
  guint64 rng = 12;
  const int lf = rk_tree_find_link(t, "Foot_L"), rf = rk_tree_find_link(t, "Foot_R");
  const int hand = rk_tree_find_link(t, "Hand_R");
  for (int trial = 0; trial < 4; trial++) {
    fx_random_q(t, &rng, 1.0, q);
    rk_loop feet = {RK_LOOP_RIGID, lf, rk_mat4_translation(rk_vec3_make(0, -0.05, 0.1)), rf,
                    rk_mat4_rot_x(0.7)};
    rk_loop hand_world = {RK_LOOP_RIGID, hand, rk_mat4_rot_y(0.4), -1, rk_mat4_rot_z(2.5)};
    rk_loop point = {RK_LOOP_POSITION, hand, rk_mat4_translation(rk_vec3_make(0.1, 0, 0)), lf,
                     rk_mat4_identity()};
    assert_loop_jacobian(t, &feet, q);
    assert_loop_jacobian(t, &hand_world, q);
    assert_loop_jacobian(t, &point, q);
  }
}

Test(loop, humanoid_with_both_feet_planted) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_clip) walk = fx_walk(s, 0.0);
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, walk, NULL);
  const size_t nd = rk_tree_dof_count(t);
  cr_assert_eq(nd, 58);
  /* A frame of the walk as the configuration where both feet are on the ground. */
  rk_transform locals[26];
  double q[58];
  rk_clip_sample_frame(walk, rk_skeleton_rest_locals(s), 30.0, 7, locals, 26);
  rk_tree_q_from_locals(t, locals, NULL, q, NULL);
  const int lf = rk_tree_find_link(t, "Foot_L"), rf = rk_tree_find_link(t, "Foot_R");
  g_autoptr(rk_loop_ws) ws = rk_loop_ws_new(t, 12);

  /* One loop from the left foot to the right foot through the ground. */
  rk_loop through = rk_loop_closing(t, RK_LOOP_RIGID, q, lf, rk_vec3_make(0, 0, 0), rf);
  cr_assert_lt(rk_test_loop_residual(t, &through, 1, q), 1e-12);
  cr_assert_eq(rk_loops_effective_dof(t, NULL, 0, q, ws), 58, "no loop: the tree's DOF");
  cr_assert_eq(rk_loops_effective_dof(t, &through, 1, q, ws), 58 - 6);
  /* Both feet pinned to the world: the floating base is held too. */
  rk_loop pinned[2] = {rk_loop_closing(t, RK_LOOP_RIGID, q, lf, rk_vec3_make(0, 0, 0), -1),
                       rk_loop_closing(t, RK_LOOP_RIGID, q, rf, rk_vec3_make(0, 0, 0), -1)};
  cr_assert_lt(rk_test_loop_residual(t, pinned, 2, q), 1e-12);
  cr_assert_eq(rk_loops_rank(t, pinned, 2, q, 0, ws), 12);
  cr_assert_eq(rk_loops_effective_dof(t, pinned, 2, q, ws), 58 - 12);
  cr_assert_eq(rk_loops_effective_dof(t, pinned, 2, NULL, ws), 58 - 12);
  /* Heels only (positions): 6 rows. */
  rk_loop heels[2] = {rk_loop_closing(t, RK_LOOP_POSITION, q, lf, rk_vec3_make(0, 0, 0), -1),
                      rk_loop_closing(t, RK_LOOP_POSITION, q, rf, rk_vec3_make(0, 0, 0), -1)};
  cr_assert_eq(rk_loops_effective_dof(t, heels, 2, q, ws), 58 - 6);

  /* Push the pelvis 6 cm down and forward: the loops open; closing them moves the legs. */
  q[1] -= 0.06;
  q[2] += 0.06;
  const double open = rk_test_loop_residual(t, pinned, 2, q);
  cr_assert_gt(open, 0.05);
  double err = rk_loops_solve(t, pinned, 2, q, 1e-12, 50, ws);
  cr_assert_lt(err, 1e-9, "closure residual %g", err);
  cr_assert_lt(rk_test_loop_residual(t, pinned, 2, q), 1e-9);
  cr_assert_lt(rk_test_loop_residual(t, &through, 1, q), 1e-9,
               "the through-ground loop closes too");
  /* Too few rows in the workspace is refused. */
  g_autoptr(rk_loop_ws) small = rk_loop_ws_new(t, 6);
  cr_assert_eq(rk_loops_rank(t, pinned, 2, q, 0, small), (size_t)-1);
  cr_assert(isinf(rk_loops_solve(t, pinned, 2, q, 1e-9, 5, small)));
}

Test(loop, invalid_loops_are_refused_with_names) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, NULL);
  const int lf = rk_tree_find_link(t, "Foot_L");
  g_autoptr(GError) e1 = NULL, e2 = NULL, e3 = NULL;
  rk_loop same = {RK_LOOP_RIGID, lf, rk_mat4_identity(), lf, rk_mat4_identity()};
  cr_assert_not(rk_loop_validate(t, &same, &e1));
  cr_assert(strstr(e1->message, "Foot_L"));
  rk_loop range = {RK_LOOP_RIGID, 99, rk_mat4_identity(), -1, rk_mat4_identity()};
  cr_assert_not(rk_loop_validate(t, &range, &e2));
  rk_mat4 scaled = rk_mat4_identity();
  scaled.m[0] = 2;
  rk_loop bad = {RK_LOOP_POSITION, lf, scaled, -1, rk_mat4_identity()};
  cr_assert_not(rk_loop_validate(t, &bad, &e3));
  g_autoptr(rk_loop_ws) ws = rk_loop_ws_new(t, 6);
  double q[66] = {0};
  cr_assert_eq(rk_loops_effective_dof(t, &bad, 1, q, ws), -1);
}
