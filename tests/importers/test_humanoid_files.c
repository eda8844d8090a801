/* Humanoid mapping on the shared real files: MakeHuman (hips where the spine meets the legs,
 * helper joints skipped), RiggedFigure (numbered names: topology), Fox (a quadruped: refused). */
#include "import_test.h"

#include <rigkit/humanoid.h>

static const char *bone_joint(const rk_asset *a, const rk_humanoid_map *m, rk_bone b) {
  return m->joint[b] >= 0 ? rk_skeleton_joint_name(rk_asset_skeleton(a), (size_t)m->joint[b]) : "-";
}

Test(humanoid_files, makehuman_walk_maps_every_bone) {
  g_autoptr(rk_asset) a = import_ok("makehuman_walk1.bvh", NULL);
  rk_humanoid_map m;
  g_autoptr(GError) error = NULL;
  cr_assert(rk_humanoid_map_build(rk_asset_skeleton(a), NULL, &m, &error), "%s", error ? error->message : "");
  const char *expect[RK_BONE_COUNT] = {
      [RK_BONE_ROOT] = "-",          [RK_BONE_HIPS] = "Root",        [RK_BONE_SPINE] = "Spine1",
      [RK_BONE_CHEST] = "Spine3",    [RK_BONE_NECK] = "Neck",        [RK_BONE_HEAD] = "Head",
      [RK_BONE_LEFT_SHOULDER] = "Clavicle_L", [RK_BONE_LEFT_UPPER_ARM] = "UpArm_L",
      [RK_BONE_LEFT_FOREARM] = "LoArm_L", [RK_BONE_LEFT_HAND] = "Hand_L",
      [RK_BONE_RIGHT_SHOULDER] = "Clavicle_R", [RK_BONE_RIGHT_UPPER_ARM] = "UpArm_R",
      [RK_BONE_RIGHT_FOREARM] = "LoArm_R", [RK_BONE_RIGHT_HAND] = "Hand_R",
      [RK_BONE_LEFT_UPPER_LEG] = "UpLeg_L", [RK_BONE_LEFT_LOWER_LEG] = "LoLeg_L",
      [RK_BONE_LEFT_FOOT] = "Foot_L", [RK_BONE_LEFT_TOES] = "Toe_L",
      [RK_BONE_RIGHT_UPPER_LEG] = "UpLeg_R", [RK_BONE_RIGHT_LOWER_LEG] = "LoLeg_R",
      [RK_BONE_RIGHT_FOOT] = "Foot_R", [RK_BONE_RIGHT_TOES] = "Toe_R",
  };
  for (int b = 0; b < RK_BONE_COUNT; b++)
    cr_assert_str_eq(bone_joint(a, &m, (rk_bone)b), expect[b], "bone %s", rk_bone_name((rk_bone)b));
  /* Faces +Z after the Z-up conversion; about 1.6 m tall with hips about 0.94 m above the toes. */
  rk_assert_vec3_near(m.forward, rk_vec3_make(0, 0, 1), 0.05);
  cr_assert(m.height > 1.5 && m.height < 1.8, "height %g", m.height);
  cr_assert(m.hip_height > 0.85 && m.hip_height < 1.05, "hip height %g", m.hip_height);
}

Test(humanoid_files, rigged_figure_maps_by_topology) {
  g_autoptr(rk_asset) a = import_ok("RiggedFigure.glb", NULL);
  rk_humanoid_map m;
  g_autoptr(GError) error = NULL;
  cr_assert(rk_humanoid_map_build(rk_asset_skeleton(a), NULL, &m, &error), "%s", error ? error->message : "");
  cr_assert_str_eq(bone_joint(a, &m, RK_BONE_HIPS), "torso_joint_1");
  cr_assert_str_eq(bone_joint(a, &m, RK_BONE_LEFT_UPPER_LEG), "leg_joint_L_1");
  cr_assert_str_eq(bone_joint(a, &m, RK_BONE_LEFT_LOWER_LEG), "leg_joint_L_2");
  cr_assert_str_eq(bone_joint(a, &m, RK_BONE_LEFT_FOOT), "leg_joint_L_3");
  cr_assert_str_eq(bone_joint(a, &m, RK_BONE_RIGHT_FOOT), "leg_joint_R_3");
  cr_assert_str_eq(bone_joint(a, &m, RK_BONE_LEFT_HAND), "arm_joint_L_3");
  cr_assert_str_eq(bone_joint(a, &m, RK_BONE_RIGHT_UPPER_ARM), "arm_joint_R_1");
  cr_assert_eq(m.source[RK_BONE_LEFT_FOOT], RK_BONE_BY_TOPOLOGY);
}

Test(humanoid_files, fox_is_refused_as_a_quadruped_unless_a_map_file_says_so) {
  g_autoptr(rk_asset) a = import_ok("Fox.glb", NULL);
  const rk_skeleton *s = rk_asset_skeleton(a);
  rk_humanoid_map m;
  g_autoptr(GError) error = NULL;
  cr_assert_not(rk_humanoid_map_build(s, NULL, &m, &error));
  cr_assert(g_error_matches(error, RK_ERROR, RK_ERROR_MAPPING));
  cr_assert(strstr(error->message, "quadruped"), "%s", error->message);
  /* With a map file naming the hind legs, the map is complete enough to retarget the legs. */
  fox_hind_legs_map(s, &m);
  rk_assert_vec3_near(m.forward, rk_vec3_make(0, 0, 1), 0.2);
}
