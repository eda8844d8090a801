/* The pelvis eased to what the legs reach (retarget_reach.c), measured on written outputs of the
 * bundled clips and game rigs: where no foot is planted and a short leg, folded as far as it goes,
 * cannot lift its foot out of the floor by bending, the pelvis rises eased ahead (before, the
 * solve pulled it up within each frame: on a CC0 game robot's boxing clip it leapt by 24 cm in
 * one frame); and a free leg whose knee is raised above the hip lifts the pelvis for its shin
 * instead of folding the thigh down through the floor. */
#include "../plugin/retarget_test.h"
#include "stiff_figures.h"

/* game_shortlegs in a deep squat whose feet slide (no foot planted): its legs, shorter in the
 * thigh than in the shin, fold no further than the source's, so the transferred feet stand through
 * the floor. The pelvis never moves within a frame for them (pelvis_frames counts those moves;
 * before, 14 frames), it rises ahead (lifted frames) and moves from frame to frame by no more
 * than the source's hips (scaled) plus 0.4 mm (0.27 mm; before, 0.67 mm). */
Test(retarget_reach, free_feet_out_of_the_floor_lift_the_pelvis_ahead) {
  g_autofree char *target = rt_data("generated/game_shortlegs.glb");
  g_autofree char *dir = rt_tmpdir();
  static const char *const cmu[] = {"--unit", "cmu", NULL};
  static const char *const squat[] = {"generated/cmu_squat.bvh", NULL};
  JsonParser *p = rt_run_report(dir, dir, "generated/game_shortlegs.glb", cmu, squat, 0, NULL);
  const char *clip;
  JsonObject *c = rt_ok_entry(p, 0, "game_shortlegs", &clip);
  g_autofree char *source = rt_data(squat[0]);
  stiff_figures f;
  g_autoptr(GError) e = NULL;
  cr_assert(stiff_measure(target, source, 0.0254 / 0.45, rt_str(c, "output"), &f, &e), "%s: %s", clip,
            e ? e->message : "");
  const double pelvis = rt_num(c, "pelvis_frames", NULL), lifted = rt_num(c, "lifted_frames", NULL),
               unreachable = rt_num(c, "unreachable_frames", NULL);
  cr_log_info("%s onto game_shortlegs: %s; pelvis moved within %.0f frames, lifted at %.0f; moves "
              "%.3f mm a frame beyond the source's; unreachable %.0f",
              clip, rt_str(c, "verdict"), pelvis, lifted, 1000 * f.pelvis_beyond, unreachable);
  cr_assert_gt(lifted, 0, "%s: the pelvis never rose for the free feet: not the case tested", clip);
  cr_assert_eq(pelvis, 0, "%s: the solve moved the pelvis within %.0f frames", clip, pelvis);
  cr_assert_eq(unreachable, 0, "%s: %.0f frames with a goal out of reach", clip, unreachable);
  cr_assert_leq(f.pelvis_beyond, 4e-4, "%s: the pelvis moves %.3f mm a frame beyond the source's", clip,
                1000 * f.pelvis_beyond);
  cr_assert_not(rt_warns(c, "hip-bob-changed"), "%s: the hip bob is flagged", clip);
  cr_assert_str_eq(rt_str(c, "verdict"), "clean", "%s: verdict %s", clip, rt_str(c, "verdict"));
  g_object_unref(p);
  rt_rmtree(dir);
}
