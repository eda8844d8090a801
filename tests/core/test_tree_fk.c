/* Kinematic tree FK (tree_fk.c): every composition form and batch boundary against the
 * quaternion path, the subset pass, root transforms and the transform between two links. */
#include "tree_fixtures.h"

/* At q: rk_tree_fk and rk_tree_fk_subset over every link against the quaternion path (q -> locals
 * -> rk_fk_models), the subset also against rk_tree_fk, and rk_tree_fk under root against root
 * times its frames. Within tol, times 1 + |translation| of the expected frame when relative
 * (large prismatic DOFs move frames by 1e6). */
static void check_fk_paths(const rk_skeleton *s, const rk_tree *t, const double *q,
                           const rk_mat4 *root, double tol, bool relative) {
  const size_t n = rk_tree_link_count(t);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree rk_mat4 *a = g_new(rk_mat4, n), *expect = g_new(rk_mat4, n),
                     *sub = g_new(rk_mat4, n), *shifted = g_new(rk_mat4, n);
  g_autofree int *all = g_new(int, n);
  for (size_t j = 0; j < n; j++)
    all[j] = (int)j;
  rk_tree_fk(t, q, NULL, a);
  rk_tree_q_to_locals(t, q, locals);
  rk_fk_models(s, locals, expect);
  rk_tree_fk_subset(t, q, NULL, all, n, sub);
  rk_tree_fk(t, q, root, shifted);
  for (size_t j = 0; j < n; j++) {
    const double m = relative ? 1.0 + fabs(expect[j].m[12]) + fabs(expect[j].m[13]) +
                                    fabs(expect[j].m[14])
                              : 1.0;
    rk_assert_mat4_near(a[j], expect[j], tol * m);
    rk_assert_mat4_near(sub[j], expect[j], tol * m);
    rk_assert_mat4_near(a[j], sub[j], tol * m);
    const rk_mat4 placed = rk_mat4_mul(root, &a[j]);
    rk_assert_mat4_near(shifted[j], placed, tol * m);
  }
}

/* rk_tree_fk computes the trigonometry of revolute joints in batches of 64 DOFs, four lanes at a
 * time, and composes Rodrigues matrices precomputed per joint: a 150-joint revolute chain with
 * tilted rest rotations, non-unit scales, random axes, fixed ends in between and angles from tiny
 * to 10^6 rad (beyond the vector kernel's range) matches the quaternion path (q -> locals ->
 * skeleton FK) and rk_tree_fk_subset, with and without a root transform. */
Test(tree_fk, long_revolute_chain_fk_matches_the_quaternion_path) {
  enum { N = 150 };
  guint64 rng = 11;
  fx_spec_rig r = {.b = rk_skeleton_builder_new()};
  for (int j = 0; j < N; j++) {
    rk_transform x = fx_next_link(&r, &rng, j);
    x.r = rk_quat_normalize(rk_quat_make(rk_test_uniform(&rng, -1, 1), rk_test_uniform(&rng, -1, 1),
                                         rk_test_uniform(&rng, -1, 1), 1.0));
    if (j % 7 == 3)
      x.s = rk_vec3_make(1.1, 0.9, 1.05);
    fx_add(r.b, r.names[j], j - 1, x, 0);
    if (j % 10 == 9)
      continue; /* fixed */
    fx_add_spec(&r, j)->axis = rk_vec3_make(rk_test_uniform(&rng, -1, 1),
                                            rk_test_uniform(&rng, -1, 1),
                                            rk_test_uniform(&rng, -1, 1));
  }
  g_autoptr(rk_skeleton) s = fx_build(r.b);
  g_autoptr(rk_tree) t = fx_tree_of_specs(s, r.specs, r.nspec);
  const size_t nd = rk_tree_dof_count(t);
  cr_assert_eq(nd, r.nspec, "every spec'd joint revolute, the rest fixed");
  cr_assert_gt(nd, 128, "more than two batches of 64");
  double q[N];
  const rk_mat4 root = rk_mat4_mul(&(rk_mat4){{1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1}},
                                   &(rk_mat4){{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 2, 3, 4, 1}});
  for (int trial = 0; trial < 20; trial++) {
    for (size_t k = 0; k < nd; k++)
      q[k] = rk_test_uniform(&rng, -4, 4) * (trial % 5 == 4 ? 1e5 : trial % 5 == 3 ? 1e-9 : 1.0);
    q[nd - 1] = 1e6;  /* beyond the kernel's range: libm */
    q[nd / 2] = -3e5; /* in the first lanes of a batch or not, depending on the layout */
    check_fk_paths(s, t, q, &root, 1e-11, false);
  }
}

/* rk_tree_fk composes each joint in the cheapest exact form (translation only, a turn about +-x,
 * +-y or +-z, the Rodrigues matrix, three Euler turns for ball and free joints, the general local
 * transform) and keeps the last frame in registers for a child right after its parent. A tree
 * with every form (rotated and scaled zero frames, all Euler orders), branches, interleaved
 * prismatic DOFs and batch tails must give what the quaternion path gives. */
Test(tree_fk, every_fk_form_matches_the_quaternion_path) {
  guint64 rng = 29;
  int kinds[10] = {0};
  rk_skeleton *sk = NULL;
  g_autoptr(rk_tree) t = fx_every_form_tree(&rng, kinds, &sk);
  g_autoptr(rk_skeleton) s = sk;
  const size_t nd = rk_tree_dof_count(t);
  cr_assert_gt(nd, 64 + 13, "more than one batch of trigonometry, with a tail");
  double q[3 * FX_EVERY_FORM_LINKS];
  const rk_mat4 root = rk_mat4_mul(&(rk_mat4){{0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}},
                                   &(rk_mat4){{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 2, 5, 1}});
  for (int trial = 0; trial < 12; trial++) {
    for (size_t k = 0; k < nd; k++)
      q[k] = rk_test_uniform(&rng, -4, 4) * (trial % 4 == 3 ? 1e4 : 1.0);
    if (trial % 3 == 1) {
      q[nd - 1] = 2e6; /* beyond the vector kernel's range: libm */
      q[nd / 3] = -4e5;
    }
    check_fk_paths(s, t, q, &root, 1e-11, true);
  }
  for (int f = 0; f < 10; f++)
    cr_assert_gt(kinds[f], 10, "form %d is exercised", f);
}

Test(tree_fk, transform_between_links_matches_fk) {
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
