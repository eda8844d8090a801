/* Chains of a kinematic tree in DH form: the iiwa table, FK equal to tree FK, bad chains. */
#include "tree_fixtures.h"

#include <stdio.h>

static rk_chain *chain_or_fail(const rk_tree *t, int base, int tip) {
  g_autoptr(GError) error = NULL;
  rk_chain *c = rk_chain_new(t, base, tip, &error);
  cr_assert(c, "%s", error ? error->message : "");
  return c;
}

/* Checks that world FK through the chain (both conventions) equals tree FK at q. */
static void assert_chain_fk(const rk_tree *t, const rk_chain *c, const double *q,
                            const rk_mat4 *models, double tol) {
  for (int conv = 0; conv < 2; conv++) {
    rk_mat4 end, world;
    rk_chain_fk(c, (rk_dh_convention)conv, q, NULL, &end);
    const int base = rk_chain_base_link(c);
    world = base >= 0 ? rk_mat4_mul(&models[base], &end) : end;
    rk_assert_mat4_near(world, models[rk_chain_tip_link(c)], tol);
  }
}

Test(chain, iiwa_dh_table_extracted_from_the_tree_equals_the_bench_table) {
  g_autoptr(rk_skeleton) s = fx_iiwa();
  rk_tree_options o = fx_revolute_z_options();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, &o);
  cr_assert_eq(rk_tree_dof_count(t), 7);
  cr_assert_eq(rk_tree_joint(t, 7)->type, RK_JOINT_FIXED, "the flange is an end site");
  g_autoptr(rk_chain) c = chain_or_fail(t, -1, rk_tree_find_link(t, "flange"));
  cr_assert_str_eq(rk_chain_name(c), "world->flange");
  cr_assert_eq(rk_chain_dof_count(c), 7);
  const rk_dh_chain *dh = rk_chain_dh(c, RK_DH_STANDARD);
  for (int i = 0; i < 7; i++) {
    rk_assert_near(dh->rows[i].a, rk_rig_iiwa14_rows[i].a, 1e-12);
    rk_assert_near(dh->rows[i].alpha, rk_rig_iiwa14_rows[i].alpha, 1e-12);
    rk_assert_near(dh->rows[i].d, rk_rig_iiwa14_rows[i].d, 1e-12);
    rk_assert_near(dh->rows[i].theta, 0.0, 1e-12);
    cr_assert_eq(dh->rows[i].type, RK_DH_REVOLUTE);
  }
  rk_assert_mat4_near(dh->base, rk_mat4_identity(), 1e-12);
  rk_assert_mat4_near(dh->tool, rk_mat4_identity(), 1e-12);
  /* The modified table is the standard one shifted (Craig's a_{i-1}, alpha_{i-1}). */
  rk_dh_row mod[7];
  rk_mat4 mtool;
  rk_dh_standard_to_modified(rk_rig_iiwa14_rows, 7, &dh->tool, mod, &mtool);
  const rk_dh_chain *mdh = rk_chain_dh(c, RK_DH_MODIFIED);
  for (int i = 0; i < 7; i++) {
    rk_assert_near(mdh->rows[i].a, mod[i].a, 1e-12);
    rk_assert_near(mdh->rows[i].alpha, mod[i].alpha, 1e-12);
    rk_assert_near(mdh->rows[i].d, mod[i].d, 1e-12);
  }
  rk_assert_mat4_near(mdh->tool, mtool, 1e-12);
}

Test(chain, iiwa_tree_fk_reaches_every_benchmark_target) {
  g_autoptr(rk_skeleton) s = fx_iiwa();
  rk_tree_options o = fx_revolute_z_options();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, &o);
  g_autofree char *path = rk_test_data("ik_targets_iiwa14.txt");
  FILE *f = fopen(path, "r");
  cr_assert(f, "cannot open %s", path);
  char line[4096];
  int count = 0;
  double worst = 0;
  const int flange = rk_tree_find_link(t, "flange");
  g_autoptr(rk_chain) c = chain_or_fail(t, -1, flange);
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#')
      continue;
    double v[22];
    int idx, off = 0, used;
    cr_assert_eq(sscanf(line, "%d%n", &idx, &used), 1);
    off = used;
    for (int k = 0; k < 21; k++) {
      cr_assert_eq(sscanf(line + off, "%lf%n", &v[k], &used), 1);
      off += used;
    }
    rk_mat4 m[8];
    rk_tree_fk(t, v, NULL, m);
    worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&m[flange]),
                                                 rk_vec3_make(v[14], v[15], v[16]))));
    rk_mat3 r = rk_mat4_get_rotation(&m[flange]);
    worst = fmax(worst, rk_quat_angle_between(rk_quat_from_mat3(&r),
                                              rk_quat_make(v[17], v[18], v[19], v[20])));
    if (count % 100 == 0)
      assert_chain_fk(t, c, v, m, 1e-12);
    count++;
  }
  fclose(f);
  cr_assert_eq(count, 1000);
  cr_assert_leq(worst, 1e-9);
}

Test(chain, humanoid_chains_match_tree_fk_for_random_q) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_clip) walk = fx_walk(s, 0.0);
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, walk, NULL);
  const char *pairs[][2] = {{NULL, "Toe_L_end"},   {"Hips", "Hand_R_end"}, {"Chest", "Head_end"},
                            {"UpLeg_R", "Foot_R"}, {"LoArm_L", "LoArm_L"}, {NULL, "Hips"}};
  double q[58];
  rk_mat4 m[26];
  guint64 rng = 11;
  for (size_t i = 0; i < G_N_ELEMENTS(pairs); i++) {
    const int base = pairs[i][0] ? rk_tree_find_link(t, pairs[i][0]) : -1;
    const int tip = rk_tree_find_link(t, pairs[i][1]);
    g_autoptr(rk_chain) c = chain_or_fail(t, base, tip);
    size_t expect = 0;
    for (int x = tip; x != base; x = rk_tree_link_parent(t, (size_t)x))
      expect += (size_t)rk_tree_joint(t, (size_t)x)->dof_count;
    cr_assert_eq(rk_chain_dof_count(c), expect, "%s", rk_chain_name(c));
    if (base != tip)
      cr_assert_eq(rk_chain_links(c)[rk_chain_link_count(c) - 1], tip);
    else
      cr_assert_eq(rk_chain_link_count(c), 0);
    for (int trial = 0; trial < 20; trial++) {
      fx_random_q(t, &rng, 1.5, q);
      rk_tree_fk(t, q, NULL, m);
      assert_chain_fk(t, c, q, m, 1e-12);
    }
    /* The DH frames lie on the joint axes: frame i's z is DOF i's axis (standard DH). */
    rk_mat4 frames[32];
    rk_dof_axis axes[58];
    rk_tree_dof_axes(t, q, m, RK_DOF_AXES_COORDINATE, axes);
    rk_chain_fk(c, RK_DH_STANDARD, q, frames, NULL);
    const rk_mat4 mb = base >= 0 ? m[base] : rk_mat4_identity();
    for (size_t r = 0; r < rk_chain_dof_count(c); r++) {
      rk_mat4 w = rk_mat4_mul(&mb, &frames[r]);
      const rk_dof_axis *a = &axes[rk_chain_dofs(c)[r]];
      rk_assert_near(fabs(rk_vec3_dot(rk_mat4_column(&w, 2), a->axis)), 1.0, 1e-9);
      rk_vec3 off = rk_vec3_sub(rk_mat4_get_translation(&w), a->origin);
      if (rk_tree_dof(t, (size_t)rk_chain_dofs(c)[r])->kind == RK_DOF_ROTATION)
        rk_assert_near(rk_vec3_norm(rk_vec3_cross(off, a->axis)), 0, 1e-9);
    }
  }
}

Test(chain, gather_and_bad_chains) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, NULL, NULL);
  g_autoptr(GError) e1 = NULL, e2 = NULL;
  cr_assert_null(
      rk_chain_new(t, rk_tree_find_link(t, "Hand_L"), rk_tree_find_link(t, "Foot_L"), &e1));
  cr_assert(g_error_matches(e1, RK_ERROR, RK_ERROR_INVALID));
  cr_assert(strstr(e1->message, "Hand_L") && strstr(e1->message, "Foot_L"), "%s", e1->message);
  cr_assert_null(rk_chain_new(t, -1, 999, &e2));
  g_autoptr(rk_chain) c =
      chain_or_fail(t, rk_tree_find_link(t, "UpLeg_L"), rk_tree_find_link(t, "Foot_L"));
  cr_assert_eq(rk_chain_dof_count(c), 6, "knee and ankle balls (the base's own joint excluded)");
  double q[66], qc[6];
  for (int k = 0; k < 66; k++)
    q[k] = k;
  rk_chain_gather(c, q, qc);
  for (size_t i = 0; i < 6; i++)
    rk_assert_near(qc[i], rk_chain_dofs(c)[i], 0);
  /* A chain with no DOFs: an end site from its parent. */
  g_autoptr(rk_chain) z =
      chain_or_fail(t, rk_tree_find_link(t, "Head"), rk_tree_find_link(t, "Head_end"));
  cr_assert_eq(rk_chain_dof_count(z), 0);
  rk_mat4 end;
  rk_chain_fk(z, RK_DH_STANDARD, q, NULL, &end);
  rk_assert_vec3_near(rk_mat4_get_translation(&end), rk_vec3_make(0, 0.2, 0), 1e-15);
}
