/* rk_asset: declared joint mechanics (the one joint-type enum of rigkit/joint.h) are checked when
 * recorded: only fixed, revolute and prismatic joints with a usable axis and ordered limits. */
#include "rk_test.h"

#include <rigkit/asset.h>

static rk_asset *two_joint_asset(void) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_skeleton_builder_add_joint(b, "base", -1, NULL, 0);
  rk_skeleton_builder_add_joint(b, "link", 0, NULL, 0);
  g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(b, NULL, NULL);
  cr_assert_not_null(s);
  return rk_asset_new(s);
}

Test(asset, declared_mechanics_are_recorded_with_a_unit_axis) {
  g_autoptr(rk_asset) a = two_joint_asset();
  rk_joint_mechanics m = {RK_JOINT_REVOLUTE, rk_vec3_make(0, 0, 2), true, -1.0, 1.0};
  cr_assert(rk_asset_set_joint_mechanics(a, 1, &m));
  rk_joint_mechanics out;
  cr_assert(rk_asset_joint_mechanics(a, 1, &out));
  cr_assert_eq(out.motion, RK_JOINT_REVOLUTE);
  cr_assert_float_eq(out.axis.z, 1.0, 1e-15);
  cr_assert_not(rk_asset_joint_mechanics(a, 0, &out), "joint 0 declared nothing");
  m = (rk_joint_mechanics){RK_JOINT_FIXED, rk_vec3_make(0, 0, 0), false, 0, 0};
  cr_assert(rk_asset_set_joint_mechanics(a, 0, &m), "a fixed joint needs no axis");
}

Test(asset, declared_mechanics_refuse_what_a_file_cannot_declare) {
  g_autoptr(rk_asset) a = two_joint_asset();
  const rk_joint_type refused[] = {RK_JOINT_BALL, RK_JOINT_FREE, (rk_joint_type)99};
  for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
    rk_joint_mechanics m = {refused[i], rk_vec3_make(0, 0, 1), false, 0, 0};
    cr_assert_not(rk_asset_set_joint_mechanics(a, 1, &m), "type %d", (int)refused[i]);
  }
  rk_joint_mechanics zero_axis = {RK_JOINT_PRISMATIC, rk_vec3_make(0, 0, 0), false, 0, 0};
  cr_assert_not(rk_asset_set_joint_mechanics(a, 1, &zero_axis));
  rk_joint_mechanics reversed = {RK_JOINT_REVOLUTE, rk_vec3_make(1, 0, 0), true, 1.0, -1.0};
  cr_assert_not(rk_asset_set_joint_mechanics(a, 1, &reversed));
  rk_joint_mechanics ok = {RK_JOINT_PRISMATIC, rk_vec3_make(1, 0, 0), false, 0, 0};
  cr_assert_not(rk_asset_set_joint_mechanics(a, 2, &ok), "joint out of range");
  rk_joint_mechanics out;
  cr_assert_not(rk_asset_joint_mechanics(a, 1, &out), "nothing refused was recorded");
}
