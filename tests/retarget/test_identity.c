/* A clip retargeted onto a character built on its own skeleton comes back unchanged: every clip
 * of tests/data/generated onto the characters Blender built on those skeletons (other bone axes
 * and rolls, centimetres and Z up, FBX), every joint at every frame within 1 mm of the source
 * (after the one ground offset the result reports; exactly with ground = keep). */
#include "../plugin/retarget_test.h"

typedef struct identity {
  rk_asset *src, *tgt;
  rk_retargeter *rt;
  rk_retarget_result *res;
} identity;

static void identity_clear(identity *x) {
  rk_retarget_result_free(x->res);
  rk_retargeter_free(x->rt);
  rk_asset_free(x->src);
  rk_asset_free(x->tgt);
}

/* Reads generated/<clip> (CMU-style clips in CMU's unit; a clip named with its folder is read
 * from tests/data) and generated/<target>, maps both and retargets the clip with opts. */
static identity run_identity(const char *clip, const char *target, const rk_retarget_options *opts) {
  identity x = {0};
  g_autofree char *cpath = strchr(clip, '/') ? g_strdup(clip + 1) : g_build_filename("generated", clip, NULL);
  g_autofree char *tpath = g_build_filename("generated", target, NULL);
  g_autofree char *cfile = rt_data(cpath), *tfile = rt_data(tpath);
  rk_import_options io = RK_IMPORT_OPTIONS_INIT;
  if (g_str_has_prefix(clip, "cmu_"))
    io.unit_scale = 0.0254 / 0.45;
  g_autoptr(GError) e = NULL;
  x.src = rk_import_file(cfile, &io, &e);
  cr_assert_not_null(x.src, "%s: %s", cfile, e ? e->message : "");
  x.tgt = rk_import_file(tfile, NULL, &e);
  cr_assert_not_null(x.tgt, "%s: %s", tfile, e ? e->message : "");
  rk_humanoid_map sm, tm;
  cr_assert(rk_humanoid_map_build(rk_asset_skeleton(x.src), NULL, &sm, &e), "%s", e ? e->message : "");
  cr_assert(rk_humanoid_map_build(rk_asset_skeleton(x.tgt), NULL, &tm, &e), "%s", e ? e->message : "");
  x.rt = rk_retargeter_new_onto(rk_asset_skeleton(x.src), &sm, x.tgt, &tm, &e);
  cr_assert_not_null(x.rt, "%s", e ? e->message : "");
  x.res = rk_retargeter_run(x.rt, rk_asset_clip(x.src, 0), opts, &e);
  cr_assert_not_null(x.res, "%s", e ? e->message : "");
  return x;
}

/* Every target joint has its namesake as counterpart. */
static void check_correspondence(const identity *x) {
  const rk_skeleton *ts = rk_asset_skeleton(x->tgt), *ss = rk_asset_skeleton(x->src);
  for (size_t j = 0; j < rk_skeleton_joint_count(ts); j++) {
    const int s = rk_retargeter_counterpart(x->rt, j);
    cr_assert_geq(s, 0, "target joint %s has no counterpart", rk_skeleton_joint_name(ts, j));
    cr_assert_str_eq(rk_skeleton_joint_name(ss, (size_t)s), rk_skeleton_joint_name(ts, j));
  }
}

/* Which target joints an error is taken over. */
typedef enum joints { ALL, LEGS, BODY } joints;

/* Largest distance (m) of the target joints `which` (the legs: at or below the thighs; the body:
 * the others), lowered by the ground offset, from their counterparts in the source, over every
 * frame of the result, with the joint and frame where it is. */
static double worst_error(const identity *x, joints which, size_t *worst_joint, size_t *worst_frame) {
  const rk_skeleton *ts = rk_asset_skeleton(x->tgt), *ss = rk_asset_skeleton(x->src);
  const rk_clip *sc = rk_asset_clip(x->src, 0), *tc = rk_retarget_result_clip(x->res);
  const size_t nt = rk_skeleton_joint_count(ts), ns = rk_skeleton_joint_count(ss);
  const int thighs[2] = {rk_skeleton_find_joint(ts, "LeftUpLeg"), rk_skeleton_find_joint(ts, "RightUpLeg")};
  g_autofree rk_transform *tl = g_new(rk_transform, nt), *sl = g_new(rk_transform, ns);
  g_autofree rk_mat4 *tmod = g_new(rk_mat4, nt), *smod = g_new(rk_mat4, ns);
  const double fps = rk_retarget_result_fps(x->res), lift = rk_retarget_result_ground_offset(x->res);
  double worst = 0;
  for (size_t f = 0; f < rk_retarget_result_frames(x->res); f++) {
    rk_clip_sample_frame(tc, rk_skeleton_rest_locals(ts), fps, f, tl, nt);
    rk_fk_models(ts, tl, tmod);
    rk_clip_sample(sc, rk_skeleton_rest_locals(ss), fmin((double)f / fps, rk_clip_duration(sc)), sl, ns);
    rk_fk_models(ss, sl, smod);
    for (size_t j = 0; j < nt; j++) {
      const bool leg = (thighs[0] >= 0 && rk_skeleton_is_ancestor(ts, (size_t)thighs[0], j)) ||
                       (thighs[1] >= 0 && rk_skeleton_is_ancestor(ts, (size_t)thighs[1], j));
      if ((which == LEGS && !leg) || (which == BODY && leg))
        continue;
      rk_vec3 p = rk_mat4_get_translation(&tmod[j]);
      p.y -= lift;
      const rk_vec3 q = rk_mat4_get_translation(&smod[rk_retargeter_counterpart(x->rt, j)]);
      const double d = rk_vec3_norm(rk_vec3_sub(p, q));
      if (d > worst) {
        worst = d;
        *worst_joint = j;
        *worst_frame = f;
      }
    }
  }
  return worst;
}

/* The clip onto the character without IK: within 1 mm after the ground offset (which stands the
 * character's soles where the clip's are: about none for these rigs); with ground = keep, no
 * offset and the same joints to within the characters' own precision (Blender wrote their rests
 * in single precision: 0.0005 mm, tests/data/generated/README.md). */
static void check_identity(const char *clip, const char *target) {
  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  o.foot_ik = false;
  identity x = run_identity(clip, target, &o);
  check_correspondence(&x);
  size_t j = 0, f = 0;
  const double err = worst_error(&x, ALL, &j, &f);
  const double lift = rk_retarget_result_ground_offset(x.res);
  cr_assert_leq(err, 0.001, "%s onto %s: joint %s is %.3f mm off at frame %zu", clip, target,
                rk_skeleton_joint_name(rk_asset_skeleton(x.tgt), j), 1000 * err, f);
  cr_assert_leq(fabs(lift), 0.005, "%s onto %s: ground offset %.3f mm", clip, target, 1000 * lift);
  identity_clear(&x);
  o.ground = RK_RETARGET_GROUND_KEEP;
  x = run_identity(clip, target, &o);
  cr_assert_eq(rk_retarget_result_ground_offset(x.res), 0.0);
  const double kept = worst_error(&x, ALL, &j, &f);
  cr_assert_leq(kept, 1e-5, "%s onto %s with ground = keep: joint %s is %.6f mm off at frame %zu",
                clip, target, rk_skeleton_joint_name(rk_asset_skeleton(x.tgt), j), 1000 * kept, f);
  identity_clear(&x);
}

static const char *const cmu_clips[] = {"cmu_walk.bvh", "cmu_hop.bvh", "cmu_turn.bvh",
                                        "cmu_floor.bvh", "cmu_shuffle.bvh"};

Test(identity, cmu_clips_onto_the_blender_glb_character) {
  for (size_t i = 0; i < G_N_ELEMENTS(cmu_clips); i++)
    check_identity(cmu_clips[i], "cmu_char.glb");
}

Test(identity, cmu_clips_onto_the_blender_fbx_character) {
  for (size_t i = 0; i < G_N_ELEMENTS(cmu_clips); i++)
    check_identity(cmu_clips[i], "cmu_char.fbx");
}

Test(identity, cmu_clips_onto_the_z_up_centimetre_character) {
  for (size_t i = 0; i < G_N_ELEMENTS(cmu_clips); i++)
    check_identity(cmu_clips[i], "cmu_char_zup_cm.glb");
}

Test(identity, makehuman_clips_onto_the_blender_characters) {
  static const char *const clips[] = {"mh_walk.bvh", "mh_floor.bvh"};
  for (size_t i = 0; i < G_N_ELEMENTS(clips); i++) {
    check_identity(clips[i], "mh_char.glb");
    check_identity(clips[i], "mh_char.fbx");
  }
}

/* MakeHuman's own walk (the skeleton of mh_char, its clip's soles above its floor: one ground
 * offset moves the whole clip, never a joint against another). */
Test(identity, the_makehuman_walk_onto_the_makehuman_character) {
  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  o.foot_ik = false;
  identity x = run_identity("/makehuman_walk1.bvh", "mh_char.glb", &o);
  check_correspondence(&x);
  size_t j = 0, f = 0;
  const double err = worst_error(&x, ALL, &j, &f);
  cr_assert_leq(err, 0.001, "joint %s is %.3f mm off at frame %zu",
                rk_skeleton_joint_name(rk_asset_skeleton(x.tgt), j), 1000 * err, f);
  identity_clear(&x);
}

/* The written outputs too, measured by the report on what was written and read back. */
Test(identity, written_outputs_report_the_identity_error) {
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *report = g_build_filename(dir, "r.json", NULL);
  g_autofree char *walk = rt_data("generated/cmu_walk.bvh"), *hop = rt_data("generated/cmu_hop.bvh");
  static const char *const targets[] = {"generated/cmu_char.glb", "generated/cmu_char.fbx",
                                        "generated/cmu_char_zup_cm.glb"};
  for (size_t t = 0; t < G_N_ELEMENTS(targets); t++) {
    g_autofree char *target = rt_data(targets[t]);
    const char *args[] = {"retarget", "--target", target, "--unit", "cmu", "--no-ik", "--out-dir",
                          dir, "--report", report, "--no-progress", walk, hop, NULL};
    cli_run r = rt_cli(NULL, args);
    cr_assert_eq(r.code, 0, "%s", r.err);
    rt_cli_clear(&r);
    JsonParser *parser = NULL;
    JsonObject *rep = rt_json(report, &parser);
    for (guint i = 0; i < 2; i++) {
      JsonObject *c = rt_clip(rep, i);
      cr_assert_leq(rt_num(c, "pose_error_mm", "max"), 1.0, "%s onto %s", rt_str(c, "clip"),
                    targets[t]);
      cr_assert_leq(fabs(rt_num(c, "ground_offset_mm", NULL)), 2.0);
    }
    g_object_unref(parser);
  }
  rt_rmtree(dir);
}

/* --ground keep: no offset, said in the report; a wrong word is a usage error. */
Test(identity, ground_keep_on_the_command_line) {
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *report = g_build_filename(dir, "r.json", NULL);
  g_autofree char *walk = rt_data("makehuman_walk1.bvh"), *target = rt_data("generated/mh_char.glb");
  const char *args[] = {"retarget", "--target", target, "--ground", "keep", "--out-dir", dir,
                        "--report", report, "--no-progress", walk, NULL};
  cli_run r = rt_cli(NULL, args);
  cr_assert_eq(r.code, 0, "%s", r.err);
  rt_cli_clear(&r);
  JsonParser *parser = NULL;
  JsonObject *rep = rt_json(report, &parser);
  cr_assert_eq(rt_num(rt_clip(rep, 0), "ground_offset_mm", NULL), 0.0);
  JsonObject *opts = json_object_get_object_member(rep, "options");
  cr_assert_str_eq(rt_str(opts, "ground"), "keep");
  g_object_unref(parser);
  const char *bad[] = {"retarget", "--target", target, "--ground", "floor", "--out-dir", dir, walk, NULL};
  r = rt_cli(NULL, bad);
  cr_assert_eq(r.code, 2);
  cr_assert(strstr(r.err, "--ground must be auto or keep, not 'floor'"), "%s", r.err);
  rt_cli_clear(&r);
  rt_rmtree(dir);
}

/* With foot IK the pins hold at the source's own places: the body above the legs unchanged, the
 * legs moved only where a pin straightens a contact's first or last frames (the source's points
 * start and stop moving there), and nothing out of reach. The floor clip's kneeling knees go
 * through the floor by the character's own box thickness: there the body is lifted, no more. */
Test(identity, with_ik_only_the_pins_and_the_floor_move_the_body) {
  for (size_t i = 0; i < G_N_ELEMENTS(cmu_clips); i++) {
    identity x = run_identity(cmu_clips[i], "cmu_char.glb", NULL);
    const rk_retarget_quality *q = rk_retarget_result_quality(x.res);
    cr_assert_leq(q->ik_goal_error_max_mm, 1.0, "%s: pins missed by %g mm", cmu_clips[i],
                  q->ik_goal_error_max_mm);
    cr_assert_eq(q->unreachable_frames, 0);
    cr_assert_eq(q->pelvis_frames, 0, "%s", cmu_clips[i]);
    const bool floor = !strcmp(cmu_clips[i], "cmu_floor.bvh");
    cr_assert_eq(q->lifted_frames > 0, floor, "%s: %zu frames lifted", cmu_clips[i], q->lifted_frames);
    size_t j = 0, f = 0;
    const double body = worst_error(&x, BODY, &j, &f), legs = worst_error(&x, LEGS, &j, &f);
    cr_assert_leq(body, floor ? 0.016 : 0.001, "%s: body %.3f mm off", cmu_clips[i], 1000 * body);
    cr_assert_leq(legs, floor ? 0.016 : 0.006, "%s: legs %.3f mm off", cmu_clips[i], 1000 * legs);
    identity_clear(&x);
  }
}
