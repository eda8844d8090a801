/* The glTF pre-pass keeps valid files that Assimp 5.2.5 cannot take from reaching it as they are:
 * a skin without inverseBindMatrices (glTF: identity matrices; Assimp crashes on it, found by
 * fuzz_gltf) must import exactly like the same file with the identity matrices written out
 * (crafted/skin_without_ibm.gltf and skin_identity_ibm.gltf, from SimpleSkin), and a GLB without
 * them must import. Malformed variants that the pre-pass refuses are in bad/ (test_bad_files). */
#include "import_test.h"

#include <json-glib/json-glib.h>

static void assert_same_import(rk_asset *a, rk_asset *b) {
  const rk_skeleton *sa = rk_asset_skeleton(a), *sb = rk_asset_skeleton(b);
  const size_t n = rk_skeleton_joint_count(sa);
  cr_assert_eq(rk_skeleton_joint_count(sb), n);
  for (size_t j = 0; j < n; j++) {
    cr_assert_str_eq(rk_skeleton_joint_name(sa, j), rk_skeleton_joint_name(sb, j));
    cr_assert_eq(memcmp(rk_skeleton_rest(sa, j), rk_skeleton_rest(sb, j), sizeof(rk_transform)), 0);
    rk_mat4 ia, ib;
    cr_assert_eq(rk_skeleton_inverse_bind(sa, j, &ia), rk_skeleton_inverse_bind(sb, j, &ib));
    rk_assert_mat4_near(ia, ib, 0);
  }
  cr_assert_eq(rk_asset_mesh_count(a), 1);
  cr_assert_eq(rk_asset_mesh_count(b), 1);
  const rk_mesh_data *ma = rk_mesh_data_get(rk_asset_mesh(a, 0));
  const rk_mesh_data *mb = rk_mesh_data_get(rk_asset_mesh(b, 0));
  cr_assert_eq(ma->vertex_count, mb->vertex_count);
  cr_assert(ma->joints && mb->joints, "both meshes stay skinned");
  cr_assert_eq(memcmp(ma->positions, mb->positions, ma->vertex_count * 3 * sizeof(float)), 0);
  cr_assert_eq(memcmp(ma->joints, mb->joints, ma->vertex_count * 4 * sizeof(uint16_t)), 0);
  cr_assert_eq(memcmp(ma->weights, mb->weights, ma->vertex_count * 4 * sizeof(float)), 0);
  cr_assert_eq(rk_asset_clip_count(a), rk_asset_clip_count(b));
}

Test(gltf_prepass, a_skin_without_inverse_binds_reads_as_identity) {
  g_autoptr(rk_asset) without = import_ok("crafted/skin_without_ibm.gltf", NULL);
  g_autoptr(rk_asset) explicit_ = import_ok("crafted/skin_identity_ibm.gltf", NULL);
  assert_same_import(without, explicit_);
  cr_assert(has_note(without, "no inverseBindMatrices"));
  cr_assert_not(has_note(explicit_, "no inverseBindMatrices"));
  /* The pre-pass's JSON tree rides with the asset only when no repair changed it: an editor of
   * the file must see the file. */
  cr_assert_null(rk_asset_take_source_tree(without, NULL));
  GDestroyNotify free_tree = NULL;
  JsonNode *tree = rk_asset_take_source_tree(explicit_, &free_tree);
  cr_assert(tree && JSON_NODE_HOLDS_OBJECT(tree));
  cr_assert(json_object_has_member(json_node_get_object(tree), "skins"));
  cr_assert_null(rk_asset_take_source_tree(explicit_, NULL), "one taker only");
  free_tree(tree);
}

Test(gltf_prepass, a_glb_skin_without_inverse_binds) {
  /* derived/assimp_huesitos_assimp.glb (BIN chunk) with its skin's inverseBindMatrices member
   * renamed in place (same length: chunk sizes unchanged). */
  g_autofree char *path = rk_test_data("derived/assimp_huesitos_assimp.glb");
  g_autofree char *bytes = NULL;
  gsize len = 0;
  cr_assert(g_file_get_contents(path, &bytes, &len, NULL));
  char *key = memmem(bytes, len, "\"inverseBindMatrices\"", 21);
  cr_assert(key, "the file has inverse bind matrices");
  key[19] = 'X';
  g_autoptr(GError) error = NULL;
  g_autoptr(rk_asset) a = rk_import_memory(bytes, len, "no_ibm.glb", NULL, &error);
  cr_assert(a, "%s", error ? error->message : "");
  cr_assert(has_note(a, "no inverseBindMatrices"));
  cr_assert_eq(rk_asset_mesh_count(a), 1);
  cr_assert(rk_mesh_data_get(rk_asset_mesh(a, 0))->joints, "the mesh stays skinned");
}
