/* Bad input and failing outputs for the FBX writer: what the glTF and BVH writers refuse, it
 * refuses the same way (same error codes, messages naming the path / clip / joint / key), and it
 * leaves no file behind and an existing file untouched. */
#include "export_refusals.h"

#include <rigkit/importers.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

Test(fbx_errors, unwritable_paths) {
  g_autoptr(rk_asset) a = fixture_character(5);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *file = g_build_filename(dir, "plain", NULL);
  cr_assert(g_file_set_contents(file, "x", 1, NULL));
  rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  o.format = RK_EXPORT_FBX;
  refuse_unwritable_paths(a, &o, dir, file, "fbx", RK_EXPORT_FBX);
  cr_assert_eq(fixture_dir_count(dir), 1); /* only "plain" */
  fixture_rmdir(dir);
}

Test(fbx_errors, read_only_directory) {
  if (geteuid() == 0)
    cr_skip("running as root: a read-only directory is writable (covered by /proc above)");
  g_autoptr(rk_asset) a = fixture_character(5);
  g_autofree char *dir = fixture_tmpdir();
  cr_assert_eq(g_chmod(dir, 0555), 0);
  g_autofree char *p = g_build_filename(dir, "out.fbx", NULL);
  refuse_read_only(a, NULL, p);
  g_chmod(dir, 0755);
  cr_assert_eq(fixture_dir_count(dir), 0);
  fixture_rmdir(dir);
}

Test(fbx_errors, nan_in_a_clip) {
  g_autoptr(rk_asset) a = fixture_character(9);
  const rk_clip *walk = rk_asset_clip(a, 0);
  const rk_track *t = rk_clip_track(walk, 3);
  ((double *)t->values)[4 * 5 + 2] = NAN; /* a buggy caller writing through the borrowed keys */
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *p = g_build_filename(dir, "nan.fbx", NULL);
  refuse_nan(a, NULL, p, t);
  cr_assert_eq(fixture_dir_count(dir), 0);
  fixture_rmdir(dir);
}

Test(fbx_errors, no_asset) {
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *p = g_build_filename(dir, "empty.fbx", NULL);
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_export_file(NULL, p, NULL, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_INVALID), "%s", e->message);
  cr_assert(strstr(e->message, p), "%s", e->message);
  cr_assert_eq(fixture_dir_count(dir), 0);
  fixture_rmdir(dir);
}

Test(fbx_errors, values_beyond_single_precision) {
  g_autoptr(rk_skeleton) s = fixture_humanoid(false);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *p = g_build_filename(dir, "far.fbx", NULL);
  /* A key 1e37 m away is 1e39 cm: beyond float32, which FBX curves hold. */
  g_autoptr(rk_asset) a = rk_asset_new(s);
  rk_clip *c = rk_clip_new("far", rk_skeleton_joint_count(s));
  const double t[2] = {0, 1};
  const double v[6] = {0, 0, 0, 1e37, 0, 0};
  rk_track tr = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, 2, t, v};
  cr_assert(rk_clip_add_track(c, &tr, NULL));
  cr_assert(rk_asset_add_clip(a, c));
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_export_file(a, p, NULL, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_INVALID), "%s", e->message);
  cr_assert(strstr(e->message, "Hips") && strstr(e->message, "key 1") &&
                strstr(e->message, "'far'"),
            "%s", e->message);
  /* In metres the same key fits. */
  rk_export_options m = RK_EXPORT_OPTIONS_INIT;
  m.unit = RK_EXPORT_UNIT_METRES;
  g_clear_error(&e);
  cr_assert(rk_export_file(a, p, &m, &e), "%s", e ? e->message : "");
  cr_assert(g_unlink(p) == 0);
  cr_assert_eq(fixture_dir_count(dir), 0);
  fixture_rmdir(dir);
}

Test(fbx_errors, unknown_clip_keeps_the_existing_file) {
  g_autoptr(rk_asset) a = fixture_character(5);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *p = g_build_filename(dir, "keep.fbx", NULL);
  const rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  refuse_unknown_clip_keeping_the_file(a, &o, p);
  cr_assert_eq(fixture_dir_count(dir), 1); /* no temporary left */
  fixture_rmdir(dir);
}

Test(fbx_errors, disk_full_leaves_nothing) {
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = {4096, 4096};
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
  g_autoptr(rk_asset) a = fixture_character(200);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *p = g_build_filename(dir, "big.fbx", NULL);
  refuse_past_the_size_limit(a, NULL, p);
  cr_assert_eq(fixture_dir_count(dir), 0);
  fixture_rmdir(dir);
}

Test(fbx_errors, a_clip_without_tracks_keeps_its_duration) {
  g_autoptr(rk_skeleton) s = fixture_humanoid(true);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  rk_clip *c = rk_clip_new("idle", rk_skeleton_joint_count(s));
  rk_clip_set_duration(c, 1.5);
  rk_clip_set_fps(c, 30);
  cr_assert(rk_asset_add_clip(a, c));
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *p = g_build_filename(dir, "idle.fbx", NULL);
  g_autoptr(GError) e = NULL;
  cr_assert(rk_export_file(a, p, NULL, &e), "%s", e ? e->message : "");
  g_autoptr(rk_asset) b = rk_import_file(p, NULL, &e);
  cr_assert_not_null(b, "%s", e ? e->message : "");
  cr_assert_eq(rk_asset_clip_count(b), 1u);
  rk_assert_near(rk_clip_duration(rk_asset_clip(b, 0)), 1.5, 1e-9);
  cr_assert_eq(rk_skeleton_joint_count(rk_asset_skeleton(b)), rk_skeleton_joint_count(s));
  fixture_rmdir(dir);
}

Test(fbx_errors, one_clip_or_a_skeleton_alone) {
  g_autoptr(rk_asset) a = fixture_character(5);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *p = g_build_filename(dir, "one.fbx", NULL);
  rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  o.clip = "mixed";
  o.skip_meshes = true;
  g_autoptr(GError) e = NULL;
  cr_assert(rk_export_file(a, p, &o, &e), "%s", e ? e->message : "");
  g_autoptr(rk_asset) b = rk_import_file(p, NULL, &e);
  cr_assert_not_null(b, "%s", e ? e->message : "");
  cr_assert_eq(rk_asset_clip_count(b), 1u);
  cr_assert_str_eq(rk_clip_name(rk_asset_clip(b, 0)), "mixed");
  cr_assert_eq(rk_asset_mesh_count(b), 0u);
  /* "mixed" moves 4 joints: the other LimbNodes are joints all the same. */
  cr_assert_eq(rk_skeleton_joint_count(rk_asset_skeleton(b)),
               rk_skeleton_joint_count(rk_asset_skeleton(a)));
  fixture_rmdir(dir);
}
