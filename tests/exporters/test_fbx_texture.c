/* Base-colour textures in rigkit's FBX output (exporters/src/fbx_texture.c): a Texture and a Video
 * holding the image's bytes, connected to the Material's DiffuseColor; read back by rigkit (through
 * Assimp) byte for byte, any image format, none without UVs or bytes; the file's structure (counts
 * in Definitions, connections) stays whole. */
#include "fbx_structure.h"
#include "texture_fixtures.h"

Test(fbx_texture, shared_files_keep_their_image) {
  static const char *const inputs[] = {"Fox.glb", "crafted/zup_scale100.glb",
                                       "derived/textured_morph_blender_ext.fbx"};
  g_autofree char *dir = fixture_tmpdir();
  for (size_t i = 0; i < G_N_ELEMENTS(inputs); i++) {
    g_autoptr(rk_asset) back = fixture_texture_survives(inputs[i], dir, "out.fbx");
    cr_assert_null(fixture_texture_of(back, 0)->path, "%s: embedded in the FBX", inputs[i]);
  }
  fixture_rmdir(dir);
}

Test(fbx_texture, any_image_format_and_a_whole_file) {
  const uint8_t tga[] = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 24, 0, 1, 2, 3};
  const rk_texture a = {fixture_png, sizeof fixture_png, "image/png", "skin.png", 0};
  const rk_texture c = {tga, sizeof tga, "image/x-tga", NULL, 0};
  const rk_texture d = {NULL, 0, "image/png", "/nowhere/d.png", 0};
  const rk_texture *textures[] = {&a, &c, &d, NULL};
  g_autoptr(rk_asset) asset = fixture_textured(textures, G_N_ELEMENTS(textures), true);
  g_autofree char *dir = fixture_tmpdir();
  g_autoptr(rk_asset) back = fixture_write_read(asset, dir, "t.fbx");
  fixture_assert_texture(fixture_texture_of(back, 0), fixture_png, sizeof fixture_png, "png");
  fixture_assert_texture(fixture_texture_of(back, 1), tga, sizeof tga, "tga");
  cr_assert_str_eq(fixture_texture_of(back, 1)->mime_type, "image/x-tga");
  cr_assert_null(fixture_texture_of(back, 2), "no bytes: no texture");
  cr_assert_null(fixture_texture_of(back, 3));
  g_autofree char *path = g_build_filename(dir, "t.fbx", NULL);
  gchar *bytes = NULL;
  gsize size = 0;
  cr_assert(g_file_get_contents(path, &bytes, &size, NULL));
  rk__fbx_tree t;
  cr_assert(rk__fbx_tree_parse((const uint8_t *)bytes, size, path, &t, NULL));
  fbx_assert_structure(&t);
  const rk__fbx_node *objects = rk__fbx_node_child(&t.root, "Objects");
  cr_assert_eq(fbx_count_named(objects, "Texture"), 2u);
  cr_assert_eq(fbx_count_named(objects, "Video"), 2u);
  rk__fbx_tree_free(&t);
  g_free(bytes);
  const rk_texture *one[] = {&a};
  g_autoptr(rk_asset) no_uv = fixture_textured(one, 1, false);
  g_autoptr(rk_asset) back2 = fixture_write_read(no_uv, dir, "n.fbx");
  cr_assert_null(fixture_texture_of(back2, 0), "without UVs a texture maps nothing");
  fixture_rmdir(dir);
}
