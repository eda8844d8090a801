/* Clip sampling (clip_sample.c): the four-lane LINEAR rotation path gives the scalar evaluation's
 * bits (rk_quat_slerp of the normalised keys, normalised again), the cursor gives rk_clip_sample's
 * bits whatever its state, and close keys stay within the documented nlerp bound. */
#include "rk_rigs.h"
#include "rk_test.h"

#include <string.h>

/* The LINEAR rotation track tr at time t the scalar way, as rk_clip_sample documents it: the first
 * or last key outside the keys, normalise(normalise(key)) on a key, else
 * slerp(normalise(a), normalise(b)); then the channel's own normalisation. */
static rk_quat scalar_rotation(const rk_track *tr, double t) {
  const size_t n = tr->key_count;
  const double *v = tr->values;
  rk_transform x = rk_transform_identity();
  if (n == 1 || t <= tr->times[0] || t >= tr->times[n - 1]) {
    rk_channel_apply(RK_CHANNEL_ROTATION, v + (n == 1 || t <= tr->times[0] ? 0 : 4 * (n - 1)), &x);
    return x.r;
  }
  size_t k = 0;
  while (tr->times[k + 1] <= t)
    k++;
  const double s = (t - tr->times[k]) / (tr->times[k + 1] - tr->times[k]);
  const double *a = v + 4 * k, *b = a + 4;
  const rk_quat na = rk_quat_normalize(rk_quat_make(a[0], a[1], a[2], a[3]));
  const rk_quat q = s == 0.0 ? rk_quat_normalize(na)
                             : rk_quat_slerp(na, rk_quat_normalize(rk_quat_make(b[0], b[1], b[2], b[3])), s);
  const double qv[4] = {q.x, q.y, q.z, q.w};
  rk_channel_apply(RK_CHANNEL_ROTATION, qv, &x);
  return x.r;
}

/* A clip of `joints` joints with a LINEAR rotation track on each (irregular times: close keys,
 * far keys for slerp's sines, hemisphere flips, unnormalised keys, -0 components, a huge key
 * whose squared norm overflows) and a translation track on joint 0. */
static rk_clip *rotation_clip(size_t joints, size_t keys, guint64 *rng) {
  rk_clip *c = rk_clip_new("rotations", joints);
  g_autofree double *times = g_new(double, keys);
  g_autofree double *v = g_new(double, keys * 4);
  for (size_t j = 0; j < joints; j++) {
    double t = rk_test_uniform(rng, 0.0, 0.1);
    rk_quat q = rk_quat_normalize(rk_quat_make(rk_test_uniform(rng, -1, 1), rk_test_uniform(rng, -1, 1),
                                               rk_test_uniform(rng, -1, 1), rk_test_uniform(rng, -1, 1)));
    for (size_t k = 0; k < keys; k++) {
      times[k] = t;
      t += k % 5 == 3 ? 0.2 : 1.0 / 120;
      const double step = k % 7 == 2 ? 0.8 : 0.02; /* mostly close keys, some far apart */
      const rk_quat d = rk_quat_from_axis_angle(
          rk_vec3_make(rk_test_uniform(rng, -1, 1), rk_test_uniform(rng, -1, 1), 0.5), step);
      q = rk_quat_normalize(rk_quat_mul(q, d));
      const double sign = k % 11 == 4 ? -1.0 : 1.0;    /* the other hemisphere */
      const double scale = k % 13 == 6 ? 3.7 : 1.0;    /* not unit */
      double *o = v + 4 * k;
      o[0] = sign * scale * q.x, o[1] = sign * scale * q.y, o[2] = sign * scale * q.z;
      o[3] = sign * scale * q.w;
      if (k % 17 == 8)
        o[0] = -0.0;
      if (j == 1 && k == keys / 2)
        o[0] = o[1] = o[2] = o[3] = 1e200; /* its square overflows: the identity */
    }
    const rk_track tr = {(int)j, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, keys, times, v};
    cr_assert(rk_clip_add_track(c, &tr, NULL));
  }
  for (size_t k = 0; k < keys; k++)
    v[3 * k] = v[3 * k + 1] = v[3 * k + 2] = (double)k;
  const rk_track tt = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, keys, times, v};
  cr_assert(rk_clip_add_track(c, &tt, NULL));
  return c;
}

/* Rest poses for n joints: identity rotations, distinct translations. */
static rk_transform *rest_poses(size_t n) {
  rk_transform *rest = g_new(rk_transform, n);
  for (size_t j = 0; j < n; j++) {
    rest[j] = rk_transform_identity();
    rest[j].t = rk_vec3_make((double)j, 0, 1);
  }
  return rest;
}

/* Times that hit every case: before, on and after the keys, on keys, between them. */
static double probe_time(const rk_clip *c, size_t i, guint64 *rng) {
  const rk_track *tr = rk_clip_track(c, i % rk_clip_track_count(c));
  switch (i % 4) {
  case 0:
    return tr->times[(i / 4) % tr->key_count];
  case 1:
    return rk_test_uniform(rng, -0.1, rk_clip_duration(c) + 0.1);
  default:
    return rk_test_uniform(rng, 0.0, rk_clip_duration(c));
  }
}

Test(clip_sample, four_lane_rotations_give_the_scalar_bits) {
  guint64 rng = 7;
  /* 1..9 rotation tracks: full groups of four and every tail. */
  for (size_t joints = 1; joints <= 9; joints++) {
    g_autoptr(rk_clip) c = rotation_clip(joints, 60, &rng);
    g_autofree rk_transform *rest = rest_poses(joints);
    g_autofree rk_transform *out = g_new(rk_transform, joints);
    for (size_t i = 0; i < 400; i++) {
      const double t = probe_time(c, i, &rng);
      cr_assert(rk_clip_sample(c, rest, t, out, joints));
      for (size_t j = 0; j < joints; j++) {
        const rk_quat expect = scalar_rotation(rk_clip_track(c, j), fmin(fmax(t, 0), rk_clip_duration(c)));
        cr_assert(memcmp(&out[j].r, &expect, sizeof expect) == 0,
                  "joints %zu, joint %zu, t %.17g: (%.17g %.17g %.17g %.17g) != (%.17g %.17g %.17g %.17g)",
                  joints, j, t, out[j].r.x, out[j].r.y, out[j].r.z, out[j].r.w, expect.x, expect.y,
                  expect.z, expect.w);
        cr_assert(memcmp(&out[j].s, &rest[j].s, sizeof rest[j].s) == 0);
      }
    }
  }
}

Test(clip_sample, every_lane_on_a_key_gives_the_scalar_bits) {
  /* All tracks on one time grid, sampled on its keys (a clip at its own rate: every lane of the
   * four-lane path on a key at once) and between them. */
  guint64 rng = 13;
  for (size_t joints = 2; joints <= 9; joints += 3) {
    g_autoptr(rk_clip) src = rotation_clip(joints, 60, &rng);
    g_autoptr(rk_clip) c = rk_clip_new("grid", joints);
    const rk_track *first = rk_clip_track(src, 0);
    for (size_t j = 0; j < joints; j++) {
      rk_track tr = *rk_clip_track(src, j);
      tr.times = first->times;
      cr_assert(rk_clip_add_track(c, &tr, NULL));
    }
    g_autofree rk_transform *rest = rest_poses(joints);
    g_autofree rk_transform *out = g_new(rk_transform, joints);
    for (size_t i = 0; i < 2 * first->key_count - 1; i++) {
      const size_t k = i / 2;
      const double t = i % 2 ? 0.5 * (first->times[k] + first->times[k + 1]) : first->times[k];
      cr_assert(rk_clip_sample(c, rest, t, out, joints));
      for (size_t j = 0; j < joints; j++) {
        const rk_quat expect = scalar_rotation(rk_clip_track(c, j), t);
        cr_assert(memcmp(&out[j].r, &expect, sizeof expect) == 0, "joints %zu, joint %zu, t %.17g",
                  joints, j, t);
      }
    }
  }
}

/* rk_clip_sample_cursor on times in order against rk_clip_sample, bit for bit. */
static void check_cursor(const rk_clip *c, const rk_transform *rest, size_t n, rk_clip_cursor *cur,
                         const double *times, size_t count) {
  g_autofree rk_transform *a = g_new(rk_transform, n);
  g_autofree rk_transform *b = g_new(rk_transform, n);
  for (size_t i = 0; i < count; i++) {
    cr_assert(rk_clip_sample(c, rest, times[i], a, n));
    cr_assert(rk_clip_sample_cursor(c, rest, times[i], cur, b, n));
    cr_assert(memcmp(a, b, n * sizeof *a) == 0, "time %zu (%.17g) differs", i, times[i]);
  }
}

Test(clip_sample, cursor_gives_rk_clip_sample_bits_in_any_order) {
  guint64 rng = 11;
  const size_t n = 6;
  g_autoptr(rk_clip) c = rotation_clip(n, 200, &rng);
  g_autofree rk_transform *rest = rest_poses(n);
  uint32_t keys[8];
  rk_clip_cursor cur = RK_CLIP_CURSOR_INIT(keys, 8);
  rk_clip_cursor_reset(&cur);
  for (size_t k = 0; k < 8; k++)
    cr_assert_eq(keys[k], 0);
  const double dur = rk_clip_duration(c);
  double times[600];
  const double rates[3] = {1000.0, 60.0, 7.0}; /* below, near and above the key spacing */
  for (int r = 0; r < 3; r++) {
    for (size_t i = 0; i < 600; i++)
      times[i] = fmod((double)i / rates[r], dur + 0.05); /* loops back to the start */
    check_cursor(c, rest, n, &cur, times, 600);
  }
  for (size_t i = 0; i < 600; i++) /* backwards, then jumps */
    times[i] = dur - (double)i / 100.0;
  check_cursor(c, rest, n, &cur, times, 600);
  for (size_t i = 0; i < 600; i++)
    times[i] = rk_test_uniform(&rng, -1.0, dur + 1.0);
  check_cursor(c, rest, n, &cur, times, 600);
  /* Any content of the buffer is valid: out of range, stale, from another clip. */
  for (size_t k = 0; k < 8; k++)
    keys[k] = k % 2 ? UINT32_MAX : 150 + (uint32_t)k;
  for (size_t i = 0; i < 600; i++)
    times[i] = (double)i / 60.0;
  check_cursor(c, rest, n, &cur, times, 600);
}

Test(clip_sample, cursor_on_the_playback_clip) {
  g_autoptr(rk_skeleton) s = rk_rig_kdl_humanoid_skeleton(NULL);
  g_autoptr(rk_clip) c = rk_rig_kdl_humanoid_clip(10.0, 120.0, NULL);
  cr_assert(s && c);
  const size_t n = rk_skeleton_joint_count(s);
  cr_assert_eq(n, 31);
  cr_assert_eq(rk_clip_track_count(c), 27);
  uint32_t keys[27] = {0};
  rk_clip_cursor cur = RK_CLIP_CURSOR_INIT(keys, 27);
  static double times[1300];
  for (size_t i = 0; i < 1300; i++) /* 60 Hz between the keys, then on them, looping */
    times[i] = i < 650 ? fmod((double)i / 60.0 + 0.25 / 120.0, 10.0) : fmod((double)i / 60.0, 10.0);
  check_cursor(c, rk_skeleton_rest_locals(s), n, &cur, times, 1300);
}

Test(clip_sample, cursor_refuses_what_does_not_fit) {
  guint64 rng = 3;
  g_autoptr(rk_clip) c = rotation_clip(3, 10, &rng); /* 4 tracks */
  g_autofree rk_transform *rest = rest_poses(3);
  rk_transform out[3], before[3];
  memset(out, 0x5a, sizeof out);
  memcpy(before, out, sizeof out);
  uint32_t keys[4] = {0};
  rk_clip_cursor small = RK_CLIP_CURSOR_INIT(keys, 3), fits = RK_CLIP_CURSOR_INIT(keys, 4);
  rk_clip_cursor none = RK_CLIP_CURSOR_INIT(NULL, 4);
  cr_assert_not(rk_clip_sample_cursor(c, rest, 0.1, &small, out, 3));
  cr_assert_not(rk_clip_sample_cursor(c, rest, 0.1, &none, out, 3));
  cr_assert_not(rk_clip_sample_cursor(c, rest, 0.1, NULL, out, 3));
  cr_assert_not(rk_clip_sample_cursor(c, rest, 0.1, &fits, out, 2));
  cr_assert(memcmp(out, before, sizeof out) == 0);
  cr_assert(rk_clip_sample_cursor(c, rest, 0.1, &fits, out, 3));
  rk_clip_cursor_reset(NULL);
}

/* rk_clip_sample_joints over times in order, with a cursor and without: the listed joints get
 * rk_clip_sample's bits, every other joint keeps what out held. */
static void check_joints(const rk_clip *c, const rk_transform *rest, size_t n, const int *joints,
                         size_t nj, rk_clip_cursor *cur, const double *times, size_t count) {
  g_autofree rk_transform *a = g_new(rk_transform, n);
  g_autofree rk_transform *b = g_new(rk_transform, n);
  g_autofree rk_transform *d = g_new(rk_transform, n);
  g_autofree bool *listed = g_new0(bool, n);
  for (size_t u = 0; u < nj; u++)
    listed[joints[u]] = true;
  memcpy(b, rest, n * sizeof *b);
  memcpy(d, rest, n * sizeof *d);
  for (size_t j = 0; j < n; j++)
    if (!listed[j])
      memset(&b[j], 0x5a, sizeof b[j]), memset(&d[j], 0x5a, sizeof d[j]);
  rk_transform untouched;
  memset(&untouched, 0x5a, sizeof untouched);
  for (size_t i = 0; i < count; i++) {
    cr_assert(rk_clip_sample(c, rest, times[i], a, n));
    cr_assert(rk_clip_sample_joints(c, times[i], joints, nj, cur, b, n));
    cr_assert(rk_clip_sample_joints(c, times[i], joints, nj, NULL, d, n));
    for (size_t j = 0; j < n; j++) {
      const rk_transform *want = listed[j] ? &a[j] : &untouched;
      cr_assert(memcmp(&b[j], want, sizeof *want) == 0, "time %zu joint %zu differs", i, j);
      cr_assert(memcmp(&d[j], want, sizeof *want) == 0, "time %zu joint %zu differs", i, j);
    }
  }
}

Test(clip_sample, joints_give_rk_clip_sample_bits_for_those_joints) {
  g_autoptr(rk_skeleton) s = rk_rig_kdl_humanoid_skeleton(NULL);
  g_autoptr(rk_clip) c = rk_rig_kdl_humanoid_clip(10.0, 120.0, NULL);
  cr_assert(s && c);
  const size_t n = rk_skeleton_joint_count(s);
  uint32_t keys[27] = {0};
  rk_clip_cursor cur = RK_CLIP_CURSOR_INIT(keys, 27);
  static double times[1300];
  for (size_t i = 0; i < 1300; i++) /* 60 Hz between the keys, then on them, looping */
    times[i] = i < 650 ? fmod((double)i / 60.0 + 0.25 / 120.0, 10.0) : fmod((double)i / 60.0, 10.0);
  /* Every joint; one lane short of a batch; a few out of order; none. */
  int all[31], some[] = {0, 1, 2, 5, 9, 13, 30}, shuffled[] = {20, 3, 0, 17, 4};
  for (int j = 0; j < 31; j++)
    all[j] = j;
  check_joints(c, rk_skeleton_rest_locals(s), n, all, n, &cur, times, 1300);
  check_joints(c, rk_skeleton_rest_locals(s), n, some, G_N_ELEMENTS(some), &cur, times, 1300);
  check_joints(c, rk_skeleton_rest_locals(s), n, shuffled, G_N_ELEMENTS(shuffled), &cur, times, 1300);
  check_joints(c, rk_skeleton_rest_locals(s), n, NULL, 0, &cur, times, 10);
  /* Random times with random rotation tracks, below and above the key spacing. */
  guint64 rng = 5;
  g_autoptr(rk_clip) r = rotation_clip(6, 200, &rng);
  g_autofree rk_transform *rest = rest_poses(6);
  for (size_t i = 0; i < 1300; i++)
    times[i] = rk_test_uniform(&rng, -1.0, rk_clip_duration(r) + 1.0);
  int odd[] = {1, 3, 5};
  check_joints(r, rest, 6, odd, 3, NULL, times, 1300);
}

Test(clip_sample, joints_refuse_what_does_not_fit) {
  guint64 rng = 3;
  g_autoptr(rk_clip) c = rotation_clip(3, 10, &rng); /* 4 tracks */
  rk_transform out[3], before[3];
  memset(out, 0x5a, sizeof out);
  memcpy(before, out, sizeof out);
  uint32_t keys[4] = {0};
  rk_clip_cursor small = RK_CLIP_CURSOR_INIT(keys, 3), none = RK_CLIP_CURSOR_INIT(NULL, 4);
  const int ok[] = {0, 2}, outside[] = {0, 3}, negative[] = {-1};
  cr_assert_not(rk_clip_sample_joints(c, 0.1, ok, 2, &small, out, 3));
  cr_assert_not(rk_clip_sample_joints(c, 0.1, ok, 2, &none, out, 3));
  cr_assert_not(rk_clip_sample_joints(c, 0.1, ok, 2, NULL, out, 2));
  cr_assert_not(rk_clip_sample_joints(c, 0.1, outside, 2, NULL, out, 3));
  cr_assert_not(rk_clip_sample_joints(c, 0.1, negative, 1, NULL, out, 3));
  cr_assert_not(rk_clip_sample_joints(c, 0.1, NULL, 1, NULL, out, 3));
  cr_assert_not(rk_clip_sample_joints(NULL, 0.1, ok, 2, NULL, out, 3));
  cr_assert(memcmp(out, before, sizeof out) == 0);
  cr_assert(rk_clip_sample_joints(c, 0.1, ok, 2, NULL, out, 3));
  cr_assert(memcmp(&out[1], &before[1], sizeof out[1]) == 0);
}

Test(clip_sample, close_keys_stay_within_the_nlerp_bound) {
  /* Keys just inside rk_quat_slerp's linear-blend threshold (dot 0.9995): the sample departs
   * from constant-speed rotation by at most the documented 1.02e-6 rad. */
  const double phi = acos(0.9995) * 0.999999; /* the 4D angle between the keys */
  const rk_vec3 axis = rk_vec3_normalize(rk_vec3_make(0.3, -0.5, 0.8));
  const rk_quat q0 = rk_quat_from_axis_angle(rk_vec3_make(1, 0, 0), 0.4);
  const rk_quat q1 = rk_quat_mul(q0, rk_quat_from_axis_angle(axis, 2 * phi));
  const double times[2] = {0, 1};
  const double v[8] = {q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w};
  g_autoptr(rk_clip) c = rk_clip_new("close", 1);
  const rk_track tr = {0, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 2, times, v};
  cr_assert(rk_clip_add_track(c, &tr, NULL));
  rk_transform rest = rk_transform_identity(), out;
  double worst = 0;
  for (int i = 1; i < 1000; i++) {
    const double u = i / 1000.0;
    cr_assert(rk_clip_sample(c, &rest, u, &out, 1));
    const rk_quat exact = rk_quat_mul(q0, rk_quat_from_axis_angle(axis, 2 * phi * u));
    worst = fmax(worst, rk_quat_angle_between(out.r, exact));
  }
  cr_assert(worst <= 1.02e-6, "worst %.3g rad", worst);
  cr_assert(worst > 0.95e-6, "worst %.3g rad: the bound is not tight", worst);
}
