/* Legs of one bone through each other: game_blocky's legs (a block each, no knee) from cmu_cross
 * (a foot planted across in front of the held one) pass through each other (2.4 cm by
 * stiff_figures.h's own measure); the report's legs_overlap_mm says so within a centimetre and the
 * verdict warns legs-intersect. The walk keeps its legs apart: no warning, a negative overlap
 * (the gap between the blocks). The walk round a circle (cmu_turn) keeps them apart too: its
 * swinging leg, its hip too low for the foot to pass under it, goes round the outside of its hip
 * toward a pin ahead and inward rather than the short way through the other leg (it went 13.5 cm
 * through, seen in the renders). A human's legs (with knees) are not measured. */
#include "stiff_test.h"

Test(legs_intersect, the_cross_step_onto_legs_of_one_bone_warns_with_the_overlap_measured) {
  stiff_case k = stiff_case_run("game_blocky", "generated/cmu_cross.bvh");
  const double overlap = rt_num(k.c, "legs_overlap_mm", NULL);
  cr_log_info("%s onto game_blocky: legs overlap %.1f mm (measured apart: gap %.1f mm)", k.clip,
              overlap, 1000 * k.f.leg_gap);
  cr_assert(k.f.leg_gap < 0, "%s: the measure sees the legs apart (%.1f mm)", k.clip, 1000 * k.f.leg_gap);
  cr_assert(fabs(overlap + 1000 * k.f.leg_gap) <= 10, "%s: overlap %.1f mm, measured %.1f mm",
            k.clip, overlap, -1000 * k.f.leg_gap);
  cr_assert(rt_warns(k.c, "legs-intersect"), "%s: no legs-intersect", k.clip);
  stiff_case_clear(&k);
}

/* The walk round a circle: the swinging leg goes round the outside of its hip, its block apart
 * from the held leg's at every frame (by both measures), with no warning. */
Test(legs_intersect, the_turn_onto_legs_of_one_bone_swings_round_the_outside) {
  stiff_case k = stiff_case_run("game_blocky", "generated/cmu_turn.bvh");
  const double overlap = rt_num(k.c, "legs_overlap_mm", NULL);
  cr_log_info("%s onto game_blocky: legs overlap %.1f mm (measured apart: gap %.1f mm)", k.clip,
              overlap, 1000 * k.f.leg_gap);
  cr_assert(k.f.leg_gap > 0 && overlap < 0, "%s: legs through each other: overlap %.1f mm, gap %.1f mm",
            k.clip, overlap, 1000 * k.f.leg_gap);
  cr_assert(fabs(overlap + 1000 * k.f.leg_gap) <= 10, "%s: overlap %.1f mm, measured %.1f mm",
            k.clip, overlap, -1000 * k.f.leg_gap);
  cr_assert(!rt_warns(k.c, "legs-intersect"), "%s: legs-intersect", k.clip);
  stiff_case_clear(&k);
}

/* A deep squat with the knees turned in, each foot stepping in place in it: the thighs converge,
 * so legs of one bone that follow them plant their feet across each other (150 mm through,
 * the feet missing their pins). A crouch on legs without knees splays them from where the
 * source's feet stand instead: apart, held, no warning. */
Test(legs_intersect, a_knock_kneed_squat_onto_legs_of_one_bone_splays_them) {
  stiff_case k = stiff_case_run("game_blocky", "generated/cmu_squat_in.bvh");
  const double overlap = rt_num(k.c, "legs_overlap_mm", NULL);
  cr_log_info("%s onto game_blocky: legs overlap %.1f mm (measured apart: gap %.1f mm), %s", k.clip,
              overlap, 1000 * k.f.leg_gap, rt_str(k.c, "verdict"));
  cr_assert(k.f.leg_gap > 0 && overlap < 0, "%s: legs through each other: overlap %.1f mm, gap %.1f mm",
            k.clip, overlap, 1000 * k.f.leg_gap);
  cr_assert(fabs(overlap + 1000 * k.f.leg_gap) <= 10, "%s: overlap %.1f mm, measured %.1f mm",
            k.clip, overlap, -1000 * k.f.leg_gap);
  cr_assert(!rt_warns(k.c, "legs-intersect") && !rt_warns(k.c, "goal-missed") && !rt_warns(k.c, "skate"),
            "%s: legs-intersect, goal-missed or skate", k.clip);
  stiff_case_clear(&k);
}

Test(legs_intersect, the_walk_onto_legs_of_one_bone_keeps_them_apart) {
  stiff_case k = stiff_case_run("game_blocky", "generated/cmu_walk.bvh");
  const double overlap = rt_num(k.c, "legs_overlap_mm", NULL);
  cr_log_info("%s onto game_blocky: legs overlap %.1f mm (measured apart: gap %.1f mm)", k.clip,
              overlap, 1000 * k.f.leg_gap);
  cr_assert(k.f.leg_gap > 0 && overlap < 0, "%s: overlap %.1f mm, gap %.1f mm", k.clip, overlap,
            1000 * k.f.leg_gap);
  cr_assert(fabs(overlap + 1000 * k.f.leg_gap) <= 10, "%s: overlap %.1f mm, measured %.1f mm",
            k.clip, overlap, -1000 * k.f.leg_gap);
  cr_assert(!rt_warns(k.c, "legs-intersect"), "%s: legs-intersect on legs kept apart", k.clip);
  stiff_case_clear(&k);
}

Test(legs_intersect, legs_with_knees_are_not_measured) {
  g_autofree char *dir = rt_tmpdir();
  static const char *const cmu[] = {"--unit", "cmu", NULL};
  static const char *const walk[] = {"generated/cmu_walk.bvh", NULL};
  JsonParser *p = rt_run_report(dir, dir, "generated/cmu_char.glb", cmu, walk, 0, NULL);
  const char *clip;
  JsonObject *c = rt_ok_entry(p, 0, "cmu_char", &clip);
  cr_assert(!json_object_has_member(c, "legs_overlap_mm"), "%s onto cmu_char: legs with knees measured", clip);
  cr_assert(!rt_warns(c, "legs-intersect"), "%s onto cmu_char", clip);
  g_object_unref(p);
  rt_rmtree(dir);
}
