/* glTF/GLB writer on assets built in code: validator, structure, determinism, GLB layout. */
#include "export_fixtures.h"

#include <json-glib/json-glib.h>

static char *write_asset(const rk_asset *a, const char *dir, const char *file,
                         const rk_export_options *opts) {
  char *path = g_build_filename(dir, file, NULL);
  g_autoptr(GError) e = NULL;
  cr_assert(rk_export_file(a, path, opts, &e), "%s", e ? e->message : "");
  return path;
}

static JsonObject *load_json(const char *path, JsonParser **parser) {
  g_autoptr(GError) e = NULL;
  *parser = json_parser_new();
  cr_assert(json_parser_load_from_file(*parser, path, &e), "%s", e ? e->message : "");
  return json_node_get_object(json_parser_get_root(*parser));
}

Test(gltf, character_passes_the_khronos_validator) {
  g_autoptr(rk_asset) a = fixture_character(61);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *glb = write_asset(a, dir, "character.glb", NULL);
  g_autofree char *gltf = write_asset(a, dir, "character.gltf", NULL);
  const char *files[] = {glb, gltf, NULL};
  g_autofree char *out = NULL;
  int status = fixture_validate(files, &out);
  cr_log_info("%s", out);
  cr_assert_eq(status, 0, "validator found errors:\n%s", out);
  /* The only acceptable remarks are hints/infos (e.g. unused texture coordinates). */
  cr_assert(strstr(out, ": 0 errors, 0 warnings") != NULL, "%s", out);
  fixture_rmdir(dir);
}

Test(gltf, skeleton_only_gets_a_skin_and_inverse_binds) {
  g_autoptr(rk_skeleton) s = fixture_humanoid(true);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  cr_assert(rk_asset_add_clip(a, fixture_walk(s, "walk", 10, 30)));
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *path = write_asset(a, dir, "skel.gltf", NULL);
  g_autoptr(JsonParser) parser = NULL;
  JsonObject *root = load_json(path, &parser);
  cr_assert(json_object_has_member(root, "skins"));
  JsonObject *skin = json_array_get_object_element(json_object_get_array_member(root, "skins"), 0);
  const size_t n = rk_skeleton_joint_count(s);
  cr_assert_eq(json_array_get_length(json_object_get_array_member(skin, "joints")), n);
  cr_assert_eq(json_object_get_int_member(skin, "skeleton"), 0);
  JsonArray *acc = json_object_get_array_member(root, "accessors");
  JsonObject *ibm = json_array_get_object_element(acc, (guint)json_object_get_int_member(skin, "inverseBindMatrices"));
  cr_assert_str_eq(json_object_get_string_member(ibm, "type"), "MAT4");
  cr_assert_eq(json_object_get_int_member(ibm, "count"), (gint64)n);
  cr_assert_not(json_object_has_member(root, "meshes"));
  const char *files[] = {path, NULL};
  g_autofree char *out = NULL;
  cr_assert_eq(fixture_validate(files, &out), 0, "%s", out);
  fixture_rmdir(dir);
}

Test(gltf, structure_names_interpolation_duration) {
  g_autoptr(rk_asset) a = fixture_character(31);
  const rk_skeleton *s = rk_asset_skeleton(a);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *path = write_asset(a, dir, "c.gltf", NULL);
  g_autofree char *bin = g_build_filename(dir, "c.bin", NULL);
  cr_assert(g_file_test(bin, G_FILE_TEST_IS_REGULAR));
  g_autoptr(JsonParser) parser = NULL;
  JsonObject *root = load_json(path, &parser);
  cr_assert_str_eq(json_object_get_string_member(json_object_get_object_member(root, "asset"), "version"), "2.0");

  /* Nodes: the joints in skeleton order with their names, then three mesh nodes; all unique. */
  JsonArray *nodes = json_object_get_array_member(root, "nodes");
  const size_t n = rk_skeleton_joint_count(s);
  cr_assert_eq(json_array_get_length(nodes), n + 3);
  g_autoptr(GHashTable) names = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < json_array_get_length(nodes); i++) {
    const char *nm = json_object_get_string_member(json_array_get_object_element(nodes, i), "name");
    if (i < n)
      cr_assert_str_eq(nm, rk_skeleton_joint_name(s, i));
    cr_assert(g_hash_table_add(names, (gpointer)nm), "duplicate node name %s", nm);
  }
  /* Rest TRS of a rotated joint survives exactly (JSON doubles). */
  JsonObject *arm = json_array_get_object_element(nodes, 8);
  JsonArray *rot = json_object_get_array_member(arm, "rotation");
  const rk_quat q = rk_skeleton_rest(s, 8)->r;
  rk_assert_near(json_array_get_double_element(rot, 0), q.x, 0);
  rk_assert_near(json_array_get_double_element(rot, 3), q.w, 0);

  /* Animations: named as the clips, interpolation kept, one holding key extends "mixed" to 1.5 s. */
  JsonArray *anims = json_object_get_array_member(root, "animations");
  cr_assert_eq(json_array_get_length(anims), 2);
  JsonObject *walk = json_array_get_object_element(anims, 0);
  JsonObject *mixed = json_array_get_object_element(anims, 1);
  cr_assert_str_eq(json_object_get_string_member(walk, "name"), "walk");
  cr_assert_str_eq(json_object_get_string_member(mixed, "name"), "mixed");
  JsonArray *acc = json_object_get_array_member(root, "accessors");
  JsonArray *samplers = json_object_get_array_member(mixed, "samplers");
  const rk_clip *mc = rk_asset_clip(a, 1);
  cr_assert_eq(json_array_get_length(samplers), rk_clip_track_count(mc));
  double latest = 0;
  for (guint i = 0; i < json_array_get_length(samplers); i++) {
    JsonObject *sm = json_array_get_object_element(samplers, i);
    cr_assert_str_eq(json_object_get_string_member(sm, "interpolation"),
                     rk_interp_name(rk_clip_track(mc, i)->interp));
    JsonObject *in = json_array_get_object_element(acc, (guint)json_object_get_int_member(sm, "input"));
    cr_assert(json_object_has_member(in, "min") && json_object_has_member(in, "max"));
    latest = fmax(latest, json_array_get_double_element(json_object_get_array_member(in, "max"), 0));
    JsonObject *outp = json_array_get_object_element(acc, (guint)json_object_get_int_member(sm, "output"));
    const size_t per = rk_clip_track(mc, i)->interp == RK_INTERP_CUBIC ? 3 : 1;
    const gint64 count_in = json_object_get_int_member(in, "count");
    cr_assert_eq(json_object_get_int_member(outp, "count"), count_in * (gint64)per);
  }
  rk_assert_near(latest, 1.5, 1e-7);
  /* The baked walk shares one input accessor for all of its tracks. */
  JsonArray *ws = json_object_get_array_member(walk, "samplers");
  const gint64 in0 = json_object_get_int_member(json_array_get_object_element(ws, 0), "input");
  for (guint i = 1; i < json_array_get_length(ws); i++)
    cr_assert_eq(json_object_get_int_member(json_array_get_object_element(ws, i), "input"), in0);

  /* Every bufferView starts on a 4-byte boundary; the buffer's length is the .bin's. */
  JsonArray *views = json_object_get_array_member(root, "bufferViews");
  for (guint i = 0; i < json_array_get_length(views); i++)
    cr_assert_eq(json_object_get_int_member(json_array_get_object_element(views, i), "byteOffset") % 4, 0);
  JsonObject *buf = json_array_get_object_element(json_object_get_array_member(root, "buffers"), 0);
  cr_assert_str_eq(json_object_get_string_member(buf, "uri"), "c.bin");
  g_autofree char *bytes = NULL;
  gsize len = 0;
  cr_assert(g_file_get_contents(bin, &bytes, &len, NULL));
  cr_assert_eq((gint64)len, json_object_get_int_member(buf, "byteLength"));

  /* Skinned mesh node at the root with the skin; the rigid hat under the head. */
  JsonObject *body = json_array_get_object_element(nodes, (guint)n);
  cr_assert_eq(json_object_get_int_member(body, "skin"), 0);
  JsonObject *head = json_array_get_object_element(nodes, 4);
  JsonArray *hc = json_object_get_array_member(head, "children");
  bool hat_under_head = false;
  for (guint i = 0; i < json_array_get_length(hc); i++)
    hat_under_head |= json_array_get_int_element(hc, i) == (gint64)n + 1;
  cr_assert(hat_under_head);
  fixture_rmdir(dir);
}

static void read_u32(const guint8 *p, guint32 *v) {
  *v = (guint32)p[0] | (guint32)p[1] << 8 | (guint32)p[2] << 16 | (guint32)p[3] << 24;
}

Test(gltf, glb_header_chunks_and_padding) {
  g_autoptr(rk_asset) a = fixture_character(7);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *path = write_asset(a, dir, "c.glb", NULL);
  g_autofree guint8 *b = NULL;
  gsize len = 0;
  cr_assert(g_file_get_contents(path, (char **)&b, &len, NULL));
  guint32 magic, version, total, jlen, jtype, blen, btype;
  read_u32(b, &magic), read_u32(b + 4, &version), read_u32(b + 8, &total);
  read_u32(b + 12, &jlen), read_u32(b + 16, &jtype);
  cr_assert_eq(magic, 0x46546C67u);
  cr_assert_eq(version, 2u);
  cr_assert_eq(total, len);
  cr_assert_eq(jtype, 0x4E4F534Au);
  cr_assert_eq(jlen % 4, 0u);
  read_u32(b + 20 + jlen, &blen), read_u32(b + 24 + jlen, &btype);
  cr_assert_eq(btype, 0x004E4942u);
  cr_assert_eq(blen % 4, 0u);
  cr_assert_eq(28 + jlen + blen, len);
  /* JSON padding is spaces, and the JSON parses. */
  cr_assert(b[20 + jlen - 1] == '}' || b[20 + jlen - 1] == ' ');
  g_autoptr(JsonParser) p = json_parser_new();
  cr_assert(json_parser_load_from_data(p, (const char *)b + 20, jlen, NULL));
  fixture_rmdir(dir);
}

Test(gltf, output_is_deterministic) {
  g_autoptr(rk_asset) a = fixture_character(45);
  g_autofree char *d1 = fixture_tmpdir();
  g_autofree char *d2 = fixture_tmpdir();
  const char *names[] = {"x.glb", "x.gltf", "x.bin"};
  g_free(write_asset(a, d1, "x.glb", NULL));
  g_free(write_asset(a, d2, "x.glb", NULL));
  g_free(write_asset(a, d1, "x.gltf", NULL));
  g_free(write_asset(a, d2, "x.gltf", NULL));
  for (size_t i = 0; i < 3; i++) {
    g_autofree char *f1 = g_build_filename(d1, names[i], NULL);
    g_autofree char *f2 = g_build_filename(d2, names[i], NULL);
    g_autofree char *c1 = NULL, *c2 = NULL;
    gsize l1 = 0, l2 = 0;
    cr_assert(g_file_get_contents(f1, &c1, &l1, NULL));
    cr_assert(g_file_get_contents(f2, &c2, &l2, NULL));
    cr_assert(l1 == l2 && memcmp(c1, c2, l1) == 0, "%s differs between two runs", names[i]);
  }
  fixture_rmdir(d1);
  fixture_rmdir(d2);
}

Test(gltf, weights_normalised_at_most_four_and_merged) {
  g_autoptr(rk_asset) a = fixture_character(3);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *path = write_asset(a, dir, "w.gltf", NULL);
  g_autoptr(JsonParser) parser = NULL;
  JsonObject *root = load_json(path, &parser);
  JsonObject *prim = json_array_get_object_element(
      json_object_get_array_member(json_array_get_object_element(json_object_get_array_member(root, "meshes"), 0),
                                   "primitives"), 0);
  JsonObject *attrs = json_object_get_object_member(prim, "attributes");
  JsonArray *acc = json_object_get_array_member(root, "accessors");
  JsonArray *views = json_object_get_array_member(root, "bufferViews");
  g_autofree char *bin_path = g_build_filename(dir, "w.bin", NULL);
  g_autofree char *bin = NULL;
  cr_assert(g_file_get_contents(bin_path, &bin, NULL, NULL));
  JsonObject *wa = json_array_get_object_element(acc, (guint)json_object_get_int_member(attrs, "WEIGHTS_0"));
  JsonObject *ja = json_array_get_object_element(acc, (guint)json_object_get_int_member(attrs, "JOINTS_0"));
  cr_assert_str_eq(json_object_get_string_member(wa, "type"), "VEC4");
  const float *w = (const float *)(bin + json_object_get_int_member(
      json_array_get_object_element(views, (guint)json_object_get_int_member(wa, "bufferView")), "byteOffset"));
  const guint16 *j = (const guint16 *)(bin + json_object_get_int_member(
      json_array_get_object_element(views, (guint)json_object_get_int_member(ja, "bufferView")), "byteOffset"));
  for (int v = 0; v < 8; v++) {
    float sum = 0;
    for (int k = 0; k < 4; k++) {
      sum += w[4 * v + k];
      if (k > 0)
        cr_assert(w[4 * v + k] <= w[4 * v + k - 1], "weights sorted heaviest first");
      for (int m = 0; m < k; m++)
        if (w[4 * v + k] > 0)
          cr_assert_neq(j[4 * v + k], j[4 * v + m], "vertex %d: joint %u twice", v, j[4 * v + k]);
    }
    rk_assert_near(sum, 1.0, 2e-7);
  }
  /* Vertex 5 had a duplicated joint: merged, so it uses 3 slots (4th weight 0, joint 0). */
  cr_assert_eq(w[4 * 5 + 3], 0.0f);
  cr_assert_eq(j[4 * 5 + 3], 0);
  fixture_rmdir(dir);
}

Test(gltf, multi_root_skeleton_and_empty_clip) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_transform x = rk_transform_identity();
  x.t = rk_vec3_make(1, 0, 0);
  int r1 = rk_skeleton_builder_add_joint(b, "a", -1, &x, 0);
  rk_skeleton_builder_add_joint(b, "a child", r1, &x, 0);
  rk_skeleton_builder_add_joint(b, "b", -1, &x, 0);
  g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(b, NULL, NULL);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  rk_clip *empty = rk_clip_new("", 3);
  rk_clip_set_duration(empty, 2.0);
  cr_assert(rk_asset_add_clip(a, empty));
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *path = write_asset(a, dir, "m.glb", NULL);
  const char *files[] = {path, NULL};
  g_autofree char *out = NULL;
  cr_assert_eq(fixture_validate(files, &out), 0, "%s", out);
  fixture_rmdir(dir);
}

Test(gltf, refuses_centimetres) {
  g_autoptr(rk_asset) a = fixture_character(3);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *path = g_build_filename(dir, "x.glb", NULL);
  rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  o.unit = RK_EXPORT_UNIT_CENTIMETRES;
  g_autoptr(GError) e = NULL;
  cr_assert_not(rk_export_file(a, path, &o, &e));
  cr_assert(g_error_matches(e, RK_ERROR, RK_ERROR_UNSUPPORTED));
  cr_assert_eq(fixture_dir_count(dir), 0);
  fixture_rmdir(dir);
}

Test(gltf, selected_clip_only_and_skip_meshes) {
  g_autoptr(rk_asset) a = fixture_character(5);
  g_autofree char *dir = fixture_tmpdir();
  rk_export_options o = RK_EXPORT_OPTIONS_INIT;
  o.clip = "mixed";
  o.skip_meshes = true;
  g_autofree char *path = write_asset(a, dir, "one.gltf", &o);
  g_autoptr(JsonParser) parser = NULL;
  JsonObject *root = load_json(path, &parser);
  JsonArray *anims = json_object_get_array_member(root, "animations");
  cr_assert_eq(json_array_get_length(anims), 1);
  cr_assert_str_eq(json_object_get_string_member(json_array_get_object_element(anims, 0), "name"), "mixed");
  cr_assert_not(json_object_has_member(root, "meshes"));
  fixture_rmdir(dir);
}

Test(gltf, numbers_are_valid_json_and_exact) {
  /* json-glib 1.6's generator would print 1e-08 as "1e-08.0"; rigkit writes its own numbers. */
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_transform x = rk_transform_identity();
  x.t = rk_vec3_make(1e-8, 1e20, -3e-300);
  rk_skeleton_builder_add_joint(b, "root", -1, &x, 0);
  x.t = rk_vec3_make(0.1, 1.0 / 3.0, -0.0);
  rk_skeleton_builder_add_joint(b, "child \"quoted\"\n", 0, &x, 0);
  g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(b, NULL, NULL);
  g_autoptr(rk_asset) a = rk_asset_new(s);
  g_autofree char *dir = fixture_tmpdir();
  g_autofree char *path = write_asset(a, dir, "n.gltf", NULL);
  g_autofree char *text = NULL;
  cr_assert(g_file_get_contents(path, &text, NULL, NULL));
  cr_assert(strstr(text, "[1e-08, 1e+20, -3e-300]") != NULL, "%s", text);
  cr_assert(strstr(text, "[0.1, 0.3333333333333333, 0]") != NULL, "%s", text);
  g_autoptr(JsonParser) parser = NULL;
  JsonObject *root = load_json(path, &parser);
  JsonArray *nodes = json_object_get_array_member(root, "nodes");
  JsonObject *n0 = json_array_get_object_element(nodes, 0);
  JsonArray *t = json_object_get_array_member(n0, "translation");
  rk_assert_near(json_array_get_double_element(t, 0), 1e-8, 0);
  rk_assert_near(json_array_get_double_element(t, 1), 1e20, 0);
  cr_assert_str_eq(json_object_get_string_member(json_array_get_object_element(nodes, 1), "name"),
                   "child \"quoted\"\n");
  fixture_rmdir(dir);
}
