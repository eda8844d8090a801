/* The pelvis eased to what the legs reach (retarget_reach.c), measured on written outputs of the
 * bundled clips and game rigs: where no foot is planted and a short leg, folded as far as it goes,
 * cannot lift its foot out of the floor by bending, the pelvis rises eased ahead (before, the
 * solve pulled it up within each frame: on a CC0 game robot's boxing clip it leapt by 24 cm in
 * one frame). */
#include "stiff_test.h"

/* game_shortlegs in a deep squat whose feet slide (no foot planted): its legs, shorter in the
 * thigh than in the shin, fold no further than the source's, so the transferred feet stand through
 * the floor. The pelvis never moves within a frame for them (pelvis_frames counts those moves;
 * before, 14 frames), it rises ahead (lifted frames) and moves from frame to frame by no more
 * than the source's hips (scaled) plus 0.4 mm (0.27 mm; before, 0.67 mm). */
Test(retarget_reach, free_feet_out_of_the_floor_lift_the_pelvis_ahead) {
  stiff_case k = stiff_case_run("game_shortlegs", "generated/cmu_squat.bvh");
  JsonObject *c = k.c;
  const char *clip = k.clip;
  const stiff_figures f = k.f;
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
  stiff_case_clear(&k);
}
