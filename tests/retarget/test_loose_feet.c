/* Detached feet (game_soldier.glb: Foot.L/R hang from root-level controls, the legs end at the
 * shins): the bundled walk and hop retarget onto them with each foot flat while its leg is
 * planted and pitching as the source's foot pitches while the source's heel is up (heel-off,
 * toe-off, pointed toes in the hop), the skinned mesh never through the floor and the planted
 * points still. game_robot.glb has no such foot (its feet are in its shins' meshes): its
 * outputs are those of a leg without a foot. */
#include "../plugin/retarget_test.h"

#include <rigkit/skin.h>

/* The pitch (degrees, toes up positive) of a sole from its heel to its ball. */
static double pitch_deg(const rk_vec3 *pts) {
  const rk_vec3 d = rk_vec3_sub(pts[RK_SOLE_BALL], pts[RK_SOLE_HEEL]);
  return atan2(d.y, hypot(d.x, d.z)) / RK_DEG;
}

/* World models of every frame of an asset's first clip at fps (frames of them). */
static rk_mat4 *clip_models(const rk_asset *a, double fps, size_t frames) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  const rk_clip *clip = rk_asset_clip(a, 0);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  rk_mat4 *models = g_new(rk_mat4, frames * n);
  for (size_t f = 0; f < frames; f++) {
    cr_assert(rk_clip_sample_frame(clip, rk_skeleton_rest_locals(s), fps, f, locals, n));
    rk_fk_models(s, locals, models + f * n);
  }
  return models;
}

/* Whether a report entry's contacts of joint j hold a frame within `margin` of f. */
static bool planted_near(JsonObject *c, const char *j, size_t f, int margin) {
  JsonArray *iv = json_object_get_array_member(json_object_get_object_member(c, "contacts"), j);
  for (guint i = 0; iv && i < json_array_get_length(iv); i++) {
    JsonArray *a = json_array_get_array_element(iv, i);
    if ((gint64)f + margin >= json_array_get_int_element(a, 0) &&
        (gint64)f - margin <= json_array_get_int_element(a, 1))
      return true;
  }
  return false;
}

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One foot of a written output against the source's: flat while planted, its pitch the source's
 * in the air, and how low the output's mesh goes (lowest, metres, over every frame). */
static void check_foot(JsonObject *c, const char *clip, int side, const rk_asset *src,
                       const rk_mat4 *sm, const rk_asset *out, const rk_mat4 *om, size_t frames,
                       double fps) {
  const rk_skeleton *ss = rk_asset_skeleton(src), *os = rk_asset_skeleton(out);
  const size_t ns = rk_skeleton_joint_count(ss), no = rk_skeleton_joint_count(os);
  const int sf = rk_skeleton_find_joint(ss, side ? "RightFoot" : "LeftFoot");
  const int st = rk_skeleton_find_joint(ss, side ? "RightToeBase" : "LeftToeBase");
  const int of = rk_skeleton_find_joint(os, side ? "Foot.R" : "Foot.L");
  const char *shin = side ? "LowerLeg.R" : "LowerLeg.L";
  cr_assert(sf >= 0 && st >= 0 && of >= 0);
  /* The source's sole from its bones (ahead: where its toes point at rest), the detached foot's
   * from its mesh (the character faces +Z). */
  g_autofree rk_mat4 *rest = g_new(rk_mat4, ns);
  rk_skeleton_rest_models(ss, rest);
  const rk_vec3 toes = rk_vec3_sub(rk_mat4_get_translation(&rest[st]), rk_mat4_get_translation(&rest[sf]));
  rk_sole ssole, osole;
  cr_assert(rk_sole_from_bones(ss, sf, st, rk_vec3_make(toes.x, 0, toes.z), &ssole, NULL));
  g_autoptr(rk_skin_support) skin = rk_skin_support_from_asset(out, NULL);
  cr_assert(rk_sole_build(skin, os, of, -1, rk_vec3_make(0, 0, 1), &osole, NULL));
  const double s0 = pitch_deg(ssole.rest), o0 = pitch_deg(osole.rest);
  const int margin = (int)ceil(0.1 * fps) + 1; /* the pins' blend (blend_time) and a frame */
  g_autofree double *err = g_new(double, frames);
  size_t air = 0;
  double flat = 0, src_max = 0, out_max = 0;
  for (size_t f = 0; f < frames; f++) {
    rk_vec3 sp[RK_SOLE_POINTS], op[RK_SOLE_POINTS];
    rk_sole_at(&ssole, sm + f * ns, sp);
    rk_sole_at(&osole, om + f * no, op);
    const double ds = pitch_deg(sp) - s0, dt = pitch_deg(op) - o0;
    if (planted_near(c, shin, f, 0))
      flat = fmax(flat, fabs(dt));
    if (planted_near(c, shin, f, margin))
      continue;
    err[air++] = fabs(dt - ds);
    src_max = fmax(src_max, fabs(ds));
    out_max = fmax(out_max, fabs(dt));
  }
  cr_assert_gt(air, frames / 10, "%s: %s in the air in %zu frames", clip, shin, air);
  qsort(err, air, sizeof *err, by_value);
  const double median = err[air / 2], p90 = err[(size_t)(0.9 * (double)(air - 1))];
  cr_log_info("%s side %d: flat within %.3f deg planted; in the air (%zu frames) the source "
              "pitches up to %.1f deg, the foot %.1f deg, apart by %.2f deg (median), %.2f (p90)",
              clip, side, flat, air, src_max, out_max, median, p90);
  cr_assert_lt(flat, 0.1, "%s: %s's foot tilts %.2f deg while planted", clip, shin, flat);
  /* It rolls: nearly as far as the source's foot, most frames within a twentieth of the source's
   * largest pitch, nine in ten within a tenth (the two soles differ in shape, and the floor may
   * take off what a leg cannot lift). */
  cr_assert_gt(out_max, 0.85 * src_max, "%s: the foot pitches %.1f deg of the source's %.1f",
               clip, out_max, src_max);
  cr_assert_lt(median, 0.05 * src_max, "%s: pitch apart by %.2f deg (median)", clip, median);
  cr_assert_lt(p90, 0.1 * src_max, "%s: pitch apart by %.2f deg (p90)", clip, p90);
}

Test(loose_feet, detached_feet_roll_with_the_source_and_stay_out_of_the_floor) {
  g_autofree char *dir = rt_tmpdir();
  static const char *const cmu[] = {"--unit", "cmu", NULL};
  static const char *const clips[] = {"generated/cmu_walk.bvh", "generated/cmu_hop.bvh", NULL};
  JsonParser *p = rt_run_report(dir, dir, "generated/game_soldier.glb", cmu, clips, 0, NULL);
  for (guint i = 0; i < rt_entry_count(p); i++) {
    const char *clip;
    JsonObject *c = rt_ok_entry(p, i, "game_soldier", &clip);
    rt_assert_planted(rt_planted_of(c), clip, "game_soldier", -5);
    cr_assert_str_eq(rt_str(c, "verdict"), "clean", "%s", clip);
    cr_assert_lt(rt_num(c, "foot_pitch_deg", "p95"), 10, "%s", clip);
    rk_import_options o = RK_IMPORT_OPTIONS_INIT;
    o.unit_scale = 0.01;
    g_autofree char *path = rt_data(clips[i]);
    g_autoptr(GError) e = NULL;
    rk_asset *src = rk_import_file(path, &o, &e);
    cr_assert_not_null(src, "%s", e ? e->message : "");
    rk_asset *out = rt_read_output(rt_str(c, "output"));
    const double fps = rt_num(c, "fps", NULL);
    const size_t frames = (size_t)rt_num(c, "frames", NULL);
    g_autofree rk_mat4 *sm = clip_models(src, fps, frames);
    g_autofree rk_mat4 *om = clip_models(out, fps, frames);
    for (int side = 0; side < 2; side++)
      check_foot(c, clip, side, src, sm, out, om, frames, fps);
    /* The skinned mesh (feet and all) on or above the floor (y = 0) in every frame. */
    g_autoptr(rk_skin_support) skin = rk_skin_support_from_asset(out, NULL);
    const rk_skeleton *os = rk_asset_skeleton(out);
    const size_t no = rk_skeleton_joint_count(os);
    g_autofree int *all = g_new(int, no);
    for (size_t j = 0; j < no; j++)
      all[j] = (int)j;
    double low = INFINITY;
    for (size_t f = 0; f < frames; f++) {
      rk_skin_point q;
      cr_assert(rk_skin_lowest(skin, om + f * no, all, no, &q));
      low = fmin(low, q.position.y);
    }
    cr_log_info("%s: the mesh's lowest point %.2f mm", clip, 1000 * low);
    cr_assert_geq(low, -0.002, "%s: the mesh goes %.1f mm through the floor", clip, -1000 * low);
    rk_asset_free(out);
    rk_asset_free(src);
  }
  g_object_unref(p);
  rt_rmtree(dir);
}
