/* Key reduction: the world-space bound holds at every baked frame (checked here independently),
 * keys are dropped on CMU-length clips, edge cases and bad input. */
#include "rk_rigs.h"
#include "rk_test.h"

#include <rigkit/reduce.h>
#include <string.h>

/* The 31-joint CMU skeleton of rk_rigs.h. */
static rk_skeleton *cmu_skeleton(void) {
  g_autoptr(GError) error = NULL;
  rk_skeleton *s = rk_rig_cmu_skeleton(&error);
  cr_assert(s, "%s", error ? error->message : "");
  return s;
}

/* A CMU-like capture: 120 fps, root travelling, every joint rotating with a gait-like curve plus
 * marker-like noise of a few hundredths of a degree, as captured motion has. */
static rk_clip *cmu_clip(const rk_skeleton *s, size_t frames, double noise_deg) {
  const size_t n = rk_skeleton_joint_count(s);
  rk_clip *c = rk_clip_new("capture", n);
  rk_clip_set_fps(c, 120);
  g_autofree double *t = g_new(double, frames);
  g_autofree double *v = g_new(double, 4 * frames);
  guint64 seed = 42;
  for (size_t f = 0; f < frames; f++)
    t[f] = (double)f / 120;
  for (size_t f = 0; f < frames; f++) {
    v[3 * f] = 0.2 * sin(0.1 * t[f]);
    v[3 * f + 1] = 0.95 + 0.04 * sin(2 * RK_PI * 1.8 * t[f]) + rk_test_uniform(&seed, -5e-5, 5e-5);
    v[3 * f + 2] = 1.2 * t[f];
  }
  rk_track tt = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, frames, t, v};
  cr_assert(rk_clip_add_track(c, &tt, NULL));
  for (size_t j = 0; j < n; j++) {
    const double ph = 0.61 * (double)j, amp = 0.15 + 0.02 * (double)(j % 7);
    for (size_t f = 0; f < frames; f++) {
      const double w = 2 * RK_PI * 0.9 * t[f];
      double e[3] = {amp * sin(w + ph) + rk_test_uniform(&seed, -1, 1) * noise_deg * RK_DEG,
                     0.3 * amp * sin(2 * w + ph) + rk_test_uniform(&seed, -1, 1) * noise_deg * RK_DEG,
                     0.2 * amp * cos(w + 2 * ph) + rk_test_uniform(&seed, -1, 1) * noise_deg * RK_DEG};
      rk_quat q = rk_euler_to_quat(RK_EULER_ZXY, e);
      v[4 * f] = q.x, v[4 * f + 1] = q.y, v[4 * f + 2] = q.z, v[4 * f + 3] = q.w;
    }
    rk_track rt = {(int)j, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, frames, t, v};
    cr_assert(rk_clip_add_track(c, &rt, NULL));
  }
  return c;
}

/* Largest world distance between two clips' joints over the frames at fps (independent of the
 * reducer: plain sampling and FK). */
static double max_distance(const rk_skeleton *s, const rk_clip *a, const rk_clip *b, double fps) {
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *la = g_new(rk_transform, n), *lb = g_new(rk_transform, n);
  g_autofree rk_mat4 *ma = g_new(rk_mat4, n), *mb = g_new(rk_mat4, n);
  const size_t frames = (size_t)llround(rk_clip_duration(a) * fps) + 1;
  double worst = 0;
  for (size_t f = 0; f < frames; f++) {
    const double t = fmin((double)f / fps, rk_clip_duration(a));
    rk_clip_sample(a, rk_skeleton_rest_locals(s), t, la, n);
    rk_clip_sample(b, rk_skeleton_rest_locals(s), t, lb, n);
    rk_fk_models(s, la, ma);
    rk_fk_models(s, lb, mb);
    for (size_t j = 0; j < n; j++)
      worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(rk_mat4_get_translation(&ma[j]),
                                                   rk_mat4_get_translation(&mb[j]))));
  }
  return worst;
}


static void check_reduction(size_t frames, double noise_deg, double tol, double max_ratio) {
  g_autoptr(rk_skeleton) s = cmu_skeleton();
  g_autoptr(rk_clip) c = cmu_clip(s, frames, noise_deg);
  rk_reduce_stats st;
  g_autoptr(GError) e = NULL;
  gint64 t0 = g_get_monotonic_time();
  g_autoptr(rk_clip) r = rk_clip_reduce(c, s, tol, 0, &st, &e);
  const double secs = (double)(g_get_monotonic_time() - t0) / 1e6;
  cr_assert_not_null(r, "%s", e ? e->message : "");
  g_autofree char *summary = rk_reduce_stats_summary(&st, tol, s);
  cr_log_info("CMU-like %zu frames, noise %.2f deg: %s, %.2f s", frames, noise_deg, summary, secs);
  printf("reduce: CMU-like %zu frames at 120 fps, noise %.2f deg: %s, %.2f s\n", frames, noise_deg,
         summary, secs);
  cr_assert_eq(st.keys_input, rk_clip_key_count_total(c));
  cr_assert_eq(st.keys_output, rk_clip_key_count_total(r));
  cr_assert_eq(st.frames, frames);
  cr_assert(st.keys_output < st.keys_baked * max_ratio, "only %zu of %zu keys dropped",
            st.keys_baked - st.keys_output, st.keys_baked);
  const double measured = max_distance(s, c, r, 120);
  cr_assert(measured <= tol + RK_REDUCE_SLACK_M, "error %g m exceeds the tolerance %g m", measured,
            tol);
  rk_assert_near(measured, st.max_error_m, 1e-12);
  rk_assert_near(rk_clip_duration(r), rk_clip_duration(c), 1e-12);
  rk_assert_near(rk_clip_fps(r), 120, 0);
  for (size_t i = 0; i < rk_clip_track_count(r); i++)
    cr_assert_eq(rk_clip_track(r, i)->interp, RK_INTERP_LINEAR);
}

Test(reduce, cmu_length_clip_stays_within_1mm) {
  check_reduction(4000, 0.02, 1e-3, 0.35);
}

Test(reduce, cmu_length_clip_stays_within_1cm) {
  check_reduction(4000, 0.02, 1e-2, 0.15);
}

Test(reduce, smooth_clip_reduces_strongly) {
  check_reduction(2400, 0.0, 1e-3, 0.3);
}

Test(reduce, zero_tolerance_changes_no_position) {
  g_autoptr(rk_skeleton) s = cmu_skeleton();
  g_autoptr(rk_clip) c = rk_clip_new("lin", rk_skeleton_joint_count(s));
  /* A translation moving linearly over 2 s at 30 fps: every inner key is redundant. */
  const double times[2] = {0, 2};
  const double v[6] = {0, 0.95, 0, 1, 0.95, 2};
  rk_track t = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, 2, times, v};
  cr_assert(rk_clip_add_track(c, &t, NULL));
  rk_clip_set_fps(c, 30);
  rk_reduce_stats st;
  g_autoptr(rk_clip) r = rk_clip_reduce(c, s, 0.0, 0, &st, NULL);
  cr_assert_not_null(r);
  cr_assert_eq(st.keys_baked, 61);
  cr_assert_eq(st.keys_output, 2);
  cr_assert(max_distance(s, c, r, 30) < 1e-12);
}

Test(reduce, constant_track_becomes_one_key) {
  g_autoptr(rk_skeleton) s = cmu_skeleton();
  g_autoptr(rk_clip) c = rk_clip_new("hold", rk_skeleton_joint_count(s));
  rk_quat q = rk_quat_from_axis_angle(rk_vec3_make(1, 0, 0), 0.3);
  double times[50], v[200];
  for (int k = 0; k < 50; k++) {
    times[k] = k / 25.0;
    v[4 * k] = q.x, v[4 * k + 1] = q.y, v[4 * k + 2] = q.z, v[4 * k + 3] = q.w;
  }
  rk_track t = {18, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 50, times, v};
  cr_assert(rk_clip_add_track(c, &t, NULL));
  rk_reduce_stats st;
  g_autoptr(rk_clip) r = rk_clip_reduce(c, s, 1e-4, 0, &st, NULL);
  cr_assert_not_null(r);
  rk_assert_near(st.fps, 25, 0); /* inferred from the key grid */
  cr_assert_eq(st.keys_output, 1);
  cr_assert(max_distance(s, c, r, 25) < 1e-12);
}

Test(reduce, leaf_orientation_is_kept) {
  /* Rotating a leaf moves no joint position; the virtual points keep its keys anyway. */
  g_autoptr(rk_skeleton) s = cmu_skeleton();
  const int leaf = rk_skeleton_find_joint(s, "head");
  cr_assert_eq(rk_skeleton_subtree_end(s, (size_t)leaf), (size_t)leaf + 1);
  g_autoptr(rk_clip) c = rk_clip_new("nod", rk_skeleton_joint_count(s));
  double times[61], v[244];
  for (int k = 0; k <= 60; k++) {
    times[k] = k / 30.0;
    rk_quat q = rk_quat_from_axis_angle(rk_vec3_make(1, 0, 0), 0.8 * sin(2 * RK_PI * times[k]));
    v[4 * k] = q.x, v[4 * k + 1] = q.y, v[4 * k + 2] = q.z, v[4 * k + 3] = q.w;
  }
  rk_track t = {leaf, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 61, times, v};
  cr_assert(rk_clip_add_track(c, &t, NULL));
  rk_clip_set_fps(c, 30);
  rk_reduce_stats st;
  g_autoptr(rk_clip) r = rk_clip_reduce(c, s, 1e-3, 0, &st, NULL);
  cr_assert_not_null(r);
  cr_assert(st.keys_output > 8, "a nodding head kept only %zu keys", st.keys_output);
  /* The head's orientation error stays within the bound at one bone length (0.08 m). */
  rk_transform a[31], b[31];
  for (int k = 0; k <= 60; k++) {
    rk_clip_sample(c, rk_skeleton_rest_locals(s), times[k], a, 31);
    rk_clip_sample(r, rk_skeleton_rest_locals(s), times[k], b, 31);
    cr_assert(rk_quat_angle_between(a[leaf].r, b[leaf].r) * 0.0806 <= 1e-3 * 1.01);
  }
}

Test(reduce, bad_input) {
  g_autoptr(rk_skeleton) s = cmu_skeleton();
  g_autoptr(rk_clip) c = cmu_clip(s, 10, 0);
  g_autoptr(GError) e = NULL;
  cr_assert_null(rk_clip_reduce(c, s, -1e-3, 0, NULL, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_INVALID));
  g_clear_error(&e);
  cr_assert_null(rk_clip_reduce(c, s, NAN, 0, NULL, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_INVALID));
  g_clear_error(&e);
  g_autoptr(rk_clip) wrong = rk_clip_new("x", 3);
  cr_assert_null(rk_clip_reduce(wrong, s, 1e-3, 0, NULL, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_INVALID));
  cr_assert(strstr(e->message, "3 joints"), "%s", e->message);
  g_clear_error(&e);
  /* No rate and keys on no usual grid: an error that says so, unless a rate is given. */
  g_autoptr(rk_clip) odd = rk_clip_new("odd", rk_skeleton_joint_count(s));
  const double times[3] = {0, 0.0137, 0.9};
  const double v[9] = {0, 1, 0, 0, 1.1, 0, 0, 1, 0};
  rk_track t = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, 3, times, v};
  cr_assert(rk_clip_add_track(odd, &t, NULL));
  cr_assert_null(rk_clip_reduce(odd, s, 1e-3, 0, NULL, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_INVALID));
  cr_assert(strstr(e->message, "odd"), "%s", e->message);
  g_autoptr(rk_clip) ok = rk_clip_reduce(odd, s, 1e-3, 50, NULL, NULL);
  cr_assert_not_null(ok);
  rk_assert_near(rk_clip_fps(ok), 50, 0);
}

Test(reduce, infer_fps) {
  g_autoptr(rk_clip) c = rk_clip_new("x", 1);
  rk_assert_near(rk_clip_infer_fps(c), 0, 0);
  const double t25[3] = {0, 0.04, 1.0};
  const double v[9] = {0};
  rk_track t = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, 3, t25, v};
  cr_assert(rk_clip_add_track(c, &t, NULL));
  rk_assert_near(rk_clip_infer_fps(c), 25, 0);
  rk_clip_set_fps(c, 60);
  rk_assert_near(rk_clip_infer_fps(c), 60, 0);
}

Test(reduce, summary_states_the_keys_dropped) {
  rk_reduce_stats st = {.keys_input = 74000, .keys_baked = 74000, .keys_output = 9100, .frames = 4000,
                        .fps = 120, .max_error_m = 0.000982, .max_error_joint = 7, .max_error_frame = 2051};
  g_autofree char *a = rk_reduce_stats_summary(&st, 0.001, NULL);
  cr_assert_str_eq(a, "keys 74,000 -> 9,100 at 1 mm (checked at 4000 frames at 120 fps; largest "
                      "error 0.982 mm at joint 7, frame 2051)");
  st.keys_input = 1064;
  st.max_error_joint = -1;
  g_autofree char *b = rk_reduce_stats_summary(&st, 0.02, NULL);
  cr_assert_str_eq(b, "keys 74,000 -> 9,100 at 2 cm (checked at 4000 frames at 120 fps, 1,064 keys "
                      "given; largest error 0.982 mm)");
}
