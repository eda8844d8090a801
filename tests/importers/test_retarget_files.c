/* Retargeting the shared real files through the core API (the command line has its own suite):
 * the MakeHuman walk onto RiggedFigure, RiggedFigure's clip onto the MakeHuman rig, the Fox. */
#include "import_test.h"

#include <rigkit/retarget.h>

static rk_retarget_result *retarget(const rk_asset *src, const rk_asset *tgt, const rk_retarget_options *o) {
  rk_humanoid_map sm, tm;
  g_autoptr(GError) error = NULL;
  cr_assert(rk_humanoid_map_build(rk_asset_skeleton(src), NULL, &sm, &error), "%s", error ? error->message : "");
  cr_assert(rk_humanoid_map_build(rk_asset_skeleton(tgt), NULL, &tm, &error), "%s", error ? error->message : "");
  g_autoptr(rk_retargeter) rt = rk_retargeter_new(rk_asset_skeleton(src), &sm, rk_asset_skeleton(tgt), &tm, &error);
  cr_assert(rt, "%s", error ? error->message : "");
  rk_retarget_result *r = rk_retargeter_run(rt, rk_asset_clip(src, 0), o, &error);
  cr_assert(r, "%s", error ? error->message : "");
  return r;
}

/* Lowest joint height over every frame of a result, and no NaN anywhere. */
static double lowest_joint(const rk_skeleton *s, const rk_retarget_result *r) {
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree rk_mat4 *m = g_new(rk_mat4, n);
  double lo = INFINITY;
  for (size_t f = 0; f < rk_retarget_result_frames(r); f++) {
    cr_assert(rk_clip_sample_frame(rk_retarget_result_clip(r), rk_skeleton_rest_locals(s),
                                   rk_retarget_result_fps(r), f, locals, n));
    rk_fk_models(s, locals, m);
    for (size_t j = 0; j < n; j++) {
      cr_assert(rk_mat4_is_finite(&m[j]), "frame %zu joint %s is not finite", f, rk_skeleton_joint_name(s, j));
      lo = fmin(lo, m[j].m[13]);
    }
  }
  return lo;
}

Test(retarget_files, makehuman_walk_onto_rigged_figure) {
  g_autoptr(rk_asset) walk = import_ok("makehuman_walk1.bvh", NULL);
  g_autoptr(rk_asset) fig = import_ok("RiggedFigure.glb", NULL);
  /* In place by default: the walk is a treadmill cycle (its stance feet slide back). */
  g_autoptr(rk_retarget_result) still = retarget(walk, fig, NULL);
  bool in_place = false;
  rk_vec3 v = rk_retarget_result_ground_velocity(still, &in_place);
  cr_assert(in_place, "ground speed %g m/s", rk_vec3_norm(v));
  cr_assert_eq(rk_retarget_result_frames(still), 14);
  rk_assert_near(rk_clip_duration(rk_retarget_result_clip(still)), 13.0 / 24, 1e-9);
  /* The feet reach the ground (toes at the rig's rest toe height, within 1 cm), never sink. */
  rk_humanoid_map tm;
  cr_assert(rk_humanoid_map_build(rk_asset_skeleton(fig), NULL, &tm, NULL));
  double lo = lowest_joint(rk_asset_skeleton(fig), still);
  cr_assert(lo > tm.ground - 0.01 && lo < tm.ground + 0.01, "lowest joint %g, ground %g", lo, tm.ground);
  cr_assert_lt(rk_retarget_result_quality(still)->limb_direction_median_deg, 10);

  /* Travelling, the stance feet plant: skate and pins within a millimetre, FK-only much worse. */
  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  o.root_motion = true;
  g_autoptr(rk_retarget_result) r = retarget(walk, fig, &o);
  const rk_retarget_quality *q = rk_retarget_result_quality(r), *fk = rk_retarget_result_quality_fk(r);
  cr_assert_gt(q->contact_frames, 0);
  cr_assert_leq(q->foot_skate_max_mm, 5.0, "IK skate %g mm", q->foot_skate_max_mm);
  cr_assert_gt(fk->foot_skate_max_mm, q->foot_skate_max_mm);
  cr_assert_leq(q->ik_goal_error_max_mm, 1.0);
  cr_assert_eq(q->joint_limit_violations, 0);
  cr_assert_lt(q->limb_direction_median_deg, 10);
}

Test(retarget_files, rigged_figure_clip_onto_the_makehuman_rig) {
  g_autoptr(rk_asset) fig = import_ok("RiggedFigure.glb", NULL);
  g_autoptr(rk_asset) walk = import_ok("makehuman_walk1.bvh", NULL);
  g_autoptr(rk_retarget_result) r = retarget(fig, walk, NULL);
  rk_assert_near(rk_clip_duration(rk_retarget_result_clip(r)), rk_clip_duration(rk_asset_clip(fig, 0)), 1e-9);
  const rk_retarget_quality *q = rk_retarget_result_quality(r);
  /* RiggedFigure stands on both feet the whole clip: the loop through the ground holds. */
  cr_assert_gt(q->loop_frames, 0);
  cr_assert_leq(q->loop_closure_residual_max_mm, 1.0);
  cr_assert_leq(q->foot_skate_max_mm, 5.0);
  cr_assert_eq(q->joint_limit_violations, 0);
  rk_humanoid_map tm;
  cr_assert(rk_humanoid_map_build(rk_asset_skeleton(walk), NULL, &tm, NULL));
  double lo = lowest_joint(rk_asset_skeleton(walk), r);
  cr_assert(lo > tm.ground - 0.01 && lo < tm.ground + 0.01, "lowest joint %g, ground %g", lo, tm.ground);
}

Test(retarget_files, fox_hind_legs_with_a_map_file) {
  g_autoptr(rk_asset) walk = import_ok("makehuman_walk1.bvh", NULL);
  g_autoptr(rk_asset) fox = import_ok("Fox.glb", NULL);
  const rk_skeleton *fs = rk_asset_skeleton(fox);
  rk_humanoid_map tm;
  g_autoptr(GError) error = NULL;
  cr_assert_not(rk_humanoid_map_build(fs, NULL, &tm, &error));
  cr_assert(strstr(error->message, "quadruped"));
  fox_hind_legs_map(fs, &tm);
  rk_humanoid_map sm;
  cr_assert(rk_humanoid_map_build(rk_asset_skeleton(walk), NULL, &sm, NULL));
  g_autoptr(GError) e2 = NULL;
  g_autoptr(rk_retargeter) rt = rk_retargeter_new(rk_asset_skeleton(walk), &sm, (rk_skeleton *)fs, &tm, &e2);
  cr_assert(rt, "%s", e2 ? e2->message : "");
  cr_assert_eq(rk_retargeter_mapped_joints(rt), 9);
  g_autoptr(rk_retarget_result) r = rk_retargeter_run(rt, rk_asset_clip(walk, 0), NULL, &e2);
  cr_assert(r, "%s", e2 ? e2->message : "");
  lowest_joint(fs, r);
}
