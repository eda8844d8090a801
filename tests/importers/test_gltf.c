/* glTF/GLB through Assimp plus rigkit's JSON pre-pass: duplicate names, interpolation modes,
 * companion files, in-memory imports, units. */
#include "import_test.h"
#include "../exporters/gltf_read.h"

Test(gltf, duplicate_names_bind_channels_to_the_right_node) {
  g_autoptr(rk_asset) a = import_ok("crafted/dup_names.gltf", NULL);
  const rk_skeleton *s = rk_asset_skeleton(a);
  static const char *const names[] = {"Hips", "Chest", "Head", "HeadTop", "Hand", "Hand.001"};
  cr_assert_eq(rk_skeleton_joint_count(s), G_N_ELEMENTS(names));
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
    joint(a, names[i]);
  /* The mesh node called "Head" is renamed and is not a joint. */
  cr_assert(rk_skeleton_find_joint(s, "Head.001") < 0);
  cr_assert(has_note(a, "node 0 renamed 'Head.001'"));
  cr_assert(has_note(a, "node 5 renamed 'Hand.001'"));
  const rk_clip *c = rk_asset_clip(a, 0);
  cr_assert_str_eq(rk_clip_name(c), "nod");
  g_autofree rk_vec3 *p0 = world_positions(a, c, 0);
  g_autofree rk_vec3 *p1 = world_positions(a, c, 1);
  g_autofree rk_vec3 *ph = world_positions(a, c, 0.5);
  rk_assert_vec3_near(p0[joint(a, "HeadTop")], rk_vec3_make(0, 1.8, 0), 1e-6);
  /* Joint "Head" turned 90 degrees about z: its child swings to -x. */
  rk_assert_vec3_near(p1[joint(a, "HeadTop")], rk_vec3_make(-0.3, 1.5, 0), 1e-6);
  rk_assert_vec3_near(ph[joint(a, "HeadTop")],
                      rk_vec3_make(-0.3 * sin(RK_PI / 4), 1.5 + 0.3 * cos(RK_PI / 4), 0), 1e-6);
  /* The second "Hand" moves, the first does not. */
  rk_assert_vec3_near(p1[joint(a, "Hand.001")], rk_vec3_make(-0.5, 1.5, 0), 1e-6);
  rk_assert_vec3_near(p1[joint(a, "Hand")], rk_vec3_make(0.5, 1.3, 0), 1e-6);
  /* The static mesh named like a bone stays a mesh (not skinned, not attached to a joint). */
  cr_assert_eq(rk_asset_mesh_count(a), 2u);
  bool found_static = false;
  for (size_t m = 0; m < rk_asset_mesh_count(a); m++) {
    const rk_mesh_data *d = rk_mesh_data_get(rk_asset_mesh(a, m));
    if (!d->joints) {
      found_static = true;
      cr_assert_eq(d->attach_joint, -1);
      rk_assert_near(d->positions[1], 1.6, 1e-6); /* moved to the world by its node */
    }
  }
  cr_assert(found_static);
}

Test(gltf, step_and_cubic_spline_interpolation_survive) {
  g_autoptr(rk_asset) a = import_ok("crafted/interpolation.gltf", NULL);
  const rk_clip *c = rk_asset_clip(a, 0);
  const int ja = (int)joint(a, "A"), jb = (int)joint(a, "B");
  const rk_track *step = rk_clip_track(c, (size_t)rk_clip_find_track(c, ja, RK_CHANNEL_TRANSLATION));
  const rk_track *cubic = rk_clip_track(c, (size_t)rk_clip_find_track(c, jb, RK_CHANNEL_TRANSLATION));
  const rk_track *lin = rk_clip_track(c, (size_t)rk_clip_find_track(c, jb, RK_CHANNEL_ROTATION));
  cr_assert_eq(step->interp, RK_INTERP_STEP);
  cr_assert_eq(cubic->interp, RK_INTERP_CUBIC);
  cr_assert_eq(lin->interp, RK_INTERP_LINEAR);
  cr_assert_eq(cubic->key_count, 3u);
  const rk_skeleton *s = rk_asset_skeleton(a);
  rk_transform x[2];
  /* STEP holds the previous key: still 0 at t = 0.9 (linear would give 0.9). */
  rk_clip_sample(c, rk_skeleton_rest_locals(s), 0.9, x, 2);
  rk_assert_vec3_near(x[ja].t, rk_vec3_make(0, 0, 0), 1e-12);
  /* Hermite with out-tangent (3,0,0) at key 0: p(0.5) = 0.125 * 3 + 0.5 * 1 = 0.875. */
  rk_clip_sample(c, rk_skeleton_rest_locals(s), 0.5, x, 2);
  rk_assert_vec3_near(x[jb].t, rk_vec3_make(0.875, 1, 0), 1e-6);
  rk_assert_quat_near(x[jb].r, rk_quat_from_axis_angle(rk_vec3_make(0, 1, 0), RK_PI / 4), 1e-6);
  rk_clip_sample(c, rk_skeleton_rest_locals(s), 1.5, x, 2);
  rk_assert_vec3_near(x[ja].t, rk_vec3_make(0, 1, 0), 1e-12);
}

Test(gltf, companion_buffer_files) {
  g_autoptr(rk_asset) a = import_ok("crafted/external_buffer.gltf", NULL);
  g_autoptr(rk_asset) b = import_ok("crafted/interpolation.gltf", NULL);
  g_autofree rk_vec3 *p = world_positions(a, rk_asset_clip(a, 0), 0.5);
  g_autofree rk_vec3 *q = world_positions(b, rk_asset_clip(b, 0), 0.5);
  rk_assert_vec3_near(p[1], q[1], 1e-12);
  /* From memory, a companion file cannot be opened: an I/O error that names it. */
  g_autofree char *path = rk_test_data("crafted/external_buffer.gltf");
  gchar *bytes = NULL;
  gsize len = 0;
  cr_assert(g_file_get_contents(path, &bytes, &len, NULL));
  g_autoptr(GError) error = NULL;
  rk_asset *m = rk_import_memory(bytes, len, "mem.gltf", NULL, &error);
  g_free(bytes);
  cr_assert_null(m);
  cr_assert(g_error_matches(error, RK_ERROR, RK_ERROR_IO), "%s", error->message);
  cr_assert(strstr(error->message, "external_buffer.bin"), "%s", error->message);
}

Test(gltf, memory_import_equals_file_import) {
  g_autofree char *path = rk_test_data("Fox.glb");
  gchar *bytes = NULL;
  gsize len = 0;
  cr_assert(g_file_get_contents(path, &bytes, &len, NULL));
  g_autoptr(GError) error = NULL;
  /* The name's extension is wrong on purpose: GLB is recognised by its magic. */
  g_autoptr(rk_asset) m = rk_import_memory(bytes, len, "fox-from-memory.gltf", NULL, &error);
  g_free(bytes);
  cr_assert(m, "%s", error ? error->message : "");
  cr_assert_str_eq(rk_asset_source_format(m), "glb");
  g_autoptr(rk_asset) f = import_ok("Fox.glb", NULL);
  const size_t n = rk_skeleton_joint_count(rk_asset_skeleton(f));
  cr_assert_eq(rk_skeleton_joint_count(rk_asset_skeleton(m)), n);
  g_autofree rk_vec3 *p = world_positions(m, rk_asset_clip(m, 1), 0.4);
  g_autofree rk_vec3 *q = world_positions(f, rk_asset_clip(f, 1), 0.4);
  for (size_t i = 0; i < n; i++)
    rk_assert_vec3_near(p[i], q[i], 0);
}

Test(gltf, no_synthetic_tracks_and_exact_keys) {
  /* Each Fox animation has 21 channels: Assimp's extra static keys for unanimated paths are
   * dropped, and key times come back exactly in seconds. */
  g_autoptr(rk_asset) a = import_ok("Fox.glb", NULL);
  for (size_t c = 0; c < 3; c++)
    cr_assert_eq(rk_clip_track_count(rk_asset_clip(a, c)), 21u);
  const rk_clip *walk = clip_named(a, "Walk");
  for (size_t t = 0; t < rk_clip_track_count(walk); t++) {
    const rk_track *tr = rk_clip_track(walk, t);
    cr_assert_eq(tr->key_count, 18u);
    for (size_t k = 0; k < tr->key_count; k++)
      rk_assert_near(tr->times[k], k / 24.0, 1e-6);
  }
}

Test(gltf, unit_override_scales_everything) {
  rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
  opts.unit_scale = 0.01; /* read the Fox as centimetres */
  g_autoptr(rk_asset) cm = import_ok("Fox.glb", &opts);
  g_autoptr(rk_asset) m = import_ok("Fox.glb", NULL);
  cr_assert_str_eq(rk_asset_unit_name(cm), "cm");
  cr_assert(has_note(cm, "unit overridden"));
  cr_assert(!has_note(cm, "may not be metres"));
  cr_assert(has_note(m, "may not be metres"));
  const size_t n = rk_skeleton_joint_count(rk_asset_skeleton(m));
  g_autofree rk_vec3 *p = world_positions(cm, rk_asset_clip(cm, 0), 1.0);
  g_autofree rk_vec3 *q = world_positions(m, rk_asset_clip(m, 0), 1.0);
  for (size_t i = 0; i < n; i++)
    rk_assert_vec3_near(p[i], rk_vec3_scale(q[i], 0.01), 1e-9);
  const rk_mesh_data *dm = rk_mesh_data_get(rk_asset_mesh(m, 0));
  const rk_mesh_data *dc = rk_mesh_data_get(rk_asset_mesh(cm, 0));
  rk_assert_near(dc->positions[1], dm->positions[1] * 0.01, 1e-5);
}

Test(gltf, skip_meshes) {
  rk_import_options opts = RK_IMPORT_OPTIONS_INIT;
  opts.skip_meshes = true;
  g_autoptr(rk_asset) a = import_ok("RiggedFigure.glb", &opts);
  cr_assert_eq(rk_asset_mesh_count(a), 0u);
  /* Inverse bind matrices come from the skin's meshes: none without them. */
  cr_assert(!rk_skeleton_has_inverse_binds(rk_asset_skeleton(a)));
  cr_assert_eq(rk_skeleton_joint_count(rk_asset_skeleton(a)), 19u);
}

Test(gltf, inverse_binds_and_weights_are_canonical) {
  g_autoptr(rk_asset) a = import_ok("RiggedFigure.glb", NULL);
  const rk_skeleton *s = rk_asset_skeleton(a);
  cr_assert(rk_skeleton_has_inverse_binds(s));
  const size_t n = rk_skeleton_joint_count(s);
  g_autofree rk_mat4 *models = g_new(rk_mat4, n);
  rk_skeleton_rest_models(s, models);
  for (size_t i = 0; i < n; i++) {
    rk_mat4 ibm;
    cr_assert(rk_skeleton_inverse_bind(s, i, &ibm));
    rk_mat4 prod = rk_mat4_mul(&models[i], &ibm);
    rk_assert_mat4_near(prod, rk_mat4_identity(), 1e-4);
  }
  const rk_mesh_data *d = rk_mesh_data_get(rk_asset_mesh(a, 0));
  float lo = INFINITY, hi = -INFINITY;
  for (size_t v = 0; v < d->vertex_count; v++) {
    float sum = 0;
    for (int k = 0; k < 4; k++)
      sum += d->weights[4 * v + (size_t)k];
    rk_assert_near(sum, 1.0, 1e-5);
    lo = fminf(lo, d->positions[3 * v + 1]);
    hi = fmaxf(hi, d->positions[3 * v + 1]);
  }
  /* The mesh stands Y-up in model space: from the ground to about 1.45 m. */
  rk_assert_near(lo, 0.0, 0.02);
  rk_assert_near(hi, 1.45, 0.02);
}

/* Every joint of tests/data/<name> names a node of the document whose name is the joint's (after
 * the import's renames: `renamed` lists node, new name pairs) and whose parent is the node of the
 * parent joint (a root joint's node may have parents that are not joints); the asset's digest is
 * the file's SHA-256. */
static void assert_source_nodes(const char *name, const char *const *renamed, size_t n_renamed) {
  g_autoptr(rk_asset) a = import_ok(name, NULL);
  g_autofree char *path = rk_test_data(name);
  test_gltf d;
  test_gltf_load(&d, path);
  JsonArray *nodes = test_gltf_array(&d, "nodes");
  const guint n = json_array_get_length(nodes);
  g_autofree gint64 *parent = g_new(gint64, n);
  for (guint i = 0; i < n; i++)
    parent[i] = -1;
  for (guint i = 0; i < n; i++) {
    JsonObject *o = json_array_get_object_element(nodes, i);
    JsonArray *ch = json_object_has_member(o, "children")
                        ? json_object_get_array_member(o, "children")
                        : NULL;
    for (guint k = 0; ch && k < json_array_get_length(ch); k++)
      parent[json_array_get_int_element(ch, k)] = i;
  }
  const rk_skeleton *s = rk_asset_skeleton(a);
  for (size_t j = 0; j < rk_skeleton_joint_count(s); j++) {
    const int node = rk_asset_joint_source_node(a, j);
    const char *jn = rk_skeleton_joint_name(s, j);
    cr_assert(node >= 0 && (guint)node < n, "%s: joint %s has node %d", name, jn, node);
    JsonObject *o = json_array_get_object_element(nodes, (guint)node);
    g_autofree char *expected = json_object_has_member(o, "name")
                                    ? g_strdup(json_object_get_string_member(o, "name"))
                                    : g_strdup_printf("nodes[%d]", node);
    for (size_t r = 0; r < n_renamed; r += 2)
      if (atoi(renamed[r]) == node)
        g_free(expected), expected = g_strdup(renamed[r + 1]);
    cr_assert_str_eq(jn, expected, "%s: node %d", name, node);
    const int pj = rk_skeleton_parent(s, j);
    if (pj >= 0)
      cr_assert_eq(parent[node], rk_asset_joint_source_node(a, (size_t)pj),
                   "%s: joint %s: node %d's parent is not the parent joint's node", name, jn, node);
  }
  cr_assert_eq(rk_asset_joint_source_node(a, rk_skeleton_joint_count(s)), -1);
  g_autofree char *sha = g_compute_checksum_for_bytes(G_CHECKSUM_SHA256, d.file);
  cr_assert_str_eq(rk_asset_source_digest(a), sha, "%s: digest", name);
  test_gltf_clear(&d);
}

Test(gltf, joints_know_their_document_nodes) {
  /* Duplicate names renamed, a mesh node named like a joint, three scene roots (Assimp adds a
   * "ROOT" node above them, which is not a document node). */
  static const char *const dup[] = {"0", "Head.001", "5", "Hand.001"};
  assert_source_nodes("crafted/dup_names.gltf", dup, G_N_ELEMENTS(dup));
  assert_source_nodes("SimpleSkin.gltf", NULL, 0);
  assert_source_nodes("RiggedFigure.glb", NULL, 0);
  assert_source_nodes("Fox.glb", NULL, 0);
  g_autoptr(rk_asset) fig = import_ok("RiggedFigure.glb", NULL);
  /* Z_UP (node 0) and Armature (node 21) are folded into the root joint, node 2
   * ("torso_joint_1"). */
  cr_assert_eq(rk_asset_joint_source_node(fig, 0), 2);
  g_autoptr(rk_asset) bvh = import_ok("makehuman_walk1.bvh", NULL);
  cr_assert_eq(rk_asset_joint_source_node(bvh, 0), -1);
  cr_assert_null(rk_asset_source_digest(bvh));
}
