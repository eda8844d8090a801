/* The rigkit add-on in a real headless Blender: test_addon.py installs the add-on zip, retargets
 * the MakeHuman walk onto RiggedFigure's armature through the operator, checks the Action and
 * exports GLB and BVH with Blender's exporters; here rigkit re-reads those exports and compares
 * them with the positions Blender evaluated, measures the planted feet on them, and checks that
 * Blender's pose is the pose the plugin computes on the same files without Blender.
 * test_operators.py checks the operators (kept Actions, contacts, batches, an armature as the
 * source, a crashing import). Skipped, with a message saying how to enable it, when blender is
 * not installed. */
#include "rk_test.h"

#include <rigkit/importers.h>

#include "../../plugin/abi/include/rigkit/plugin.h"

#include <dlfcn.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

static char *find_blender(void) {
  const char *env = g_getenv("RK_BLENDER");
  if (env && *env)
    return g_strdup(env);
  return g_find_program_in_path("blender");
}

static void rm_tree(const char *path) {
  if (g_file_test(path, G_FILE_TEST_IS_DIR) && !g_file_test(path, G_FILE_TEST_IS_SYMLINK)) {
    g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name(d))) {
      g_autofree char *child = g_build_filename(path, name, NULL);
      rm_tree(child);
    }
    g_rmdir(path);
  } else {
    g_unlink(path);
  }
}

static rk_vec3 json_vec3(JsonArray *a) {
  return rk_vec3_make(json_array_get_double_element(a, 0), json_array_get_double_element(a, 1),
                      json_array_get_double_element(a, 2));
}

/* Blender world (Z-up) -> rigkit canonical (Y-up): (x, y, z) -> (x, z, -y). */
static rk_vec3 z_to_y(rk_vec3 v) { return rk_vec3_make(v.x, v.z, -v.y); }

/* World positions of every joint of an imported file at time t. */
static void fk_at(const rk_asset *a, double t, rk_vec3 *out) {
  const rk_skeleton *s = rk_asset_skeleton(a);
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_transform *pose = g_new(rk_transform, n);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  cr_assert(rk_clip_sample(rk_asset_clip(a, 0), rk_skeleton_rest_locals(s), t, pose, n));
  rk_fk_job job = {
      .skeleton = s, .locals = pose, .locals_count = n, .models = models, .models_count = n};
  cr_assert(rk_fk_job_run(&job));
  for (size_t i = 0; i < n; i++)
    out[i] = rk_mat4_get_translation(&models[i]);
}

static int joint(const rk_asset *a, const char *name, const char *file) {
  int j = rk_skeleton_find_joint(rk_asset_skeleton(a), name);
  cr_assert(j >= 0, "%s has no joint %s", file, name);
  return j;
}

/* Runs an add-on test script in a headless Blender with the add-on zip, the test data and
 * dir/out; prints the script's "BLENDER ADDON" lines and the run's time, fails the test when the
 * script fails. Skips the test without Blender. Returns the out folder (g_free it). */
static char *run_addon_script(const char *script, const char *dir) {
  g_autofree char *blender = find_blender();
  if (!blender)
    cr_skip("blender not found: install Debian's blender and python3-numpy (CI does, see "
            ".ci/deps.sh) or set RK_BLENDER to run the headless Blender add-on test");
  cr_assert(g_file_test(RK_ADDON_ZIP, G_FILE_TEST_EXISTS),
            "%s is missing: build the blender-addon target", RK_ADDON_ZIP);
  g_autofree char *scripts = g_build_filename(dir, "user_scripts", NULL);
  char *out_dir = g_build_filename(dir, "out", NULL);
  g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "BLENDER_USER_SCRIPTS", scripts, TRUE);
  const char *argv[] = {blender, "-b",   "--factory-startup", "--python-exit-code", "1",
                        "--python", script, "--", "--zip", RK_ADDON_ZIP,
                        "--data", RK_TEST_DATA_DIR, "--out", out_dir, NULL};
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  g_autoptr(GError) e = NULL;
  const gint64 t0 = g_get_monotonic_time();
  cr_assert(
      g_spawn_sync(NULL, (char **)argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &e),
      "cannot run %s: %s", blender, e ? e->message : "");
  const double blender_s = (double)(g_get_monotonic_time() - t0) * 1e-6;
  g_auto(GStrv) lines = g_strsplit(out ? out : "", "\n", -1);
  GString *ours = g_string_new(NULL);
  for (size_t i = 0; lines[i]; i++)
    if (g_str_has_prefix(lines[i], "BLENDER ADDON"))
      g_string_append_printf(ours, "%s\n", lines[i]);
  printf("%sBLENDER ADDON whole Blender run (start, test, quit): %.2f s\n", ours->str, blender_s);
  cr_assert(g_spawn_check_wait_status(status, NULL), "the Blender add-on test failed:\n%s\n%s\n%s",
            ours->str, out, err);
  g_string_free(ours, TRUE);
  return out_dir;
}

Test(blender_addon, retargets_through_the_operator_and_the_exports_read_back) {
  g_autofree char *dir = g_dir_make_tmp("rk_addon_XXXXXX", NULL);
  g_autofree char *out_dir = run_addon_script(RK_ADDON_SCRIPT, dir);
  g_autoptr(GError) e = NULL;

  /* The manifest: Blender's evaluated positions at a few frames. */
  g_autofree char *manifest = g_build_filename(out_dir, "manifest.json", NULL);
  g_autoptr(JsonParser) jp = json_parser_new();
  cr_assert(json_parser_load_from_file(jp, manifest, &e), "%s", e ? e->message : "");
  JsonObject *m = json_node_get_object(json_parser_get_root(jp));
  const double fps = json_object_get_double_member(m, "fps");
  const gint64 frames = json_object_get_int_member(m, "frames");
  const gint64 first = json_object_get_int_member(m, "frame_start");
  const gint64 bones = json_object_get_int_member(m, "bones");
  JsonArray *samples = json_object_get_array_member(m, "samples");

  /* GLB: rigkit reads Blender's export; world positions agree with what Blender evaluated. */
  const char *glb = json_object_get_string_member(m, "glb");
  g_autoptr(rk_asset) ga = rk_import_file(glb, NULL, &e);
  cr_assert(ga, "%s", e ? e->message : "");
  cr_assert_eq(rk_skeleton_joint_count(rk_asset_skeleton(ga)), (size_t)bones);
  cr_assert_eq(rk_asset_clip_count(ga), 1);
  /* Blender's glTF exporter puts scene frame f at f / fps seconds: the clip ends at the last
   * frame's time (the first key is at frame_start / fps, before it the pose holds). */
  rk_assert_near(rk_clip_duration(rk_asset_clip(ga, 0)), (double)(first + frames - 1) / fps, 1e-3);
  const size_t ng = rk_skeleton_joint_count(rk_asset_skeleton(ga));
  g_autofree rk_vec3 *pos = g_new(rk_vec3, ng);
  double worst = 0;
  for (guint i = 0; i < json_array_get_length(samples); i++) {
    JsonObject *s = json_array_get_object_element(samples, i);
    fk_at(ga, (double)json_object_get_int_member(s, "frame") / fps, pos);
    JsonObject *p = json_object_get_object_member(s, "positions");
    g_autoptr(GList) names = json_object_get_members(p);
    for (GList *l = names; l; l = l->next) {
      const rk_vec3 want = z_to_y(json_vec3(json_object_get_array_member(p, l->data)));
      worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(pos[joint(ga, l->data, glb)], want)));
    }
  }
  cr_assert(worst < 0.002, "rigkit reads %s %.2f mm away from Blender's pose", glb, worst * 1e3);
  /* The planted feet on the written file (rigkit's reading): still during each contact. */
  JsonObject *contacts = json_object_get_object_member(m, "contacts");
  g_autoptr(GList) feet = json_object_get_members(contacts);
  double skate = 0;
  size_t planted_frames = 0;
  for (GList *l = feet; l; l = l->next) {
    const int j = joint(ga, l->data, glb);
    JsonArray *ivs = json_object_get_array_member(contacts, l->data);
    for (guint k = 0; k < json_array_get_length(ivs); k++) {
      JsonArray *iv = json_array_get_array_element(ivs, k);
      const gint64 a = llround(json_array_get_double_element(iv, 0));
      const gint64 b = llround(json_array_get_double_element(iv, 1));
      fk_at(ga, (double)a / fps, pos);
      const rk_vec3 p0 = pos[j];
      for (gint64 f = a; f <= b; f++, planted_frames++) {
        fk_at(ga, (double)f / fps, pos);
        skate = fmax(skate, hypot(pos[j].x - p0.x, pos[j].z - p0.z));
      }
    }
  }
  cr_assert_gt(planted_frames, 0);
  cr_assert(skate < 0.002, "planted feet slide %.2f mm in %s", skate * 1e3, glb);
  printf("BLENDER ADDON rigkit re-read %s: %zu joints, %.4f s, positions within %.3f mm of "
         "Blender's; planted feet skate %.3f mm over %zu frames\n",
         glb, ng, rk_clip_duration(rk_asset_clip(ga, 0)), worst * 1e3, skate * 1e3, planted_frames);

  /* The same retarget straight through the plugin (the figure as rigkit reads it, canonical
   * space): Blender's pose of its own armature, converted by the add-on and the plugin, is the
   * same motion. */
  void *so = dlopen(RK_BINARY_DIR "/lib/librigkit_plugin.so", RTLD_NOW | RTLD_LOCAL);
  cr_assert(so, "%s", dlerror());
  const rk_plugin_api *rk =
      ((rk_plugin_get_api_fn)dlsym(so, RK_PLUGIN_ENTRY_POINT))(RK_PLUGIN_ABI_VERSION);
  cr_assert(rk);
  char msg[512] = "";
  g_autofree char *walk = g_build_filename(RK_TEST_DATA_DIR, "makehuman_walk1.bvh", NULL);
  g_autofree char *fig = g_build_filename(RK_TEST_DATA_DIR, "RiggedFigure.glb", NULL);
  rk_plugin_asset *src = NULL, *tgt = NULL;
  cr_assert_eq(rk->asset_open_file(walk, NULL, &src, msg, sizeof msg), RK_PLUGIN_OK, "%s", msg);
  cr_assert_eq(rk->asset_open_file(fig, NULL, &tgt, msg, sizeof msg), RK_PLUGIN_OK, "%s", msg);
  rk_plugin_session_desc d = {.source = src,
                              .target_asset = tgt,
                              .space = {RK_PLUGIN_UP_Y, 1},
                              .settings = RK_PLUGIN_SETTINGS_INIT};
  d.settings.root_motion = 1; /* as the Blender run */
  d.settings.fps = fps;
  /* The add-on hands the plugin the armature with the figure's mesh (target_meshes): the soles
   * come from the mesh on both sides, as from the asset here. */
  rk_plugin_session *ps = NULL;
  cr_assert_eq(rk->session_new(&d, &ps, msg, sizeof msg), RK_PLUGIN_OK, "%s", msg);
  cr_assert_eq(rk->session_run(ps, msg, sizeof msg), RK_PLUGIN_OK, "%s", msg);
  g_autofree char *direct = g_build_filename(out_dir, "direct.glb", NULL);
  cr_assert_eq(rk->session_export(ps, direct, msg, sizeof msg), RK_PLUGIN_OK, "%s", msg);
  rk->session_close(ps), rk->asset_close(src), rk->asset_close(tgt);
  g_autoptr(rk_asset) da = rk_import_file(direct, NULL, &e);
  cr_assert(da, "%s", e ? e->message : "");
  g_autofree rk_vec3 *dp = g_new(rk_vec3, rk_skeleton_joint_count(rk_asset_skeleton(da)));
  double worst_direct = 0;
  for (guint i = 0; i < json_array_get_length(samples); i++) {
    JsonObject *s = json_array_get_object_element(samples, i);
    fk_at(da, (double)(json_object_get_int_member(s, "frame") - first) / fps, dp);
    JsonObject *p = json_object_get_object_member(s, "positions");
    g_autoptr(GList) names = json_object_get_members(p);
    for (GList *l = names; l; l = l->next) {
      const rk_vec3 want = z_to_y(json_vec3(json_object_get_array_member(p, l->data)));
      worst_direct =
          fmax(worst_direct, rk_vec3_norm(rk_vec3_sub(dp[joint(da, l->data, direct)], want)));
    }
  }
  cr_assert(worst_direct < 5e-4, "Blender's pose is %.3f mm from the plugin's own retarget",
            worst_direct * 1e3);
  printf("BLENDER ADDON Blender's evaluated pose vs the plugin's retarget of the same files "
         "without Blender: within %.4f mm\n",
         worst_direct * 1e3);

  /* BVH: Blender writes the armature's own space (metres); its up axis is the figure's -Y.
   * rigkit turns it upright: heights above the ground and horizontal distances (independent of
   * which way the reader turns the file about the vertical) agree with Blender's world. */
  const char *bvh = json_object_get_string_member(m, "bvh");
  rk_import_options o = RK_IMPORT_OPTIONS_INIT;
  o.unit_scale = 1.0;
  o.up_axis = "-Y";
  o.bvh_root_offset = RK_BVH_ROOT_OFFSET_REPLACE;
  g_autoptr(rk_asset) ba = rk_import_file(bvh, &o, &e);
  cr_assert(ba, "%s", e ? e->message : "");
  const size_t nb = rk_skeleton_joint_count(rk_asset_skeleton(ba));
  const rk_clip *bc = rk_asset_clip(ba, 0);
  cr_assert_eq(rk_clip_frame_count(bc), (size_t)frames);
  size_t bvh_bones = 0;
  for (size_t i = 0; i < nb; i++)
    bvh_bones += !(rk_skeleton_joint_flags(rk_asset_skeleton(ba), i) & RK_SKELETON_END_SITE);
  cr_assert_eq(bvh_bones, (size_t)bones, "%zu joints besides End Sites", bvh_bones);
  g_autofree rk_vec3 *bp = g_new(rk_vec3, nb);
  const double ground = json_object_get_double_member(m, "ground_z");
  double worst_h = 0, worst_d = 0;
  for (guint i = 0; i < json_array_get_length(samples); i++) {
    JsonObject *s = json_array_get_object_element(samples, i);
    fk_at(ba, (double)(json_object_get_int_member(s, "frame") - first) / fps, bp);
    JsonObject *p = json_object_get_object_member(s, "positions");
    g_autoptr(GList) names = json_object_get_members(p);
    /* Heights relative to the first probe (the hips): the reader may place the ground itself. */
    const char *ref = names->data;
    const rk_vec3 wr = json_vec3(json_object_get_array_member(p, ref));
    const rk_vec3 rr = bp[joint(ba, ref, bvh)];
    for (GList *l = names; l; l = l->next) {
      const rk_vec3 w = json_vec3(json_object_get_array_member(p, l->data));
      const rk_vec3 r = bp[joint(ba, l->data, bvh)];
      worst_h = fmax(worst_h, fabs((r.y - rr.y) - (w.z - wr.z)));
      worst_d = fmax(worst_d, fabs(hypot(r.x - rr.x, r.z - rr.z) - hypot(w.x - wr.x, w.y - wr.y)));
    }
    cr_assert(wr.z - ground > 0.3, "hips at %.3f m", wr.z - ground);
  }
  cr_assert(worst_h < 0.002 && worst_d < 0.002,
            "rigkit reads %s with heights %.2f mm and horizontal distances %.2f mm off", bvh,
            worst_h * 1e3, worst_d * 1e3);
  printf("BLENDER ADDON rigkit re-read %s: %zu joints (%zu bones), %zu frames, relative heights "
         "within %.3f mm, horizontal distances within %.3f mm\n",
         bvh, nb, bvh_bones, rk_clip_frame_count(bc), worst_h * 1e3, worst_d * 1e3);
  rm_tree(dir);
}

/* What the operators keep, batches, an armature as the source, a crashing import: the checks are
 * in test_operators.py. */
Test(blender_addon, operators_keep_their_actions_batch_take_armatures_and_survive_crashes) {
  g_autofree char *dir = g_dir_make_tmp("rk_addon_ops_XXXXXX", NULL);
  g_free(run_addon_script(RK_ADDON_OPERATORS_SCRIPT, dir)); /* the script's checks assert */
  rm_tree(dir);
}
