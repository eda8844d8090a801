/* Base-colour textures read into the asset (rk_material.base_color_texture): embedded images
 * (GLB bufferView, FBX Video content) and images in files beside the source (glTF URI, FBX
 * RelativeFilename), with their MIME type; an image that cannot be found keeps its path. */
#include "import_test.h"
#include "../exporters/gltf_read.h"

#include <glib/gstdio.h>

static const rk_texture *only_texture(const rk_asset *a, const char *what) {
  cr_assert_eq(rk_asset_mesh_count(a), 1, "%s: meshes", what);
  const rk_texture *t = rk_mesh_data_get(rk_asset_mesh(a, 0))->material.base_color_texture;
  cr_assert_not_null(t, "%s: no texture", what);
  return t;
}

static GBytes *file_bytes(const char *path) {
  gchar *data = NULL;
  gsize n = 0;
  cr_assert(g_file_get_contents(path, &data, &n, NULL), "cannot read %s", path);
  return g_bytes_new_take(data, n);
}

static void assert_bytes(const rk_texture *t, GBytes *expected, const char *what) {
  gsize n = 0;
  const void *p = g_bytes_get_data(expected, &n);
  cr_assert(t->data && t->size == n && memcmp(t->data, p, n) == 0,
            "%s: the texture's %zu bytes are not the image's %zu", what, t->size, (size_t)n);
  cr_assert_str_eq(t->mime_type, "image/png", "%s", what);
  cr_assert_eq(t->uv_set, 0u);
}

Test(scene_textures, fox_glb_image_from_its_buffer_view) {
  g_autoptr(rk_asset) a = import_ok("Fox.glb", NULL);
  const rk_texture *t = only_texture(a, "Fox.glb");
  g_autofree char *path = rk_test_data("Fox.glb");
  test_gltf d;
  test_gltf_load(&d, path);
  g_autoptr(GBytes) image = test_gltf_view_bytes(
      &d, (guint)json_object_get_int_member(test_gltf_element(&d, "images", 0), "bufferView"));
  assert_bytes(t, image, "Fox.glb");
  cr_assert_null(t->path, "an embedded image has no file");
  test_gltf_clear(&d);
}

Test(scene_textures, images_beside_the_file_and_embedded) {
  g_autofree char *png_path = rk_test_data("crafted/textured_morph.png");
  g_autoptr(GBytes) png = file_bytes(png_path);
  static const char *const embedded[] = {"crafted/zup_scale100.glb",
                                         "derived/textured_morph_blender.fbx"};
  for (size_t i = 0; i < G_N_ELEMENTS(embedded); i++) {
    g_autoptr(rk_asset) a = import_ok(embedded[i], NULL);
    assert_bytes(only_texture(a, embedded[i]), png, embedded[i]);
  }
  static const char *const beside[] = {"crafted/textured_morph.gltf",
                                       "derived/textured_morph_blender_ext.fbx"};
  for (size_t i = 0; i < G_N_ELEMENTS(beside); i++) {
    g_autoptr(rk_asset) a = import_ok(beside[i], NULL);
    const rk_texture *t = only_texture(a, beside[i]);
    assert_bytes(t, png, beside[i]);
    cr_assert(t->path && g_str_has_suffix(t->path, "textured_morph.png"), "%s: path %s",
              beside[i], t->path ? t->path : "(none)");
    g_autoptr(GBytes) again = file_bytes(t->path);
    cr_assert(g_bytes_equal(again, png), "%s: the path names the image", beside[i]);
  }
  /* In memory: embedded images need no folder. */
  g_autofree char *glb = rk_test_data("crafted/zup_scale100.glb");
  g_autoptr(GBytes) bytes = file_bytes(glb);
  g_autoptr(rk_asset) m = rk_import_memory(g_bytes_get_data(bytes, NULL), g_bytes_get_size(bytes),
                                           "zup.glb", NULL, NULL);
  cr_assert_not_null(m);
  assert_bytes(only_texture(m, "in memory"), png, "in memory");
}

Test(scene_textures, a_missing_image_keeps_its_path_with_a_note) {
  g_autoptr(GError) e = NULL;
  g_autofree char *dir = g_dir_make_tmp("rk-tex-XXXXXX", &e);
  cr_assert_not_null(dir);
  static const char *const parts[] = {"textured_morph.gltf", "textured_morph.bin"};
  for (size_t i = 0; i < G_N_ELEMENTS(parts); i++) {
    g_autofree char *name = g_strdup_printf("crafted/%s", parts[i]);
    g_autofree char *from = rk_test_data(name);
    g_autoptr(GBytes) b = file_bytes(from);
    g_autofree char *to = g_build_filename(dir, parts[i], NULL);
    cr_assert(g_file_set_contents(to, g_bytes_get_data(b, NULL), (gssize)g_bytes_get_size(b),
                                  NULL));
  }
  g_autofree char *doc = g_build_filename(dir, "textured_morph.gltf", NULL);
  g_autoptr(rk_asset) a = rk_import_file(doc, NULL, &e);
  cr_assert_not_null(a, "%s", e ? e->message : "");
  const rk_texture *t = only_texture(a, doc);
  cr_assert_null(t->data);
  cr_assert(t->path && g_str_has_suffix(t->path, "textured_morph.png"));
  cr_assert_str_eq(t->mime_type, "image/png", "from the file name");
  cr_assert(has_note(a, "texture image 'textured_morph.png' not found"));
  for (size_t i = 0; i < G_N_ELEMENTS(parts); i++) {
    g_autofree char *p = g_build_filename(dir, parts[i], NULL);
    g_unlink(p);
  }
  g_rmdir(dir);
}

Test(scene_textures, untextured_files_have_none) {
  static const char *const files[] = {"RiggedFigure.glb", "SimpleSkin.gltf",
                                      "assimp_huesitos.fbx"};
  for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
    g_autoptr(rk_asset) a = import_ok(files[i], NULL);
    for (size_t m = 0; m < rk_asset_mesh_count(a); m++)
      cr_assert_null(rk_mesh_data_get(rk_asset_mesh(a, m))->material.base_color_texture, "%s",
                     files[i]);
  }
}
