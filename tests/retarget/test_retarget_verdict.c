/* The verdict of `rigkit retarget` (core/src/retarget_verdict.c) as a TD meets it in the report:
 * every figure above its [quality] bound warns with its code and a figure within it does not,
 * a source repaired on import and a rig of implausible size warn, the verdict is the worst
 * warning, and --fail-on turns verdicts into exit status 1. */
#include "../plugin/retarget_test.h"

/* Runs `rigkit retarget` onto target with extra arguments (NULL-terminated, the clips among
 * them, as paths); the report in dir, its first entry in *entry (the parser returned holds it). */
static JsonParser *run(const char *dir, const char *target, const char *const *more,
                       int expect_code, JsonObject **entry) {
  g_autofree char *out = g_build_filename(dir, "out", NULL);
  JsonParser *parser = rt_run_report(dir, out, target, more, NULL, expect_code, NULL);
  *entry = rt_clip(json_node_get_object(json_parser_get_root(parser)), 0);
  return parser;
}

/* A member (or member.sub) as a number, NAN when null. */
static double figure(JsonObject *c, const char *member, const char *sub) {
  JsonNode *n = json_object_get_member(c, member);
  if (n && sub && JSON_NODE_HOLDS_OBJECT(n))
    n = json_object_get_member(json_node_get_object(n), sub);
  return n && JSON_NODE_HOLDS_VALUE(n) ? json_node_get_double(n) : NAN;
}

/* With every bound at 0 (and never failed), each code warns exactly when its figure in the
 * report is above 0: the rule of each code, on a walk without IK (feet through the floor and
 * sliding) and with it. */
Test(retarget_verdict, each_code_warns_exactly_when_its_figure_exceeds_its_bound) {
  static const struct {
    const char *code, *member, *sub;
    double sign;
  } rules[] = {
      {"mesh-through-floor", "mesh_lowest_planted_mm", "min", -1},
      {"feet-float", "mesh_lowest_planted_mm", "median", 1},
      {"body-through-floor", "floor_penetration_mm", NULL, 1},
      {"foot-pitch", "foot_pitch_deg", "p95", 1},
      {"skate", "foot_skate_mm", "max", 1},
      {"goal-missed", "ik_goal_error_mm", "max", 1},
      {"leg-cannot-reach", "unreachable_frames", NULL, 1},
  };
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *map = g_build_filename(dir, "zero.map", NULL);
  GString *text = g_string_new("[quality]\n");
  for (size_t i = 0; i < G_N_ELEMENTS(rules); i++)
    g_string_append_printf(text, "%s = 0 none\n", rules[i].code);
  cr_assert(g_file_set_contents(map, text->str, -1, NULL));
  g_string_free(text, TRUE);
  g_autofree char *walk = rt_data("generated/cmu_walk.bvh");
  const char *ik_modes[] = {"--no-ik", "--root-motion"};
  for (size_t m = 0; m < G_N_ELEMENTS(ik_modes); m++) {
    const char *more[] = {"--map", map, "--unit", "cmu", ik_modes[m], walk, NULL};
    JsonObject *c = NULL;
    G_GNUC_UNUSED g_autoptr(JsonParser) p = run(dir, "RiggedFigure.glb", more, 0, &c);
    size_t warned = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(rules); i++) {
      const double v = rules[i].sign * figure(c, rules[i].member, rules[i].sub);
      const bool above = isfinite(v) && v > 0;
      cr_assert_eq(rt_warns(c, rules[i].code), above, "%s: %s = %g", ik_modes[m], rules[i].code, v);
      warned += above;
    }
    cr_assert_str_eq(rt_str(c, "verdict"), warned ? "check" : "clean", "never failed: none");
  }
  rt_rmtree(dir);
}

/* A BVH whose header declares more frames than it has is repaired on import: import-repaired,
 * verdict check; --fail-on check fails the batch, --fail-on failed does not; [quality] can
 * accept the repair. */
Test(retarget_verdict, import_repairs_warn_and_fail_on_sets_the_exit_status) {
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *bvh = rt_data("crafted/human_yup_m_frames_long.bvh");
  g_autofree char *crafted_map = rt_data("crafted/human_to_figure.map");
  const char *check[] = {"--map", crafted_map, "--fail-on", "check", bvh, NULL};
  JsonObject *c = NULL;
  G_GNUC_UNUSED g_autoptr(JsonParser) p1 = run(dir, "RiggedFigure.glb", check, 1, &c);
  cr_assert(rt_warns(c, "import-repaired"));
  cr_assert_str_eq(rt_str(c, "verdict"), "check");
  /* The repair is said on stderr as the clip finishes, naming the file. */
  g_autofree char *out = g_build_filename(dir, "out", NULL);
  g_autofree char *fig = rt_data("RiggedFigure.glb");
  const char *args[] = {"retarget", "--target", fig, "--map", crafted_map, "--out-dir", out,
                        bvh, NULL};
  cli_run r = rt_cli(NULL, args);
  cr_assert(strstr(r.err, "warning: ") && strstr(r.err, "human_yup_m_frames_long.bvh") &&
                strstr(r.err, "header declares 5 frames"),
            "%s", r.err);
  rt_cli_clear(&r);
  const char *failed[] = {"--map", crafted_map, "--fail-on", "failed", bvh, NULL};
  G_GNUC_UNUSED g_autoptr(JsonParser) p2 = run(dir, "RiggedFigure.glb", failed, 0, &c);
  cr_assert_str_eq(rt_str(c, "verdict"), "check");
  /* The same map with the repair accepted. */
  g_autofree char *text = NULL;
  cr_assert(g_file_get_contents(crafted_map, &text, NULL, NULL));
  g_autofree char *accepting = g_strconcat(text, "\n[quality]\nimport-repaired = 1\n", NULL);
  g_autofree char *map = g_build_filename(dir, "accept.map", NULL);
  cr_assert(g_file_set_contents(map, accepting, -1, NULL));
  const char *accept[] = {"--map", map, "--fail-on", "check", bvh, NULL};
  G_GNUC_UNUSED g_autoptr(JsonParser) p3 = run(dir, "RiggedFigure.glb", accept, 0, &c);
  cr_assert_not(rt_warns(c, "import-repaired"));
  cr_assert_str_eq(rt_str(c, "verdict"), "clean");
  rt_rmtree(dir);
}

/* A source read in the wrong unit (CMU units taken as metres: a 31 m person) is implausible and
 * the verdict failed; a clip that could not be retargeted is failed too, and fails any batch. */
Test(retarget_verdict, implausible_scale_and_errors_are_failed) {
  g_autofree char *dir = rt_tmpdir();
  g_autofree char *walk = rt_data("generated/cmu_walk.bvh");
  const char *wrong[] = {"--unit", "m", "--fail-on", "failed", walk, NULL};
  JsonObject *c = NULL;
  G_GNUC_UNUSED g_autoptr(JsonParser) p1 = run(dir, "RiggedFigure.glb", wrong, 1, &c);
  cr_assert(rt_warns(c, "implausible-scale"));
  cr_assert_gt(rt_num(c, "source_height_m", NULL), 10 * 1.75, "a person taken for a giant");
  cr_assert_str_eq(rt_str(c, "verdict"), "failed");
  const char *plain[] = {"--unit", "m", walk, NULL};
  G_GNUC_UNUSED g_autoptr(JsonParser) p2 = run(dir, "RiggedFigure.glb", plain, 0, &c);
  cr_assert_str_eq(rt_str(c, "verdict"), "failed", "--fail-on is what fails a batch on verdicts");
  g_autofree char *bad = rt_data("bad/bvh_bad_channel.bvh");
  const char *error[] = {bad, NULL};
  G_GNUC_UNUSED g_autoptr(JsonParser) p3 = run(dir, "RiggedFigure.glb", error, 1, &c);
  cr_assert_str_eq(rt_str(c, "status"), "error");
  cr_assert_str_eq(rt_str(c, "verdict"), "failed");
  rt_rmtree(dir);
}
