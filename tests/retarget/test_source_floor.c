/* A source's own body through its ground: generated/cmu_dip.bvh kneels with the left hand swung
 * 16 mm through the floor. The floor rules leave a target part as deep as the source's joints go
 * (scaled) and lift only what the transfer adds, and the verdict measures the body's depth beyond
 * the source's own: onto the character built on the clip's skeleton the hand stays where the
 * source's is (the floor used to lift it to +78.8 mm at frame 170 and the verdict called the clip
 * failed, 89.7 mm through the floor); onto another character it goes no deeper than the source's,
 * scaled. */
#include "../plugin/retarget_test.h"

#include <rigkit/fk.h>

#include <math.h>

/* Per frame (frames at fps), the lowest y (metres) of the joints of `joint`'s subtree in the
 * file's first clip, read with unit_scale (0: the file's own). */
static double *subtree_low(const char *path, double unit_scale, const char *joint, size_t frames,
                           double fps) {
  rk_import_options o = RK_IMPORT_OPTIONS_INIT;
  if (unit_scale > 0)
    o.unit_scale = unit_scale;
  g_autoptr(GError) e = NULL;
  rk_asset *a = rk_import_file(path, &o, &e);
  cr_assert_not_null(a, "%s: %s", path, e ? e->message : "");
  const rk_skeleton *s = rk_asset_skeleton(a);
  const rk_clip *clip = rk_asset_clip(a, 0);
  const int top = rk_skeleton_find_joint(s, joint);
  cr_assert_geq(top, 0, "%s has no %s", path, joint);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  double *low = g_new(double, frames);
  for (size_t f = 0; f < frames; f++) {
    rk_clip_sample(clip, rk_skeleton_rest_locals(s), (double)f / fps, locals, n);
    rk_fk_models(s, locals, models);
    low[f] = INFINITY;
    for (size_t j = (size_t)top; j < rk_skeleton_subtree_end(s, (size_t)top); j++)
      low[f] = fmin(low[f], models[j].m[13]);
  }
  rk_asset_free(a);
  return low;
}

/* Retargets cmu_dip.bvh onto target (a tests/data name) into dir, with foot IK or without (the
 * pose transfer alone: no floor rule moves the body); returns the report's entry (parser in *p)
 * and in *low the lowest joint of the output's subtree of hand per frame. */
static JsonObject *dip_onto(const char *dir, const char *target, const char *name, bool ik,
                            const char *hand, JsonParser **p, double **low, size_t *frames) {
  static const char *const with_ik[] = {"--unit", "cmu", NULL};
  static const char *const no_ik[] = {"--unit", "cmu", "--no-ik", NULL};
  static const char *const clips[] = {"generated/cmu_dip.bvh", NULL};
  *p = rt_run_report(dir, dir, target, ik ? with_ik : no_ik, clips, 0, NULL);
  const char *clip;
  JsonObject *c = rt_ok_entry(*p, 0, name, &clip);
  *frames = (size_t)rt_num(c, "frames", NULL);
  g_autofree char *glb = g_build_filename(dir, "cmu_dip.glb", NULL);
  *low = subtree_low(glb, 0, hand, *frames, rt_num(c, "fps", NULL));
  return c;
}

/* The source's left hand per frame (metres above its ground): the clip on its own skeleton by the
 * pose transfer alone. */
static double *source_hand(size_t *frames) {
  g_autofree char *dir = rt_tmpdir();
  JsonParser *p;
  double *low;
  dip_onto(dir, "generated/cmu_char.glb", "cmu_char", false, "LeftHand", &p, &low, frames);
  g_object_unref(p);
  rt_rmtree(dir);
  return low;
}

/* The source's hand and the output's onto target (with foot IK), frame by frame. */
typedef struct dip {
  char *dir;
  JsonParser *p;
  JsonObject *c; /* the output's report entry */
  double *src, *out;
  size_t frames;
} dip;

static dip dip_run(const char *target, const char *name, const char *hand) {
  dip d = {rt_tmpdir(), NULL, NULL, NULL, NULL, 0};
  size_t n;
  d.src = source_hand(&d.frames);
  d.c = dip_onto(d.dir, target, name, true, hand, &d.p, &d.out, &n);
  cr_assert_eq(n, d.frames);
  return d;
}

static void dip_clear(dip *d) {
  g_object_unref(d->p);
  rt_rmtree(d->dir);
  g_free(d->dir);
  g_free(d->src);
  g_free(d->out);
}

Test(source_floor, the_hand_stays_as_deep_as_the_sources_on_its_own_skeleton) {
  dip d = dip_run("generated/cmu_char.glb", "cmu_char", "LeftHand");
  const double *src = d.src, *out = d.out;
  size_t deepest = 0;
  for (size_t f = 0; f < d.frames; f++) {
    deepest = src[f] < src[deepest] ? f : deepest;
    cr_assert_geq(out[f], fmin(0.0, src[f]) - 0.001,
                  "frame %zu: the hand's lowest joint at %.1f mm, deeper than the source's %.1f mm",
                  f, 1000 * out[f], 1000 * src[f]);
  }
  cr_log_info("the source's hand %.1f mm, the output's %.1f mm at frame %zu", 1000 * src[deepest],
              1000 * out[deepest], deepest);
  cr_assert_lt(src[deepest], -0.010, "the source's hand goes through the floor");
  /* Its mesh may go twice the source's joints' depth through, no further: the hand's box reaches
   * further below its lowest joint than that, so the joint stands 5.6 mm above the source's. */
  cr_assert_lt(fabs(out[deepest] - src[deepest]), 0.006,
               "frame %zu: the hand's lowest joint at %.1f mm, the source's at %.1f mm", deepest,
               1000 * out[deepest], 1000 * src[deepest]);
  cr_assert_neq(strcmp(rt_str(d.c, "verdict"), "failed"), 0, "the verdict blames the transfer");
  cr_assert(!rt_warns(d.c, "body-through-floor"), "the source's own depth is not the transfer's");
  cr_assert_lt(rt_num(d.c, "floor_penetration_mm", NULL), 1.0);
  dip_clear(&d);
}

Test(source_floor, the_hand_goes_no_deeper_than_the_sources_scaled_on_another_character) {
  dip d = dip_run("generated/mh_char.glb", "mh_char", "Hand_L");
  const double *src = d.src, *out = d.out;
  const double scale = rt_num(d.c, "target_height_m", NULL) / rt_num(d.c, "source_height_m", NULL);
  double worst = -INFINITY;
  size_t at = 0;
  for (size_t f = 0; f < d.frames; f++)
    if (scale * fmin(0, src[f]) - out[f] > worst) {
      worst = scale * fmin(0, src[f]) - out[f];
      at = f;
    }
  cr_log_info("deepest beyond the source's (scaled %.3f): %.2f mm at frame %zu (source %.1f mm, "
              "output %.1f mm)", scale, 1000 * worst, at, 1000 * src[at], 1000 * out[at]);
  cr_assert_lt(worst, 0.001, "frame %zu: the hand's lowest joint at %.1f mm, the source's scaled "
               "at %.1f mm", at, 1000 * out[at], 1000 * scale * src[at]);
  cr_assert(!rt_warns(d.c, "body-through-floor"));
  dip_clear(&d);
}
