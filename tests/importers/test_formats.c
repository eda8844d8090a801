/* The same motion read from two formats gives the same world joint positions, through the
 * command line (`rigkit fk --json`) as a user would compare them. The second file of each pair was
 * written by a third-party tool (Debian's assimp-utils 5.2.5, see tests/data/README.md). */
#include "import_test.h"

#include <json-glib/json-glib.h>

/* name -> position from `rigkit fk FILE --frame N --json [extra...]`. */
static GHashTable *fk_json(const char *file, int frame, const char *const *extra) {
  g_autofree char *path = rk_test_data(file);
  g_autofree char *frame_s = g_strdup_printf("%d", frame);
  const char *args[16] = {"fk", path, "--frame", frame_s, "--json"};
  size_t n = 5;
  for (const char *const *e = extra; e && *e; e++)
    args[n++] = *e;
  args[n] = NULL;
  g_autofree char *out = NULL, *err = NULL;
  const int rc = run_cli(args, &out, &err);
  cr_assert_eq(rc, 0, "rigkit fk %s failed (%d): %s", file, rc, err);
  g_autoptr(JsonParser) parser = json_parser_new();
  cr_assert(json_parser_load_from_data(parser, out, -1, NULL), "bad JSON: %s", out);
  JsonObject *root = json_node_get_object(json_parser_get_root(parser));
  JsonArray *joints = json_object_get_array_member(root, "joints");
  GHashTable *map = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < json_array_get_length(joints); i++) {
    JsonObject *j = json_array_get_object_element(joints, i);
    JsonArray *p = json_object_get_array_member(j, "position");
    rk_vec3 *v = g_new(rk_vec3, 1);
    *v = rk_vec3_make(json_array_get_double_element(p, 0), json_array_get_double_element(p, 1),
                      json_array_get_double_element(p, 2));
    g_hash_table_insert(map, g_strdup(json_object_get_string_member(j, "name")), v);
  }
  return map;
}

/* Largest distance over the joints of a (names mapped by `rename`, NULL = same names); every
 * joint of a must be found in b. */
static double max_distance(GHashTable *a, GHashTable *b, char *(*rename)(const char *)) {
  GHashTableIter it;
  gpointer key, value;
  double worst = 0;
  g_hash_table_iter_init(&it, a);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    g_autofree char *other = rename ? rename(key) : g_strdup(key);
    const rk_vec3 *q = g_hash_table_lookup(b, other);
    cr_assert_not_null(q, "joint '%s' (as '%s') missing in the second file", (char *)key, other);
    worst = fmax(worst, rk_vec3_norm(rk_vec3_sub(*(const rk_vec3 *)value, *q)));
  }
  return worst;
}

/* rigkit names BVH End Sites "<parent>_End"; Assimp names them "EndSite_<parent>". */
static char *assimp_end_site(const char *name) {
  if (g_str_has_suffix(name, "_End"))
    return g_strdup_printf("EndSite_%.*s", (int)strlen(name) - 4, name);
  return g_strdup(name);
}

Test(formats, bvh_and_its_gltf_conversion_agree) {
  /* Assimp's BVH reading replaces the root OFFSET by the channels and keeps the file's Z-up
   * decimetres: read the BVH the same way (rigkit's own choice for this file is "add", Z-up, dm,
   * tested in test_import_data.c) and both files in decimetres. */
  static const char *const bvh_opts[] = {"--root-offset", "replace", "--up", "Y", "--unit", "dm", NULL};
  static const char *const glb_opts[] = {"--unit", "dm", NULL};
  for (int f = 0; f < 14; f++) {
    g_autoptr(GHashTable) a = fk_json("makehuman_walk1.bvh", f, bvh_opts);
    g_autoptr(GHashTable) b = fk_json("derived/makehuman_walk1_assimp.glb", f, glb_opts);
    cr_assert_eq(g_hash_table_size(a), 91u);
    const double d = max_distance(a, b, assimp_end_site);
    /* Assimp times keys at k / 23.9998 s (1/FrameTime in float): up to 3e-5 m apart. */
    cr_assert(d < 1e-4, "frame %d: %g m apart", f, d);
  }
}

Test(formats, fbx_and_its_gltf_conversion_agree) {
  /* The conversion keeps the FBX's centimetres without a unit: read the glTF as cm. */
  static const char *const glb_opts[] = {"--unit", "cm", NULL};
  for (int f = 0; f < 40; f += 3) {
    g_autoptr(GHashTable) a = fk_json("assimp_huesitos.fbx", f, NULL);
    g_autoptr(GHashTable) b = fk_json("derived/assimp_huesitos_assimp.glb", f, glb_opts);
    cr_assert_eq(g_hash_table_size(a), 11u);
    const double d = max_distance(a, b, NULL);
    cr_assert(d < 1e-4, "frame %d: %g m apart", f, d);
  }
}

Test(formats, bvh_written_in_three_conventions_agrees) {
  /* Hand-written: Y-up cm with the hip height in the channels, Z-up inches in the OFFSET with
   * CRLF/tabs and another channel order, Y-up metres; all read with automatic detection. */
  for (int f = 0; f < 3; f++) {
    g_autoptr(GHashTable) m = fk_json("crafted/human_yup_m_frames_short.bvh", f, NULL);
    g_autoptr(GHashTable) cm = fk_json("crafted/human_yup_cm_full_root.bvh", f, NULL);
    g_autoptr(GHashTable) in = fk_json("crafted/human_zup_in_offset_root.bvh", f, NULL);
    cr_assert(max_distance(m, cm, NULL) < 1e-6);
    cr_assert(max_distance(m, in, NULL) < 1e-6);
  }
}
