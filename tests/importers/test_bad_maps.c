/* Retarget map/profile key files (the format of `rigkit retarget --map`), read through the core
 * API as the CLI and the plugin read them: [settings] with rk_retarget_options_from_keyfile,
 * [source] and [target] with rk_humanoid_map_apply_keyfile, then rk_humanoid_map_finish.
 * Every file of tests/data/bad/maps.txt (written by bad/make_bad.py) must be refused with an
 * RK_ERROR whose message contains the listed text; the crafted profiles (LF, and CRLF with tabs
 * and an unmapping empty value) must load to the same settings and maps.
 * Source rig: crafted/human_yup_m_frames_short.bvh, from an empty map (its two-segment arms do
 * not map automatically); target: RiggedFigure.glb, on top of its automatic map. */
#include "import_test.h"

#include <rigkit/humanoid.h>
#include <rigkit/retarget.h>

typedef struct rigs {
  rk_asset *source, *target;
  rk_humanoid_map target_auto;
} rigs;

static rigs load_rigs(void) {
  rigs r;
  r.source = import_ok("crafted/human_yup_m_frames_short.bvh", NULL);
  r.target = import_ok("RiggedFigure.glb", NULL);
  g_autoptr(GError) error = NULL;
  cr_assert(rk_humanoid_map_build(rk_asset_skeleton(r.target), NULL, &r.target_auto, &error),
            "%s", error ? error->message : "");
  return r;
}

static void free_rigs(rigs *r) {
  rk_asset_free(r->source);
  rk_asset_free(r->target);
}

typedef struct profile {
  rk_retarget_options opts;
  rk_humanoid_map source, target;
} profile;

/* Reads a profile file onto the two rigs; false with the first error. */
static bool load_profile(const char *path, const rigs *r, profile *out, GError **error) {
  g_autoptr(GKeyFile) kf = g_key_file_new();
  if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, error))
    return false;
  const rk_skeleton *ss = rk_asset_skeleton(r->source), *ts = rk_asset_skeleton(r->target);
  out->opts = (rk_retarget_options)RK_RETARGET_OPTIONS_INIT;
  rk_humanoid_map_clear(&out->source);
  out->target = r->target_auto;
  if (!rk_retarget_options_from_keyfile(&out->opts, kf, path, error) ||
      !rk_humanoid_map_apply_keyfile(&out->source, ss, kf, "source", path, error) ||
      !rk_humanoid_map_apply_keyfile(&out->target, ts, kf, "target", path, error))
    return false;
  if (!rk_humanoid_map_finish(&out->source, ss, error)) {
    g_prefix_error(error, "%s: [source]: ", path);
    return false;
  }
  if (!rk_humanoid_map_finish(&out->target, ts, error)) {
    g_prefix_error(error, "%s: [target]: ", path);
    return false;
  }
  return true;
}

Test(bad_maps, every_malformed_profile_is_refused) {
  /* GLib warnings and criticals are failures here (GLib's key file parser warned on bad escapes
   * before rigkit checked them itself). */
  g_log_set_always_fatal(G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  rigs r = load_rigs();
  g_autoptr(GPtrArray) cases = bad_cases("maps.txt");
  for (guint i = 0; i < cases->len; i++) {
    char **f = g_ptr_array_index(cases, i);
    const char *path = f[0];
    profile p;
    g_autoptr(GError) error = NULL;
    cr_assert_not(load_profile(path, &r, &p, &error), "%s was accepted", path);
    cr_assert(error && error->domain == RK_ERROR, "%s: %s", path, error ? error->message : "");
    cr_assert(g_utf8_validate(error->message, -1, NULL), "%s: message is not UTF-8", path);
    cr_assert(g_str_has_prefix(error->message, path), "%s: message does not name the file: %s",
              path, error->message);
    cr_assert(strstr(error->message, f[1]), "%s: message lacks '%s': %s", path, f[1],
              error->message);
  }
  cr_assert(cases->len >= 10, "only %u malformed profiles", cases->len);
  free_rigs(&r);
}

Test(bad_maps, crafted_profiles_load_the_same_with_crlf_and_tabs) {
  rigs r = load_rigs();
  profile lf, crlf;
  g_autoptr(GError) error = NULL;
  g_autofree char *a = rk_test_data("crafted/human_to_figure.map");
  g_autofree char *b = rk_test_data("crafted/human_to_figure_crlf_tabs.map");
  cr_assert(load_profile(a, &r, &lf, &error), "%s", error ? error->message : "");
  cr_assert(load_profile(b, &r, &crlf, &error), "%s", error ? error->message : "");
  /* Field by field (the struct has padding). */
  cr_assert(lf.opts.fps == crlf.opts.fps && lf.opts.foot_ik == crlf.opts.foot_ik &&
            lf.opts.hand_ik == crlf.opts.hand_ik && lf.opts.root_motion == crlf.opts.root_motion &&
            lf.opts.contact_height == crlf.opts.contact_height &&
            lf.opts.contact_speed == crlf.opts.contact_speed &&
            lf.opts.contact_min_time == crlf.opts.contact_min_time &&
            lf.opts.blend_time == crlf.opts.blend_time &&
            lf.opts.ik_iterations == crlf.opts.ik_iterations);
  rk_assert_near(lf.opts.fps, 30, 0);
  cr_assert_eq(lf.opts.ik_iterations, 30);
  for (int bone = 0; bone < RK_BONE_COUNT; bone++) {
    cr_assert_eq(lf.source.joint[bone], crlf.source.joint[bone], "%s", rk_bone_name(bone));
    if (bone != RK_BONE_RIGHT_TOES)
      cr_assert_eq(lf.target.joint[bone], crlf.target.joint[bone], "%s", rk_bone_name(bone));
  }
  const rk_skeleton *ss = rk_asset_skeleton(r.source), *ts = rk_asset_skeleton(r.target);
  cr_assert_eq(lf.source.joint[RK_BONE_LEFT_FOOT], rk_skeleton_find_joint(ss, "LeftFoot"));
  cr_assert_eq(lf.source.source[RK_BONE_LEFT_FOOT], RK_BONE_BY_MAP_FILE);
  cr_assert_eq(lf.target.joint[RK_BONE_RIGHT_TOES], rk_skeleton_find_joint(ts, "leg_joint_R_5"));
  cr_assert_eq(crlf.target.joint[RK_BONE_RIGHT_TOES], -1, "the empty value unmaps the bone");
  /* The profile drives a retarget of the source clip onto the target. */
  g_autoptr(rk_retargeter) rt = rk_retargeter_new(rk_asset_skeleton(r.source), &crlf.source,
                                                  rk_asset_skeleton(r.target), &crlf.target,
                                                  &error);
  cr_assert(rt, "%s", error ? error->message : "");
  g_autoptr(rk_retarget_result) res = rk_retargeter_run(rt, rk_asset_clip(r.source, 0),
                                                        &crlf.opts, &error);
  cr_assert(res, "%s", error ? error->message : "");
  cr_assert_eq(rk_retarget_result_frames(res), 3);
  free_rigs(&r);
}
