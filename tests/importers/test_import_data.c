/* Integration tests on every shared third-party file (tests/data, from ../shared/data): joint
 * counts and names, clips, durations, frame counts, and world positions that make physical sense
 * in metres, Y-up. */
#include "import_test.h"

/* Largest distance between a skinned mesh vertex and its position skinned by the rest pose:
 * 0 when the rest pose is the bind pose and the inverse bind matrices, weights and vertices are
 * in the same (canonical) model space. */
static double skin_rest_error(const rk_asset *a) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  rk_skeleton_rest_models(s, models);
  double worst = 0;
  for (size_t m = 0; m < rk_asset_mesh_count(a); m++) {
    const rk_mesh_data *d = rk_mesh_data_get(rk_asset_mesh(a, m));
    if (!d->joints)
      continue;
    for (size_t v = 0; v < d->vertex_count; v++) {
      rk_vec3 p = rk_vec3_make(d->positions[3 * v], d->positions[3 * v + 1], d->positions[3 * v + 2]);
      rk_vec3 acc = rk_vec3_make(0, 0, 0);
      for (int k = 0; k < 4; k++) {
        const float w = d->weights[4 * v + (size_t)k];
        if (w == 0)
          continue;
        const size_t j = d->joints[4 * v + (size_t)k];
        rk_mat4 ibm;
        cr_assert(rk_skeleton_inverse_bind(s, j, &ibm), "joint '%s' weights vertices but has no "
                  "inverse bind matrix", rk_skeleton_joint_name(s, j));
        rk_mat4 skin = rk_mat4_mul_affine(&models[j], &ibm);
        acc = rk_vec3_add(acc, rk_vec3_scale(rk_mat4_transform_point(&skin, p), w));
      }
      worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(acc, p)));
    }
  }
  return worst;
}

static void assert_names(const rk_asset *a, const char *const *names, size_t count) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  cr_assert_eq(rk_skeleton_joint_count(s), count, "%zu joints, expected %zu",
               rk_skeleton_joint_count(s), count);
  for (size_t i = 0; i < count; i++)
    cr_assert(rk_skeleton_find_joint(s, names[i]) >= 0, "joint '%s' missing", names[i]);
}

static void assert_clip(const rk_asset *a, const char *name, double duration, double fps,
                        size_t frames) {
  const rk_clip *c = clip_named(a, name);
  rk_assert_near(rk_clip_duration(c), duration, 1e-6);
  rk_assert_near(rk_clip_fps(c), fps, 1e-9);
  cr_assert_eq(rk_clip_frame_count(c), frames, "clip '%s': %zu frames, expected %zu", name,
               rk_clip_frame_count(c), frames);
}

/* ---- MakeHuman walk (BVH: Z-up, decimetres, root OFFSET + channels) -------------------------- */

Test(import_data, makehuman_walk_skeleton_and_clip) {
  g_autoptr(rk_asset) a = import_ok("makehuman_walk1.bvh", NULL);
  const rk_skeleton *s = rk_asset_skeleton(a);
  cr_assert_eq(rk_skeleton_joint_count(s), 91u); /* 75 joints + 16 End Sites */
  size_t ends = 0;
  for (size_t i = 0; i < 91; i++)
    ends += (rk_skeleton_joint_flags(s, i) & RK_SKELETON_END_SITE) != 0;
  cr_assert_eq(ends, 16u);
  cr_assert_str_eq(rk_skeleton_joint_name(s, 0), "Root");
  static const char *const some[] = {"Spine1", "Neck", "Head", "UpArm_L", "Hand_R", "UpLeg_L",
                                     "LoLeg_R", "Foot_L", "Toe_R", "Toe_R_End", "Head", "Jaw"};
  for (size_t i = 0; i < G_N_ELEMENTS(some); i++)
    joint(a, some[i]);
  cr_assert(rk_skeleton_joint_flags(s, joint(a, "Toe_R_End")) & RK_SKELETON_END_SITE);
  cr_assert_eq(rk_skeleton_parent(s, joint(a, "Toe_R_End")), (int)joint(a, "Toe_R"));
  cr_assert_eq(rk_asset_clip_count(a), 1u);
  assert_clip(a, "makehuman_walk1", 13.0 / 24.0, 24.0, 14);
  cr_assert_str_eq(rk_asset_unit_name(a), "dm");
  rk_assert_near(rk_asset_unit_scale(a), 0.1, 1e-12);
  cr_assert_str_eq(rk_asset_up_axis(a), "Z");
  cr_assert(has_note(a, "add to the root OFFSET"));
}

Test(import_data, makehuman_walk_stands_on_the_ground_in_metres) {
  g_autoptr(rk_asset) a = import_ok("makehuman_walk1.bvh", NULL);
  const size_t head = joint(a, "Head"), fl = joint(a, "Foot_L"), fr = joint(a, "Foot_R");
  /* Rest pose: ankles 8 cm above the ground, a 1.5 m head height. */
  g_autofree rk_vec3 *rest = world_positions(a, NULL, 0);
  rk_assert_near(rest[fl].y, 0.083, 0.01);
  rk_assert_near(rest[fr].y, 0.083, 0.01);
  rk_assert_near(rest[head].y, 1.52, 0.03);
  rk_assert_near(rest[fl].x, -rest[fr].x, 1e-9); /* left/right symmetric about x = 0 */
  /* Walking: the head about 1.37 m above the planted ankle, the feet touching the ground. */
  const rk_clip *c = rk_asset_clip(a, 0);
  const size_t n = rk_skeleton_joint_count(rk_asset_skeleton(a));
  double head_above = 0, lowest_mean = 0;
  for (size_t f = 0; f < 14; f++) {
    g_autofree rk_vec3 *p = world_positions(a, c, (double)f / 24.0);
    head_above += p[head].y - fmin(p[fl].y, p[fr].y);
    double low = INFINITY;
    for (size_t i = 0; i < n; i++)
      low = fmin(low, p[i].y);
    cr_assert(low > -0.02 && low < 0.1, "frame %zu: lowest joint at %g m", f, low);
    lowest_mean += low;
    /* Head above hips above ankles: upright, Y-up. */
    cr_assert(p[head].y > p[joint(a, "Hips")].y && p[joint(a, "Hips")].y > p[fl].y);
  }
  rk_assert_near(head_above / 14, 1.37, 0.03);
  cr_assert(lowest_mean / 14 > 0.0 && lowest_mean / 14 < 0.08);
}

/* ---- Fox (glTF binary, quadruped, three clips) ----------------------------------------------- */

Test(import_data, fox_skeleton_and_clips) {
  g_autoptr(rk_asset) a = import_ok("Fox.glb", NULL);
  static const char *const names[] = {
      "_rootJoint",       "b_Root_00",          "b_Hip_01",         "b_Spine01_02",
      "b_Spine02_03",     "b_Neck_04",          "b_Head_05",        "b_RightUpperArm_06",
      "b_RightForeArm_07", "b_RightHand_08",    "b_LeftUpperArm_09", "b_LeftForeArm_010",
      "b_LeftHand_011",   "b_Tail01_012",       "b_Tail02_013",     "b_Tail03_014",
      "b_LeftLeg01_015",  "b_LeftLeg02_016",    "b_LeftFoot01_017", "b_LeftFoot02_018",
      "b_RightLeg01_019", "b_RightLeg02_020",   "b_RightFoot01_021", "b_RightFoot02_022"};
  assert_names(a, names, G_N_ELEMENTS(names));
  cr_assert_eq(rk_asset_clip_count(a), 3u);
  assert_clip(a, "Survey", 82.0 / 24.0, 24.0, 83);
  assert_clip(a, "Walk", 17.0 / 24.0, 24.0, 18);
  assert_clip(a, "Run", 27.8 / 24.0, 24.0, 29); /* the last keys sit 0.8 frame off the grid */
  cr_assert(has_note(a, "not every key"));
  cr_assert_eq(rk_asset_mesh_count(a), 1u);
  cr_assert(skin_rest_error(a) < 1e-3, "skinned rest error %g", skin_rest_error(a));
}

Test(import_data, fox_is_a_quadruped_standing_on_its_feet) {
  g_autoptr(rk_asset) a = import_ok("Fox.glb", NULL);
  const size_t n = rk_skeleton_joint_count(rk_asset_skeleton(a));
  const size_t root0 = joint(a, "_rootJoint"), root1 = joint(a, "b_Root_00");
  static const char *const paws[] = {"b_LeftFoot02_018", "b_RightFoot02_022", "b_LeftHand_011",
                                     "b_RightHand_08"};
  for (size_t c = 0; c < rk_asset_clip_count(a); c++) {
    const rk_clip *clip = rk_asset_clip(a, c);
    for (int k = 0; k <= 8; k++) {
      const double t = rk_clip_duration(clip) * k / 8.0;
      g_autofree rk_vec3 *p = world_positions(a, clip, t);
      /* The ground anchor joints sit at the origin; of the body's joints, feet and paws (the
       * front legs' hands) are the lowest and the spine, head and hips are above all of them. */
      size_t lowest = 0;
      double low = INFINITY;
      for (size_t i = 0; i < n; i++)
        if (i != root0 && i != root1 && p[i].y < low) {
          low = p[i].y;
          lowest = i;
        }
      const char *name = rk_skeleton_joint_name(rk_asset_skeleton(a), lowest);
      cr_assert(strstr(name, "Foot") || strstr(name, "Hand"), "clip %s t=%g: lowest joint %s",
                rk_clip_name(clip), t, name);
      double highest_paw = -INFINITY;
      for (size_t k2 = 0; k2 < G_N_ELEMENTS(paws); k2++)
        highest_paw = fmax(highest_paw, p[joint(a, paws[k2])].y);
      cr_assert(p[joint(a, "b_Hip_01")].y > highest_paw);
      cr_assert(p[joint(a, "b_Spine02_03")].y > highest_paw);
      cr_assert(p[joint(a, "b_Head_05")].y > highest_paw);
      cr_assert(low > -1.0 && low < 25.0, "feet at %g (file units)", low); /* Run leaps */
    }
  }
  /* Nose forward: head and tail on opposite sides of the hips along z; legs symmetric in x. */
  g_autofree rk_vec3 *rest = world_positions(a, NULL, 0);
  const double hip = rest[joint(a, "b_Hip_01")].z;
  cr_assert((rest[joint(a, "b_Head_05")].z - hip) * (rest[joint(a, "b_Tail03_014")].z - hip) < 0);
  rk_assert_near(rest[joint(a, "b_LeftFoot02_018")].x, -rest[joint(a, "b_RightFoot02_022")].x, 1e-3);
}

/* ---- RiggedFigure (glTF binary, Z_UP matrix parent) ------------------------------------------ */

Test(import_data, rigged_figure_z_up_parent_is_folded) {
  g_autoptr(rk_asset) a = import_ok("RiggedFigure.glb", NULL);
  static const char *const names[] = {
      "torso_joint_1", "torso_joint_2", "torso_joint_3", "neck_joint_1", "neck_joint_2",
      "arm_joint_L_1", "arm_joint_L_2", "arm_joint_L_3", "arm_joint_R_1", "arm_joint_R_2",
      "arm_joint_R_3", "leg_joint_L_1", "leg_joint_L_2", "leg_joint_L_3", "leg_joint_L_5",
      "leg_joint_R_1", "leg_joint_R_2", "leg_joint_R_3", "leg_joint_R_5"};
  assert_names(a, names, G_N_ELEMENTS(names));
  const rk_skeleton *s = rk_asset_skeleton(a);
  cr_assert_eq(rk_skeleton_parent(s, joint(a, "torso_joint_1")), -1);
  cr_assert_eq(rk_skeleton_joint_count(s), 19u); /* Z_UP and Armature are not joints */
  cr_assert_str_eq(rk_asset_up_axis(a), "Z");
  cr_assert(has_note(a, "Z_UP"));
  cr_assert_eq(rk_asset_clip_count(a), 1u);
  const rk_clip *c = rk_asset_clip(a, 0);
  rk_assert_near(rk_clip_duration(c), 1.25, 1e-6);
  cr_assert(skin_rest_error(a) < 1e-4, "skinned rest error %g", skin_rest_error(a));
  for (int k = 0; k <= 4; k++) {
    g_autofree rk_vec3 *p = world_positions(a, c, 1.25 * k / 4);
    /* A 1.2 m figure standing on y = 0: feet near the ground, neck on top, Y-up. */
    const double foot = fmin(p[joint(a, "leg_joint_L_5")].y, p[joint(a, "leg_joint_R_5")].y);
    rk_assert_near(foot, 0.02, 0.03);
    rk_assert_near(p[joint(a, "neck_joint_2")].y - foot, 1.17, 0.05);
    cr_assert(p[joint(a, "torso_joint_1")].y > p[joint(a, "leg_joint_L_3")].y);
  }
}

/* ---- SimpleSkin (glTF with data: URIs, unnamed nodes) ---------------------------------------- */

Test(import_data, simple_skin) {
  g_autoptr(rk_asset) a = import_ok("SimpleSkin.gltf", NULL);
  const rk_skeleton *s = rk_asset_skeleton(a);
  cr_assert_eq(rk_skeleton_joint_count(s), 2u);
  cr_assert_str_eq(rk_skeleton_joint_name(s, 0), "nodes[1]");
  cr_assert_str_eq(rk_skeleton_joint_name(s, 1), "nodes[2]");
  cr_assert_eq(rk_skeleton_parent(s, 1), 0);
  cr_assert_eq(rk_asset_clip_count(a), 1u);
  const rk_clip *c = rk_asset_clip(a, 0);
  rk_assert_near(rk_clip_duration(c), 5.5, 1e-6);
  cr_assert_eq(rk_clip_track_count(c), 1u);
  cr_assert_eq(rk_clip_track(c, 0)->key_count, 12u);
  cr_assert_eq(rk_asset_mesh_count(a), 1u);
  const rk_mesh_data *m = rk_mesh_data_get(rk_asset_mesh(a, 0));
  cr_assert_eq(m->vertex_count, 10u);
  cr_assert_eq(m->index_count, 24u);
  cr_assert(skin_rest_error(a) < 1e-6);
  g_autofree rk_vec3 *p = world_positions(a, NULL, 0);
  rk_assert_vec3_near(p[1], rk_vec3_make(0, 1, 0), 1e-9);
}

/* ---- huesitos (Blender FBX: cm, Armature scale 100, camera and lamp) ------------------------- */

static const char *const huesitos_names[] = {"Bone",     "Bone.001", "Bone.002",     "Bone.003",
                                             "Bone.004", "Bone.005", "Bone.006",     "Bone.007",
                                             "Bone.008", "Bone.006_end", "Bone.008_end"};

Test(import_data, huesitos_fbx) {
  g_autoptr(rk_asset) a = import_ok("assimp_huesitos.fbx", NULL);
  assert_names(a, huesitos_names, G_N_ELEMENTS(huesitos_names));
  const rk_skeleton *s = rk_asset_skeleton(a);
  cr_assert(rk_skeleton_find_joint(s, "Camera") < 0 && rk_skeleton_find_joint(s, "Lamp") < 0 &&
            rk_skeleton_find_joint(s, "Armature") < 0 && rk_skeleton_find_joint(s, "Cylinder") < 0);
  cr_assert(rk_skeleton_joint_flags(s, joint(a, "Bone.006_end")) & RK_SKELETON_END_SITE);
  cr_assert(rk_skeleton_joint_flags(s, joint(a, "Bone.008_end")) & RK_SKELETON_END_SITE);
  cr_assert_str_eq(rk_asset_unit_name(a), "cm");
  assert_clip(a, "Armature|Action", 39.0 / 25.0, 25.0, 40);
  cr_assert(skin_rest_error(a) < 1e-4, "skinned rest error %g", skin_rest_error(a));
  /* Blender's default 1 m bones, in metres: every bone between 0.5 and 1.5 m long, no scale. */
  g_autofree rk_vec3 *p = world_positions(a, NULL, 0);
  for (size_t i = 0; i < rk_skeleton_joint_count(s); i++) {
    const rk_transform *r = rk_skeleton_rest(s, i);
    rk_assert_vec3_near(r->s, rk_vec3_make(1, 1, 1), 1e-5);
    const int parent = rk_skeleton_parent(s, i);
    if (parent < 0)
      continue;
    const double len = rk_vec3_norm(rk_vec3_sub(p[i], p[parent]));
    cr_assert(len > 0.5 && len < 1.5, "bone to '%s' is %g m", rk_skeleton_joint_name(s, i), len);
  }
  /* The armature stands upright on its root: everything at or above the root, Y-up. */
  for (size_t i = 0; i < rk_skeleton_joint_count(s); i++)
    cr_assert(p[i].y >= p[0].y - 1e-6);
  rk_assert_near(p[joint(a, "Bone.008_end")].y, 5.387, 0.01);
}

Test(import_data, huesitos_prerotation_pivots_fbx_folds_helpers) {
  g_autoptr(rk_asset) a = import_ok("huesitos_prerotation_pivots.fbx", NULL);
  assert_names(a, huesitos_names, G_N_ELEMENTS(huesitos_names));
  const rk_skeleton *s = rk_asset_skeleton(a);
  for (size_t i = 0; i < rk_skeleton_joint_count(s); i++)
    cr_assert(!strstr(rk_skeleton_joint_name(s, i), "$AssimpFbx$"));
  cr_assert(has_note(a, "FBX helper nodes of joint 'Bone.004'"));
  cr_assert(has_note(a, "joint 'Bone.004': FBX pre/post-rotation, pivots and offsets evaluated"));
  /* The file's take says 24 fps and 2 s. */
  assert_clip(a, "Armature|Action", 2.0, 24.0, 49);
  /* A pre-rotation turns a joint's children, not the joint: Bone and Bone.001 stand where they
   * stand in the original file. The poses with pre-rotations and pivots are checked against the
   * FBX transform chain in test_fbx_pivots.c. */
  g_autoptr(rk_asset) ref = import_ok("assimp_huesitos.fbx", NULL);
  g_autofree rk_vec3 *p = world_positions(a, NULL, 0);
  g_autofree rk_vec3 *q = world_positions(ref, NULL, 0);
  rk_assert_vec3_near(p[joint(a, "Bone")], q[joint(ref, "Bone")], 1e-4);
  rk_assert_vec3_near(p[joint(a, "Bone.001")], q[joint(ref, "Bone.001")], 1e-4);
  for (size_t c = 0; c < rk_asset_clip_count(a); c++)
    for (int k = 0; k <= 10; k++) {
      const rk_clip *clip = rk_asset_clip(a, c);
      g_autofree rk_vec3 *x = world_positions(a, clip, rk_clip_duration(clip) * k / 10);
      for (size_t i = 0; i < rk_skeleton_joint_count(s); i++)
        cr_assert(rk_vec3_is_finite(x[i]));
    }
}
