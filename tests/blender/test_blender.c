/* A real DCC reads rigkit's outputs: headless Blender imports the GLB, glTF and BVH files rigkit
 * writes and check_import.py compares bone count, frame range and bone heads with rigkit's FK.
 * Skipped, with a message saying how to enable it, when blender is not installed. */
#include "export_fixtures.h"

#include <json-glib/json-glib.h>

static char *find_blender(void) {
  const char *env = g_getenv("RK_BLENDER");
  if (env && *env)
    return g_strdup(env);
  return g_find_program_in_path("blender");
}

/* One manifest entry: rigkit's positions of `sample_joints` at a few frames. */
static void add_entry(JsonBuilder *jb, const char *path, const char *format, const rk_skeleton *s,
                      const rk_clip *clip, double fps, double metres_per_unit, size_t bone_count,
                      const char *const *bones, size_t n_bones) {
  const size_t n = rk_skeleton_joint_count(s);
  const size_t frames = clip ? (size_t)llround(rk_clip_duration(clip) * fps) + 1 : 1;
  json_builder_begin_object(jb);
  json_builder_set_member_name(jb, "path");
  json_builder_add_string_value(jb, path);
  json_builder_set_member_name(jb, "format");
  json_builder_add_string_value(jb, format);
  json_builder_set_member_name(jb, "metres_per_unit");
  json_builder_add_double_value(jb, metres_per_unit);
  json_builder_set_member_name(jb, "fps");
  json_builder_add_double_value(jb, fps);
  json_builder_set_member_name(jb, "frames");
  json_builder_add_int_value(jb, (gint64)frames);
  json_builder_set_member_name(jb, "bone_count");
  json_builder_add_int_value(jb, (gint64)bone_count);
  json_builder_set_member_name(jb, "tolerance_m");
  json_builder_add_double_value(jb, 1e-4 * rk_skeleton_rest_height(s));
  json_builder_set_member_name(jb, "bones");
  json_builder_begin_array(jb);
  for (size_t i = 0; i < n_bones; i++)
    json_builder_add_string_value(jb, bones[i]);
  json_builder_end_array(jb);
  json_builder_set_member_name(jb, "samples");
  json_builder_begin_array(jb);
  g_autofree rk_vec3 *pos = g_new(rk_vec3, n);
  const size_t picks[3] = {0, frames / 2, frames - 1};
  for (size_t k = 0; k < 3; k++) {
    const size_t f = picks[k];
    fixture_world_positions(s, clip, clip ? fmin((double)f / fps, rk_clip_duration(clip)) : 0, pos);
    json_builder_begin_object(jb);
    json_builder_set_member_name(jb, "frame");
    json_builder_add_int_value(jb, (gint64)f);
    json_builder_set_member_name(jb, "positions");
    json_builder_begin_object(jb);
    for (size_t i = 0; i < n_bones; i++) {
      int j = rk_skeleton_find_joint(s, bones[i]);
      cr_assert(j >= 0, "no joint %s", bones[i]);
      json_builder_set_member_name(jb, bones[i]);
      json_builder_begin_array(jb);
      json_builder_add_double_value(jb, pos[j].x);
      json_builder_add_double_value(jb, pos[j].y);
      json_builder_add_double_value(jb, pos[j].z);
      json_builder_end_array(jb);
    }
    json_builder_end_object(jb);
    json_builder_end_object(jb);
  }
  json_builder_end_array(jb);
  json_builder_end_object(jb);
}

static void run_blender(const char *blender, const char *manifest) {
  const char *argv[] = {blender, "-b", "--factory-startup", "--python-exit-code", "1",
                        "--python", RK_BLENDER_SCRIPT, "--", manifest, NULL};
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr(GError) e = NULL;
  cr_assert(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                         &status, &e),
            "cannot run %s: %s", blender, e ? e->message : "");
  /* Blender is verbose: keep our own lines. */
  g_auto(GStrv) lines = g_strsplit(out ? out : "", "\n", -1);
  GString *ours = g_string_new(NULL);
  for (size_t i = 0; lines[i]; i++)
    if (g_str_has_prefix(lines[i], "BLENDER CHECK"))
      g_string_append_printf(ours, "%s\n", lines[i]);
  printf("%s", ours->str);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "blender check failed:\n%s\n%s\n%s",
            ours->str, out, err);
  g_string_free(ours, TRUE);
}

Test(blender, imports_rigkit_glb_gltf_and_bvh) {
  g_autofree char *blender = find_blender();
  if (!blender)
    cr_skip("blender not found: install Debian's blender and python3-numpy (CI does, see "
            ".ci/deps.sh) or set RK_BLENDER to run the headless Blender import check");
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
  g_autoptr(JsonBuilder) jb = json_builder_new();
  json_builder_begin_object(jb);
  json_builder_set_member_name(jb, "files");
  json_builder_begin_array(jb);
  add_entry(jb, glb, "glb", s, walk, 30, 1.0, n, probe, G_N_ELEMENTS(probe));
  add_entry(jb, gltf, "gltf", s, walk, 30, 1.0, n, probe, G_N_ELEMENTS(probe));
  add_entry(jb, skel, "glb", s, walk, 30, 1.0, n, probe, G_N_ELEMENTS(probe));
  /* BVH: the two End Sites (Head_End, LeftHand_End) are bone tails, not bones. */
  add_entry(jb, bvh, "bvh", s, walk, 30, 0.01, n - 2, probe, G_N_ELEMENTS(probe));
  json_builder_end_array(jb);
  json_builder_end_object(jb);
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = json_builder_get_root(jb);
  json_generator_set_root(gen, root);
  g_autofree char *manifest = g_build_filename(dir, "manifest.json", NULL);
  cr_assert(json_generator_to_file(gen, manifest, NULL));
  run_blender(blender, manifest);
  fixture_rmdir(dir);
}
