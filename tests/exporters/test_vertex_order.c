/* Meshes keep the file's vertex count and order through import and `rigkit convert`: a glTF mesh
 * has exactly its POSITION accessor's vertices in accessor order, an FBX mesh Assimp's one vertex
 * per polygon corner in the file's corner order; the glTF and FBX outputs of convert hold the same
 * vertices in the same order. */
#include "export_fixtures.h"
#include "fbx_transcode.h"
#include "gltf_read.h"

#include <rigkit/importers.h>

/* Distances between consecutive vertices, divided by the largest: the same for any rigid motion
 * or uniform scale of the vertices, different for another order. */
static double *step_signature(const float *p, size_t n, size_t stride) {
  double *d = g_new0(double, n + 1);
  double most = 0;
  for (size_t i = 1; i < n; i++) {
    const float *a = p + (i - 1) * stride, *b = p + i * stride;
    d[i] = sqrt((double)(a[0] - b[0]) * (a[0] - b[0]) + (double)(a[1] - b[1]) * (a[1] - b[1]) +
                (double)(a[2] - b[2]) * (a[2] - b[2]));
    most = fmax(most, d[i]);
  }
  for (size_t i = 1; i < n; i++)
    d[i] /= most;
  return d;
}

static void assert_same_order(const char *what, const float *expected, size_t expected_stride,
                              const float *got, size_t n) {
  g_autofree double *a = step_signature(expected, n, expected_stride);
  g_autofree double *b = step_signature(got, n, 3);
  for (size_t i = 1; i < n; i++)
    cr_assert(fabs(a[i] - b[i]) < 1e-4, "%s: vertex %zu is not where the file has it (%g vs %g)",
              what, i, b[i], a[i]);
}

static const rk_mesh_data *only_mesh(const rk_asset *a, const char *what) {
  cr_assert_eq(rk_asset_mesh_count(a), 1, "%s: %zu meshes", what, rk_asset_mesh_count(a));
  return rk_mesh_data_get(rk_asset_mesh(a, 0));
}

static rk_asset *import_or_die(const char *path) {
  g_autoptr(GError) e = NULL;
  rk_asset *a = rk_import_file(path, NULL, &e);
  cr_assert_not_null(a, "%s: %s", path, e ? e->message : "");
  return a;
}

/* The control points (3 doubles each) and polygon vertex indices of the first Geometry of an FBX
 * file (new arrays). */
static void fbx_geometry(const char *path, double **points, size_t *n_points, int64_t **corners,
                         size_t *n_corners) {
  gchar *bytes = NULL;
  gsize size = 0;
  cr_assert(g_file_get_contents(path, &bytes, &size, NULL));
  rk__fbx_tree tree;
  g_autoptr(GError) e = NULL;
  cr_assert(rk__fbx_tree_parse((const uint8_t *)bytes, size, path, &tree, &e), "%s",
            e ? e->message : "");
  const rk__fbx_node *geo = rk__fbx_node_child(rk__fbx_node_child(&tree.root, "Objects"),
                                               "Geometry");
  cr_assert_not_null(geo, "%s: no Geometry", path);
  size_t nv = 0;
  cr_assert(rk__fbx_prop_doubles(rk__fbx_node_prop(rk__fbx_node_child(geo, "Vertices"), 0),
                                 points, &nv, NULL));
  cr_assert(rk__fbx_prop_int64s(
      rk__fbx_node_prop(rk__fbx_node_child(geo, "PolygonVertexIndex"), 0), corners, n_corners,
      NULL));
  *n_points = nv / 3;
  rk__fbx_tree_free(&tree);
  g_free(bytes);
}

/* The corners of the first Geometry of an FBX file as control point positions, in the file's
 * polygon order (a new array, 3 floats per corner; *n corners). */
static float *fbx_corner_positions(const char *path, size_t *n) {
  g_autofree double *v = NULL;
  g_autofree int64_t *pvi = NULL;
  size_t np = 0, nc = 0;
  fbx_geometry(path, &v, &np, &pvi, &nc);
  float *out = g_new(float, 3 * nc + 1);
  for (size_t i = 0; i < nc; i++) {
    const int64_t k = pvi[i] < 0 ? ~pvi[i] : pvi[i];
    cr_assert((size_t)k < np);
    for (int c = 0; c < 3; c++)
      out[3 * i + (size_t)c] = (float)v[3 * (size_t)k + (size_t)c];
  }
  *n = nc;
  return out;
}

/* The control points of the first Geometry of an FBX file written by rigkit (a new array). */
static double *fbx_control_points(const char *path, size_t *n) {
  double *v = NULL;
  g_autofree int64_t *pvi = NULL;
  size_t nc = 0;
  fbx_geometry(path, &v, n, &pvi, &nc);
  return v;
}

static int run_convert(const char *in, const char *out) {
  const char *argv[] = {RK_CLI_PATH, "convert", in, out, NULL};
  int status = 0;
  g_autofree char *o = NULL, *err = NULL;
  cr_assert(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &o, &err, &status,
                         NULL));
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "convert %s %s: %s", in, out, err);
  return 0;
}

/* convert's glTF and FBX outputs of `in` hold the vertices of `mesh` (the input as imported) in
 * the same order. */
static void assert_convert_keeps_order(const char *in, const rk_mesh_data *mesh) {
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *glb = g_build_filename(dir, "out.glb", NULL);
  g_autofree char *fbx = g_build_filename(dir, "out.fbx", NULL);
  run_convert(in, glb);
  run_convert(in, fbx);
  g_autoptr(rk_asset) back = import_or_die(glb);
  const rk_mesh_data *b = only_mesh(back, glb);
  cr_assert_eq(b->vertex_count, mesh->vertex_count, "%s -> glb: %zu vertices, input %zu", in,
               b->vertex_count, mesh->vertex_count);
  for (size_t i = 0; i < 3 * mesh->vertex_count; i++)
    cr_assert(fabsf(b->positions[i] - mesh->positions[i]) < 1e-6f, "%s -> glb: vertex %zu moved",
              in, i / 3);
  size_t n = 0;
  g_autofree double *cp = fbx_control_points(fbx, &n);
  cr_assert_eq(n, mesh->vertex_count, "%s -> fbx: %zu control points, input %zu vertices", in, n,
               mesh->vertex_count);
  for (size_t i = 0; i < 3 * n; i++) /* centimetres */
    cr_assert(fabs(cp[i] * 0.01 - mesh->positions[i]) < 1e-6, "%s -> fbx: vertex %zu moved", in,
              i / 3);
  fixture_rmdir(dir);
}

static void check_gltf_file(const char *name, size_t expected_vertices) {
  g_autofree char *path = rk_test_data(name);
  test_gltf d;
  test_gltf_load(&d, path);
  JsonObject *prim = json_array_get_object_element(
      json_object_get_array_member(test_gltf_element(&d, "meshes", 0), "primitives"), 0);
  JsonObject *attrs = json_object_get_object_member(prim, "attributes");
  size_t n = 0;
  int nc = 0;
  g_autofree float *pos = test_gltf_floats(
      &d, (guint)json_object_get_int_member(attrs, "POSITION"), &n, &nc);
  cr_assert_eq(n, expected_vertices, "%s: the test expects %zu vertices", name, expected_vertices);
  g_autoptr(rk_asset) a = import_or_die(path);
  const rk_mesh_data *m = only_mesh(a, name);
  cr_assert_eq(m->vertex_count, n, "%s: %zu vertices imported, the accessor has %zu", name,
               m->vertex_count, n);
  assert_same_order(name, pos, 3, m->positions, n);
  if (json_object_has_member(attrs, "TEXCOORD_0")) {
    size_t nt = 0;
    g_autofree float *uv = test_gltf_floats(
        &d, (guint)json_object_get_int_member(attrs, "TEXCOORD_0"), &nt, &nc);
    cr_assert_not_null(m->texcoords);
    for (size_t i = 0; i < 2 * n; i++)
      cr_assert(fabsf(uv[i] - m->texcoords[i]) < 1e-6f, "%s: UV of vertex %zu", name, i / 2);
  }
  assert_convert_keeps_order(path, m);
  test_gltf_clear(&d);
}

Test(vertex_order, fox_keeps_its_1728_vertices) {
  check_gltf_file("Fox.glb", 1728);
}

Test(vertex_order, rigged_figure_keeps_its_370_vertices) {
  check_gltf_file("RiggedFigure.glb", 370);
}

Test(vertex_order, fbx_vertices_are_the_polygon_corners_in_file_order) {
  g_autofree char *path = rk_test_data("assimp_huesitos.fbx");
  size_t n = 0;
  g_autofree float *corners = fbx_corner_positions(path, &n);
  g_autoptr(rk_asset) a = import_or_die(path);
  const rk_mesh_data *m = only_mesh(a, path);
  cr_assert_eq(m->vertex_count, n, "%zu vertices imported, the file has %zu polygon corners",
               m->vertex_count, n);
  assert_same_order(path, corners, 3, m->positions, n);
  assert_convert_keeps_order(path, m);
}
