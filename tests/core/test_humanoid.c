/* Humanoid mapping: name conventions, topology alone, sides from geometry, refusal of
 * non-humanoids, map files. */
#include "rig_fixture.h"

#include <rigkit/humanoid.h>

static void expect_standard_map(const rk_skeleton *s, const rk_humanoid_map *map,
                                const char *const names[T_COUNT]) {
  static const struct {
    rk_bone bone;
    int slot;
  } expect[] = {
      {RK_BONE_HIPS, T_HIPS},          {RK_BONE_SPINE, T_SPINE},
      {RK_BONE_CHEST, T_CHEST},        {RK_BONE_NECK, T_NECK},
      {RK_BONE_HEAD, T_HEAD},          {RK_BONE_LEFT_SHOULDER, T_LCLAV},
      {RK_BONE_LEFT_UPPER_ARM, T_LUPARM}, {RK_BONE_LEFT_FOREARM, T_LFOREARM},
      {RK_BONE_LEFT_HAND, T_LHAND},    {RK_BONE_RIGHT_SHOULDER, T_RCLAV},
      {RK_BONE_RIGHT_UPPER_ARM, T_RUPARM}, {RK_BONE_RIGHT_FOREARM, T_RFOREARM},
      {RK_BONE_RIGHT_HAND, T_RHAND},   {RK_BONE_LEFT_UPPER_LEG, T_LUPLEG},
      {RK_BONE_LEFT_LOWER_LEG, T_LKNEE}, {RK_BONE_LEFT_FOOT, T_LANKLE},
      {RK_BONE_LEFT_TOES, T_LTOE},     {RK_BONE_RIGHT_UPPER_LEG, T_RUPLEG},
      {RK_BONE_RIGHT_LOWER_LEG, T_RKNEE}, {RK_BONE_RIGHT_FOOT, T_RANKLE},
      {RK_BONE_RIGHT_TOES, T_RTOE},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(expect); i++) {
    char fallback[16];
    snprintf(fallback, sizeof fallback, "j%d", expect[i].slot);
    const char *want = names && names[expect[i].slot] ? names[expect[i].slot] : fallback;
    int j = map->joint[expect[i].bone];
    cr_assert(j >= 0, "bone %s unmapped", rk_bone_name(expect[i].bone));
    cr_assert_str_eq(rk_skeleton_joint_name(s, (size_t)j), want, "bone %s",
                     rk_bone_name(expect[i].bone));
  }
}

#define RIG(...) ((const char *const[T_COUNT]){__VA_ARGS__})

Test(humanoid, maps_every_named_convention) {
  const char *const *sets[] = {
      /* CMU MotionBuilder-friendly BVH */
      RIG([T_ROOT] = "Reference", [T_HIPS] = "Hips", [T_SPINE] = "Spine", [T_CHEST] = "Spine1",
          [T_NECK] = "Neck", [T_HEAD] = "Head", [T_LCLAV] = "LeftShoulder", [T_LUPARM] = "LeftArm",
          [T_LFOREARM] = "LeftForeArm", [T_LHAND] = "LeftHand", [T_RCLAV] = "RightShoulder",
          [T_RUPARM] = "RightArm", [T_RFOREARM] = "RightForeArm", [T_RHAND] = "RightHand",
          [T_LUPLEG] = "LeftUpLeg", [T_LKNEE] = "LeftLeg", [T_LANKLE] = "LeftFoot",
          [T_LTOE] = "LeftToeBase", [T_RUPLEG] = "RightUpLeg", [T_RKNEE] = "RightLeg",
          [T_RANKLE] = "RightFoot", [T_RTOE] = "RightToeBase"),
      /* CMU 3ds-Max-friendly BVH */
      RIG([T_ROOT] = "Root", [T_HIPS] = "hip", [T_SPINE] = "abdomen", [T_CHEST] = "chest",
          [T_NECK] = "neck", [T_HEAD] = "head", [T_LCLAV] = "LeftCollar", [T_LUPARM] = "LeftShoulder",
          [T_LFOREARM] = "LeftElbow", [T_LHAND] = "LeftWrist", [T_RCLAV] = "RightCollar",
          [T_RUPARM] = "RightShoulder", [T_RFOREARM] = "RightElbow", [T_RHAND] = "RightWrist",
          [T_LUPLEG] = "LeftHip", [T_LKNEE] = "LeftKnee", [T_LANKLE] = "LeftAnkle",
          [T_LTOE] = "LeftToe", [T_RUPLEG] = "RightHip", [T_RKNEE] = "RightKnee",
          [T_RANKLE] = "RightAnkle", [T_RTOE] = "RightToe"),
      /* MakeHuman */
      RIG([T_ROOT] = "Root", [T_HIPS] = "Hips", [T_SPINE] = "Spine1", [T_CHEST] = "Spine3",
          [T_NECK] = "Neck", [T_HEAD] = "Head", [T_LCLAV] = "Clavicle_L", [T_LUPARM] = "UpArm_L",
          [T_LFOREARM] = "LoArm_L", [T_LHAND] = "Hand_L", [T_RCLAV] = "Clavicle_R",
          [T_RUPARM] = "UpArm_R", [T_RFOREARM] = "LoArm_R", [T_RHAND] = "Hand_R",
          [T_LUPLEG] = "UpLeg_L", [T_LKNEE] = "LoLeg_L", [T_LANKLE] = "Foot_L", [T_LTOE] = "Toe_L",
          [T_RUPLEG] = "UpLeg_R", [T_RKNEE] = "LoLeg_R", [T_RANKLE] = "Foot_R", [T_RTOE] = "Toe_R"),
      /* Mixamo */
      RIG([T_ROOT] = "mixamorig:Root", [T_HIPS] = "mixamorig:Hips", [T_SPINE] = "mixamorig:Spine",
          [T_CHEST] = "mixamorig:Spine2", [T_NECK] = "mixamorig:Neck", [T_HEAD] = "mixamorig:Head",
          [T_HEAD_END] = "mixamorig:HeadTop_End", [T_LCLAV] = "mixamorig:LeftShoulder",
          [T_LUPARM] = "mixamorig:LeftArm", [T_LFOREARM] = "mixamorig:LeftForeArm",
          [T_LHAND] = "mixamorig:LeftHand", [T_RCLAV] = "mixamorig:RightShoulder",
          [T_RUPARM] = "mixamorig:RightArm", [T_RFOREARM] = "mixamorig:RightForeArm",
          [T_RHAND] = "mixamorig:RightHand", [T_LUPLEG] = "mixamorig:LeftUpLeg",
          [T_LKNEE] = "mixamorig:LeftLeg", [T_LANKLE] = "mixamorig:LeftFoot",
          [T_LTOE] = "mixamorig:LeftToeBase", [T_LTOE_END] = "mixamorig:LeftToe_End",
          [T_RUPLEG] = "mixamorig:RightUpLeg", [T_RKNEE] = "mixamorig:RightLeg",
          [T_RANKLE] = "mixamorig:RightFoot", [T_RTOE] = "mixamorig:RightToeBase",
          [T_RTOE_END] = "mixamorig:RightToe_End"),
      /* Blender / Rigify deform bones */
      RIG([T_ROOT] = "root", [T_HIPS] = "DEF-pelvis", [T_SPINE] = "DEF-spine", [T_CHEST] = "DEF-spine.003",
          [T_NECK] = "DEF-spine.004", [T_HEAD] = "DEF-spine.006", [T_LCLAV] = "DEF-shoulder.L",
          [T_LUPARM] = "DEF-upper_arm.L", [T_LFOREARM] = "DEF-forearm.L", [T_LHAND] = "DEF-hand.L",
          [T_RCLAV] = "DEF-shoulder.R", [T_RUPARM] = "DEF-upper_arm.R", [T_RFOREARM] = "DEF-forearm.R",
          [T_RHAND] = "DEF-hand.R", [T_LUPLEG] = "DEF-thigh.L", [T_LKNEE] = "DEF-shin.L",
          [T_LANKLE] = "DEF-foot.L", [T_LTOE] = "DEF-toe.L", [T_RUPLEG] = "DEF-thigh.R",
          [T_RKNEE] = "DEF-shin.R", [T_RANKLE] = "DEF-foot.R", [T_RTOE] = "DEF-toe.R"),
      /* Unreal mannequin */
      RIG([T_ROOT] = "root", [T_HIPS] = "pelvis", [T_SPINE] = "spine_01", [T_CHEST] = "spine_03",
          [T_NECK] = "neck_01", [T_HEAD] = "head", [T_LCLAV] = "clavicle_l", [T_LUPARM] = "upperarm_l",
          [T_LFOREARM] = "lowerarm_l", [T_LHAND] = "hand_l", [T_RCLAV] = "clavicle_r",
          [T_RUPARM] = "upperarm_r", [T_RFOREARM] = "lowerarm_r", [T_RHAND] = "hand_r",
          [T_LUPLEG] = "thigh_l", [T_LKNEE] = "calf_l", [T_LANKLE] = "foot_l", [T_LTOE] = "ball_l",
          [T_RUPLEG] = "thigh_r", [T_RKNEE] = "calf_r", [T_RANKLE] = "foot_r", [T_RTOE] = "ball_r"),
      /* Generic l_/r_ prefixes */
      RIG([T_ROOT] = "root", [T_HIPS] = "pelvis", [T_SPINE] = "spine", [T_CHEST] = "chest",
          [T_NECK] = "neck", [T_HEAD] = "head", [T_LCLAV] = "l_clavicle", [T_LUPARM] = "l_upperarm",
          [T_LFOREARM] = "l_forearm", [T_LHAND] = "l_hand", [T_RCLAV] = "r_clavicle",
          [T_RUPARM] = "r_upperarm", [T_RFOREARM] = "r_forearm", [T_RHAND] = "r_hand",
          [T_LUPLEG] = "l_thigh", [T_LKNEE] = "l_shin", [T_LANKLE] = "l_foot", [T_LTOE] = "l_toe",
          [T_RUPLEG] = "r_thigh", [T_RKNEE] = "r_shin", [T_RANKLE] = "r_foot", [T_RTOE] = "r_toe"),
  };
  for (size_t k = 0; k < G_N_ELEMENTS(sets); k++) {
    g_autoptr(rk_skeleton) s = make_rig(sets[k], 0, false);
    rk_humanoid_map map;
    g_autoptr(GError) error = NULL;
    cr_assert(rk_humanoid_map_build(s, NULL, &map, &error), "set %zu: %s", k, error ? error->message : "");
    expect_standard_map(s, &map, sets[k]);
    cr_assert_eq(map.source[RK_BONE_LEFT_FOOT], RK_BONE_BY_NAME, "set %zu", k);
    rk_assert_vec3_near(map.forward, rk_vec3_make(0, 0, 1), 1e-9);
    rk_assert_near(map.hip_height, 0.95 - 0.01 + 0.0, 1e-9);
  }
}

Test(humanoid, topology_alone_maps_a_nameless_rig_in_any_facing) {
  /* No usable names, right limbs listed first, rig turned to face -X: sides must come from
   * geometry (toes forward). */
  for (int turn = 0; turn < 4; turn++) {
    g_autoptr(rk_skeleton) s = make_rig(NULL, turn * RK_PI / 2, turn % 2 == 1);
    rk_humanoid_map map;
    g_autoptr(GError) error = NULL;
    cr_assert(rk_humanoid_map_build(s, NULL, &map, &error), "%s", error ? error->message : "");
    expect_standard_map(s, &map, NULL);
    for (int b = 0; b < RK_BONE_COUNT; b++)
      cr_assert(map.source[b] != RK_BONE_BY_NAME);
    rk_quat yq = rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), turn * RK_PI / 2);
    rk_assert_vec3_near(map.forward, rk_quat_rotate(yq, rk_vec3_make(0, 0, 1)), 1e-9);
  }
}

Test(humanoid, misleading_names_do_not_override_topology) {
  /* A rig whose left leg is named "Right*" only on one joint: the chains' majority decides and
   * the toes still point forward. RiggedFigure-style numbered names say nothing. */
  const char *const *names = RIG([T_HIPS] = "torso_joint_1", [T_LUPLEG] = "leg_joint_L_1",
                                 [T_LKNEE] = "leg_joint_L_2", [T_LANKLE] = "leg_joint_L_3",
                                 [T_LTOE] = "leg_joint_L_5", [T_RUPLEG] = "leg_joint_R_1",
                                 [T_RKNEE] = "leg_joint_R_2", [T_RANKLE] = "leg_joint_R_3",
                                 [T_RTOE] = "leg_joint_R_5", [T_LUPARM] = "arm_joint_L_1",
                                 [T_LFOREARM] = "arm_joint_L_2", [T_LHAND] = "arm_joint_L_3",
                                 [T_RUPARM] = "arm_joint_R_1", [T_RFOREARM] = "arm_joint_R_2",
                                 [T_RHAND] = "arm_joint_R_3");
  g_autoptr(rk_skeleton) s = make_rig(names, 0, false);
  rk_humanoid_map map;
  g_autoptr(GError) error = NULL;
  cr_assert(rk_humanoid_map_build(s, NULL, &map, &error), "%s", error ? error->message : "");
  expect_standard_map(s, &map, names);
}

Test(humanoid, refuses_a_quadruped_and_a_rig_without_legs) {
  g_autoptr(rk_skeleton) s = fx_quadruped();
  rk_humanoid_map map;
  g_autoptr(GError) error = NULL;
  cr_assert_not(rk_humanoid_map_build(s, NULL, &map, &error));
  cr_assert(g_error_matches(error, RK_ERROR, RK_ERROR_MAPPING));
  cr_assert(strstr(error->message, "quadruped"), "%s", error->message);

  g_autoptr(rk_skeleton_builder) c = rk_skeleton_builder_new();
  rk_transform x = rk_transform_identity();
  x.t = rk_vec3_make(0, 1, 0);
  int r = rk_skeleton_builder_add_joint(c, "root", -1, &x, 0);
  rk_skeleton_builder_add_joint(c, "arm", r, &x, 0);
  g_autoptr(rk_skeleton) t = rk_skeleton_builder_build(c, NULL, NULL);
  g_autoptr(GError) e2 = NULL;
  cr_assert_not(rk_humanoid_map_build(t, NULL, &map, &e2));
  cr_assert(strstr(e2->message, "no hips"), "%s", e2->message);
}

Test(humanoid, map_file_overrides_and_reports_bad_entries) {
  g_autoptr(rk_skeleton) s = make_rig(NULL, 0, false);
  rk_humanoid_map map;
  cr_assert(rk_humanoid_map_build(s, NULL, &map, NULL));
  g_autoptr(GKeyFile) kf = g_key_file_new();
  cr_assert(g_key_file_load_from_data(kf, "[target]\nleft_toes=\nhead=j4\n", (gsize)-1, 0, NULL));
  cr_assert(rk_humanoid_map_apply_keyfile(&map, s, kf, "target", "my.map", NULL));
  cr_assert_eq(map.joint[RK_BONE_LEFT_TOES], -1);
  cr_assert_eq(map.joint[RK_BONE_HEAD], rk_skeleton_find_joint(s, "j4"));
  cr_assert_eq(map.source[RK_BONE_HEAD], RK_BONE_BY_MAP_FILE);
  /* The head now sits on the neck joint: validation names the clash. */
  g_autoptr(GError) clash = NULL;
  cr_assert_not(rk_humanoid_map_validate(&map, s, &clash));
  cr_assert(strstr(clash->message, "neck"), "%s", clash->message);

  g_autoptr(GKeyFile) bad = g_key_file_new();
  cr_assert(g_key_file_load_from_data(bad, "[target]\nleft_tail=j3\n", (gsize)-1, 0, NULL));
  g_autoptr(GError) e1 = NULL;
  cr_assert_not(rk_humanoid_map_apply_keyfile(&map, s, bad, "target", "my.map", &e1));
  cr_assert(strstr(e1->message, "my.map") && strstr(e1->message, "left_tail"), "%s", e1->message);
  g_autoptr(GKeyFile) missing = g_key_file_new();
  cr_assert(g_key_file_load_from_data(missing, "[target]\nhips=Pelvis2\n", (gsize)-1, 0, NULL));
  g_autoptr(GError) e2 = NULL;
  cr_assert_not(rk_humanoid_map_apply_keyfile(&map, s, missing, "target", "my.map", &e2));
  cr_assert(g_error_matches(e2, RK_ERROR, RK_ERROR_NOT_FOUND));
  cr_assert(strstr(e2->message, "Pelvis2"));
}

Test(humanoid, toes_without_a_foot_finish_without_reading_outside_the_rig) {
  /* Feet are optional (a leg may end where its skin does); a map that unmaps a foot and keeps its
   * toes must finish or fail with a message, never index joint -1 (fuzz_keyfile found it; the
   * ASan build of this suite checks it). */
  g_autoptr(rk_skeleton) s = make_rig(NULL, 0, false);
  rk_humanoid_map map;
  cr_assert(rk_humanoid_map_build(s, NULL, &map, NULL));
  cr_assert_geq(map.joint[RK_BONE_RIGHT_TOES], 0, "the rig has toes");
  g_autoptr(GKeyFile) kf = g_key_file_new();
  cr_assert(g_key_file_load_from_data(kf, "[target]\nright_foot=\n", (gsize)-1, 0, NULL));
  cr_assert(rk_humanoid_map_apply_keyfile(&map, s, kf, "target", "my.map", NULL));
  cr_assert_eq(map.joint[RK_BONE_RIGHT_FOOT], -1);
  g_autoptr(GError) e = NULL;
  if (!rk_humanoid_map_finish(&map, s, &e))
    cr_assert(e && e->message[0], "a refusal says why");
}

Test(humanoid, chain_skips_coincident_helpers) {
  g_autoptr(rk_skeleton) s = make_rig(NULL, 0, false);
  int out[T_COUNT];
  int hips = rk_skeleton_find_joint(s, "j1"), toe = rk_skeleton_find_joint(s, "j22");
  size_t n = rk_humanoid_chain(s, hips, toe, 0.01, out);
  cr_assert_eq(n, 5);
  cr_assert_eq(out[0], hips);
  cr_assert_eq(out[4], toe);
  cr_assert_eq(rk_humanoid_chain(s, toe, hips, 0.01, out), 0);
}

/* The rig of `base` with a socket joint added under each forearm: `out` away from the forearm
 * (model axes; x mirrored for the right side), a leaf, further out sideways than the hand. */
static rk_skeleton *with_forearm_sockets(const rk_skeleton *base, rk_vec3 out) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  const size_t n = rk_skeleton_joint_count(base);
  for (size_t i = 0; i < n; i++)
    rk_skeleton_builder_add_joint(b, rk_skeleton_joint_name(base, i), rk_skeleton_parent(base, i),
                                  rk_skeleton_rest(base, i), rk_skeleton_joint_flags(base, i));
  const char *forearm[2] = {"j9", "j15"};
  for (int side = 0; side < 2; side++) {
    rk_transform x = rk_transform_identity();
    x.t = rk_vec3_make(side ? -out.x : out.x, out.y, out.z);
    rk_skeleton_builder_add_joint(b, side ? "socket_b" : "socket_a",
                                  rk_skeleton_find_joint(base, forearm[side]), &x, 0);
  }
  g_autoptr(GError) error = NULL;
  rk_skeleton *s = rk_skeleton_builder_build(b, NULL, &error);
  cr_assert(s, "%s", error ? error->message : "");
  return s;
}

Test(humanoid, a_socket_beside_the_hand_is_not_the_hand) {
  /* Arms hanging (70 degrees down) with a shield or weapon socket on each forearm that sticks out
   * sideways beyond the hand: the arm goes on through the joint that carries the fingers, and the
   * hand is that joint, not the forearm where the socket branches. Nameless, so the topology
   * alone decides. */
  fx_rig_params p = FX_RIG_PARAMS_INIT;
  p.arm_down_deg = 70;
  g_autoptr(rk_skeleton) base = fx_rig(&p, NULL);
  g_autoptr(rk_skeleton) s = with_forearm_sockets(base, rk_vec3_make(0.2, -0.1, 0.0));
  rk_humanoid_map map;
  g_autoptr(GError) error = NULL;
  cr_assert(rk_humanoid_map_build(s, NULL, &map, &error), "%s", error ? error->message : "");
  expect_standard_map(s, &map, NULL);
}

Test(humanoid, a_leg_of_one_bone_and_a_foot_has_no_lower_leg) {
  /* Nameless: body -> leg (one bone down to the ankle) -> foot (forward along the ground) on each
   * side. The leg is the upper leg, the foot its foot, no knee; a map file may name such a leg
   * by its one joint. */
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_transform x = rk_transform_identity();
  x.t = rk_vec3_make(0, 0.6, 0);
  const int body = rk_skeleton_builder_add_joint(b, "b0", -1, &x, 0);
  x.t = rk_vec3_make(0, 0.6, 0);
  rk_skeleton_builder_add_joint(b, "b1", body, &x, 0);
  for (int side = 0; side < 2; side++) {
    x.t = rk_vec3_make(side ? -0.1 : 0.1, 0, 0);
    const int leg = rk_skeleton_builder_add_joint(b, side ? "b4" : "b2", body, &x, 0);
    x.t = rk_vec3_make(0, -0.52, 0);
    const int foot = rk_skeleton_builder_add_joint(b, side ? "b5" : "b3", leg, &x, 0);
    x.t = rk_vec3_make(0, -0.06, 0.14);
    rk_skeleton_builder_add_joint(b, side ? "b5_end" : "b3_end", foot, &x, RK_SKELETON_END_SITE);
  }
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(b, NULL, &error);
  cr_assert(s, "%s", error ? error->message : "");
  rk_humanoid_map map;
  cr_assert(rk_humanoid_map_build(s, NULL, &map, &error), "%s", error ? error->message : "");
  static const char *const want[][3] = {{"b2", "b3"}, {"b4", "b5"}};
  for (int side = 0; side < 2; side++) {
    const rk_bone u = side ? RK_BONE_RIGHT_UPPER_LEG : RK_BONE_LEFT_UPPER_LEG;
    cr_assert_str_eq(rk_skeleton_joint_name(s, (size_t)map.joint[u]), want[side][0]);
    cr_assert_eq(map.joint[u + 1], -1, "a leg of one bone has no lower leg");
    cr_assert_str_eq(rk_skeleton_joint_name(s, (size_t)map.joint[u + 2]), want[side][1]);
  }
  rk_assert_vec3_near(map.forward, rk_vec3_make(0, 0, 1), 1e-9);
  rk_assert_near(map.leg_length, 0.52 + 0.06, 1e-9);
  /* The same from a map file naming the leg by its one joint and the foot on its own line. */
  rk_humanoid_map by_file;
  rk_humanoid_map_clear(&by_file);
  by_file.joint[RK_BONE_HIPS] = body;
  g_autoptr(GKeyFile) kf = g_key_file_new();
  cr_assert(g_key_file_load_from_data(kf,
                                      "[target]\nleft_leg = b2\nleft_foot = b3\n"
                                      "right_leg = b4\nright_foot = b5\n",
                                      (gsize)-1, 0, NULL));
  cr_assert(rk_humanoid_map_apply_keyfile(&by_file, s, kf, "target", "one.map", &error), "%s",
            error ? error->message : "");
  cr_assert(rk_humanoid_map_finish(&by_file, s, &error), "%s", error ? error->message : "");
  for (int k = RK_BONE_LEFT_UPPER_LEG; k < RK_BONE_COUNT; k++)
    cr_assert_eq(by_file.joint[k], map.joint[k], "%s", rk_bone_name((rk_bone)k));
}
