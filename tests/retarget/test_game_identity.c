/* A game rig's clip retargeted onto its own rig comes back unchanged, its root and controls too:
 * game_robot_walk (Root travelling under the pelvis, IK foot targets and poles keyed with the
 * legs) onto game_robot, every joint at every frame within 1 mm of the source's. */
#include "../plugin/retarget_test.h"

#include <rigkit/skin.h>

Test(game_identity, the_robot_walk_onto_the_robot_moves_its_root_and_controls) {
  g_autofree char *cfile = rt_data("generated/game_robot_walk.glb"), *tfile = rt_data("generated/game_robot.glb");
  g_autoptr(GError) e = NULL;
  rk_asset *src = rk_import_file(cfile, NULL, &e);
  cr_assert_not_null(src, "%s", e ? e->message : "");
  rk_asset *tgt = rk_import_file(tfile, NULL, &e);
  cr_assert_not_null(tgt, "%s", e ? e->message : "");
  const rk_skeleton *ss = rk_asset_skeleton(src), *ts = rk_asset_skeleton(tgt);
  /* Mapped with their meshes: the controls weight nothing. */
  g_autoptr(rk_skin_support) sskin = rk_skin_support_from_asset(src, NULL);
  g_autoptr(rk_skin_support) tskin = rk_skin_support_from_asset(tgt, NULL);
  rk_humanoid_options so = RK_HUMANOID_OPTIONS_INIT, to = RK_HUMANOID_OPTIONS_INIT;
  so.skin = sskin;
  to.skin = tskin;
  rk_humanoid_map sm, tm;
  cr_assert(rk_humanoid_map_build(ss, &so, &sm, &e), "%s", e ? e->message : "");
  cr_assert(rk_humanoid_map_build(ts, &to, &tm, &e), "%s", e ? e->message : "");
  rk_retargeter *rt = rk_retargeter_new_onto(rk_asset_skeleton(src), &sm, tgt, &tm, &e);
  cr_assert_not_null(rt, "%s", e ? e->message : "");
  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  o.foot_ik = false;
  o.ground = RK_RETARGET_GROUND_KEEP;
  rk_retarget_result *res = rk_retargeter_run(rt, rk_asset_clip(src, 0), &o, &e);
  cr_assert_not_null(res, "%s", e ? e->message : "");
  cr_assert_eq(rk_retarget_result_ground_offset(res), 0.0);
  const rk_clip *sc = rk_asset_clip(src, 0), *tc = rk_retarget_result_clip(res);
  const size_t nt = rk_skeleton_joint_count(ts), ns = rk_skeleton_joint_count(ss);
  g_autofree rk_transform *tl = g_new(rk_transform, nt), *sl = g_new(rk_transform, ns);
  g_autofree rk_mat4 *tmod = g_new(rk_mat4, nt), *smod = g_new(rk_mat4, ns);
  const double fps = rk_retarget_result_fps(res);
  const int root = rk_skeleton_find_joint(ts, "Root"), foot = rk_skeleton_find_joint(ts, "Foot.L");
  double worst = 0, root_travel = 0, foot_travel = 0;
  size_t wj = 0, wf = 0;
  for (size_t f = 0; f < rk_retarget_result_frames(res); f++) {
    rk_clip_sample_frame(tc, rk_skeleton_rest_locals(ts), fps, f, tl, nt);
    rk_fk_models(ts, tl, tmod);
    rk_clip_sample(sc, rk_skeleton_rest_locals(ss), fmin((double)f / fps, rk_clip_duration(sc)), sl, ns);
    rk_fk_models(ss, sl, smod);
    for (size_t j = 0; j < nt; j++) {
      const int s = rk_retargeter_counterpart(rt, j);
      cr_assert_geq(s, 0, "target joint %s has no counterpart", rk_skeleton_joint_name(ts, j));
      const double d = rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&tmod[j]),
                                                rk_mat4_get_translation(&smod[s])));
      if (d > worst) {
        worst = d;
        wj = j;
        wf = f;
      }
    }
    root_travel = fmax(root_travel, fabs(tmod[root].m[14] - rk_skeleton_rest_locals(ts)[root].t.z));
    foot_travel = fmax(foot_travel, rk_vec3_norm(rk_mat4_get_translation(&tmod[foot])));
  }
  cr_assert_leq(worst, 0.001, "joint %s is %.3f mm off at frame %zu", rk_skeleton_joint_name(ts, wj),
                1000 * worst, wf);
  /* The root and the foot controls walked with the body (4.5 m), not left at the start. */
  cr_assert_geq(root_travel, 4.0, "the root moved %.3f m", root_travel);
  cr_assert_geq(foot_travel, 4.0, "Foot.L moved %.3f m", foot_travel);
  rk_retarget_result_free(res);
  rk_retargeter_free(rt);
  rk_asset_free(src);
  rk_asset_free(tgt);
}

/* The written output, measured by the report: clean, no ground offset, every joint within 1 mm. */
Test(game_identity, the_report_says_clean) {
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *report = g_build_filename(dir, "r.json", NULL);
  g_autofree char *walk = rt_data("generated/game_robot_walk.glb"), *target = rt_data("generated/game_robot.glb");
  const char *args[] = {"retarget", "--target", target, "--no-ik", "--ground", "keep", "--out-dir", dir,
                        "--report", report, "--no-progress", walk, NULL};
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 0, "%s", r.err);
  rt_cli_clear(&r);
  JsonParser *parser = NULL;
  JsonObject *c = rt_clip(rt_json(report, &parser), 0);
  cr_assert_str_eq(rt_str(c, "verdict"), "clean");
  cr_assert_eq(rt_num(c, "ground_offset_mm", NULL), 0.0);
  cr_assert_leq(rt_num(c, "pose_error_mm", "max"), 1.0);
  g_object_unref(parser);
  rt_rmtree(dir);
}
