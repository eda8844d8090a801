/* A source whose feet are detached parts (a game rig's foot meshes under root-level IK controls)
 * retargeted onto a character whose feet hang from its legs: the target's feet stand where the
 * source's visible feet stand. game_posed's clip keys the hips' translation and the legs only, so
 * by glTF's rule its shins end 54 mm above (and away from) its feet, which stand on the floor the
 * whole clip; onto game_soldier its contacts are those feet's and the soldier's feet are planted
 * on the floor. The contacts were looked for at the floating shins (none found) and the soldier
 * stood with its legs swung back, its feet 43 mm above the floor at every frame, while the report
 * said clean. */
#include "../plugin/retarget_test.h"

#include <rigkit/skin.h>

/* The lowest point (y, metres) of the skinned mesh of joint `name` and the joints below it, over
 * every frame of asset a's first clip: the lowest and the highest of those per-frame lows. */
static void foot_lows(rk_asset *a, const char *name, double *lo, double *hi) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  const int foot = rk_skeleton_find_joint(s, name);
  cr_assert_geq(foot, 0, "no joint %s", name);
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_skin_support) skin = rk_skin_support_from_asset(a, &e);
  cr_assert_not_null(skin, "%s", e ? e->message : "");
  const rk_clip *clip = rk_asset_clip(a, 0);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  const double fps = 30.0, duration = rk_clip_duration(clip);
  *lo = INFINITY, *hi = -INFINITY;
  for (size_t f = 0; (double)f / fps <= duration + 1e-9; f++) {
    rk_clip_sample(clip, rk_skeleton_rest_locals(s), (double)f / fps, locals, n);
    rk_fk_models(s, locals, models);
    rk_skin_point p;
    cr_assert(rk_skin_lowest_subtree(skin, models, foot, &p), "%s has no mesh", name);
    *lo = fmin(*lo, p.position.y);
    *hi = fmax(*hi, p.position.y);
  }
}

Test(detached_source, a_game_rig_with_floating_shins_plants_the_soldiers_feet_where_its_own_stand) {
  /* The source as the test means it: its detached feet on the floor, its shins ending above. */
  g_autofree char *file = rt_data("generated/game_posed.glb");
  g_autoptr(GError) e = NULL;
  rk_asset *a = rk_import_file(file, NULL, &e);
  cr_assert_not_null(a, "%s", e ? e->message : "");
  double lo, hi;
  foot_lows(a, "Foot.L", &lo, &hi);
  cr_assert(fabs(lo) <= 0.001 && fabs(hi) <= 0.001, "the source's foot stands %.1f..%.1f mm above the floor",
            1000 * lo, 1000 * hi);
  const rk_skeleton *s = rk_asset_skeleton(a);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *locals = g_new(rk_transform, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  rk_clip_sample(rk_asset_clip(a, 0), rk_skeleton_rest_locals(s), 0.0, locals, n);
  rk_fk_models(s, locals, models);
  const int end = rk_skeleton_find_joint(s, "LowerLeg.L_end"), foot = rk_skeleton_find_joint(s, "Foot.L");
  cr_assert_geq(models[end].m[13] - models[foot].m[13], 0.04, "the shin ends %.1f mm above the foot",
                1000 * (models[end].m[13] - models[foot].m[13]));
  rk_asset_free(a);

  g_autofree char *dir = rt_tmpdir();
  static const char *const clip[] = {"generated/game_posed.glb", NULL};
  JsonParser *parser = rt_run_report(dir, dir, "generated/game_soldier.glb", NULL, clip, 0, NULL);
  JsonObject *c = rt_clip(json_node_get_object(json_parser_get_root(parser)), 0);
  /* Contacts found at the source's feet (they stand still the whole clip), the planted feet's
   * mesh on the floor, and a verdict that says what the picture shows. */
  const double frames = rt_num(c, "frames", NULL);
  cr_assert_eq(rt_num(c, "contact_frames", NULL), frames, "planted at %.0f of %.0f frames",
               rt_num(c, "contact_frames", NULL), frames);
  rt_planted planted = rt_planted_of(c);
  rt_assert_planted(planted, "game_posed", "game_soldier", -3.0);
  cr_assert_leq(fabs(planted.median), 3.0, "planted feet %.2f mm above the floor", planted.median);
  cr_assert_eq(rt_num(c, "unreachable_frames", NULL), 0.0);
  cr_assert_str_eq(rt_str(c, "verdict"), "clean");
  g_object_unref(parser);

  /* The written output measured on its own: both feet's meshes on the floor at every frame. */
  g_autofree char *out = g_build_filename(dir, "game_posed.glb", NULL);
  rk_asset *o = rt_read_output(out);
  for (int side = 0; side < 2; side++) {
    foot_lows(o, side ? "Foot.R" : "Foot.L", &lo, &hi);
    cr_assert(lo >= -0.003 && hi <= 0.003, "side %d: the soldier's foot stands %.1f..%.1f mm above the floor",
              side, 1000 * lo, 1000 * hi);
  }
  rk_asset_free(o);
  rt_rmtree(dir);
}
