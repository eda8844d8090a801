/* Skeleton builder: preorder, lookup, refusal of broken input. */
#include "rk_test.h"

#include <stdio.h>
#include <string.h>

static rk_skeleton *build(rk_skeleton_builder *b, GError **error) {
  return rk_skeleton_builder_build(b, NULL, error);
}

Test(skeleton, parents_added_after_children_are_sorted) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  int hand = rk_skeleton_builder_add_joint(b, "hand", 1, NULL, 0);
  int arm = rk_skeleton_builder_add_joint(b, "arm", 2, NULL, 0);
  rk_skeleton_builder_add_joint(b, "root", -1, NULL, 0);
  rk_skeleton_builder_add_joint(b, "leg", 2, NULL, RK_SKELETON_HELPER);
  int remap[4];
  g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(b, remap, NULL);
  cr_assert(s);
  cr_assert_str_eq(rk_skeleton_joint_name(s, 0), "root");
  cr_assert_str_eq(rk_skeleton_joint_name(s, 1), "arm");
  cr_assert_str_eq(rk_skeleton_joint_name(s, 2), "hand");
  cr_assert_str_eq(rk_skeleton_joint_name(s, 3), "leg");
  cr_assert_eq(remap[hand], 2);
  cr_assert_eq(remap[arm], 1);
  cr_assert_eq(rk_skeleton_find_joint(s, "leg"), 3);
  cr_assert_eq(rk_skeleton_find_joint(s, "nope"), -1);
  cr_assert_eq(rk_skeleton_joint_flags(s, 3), RK_SKELETON_HELPER);
  cr_assert_eq(rk_skeleton_subtree_end(s, 0), 4);
  cr_assert_eq(rk_skeleton_subtree_end(s, 1), 3);
  cr_assert_eq(rk_skeleton_child_count(s, 0), 2);
  cr_assert(rk_skeleton_is_ancestor(s, 1, 2));
  cr_assert_not(rk_skeleton_is_ancestor(s, 1, 3));
  cr_assert_eq(rk_skeleton_root_count(s), 1);
}

Test(skeleton, refuses_broken_input_with_a_named_reason) {
  struct {
    const char *names[3];
    int parents[3];
    int n;
    const char *expect;
  } cases[] = {
      {{"a", "a"}, {-1, 0}, 2, "duplicate joint name 'a'"},
      {{"a", "b", "c"}, {-1, 2, 1}, 3, "parent cycle"},
      {{"a", "b"}, {-1, 7}, 2, "invalid parent"},
      {{"a", ""}, {-1, 0}, 2, "empty name"},
      {{"a", "b"}, {-1, 1}, 2, "invalid parent"},
  };
  for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
    g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
    for (int i = 0; i < cases[c].n; i++)
      rk_skeleton_builder_add_joint(b, cases[c].names[i], cases[c].parents[i], NULL, 0);
    g_autoptr(GError) error = NULL;
    g_autoptr(rk_skeleton) s = build(b, &error);
    cr_assert_null(s, "case %zu built", c);
    cr_assert(g_error_matches(error, RK_ERROR, RK_ERROR_INVALID));
    cr_assert(strstr(error->message, cases[c].expect), "case %zu: '%s'", c, error->message);
  }
  g_autoptr(rk_skeleton_builder) empty = rk_skeleton_builder_new();
  g_autoptr(GError) error = NULL;
  cr_assert_null(build(empty, &error));
  cr_assert(strstr(error->message, "no joints"));
}

Test(skeleton, refuses_non_finite_rest_and_too_many_joints) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_transform x = rk_transform_identity();
  x.t.y = NAN;
  rk_skeleton_builder_add_joint(b, "a", -1, &x, 0);
  g_autoptr(GError) e1 = NULL;
  cr_assert_null(build(b, &e1));
  cr_assert(strstr(e1->message, "non-finite"));

  g_autoptr(rk_skeleton_builder) big = rk_skeleton_builder_new();
  for (int i = 0; i <= RK_SKELETON_MAX_JOINTS; i++) {
    char name[32];
    snprintf(name, sizeof name, "j%d", i);
    rk_skeleton_builder_add_joint(big, name, i == 0 ? -1 : 0, NULL, 0);
  }
  g_autoptr(GError) e2 = NULL;
  cr_assert_null(build(big, &e2));
  cr_assert(g_error_matches(e2, RK_ERROR, RK_ERROR_LIMIT));
}

Test(skeleton, inverse_binds_and_reference_counting) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_skeleton_builder_add_joint(b, "a", -1, NULL, 0);
  rk_skeleton_builder_add_joint(b, "b", 0, NULL, 0);
  rk_mat4 ibm = rk_mat4_translation(rk_vec3_make(0, -1, 0)), out;
  rk_skeleton_builder_set_inverse_bind(b, 1, &ibm);
  rk_skeleton *s = build(b, NULL);
  cr_assert(rk_skeleton_has_inverse_binds(s));
  cr_assert_not(rk_skeleton_inverse_bind(s, 0, &out));
  cr_assert(rk_skeleton_inverse_bind(s, 1, &out));
  rk_assert_mat4_near(out, ibm, 0);
  rk_skeleton *r = rk_skeleton_ref(s);
  rk_skeleton_unref(s);
  cr_assert_str_eq(rk_skeleton_joint_name(r, 1), "b"); /* still alive */
  rk_skeleton_unref(r);
  rk_skeleton_unref(NULL);
}
