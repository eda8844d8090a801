/* Assets: what they record about their source (joint source nodes, the file digest). */
#include "rk_test.h"

#include <string.h>

static rk_asset *three_joint_asset(void) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_skeleton_builder_add_joint(b, "root", -1, NULL, 0);
  rk_skeleton_builder_add_joint(b, "a", 0, NULL, 0);
  rk_skeleton_builder_add_joint(b, "b", 1, NULL, 0);
  g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(b, NULL, NULL);
  cr_assert_not_null(s);
  return rk_asset_new(s);
}

Test(asset, joint_source_nodes_default_to_none) {
  g_autoptr(rk_asset) a = three_joint_asset();
  for (size_t j = 0; j < 4; j++)
    cr_assert_eq(rk_asset_joint_source_node(a, j), -1);
  cr_assert(rk_asset_set_joint_source_node(a, 1, 7));
  cr_assert_eq(rk_asset_joint_source_node(a, 0), -1);
  cr_assert_eq(rk_asset_joint_source_node(a, 1), 7);
  cr_assert_eq(rk_asset_joint_source_node(a, 2), -1);
  cr_assert(rk_asset_set_joint_source_node(a, 1, -1));
  cr_assert_eq(rk_asset_joint_source_node(a, 1), -1);
  cr_assert_not(rk_asset_set_joint_source_node(a, 3, 0), "joint out of range");
  cr_assert_not(rk_asset_set_joint_source_node(a, 0, -2), "node below -1");
  cr_assert_eq(rk_asset_joint_source_node(a, 0), -1);
}

Test(asset, source_digest_is_copied_and_clearable) {
  g_autoptr(rk_asset) a = three_joint_asset();
  cr_assert_null(rk_asset_source_digest(a));
  char d[] = "00ff";
  rk_asset_set_source_digest(a, d);
  d[0] = 'x';
  cr_assert_str_eq(rk_asset_source_digest(a), "00ff");
  rk_asset_set_source_digest(a, NULL);
  cr_assert_null(rk_asset_source_digest(a));
}

/* One triangle with UVs and the given material. */
static rk_mesh *triangle(const rk_material *m, GError **error) {
  const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, uv[6] = {0, 0, 1, 0, 0, 1};
  rk_mesh_data d = {0};
  d.name = "tri";
  d.vertex_count = 3;
  d.positions = pos;
  d.texcoords = uv;
  d.attach_joint = -1;
  d.material = *m;
  return rk_mesh_new(&d, 1, error);
}

Test(asset, meshes_copy_their_texture) {
  uint8_t png[12] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 1, 2, 3, 4};
  char mime[] = "image/png", path[] = "/some/where/skin.png";
  rk_texture t = {png, sizeof png, mime, path, 0};
  rk_material m = {0};
  m.base_color[0] = m.base_color[1] = m.base_color[2] = m.base_color[3] = 1;
  m.base_color_texture = &t;
  g_autoptr(rk_mesh) mesh = triangle(&m, NULL);
  cr_assert_not_null(mesh);
  png[8] = 9, mime[0] = 'X', path[0] = 'X';
  const rk_texture *c = rk_mesh_data_get(mesh)->material.base_color_texture;
  cr_assert_not_null(c);
  cr_assert_neq((const void *)c, (const void *)&t);
  cr_assert_eq(c->size, sizeof png);
  cr_assert_eq(c->data[8], 1, "the bytes are copied");
  cr_assert_str_eq(c->mime_type, "image/png");
  cr_assert_str_eq(c->path, "/some/where/skin.png");
  /* A path alone is a texture (its image could not be read); nothing at all is not. */
  rk_texture only_path = {NULL, 0, NULL, "skin.png", 0};
  m.base_color_texture = &only_path;
  g_autoptr(rk_mesh) by_path = triangle(&m, NULL);
  cr_assert_not_null(by_path);
  cr_assert_null(rk_mesh_data_get(by_path)->material.base_color_texture->data);
  rk_texture nothing = {NULL, 0, "image/png", NULL, 0};
  m.base_color_texture = &nothing;
  g_autoptr(GError) e = NULL;
  cr_assert_null(triangle(&m, &e));
  cr_assert(e && e->code == RK_ERROR_INVALID && strstr(e->message, "neither image bytes"), "%s",
            e ? e->message : "no error");
  m.base_color_texture = NULL;
  g_autoptr(rk_mesh) plain = triangle(&m, NULL);
  cr_assert_null(rk_mesh_data_get(plain)->material.base_color_texture);
}
