/* libFuzzer target: the retarget entry point on fuzzed assets. The input is read as a BVH clip
 * (the reader is fuzzed on its own by fuzz_bvh; here it produces odd skeletons and motions),
 * mapped onto the humanoid profile (rk_humanoid_map_build) and, when that works, retargeted onto
 * a fixed target rig (RiggedFigure.glb) with foot and hand IK. Most inputs fail to map: that must
 * happen with a clean RK_ERROR. Long clips are retargeted at a lower rate (at most 120 output
 * frames) so one input stays fast. */
#include "fuzz_support.h"

#include <rigkit/humanoid.h>
#include <rigkit/retarget.h>

static rk_asset *target;
static rk_humanoid_map target_map;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  rk_fuzz_setup();
  target = rk_fuzz_load_fixture("RiggedFigure.glb");
  GError *error = NULL;
  RK_FUZZ_REQUIRE(rk_humanoid_map_build(rk_asset_skeleton(target), NULL, &target_map, &error),
                  "target map: %s", error->message);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rk_import_options iopts = RK_IMPORT_OPTIONS_INIT;
  iopts.format = "bvh";
  iopts.skip_meshes = true;
  rk_asset *src = rk_fuzz_import(data, size, "fuzz.bvh", &iopts);
  if (!src)
    return 0;
  GError *error = NULL;
  rk_skeleton *ss = rk_asset_skeleton(src), *ts = rk_asset_skeleton(target);
  rk_humanoid_map sm;
  bool ok = rk_humanoid_map_build(ss, NULL, &sm, &error);
  rk_fuzz_check_outcome(ok, error, "rk_humanoid_map_build");
  g_clear_error(&error);
  if (ok && rk_asset_clip_count(src) > 0) {
    rk_retargeter *rt = rk_retargeter_new(ss, &sm, ts, &target_map, &error);
    rk_fuzz_check_outcome(rt != NULL, error, "rk_retargeter_new");
    g_clear_error(&error);
    if (rt) {
      const rk_clip *clip = rk_asset_clip(src, 0);
      rk_retarget_options opts = RK_RETARGET_OPTIONS_INIT;
      opts.hand_ik = true;
      const double d = rk_clip_duration(clip);
      if (rk_clip_frame_count(clip) > 120 && d > 0)
        opts.fps = 119 / d;
      rk_retarget_result *r = rk_retargeter_run(rt, clip, &opts, &error);
      rk_fuzz_check_outcome(r != NULL, error, "rk_retargeter_run");
      g_clear_error(&error);
      if (r) {
        RK_FUZZ_CHECK(rk_retarget_result_frames(r) > 0, "no frames");
        rk_fuzz_check_clip(ts, rk_retarget_result_clip(r));
        const rk_retarget_quality *q = rk_retarget_result_quality(r);
        RK_FUZZ_CHECK(!isnan(q->foot_skate_max_mm) && !isnan(q->ik_goal_error_max_mm),
                      "quality figures are NaN");
      }
      rk_retarget_result_free(r);
    }
    rk_retargeter_free(rt);
  }
  rk_asset_free(src);
  return 0;
}
