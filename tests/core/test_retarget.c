/* Retargeting on rigs built in code: a source walk whose feet are exactly planted (made with the
 * analytic two-bone solver), retargeted onto rigs with other proportions, rest poses and facings. */
#include "rig_fixture.h"

#include <rigkit/ik.h>
#include <rigkit/retarget.h>

#define WALK_FPS 60.0
#define WALK_CYCLE 1.0  /* seconds */
#define WALK_STRIDE 0.5 /* metres per cycle */

/* World position of one ankle at time t: planted for 60% of the cycle, then a swing arc. */
static rk_vec3 ankle_goal(double t, double phase_shift, double x, double rest_y, bool in_place) {
  double c = t / WALK_CYCLE + phase_shift;
  double k = floor(c), phi = c - k;
  double z = 0.3 * WALK_STRIDE + k * WALK_STRIDE - phase_shift * WALK_STRIDE, y = rest_y;
  if (phi >= 0.6) {
    double u = (phi - 0.6) / 0.4;
    z += WALK_STRIDE * u * u * (3 - 2 * u);
    y += 0.08 * sin(RK_PI * u);
  }
  if (in_place) /* a treadmill: everything moves back by the walking speed */
    z -= WALK_STRIDE / WALK_CYCLE * t;
  return rk_vec3_make(x, y, z);
}

/* Sets the world rotation of joint j (locals[j] relative to its parent's current world). */
static void set_world_rotation(const rk_skeleton *s, rk_transform *locals, const rk_mat4 *models,
                               int j, rk_quat world) {
  int p = rk_skeleton_parent(s, (size_t)j);
  rk_quat pw = rk_quat_identity();
  if (p >= 0) {
    rk_mat3 r = rk_mat4_get_rotation(&models[p]);
    pw = rk_quat_from_mat3(&r);
  }
  locals[j].r = rk_quat_normalize(rk_quat_mul(rk_quat_conj(pw), world));
}

static rk_quat world_rotation(const rk_mat4 *m) {
  rk_mat3 r = rk_mat4_get_rotation(m);
  return rk_quat_from_mat3(&r);
}

/* A two-cycle walk on the template rig (facing +Z): hips travel (or stay, in_place), feet
 * planted exactly during stance, arms swung down from the T-pose. */
static rk_clip *make_walk(const rk_skeleton *s, bool in_place) {
  const size_t n = rk_skeleton_joint_count(s);
  const size_t frames = (size_t)(2 * WALK_CYCLE * WALK_FPS) + 1;
  const int hips = rk_skeleton_find_joint(s, "j1"), ankles[2] = {rk_skeleton_find_joint(s, "j21"), rk_skeleton_find_joint(s, "j26")};
  const int uplegs[2] = {rk_skeleton_find_joint(s, "j19"), rk_skeleton_find_joint(s, "j24")};
  const int knees[2] = {rk_skeleton_find_joint(s, "j20"), rk_skeleton_find_joint(s, "j25")};
  const int arms[2] = {rk_skeleton_find_joint(s, "j8"), rk_skeleton_find_joint(s, "j14")};
  g_autofree rk_mat4 *rest = g_new(rk_mat4, n);
  rk_skeleton_rest_models(s, rest);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  g_autofree double *times = g_new(double, frames);
  g_autofree double *hips_t = g_new(double, frames * 3);
  double *rot[8];
  const int rot_joint[8] = {uplegs[0], knees[0], ankles[0], uplegs[1], knees[1], ankles[1], arms[0], arms[1]};
  for (int r = 0; r < 8; r++)
    rot[r] = g_new(double, frames * 4);
  for (size_t f = 0; f < frames; f++) {
    const double t = (double)f / WALK_FPS;
    times[f] = t;
    memcpy(locals, rk_skeleton_rest_locals(s), n * sizeof *locals);
    locals[hips].t.y -= 0.06;
    locals[hips].t.y += 0.01 * cos(4 * RK_PI * t / WALK_CYCLE);
    if (!in_place)
      locals[hips].t.z += WALK_STRIDE / WALK_CYCLE * t;
    /* Arms swing down out of the T-pose, opposite to the legs. */
    for (int a = 0; a < 2; a++) {
      double swing = 0.3 * sin(2 * RK_PI * t / WALK_CYCLE + a * RK_PI);
      rk_quat down = rk_quat_from_axis_angle(rk_vec3_make(0, 0, a ? 1 : -1), 70 * RK_DEG);
      locals[arms[a]].r = rk_quat_mul(rk_quat_from_axis_angle(rk_vec3_make(1, 0, 0), swing), down);
    }
    for (int side = 0; side < 2; side++) {
      rk_fk_models(s, locals, models);
      rk_vec3 rest_ankle = rk_mat4_get_translation(&rest[ankles[side]]);
      rk_two_bone_job job = RK_TWO_BONE_JOB_INIT;
      job.start = rk_mat4_get_translation(&models[uplegs[side]]);
      job.mid = rk_mat4_get_translation(&models[knees[side]]);
      job.end = rk_mat4_get_translation(&models[ankles[side]]);
      job.target = ankle_goal(t, side ? 0.5 : 0.0, rest_ankle.x, rest_ankle.y, in_place);
      job.pole = rk_vec3_make(0, 0, 1);
      job.mid_axis = rk_vec3_make(1, 0, 0);
      cr_assert(rk_two_bone_run(&job));
      cr_assert(job.reached, "source walk: ankle goal out of reach at t=%g", t);
      rk_quat hip_w = rk_quat_mul(job.start_rotation, world_rotation(&models[uplegs[side]]));
      rk_quat knee_w = rk_quat_mul(rk_quat_mul(job.start_rotation, job.mid_rotation), world_rotation(&models[knees[side]]));
      rk_quat foot_w = world_rotation(&models[ankles[side]]); /* the foot stays flat */
      set_world_rotation(s, locals, models, uplegs[side], hip_w);
      rk_fk_models(s, locals, models);
      set_world_rotation(s, locals, models, knees[side], knee_w);
      rk_fk_models(s, locals, models);
      set_world_rotation(s, locals, models, ankles[side], foot_w);
    }
    rk_fk_models(s, locals, models);
    for (int side = 0; side < 2; side++) {
      rk_vec3 rest_ankle = rk_mat4_get_translation(&rest[ankles[side]]);
      rk_assert_vec3_near(rk_mat4_get_translation(&models[ankles[side]]),
                          ankle_goal(t, side ? 0.5 : 0.0, rest_ankle.x, rest_ankle.y, in_place), 1e-9);
    }
    memcpy(&hips_t[3 * f], &locals[hips].t, 3 * sizeof(double));
    for (int r = 0; r < 8; r++)
      memcpy(&rot[r][4 * f], &locals[rot_joint[r]].r, 4 * sizeof(double));
  }
  rk_clip *clip = rk_clip_new(in_place ? "walk_in_place" : "walk", n);
  rk_clip_set_fps(clip, WALK_FPS);
  rk_track tr = {hips, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, frames, times, hips_t};
  cr_assert(rk_clip_add_track(clip, &tr, NULL));
  for (int r = 0; r < 8; r++) {
    rk_track rt = {rot_joint[r], RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, frames, times, rot[r]};
    cr_assert(rk_clip_add_track(clip, &rt, NULL));
  }
  for (int r = 0; r < 8; r++)
    g_free(rot[r]);
  return clip;
}

/* The template rig with other leg proportions. */
static rk_skeleton *rig_with_legs(double thigh, double shin) {
  fx_rig_params p = FX_RIG_PARAMS_INIT;
  p.thigh = thigh;
  p.shin = shin;
  return fx_rig(&p, NULL);
}

/* The template's walk onto a rig with shorter thighs and longer shins. */
typedef struct long_shins {
  rk_skeleton *src, *tgt;
  rk_clip *walk;
  rk_retargeter *rt;
} long_shins;

static long_shins long_shins_new(void) {
  long_shins c;
  c.src = make_rig(NULL, 0, false);
  c.tgt = rig_with_legs(0.36, 0.52);
  c.walk = make_walk(c.src, false);
  c.rt = fx_retargeter(c.src, c.tgt);
  return c;
}

static void long_shins_clear(long_shins *c) {
  rk_retargeter_free(c->rt);
  rk_clip_free(c->walk);
  rk_skeleton_unref(c->tgt);
  rk_skeleton_unref(c->src);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(long_shins, long_shins_clear)

static rk_retarget_result *run(const rk_retargeter *rt, const rk_clip *clip, const rk_retarget_options *o) {
  g_autoptr(GError) error = NULL;
  rk_retarget_result *r = rk_retargeter_run(rt, clip, o, &error);
  cr_assert(r, "%s", error ? error->message : "");
  return r;
}

/* Two clips with the same tracks and keys, bit for bit. */
static void assert_same_clip(const rk_clip *a, const rk_clip *b) {
  cr_assert_eq(rk_clip_track_count(a), rk_clip_track_count(b));
  for (size_t t = 0; t < rk_clip_track_count(a); t++) {
    const rk_track *x = rk_clip_track(a, t), *y = rk_clip_track(b, t);
    cr_assert_eq(x->key_count, y->key_count);
    size_t nv = x->key_count * (size_t)rk_channel_components(x->channel);
    cr_assert(memcmp(x->values, y->values, nv * sizeof(double)) == 0, "track %zu differs", t);
  }
}

/* World positions of every target joint at frame f of a result clip. */
static void result_pose(const rk_skeleton *s, const rk_clip *c, double fps, size_t f, rk_mat4 *models) {
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  cr_assert(rk_clip_sample_frame(c, rk_skeleton_rest_locals(s), fps, f, locals, n));
  rk_fk_models(s, locals, models);
}

Test(retarget, same_rig_reproduces_the_source_exactly) {
  g_autoptr(rk_skeleton) s = make_rig(NULL, 0, false);
  g_autoptr(rk_clip) walk = make_walk(s, false);
  g_autoptr(rk_retargeter) rt = fx_retargeter(s, s);
  g_autoptr(rk_retarget_result) r = run(rt, walk, NULL);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_mat4 *a = g_new(rk_mat4, n);
  g_autofree rk_mat4 *b = g_new(rk_mat4, n);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  cr_assert_eq(rk_retarget_result_frames(r), 121);
  for (size_t f = 0; f < 121; f++) {
    rk_clip_sample_frame(walk, rk_skeleton_rest_locals(s), WALK_FPS, f, locals, n);
    rk_fk_models(s, locals, a);
    result_pose(s, rk_retarget_result_clip(r), WALK_FPS, f, b);
    for (size_t j = 0; j < n; j++) {
      /* Only the legs move, and only where a contact's edge frame (lift-off) is held on its pin. */
      const double tol = rk_skeleton_is_ancestor(s, (size_t)rk_skeleton_find_joint(s, "j19"), j) ||
                                 rk_skeleton_is_ancestor(s, (size_t)rk_skeleton_find_joint(s, "j24"), j)
                             ? 3e-3
                             : 1e-9;
      cr_assert_leq(rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&b[j]), rk_mat4_get_translation(&a[j]))), tol,
                    "frame %zu joint %s: off by %g m", f, rk_skeleton_joint_name(s, j), rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&b[j]), rk_mat4_get_translation(&a[j]))));
    }
  }
  const rk_retarget_quality *q = rk_retarget_result_quality(r);
  cr_assert_lt(q->foot_skate_max_mm, 0.01);
  cr_assert_lt(q->limb_direction_median_deg, 1e-6);
}

Test(retarget, other_proportions_a_pose_and_facing_keep_feet_planted) {
  g_autoptr(rk_skeleton) src = make_rig(NULL, 0, false);
  /* Longer shins, shorter thighs, shorter arms lowered 45 degrees, facing +X. */
  fx_rig_params p = FX_RIG_PARAMS_INIT;
  p.thigh = 0.36;
  p.shin = 0.52;
  p.upper_arm = 0.24;
  p.arm_down_deg = 45;
  p.yaw = RK_PI / 2;
  g_autoptr(rk_skeleton) tgt = fx_rig(&p, NULL);
  g_autoptr(rk_clip) walk = make_walk(src, false);
  g_autoptr(rk_retargeter) rt = fx_retargeter(src, tgt);
  cr_assert_eq(rk_retargeter_mapped_joints(rt), 22); /* every bone, the root included */
  g_autoptr(rk_retarget_result) r = run(rt, walk, NULL);
  const rk_retarget_quality *q = rk_retarget_result_quality(r), *fk = rk_retarget_result_quality_fk(r);

  /* Both ankles planted twice per cycle; toes too. */
  size_t ankles_with_contacts = 0;
  for (size_t i = 0; i < rk_retarget_result_contact_count(r); i++) {
    rk_foot_contacts c = rk_retarget_result_contacts(r, i);
    const char *name = rk_skeleton_joint_name(tgt, (size_t)c.joint);
    if (!strcmp(name, "j21") || !strcmp(name, "j26")) {
      cr_assert_geq(c.count, 2, "%s has %zu contacts", name, c.count);
      ankles_with_contacts++;
    }
  }
  cr_assert_eq(ankles_with_contacts, 2);
  /* Planted means planted: skate, pin errors, closure; the FK-only figure is worse. */
  cr_assert_lt(q->foot_skate_max_mm, 0.5, "IK skate %g mm (FK %g)", q->foot_skate_max_mm, fk->foot_skate_max_mm);
  cr_assert_gt(fk->foot_skate_max_mm, 5 * q->foot_skate_max_mm + 1.0, "FK skate %g mm", fk->foot_skate_max_mm);
  cr_assert_lt(q->ik_goal_error_max_mm, 1.0);
  cr_assert_gt(q->loop_frames, 0, "double support never closed the loop");
  cr_assert_lt(q->loop_closure_residual_max_mm, 1.0);
  cr_assert_eq(q->joint_limit_violations, 0);
  cr_assert_lt(q->limb_direction_median_deg, 10.0);

  /* The target walks along its own facing (+X), scaled by the hip heights, feet on the ground. */
  const size_t n = rk_skeleton_joint_count(tgt);
  g_autofree rk_mat4 *m0 = g_new(rk_mat4, n);
  g_autofree rk_mat4 *m1 = g_new(rk_mat4, n);
  result_pose(tgt, rk_retarget_result_clip(r), WALK_FPS, 0, m0);
  result_pose(tgt, rk_retarget_result_clip(r), WALK_FPS, 120, m1);
  const int hips = rk_skeleton_find_joint(tgt, "j1");
  rk_vec3 travel = rk_vec3_sub(rk_mat4_get_translation(&m1[hips]), rk_mat4_get_translation(&m0[hips]));
  const double scale = (0.11 + 0.36 + 0.52 - 0.01) / (0.11 + 0.42 + 0.42 - 0.01);
  rk_assert_near(travel.x, 2 * WALK_STRIDE * scale, 0.02);
  rk_assert_near(travel.z, 0, 0.02);
  double lowest = INFINITY;
  for (size_t f = 0; f <= 120; f += 5) {
    result_pose(tgt, rk_retarget_result_clip(r), WALK_FPS, f, m0);
    for (size_t j = 0; j < n; j++) {
      cr_assert(rk_mat4_is_finite(&m0[j]));
      lowest = fmin(lowest, m0[j].m[13]);
    }
  }
  rk_assert_near(lowest, 0.01, 0.01); /* toe tips touch the ground, never sink */
}

Test(retarget, in_place_cycle_keeps_no_pins_unless_it_travels) {
  g_autoptr(rk_skeleton) s = make_rig(NULL, 0, false);
  g_autoptr(rk_skeleton) tgt = rig_with_legs(0.40, 0.46);
  g_autoptr(rk_clip) walk = make_walk(s, true);
  g_autoptr(rk_retargeter) rt = fx_retargeter(s, tgt);
  g_autoptr(rk_retarget_result) still = run(rt, walk, NULL);
  bool in_place = false;
  rk_vec3 v = rk_retarget_result_ground_velocity(still, &in_place);
  cr_assert(in_place);
  rk_assert_near(v.z, -WALK_STRIDE / WALK_CYCLE, 0.02);
  for (size_t i = 0; i < rk_retarget_result_contact_count(still); i++)
    cr_assert_eq(rk_retarget_result_contacts(still, i).count, 0);

  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  o.root_motion = true;
  g_autoptr(rk_retarget_result) moving = run(rt, walk, &o);
  size_t intervals = 0;
  for (size_t i = 0; i < rk_retarget_result_contact_count(moving); i++)
    intervals += rk_retarget_result_contacts(moving, i).count;
  cr_assert_geq(intervals, 4);
  cr_assert_lt(rk_retarget_result_quality(moving)->foot_skate_max_mm, 0.5);
}

Test(retarget, no_ik_leaves_the_transferred_pose) {
  g_auto(long_shins) c = long_shins_new();
  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  o.foot_ik = false;
  g_autoptr(rk_retarget_result) r = run(c.rt, c.walk, &o);
  const rk_retarget_quality *q = rk_retarget_result_quality(r), *fk = rk_retarget_result_quality_fk(r);
  rk_assert_near(q->foot_skate_max_mm, fk->foot_skate_max_mm, 1e-3);
  cr_assert_eq(q->loop_frames, 0);
  /* Limbs keep the source's directions exactly without IK. */
  cr_assert_lt(q->limb_direction_median_deg, 1e-6);
}

Test(retarget, refuses_a_clip_of_another_skeleton_and_invalid_maps) {
  g_autoptr(rk_skeleton) s = make_rig(NULL, 0, false);
  g_autoptr(rk_retargeter) rt = fx_retargeter(s, s);
  g_autoptr(rk_clip) other = rk_clip_new("other", 3);
  g_autoptr(GError) e1 = NULL;
  cr_assert_null(rk_retargeter_run(rt, other, NULL, &e1));
  cr_assert(g_error_matches(e1, RK_ERROR, RK_ERROR_INVALID));
  rk_humanoid_map m;
  rk_humanoid_map_clear(&m);
  g_autoptr(GError) e2 = NULL;
  cr_assert_null(rk_retargeter_new(s, &m, s, &m, &e2));
  cr_assert(strstr(e2->message, "source rig"), "%s", e2->message);
}

typedef struct thread_job {
  const rk_retargeter *rt;
  const rk_clip *clip;
  rk_retarget_result *out;
} thread_job;

static gpointer run_thread(gpointer p) {
  thread_job *j = p;
  j->out = rk_retargeter_run(j->rt, j->clip, NULL, NULL);
  return NULL;
}

Test(retarget, shared_retargeter_gives_identical_results_on_two_threads) {
  g_autoptr(rk_skeleton) src = make_rig(NULL, 0, false);
  fx_rig_params p = FX_RIG_PARAMS_INIT;
  p.shin = 0.5;
  g_autoptr(rk_skeleton) tgt = fx_rig(&p, NULL);
  g_autoptr(rk_clip) walk = make_walk(src, false);
  g_autoptr(rk_retargeter) rt = fx_retargeter(src, tgt);
  thread_job jobs[2] = {{rt, walk, NULL}, {rt, walk, NULL}};
  GThread *th[2];
  for (int i = 0; i < 2; i++)
    th[i] = g_thread_new("retarget", run_thread, &jobs[i]);
  for (int i = 0; i < 2; i++)
    g_thread_join(th[i]);
  cr_assert(jobs[0].out && jobs[1].out);
  const rk_clip *a = rk_retarget_result_clip(jobs[0].out), *b = rk_retarget_result_clip(jobs[1].out);
  assert_same_clip(a, b);
  rk_retarget_result_free(jobs[0].out);
  rk_retarget_result_free(jobs[1].out);
}

/* A clip beyond the cache budget is sampled again in each pass: same result, bit for bit. */
Test(retarget, without_frame_caches_the_result_is_identical) {
  g_auto(long_shins) c = long_shins_new();
  g_autoptr(rk_retarget_result) cached = run(c.rt, c.walk, NULL);
  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  o.cache_bytes = 1;
  g_autoptr(rk_retarget_result) uncached = run(c.rt, c.walk, &o);
  const rk_clip *a = rk_retarget_result_clip(cached), *b = rk_retarget_result_clip(uncached);
  assert_same_clip(a, b);
}

/* A long clip's frames in two halves on two threads (rk_retarget_options.threads): the keys and
 * every figure the same bits as one thread's, whether the machine has one processor or two; with
 * foot IK, without it (nothing carried between frames) and with hand goals. */
Test(retarget, two_halves_give_the_one_pass_result) {
  g_auto(long_shins) c = long_shins_new();
  for (int variant = 0; variant < 3; variant++) {
    rk_retarget_options one = RK_RETARGET_OPTIONS_INIT, two = RK_RETARGET_OPTIONS_INIT;
    one.fps = two.fps = 600; /* 1,201 frames: long enough to split */
    one.foot_ik = two.foot_ik = variant != 1;     /* without foot IK: no loop state at all */
    one.hand_ik = two.hand_ik = variant == 2;
    one.threads = 1;
    two.threads = 2;
    g_autoptr(rk_retarget_result) a = run(c.rt, c.walk, &one);
    g_autoptr(rk_retarget_result) b = run(c.rt, c.walk, &two);
    cr_assert_eq(rk_retarget_result_frames(a), 1201);
    assert_same_clip(rk_retarget_result_clip(a), rk_retarget_result_clip(b));
    const rk_retarget_quality *qa = rk_retarget_result_quality(a), *qb = rk_retarget_result_quality(b);
    if (variant != 1)
      cr_assert_gt(qa->loop_frames, 0, "double support never closed the loop");
    cr_assert(memcmp(qa, qb, sizeof *qa) == 0, "variant %d: the quality figures differ", variant);
    cr_assert(memcmp(rk_retarget_result_quality_fk(a), rk_retarget_result_quality_fk(b),
                     sizeof *qa) == 0);
    for (size_t k = 0; k < rk_retarget_result_contact_count(a); k++) {
      const rk_foot_contacts x = rk_retarget_result_contacts(a, k), y = rk_retarget_result_contacts(b, k);
      cr_assert_eq(x.count, y.count);
      cr_assert(memcmp(x.intervals, y.intervals, x.count * sizeof *x.intervals) == 0);
    }
  }
}

/* Runs of one retargeter reuse the last run's per-frame arrays: a longer clip after a shorter
 * one, then the shorter again (a larger block than it needs), give what fresh retargeters give. */
Test(retarget, runs_after_runs_give_identical_results) {
  g_auto(long_shins) c = long_shins_new();
  g_autoptr(rk_retargeter) fresh = fx_retargeter(c.src, c.tgt);
  rk_retarget_options fine = RK_RETARGET_OPTIONS_INIT;
  fine.fps = 240; /* four times the frames */
  g_autoptr(rk_retarget_result) first = run(c.rt, c.walk, NULL);
  g_autoptr(rk_retarget_result) longer = run(c.rt, c.walk, &fine);
  g_autoptr(rk_retarget_result) again = run(c.rt, c.walk, NULL);
  g_autoptr(rk_retarget_result) longer_fresh = run(fresh, c.walk, &fine);
  cr_assert_eq(rk_retarget_result_frames(longer), 4 * rk_retarget_result_frames(first) - 3);
  assert_same_clip(rk_retarget_result_clip(first), rk_retarget_result_clip(again));
  assert_same_clip(rk_retarget_result_clip(longer), rk_retarget_result_clip(longer_fresh));
}

/* The FK-only foot tracks: the transferred pose before IK, the same with and without IK, and (to
 * within rounding) what a run without IK bakes. */
Test(retarget, fk_foot_tracks_are_the_pose_before_ik) {
  g_auto(long_shins) c = long_shins_new();
  g_autoptr(rk_retarget_result) ik = run(c.rt, c.walk, NULL);
  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  o.foot_ik = false;
  g_autoptr(rk_retarget_result) fk = run(c.rt, c.walk, &o);
  const size_t frames = rk_retarget_result_frames(ik), nc = rk_retarget_result_contact_count(ik);
  cr_assert_eq(nc, 4);
  const rk_vec3 *a = rk_retarget_result_fk_positions(ik), *b = rk_retarget_result_fk_positions(fk);
  cr_assert(memcmp(a, b, frames * nc * sizeof(rk_vec3)) == 0, "the same transfer");
  g_autofree rk_vec3 *baked = rk_retarget_contact_positions(c.rt, fk, c.tgt, rk_retarget_result_clip(fk));
  const double *h = rk_retarget_result_heights(ik, false);
  rk_humanoid_map tm;
  cr_assert(rk_humanoid_map_build(c.tgt, NULL, &tm, NULL));
  for (size_t i = 0; i < frames * nc; i++) {
    rk_assert_vec3_near(a[i], baked[i], 1e-12);
    rk_assert_near(h[i], a[i].y - tm.ground, 0);
  }
  /* With IK the planted joints leave their FK-only track: the contact positions of the result's
   * clip are the heights after IK. */
  g_autofree rk_vec3 *after = rk_retarget_contact_positions(c.rt, ik, c.tgt, rk_retarget_result_clip(ik));
  const double *hik = rk_retarget_result_heights(ik, true);
  double moved = 0;
  for (size_t i = 0; i < frames * nc; i++) {
    rk_assert_near(hik[i], after[i].y - tm.ground, 1e-9);
    moved = fmax(moved, rk_vec3_norm(rk_vec3_sub(after[i], a[i])));
  }
  cr_assert_gt(moved, 1e-3);
}

/* The figures measured on a clip of the target (the CLI's, on the written output read back). */
Test(retarget, limb_directions_and_planted_heights_of_a_target_clip) {
  g_autoptr(rk_skeleton) s = make_rig(NULL, 0, false);
  g_autoptr(rk_clip) walk = make_walk(s, false);
  g_autoptr(rk_retargeter) rt = fx_retargeter(s, s);
  rk_retarget_options o = RK_RETARGET_OPTIONS_INIT;
  o.foot_ik = false;
  g_autoptr(rk_retarget_result) r = run(rt, walk, &o);
  const rk_clip *c = rk_retarget_result_clip(r);
  /* Without IK the limbs keep the source's directions exactly. */
  cr_assert_lt(rk_retarget_limb_direction(rt, r, walk, s, c), 1e-6);
  /* The source walk plants its feet exactly at their rest height. */
  g_autofree rk_vec3 *pos = rk_retarget_contact_positions(rt, r, s, c);
  double mean = NAN, max = NAN;
  cr_assert(rk_retarget_planted_height(rt, r, s, pos, &mean, &max));
  cr_assert_leq(mean, max);
  cr_assert_lt(max, 1.0);
  /* A skeleton without the limbs' and feet's joints: nothing to measure. */
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_skeleton_builder_add_joint(b, "lonely", -1, NULL, 0);
  g_autoptr(rk_skeleton) other = rk_skeleton_builder_build(b, NULL, NULL);
  g_autoptr(rk_clip) still = rk_clip_new("still", 1);
  rk_clip_set_duration(still, rk_clip_duration(c));
  cr_assert(isnan(rk_retarget_limb_direction(rt, r, walk, other, still)));
  g_autofree rk_vec3 *none = rk_retarget_contact_positions(rt, r, other, still);
  cr_assert_not(rk_retarget_planted_height(rt, r, other, none, &mean, &max));
}

Test(retarget, the_output_asset_carries_the_clip_and_the_characters_meshes) {
  g_autoptr(rk_skeleton) s = make_rig(NULL, 0, false);
  g_autoptr(rk_clip) walk = make_walk(s, false);
  g_autoptr(rk_retargeter) rt = fx_retargeter(s, s);
  g_autoptr(rk_retarget_result) r = run(rt, walk, NULL);
  g_autoptr(rk_asset) character = rk_asset_new(s);
  rk_asset_set_source(character, "glb", "figure.glb");
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_asset) out =
      rk_retarget_output_asset(s, character, rk_retarget_result_take_clip(r), &e);
  cr_assert(out, "%s", e ? e->message : "");
  cr_assert_eq(rk_asset_skeleton(out), s);
  cr_assert_eq(rk_asset_clip_count(out), 1);
  cr_assert_str_eq(rk_clip_name(rk_asset_clip(out, 0)), "walk");
  cr_assert_eq(rk_asset_mesh_count(out), 0);
  cr_assert_str_eq(rk_asset_source_path(out), "figure.glb");
  /* A clip of another skeleton is refused (and freed). */
  cr_assert_null(rk_retarget_output_asset(s, NULL, rk_clip_new("other", 3), &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_INVALID), "%s", e->message);
}
