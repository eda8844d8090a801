/* A rig the automatic mapping refuses (the Fox: four limbs reach the ground) gets the best guess
 * of its map, printed with --print-map and on stderr; edited as a user would (its hind legs as
 * the legs, the tail and neck the guess took for a spine left out), that map maps it. Maps name
 * limb chains (`left_leg = ...`), and a wrong chain is an error naming the chain and the joint;
 * the sample chain maps of the game rigs are their automatic maps. */
#include "retarget_test.h"

/* The map text of a --print-map output: from its heading to the blank line before the source. */
static char *printed_map(const char *out) {
  const char *start = strstr(out, "# rigkit map:");
  cr_assert_not_null(start, "no map printed:\n%s", out);
  const char *end = strstr(start, "\nsource ");
  return g_strndup(start, end ? (gsize)(end - start + 1) : strlen(start));
}

/* The guess edited as a user would: the legs put on the hind legs, the spine, chest and neck
 * lines (the tail and the front of the body) dropped; the rest kept as printed. */
static char *edited(const char *guess) {
  g_auto(GStrv) lines = g_strsplit(guess, "\n", -1);
  GString *out = g_string_new(NULL);
  for (size_t i = 0; lines[i]; i++) {
    const char *l = lines[i];
    if (g_str_has_prefix(l, "spine =") || g_str_has_prefix(l, "chest =") ||
        g_str_has_prefix(l, "neck =") || strstr(l, "_leg ="))
      continue;
    g_string_append_printf(out, "%s\n", l);
  }
  g_string_append(out, "left_leg = b_LeftLeg01_015 b_LeftLeg02_016 b_LeftFoot01_017 "
                       "b_LeftFoot02_018\n"
                       "right_leg = b_RightLeg01_019 b_RightLeg02_020 b_RightFoot01_021 "
                       "b_RightFoot02_022\n");
  return g_string_free(out, FALSE);
}

Test(retarget_map_guess, the_printed_guess_edited_maps_the_refused_rig) {
  g_autofree char *fox = rt_data("Fox.glb");
  g_autofree char *walk = rt_data("makehuman_walk1.bvh");
  const char *print[] = {"retarget", "--target", fox, "--print-map", walk, NULL};
  cli_run r = rt_cli(NULL, print);
  cr_assert_neq(r.code, 0, "the Fox is refused:\n%s", r.out);
  cr_assert(strstr(r.out, "quadruped"), "%s", r.out);
  g_autofree char *guess = printed_map(r.out);
  rt_cli_clear(&r);
  /* Every bone and chain found, a commented line for what was not. */
  cr_assert(strstr(guess, "\n[target]\n") && strstr(guess, "\nhips = b_Hip_01\n"), "%s", guess);
  cr_assert(strstr(guess, "\n# left_arm = "), "%s", guess);
  g_autofree char *dir = rt_tmpdir();
  /* Without --print-map, the same guess on stderr. */
  g_autofree char *refused = g_build_filename(dir, "x.glb", NULL);
  const char *plain[] = {"retarget", "--target", fox, "--no-progress", "-o", refused, walk, NULL};
  r = rt_cli(NULL, plain);
  cr_assert_neq(r.code, 0);
  cr_assert(strstr(r.err, "best guess") &&
                strstr(r.err, "\n[target]\nroot = _rootJoint\nhips = b_Hip_01\n"),
            "%s", r.err);
  rt_cli_clear(&r);
  g_autofree char *map = g_build_filename(dir, "fox.map", NULL);
  g_autofree char *text = edited(guess);
  cr_assert(g_file_set_contents(map, text, -1, NULL));
  g_autofree char *out = g_build_filename(dir, "fox_walk.glb", NULL);
  const char *run[] = {"retarget", "--target", fox, "--target-unit", "cm", "--map", map,
                       "--root-motion", "--no-progress", "-o", out, walk, NULL};
  r = rt_cli(NULL, run);
  cr_assert_eq(r.code, 0, "the edited map:\n%s\n%s%s", text, r.out, r.err);
  cr_assert_null(strstr(r.err, "best guess"), "%s", r.err);
  rt_cli_clear(&r);
  cr_assert(g_file_test(out, G_FILE_TEST_IS_REGULAR));
  rt_rmtree(dir);
}

/* A chain whose joints are not in hierarchy order, a leg of one joint with its lower leg left
 * out, a chain too long: the error names the chain or the leg, and the joints. */
Test(retarget_map_guess, wrong_chains_are_named) {
  static const char *const maps[][2] = {
      {"[target]\nleft_leg = LowerLeg.L UpperLeg.L\n",
       "left_leg: 'UpperLeg.L' is not below 'LowerLeg.L'"},
      {"[target]\nright_leg = UpperLeg.R\n",
       "the right leg ends at 'UpperLeg.R', which carries 'LowerLeg.R' below it"},
      {"[target]\nright_leg = UpperLeg.R LowerLeg.R Hips Spine Chest\n",
       "right_leg: more than 4 joints (a leg is 1 to 4"},
      {"[target]\nleft_arm = Hand.L Nope\n", "left_arm: no joint 'Nope' in the rig"},
  };
  g_autofree char *robot = rt_data("generated/game_robot.glb");
  g_autofree char *walk = rt_data("generated/cmu_walk.bvh");
  g_autofree char *dir = rt_tmpdir();
  for (size_t i = 0; i < G_N_ELEMENTS(maps); i++) {
    g_autofree char *map = g_build_filename(dir, "bad.map", NULL);
    cr_assert(g_file_set_contents(map, maps[i][0], -1, NULL));
    const char *run[] = {"retarget", "--target", robot, "--map", map, "--print-map", walk, NULL};
    cli_run r = rt_cli(NULL, run);
    cr_assert_neq(r.code, 0, "%s", maps[i][0]);
    cr_assert(strstr(r.out, maps[i][1]) || strstr(r.err, maps[i][1]), "want '%s' in:\n%s%s",
              maps[i][1], r.out, r.err);
    rt_cli_clear(&r);
  }
  rt_rmtree(dir);
}

/* The example maps of the game rigs (samples/maps/game_*_chains.map: every limb by its chain,
 * the soldier's feet under IK controls by name) give the same output, byte for byte, as their
 * automatic maps. */
Test(retarget_map_guess, the_sample_chain_maps_are_the_automatic_maps) {
  static const char *const rigs[][2] = {
      {"generated/game_robot.glb", "game_robot_chains.map"},
      {"generated/game_stylised.glb", "game_stylised_chains.map"},
      {"generated/game_soldier.glb", "game_soldier_chains.map"},
      {"generated/game_blocky.glb", "game_blocky_chains.map"},
  };
  g_autofree char *walk = rt_data("generated/cmu_walk.bvh");
  g_autofree char *dir = rt_tmpdir();
  for (size_t i = 0; i < G_N_ELEMENTS(rigs); i++) {
    g_autofree char *target = rt_data(rigs[i][0]);
    g_autofree char *map = g_build_filename(RK_SOURCE_DIR, "samples", "maps", rigs[i][1], NULL);
    g_autofree char *a = g_build_filename(dir, "auto.glb", NULL);
    g_autofree char *b = g_build_filename(dir, "map.glb", NULL);
    const char *run_a[] = {"retarget", "--target", target, "--unit", "cmu", "--no-progress",
                           "-o", a, walk, NULL};
    const char *run_b[] = {"retarget", "--target", target, "--unit", "cmu", "--no-progress",
                           "--map", map, "-o", b, walk, NULL};
    cli_run r = rt_cli(NULL, run_a);
    cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
    rt_cli_clear(&r);
    r = rt_cli(NULL, run_b);
    cr_assert_eq(r.code, 0, "%s: %s%s", rigs[i][1], r.out, r.err);
    rt_cli_clear(&r);
    cr_assert(rt_same_bytes(a, b), "%s gives the automatic map's output", rigs[i][1]);
  }
  rt_rmtree(dir);
}
