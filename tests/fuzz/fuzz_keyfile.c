/* libFuzzer target: retarget map/profile key files (the format of `rigkit retarget --map`):
 * the fuzzed text is loaded as a GKeyFile, its [settings] read with
 * rk_retarget_options_from_keyfile, its [source] and [target] bone=joint groups applied with
 * rk_humanoid_map_apply_keyfile onto two fixed rigs (the crafted Y-up BVH human as source, from
 * an empty map as its two-segment arms do not map automatically; RiggedFigure.glb as target,
 * on top of its automatic map and of an empty one), each map finished (validated, measured); when everything is accepted a retargeter is built and the
 * 3-frame source clip retargeted with the file's settings. The harness caps ik_iterations at 20
 * and fps at 240 before that run so one input stays fast (the reader allows 10000 each). */
#include "fuzz_support.h"

#include <rigkit/humanoid.h>
#include <rigkit/retarget.h>

static rk_asset *source, *target;
static rk_humanoid_map target_auto;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  rk_fuzz_setup();
  source = rk_fuzz_load_fixture("crafted/human_yup_m_frames_short.bvh");
  target = rk_fuzz_load_fixture("RiggedFigure.glb");
  GError *error = NULL;
  RK_FUZZ_REQUIRE(rk_humanoid_map_build(rk_asset_skeleton(target), NULL, &target_auto, &error),
                  "target map: %s", error->message);
  return 0;
}

/* Applies one group on top of *map and finishes it; returns whether both were accepted. */
static bool apply(rk_humanoid_map *map, const rk_skeleton *s, GKeyFile *kf, const char *group) {
  GError *error = NULL;
  bool ok = rk_humanoid_map_apply_keyfile(map, s, kf, group, "fuzz.map", &error);
  rk_fuzz_check_outcome(ok, error, "rk_humanoid_map_apply_keyfile");
  g_clear_error(&error);
  if (!ok)
    return false;
  for (int b = 0; b < RK_BONE_COUNT; b++)
    RK_FUZZ_CHECK(map->joint[b] >= -1 && map->joint[b] < (int)rk_skeleton_joint_count(s),
                  "bone %s -> joint %d", rk_bone_name((rk_bone)b), map->joint[b]);
  ok = rk_humanoid_map_finish(map, s, &error);
  rk_fuzz_check_outcome(ok, error, "rk_humanoid_map_finish");
  g_clear_error(&error);
  if (ok) {
    char *text = rk_humanoid_map_to_string(map, s);
    RK_FUZZ_CHECK(text && g_utf8_validate(text, -1, NULL), "map text");
    g_free(text);
  }
  return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  GKeyFile *kf = g_key_file_new();
  if (!g_key_file_load_from_data(kf, (const char *)data, size, G_KEY_FILE_NONE, NULL)) {
    g_key_file_free(kf);
    return 0; /* GLib's parser said no: not rigkit's input path */
  }
  rk_skeleton *ss = rk_asset_skeleton(source), *ts = rk_asset_skeleton(target);
  rk_retarget_options opts = RK_RETARGET_OPTIONS_INIT;
  GError *error = NULL;
  const bool opts_ok = rk_retarget_options_from_keyfile(&opts, kf, "fuzz.map", &error);
  rk_fuzz_check_outcome(opts_ok, error, "rk_retarget_options_from_keyfile");
  g_clear_error(&error);

  rk_humanoid_map empty;
  rk_humanoid_map_clear(&empty);
  rk_humanoid_map e2 = empty;
  apply(&e2, ts, kf, "target");

  rk_humanoid_map sm = empty, tm = target_auto;
  const bool maps_ok = apply(&sm, ss, kf, "source") && apply(&tm, ts, kf, "target");
  if (opts_ok && maps_ok) {
    rk_retargeter *rt = rk_retargeter_new(ss, &sm, ts, &tm, &error);
    rk_fuzz_check_outcome(rt != NULL, error, "rk_retargeter_new");
    g_clear_error(&error);
    if (rt) {
      if (opts.ik_iterations > 20)
        opts.ik_iterations = 20;
      if (opts.fps > 240)
        opts.fps = 240;
      rk_retarget_result *r = rk_retargeter_run(rt, rk_asset_clip(source, 0), &opts, &error);
      rk_fuzz_check_outcome(r != NULL, error, "rk_retargeter_run");
      g_clear_error(&error);
      if (r) {
        RK_FUZZ_CHECK(rk_retarget_result_frames(r) > 0, "no frames");
        rk_fuzz_check_clip(ts, rk_retarget_result_clip(r));
      }
      rk_retarget_result_free(r);
    }
    rk_retargeter_free(rt);
  }
  g_key_file_free(kf);
  return 0;
}
