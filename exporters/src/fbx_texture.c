/* Base-colour textures in FBX (see fbx_texture.h), laid out as the FBX SDK and Blender write
 * them: the Video carries the image file's bytes in Content (readers unpack embedded media from
 * it: Blender, Assimp) and its file name; the Texture names the Video as its Media. */
#include "fbx_texture.h"

#include "fbx_props.h"

#include <string.h>

bool rk__fbx_texture_written(const rk_mesh_data *d) {
  const rk_texture *t = d->material.base_color_texture;
  return t && t->data && t->size > 0 && d->texcoords;
}

/* The image's file name: the one it was read from, else the mesh's name with the extension of
 * its MIME type (readers that cannot tell the format by the bytes go by it: TGA). */
static char *file_name(const rk__fbx_mesh *m) {
  const rk_texture *t = m->d->material.base_color_texture;
  if (t->path)
    return g_path_get_basename(t->path);
  static const struct {
    const char *mime, *ext;
  } exts[] = {{"image/png", "png"},  {"image/jpeg", "jpg"}, {"image/x-tga", "tga"},
              {"image/bmp", "bmp"},  {"image/gif", "gif"},  {"image/tiff", "tif"},
              {"image/webp", "webp"}, {"image/vnd-ms.dds", "dds"}, {"image/ktx2", "ktx2"}};
  const char *ext = "img"; /* readers go by the bytes then */
  for (size_t i = 0; t->mime_type && i < G_N_ELEMENTS(exts); i++)
    if (strcmp(t->mime_type, exts[i].mime) == 0)
      ext = exts[i].ext;
  return g_strdup_printf("%s.%s", m->model_name, ext);
}

void rk__fbx_write_texture(rk__fbx_ctx *c, const rk__fbx_mesh *m) {
  rk__fbx_enc *e = c->e;
  const rk_texture *t = m->d->material.base_color_texture;
  g_autofree char *file = file_name(m);
  rk__fbx_enc_begin(e, "Video");
  rk__fbx_enc_i64(e, m->video_id);
  rk__fbx_enc_object_name(e, file, "Video");
  rk__fbx_enc_str(e, "Clip");
  rk__fbx_node_str(e, "Type", "Clip");
  rk__fbx_enc_begin(e, "Properties70");
  rk__fbx_p_begin(e, "Path", "KString", "XRefUrl", "");
  rk__fbx_enc_str(e, file);
  rk__fbx_enc_end(e);
  rk__fbx_enc_end(e);
  rk__fbx_node_i32(e, "UseMipMap", 0);
  rk__fbx_node_str(e, "Filename", file);
  rk__fbx_node_str(e, "RelativeFilename", file);
  rk__fbx_enc_begin(e, "Content");
  rk__fbx_enc_raw(e, t->data, t->size);
  rk__fbx_enc_end(e);
  rk__fbx_enc_end(e);

  rk__fbx_enc_begin(e, "Texture");
  rk__fbx_enc_i64(e, m->tex_id);
  rk__fbx_enc_object_name(e, file, "Texture");
  rk__fbx_enc_str(e, "");
  rk__fbx_node_str(e, "Type", "TextureVideoClip");
  rk__fbx_node_i32(e, "Version", 202);
  rk__fbx_enc_begin(e, "TextureName");
  rk__fbx_enc_object_name(e, file, "Texture");
  rk__fbx_enc_end(e);
  rk__fbx_enc_begin(e, "Properties70");
  rk__fbx_p_bool(e, "UseMaterial", true);
  rk__fbx_enc_end(e);
  rk__fbx_enc_begin(e, "Media");
  rk__fbx_enc_object_name(e, file, "Video");
  rk__fbx_enc_end(e);
  rk__fbx_node_str(e, "FileName", file);
  rk__fbx_node_str(e, "RelativeFilename", file);
  const double uv_translation[2] = {0, 0}, uv_scaling[2] = {1, 1};
  rk__fbx_enc_begin(e, "ModelUVTranslation");
  rk__fbx_enc_f64(e, uv_translation[0]);
  rk__fbx_enc_f64(e, uv_translation[1]);
  rk__fbx_enc_end(e);
  rk__fbx_enc_begin(e, "ModelUVScaling");
  rk__fbx_enc_f64(e, uv_scaling[0]);
  rk__fbx_enc_f64(e, uv_scaling[1]);
  rk__fbx_enc_end(e);
  rk__fbx_node_str(e, "Texture_Alpha_Source", "None");
  rk__fbx_enc_begin(e, "Cropping");
  for (int k = 0; k < 4; k++)
    rk__fbx_enc_i32(e, 0);
  rk__fbx_enc_end(e);
  rk__fbx_enc_end(e);
  rk__fbx_connect(c, m->video_id, m->tex_id, NULL);
  rk__fbx_connect(c, m->tex_id, m->mat_id, "DiffuseColor");
}
