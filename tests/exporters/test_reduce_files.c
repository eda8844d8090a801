/* Key reduction on real captures: the MakeHuman walk cycle looped to CMU length (35 s, resampled
 * at 120 fps like the CMU database) and the Fox's clips; the bound is checked independently at
 * every frame and the key counts are printed ("keys 74,000 -> 9,100 at 1 mm"). */
#include "shared_files.h"

/* The clip repeated `times` times back to back (each track's keys shifted by the period). */
static rk_clip *loop_clip(const rk_clip *c, size_t times) {
  const double period = rk_clip_duration(c);
  rk_clip *out = rk_clip_new(rk_clip_name(c), rk_clip_joint_count(c));
  for (size_t i = 0; i < rk_clip_track_count(c); i++) {
    const rk_track *t = rk_clip_track(c, i);
    const size_t nc = (size_t)rk_channel_components(t->channel);
    cr_assert_neq(t->interp, RK_INTERP_CUBIC);
    /* the last key of a cycle is the first of the next: drop it except at the very end */
    const size_t per = t->key_count > 1 && t->times[t->key_count - 1] >= period ? t->key_count - 1
                                                                               : t->key_count;
    const size_t n = per * times + (t->key_count - per);
    g_autofree double *tt = g_new(double, n);
    g_autofree double *vv = g_new(double, n * nc);
    size_t k = 0;
    for (size_t r = 0; r < times; r++)
      for (size_t j = 0; j < per; j++, k++) {
        tt[k] = t->times[j] + (double)r * period;
        memcpy(vv + k * nc, t->values + j * nc, nc * sizeof(double));
      }
    for (size_t j = per; j < t->key_count; j++, k++) {
      tt[k] = t->times[j] + (double)(times - 1) * period;
      memcpy(vv + k * nc, t->values + j * nc, nc * sizeof(double));
    }
    rk_track lt = {t->joint, t->channel, t->interp, k, tt, vv};
    cr_assert(rk_clip_add_track(out, &lt, NULL));
  }
  rk_clip_set_fps(out, rk_clip_fps(c));
  return out;
}

static double max_distance(const rk_skeleton *s, const rk_clip *a, const rk_clip *b, double fps) {
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_vec3 *pa = g_new(rk_vec3, n), *pb = g_new(rk_vec3, n);
  const size_t frames = (size_t)llround(rk_clip_duration(a) * fps) + 1;
  double worst = 0;
  for (size_t f = 0; f < frames; f++) {
    const double t = fmin((double)f / fps, rk_clip_duration(a));
    fixture_world_positions(s, a, t, pa);
    fixture_world_positions(s, b, t, pb);
    for (size_t j = 0; j < n; j++)
      worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(pa[j], pb[j])));
  }
  return worst;
}

static void reduce_and_check(const char *label, const rk_skeleton *s, const rk_clip *c, double fps,
                             double tol, double max_ratio) {
  rk_reduce_stats st;
  g_autoptr(GError) e = NULL;
  const gint64 t0 = g_get_monotonic_time();
  g_autoptr(rk_clip) r = rk_clip_reduce(c, s, tol, fps, &st, &e);
  const double secs = (double)(g_get_monotonic_time() - t0) / 1e6;
  cr_assert_not_null(r, "%s", e ? e->message : "");
  g_autofree char *summary = rk_reduce_stats_summary(&st, tol, s);
  printf("reduce: %s, %zu joints: %s, %.2f s\n", label, rk_skeleton_joint_count(s), summary, secs);
  const double measured = max_distance(s, c, r, st.fps);
  cr_assert(measured <= tol + RK_REDUCE_SLACK_M, "%s: error %g m beyond %g m", label, measured, tol);
  cr_assert(st.keys_output <= st.keys_baked * max_ratio, "%s: %zu of %zu keys kept", label,
            st.keys_output, st.keys_baked);
}

Test(reduce_files, makehuman_walk_looped_to_cmu_length) {
  g_autofree char *path = shared_path("makehuman_walk1.bvh");
  g_autoptr(rk_asset) a = rk_import_file(path, NULL, NULL);
  cr_assert_not_null(a);
  const rk_skeleton *s = rk_asset_skeleton(a);
  g_autoptr(rk_clip) looped = loop_clip(rk_asset_clip(a, 0), 64); /* 64 cycles of 13/24 s */
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_clip) cmu = rk_clip_bake(looped, rk_skeleton_rest_locals(s), 120, &e);
  cr_assert_not_null(cmu, "%s", e ? e->message : "");
  cr_assert(rk_clip_frame_count(cmu) > 4000);
  reduce_and_check("MakeHuman walk x64 (CMU length, 120 fps)", s, cmu, 0, 1e-3, 0.2);
  reduce_and_check("MakeHuman walk x64 (CMU length, 120 fps)", s, cmu, 0, 1e-2, 0.1);
}

Test(reduce_files, fox_clips) {
  g_autofree char *path = shared_path("Fox.glb");
  g_autoptr(rk_asset) a = rk_import_file(path, NULL, NULL);
  cr_assert_not_null(a);
  const rk_skeleton *s = rk_asset_skeleton(a);
  /* The Fox is 60 m tall in its file's units: 1 mm is a very tight bound for it. */
  for (size_t i = 0; i < rk_asset_clip_count(a); i++) {
    g_autofree char *label = g_strdup_printf("Fox '%s'", rk_clip_name(rk_asset_clip(a, i)));
    reduce_and_check(label, s, rk_asset_clip(a, i), 120, 1e-2, 0.9);
  }
}
