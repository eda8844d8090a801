/* Game rigs without a map (tests/data/generated: game_robot.glb, legs UpperLeg -> LowerLeg with
 * the feet in the lower legs' meshes and IK controls Foot.L/R and pole targets under Root that
 * weight nothing; game_stylised.glb, two-bone legs without a foot, one-bone arms, sockets): their
 * chains are found from the skin, the bundled walk and hop retarget onto them with the planted
 * feet still (<= 5 mm) and the skinned mesh on the floor while planted, and the robot's own walk
 * retargets onto a human with its contacts found. */
#include "../plugin/retarget_test.h"

/* Planted feet still and on the floor on every entry of a report, both legs planting. */
static void check_planted(JsonParser *parser, const char *target) {
  for (guint i = 0; i < rt_entry_count(parser); i++) {
    const char *clip;
    JsonObject *c = rt_ok_entry(parser, i, target, &clip);
    const rt_planted f = rt_planted_of(c);
    const double median = f.median, worst = f.worst, skate = f.skate, goal = f.goal;
    cr_log_info("%s onto %s: planted mesh %.2f mm (worst %.2f), skate %.3f mm, goal %.3f mm, "
                "verdict %s",
                clip, target, median, worst, skate, goal, rt_str(c, "verdict"));
    rt_assert_planted(f, clip, target, -5);
    cr_assert_leq(goal, 1, "%s onto %s: pins missed by %.2f mm", clip, target, goal);
    cr_assert_str_neq(rt_str(c, "verdict"), "failed", "%s onto %s", clip, target);
    cr_assert_eq(rt_warns(c, "mesh-through-floor") || rt_warns(c, "skate") ||
                     rt_warns(c, "foot-pitch") || rt_warns(c, "goal-missed"),
                 false, "%s onto %s", clip, target);
    JsonObject *contacts = json_object_get_object_member(c, "contacts");
    cr_assert_geq(json_object_get_size(contacts), 2, "%s onto %s: both legs plant", clip, target);
  }
}

static const char *const clips[] = {"generated/cmu_walk.bvh", "generated/cmu_hop.bvh", NULL};

Test(game_rigs, the_walk_and_hop_onto_the_robot_without_a_map) {
  g_autofree char *dir = rt_tmpdir();
  static const char *const cmu[] = {"--unit", "cmu", NULL};
  JsonParser *p = rt_run_report(dir, dir, "generated/game_robot.glb", cmu, clips, 0, NULL);
  check_planted(p, "game_robot");
  /* The legs are UpperLeg -> LowerLeg; the IK controls Foot.L/R stay out of the chains. */
  JsonObject *c = rt_clip(json_node_get_object(json_parser_get_root(p)), 0);
  JsonObject *contacts = json_object_get_object_member(c, "contacts");
  cr_assert(json_object_has_member(contacts, "LowerLeg.L") &&
            json_object_has_member(contacts, "LowerLeg.R"));
  g_object_unref(p);
  rt_rmtree(dir);
}

Test(game_rigs, the_walk_and_hop_onto_the_stylised_figure_without_a_map) {
  g_autofree char *dir = rt_tmpdir();
  static const char *const cmu[] = {"--unit", "cmu", NULL};
  JsonParser *p = rt_run_report(dir, dir, "generated/game_stylised.glb", cmu, clips, 0, NULL);
  check_planted(p, "game_stylised");
  g_object_unref(p);
  rt_rmtree(dir);
}

/* The robot's own clip (keyed on every bone, the controls where the legs put them) as a source:
 * its legs end in one point under each ankle, whose stillness gives the contacts. */
Test(game_rigs, the_robot_walk_as_a_source) {
  g_autofree char *dir = rt_tmpdir();
  static const char *const none[] = {NULL};
  static const char *const walk[] = {"generated/game_robot_walk.glb", NULL};
  JsonParser *p = rt_run_report(dir, dir, "generated/cmu_char.glb", none, walk, 0, NULL);
  check_planted(p, "cmu_char");
  g_object_unref(p);
  rt_rmtree(dir);
}

/* --print-map shows the chains found: the deforming legs and arms, no control bone. */
Test(game_rigs, the_printed_maps_name_the_chains) {
  static const char *const rigs[][6] = {
      {"generated/game_robot.glb", "left_lower_leg   LowerLeg.L", "right_upper_leg  UpperLeg.R",
       "left_hand        Hand.L", "left_foot        -", "Foot.L"},
      {"generated/game_stylised.glb", "left_upper_leg   hip_L", "right_lower_leg  leg_R",
       "left_upper_arm   hand_L", "head             head", "socket"},
  };
  g_autofree char *walk = rt_data("generated/cmu_walk.bvh");
  for (size_t i = 0; i < G_N_ELEMENTS(rigs); i++) {
    g_autofree char *target = rt_data(rigs[i][0]);
    const char *args[] = {"retarget", "--target", target, "--print-map", walk, NULL};
    cli_run r = rt_cli(NULL, args);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    for (int k = 1; k < 5; k++)
      cr_assert(strstr(r.out, rigs[i][k]), "%s: no '%s' in\n%s", rigs[i][0], rigs[i][k], r.out);
    /* The target's table ends where the source's begins. */
    g_autofree char *target_part = g_strndup(r.out, (gsize)(strstr(r.out, "source ") - r.out));
    cr_assert_null(strstr(target_part, rigs[i][5]), "%s maps a control bone:\n%s", rigs[i][0],
                   target_part);
    rt_cli_clear(&r);
  }
}
