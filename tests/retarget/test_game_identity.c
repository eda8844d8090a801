/* A game rig's clip retargeted onto its own rig comes back unchanged, its root and controls too:
 * game_robot_walk (Root travelling under the pelvis, IK foot targets and poles keyed with the
 * legs) onto game_robot, every joint at every frame within 1 mm of the source's, with foot IK
 * and the ground fit as without; game_posed (node TRS a posed frame, not the bind pose; a clip
 * that keys the hips' translation and the legs only, so that by glTF's rule its shins end above
 * and away from the detached feet) onto itself likewise; game_kick (a swinging foot's mesh through
 * the floor, its joints above it) onto itself likewise. */
#include "../plugin/retarget_test.h"

#include <rigkit/skin.h>

/* game_posed's first frame as the tests mean it: its left shin ends at least 40 mm above its
 * detached foot. */
static void assert_shin_above_foot(rk_asset *a) {
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
}

/* game_posed's clip retargeted by the CLI onto target (a tests/data name) into a new temporary
 * *dir: its report entry (*parser holds it: the caller unrefs it). */
static JsonObject *posed_onto(const char *target, char **dir, JsonParser **parser) {
  *dir = rt_tmpdir();
  static const char *const clip[] = {"generated/game_posed.glb", NULL};
  *parser = rt_run_report(*dir, *dir, target, NULL, clip, 0, NULL);
  return rt_clip(json_node_get_object(json_parser_get_root(*parser)), 0);
}

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
  assert_shin_above_foot(a);
  rk_asset_free(a);
  g_autofree char *dir = NULL;
  JsonParser *parser = NULL;
  JsonObject *c = posed_onto("generated/game_posed.glb", &dir, &parser);
  cr_assert_str_eq(rt_str(c, "verdict"), "clean");
  cr_assert_eq(rt_num(c, "ground_offset_mm", NULL), 0.0);
  cr_assert_leq(rt_num(c, "pose_error_mm", "max"), 1.0);
  g_object_unref(parser);
  rt_rmtree(dir);
}

/* As a source: a rig whose feet are detached parts (a game rig's foot meshes under root-level IK controls)
 * retargeted onto a character whose feet hang from its legs: the target's feet stand where the
 * source's visible feet stand. game_posed's clip keys the hips' translation and the legs only, so
 * by glTF's rule its shins end 54 mm above (and away from) its feet, which stand on the floor the
 * whole clip; onto game_soldier its contacts are those feet's and the soldier's feet are planted
 * on the floor. The contacts were looked for at the floating shins (none found) and the soldier
 * stood with its legs swung back, its feet 43 mm above the floor at every frame, while the report
 * said clean. */
/* The lowest point (y, metres) of the skinned mesh of joint `name` and the joints below it, over
 * every frame of asset a's first clip: the lowest and the highest of those per-frame lows. */
static void foot_lows(rk_asset *a, const char *name, double *lo, double *hi) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  const int foot = rk_skeleton_find_joint(s, name);
  cr_assert_geq(foot, 0, "no joint %s", name);
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_skin_support) skin = rk_skin_support_from_asset(a, &e);
  cr_assert_not_null(skin, "%s", e ? e->message : "");
  const rk_clip *clip = rk_asset_clip(a, 0);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  const double fps = 30.0, duration = rk_clip_duration(clip);
  *lo = INFINITY, *hi = -INFINITY;
  for (size_t f = 0; (double)f / fps <= duration + 1e-9; f++) {
    rk_clip_sample(clip, rk_skeleton_rest_locals(s), (double)f / fps, locals, n);
    rk_fk_models(s, locals, models);
    rk_skin_point p;
    cr_assert(rk_skin_lowest_subtree(skin, models, foot, &p), "%s has no mesh", name);
    *lo = fmin(*lo, p.position.y);
    *hi = fmax(*hi, p.position.y);
  }
}

Test(game_identity, as_a_source_a_game_rig_with_floating_shins_plants_the_soldiers_feet_where_its_own_stand) {
  /* The source as the test means it: its detached feet on the floor, its shins ending above. */
  g_autofree char *file = rt_data("generated/game_posed.glb");
  g_autoptr(GError) e = NULL;
  rk_asset *a = rk_import_file(file, NULL, &e);
  cr_assert_not_null(a, "%s", e ? e->message : "");
  double lo, hi;
  foot_lows(a, "Foot.L", &lo, &hi);
  cr_assert(fabs(lo) <= 0.001 && fabs(hi) <= 0.001, "the source's foot stands %.1f..%.1f mm above the floor",
            1000 * lo, 1000 * hi);
  assert_shin_above_foot(a);
  rk_asset_free(a);

  g_autofree char *dir = NULL;
  JsonParser *parser = NULL;
  JsonObject *c = posed_onto("generated/game_soldier.glb", &dir, &parser);
  /* Contacts found at the source's feet (they stand still the whole clip), the planted feet's
   * mesh on the floor, and a verdict that says what the picture shows. */
  const double frames = rt_num(c, "frames", NULL);
  cr_assert_eq(rt_num(c, "contact_frames", NULL), frames, "planted at %.0f of %.0f frames",
               rt_num(c, "contact_frames", NULL), frames);
  rt_planted planted = rt_planted_of(c);
  rt_assert_planted(planted, "game_posed", "game_soldier", -3.0);
  cr_assert_leq(fabs(planted.median), 3.0, "planted feet %.2f mm above the floor", planted.median);
  cr_assert_eq(rt_num(c, "unreachable_frames", NULL), 0.0);
  cr_assert_str_eq(rt_str(c, "verdict"), "clean");
  g_object_unref(parser);

  /* The written output measured on its own: both feet's meshes on the floor at every frame. */
  g_autofree char *out = g_build_filename(dir, "game_posed.glb", NULL);
  rk_asset *o = rt_read_output(out);
  for (int side = 0; side < 2; side++) {
    foot_lows(o, side ? "Foot.R" : "Foot.L", &lo, &hi);
    cr_assert(lo >= -0.003 && hi <= 0.003, "side %d: the soldier's foot stands %.1f..%.1f mm above the floor",
              side, 1000 * lo, 1000 * hi);
  }
  rk_asset_free(o);
  rt_rmtree(dir);
}

/* game_kick's clip swings the right foot back and pitches its toes down: the foot block's edge
 * goes 54 mm through the floor while every joint stays 0.13 m above it (the source's own mesh,
 * no contact there, as a game character's big feet dip through the floor as they swing). Onto
 * itself the clip comes back unchanged: clean, no ground offset, every joint within 1 mm, and
 * the body measured no deeper than the source's own. The source's depth was taken from its
 * joints only: the swinging foot's mesh was lifted out of the floor, the knee bent to carry it
 * (pose error 326 mm, body 77.2 mm through "beyond the source's own", failed). */
Test(game_identity, a_foot_the_clip_swings_through_the_floor_comes_back_unchanged) {
  g_autofree char *dir = rt_tmpdir();
  static const char *const kick[] = {"generated/game_kick.glb", NULL};
  JsonParser *parser = rt_run_report(dir, dir, "generated/game_kick.glb", NULL, kick, 0, NULL);
  JsonObject *c = rt_clip(json_node_get_object(json_parser_get_root(parser)), 0);
  cr_assert_str_eq(rt_str(c, "verdict"), "clean");
  cr_assert_eq(rt_num(c, "ground_offset_mm", NULL), 0.0);
  cr_assert_leq(rt_num(c, "pose_error_mm", "max"), 1.0);
  cr_assert_leq(rt_num(c, "floor_penetration_mm", NULL), 1.0);
  g_object_unref(parser);
  rt_rmtree(dir);
}
