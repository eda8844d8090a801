/* A game rig's clip retargeted onto its own rig comes back unchanged, its root and controls too:
 * game_robot_walk (Root travelling under the pelvis, IK foot targets and poles keyed with the
 * legs) onto game_robot, every joint at every frame within 1 mm of the source's, with foot IK
 * and the ground fit as without; game_posed (node TRS a posed frame, not the bind pose; a clip
 * that keys the hips' translation and the legs only, so that by glTF's rule its shins end above
 * and away from the detached feet) onto itself likewise. */
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
  /* Without foot IK and with the ground kept, then with the defaults (foot IK, ground auto). */
  for (int defaults = 0; defaults < 2; defaults++) {
    rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
    if (!defaults) {
      o.foot_ik = false;
      o.ground = RK_RETARGET_GROUND_KEEP;
    }
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
    cr_assert_leq(worst, 0.001, "defaults %d: joint %s is %.3f mm off at frame %zu", defaults,
                  rk_skeleton_joint_name(ts, wj), 1000 * worst, wf);
    /* The root and the foot controls walked with the body (4.5 m), not left at the start. */
    cr_assert_geq(root_travel, 4.0, "the root moved %.3f m", root_travel);
    cr_assert_geq(foot_travel, 4.0, "Foot.L moved %.3f m", foot_travel);
    rk_retarget_result_free(res);
  }
  rk_retargeter_free(rt);
  rk_asset_free(src);
  rk_asset_free(tgt);
}

/* The written output, measured by the report: clean, no ground offset, every joint within 1 mm;
 * without --no-ik and --ground keep too (the defaults: foot IK on, ground auto). The robot's legs
 * end in rocker soles: foot IK pinned the end fixed while the source's rolled (46.7 mm, failed),
 * and the clip's floor from the ends' height put the robot 1.03 mm up. */
Test(game_identity, the_report_says_clean) {
  g_autofree char *dir = rt_tmpdir();
  static const char *const walk[] = {"generated/game_robot_walk.glb", NULL};
  static const char *const keep[] = {"--no-ik", "--ground", "keep", NULL};
  for (int defaults = 0; defaults < 2; defaults++) {
    JsonParser *parser = rt_run_report(dir, dir, "generated/game_robot.glb", defaults ? NULL : keep,
                                       walk, 0, NULL);
    JsonObject *c = rt_clip(json_node_get_object(json_parser_get_root(parser)), 0);
    cr_assert_str_eq(rt_str(c, "verdict"), "clean", "defaults %d", defaults);
    cr_assert_eq(rt_num(c, "ground_offset_mm", NULL), 0.0, "defaults %d", defaults);
    cr_assert_leq(rt_num(c, "pose_error_mm", "max"), 1.0, "defaults %d", defaults);
    g_object_unref(parser);
  }
  rt_rmtree(dir);
}

/* game_posed's clip leaves the shins above their feet (the hips keep the node's 20 degrees, the
 * legs are keyed for upright hips): the leg's end is not the clip's ground. Onto itself the clip
 * comes back unchanged: clean, no ground offset, every joint within 1 mm, with the defaults (foot
 * IK, ground auto). The leg ends' height was taken for the clip's ground: the floating shins were
 * planted on the floor and the body lowered by 41.9 mm (pose error 253 mm, failed). */
Test(game_identity, a_posed_rig_with_a_partly_keyed_clip_comes_back_unchanged) {
  g_autofree char *file = rt_data("generated/game_posed.glb");
  g_autoptr(GError) e = NULL;
  rk_asset *a = rk_import_file(file, NULL, &e);
  cr_assert_not_null(a, "%s", e ? e->message : "");
  const rk_skeleton *s = rk_asset_skeleton(a);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  rk_clip_sample(rk_asset_clip(a, 0), rk_skeleton_rest_locals(s), 0.0, locals, n);
  rk_fk_models(s, locals, models);
  const int end = rk_skeleton_find_joint(s, "LowerLeg.L_end"), foot = rk_skeleton_find_joint(s, "Foot.L");
  cr_assert(end >= 0 && foot >= 0);
  cr_assert_geq(models[end].m[13] - models[foot].m[13], 0.04, "the shin ends %.1f mm above the foot",
                1000 * (models[end].m[13] - models[foot].m[13]));
  rk_asset_free(a);
  g_autofree char *dir = rt_tmpdir();
  static const char *const clip[] = {"generated/game_posed.glb", NULL};
  JsonParser *parser = rt_run_report(dir, dir, "generated/game_posed.glb", NULL, clip, 0, NULL);
  JsonObject *c = rt_clip(json_node_get_object(json_parser_get_root(parser)), 0);
  cr_assert_str_eq(rt_str(c, "verdict"), "clean");
  cr_assert_eq(rt_num(c, "ground_offset_mm", NULL), 0.0);
  cr_assert_leq(rt_num(c, "pose_error_mm", "max"), 1.0);
  g_object_unref(parser);
  rt_rmtree(dir);
}
