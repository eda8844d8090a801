/* Shared by the Blender tests: finding blender, writing the manifest check_import.py reads,
 * running blender headless. */
#ifndef RK_BLENDER_CHECK_H
#define RK_BLENDER_CHECK_H

#include "export_fixtures.h"

#include <json-glib/json-glib.h>

static inline char *find_blender(void) {
  const char *env = g_getenv("RK_BLENDER");
  if (env && *env)
    return g_strdup(env);
  return g_find_program_in_path("blender");
}

/** blender's path (the caller g_frees it); skips the test, saying how to enable the headless
 * Blender `check`, when blender is missing. */
static inline char *blender_or_skip(const char *check) {
  char *blender = find_blender();
  if (!blender)
    cr_skip("blender not found: install Debian's blender and python3-numpy (CI does, see "
            ".ci/deps.sh) or set RK_BLENDER to run the headless Blender %s",
            check);
  return blender;
}

/** A new manifest for RK_BLENDER_SCRIPT with its "files" array open for entries; the caller owns
 * it, run_manifest closes it. */
static inline JsonBuilder *manifest_new(void) {
  JsonBuilder *jb = json_builder_new();
  json_builder_begin_object(jb);
  json_builder_set_member_name(jb, "files");
  json_builder_begin_array(jb);
  return jb;
}

/** The "bones" and "samples" members of a manifest entry: the bone names, and rigkit's world
 * positions of those joints of s at the first, middle and last of `frames` frames of clip at fps
 * (NULL clip: the rest pose). */
static inline void add_bone_samples(JsonBuilder *jb, const rk_skeleton *s, const rk_clip *clip,
                                    double fps, size_t frames, const char *const *bones,
                                    size_t n_bones) {
  json_builder_set_member_name(jb, "bones");
  json_builder_begin_array(jb);
  for (size_t i = 0; i < n_bones; i++)
    json_builder_add_string_value(jb, bones[i]);
  json_builder_end_array(jb);
  json_builder_set_member_name(jb, "samples");
  json_builder_begin_array(jb);
  g_autofree rk_vec3 *pos = g_new(rk_vec3, rk_skeleton_joint_count(s));
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
}

/* One manifest entry: rigkit's positions of `bones` at a few frames, which Blender's bone heads
 * must match within tolerance_m. */
static inline void add_entry_within(JsonBuilder *jb, const char *path, const char *format,
                                    const rk_skeleton *s, const rk_clip *clip, double fps,
                                    double metres_per_unit, size_t bone_count,
                                    const char *const *bones, size_t n_bones, double tolerance_m) {
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
  json_builder_add_double_value(jb, tolerance_m);
  add_bone_samples(jb, s, clip, fps, frames, bones, n_bones);
  json_builder_end_object(jb);
}

/* One manifest entry within 1e-4 of the skeleton's reference length. */
static inline void add_entry(JsonBuilder *jb, const char *path, const char *format,
                             const rk_skeleton *s, const rk_clip *clip, double fps,
                             double metres_per_unit, size_t bone_count, const char *const *bones,
                             size_t n_bones) {
  add_entry_within(jb, path, format, s, clip, fps, metres_per_unit, bone_count, bones, n_bones,
                   1e-4 * fixture_reference_length(s));
}

static inline void run_blender(const char *blender, const char *manifest) {
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

/** Closes the "files" array of the manifest jb, writes it to dir/manifest.json and runs blender
 * with RK_BLENDER_SCRIPT on it (fails the test when the check fails). */
static inline void run_manifest(const char *blender, JsonBuilder *jb, const char *dir) {
  json_builder_end_array(jb);
  json_builder_end_object(jb);
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = json_builder_get_root(jb);
  json_generator_set_root(gen, root);
  g_autofree char *manifest = g_build_filename(dir, "manifest.json", NULL);
  cr_assert(json_generator_to_file(gen, manifest, NULL));
  run_blender(blender, manifest);
}

#endif
