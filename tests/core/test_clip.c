/* Clips: track checks, sampling (step, linear, slerp, cubic), baking. */
#include "rk_test.h"

#include "../../core/src/clip_internal.h"

#include <string.h>

static rk_skeleton *two_joints(void) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_transform x = rk_transform_identity();
  x.t = rk_vec3_make(0, 1, 0);
  rk_skeleton_builder_add_joint(b, "root", -1, &x, 0);
  rk_skeleton_builder_add_joint(b, "tip", 0, &x, 0);
  return rk_skeleton_builder_build(b, NULL, NULL);
}

Test(clip, linear_translation_and_slerp_rotation) {
  g_autoptr(rk_skeleton) s = two_joints();
  g_autoptr(rk_clip) c = rk_clip_new("walk", 2);
  const double times[2] = {0, 2};
  const double tv[6] = {0, 0, 0, 2, 4, 6};
  rk_track t = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, 2, times, tv};
  cr_assert(rk_clip_add_track(c, &t, NULL));
  rk_quat q1 = rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), RK_PI / 2);
  const double rv[8] = {0, 0, 0, 1, q1.x, q1.y, q1.z, q1.w};
  rk_track r = {1, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 2, times, rv};
  cr_assert(rk_clip_add_track(c, &r, NULL));
  rk_assert_near(rk_clip_duration(c), 2, 0);
  rk_transform out[2];
  cr_assert(rk_clip_sample(c, rk_skeleton_rest_locals(s), 0.5, out, 2));
  rk_assert_vec3_near(out[0].t, rk_vec3_make(0.5, 1, 1.5), 1e-15);
  rk_assert_quat_near(out[1].r, rk_quat_from_axis_angle(rk_vec3_make(0, 0, 1), RK_PI / 8), 1e-12);
  /* The untracked translation of joint 1 keeps its rest. */
  rk_assert_vec3_near(out[1].t, rk_vec3_make(0, 1, 0), 0);
  /* Clamped outside [0, duration]. */
  cr_assert(rk_clip_sample(c, rk_skeleton_rest_locals(s), 99, out, 2));
  rk_assert_vec3_near(out[0].t, rk_vec3_make(2, 4, 6), 0);
  cr_assert_not(rk_clip_sample(c, rk_skeleton_rest_locals(s), 0, out, 3));
}

Test(clip, step_and_cubic_follow_gltf) {
  g_autoptr(rk_clip) c = rk_clip_new("c", 1);
  const double times[2] = {1, 3};
  const double sv[6] = {1, 1, 1, 3, 3, 3};
  rk_track st = {0, RK_CHANNEL_SCALE, RK_INTERP_STEP, 2, times, sv};
  cr_assert(rk_clip_add_track(c, &st, NULL));
  /* Cubic: in-tangent, value, out-tangent per key. Hermite with v0 = 0, v1 = 1, zero tangents
   * gives the smoothstep 3s^2 - 2s^3. */
  const double cv[18] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0};
  rk_track ct = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_CUBIC, 2, times, cv};
  cr_assert(rk_clip_add_track(c, &ct, NULL));
  rk_transform rest = rk_transform_identity(), out;
  cr_assert(rk_clip_sample(c, &rest, 2.5, &out, 1));
  rk_assert_vec3_near(out.s, rk_vec3_make(1, 1, 1), 0);
  double s = 0.75, e = 3 * s * s - 2 * s * s * s;
  rk_assert_vec3_near(out.t, rk_vec3_make(e, e, e), 1e-15);
  /* Before the first key: first value. */
  cr_assert(rk_clip_sample(c, &rest, 0.2, &out, 1));
  rk_assert_vec3_near(out.t, rk_vec3_make(0, 0, 0), 0);
}

/* Sampling exactly on a key (a clip sampled at its own rate) takes a shortcut past the
 * interpolation: it must give what the interpolation gives there, the key itself (a rotation key
 * normalised as slerp does), and meet the curve just after the key. */
Test(clip, sampling_on_a_key_gives_the_key) {
  g_autoptr(rk_clip) c = rk_clip_new("c", 3);
  const double times[3] = {0, 0.5, 1.25};
  const double rv[12] = {0, 0, 0, 2, 0.3, -0.2, 0.1, 0.9, -0.4, 0.5, 0.2, 0.6}; /* not unit */
  rk_track r = {0, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 3, times, rv};
  cr_assert(rk_clip_add_track(c, &r, NULL));
  const double tv[9] = {1, 2, 3, -4, 5.5, 6, 7, 8, -9};
  rk_track t = {1, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, 3, times, tv};
  cr_assert(rk_clip_add_track(c, &t, NULL));
  /* Cubic: in-tangent, value, out-tangent per key, all non-zero. */
  const double cv[27] = {1, 1, 1, 0.5, 0.25, 2, 3, -1, 2, 0.3, 0.2, 0.1, -2, 4, 1.5,
                         -1, 2, 0.7, 2, 2, 2, 0.1, -0.3, 0.9, 1, 1, 1};
  rk_track ct = {2, RK_CHANNEL_TRANSLATION, RK_INTERP_CUBIC, 3, times, cv};
  cr_assert(rk_clip_add_track(c, &ct, NULL));
  rk_transform rest[3] = {rk_transform_identity(), rk_transform_identity(),
                          rk_transform_identity()};
  rk_transform on[3], after[3];
  cr_assert(rk_clip_sample(c, rest, 0.5, on, 3));
  const rk_quat k1 = rk_quat_normalize(rk_quat_make(0.3, -0.2, 0.1, 0.9));
  const rk_quat k2 = rk_quat_normalize(rk_quat_make(-0.4, 0.5, 0.2, 0.6));
  rk_assert_quat_near(on[0].r, rk_quat_slerp(k1, k2, 0.0), 1e-15);
  rk_assert_vec3_near(on[1].t, rk_vec3_make(-4, 5.5, 6), 0);
  rk_assert_vec3_near(on[2].t, rk_vec3_make(-2, 4, 1.5), 0);
  cr_assert(rk_clip_sample(c, rest, 0.5 + 1e-9, after, 3));
  rk_assert_quat_near(after[0].r, on[0].r, 1e-8);
  rk_assert_vec3_near(after[1].t, on[1].t, 1e-7);
  rk_assert_vec3_near(after[2].t, on[2].t, 1e-7);
}

/* Keys are looked up where the track's key rate puts them, then by binary search: on a uniform
 * grid (BVH, baked clips), on irregular times with clusters and gaps, on and between keys, the
 * sample must be the linear interpolation between the right pair (found here by a scan). */
Test(clip, sampling_finds_the_right_key_on_uniform_and_irregular_times) {
  enum { N = 400 };
  guint64 rng = 5;
  for (int layout = 0; layout < 3; layout++) {
    double times[N], values[3 * N];
    double t = 0;
    for (int k = 0; k < N; k++) {
      if (layout == 0)
        times[k] = k / 30.0; /* uniform, with the rounding of k / fps */
      else if (layout == 1)
        times[k] = (t += rk_test_uniform(&rng, 0.001, 0.1)); /* irregular */
      else
        times[k] = (t += k % 50 < 45 ? 1e-4 : 3.0); /* clusters and gaps */
      /* Random values: a wrong pair of keys would give another value even on a uniform grid. */
      values[3 * k] = rk_test_uniform(&rng, -1, 1), values[3 * k + 1] = k, values[3 * k + 2] = 0.5;
    }
    g_autoptr(rk_clip) c = rk_clip_new("c", 1);
    rk_track tr = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, N, times, values};
    cr_assert(rk_clip_add_track(c, &tr, NULL));
    g_autoptr(rk_clip) copy = rk_clip_copy(c);
    rk_transform rest = rk_transform_identity(), out, out_copy;
    for (int i = 0; i < 3000; i++) {
      const double ts = i < N ? times[i] : rk_test_uniform(&rng, times[0], times[N - 1]);
      int k = 0;
      while (k + 1 < N && times[k + 1] <= ts)
        k++;
      const double u = k + 1 < N ? (ts - times[k]) / (times[k + 1] - times[k]) : 0.0;
      const double x = k + 1 < N ? values[3 * k] + (values[3 * k + 3] - values[3 * k]) * u
                                 : values[3 * k];
      cr_assert(rk_clip_sample(c, &rest, ts, &out, 1));
      cr_assert(rk_clip_sample(copy, &rest, ts, &out_copy, 1));
      rk_assert_near(out.t.x, x, 1e-12);
      rk_assert_near(out.t.y, k + u, 1e-9);
      rk_assert_vec3_near(out_copy.t, out.t, 0);
    }
  }
}

Test(clip, refuses_bad_tracks_and_keeps_the_clip) {
  g_autoptr(rk_clip) c = rk_clip_new("c", 1);
  const double good_t[2] = {0, 1}, bad_t[2] = {1, 1}, nan_t[2] = {0, NAN};
  const double v[8] = {0, 0, 0, 1, 0, 0, 0, 1}, nan_v[8] = {0, 0, 0, 1, NAN, 0, 0, 1},
               zero_q[8] = {0, 0, 0, 0, 0, 0, 0, 1};
  struct {
    rk_track t;
    const char *expect;
  } cases[] = {
      {{1, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 2, good_t, v}, "joint 1"},
      {{0, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 2, bad_t, v}, "not increasing"},
      {{0, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 2, nan_t, v}, "not finite"},
      {{0, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 2, good_t, nan_v}, "non-finite value"},
      {{0, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 2, good_t, zero_q}, "zero quaternion"},
      {{0, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 0, good_t, v}, "no keys"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(GError) error = NULL;
    cr_assert_not(rk_clip_add_track(c, &cases[i].t, &error), "case %zu accepted", i);
    cr_assert(strstr(error->message, cases[i].expect), "case %zu: %s", i, error->message);
  }
  cr_assert_eq(rk_clip_track_count(c), 0);
}

Test(clip, bake_gives_one_key_per_frame_and_continuous_quaternions) {
  g_autoptr(rk_clip) c = rk_clip_new("spin", 1);
  /* A full turn about y in 4 keys: raw quaternions flip hemisphere halfway. */
  const double times[5] = {0, 0.25, 0.5, 0.75, 1.0};
  double rv[20];
  for (int k = 0; k < 5; k++) {
    rk_quat q = rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), k * RK_PI / 2);
    if (q.w < 0)
      q = rk_quat_make(-q.x, -q.y, -q.z, -q.w);
    rv[4 * k] = q.x, rv[4 * k + 1] = q.y, rv[4 * k + 2] = q.z, rv[4 * k + 3] = q.w;
  }
  rk_track r = {0, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 5, times, rv};
  cr_assert(rk_clip_add_track(c, &r, NULL));
  rk_clip_set_fps(c, 30);
  cr_assert_eq(rk_clip_frame_count(c), 31);
  rk_transform rest = rk_transform_identity();
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_clip) b = rk_clip_bake(c, &rest, 0, &error);
  cr_assert(b, "%s", error ? error->message : "");
  const rk_track *bt = rk_clip_track(b, 0);
  cr_assert_eq(bt->key_count, 31);
  rk_assert_near(bt->times[30], 1.0, 1e-15);
  for (size_t k = 1; k < bt->key_count; k++) {
    const double *p = bt->values + 4 * (k - 1), *q = bt->values + 4 * k;
    cr_assert_gt(p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3], 0, "key %zu flips", k);
  }
  /* Baked samples equal the original at every frame. */
  for (int f = 0; f <= 30; f++) {
    rk_transform a, z;
    rk_clip_sample(c, &rest, f / 30.0, &a, 1);
    rk_clip_sample(b, &rest, f / 30.0, &z, 1);
    rk_assert_quat_near(a.r, z.r, 1e-12);
  }
  g_autoptr(GError) e2 = NULL;
  rk_clip_set_fps(c, 0);
  cr_assert_null(rk_clip_bake(c, &rest, 0, &e2));
}

/* The frame grid of a bake: frames every 1/fps up to the duration rounded to the nearest frame,
 * every key on the grid (the last one too: the duration is rounded to a whole frame); frame times
 * that do not increase (past the grid's end) are not keys. */
Test(clip, bake_frame_grid_ends_at_the_duration) {
  cr_assert_eq(rk_clip_bake_frame_count(1.0, 30), 31.0);
  cr_assert_eq(rk_clip_bake_frame_count(1.01, 30), 31.0);
  cr_assert_eq(rk_clip_bake_frame_count(1.02, 30), 32.0);
  cr_assert_eq(rk_clip_bake_frame_count(0.0, 24), 1.0);
  cr_assert(!isfinite(rk_clip_bake_frame_count(INFINITY, 30)));
  double t[33];
  cr_assert_eq(rk_clip_bake_times(1.0, 30, 31, t), 31);
  cr_assert_eq(t[0], 0.0);
  cr_assert_eq(t[30], 1.0);
  cr_assert_eq(rk_clip_bake_times(1.02, 30, 32, t), 32, "the duration rounded up to a frame");
  cr_assert_eq(t[31], 31.0 / 30, "the last frame on the grid, not at 1.02 s (frame 30.6)");
  for (int f = 0; f < 32; f++)
    rk_assert_near(t[f] * 30, (double)f, 1e-12);
  for (int f = 1; f < 32; f++)
    cr_assert_gt(t[f], t[f - 1]);
  cr_assert_eq(rk_clip_bake_duration(1.02, 30), 31.0 / 30);
  cr_assert_eq(rk_clip_bake_times(1.01, 30, 31, t), 31, "the duration rounded down to a frame");
  cr_assert_eq(t[30], 1.0);
  cr_assert_eq(rk_clip_bake_duration(1.01, 30), 1.0);
  /* A duration on the grid but for rounding keeps its bits (922 / 30 less one ulp). */
  const double d = nextafter(922.0 / 30, 0);
  cr_assert_eq(rk_clip_bake_duration(d, 30), d);
  cr_assert_eq(rk_clip_bake_duration(30.723, 30), 922.0 / 30, "frame 921.69: the last at 922");
  cr_assert_eq(rk_clip_bake_times(1.0, 30, 33, t), 31, "times capped at the duration: not keys");
  cr_assert_eq(t[32], 1.0);
  cr_assert_eq(rk_clip_bake_times(0.0, 30, 1, t), 1, "a single frame");
}

/* A track adopted (its arrays taken, its inverse norms given or computed) samples as the same
 * track added (copied). */
Test(clip, adopted_tracks_are_added_tracks_without_the_copy) {
  g_autoptr(rk_clip) added = rk_clip_new("a", 2), given = rk_clip_new("b", 2);
  g_autoptr(rk_clip) computed = rk_clip_new("c", 2);
  const double times[3] = {0, 0.5, 1};
  const double q[12] = {0, 0, 0, 2, 0, 0.3826834323650898, 0, 0.9238795325112867, 0, 1, 0, 0};
  rk_track t = {1, RK_CHANNEL_ROTATION, RK_INTERP_LINEAR, 3, times, q};
  cr_assert(rk_clip_add_track(added, &t, NULL));
  double *inv = g_new(double, 3);
  for (int k = 0; k < 3; k++)
    inv[k] = rk__clip_inv_norm(rk_quat_make(q[4 * k], q[4 * k + 1], q[4 * k + 2], q[4 * k + 3]));
  for (int pass = 0; pass < 2; pass++) {
    rk_track own = t;
    own.times = g_memdup2(times, sizeof times);
    own.values = g_memdup2(q, sizeof q);
    rk__clip_adopt_track(pass ? computed : given, &own, pass ? NULL : inv);
  }
  const double tv[3] = {1, 2, 3};
  rk_track tt = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, 1, g_memdup2(times, 8), g_memdup2(tv, sizeof tv)};
  rk__clip_adopt_track(given, &tt, NULL);
  for (double at = 0; at <= 1.0; at += 0.125) {
    rk_transform rest[2] = {rk_transform_identity(), rk_transform_identity()}, a[2], b[2], c[2];
    cr_assert(rk_clip_sample(added, rest, at, a, 2) && rk_clip_sample(given, rest, at, b, 2) &&
              rk_clip_sample(computed, rest, at, c, 2));
    cr_assert(memcmp(&a[1].r, &b[1].r, sizeof a[1].r) == 0, "t = %g", at);
    cr_assert(memcmp(&a[1].r, &c[1].r, sizeof a[1].r) == 0, "t = %g", at);
    cr_assert(b[0].t.x == 1 && b[0].t.y == 2 && b[0].t.z == 3);
  }
  cr_assert_eq(rk_clip_duration(given), 1.0);
}

/* Every value position of a track (in the four-at-a-time part of the check and in its tail)
 * refused when not finite, every time position when bad; -0 is a valid first time. */
Test(clip, every_key_is_checked_wherever_it_sits) {
  const double bads[3] = {NAN, INFINITY, -INFINITY};
  double times[5] = {-0.0, 0.25, 0.5, 0.75, 1}, v[15];
  for (int i = 0; i < 15; i++)
    v[i] = 0.1 * i;
  g_autoptr(rk_clip) c = rk_clip_new("c", 1);
  rk_track t = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, 5, times, v};
  cr_assert(rk_clip_add_track(c, &t, NULL));
  for (int i = 0; i < 15; i++)
    for (int b = 0; b < 3; b++) {
      const double keep = v[i];
      v[i] = bads[b];
      g_autoptr(GError) e = NULL;
      cr_assert_not(rk_clip_add_track(c, &t, &e), "value %d = %g", i, bads[b]);
      cr_assert(strstr(e->message, "non-finite value"), "%s", e->message);
      v[i] = keep;
    }
  const double bad_times[5] = {NAN, INFINITY, -1, 1e9, 0.5};
  for (int k = 0; k < 5; k++)
    for (int b = 0; b < 5; b++) {
      const double keep = times[k];
      times[k] = bad_times[b];
      g_autoptr(GError) e = NULL;
      const bool ok = rk_clip_add_track(c, &t, &e);
      /* 0.5 is fine only where it keeps the times increasing. */
      cr_assert(ok == (b == 4 && k == 2), "time %d = %g", k, bad_times[b]);
      times[k] = keep;
    }
}

/* rk_clip_take_track: the clip takes the arrays (no copy: the track's pointers are the clip's),
 * checks them as rk_clip_add_track does, and frees them when it refuses them. */
Test(clip, taken_tracks_keep_their_arrays_and_are_checked) {
  g_autoptr(rk_clip) c = rk_clip_new("c", 1);
  double *times = g_new(double, 2), *values = g_new(double, 6);
  times[0] = 0, times[1] = 1;
  for (int i = 0; i < 6; i++)
    values[i] = i;
  rk_track t = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, 2, times, values};
  cr_assert(rk_clip_take_track(c, &t, NULL));
  const rk_track *got = rk_clip_track(c, 0);
  cr_assert(got->times == times && got->values == values, "the clip holds the given arrays");
  double *bad_t = g_new(double, 2), *bad_v = g_new(double, 6);
  bad_t[0] = 1, bad_t[1] = 0;
  memcpy(bad_v, values, 6 * sizeof(double));
  rk_track b = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, 2, bad_t, bad_v};
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_clip_take_track(c, &b, &e));
  cr_assert(strstr(e->message, "not increasing"), "%s", e->message);
  cr_assert(rk_clip_track(c, 0)->times == times, "unchanged on failure");
}

/* Tracks of n joints, keys each, a translation and a rotation per joint (fresh arrays); the
 * rotation of joint `zero` holds a zero quaternion at key 3 (none when -1). */
static rk_track *many_tracks(size_t n, size_t keys, int zero) {
  rk_track *t = g_new(rk_track, 2 * n);
  for (size_t j = 0; j < n; j++)
    for (int r = 0; r < 2; r++) {
      double *times = g_new(double, keys), *v = g_new(double, (r ? 4 : 3) * keys);
      for (size_t k = 0; k < keys; k++) {
        times[k] = (double)k / 30.0;
        if (r) {
          const rk_quat q = rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), 0.001 * (double)(k + j));
          v[4 * k] = 2 * q.x, v[4 * k + 1] = 2 * q.y, v[4 * k + 2] = 2 * q.z, v[4 * k + 3] = 2 * q.w;
        } else {
          v[3 * k] = (double)j, v[3 * k + 1] = (double)k, v[3 * k + 2] = 0.5;
        }
      }
      if (r && (int)j == zero)
        v[12] = v[13] = v[14] = v[15] = 0;
      t[2 * j + (size_t)r] = (rk_track){(int)j, r ? RK_CHANNEL_ROTATION : RK_CHANNEL_TRANSLATION,
                                        RK_INTERP_LINEAR, keys, times, v};
    }
  return t;
}

/* Clips a and b of n joints give the same bits at times 0, 0.37, ... below end. */
static void assert_same_samples(const rk_clip *a, const rk_clip *b, size_t n, double end) {
  g_autofree rk_transform *rest = g_new(rk_transform, n), *x = g_new(rk_transform, n),
                          *y = g_new(rk_transform, n);
  for (size_t j = 0; j < n; j++)
    rest[j] = rk_transform_identity();
  for (double t = 0; t < end; t += 0.37) {
    cr_assert(rk_clip_sample(a, rest, t, x, n) && rk_clip_sample(b, rest, t, y, n));
    cr_assert(memcmp(x, y, n * sizeof *x) == 0, "t=%g differs", t);
  }
}

/* Many tracks taken at once (checked on two threads) make the clip one at a time makes: the same
 * samples, and at a bad track the same error, the tracks before it taken. */
Test(clip, tracks_taken_at_once_are_tracks_taken_one_by_one) {
  const size_t n = 20, keys = 2000;
  g_autoptr(rk_clip) one = rk_clip_new("c", n), all = rk_clip_new("c", n);
  g_autofree rk_track *a = many_tracks(n, keys, -1), *b = many_tracks(n, keys, -1);
  for (size_t i = 0; i < 2 * n; i++)
    cr_assert(rk_clip_take_track(one, &a[i], NULL));
  size_t failed = 0;
  cr_assert(rk_clip_take_tracks(all, b, 2 * n, &failed, NULL));
  cr_assert_eq(failed, 2 * n);
  assert_same_samples(one, all, n, 66);
  for (int bad = 3; bad <= 17; bad += 14) {
    g_autoptr(rk_clip) c1 = rk_clip_new("c", n), c2 = rk_clip_new("c", n);
    g_autofree rk_track *p = many_tracks(n, keys, bad), *q = many_tracks(n, keys, bad);
    g_autoptr(GError) e1 = NULL, e2 = NULL;
    size_t i = 0;
    while (rk_clip_take_track(c1, &p[i], &e1))
      i++;
    for (size_t k = i + 1; k < 2 * n; k++)
      g_free((void *)p[k].times), g_free((void *)p[k].values);
    cr_assert_not(rk_clip_take_tracks(c2, q, 2 * n, &failed, &e2));
    cr_assert_eq(failed, i);
    cr_assert_eq(failed, 2 * (size_t)bad + 1);
    cr_assert_str_eq(e2->message, e1->message);
    cr_assert_eq(rk_clip_track_count(c2), rk_clip_track_count(c1));
  }
}

/* Trusted tracks (keys a reader computed itself) skip the pass over their keys but make the same
 * clip; the untrusted ones among them are still checked, and a trusted track's joint, key count
 * and last time are too. */
Test(clip, trusted_tracks_make_the_same_clip) {
  const size_t n = 8, keys = 500;
  g_autoptr(rk_clip) checked = rk_clip_new("c", n), trusted = rk_clip_new("c", n);
  g_autofree rk_track *a = many_tracks(n, keys, -1), *b = many_tracks(n, keys, -1);
  bool marks[16];
  for (size_t i = 0; i < 2 * n; i++)
    marks[i] = i % 2 == 1; /* the rotations */
  cr_assert(rk_clip_take_tracks(checked, a, 2 * n, NULL, NULL));
  cr_assert(rk_clip_take_tracks_trusted(trusted, b, marks, 2 * n, NULL, NULL));
  assert_same_samples(checked, trusted, n, 17);
  /* A bad untrusted track fails as before; a trusted one on a joint out of range or beyond the
   * duration limit fails too. */
  g_autoptr(rk_clip) c = rk_clip_new("c", n);
  g_autofree rk_track *q = many_tracks(n, keys, 2);
  bool rot_only[16];
  for (size_t i = 0; i < 2 * n; i++)
    rot_only[i] = i % 2 == 0; /* the translations: the zero rotation is still found */
  size_t failed = 0;
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_clip_take_tracks_trusted(c, q, rot_only, 2 * n, &failed, &e));
  cr_assert_eq(failed, 5);
  cr_assert(strstr(e->message, "zero quaternion"));
  g_autoptr(rk_clip) d = rk_clip_new("c", n);
  g_autofree rk_track *r = many_tracks(1, keys, -1);
  ((double *)r[1].times)[keys - 1] = 2 * RK_CLIP_MAX_DURATION;
  r[0].joint = (int)n;
  bool all[2] = {true, true};
  g_autoptr(GError) e2 = NULL;
  cr_assert_not(rk_clip_take_tracks_trusted(d, r, all, 2, &failed, &e2));
  cr_assert_eq(failed, 0);
  cr_assert(strstr(e2->message, "joint"));
  g_autoptr(rk_clip) f = rk_clip_new("c", n);
  g_autofree rk_track *s = many_tracks(1, keys, -1);
  ((double *)s[1].times)[keys - 1] = 2 * RK_CLIP_MAX_DURATION;
  g_autoptr(GError) e3 = NULL;
  cr_assert_not(rk_clip_take_tracks_trusted(f, s, all, 2, &failed, &e3));
  cr_assert_eq(failed, 1);
  cr_assert_eq(g_error_matches(e3, RK_ERROR, RK_ERROR_LIMIT), true);
  /* A trusted track whose last time is not a number is checked key by key, and fails. */
  g_autoptr(rk_clip) g = rk_clip_new("c", n);
  g_autofree rk_track *u = many_tracks(1, keys, -1);
  ((double *)u[1].times)[keys - 1] = NAN;
  g_autoptr(GError) e4 = NULL;
  cr_assert_not(rk_clip_take_tracks_trusted(g, u, all, 2, &failed, &e4));
  cr_assert_eq(failed, 1);
  cr_assert(strstr(e4->message, "time"), "%s", e4->message);
}
