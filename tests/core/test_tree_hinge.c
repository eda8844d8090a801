/* Kinematic trees from motion: hinge and line fits, static joints, Euler order choice, limits. */
#include "tree_fixtures.h"

/* Angle between two axes up to sign. */
static double axis_angle_between(rk_vec3 a, rk_vec3 b) {
  return acos(fmin(1.0, fabs(rk_vec3_dot(rk_vec3_normalize(a), rk_vec3_normalize(b)))));
}

Test(tree_hinge, walk_makes_knees_and_elbows_revolute_with_the_true_axes) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_clip) walk = fx_walk(s, 0.0);
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, walk, NULL);
  const char *knees[] = {"LoLeg_L", "LoLeg_R"}, *elbows[] = {"LoArm_L", "LoArm_R"};
  for (int i = 0; i < 2; i++) {
    const rk_joint *k = rk_test_joint_named(t, knees[i]), *e = rk_test_joint_named(t, elbows[i]);
    cr_assert_eq(k->type, RK_JOINT_REVOLUTE, "%s", knees[i]);
    cr_assert_eq(k->origin, RK_ORIGIN_HINGE_FIT);
    cr_assert_lt(axis_angle_between(k->axis, rk_vec3_make(1, 0, 0)), 1e-6);
    cr_assert_lt(k->fit_residual_max, 1e-6);
    rk_assert_near(k->fit_range, 1.0, 0.02); /* 0.55 +- 0.5 rad over the cycle */
    cr_assert_eq(e->type, RK_JOINT_REVOLUTE, "%s", elbows[i]);
    cr_assert_lt(axis_angle_between(e->axis, fx_elbow_axis()), 1e-6);
  }
  /* Hips, ankles and shoulders move about three axes: balls, with large fit residuals. */
  const char *balls[] = {"UpLeg_L", "Foot_R", "UpArm_L", "Spine"};
  for (size_t i = 0; i < G_N_ELEMENTS(balls); i++) {
    const rk_joint *b = rk_test_joint_named(t, balls[i]);
    cr_assert_eq(b->type, RK_JOINT_BALL, "%s", balls[i]);
    cr_assert(b->fit_tested);
    cr_assert_gt(b->fit_residual_max, 3.0 * RK_DEG, "%s", balls[i]);
  }
  cr_assert_eq(rk_tree_dof_count(t), 66 - 4 * 2);
  /* The knees' hinge passes through the rest (identity): zero = rest, q_rest = 0. */
  double q[58];
  rk_tree_q_rest(t, q);
  for (size_t k = 0; k < 58; k++)
    rk_assert_near(q[k], 0, 1e-9);
  /* Every frame of the clip is reproduced exactly (the hinges are exact). */
  rk_transform locals[26], back[26];
  for (size_t f = 0; f < 31; f++) {
    rk_clip_sample_frame(walk, rk_skeleton_rest_locals(s), 30.0, f, locals, 26);
    double res;
    rk_tree_q_from_locals(t, locals, NULL, q, &res);
    cr_assert_lt(res, 1e-9, "frame %zu residual %g", f, res);
    rk_tree_q_to_locals(t, q, back);
    for (size_t j = 0; j < 26; j++)
      rk_assert_quat_near(back[j].r, locals[j].r, 1e-9);
  }
}

Test(tree_hinge, noisy_hinges_report_their_residual_and_respect_the_tolerance) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_clip) walk = fx_walk(s, 1.0 * RK_DEG);
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, walk, NULL);
  const rk_joint *k = rk_test_joint_named(t, "LoLeg_L");
  cr_assert_eq(k->type, RK_JOINT_REVOLUTE);
  cr_assert_gt(k->fit_residual_max, 0.3 * RK_DEG);
  /* The noise is 1 degree about random axes; its swing part plus the slight tilt of the fitted
   * axis stays near 1 degree. */
  cr_assert_leq(k->fit_residual_max, 1.5 * RK_DEG, "%g deg", k->fit_residual_max / RK_DEG);
  cr_assert_leq(k->fit_residual_rms, k->fit_residual_max);
  cr_assert_lt(axis_angle_between(k->axis, rk_vec3_make(1, 0, 0)), 1.0 * RK_DEG);
  /* A tighter tolerance rejects the same joint. */
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.hinge_tolerance = 0.2 * RK_DEG;
  g_autoptr(rk_tree) strict = rk_test_tree_or_fail(s, walk, &o);
  cr_assert_eq(rk_test_joint_named(strict, "LoLeg_L")->type, RK_JOINT_BALL);
  cr_assert_gt(rk_test_joint_named(strict, "LoLeg_L")->fit_residual_max, 0.2 * RK_DEG);
  /* Detection can be switched off. */
  o = (rk_tree_options)RK_TREE_OPTIONS_INIT;
  o.detect_hinges = false;
  g_autoptr(rk_tree) off = rk_test_tree_or_fail(s, walk, &o);
  cr_assert_eq(rk_test_joint_named(off, "LoLeg_L")->type, RK_JOINT_BALL);
}

/* One hinge joint whose clip rotations are C exp(theta a) with an offset C off the rest. */
static rk_skeleton *two_bone(void) {
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  int r = fx_add(b, "root", -1, fx_at(0, 0, 0), 0);
  rk_transform jt = fx_at(0, -0.4, 0);
  jt.r = rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), 0.3); /* a rest rotation */
  int k = rk_skeleton_builder_add_joint(b, "knee", r, &jt, 0);
  fx_add(b, "foot", k, fx_at(0, -0.4, 0), RK_SKELETON_END_SITE);
  return fx_build(b);
}

static rk_clip *hinge_clip(const rk_skeleton *s, rk_quat rest, rk_quat offset, rk_vec3 axis,
                           double lo, double hi, size_t frames) {
  rk_clip *c = rk_clip_new("hinge", rk_skeleton_joint_count(s));
  rk_clip_set_fps(c, 30.0);
  double *times = g_new(double, frames), *rot = g_new(double, frames * 4);
  for (size_t f = 0; f < frames; f++) {
    times[f] = (double)f / 30.0;
    double th = lo + (hi - lo) * (0.5 - 0.5 * cos(2 * RK_PI * (double)f / (double)(frames - 1)));
    rk_quat q = rk_quat_mul(rest, rk_quat_mul(offset, rk_quat_from_axis_angle(axis, th)));
    rot[f * 4] = q.x, rot[f * 4 + 1] = q.y, rot[f * 4 + 2] = q.z, rot[f * 4 + 3] = q.w;
  }
  rk_track tr = {1, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, frames, times, rot};
  cr_assert(rk_clip_add_track(c, &tr, NULL));
  g_free(times);
  g_free(rot);
  return c;
}

Test(tree_hinge, hinge_off_the_rest_gets_a_zero_pose_on_the_hinge) {
  g_autoptr(rk_skeleton) s = two_bone();
  const rk_quat rest = rk_skeleton_rest(s, 1)->r;
  const rk_vec3 axis = rk_vec3_normalize(rk_vec3_make(0.3, -0.2, 1.0));
  const rk_quat offset = rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), 0.2);
  g_autoptr(rk_clip) c = hinge_clip(s, rest, offset, axis, 0.1, 1.4, 41);
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, c, NULL);
  const rk_joint *k = rk_tree_joint(t, 1);
  cr_assert_eq(k->type, RK_JOINT_REVOLUTE);
  cr_assert_lt(k->fit_residual_max, 1e-9);
  rk_assert_near(k->fit_range, 1.3, 1e-9);
  /* The clip's axis in the joint frame is axis; the joint frame at zero is rest*offset*exp(..),
   * so the fitted axis is `axis` itself (right-multiplied rotations keep it). */
  cr_assert_lt(axis_angle_between(k->axis, axis), 1e-9);
  /* The rest is 0.2 rad off the hinge: q_rest is not zero and the zero pose is on the hinge, at
   * the hinge rotation nearest the rest. */
  cr_assert_gt(rk_quat_angle_between(k->zero.r, rest), 0.05);
  double q[7];
  rk_tree_q_rest(t, q);
  /* Every frame is exactly expressible. */
  rk_transform locals[3], back[3];
  for (size_t f = 0; f < 41; f++) {
    rk_clip_sample_frame(c, rk_skeleton_rest_locals(s), 30.0, f, locals, 3);
    double res;
    rk_tree_q_from_locals(t, locals, NULL, q, &res);
    cr_assert_lt(res, 1e-9);
    rk_tree_q_to_locals(t, q, back);
    rk_assert_quat_near(back[1].r, locals[1].r, 1e-9);
    cr_assert_geq(q[6], -1e-9, "the axis is oriented so that the clip's angles are positive");
  }
}

Test(tree_hinge, small_motion_proves_nothing) {
  g_autoptr(rk_skeleton) s = two_bone();
  const rk_quat rest = rk_skeleton_rest(s, 1)->r;
  g_autoptr(rk_clip) c =
      hinge_clip(s, rest, rk_quat_identity(), rk_vec3_make(1, 0, 0), 0, 0.05, 20);
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, c, NULL);
  cr_assert_eq(rk_tree_joint(t, 1)->type, RK_JOINT_BALL,
               "3 degrees of motion is below hinge_min_range");
  cr_assert_lt(rk_tree_joint(t, 1)->fit_residual_max, 1e-9);
}

Test(tree_hinge, static_joints_fixed_only_when_asked_and_lines_become_prismatic) {
  rk_skeleton_builder *b = rk_skeleton_builder_new();
  int r = fx_add(b, "root", -1, fx_at(0, 0, 0), 0);
  int slide = fx_add(b, "slide", r, fx_at(0, 0.5, 0), 0);
  fx_add(b, "still", slide, fx_at(0.2, 0, 0), 0);
  g_autoptr(rk_skeleton) s = fx_build(b);
  g_autoptr(rk_clip) c = rk_clip_new("slide", 3);
  rk_clip_set_fps(c, 10);
  double times[11], pos[33];
  const rk_vec3 dir = rk_vec3_normalize(rk_vec3_make(1, 2, 0.5));
  for (int f = 0; f <= 10; f++) {
    times[f] = f / 10.0;
    rk_vec3 p = rk_vec3_add(rk_vec3_make(0, 0.5, 0), rk_vec3_scale(dir, 0.03 * f));
    pos[f * 3] = p.x, pos[f * 3 + 1] = p.y, pos[f * 3 + 2] = p.z;
  }
  rk_track tr = {1, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, 11, times, pos};
  cr_assert(rk_clip_add_track(c, &tr, NULL));
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, c, NULL);
  const rk_joint *sl = rk_tree_joint(t, 1);
  cr_assert_eq(sl->type, RK_JOINT_PRISMATIC);
  cr_assert_eq(sl->origin, RK_ORIGIN_LINE_FIT);
  rk_assert_vec3_near(sl->axis, dir, 1e-9);
  rk_assert_vec3_near(sl->zero.t, rk_vec3_make(0, 0.5, 0), 1e-9);
  cr_assert_eq(rk_tree_joint(t, 2)->type, RK_JOINT_BALL, "static but fix_static is off");
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.fix_static = true;
  o.limits_from_clip = true;
  g_autoptr(rk_tree) f = rk_test_tree_or_fail(s, c, &o);
  cr_assert_eq(rk_tree_joint(f, 2)->type, RK_JOINT_FIXED);
  cr_assert_eq(rk_tree_joint(f, 2)->origin, RK_ORIGIN_STATIC);
  /* Limits from the clip: 0 .. 0.3 m along the axis, widened by 10 degrees x 0.5 m. */
  const rk_dof *d = rk_tree_dof(f, 6);
  cr_assert_eq(d->kind, RK_DOF_TRANSLATION);
  rk_assert_near(d->lower, 0.0 - 0.5 * 10 * RK_DEG, 1e-9);
  rk_assert_near(d->upper, 0.3 + 0.5 * 10 * RK_DEG, 1e-9);
}

Test(tree_hinge, limits_from_the_clip_cover_every_frame_with_the_margin) {
  g_autoptr(rk_skeleton) s = fx_humanoid();
  g_autoptr(rk_clip) walk = fx_walk(s, 0.0);
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.limits_from_clip = true;
  o.limit_margin = 0.1;
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, walk, &o);
  const rk_joint *k = rk_test_joint_named(t, "LoLeg_L");
  const rk_dof *kd = rk_tree_dof(t, (size_t)k->dof_offset);
  double lo = INFINITY, hi = -INFINITY; /* the knee angle on the clip's frames */
  for (int f = 0; f <= 30; f++) {
    lo = fmin(lo, 0.55 + 0.5 * sin(2 * RK_PI * f / 30.0));
    hi = fmax(hi, 0.55 + 0.5 * sin(2 * RK_PI * f / 30.0));
  }
  rk_assert_near(kd->lower, lo - 0.1, 1e-9);
  rk_assert_near(kd->upper, hi + 0.1, 1e-9);
  cr_assert(isinf(rk_tree_dof(t, 0)->upper), "the free root stays unbounded");
  double q[58], prev[58];
  rk_transform locals[26];
  for (size_t f = 0; f < 31; f++) {
    rk_clip_sample_frame(walk, rk_skeleton_rest_locals(s), 30.0, f, locals, 26);
    rk_tree_q_from_locals(t, locals, f ? prev : NULL, q, NULL);
    cr_assert(rk_tree_q_within_limits(t, q, 0), "frame %zu", f);
    memcpy(prev, q, sizeof q);
  }
}

Test(tree_hinge, euler_order_moves_away_from_lock_when_the_clip_goes_there) {
  /* A joint that swings 85 degrees about its first twist-last axis pair would sit near lock in
   * the heuristic order; the clip makes rigkit pick an order whose middle angle stays small. */
  g_autoptr(rk_skeleton) s = two_bone();
  const rk_quat rest = rk_skeleton_rest(s, 1)->r;
  g_autoptr(rk_tree) t0 = rk_test_tree_or_fail(s, NULL, NULL);
  rk_euler_order h = rk_tree_joint(t0, 1)->order;
  int ax[3];
  rk_euler_order_axes(h, ax);
  rk_vec3 middle = ax[1] == 0   ? rk_vec3_make(1, 0, 0)
                   : ax[1] == 1 ? rk_vec3_make(0, 1, 0)
                                : rk_vec3_make(0, 0, 1);
  rk_vec3 other = ax[0] == 0   ? rk_vec3_make(1, 0, 0)
                  : ax[0] == 1 ? rk_vec3_make(0, 1, 0)
                               : rk_vec3_make(0, 0, 1);
  /* Motion: 85 degrees about the heuristic's middle axis, plus a wobble about the first so it
   * is no hinge. */
  const size_t frames = 30;
  g_autoptr(rk_clip) c = rk_clip_new("lock", 3);
  rk_clip_set_fps(c, 30);
  double times[30], rot[120];
  for (size_t f = 0; f < frames; f++) {
    times[f] = f / 30.0;
    double u = (double)f / (double)(frames - 1);
    rk_quat q = rk_quat_mul(rest, rk_quat_mul(rk_quat_from_axis_angle(other, 0.5 * sin(6 * u)),
                                              rk_quat_from_axis_angle(middle, 85 * RK_DEG * u)));
    rot[f * 4] = q.x, rot[f * 4 + 1] = q.y, rot[f * 4 + 2] = q.z, rot[f * 4 + 3] = q.w;
  }
  rk_track tr = {1, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, frames, times, rot};
  cr_assert(rk_clip_add_track(c, &tr, NULL));
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, c, NULL);
  const rk_joint *j = rk_tree_joint(t, 1);
  cr_assert_eq(j->type, RK_JOINT_BALL);
  cr_assert_neq(j->order, h);
  /* Its middle angle stays well away from 90 degrees on every frame. */
  double q[9];
  rk_transform locals[3];
  for (size_t f = 0; f < frames; f++) {
    rk_clip_sample_frame(c, rk_skeleton_rest_locals(s), 30.0, f, locals, 3);
    rk_tree_q_from_locals(t, locals, NULL, q, NULL);
    cr_assert_lt(fabs(q[j->dof_offset + 1]), 60 * RK_DEG);
  }
}

Test(tree_hinge, two_keys_prove_nothing_and_wobble_relative_to_range_rejects) {
  g_autoptr(rk_skeleton) s = two_bone();
  const rk_quat rest = rk_skeleton_rest(s, 1)->r;
  /* Two keys 40 degrees apart about a tilted axis: slerp makes a perfect single-axis motion, which
   * is no evidence of a hinge. */
  g_autoptr(rk_clip) two = rk_clip_new("two", 3);
  rk_clip_set_fps(two, 30);
  const double t2k[2] = {0, 1};
  rk_quat k1 = rk_quat_mul(rest, rk_quat_from_axis_angle(rk_vec3_make(1, 1, 0), 0.7));
  const double r2k[8] = {rest.x, rest.y, rest.z, rest.w, k1.x, k1.y, k1.z, k1.w};
  rk_track tk = {1, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 2, t2k, r2k};
  cr_assert(rk_clip_add_track(two, &tk, NULL));
  g_autoptr(rk_tree) t2 = rk_test_tree_or_fail(s, two, NULL);
  const rk_joint *j = rk_tree_joint(t2, 1);
  cr_assert_eq(j->fit_keys, 2);
  cr_assert_lt(j->fit_residual_max, 1e-9);
  cr_assert_eq(j->type, RK_JOINT_BALL);
  /* Many keys: a 12 degree sway with 2.5 degrees of wobble is within the absolute tolerance but
   * not within 10% of its range. */
  const size_t frames = 41;
  g_autoptr(rk_clip) c = rk_clip_new("sway", 3);
  rk_clip_set_fps(c, 30);
  double times[41], rot[164];
  for (size_t f = 0; f < frames; f++) {
    times[f] = f / 30.0;
    const double u = 2 * RK_PI * (double)f / 40.0;
    rk_quat q = rk_quat_mul(
        rest,
        rk_quat_mul(rk_quat_from_axis_angle(rk_vec3_make(1, 0, 0), 6 * RK_DEG * sin(u)),
                    rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), 2.5 * RK_DEG * sin(3 * u))));
    rot[f * 4] = q.x, rot[f * 4 + 1] = q.y, rot[f * 4 + 2] = q.z, rot[f * 4 + 3] = q.w;
  }
  rk_track tr = {1, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, frames, times, rot};
  cr_assert(rk_clip_add_track(c, &tr, NULL));
  g_autoptr(rk_tree) t = rk_test_tree_or_fail(s, c, NULL);
  j = rk_tree_joint(t, 1);
  cr_assert_eq(j->fit_keys, 3);
  cr_assert_lt(j->fit_residual_max, 3 * RK_DEG);
  cr_assert_gt(j->fit_range, 10 * RK_DEG);
  cr_assert_eq(j->type, RK_JOINT_BALL);
  rk_tree_options o = RK_TREE_OPTIONS_INIT;
  o.hinge_relative_tolerance = 0.5;
  g_autoptr(rk_tree) loose = rk_test_tree_or_fail(s, c, &o);
  cr_assert_eq(rk_tree_joint(loose, 1)->type, RK_JOINT_REVOLUTE);
}
