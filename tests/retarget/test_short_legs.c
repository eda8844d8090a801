/* A character with short legs and long arms (game_shortlegs.glb, a CC0 game robot's proportions:
 * legs 35% of its height, fingers hanging from the forearm with no hand bone, detached feet under
 * root-level IK controls) from the bundled hop and floor clips, measured on the written outputs:
 * the pelvis never lifted off the transfer for the arms (before, the arms counted as body: in the
 * crouches the floor pass lifted the pelvis for the fingers, up to 0.59 m on the real robot, the
 * short legs could then not reach their pins and the pelvis jumped sideways), the pelvis moving
 * from frame to frame no more than twice the source's (scaled) plus a twentieth of the leg, the
 * planted feet still (<= 5 mm), on their pins (<= 1 mm) and their meshes on the floor. */
#include "stiff_test.h"

typedef struct short_case {
  const char *clip;
  double unit; /* metres per unit of the clip */
  const char *args[3];
} short_case;

static const short_case cases[] = {
    {"generated/cmu_hop.bvh", 0.0254 / 0.45, {"--unit", "cmu", NULL}},
    {"generated/cmu_floor.bvh", 0.0254 / 0.45, {"--unit", "cmu", NULL}},
    {"generated/mh_floor.bvh", 0.1, {NULL}},
};

Test(short_legs, feet_hold_and_the_pelvis_follows_the_source) {
  g_autofree char *target = rt_data("generated/game_shortlegs.glb");
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *dir = rt_tmpdir();
    const char *const one[] = {cases[i].clip, NULL};
    JsonParser *p = rt_run_report(dir, dir, "generated/game_shortlegs.glb", cases[i].args, one, 0, NULL);
    const char *clip;
    JsonObject *c = rt_ok_entry(p, 0, "game_shortlegs", &clip);
    g_autofree char *source = rt_data(cases[i].clip);
    stiff_figures f;
    g_autoptr(GError) e = NULL;
    cr_assert(stiff_measure(target, source, cases[i].unit, rt_str(c, "output"), &f, &e), "%s: %s",
              clip, e ? e->message : "");
    const rt_planted pf = rt_planted_of(c);
    const double lifted = rt_num(c, "lifted_frames", NULL), pelvis = rt_num(c, "pelvis_frames", NULL),
                 unreachable = rt_num(c, "unreachable_frames", NULL);
    cr_log_info("%s onto game_shortlegs: %s; skate %.2f mm, goal %.3f mm, planted mesh %.2f mm "
                "(median %.2f); pelvis moves %.1f cm a frame (source %.1f), beyond twice the "
                "source's %.1f cm; lifted %.0f, pelvis moved %.0f, unreachable %.0f frames",
                clip, rt_str(c, "verdict"), pf.skate, pf.goal, f.low_planted_mm, pf.median,
                100 * f.pelvis_move, 100 * f.src_pelvis_move, 100 * f.pelvis_excess, lifted, pelvis,
                unreachable);
    /* The arms keep themselves off the floor: the pelvis is never lifted for them, and the legs
     * reach every pin from the transferred pelvis. */
    cr_assert_eq(lifted, 0, "%s: the pelvis was lifted at %.0f frames", clip, lifted);
    cr_assert_eq(pelvis, 0, "%s: the pelvis moved at %.0f frames so the legs reach", clip, pelvis);
    cr_assert_eq(unreachable, 0, "%s: %.0f frames with a pin out of reach", clip, unreachable);
    cr_assert_leq(f.pelvis_excess, 0.05 * f.leg,
                  "%s: the pelvis jumps %.1f cm beyond twice the source hips' move", clip,
                  100 * f.pelvis_excess);
    rt_assert_planted(pf, clip, "game_shortlegs", -3);
    cr_assert_leq(pf.goal, 1, "%s: planted points miss their pins by %.2f mm", clip, pf.goal);
    cr_assert_geq(f.low_planted_mm, -3, "%s: a planted foot %.1f mm through the floor", clip,
                  -f.low_planted_mm);
    cr_assert_str_eq(rt_str(c, "verdict"), "clean", "%s: verdict %s", clip, rt_str(c, "verdict"));
    g_object_unref(p);
    rt_rmtree(dir);
  }
}

/* Where the short legs cannot reach from the transferred pelvis (the bundled turn: the stance leg
 * at full stretch as the body turns over it), the pelvis comes down eased over a tenth of a second
 * ahead and after, instead of being dropped by the solve within a frame: it moves from frame to
 * frame by no more than the source's hips (scaled) plus a millimetre (before, 9 mm more, and the
 * swinging leg's end jumped over 5 cm at 32 frames as the pelvis came back), the planted feet
 * hold their pins, and the report counts the frames lowered without flagging the eased bob. */
Test(short_legs, the_pelvis_eases_down_where_a_leg_cannot_reach) {
  stiff_case k = stiff_case_run("game_shortlegs", "generated/cmu_turn.bvh");
  JsonObject *c = k.c;
  const char *clip = k.clip;
  const stiff_figures f = k.f;
  const rt_planted pf = rt_planted_of(c);
  const double pelvis = rt_num(c, "pelvis_frames", NULL), unreachable = rt_num(c, "unreachable_frames", NULL);
  cr_log_info("%s onto game_shortlegs: %s; pelvis lowered at %.0f frames, moves %.2f mm a frame "
              "beyond the source's; leg ends jump over 5 cm at %zu frames; skate %.3f mm, goal %.4f mm",
              clip, rt_str(c, "verdict"), pelvis, 1000 * f.pelvis_beyond, f.jumps, pf.skate, pf.goal);
  cr_assert_gt(pelvis, 0, "%s: the legs reach without the pelvis lowered: not the case tested", clip);
  cr_assert_eq(unreachable, 0, "%s: %.0f frames with a pin out of reach", clip, unreachable);
  cr_assert_leq(f.pelvis_beyond, 0.001, "%s: the pelvis moves %.1f mm a frame beyond the source's", clip,
                1000 * f.pelvis_beyond);
  cr_assert_eq(f.jumps, 0, "%s: a leg's end jumps 5 cm at %zu frames", clip, f.jumps);
  rt_assert_planted(pf, clip, "game_shortlegs", -3);
  cr_assert_leq(pf.goal, 1, "%s: planted points miss their pins by %.2f mm", clip, pf.goal);
  cr_assert_not(rt_warns(c, "hip-bob-changed"), "%s: the eased lowering is flagged", clip);
  cr_assert_str_eq(rt_str(c, "verdict"), "clean", "%s: verdict %s", clip, rt_str(c, "verdict"));
  stiff_case_clear(&k);
}
