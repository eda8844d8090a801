/* Textured assets for the texture writers' tests: a one-joint skeleton with meshes carrying given
 * base-colour textures, written and read back by rigkit. Header-only. */
#ifndef RK_TEXTURE_FIXTURES_H
#define RK_TEXTURE_FIXTURES_H

#include "export_fixtures.h"

#include <rigkit/importers.h>

/** A 2x1 PNG's bytes (a real image: Blender and Assimp decode it). */
static const uint8_t fixture_png[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
    0x44, 0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00,
    0x00, 0x7b, 0x40, 0xe8, 0xdd, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78,
    0xda, 0x63, 0xf8, 0xcf, 0x00, 0x04, 0xff, 0x01, 0x07, 0x00, 0x01, 0xff, 0x3d, 0x7d,
    0x8c, 0x49, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

/** An asset of one joint and one quad skinned to it per texture (NULL: a quad without texture),
 * with UVs when uv (a skin makes the joint a joint when the file is read back). */
static inline rk_asset *fixture_textured(const rk_texture *const *textures, size_t n, bool uv) {
  g_autoptr(rk_skeleton_builder) b = rk_skeleton_builder_new();
  rk_skeleton_builder_add_joint(b, "root", -1, NULL, 0);
  g_autoptr(rk_skeleton) s = rk_skeleton_builder_build(b, NULL, NULL);
  rk_asset *a = rk_asset_new(s);
  const float pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, tc[8] = {0, 1, 1, 1, 1, 0, 0, 0};
  const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
  const uint16_t joints[16] = {0};
  const float weights[16] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    g_autofree char *name = g_strdup_printf("quad%zu", i);
    rk_mesh_data d = {0};
    d.name = name;
    d.vertex_count = 4;
    d.positions = pos;
    d.texcoords = uv ? tc : NULL;
    d.index_count = 6;
    d.indices = idx;
    d.joints = joints;
    d.weights = weights;
    d.attach_joint = -1;
    d.material.base_color[0] = d.material.base_color[1] = d.material.base_color[2] = 1;
    d.material.base_color[3] = 1;
    d.material.roughness = 1;
    d.material.base_color_texture = textures[i];
    rk_mesh *m = rk_mesh_new(&d, 1, NULL);
    cr_assert_not_null(m);
    rk_asset_add_mesh(a, m);
  }
  return a;
}

/** The texture of mesh i of a (may be NULL). */
static inline const rk_texture *fixture_texture_of(const rk_asset *a, size_t i) {
  return rk_mesh_data_get(rk_asset_mesh(a, i))->material.base_color_texture;
}

/** t holds exactly the n bytes at data. */
static inline void fixture_assert_texture(const rk_texture *t, const void *data, size_t n,
                                          const char *what) {
  cr_assert_not_null(t, "%s: no texture", what);
  cr_assert(t->data && t->size == n && memcmp(t->data, data, n) == 0,
            "%s: the texture's %zu bytes are not the image's %zu", what, t->size, n);
}

/** Writes a to dir/name and reads it back (the caller frees it). */
static inline rk_asset *fixture_write_read(const rk_asset *a, const char *dir, const char *name) {
  g_autofree char *path = g_build_filename(dir, name, NULL);
  g_autoptr(GError) e = NULL;
  cr_assert(rk_export_file(a, path, NULL, &e), "%s: %s", name, e ? e->message : "");
  rk_asset *back = rk_import_file(path, NULL, &e);
  cr_assert_not_null(back, "%s: %s", name, e ? e->message : "");
  return back;
}

/** Imports tests/data/<input>, writes it to dir/out_name and checks that the output, read back,
 * holds the input's texture image byte for byte; returns the asset read back (the caller frees
 * it). */
static inline rk_asset *fixture_texture_survives(const char *input, const char *dir,
                                                 const char *out_name) {
  g_autofree char *in = rk_test_data(input);
  g_autoptr(GError) e = NULL;
  g_autoptr(rk_asset) a = rk_import_file(in, NULL, &e);
  cr_assert_not_null(a, "%s: %s", input, e ? e->message : "");
  const rk_texture *t = fixture_texture_of(a, 0);
  cr_assert_not_null(t, "%s has a texture", input);
  rk_asset *back = fixture_write_read(a, dir, out_name);
  fixture_assert_texture(fixture_texture_of(back, 0), t->data, t->size, input);
  return back;
}

#endif
