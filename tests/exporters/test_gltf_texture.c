/* Base-colour textures in rigkit's glTF output (exporters/src/gltf_texture.c): the image's bytes
 * in a bufferView with its MIME type, one image and texture per distinct image, none where glTF
 * cannot hold it (not PNG or JPEG, no bytes) or the mesh has no UVs; read back by rigkit byte for
 * byte, valid for the Khronos validator. */
#include "gltf_read.h"
#include "texture_fixtures.h"

static guint array_length(test_gltf *d, const char *name) {
  JsonArray *a = test_gltf_array(d, name);
  return a ? json_array_get_length(a) : 0;
}

Test(gltf_texture, shared_files_keep_their_image) {
  static const char *const inputs[] = {"Fox.glb", "crafted/textured_morph.gltf",
                                       "derived/textured_morph_blender.fbx"};
  g_autofree char *dir = fixture_tmpdir();
  for (size_t i = 0; i < G_N_ELEMENTS(inputs); i++) {
    static const char *const outs[] = {"out.glb", "out.gltf"};
    for (int k = 0; k < 2; k++) {
      rk_asset_free(fixture_texture_survives(inputs[i], dir, outs[k]));
      g_autofree char *path = g_build_filename(dir, outs[k], NULL);
      test_gltf d;
      test_gltf_load(&d, path);
      cr_assert_eq(array_length(&d, "images"), 1);
      cr_assert_eq(array_length(&d, "textures"), 1);
      test_gltf_clear(&d);
      const char *files[] = {path, NULL};
      g_autofree char *report = NULL;
      cr_assert_eq(fixture_validate(files, &report), 0, "%s -> %s:\n%s", inputs[i], outs[k],
                   report);
    }
  }
  fixture_rmdir(dir);
}

Test(gltf_texture, one_image_per_distinct_image_and_none_glTF_cannot_hold) {
  uint8_t other[sizeof fixture_png];
  memcpy(other, fixture_png, sizeof other);
  other[sizeof other - 5] ^= 1; /* another image (its last CRC byte) */
  const uint8_t tga[] = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 24, 0, 1, 2, 3};
  const rk_texture a = {fixture_png, sizeof fixture_png, "image/png", "a.png", 0};
  const rk_texture b = {other, sizeof other, "image/png", NULL, 0};
  const rk_texture c = {tga, sizeof tga, "image/x-tga", "c.tga", 0};
  const rk_texture d = {NULL, 0, "image/png", "/nowhere/d.png", 0};
  const rk_texture *textures[] = {&a, &b, &a, &c, &d, NULL};
  g_autoptr(rk_asset) asset = fixture_textured(textures, G_N_ELEMENTS(textures), true);
  g_autofree char *dir = fixture_tmpdir();
  g_autoptr(rk_asset) back = fixture_write_read(asset, dir, "t.glb");
  fixture_assert_texture(fixture_texture_of(back, 0), fixture_png, sizeof fixture_png, "a");
  fixture_assert_texture(fixture_texture_of(back, 1), other, sizeof other, "b");
  fixture_assert_texture(fixture_texture_of(back, 2), fixture_png, sizeof fixture_png, "a again");
  for (size_t i = 3; i < G_N_ELEMENTS(textures); i++)
    cr_assert_null(fixture_texture_of(back, i), "mesh %zu: glTF holds no such texture", i);
  g_autofree char *path = g_build_filename(dir, "t.glb", NULL);
  test_gltf doc;
  test_gltf_load(&doc, path);
  cr_assert_eq(array_length(&doc, "images"), 2, "a and b, once each");
  cr_assert_eq(array_length(&doc, "textures"), 2);
  JsonObject *img = test_gltf_element(&doc, "images", 0);
  cr_assert_str_eq(json_object_get_string_member(img, "mimeType"), "image/png");
  cr_assert_str_eq(json_object_get_string_member(img, "name"), "a.png");
  test_gltf_clear(&doc);
  const char *files[] = {path, NULL};
  g_autofree char *report = NULL;
  cr_assert_eq(fixture_validate(files, &report), 0, "%s", report);
  /* Without UVs a texture maps nothing: left out. */
  const rk_texture *one[] = {&a};
  g_autoptr(rk_asset) no_uv = fixture_textured(one, 1, false);
  g_autoptr(rk_asset) back2 = fixture_write_read(no_uv, dir, "n.glb");
  cr_assert_null(fixture_texture_of(back2, 0));
  fixture_rmdir(dir);
}
