/* A real DCC reads rigkit's outputs: headless Blender imports the GLB, glTF and BVH files rigkit
 * writes and check_import.py compares bone count, frame range and bone heads with rigkit's FK.
 * Skipped, with a message saying how to enable it, when blender is not installed. */
#include "blender_check.h"

Test(blender, imports_rigkit_glb_gltf_and_bvh) {
  g_autofree char *blender = blender_or_skip("import check");
  g_autoptr(rk_asset) a = fixture_character(46);
  const rk_skeleton *s = rk_asset_skeleton(a);
  const rk_clip *walk = rk_asset_clip(a, 0);
  g_autofree char *dir = fixture_tmpdir();
  rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  o.clip = "walk";
  g_autofree char *glb = g_build_filename(dir, "walk.glb", NULL);
  g_autofree char *gltf = g_build_filename(dir, "walk.gltf", NULL);
  g_autofree char *bvh = g_build_filename(dir, "walk.bvh", NULL);
  g_autofree char *skel = g_build_filename(dir, "skeleton_only.glb", NULL);
  g_autoptr(GError) e = NULL;
  cr_assert(rk_export_file(a, glb, &o, &e), "%s", e ? e->message : "");
  cr_assert(rk_export_file(a, gltf, &o, &e), "%s", e ? e->message : "");
  cr_assert(rk_export_file(a, bvh, &o, &e), "%s", e ? e->message : "");
  o.skip_meshes = true;
  cr_assert(rk_export_file(a, skel, &o, &e), "%s", e ? e->message : "");

  const size_t n = rk_skeleton_joint_count(s);
  static const char *const probe[] = {"Hips", "Head", "LeftHand", "RightHand", "LeftToe",
                                      "RightFoot", "head_top"};
  g_autoptr(JsonBuilder) jb = manifest_new();
  add_entry(jb, glb, "glb", s, walk, 30, 1.0, n, probe, G_N_ELEMENTS(probe));
  add_entry(jb, gltf, "gltf", s, walk, 30, 1.0, n, probe, G_N_ELEMENTS(probe));
  add_entry(jb, skel, "glb", s, walk, 30, 1.0, n, probe, G_N_ELEMENTS(probe));
  /* BVH: the two End Sites (Head_End, LeftHand_End) are bone tails, not bones. */
  add_entry(jb, bvh, "bvh", s, walk, 30, 0.01, n - 2, probe, G_N_ELEMENTS(probe));
  run_manifest(blender, jb, dir);
  fixture_rmdir(dir);
}
