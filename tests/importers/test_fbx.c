/* FBX through Assimp: unit scale, axis settings (which Assimp 5.2.5 ignores), helper folding. */
#include "import_test.h"

Test(fbx, axis_settings_are_applied) {
  /* The same content declared Z-up (up Z, front -Y): rigkit turns it by (x, y, z) -> (x, z, -y). */
  g_autoptr(rk_asset) z = import_ok("derived/huesitos_pivots_zup.fbx", NULL);
  g_autoptr(rk_asset) y = import_ok("huesitos_prerotation_pivots.fbx", NULL);
  cr_assert_str_eq(rk_asset_up_axis(z), "Z");
  cr_assert_str_eq(rk_asset_up_axis(y), "Y");
  cr_assert(has_note(z, "FBX axes: up Z, front -Y, right X"));
  const rk_skeleton *s = rk_asset_skeleton(y);
  for (int k = 0; k <= 4; k++) {
    const double t = 0.5 * k;
    g_autofree rk_vec3 *p = world_positions(z, rk_asset_clip(z, 0), t);
    g_autofree rk_vec3 *q = world_positions(y, rk_asset_clip(y, 0), t);
    for (size_t i = 0; i < rk_skeleton_joint_count(s); i++) {
      const rk_vec3 v = q[i];
      rk_assert_vec3_near(p[joint(z, rk_skeleton_joint_name(s, i))], rk_vec3_make(v.x, v.z, -v.y),
                          1e-9);
    }
  }
}

Test(fbx, unit_scale_factor_and_override) {
  g_autoptr(rk_asset) a = import_ok("assimp_huesitos.fbx", NULL);
  cr_assert_str_eq(rk_asset_unit_name(a), "cm");
  rk_assert_near(rk_asset_unit_scale(a), 0.01, 1e-12);
  cr_assert(has_note(a, "UnitScaleFactor 1"));
  /* Blender's 100x armature scale is moved into the translations: unit scales everywhere. */
  cr_assert(has_note(a, "uniform scale of 100"));
  const rk_skeleton *s = rk_asset_skeleton(a);
  rk_assert_vec3_near(rk_skeleton_rest(s, joint(a, "Bone.001"))->t, rk_vec3_make(0, 0.70501, 0), 1e-4);
  rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
  opts.unit_scale = 1.0; /* claim the file is in metres */
  g_autoptr(rk_asset) m = import_ok("assimp_huesitos.fbx", &opts);
  cr_assert_str_eq(rk_asset_unit_name(m), "m");
  g_autofree rk_vec3 *p = world_positions(m, NULL, 0);
  g_autofree rk_vec3 *q = world_positions(a, NULL, 0);
  for (size_t i = 0; i < rk_skeleton_joint_count(s); i++)
    rk_assert_vec3_near(p[i], rk_vec3_scale(q[i], 100), 1e-6);
}

Test(fbx, helper_chains_fold_into_their_joint) {
  g_autoptr(rk_asset) a = import_ok("huesitos_prerotation_pivots.fbx", NULL);
  const rk_skeleton *s = rk_asset_skeleton(a);
  cr_assert_eq(rk_skeleton_joint_count(s), 11u);
  cr_assert(has_note(a, "FBX helper nodes of joint 'Bone.001' (Translation, PreRotation)"));
  /* Bone.004's animation lived on its Rotation helper; it now drives the joint itself. */
  const rk_clip *c = rk_asset_clip(a, 0);
  const int j = (int)joint(a, "Bone.004");
  const int t = rk_clip_find_track(c, j, RK_CHANNEL_ROTATION);
  cr_assert(t >= 0);
  const rk_track *tr = rk_clip_track(c, (size_t)t);
  cr_assert(tr->key_count > 2);
  double spread = 0;
  for (size_t k = 1; k < tr->key_count; k++)
    spread = fmax(spread, rk_quat_angle_between(
                              rk_quat_make(tr->values[0], tr->values[1], tr->values[2], tr->values[3]),
                              rk_quat_make(tr->values[4 * k], tr->values[4 * k + 1],
                                           tr->values[4 * k + 2], tr->values[4 * k + 3])));
  cr_assert(spread > 0.1, "Bone.004 hardly moves (%g rad)", spread);
}

Test(fbx, cameras_lights_and_meshes_are_not_joints) {
  g_autoptr(rk_asset) a = import_ok("assimp_huesitos.fbx", NULL);
  cr_assert_eq(rk_asset_mesh_count(a), 1u);
  const rk_mesh_data *d = rk_mesh_data_get(rk_asset_mesh(a, 0));
  cr_assert_str_eq(d->name, "Cylinder");
  cr_assert_not_null(d->joints);
  /* Only the nine skinning bones carry weights. */
  const rk_skeleton *s = rk_asset_skeleton(a);
  for (size_t v = 0; v < 4 * d->vertex_count; v++)
    if (d->weights[v] > 0) {
      const char *name = rk_skeleton_joint_name(s, d->joints[v]);
      cr_assert(!strstr(name, "_end"), "%s weights a vertex", name);
    }
}

/* An ASCII FBX whose KeyAttrRefCount arrays are not integers (fuzz_fbx finding: a NULL read in the
 * curve reader) imports with the same skeleton and clip as the original, finite everywhere. */
Test(fbx, unreadable_key_attribute_counts_are_ignored) {
  g_autoptr(rk_asset) a = import_ok("crafted/huesitos_refcounts_not_integer.fbx", NULL);
  g_autoptr(rk_asset) b = import_ok("huesitos_prerotation_pivots.fbx", NULL);
  const rk_skeleton *sa = rk_asset_skeleton(a), *sb = rk_asset_skeleton(b);
  cr_assert_eq(rk_skeleton_joint_count(sa), rk_skeleton_joint_count(sb));
  cr_assert_eq(rk_asset_clip_count(a), rk_asset_clip_count(b));
  const rk_clip *ca = rk_asset_clip(a, 0);
  rk_assert_near(rk_clip_duration(ca), rk_clip_duration(rk_asset_clip(b, 0)), 1e-9);
  for (int k = 0; k <= 8; k++) {
    g_autofree rk_vec3 *p = world_positions(a, ca, rk_clip_duration(ca) * k / 8);
    for (size_t i = 0; i < rk_skeleton_joint_count(sa); i++)
      cr_assert(isfinite(p[i].x) && isfinite(p[i].y) && isfinite(p[i].z), "joint %zu at %d/8", i,
                k);
  }
}
