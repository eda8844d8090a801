/* Legs of one bone through each other: game_blocky's legs (a block each, no knee). On cmu_cross (a
 * foot slid across in front of the held one and planted 5 cm past the middle line) the blocky
 * character's hips are wider than the source's stance, so a foot that followed the source's went
 * 2.4 cm through the other leg; a foot planted while the other holds now stops at the other leg's
 * side (its pin moved out before the contact, fixed over it) and a free leg turns out about its
 * hip to stay beside the other's block, so the blocks only touch. The report still warns where
 * legs do go through each other: with no foot IK (--no-ik) the legs follow the transferred
 * thighs, which in the knock-kneed squat put the blocks 15 cm through each other. The walk
 * keeps its legs apart: no warning, a negative overlap (the gap between the blocks). The walk
 * round a circle (cmu_turn) keeps them apart too: its swinging leg, its hip too low for the foot
 * to pass under it, goes round the outside of its hip toward a pin ahead and inward rather than
 * the short way through the other leg (it went 13.5 cm through, seen in the renders). A human's
 * legs (with knees) are not measured. */
#include "stiff_test.h"

/* A clip onto game_blocky with the legs kept apart: a gap between the blocks by stiff_figures.h's
 * measure and a negative overlap in the report, the two within a centimetre, no legs-intersect;
 * the case for more checks (the caller clears it). */
static stiff_case kept_apart(const char *clip) {
  stiff_case k = stiff_case_run("game_blocky", clip);
  const double overlap = rt_num(k.c, "legs_overlap_mm", NULL);
  cr_log_info("%s onto game_blocky: legs overlap %.1f mm (measured apart: gap %.1f mm), %s", k.clip,
              overlap, 1000 * k.f.leg_gap, rt_str(k.c, "verdict"));
  cr_assert(k.f.leg_gap > 0 && overlap < 0, "%s: legs through each other: overlap %.1f mm, gap %.1f mm",
            k.clip, overlap, 1000 * k.f.leg_gap);
  cr_assert(fabs(overlap + 1000 * k.f.leg_gap) <= 10, "%s: overlap %.1f mm, measured %.1f mm",
            k.clip, overlap, -1000 * k.f.leg_gap);
  cr_assert(!rt_warns(k.c, "legs-intersect"), "%s: legs-intersect on legs kept apart", k.clip);
  return k;
}

/* The cross step: the crossing foot comes across as far as the other leg lets it and stops at its
 * side; the blocks touch at most (within the 5.7 mm the report warns from), both measures agree,
 * no legs-intersect, and the blocks come within a centimetre of each other (the foot comes
 * across as far as it can: 5 cm apart at rest). */
Test(legs_intersect, the_cross_step_onto_legs_of_one_bone_stops_at_the_other_leg) {
  stiff_case k = stiff_case_run("game_blocky", "generated/cmu_cross.bvh");
  const double overlap = rt_num(k.c, "legs_overlap_mm", NULL);
  cr_log_info("%s onto game_blocky: legs overlap %.1f mm (measured apart: gap %.1f mm), %s", k.clip,
              overlap, 1000 * k.f.leg_gap, rt_str(k.c, "verdict"));
  cr_assert(k.f.leg_gap > -0.002 && overlap < 2, "%s: legs through each other: overlap %.1f mm, gap %.1f mm",
            k.clip, overlap, 1000 * k.f.leg_gap);
  cr_assert(fabs(overlap + 1000 * k.f.leg_gap) <= 10, "%s: overlap %.1f mm, measured %.1f mm",
            k.clip, overlap, -1000 * k.f.leg_gap);
  cr_assert(!rt_warns(k.c, "legs-intersect"), "%s: legs-intersect", k.clip);
  cr_assert(k.f.leg_gap < 0.01, "%s: the feet no longer come across (gap %.1f mm)", k.clip, 1000 * k.f.leg_gap);
  stiff_case_clear(&k);
}

/* With no foot IK, legs of one bone follow the transferred thighs: in the knock-kneed squat the
 * thighs converge and the blocks stand through each other. The report measures it as the
 * independent measure does and warns. */
Test(legs_intersect, legs_of_one_bone_along_converging_thighs_warn_with_the_overlap_measured) {
  static const char *const args[] = {"--unit", "cmu", "--no-ik", NULL};
  stiff_case k = stiff_case_run_with("game_blocky", "generated/cmu_squat_in.bvh", args);
  const double overlap = rt_num(k.c, "legs_overlap_mm", NULL);
  cr_log_info("%s onto game_blocky, no foot IK: legs overlap %.1f mm (measured: gap %.1f mm)", k.clip, overlap,
              1000 * k.f.leg_gap);
  cr_assert(k.f.leg_gap < -0.05, "%s: the measure sees the legs apart (%.1f mm)", k.clip, 1000 * k.f.leg_gap);
  cr_assert(fabs(overlap + 1000 * k.f.leg_gap) <= 10, "%s: overlap %.1f mm, measured %.1f mm",
            k.clip, overlap, -1000 * k.f.leg_gap);
  cr_assert(rt_warns(k.c, "legs-intersect"), "%s: no legs-intersect", k.clip);
  stiff_case_clear(&k);
}

/* The walk round a circle: the swinging leg goes round the outside of its hip, its block apart
 * from the held leg's at every frame (by both measures), with no warning. */
Test(legs_intersect, the_turn_onto_legs_of_one_bone_swings_round_the_outside) {
  stiff_case k = kept_apart("generated/cmu_turn.bvh");
  stiff_case_clear(&k);
}

/* A deep squat with the knees turned in, each foot stepping in place in it: the thighs converge,
 * so legs of one bone that follow them plant their feet across each other (150 mm through,
 * the feet missing their pins). A crouch on legs without knees splays them from where the
 * source's feet stand instead: apart, held, no warning. */
Test(legs_intersect, a_knock_kneed_squat_onto_legs_of_one_bone_splays_them) {
  stiff_case k = kept_apart("generated/cmu_squat_in.bvh");
  cr_assert(!rt_warns(k.c, "goal-missed") && !rt_warns(k.c, "skate"), "%s: goal-missed or skate", k.clip);
  stiff_case_clear(&k);
}

Test(legs_intersect, the_walk_onto_legs_of_one_bone_keeps_them_apart) {
  stiff_case k = kept_apart("generated/cmu_walk.bvh");
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
