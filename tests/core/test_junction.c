/* Junctions: the textbook planar six-link tree (theta_2u = theta_2l + pi/4) and a humanoid's
 * pelvis and chest. */
#include "tree_fixtures.h"

static bool chain_reaches(const rk_tree *t, const rk_chain *c, const char *name) {
  return rk_chain_tip_link(c) == rk_tree_find_link(t, name);
}

Test(junction, planar_six_link_tree_lists_theta_2u_equals_theta_2l_plus_quarter_pi) {
  g_autoptr(rk_skeleton) s = fx_planar_six();
  rk_tree_options o = fx_revolute_z_options();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, &o);
  cr_assert_eq(rk_tree_dof_count(t), 6, "six revolute joints (end sites fixed)");
  cr_assert_eq(rk_tree_junction_count(t), 1);
  const rk_junction *J = rk_tree_junction(t, 0);
  cr_assert_eq(J->link, rk_tree_find_link(t, "A2"));
  cr_assert_eq(J->chain_count, 2);
  const rk_chain *lower = J->chains[0], *upper = J->chains[1];
  cr_assert(chain_reaches(t, lower, "A6_end"), "%s", rk_chain_name(lower));
  cr_assert(chain_reaches(t, upper, "A4_end"), "%s", rk_chain_name(upper));
  cr_assert_eq(J->constraint_count, 1);
  const rk_junction_constraint *c = &J->constraints[0];
  cr_assert_eq(c->chain_a, 0);
  cr_assert_eq(c->chain_b, 1);
  cr_assert(c->planar);
  cr_assert_eq(c->row, 1, "A2's joint is the second DH row of both chains");
  cr_assert_eq(c->dof, rk_tree_joint(t, (size_t)rk_tree_find_link(t, "A2"))->dof_offset);
  rk_assert_near(c->phi, RK_PI / 4, 1e-12); /* theta_2u = theta_2l + pi/4 */
  rk_assert_near(c->dz, 0, 1e-12);
  /* The DH rows agree before the junction and differ by phi at it. */
  const rk_dh_chain *dl = rk_chain_dh(lower, RK_DH_STANDARD),
                    *du = rk_chain_dh(upper, RK_DH_STANDARD);
  rk_assert_near(du->rows[0].theta, dl->rows[0].theta, 1e-12);
  rk_assert_near(du->rows[0].a, dl->rows[0].a, 1e-12);
  rk_assert_near(du->rows[1].theta - dl->rows[1].theta, RK_PI / 4, 1e-12);
  rk_assert_near(du->rows[1].a, 0.7, 1e-12); /* A2 to joint 3 */
  rk_assert_near(dl->rows[1].a, 0.8, 1e-12); /* A2 to joint 5 */

  guint64 rng = 7;
  double q[6], res[6], qa[8], qb[8];
  rk_mat4 m[8];
  cr_assert_eq(rk_tree_junction_residual_count(t), 6);
  for (int trial = 0; trial < 50; trial++) {
    fx_random_q(t, &rng, RK_PI, q);
    rk_tree_junction_residuals(t, q, res);
    for (int r = 0; r < 6; r++)
      rk_assert_near(res[r], 0, 1e-12);
    /* A4 and A6 through their own chains (T1 T2u T3 T4 and T1 T2l T5 T6) equal tree FK. */
    rk_tree_fk(t, q, NULL, m);
    const char *tips[2] = {"A4", "A6"};
    for (int i = 0; i < 2; i++) {
      const int tip = rk_tree_find_link(t, tips[i]);
      g_autoptr(rk_chain) ch = rk_chain_new(t, -1, tip, NULL);
      cr_assert_eq(rk_chain_dof_count(ch), 4);
      rk_mat4 end;
      rk_chain_fk(ch, RK_DH_STANDARD, q, NULL, &end);
      rk_assert_mat4_near(end, m[tip], 1e-12);
      rk_chain_fk(ch, RK_DH_MODIFIED, q, NULL, &end);
      rk_assert_mat4_near(end, m[tip], 1e-12);
    }
    /* In per-chain variables, theta_2u - theta_2l - pi/4 vanishes for tree poses... */
    rk_chain_gather(lower, q, qa);
    rk_chain_gather(upper, q, qb);
    const double th_l = dl->rows[1].theta + qa[1], th_u = du->rows[1].theta + qb[1];
    rk_assert_near(rk_junction_angle_residual(c, th_l, th_u), 0, 1e-12);
    rk_junction_residual(J, 0, qa, qb, res);
    for (int r = 0; r < 6; r++)
      rk_assert_near(res[r], 0, 1e-12);
    /* ...and not when the upper chain turns A2 on its own. */
    qb[1] += 0.25;
    rk_assert_near(rk_junction_angle_residual(c, th_l, th_u + 0.25), 0.25, 1e-12);
    rk_junction_residual(J, 0, qa, qb, res);
    rk_assert_near(res[5], 0.25, 1e-12); /* a rotation about z by the disagreement */
  }
}

Test(junction, humanoid_pelvis_and_chest_are_junctions_with_rigid_offsets) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_clip) walk = fx_walk(s, 0.0);
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, walk, NULL);
  cr_assert_eq(rk_tree_junction_count(t), 2);
  const rk_junction *pelvis = rk_tree_junction(t, 0), *chest = rk_tree_junction(t, 1);
  cr_assert_eq(pelvis->link, rk_tree_find_link(t, "Hips"));
  cr_assert_eq(chest->link, rk_tree_find_link(t, "Chest"));
  cr_assert_eq(pelvis->chain_count, 3);
  cr_assert(chain_reaches(t, pelvis->chains[0], "Chest"),
            "the spine branch stops at the next junction");
  cr_assert(chain_reaches(t, pelvis->chains[1], "Toe_L_end"));
  cr_assert(chain_reaches(t, pelvis->chains[2], "Toe_R_end"));
  cr_assert_eq(chest->chain_count, 3);
  cr_assert(chain_reaches(t, chest->chains[0], "Head_end"));
  cr_assert(chain_reaches(t, chest->chains[1], "Hand_L_end"));
  cr_assert(chain_reaches(t, chest->chains[2], "Hand_R_end"));
  cr_assert_eq(pelvis->constraint_count, 2);
  cr_assert_eq(pelvis->constraints[0].row, 5, "the root's last DOF");
  /* The spine's and the left leg's first axes are both the lateral x: their junction frames
   * share z (theta about it differs by 0 or pi); the legs' frames relate the same way. */
  cr_assert(pelvis->constraints[0].planar);
  rk_assert_near(fabs(pelvis->constraints[0].phi) * (RK_PI - fabs(pelvis->constraints[0].phi)), 0,
                 1e-9);
  cr_assert_eq(rk_tree_junction_residual_count(t), 24);
  double q[58], res[24], qa[32], qb[32], r6[6];
  guint64 rng = 8;
  for (int trial = 0; trial < 30; trial++) {
    fx_random_q(t, &rng, 1.5, q);
    rk_tree_junction_residuals(t, q, res);
    for (int r = 0; r < 24; r++)
      rk_assert_near(res[r], 0, 1e-11);
    /* Each chain's junction frame differs from the reference's by the constant offset, which
     * is rigid. */
    for (size_t k = 0; k < chest->constraint_count; k++) {
      const rk_junction_constraint *c = &chest->constraints[k];
      rk_mat3 r = rk_mat4_get_rotation(&c->offset);
      cr_assert(rk_mat3_is_rotation(&r, 1e-12));
      rk_chain_gather(chest->chains[c->chain_a], q, qa);
      rk_chain_gather(chest->chains[c->chain_b], q, qb);
      qb[c->row] += 0.1; /* the neck chain and the arm chain disagree on the chest */
      rk_junction_residual(chest, k, qa, qb, r6);
      cr_assert_gt(fabs(r6[3]) + fabs(r6[4]) + fabs(r6[5]), 0.09);
    }
  }
}

Test(junction, links_with_end_sites_only_are_not_junctions) {
  /* A hand with one finger and two end sites: not a junction (markers are not joints). */
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  int arm = fx_add(b, "arm", -1, fx_at(0, 0, 0), 0);
  int hand = fx_add(b, "hand", arm, fx_at(0.3, 0, 0), 0);
  fx_add(b, "marker1", hand, fx_at(0.1, 0, 0), RK_SKELETON_END_SITE);
  int f = fx_add(b, "finger", hand, fx_at(0.1, 0.02, 0), 0);
  fx_add(b, "finger_end", f, fx_at(0.05, 0, 0), RK_SKELETON_END_SITE);
  fx_add(b, "marker2", hand, fx_at(0.1, -0.02, 0), RK_SKELETON_END_SITE);
  g_autoptr(rk_skeleton) s = fx_build(b);
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, NULL);
  cr_assert_eq(rk_tree_junction_count(t), 0);
  /* A root with two movable branches is one, even with a fixed world joint. */
  rk_skeleton_builder *b2 = rk_skeleton_builder_new();
  int r = fx_add(b2, "base", -1, fx_at(0, 0, 0), 0);
  fx_add(b2, "left", r, fx_at(1, 0, 0), 0);
  fx_add(b2, "right", r, fx_at(-1, 0, 0), 0);
  g_autoptr(rk_skeleton) s2 = fx_build(b2);
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.root_type = RK_JOINT_FIXED;
  g_autoptr(rk_tree) t2 = rk_test_tree_or_fail(s2, NULL, &o);
  cr_assert_eq(rk_tree_junction_count(t2), 1);
  cr_assert_eq(rk_tree_junction(t2, 0)->constraints[0].row, -1, "nothing above it moves");
  double q[6] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, res[6];
  rk_tree_junction_residuals(t2, q, res);
  for (int i = 0; i < 6; i++)
    rk_assert_near(res[i], 0, 0);
}
