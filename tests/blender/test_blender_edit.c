/* Headless Blender reads characters whose own glTF document rigkit edited (rigkit/gltf_edit.h):
 * one armature with the document's bones, and every bone head where rigkit's FK of the clip
 * puts the joint, within 0.01 mm at human scale, 1e-6 of the size beyond (float32 keys and
 * Blender's float32 evaluation: 0.03 mm on the 60 m Fox). */
#include "blender_check.h"
#include "shared_files.h"

#include <rigkit/gltf_edit.h>

/* src sampled at 30 fps on whole frames only (its duration rounded down to a frame), so that
 * Blender's action range is the manifest's: translation and rotation keys for every joint. */
static rk_clip *on_frames(const rk_asset *a, const rk_clip *src) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  const size_t n = rk_skeleton_joint_count(s);
  const size_t frames = (size_t)floor(rk_clip_duration(src) * 30 + 1e-9) + 1;
  g_autofree rk_transform *pose = g_new(rk_transform, n * frames);
  g_autofree double *times = g_new(double, frames), *v = g_new(double, 4 * frames);
  for (size_t f = 0; f < frames; f++) {
    times[f] = (double)f / 30;
    cr_assert(rk_clip_sample(src, rk_skeleton_rest_locals(s), times[f], pose + f * n, n));
  }
  rk_clip *c = rk_clip_new(rk_clip_name(src), n);
  rk_clip_set_fps(c, 30);
  for (size_t j = 0; j < n; j++) {
    for (size_t f = 0; f < frames; f++)
      memcpy(v + 3 * f, &pose[f * n + j].t, 3 * sizeof(double));
    const rk_track t = {(int)j, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, frames, times, v};
    cr_assert(rk_clip_add_track(c, &t, NULL));
    for (size_t f = 0; f < frames; f++)
      memcpy(v + 4 * f, &pose[f * n + j].r, 4 * sizeof(double));
    const rk_track r = {(int)j, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, frames, times, v};
    cr_assert(rk_clip_add_track(c, &r, NULL));
  }
  return c;
}

/* The clip rigkit writes into each character. */
static rk_clip *clip_for(const char *name, const rk_asset *a) {
  if (strcmp(name, "RiggedFigure.glb") == 0) {
    g_autoptr(rk_asset) r = retarget_output("makehuman_walk1.bvh", name, true);
    return on_frames(a, rk_asset_clip(r, 0));
  }
  if (strcmp(name, "Fox.glb") == 0)
    return on_frames(a, rk_asset_clip(a, (size_t)rk_asset_find_clip(a, "Run")));
  /* The crafted characters: their own idle clip with the left leg swinging. */
  g_autoptr(rk_clip) c = on_frames(a, rk_asset_clip(a, 0));
  const rk_skeleton *s = rk_asset_skeleton(a);
  const int leg = rk_skeleton_find_joint(s, "LegL");
  const rk_track *t = rk_clip_track(c, (size_t)rk_clip_find_track(c, leg, RK_CHANNEL_ROTATION));
  g_autofree double *times = g_memdup2(t->times, t->key_count * sizeof(double));
  g_autofree double *v = g_new(double, 4 * t->key_count);
  const rk_quat r0 = rk_skeleton_rest(s, (size_t)leg)->r;
  for (size_t k = 0; k < t->key_count; k++) {
    rk_quat q = rk_quat_mul(r0, rk_quat_from_axis_angle(rk_vec3_make(1, 0, 0),
                                                        0.8 * sin(6 * times[k])));
    v[4 * k] = q.x, v[4 * k + 1] = q.y, v[4 * k + 2] = q.z, v[4 * k + 3] = q.w;
  }
  const rk_track lt = {leg, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, t->key_count, times, v};
  cr_assert(rk_clip_add_track(c, &lt, NULL));
  return g_steal_pointer(&c);
}

Test(blender, reads_edited_characters) {
  g_autofree char *blender = blender_or_skip("edited character check");
  static const char *const names[] = {"Fox.glb", "RiggedFigure.glb", "crafted/zup_scale100.glb",
                                      "crafted/textured_morph.gltf"};
  g_autofree char *dir = fixture_tmpdir();
  g_autoptr(JsonBuilder) jb = manifest_new();
  g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func((GDestroyNotify)rk_asset_free);
  g_autoptr(GPtrArray) clips = g_ptr_array_new_with_free_func((GDestroyNotify)rk_clip_free);
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
    g_autofree char *path = rk_test_data(names[i]);
    rk_asset *a = import_or_fail(path, NULL);
    g_ptr_array_add(keep, a);
    rk_clip *clip = clip_for(names[i], a);
    cr_assert_not_null(clip);
    g_ptr_array_add(clips, clip);
    const char *ext = i % 2 ? "gltf" : "glb";
    g_autofree char *out = g_strdup_printf("%s/edited%zu.%s", dir, i, ext);
    g_autoptr(GError) e = NULL;
    cr_assert(rk_gltf_edit_write(path, a, clip, out, &e), "%s: %s", names[i], e ? e->message : "");
    const rk_skeleton *s = rk_asset_skeleton(a);
    const size_t n = rk_skeleton_joint_count(s);
    g_autofree const char **bones = g_new(const char *, n);
    for (size_t j = 0; j < n; j++)
      bones[j] = rk_skeleton_joint_name(s, j);
    add_entry_within(jb, out, ext, s, clip, 30, 1.0, n, bones, n,
                     fmax(1e-5, 1e-6 * fixture_reference_length(s)));
  }
  run_manifest(blender, jb, dir);
  fixture_rmdir(dir);
}
