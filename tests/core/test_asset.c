/* Assets: what they record about their source (joint source nodes, the file digest). */
#include "rk_test.h"

static rk_asset *three_joint_asset(void) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_skeleton_builder_add_joint(b, "root", -1, NULL, 0);
  rk_skeleton_builder_add_joint(b, "a", 0, NULL, 0);
  rk_skeleton_builder_add_joint(b, "b", 1, NULL, 0);
  g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(b, NULL, NULL);
  cr_assert_not_null(s);
  return rk_asset_new(s);
}

Test(asset, joint_source_nodes_default_to_none) {
  g_autoptr(rk_asset) a = three_joint_asset();
  for (size_t j = 0; j < 4; j++)
    cr_assert_eq(rk_asset_joint_source_node(a, j), -1);
  cr_assert(rk_asset_set_joint_source_node(a, 1, 7));
  cr_assert_eq(rk_asset_joint_source_node(a, 0), -1);
  cr_assert_eq(rk_asset_joint_source_node(a, 1), 7);
  cr_assert_eq(rk_asset_joint_source_node(a, 2), -1);
  cr_assert(rk_asset_set_joint_source_node(a, 1, -1));
  cr_assert_eq(rk_asset_joint_source_node(a, 1), -1);
  cr_assert_not(rk_asset_set_joint_source_node(a, 3, 0), "joint out of range");
  cr_assert_not(rk_asset_set_joint_source_node(a, 0, -2), "node below -1");
  cr_assert_eq(rk_asset_joint_source_node(a, 0), -1);
}

Test(asset, source_digest_is_copied_and_clearable) {
  g_autoptr(rk_asset) a = three_joint_asset();
  cr_assert_null(rk_asset_source_digest(a));
  char d[] = "00ff";
  rk_asset_set_source_digest(a, d);
  d[0] = 'x';
  cr_assert_str_eq(rk_asset_source_digest(a), "00ff");
  rk_asset_set_source_digest(a, NULL);
  cr_assert_null(rk_asset_source_digest(a));
}
