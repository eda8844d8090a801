/* Entry points of the importers: format detection, option parsing and validation, concurrent
 * imports (Assimp's process-global error string is behind a lock). */
#include "import_test.h"

Test(import, format_from_path) {
  cr_assert_str_eq(rk_import_format_from_path("a/b/walk.BVH"), "bvh");
  cr_assert_str_eq(rk_import_format_from_path("x.glb"), "glb");
  cr_assert_str_eq(rk_import_format_from_path("x.gltf"), "gltf");
  cr_assert_str_eq(rk_import_format_from_path("rig.Fbx"), "fbx");
  cr_assert_str_eq(rk_import_format_from_path("iiwa.dh"), "dh");
  cr_assert_null(rk_import_format_from_path("dir.bvh/file"));
  cr_assert_null(rk_import_format_from_path("noext"));
  cr_assert_null(rk_import_format_from_path("x.obj"));
  cr_assert_null(rk_import_format_from_path(NULL));
}

Test(import, parse_unit_and_axis) {
  double m;
  cr_assert(rk_import_parse_unit("cm", &m) && m == 0.01);
  cr_assert(rk_import_parse_unit("IN", &m) && m == 0.0254);
  cr_assert(rk_import_parse_unit("cmu", &m) && fabs(m - 0.0254 / 0.45) < 1e-15);
  cr_assert(rk_import_parse_unit("0.3048", &m) && m == 0.3048);
  cr_assert(!rk_import_parse_unit("-1", &m));
  cr_assert(!rk_import_parse_unit("0", &m));
  cr_assert(!rk_import_parse_unit("furlong", &m));
  cr_assert(!rk_import_parse_unit("1m", &m));
  int axis, sign;
  cr_assert(rk_import_parse_axis("z", &axis, &sign) && axis == 2 && sign == 1);
  cr_assert(rk_import_parse_axis("-Y", &axis, &sign) && axis == 1 && sign == -1);
  cr_assert(rk_import_parse_axis("+x", &axis, &sign) && axis == 0 && sign == 1);
  cr_assert(!rk_import_parse_axis("W", &axis, &sign));
  cr_assert(!rk_import_parse_axis("XY", &axis, &sign));
  cr_assert(!rk_import_parse_axis("", &axis, &sign));
}

Test(import, options_are_checked) {
  rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
  opts.unit_scale = -2;
  g_autoptr(GError) e1 = NULL;
  g_autofree char *path = rk_test_data("makehuman_walk1.bvh");
  cr_assert_null(rk_import_file(path, &opts, &e1));
  cr_assert(g_error_matches(e1, RK_ERROR, RK_ERROR_INVALID));
  opts.unit_scale = 0;
  opts.up_axis = "sideways";
  g_autoptr(GError) e2 = NULL;
  cr_assert_null(rk_import_file(path, &opts, &e2));
  cr_assert(g_error_matches(e2, RK_ERROR, RK_ERROR_INVALID));
  /* An explicit format wins over the extension. */
  rk_import_options fmt = RK_IMPORT_OPTIONS_INIT;
  fmt.format = "gltf";
  g_autoptr(GError) e3 = NULL;
  cr_assert_null(rk_import_file(path, &fmt, &e3));
  cr_assert(strstr(e3->message, "glTF"), "%s", e3->message);
  /* Empty input from memory. */
  g_autoptr(GError) e4 = NULL;
  cr_assert_null(rk_import_memory("", 0, "empty.glb", NULL, &e4));
  cr_assert(strstr(e4->message, "empty.glb: empty file"), "%s", e4->message);
}

Test(import, content_decides_when_the_name_does_not) {
  g_autofree char *path = rk_test_data("makehuman_walk1.bvh");
  gchar *bytes = NULL;
  gsize len = 0;
  cr_assert(g_file_get_contents(path, &bytes, &len, NULL));
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) a = rk_import_memory(bytes, len, "no-extension", NULL, &error);
  g_free(bytes);
  cr_assert(a, "%s", error ? error->message : "");
  cr_assert_str_eq(rk_asset_source_format(a), "bvh");
  cr_assert_str_eq(rk_asset_source_path(a), "no-extension");
}

typedef struct import_job {
  const char *file;
  double checksum;
  bool ok;
} import_job;

static double checksum(const rk_asset *a) {
  const rk_clip *c = rk_asset_clip(a, 0);
  g_autofree rk_vec3 *p = world_positions(a, c, rk_clip_duration(c) / 3);
  double s = 0;
  for (size_t i = 0; i < rk_skeleton_joint_count(rk_asset_skeleton(a)); i++)
    s += p[i].x + 2 * p[i].y + 3 * p[i].z;
  return s;
}

static gpointer import_many(gpointer data) {
  import_job *j = data;
  g_autofree char *path = rk_test_data(j->file);
  j->ok = true;
  for (int k = 0; k < 8; k++) {
    g_autoptr(GError) error = NULL;
    rk_asset *a = rk_import_file(path, NULL, &error);
    if (!a) {
      j->ok = false;
      return NULL;
    }
    const double c = checksum(a);
    if (k > 0 && c != j->checksum)
      j->ok = false;
    j->checksum = c;
    rk_asset_free(a);
    /* A failing import in between, to exercise the error path concurrently. */
    g_autoptr(GError) bad = NULL;
    g_autofree char *broken = rk_test_data("bad/fbx_truncated.fbx");
    if (rk_import_file(broken, NULL, &bad) || !bad)
      j->ok = false;
  }
  return NULL;
}

Test(import, concurrent_imports_give_the_same_results) {
  import_job jobs[] = {{"Fox.glb", 0, false},
                       {"assimp_huesitos.fbx", 0, false},
                       {"makehuman_walk1.bvh", 0, false},
                       {"RiggedFigure.glb", 0, false}};
  GThread *threads[G_N_ELEMENTS(jobs)];
  for (size_t i = 0; i < G_N_ELEMENTS(jobs); i++)
    threads[i] = g_thread_new("import", import_many, &jobs[i]);
  for (size_t i = 0; i < G_N_ELEMENTS(jobs); i++)
    g_thread_join(threads[i]);
  for (size_t i = 0; i < G_N_ELEMENTS(jobs); i++) {
    cr_assert(jobs[i].ok, "%s", jobs[i].file);
    g_autoptr(rk_asset) a = import_ok(jobs[i].file, NULL);
    cr_assert_eq(checksum(a), jobs[i].checksum, "%s", jobs[i].file);
  }
}
