/* What the exporters answer about their formats: availability, the files a write produces (checked
 * against what rk_export_file leaves in a directory), and how a written file reads back (checked by
 * reading the written file back with exactly those settings). */
#include "export_fixtures.h"

#include <rigkit/importers.h>

static const rk_export_format ALL[] = {RK_EXPORT_GLTF, RK_EXPORT_GLB, RK_EXPORT_BVH, RK_EXPORT_FBX};

Test(export_format, every_format_is_available_and_nothing_else) {
  for (size_t i = 0; i < G_N_ELEMENTS(ALL); i++)
    cr_assert(rk_export_format_available(ALL[i]), "%s", rk_export_format_name(ALL[i]));
  cr_assert_not(rk_export_format_available(RK_EXPORT_AUTO));
  cr_assert_not(rk_export_format_available((rk_export_format)(RK_EXPORT_FBX + 1)));
  cr_assert_not(rk_export_format_available((rk_export_format)-1));
  cr_assert_str_eq(rk_export_format_name((rk_export_format)99), "?");
  cr_assert_str_eq(rk_export_format_name(RK_EXPORT_AUTO), "auto");
  cr_assert_str_eq(rk_export_format_name(RK_EXPORT_FBX), "fbx");
  cr_assert_eq(rk_export_format_from_path("a/b.FbX"), RK_EXPORT_FBX);
  cr_assert_eq(rk_export_format_from_path("a.gltf/b"), RK_EXPORT_AUTO);
  cr_assert_eq(rk_export_format_from_path(NULL), RK_EXPORT_AUTO);
}

static void assert_files(const char *path, const rk_export_options *opts,
                         const char *const *expected) {
  g_auto(GStrv) files = rk_export_output_files(path, opts);
  cr_assert_not_null(files);
  size_t n = 0;
  while (expected[n])
    n++;
  cr_assert_eq(g_strv_length(files), n, "%s: %u files, expected %zu", path ? path : "(null)",
               g_strv_length(files), n);
  for (size_t i = 0; i < n; i++)
    cr_assert_str_eq(files[i], expected[i]);
}

Test(export_format, output_files_name_the_gltf_buffer) {
  assert_files("out/walk.gltf", NULL, (const char *const[]){"out/walk.gltf", "out/walk.bin", NULL});
  assert_files("W.GLTF", NULL, (const char *const[]){"W.GLTF", "W.bin", NULL});
  assert_files("a/b.glb", NULL, (const char *const[]){"a/b.glb", NULL});
  assert_files("b.bvh", NULL, (const char *const[]){"b.bvh", NULL});
  assert_files("b.fbx", NULL, (const char *const[]){"b.fbx", NULL});
  rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  o.format = RK_EXPORT_GLTF; /* the options' format wins over the extension, as in rk_export_file */
  assert_files("v1.2/out", &o, (const char *const[]){"v1.2/out", "v1.2/out.bin", NULL});
  assert_files("x.fbx", &o, (const char *const[]){"x.fbx", "x.bin", NULL});
  o.format = RK_EXPORT_BVH;
  assert_files("x.gltf", &o, (const char *const[]){"x.gltf", NULL});
}

Test(export_format, output_files_are_empty_without_a_format) {
  assert_files("x.obj", NULL, (const char *const[]){NULL});
  assert_files("noext", NULL, (const char *const[]){NULL});
  assert_files("", NULL, (const char *const[]){NULL});
  assert_files(NULL, NULL, (const char *const[]){NULL});
  rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  o.format = (rk_export_format)42;
  assert_files("x.glb", &o, (const char *const[]){NULL});
}

/* Every file rk_export_file leaves in an empty directory is listed, in any format. */
Test(export_format, output_files_are_what_a_write_leaves) {
  g_autoptr(rk_asset) a = fixture_character(10);
  const char *names[] = {"c.gltf", "c.glb", "c.bvh", "c.fbx"};
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
    g_autofree char *dir = fixture_tmpdir();
    g_autofree char *path = g_build_filename(dir, names[i], NULL);
    rk_export_options o = RK_EXPORT_OPTIONS_INIT;
    o.clip = "walk"; /* BVH holds one clip */
    g_autoptr(GError) e = NULL;
    cr_assert(rk_export_file(a, path, &o, &e), "%s", e ? e->message : "");
    g_auto(GStrv) files = rk_export_output_files(path, &o);
    cr_assert_eq(g_strv_length(files), fixture_dir_count(dir), "%s", names[i]);
    for (size_t k = 0; files[k]; k++)
      cr_assert(g_file_test(files[k], G_FILE_TEST_IS_REGULAR), "%s not written", files[k]);
    fixture_rmdir(dir);
  }
}

Test(export_format, readback_of_each_format) {
  rk_export_readback r;
  rk_export_readback_of("a.bvh", NULL, &r);
  cr_assert_eq(r.format, RK_EXPORT_BVH);
  cr_assert_not(r.self_describing);
  cr_assert_eq(r.metres_per_unit, 0.01);
  cr_assert_str_eq(r.up_axis, "Y");
  cr_assert(r.bvh_root_absolute);
  rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  o.unit = RK_EXPORT_UNIT_METRES;
  o.bvh_root = RK_BVH_ROOT_ZERO;
  rk_export_readback_of("a.bvh", &o, &r);
  cr_assert_eq(r.metres_per_unit, 1.0);
  cr_assert(r.bvh_root_absolute);
  const char *self[] = {"a.gltf", "a.glb", "a.fbx"};
  const rk_export_format fmt[] = {RK_EXPORT_GLTF, RK_EXPORT_GLB, RK_EXPORT_FBX};
  for (size_t i = 0; i < G_N_ELEMENTS(self); i++) {
    rk_export_readback_of(self[i], NULL, &r);
    cr_assert_eq(r.format, fmt[i], "%s", self[i]);
    cr_assert(r.self_describing, "%s", self[i]);
    cr_assert_str_eq(r.up_axis, "Y");
    cr_assert_not(r.bvh_root_absolute);
    cr_assert_eq(r.metres_per_unit, fmt[i] == RK_EXPORT_FBX ? 0.01 : 1.0, "%s", self[i]);
  }
  rk_export_readback_of("a.fbx", &o, &r);
  cr_assert_eq(r.metres_per_unit, 1.0);
  o.format = RK_EXPORT_BVH; /* the options' format wins, and no path is needed */
  rk_export_readback_of(NULL, &o, &r);
  cr_assert_eq(r.format, RK_EXPORT_BVH);
}

Test(export_format, readback_without_a_format_is_empty) {
  rk_export_readback r;
  memset(&r, 0x5a, sizeof r);
  rk_export_readback_of("a.txt", NULL, &r);
  cr_assert_eq(r.format, RK_EXPORT_AUTO);
  cr_assert_not(r.self_describing);
  cr_assert_eq(r.metres_per_unit, 0.0);
  cr_assert_null(r.up_axis);
  cr_assert_not(r.bvh_root_absolute);
}

/* Largest world joint distance between the written clip and the one read back, over its frames. */
static double read_back_error(const rk_asset *a, const char *path, const rk_export_options *o) {
  rk_export_readback r;
  rk_export_readback_of(path, o, &r);
  rk_import_options io = RK_IMPORT_OPTIONS_INIT;
  io.format = rk_export_format_name(r.format);
  if (!r.self_describing) {
    io.unit_scale = r.metres_per_unit;
    io.up_axis = r.up_axis;
  }
  if (r.bvh_root_absolute)
    io.bvh_root_offset = RK_BVH_ROOT_OFFSET_REPLACE;
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_asset) b = rk_import_file(path, &io, &e);
  cr_assert_not_null(b, "%s", e ? e->message : "");
  const rk_skeleton *sa = rk_asset_skeleton(a), *sb = rk_asset_skeleton(b);
  const rk_clip *ca = rk_asset_clip(a, 0), *cb = rk_asset_clip(b, 0);
  const size_t n = rk_skeleton_joint_count(sa), nb = rk_skeleton_joint_count(sb);
  g_autofree rk_vec3 *pa = g_new(rk_vec3, n);
  g_autofree rk_vec3 *pb = g_new(rk_vec3, nb);
  double worst = 0;
  for (int f = 0; f <= 9; f++) {
    fixture_world_positions(sa, ca, f / 30.0, pa);
    fixture_world_positions(sb, cb, f / 30.0, pb);
    for (size_t j = 0; j < n; j++) {
      const int k = rk_skeleton_find_joint(sb, rk_skeleton_joint_name(sa, j));
      if (k >= 0) /* BVH End Sites come back under their own names */
        worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(pa[j], pb[k])));
    }
  }
  return worst / fixture_reference_length(sa);
}

/* The settings rk_export_readback_of gives read every format back where it was written, in
 * centimetres and in metres and with either BVH root convention. */
Test(export_format, readback_settings_read_the_file_back_as_written) {
  g_autoptr(rk_skeleton) s = fixture_humanoid(true);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  cr_assert(rk_asset_add_clip(a, fixture_walk(s, "walk", 10, 30)));
  g_autofree char *dir = fixture_tmpdir();
  const char *names[] = {"w.bvh", "w.fbx", "w.glb", "w.gltf"};
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
    for (int unit = 0; unit < 2; unit++)
      for (int root = 0; root < 2; root++) {
        g_autofree char *path = g_build_filename(dir, names[i], NULL);
        rk_export_options o = RK_EXPORT_OPTIONS_INIT;
        o.unit = unit ? RK_EXPORT_UNIT_METRES : RK_EXPORT_UNIT_DEFAULT;
        o.bvh_root = root ? RK_BVH_ROOT_ZERO : RK_BVH_ROOT_REST;
        g_autoptr(GError) e = NULL;
        cr_assert(rk_export_file(a, path, &o, &e), "%s", e ? e->message : "");
        const double err = read_back_error(a, path, &o);
        cr_assert_lt(err, 1e-5, "%s unit %d root %d: %g of the height", names[i], unit, root, err);
      }
  fixture_rmdir(dir);
}
