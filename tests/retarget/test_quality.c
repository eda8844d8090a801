/* What a person sees, measured on the written outputs read back with their meshes (`rigkit
 * retarget`'s report): on RiggedFigure and two characters built in Blender (on the CMU-style and
 * the MakeHuman-style skeletons), for the bundled walk and every generated clip, the planted feet
 * stand on the floor (lowest mesh point within -5..+10 mm, median; never more than 10 mm through
 * it), the feet pitch as the source's (within 20 degrees at the 95th percentile), planted points
 * do not slide (5 mm) and hold their pins (1 mm) unless a leg cannot reach, which the report then
 * says; every entry has a verdict and warnings. */
#include "../plugin/retarget_test.h"

/* Runs `rigkit retarget` onto target with extra options over clips (tests/data paths), the
 * report in dir; returns the parser holding it (the caller unrefs it). */
static JsonParser *run(const char *dir, const char *target, const char *const *opts,
                       const char *const *clips) {
  g_autofree char *out = NULL;
  JsonParser *parser = rt_run_report(dir, dir, target, opts, clips, 0, &out);
  cr_assert(strstr(out, "verdict"), "the summary table shows the verdict:\n%s", out);
  return parser;
}

/* The numbers of the issue on every entry of a report. */
static void check_report(JsonParser *parser, const char *target) {
  for (guint i = 0; i < rt_entry_count(parser); i++) {
    const char *clip;
    JsonObject *c = rt_ok_entry(parser, i, target, &clip);
    const char *verdict = rt_str(c, "verdict");
    cr_assert(verdict && (!strcmp(verdict, "clean") || !strcmp(verdict, "check") ||
                          !strcmp(verdict, "failed")));
    const rt_planted f = rt_planted_of(c);
    const double median = f.median, worst = f.worst, skate = f.skate, goal = f.goal;
    const double pitch = rt_num(c, "foot_pitch_deg", "p95");
    cr_log_info("%s onto %s: planted soles %.2f mm (worst %.2f), pitch p95 %.2f deg, skate %.3f "
                "mm, goal %.3f mm, verdict %s",
                clip, target, median, worst, pitch, skate, goal, verdict);
    rt_assert_planted(f, clip, target, -10);
    cr_assert_leq(pitch, 20, "%s onto %s: feet pitch %.2f deg off", clip, target, pitch);
    cr_assert(goal <= 1 || rt_warns(c, "leg-cannot-reach"), "%s onto %s: pins missed by %.2f mm",
              clip, target, goal);
    cr_assert_eq(rt_warns(c, "mesh-through-floor") || rt_warns(c, "skate") ||
                     rt_warns(c, "foot-pitch"),
                 false, "%s onto %s: the verdict sees what the figures say", clip, target);
  }
}

static const char *const cmu_clips[] = {"generated/cmu_walk.bvh", "generated/cmu_hop.bvh",
                                        "generated/cmu_turn.bvh", "generated/cmu_shuffle.bvh",
                                        "generated/cmu_floor.bvh", NULL};
static const char *const mh_clips[] = {"generated/mh_walk.bvh", "generated/mh_floor.bvh", NULL};
static const char *const bundled[] = {"makehuman_walk1.bvh", NULL};

/* Every clip onto one character: the CMU-style clips in CMU's unit, the MakeHuman ones, the
 * bundled walk made to travel (it is a treadmill cycle). */
static void check_target(const char *target) {
  g_autofree char *dir = rt_tmpdir();
  static const char *const cmu[] = {"--unit", "cmu", NULL}, *const none[] = {NULL},
                           *const travel[] = {"--root-motion", NULL};
  JsonParser *p = run(dir, target, cmu, cmu_clips);
  check_report(p, target);
  g_object_unref(p);
  p = run(dir, target, none, mh_clips);
  check_report(p, target);
  g_object_unref(p);
  p = run(dir, target, travel, bundled);
  check_report(p, target);
  g_object_unref(p);
  rt_rmtree(dir);
}

Test(quality, every_clip_onto_rigged_figure) {
  check_target("RiggedFigure.glb");
}

Test(quality, every_clip_onto_the_cmu_skeleton_character) {
  check_target("generated/cmu_char.glb");
}

Test(quality, every_clip_onto_the_makehuman_skeleton_character) {
  check_target("generated/mh_char.glb");
}

/* A figure that says clean while the picture is wrong is a defect of the figure: the same walk
 * onto the same character with IK off (feet through the floor, sliding) is not clean. */
Test(quality, without_ik_the_verdict_sees_the_feet) {
  g_autofree char *dir = rt_tmpdir();
  static const char *const no_ik[] = {"--unit", "cmu", "--no-ik", NULL};
  static const char *const walk[] = {"generated/cmu_walk.bvh", NULL};
  JsonParser *p = run(dir, "RiggedFigure.glb", no_ik, walk);
  JsonObject *c = rt_clip(json_node_get_object(json_parser_get_root(p)), 0);
  cr_assert_str_neq(rt_str(c, "verdict"), "clean");
  cr_assert(rt_warns(c, "skate") || rt_warns(c, "mesh-through-floor"));
  g_object_unref(p);
  rt_rmtree(dir);
}
