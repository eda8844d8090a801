/* Bad input and failing outputs: every writer refuses with a clear error and leaves no file (and
 * an existing file untouched). */
#include "export_refusals.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

static const char *const formats[] = {"glb", "gltf", "bvh"};

static rk_export_options one_clip(void) {
  rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  o.clip = "walk"; /* BVH holds one clip */
  return o;
}

Test(export_errors, unwritable_paths) {
  g_autoptr(rk_asset) a = fixture_character(5);
  rk_export_options o = one_clip();
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *file = g_build_filename(dir, "plain", NULL);
  cr_assert(g_file_set_contents(file, "x", 1, NULL));
  for (size_t i = 0; i < G_N_ELEMENTS(formats); i++)
    refuse_unwritable_paths(a, &o, dir, file, formats[i], RK_EXPORT_GLB);
  cr_assert_eq(fixture_dir_count(dir), 1); /* only "plain" */
  fixture_rmdir(dir);
}

Test(export_errors, read_only_directory) {
  if (geteuid() == 0)
    cr_skip("running as root: a read-only directory is writable (covered by /proc above)");
  g_autoptr(rk_asset) a = fixture_character(5);
  rk_export_options o = one_clip();
  g_autofree char *dir = fixture_tmpdir();
  cr_assert_eq(g_chmod(dir, 0555), 0);
  for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
    g_autofree char *p = g_strdup_printf("%s/out.%s", dir, formats[i]);
    refuse_read_only(a, &o, p);
  }
  g_chmod(dir, 0755);
  cr_assert_eq(fixture_dir_count(dir), 0);
  fixture_rmdir(dir);
}

Test(export_errors, nan_in_a_clip) {
  g_autoptr(rk_asset) a = fixture_character(9);
  /* rk_clip_add_track refuses NaN, but the borrowed key arrays can still be written by a buggy
   * caller: the writers check every value again. */
  const rk_clip *walk = rk_asset_clip(a, 0);
  const rk_track *t = rk_clip_track(walk, 3);
  ((double *)t->values)[4 * 5 + 2] = NAN;
  rk_export_options o = one_clip();
  g_autofree char *dir = fixture_tmpdir();
  for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
    g_autofree char *p = g_strdup_printf("%s/nan.%s", dir, formats[i]);
    refuse_nan(a, &o, p, t);
  }
  cr_assert_eq(fixture_dir_count(dir), 0);
  fixture_rmdir(dir);
}

Test(export_errors, no_joints_and_no_asset) {
  /* A skeleton with zero joints cannot be built... */
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  g_autoptr(GError) e = NULL;
  cr_assert_null(rk_skeleton_builder_build(b, NULL, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_INVALID));
  g_clear_error(&e);
  /* ...so an importer that failed hands the exporter nothing: a clear error, no file. */
  g_autofree char *dir = fixture_tmpdir();
  for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
    g_autofree char *p = g_strdup_printf("%s/empty.%s", dir, formats[i]);
    cr_assert_not(rk_export_file(NULL, p, NULL, &e));
    cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_INVALID), "%s", e->message);
    cr_assert(strstr(e->message, p), "%s", e->message);
    g_clear_error(&e);
  }
  cr_assert_not(rk_export_file(NULL, NULL, NULL, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_IO));
  cr_assert_eq(fixture_dir_count(dir), 0);
  fixture_rmdir(dir);
}

/* Exporting a to far.glb fails with RK_ERROR_INVALID, its message holding `words` and `more`
 * (NULL: nothing more), and writes nothing. */
static void assert_refused_far(const rk_asset *a, const char *words, const char *more) {
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *p = g_build_filename(dir, "far.glb", NULL);
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_export_file(a, p, NULL, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_INVALID), "%s", e->message);
  cr_assert(strstr(e->message, words) && (!more || strstr(e->message, more)), "%s", e->message);
  cr_assert_eq(fixture_dir_count(dir), 0);
  fixture_rmdir(dir);
}

Test(export_errors, values_beyond_single_precision) {
  g_autoptr(rk_skeleton) s = fixture_humanoid(false);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  rk_clip *c = rk_clip_new("far", rk_skeleton_joint_count(s));
  const double t[2] = {0, 1};
  const double v[6] = {0, 0, 0, 1e39, 0, 0};
  rk_track tr = {0, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, 2, t, v};
  cr_assert(rk_clip_add_track(c, &tr, NULL));
  cr_assert(rk_asset_add_clip(a, c));
  assert_refused_far(a, "Hips", "key 1");
}

/* A long clip (its accessors filled on two threads) with a value beyond float32 in a late
 * joint's track and another in an early one: the error names the early one, as one pass in
 * track order finds it, and nothing is written. */
Test(export_errors, the_first_bad_track_is_named_whatever_fills_it) {
  g_autoptr(rk_skeleton) s = fixture_humanoid(false);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  const size_t n = rk_skeleton_joint_count(s), keys = 4000;
  rk_clip *c = rk_clip_new("far", n);
  g_autofree double *t = g_new(double, keys), *v = g_new0(double, 3 * keys);
  for (size_t k = 0; k < keys; k++)
    t[k] = (double)k / 120.0;
  for (size_t j = 0; j < n; j++) {
    v[3 * 7 + 1] = j == 2 || j == n - 1 ? 1e39 : 0;
    rk_track tr = {(int)j, RK_CHANNEL_TRANSLATION, RK_INTERP_LINEAR, keys, t, v};
    cr_assert(rk_clip_add_track(c, &tr, NULL));
  }
  cr_assert(rk_asset_add_clip(a, c));
  g_autofree char *want = g_strdup_printf("joint '%s', translation key 7", rk_skeleton_joint_name(s, 2));
  assert_refused_far(a, want, NULL);
}

Test(export_errors, existing_file_survives_a_failed_export) {
  g_autoptr(rk_asset) a = fixture_character(5);
  rk_export_options o = one_clip();
  g_autofree char *dir = fixture_tmpdir();
  for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
    g_autofree char *p = g_strdup_printf("%s/keep.%s", dir, formats[i]);
    refuse_unknown_clip_keeping_the_file(a, &o, p);
  }
  /* keep.glb, keep.gltf + keep.bin, keep.bvh and no temporary. */
  cr_assert_eq(fixture_dir_count(dir), 4);
  fixture_rmdir(dir);
}

Test(export_errors, disk_full_leaves_nothing) {
  /* A file size limit makes write() fail part-way, as a full disk does. */
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = {4096, 4096};
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
  g_autoptr(rk_asset) a = fixture_character(200);
  rk_export_options o = one_clip();
  g_autofree char *dir = fixture_tmpdir();
  for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
    g_autofree char *p = g_strdup_printf("%s/big.%s", dir, formats[i]);
    refuse_past_the_size_limit(a, &o, p);
  }
  cr_assert_eq(fixture_dir_count(dir), 0);
  fixture_rmdir(dir);
}

Test(export_errors, unknown_extension_and_fbx) {
  g_autoptr(rk_asset) a = fixture_character(5);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *p = g_build_filename(dir, "out.obj", NULL);
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_export_file(a, p, NULL, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_UNSUPPORTED), "%s", e->message);
  g_clear_error(&e);
  rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  o.format = RK_EXPORT_GLB; /* an explicit format wins over the extension */
  cr_assert(rk_export_file(a, p, &o, &e), "%s", e ? e->message : "");
  cr_assert_eq(rk_export_format_from_path("/x/y.GLB"), RK_EXPORT_GLB);
  cr_assert_eq(rk_export_format_from_path("/x.glb/y"), RK_EXPORT_AUTO);
  cr_assert_eq(rk_export_format_from_path("a.bvh"), RK_EXPORT_BVH);
  cr_assert_str_eq(rk_export_format_name(RK_EXPORT_GLTF), "gltf");
  fixture_rmdir(dir);
}
