/* Base-colour textures in glTF (see gltf_texture.h). No sampler is written: glTF's default
 * (repeat, filtering left to the viewer) is what the asset model assumes. */
#include "gltf_texture.h"

#include "gltf_buffer.h"

#include <string.h>

/* "image/png" or "image/jpeg" from the bytes (the MIME type the importer recorded may come from a
 * file name), else NULL. */
static const char *gltf_mime(const rk_texture *t) {
  if (t->size >= 8 && memcmp(t->data, "\x89PNG\r\n\x1a\n", 8) == 0)
    return "image/png";
  if (t->size >= 3 && memcmp(t->data, "\xff\xd8\xff", 3) == 0)
    return "image/jpeg";
  return NULL;
}

int rk__gltf_add_texture(rk__gltf_ctx *c, const rk_texture *t) {
  const char *mime = t && t->data && t->size ? gltf_mime(t) : NULL;
  if (!mime)
    return -1;
  g_autoptr(GBytes) key = g_bytes_new_static(t->data, t->size);
  const gpointer known = g_hash_table_lookup(c->texture_of_image, key);
  if (known)
    return GPOINTER_TO_INT(known) - 1;
  const int view = rk__gltf_add_view(c, t->data, t->size, 0);
  if (view < 0)
    return -2;
  JsonObject *image = json_object_new();
  json_object_set_int_member(image, "bufferView", view);
  json_object_set_string_member(image, "mimeType", mime);
  if (t->path) {
    g_autofree char *name = g_path_get_basename(t->path);
    json_object_set_string_member(image, "name", name);
  }
  json_array_add_object_element(c->images, image);
  JsonObject *texture = json_object_new();
  json_object_set_int_member(texture, "source", (gint64)json_array_get_length(c->images) - 1);
  json_array_add_object_element(c->textures, texture);
  const int index = (int)json_array_get_length(c->textures) - 1;
  g_hash_table_insert(c->texture_of_image, g_bytes_new(t->data, t->size),
                      GINT_TO_POINTER(index + 1));
  return index;
}
