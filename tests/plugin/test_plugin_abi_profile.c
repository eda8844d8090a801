/* One profile file, unchanged, drives `rigkit retarget --map` and the plugin ABI the same way:
 * the same mapping, settings, frames, contacts and, on the written files, the same motion.
 * Skipped (saying why) when the build's rigkit has no retarget command. RK_CLI in the
 * environment overrides the rigkit binary (e.g. to check another build's CLI). */
#include "plugin_fixture.h"

#include <rigkit/importers.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

TestSuite(plugin_profile, .init = plugin_load);

static int run(const char *const *argv, char **out, char **err) {
  int status = 0;
  g_autoptr(GError) e = NULL;
  cr_assert(
      g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status, &e),
      "cannot run %s: %s", argv[0], e ? e->message : "");
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* World positions of every joint at every frame of clip 0 (frame-major). */
static rk_vec3 *all_positions(const rk_asset *a, double fps, size_t frames) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  const size_t n = rk_skeleton_joint_count(s);
  rk_vec3 *p = g_new(rk_vec3, n * frames);
  g_autofree rk_transform *pose = g_new(rk_transform, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  for (size_t f = 0; f < frames; f++) {
    cr_assert(
        rk_clip_sample_frame(rk_asset_clip(a, 0), rk_skeleton_rest_locals(s), fps, f, pose, n));
    rk_fk_job job = {
        .skeleton = s, .locals = pose, .locals_count = n, .models = models, .models_count = n};
    cr_assert(rk_fk_job_run(&job));
    for (size_t j = 0; j < n; j++)
      p[f * n + j] = rk_mat4_get_translation(&models[j]);
  }
  return p;
}

Test(plugin_profile, the_same_file_retargets_alike_in_the_cli_and_the_plugin) {
  const char *cli = g_getenv("RK_CLI") ? g_getenv("RK_CLI") : RK_CLI_PATH;
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *help[] = {cli, "retarget", "--help", NULL};
    if (run(help, &out, &err) != 0)
      cr_skip("%s has no retarget command yet (rigkit retarget, plugin/cli): %s", cli, err);
  }
  g_autofree char *dir = g_dir_make_tmp("rk_profile_XXXXXX", NULL);
  g_autofree char *profile = g_build_filename(dir, "figure.map", NULL);
  cr_assert(g_file_set_contents(profile,
                                "# one profile for the CLI and the plugin\n"
                                "[target]\nleft_toes=leg_joint_L_5\nright_toes=leg_joint_R_5\n"
                                "[settings]\nroot_motion=true\nfps=30\ncontact_min_time=0.05\n",
                                -1, NULL));
  g_autofree char *walk = rk_test_data("makehuman_walk1.bvh");
  g_autofree char *fig = rk_test_data("RiggedFigure.glb");
  g_autofree char *cli_glb = g_build_filename(dir, "cli.glb", NULL);
  g_autofree char *report = g_build_filename(dir, "report.json", NULL);
  g_autofree char *out = NULL, *err = NULL;
  const char *argv[] = {cli,     "retarget", "--target", fig,    "--map", profile,
                        "--out", cli_glb,    "--report", report, walk,    NULL};
  const int code = run(argv, &out, &err);
  cr_assert_eq(code, 0, "rigkit retarget exit %d:\n%s\n%s", code, out, err);

  g_autoptr(JsonParser) jp = json_parser_new();
  g_autoptr(GError) e = NULL;
  cr_assert(json_parser_load_from_file(jp, report, &e), "%s", e ? e->message : "");
  JsonObject *clip = json_array_get_object_element(
      json_object_get_array_member(json_node_get_object(json_parser_get_root(jp)), "clips"), 0);
  cr_assert_str_eq(json_object_get_string_member(clip, "status"), "ok");

  /* The plugin with the same file, the target as an asset, no host settings. */
  rk_plugin_asset *src = plugin_open("makehuman_walk1.bvh");
  rk_plugin_asset *tgt = plugin_open("RiggedFigure.glb");
  rk_plugin_session_desc d = {.source = src,
                              .target_asset = tgt,
                              .space = {RK_PLUGIN_UP_Y, 1},
                              .profile_path = profile,
                              .settings = RK_PLUGIN_SETTINGS_INIT};
  rk_plugin_session *s = plugin_run(&d);
  rk_plugin_result r = plugin_result(s);
  cr_assert_eq(r.frames, json_object_get_int_member(clip, "frames"));
  rk_assert_near(r.fps, json_object_get_double_member(clip, "fps"), 1e-9);
  rk_assert_near(r.fps, 30, 1e-9);
  cr_assert_eq(r.mapped_bones, json_object_get_int_member(clip, "mapped_joints"));
  /* Contacts, by joint name. */
  JsonObject *cc = json_object_get_object_member(clip, "contacts");
  const char *names[19];
  char msg[256] = "";
  cr_assert_eq(rk->session_joints(s, 19, names, NULL, NULL, NULL, msg, sizeof msg), RK_PLUGIN_OK);
  size_t with_intervals = 0;
  for (uint32_t c = 0; c < r.contact_count; c++) {
    int32_t joint, iv[64];
    uint32_t count;
    cr_assert_eq(rk->session_contact(s, c, &joint, 32, iv, &count, msg, sizeof msg), RK_PLUGIN_OK);
    if (count == 0)
      continue;
    with_intervals++;
    cr_assert(json_object_has_member(cc, names[joint]), "the CLI has no contact on %s",
              names[joint]);
    JsonArray *a = json_object_get_array_member(cc, names[joint]);
    cr_assert_eq(json_array_get_length(a), count, "%s", names[joint]);
    for (uint32_t k = 0; k < count; k++) {
      JsonArray *p = json_array_get_array_element(a, k);
      cr_assert_eq(json_array_get_int_element(p, 0), iv[2 * k], "%s", names[joint]);
      cr_assert_eq(json_array_get_int_element(p, 1), iv[2 * k + 1], "%s", names[joint]);
    }
  }
  cr_assert_eq(json_object_get_size(cc), with_intervals);
  cr_assert_gt(with_intervals, 0);

  /* The written motion: the CLI's file against the plugin's export, every joint, every frame. */
  g_autofree char *plugin_glb = g_build_filename(dir, "plugin.glb", NULL);
  cr_assert_eq(rk->session_export(s, plugin_glb, msg, sizeof msg), RK_PLUGIN_OK, "%s", msg);
  g_autoptr(rk_asset) a = rk_import_file(cli_glb, NULL, &e);
  cr_assert(a, "%s", e ? e->message : "");
  g_autoptr(rk_asset) b = rk_import_file(plugin_glb, NULL, &e);
  cr_assert(b, "%s", e ? e->message : "");
  const size_t n = rk_skeleton_joint_count(rk_asset_skeleton(a));
  cr_assert_eq(rk_skeleton_joint_count(rk_asset_skeleton(b)), n);
  g_autofree rk_vec3 *pa = all_positions(a, r.fps, r.frames);
  g_autofree rk_vec3 *pb = all_positions(b, r.fps, r.frames);
  double worst = 0;
  for (size_t f = 0; f < r.frames; f++)
    for (size_t j = 0; j < n; j++) {
      const int k = rk_skeleton_find_joint(rk_asset_skeleton(b),
                                           rk_skeleton_joint_name(rk_asset_skeleton(a), j));
      cr_assert(k >= 0);
      worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(pa[f * n + j], pb[f * n + (size_t)k])));
    }
  cr_assert(worst < 1e-5, "the CLI's and the plugin's outputs differ by %g m", worst);
  printf("one profile, CLI and plugin: %u frames at %g fps, %u bones mapped, %zu planted joints, "
         "outputs within %.3g m\n",
         r.frames, r.fps, r.mapped_bones, with_intervals, worst);
  rk->session_close(s);
  rk->asset_close(src);
  rk->asset_close(tgt);
  g_unlink(cli_glb), g_unlink(plugin_glb), g_unlink(report), g_unlink(profile);
  g_rmdir(dir);
}
