/* The C sample host (samples/host_retarget.c) runs in CI: it dlopens librigkit_plugin.so,
 * retargets the MakeHuman walk onto RiggedFigure through the ABI and prints what it got, then
 * retargets those keys, given as the host armature's own (asset_from_host), onto the figure. */
#include "rk_test.h"

#define SAMPLE RK_BINARY_DIR "/bin/sample_host_retarget"

static int run_sample(const char *const *args, char **out, char **err) {
  const char *argv[8] = {SAMPLE};
  size_t n = 1;
  for (; args && args[n - 1] && n < 7; n++)
    argv[n] = args[n - 1];
  argv[n] = NULL;
  int status = 0;
  g_autoptr(GError) e = NULL;
  cr_assert(g_file_test(SAMPLE, G_FILE_TEST_IS_EXECUTABLE), "%s is not built", SAMPLE);
  cr_assert(
      g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status, &e),
      "%s", e ? e->message : "");
  cr_assert(WIFEXITED(status), "the sample did not exit normally:\n%s\n%s", *out, *err);
  return WEXITSTATUS(status);
}

Test(plugin_abi_sample, retargets_the_bundled_walk_onto_the_figure) {
  g_autofree char *out = NULL, *err = NULL;
  int code = run_sample(NULL, &out, &err);
  printf("%s", out);
  cr_assert_eq(code, 0, "exit %d\n%s\n%s", code, out, err);
  cr_assert(strstr(out, "rigkit plugin " RK_VERSION_STRING ", ABI 2"), "%s", out);
  cr_assert(strstr(out, "clip 'makehuman_walk1': 0.542 s, 14 frames at 24 fps"), "%s", out);
  cr_assert(strstr(out, "retargeted: 14 frames at 24 fps, 19 joints"), "%s", out);
  cr_assert(strstr(out, "frame  13  torso_joint_1"), "%s", out);
  cr_assert(strstr(out, "contact leg_joint_"), "%s", out);
  /* Foot skate with IK is below a millimetre (the number after "foot skate max"). */
  const char *fs = strstr(out, "foot skate max ");
  cr_assert(fs);
  cr_assert_lt(g_ascii_strtod(fs + strlen("foot skate max "), NULL), 1.0, "%s", out);
  /* The character (a GLB, read by Assimp) came through the helper process; the armature's keys
   * retargeted onto the armature's own character give its keys back. */
  cr_assert(strstr(out, "character read in the import helper process (19 joints, 1 mesh)"), "%s",
            out);
  const char *own = "the armature's keys as the source: 14 frames at 24 fps, 19 bones mapped, "
                    "torso_joint_1's path within ";
  const char *back = strstr(out, own);
  cr_assert(back, "%s", out);
  cr_assert_lt(g_ascii_strtod(back + strlen(own), NULL), 0.05, "%s", out);
}

Test(plugin_abi_sample, reports_a_missing_clip_and_a_missing_plugin) {
  g_autofree char *out = NULL, *err = NULL;
  const char *missing[] = {"/nonexistent/walk.bvh", NULL};
  cr_assert_eq(run_sample(missing, &out, &err), 1);
  cr_assert(strstr(err, "opening the clip failed (io)") && strstr(err, "/nonexistent/walk.bvh"),
            "%s", err);
  g_free(out), g_free(err);
  out = err = NULL;
  g_autofree char *walk = rk_test_data("makehuman_walk1.bvh");
  g_autofree char *fig = rk_test_data("RiggedFigure.glb");
  const char *no_plugin[] = {walk, fig, "/nonexistent/librigkit_plugin.so", NULL};
  cr_assert_eq(run_sample(no_plugin, &out, &err), 1);
  cr_assert(strstr(err, "cannot load /nonexistent/librigkit_plugin.so"), "%s", err);
}
